/* hr-window-history.c: undo and redo, asking before changes are lost, and
 * the unsaved scenario kept for the next start
 *
 * Every edit of the scenario (a setting, the model, the GPUs compared)
 * first keeps a copy of the state it changes: the scenario and the
 * comparison.  Undo goes back to the copy, redo forward again.  Steps of
 * the same setting within a second (a spin button held down, a value
 * typed digit by digit) are one edit.  Each state has a serial number;
 * the window is modified when its state is not the one last saved, so
 * undoing back to it clears the mark.
 *
 * Opening, dropping or starting another scenario with unsaved changes
 * asks first, as closing does.  And the unsaved state is written, a
 * second after the last edit, beside the settings
 * ($XDG_CONFIG_HOME/headroom/unsaved-scenario.json, through
 * hr_file_write_atomic, in a worker thread); it is removed once the
 * changes are saved or discarded, so after a crash the next start finds
 * it and offers it back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "hr-window-private.h"

/* Steps of one setting closer than this are one edit. */
#define MERGE_USEC (1 * G_USEC_PER_SEC)
/* Undo keeps this many edits. */
#define MAX_UNDO 200
/* The unsaved state is written this long after the last edit. */
#define RECOVERY_DELAY_MS 1000

#define RECOVERY_KEY "x-headroom-unsaved"

typedef struct {
  HrScenario *scenario;
  GStrv       gpu_ids;
  guint64     serial;
  const char *key;      /* the setting the edit after it changed; NULL: another edit */
  gint64      time;
} HrWindowState;

static void
state_free (gpointer data)
{
  HrWindowState *state = data;

  hr_scenario_free (state->scenario);
  g_strfreev (state->gpu_ids);
  g_free (state);
}

static GStrv
dup_gpu_ids (HrWindow *self)
{
  return hr_window_dup_gpu_ids (self);
}

static HrWindowState *
state_new (HrWindow   *self,
           const char *key)
{
  HrWindowState *state = g_new0 (HrWindowState, 1);

  state->scenario = hr_scenario_copy (self->scenario);
  state->gpu_ids = dup_gpu_ids (self);
  state->serial = self->serial;
  state->key = key;
  state->time = g_get_monotonic_time ();
  return state;
}

static void
update_actions (HrWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo", self->undo_stack->len > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.redo", self->redo_stack->len > 0);
}

void
_hr_window_history_init (HrWindow *self)
{
  self->undo_stack = g_ptr_array_new_with_free_func (state_free);
  self->redo_stack = g_ptr_array_new_with_free_func (state_free);
  update_actions (self);
}

void
_hr_window_history_finalize (HrWindow *self)
{
  g_clear_handle_id (&self->recovery_source, g_source_remove);
  g_clear_pointer (&self->undo_stack, g_ptr_array_unref);
  g_clear_pointer (&self->redo_stack, g_ptr_array_unref);
  if (self->pending_destroy != NULL)
    self->pending_destroy (self->pending_data);
}

/* A scenario was opened or started: a new history, saved as it is. */
void
_hr_window_history_reset (HrWindow *self)
{
  g_ptr_array_set_size (self->undo_stack, 0);
  g_ptr_array_set_size (self->redo_stack, 0);
  self->serial = ++self->next_serial;
  self->saved_serial = self->serial;
  update_actions (self);
}

void
_hr_window_begin_edit (HrWindow   *self,
                       const char *key)
{
  HrWindowState *top = self->undo_stack->len > 0
                         ? g_ptr_array_index (self->undo_stack, self->undo_stack->len - 1)
                         : NULL;
  gint64 now = g_get_monotonic_time ();

  self->edit_start = now;
  g_ptr_array_set_size (self->redo_stack, 0);
  /* Another step of the same setting, straight after the last one and
   * with no save between: the edit goes on (its state before stays the
   * one undo returns to). */
  if (key != NULL && top != NULL && top->key != NULL && g_str_equal (top->key, key)
      && now - top->time < MERGE_USEC && self->serial != self->saved_serial)
    top->time = now;
  else
    {
      g_ptr_array_add (self->undo_stack, state_new (self, key));
      if (self->undo_stack->len > MAX_UNDO)
        g_ptr_array_remove_index (self->undo_stack, 0);
    }
  self->serial = ++self->next_serial;
  update_actions (self);
}

void
_hr_window_edited (HrWindow *self)
{
  _hr_window_refresh (self);
  _hr_window_set_modified (self, self->serial != self->saved_serial);
  _hr_window_count_edit (self);
}

void
_hr_window_mark_saved (HrWindow *self)
{
  self->saved_serial = self->serial;
  _hr_window_set_modified (self, FALSE);
}

static void
restore (HrWindow      *self,
         HrWindowState *state)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();

  hr_scenario_free (self->scenario);
  self->scenario = hr_scenario_copy (state->scenario);
  g_ptr_array_set_size (self->gpu_ids, 0);
  for (guint i = 0; state->gpu_ids[i] != NULL; i++)
    {
      g_ptr_array_add (self->gpu_ids, g_strdup (state->gpu_ids[i]));
      g_ptr_array_add (ids, state->gpu_ids[i]);
    }
  g_ptr_array_add (ids, NULL);
  g_settings_set_strv (self->settings, "compare-gpus", (const char * const *) ids->pdata);
  self->serial = state->serial;
  _hr_window_edited (self);
}

static gboolean
step (HrWindow  *self,
      GPtrArray *from,
      GPtrArray *to)
{
  HrWindowState *state;

  if (from->len == 0)
    return FALSE;
  state = g_ptr_array_steal_index (from, from->len - 1);
  g_ptr_array_add (to, state_new (self, state->key));
  restore (self, state);
  state_free (state);
  update_actions (self);
  return TRUE;
}

gboolean
hr_window_undo (HrWindow *self)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  return step (self, self->undo_stack, self->redo_stack);
}

gboolean
hr_window_redo (HrWindow *self)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  return step (self, self->redo_stack, self->undo_stack);
}

guint
hr_window_get_n_undo (HrWindow *self)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), 0);
  return self->undo_stack->len;
}

gboolean
hr_window_get_modified (HrWindow *self)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  return self->modified;
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
      _hr_window_discard_recovery (self);
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

  if (!self->modified)
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

char *
hr_window_get_recovery_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "headroom", "unsaved-scenario.json",
                           NULL);
}

static char *
recovery_contents (HrWindow *self)
{
  g_autoptr(JsonNode) root = hr_scenario_to_json (self->scenario);
  JsonObject *object = json_node_get_object (root);
  JsonObject *unsaved = json_object_new ();
  JsonArray *gpus = json_array_new ();
  g_autofree char *path = self->file != NULL ? g_file_get_path (self->file) : NULL;

  /* "x-" keys are ignored by every reader of scenarios: the file opens
   * as a scenario anywhere. */
  if (path != NULL)
    json_object_set_string_member (unsaved, "file", path);
  else
    json_object_set_null_member (unsaved, "file");
  for (guint i = 0; i < self->gpu_ids->len; i++)
    json_array_add_string_element (gpus, g_ptr_array_index (self->gpu_ids, i));
  json_object_set_array_member (unsaved, "compare", gpus);
  json_object_set_object_member (object, RECOVERY_KEY, unsaved);
  return hr_json_node_to_string (root, TRUE);
}

typedef struct {
  char *path;
  char *contents;
} RecoveryJob;

static void
recovery_job_free (gpointer data)
{
  RecoveryJob *job = data;

  g_free (job->path);
  g_free (job->contents);
  g_free (job);
}

static gboolean
write_recovery_file (const char  *path,
                     const char  *contents,
                     GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  return hr_file_write_atomic (path, contents, strlen (contents), error);
}

static void
write_in_thread (GTask        *task,
                 gpointer      source,
                 gpointer      data,
                 GCancellable *cancellable)
{
  RecoveryJob *job = data;
  g_autoptr(GError) error = NULL;

  if (!write_recovery_file (job->path, job->contents, &error))
    g_warning ("Could not keep the unsaved scenario: %s", error->message);
  g_task_return_boolean (task, TRUE);
}

gboolean
hr_window_write_recovery (HrWindow  *self,
                          GError   **error)
{
  g_autofree char *path = hr_window_get_recovery_path ();
  g_autofree char *contents = recovery_contents (self);

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  g_clear_handle_id (&self->recovery_source, g_source_remove);
  return write_recovery_file (path, contents, error);
}

static gboolean
recovery_timeout_cb (gpointer user_data)
{
  HrWindow *self = user_data;
  g_autoptr(GTask) task = NULL;
  RecoveryJob *job;

  self->recovery_source = 0;
  if (!self->modified)
    return G_SOURCE_REMOVE;
  job = g_new0 (RecoveryJob, 1);
  job->path = hr_window_get_recovery_path ();
  job->contents = recovery_contents (self);
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, job, recovery_job_free);
  g_task_run_in_thread (task, write_in_thread);
  return G_SOURCE_REMOVE;
}

void
_hr_window_schedule_recovery (HrWindow *self)
{
  /* A screenshot or a test window keeps nothing. */
  if (!self->keeps_recovery)
    return;
  g_clear_handle_id (&self->recovery_source, g_source_remove);
  self->recovery_source = g_timeout_add (RECOVERY_DELAY_MS, recovery_timeout_cb, self);
}

void
_hr_window_discard_recovery (HrWindow *self)
{
  g_autofree char *path = hr_window_get_recovery_path ();

  g_clear_handle_id (&self->recovery_source, g_source_remove);
  if (self->keeps_recovery)
    g_unlink (path);
}

void
hr_window_set_keeps_recovery (HrWindow *self,
                              gboolean  keeps)
{
  g_return_if_fail (HR_IS_WINDOW (self));
  self->keeps_recovery = keeps;
}

gboolean
hr_window_restore_recovery (HrWindow  *self,
                            GError   **error)
{
  g_autofree char *path = hr_window_get_recovery_path ();
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (path, error);
  JsonNode *root;
  JsonObject *unsaved = NULL;
  HrScenario *scenario;
  g_autoptr(GFile) file = NULL;

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  if (doc == NULL)
    return FALSE;
  root = hr_json_doc_get_root (doc);
  if (JSON_NODE_HOLDS_OBJECT (root)
      && json_object_has_member (json_node_get_object (root), RECOVERY_KEY)
      && JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (root),
                                                         RECOVERY_KEY)))
    unsaved = json_object_get_object_member (json_node_get_object (root), RECOVERY_KEY);
  scenario = hr_scenario_new_from_doc (doc, self->catalog, error);
  if (scenario == NULL)
    return FALSE;
  if (unsaved != NULL && json_object_has_member (unsaved, "file")
      && JSON_NODE_HOLDS_VALUE (json_object_get_member (unsaved, "file"))
      && json_node_get_value_type (json_object_get_member (unsaved, "file")) == G_TYPE_STRING)
    file = g_file_new_for_path (json_object_get_string_member (unsaved, "file"));

  _hr_window_set_scenario (self, scenario, file);
  if (unsaved != NULL && json_object_has_member (unsaved, "compare")
      && JSON_NODE_HOLDS_ARRAY (json_object_get_member (unsaved, "compare")))
    {
      JsonArray *gpus = json_object_get_array_member (unsaved, "compare");
      guint n = json_array_get_length (gpus);
      g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < n; i++)
        {
          JsonNode *node = json_array_get_element (gpus, i);

          if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
              && hr_catalog_find_gpu (self->catalog, json_node_get_string (node)) != NULL)
            g_ptr_array_add (ids, g_strdup (json_node_get_string (node)));
        }
      g_ptr_array_set_size (self->gpu_ids, 0);
      for (guint i = 0; i < ids->len; i++)
        g_ptr_array_add (self->gpu_ids, g_strdup (g_ptr_array_index (ids, i)));
    }
  /* What comes back is unsaved work: marked so, and kept again. */
  self->saved_serial = 0;
  _hr_window_edited (self);
  _hr_window_schedule_recovery (self);
  _hr_window_hide_recovery_banner (self);
  return TRUE;
}

gboolean
hr_window_has_recovery (void)
{
  g_autofree char *path = hr_window_get_recovery_path ();

  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}
