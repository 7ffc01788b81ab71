/* hr-window-fold.c: the window's adaptive layout
 *
 * A narrow window folds the sidebar into an overlay, an AdwFlap whose
 * fold policy follows the window's width (libadwaita 1.2 has no
 * breakpoints).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include "hr-window-private.h"

/* Below this width the sidebar folds into an overlay (F9 or the header
 * bar's toggle shows it) and the results take the whole width: the
 * sidebar is 380 px (hr-sidebar.ui) and the results' text column needs
 * about 520 beside it. */
#define FOLD_BELOW_PX 900

static void
set_folded (HrWindow *self,
            gboolean  fold)
{
  /* The flap is not locked: folding hides the sidebar, unfolding shows
   * it again. */
  adw_flap_set_fold_policy (self->flap, fold ? ADW_FLAP_FOLD_POLICY_ALWAYS
                                             : ADW_FLAP_FOLD_POLICY_NEVER);
}

static gboolean
update_fold_cb (gpointer data)
{
  HrWindow *self = data;

  self->fold_source = 0;
  set_folded (self, gtk_widget_get_width (GTK_WIDGET (self)) < FOLD_BELOW_PX);
  return G_SOURCE_REMOVE;
}

/* Before the window shows, its size is the default size: folded (or
 * not) from the first frame, with no animation. */
static void
on_default_width_cb (HrWindow *self)
{
  int width, height;

  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  if (width > 0)
    set_folded (self, width < FOLD_BELOW_PX);
}

void
_hr_window_fold_allocated (HrWindow *self,
                           int       width)
{
  gboolean fold = width < FOLD_BELOW_PX;
  gboolean folded = adw_flap_get_fold_policy (self->flap) == ADW_FLAP_FOLD_POLICY_ALWAYS;

  /* Changed after this allocation, not inside it. */
  if (fold != folded && self->fold_source == 0)
    self->fold_source = g_idle_add_full (G_PRIORITY_HIGH_IDLE, update_fold_cb, self, NULL);
}

void
_hr_window_fold_init (HrWindow *self)
{
  g_signal_connect (self, "notify::default-width", G_CALLBACK (on_default_width_cb), NULL);
}
