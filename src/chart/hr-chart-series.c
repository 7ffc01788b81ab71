/* hr-chart-series.c: GPUs as the charts name them, and what the charts
 * rest on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "hr-chart-text.h"

#include "hr-chart-series.h"

/* Brands people leave out when they name a card: the vendors, and the
 * product lines whose model numbers say the card on their own. */
static const char * const brands[] = {
  "nvidia", "geforce", "tesla", "quadro", "amd", "instinct", "radeon", "intel",
};

/* Words that describe a card rather than name it; an architecture's name
 * goes too when the rest names the card alone ("RTX PRO 6000 Blackwell
 * Workstation Edition" is the RTX PRO 6000 people say). */
static const char * const descriptive[] = {
  "generation", "workstation", "edition", "blackwell",
};

typedef struct {
  char     *text;       /* as shown: "SXM" for SXM5 */
  char     *key;        /* lower case, for comparing */
  gboolean  droppable;  /* a memory size, a form factor, a note */
} Token;

static void
token_clear (gpointer data)
{
  Token *t = data;

  g_free (t->text);
  g_free (t->key);
}

static gboolean
in_list (const char         *key,
         const char * const *list,
         gsize               n)
{
  for (gsize i = 0; i < n; i++)
    if (g_str_equal (key, list[i]))
      return TRUE;
  return FALSE;
}

/* "80GB", "24 GB" written together, "141GB" */
static gboolean
is_memory_size (const char *key)
{
  const char *p = key;

  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p) || *p == '.')
    p++;
  return g_str_equal (p, "gb") || g_str_equal (p, "gib") || g_str_equal (p, "g");
}

/* SXM, SXM5, PCIe, NVL72, HGX, OAM */
static gboolean
is_form_factor (const char *key)
{
  static const char * const prefixes[] = { "sxm", "nvl", "hgx", "oam" };

  if (g_str_equal (key, "pcie"))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (g_str_has_prefix (key, prefixes[i]))
      {
        const char *rest = key + strlen (prefixes[i]);

        while (g_ascii_isdigit (*rest))
          rest++;
        if (*rest == '\0')
          return TRUE;
      }
  return FALSE;
}

static GArray *
tokenize (const char *name)
{
  GArray *tokens = g_array_new (FALSE, TRUE, sizeof (Token));
  g_auto(GStrv) words = g_strsplit (name, " ", -1);

  g_array_set_clear_func (tokens, token_clear);
  for (guint i = 0; words[i] != NULL; i++)
    {
      Token t = { 0 };

      if (words[i][0] == '\0')
        continue;
      /* a note in brackets, "(per GPU)", is one token */
      if (words[i][0] == '(')
        {
          GString *note = g_string_new (words[i]);

          while (!g_str_has_suffix (note->str, ")") && words[i + 1] != NULL)
            g_string_append_printf (note, " %s", words[++i]);
          t.text = g_string_free (note, FALSE);
          t.key = g_ascii_strdown (t.text, -1);
          t.droppable = TRUE;
          g_array_append_val (tokens, t);
          continue;
        }

      t.key = g_ascii_strdown (words[i], -1);
      if (in_list (t.key, brands, G_N_ELEMENTS (brands)))
        {
          g_free (t.key);
          continue;
        }
      if (is_form_factor (t.key))
        {
          /* people say "H100 SXM", whatever the generation of the socket */
          t.text = g_str_has_prefix (t.key, "sxm") ? g_strdup ("SXM") : g_strdup (words[i]);
          if (g_str_has_prefix (t.key, "sxm"))
            t.key[3] = '\0';
          t.droppable = TRUE;
        }
      else
        {
          t.text = g_strdup (words[i]);
          t.droppable = is_memory_size (t.key) ||
                        in_list (t.key, descriptive, G_N_ELEMENTS (descriptive));
        }
      g_array_append_val (tokens, t);
    }
  return tokens;
}

static gboolean
has_key (const GArray *tokens,
         const char   *key)
{
  for (guint i = 0; i < tokens->len; i++)
    if (g_str_equal (g_array_index (tokens, Token, i).key, key))
      return TRUE;
  return FALSE;
}

static gboolean
contains_all (const GArray *haystack,
              const GArray *needles,
              guint64       mask)
{
  for (guint i = 0; i < needles->len; i++)
    {
      const Token *t = &g_array_index (needles, Token, i);

      if ((!t->droppable || (mask & (G_GUINT64_CONSTANT (1) << i))) &&
          !has_key (haystack, t->key))
        return FALSE;
    }
  return TRUE;
}

/* The tokens of @tokens kept by @mask name another card of @universe: one
 * that has them all but is not the same card with more words ("RTX 4090"
 * stays the RTX 4090 beside an "RTX 4090 D"). */
static gboolean
ambiguous (const GArray    *tokens,
           guint64          mask,
           GPtrArray       *universe)
{
  for (guint u = 0; u < universe->len; u++)
    {
      const GArray *other = g_ptr_array_index (universe, u);

      if (other == tokens)
        continue;
      if (contains_all (other, tokens, mask) &&
          !contains_all (other, tokens, G_MAXUINT64))
        return TRUE;
    }
  return FALSE;
}

static char *
join (const GArray *tokens,
      guint64       mask)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < tokens->len; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);

      if (t->droppable && !(mask & (G_GUINT64_CONSTANT (1) << i)))
        continue;
      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append (out, t->text);
    }
  return g_string_free (out, FALSE);
}

static char *
short_name (const char         *name,
            GPtrArray          *gpus,
            const char * const *others)
{
  g_autoptr(GPtrArray) universe = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                  g_array_unref);
  g_autoptr(GArray) tokens = NULL;
  g_autofree char *best = NULL;
  guint n_droppable = 0;

  tokens = tokenize (name);
  if (tokens->len == 0 || tokens->len > 10)
    return g_strdup (name);

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);

      if (gpu->name != NULL && !g_str_equal (gpu->name, name))
        g_ptr_array_add (universe, tokenize (gpu->name));
    }
  for (guint i = 0; others != NULL && others[i] != NULL; i++)
    if (!g_str_equal (others[i], name))
      g_ptr_array_add (universe, tokenize (others[i]));

  for (guint i = 0; i < tokens->len; i++)
    n_droppable += g_array_index (tokens, Token, i).droppable;

  /* Every choice of the droppable words, the shortest that names the card
   * alone; all of them always does. */
  for (guint64 mask = 0; mask < (G_GUINT64_CONSTANT (1) << tokens->len); mask++)
    {
      g_autofree char *candidate = NULL;
      gboolean redundant = FALSE;

      /* bits of words that are not droppable say nothing: skip repeats */
      for (guint i = 0; i < tokens->len; i++)
        if (!g_array_index (tokens, Token, i).droppable && (mask & (G_GUINT64_CONSTANT (1) << i)))
          redundant = TRUE;
      if (redundant || ambiguous (tokens, mask, universe))
        continue;
      candidate = join (tokens, mask);
      if (candidate[0] != '\0' && (best == NULL || strlen (candidate) < strlen (best)))
        {
          g_free (best);
          best = g_steal_pointer (&candidate);
        }
    }

  if (n_droppable == 0 || best == NULL)
    {
      g_autofree char *all = join (tokens, G_MAXUINT64);

      return all[0] != '\0' ? g_steal_pointer (&all) : g_strdup (name);
    }
  return g_steal_pointer (&best);
}

/* Finding the short name tokenizes every card of the catalog and tries
 * every choice of words: the charts ask for the same few cards at every
 * change of the scenario, so the answers are kept.  An answer depends on
 * the name, the other names and the names of the catalog's cards, and on
 * nothing else: it is kept under the first two while the third stays as
 * it was, compared whole (a catalog read again, or another catalog, with
 * other cards empties the memory). */
#define SHORT_NAMES_MOST 256

static GMutex short_names_lock;
static GString *short_names_cards;     /* the catalog's card names, each ended by a NUL */
static GHashTable *short_names;        /* the name and the others → the short name */

char *
hr_chart_gpu_short_name (const char         *name,
                         HrCatalog          *catalog,
                         const char * const *others)
{
  GPtrArray *gpus;
  g_autoptr(GString) cards = NULL;
  g_autoptr(GString) key = NULL;
  const char *known;
  char *said;

  g_return_val_if_fail (name != NULL, NULL);

  gpus = hr_catalog_get_gpus (catalog != NULL ? catalog : hr_catalog_get_default ());
  cards = g_string_sized_new (1024);
  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);

      /* (a card without a name takes no part) */
      if (gpu->name != NULL)
        g_string_append_len (cards, gpu->name, strlen (gpu->name) + 1);
    }
  /* each name after its length: no name can pass for two */
  key = g_string_new (NULL);
  g_string_append_printf (key, "%zu:%s", strlen (name), name);
  for (guint i = 0; others != NULL && others[i] != NULL; i++)
    g_string_append_printf (key, "%zu:%s", strlen (others[i]), others[i]);

  g_mutex_lock (&short_names_lock);
  if (short_names == NULL)
    short_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (short_names_cards == NULL || short_names_cards->len != cards->len ||
      memcmp (short_names_cards->str, cards->str, cards->len) != 0)
    {
      g_hash_table_remove_all (short_names);
      if (short_names_cards != NULL)
        g_string_free (short_names_cards, TRUE);
      short_names_cards = g_steal_pointer (&cards);
    }
  known = g_hash_table_lookup (short_names, key->str);
  if (known != NULL)
    said = g_strdup (known);
  else
    {
      said = short_name (name, gpus, others);
      if (g_hash_table_size (short_names) >= SHORT_NAMES_MOST)
        g_hash_table_remove_all (short_names);
      g_hash_table_insert (short_names, g_string_free (g_steal_pointer (&key), FALSE),
                           g_strdup (said));
    }
  g_mutex_unlock (&short_names_lock);
  return said;
}

/* "allocator fragmentation (reserved but not allocated)" → "allocator
 * fragmentation": the item's name without its explanation. */
static char *
item_name (const char *label)
{
  const char *cut = strstr (label, " (");
  const char *colon = strstr (label, ": ");

  /* "Model: what" names the model first; the what is the item */
  if (colon != NULL && (cut == NULL || colon < cut))
    label = colon + 2, cut = strstr (label, " (");
  return cut != NULL ? g_strndup (label, cut - label) : g_strdup (label);
}

static gint
compare_bytes (gconstpointer a,
               gconstpointer b)
{
  const HrEstimateItem *ia = *(const HrEstimateItem * const *) a;
  const HrEstimateItem *ib = *(const HrEstimateItem * const *) b;

  return (ia->bytes < ib->bytes) - (ia->bytes > ib->bytes);
}

char *
hr_chart_analysis_note (HrAnalysis *analysis)
{
  const HrScenario *scenario;
  const HrEstimate *estimate;
  double amount[HR_BASIS_ASSUMED + 1] = { 0 };
  g_autoptr(GPtrArray) assumed = g_ptr_array_new ();
  g_autoptr(GString) note = g_string_new (NULL);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  const char *calibrated_by = NULL;
  guint n_measured = 0;
  HrSizeUnit unit;

  g_return_val_if_fail (analysis != NULL, NULL);

  unit = hr_analysis_get_unit (analysis);

  scenario = hr_analysis_get_scenario (analysis);
  estimate = hr_analysis_get_estimate (analysis);
  for (guint i = 0; i < estimate->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (estimate->items, i);

      if (item->basis <= HR_BASIS_ASSUMED)
        amount[item->basis] += item->bytes;
      if (item->basis == HR_BASIS_ASSUMED && item->bytes > 0)
        g_ptr_array_add (assumed, item);
    }
  g_ptr_array_sort (assumed, compare_bytes);

  if (amount[HR_BASIS_DERIVED] > 0)
    {
      g_autofree char *size = hr_size_format_full (amount[HR_BASIS_DERIVED], unit,
                                                   HR_SIZE_FORMAT_CHART);

      /* Translators: memory the estimate derives from the model and the
       * setup's numbers */
      g_ptr_array_add (parts, g_strdup_printf (_("%s derived"), size));
    }
  if (amount[HR_BASIS_CALIBRATED] > 0)
    {
      g_autofree char *size = hr_size_format_full (amount[HR_BASIS_CALIBRATED], unit,
                                                   HR_SIZE_FORMAT_CHART);

      g_ptr_array_add (parts, g_strdup_printf (_("%s calibrated"), size));
    }
  if (amount[HR_BASIS_ASSUMED] > 0)
    {
      g_autofree char *size = hr_size_format_full (amount[HR_BASIS_ASSUMED], unit,
                                                   HR_SIZE_FORMAT_CHART);
      GString *names = g_string_new (NULL);

      for (guint i = 0; i < assumed->len && i < 2; i++)
        {
          g_autofree char *name = item_name (((HrEstimateItem *) g_ptr_array_index (assumed,
                                                                                    i))->label);

          g_string_append_printf (names, "%s%s", i > 0 ? _(", ") : "", name);
        }
      /* Translators: memory the estimate assumes (defaults it cannot
       * confirm), then what they are */
      g_ptr_array_add (parts, g_strdup_printf (_("%s assumed (%s)"), size, names->str));
      g_string_free (names, TRUE);
    }

  /* Translators: the start of a chart's note: what the estimate at the
   * scenario's micro-batch is made of */
  g_string_append_printf (note, _("Estimate at micro-batch %u: "), scenario->micro_batch);
  for (guint i = 0; i < parts->len; i++)
    g_string_append_printf (note, "%s%s", i > 0 ? _(", ") : "",
                            (const char *) g_ptr_array_index (parts, i));

  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);

      n_measured++;
      if (calibrated_by == NULL && hr_analysis_get_calibration (analysis) != NULL &&
          m->fit != NULL && !m->match->differs)
        calibrated_by = m->measurement->name;
    }
  if (calibrated_by != NULL)
    {
      g_autofree char *base = g_path_get_basename (calibrated_by);

      g_string_append_printf (note, _("; calibrated by %s"), base);
    }
  if (n_measured > 0)
    g_string_append_printf (note, g_dngettext (GETTEXT_PACKAGE, "; %u measurement drawn",
                                               "; %u measurements drawn", n_measured),
                            n_measured);
  else
    g_string_append (note, _("; nothing measured"));
  g_string_append_c (note, '.');
  return g_string_free (g_steal_pointer (&note), FALSE);
}
