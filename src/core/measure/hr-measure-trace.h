/* hr-measure-trace.h: a training step traced on the CPU
 *
 * data/probe/headroom_trace_torch.py runs the user's own module on the
 * CPU and counts, through torch.autograd.graph.saved_tensors_hooks, what
 * autograd saves for the backward pass (each storage once, parameters
 * apart), in all and per top-level child module, with the parameters,
 * gradients and optimizer state after the step, at a few micro-batches and
 * input sizes.  Its CSV (README, "Tracing on the CPU") is read by the
 * measurement parser like every other format; this is what it keeps of
 * it, and the calibration of the walked activations it gives: a fourth
 * provenance beside measured, calibrated and estimated.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"
#include "hr-fit.h"
#include "hr-measure.h"

G_BEGIN_DECLS

/* The columns of a trace row (besides micro_batch, size and module). */
typedef enum {
  HR_TRACE_FIELD_NONE,
  HR_TRACE_FIELD_SAVED,
  HR_TRACE_FIELD_PARAMS,
  HR_TRACE_FIELD_GRADS,
  HR_TRACE_FIELD_OPTIMIZER,
} HrTraceField;

/* One row: the step's totals (module NULL) or one module's saved bytes.
 * NAN where the file gives no value; size is NAN when the trace did not
 * vary the input. */
typedef struct {
  double  batch;
  double  size;
  char   *module;
  double  saved;
  double  params;
  double  grads;
  double  optimizer;
  guint   line;
} HrTraceRow;

typedef struct _HrTrace {
  GArray *rows;       /* HrTraceRow, in file order */
} HrTrace;

HrTrace  *hr_trace_new   (void);
void      hr_trace_free  (HrTrace      *trace);
/* The value of @field for the row on @line (a new row when the last one
 * is of another line); @module NULL or "total" for the step's totals. */
void      hr_trace_take  (HrTrace      *trace,
                          guint         line,
                          double        batch,
                          double        size,
                          const char   *module,
                          gsize         module_length,
                          HrTraceField  field,
                          double        value);
/* The step's total rows whose size is @size (any size when NAN). */
guint     hr_trace_count_totals (const HrTrace *trace,
                                 double         size);

/* The total row at @batch and @size (NAN: a row of no size), or NULL. */
const HrTraceRow *hr_trace_find (const HrTrace *trace,
                                 double         batch,
                                 double         size);

/* One traced point beside the walk. */
typedef struct {
  double batch;
  double size;
  double traced;      /* saved for backward, as traced */
  double walked;      /* what the scenario's walk saves at that batch and size */
} HrTracePoint;

/* The walk of @scenario against every total row of @trace: each at the
 * row's micro-batch and (as the image's side, or the sequence length
 * where no part is walked) size.  @ratio: the least-squares scale from
 * walked to traced (Σ t·w / Σ w²); @points (HrTracePoint) may be NULL.
 * FALSE with @error when no part of the scenario is walked or the trace
 * has no total row with saved bytes. */
gboolean  hr_trace_compare (const HrTrace     *trace,
                            const HrScenario  *scenario,
                            double            *ratio,
                            GArray           **points,
                            GError           **error);

/* The calibration a trace gives @plan (of @scenario): the walked
 * activations scaled by hr_trace_compare's ratio, carried from the sizes
 * traced to the scenario's; nothing moves the overhead, which no CPU
 * trace sees, and the band keeps the overhead's own range.  NULL with
 * @error when the trace cannot calibrate (fewer than two micro-batch
 * sizes, nothing walked). */
HrCalibration *hr_trace_calibration_new (const HrTrace     *trace,
                                         HrPlan            *plan,
                                         const HrScenario  *scenario,
                                         GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrTrace, hr_trace_free)

G_END_DECLS
