/* hr-chart-curve.c: predicted peak memory versus micro-batch
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hr-chart-curve.h"
#include "hr-chart-place.h"
#include "hr-chart-series.h"
#include "hr-chart-text.h"
#include "hr-fit.h"
#include "hr-snapshot.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* Room around things, in logical pixels at the screen's size (times the
 * style's spacing) */
#define PAD            14.0
#define TICK_LENGTH     4.0
#define TICK_LABEL_GAP  3.0
#define TICK_SPACING   10.0    /* least room between two x tick labels */
#define TITLE_GAP      10.0    /* the titles to the legend */
#define AXIS_GAP        6.0    /* tick labels to the axis's title */
#define GUTTER_GAP      6.0    /* the plot's right edge to the cards' names */
#define LABEL_SPACING   3.0    /* between two cards' names */
#define MARKER_RADIUS   4.0
#define POINT_RADIUS    4.0
#define SWATCH_WIDTH   18.0
#define SWATCH_GAP      5.0
#define LEGEND_SPACING 14.0

/* The y axis goes that far above the highest line, curve or point */
#define HEADROOM 1.06

/* Cards whose usable memory is this close, and whose largest batch is the
 * same, are one line: two lines a pixel apart read as one anyway. */
#define SAME_CARD 0.01

/* The cards' names take at most this share of the width */
#define GUTTER_SHARE 0.36

/* A size as the chart prints it, in the data's unit (hr-types.h). */
static char *
chart_bytes (const HrCurveChartData *data,
             double                  bytes)
{
  return hr_size_format_full (bytes, data->unit, HR_SIZE_FORMAT_CHART);
}

/* A size in a tooltip: "15.04 GiB". */
static char *
tooltip_bytes (const HrCurveChartData *data,
               double                  bytes)
{
  return hr_size_format_full (bytes, data->unit, HR_SIZE_FORMAT_TABLE);
}

/* Bytes in one of the data's unit. */
static double
unit_bytes (const HrCurveChartData *data)
{
  return data->unit == HR_SIZE_GB ? 1e9 : GiB;
}

static void
curve_gpu_free (HrCurveGpu *gpu)
{
  g_free (gpu->label);
  g_free (gpu->short_label);
  g_free (gpu);
}

HrCurveChartData *
hr_curve_chart_data_new (void)
{
  HrCurveChartData *data = g_new0 (HrCurveChartData, 1);

  data->samples = g_array_new (FALSE, TRUE, sizeof (HrCurveSample));
  data->gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) curve_gpu_free);
  data->measured = g_array_new (FALSE, TRUE, sizeof (HrCurvePoint));
  return data;
}

void
hr_curve_chart_data_free (HrCurveChartData *data)
{
  if (data == NULL)
    return;

  g_free (data->title);
  g_free (data->subtitle);
  g_array_unref (data->samples);
  g_ptr_array_unref (data->gpus);
  g_array_unref (data->measured);
  g_free (data->measured_label);
  g_free (data->fit_label);
  g_free (data->note);
  g_free (data);
}

void
hr_curve_chart_data_add_gpu (HrCurveChartData *data,
                             const char       *label,
                             double            capacity,
                             double            usable,
                             guint             max_micro_batch,
                             gboolean          max_is_lower_bound)
{
  HrCurveGpu *gpu;

  g_return_if_fail (data != NULL);
  g_return_if_fail (label != NULL);

  gpu = g_new0 (HrCurveGpu, 1);
  gpu->label = g_strdup (label);
  gpu->short_label = hr_chart_gpu_short_name (label, NULL, NULL);
  gpu->series = data->gpus->len;
  gpu->capacity = capacity;
  gpu->usable = usable;
  gpu->max_micro_batch = max_micro_batch;
  gpu->max_is_lower_bound = max_is_lower_bound;
  g_ptr_array_add (data->gpus, gpu);
}

void
hr_curve_chart_data_set_measurements (HrCurveChartData   *data,
                                      const HrCurvePoint *points,
                                      guint               n_points,
                                      const char         *label)
{
  char *copy;

  g_return_if_fail (data != NULL);
  g_return_if_fail (points != NULL || n_points == 0);

  g_array_set_size (data->measured, 0);
  g_array_append_vals (data->measured, points, n_points);
  copy = g_strdup (label);
  g_free (data->measured_label);
  data->measured_label = copy;
}

static const char *
metric_label (HrMetric metric)
{
  switch (metric)
    {
    case HR_METRIC_ALLOCATED:
      return _("allocated");
    case HR_METRIC_RESERVED:
      return _("reserved");
    case HR_METRIC_DEVICE_USED:
    default:
      return _("device used");
    }
}

static void add_measurement (HrCurveChartData    *data,
                             const HrMeasurement *measurement,
                             const HrFit         *fit,
                             guint                at_batch,
                             const char          *differing);

void
hr_curve_chart_data_add_measurement (HrCurveChartData    *data,
                                     const HrMeasurement *measurement,
                                     const HrFit         *fit,
                                     guint                at_batch)
{
  add_measurement (data, measurement, fit, at_batch, NULL);
}

void
hr_curve_chart_data_add_foreign_measurement (HrCurveChartData    *data,
                                             const HrMeasurement *measurement,
                                             const HrFit         *fit,
                                             guint                at_batch,
                                             const char          *differing)
{
  add_measurement (data, measurement, fit, at_batch, differing != NULL ? differing : "");
}

static void
add_measurement (HrCurveChartData    *data,
                 const HrMeasurement *measurement,
                 const HrFit         *fit,
                 guint                at_batch,
                 const char          *differing)
{
  g_autoptr(GString) label = g_string_new (NULL);
  const HrMeasureSeries *sweep = hr_measurement_get_sweep (measurement);
  g_autofree char *base = g_path_get_basename (measurement->name);

  g_return_if_fail (data != NULL);
  g_return_if_fail (measurement != NULL);

  /* A run that says its micro-batch (the probe's snapshots) goes there. */
  if (hr_measurement_get_micro_batch (measurement) > 0)
    at_batch = hr_measurement_get_micro_batch (measurement);

  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);

      if (s->points->len == 0)
        continue;

      if (hr_measure_series_is_sweep (s) || sweep == NULL)
        {
          /* A log over time was taken on one run: its peak belongs at the
           * scenario's micro-batch. */
          gboolean over_time = !hr_measure_series_is_sweep (s);

          for (guint j = 0; j < s->points->len; j++)
            {
              const HrMeasurePoint *p = &g_array_index (s->points, HrMeasurePoint, j);
              HrCurvePoint point = { 0 };

              if (over_time && j != s->peak_index)
                continue;
              point.batch = over_time || isnan (p->batch) ? at_batch : p->batch;
              point.bytes = p->bytes;
              point.metric = s->metric;
              point.foreign = differing != NULL;
              g_array_append_val (data->measured, point);
            }
        }
    }

  if (data->measured_label != NULL)
    g_string_append_printf (label, "%s; ", data->measured_label);
  /* Translators: the legend of measured points: the file's name, then
   * each series' marker and what it measures, then maybe where the peak
   * was placed. */
  g_string_append_printf (label, _("measured (%s"), base);
  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);
      gboolean seen = FALSE;

      for (guint j = 0; j < i; j++)
        seen |= ((HrMeasureSeries *) g_ptr_array_index (measurement->series, j))->metric ==
                s->metric;
      if (!seen)
        g_string_append_printf (label, "; %s %s", hr_curve_marker_name (s->metric),
                                metric_label (s->metric));
    }
  if (differing != NULL)
    /* Translators: after the measured points' legend: what differs from
     * the scenario, "model, GPU". */
    g_string_append_printf (label, _("; ✗ another setup: %s"), differing);
  g_string_append (label, ")");
  if (sweep == NULL)
    g_string_append_printf (label, _(", peak at micro-batch %u"), at_batch);
  g_free (data->measured_label);
  data->measured_label = g_string_free (g_steal_pointer (&label), FALSE);

  /* the sweep's fit, the analysis' (hr_analysis_fit_measurement) */
  if (sweep != NULL && fit != NULL)
    {
      g_autofree char *floor_text = chart_bytes (data, fit->floor);
      g_autofree char *slope = chart_bytes (data, fit->per_sample);
      g_autofree char *fit_label = g_strdup_printf (_("fit: %s + %s·b (R² %.3f)"),
                                                    floor_text, slope, fit->r2);

      hr_curve_chart_data_set_fit_line (data, fit->floor, fit->per_sample, fit_label);
    }
}

guint
hr_curve_chart_measurement_batch_range (const HrMeasurement *measurement,
                                        guint                upper)
{
  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);

      for (guint j = 0; j < s->points->len; j++)
        {
          double b = g_array_index (s->points, HrMeasurePoint, j).batch;

          while (!isnan (b) && b > upper && upper < (1u << 20))
            upper *= 2;
        }
    }
  return upper;
}

void
hr_curve_chart_data_set_fit_line (HrCurveChartData *data,
                                  double            floor_bytes,
                                  double            per_sample_bytes,
                                  const char       *label)
{
  char *copy;

  g_return_if_fail (data != NULL);

  data->has_fit_line = TRUE;
  data->fit_floor = floor_bytes;
  data->fit_per_sample = per_sample_bytes;
  copy = g_strdup (label);
  g_free (data->fit_label);
  data->fit_label = copy;
}

static char *
scenario_subtitle (const HrScenario *scenario,
                   const HrEstimate *estimate)
{
  GString *subtitle = g_string_new (scenario->model->name);

  g_string_append_printf (subtitle, " · %s · %s",
                          hr_enum_to_nick (hr_method_names, scenario->method),
                          hr_enum_to_nick (hr_compute_names, scenario->compute));
  /* only when some part of the model reads the sequence length */
  if (estimate->seq_len > 0)
    g_string_append_printf (subtitle, _(" · %u tokens"), estimate->seq_len);
  return g_string_free (subtitle, FALSE);
}

static HrCurveChartData *
data_for_analysis (HrAnalysis *analysis,
                   GArray     *sweep,
                   gboolean    log2_x)
{
  const HrScenario *scenario = hr_analysis_get_scenario (analysis);
  GPtrArray *gpus = hr_analysis_get_curve_gpus (analysis);
  HrCurveChartData *data = hr_curve_chart_data_new ();

  data->log2_x = log2_x;
  data->micro_batch = scenario->micro_batch;
  data->unit = hr_analysis_get_unit (analysis);
  data->note = hr_chart_analysis_note (analysis);
  data->title = g_strdup (scenario->name != NULL && scenario->name[0] != '\0'
                          ? scenario->name : scenario->model->name);
  data->subtitle = scenario_subtitle (scenario, hr_analysis_get_estimate (analysis));
  if (hr_analysis_get_calibration (analysis) != NULL)
    {
      char *subtitle = g_strdup_printf (_("%s · calibrated by measurement"), data->subtitle);

      g_free (data->subtitle);
      data->subtitle = subtitle;
    }

  for (guint i = 0; i < sweep->len; i++)
    {
      const HrAnalysisSample *point = &g_array_index (sweep, HrAnalysisSample, i);
      /* the fit's own measure and its range (under XLA's pool, the
       * model's use of the pool rather than the whole card) */
      HrCurveSample sample = { point->micro_batch, point->need, point->need_low,
                               point->need_high };

      g_array_append_val (data->samples, sample);
    }

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrAnalysisGpu *g = g_ptr_array_index (gpus, i);

      hr_curve_chart_data_add_gpu (data, g->gpu->name, g->limit.capacity, g->limit.usable,
                                   g->max_micro_batch, g->max_is_lower_bound);
    }

  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);

      if (m->match->differs)
        hr_curve_chart_data_add_foreign_measurement (data, m->measurement, m->fit,
                                                     scenario->micro_batch,
                                                     m->match->differing);
      else
        hr_curve_chart_data_add_measurement (data, m->measurement, m->fit,
                                             scenario->micro_batch);
    }
  return data;
}

HrCurveChartData *
hr_curve_chart_data_new_for_analysis (HrAnalysis *analysis)
{
  gboolean log2_x;

  g_return_val_if_fail (analysis != NULL, NULL);

  hr_analysis_get_sweep_range (analysis, NULL, &log2_x);
  return data_for_analysis (analysis, hr_analysis_get_sweep (analysis), log2_x);
}

HrCurveChartData *
hr_curve_chart_data_new_for_scenario (const HrScenario *scenario,
                                      GPtrArray        *gpus,
                                      guint             from,
                                      guint             to,
                                      gboolean          log2_x)
{
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(GArray) sweep = NULL;
  HrAnalysisOptions options = { 0 };

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (from >= 1 && to >= from, NULL);

  options.gpus = gpus;
  analysis = hr_analysis_new (scenario, &options);
  sweep = hr_analysis_sweep (analysis, from, to, 1, log2_x);
  return data_for_analysis (analysis, sweep, log2_x);
}

void
hr_curve_chart_add_reference_gpus (GPtrArray *gpus,
                                   HrCatalog *catalog)
{
  hr_analysis_add_reference_gpus (gpus, catalog);
}

void
hr_curve_chart_batch_range (const HrScenario *scenario,
                            GPtrArray        *gpus,
                            guint            *to,
                            gboolean         *log2_x)
{
  g_autoptr(HrAnalysis) analysis = NULL;
  HrAnalysisOptions options = { 0 };

  options.gpus = gpus;
  analysis = hr_analysis_new (scenario, &options);
  hr_analysis_get_sweep_range (analysis, to, log2_x);
}

/* Layout */

static void
gpu_line_clear (gpointer item)
{
  HrCurveGpuLine *line = item;

  hr_chart_label_clear (&line->label);
  hr_chart_label_clear (&line->detail);
  g_clear_pointer (&line->gpus, g_array_unref);
}

void
hr_curve_chart_layout_free (HrCurveChartLayout *layout)
{
  if (layout == NULL)
    return;

  g_array_unref (layout->x_ticks);
  g_array_unref (layout->y_ticks);
  g_array_unref (layout->curve);
  g_array_unref (layout->band_low);
  g_array_unref (layout->band_high);
  g_array_unref (layout->gpu_lines);
  g_array_unref (layout->measured);
  g_array_unref (layout->measured_index);
  g_array_unref (layout->labels);
  hr_axis_tick_clear (&layout->scenario_tick);
  for (guint i = 0; i < layout->n_legend; i++)
    hr_chart_label_clear (&layout->legend_labels[i]);
  g_free (layout);
}

void
hr_curve_chart_layout_collect_labels (const HrCurveChartLayout *layout,
                                      GPtrArray                *labels)
{
  g_return_if_fail (layout != NULL && labels != NULL);

  for (guint i = 0; i < layout->labels->len; i++)
    g_ptr_array_add (labels, &g_array_index (layout->labels, HrChartLabel, i));
  for (guint i = 0; i < layout->x_ticks->len; i++)
    {
      HrChartLabel *label = &g_array_index (layout->x_ticks, HrAxisTick, i).label;

      if (label->text != NULL)
        g_ptr_array_add (labels, label);
    }
  for (guint i = 0; i < layout->y_ticks->len; i++)
    g_ptr_array_add (labels, &g_array_index (layout->y_ticks, HrAxisTick, i).label);
  if (layout->has_scenario)
    g_ptr_array_add (labels, (gpointer) &layout->scenario_tick.label);
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);

      g_ptr_array_add (labels, &line->label);
      if (line->detail.text != NULL)
        g_ptr_array_add (labels, &line->detail);
    }
  for (guint i = 0; i < layout->n_legend; i++)
    g_ptr_array_add (labels, (gpointer) &layout->legend_labels[i]);
}

double
hr_curve_chart_x_position (const HrCurveChartLayout *layout,
                           double                    batch)
{
  double t;

  g_return_val_if_fail (layout != NULL, 0);

  /* nothing at or below 0 has a place on a log axis: far left it goes */
  if (layout->log2_x)
    t = (log2 (MAX (batch, layout->x_min / 1024)) - log2 (layout->x_min)) /
        (log2 (layout->x_max) - log2 (layout->x_min));
  else
    t = (batch - layout->x_min) / (layout->x_max - layout->x_min);
  return layout->plot.x + t * layout->plot.width;
}

/* The inverse of hr_curve_chart_x_position(). */
static double
x_value (const HrCurveChartLayout *layout,
         double                    x)
{
  double t = (x - layout->plot.x) / layout->plot.width;

  if (layout->log2_x)
    return exp2 (log2 (layout->x_min) + t * (log2 (layout->x_max) - log2 (layout->x_min)));
  return layout->x_min + t * (layout->x_max - layout->x_min);
}

double
hr_curve_chart_y_position (const HrCurveChartLayout *layout,
                           double                    bytes)
{
  g_return_val_if_fail (layout != NULL, 0);

  return layout->plot.y + layout->plot.height -
         (bytes - layout->y_min) / (layout->y_max - layout->y_min) * layout->plot.height;
}

/* A label of @text wrapped at @max_width (never cut: a word wider than
 * that makes the label wider). */
static HrChartLabel
wrapped_label (PangoContext       *context,
               const HrChartStyle *style,
               const char         *text,
               HrChartFont         font,
               HrChartTextRole     role,
               double              max_width,
               double              x,
               double              y)
{
  double w;

  hr_chart_text_size (context, style, font, text, 0, &w, NULL);
  return hr_chart_label_new (context, style, g_strdup (text), font, role, HR_ALIGN_START,
                             w > max_width ? max_width : 0, x, y);
}

static void
keep_inside (HrRect       *box,
             const HrRect *bounds)
{
  box->x = CLAMP (box->x, bounds->x, bounds->x + bounds->width - box->width);
}

static guint
legend_entries (const HrCurveChartData *data,
                gboolean                scenario,
                HrCurveLegendEntry      entries[HR_CURVE_MAX_LEGEND])
{
  guint n = 0;

  entries[n++] = HR_CURVE_LEGEND_PREDICTION;
  entries[n++] = HR_CURVE_LEGEND_RANGE;
  if (scenario)
    entries[n++] = HR_CURVE_LEGEND_SCENARIO;
  if (data->measured->len > 0)
    entries[n++] = HR_CURVE_LEGEND_MEASURED;
  if (data->has_fit_line)
    entries[n++] = HR_CURVE_LEGEND_FIT;
  return n;
}

static const char *
legend_text (const HrCurveChartData *data,
             HrCurveLegendEntry      entry)
{
  switch (entry)
    {
    case HR_CURVE_LEGEND_PREDICTION:
      return _("prediction");
    case HR_CURVE_LEGEND_RANGE:
      return _("range");
    case HR_CURVE_LEGEND_SCENARIO:
      return _("this micro-batch");
    case HR_CURVE_LEGEND_MEASURED:
      return data->measured_label != NULL ? data->measured_label : _("measured");
    case HR_CURVE_LEGEND_FIT:
      return data->fit_label != NULL ? data->fit_label : _("fit");
    default:
      g_assert_not_reached ();
    }
}

/* The legend in rows from @y, each ending at @right and no wider than
 * @width; returns the height taken. */
static double
flow_legend (HrCurveChartLayout *layout,
             double              swatch,
             double              gap,
             double              spacing,
             double              right,
             double              y,
             double              width)
{
  double taken = 0;
  guint row_start = 0;

  while (row_start < layout->n_legend)
    {
      double x = 0, row_height = 0;
      guint row_end = row_start;

      for (; row_end < layout->n_legend; row_end++)
        {
          HrChartLabel *label = &layout->legend_labels[row_end];
          double start = row_end > row_start ? x + spacing : x;

          if (row_end > row_start && start + swatch + gap + label->box.width > width)
            break;
          label->box.x = start + swatch + gap;
          label->box.y = y + taken;
          x = label->box.x + label->box.width;
          row_height = MAX (row_height, label->box.height);
        }
      for (guint i = row_start; i < row_end; i++)
        layout->legend_labels[i].box.x += right - x;
      taken += row_height + (row_end < layout->n_legend ? 2 : 0);
      row_start = row_end;
    }

  for (guint i = 0; i < layout->n_legend; i++)
    {
      const HrRect *box = &layout->legend_labels[i].box;

      layout->legend_swatches[i] = (HrRect) { box->x - gap - swatch, box->y, swatch, box->height };
    }
  return taken;
}

static double
legend_width (const HrCurveChartLayout *layout,
              double                    swatch,
              double                    gap,
              double                    spacing)
{
  double width = 0;

  for (guint i = 0; i < layout->n_legend; i++)
    width += (i > 0 ? spacing : 0) + swatch + gap + layout->legend_labels[i].box.width;
  return width;
}

/* Decimals that @step needs: 2.5 needs one, 50 none. */
static int
step_decimals (double step)
{
  int decimals = 0;
  double scaled = step;

  while (decimals < 6 && fabs (scaled - round (scaled)) > 1e-6)
    {
      decimals++;
      scaled *= 10;
    }
  return decimals;
}

/* The prediction at @batch, along the line between the samples either
 * side of it; 0 outside the samples. */
static double
curve_value_at (const HrCurveChartData *data,
                double                  batch)
{
  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *b = &g_array_index (data->samples, HrCurveSample, i);

      if (b->batch == batch)
        return b->bytes;
      if (b->batch > batch)
        {
          const HrCurveSample *a;

          if (i == 0)
            return 0;
          a = &g_array_index (data->samples, HrCurveSample, i - 1);
          return a->bytes + (b->bytes - a->bytes) * (batch - a->batch) / (b->batch - a->batch);
        }
    }
  return 0;
}

/* The memory that matters: every card's line, the prediction over the
 * range (its band is drawn clipped, not followed), the run's own point at
 * the scenario's micro-batch, and every measurement. */
static void
layout_y_ticks (HrCurveChartLayout     *layout,
                const HrCurveChartData *data,
                const HrChartStyle     *style,
                PangoContext           *context)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  double highest = 0, last_stop = 0, top, step, rounded;
  guint target;
  int decimals;

  /* the curve as far as the last card stops fitting (all of it without
   * cards): past that it leaves the plot at the top */
  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);

      highest = MAX (highest, gpu->usable);
      last_stop = MAX (last_stop, gpu->max_micro_batch == 0 ? 1
                                  : gpu->max_is_lower_bound ? gpu->max_micro_batch
                                                            : gpu->max_micro_batch + 1);
    }
  if (data->gpus->len == 0)
    last_stop = G_MAXDOUBLE;
  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *b = &g_array_index (data->samples, HrCurveSample, i);

      if (b->batch <= last_stop)
        highest = MAX (highest, b->bytes);
      else
        {
          /* the line between the samples either side of the last stop */
          if (i > 0)
            {
              const HrCurveSample *a = &g_array_index (data->samples, HrCurveSample, i - 1);

              if (a->batch < last_stop)
                highest = MAX (highest, a->bytes + (b->bytes - a->bytes) *
                                                   (last_stop - a->batch) / (b->batch - a->batch));
            }
          break;
        }
    }
  for (guint i = 0; i < data->measured->len; i++)
    highest = MAX (highest, g_array_index (data->measured, HrCurvePoint, i).bytes);
  /* the run as asked, even where no card holds it */
  if (data->micro_batch > 0)
    highest = MAX (highest, curve_value_at (data, data->micro_batch));

  /* the axis ends on a tick unless that would waste much of the plot */
  top = (highest > 0 ? highest : unit_bytes (data)) * HEADROOM / unit_bytes (data);
  target = CLAMP ((guint) (layout->plot.height / (40 * MAX (style->spacing, 0.5))), 3, 8);
  step = hr_nice_ticks (0, top, target, values);
  rounded = ceil (top / step - 1e-9) * step;
  decimals = step_decimals (step);

  layout->y_min = 0;
  layout->y_max = (rounded <= top * 1.12 ? rounded : top) * unit_bytes (data);
  for (guint k = 0; k * step * unit_bytes (data) <= layout->y_max * (1 + 1e-9); k++)
    {
      HrAxisTick tick = { 0 };

      tick.value = k * step * unit_bytes (data);
      tick.label = hr_chart_label_new (context, style, g_strdup_printf ("%.*f", decimals, k * step),
                                       HR_CHART_FONT_SMALL, HR_TEXT_MUTED, HR_ALIGN_END, 0, 0, 0);
      g_array_append_val (layout->y_ticks, tick);
    }
}

/* 0 (or 1 on a log axis) to the end of the sweep: the analysis chose it
 * to end a little past where the last card stops fitting. */
static void
x_range (HrCurveChartLayout     *layout,
         const HrCurveChartData *data)
{
  double hi = 1;

  for (guint i = 0; i < data->samples->len; i++)
    hi = MAX (hi, g_array_index (data->samples, HrCurveSample, i).batch);
  for (guint i = 0; i < data->measured->len; i++)
    {
      double batch = g_array_index (data->measured, HrCurvePoint, i).batch;

      if (isfinite (batch))
        hi = MAX (hi, batch);
    }
  hi = MIN (hi, 1 << 24);

  layout->x_min = layout->log2_x ? 1 : 0;
  layout->x_max = MAX (hi, layout->log2_x ? 2 : 1);
}

static void
add_x_tick (HrCurveChartLayout *layout,
            const HrChartStyle *style,
            PangoContext       *context,
            double              value,
            double              y)
{
  HrAxisTick tick = { 0 };

  tick.value = value;
  tick.position = hr_curve_chart_x_position (layout, value);
  tick.label = hr_chart_label_new (context, style, g_strdup_printf ("%.0f", value),
                                   HR_CHART_FONT_SMALL, HR_TEXT_MUTED, HR_ALIGN_CENTER, 0,
                                   tick.position, y);
  keep_inside (&tick.label.box, &layout->bounds);
  g_array_append_val (layout->x_ticks, tick);
}

/* Whether two neighbouring tick labels (of those shown) are closer than
 * @spacing. */
static gboolean
x_ticks_crowded (const HrCurveChartLayout *layout,
                 double                    spacing)
{
  const HrRect *previous = NULL;

  for (guint i = 0; i < layout->x_ticks->len; i++)
    {
      const HrChartLabel *label = &g_array_index (layout->x_ticks, HrAxisTick, i).label;

      if (label->text == NULL)
        continue;
      if (previous != NULL && label->box.x - (previous->x + previous->width) < spacing)
        return TRUE;
      previous = &label->box;
    }
  return FALSE;
}

/* Nice values on a linear axis, powers of two on a log2 one; fewer until
 * their labels have room. */
static void
layout_x_ticks (HrCurveChartLayout *layout,
                const HrChartStyle *style,
                PangoContext       *context,
                double              y)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  double s = style->spacing;
  int first_exponent = (int) ceil (log2 (MAX (layout->x_min, 1)) - 1e-9);
  int last_exponent = (int) floor (log2 (layout->x_max) + 1e-9);
  /* a batch is whole: steps of at least one */
  guint target = (guint) CLAMP (MIN (layout->plot.width / (56 * MAX (s, 0.5)),
                                     floor (layout->x_max - layout->x_min)), 1, 12);

  for (guint stride = 1; stride < 64; stride *= 2)
    {
      g_array_set_size (layout->x_ticks, 0);
      if (layout->log2_x)
        {
          for (int e = first_exponent; e <= last_exponent; e += stride)
            add_x_tick (layout, style, context, exp2 (e), y);
        }
      else
        {
          hr_nice_ticks (layout->x_min, layout->x_max, MAX (1, target / stride), values);
          for (guint i = 0; i < values->len; i++)
            {
              double v = g_array_index (values, double, i);

              /* whole batches only */
              if (fabs (v - round (v)) < 1e-9)
                add_x_tick (layout, style, context, v, y);
            }
        }
      if (!x_ticks_crowded (layout, TICK_SPACING * s) || layout->x_ticks->len <= 2 ||
          (!layout->log2_x && target / stride <= 1))
        break;
    }

  /* Still crowded (a narrow canvas): every other label goes, the ticks
   * stay. */
  for (guint stride = 2; x_ticks_crowded (layout, TICK_SPACING * s) && stride < 64; stride *= 2)
    for (guint i = 0; i < layout->x_ticks->len; i++)
      if (i % stride != 0)
        hr_chart_label_clear (&g_array_index (layout->x_ticks, HrAxisTick, i).label);
}

static HrPoint
data_point (const HrCurveChartLayout *layout,
            double                    batch,
            double                    bytes)
{
  HrPoint point = {
    hr_curve_chart_x_position (layout, batch),
    hr_curve_chart_y_position (layout, bytes),
  };

  return point;
}

static void
add_curve_point (HrCurveChartLayout  *layout,
                 const HrCurveSample *sample)
{
  HrPoint point = data_point (layout, sample->batch, sample->bytes);
  HrPoint low = data_point (layout, sample->batch, sample->low);
  HrPoint high = data_point (layout, sample->batch, sample->high);

  g_array_append_val (layout->curve, point);
  g_array_append_val (layout->band_low, low);
  g_array_append_val (layout->band_high, high);
}

/* Memory grows about linearly with the batch, so between two samples the
 * curve is a straight line in bytes per sample; on a log2 axis that line
 * bends, and a chord would put a card's largest batch above its line. */
static void
layout_curve (HrCurveChartLayout     *layout,
              const HrCurveChartData *data)
{
  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *b = &g_array_index (data->samples, HrCurveSample, i);

      if (layout->log2_x && i > 0)
        {
          const HrCurveSample *a = &g_array_index (data->samples, HrCurveSample, i - 1);
          double span = hr_curve_chart_x_position (layout, b->batch) -
                        hr_curve_chart_x_position (layout, a->batch);
          guint pieces = (guint) CLAMP (span / 4, 1, 256);

          for (guint k = 1; k < pieces; k++)
            {
              double t = (double) k / pieces;
              HrCurveSample between = {
                a->batch + t * (b->batch - a->batch),
                a->bytes + t * (b->bytes - a->bytes),
                a->low + t * (b->low - a->low),
                a->high + t * (b->high - a->high),
              };

              add_curve_point (layout, &between);
            }
        }
      add_curve_point (layout, b);
    }
}

/* Where the polyline @points is over x, by straight lines between them as
 * drawn; FALSE outside its extent. */
static gboolean
polyline_y_at (const GArray *points,
               double        x,
               double       *y)
{
  for (guint i = 0; i < points->len; i++)
    {
      const HrPoint *b = &g_array_index (points, HrPoint, i);

      if (b->x >= x)
        {
          const HrPoint *a = i > 0 ? &g_array_index (points, HrPoint, i - 1) : b;

          if (i == 0 && b->x > x + 1e-9)
            return FALSE;
          *y = b->x > a->x ? a->y + (b->y - a->y) * (x - a->x) / (b->x - a->x) : b->y;
          return TRUE;
        }
    }
  return FALSE;
}

static char *
max_batch_text (const HrCurveGpu *first,
                const HrCurveGpu *last)
{
  if (first->max_micro_batch == 0)
    return g_strdup (_("nothing fits"));
  if (last->max_micro_batch != first->max_micro_batch)
    return g_strdup_printf (_("max %u–%u"), MIN (first->max_micro_batch, last->max_micro_batch),
                            MAX (first->max_micro_batch, last->max_micro_batch));
  return g_strdup_printf (first->max_is_lower_bound ? _("max ≥ %u") : _("max %u"),
                          first->max_micro_batch);
}

/* Groups of cards that draw the same line, in data->gpus order. */
static GPtrArray *
group_gpus (const HrCurveChartData *data)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);
      GArray *home = NULL;

      for (guint g = 0; g < groups->len && home == NULL; g++)
        {
          GArray *group = g_ptr_array_index (groups, g);
          const HrCurveGpu *first = g_ptr_array_index (data->gpus, g_array_index (group, guint, 0));

          if (fabs (first->usable - gpu->usable) <= SAME_CARD * MAX (first->usable, gpu->usable) &&
              first->max_micro_batch == gpu->max_micro_batch &&
              first->max_is_lower_bound == gpu->max_is_lower_bound)
            home = group;
        }
      if (home == NULL)
        {
          home = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (groups, home);
        }
      g_array_append_val (home, i);
    }
  return groups;
}

/* "RTX 3090, RTX 4090", in full or as people say them; one a line when
 * @stacked. */
static char *
group_names (const HrCurveChartData *data,
             const GArray           *group,
             gboolean                shortened,
             gboolean                stacked)
{
  GString *names = g_string_new (NULL);

  for (guint k = 0; k < group->len; k++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, g_array_index (group, guint, k));

      /* Translators: between the names of cards that share a line */
      g_string_append_printf (names, "%s%s", k > 0 ? (stacked ? _(",\n") : _(", ")) : "",
                              shortened ? gpu->short_label : gpu->label);
    }
  return g_string_free (names, FALSE);
}

static char *
group_detail (const HrCurveChartData *data,
              const GArray           *group,
              gboolean                brief)
{
  double lo = G_MAXDOUBLE, hi = 0;
  const HrCurveGpu *first = g_ptr_array_index (data->gpus, g_array_index (group, guint, 0));
  const HrCurveGpu *last = g_ptr_array_index (data->gpus,
                                              g_array_index (group, guint, group->len - 1));
  g_autofree char *max = max_batch_text (first, last);
  g_autofree char *low = NULL;
  g_autofree char *high = NULL;

  for (guint k = 0; k < group->len; k++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, g_array_index (group, guint, k));

      lo = MIN (lo, gpu->usable);
      hi = MAX (hi, gpu->usable);
    }
  low = chart_bytes (data, lo);
  high = chart_bytes (data, hi);
  if (!g_str_equal (low, high))
    {
      g_autofree char *range = NULL;
      g_autofree char *suffix = g_strconcat (" ", hr_size_unit_symbol (data->unit), NULL);

      /* "71.7–72.0 GiB": the unit once when both have it */
      if (g_str_has_suffix (low, suffix) && g_str_has_suffix (high, suffix))
        low[strlen (low) - strlen (suffix)] = '\0';
      range = g_strdup_printf ("%s–%s", low, high);

      /* Translators: the usable memory of the cards on a line (one
       * amount, or a range), then the largest micro-batch */
      return g_strdup_printf (brief ? _("%s · %s") : _("%s usable · %s"), range, max);
    }
  return g_strdup_printf (brief ? _("%s · %s") : _("%s usable · %s"), low, max);
}

typedef struct {
  HrCurveGpuLine *line;
  double          want;   /* the line's y */
} Ordered;

static int
compare_ordered (gconstpointer a,
                 gconstpointer b)
{
  const Ordered *oa = a, *ob = b;

  return (oa->want > ob->want) - (oa->want < ob->want);
}

/* The cards' names and details at the right of the plot, one block per
 * line, as close to their lines as the other blocks let them, within
 * [top, bottom]. */
static void
place_gpu_labels (HrCurveChartLayout *layout,
                  const HrChartStyle *style,
                  double              gutter_x,
                  double              top,
                  double              bottom)
{
  double s = style->spacing;
  guint n = layout->gpu_lines->len;
  g_autofree Ordered *order = g_new0 (Ordered, MAX (n, 1));
  g_autofree double *tops = g_new0 (double, MAX (n, 1));
  g_autofree double *heights = g_new0 (double, MAX (n, 1));
  double total = 0;

  for (guint i = 0; i < n; i++)
    {
      HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);

      order[i].line = line;
      order[i].want = line->y;
    }
  qsort (order, n, sizeof *order, compare_ordered);

  for (guint pass = 0; pass < 2; pass++)
    {
      total = 0;
      for (guint i = 0; i < n; i++)
        {
          HrCurveGpuLine *line = order[i].line;

          heights[i] = line->label.box.height +
                       (line->detail.text != NULL ? line->detail.box.height : 0);
          /* the name's middle on the line */
          tops[i] = order[i].want - line->label.box.height / 2;
          total += heights[i] + (i > 0 ? LABEL_SPACING * s : 0);
        }
      if (total <= bottom - top || pass == 1)
        break;
      /* no room for two lines a card: the details go, the y axis says the
       * memory and the marker the largest batch */
      for (guint i = 0; i < n; i++)
        hr_chart_label_clear (&order[i].line->detail);
    }

  hr_place_spread (tops, heights, n, LABEL_SPACING * s, top, bottom);

  for (guint i = 0; i < n; i++)
    {
      HrCurveGpuLine *line = order[i].line;
      double swatch = SWATCH_WIDTH * s;
      double middle = tops[i] + line->label.box.height / 2;

      line->swatch = (HrRect) { gutter_x, middle - line->label.box.height / 2, swatch,
                                line->label.box.height };
      line->label.box.x = gutter_x + swatch + SWATCH_GAP * s;
      line->label.box.y = tops[i];
      if (line->detail.text != NULL)
        {
          line->detail.box.x = line->label.box.x;
          line->detail.box.y = tops[i] + line->label.box.height;
        }
      line->has_leader = fabs (middle - line->y) > 0.5;
      line->leader_from = (HrPoint) { line->x_end, line->y };
      line->leader_to = (HrPoint) { gutter_x, middle };
    }
}

/* The measured points, per measure, thinned to the smallest and the
 * largest in each pixel column: more would be drawn on top of each other. */
static void
layout_measured (HrCurveChartLayout     *layout,
                 const HrCurveChartData *data)
{
  guint n = data->measured->len;
  guint columns = (guint) CLAMP (ceil (layout->plot.width), 1, 1 << 16);
  g_autofree double *px = NULL;
  g_autofree double *x = NULL;
  g_autofree double *y = NULL;
  g_autoptr(GArray) kept = g_array_new (FALSE, FALSE, sizeof (guint));

  if (n == 0)
    return;
  px = g_new (double, n);
  x = g_new (double, n);
  y = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      const HrCurvePoint *m = &g_array_index (data->measured, HrCurvePoint, i);

      px[i] = hr_curve_chart_x_position (layout, m->batch);
      /* bytes, not pixels: the thinning keeps the most and the least */
      y[i] = m->bytes;
    }

  for (guint metric = HR_METRIC_ALLOCATED; metric <= HR_METRIC_DEVICE_USED; metric++)
    {
      guint first = kept->len;

      for (guint i = 0; i < n; i++)
        x[i] = g_array_index (data->measured, HrCurvePoint, i).metric == metric &&
               isfinite (px[i]) ? px[i] : NAN;
      hr_measure_thin_columns (x, y, n, layout->plot.x, layout->plot.x + layout->plot.width,
                               columns, kept);
      for (guint k = first; k < kept->len; k++)
        {
          guint i = g_array_index (kept, guint, k);
          const HrCurvePoint *m = &g_array_index (data->measured, HrCurvePoint, i);
          HrPoint point = data_point (layout, m->batch, m->bytes);

          g_array_append_val (layout->measured, point);
          g_array_append_val (layout->measured_index, i);
        }
    }
}

/* The fitted line over the x range, cut where it leaves the y range. */
static void
layout_fit_line (HrCurveChartLayout     *layout,
                 const HrCurveChartData *data)
{
  double start = MAX (layout->x_min, layout->log2_x ? layout->x_min : 0);
  double end = layout->x_max;
  double slope = data->fit_per_sample, floor_bytes = data->fit_floor;

  if (!data->has_fit_line)
    return;

  if (slope != 0)
    {
      double at_min = (layout->y_min - floor_bytes) / slope;
      double at_max = (layout->y_max - floor_bytes) / slope;

      start = MAX (start, MIN (at_min, at_max));
      end = MIN (end, MAX (at_min, at_max));
    }
  else if (floor_bytes < layout->y_min || floor_bytes > layout->y_max)
    return;
  if (!(start < end))
    return;

  layout->has_fit_line = TRUE;
  layout->fit_start = data_point (layout, start, floor_bytes + slope * start);
  layout->fit_end = data_point (layout, end, floor_bytes + slope * end);
}

/* Each group's names (in full, or as people say them when the full ones
 * would crowd the plot, wrapped between names when even those would) and
 * details; returns the width the labels need. */
static double
text_width (PangoContext       *context,
            const HrChartStyle *style,
            HrChartFont         font,
            const char         *text)
{
  double w;

  hr_chart_text_size (context, style, font, text, 0, &w, NULL);
  return w;
}

/* Each group's names and details, the longest that fit in @most: names
 * in full, else as people say them, else one name a line; the detail with
 * "usable", else without.  Returns the width the labels need. */
static double
make_gpu_labels (HrCurveChartLayout     *layout,
                 const HrCurveChartData *data,
                 const HrChartStyle     *style,
                 PangoContext           *context,
                 GPtrArray              *groups,
                 double                  most)
{
  double s = style->spacing;
  double lead = (SWATCH_WIDTH + SWATCH_GAP) * s;
  double room = MAX (most - lead, 8);
  double need = 0;
  guint form = 0;

  /* one form for every line, so that one card is not named in full
   * beside another as people say it */
  for (guint g = 0; g < groups->len; g++)
    {
      GArray *group = g_ptr_array_index (groups, g);

      for (guint attempt = form; attempt < 2; attempt++)
        {
          g_autofree char *names = group_names (data, group, attempt > 0, FALSE);

          if (text_width (context, style, HR_CHART_FONT_BODY, names) <= room)
            break;
          form = attempt + 1;
        }
    }

  for (guint g = 0; g < groups->len; g++)
    {
      GArray *group = g_ptr_array_index (groups, g);
      HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, g);
      g_autofree char *names = NULL;
      g_autofree char *detail = NULL;

      names = group_names (data, group, form > 0, FALSE);
      if (form == 2 && text_width (context, style, HR_CHART_FONT_BODY, names) > room)
        {
          g_free (names);
          names = group_names (data, group, TRUE, TRUE);
        }
      detail = group_detail (data, group, FALSE);
      if (text_width (context, style, HR_CHART_FONT_SMALL, detail) > room)
        {
          g_free (detail);
          detail = group_detail (data, group, TRUE);
        }
      if (text_width (context, style, HR_CHART_FONT_SMALL, detail) > room)
        {
          /* still too wide: a line a part ("59.7–60.0 GiB", "max 132")
           * rather than "max" at one line's end and its number at the
           * next's */
          g_auto(GStrv) parts = g_strsplit (detail, " · ", -1);

          g_free (detail);
          detail = g_strjoinv ("\n", parts);
        }
      line->label = wrapped_label (context, style, names, HR_CHART_FONT_BODY, HR_TEXT_FOREGROUND,
                                   room, 0, 0);
      line->detail = wrapped_label (context, style, detail, HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                                    room, 0, 0);
      need = MAX (need, lead + MAX (line->label.box.width, line->detail.box.width));
    }
  return need;
}

/* An empty layout of @width × @height. */
static HrCurveChartLayout *
layout_new (double   width,
            double   height,
            gboolean log2_x)
{
  HrCurveChartLayout *layout;

  layout = g_new0 (HrCurveChartLayout, 1);
  layout->bounds = (HrRect) { 0, 0, width, height };
  layout->log2_x = log2_x;
  layout->x_ticks = g_array_new (FALSE, TRUE, sizeof (HrAxisTick));
  g_array_set_clear_func (layout->x_ticks, hr_axis_tick_clear);
  layout->y_ticks = g_array_new (FALSE, TRUE, sizeof (HrAxisTick));
  g_array_set_clear_func (layout->y_ticks, hr_axis_tick_clear);
  layout->curve = g_array_new (FALSE, TRUE, sizeof (HrPoint));
  layout->band_low = g_array_new (FALSE, TRUE, sizeof (HrPoint));
  layout->band_high = g_array_new (FALSE, TRUE, sizeof (HrPoint));
  layout->gpu_lines = g_array_new (FALSE, TRUE, sizeof (HrCurveGpuLine));
  g_array_set_clear_func (layout->gpu_lines, gpu_line_clear);
  layout->measured = g_array_new (FALSE, TRUE, sizeof (HrPoint));
  layout->measured_index = g_array_new (FALSE, FALSE, sizeof (guint));
  layout->labels = g_array_new (FALSE, TRUE, sizeof (HrChartLabel));
  g_array_set_clear_func (layout->labels, (GDestroyNotify) hr_chart_label_clear);

  return layout;
}

/* From the top: the title and the subtitle, wrapped rather than cut, then
 * the y axis's title (@y_title) with the legend at the right (above it
 * when both do not fit on one row).  Returns where the plot may begin. */
static double
layout_header (HrCurveChartLayout     *layout,
               const HrCurveChartData *data,
               const HrChartStyle     *style,
               PangoContext           *context,
               double                  pad,
               double                  inner,
               gboolean                scenario,
               HrChartLabel           *y_title)
{
  double s = style->spacing > 0 ? style->spacing : 1;
  double swatch = SWATCH_WIDTH * s, swatch_gap = SWATCH_GAP * s;
  double legend_spacing = LEGEND_SPACING * s;
  double y;

  y = pad;
  if (data->title != NULL && data->title[0] != '\0')
    {
      HrChartLabel title = wrapped_label (context, style, data->title, HR_CHART_FONT_TITLE,
                                          HR_TEXT_FOREGROUND, inner, pad, y);

      g_array_append_val (layout->labels, title);
      y += title.box.height;
    }
  if (data->subtitle != NULL && data->subtitle[0] != '\0')
    {
      HrChartLabel subtitle = wrapped_label (context, style, data->subtitle, HR_CHART_FONT_SMALL,
                                             HR_TEXT_MUTED, inner, pad, y + 1);

      g_array_append_val (layout->labels, subtitle);
      y = subtitle.box.y + subtitle.box.height;
    }
  y += TITLE_GAP * s;

  *y_title = hr_chart_label_new (context, style,
                                 g_strdup (data->unit == HR_SIZE_GB ? _("Peak memory (GB)")
                                                                    : _("Peak memory (GiB)")),
                                 HR_CHART_FONT_SMALL, HR_TEXT_MUTED, HR_ALIGN_START, 0, pad, y);
  layout->n_legend = legend_entries (data, scenario, layout->legend);
  for (guint i = 0; i < layout->n_legend; i++)
    layout->legend_labels[i] = wrapped_label (context, style,
                                              legend_text (data, layout->legend[i]),
                                              HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                                              inner - swatch - swatch_gap, 0, 0);
  if (y_title->box.width + 2 * legend_spacing +
      legend_width (layout, swatch, swatch_gap, legend_spacing) <= inner)
    flow_legend (layout, swatch, swatch_gap, legend_spacing, pad + inner, y, inner);
  else
    {
      y += flow_legend (layout, swatch, swatch_gap, legend_spacing, pad + inner, y, inner) + 3 * s;
      y_title->box.y = y;
    }
  y += y_title->box.height;

  return y;
}

/* From the bottom: the note, the x axis's title (@x_title), then its
 * tick labels, @tick_height high.  Returns where the plot must end. */
static double
layout_footer (HrCurveChartLayout     *layout,
               const HrCurveChartData *data,
               const HrChartStyle     *style,
               PangoContext           *context,
               double                  pad,
               double                  inner,
               double                  height,
               double                  tick_height,
               HrChartLabel           *x_title)
{
  double s = style->spacing > 0 ? style->spacing : 1;
  double bottom;

  bottom = height - pad;
  if (data->note != NULL && data->note[0] != '\0')
    {
      HrChartLabel note = wrapped_label (context, style, data->note, HR_CHART_FONT_SMALL,
                                         HR_TEXT_MUTED, inner, pad, 0);

      note.box.y = bottom - note.box.height;
      bottom = note.box.y - 2 * s;
      g_array_append_val (layout->labels, note);
    }
  *x_title = hr_chart_label_new (context, style,
                                 g_strdup (data->log2_x ? _("Micro-batch (log₂ scale)")
                                                        : _("Micro-batch")),
                                 HR_CHART_FONT_SMALL, HR_TEXT_MUTED, HR_ALIGN_CENTER, 0, 0, 0);
  x_title->box.y = bottom - x_title->box.height;
  bottom = x_title->box.y - AXIS_GAP * s * 0.5 - tick_height - TICK_LABEL_GAP * s -
           TICK_LENGTH * s;

  return bottom;
}

/* The scenario's micro-batch on the x axis, in bold; a tick label it
 * would cover goes. */
static void
layout_scenario_tick (HrCurveChartLayout     *layout,
                      const HrCurveChartData *data,
                      const HrChartStyle     *style,
                      PangoContext           *context)
{
  HrAxisTick *tick = &layout->scenario_tick;
  double s = style->spacing > 0 ? style->spacing : 1;

  layout->has_scenario = TRUE;
  layout->scenario_x = hr_curve_chart_x_position (layout, data->micro_batch);
  tick->value = data->micro_batch;
  tick->position = layout->scenario_x;
  tick->label = hr_chart_label_new (context, style, g_strdup_printf ("%u", data->micro_batch),
                                    HR_CHART_FONT_SMALL_BOLD, HR_TEXT_ACCENT, HR_ALIGN_CENTER,
                                    0, tick->position,
                                    layout->plot.y + layout->plot.height +
                                    (TICK_LENGTH + TICK_LABEL_GAP) * s);
  keep_inside (&tick->label.box, &layout->bounds);
  for (guint i = 0; i < layout->x_ticks->len; i++)
    {
      HrAxisTick *other = &g_array_index (layout->x_ticks, HrAxisTick, i);
      HrRect apart = { tick->label.box.x - 2 * s, tick->label.box.y,
                       tick->label.box.width + 4 * s, tick->label.box.height };

      if (other->label.text != NULL && (hr_rect_intersects (&other->label.box, &apart) ||
                                        fabs (other->value - tick->value) < 1e-9))
        hr_chart_label_clear (&other->label);
    }
}

/* Each card's line at its usable memory, with a marker where the curve
 * crosses its largest micro-batch. */
static void
layout_gpu_lines (HrCurveChartLayout     *layout,
                  const HrCurveChartData *data)
{
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, g_array_index (line->gpus, guint, 0));

      line->y = hr_curve_chart_y_position (layout, gpu->usable);
      line->x_start = layout->plot.x;
      line->x_end = layout->plot.x + layout->plot.width;
      line->has_marker = gpu->max_micro_batch > 0 && gpu->max_micro_batch >= layout->x_min &&
                         gpu->max_micro_batch <= layout->x_max;
      if (line->has_marker)
        {
          line->marker.x = hr_curve_chart_x_position (layout, gpu->max_micro_batch);
          if (!polyline_y_at (layout->curve, line->marker.x, &line->marker.y))
            line->marker.y = line->y;
        }
    }
}

HrCurveChartLayout *
hr_curve_chart_layout (const HrCurveChartData *data,
                       const HrChartStyle     *given_style,
                       PangoContext           *context,
                       double                  width,
                       double                  height)
{
  g_autoptr(HrChartStyle) fitted = NULL;
  const HrChartStyle *style;
  HrCurveChartLayout *layout;
  g_autoptr(GPtrArray) groups = NULL;
  HrChartLabel x_title, y_title;
  double s, pad, inner, y, tick_height, bottom, y_label_width = 0, gutter = 0;
  gboolean scenario;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (given_style != NULL, NULL);
  g_return_val_if_fail (PANGO_IS_CONTEXT (context), NULL);

  /* a canvas too small for the fonts gets smaller ones */
  fitted = hr_chart_style_fit (given_style, width, height);
  style = fitted;

  s = style->spacing > 0 ? style->spacing : 1;
  layout = layout_new (width, height, data->log2_x);

  pad = MAX (PAD * s, 4);
  inner = MAX (width - 2 * pad, 1);
  x_range (layout, data);
  scenario = data->micro_batch > 0 && data->micro_batch >= layout->x_min &&
             data->micro_batch <= layout->x_max;

  y = layout_header (layout, data, style, context, pad, inner, scenario, &y_title);

  hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, "0", 0, NULL, &tick_height);
  bottom = layout_footer (layout, data, style, context, pad, inner, height, tick_height,
                          &x_title);

  /* The top tick's label is centred on the plot's top edge. */
  layout->plot.y = y + tick_height / 2 + 4 * s;
  layout->plot.height = MAX (bottom - layout->plot.y, 1);

  layout_y_ticks (layout, data, style, context);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    {
      const HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);

      y_label_width = MAX (y_label_width, tick->label.box.width);
    }
  layout->plot.x = pad + y_label_width + 6 * s;

  /* The cards: one line for cards alike, its names at the right. */
  groups = group_gpus (data);
  for (guint g = 0; g < groups->len; g++)
    {
      GArray *group = g_ptr_array_index (groups, g);
      HrCurveGpuLine line = { 0 };

      line.gpus = g_array_ref (group);
      line.series = ((HrCurveGpu *) g_ptr_array_index (data->gpus,
                                                       g_array_index (group, guint, 0)))->series;
      g_array_append_val (layout->gpu_lines, line);
    }
  if (groups->len > 0)
    gutter = make_gpu_labels (layout, data, style, context, groups,
                              MAX (width * GUTTER_SHARE, 40 * s)) + GUTTER_GAP * s;
  layout->plot.width = MAX (width - pad - gutter - layout->plot.x, 1);

  for (guint i = 0; i < layout->y_ticks->len; i++)
    {
      HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);

      tick->position = hr_curve_chart_y_position (layout, tick->value);
      tick->label.box.x = layout->plot.x - 6 * s - tick->label.box.width;
      tick->label.box.y = tick->position - tick->label.box.height / 2;
    }

  layout_x_ticks (layout, style, context,
                  layout->plot.y + layout->plot.height + (TICK_LENGTH + TICK_LABEL_GAP) * s);
  if (scenario)
    layout_scenario_tick (layout, data, style, context);

  hr_chart_label_place (context, style, &x_title, layout->plot.x + layout->plot.width / 2,
                        x_title.box.y);
  keep_inside (&x_title.box, &layout->bounds);
  g_array_append_val (layout->labels, x_title);
  g_array_append_val (layout->labels, y_title);

  layout_curve (layout, data);
  layout_measured (layout, data);
  layout_fit_line (layout, data);
  layout_gpu_lines (layout, data);
  if (layout->gpu_lines->len > 0)
    place_gpu_labels (layout, style, layout->plot.x + layout->plot.width + GUTTER_GAP * s,
                      layout->plot.y - tick_height / 2,
                      layout->plot.y + layout->plot.height + TICK_LENGTH * s);

  return layout;
}

/* Render */

/* The prediction in the text's colour: the palette is the cards'. */
static const HrRgba *
curve_color (const HrChartStyle *style)
{
  return &style->foreground;
}

static void
polyline_path (cairo_t      *cr,
               const GArray *points,
               gboolean      reverse)
{
  for (guint i = 0; i < points->len; i++)
    {
      const HrPoint *p = &g_array_index (points, HrPoint, reverse ? points->len - 1 - i : i);

      cairo_line_to (cr, p->x, p->y);
    }
}

/* Thin rules land on whole pixels, so they stay crisp at scale 1. */
static double
crisp (double position)
{
  return floor (position) + 0.5;
}

static void
draw_axes (const HrCurveChartLayout *layout,
           const HrChartStyle       *style,
           cairo_t                  *cr)
{
  const HrRect *plot = &layout->plot;
  double s = style->spacing;
  double baseline = crisp (plot->y + plot->height);

  cairo_set_line_width (cr, style->thin_line_width);
  hr_chart_set_color (cr, &style->grid);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    {
      const HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);

      if (tick->value == layout->y_min)
        continue;
      cairo_move_to (cr, plot->x, crisp (tick->position));
      cairo_line_to (cr, plot->x + plot->width, crisp (tick->position));
    }
  cairo_stroke (cr);

  hr_chart_set_color (cr, &style->axis);
  cairo_move_to (cr, plot->x, baseline);
  cairo_line_to (cr, plot->x + plot->width, baseline);
  for (guint i = 0; i < layout->x_ticks->len; i++)
    {
      double x = crisp (g_array_index (layout->x_ticks, HrAxisTick, i).position);

      cairo_move_to (cr, x, baseline);
      cairo_line_to (cr, x, baseline + TICK_LENGTH * s);
    }
  cairo_stroke (cr);

  for (guint i = 0; i < layout->x_ticks->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->x_ticks, HrAxisTick, i).label, NULL);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->y_ticks, HrAxisTick, i).label, NULL);
}

static void
clip_to_plot (const HrCurveChartLayout *layout,
              cairo_t                  *cr)
{
  cairo_new_path (cr);
  cairo_rectangle (cr, layout->plot.x, layout->plot.y, layout->plot.width, layout->plot.height);
  cairo_clip (cr);
}

static void
draw_band (const HrCurveChartLayout *layout,
           const HrChartStyle       *style,
           cairo_t                  *cr)
{
  if (layout->curve->len == 0)
    return;

  /* the estimate's whole range, cut at the plot's edges */
  cairo_new_path (cr);
  polyline_path (cr, layout->band_high, FALSE);
  polyline_path (cr, layout->band_low, TRUE);
  cairo_close_path (cr);
  hr_chart_set_color (cr, &style->band);
  cairo_fill (cr);
}

static void
draw_curve (const HrCurveChartLayout *layout,
            const HrChartStyle       *style,
            cairo_t                  *cr)
{
  if (layout->curve->len == 0)
    return;

  cairo_new_path (cr);
  polyline_path (cr, layout->curve, FALSE);
  cairo_set_line_width (cr, style->line_width);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  hr_chart_set_color (cr, curve_color (style));
  cairo_stroke (cr);
}

static void
draw_scenario (const HrCurveChartLayout *layout,
               const HrChartStyle       *style,
               cairo_t                  *cr)
{
  double s = style->spacing;
  const double dashes[] = { 1.5 * s, 2.5 * s };

  if (!layout->has_scenario)
    return;
  cairo_save (cr);
  cairo_new_path (cr);
  cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
  cairo_set_line_width (cr, style->thin_line_width * 1.2);
  hr_chart_set_color (cr, &style->accent);
  cairo_move_to (cr, layout->scenario_x, layout->plot.y);
  cairo_line_to (cr, layout->scenario_x, layout->plot.y + layout->plot.height +
                 TICK_LENGTH * s);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static double
gpu_line_width (const HrChartStyle *style)
{
  return style->line_width * 0.75;
}

static void
draw_gpu_lines (const HrCurveChartLayout *layout,
                const HrChartStyle       *style,
                cairo_t                  *cr)
{
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);
      HrChartSeries series = hr_chart_style_get_series (style, line->series);

      cairo_new_path (cr);
      cairo_move_to (cr, line->x_start, line->y);
      cairo_line_to (cr, line->x_end, line->y);
      hr_chart_stroke_series (cr, &series, gpu_line_width (style));
    }
}

static void
draw_gpu_labels (const HrCurveChartLayout *layout,
                 const HrChartStyle       *style,
                 cairo_t                  *cr)
{
  double s = style->spacing;

  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);
      HrChartSeries series = hr_chart_style_get_series (style, line->series);
      HrRgba color = hr_chart_series_text_color (style, &series);
      double middle = line->swatch.y + line->swatch.height / 2;

      /* a leader from the line's end to its names, thin and solid */
      cairo_new_path (cr);
      cairo_move_to (cr, line->leader_from.x, line->leader_from.y);
      if (line->has_leader)
        cairo_line_to (cr, line->leader_to.x, line->leader_to.y);
      else
        cairo_line_to (cr, line->swatch.x, line->y);
      cairo_set_line_width (cr, style->thin_line_width);
      hr_chart_set_color (cr, &series.color);
      cairo_stroke (cr);

      /* the swatch: the line's own dash, and its marker */
      cairo_move_to (cr, line->swatch.x, middle);
      cairo_line_to (cr, line->swatch.x + line->swatch.width, middle);
      hr_chart_stroke_series (cr, &series, gpu_line_width (style));
      hr_chart_draw_marker (cr, style, &series, line->swatch.x + line->swatch.width / 2, middle,
                            MARKER_RADIUS * s * 0.9);

      hr_chart_draw_label_colored (cr, style, &line->label, &color);
      hr_chart_draw_label (cr, style, &line->detail, NULL);
    }
}

static void
draw_fit_line (const HrCurveChartLayout *layout,
               const HrChartStyle       *style,
               cairo_t                  *cr)
{
  double s = style->spacing;
  const double dashes[] = { 2.0 * s, 3.0 * s };

  if (!layout->has_fit_line)
    return;

  cairo_save (cr);
  cairo_new_path (cr);
  cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
  cairo_set_line_width (cr, style->line_width * 0.75);
  hr_chart_set_color (cr, &style->measured);
  cairo_move_to (cr, layout->fit_start.x, layout->fit_start.y);
  /* A straight line in bytes per sample bends on a log2 axis. */
  if (layout->log2_x)
    {
      double start = x_value (layout, layout->fit_start.x);
      double end = x_value (layout, layout->fit_end.x);
      double per_batch = (layout->fit_end.y - layout->fit_start.y) / (end - start);

      for (double x = layout->fit_start.x + 2; x < layout->fit_end.x; x += 2)
        cairo_line_to (cr, x, layout->fit_start.y + per_batch * (x_value (layout, x) - start));
    }
  cairo_line_to (cr, layout->fit_end.x, layout->fit_end.y);
  cairo_stroke (cr);
  cairo_restore (cr);
}

const char *
hr_curve_marker_name (HrMetric metric)
{
  switch (metric)
    {
    case HR_METRIC_RESERVED:
      return "\u25A0";
    case HR_METRIC_DEVICE_USED:
      return "\u25B2";
    case HR_METRIC_ALLOCATED:
    default:
      return "\u25CF";
    }
}

static void
draw_point (cairo_t            *cr,
            const HrChartStyle *style,
            double              x,
            double              y,
            HrMetric            metric,
            gboolean            foreign)
{
  /* The square and the triangle enclose about the circle's area. */
  double radius = POINT_RADIUS * style->spacing;
  double half = radius * 0.89, tri = radius * 1.35;

  cairo_new_sub_path (cr);
  if (metric == HR_METRIC_RESERVED)
    cairo_rectangle (cr, x - half, y - half, 2 * half, 2 * half);
  else if (metric == HR_METRIC_DEVICE_USED)
    {
      cairo_move_to (cr, x, y - tri);
      cairo_line_to (cr, x + tri * 0.866, y + tri * 0.5);
      cairo_line_to (cr, x - tri * 0.866, y + tri * 0.5);
      cairo_close_path (cr);
    }
  else
    cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
  hr_chart_set_color (cr, &style->background);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, MAX (0.75, 1.5 * style->spacing));
  hr_chart_set_color (cr, &style->measured);
  cairo_stroke (cr);

  /* A point measured on another setup is struck through: its shape says
   * so, not only its legend. */
  if (foreign)
    {
      cairo_move_to (cr, x - tri, y + tri);
      cairo_line_to (cr, x + tri, y - tri);
      cairo_stroke (cr);
    }
}

static void
draw_markers (const HrCurveChartLayout *layout,
              const HrChartStyle       *style,
              cairo_t                  *cr)
{
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);
      HrChartSeries series = hr_chart_style_get_series (style, line->series);

      if (line->has_marker)
        hr_chart_draw_marker (cr, style, &series, line->marker.x, line->marker.y,
                              MARKER_RADIUS * style->spacing);
    }
}

static void
draw_swatch (cairo_t            *cr,
             const HrChartStyle *style,
             HrCurveLegendEntry  entry,
             const HrRect       *box)
{
  double s = style->spacing;
  const double fit_dashes[] = { 2.0 * s, 3.0 * s };
  const double scenario_dashes[] = { 1.5 * s, 2.5 * s };
  double x = box->x, y = box->y + box->height / 2, w = box->width;

  cairo_save (cr);
  cairo_new_path (cr);
  switch (entry)
    {
    case HR_CURVE_LEGEND_PREDICTION:
      cairo_move_to (cr, x, y);
      cairo_line_to (cr, x + w, y);
      cairo_set_line_width (cr, style->line_width);
      hr_chart_set_color (cr, curve_color (style));
      cairo_stroke (cr);
      break;
    case HR_CURVE_LEGEND_RANGE:
      cairo_rectangle (cr, x, y - MIN (5 * s, box->height / 2), w, MIN (10 * s, box->height));
      hr_chart_set_color (cr, &style->band);
      cairo_fill (cr);
      break;
    case HR_CURVE_LEGEND_SCENARIO:
      cairo_set_dash (cr, scenario_dashes, G_N_ELEMENTS (scenario_dashes), 0);
      cairo_move_to (cr, x + w / 2, box->y);
      cairo_line_to (cr, x + w / 2, box->y + box->height);
      cairo_set_line_width (cr, style->thin_line_width * 1.2);
      hr_chart_set_color (cr, &style->accent);
      cairo_stroke (cr);
      break;
    case HR_CURVE_LEGEND_MEASURED:
      draw_point (cr, style, x + w / 2, y, HR_METRIC_ALLOCATED, FALSE);
      break;
    case HR_CURVE_LEGEND_FIT:
      cairo_set_dash (cr, fit_dashes, G_N_ELEMENTS (fit_dashes), 0);
      cairo_move_to (cr, x, y);
      cairo_line_to (cr, x + w, y);
      cairo_set_line_width (cr, style->line_width * 0.75);
      hr_chart_set_color (cr, &style->measured);
      cairo_stroke (cr);
      break;
    default:
      g_assert_not_reached ();
    }
  cairo_restore (cr);
}

void
hr_curve_chart_render (const HrCurveChartLayout *layout,
                       const HrCurveChartData   *data,
                       const HrChartStyle       *given_style,
                       cairo_t                  *cr)
{
  g_autoptr(HrChartStyle) fitted = NULL;
  const HrChartStyle *style;

  g_return_if_fail (layout != NULL);
  g_return_if_fail (data != NULL);
  g_return_if_fail (given_style != NULL);
  g_return_if_fail (cr != NULL);

  fitted = hr_chart_style_fit (given_style, layout->bounds.width, layout->bounds.height);
  style = fitted;

  cairo_save (cr);
  hr_chart_prepare_cairo (cr);
  hr_chart_paint_background (cr, style, layout->bounds.width, layout->bounds.height);

  draw_axes (layout, style, cr);

  /* Inside the plot, cut at its edges: the band, the lines, the curve. */
  cairo_save (cr);
  clip_to_plot (layout, cr);
  draw_band (layout, style, cr);
  draw_gpu_lines (layout, style, cr);
  draw_fit_line (layout, style, cr);
  draw_curve (layout, style, cr);
  cairo_restore (cr);
  draw_scenario (layout, style, cr);

  for (guint i = 0; i < layout->measured->len; i++)
    {
      const HrPoint *p = &g_array_index (layout->measured, HrPoint, i);
      guint index = g_array_index (layout->measured_index, guint, i);
      const HrCurvePoint *m = index < data->measured->len
                              ? &g_array_index (data->measured, HrCurvePoint, index) : NULL;

      draw_point (cr, style, p->x, p->y, m != NULL ? m->metric : HR_METRIC_ALLOCATED,
                  m != NULL && m->foreign);
    }
  draw_markers (layout, style, cr);
  draw_gpu_labels (layout, style, cr);

  if (layout->has_scenario)
    hr_chart_draw_label (cr, style, &layout->scenario_tick.label, NULL);
  for (guint i = 0; i < layout->n_legend; i++)
    {
      draw_swatch (cr, style, layout->legend[i], &layout->legend_swatches[i]);
      hr_chart_draw_label (cr, style, &layout->legend_labels[i], NULL);
    }
  for (guint i = 0; i < layout->labels->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->labels, HrChartLabel, i), NULL);

  cairo_restore (cr);
}

void
hr_curve_chart_draw (cairo_t            *cr,
                     PangoContext       *context,
                     const HrChartStyle *style,
                     double              width,
                     double              height,
                     gpointer            data)
{
  g_autoptr(HrCurveChartLayout) layout = hr_curve_chart_layout (data, style, context, width,
                                                                height);

  hr_curve_chart_render (layout, data, style, cr);
}

char *
hr_curve_chart_summary (const HrCurveChartData *data)
{
  GString *summary;
  gboolean said_largest = FALSE;

  g_return_val_if_fail (data != NULL, NULL);

  summary = g_string_new (NULL);
  if (data->samples->len > 0)
    {
      const HrCurveSample *first = &g_array_index (data->samples, HrCurveSample, 0);
      const HrCurveSample *last = &g_array_index (data->samples, HrCurveSample,
                                                  data->samples->len - 1);
      g_autofree char *from = chart_bytes (data, first->bytes);
      g_autofree char *to = chart_bytes (data, last->bytes);

      if (data->samples->len == 1)
        g_string_append_printf (summary, _("Peak memory is %s at micro-batch %.0f."),
                                from, first->batch);
      else
        g_string_append_printf (summary,
                                last->bytes > first->bytes
                                  ? _("Peak memory grows from %s at micro-batch %.0f to %s at "
                                      "%.0f.")
                                  : _("Peak memory goes from %s at micro-batch %.0f to %s at "
                                      "%.0f."),
                                from, first->batch, to, last->batch);
    }
  else
    g_string_append (summary, _("No predicted peak memory."));

  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);
      g_autofree char *usable = chart_bytes (data, gpu->usable);

      g_string_append_printf (summary, i == 0 ? _(" On %s (%s usable)") : _("; on %s (%s usable)"),
                              gpu->label, usable);
      if (gpu->max_micro_batch == 0)
        g_string_append (summary, _(" not even micro-batch 1 fits"));
      else
        {
          if (said_largest)
            g_string_append_printf (summary,
                                    gpu->max_is_lower_bound ? _(" it is at least %u")
                                                            : _(" it is %u"),
                                    gpu->max_micro_batch);
          else
            g_string_append_printf (summary,
                                    gpu->max_is_lower_bound
                                      ? _(" the largest micro-batch that fits is at least %u")
                                      : _(" the largest micro-batch that fits is %u"),
                                    gpu->max_micro_batch);
          said_largest = TRUE;
        }
    }
  if (data->gpus->len > 0)
    g_string_append_c (summary, '.');

  if (data->measured->len > 0)
    g_string_append_printf (summary, g_dngettext (GETTEXT_PACKAGE, " %u measured point: %s.",
                                                  " %u measured points: %s.",
                                                  data->measured->len),
                            data->measured->len,
                            data->measured_label != NULL ? data->measured_label : _("measured"));
  if (data->has_fit_line)
    g_string_append_printf (summary, _(" Fitted line, %s."),
                            data->fit_label != NULL ? data->fit_label : _("fit"));
  /* what is derived, calibrated, assumed and measured, as the chart says */
  if (data->note != NULL && data->note[0] != '\0')
    g_string_append_printf (summary, " %s", data->note);

  return g_string_free (summary, FALSE);
}

char *
hr_curve_chart_describe_at (const HrCurveChartLayout *layout,
                            const HrCurveChartData   *data,
                            double                    x,
                            double                    y)
{
  double best = G_MAXDOUBLE;
  int best_i = -1;

  g_return_val_if_fail (layout != NULL && data != NULL, NULL);

  /* A card's names at the end of its line, or its marker: the cards on
   * that line, their memory and largest batch. */
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);

      if (hr_rect_contains (&line->label.box, x, y) || hr_rect_contains (&line->detail.box, x, y) ||
          hr_rect_contains (&line->swatch, x, y) ||
          (line->has_marker && hypot (line->marker.x - x, line->marker.y - y) <= 8))
        {
          GString *text = g_string_new (NULL);

          for (guint k = 0; k < line->gpus->len; k++)
            {
              const HrCurveGpu *gpu = g_ptr_array_index (data->gpus,
                                                         g_array_index (line->gpus, guint, k));
              g_autofree char *usable = tooltip_bytes (data, gpu->usable);

              if (k > 0)
                g_string_append (text, "; ");
              if (gpu->max_micro_batch == 0)
                g_string_append_printf (text, _("%s: %s usable, not even micro-batch 1 fits"),
                                        gpu->label, usable);
              else
                g_string_append_printf (text, gpu->max_is_lower_bound
                                                ? _("%s: %s usable, micro-batch %u or more fits")
                                                : _("%s: %s usable, micro-batch up to %u fits"),
                                        gpu->label, usable, gpu->max_micro_batch);
            }
          return g_string_free (text, FALSE);
        }
    }

  if (x < layout->plot.x - 8 || x > layout->plot.x + layout->plot.width + 8
      || y < layout->plot.y - 8 || y > layout->plot.y + layout->plot.height + 8)
    return NULL;

  /* Measured points first: they are what the user came to compare. */
  for (guint i = 0; i < data->measured->len; i++)
    {
      const HrCurvePoint *p = &g_array_index (data->measured, HrCurvePoint, i);
      double px = hr_curve_chart_x_position (layout, p->batch);
      double py = hr_curve_chart_y_position (layout, p->bytes);

      if (hypot (px - x, py - y) <= 8)
        {
          g_autofree char *amount = tooltip_bytes (data, p->bytes);

          return g_strdup_printf (_("Measured: micro-batch %.0f, %s"), p->batch, amount);
        }
    }

  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *s = &g_array_index (data->samples, HrCurveSample, i);
      double d = fabs (hr_curve_chart_x_position (layout, s->batch) - x);

      if (d < best)
        {
          best = d;
          best_i = i;
        }
    }

  if (best_i >= 0 && best <= 24)
    {
      const HrCurveSample *s = &g_array_index (data->samples, HrCurveSample, best_i);
      g_autofree char *amount = tooltip_bytes (data, s->bytes);
      g_autofree char *low = tooltip_bytes (data, s->low);
      g_autofree char *high = tooltip_bytes (data, s->high);

      return g_strdup_printf (_("Micro-batch %.0f: peak %s (range %s to %s)"), s->batch, amount,
                              low, high);
    }
  return NULL;
}
