/* hr-window-history.c: the window's edits through its undo history,
 * asking before changes are lost, and the unsaved scenario kept
 *
 * The history itself is HrHistory (hr-history.c): every edit hands it
 * the state it changes first, and undo and redo give states back, which
 * the window shows.  Its can-undo and can-redo properties switch the
 * window's Undo and Redo, and its modified property the title's "•".
 * The unsaved state on disk is HrRecovery's (hr-recovery.c): written a
 * second after each edit that leaves the window modified, removed once
 * the changes are saved or discarded.
 *
 * Opening, dropping or starting another scenario with unsaved changes
 * asks first, as closing does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>

#include "hr-window-private.h"

static void
on_can_undo_cb (HrWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo",
                                 hr_history_get_can_undo (self->history));
}

static void
on_can_redo_cb (HrWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.redo",
                                 hr_history_get_can_redo (self->history));
}

/* What the recovery file keeps: the state shown while it is unsaved. */
static char *
recovery_contents_cb (gpointer user_data)
{
  HrWindow *self = user_data;

  if (!hr_history_get_modified (self->history))
    return NULL;
  return hr_recovery_format (self->scenario, self->file, self->gpu_ids);
}

void
_hr_window_history_init (HrWindow *self)
{
  g_autofree char *path = hr_recovery_get_default_path ();

  self->history = hr_history_new ();
  self->recovery = hr_recovery_new (path, recovery_contents_cb, self);
  g_signal_connect_object (self->history, "notify::can-undo", G_CALLBACK (on_can_undo_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history, "notify::can-redo", G_CALLBACK (on_can_redo_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history, "notify::modified",
                           G_CALLBACK (_hr_window_refresh_title), self, G_CONNECT_SWAPPED);
  on_can_undo_cb (self);
  on_can_redo_cb (self);
}

void
_hr_window_history_finalize (HrWindow *self)
{
  if (self->recovery != NULL)
    hr_recovery_cancel (self->recovery);
  g_clear_object (&self->recovery);
  g_clear_object (&self->history);
  if (self->pending_destroy != NULL)
    self->pending_destroy (self->pending_data);
}

void
_hr_window_begin_edit (HrWindow   *self,
                       const char *key)
{
  self->edit_start = g_get_monotonic_time ();
  hr_history_begin_edit (self->history, key, self->scenario, self->gpu_ids);
}

void
_hr_window_edited (HrWindow *self)
{
  _hr_window_refresh (self);
  if (hr_history_get_modified (self->history))
    hr_recovery_schedule (self->recovery);
  else
    hr_recovery_discard (self->recovery);
  _hr_window_count_edit (self);
}

void
_hr_window_mark_saved (HrWindow *self)
{
  hr_history_mark_saved (self->history);
  hr_recovery_discard (self->recovery);
}

/* Shows @state, from undo or redo. */
static void
show_state (HrWindow       *self,
            HrHistoryState *state)
{
  g_ptr_array_set_size (self->gpu_ids, 0);
  for (guint i = 0; state->gpu_ids[i] != NULL; i++)
    g_ptr_array_add (self->gpu_ids, g_strdup (state->gpu_ids[i]));
  g_settings_set_strv (self->settings, "compare-gpus", (const char * const *) state->gpu_ids);
  hr_scenario_free (self->scenario);
  self->scenario = g_steal_pointer (&state->scenario);
  _hr_window_edited (self);
}

gboolean
hr_window_undo (HrWindow *self)
{
  g_autoptr(HrHistoryState) state = NULL;

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  state = hr_history_undo (self->history, self->scenario, self->gpu_ids);
  if (state != NULL)
    show_state (self, state);
  return state != NULL;
}

gboolean
hr_window_redo (HrWindow *self)
{
  g_autoptr(HrHistoryState) state = NULL;

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  state = hr_history_redo (self->history, self->scenario, self->gpu_ids);
  if (state != NULL)
    show_state (self, state);
  return state != NULL;
}

/* ------------------------------------------------------------------ */
/* Asking before unsaved changes are lost                               */

static void
run_pending (HrWindow *self,
             gboolean  go)
{
  HrWindowThen then = self->pending_then;
  gpointer data = self->pending_data;
  GDestroyNotify destroy = self->pending_destroy;

  self->pending_then = NULL;
  self->pending_data = NULL;
  self->pending_destroy = NULL;
  if (go && then != NULL)
    then (self, data);
  if (destroy != NULL)
    destroy (data);
}

void
_hr_window_after_save (HrWindow *self,
                       gboolean  saved)
{
  run_pending (self, saved);
}

static void
on_discard_response (AdwMessageDialog *dialog,
                     const char       *response,
                     HrWindow         *self)
{
  g_autoptr(GError) error = NULL;

  if (g_str_equal (response, "discard"))
    {
      hr_recovery_discard (self->recovery);
      run_pending (self, TRUE);
    }
  else if (g_str_equal (response, "save"))
    {
      if (self->file == NULL)
        _hr_window_save_as (self);   /* runs the pending step once saved */
      else if (!hr_window_save_file (self, self->file, &error))
        {
          _hr_window_show_error (self, _("Could not save the scenario"), error->message);
          run_pending (self, FALSE);
        }
      else
        run_pending (self, TRUE);
    }
  else
    run_pending (self, FALSE);
}

void
_hr_window_confirm_discard (HrWindow       *self,
                            const char     *body,
                            HrWindowThen    then,
                            gpointer        data,
                            GDestroyNotify  destroy)
{
  GtkWidget *dialog;

  if (!hr_history_get_modified (self->history))
    {
      then (self, data);
      if (destroy != NULL)
        destroy (data);
      return;
    }
  /* One question at a time: a newer request replaces an older one. */
  run_pending (self, FALSE);
  self->pending_then = then;
  self->pending_data = data;
  self->pending_destroy = destroy;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_discard_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------------ */
/* The unsaved state, for the next start                                */

void
hr_window_set_keeps_recovery (HrWindow *self,
                              gboolean  keeps)
{
  g_return_if_fail (HR_IS_WINDOW (self));
  hr_recovery_set_enabled (self->recovery, keeps);
}

gboolean
hr_window_restore_recovery (HrWindow  *self,
                            GError   **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GPtrArray) ids = NULL;
  HrScenario *scenario;

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  scenario = hr_recovery_read (hr_recovery_get_path (self->recovery), self->catalog, &file,
                               &ids, error);
  if (scenario == NULL)
    return FALSE;
  _hr_window_set_scenario (self, scenario, file);
  if (ids != NULL)
    {
      g_ptr_array_set_size (self->gpu_ids, 0);
      for (guint i = 0; i < ids->len; i++)
        g_ptr_array_add (self->gpu_ids, g_strdup (g_ptr_array_index (ids, i)));
    }
  /* What comes back is unsaved work: marked so, and kept again. */
  hr_history_mark_unsaved (self->history);
  _hr_window_edited (self);
  _hr_window_hide_recovery_banner (self);
  return TRUE;
}
