/* hr-sweep.h: peak versus micro-batch, and the fit on many GPUs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"

G_BEGIN_DECLS

typedef struct {
  guint   micro_batch;
  HrPeak  peak;
} HrSweepPoint;

/* Peaks at micro-batches from..to in steps of @step, or at the powers of two
 * in that range when @powers_of_two. */
GArray     *hr_sweep_run            (const HrScenario *scenario,
                                     guint             from,
                                     guint             to,
                                     guint             step,
                                     gboolean          powers_of_two);

typedef struct {
  char     *gpu_id;
  char     *gpu_name;
  guint64   capacity;
  guint64   usable;
  HrPeak    peak;              /* at the scenario's micro-batch, with this GPU */
  gboolean  fits;
  guint     max_micro_batch;   /* 0: nothing fits */
  gboolean  max_is_lower_bound;
  char     *reason;
} HrGpuFit;

void        hr_gpu_fit_free         (HrGpuFit *fit);

/* The fit of @scenario on each GPU of @gpus (const HrGpu *), in order. */
GPtrArray  *hr_fit_gpus             (const HrScenario *scenario,
                                     GPtrArray        *gpus);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrGpuFit, hr_gpu_fit_free)

G_END_DECLS
