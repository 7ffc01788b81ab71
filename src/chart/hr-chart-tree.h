/* hr-chart-tree.h: a decision tree, laid out top-down
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hr-chart-style.h"
#include "hr-chart-types.h"
#include "hr-tree.h"

G_BEGIN_DECLS

typedef struct {
  const HrTreeNode *node;          /* borrowed from the tree laid out */
  guint             parent;        /* index into the layout's nodes; G_MAXUINT at the root */
  guint             depth;
  gboolean          leaf;
  gboolean          chosen;
  HrRect            box;           /* the node's box, in canvas coordinates */
  HrChartLabel      text;
  HrChartLabel      detail;        /* text NULL when the node has none */
  HrPoint           edge_from;     /* on the parent's box */
  HrPoint           edge_to;       /* on this box */
  HrChartLabel      edge_label;    /* the answer; text NULL at the root */
} HrTreeLayoutNode;

typedef struct {
  HrRect  bounds;
  double  scale;       /* < 1 when the tree was shrunk to fit the canvas */
  /* TRUE when only the chosen path is laid out, as a list of steps: each
   * node's box is its row, edge_to its step's dot, and its edge_label
   * (the answer that leads to it) sits on its parent's row */
  gboolean path;
  GArray *nodes;       /* HrTreeLayoutNode, parents before children */
  GArray *labels;      /* HrChartLabel: title */
} HrTreeChartLayout;

/* Lays @root out in a @width × @height canvas: node boxes sized to their
 * (wrapped) text, parents centred over their children, subtrees side by
 * side without overlapping; the whole tree is scaled down when it would not
 * fit.  Boxes, labels and edges are in canvas coordinates (scale applied). */
HrTreeChartLayout *hr_tree_chart_layout      (const HrTreeNode    *root,
                                              const char          *title,
                                              const HrChartStyle  *style,
                                              PangoContext        *context,
                                              double               width,
                                              double               height);
/* As hr_tree_chart_layout(), but when the whole tree would shrink its text
 * under 6 pt, the chosen path alone as a list of questions and answers
 * (what a figure a column wide can still print legibly). */
HrTreeChartLayout *hr_tree_chart_layout_readable (const HrTreeNode    *root,
                                                  const char          *title,
                                                  const HrChartStyle  *style,
                                                  PangoContext        *context,
                                                  double               width,
                                                  double               height);
void               hr_tree_chart_layout_free (HrTreeChartLayout   *layout);
/* The node whose box contains (x, y), or NULL. */
const HrTreeNode  *hr_tree_chart_hit_test    (const HrTreeChartLayout *layout,
                                              double                   x,
                                              double                   y);
void               hr_tree_chart_render      (const HrTreeChartLayout *layout,
                                              const HrChartStyle      *style,
                                              cairo_t                 *cr);
char              *hr_tree_chart_summary     (const HrTreeNode        *root);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrTreeChartLayout, hr_tree_chart_layout_free)

G_END_DECLS
