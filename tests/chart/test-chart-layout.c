/* test-chart-layout.c: charts you can put in a paper
 *
 * Every shipped example's bucket chart and curve, with five GPUs
 * compared (three sets of five: cards alike, a spread of sizes, and an
 * everyday mix), laid out at every figure size: every label inside the
 * canvas, none over another, none cut short with an ellipsis, none said
 * twice, none over the lines, bars and brackets the chart draws, and no
 * text under 6 pt at a column's width.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"

/* Boxes closer than this (a hundredth of a point) touch, not overlap. */
#define EPSILON 0.05

static const char * const gpu_sets[] = {
  /* two pairs of cards alike, and one larger */
  "rtx-3090,rtx-4090,a100-80gb,h100-sxm,h200",
  /* small to the largest */
  "rtx-3060-12gb,rtx-4070-ti,rtx-5090,l40s,mi300x",
  /* near twins: a 4090 and a 4090 D, two H100s */
  "rtx-4090,rtx-4090d,a100-40gb,h100-pcie,h100-sxm",
};

static const HrChartSizePreset sizes[] = {
  HR_CHART_SIZE_SCREEN, HR_CHART_SIZE_COLUMN, HR_CHART_SIZE_DOUBLE, HR_CHART_SIZE_SLIDE,
  HR_CHART_SIZE_POSTER,
};

typedef struct {
  const char *example;
  const char *gpus;
  const char *chart;
  const char *size;
} Where;

static char *
where_text (const Where *w)
{
  return g_strdup_printf ("%s, %s, --gpus %s, %s", w->example, w->chart, w->gpus, w->size);
}

static GPtrArray *
examples (void)
{
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autoptr(GDir) folder = NULL;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (dir);
  folder = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (folder);
  while ((name = g_dir_read_name (folder)) != NULL)
    if (g_str_has_suffix (name, ".json"))
      g_ptr_array_add (names, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  /* the shipped examples, all of them */
  g_assert_cmpuint (names->len, >=, 14);
  return names;
}

static HrAnalysis *
analysis_for (const char *path,
              const char *gpu_list)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_auto(GStrv) ids = g_strsplit (gpu_list, ",", -1);
  HrAnalysisOptions options = { 0 };

  g_assert_no_error (error);
  for (guint i = 0; ids[i] != NULL; i++)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), ids[i]);

      g_assert_nonnull (gpu);
      g_ptr_array_add (gpus, (gpointer) gpu);
    }
  options.gpus = gpus;
  return hr_analysis_new (scenario, &options);
}

static double
font_points (const HrChartStyle *style,
             int                 font)
{
  switch (font)
    {
    case HR_CHART_FONT_SMALL:
    case HR_CHART_FONT_SMALL_BOLD:
      return style->small_size;
    case HR_CHART_FONT_TITLE:
      return style->title_size;
    default:
      return style->font_size;
    }
}

static gboolean
overlap (const HrRect *a,
         const HrRect *b)
{
  HrRect inner = { a->x + EPSILON, a->y + EPSILON, a->width - 2 * EPSILON,
                   a->height - 2 * EPSILON };

  return hr_rect_intersects (&inner, b);
}

/* The checks every chart's labels pass; @values are the labels that may
 * repeat a text (tick numbers, segment sizes). */
static void
check_labels (const Where        *where,
              GPtrArray          *labels,
              GPtrArray          *values,
              const HrRect       *bounds,
              const HrChartStyle *style,
              guint              *failures)
{
  g_autofree char *at = where_text (where);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < labels->len; i++)
    {
      const HrChartLabel *a = g_ptr_array_index (labels, i);
      gboolean value = g_ptr_array_find (values, a, NULL);

      g_assert_nonnull (a->text);
      if (!hr_rect_inside (&a->box, bounds, EPSILON))
        {
          g_test_message ("%s: \"%s\" leaves the canvas (%.1f,%.1f %.1f×%.1f in %.0f×%.0f)", at,
                          a->text, a->box.x, a->box.y, a->box.width, a->box.height,
                          bounds->width, bounds->height);
          (*failures)++;
        }
      if (strstr (a->text, "…") != NULL)
        {
          g_test_message ("%s: \"%s\" is cut short", at, a->text);
          (*failures)++;
        }
      if (!value && g_hash_table_contains (seen, a->text))
        {
          g_test_message ("%s: \"%s\" is printed twice", at, a->text);
          (*failures)++;
        }
      g_hash_table_add (seen, a->text);
      if (where->size != NULL && g_str_equal (where->size, "column") &&
          font_points (style, a->font) < 6.0)
        {
          g_test_message ("%s: \"%s\" is %.1f pt", at, a->text, font_points (style, a->font));
          (*failures)++;
        }
      for (guint j = i + 1; j < labels->len; j++)
        {
          const HrChartLabel *b = g_ptr_array_index (labels, j);

          if (overlap (&a->box, &b->box))
            {
              g_test_message ("%s: \"%s\" is over \"%s\"", at, a->text, b->text);
              (*failures)++;
            }
        }
    }
}

static void
check_line (const Where  *where,
            GPtrArray    *labels,
            const char   *what,
            double        x0,
            double        y0,
            double        x1,
            double        y1,
            gconstpointer own,
            guint        *failures)
{
  for (guint i = 0; i < labels->len; i++)
    {
      const HrChartLabel *label = g_ptr_array_index (labels, i);
      HrRect inner = { label->box.x + EPSILON, label->box.y + EPSILON,
                       label->box.width - 2 * EPSILON, label->box.height - 2 * EPSILON };

      if (label == own)
        continue;
      if (hr_segment_meets_rect (x0, y0, x1, y1, &inner))
        {
          g_autofree char *at = where_text (where);

          g_test_message ("%s: %s runs through \"%s\"", at, what, label->text);
          (*failures)++;
        }
    }
}

static void
check_curve (const Where            *where,
             const HrCurveChartData *data,
             const HrChartStyle     *style,
             PangoContext           *context,
             double                  width,
             double                  height,
             guint                  *failures)
{
  g_autoptr(HrCurveChartLayout) layout = hr_curve_chart_layout (data, style, context, width,
                                                                height);
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  g_autoptr(GPtrArray) values = g_ptr_array_new ();
  HrRect plot = { layout->plot.x + 0.5, layout->plot.y + 0.5, layout->plot.width - 1,
                  layout->plot.height - 1 };
  guint n_names = 0;

  hr_curve_chart_layout_collect_labels (layout, labels);
  for (guint i = 0; i < layout->x_ticks->len; i++)
    g_ptr_array_add (values, &g_array_index (layout->x_ticks, HrAxisTick, i).label);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    g_ptr_array_add (values, &g_array_index (layout->y_ticks, HrAxisTick, i).label);
  g_ptr_array_add (values, &layout->scenario_tick.label);
  check_labels (where, labels, values, &layout->bounds, style, failures);

  /* nothing is written over the plot: the curve, the band and the lines
   * are never behind a word */
  for (guint i = 0; i < labels->len; i++)
    {
      const HrChartLabel *label = g_ptr_array_index (labels, i);

      if (hr_rect_intersects (&label->box, &plot))
        {
          g_autofree char *at = where_text (where);

          g_test_message ("%s: \"%s\" is inside the plot", at, label->text);
          (*failures)++;
        }
    }

  /* every card is named once, its line's leader crosses no label */
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      const HrCurveGpuLine *line = &g_array_index (layout->gpu_lines, HrCurveGpuLine, i);

      n_names += line->gpus->len;
      g_assert_nonnull (line->label.text);
      for (guint k = 0; k < line->gpus->len; k++)
        {
          const HrCurveGpu *gpu = g_ptr_array_index (data->gpus,
                                                     g_array_index (line->gpus, guint, k));

          g_assert_true (strstr (line->label.text, gpu->label) != NULL ||
                         strstr (line->label.text, gpu->short_label) != NULL);
        }
      if (line->has_leader)
        check_line (where, labels, "a leader", line->leader_from.x, line->leader_from.y,
                    line->leader_to.x, line->leader_to.y, &line->label, failures);
    }
  g_assert_cmpuint (n_names, ==, data->gpus->len);

  /* the axes span where the decision is: every card's largest batch is
   * on the x axis, the scenario's micro-batch is marked */
  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);

      if (gpu->max_micro_batch > 0 && !gpu->max_is_lower_bound)
        g_assert_cmpfloat (gpu->max_micro_batch, <=, layout->x_max);
      g_assert_cmpfloat (gpu->usable, <=, layout->y_max);
    }
  g_assert_true (layout->has_scenario || data->micro_batch > layout->x_max);
}

static void
check_buckets (const Where             *where,
               const HrBucketChartData *data,
               const HrChartStyle      *style,
               PangoContext            *context,
               double                   width,
               double                   height,
               guint                   *failures)
{
  g_autoptr(HrBucketChartLayout) layout = hr_bucket_chart_layout (data, style, context, width,
                                                                  height);
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  g_autoptr(GPtrArray) values = g_ptr_array_new ();
  guint n_cards = 0, n_with_card = 0;

  hr_bucket_chart_layout_collect_labels (layout, labels);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    g_ptr_array_add (values, &g_array_index (layout->y_ticks, HrAxisTick, i).label);
  for (guint i = 0; i < layout->bars->len; i++)
    {
      HrBucketBarLayout *bar = &g_array_index (layout->bars, HrBucketBarLayout, i);

      const HrBucketBar *first = g_ptr_array_index (data->bars,
                                                    g_array_index (bar->members, guint, 0));

      for (guint b = 0; b < HR_N_BUCKETS; b++)
        g_ptr_array_add (values, &bar->segment_labels[b]);
      /* under XLA's pool the need is the same on every card, and each
       * bar says it over the pool it is in */
      if (first->pool_unused > 0)
        {
          g_ptr_array_add (values, &bar->total);
          g_ptr_array_add (values, &bar->unattributed_label);
        }
    }
  check_labels (where, labels, values, &layout->bounds, style, failures);

  for (guint i = 0; i < data->bars->len; i++)
    n_with_card += ((HrBucketBar *) g_ptr_array_index (data->bars, i))->card != NULL;

  for (guint i = 0; i < layout->bars->len; i++)
    {
      const HrBucketBarLayout *bar = &g_array_index (layout->bars, HrBucketBarLayout, i);

      /* no label over a bar but a size inside its own segment */
      for (guint k = 0; k < labels->len; k++)
        {
          const HrChartLabel *label = g_ptr_array_index (labels, k);
          gboolean inside = FALSE;

          for (guint b = 0; b < HR_N_BUCKETS; b++)
            inside |= label == &bar->segment_labels[b] && bar->label_inside[b];
          /* the name of XLA's unused pool, inside its outline */
          inside |= label == &bar->unattributed_label && bar->unattributed_inside;
          if (inside)
            {
              g_assert_true (label->box.x >= bar->bar.x && label->box.x + label->box.width <=
                             bar->bar.x + bar->bar.width + EPSILON);
              continue;
            }
          if (overlap (&label->box, &bar->bar) ||
              (bar->range.height > 0 && overlap (&label->box, &bar->range)))
            {
              g_autofree char *at = where_text (where);

              g_test_message ("%s: \"%s\" is over a bar or its range", at, label->text);
              (*failures)++;
            }
        }

      for (guint b = 0; b < HR_N_BUCKETS; b++)
        if (bar->segment_labels[b].text != NULL && !bar->label_inside[b])
          {
            check_line (where, labels, "a segment's leader", bar->leader_from[b].x,
                        bar->leader_from[b].y, bar->leader_to[b].x, bar->leader_to[b].y,
                        &bar->segment_labels[b], failures);
            /* a thin stack's sizes, joined by a bracket between them and
             * the bar: its tick and its spine cross no label */
            if (bar->bracketed)
              {
                g_assert_cmpfloat (bar->bracket_x, <, bar->bar.x);
                check_line (where, labels, "a bracket's tick", bar->leader_to[b].x,
                            bar->leader_to[b].y, bar->bracket_x, bar->leader_to[b].y,
                            &bar->segment_labels[b], failures);
                check_line (where, labels, "a bracket", bar->bracket_x, bar->bar.y,
                            bar->bracket_x, bar->leader_to[b].y, NULL, failures);
              }
          }

      for (guint c = 0; c < bar->cards->len; c++)
        {
          const HrBucketCardLine *line = &g_array_index (bar->cards, HrBucketCardLine, c);

          n_cards += line->bars->len;
          g_assert_nonnull (line->label.text);
          check_line (where, labels, "a card's line", line->x_start, line->y, line->x_end,
                      line->y, NULL, failures);
          if (line->has_leader)
            check_line (where, labels, "a card's leader", line->leader_from.x,
                        line->leader_from.y, line->leader_to.x, line->leader_to.y, &line->label,
                        failures);
        }
    }
  /* every card is on the chart, named once */
  g_assert_cmpuint (n_cards, ==, n_with_card);
}

static void
test_every_example (void)
{
  g_autoptr(GPtrArray) paths = examples ();
  PangoContext *context = hr_chart_pango_context_new ();
  guint failures = 0, layouts = 0;

  for (guint e = 0; e < paths->len; e++)
    for (guint g = 0; g < G_N_ELEMENTS (gpu_sets); g++)
      {
        g_autoptr(HrAnalysis) analysis = analysis_for (g_ptr_array_index (paths, e),
                                                       gpu_sets[g]);
        g_autoptr(HrBucketChartData) buckets = hr_bucket_chart_data_new_for_analysis (analysis);
        g_autoptr(HrCurveChartData) curve = hr_curve_chart_data_new_for_analysis (analysis);
        g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, e));

        g_assert_cmpuint (curve->gpus->len, ==, 5);
        g_assert_cmpuint (buckets->bars->len, ==, 5);
        for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
          {
            g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
            HrChartSize size;
            Where where = { base, gpu_sets[g], NULL,
                            hr_enum_to_nick (hr_chart_size_names, sizes[z]) };

            hr_chart_size_init_preset (&size, sizes[z]);
            hr_chart_style_apply_size (style, &size);
            where.chart = "buckets";
            check_buckets (&where, buckets, style, context, size.width, size.height, &failures);
            where.chart = "curve";
            check_curve (&where, curve, style, context, size.width, size.height, &failures);
            layouts += 2;
          }
      }

  g_test_message ("%u layouts, %u faults", layouts, failures);
  g_assert_cmpuint (layouts, >=, 14 * 3 * 5 * 2);
  g_assert_cmpuint (failures, ==, 0);
  g_object_unref (context);
}

/* The window's canvas takes any size: the same holds from a phone's width
 * to a wide monitor, with the window's fonts. */
static void
test_window_sizes (void)
{
  static const double canvases[][2] = { { 360, 260 }, { 520, 360 }, { 800, 500 }, { 1600, 900 } };
  g_autoptr(GPtrArray) paths = examples ();
  PangoContext *context = hr_chart_pango_context_new ();
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_DARK);
  guint failures = 0;

  for (guint e = 0; e < paths->len; e++)
    {
      g_autoptr(HrAnalysis) analysis = analysis_for (g_ptr_array_index (paths, e), gpu_sets[0]);
      g_autoptr(HrBucketChartData) buckets = hr_bucket_chart_data_new_for_analysis (analysis);
      g_autoptr(HrCurveChartData) curve = hr_curve_chart_data_new_for_analysis (analysis);
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, e));

      for (guint c = 0; c < G_N_ELEMENTS (canvases); c++)
        {
          g_autofree char *size = g_strdup_printf ("%.0f×%.0f px", canvases[c][0],
                                                   canvases[c][1]);
          Where where = { base, gpu_sets[0], "buckets", size };

          check_buckets (&where, buckets, style, context, canvases[c][0], canvases[c][1],
                         &failures);
          where.chart = "curve";
          check_curve (&where, curve, style, context, canvases[c][0], canvases[c][1], &failures);
        }
    }
  g_assert_cmpuint (failures, ==, 0);
  g_object_unref (context);
}

/* Names as people say them, before any ellipsis. */
static void
test_short_names (void)
{
  static const struct {
    const char *name;
    const char *said;
  } cases[] = {
    { "GeForce RTX 4090", "RTX 4090" },
    { "GeForce RTX 4090 D", "RTX 4090 D" },
    { "H100 SXM5 80GB", "H100 SXM" },
    { "H100 PCIe 80GB", "H100 PCIe" },
    { "A100 SXM4 80GB", "A100 80GB" },
    { "A100 SXM4 40GB", "A100 40GB" },
    { "H200 SXM 141GB", "H200" },
    { "Tesla V100 SXM2 32GB", "V100 32GB" },
    { "NVIDIA L40S", "L40S" },
    { "GeForce RTX 3080 10GB", "RTX 3080 10GB" },
    { "GeForce RTX 4060 Ti 16GB", "RTX 4060 Ti" },
    { "RTX 6000 Ada Generation", "RTX 6000 Ada" },
    { "AMD Instinct MI300X", "MI300X" },
    { "B200 (HGX) 180GB", "B200" },
    { "GB200 NVL72 (per GPU)", "GB200" },
    { "NVIDIA A10G (AWS)", "A10G" },
    { "RTX A6000", "RTX A6000" },
    { "RTX PRO 6000 Blackwell Workstation Edition", "RTX PRO 6000" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *said = hr_chart_gpu_short_name (cases[i].name, NULL, NULL);

      g_test_message ("%s → %s", cases[i].name, said);
      g_assert_cmpstr (said, ==, cases[i].said);
    }

  /* a name a card of the comparison would share keeps what tells them
   * apart */
  {
    const char *others[] = { "H100 NVL 94GB", NULL };
    g_autofree char *said = hr_chart_gpu_short_name ("H100 PCIe 80GB", NULL, others);

    g_assert_cmpstr (said, ==, "H100 PCIe");
  }
}

/* Cards alike share a line; each card keeps its series in both charts. */
static void
test_cards_alike (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "llama-3.1-8b-lora-4090.json", NULL);
  g_autoptr(HrAnalysis) analysis = analysis_for (path, gpu_sets[0]);
  g_autoptr(HrCurveChartData) curve = hr_curve_chart_data_new_for_analysis (analysis);
  g_autoptr(HrBucketChartData) buckets = hr_bucket_chart_data_new_for_analysis (analysis);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_PRINT);
  PangoContext *context = hr_chart_pango_context_new ();
  g_autoptr(HrCurveChartLayout) layout = hr_curve_chart_layout (curve, style, context, 1280, 800);
  g_autoptr(HrBucketChartLayout) bars = hr_bucket_chart_layout (buckets, style, context, 1280,
                                                                800);
  g_autoptr(GHashTable) looks = g_hash_table_new (NULL, NULL);

  /* RTX 3090 and 4090, A100 and H100: three lines for five cards */
  g_assert_cmpuint (layout->gpu_lines->len, ==, 3);
  g_assert_nonnull (strstr (g_array_index (layout->gpu_lines, HrCurveGpuLine, 0).label.text,
                            "3090"));
  g_assert_nonnull (strstr (g_array_index (layout->gpu_lines, HrCurveGpuLine, 0).label.text,
                            "4090"));
  /* each line its own dash and marker: told apart in black and white */
  for (guint i = 0; i < layout->gpu_lines->len; i++)
    {
      guint series = g_array_index (layout->gpu_lines, HrCurveGpuLine, i).series;
      HrChartSeries look = hr_chart_style_get_series (style, series);

      g_assert_false (g_hash_table_contains (looks, GUINT_TO_POINTER (look.marker + 1)));
      g_hash_table_add (looks, GUINT_TO_POINTER (look.marker + 1));
      g_assert_cmpuint (look.n_dashes, >, 0);
    }
  /* the same card, the same series on both charts */
  for (guint i = 0; i < curve->gpus->len; i++)
    g_assert_cmpuint (((HrCurveGpu *) g_ptr_array_index (curve->gpus, i))->series, ==,
                      ((HrBucketBar *) g_ptr_array_index (buckets->bars, i))->series);
  /* the same estimate on every card under PyTorch: one bar; under it a
   * line for cards that print the same figures (the RTX 3090 and 4090:
   * 21.6 GiB usable, the same room), and one each for the A100 80GB and
   * the H100, whose usable memory prints apart (72.0 and 71.7 GiB) */
  g_assert_cmpuint (bars->bars->len, ==, 1);
  {
    GArray *cards = g_array_index (bars->bars, HrBucketBarLayout, 0).cards;

    g_assert_cmpuint (cards->len, ==, 4);
  }
  g_object_unref (context);
}

/* A line under a bar names several cards only when each prints the same
 * figures: Pi0.5 in float32 is over by different amounts on the H100 SXM
 * (71.7 GiB usable) and the A100 80GB (72.0 GiB), so each has its own. */
static void
test_cards_apart (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "pi05-fp32.json", NULL);
  g_autoptr(HrAnalysis) analysis = analysis_for (path, "h100-sxm,a100-80gb");
  g_autoptr(HrBucketChartData) buckets = hr_bucket_chart_data_new_for_analysis (analysis);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_PRINT);
  PangoContext *context = hr_chart_pango_context_new ();
  g_autoptr(HrBucketChartLayout) bars = hr_bucket_chart_layout (buckets, style, context, 1280,
                                                                800);
  guint lines = 0;

  for (guint i = 0; i < bars->bars->len; i++)
    lines += g_array_index (bars->bars, HrBucketBarLayout, i).cards->len;
  g_assert_cmpuint (lines, ==, 2);
  g_object_unref (context);
}

/* The x axis spans where the cards stop fitting, with a margin; log₂
 * when they stop decades apart; y the memory that matters. */
static void
test_axes (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "llama-3.1-8b-lora-4090.json", NULL);
  g_autoptr(HrAnalysis) mixed = analysis_for (path, gpu_sets[0]);
  g_autoptr(HrAnalysis) large = analysis_for (path, "a100-80gb,h100-sxm,h200");
  g_autoptr(HrCurveChartData) data = hr_curve_chart_data_new_for_analysis (mixed);
  g_autoptr(HrCurveChartData) linear = hr_curve_chart_data_new_for_analysis (large);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  PangoContext *context = hr_chart_pango_context_new ();
  g_autoptr(HrCurveChartLayout) layout = hr_curve_chart_layout (data, style, context, 1280, 800);
  g_autoptr(HrCurveChartLayout) flat = hr_curve_chart_layout (linear, style, context, 1280, 800);
  guint largest = 0;
  double top = 0;

  /* an RTX 4090 stops at 6, an H200 at 112: more than a decade */
  g_assert_true (data->log2_x);
  for (guint i = 0; i < data->gpus->len; i++)
    {
      const HrCurveGpu *gpu = g_ptr_array_index (data->gpus, i);

      largest = MAX (largest, gpu->max_micro_batch);
      top = MAX (top, gpu->usable);
    }
  g_assert_cmpfloat (layout->x_max, >, largest);
  g_assert_cmpfloat (layout->x_max, <=, 2.0 * (largest + 1));
  /* y ends a little over the largest card, not where the curve goes */
  g_assert_cmpfloat (layout->y_max, >=, top);
  g_assert_cmpfloat (layout->y_max, <=, 1.25 * top);
  g_assert_true (layout->has_scenario);

  /* 80 GB to 141 GB cards stop within a decade: a linear axis, ending a
   * little past the H200's stop */
  g_assert_false (linear->log2_x);
  largest = 0;
  for (guint i = 0; i < linear->gpus->len; i++)
    largest = MAX (largest, ((HrCurveGpu *) g_ptr_array_index (linear->gpus, i))->max_micro_batch);
  g_assert_cmpfloat (flat->x_max, >, largest);
  g_assert_cmpfloat (flat->x_max, <=, 1.4 * (largest + 1));
  g_object_unref (context);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chart/layout/short-names", test_short_names);
  g_test_add_func ("/chart/layout/cards-alike", test_cards_alike);
  g_test_add_func ("/chart/layout/cards-apart", test_cards_apart);
  g_test_add_func ("/chart/layout/axes", test_axes);
  g_test_add_func ("/chart/layout/every-example", test_every_example);
  g_test_add_func ("/chart/layout/window-sizes", test_window_sizes);

  return g_test_run ();
}
