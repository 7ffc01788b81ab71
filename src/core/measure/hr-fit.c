/* hr-fit.c: lines through measured peaks, and calibrations made from them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-fit"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-fit-rule.h"
#include "hr-fit.h"
#include "hr-snapshot.h"

/* Run-to-run spread of a measured peak: NVIDIA notes 5 to 6 percent
 * variance between GR00T fine-tuning runs from non-deterministic
 * augmentations (seed 002); a calibrated figure keeps half of that either
 * side as its least band, however well the points line up. */
#define CALIBRATED_BAND_FRACTION 0.03
/* Two root-mean-square residuals either side: about 95% of normally
 * scattered points fall inside. */
#define CALIBRATED_BAND_RMSE 2.0

#define MAX_TERMS 3

/* Least squares for y = Σ c_j · x_j by the normal equations, columns
 * scaled to their largest value first (bytes and s² differ by many orders
 * of magnitude). FALSE when the columns are not independent. */
static gboolean
least_squares (const double *columns,   /* n rows of k */
               const double *y,
               guint         n,
               guint         k,
               double       *coefficients)
{
  double a[MAX_TERMS][MAX_TERMS + 1] = { { 0 } };
  double scale[MAX_TERMS];

  g_assert (k <= MAX_TERMS);

  for (guint j = 0; j < k; j++)
    {
      scale[j] = 0;
      for (guint i = 0; i < n; i++)
        scale[j] = MAX (scale[j], fabs (columns[i * k + j]));
      if (scale[j] == 0)
        return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      for (guint r = 0; r < k; r++)
        {
          double xr = columns[i * k + r] / scale[r];

          for (guint c = 0; c < k; c++)
            a[r][c] += xr * columns[i * k + c] / scale[c];
          a[r][k] += xr * y[i];
        }
    }

  /* Gaussian elimination with partial pivoting. */
  for (guint c = 0; c < k; c++)
    {
      guint pivot = c;

      for (guint r = c + 1; r < k; r++)
        {
          if (fabs (a[r][c]) > fabs (a[pivot][c]))
            pivot = r;
        }
      if (fabs (a[pivot][c]) < 1e-12 * n)
        return FALSE;
      for (guint j = 0; j <= k; j++)
        {
          double t = a[c][j];

          a[c][j] = a[pivot][j];
          a[pivot][j] = t;
        }
      for (guint r = 0; r < k; r++)
        {
          double f;

          if (r == c)
            continue;
          f = a[r][c] / a[c][c];
          for (guint j = c; j <= k; j++)
            a[r][j] -= f * a[c][j];
        }
    }

  for (guint j = 0; j < k; j++)
    coefficients[j] = a[j][k] / a[j][j] / scale[j];
  return TRUE;
}

static void
fit_statistics (HrFit        *fit,
                const double *fitted,
                const double *y,
                guint         n)
{
  double mean = 0, ss_tot = 0, ss_res = 0;

  for (guint i = 0; i < n; i++)
    mean += y[i] / n;
  for (guint i = 0; i < n; i++)
    {
      ss_tot += (y[i] - mean) * (y[i] - mean);
      ss_res += (y[i] - fitted[i]) * (y[i] - fitted[i]);
    }

  fit->n_points = n;
  fit->rmse = sqrt (ss_res / n);
  /* Points on the line, or all at one height: nothing left unexplained. */
  fit->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  if (ss_tot > 0 && ss_res <= 1e-18 * ss_tot)
    fit->r2 = 1.0;
}

static HrFit *
fit_new (void)
{
  HrFit *fit = g_new0 (HrFit, 1);

  fit->residuals = g_array_new (FALSE, FALSE, sizeof (double));
  return fit;
}

void
hr_fit_free (HrFit *fit)
{
  if (fit == NULL)
    return;

  g_free (fit->series);
  g_array_unref (fit->residuals);
  g_free (fit);
}

HrFit *
hr_fit_copy (const HrFit *fit)
{
  HrFit *copy;

  g_return_val_if_fail (fit != NULL, NULL);

  copy = g_memdup2 (fit, sizeof *fit);
  copy->series = g_strdup (fit->series);
  copy->residuals = g_array_copy (fit->residuals);
  return copy;
}

double
hr_fit_predict (const HrFit *fit,
                double       batch,
                double       seq_len)
{
  g_return_val_if_fail (fit != NULL, NAN);

  if (fit->has_seq && !isnan (seq_len))
    return fit->floor + batch * (fit->per_token * seq_len + fit->per_token2 * seq_len * seq_len);
  return fit->floor + fit->per_sample * batch;
}

static guint
count_distinct (const double *x,
                guint         n)
{
  guint distinct = 0;

  for (guint i = 0; i < n; i++)
    {
      gboolean seen = FALSE;

      for (guint j = 0; j < i && !seen; j++)
        seen = x[j] == x[i];
      distinct += !seen;
      /* Two are all a line needs to know. */
      if (distinct >= 3)
        break;
    }

  return distinct;
}

HrFit *
hr_fit_linear (const double  *x,
               const double  *y,
               guint          n,
               GError       **error)
{
  g_autoptr(HrFit) fit = NULL;
  g_autofree double *columns = NULL;
  g_autofree double *fitted = NULL;
  double c[2];

  if (n < 2 || count_distinct (x, n) < 2)
    {
      if (n == 0)
        g_set_error_literal (error, HR_ERROR, HR_ERROR_INVALID,
                             _("a line needs points at two or more batch sizes; these have "
                               "none"));
      else
        g_set_error_literal (error, HR_ERROR, HR_ERROR_INVALID,
                             _("a line needs points at two or more batch sizes; these have "
                               "one"));
      return NULL;
    }

  columns = g_new (double, 2 * n);
  fitted = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      columns[2 * i] = 1.0;
      columns[2 * i + 1] = x[i];
    }

  if (!least_squares (columns, y, n, 2, c))
    {
      g_set_error_literal (error, HR_ERROR, HR_ERROR_INVALID,
                           _("the batch sizes are too close together for a line"));
      return NULL;
    }

  fit = fit_new ();
  fit->floor = c[0];
  fit->per_sample = c[1];
  for (guint i = 0; i < n; i++)
    {
      double r;

      fitted[i] = c[0] + c[1] * x[i];
      r = y[i] - fitted[i];
      g_array_append_val (fit->residuals, r);
    }
  fit_statistics (fit, fitted, y, n);
  return g_steal_pointer (&fit);
}

HrFit *
hr_fit_series (const HrMeasureSeries  *series,
               GError                **error)
{
  g_autoptr(HrFit) fit = NULL;
  g_autoptr(GArray) x = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) s = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) y = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree double *columns = NULL;
  g_autofree double *fitted = NULL;
  gboolean has_seq = FALSE;
  double first_seq = NAN, c[3];
  guint n;

  g_return_val_if_fail (series != NULL, NULL);

  for (guint i = 0; i < series->points->len; i++)
    {
      const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, i);

      if (isnan (p->batch))
        continue;
      g_array_append_val (x, p->batch);
      g_array_append_val (s, p->seq_len);
      g_array_append_val (y, p->bytes);
      if (!isnan (p->seq_len))
        {
          if (isnan (first_seq))
            first_seq = p->seq_len;
          else if (p->seq_len != first_seq)
            has_seq = TRUE;
        }
    }

  /* The sequence term needs every point's length and three points. */
  for (guint i = 0; has_seq && i < s->len; i++)
    has_seq = !isnan (g_array_index (s, double, i));
  if (x->len < 3)
    has_seq = FALSE;

  if (!has_seq)
    {
      fit = hr_fit_linear ((double *) x->data, (double *) y->data, x->len, error);
      if (fit == NULL)
        {
          g_autofree char *shown = hr_text_printable (series->name, -1);

          g_prefix_error (error, "%s: ", shown);
          return NULL;
        }
    }
  else
    {
      n = x->len;
      columns = g_new (double, 3 * n);
      fitted = g_new (double, n);
      for (guint i = 0; i < n; i++)
        {
          double b = g_array_index (x, double, i), sl = g_array_index (s, double, i);

          columns[3 * i] = 1.0;
          columns[3 * i + 1] = b * sl;
          columns[3 * i + 2] = b * sl * sl;
        }
      if (!least_squares (columns, (double *) y->data, n, 3, c))
        {
          g_autofree char *shown = hr_text_printable (series->name, -1);

          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("%s: the batch sizes and sequence lengths do not vary enough for "
                         "floor + b·(s·k₁ + s²·k₂)"), shown);
          return NULL;
        }

      fit = fit_new ();
      fit->has_seq = TRUE;
      fit->floor = c[0];
      fit->per_token = c[1];
      fit->per_token2 = c[2];
      fit->per_sample = c[1] * first_seq + c[2] * first_seq * first_seq;
      for (guint i = 0; i < n; i++)
        {
          double r;

          fitted[i] = c[0] + columns[3 * i + 1] * c[1] + columns[3 * i + 2] * c[2];
          r = g_array_index (y, double, i) - fitted[i];
          g_array_append_val (fit->residuals, r);
        }
      fit_statistics (fit, fitted, (double *) y->data, n);
    }

  /* Residuals per point of the series, NAN where the fit had no batch. */
  {
    g_autoptr(GArray) residuals = g_array_new (FALSE, FALSE, sizeof (double));
    guint used = 0;

    for (guint i = 0; i < series->points->len; i++)
      {
        double r = NAN;

        if (!isnan (g_array_index (series->points, HrMeasurePoint, i).batch))
          r = g_array_index (fit->residuals, double, used++);
        g_array_append_val (residuals, r);
      }
    g_array_unref (fit->residuals);
    fit->residuals = g_steal_pointer (&residuals);
  }

  fit->metric = series->metric;
  fit->series = g_strdup (series->name);
  return g_steal_pointer (&fit);
}

gboolean
hr_measurement_fragmentation (const HrMeasurement *measurement,
                              double              *gap_bytes,
                              double              *gap_fraction,
                              double              *at_batch)
{
  HrMeasureSeries *allocated, *reserved;
  gboolean found = FALSE;

  g_return_val_if_fail (measurement != NULL, FALSE);

  allocated = hr_measurement_find_series (measurement, HR_METRIC_ALLOCATED);
  reserved = hr_measurement_find_series (measurement, HR_METRIC_RESERVED);
  *gap_bytes = *gap_fraction = 0;
  *at_batch = NAN;

  /* A memory snapshot's timelines: the peaks of its busiest device. */
  if (measurement->snapshot != NULL)
    {
      const HrSnapshotDevice *dev = hr_snapshot_get_peak_device (measurement->snapshot);
      guint batch = hr_measurement_get_micro_batch (measurement);

      if (dev == NULL || dev->reserved == NULL)
        return FALSE;
      *gap_bytes = dev->reserved_peak > dev->allocated_peak
                   ? (double) (dev->reserved_peak - dev->allocated_peak) : 0;
      *gap_fraction = dev->reserved_peak > 0 ? *gap_bytes / dev->reserved_peak : 0;
      *at_batch = batch > 0 ? batch : NAN;
      return TRUE;
    }
  if (allocated == NULL || reserved == NULL)
    return FALSE;

  /* Pairs from the same row (the same line) or the same batch size. */
  for (guint i = 0; i < allocated->points->len; i++)
    {
      const HrMeasurePoint *a = &g_array_index (allocated->points, HrMeasurePoint, i);

      for (guint j = 0; j < reserved->points->len; j++)
        {
          const HrMeasurePoint *r = &g_array_index (reserved->points, HrMeasurePoint, j);
          double gap;

          if (r->line != a->line && (isnan (a->batch) || r->batch != a->batch ||
                                     !(r->seq_len == a->seq_len ||
                                       (isnan (r->seq_len) && isnan (a->seq_len)))))
            continue;
          gap = r->bytes - a->bytes;
          if (!found || gap > *gap_bytes)
            {
              *gap_bytes = gap;
              *gap_fraction = r->bytes > 0 ? gap / r->bytes : 0;
              *at_batch = a->batch;
            }
          found = TRUE;
          break;
        }
    }

  return found;
}

static double
peak_metric (const HrPeak *peak,
             HrMetric      metric)
{
  switch (metric)
    {
    case HR_METRIC_ALLOCATED:
      return (double) peak->allocated;
    case HR_METRIC_RESERVED:
      return (double) peak->reserved;
    case HR_METRIC_DEVICE_USED:
      return (double) peak->device_used;
    default:
      g_assert_not_reached ();
    }
}

void
hr_calibration_free (HrCalibration *calibration)
{
  if (calibration == NULL)
    return;

  g_array_unref (calibration->points);
  g_free (calibration);
}

static double
calibrated_value (const HrCalibration *self,
                  double               predicted)
{
  return predicted + self->overhead_shift +
         (self->activation_scale - 1.0) * (predicted - self->predicted_floor);
}

HrCalibration *
hr_calibration_new (HrPlan                 *plan,
                    const HrMeasureSeries  *series,
                    GError                **error)
{
  g_autoptr(HrCalibration) self = NULL;
  g_autoptr(GArray) batch = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) measured = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) predicted = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(HrFit) measured_fit = NULL;
  g_autoptr(HrFit) predicted_fit = NULL;
  double ss = 0;
  guint n;

  g_return_val_if_fail (plan != NULL, NULL);
  g_return_val_if_fail (series != NULL, NULL);

  self = g_new0 (HrCalibration, 1);
  self->points = g_array_new (FALSE, FALSE, sizeof (HrCalibrationPoint));
  self->metric = series->metric;
  self->seq_len = hr_scenario_get_seq_len (hr_plan_get_scenario (plan));

  for (guint i = 0; i < series->points->len; i++)
    {
      const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, i);
      HrPeak peak;
      double v;

      if (isnan (p->batch) || (!isnan (p->seq_len) && self->seq_len > 0 &&
                               p->seq_len != self->seq_len))
        continue;

      hr_plan_peak (plan, (guint) p->batch, &peak);
      v = peak_metric (&peak, series->metric);
      g_array_append_val (batch, p->batch);
      g_array_append_val (measured, p->bytes);
      g_array_append_val (predicted, v);
    }

  n = batch->len;
  measured_fit = hr_fit_linear ((double *) batch->data, (double *) measured->data, n, NULL);
  predicted_fit = hr_fit_linear ((double *) batch->data, (double *) predicted->data, n, NULL);
  if (measured_fit == NULL || predicted_fit == NULL)
    {
      g_autofree char *shown = hr_text_printable (series->name, -1);

      if (self->seq_len > 0)
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                     _("%s: a calibration needs points at two or more batch sizes at the "
                       "scenario's sequence length"), shown);
      else
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                     _("%s: a calibration needs points at two or more batch sizes"), shown);
      return NULL;
    }

  self->predicted_floor = predicted_fit->floor;
  self->predicted_per_sample = predicted_fit->per_sample;
  self->measured_floor = measured_fit->floor;
  self->measured_per_sample = measured_fit->per_sample;
  /* The activations are the part that grows with the batch: their scale is
   * the ratio of slopes; what remains of the difference is the overhead
   * (workspaces, context, fragmentation) no formula predicts. Where the
   * estimate bends (optimizer temporaries that the activations overtake),
   * the least-squares map from estimate to measurement, measured ≈ α + β ·
   * estimate, follows it better than the ratio of two straight lines. */
  self->activation_scale = predicted_fit->per_sample > 0 && measured_fit->per_sample > 0
                           ? measured_fit->per_sample / predicted_fit->per_sample : 1.0;
  self->overhead_shift = measured_fit->floor - predicted_fit->floor;
  {
    g_autoptr(HrFit) map = hr_fit_linear ((double *) predicted->data,
                                          (double *) measured->data, n, NULL);

    if (map != NULL && map->per_sample > 0)
      {
        self->activation_scale = map->per_sample;
        self->overhead_shift = map->floor + (map->per_sample - 1.0) * predicted_fit->floor;
      }
  }

  for (guint i = 0; i < n; i++)
    {
      HrCalibrationPoint point;
      double error_bytes, relative;

      point.batch = g_array_index (batch, double, i);
      point.measured = g_array_index (measured, double, i);
      point.predicted = g_array_index (predicted, double, i);
      point.calibrated = calibrated_value (self, point.predicted);
      g_array_append_val (self->points, point);

      error_bytes = point.predicted - point.measured;
      relative = point.measured > 0 ? fabs (error_bytes) / point.measured : 0;
      self->mean_error += error_bytes / n;
      self->mean_abs_error += fabs (error_bytes) / n;
      self->mean_relative_error += relative / n;
      self->max_relative_error = MAX (self->max_relative_error, relative);
      ss += (point.calibrated - point.measured) * (point.calibrated - point.measured);
    }

  self->band_bytes = CALIBRATED_BAND_RMSE * sqrt (ss / n);
  self->band_fraction = CALIBRATED_BAND_FRACTION;
  return g_steal_pointer (&self);
}

void
hr_calibration_apply (const HrCalibration *self,
                      HrPeak              *peak)
{
  double delta, band;
  guint64 *views[] = { &peak->allocated, &peak->reserved, &peak->device_used, &peak->total,
                       &peak->need };

  g_return_if_fail (self != NULL);
  g_return_if_fail (peak != NULL);

  delta = calibrated_value (self, peak_metric (peak, self->metric)) -
          peak_metric (peak, self->metric);

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    *views[i] = (guint64) MAX (0.0, (double) *views[i] + delta);

  band = MAX (self->band_bytes, self->band_fraction * (double) peak->total);
  peak->low = (guint64) MAX (0.0, (double) peak->total - band);
  peak->high = (guint64) ((double) peak->total + band);
  band = MAX (self->band_bytes, self->band_fraction * (double) peak->need);
  peak->need_low = (guint64) MAX (0.0, (double) peak->need - band);
  peak->need_high = (guint64) ((double) peak->need + band);
}

void
hr_calibration_peak (const HrCalibration *self,
                     HrPlan              *plan,
                     guint                micro_batch,
                     HrPeak              *peak)
{
  hr_plan_peak (plan, micro_batch, peak);
  hr_calibration_apply (self, peak);
}

static guint64
add_clamped (guint64 value,
             double  delta)
{
  return (guint64) MAX (0.0, llround ((double) value + delta));
}

void
hr_calibration_apply_estimate (const HrCalibration *self,
                               HrPlan              *plan,
                               HrEstimate          *estimate)
{
  HrPeak peak;
  double activation_delta, overhead_delta, delta, band;
  guint64 old_total = estimate->total, total = 0;

  g_return_if_fail (self != NULL);
  g_return_if_fail (plan != NULL);
  g_return_if_fail (estimate != NULL);

  hr_plan_peak (plan, estimate->micro_batch, &peak);
  activation_delta = (self->activation_scale - 1.0) *
                     (peak_metric (&peak, self->metric) - self->predicted_floor);
  overhead_delta = self->overhead_shift;

  estimate->buckets[HR_BUCKET_ACTIVATIONS] = add_clamped (estimate->buckets[HR_BUCKET_ACTIVATIONS],
                                                          activation_delta);
  estimate->buckets[HR_BUCKET_OVERHEAD] = add_clamped (estimate->buckets[HR_BUCKET_OVERHEAD],
                                                       overhead_delta);
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    total += estimate->buckets[b];
  delta = (double) total - (double) old_total;

  /* The measured buckets are known to the band; the others keep theirs. */
  for (guint b = HR_BUCKET_ACTIVATIONS; b <= HR_BUCKET_OVERHEAD; b++)
    {
      estimate->bucket_low[b] = estimate->buckets[b];
      estimate->bucket_high[b] = estimate->buckets[b];
    }

  estimate->total = total;
  estimate->device_used = total;
  estimate->allocated_peak = add_clamped (estimate->allocated_peak, delta);
  estimate->reserved_peak = add_clamped (estimate->reserved_peak, delta);
  band = MAX (self->band_bytes, self->band_fraction * (double) total);
  estimate->low = add_clamped (total, -band);
  estimate->high = add_clamped (total, band);

  if (estimate->has_fit)
    {
      estimate->need = add_clamped (estimate->need, delta);
      estimate->fits = estimate->need <= estimate->usable;
      estimate->max_micro_batch = hr_calibration_max_micro_batch (self, plan, estimate->usable,
                                                                  &estimate->max_is_lower_bound);
    }

  {
    HrSizeUnit unit = hr_plan_get_unit (plan);
    g_autofree char *overhead = hr_size_format (overhead_delta, unit);
    g_autofree char *scatter = hr_size_format (band, unit);

    /* Translators: the second %s is "+" for an overhead added, or
     * empty (the figure carries its minus) */
    g_ptr_array_add (estimate->notes,
                     g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                   "Calibrated by a measurement (%u point): "
                                                   "activations ×%.3g, overhead %s%s; the "
                                                   "range is the measurement's scatter, ±%s",
                                                   "Calibrated by a measurement (%u points): "
                                                   "activations ×%.3g, overhead %s%s; the "
                                                   "range is the measurement's scatter, ±%s",
                                                   self->points->len),
                                      self->points->len, self->activation_scale,
                                      overhead_delta >= 0 ? "+" : "", overhead, scatter));
  }
}

typedef struct {
  const HrCalibration *calibration;
  HrPlan              *plan;
} CalibratedNeed;

static guint64
calibrated_need (guint    micro_batch,
                 gpointer user_data)
{
  CalibratedNeed *job = user_data;
  HrPeak peak;

  hr_calibration_peak (job->calibration, job->plan, micro_batch, &peak);
  return hr_fit_rule_need (hr_plan_get_scenario (job->plan), &peak);
}

guint
hr_calibration_max_micro_batch (const HrCalibration *self,
                                HrPlan              *plan,
                                guint64              usable,
                                gboolean            *lower_bound)
{
  CalibratedNeed job = { self, plan };

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (plan != NULL, 0);

  /* A calibrated need still grows with the batch (a positive scale of a
   * growing term): the fit rule's search finds its largest. */
  return hr_fit_rule_max_micro_batch (calibrated_need, &job, usable,
                                      hr_plan_get_scenario (plan)->micro_batch, lower_bound);
}
