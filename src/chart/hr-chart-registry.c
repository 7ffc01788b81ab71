/* hr-chart-registry.c: every chart Headroom draws, as data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include "hr-chart-advice.h"
#include "hr-chart-buckets.h"
#include "hr-chart-curve.h"
#include "hr-chart-registry.h"
#include "hr-chart-text.h"
#include "hr-chart-tree.h"

/* ---- buckets ---- */

static gpointer
buckets_new (const HrChartSource *source)
{
  return hr_bucket_chart_data_new_for_analysis (source->analysis);
}

static void
buckets_free (gpointer data)
{
  hr_bucket_chart_data_free (data);
}

static const char *
buckets_title (gconstpointer data)
{
  return ((const HrBucketChartData *) data)->title;
}

static char *
buckets_summary (gconstpointer data)
{
  return hr_bucket_chart_summary (data);
}

static gpointer
buckets_layout (gconstpointer       data,
                const HrChartStyle *style,
                PangoContext       *context,
                double              width,
                double              height)
{
  return hr_bucket_chart_layout (data, style, context, width, height);
}

static void
buckets_layout_free (gpointer layout)
{
  hr_bucket_chart_layout_free (layout);
}

static void
buckets_render (gconstpointer       layout,
                gconstpointer       data,
                const HrChartStyle *style,
                cairo_t            *cr)
{
  hr_bucket_chart_render (layout, data, style, cr);
}

static char *
buckets_hit_test (gconstpointer layout,
                  gconstpointer data,
                  double        x,
                  double        y)
{
  return hr_bucket_chart_describe_at (layout, data, x, y);
}

/* ---- curve ---- */

static gpointer
curve_new (const HrChartSource *source)
{
  return hr_curve_chart_data_new_for_analysis (source->analysis);
}

static void
curve_free (gpointer data)
{
  hr_curve_chart_data_free (data);
}

static const char *
curve_title (gconstpointer data)
{
  return ((const HrCurveChartData *) data)->title;
}

static char *
curve_summary (gconstpointer data)
{
  return hr_curve_chart_summary (data);
}

static gpointer
curve_layout (gconstpointer       data,
              const HrChartStyle *style,
              PangoContext       *context,
              double              width,
              double              height)
{
  return hr_curve_chart_layout (data, style, context, width, height);
}

static void
curve_layout_free (gpointer layout)
{
  hr_curve_chart_layout_free (layout);
}

static void
curve_render (gconstpointer       layout,
              gconstpointer       data,
              const HrChartStyle *style,
              cairo_t            *cr)
{
  hr_curve_chart_render (layout, data, style, cr);
}

static char *
curve_hit_test (gconstpointer layout,
                gconstpointer data,
                double        x,
                double        y)
{
  return hr_curve_chart_describe_at (layout, data, x, y);
}

/* ---- the advisor's tree and table ---- */

typedef struct {
  HrAdvisorWalk     *walk;      /* owned when walked here */
  HrAdvice          *advice;    /* owned when made here */
  HrTreeNode        *tree;
  char              *title;
  char              *path;
  HrAdviceChartData  table;
} AdvisorData;

static void
advisor_free (gpointer data)
{
  AdvisorData *d = data;

  g_clear_pointer (&d->walk, hr_advisor_walk_free);
  g_clear_pointer (&d->advice, hr_advice_free);
  g_clear_pointer (&d->tree, hr_tree_node_free);
  g_free (d->title);
  g_free (d->path);
  g_free (d);
}

static gpointer
advisor_new (const HrChartSource *source)
{
  AdvisorData *d = g_new0 (AdvisorData, 1);
  const HrScenario *s = hr_analysis_get_scenario (source->analysis);
  HrAdvisorWalk *walk = source->walk;
  const HrAdvice *advice = source->advice;
  const HrRecommendation *best;
  g_autofree char *leaf = NULL;
  g_autofree char *words = NULL;

  /* Without the user's answers: the scenario's task and the tree's
   * defaults, as the report shows it. */
  if (walk == NULL)
    {
      HrAdviceInputs facts = { .known = HR_FACT_TASK, .task = s->task };
      HrAdviceInputs inputs;

      walk = d->walk = hr_advisor_walk_new (hr_advisor_get_default ());
      hr_advisor_walk_auto (walk, &facts);
      hr_advisor_walk_get_inputs (walk, NULL, &inputs);
      advice = d->advice = hr_analysis_advise (source->analysis,
                                               source->catalog != NULL
                                                 ? source->catalog : hr_catalog_get_default (),
                                               &inputs,
                                               hr_advisor_walk_get_current (walk)
                                                 ->max_recommendations);
    }

  best = advice != NULL && advice->recommendations->len > 0
           ? g_ptr_array_index (advice->recommendations, 0) : NULL;
  /* Translators: the count, the card's name, then the largest
   * micro-batch; "\u00A0" is a no-break space. */
  if (best != NULL && best->choice == HR_ADVICE_CHOICE_BUY)
    leaf = g_strdup_printf (_("Buy %u × %s\u00A0· micro-batch up to %u"),
                            best->count, best->gpu_name, best->max_micro_batch);
  else if (best != NULL)
    leaf = g_strdup_printf (_("Rent %u × %s\u00A0· micro-batch up to %u"),
                            best->count, best->gpu_name, best->max_micro_batch);
  d->tree = hr_advisor_walk_to_tree (walk, leaf != NULL ? leaf : _("no card fits"));
  d->title = g_strdup (s->name != NULL && s->name[0] != '\0' ? s->name : s->model->name);
  words = hr_tree_path_text (d->tree);
  d->path = g_strdup_printf (_("Decision path: %s."), words);
  d->table.advice = advice;
  d->table.title = d->title;
  d->table.path = d->path;
  d->table.unit = hr_analysis_get_unit (source->analysis);
  return d;
}

static const char *
advisor_title (gconstpointer data)
{
  return ((const AdvisorData *) data)->title;
}

static char *
tree_summary (gconstpointer data)
{
  return hr_tree_chart_summary (((const AdvisorData *) data)->tree);
}

static gpointer
tree_layout (gconstpointer       data,
             const HrChartStyle *style,
             PangoContext       *context,
             double              width,
             double              height)
{
  const AdvisorData *d = data;

  return hr_tree_chart_layout_readable (d->tree, d->title, style, context, width, height);
}

static void
tree_layout_free (gpointer layout)
{
  hr_tree_chart_layout_free (layout);
}

static void
tree_render (gconstpointer       layout,
             gconstpointer       data,
             const HrChartStyle *style,
             cairo_t            *cr)
{
  hr_tree_chart_render (layout, style, cr);
}

static char *
tree_hit_test (gconstpointer layout,
               gconstpointer data,
               double        x,
               double        y)
{
  const HrTreeNode *node = hr_tree_chart_hit_test (layout, x, y);

  if (node == NULL)
    return NULL;
  return node->detail != NULL ? g_strdup_printf ("%s: %s", node->text, node->detail)
                              : g_strdup (node->text);
}

static char *
advice_summary (gconstpointer data)
{
  return hr_advice_chart_summary (&((const AdvisorData *) data)->table);
}

static gpointer
advice_layout (gconstpointer       data,
               const HrChartStyle *style,
               PangoContext       *context,
               double              width,
               double              height)
{
  return hr_advice_chart_layout (&((const AdvisorData *) data)->table, style, context, width,
                                 height);
}

static void
advice_layout_free (gpointer layout)
{
  hr_advice_chart_layout_free (layout);
}

static void
advice_render (gconstpointer       layout,
               gconstpointer       data,
               const HrChartStyle *style,
               cairo_t            *cr)
{
  hr_advice_chart_render (layout, style, cr);
}

/* ---- the table ---- */

static const HrChartType chart_types[] = {
  { "buckets", N_("Memory by bucket"), FALSE, buckets_new, buckets_free, buckets_title,
    buckets_summary, buckets_layout, buckets_layout_free, buckets_render, buckets_hit_test },
  { "curve", N_("Peak against micro-batch"), FALSE, curve_new, curve_free, curve_title,
    curve_summary, curve_layout, curve_layout_free, curve_render, curve_hit_test },
  { "tree", N_("Buy-or-rent decision tree"), TRUE, advisor_new, advisor_free, advisor_title,
    tree_summary, tree_layout, tree_layout_free, tree_render, tree_hit_test },
  { "advice", N_("Recommended GPUs"), TRUE, advisor_new, advisor_free, advisor_title,
    advice_summary, advice_layout, advice_layout_free, advice_render, NULL },
};

guint
hr_chart_types_get_n (void)
{
  return G_N_ELEMENTS (chart_types);
}

const HrChartType *
hr_chart_types_get (guint index)
{
  g_return_val_if_fail (index < G_N_ELEMENTS (chart_types), NULL);
  return &chart_types[index];
}

const HrChartType *
hr_chart_type_find (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (chart_types); i++)
    if (g_str_equal (chart_types[i].name, name))
      return &chart_types[i];
  return NULL;
}

char *
hr_chart_types_list_names (const char *separator)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (chart_types); i++)
    g_string_append_printf (names, "%s%s", i > 0 ? separator : "", chart_types[i].name);
  return g_string_free (names, FALSE);
}

void
hr_chart_type_draw (const HrChartType  *type,
                    cairo_t            *cr,
                    PangoContext       *context,
                    const HrChartStyle *style,
                    double              width,
                    double              height,
                    gconstpointer       data)
{
  gpointer layout;

  g_return_if_fail (type != NULL && data != NULL);

  layout = type->layout (data, style, context, width, height);
  hr_chart_text_draw_with (cr, context);
  type->render (layout, data, style, cr);
  type->layout_free (layout);
}

char *
hr_chart_type_describe_at (const HrChartType  *type,
                           gconstpointer       data,
                           const HrChartStyle *style,
                           PangoContext       *context,
                           double              width,
                           double              height,
                           double              x,
                           double              y)
{
  gpointer layout;
  char *text;

  g_return_val_if_fail (type != NULL && data != NULL, NULL);

  if (type->hit_test == NULL)
    return NULL;
  layout = type->layout (data, style, context, width, height);
  text = type->hit_test (layout, data, x, y);
  type->layout_free (layout);
  return text;
}

void
hr_chart_drawing_draw (cairo_t            *cr,
                       PangoContext       *context,
                       const HrChartStyle *style,
                       double              width,
                       double              height,
                       gpointer            drawing)
{
  const HrChartDrawing *d = drawing;

  hr_chart_type_draw (d->type, cr, context, style, width, height, d->data);
}
