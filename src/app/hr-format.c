/* hr-format.c: numbers, units and choices as the window shows them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "hr-format.h"

static double
unit_divisor (HrUnit unit)
{
  return unit == HR_UNIT_GB ? 1e9 : 1073741824.0;
}

static const char *
unit_name (HrUnit unit)
{
  /* TRANSLATORS: units of memory; keep the symbols unless your language
   * writes them differently. */
  return unit == HR_UNIT_GB ? _("GB") : _("GiB");
}

/* Two decimals below 10, one above: the precision the estimate has. */
static int
decimals_for (double value)
{
  return fabs (value) < 10 ? 2 : 1;
}

char *
hr_format_bytes (double bytes,
                 HrUnit unit)
{
  double v = bytes / unit_divisor (unit);

  /* printf follows LC_NUMERIC, which GTK set from the desktop's locale:
   * 14,2 GiB in German.  Nothing here is ever parsed back. */
  return g_strdup_printf ("%.*f %s", decimals_for (v), v, unit_name (unit));
}

char *
hr_format_bytes_range (double low,
                       double high,
                       HrUnit unit)
{
  double l = low / unit_divisor (unit);
  double h = high / unit_divisor (unit);
  int d = decimals_for (h);

  return g_strdup_printf ("%.*f–%.*f %s", d, l, d, h, unit_name (unit));
}

char *
hr_format_price (double usd)
{
  g_autofree char *digits = NULL;
  GString *out;
  guint64 whole;
  int len;

  if (usd < 0)
    return NULL;

  whole = (guint64) (usd + 0.5);
  digits = g_strdup_printf ("%" G_GUINT64_FORMAT, whole);
  len = strlen (digits);
  out = g_string_new ("$");
  for (int i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
hr_format_params (guint64 params)
{
  double p = (double) params;

  if (p >= 1e9)
    return g_strdup_printf (_("%.1f B"), p / 1e9);
  if (p >= 1e6)
    return g_strdup_printf (_("%.0f M"), p / 1e6);
  if (p >= 1e3)
    return g_strdup_printf (_("%.0f K"), p / 1e3);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, params);
}

const HrChoice hr_task_choices[] = {
  { HR_TASK_TRAIN, N_("Train from scratch") },
  { HR_TASK_FINETUNE, N_("Fine-tune") },
  { HR_TASK_INFERENCE, N_("Inference") },
  { -1, NULL }
};

const HrChoice hr_method_choices[] = {
  { HR_METHOD_FULL, N_("Full") },
  { HR_METHOD_FREEZE, N_("Frozen parts") },
  { HR_METHOD_LORA, N_("LoRA") },
  { HR_METHOD_QLORA, N_("QLoRA (4-bit base)") },
  { -1, NULL }
};

const HrChoice hr_lora_targets_choices[] = {
  { HR_LORA_TARGETS_ALL_LINEAR, N_("All linear layers") },
  { HR_LORA_TARGETS_ATTENTION, N_("Attention only") },
  { -1, NULL }
};

const HrChoice hr_compute_choices[] = {
  { HR_COMPUTE_BF16_MIXED, N_("BF16 mixed") },
  { HR_COMPUTE_FP16_MIXED, N_("FP16 mixed") },
  { HR_COMPUTE_BF16_PURE, N_("Pure BF16") },
  { HR_COMPUTE_TF32, N_("TF32") },
  { HR_COMPUTE_FP32, N_("FP32") },
  { -1, NULL }
};

const HrChoice hr_weights_choices[] = {
  { HR_DTYPE_BF16, N_("BF16") },
  { HR_DTYPE_FP16, N_("FP16") },
  { HR_DTYPE_FP32, N_("FP32") },
  { HR_DTYPE_FP8, N_("FP8") },
  { HR_DTYPE_INT8, N_("INT8") },
  { HR_DTYPE_NF4, N_("NF4 (4-bit)") },
  { HR_DTYPE_INT4, N_("INT4") },
  { -1, NULL }
};

const HrChoice hr_optimizer_choices[] = {
  { HR_OPTIMIZER_ADAMW, N_("AdamW") },
  { HR_OPTIMIZER_ADAM, N_("Adam") },
  { HR_OPTIMIZER_ADAMW_8BIT, N_("8-bit AdamW") },
  { HR_OPTIMIZER_PAGED_ADAMW_8BIT, N_("Paged 8-bit AdamW") },
  { HR_OPTIMIZER_ADAFACTOR, N_("Adafactor") },
  { HR_OPTIMIZER_LION, N_("Lion") },
  { HR_OPTIMIZER_SGD_MOMENTUM, N_("SGD with momentum") },
  { HR_OPTIMIZER_SGD, N_("SGD") },
  { -1, NULL }
};

const HrChoice hr_recompute_choices[] = {
  { HR_RECOMPUTE_NONE, N_("None") },
  { HR_RECOMPUTE_SELECTIVE, N_("Selective") },
  { HR_RECOMPUTE_FULL, N_("Full (gradient checkpointing)") },
  { -1, NULL }
};

const HrChoice hr_attention_choices[] = {
  { HR_ATTENTION_SDPA, N_("SDPA") },
  { HR_ATTENTION_FLASH, N_("FlashAttention") },
  { HR_ATTENTION_EAGER, N_("Eager") },
  { -1, NULL }
};

const HrChoice hr_loss_choices[] = {
  { HR_LOSS_UPCAST, N_("FP32 logits") },
  { HR_LOSS_CHUNKED, N_("Chunked") },
  { HR_LOSS_FUSED, N_("Fused (Liger, CCE)") },
  { -1, NULL }
};

const HrChoice hr_sharding_choices[] = {
  { HR_SHARDING_NONE, N_("None") },
  { HR_SHARDING_DDP, N_("DDP") },
  { HR_SHARDING_ZERO1, N_("ZeRO-1") },
  { HR_SHARDING_ZERO2, N_("ZeRO-2") },
  { HR_SHARDING_ZERO3, N_("ZeRO-3") },
  { HR_SHARDING_FSDP, N_("FSDP") },
  { -1, NULL }
};

const HrChoice hr_offload_choices[] = {
  { HR_OFFLOAD_NONE, N_("None") },
  { HR_OFFLOAD_OPTIMIZER, N_("Optimizer state") },
  { HR_OFFLOAD_OPTIMIZER_PARAMS, N_("Optimizer and parameters") },
  { -1, NULL }
};

const HrChoice hr_framework_choices[] = {
  { HR_FRAMEWORK_PYTORCH, N_("PyTorch") },
  { HR_FRAMEWORK_JAX, N_("JAX") },
  { -1, NULL }
};

const HrChoice hr_kv_dtype_choices[] = {
  { HR_DTYPE_BF16, N_("BF16") },
  { HR_DTYPE_FP16, N_("FP16") },
  { HR_DTYPE_FP8, N_("FP8") },
  { HR_DTYPE_INT8, N_("INT8") },
  { HR_DTYPE_FP32, N_("FP32") },
  { -1, NULL }
};

guint
hr_choice_count (const HrChoice *choices)
{
  guint n = 0;

  while (choices[n].label != NULL)
    n++;
  return n;
}

guint
hr_choice_index (const HrChoice *choices,
                 int             value)
{
  for (guint i = 0; choices[i].label != NULL; i++)
    if (choices[i].value == value)
      return i;
  return 0;
}

int
hr_choice_value (const HrChoice *choices,
                 guint           index)
{
  g_return_val_if_fail (index < hr_choice_count (choices), choices[0].value);
  return choices[index].value;
}

const char *
hr_choice_label (const HrChoice *choices,
                 int             value)
{
  for (guint i = 0; choices[i].label != NULL; i++)
    if (choices[i].value == value)
      return _(choices[i].label);
  return "";
}

/* The picker's groups, in order; detectors and segmenters share one. */
static const struct {
  const char *family;
  int         order;
  const char *label;
} families[] = {
  { "llm", 0, N_("Language models") },
  { "vla", 1, N_("Vision-language-action policies") },
  { "world-model", 2, N_("World models") },
  { "encoder", 3, N_("Encoders and vision transformers") },
  { "cnn", 4, N_("Convolutional networks") },
  { "detection", 5, N_("Detection and segmentation") },
  { "segmentation", 5, N_("Detection and segmentation") },
  { "diffusion", 6, N_("Image diffusion") },
  { "video", 7, N_("Video diffusion") },
};

int
hr_family_order (const char *family)
{
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_strcmp0 (family, families[i].family) == 0)
      return families[i].order;
  return 8;
}

const char *
hr_family_label (const char *family)
{
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_strcmp0 (family, families[i].family) == 0)
      return _(families[i].label);
  return _("Other models");
}

const char *
hr_tier_label (HrGpuTier tier)
{
  switch (tier)
    {
    case HR_GPU_TIER_CONSUMER:
      return _("Consumer");
    case HR_GPU_TIER_WORKSTATION:
      return _("Workstation");
    case HR_GPU_TIER_DATACENTER:
      return _("Data centre");
    default:
      return "";
    }
}
