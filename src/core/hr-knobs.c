/* hr-knobs.c: which lever buys the most memory
 *
 * Each lever is applied to a copy of the scenario and estimated again at the
 * same micro-batch, so the saving is exactly what the estimator predicts;
 * the speed cost of each comes from the literature cited beside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-knobs"

#include <glib/gi18n-lib.h>

#include "hr-knobs.h"

void
hr_knob_free (HrKnob *knob)
{
  if (knob == NULL)
    return;

  g_free (knob->id);
  g_free (knob->label);
  g_free (knob->change);
  g_free (knob->cost);
  g_free (knob->source);
  g_free (knob);
}

typedef struct {
  const HrScenario *base;
  guint64           before;
  GPtrArray        *knobs;
} Ranking;

static void
try_knob (Ranking    *ranking,
          HrScenario *changed,   /* consumed */
          const char *id,
          const char *label,
          const char *change,
          double      speed,
          const char *cost,
          const char *source)
{
  g_autoptr(HrScenario) scenario = changed;
  g_autoptr(HrPlan) plan = hr_plan_new (scenario);
  HrPeak peak;
  HrKnob *knob;

  hr_plan_peak (plan, scenario->micro_batch, &peak);
  if (peak.total >= ranking->before)
    return;

  knob = g_new0 (HrKnob, 1);
  knob->id = g_strdup (id);
  knob->label = g_strdup (label);
  knob->change = g_strdup (change);
  knob->before = ranking->before;
  knob->after = peak.total;
  knob->saved = (gint64) ranking->before - (gint64) peak.total;
  knob->speed = speed;
  knob->cost = g_strdup (cost);
  knob->source = g_strdup (source);

  if (scenario->gpu != NULL)
    {
      guint64 usable = hr_plan_usable (plan, scenario->gpu);

      knob->has_fit = TRUE;
      knob->fits_after = peak.need <= usable;
      knob->max_micro_batch_after = hr_plan_max_micro_batch (plan, usable, NULL);
    }

  g_ptr_array_add (ranking->knobs, knob);
}

static gboolean
has_transformer (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER)
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_frozen_default (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (!c->trainable)
        return TRUE;
    }
  return FALSE;
}

/* A causal LM computes its loss over the vocabulary (see hr-estimate.c). */
static gboolean
has_vocabulary_loss (const HrScenario *s)
{
  if (g_strcmp0 (s->model->family, "llm") != 0)
    return FALSE;

  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->vocab > 0)
        return TRUE;
    }
  return FALSE;
}

static gint
compare_saved (gconstpointer a,
               gconstpointer b)
{
  const HrKnob *ka = *(const HrKnob **) a;
  const HrKnob *kb = *(const HrKnob **) b;

  if (ka->saved != kb->saved)
    return ka->saved > kb->saved ? -1 : 1;
  /* equal savings: the cheaper lever first */
  return ka->speed < kb->speed ? -1 : ka->speed > kb->speed ? 1 : 0;
}

GPtrArray *
hr_knobs_rank (const HrScenario *base)
{
  g_autoptr(HrPlan) plan = NULL;
  Ranking ranking = { 0 };
  gboolean training;
  HrPeak peak;
  HrScenario *s;

  g_return_val_if_fail (base != NULL, NULL);

  plan = hr_plan_new (base);
  hr_plan_peak (plan, base->micro_batch, &peak);
  ranking.base = base;
  ranking.before = peak.total;
  ranking.knobs = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_knob_free);
  training = hr_scenario_is_training (base);

  if (base->compute == HR_COMPUTE_FP32 || base->compute == HR_COMPUTE_TF32)
    {
      s = hr_scenario_copy (base);
      s->compute = HR_COMPUTE_BF16_MIXED;
      if (!s->weights_dtype_set)
        s->weights_dtype = HR_DTYPE_BF16;
      try_knob (&ranking, s, "bf16", _("Train in bf16 mixed precision"), "compute=bf16-mixed", 0.6,
                _("usually faster: tensor cores run bf16 at twice TF32's rate and half the bytes "
                  "move; check that the loss stays stable"),
                "NVIDIA, Mixed Precision Training guide (Micikevicius et al. 2018)");
    }

  if (training && base->recompute == HR_RECOMPUTE_NONE)
    {
      s = hr_scenario_copy (base);
      s->recompute = HR_RECOMPUTE_FULL;
      try_knob (&ranking, s, "recompute-full", _("Recompute activations (gradient checkpointing)"),
                "recompute=full", 1.33,
                _("one extra forward pass per step, about a third more compute"),
                "Korthikanti et al. 2022, section 5 (full recomputation: 30-40% overhead)");

      if (base->attention == HR_ATTENTION_EAGER)
        {
          s = hr_scenario_copy (base);
          s->recompute = HR_RECOMPUTE_SELECTIVE;
          try_knob (&ranking, s, "recompute-selective", _("Recompute only the attention scores"),
                    "recompute=selective", 1.03,
                    _("a few percent more compute"),
                    "Korthikanti et al. 2022, table 4 (selective recomputation: 2-4% overhead)");
        }
    }

  if (base->attention == HR_ATTENTION_EAGER && has_transformer (base))
    {
      s = hr_scenario_copy (base);
      s->attention = HR_ATTENTION_SDPA;
      try_knob (&ranking, s, "sdpa", _("Use fused attention (SDPA or FlashAttention)"),
                "attention=sdpa", 0.85,
                _("faster: the s² score matrix is never written to memory"),
                "Dao et al. 2022, FlashAttention (2-4x faster attention)");
    }

  if (training && (base->optimizer == HR_OPTIMIZER_ADAMW || base->optimizer == HR_OPTIMIZER_ADAM))
    {
      s = hr_scenario_copy (base);
      s->optimizer = HR_OPTIMIZER_ADAMW_8BIT;
      s->optimizer_set = TRUE;
      try_knob (&ranking, s, "adamw-8bit", _("Use 8-bit AdamW (bitsandbytes)"),
                "optimizer=adamw-8bit", 1.0,
                _("about the same speed and accuracy as 32-bit Adam"),
                "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization, section 4");
    }

  if (training && base->method == HR_METHOD_FULL && has_transformer (base))
    {
      s = hr_scenario_copy (base);
      s->method = HR_METHOD_LORA;
      s->trainable_params_set = FALSE;
      try_knob (&ranking, s, "lora", _("Fine-tune with LoRA adapters instead of all weights"),
                "method=lora", 0.75,
                _("faster steps (no weight gradients for the frozen base); adapters may learn less "
                  "than full fine-tuning on large distribution shifts"),
                "Hu et al. 2021, LoRA, section 4.2; Biderman et al. 2024, LoRA Learns Less and "
                "Forgets Less");
    }

  if (training && base->method == HR_METHOD_LORA)
    {
      s = hr_scenario_copy (base);
      s->method = HR_METHOD_QLORA;
      s->weights_dtype_set = FALSE;
      s->weights_dtype = HR_DTYPE_NF4;
      try_knob (&ranking, s, "qlora", _("Quantise the frozen base to 4 bits (QLoRA)"),
                "method=qlora", 1.35,
                _("slower steps: every matmul dequantises its weight"),
                "Dettmers et al. 2023, QLoRA, section 5; bitsandbytes benchmarks");
    }

  if (training && (base->weights_dtype == HR_DTYPE_NF4 || base->weights_dtype == HR_DTYPE_INT4) &&
      base->quant_compute_dtype == HR_DTYPE_FP32 && base->compute != HR_COMPUTE_FP32 &&
      base->compute != HR_COMPUTE_TF32)
    {
      s = hr_scenario_copy (base);
      s->quant_compute_dtype = base->compute == HR_COMPUTE_FP16_MIXED ? HR_DTYPE_FP16
                                                                      : HR_DTYPE_BF16;
      s->quant_compute_dtype_set = TRUE;
      try_knob (&ranking, s, "quant-compute",
                _("Compute the 4-bit layers in 16 bits (bnb_4bit_compute_dtype)"),
                s->quant_compute_dtype == HR_DTYPE_FP16 ? "quant_compute_dtype=fp16"
                                                        : "quant_compute_dtype=bf16",
                0.9,
                _("faster too: no fp32 copy of each projection's input"),
                "transformers BitsAndBytesConfig docs (bnb_4bit_compute_dtype); Dettmers et al. "
                "2023, QLoRA");
    }

  if (training && base->method == HR_METHOD_FULL && has_frozen_default (base))
    {
      s = hr_scenario_copy (base);
      s->method = HR_METHOD_FREEZE;
      s->trainable_params_set = FALSE;
      try_knob (&ranking, s, "freeze", _("Freeze the parts the model's authors freeze by default"),
                "method=freeze", 0.7,
                _("faster steps; the frozen parts stop adapting to your data"),
                "the model's own fine-tuning defaults (catalog entry)");
    }

  if (training && base->loss == HR_LOSS_UPCAST && has_vocabulary_loss (base))
    {
      s = hr_scenario_copy (base);
      s->loss = HR_LOSS_FUSED;
      try_knob (&ranking, s, "fused-loss",
                _("Fuse the output head with the loss (no full logits tensor)"),
                "loss=fused", 1.0,
                _("no slower: Liger's fused linear cross-entropy computes the logits chunk by "
                  "chunk (a chunked loss, loss=chunked, saves most of it too)"),
                "Hsu et al. 2024, Liger Kernel, section 3.3 (fused linear cross entropy)");
    }

  if (has_transformer (base) && hr_scenario_get_seq_len (base) >= 2)
    {
      guint seq = hr_scenario_get_seq_len (base);
      g_autofree char *change = g_strdup_printf ("seq_len=%u", seq / 2);

      s = hr_scenario_copy (base);
      s->seq_len = seq / 2;
      s->seq_len_set = TRUE;
      try_knob (&ranking, s, "shorter-seq", _("Halve the sequence length"), change, 0.5,
                _("each sample sees half the context (truncate or pack data accordingly)"),
                "activations are linear in tokens, attention scores quadratic (Korthikanti et "
                "al. 2022, eq. 1)");
    }

  if (training && (base->sharding == HR_SHARDING_NONE || base->sharding == HR_SHARDING_DDP ||
                   base->sharding == HR_SHARDING_ZERO1 || base->sharding == HR_SHARDING_ZERO2))
    {
      guint n = base->gpus > 1 ? base->gpus : 4;
      g_autofree char *label = g_strdup_printf (_("Shard weights, gradients and optimizer "
                                                  "state over %u GPUs (ZeRO-3 / FSDP)"), n);
      g_autofree char *change = g_strdup_printf ("sharding=fsdp gpus=%u", n);

      s = hr_scenario_copy (base);
      s->sharding = HR_SHARDING_FSDP;
      s->gpus = n;
      try_knob (&ranking, s, "fsdp", label, change, 1.15,
                base->gpus > 1 ? _("more communication per step (1.5x a plain all-reduce)")
                               : _("needs more GPUs, and 1.5x the communication of data "
                                   "parallelism"),
                "Rajbhandari et al. 2020, ZeRO, section 7 (stage 3 communication volume 1.5x)");
    }

  if (training && base->offload == HR_OFFLOAD_NONE && base->optimizer != HR_OPTIMIZER_NONE &&
      base->optimizer != HR_OPTIMIZER_SGD)
    {
      s = hr_scenario_copy (base);
      s->offload = HR_OFFLOAD_OPTIMIZER;
      try_knob (&ranking, s, "offload", _("Offload optimizer state to CPU RAM (ZeRO-Offload)"),
                "offload=optimizer", 1.4,
                _("slower steps: the optimizer runs on the CPU and state crosses PCIe; needs host "
                  "RAM"),
                "Ren et al. 2021, ZeRO-Offload, section 6");
    }

  if (training && base->micro_batch >= 2)
    {
      g_autofree char *change = g_strdup_printf ("micro_batch=%u grad_accum=%u",
                                                 base->micro_batch / 2,
                                                 base->grad_accum * 2);

      s = hr_scenario_copy (base);
      s->micro_batch = base->micro_batch / 2;
      s->grad_accum = base->grad_accum * 2;
      try_knob (&ranking, s, "accumulate",
                _("Halve the micro-batch and accumulate gradients twice as long"),
                change, 1.1,
                _("same effective batch; smaller matmuls use the GPU less well"),
                "PyTorch/transformers gradient accumulation; the throughput loss depends on the "
                "model");
    }

  if (!training && (base->kv_dtype == HR_DTYPE_BF16 || base->kv_dtype == HR_DTYPE_FP16) &&
      has_transformer (base))
    {
      s = hr_scenario_copy (base);
      s->kv_dtype = HR_DTYPE_FP8;
      try_knob (&ranking, s, "kv-fp8", _("Store the KV cache in fp8"), "kv_dtype=fp8", 1.0,
                _("small accuracy loss on long contexts"),
                "vLLM docs, Quantized KV Cache (FP8 E4M3)");
    }

  if (!training && !hr_dtype_is_quantized (base->weights_dtype) && has_transformer (base))
    {
      s = hr_scenario_copy (base);
      s->weights_dtype = HR_DTYPE_NF4;
      s->weights_dtype_set = TRUE;
      try_knob (&ranking, s, "weights-4bit", _("Load the weights in 4 bits (NF4)"),
                "weights_dtype=nf4", 1.2,
                _("slightly lower quality; dequantisation costs time at large batch"),
                "Dettmers et al. 2023, QLoRA (NF4 matches 16-bit on most benchmarks)");

      s = hr_scenario_copy (base);
      s->weights_dtype = HR_DTYPE_INT8;
      s->weights_dtype_set = TRUE;
      try_knob (&ranking, s, "weights-8bit", _("Load the weights in 8 bits (LLM.int8)"),
                "weights_dtype=int8", 1.3,
                _("near 16-bit quality; LLM.int8's outlier handling slows matmuls"),
                "Dettmers et al. 2022, LLM.int8()");
    }

  if (!training && base->sharding == HR_SHARDING_NONE && has_transformer (base))
    {
      guint n = base->gpus > 1 ? base->gpus : 2;
      g_autofree char *label = g_strdup_printf (_("Split the weights and KV cache over %u GPUs "
                                                  "(tensor or pipeline parallel)"), n);
      g_autofree char *change = g_strdup_printf ("sharding=fsdp gpus=%u", n);

      s = hr_scenario_copy (base);
      s->sharding = HR_SHARDING_FSDP;
      s->gpus = n;
      try_knob (&ranking, s, "split", label, change, 1.1,
                _("needs more GPUs; each token crosses the interconnect (NVLink keeps it cheap)"),
                "Shoeybi et al. 2019, Megatron-LM, section 3 (tensor parallelism)");
    }

  if (!training && base->micro_batch >= 2)
    {
      g_autofree char *change = g_strdup_printf ("micro_batch=%u", base->micro_batch / 2);

      s = hr_scenario_copy (base);
      s->micro_batch = base->micro_batch / 2;
      try_knob (&ranking, s, "smaller-batch", _("Serve half as many sequences at once"), change,
                2.0,
                _("half the throughput"), "the KV cache and activations are linear in the batch");
    }

  g_ptr_array_sort (ranking.knobs, compare_saved);
  return ranking.knobs;
}
