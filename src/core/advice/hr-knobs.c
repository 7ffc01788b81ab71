/* hr-knobs.c: the levers that lower a run's peak, what each costs, and the
 * one that fixes a run that does not fit
 *
 * Each lever is one entry of the table below: when it applies, what it
 * changes (a setting of the settings table, or a function), its speed cost
 * and its risk to the result, each with a source.  A lever is applied to a
 * copy of the scenario and estimated again at the same micro-batch, so the
 * saving is exactly what the estimator predicts, on the fit's own measure.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-knobs"

#include <glib/gi18n-lib.h>

#include "hr-knobs.h"
#include "hr-setting.h"

const HrEnumName hr_knob_risk_names[] = {
  { HR_KNOB_RISK_NONE, "none" },
  { HR_KNOB_RISK_LOW, "low" },
  { HR_KNOB_RISK_MEDIUM, "medium" },
  { HR_KNOB_RISK_HIGH, "high" },
  { 0, NULL },
};

const HrEnumName hr_knob_sort_names[] = {
  { HR_KNOB_SORT_SAVED, "saved" },
  { HR_KNOB_SORT_COST, "cost" },
  { 0, NULL },
};

const char *
hr_knob_risk_label (HrKnobRisk risk)
{
  switch (risk)
    {
    case HR_KNOB_RISK_NONE:
      return _("no change to the result");
    case HR_KNOB_RISK_LOW:
      return _("low risk to the result");
    case HR_KNOB_RISK_MEDIUM:
      return _("may change what it learns");
    case HR_KNOB_RISK_HIGH:
      return _("changes the experiment");
    default:
      g_return_val_if_reached ("");
    }
}

/* ---- when a lever applies ---- */

static gboolean
training (const HrScenario *s)
{
  return hr_scenario_is_training (s);
}

static gboolean
pytorch_training (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->framework == HR_FRAMEWORK_PYTORCH;
}

static gboolean
inference_transformer (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && hr_scenario_has_transformer (s);
}

static gboolean
applies_bf16 (const HrScenario *s)
{
  return training (s) && (s->compute == HR_COMPUTE_FP32 || s->compute == HR_COMPUTE_TF32);
}

static gboolean
applies_inference_bf16 (const HrScenario *s)
{
  return !training (s) && s->weights_dtype == HR_DTYPE_FP32;
}

static gboolean
applies_recompute_full (const HrScenario *s)
{
  return training (s) && s->recompute == HR_RECOMPUTE_NONE;
}

static gboolean
applies_recompute_selective (const HrScenario *s)
{
  return training (s) && s->recompute == HR_RECOMPUTE_NONE &&
         s->attention == HR_ATTENTION_EAGER && hr_scenario_has_transformer (s);
}

static gboolean
applies_sdpa (const HrScenario *s)
{
  return s->attention == HR_ATTENTION_EAGER && hr_scenario_has_transformer (s);
}

static gboolean
applies_fused_loss (const HrScenario *s)
{
  /* a fused loss replaces the whole-vocabulary logits, upcast or not */
  return (s->loss == HR_LOSS_UPCAST || s->loss == HR_LOSS_NATIVE) &&
         hr_scenario_has_vocabulary_loss (s);
}

static gboolean
applies_accumulate (const HrScenario *s)
{
  return training (s) && s->micro_batch >= 2;
}

static gboolean
applies_adamw_8bit (const HrScenario *s)
{
  /* bitsandbytes is a PyTorch library */
  return pytorch_training (s) &&
         (s->optimizer == HR_OPTIMIZER_ADAMW || s->optimizer == HR_OPTIMIZER_ADAM);
}

static gboolean
applies_offload (const HrScenario *s)
{
  return pytorch_training (s) && s->offload == HR_OFFLOAD_NONE &&
         s->optimizer != HR_OPTIMIZER_NONE && s->optimizer != HR_OPTIMIZER_SGD;
}

static gboolean
applies_fsdp (const HrScenario *s)
{
  return pytorch_training (s) &&
         (s->sharding == HR_SHARDING_NONE || s->sharding == HR_SHARDING_DDP ||
          s->sharding == HR_SHARDING_ZERO1 || s->sharding == HR_SHARDING_ZERO2);
}

static gboolean
applies_freeze (const HrScenario *s)
{
  return training (s) && s->method == HR_METHOD_FULL && hr_scenario_has_frozen_default (s);
}

static gboolean
applies_lora (const HrScenario *s)
{
  /* adapters fine-tune a trained model; they do not train one */
  return s->task == HR_TASK_FINETUNE && s->method == HR_METHOD_FULL &&
         hr_scenario_has_transformer (s);
}

static gboolean
applies_qlora (const HrScenario *s)
{
  return pytorch_training (s) && s->method == HR_METHOD_LORA;
}

static gboolean
applies_quant_compute (const HrScenario *s)
{
  return training (s) &&
         (s->weights_dtype == HR_DTYPE_NF4 || s->weights_dtype == HR_DTYPE_INT4) &&
         s->quant_compute_dtype == HR_DTYPE_FP32 && s->compute != HR_COMPUTE_FP32 &&
         s->compute != HR_COMPUTE_TF32;
}

static gboolean
applies_shorter_seq (const HrScenario *s)
{
  return hr_scenario_has_transformer (s) && hr_scenario_reads_seq_len (s) &&
         hr_scenario_get_seq_len (s) >= 2;
}

static gboolean
applies_kv_fp8 (const HrScenario *s)
{
  return inference_transformer (s) &&
         (s->kv_dtype == HR_DTYPE_BF16 || s->kv_dtype == HR_DTYPE_FP16);
}

static gboolean
applies_weights_16bit_or_more (const HrScenario *s)
{
  return inference_transformer (s) &&
         (s->weights_dtype == HR_DTYPE_BF16 || s->weights_dtype == HR_DTYPE_FP16 ||
          s->weights_dtype == HR_DTYPE_FP32);
}

static gboolean
applies_weights_4bit (const HrScenario *s)
{
  return inference_transformer (s) && !hr_dtype_is_quantized (s->weights_dtype) &&
         s->weights_dtype != HR_DTYPE_FP8;
}

/* Serving a model over more GPUs is tensor parallelism (vLLM and SGLang's
 * --tensor-parallel-size, transformers' tp_plan, LitGPT's generate_tp);
 * llama.cpp splits by layers, which the estimate does not model */
static gboolean
applies_split (const HrScenario *s)
{
  return inference_transformer (s) && s->sharding == HR_SHARDING_NONE &&
         s->tensor_parallel <= 1 && s->pipeline_parallel <= 1 &&
         s->engine != HR_ENGINE_LLAMACPP;
}

static gboolean
applies_smaller_batch (const HrScenario *s)
{
  return !training (s) && s->micro_batch >= 2;
}

static gboolean
applies_shorter_context (const HrScenario *s)
{
  return inference_transformer (s) && hr_scenario_reads_seq_len (s) &&
         hr_scenario_get_context_len (s) >= 2;
}

static gboolean
applies_xla_pool (const HrScenario *s)
{
  return s->framework == HR_FRAMEWORK_JAX && s->jax_mem_fraction < 0.95;
}

/* ---- levers that change more than one setting ---- */

typedef struct _LeverDef LeverDef;

/* Changes @s and returns the label (NULL: the table's) and the --set
 * arguments. */
typedef char *(*LeverApply) (const LeverDef *def,
                             HrScenario     *s,
                             GString        *change);

static char *
apply_bf16 (const LeverDef *def,
            HrScenario     *s,
            GString        *change)
{
  s->compute = HR_COMPUTE_BF16_MIXED;
  if (!s->weights_dtype_set)
    s->weights_dtype = HR_DTYPE_BF16;
  g_string_append (change, "compute=bf16-mixed");
  return NULL;
}

static char *
apply_inference_bf16 (const LeverDef *def,
                      HrScenario     *s,
                      GString        *change)
{
  s->weights_dtype = HR_DTYPE_BF16;
  s->weights_dtype_set = TRUE;
  s->compute = HR_COMPUTE_BF16_PURE;
  g_string_append (change, "weights_dtype=bf16 compute=bf16-pure");
  return NULL;
}

static char *
apply_accumulate (const LeverDef *def,
                  HrScenario     *s,
                  GString        *change)
{
  s->micro_batch /= 2;
  s->grad_accum *= 2;
  g_string_append_printf (change, "micro_batch=%u grad_accum=%u", s->micro_batch, s->grad_accum);
  return NULL;
}

static char *
apply_fsdp (const LeverDef *def,
            HrScenario     *s,
            GString        *change)
{
  guint n = s->gpus > 1 ? s->gpus : 4;

  s->sharding = HR_SHARDING_FSDP;
  s->gpus = n;
  g_string_append_printf (change, "sharding=fsdp gpus=%u", n);
  return g_strdup_printf (_("Shard weights, gradients and optimizer state over %u GPUs "
                            "(ZeRO-3 / FSDP)"), n);
}

static char *
apply_split (const LeverDef *def,
             HrScenario     *s,
             GString        *change)
{
  guint n = s->gpus > 1 ? s->gpus : 2;

  s->tensor_parallel = n;
  s->gpus = n;
  g_string_append_printf (change, "tensor_parallel=%u gpus=%u", n, n);
  hr_scenario_resolve (s);
  return g_strdup_printf (_("Split the weights and KV cache over %u GPUs (tensor parallel)"), n);
}

static char *
apply_method (HrScenario *s,
              HrMethod    method,
              GString    *change)
{
  s->method = method;
  s->trainable_params_set = FALSE;
  s->weights_dtype_set = FALSE;
  g_string_append_printf (change, "method=%s", hr_enum_to_nick (hr_method_names, method));
  return NULL;
}

static char *
apply_freeze (const LeverDef *def,
              HrScenario     *s,
              GString        *change)
{
  return apply_method (s, HR_METHOD_FREEZE, change);
}

static char *
apply_lora (const LeverDef *def,
            HrScenario     *s,
            GString        *change)
{
  return apply_method (s, HR_METHOD_LORA, change);
}

static char *
apply_qlora (const LeverDef *def,
             HrScenario     *s,
             GString        *change)
{
  return apply_method (s, HR_METHOD_QLORA, change);
}

static char *
apply_quant_compute (const LeverDef *def,
                     HrScenario     *s,
                     GString        *change)
{
  s->quant_compute_dtype = s->compute == HR_COMPUTE_FP16_MIXED ? HR_DTYPE_FP16 : HR_DTYPE_BF16;
  s->quant_compute_dtype_set = TRUE;
  g_string_append_printf (change, "quant_compute_dtype=%s",
                          hr_enum_to_nick (hr_quant_compute_dtype_names,
                                           s->quant_compute_dtype));
  return NULL;
}

static char *
apply_shorter_seq (const LeverDef *def,
                   HrScenario     *s,
                   GString        *change)
{
  s->seq_len = hr_scenario_get_seq_len (s) / 2;
  s->seq_len_set = TRUE;
  g_string_append_printf (change, "seq_len=%u", s->seq_len);
  return NULL;
}

static char *
apply_smaller_batch (const LeverDef *def,
                     HrScenario     *s,
                     GString        *change)
{
  s->micro_batch /= 2;
  g_string_append_printf (change, "micro_batch=%u", s->micro_batch);
  return NULL;
}

static char *
apply_shorter_context (const LeverDef *def,
                       HrScenario     *s,
                       GString        *change)
{
  s->context_len = hr_scenario_get_context_len (s) / 2;
  s->context_len_set = TRUE;
  g_string_append_printf (change, "context_len=%u", s->context_len);
  return NULL;
}

/* ---- levers of parallelism and of the serving engines ---- */

static gboolean
has_moe (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    if (hr_component_is_moe (g_ptr_array_index (s->model->components, i)))
      return TRUE;
  return FALSE;
}

/* The data-parallel GPUs left for another split (hr_plan_dp_degree's
 * rule) */
static guint
dp_left (const HrScenario *s)
{
  guint model = MAX (1, s->tensor_parallel) * MAX (1, s->pipeline_parallel) *
                MAX (1, s->context_parallel);

  return MAX (1, s->gpus / model);
}

static gboolean
applies_sequence_parallel (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->tensor_parallel > 1 && !s->sequence_parallel;
}

/* Tensor parallelism over up to 8 GPUs (a node's NVLink domain), taken
 * from the data-parallel ones */
static guint
tensor_parallel_degree (const HrScenario *s)
{
  guint left = dp_left (s), t = 1;

  while (t * 2 <= MIN (8u, left) && left % (t * 2) == 0)
    t *= 2;
  return t;
}

static gboolean
applies_tensor_parallel (const HrScenario *s)
{
  return s->tensor_parallel <= 1 && hr_scenario_has_transformer (s) &&
         tensor_parallel_degree (s) > 1 && s->engine != HR_ENGINE_LLAMACPP;
}

static char *
apply_tensor_parallel (const LeverDef *def,
                       HrScenario     *s,
                       GString        *change)
{
  guint t = tensor_parallel_degree (s);

  s->tensor_parallel = t;
  g_string_append_printf (change, "tensor_parallel=%u", t);
  if (hr_scenario_is_training (s))
    {
      s->sequence_parallel = TRUE;
      g_string_append (change, " sequence_parallel=true");
    }
  hr_scenario_resolve (s);
  return g_strdup_printf (hr_scenario_is_training (s)
                            ? _("Split each layer over %u GPUs (tensor and sequence parallel)")
                            : _("Split each layer over %u GPUs (tensor parallel)"), t);
}

static gboolean
applies_pipeline_1f1b (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->pipeline_parallel > 1 &&
         s->pipeline_schedule == HR_PIPELINE_GPIPE;
}

static gboolean
applies_context_parallel (const HrScenario *s)
{
  /* long sequences: where attention's and the layers' activations, not
   * the model state, fill the card */
  return hr_scenario_is_training (s) && s->context_parallel <= 1 && dp_left (s) % 2 == 0 &&
         dp_left (s) >= 2 && hr_scenario_reads_seq_len (s) && hr_scenario_has_transformer (s) &&
         hr_scenario_get_seq_len (s) >= 8192;
}

static char *
apply_context_parallel (const LeverDef *def,
                        HrScenario     *s,
                        GString        *change)
{
  s->context_parallel = 2;
  g_string_append (change, "context_parallel=2");
  return NULL;
}

static guint
expert_parallel_degree (const HrScenario *s)
{
  guint room = s->gpus / MAX (1, s->tensor_parallel * s->pipeline_parallel), e = 1;
  guint experts = 0;

  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (hr_component_is_moe (c))
        experts = c->experts;
    }
  while (e * 2 <= MIN (8u, room) && room % (e * 2) == 0 && experts % (e * 2) == 0)
    e *= 2;
  return e;
}

static gboolean
applies_expert_parallel (const HrScenario *s)
{
  return s->expert_parallel <= 1 && has_moe (s) && s->engine != HR_ENGINE_LLAMACPP &&
         expert_parallel_degree (s) > 1;
}

static char *
apply_expert_parallel (const LeverDef *def,
                       HrScenario     *s,
                       GString        *change)
{
  guint e = expert_parallel_degree (s);

  s->expert_parallel = e;
  g_string_append_printf (change, "expert_parallel=%u", e);
  return g_strdup_printf (_("Split the experts over %u GPUs (expert parallel)"), e);
}

static gboolean
applies_vllm_pool (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && s->engine == HR_ENGINE_VLLM &&
         s->gpu_memory_utilization < 0.95;
}

static gboolean
applies_enforce_eager (const HrScenario *s)
{
  return hr_scenario_has_kv_pool (s) && !s->enforce_eager;
}

static gboolean
applies_llamacpp_kv (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && s->engine == HR_ENGINE_LLAMACPP &&
         (s->kv_dtype == HR_DTYPE_FP16 || s->kv_dtype == HR_DTYPE_BF16);
}

/* ---- the table ---- */

struct _LeverDef {
  const char       *id;
  const char       *label;        /* N_() */
  const char       *jax_label;    /* N_(), the label under JAX; NULL: the same */
  HrSettingApplies  applies;
  /* One setting to one value through the settings table (hr-setting.c),
   * or a function for anything else. */
  const char       *key;
  double            value;
  LeverApply        apply;
  double            speed;        /* step time after / before */
  const char       *cost;         /* N_() */
  const char       *source;       /* of the speed figure */
  HrKnobRisk        risk;
  const char       *risk_text;    /* N_() */
  const char       *risk_source;
  gboolean          more_gpus;    /* when the run has one card */
};

static const LeverDef levers[] = {
  { .id = "xla-pool",
    /* xgettext:no-c-format */
    .label = N_("Let XLA's pool take 95% of the card (XLA_PYTHON_CLIENT_MEM_FRACTION=.95)"),
    .applies = applies_xla_pool, .key = "jax_mem_fraction", .value = 0.95, .speed = 1.0,
    .cost = N_("no slower; the card keeps less for other processes (the display, a second "
               "run)"),
    .source = "JAX docs, GPU memory allocation (XLA_PYTHON_CLIENT_MEM_FRACTION)",
    .risk = HR_KNOB_RISK_NONE,
    .risk_text = N_("the same computation in a larger pool"),
    .risk_source = "openxla/xla gpu_helpers.cc, CreateBFCAllocator (the pool's size is its "
                   "only effect)" },
  { .id = "fused-loss", .label = N_("Fuse the output head with the loss (no full logits tensor)"),
    .applies = applies_fused_loss, .key = "loss", .value = HR_LOSS_FUSED, .speed = 1.0,
    .cost = N_("no slower: Liger's fused linear cross-entropy computes the logits chunk by chunk "
               "(a chunked loss, loss=chunked, saves most of it too)"),
    .source = "Hsu et al. 2024, Liger Kernel, section 3.3 (fused linear cross entropy)",
    .risk = HR_KNOB_RISK_NONE,
    .risk_text = N_("the same cross-entropy, computed a chunk at a time"),
    .risk_source = "Hsu et al. 2024, Liger Kernel, section 3.3 (exact loss and gradients)" },
  { .id = "sdpa", .label = N_("Use fused attention (SDPA or FlashAttention)"),
    .applies = applies_sdpa, .key = "attention", .value = HR_ATTENTION_SDPA, .speed = 0.85,
    .cost = N_("faster: the s² score matrix is never written to memory"),
    .source = "Dao et al. 2022, FlashAttention (2-4x faster attention)",
    .risk = HR_KNOB_RISK_NONE,
    .risk_text = N_("exact attention; only the order of floating-point sums changes"),
    .risk_source = "Dao et al. 2022, FlashAttention, section 3 (exact, not approximate)" },
  { .id = "recompute-selective", .label = N_("Recompute only the attention scores"),
    .applies = applies_recompute_selective, .key = "recompute", .value = HR_RECOMPUTE_SELECTIVE,
    .speed = 1.03, .cost = N_("a few percent more compute"),
    .source = "Korthikanti et al. 2022, table 4 (selective recomputation: 2-4% overhead)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same computation, part of it run twice"),
    .risk_source = "Korthikanti et al. 2022, section 5" },
  { .id = "accumulate",
    .label = N_("Halve the micro-batch and accumulate gradients twice as long"),
    .applies = applies_accumulate, .apply = apply_accumulate, .speed = 1.1,
    .cost = N_("same effective batch; smaller matmuls use the GPU less well"),
    .source = "PyTorch/transformers gradient accumulation; the throughput loss depends on the "
              "model",
    .risk = HR_KNOB_RISK_NONE,
    .risk_text = N_("the same gradient per optimizer step (batch-norm layers see half the batch)"),
    .risk_source = "gradient accumulation sums the same per-sample gradients" },
  { .id = "recompute-full", .label = N_("Recompute activations (gradient checkpointing)"),
    .jax_label = N_("Rematerialise activations (jax.checkpoint, remat)"),
    .applies = applies_recompute_full, .key = "recompute", .value = HR_RECOMPUTE_FULL,
    .speed = 1.33, .cost = N_("one extra forward pass per step, about a third more compute"),
    .source = "Korthikanti et al. 2022, section 5 (full recomputation: 30-40% overhead); the "
              "DreamerV3 GPU guide: remat adds 20-30% training time",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same computation, the forward pass run twice"),
    .risk_source = "Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost" },
  { .id = "offload", .label = N_("Offload optimizer state to CPU RAM (ZeRO-Offload)"),
    .applies = applies_offload, .key = "offload", .value = HR_OFFLOAD_OPTIMIZER, .speed = 1.4,
    .cost = N_("slower steps: the optimizer runs on the CPU and state crosses PCIe; needs host "
               "RAM"),
    .source = "Ren et al. 2021, ZeRO-Offload, section 6",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same optimizer step, run on the CPU"),
    .risk_source = "Ren et al. 2021, ZeRO-Offload, section 4" },
  { .id = "bf16", .label = N_("Train in bf16 mixed precision"),
    .jax_label = N_("Compute in bfloat16 with float32 parameters (compute_dtype bfloat16)"),
    .applies = applies_bf16, .apply = apply_bf16, .speed = 0.6,
    .cost = N_("usually faster: tensor cores run bf16 at twice TF32's rate and half the bytes "
               "move; check that the loss stays stable"),
    .source = "NVIDIA, Mixed Precision Training guide (Micikevicius et al. 2018)",
    .risk = HR_KNOB_RISK_LOW,
    .risk_text = N_("bf16 rounds activations and gradients; the fp32 parameters keep the updates "
                    "exact"),
    .risk_source = "Kalamkar et al. 2019, A Study of BFLOAT16 for Deep Learning Training (matches "
                   "fp32 accuracy across the models studied)" },
  { .id = "weights-bf16", .label = N_("Run the model in bf16 instead of fp32"),
    .applies = applies_inference_bf16, .apply = apply_inference_bf16, .speed = 0.6,
    .cost = N_("faster: half the bytes move and tensor cores run bf16"),
    .source = "NVIDIA, Mixed Precision Training guide (Micikevicius et al. 2018)",
    .risk = HR_KNOB_RISK_LOW, .risk_text = N_("bf16 rounding of weights and activations"),
    .risk_source = "Kalamkar et al. 2019, A Study of BFLOAT16 for Deep Learning Training" },
  { .id = "adamw-8bit", .label = N_("Use 8-bit AdamW (bitsandbytes)"),
    .applies = applies_adamw_8bit, .key = "optimizer", .value = HR_OPTIMIZER_ADAMW_8BIT,
    .speed = 1.0, .cost = N_("about the same speed as 32-bit Adam"),
    .source = "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization, section 4",
    .risk = HR_KNOB_RISK_LOW,
    .risk_text = N_("block-wise 8-bit moments; they matched 32-bit Adam in the paper's "
                    "benchmarks"),
    .risk_source = "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization, table 1" },
  { .id = "quant-compute",
    .label = N_("Compute the 4-bit layers in 16 bits (bnb_4bit_compute_dtype)"),
    .applies = applies_quant_compute, .apply = apply_quant_compute, .speed = 0.9,
    .cost = N_("faster too: no fp32 copy of each projection's input"),
    .source = "transformers BitsAndBytesConfig docs (bnb_4bit_compute_dtype); Dettmers et al. "
              "2023, QLoRA",
    .risk = HR_KNOB_RISK_LOW, .risk_text = N_("16-bit rounding inside the quantised layers"),
    .risk_source = "Dettmers et al. 2023, QLoRA (bf16 compute dtype throughout)" },
  { .id = "kv-fp8", .label = N_("Store the KV cache in fp8"),
    .applies = applies_kv_fp8, .key = "kv_dtype", .value = HR_DTYPE_FP8, .speed = 1.0,
    .cost = N_("no slower"), .source = "vLLM docs, Quantized KV Cache (FP8 E4M3)",
    .risk = HR_KNOB_RISK_LOW, .risk_text = N_("small accuracy loss on long contexts"),
    .risk_source = "vLLM docs, Quantized KV Cache (FP8 E4M3)" },
  { .id = "weights-fp8", .label = N_("Load the weights in FP8"),
    .applies = applies_weights_16bit_or_more, .key = "weights_dtype", .value = HR_DTYPE_FP8,
    .speed = 1.0,
    .cost = N_("no slower: FP8 tensor cores (Ada, Hopper, Blackwell), weight-only FP8 kernels "
               "on older cards"),
    .source = "vLLM docs, FP8 W8A8 (up to 1.6x the throughput of 16-bit weights)",
    .risk = HR_KNOB_RISK_LOW,
    .risk_text = N_("FP8 (E4M3) weights with per-tensor scales, minimal accuracy loss"),
    .risk_source = "vLLM docs, FP8 W8A8 (\"minimal impact on accuracy\")" },
  { .id = "weights-8bit", .label = N_("Load the weights in 8 bits (LLM.int8)"),
    .applies = applies_weights_16bit_or_more, .key = "weights_dtype", .value = HR_DTYPE_INT8,
    .speed = 1.3, .cost = N_("LLM.int8's outlier handling slows matmuls"),
    .source = "Dettmers et al. 2022, LLM.int8()",
    .risk = HR_KNOB_RISK_LOW, .risk_text = N_("near 16-bit quality"),
    .risk_source = "Dettmers et al. 2022, LLM.int8() (no degradation up to 175B)" },
  { .id = "freeze", .label = N_("Freeze the parts the model's authors freeze by default"),
    .applies = applies_freeze, .apply = apply_freeze, .speed = 0.7,
    .cost = N_("faster steps (no weight gradients for the frozen parts)"),
    .source = "the model's own fine-tuning defaults (catalog entry)",
    .risk = HR_KNOB_RISK_MEDIUM, .risk_text = N_("the frozen parts stop adapting to your data"),
    .risk_source = "the model's own fine-tuning defaults (catalog entry)" },
  { .id = "lora", .label = N_("Fine-tune with LoRA adapters instead of all weights"),
    .applies = applies_lora, .apply = apply_lora, .speed = 0.75,
    .cost = N_("faster steps (no weight gradients for the frozen base)"),
    .source = "Hu et al. 2021, LoRA, section 4.2",
    .risk = HR_KNOB_RISK_MEDIUM,
    .risk_text = N_("adapters may learn less than full fine-tuning on large distribution shifts"),
    .risk_source = "Biderman et al. 2024, LoRA Learns Less and Forgets Less" },
  { .id = "qlora", .label = N_("Quantise the frozen base to 4 bits (QLoRA)"),
    .applies = applies_qlora, .apply = apply_qlora, .speed = 1.35,
    .cost = N_("slower steps: every matmul dequantises its weight"),
    .source = "Dettmers et al. 2023, QLoRA, section 5; bitsandbytes benchmarks",
    .risk = HR_KNOB_RISK_MEDIUM,
    .risk_text = N_("NF4 quantisation error in the frozen base; QLoRA matched 16-bit LoRA in the "
                    "paper's benchmarks"),
    .risk_source = "Dettmers et al. 2023, QLoRA, section 4" },
  { .id = "weights-4bit", .label = N_("Load the weights in 4 bits (NF4)"),
    .applies = applies_weights_4bit, .key = "weights_dtype", .value = HR_DTYPE_NF4, .speed = 1.2,
    .cost = N_("dequantisation costs time at large batch"),
    .source = "Dettmers et al. 2023, QLoRA; bitsandbytes benchmarks",
    .risk = HR_KNOB_RISK_MEDIUM, .risk_text = N_("slightly lower quality than 16-bit weights"),
    .risk_source = "Dettmers et al. 2023, QLoRA (NF4 matches 16-bit on most benchmarks)" },
  { .id = "fsdp", .label = N_("Shard weights, gradients and optimizer state (ZeRO-3 / FSDP)"),
    .applies = applies_fsdp, .apply = apply_fsdp, .speed = 1.15,
    .cost = N_("more communication per step (1.5x a plain all-reduce)"),
    .source = "Rajbhandari et al. 2020, ZeRO, section 7 (stage 3 communication volume 1.5x)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same training step, split over the cards"),
    .risk_source = "Rajbhandari et al. 2020, ZeRO, section 5", .more_gpus = TRUE },
  { .id = "split", .label = N_("Split the weights and KV cache over more GPUs"),
    .applies = applies_split, .apply = apply_split, .speed = 1.1,
    .cost = N_("each token crosses the interconnect (NVLink keeps it cheap)"),
    .source = "Shoeybi et al. 2019, Megatron-LM, section 3 (tensor parallelism)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same model, split over the cards"),
    .risk_source = "Shoeybi et al. 2019, Megatron-LM, section 3", .more_gpus = TRUE },
  { .id = "sequence-parallel",
    .label = N_("Split the norms and dropout over the tensor-parallel GPUs too (sequence "
                "parallel)"),
    .applies = applies_sequence_parallel, .key = "sequence_parallel", .value = 1,
    .speed = 1.0,
    .cost = N_("no slower: each all-reduce becomes a reduce-scatter and an all-gather of the "
               "same volume"),
    .source = "Korthikanti et al. 2022, section 4.2.2 (sequence parallelism: no extra "
              "communication)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same computation, split differently"),
    .risk_source = "Korthikanti et al. 2022, section 4.2.2" },
  { .id = "tensor-parallel", .label = N_("Split each layer over several GPUs (tensor parallel)"),
    .applies = applies_tensor_parallel, .apply = apply_tensor_parallel, .speed = 1.1,
    .cost = N_("each layer all-reduces its output: fast inside a node (NVLink), slow across "
               "nodes"),
    .source = "Shoeybi et al. 2019, Megatron-LM, section 5.1 (scaling of 8-way model "
              "parallelism)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same model, split over the cards"),
    .risk_source = "Shoeybi et al. 2019, Megatron-LM, section 3" },
  { .id = "pipeline-1f1b", .label = N_("Schedule the pipeline 1F1B instead of GPipe"),
    .applies = applies_pipeline_1f1b, .key = "pipeline_schedule", .value = HR_PIPELINE_1F1B,
    .speed = 1.0,
    .cost = N_("no slower: the same bubble, with at most as many micro-batches in flight as "
               "stages"),
    .source = "Narayanan et al. 2021, section 2.2 (PipeDream-Flush: the bubble of GPipe)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same gradients, in another order"),
    .risk_source = "Narayanan et al. 2021, section 2.2" },
  { .id = "context-parallel", .label = N_("Split each sequence over 2 GPUs (context parallel)"),
    .applies = applies_context_parallel, .apply = apply_context_parallel, .speed = 1.05,
    .cost = N_("keys and values go around the ring, mostly hidden behind attention's compute"),
    .source = "Liu et al. 2023, Ring Attention, section 3 (overlapped communication)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("exact attention over the split sequence"),
    .risk_source = "Liu et al. 2023, Ring Attention" },
  { .id = "expert-parallel", .label = N_("Split the experts over several GPUs (expert parallel)"),
    .applies = applies_expert_parallel, .apply = apply_expert_parallel, .speed = 1.1,
    .cost = N_("tokens travel to their experts and back (two all-to-alls per MoE layer)"),
    .source = "Lepikhin et al. 2020, GShard (all-to-all dispatch of tokens to experts)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same experts, on other cards"),
    .risk_source = "Lepikhin et al. 2020, GShard" },
  { .id = "vllm-pool",
    /* xgettext:no-c-format */
    .label = N_("Let vLLM's pool take 95% of the card (gpu_memory_utilization=0.95)"),
    .applies = applies_vllm_pool, .key = "gpu_memory_utilization", .value = 0.95,
    .speed = 1.0, .cost = N_("no slower; the card keeps less for other processes"),
    .source = "vLLM docs, engine arguments (--gpu-memory-utilization)",
    .risk = HR_KNOB_RISK_LOW,
    .risk_text = N_("a spike outside the pool (another process, a larger batch) can then run "
                    "out of memory"),
    .risk_source = "vLLM docs, engine arguments (--gpu-memory-utilization)" },
  { .id = "enforce-eager", .label = N_("Serve without CUDA graphs (enforce_eager)"),
    .applies = applies_enforce_eager, .key = "enforce_eager", .value = 1, .speed = 1.3,
    .cost = N_("slower decoding of small batches: each kernel is launched from Python"),
    .source = "vLLM docs, engine arguments (--enforce-eager)",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same computation, launched eagerly"),
    .risk_source = "vLLM docs, engine arguments (--enforce-eager)" },
  { .id = "llamacpp-kv-q8", .label = N_("Keep llama.cpp's KV cache in q8_0"),
    .applies = applies_llamacpp_kv, .key = "kv_dtype", .value = HR_DTYPE_Q8_0, .speed = 1.0,
    .cost = N_("about as fast (needs flash attention for the V cache)"),
    .source = "llama.cpp tools/server README (--cache-type-k, --cache-type-v)",
    .risk = HR_KNOB_RISK_LOW, .risk_text = N_("8-bit keys and values, a small loss"),
    .risk_source = "llama.cpp tools/server README (--cache-type-k q8_0)" },
  { .id = "smaller-batch", .label = N_("Serve half as many sequences at once"),
    .applies = applies_smaller_batch, .apply = apply_smaller_batch, .speed = 2.0,
    .cost = N_("half the throughput"), .source = "the KV cache and activations are linear in "
                                                  "the batch",
    .risk = HR_KNOB_RISK_NONE, .risk_text = N_("the same answers, fewer at a time"),
    .risk_source = "each sequence is decoded on its own" },
  { .id = "shorter-seq", .label = N_("Halve the sequence length"),
    .applies = applies_shorter_seq, .apply = apply_shorter_seq, .speed = 0.5,
    .cost = N_("faster steps, on less data per sample"),
    .source = "activations are linear in tokens, attention scores quadratic (Korthikanti et al. "
              "2022, eq. 1)",
    .risk = HR_KNOB_RISK_HIGH,
    .risk_text = N_("each sample sees half the context (truncate or pack data accordingly)"),
    .risk_source = "what the model sees per sample changes" },
  { .id = "shorter-context", .label = N_("Halve the context kept in the KV cache"),
    .applies = applies_shorter_context, .apply = apply_shorter_context, .speed = 1.0,
    .cost = N_("no slower"), .source = "the KV cache is linear in the context",
    .risk = HR_KNOB_RISK_HIGH, .risk_text = N_("prompts and answers get half the room"),
    .risk_source = "what the model sees per request changes" },
};

/* ---- knobs ---- */

HrKnob *
hr_knob_copy (const HrKnob *knob)
{
  HrKnob *copy;

  g_return_val_if_fail (knob != NULL, NULL);

  copy = g_memdup2 (knob, sizeof *knob);
  copy->id = g_strdup (knob->id);
  copy->label = g_strdup (knob->label);
  copy->change = g_strdup (knob->change);
  copy->cost = g_strdup (knob->cost);
  copy->source = g_strdup (knob->source);
  copy->risk_text = g_strdup (knob->risk_text);
  copy->risk_source = g_strdup (knob->risk_source);
  copy->scenario = knob->scenario != NULL ? hr_scenario_copy (knob->scenario) : NULL;
  return copy;
}

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
  g_free (knob->risk_text);
  g_free (knob->risk_source);
  g_clear_pointer (&knob->scenario, hr_scenario_free);
  g_free (knob);
}

static void
peak_of (HrPlan              *plan,
         const HrCalibration *calibration,
         guint                micro_batch,
         HrPeak              *peak)
{
  if (calibration != NULL)
    hr_calibration_peak (calibration, plan, micro_batch, peak);
  else
    hr_plan_peak (plan, micro_batch, peak);
}

static guint
max_micro_batch (HrPlan              *plan,
                 const HrCalibration *calibration,
                 guint64              usable)
{
  return calibration != NULL ? hr_calibration_max_micro_batch (calibration, plan, usable, NULL)
                             : hr_fit_rule_plan_max_micro_batch (plan, usable, NULL);
}

typedef struct {
  const HrScenario    *base;
  const HrCalibration *calibration;
  guint64              need;
  guint64              usable;   /* 0 without a card */
} Before;

static HrKnob *
evaluate (const Before   *before,
          const LeverDef *def)
{
  g_autoptr(HrScenario) s = hr_scenario_copy (before->base);
  g_autoptr(GString) change = g_string_new (NULL);
  g_autoptr(HrPlan) plan = NULL;
  g_autofree char *label = NULL;
  HrKnob *knob;
  HrPeak peak;
  guint64 need, usable = 0;
  gint64 gained;

  if (def->key != NULL)
    {
      const HrSetting *setting = hr_setting_find (def->key);
      g_autofree char *set = NULL;

      if (setting == NULL)
        return NULL;
      hr_setting_set (setting, s, def->value);
      set = hr_setting_format_set (setting, def->value);
      g_string_append (change, set);
    }
  else
    label = def->apply (def, s, change);
  hr_scenario_resolve (s);

  plan = hr_plan_new (s);
  peak_of (plan, before->calibration, s->micro_batch, &peak);
  need = hr_fit_rule_need (s, &peak);

  if (s->gpu != NULL)
    {
      HrFitLimit limit;

      hr_fit_rule_limit (s, s->gpu, &peak, &limit);
      usable = limit.usable;
      gained = ((gint64) usable - (gint64) need) -
               ((gint64) before->usable - (gint64) before->need);
    }
  else
    gained = (gint64) before->need - (gint64) need;

  if (gained <= 0)
    return NULL;

  knob = g_new0 (HrKnob, 1);
  knob->id = g_strdup (def->id);
  if (label != NULL)
    knob->label = g_steal_pointer (&label);
  else
    knob->label = g_strdup (s->framework == HR_FRAMEWORK_JAX && def->jax_label != NULL
                              ? _(def->jax_label) : _(def->label));
  knob->change = g_strdup (change->str);
  knob->before = before->need;
  knob->after = need;
  knob->saved = (gint64) before->need - (gint64) need;
  knob->device_after = peak.device_used;
  knob->gained = gained;
  knob->speed = def->speed;
  knob->cost = g_strdup (_(def->cost));
  knob->source = g_strdup (def->source);
  knob->risk = def->risk;
  knob->risk_text = g_strdup (_(def->risk_text));
  knob->risk_source = g_strdup (def->risk_source);
  knob->more_gpus = def->more_gpus && before->base->gpus <= 1;
  knob->peak = peak;

  if (s->gpu != NULL)
    {
      knob->has_fit = TRUE;
      knob->usable_after = usable;
      knob->fits_after = need <= usable;
      if (knob->fits_after)
        knob->max_micro_batch_after = max_micro_batch (plan, before->calibration, usable);
    }

  knob->scenario = g_steal_pointer (&s);
  return knob;
}

GPtrArray *
hr_knobs_evaluate (const HrScenario    *scenario,
                   const HrCalibration *calibration)
{
  g_autoptr(HrPlan) plan = NULL;
  GPtrArray *knobs;
  Before before = { scenario, calibration, 0, 0 };
  HrPeak peak;

  g_return_val_if_fail (scenario != NULL, NULL);

  plan = hr_plan_new (scenario);
  peak_of (plan, calibration, scenario->micro_batch, &peak);
  before.need = hr_fit_rule_need (scenario, &peak);
  if (scenario->gpu != NULL)
    {
      HrFitLimit limit;

      hr_fit_rule_limit (scenario, scenario->gpu, &peak, &limit);
      before.usable = limit.usable;
    }

  knobs = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_knob_free);
  for (guint i = 0; i < G_N_ELEMENTS (levers); i++)
    {
      HrKnob *knob;

      if (!levers[i].applies (scenario))
        continue;
      knob = evaluate (&before, &levers[i]);
      if (knob == NULL)
        continue;
      /* A lever that frees less than HR_KNOB_WORTH_IT of the peak changes
       * nothing a user would notice (offloading a LoRA run's optimizer
       * state: 0.07 GiB at a speed cost), unless it is what makes the
       * run fit its card. */
      knob->worth_it = (double) knob->gained >= HR_KNOB_WORTH_IT * (double) before.need ||
                       (knob->has_fit && knob->fits_after && before.usable > 0 &&
                        before.need > before.usable);
      g_ptr_array_add (knobs, knob);
    }
  return knobs;
}

static int
cost_tier (const HrKnob *knob)
{
  if (knob->risk == HR_KNOB_RISK_HIGH)
    return 4;
  if (knob->more_gpus)
    return 3;
  return knob->risk;   /* none 0, low 1, medium 2 */
}

int
hr_knob_compare_cost (const HrKnob *a,
                      const HrKnob *b)
{
  int ta = cost_tier (a), tb = cost_tier (b);

  if (a->worth_it != b->worth_it)
    return a->worth_it ? -1 : 1;
  if (ta != tb)
    return ta < tb ? -1 : 1;
  if (a->speed != b->speed)
    return a->speed < b->speed ? -1 : 1;
  if (a->gained != b->gained)
    return a->gained > b->gained ? -1 : 1;
  return 0;
}

static gint
compare_cost_cb (gconstpointer a,
                 gconstpointer b)
{
  return hr_knob_compare_cost (*(const HrKnob **) a, *(const HrKnob **) b);
}

static gint
compare_saved_cb (gconstpointer a,
                  gconstpointer b)
{
  const HrKnob *ka = *(const HrKnob **) a;
  const HrKnob *kb = *(const HrKnob **) b;

  if (ka->worth_it != kb->worth_it)
    return ka->worth_it ? -1 : 1;
  if (ka->gained != kb->gained)
    return ka->gained > kb->gained ? -1 : 1;
  /* equal savings: the cheaper lever first */
  return hr_knob_compare_cost (ka, kb);
}

void
hr_knobs_sort (GPtrArray  *knobs,
               HrKnobSort  sort)
{
  g_return_if_fail (knobs != NULL);

  g_ptr_array_sort (knobs, sort == HR_KNOB_SORT_COST ? compare_cost_cb : compare_saved_cb);
}

HrKnob *
hr_knobs_find_fix (GPtrArray           *knobs,
                   const HrGpu         *gpu,
                   const HrCalibration *calibration)
{
  g_autoptr(GPtrArray) order = NULL;

  g_return_val_if_fail (knobs != NULL, NULL);
  g_return_val_if_fail (gpu != NULL, NULL);

  /* a view in cost order; the knobs stay @knobs' */
  order = g_ptr_array_sized_new (knobs->len);
  for (guint i = 0; i < knobs->len; i++)
    g_ptr_array_add (order, g_ptr_array_index (knobs, i));
  g_ptr_array_sort (order, compare_cost_cb);

  for (guint i = 0; i < order->len; i++)
    {
      const HrKnob *knob = g_ptr_array_index (order, i);
      g_autoptr(HrScenario) s = NULL;
      g_autoptr(HrPlan) plan = NULL;
      HrFitLimit limit;
      HrPeak peak;
      guint64 need;
      HrKnob *fix;

      /* The lever's peak on its own card tells, by the same rule, whether
       * it can fit on @gpu; a plan on @gpu confirms it. */
      hr_fit_rule_limit (knob->scenario, gpu, &knob->peak, &limit);
      if (hr_fit_rule_need (knob->scenario, &knob->peak) > limit.usable)
        continue;

      s = hr_scenario_copy (knob->scenario);
      g_clear_pointer (&s->gpu, hr_gpu_free);
      s->gpu = hr_gpu_copy (gpu);
      s->gpu_inline = FALSE;
      plan = hr_plan_new (s);
      peak_of (plan, calibration, s->micro_batch, &peak);
      hr_fit_rule_limit (s, gpu, &peak, &limit);
      need = hr_fit_rule_need (s, &peak);
      if (need > limit.usable)
        continue;

      fix = hr_knob_copy (knob);
      fix->has_fit = TRUE;
      fix->fits_after = TRUE;
      fix->after = need;
      fix->device_after = peak.device_used;
      fix->usable_after = limit.usable;
      fix->peak = peak;
      fix->max_micro_batch_after = max_micro_batch (plan, calibration, limit.usable);
      g_clear_pointer (&fix->scenario, hr_scenario_free);
      fix->scenario = g_steal_pointer (&s);
      return fix;
    }

  return NULL;
}

GPtrArray *
hr_knobs_rank (const HrScenario *scenario)
{
  GPtrArray *knobs;

  g_return_val_if_fail (scenario != NULL, NULL);

  knobs = hr_knobs_evaluate (scenario, NULL);
  hr_knobs_sort (knobs, HR_KNOB_SORT_SAVED);
  return knobs;
}
