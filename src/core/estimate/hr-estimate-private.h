/* hr-estimate-private.h: what the estimator's files share
 *
 * The estimate is split by concern: hr-estimate.c runs the plan and adds
 * up the buckets, hr-estimate-activations.c counts what the backward pass
 * keeps, hr-estimate-peft.c the adapters of each PEFT method,
 * hr-estimate-optimizer.c the optimizer's state and step, and
 * hr-estimate-sharding.c where model state lives across the data-parallel
 * group (DDP, ZeRO, FSDP1, FSDP2, offload), hr-estimate-parallel.c what one
 * GPU holds of a model split by tensor, pipeline, context and expert
 * parallelism, hr-estimate-serving.c the serving engines (vLLM, SGLang,
 * llama.cpp), and hr-estimate-vision.c the CNN, U-Net and VAE parts walked
 * from their architecture (hr-arch.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"

G_BEGIN_DECLS

#define GiB (1024.0 * 1024.0 * 1024.0)
#define MiB (1024.0 * 1024.0)

/* What the backward pass keeps of one transformer layer. */
typedef struct {
  double   e;        /* bytes of an activation element */
  double   e_res;    /* bytes of the residual stream (fp32 under autocast with fp32 weights) */
  gboolean qkv_saved;
  gboolean o_saved;
  gboolean fc_saved;
  gboolean down_saved;
  gboolean head_saved;   /* the output head's input (its weight, or an adapter on it, trains) */
  double   head_per_token;   /* bytes an adapter on the embedding or head keeps per token */
  gboolean norm_trainable;
  /* bytes per element of the input copies each quantised (bitsandbytes)
   * projection saves, 0 if none */
  double   quant_input;
  /* bytes per token the adapters keep beyond the layer's own tensors:
   * their own copies of inputs, x·A, the outputs DoRA, VeRA or IA3 scale */
  double   adapter_per_token;
  gboolean keep_s2;  /* eager attention without selective recomputation */
  /* bytes per attention score element kept when keep_s2 */
  double   score_bytes;
  /* tokens attention reads beyond the sequence (prefix tuning's virtual
   * keys and values) */
  double   extra_kv_tokens;
  /* torch.compile: Inductor's partitioner recomputes cheap pointwise ops
   * in the backward pass instead of saving their outputs */
  gboolean compiled;
  /* what divides the tensors of `hidden` values a token keeps (the norms'
   * inputs, the projections' inputs, dropout masks): the tensor-parallel
   * degree under sequence parallelism, else 1 (Korthikanti et al. 2022,
   * eq. 2 against eq. 4) */
  double   h_split;
  /* what divides the inputs the first projections (and the output head)
   * save under sequence parallelism: the degree where the input is saved
   * before its all-gather (Megatron), 1 where the gathered input is saved
   * (torchtitan's ColwiseParallel redistributes to Replicate first) */
  double   in_split;
  /* a mixture of experts: the router trains (its logits keep a gradient
   * path to the routing weights) */
  gboolean router_trains;
} LayerRegime;

/* One component as this scenario uses it. */
typedef struct {
  HrComponent *c;        /* owned by the plan's model */
  double       params;
  double       trainable;  /* base parameters that train */
  double       adapters;   /* adapter parameters added that train */
  /* adapter parameters added that stay frozen (LoRA-FA's A, VeRA's A and B) */
  double       adapter_frozen;
  /* extra fp32 values per adapter parameter the method keeps (AdaLoRA) */
  double       adapter_state;
  double       frozen;
  gboolean     backprop;   /* keeps activations for a backward pass */
  gboolean     logits;     /* computes the loss over a vocabulary */
  gboolean     kv_cache;   /* inference: an autoregressive cache */
  guint        tokens;
  guint        extra_tokens;   /* prompt tuning's virtual tokens in front of the sequence */
  /* batch-independent bytes the adapters keep for the backward pass (the
   * full delta weights LoHa and LoKr build, BOFT's rotations) */
  double       adapter_static;
  /* the largest transient the adapters build in one layer's forward (DoRA's
   * weight norm), alive only while that layer runs */
  double       adapter_transient;
  /* "pipeline_offload" "model": the part's weights, on the GPU only while
   * it runs (its phase, hr-estimate-vision.c) */
  double       alone_weights;
  LayerRegime  regime;
} Part;

/* Where model state lives across the data-parallel group, decided once per
 * plan (hr-estimate-sharding.c). */
typedef struct {
  guint        dp;              /* the group ZeRO/FSDP shard over: data x context parallel */
  guint        tp;              /* tensor-parallel degree */
  guint        pp;              /* pipeline-parallel degree */
  guint        cp;              /* context-parallel degree */
  guint        ep;              /* expert-parallel degree */
  gboolean     sp;              /* sequence parallelism (with tp > 1) */
  gboolean     fsdp;            /* FSDP1 or FSDP2 */
  gboolean     zero;            /* DeepSpeed ZeRO-1/2/3 */
  gboolean     shard_weights;
  gboolean     shard_grads;
  gboolean     shard_states;
  gboolean     offload_params;  /* weights in host memory */
  gboolean     offload_states;  /* optimizer state (and its master copy) in host memory */
  gboolean     nvme;            /* DeepSpeed offload to NVMe rather than host RAM */
  /* gradient accumulation under no_sync / set_requires_gradient_sync(False):
   * unsharded gradients accumulate on every GPU */
  gboolean     unsharded_accumulation;
  /* FSDP1 units that mix frozen and trainable parameters under
   * use_orig_params=True compute a gradient for the whole unit */
  gboolean     whole_unit_grads;
  /* the output head's group keeps the embedding too (unsharded together) */
  gboolean     embedding_with_head;
  gboolean     reshard_after_forward;
  /* bytes per value of the unsharded gradients accumulated under no_sync
   * (or over a pipeline's micro-batches); 0: the dtype the backward pass
   * computes them in */
  double       accumulated_bytes;
} ShardPlan;

/* Which pipeline stage a plan estimates: with pipeline parallelism the
 * first stage holds the embedding and the most micro-batches in flight,
 * the last one the output head and the loss. */
typedef enum {
  HR_STAGE_ONLY,
  HR_STAGE_FIRST,
  HR_STAGE_LAST,
} HrStage;

struct _HrPlan {
  HrScenario *scenario;   /* a copy; its model carries resolved calibrations */
  HrSizeUnit  unit;       /* of the sizes its notes and labels print */
  HrStage     stage;
  HrPlan     *last_stage; /* pipeline parallelism: the last stage's plan (this is the first's) */
  /* "fsdp" without a version: the plan of what FSDP1 would hold, for the
   * range's high end (NULL where the version is known) */
  HrPlan     *fsdp1_bound;
  gboolean    is_fsdp1_bound;
  /* what one GPU holds of the model's parameters (1 without tensor,
   * pipeline or expert parallelism) */
  double      local_share;
  GArray     *parts;      /* Part */
  GPtrArray  *calibration_notes;
  gboolean    training;
  guint       seq_len;
  guint       image_width;
  guint       image_height;
  guint       context_len;
  guint       frames;     /* video: frames per sample */
  double      w_bytes;    /* a trainable weight */
  double      g_bytes;    /* its gradient */
  double      master_bytes;
  double      state_bytes;  /* an element of the optimizer's moments */
  ShardPlan   shard;
};

/* One phase of a pipeline's inference that runs apart from the denoising:
 * its working set, the weights it holds on the GPU when it runs alone
 * (the others moved to the CPU), and its line's label. */
typedef struct {
  double      working_set;
  double      weights;
  gboolean    alone;
  gboolean    cache_emptied;  /* torch.cuda.empty_cache () between it and the denoising */
  char       *label;
} PipelinePhase;

/* The running sums of one estimate. */
typedef struct {
  HrPlan     *plan;
  HrEstimate *est;        /* NULL when only the peak is wanted */
  double      bytes[HR_N_BUCKETS];
  double      low[HR_N_BUCKETS];
  double      high[HR_N_BUCKETS];
  double      by_metric[3];
  double      by_metric_low[3];
  double      by_metric_high[3];
  double      activations;   /* what the backward pass keeps, all parts */
  /* of which what the architecture walk's parts (hr-arch.h) save for the
   * backward pass, or keep with checkpointing */
  double      walk_saved;
  /* host memory per GPU: offloaded weights, offloaded optimizer state and
   * gradients, offloaded activations */
  double      host_params;
  double      host_states;
  double      host_activations;
  /* gradients whose count depends on the activations (see
   * hr_plan_add_deferred_gradients): all of them, and those created first */
  double      deferred_grads;
  double      deferred_first;
  double      deferred_params;
  /* the layer rebuilt at the end of the backward pass under full
   * recomputation */
  double      recompute_working_set;
  /* pipeline parallelism: the share of the per-micro-batch layer
   * activations alive at the stage's peak, and of the gradients then */
  double      pipeline_activations;
  double      pipeline_gradients;
  /* serving: the KV cache one sequence of context_len needs, and what the
   * engine's pool must hold beside the KV cache */
  double      kv_per_sequence;
  double      kv_pool;
  double      kv_pool_low;
  double      kv_pool_high;
  double      kv_rest;
  double      kv_rest_low;
  double      kv_rest_high;
  /* what loading the model leaves in PyTorch's cache (reserved), and
   * the dequantising transient of one weight matrix that runs with a
   * layer's backward, not with the loss */
  double      load_reserved;
  double      load_reserved_high;
  /* what loading holds allocated at its own peak, where that can rise
   * above the step's (AutoAWQ's fused layers, hr-estimate-sharding.c) */
  double      load_allocated;
  double      dequant_transient;
  double      micro_batch;
  /* the largest forward pass of a part that runs apart from the backward
   * pass (a frozen VAE encoding the batch), and its line's label */
  double      forward_transient;
  char       *forward_transient_label;
  HrBasis     forward_transient_basis;
  /* inference of a diffusion or video pipeline: the text encoding before
   * the denoising and the VAE's decode after it, each a phase of its own
   * (hr-estimate-vision.c, PipelinePhase) */
  PipelinePhase encode_phase;
  PipelinePhase decode_phase;
} Acc;

void        hr_acc_add        (Acc        *acc,
                               HrBucket    bucket,
                               HrMetric    metric,
                               HrBasis     basis,
                               double      bytes,
                               double      low,
                               double      high,
                               const char *format,
                               ...) G_GNUC_PRINTF (8, 9);
void        hr_acc_note       (Acc        *acc,
                               const char *format,
                               ...) G_GNUC_PRINTF (2, 3);

/* One kind of run's range (hr-range-table.h): the estimate reaches from
 * central x (1 - low) to central x (1 + high). */
typedef struct {
  const char *kind;
  double      low;
  double      high;
  guint       rows;      /* residuals the half-widths rest on */
  guint       families;  /* source families those came from */
  const char *from;      /* the kind whose residuals they are */
} HrRangeRow;

/* hr-estimate-range.c */
const HrRangeRow *hr_plan_range_row (const HrPlan *self);

/* hr-estimate-activations.c */
void        hr_plan_setup_regime          (HrPlan     *self,
                                           Part       *part);
double      hr_plan_part_activations      (HrPlan     *self,
                                           const Part *part,
                                           double     *logits_out,
                                           double     *layer_out);
double      hr_plan_part_forward_working_set (HrPlan     *self,
                                              const Part *part);
void        hr_plan_add_activations       (HrPlan     *self,
                                           Acc        *acc,
                                           double      micro_batch);

/* hr-estimate-peft.c */
void        hr_plan_setup_adapters        (HrPlan     *self,
                                           Part       *part);
void        hr_plan_setup_adapter_regime  (HrPlan     *self,
                                           Part       *part);
double      hr_lora_params                (const HrComponent *c,
                                           guint              rank,
                                           guint              modules);
void        hr_plan_add_gptq_backward     (HrPlan     *self,
                                           Acc        *acc);

/* hr-estimate-optimizer.c */
void        hr_plan_setup_precision       (HrPlan     *self);
double      hr_plan_optimizer_state_bytes (HrPlan     *self,
                                           const Part *part);
double      hr_plan_int8_weight_bytes     (HrPlan     *self,
                                           const Part *part,
                                           double      n);
void        hr_plan_add_optimizer         (HrPlan     *self,
                                           Acc        *acc);
void        hr_plan_add_step_temporaries  (HrPlan     *self,
                                           Acc        *acc);

/* hr-estimate-sharding.c */
guint       hr_plan_dp_degree             (const HrScenario *scenario);
void        hr_plan_setup_sharding        (HrPlan     *self);
double      hr_plan_sharded               (HrPlan     *self,
                                           double      bytes,
                                           gboolean    condition);
double      hr_plan_on_device             (HrPlan     *self,
                                           double      bytes,
                                           gboolean    shard,
                                           gboolean    offloaded);
void        hr_plan_add_weights           (HrPlan     *self,
                                           Acc        *acc);
void        hr_plan_add_gradients         (HrPlan     *self,
                                           Acc        *acc);
/* Whether no gradient exists when the backward pass starts (set to None
 * between steps, no accumulation): each is made as the activations go. */
gboolean    hr_plan_gradients_overlap_activations (HrPlan *self);
void        hr_plan_add_deferred_gradients (HrPlan    *self,
                                            Acc       *acc);
void        hr_plan_add_sharding_overhead (HrPlan     *self,
                                           Acc        *acc);
void        hr_plan_add_sharding_notes    (HrPlan     *self,
                                           GPtrArray  *notes);

/* hr-estimate-parallel.c */
guint       hr_plan_shard_degree          (const HrScenario *scenario);
void        hr_plan_localize              (HrPlan     *self);
double      hr_plan_pipeline_in_flight    (HrPlan     *self);
void        hr_plan_pipeline_peak         (HrPlan     *self,
                                           double      activations,
                                           double      gradients,
                                           double     *activation_share,
                                           double     *gradient_share);
void        hr_plan_add_context_parallel  (HrPlan     *self,
                                           Acc        *acc,
                                           double      micro_batch);
void        hr_plan_add_parallel_notes    (HrPlan     *self,
                                           GPtrArray  *notes);

/* hr-estimate-serving.c */
gboolean    hr_plan_is_served             (HrPlan     *self);
guint       hr_plan_serving_max_seqs      (HrPlan     *self);
double      hr_plan_kv_bytes_per_token    (HrPlan     *self,
                                           const Part *part);
gboolean    hr_plan_add_llamacpp_weights  (HrPlan     *self,
                                           Acc        *acc);
gboolean    hr_plan_add_ctranslate2_weights (HrPlan   *self,
                                             Acc      *acc);
gboolean    hr_plan_add_encoder_decoder   (HrPlan     *self,
                                           Acc        *acc,
                                           double      b);
void        hr_plan_add_serving           (HrPlan     *self,
                                           Acc        *acc,
                                           double      micro_batch);
void        hr_plan_finish_serving        (HrPlan     *self,
                                           Acc        *acc);
void        hr_plan_add_serving_notes     (HrPlan     *self,
                                           HrEstimate *est);

/* The widest MLP of a transformer part: dense, routed expert or shared. */
double      hr_plan_widest_mlp            (const HrComponent *c);
/* hr-estimate-vision.c */
void        hr_plan_add_arch_part         (HrPlan     *self,
                                           Acc        *acc,
                                           Part       *part,
                                           double      micro_batch);
void        hr_plan_add_forward_transient (HrPlan     *self,
                                           Acc        *acc);
gboolean    hr_plan_is_pipeline_inference (HrPlan     *self);
void        hr_plan_set_phase             (PipelinePhase *phase,
                                           const Part    *part,
                                           double         working_set,
                                           char          *label);
double      hr_plan_arch_lora_params      (HrPlan            *self,
                                           const HrComponent *component);
double      hr_plan_arch_largest_params   (HrPlan            *self,
                                           const HrComponent *component);
void        hr_plan_add_ema               (HrPlan     *self,
                                           Acc        *acc);
void        hr_plan_add_vision_notes      (HrPlan     *self,
                                           GPtrArray  *notes);
gboolean    hr_plan_part_pipeline_frozen  (HrPlan            *self,
                                           const HrComponent *component);
gboolean    hr_plan_part_unloaded         (HrPlan            *self,
                                           const HrComponent *c);
gboolean    hr_plan_part_offloaded        (HrPlan            *self,
                                           const HrComponent *c);
double      hr_plan_part_largest_submodule (HrPlan            *self,
                                            const HrComponent *c);
/* The pipeline parts held in host RAM (cache_latents, text_encoder_cpu,
 * offload_model), as a host item of @est; @processes: copies in the job. */
void        hr_plan_add_host_parts        (HrPlan            *self,
                                           HrEstimate        *est,
                                           double             processes);

/* Bytes per parameter of the frozen base weights as stored. */
double      hr_plan_frozen_bytes_per_param (HrPlan     *self);

G_END_DECLS
