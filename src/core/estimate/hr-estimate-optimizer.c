/* hr-estimate-optimizer.c: precisions, the optimizer's state and its step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-estimate-private.h"

/* bitsandbytes' 8-bit optimizers quantise blocks of 256 values with one
 * fp32 absmax each (bitsandbytes/optim/optimizer.py @95f9af3,
 * Optimizer8bit.init_state: blocksize = 256; the paper's 2048, Dettmers et
 * al. 2022, was the first release's); tensors under min_8bit_size (4096
 * values) keep 32-bit state, which for transformer weights is only the
 * norms and biases. */
#define BNB8_BYTES_PER_STATE (1.0 + 4.0 / 256.0)

/* torchao's low-bit AdamW (torchao/optim/adam.py, subclass_8bit.py,
 * subclass_4bit.py, subclass_fp8.py @36027d8): codes plus an fp32 scale per
 * block, 8-bit and FP8 in blocks of 256, 4-bit packed two to a byte in
 * blocks of 128; tensors under 4096 values (or not a multiple of the
 * block) keep full-precision state. */
#define AO8_BYTES_PER_STATE  (1.0 + 4.0 / 256.0)
#define AO4_BYTES_PER_STATE  (0.5 + 4.0 / 128.0)
#define AOFP8_BYTES_PER_STATE (1.0 + 4.0 / 256.0)

void
hr_plan_setup_precision (HrPlan *self)
{
  const HrScenario *s = self->scenario;

  switch (s->compute)
    {
    case HR_COMPUTE_FP32:
    case HR_COMPUTE_TF32:
      self->w_bytes = self->g_bytes = 4;
      self->master_bytes = 0;
      break;
    case HR_COMPUTE_BF16_PURE:
    case HR_COMPUTE_FP16_PURE:
      /* Weights, gradients and optimizer state all in 16 bits: LitGPT's
       * "bf16-true", torchtune's dtype bf16, model.half() for fp16; no
       * master copy, torch.optim keeping state in the parameter's dtype. */
      self->w_bytes = self->g_bytes = 2;
      self->master_bytes = 0;
      break;
    case HR_COMPUTE_BF16_MIXED:
    case HR_COMPUTE_FP16_MIXED:
    case HR_COMPUTE_FP8_MIXED:
      /* Rajbhandari et al. 2020 ("ZeRO"), section 3.1: 16-bit weights and
       * gradients (2 + 2 bytes) and K = 12 bytes of optimizer state (fp32
       * master copy, momentum, variance).  With fp32 weights (torch.amp
       * autocast) the weights are their own master and gradients are fp32:
       * 4 + 4 + 8, the same 16 bytes split differently.  FSDP keeps its
       * shards in fp32 and gathers them in 16 bits (FSDP2
       * MixedPrecisionPolicy; FSDP1 MixedPrecision): the shard is the
       * master, so the split is 4 + 4 + 8 too. */
      self->w_bytes = s->weights_dtype == HR_DTYPE_FP32 || self->shard.fsdp ? 4 : 2;
      self->g_bytes = self->w_bytes;
      self->master_bytes = self->w_bytes < 4 ? 4 : 0;
      break;
    default:
      g_assert_not_reached ();
    }

  self->state_bytes = hr_dtype_element_bytes (s->optimizer_state_dtype);
}

static gboolean
optimizer_is_adam (HrOptimizer optimizer)
{
  return optimizer == HR_OPTIMIZER_ADAMW || optimizer == HR_OPTIMIZER_ADAM ||
         optimizer == HR_OPTIMIZER_PAGED_ADAMW;
}

/* The projected matrices of GaLore (Zhao et al. 2024, "GaLore:
 * Memory-Efficient LLM Training by Gradient Low-Rank Projection",
 * Algorithm 2; jiaweizzhao/GaLore @2cc66f8, galore_torch/galore_projector.py
 * and adamw.py).  torchrun_main.py projects every nn.Linear of the
 * attention and the MLP ("attn", "mlp" in the module's name); the
 * embedding, the head and the norms keep plain Adam.  A gradient of m x n
 * is projected to its larger side times r (GaLoreProjector.project: the
 * right singular vectors when m >= n, the left ones otherwise), so Adam's
 * two moments are 2 max(m, n) r values and the projector min(m, n) r in
 * the gradient's dtype (get_orthogonal_matrix returns
 * original_type); r is capped by the smaller side (the SVD has no more).
 * Calls @each with every projected matrix's sides, once per layer. */
typedef void (*MatrixFunc) (double m, double n, double layers, gpointer data);

static void
galore_matrices (const HrComponent *c,
                 MatrixFunc         each,
                 gpointer           data)
{
  double h = c->hidden, q = (double) c->heads * c->head_dim;
  double kv = (double) c->kv_heads * c->head_dim, I = c->intermediate, L = c->layers;

  each (q, h, L, data);            /* q_proj */
  each (kv, h, 2 * L, data);       /* k_proj, v_proj */
  each (h, q, L, data);            /* o_proj */
  each (I, h, (c->glu ? 2 : 1) * L, data);   /* gate_proj, up_proj */
  each (h, I, L, data);            /* down_proj */
}

typedef struct {
  double rank;
  double state;       /* bytes of a moment value */
  double rest_state;  /* bytes of a moment value of the parameters not projected */
  double projector;   /* bytes of a projector value */
  double bytes;
  double params;
  double largest;     /* the largest matrix's values */
  double largest_k;   /* its smaller side */
} GaloreSum;

static void
galore_add_cb (double   m,
               double   n,
               double   layers,
               gpointer data)
{
  GaloreSum *sum = data;
  double r = MIN (sum->rank, MIN (m, n));

  sum->bytes += layers * (2.0 * MAX (m, n) * r * sum->state + MIN (m, n) * r * sum->projector);
  sum->params += layers * m * n;
  if (m * n > sum->largest)
    {
      sum->largest = m * n;
      sum->largest_k = MIN (m, n);
    }
}

/* Q-GaLore keeps its projectors as 4-bit codes, one code a byte (uint8
 * after clamping to 0..15), with an fp32 scale and zero point for every
 * 256 values (VITA-Group/Q-GaLore @dd09cd3, q_galore_projector.py
 * GaLoreProjector._quantize; run_pretrain.py: --proj_bits 4,
 * --proj_group_size 256) */
#define QGALORE_PROJECTOR_BYTES (1.0 + 8.0 / 256.0)

static gboolean
optimizer_is_galore (HrOptimizer optimizer)
{
  return optimizer == HR_OPTIMIZER_GALORE_ADAMW || optimizer == HR_OPTIMIZER_GALORE_ADAMW_8BIT ||
         optimizer == HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT;
}

static gboolean
optimizer_is_apollo (HrOptimizer optimizer)
{
  return optimizer == HR_OPTIMIZER_APOLLO_ADAMW || optimizer == HR_OPTIMIZER_APOLLO_MINI;
}

/* The optimizers that keep Adam's moments in a low-rank space of each
 * attention and MLP matrix: GaLore, Q-GaLore and APOLLO. */
static gboolean
optimizer_is_low_rank (HrOptimizer optimizer)
{
  return optimizer_is_galore (optimizer) || optimizer_is_apollo (optimizer);
}

/* APOLLO (Zhu et al. 2024, "APOLLO: SGD-like Memory, AdamW-level
 * Performance", Algorithm 1; zhuhanqing/APOLLO @76b3472,
 * apollo_torch/apollo.py and random_projector.py) projects the same
 * matrices as GaLore (main_pretrain.py: "attn" and "mlp" linears) with a
 * random Gaussian matrix instead of an SVD: GradientProjector keeps that
 * matrix (min(m, n) x r, in the gradient's dtype) and the two moments are
 * zeros_like the projected gradient, max(m, n) x r, so the state is
 * GaLore's at APOLLO's rank.  APOLLO-Mini is rank 1 with one scale per
 * tensor (scripts/pretrain_c4/llama_7b_apollo_mini.sh: num_rank=1,
 * scale_type=tensor). */
static void
galore_sum (HrPlan            *self,
            const HrComponent *c,
            GaloreSum         *sum)
{
  HrOptimizer optimizer = self->scenario->optimizer;
  double rest = -1;

  memset (sum, 0, sizeof *sum);
  sum->rank = self->scenario->galore_rank;
  sum->state = self->state_bytes;
  sum->projector = self->g_bytes;
  switch (optimizer)
    {
    case HR_OPTIMIZER_GALORE_ADAMW_8BIT:
      sum->state = BNB8_BYTES_PER_STATE;
      break;
    case HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT:
      /* QGaLoreAdamW8bit: bitsandbytes' 8-bit moments over the projected
       * gradient (q_galore_adamw8bit.py @dd09cd3) */
      sum->state = BNB8_BYTES_PER_STATE;
      sum->projector = QGALORE_PROJECTOR_BYTES;
      break;
    case HR_OPTIMIZER_APOLLO_ADAMW:
    case HR_OPTIMIZER_APOLLO_MINI:
      sum->rank = optimizer == HR_OPTIMIZER_APOLLO_MINI ? 1 : self->scenario->apollo_rank;
      /* Q-APOLLO (int8 weights) steps with QAPOLLOAdamW, a bitsandbytes
       * Optimizer2State with optim_bits=32 (apollo_torch/q_apollo.py
       * @76b3472): fp32 moments; per layer (q_apollo_per_layer in
       * utils/setup.py) the parameters it does not project take
       * bnb.optim.Adam8bit */
      if (hr_scenario_int8_weights (self->scenario))
        {
          sum->state = 4;
          rest = self->scenario->optimizer_in_bwd ? BNB8_BYTES_PER_STATE : 4;
        }
      break;
    default:
      break;
    }
  sum->rest_state = rest < 0 ? sum->state : rest;
  if (c->kind == HR_COMPONENT_TRANSFORMER && c->layers > 0 && !hr_component_is_moe (c))
    galore_matrices (c, galore_add_cb, sum);
}

/* Q-GaLore's int8 weights (Zhang et al. 2024, "Q-GaLore: Quantized GaLore
 * with INT4 Projection and Layer-Adaptive Low-Rank Gradients", section 3;
 * q_galore_torch/utils/quantization.py @dd09cd3, QGaLoreLinear): the q, k,
 * v, o, gate, up and down projections are uint8 codes with an fp32 scale
 * and an fp32 zero point for every int8_weight_group values (the scales
 * are attributes, not parameters, so model.to(bfloat16) leaves them fp32).
 * Returns the bytes of @n trainable parameters of @part, or a negative
 * number when the weights keep the plan's precision. */
double
hr_plan_int8_weight_bytes (HrPlan     *self,
                           const Part *part,
                           double      n)
{
  const HrScenario *s = self->scenario;
  GaloreSum sum;
  double linear;

  if (!hr_scenario_int8_weights (s) || part->trainable < part->params)
    return -1;
  galore_sum (self, part->c, &sum);
  if (sum.params <= 0)
    return -1;
  linear = MIN (n, sum.params);

  return linear * (1.0 + 8.0 / s->int8_weight_group) + (n - linear) * self->w_bytes;
}

/* Optimizer state per trainable parameter, not counting a master copy. */
double
hr_plan_optimizer_state_bytes (HrPlan     *self,
                               const Part *part)
{
  double per_param;

  switch (self->scenario->optimizer)
    {
    case HR_OPTIMIZER_ADAMW:
    case HR_OPTIMIZER_ADAM:
    case HR_OPTIMIZER_PAGED_ADAMW:
      per_param = 2 * self->state_bytes;  /* first and second moments */
      break;
    case HR_OPTIMIZER_ADAMW_8BIT:
    case HR_OPTIMIZER_PAGED_ADAMW_8BIT:
      per_param = 2 * BNB8_BYTES_PER_STATE;
      break;
    case HR_OPTIMIZER_ADAMW_8BIT_AO:
      per_param = 2 * AO8_BYTES_PER_STATE;
      break;
    case HR_OPTIMIZER_ADAMW_4BIT:
      per_param = 2 * AO4_BYTES_PER_STATE;
      break;
    case HR_OPTIMIZER_ADAMW_FP8:
      per_param = 2 * AOFP8_BYTES_PER_STATE;
      break;
    case HR_OPTIMIZER_SGD:
    case HR_OPTIMIZER_NONE:
      per_param = 0;
      break;
    case HR_OPTIMIZER_GALORE_ADAMW:
    case HR_OPTIMIZER_GALORE_ADAMW_8BIT:
    case HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT:
    case HR_OPTIMIZER_APOLLO_ADAMW:
    case HR_OPTIMIZER_APOLLO_MINI:
      {
        GaloreSum sum;
        double trainable = part->trainable;

        /* the projected matrices when the whole part trains; adapters and
         * other parts keep plain Adam at the same bytes a moment */
        galore_sum (self, part->c, &sum);
        if (trainable <= 0 || trainable < part->params || sum.params <= 0)
          per_param = 2 * sum.rest_state;
        else
          per_param = (sum.bytes + 2 * sum.rest_state * MAX (0, trainable - sum.params)) /
                      trainable;
      }
      break;
    case HR_OPTIMIZER_SGD_MOMENTUM:
    case HR_OPTIMIZER_LION:
      /* one momentum buffer (Chen et al. 2023, "Symbolic Discovery of
       * Optimization Algorithms", Algorithm 2) */
      per_param = self->state_bytes;
      break;
    case HR_OPTIMIZER_ADAFACTOR:
      {
        /* Shazeer & Stern 2018: the second moment of an n x m matrix is
         * factored into n + m values; no momentum by default.  For a
         * transformer that is (rows + cols) per matrix; other parts are
         * counted as a 1% remainder of unfactored tensors. */
        const HrComponent *c = part->c;

        if (c->kind == HR_COMPONENT_TRANSFORMER && c->params > 0)
          {
            double h = c->hidden;
            double q = (double) c->heads * c->head_dim;
            double kv = (double) c->kv_heads * c->head_dim;
            double I = c->intermediate;
            double per_layer = (h + q) * 2 + (h + kv) * 2;
            double factored, rest;

            /* a mixture of experts factors every expert's matrices */
            if (hr_component_is_moe (c))
              {
                double moe = hr_component_moe_layers (c);
                double experts = c->experts_local > 0 ? c->experts_local : c->experts;

                per_layer += ((c->layers - moe) * (c->glu ? 3 : 2) * (h + I) +
                              moe * (experts * (c->glu ? 3 : 2) * (h + c->expert_intermediate) +
                                     c->shared_experts * (c->glu ? 3 : 2) *
                                       (h + c->shared_expert_intermediate) +
                                     h + c->experts)) / MAX (1, c->layers);
              }
            else
              per_layer += (c->glu ? 3 : 2) * (h + I);
            factored = per_layer * c->layers + (c->vocab > 0 ? 2.0 * (c->vocab + h) : 0);
            rest = MAX (0, (double) c->params - hr_component_linear_params (c) -
                                  hr_component_embedding_params (c));

            per_param = self->state_bytes * (factored + rest) / (double) c->params;
          }
        else
          per_param = self->state_bytes * 0.01;
      }
      break;
    default:
      g_assert_not_reached ();
    }

  return per_param;
}

static gboolean
optimizer_is_paged (HrOptimizer optimizer)
{
  return optimizer == HR_OPTIMIZER_PAGED_ADAMW_8BIT || optimizer == HR_OPTIMIZER_PAGED_ADAMW;
}

void
hr_plan_add_optimizer (HrPlan *self,
                       Acc    *acc)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  const char *oname = hr_enum_to_nick (hr_optimizer_names, s->optimizer);

  if (!self->training)
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      double np = p->trainable + p->adapters;
      double states, master;

      if (np <= 0)
        continue;

      master = np * self->master_bytes;
      states = np * hr_plan_optimizer_state_bytes (self, p);

      if (master > 0)
        {
          hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                      hr_plan_on_device (self, master, sp->shard_states, sp->offload_states),
                      hr_plan_on_device (self, master, sp->shard_states, sp->offload_states),
                      hr_plan_on_device (self, master, sp->shard_states, sp->offload_states),
                      _("%s: fp32 master copy of the trainable weights"), p->c->name);
          if (sp->offload_states && !sp->nvme)
            acc->host_states += hr_plan_sharded (self, master, sp->shard_states);
        }

      if (states > 0)
        {
          gboolean paged = optimizer_is_paged (s->optimizer);
          double dev = hr_plan_on_device (self, states, sp->shard_states, sp->offload_states);

          /* Paged optimizers allocate unified memory outside PyTorch's
           * allocator that the driver evicts to host RAM under pressure
           * (bitsandbytes docs, "Paged optimizers"; only tensors of 1e5
           * values and more are paged, optimizer.py get_state_buffer). */
          hr_acc_add (acc, HR_BUCKET_OPTIMIZER, paged ? HR_METRIC_DEVICE_USED : HR_METRIC_ALLOCATED,
                      HR_BASIS_DERIVED, dev, paged ? 0 : dev, dev * 1.01,
                      paged
                        ? _("%s: %s state (%.3g bytes per trainable parameter), paged: can move "
                            "to host RAM")
                        : _("%s: %s state (%.3g bytes per trainable parameter)"),
                      p->c->name, oname, states / np);
          if (sp->offload_states && !sp->nvme)
            acc->host_states += hr_plan_sharded (self, states, sp->shard_states);
        }

      /* AdaLoRA's importance and its two averages, three fp32 values
       * per adapter parameter, beside the optimizer */
      if (p->adapter_state > 0 && p->adapters > 0)
        {
          double bytes = p->adapters * p->adapter_state * 4.0;

          hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                      bytes, bytes, bytes,
                      _("%s: AdaLoRA's importance estimates (the last importance and its two "
                        "averages, fp32 per adapter parameter)"), p->c->name);
        }
    }
}

/* The optimizer step's own temporaries.
 *
 * torch.optim's foreach implementation (the default) runs each op over the
 * whole list of parameters of a device and dtype: _multi_tensor_adamw
 * builds exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs), one
 * intermediate as large as a state (torch/optim/adamw.py / adam.py; "foreach
 * ... at the cost of more peak memory by intermediates being a tensorlist",
 * torch.optim docs).  fused=True runs one kernel per group with no
 * intermediate; the for-loop implementation builds that intermediate one
 * parameter at a time, so only the largest parameter's.  bitsandbytes'
 * optimizers step one parameter at a time in a fused CUDA kernel; torchao's
 * one parameter at a time in a compiled function that dequantises the
 * moments to fp32.  Under optimizer_in_bwd each parameter has its own
 * optimizer, stepped from its gradient hook: one parameter at a time too. */
void
hr_plan_add_step_temporaries (HrPlan *self,
                              Acc    *acc)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  double total = 0, largest = 0, temp, extra;
  gboolean per_param;

  gboolean ao = s->optimizer == HR_OPTIMIZER_ADAMW_8BIT_AO ||
                s->optimizer == HR_OPTIMIZER_ADAMW_4BIT || s->optimizer == HR_OPTIMIZER_ADAMW_FP8;

  if (!self->training || sp->offload_states)
    return;

  /* GaLore steps one parameter at a time (a Python loop in adamw.py); at
   * every update_proj_gap-th step the projector is refreshed by an SVD of
   * that gradient in fp32 (galore_projector.py get_orthogonal_matrix:
   * matrix.float(), torch.linalg.svd(full_matrices=False)): the fp32 copy
   * with U and Vh, (m n + m k + k n) values for the largest matrix, and
   * the gradient projected back to full size.  APOLLO draws its projector
   * instead, but GradientProjector.get_orthogonal_matrix still copies the
   * gradient to fp32 first (random_projector.py @76b3472: matrix.float()),
   * and its step scales the whole gradient into a new tensor (apollo.py:
   * scaled_grad = p.grad * grad_scaling_factor). */
  if (optimizer_is_low_rank (s->optimizer))
    {
      double gl_largest = 0, k = 0, svd;

      for (guint i = 0; i < self->parts->len; i++)
        {
          const Part *p = &g_array_index (self->parts, Part, i);
          GaloreSum sum;

          if (p->trainable <= 0)
            continue;
          galore_sum (self, p->c, &sum);
          if (sum.largest > gl_largest)
            {
              gl_largest = sum.largest;
              k = sum.largest_k;
            }
        }
      if (gl_largest <= 0)
        return;
      if (optimizer_is_apollo (s->optimizer))
        {
          double refresh = MAX (4.0, self->g_bytes) * gl_largest;

          hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, refresh,
                      self->g_bytes * gl_largest, refresh,
                      _("APOLLO's step: the largest gradient matrix (%.0fM values) copied to "
                        "fp32 for its projection, or scaled into a new tensor"),
                      gl_largest / 1e6);
          return;
        }
      svd = 4.0 * (2.0 * gl_largest + k * k) + self->g_bytes * gl_largest;
      hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, svd,
                  self->g_bytes * gl_largest, svd,
                  _("GaLore's projector refresh: an fp32 SVD of the largest gradient matrix "
                    "(%.0fM values) and its gradient projected back"), gl_largest / 1e6);
      return;
    }

  if (!(optimizer_is_adam (s->optimizer) || s->optimizer == HR_OPTIMIZER_LION ||
        s->optimizer == HR_OPTIMIZER_ADAFACTOR || ao))
    return;
  if (!ao && (s->optimizer_impl == HR_OPTIMIZER_IMPL_FUSED ||
              s->optimizer == HR_OPTIMIZER_PAGED_ADAMW))
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      double np = p->trainable + p->adapters;
      const HrComponent *c = p->c;
      double biggest;

      if (np <= 0)
        continue;
      total += np * (ao ? 8.0 : self->state_bytes);

      /* the largest single tensor: the embedding or head, or one MLP
       * matrix; adapters are small matrices */
      if (p->trainable > 0 && c->kind == HR_COMPONENT_TRANSFORMER)
        biggest = MAX ((double) c->vocab * c->hidden, (double) c->hidden * hr_plan_widest_mlp (c));
      else if (c->arch != NULL)
        /* a walked part: its largest layer, as the walk counts it */
        biggest = hr_plan_arch_largest_params (self, c);
      else
        biggest = c->kind == HR_COMPONENT_TRANSFORMER && c->layers > 0
                    ? np / c->layers / 4.0 : np;
      /* torchao's single_param_adam keeps fp32 copies of both moments for
       * the update ("keep high precision copy for param update",
       * torchao/optim/adam.py @36027d8): 8 bytes a value of the tensor it
       * steps */
      largest = MAX (largest, MIN (biggest, np) * (ao ? 8.0 : self->state_bytes));
    }

  /* torchao steps one parameter at a time */
  per_param = s->optimizer_impl == HR_OPTIMIZER_IMPL_FOR_LOOP || s->optimizer_in_bwd || ao;
  temp = per_param ? largest : hr_plan_sharded (self, total, sp->shard_states);

  /* The step runs after the activations are freed: its temporaries only
   * raise the peak by what they exceed them by (under optimizer_in_bwd the
   * step runs inside the backward pass, beside the activations). */
  extra = s->optimizer_in_bwd ? temp : MAX (0, temp - acc->activations);
  hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, extra, extra,
              extra,
              per_param
                ? _("optimizer step temporaries, one parameter at a time")
                : _("optimizer step temporaries (foreach), beyond what the freed activations "
                    "leave"));
}
