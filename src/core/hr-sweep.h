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

/* Least-squares line peak = floor + per_sample * batch, through points
 * (x, y); FALSE when fewer than two distinct x.  r2 is 1 for two points. */
gboolean    hr_fit_line             (const double *x,
                                     const double *y,
                                     guint         n,
                                     double       *floor,
                                     double       *per_sample,
                                     double       *r2);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrGpuFit, hr_gpu_fit_free)

G_END_DECLS
