/* hr-advisor.c: the buy-or-rent decision tree and costed GPU advice
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-advisor"

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "hr-advisor.h"
#include "hr-cost.h"
#include "hr-fit-rule.h"
#include "hr-knobs.h"
#include "hr-reader.h"
#include "hr-sweep.h"

#define RESOURCE_PATH "/io/github/vramlab/Headroom/core/advisor.json"
#define GB 1e9

const HrEnumName hr_advice_prefer_names[] = {
  { HR_ADVICE_PREFER_CHEAPER, "cheaper" },
  { HR_ADVICE_PREFER_BUY, "buy" },
  { HR_ADVICE_PREFER_RENT, "rent" },
  { 0, NULL },
};

const HrEnumName hr_advice_rank_names[] = {
  { HR_ADVICE_RANK_VALUE, "value" },
  { HR_ADVICE_RANK_COST, "cost" },
  { HR_ADVICE_RANK_MEMORY, "memory" },
  { 0, NULL },
};

const HrEnumName hr_advice_choice_names[] = {
  { HR_ADVICE_CHOICE_BUY, "buy" },
  { HR_ADVICE_CHOICE_RENT, "rent" },
  { 0, NULL },
};

/* The facts an answer may set or test, as advisor.json names them. */
static const struct {
  HrFact      fact;
  const char *key;
} fact_keys[] = {
  { HR_FACT_TASK, "task" },
  { HR_FACT_HOURS_PER_DAY, "hours_per_day" },
  { HR_FACT_MONTHS, "months" },
  { HR_FACT_BUDGET, "budget_usd" },
  { HR_FACT_PREFER, "prefer" },
  { HR_FACT_RUNS, "runs" },
  { HR_FACT_DATACENTER, "datacenter" },
  { HR_FACT_RANK, "rank" },
  { HR_FACT_USD_PER_KWH, "usd_per_kwh" },
  { HR_FACT_ROCM, "rocm" },
  { HR_FACT_STEPS, "steps" },
};

static const char * const fact_key_list[] = {
  "task", "hours_per_day", "months", "budget_usd", "prefer", "runs", "datacenter", "rank",
  "usd_per_kwh", "rocm", "steps", NULL
};

void
hr_advice_inputs_merge (HrAdviceInputs       *dst,
                        const HrAdviceInputs *src)
{
  g_return_if_fail (dst != NULL);
  g_return_if_fail (src != NULL);

  if (src->known & HR_FACT_TASK)
    dst->task = src->task;
  if (src->known & HR_FACT_HOURS_PER_DAY)
    dst->hours_per_day = src->hours_per_day;
  if (src->known & HR_FACT_MONTHS)
    dst->months = src->months;
  if (src->known & HR_FACT_BUDGET)
    dst->budget_usd = src->budget_usd;
  if (src->known & HR_FACT_PREFER)
    dst->prefer = src->prefer;
  if (src->known & HR_FACT_RUNS)
    dst->runs = src->runs;
  if (src->known & HR_FACT_DATACENTER)
    dst->datacenter = src->datacenter;
  if (src->known & HR_FACT_RANK)
    dst->rank = src->rank;
  if (src->known & HR_FACT_USD_PER_KWH)
    dst->usd_per_kwh = src->usd_per_kwh;
  if (src->known & HR_FACT_ROCM)
    dst->rocm = src->rocm;
  if (src->known & HR_FACT_STEPS)
    dst->steps = src->steps;
  dst->known |= src->known;
}

/* ---- reading advisor.json ---- */

struct _HrAdvisor {
  GPtrArray  *nodes;   /* HrAdvisorNode, file order */
  GHashTable *index;   /* id → node */
  char       *start;
};

static void
answer_free (HrAdvisorAnswer *answer)
{
  g_free (answer->id);
  g_free (answer->label);
  g_free (answer->next);
  g_clear_pointer (&answer->when, g_array_unref);
  g_free (answer);
}

static void
node_free (HrAdvisorNode *node)
{
  g_free (node->id);
  g_free (node->question);
  g_free (node->help);
  g_free (node->recommend);
  g_clear_pointer (&node->answers, g_ptr_array_unref);
  g_free (node);
}

void
hr_advisor_free (HrAdvisor *advisor)
{
  if (advisor == NULL)
    return;

  g_clear_pointer (&advisor->index, g_hash_table_unref);
  g_clear_pointer (&advisor->nodes, g_ptr_array_unref);
  g_free (advisor->start);
  g_free (advisor);
}

static int
fact_for_key (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (fact_keys); i++)
    if (g_str_equal (fact_keys[i].key, key))
      return fact_keys[i].fact;
  return 0;
}

/* One fact's value in "set", or the value a "when" condition equals. */
static gboolean
read_fact_value (HrReader *reader,
                 int       fact,
                 const char *key,
                 double   *number,
                 int      *value)
{
  switch (fact)
    {
    case HR_FACT_TASK:
      return hr_reader_enum (reader, key, hr_task_names, value);
    case HR_FACT_PREFER:
      return hr_reader_enum (reader, key, hr_advice_prefer_names, value);
    case HR_FACT_RANK:
      return hr_reader_enum (reader, key, hr_advice_rank_names, value);
    case HR_FACT_DATACENTER:
    case HR_FACT_ROCM:
      return hr_reader_bool (reader, key, value);
    case HR_FACT_HOURS_PER_DAY:
      return hr_reader_double (reader, key, TRUE, 0, 24, number);
    case HR_FACT_MONTHS:
      return hr_reader_double (reader, key, TRUE, 0, 240, number);
    case HR_FACT_BUDGET:
      return hr_reader_double (reader, key, TRUE, 0, 1e9, number);
    case HR_FACT_RUNS:
      return hr_reader_double (reader, key, TRUE, 1, 1024, number);
    case HR_FACT_USD_PER_KWH:
      return hr_reader_double (reader, key, TRUE, 0, 10, number);
    case HR_FACT_STEPS:
      return hr_reader_double (reader, key, TRUE, 1, 1e9, number);
    default:
      g_assert_not_reached ();
    }
}

static gboolean
fact_is_number (int fact)
{
  return fact == HR_FACT_HOURS_PER_DAY || fact == HR_FACT_MONTHS || fact == HR_FACT_BUDGET ||
         fact == HR_FACT_RUNS || fact == HR_FACT_USD_PER_KWH || fact == HR_FACT_STEPS;
}

static void
inputs_set (HrAdviceInputs *inputs,
            int             fact,
            double          number,
            int             value)
{
  inputs->known |= fact;
  switch (fact)
    {
    case HR_FACT_TASK:
      inputs->task = value;
      break;
    case HR_FACT_PREFER:
      inputs->prefer = value;
      break;
    case HR_FACT_RANK:
      inputs->rank = value;
      break;
    case HR_FACT_DATACENTER:
      inputs->datacenter = value;
      break;
    case HR_FACT_ROCM:
      inputs->rocm = value;
      break;
    case HR_FACT_HOURS_PER_DAY:
      inputs->hours_per_day = number;
      break;
    case HR_FACT_MONTHS:
      inputs->months = number;
      break;
    case HR_FACT_BUDGET:
      inputs->budget_usd = number;
      break;
    case HR_FACT_RUNS:
      inputs->runs = (guint) number;
      break;
    case HR_FACT_USD_PER_KWH:
      inputs->usd_per_kwh = number;
      break;
    case HR_FACT_STEPS:
      inputs->steps = (guint) number;
      break;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
read_set (HrReader        *parent,
          HrAdviceInputs  *set)
{
  g_autofree char *pointer = hr_reader_child_pointer (parent, "set");
  g_autoptr(GList) members = NULL;
  HrReader reader;
  gboolean ok = FALSE;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, "set"),
                       "\"set\"", parent->error))
    return FALSE;

  if (!hr_reader_check_keys (&reader, fact_key_list))
    goto out;

  members = json_object_get_members (reader.object);
  for (GList *l = members; l != NULL; l = l->next)
    {
      int fact = fact_for_key (l->data);
      double number = 0;
      int value = 0;

      if (fact == 0)
        continue;   /* an "x-" key */
      if (!read_fact_value (&reader, fact, l->data, &number, &value))
        goto out;
      inputs_set (set, fact, number, value);
    }
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

static gboolean
read_when (HrReader *parent,
           GArray   *when)
{
  static const char * const range_keys[] = { "min", "max", NULL };
  g_autofree char *pointer = hr_reader_child_pointer (parent, "when");
  g_autoptr(GList) members = NULL;
  HrReader reader;
  gboolean ok = FALSE;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, "when"),
                       "\"when\"", parent->error))
    return FALSE;

  if (!hr_reader_check_keys (&reader, fact_key_list))
    goto out;

  members = json_object_get_members (reader.object);
  for (GList *l = members; l != NULL; l = l->next)
    {
      HrAdvisorCondition cond = { fact_for_key (l->data), -INFINITY, INFINITY, 0 };

      if (cond.fact == 0)
        continue;

      if (fact_is_number (cond.fact))
        {
          HrReader range;
          g_autofree char *range_pointer = hr_reader_child_pointer (&reader, l->data);
          gboolean good;

          if (!hr_reader_init (&range, reader.doc, range_pointer,
                               hr_reader_get_node (&reader, l->data),
                               _("a condition on a number ({\"min\": …, \"max\": …})"),
                               reader.error))
            goto out;
          good = hr_reader_check_keys (&range, range_keys) &&
                 hr_reader_double (&range, "min", FALSE, 0, 1e9, &cond.min) &&
                 hr_reader_double (&range, "max", FALSE, 0, 1e9, &cond.max);
          if (good && !hr_reader_has (&range, "min") && !hr_reader_has (&range, "max"))
            good = hr_reader_fail (&range, NULL, _("a condition needs \"min\", \"max\" or both"));
          else if (good && cond.min > cond.max)
            good = hr_reader_fail (&range, "min", _("\"min\" is above \"max\""));
          hr_reader_clear (&range);
          if (!good)
            goto out;
        }
      else
        {
          double unused;

          if (!read_fact_value (&reader, cond.fact, l->data, &unused, &cond.value))
            goto out;
        }
      g_array_append_val (when, cond);
    }
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

/* The tree's texts (questions, their help, answers, the leaf's text) are
 * shown as they are read: in the user's language where po/ has them
 * (data/advisor-strings.h marks them for xgettext).  Under LC_MESSAGES=C,
 * as for --json, they stay the file's. */
static void
translate_text (char **text)
{
  const char *translated;

  if (*text == NULL || **text == '\0')
    return;
  translated = g_dgettext (GETTEXT_PACKAGE, *text);
  if (translated != *text)
    {
      g_free (*text);
      *text = g_strdup (translated);
    }
}

static HrAdvisorAnswer *
read_answer (HrJsonDoc   *doc,
             const char  *pointer,
             JsonNode    *node,
             GError     **error)
{
  static const char * const keys[] = { "id", "label", "next", "default", "set", "when", NULL };
  HrAdvisorAnswer *answer = g_new0 (HrAdvisorAnswer, 1);
  HrReader reader;
  gboolean ok = FALSE;

  answer->when = g_array_new (FALSE, FALSE, sizeof (HrAdvisorCondition));
  if (!hr_reader_init (&reader, doc, pointer, node, _("an answer"), error))
    {
      answer_free (answer);
      return NULL;
    }

  if (!hr_reader_check_keys (&reader, keys) ||
      !hr_reader_string (&reader, "id", TRUE, &answer->id) ||
      !hr_reader_string (&reader, "label", TRUE, &answer->label) ||
      !hr_reader_string (&reader, "next", TRUE, &answer->next) ||
      !hr_reader_bool (&reader, "default", &answer->is_default))
    goto out;
  translate_text (&answer->label);
  if (hr_reader_has (&reader, "set") && !read_set (&reader, &answer->set))
    goto out;
  if (hr_reader_has (&reader, "when") && !read_when (&reader, answer->when))
    goto out;
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  if (!ok)
    {
      answer_free (answer);
      return NULL;
    }
  return answer;
}

static HrAdvisorNode *
read_node (HrJsonDoc   *doc,
           const char  *pointer,
           JsonNode    *json,
           GError     **error)
{
  static const char * const keys[] = { "id", "question", "help", "answers", "recommend", NULL };
  static const char * const leaf_keys[] = { "text", "max", NULL };
  HrAdvisorNode *node = g_new0 (HrAdvisorNode, 1);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  HrReader reader;
  gboolean ok = FALSE;
  guint defaults = 0;

  node->answers = g_ptr_array_new_with_free_func ((GDestroyNotify) answer_free);
  if (!hr_reader_init (&reader, doc, pointer, json, _("an advisor node"), error))
    {
      node_free (node);
      return NULL;
    }

  if (!hr_reader_check_keys (&reader, keys) ||
      !hr_reader_string (&reader, "id", TRUE, &node->id) ||
      !hr_reader_string (&reader, "question", FALSE, &node->question) ||
      !hr_reader_string (&reader, "help", FALSE, &node->help))
    goto out;
  translate_text (&node->question);
  translate_text (&node->help);

  if (node->question != NULL && hr_reader_has (&reader, "recommend"))
    {
      hr_reader_fail (&reader, "recommend",
                      _("a node is a question (\"question\" and \"answers\") or a leaf "
                        "(\"recommend\"), not both"));
      goto out;
    }

  if (node->question == NULL)
    {
      HrReader leaf;
      g_autofree char *leaf_pointer = hr_reader_child_pointer (&reader, "recommend");
      guint64 max = 5;
      gboolean good;

      if (!hr_reader_has (&reader, "recommend"))
        {
          hr_reader_fail (&reader, NULL, _("advisor node \"%s\" has neither \"question\" nor "
                                           "\"recommend\""), node->id);
          goto out;
        }
      if (hr_reader_has (&reader, "answers"))
        {
          hr_reader_fail (&reader, "answers", _("a \"recommend\" leaf takes no \"answers\""));
          goto out;
        }
      if (!hr_reader_init (&leaf, doc, leaf_pointer, hr_reader_get_node (&reader, "recommend"),
                           "\"recommend\"", error))
        goto out;
      good = hr_reader_check_keys (&leaf, leaf_keys) &&
             hr_reader_string (&leaf, "text", TRUE, &node->recommend) &&
             hr_reader_uint (&leaf, "max", FALSE, 1, 100, &max);
      hr_reader_clear (&leaf);
      if (!good)
        goto out;
      translate_text (&node->recommend);
      node->max_recommendations = max;
      ok = TRUE;
      goto out;
    }

  if (!hr_reader_require (&reader, "answers"))
    goto out;

  {
    JsonNode *list = hr_reader_get_node (&reader, "answers");
    g_autofree char *list_pointer = hr_reader_child_pointer (&reader, "answers");
    JsonArray *array;

    if (!JSON_NODE_HOLDS_ARRAY (list) || json_array_get_length (json_node_get_array (list)) < 2)
      {
        hr_reader_fail (&reader, "answers",
                        _("\"answers\" must be an array of two or more answers"));
        goto out;
      }

    array = json_node_get_array (list);
    for (guint i = 0; i < json_array_get_length (array); i++)
      {
        g_autofree char *p = hr_json_pointer_append_index (list_pointer, i);
        HrAdvisorAnswer *answer = read_answer (doc, p, json_array_get_element (array, i), error);

        if (answer == NULL)
          goto out;
        g_ptr_array_add (node->answers, answer);
        if (!g_hash_table_add (seen, answer->id))
          {
            g_autofree char *id_pointer = hr_json_pointer_append (p, "id");

            hr_json_doc_error (doc, error, HR_ERROR_INVALID, id_pointer, FALSE,
                               _("answer id \"%s\" appears twice in \"%s\""), answer->id, node->id);
            goto out;
          }
        if (answer->is_default)
          defaults++;
      }

    if (defaults != 1)
      {
        hr_reader_fail (&reader, "answers",
                        _("question \"%s\" has %u answers marked \"default\": it needs exactly "
                          "one, taken when no fact decides"), node->id, defaults);
        goto out;
      }
  }
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  if (!ok)
    {
      node_free (node);
      return NULL;
    }
  return node;
}

/* Depth-first from @node; state 1: on the current path, 2: done. */
static gboolean
check_cycles (HrAdvisor     *advisor,
              HrJsonDoc     *doc,
              HrAdvisorNode *node,
              GHashTable    *state,
              GPtrArray     *path,
              GError       **error)
{
  g_hash_table_insert (state, node->id, GINT_TO_POINTER (1));
  g_ptr_array_add (path, node->id);

  for (guint i = 0; i < node->answers->len; i++)
    {
      HrAdvisorAnswer *answer = g_ptr_array_index (node->answers, i);
      HrAdvisorNode *next = g_hash_table_lookup (advisor->index, answer->next);
      int seen = GPOINTER_TO_INT (g_hash_table_lookup (state, answer->next));

      if (seen == 1)
        {
          guint n = 0;
          g_autoptr(GString) loop = g_string_new (NULL);
          g_autofree char *pointer = NULL;
          guint index = 0;

          g_ptr_array_find_with_equal_func (path, answer->next, g_str_equal, &n);
          for (guint k = n; k < path->len; k++)
            g_string_append_printf (loop, "%s → ", (char *) g_ptr_array_index (path, k));
          g_string_append (loop, answer->next);
          g_ptr_array_find (advisor->nodes, node, &index);
          pointer = g_strdup_printf ("/nodes/%u/answers/%u/next", index, i);
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                             _("answer \"%s\" of \"%s\" leads back to \"%s\": the advisor would "
                               "loop (%s)"), answer->id, node->id, answer->next, loop->str);
          return FALSE;
        }
      if (seen == 0 && !check_cycles (advisor, doc, next, state, path, error))
        return FALSE;
    }

  g_hash_table_insert (state, node->id, GINT_TO_POINTER (2));
  g_ptr_array_set_size (path, path->len - 1);
  return TRUE;
}

HrAdvisor *
hr_advisor_new_from_doc (HrJsonDoc  *doc,
                         GError    **error)
{
  static const char * const keys[] = { "headroom_advisor", "source", "start", "nodes", NULL };
  g_autoptr(HrAdvisor) advisor = g_new0 (HrAdvisor, 1);
  g_autoptr(GHashTable) state = NULL;
  g_autoptr(GPtrArray) path = NULL;
  g_autofree char *source = NULL;
  HrReader reader;
  guint64 version = 0;
  JsonNode *list;
  JsonArray *array;
  gboolean ok = FALSE;

  g_return_val_if_fail (doc != NULL, NULL);

  advisor->nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);
  advisor->index = g_hash_table_new (g_str_hash, g_str_equal);

  if (!hr_reader_init (&reader, doc, "", hr_json_doc_get_root (doc), _("the advisor tree"), error))
    return NULL;

  if (!hr_reader_check_keys (&reader, keys) ||
      !hr_reader_uint (&reader, "headroom_advisor", TRUE, 1, 1, &version) ||
      !hr_reader_string (&reader, "source", TRUE, &source) ||
      !hr_reader_string (&reader, "start", TRUE, &advisor->start) ||
      !hr_reader_require (&reader, "nodes"))
    goto out;

  list = hr_reader_get_node (&reader, "nodes");
  if (!JSON_NODE_HOLDS_ARRAY (list) || json_array_get_length (json_node_get_array (list)) == 0)
    {
      hr_reader_fail (&reader, "nodes", _("\"nodes\" must be a non-empty array"));
      goto out;
    }

  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *pointer = hr_json_pointer_append_index ("/nodes", i);
      HrAdvisorNode *node = read_node (doc, pointer, json_array_get_element (array, i), error);

      if (node == NULL)
        goto out;
      g_ptr_array_add (advisor->nodes, node);
      if (!g_hash_table_insert (advisor->index, node->id, node))
        {
          g_autofree char *id_pointer = hr_json_pointer_append (pointer, "id");

          hr_json_doc_error (doc, error, HR_ERROR_INVALID, id_pointer, FALSE,
                             _("node id \"%s\" appears twice"), node->id);
          goto out;
        }
    }

  /* Every answer leads to a node that exists. */
  for (guint i = 0; i < advisor->nodes->len; i++)
    {
      HrAdvisorNode *node = g_ptr_array_index (advisor->nodes, i);

      for (guint k = 0; k < node->answers->len; k++)
        {
          HrAdvisorAnswer *answer = g_ptr_array_index (node->answers, k);
          g_autofree char *pointer = NULL;

          if (g_hash_table_contains (advisor->index, answer->next))
            continue;
          pointer = g_strdup_printf ("/nodes/%u/answers/%u/next", i, k);
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                             _("answer \"%s\" of \"%s\" leads to \"%s\", which is no node's id"),
                             answer->id, node->id, answer->next);
          goto out;
        }
    }

  if (!g_hash_table_contains (advisor->index, advisor->start))
    {
      hr_reader_fail (&reader, "start", _("\"start\" names \"%s\", which is no node's id"),
                      advisor->start);
      goto out;
    }

  state = g_hash_table_new (g_str_hash, g_str_equal);
  path = g_ptr_array_new ();
  if (!check_cycles (advisor, doc, g_hash_table_lookup (advisor->index, advisor->start), state,
                     path, error))
    goto out;

  for (guint i = 0; i < advisor->nodes->len; i++)
    {
      HrAdvisorNode *node = g_ptr_array_index (advisor->nodes, i);
      g_autofree char *pointer = NULL;

      if (g_hash_table_contains (state, node->id))
        continue;
      pointer = g_strdup_printf ("/nodes/%u", i);
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                         _("node \"%s\" is never reached from \"%s\""), node->id, advisor->start);
      goto out;
    }
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok ? g_steal_pointer (&advisor) : NULL;
}

HrAdvisor *
hr_advisor_load_file (const char  *path,
                      GError     **error)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (path, error);

  return doc != NULL ? hr_advisor_new_from_doc (doc, error) : NULL;
}

HrAdvisor *
hr_advisor_get_default (void)
{
  static HrAdvisor *advisor;

  if (g_once_init_enter (&advisor))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = g_resources_lookup_data (RESOURCE_PATH,
                                                         G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
      g_autoptr(HrJsonDoc) doc = NULL;
      HrAdvisor *loaded = NULL;
      gsize size = 0;
      const char *data;

      /* The built-in tree is part of the program: if it does not load,
       * the build is broken. */
      if (bytes == NULL)
        g_error ("built-in advisor tree: %s", error->message);
      data = g_bytes_get_data (bytes, &size);
      doc = hr_json_doc_load_data ("resource://" RESOURCE_PATH, data, size, &error);
      if (doc != NULL)
        loaded = hr_advisor_new_from_doc (doc, &error);
      if (loaded == NULL)
        g_error ("built-in advisor tree: %s", error->message);
      g_once_init_leave (&advisor, loaded);
    }

  return advisor;
}

const HrAdvisorNode *
hr_advisor_get_start (HrAdvisor *advisor)
{
  g_return_val_if_fail (advisor != NULL, NULL);
  return g_hash_table_lookup (advisor->index, advisor->start);
}

const HrAdvisorNode *
hr_advisor_get_node (HrAdvisor  *advisor,
                     const char *id)
{
  g_return_val_if_fail (advisor != NULL, NULL);
  g_return_val_if_fail (id != NULL, NULL);
  return g_hash_table_lookup (advisor->index, id);
}

const HrAdvisorAnswer *
hr_advisor_node_find_answer (const HrAdvisorNode *node,
                             const char          *answer_id)
{
  g_return_val_if_fail (node != NULL, NULL);

  for (guint i = 0; i < node->answers->len; i++)
    {
      const HrAdvisorAnswer *answer = g_ptr_array_index (node->answers, i);

      if (g_strcmp0 (answer->id, answer_id) == 0)
        return answer;
    }
  return NULL;
}

gboolean
hr_advisor_node_is_leaf (const HrAdvisorNode *node)
{
  g_return_val_if_fail (node != NULL, FALSE);
  return node->question == NULL;
}

/* ---- the walk ---- */

struct _HrAdvisorWalk {
  HrAdvisor *advisor;
  GPtrArray *nodes;     /* const HrAdvisorNode *, asked */
  GPtrArray *answers;   /* const HrAdvisorAnswer *, taken */
};

HrAdvisorWalk *
hr_advisor_walk_new (HrAdvisor *advisor)
{
  HrAdvisorWalk *walk;

  g_return_val_if_fail (advisor != NULL, NULL);

  walk = g_new0 (HrAdvisorWalk, 1);
  walk->advisor = advisor;
  walk->nodes = g_ptr_array_new ();
  walk->answers = g_ptr_array_new ();
  return walk;
}

void
hr_advisor_walk_free (HrAdvisorWalk *walk)
{
  if (walk == NULL)
    return;

  g_ptr_array_unref (walk->nodes);
  g_ptr_array_unref (walk->answers);
  g_free (walk);
}

const HrAdvisorNode *
hr_advisor_walk_get_current (HrAdvisorWalk *walk)
{
  const HrAdvisorAnswer *last;

  g_return_val_if_fail (walk != NULL, NULL);

  if (walk->answers->len == 0)
    return hr_advisor_get_start (walk->advisor);
  last = g_ptr_array_index (walk->answers, walk->answers->len - 1);
  return hr_advisor_get_node (walk->advisor, last->next);
}

gboolean
hr_advisor_walk_is_done (HrAdvisorWalk *walk)
{
  return hr_advisor_node_is_leaf (hr_advisor_walk_get_current (walk));
}

gboolean
hr_advisor_walk_answer (HrAdvisorWalk  *walk,
                        const char     *answer_id,
                        GError        **error)
{
  const HrAdvisorNode *node;
  const HrAdvisorAnswer *answer;

  g_return_val_if_fail (walk != NULL, FALSE);
  g_return_val_if_fail (answer_id != NULL, FALSE);

  node = hr_advisor_walk_get_current (walk);
  if (hr_advisor_node_is_leaf (node))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("the advisor has no question left to answer (it is at \"%s\")"), node->id);
      return FALSE;
    }

  answer = hr_advisor_node_find_answer (node, answer_id);
  if (answer == NULL)
    {
      g_autoptr(GString) ids = g_string_new (NULL);

      for (guint i = 0; i < node->answers->len; i++)
        g_string_append_printf (ids, "%s\"%s\"", i > 0 ? ", " : "",
                                ((HrAdvisorAnswer *) g_ptr_array_index (node->answers, i))->id);
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("\"%s\" is no answer to \"%s\" (%s); its answers are %s"), answer_id, node->id,
                   node->question, ids->str);
      return FALSE;
    }

  g_ptr_array_add (walk->nodes, (gpointer) node);
  g_ptr_array_add (walk->answers, (gpointer) answer);
  return TRUE;
}

static gboolean
condition_holds (const HrAdvisorCondition *cond,
                 const HrAdviceInputs     *facts)
{
  switch (cond->fact)
    {
    case HR_FACT_TASK: return (int) facts->task == cond->value;
    case HR_FACT_PREFER: return (int) facts->prefer == cond->value;
    case HR_FACT_RANK: return (int) facts->rank == cond->value;
    case HR_FACT_DATACENTER: return !facts->datacenter == !cond->value;
    case HR_FACT_ROCM: return !facts->rocm == !cond->value;
    case HR_FACT_HOURS_PER_DAY:
      return facts->hours_per_day >= cond->min && facts->hours_per_day <= cond->max;
    case HR_FACT_MONTHS: return facts->months >= cond->min && facts->months <= cond->max;
    case HR_FACT_BUDGET:
      return facts->budget_usd >= cond->min && facts->budget_usd <= cond->max;
    case HR_FACT_RUNS: return facts->runs >= cond->min && facts->runs <= cond->max;
    case HR_FACT_USD_PER_KWH:
      return facts->usd_per_kwh >= cond->min && facts->usd_per_kwh <= cond->max;
    case HR_FACT_STEPS: return facts->steps >= cond->min && facts->steps <= cond->max;
    default: g_assert_not_reached ();
    }
}

/* An answer matches when every condition on a known fact holds and at
 * least one of its conditions is on a known fact: "most of the day, for
 * months" is taken at 18 hours a day even when the months are not said. */
static gboolean
answer_matches (const HrAdvisorAnswer *answer,
                const HrAdviceInputs  *facts)
{
  gboolean any = FALSE;

  for (guint i = 0; i < answer->when->len; i++)
    {
      const HrAdvisorCondition *cond = &g_array_index (answer->when, HrAdvisorCondition, i);

      if (!(facts->known & cond->fact))
        continue;
      if (!condition_holds (cond, facts))
        return FALSE;
      any = TRUE;
    }
  return any;
}

const HrAdvisorAnswer *
hr_advisor_walk_auto_step (HrAdvisorWalk        *walk,
                           const HrAdviceInputs *facts)
{
  const HrAdvisorNode *node;
  const HrAdvisorAnswer *chosen = NULL;

  g_return_val_if_fail (walk != NULL, NULL);
  g_return_val_if_fail (facts != NULL, NULL);

  node = hr_advisor_walk_get_current (walk);
  if (hr_advisor_node_is_leaf (node))
    return NULL;

  for (guint i = 0; i < node->answers->len && chosen == NULL; i++)
    if (answer_matches (g_ptr_array_index (node->answers, i), facts))
      chosen = g_ptr_array_index (node->answers, i);
  /* exactly one default per question (checked on load) */
  for (guint i = 0; i < node->answers->len && chosen == NULL; i++)
    if (((HrAdvisorAnswer *) g_ptr_array_index (node->answers, i))->is_default)
      chosen = g_ptr_array_index (node->answers, i);

  g_ptr_array_add (walk->nodes, (gpointer) node);
  g_ptr_array_add (walk->answers, (gpointer) chosen);
  return chosen;
}

void
hr_advisor_walk_auto (HrAdvisorWalk        *walk,
                      const HrAdviceInputs *facts)
{
  g_return_if_fail (walk != NULL);
  g_return_if_fail (facts != NULL);

  /* The tree has no cycles (checked on load), so this ends. */
  while (hr_advisor_walk_auto_step (walk, facts) != NULL)
    ;
}

guint
hr_advisor_walk_get_n_steps (HrAdvisorWalk *walk)
{
  g_return_val_if_fail (walk != NULL, 0);
  return walk->answers->len;
}

const HrAdvisorNode *
hr_advisor_walk_get_step_node (HrAdvisorWalk *walk,
                               guint          i)
{
  g_return_val_if_fail (walk != NULL && i < walk->nodes->len, NULL);
  return g_ptr_array_index (walk->nodes, i);
}

const HrAdvisorAnswer *
hr_advisor_walk_get_step_answer (HrAdvisorWalk *walk,
                                 guint          i)
{
  g_return_val_if_fail (walk != NULL && i < walk->answers->len, NULL);
  return g_ptr_array_index (walk->answers, i);
}

void
hr_advisor_walk_back_to (HrAdvisorWalk *walk,
                         guint          i)
{
  g_return_if_fail (walk != NULL);

  if (i < walk->nodes->len)
    {
      g_ptr_array_set_size (walk->nodes, i);
      g_ptr_array_set_size (walk->answers, i);
    }
}

void
hr_advisor_walk_get_inputs (HrAdvisorWalk        *walk,
                            const HrAdviceInputs *overrides,
                            HrAdviceInputs       *inputs)
{
  /* What the advice assumes when nothing is said: a few hours a day for a
   * year, one run, a desktop card, the cheaper of buying and renting. */
  HrAdviceInputs defaults = {
    .known = 0, .task = HR_TASK_FINETUNE, .hours_per_day = 4, .months = 12, .budget_usd = -1,
    .prefer = HR_ADVICE_PREFER_CHEAPER, .runs = 1, .datacenter = FALSE,
    .rank = HR_ADVICE_RANK_VALUE, .usd_per_kwh = HR_ADVICE_DEFAULT_USD_PER_KWH,
    .steps = HR_COST_DEFAULT_STEPS,
  };

  g_return_if_fail (walk != NULL);
  g_return_if_fail (inputs != NULL);

  *inputs = defaults;
  for (guint i = 0; i < walk->answers->len; i++)
    hr_advice_inputs_merge (inputs,
                            &((HrAdvisorAnswer *) g_ptr_array_index (walk->answers, i))->set);
  if (overrides != NULL)
    hr_advice_inputs_merge (inputs, overrides);
}

static HrTreeNode *
node_for (const HrAdvisorNode *node,
          const char          *edge_label)
{
  return hr_tree_node_new (node->question != NULL ? node->question : node->recommend, edge_label);
}

/* Step @i of the walk (the current node when @i is past the last answer),
 * with its answers in file order: the one taken continues the path, the
 * others (or, at the current question, all) end in a muted leaf naming
 * where they lead. */
static HrTreeNode *
step_to_tree (HrAdvisorWalk *walk,
              guint          i,
              const char    *edge_label,
              const char    *leaf_detail)
{
  gboolean is_current = i >= walk->nodes->len;
  const HrAdvisorNode *asked = is_current ? hr_advisor_walk_get_current (walk)
                                          : g_ptr_array_index (walk->nodes, i);
  const HrAdvisorAnswer *taken = is_current ? NULL : g_ptr_array_index (walk->answers, i);
  HrTreeNode *tree_node = node_for (asked, edge_label);

  tree_node->chosen = TRUE;
  tree_node->current = is_current && !hr_advisor_node_is_leaf (asked);
  if (tree_node->current && asked->help != NULL)
    hr_tree_node_set_detail (tree_node, asked->help);
  if (hr_advisor_node_is_leaf (asked) && leaf_detail != NULL)
    hr_tree_node_set_detail (tree_node, leaf_detail);

  for (guint k = 0; asked->answers != NULL && k < asked->answers->len; k++)
    {
      const HrAdvisorAnswer *answer = g_ptr_array_index (asked->answers, k);

      if (answer == taken)
        hr_tree_node_add (tree_node, step_to_tree (walk, i + 1, answer->label, leaf_detail));
      else
        hr_tree_node_add (tree_node,
                          node_for (hr_advisor_get_node (walk->advisor, answer->next),
                                    answer->label));
    }

  return tree_node;
}

HrTreeNode *
hr_advisor_walk_to_tree (HrAdvisorWalk *walk,
                         const char    *leaf_detail)
{
  g_return_val_if_fail (walk != NULL, NULL);

  return step_to_tree (walk, 0, NULL, leaf_detail);
}

/* ---- recommendations ---- */

/* One machine holds up to eight cards; data-centre cards scale out over
 * nodes, here to eight nodes of eight. */
#define MAX_CARDS_PER_MACHINE 8
#define MAX_CARDS_CLUSTER     64

/* Throughput kept per doubling of the cards one run is sharded over: the
 * all-gathers and reduce-scatters FSDP and ZeRO-3 add to every step.  An
 * assumption, not a measurement (NVLink loses less, PCIe more): it makes
 * one big card beat eight small ones of the same nominal TFLOP/s. */
#define SHARDED_SCALING 0.9

double
hr_cost_power_per_month (double watts,
                         double hours_per_day,
                         double usd_per_kwh)
{
  return watts / 1000.0 * hours_per_day * HR_DAYS_PER_MONTH * usd_per_kwh;
}

void
hr_recommendation_free (HrRecommendation *rec)
{
  if (rec == NULL)
    return;

  g_free (rec->gpu_id);
  g_free (rec->gpu_name);
  g_free (rec->price_as_of);
  g_free (rec->lever);
  g_free (rec->lever_change);
  g_free (rec->summary);
  g_free (rec);
}

void
hr_advice_free (HrAdvice *advice)
{
  if (advice == NULL)
    return;

  g_clear_pointer (&advice->recommendations, g_ptr_array_unref);
  g_clear_pointer (&advice->host.reasons, g_ptr_array_unref);
  g_clear_pointer (&advice->notes, g_ptr_array_unref);
  g_free (advice->order);
  g_free (advice);
}

/* Dense throughput of one card at the precision the scenario computes in.
 * fp32 under JAX runs its matmuls on TF32 tensor cores (JAX's default
 * matmul precision on NVIDIA GPUs); PyTorch keeps true fp32 matmuls unless
 * told otherwise (torch.backends.cuda.matmul.allow_tf32 is False by
 * default since PyTorch 1.12). */
static double
card_tflops (const HrGpu      *gpu,
             const HrScenario *s)
{
  switch (s->compute)
    {
    case HR_COMPUTE_BF16_MIXED:
    case HR_COMPUTE_FP16_MIXED:
    case HR_COMPUTE_BF16_PURE:
    case HR_COMPUTE_FP16_PURE:
    /* the GPU catalog has no fp8 throughput: an fp8 run is costed at the
     * card's 16-bit rate, which it at least reaches */
    case HR_COMPUTE_FP8_MIXED:
      return gpu->bf16_tflops;
    case HR_COMPUTE_TF32:
      return gpu->tf32_tflops > 0 ? gpu->tf32_tflops : gpu->fp32_tflops;
    case HR_COMPUTE_FP32:
      if (s->framework == HR_FRAMEWORK_JAX && gpu->tf32_tflops > 0)
        return gpu->tf32_tflops;
      return gpu->fp32_tflops;
    default:
      g_assert_not_reached ();
    }
}

/* What card_tflops() counts, in words. */
static const char *
throughput_name (const HrScenario *s)
{
  switch (s->compute)
    {
    case HR_COMPUTE_BF16_MIXED:
    case HR_COMPUTE_BF16_PURE:
    case HR_COMPUTE_FP8_MIXED:
      return "BF16";
    case HR_COMPUTE_FP16_MIXED:
    case HR_COMPUTE_FP16_PURE:
      return "FP16";
    case HR_COMPUTE_TF32:
      return "TF32";
    case HR_COMPUTE_FP32:
      return s->framework == HR_FRAMEWORK_JAX ? "TF32" : "FP32";
    default:
      g_assert_not_reached ();
    }
}

/* What one configuration of cards makes of the scenario. */
typedef struct {
  gboolean fits;             /* at the point estimate, with the reserve */
  gboolean fits_high;        /* at the high end of the range */
  guint    max_micro_batch;
  guint64  need;
  guint64  need_high;
  guint64  usable;
} Fit;

/* Whether @base runs on @n cards of @gpu split by @sharding, with its
 * reserve at its micro-batch, by the fit rule (and @calibration when not
 * NULL), at the point estimate and at the high end of its range. */
static void
fit_on (const HrScenario    *base,
        const HrCalibration *calibration,
        const HrGpu         *gpu,
        guint                n,
        HrSharding           sharding,
        Fit                 *fit)
{
  g_autoptr(HrScenario) s = hr_scenario_copy (base);
  g_autoptr(HrPlan) plan = NULL;
  HrFitLimit limit;
  HrPeak peak;

  s->gpus = n;
  s->sharding = sharding;
  g_clear_pointer (&s->gpu, hr_gpu_free);
  s->gpu = hr_gpu_copy (gpu);
  s->gpu_inline = FALSE;
  plan = hr_plan_new (s);
  if (calibration != NULL)
    hr_calibration_peak (calibration, plan, s->micro_batch, &peak);
  else
    hr_plan_peak (plan, s->micro_batch, &peak);
  hr_fit_rule_limit (s, gpu, &peak, &limit);
  fit->max_micro_batch = calibration != NULL
    ? hr_calibration_max_micro_batch (calibration, plan, limit.usable, NULL)
    : hr_fit_rule_plan_max_micro_batch (plan, limit.usable, NULL);
  fit->need = hr_fit_rule_need (s, &peak);
  fit->need_high = MAX (peak.need_high, fit->need);
  fit->usable = limit.usable;
  fit->fits = fit->need <= limit.usable;
  fit->fits_high = fit->fits && fit->need_high <= limit.usable;
}

static gboolean
fits_on (const HrScenario    *base,
         const HrCalibration *calibration,
         const HrGpu         *gpu,
         guint                n,
         HrSharding           sharding,
         guint               *max_micro_batch)
{
  Fit fit;

  fit_on (base, calibration, gpu, n, sharding, &fit);
  *max_micro_batch = fit.max_micro_batch;
  return fit.fits;
}

/* The fewest cards of @gpu that run @base: as it is, else with its state
 * split over the cards (FSDP, which is ZeRO-3, or the run's own ZeRO-3) on
 * as many cards, then on twice as many, up to @max_cards.  Returns 0 when
 * none does; @alone is the run's own cards as it is. */
static guint
fit_cards (const HrScenario    *base,
           const HrCalibration *calibration,
           const HrGpu         *gpu,
           guint                max_cards,
           HrSharding          *sharding,
           Fit                 *fit,
           Fit                 *alone)
{
  gboolean sharded = base->sharding == HR_SHARDING_ZERO3 || base->sharding == HR_SHARDING_FSDP;
  HrSharding split = sharded ? base->sharding : HR_SHARDING_FSDP;

  fit_on (base, calibration, gpu, base->gpus, base->sharding, alone);
  *fit = *alone;
  if (alone->fits)
    {
      *sharding = base->sharding;
      return base->gpus;
    }

  for (guint n = sharded || base->gpus == 1 ? base->gpus * 2 : base->gpus; n <= max_cards; n *= 2)
    {
      fit_on (base, calibration, gpu, n, split, fit);
      if (fit->fits)
        {
          *sharding = split;
          return n;
        }
    }

  return 0;
}

static int
compare_numbers (double a,
                 double b)
{
  return a < b ? -1 : a > b ? 1 : 0;
}

/* Within 2%, two figures are the same for the choice: cards sold as the
 * same size differ by a few MiB in what the driver reports (24,576 MiB on
 * an RTX 3090, 24,564 on an RTX 4090), and prices and peaks are typical
 * figures, not exact ones. */
#define SAME_WITHIN 0.02

static int
compare_roughly (double a,
                 double b)
{
  if (isfinite (a) && isfinite (b) && fabs (a - b) <= SAME_WITHIN * MAX (fabs (a), fabs (b)))
    return 0;
  return compare_numbers (a, b);
}

/* The objective, best first: a card that fits at the high end of the
 * estimate's range before one that fits only at the point estimate; then,
 * for a world model bought, memory first and then throughput (the
 * DreamerV3 GPU guide, section 6: "the first priority when choosing a GPU
 * is VRAM, second is compute power"; a rented card can be swapped for a
 * larger one later); otherwise, and then, the least cost per finished
 * run.  The same card new before used (a warranty, no wear). */
static int
compare_objective (const HrRecommendation *x,
                   const HrRecommendation *y,
                   gboolean                memory_first)
{
  int c;

  if (x->fits_high != y->fits_high)
    return x->fits_high ? -1 : 1;

  if (memory_first && x->choice == HR_ADVICE_CHOICE_BUY && y->choice == HR_ADVICE_CHOICE_BUY)
    {
      c = compare_roughly ((double) y->memory, (double) x->memory);
      if (c != 0)
        return c;
      c = compare_roughly (y->tflops, x->tflops);
      if (c != 0)
        return c;
    }

  if (g_strcmp0 (x->gpu_id, y->gpu_id) == 0 && x->choice == y->choice && x->used != y->used)
    return x->used ? 1 : -1;

  c = compare_roughly (x->cost_per_run, y->cost_per_run);
  if (c != 0)
    return c;
  /* equal for the run: the more memory, then the cheaper per gigabyte */
  c = compare_roughly ((double) y->memory, (double) x->memory);
  if (c != 0)
    return c;
  return compare_numbers (x->price_per_gb >= 0 ? x->price_per_gb : INFINITY,
                          y->price_per_gb >= 0 ? y->price_per_gb : INFINITY);
}

/* The list as shown: within the budget first, in the objective's order;
 * beyond it, the least money up front first. */
static int
compare_listed_cb (gconstpointer a,
                   gconstpointer b,
                   gpointer      user_data)
{
  const HrRecommendation *x = *(HrRecommendation * const *) a;
  const HrRecommendation *y = *(HrRecommendation * const *) b;

  if (x->within_budget != y->within_budget)
    return x->within_budget ? -1 : 1;
  if (!x->within_budget)
    {
      int c = compare_numbers (x->up_front, y->up_front);

      return c != 0 ? c : compare_objective (x, y, GPOINTER_TO_INT (user_data));
    }
  return compare_objective (x, y, GPOINTER_TO_INT (user_data));
}

static int
compare_up_front_cb (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  const HrRecommendation *x = *(HrRecommendation * const *) a;
  const HrRecommendation *y = *(HrRecommendation * const *) b;
  int c = compare_numbers (x->up_front, y->up_front);

  return c != 0 ? c : compare_objective (x, y, GPOINTER_TO_INT (user_data));
}

/* The best card within a budget that runs only a smaller micro-batch:
 * the largest micro-batch, then the least money up front. */
static int
compare_partial_cb (gconstpointer a,
                    gconstpointer b,
                    gpointer      user_data)
{
  const HrRecommendation *x = *(HrRecommendation * const *) a;
  const HrRecommendation *y = *(HrRecommendation * const *) b;

  if (x->max_micro_batch != y->max_micro_batch)
    return x->max_micro_batch > y->max_micro_batch ? -1 : 1;
  return compare_numbers (x->up_front, y->up_front);
}

/* Whether @x has at least the memory and the throughput of @y. */
static gboolean
dominates (const HrRecommendation *x,
           const HrRecommendation *y)
{
  return (double) x->memory >= (1 - SAME_WITHIN) * (double) y->memory &&
         x->tflops >= y->tflops * (1 - 1e-9);
}

/* The first pick within @budget (< 0: none), from @options that run the
 * scenario as asked.  The picks form one chain, walked from the least
 * money up front: an option takes over from the pick before it only when
 * it is better by the objective and has at least its memory and its
 * throughput (or, memory first, has more memory), or when it fits at the
 * high end of the range where the pick did not: the safer run, whatever
 * its cards (eight 32 GB cards that hold a 70B model's high end before
 * two 96 GB cards that hold only its point estimate), which starts the
 * chain again.  So more money never buys a smaller or slower first pick
 * for the same use unless that pick is the one that does not run out of
 * memory: a card the budget only just reaches does not displace a larger
 * one. */
static HrRecommendation *
first_pick (GPtrArray *options,
            gboolean   memory_first,
            double     budget)
{
  g_autoptr(GPtrArray) sorted = g_ptr_array_copy (options, NULL, NULL);
  HrRecommendation *pick = NULL;
  guint64 pick_memory = 0;

  /* the copy borrows the options */
  g_ptr_array_set_free_func (sorted, NULL);
  g_ptr_array_sort_with_data (sorted, compare_up_front_cb, GINT_TO_POINTER (memory_first));
  for (guint i = 0; i < sorted->len; i++)
    {
      HrRecommendation *o = g_ptr_array_index (sorted, i);
      gboolean more_memory = (double) o->memory >= (1 - SAME_WITHIN) * (double) pick_memory;
      /* Memory first, then compute, is itself an order on memory and
       * throughput: a card bought with more memory takes over whatever
       * its throughput (the guide's RTX 5090D after its RTX 4090). */
      gboolean memory_order = memory_first && pick != NULL &&
                              o->choice == HR_ADVICE_CHOICE_BUY &&
                              pick->choice == HR_ADVICE_CHOICE_BUY;

      if (budget >= 0 && o->up_front > budget)
        break;

      if (pick == NULL ||
          (compare_objective (o, pick, memory_first) < 0 &&
           ((memory_order && more_memory) || dominates (o, pick) ||
            (o->fits_high && !pick->fits_high))))
        {
          pick = o;
          pick_memory = o->memory;
        }
    }
  return pick;
}

static char *
money (double usd)
{
  /* "$1,900": thousands grouped whatever the locale, as prices are
   * usually written. */
  g_autofree char *digits = g_strdup_printf ("%.0f", round (usd));
  GString *str = g_string_new ("$");
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (str, ',');
      g_string_append_c (str, digits[i]);
    }
  return g_string_free (str, FALSE);
}

/* "$0.42", "$19": cents where the sum is small. */
static char *
money_small (double usd)
{
  if (usd < 10)
    return g_strdup_printf ("$%.2f", usd);
  return money (usd);
}

/* "3.2 h", "2.5 days": how long a run takes, in words. */
static char *
duration (double hours)
{
  if (!isfinite (hours))
    return g_strdup ("–");
  if (hours < 1)
    return g_strdup_printf (_("%.0f min"), MAX (1, round (hours * 60)));
  if (hours < 48)
    return g_strdup_printf (_("%.1f h"), hours);
  return g_strdup_printf (_("%.1f days"), hours / 24);
}

static char *
describe (const HrRecommendation *rec,
          const HrAdvice         *advice,
          guint                   asked)
{
  const HrAdviceInputs *in = &advice->inputs;
  GString *str = g_string_new (NULL);

  if (rec->choice == HR_ADVICE_CHOICE_BUY)
    {
      g_autofree char *price = money (rec->price_usd);

      /* Translators: the count, the card, its price, the price's date. */
      if (rec->used && rec->price_as_of != NULL)
        g_string_append_printf (str, _("Buy %u × %s used (%s each, as of %s)"), rec->count,
                                rec->gpu_name, price, rec->price_as_of);
      else if (rec->price_as_of != NULL)
        g_string_append_printf (str, _("Buy %u × %s (%s each, as of %s)"), rec->count,
                                rec->gpu_name, price, rec->price_as_of);
      else
        g_string_append_printf (str, _("Buy %u × %s (%s each, undated)"), rec->count,
                                rec->gpu_name, price);
    }
  else if (rec->price_as_of != NULL)
    g_string_append_printf (str, _("Rent %u × %s ($%.2f an hour each, as of %s)"), rec->count,
                            rec->gpu_name, rec->cloud_usd_per_hour, rec->price_as_of);
  else
    g_string_append_printf (str, _("Rent %u × %s ($%.2f an hour each, undated)"), rec->count,
                            rec->gpu_name, rec->cloud_usd_per_hour);

  if (rec->gpus_per_run > 1)
    g_string_append_printf (str, _(": each run sharded over %u cards (%s)"), rec->gpus_per_run,
                            rec->sharding == HR_SHARDING_FSDP
                              ? _("FSDP or ZeRO-3")
                              : hr_enum_to_nick (hr_sharding_names, rec->sharding));
  if (rec->runs > 1 && rec->gpus_per_run > 1)
    g_string_append_printf (str, _("; %u independent runs, one per group"), rec->runs);
  else if (rec->runs > 1)
    g_string_append_printf (str, _(": %u independent runs, one per card"), rec->runs);

  if (isfinite (rec->run_hours) && isfinite (rec->cost_per_run))
    {
      g_autofree char *time = duration (rec->run_hours);
      g_autofree char *per_run = money_small (rec->cost_per_run);
      g_autofree char *use = money (rec->cost);

      /* Translators: the steps, their time, the cost per run, the cost
       * for the use. */
      g_string_append_printf (str, _("; a run of %u steps takes %s%s, %s a run, %s for the use"),
                              advice->steps, advice->flops_lower_bound ? _("at least ") : "",
                              time, per_run, use);
    }

  if (rec->fits)
    g_string_append_printf (str, _("; micro-batch up to %u"), rec->max_micro_batch);
  else if (rec->lever != NULL)
    /* Translators: the largest micro-batch, the one asked, the lever. */
    g_string_append_printf (str, _("; runs micro-batch %u, not the %u asked: %s gets it back"),
                            rec->max_micro_batch, asked, rec->lever);
  else
    g_string_append_printf (str, _("; runs micro-batch %u, not the %u asked: accumulate "
                                   "gradients over %u steps for the same batch"),
                            rec->max_micro_batch, asked,
                            (asked + rec->max_micro_batch - 1) /
                              MAX (1, rec->max_micro_batch));
  if (rec->fits && !rec->fits_high)
    g_string_append_printf (str, _("; fits at the estimate, not at its high end (%.1f of %.1f "
                                   "GiB usable)"),
                            rec->need_high / 1073741824.0, rec->usable / 1073741824.0);

  if (isfinite (rec->break_even_months))
    g_string_append_printf (str, _("; buying pays off after %.1f months at %g h a day"),
                            rec->break_even_months, in->hours_per_day);
  else if (rec->price_usd >= 0 && rec->cloud_usd_per_hour >= 0)
    g_string_append (str, _("; at this use, renting always costs less"));

  return g_string_free (str, FALSE);
}

/* One way to have @gpu for @in: bought new or used, or rented; NULL when
 * it is not to be had that way. */
static HrRecommendation *
make_option (const HrScenario     *s,
             const HrGpu          *gpu,
             const HrAdviceInputs *in,
             const HrAdvice       *advice,
             guint                 per_run,
             HrSharding            sharding,
             const Fit            *fit,
             HrAdviceChoice        choice,
             gboolean              used)
{
  gboolean server_card = gpu->tier == HR_GPU_TIER_DATACENTER;
  /* A data-centre card needs a server's airflow to buy; NVLink between
   * many cards is a data-centre feature (workstation cards have ECC but
   * dropped NVLink with the RTX 6000 Ada). */
  gboolean tier_ok = !in->datacenter || server_card;
  gboolean budgeted = (in->known & HR_FACT_BUDGET) && in->budget_usd >= 0;
  double price = used ? gpu->used_price_usd : gpu->price_usd;
  double use_hours, per_run_tflops, runs_done;
  HrRecommendation *rec;

  if (!tier_ok)
    return NULL;
  if (choice == HR_ADVICE_CHOICE_BUY &&
      (in->prefer == HR_ADVICE_PREFER_RENT || price < 0 || (server_card && !in->datacenter)))
    return NULL;
  if (choice == HR_ADVICE_CHOICE_RENT &&
      (in->prefer == HR_ADVICE_PREFER_BUY || gpu->cloud_usd_per_hour < 0))
    return NULL;

  rec = g_new0 (HrRecommendation, 1);
  rec->gpu_id = g_strdup (gpu->id);
  rec->gpu_name = g_strdup (gpu->name);
  rec->tier = gpu->tier;
  rec->memory = gpu->memory;
  rec->gpus_per_run = per_run;
  rec->runs = MAX (1, in->runs);
  rec->count = per_run * rec->runs;
  rec->sharding = sharding;
  rec->fits = fit->fits;
  rec->fits_high = fit->fits_high;
  rec->need = fit->need;
  rec->need_high = fit->need_high;
  rec->usable = fit->usable;
  rec->max_micro_batch = fit->max_micro_batch;
  rec->choice = choice;
  rec->used = choice == HR_ADVICE_CHOICE_BUY && used;
  rec->price_usd = choice == HR_ADVICE_CHOICE_BUY ? price
                   : gpu->price_usd >= 0 ? gpu->price_usd : gpu->used_price_usd;
  rec->price_per_gb = rec->price_usd >= 0 ? rec->price_usd / (gpu->memory / GB) : -1;
  rec->cloud_usd_per_hour = gpu->cloud_usd_per_hour;
  rec->price_as_of = g_strdup (rec->used ? gpu->used_price_as_of : gpu->price_as_of);
  per_run_tflops = card_tflops (gpu, s) * per_run * pow (SHARDED_SCALING, log2 (per_run));
  rec->tflops = per_run_tflops * rec->runs;

  use_hours = in->hours_per_day * HR_DAYS_PER_MONTH * in->months;
  rec->power_usd_per_month = hr_cost_power_per_month ((double) gpu->tdp_watts * rec->count,
                                                      in->hours_per_day, in->usd_per_kwh);
  /* Both ways where both are open, to compare; the choice is this one. */
  rec->buy_cost = rec->price_usd >= 0 && in->prefer != HR_ADVICE_PREFER_RENT &&
                  (!server_card || in->datacenter)
    ? rec->price_usd * rec->count + rec->power_usd_per_month * in->months : -1;
  rec->rent_cost = gpu->cloud_usd_per_hour >= 0 && in->prefer != HR_ADVICE_PREFER_BUY
    ? gpu->cloud_usd_per_hour * rec->count * use_hours : -1;
  rec->break_even_months = rec->price_usd >= 0 && gpu->cloud_usd_per_hour >= 0
    ? hr_cost_break_even_months (rec->price_usd * rec->count,
                                 gpu->cloud_usd_per_hour * rec->count, in->hours_per_day,
                                 (double) gpu->tdp_watts * rec->count, in->usd_per_kwh)
    : NAN;
  rec->cost = choice == HR_ADVICE_CHOICE_BUY ? rec->buy_cost : rec->rent_cost;
  /* A budget caps what is paid up front for cards, or the rent over the
   * planned months. */
  rec->up_front = choice == HR_ADVICE_CHOICE_BUY ? rec->price_usd * rec->count : rec->rent_cost;
  rec->within_budget = !budgeted || rec->up_front <= in->budget_usd;

  /* The time a run takes and what it costs: the step's model FLOPs at
   * the utilisation figure of the card's peak; the cost for the use
   * spread over the runs it finishes. */
  rec->step_seconds = per_run_tflops > 0
    ? advice->step_flops / (per_run_tflops * 1e12 * advice->utilisation) : INFINITY;
  rec->run_hours = rec->step_seconds * advice->steps / 3600.0;
  runs_done = rec->run_hours > 0 && isfinite (rec->run_hours)
    ? rec->runs * use_hours / rec->run_hours : 0;
  rec->cost_per_run = runs_done > 0 ? rec->cost / runs_done : INFINITY;
  return rec;
}

/* Every way to have @gpu that runs @scenario (@fitting) or, within the
 * budget, runs a smaller micro-batch (@partial). */
static void
gpu_options (const HrScenario     *s,
             const HrCalibration  *calibration,
             const HrGpu          *gpu,
             const HrAdviceInputs *in,
             const HrAdvice       *advice,
             GPtrArray            *fitting,
             GPtrArray            *partial)
{
  gboolean server_card = gpu->tier == HR_GPU_TIER_DATACENTER;
  HrSharding sharding = s->sharding;
  Fit fit, alone;
  guint per_run;
  static const struct {
    HrAdviceChoice choice;
    gboolean used;
  } ways[] = {
    { HR_ADVICE_CHOICE_BUY, FALSE }, { HR_ADVICE_CHOICE_BUY, TRUE }, { HR_ADVICE_CHOICE_RENT, FALSE },
  };

  /* Most research code (flash-attn, custom CUDA kernels) runs on NVIDIA
   * cards only, unless the user says it runs on ROCm. */
  if (g_strcmp0 (gpu->vendor, "amd") == 0 && !in->rocm)
    return;

  per_run = fit_cards (s, calibration, gpu, server_card ? MAX_CARDS_CLUSTER
                                                        : MAX_CARDS_PER_MACHINE,
                       &sharding, &fit, &alone);
  /* Neither as asked nor at any micro-batch on the run's own cards. */
  if (per_run == 0 && alone.max_micro_batch == 0)
    return;
  if (per_run == 0)
    {
      /* Runs only a smaller micro-batch: a candidate for the best card
       * within a budget that buys nothing that runs it as asked. */
      per_run = s->gpus;
      sharding = s->sharding;
      fit = alone;
    }

  for (guint i = 0; i < G_N_ELEMENTS (ways); i++)
    {
      HrRecommendation *rec = make_option (s, gpu, in, advice, per_run, sharding, &fit,
                                           ways[i].choice, ways[i].used);

      if (rec == NULL)
        continue;
      if (rec->fits)
        g_ptr_array_add (fitting, rec);
      else if (rec->within_budget)
        g_ptr_array_add (partial, rec);
      else
        hr_recommendation_free (rec);
    }
}

static guint64
round_up_to (guint64         need,
             const guint64  *sizes,
             guint           n)
{
  for (guint i = 0; i < n; i++)
    if (sizes[i] >= need)
      return sizes[i];
  return need;
}

static void
host_advice (HrAdvice               *advice,
             const HrScenario       *s,
             const HrRecommendation *rec)
{
  /* Memory and disks as sold, in decimal gigabytes. */
  static const guint64 ram_sizes[] = {
    16 * (guint64) GB, 32 * (guint64) GB, 64 * (guint64) GB, 96 * (guint64) GB,
    128 * (guint64) GB, 192 * (guint64) GB, 256 * (guint64) GB, 384 * (guint64) GB,
    512 * (guint64) GB, 768 * (guint64) GB, 1024 * (guint64) GB, 1536 * (guint64) GB,
    2048 * (guint64) GB,
  };
  static const guint64 disk_sizes[] = {
    1000 * (guint64) GB, 2000 * (guint64) GB, 4000 * (guint64) GB, 8000 * (guint64) GB,
    16000 * (guint64) GB, 32000 * (guint64) GB,
  };
  /* Seed 000's balanced DreamerV3 machine: a 1 TB NVMe disk beside one
   * RTX 4090; checkpoints, videos, TensorBoard logs and replay dumps fill
   * it. */
  const guint64 min_disk = 1000 * (guint64) GB;
  /* Logs, videos and the environment per run: an allowance, not a
   * measurement. */
  const guint64 logs_per_run = 50 * (guint64) GB;
  /* Checkpoints kept at once: the last few, as `save_total_limit` and
   * Orbax's max_to_keep are usually set. */
  const guint checkpoints_kept = 3;
  /* The operating system, the Python processes and the page cache's
   * working set. */
  const guint64 system_ram = 8 * (guint64) GB;
  g_autoptr(HrEstimate) est = NULL;
  g_autoptr(HrScenario) on_card = hr_scenario_copy (s);
  HrHostAdvice *host = &advice->host;
  gboolean world_model = s->has_replay || g_strcmp0 (s->model->family, "world-model") == 0;
  gboolean images = s->model->image_width > 0 || g_strcmp0 (s->model->family, "vla") == 0 ||
                    g_strcmp0 (s->model->family, "cnn") == 0 ||
                    g_strcmp0 (s->model->family, "diffusion") == 0;
  guint cores_per_gpu;
  guint64 checkpoint, weights_file, on_card_need;

  host->reasons = g_ptr_array_new_with_free_func (g_free);
  if (rec == NULL)
    return;

  on_card->gpus = rec->gpus_per_run;
  on_card->sharding = rec->sharding;
  {
    const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), rec->gpu_id);

    if (gpu != NULL)
      {
        g_clear_pointer (&on_card->gpu, hr_gpu_free);
        on_card->gpu = hr_gpu_copy (gpu);
        on_card->gpu_inline = FALSE;
      }
  }
  est = hr_estimate_new (on_card);

  /* CPU: seed 000 pairs one RTX 4090 with 12-16 cores for DreamerV3
   * (environments, replay sampling); an image pipeline wants about eight
   * DataLoader workers per GPU, text about four (the "4 × GPUs" rule of
   * thumb for num_workers on the PyTorch forums); two more for the main
   * processes and the system. */
  cores_per_gpu = world_model ? 12 : images ? 8 : 4;
  if (s->task == HR_TASK_INFERENCE)
    cores_per_gpu = 4;
  host->cpu_cores = cores_per_gpu * rec->count + 2;
  g_ptr_array_add (host->reasons,
                   g_strdup_printf (_("CPU: %u cores per GPU for %s, and 2 for the system"),
                                    cores_per_gpu,
                                    world_model
                                      ? _("environments and replay sampling (the DreamerV3 "
                                          "GPU guide: 12-16 cores beside one RTX 4090)")
                                      : images
                                      ? _("DataLoader workers decoding and augmenting images")
                                      : _("DataLoader workers")));

  /* RAM: the host bytes the estimate counts (replay buffer, offloaded
   * state), plus twice what the run needs on the cards for pinned
   * staging and the DataLoader's prefetched batches (seed 000 puts 64 GB
   * beside a 24 GB card), plus the system.  The need is the fit rule's:
   * under JAX's preallocation, what the run puts in XLA's pool, not the
   * pool, which holds no data of its own. */
  on_card_need = rec->need > 0 ? rec->need : est->device_used;
  host->ram_need = est->host_ram + 2 * on_card_need * rec->count + system_ram;
  host->ram = round_up_to (host->ram_need, ram_sizes, G_N_ELEMENTS (ram_sizes));
  g_ptr_array_add (host->reasons,
                   g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                 "RAM: %.0f GB of replay buffer or offloaded "
                                                 "state, %.0f GB of pinned staging and prefetch "
                                                 "(twice the %.1f GB the run needs on the card), "
                                                 "8 GB for the system",
                                                 "RAM: %.0f GB of replay buffer or offloaded "
                                                 "state, %.0f GB of pinned staging and prefetch "
                                                 "(twice the %.1f GB the runs need on the cards), "
                                                 "8 GB for the system", rec->count),
                                    est->host_ram / GB, 2.0 * on_card_need * rec->count / GB,
                                    (double) on_card_need * rec->count / GB));
  if (est->pool_limits || hr_fit_rule_pool_preallocated (on_card))
    g_ptr_array_add (host->reasons,
                     g_strdup_printf (_("The %.0f GB that nvidia-smi shows per card is the "
                                        "allocator's preallocated pool, not data: it needs no "
                                        "host memory"), est->device_used / GB));

  /* Disk: the weights as downloaded, the last few checkpoints of the full
   * training state (weights and optimizer state), the replay buffer
   * dumped, and logs. */
  weights_file = (guint64) (s->model->params * 2.0);
  /* A checkpoint holds the trained weights in 16 bits and the optimizer
   * state; adapters and frozen parts leave the base weights out. */
  checkpoint = hr_scenario_is_training (s)
    ? (guint64) (est->trainable_params * 2.0) +
        est->buckets[HR_BUCKET_OPTIMIZER] *
          (rec->sharding == HR_SHARDING_FSDP || rec->sharding == HR_SHARDING_ZERO3
             ? rec->gpus_per_run : 1)
    : 0;
  host->disk_need = weights_file + (checkpoint * checkpoints_kept + logs_per_run) * rec->runs +
                    est->host_ram;
  host->disk = MAX (min_disk, round_up_to (host->disk_need, disk_sizes,
                                           G_N_ELEMENTS (disk_sizes)));
  g_ptr_array_add (host->reasons,
                   g_strdup_printf (_("Disk (NVMe): %.1f GB of weights, %u checkpoints of %.1f GB "
                                      "per run, %.0f GB of replay or offload dumps, 50 GB of logs "
                                      "per run; 1 TB at least"),
                                    weights_file / GB, checkpoints_kept, checkpoint / GB,
                                    est->host_ram / GB));

  /* Power supply, for a bought machine: the cards' board power and about
   * 250 W for CPU, disks and fans, with a fifth spare for transients (seed
   * 000: 850 W or more for one RTX 4090). */
  if (rec->choice == HR_ADVICE_CHOICE_BUY && rec->count <= MAX_CARDS_PER_MACHINE)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), rec->gpu_id);
      double watts = (gpu != NULL ? gpu->tdp_watts : 0) * (double) rec->count + 250;

      host->psu_watts = (guint) (ceil (watts * 1.2 / 50.0) * 50);
      g_ptr_array_add (host->reasons,
                       g_strdup_printf (_("Power supply: %.0f W of cards and system, a fifth "
                                          "spare"), watts));
    }
}

HrAdvice *
hr_advice_new (const HrScenario     *scenario,
               HrCatalog            *catalog,
               const HrAdviceInputs *inputs,
               guint                 max)
{
  return hr_advice_new_calibrated (scenario, catalog, inputs, max, NULL);
}

/* A copy of @scenario with the task the workload question answered, noted
 * in @advice. */
static HrScenario *
advised_scenario (const HrScenario     *scenario,
                  const HrAdviceInputs *inputs,
                  HrAdvice             *advice)
{
  HrScenario *s;

  /* The workload question may change the task: inference keeps no
   * optimizer state. */
  s = hr_scenario_copy (scenario);
  if ((inputs->known & HR_FACT_TASK) && inputs->task != s->task)
    {
      s->task = inputs->task;
      if (s->task == HR_TASK_INFERENCE && !s->optimizer_set)
        s->optimizer = HR_OPTIMIZER_NONE;
      g_ptr_array_add (advice->notes,
                       g_strdup_printf (_("The scenario's task is taken as \"%s\", as answered."),
                                        hr_enum_to_nick (hr_task_names, s->task)));
    }
  return s;
}

/* What @advice costs a run by, and the order it lists cards in; TRUE
 * when memory comes first. */
static gboolean
set_costing_and_order (HrAdvice             *advice,
                       const HrScenario     *s,
                       const HrAdviceInputs *inputs)
{
  gboolean memory_first;

  advice->throughput = throughput_name (s);
  advice->steps = inputs->steps > 0 ? inputs->steps : HR_COST_DEFAULT_STEPS;
  advice->step_flops = hr_cost_step_flops (s, &advice->flops_lower_bound);
  advice->utilisation = HR_COST_UTILISATION;
  advice->utilisation_source = HR_COST_UTILISATION_SOURCE;

  /* The DreamerV3 GPU guide's rule is for world models: "for users whose
   * primary goal is training world models, ... prioritize VRAM capacity
   * first, then compute performance" (section 6). */
  memory_first = hr_scenario_is_training (s) &&
                 (s->has_replay || g_strcmp0 (s->model->family, "world-model") == 0);
  advice->memory_first = memory_first;
  advice->order = memory_first
    ? g_strdup (_("Memory first, then speed, for a card bought (the DreamerV3 GPU guide's rule "
                  "for world models); rented cards by cost per finished run"))
    : g_strdup (_("Cheapest per finished run: the cost for the use over the runs it finishes"));
  return memory_first;
}

/* Nothing within the budget runs it as asked: the best card within
 * it at the micro-batch it runs, with the lever that gets the asked
 * one back, then the cheapest cards that run it as asked. */
static void
list_best_within_budget (HrAdvice            *advice,
                         const HrScenario    *s,
                         HrCatalog           *catalog,
                         const HrCalibration *calibration,
                         GPtrArray           *partial,
                         GHashTable          *listed)
{
  HrRecommendation *best;
  g_autoptr(HrScenario) on_card = hr_scenario_copy (s);
  g_autoptr(GPtrArray) levers = NULL;
  g_autoptr(HrKnob) fix = NULL;
  const HrGpu *gpu;

  g_ptr_array_sort_with_data (partial, compare_partial_cb, NULL);
  best = g_ptr_array_steal_index (partial, 0);
  gpu = hr_catalog_find_gpu (catalog, best->gpu_id);
  g_clear_pointer (&on_card->gpu, hr_gpu_free);
  on_card->gpu = hr_gpu_copy (gpu);
  levers = hr_knobs_evaluate (on_card, calibration);
  fix = hr_knobs_find_fix (levers, gpu, calibration);
  if (fix != NULL)
    {
      best->lever = g_strdup (fix->label);
      best->lever_change = g_strdup (fix->change);
    }
  g_ptr_array_add (advice->recommendations, best);
  g_hash_table_add (listed, best->gpu_id);
}

/* The pick, then one line per card, each the card's best way, at most
 * @max (0: all). */
static void
list_recommendations (HrAdvice         *advice,
                      const HrScenario *s,
                      GPtrArray        *fitting,
                      HrRecommendation *pick,
                      gboolean          memory_first,
                      guint             max,
                      GHashTable       *listed)
{
  if (pick != NULL)
    {
      guint index;

      g_assert (g_ptr_array_find (fitting, pick, &index));
      g_ptr_array_add (advice->recommendations, g_ptr_array_steal_index (fitting, index));
      g_hash_table_add (listed, pick->gpu_id);
    }
  g_ptr_array_sort_with_data (fitting, compare_listed_cb, GINT_TO_POINTER (memory_first));
  for (guint i = 0; i < fitting->len; i++)
    {
      HrRecommendation *rec = g_ptr_array_index (fitting, i);

      if (g_hash_table_contains (listed, rec->gpu_id))
        continue;
      g_hash_table_add (listed, rec->gpu_id);
      g_ptr_array_add (advice->recommendations, g_ptr_array_steal_index (fitting, i--));
    }
  if (max > 0 && advice->recommendations->len > max)
    g_ptr_array_set_size (advice->recommendations, max);
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      HrRecommendation *rec = g_ptr_array_index (advice->recommendations, i);

      rec->summary = describe (rec, advice, s->micro_batch);
    }
}

/* Why nothing is listed, or nothing within the budget. */
static void
add_fit_notes (HrAdvice             *advice,
               const HrScenario     *s,
               const HrAdviceInputs *inputs)
{
  if (advice->recommendations->len == 0)
    g_ptr_array_add (advice->notes,
                     g_strdup (_("No card in the catalog runs this scenario with its reserve, "
                                 "even sharded: `headroom-cli knobs` ranks what to change.")));
  else if (advice->none_within_budget)
    {
      const HrRecommendation *first = g_ptr_array_index (advice->recommendations, 0);
      const HrRecommendation *cheapest = NULL;
      g_autofree char *budget = money (inputs->budget_usd);
      GString *note = g_string_new (NULL);

      for (guint i = 0; i < advice->recommendations->len && cheapest == NULL; i++)
        if (((HrRecommendation *) g_ptr_array_index (advice->recommendations, i))->fits)
          cheapest = g_ptr_array_index (advice->recommendations, i);

      g_string_append_printf (note, _("Nothing within the budget of %s runs micro-batch %u."),
                              budget, s->micro_batch);
      if (!first->fits)
        {
          if (first->lever != NULL)
            g_string_append_printf (note, _(" The best card within it, %s, runs micro-batch "
                                            "%u; %s (--set %s) gets micro-batch %u back."),
                                    first->gpu_name, first->max_micro_batch, first->lever,
                                    first->lever_change, s->micro_batch);
          else
            g_string_append_printf (note, _(" The best card within it, %s, runs micro-batch "
                                            "%u; no single lever gets micro-batch %u back."),
                                    first->gpu_name, first->max_micro_batch, s->micro_batch);
        }
      if (cheapest != NULL)
        {
          g_autofree char *cost = money (cheapest->up_front);

          g_string_append_printf (note, _(" The cheapest card that runs it as asked is %s, at "
                                          "%s."), cheapest->gpu_name, cost);
        }
      g_ptr_array_add (advice->notes, g_string_free (note, FALSE));
    }
}

/* What to check of a listed AMD card, or a used one. */
static void
add_card_notes (HrAdvice  *advice,
                HrCatalog *catalog)
{
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      HrRecommendation *rec = g_ptr_array_index (advice->recommendations, i);
      const HrGpu *gpu = hr_catalog_find_gpu (catalog, rec->gpu_id);

      if (gpu != NULL && g_strcmp0 (gpu->vendor, "amd") == 0)
        {
          g_ptr_array_add (advice->notes,
                           g_strdup_printf (_("%s is an AMD card: check that your framework's ROCm "
                                              "build supports it before you choose it."),
                                            rec->gpu_name));
          break;
        }
    }
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      HrRecommendation *rec = g_ptr_array_index (advice->recommendations, i);

      if (rec->used && rec->choice == HR_ADVICE_CHOICE_BUY)
        {
          g_ptr_array_add (advice->notes,
                           g_strdup (_("Used cards are priced as the second-hand market sold "
                                       "them on the date shown: no warranty; check the fans, "
                                       "the memory temperature and any mining history.")));
          break;
        }
    }
}

/* What the card the scenario names already does. */
static void
add_own_card_note (HrAdvice            *advice,
                   const HrScenario    *s,
                   const HrCalibration *calibration)
{
  guint own_max = 0;
  gboolean own_fits = fits_on (s, calibration, s->gpu, s->gpus, s->sharding, &own_max);

  if (own_fits)
    g_ptr_array_add (advice->notes,
                     g_strdup_printf (_("Your %s already runs this at micro-batch %u (up to "
                                        "%u): a new card buys speed or headroom, not the "
                                        "ability to run it."), s->gpu->name, s->micro_batch,
                                      own_max));
  else if (own_max > 0)
    g_ptr_array_add (advice->notes,
                     g_strdup_printf (_("Your %s runs micro-batch %u at most: with gradient "
                                        "accumulation over %u steps it trains at the same "
                                        "batch, more slowly, with nothing bought."),
                                      s->gpu->name, own_max,
                                      (s->micro_batch + own_max - 1) / own_max));
  else
    g_ptr_array_add (advice->notes,
                     g_strdup_printf (_("Your %s cannot run this even at micro-batch 1."),
                                      s->gpu->name));
}

HrAdvice *
hr_advice_new_calibrated (const HrScenario     *scenario,
                          HrCatalog            *catalog,
                          const HrAdviceInputs *inputs,
                          guint                 max,
                          const HrCalibration  *calibration)
{
  g_autoptr(HrScenario) s = NULL;
  g_autoptr(GPtrArray) fitting = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                 hr_recommendation_free);
  g_autoptr(GPtrArray) partial = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                 hr_recommendation_free);
  g_autoptr(GHashTable) listed = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean budgeted = (inputs->known & HR_FACT_BUDGET) && inputs->budget_usd >= 0;
  GPtrArray *gpus;
  HrAdvice *advice;
  HrRecommendation *pick;
  gboolean memory_first;

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (catalog != NULL, NULL);
  g_return_val_if_fail (inputs != NULL, NULL);

  advice = g_new0 (HrAdvice, 1);
  advice->inputs = *inputs;
  advice->recommendations = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                            hr_recommendation_free);
  advice->notes = g_ptr_array_new_with_free_func (g_free);

  s = advised_scenario (scenario, inputs, advice);
  memory_first = set_costing_and_order (advice, s, inputs);

  gpus = hr_catalog_get_gpus (catalog);
  for (guint i = 0; i < gpus->len; i++)
    gpu_options (s, calibration, g_ptr_array_index (gpus, i), inputs, advice, fitting, partial);

  pick = first_pick (fitting, memory_first, budgeted ? inputs->budget_usd : -1);

  if (budgeted && pick == NULL && partial->len > 0)
    list_best_within_budget (advice, s, catalog, calibration, partial, listed);
  if (budgeted && pick == NULL)
    advice->none_within_budget = TRUE;

  list_recommendations (advice, s, fitting, pick, memory_first, max, listed);
  add_fit_notes (advice, s, inputs);
  add_card_notes (advice, catalog);
  if (s->gpu != NULL)
    add_own_card_note (advice, s, calibration);

  g_ptr_array_add (advice->notes,
                   g_strdup_printf (_("Costs assume %g hours a day for %g months and electricity "
                                      "at $%.2f per kWh; cloud prices leave out storage and "
                                      "instance fees (the DreamerV3 GPU guide). Prices are "
                                      "typical ones on the date shown."),
                                    inputs->hours_per_day, inputs->months, inputs->usd_per_kwh));

  host_advice (advice, s, advice->recommendations->len > 0
                            ? g_ptr_array_index (advice->recommendations, 0) : NULL);
  return advice;
}
