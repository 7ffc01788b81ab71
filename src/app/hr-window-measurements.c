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

void
_hr_window_measurements_update_calibration (HrWindow *self)
{
  /* What the switch would do, from the analysis: it cannot calibrate
   * without a sweep of this setup. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row),
                            hr_analysis_can_calibrate (self->analysis));
  adw_action_row_set_subtitle (self->calibrate_row,
                               hr_analysis_get_calibration_text (self->analysis));
}

static void
on_remove_measurement (GtkButton *button,
                       HrWindow  *self)
{
  HrWindowMeasurement *set = g_object_get_data (G_OBJECT (button), "hr-set");

  g_ptr_array_remove (self->measurements, set);
  _hr_window_refresh (self);
}

void
_hr_window_measurements_refresh (HrWindow *self)
{
  GtkWidget *child = gtk_widget_get_next_sibling (GTK_WIDGET (self->calibrate_row));
  HrPlan *plan = hr_analysis_get_plan (self->analysis);

  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_list_box_remove (self->measure_list, child);
      child = next;
    }

  for (guint i = 0; i < self->measurements->len &&
                    i < hr_analysis_get_n_measurements (self->analysis); i++)
    {
      HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (self->analysis, i);
      const HrMeasureSeries *sweep = hr_measurement_get_sweep (set->measurement);
      g_autofree char *name = g_path_get_basename (set->path);
      g_autofree char *subtitle = g_strdup_printf ("%s\n%s", m->summary, m->match->summary);
      GtkWidget *row = adw_expander_row_new ();
      GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);
      /* Measured on another setup: said where the points are listed, as
       * the curve says it where they are drawn. */
      if (m->match->differs)
        {
          GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");

          gtk_widget_add_css_class (icon, "warning");
          gtk_widget_set_tooltip_text (icon, m->match->summary);
          gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                          _("Measured on another setup"), -1);
          adw_expander_row_add_prefix (ADW_EXPANDER_ROW (row), icon);
        }
      gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (remove, "flat");
      gtk_widget_set_tooltip_text (remove, _("Remove this measurement"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Remove this measurement"), -1);
      g_object_set_data (G_OBJECT (remove), "hr-set", set);
      g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_measurement), self);
      adw_expander_row_add_action (ADW_EXPANDER_ROW (row), remove);

      /* The points, with the fit's residual and the estimate beside each. */
      for (guint s = 0; sweep != NULL && s < set->measurement->series->len; s++)
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
              if (m->fit != NULL && j < m->fit->residuals->len
                  && !isnan (g_array_index (m->fit->residuals, double, j)))
                {
                  double r = g_array_index (m->fit->residuals, double, j);
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
              adw_expander_row_add_row (ADW_EXPANDER_ROW (row),
                                        _hr_window_text_row (title, detail, NULL));
            }
        }
      for (guint n = 0; n < set->measurement->notes->len; n++)
        adw_expander_row_add_row (ADW_EXPANDER_ROW (row),
                                  _hr_window_text_row (g_ptr_array_index (set->measurement->notes,
                                                                          n), NULL, NULL));
      gtk_list_box_append (self->measure_list, row);
    }
}

/* Measurements belong to the scenario they were imported for: another
 * scenario opened sets them aside, says so, and offers them back. */
void
_hr_window_measurements_set_aside (HrWindow *self)
{
  g_autofree char *message = NULL;
  AdwToast *toast;

  g_ptr_array_set_size (self->set_aside, 0);
  if (self->measurements->len == 0)
    return;

  while (self->measurements->len > 0)
    g_ptr_array_add (self->set_aside, g_ptr_array_steal_index (self->measurements, 0));
  message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "%u measurement of the previous scenario was set aside",
                                          "%u measurements of the previous scenario were set aside",
                                          self->set_aside->len),
                             self->set_aside->len);
  toast = adw_toast_new (message);
  adw_toast_set_button_label (toast, _("_Keep Them"));
  adw_toast_set_action_name (toast, "win.keep-measurements");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

void
hr_window_keep_measurements (HrWindow *self)
{
  g_return_if_fail (HR_IS_WINDOW (self));

  while (self->set_aside->len > 0)
    g_ptr_array_add (self->measurements, g_ptr_array_steal_index (self->set_aside, 0));
  _hr_window_refresh (self);
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
  return hr_analysis_get_calibration (self->analysis) != NULL;
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
