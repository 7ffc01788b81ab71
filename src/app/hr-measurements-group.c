/* hr-measurements-group.c: imported measurements and the calibration
 * made from them
 *
 * A row per measurement file and one for the sweep its snapshots make
 * together, each read from the analysis the window hands down: its
 * summary, whether it is of this setup, its points beside the estimate
 * (a snapshot's buckets beside the estimate at the micro-batch it ran),
 * its notes.  Rows are updated in place, so an expanded one stays open.
 * The files and the switch's effect are the window's: the group says
 * what the user asked ("remove-file", "use-calibration").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-measurements-group"

#include <glib/gi18n.h>
#include <math.h>

#include "hr-measurements-group.h"
#include "hr-text-row.h"

struct _HrMeasurementsGroup
{
  AdwBin                parent_instance;

  HrAnalysis           *analysis;
  GPtrArray            *files;         /* HrMeasurementFile, borrowed */
  HrSizeUnit            unit;

  /* Template objects, in alphabetical order */
  AdwActionRow         *calibrate_row;
  GtkSwitch            *calibrate_switch;
  GtkListBox           *measure_list;
};

enum {
  PROP_0,
  PROP_ANALYSIS,
  PROP_USE_CALIBRATION,
  N_PROPS
};

enum {
  REMOVE_FILE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HrMeasurementsGroup, hr_measurements_group, ADW_TYPE_BIN)

static char *
format_bytes (HrMeasurementsGroup *self,
              double               bytes)
{
  return hr_size_format (bytes, self->unit);
}

static void
update_calibration (HrMeasurementsGroup *self)
{
  /* What the switch would do, from the analysis: it cannot calibrate
   * without a sweep of this setup. */
  const char *text = hr_analysis_get_calibration_text (self->analysis);
  guint snapshots = 0;

  /* A snapshot is one run at one micro-batch: the analysis' "needs two
   * or more micro-batches" is true, and how to get the second is said. */
  for (guint i = 0; self->files != NULL && i < self->files->len; i++)
    {
      HrMeasurementFile *set = g_ptr_array_index (self->files, i);

      snapshots += set->measurement->snapshot != NULL;
    }
  if (!hr_analysis_can_calibrate (self->analysis)
      && hr_analysis_get_snapshot_sweep (self->analysis) == NULL
      && snapshots > 0 && hr_analysis_get_n_measurements (self->analysis) == snapshots)
    text = _("A snapshot is one run at one micro-batch: import snapshots of this setup at two "
             "or more micro-batches (the probe's --snapshot writes one per micro-batch)");
  gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row),
                            hr_analysis_can_calibrate (self->analysis));
  adw_action_row_set_subtitle (self->calibrate_row, text);
}

static void
on_remove_clicked_cb (GtkButton           *button,
                      HrMeasurementsGroup *self)
{
  HrMeasurementFile *file = g_object_get_data (G_OBJECT (button), "hr-set");

  g_signal_emit (self, signals[REMOVE_FILE], 0, file);
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
add_snapshot_rows (HrMeasurementsGroup *self,
                   Lines               *lines,
                   const HrMeasurement *measurement,
                   const HrAnalysisMeasurement *m)
{
  const HrSnapshotDevice *dev = hr_snapshot_get_peak_device (measurement->snapshot);
  guint batch = hr_measurement_get_micro_batch (measurement);
  /* the analysis' estimate at the micro-batch it ran (else the
   * scenario's), on the scenario's card */
  const HrEstimate *estimate = m->at_micro_batch;
  g_autofree char *allocated = NULL;
  g_autofree char *reserved = NULL;
  g_autofree char *gap = NULL;
  g_autofree char *title = NULL;
  g_autofree char *detail = NULL;
  HrSnapshotBar bar;

  if (dev == NULL || estimate == NULL)
    return;
  hr_snapshot_device_bar (dev, &bar);

  allocated = format_bytes (self, (double) dev->allocated_peak);
  reserved = format_bytes (self, (double) dev->reserved_at_allocated_peak);
  gap = format_bytes (self, (double) bar.fragmentation);
  /* Translators: a memory snapshot's peak: the GPU, the micro-batch it
   * ran, the time; then what was allocated and reserved. */
  title = g_strdup_printf (batch > 0 ? _("Measured peak on GPU %d at micro-batch %u, "
                                         "t = %.3f s")
                                     : _("Measured peak on GPU %d (the snapshot does not "
                                         "say its micro-batch; compared at %u), t = %.3f s"),
                           dev->device, m->micro_batch, dev->allocated_peak_t);
  {
    g_autofree char *est_alloc = format_bytes (self, (double) estimate->allocated_peak);
    g_autofree char *est_reserved = format_bytes (self, (double) estimate->reserved_peak);

    detail = g_strdup_printf (_("%s allocated, %s reserved (%s of it holding no tensor) · "
                                "estimate %s allocated, %s reserved"),
                              allocated, reserved, gap, est_alloc, est_reserved);
  }
  put_line (lines, title, detail, allocated);

  for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
    {
      g_autofree char *measured = format_bytes (self, (double) bar.bytes[b]);
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
        g_autofree char *predicted = format_bytes (self, (double) estimate->buckets[b]);

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
      g_autofree char *bytes = format_bytes (self, (double) site->bytes);
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
      g_autofree char *asked = format_bytes (self, (double) oom->requested);
      g_autofree char *left = format_bytes (self, (double) oom->device_free);
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
measurement_row (HrMeasurementsGroup         *self,
                 GtkWidget                   *row,
                 const char                  *title,
                 HrMeasurementFile         *set,
                 const HrMeasurement         *measurement,
                 const HrAnalysisMeasurement *m)
{
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
          g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_clicked_cb), self);
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
    add_snapshot_rows (self, &lines, measurement, m);

  /* The points, with the fit's residual and the estimate beside each. */
  for (guint s = 0; sweep != NULL && s < measurement->series->len; s++)
    {
      const HrMeasureSeries *series = g_ptr_array_index (measurement->series, s);

      if (series != sweep)
        continue;
      for (guint j = 0; j < series->points->len; j++)
        {
          const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, j);
          g_autofree char *measured = format_bytes (self, p->bytes);
          g_autofree char *point_title = NULL;
          g_autofree char *detail = NULL;
          GString *sub = g_string_new (NULL);
          double predicted;

          if (isnan (p->batch) || p->batch < 1)
            continue;
          predicted = hr_analysis_predict (self->analysis, (guint) p->batch, series->metric);
          point_title = g_strdup_printf (_("Micro-batch %.0f: %s measured"), p->batch, measured);
          if (m->fit != NULL && j < m->fit->residuals->len
              && !isnan (g_array_index (m->fit->residuals, double, j)))
            {
              double r = g_array_index (m->fit->residuals, double, j);
              g_autofree char *res = format_bytes (self, fabs (r));

              g_string_append_printf (sub, _("fit residual %s%s"), r < 0 ? "−" : "+", res);
            }
          {
            g_autofree char *est = format_bytes (self, predicted);

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
remove_rows_from (HrMeasurementsGroup *self,
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
refresh_row (HrMeasurementsGroup         *self,
             GtkWidget                   *child,
             const char                  *title,
             HrMeasurementFile         *set,
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

static void
refresh (HrMeasurementsGroup *self)
{
  GtkWidget *child = gtk_widget_get_next_sibling (GTK_WIDGET (self->calibrate_row));
  const HrAnalysisMeasurement *sweep = hr_analysis_get_snapshot_sweep (self->analysis);

  for (guint i = 0; self->files != NULL && i < self->files->len; i++)
    {
      HrMeasurementFile *set = g_ptr_array_index (self->files, i);
      const HrAnalysisMeasurement *m = hr_analysis_find_measurement (self->analysis,
                                                                     set->measurement);
      g_autofree char *name = g_path_get_basename (set->path);

      if (m != NULL)
        child = refresh_row (self, child, name, set, set->measurement, m);
    }
  /* The snapshots taken together, after the files (the analysis adds
   * their sweep last). */
  if (sweep != NULL)
    {
      /* Translators: %s lists the snapshot files */
      g_autofree char *title = g_strdup_printf (_("Snapshots %s, as one sweep"),
                                                sweep->snapshot_files);

      child = refresh_row (self, child, title, NULL, sweep->measurement, sweep);
    }
  remove_rows_from (self, child);
}

static void
on_calibrate_active_cb (HrMeasurementsGroup *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USE_CALIBRATION]);
}

static void
hr_measurements_group_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  HrMeasurementsGroup *self = HR_MEASUREMENTS_GROUP (object);

  switch (prop_id)
    {
    case PROP_ANALYSIS:
      g_value_set_boxed (value, self->analysis);
      break;
    case PROP_USE_CALIBRATION:
      g_value_set_boolean (value, hr_measurements_group_get_use_calibration (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_measurements_group_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  HrMeasurementsGroup *self = HR_MEASUREMENTS_GROUP (object);

  switch (prop_id)
    {
    case PROP_ANALYSIS:
      hr_measurements_group_set_analysis (self, g_value_get_boxed (value));
      break;
    case PROP_USE_CALIBRATION:
      hr_measurements_group_set_use_calibration (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_measurements_group_dispose (GObject *object)
{
  HrMeasurementsGroup *self = HR_MEASUREMENTS_GROUP (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_MEASUREMENTS_GROUP);
  g_clear_pointer (&self->analysis, hr_analysis_unref);
  self->files = NULL;
  G_OBJECT_CLASS (hr_measurements_group_parent_class)->dispose (object);
}

static void
hr_measurements_group_class_init (HrMeasurementsGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = hr_measurements_group_get_property;
  object_class->set_property = hr_measurements_group_set_property;
  object_class->dispose = hr_measurements_group_dispose;

  properties[PROP_ANALYSIS] =
    g_param_spec_boxed ("analysis", NULL, NULL, HR_TYPE_ANALYSIS_BOXED,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_USE_CALIBRATION] =
    g_param_spec_boolean ("use-calibration", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The trash button of a file's row: the file (HrMeasurementFile). */
  signals[REMOVE_FILE] = g_signal_new ("remove-file", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                       G_TYPE_POINTER);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/"
                                               "hr-measurements-group.ui");
  gtk_widget_class_bind_template_child (widget_class, HrMeasurementsGroup, calibrate_row);
  gtk_widget_class_bind_template_child (widget_class, HrMeasurementsGroup, calibrate_switch);
  gtk_widget_class_bind_template_child (widget_class, HrMeasurementsGroup, measure_list);
  gtk_widget_class_bind_template_callback (widget_class, on_calibrate_active_cb);
}

static void
hr_measurements_group_init (HrMeasurementsGroup *self)
{
  self->unit = HR_SIZE_GIB;
  gtk_widget_init_template (GTK_WIDGET (self));
}

/* Read at the next analysis. */
void
hr_measurements_group_set_files (HrMeasurementsGroup *self,
                                 GPtrArray           *files)
{
  g_return_if_fail (HR_IS_MEASUREMENTS_GROUP (self));
  self->files = files;
}

/* Read at the next analysis. */
void
hr_measurements_group_set_unit (HrMeasurementsGroup *self,
                                HrSizeUnit           unit)
{
  g_return_if_fail (HR_IS_MEASUREMENTS_GROUP (self));
  self->unit = unit;
}

void
hr_measurements_group_set_analysis (HrMeasurementsGroup *self,
                                    HrAnalysis          *analysis)
{
  g_return_if_fail (HR_IS_MEASUREMENTS_GROUP (self));

  if (analysis == self->analysis)
    return;
  if (analysis != NULL)
    hr_analysis_ref (analysis);
  g_clear_pointer (&self->analysis, hr_analysis_unref);
  self->analysis = analysis;
  if (analysis != NULL)
    {
      update_calibration (self);
      refresh (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
}

gboolean
hr_measurements_group_get_use_calibration (HrMeasurementsGroup *self)
{
  g_return_val_if_fail (HR_IS_MEASUREMENTS_GROUP (self), FALSE);
  return gtk_switch_get_active (self->calibrate_switch);
}

void
hr_measurements_group_set_use_calibration (HrMeasurementsGroup *self,
                                           gboolean             use)
{
  g_return_if_fail (HR_IS_MEASUREMENTS_GROUP (self));
  /* the switch notifies, and the group with it */
  gtk_switch_set_active (self->calibrate_switch, use);
}
