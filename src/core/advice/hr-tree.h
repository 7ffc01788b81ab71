/* hr-tree.h: a decision tree of questions, answers and recommendations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-scenario.h"

G_BEGIN_DECLS

typedef struct _HrTreeNode HrTreeNode;

/* A question (a node with children) or a recommendation (a leaf).  The
 * answer that leads to a node from its parent is the node's edge label. */
struct _HrTreeNode {
  char       *text;
  char       *detail;       /* optional second line: a price, a batch size */
  char       *edge_label;   /* NULL at the root */
  gboolean    chosen;       /* on the path the user's answers take */
  gboolean    current;      /* the question being asked now */
  GPtrArray  *children;     /* HrTreeNode, owned */
};

HrTreeNode *hr_tree_node_new        (const char *text,
                                     const char *edge_label);
/* Adds @child (taking ownership) and returns it. */
HrTreeNode *hr_tree_node_add        (HrTreeNode *parent,
                                     HrTreeNode *child);
void        hr_tree_node_set_detail (HrTreeNode *node,
                                     const char *detail);
void        hr_tree_node_free       (HrTreeNode *node);
gboolean    hr_tree_node_is_leaf    (const HrTreeNode *node);
guint       hr_tree_node_count      (const HrTreeNode *node);
/* The chosen path as "question → answer → … → recommendation". */
char       *hr_tree_path_text       (const HrTreeNode *root);

/* The GPU decision flow of seed 000 (fit on one card, how often you train,
 * budget), with the branch this scenario's fits select marked chosen. */
HrTreeNode *hr_tree_new_gpu_choice  (const HrScenario *scenario,
                                     HrCatalog        *catalog);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrTreeNode, hr_tree_node_free)

G_END_DECLS
