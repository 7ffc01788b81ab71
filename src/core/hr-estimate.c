/* hr-estimate.c: a scenario's memory, in five buckets per GPU
 *
 * Every constant below says where it comes from.  The estimate models what
 * the common PyTorch stack (transformers, PEFT, bitsandbytes, torch.optim)
 * keeps alive at the peak of a training step; DESIGN.md gives the buckets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-estimate.h"
#include "hr-fit-rule.h"

#define GiB (1024.0 * 1024.0 * 1024.0)
#define MiB (1024.0 * 1024.0)

/* The CUDA context: the driver's per-process state and the kernel images
 * of the CUDA libraries.  It shows in nvidia-smi but never in PyTorch's
 * allocator statistics (PyTorch "CUDA semantics" notes, memory management:
 * "memory_allocated ... does not include the CUDA context").  With CUDA 11.7+
 * lazy module loading it is typically 0.3-0.6 GiB; older CUDA or eager
 * loading reaches 1 GiB (NVIDIA CUDA C++ Programming Guide, "Lazy Loading").
 * The same holds for XLA's CUDA client under JAX. */
#define CUDA_CONTEXT_BYTES       (0.5 * GiB)
#define CUDA_CONTEXT_LOW_BYTES   (0.3 * GiB)
#define CUDA_CONTEXT_HIGH_BYTES  (1.0 * GiB)

/* cuBLAS workspaces, which PyTorch takes from its caching allocator: the
 * default CUBLAS_WORKSPACE_CONFIG is ":4096:8" on Hopper (32 MiB) and
 * ":4096:2:16:8" before it (8.1 MiB); PyTorch docs, torch.backends.cuda,
 * and "Reproducibility" (CUBLAS_WORKSPACE_CONFIG). */
#define CUBLAS_WORKSPACE_BYTES   (32.0 * MiB)

/* Allocator slack, reserved minus allocated.  Activations come and go in
 * many sizes and fragment the caching allocator's segments; weights and
 * optimizer state are allocated once.  PyTorch "CUDA semantics" notes on
 * the caching allocator and expandable_segments; seed 002 ("a large and
 * growing gap is fragmentation").  Central 8% of the transient memory and 2%
 * of the rest, with 0-20% and 0-5% as the range (variable sequence lengths
 * reach the top of it; expandable_segments keeps it near the bottom). */
#define FRAG_DYNAMIC      0.08
#define FRAG_DYNAMIC_LOW  0.00
#define FRAG_DYNAMIC_HIGH 0.20
#define FRAG_STATIC       0.02
#define FRAG_STATIC_LOW   0.00
#define FRAG_STATIC_HIGH  0.05

/* XLA's pool under JAX (its share of the card, and whether it is taken up
 * front) is the fit rule's: hr-fit-rule.c, with its sources. */

/* The transformer closed form is exact for the tensors it counts; the
 * range covers what implementations add or drop (extra casts, fused
 * kernels, dropout left on).  A published per-sample figure is good to the
 * run-to-run variance its source reports (NVIDIA quotes 5-6% for GR00T). */
#define ACT_CLOSED_LOW  0.85
#define ACT_CLOSED_HIGH 1.20

/* bitsandbytes' 8-bit optimizers quantise blocks of 2048 values with one
 * fp32 absmax each (Dettmers et al. 2022, "8-bit Optimizers via Block-wise
 * Quantization", section 2). */
#define OPT8_BYTES_PER_STATE (1.0 + 4.0 / 2048.0)

static gint counter_estimates;
static gint counter_plans;
static gint counter_passes;
static gint counter_copies;
static gint counter_analyses;

void
hr_estimate_counters_get (HrEstimateCounters *counters)
{
  g_return_if_fail (counters != NULL);

  counters->estimates = (guint) g_atomic_int_get (&counter_estimates);
  counters->plans = (guint) g_atomic_int_get (&counter_plans);
  counters->passes = (guint) g_atomic_int_get (&counter_passes);
  counters->scenario_copies = (guint) g_atomic_int_get (&counter_copies);
  counters->analyses = (guint) g_atomic_int_get (&counter_analyses);
}

void
hr_estimate_counters_reset (void)
{
  g_atomic_int_set (&counter_estimates, 0);
  g_atomic_int_set (&counter_plans, 0);
  g_atomic_int_set (&counter_passes, 0);
  g_atomic_int_set (&counter_copies, 0);
  g_atomic_int_set (&counter_analyses, 0);
}

void
hr_estimate_counters_count_copy (void)
{
  g_atomic_int_inc (&counter_copies);
}

void
hr_estimate_counters_count_analysis (void)
{
  g_atomic_int_inc (&counter_analyses);
}

static const char *bucket_labels[] = {
  N_("Weights"), N_("Gradients"), N_("Optimizer state"), N_("Activations"), N_("Overhead"),
};

const HrEnumName hr_bucket_names[] = {
  { HR_BUCKET_WEIGHTS, "weights" },
  { HR_BUCKET_GRADIENTS, "gradients" },
  { HR_BUCKET_OPTIMIZER, "optimizer" },
  { HR_BUCKET_ACTIVATIONS, "activations" },
  { HR_BUCKET_OVERHEAD, "overhead" },
  { 0, NULL },
};

const char *
hr_bucket_get_label (HrBucket bucket)
{
  g_return_val_if_fail (bucket < HR_N_BUCKETS, NULL);
  return _(bucket_labels[bucket]);
}

double
hr_activations_korthikanti (double seq_len,
                            double micro_batch,
                            double hidden,
                            double heads,
                            double layers)
{
  return seq_len * micro_batch * hidden * (34.0 + 5.0 * heads * seq_len / hidden) * layers;
}

/* What the backward pass keeps of one transformer layer. */
typedef struct {
  double   e;        /* bytes of an activation element */
  double   e_res;    /* bytes of the residual stream (fp32 under autocast with fp32 weights) */
  gboolean qkv_saved;
  gboolean o_saved;
  gboolean fc_saved;
  gboolean down_saved;
  gboolean norm_trainable;
  double   quant_input;  /* bytes per element of the input copies 4/8-bit layers save, 0 if none */
  gboolean keep_s2;  /* eager attention without selective recomputation */
  guint    lora_matrices;
  guint    lora_rank;
} LayerRegime;

/* One component as this scenario uses it. */
typedef struct {
  HrComponent *c;        /* owned by the plan's model */
  double       params;
  double       trainable;  /* base parameters that train */
  double       adapters;   /* LoRA parameters added */
  double       frozen;
  gboolean     backprop;   /* keeps activations for a backward pass */
  gboolean     logits;     /* computes the loss over a vocabulary */
  gboolean     kv_cache;   /* inference: an autoregressive cache */
  guint        tokens;
  LayerRegime  regime;
} Part;

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
  double      state_bytes;
};

typedef struct {
  HrPlan     *plan;
  HrEstimate *est;        /* NULL when only the peak is wanted */
  double      bytes[HR_N_BUCKETS];
  double      low[HR_N_BUCKETS];
  double      high[HR_N_BUCKETS];
  double      by_metric[3];
  double      by_metric_low[3];
  double      by_metric_high[3];
} Acc;

static void G_GNUC_PRINTF (7, 8)
add (Acc        *acc,
     HrBucket    bucket,
     HrMetric    metric,
     double      bytes,
     double      low,
     double      high,
     const char *format,
     ...)
{
  if (bytes <= 0 && high <= 0)
    return;

  acc->bytes[bucket] += bytes;
  acc->low[bucket] += low;
  acc->high[bucket] += high;
  acc->by_metric[metric] += bytes;
  acc->by_metric_low[metric] += low;
  acc->by_metric_high[metric] += high;

  if (acc->est != NULL)
    {
      HrEstimateItem *item = g_new0 (HrEstimateItem, 1);
      va_list args;

      va_start (args, format);
      item->label = g_strdup_vprintf (format, args);
      va_end (args);
      item->bucket = bucket;
      item->metric = metric;
      item->bytes = bytes;
      item->low = low;
      item->high = high;
      g_ptr_array_add (acc->est->items, item);
    }
}

static void G_GNUC_PRINTF (2, 3)
note (Acc        *acc,
      const char *format,
      ...)
{
  va_list args;

  if (acc->est == NULL)
    return;

  va_start (args, format);
  g_ptr_array_add (acc->est->notes, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
item_free (HrEstimateItem *item)
{
  g_free (item->label);
  g_free (item);
}

static double
lora_params (const HrComponent *c,
             guint              rank,
             HrLoraTargets      targets)
{
  double h = c->hidden;
  double q = (double) c->heads * c->head_dim;
  double kv = (double) c->kv_heads * c->head_dim;
  double per_layer;

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return 0;

  /* LoRA adds A (r x in) and B (out x r) to each adapted matrix (Hu et al.
   * 2021, section 4).  "attention" adapts q, k, v and o; "all-linear"
   * (PEFT's name) adds the MLP's matrices, but not the output head. */
  per_layer = rank * ((h + q) + 2 * (h + kv) + (q + h));
  if (targets == HR_LORA_TARGETS_ALL_LINEAR)
    per_layer += rank * (c->glu ? 3 : 2) * (h + c->intermediate);

  return per_layer * c->layers;
}

static guint
lora_matrices (const HrComponent *c,
               HrLoraTargets      targets)
{
  return 4 + (targets == HR_LORA_TARGETS_ALL_LINEAR ? (c->glu ? 3 : 2) : 0);
}

/* Bytes of one normalisation layer's saved tensors per token. */
static double
norm_bytes (const HrComponent *c,
            const LayerRegime *r)
{
  if (c->rmsnorm)
    {
      /* LLaMA-style RMSNorm upcasts to fp32 and saves that copy for
       * x * rsqrt(mean(x^2)); the normalised bf16 output is saved too when
       * the norm's weight trains (transformers' LlamaRMSNorm, LitGPT's
       * RMSNorm). */
      return 4.0 * c->hidden + (r->norm_trainable ? r->e * c->hidden : 0.0);
    }

  /* LayerNorm saves its input (Korthikanti et al. 2022, section 4.1: 2sbh
   * per LayerNorm in 16 bits) plus per-token mean and rstd. */
  return r->e_res * c->hidden + 8.0;
}

/* Korthikanti et al. 2022 (eq. 1) counted per tensor and generalised to
 * GQA, gated MLPs, RMSNorm and frozen weights: bytes one token keeps in one
 * layer until the backward pass, for a sequence of @s tokens.
 *
 * With eager attention, dropout, MHA, LayerNorm, a 4h MLP and every weight
 * training this is exactly 34h + 5as at 2 bytes: attention 11h + 5as (QKV
 * input 2h, Q and K 4h, V 2h, softmax 2as, its dropout mask as and output
 * 2as, projection input 2h, dropout mask h), MLP 19h, norms 4h. */
static double
layer_bytes_per_token (const HrComponent *c,
                       const LayerRegime *r,
                       double             s)
{
  double h = c->hidden;
  double q = (double) c->heads * c->head_dim;
  double kv = (double) c->kv_heads * c->head_dim;
  double I = c->intermediate;
  double a = c->heads;
  double e = r->e;
  double bytes = 2.0 * norm_bytes (c, r);

  /* A frozen linear layer keeps no input: autograd saves the input of a
   * matmul only for the weight's gradient (PyTorch derivatives.yaml, mm:
   * mat2's formula is the only one using self, and generated code saves it
   * only when should_compute_output for mat2). */
  if (r->qkv_saved)
    bytes += e * h;

  /* Q, K and V as the attention kernel saves them.  transformers' eager and
   * SDPA paths expand K and V to every query head (repeat_kv) before the
   * kernel; flash-attn takes the KV heads as they are. */
  bytes += e * (q + 2.0 * (r->keep_s2 || kv == q ? q : kv));

  if (r->keep_s2)
    {
      /* softmax output, and with dropout its mask and output */
      bytes += e * a * s;
      if (c->dropout)
        bytes += (1.0 + e) * a * s;
    }
  else
    {
      /* flash and memory-efficient kernels save their output (and a
       * logsumexp per head) instead of the s^2 matrix */
      bytes += e * q + 4.0 * a;
    }

  if (r->o_saved)
    bytes += e * q;
  if (c->dropout)
    bytes += h;  /* attention-output dropout mask */

  if (r->fc_saved)
    bytes += e * h;
  if (c->glu)
    bytes += 3.0 * e * I;  /* gate (for the activation), act(gate) and up (for the product) */
  else
    bytes += e * I;        /* the activation's input */
  if (r->down_saved)
    bytes += e * I;
  if (c->dropout)
    bytes += h;  /* MLP dropout mask */

  /* the quantised projections' own input copies: q, k and v, gate and up
   * are separate layers in transformers, each casting its own copy */
  if (r->quant_input > 0)
    bytes += r->quant_input * (3.0 * h + q + (c->glu ? 2.0 : 1.0) * h + I);

  /* LoRA keeps x·A (rank r) of each adapted matrix for B's gradient */
  bytes += e * r->lora_rank * r->lora_matrices;

  return bytes;
}

/* Bytes per token around the loss over a vocabulary of V.
 *
 * "upcast", as transformers computes it (ForCausalLMLoss: logits.float()):
 * log_softmax saves its fp32 output; at the start of the backward pass the
 * gradients of the log-probabilities and of the logits (both fp32) are alive
 * beside it and the 16-bit logits: 2 + 4 + 4 + 4 = 14 bytes per vocabulary
 * entry in 16-bit training, 16 in fp32.  This is often the largest tensor of
 * a small LLM.
 * "chunked" (LitGPT's chunked_cross_entropy): the logits stay 16-bit and
 * each chunk's log-probabilities are saved in the dtype the loss runs in
 * (fp32 under autocast, bf16 in pure bf16).
 * "fused" (Liger's fused linear cross-entropy): logits exist one chunk at a
 * time and the hidden state's gradient is computed in the forward pass, so
 * only that (h values a token) is kept. */
static double
logits_bytes_per_token (const HrComponent *c,
                        double             e,
                        HrLoss             loss,
                        HrCompute          compute)
{
  switch (loss)
    {
    case HR_LOSS_UPCAST:
      return (e < 4.0 ? e + 12.0 : 16.0) * c->vocab;
    case HR_LOSS_CHUNKED:
      return (e + (compute == HR_COMPUTE_BF16_PURE ? 2.0 : 4.0)) * c->vocab;
    case HR_LOSS_FUSED:
      return e * c->hidden;
    default:
      g_assert_not_reached ();
    }
}

static void
setup_regime (HrPlan *self,
              Part   *part)
{
  const HrScenario *s = self->scenario;
  LayerRegime *r = &part->regime;
  gboolean all_trainable = part->trainable >= part->params && part->params > 0;
  gboolean quantized_base = hr_dtype_is_quantized (s->weights_dtype) && part->frozen > 0 &&
                            s->weights_dtype != HR_DTYPE_FP8;

  r->e = hr_compute_activation_bytes (s->compute);
  /* Under autocast with fp32 weights the residual stream stays fp32: the
   * embedding output is fp32 and adding bf16 outputs to it promotes. */
  r->e_res = hr_compute_is_mixed (s->compute) && s->weights_dtype == HR_DTYPE_FP32 ? 4.0 : r->e;

  r->qkv_saved = r->o_saved = r->fc_saved = r->down_saved = all_trainable;
  r->norm_trainable = all_trainable;

  if (part->adapters > 0)
    {
      r->qkv_saved = r->o_saved = TRUE;
      if (s->lora_targets == HR_LORA_TARGETS_ALL_LINEAR)
        r->fc_saved = r->down_saved = TRUE;
      r->lora_rank = s->lora_rank;
      r->lora_matrices = lora_matrices (part->c, s->lora_targets);
    }

  /* bitsandbytes' 4- and 8-bit matmuls save their input whenever it needs
   * a gradient, weight frozen or not (MatMul4Bit.forward: ctx.tensors =
   * (A, B) if any(needs_input_grad)).  Linear4bit first casts the input to
   * its compute dtype ("quant_compute_dtype": transformers'
   * BitsAndBytesConfig defaults bnb_4bit_compute_dtype to float32; LitGPT
   * and most QLoRA recipes use bf16).  When that is a real cast, every
   * projection keeps a copy of its own; when it is not, they share the
   * layer's input.  LLM.int8 casts to fp16 (MatMul8bitLt). */
  if (quantized_base)
    {
      double cast = s->weights_dtype == HR_DTYPE_INT8 ? 2.0
                    : hr_dtype_element_bytes (s->quant_compute_dtype);

      if (cast != r->e)
        r->quant_input = cast;
      else
        r->qkv_saved = r->o_saved = r->fc_saved = r->down_saved = TRUE;
    }

  r->keep_s2 = s->attention == HR_ATTENTION_EAGER && s->recompute == HR_RECOMPUTE_NONE;
}

static double
part_tokens (HrPlan            *self,
             const HrComponent *c)
{
  return hr_component_tokens (c, self->seq_len, self->image_width, self->image_height);
}

/* Activation bytes a part keeps for the backward pass, per sample. */
static double
part_activations_per_sample (HrPlan     *self,
                             const Part *part,
                             double     *logits_out,
                             double     *layer_out)
{
  const HrComponent *c = part->c;
  const HrScenario *s = self->scenario;
  double e = hr_compute_activation_bytes (s->compute);

  *logits_out = 0;
  *layer_out = 0;

  if (c->kind == HR_COMPONENT_TRANSFORMER)
    {
      double t = part->tokens;
      double per_layer = layer_bytes_per_token (c, &part->regime, t) * t;
      double kept;

      if (s->recompute == HR_RECOMPUTE_FULL)
        {
          /* Only each layer's input is kept; during the backward pass one
           * layer is recomputed whole (Korthikanti et al. 2022, section 4:
           * "2sbhL" with full recomputation). */
          kept = part->regime.e_res * c->hidden * t * c->layers + per_layer;
        }
      else
        kept = per_layer * c->layers;

      /* the final norm, and the output head's input when it trains */
      kept += norm_bytes (c, &part->regime) * t;
      if (part->logits)
        {
          if (part->regime.fc_saved)
            kept += e * c->hidden * t;
          *logits_out = logits_bytes_per_token (c, e, s->loss, s->compute) * t;
        }

      *layer_out = per_layer;
      return kept;
    }

  /* Calibrated figures scale with the input and with the bytes of an
   * activation element relative to the calibration run's. */
  {
    double bytes = c->act_bytes_per_sample;

    if (c->act_scaling == HR_SCALING_PIXELS && c->act_ref_width > 0)
      bytes *= ((double) self->image_width * self->image_height) /
               ((double) c->act_ref_width * c->act_ref_height);
    else if (c->act_scaling == HR_SCALING_SEQ && c->act_ref_seq_len > 0)
      bytes *= (double) self->seq_len / c->act_ref_seq_len;

    bytes *= e / hr_dtype_element_bytes (c->act_dtype);
    return bytes;
  }
}

/* Memory one layer needs while running forward only (inference, or a frozen
 * part no gradient flows through), per sample. */
static double
part_forward_working_set (HrPlan     *self,
                          const Part *part)
{
  const HrComponent *c = part->c;
  double e = hr_compute_activation_bytes (self->scenario->compute);
  double t = part->tokens;

  if (c->kind == HR_COMPONENT_TRANSFORMER)
    {
      double q = (double) c->heads * c->head_dim;
      double kv = (double) c->kv_heads * c->head_dim;
      double attention = e * (3.0 * q + 2.0 * kv);
      double mlp = e * (c->glu ? 3.0 : 2.0) * c->intermediate;
      double ws = t * (2.0 * e * c->hidden + MAX (attention, mlp));

      /* eager attention materialises the scores, upcast to fp32 for the
       * softmax (transformers' eager_attention_forward) */
      if (self->scenario->attention == HR_ATTENTION_EAGER)
        ws += (double) c->heads * t * t * (4.0 + e);
      return ws;
    }

  /* A calibrated training figure holds every layer's output; forward only,
   * about a tenth of it is alive at once (two consecutive feature maps of
   * ten-odd stages).  An estimate, flagged in the notes. */
  {
    double logits, layer;

    return 0.1 * part_activations_per_sample (self, part, &logits, &layer);
  }
}

static void
setup_parts (HrPlan *self)
{
  const HrScenario *s = self->scenario;
  GPtrArray *components = s->model->components;
  gboolean logits_taken = FALSE;
  gboolean decoder = g_strcmp0 (s->model->family, "encoder") != 0;
  double default_trainable = 0;
  double adapter_sum = 0;

  for (guint i = 0; i < components->len; i++)
    {
      HrComponent *c = g_ptr_array_index (components, i);
      Part part = { 0 };

      part.c = c;
      part.params = (double) c->params;
      part.tokens = c->kind == HR_COMPONENT_TRANSFORMER ? part_tokens (self, c) : 0;

      if (self->training)
        {
          switch (s->method)
            {
            case HR_METHOD_FULL:
              part.trainable = part.params;
              break;
            case HR_METHOD_FREEZE:
              part.trainable = c->trainable ? part.params : 0;
              break;
            case HR_METHOD_LORA:
            case HR_METHOD_QLORA:
              /* Parts without a transformer shape (a diffusion U-Net) get
               * adapters on their attention layers too; without the shapes
               * to count them, 1% of the part's parameters stands in
               * (SD 1.5 LoRAs of rank 32 are 20-40M parameters, 2-5%). */
              if (c->kind == HR_COMPONENT_TRANSFORMER)
                part.adapters = lora_params (c, s->lora_rank, s->lora_targets);
              else if (c->trainable)
                part.adapters = 0.01 * part.params;
              break;
            default:
              g_assert_not_reached ();
            }
        }

      default_trainable += part.trainable;
      adapter_sum += part.adapters;
      g_array_append_val (self->parts, part);
    }

  /* "trainable_params" overrides the count: LoRA adapters are scaled to
   * it; otherwise it is spread over the parts that train by default (or all
   * parts, by size, when none does). */
  if (self->training && s->trainable_params_set)
    {
      double wanted = (double) s->trainable_params;
      double base = 0;

      if ((s->method == HR_METHOD_LORA || s->method == HR_METHOD_QLORA) && adapter_sum > 0)
        {
          for (guint i = 0; i < self->parts->len; i++)
            {
              Part *p = &g_array_index (self->parts, Part, i);

              p->adapters *= wanted / adapter_sum;
            }
        }
      else
        {
          gboolean use_default = default_trainable > 0;

          for (guint i = 0; i < self->parts->len; i++)
            {
              Part *p = &g_array_index (self->parts, Part, i);

              base += use_default ? p->trainable : p->params;
            }
          for (guint i = 0; i < self->parts->len; i++)
            {
              Part *p = &g_array_index (self->parts, Part, i);
              double share = use_default ? p->trainable : p->params;

              p->adapters = 0;
              p->trainable = base > 0 ? MIN (p->params, wanted * share / base) : 0;
            }
        }
    }

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);

      p->frozen = p->params - p->trainable;
      p->backprop = self->training && (p->trainable > 0 || p->adapters > 0 || p->c->backprop);

      /* A causal LM's loss runs over the vocabulary at every position; an
       * encoder's only when pretraining (masked-LM head), not when it is
       * fine-tuned with a task head. */
      if (p->c->kind == HR_COMPONENT_TRANSFORMER && p->c->vocab > 0 && !logits_taken &&
          (g_strcmp0 (s->model->family, "llm") == 0 ||
           (g_strcmp0 (s->model->family, "encoder") == 0 && s->task == HR_TASK_TRAIN)))
        {
          p->logits = TRUE;
          logits_taken = TRUE;
        }

      p->kv_cache = !self->training && decoder && p->c->kind == HR_COMPONENT_TRANSFORMER &&
                    p->c->tokens_from == HR_TOKENS_SEQ_LEN;

      if (p->c->kind == HR_COMPONENT_TRANSFORMER)
        setup_regime (self, p);
    }
}

static void
setup_precision (HrPlan *self)
{
  const HrScenario *s = self->scenario;

  switch (s->compute)
    {
    case HR_COMPUTE_FP32:
    case HR_COMPUTE_TF32:
      self->w_bytes = self->g_bytes = 4;
      self->master_bytes = 0;
      self->state_bytes = 4;
      break;
    case HR_COMPUTE_BF16_PURE:
      /* Weights, gradients and optimizer state all in bf16 (LitGPT's
       * "bf16-true", torch.optim keeping state in the parameter's dtype). */
      self->w_bytes = self->g_bytes = 2;
      self->master_bytes = 0;
      self->state_bytes = 2;
      break;
    case HR_COMPUTE_BF16_MIXED:
    case HR_COMPUTE_FP16_MIXED:
      /* Rajbhandari et al. 2020 ("ZeRO"), section 3.1: 16-bit weights and
       * gradients (2 + 2 bytes) and K = 12 bytes of optimizer state (fp32
       * master copy, momentum, variance).  With fp32 weights (torch.amp
       * autocast) the weights are their own master and gradients are fp32:
       * 4 + 4 + 8, the same 16 bytes split differently. */
      self->w_bytes = s->weights_dtype == HR_DTYPE_FP32 ? 4 : 2;
      self->g_bytes = self->w_bytes;
      self->master_bytes = self->w_bytes < 4 ? 4 : 0;
      self->state_bytes = 4;
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Optimizer state per trainable parameter, not counting a master copy. */
static double
optimizer_state_bytes (HrPlan     *self,
                       const Part *part)
{
  double per_param;

  switch (self->scenario->optimizer)
    {
    case HR_OPTIMIZER_ADAMW:
    case HR_OPTIMIZER_ADAM:
      per_param = 2 * self->state_bytes;  /* first and second moments */
      break;
    case HR_OPTIMIZER_ADAMW_8BIT:
    case HR_OPTIMIZER_PAGED_ADAMW_8BIT:
      per_param = 2 * OPT8_BYTES_PER_STATE;
      break;
    case HR_OPTIMIZER_SGD:
    case HR_OPTIMIZER_NONE:
      per_param = 0;
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
            double per_layer = (h + q) * 2 + (h + kv) * 2 + (c->glu ? 3 : 2) * (h + I);
            double factored = per_layer * c->layers + (c->vocab > 0 ? 2.0 * (c->vocab + h) : 0);
            double rest = MAX (0, (double) c->params - hr_component_linear_params (c) -
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

static double
sharded (HrPlan  *self,
         double   bytes,
         gboolean condition)
{
  return condition && self->scenario->gpus > 1 ? bytes / self->scenario->gpus : bytes;
}

/* Bytes left on each GPU after sharding and offloading. */
static double
on_device (HrPlan   *self,
           double    bytes,
           gboolean  shard,
           gboolean  offloaded)
{
  return offloaded ? 0 : sharded (self, bytes, shard);
}

static void
compute (HrPlan     *self,
         guint       micro_batch,
         HrEstimate *est,
         HrPeak     *peak)
{
  const HrScenario *s = self->scenario;
  Acc acc = { 0 };
  double b = micro_batch;
  double e = hr_compute_activation_bytes (s->compute);
  gboolean shard_states = s->sharding == HR_SHARDING_ZERO1 || s->sharding == HR_SHARDING_ZERO2 ||
                          s->sharding == HR_SHARDING_ZERO3 || s->sharding == HR_SHARDING_FSDP;
  gboolean shard_grads = s->sharding == HR_SHARDING_ZERO2 || s->sharding == HR_SHARDING_ZERO3 ||
                         s->sharding == HR_SHARDING_FSDP;
  gboolean shard_weights = s->sharding == HR_SHARDING_ZERO3 || s->sharding == HR_SHARDING_FSDP;
  gboolean offload_states = s->offload != HR_OFFLOAD_NONE;
  gboolean offload_params = s->offload == HR_OFFLOAD_OPTIMIZER_PARAMS;
  double trainable_total = 0, adapters_total = 0;
  double grads_total = 0, states_total = 0, step_temp = 0;
  double activations_total = 0;
  double largest_layer = 0;
  double widest_quantized = 0;
  double static_total, dynamic_total;
  double host = 0;
  double frag, frag_low, frag_high;
  const char *wname = hr_enum_to_nick (hr_weights_dtype_names, s->weights_dtype);
  double q_bytes = hr_dtype_bytes_per_param (s->weights_dtype, FALSE);

  g_atomic_int_inc (&counter_passes);

  acc.plan = self;
  acc.est = est;

  /* ---- weights ---- */
  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double frozen_bytes;
      double layer_params = c->kind == HR_COMPONENT_TRANSFORMER && c->layers > 0
                              ? (double) hr_component_linear_params (c) / c->layers
                              : p->params;

      largest_layer = MAX (largest_layer, layer_params);
      trainable_total += p->trainable;
      adapters_total += p->adapters;

      if (hr_dtype_is_quantized (s->weights_dtype) && c->kind == HR_COMPONENT_TRANSFORMER)
        {
          /* Quantisation replaces the linear layers; embeddings, norms and
           * the output head stay 16-bit (transformers' bitsandbytes
           * integration skips lm_head: get_keys_to_not_convert). */
          double linear = MIN ((double) hr_component_linear_params (c), p->frozen);
          double rest = MAX (0, p->frozen - linear);

          frozen_bytes = linear * q_bytes + rest * 2.0;
          if (p->frozen > 0)
            add (&acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED,
                 on_device (self, frozen_bytes, shard_weights, offload_params),
                 on_device (self, frozen_bytes * 0.99, shard_weights, offload_params),
                 on_device (self, frozen_bytes * 1.02, shard_weights, offload_params),
                 _("%s: %.2fB frozen parameters, linear layers in %s (%.3f bytes each), the "
                   "rest 16-bit"), c->name, p->frozen / 1e9, wname, q_bytes);

          /* see the 16-bit staging copy below */
          if (p->frozen > 0 && !offload_params)
            widest_quantized = MAX (widest_quantized,
                                    2.0 * MAX ((double) c->hidden * c->intermediate,
                                               (double) c->hidden * c->vocab));
        }
      else
        {
          double per = hr_dtype_bytes_per_param (s->weights_dtype, FALSE);

          if (hr_dtype_is_quantized (s->weights_dtype))
            note (&acc,
                  _("%s: %s storage applied to all of its weights; quantising convolutions is "
                    "rare, so this part is likely 16-bit in practice"), c->name, wname);
          frozen_bytes = p->frozen * per;
          if (p->frozen > 0)
            add (&acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED,
                 on_device (self, frozen_bytes, shard_weights, offload_params),
                 on_device (self, frozen_bytes * 0.99, shard_weights, offload_params),
                 on_device (self, frozen_bytes * 1.01, shard_weights, offload_params),
                 self->training ? _("%s: %.2fB frozen parameters in %s (%g bytes each)")
                                : _("%s: %.2fB parameters in %s (%g bytes each)"),
                 c->name, p->frozen / 1e9, wname, per);
        }

      if (offload_params)
        host += frozen_bytes;

      if (p->trainable > 0 || p->adapters > 0)
        {
          double n = p->trainable + p->adapters;
          double bytes = n * self->w_bytes;

          if (hr_dtype_is_quantized (s->weights_dtype) && p->trainable > 0)
            note (&acc, _("%s: trainable weights cannot stay %s; counted in 16 bits"), c->name,
                  wname);

          add (&acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED,
               on_device (self, bytes, shard_weights, offload_params),
               on_device (self, bytes, shard_weights, offload_params),
               on_device (self, bytes * 1.01, shard_weights, offload_params),
               p->adapters > 0 ? _("%s: %.1fM trainable LoRA parameters in %g-byte precision")
                               : _("%s: %.1fM trainable parameters in %g-byte precision"),
               c->name, n / 1e6, self->w_bytes);
          if (offload_params)
            host += bytes;
        }

      /* torch.amp autocast keeps a 16-bit copy of each fp32 weight a matmul
       * used, for the backward pass (mm saves mat2 for the input's
       * gradient); trainable weights' copies stay in autocast's cache. */
      if (p->backprop && hr_compute_is_mixed (s->compute) && s->weights_dtype == HR_DTYPE_FP32)
        {
          /* the linear layers, and the output head (a matmul too) */
          double linear = c->kind == HR_COMPONENT_TRANSFORMER
                            ? (double) hr_component_linear_params (c) +
                              (double) c->vocab * c->hidden
                            : p->params;
          double bytes = 2.0 * MIN (linear, p->params);

          add (&acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, bytes, 0.8 * bytes, bytes,
               _("%s: 16-bit copies of fp32 weights that autocast keeps for the backward pass"),
               c->name);
        }
    }

  /* bitsandbytes quantises each weight on the GPU from its 16-bit copy while
   * loading, and dequantises one back to 16 bits for every matmul
   * (Linear4bit: Params4bit.cuda, then dequantize_4bit in MatMul4Bit forward
   * and backward).  One 16-bit matrix is therefore alive beside the
   * quantised model: the widest projection, or the output head where the
   * library quantises it too (LitGPT and Lightning Fabric do; transformers
   * keeps it 16-bit).  The larger of the two is counted, once. */
  if (widest_quantized > 0)
    add (&acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, widest_quantized, 0.3 * widest_quantized,
         2.0 * widest_quantized,
         _("the 16-bit copy of one weight matrix that quantising and dequantising needs"));

  /* PyTorch FSDP (FlatParameter) reshards a unit after its backward from a
   * hook on its gradient; frozen parameters have none, so every frozen
   * weight gathered for the backward pass stays unsharded until the pass
   * ends, in buffers of its own beside the shards (pytorch/pytorch#95805;
   * LitGPT's FSDP LoRA runs peak at the full frozen model plus its
   * shards).  DeepSpeed ZeRO-3, and FSDP2's fully_shard, release them:
   * choose "zero3" for that behaviour. */
  if (s->sharding == HR_SHARDING_FSDP && s->gpus > 1 && self->training && !offload_params)
    {
      double frozen_full = 0;

      for (guint i = 0; i < self->parts->len; i++)
        {
          Part *p = &g_array_index (self->parts, Part, i);

          if (p->backprop && p->frozen > 0)
            frozen_full += p->frozen * hr_dtype_bytes_per_param (s->weights_dtype, FALSE);
        }

      add (&acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, frozen_full, 0, frozen_full,
           _("FSDP: frozen weights gathered for the backward pass are not resharded until it "
             "ends"));
    }

  /* ZeRO-3 / FSDP gather each layer's parameters before use and prefetch
   * the next: two layers unsharded at a time (PyTorch FSDP docs,
   * forward_prefetch / backward_prefetch; DeepSpeed stage3_prefetch). */
  if ((shard_weights && s->gpus > 1) || offload_params)
    {
      double storage = trainable_total + adapters_total > 0 ? MAX (self->w_bytes,
                                                                   q_bytes) : q_bytes;
      double bytes = 2.0 * largest_layer * storage;

      add (&acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, bytes, 0.5 * bytes, 1.5 * bytes,
           _("unsharded parameters of the layer in use and the one prefetched"));
    }

  /* ---- gradients and optimizer state ---- */
  if (self->training)
    {
      double n = trainable_total + adapters_total;

      grads_total = n * self->g_bytes;
      add (&acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED,
           sharded (self, grads_total, shard_grads), sharded (self, grads_total, shard_grads),
           sharded (self, grads_total, shard_grads),
           shard_grads && s->gpus > 1
             ? _("gradients of %.1fM trainable parameters (%g bytes each), sharded")
             : _("gradients of %.1fM trainable parameters (%g bytes each)"),
           n / 1e6, self->g_bytes);

      if (s->sharding == HR_SHARDING_DDP && s->gpus > 1)
        {
          /* DistributedDataParallel copies gradients into flat buckets for
           * all-reduce; unless gradient_as_bucket_view=True the buckets are
           * a second copy of every gradient (PyTorch DDP docs:
           * "gradient_as_bucket_view ... saved memory size will be equal to
           * the total gradients size"). */
          add (&acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, grads_total, 0, grads_total,
               _("DDP gradient buckets for all-reduce (a second copy of the gradients)"));
        }

      for (guint i = 0; i < self->parts->len; i++)
        {
          Part *p = &g_array_index (self->parts, Part, i);
          double np = p->trainable + p->adapters;
          double states, master;
          const char *oname = hr_enum_to_nick (hr_optimizer_names, s->optimizer);

          if (np <= 0)
            continue;

          master = np * self->master_bytes;
          states = np * optimizer_state_bytes (self, p);
          states_total += master + states;

          if (master > 0)
            add (&acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED,
                 on_device (self, master, shard_states, offload_states),
                 on_device (self, master, shard_states, offload_states),
                 on_device (self, master, shard_states, offload_states),
                 _("%s: fp32 master copy of the trainable weights"), p->c->name);

          if (states > 0)
            {
              gboolean paged = s->optimizer == HR_OPTIMIZER_PAGED_ADAMW_8BIT;

              /* Paged optimizers allocate unified memory outside PyTorch's
               * allocator that the driver evicts to host RAM under pressure
               * (bitsandbytes docs, "Paged optimizers"). */
              add (&acc, HR_BUCKET_OPTIMIZER, paged ? HR_METRIC_DEVICE_USED : HR_METRIC_ALLOCATED,
                   on_device (self, states, shard_states, offload_states),
                   paged ? 0 : on_device (self, states, shard_states, offload_states),
                   on_device (self, states * 1.01, shard_states, offload_states),
                   paged
                     ? _("%s: %s state (%.3g bytes per trainable parameter), paged: can move to "
                         "host RAM")
                     : _("%s: %s state (%.3g bytes per trainable parameter)"),
                   p->c->name, oname, states / np);
            }

          /* torch.optim's default foreach implementation builds one
           * intermediate list the size of a state (torch.optim docs: "foreach
           * ... at the cost of more peak memory by intermediates being a
           * tensorlist"). */
          if (s->optimizer == HR_OPTIMIZER_ADAMW || s->optimizer == HR_OPTIMIZER_ADAM ||
              s->optimizer == HR_OPTIMIZER_LION || s->optimizer == HR_OPTIMIZER_ADAFACTOR)
            step_temp += np * self->state_bytes;
        }

      if (offload_states)
        host += states_total;
    }

  /* ---- activations ---- */
  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;

      if (self->training && p->backprop)
        {
          double logits, layer;
          double per_sample = part_activations_per_sample (self, p, &logits, &layer);
          double bytes = per_sample * b;
          double lo = ACT_CLOSED_LOW, hi = ACT_CLOSED_HIGH;

          if (c->kind != HR_COMPONENT_TRANSFORMER)
            {
              lo = 1.0 - c->act_spread;
              hi = 1.0 + c->act_spread;
            }

          if (c->kind == HR_COMPONENT_TRANSFORMER)
            add (&acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, bytes, lo * bytes, hi * bytes,
                 /* Translators: the two %s at the end are the optional clauses
                  * ", layer inputs only (full recomputation)" and ", frozen
                  * weights keep no inputs", translated on their own. */
                 _("%s: %u layers × %u tokens × micro-batch %u%s%s"), c->name, c->layers,
                 p->tokens, micro_batch,
                 s->recompute == HR_RECOMPUTE_FULL
                   ? _(", layer inputs only (full recomputation)") : "",
                 p->trainable < p->params && p->adapters <= 0 &&
                 !hr_dtype_is_quantized (s->weights_dtype)
                   ? _(", frozen weights keep no inputs") : "");
          else
            add (&acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, bytes, lo * bytes, hi * bytes,
                 c->act_source != NULL
                   ? _("%s: %.3g GB per sample × micro-batch %u (calibrated)")
                   : _("%s: %.3g GB per sample × micro-batch %u (calibrated figure)"),
                 c->name, per_sample / 1e9, micro_batch);

          if (logits > 0)
            add (&acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, logits * b,
                 (s->loss == HR_LOSS_UPCAST ? 0.3 : 0.8) * logits * b, logits * b,
                 s->loss == HR_LOSS_UPCAST
                   ? _("%s: logits and loss over a %u-token vocabulary (upcast to fp32)")
                   : s->loss == HR_LOSS_CHUNKED
                   ? _("%s: logits and loss over a %u-token vocabulary (chunked cross-entropy)")
                   : _("%s: logits and loss over a %u-token vocabulary (fused, one chunk at a "
                       "time)"),
                 c->name, c->vocab);
          activations_total += bytes + logits * b;
        }
      else if (self->training)
        {
          /* A frozen part no gradient flows through runs as inference: one
           * layer's working set at a time, freed before the trainable part's
           * peak, so only its output is alive then. */
          if (c->kind == HR_COMPONENT_TRANSFORMER)
            {
              double out = e * c->hidden * p->tokens * b;

              add (&acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, out, out, 2 * out,
                   _("%s: frozen, no backward: only its output features are kept"), c->name);
              activations_total += out;
            }
        }
      else
        {
          double ws = part_forward_working_set (self, p) * b;

          add (&acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, ws, 0.5 * ws, 2.0 * ws,
               c->kind == HR_COMPONENT_TRANSFORMER
                 ? _("%s: forward working set of one layer over the prompt")
                 : _("%s: forward working set of one layer (a tenth of the training figure)"),
               c->name);
          activations_total += ws;

          if (p->kv_cache)
            {
              double kv_bytes = hr_dtype_element_bytes (s->kv_dtype);
              double kv;

              /* int8/int4 caches keep a 16-bit scale and zero point per
               * group of 64 (transformers' QuantizedCache, quanto backend). */
              if (s->kv_dtype == HR_DTYPE_INT8 || s->kv_dtype == HR_DTYPE_INT4)
                kv_bytes += 4.0 / 64.0;
              /* K and V for every layer, KV head and cached token: GQA
               * keeps kv_heads, not heads (Ainslie et al. 2023). */
              kv = 2.0 * c->layers * c->kv_heads * c->head_dim * (double) self->context_len *
                   b * kv_bytes;
              kv = sharded (self, kv, shard_weights);
              add (&acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, kv, kv, kv * 1.05,
                   _("%s: KV cache, %u layers × %u KV heads × %u tokens in %s"), c->name,
                   c->layers,
                   c->kv_heads, self->context_len,
                   hr_enum_to_nick (hr_kv_dtype_names, s->kv_dtype));
              activations_total += kv;
            }

          if (p->logits && c->vocab > 0)
            {
              /* generate() keeps the last position's logits, upcast to fp32 */
              double logits = b * c->vocab * (e + 4.0);

              add (&acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, logits, logits, 2 * logits,
                   _("%s: next-token logits"), c->name);
              activations_total += logits;
            }
        }
    }

  /* The optimizer step runs after the activations are freed: its
   * temporaries only raise the peak by what they exceed them by. */
  if (step_temp > 0)
    {
      double temp = sharded (self, step_temp, shard_states);
      double extra = offload_states ? 0 : MAX (0, temp - activations_total);

      add (&acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, extra, extra, extra,
           _("optimizer step temporaries (foreach), beyond what the freed activations leave"));
    }

  /* ---- overhead ---- */
  add (&acc, HR_BUCKET_OVERHEAD, HR_METRIC_ALLOCATED, CUBLAS_WORKSPACE_BYTES, 8.0 * MiB,
       CUBLAS_WORKSPACE_BYTES, _("cuBLAS workspace"));

  /* The checkpoint-write spike: saving a consolidated checkpoint of a
   * sharded model gathers every 16-bit weight on one GPU (DeepSpeed's
   * stage3_gather_16bit_weights_on_model_save; FSDP's FULL_STATE_DICT
   * without offload_to_cpu).  It happens between steps, with the activations
   * freed, and only if the run saves that way: counted in the range only. */
  if (self->training && shard_weights && s->gpus > 1 && !offload_params)
    {
      double full = 0;

      for (guint i = 0; i < self->parts->len; i++)
        {
          Part *p = &g_array_index (self->parts, Part, i);

          full += (p->params + p->adapters) * 2.0;
        }
      full = MAX (0, full * (1.0 - 1.0 / s->gpus) - activations_total);
      add (&acc, HR_BUCKET_OVERHEAD, HR_METRIC_ALLOCATED, 0, 0, full,
           _("saving a consolidated checkpoint: the whole model in 16 bits on one GPU (range "
             "only)"));
    }

  static_total = acc.by_metric[HR_METRIC_ALLOCATED] - activations_total;
  dynamic_total = activations_total;
  frag = FRAG_DYNAMIC * dynamic_total + FRAG_STATIC * static_total;
  frag_low = FRAG_DYNAMIC_LOW * dynamic_total + FRAG_STATIC_LOW * static_total;
  frag_high = FRAG_DYNAMIC_HIGH * dynamic_total + FRAG_STATIC_HIGH * static_total;
  add (&acc, HR_BUCKET_OVERHEAD, HR_METRIC_RESERVED, frag, frag_low, frag_high,
       _("allocator fragmentation (reserved but not allocated)"));

  add (&acc, HR_BUCKET_OVERHEAD, HR_METRIC_DEVICE_USED, CUDA_CONTEXT_BYTES, CUDA_CONTEXT_LOW_BYTES,
       CUDA_CONTEXT_HIGH_BYTES, _("CUDA context and library kernels"));

  {
    double allocated = acc.by_metric[HR_METRIC_ALLOCATED];
    double reserved = allocated + acc.by_metric[HR_METRIC_RESERVED];
    double reserved_low = acc.by_metric_low[HR_METRIC_ALLOCATED] +
                          acc.by_metric_low[HR_METRIC_RESERVED];
    double reserved_high = acc.by_metric_high[HR_METRIC_ALLOCATED] +
                           acc.by_metric_high[HR_METRIC_RESERVED];
    double need = 0;

    if (hr_fit_rule_has_pool (s))
      {
        /* The model's own need has to fit inside the allocator's pool;
         * preallocated, XLA takes all of it whatever the model needs. */
        if (s->gpu != NULL && hr_fit_rule_pool_preallocated (s))
          {
            double fraction = hr_fit_rule_pool_fraction (s);
            double pool = fraction * (double) s->gpu->memory;

            add (&acc, HR_BUCKET_OVERHEAD, HR_METRIC_DEVICE_USED, MAX (0, pool - reserved),
                 MAX (0, pool - reserved_high), MAX (0, pool - reserved_low),
                 _("XLA preallocation: the rest of the %.0f%% of the card JAX takes up front"),
                 fraction * 100);
          }
        need = reserved;
      }

    if (peak != NULL)
      {
        double device = acc.by_metric[HR_METRIC_ALLOCATED] + acc.by_metric[HR_METRIC_RESERVED] +
                        acc.by_metric[HR_METRIC_DEVICE_USED];
        double low = 0, high = 0;

        for (guint i = 0; i < HR_N_BUCKETS; i++)
          {
            low += acc.low[i];
            high += acc.high[i];
          }

        peak->allocated = (guint64) llround (allocated);
        peak->reserved = (guint64) llround (reserved);
        peak->device_used = (guint64) llround (device);
        peak->total = peak->device_used;
        peak->low = (guint64) llround (MIN (low, device));
        peak->high = (guint64) llround (MAX (high, device));
        if (need > 0)
          {
            peak->need = (guint64) llround (need);
            peak->need_low = (guint64) llround (MIN (reserved_low, need));
            peak->need_high = (guint64) llround (MAX (reserved_high, need));
          }
        else
          {
            peak->need = peak->device_used;
            peak->need_low = peak->low;
            peak->need_high = peak->high;
          }
      }
  }

  if (est != NULL)
    {
      for (guint i = 0; i < HR_N_BUCKETS; i++)
        {
          est->buckets[i] = (guint64) llround (acc.bytes[i]);
          est->bucket_low[i] = (guint64) llround (acc.low[i]);
          est->bucket_high[i] = (guint64) llround (acc.high[i]);
        }

      /* ---- host memory ---- */
      if (host > 0)
        {
          HrEstimateItem *item = g_new0 (HrEstimateItem, 1);
          double job = host * (shard_weights || shard_states ? 1.0 : MAX (1, s->gpus));

          item->label = g_strdup (offload_params
                                    ? _("offloaded weights and optimizer state for the whole job")
                                    : _("offloaded optimizer state for the whole job"));
          item->bytes = item->low = job;
          item->high = job * 1.1;
          g_ptr_array_add (est->host_items, item);
          est->host_ram += (guint64) llround (job);
        }

      if (s->has_replay)
        {
          HrEstimateItem *item = g_new0 (HrEstimateItem, 1);
          double frame = hr_dtype_element_bytes (s->replay.obs_dtype);
          GString *shape = g_string_new (NULL);

          for (guint i = 0; i < s->replay.obs_rank; i++)
            {
              frame *= s->replay.obs_shape[i];
              g_string_append_printf (shape, "%s%u", i > 0 ? "×" : "", s->replay.obs_shape[i]);
            }

          /* steps × one observation; actions and rewards are a few bytes a
           * step beside a frame (seed 001: 224×224×3 uint8 × 200k ≈ 30 GB) */
          item->bytes = item->low = (double) s->replay.steps * frame;
          item->high = item->bytes * 1.1;
          item->label = g_strdup_printf (_("replay buffer: %.0f steps × %s %s"),
                                         (double) s->replay.steps, shape->str,
                                         hr_enum_to_nick (hr_obs_dtype_names, s->replay.obs_dtype));
          g_string_free (shape, TRUE);
          g_ptr_array_add (est->host_items, item);
          est->host_ram += (guint64) llround (item->bytes);
        }
    }
}

static double
probe_metric (HrScenario  *probe,
              const char  *name,
              HrDtype      dtype,
              double       per_sample,
              guint        batch,
              HrMetric     metric)
{
  g_autoptr(HrPlan) plan = NULL;
  HrPeak peak;

  for (guint i = 0; i < probe->model->components->len; i++)
    {
      HrComponent *c = g_ptr_array_index (probe->model->components, i);

      if (g_strcmp0 (c->name, name) == 0)
        {
          c->act_from_peak = FALSE;
          c->act_scaling = HR_SCALING_NONE;
          c->act_dtype = dtype;
          c->act_bytes_per_sample = per_sample;
        }
    }

  plan = hr_plan_new (probe);
  hr_plan_peak (plan, batch, &peak);

  switch (metric)
    {
    case HR_METRIC_ALLOCATED:
      return peak.allocated;
    case HR_METRIC_RESERVED:
      return peak.reserved;
    case HR_METRIC_DEVICE_USED:
      return peak.device_used;
    default:
      g_assert_not_reached ();
    }
}

/* The published peak was measured on the model's own default setup: solve
 * for the per-sample activations that make that setup's estimate meet it,
 * as seed 002 does for GR00T ((35 GB - 6.56 GB floor) / 32 samples). */
static void
calibrate_from_peak (HrPlan      *self,
                     HrComponent *component)
{
  g_autoptr(HrScenario) probe = NULL;
  HrMetric metric = component->peak_metric;
  guint batch = component->peak_micro_batch;
  double peak = (double) component->peak_bytes;
  double x0, x1, y0, y1, slope, rest, per_sample;
  char *message;

  component->act_from_peak = FALSE;
  component->act_scaling = HR_SCALING_NONE;

  probe = hr_scenario_new_for_model (self->scenario->model);
  probe->micro_batch = batch;
  g_clear_pointer (&probe->gpu, hr_gpu_free);
  component->act_dtype = hr_compute_activation_bytes (probe->compute) < 4 ? HR_DTYPE_BF16
                                                                           : HR_DTYPE_FP32;

  /* The estimate is linear in the part's per-sample figure once that is
   * large enough for the optimizer-step temporaries to stop mattering: two
   * probes at the peak's scale give the line. */
  x0 = peak / batch;
  x1 = 0.5 * x0;
  y0 = probe_metric (probe, component->name, component->act_dtype, x0, batch, metric);
  y1 = probe_metric (probe, component->name, component->act_dtype, x1, batch, metric);
  slope = (y0 - y1) / (x0 - x1);
  rest = y0 - slope * x0;   /* everything but this part's activations */

  per_sample = slope > 0 && peak > rest ? (peak - rest) / slope : 0;
  component->act_bytes_per_sample = per_sample;

  message = g_strdup_printf (_("%s: %.3g GB of activations per sample, calibrated so that the "
                               "default setup (%s, %s) peaks at the published %.1f GB (%s) at "
                               "micro-batch %u; everything else at that peak is %.2f GB%s"),
                             component->name, per_sample / 1e9,
                             hr_enum_to_nick (hr_method_names, probe->method),
                             hr_enum_to_nick (hr_compute_names, probe->compute),
                             peak / 1e9, hr_enum_to_nick (hr_metric_names, metric), batch,
                             rest / 1e9,
                             peak <= rest ? _(". The published peak is below everything else: "
                                              "the calibration cannot hold; check the catalog "
                                              "entry") : "");
  g_ptr_array_add (self->calibration_notes, message);
}

HrPlan *
hr_plan_new (const HrScenario *scenario)
{
  HrPlan *self;

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (scenario->model != NULL, NULL);

  g_atomic_int_inc (&counter_plans);
  self = g_new0 (HrPlan, 1);
  self->scenario = hr_scenario_copy (scenario);
  self->parts = g_array_new (FALSE, TRUE, sizeof (Part));
  self->calibration_notes = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < self->scenario->model->components->len; i++)
    {
      HrComponent *c = g_ptr_array_index (self->scenario->model->components, i);

      if (c->has_activation && c->act_from_peak)
        calibrate_from_peak (self, c);
    }

  self->training = hr_scenario_is_training (self->scenario);
  self->seq_len = hr_scenario_get_seq_len (self->scenario);
  hr_scenario_get_image_size (self->scenario, &self->image_width, &self->image_height);
  self->context_len = hr_scenario_get_context_len (self->scenario);

  setup_precision (self);
  setup_parts (self);
  return self;
}

void
hr_plan_free (HrPlan *self)
{
  if (self == NULL)
    return;

  hr_scenario_free (self->scenario);
  g_array_unref (self->parts);
  g_ptr_array_unref (self->calibration_notes);
  g_free (self);
}

const HrScenario *
hr_plan_get_scenario (HrPlan *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->scenario;
}

void
hr_plan_peak (HrPlan *self,
              guint   micro_batch,
              HrPeak *peak)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (peak != NULL);

  compute (self, MAX (1, micro_batch), NULL, peak);
}

guint64
hr_plan_usable (HrPlan      *self,
                const HrGpu *gpu)
{
  HrFitLimit limit;
  HrPeak peak;

  g_return_val_if_fail (gpu != NULL, 0);

  /* The fit rule's (hr-fit-rule.h); any peak tells it what lies outside
   * a pool. */
  hr_plan_peak (self, 1, &peak);
  hr_fit_rule_limit (self->scenario, gpu, &peak, &limit);
  return limit.usable;
}

guint
hr_plan_max_micro_batch (HrPlan   *self,
                         guint64   usable,
                         gboolean *lower_bound)
{
  g_return_val_if_fail (self != NULL, 0);

  return hr_fit_rule_plan_max_micro_batch (self, usable, lower_bound);
}

static gboolean
has_transformer_part (HrPlan *self)
{
  for (guint i = 0; i < self->parts->len; i++)
    if (g_array_index (self->parts, Part, i).c->kind == HR_COMPONENT_TRANSFORMER)
      return TRUE;
  return FALSE;
}

static void
add_notes (HrPlan     *self,
           HrEstimate *est)
{
  const HrScenario *s = self->scenario;
  GPtrArray *notes = est->notes;

  for (guint i = 0; i < self->calibration_notes->len; i++)
    g_ptr_array_add (notes, g_strdup (g_ptr_array_index (self->calibration_notes, i)));

  g_ptr_array_add (notes, g_strdup (
    _("total is what nvidia-smi would show (device_used); allocated_peak is "
      "torch.cuda.max_memory_allocated, reserved_peak is max_memory_reserved")));

  if (!s->seq_len_set && s->model->seq_len == 0 && est->seq_len > 0)
    g_ptr_array_add (notes,
                     g_strdup_printf (_("seq_len not given: %u tokens assumed"), self->seq_len));

  if (self->training)
    {
      gboolean any_frozen_no_backprop = FALSE;

      for (guint i = 0; i < self->parts->len; i++)
        {
          Part *p = &g_array_index (self->parts, Part, i);

          if (!p->backprop)
            any_frozen_no_backprop = TRUE;
          if (p->logits)
            g_ptr_array_add (notes, g_strdup (
              _("the loss is counted the way transformers computes it (logits upcast to fp32); a "
                "chunked or fused cross-entropy (LitGPT, Liger, Unsloth) needs less")));
        }

      if (any_frozen_no_backprop)
        g_ptr_array_add (notes, g_strdup (
          _("frozen parts that no gradient flows through keep no activations for the backward "
            "pass")));

      g_ptr_array_add (notes, g_strdup (
        _("gradients are counted alongside all activations, as with gradient accumulation; "
          "without it the real peak can be lower by up to the gradient size")));

      if (s->attention != HR_ATTENTION_EAGER && has_transformer_part (self))
        g_ptr_array_add (notes, g_strdup_printf (
          s->attention == HR_ATTENTION_SDPA
            /* Translators: %s is an attention kernel id (sdpa, flash). */
            ? _("%s attention keeps no s² score matrix; K and V are expanded to every head as "
                "transformers' repeat_kv does before SDPA")
            : _("%s attention keeps no s² score matrix"),
          hr_enum_to_nick (hr_attention_names, s->attention)));
      if (s->recompute == HR_RECOMPUTE_SELECTIVE && s->attention != HR_ATTENTION_EAGER)
        g_ptr_array_add (notes, g_strdup (
          _("selective recomputation only drops the attention score matrix, which this "
            "attention kernel never keeps: it saves nothing here")));
      if (s->grad_accum > 1)
        g_ptr_array_add (notes, g_strdup_printf (
          _("gradient accumulation over %u steps multiplies the batch, not the peak"),
          s->grad_accum));
      if ((s->sharding == HR_SHARDING_ZERO3 || s->sharding == HR_SHARDING_FSDP) && s->gpus > 1)
        g_ptr_array_add (notes, g_strdup (
          _("the high end of the range allows for saving a consolidated checkpoint, which "
            "gathers the whole 16-bit model on one GPU; save sharded checkpoints to avoid that "
            "spike")));
      if (s->sharding != HR_SHARDING_NONE && s->gpus == 1)
        g_ptr_array_add (notes, g_strdup_printf (
          _("sharding \"%s\" with one GPU divides nothing; set gpus"),
          hr_enum_to_nick (hr_sharding_names, s->sharding)));
    }
  else if (s->method != HR_METHOD_FULL || s->trainable_params_set)
    g_ptr_array_add (notes,
                     g_strdup (_("inference trains nothing: method and trainable_params are "
                                 "ignored")));

  if (s->optimizer == HR_OPTIMIZER_PAGED_ADAMW_8BIT)
    g_ptr_array_add (notes, g_strdup (
      _("paged optimizer state lives in CUDA unified memory: nvidia-smi shows it, PyTorch's "
        "allocator statistics do not, and it moves to host RAM under pressure")));

  if (s->framework == HR_FRAMEWORK_JAX)
    {
      double fraction = hr_fit_rule_pool_fraction (s) * 100;

      if (s->jax_preallocate)
        g_ptr_array_add (notes, g_strdup_printf (
          s->gpu != NULL
            ? _("JAX takes XLA's pool, %.0f%% of the card, at start-up "
                "(XLA_PYTHON_CLIENT_PREALLOCATE): nvidia-smi shows that pool, not what the model "
                "needs (allocated_peak, %.1f GiB); the model must fit inside the pool. "
                "XLA_PYTHON_CLIENT_MEM_FRACTION sets the pool's share; "
                "XLA_PYTHON_CLIENT_PREALLOCATE=false makes nvidia-smi show the real use and "
                "leaves the pool's limit as it is")
            : _("JAX takes XLA's pool, %.0f%% of the card, at start-up "
                "(XLA_PYTHON_CLIENT_PREALLOCATE): nvidia-smi shows that pool (no GPU given, so "
                "the pool is not counted), not what the model needs (allocated_peak, %.1f GiB); "
                "the model must fit inside the pool. XLA_PYTHON_CLIENT_MEM_FRACTION sets the "
                "pool's share"),
          fraction, est->allocated_peak / GiB));
      else
        g_ptr_array_add (notes,
                         g_strdup_printf (_("JAX without preallocation: XLA's BFC allocator "
                                            "grows as needed, up to the same %.0f%% of the card "
                                            "(XLA_PYTHON_CLIENT_MEM_FRACTION)"), fraction));
      g_ptr_array_add (notes, g_strdup (
        _("under JAX, reserved_peak stands for the XLA allocator's peak in use and "
          "allocated_peak for the live buffers; remat (jax.checkpoint) trades compute for "
          "activations like PyTorch's recomputation")));
    }

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);

      if (p->c->has_activation && p->c->act_source != NULL)
        g_ptr_array_add (notes,
                         g_strdup_printf (_("%s activations: %s"), p->c->name,
                                          p->c->act_source));
    }

  if (s->has_replay)
    g_ptr_array_add (notes, g_strdup (_("the replay buffer lives in host RAM, not on the GPU")));
  if (s->offload != HR_OFFLOAD_NONE)
    g_ptr_array_add (notes, g_strdup (
      _("offloaded bytes move to host RAM; each step moves them over PCIe (ZeRO-Offload, Ren et "
        "al. 2021)")));
}

static void
fit_on_gpu (HrPlan     *self,
            HrEstimate *est,
            const HrGpu *gpu)
{
  HrFitLimit limit;
  HrPeak peak;
  gboolean lower = FALSE;
  g_autofree char *rule = NULL;
  g_autofree char *verdict = NULL;

  est->has_fit = TRUE;
  est->gpu_id = g_strdup (gpu->id);
  est->gpu_name = g_strdup (gpu->name);
  est->capacity = gpu->memory;

  /* The fit rule, stated once in hr-fit-rule.h. */
  hr_plan_peak (self, est->micro_batch, &peak);
  hr_fit_rule_limit (self->scenario, gpu, &peak, &limit);
  est->usable = limit.usable;
  est->need = hr_fit_rule_need (self->scenario, &peak);
  est->fits = est->need <= est->usable;
  est->max_micro_batch = hr_fit_rule_plan_max_micro_batch (self, est->usable, &lower);
  est->max_is_lower_bound = lower;
  rule = hr_fit_rule_describe (&limit);

  if (est->max_micro_batch == 0)
    {
      HrPeak one;
      double state = (double) est->buckets[HR_BUCKET_WEIGHTS] + est->buckets[HR_BUCKET_GRADIENTS] +
                     est->buckets[HR_BUCKET_OPTIMIZER];

      hr_plan_peak (self, 1, &one);
      verdict = g_strdup_printf (
        _("even micro-batch 1 needs %.1f GiB, more than the %.1f GiB usable on %s; weights, "
          "gradients and optimizer state alone are %.1f GiB"),
        hr_fit_rule_need (self->scenario, &one) / GiB, est->usable / GiB, gpu->name,
        state / GiB);
    }
  else if (!est->fits)
    verdict = g_strdup_printf (
      _("micro-batch %u needs %.1f GiB, over the %.1f GiB usable; micro-batch %u fits"),
      est->micro_batch, est->need / GiB, est->usable / GiB, est->max_micro_batch);
  else
    verdict = g_strdup_printf (
      lower ? _("fits with %.1f GiB to spare beyond the reserve; up to micro-batch at least %u")
            : _("fits with %.1f GiB to spare beyond the reserve; up to micro-batch %u"),
      ((double) est->usable - est->need) / GiB, est->max_micro_batch);

  /* Translators: the verdict, then how the usable memory was reached. */
  est->fit_reason = g_strdup_printf (_("%s (%s)"), verdict, rule);
}

HrEstimate *
hr_estimate_new (const HrScenario *scenario)
{
  g_autoptr(HrPlan) plan = NULL;

  g_return_val_if_fail (scenario != NULL, NULL);

  plan = hr_plan_new (scenario);
  return hr_plan_estimate (plan);
}

HrEstimate *
hr_plan_estimate (HrPlan *plan)
{
  const HrScenario *scenario;
  HrEstimate *est;
  HrPeak peak;
  guint64 trainable = 0;

  g_return_val_if_fail (plan != NULL, NULL);

  g_atomic_int_inc (&counter_estimates);
  scenario = plan->scenario;

  est = g_new0 (HrEstimate, 1);
  est->items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  est->host_items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  est->notes = g_ptr_array_new_with_free_func (g_free);
  est->micro_batch = scenario->micro_batch;
  est->params = scenario->model->params;

  for (guint i = 0; i < plan->parts->len; i++)
    {
      Part *p = &g_array_index (plan->parts, Part, i);

      trainable += (guint64) llround (p->trainable + p->adapters);
      /* the sequence length matters only if some part reads it */
      if ((p->c->kind == HR_COMPONENT_TRANSFORMER && p->c->tokens_from == HR_TOKENS_SEQ_LEN) ||
          (p->c->has_activation && p->c->act_scaling == HR_SCALING_SEQ))
        est->seq_len = plan->seq_len;
    }
  est->trainable_params = trainable;

  compute (plan, scenario->micro_batch, est, &peak);
  est->total = peak.total;
  est->low = peak.low;
  est->high = peak.high;
  est->allocated_peak = peak.allocated;
  est->reserved_peak = peak.reserved;
  est->device_used = peak.device_used;

  /* The buckets must add up to the total exactly despite rounding. */
  {
    guint64 sum = 0;

    for (guint i = 0; i < HR_N_BUCKETS; i++)
      sum += est->buckets[i];
    est->buckets[HR_BUCKET_OVERHEAD] += est->total - sum;
  }

  add_notes (plan, est);

  if (scenario->gpu != NULL)
    fit_on_gpu (plan, est, scenario->gpu);

  return est;
}

HrEstimate *
hr_estimate_copy (const HrEstimate *estimate)
{
  HrEstimate *copy;

  g_return_val_if_fail (estimate != NULL, NULL);

  copy = g_memdup2 (estimate, sizeof *estimate);
  copy->gpu_id = g_strdup (estimate->gpu_id);
  copy->gpu_name = g_strdup (estimate->gpu_name);
  copy->fit_reason = g_strdup (estimate->fit_reason);
  copy->items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  copy->host_items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  copy->notes = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < estimate->items->len; i++)
    {
      HrEstimateItem *item = g_memdup2 (g_ptr_array_index (estimate->items, i),
                                        sizeof (HrEstimateItem));

      item->label = g_strdup (item->label);
      g_ptr_array_add (copy->items, item);
    }
  for (guint i = 0; i < estimate->host_items->len; i++)
    {
      HrEstimateItem *item = g_memdup2 (g_ptr_array_index (estimate->host_items, i),
                                        sizeof (HrEstimateItem));

      item->label = g_strdup (item->label);
      g_ptr_array_add (copy->host_items, item);
    }
  for (guint i = 0; i < estimate->notes->len; i++)
    g_ptr_array_add (copy->notes, g_strdup (g_ptr_array_index (estimate->notes, i)));

  return copy;
}

void
hr_estimate_free (HrEstimate *estimate)
{
  if (estimate == NULL)
    return;

  g_free (estimate->gpu_id);
  g_free (estimate->gpu_name);
  g_free (estimate->fit_reason);
  g_clear_pointer (&estimate->items, g_ptr_array_unref);
  g_clear_pointer (&estimate->host_items, g_ptr_array_unref);
  g_clear_pointer (&estimate->notes, g_ptr_array_unref);
  g_free (estimate);
}
