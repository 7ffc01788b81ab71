/* hr-measure-trace.c: a training step traced on the CPU, and the
 * calibration of the walked activations it gives
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-measure"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-measure-private.h"
#include "hr-measure-trace.h"
#include "hr-scenario.h"

/* A trace counts what autograd saves exactly, but on the CPU: the band of
 * a figure calibrated from it keeps what the trace cannot see, the
 * overhead's own range, and the scatter of the walk against the trace
 * (twice its root mean square, as a measured calibration's:
 * CALIBRATED_BAND_RMSE in hr-fit.c). */
#define TRACE_BAND_RMSE 2.0

static void
row_clear (HrTraceRow *row)
{
  g_clear_pointer (&row->module, g_free);
}

HrTrace *
hr_trace_new (void)
{
  HrTrace *trace = g_new0 (HrTrace, 1);

  trace->rows = g_array_new (FALSE, FALSE, sizeof (HrTraceRow));
  g_array_set_clear_func (trace->rows, (GDestroyNotify) row_clear);
  return trace;
}

void
hr_trace_free (HrTrace *trace)
{
  if (trace == NULL)
    return;
  g_array_unref (trace->rows);
  g_free (trace);
}

static gboolean
is_total (const char *module,
          gsize       length)
{
  return module == NULL || length == 0 ||
         (length == 5 && g_ascii_strncasecmp (module, "total", 5) == 0);
}

void
hr_trace_take (HrTrace      *trace,
               guint         line,
               double        batch,
               double        size,
               const char   *module,
               gsize         module_length,
               HrTraceField  field,
               double        value)
{
  HrTraceRow *row;

  g_return_if_fail (trace != NULL);

  if (trace->rows->len == 0 ||
      g_array_index (trace->rows, HrTraceRow, trace->rows->len - 1).line != line)
    {
      HrTraceRow fresh = { batch, size, NULL, NAN, NAN, NAN, NAN, line };

      if (!is_total (module, module_length))
        {
          /* a module's name is a Python identifier or a path of them; a
           * longer one is cut, at a character's start */
          gsize n = MIN (module_length, HR_MEASURE_MAX_NAME);

          if (n < module_length)
            n = g_utf8_find_prev_char (module, module + n + 1) - module;
          fresh.module = g_strndup (module, n);
        }
      g_array_append_val (trace->rows, fresh);
    }
  row = &g_array_index (trace->rows, HrTraceRow, trace->rows->len - 1);

  switch (field)
    {
    case HR_TRACE_FIELD_SAVED:
      row->saved = value;
      break;
    case HR_TRACE_FIELD_PARAMS:
      row->params = value;
      break;
    case HR_TRACE_FIELD_GRADS:
      row->grads = value;
      break;
    case HR_TRACE_FIELD_OPTIMIZER:
      row->optimizer = value;
      break;
    case HR_TRACE_FIELD_NONE:
    default:
      break;
    }
}

guint
hr_trace_count_totals (const HrTrace *trace,
                       double         size)
{
  guint n = 0;

  g_return_val_if_fail (trace != NULL, 0);

  for (guint i = 0; i < trace->rows->len; i++)
    {
      const HrTraceRow *row = &g_array_index (trace->rows, HrTraceRow, i);

      if (row->module == NULL && !isnan (row->saved) &&
          (isnan (size) || row->size == size))
        n++;
    }
  return n;
}

const HrTraceRow *
hr_trace_find (const HrTrace *trace,
               double         batch,
               double         size)
{
  g_return_val_if_fail (trace != NULL, NULL);

  for (guint i = 0; i < trace->rows->len; i++)
    {
      const HrTraceRow *row = &g_array_index (trace->rows, HrTraceRow, i);

      if (row->module == NULL && !isnan (row->saved) && row->batch == batch &&
          (isnan (size) ? isnan (row->size) : row->size == size))
        return row;
    }
  return NULL;
}

/* What the walk of @scenario saves at @batch and input @size, or -1 when
 * none of its parts is walked. */
static double
walked_at (const HrScenario *scenario,
           double            batch,
           double            size)
{
  g_autoptr(HrScenario) s = hr_scenario_copy (scenario);
  g_autoptr(HrEstimate) est = NULL;

  s->micro_batch = (guint) batch;
  if (!isnan (size))
    {
      /* the side of a square image; a model that walks no part reads it
       * as a sequence length */
      s->image_width = s->image_height = (guint) size;
      s->seq_len = (guint) size;
      /* a speech model's: the samples of a clip (headroom_trace_torch.py
       * --sizes) */
      if (hr_scenario_reads_audio (s))
        {
          s->audio_seconds = size / hr_scenario_get_sample_rate (s);
          s->audio_seconds_set = TRUE;
        }
    }
  est = hr_estimate_new (s);
  if (est == NULL || est->walk_blocks->len == 0)
    return -1;
  return (double) est->walk_saved;
}

gboolean
hr_trace_compare (const HrTrace     *trace,
                  const HrScenario  *scenario,
                  double            *ratio,
                  GArray           **points,
                  GError           **error)
{
  g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (HrTracePoint));
  double tw = 0, ww = 0;

  g_return_val_if_fail (trace != NULL, FALSE);
  g_return_val_if_fail (scenario != NULL, FALSE);

  for (guint i = 0; i < trace->rows->len; i++)
    {
      const HrTraceRow *row = &g_array_index (trace->rows, HrTraceRow, i);
      HrTracePoint p;

      if (row->module != NULL || isnan (row->saved) || isnan (row->batch))
        continue;
      p.batch = row->batch;
      p.size = row->size;
      p.traced = row->saved;
      p.walked = walked_at (scenario, row->batch, row->size);
      if (p.walked < 0)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("no part of the model is walked block by block (an \"arch\" in the "
                         "catalog): a trace has nothing to compare with"));
          return FALSE;
        }
      tw += p.traced * p.walked;
      ww += p.walked * p.walked;
      g_array_append_val (out, p);
    }
  if (out->len == 0 || ww <= 0)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("the trace has no total row with saved bytes (module \"total\")"));
      return FALSE;
    }
  if (ratio != NULL)
    *ratio = tw / ww;
  if (points != NULL)
    *points = g_steal_pointer (&out);
  return TRUE;
}

HrCalibration *
hr_trace_calibration_new (const HrTrace     *trace,
                          HrPlan            *plan,
                          const HrScenario  *scenario,
                          GError           **error)
{
  g_autoptr(HrCalibration) self = NULL;
  g_autoptr(GArray) points = NULL;
  g_autoptr(GHashTable) batches = g_hash_table_new (g_double_hash, g_double_equal);
  g_autoptr(HrEstimate) est = NULL;
  HrPeak one, two;
  double ratio, walk_per_sample;

  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (plan != NULL, NULL);
  g_return_val_if_fail (scenario != NULL, NULL);

  if (!hr_trace_compare (trace, scenario, &ratio, &points, error))
    return NULL;
  for (guint i = 0; i < points->len; i++)
    g_hash_table_add (batches, &g_array_index (points, HrTracePoint, i).batch);
  if (g_hash_table_size (batches) < 2)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("a calibration needs a trace at two or more micro-batch sizes"));
      return NULL;
    }

  /* the walk's bytes per sample at the scenario's own size: the trace's
   * ratio carried to it */
  est = hr_estimate_new (scenario);
  walk_per_sample = (double) est->walk_saved / MAX (1, est->micro_batch);

  self = g_new0 (HrCalibration, 1);
  self->points = g_array_new (FALSE, FALSE, sizeof (HrCalibrationPoint));
  self->metric = HR_METRIC_ALLOCATED;
  self->seq_len = hr_scenario_get_seq_len (scenario);

  hr_plan_peak (plan, 1, &one);
  hr_plan_peak (plan, 2, &two);
  self->predicted_per_sample = (double) two.allocated - (double) one.allocated;
  self->predicted_floor = (double) one.allocated - self->predicted_per_sample;
  self->measured_per_sample = self->predicted_per_sample + (ratio - 1.0) * walk_per_sample;
  self->measured_floor = self->predicted_floor;
  self->activation_scale = self->predicted_per_sample > 0
                           ? self->measured_per_sample / self->predicted_per_sample : 1.0;
  self->overhead_shift = 0;

  for (guint i = 0; i < points->len; i++)
    {
      const HrTracePoint *p = &g_array_index (points, HrTracePoint, i);
      HrCalibrationPoint point;
      double relative = p->traced > 0 ? fabs (p->walked - p->traced) / p->traced : 0;

      point.batch = p->batch;
      point.measured = p->traced;
      point.predicted = p->walked;
      point.calibrated = ratio * p->walked;
      g_array_append_val (self->points, point);
      self->mean_error += (p->walked - p->traced) / points->len;
      self->mean_abs_error += fabs (p->walked - p->traced) / points->len;
      self->mean_relative_error += relative / points->len;
      self->max_relative_error = MAX (self->max_relative_error, relative);
    }

  /* the walk's scatter around the trace, carried to the scenario's size
   * as a fraction, and the overhead's range, which the trace cannot narrow */
  {
    double rms_fraction = 0;

    for (guint i = 0; i < points->len; i++)
      {
        const HrCalibrationPoint *p = &g_array_index (self->points, HrCalibrationPoint, i);

        if (p->measured > 0)
          rms_fraction += pow ((p->calibrated - p->measured) / p->measured, 2) / points->len;
      }
    self->band_bytes = TRACE_BAND_RMSE * sqrt (rms_fraction) * ratio * (double) est->walk_saved +
                       0.5 * ((double) est->bucket_high[HR_BUCKET_OVERHEAD] -
                              (double) est->bucket_low[HR_BUCKET_OVERHEAD]);
  }
  self->band_fraction = 0;
  return g_steal_pointer (&self);
}
