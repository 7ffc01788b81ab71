/* hr-window-start.c: the start page shown or hidden, and the offer of an
 * unsaved scenario
 *
 * The page itself, its examples and recent files are HrStartPage's
 * (hr-start-page.c); the start page shows on a first start (no scenario
 * to open again); any scenario opened, or "New Scenario", shows the
 * results.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>

#include "hr-window-private.h"

/* The actions that act on the scenario shown, which the start page
 * hides: off while it shows, so that the menu greys them out and their
 * shortcuts do nothing to a scenario nobody sees.  (Undo and Redo follow
 * the history, which is empty while the start page shows.) */
static const char * const scenario_actions[] = {
  "win.save", "win.save-as", "win.export", "win.export-report", "win.advise",
  "win.import-measurements", "win.keep-measurements", "win.search-models",
  "win.toggle-sidebar", "win.add-model", "win.add-gpu",
};

/* The one place that switches them, from whether a scenario shows. */
static void
update_scenario_actions (HrWindow *self)
{
  gboolean shown = !_hr_window_start_page_visible (self);

  for (guint i = 0; i < G_N_ELEMENTS (scenario_actions); i++)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), scenario_actions[i], shown);
}

void
_hr_window_start_init (HrWindow *self)
{
  /* The main menu's Open Example and Open Recent show the page's own
   * menus, as one section each. */
  g_menu_append_section (self->examples_menu, NULL,
                         hr_start_page_get_examples_menu (self->start_page));
  g_menu_append_section (self->recent_menu, NULL,
                         hr_start_page_get_recent_menu (self->start_page));
  gtk_stack_set_visible_child_name (self->main_stack, "results");
  update_scenario_actions (self);
}

void
_hr_window_show_results (HrWindow *self)
{
  gboolean was_start = g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack),
                                  "start") == 0;

  gtk_stack_set_visible_child_name (self->main_stack, "results");
  update_scenario_actions (self);
  _hr_window_refresh_title (self);
  if (was_start)
    gtk_widget_grab_focus (hr_sidebar_get_model_button (self->sidebar));
}

void
hr_window_show_start_page (HrWindow *self)
{
  g_return_if_fail (HR_IS_WINDOW (self));

  gtk_stack_set_visible_child_name (self->main_stack, "start");
  update_scenario_actions (self);
  _hr_window_refresh_title (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->start_page));
}

gboolean
_hr_window_start_page_visible (HrWindow *self)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "start") == 0;
}

void
hr_window_offer_recovery (HrWindow *self)
{
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (HR_IS_WINDOW (self));
  if (hr_recovery_exists (self->recovery))
    name = hr_start_page_dup_scenario_name (hr_recovery_get_path (self->recovery));
  if (name == NULL)
    return;
  text = g_strdup_printf (_("Headroom closed before the changes to “%s” were saved."), name);
  gtk_label_set_text (self->recovery_label, text);
  gtk_revealer_set_reveal_child (self->recovery_revealer, TRUE);
}

void
_hr_window_hide_recovery_banner (HrWindow *self)
{
  gtk_revealer_set_reveal_child (self->recovery_revealer, FALSE);
}
