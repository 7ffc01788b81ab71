/* hr-fit-rule.h: what "fits" means, stated once
 *
 * A run fits a card when its need is at most the usable memory:
 *
 *   usable = min (pool, (1 − reserve) × capacity − outside)
 *
 * - capacity is what the driver reports for the card;
 * - the reserve is the share of the card no estimated byte may take: it
 *   absorbs what no estimate predicts (the display, another process, a
 *   spike) and is counted once, against the card;
 * - pool is the framework's own allocator limit where it has one (XLA's
 *   BFC allocator: XLA_PYTHON_CLIENT_MEM_FRACTION of the card, 75% unless
 *   set, preallocated or not; a serving engine's budget: vLLM's
 *   gpu_memory_utilization, SGLang's mem_fraction_static), else the whole
 *   card;
 * - outside is what the process holds beside that pool (the CUDA context
 *   beside XLA's; the CUDA graphs, and SGLang's activations, beside an
 *   engine's), which must fit in the card's share too;
 * - the need is what the allocator must hold at the peak: device_used
 *   (reserved plus the CUDA context) without a pool, the pool's peak in use
 *   (its reserved figure) with one; under an engine, what the engine puts
 *   in its pool beside the KV cache plus one sequence's cache (context_len
 *   tokens in whole blocks) per micro-batch, the micro-batch being the
 *   sequences run at once.
 *
 * A pool that leaves more than the reserve outside it keeps the reserve by
 * itself: then the pool alone limits, and no margin is taken inside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"

G_BEGIN_DECLS

typedef struct {
  guint64      capacity;
  double       reserve;          /* fraction of the card */
  gboolean     has_pool;
  const char  *pool_name;        /* "XLA's BFC pool", translated; NULL without a pool */
  const char  *pool_variable;    /* "XLA_PYTHON_CLIENT_MEM_FRACTION" */
  double       pool_fraction;    /* of the card */
  gboolean     pool_preallocated;
  guint64      pool;             /* the pool's limit; the capacity without one */
  guint64      outside;          /* held beside the pool (the CUDA context); 0 without one */
  guint64      card_limit;       /* (1 − reserve) × capacity − outside */
  guint64      usable;           /* min (pool, card_limit) */
  gboolean     pool_limits;      /* the pool, not the reserve, is the tighter limit */
} HrFitLimit;

/* Whether @scenario runs under an allocator or engine with its own limit,
 * and that limit as a share of the card (0 without one). */
gboolean    hr_fit_rule_has_pool          (const HrScenario *scenario);
double      hr_fit_rule_pool_fraction     (const HrScenario *scenario);
gboolean    hr_fit_rule_pool_preallocated (const HrScenario *scenario);

/* What is compared with the usable memory, from a peak of @scenario. */
guint64     hr_fit_rule_need              (const HrScenario *scenario,
                                           const HrPeak     *peak);
/* The limit on @gpu; @peak (any micro-batch, from a plan of @scenario on
 * any card or none) gives what lies outside the pool. */
void        hr_fit_rule_limit             (const HrScenario *scenario,
                                           const HrGpu      *gpu,
                                           const HrPeak     *peak,
                                           HrFitLimit       *limit);
/* The rule as it applied, in words, for beside a verdict: "18.0 GiB
 * usable: XLA's pool, 75% of the card (XLA_PYTHON_CLIENT_MEM_FRACTION);
 * the 10% reserve lies in the 25% outside it". */
char       *hr_fit_rule_describe          (const HrFitLimit *limit,
                                           HrSizeUnit        unit);

/* The need at a micro-batch, for the search below. */
typedef guint64 (*HrFitNeedFunc) (guint    micro_batch,
                                  gpointer user_data);

/* The largest micro-batch whose need is at most @usable, 0 when not even
 * one fits; the need must not fall as the micro-batch grows.  @hint (the
 * scenario's micro-batch, or 0) lets a near-linear need be found in a few
 * evaluations: a line through two points guesses, and the guess is
 * checked and corrected, so the answer is exact.  @lower_bound is set when
 * the search stopped at its limit (2^20). */
guint       hr_fit_rule_max_micro_batch   (HrFitNeedFunc     need,
                                           gpointer          user_data,
                                           guint64           usable,
                                           guint             hint,
                                           gboolean         *lower_bound);
/* The same with the need of @plan's scenario at each micro-batch. */
guint       hr_fit_rule_plan_max_micro_batch (HrPlan        *plan,
                                              guint64        usable,
                                              gboolean      *lower_bound);

G_END_DECLS
