/* hr-types.h: the enumerations a scenario is made of, and their names
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  HR_TASK_TRAIN,
  HR_TASK_FINETUNE,
  HR_TASK_INFERENCE,
} HrTask;

typedef enum {
  HR_METHOD_FULL,
  HR_METHOD_FREEZE,
  HR_METHOD_LORA,
  HR_METHOD_QLORA,
} HrMethod;

typedef enum {
  HR_LORA_TARGETS_ATTENTION,
  HR_LORA_TARGETS_ALL_LINEAR,
} HrLoraTargets;

/* Storage precisions, of weights, of the KV cache and of replay buffers. */
typedef enum {
  HR_DTYPE_FP32,
  HR_DTYPE_BF16,
  HR_DTYPE_FP16,
  HR_DTYPE_FP8,
  HR_DTYPE_INT8,
  HR_DTYPE_NF4,
  HR_DTYPE_INT4,
  HR_DTYPE_UINT8,
  HR_DTYPE_FP64,
} HrDtype;

typedef enum {
  HR_COMPUTE_FP32,
  HR_COMPUTE_TF32,
  HR_COMPUTE_BF16_MIXED,
  HR_COMPUTE_FP16_MIXED,
  HR_COMPUTE_BF16_PURE,
} HrCompute;

typedef enum {
  HR_OPTIMIZER_ADAMW,
  HR_OPTIMIZER_ADAM,
  HR_OPTIMIZER_ADAMW_8BIT,
  HR_OPTIMIZER_PAGED_ADAMW_8BIT,
  HR_OPTIMIZER_SGD,
  HR_OPTIMIZER_SGD_MOMENTUM,
  HR_OPTIMIZER_ADAFACTOR,
  HR_OPTIMIZER_LION,
  HR_OPTIMIZER_NONE,
} HrOptimizer;

/* How the loss over a vocabulary is computed. */
typedef enum {
  HR_LOSS_UPCAST,    /* transformers: logits upcast to fp32, then cross-entropy */
  HR_LOSS_CHUNKED,   /* LitGPT: cross-entropy over chunks of the logits */
  HR_LOSS_FUSED,     /* Liger / Apple CCE: logits never materialised whole */
} HrLoss;

typedef enum {
  HR_RECOMPUTE_NONE,
  HR_RECOMPUTE_SELECTIVE,
  HR_RECOMPUTE_FULL,
} HrRecompute;

typedef enum {
  HR_ATTENTION_EAGER,
  HR_ATTENTION_SDPA,
  HR_ATTENTION_FLASH,
} HrAttention;

typedef enum {
  HR_SHARDING_NONE,
  HR_SHARDING_DDP,
  HR_SHARDING_ZERO1,
  HR_SHARDING_ZERO2,
  HR_SHARDING_ZERO3,
  HR_SHARDING_FSDP,
} HrSharding;

typedef enum {
  HR_OFFLOAD_NONE,
  HR_OFFLOAD_OPTIMIZER,
  HR_OFFLOAD_OPTIMIZER_PARAMS,
} HrOffload;

typedef enum {
  HR_FRAMEWORK_PYTORCH,
  HR_FRAMEWORK_JAX,
} HrFramework;

typedef enum {
  HR_GPU_TIER_CONSUMER,
  HR_GPU_TIER_WORKSTATION,
  HR_GPU_TIER_DATACENTER,
} HrGpuTier;

/* Which measure of memory a figure is: what torch.cuda.max_memory_allocated
 * reports, what max_memory_reserved reports, or what nvidia-smi shows. */
typedef enum {
  HR_METRIC_ALLOCATED,
  HR_METRIC_RESERVED,
  HR_METRIC_DEVICE_USED,
} HrMetric;

/* A name ("nick") for each value of an enumeration, as the scenario JSON
 * spells it.  Tables end with a NULL nick. */
typedef struct {
  int         value;
  const char *nick;
} HrEnumName;

extern const HrEnumName hr_task_names[];
extern const HrEnumName hr_method_names[];
extern const HrEnumName hr_lora_targets_names[];
extern const HrEnumName hr_weights_dtype_names[];
extern const HrEnumName hr_kv_dtype_names[];
extern const HrEnumName hr_quant_compute_dtype_names[];
extern const HrEnumName hr_obs_dtype_names[];
extern const HrEnumName hr_compute_names[];
extern const HrEnumName hr_optimizer_names[];
extern const HrEnumName hr_recompute_names[];
extern const HrEnumName hr_loss_names[];
extern const HrEnumName hr_attention_names[];
extern const HrEnumName hr_sharding_names[];
extern const HrEnumName hr_offload_names[];
extern const HrEnumName hr_framework_names[];
extern const HrEnumName hr_gpu_tier_names[];
extern const HrEnumName hr_metric_names[];

gboolean    hr_enum_from_nick   (const HrEnumName *names,
                                 const char       *nick,
                                 int              *value);
const char *hr_enum_to_nick     (const HrEnumName *names,
                                 int               value);
char       *hr_enum_list_nicks  (const HrEnumName *names);

/* Bytes one element takes in a given storage type, for dense types; the
 * 4-bit and 8-bit quantised types add their quantisation constants in
 * hr_dtype_bytes_per_param(). */
double      hr_dtype_element_bytes    (HrDtype dtype);
double      hr_dtype_bytes_per_param  (HrDtype  dtype,
                                       gboolean double_quant);
gboolean    hr_dtype_is_quantized     (HrDtype dtype);

gboolean    hr_compute_is_mixed       (HrCompute compute);
/* Bytes of one stored activation element under a compute regime. */
double      hr_compute_activation_bytes (HrCompute compute);
/* The weights dtype a compute regime implies when the scenario names none. */
HrDtype     hr_compute_default_weights_dtype (HrCompute compute);

G_END_DECLS
