/* hr-window-measurements.c: imported measurements and the calibration
 * made from them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>
#include <math.h>

#include "hr-window-private.h"

void
_hr_window_measurement_free (gpointer data)
{
  HrWindowMeasurement *set = data;

  hr_measurement_free (set->measurement);
  g_free (set->path);
  g_free (set);
}

/* The first imported sweep: what a calibration is made from. */
static const HrMeasureSeries *
first_sweep (HrWindow *self)
{
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);
      const HrMeasureSeries *sweep = hr_measurement_get_sweep (set->measurement);

      if (sweep != NULL)
        return sweep;
    }
  return NULL;
}

void
_hr_window_measurements_update_calibration (HrWindow *self)
{
  const HrMeasureSeries *sweep = first_sweep (self);
  g_autoptr(HrPlan) plan = NULL;
  g_autoptr(HrCalibration) calibration = NULL;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->calibration, hr_calibration_free);
  if (sweep == NULL)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row), FALSE);
      adw_action_row_set_subtitle (self->calibrate_row,
                                   _("Needs a measurement at two or more micro-batches"));
      return;
    }

  plan = hr_plan_new (self->scenario);
  calibration = hr_calibration_new (plan, sweep, &error);
  if (calibration == NULL)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row), FALSE);
      adw_action_row_set_subtitle (self->calibrate_row, error->message);
      return;
    }

  gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row), TRUE);
  {
    g_autofree char *shift = _hr_window_format_bytes (self, fabs (calibration->overhead_shift));
    g_autofree char *band = _hr_window_format_bytes (self, calibration->band_bytes);
    g_autofree char *subtitle = NULL;

    /* TRANSLATORS: "Activations ×1.12, overhead +0.40 GiB, then ±0.31 GiB:
     * applies to every GPU" */
    subtitle = g_strdup_printf (_("Activations ×%.2f, overhead %s%s, then ±%s: applies to "
                                  "every GPU compared"),
                                calibration->activation_scale,
                                calibration->overhead_shift < 0 ? "−" : "+", shift, band);
    adw_action_row_set_subtitle (self->calibrate_row, subtitle);
  }
  if (gtk_switch_get_active (self->calibrate_switch))
    self->calibration = g_steal_pointer (&calibration);
}

static void
on_remove_measurement (GtkButton *button,
                       HrWindow  *self)
{
  HrWindowMeasurement *set = g_object_get_data (G_OBJECT (button), "hr-set");

  g_ptr_array_remove (self->measurements, set);
  _hr_window_refresh (self);
}

static char *
measure_set_summary (HrWindow   *self,
                     HrWindowMeasurement *set,
                     HrFit     **fit_out)
{
  const HrMeasureSeries *sweep = hr_measurement_get_sweep (set->measurement);
  g_autoptr(HrFit) fit = NULL;
  g_autoptr(HrPlan) plan = NULL;
  g_autoptr(HrCalibration) calibration = NULL;
  GString *text = g_string_new (NULL);

  if (sweep == NULL)
    {
      /* A log over time: its peak. */
      for (guint i = 0; i < set->measurement->series->len; i++)
        {
          const HrMeasureSeries *series = g_ptr_array_index (set->measurement->series, i);
          g_autofree char *peak = _hr_window_format_bytes (self, series->peak);

          if (i > 0)
            g_string_append (text, " · ");
          g_string_append_printf (text, _("%s: peak %s"), series->name, peak);
        }
      return g_string_free (text, FALSE);
    }

  fit = hr_fit_series (sweep, NULL);
  if (fit != NULL)
    {
      g_autofree char *floor_text = _hr_window_format_bytes (self, fit->floor);
      g_autofree char *slope = _hr_window_format_bytes (self, fit->per_sample);

      g_string_append_printf (text, _("Fit %s + %s per sample, R² %.3f"), floor_text, slope,
                              fit->r2);
    }
  plan = hr_plan_new (self->scenario);
  calibration = hr_calibration_new (plan, sweep, NULL);
  if (calibration != NULL)
    g_string_append_printf (text, _(" · the estimate was off by %.0f%% on average, %.0f%% at "
                                    "most"),
                            100 * calibration->mean_relative_error,
                            100 * calibration->max_relative_error);
  if (sweep->oom_batch > 0)
    g_string_append_printf (text, _(" · out of memory at micro-batch %u"), sweep->oom_batch);
  if (fit_out != NULL)
    *fit_out = g_steal_pointer (&fit);
  return g_string_free (text, FALSE);
}

void
_hr_window_measurements_refresh (HrWindow *self)
{
  GtkWidget *child = gtk_widget_get_next_sibling (GTK_WIDGET (self->calibrate_row));

  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_list_box_remove (self->measure_list, child);
      child = next;
    }

  for (guint i = 0; i < self->measurements->len; i++)
    {
      HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);
      const HrMeasureSeries *sweep = hr_measurement_get_sweep (set->measurement);
      g_autoptr(HrFit) fit = NULL;
      g_autofree char *summary = measure_set_summary (self, set, &fit);
      g_autofree char *name = g_path_get_basename (set->path);
      g_autoptr(HrPlan) plan = hr_plan_new (self->scenario);
      GtkWidget *row = adw_expander_row_new ();
      GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), summary);
      gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (remove, "flat");
      gtk_widget_set_tooltip_text (remove, _("Remove this measurement"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Remove this measurement"), -1);
      g_object_set_data (G_OBJECT (remove), "hr-set", set);
      g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_measurement), self);
      adw_expander_row_add_action (ADW_EXPANDER_ROW (row), remove);

      /* The points, with the fit's residual and the estimate beside each. */
      for (guint s = 0; s < set->measurement->series->len; s++)
        {
          const HrMeasureSeries *series = g_ptr_array_index (set->measurement->series, s);

          if (series != sweep)
            continue;
          for (guint j = 0; j < series->points->len; j++)
            {
              const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, j);
              g_autofree char *measured = _hr_window_format_bytes (self, p->bytes);
              g_autofree char *title = NULL;
              g_autofree char *detail = NULL;
              GString *sub = g_string_new (NULL);
              HrPeak peak;
              double predicted;

              if (isnan (p->batch) || p->batch < 1)
                continue;
              hr_plan_peak (plan, (guint) p->batch, &peak);
              predicted = series->metric == HR_METRIC_ALLOCATED ? peak.allocated
                          : series->metric == HR_METRIC_RESERVED ? peak.reserved
                          : peak.device_used;
              title = g_strdup_printf (_("Micro-batch %.0f: %s measured"), p->batch, measured);
              if (fit != NULL && j < fit->residuals->len
                  && !isnan (g_array_index (fit->residuals, double, j)))
                {
                  double r = g_array_index (fit->residuals, double, j);
                  g_autofree char *res = _hr_window_format_bytes (self, fabs (r));

                  g_string_append_printf (sub, _("fit residual %s%s"), r < 0 ? "−" : "+", res);
                }
              {
                g_autofree char *est = _hr_window_format_bytes (self, predicted);

                g_string_append_printf (sub, _("%sestimate %s (%+.0f%%)"),
                                        sub->len > 0 ? " · " : "", est,
                                        100.0 * (predicted - p->bytes) / p->bytes);
              }
              detail = g_string_free (sub, FALSE);
              adw_expander_row_add_row (ADW_EXPANDER_ROW (row), _hr_window_text_row (title, detail, NULL));
            }
        }
      for (guint n = 0; n < set->measurement->notes->len; n++)
        adw_expander_row_add_row (ADW_EXPANDER_ROW (row),
                                  _hr_window_text_row (g_ptr_array_index (set->measurement->notes, n), NULL,
                                            NULL));
      gtk_list_box_append (self->measure_list, row);
    }
}

static void
add_measurement (HrWindow      *self,
                 HrMeasurement *measurement,
                 const char    *path,
                 gboolean       toast)
{
  HrWindowMeasurement *set = g_new0 (HrWindowMeasurement, 1);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *message = g_strdup_printf (_("Imported “%s”"), name);

  set->measurement = measurement;
  set->path = g_strdup (path);
  g_ptr_array_add (self->measurements, set);
  _hr_window_refresh (self);
  if (toast)
    adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

gboolean
hr_window_add_measurement_file (HrWindow *self,
                                GFile    *file,
                                GError  **error)
{
  g_autofree char *path = g_file_get_path (file);
  HrMeasureOptions options = { 0 };
  HrMeasurement *measurement;

  if (path == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("Only local files can be imported"));
      return FALSE;
    }
  measurement = hr_measurement_load_file (path, &options, error);
  if (measurement == NULL)
    return FALSE;
  add_measurement (self, measurement, path, FALSE);
  return TRUE;
}

guint
hr_window_get_n_measurements (HrWindow *self)
{
  return self->measurements->len;
}

void
hr_window_remove_measurement (HrWindow *self,
                              guint     index)
{
  g_return_if_fail (index < self->measurements->len);
  g_ptr_array_remove_index (self->measurements, index);
  _hr_window_refresh (self);
}

void
hr_window_set_use_calibration (HrWindow *self,
                               gboolean  use)
{
  gtk_switch_set_active (self->calibrate_switch, use);
}

gboolean
hr_window_get_calibrated (HrWindow *self)
{
  return self->calibration != NULL;
}

typedef struct {
  HrWindow *self;
  char     *path;
} ImportJob;

static void
import_finished (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ImportJob *job = user_data;
  g_autoptr(GError) error = NULL;
  HrMeasurement *measurement = hr_measurement_load_file_finish (result, &error);

  if (measurement != NULL)
    add_measurement (job->self, measurement, job->path, TRUE);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *name = g_path_get_basename (job->path);
      g_autofree char *heading = g_strdup_printf (_("Could not import “%s”"), name);

      _hr_window_show_error (job->self, heading, error->message);
    }
  g_object_unref (job->self);
  g_free (job->path);
  g_free (job);
}

/* In a worker thread: a log of millions of rows never blocks the window. */
void
_hr_window_import_measurement (HrWindow *self,
                               GFile    *file)
{
  g_autofree char *path = g_file_get_path (file);
  HrMeasureOptions options = { 0 };
  ImportJob *job;

  if (path == NULL)
    {
      _hr_window_show_error (self, _("Could not import"), _("Only local files can be imported"));
      return;
    }
  job = g_new0 (ImportJob, 1);
  job->self = g_object_ref (self);
  job->path = g_strdup (path);
  hr_measurement_load_file_async (path, &options, self->cancellable, import_finished, job);
}

void
hr_window_import_measurement (HrWindow *self,
                              GFile    *file)
{
  _hr_window_import_measurement (self, file);
}

static void
on_calibrate_changed (GtkSwitch  *sw,
                      GParamSpec *pspec,
                      HrWindow   *self)
{
  _hr_window_refresh (self);
}

void
_hr_window_measurements_init (HrWindow *self)
{
  g_signal_connect (self->calibrate_switch, "notify::active",
                    G_CALLBACK (on_calibrate_changed), self);
}
