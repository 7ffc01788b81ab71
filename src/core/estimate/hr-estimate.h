/* hr-estimate.h: a scenario's memory, in five buckets per GPU
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-scenario.h"

G_BEGIN_DECLS

typedef enum {
  HR_BUCKET_WEIGHTS,
  HR_BUCKET_GRADIENTS,
  HR_BUCKET_OPTIMIZER,
  HR_BUCKET_ACTIVATIONS,
  HR_BUCKET_OVERHEAD,
  HR_N_BUCKETS
} HrBucket;

extern const HrEnumName hr_bucket_names[];
const char *hr_bucket_get_label (HrBucket bucket);
/* "derived", "calibrated" or "assumed", translated, for the window and
 * the CLI's table (hr_basis_names has the JSON's names). */
const char *hr_basis_get_label  (HrBasis  basis);

/* One line of the breakdown: what it is, which bucket it belongs to, and
 * its central figure with the range around it, in bytes per GPU. */
typedef struct {
  HrBucket  bucket;
  char     *label;
  double    bytes;
  double    low;
  double    high;
  /* Whether the line counts in torch.cuda.max_memory_allocated (tensors),
   * only in max_memory_reserved (the caching allocator's slack), or only in
   * what nvidia-smi shows (the CUDA context, an XLA pool). */
  HrMetric  metric;
  /* Whether the figure follows from a formula and the scenario's numbers,
   * was fitted to a measurement, or rests on a default the scenario cannot
   * confirm (fragmentation, the CUDA context, a method's assumed size). */
  HrBasis   basis;
} HrEstimateItem;

typedef struct {
  /* Per GPU, device_used basis: the five buckets add up to `total`. */
  guint64      buckets[HR_N_BUCKETS];
  guint64      bucket_low[HR_N_BUCKETS];
  guint64      bucket_high[HR_N_BUCKETS];
  guint64      total;
  guint64      low;
  guint64      high;

  /* The three views of the same peak, and the range of the first two
   * (low/high above are the range of device_used). */
  guint64      allocated_peak;
  guint64      reserved_peak;
  guint64      device_used;
  guint64      allocated_low;
  guint64      allocated_high;
  guint64      reserved_low;
  guint64      reserved_high;

  guint64      host_ram;

  /* The scenario's numbers that the estimate was made at. */
  guint        micro_batch;
  guint        seq_len;   /* 0 when no part of the model reads it */
  guint64      params;
  guint64      trainable_params;
  /* What the parts walked block by block (hr-arch.h) save for the
   * backward pass at the micro-batch (what they keep, with
   * checkpointing), without the peaks above it: the figure a CPU trace
   * of the training step measures (data/probe/headroom_trace_torch.py).
   * 0 when no part is walked, or none trains. */
  guint64      walk_saved;
  /* The same per block of the walk: HrEstimateItem, labelled "part:
   * block" (hr-arch.h HrArchBlock.name), bytes at the micro-batch. */
  GPtrArray   *walk_blocks;

  /* The fit on the scenario's GPU, when it names one. */
  gboolean     has_fit;
  char        *gpu_id;
  char        *gpu_name;
  guint64      capacity;
  guint64      usable;     /* capacity less the reserve (and, for JAX, the XLA pool limit) */
  guint64      need;       /* what is compared with usable: device_used, or the XLA pool's use */
  gboolean     fits;
  guint        max_micro_batch;   /* 0 when not even micro-batch 1 fits */
  gboolean     max_is_lower_bound;
  char        *fit_reason;

  /* Inference: the KV cache per GPU (with vLLM or SGLang, the pool the
   * engine preallocates), the tokens it holds and how many sequences of
   * context_len fit in it (capped by max_num_seqs). */
  guint64      kv_cache;
  guint64      kv_cache_low;
  guint64      kv_cache_high;
  guint64      kv_tokens;
  guint        kv_sequences;
  /* An engine's own pool: its share of the card (gpu_memory_utilization,
   * mem_fraction_static; 0 without one) and its size on the scenario's
   * GPU.  The engine takes it whole and fills what the model leaves with
   * KV cache; the fit rule (hr-fit-rule.h) compares its content at the
   * micro-batch with the pool, within the card less the reserve and what
   * lies beside the pool. */
  double       pool_fraction;
  guint64      pool;
  gboolean     pool_limits;

  /* Pipeline parallelism: the stage whose peak this is (1 the first, 2
   * the last; 0 without pipeline parallelism). */
  guint        pipeline_stage;

  /* Some figure was beyond HR_BYTES_MAX (hr-checked.h): it is capped
   * there, and hr_estimate_check() refuses the scenario. */
  gboolean     overflow;

  /* The range's kind of run and its relative half-widths (the estimator's
   * error on published runs of other sources, hr-estimate-range.c):
   * low/high above are central x (1 - range_low) .. x (1 + range_high).
   * range_kind is a static string. */
  const char  *range_kind;
  double       range_low;
  double       range_high;

  GPtrArray   *items;        /* HrEstimateItem */
  GPtrArray   *host_items;   /* HrEstimateItem, bucket unused */
  GPtrArray   *notes;        /* char *: assumptions, sources, warnings */
} HrEstimate;

HrEstimate *hr_estimate_new       (const HrScenario *scenario);
HrEstimate *hr_estimate_copy      (const HrEstimate *estimate);
void        hr_estimate_free      (HrEstimate       *estimate);

/* The peak alone (no breakdown, no notes), for sweeps and searches. */
typedef struct {
  guint64 total;
  guint64 low;
  guint64 high;
  guint64 allocated;
  guint64 reserved;
  guint64 device_used;
  /* What the fit compares with `usable`: device_used for PyTorch and for
   * JAX without preallocation, the XLA pool's use otherwise. */
  guint64 need;
  guint64 need_low;
  guint64 need_high;
  guint64 allocated_low;
  guint64 allocated_high;
  guint64 reserved_low;
  guint64 reserved_high;
  /* inference: the KV cache (an engine's pool on its GPU) */
  guint64 kv_cache;
  /* under a serving engine's pool: what the process holds beside it (the
   * CUDA graphs; SGLang's activations), for the fit rule */
  guint64 outside_pool;
  /* some figure was capped at HR_BYTES_MAX (hr-checked.h) */
  gboolean overflow;
} HrPeak;

/* A scenario made ready for repeated estimates at different micro-batches
 * (calibrations resolved once). */
typedef struct _HrPlan HrPlan;

HrPlan     *hr_plan_new           (const HrScenario *scenario);
/* hr_plan_new() whose notes and labels (the estimate's, a calibration's)
 * print sizes in @unit; hr_plan_new() prints GiB. */
HrPlan     *hr_plan_new_in_unit   (const HrScenario *scenario,
                                   HrSizeUnit        unit);
HrSizeUnit  hr_plan_get_unit      (HrPlan           *plan);
void        hr_plan_free          (HrPlan           *plan);
const HrScenario *hr_plan_get_scenario (HrPlan      *plan);
void        hr_plan_peak          (HrPlan           *plan,
                                   guint             micro_batch,
                                   HrPeak           *peak);
/* The full estimate of @plan's scenario (what hr_estimate_new() gives),
 * made with a plan the caller keeps for sweeps and searches. */
HrEstimate *hr_plan_estimate      (HrPlan           *plan);
/* Bytes the fit may use on @gpu: the capacity less the reserve (and under
 * JAX preallocation, the part of the card XLA takes). */
guint64     hr_plan_usable        (HrPlan           *plan,
                                   const HrGpu      *gpu);
/* The largest micro-batch whose need fits in @usable, 0 if none does;
 * @lower_bound is set when the search stopped at its limit. */
guint       hr_plan_max_micro_batch (HrPlan         *plan,
                                     guint64         usable,
                                     gboolean       *lower_bound);

/* Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 * Transformer Models", eq. 1: activation bytes of one layer with 16-bit
 * activations and no parallelism, s * b * h * (34 + 5 * a * s / h). */
double      hr_activations_korthikanti (double seq_len,
                                        double micro_batch,
                                        double hidden,
                                        double heads,
                                        double layers);

/* How much estimating has been done since the last reset: what one change
 * of a scenario costs (the window benchmark prints it).  Counted in every
 * thread; reading while another thread estimates gives a recent figure. */
typedef struct {
  guint estimates;        /* hr_estimate_new() */
  guint plans;            /* hr_plan_new(), the estimate's own included */
  guint passes;           /* passes of the estimator's arithmetic, one per peak */
  guint scenario_copies;  /* hr_scenario_copy() */
  guint analyses;         /* hr_analysis_new() */
} HrEstimateCounters;

void        hr_estimate_counters_get   (HrEstimateCounters *counters);
void        hr_estimate_counters_reset (void);
/* Called by hr_scenario_copy(). */
void        hr_estimate_counters_count_copy (void);
/* Called by hr_analysis_new(). */
void        hr_estimate_counters_count_analysis (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrEstimate, hr_estimate_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrPlan, hr_plan_free)

G_END_DECLS
