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

#include "hr-window-private.h"

#define DEFAULT_SCENARIO_RESOURCE "/io/github/vramlab/Headroom/default-scenario.json"

G_DEFINE_FINAL_TYPE (HrWindow, hr_window, ADW_TYPE_APPLICATION_WINDOW)

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

HrUnit
_hr_window_display_unit (HrWindow *self)
{
  return self->unit;
}

/* Kept, since every figure shown reads it. */
static void
read_display_unit (HrWindow *self)
{
  self->unit = g_settings_get_enum (self->settings, "display-unit") == 1 ? HR_UNIT_GB
                                                                          : HR_UNIT_GIB;
}

char *
_hr_window_format_bytes (HrWindow *self,
                         double    bytes)
{
  return hr_format_bytes (bytes, _hr_window_display_unit (self));
}

char *
_hr_window_provenance (HrWindow *self)
{
  const HrAnalysisMeasurement *m = hr_analysis_get_calibration_measurement (self->analysis);

  if (m != NULL && m == hr_analysis_get_snapshot_sweep (self->analysis))
    /* Translators: where a figure comes from; %s lists snapshot files. */
    return g_strdup_printf (_("Calibrated to the snapshots %s"), m->snapshot_files);
  for (guint i = 0; m != NULL && i < self->measurements->len; i++)
    {
      HrMeasurementFile *set = g_ptr_array_index (self->measurements, i);

      if (set->measurement == m->measurement)
        {
          g_autofree char *name = g_path_get_basename (set->path);

          /* Translators: where a figure comes from; %s is a file name. */
          return g_strdup_printf (_("Calibrated to %s"), name);
        }
    }
  return g_strdup (_("Estimated"));
}

GPtrArray *
_hr_window_compared_gpus (HrWindow *self)
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
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;

  if (name == NULL || name[0] == '\0')
    name = self->scenario->model->name;
  if (hr_window_get_start_page_visible (self))
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
  title = g_strdup_printf (_("%s%s — Headroom"), self->modified ? "• " : "", subtitle);
  gtk_window_set_title (GTK_WINDOW (self), title);
  g_clear_pointer (&title, g_free);
  g_clear_pointer (&subtitle, g_free);
  title = g_strdup_printf ("%s%s", self->modified ? "• " : "", name);
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
  g_autoptr(GPtrArray) gpus = _hr_window_compared_gpus (self);
  g_autoptr(GPtrArray) references = g_ptr_array_new ();
  g_autoptr(GPtrArray) measurements = g_ptr_array_new ();
  HrAnalysisOptions options = { 0 };

  for (guint i = 0; i < self->measurements->len; i++)
    g_ptr_array_add (measurements,
                     ((HrMeasurementFile *) g_ptr_array_index (self->measurements,
                                                               i))->measurement);
  /* With no card ticked the curve still shows where common cards stop. */
  if (gpus->len == 0)
    hr_curve_chart_add_reference_gpus (references, self->catalog);

  options.gpus = gpus;
  options.reference_gpus = references;
  options.measurements = measurements;
  /* Snapshots at two or more micro-batches make one sweep, added after
   * the files. */
  options.sweep_snapshots = TRUE;
  options.use_calibration = hr_measurements_group_get_use_calibration (self->measurements_group);
  options.lever_sort = hr_results_view_get_lever_sort (self->results_view);
  options.unit = _hr_window_display_unit (self) == HR_UNIT_GB ? HR_SIZE_GB : HR_SIZE_GIB;
  g_clear_pointer (&self->analysis, hr_analysis_free);
  self->analysis = hr_analysis_new (self->scenario, &options);
}

/* The results view shows the analysis; it reads the unit and where the
 * figures come from with it. */
static void
refresh_results (HrWindow *self)
{
  g_autofree char *provenance = _hr_window_provenance (self);

  hr_results_view_set_unit (self->results_view, _hr_window_display_unit (self));
  hr_results_view_set_provenance (self->results_view, provenance);
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

void
_hr_window_set_modified (HrWindow *self,
                         gboolean  modified)
{
  self->modified = modified;
  _hr_window_refresh_title (self);
  if (!modified)
    _hr_window_discard_recovery (self);
  else
    _hr_window_schedule_recovery (self);
}

/* ------------------------------------------------------------------ */
/* Files                                                                */

void
_hr_window_set_scenario (HrWindow   *self,
                         HrScenario *scenario,
                         GFile      *file)
{
  g_auto(GStrv) saved = g_settings_get_strv (self->settings, "compare-gpus");

  hr_scenario_free (self->scenario);
  self->scenario = scenario;
  g_set_object (&self->file, file);

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

  _hr_window_history_reset (self);
  _hr_window_refresh (self);
  /* Opening is not saving: a kept unsaved state stays until it is
   * restored or discarded. */
  self->modified = FALSE;
  _hr_window_refresh_title (self);
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
  g_set_object (&self->file, file);
  g_settings_set_string (self->settings, "last-scenario", path);
  _hr_window_mark_saved (self);
  hr_start_page_add_recent (file);
  return TRUE;
}

void
hr_window_load_default (HrWindow *self)
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

/* ------------------------------------------------------------------ */
/* Export                                                               */

gboolean
hr_window_export_chart (HrWindow       *self,
                        const char     *chart,
                        const char     *path,
                        HrExportFormat  format,
                        double          width,
                        double          height,
                        double          scale,
                        HrChartTheme    theme,
                        gboolean        transparent,
                        GError        **error)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (theme);
  const HrChartType *type = hr_chart_type_find (chart);
  HrChartView *views[] = {
    hr_results_view_get_chart (self->results_view, HR_CHART_KIND_BUCKETS),
    hr_results_view_get_chart (self->results_view, HR_CHART_KIND_CURVE),
  };
  HrExportOptions options = { 0 };
  HrChartSource source = { self->analysis, self->catalog, NULL, NULL };
  HrChartDrawing drawing = { type, NULL };
  gpointer made = NULL;
  g_autofree char *description = NULL;
  gboolean ok;

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (type != NULL, FALSE);

  style->transparent = transparent;
  /* What a view shows is what is exported; any other chart of the
   * registry is made from the same analysis. */
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (hr_chart_view_get_chart_type (views[i]) == type)
      drawing.data = hr_chart_view_get_data (views[i]);
  if (drawing.data == NULL)
    drawing.data = made = type->data_new (&source);
  description = type->summary (drawing.data);

  options.format = format;
  options.width = width;
  options.height = height;
  options.scale = scale;
  options.title = type->data_title (drawing.data);
  options.description = description;
  ok = hr_chart_export (path, &options, style, hr_chart_drawing_draw, &drawing, error);
  if (made != NULL)
    type->data_free (made);
  return ok;
}

gboolean
hr_window_export (HrWindow      *self,
                  HrExportWhat   what,
                  const char    *path,
                  HrExportFormat format,
                  double         width,
                  double         height,
                  double         scale,
                  HrChartTheme   theme,
                  gboolean       transparent,
                  GError       **error)
{
  if (what == HR_EXPORT_WHAT_REPORT)
    {
      g_autoptr(HrChartStyle) style = hr_chart_style_new (theme);

      style->transparent = transparent;
      /* The report of what the window shows: its cards, its measurements,
       * its calibration. */
      return hr_chart_report_write_analysis (path, self->analysis, self->catalog, style, error);
    }
  return hr_window_export_chart (self, what == HR_EXPORT_WHAT_CURVE ? "curve" : "buckets", path,
                                 format, width, height, scale, theme, transparent, error);
}

void
hr_window_show_toast_for_file (HrWindow   *self,
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
/* Accessors for tests and the application                              */

HrAnalysis *
hr_window_get_analysis (HrWindow *self)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), NULL);
  return self->analysis;
}

guint
hr_window_get_n_set_aside (HrWindow *self)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), 0);
  return self->set_aside->len;
}

GFile *
hr_window_get_file (HrWindow *self)
{
  return self->file;
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
  self->modified = FALSE;
  gtk_window_close (GTK_WINDOW (self));
}

/* Closing with unsaved changes asks first, as every GNOME editor does. */
static gboolean
hr_window_close_request (GtkWindow *window)
{
  HrWindow *self = HR_WINDOW (window);

  if (!self->modified)
    return GTK_WINDOW_CLASS (hr_window_parent_class)->close_request (window);
  _hr_window_confirm_discard (self, _("The scenario has changes that are not saved. Closing "
                                      "without saving loses them."),
                              close_now, NULL, NULL);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The adaptive layout                                                  */

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

static void
hr_window_size_allocate (GtkWidget *widget,
                         int        width,
                         int        height,
                         int        baseline)
{
  HrWindow *self = HR_WINDOW (widget);
  gboolean fold = width < FOLD_BELOW_PX;
  gboolean folded = adw_flap_get_fold_policy (self->flap) == ADW_FLAP_FOLD_POLICY_ALWAYS;

  GTK_WIDGET_CLASS (hr_window_parent_class)->size_allocate (widget, width, height, baseline);
  /* Changed after this allocation, not inside it. */
  if (fold != folded && self->fold_source == 0)
    self->fold_source = g_idle_add_full (G_PRIORITY_HIGH_IDLE, update_fold_cb, self, NULL);
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
  g_clear_pointer (&self->measurements, g_ptr_array_unref);
  g_clear_pointer (&self->analysis, hr_analysis_free);
  g_clear_pointer (&self->set_aside, g_ptr_array_unref);
  g_clear_object (&self->file);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hr_window_parent_class)->finalize (object);
}

static void
hr_window_class_init (HrWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_window_dispose;
  object_class->finalize = hr_window_finalize;
  widget_class->size_allocate = hr_window_size_allocate;
  GTK_WINDOW_CLASS (klass)->close_request = hr_window_close_request;

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
  self->measurements = g_ptr_array_new_with_free_func (
    (GDestroyNotify) hr_measurement_file_free);
  self->set_aside = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_measurement_file_free);
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

  g_signal_connect (self, "notify::default-width", G_CALLBACK (on_default_width_cb), NULL);
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  hr_window_load_default (self);
}

HrWindow *
hr_window_new (GtkApplication *application)
{
  return g_object_new (HR_TYPE_WINDOW, "application", application, NULL);
}
