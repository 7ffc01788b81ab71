/* hr-fit.h: lines through measured peaks, and calibrations made from them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"
#include "hr-measure.h"

G_BEGIN_DECLS

/* peak = floor + per_sample · b, or, when the sweep varies the sequence
 * length, peak = floor + b · (per_token · s + per_token2 · s²): the
 * activations of a transformer grow as s·b·h·(34 + 5·a·s/h) (Korthikanti
 * et al. 2022, eq. 1), linear and quadratic in s. */
typedef struct {
  HrMetric  metric;
  char     *series;      /* the series' name */
  guint     n_points;
  double    floor;
  double    per_sample;  /* at the sweep's first sequence length when has_seq */
  gboolean  has_seq;
  double    per_token;
  double    per_token2;
  double    r2;          /* 1 when the points lie on the line (and for two points) */
  double    rmse;        /* root mean square residual, bytes */
  /* measured minus fitted, per point of the series (NAN for points the
   * fit did not use: no batch size) */
  GArray   *residuals;   /* double */
} HrFit;

/* Least squares through the points of @series that have a batch size;
 * NULL with an error when they have fewer than two distinct batch sizes. */
HrFit   *hr_fit_series   (const HrMeasureSeries *series,
                          GError               **error);
/* Least squares through (x, y); NULL with an error when x has fewer than
 * two distinct values. */
HrFit   *hr_fit_linear   (const double          *x,
                          const double          *y,
                          guint                  n,
                          GError               **error);
HrFit   *hr_fit_copy     (const HrFit           *fit);
void     hr_fit_free     (HrFit                 *fit);
double   hr_fit_predict  (const HrFit           *fit,
                          double                 batch,
                          double                 seq_len);

/* The largest gap between max_memory_reserved and max_memory_allocated at
 * the same batch size: what the caching allocator holds and no tensor
 * uses. FALSE when @measurement lacks one of the two. */
gboolean hr_measurement_fragmentation (const HrMeasurement *measurement,
                                       double              *gap_bytes,
                                       double              *gap_fraction,
                                       double              *at_batch);

/* One measured point beside the estimate. */
typedef struct {
  double batch;
  double measured;
  double predicted;     /* the uncalibrated estimate, same measure */
  double calibrated;
} HrCalibrationPoint;

/* An estimate made to meet a measurement: the activation term scaled and
 * the overhead term shifted so that the estimate's line through the
 * measured batch sizes becomes the measured one. Applied to any card, it
 * keeps the estimate's shape and carries the measured correction; its band
 * is the fit's scatter, far narrower than the uncalibrated range. */
typedef struct {
  HrMetric  metric;
  double    seq_len;            /* the scenario's; the points used were at it */
  double    predicted_floor;    /* the estimate's line through the measured batches */
  double    predicted_per_sample;
  double    measured_floor;
  double    measured_per_sample;
  double    activation_scale;   /* measured per-sample over predicted */
  double    overhead_shift;     /* bytes added to the overhead term */
  double    band_bytes;         /* ± around a calibrated figure */
  double    band_fraction;
  GArray   *points;             /* HrCalibrationPoint */
  /* How far the uncalibrated estimate was. */
  double    mean_error;         /* predicted - measured, mean, bytes */
  double    mean_abs_error;
  double    mean_relative_error;   /* |predicted - measured| / measured, mean */
  double    max_relative_error;
} HrCalibration;

/* Compares @plan with the points of @series (those at the scenario's
 * sequence length) and derives the calibration; NULL with an error when
 * fewer than two distinct batch sizes remain. */
HrCalibration *hr_calibration_new   (HrPlan                *plan,
                                     const HrMeasureSeries *series,
                                     GError               **error);
void           hr_calibration_free  (HrCalibration         *calibration);
/* @peak (from hr_plan_peak at any batch, for any card) made calibrated:
 * every view moves by the same correction, the range becomes the band. */
void           hr_calibration_apply (const HrCalibration   *calibration,
                                     HrPeak                *peak);
void           hr_calibration_peak  (const HrCalibration   *calibration,
                                     HrPlan                *plan,
                                     guint                  micro_batch,
                                     HrPeak                *peak);
/* @estimate (from hr_estimate_new of @plan's scenario) made calibrated:
 * the activation and overhead buckets take the correction, the views and
 * the range follow, and the fit on the scenario's card is made again with
 * the calibrated need. What the window's "Use calibration" applies. */
void           hr_calibration_apply_estimate (const HrCalibration *calibration,
                                              HrPlan              *plan,
                                              HrEstimate          *estimate);
/* The largest micro-batch whose calibrated need fits in @usable. */
guint          hr_calibration_max_micro_batch (const HrCalibration *calibration,
                                               HrPlan              *plan,
                                               guint64              usable,
                                               gboolean            *lower_bound);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrFit, hr_fit_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrCalibration, hr_calibration_free)

G_END_DECLS
