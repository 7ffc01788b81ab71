/* hr-window.c: the main window
 *
 * The sidebar describes the run (model, GPUs, settings); the main area
 * shows the estimate for every GPU in the comparison.  Every change goes
 * widget → scenario → estimate → charts in the same main-loop turn: an
 * estimate takes microseconds, so nothing is deferred and the next frame
 * always shows the current scenario.
 *
 * This file holds the window's life cycle, its files and the refresh; the
 * other hr-window-*.c files hold one concern each (hr-window-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>
#include <string.h>

#include "hr-screenshot.h"
#include "hr-window-private.h"

#define DEFAULT_SCENARIO_RESOURCE "/io/github/vramlab/Headroom/default-scenario.json"

G_DEFINE_FINAL_TYPE (HrWindow, hr_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_FILE,
  PROP_HISTORY,
  PROP_MEASUREMENTS,
  PROP_RECOVERY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static HrWindowCounters counters;

void
hr_window_counters_get (HrWindowCounters *out)
{
  *out = counters;
}

void
hr_window_counters_reset (void)
{
  memset (&counters, 0, sizeof counters);
}

HrSizeUnit
_hr_window_display_unit (HrWindow *self)
{
  return self->unit;
}

/* Kept, since every figure shown reads it. */
static void
read_display_unit (HrWindow *self)
{
  self->unit = g_settings_get_enum (self->settings, "display-unit") == 1 ? HR_SIZE_GB
                                                                          : HR_SIZE_GIB;
}

/* Where the window's estimates come from: "Estimated", or "Calibrated
 * to FILE" while a calibration is in use. */
static char *
provenance (HrWindow *self)
{
  const HrAnalysisMeasurement *m = hr_analysis_get_calibration_measurement (self->analysis);
  GPtrArray *files = hr_measurements_get_files (self->measurements);

  if (m != NULL && m == hr_analysis_get_snapshot_sweep (self->analysis))
    /* Translators: where a figure comes from; %s lists snapshot files. */
    return g_strdup_printf (_("Calibrated to the snapshots %s"), m->snapshot_files);
  for (guint i = 0; m != NULL && i < files->len; i++)
    {
      HrMeasurementFile *set = g_ptr_array_index (files, i);

      if (set->measurement == m->measurement)
        {
          g_autofree char *name = g_path_get_basename (set->path);

          /* Translators: where a figure comes from; %s is a file name. */
          return g_strdup_printf (_("Calibrated to %s"), name);
        }
    }
  return g_strdup (_("Estimated"));
}

/* The compared GPUs (const HrGpu *), the scenario's own first. */
static GPtrArray *
compared_gpus (HrWindow *self)
{
  GPtrArray *gpus = g_ptr_array_new ();

  for (guint i = 0; i < self->gpu_ids->len; i++)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (self->catalog, g_ptr_array_index (self->gpu_ids, i));

      /* The scenario's own card may be one written inline in the file. */
      if (i == 0 && self->scenario->gpu != NULL)
        gpu = self->scenario->gpu;
      if (gpu != NULL)
        g_ptr_array_add (gpus, (gpointer) gpu);
    }
  return gpus;
}

void
_hr_window_refresh_title (HrWindow *self)
{
  const char *name = self->scenario->name;
  /* the unsaved mark, from the history */
  const char *mark = hr_history_get_modified (self->history) ? "• " : "";
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;

  if (name == NULL || name[0] == '\0')
    name = self->scenario->model->name;
  if (_hr_window_start_page_visible (self))
    {
      adw_window_title_set_title (self->window_title, _("Headroom"));
      adw_window_title_set_subtitle (self->window_title, NULL);
      gtk_window_set_title (GTK_WINDOW (self), _("Headroom"));
      return;
    }
  /* The window's own title (the window list, Alt+Tab) names the document
   * as GNOME Text Editor's does: "• run.json — Headroom" while unsaved. */
  subtitle = self->file != NULL ? g_file_get_basename (self->file) : g_strdup (_("Untitled"));
  /* Translators: the window title; %s%s is "• " while unsaved, then the file */
  title = g_strdup_printf (_("%s%s — Headroom"), mark, subtitle);
  gtk_window_set_title (GTK_WINDOW (self), title);
  g_clear_pointer (&title, g_free);
  g_clear_pointer (&subtitle, g_free);
  title = g_strdup_printf ("%s%s", mark, name);
  if (self->file != NULL)
    subtitle = g_file_get_basename (self->file);
  else
    subtitle = g_strdup (_("Not saved"));
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, subtitle);
}

/* The one analysis everything shows, remade from the scenario, the
 * comparison, the measurements and the switches. */
static void
update_analysis (HrWindow *self)
{
  g_autoptr(GPtrArray) gpus = compared_gpus (self);
  g_autoptr(GPtrArray) references = g_ptr_array_new ();
  g_autoptr(GPtrArray) measurements = g_ptr_array_new ();
  GPtrArray *files = hr_measurements_get_files (self->measurements);
  HrAnalysisOptions options = { 0 };

  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (measurements,
                     ((HrMeasurementFile *) g_ptr_array_index (files, i))->measurement);
  /* With no card ticked the curve still shows where common cards stop. */
  if (gpus->len == 0)
    hr_curve_chart_add_reference_gpus (references, self->catalog);

  options.gpus = gpus;
  options.reference_gpus = references;
  options.measurements = measurements;
  /* Snapshots at two or more micro-batches make one sweep, added after
   * the files. */
  options.sweep_snapshots = TRUE;
  options.use_calibration = hr_measurements_get_use_calibration (self->measurements);
  options.lever_sort = hr_results_view_get_lever_sort (self->results_view);
  options.unit = _hr_window_display_unit (self);
  g_clear_pointer (&self->analysis, hr_analysis_free);
  self->analysis = hr_analysis_new (self->scenario, &options);
}

/* The results view shows the analysis; it reads the unit and where the
 * figures come from with it. */
static void
refresh_results (HrWindow *self)
{
  g_autofree char *text = provenance (self);

  hr_results_view_set_unit (self->results_view, _hr_window_display_unit (self));
  hr_results_view_set_provenance (self->results_view, text);
  hr_results_view_set_analysis (self->results_view, self->analysis);
}

void
_hr_window_refresh (HrWindow *self)
{
  gint64 start = g_get_monotonic_time ();

  update_analysis (self);
  counters.analysis_us += g_get_monotonic_time () - start;
  refresh_results (self);
  hr_measurements_group_set_unit (self->measurements_group, _hr_window_display_unit (self));
  hr_measurements_group_set_analysis (self->measurements_group, self->analysis);
  hr_sidebar_set_analysis (self->sidebar, self->analysis);
  _hr_window_refresh_title (self);
  counters.refreshes++;
  counters.refresh_us += g_get_monotonic_time () - start;
}

void
_hr_window_count_edit (HrWindow *self)
{
  if (self->edit_start == 0)
    return;
  counters.edits++;
  counters.edit_us += g_get_monotonic_time () - self->edit_start;
  self->edit_start = 0;
}

/* ------------------------------------------------------------------ */
/* Files                                                                */

static void
set_file (HrWindow *self,
          GFile    *file)
{
  if (g_set_object (&self->file, file))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

void
_hr_window_set_scenario (HrWindow   *self,
                         HrScenario *scenario,
                         GFile      *file)
{
  g_auto(GStrv) saved = g_settings_get_strv (self->settings, "compare-gpus");

  hr_scenario_free (self->scenario);
  self->scenario = scenario;
  set_file (self, file);

  /* What was measured for the scenario before is not this one's. */
  _hr_window_measurements_set_aside (self);

  /* The scenario's own GPU leads the comparison; the rest stays as the
   * user left it. */
  g_ptr_array_set_size (self->gpu_ids, 0);
  if (scenario->gpu != NULL)
    g_ptr_array_add (self->gpu_ids, g_strdup (scenario->gpu->id));
  for (guint i = 0; saved[i] != NULL; i++)
    if (!_hr_window_gpu_ids_contain (self, saved[i], NULL)
        && hr_catalog_find_gpu (self->catalog, saved[i]) != NULL)
      g_ptr_array_add (self->gpu_ids, g_strdup (saved[i]));
  if (scenario->gpu == NULL)
    _hr_window_settings_update_gpu (self);

  if (file != NULL)
    {
      g_autofree char *path = g_file_get_path (file);

      g_settings_set_string (self->settings, "last-scenario", path != NULL ? path : "");
    }

  /* Opening is not saving: a kept unsaved state stays until it is
   * restored or discarded. */
  hr_history_reset (self->history);
  _hr_window_refresh (self);
  _hr_window_show_results (self);
}

gboolean
hr_window_load_file (HrWindow *self,
                     GFile    *file,
                     GError  **error)
{
  g_autofree char *path = g_file_get_path (file);
  HrScenario *scenario;

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);

  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("%s: only local files can be opened"), uri);
      return FALSE;
    }
  scenario = hr_scenario_load (path, self->catalog, error);
  if (scenario == NULL)
    return FALSE;
  /* An example opens as an untitled copy: Save asks where. */
  _hr_window_set_scenario (self, scenario, hr_start_page_is_example (file) ? NULL : file);
  return TRUE;
}

void
_hr_window_show_error (HrWindow   *self,
                       const char *heading,
                       const char *body)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
open_now (HrWindow *self,
          gpointer  data)
{
  GFile *file = data;
  g_autoptr(GError) error = NULL;

  if (!hr_window_load_file (self, file, &error))
    {
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *heading = g_strdup_printf (_("Could not open “%s”"), name);

      _hr_window_show_error (self, heading, error->message);
    }
  else
    hr_start_page_add_recent (file);
}

void
hr_window_open_file (HrWindow *self,
                     GFile    *file)
{
  g_return_if_fail (HR_IS_WINDOW (self));

  /* Another scenario replaces this one: unsaved changes ask first. */
  _hr_window_confirm_discard (self, _("The scenario has changes that are not saved. Opening "
                                      "another without saving loses them."),
                              open_now, g_object_ref (file), g_object_unref);
}

gboolean
hr_window_save_file (HrWindow *self,
                     GFile    *file,
                     GError  **error)
{
  g_autofree char *path = g_file_get_path (file);

  if (path == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("Only local files can be saved"));
      return FALSE;
    }
  if (!hr_scenario_save (self->scenario, path, error))
    return FALSE;
  set_file (self, file);
  g_settings_set_string (self->settings, "last-scenario", path);
  _hr_window_mark_saved (self);
  hr_start_page_add_recent (file);
  return TRUE;
}

void
_hr_window_load_default (HrWindow *self)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(GError) error = NULL;
  HrScenario *scenario;

  bytes = g_resources_lookup_data (DEFAULT_SCENARIO_RESOURCE, 0, &error);
  if (bytes != NULL)
    doc = hr_json_doc_load_data (_("Default scenario"), g_bytes_get_data (bytes, NULL),
                                 g_bytes_get_size (bytes), &error);
  scenario = doc != NULL ? hr_scenario_new_from_doc (doc, self->catalog, &error) : NULL;
  if (scenario == NULL)
    {
      /* Only a broken build gets here; the first catalog model still
       * gives the user a working window. */
      GPtrArray *models = hr_catalog_get_models (self->catalog);

      g_critical ("The default scenario does not load: %s", error->message);
      scenario = hr_scenario_new_for_model (g_ptr_array_index (models, 0));
    }
  scenario->reserve = g_settings_get_double (self->settings, "default-reserve");
  _hr_window_set_scenario (self, scenario, NULL);
}

void
_hr_window_show_toast_for_file (HrWindow   *self,
                               const char *message,
                               GFile      *file)
{
  AdwToast *toast = adw_toast_new (message);
  g_autofree char *uri = g_file_get_uri (file);

  adw_toast_set_button_label (toast, _("_Open"));
  adw_toast_set_action_name (toast, "win.open-uri");
  adw_toast_set_action_target_value (toast, g_variant_new_string (uri));
  hr_toasts_add (self->toast_overlay, toast);
}

/* ------------------------------------------------------------------ */
/* Screenshots                                                          */

gboolean
hr_window_screenshot (HrWindow   *self,
                      const char *path,
                      GError    **error)
{
  return hr_widget_screenshot (GTK_WIDGET (self), path, error);
}

/* ------------------------------------------------------------------ */
/* Properties                                                           */

static void
hr_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  HrWindow *self = HR_WINDOW (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_HISTORY:
      g_value_set_object (value, self->history);
      break;
    case PROP_MEASUREMENTS:
      g_value_set_object (value, self->measurements);
      break;
    case PROP_RECOVERY:
      g_value_set_object (value, self->recovery);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* ------------------------------------------------------------------ */

void
hr_window_reload_catalog (HrWindow   *self,
                          const char *select_model_id)
{
  const HrModel *model;
  const HrGpu *gpu;

  g_return_if_fail (HR_IS_WINDOW (self));

  /* The user's catalog changed: read it again and rebuild the pickers.
   * The scenario keeps its own copies; its GPU takes the new prices. */
  hr_catalog_reload_default ();
  hr_sidebar_set_catalog (self->sidebar, self->catalog);
  if (self->scenario->gpu != NULL && !self->scenario->gpu_inline
      && (gpu = hr_catalog_find_gpu (self->catalog, self->scenario->gpu->id)) != NULL)
    {
      hr_gpu_free (self->scenario->gpu);
      self->scenario->gpu = hr_gpu_copy (gpu);
    }

  model = select_model_id != NULL ? hr_catalog_find_model (self->catalog, select_model_id)
                                  : NULL;
  if (model != NULL && g_strcmp0 (model->id, self->scenario->model->id) == 0)
    _hr_window_settings_change_model (self, model);   /* the same id, imported again */
  else if (model != NULL)
    hr_window_select_model (self, model->id);
  _hr_window_refresh (self);
}

static void
on_display_unit_changed (HrWindow *self)
{
  read_display_unit (self);
  hr_sidebar_set_unit (self->sidebar, _hr_window_display_unit (self));
  _hr_window_refresh (self);
}

static void
close_now (HrWindow *self,
           gpointer  data)
{
  /* (the changes were saved or discarded) */
  hr_history_reset (self->history);
  gtk_window_close (GTK_WINDOW (self));
}

/* Closing with unsaved changes asks first, as every GNOME editor does. */
static gboolean
hr_window_close_request (GtkWindow *window)
{
  HrWindow *self = HR_WINDOW (window);

  if (!hr_history_get_modified (self->history))
    return GTK_WINDOW_CLASS (hr_window_parent_class)->close_request (window);
  _hr_window_confirm_discard (self, _("The scenario has changes that are not saved. Closing "
                                      "without saving loses them."),
                              close_now, NULL, NULL);
  return TRUE;
}

static void
hr_window_size_allocate (GtkWidget *widget,
                         int        width,
                         int        height,
                         int        baseline)
{
  GTK_WIDGET_CLASS (hr_window_parent_class)->size_allocate (widget, width, height, baseline);
  _hr_window_fold_allocated (HR_WINDOW (widget), width);
}

static void
hr_window_dispose (GObject *object)
{
  HrWindow *self = HR_WINDOW (object);

  if (self->settings != NULL && gtk_widget_get_realized (GTK_WIDGET (self)))
    {
      int width, height;

      gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
      g_settings_set_boolean (self->settings, "window-maximized",
                              gtk_window_is_maximized (GTK_WINDOW (self)));
    }
  g_clear_handle_id (&self->fold_source, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_WINDOW);
  G_OBJECT_CLASS (hr_window_parent_class)->dispose (object);
}

static void
hr_window_finalize (GObject *object)
{
  HrWindow *self = HR_WINDOW (object);

  _hr_window_history_finalize (self);
  g_clear_pointer (&self->scenario, hr_scenario_free);
  g_clear_pointer (&self->gpu_ids, g_ptr_array_unref);
  g_clear_object (&self->measurements);
  g_clear_pointer (&self->analysis, hr_analysis_free);
  g_clear_object (&self->file);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hr_window_parent_class)->finalize (object);
}

static void
hr_window_class_init (HrWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = hr_window_get_property;
  object_class->dispose = hr_window_dispose;
  object_class->finalize = hr_window_finalize;
  widget_class->size_allocate = hr_window_size_allocate;
  GTK_WINDOW_CLASS (klass)->close_request = hr_window_close_request;

  /* The scenario's file (NULL: not saved yet), its undo history (with
   * the modified mark), its measurements and the unsaved state kept on
   * disk. */
  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HISTORY] =
    g_param_spec_object ("history", NULL, NULL, HR_TYPE_HISTORY,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_MEASUREMENTS] =
    g_param_spec_object ("measurements", NULL, NULL, HR_TYPE_MEASUREMENTS,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_RECOVERY] =
    g_param_spec_object ("recovery", NULL, NULL, HR_TYPE_RECOVERY,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (HR_TYPE_CHART_VIEW);
  g_type_ensure (HR_TYPE_MEASUREMENTS_GROUP);
  g_type_ensure (HR_TYPE_RESULTS_VIEW);
  g_type_ensure (HR_TYPE_SIDEBAR);
  g_type_ensure (HR_TYPE_START_PAGE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/hr-window.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, HrWindow, name)
  BIND (flap);
  BIND (examples_menu);
  BIND (main_stack);
  BIND (measurements_group);
  BIND (recent_menu);
  BIND (recovery_label);
  BIND (recovery_revealer);
  BIND (results_view);
  BIND (sidebar);
  BIND (start_page);
  BIND (toast_overlay);
  BIND (window_title);
#undef BIND

  _hr_window_class_actions_init (widget_class);
}

static void
hr_window_init (HrWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->catalog = hr_catalog_get_default ();
  self->settings = g_settings_new (SCHEMA_ID);
  read_display_unit (self);
  self->gpu_ids = g_ptr_array_new_with_free_func (g_free);
  self->measurements = hr_measurements_new ();
  self->cancellable = g_cancellable_new ();

  _hr_window_history_init (self);
  _hr_window_settings_init (self);
  g_signal_connect_object (self->results_view, "notify::lever-sort",
                           G_CALLBACK (_hr_window_refresh), self, G_CONNECT_SWAPPED);
  _hr_window_measurements_init (self);
  _hr_window_dnd_init (self);
  _hr_window_start_init (self);

  g_signal_connect_object (self->settings, "changed::display-unit",
                           G_CALLBACK (on_display_unit_changed), self, G_CONNECT_SWAPPED);

  _hr_window_fold_init (self);
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  _hr_window_load_default (self);
}

HrWindow *
hr_window_new (GtkApplication *application)
{
  return g_object_new (HR_TYPE_WINDOW, "application", application, NULL);
}
