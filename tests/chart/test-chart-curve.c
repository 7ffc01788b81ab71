/* test-chart-curve.c: the peak-versus-batch chart's data, geometry and a
 * few pixels, without a display
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"
#include "hr-chart.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* data/examples/gr00t-n1.7-h100.json */
static const char gr00t_json[] =
  "{\"headroom_scenario\": 1, \"name\": \"GR00T N1.7 fine-tune\", \"model\": \"gr00t-n1.7\", "
  "\"task\": \"finetune\", \"method\": \"freeze\", \"micro_batch\": 32, \"compute\": "
  "\"bf16-mixed\", \"optimizer\": \"adamw\", \"gpu\": \"h100-sxm\"}";

static const char *const three_gpus[] = { "rtx-4090", "a100-40gb", "h100-sxm" };

static GPtrArray *
catalog_gpus (const char *const *ids,
              guint              n_ids)
{
  GPtrArray *gpus = g_ptr_array_new ();

  for (guint i = 0; i < n_ids; i++)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), ids[i]);

      g_assert_nonnull (gpu);
      g_ptr_array_add (gpus, (gpointer) gpu);
    }
  return gpus;
}

/* GR00T N1.7 from 1 to @to on an RTX 4090, an A100 40GB and an H100. */
static HrCurveChartData *
gr00t_data (guint    to,
            gboolean log2_x)
{
  g_autoptr(HrScenario) s = hr_test_scenario (gr00t_json);
  g_autoptr(GPtrArray) gpus = catalog_gpus (three_gpus, G_N_ELEMENTS (three_gpus));

  return hr_curve_chart_data_new_for_scenario (s, gpus, 1, to, log2_x);
}

/* A made-up straight curve, 8 GiB + 0.8 GiB per sample, batches 1 to 64,
 * without cards. */
static HrCurveChartData *
straight_data (void)
{
  HrCurveChartData *data = hr_curve_chart_data_new ();

  data->title = g_strdup ("Straight");
  for (guint b = 1; b <= 64; b++)
    {
      double bytes = (8 + 0.8 * b) * GiB;
      HrCurveSample sample = { b, bytes, bytes * 0.9, bytes * 1.15 };

      g_array_append_val (data->samples, sample);
    }
  return data;
}

/* The largest batch of straight_data() within @usable GiB. */
static guint
straight_max (double usable)
{
  return usable < 8.8 ? 0 : (guint) floor ((usable - 8) / 0.8 + 1e-9);
}

static void
add_straight_gpu (HrCurveChartData *data,
                  const char       *label,
                  double            usable)
{
  hr_curve_chart_data_add_gpu (data, label, usable / 0.9 * GiB, usable * GiB,
                               straight_max (usable), FALSE);
}

static HrCurveChartLayout *
layout_for (const HrCurveChartData *data,
            HrChartTheme            theme,
            double                  width,
            double                  height)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (theme);
  PangoContext *context = hr_chart_pango_context_new ();
  HrCurveChartLayout *layout = hr_curve_chart_layout (data, style, context, width, height);

  g_object_unref (context);
  return layout;
}

/* Every piece of text the layout places. */
static GPtrArray *
all_labels (const HrCurveChartLayout *layout)
{
  GPtrArray *labels = g_ptr_array_new ();

  hr_curve_chart_layout_collect_labels (layout, labels);
  return labels;
}

static gboolean
has_label (const HrCurveChartLayout *layout,
           const char               *text)
{
  g_autoptr(GPtrArray) labels = all_labels (layout);

  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (((HrChartLabel *) g_ptr_array_index (labels, i))->text, text) == 0)
      return TRUE;
  return FALSE;
}

/* The curve as drawn (straight between its points) at @x. */
static double
curve_y_at (const HrCurveChartLayout *layout,
            double                    x)
{
  for (guint i = 1; i < layout->curve->len; i++)
    {
      const HrPoint *a = &g_array_index (layout->curve, HrPoint, i - 1);
      const HrPoint *b = &g_array_index (layout->curve, HrPoint, i);

      if (x >= a->x && x <= b->x)
        return a->y + (b->y - a->y) * (x - a->x) / (b->x - a->x);
    }
  g_assert_not_reached ();
}

/* 1, 2, 2.5 or 5 times a power of ten, and every value a multiple of it. */
static void
assert_nice_ticks (const GArray *ticks,
                   double        unit)
{
  double step, mantissa, first;

  g_assert_cmpuint (ticks->len, >=, 2);
  first = g_array_index (ticks, HrAxisTick, 0).value / unit;
  step = g_array_index (ticks, HrAxisTick, 1).value / unit - first;
  mantissa = step / pow (10, floor (log10 (step) + 1e-9));
  g_assert_true (fabs (mantissa - 1) < 1e-6 || fabs (mantissa - 2) < 1e-6 ||
                 fabs (mantissa - 2.5) < 1e-6 || fabs (mantissa - 5) < 1e-6);

  for (guint i = 0; i < ticks->len; i++)
    {
      double ratio = g_array_index (ticks, HrAxisTick, i).value / unit / step;

      /* a multiple of the step, i steps after the first */
      g_assert_cmpfloat (fabs (ratio - round (ratio)), <, 1e-6);
      g_assert_cmpfloat (fabs (ratio - first / step - i), <, 1e-6);
    }
}

static void
test_data_for_scenario (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (gr00t_json);
  g_autoptr(GPtrArray) gpus = catalog_gpus (three_gpus, G_N_ELEMENTS (three_gpus));
  g_autoptr(HrCurveChartData) data = hr_curve_chart_data_new_for_scenario (s, gpus, 1, 64, FALSE);
  g_autoptr(GPtrArray) fits = hr_fit_gpus (s, gpus);

  g_assert_cmpstr (data->title, ==, "GR00T N1.7 fine-tune");
  g_assert_nonnull (strstr (data->subtitle, s->model->name));
  g_assert_nonnull (strstr (data->subtitle, "bf16-mixed"));
  g_assert_false (data->log2_x);

  /* every batch from 1 to 64: the peak the fit compares, inside its range */
  g_assert_cmpuint (data->samples->len, ==, 64);
  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *sample = &g_array_index (data->samples, HrCurveSample, i);

      g_assert_cmpfloat (sample->batch, ==, i + 1);
      g_assert_cmpfloat (sample->low, <=, sample->bytes);
      g_assert_cmpfloat (sample->bytes, <=, sample->high);
      if (i > 0)
        g_assert_cmpfloat (sample->bytes, >, (sample - 1)->bytes);
    }

  g_assert_cmpuint (data->gpus->len, ==, 3);
  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);
      const HrGpu *card = g_ptr_array_index (gpus, i);
      const HrGpuFit *fit = g_ptr_array_index (fits, i);

      g_assert_cmpstr (gpu->label, ==, card->name);
      g_assert_cmpfloat (gpu->capacity, ==, card->memory);
      g_assert_cmpfloat (gpu->usable, ==, fit->usable);
      g_assert_cmpfloat (gpu->usable, <, gpu->capacity);
      g_assert_cmpuint (gpu->max_micro_batch, ==, fit->max_micro_batch);
      /* the largest batch fits and the next one does not */
      if (gpu->max_micro_batch >= 1 && gpu->max_micro_batch < 64)
        {
          const HrCurveSample *at_max = &g_array_index (data->samples, HrCurveSample,
                                                        gpu->max_micro_batch - 1);

          g_assert_cmpfloat (at_max->bytes, <=, gpu->usable);
          g_assert_cmpfloat ((at_max + 1)->bytes, >, gpu->usable);
        }
    }
  /* docs/DESIGN.md: GR00T N1.7 fits batch 16 on 24 GB and 32 on 40 GB */
  g_assert_cmpuint (((HrCurveGpu *) g_ptr_array_index (data->gpus, 0))->max_micro_batch, >=, 16);
  g_assert_cmpuint (((HrCurveGpu *) g_ptr_array_index (data->gpus, 1))->max_micro_batch, >=, 32);
}

static void
test_data_log2_and_own_gpu (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (gr00t_json);
  g_autoptr(HrCurveChartData) data = hr_curve_chart_data_new_for_scenario (s, NULL, 1, 256, TRUE);
  const HrCurveGpu *gpu;

  g_assert_true (data->log2_x);
  g_assert_cmpuint (data->samples->len, ==, 9);
  for (guint i = 0; i < data->samples->len; i++)
    g_assert_cmpfloat (g_array_index (data->samples, HrCurveSample, i).batch, ==, 1u << i);

  /* no cards given: the scenario's own */
  g_assert_cmpuint (data->gpus->len, ==, 1);
  gpu = g_ptr_array_index (data->gpus, 0);
  g_assert_cmpstr (gpu->label, ==, s->gpu->name);
  g_assert_cmpfloat (gpu->capacity, ==, s->gpu->memory);
}

static void
test_data_overlay (void)
{
  g_autoptr(HrCurveChartData) data = hr_curve_chart_data_new ();
  HrCurvePoint points[] = { { 2, 9.4 * GiB }, { 8, 14.8 * GiB } };

  hr_curve_chart_data_set_measurements (data, points, G_N_ELEMENTS (points), "RTX 4090, measured");
  hr_curve_chart_data_set_fit_line (data, 7.6 * GiB, 0.9 * GiB, "fit: 7.6 + 0.90·b GiB");
  g_assert_cmpuint (data->measured->len, ==, 2);
  g_assert_cmpfloat (g_array_index (data->measured, HrCurvePoint, 1).bytes, ==, 14.8 * GiB);
  g_assert_cmpstr (data->measured_label, ==, "RTX 4090, measured");
  g_assert_true (data->has_fit_line);
  g_assert_cmpfloat (data->fit_floor, ==, 7.6 * GiB);
  g_assert_cmpfloat (data->fit_per_sample, ==, 0.9 * GiB);

  /* measurements replace the earlier ones */
  hr_curve_chart_data_set_measurements (data, points, 1, NULL);
  g_assert_cmpuint (data->measured->len, ==, 1);
  g_assert_null (data->measured_label);
}

static void
test_layout_positions (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartLayout) layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);
  const HrRect *plot = &layout->plot;

  g_assert_true (hr_rect_inside (plot, &layout->bounds, 0));
  g_assert_cmpfloat (plot->width, >, 400);
  g_assert_cmpfloat (plot->height, >, 250);

  /* 0 bytes on the plot's bottom, more bytes higher up */
  g_assert_cmpfloat (layout->y_min, ==, 0);
  g_assert_cmpfloat_with_epsilon (hr_curve_chart_y_position (layout, 0), plot->y + plot->height,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (hr_curve_chart_y_position (layout, layout->y_max), plot->y, 1e-9);
  g_assert_cmpfloat (hr_curve_chart_y_position (layout, 20 * GiB), <,
                     hr_curve_chart_y_position (layout, 10 * GiB));
  g_assert_cmpfloat_with_epsilon (hr_curve_chart_y_position (layout, 10 * GiB) -
                                  hr_curve_chart_y_position (layout, 0),
                                  hr_curve_chart_y_position (layout, 30 * GiB) -
                                  hr_curve_chart_y_position (layout, 20 * GiB),
                                  1e-9);

  /* the batches span the plot's width, from 0 on a linear axis */
  g_assert_cmpfloat (layout->x_min, ==, 0);
  g_assert_cmpfloat (layout->x_max, ==, 64);
  g_assert_cmpfloat_with_epsilon (hr_curve_chart_x_position (layout, 0), plot->x, 1e-9);
  g_assert_cmpfloat_with_epsilon (hr_curve_chart_x_position (layout, 64), plot->x + plot->width,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (hr_curve_chart_x_position (layout, 32),
                                  plot->x + plot->width / 2, 1e-9);

  /* the curve: one point per batch, left to right, where the data says */
  g_assert_cmpuint (layout->curve->len, ==, data->samples->len);
  g_assert_cmpuint (layout->band_low->len, ==, layout->curve->len);
  g_assert_cmpuint (layout->band_high->len, ==, layout->curve->len);
  for (guint i = 0; i < layout->curve->len; i++)
    {
      const HrCurveSample *sample = &g_array_index (data->samples, HrCurveSample, i);
      const HrPoint *p = &g_array_index (layout->curve, HrPoint, i);

      g_assert_cmpfloat_with_epsilon (p->x, hr_curve_chart_x_position (layout, sample->batch),
                                      1e-9);
      g_assert_cmpfloat_with_epsilon (p->y, hr_curve_chart_y_position (layout, sample->bytes),
                                      1e-9);
      g_assert_cmpfloat (g_array_index (layout->band_high, HrPoint, i).y, <=, p->y);
      g_assert_cmpfloat (g_array_index (layout->band_low, HrPoint, i).y, >=, p->y);
      if (i > 0)
        g_assert_cmpfloat (p->x, >, g_array_index (layout->curve, HrPoint, i - 1).x);
    }
}

static void
test_layout_y_range (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartData) low_curve = straight_data ();
  double highest = 0, last_stop = 0;

  /* the memory that matters: every card, and the curve as far as the
   * last card stops fitting; beyond that the curve and its band leave the
   * plot at the top */
  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);

      highest = MAX (highest, gpu->usable);
      last_stop = MAX (last_stop, gpu->max_micro_batch + 1);
    }
  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *sample = &g_array_index (data->samples, HrCurveSample, i);

      if (sample->batch <= last_stop)
        highest = MAX (highest, sample->bytes);
    }

  for (guint size = 0; size < 3; size++)
    {
      static const double sizes[][2] = { { 800, 500 }, { 1280, 800 }, { 480, 320 } };
      g_autoptr(HrCurveChartLayout) layout = layout_for (data, HR_CHART_THEME_LIGHT,
                                                         sizes[size][0], sizes[size][1]);

      /* with 6% headroom, no more than 12% more to end on a tick */
      g_assert_cmpfloat (layout->y_min, ==, 0);
      g_assert_cmpfloat (layout->y_max, >=, highest * 1.06 * (1 - 1e-9));
      g_assert_cmpfloat (layout->y_max, <=, highest * 1.06 * 1.12 * (1 + 1e-9));
    }

  /* a card far above the curve still shows */
  add_straight_gpu (low_curve, "Big card", 180);
  {
    g_autoptr(HrCurveChartLayout) layout = layout_for (low_curve, HR_CHART_THEME_LIGHT, 800, 500);
    const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, 0);

    g_assert_cmpfloat (layout->y_max, >=, 180 * GiB * 1.06);
    g_assert_cmpfloat (line->y, >, layout->plot.y);
  }
}

/* The run as asked is on the plot even where no card holds it: Pi0.5 in
 * float32 at micro-batch 8 needs about 113 GiB, and the H100 stops at 2
 * (data/examples/pi05-fp32.json). */
static void
test_layout_y_range_own_point (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"), "pi05-fp32.json",
                                            NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_autoptr(GPtrArray) gpus = NULL;
  g_autoptr(HrCurveChartData) data = NULL;
  g_autoptr(HrCurveChartLayout) layout = NULL;
  double at_8 = 0;

  g_assert_no_error (error);
  gpus = catalog_gpus ((const char *const[]) { "h100-sxm" }, 1);
  data = hr_curve_chart_data_new_for_scenario (s, gpus, 1, 10, FALSE);
  g_assert_cmpuint (data->micro_batch, ==, 8);
  for (guint i = 0; i < data->samples->len; i++)
    if (g_array_index (data->samples, HrCurveSample, i).batch == 8)
      at_8 = g_array_index (data->samples, HrCurveSample, i).bytes;
  g_assert_cmpfloat (at_8, >, 100 * GiB);
  layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);
  g_assert_cmpfloat (layout->y_max, >=, at_8);
}

static void
test_layout_gpu_lines (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartLayout) layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);

  g_assert_cmpuint (layout->gpu_lines->len, ==, data->gpus->len);
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);
      g_autofree char *usable = hr_size_format_full (gpu->usable, data->unit, HR_SIZE_FORMAT_CHART);

      g_assert_cmpfloat_with_epsilon (line->y, hr_curve_chart_y_position (layout, gpu->usable),
                                      1e-9);
      g_assert_cmpfloat (line->x_start, ==, layout->plot.x);
      g_assert_cmpfloat (line->x_end, ==, layout->plot.x + layout->plot.width);
      g_assert_cmpuint (line->series, ==, i);

      /* the card's name and usable memory in words, at its line's end,
       * right of the plot; tied to it by a leader if moved */
      g_assert_nonnull (strstr (line->label.text, gpu->label));
      g_assert_nonnull (strstr (line->detail.text, usable));
      g_assert_cmpfloat (line->label.box.x, >=, layout->plot.x + layout->plot.width);
      g_assert_cmpfloat (line->detail.box.y, >=, line->label.box.y + line->label.box.height);
      if (!line->has_leader)
        g_assert_cmpfloat (fabs (line->label.box.y + line->label.box.height / 2 - line->y), <, 1);
      else
        g_assert_cmpfloat (fabs (line->leader_from.y - line->y), <, 1e-9);

      /* hovering the name says the card and its largest batch */
      {
        g_autofree char *said = hr_curve_chart_describe_at (layout, data,
                                                            line->label.box.x + 2,
                                                            line->label.box.y +
                                                            line->label.box.height / 2);

        g_assert_nonnull (said);
        g_assert_nonnull (strstr (said, gpu->label));
        g_assert_nonnull (strstr (said, "usable"));
      }
    }
}

static void
test_layout_markers (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartData) log_data = gr00t_data (256, TRUE);
  g_autoptr(HrCurveChartData) straight = straight_data ();
  const HrCurveChartData *all[] = { data, log_data, straight };
  guint markers = 0;

  add_straight_gpu (straight, "Small card", 6);     /* nothing fits */
  add_straight_gpu (straight, "Mid card", 21.6);    /* 17 */
  add_straight_gpu (straight, "Large card", 80);    /* 90: past the axis (64) */

  for (guint d = 0; d < G_N_ELEMENTS (all); d++)
    {
      g_autoptr(HrCurveChartLayout) layout = layout_for (all[d], HR_CHART_THEME_LIGHT, 800, 500);

      for (guint i = 0; i < layout->gpu_lines->len; i++)
        {
          const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);
          const HrCurveGpu *gpu = g_ptr_array_index (all[d]->gpus, i);
          g_autofree char *max = g_strdup_printf ("max %u", gpu->max_micro_batch);

          /* the largest batch in words beside the name, once */
          g_assert_nonnull (strstr (line->detail.text,
                                    gpu->max_micro_batch == 0 ? "nothing fits" : max));
          if (gpu->max_micro_batch == 0 || gpu->max_micro_batch > layout->x_max)
            {
              g_assert_false (line->has_marker);
              continue;
            }

          /* on the curve at the largest batch that fits: at or below the
           * card's line */
          g_assert_true (line->has_marker);
          markers++;
          g_assert_cmpfloat_with_epsilon (line->marker.x,
                                          hr_curve_chart_x_position (layout, gpu->max_micro_batch),
                                          1e-9);
          g_assert_cmpfloat (fabs (line->marker.y - curve_y_at (layout, line->marker.x)), <, 0.01);
          g_assert_cmpfloat (line->marker.y, >=, line->y - 0.5);
        }
    }
  /* 18, 35 and (log2 axis) 78 on the GR00T charts, 17 on the straight one */
  g_assert_cmpuint (markers, ==, 2 + 3 + 1);
}

static void
test_layout_log2_axis (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (256, TRUE);
  g_autoptr(HrCurveChartLayout) layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);
  double spacing;

  g_assert_true (layout->log2_x);
  g_assert_cmpfloat (layout->x_min, ==, 1);
  g_assert_cmpfloat (layout->x_max, ==, 256);

  /* 1, 2, 4 … at equal spacing */
  g_assert_cmpuint (layout->x_ticks->len, >=, 5);
  spacing = g_array_index (layout->x_ticks, HrAxisTick, 1).position -
            g_array_index (layout->x_ticks, HrAxisTick, 0).position;
  g_assert_cmpfloat (spacing, >, 20);
  for (guint i = 0; i < layout->x_ticks->len; i++)
    {
      const HrAxisTick *tick = &g_array_index (layout->x_ticks, HrAxisTick, i);
      int exponent;

      g_assert_cmpfloat (frexp (tick->value, &exponent), ==, 0.5);
      g_assert_cmpfloat_with_epsilon (tick->position,
                                      hr_curve_chart_x_position (layout, tick->value), 1e-9);
      if (i > 0)
        g_assert_cmpfloat_with_epsilon (tick->position - (tick - 1)->position, spacing, 1e-6);
    }
  g_assert_cmpfloat_with_epsilon (hr_curve_chart_x_position (layout, 4) -
                                  hr_curve_chart_x_position (layout, 2),
                                  hr_curve_chart_x_position (layout, 64) -
                                  hr_curve_chart_x_position (layout, 32), 1e-9);

  /* between two powers of two the curve bends, as a straight line in
   * bytes per sample does on a log axis; it still runs left to right */
  g_assert_cmpuint (layout->curve->len, >, data->samples->len);
  for (guint i = 1; i < layout->curve->len; i++)
    {
      const HrPoint *p = &g_array_index (layout->curve, HrPoint, i);

      g_assert_cmpfloat (p->x, >, (p - 1)->x);
    }
  for (guint i = 0; i < data->samples->len; i++)
    {
      const HrCurveSample *sample = &g_array_index (data->samples, HrCurveSample, i);
      double x = hr_curve_chart_x_position (layout, sample->batch);
      double y = hr_curve_chart_y_position (layout, sample->bytes);

      g_assert_cmpfloat (fabs (curve_y_at (layout, x) - y), <, 1e-6);
    }
}

static void
test_layout_nice_ticks (void)
{
  static const double sizes[][2] = { { 800, 500 }, { 1280, 800 }, { 480, 320 }, { 1600, 400 } };
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartData) straight = straight_data ();
  const HrCurveChartData *all[] = { data, straight };

  for (guint d = 0; d < G_N_ELEMENTS (all); d++)
    for (guint size = 0; size < G_N_ELEMENTS (sizes); size++)
      {
        g_autoptr(HrCurveChartLayout) layout = layout_for (all[d], HR_CHART_THEME_LIGHT,
                                                           sizes[size][0], sizes[size][1]);

        /* y in GiB from 0, x in whole batches */
        assert_nice_ticks (layout->y_ticks, GiB);
        g_assert_cmpfloat (g_array_index (layout->y_ticks, HrAxisTick, 0).value, ==, 0);
        assert_nice_ticks (layout->x_ticks, 1);
        g_assert_cmpfloat (g_array_index (layout->x_ticks, HrAxisTick, 1).value -
                           g_array_index (layout->x_ticks, HrAxisTick, 0).value, >=, 1);

        for (guint i = 0; i < layout->y_ticks->len; i++)
          {
            const HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);

            g_assert_cmpfloat (tick->value, <=, layout->y_max);
            g_assert_cmpfloat_with_epsilon (tick->position,
                                            hr_curve_chart_y_position (layout, tick->value), 1e-9);
          }
        for (guint i = 0; i < layout->x_ticks->len; i++)
          {
            const HrAxisTick *tick = &g_array_index (layout->x_ticks, HrAxisTick, i);

            g_assert_cmpfloat (tick->value, >=, layout->x_min);
            g_assert_cmpfloat (tick->value, <=, layout->x_max);
            /* tick labels do not run into each other */
            if (i > 0 && tick->label.text != NULL && (tick - 1)->label.text != NULL)
              g_assert_false (hr_rect_intersects (&tick->label.box, &(tick - 1)->label.box));
          }
      }
}

static void
test_layout_labels_inside (void)
{
  static const double sizes[][2] = { { 800, 500 }, { 1280, 800 }, { 480, 320 } };
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartData) straight = straight_data ();
  const char *long_name = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition 96GB";
  const HrCurveChartData *all[] = { data, straight };

  g_assert_cmpuint (strlen (long_name), ==, 60);
  g_free (straight->title);
  straight->title = g_strdup ("A title far longer than any canvas could hold on one line, "
                              "because somebody named their scenario after the whole experiment "
                              "plan");
  straight->subtitle = g_strdup ("A subtitle that also goes on and on about the model, method, "
                                 "compute, sequence length, and much more");
  add_straight_gpu (straight, long_name, 40);
  add_straight_gpu (straight, "GeForce RTX 4090", 21.6);

  for (guint d = 0; d < G_N_ELEMENTS (all); d++)
    for (guint size = 0; size < G_N_ELEMENTS (sizes); size++)
      {
        g_autoptr(HrCurveChartLayout) layout = layout_for (all[d], HR_CHART_THEME_LIGHT,
                                                           sizes[size][0], sizes[size][1]);
        g_autoptr(GPtrArray) labels = all_labels (layout);

        for (guint i = 0; i < labels->len; i++)
          {
            const HrChartLabel *label = g_ptr_array_index (labels, i);

            if (!hr_rect_inside (&label->box, &layout->bounds, 0.5))
              g_error ("\"%s\" at %.1f,%.1f %.1f×%.1f leaves the %.0f×%.0f canvas", label->text,
                       label->box.x, label->box.y, label->box.width, label->box.height,
                       layout->bounds.width, layout->bounds.height);
            g_assert_cmpfloat (label->box.width, >, 0);
          }

        /* the long name is never cut: said shorter, or wrapped, and the
         * line keeps its memory */
        if (all[d] == straight)
          {
            const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, 0);
            /* on-screen text, in the locale's number format */
            g_autofree char *usable = g_strdup_printf ("%.1f GiB", 40.0);

            g_assert_nonnull (strstr (line->label.text, "RTX PRO"));
            g_assert_null (strstr (line->label.text, "…"));
            g_assert_cmpfloat (line->label.box.width, <, layout->plot.width);
            g_assert_nonnull (strstr (line->detail.text, usable));
            g_assert_true (has_label (layout, "Peak memory (GiB)"));
            g_assert_true (has_label (layout, "Micro-batch"));
            g_assert_true (has_label (layout, "prediction"));
            g_assert_true (has_label (layout, "range"));
          }
      }
}

static void
assert_apart (const HrCurveChartLayout *layout)
{
  g_autoptr(GPtrArray) labels = all_labels (layout);

  for (guint i = 0; i < labels->len; i++)
    for (guint j = i + 1; j < labels->len; j++)
      {
        const HrChartLabel *a = g_ptr_array_index (labels, i);
        const HrChartLabel *b = g_ptr_array_index (labels, j);

        if (hr_rect_intersects (&a->box, &b->box))
          g_error ("\"%s\" overlaps \"%s\" in a %.0f×%.0f canvas", a->text, b->text,
                   layout->bounds.width, layout->bounds.height);
      }
}

static void
test_layout_labels_apart (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartData) log_data = gr00t_data (256, TRUE);
  g_autoptr(HrCurveChartData) twins = straight_data ();
  const HrCurveChartData *all[] = { data, log_data, twins };

  /* two cards with nearly the same memory: their lines nearly coincide */
  add_straight_gpu (twins, "A100 SXM4 40GB", 36.0);
  add_straight_gpu (twins, "A100 PCIe 40GB", 36.1);
  add_straight_gpu (twins, "GeForce RTX 4090", 21.6);
  add_straight_gpu (twins, "H100 SXM5 80GB", 71.7);

  for (guint d = 0; d < G_N_ELEMENTS (all); d++)
    {
      g_autoptr(HrCurveChartLayout) layout = layout_for (all[d], HR_CHART_THEME_LIGHT, 800, 500);
      g_autoptr(HrCurveChartLayout) large = layout_for (all[d], HR_CHART_THEME_DARK, 1280, 800);

      assert_apart (layout);
      assert_apart (large);
    }

  /* the twins, 36.0 and 36.1 GiB with the same largest batch, are one
   * line named for both */
  {
    g_autoptr(HrCurveChartLayout) layout = layout_for (twins, HR_CHART_THEME_LIGHT, 800, 500);
    const HrCurveGpuLine *twin = &g_array_index (layout->gpu_lines, HrCurveGpuLine, 0);

    g_assert_cmpuint (layout->gpu_lines->len, ==, 3);
    g_assert_cmpuint (twin->gpus->len, ==, 2);
    g_assert_nonnull (strstr (twin->label.text, "A100 SXM4 40GB"));
    g_assert_nonnull (strstr (twin->label.text, "A100 PCIe 40GB"));
    /* one amount for both, or the two (36.0 or 36,0 as the locale writes it) */
    g_assert_nonnull (strstr (twin->detail.text, "36"));
  }
}

static void
test_layout_overlay (void)
{
  g_autoptr(HrCurveChartData) data = straight_data ();
  HrCurvePoint points[] = { { 2, 9.4 * GiB }, { 8, 14.8 * GiB }, { 32, 36 * GiB } };
  const HrRect *plot;

  hr_curve_chart_data_set_measurements (data, points, G_N_ELEMENTS (points), NULL);
  hr_curve_chart_data_set_fit_line (data, 7.6 * GiB, 0.9 * GiB, NULL);

  {
    g_autoptr(HrCurveChartLayout) layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);

    plot = &layout->plot;
    g_assert_cmpuint (layout->measured->len, ==, G_N_ELEMENTS (points));
    for (guint i = 0; i < G_N_ELEMENTS (points); i++)
      {
        const HrPoint *p = &g_array_index (layout->measured, HrPoint, i);

        g_assert_cmpfloat_with_epsilon (p->x, hr_curve_chart_x_position (layout, points[i].batch),
                                        1e-9);
        g_assert_cmpfloat_with_epsilon (p->y, hr_curve_chart_y_position (layout, points[i].bytes),
                                        1e-9);
      }

    /* 7.6 + 0.9·b GiB stays in the plot from b = 0 to 64 */
    g_assert_true (layout->has_fit_line);
    g_assert_cmpfloat_with_epsilon (layout->fit_start.x, plot->x, 1e-9);
    g_assert_cmpfloat_with_epsilon (layout->fit_start.y,
                                    hr_curve_chart_y_position (layout, 7.6 * GiB), 1e-6);
    g_assert_cmpfloat_with_epsilon (layout->fit_end.x, plot->x + plot->width, 1e-9);
    g_assert_cmpfloat_with_epsilon (layout->fit_end.y,
                                    hr_curve_chart_y_position (layout, (7.6 + 0.9 * 64) * GiB),
                                    1e-6);
    g_assert_true (has_label (layout, "measured"));
    g_assert_true (has_label (layout, "fit"));
  }

  /* a steeper fit leaves through the top: cut there */
  hr_curve_chart_data_set_fit_line (data, 7.6 * GiB, 4 * GiB, "steep");
  {
    g_autoptr(HrCurveChartLayout) layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);
    double batch;

    plot = &layout->plot;
    g_assert_true (layout->has_fit_line);
    g_assert_cmpfloat_with_epsilon (layout->fit_end.y, plot->y, 1e-6);
    g_assert_cmpfloat (layout->fit_end.x, <, plot->x + plot->width);
    batch = layout->x_min +
            (layout->fit_end.x - plot->x) / plot->width * (layout->x_max - layout->x_min);
    g_assert_cmpfloat_with_epsilon ((7.6 + 4 * batch) * GiB / layout->y_max, 1, 1e-6);
    g_assert_true (has_label (layout, "steep"));
  }

  /* one wholly above the plot is not drawn */
  hr_curve_chart_data_set_fit_line (data, 1000 * GiB, 1 * GiB, NULL);
  {
    g_autoptr(HrCurveChartLayout) layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);

    g_assert_false (layout->has_fit_line);
  }
}

static guint32
pixel (cairo_surface_t *surface,
       int              x,
       int              y)
{
  const unsigned char *row = cairo_image_surface_get_data (surface) +
                             y * cairo_image_surface_get_stride (surface);

  return ((const guint32 *) (gconstpointer) row)[x];
}

static gboolean
same_color (guint32       argb,
            const HrRgba *color)
{
  int channels[3] = { (argb >> 16) & 0xFF, (argb >> 8) & 0xFF, argb & 0xFF };
  double wanted[3] = { color->red, color->green, color->blue };

  for (guint i = 0; i < 3; i++)
    if (abs (channels[i] - (int) round (wanted[i] * 255)) > 2)
      return FALSE;
  return TRUE;
}

/* Far from @color: the curve's ink, not the pale band around it. */
static gboolean
contrasts (guint32       argb,
           const HrRgba *color)
{
  int channels[3] = { (argb >> 16) & 0xFF, (argb >> 8) & 0xFF, argb & 0xFF };
  double other[3] = { color->red, color->green, color->blue };

  for (guint i = 0; i < 3; i++)
    if (abs (channels[i] - (int) round (other[i] * 255)) > 96)
      return TRUE;
  return FALSE;
}

/* A point of @points that no label covers. */
static const HrPoint *
uncovered_point (const HrCurveChartLayout *layout,
                 const GArray             *points,
                 guint                     from)
{
  g_autoptr(GPtrArray) labels = all_labels (layout);

  for (guint i = from; i < points->len; i++)
    {
      const HrPoint *p = &g_array_index (points, HrPoint, i);
      HrRect around = { p->x - 4, p->y - 4, 8, 8 };
      gboolean covered = FALSE;

      for (guint j = 0; j < labels->len && !covered; j++)
        {
          const HrChartLabel *label = g_ptr_array_index (labels, j);

          covered = hr_rect_intersects (&around, &label->box);
        }
      for (guint j = 0; j < layout->gpu_lines->len && !covered; j++)
        covered = fabs (g_array_index (layout->gpu_lines, HrCurveGpuLine, j).y - p->y) < 4;
      if (!covered)
        return p;
    }
  g_assert_not_reached ();
}

static void
test_render_pixels (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);

  for (HrChartTheme theme = HR_CHART_THEME_LIGHT; theme <= HR_CHART_THEME_DARK; theme++)
    {
      g_autoptr(HrChartStyle) style = hr_chart_style_new (theme);
      g_autoptr(HrCurveChartLayout) layout = layout_for (data, theme, 800, 500);
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 500);
      cairo_t *cr = cairo_create (surface);
      const HrPoint *on_curve = uncovered_point (layout, layout->curve, layout->curve->len / 2);
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, 0);
      HrRect dash = { line->x_start, line->y - 1, 6, 2 };

      hr_curve_chart_render (layout, data, style, cr);
      g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
      cairo_destroy (cr);
      cairo_surface_flush (surface);

      /* the background, then the curve and a card's first dash on it */
      g_assert_true (same_color (pixel (surface, 2, 2), &style->background));
      g_assert_true (same_color (pixel (surface, 798, 498), &style->background));
      if (theme == HR_CHART_THEME_LIGHT)
        g_assert_cmphex (pixel (surface, 2, 2) & 0xFFFFFF, ==, 0xFFFFFF);
      g_assert_true (contrasts (pixel (surface, (int) on_curve->x, (int) on_curve->y),
                                &style->background));
      g_assert_false (hr_rect_intersects (&dash, &line->label.box));
      g_assert_false (same_color (pixel (surface, (int) line->x_start + 3, (int) line->y),
                                  &style->background));
      /* empty plot above the highest card and the curve stays clear */
      g_assert_true (same_color (pixel (surface, (int) layout->plot.x + 10,
                                        (int) layout->plot.y + 3),
                                 &style->background));

      cairo_surface_destroy (surface);
    }
}

/* Allocated, reserved and device-used points are told apart by shape, not
 * colour: a circle, a square and a triangle (its apex above the circle). */
static void
test_render_marker_shapes (void)
{
  const HrMetric metrics[] = { HR_METRIC_ALLOCATED, HR_METRIC_RESERVED, HR_METRIC_DEVICE_USED };
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  cairo_surface_t *surfaces[3];
  HrPoint at = { 0 };

  g_assert_cmpstr (hr_curve_marker_name (HR_METRIC_ALLOCATED), !=,
                   hr_curve_marker_name (HR_METRIC_RESERVED));
  g_assert_cmpstr (hr_curve_marker_name (HR_METRIC_RESERVED), !=,
                   hr_curve_marker_name (HR_METRIC_DEVICE_USED));

  for (guint m = 0; m < G_N_ELEMENTS (metrics); m++)
    {
      g_autoptr(HrCurveChartData) data = straight_data ();
      HrCurvePoint point = { 40, 57 * GiB, metrics[m] };
      g_autoptr(HrCurveChartLayout) layout = NULL;
      cairo_t *cr;

      hr_curve_chart_data_set_measurements (data, &point, 1, NULL);
      layout = layout_for (data, HR_CHART_THEME_LIGHT, 800, 500);
      at = g_array_index (layout->measured, HrPoint, 0);
      surfaces[m] = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 500);
      cr = cairo_create (surfaces[m]);
      hr_curve_chart_render (layout, data, style, cr);
      cairo_destroy (cr);
      cairo_surface_flush (surfaces[m]);
    }

  /* The triangle's apex, 5.4 px up and its stroke's miter above it: ink
   * for device used only; the circle ends 4.75 px up. */
  g_assert_false (same_color (pixel (surfaces[2], (int) floor (at.x), (int) floor (at.y - 6)),
                              &style->background));
  g_assert_true (same_color (pixel (surfaces[0], (int) floor (at.x), (int) floor (at.y - 6)),
                             &style->background));
  /* The three shapes differ somewhere in the point's box. */
  for (guint a = 0; a < 3; a++)
    for (guint b = a + 1; b < 3; b++)
      {
        gboolean differ = FALSE;

        for (int y = (int) at.y - 7; y <= (int) at.y + 7 && !differ; y++)
          for (int x = (int) at.x - 7; x <= (int) at.x + 7 && !differ; x++)
            differ = pixel (surfaces[a], x, y) != pixel (surfaces[b], x, y);
        g_assert_true (differ);
      }

  for (guint m = 0; m < G_N_ELEMENTS (metrics); m++)
    cairo_surface_destroy (surfaces[m]);
}

static void
test_summary (void)
{
  g_autoptr(HrCurveChartData) data = gr00t_data (64, FALSE);
  g_autoptr(HrCurveChartData) straight = straight_data ();
  g_autofree char *summary = hr_curve_chart_summary (data);
  g_autofree char *straight_summary = NULL;
  g_autofree char *unfit = NULL;

  g_assert_true (g_str_has_prefix (summary, "Peak memory grows from "));
  g_assert_nonnull (strstr (summary, "at micro-batch 1 to "));
  g_assert_nonnull (strstr (summary, " at 64."));
  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);
      g_autofree char *max = g_strdup_printf (" %u", gpu->max_micro_batch);

      g_assert_nonnull (strstr (summary, gpu->label));
      g_assert_nonnull (strstr (summary, max));
    }
  g_assert_nonnull (strstr (summary, "the largest micro-batch that fits is"));
  g_assert_true (g_str_has_suffix (summary, "."));
  /* plain text: it goes into an SVG <desc> and the accessible description */
  g_assert_null (strpbrk (summary, "<>&"));

  add_straight_gpu (straight, "Small card", 6);
  straight_summary = hr_curve_chart_summary (straight);
  /* On-screen text: "6.0" in the locale's format ("6,0" under de_DE). */
  unfit = g_strdup_printf ("On Small card (%.1f GiB usable) not even micro-batch 1 fits.", 6.0);
  g_assert_nonnull (strstr (straight_summary, unfit));
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/curve/data/for-scenario", test_data_for_scenario);
  g_test_add_func ("/curve/data/log2-and-own-gpu", test_data_log2_and_own_gpu);
  g_test_add_func ("/curve/data/overlay", test_data_overlay);
  g_test_add_func ("/curve/layout/positions", test_layout_positions);
  g_test_add_func ("/curve/layout/y-range", test_layout_y_range);
  g_test_add_func ("/curve/layout/y-range-own-point", test_layout_y_range_own_point);
  g_test_add_func ("/curve/layout/gpu-lines", test_layout_gpu_lines);
  g_test_add_func ("/curve/layout/markers", test_layout_markers);
  g_test_add_func ("/curve/layout/log2-axis", test_layout_log2_axis);
  g_test_add_func ("/curve/layout/nice-ticks", test_layout_nice_ticks);
  g_test_add_func ("/curve/layout/labels-inside", test_layout_labels_inside);
  g_test_add_func ("/curve/layout/labels-apart", test_layout_labels_apart);
  g_test_add_func ("/curve/layout/overlay", test_layout_overlay);
  g_test_add_func ("/curve/render/pixels", test_render_pixels);
  g_test_add_func ("/curve/render/marker-shapes", test_render_marker_shapes);
  g_test_add_func ("/curve/summary", test_summary);

  return g_test_run ();
}
