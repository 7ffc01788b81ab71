/* hr-knobs.h: the levers that lower a run's peak, what each costs, and the
 * one that fixes a run that does not fit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"
#include "hr-fit.h"
#include "hr-fit-rule.h"

G_BEGIN_DECLS

/* What a lever may change in what the run learns or produces. */
typedef enum {
  HR_KNOB_RISK_NONE,     /* the same computation: the result is unchanged */
  HR_KNOB_RISK_LOW,      /* lower-precision numerics that matched full precision in print */
  HR_KNOB_RISK_MEDIUM,   /* trains less, or less exactly (adapters, frozen parts, 4-bit weights) */
  HR_KNOB_RISK_HIGH,     /* changes the experiment (shorter sequences, shorter contexts) */
} HrKnobRisk;

extern const HrEnumName hr_knob_risk_names[];
/* "none", "low"... in words, translated. */
const char *hr_knob_risk_label (HrKnobRisk risk);

typedef enum {
  HR_KNOB_SORT_SAVED,   /* the most memory freed first */
  HR_KNOB_SORT_COST,    /* the least costly first (see hr_knob_compare_cost()) */
} HrKnobSort;

extern const HrEnumName hr_knob_sort_names[];

/* A lever that frees less than this share of the peak's need is not worth
 * its cost: 2% lies well inside the estimate's own low-high band (tens of
 * percent wide), so such a saving cannot be told from its uncertainty. */
#define HR_KNOB_WORTH_IT 0.02

typedef struct {
  char       *id;           /* stable name: "bf16", "recompute-full", "xla-pool"... */
  char       *label;        /* what to do, in words */
  char       *change;       /* the scenario keys it changes, as --set arguments */
  guint64     before;       /* the need (what the fit compares) before */
  guint64     after;        /* and after */
  gint64      saved;        /* before - after */
  guint64     device_after; /* what nvidia-smi would show after */
  /* The headroom it adds on the run's card: the need saved plus the
   * usable memory a larger pool adds.  What "memory saved" sorts by. */
  gint64      gained;
  double      speed;        /* step time relative to now: 1.33 is a third slower */
  char       *cost;         /* the speed cost, in words */
  char       *source;       /* where the speed figure comes from */
  HrKnobRisk  risk;
  char       *risk_text;    /* what may change in the result, in words */
  char       *risk_source;
  gboolean    more_gpus;    /* needs more cards than the run has */
  gboolean    has_fit;      /* the run names a card */
  gboolean    fits_after;
  guint64     usable_after;
  guint       max_micro_batch_after;   /* set where it fits after */
  /* Frees at least HR_KNOB_WORTH_IT of the peak, or makes the run fit:
   * the others are listed apart, as not worth it, after every one that is. */
  gboolean    worth_it;
  HrScenario *scenario;     /* the scenario with the lever applied */
  HrPeak      peak;         /* at its micro-batch, calibrated when the evaluation was */
} HrKnob;

HrKnob     *hr_knob_copy             (const HrKnob     *knob);
void        hr_knob_free             (HrKnob           *knob);

/* Every lever that applies to @scenario and frees memory on its card (or
 * adds usable memory there), each estimated again at the same micro-batch
 * (with @calibration applied when not NULL), in the table's order. */
GPtrArray  *hr_knobs_evaluate        (const HrScenario    *scenario,
                                      const HrCalibration *calibration);
void        hr_knobs_sort            (GPtrArray           *knobs,
                                      HrKnobSort           sort);
/* The cost order: levers worth it before those that are not; then a lever
 * that leaves the result unchanged before one
 * with low risk, then medium; then one that needs more cards; then one
 * that changes the experiment; within each, the faster first. */
int         hr_knob_compare_cost     (const HrKnob        *a,
                                      const HrKnob        *b);
/* The least costly of @knobs (from hr_knobs_evaluate() on the same
 * scenario on any card) that makes the run fit on @gpu, checked with a
 * plan on @gpu; a new HrKnob for @gpu (its fit, its largest micro-batch)
 * or NULL when none does. */
HrKnob     *hr_knobs_find_fix        (GPtrArray           *knobs,
                                      const HrGpu         *gpu,
                                      const HrCalibration *calibration);

/* Every lever that applies, the one saving the most first; levers that
 * save nothing are left out. */
GPtrArray  *hr_knobs_rank            (const HrScenario    *scenario);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrKnob, hr_knob_free)

G_END_DECLS
