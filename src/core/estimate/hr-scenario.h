/* hr-scenario.h: the one input of every estimate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-catalog.h"

G_BEGIN_DECLS

/* "detection_framework": the library a detector trains under
 * (data/SCENARIO.md) */
typedef enum {
  HR_DETECTION_FRAMEWORK_MMDETECTION,
  HR_DETECTION_FRAMEWORK_DETECTRON2,
  HR_DETECTION_FRAMEWORK_TORCHVISION,
} HrDetectionFramework;

extern const HrEnumName hr_detection_framework_names[];

/* components "part_dtypes" can name (by their index in the model) */
#define HR_SCENARIO_MAX_PART_DTYPES 16

typedef struct {
  guint64  steps;
  guint    obs_shape[8];
  guint    obs_rank;
  HrDtype  obs_dtype;
} HrReplay;

/* DeepSpeed's zero_optimization settings (deepspeed/runtime/zero/config.py);
 * `set` has a bit per field the scenario gave (HrDeepSpeedField). */
typedef enum {
  HR_DS_MAX_LIVE_PARAMETERS      = 1 << 0,
  HR_DS_PREFETCH_BUCKET_SIZE     = 1 << 1,
  HR_DS_PARAM_PERSISTENCE        = 1 << 2,
  HR_DS_REDUCE_BUCKET_SIZE       = 1 << 3,
  HR_DS_ALLGATHER_BUCKET_SIZE    = 1 << 4,
  HR_DS_MAX_REUSE_DISTANCE       = 1 << 5,
  HR_DS_SUB_GROUP_SIZE           = 1 << 6,
  HR_DS_OFFLOAD_PARAM            = 1 << 7,
  HR_DS_OFFLOAD_OPTIMIZER        = 1 << 8,
  HR_DS_OVERLAP_COMM             = 1 << 9,
  HR_DS_CONTIGUOUS_GRADIENTS     = 1 << 10,
} HrDeepSpeedField;

typedef struct {
  guint            set;
  guint64          max_live_parameters;
  guint64          prefetch_bucket_size;
  guint64          param_persistence_threshold;
  guint64          reduce_bucket_size;
  guint64          allgather_bucket_size;
  guint64          max_reuse_distance;
  guint64          sub_group_size;
  HrOffloadDevice  offload_param;
  HrOffloadDevice  offload_optimizer;
  gboolean         overlap_comm;
  gboolean         contiguous_gradients;
} HrDeepSpeed;

/* Method-specific PEFT settings (the `peft` object); `set` has a bit per
 * field the scenario gave (HrPeftField). */
typedef enum {
  HR_PEFT_NUM_VIRTUAL_TOKENS   = 1 << 0,
  HR_PEFT_PREFIX_PROJECTION    = 1 << 1,
  HR_PEFT_ENCODER_HIDDEN_SIZE  = 1 << 2,
  HR_PEFT_BLOCK_SIZE           = 1 << 3,
  HR_PEFT_N_BUTTERFLY_FACTOR   = 1 << 4,
  HR_PEFT_DECOMPOSE_FACTOR     = 1 << 5,
  HR_PEFT_DECOMPOSE_BOTH       = 1 << 6,
  HR_PEFT_INIT_R               = 1 << 7,
  HR_PEFT_TARGET_R             = 1 << 8,
  HR_PEFT_D_INITIAL            = 1 << 9,
  HR_PEFT_SAVE_PROJECTION      = 1 << 10,
} HrPeftField;

typedef struct {
  guint     set;
  guint     num_virtual_tokens;
  gboolean  prefix_projection;
  guint     encoder_hidden_size;   /* 0: the model's hidden size */
  guint     block_size;            /* 0: the method's default */
  guint     n_butterfly_factor;
  int       decompose_factor;
  gboolean  decompose_both;
  guint     init_r;
  /* read and written back; neither changes the estimate: AdaLoRA's
   * budget masks lora_E in place, VeRA's initial scale and whether the
   * projections are saved change no tensor's size */
  guint     target_r;
  double    d_initial;
  gboolean  save_projection;
} HrPeft;

/* A scenario exactly as SCENARIO.md defines it, with every default already
 * applied.  The `*_set` flags remember what the file said, so that saving
 * writes back what the user chose and nothing more. */
typedef struct {
  char           *name;
  HrModel        *model;
  gboolean        model_inline;
  HrTask          task;
  HrMethod        method;
  gboolean        trainable_params_set;
  guint64         trainable_params;
  gboolean        lora_set;
  gboolean        lora_rank_set;
  gboolean        lora_targets_set;
  guint           lora_rank;
  HrLoraTargets   lora_targets;
  gboolean        weights_dtype_set;
  HrDtype         weights_dtype;
  HrCompute       compute;
  gboolean        optimizer_set;
  HrOptimizer     optimizer;
  guint           micro_batch;
  guint           grad_accum;
  gboolean        seq_len_set;
  guint           seq_len;
  gboolean        image_size_set;
  guint           image_width;
  guint           image_height;
  HrRecompute     recompute;
  HrLoss          loss;
  HrAttention     attention;
  guint           gpus;
  HrSharding      sharding;
  /* "sharding": "fsdp" without the version ("fsdp2" or "fsdp1") */
  gboolean        sharding_unversioned;
  HrOffload       offload;
  gboolean        framework_set;
  HrFramework     framework;
  gboolean        jax_preallocate;
  double          jax_mem_fraction;   /* XLA_PYTHON_CLIENT_MEM_FRACTION */
  gboolean        context_len_set;
  guint           context_len;
  HrDtype         kv_dtype;
  HrCausalMask    causal_mask;   /* a static KV cache's mask buffer (gpt-fast) */
  guint           galore_rank;   /* GaLore's projection rank */
  guint           apollo_rank;   /* APOLLO's projection rank (APOLLO-Mini: 1) */
  gboolean        int8_weights_set;
  gboolean        int8_weights;  /* Q-GaLore's --weight_quant: int8 linears */
  guint           int8_weight_group;   /* values per scale and zero point */
  gboolean        quant_compute_dtype_set;
  HrDtype         quant_compute_dtype;
  HrQuantMethod   quant_method;  /* who quantised int4/int8 weights */
  HrGpu          *gpu;            /* nullable */
  gboolean        gpu_inline;
  double          reserve;
  gboolean        has_replay;
  HrReplay        replay;

  /* The stacks' keys (data/SCENARIO.md, "Keys Headroom adds") */
  gboolean        stack_set;
  HrStack         stack;
  guint           lora_modules;          /* HrModule mask for HR_LORA_TARGETS_CUSTOM */
  gboolean        reshard_after_forward_set;
  gboolean        reshard_after_forward;
  /* optimizer.zero_grad(set_to_none=...) between steps, where the file
   * says it */
  gboolean        zero_grad_set_to_none_set;
  gboolean        zero_grad_set_to_none;
  gboolean        optimizer_in_bwd;
  gboolean        activation_offload;
  gboolean        compile;
  gboolean        packed;
  gboolean        optimizer_impl_set;
  HrOptimizerImpl optimizer_impl;
  gboolean        optimizer_state_dtype_set;
  HrDtype         optimizer_state_dtype;
  gboolean        has_deepspeed;
  HrDeepSpeed     deepspeed;
  gboolean        has_peft;
  HrPeft          peft;

  /* Parallelism beyond data parallel (data/SCENARIO.md): the degrees
   * divide `gpus`, which stays the job's total */
  guint           tensor_parallel;
  gboolean        sequence_parallel;
  guint           pipeline_parallel;
  HrPipelineSchedule pipeline_schedule;
  gboolean        virtual_stages_set;
  guint           virtual_stages;
  guint           context_parallel;
  guint           expert_parallel;
  gboolean        capacity_factor_set;   /* absent: dropless */
  double          capacity_factor;

  /* Serving engines */
  gboolean        engine_set;
  HrEngine        engine;
  gboolean        gpu_memory_utilization_set;
  double          gpu_memory_utilization;
  gboolean        mem_fraction_static_set;
  double          mem_fraction_static;   /* resolved from tensor_parallel unless set */
  gboolean        max_num_seqs_set;
  guint           max_num_seqs;
  gboolean        enforce_eager;
  gboolean        gpu_layers_set;
  guint           gpu_layers;            /* llama.cpp -ngl; resolved to every layer unless set */
  gboolean        block_size_set;
  guint           block_size;
  /* CTranslate2's compute_type, which sets weights_dtype, compute and
   * kv_dtype */
  gboolean        ct2_compute_type_set;
  HrCt2ComputeType ct2_compute_type;
  /* beam search: hypotheses decoded per sequence (0: the engine's
   * default, hr_scenario_get_beams) */
  guint           beams;

  /* vision and diffusion */
  gboolean        frames_set;
  guint           frames;           /* video: input frames per sample */
  gboolean        ema;              /* an EMA copy of the trained weights */
  gboolean        prior_preservation;  /* DreamBooth: a class image beside each */
  gboolean        vae_tiling;       /* the VAE decodes in tiles */
  gboolean        train_text_encoder;  /* diffusers' --train_text_encoder */
  gboolean        cache_latents;    /* the frozen encoders ran before training and left the GPU */
  guint           num_classes;      /* classes a detector or segmenter predicts; 0: the model's */
  guint           max_objects;      /* detection: boxes in the most crowded image; 0: default */
  /* "pytorch_version": the release the run used, MAJOR.MINOR; not set:
   * a current one (hr_scenario_pytorch_before) */
  gboolean        pytorch_version_set;
  guint           pytorch_major;
  guint           pytorch_minor;
  /* "transformers_version": the release an inference run used; not set:
   * a current one (hr_scenario_transformers_before) */
  gboolean        transformers_version_set;
  guint           transformers_major;
  guint           transformers_minor;
  /* "fuse_layers": AutoAWQ's fused modules (from_quantized(fuse_layers=True)) */
  gboolean        fuse_layers;
  /* "previous_cache_freed": the decode loop drops each layer's previous
   * tuple cache as the layer runs (hr-estimate-activations.c,
   * add_previous_cache) */
  gboolean        previous_cache_freed;
  gboolean        detection_framework_set;
  HrDetectionFramework detection_framework;
  gboolean        focal_loss_set;
  HrArchFocal     focal_loss;       /* "focal_loss"; see hr_scenario_get_focal_loss() */
  /* "pairwise_iou_keeps_corners": detectron2's code before its IoU freed
   * the corners (hr_scenario_get_iou_frees_corners) */
  gboolean        pairwise_iou_keeps_corners;
  guint           vae_encode_frames;  /* video VAE: frames encoded at once; 0: the model's */
  gboolean        text_encoder_cpu;   /* a pipeline's frozen text encoders run on the CPU */
  gboolean        offload_model;      /* the denoiser leaves the GPU before the VAE decodes */
  HrPipelineOffload pipeline_offload; /* "pipeline_offload": diffusers' model CPU offload */
  HrPipelineLibrary pipeline_library; /* "pipeline_library": whose port of the pipeline runs */

  /* speech */
  gboolean        audio_seconds_set;
  double          audio_seconds;      /* seconds of audio per sample */
  guint           sample_rate;        /* Hz; 0: HR_ARCH_DEFAULT_SAMPLE_RATE */
  /* "part_dtypes", by component index: 0 where the part follows
   * weights_dtype, else its HrDtype + 1 */
  guint8          part_dtype[HR_SCENARIO_MAX_PART_DTYPES];

  /* What the file held that Headroom does not read (its "x-" keys, at any
   * depth), as an object of the same shape, so that saving keeps them;
   * NULL when it held none. */
  JsonNode       *kept;
} HrScenario;

#define HR_SCENARIO_DEFAULT_RESERVE 0.10

/* A part's own weights dtype ("part_dtypes"); FALSE where it follows
 * weights_dtype. */
gboolean    hr_scenario_get_part_dtype (const HrScenario  *self,
                                        const HrComponent *component,
                                        HrDtype           *dtype);

HrScenario *hr_scenario_new_for_model (const HrModel *model);
HrScenario *hr_scenario_copy          (const HrScenario *scenario);
void        hr_scenario_free          (HrScenario       *scenario);

/* Parses and validates a scenario; errors are "FILE:LINE:COL: message". */
HrScenario *hr_scenario_new_from_doc  (HrJsonDoc  *doc,
                                       HrCatalog  *catalog,
                                       GError    **error);
HrScenario *hr_scenario_load          (const char *path,
                                       HrCatalog  *catalog,
                                       GError    **error);

/* Applies "key=value" (as `headroom-cli --set` takes it) to a parsed
 * document before it becomes a scenario.  The value is JSON when it parses
 * as JSON, a string otherwise; "lora.rank=8" sets a nested key. */
gboolean    hr_json_doc_apply_set     (HrJsonDoc  *doc,
                                       const char *assignment,
                                       GError    **error);

/* The scenario as JSON (the format SCENARIO.md gives), for Save As. */
JsonNode   *hr_scenario_to_json       (const HrScenario *scenario);
gboolean    hr_scenario_save          (const HrScenario *scenario,
                                       const char       *path,
                                       GError          **error);

/* Recomputes the values that follow from others (the weights dtype from the
 * method and precision, the optimizer from the task, the framework from the
 * model) wherever the scenario does not set them itself: call it after
 * changing a field in place. */
void        hr_scenario_resolve         (HrScenario       *scenario);

/* Resolved values that depend on the model. */
guint       hr_scenario_get_seq_len     (const HrScenario *scenario);
void        hr_scenario_get_image_size  (const HrScenario *scenario,
                                         guint            *width,
                                         guint            *height);
guint       hr_scenario_get_context_len (const HrScenario *scenario);
/* Speech: seconds of audio per sample (the scenario's, the model's default,
 * or 0 for a model that takes none), the sample rate, and the samples of a
 * clip. */
double      hr_scenario_get_audio_seconds (const HrScenario *scenario);
guint       hr_scenario_get_sample_rate   (const HrScenario *scenario);
guint       hr_scenario_get_audio_samples (const HrScenario *scenario);
/* Whether the model is a speech encoder that reads "audio_seconds". */
gboolean    hr_scenario_reads_audio       (const HrScenario *scenario);
/* Frames per sample: the scenario's, the model's default, or 1. */
guint       hr_scenario_get_frames      (const HrScenario *scenario);
gboolean    hr_scenario_is_training     (const HrScenario *scenario);
/* The modules adapters sit on (an HrModule mask), for any targets value. */
guint       hr_scenario_get_lora_modules (const HrScenario *scenario);
/* The engine's own pool as a share of the card (vLLM's
 * gpu_memory_utilization, SGLang's mem_fraction_static), 0 when the engine
 * has none (transformers, llama.cpp). */
double      hr_scenario_engine_pool_fraction (const HrScenario *scenario);
gboolean    hr_scenario_can_int8_weights     (const HrScenario *scenario);
guint       hr_scenario_get_beams            (const HrScenario *scenario);
void        hr_ct2_compute_type_resolve      (HrCt2ComputeType  type,
                                              HrDtype          *weights,
                                              HrCompute        *compute,
                                              HrDtype          *kv);
gboolean    hr_scenario_int8_weights         (const HrScenario *scenario);
/* Whether an engine with a preallocated KV pool serves the scenario. */
gboolean    hr_scenario_has_kv_pool     (const HrScenario *scenario);
/* Whether the method adds adapter weights beside the frozen model (LoRA
 * and its relatives), as opposed to training existing weights or none. */
gboolean    hr_method_is_peft           (HrMethod          method);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrScenario, hr_scenario_free)

/* Detection: the focal loss's implementation ("focal_loss", else the
 * framework's), and whether the backbone's eval-mode BatchNorm is
 * FrozenBatchNorm2d under the framework. */
HrArchFocal   hr_scenario_get_focal_loss       (const HrScenario *self);
/* Whether the run's PyTorch ("pytorch_version") is older than
 * @major.@minor; FALSE when the scenario does not say. */
gboolean      hr_scenario_pytorch_before       (const HrScenario *self,
                                                guint             major,
                                                guint             minor);
/* Whether the run's transformers ("transformers_version") is older than
 * @major.@minor; FALSE when the scenario does not say. */
gboolean      hr_scenario_transformers_before  (const HrScenario *self,
                                                guint             major,
                                                guint             minor);
gboolean      hr_scenario_get_detector_frozen_bn (const HrScenario *self);
/* Cascade Mask R-CNN: whether one mask head trains, not one per stage */
gboolean      hr_scenario_get_cascade_one_mask_head (const HrScenario *self);
gboolean      hr_scenario_get_dense_outputs_alive (const HrScenario *self);
/* detection: whether the IoU assigner frees the corners (detectron2) */
gboolean      hr_scenario_get_iou_frees_corners (const HrScenario *self);

G_END_DECLS
