/* hr-window-actions.c: the window's actions (win.*)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "hr-advisor-dialog.h"
#include "hr-export-dialog.h"
#include "hr-file-chooser.h"
#include "hr-window-private.h"

static GtkFileFilter *
json_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Headroom scenarios"));
  gtk_file_filter_add_pattern (filter, "*.json");
  gtk_file_filter_add_mime_type (filter, "application/json");
  return filter;
}

static void
open_chosen (GFile    *file,
             gpointer  user_data)
{
  hr_window_open_file (HR_WINDOW (user_data), file);
}

static void
save_chosen (GFile    *file,
             gpointer  user_data)
{
  HrWindow *self = HR_WINDOW (user_data);
  g_autoptr(GError) error = NULL;

  if (!hr_window_save_file (self, file, &error))
    {
      _hr_window_show_error (self, _("Could not save the scenario"), error->message);
      _hr_window_after_save (self, FALSE);
    }
  else
    _hr_window_after_save (self, TRUE);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GtkFileFilter) filter = json_filter ();

  hr_file_chooser_open (GTK_WINDOW (self), _("Open a Scenario"), _("_Open"), filter,
                        open_chosen, g_object_ref (self), g_object_unref);
}

static char *
suggested_name (HrWindow *self)
{
  const char *name = self->scenario->name;
  g_autofree char *base = NULL;

  if (name == NULL || name[0] == '\0')
    name = self->scenario->model->id;
  base = g_strdup (name);
  g_strdelimit (base, "/\\:*?\"<>|", '-');
  return g_strconcat (base, ".json", NULL);
}

static void
save_as_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GtkFileFilter) filter = json_filter ();
  g_autofree char *name = suggested_name (self);

  hr_file_chooser_save (GTK_WINDOW (self), _("Save the Scenario"), _("_Save"), name, filter,
                        save_chosen, g_object_ref (self), g_object_unref);
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (self->file == NULL)
    {
      save_as_action (widget, action_name, parameter);
      return;
    }
  if (!hr_window_save_file (self, self->file, &error))
    _hr_window_show_error (self, _("Could not save the scenario"), error->message);
  else
    hr_toasts_add (self->toast_overlay, adw_toast_new (_("Scenario saved")));
}

static void
new_now (HrWindow *self,
         gpointer  data)
{
  _hr_window_load_default (self);
  g_settings_set_string (self->settings, "last-scenario", "");
}

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  _hr_window_confirm_discard (HR_WINDOW (widget),
                              _("The scenario has changes that are not saved. Starting a new "
                                "one without saving loses them."),
                              new_now, NULL, NULL);
}

static void
undo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  hr_window_undo (HR_WINDOW (widget));
}

static void
redo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  hr_window_redo (HR_WINDOW (widget));
}

/* win.open-file: a path, from the examples, the recent files or the
 * start page. */
static void
open_file_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_path (g_variant_get_string (parameter, NULL));

  hr_window_open_file (HR_WINDOW (widget), file);
}

static void
restore_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (!hr_window_restore_recovery (self, &error))
    _hr_window_show_error (self, _("Could not restore the unsaved scenario"), error->message);
}

static void
discard_recovery_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  /* (whether the window keeps one or not: the user said so) */
  g_unlink (hr_recovery_get_path (self->recovery));
  _hr_window_hide_recovery_banner (self);
}

static void
show_results_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  _hr_window_show_results (HR_WINDOW (widget));
}

static void
on_exported_cb (HrWindow *self,
                GFile    *file)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *message = g_strdup_printf (_("Exported “%s”"), name);

  _hr_window_show_toast_for_file (self, message, file);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  gboolean report = g_strcmp0 (action_name, "win.export-report") == 0;
  HrExportWhat what = report ? HR_EXPORT_WHAT_REPORT : HR_EXPORT_WHAT_BUCKETS;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  HrChartView *curve = hr_results_view_get_chart (self->results_view, HR_CHART_KIND_CURVE);
  HrExportDialog *dialog;

  /* The chart the user was looking at (it has the focus) comes first. */
  if (!report && focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (curve)))
    what = HR_EXPORT_WHAT_CURVE;
  if (!report && focus == GTK_WIDGET (curve))
    what = HR_EXPORT_WHAT_CURVE;
  dialog = hr_export_dialog_new (GTK_WINDOW (self), self->analysis, what);
  g_signal_connect_object (dialog, "exported", G_CALLBACK (on_exported_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
toggle_sidebar_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, !adw_flap_get_reveal_flap (self->flap));
}

static void
search_models_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, TRUE);
  hr_sidebar_popup_model_picker (self->sidebar);
}

static gboolean
save_probe_script (GFile   *file,
                   GError **error)
{
  g_autoptr(GBytes) bytes = g_resources_lookup_data ("/io/github/vramlab/Headroom/probe/"
                                                     "headroom_probe_torch.py", 0, error);
  g_autofree char *path = NULL;

  if (bytes == NULL)
    return FALSE;
  path = g_file_get_path (file);
  /* Through the one writer of every local file (hr-file.h); a portal's
   * or a remote location is GIO's to write, beside and renamed. */
  if (path != NULL)
    return hr_file_write_atomic (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                 error);
  return g_file_replace_contents (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                  NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, error);
}

static void
probe_save_chosen (GFile    *file,
                   gpointer  user_data)
{
  HrWindow *self = HR_WINDOW (user_data);
  g_autoptr(GError) error = NULL;

  if (!save_probe_script (file, &error))
    _hr_window_show_error (self, _("Could not save the script"), error->message);
  else
    _hr_window_show_toast_for_file (self, _("Probe script saved"), file);
}

static void
on_probe_response (AdwMessageDialog *dialog,
                   const char       *response,
                   HrWindow         *self)
{
  if (!g_str_equal (response, "save"))
    return;
  hr_file_chooser_save (GTK_WINDOW (self), _("Save the Probe Script"), _("_Save"),
                        "headroom_probe_torch.py", NULL, probe_save_chosen, g_object_ref (self),
                        g_object_unref);
}

static void
probe_help_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Measure on Your GPU"),
                                   _("Headroom's probe script runs a few real training steps "
                                     "of your model at each micro-batch, records PyTorch's "
                                     "peak allocated and reserved memory and what the device "
                                     "shows, stops cleanly at the first out-of-memory, and "
                                     "writes a CSV that Headroom reads.\n\n"
                                     "Save the script, write a small Python file with build(), "
                                     "make_batch() and optionally loss() for your model, and "
                                     "run:\n\n"
                                     "python3 headroom_probe_torch.py --module my_model.py "
                                     "--batches 1,2,4,8,16 -o run.csv\n\n"
                                     "Then drop run.csv on this window. --demo probes a small "
                                     "built-in transformer; a JAX version is installed beside "
                                     "it."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "close", _("_Close"),
                                    "save", _("_Save Script…"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  g_signal_connect (dialog, "response", G_CALLBACK (on_probe_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
open_uri_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  const char *uri = g_variant_get_string (parameter, NULL);
  g_autoptr(GFile) file = g_file_new_for_uri (uri);
#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileLauncher) launcher = gtk_file_launcher_new (file);

  gtk_file_launcher_launch (launcher, GTK_WINDOW (widget), NULL, NULL, NULL);
#else
  gtk_show_uri (GTK_WINDOW (widget), uri, GDK_CURRENT_TIME);
#endif
}

static void
advise_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  gtk_window_present (GTK_WINDOW (hr_advisor_dialog_new_for_analysis (self, self->analysis)));
}

static void
import_chosen (GFile    *file,
               gpointer  user_data)
{
  hr_window_import_measurement (HR_WINDOW (user_data), file);
}

static void
import_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  hr_file_chooser_open (GTK_WINDOW (self), _("Import Measurements"), _("_Import"), NULL,
                        import_chosen, g_object_ref (self), g_object_unref);
}

static void
keep_measurements_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  hr_window_keep_measurements (HR_WINDOW (widget));
}

void
_hr_window_save_as (HrWindow *self)
{
  save_as_action (GTK_WIDGET (self), "win.save-as", NULL);
}

void
_hr_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, redo_action);
  gtk_widget_class_install_action (widget_class, "win.open-file", "s", open_file_action);
  gtk_widget_class_install_action (widget_class, "win.restore-unsaved", NULL, restore_action);
  gtk_widget_class_install_action (widget_class, "win.discard-unsaved", NULL,
                                   discard_recovery_action);
  gtk_widget_class_install_action (widget_class, "win.show-results", NULL,
                                   show_results_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-report", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-sidebar", NULL,
                                   toggle_sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.search-models", NULL,
                                   search_models_action);
  gtk_widget_class_install_action (widget_class, "win.open-uri", "s", open_uri_activated);
  gtk_widget_class_install_action (widget_class, "win.import-measurements", NULL,
                                   import_action);
  gtk_widget_class_install_action (widget_class, "win.probe-help", NULL, probe_help_action);
  gtk_widget_class_install_action (widget_class, "win.advise", NULL, advise_action);
  gtk_widget_class_install_action (widget_class, "win.keep-measurements", NULL,
                                   keep_measurements_action);
  gtk_widget_class_install_action (widget_class, "win.add-model", NULL,
                                   _hr_window_add_model_action);
  gtk_widget_class_install_action (widget_class, "win.add-gpu", NULL, _hr_window_add_gpu_action);
}
