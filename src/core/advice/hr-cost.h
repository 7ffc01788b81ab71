/* hr-cost.h: buying against renting
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "hr-scenario.h"

G_BEGIN_DECLS

/* Average days in a month (365.25 / 12). */
#define HR_DAYS_PER_MONTH 30.4375

/* Months of use after which owning a card of @price_usd costs less than
 * renting one at @usd_per_hour for @hours_per_day, counting the owned
 * card's electricity (@watts at @usd_per_kwh; pass 0 to leave it out).
 * Returns INFINITY when renting is never dearer. */
double hr_cost_break_even_months (double price_usd,
                                  double usd_per_hour,
                                  double hours_per_day,
                                  double watts,
                                  double usd_per_kwh);

/* Model FLOPs utilisation: the share of a card's dense peak that a
 * training step's model FLOPs reach.  PaLM (Chowdhery et al. 2022,
 * arXiv 2204.02311, table 3) reports 46.2% for PaLM 540B on TPU v4 and
 * 21.3% for GPT-3 175B on V100s; Megatron-LM (Narayanan et al. 2021,
 * arXiv 2104.04473, table 1) 44-52% of A100 peak.  Headroom takes 40%
 * for every card alike: it scales the times, not the order of the cards. */
#define HR_COST_UTILISATION 0.40
#define HR_COST_UTILISATION_SOURCE \
  "40% of the dense peak (PaLM, Chowdhery et al. 2022, table 3: 21.3-46.2% model FLOPs utilisation)"

/* Optimizer steps in a run when the user names none: a run is counted
 * in these, so that a time and a cost per run can be shown. */
#define HR_COST_DEFAULT_STEPS 10000

/* The model FLOPs of one optimizer step of @scenario (micro-batch ×
 * gradient accumulation samples), by the 2-FLOPs-per-parameter-per-token
 * rule (Kaplan et al. 2020, arXiv 2001.08361, section 2.1: the forward
 * pass costs 2N per token, the backward pass twice that).  A frozen part
 * the gradient flows through costs 4N (no weight gradients), one it does
 * not 2N; full recomputation adds a forward pass (Korthikanti et al.
 * 2022, arXiv 2205.05198, section 5).  A transformer counts its tokens;
 * an RSSM world model its timesteps (seq_len, DreamerV3's batch_length);
 * any other part one pass per sample, which undercounts a convolution's
 * shared weights: @lower_bound is then set. */
double hr_cost_step_flops (const HrScenario *scenario,
                           gboolean         *lower_bound);

G_END_DECLS
