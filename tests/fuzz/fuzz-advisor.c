/* fuzz-advisor.c: libFuzzer target for advisor trees (data/advisor.json)
 *
 * Any bytes either become a tree or a one-line positioned message.  In an
 * accepted tree every answer leads to a node, and walks that always take
 * the default answer, the first, the last, or whatever facts made from the
 * input choose, each reach a leaf within as many steps as the tree has
 * nodes (no cycle).  Going back to any step asks that step's question
 * again, and the walk from there reaches the same leaf.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-advisor"

#include <string.h>

#include "hr-fuzz.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  hr_fuzz_setup ();
  return 0;
}

typedef enum {
  TAKE_DEFAULT,
  TAKE_FIRST,
  TAKE_LAST,
} Take;

static const HrAdvisorAnswer *
pick (const HrAdvisorNode *node,
      Take                 take)
{
  const HrAdvisorAnswer *chosen = NULL;
  guint defaults = 0;

  HR_FUZZ_CHECK (node->answers->len > 0, "question %s has no answer", node->id);
  if (take == TAKE_FIRST)
    return g_ptr_array_index (node->answers, 0);
  if (take == TAKE_LAST)
    return g_ptr_array_index (node->answers, node->answers->len - 1);

  for (guint i = 0; i < node->answers->len; i++)
    {
      const HrAdvisorAnswer *a = g_ptr_array_index (node->answers, i);

      if (a->is_default)
        {
          defaults++;
          chosen = a;
        }
    }
  HR_FUZZ_CHECK (defaults == 1, "question %s has %u default answers", node->id, defaults);
  return chosen;
}

/* Answers until a leaf; returns the leaf. */
static const HrAdvisorNode *
walk_to_leaf (HrAdvisor     *advisor,
              HrAdvisorWalk *walk,
              Take           take,
              guint          n_nodes)
{
  while (!hr_advisor_walk_is_done (walk))
    {
      const HrAdvisorNode *node = hr_advisor_walk_get_current (walk);
      const HrAdvisorAnswer *answer = pick (node, take);
      guint steps = hr_advisor_walk_get_n_steps (walk);
      g_autoptr(GError) error = NULL;

      HR_FUZZ_CHECK (steps < n_nodes, "%u steps in a tree of %u nodes: a cycle", steps + 1,
                     n_nodes);
      HR_FUZZ_CHECK (hr_advisor_get_node (advisor, answer->next) != NULL,
                     "answer %s of %s leads to %s, which is no node", answer->id, node->id,
                     answer->next);
      HR_FUZZ_CHECK (hr_advisor_walk_answer (walk, answer->id, &error), "%s",
                     error->message);
      HR_FUZZ_CHECK (hr_advisor_walk_get_n_steps (walk) == steps + 1, "a step not counted");
      HR_FUZZ_CHECK (hr_advisor_walk_get_step_node (walk, steps) == node &&
                     hr_advisor_walk_get_step_answer (walk, steps) == answer,
                     "step %u not recorded", steps);
      HR_FUZZ_CHECK (hr_advisor_walk_get_current (walk) ==
                     hr_advisor_get_node (advisor, answer->next),
                     "answer %s did not lead to %s", answer->id, answer->next);
    }

  HR_FUZZ_CHECK (hr_advisor_node_is_leaf (hr_advisor_walk_get_current (walk)),
                 "done, not at a leaf");
  return hr_advisor_walk_get_current (walk);
}

static void
check_walk (HrAdvisor     *advisor,
            Take           take,
            guint          n_nodes,
            const uint8_t *data,
            size_t         size)
{
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (advisor);
  const HrAdvisorNode *leaf;
  g_autoptr(HrTreeNode) tree = NULL;
  HrAdviceInputs inputs;
  guint steps, back;

  HR_FUZZ_CHECK (hr_advisor_walk_get_current (walk) == hr_advisor_get_start (advisor),
                 "a new walk is not at the start");
  leaf = walk_to_leaf (advisor, walk, take, n_nodes);
  steps = hr_advisor_walk_get_n_steps (walk);
  tree = hr_advisor_walk_to_tree (walk, "detail");
  HR_FUZZ_CHECK (tree != NULL, "no tree");
  hr_advisor_walk_get_inputs (walk, NULL, &inputs);

  /* Back to a step the input chooses: its question again, then the same
   * leaf by the same answers. */
  back = steps > 0 && size > 0 ? data[size / 2] % (steps + 1) : 0;
  {
    const HrAdvisorNode *asked = back < steps ? hr_advisor_walk_get_step_node (walk, back)
                                              : leaf;

    hr_advisor_walk_back_to (walk, back);
    HR_FUZZ_CHECK (hr_advisor_walk_get_n_steps (walk) == back, "back to %u, %u steps", back,
                   hr_advisor_walk_get_n_steps (walk));
    HR_FUZZ_CHECK (hr_advisor_walk_get_current (walk) == asked, "back to %u asks %s, not %s",
                   back, hr_advisor_walk_get_current (walk)->id, asked->id);
  }
  HR_FUZZ_CHECK (walk_to_leaf (advisor, walk, take, n_nodes) == leaf,
                 "back and on again: another leaf");
  HR_FUZZ_CHECK (hr_advisor_walk_get_n_steps (walk) == steps, "back and on again: %u steps, not %u",
                 hr_advisor_walk_get_n_steps (walk), steps);

  /* All the way back. */
  hr_advisor_walk_back_to (walk, 0);
  HR_FUZZ_CHECK (hr_advisor_walk_get_current (walk) == hr_advisor_get_start (advisor),
                 "back to 0 is not the start");
}

/* Facts made from the input: the walk answers by itself. */
static void
check_auto_walk (HrAdvisor     *advisor,
                 guint          n_nodes,
                 const uint8_t *data,
                 size_t         size)
{
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (advisor);
  HrAdviceInputs facts = { 0 };
  guint steps = 0;
  guint8 x = size > 0 ? data[size - 1] : 0;

  facts.known = size > 1 ? (data[size - 2] | (x & 3) << 8) : 0;
  facts.task = x % 3;
  facts.hours_per_day = x % 25;
  facts.months = x / 4;
  facts.budget_usd = x * 250.0;
  facts.prefer = x % 3;
  facts.runs = 1 + x % 8;
  facts.datacenter = x & 1;
  facts.rocm = (x >> 1) & 1;
  facts.rank = (x >> 2) % 3;
  facts.usd_per_kwh = x / 100.0;

  while (hr_advisor_walk_auto_step (walk, &facts) != NULL)
    HR_FUZZ_CHECK (++steps <= n_nodes, "%u automatic steps in a tree of %u nodes", steps,
                   n_nodes);
  HR_FUZZ_CHECK (hr_advisor_walk_is_done (walk), "the automatic walk stopped before a leaf");
}

static int
fuzz_one (const uint8_t *data,
          size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(HrAdvisor) advisor = NULL;
  JsonArray *nodes;
  guint n_nodes;

  doc = hr_json_doc_load_data ("fuzz.json", (const char *) data, size, &error);
  if (doc == NULL)
    {
      hr_fuzz_check_error (error);
      return 0;
    }

  advisor = hr_advisor_new_from_doc (doc, &error);
  if (advisor == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, "fuzz.json:"), "%s", error->message);
      return 0;
    }

  nodes = json_object_get_array_member (json_node_get_object (hr_json_doc_get_root (doc)),
                                        "nodes");
  n_nodes = json_array_get_length (nodes);
  HR_FUZZ_CHECK (hr_advisor_get_start (advisor) != NULL, "no start");

  /* Every node is there by its id, and every answer leads to one. */
  for (guint i = 0; i < n_nodes; i++)
    {
      JsonObject *object = json_array_get_object_element (nodes, i);
      const char *id = json_object_get_string_member (object, "id");
      const HrAdvisorNode *node = hr_advisor_get_node (advisor, id);

      HR_FUZZ_CHECK (node != NULL && g_str_equal (node->id, id), "node %s not found", id);
      HR_FUZZ_CHECK (hr_advisor_node_is_leaf (node) == (node->question == NULL),
                     "%s: a leaf with a question, or a question that is a leaf", id);
      if (!hr_advisor_node_is_leaf (node))
        {
          pick (node, TAKE_DEFAULT);
          for (guint j = 0; j < node->answers->len; j++)
            {
              const HrAdvisorAnswer *a = g_ptr_array_index (node->answers, j);

              HR_FUZZ_CHECK (hr_advisor_node_find_answer (node, a->id) != NULL,
                             "%s: answer %s not found", id, a->id);
              HR_FUZZ_CHECK (hr_advisor_get_node (advisor, a->next) != NULL,
                             "%s: answer %s leads to %s, which is no node", id, a->id, a->next);
            }
        }
    }

  check_walk (advisor, TAKE_DEFAULT, n_nodes, data, size);
  check_walk (advisor, TAKE_FIRST, n_nodes, data, size);
  check_walk (advisor, TAKE_LAST, n_nodes, data, size);
  check_auto_walk (advisor, n_nodes, data, size);
  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
