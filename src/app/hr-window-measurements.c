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
  const char *text = hr_analysis_get_calibration_text (self->analysis);
  guint snapshots = 0;

  /* A snapshot is one run at one micro-batch: the analysis' "needs two
   * or more micro-batches" is true, and how to get the second is said. */
  for (guint i = 0; i < self->measurements->len; i++)
    {
      HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);

      snapshots += set->measurement->snapshot != NULL;
    }
  if (!hr_analysis_can_calibrate (self->analysis) && self->snapshot_sweep == NULL
      && snapshots > 0 && hr_analysis_get_n_measurements (self->analysis) == snapshots)
    text = _("A snapshot is one run at one micro-batch: import snapshots of this setup at two "
             "or more micro-batches (the probe's --snapshot writes one per micro-batch)");
  gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row),
                            hr_analysis_can_calibrate (self->analysis));
  adw_action_row_set_subtitle (self->calibrate_row, text);
}

static void
on_remove_measurement (GtkButton *button,
                       HrWindow  *self)
{
  HrWindowMeasurement *set = g_object_get_data (G_OBJECT (button), "hr-set");

  g_ptr_array_remove (self->measurements, set);
  _hr_window_refresh (self);
}

/* A measurement row's lines (HrTextRows in its expander), updated in
 * place: the n-th line written this time reuses the row's n-th line. */
typedef struct {
  AdwExpanderRow *row;
  GPtrArray      *lines;   /* the row's lines, which the row owns */
  guint           n;
} Lines;

static void
put_line (Lines      *l,
          const char *title,
          const char *subtitle,
          const char *suffix)
{
  if (l->n < l->lines->len)
    hr_text_row_set_texts (HR_TEXT_ROW (g_ptr_array_index (l->lines, l->n)), title, subtitle,
                           suffix);
  else
    {
      GtkWidget *line = hr_text_row_new (title, subtitle, suffix);

      adw_expander_row_add_row (l->row, line);
      g_ptr_array_add (l->lines, line);
    }
  l->n++;
}

static void
cut_lines (Lines *l)
{
  while (l->lines->len > l->n)
    {
      adw_expander_row_remove (l->row, g_ptr_array_index (l->lines, l->lines->len - 1));
      g_ptr_array_remove_index (l->lines, l->lines->len - 1);
    }
}

/* A snapshot's peak and what was live then, bucket by bucket beside the
 * estimate at the micro-batch it ran (else the scenario's), with the
 * sites that allocated the most: what pytorch.org/memory_viz would show,
 * set against the prediction. */
static void
add_snapshot_rows (HrWindow            *self,
                   Lines               *lines,
                   const HrMeasurement *measurement)
{
  const HrSnapshotDevice *dev = hr_snapshot_get_peak_device (measurement->snapshot);
  guint batch = hr_measurement_get_micro_batch (measurement);
  g_autoptr(HrScenario) at_batch = NULL;
  g_autoptr(HrEstimate) estimate = NULL;
  g_autofree char *allocated = NULL;
  g_autofree char *reserved = NULL;
  g_autofree char *gap = NULL;
  g_autofree char *title = NULL;
  g_autofree char *detail = NULL;
  HrSnapshotBar bar;

  if (dev == NULL)
    return;
  at_batch = hr_scenario_copy (self->scenario);
  if (batch > 0)
    at_batch->micro_batch = batch;
  estimate = hr_estimate_new (at_batch);
  hr_snapshot_device_bar (dev, &bar);

  allocated = _hr_window_format_bytes (self, (double) dev->allocated_peak);
  reserved = _hr_window_format_bytes (self, (double) dev->reserved_at_allocated_peak);
  gap = _hr_window_format_bytes (self, (double) bar.fragmentation);
  /* Translators: a memory snapshot's peak: the GPU, the micro-batch it
   * ran, the time; then what was allocated and reserved. */
  title = g_strdup_printf (batch > 0 ? _("Measured peak on GPU %d at micro-batch %u, "
                                         "t = %.3f s")
                                     : _("Measured peak on GPU %d (the snapshot does not "
                                         "say its micro-batch; compared at %u), t = %.3f s"),
                           dev->device, at_batch->micro_batch, dev->allocated_peak_t);
  {
    g_autofree char *est_alloc = _hr_window_format_bytes (self,
                                                          (double) estimate->allocated_peak);
    g_autofree char *est_reserved = _hr_window_format_bytes (self,
                                                             (double) estimate->reserved_peak);

    detail = g_strdup_printf (_("%s allocated, %s reserved (%s of it holding no tensor) · "
                                "estimate %s allocated, %s reserved"),
                              allocated, reserved, gap, est_alloc, est_reserved);
  }
  put_line (lines, title, detail, allocated);

  for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
    {
      g_autofree char *measured = _hr_window_format_bytes (self, (double) bar.bytes[b]);
      g_autofree char *sub = NULL;

      if (b == HR_SNAPSHOT_UNATTRIBUTED)
        {
          if (bar.bytes[b] == 0)
            continue;
          put_line (lines, _("Unattributed"),
                    _("Measured: frames no rule puts in a bucket, or allocated before "
                      "recording began"),
                    measured);
          continue;
        }
      {
        g_autofree char *predicted = _hr_window_format_bytes (self,
                                                              (double) estimate->buckets[b]);

        if (b == HR_BUCKET_OVERHEAD)
          /* Translators: the overhead measured in a snapshot against the
           * estimate's; the context is outside any snapshot. */
          sub = g_strdup_printf (_("Measured: the reserve holding no tensor and the "
                                   "workspaces (the CUDA context is outside a snapshot) · "
                                   "estimate %s"), predicted);
        else
          /* Translators: a bucket's measured figure (beside the row)
           * and its estimate, "Measured · estimate 1.68 GiB" */
          sub = g_strdup_printf (_("Measured · estimate %s"), predicted);
      }
      put_line (lines, hr_bucket_get_label (b), sub, measured);
    }

  for (guint i = 0; dev->sites != NULL && i < dev->sites->len && i < 3; i++)
    {
      const HrSnapshotSite *site = g_ptr_array_index (dev->sites, i);
      g_autofree char *bytes = _hr_window_format_bytes (self, (double) site->bytes);
      g_autofree char *base = site->filename != NULL ? g_path_get_basename (site->filename)
                                                     : NULL;
      g_autofree char *where = base != NULL
                                 ? g_strdup_printf ("%s:%u %s", base, site->line,
                                                    site->function != NULL ? site->function : "")
                                 : g_strdup (hr_snapshot_group_label (site->group));
      /* Translators: an allocation site: its group, then how many
       * allocations made the figure */
      g_autofree char *sub = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                           "%s · %u allocation live at the peak",
                                                           "%s · %u allocations live at the peak",
                                                           site->count),
                                              hr_snapshot_group_label (site->group),
                                              site->count);

      put_line (lines, where, sub, bytes);
    }

  for (guint i = 0; dev->ooms != NULL && i < dev->ooms->len; i++)
    {
      const HrSnapshotOom *oom = &g_array_index (dev->ooms, HrSnapshotOom, i);
      g_autofree char *asked = _hr_window_format_bytes (self, (double) oom->requested);
      g_autofree char *left = _hr_window_format_bytes (self, (double) oom->device_free);
      g_autofree char *oom_title = g_strdup_printf (_("Out of memory at t = %.3f s"), oom->t);
      g_autofree char *sub = g_strdup_printf (_("Asked for %s with %s free on the card"),
                                              asked, left);

      put_line (lines, oom_title, sub, NULL);
    }
}

/* One measurement's row: its summary, whether it is of this setup, its
 * points beside the estimate (or a snapshot's buckets), its notes; the
 * trash button when it is a file (@set), not the sweep the snapshots
 * make together.  Made when @row is NULL, else updated in place (so an
 * expanded row stays expanded). */
static GtkWidget *
measurement_row (HrWindow                    *self,
                 GtkWidget                   *row,
                 const char                  *title,
                 HrWindowMeasurement         *set,
                 const HrMeasurement         *measurement,
                 const HrAnalysisMeasurement *m)
{
  HrPlan *plan = hr_analysis_get_plan (self->analysis);
  const HrMeasureSeries *sweep = hr_measurement_get_sweep (measurement);
  g_autofree char *subtitle = g_strdup_printf ("%s\n%s", m->summary, m->match->summary);
  GtkWidget *warning;
  Lines lines = { 0 };

  if (row == NULL)
    {
      row = adw_expander_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      /* Measured on another setup: said where the points are listed, as
       * the curve says it where they are drawn. */
      warning = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
      gtk_widget_add_css_class (warning, "warning");
      gtk_accessible_update_property (GTK_ACCESSIBLE (warning), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Measured on another setup"), -1);
      adw_expander_row_add_prefix (ADW_EXPANDER_ROW (row), warning);
      g_object_set_data (G_OBJECT (row), "hr-warning", warning);
      g_object_set_data_full (G_OBJECT (row), "hr-lines", g_ptr_array_new (),
                              (GDestroyNotify) g_ptr_array_unref);
      g_object_set_data (G_OBJECT (row), "hr-set", set);
      if (set != NULL)
        {
          GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");

          gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
          gtk_widget_add_css_class (remove, "flat");
          gtk_widget_set_tooltip_text (remove, _("Remove this measurement"));
          gtk_accessible_update_property (GTK_ACCESSIBLE (remove),
                                          GTK_ACCESSIBLE_PROPERTY_LABEL,
                                          _("Remove this measurement"), -1);
          g_object_set_data (G_OBJECT (remove), "hr-set", set);
          g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_measurement), self);
          adw_expander_row_add_action (ADW_EXPANDER_ROW (row), remove);
        }
    }
  if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), title) != 0)
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (g_strcmp0 (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), subtitle) != 0)
    adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);
  warning = g_object_get_data (G_OBJECT (row), "hr-warning");
  gtk_widget_set_visible (warning, m->match->differs);
  hr_widget_set_tooltip (warning, m->match->differs ? m->match->summary : NULL);

  lines.row = ADW_EXPANDER_ROW (row);
  lines.lines = g_object_get_data (G_OBJECT (row), "hr-lines");
  if (measurement->snapshot != NULL)
    add_snapshot_rows (self, &lines, measurement);

  /* The points, with the fit's residual and the estimate beside each. */
  for (guint s = 0; sweep != NULL && s < measurement->series->len; s++)
    {
      const HrMeasureSeries *series = g_ptr_array_index (measurement->series, s);

      if (series != sweep)
        continue;
      for (guint j = 0; j < series->points->len; j++)
        {
          const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, j);
          g_autofree char *measured = _hr_window_format_bytes (self, p->bytes);
          g_autofree char *point_title = NULL;
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
          point_title = g_strdup_printf (_("Micro-batch %.0f: %s measured"), p->batch, measured);
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
          put_line (&lines, point_title, detail, NULL);
        }
    }
  for (guint n = 0; n < measurement->notes->len; n++)
    put_line (&lines, g_ptr_array_index (measurement->notes, n), NULL, NULL);
  cut_lines (&lines);
  return row;
}

/* The measurement rows from @child to the end. */
static void
remove_rows_from (HrWindow  *self,
                  GtkWidget *child)
{
  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_list_box_remove (self->measure_list, child);
      child = next;
    }
}

/* The row for @set (NULL: the snapshots' sweep) at @child, updated, or
 * made in its place when @child is another measurement's; returns the
 * row after it. */
static GtkWidget *
refresh_row (HrWindow                    *self,
             GtkWidget                   *child,
             const char                  *title,
             HrWindowMeasurement         *set,
             const HrMeasurement         *measurement,
             const HrAnalysisMeasurement *m)
{
  GtkWidget *row;

  if (child != NULL && g_object_get_data (G_OBJECT (child), "hr-set") == set)
    {
      measurement_row (self, child, title, set, measurement, m);
      return gtk_widget_get_next_sibling (child);
    }
  /* another measurement's, or none: the rows from here are made again */
  remove_rows_from (self, child);
  row = measurement_row (self, NULL, title, set, measurement, m);
  gtk_list_box_append (self->measure_list, row);
  return NULL;
}

void
_hr_window_measurements_refresh (HrWindow *self)
{
  GtkWidget *child = gtk_widget_get_next_sibling (GTK_WIDGET (self->calibrate_row));
  guint n = hr_analysis_get_n_measurements (self->analysis);

  for (guint i = 0; i < self->measurements->len && i < n; i++)
    {
      HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);
      g_autofree char *name = g_path_get_basename (set->path);

      child = refresh_row (self, child, name, set, set->measurement,
                           hr_analysis_get_measurement (self->analysis, i));
    }
  /* The snapshots taken together, after the files (update_analysis adds
   * their sweep last). */
  if (self->snapshot_sweep != NULL && n == self->measurements->len + 1)
    {
      /* Translators: %s lists the snapshot files */
      g_autofree char *title = g_strdup_printf (_("Snapshots %s, as one sweep"),
                                                self->snapshot_sweep_files);

      child = refresh_row (self, child, title, NULL, self->snapshot_sweep,
                           hr_analysis_get_measurement (self->analysis, n - 1));
    }
  remove_rows_from (self, child);
}

/* What the snapshots' sweep copies from them: the keys that say what was
 * measured, when every snapshot that says one says the same. */
static const char *const sweep_keys[] = { "model", "framework", "precision", "gpu", "optimizer" };

HrMeasurement *
_hr_window_measurements_update_snapshot_sweep (HrWindow *self)
{
  HrMeasurement *old = g_steal_pointer (&self->snapshot_sweep);
  g_autoptr(GPtrArray) snapshots = g_ptr_array_new ();
  g_autoptr(GString) files = g_string_new (NULL);
  g_autoptr(GString) batches = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  HrMeasurement *sweep;
  guint first_batch = 0;
  gboolean several = FALSE;

  g_clear_pointer (&self->snapshot_sweep_files, g_free);

  /* Snapshots that say their micro-batch and are of this setup as far as
   * they say (another card is fine: a calibration carries to every card). */
  for (guint i = 0; i < self->measurements->len; i++)
    {
      HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);
      const HrMeasurement *m = set->measurement;
      guint batch = hr_measurement_get_micro_batch (m);
      g_autoptr(HrMeasureMatch) match = NULL;
      g_autofree char *base = NULL;

      if (m->snapshot == NULL || batch == 0 || hr_snapshot_get_peak_device (m->snapshot) == NULL)
        continue;
      match = hr_measure_match_new (m, self->scenario);
      if (!match->can_calibrate)
        continue;
      g_ptr_array_add (snapshots, (gpointer) m);
      base = g_path_get_basename (set->path);
      g_string_append_printf (files, "%s%s", files->len > 0 ? ", " : "", base);
      g_string_append_printf (batches, "%s%u", batches->len > 0 ? ", " : "", batch);
      if (first_batch == 0)
        first_batch = batch;
      else if (batch != first_batch)
        several = TRUE;
    }
  if (!several)
    return old;

  sweep = hr_measurement_new_snapshot_sweep (snapshots, &error);
  if (sweep == NULL)
    {
      g_warning ("%s", error->message);
      return old;
    }
  for (guint k = 0; k < G_N_ELEMENTS (sweep_keys); k++)
    {
      const char *value = NULL;
      gboolean agree = TRUE;

      for (guint i = 0; i < snapshots->len; i++)
        {
          const char *v = hr_measurement_get_config (g_ptr_array_index (snapshots, i),
                                                     sweep_keys[k]);

          if (v == NULL)
            continue;
          if (value != NULL && g_strcmp0 (value, v) != 0)
            agree = FALSE;
          value = v;
        }
      if (value != NULL && agree)
        {
          g_ptr_array_add (sweep->config_keys, g_strdup (sweep_keys[k]));
          g_ptr_array_add (sweep->config_values, g_strdup (value));
        }
    }
  g_free (sweep->name);
  /* Translators: the name of the sweep snapshots make together, in the
   * curve's legend; %s lists their micro-batches, "8, 16" */
  sweep->name = g_strdup_printf (_("snapshots at micro-batch %s"), batches->str);
  self->snapshot_sweep = sweep;
  self->snapshot_sweep_files = g_string_free (g_steal_pointer (&files), FALSE);
  return old;
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
