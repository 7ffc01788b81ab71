/* hr-tree.c: a decision tree of questions, answers and recommendations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-tree"

#include <glib/gi18n-lib.h>

#include "hr-sweep.h"
#include "hr-tree.h"

HrTreeNode *
hr_tree_node_new (const char *text,
                  const char *edge_label)
{
  HrTreeNode *node = g_new0 (HrTreeNode, 1);

  g_return_val_if_fail (text != NULL, NULL);

  node->text = g_strdup (text);
  node->edge_label = g_strdup (edge_label);
  node->children = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_tree_node_free);
  return node;
}

HrTreeNode *
hr_tree_node_add (HrTreeNode *parent,
                  HrTreeNode *child)
{
  g_return_val_if_fail (parent != NULL, NULL);
  g_return_val_if_fail (child != NULL, NULL);

  g_ptr_array_add (parent->children, child);
  return child;
}

void
hr_tree_node_set_detail (HrTreeNode *node,
                         const char *detail)
{
  g_return_if_fail (node != NULL);

  g_free (node->detail);
  node->detail = g_strdup (detail);
}

void
hr_tree_node_free (HrTreeNode *node)
{
  if (node == NULL)
    return;

  g_free (node->text);
  g_free (node->detail);
  g_free (node->edge_label);
  g_ptr_array_unref (node->children);
  g_free (node);
}

gboolean
hr_tree_node_is_leaf (const HrTreeNode *node)
{
  return node->children->len == 0;
}

guint
hr_tree_node_count (const HrTreeNode *node)
{
  guint n = 1;

  for (guint i = 0; i < node->children->len; i++)
    n += hr_tree_node_count (g_ptr_array_index (node->children, i));
  return n;
}

char *
hr_tree_path_text (const HrTreeNode *root)
{
  GString *str = g_string_new (NULL);
  const HrTreeNode *node = root;

  g_return_val_if_fail (root != NULL, NULL);

  while (node != NULL)
    {
      const HrTreeNode *next = NULL;

      if (node != root && node->edge_label != NULL)
        g_string_append_printf (str, " → %s → ", node->edge_label);
      g_string_append (str, node->text);

      for (guint i = 0; i < node->children->len; i++)
        {
          const HrTreeNode *child = g_ptr_array_index (node->children, i);

          if (child->chosen)
            next = child;
        }

      if (next == NULL && !hr_tree_node_is_leaf (node))
        g_string_append (str, _(" (not answered yet)"));
      node = next;
    }

  return g_string_free (str, FALSE);
}

typedef struct {
  const HrGpu *gpu;
  gboolean     fits;
  guint        max_micro_batch;
} CardFit;

static CardFit
fit_on (const HrScenario *scenario,
        HrCatalog        *catalog,
        const char       *id)
{
  CardFit fit = { hr_catalog_find_gpu (catalog, id), FALSE, 0 };
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(GPtrArray) fits = NULL;

  if (fit.gpu == NULL)
    return fit;

  g_ptr_array_add (gpus, (gpointer) fit.gpu);
  fits = hr_fit_gpus (scenario, gpus);
  fit.fits = ((HrGpuFit *) g_ptr_array_index (fits, 0))->fits;
  fit.max_micro_batch = ((HrGpuFit *) g_ptr_array_index (fits, 0))->max_micro_batch;
  return fit;
}

static char *
card_detail (const CardFit *fit,
             gboolean       buy)
{
  GString *str = g_string_new (NULL);

  if (buy && fit->gpu->price_usd >= 0)
    g_string_append_printf (str, _("about $%.0f"), fit->gpu->price_usd);
  else if (!buy && fit->gpu->cloud_usd_per_hour >= 0)
    g_string_append_printf (str, _("about $%.2f an hour"), fit->gpu->cloud_usd_per_hour);
  if (fit->max_micro_batch > 0)
    /* a no-break space keeps "·" from starting a wrapped line */
    {
      if (str->len > 0)
        g_string_append (str, "\u00A0· ");
      g_string_append_printf (str, _("micro-batch up to %u"), fit->max_micro_batch);
    }

  return g_string_free (str, FALSE);
}

/* "Train daily, for months?" with buy and rent leaves for one card. */
static HrTreeNode *
add_buy_or_rent (HrTreeNode    *parent,
                 const char    *answer,
                 const CardFit *fit)
{
  HrTreeNode *often = hr_tree_node_add (parent,
                                        hr_tree_node_new (_("Train daily, for months?"), answer));
  g_autofree char *buy = g_strdup_printf (_("Buy %s"), fit->gpu->name);
  g_autofree char *rent = g_strdup_printf (_("Rent %s in the cloud"), fit->gpu->name);
  g_autofree char *buy_detail = card_detail (fit, TRUE);
  g_autofree char *rent_detail = card_detail (fit, FALSE);

  hr_tree_node_set_detail (hr_tree_node_add (often, hr_tree_node_new (buy, _("Yes"))), buy_detail);
  hr_tree_node_set_detail (hr_tree_node_add (often, hr_tree_node_new (rent, _("No, now and then"))),
                           rent_detail);
  return often;
}

HrTreeNode *
hr_tree_new_gpu_choice (const HrScenario *scenario,
                        HrCatalog        *catalog)
{
  /* Seed 000's decision flow (fit first, then how often, then budget),
   * with the fit questions answered by the estimate: a 24 GB card, a 32 GB
   * card, an 80 GB card, then more than one. */
  static const struct { const char *id; const char *question; } tiers[] = {
    { "rtx-4090", N_("Fits on one 24 GB card?") },
    { "rtx-5090", N_("Fits on one 32 GB card?") },
    { "h100-sxm", N_("Fits on one 80 GB card?") },
  };
  HrTreeNode *root = NULL;
  HrTreeNode *question = NULL;
  gboolean on_path = TRUE;

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (catalog != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (tiers); i++)
    {
      CardFit fit = fit_on (scenario, catalog, tiers[i].id);
      HrTreeNode *node;
      HrTreeNode *yes;

      if (fit.gpu == NULL)
        continue;

      node = hr_tree_node_new (_(tiers[i].question), question != NULL ? _("No") : NULL);
      node->chosen = on_path;
      if (question == NULL)
        root = node;
      else
        hr_tree_node_add (question, node);

      if (fit.gpu->tier == HR_GPU_TIER_DATACENTER)
        {
          g_autofree char *rent = g_strdup_printf (_("Rent %s"), fit.gpu->name);
          g_autofree char *detail = card_detail (&fit, FALSE);

          yes = hr_tree_node_add (node, hr_tree_node_new (rent, _("Yes")));
          hr_tree_node_set_detail (yes, detail);
        }
      else
        yes = add_buy_or_rent (node, _("Yes"), &fit);

      yes->chosen = on_path && fit.fits;
      on_path = on_path && !fit.fits;
      question = node;
    }

  /* A user catalog may leave out every reference card. */
  if (question == NULL)
    return hr_tree_node_new (_("The catalog holds none of the reference cards (RTX 4090, "
                               "RTX 5090, H100 SXM) to decide with"), NULL);

  {
    HrTreeNode *more = hr_tree_node_new (_("Shard over several GPUs, or apply the memory knobs "
                                           "first"), _("No"));

    hr_tree_node_add (question, more);
    hr_tree_node_set_detail (more, _("headroom-cli knobs ranks them"));
    more->chosen = on_path;
  }

  return root;
}
