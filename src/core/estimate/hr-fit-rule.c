/* hr-fit-rule.c: what "fits" means, stated once
 *
 * The rule is in hr-fit-rule.h; this file holds the allocators whose own
 * limits it knows, and the search for the largest micro-batch.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-fit-rule"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-fit-rule.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* ---- allocators with a limit of their own ---- */

/* JAX on NVIDIA GPUs allocates through XLA's BFC allocator, whose limit is
 * a fixed share of the card's total memory whether it is taken at start or
 * grown on demand: openxla/xla xla/pjrt/gpu/gpu_helpers.cc (commit
 * 001918b7024cf5f020051a9d25d2dd57a5896aaa), CreateBFCAllocator:
 * "allocator_memory = total_memory * memory_fraction", with
 * "opts.allow_growth = !preallocate" as the only effect of preallocation.
 * The share defaults to 0.75 (xla/pjrt/plugin/xla_gpu/
 * xla_gpu_allocator_config.h, commit 050c3958f8a33c32a8ecc861585c8a0d977c3756:
 * "double memory_fraction = 0.75"; JAX docs, docs/gpu_memory_allocation.rst
 * at jax-ml/jax commit cec06d116c05f0d52adfceee3d3b730fdbcb0ce5: "JAX will
 * preallocate 75% of the total GPU memory"), and jaxlib/xla_client.py at
 * that commit reads it from XLA_PYTHON_CLIENT_MEM_FRACTION (an alias of
 * XLA_CLIENT_MEM_FRACTION) and preallocation from
 * XLA_PYTHON_CLIENT_PREALLOCATE.  So XLA_PYTHON_CLIENT_PREALLOCATE=false
 * changes what nvidia-smi shows, not what fits; the fraction does. */
static gboolean
jax_applies (const HrScenario *s)
{
  return s->framework == HR_FRAMEWORK_JAX;
}

static double
jax_fraction (const HrScenario *s)
{
  return s->jax_mem_fraction;
}

static gboolean
jax_preallocated (const HrScenario *s)
{
  return s->jax_preallocate;
}

/* The serving engines take a fixed share of the card and fill what the
 * model leaves of it with KV cache, so their pool is the limit whatever
 * the model needs:
 * - vLLM: requested_memory = total_memory x gpu_memory_utilization
 *   (vllm/v1/worker/gpu_worker.py at vllm-project/vllm commit
 *   35d5cda123ec28581759b6d34cde8052314fb1e6, init_device), and
 *   determine_available_memory gives the KV cache
 *   requested_memory - non_kv_cache_memory (weights, the profiling run's
 *   peak, memory allocated outside PyTorch); at commit
 *   0012cf691b7e69423244d2b1405f4b6832156e19 the same as
 *   total x gpu_memory_utilization - peak.  The engine then refuses to
 *   start when that leaves nothing ("No available memory for the cache
 *   blocks") or less than one request of max_model_len needs
 *   (vllm/v1/core/kv_cache_utils.py at commit
 *   001cabc1be16a59a70d720ed61a13b678c060a18,
 *   check_enough_kv_cache_memory: "To serve at least one request with the
 *   models's max seq len ..., KV cache is needed, which is larger than the
 *   available KV cache memory").  CUDA graphs are captured after the cache
 *   is allocated (gpu_worker.py compile_or_warm_up_model, capture_model),
 *   beside the pool.
 * - SGLang: the KV pool is what the weights leave of
 *   total x mem_fraction_static (python/sglang/srt/model_executor/
 *   model_runner.py at sgl-project/sglang commit 01cc04e,
 *   profile_max_num_token); activations and CUDA graphs live beside it.
 * The need under such a pool (hr-estimate.c) is what the engine puts in
 * it beside the cache plus the micro-batch's sequences of context_len
 * tokens each, in whole blocks; the estimator gives what lies beside the
 * pool in the peak's outside_pool. */
static gboolean
engine_applies (const HrScenario *s)
{
  return hr_scenario_has_kv_pool (s);
}

static double
engine_fraction (const HrScenario *s)
{
  return hr_scenario_engine_pool_fraction (s);
}

static gboolean
engine_preallocated (const HrScenario *s G_GNUC_UNUSED)
{
  /* the KV cache takes whatever the model leaves of the pool */
  return TRUE;
}

static gboolean
vllm_applies (const HrScenario *s)
{
  return engine_applies (s) && s->engine == HR_ENGINE_VLLM;
}

static gboolean
sglang_applies (const HrScenario *s)
{
  return engine_applies (s) && s->engine == HR_ENGINE_SGLANG;
}

typedef struct {
  const char *name;       /* N_() */
  const char *variable;   /* what the user sets to change the limit */
  gboolean  (*applies)      (const HrScenario *s);
  double    (*fraction)     (const HrScenario *s);
  gboolean  (*preallocated) (const HrScenario *s);
  gboolean    engine;     /* filled with KV cache; the estimator gives what lies beside it */
} PoolRule;

/* One entry per allocator with its own limit. */
static const PoolRule pool_rules[] = {
  { N_("XLA's BFC pool"), "XLA_PYTHON_CLIENT_MEM_FRACTION", jax_applies, jax_fraction,
    jax_preallocated, FALSE },
  { N_("vLLM's pool"), "gpu_memory_utilization", vllm_applies, engine_fraction,
    engine_preallocated, TRUE },
  { N_("SGLang's static pool"), "mem_fraction_static", sglang_applies, engine_fraction,
    engine_preallocated, TRUE },
};

static const PoolRule *
find_pool (const HrScenario *s)
{
  for (guint i = 0; i < G_N_ELEMENTS (pool_rules); i++)
    if (pool_rules[i].applies (s))
      return &pool_rules[i];
  return NULL;
}

gboolean
hr_fit_rule_has_pool (const HrScenario *scenario)
{
  g_return_val_if_fail (scenario != NULL, FALSE);

  return find_pool (scenario) != NULL;
}

double
hr_fit_rule_pool_fraction (const HrScenario *scenario)
{
  const PoolRule *pool;

  g_return_val_if_fail (scenario != NULL, 0);

  pool = find_pool (scenario);
  return pool != NULL ? CLAMP (pool->fraction (scenario), 0.0, 1.0) : 0;
}

gboolean
hr_fit_rule_pool_preallocated (const HrScenario *scenario)
{
  const PoolRule *pool;

  g_return_val_if_fail (scenario != NULL, FALSE);

  pool = find_pool (scenario);
  return pool != NULL && pool->preallocated (scenario);
}

/* ---- the rule ---- */

guint64
hr_fit_rule_need (const HrScenario *scenario,
                  const HrPeak     *peak)
{
  g_return_val_if_fail (scenario != NULL && peak != NULL, 0);

  /* The estimator gives the need by the same rule: the pool's peak in use
   * (reserved) under a pool, device_used otherwise (hr-estimate.c). */
  return peak->need;
}

void
hr_fit_rule_limit (const HrScenario *scenario,
                   const HrGpu      *gpu,
                   const HrPeak     *peak,
                   HrFitLimit       *limit)
{
  const PoolRule *pool;
  double card;

  g_return_if_fail (scenario != NULL && gpu != NULL && peak != NULL && limit != NULL);

  *limit = (HrFitLimit) { 0 };
  limit->capacity = gpu->memory;
  limit->reserve = scenario->reserve;
  card = (1.0 - scenario->reserve) * (double) gpu->memory;

  pool = find_pool (scenario);
  if (pool == NULL)
    {
      /* PyTorch's caching allocator takes from the whole card; the need
       * (device_used) already holds the CUDA context. */
      limit->pool = gpu->memory;
      limit->card_limit = (guint64) MAX (0.0, card);
      limit->usable = limit->card_limit;
      return;
    }

  limit->has_pool = TRUE;
  limit->pool_name = _(pool->name);
  limit->pool_variable = pool->variable;
  limit->pool_fraction = CLAMP (pool->fraction (scenario), 0.0, 1.0);
  limit->pool_preallocated = pool->preallocated (scenario);
  limit->pool = (guint64) (limit->pool_fraction * (double) gpu->memory);

  /* What nvidia-smi shows beyond the pool's part.  An engine's pool is
   * filled with KV cache, and the estimator says what lies beside it (the
   * CUDA graphs; SGLang's activations too).  Otherwise device_used less
   * the pool's use, or less the whole pool where the plan's card had it
   * taken up front (hr-estimate.c counts the untouched rest of it). */
  if (pool->engine)
    limit->outside = peak->outside_pool;
  else
    {
      const HrScenario *own = scenario;
      double taken = (double) peak->need;

      if (own->gpu != NULL && limit->pool_preallocated)
        taken = MAX (taken, limit->pool_fraction * (double) own->gpu->memory);
      limit->outside = (guint64) MAX (0.0, (double) peak->device_used - taken);
    }

  limit->card_limit = (guint64) MAX (0.0, card - (double) limit->outside);
  limit->pool_limits = limit->pool <= limit->card_limit;
  limit->usable = MIN (limit->pool, limit->card_limit);
}

char *
hr_fit_rule_describe (const HrFitLimit *limit,
                      HrSizeUnit        unit)
{
  g_autofree char *usable = NULL;
  g_autofree char *capacity = NULL;
  g_autofree char *outside = NULL;

  g_return_val_if_fail (limit != NULL, NULL);

  usable = hr_size_format_full (limit->usable, unit, HR_SIZE_FORMAT_CHART);
  capacity = hr_size_format_full (limit->capacity, unit, HR_SIZE_FORMAT_CHART);
  if (!limit->has_pool)
    /* Translators: the usable memory, the card's, the reserve */
    return g_strdup_printf (_("%s usable: the card's %s less the %.0f%% reserve"),
                            usable, capacity, limit->reserve * 100);

  if (limit->pool_limits)
    /* Translators: usable memory, the pool's name, its share of the card,
     * the variable that sets it, the reserve, and the share left outside. */
    return g_strdup_printf (_("%s usable: %s, %.0f%% of the card (%s); the %.0f%% "
                              "reserve lies in the %.0f%% outside it, so none is taken inside"),
                            usable, limit->pool_name, limit->pool_fraction * 100,
                            limit->pool_variable, limit->reserve * 100,
                            (1.0 - limit->pool_fraction) * 100);

  outside = hr_size_format_full (limit->outside, unit, HR_SIZE_FORMAT_CHART);
  return g_strdup_printf (_("%s usable: the card's %s less the %.0f%% reserve and "
                            "%s outside %s, which may take %.0f%% of the card (%s)"),
                          usable, capacity, limit->reserve * 100, outside, limit->pool_name,
                          limit->pool_fraction * 100, limit->pool_variable);
}

/* ---- the largest micro-batch ---- */

#define SEARCH_LIMIT (1u << 20)

guint
hr_fit_rule_max_micro_batch (HrFitNeedFunc  need,
                             gpointer       user_data,
                             guint64        usable,
                             guint          hint,
                             gboolean      *lower_bound)
{
  guint64 n1, nh;
  guint lo, hi = 0, h;

  g_return_val_if_fail (need != NULL, 0);

  if (lower_bound != NULL)
    *lower_bound = FALSE;

  n1 = need (1, user_data);
  if (n1 > usable)
    return 0;

  /* lo fits; hi (when not 0) does not */
  lo = 1;
  h = CLAMP (hint, 2, SEARCH_LIMIT);
  nh = need (h, user_data);
  if (nh > usable)
    hi = h;
  else
    lo = h;

  /* Most needs are a line in the micro-batch: guess where it crosses, and
   * check the guess and its neighbour. */
  if (nh > n1)
    {
      double slope = (double) (nh - n1) / (double) (h - 1);
      double at = 1.0 + floor ((double) (usable - n1) / slope);
      guint guess = (guint) CLAMP (at, (double) lo + 1, hi > 0 ? (double) hi - 1
                                                             : (double) SEARCH_LIMIT);

      if (guess > lo && (hi == 0 || guess < hi))
        {
          if (need (guess, user_data) <= usable)
            {
              lo = guess;
              if (lo < SEARCH_LIMIT && (hi == 0 || lo + 1 < hi))
                {
                  if (need (lo + 1, user_data) > usable)
                    hi = lo + 1;
                  else
                    lo = lo + 1;
                }
            }
          else
            {
              hi = guess;
              if (hi - 1 > lo)
                {
                  if (need (hi - 1, user_data) <= usable)
                    lo = hi - 1;
                  else
                    hi = hi - 1;
                }
            }
        }
    }

  /* Otherwise gallop up to a bracket, then bisect. */
  while (hi == 0)
    {
      guint next = lo >= SEARCH_LIMIT / 2 ? SEARCH_LIMIT : lo * 2;

      if (next <= lo)
        {
          if (lower_bound != NULL)
            *lower_bound = TRUE;
          return lo;
        }
      if (need (next, user_data) > usable)
        hi = next;
      else
        lo = next;
    }

  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (need (mid, user_data) > usable)
        hi = mid;
      else
        lo = mid;
    }

  return lo;
}

static guint64
plan_need (guint    micro_batch,
           gpointer user_data)
{
  HrPlan *plan = user_data;
  HrPeak peak;

  hr_plan_peak (plan, micro_batch, &peak);
  return hr_fit_rule_need (hr_plan_get_scenario (plan), &peak);
}

guint
hr_fit_rule_plan_max_micro_batch (HrPlan   *plan,
                                  guint64   usable,
                                  gboolean *lower_bound)
{
  g_return_val_if_fail (plan != NULL, 0);

  return hr_fit_rule_max_micro_batch (plan_need, plan, usable,
                                      hr_plan_get_scenario (plan)->micro_batch, lower_bound);
}
