/* hr-setting.c: the scenario's settings as data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-setting"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-setting.h"

/* ---- predicates ---- */

gboolean
hr_scenario_has_transformer (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER)
        return TRUE;
    }
  return FALSE;
}

gboolean
hr_scenario_reads_seq_len (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->tokens_from == HR_TOKENS_SEQ_LEN)
        return TRUE;
      if (c->has_activation && c->act_scaling == HR_SCALING_SEQ)
        return TRUE;
    }
  return FALSE;
}

gboolean
hr_scenario_reads_image_size (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->tokens_from == HR_TOKENS_PATCHES)
        return TRUE;
      /* a part walked block by block runs at the input size (hr-arch.c);
       * a speech encoder's input is its clip (audio_seconds) instead */
      if (c->arch != NULL && !hr_arch_is_speech (c->arch))
        return TRUE;
      if (c->has_activation && c->act_scaling == HR_SCALING_PIXELS)
        return TRUE;
    }
  return FALSE;
}

/* A loss over a vocabulary: a causal LM at every position (the estimator
 * counts its logits, see hr-estimate.c), an encoder only when pretraining. */
gboolean
hr_scenario_has_vocabulary_loss (const HrScenario *s)
{
  gboolean llm = hr_model_is_language_model (s->model);
  gboolean encoder = g_strcmp0 (s->model->family, "encoder") == 0 && s->task == HR_TASK_TRAIN;

  if (!hr_scenario_is_training (s) || !(llm || encoder))
    return FALSE;
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->vocab > 0)
        return TRUE;
    }
  return FALSE;
}

gboolean
hr_scenario_has_frozen_default (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (!c->trainable)
        return TRUE;
    }
  return FALSE;
}

static gboolean
applies_training (const HrScenario *s)
{
  return hr_scenario_is_training (s);
}

static gboolean
applies_lora (const HrScenario *s)
{
  /* LoRA and the relatives that take its rank and targets as they are
   * (hr-estimate-peft.c); the other tuners' defaults differ. */
  return hr_scenario_is_training (s) && hr_scenario_has_transformer (s) &&
         (s->method == HR_METHOD_LORA || s->method == HR_METHOD_QLORA ||
          s->method == HR_METHOD_DORA || s->method == HR_METHOD_LORA_FA);
}

static gboolean
applies_weights (const HrScenario *s)
{
  return !hr_scenario_is_training (s) || s->method != HR_METHOD_FULL;
}

static gboolean
applies_kv_cache (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && hr_scenario_reads_seq_len (s) &&
         hr_scenario_has_transformer (s);
}

static gboolean
applies_jax (const HrScenario *s)
{
  return s->framework == HR_FRAMEWORK_JAX;
}

/* PyTorch's own mechanisms, which a JAX run does not have (hr-estimate.c,
 * drop_torch_only()). */
static gboolean
applies_torch (const HrScenario *s)
{
  return s->framework != HR_FRAMEWORK_JAX;
}

static gboolean
applies_torch_training (const HrScenario *s)
{
  return applies_torch (s) && hr_scenario_is_training (s);
}

/* A detector's heads, whose code the detection library sets
 * (SCENARIO.md detection_framework) */
static gboolean
applies_detection (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (s->model->components, i);

      if (c->arch == NULL)
        continue;
      switch (c->arch->head)
        {
        case HR_ARCH_HEAD_FASTER_RCNN:
        case HR_ARCH_HEAD_MASK_RCNN:
        case HR_ARCH_HEAD_RETINANET:
        case HR_ARCH_HEAD_FCOS:
        case HR_ARCH_HEAD_RPN:
        case HR_ARCH_HEAD_KEYPOINT_RCNN:
        case HR_ARCH_HEAD_FASTER_RCNN_C4:
        case HR_ARCH_HEAD_FASTER_RCNN_DC5:
        case HR_ARCH_HEAD_PANOPTIC_FPN:
        case HR_ARCH_HEAD_MASK_RCNN_C4:
        case HR_ARCH_HEAD_MASK_RCNN_DC5:
          return applies_torch_training (s);
        default:
          break;
        }
    }
  return FALSE;
}

/* generate() under transformers (hr-estimate-activations.c reads its
 * release: the prompt's logits before 4.45, the tuple cache before 4.36) */
static gboolean
applies_transformers_generate (const HrScenario *s)
{
  return applies_kv_cache (s) && applies_torch (s) &&
         (!s->engine_set || s->engine == HR_ENGINE_TRANSFORMERS);
}

/* transformers before 4.36 held the previous step's tuple cache while
 * generating (hr-estimate-activations.c, add_previous_cache) */
static gboolean
applies_previous_cache (const HrScenario *s)
{
  return s->task == HR_TASK_INFERENCE && hr_scenario_has_transformer (s) &&
         hr_scenario_transformers_before (s, 4, 36);
}

/* Attention: a transformer's, or a speech encoder's (hr-arch-speech.c
 * reads eager against the efficient kernels) */
static gboolean
applies_attention (const HrScenario *s)
{
  return hr_scenario_has_transformer (s) || hr_scenario_reads_audio (s);
}

/* ---- accessors where others follow ---- */

static double
get_seq_len (const HrSetting  *setting,
             const HrScenario *s)
{
  return hr_scenario_get_seq_len (s);
}

static double
get_audio_seconds (const HrSetting  *setting,
                   const HrScenario *s)
{
  return hr_scenario_get_audio_seconds (s);
}

static double
get_sample_rate (const HrSetting  *setting,
                 const HrScenario *s)
{
  return hr_scenario_get_sample_rate (s);
}

static double
get_context_len (const HrSetting  *setting,
                 const HrScenario *s)
{
  return hr_scenario_get_context_len (s);
}

/* An optimizer chosen for training does not carry into inference. */
static void
set_task (const HrSetting *setting,
          HrScenario      *s,
          double           value)
{
  s->task = (HrTask) value;
  if (s->task == HR_TASK_INFERENCE)
    s->optimizer_set = FALSE;
}

/* The stored weights follow the method and the precision again. */
static void
set_method (const HrSetting *setting,
            HrScenario      *s,
            double           value)
{
  s->method = (HrMethod) value;
  s->weights_dtype_set = FALSE;
}

static void
set_compute (const HrSetting *setting,
             HrScenario      *s,
             double           value)
{
  s->compute = (HrCompute) value;
  s->weights_dtype_set = FALSE;
}

static void
set_lora_rank (const HrSetting *setting,
               HrScenario      *s,
               double           value)
{
  s->lora_rank = (guint) value;
  s->lora_set = TRUE;
}

static void
set_lora_targets (const HrSetting *setting,
                  HrScenario      *s,
                  double           value)
{
  /* Choosing "the modules listed" keeps the modules the preset had, so
   * nothing changes until a module is added or taken away. */
  if ((HrLoraTargets) value == HR_LORA_TARGETS_CUSTOM && s->lora_targets != HR_LORA_TARGETS_CUSTOM)
    s->lora_modules = hr_scenario_get_lora_modules (s);
  s->lora_targets = (HrLoraTargets) value;
  s->lora_set = TRUE;
}

/* ---- the stacks', parallelism's and serving engines' settings ---- */

static gboolean
applies_fsdp (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->gpus > 1 &&
         (s->sharding == HR_SHARDING_FSDP || s->sharding == HR_SHARDING_FSDP1);
}

static gboolean
applies_optimizer_in_bwd (const HrScenario *s)
{
  return applies_torch_training (s) && s->grad_accum == 1;
}

/* GaLore's and Q-GaLore's rank, APOLLO's rank (APOLLO-Mini's is 1) */
static gboolean
applies_galore_rank (const HrScenario *s)
{
  return hr_scenario_is_training (s) &&
         (s->optimizer == HR_OPTIMIZER_GALORE_ADAMW ||
          s->optimizer == HR_OPTIMIZER_GALORE_ADAMW_8BIT ||
          s->optimizer == HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT);
}

static gboolean
applies_apollo_rank (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->optimizer == HR_OPTIMIZER_APOLLO_ADAMW;
}

static double
get_int8_weights (const HrSetting  *setting,
                  const HrScenario *s)
{
  return hr_scenario_int8_weights (s);
}

static void
set_int8_weights (const HrSetting *setting,
                  HrScenario      *s,
                  double           value)
{
  s->int8_weights = value != 0;
  s->int8_weights_set = TRUE;
}

static gboolean
applies_int8_weight_group (const HrScenario *s)
{
  return hr_scenario_int8_weights (s);
}

static gboolean
applies_packed (const HrScenario *s)
{
  return hr_scenario_is_training (s) && hr_scenario_has_transformer (s);
}

/* torch.optim's Adam family, Lion and Adafactor step with foreach, fused
 * or a loop (hr-estimate-optimizer.c) */
static gboolean
applies_optimizer_impl (const HrScenario *s)
{
  return applies_torch_training (s) &&
         (s->optimizer == HR_OPTIMIZER_ADAMW || s->optimizer == HR_OPTIMIZER_ADAM ||
          s->optimizer == HR_OPTIMIZER_LION || s->optimizer == HR_OPTIMIZER_ADAFACTOR);
}

static gboolean
applies_zero (const HrScenario *s)
{
  return hr_scenario_is_training (s) &&
         (s->sharding == HR_SHARDING_ZERO1 || s->sharding == HR_SHARDING_ZERO2 ||
          s->sharding == HR_SHARDING_ZERO3);
}

static gboolean
applies_zero3 (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->sharding == HR_SHARDING_ZERO3;
}

static gboolean
applies_peft_tokens (const HrScenario *s)
{
  return hr_scenario_is_training (s) &&
         (s->method == HR_METHOD_PREFIX || s->method == HR_METHOD_PROMPT);
}

static gboolean
applies_prefix (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->method == HR_METHOD_PREFIX;
}

static gboolean
applies_prefix_projection (const HrScenario *s)
{
  return applies_prefix (s) && s->peft.prefix_projection;
}

static gboolean
applies_oft (const HrScenario *s)
{
  return hr_scenario_is_training (s) &&
         (s->method == HR_METHOD_OFT || s->method == HR_METHOD_BOFT);
}

static gboolean
applies_boft (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->method == HR_METHOD_BOFT;
}

static gboolean
applies_lokr (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->method == HR_METHOD_LOKR;
}

static gboolean
applies_adalora (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->method == HR_METHOD_ADALORA;
}

static gboolean
applies_tensor_parallel (const HrScenario *s)
{
  return s->gpus > 1 && hr_scenario_has_transformer (s);
}

static gboolean
applies_sequence_parallel (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->tensor_parallel > 1;
}

static gboolean
applies_pipeline_schedule (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->pipeline_parallel > 1;
}

static gboolean
applies_virtual_stages (const HrScenario *s)
{
  return applies_pipeline_schedule (s) && s->pipeline_schedule == HR_PIPELINE_INTERLEAVED;
}

static gboolean
applies_context_parallel (const HrScenario *s)
{
  return hr_scenario_is_training (s) && s->gpus > 1 && hr_scenario_reads_seq_len (s) &&
         hr_scenario_has_transformer (s);
}

static gboolean
scenario_is_moe (const HrScenario *s)
{
  for (guint i = 0; i < s->model->components->len; i++)
    if (hr_component_is_moe (g_ptr_array_index (s->model->components, i)))
      return TRUE;
  return FALSE;
}

static gboolean
applies_expert_parallel (const HrScenario *s)
{
  return s->gpus > 1 && scenario_is_moe (s);
}

static gboolean
applies_capacity_factor (const HrScenario *s)
{
  return hr_scenario_is_training (s) && scenario_is_moe (s);
}

static gboolean
applies_engine (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && hr_scenario_has_transformer (s);
}

static gboolean
applies_ctranslate2 (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && s->engine == HR_ENGINE_CTRANSLATE2;
}

/* compute_type sets the weights' and the compute's types together */
static void
set_ct2_compute_type (const HrSetting *setting,
                      HrScenario      *s,
                      double           value)
{
  s->ct2_compute_type = (HrCt2ComputeType) value;
  s->ct2_compute_type_set = TRUE;
  hr_ct2_compute_type_resolve (s->ct2_compute_type, &s->weights_dtype, &s->compute,
                               &s->kv_dtype);
  s->weights_dtype_set = TRUE;
}

static gboolean
applies_beams (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && hr_scenario_has_transformer (s);
}

static double
get_beams (const HrSetting  *setting,
           const HrScenario *s)
{
  return hr_scenario_get_beams (s);
}

static void
set_beams (const HrSetting *setting,
           HrScenario      *s,
           double           value)
{
  s->beams = (guint) MAX (1, value);
}

static gboolean
applies_vllm (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && s->engine == HR_ENGINE_VLLM;
}

static gboolean
applies_sglang (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && s->engine == HR_ENGINE_SGLANG;
}

static gboolean
applies_serving_pool (const HrScenario *s)
{
  return hr_scenario_has_kv_pool (s);
}

static gboolean
applies_llamacpp (const HrScenario *s)
{
  return !hr_scenario_is_training (s) && s->engine == HR_ENGINE_LLAMACPP;
}

/* "none" is the generic PyTorch estimate: no stack named */
static const HrEnumName stack_or_none_names[] = {
  { -1, "none" },
  { HR_STACK_TRANSFORMERS, "transformers" },
  { HR_STACK_LITGPT, "litgpt" },
  { HR_STACK_TORCHTUNE, "torchtune" },
  { HR_STACK_TORCHTITAN, "torchtitan" },
  { HR_STACK_ACCELERATE, "accelerate" },
  { HR_STACK_TRL, "trl" },
  { HR_STACK_DEEPSPEED, "deepspeed" },
  { HR_STACK_LIGHTNING, "lightning" },
  { HR_STACK_UNSLOTH, "unsloth" },
  { HR_STACK_AXOLOTL, "axolotl" },
  { HR_STACK_MEGATRON, "megatron" },
  { 0, NULL },
};

static double
get_stack (const HrSetting  *setting,
           const HrScenario *s)
{
  return s->stack_set ? (double) s->stack : -1;
}

static void
set_stack (const HrSetting *setting,
           HrScenario      *s,
           double           value)
{
  s->stack_set = value >= 0;
  if (value >= 0)
    s->stack = (HrStack) value;
  /* what follows from the stack (the optimizer's implementation, the 4-bit
   * compute dtype) follows the new one */
  s->optimizer_impl_set = FALSE;
  s->quant_compute_dtype_set = FALSE;
}

static void
set_virtual_stages (const HrSetting *setting,
                    HrScenario      *s,
                    double           value)
{
  s->virtual_stages = (guint) llround (value);
  s->virtual_stages_set = TRUE;
}

static void
set_engine (const HrSetting *setting,
            HrScenario      *s,
            double           value)
{
  s->engine = (HrEngine) value;
  s->engine_set = TRUE;
  /* CTranslate2 runs in its compute_type */
  if (s->engine == HR_ENGINE_CTRANSLATE2)
    hr_ct2_compute_type_resolve (s->ct2_compute_type, &s->weights_dtype, &s->compute,
                                 &s->kv_dtype);
}

/* DeepSpeed's integers are 64-bit: read and written by hand */
#define DS_U64(name, field, bit)                                               \
  static double                                                                \
  get_ds_##name (const HrSetting  *setting,                                    \
                 const HrScenario *s)                                          \
  {                                                                            \
    return (double) s->deepspeed.field;                                        \
  }                                                                            \
  static void                                                                  \
  set_ds_##name (const HrSetting *setting,                                     \
                 HrScenario      *s,                                           \
                 double           value)                                       \
  {                                                                            \
    s->deepspeed.field = (guint64) llround (value);                            \
    s->deepspeed.set |= bit;                                                   \
    s->has_deepspeed = TRUE;                                                   \
  }

DS_U64 (max_live, max_live_parameters, HR_DS_MAX_LIVE_PARAMETERS)
DS_U64 (prefetch, prefetch_bucket_size, HR_DS_PREFETCH_BUCKET_SIZE)
DS_U64 (persistence, param_persistence_threshold, HR_DS_PARAM_PERSISTENCE)
DS_U64 (reduce, reduce_bucket_size, HR_DS_REDUCE_BUCKET_SIZE)
DS_U64 (allgather, allgather_bucket_size, HR_DS_ALLGATHER_BUCKET_SIZE)
DS_U64 (reuse, max_reuse_distance, HR_DS_MAX_REUSE_DISTANCE)
DS_U64 (sub_group, sub_group_size, HR_DS_SUB_GROUP_SIZE)

#undef DS_U64

/* DeepSpeed's devices and switches: a bit in `set` says the user chose */
#define DS_FIELD(name, type, field, bit)                                       \
  static void                                                                  \
  set_ds_##name (const HrSetting *setting,                                     \
                 HrScenario      *s,                                           \
                 double           value)                                       \
  {                                                                            \
    s->deepspeed.field = (type) llround (value);                               \
    s->deepspeed.set |= bit;                                                   \
    s->has_deepspeed = TRUE;                                                   \
  }

DS_FIELD (offload_param, HrOffloadDevice, offload_param, HR_DS_OFFLOAD_PARAM)
DS_FIELD (offload_optimizer, HrOffloadDevice, offload_optimizer, HR_DS_OFFLOAD_OPTIMIZER)
DS_FIELD (overlap_comm, gboolean, overlap_comm, HR_DS_OVERLAP_COMM)
DS_FIELD (contiguous, gboolean, contiguous_gradients, HR_DS_CONTIGUOUS_GRADIENTS)

#undef DS_FIELD

/* PEFT's method-specific sizes */
#define PEFT_FIELD(name, type, field, bit)                                     \
  static void                                                                  \
  set_peft_##name (const HrSetting *setting,                                   \
                   HrScenario      *s,                                         \
                   double           value)                                     \
  {                                                                            \
    s->peft.field = (type) llround (value);                                    \
    s->peft.set |= bit;                                                        \
    s->has_peft = TRUE;                                                        \
  }

PEFT_FIELD (virtual_tokens, guint, num_virtual_tokens, HR_PEFT_NUM_VIRTUAL_TOKENS)
PEFT_FIELD (projection, gboolean, prefix_projection, HR_PEFT_PREFIX_PROJECTION)
PEFT_FIELD (encoder_hidden, guint, encoder_hidden_size, HR_PEFT_ENCODER_HIDDEN_SIZE)
PEFT_FIELD (block_size, guint, block_size, HR_PEFT_BLOCK_SIZE)
PEFT_FIELD (butterfly, guint, n_butterfly_factor, HR_PEFT_N_BUTTERFLY_FACTOR)
PEFT_FIELD (decompose_factor, int, decompose_factor, HR_PEFT_DECOMPOSE_FACTOR)
PEFT_FIELD (decompose_both, gboolean, decompose_both, HR_PEFT_DECOMPOSE_BOTH)
PEFT_FIELD (init_r, guint, init_r, HR_PEFT_INIT_R)

#undef PEFT_FIELD

static double
get_peft_decompose_factor (const HrSetting  *setting,
                           const HrScenario *s)
{
  return s->peft.decompose_factor;
}

static double
get_peft_block_size (const HrSetting  *setting,
                     const HrScenario *s)
{
  /* 0 is "the method's default": OFT's 32, BOFT's 4 (hr-estimate-peft.c) */
  if (s->peft.block_size > 0)
    return s->peft.block_size;
  return s->method == HR_METHOD_BOFT ? 4 : 32;
}

static double
get_peft_encoder_hidden (const HrSetting  *setting,
                         const HrScenario *s)
{
  const HrComponent *first = s->model->components->len > 0
                               ? g_ptr_array_index (s->model->components, 0) : NULL;

  if (s->peft.encoder_hidden_size > 0 || first == NULL)
    return s->peft.encoder_hidden_size;
  return first->hidden;
}

static const HrSettingChoice stack_choices[] = {
  { -1, N_("None (generic PyTorch)") },
  { HR_STACK_TRANSFORMERS, N_("Transformers Trainer") },
  { HR_STACK_TRL, N_("TRL") },
  { HR_STACK_ACCELERATE, N_("Accelerate") },
  { HR_STACK_AXOLOTL, N_("Axolotl") },
  { HR_STACK_UNSLOTH, N_("Unsloth") },
  { HR_STACK_TORCHTUNE, N_("torchtune") },
  { HR_STACK_TORCHTITAN, N_("torchtitan") },
  { HR_STACK_LITGPT, N_("LitGPT") },
  { HR_STACK_LIGHTNING, N_("Lightning") },
  { HR_STACK_DEEPSPEED, N_("DeepSpeed") },
  { HR_STACK_MEGATRON, N_("Megatron-LM") },
  { -1, NULL }
};

static const HrSettingChoice optimizer_impl_choices[] = {
  { HR_OPTIMIZER_IMPL_FOREACH, N_("foreach (PyTorch's default)") },
  { HR_OPTIMIZER_IMPL_FUSED, N_("Fused") },
  { HR_OPTIMIZER_IMPL_FOR_LOOP, N_("For-loop") },
  { -1, NULL }
};

static const HrSettingChoice state_dtype_choices[] = {
  { HR_DTYPE_FP32, N_("FP32") },
  { HR_DTYPE_BF16, N_("BF16") },
  { -1, NULL }
};

static const HrSettingChoice offload_device_choices[] = {
  { HR_OFFLOAD_DEVICE_NONE, N_("None") },
  { HR_OFFLOAD_DEVICE_CPU, N_("CPU") },
  { HR_OFFLOAD_DEVICE_NVME, N_("NVMe") },
  { -1, NULL }
};

static const HrSettingChoice pipeline_schedule_choices[] = {
  { HR_PIPELINE_1F1B, N_("1F1B") },
  { HR_PIPELINE_INTERLEAVED, N_("Interleaved 1F1B") },
  { HR_PIPELINE_GPIPE, N_("GPipe") },
  { -1, NULL }
};

static const HrSettingChoice engine_choices[] = {
  { HR_ENGINE_TRANSFORMERS, N_("Transformers") },
  { HR_ENGINE_VLLM, N_("vLLM") },
  { HR_ENGINE_SGLANG, N_("SGLang") },
  { HR_ENGINE_LLAMACPP, N_("llama.cpp") },
  { HR_ENGINE_CTRANSLATE2, N_("CTranslate2") },
  { -1, NULL }
};

static const HrSettingChoice ct2_compute_type_choices[] = {
  { HR_CT2_FLOAT16, N_("float16") },
  { HR_CT2_BFLOAT16, N_("bfloat16") },
  { HR_CT2_FLOAT32, N_("float32") },
  { HR_CT2_INT8, N_("int8 (over float16)") },
  { HR_CT2_INT8_FLOAT16, N_("int8_float16") },
  { HR_CT2_INT8_BFLOAT16, N_("int8_bfloat16") },
  { HR_CT2_INT8_FLOAT32, N_("int8_float32") },
  { -1, NULL }
};

/* ---- the choices, as the drop-downs list them ---- */

static const HrSettingChoice task_choices[] = {
  { HR_TASK_TRAIN, N_("Train from scratch") },
  { HR_TASK_FINETUNE, N_("Fine-tune") },
  { HR_TASK_INFERENCE, N_("Inference") },
  { -1, NULL }
};

static const HrSettingChoice method_choices[] = {
  { HR_METHOD_FULL, N_("Full") },
  { HR_METHOD_FREEZE, N_("Frozen parts") },
  { HR_METHOD_LORA, N_("LoRA") },
  { HR_METHOD_QLORA, N_("QLoRA (4-bit base)") },
  { HR_METHOD_DORA, N_("DoRA") },
  { HR_METHOD_LORA_FA, N_("LoRA-FA") },
  { HR_METHOD_ADALORA, N_("AdaLoRA") },
  { HR_METHOD_VERA, N_("VeRA") },
  { HR_METHOD_IA3, N_("IA³") },
  { HR_METHOD_LOHA, N_("LoHa") },
  { HR_METHOD_LOKR, N_("LoKr") },
  { HR_METHOD_OFT, N_("OFT") },
  { HR_METHOD_BOFT, N_("BOFT") },
  { HR_METHOD_PREFIX, N_("Prefix tuning") },
  { HR_METHOD_PROMPT, N_("Prompt tuning") },
  { HR_METHOD_LAYERNORM, N_("LayerNorm tuning") },
  { -1, NULL }
};

static const HrSettingChoice lora_targets_choices[] = {
  { HR_LORA_TARGETS_ALL_LINEAR, N_("All linear layers") },
  { HR_LORA_TARGETS_ATTENTION, N_("Attention only") },
  { HR_LORA_TARGETS_QV, N_("Query and value only") },
  { HR_LORA_TARGETS_MLP, N_("MLP only") },
  /* the scenario's own list of modules ("targets": ["q", "v", …]) */
  { HR_LORA_TARGETS_CUSTOM, N_("The modules listed") },
  { -1, NULL }
};

static const HrSettingChoice compute_choices[] = {
  { HR_COMPUTE_BF16_MIXED, N_("BF16 mixed") },
  { HR_COMPUTE_FP16_MIXED, N_("FP16 mixed") },
  { HR_COMPUTE_BF16_PURE, N_("Pure BF16") },
  { HR_COMPUTE_FP16_PURE, N_("Pure FP16") },
  { HR_COMPUTE_FP8_MIXED, N_("FP8 mixed (torchao float8)") },
  { HR_COMPUTE_TF32, N_("TF32") },
  { HR_COMPUTE_FP32, N_("FP32") },
  { -1, NULL }
};

static const HrSettingChoice weights_choices[] = {
  { HR_DTYPE_BF16, N_("BF16") },
  { HR_DTYPE_FP16, N_("FP16") },
  { HR_DTYPE_FP32, N_("FP32") },
  { HR_DTYPE_FP8, N_("FP8") },
  { HR_DTYPE_INT8, N_("INT8") },
  { HR_DTYPE_NF4, N_("NF4 (4-bit)") },
  { HR_DTYPE_INT4, N_("INT4") },
  /* GGUF's block types, as llama.cpp names them */
  { HR_DTYPE_Q8_0, N_("Q8_0 (GGUF)") },
  { HR_DTYPE_Q6_K, N_("Q6_K (GGUF)") },
  { HR_DTYPE_Q5_K, N_("Q5_K (GGUF)") },
  { HR_DTYPE_Q5_1, N_("Q5_1 (GGUF)") },
  { HR_DTYPE_Q5_0, N_("Q5_0 (GGUF)") },
  { HR_DTYPE_Q4_K, N_("Q4_K (GGUF)") },
  { HR_DTYPE_Q4_1, N_("Q4_1 (GGUF)") },
  { HR_DTYPE_Q4_0, N_("Q4_0 (GGUF)") },
  { HR_DTYPE_IQ4_XS, N_("IQ4_XS (GGUF)") },
  { HR_DTYPE_IQ4_NL, N_("IQ4_NL (GGUF)") },
  { HR_DTYPE_Q3_K, N_("Q3_K (GGUF)") },
  { HR_DTYPE_IQ3_S, N_("IQ3_S (GGUF)") },
  { HR_DTYPE_IQ3_XXS, N_("IQ3_XXS (GGUF)") },
  { HR_DTYPE_Q2_K, N_("Q2_K (GGUF)") },
  { HR_DTYPE_IQ2_S, N_("IQ2_S (GGUF)") },
  { HR_DTYPE_IQ2_XS, N_("IQ2_XS (GGUF)") },
  { HR_DTYPE_IQ2_XXS, N_("IQ2_XXS (GGUF)") },
  { HR_DTYPE_TQ2_0, N_("TQ2_0 (GGUF, ternary)") },
  { HR_DTYPE_IQ1_M, N_("IQ1_M (GGUF)") },
  { HR_DTYPE_TQ1_0, N_("TQ1_0 (GGUF, ternary)") },
  { HR_DTYPE_IQ1_S, N_("IQ1_S (GGUF)") },
  { HR_DTYPE_MXFP4, N_("MXFP4") },
  { HR_DTYPE_FP6, N_("FP6 (torchao fpx)") },
  { HR_DTYPE_MXFP6, N_("MXFP6") },
  { HR_DTYPE_MXFP8, N_("MXFP8") },
  { -1, NULL }
};

static const HrSettingChoice optimizer_choices[] = {
  { HR_OPTIMIZER_ADAMW, N_("AdamW") },
  { HR_OPTIMIZER_ADAM, N_("Adam") },
  { HR_OPTIMIZER_ADAMW_8BIT, N_("8-bit AdamW") },
  { HR_OPTIMIZER_PAGED_ADAMW_8BIT, N_("Paged 8-bit AdamW") },
  { HR_OPTIMIZER_PAGED_ADAMW, N_("Paged AdamW") },
  { HR_OPTIMIZER_ADAMW_8BIT_AO, N_("8-bit AdamW (torchao)") },
  { HR_OPTIMIZER_ADAMW_4BIT, N_("4-bit AdamW (torchao)") },
  { HR_OPTIMIZER_ADAMW_FP8, N_("FP8 AdamW (torchao)") },
  { HR_OPTIMIZER_GALORE_ADAMW, N_("GaLore AdamW") },
  { HR_OPTIMIZER_GALORE_ADAMW_8BIT, N_("GaLore 8-bit AdamW") },
  { HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT, N_("Q-GaLore 8-bit AdamW") },
  { HR_OPTIMIZER_APOLLO_ADAMW, N_("APOLLO") },
  { HR_OPTIMIZER_APOLLO_MINI, N_("APOLLO-Mini") },
  { HR_OPTIMIZER_ADAFACTOR, N_("Adafactor") },
  { HR_OPTIMIZER_LION, N_("Lion") },
  { HR_OPTIMIZER_SGD_MOMENTUM, N_("SGD with momentum") },
  { HR_OPTIMIZER_SGD, N_("SGD") },
  { HR_OPTIMIZER_NONE, N_("None (no optimizer state)") },
  { -1, NULL }
};

static const HrSettingChoice recompute_choices[] = {
  { HR_RECOMPUTE_NONE, N_("None") },
  { HR_RECOMPUTE_SELECTIVE, N_("Selective") },
  { HR_RECOMPUTE_FULL, N_("Full (gradient checkpointing)") },
  { -1, NULL }
};

static const HrSettingChoice attention_choices[] = {
  { HR_ATTENTION_SDPA, N_("SDPA") },
  { HR_ATTENTION_FLASH, N_("FlashAttention") },
  { HR_ATTENTION_EAGER, N_("Eager") },
  { -1, NULL }
};

static const HrSettingChoice loss_choices[] = {
  { HR_LOSS_UPCAST, N_("FP32 logits") },
  { HR_LOSS_CHUNKED, N_("Chunked") },
  { HR_LOSS_FUSED, N_("Fused (Liger, CCE)") },
  { HR_LOSS_SUM, N_("None: the logits' sum (benchmarks)") },
  { HR_LOSS_NATIVE, N_("Logits' own dtype (no upcast)") },
  { -1, NULL }
};

static const HrSettingChoice sharding_choices[] = {
  { HR_SHARDING_NONE, N_("None") },
  { HR_SHARDING_DDP, N_("DDP") },
  { HR_SHARDING_ZERO1, N_("ZeRO-1") },
  { HR_SHARDING_ZERO2, N_("ZeRO-2") },
  { HR_SHARDING_ZERO3, N_("ZeRO-3") },
  { HR_SHARDING_FSDP, N_("FSDP2") },
  { HR_SHARDING_FSDP1, N_("FSDP1") },
  { -1, NULL }
};

static const HrSettingChoice offload_choices[] = {
  { HR_OFFLOAD_NONE, N_("None") },
  { HR_OFFLOAD_OPTIMIZER, N_("Optimizer state") },
  { HR_OFFLOAD_OPTIMIZER_PARAMS, N_("Optimizer and parameters") },
  { HR_OFFLOAD_OPTIMIZER_GRADIENTS, N_("Optimizer and gradients (torchao)") },
  { -1, NULL }
};

static const HrSettingChoice framework_choices[] = {
  { HR_FRAMEWORK_PYTORCH, N_("PyTorch") },
  { HR_FRAMEWORK_JAX, N_("JAX") },
  { -1, NULL }
};

static const HrSettingChoice causal_mask_choices[] = {
  { HR_CAUSAL_MASK_NONE, N_("None (is_causal)") },
  { HR_CAUSAL_MASK_DENSE, N_("Dense buffer (gpt-fast)") },
  { HR_CAUSAL_MASK_LINEAR, N_("Linear (torchao)") },
  { -1, NULL }
};

/* The contract's KV cache types (SCENARIO.md): an fp32 cache is not one. */
static const HrSettingChoice kv_dtype_choices[] = {
  { HR_DTYPE_BF16, N_("BF16") },
  { HR_DTYPE_FP16, N_("FP16") },
  { HR_DTYPE_FP8, N_("FP8") },
  { HR_DTYPE_INT8, N_("INT8") },
  { HR_DTYPE_INT4, N_("INT4") },
  { HR_DTYPE_Q8_0, N_("Q8_0 (llama.cpp)") },
  { HR_DTYPE_Q4_0, N_("Q4_0 (llama.cpp)") },
  { HR_DTYPE_Q4_1, N_("Q4_1 (llama.cpp)") },
  { HR_DTYPE_IQ4_NL, N_("IQ4_NL (llama.cpp)") },
  { HR_DTYPE_Q5_0, N_("Q5_0 (llama.cpp)") },
  { HR_DTYPE_Q5_1, N_("Q5_1 (llama.cpp)") },
  { -1, NULL }
};

/* ---- the table ---- */

/* "pytorch_version" as the releases the estimate tells apart: before
 * 1.1 every input of a derivative formula was saved (hr-arch.c bn),
 * before 1.6 group_norm went through batch_norm, before 1.11 softmax kept
 * its input, before 1.13 CUDA loaded every kernel up front
 * (hr-estimate.c); a choice writes the newest release of its span */
enum {
  TORCH_CURRENT,
  TORCH_1_11,
  TORCH_1_6,
  TORCH_1_1,
  TORCH_1_0,
};

static const HrEnumName torch_release_names[] = {
  { TORCH_CURRENT, "current" },
  { TORCH_1_11, "1.12" },
  { TORCH_1_6, "1.10" },
  { TORCH_1_1, "1.5" },
  { TORCH_1_0, "1.0" },
  { 0, NULL },
};

static const HrSettingChoice torch_release_choices[] = {
  { TORCH_CURRENT, N_("1.13 or later") },
  { TORCH_1_11, N_("1.11 or 1.12") },
  { TORCH_1_6, N_("1.6 to 1.10") },
  { TORCH_1_1, N_("1.1 to 1.5") },
  { TORCH_1_0, N_("1.0 or earlier") },
  { -1, NULL }
};

static double
get_torch_release (const HrSetting  *setting,
                   const HrScenario *s)
{
  if (hr_scenario_pytorch_before (s, 1, 1))
    return TORCH_1_0;
  if (hr_scenario_pytorch_before (s, 1, 6))
    return TORCH_1_1;
  if (hr_scenario_pytorch_before (s, 1, 11))
    return TORCH_1_6;
  if (hr_scenario_pytorch_before (s, 1, 13))
    return TORCH_1_11;
  return TORCH_CURRENT;
}

static void
set_torch_release (const HrSetting *setting,
                   HrScenario      *s,
                   double           value)
{
  static const guint minors[] = {
    [TORCH_1_11] = 12, [TORCH_1_6] = 10, [TORCH_1_1] = 5, [TORCH_1_0] = 0,
  };
  int release = (int) value;

  s->pytorch_version_set = release != TORCH_CURRENT;
  if (s->pytorch_version_set)
    {
      s->pytorch_major = 1;
      s->pytorch_minor = minors[release];
    }
}

/* "transformers_version" by the spans the estimate tells apart: before
 * 4.36 the tuple cache, before 4.45 the prompt's logits in full */
enum {
  TRANSFORMERS_CURRENT,
  TRANSFORMERS_4_36,
  TRANSFORMERS_OLD,
};

static const HrEnumName transformers_release_names[] = {
  { TRANSFORMERS_CURRENT, "current" },
  { TRANSFORMERS_4_36, "4.44" },
  { TRANSFORMERS_OLD, "4.35" },
  { 0, NULL },
};

static const HrSettingChoice transformers_release_choices[] = {
  { TRANSFORMERS_CURRENT, N_("4.45 or later") },
  { TRANSFORMERS_4_36, N_("4.36 to 4.44") },
  { TRANSFORMERS_OLD, N_("4.35 or earlier") },
  { -1, NULL }
};

static double
get_transformers_release (const HrSetting  *setting,
                          const HrScenario *s)
{
  if (hr_scenario_transformers_before (s, 4, 36))
    return TRANSFORMERS_OLD;
  if (hr_scenario_transformers_before (s, 4, 45))
    return TRANSFORMERS_4_36;
  return TRANSFORMERS_CURRENT;
}

static void
set_transformers_release (const HrSetting *setting,
                          HrScenario      *s,
                          double           value)
{
  int release = (int) value;

  s->transformers_version_set = release != TRANSFORMERS_CURRENT;
  s->transformers_major = 4;
  s->transformers_minor = release == TRANSFORMERS_OLD ? 35 : 44;
}

static const HrSettingChoice detection_framework_choices[] = {
  { HR_DETECTION_FRAMEWORK_MMDETECTION, N_("MMDetection") },
  { HR_DETECTION_FRAMEWORK_DETECTRON2, N_("Detectron2") },
  { HR_DETECTION_FRAMEWORK_TORCHVISION, N_("torchvision") },
  { -1, NULL }
};

#define FIELD(f) G_STRUCT_OFFSET (HrScenario, f)
#define NO_FLAG  (-1)

static const HrSetting settings[] = {
  /* Run */
  { .key = "task", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Task"), .names = hr_task_names, .choices = task_choices,
    .offset = FIELD (task), .set_offset = NO_FLAG, .set = set_task },
  { .key = "method", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Method"), .names = hr_method_names, .choices = method_choices,
    .offset = FIELD (method), .set_offset = NO_FLAG, .applies = applies_training,
    .set = set_method },
  { .key = "lora.rank", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("LoRA rank"), .min = 1, .max = 1024, .step = 1, .page = 8,
    .offset = FIELD (lora_rank), .set_offset = NO_FLAG, .applies = applies_lora,
    .set = set_lora_rank },
  { .key = "lora.targets", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("LoRA targets"), .names = hr_lora_targets_names,
    .choices = lora_targets_choices, .offset = FIELD (lora_targets), .set_offset = NO_FLAG,
    .applies = applies_lora, .set = set_lora_targets },
  { .key = "compute", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Precision"), .names = hr_compute_names, .choices = compute_choices,
    .offset = FIELD (compute), .set_offset = NO_FLAG, .set = set_compute },
  { .key = "weights_dtype", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Weights stored as"), .names = hr_weights_dtype_names,
    .choices = weights_choices, .offset = FIELD (weights_dtype),
    .set_offset = FIELD (weights_dtype_set), .applies = applies_weights },
  { .key = "optimizer", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Optimizer"), .names = hr_optimizer_names, .choices = optimizer_choices,
    .offset = FIELD (optimizer), .set_offset = FIELD (optimizer_set),
    .applies = applies_training },
  { .key = "micro_batch", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Micro-batch"), .subtitle = N_("Samples per GPU per step"),
    .min = 1, .max = 65536, .step = 1, .page = 8,
    .offset = FIELD (micro_batch), .set_offset = NO_FLAG },
  { .key = "seq_len", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Sequence length"), .subtitle = N_("Tokens per sample"),
    .min = 1, .max = 1048576, .step = 64, .page = 1024,
    .offset = FIELD (seq_len), .set_offset = FIELD (seq_len_set),
    .applies = hr_scenario_reads_seq_len, .get = get_seq_len },
  { .key = "image_size", .kind = HR_SETTING_SIZE, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Image size"), .min = 8, .max = 16384, .step = 16, .page = 128,
    .offset = FIELD (image_width), .set_offset = FIELD (image_size_set),
    .applies = hr_scenario_reads_image_size },
  /* speech encoders: the clip, as the window shows image_size */
  { .key = "audio_seconds", .kind = HR_SETTING_DOUBLE, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Audio length"), .subtitle = N_("Seconds per clip, the longest in a batch"),
    .min = 0.01, .max = HR_ARCH_MAX_AUDIO_SECONDS, .step = 1, .page = 5, .digits = 1,
    .offset = FIELD (audio_seconds), .set_offset = FIELD (audio_seconds_set),
    .applies = hr_scenario_reads_audio, .get = get_audio_seconds },
  { .key = "sample_rate", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Sample rate"), .subtitle = N_("Hz"),
    .min = 1000, .max = 384000, .step = 1000, .page = 8000,
    .offset = FIELD (sample_rate), .set_offset = NO_FLAG,
    .applies = hr_scenario_reads_audio, .get = get_sample_rate },
  { .key = "context_len", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Context length"), .subtitle = N_("Tokens kept in the KV cache"),
    .min = 1, .max = 1048576, .step = 256, .page = 4096,
    .offset = FIELD (context_len), .set_offset = FIELD (context_len_set),
    .applies = applies_kv_cache, .get = get_context_len },
  { .key = "kv_dtype", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("KV cache stored as"), .names = hr_kv_dtype_names, .choices = kv_dtype_choices,
    .offset = FIELD (kv_dtype), .set_offset = NO_FLAG, .applies = applies_kv_cache },
  { .key = "transformers_version", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("transformers release"),
    .subtitle = N_("Before 4.45 the prompt's logits at every position; before 4.36 two caches "
                   "at each step"),
    .names = transformers_release_names, .choices = transformers_release_choices,
    .offset = NO_FLAG, .set_offset = NO_FLAG, .applies = applies_transformers_generate,
    .get = get_transformers_release, .set = set_transformers_release },
  { .key = "previous_cache_freed", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Previous cache freed"),
    .subtitle = N_("The loop drops each layer's previous KV cache as the layer runs"),
    .offset = FIELD (previous_cache_freed), .set_offset = NO_FLAG,
    .applies = applies_previous_cache },
  { .key = "causal_mask", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Causal mask"), .names = hr_causal_mask_names, .choices = causal_mask_choices,
    .offset = FIELD (causal_mask), .set_offset = NO_FLAG, .applies = applies_kv_cache },
  { .key = "recompute", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Recomputation"), .names = hr_recompute_names, .choices = recompute_choices,
    .offset = FIELD (recompute), .set_offset = NO_FLAG, .applies = applies_training },
  { .key = "attention", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Attention"), .names = hr_attention_names, .choices = attention_choices,
    .offset = FIELD (attention), .set_offset = NO_FLAG,
    .applies = applies_attention },
  { .key = "loss", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Loss"), .names = hr_loss_names, .choices = loss_choices,
    .offset = FIELD (loss), .set_offset = NO_FLAG,
    .applies = hr_scenario_has_vocabulary_loss },
  { .key = "stack", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Stack"), .subtitle = N_("The code that runs it"),
    .names = stack_or_none_names, .choices = stack_choices,
    .offset = FIELD (stack), .set_offset = NO_FLAG, .applies = applies_torch, .get = get_stack,
    .set = set_stack },
  { .key = "optimizer_impl", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Optimizer implementation"), .names = hr_optimizer_impl_names,
    .choices = optimizer_impl_choices, .offset = FIELD (optimizer_impl),
    .set_offset = FIELD (optimizer_impl_set), .applies = applies_optimizer_impl },
  { .key = "optimizer_state_dtype", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Optimizer state dtype"), .names = hr_state_dtype_names,
    .choices = state_dtype_choices, .offset = FIELD (optimizer_state_dtype),
    .set_offset = FIELD (optimizer_state_dtype_set), .applies = applies_training },
  { .key = "optimizer_in_bwd", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Optimizer in backward"),
    .subtitle = N_("Step each parameter as its gradient is ready (torchtune)"),
    .offset = FIELD (optimizer_in_bwd), .set_offset = NO_FLAG,
    .applies = applies_optimizer_in_bwd },
  { .key = "galore_rank", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("GaLore rank"), .subtitle = N_("Rank the gradients are projected to"),
    .min = 1, .max = 65536, .step = 1, .page = 64,
    .offset = FIELD (galore_rank), .set_offset = NO_FLAG, .applies = applies_galore_rank },
  { .key = "apollo_rank", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("APOLLO rank"), .subtitle = N_("Rank of the random projection"),
    .min = 1, .max = 65536, .step = 1, .page = 64,
    .offset = FIELD (apollo_rank), .set_offset = NO_FLAG, .applies = applies_apollo_rank },
  { .key = "int8_weights", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Int8 weights"), .subtitle = N_("Attention and MLP linears held in int8"),
    .offset = FIELD (int8_weights), .set_offset = FIELD (int8_weights_set),
    .applies = hr_scenario_can_int8_weights, .get = get_int8_weights,
    .set = set_int8_weights },
  { .key = "int8_weight_group", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Int8 weight group"), .subtitle = N_("Values per scale and zero point"),
    .min = 1, .max = 1 << 20, .step = 1, .page = 64,
    .offset = FIELD (int8_weight_group), .set_offset = NO_FLAG,
    .applies = applies_int8_weight_group },
  { .key = "activation_offload", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Activation offloading"), .subtitle = N_("Saved activations in host memory"),
    .offset = FIELD (activation_offload), .set_offset = NO_FLAG,
    .applies = applies_torch_training },
  { .key = "compile", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("torch.compile"), .offset = FIELD (compile), .set_offset = NO_FLAG,
    .applies = applies_torch },
  { .key = "packed", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Packed sequences"), .subtitle = N_("Every sample is a full sequence"),
    .offset = FIELD (packed), .set_offset = NO_FLAG, .applies = applies_packed },
  { .key = "capacity_factor", .kind = HR_SETTING_DOUBLE, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Expert capacity factor"),
    .subtitle = N_("Tokens an expert takes, against an even share"),
    .min = 0.01, .max = 64, .step = 0.05, .page = 0.25, .digits = 2,
    .offset = FIELD (capacity_factor), .set_offset = FIELD (capacity_factor_set),
    .applies = applies_capacity_factor },
  { .key = "peft.num_virtual_tokens", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_RUN, .title = N_("Virtual tokens"),
    .min = 1, .max = 1 << 20, .step = 1, .page = 10,
    .offset = FIELD (peft.num_virtual_tokens), .set_offset = NO_FLAG,
    .applies = applies_peft_tokens, .set = set_peft_virtual_tokens },
  { .key = "peft.prefix_projection", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Prefix projection"), .offset = FIELD (peft.prefix_projection),
    .set_offset = NO_FLAG, .applies = applies_prefix, .set = set_peft_projection },
  { .key = "peft.encoder_hidden_size", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_RUN, .title = N_("Prefix encoder width"),
    .min = 1, .max = 1 << 20, .step = 64, .page = 1024,
    .offset = FIELD (peft.encoder_hidden_size), .set_offset = NO_FLAG,
    .applies = applies_prefix_projection, .get = get_peft_encoder_hidden,
    .set = set_peft_encoder_hidden },
  { .key = "peft.block_size", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("OFT block size"), .min = 1, .max = 1 << 16, .step = 1, .page = 8,
    .offset = FIELD (peft.block_size), .set_offset = NO_FLAG, .applies = applies_oft,
    .get = get_peft_block_size, .set = set_peft_block_size },
  { .key = "peft.n_butterfly_factor", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_RUN, .title = N_("Butterfly factor"),
    .min = 0, .max = 64, .step = 1, .page = 2,
    .offset = FIELD (peft.n_butterfly_factor), .set_offset = NO_FLAG,
    .applies = applies_boft, .set = set_peft_butterfly },
  { .key = "peft.decompose_factor", .kind = HR_SETTING_DOUBLE, .group = HR_SETTING_GROUP_RUN,
    .title = N_("LoKr decompose factor"), .subtitle = N_("−1: near the square root"),
    .min = -1, .max = 65536, .step = 1, .page = 8,
    .offset = FIELD (peft.decompose_factor), .set_offset = NO_FLAG, .applies = applies_lokr,
    .get = get_peft_decompose_factor, .set = set_peft_decompose_factor },
  { .key = "peft.decompose_both", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("LoKr: decompose both factors"), .offset = FIELD (peft.decompose_both),
    .set_offset = NO_FLAG, .applies = applies_lokr, .set = set_peft_decompose_both },
  { .key = "peft.init_r", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("AdaLoRA initial rank"), .min = 1, .max = 65536, .step = 1, .page = 4,
    .offset = FIELD (peft.init_r), .set_offset = NO_FLAG, .applies = applies_adalora,
    .set = set_peft_init_r },
  { .key = "engine", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Serving engine"), .names = hr_engine_names, .choices = engine_choices,
    .offset = FIELD (engine), .set_offset = NO_FLAG, .applies = applies_engine,
    .set = set_engine },
  { .key = "gpu_memory_utilization", .kind = HR_SETTING_DOUBLE, .group = HR_SETTING_GROUP_RUN,
    .title = N_("GPU memory utilization"),
    .subtitle = N_("Percent of the card vLLM takes for its pool"),
    .min = 0.01, .max = 1.0, .step = 1, .page = 5, .display_scale = 100,
    .offset = FIELD (gpu_memory_utilization), .set_offset = FIELD (gpu_memory_utilization_set),
    .applies = applies_vllm },
  { .key = "mem_fraction_static", .kind = HR_SETTING_DOUBLE, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Static memory fraction"),
    .subtitle = N_("Percent of the card SGLang keeps for weights and KV cache"),
    .min = 0.01, .max = 1.0, .step = 1, .page = 5, .display_scale = 100,
    .offset = FIELD (mem_fraction_static), .set_offset = FIELD (mem_fraction_static_set),
    .applies = applies_sglang },
  { .key = "max_num_seqs", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Concurrent sequences"), .subtitle = N_("max_num_seqs"),
    .min = 1, .max = 1 << 20, .step = 1, .page = 64,
    .offset = FIELD (max_num_seqs), .set_offset = FIELD (max_num_seqs_set),
    .applies = applies_serving_pool },
  { .key = "block_size", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("KV block size"), .subtitle = N_("Tokens per block of vLLM's cache"),
    .min = 1, .max = 1 << 16, .step = 1, .page = 16,
    .offset = FIELD (block_size), .set_offset = FIELD (block_size_set),
    .applies = applies_vllm },
  { .key = "enforce_eager", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_RUN,
    .title = N_("No CUDA graphs"), .subtitle = N_("enforce_eager"),
    .offset = FIELD (enforce_eager), .set_offset = NO_FLAG, .applies = applies_serving_pool },
  { .key = "compute_type", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("CTranslate2 compute type"),
    .subtitle = N_("The weights' type and the type the rest runs in"),
    .names = hr_ct2_compute_type_names, .choices = ct2_compute_type_choices,
    .offset = FIELD (ct2_compute_type), .set_offset = FIELD (ct2_compute_type_set),
    .applies = applies_ctranslate2, .set = set_ct2_compute_type },
  { .key = "beams", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Beams"), .subtitle = N_("Hypotheses decoded per sequence (beam search)"),
    .min = 1, .max = 1 << 16, .step = 1, .page = 4,
    .offset = FIELD (beams), .set_offset = NO_FLAG, .applies = applies_beams,
    .get = get_beams, .set = set_beams },
  { .key = "gpu_layers", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("GPU layers"), .subtitle = N_("llama.cpp -ngl"),
    .min = 0, .max = 1 << 20, .step = 1, .page = 8,
    .offset = FIELD (gpu_layers), .set_offset = FIELD (gpu_layers_set),
    .applies = applies_llamacpp },

  /* GPUs and Framework */
  { .key = "gpus", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("GPUs per run"), .min = 1, .max = 4096, .step = 1, .page = 8,
    .offset = FIELD (gpus), .set_offset = NO_FLAG },
  { .key = "sharding", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Sharding"), .names = hr_sharding_names, .choices = sharding_choices,
    .offset = FIELD (sharding), .set_offset = NO_FLAG, .applies = applies_training },
  { .key = "reshard_after_forward", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Reshard after forward"),
    .subtitle = N_("Off keeps the model unsharded until the backward pass"),
    .offset = FIELD (reshard_after_forward), .set_offset = FIELD (reshard_after_forward_set),
    .applies = applies_fsdp },
  { .key = "tensor_parallel", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Tensor parallel"), .subtitle = N_("GPUs each layer is split over"),
    .min = 1, .max = 4096, .step = 1, .page = 2,
    .offset = FIELD (tensor_parallel), .set_offset = NO_FLAG,
    .applies = applies_tensor_parallel },
  { .key = "sequence_parallel", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Sequence parallel"), .subtitle = N_("Split norms and dropout too"),
    .offset = FIELD (sequence_parallel), .set_offset = NO_FLAG,
    .applies = applies_sequence_parallel },
  { .key = "pipeline_parallel", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Pipeline stages"), .min = 1, .max = 4096, .step = 1, .page = 2,
    .offset = FIELD (pipeline_parallel), .set_offset = NO_FLAG,
    .applies = applies_tensor_parallel },
  { .key = "pipeline_schedule", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Pipeline schedule"), .names = hr_pipeline_schedule_names,
    .choices = pipeline_schedule_choices, .offset = FIELD (pipeline_schedule),
    .set_offset = NO_FLAG, .applies = applies_pipeline_schedule },
  { .key = "virtual_stages", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Virtual stages"), .subtitle = N_("Model chunks per pipeline GPU"),
    .min = 1, .max = 1024, .step = 1, .page = 2,
    .offset = FIELD (virtual_stages), .set_offset = NO_FLAG,
    .applies = applies_virtual_stages, .set = set_virtual_stages },
  { .key = "context_parallel", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Context parallel"), .subtitle = N_("GPUs each sequence is split over"),
    .min = 1, .max = 4096, .step = 1, .page = 2,
    .offset = FIELD (context_parallel), .set_offset = NO_FLAG,
    .applies = applies_context_parallel },
  { .key = "expert_parallel", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Expert parallel"), .subtitle = N_("GPUs the experts are split over"),
    .min = 1, .max = 4096, .step = 1, .page = 2,
    .offset = FIELD (expert_parallel), .set_offset = NO_FLAG,
    .applies = applies_expert_parallel },
  { .key = "deepspeed.stage3_max_live_parameters", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO-3 max live parameters"),
    .min = 0, .max = 1e15, .step = 1e7, .page = 1e8,
    .offset = FIELD (deepspeed.max_live_parameters), .set_offset = NO_FLAG,
    .applies = applies_zero3, .get = get_ds_max_live, .set = set_ds_max_live },
  { .key = "deepspeed.stage3_prefetch_bucket_size", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO-3 prefetch bucket"),
    .min = 0, .max = 1e15, .step = 1e6, .page = 1e7,
    .offset = FIELD (deepspeed.prefetch_bucket_size), .set_offset = NO_FLAG,
    .applies = applies_zero3, .get = get_ds_prefetch, .set = set_ds_prefetch },
  { .key = "deepspeed.stage3_param_persistence_threshold", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO-3 persistence threshold"),
    .min = 0, .max = 1e15, .step = 1e4, .page = 1e5,
    .offset = FIELD (deepspeed.param_persistence_threshold), .set_offset = NO_FLAG,
    .applies = applies_zero3, .get = get_ds_persistence, .set = set_ds_persistence },
  { .key = "deepspeed.stage3_max_reuse_distance", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO-3 max reuse distance"),
    .min = 0, .max = 1e15, .step = 1e7, .page = 1e8,
    .offset = FIELD (deepspeed.max_reuse_distance), .set_offset = NO_FLAG,
    .applies = applies_zero3, .get = get_ds_reuse, .set = set_ds_reuse },
  { .key = "deepspeed.sub_group_size", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO-3 sub-group size"),
    .min = 0, .max = 1e15, .step = 1e7, .page = 1e8,
    .offset = FIELD (deepspeed.sub_group_size), .set_offset = NO_FLAG,
    .applies = applies_zero3, .get = get_ds_sub_group, .set = set_ds_sub_group },
  { .key = "deepspeed.reduce_bucket_size", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO reduce bucket"),
    .min = 0, .max = 1e15, .step = 1e6, .page = 1e7,
    .offset = FIELD (deepspeed.reduce_bucket_size), .set_offset = NO_FLAG,
    .applies = applies_zero, .get = get_ds_reduce, .set = set_ds_reduce },
  { .key = "deepspeed.allgather_bucket_size", .kind = HR_SETTING_UNSIGNED,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO all-gather bucket"),
    .min = 0, .max = 1e15, .step = 1e6, .page = 1e7,
    .offset = FIELD (deepspeed.allgather_bucket_size), .set_offset = NO_FLAG,
    .applies = applies_zero, .get = get_ds_allgather, .set = set_ds_allgather },
  { .key = "deepspeed.offload_param", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("ZeRO-3 parameter offload"), .names = hr_offload_device_names,
    .choices = offload_device_choices, .offset = FIELD (deepspeed.offload_param),
    .set_offset = NO_FLAG, .applies = applies_zero3, .set = set_ds_offload_param },
  { .key = "deepspeed.offload_optimizer", .kind = HR_SETTING_ENUM,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO optimizer offload"),
    .names = hr_offload_device_names, .choices = offload_device_choices,
    .offset = FIELD (deepspeed.offload_optimizer), .set_offset = NO_FLAG,
    .applies = applies_zero, .set = set_ds_offload_optimizer },
  { .key = "deepspeed.overlap_comm", .kind = HR_SETTING_BOOLEAN,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO: overlap communication"),
    .offset = FIELD (deepspeed.overlap_comm), .set_offset = NO_FLAG,
    .applies = applies_zero, .set = set_ds_overlap_comm },
  { .key = "deepspeed.contiguous_gradients", .kind = HR_SETTING_BOOLEAN,
    .group = HR_SETTING_GROUP_SCALE, .title = N_("ZeRO: contiguous gradients"),
    .offset = FIELD (deepspeed.contiguous_gradients), .set_offset = NO_FLAG,
    .applies = applies_zero, .set = set_ds_contiguous },
  { .key = "offload", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("CPU offload"), .names = hr_offload_names, .choices = offload_choices,
    .offset = FIELD (offload), .set_offset = NO_FLAG, .applies = applies_training },
  { .key = "framework", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Framework"), .names = hr_framework_names, .choices = framework_choices,
    .offset = FIELD (framework), .set_offset = FIELD (framework_set) },
  { .key = "pytorch_version", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("PyTorch release"),
    .subtitle = N_("Older releases saved more for the backward pass and loaded every CUDA kernel "
                   "up front"),
    .names = torch_release_names, .choices = torch_release_choices, .offset = NO_FLAG,
    .set_offset = NO_FLAG, .applies = applies_torch, .get = get_torch_release,
    .set = set_torch_release },
  { .key = "detection_framework", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Detection library"),
    .subtitle = N_("Whose code trains the detector: its BatchNorm, losses and targets"),
    .names = hr_detection_framework_names, .choices = detection_framework_choices,
    .offset = FIELD (detection_framework), .set_offset = FIELD (detection_framework_set),
    .applies = applies_detection },
  { .key = "jax_preallocate", .kind = HR_SETTING_BOOLEAN, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("XLA preallocation"),
    .subtitle = N_("JAX takes its whole pool at start (XLA_PYTHON_CLIENT_PREALLOCATE)"),
    .offset = FIELD (jax_preallocate), .set_offset = NO_FLAG, .applies = applies_jax },
  /* XLA_PYTHON_CLIENT_MEM_FRACTION: the BFC allocator's limit as a share
   * of the card, 0.75 unless set (openxla/xla GpuAllocatorConfig
   * memory_fraction = 0.75; JAX docs, "GPU memory allocation"). */
  { .key = "jax_mem_fraction", .kind = HR_SETTING_DOUBLE, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("XLA memory fraction"),
    .subtitle = N_("Percent of the card XLA's pool may use (XLA_PYTHON_CLIENT_MEM_FRACTION)"),
    .min = 0.05, .max = 1.0, .step = 1, .page = 5, .display_scale = 100,
    .offset = FIELD (jax_mem_fraction), .set_offset = NO_FLAG, .applies = applies_jax,
    .json = TRUE, .default_value = 0.75 },
  { .key = "reserve", .kind = HR_SETTING_DOUBLE, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Reserve"), .subtitle = N_("Percent of each card kept free"),
    .min = 0, .max = 0.5, .step = 1, .page = 5, .display_scale = 100,
    .offset = FIELD (reserve), .set_offset = NO_FLAG },
};

#undef FIELD
#undef NO_FLAG

const HrSetting *
hr_settings_get_all (guint *n_settings)
{
  if (n_settings != NULL)
    *n_settings = G_N_ELEMENTS (settings);
  return settings;
}

const HrSetting *
hr_setting_find (const char *key)
{
  g_return_val_if_fail (key != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    if (g_str_equal (settings[i].key, key))
      return &settings[i];
  return NULL;
}

gboolean
hr_setting_applies (const HrSetting  *setting,
                    const HrScenario *scenario)
{
  g_return_val_if_fail (setting != NULL && scenario != NULL, FALSE);

  return setting->applies == NULL || setting->applies (scenario);
}

#define AT(type, s, offset) ((type *) (gpointer) ((guint8 *) (s) + (offset)))

double
hr_setting_get (const HrSetting  *setting,
                const HrScenario *scenario)
{
  g_return_val_if_fail (setting != NULL && scenario != NULL, 0);

  if (setting->get != NULL)
    return setting->get (setting, scenario);

  switch (setting->kind)
    {
    case HR_SETTING_ENUM:
      return *AT (const int, scenario, setting->offset);
    case HR_SETTING_UNSIGNED:
    case HR_SETTING_SIZE:
      return *AT (const guint, scenario, setting->offset);
    case HR_SETTING_DOUBLE:
      return *AT (const double, scenario, setting->offset);
    case HR_SETTING_BOOLEAN:
      return *AT (const gboolean, scenario, setting->offset) ? 1 : 0;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
enum_has_value (const HrSetting *setting,
                int              value)
{
  for (guint i = 0; setting->names[i].nick != NULL; i++)
    if (setting->names[i].value == value)
      return TRUE;
  /* a choice the JSON writes otherwise (LoRA's list of modules) */
  for (guint i = 0; setting->choices != NULL && setting->choices[i].label != NULL; i++)
    if (setting->choices[i].value == value)
      return TRUE;
  return FALSE;
}

void
hr_setting_set (const HrSetting *setting,
                HrScenario      *scenario,
                double           value)
{
  g_return_if_fail (setting != NULL && scenario != NULL);
  g_return_if_fail (setting->kind != HR_SETTING_SIZE);

  if (setting->kind == HR_SETTING_ENUM)
    g_return_if_fail (enum_has_value (setting, (int) value));
  else if (setting->kind == HR_SETTING_UNSIGNED || setting->kind == HR_SETTING_DOUBLE)
    value = CLAMP (value, setting->min, setting->max);

  if (setting->set != NULL)
    setting->set (setting, scenario, value);
  else
    {
      switch (setting->kind)
        {
        case HR_SETTING_ENUM:
          *AT (int, scenario, setting->offset) = (int) value;
          break;
        case HR_SETTING_UNSIGNED:
          *AT (guint, scenario, setting->offset) = (guint) llround (value);
          break;
        case HR_SETTING_DOUBLE:
          *AT (double, scenario, setting->offset) = value;
          break;
        case HR_SETTING_BOOLEAN:
          *AT (gboolean, scenario, setting->offset) = value != 0;
          break;
        case HR_SETTING_SIZE:
        default:
          g_assert_not_reached ();
        }
      if (setting->set_offset >= 0)
        *AT (gboolean, scenario, setting->set_offset) = TRUE;
    }

  hr_scenario_resolve (scenario);
}

void
hr_setting_get_size (const HrSetting  *setting,
                     const HrScenario *scenario,
                     guint            *width,
                     guint            *height)
{
  g_return_if_fail (setting != NULL && setting->kind == HR_SETTING_SIZE);

  /* the resolved size: the scenario's, else the model's */
  hr_scenario_get_image_size (scenario, width, height);
}

void
hr_setting_set_size (const HrSetting *setting,
                     HrScenario      *scenario,
                     guint            width,
                     guint            height)
{
  g_return_if_fail (setting != NULL && setting->kind == HR_SETTING_SIZE);

  AT (guint, scenario, setting->offset)[0] = CLAMP (width, setting->min, setting->max);
  AT (guint, scenario, setting->offset)[1] = CLAMP (height, setting->min, setting->max);
  if (setting->set_offset >= 0)
    *AT (gboolean, scenario, setting->set_offset) = TRUE;
  hr_scenario_resolve (scenario);
}

/* ---- a model change ---- */

/* Puts @fresh's value of @setting (and its "set by the file" mark) in
 * @scenario. */
static void
reset_setting (const HrSetting  *setting,
               HrScenario       *scenario,
               const HrScenario *fresh)
{
  if (setting->set != NULL)
    {
      setting->set (setting, scenario, hr_setting_get (setting, fresh));
      return;
    }
  switch (setting->kind)
    {
    case HR_SETTING_ENUM:
      *AT (int, scenario, setting->offset) = *AT (const int, fresh, setting->offset);
      break;
    case HR_SETTING_UNSIGNED:
      *AT (guint, scenario, setting->offset) = *AT (const guint, fresh, setting->offset);
      break;
    case HR_SETTING_DOUBLE:
      *AT (double, scenario, setting->offset) = *AT (const double, fresh, setting->offset);
      break;
    case HR_SETTING_BOOLEAN:
      *AT (gboolean, scenario, setting->offset) = *AT (const gboolean, fresh, setting->offset);
      break;
    case HR_SETTING_SIZE:
      AT (guint, scenario, setting->offset)[0] = AT (const guint, fresh, setting->offset)[0];
      AT (guint, scenario, setting->offset)[1] = AT (const guint, fresh, setting->offset)[1];
      break;
    default:
      g_assert_not_reached ();
    }
  if (setting->set_offset >= 0)
    *AT (gboolean, scenario, setting->set_offset) = *AT (const gboolean, fresh,
                                                         setting->set_offset);
}

static void
add_reset (GArray           *resets,
           const HrSetting  *setting,
           HrSettingResetWhy why,
           guint             modules)
{
  HrSettingReset reset = { setting, why, modules };

  if (resets != NULL)
    g_array_append_val (resets, reset);
}

HrScenario *
hr_scenario_change_model (const HrScenario *scenario,
                          const HrModel    *model,
                          GArray           *resets)
{
  g_autoptr(HrScenario) fresh = NULL;
  HrScenario *s;

  g_return_val_if_fail (scenario != NULL && model != NULL, NULL);

  fresh = hr_scenario_new_for_model (model);
  s = hr_scenario_copy (scenario);
  hr_model_free (s->model);
  s->model = hr_model_copy (model);
  s->model_inline = FALSE;
  /* What counted the old model's parameters or named its parts by index
   * says nothing of the new one. */
  s->trainable_params_set = FALSE;
  s->trainable_params = fresh->trainable_params;
  memset (s->part_dtype, 0, sizeof s->part_dtype);

  /* A model that names its own recipe (its method, its precision: the
   * catalog's "method" and "compute") brings it, as opening it does. */
  if (model->has_method && s->method != model->method)
    {
      s->method = model->method;
      add_reset (resets, hr_setting_find ("method"), HR_SETTING_RESET_MODEL_RECIPE, 0);
    }
  if (model->has_compute && s->compute != model->compute)
    {
      s->compute = model->compute;
      add_reset (resets, hr_setting_find ("compute"), HR_SETTING_RESET_MODEL_RECIPE, 0);
    }
  hr_scenario_resolve (s);

  /* Every other setting stays while it still applies; one that applied
   * and no longer does takes the new model's default.  In table order,
   * since whether a setting applies follows from those before it. */
  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    {
      const HrSetting *setting = &settings[i];

      if (hr_setting_applies (setting, scenario) && !hr_setting_applies (setting, s))
        {
          reset_setting (setting, s, fresh);
          add_reset (resets, setting, HR_SETTING_RESET_NOT_APPLICABLE, 0);
        }
      else if (g_str_equal (setting->key, "lora.targets") && hr_setting_applies (setting, s)
               && s->lora_targets == HR_LORA_TARGETS_CUSTOM)
        {
          guint missing = hr_model_missing_lora_modules (model, s->lora_modules);

          if (missing != 0)
            {
              s->lora_targets = fresh->lora_targets;
              s->lora_modules = fresh->lora_modules;
              add_reset (resets, setting, HR_SETTING_RESET_MISSING_MODULES, missing);
            }
        }
      hr_scenario_resolve (s);
    }
  return s;
}

#undef AT

char *
hr_setting_format_set (const HrSetting *setting,
                       double           value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (setting != NULL, NULL);

  switch (setting->kind)
    {
    case HR_SETTING_ENUM:
      return g_strdup_printf ("%s=%s", setting->key,
                              hr_enum_to_nick (setting->names, (int) value));
    case HR_SETTING_UNSIGNED:
    case HR_SETTING_SIZE:
      return g_strdup_printf ("%s=%.0f", setting->key, value);
    case HR_SETTING_DOUBLE:
      /* locale-free: --set reads it back */
      return g_strdup_printf ("%s=%s", setting->key,
                              g_ascii_formatd (buffer, sizeof buffer, "%g", value));
    case HR_SETTING_BOOLEAN:
      return g_strdup_printf ("%s=%s", setting->key, value != 0 ? "true" : "false");
    default:
      g_assert_not_reached ();
    }
}

guint
hr_setting_n_choices (const HrSetting *setting)
{
  guint n = 0;

  g_return_val_if_fail (setting != NULL && setting->choices != NULL, 0);

  while (setting->choices[n].label != NULL)
    n++;
  return n;
}

guint
hr_setting_choice_index (const HrSetting *setting,
                         int              value)
{
  g_return_val_if_fail (setting != NULL && setting->choices != NULL, 0);

  for (guint i = 0; setting->choices[i].label != NULL; i++)
    if (setting->choices[i].value == value)
      return i;
  return 0;
}

const char *
hr_setting_choice_label (const HrSetting *setting,
                         int              value)
{
  g_return_val_if_fail (setting != NULL && setting->choices != NULL, "");

  for (guint i = 0; setting->choices[i].label != NULL; i++)
    if (setting->choices[i].value == value)
      return _(setting->choices[i].label);
  return "";
}

/* ---- the JSON side ---- */

void
hr_settings_apply_defaults (HrScenario *scenario)
{
  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    {
      const HrSetting *setting = &settings[i];

      if (!setting->json)
        continue;
      switch (setting->kind)
        {
        case HR_SETTING_ENUM:
          *(int *) (gpointer) ((guint8 *) scenario + setting->offset) =
            (int) setting->default_value;
          break;
        case HR_SETTING_UNSIGNED:
          *(guint *) (gpointer) ((guint8 *) scenario + setting->offset) =
            (guint) setting->default_value;
          break;
        case HR_SETTING_DOUBLE:
          *(double *) (gpointer) ((guint8 *) scenario + setting->offset) =
            setting->default_value;
          break;
        case HR_SETTING_BOOLEAN:
          *(gboolean *) (gpointer) ((guint8 *) scenario + setting->offset) =
            setting->default_value != 0;
          break;
        case HR_SETTING_SIZE:
        default:
          g_assert_not_reached ();
        }
    }
}

void
hr_settings_add_json_keys (GPtrArray *keys)
{
  g_return_if_fail (keys != NULL);

  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    if (settings[i].json)
      g_ptr_array_add (keys, (gpointer) settings[i].key);
}

gboolean
hr_settings_read (HrReader   *reader,
                  HrScenario *scenario)
{
  g_return_val_if_fail (reader != NULL && scenario != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    {
      const HrSetting *setting = &settings[i];
      gpointer field = (guint8 *) scenario + setting->offset;

      if (!setting->json || !hr_reader_has (reader, setting->key))
        continue;

      switch (setting->kind)
        {
        case HR_SETTING_ENUM:
          if (!hr_reader_enum (reader, setting->key, setting->names, field))
            return FALSE;
          break;
        case HR_SETTING_UNSIGNED:
          {
            guint64 value = *(guint *) field;

            if (!hr_reader_uint (reader, setting->key, FALSE, (guint64) setting->min,
                                 (guint64) setting->max, &value))
              return FALSE;
            *(guint *) field = (guint) value;
          }
          break;
        case HR_SETTING_DOUBLE:
          if (!hr_reader_double (reader, setting->key, FALSE, setting->min, setting->max, field))
            return FALSE;
          break;
        case HR_SETTING_BOOLEAN:
          if (!hr_reader_bool (reader, setting->key, field))
            return FALSE;
          break;
        case HR_SETTING_SIZE:
        default:
          g_assert_not_reached ();
        }
      if (setting->set_offset >= 0)
        *(gboolean *) (gpointer) ((guint8 *) scenario + setting->set_offset) = TRUE;
    }
  return TRUE;
}

void
hr_settings_write (JsonBuilder      *builder,
                   const HrScenario *scenario)
{
  g_return_if_fail (builder != NULL && scenario != NULL);

  for (guint i = 0; i < G_N_ELEMENTS (settings); i++)
    {
      const HrSetting *setting = &settings[i];
      double value = hr_setting_get (setting, scenario);
      gboolean set = setting->set_offset >= 0 &&
                     *(const gboolean *) (gconstpointer) ((const guint8 *) scenario +
                                                          setting->set_offset);

      /* what the user chose and nothing more */
      if (!setting->json || (!set && value == setting->default_value))
        continue;

      json_builder_set_member_name (builder, setting->key);
      switch (setting->kind)
        {
        case HR_SETTING_ENUM:
          json_builder_add_string_value (builder, hr_enum_to_nick (setting->names, (int) value));
          break;
        case HR_SETTING_UNSIGNED:
          json_builder_add_int_value (builder, (gint64) value);
          break;
        case HR_SETTING_DOUBLE:
          json_builder_add_double_value (builder, value);
          break;
        case HR_SETTING_BOOLEAN:
          json_builder_add_boolean_value (builder, value != 0);
          break;
        case HR_SETTING_SIZE:
        default:
          g_assert_not_reached ();
        }
    }
}
