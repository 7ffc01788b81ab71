/* hr-estimate-private.h: what the estimator's files share
 *
 * The estimate is split by concern: hr-estimate.c runs the plan and adds
 * up the buckets, hr-estimate-activations.c counts what the backward pass
 * keeps, hr-estimate-peft.c the adapters of each PEFT method,
 * hr-estimate-optimizer.c the optimizer's state and step, and
 * hr-estimate-sharding.c where model state lives across the data-parallel
 * group (DDP, ZeRO, FSDP1, FSDP2, offload).
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
  LayerRegime  regime;
} Part;

/* Where model state lives across the data-parallel group, decided once per
 * plan (hr-estimate-sharding.c). */
typedef struct {
  guint        dp;              /* data-parallel degree, the group ZeRO/FSDP shard over */
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
} ShardPlan;

struct _HrPlan {
  HrScenario *scenario;   /* a copy; its model carries resolved calibrations */
  GArray     *parts;      /* Part */
  GPtrArray  *calibration_notes;
  gboolean    training;
  guint       seq_len;
  guint       image_width;
  guint       image_height;
  guint       context_len;
  double      w_bytes;    /* a trainable weight */
  double      g_bytes;    /* its gradient */
  double      master_bytes;
  double      state_bytes;  /* an element of the optimizer's moments */
  ShardPlan   shard;
};

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

/* hr-estimate-optimizer.c */
void        hr_plan_setup_precision       (HrPlan     *self);
double      hr_plan_optimizer_state_bytes (HrPlan     *self,
                                           const Part *part);
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
void        hr_plan_add_deferred_gradients (HrPlan    *self,
                                            Acc       *acc);
void        hr_plan_add_sharding_overhead (HrPlan     *self,
                                           Acc        *acc);
void        hr_plan_add_sharding_notes    (HrPlan     *self,
                                           GPtrArray  *notes);

/* Bytes per parameter of the frozen base weights as stored. */
double      hr_plan_frozen_bytes_per_param (HrPlan     *self);

G_END_DECLS
