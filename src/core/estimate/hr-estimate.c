/* hr-estimate.c: a scenario's memory, in five buckets per GPU
 *
 * Every constant below says where it comes from.  The estimate models what
 * the common PyTorch stack (transformers, PEFT, bitsandbytes, torch.optim)
 * keeps alive at the peak of a training step, and what the stack the
 * scenario names does differently; docs/DESIGN.md gives the buckets.  The work is
 * split by concern (hr-estimate-private.h lists the files); this one runs a
 * plan and adds up the buckets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-checked.h"
#include "hr-estimate-private.h"
#include "hr-fit-rule.h"

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

/* Before PyTorch 1.13 nothing asked for lazy loading, and CUDA loaded
 * every kernel of every library it opened into the context: PyTorch
 * 1.13 sets CUDA_MODULE_LOADING=LAZY where the user has not set it
 * (pytorch/pytorch PR #86509, "[1.13] Sets CUDA_MODULE_LOADING to LAZY
 * when not set by the user", which measured 287,047,680 bytes lazy
 * against 666,632,192 eager after one tensor).  With the kernels loaded a
 * training process's context is larger: 1343 MiB in nvidia-smi after
 * torch.ones((1, 1)).to("cuda") on a V100 under CUDA 11.2, 2022-01-11
 * (huggingface/transformers docs/source/en/model_memory_anatomy.md,
 * which gives "1-2GB" as the span).  That figure at the centre, the
 * PR's eager one at the bottom, 2 GiB at the top. */
#define CUDA_CONTEXT_EAGER_BYTES      (1343.0 * MiB)
#define CUDA_CONTEXT_EAGER_LOW_BYTES  (666632192.0)
#define CUDA_CONTEXT_EAGER_HIGH_BYTES (2.0 * GiB)

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

/* The range around the central figure is the estimator's own error on
 * published runs of sources it was not built from, by kind of run:
 * hr-estimate-range.c and the table it reads say how it was measured. */

/* XLA's pool under JAX (its share of the card, and whether it is taken up
 * front) is the fit rule's: hr-fit-rule.c, with its sources. */

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

const char *
hr_basis_get_label (HrBasis basis)
{
  switch (basis)
    {
    case HR_BASIS_DERIVED:
      return _("derived");
    case HR_BASIS_CALIBRATED:
      return _("calibrated");
    case HR_BASIS_ASSUMED:
      return _("assumed");
    default:
      g_return_val_if_reached (NULL);
    }
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

void
hr_acc_add (Acc        *acc,
            HrBucket    bucket,
            HrMetric    metric,
            HrBasis     basis,
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
      item->basis = basis;
      item->bytes = bytes;
      item->low = low;
      item->high = high;
      g_ptr_array_add (acc->est->items, item);
    }
}

void
hr_acc_note (Acc        *acc,
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
part_tokens (HrPlan            *self,
             const HrComponent *c)
{
  return hr_component_tokens_video (c, self->seq_len, self->image_width, self->image_height,
                                    self->frames);
}

/* A vision-language model's LoRA adapts its language model only: the
 * fine-tuning scripts name the language model's modules (QwenLM/Qwen-VL
 * finetune.py @aa00ed0: c_attn, attn.c_proj, w1, w2; haotian-liu/LLaVA
 * llava/train/train.py find_all_linear_names skips every module under
 * mm_projector, vision_tower and vision_resampler), so the tower the
 * catalog marks frozen gets no adapters. */
static gboolean
vlm_frozen_tower (const HrScenario  *s,
                  const HrComponent *c)
{
  return g_strcmp0 (s->model->family, "vlm") == 0 && !c->trainable;
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

      /* "cache_latents": the frozen encoders left the GPU after encoding
       * the data set (hr-estimate-vision.c) */
      if (hr_plan_part_unloaded (self, c))
        continue;

      part.c = c;
      part.params = (double) c->params;
      part.tokens = c->kind == HR_COMPONENT_TRANSFORMER ? part_tokens (self, c) : 0;
      /* context parallelism: each GPU computes s / cp of the sequence */
      if (self->training && c->tokens_from == HR_TOKENS_SEQ_LEN && s->context_parallel > 1)
        part.tokens = (part.tokens + s->context_parallel - 1) / s->context_parallel;

      /* a part known by its parameter count alone stays frozen, whatever
       * the method: what training it keeps needs its shape */
      if (self->training && !hr_plan_part_pipeline_frozen (self, c) &&
          c->kind != HR_COMPONENT_WEIGHTS_ONLY)
        {
          switch (s->method)
            {
            case HR_METHOD_FULL:
              part.trainable = part.params;
              /* what the architecture freezes itself (a wav2vec 2.0
               * fine-tune's feature encoder) trains under no method */
              if (c->arch != NULL)
                part.trainable -= MIN (part.params, (double) hr_arch_frozen_params (c->arch));
              break;
            case HR_METHOD_FREEZE:
              part.trainable = c->trainable ? part.params : 0;
              if (c->trainable && c->arch != NULL)
                part.trainable -= MIN (part.params, (double) hr_arch_frozen_params (c->arch));
              break;
            default:
              /* Parts without a transformer shape (a diffusion U-Net) get
               * adapters on their attention layers too; without the shapes
               * to count them, 1% of the part's parameters stands in
               * (SD 1.5 LoRAs of rank 32 are 20-40M parameters, 2-5%). */
              if (c->kind == HR_COMPONENT_TRANSFORMER && !vlm_frozen_tower (s, c))
                hr_plan_setup_adapters (self, &part);
              else if (c->arch != NULL)
                part.adapters = hr_plan_arch_lora_params (self, c);
              else if (c->trainable && s->method != HR_METHOD_PREFIX &&
                       s->method != HR_METHOD_PROMPT && s->method != HR_METHOD_LAYERNORM)
                part.adapters = 0.01 * part.params;
              break;
            }
        }

      default_trainable += part.trainable;
      adapter_sum += part.adapters;
      g_array_append_val (self->parts, part);
    }

  /* "trainable_params" overrides the count: adapters are scaled to it;
   * otherwise it is spread over the parts that train by default (or all
   * parts, by size, when none does). */
  if (self->training && s->trainable_params_set)
    {
      /* the count is the model's; a GPU holds its share of it */
      double wanted = (double) s->trainable_params * self->local_share;
      double base = 0;

      if (hr_method_is_peft (s->method) && adapter_sum > 0)
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

              if (p->c->kind != HR_COMPONENT_WEIGHTS_ONLY)
                base += use_default ? p->trainable : p->params;
            }
          for (guint i = 0; i < self->parts->len; i++)
            {
              Part *p = &g_array_index (self->parts, Part, i);
              double share = p->c->kind == HR_COMPONENT_WEIGHTS_ONLY ? 0
                             : use_default ? p->trainable : p->params;

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
          self->stage != HR_STAGE_FIRST &&
          (hr_model_is_language_model (s->model) ||
           (g_strcmp0 (s->model->family, "encoder") == 0 && s->task == HR_TASK_TRAIN)))
        {
          p->logits = TRUE;
          logits_taken = TRUE;
        }

      p->kv_cache = !self->training && decoder && p->c->kind == HR_COMPONENT_TRANSFORMER &&
                    p->c->tokens_from == HR_TOKENS_SEQ_LEN;

      if (p->c->kind == HR_COMPONENT_TRANSFORMER)
        hr_plan_setup_regime (self, p);
    }
}

#define CHECKED(bytes) hr_checked_bytes ((bytes), overflow)

/* The allocator's, the libraries' and the CUDA context's share. */
static void
add_overhead (HrPlan *self,
              Acc    *acc)
{
  const HrScenario *s = self->scenario;
  double static_total, dynamic_total;
  double frag, frag_low, frag_high;

  hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
              CUBLAS_WORKSPACE_BYTES, 8.0 * MiB, CUBLAS_WORKSPACE_BYTES, _("cuBLAS workspace"));

  /* loading's own peak, with the caches the fused blocks allocate as they
   * are built, where it rises above the run's (hr-estimate-sharding.c) */
  if (acc->load_allocated > 0)
    {
      double over = MAX (0, acc->load_allocated + acc->kv_pool -
                               acc->by_metric[HR_METRIC_ALLOCATED]);

      hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, over, over,
                  over,
                  _("fusing the layers while loading (AutoAWQ fuse_layers): every layer's "
                    "fused q/k/v copy beside the unfused weights, where it exceeds the run"));
    }

  static_total = acc->by_metric[HR_METRIC_ALLOCATED] - acc->activations;
  dynamic_total = acc->activations;
  frag = FRAG_DYNAMIC * dynamic_total + FRAG_STATIC * static_total;
  frag_low = FRAG_DYNAMIC_LOW * dynamic_total + FRAG_STATIC_LOW * static_total;
  frag_high = FRAG_DYNAMIC_HIGH * dynamic_total + FRAG_STATIC_HIGH * static_total;
  /* an engine that sizes its KV pool from what is free empties the cache
   * after profiling and then allocates in fixed blocks */
  if (hr_scenario_has_kv_pool (s))
    frag = frag_low = 0;
  hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_RESERVED, HR_BASIS_ASSUMED, frag, frag_low,
              frag_high, _("allocator fragmentation (reserved but not allocated)"));

  /* what loading the model left in the allocator's cache, where that is
   * more than the step reserves (hr-estimate-sharding.c) */
  if (acc->load_reserved > 0)
    {
      double step = acc->by_metric[HR_METRIC_ALLOCATED] + acc->by_metric[HR_METRIC_RESERVED];
      double step_high = acc->by_metric_high[HR_METRIC_ALLOCATED] +
                         acc->by_metric_high[HR_METRIC_RESERVED];

      hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_RESERVED, HR_BASIS_DERIVED,
                  MAX (0, acc->load_reserved - step), 0,
                  MAX (0, acc->load_reserved_high - step_high),
                  _("quantising the weights while loading: blocks the allocator keeps "
                    "reserved"));
    }

  if (hr_scenario_pytorch_before (s, 1, 13))
    hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_DEVICE_USED, HR_BASIS_ASSUMED,
                CUDA_CONTEXT_EAGER_BYTES, CUDA_CONTEXT_EAGER_LOW_BYTES,
                CUDA_CONTEXT_EAGER_HIGH_BYTES,
                _("CUDA context and library kernels, every kernel loaded up front (PyTorch "
                  "before 1.13 does not ask for lazy loading)"));
  else
    hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_DEVICE_USED, HR_BASIS_ASSUMED,
                CUDA_CONTEXT_BYTES, CUDA_CONTEXT_LOW_BYTES, CUDA_CONTEXT_HIGH_BYTES,
                _("CUDA context and library kernels"));
}

/* The peak's figures and ranges, from the sums of what was counted. */
static void
fill_peak (HrPlan   *self,
           Acc      *acc,
           guint     micro_batch,
           HrPeak   *peak,
           gboolean *overflow)
{
  const HrScenario *s = self->scenario;
  double allocated = acc->by_metric[HR_METRIC_ALLOCATED];
  double reserved = allocated + acc->by_metric[HR_METRIC_RESERVED];
  double allocated_low = acc->by_metric_low[HR_METRIC_ALLOCATED];
  double allocated_high = acc->by_metric_high[HR_METRIC_ALLOCATED];
  double reserved_low = allocated_low + acc->by_metric_low[HR_METRIC_RESERVED];
  double reserved_high = allocated_high + acc->by_metric_high[HR_METRIC_RESERVED];
  double need = 0;
  double preallocated = 0;   /* XLA's pool beyond the model's need: no error of the estimator's */

  /* a serving engine's pool is filled with KV cache instead
   * (hr_plan_finish_serving) and has its own need below */
  if (hr_fit_rule_has_pool (s) && !hr_scenario_has_kv_pool (s))
    {
      /* The model's own need has to fit inside the allocator's pool;
       * preallocated, XLA takes all of it whatever the model needs. */
      if (s->gpu != NULL && hr_fit_rule_pool_preallocated (s))
        {
          double fraction = hr_fit_rule_pool_fraction (s);
          double pool = fraction * (double) s->gpu->memory;

          preallocated = MAX (0, pool - reserved);
          hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_DEVICE_USED, HR_BASIS_DERIVED,
                      MAX (0, pool - reserved), MAX (0, pool - reserved_high),
                      MAX (0, pool - reserved_low),
                      _("XLA preallocation: the rest of the %.0f%% of the card JAX takes up "
                        "front"),
                      fraction * 100);
        }
      need = reserved;
    }

  if (peak != NULL)
    {
      double device = acc->by_metric[HR_METRIC_ALLOCATED] + acc->by_metric[HR_METRIC_RESERVED] +
                      acc->by_metric[HR_METRIC_DEVICE_USED];
      /* The peaks' ranges are the kind's measured error alone; each
       * line and bucket keeps its own range (acc->low, acc->high), but
       * their sums reach far wider than the estimator errs on published
       * runs (tests/validation/README.md, "The range"). */
      const HrRangeRow *range = hr_plan_range_row (self);
      double band_low = 1.0 - range->low;
      double band_high = 1.0 + range->high;
      /* what an engine sizes from the card, not from the model, is no
       * error of the estimator's: XLA's preallocated pool, a serving
       * engine's KV pool (it takes what the model leaves) */
      double pool = hr_scenario_has_kv_pool (s) ? acc->kv_pool : 0;
      /* XLA's preallocated pool is taken whole whatever the run needs
       * of it: what nvidia-smi shows is the pool and the CUDA context,
       * and the need's own range lies inside the pool (peak->need_*) */
      double fixed = preallocated > 0 ? device : pool + preallocated;

      peak->allocated = CHECKED (allocated);
      peak->reserved = CHECKED (reserved);
      peak->device_used = CHECKED (device);
      peak->total = peak->device_used;
      peak->low = CHECKED (band_low * (device - fixed) + fixed);
      peak->high = CHECKED (band_high * (device - fixed) + fixed);
      peak->allocated_low = CHECKED (band_low * (allocated - pool) + pool);
      peak->allocated_high = CHECKED (band_high * (allocated - pool) + pool);
      peak->reserved_low = CHECKED (band_low * (reserved - pool) + pool);
      peak->reserved_high = CHECKED (band_high * (reserved - pool) + pool);
      reserved_low = band_low * (reserved - pool) + pool;
      reserved_high = band_high * (reserved - pool) + pool;
      if (need > 0)
        {
          peak->need = CHECKED (need);
          peak->need_low = CHECKED (MIN (reserved_low, need));
          peak->need_high = CHECKED (MAX (reserved_high, need));
        }
      else
        {
          peak->need = peak->device_used;
          peak->need_low = peak->low;
          peak->need_high = peak->high;
        }

      peak->kv_cache = CHECKED (acc->kv_pool);
      peak->outside_pool = 0;
      if (hr_scenario_has_kv_pool (s))
        {
          /* the engine's pool must hold what it profiled and the
           * micro-batch's sequences */
          double sequences = acc->kv_per_sequence * micro_batch;

          peak->need = CHECKED (acc->kv_rest + sequences);
          peak->need_low = CHECKED (acc->kv_rest_low + sequences);
          peak->need_high = CHECKED (acc->kv_rest_high + sequences);
          /* what the process holds beside the pool (its content is what
           * the engine counted and the cache it filled the rest with) */
          peak->outside_pool = CHECKED (MAX (0, device - acc->kv_rest - acc->kv_pool));
        }
    }
}

/* The estimate's buckets, and the host memory of the whole job. */
static void
fill_estimate (HrPlan     *self,
               Acc        *acc,
               HrEstimate *est,
               gboolean   *overflow)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  double host_job_factor = MAX (1, s->gpus);

  est->kv_cache_low = CHECKED (acc->kv_pool_low);
  est->kv_cache_high = CHECKED (acc->kv_pool_high);
  est->walk_saved = CHECKED (acc->walk_saved);
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      est->buckets[i] = CHECKED (acc->bytes[i]);
      est->bucket_low[i] = CHECKED (acc->low[i]);
      est->bucket_high[i] = CHECKED (acc->high[i]);
    }

  /* ---- host memory, for the whole job ---- */
  if (acc->host_params + acc->host_states > 0)
    {
      HrEstimateItem *item = g_new0 (HrEstimateItem, 1);
      double job = (acc->host_params + acc->host_states) * host_job_factor;

      item->label = g_strdup (acc->host_params > 0
                                ? _("offloaded weights and optimizer state for the whole job")
                                : sp->nvme
                                ? _("offloaded gradients for the whole job (the optimizer "
                                    "state is on NVMe)")
                                : _("offloaded optimizer state for the whole job"));
      item->basis = HR_BASIS_DERIVED;
      item->bytes = item->low = job;
      item->high = job * 1.1;
      g_ptr_array_add (est->host_items, item);
      est->host_ram = hr_checked_add (est->host_ram, CHECKED (job), overflow);
    }

  hr_plan_add_host_parts (self, est, host_job_factor);

  if (acc->host_activations > 0)
    {
      HrEstimateItem *item = g_new0 (HrEstimateItem, 1);
      double job = acc->host_activations * host_job_factor;

      item->label = g_strdup (_("offloaded activations in pinned memory for the whole job"));
      item->basis = HR_BASIS_DERIVED;
      item->bytes = item->low = job;
      item->high = job * 1.2;
      g_ptr_array_add (est->host_items, item);
      est->host_ram = hr_checked_add (est->host_ram, CHECKED (job), overflow);
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
      item->basis = HR_BASIS_DERIVED;
      item->label = g_strdup_printf (_("replay buffer: %.0f steps × %s %s"),
                                     (double) s->replay.steps, shape->str,
                                     hr_enum_to_nick (hr_obs_dtype_names, s->replay.obs_dtype));
      g_string_free (shape, TRUE);
      g_ptr_array_add (est->host_items, item);
      est->host_ram = hr_checked_add (est->host_ram, CHECKED (item->bytes), overflow);
    }
}

static void
compute (HrPlan     *self,
         guint       micro_batch,
         HrEstimate *est,
         HrPeak     *peak)
{
  Acc acc = { 0 };
  /* set when a figure is beyond what a byte count holds (hr-checked.h) */
  gboolean overflow = FALSE;

  g_atomic_int_inc (&counter_passes);

  acc.plan = self;
  acc.est = est;
  acc.micro_batch = micro_batch;
  acc.pipeline_activations = 1.0;
  acc.pipeline_gradients = 1.0;

  /* A pipeline stage peaks where its schedule has the most activations
   * and gradients alive together: one pass finds both, per micro-batch. */
  if (self->training && self->shard.pp > 1)
    {
      Acc probe = { 0 };

      probe.plan = self;
      probe.micro_batch = micro_batch;
      probe.pipeline_activations = 1.0;
      probe.pipeline_gradients = 1.0;
      hr_plan_add_gradients (self, &probe);
      hr_plan_add_activations (self, &probe, micro_batch);
      hr_plan_pipeline_peak (self, probe.activations, probe.bytes[HR_BUCKET_GRADIENTS],
                             &acc.pipeline_activations, &acc.pipeline_gradients);
    }

  hr_plan_add_weights (self, &acc);
  hr_plan_add_gradients (self, &acc);
  hr_plan_add_optimizer (self, &acc);
  hr_plan_add_ema (self, &acc);
  hr_plan_add_activations (self, &acc, micro_batch);
  hr_plan_add_gptq_backward (self, &acc);
  if (self->training)
    hr_plan_add_context_parallel (self, &acc, micro_batch);
  hr_plan_add_deferred_gradients (self, &acc);
  hr_plan_add_step_temporaries (self, &acc);
  hr_plan_add_sharding_overhead (self, &acc);

  /* ---- overhead ---- */
  add_overhead (self, &acc);

  hr_plan_finish_serving (self, &acc);

  fill_peak (self, &acc, micro_batch, peak, &overflow);

  if (est != NULL)
    fill_estimate (self, &acc, est, &overflow);

  if (peak != NULL)
    peak->overflow = overflow;
  if (est != NULL)
    est->overflow |= overflow;
}

#undef CHECKED

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
  g_autofree char *per_sample_text = NULL;
  g_autofree char *peak_text = NULL;
  g_autofree char *rest_text = NULL;
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

  per_sample_text = hr_size_format_full (per_sample, self->unit, HR_SIZE_FORMAT_PRECISE);
  peak_text = hr_size_format_full (peak, self->unit, HR_SIZE_FORMAT_PRECISE);
  rest_text = hr_size_format (rest, self->unit);
  message = g_strdup_printf (_("%s: %s of activations per sample, calibrated so that the "
                               "default setup (%s, %s) peaks at the published %s (%s) at "
                               "micro-batch %u; everything else at that peak is %s%s"),
                             component->name, per_sample_text,
                             hr_enum_to_nick (hr_method_names, probe->method),
                             hr_enum_to_nick (hr_compute_names, probe->compute),
                             peak_text, hr_enum_to_nick (hr_metric_names, metric), batch,
                             rest_text,
                             peak <= rest ? _(". The published peak is below everything else: "
                                              "the calibration cannot hold; check the catalog "
                                              "entry") : "");
  g_ptr_array_add (self->calibration_notes, message);
}

/* PyTorch's own mechanisms mean nothing to a JAX program, whatever the
 * file says: the stacks (all PyTorch code), torch.optim's foreach and
 * fused steps, torchtune's optimizer_in_bwd, saved activations moved to
 * the host (torch.autograd.graph.save_on_cpu) and torch.compile.  The
 * window does not offer them under JAX (hr-setting.c), and a file that
 * sets them estimates as if it did not. */
static void
drop_torch_only (HrScenario *s)
{
  if (s->framework != HR_FRAMEWORK_JAX)
    return;
  s->stack_set = FALSE;
  s->optimizer_impl_set = FALSE;
  s->optimizer_impl = HR_OPTIMIZER_IMPL_FOREACH;
  s->optimizer_in_bwd = FALSE;
  s->activation_offload = FALSE;
  s->compile = FALSE;
}

static HrPlan *
plan_new_for_stage (const HrScenario *scenario,
                    HrSizeUnit        unit,
                    HrStage           stage,
                    gboolean          fsdp1_bound)
{
  HrPlan *self;
  double global = 0, local = 0;

  g_atomic_int_inc (&counter_plans);
  self = g_new0 (HrPlan, 1);
  self->unit = unit;
  self->scenario = hr_scenario_copy (scenario);
  drop_torch_only (self->scenario);
  self->stage = stage;
  self->is_fsdp1_bound = fsdp1_bound;
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
  self->frames = hr_scenario_get_frames (self->scenario);

  for (guint i = 0; i < self->scenario->model->components->len; i++)
    global += ((HrComponent *) g_ptr_array_index (self->scenario->model->components, i))->params;
  hr_plan_localize (self);
  for (guint i = 0; i < self->scenario->model->components->len; i++)
    local += ((HrComponent *) g_ptr_array_index (self->scenario->model->components, i))->params;
  self->local_share = global > 0 ? local / global : 1.0;

  hr_plan_setup_sharding (self);
  hr_plan_setup_precision (self);
  setup_parts (self);
  return self;
}

/* Raises @peak's high ends to those of @bound (another reading of the same
 * scenario, with its own range). */
static void
widen_to (HrPeak       *peak,
          const HrPeak *bound)
{
  peak->high = MAX (peak->high, bound->high);
  peak->allocated_high = MAX (peak->allocated_high, bound->allocated_high);
  peak->reserved_high = MAX (peak->reserved_high, bound->reserved_high);
  peak->need_high = MAX (peak->need_high, bound->need_high);
}

HrPlan *
hr_plan_new (const HrScenario *scenario)
{
  return hr_plan_new_in_unit (scenario, HR_SIZE_GIB);
}

HrSizeUnit
hr_plan_get_unit (HrPlan *self)
{
  g_return_val_if_fail (self != NULL, HR_SIZE_GIB);
  return self->unit;
}

HrPlan *
hr_plan_new_in_unit (const HrScenario *scenario,
                     HrSizeUnit        unit)
{
  HrPlan *self;

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (scenario->model != NULL, NULL);

  /* with pipeline parallelism the first stage is estimated, and the last
   * beside it: the peak is the fuller of the two */
  if (scenario->pipeline_parallel > 1)
    {
      self = plan_new_for_stage (scenario, unit, HR_STAGE_FIRST, FALSE);
      self->last_stage = plan_new_for_stage (scenario, unit, HR_STAGE_LAST, FALSE);
    }
  else
    self = plan_new_for_stage (scenario, unit, HR_STAGE_ONLY, FALSE);

  /* "sharding": "fsdp" means FSDP2, but a file that does not say which and
   * names no stack may come from FSDP1 code: for adapters or frozen parts
   * accumulating gradients, what FSDP1 holds then (unsharded gradients of
   * whole units) is the high end of the range */
  if (scenario->sharding == HR_SHARDING_FSDP && scenario->sharding_unversioned &&
      !scenario->stack_set && hr_scenario_is_training (scenario) && scenario->grad_accum > 1 &&
      (hr_method_is_peft (scenario->method) || scenario->method == HR_METHOD_FREEZE) &&
      hr_plan_shard_degree (scenario) > 1 && scenario->pipeline_parallel <= 1)
    self->fsdp1_bound = plan_new_for_stage (scenario, unit, HR_STAGE_ONLY, TRUE);
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
  hr_plan_free (self->last_stage);
  hr_plan_free (self->fsdp1_bound);
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
  if (self->last_stage != NULL)
    {
      HrPeak last;

      compute (self->last_stage, MAX (1, micro_batch), NULL, &last);
      if (last.need > peak->need)
        *peak = last;
    }
  if (self->fsdp1_bound != NULL)
    {
      HrPeak bound;

      compute (self->fsdp1_bound, MAX (1, micro_batch), NULL, &bound);
      widen_to (peak, &bound);
    }
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

/* What a training step's estimate assumes. */
static void
add_training_notes (HrPlan    *self,
                    GPtrArray *notes)
{
  const HrScenario *s = self->scenario;
  gboolean any_frozen_no_backprop = FALSE;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);

      if (!p->backprop)
        any_frozen_no_backprop = TRUE;
      if (p->c->kind == HR_COMPONENT_WEIGHTS_ONLY && s->method != HR_METHOD_FREEZE)
        g_ptr_array_add (notes, g_strdup_printf (
          _("%s is given by its parameter count alone: it is counted frozen, whatever the "
            "method; to train it, give its shape (layers, hidden, heads), an \"arch\" or an "
            "\"activation\" figure"), p->c->name));
      if (p->logits && s->loss == HR_LOSS_UPCAST)
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
  hr_plan_add_sharding_notes (self, notes);
  hr_plan_add_parallel_notes (self, notes);
  hr_plan_add_vision_notes (self, notes);
  if (s->optimizer_in_bwd)
    g_ptr_array_add (notes, g_strdup (
      _("optimizer_in_bwd steps each parameter from its gradient hook and frees the "
        "gradient at once: no full gradient buffer (torchtune's "
        "register_optim_in_bwd_hooks)")));
  if (s->activation_offload)
    g_ptr_array_add (notes, g_strdup (
      _("activation offloading moves the saved activations to pinned host memory and brings "
        "them back for the backward pass; the working set of the layer being computed stays "
        "on the GPU")));
  if (s->compile)
    g_ptr_array_add (notes, g_strdup (
      _("torch.compile: Inductor recomputes cheap pointwise results (norm upcasts, the "
        "gated activation, the loss's log-probabilities) in the backward pass instead of "
        "saving them; counted as an assumption about its partitioner")));
}

/* What XLA's pool means for the figures under JAX. */
static void
add_jax_notes (HrPlan     *self,
               HrEstimate *est,
               GPtrArray  *notes)
{
  const HrScenario *s = self->scenario;
  double fraction = hr_fit_rule_pool_fraction (s) * 100;
  g_autofree char *allocated = hr_size_format (est->allocated_peak, self->unit);

  if (s->jax_preallocate)
    g_ptr_array_add (notes, g_strdup_printf (
      s->gpu != NULL
        ? _("JAX takes XLA's pool, %.0f%% of the card, at start-up "
            "(XLA_PYTHON_CLIENT_PREALLOCATE): nvidia-smi shows that pool, not what the model "
            "needs (allocated_peak, %s); the model must fit inside the pool. "
            "XLA_PYTHON_CLIENT_MEM_FRACTION sets the pool's share; "
            "XLA_PYTHON_CLIENT_PREALLOCATE=false makes nvidia-smi show the real use and "
            "leaves the pool's limit as it is")
        : _("JAX takes XLA's pool, %.0f%% of the card, at start-up "
            "(XLA_PYTHON_CLIENT_PREALLOCATE): nvidia-smi shows that pool (no GPU given, so "
            "the pool is not counted), not what the model needs (allocated_peak, %s); "
            "the model must fit inside the pool. XLA_PYTHON_CLIENT_MEM_FRACTION sets the "
            "pool's share"),
      fraction, allocated));
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

  {
    const HrRangeRow *range = hr_plan_range_row (self);

    g_ptr_array_add (notes, g_strdup_printf (
      _("the range, %+.0f%% to %+.0f%% around the estimate, is calibrated from published runs "
        "of other sources: the estimator's error on %u runs of %s from %u source families, "
        "each scored with a range built from the other families only"),
      -100.0 * range->low, 100.0 * range->high, range->rows, range->from, range->families));
  }

  if (!s->seq_len_set && s->model->seq_len == 0 && est->seq_len > 0)
    g_ptr_array_add (notes,
                     g_strdup_printf (_("seq_len not given: %u tokens assumed"), self->seq_len));

  if (self->training)
    add_training_notes (self, notes);
  else
    {
      if (s->method != HR_METHOD_FULL || s->trainable_params_set)
        g_ptr_array_add (notes,
                         g_strdup (_("inference trains nothing: method and trainable_params "
                                     "are ignored")));
      hr_plan_add_parallel_notes (self, notes);
      hr_plan_add_serving_notes (self, est);
    }

  if (s->optimizer == HR_OPTIMIZER_PAGED_ADAMW_8BIT || s->optimizer == HR_OPTIMIZER_PAGED_ADAMW)
    g_ptr_array_add (notes, g_strdup (
      _("paged optimizer state lives in CUDA unified memory: nvidia-smi shows it, PyTorch's "
        "allocator statistics do not, and it moves to host RAM under pressure")));

  if (s->framework == HR_FRAMEWORK_JAX)
    add_jax_notes (self, est, notes);

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
  g_autofree char *need = NULL;
  g_autofree char *usable = NULL;

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
  rule = hr_fit_rule_describe (&limit, self->unit);
  need = hr_size_format (est->need, self->unit);
  usable = hr_size_format (est->usable, self->unit);
  if (hr_scenario_has_kv_pool (self->scenario))
    {
      /* the sequences the engine runs at once are capped by max_num_seqs */
      guint cap = hr_plan_serving_max_seqs (self);

      if (est->max_micro_batch > cap)
        {
          est->max_micro_batch = cap;
          est->max_is_lower_bound = FALSE;
        }
    }

  if (est->max_micro_batch == 0 && hr_scenario_has_kv_pool (self->scenario))
    verdict = g_strdup_printf (
      _("the weights and the engine's profiling need %s of the %s usable: not even "
        "one sequence of %u tokens fits in the KV cache left"),
      need, usable, self->context_len);
  else if (hr_scenario_has_kv_pool (self->scenario))
    verdict = g_strdup_printf (
      est->fits ? _("fits: %u sequences of %u tokens at once")
                : _("holds %u sequences of %u tokens at once, fewer than the micro-batch asks"),
      est->max_micro_batch, self->context_len);
  else if (est->max_micro_batch == 0)
    {
      HrPeak one;
      double state = (double) est->buckets[HR_BUCKET_WEIGHTS] + est->buckets[HR_BUCKET_GRADIENTS] +
                     est->buckets[HR_BUCKET_OPTIMIZER];
      g_autofree char *need_one = NULL;
      g_autofree char *state_text = hr_size_format (state, self->unit);

      hr_plan_peak (self, 1, &one);
      need_one = hr_size_format (hr_fit_rule_need (self->scenario, &one), self->unit);
      verdict = g_strdup_printf (
        _("even micro-batch 1 needs %s, more than the %s usable on %s; weights, "
          "gradients and optimizer state alone are %s"),
        need_one, usable, gpu->name, state_text);
    }
  else if (!est->fits)
    verdict = g_strdup_printf (
      _("micro-batch %u needs %s, over the %s usable; micro-batch %u fits"),
      est->micro_batch, need, usable, est->max_micro_batch);
  else
    {
      g_autofree char *spare = hr_size_format ((double) est->usable - est->need, self->unit);

      verdict = g_strdup_printf (
        lower ? _("fits with %s to spare beyond the reserve; up to micro-batch at least %u")
              : _("fits with %s to spare beyond the reserve; up to micro-batch %u"),
        spare, est->max_micro_batch);
    }

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
  HrPlan *stage;
  HrEstimate *est;
  HrPeak peak;
  guint64 trainable = 0;

  g_return_val_if_fail (plan != NULL, NULL);

  g_atomic_int_inc (&counter_estimates);
  scenario = plan->scenario;
  stage = plan;
  /* the breakdown is the fuller stage's */
  if (plan->last_stage != NULL)
    {
      HrPeak first, last;

      compute (plan, MAX (1, scenario->micro_batch), NULL, &first);
      compute (plan->last_stage, MAX (1, scenario->micro_batch), NULL, &last);
      if (last.need > first.need)
        stage = plan->last_stage;
    }

  est = g_new0 (HrEstimate, 1);
  est->items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  est->host_items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  est->walk_blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  est->notes = g_ptr_array_new_with_free_func (g_free);
  est->micro_batch = scenario->micro_batch;
  est->params = scenario->model->params;

  for (guint i = 0; i < stage->parts->len; i++)
    {
      Part *p = &g_array_index (stage->parts, Part, i);

      /* the model's count, where a GPU holds a share of it */
      trainable += (guint64) llround ((p->trainable + p->adapters) /
                                      MAX (1e-12, stage->local_share));
      /* the sequence length matters only if some part reads it */
      if ((p->c->kind == HR_COMPONENT_TRANSFORMER && p->c->tokens_from == HR_TOKENS_SEQ_LEN) ||
          (p->c->has_activation && p->c->act_scaling == HR_SCALING_SEQ))
        est->seq_len = stage->seq_len;
    }
  est->trainable_params = MIN (trainable, est->params);

  compute (stage, scenario->micro_batch, est, &peak);
  if (plan->fsdp1_bound != NULL)
    {
      HrPeak bound;

      compute (plan->fsdp1_bound, MAX (1, scenario->micro_batch), NULL, &bound);
      widen_to (&peak, &bound);
      if (bound.device_used > peak.device_used)
        {
          g_autofree char *held = hr_size_format (bound.device_used, plan->unit);

          g_ptr_array_add (est->notes, g_strdup_printf (
            _("\"sharding\": \"fsdp\" is estimated as FSDP2; FSDP1 code (LitGPT, Lightning: "
              "whole-unit gradients accumulated unsharded under no_sync) would hold %s, the "
              "high end of the range: write \"fsdp2\" or \"fsdp1\", or name the stack"),
            held));
        }
    }
  {
    const HrRangeRow *range = hr_plan_range_row (stage);

    est->range_kind = range->kind;
    est->range_low = range->low;
    est->range_high = range->high;
  }
  est->total = peak.total;
  est->low = peak.low;
  est->high = peak.high;
  est->allocated_peak = peak.allocated;
  est->reserved_peak = peak.reserved;
  est->device_used = peak.device_used;
  est->allocated_low = peak.allocated_low;
  est->allocated_high = peak.allocated_high;
  est->reserved_low = peak.reserved_low;
  est->reserved_high = peak.reserved_high;
  est->kv_cache = peak.kv_cache;
  est->pipeline_stage = stage->stage == HR_STAGE_FIRST ? 1 : stage->stage == HR_STAGE_LAST ? 2 : 0;
  est->pool_fraction = hr_scenario_engine_pool_fraction (scenario);
  est->pool_limits = hr_scenario_has_kv_pool (scenario);
  if (est->pool_limits && scenario->gpu != NULL)
    est->pool = (guint64) llround (est->pool_fraction * (double) scenario->gpu->memory);
  if (!hr_plan_is_served (stage) || hr_scenario_has_kv_pool (scenario))
    {
      double per_token = 0;

      for (guint i = 0; i < stage->parts->len; i++)
        {
          Part *p = &g_array_index (stage->parts, Part, i);

          if (p->kv_cache)
            per_token += hr_plan_kv_bytes_per_token (stage, p);
        }
      if (per_token > 0 && !stage->training)
        {
          double block = scenario->engine == HR_ENGINE_VLLM ? MAX (1, scenario->block_size) : 1;
          double tokens = floor ((double) est->kv_cache / per_token / block) * block;
          double per_sequence = ceil ((double) stage->context_len / block) * block;

          est->kv_tokens = (guint64) MAX (0, tokens);
          est->kv_sequences = per_sequence > 0 ? (guint) MIN (1e9, tokens / per_sequence) : 0;
        }
    }

  /* The buckets must add up to the total exactly despite rounding. */
  {
    guint64 sum = 0;

    for (guint i = 0; i < HR_N_BUCKETS; i++)
      sum += est->buckets[i];
    /* (capped figures, hr-checked.h, need not add up: the overhead then
     * takes no more than it holds) */
    if (sum > est->total)
      est->buckets[HR_BUCKET_OVERHEAD] -= MIN (est->buckets[HR_BUCKET_OVERHEAD], sum - est->total);
    else
      est->buckets[HR_BUCKET_OVERHEAD] += est->total - sum;
  }

  est->overflow |= peak.overflow;
  if (est->overflow)
    g_ptr_array_add (est->notes, g_strdup (_("some figures are more than 1 EiB (2^60 bytes) and "
                                             "are shown capped there: the scenario's sizes "
                                             "are too large to estimate")));

  add_notes (stage, est);

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
  copy->walk_blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
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
  for (guint i = 0; i < estimate->walk_blocks->len; i++)
    {
      HrEstimateItem *item = g_memdup2 (g_ptr_array_index (estimate->walk_blocks, i),
                                        sizeof (HrEstimateItem));

      item->label = g_strdup (item->label);
      g_ptr_array_add (copy->walk_blocks, item);
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
  g_clear_pointer (&estimate->walk_blocks, g_ptr_array_unref);
  g_clear_pointer (&estimate->notes, g_ptr_array_unref);
  g_free (estimate);
}
