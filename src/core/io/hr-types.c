/* hr-types.c: names of enumerations and bytes per element
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-types"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-types.h"

const HrEnumName hr_task_names[] = {
  { HR_TASK_TRAIN, "train" },
  { HR_TASK_FINETUNE, "finetune" },
  { HR_TASK_INFERENCE, "inference" },
  { 0, NULL },
};

const HrEnumName hr_method_names[] = {
  { HR_METHOD_FULL, "full" },
  { HR_METHOD_FREEZE, "freeze" },
  { HR_METHOD_LORA, "lora" },
  { HR_METHOD_QLORA, "qlora" },
  { HR_METHOD_DORA, "dora" },
  { HR_METHOD_VERA, "vera" },
  { HR_METHOD_IA3, "ia3" },
  { HR_METHOD_LOHA, "loha" },
  { HR_METHOD_LOKR, "lokr" },
  { HR_METHOD_OFT, "oft" },
  { HR_METHOD_BOFT, "boft" },
  { HR_METHOD_PREFIX, "prefix" },
  { HR_METHOD_PROMPT, "prompt" },
  { HR_METHOD_LAYERNORM, "layernorm" },
  { HR_METHOD_LORA_FA, "lora-fa" },
  { HR_METHOD_ADALORA, "adalora" },
  { 0, NULL },
};

const HrEnumName hr_lora_targets_names[] = {
  { HR_LORA_TARGETS_ATTENTION, "attention" },
  { HR_LORA_TARGETS_ALL_LINEAR, "all-linear" },
  { HR_LORA_TARGETS_QV, "qv" },
  { HR_LORA_TARGETS_MLP, "mlp" },
  { 0, NULL },
};

const HrEnumName hr_weights_dtype_names[] = {
  { HR_DTYPE_FP32, "fp32" },
  { HR_DTYPE_BF16, "bf16" },
  { HR_DTYPE_FP16, "fp16" },
  { HR_DTYPE_FP8, "fp8" },
  { HR_DTYPE_INT8, "int8" },
  { HR_DTYPE_NF4, "nf4" },
  { HR_DTYPE_INT4, "int4" },
  /* GGUF's block types (llama.cpp) */
  { HR_DTYPE_Q8_0, "q8_0" },
  { HR_DTYPE_Q4_0, "q4_0" },
  { HR_DTYPE_Q4_1, "q4_1" },
  { HR_DTYPE_Q5_0, "q5_0" },
  { HR_DTYPE_Q5_1, "q5_1" },
  { HR_DTYPE_Q2_K, "q2_k" },
  { HR_DTYPE_Q3_K, "q3_k" },
  { HR_DTYPE_Q4_K, "q4_k" },
  { HR_DTYPE_Q5_K, "q5_k" },
  { HR_DTYPE_Q6_K, "q6_k" },
  { HR_DTYPE_IQ1_S, "iq1_s" },
  { HR_DTYPE_IQ1_M, "iq1_m" },
  { HR_DTYPE_IQ2_XXS, "iq2_xxs" },
  { HR_DTYPE_IQ2_XS, "iq2_xs" },
  { HR_DTYPE_IQ2_S, "iq2_s" },
  { HR_DTYPE_IQ3_XXS, "iq3_xxs" },
  { HR_DTYPE_IQ3_S, "iq3_s" },
  { HR_DTYPE_IQ4_NL, "iq4_nl" },
  { HR_DTYPE_IQ4_XS, "iq4_xs" },
  { HR_DTYPE_TQ1_0, "tq1_0" },
  { HR_DTYPE_TQ2_0, "tq2_0" },
  { HR_DTYPE_MXFP4, "mxfp4" },
  /* torchao's fpx and the other MX element types */
  { HR_DTYPE_FP6, "fp6" },
  { HR_DTYPE_MXFP6, "mxfp6" },
  { HR_DTYPE_MXFP8, "mxfp8" },
  { 0, NULL },
};

const HrEnumName hr_kv_dtype_names[] = {
  { HR_DTYPE_FP16, "fp16" },
  { HR_DTYPE_BF16, "bf16" },
  { HR_DTYPE_FP8, "fp8" },
  { HR_DTYPE_INT8, "int8" },
  { HR_DTYPE_INT4, "int4" },
  { HR_DTYPE_Q8_0, "q8_0" },
  { HR_DTYPE_Q4_0, "q4_0" },
  /* the rest of llama.cpp's -ctk / -ctv types (common/arg.cpp
   * kv_cache_types @b6000: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0,
   * q5_1) */
  { HR_DTYPE_Q4_1, "q4_1" },
  { HR_DTYPE_IQ4_NL, "iq4_nl" },
  { HR_DTYPE_Q5_0, "q5_0" },
  { HR_DTYPE_Q5_1, "q5_1" },
  { 0, NULL },
};

/* ggml tensor types: block size (elements) and bytes per block, from the
 * block structs in ggml/src/ggml-common.h (block_q4_0: a half scale and 16
 * bytes of nibbles for 32 weights, …) and type_traits in ggml/src/ggml.c.
 * QK_K super-blocks hold 256 weights.  Q8_1 and Q8_K are the types ggml
 * quantises activations to for its dot products; no weights use them. */
const HrGgmlType hr_ggml_types[] = {
  { 0, "F32", 1, 4, HR_DTYPE_FP32 },
  { 1, "F16", 1, 2, HR_DTYPE_FP16 },
  { 2, "Q4_0", 32, 18, HR_DTYPE_Q4_0 },       /* d (2) + qs[16] */
  { 3, "Q4_1", 32, 20, HR_DTYPE_Q4_1 },       /* d, m (4) + qs[16] */
  { 6, "Q5_0", 32, 22, HR_DTYPE_Q5_0 },       /* d (2) + qh[4] + qs[16] */
  { 7, "Q5_1", 32, 24, HR_DTYPE_Q5_1 },       /* d, m (4) + qh[4] + qs[16] */
  { 8, "Q8_0", 32, 34, HR_DTYPE_Q8_0 },       /* d (2) + qs[32] */
  { 9, "Q8_1", 32, 36, -1 },                  /* d, s (4) + qs[32] */
  { 10, "Q2_K", 256, 84, HR_DTYPE_Q2_K },     /* scales[16] + qs[64] + d, dmin (4) */
  { 11, "Q3_K", 256, 110, HR_DTYPE_Q3_K },    /* hmask[32] + qs[64] + scales[12] + d (2) */
  { 12, "Q4_K", 256, 144, HR_DTYPE_Q4_K },    /* d, dmin (4) + scales[12] + qs[128] */
  { 13, "Q5_K", 256, 176, HR_DTYPE_Q5_K },    /* d, dmin (4) + scales[12] + qh[32] + qs[128] */
  { 14, "Q6_K", 256, 210, HR_DTYPE_Q6_K },    /* ql[128] + qh[64] + scales[16] + d (2) */
  { 15, "Q8_K", 256, 292, -1 },               /* d (float, 4) + qs[256] + bsums[16] (32) */
  { 16, "IQ2_XXS", 256, 66, HR_DTYPE_IQ2_XXS }, /* d (2) + qs[32] (64) */
  { 17, "IQ2_XS", 256, 74, HR_DTYPE_IQ2_XS }, /* d (2) + qs[32] (64) + scales[8] */
  { 18, "IQ3_XXS", 256, 98, HR_DTYPE_IQ3_XXS }, /* d (2) + qs[96] */
  { 19, "IQ1_S", 256, 50, HR_DTYPE_IQ1_S },   /* d (2) + qs[32] + qh[8] (16) */
  { 20, "IQ4_NL", 32, 18, HR_DTYPE_IQ4_NL },  /* d (2) + qs[16] */
  { 21, "IQ3_S", 256, 110, HR_DTYPE_IQ3_S },  /* d (2) + qs[64] + qh[8] + signs[32] + scales[4] */
  { 22, "IQ2_S", 256, 82, HR_DTYPE_IQ2_S },   /* d (2) + qs[64] + qh[8] + scales[8] */
  { 23, "IQ4_XS", 256, 136, HR_DTYPE_IQ4_XS }, /* d (2) + scales_h (2) + scales_l[4] + qs[128] */
  { 24, "I8", 1, 1, -1 },
  { 25, "I16", 1, 2, -1 },
  { 26, "I32", 1, 4, -1 },
  { 27, "I64", 1, 8, -1 },
  { 28, "F64", 1, 8, HR_DTYPE_FP64 },
  { 29, "IQ1_M", 256, 56, HR_DTYPE_IQ1_M },   /* qs[32] + qh[16] + scales[8] */
  { 30, "BF16", 1, 2, HR_DTYPE_BF16 },
  { 34, "TQ1_0", 256, 54, HR_DTYPE_TQ1_0 },   /* qs[48] + qh[4] + d (2) */
  { 35, "TQ2_0", 256, 66, HR_DTYPE_TQ2_0 },   /* qs[64] + d (2) */
  { 39, "MXFP4", 32, 17, HR_DTYPE_MXFP4 },    /* e (1) + qs[16] */
  { 0, NULL, 0, 0, -1 },
};

const HrGgmlType *
hr_ggml_type_find (guint32 ggml_type)
{
  for (guint i = 0; hr_ggml_types[i].name != NULL; i++)
    if (hr_ggml_types[i].ggml_type == ggml_type)
      return &hr_ggml_types[i];
  return NULL;
}

/* The block type of a scenario dtype; the dense ones are not asked for. */
const HrGgmlType *
hr_ggml_type_for_dtype (HrDtype dtype)
{
  for (guint i = 0; hr_ggml_types[i].name != NULL; i++)
    if (hr_ggml_types[i].dtype == (int) dtype && hr_ggml_types[i].block > 1)
      return &hr_ggml_types[i];
  return NULL;
}

const HrEnumName hr_quant_compute_dtype_names[] = {
  { HR_DTYPE_FP32, "fp32" },
  { HR_DTYPE_BF16, "bf16" },
  { HR_DTYPE_FP16, "fp16" },
  { 0, NULL },
};

const HrEnumName hr_obs_dtype_names[] = {
  { HR_DTYPE_UINT8, "uint8" },
  { HR_DTYPE_FP16, "float16" },
  { HR_DTYPE_BF16, "bfloat16" },
  { HR_DTYPE_FP32, "float32" },
  { HR_DTYPE_FP64, "float64" },
  { 0, NULL },
};

const HrEnumName hr_compute_names[] = {
  { HR_COMPUTE_FP32, "fp32" },
  { HR_COMPUTE_TF32, "tf32" },
  { HR_COMPUTE_BF16_MIXED, "bf16-mixed" },
  { HR_COMPUTE_FP16_MIXED, "fp16-mixed" },
  { HR_COMPUTE_BF16_PURE, "bf16-pure" },
  { HR_COMPUTE_FP16_PURE, "fp16-pure" },
  { HR_COMPUTE_FP8_MIXED, "fp8-mixed" },
  { 0, NULL },
};

const HrEnumName hr_optimizer_names[] = {
  { HR_OPTIMIZER_ADAMW, "adamw" },
  { HR_OPTIMIZER_ADAM, "adam" },
  { HR_OPTIMIZER_ADAMW_8BIT, "adamw-8bit" },
  { HR_OPTIMIZER_PAGED_ADAMW_8BIT, "paged-adamw-8bit" },
  { HR_OPTIMIZER_SGD, "sgd" },
  { HR_OPTIMIZER_SGD_MOMENTUM, "sgd-momentum" },
  { HR_OPTIMIZER_ADAFACTOR, "adafactor" },
  { HR_OPTIMIZER_LION, "lion" },
  { HR_OPTIMIZER_NONE, "none" },
  { HR_OPTIMIZER_PAGED_ADAMW, "paged-adamw" },
  { HR_OPTIMIZER_ADAMW_8BIT_AO, "adamw-8bit-ao" },
  { HR_OPTIMIZER_ADAMW_4BIT, "adamw-4bit" },
  { HR_OPTIMIZER_ADAMW_FP8, "adamw-fp8" },
  { HR_OPTIMIZER_GALORE_ADAMW, "galore-adamw" },
  { HR_OPTIMIZER_GALORE_ADAMW_8BIT, "galore-adamw-8bit" },
  { HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT, "q-galore-adamw-8bit" },
  { HR_OPTIMIZER_APOLLO_ADAMW, "apollo-adamw" },
  { HR_OPTIMIZER_APOLLO_MINI, "apollo-mini" },
  { 0, NULL },
};

const HrEnumName hr_recompute_names[] = {
  { HR_RECOMPUTE_NONE, "none" },
  { HR_RECOMPUTE_SELECTIVE, "selective" },
  { HR_RECOMPUTE_FULL, "full" },
  { 0, NULL },
};

const HrEnumName hr_loss_names[] = {
  { HR_LOSS_UPCAST, "upcast" },
  { HR_LOSS_CHUNKED, "chunked" },
  { HR_LOSS_FUSED, "fused" },
  { HR_LOSS_SUM, "sum" },
  { HR_LOSS_NATIVE, "native" },
  { 0, NULL },
};

const HrEnumName hr_attention_names[] = {
  { HR_ATTENTION_EAGER, "eager" },
  { HR_ATTENTION_SDPA, "sdpa" },
  { HR_ATTENTION_FLASH, "flash" },
  { 0, NULL },
};

const HrEnumName hr_sharding_names[] = {
  { HR_SHARDING_NONE, "none" },
  { HR_SHARDING_DDP, "ddp" },
  { HR_SHARDING_ZERO1, "zero1" },
  { HR_SHARDING_ZERO2, "zero2" },
  { HR_SHARDING_ZERO3, "zero3" },
  { HR_SHARDING_FSDP, "fsdp" },
  { HR_SHARDING_FSDP, "fsdp2" },
  { HR_SHARDING_FSDP1, "fsdp1" },
  { 0, NULL },
};

const HrEnumName hr_offload_names[] = {
  { HR_OFFLOAD_NONE, "none" },
  { HR_OFFLOAD_OPTIMIZER, "optimizer" },
  { HR_OFFLOAD_OPTIMIZER_PARAMS, "optimizer+params" },
  { HR_OFFLOAD_OPTIMIZER_GRADIENTS, "optimizer+gradients" },
  { 0, NULL },
};

const HrEnumName hr_framework_names[] = {
  { HR_FRAMEWORK_PYTORCH, "pytorch" },
  { HR_FRAMEWORK_JAX, "jax" },
  { 0, NULL },
};

const HrEnumName hr_gpu_tier_names[] = {
  { HR_GPU_TIER_CONSUMER, "consumer" },
  { HR_GPU_TIER_WORKSTATION, "workstation" },
  { HR_GPU_TIER_DATACENTER, "datacenter" },
  { 0, NULL },
};

const HrEnumName hr_causal_mask_names[] = {
  { HR_CAUSAL_MASK_NONE, "none" },
  { HR_CAUSAL_MASK_DENSE, "dense" },
  { HR_CAUSAL_MASK_LINEAR, "linear" },
  { 0, NULL },
};

const HrEnumName hr_pipeline_offload_names[] = {
  { HR_PIPELINE_OFFLOAD_NONE, "none" },
  { HR_PIPELINE_OFFLOAD_MODEL, "model" },
  { HR_PIPELINE_OFFLOAD_SEQUENTIAL, "sequential" },
  { 0, NULL },
};

const HrEnumName hr_pipeline_library_names[] = {
  { HR_PIPELINE_LIBRARY_ORIGINAL, "original" },
  { HR_PIPELINE_LIBRARY_DIFFUSERS, "diffusers" },
  { 0, NULL },
};

const HrEnumName hr_optimizer_impl_names[] = {
  { HR_OPTIMIZER_IMPL_FOREACH, "foreach" },
  { HR_OPTIMIZER_IMPL_FUSED, "fused" },
  { HR_OPTIMIZER_IMPL_FOR_LOOP, "for-loop" },
  { 0, NULL },
};

const HrEnumName hr_quant_method_names[] = {
  { HR_QUANT_METHOD_BITSANDBYTES, "bitsandbytes" },
  { HR_QUANT_METHOD_GPTQ, "gptq" },
  { HR_QUANT_METHOD_AWQ, "awq" },
  { 0, NULL },
};

const HrEnumName hr_stack_names[] = {
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

const HrEnumName hr_offload_device_names[] = {
  { HR_OFFLOAD_DEVICE_NONE, "none" },
  { HR_OFFLOAD_DEVICE_CPU, "cpu" },
  { HR_OFFLOAD_DEVICE_NVME, "nvme" },
  { 0, NULL },
};

const HrEnumName hr_state_dtype_names[] = {
  { HR_DTYPE_FP32, "fp32" },
  { HR_DTYPE_BF16, "bf16" },
  { 0, NULL },
};

const HrEnumName hr_module_names[] = {
  { HR_MODULE_Q, "q" },
  { HR_MODULE_K, "k" },
  { HR_MODULE_V, "v" },
  { HR_MODULE_O, "o" },
  { HR_MODULE_GATE, "gate" },
  { HR_MODULE_UP, "up" },
  { HR_MODULE_DOWN, "down" },
  { HR_MODULE_EMBED, "embed" },
  { HR_MODULE_LM_HEAD, "lm_head" },
  { 0, NULL },
};

const HrEnumName hr_basis_names[] = {
  { HR_BASIS_DERIVED, "derived" },
  { HR_BASIS_CALIBRATED, "calibrated" },
  { HR_BASIS_ASSUMED, "assumed" },
  { 0, NULL },
};

const HrEnumName hr_pipeline_schedule_names[] = {
  { HR_PIPELINE_1F1B, "1f1b" },
  { HR_PIPELINE_INTERLEAVED, "interleaved" },
  { HR_PIPELINE_GPIPE, "gpipe" },
  { 0, NULL },
};

const HrEnumName hr_engine_names[] = {
  { HR_ENGINE_TRANSFORMERS, "transformers" },
  { HR_ENGINE_VLLM, "vllm" },
  { HR_ENGINE_SGLANG, "sglang" },
  { HR_ENGINE_LLAMACPP, "llama.cpp" },
  { HR_ENGINE_CTRANSLATE2, "ctranslate2" },
  { 0, NULL },
};

const HrEnumName hr_ct2_compute_type_names[] = {
  { HR_CT2_FLOAT16, "float16" },
  { HR_CT2_BFLOAT16, "bfloat16" },
  { HR_CT2_FLOAT32, "float32" },
  { HR_CT2_INT8, "int8" },
  { HR_CT2_INT8_FLOAT16, "int8_float16" },
  { HR_CT2_INT8_BFLOAT16, "int8_bfloat16" },
  { HR_CT2_INT8_FLOAT32, "int8_float32" },
  { 0, NULL },
};

const HrEnumName hr_metric_names[] = {
  { HR_METRIC_ALLOCATED, "allocated" },
  { HR_METRIC_RESERVED, "reserved" },
  { HR_METRIC_DEVICE_USED, "device_used" },
  { 0, NULL },
};

gboolean
hr_enum_from_nick (const HrEnumName *names,
                   const char       *nick,
                   int              *value)
{
  g_return_val_if_fail (names != NULL, FALSE);

  if (nick == NULL)
    return FALSE;

  for (guint i = 0; names[i].nick != NULL; i++)
    {
      if (g_str_equal (names[i].nick, nick))
        {
          if (value != NULL)
            *value = names[i].value;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
hr_enum_to_nick (const HrEnumName *names,
                 int               value)
{
  g_return_val_if_fail (names != NULL, NULL);

  for (guint i = 0; names[i].nick != NULL; i++)
    {
      if (names[i].value == value)
        return names[i].nick;
    }

  return NULL;
}

/* "a, b or c", for messages that list what is accepted. */
char *
hr_enum_list_nicks (const HrEnumName *names)
{
  GString *str = g_string_new (NULL);
  guint n = 0;

  g_return_val_if_fail (names != NULL, NULL);

  while (names[n].nick != NULL)
    n++;

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        /* Translators: joins the last two of a list of accepted values,
         * as in "a", "b" or "c". */
        g_string_append (str, i + 1 == n ? _(" or ") : ", ");
      g_string_append_printf (str, "\"%s\"", names[i].nick);
    }

  return g_string_free (str, FALSE);
}

double
hr_dtype_element_bytes (HrDtype dtype)
{
  switch (dtype)
    {
    case HR_DTYPE_FP64:
      return 8.0;
    case HR_DTYPE_FP32:
      return 4.0;
    case HR_DTYPE_BF16:
    case HR_DTYPE_FP16:
      return 2.0;
    case HR_DTYPE_FP8:
    case HR_DTYPE_INT8:
    case HR_DTYPE_UINT8:
      return 1.0;
    case HR_DTYPE_NF4:
    case HR_DTYPE_INT4:
      return 0.5;
    case HR_DTYPE_FP6:
      /* torchao fpx (FP6-LLM, Xia et al. 2024): six bits a weight packed
       * for the tensor cores, one fp16 scale per output row
       * (torchao/dtypes/floatx/floatx_tensor_core_layout.py @e2fe7f7);
       * the scales, 2 bytes over a row of 4096 and more, are left out */
      return 6.0 / 8.0;
    case HR_DTYPE_MXFP6:
      /* OCP Microscaling Formats (MX) v1.0, section 5: blocks of 32
       * elements share one 8-bit E8M0 scale; torchao's mx_formats use
       * block_size 32 (torchao/prototype/mx_formats/config.py @e2fe7f7) */
      return (32.0 * 6.0 / 8.0 + 1.0) / 32.0;
    case HR_DTYPE_MXFP8:
      return (32.0 + 1.0) / 32.0;
    default:
      {
        /* a block type: its bytes over its elements */
        const HrGgmlType *t = hr_ggml_type_for_dtype (dtype);

        g_assert (t != NULL);
        return (double) t->bytes / t->block;
      }
    }
}

/* Storage per parameter including quantisation constants.
 *
 * NF4 (and bitsandbytes FP4, which "int4" stands for here): 4 bits per weight
 * plus one fp32 absmax per block of 64 weights, 0.5 + 4/64 = 0.5625 bytes.
 * Double quantisation stores the absmax in 8 bits with one fp32 constant per
 * 256 blocks: 0.5 + 1/64 + 4/(64 * 256) = 0.5159 bytes.  Source: Dettmers et
 * al. 2023, "QLoRA", section 3 ("Double Quantization": 32/64 = 0.5 bits per
 * parameter becomes 8/64 + 32/(64 * 256) = 0.127 bits).  GPTQ/AWQ int4 with
 * group size 128 and fp16 scales take 0.52 bytes, inside that range.
 *
 * INT8 (LLM.int8, Dettmers et al. 2022): one byte per weight plus an fp32
 * scale per output row, under 0.1% for hidden sizes of 1024 and up.
 * FP8 (E4M3 with a per-tensor scale, NVIDIA Transformer Engine): one byte. */
double
hr_dtype_bytes_per_param (HrDtype  dtype,
                          gboolean double_quant)
{
  switch (dtype)
    {
    case HR_DTYPE_NF4:
    case HR_DTYPE_INT4:
      return double_quant ? 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0)
                          : 0.5 + 4.0 / 64.0;
    case HR_DTYPE_INT8:
      return 1.0 + 4.0 / 4096.0;
    default:
      return hr_dtype_element_bytes (dtype);
    }
}

/* GPTQ and AWQ checkpoints pack the b-bit codes into int32 words (b / 8
 * bytes a weight) and keep, per group of 128 input rows and output column,
 * an fp16 scale and a b-bit zero point packed the same way: b / 8 +
 * (2 + b / 8) / 128 bytes a weight.  AutoAWQ's WQLinear_GEMM
 * (awq/modules/linear/gemm.py @88e4c76: qweight [in, out / 8], qzeros
 * [in / 128, out / 8] int32, scales [in / 128, out] fp16) and AutoGPTQ's
 * QuantLinear (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py @9f7d370:
 * qweight [in / 32 * b, out], qzeros [in / 128, out / 32 * b] int32,
 * scales [in / 128, out] fp16; its g_idx, one int32 per input row, adds
 * 4 / out bytes a weight and is left out).  group_size 128 is the default
 * of both quantisers and of the Qwen, Llama and Mistral checkpoints
 * published with them. */
double
hr_dtype_packed_bytes_per_param (HrDtype dtype)
{
  double bits = dtype == HR_DTYPE_INT8 ? 8.0 : 4.0;

  return bits / 8.0 + (2.0 + bits / 8.0) / 128.0;
}

gboolean
hr_dtype_is_quantized (HrDtype dtype)
{
  return dtype == HR_DTYPE_NF4 || dtype == HR_DTYPE_INT4 ||
         dtype == HR_DTYPE_INT8 || dtype == HR_DTYPE_FP8 ||
         dtype == HR_DTYPE_FP6 || dtype == HR_DTYPE_MXFP6 || dtype == HR_DTYPE_MXFP8 ||
         hr_ggml_type_for_dtype (dtype) != NULL;
}

gboolean
hr_compute_is_mixed (HrCompute compute)
{
  return compute == HR_COMPUTE_BF16_MIXED || compute == HR_COMPUTE_FP16_MIXED ||
         compute == HR_COMPUTE_FP8_MIXED;
}

gboolean
hr_compute_is_pure16 (HrCompute compute)
{
  return compute == HR_COMPUTE_BF16_PURE || compute == HR_COMPUTE_FP16_PURE;
}

double
hr_compute_activation_bytes (HrCompute compute)
{
  switch (compute)
    {
    case HR_COMPUTE_FP32:
    case HR_COMPUTE_TF32:
      /* TF32 changes the matmul precision, not the storage: tensors stay
       * fp32 (NVIDIA A100 whitepaper, "TF32 Tensor Core"). */
      return 4.0;
    case HR_COMPUTE_BF16_MIXED:
    case HR_COMPUTE_FP16_MIXED:
    case HR_COMPUTE_BF16_PURE:
    case HR_COMPUTE_FP16_PURE:
      return 2.0;
    case HR_COMPUTE_FP8_MIXED:
      /* Float8Linear saves its high-precision input and weight for the
       * backward pass and casts them to fp8 again there
       * (torchao/float8/float8_linear.py @e2fe7f7,
       * matmul_with_hp_or_float8_args: ctx.save_for_backward(input_hp,
       * weight_hp_t)): activations stay 16-bit */
      return 2.0;
    default:
      g_assert_not_reached ();
    }
}

HrDtype
hr_compute_default_weights_dtype (HrCompute compute)
{
  switch (compute)
    {
    case HR_COMPUTE_FP32:
    case HR_COMPUTE_TF32:
      return HR_DTYPE_FP32;
    case HR_COMPUTE_FP16_MIXED:
    case HR_COMPUTE_FP16_PURE:
      return HR_DTYPE_FP16;
    case HR_COMPUTE_BF16_MIXED:
    case HR_COMPUTE_BF16_PURE:
    case HR_COMPUTE_FP8_MIXED:
      return HR_DTYPE_BF16;
    default:
      g_assert_not_reached ();
    }
}

/* ---- sizes ---- */

const HrEnumName hr_size_unit_names[] = {
  { HR_SIZE_GIB, "gib" },
  { HR_SIZE_GB, "gb" },
  { 0, NULL },
};

double
hr_size_in_unit (double     bytes,
                 HrSizeUnit unit)
{
  return bytes / (unit == HR_SIZE_GB ? 1e9 : 1024.0 * 1024.0 * 1024.0);
}

const char *
hr_size_unit_symbol (HrSizeUnit unit)
{
  /* Translators: units of memory; keep the symbols unless your language
   * writes them differently. */
  return unit == HR_SIZE_GB ? _("GB") : _("GiB");
}

/* The unit a thousandth (a 1024th) as large, or a millionth, for sizes
 * under one unit on a chart. */
static const char *
smaller_unit_symbol (HrSizeUnit unit,
                     guint      steps)
{
  /* Translators: units of memory, a thousandth and a millionth of a GB,
   * a 1024th and a 1024²th of a GiB */
  if (steps == 1)
    return unit == HR_SIZE_GB ? _("MB") : _("MiB");
  return unit == HR_SIZE_GB ? _("kB") : _("KiB");
}

char *
hr_size_format_full (double       bytes,
                     HrSizeUnit   unit,
                     HrSizeFormat format)
{
  double v = hr_size_in_unit (bytes, unit);
  const char *symbol = hr_size_unit_symbol (unit);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  char spec[8];
  int decimals;

  switch (format & HR_SIZE_FORMAT_STYLE_MASK)
    {
    case HR_SIZE_FORMAT_TABLE:
      decimals = 2;
      break;
    case HR_SIZE_FORMAT_CHART:
      decimals = v >= 100 ? 0 : 1;
      if (v < 1)
        {
          /* a chart has no room for "0.37 GiB": "379 MiB", "12 KiB" */
          double step = unit == HR_SIZE_GB ? 1000.0 : 1024.0;

          v *= step;
          symbol = smaller_unit_symbol (unit, 1);
          if (v < 1)
            {
              v *= step;
              symbol = smaller_unit_symbol (unit, 2);
            }
          decimals = 0;
        }
      break;
    case HR_SIZE_FORMAT_PRECISE:
      if (v == 0 || fabs (v) >= 100)
        decimals = 0;
      else
        decimals = CLAMP (2 - (int) floor (log10 (fabs (v))), 0, 9);
      break;
    case HR_SIZE_FORMAT_ESTIMATE:
    default:
      /* two decimals below 10, one above: the precision an estimate has */
      decimals = fabs (v) < 10 ? 2 : 1;
      break;
    }

  if (format & HR_SIZE_FORMAT_C_LOCALE)
    {
      g_snprintf (spec, sizeof spec, "%%.%df", decimals);
      g_ascii_formatd (number, sizeof number, spec, v);
    }
  else
    /* printf follows LC_NUMERIC: 14,2 GiB in German.  Never parsed back. */
    g_snprintf (number, sizeof number, "%.*f", decimals, v);

  if (format & HR_SIZE_FORMAT_NO_UNIT)
    return g_strdup (number);
  return g_strdup_printf ("%s %s", number, symbol);
}

char *
hr_size_format (double     bytes,
                HrSizeUnit unit)
{
  return hr_size_format_full (bytes, unit, HR_SIZE_FORMAT_ESTIMATE);
}

char *
hr_size_format_range (double     low,
                      double     high,
                      HrSizeUnit unit)
{
  double l = hr_size_in_unit (low, unit);
  double h = hr_size_in_unit (high, unit);
  int d = fabs (h) < 10 ? 2 : 1;

  return g_strdup_printf ("%.*f–%.*f %s", d, l, d, h, hr_size_unit_symbol (unit));
}
