/* hr-estimate-range.c: how far the estimate's range reaches, by kind of run
 *
 * The range is the estimator's own error on published runs it was not
 * built from, not the sum of its terms' guesses: each kind of run (what the
 * estimator can tell from a scenario: inference or training, the model's
 * family, QLoRA, sharding) has a low and a high relative half-width in
 * hr-range-table.h, derived by tests/validation/score.py --loso from the
 * validation set's residuals, each source family scored with a range built
 * from the other families only.  The table says how it was made.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <string.h>

#include "hr-estimate-private.h"
#include "hr-range-table.h"

static gboolean
plan_is_sharded (const HrPlan *self)
{
  const ShardPlan *sp = &self->shard;

  return sp->fsdp || sp->zero || sp->tp > 1 || sp->pp > 1 || sp->cp > 1 || sp->ep > 1;
}

/* The kind hr-range-table.h files @self under; score.py's CATEGORY_KIND
 * files the validation rows the same way, and the table's test fails
 * where the two disagree. */
static const char *
plan_range_kind (const HrPlan *self)
{
  const HrScenario *s = self->scenario;
  const char *family = s->model->family;
  gboolean transformer = family == NULL || hr_model_is_language_model (s->model) ||
                         g_str_equal (family, "encoder");

  /* a model given inline without a family is "other" unless it opens
   * with a language model's vocabulary (hr-catalog.c): an encoder-decoder
   * of transformer parts is a transformer all the same */
  if (family != NULL && g_str_equal (family, "other"))
    {
      transformer = s->model->components->len > 0;
      for (guint i = 0; i < s->model->components->len; i++)
        {
          const HrComponent *c = g_ptr_array_index (s->model->components, i);

          if (c->kind != HR_COMPONENT_TRANSFORMER)
            transformer = FALSE;
        }
    }

  if (!self->training)
    return transformer ? "transformer-inference" : "inference";

  /* a vision transformer (its tokens are image patches) trains as an
   * image classifier does */
  if (family != NULL && (g_str_equal (family, "encoder") || g_str_equal (family, "other")))
    for (guint i = 0; i < s->model->components->len; i++)
      {
        const HrComponent *c = g_ptr_array_index (s->model->components, i);

        if (c->kind == HR_COMPONENT_TRANSFORMER && c->tokens_from == HR_TOKENS_PATCHES)
          return "classifier";
        /* or is walked as one (hr-arch.c: ViT, DeiT, Swin) */
        if (c->arch != NULL && hr_arch_type_is_vision_transformer (c->arch->type))
          return "classifier";
      }

  if (family != NULL && g_str_equal (family, "detection"))
    return "detector";
  if (family != NULL && g_str_equal (family, "segmentation"))
    return "segmenter";
  if (family != NULL && g_str_equal (family, "cnn"))
    return "classifier";
  if (family != NULL && g_str_equal (family, "diffusion"))
    return "diffusion";
  if (family != NULL && g_str_equal (family, "video"))
    return "video";
  if (!transformer)
    return "training";

  /* ZeRO's engine on one GPU (DeepSpeed runs it for its fp16 handling
   * alone) shards nothing: a single-GPU QLoRA run errs as QLoRA does */
  if (s->method == HR_METHOD_QLORA && s->gpus <= 1 && !self->shard.fsdp &&
      self->shard.tp <= 1 && self->shard.pp <= 1 && self->shard.cp <= 1 && self->shard.ep <= 1)
    return "qlora";
  if (plan_is_sharded (self))
    return "transformer-sharded";
  if (s->method == HR_METHOD_QLORA)
    return "qlora";
  return "transformer-train";
}

const HrRangeRow *
hr_plan_range_row (const HrPlan *self)
{
  const char *kind = plan_range_kind (self);

  for (guint i = 0; i < G_N_ELEMENTS (hr_range_table); i++)
    if (g_str_equal (hr_range_table[i].kind, kind))
      return &hr_range_table[i];

  /* every kind plan_range_kind returns is in the table */
  g_return_val_if_reached (&hr_range_table[0]);
}
