/* hr-chart-curve.c: predicted peak memory versus micro-batch
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <math.h>

#include "hr-chart-curve.h"
#include "hr-fit.h"
#include "hr-snapshot.h"
#include "hr-chart-text.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* Room around things, in logical pixels */
#define TICK_LENGTH     4.0
#define TICK_LABEL_GAP  3.0
#define TICK_SPACING   12.0    /* least room between two x tick labels */
#define LINE_LABEL_GAP  3.0    /* between a card's line and its name */
#define LABEL_INSET     6.0    /* between the plot's edge and a card's name */
#define MARKER_GAP      7.0
#define MARKER_RADIUS   4.5
#define POINT_RADIUS    4.0
#define SWATCH_WIDTH   18.0
#define SWATCH_GAP      5.0
#define LEGEND_SPACING 16.0
#define HALO            2.0

/* The y axis goes that far above the highest curve or card */
#define HEADROOM 1.08

/* What it costs a label to sit somewhere; the cheapest place wins */
#define COST_FORBIDDEN 1e6     /* on another label, or outside the plot */
#define COST_ON_CURVE  1000.0
#define COST_ON_POINT  200.0
#define COST_ON_LINE   100.0   /* crossing a card's line, or one between */
#define COST_OUT_OF_ORDER 100.0  /* a lower card's name above a higher one's */
#define COST_PER_STEP  12.0    /* each nudge away from the anchor */
#define COST_PER_MARKER_STEP 40.0  /* "max 16" is lost away from its dot */
#define COST_ON_BAND    8.0    /* readable there: labels have a halo */

typedef enum {
  LEGEND_PREDICTION,
  LEGEND_RANGE,
  LEGEND_MEASURED,
  LEGEND_FIT,
} LegendEntry;

static void
curve_gpu_free (HrCurveGpu *gpu)
{
  g_free (gpu->label);
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
                             guint                at_batch,
                             const char          *differing);

void
hr_curve_chart_data_add_measurement (HrCurveChartData    *data,
                                     const HrMeasurement *measurement,
                                     guint                at_batch)
{
  add_measurement (data, measurement, at_batch, NULL);
}

void
hr_curve_chart_data_add_foreign_measurement (HrCurveChartData    *data,
                                             const HrMeasurement *measurement,
                                             guint                at_batch,
                                             const char          *differing)
{
  add_measurement (data, measurement, at_batch, differing != NULL ? differing : "");
}

static void
add_measurement (HrCurveChartData    *data,
                 const HrMeasurement *measurement,
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

  if (sweep != NULL)
    {
      g_autoptr(HrFit) fit = hr_fit_series (sweep, NULL);

      if (fit != NULL)
        {
          g_autofree char *floor_text = hr_chart_format_bytes (fit->floor);
          g_autofree char *slope = hr_chart_format_bytes (fit->per_sample);
          g_autofree char *fit_label = g_strdup_printf (_("fit: %s + %s·b (R² %.3f)"),
                                                        floor_text, slope, fit->r2);

          hr_curve_chart_data_set_fit_line (data, fit->floor, fit->per_sample, fit_label);
        }
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
        hr_curve_chart_data_add_foreign_measurement (data, m->measurement,
                                                     scenario->micro_batch,
                                                     m->match->differing);
      else
        hr_curve_chart_data_add_measurement (data, m->measurement, scenario->micro_batch);
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
  static const char * const reference[] = { "rtx-4090", "a100-80gb", "h100-sxm" };

  g_return_if_fail (gpus != NULL);
  g_return_if_fail (catalog != NULL);

  for (guint i = 0; i < G_N_ELEMENTS (reference); i++)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (catalog, reference[i]);
      gboolean present = FALSE;

      for (guint j = 0; j < gpus->len && gpu != NULL; j++)
        present |= g_str_equal (((const HrGpu *) g_ptr_array_index (gpus, j))->id, gpu->id);

      if (gpu != NULL && !present)
        g_ptr_array_add (gpus, (gpointer) gpu);
    }
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
  hr_chart_label_clear (&line->marker_label);
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
  g_free (layout);
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

/* A label of @text on one line, no wider than @max_width. */
static HrChartLabel
line_label_new (PangoContext       *context,
                const HrChartStyle *style,
                const char         *text,
                HrChartFont         font,
                HrChartTextRole     role,
                double              max_width,
                double              x,
                double              y)
{
  return hr_chart_label_new (context, style,
                             hr_chart_text_ellipsize (context, style, font, text, "", max_width),
                             font, role, HR_ALIGN_START, 0, x, y);
}

static void
keep_inside (HrRect       *box,
             const HrRect *bounds)
{
  box->x = CLAMP (box->x, bounds->x, bounds->x + bounds->width - box->width);
}

static guint
legend_entries (const HrCurveChartData *data,
                LegendEntry             entries[4])
{
  guint n = 0;

  entries[n++] = LEGEND_PREDICTION;
  entries[n++] = LEGEND_RANGE;
  if (data->measured->len > 0)
    entries[n++] = LEGEND_MEASURED;
  if (data->has_fit_line)
    entries[n++] = LEGEND_FIT;
  return n;
}

static const char *
legend_text (const HrCurveChartData *data,
             LegendEntry             entry)
{
  switch (entry)
    {
    case LEGEND_PREDICTION:
      return _("prediction");
    case LEGEND_RANGE:
      return _("range");
    case LEGEND_MEASURED:
      return data->measured_label != NULL ? data->measured_label : _("measured");
    case LEGEND_FIT:
      return data->fit_label != NULL ? data->fit_label : _("fit");
    default:
      g_assert_not_reached ();
    }
}

static void
make_legend (const HrCurveChartData *data,
             const HrChartStyle     *style,
             PangoContext           *context,
             double                  width,
             GArray                 *legend)
{
  LegendEntry entries[4];
  guint n = legend_entries (data, entries);

  for (guint i = 0; i < n; i++)
    {
      HrChartLabel label = line_label_new (context, style, legend_text (data, entries[i]),
                                           HR_CHART_FONT_BODY, HR_TEXT_MUTED,
                                           width - SWATCH_WIDTH - SWATCH_GAP, 0, 0);

      g_array_append_val (legend, label);
    }
}

/* The legend on one row: each entry is a swatch, then its label. */
static double
legend_width (const GArray *legend)
{
  double width = 0;

  for (guint i = 0; i < legend->len; i++)
    width += (i > 0 ? LEGEND_SPACING : 0) + SWATCH_WIDTH + SWATCH_GAP +
             g_array_index (legend, HrChartLabel, i).box.width;
  return width;
}

/* Puts the legend in rows from @y, each ending at @right and no wider
 * than @width (one row, nearly always); returns the height taken. */
static double
flow_legend (GArray *legend,
             double  right,
             double  y,
             double  width)
{
  double taken = 0;
  guint row_start = 0;

  while (row_start < legend->len)
    {
      double x = 0, row_height = 0;
      guint row_end = row_start;

      for (; row_end < legend->len; row_end++)
        {
          HrChartLabel *label = &g_array_index (legend, HrChartLabel, row_end);
          double start = row_end > row_start ? x + LEGEND_SPACING : x;

          if (row_end > row_start && start + SWATCH_WIDTH + SWATCH_GAP + label->box.width > width)
            break;
          label->box.x = start + SWATCH_WIDTH + SWATCH_GAP;
          label->box.y = y + taken;
          x = label->box.x + label->box.width;
          row_height = MAX (row_height, label->box.height);
        }
      for (guint i = row_start; i < row_end; i++)
        g_array_index (legend, HrChartLabel, i).box.x += right - x;
      taken += row_height;
      row_start = row_end;
    }

  return taken;
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

static void
layout_y_ticks (HrCurveChartLayout     *layout,
                const HrCurveChartData *data,
                const HrChartStyle     *style,
                PangoContext           *context)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  double highest = 0, top, step, rounded;
  guint target;
  int decimals;

  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *sample = &g_array_index (data->samples, HrCurveSample, i);

      highest = MAX (highest, MAX (sample->bytes, sample->high));
    }
  for (guint i = 0; i < data->gpus->len; i++)
    highest = MAX (highest, ((HrCurveGpu *) g_ptr_array_index (data->gpus, i))->usable);
  for (guint i = 0; i < data->measured->len; i++)
    highest = MAX (highest, g_array_index (data->measured, HrCurvePoint, i).bytes);

  /* Every card stays in view, so the eye sees where the curve leaves it;
   * the axis ends on a tick unless that would waste much of the plot. */
  top = (highest > 0 ? highest : GiB) * HEADROOM / GiB;
  target = CLAMP ((guint) (layout->plot.height / 48), 3, 10);
  step = hr_nice_ticks (0, top, target, values);
  rounded = ceil (top / step - 1e-9) * step;
  decimals = step_decimals (step);

  layout->y_min = 0;
  layout->y_max = (rounded <= top * 1.15 ? rounded : top) * GiB;
  for (guint k = 0; k * step * GiB <= layout->y_max * (1 + 1e-9); k++)
    {
      HrAxisTick tick = { 0 };

      tick.value = k * step * GiB;
      tick.label = hr_chart_label_new (context, style, g_strdup_printf ("%.*f", decimals, k * step),
                                       HR_CHART_FONT_SMALL, HR_TEXT_MUTED, HR_ALIGN_END, 0, 0, 0);
      g_array_append_val (layout->y_ticks, tick);
    }
}

static void
x_range (HrCurveChartLayout     *layout,
         const HrCurveChartData *data)
{
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;

  for (guint i = 0; i < data->samples->len; i++)
    {
      double batch = g_array_index (data->samples, HrCurveSample, i).batch;

      lo = MIN (lo, batch);
      hi = MAX (hi, batch);
    }
  for (guint i = 0; i < data->measured->len; i++)
    {
      double batch = g_array_index (data->measured, HrCurvePoint, i).batch;

      lo = MIN (lo, batch);
      hi = MAX (hi, batch);
    }

  if (lo > hi)
    lo = hi = 1;
  if (layout->log2_x && lo <= 0)
    lo = 1;
  if (hi <= lo)
    hi = layout->log2_x ? lo * 2 : lo + 1;
  layout->x_min = lo;
  layout->x_max = hi;
}

static void
add_x_tick (HrCurveChartLayout *layout,
            const HrChartStyle *style,
            PangoContext       *context,
            double              value)
{
  HrAxisTick tick = { 0 };

  tick.value = value;
  tick.position = hr_curve_chart_x_position (layout, value);
  tick.label = hr_chart_label_new (context, style, g_strdup_printf ("%.0f", value),
                                   HR_CHART_FONT_SMALL, HR_TEXT_MUTED, HR_ALIGN_CENTER, 0,
                                   tick.position,
                                   layout->plot.y + layout->plot.height + TICK_LENGTH +
                                   TICK_LABEL_GAP);
  keep_inside (&tick.label.box, &layout->bounds);
  g_array_append_val (layout->x_ticks, tick);
}

static gboolean
x_ticks_crowded (const HrCurveChartLayout *layout)
{
  for (guint i = 1; i < layout->x_ticks->len; i++)
    {
      const HrRect *a = &g_array_index (layout->x_ticks, HrAxisTick, i - 1).label.box;
      const HrRect *b = &g_array_index (layout->x_ticks, HrAxisTick, i).label.box;

      if (b->x - (a->x + a->width) < TICK_SPACING)
        return TRUE;
    }
  return FALSE;
}

/* Nice values on a linear axis, powers of two on a log2 one; fewer until
 * their labels have room. */
static void
layout_x_ticks (HrCurveChartLayout *layout,
                const HrChartStyle *style,
                PangoContext       *context)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  int first_exponent = (int) ceil (log2 (layout->x_min) - 1e-9);
  int last_exponent = (int) floor (log2 (layout->x_max) + 1e-9);
  /* a batch is whole: steps of at least one */
  guint target = (guint) MIN (layout->plot.width / 72, floor (layout->x_max - layout->x_min));

  for (guint stride = 1;; stride *= 2)
    {
      g_array_set_size (layout->x_ticks, 0);
      if (layout->log2_x)
        {
          for (int e = first_exponent; e <= last_exponent; e += stride)
            add_x_tick (layout, style, context, exp2 (e));
        }
      else
        {
          hr_nice_ticks (layout->x_min, layout->x_max, MAX (1, target / stride), values);
          for (guint i = 0; i < values->len; i++)
            add_x_tick (layout, style, context, g_array_index (values, double, i));
        }
      if (!x_ticks_crowded (layout) || layout->x_ticks->len <= 2 ||
          (!layout->log2_x && target / stride <= 2))
        break;
    }
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

          if (i == 0 && b->x > x)
            return FALSE;
          *y = b->x > a->x ? a->y + (b->y - a->y) * (x - a->x) / (b->x - a->x) : b->y;
          return TRUE;
        }
    }
  return FALSE;
}

/* Widens [*top, *bottom] to the polyline's y over [x_start, x_end]. */
static void
polyline_span (const GArray *points,
               double        x_start,
               double        x_end,
               double       *top,
               double       *bottom)
{
  double y;

  for (guint i = 0; i < points->len; i++)
    {
      const HrPoint *p = &g_array_index (points, HrPoint, i);

      if (p->x >= x_start && p->x <= x_end)
        {
          *top = MIN (*top, p->y);
          *bottom = MAX (*bottom, p->y);
        }
    }
  if (polyline_y_at (points, x_start, &y))
    {
      *top = MIN (*top, y);
      *bottom = MAX (*bottom, y);
    }
  if (polyline_y_at (points, x_end, &y))
    {
      *top = MIN (*top, y);
      *bottom = MAX (*bottom, y);
    }
}

static gboolean
span_crosses (const HrRect *box,
              double        top,
              double        bottom)
{
  return top <= bottom && box->y < bottom && top < box->y + box->height;
}

/* Where labels may go: the plot, and the room between the x axis and its
 * tick labels (at a price: that crosses the axis). */
static HrRect
label_area (const HrCurveChartLayout *layout)
{
  HrRect area = layout->plot;

  area.height += TICK_LENGTH + TICK_LABEL_GAP - 1;
  return area;
}

/* @anchor_y is where the label points: its card's line or its marker;
 * another card's line in between would make it read as that card's. */
static double
spot_cost (const HrCurveChartLayout *layout,
           const GArray             *placed,
           const HrRect             *box,
           double                    anchor_y)
{
  const HrRect *plot = &layout->plot;
  HrRect area = label_area (layout);
  double cost = 0, top = G_MAXDOUBLE, bottom = -G_MAXDOUBLE;

  if (!hr_rect_inside (box, &area, 0))
    cost += COST_FORBIDDEN;
  else if (box->y + box->height > plot->y + plot->height)
    cost += COST_ON_LINE;
  for (guint i = 0; i < placed->len; i++)
    {
      const HrRect *other = &g_array_index (placed, HrRect, i);
      HrRect apart = {
        other->x - HALO, other->y - HALO, other->width + 2 * HALO, other->height + 2 * HALO,
      };

      if (hr_rect_intersects (box, &apart))
        cost += COST_FORBIDDEN;
    }

  polyline_span (layout->curve, box->x, box->x + box->width, &top, &bottom);
  if (span_crosses (box, top - HALO, bottom + HALO))
    cost += COST_ON_CURVE;
  polyline_span (layout->band_high, box->x, box->x + box->width, &top, &bottom);
  polyline_span (layout->band_low, box->x, box->x + box->width, &top, &bottom);
  if (span_crosses (box, top, bottom))
    cost += COST_ON_BAND;

  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      double y = g_array_index (layout->gpu_lines, HrCurveGpuLine, i).y;

      if (y > box->y - HALO && y < box->y + box->height + HALO)
        cost += COST_ON_LINE;
      else if ((y > box->y + box->height && y < anchor_y) || (y < box->y && y > anchor_y))
        cost += COST_ON_LINE;
    }
  for (guint i = 0; i < layout->measured->len; i++)
    {
      const HrPoint *p = &g_array_index (layout->measured, HrPoint, i);
      HrRect dot = { p->x - POINT_RADIUS, p->y - POINT_RADIUS, 2 * POINT_RADIUS, 2 * POINT_RADIUS };

      if (hr_rect_intersects (box, &dot))
        cost += COST_ON_POINT;
    }
  return cost;
}

/* A card's name sits just above or below its line, at the right end when
 * nothing is in the way, else at the left end, else nudged away from it;
 * @order holds the lines from the top, those before @index placed, and a
 * nudged name keeps its line's place among them. */
static void
place_gpu_label (const HrCurveChartLayout *layout,
                 GArray                   *placed,
                 GPtrArray                *order,
                 guint                     index)
{
  HrCurveGpuLine *line = g_ptr_array_index (order, index);
  const HrRect *plot = &layout->plot;
  HrRect area = label_area (layout);
  double w = line->label.box.width, h = line->label.box.height;
  double best = G_MAXDOUBLE;

  for (guint side = 0; side < 2; side++)
    for (guint step = 0; step < 8; step++)
      for (guint below = 0; below < 2; below++)
        {
          HrRect box = {
            side == 0 ? plot->x + plot->width - LABEL_INSET - w : plot->x + LABEL_INSET,
            below ? line->y + LINE_LABEL_GAP + step * (h + HALO)
                  : line->y - LINE_LABEL_GAP - h - step * (h + HALO),
            w, h,
          };
          double cost;

          /* low down, a name may hug its line rather than leave it */
          if (below)
            box.y = MAX (line->y + 1, MIN (box.y, area.y + area.height - h));
          /* on a tie, right before left and above before below */
          cost = spot_cost (layout, placed, &box, line->y) + step * COST_PER_STEP +
                 side * 6 + below * 2;

          for (guint i = 0; i < index; i++)
            {
              const HrCurveGpuLine *higher = g_ptr_array_index (order, i);
              const HrRect *other = &higher->label.box;

              if (higher->y < line->y && box.y < other->y &&
                  box.x < other->x + other->width && other->x < box.x + box.width)
                cost += COST_OUT_OF_ORDER;
            }

          if (cost < best)
            {
              best = cost;
              line->label.box = box;
            }
        }
  g_array_append_val (placed, line->label.box);
}

/* "max 16" goes beside its marker, where the curve is not: below right of
 * a rising curve, else above left, else further away. */
static void
place_marker_label (const HrCurveChartLayout *layout,
                    GArray                   *placed,
                    HrCurveGpuLine           *line)
{
  const HrPoint *m = &line->marker;
  double w = line->marker_label.box.width, h = line->marker_label.box.height;
  double best = G_MAXDOUBLE;

  for (guint step = 0; step < 5; step++)
    for (guint spot = 0; spot < 4; spot++)
      {
        gboolean right = spot == 0 || spot == 3;
        gboolean below = spot == 0 || spot == 2;
        HrRect box = {
          right ? m->x + MARKER_GAP : m->x - MARKER_GAP - w,
          below ? m->y + MARKER_GAP / 2 + step * (h + HALO)
                : m->y - MARKER_GAP / 2 - h - step * (h + HALO),
          w, h,
        };
        double cost = spot_cost (layout, placed, &box, m->y) + step * COST_PER_MARKER_STEP +
                      spot * 3;

        if (cost < best)
          {
            best = cost;
            line->marker_label.box = box;
          }
      }
  g_array_append_val (placed, line->marker_label.box);
}

static int
compare_line_y (gconstpointer a,
                gconstpointer b)
{
  const HrCurveGpuLine *line_a = *(const HrCurveGpuLine * const *) a;
  const HrCurveGpuLine *line_b = *(const HrCurveGpuLine * const *) b;

  return (line_a->y > line_b->y) - (line_a->y < line_b->y);
}

static char *
max_batch_text (const HrCurveGpu *gpu)
{
  return g_strdup_printf (gpu->max_is_lower_bound ? _("max ≥ %u") : _("max %u"),
                          gpu->max_micro_batch);
}

static void
layout_gpu_lines (HrCurveChartLayout     *layout,
                  const HrCurveChartData *data,
                  const HrChartStyle     *style,
                  PangoContext           *context)
{
  g_autoptr(GArray) placed = g_array_new (FALSE, FALSE, sizeof (HrRect));
  g_autoptr(GPtrArray) order = NULL;
  const HrRect *plot = &layout->plot;
  double max_width = MIN (plot->width * 0.6, plot->width - 2 * LABEL_INSET);

  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);
      HrCurveGpuLine line = { 0 };
      g_autofree char *usable = hr_chart_format_bytes (gpu->usable);
      g_autofree char *suffix = NULL;

      line.y = hr_curve_chart_y_position (layout, gpu->usable);
      line.x_start = plot->x;
      line.x_end = plot->x + plot->width;
      line.color_index = i % G_N_ELEMENTS (style->series);
      line.has_marker = gpu->max_micro_batch > 0 && gpu->max_micro_batch >= layout->x_min &&
                        gpu->max_micro_batch <= layout->x_max;

      /* The marker says the largest batch; where there is none, the name does. */
      if (line.has_marker)
        {
          HrRect dot;

          line.marker.x = hr_curve_chart_x_position (layout, gpu->max_micro_batch);
          if (!polyline_y_at (layout->curve, line.marker.x, &line.marker.y))
            line.marker.y = line.y;
          line.marker_label = hr_chart_label_new (context, style, max_batch_text (gpu),
                                                  HR_CHART_FONT_SMALL,
                                                  HR_TEXT_FOREGROUND, HR_ALIGN_START, 0, 0, 0);
          dot = (HrRect) { line.marker.x - MARKER_RADIUS, line.marker.y - MARKER_RADIUS,
                           2 * MARKER_RADIUS, 2 * MARKER_RADIUS };
          g_array_append_val (placed, dot);
          suffix = g_strdup_printf (_(" · %s usable"), usable);
        }
      else if (gpu->max_micro_batch == 0)
        suffix = g_strdup_printf (_(" · %s usable · nothing fits"), usable);
      else
        {
          g_autofree char *max = max_batch_text (gpu);

          suffix = g_strdup_printf (_(" · %s usable · %s"), usable, max);
        }

      line.label = hr_chart_label_new (context, style,
                                       hr_chart_text_ellipsize (context, style, HR_CHART_FONT_BODY,
                                                                gpu->label, suffix, max_width),
                                       HR_CHART_FONT_BODY, HR_TEXT_FOREGROUND, HR_ALIGN_START, 0,
                                       0, 0);
      g_array_append_val (layout->gpu_lines, line);
    }

  /* Top line first: close lines then stack their names in their order. */
  order = g_ptr_array_sized_new (layout->gpu_lines->len);
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    g_ptr_array_add (order, &g_array_index (layout->gpu_lines, HrCurveGpuLine, i));
  g_ptr_array_sort (order, compare_line_y);
  for (guint i = 0; i < order->len; i++)
    place_gpu_label (layout, placed, order, i);
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);

      if (line->has_marker)
        place_marker_label (layout, placed, line);
    }
}

/* The fitted line over the x range, cut where it leaves the y range. */
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

static void
layout_fit_line (HrCurveChartLayout     *layout,
                 const HrCurveChartData *data)
{
  double start = layout->x_min, end = layout->x_max;
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

HrCurveChartLayout *
hr_curve_chart_layout (const HrCurveChartData *data,
                       const HrChartStyle     *style,
                       PangoContext           *context,
                       double                  width,
                       double                  height)
{
  HrCurveChartLayout *layout;
  g_autoptr(GArray) legend = NULL;
  HrChartLabel title, x_title, y_title;
  double pad, inner, y, tick_height, bottom, y_label_width = 0;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (style != NULL, NULL);
  g_return_val_if_fail (PANGO_IS_CONTEXT (context), NULL);

  layout = g_new0 (HrCurveChartLayout, 1);
  layout->bounds = (HrRect) { 0, 0, width, height };
  layout->log2_x = data->log2_x;
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
  legend = g_array_new (FALSE, TRUE, sizeof (HrChartLabel));

  pad = CLAMP (MIN (width, height) * 0.04, 12.0, 28.0);
  inner = MAX (width - 2 * pad, 1);

  /* From the top: title, subtitle, then the y axis's title with the
   * legend at the right (above it when both do not fit on one row). */
  y = pad;
  title = line_label_new (context, style, data->title != NULL ? data->title : "",
                          HR_CHART_FONT_TITLE, HR_TEXT_FOREGROUND, inner, pad, y);
  g_array_append_val (layout->labels, title);
  y += title.box.height;
  if (data->subtitle != NULL && data->subtitle[0] != '\0')
    {
      HrChartLabel subtitle = line_label_new (context, style, data->subtitle, HR_CHART_FONT_BODY,
                                              HR_TEXT_MUTED, inner, pad, y + 2);

      g_array_append_val (layout->labels, subtitle);
      y = subtitle.box.y + subtitle.box.height;
    }
  y += 14;

  y_title = hr_chart_label_new (context, style, g_strdup (_("Peak memory (GiB)")),
                                HR_CHART_FONT_BODY,
                                HR_TEXT_MUTED, HR_ALIGN_START, 0, pad, y);
  make_legend (data, style, context, inner, legend);
  if (y_title.box.width + 2 * LEGEND_SPACING + legend_width (legend) <= inner)
    flow_legend (legend, pad + inner, y, inner);
  else
    {
      y += flow_legend (legend, pad + inner, y, inner) + 4;
      y_title.box.y = y;
    }
  y += y_title.box.height;

  /* From the bottom: the x axis's title, then its tick labels. */
  x_title = hr_chart_label_new (context, style,
                                g_strdup (data->log2_x ? _("Micro-batch (log₂ scale)")
                                                       : _("Micro-batch")),
                                HR_CHART_FONT_BODY, HR_TEXT_MUTED, HR_ALIGN_CENTER, 0, 0, 0);
  hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, "0", 0, NULL, &tick_height);
  bottom = height - pad - x_title.box.height - 6 - tick_height - TICK_LABEL_GAP - TICK_LENGTH;

  /* The top tick's label is centred on the plot's top edge. */
  layout->plot.y = y + tick_height / 2 + 6;
  layout->plot.height = MAX (bottom - layout->plot.y, 1);

  layout_y_ticks (layout, data, style, context);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    {
      const HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);

      y_label_width = MAX (y_label_width, tick->label.box.width);
    }
  layout->plot.x = pad + y_label_width + 8;
  layout->plot.width = MAX (width - pad - layout->plot.x, 1);

  for (guint i = 0; i < layout->y_ticks->len; i++)
    {
      HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);

      tick->position = hr_curve_chart_y_position (layout, tick->value);
      tick->label.box.x = layout->plot.x - 8 - tick->label.box.width;
      tick->label.box.y = tick->position - tick->label.box.height / 2;
    }

  x_range (layout, data);
  layout_x_ticks (layout, style, context);
  hr_chart_label_place (context, style, &x_title, layout->plot.x + layout->plot.width / 2,
                        height - pad - x_title.box.height);
  keep_inside (&x_title.box, &layout->bounds);
  g_array_append_val (layout->labels, x_title);
  g_array_append_val (layout->labels, y_title);
  /* @legend frees nothing: its labels' text moves to the layout */
  g_array_append_vals (layout->labels, legend->data, legend->len);

  layout_curve (layout, data);
  layout_measured (layout, data);
  layout_fit_line (layout, data);
  layout_gpu_lines (layout, data, style, context);

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
      cairo_line_to (cr, x, baseline + TICK_LENGTH);
    }
  cairo_stroke (cr);

  for (guint i = 0; i < layout->x_ticks->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->x_ticks, HrAxisTick, i).label, NULL);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->y_ticks, HrAxisTick, i).label, NULL);
}

static void
draw_curve (const HrCurveChartLayout *layout,
            const HrChartStyle       *style,
            cairo_t                  *cr)
{
  if (layout->curve->len == 0)
    return;

  /* drawing text leaves a current point behind */
  cairo_new_path (cr);
  polyline_path (cr, layout->band_high, FALSE);
  polyline_path (cr, layout->band_low, TRUE);
  cairo_close_path (cr);
  hr_chart_set_color (cr, &style->band);
  cairo_fill (cr);

  polyline_path (cr, layout->curve, FALSE);
  cairo_set_line_width (cr, style->line_width);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  hr_chart_set_color (cr, curve_color (style));
  cairo_stroke (cr);
}

static void
draw_gpu_lines (const HrCurveChartLayout *layout,
                const HrChartStyle       *style,
                cairo_t                  *cr)
{
  static const double dashes[] = { 7.0, 4.0 };

  cairo_save (cr);
  cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  cairo_set_line_width (cr, style->line_width * 0.75);
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);

      hr_chart_set_color (cr, &style->series[line->color_index]);
      cairo_move_to (cr, line->x_start, line->y);
      cairo_line_to (cr, line->x_end, line->y);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

static void
draw_fit_line (const HrCurveChartLayout *layout,
               const HrChartStyle       *style,
               cairo_t                  *cr)
{
  static const double dashes[] = { 2.0, 3.0 };

  if (!layout->has_fit_line)
    return;

  cairo_save (cr);
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
  double half = POINT_RADIUS * 0.89, tri = POINT_RADIUS * 1.35;

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
    cairo_arc (cr, x, y, POINT_RADIUS, 0, 2 * G_PI);
  hr_chart_set_color (cr, &style->background);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, 1.5);
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

      if (!line->has_marker)
        continue;
      cairo_new_sub_path (cr);
      cairo_arc (cr, line->marker.x, line->marker.y, MARKER_RADIUS, 0, 2 * G_PI);
      hr_chart_set_color (cr, &style->series[line->color_index]);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, 1.5);
      hr_chart_set_color (cr, &style->background);
      cairo_stroke (cr);
    }
}

/* Text over lines keeps a little of the background around it. */
/* A card's name in its line's hue, darkened (or lightened) towards the
 * text colour until it reads as text (WCAG's 4.5:1). */
static HrRgba
line_text_color (const HrChartStyle *style,
                 const HrRgba       *line)
{
  HrRgba color = *line;

  for (double t = 0.2; t <= 1.0 && hr_rgba_contrast (&color, &style->background) < 4.5; t += 0.2)
    color = hr_rgba_mix (line, &style->foreground, t);
  color.alpha = 1;
  return color;
}

static void
draw_swatch (cairo_t                  *cr,
             const HrChartStyle       *style,
             LegendEntry               entry,
             const HrRect             *box)
{
  static const double fit_dashes[] = { 2.0, 3.0 };
  double x = box->x - SWATCH_GAP - SWATCH_WIDTH, y = box->y + box->height / 2;

  cairo_save (cr);
  switch (entry)
    {
    case LEGEND_PREDICTION:
      cairo_move_to (cr, x, y);
      cairo_line_to (cr, x + SWATCH_WIDTH, y);
      cairo_set_line_width (cr, style->line_width);
      hr_chart_set_color (cr, curve_color (style));
      cairo_stroke (cr);
      break;
    case LEGEND_RANGE:
      cairo_rectangle (cr, x, y - 5, SWATCH_WIDTH, 10);
      hr_chart_set_color (cr, &style->band);
      cairo_fill (cr);
      break;
    case LEGEND_MEASURED:
      draw_point (cr, style, x + SWATCH_WIDTH / 2, y, HR_METRIC_ALLOCATED, FALSE);
      break;
    case LEGEND_FIT:
      cairo_set_dash (cr, fit_dashes, G_N_ELEMENTS (fit_dashes), 0);
      cairo_move_to (cr, x, y);
      cairo_line_to (cr, x + SWATCH_WIDTH, y);
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
                       const HrChartStyle       *style,
                       cairo_t                  *cr)
{
  LegendEntry entries[4];
  guint n_legend, first_legend;

  g_return_if_fail (layout != NULL);
  g_return_if_fail (data != NULL);
  g_return_if_fail (style != NULL);
  g_return_if_fail (cr != NULL);

  /* The legend's labels come last, in legend_entries()'s order. */
  n_legend = legend_entries (data, entries);
  g_return_if_fail (layout->labels->len >= n_legend);
  first_legend = layout->labels->len - n_legend;

  cairo_save (cr);
  hr_chart_prepare_cairo (cr);
  hr_chart_paint_background (cr, style, layout->bounds.width, layout->bounds.height);

  draw_axes (layout, style, cr);
  draw_curve (layout, style, cr);
  draw_gpu_lines (layout, style, cr);
  draw_fit_line (layout, style, cr);
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

  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);
      HrRgba color = line_text_color (style, &style->series[line->color_index]);

      hr_chart_draw_label_halo (cr, style, &line->label);
      hr_chart_draw_text (cr, style, line->label.font, &color, line->label.text,
                          line->label.box.x, line->label.box.y, 0, HR_ALIGN_START);
      if (line->has_marker)
        {
          hr_chart_draw_label_halo (cr, style, &line->marker_label);
          hr_chart_draw_label (cr, style, &line->marker_label, NULL);
        }
    }

  for (guint i = 0; i < layout->labels->len; i++)
    {
      const HrChartLabel *label = &g_array_index (layout->labels, HrChartLabel, i);

      if (i >= first_legend)
        draw_swatch (cr, style, entries[i - first_legend], &label->box);
      hr_chart_draw_label (cr, style, label, NULL);
    }

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
      g_autofree char *from = hr_chart_format_bytes (first->bytes);
      g_autofree char *to = hr_chart_format_bytes (last->bytes);

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
      g_autofree char *usable = hr_chart_format_bytes (gpu->usable);

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

  return g_string_free (summary, FALSE);
}

static char *
tooltip_gib (double bytes)
{
  return g_strdup_printf (_("%.2f GiB"), bytes / 1073741824.0);
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
          g_autofree char *amount = tooltip_gib (p->bytes);

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
      g_autofree char *amount = tooltip_gib (s->bytes);
      g_autofree char *low = tooltip_gib (s->low);
      g_autofree char *high = tooltip_gib (s->high);

      return g_strdup_printf (_("Micro-batch %.0f: peak %s (range %s to %s)"), s->batch, amount,
                              low, high);
    }
  return NULL;
}
