/* hr-chart-tree.c: a decision tree, laid out top-down
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <math.h>

#include "hr-chart-text.h"
#include "hr-chart-tree.h"

/* Spacing in logical pixels, before the tree is scaled to the canvas. */
#define MARGIN          16.0
#define TITLE_GAP       16.0   /* title to the tree */
#define PAD_X           12.0   /* text to the sides of its box */
#define PAD_Y            8.0
#define DETAIL_GAP       2.0   /* text to the detail line under it */
#define MIN_BOX_WIDTH   96.0
#define TEXT_WRAP      200.0
#define ANSWER_WRAP    140.0
#define SUBTREE_GAP     24.0   /* between neighbouring boxes or answers */
#define RUN_DROP        14.0   /* a row's lowest box to the horizontal run of its edges */
#define ANSWER_GAP       8.0   /* the run to an answer, the answer to the child */
#define PILL_X           6.0   /* answer text to the sides of its pill */
#define PILL_Y           2.0
#define PILL_RADIUS      9.0   /* round ends for one line, corners for more */
#define MAX_SPREAD      32.0   /* more room between rows, on a tall canvas */
#define ELBOW_RADIUS     8.0
#define LEAF_RADIUS     14.0   /* recommendations are pills, questions boxes */

/* How much of the accent tints a chosen question's box. */
#define CHOSEN_TINT      0.14

/* The chosen path as a list, for a canvas the whole tree does not fit
 * legibly: the smallest text a figure keeps, in points, and the list's
 * spacing, in logical pixels times the style's spacing. */
#define READABLE_POINTS  6.0
#define PATH_DOT         2.5    /* a step's dot, its radius */
#define PATH_INDENT     16.0    /* the dots' column, before the text */
#define PATH_GAP         4.0    /* between steps */
#define PATH_COLUMN_GAP  8.0    /* a question to its answer */
#define PATH_PAD         4.0    /* the recommendation's text to its box */

typedef struct {
  double left;
  double right;
} Extent;

/* The layout's working state before the tree is scaled into the canvas,
 * in unscaled pixels; per-node arrays follow layout->nodes. */
typedef struct {
  HrTreeChartLayout  *layout;
  const HrChartStyle *style;
  PangoContext       *context;
  double             *centre;         /* a box's centre x */
  double             *slot;           /* its box or its answer, whichever is wider */
  double             *row_height;     /* per depth: the tallest box */
  double             *answer_height;  /* per depth: the tallest answer leading there */
  double             *row_top;
  double             *answer_top;
  guint               n_rows;
} Builder;

static void
layout_node_clear (gpointer data)
{
  HrTreeLayoutNode *ln = data;

  hr_chart_label_clear (&ln->text);
  hr_chart_label_clear (&ln->detail);
  hr_chart_label_clear (&ln->edge_label);
}

/* Widths are kept even so that a box centred on a whole pixel has whole
 * pixel sides. */
static double
even_ceil (double value)
{
  return 2.0 * ceil (value / 2.0);
}

/* The narrowest wrap width, to within a pixel or two, that keeps @text to
 * the lines @wrap gives it: balanced lines rather than a full line and an
 * orphan ("Buy an GeForce RTX" over "4090"). */
static double
balanced_wrap (const Builder *b,
               const char    *text,
               HrChartFont    font,
               double         wrap)
{
  double line_width, line_height, height, lo, hi;

  hr_chart_text_size (b->context, b->style, font, text, 0, &line_width, &line_height);
  if (line_width <= wrap)
    return wrap;

  hr_chart_text_size (b->context, b->style, font, text, wrap, NULL, &height);
  lo = line_width / round (height / line_height);
  hi = wrap;
  for (guint i = 0; i < 5; i++)
    {
      double mid = (lo + hi) / 2, mid_height;

      hr_chart_text_size (b->context, b->style, font, text, mid, NULL, &mid_height);
      if (mid_height > height + 0.5)
        lo = mid;
      else
        hi = mid;
    }

  return ceil (hi);
}

/* Measures @text into @label, anchored at (0, 0): the label is moved to
 * its place once the tree is laid out. */
static void
measure_label (const Builder   *b,
               HrChartLabel    *label,
               const char      *text,
               HrChartFont      font,
               HrChartTextRole  role,
               double           wrap)
{
  *label = hr_chart_label_new (b->context, b->style, g_strdup (text), font, role, HR_ALIGN_CENTER,
                               balanced_wrap (b, text, font, wrap), 0, 0);
  label->on_fill = role == HR_TEXT_ON_FILL;
}

static void
move_label (HrChartLabel *label,
            double        x,
            double        y)
{
  label->box.x += x;
  label->box.y += y;
}

/* Pass one, in pre-order: measures every node and answer. */
static void
add_node (Builder          *b,
          const HrTreeNode *node,
          guint             parent,
          guint             depth)
{
  HrTreeLayoutNode ln = { 0, };
  guint index = b->layout->nodes->len;
  gboolean leaf = hr_tree_node_is_leaf (node);
  /* The chosen recommendation is filled with the accent; everything off
   * the chosen path steps back into muted text. */
  gboolean filled = leaf && node->chosen;
  HrChartTextRole role = filled ? HR_TEXT_ON_FILL
                       : node->chosen ? HR_TEXT_FOREGROUND
                       : HR_TEXT_MUTED;
  double width, height;

  ln.node = node;
  ln.parent = parent;
  ln.depth = depth;
  ln.leaf = leaf;
  ln.chosen = node->chosen;

  measure_label (b, &ln.text, node->text, leaf ? HR_CHART_FONT_BOLD : HR_CHART_FONT_BODY, role,
                 TEXT_WRAP);
  width = ln.text.box.width;
  height = ln.text.box.height;

  if (node->detail != NULL && node->detail[0] != '\0')
    {
      measure_label (b, &ln.detail, node->detail, HR_CHART_FONT_SMALL,
                     filled ? role : HR_TEXT_MUTED, TEXT_WRAP);
      width = MAX (width, ln.detail.box.width);
      height += DETAIL_GAP + ln.detail.box.height;
    }

  ln.box.width = even_ceil (MAX (width + 2 * PAD_X, MIN_BOX_WIDTH));
  ln.box.height = ceil (height + 2 * PAD_Y);
  b->slot[index] = ln.box.width;
  b->row_height[depth] = MAX (b->row_height[depth], ln.box.height);
  b->n_rows = MAX (b->n_rows, depth + 1);

  if (parent != G_MAXUINT && node->edge_label != NULL)
    {
      measure_label (b, &ln.edge_label, node->edge_label,
                     node->chosen ? HR_CHART_FONT_BOLD : HR_CHART_FONT_SMALL,
                     node->chosen ? HR_TEXT_ACCENT : HR_TEXT_MUTED, ANSWER_WRAP);
      b->slot[index] = MAX (b->slot[index], even_ceil (ln.edge_label.box.width + 2 * PILL_X));
      b->answer_height[depth] = MAX (b->answer_height[depth], ceil (ln.edge_label.box.height));
    }

  g_array_append_val (b->layout->nodes, ln);

  for (guint i = 0; i < node->children->len; i++)
    add_node (b, g_ptr_array_index (node->children, i), index, depth + 1);
}

/* Pass two, in post-order (Reingold & Tilford 1981): each subtree is
 * packed as close to its left sibling as their contours allow, depth by
 * depth, and its root is centred over its first and last child.  Sets
 * b->centre relative to the parent's centre and returns the subtree's
 * contour, one Extent per depth, relative to its root's centre. */
static GArray *
place_subtree (Builder *b,
               guint   *next)
{
  guint index = (*next)++;
  const HrTreeNode *node = g_array_index (b->layout->nodes, HrTreeLayoutNode, index).node;
  GArray *contour = g_array_new (FALSE, FALSE, sizeof (Extent));
  g_autoptr(GArray) below = g_array_new (FALSE, FALSE, sizeof (Extent));
  g_autoptr(GArray) children = g_array_new (FALSE, FALSE, sizeof (guint));
  Extent own = { -b->slot[index] / 2, b->slot[index] / 2 };
  double middle = 0;

  for (guint i = 0; i < node->children->len; i++)
    {
      guint child = *next;
      g_autoptr(GArray) sub = place_subtree (b, next);
      double shift = 0;

      if (i > 0)
        {
          shift = -G_MAXDOUBLE;
          for (guint k = 0; k < MIN (below->len, sub->len); k++)
            shift = MAX (shift, g_array_index (below, Extent, k).right + SUBTREE_GAP -
                                g_array_index (sub, Extent, k).left);
        }

      for (guint k = 0; k < sub->len; k++)
        {
          Extent e = g_array_index (sub, Extent, k);

          e.left += shift;
          e.right += shift;
          if (k < below->len)
            g_array_index (below, Extent, k).right = e.right;
          else
            g_array_append_val (below, e);
        }

      b->centre[child] = shift;
      g_array_append_val (children, child);
    }

  if (children->len > 0)
    middle = (b->centre[g_array_index (children, guint, 0)] +
              b->centre[g_array_index (children, guint, children->len - 1)]) / 2;
  for (guint i = 0; i < children->len; i++)
    b->centre[g_array_index (children, guint, i)] -= middle;

  g_array_append_val (contour, own);
  for (guint k = 0; k < below->len; k++)
    {
      Extent e = g_array_index (below, Extent, k);

      e.left -= middle;
      e.right -= middle;
      g_array_append_val (contour, e);
    }

  return contour;
}

/* Stacks the rows: the edges out of a row turn RUN_DROP under its lowest
 * box, so that they pass no box of the row; the answers sit in a band
 * under that and the children under them, with @spread more pixels
 * between rows on a tall canvas.  Returns the tree's height. */
static double
stack_rows (Builder *b,
            double   spread)
{
  for (guint d = 1; d < b->n_rows; d++)
    {
      double run = b->row_top[d - 1] + b->row_height[d - 1] + RUN_DROP;

      if (b->answer_height[d] > 0)
        {
          b->answer_top[d] = run + ANSWER_GAP + PILL_Y + spread / 2;
          b->row_top[d] = b->answer_top[d] + b->answer_height[d] + PILL_Y + ANSWER_GAP + spread / 2;
        }
      else
        b->row_top[d] = run + ANSWER_GAP + spread;
    }

  return b->row_top[b->n_rows - 1] + b->row_height[b->n_rows - 1];
}

static void
map_rect (HrRect *rect,
          double  scale,
          double  dx,
          double  dy)
{
  rect->x = dx + rect->x * scale;
  rect->y = dy + rect->y * scale;
  rect->width *= scale;
  rect->height *= scale;
}

static void
map_point (HrPoint *point,
           double   scale,
           double   dx,
           double   dy)
{
  point->x = dx + point->x * scale;
  point->y = dy + point->y * scale;
}

HrTreeChartLayout *
hr_tree_chart_layout (const HrTreeNode   *root,
                      const char         *title,
                      const HrChartStyle *style,
                      PangoContext       *context,
                      double              width,
                      double              height)
{
  HrTreeChartLayout *layout;
  Builder b = { 0, };
  guint n, next = 0;
  double left = G_MAXDOUBLE, right = -G_MAXDOUBLE;
  double tree_width, tree_height, top = MARGIN, avail_width, avail_height, dx, dy;

  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (style != NULL, NULL);
  g_return_val_if_fail (PANGO_IS_CONTEXT (context), NULL);

  layout = g_new0 (HrTreeChartLayout, 1);
  layout->bounds = (HrRect) { 0, 0, width, height };
  layout->nodes = g_array_new (FALSE, TRUE, sizeof (HrTreeLayoutNode));
  g_array_set_clear_func (layout->nodes, layout_node_clear);
  layout->labels = g_array_new (FALSE, TRUE, sizeof (HrChartLabel));
  g_array_set_clear_func (layout->labels, (GDestroyNotify) hr_chart_label_clear);

  n = hr_tree_node_count (root);
  b.layout = layout;
  b.style = style;
  b.context = context;
  b.centre = g_new0 (double, n);
  b.slot = g_new0 (double, n);
  b.row_height = g_new0 (double, n);
  b.answer_height = g_new0 (double, n);
  b.row_top = g_new0 (double, n);
  b.answer_top = g_new0 (double, n);

  add_node (&b, root, G_MAXUINT, 0);
  g_array_unref (place_subtree (&b, &next));

  /* Centres become absolute, on whole pixels; parents come first. */
  for (guint i = 1; i < n; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      b.centre[i] = floor (b.centre[ln->parent] + b.centre[i] + 0.5);
    }
  for (guint i = 0; i < n; i++)
    {
      left = MIN (left, b.centre[i] - b.slot[i] / 2);
      right = MAX (right, b.centre[i] + b.slot[i] / 2);
    }
  tree_width = right - left;

  tree_height = stack_rows (&b, 0);

  if (title != NULL && title[0] != '\0')
    {
      HrChartLabel label = {
        .text = g_strdup (title),
        .font = HR_CHART_FONT_TITLE,
        .color_role = HR_TEXT_FOREGROUND,
        .max_width = MAX (width - 2 * MARGIN, 1),
        .align = HR_ALIGN_START,
      };

      hr_chart_label_place (context, style, &label, MARGIN, MARGIN);
      top = ceil (label.box.y + label.box.height + TITLE_GAP);
      g_array_append_val (layout->labels, label);
    }

  /* Shrink the tree (never grow it) to fit under the title, and centre it
   * across the canvas. */
  avail_width = MAX (width - 2 * MARGIN, 1);
  avail_height = MAX (height - top - MARGIN, 1);
  layout->scale = MIN (1.0, MIN (avail_width / tree_width, avail_height / tree_height));
  /* Height to spare opens the rows up a little before the tree is
   * centred in it. */
  if (layout->scale == 1.0 && b.n_rows > 1)
    {
      double spare = avail_height - tree_height;

      tree_height = stack_rows (&b, MIN (MAX_SPREAD, floor (spare / (b.n_rows - 1))));
    }
  dx = floor (MARGIN + (avail_width - tree_width * layout->scale) / 2 - left * layout->scale + 0.5);
  dy = floor (top + (avail_height - tree_height * layout->scale) / 2 + 0.5);

  for (guint i = 0; i < n; i++)
    {
      HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      ln->box.x = b.centre[i] - ln->box.width / 2;
      ln->box.y = b.row_top[ln->depth];
      move_label (&ln->text, b.centre[i], ln->box.y + PAD_Y);
      if (ln->detail.text != NULL)
        move_label (&ln->detail, b.centre[i], ln->text.box.y + ln->text.box.height + DETAIL_GAP);

      if (ln->parent != G_MAXUINT)
        {
          const HrRect *parent = &g_array_index (layout->nodes, HrTreeLayoutNode, ln->parent).box;

          ln->edge_from = (HrPoint) { b.centre[ln->parent], parent->y + parent->height };
          ln->edge_to = (HrPoint) { b.centre[i], ln->box.y };
        }
      /* Answers are centred in their band, on the child's centre line. */
      if (ln->edge_label.text != NULL)
        move_label (&ln->edge_label, b.centre[i],
                    b.answer_top[ln->depth] +
                    (b.answer_height[ln->depth] - ln->edge_label.box.height) / 2);
    }

  for (guint i = 0; i < n; i++)
    {
      HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      map_rect (&ln->box, layout->scale, dx, dy);
      map_rect (&ln->text.box, layout->scale, dx, dy);
      if (ln->detail.text != NULL)
        map_rect (&ln->detail.box, layout->scale, dx, dy);
      if (ln->edge_label.text != NULL)
        map_rect (&ln->edge_label.box, layout->scale, dx, dy);
      if (ln->parent != G_MAXUINT)
        {
          map_point (&ln->edge_from, layout->scale, dx, dy);
          map_point (&ln->edge_to, layout->scale, dx, dy);
        }
    }

  g_free (b.centre);
  g_free (b.slot);
  g_free (b.row_height);
  g_free (b.answer_height);
  g_free (b.row_top);
  g_free (b.answer_top);
  return layout;
}

/* The chosen path from @root, root first: questions, then the
 * recommendation when the path reaches one. */
static GPtrArray *
chosen_path (const HrTreeNode *root)
{
  GPtrArray *path = g_ptr_array_new ();
  const HrTreeNode *node = root;

  while (node != NULL)
    {
      const HrTreeNode *next = NULL;

      g_ptr_array_add (path, (gpointer) node);
      for (guint i = 0; i < node->children->len && next == NULL; i++)
        if (((const HrTreeNode *) g_ptr_array_index (node->children, i))->chosen)
          next = g_ptr_array_index (node->children, i);
      node = next;
    }
  return path;
}

static HrTreeChartLayout *
layout_path (const HrTreeNode   *root,
             const char         *title,
             const HrChartStyle *style,
             PangoContext       *context,
             double              width,
             double              height)
{
  HrTreeChartLayout *layout;
  g_autoptr(GPtrArray) path = chosen_path (root);
  double s = style->spacing > 0 ? style->spacing : 1;
  double top = MARGIN, inner = MAX (width - 2 * MARGIN, 1), y = 0, avail_height, dx, dy;
  double indent = PATH_INDENT * s, text_w, question_w, answer_w, line_h, pad = PATH_PAD * s;

  layout = g_new0 (HrTreeChartLayout, 1);
  layout->bounds = (HrRect) { 0, 0, width, height };
  layout->path = TRUE;
  layout->nodes = g_array_new (FALSE, TRUE, sizeof (HrTreeLayoutNode));
  g_array_set_clear_func (layout->nodes, layout_node_clear);
  layout->labels = g_array_new (FALSE, TRUE, sizeof (HrChartLabel));
  g_array_set_clear_func (layout->labels, (GDestroyNotify) hr_chart_label_clear);

  if (title != NULL && title[0] != '\0')
    {
      HrChartLabel label = hr_chart_label_new (context, style, g_strdup (title),
                                               HR_CHART_FONT_TITLE, HR_TEXT_FOREGROUND,
                                               HR_ALIGN_START, inner, MARGIN, MARGIN);

      top = ceil (label.box.y + label.box.height + TITLE_GAP * s);
      g_array_append_val (layout->labels, label);
    }

  /* in unscaled pixels from the list's top left: the dots, then each
   * question with its answer beside it, the recommendation last */
  text_w = MAX (inner - indent, 8);
  question_w = floor (text_w * 0.55);
  answer_w = MAX (text_w - question_w - PATH_COLUMN_GAP * s, 8);
  hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, "Ag", 0, NULL, &line_h);
  for (guint i = 0; i < path->len; i++)
    {
      const HrTreeNode *node = g_ptr_array_index (path, i);
      HrTreeLayoutNode ln = { 0, };
      double row;

      ln.node = node;
      ln.parent = i > 0 ? i - 1 : G_MAXUINT;
      ln.depth = i;
      ln.leaf = hr_tree_node_is_leaf (node);
      ln.chosen = TRUE;
      if (ln.leaf)
        {
          double w, h;

          ln.text = hr_chart_label_new (context, style, g_strdup (node->text),
                                        HR_CHART_FONT_SMALL_BOLD, HR_TEXT_ON_FILL, HR_ALIGN_START,
                                        text_w - 2 * pad, indent + pad, y + pad);
          w = ln.text.box.width;
          h = ln.text.box.height;
          if (node->detail != NULL && node->detail[0] != '\0')
            {
              ln.detail = hr_chart_label_new (context, style, g_strdup (node->detail),
                                              HR_CHART_FONT_SMALL, HR_TEXT_ON_FILL,
                                              HR_ALIGN_START, text_w - 2 * pad, indent + pad,
                                              y + pad + h + DETAIL_GAP * s);
              w = MAX (w, ln.detail.box.width);
              h += DETAIL_GAP * s + ln.detail.box.height;
            }
          ln.box = (HrRect) { indent, y, ceil (w + 2 * pad), ceil (h + 2 * pad) };
          ln.edge_to = (HrPoint) { indent / 2, y + ln.box.height / 2 };
          row = ln.box.height;
        }
      else
        {
          ln.text = hr_chart_label_new (context, style, g_strdup (node->text),
                                        HR_CHART_FONT_SMALL, HR_TEXT_FOREGROUND, HR_ALIGN_START,
                                        question_w, indent, y);
          row = ln.text.box.height;
          ln.box = (HrRect) { indent, y, text_w, row };
          /* the dot on the question's first line */
          ln.edge_to = (HrPoint) { indent / 2, y + line_h / 2 };
        }
      /* the answer that led here, on the question's row above */
      if (i > 0 && node->edge_label != NULL && node->edge_label[0] != '\0')
        {
          HrTreeLayoutNode *up = &g_array_index (layout->nodes, HrTreeLayoutNode, i - 1);

          ln.edge_label = hr_chart_label_new (context, style, g_strdup (node->edge_label),
                                              HR_CHART_FONT_SMALL_BOLD, HR_TEXT_ACCENT,
                                              HR_ALIGN_START, answer_w,
                                              indent + question_w + PATH_COLUMN_GAP * s,
                                              up->box.y);
          if (ln.edge_label.box.height > up->box.height)
            {
              double more = ln.edge_label.box.height - up->box.height;

              up->box.height += more;
              ln.box.y += more;
              ln.text.box.y += more;
              if (ln.detail.text != NULL)
                ln.detail.box.y += more;
              ln.edge_to.y += more;
              y += more;
            }
        }
      ln.edge_from = i > 0 ? g_array_index (layout->nodes, HrTreeLayoutNode, i - 1).edge_to
                           : ln.edge_to;
      g_array_append_val (layout->nodes, ln);
      y += row + PATH_GAP * s;
    }
  y -= PATH_GAP * s;

  /* the list shrinks (never grows) to fit under the title; height to
   * spare opens the rows up a little */
  avail_height = MAX (height - top - MARGIN, 1);
  layout->scale = MIN (1.0, avail_height / MAX (y, 1));
  if (layout->scale == 1.0 && layout->nodes->len > 1)
    {
      double extra = MIN ((avail_height - y) / (layout->nodes->len - 1), 2 * PATH_GAP * s);

      for (guint i = 0; i < layout->nodes->len; i++)
        {
          HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

          ln->box.y += i * extra;
          ln->text.box.y += i * extra;
          if (ln->detail.text != NULL)
            ln->detail.box.y += i * extra;
          if (ln->edge_label.text != NULL)
            ln->edge_label.box.y += (i - 1) * extra;
          ln->edge_to.y += i * extra;
          ln->edge_from = i > 0 ? g_array_index (layout->nodes, HrTreeLayoutNode, i - 1).edge_to
                                : ln->edge_to;
        }
    }
  dx = MARGIN;
  dy = floor (top + 0.5);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      map_rect (&ln->box, layout->scale, dx, dy);
      map_rect (&ln->text.box, layout->scale, dx, dy);
      if (ln->detail.text != NULL)
        map_rect (&ln->detail.box, layout->scale, dx, dy);
      if (ln->edge_label.text != NULL)
        map_rect (&ln->edge_label.box, layout->scale, dx, dy);
      map_point (&ln->edge_from, layout->scale, dx, dy);
      map_point (&ln->edge_to, layout->scale, dx, dy);
    }
  return layout;
}

HrTreeChartLayout *
hr_tree_chart_layout_readable (const HrTreeNode   *root,
                               const char         *title,
                               const HrChartStyle *style,
                               PangoContext       *context,
                               double              width,
                               double              height)
{
  HrTreeChartLayout *tree;
  HrTreeChartLayout *path;

  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (style != NULL, NULL);
  g_return_val_if_fail (PANGO_IS_CONTEXT (context), NULL);

  tree = hr_tree_chart_layout (root, title, style, context, width, height);
  /* the answers and details are the smallest text */
  if (style->small_size * tree->scale >= READABLE_POINTS - 1e-6)
    return tree;
  path = layout_path (root, title, style, context, width, height);
  if (path->scale <= tree->scale)
    {
      hr_tree_chart_layout_free (path);
      return tree;
    }
  hr_tree_chart_layout_free (tree);
  return path;
}

void
hr_tree_chart_layout_free (HrTreeChartLayout *layout)
{
  if (layout == NULL)
    return;

  g_array_unref (layout->nodes);
  g_array_unref (layout->labels);
  g_free (layout);
}

const HrTreeNode *
hr_tree_chart_hit_test (const HrTreeChartLayout *layout,
                        double                   x,
                        double                   y)
{
  g_return_val_if_fail (layout != NULL, NULL);

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      if (hr_rect_contains (&ln->box, x, y))
        return ln->node;
    }

  return NULL;
}

static void
rounded_rectangle (cairo_t      *cr,
                   const HrRect *rect,
                   double        radius)
{
  double r = CLAMP (radius, 0, MIN (rect->width, rect->height) / 2);

  cairo_new_sub_path (cr);
  cairo_arc (cr, rect->x + rect->width - r, rect->y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, rect->x + rect->width - r, rect->y + rect->height - r, r, 0, G_PI / 2);
  cairo_arc (cr, rect->x + r, rect->y + rect->height - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, rect->x + r, rect->y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

/* Text keeps the size it was measured at: a shrunk tree draws it through
 * cairo_scale about the label's corner. */
static void
draw_scaled_label (cairo_t            *cr,
                   const HrChartStyle *style,
                   const HrChartLabel *label,
                   double              scale,
                   const HrRgba       *fill)
{
  HrChartLabel unscaled = *label;

  unscaled.box = (HrRect) { 0, 0, label->box.width / scale, label->box.height / scale };
  cairo_save (cr);
  cairo_translate (cr, label->box.x, label->box.y);
  cairo_scale (cr, scale, scale);
  hr_chart_draw_label (cr, style, &unscaled, fill);
  cairo_restore (cr);
}

/* Where the edges out of each row turn: RUN_DROP under its lowest box,
 * clear of every box in the row (stack_rows leaves the room). */
static double *
row_runs (const HrTreeChartLayout *layout)
{
  double *runs = g_new0 (double, layout->nodes->len);

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      runs[ln->depth] = MAX (runs[ln->depth],
                             ln->box.y + ln->box.height + RUN_DROP * layout->scale);
    }

  return runs;
}

/* An elbow with rounded corners: down from the parent, along the run,
 * down into the child. */
static void
draw_edge (cairo_t                 *cr,
           const HrTreeChartLayout *layout,
           const HrChartStyle      *style,
           const HrTreeLayoutNode  *ln,
           double                   run)
{
  const HrPoint *from = &ln->edge_from;
  const HrPoint *to = &ln->edge_to;
  double r = MIN (ELBOW_RADIUS * layout->scale, fabs (to->x - from->x) / 2);
  double dir = to->x < from->x ? -1 : 1;

  cairo_move_to (cr, from->x, from->y);
  if (r >= 0.5)
    {
      cairo_line_to (cr, from->x, run - r);
      cairo_curve_to (cr, from->x, run, from->x, run, from->x + dir * r, run);
      cairo_line_to (cr, to->x - dir * r, run);
      cairo_curve_to (cr, to->x, run, to->x, run, to->x, run + r);
    }
  cairo_line_to (cr, to->x, to->y);

  hr_chart_set_color (cr, ln->chosen ? &style->accent : &style->node_border);
  cairo_set_line_width (cr, ln->chosen ? style->line_width : style->thin_line_width);
  cairo_stroke (cr);
}

static void
draw_node (cairo_t                 *cr,
           const HrTreeChartLayout *layout,
           const HrChartStyle      *style,
           const HrTreeLayoutNode  *ln)
{
  double line = ln->chosen ? style->line_width : style->thin_line_width;
  double radius = (ln->leaf ? LEAF_RADIUS : style->corner_radius) * layout->scale;
  /* The border is stroked inside the box, so what is drawn is the box. */
  HrRect inner = {
    ln->box.x + line / 2, ln->box.y + line / 2, ln->box.width - line, ln->box.height - line,
  };
  HrRgba fill = style->node;

  if (ln->chosen)
    fill = ln->leaf ? style->accent : hr_rgba_mix (&style->node, &style->accent, CHOSEN_TINT);

  rounded_rectangle (cr, &ln->box, radius);
  hr_chart_set_color (cr, &fill);
  cairo_fill (cr);

  rounded_rectangle (cr, &inner, radius - line / 2);
  hr_chart_set_color (cr, ln->chosen ? &style->accent : &style->node_border);
  cairo_set_line_width (cr, line);
  /* The question being asked now has a dashed border: the current step
   * is told apart by more than colour. */
  if (ln->node->current)
    {
      double dash[] = { 4.0 * layout->scale, 3.0 * layout->scale };

      cairo_set_line_width (cr, 2 * line);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
    }
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  draw_scaled_label (cr, style, &ln->text, layout->scale, &fill);
  if (ln->detail.text != NULL)
    draw_scaled_label (cr, style, &ln->detail, layout->scale, &fill);
}

/* The answer sits on its edge in a pill of background that cuts the line;
 * the chosen answer's pill is outlined as well. */
static void
draw_answer (cairo_t                 *cr,
             const HrTreeChartLayout *layout,
             const HrChartStyle      *style,
             const HrTreeLayoutNode  *ln)
{
  const HrRect *box = &ln->edge_label.box;
  HrRect pill = {
    box->x - PILL_X * layout->scale,
    box->y - PILL_Y * layout->scale,
    box->width + 2 * PILL_X * layout->scale,
    box->height + 2 * PILL_Y * layout->scale,
  };

  rounded_rectangle (cr, &pill, PILL_RADIUS * layout->scale);
  hr_chart_set_color (cr, &style->background);
  if (ln->chosen)
    {
      cairo_fill_preserve (cr);
      hr_chart_set_color (cr, &style->accent);
      cairo_set_line_width (cr, style->thin_line_width);
      cairo_stroke (cr);
    }
  else
    cairo_fill (cr);

  draw_scaled_label (cr, style, &ln->edge_label, layout->scale, NULL);
}

/* The chosen path as a list: a line of dots down the left, a question
 * and its answer on each row, the recommendation in the accent. */
static void
render_path (const HrTreeChartLayout *layout,
             const HrChartStyle      *style,
             cairo_t                 *cr)
{
  double s = style->spacing > 0 ? style->spacing : 1;
  guint n = layout->nodes->len;

  if (n == 0)
    return;
  if (n > 1)
    {
      const HrTreeLayoutNode *first = &g_array_index (layout->nodes, HrTreeLayoutNode, 0);
      const HrTreeLayoutNode *last = &g_array_index (layout->nodes, HrTreeLayoutNode, n - 1);

      cairo_new_path (cr);
      cairo_move_to (cr, first->edge_to.x, first->edge_to.y);
      cairo_line_to (cr, last->edge_to.x, last->edge_to.y);
      hr_chart_set_color (cr, &style->accent);
      cairo_set_line_width (cr, style->line_width * layout->scale);
      cairo_stroke (cr);
    }
  for (guint i = 0; i < n; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      cairo_new_path (cr);
      cairo_arc (cr, ln->edge_to.x, ln->edge_to.y, PATH_DOT * s * layout->scale, 0, 2 * G_PI);
      hr_chart_set_color (cr, &style->accent);
      cairo_fill (cr);
      if (ln->leaf)
        {
          rounded_rectangle (cr, &ln->box, style->corner_radius * layout->scale);
          hr_chart_set_color (cr, &style->accent);
          cairo_fill (cr);
          draw_scaled_label (cr, style, &ln->text, layout->scale, &style->accent);
          if (ln->detail.text != NULL)
            draw_scaled_label (cr, style, &ln->detail, layout->scale, &style->accent);
        }
      else
        draw_scaled_label (cr, style, &ln->text, layout->scale, NULL);
      if (ln->edge_label.text != NULL)
        draw_scaled_label (cr, style, &ln->edge_label, layout->scale, NULL);
    }
}

void
hr_tree_chart_render (const HrTreeChartLayout *layout,
                      const HrChartStyle      *style,
                      cairo_t                 *cr)
{
  g_autofree double *runs = NULL;

  g_return_if_fail (layout != NULL);
  g_return_if_fail (style != NULL);
  g_return_if_fail (cr != NULL);

  cairo_save (cr);
  hr_chart_prepare_cairo (cr);
  hr_chart_paint_background (cr, style, layout->bounds.width, layout->bounds.height);

  for (guint i = 0; i < layout->labels->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->labels, HrChartLabel, i), NULL);

  if (layout->path)
    {
      render_path (layout, style, cr);
      cairo_restore (cr);
      return;
    }

  /* The chosen edges last, over the trunk they share with their
   * siblings. */
  runs = row_runs (layout);
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 1; i < layout->nodes->len; i++)
      {
        const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

        if (ln->chosen == (pass == 1))
          draw_edge (cr, layout, style, ln, runs[ln->depth - 1]);
      }

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      draw_node (cr, layout, style, ln);
      if (ln->edge_label.text != NULL)
        draw_answer (cr, layout, style, ln);
    }

  cairo_restore (cr);
}

static void
collect_leaves (const HrTreeNode *node,
                GPtrArray        *leaves)
{
  if (hr_tree_node_is_leaf (node))
    g_ptr_array_add (leaves, (gpointer) node);
  for (guint i = 0; i < node->children->len; i++)
    collect_leaves (g_ptr_array_index (node->children, i), leaves);
}

char *
hr_tree_chart_summary (const HrTreeNode *root)
{
  g_autofree char *path = NULL;
  g_autoptr(GPtrArray) leaves = g_ptr_array_new ();
  GString *str;

  g_return_val_if_fail (root != NULL, NULL);

  path = hr_tree_path_text (root);
  collect_leaves (root, leaves);

  str = g_string_new (_("Decision path: "));
  g_string_append (str, path);
  if (!g_str_has_suffix (path, "."))
    g_string_append_c (str, '.');

  if (leaves->len == 1)
    g_string_append (str, _(" One option: "));
  else
    g_string_append_printf (str, _(" %u options: "), leaves->len);

  for (guint i = 0; i < leaves->len; i++)
    {
      const HrTreeNode *leaf = g_ptr_array_index (leaves, i);

      if (i > 0)
        g_string_append (str, "; ");
      g_string_append (str, leaf->text);
      if (leaf->detail != NULL && leaf->detail[0] != '\0')
        g_string_append_printf (str, " (%s)", leaf->detail);
    }
  g_string_append_c (str, '.');

  return g_string_free (str, FALSE);
}
