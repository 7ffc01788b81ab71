/* test-chart-tree.c: the decision tree's layout, hit test, summary and a
 * few pixels
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"

/* hr_rect_inside's slack: layouts work in doubles. */
#define SLACK 0.5

static const struct {
  double width;
  double height;
} canvases[] = {
  { 1280, 800 },
  { 400, 300 },
};

#define LONG_TEXT \
  "Does the whole model, with its optimizer state, gradients and the activations at " \
  "this micro-batch, fit on one 24 GB GPU?"
#define LONG_ANSWER "Yes, with a little room to spare for the allocator"

static HrTreeNode *
add (HrTreeNode *parent,
     const char *text,
     const char *answer)
{
  return hr_tree_node_add (parent, hr_tree_node_new (text, answer));
}

/* Question → Yes → question → … , four deep, all chosen. */
static HrTreeNode *
new_chain (void)
{
  HrTreeNode *root = hr_tree_node_new ("Fits on one card?", NULL);
  HrTreeNode *node = root;

  root->chosen = TRUE;
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *text = g_strdup_printf ("Question %u?", i + 2);

      node = add (node, text, "Yes");
      node->chosen = TRUE;
    }
  hr_tree_node_set_detail (add (node, "Buy a card", "Yes"), "about $1,600");
  return root;
}

/* One question, eight recommendations; the fifth chosen. */
static HrTreeNode *
new_fan (void)
{
  HrTreeNode *root = hr_tree_node_new ("Which budget?", NULL);

  root->chosen = TRUE;
  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *text = g_strdup_printf ("Card %u", i + 1);
      g_autofree char *answer = g_strdup_printf ("$%u,000", i + 1);
      HrTreeNode *leaf = add (root, text, answer);

      hr_tree_node_set_detail (leaf, "a detail line");
      leaf->chosen = i == 4;
    }
  return root;
}

/* A deep left branch, a bare right leaf, and a middle branch in between. */
static HrTreeNode *
new_unbalanced (void)
{
  HrTreeNode *root = hr_tree_node_new ("Train or infer?", NULL);
  HrTreeNode *train = add (root, "Fits on one 24 GB card?", "Train");
  HrTreeNode *no, *shard, *infer;

  add (train, "Buy a 4090", "Yes");
  no = add (train, "Fits on one 80 GB card?", "No");
  add (no, "Rent an H100", "Yes");
  shard = add (no, "Shard over GPUs?", "No");
  add (shard, "ZeRO-3 over 8 GPUs", "Yes")->chosen = TRUE;
  add (shard, "Offload to host memory", "No");
  infer = add (root, "Quantize?", "Infer");
  add (infer, "4-bit", "Yes");
  add (infer, "fp16", "No");
  add (root, "Read the docs", "Not sure");
  root->chosen = train->chosen = no->chosen = shard->chosen = TRUE;
  return root;
}

/* 120-character questions, long answers and a long detail. */
static HrTreeNode *
new_long_labels (void)
{
  HrTreeNode *root = hr_tree_node_new (LONG_TEXT, NULL);
  HrTreeNode *yes = add (root, LONG_TEXT, LONG_ANSWER);
  HrTreeNode *no = add (root,
                        "Rent the largest card the cloud has, by the hour, and shard the "
                        "optimizer state",
                        "No, not even close, it needs several times the memory");

  g_assert_cmpuint (strlen (LONG_TEXT), ==, 120);
  hr_tree_node_set_detail (no,
                           "about $2.50 an hour per card, billed by the second, in most regions");
  add (yes, "Buy it", LONG_ANSWER);
  add (yes, "Rent it", "No, only now and then for a week or two at a time");
  root->chosen = yes->chosen = TRUE;
  return root;
}

static HrTreeNode *
new_example (const char *name)
{
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = NULL;

  g_assert_nonnull (dir);
  path = g_build_filename (dir, name, NULL);
  scenario = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  return hr_tree_new_gpu_choice (scenario, hr_catalog_get_default ());
}

static HrTreeChartLayout *
lay_out (const HrTreeNode *root,
         double            width,
         double            height)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  PangoContext *context = hr_chart_pango_context_new ();
  HrTreeChartLayout *layout;

  layout = hr_tree_chart_layout (root, "Which GPU?", style, context, width, height);
  g_object_unref (context);
  return layout;
}

static const HrTreeLayoutNode *
layout_node (const HrTreeChartLayout *layout,
             guint                    i)
{
  return &g_array_index (layout->nodes, HrTreeLayoutNode, i);
}

static double
centre_x (const HrRect *rect)
{
  return rect->x + rect->width / 2;
}

static void
assert_inside (const HrRect *inner,
               const HrRect *outer,
               const char   *what)
{
  if (!hr_rect_inside (inner, outer, SLACK))
    g_error ("%s (%g, %g, %g × %g) is not inside (%g, %g, %g × %g)", what,
             inner->x, inner->y, inner->width, inner->height,
             outer->x, outer->y, outer->width, outer->height);
}

/* Pre-order, as the layout keeps its nodes. */
static void
walk (const HrTreeNode *node,
      GPtrArray        *order)
{
  g_ptr_array_add (order, (gpointer) node);
  for (guint i = 0; i < node->children->len; i++)
    walk (g_ptr_array_index (node->children, i), order);
}

/* What every layout of every tree must satisfy. */
static void
check_layout (const HrTreeChartLayout *layout,
              const HrTreeNode        *root,
              double                   width,
              double                   height)
{
  HrRect canvas = { 0, 0, width, height };
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  walk (root, order);
  g_assert_cmpuint (layout->nodes->len, ==, order->len);
  g_assert_cmpfloat (layout->scale, >, 0);
  g_assert_cmpfloat (layout->scale, <=, 1);
  g_assert_cmpuint (layout->labels->len, ==, 1);
  assert_inside (&g_array_index (layout->labels, HrChartLabel, 0).box, &canvas, "title");

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *ln = layout_node (layout, i);
      g_autoptr(GArray) children = g_array_new (FALSE, FALSE, sizeof (guint));

      /* The tree's own order and flags. */
      g_assert_true (ln->node == g_ptr_array_index (order, i));
      g_assert_cmpint (ln->chosen, ==, ln->node->chosen);
      g_assert_cmpint (ln->leaf, ==, hr_tree_node_is_leaf (ln->node));
      g_assert_cmpstr (ln->text.text, ==, ln->node->text);
      g_assert_cmpstr (ln->detail.text, ==, ln->node->detail);

      /* Everything on the canvas, text inside its box. */
      assert_inside (&ln->box, &canvas, ln->node->text);
      assert_inside (&ln->text.box, &ln->box, "text");
      if (ln->detail.text != NULL)
        {
          assert_inside (&ln->detail.box, &ln->box, "detail");
          g_assert_cmpfloat (ln->detail.box.y, >=, ln->text.box.y + ln->text.box.height);
        }

      /* No two boxes overlap; answers overlap no box and no other answer. */
      for (guint j = 0; j < layout->nodes->len; j++)
        {
          const HrTreeLayoutNode *other = layout_node (layout, j);

          if (j != i)
            g_assert_false (hr_rect_intersects (&ln->box, &other->box));
          if (ln->edge_label.text != NULL)
            g_assert_false (hr_rect_intersects (&ln->edge_label.box, &other->box));
          if (j != i && ln->edge_label.text != NULL && other->edge_label.text != NULL)
            g_assert_false (hr_rect_intersects (&ln->edge_label.box, &other->edge_label.box));
        }

      /* The hit test finds the node at its box's centre. */
      g_assert_true (hr_tree_chart_hit_test (layout, centre_x (&ln->box),
                                             ln->box.y + ln->box.height / 2) == ln->node);

      if (i == 0)
        {
          g_assert_cmpuint (ln->parent, ==, G_MAXUINT);
          g_assert_cmpuint (ln->depth, ==, 0);
          g_assert_null (ln->edge_label.text);
        }
      else
        {
          const HrTreeLayoutNode *parent = layout_node (layout, ln->parent);

          g_assert_cmpuint (ln->parent, <, i);
          g_assert_cmpuint (ln->depth, ==, parent->depth + 1);
          g_assert_cmpfloat (parent->box.y + parent->box.height, <, ln->box.y);

          /* Edges leave the parent's bottom and enter the child's top. */
          g_assert_cmpfloat_with_epsilon (ln->edge_from.y, parent->box.y + parent->box.height,
                                          1e-6);
          g_assert_cmpfloat (ln->edge_from.x, >, parent->box.x);
          g_assert_cmpfloat (ln->edge_from.x, <, parent->box.x + parent->box.width);
          g_assert_cmpfloat_with_epsilon (ln->edge_to.y, ln->box.y, 1e-6);
          g_assert_cmpfloat (ln->edge_to.x, >, ln->box.x);
          g_assert_cmpfloat (ln->edge_to.x, <, ln->box.x + ln->box.width);

          /* The answer lies on the canvas, between the two boxes. */
          g_assert_cmpstr (ln->edge_label.text, ==, ln->node->edge_label);
          if (ln->edge_label.text != NULL)
            {
              assert_inside (&ln->edge_label.box, &canvas, "answer");
              g_assert_cmpfloat (ln->edge_label.box.y, >, parent->box.y + parent->box.height);
              g_assert_cmpfloat (ln->edge_label.box.y + ln->edge_label.box.height, <, ln->box.y);
            }
        }

      for (guint j = i + 1; j < layout->nodes->len; j++)
        if (layout_node (layout, j)->parent == i)
          g_array_append_val (children, j);
      g_assert_cmpuint (children->len, ==, ln->node->children->len);

      for (guint k = 0; k < children->len; k++)
        {
          const HrTreeLayoutNode *child = layout_node (layout, g_array_index (children, guint, k));

          /* Children keep the tree's order, left to right. */
          g_assert_true (child->node == g_ptr_array_index (ln->node->children, k));
          if (k > 0)
            {
              guint prev_index = g_array_index (children, guint, k - 1);
              const HrTreeLayoutNode *prev = layout_node (layout, prev_index);

              g_assert_cmpfloat (prev->box.x + prev->box.width, <, child->box.x);
            }
        }

      /* A parent is centred over its first and last child. */
      if (children->len > 0)
        {
          guint first = g_array_index (children, guint, 0);
          guint last = g_array_index (children, guint, children->len - 1);
          double middle = (centre_x (&layout_node (layout, first)->box) +
                           centre_x (&layout_node (layout, last)->box)) / 2;

          g_assert_cmpfloat (fabs (centre_x (&ln->box) - middle), <=, 1.0);
        }
    }

  /* Nothing in the margin's corner. */
  g_assert_null (hr_tree_chart_hit_test (layout, 1, height - 1));
}

static void
check_tree (const HrTreeNode *root)
{
  for (guint c = 0; c < G_N_ELEMENTS (canvases); c++)
    {
      g_autoptr(HrTreeChartLayout) layout = lay_out (root, canvases[c].width, canvases[c].height);

      check_layout (layout, root, canvases[c].width, canvases[c].height);
    }
}

static void
test_chain (void)
{
  g_autoptr(HrTreeNode) root = new_chain ();
  g_autoptr(HrTreeChartLayout) layout = lay_out (root, 1280, 800);

  check_tree (root);

  /* A chain fits unscaled, one node a row, all on one vertical line. */
  g_assert_cmpfloat (layout->scale, ==, 1.0);
  for (guint i = 1; i < layout->nodes->len; i++)
    g_assert_cmpfloat (fabs (centre_x (&layout_node (layout, i)->box) -
                             centre_x (&layout_node (layout, 0)->box)), <=, 1.0);
}

static void
test_fan (void)
{
  g_autoptr(HrTreeNode) root = new_fan ();
  g_autoptr(HrTreeChartLayout) layout = lay_out (root, 1280, 800);

  check_tree (root);

  /* The eight leaves share one row, and the gap between two of them is
   * empty space. */
  for (guint i = 2; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *prev = layout_node (layout, i - 1);
      const HrTreeLayoutNode *leaf = layout_node (layout, i);
      double gap_x = (prev->box.x + prev->box.width + leaf->box.x) / 2;

      g_assert_cmpfloat (leaf->box.y, ==, prev->box.y);
      g_assert_null (hr_tree_chart_hit_test (layout, gap_x, leaf->box.y + leaf->box.height / 2));
    }
}

static void
test_unbalanced (void)
{
  g_autoptr(HrTreeNode) root = new_unbalanced ();

  check_tree (root);
}

static void
test_long_labels (void)
{
  g_autoptr(HrTreeNode) root = new_long_labels ();
  g_autoptr(HrTreeChartLayout) layout = lay_out (root, 1280, 800);
  const HrTreeLayoutNode *top = layout_node (layout, 0);

  check_tree (root);

  /* Long text wraps into a taller box instead of a wider one. */
  g_assert_cmpfloat (layout->scale, ==, 1.0);
  g_assert_cmpfloat (top->box.width, <, 260);
  g_assert_cmpfloat (top->text.box.height, >, 3 * top->text.box.width / 120);
}

/* Box widths follow their text. */
static void
test_adaptive_width (void)
{
  g_autoptr(HrTreeNode) root = hr_tree_node_new ("Which?", NULL);
  g_autoptr(HrTreeChartLayout) layout = NULL;
  const char *texts[] = { "Buy a card", "Buy a card and a bigger power supply", LONG_TEXT };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    add (root, texts[i], "Yes");
  layout = lay_out (root, 1280, 800);
  check_layout (layout, root, 1280, 800);

  g_assert_cmpfloat (layout_node (layout, 1)->box.width, <, layout_node (layout, 2)->box.width);
  g_assert_cmpfloat (layout_node (layout, 2)->box.width, <=, layout_node (layout, 3)->box.width);
  g_assert_cmpfloat (layout_node (layout, 2)->box.height, <, layout_node (layout, 3)->box.height);
}

/* A wide tree on a small canvas shrinks; a narrow one is centred. */
static void
test_scale_and_centre (void)
{
  g_autoptr(HrTreeNode) fan = new_fan ();
  g_autoptr(HrTreeNode) chain = new_chain ();
  g_autoptr(HrTreeChartLayout) small = lay_out (fan, 400, 300);
  g_autoptr(HrTreeChartLayout) big = lay_out (fan, 1280, 800);
  g_autoptr(HrTreeChartLayout) narrow = lay_out (chain, 1280, 800);
  double left = G_MAXDOUBLE, right = -G_MAXDOUBLE;

  g_assert_cmpfloat (small->scale, <, 1.0);
  g_assert_cmpfloat (big->scale, ==, 1.0);
  /* Boxes and text shrink alike. */
  g_assert_cmpfloat_with_epsilon (layout_node (small, 1)->box.width,
                                  layout_node (big, 1)->box.width * small->scale, 1e-9);
  g_assert_cmpfloat_with_epsilon (layout_node (small, 1)->text.box.height,
                                  layout_node (big, 1)->text.box.height * small->scale, 1e-9);

  for (guint i = 0; i < narrow->nodes->len; i++)
    {
      left = MIN (left, layout_node (narrow, i)->box.x);
      right = MAX (right, layout_node (narrow, i)->box.x + layout_node (narrow, i)->box.width);
    }
  g_assert_cmpfloat (fabs ((left + right) / 2 - 640), <=, 1.0);
}

/* A tree that is only a recommendation, with no title. */
static void
test_single_node (void)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_DARK);
  PangoContext *context = hr_chart_pango_context_new ();
  g_autoptr(HrTreeNode) root = hr_tree_node_new ("Buy a 4090", "ignored at the root");
  g_autoptr(HrTreeChartLayout) layout = hr_tree_chart_layout (root, NULL, style, context, 300, 200);
  g_autofree char *summary = hr_tree_chart_summary (root);
  HrRect canvas = { 0, 0, 300, 200 };
  const HrTreeLayoutNode *ln = layout_node (layout, 0);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 300, 200);
  cairo_t *cr = cairo_create (surface);

  g_assert_cmpuint (layout->nodes->len, ==, 1);
  g_assert_cmpuint (layout->labels->len, ==, 0);
  g_assert_true (ln->leaf);
  g_assert_null (ln->edge_label.text);
  assert_inside (&ln->box, &canvas, "box");
  assert_inside (&ln->text.box, &ln->box, "text");
  g_assert_true (hr_tree_chart_hit_test (layout, 150, ln->box.y + ln->box.height / 2) == root);
  g_assert_cmpstr (summary, ==, "Decision path: Buy a 4090. One option: Buy a 4090.");

  hr_tree_chart_render (layout, style, cr);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);

  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_object_unref (context);
}

static void
test_examples (void)
{
  /* They take different paths: a 24 GB card; more than 80 GB; 80 GB. */
  static const struct {
    const char *name;
    const char *path_end;
  } examples[] = {
    { "smolvla-4090.json",
      "Fits on one 24 GB card? → Yes → Train daily, for months? (not answered yet)" },
    { "llama-2-70b-fp16-inference.json",
      "→ No → Shard over several GPUs, or apply the memory knobs first" },
    { "gr00t-n1.7-tune-llm.json", "Fits on one 80 GB card? → Yes → Rent H100 SXM5 80GB" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (examples); i++)
    {
      g_autoptr(HrTreeNode) root = new_example (examples[i].name);
      g_autofree char *path = hr_tree_path_text (root);

      g_test_message ("%s: %s", examples[i].name, path);
      g_assert_true (g_str_has_suffix (path, examples[i].path_end));
      check_tree (root);
    }
}

/* A tree too big for a column-wide figure is drawn as its chosen path:
 * every step of the path, in order, none of its text under 6 pt, none
 * over another, all inside the canvas; a canvas the tree fits keeps the
 * whole tree. */
static void
test_readable (void)
{
  static const char * const names[] = {
    "smolvla-4090.json", "llama-2-70b-fp16-inference.json", "gr00t-n1.7-tune-llm.json",
  };
  PangoContext *context = hr_chart_pango_context_new ();

  for (guint e = 0; e < G_N_ELEMENTS (names); e++)
    {
      g_autoptr(HrTreeNode) root = new_example (names[e]);
      g_autoptr(HrTreeNode) chain = new_chain ();
      g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
      g_autoptr(HrChartStyle) screen = hr_chart_style_new (HR_CHART_THEME_LIGHT);
      g_autoptr(HrTreeChartLayout) column = NULL;
      g_autoptr(HrTreeChartLayout) whole = NULL;
      g_autoptr(HrTreeChartLayout) small_chain = NULL;
      g_autoptr(GPtrArray) labels = g_ptr_array_new ();
      const HrTreeNode *node = root;
      HrChartSize size;
      cairo_surface_t *surface;
      cairo_t *cr;
      guint steps = 0;

      hr_chart_size_init_preset (&size, HR_CHART_SIZE_COLUMN);
      hr_chart_style_apply_size (style, &size);
      column = hr_tree_chart_layout_readable (root, "A title long enough to wrap once or twice "
                                              "at a column's width", style, context, size.width,
                                              size.height);
      g_assert_true (column->path);
      g_assert_cmpfloat (style->small_size * column->scale, >=, 6.0);

      /* the chosen path, root first, each step once */
      while (node != NULL)
        {
          const HrTreeNode *next = NULL;

          g_assert_cmpuint (steps, <, column->nodes->len);
          g_assert_true (layout_node (column, steps)->node == node);
          steps++;
          for (guint i = 0; i < node->children->len; i++)
            if (((HrTreeNode *) g_ptr_array_index (node->children, i))->chosen)
              next = g_ptr_array_index (node->children, i);
          node = next;
        }
      g_assert_cmpuint (steps, ==, column->nodes->len);

      for (guint i = 0; i < column->labels->len; i++)
        g_ptr_array_add (labels, &g_array_index (column->labels, HrChartLabel, i));
      for (guint i = 0; i < column->nodes->len; i++)
        {
          HrTreeLayoutNode *ln = &g_array_index (column->nodes, HrTreeLayoutNode, i);

          g_ptr_array_add (labels, &ln->text);
          if (ln->detail.text != NULL)
            g_ptr_array_add (labels, &ln->detail);
          if (ln->edge_label.text != NULL)
            g_ptr_array_add (labels, &ln->edge_label);
          g_assert_true (hr_tree_chart_hit_test (column, ln->box.x + 1, ln->box.y + 1) ==
                         ln->node);
        }
      for (guint i = 0; i < labels->len; i++)
        {
          const HrChartLabel *a = g_ptr_array_index (labels, i);

          assert_inside (&a->box, &column->bounds, a->text);
          g_assert_null (strstr (a->text, "…"));
          for (guint j = i + 1; j < labels->len; j++)
            {
              const HrChartLabel *b = g_ptr_array_index (labels, j);
              HrRect inner = { a->box.x + 0.05, a->box.y + 0.05, a->box.width - 0.1,
                               a->box.height - 0.1 };

              if (hr_rect_intersects (&inner, &b->box))
                g_error ("%s: \"%s\" is over \"%s\"", names[e], a->text, b->text);
            }
        }

      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, size.width, size.height);
      cr = cairo_create (surface);
      hr_tree_chart_render (column, style, cr);
      g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);

      /* the whole tree where it stays legible; a chain that fits as a
       * tree stays one */
      whole = hr_tree_chart_layout_readable (root, NULL, screen, context, 4000, 2400);
      g_assert_false (whole->path);
      g_assert_cmpuint (whole->nodes->len, ==, hr_tree_node_count (root));
      small_chain = hr_tree_chart_layout_readable (chain, NULL, screen, context, 600, 900);
      g_assert_false (small_chain->path);
    }
  g_object_unref (context);
}

static void
test_hit_test (void)
{
  g_autoptr(HrTreeNode) root = new_unbalanced ();
  g_autoptr(HrTreeChartLayout) layout = lay_out (root, 1280, 800);
  const HrTreeLayoutNode *ln = layout_node (layout, 1);

  /* Corners belong to the box, a pixel outside does not. */
  g_assert_true (hr_tree_chart_hit_test (layout, ln->box.x, ln->box.y) == ln->node);
  g_assert_true (hr_tree_chart_hit_test (layout, ln->box.x + ln->box.width,
                                         ln->box.y + ln->box.height) == ln->node);
  g_assert_null (hr_tree_chart_hit_test (layout, ln->box.x - 1, ln->box.y + ln->box.height / 2));
  /* Nor does an answer. */
  g_assert_null (hr_tree_chart_hit_test (layout, centre_x (&ln->edge_label.box),
                                         ln->edge_label.box.y + ln->edge_label.box.height / 2));
  g_assert_null (hr_tree_chart_hit_test (layout, 640, 799));
}

static void
test_summary (void)
{
  g_autoptr(HrTreeNode) example = new_example ("smolvla-4090.json");
  g_autoptr(HrTreeNode) fan = new_fan ();
  g_autofree char *text = hr_tree_chart_summary (example);
  g_autofree char *fan_text = hr_tree_chart_summary (fan);

  g_test_message ("%s", text);
  g_assert_true (g_str_has_prefix (text, "Decision path: Fits on one 24 GB card? → Yes → Train "
                                         "daily, for months? (not answered yet). 6 options: Buy "
                                         "GeForce RTX 4090 ("));
  g_assert_nonnull (strstr (text, "; Shard over several GPUs, or apply the memory knobs first ("));
  g_assert_null (strchr (text, '<'));

  g_assert_cmpstr (fan_text, ==,
                   "Decision path: Which budget? → $5,000 → Card 5. 8 options: Card 1 (a detail "
                   "line); Card 2 (a detail line); Card 3 (a detail line); Card 4 (a detail "
                   "line); Card 5 (a detail line); Card 6 (a detail line); Card 7 (a detail "
                   "line); Card 8 (a detail line).");
}

/* The pixel at (x, y) is @color, to within two levels a channel. */
static void
assert_pixel (cairo_surface_t *surface,
              double           x,
              double           y,
              const HrRgba    *color)
{
  const guchar *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  guint32 pixel = *(const guint32 *) (gconstpointer) (data + (int) y * stride + (int) x * 4);
  int channels[3] = { (pixel >> 16) & 0xFF, (pixel >> 8) & 0xFF, pixel & 0xFF };
  double expected[3] = { color->red, color->green, color->blue };

  for (guint i = 0; i < 3; i++)
    if (abs (channels[i] - (int) round (expected[i] * 255)) > 2)
      g_error ("pixel (%g, %g) is #%06X, not #%02X%02X%02X", x, y, pixel & 0xFFFFFF,
               (int) round (expected[0] * 255), (int) round (expected[1] * 255),
               (int) round (expected[2] * 255));
}

static void
test_pixels (void)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrTreeNode) root = new_unbalanced ();
  g_autoptr(HrTreeChartLayout) layout = lay_out (root, 1280, 800);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1280, 800);
  cairo_t *cr = cairo_create (surface);
  const HrTreeLayoutNode *question = layout_node (layout, 1);   /* chosen */
  const HrTreeLayoutNode *leaf = layout_node (layout, 6);       /* chosen: ZeRO-3 */
  const HrTreeLayoutNode *other = layout_node (layout, 8);      /* "Quantize?", not chosen */

  g_assert_true (question->chosen && !question->leaf);
  g_assert_true (leaf->chosen && leaf->leaf);
  g_assert_true (!other->chosen && !other->leaf);

  hr_tree_chart_render (layout, style, cr);
  cairo_surface_flush (surface);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);

  assert_pixel (surface, 2, 2, &style->background);
  /* A chosen box's border is the accent, a pixel inside its top edge and
   * clear of the edge arriving at its centre. */
  assert_pixel (surface, question->box.x + question->box.width / 4, question->box.y + 1,
                &style->accent);
  /* The chosen recommendation is filled with it. */
  assert_pixel (surface, leaf->box.x + 4, leaf->box.y + leaf->box.height / 2, &style->accent);
  /* The rest is plain node colour inside a thin neutral border. */
  assert_pixel (surface, other->box.x + 4, other->box.y + other->box.height / 2, &style->node);
  assert_pixel (surface, other->box.x + other->box.width / 4, other->box.y, &style->node_border);

  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chart/tree/chain", test_chain);
  g_test_add_func ("/chart/tree/fan", test_fan);
  g_test_add_func ("/chart/tree/unbalanced", test_unbalanced);
  g_test_add_func ("/chart/tree/long-labels", test_long_labels);
  g_test_add_func ("/chart/tree/adaptive-width", test_adaptive_width);
  g_test_add_func ("/chart/tree/scale-and-centre", test_scale_and_centre);
  g_test_add_func ("/chart/tree/single-node", test_single_node);
  g_test_add_func ("/chart/tree/examples", test_examples);
  g_test_add_func ("/chart/tree/readable", test_readable);
  g_test_add_func ("/chart/tree/hit-test", test_hit_test);
  g_test_add_func ("/chart/tree/summary", test_summary);
  g_test_add_func ("/chart/tree/pixels", test_pixels);

  return g_test_run ();
}
