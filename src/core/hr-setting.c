/* hr-setting.c: the scenario's settings as data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-setting"

#include <glib/gi18n-lib.h>
#include <math.h>

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
  gboolean llm = g_strcmp0 (s->model->family, "llm") == 0;
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

/* ---- accessors where others follow ---- */

static double
get_seq_len (const HrSetting  *setting,
             const HrScenario *s)
{
  return hr_scenario_get_seq_len (s);
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
  s->lora_targets = (HrLoraTargets) value;
  s->lora_set = TRUE;
}

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
  { -1, NULL }
};

static const HrSettingChoice compute_choices[] = {
  { HR_COMPUTE_BF16_MIXED, N_("BF16 mixed") },
  { HR_COMPUTE_FP16_MIXED, N_("FP16 mixed") },
  { HR_COMPUTE_BF16_PURE, N_("Pure BF16") },
  { HR_COMPUTE_FP16_PURE, N_("Pure FP16") },
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
  { -1, NULL }
};

static const HrSettingChoice framework_choices[] = {
  { HR_FRAMEWORK_PYTORCH, N_("PyTorch") },
  { HR_FRAMEWORK_JAX, N_("JAX") },
  { -1, NULL }
};

/* The contract's KV cache types (SCENARIO.md): an fp32 cache is not one. */
static const HrSettingChoice kv_dtype_choices[] = {
  { HR_DTYPE_BF16, N_("BF16") },
  { HR_DTYPE_FP16, N_("FP16") },
  { HR_DTYPE_FP8, N_("FP8") },
  { HR_DTYPE_INT8, N_("INT8") },
  { HR_DTYPE_INT4, N_("INT4") },
  { -1, NULL }
};

/* ---- the table ---- */

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
  { .key = "context_len", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Context length"), .subtitle = N_("Tokens kept in the KV cache"),
    .min = 1, .max = 1048576, .step = 256, .page = 4096,
    .offset = FIELD (context_len), .set_offset = FIELD (context_len_set),
    .applies = applies_kv_cache, .get = get_context_len },
  { .key = "kv_dtype", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("KV cache stored as"), .names = hr_kv_dtype_names, .choices = kv_dtype_choices,
    .offset = FIELD (kv_dtype), .set_offset = NO_FLAG, .applies = applies_kv_cache },
  { .key = "recompute", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Recomputation"), .names = hr_recompute_names, .choices = recompute_choices,
    .offset = FIELD (recompute), .set_offset = NO_FLAG, .applies = applies_training },
  { .key = "attention", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Attention"), .names = hr_attention_names, .choices = attention_choices,
    .offset = FIELD (attention), .set_offset = NO_FLAG,
    .applies = hr_scenario_has_transformer },
  { .key = "loss", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_RUN,
    .title = N_("Loss"), .names = hr_loss_names, .choices = loss_choices,
    .offset = FIELD (loss), .set_offset = NO_FLAG,
    .applies = hr_scenario_has_vocabulary_loss },

  /* GPUs and Framework */
  { .key = "gpus", .kind = HR_SETTING_UNSIGNED, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("GPUs per run"), .min = 1, .max = 4096, .step = 1, .page = 8,
    .offset = FIELD (gpus), .set_offset = NO_FLAG },
  { .key = "sharding", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Sharding"), .names = hr_sharding_names, .choices = sharding_choices,
    .offset = FIELD (sharding), .set_offset = NO_FLAG, .applies = applies_training },
  { .key = "offload", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("CPU offload"), .names = hr_offload_names, .choices = offload_choices,
    .offset = FIELD (offload), .set_offset = NO_FLAG, .applies = applies_training },
  { .key = "framework", .kind = HR_SETTING_ENUM, .group = HR_SETTING_GROUP_SCALE,
    .title = N_("Framework"), .names = hr_framework_names, .choices = framework_choices,
    .offset = FIELD (framework), .set_offset = FIELD (framework_set) },
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
