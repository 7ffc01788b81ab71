/* hr-knobs.h: which lever buys the most memory
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"

G_BEGIN_DECLS

typedef struct {
  char     *id;          /* stable name: "bf16", "recompute-full", "adamw-8bit"... */
  char     *label;       /* what to do, in words */
  char     *change;      /* the scenario keys it changes, as --set arguments */
  guint64   before;      /* total (device_used) per GPU before */
  guint64   after;       /* and after */
  gint64    saved;       /* before - after */
  double    speed;       /* step time relative to now: 1.33 is a third slower */
  char     *cost;        /* the price, in words */
  char     *source;      /* where the speed figure comes from */
  gboolean  has_fit;
  gboolean  fits_after;
  guint     max_micro_batch_after;
} HrKnob;

void        hr_knob_free   (HrKnob           *knob);

/* Every lever that applies to @scenario, the one saving the most bytes
 * first; levers that save nothing are left out. */
GPtrArray  *hr_knobs_rank  (const HrScenario *scenario);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrKnob, hr_knob_free)

G_END_DECLS
