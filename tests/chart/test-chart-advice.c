/* test-chart-advice.c: the recommendation table and the advisor's tree
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"
#include "hr-test-utils.h"

#define SLACK 0.5

#define DREAMER_SCENARIO \
  "{\"headroom_scenario\": 1, \"model\": \"dreamerv3-200m\", \"task\": \"train\", " \
  "\"method\": \"full\", \"micro_batch\": 16, \"seq_len\": 64, \"compute\": \"fp32\", " \
  "\"optimizer\": \"adam\", \"framework\": \"jax\", \"jax_preallocate\": false}"

static HrAdvice *
advise (HrAdvisorWalk *walk,
        const char    *scenario_json)
{
  g_autoptr(HrScenario) s = hr_test_scenario (scenario_json);
  HrAdviceInputs facts = {
    .known = HR_FACT_TASK | HR_FACT_HOURS_PER_DAY | HR_FACT_BUDGET,
    .task = s->task, .hours_per_day = 18, .budget_usd = 2200,
  };
  HrAdviceInputs inputs;

  hr_advisor_walk_auto (walk, &facts);
  hr_advisor_walk_get_inputs (walk, &facts, &inputs);
  return hr_advice_new (s, hr_catalog_get_default (), &inputs, 6);
}

static void
test_table_layout (void)
{
  static const double sizes[][2] = { { 1280, 800 }, { 640, 400 }, { 640, 160 } };
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (hr_advisor_get_default ());
  g_autoptr(HrAdvice) advice = advise (walk, DREAMER_SCENARIO);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(GObject) context_ref = G_OBJECT (hr_chart_pango_context_new ());
  PangoContext *context = PANGO_CONTEXT (context_ref);
  HrAdviceChartData data = { advice, "DreamerV3", "Decision path: a → b." };

  g_assert_cmpuint (advice->recommendations->len, ==, 6);

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      g_autoptr(HrAdviceChartLayout) layout = hr_advice_chart_layout (&data, style, context,
                                                                      sizes[k][0], sizes[k][1]);
      HrRect canvas = { 0, 0, sizes[k][0], sizes[k][1] };
      guint cells = layout->n_columns * (layout->n_rows + 1);

      /* everything on the canvas, no two labels overlapping */
      for (guint i = 0; i < layout->labels->len; i++)
        {
          const HrChartLabel *a = &g_array_index (layout->labels, HrChartLabel, i);

          g_assert_true (hr_rect_inside (&a->box, &canvas, SLACK));
          for (guint j = i + 1; j < layout->labels->len; j++)
            {
              const HrChartLabel *b = &g_array_index (layout->labels, HrChartLabel, j);
              HrRect shrunk = { a->box.x + SLACK, a->box.y + SLACK, a->box.width - 2 * SLACK,
                                a->box.height - 2 * SLACK };

              if (a->box.width > 0 && b->box.width > 0 && hr_rect_intersects (&shrunk, &b->box))
                g_error ("\"%s\" overlaps \"%s\" at %gx%g", a->text, b->text, sizes[k][0],
                         sizes[k][1]);
            }
        }

      /* the big canvas holds every row; the short one drops rows, never
       * half a row */
      if (k == 0)
        g_assert_cmpuint (layout->n_rows, ==, advice->recommendations->len);
      g_assert_cmpuint (layout->labels->len, >=, cells + 2);
      g_assert_cmpuint (layout->rules->len, ==, layout->n_rows + (layout->n_rows > 0 ? 1 : 0));
      if (layout->n_rows > 0)
        g_assert_cmpfloat (layout->best.height, >, 0);
    }

  /* the first row names the first recommendation */
  {
    g_autoptr(HrAdviceChartLayout) layout = hr_advice_chart_layout (&data, style, context, 1280,
                                                                    800);
    const HrRecommendation *best = g_ptr_array_index (advice->recommendations, 0);
    gboolean found = FALSE;

    for (guint i = 0; i < layout->labels->len; i++)
      {
        const HrChartLabel *l = &g_array_index (layout->labels, HrChartLabel, i);

        if (g_str_equal (l->text, best->gpu_name) &&
            l->box.y >= layout->best.y && l->box.y < layout->best.y + layout->best.height)
          found = TRUE;
      }
    g_assert_true (found);
  }
}

static void
test_table_render (void)
{
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (hr_advisor_get_default ());
  g_autoptr(HrAdvice) advice = advise (walk, DREAMER_SCENARIO);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  HrAdviceChartData data = { advice, "DreamerV3", NULL };
  HrExportOptions options = { HR_EXPORT_SVG, 800, 500, 1, "DreamerV3", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autofree char *summary = hr_advice_chart_summary (&data);
  g_autofree char *text = NULL;
  gsize size;

  g_assert_nonnull (strstr (summary, "GeForce RTX 4090"));
  g_assert_nonnull (strstr (summary, "Host:"));
  options.description = summary;
  svg = hr_chart_export_bytes (&options, style, hr_advice_chart_draw, &data, &error);
  g_assert_no_error (error);
  text = g_strndup (g_bytes_get_data (svg, &size), g_bytes_get_size (svg));
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  g_assert_nonnull (strstr (text, "<desc"));

  options.format = HR_EXPORT_PNG;
  png = hr_chart_export_bytes (&options, style, hr_advice_chart_draw, &data, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (png), >, 1000);
}

/* Halfway through the wizard: the answered path, the current question
 * dashed with its answers to come, and the answers not taken muted. */
static void
test_advisor_tree (void)
{
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (hr_advisor_get_default ());
  g_autoptr(HrTreeNode) tree = NULL;
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(GObject) context_ref = G_OBJECT (hr_chart_pango_context_new ());
  PangoContext *context = PANGO_CONTEXT (context_ref);
  g_autoptr(HrTreeChartLayout) layout = NULL;
  g_autofree char *summary = NULL;
  guint current = 0, chosen = 0;

  g_assert_true (hr_advisor_walk_answer (walk, "train", NULL));
  g_assert_true (hr_advisor_walk_answer (walk, "daily", NULL));
  tree = hr_advisor_walk_to_tree (walk, NULL);
  layout = hr_tree_chart_layout (tree, "Advisor", style, context, 1280, 800);

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      if (ln->node->current)
        {
          current++;
          g_assert_cmpstr (ln->node->text, ==, "Buy or rent?");
          g_assert_true (ln->chosen);
        }
      if (ln->chosen)
        chosen++;
    }
  g_assert_cmpuint (current, ==, 1);
  /* root, "Long-term…", "Buy or rent?" */
  g_assert_cmpuint (chosen, ==, 3);
  /* the three chosen, two answers not taken at each answered question,
   * and the three answers to come */
  g_assert_cmpuint (layout->nodes->len, ==, 3 + 2 + 2 + 3);

  /* clicking the answered question finds it: the wizard goes back there */
  {
    const HrTreeLayoutNode *usage = &g_array_index (layout->nodes, HrTreeLayoutNode, 1);
    const HrTreeNode *hit = hr_tree_chart_hit_test (layout,
                                                    usage->box.x + usage->box.width / 2,
                                                    usage->box.y + usage->box.height / 2);

    g_assert_cmpstr (usage->node->text, ==, "Long-term, high-frequency use?");
    g_assert_true (hit == usage->node);
  }

  summary = hr_tree_chart_summary (tree);
  g_assert_nonnull (strstr (summary, "Train from scratch"));
  g_assert_nonnull (strstr (summary, "Buy or rent? (not answered yet)"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chart/advice/table-layout", test_table_layout);
  g_test_add_func ("/chart/advice/table-render", test_table_render);
  g_test_add_func ("/chart/advice/tree", test_advisor_tree);

  return g_test_run ();
}
