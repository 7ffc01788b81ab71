/* test-chart-peak.c: one peak, one picture
 *
 * For every shipped example, on its own card and on a consumer and a
 * data-centre card: the bar, the curve at the scenario's micro-batch, the
 * verdict and the headline show the same figure, the analysis' need; a
 * bar that says "✓ spare" stays under its card's line and its card's
 * verdict fits; under XLA's preallocated pool the stack is the need and
 * the pool's unused part (no overhead), and the range of what nvidia-smi
 * shows is the pool, fixed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"

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
  g_assert_cmpuint (names->len, >=, 14);
  return names;
}

/* The scenario on its own card (first) and on two others. */
static HrAnalysis *
analysis_for (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  static const char * const others[] = { "rtx-5090d", "a100-80gb" };
  HrAnalysisOptions options = { 0 };

  g_assert_no_error (error);
  if (scenario->gpu != NULL)
    g_ptr_array_add (gpus, scenario->gpu);
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    if (scenario->gpu == NULL || g_strcmp0 (scenario->gpu->id, others[i]) != 0)
      g_ptr_array_add (gpus, (gpointer) hr_catalog_find_gpu (hr_catalog_get_default (),
                                                            others[i]));
  options.gpus = gpus;
  return hr_analysis_new (scenario, &options);
}

static gboolean
same_bytes (double a,
            double b)
{
  return fabs (a - b) <= MAX (2.0, 1e-6 * MAX (fabs (a), fabs (b)));
}

static void
check_example (const char   *path,
               PangoContext *context,
               guint        *pools,
               guint        *failures)
{
  g_autoptr(HrAnalysis) analysis = analysis_for (path);
  g_autoptr(HrBucketChartData) buckets = hr_bucket_chart_data_new_for_analysis (analysis);
  g_autoptr(HrCurveChartData) curve = hr_curve_chart_data_new_for_analysis (analysis);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrBucketChartLayout) layout = NULL;
  g_autofree char *base = g_path_get_basename (path);
  const HrScenario *scenario = hr_analysis_get_scenario (analysis);
  const HrAnalysisGpu *own = hr_analysis_get_own_gpu (analysis);
  HrChartSize size;

#define FAIL(...) G_STMT_START { g_test_message (__VA_ARGS__); (*failures)++; } G_STMT_END

  hr_chart_size_init_preset (&size, HR_CHART_SIZE_COLUMN);
  hr_chart_style_apply_size (style, &size);
  layout = hr_bucket_chart_layout (buckets, style, context, size.width, size.height);

  g_assert_cmpuint (buckets->bars->len, ==, hr_analysis_get_n_gpus (analysis));
  for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);
      const HrBucketBar *bar = g_ptr_array_index (buckets->bars, i);
      gboolean xla = g->limit.has_pool && !hr_scenario_has_kv_pool (scenario);

      /* the bar's figure is the verdict's */
      if (!same_bytes (hr_bucket_bar_peak (bar), (double) g->need))
        FAIL ("%s on %s: the bar says %.0f B, the fit %" G_GUINT64_FORMAT " B", base,
              g->gpu->id, hr_bucket_bar_peak (bar), g->need);
      if (bar->fits != g->fits || bar->tight != (g->fit == HR_ANALYSIS_FIT_TIGHT))
        FAIL ("%s on %s: the bar's verdict is not the analysis'", base, g->gpu->id);

      if (xla && g->limit.pool_preallocated)
        {
          (*pools)++;
          /* the pool's unused part is its own segment; the stack is the pool */
          if (!same_bytes (bar->pool_unused + (double) g->need, (double) g->limit.pool))
            FAIL ("%s on %s: the stack is not XLA's pool", base, g->gpu->id);
          if (bar->bytes[HR_BUCKET_OVERHEAD] >= (double) g->need)
            FAIL ("%s on %s: the pool is drawn as overhead", base, g->gpu->id);
          /* a pool of fixed size has a range of one figure */
          if (g->estimate->low != g->estimate->total || g->estimate->high != g->estimate->total)
            FAIL ("%s on %s: a range around XLA's fixed pool", base, g->gpu->id);
          if (bar->low > g->need || bar->high < g->need || bar->high > g->limit.pool * 2.0)
            FAIL ("%s on %s: the bar's range is not the need's", base, g->gpu->id);
        }
      else if (bar->pool_unused != 0)
        FAIL ("%s on %s: a pool where XLA preallocates none", base, g->gpu->id);
    }

  /* each card line: "✓ spare" only under the line and when the verdict
   * fits */
  for (guint i = 0; i < layout->bars->len; i++)
    {
      const HrBucketBarLayout *bl = &g_array_index (layout->bars, HrBucketBarLayout, i);

      for (guint c = 0; c < bl->cards->len; c++)
        {
          const HrBucketCardLine *line = &g_array_index (bl->cards, HrBucketCardLine, c);
          guint index = g_array_index (line->bars, guint, 0);
          const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, index);
          const char *detail = line->detail.text != NULL ? line->detail.text : "";
          gboolean says_spare = strstr (detail, "✓") != NULL;

          if (says_spare != (g->fit == HR_ANALYSIS_FIT_FITS))
            FAIL ("%s on %s: the card says \"%s\", the verdict %s", base, g->gpu->id, detail,
                  hr_analysis_fit_to_string (g->fit));
          if (says_spare && bl->bar.y < line->y - 0.5)
            FAIL ("%s on %s: the bar rises past its line (%.1f over %.1f) and says spare", base,
                  g->gpu->id, bl->bar.y, line->y);
        }
    }

  /* the curve at the scenario's micro-batch reads the need on the
   * scenario's card */
  if (own != NULL)
    {
      gboolean found = FALSE;

      for (guint k = 0; k < curve->samples->len; k++)
        {
          const HrCurveSample *sample = &g_array_index (curve->samples, HrCurveSample, k);

          if (sample->batch != MAX (1, scenario->micro_batch))
            continue;
          found = TRUE;
          if (!same_bytes (sample->bytes, (double) own->need))
            FAIL ("%s: the curve reads %.0f B at micro-batch %u, the fit %" G_GUINT64_FORMAT " B",
                  base, sample->bytes, scenario->micro_batch, own->need);
        }
      if (!found)
        FAIL ("%s: no sample at the scenario's micro-batch", base);

      /* the headline says the same figure */
      {
        g_autofree char *need = hr_analysis_format_bytes (analysis, (double) own->need);

        if (strstr (hr_analysis_get_headline (analysis), need) == NULL)
          FAIL ("%s: the headline \"%s\" does not say %s", base,
                hr_analysis_get_headline (analysis), need);
      }
    }
#undef FAIL
}

static void
test_one_peak (void)
{
  g_autoptr(GPtrArray) paths = examples ();
  PangoContext *context = hr_chart_pango_context_new ();
  guint failures = 0, pools = 0;

  for (guint e = 0; e < paths->len; e++)
    check_example (g_ptr_array_index (paths, e), context, &pools, &failures);
  g_object_unref (context);

  /* DreamerV3 under JAX is among the examples, on its card and an A100 */
  g_assert_cmpuint (pools, >=, 2);
  g_assert_cmpuint (failures, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chart/peak/every-example", test_one_peak);
  return g_test_run ();
}
