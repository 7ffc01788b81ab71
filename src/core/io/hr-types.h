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
  /* PEFT's other tuners (huggingface/peft src/peft/tuners/) */
  HR_METHOD_DORA,
  HR_METHOD_VERA,
  HR_METHOD_IA3,
  HR_METHOD_LOHA,
  HR_METHOD_LOKR,
  HR_METHOD_OFT,
  HR_METHOD_BOFT,
  HR_METHOD_PREFIX,
  HR_METHOD_PROMPT,
  HR_METHOD_LAYERNORM,
  HR_METHOD_LORA_FA,
  HR_METHOD_ADALORA,
} HrMethod;

typedef enum {
  HR_LORA_TARGETS_ATTENTION,
  HR_LORA_TARGETS_ALL_LINEAR,
  HR_LORA_TARGETS_QV,
  HR_LORA_TARGETS_MLP,
  HR_LORA_TARGETS_CUSTOM,    /* the scenario's array of module names */
} HrLoraTargets;

/* The modules of a transformer layer (and the model's embedding and head)
 * an adapter can sit on, as a bit mask. */
typedef enum {
  HR_MODULE_Q       = 1 << 0,
  HR_MODULE_K       = 1 << 1,
  HR_MODULE_V       = 1 << 2,
  HR_MODULE_O       = 1 << 3,
  HR_MODULE_GATE    = 1 << 4,
  HR_MODULE_UP      = 1 << 5,
  HR_MODULE_DOWN    = 1 << 6,
  HR_MODULE_EMBED   = 1 << 7,
  HR_MODULE_LM_HEAD = 1 << 8,
} HrModule;

#define HR_MODULES_ATTENTION (HR_MODULE_Q | HR_MODULE_K | HR_MODULE_V | HR_MODULE_O)
#define HR_MODULES_MLP       (HR_MODULE_GATE | HR_MODULE_UP | HR_MODULE_DOWN)

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
  /* llama.cpp's block types for its KV cache (ggml/src/ggml-common.h:
   * block_q8_0 is 32 int8 values and an fp16 scale, 34 bytes; block_q4_0
   * 32 4-bit values and an fp16 scale, 18 bytes) */
  HR_DTYPE_Q8_0,
  HR_DTYPE_Q4_0,
  /* llama.cpp's other block types, for weights (and the KV cache where
   * llama.cpp takes them): their sizes are hr_ggml_types' */
  HR_DTYPE_Q4_1,
  HR_DTYPE_Q5_0,
  HR_DTYPE_Q5_1,
  HR_DTYPE_Q2_K,
  HR_DTYPE_Q3_K,
  HR_DTYPE_Q4_K,
  HR_DTYPE_Q5_K,
  HR_DTYPE_Q6_K,
  HR_DTYPE_IQ1_S,
  HR_DTYPE_IQ1_M,
  HR_DTYPE_IQ2_XXS,
  HR_DTYPE_IQ2_XS,
  HR_DTYPE_IQ2_S,
  HR_DTYPE_IQ3_XXS,
  HR_DTYPE_IQ3_S,
  HR_DTYPE_IQ4_NL,
  HR_DTYPE_IQ4_XS,
  HR_DTYPE_TQ1_0,
  HR_DTYPE_TQ2_0,
  HR_DTYPE_MXFP4,
  /* torchao's fpx weights (FP6-LLM, e3m2) and the OCP Microscaling
   * formats' other element types (blocks of 32 with an E8M0 scale) */
  HR_DTYPE_FP6,
  HR_DTYPE_MXFP6,
  HR_DTYPE_MXFP8,
} HrDtype;

/* ggml's tensor types (ggml/src/ggml-common.h and ggml.c): the elements of
 * one block and the bytes it takes, for GGUF files and for the scenario's
 * dtypes that name them.  The table ends with a NULL name. */
typedef struct {
  guint32     ggml_type;   /* enum ggml_type */
  const char *name;        /* as gguf-py and llama.cpp print it: "Q4_K" */
  guint       block;
  guint       bytes;
  int         dtype;       /* the HrDtype that stands for it, or -1 */
} HrGgmlType;

extern const HrGgmlType hr_ggml_types[];

const HrGgmlType *hr_ggml_type_find       (guint32 ggml_type);
const HrGgmlType *hr_ggml_type_for_dtype  (HrDtype dtype);

typedef enum {
  HR_COMPUTE_FP32,
  HR_COMPUTE_TF32,
  HR_COMPUTE_BF16_MIXED,
  HR_COMPUTE_FP16_MIXED,
  HR_COMPUTE_BF16_PURE,
  HR_COMPUTE_FP16_PURE,   /* model.half(): fp16 weights, gradients and state, no master copy */
  /* torchao's float8 training (Float8Linear): bf16 mixed precision whose
   * linears run their matmuls in fp8, gathered in fp8 under FSDP2 */
  HR_COMPUTE_FP8_MIXED,
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
  HR_OPTIMIZER_PAGED_ADAMW,     /* bitsandbytes PagedAdamW, 32-bit state */
  HR_OPTIMIZER_ADAMW_8BIT_AO,   /* torchao AdamW8bit */
  HR_OPTIMIZER_ADAMW_4BIT,      /* torchao AdamW4bit */
  HR_OPTIMIZER_ADAMW_FP8,       /* torchao AdamWFp8 */
  /* GaLore (Zhao et al. 2024): Adam over gradients projected to a rank
   * galore_rank subspace, 32-bit or bitsandbytes 8-bit moments */
  HR_OPTIMIZER_GALORE_ADAMW,
  HR_OPTIMIZER_GALORE_ADAMW_8BIT,
  /* Q-GaLore (Zhang et al. 2024): GaLore's 8-bit Adam with 4-bit
   * projectors, over int8 weights */
  HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT,
  /* APOLLO (Zhu et al. 2024): Adam moments of a rank apollo_rank random
   * projection scale the full gradient channel by channel; APOLLO-Mini
   * keeps rank 1 and one scale per tensor */
  HR_OPTIMIZER_APOLLO_ADAMW,
  HR_OPTIMIZER_APOLLO_MINI,
} HrOptimizer;

/* How torch.optim runs the step (its `foreach` and `fused` arguments). */
typedef enum {
  HR_OPTIMIZER_IMPL_FOREACH,
  HR_OPTIMIZER_IMPL_FUSED,
  HR_OPTIMIZER_IMPL_FOR_LOOP,
} HrOptimizerImpl;

/* Which library quantised the 4- and 8-bit weights: bitsandbytes at load
 * time, or a checkpoint quantised ahead by GPTQ (AutoGPTQ, GPTQModel) or
 * AWQ (AutoAWQ), whose layouts and kernels differ. */
typedef enum {
  HR_QUANT_METHOD_BITSANDBYTES,
  HR_QUANT_METHOD_GPTQ,
  HR_QUANT_METHOD_AWQ,
} HrQuantMethod;

/* The training or serving code that runs the scenario. */
typedef enum {
  HR_STACK_TRANSFORMERS,
  HR_STACK_LITGPT,
  HR_STACK_TORCHTUNE,
  HR_STACK_TORCHTITAN,
  HR_STACK_ACCELERATE,
  HR_STACK_TRL,
  HR_STACK_DEEPSPEED,
  HR_STACK_LIGHTNING,
  HR_STACK_UNSLOTH,
  HR_STACK_AXOLOTL,
  HR_STACK_MEGATRON,
} HrStack;

/* How a pipeline schedules its micro-batches. */
typedef enum {
  HR_PIPELINE_1F1B,          /* one forward, one backward (PipeDream-Flush) */
  HR_PIPELINE_INTERLEAVED,   /* 1F1B over virtual stages (Narayanan et al. 2021) */
  HR_PIPELINE_GPIPE,         /* every forward, then every backward */
} HrPipelineSchedule;

/* The code that serves an inference scenario. */
typedef enum {
  HR_ENGINE_TRANSFORMERS,
  HR_ENGINE_VLLM,
  HR_ENGINE_SGLANG,
  HR_ENGINE_LLAMACPP,
  HR_ENGINE_CTRANSLATE2,   /* CTranslate2 (faster-whisper) */
} HrEngine;

/* CTranslate2's compute_type: the weights' type and the type everything
 * else runs in (docs/quantization.md) */
typedef enum {
  HR_CT2_FLOAT16,
  HR_CT2_BFLOAT16,
  HR_CT2_FLOAT32,
  HR_CT2_INT8,            /* int8 over the model's float type */
  HR_CT2_INT8_FLOAT16,
  HR_CT2_INT8_BFLOAT16,
  HR_CT2_INT8_FLOAT32,
} HrCt2ComputeType;

/* Where DeepSpeed offloads parameters or optimizer state. */
typedef enum {
  HR_OFFLOAD_DEVICE_NONE,
  HR_OFFLOAD_DEVICE_CPU,
  HR_OFFLOAD_DEVICE_NVME,
} HrOffloadDevice;

/* Where a figure of the estimate comes from: a formula applied to the
 * scenario's numbers (derived), a measurement it was fitted to
 * (calibrated), or a default taken without a source for this scenario
 * (assumed). */
typedef enum {
  HR_BASIS_DERIVED,
  HR_BASIS_CALIBRATED,
  HR_BASIS_ASSUMED,
} HrBasis;

/* A static KV cache's attention mask (gpt-fast's and torchao's
 * generate.py, model.py setup_caches). */
typedef enum {
  HR_CAUSAL_MASK_NONE,     /* is_causal, or a mask per call (transformers) */
  HR_CAUSAL_MASK_DENSE,    /* a max_seq_length x max_seq_length bool buffer */
  HR_CAUSAL_MASK_LINEAR,   /* torchao's --linear_causal_mask: one row */
} HrCausalMask;

/* Where a diffusion or video pipeline keeps the models that are not
 * running ("pipeline_offload"). */
typedef enum {
  HR_PIPELINE_OFFLOAD_NONE,   /* every model on the GPU throughout */
  HR_PIPELINE_OFFLOAD_MODEL,  /* diffusers' enable_model_cpu_offload() */
  HR_PIPELINE_OFFLOAD_SEQUENTIAL, /* enable_sequential_cpu_offload() */
} HrPipelineOffload;

/* Whose code runs a diffusion or video pipeline ("pipeline_library"). */
typedef enum {
  HR_PIPELINE_LIBRARY_ORIGINAL,  /* the model's own repository, as the catalog describes it */
  HR_PIPELINE_LIBRARY_DIFFUSERS, /* huggingface/diffusers' port */
} HrPipelineLibrary;

/* How the loss over a vocabulary is computed. */
typedef enum {
  HR_LOSS_UPCAST,    /* transformers: logits upcast to fp32, then cross-entropy */
  HR_LOSS_CHUNKED,   /* LitGPT: cross-entropy over chunks of the logits */
  HR_LOSS_FUSED,     /* Liger / Apple CCE: logits never materialised whole */
  HR_LOSS_SUM,       /* no loss head: a benchmark's logits.sum().backward() */
  HR_LOSS_NATIVE,    /* CrossEntropyLoss on the logits in the dtype they come in */
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
  HR_SHARDING_FSDP,    /* FSDP2, per-parameter fully_shard ("fsdp", "fsdp2") */
  HR_SHARDING_FSDP1,   /* FlatParameter FullyShardedDataParallel */
} HrSharding;

typedef enum {
  HR_OFFLOAD_NONE,
  HR_OFFLOAD_OPTIMIZER,
  HR_OFFLOAD_OPTIMIZER_PARAMS,
  /* torchao's CPUOffloadOptimizer with offload_gradients=True: the step
   * runs on the CPU and each gradient leaves the GPU once copied */
  HR_OFFLOAD_OPTIMIZER_GRADIENTS,
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
extern const HrEnumName hr_optimizer_impl_names[];
extern const HrEnumName hr_quant_method_names[];
extern const HrEnumName hr_causal_mask_names[];
extern const HrEnumName hr_pipeline_offload_names[];
extern const HrEnumName hr_pipeline_library_names[];
extern const HrEnumName hr_stack_names[];
extern const HrEnumName hr_offload_device_names[];
extern const HrEnumName hr_state_dtype_names[];
extern const HrEnumName hr_module_names[];
extern const HrEnumName hr_basis_names[];
extern const HrEnumName hr_pipeline_schedule_names[];
extern const HrEnumName hr_engine_names[];
extern const HrEnumName hr_ct2_compute_type_names[];

/* A unit of memory.  Sizes are bytes inside; a unit appears only at the
 * edges, always printed (GiB against GB is a real source of confusion). */
typedef enum {
  HR_SIZE_GIB,   /* 2^30 bytes: what PyTorch and nvidia-smi report */
  HR_SIZE_GB,    /* 10^9 bytes: what vendors print on the box */
} HrSizeUnit;

/* "gib", "gb": the names headroom-cli's --unit takes. */
extern const HrEnumName hr_size_unit_names[];

/* How many digits a size has, and where it is read. */
typedef enum {
  /* two decimals below 10, one above ("9.94 GiB", "14.2 GiB"): the
   * precision an estimate has; sentences and the window's rows */
  HR_SIZE_FORMAT_ESTIMATE = 0,
  /* two decimals always ("0.37 GiB", "24.38 GiB"): columns of a table */
  HR_SIZE_FORMAT_TABLE    = 1,
  /* one decimal, none from 100, and below one unit MiB or MB ("379 MiB",
   * "15.0 GiB", "134 GiB"): labels on a chart, where room is short */
  HR_SIZE_FORMAT_CHART    = 2,
  /* three significant digits, none from 100 ("0.0858 GB", "1.37 GiB",
   * "14.2 GiB", "134 GiB"): a figure per sample, per token, where the
   * estimate's two decimals would round it away */
  HR_SIZE_FORMAT_PRECISE  = 3,
  HR_SIZE_FORMAT_STYLE_MASK = 0xf,
  /* flags: the number alone, without the unit ("24.38", for a column
   * headed "Total GiB"); '.' as the decimal point whatever the locale, for
   * output a program reads back */
  HR_SIZE_FORMAT_NO_UNIT  = 1 << 4,
  HR_SIZE_FORMAT_C_LOCALE = 1 << 5,
} HrSizeFormat;

/* Bytes in @unit: the one byte formatter of Headroom (the window, the
 * charts, the reports and headroom-cli).  On screen the locale's decimal
 * separator ("14,2 GiB" in German) unless HR_SIZE_FORMAT_C_LOCALE. */
char       *hr_size_format_full   (double       bytes,
                                   HrSizeUnit   unit,
                                   HrSizeFormat format);
/* hr_size_format_full() with HR_SIZE_FORMAT_ESTIMATE. */
char       *hr_size_format        (double       bytes,
                                   HrSizeUnit   unit);
/* "12.8–16.1 GiB", both ends to the decimals of the higher. */
char       *hr_size_format_range  (double       low,
                                   double       high,
                                   HrSizeUnit   unit);
/* @bytes as a number of @unit. */
double      hr_size_in_unit       (double       bytes,
                                   HrSizeUnit   unit);
/* "GiB" or "GB", translated. */
const char *hr_size_unit_symbol   (HrSizeUnit   unit);

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
/* The same for a GPTQ or AWQ checkpoint's packed layout (int4, int8). */
double      hr_dtype_packed_bytes_per_param (HrDtype dtype);
gboolean    hr_dtype_is_quantized     (HrDtype dtype);

gboolean    hr_compute_is_mixed       (HrCompute compute);
/* Whether the regime keeps 16-bit weights and no fp32 master copy. */
gboolean    hr_compute_is_pure16      (HrCompute compute);
/* Bytes of one stored activation element under a compute regime. */
double      hr_compute_activation_bytes (HrCompute compute);
/* The weights dtype a compute regime implies when the scenario names none. */
HrDtype     hr_compute_default_weights_dtype (HrCompute compute);

G_END_DECLS
