/* hr-analysis.h: everything Headroom answers about one scenario, computed
 * once
 *
 * From a scenario, the GPUs compared, the measurements and the calibration
 * switch, an analysis holds the estimate, each GPU's fit and largest
 * micro-batch (by the one fit rule, hr-fit-rule.h), the sweep, the levers,
 * the lever that fixes each GPU that does not fit, whether each
 * measurement belongs to the scenario, the calibration, the advice, and
 * the sentences that say all this.  The window, every headroom-cli command,
 * the report and every chart read it; none decides a fit or picks a lever
 * itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-advisor.h"
#include "hr-fit.h"
#include "hr-fit-rule.h"
#include "hr-knobs.h"
#include "hr-measure-match.h"
#include "hr-measure-trace.h"

G_BEGIN_DECLS

typedef struct {
  /* The GPUs compared (const HrGpu *), in order; NULL or empty: the
   * scenario's own, if it names one.  The scenario's own GPU need not be
   * among them. */
  GPtrArray    *gpus;
  /* Cards the curve shows for reference when none is compared (const
   * HrGpu *): fitted, not judged. */
  GPtrArray    *reference_gpus;
  /* Imported measurements (const HrMeasurement *), overlaid and, with
   * use_calibration, the first that may calibrate this scenario does. */
  GPtrArray    *measurements;
  /* Snapshots of this setup (as far as they say) taken at two or more
   * micro-batches, each one run, make one sweep together: the analysis
   * adds it after the measurements above, where it may calibrate. */
  gboolean      sweep_snapshots;
  gboolean      use_calibration;
  HrKnobSort    lever_sort;
  HrSizeUnit    unit;          /* of the sentences */
} HrAnalysisOptions;

/* A verdict in three words: the range's high end fits; only the central
 * estimate fits; not even that. */
typedef enum {
  HR_ANALYSIS_FIT_FITS,
  HR_ANALYSIS_FIT_TIGHT,
  HR_ANALYSIS_FIT_NO,
} HrAnalysisFit;

/* "fits", "tight", "does-not-fit": the names `fits --json` writes. */
const char  *hr_analysis_fit_to_string (HrAnalysisFit fit);

/* One compared GPU. */
typedef struct {
  HrGpu       *gpu;
  HrEstimate  *estimate;          /* on this card, calibrated when the analysis is */
  HrFitLimit   limit;
  guint64      need;              /* at the scenario's micro-batch */
  gboolean     fits;              /* the central estimate fits */
  guint        max_micro_batch;   /* 0: not even one */
  gboolean     max_is_lower_bound;
  /* The high end of the estimate's range against the same usable memory.
   * A run "fits" when its high end does; where only the central estimate
   * fits, it "probably fits, tight" (HR_ANALYSIS_FIT_TIGHT), and a user
   * who trusts it may still run out of memory. */
  guint64      need_high;         /* at the scenario's micro-batch */
  guint64      need_low;          /* the low end of the same range */
  /* XLA's pool, preallocated: the part of it XLA holds that the run does
   * not use at the scenario's micro-batch (what nvidia-smi shows beyond
   * the need and the CUDA context beside the pool); 0 without one.  A
   * chart draws it as the pool's own segment, not as overhead. */
  guint64      pool_unused;
  /* Under XLA's pool: what the process holds beside it (the CUDA
   * context), which the need leaves out; 0 otherwise. */
  guint64      beside_pool;
  gboolean     fits_high;
  guint        max_micro_batch_high;   /* the largest whose high end fits; 0: not even one */
  HrAnalysisFit fit;
  char        *rule;              /* how the usable memory was reached */
  HrKnob      *fix;               /* the least costly lever that makes it fit; NULL when it
                                   * fits, or when none does */
  char        *verdict;           /* one sentence: fits or not, by how much, the fix */
} HrAnalysisGpu;

/* A point of the peak-versus-micro-batch curve, on the fit's measure. */
typedef struct {
  guint    micro_batch;
  HrPeak   peak;
  guint64  need;
  guint64  need_low;
  guint64  need_high;
} HrAnalysisSample;

/* One imported measurement, as it relates to the scenario. */
typedef struct {
  /* borrowed from the options; the snapshots' sweep is the analysis' */
  const HrMeasurement *measurement;
  HrMeasureMatch      *match;
  HrFit               *fit;           /* of its sweep; NULL for a log over time */
  /* Each series' fit (HrFit, NULL where the series is no sweep), in the
   * measurement's order; the sweep's is @fit. */
  GPtrArray           *series_fits;
  /* The uncalibrated estimate set against the sweep, whether or not the
   * measurement may calibrate this scenario; NULL without a sweep, with
   * @calibration_error saying why. */
  HrCalibration       *calibration;
  GError              *calibration_error;
  /* Against the (uncalibrated) estimate; NAN without a sweep. */
  double               mean_relative_error;
  double               max_relative_error;
  /* A snapshot (one run): the micro-batch it is compared at (the one it
   * says, else the scenario's) and the uncalibrated estimate there, on
   * the scenario's card; 0 and NULL for any other measurement. */
  guint                micro_batch;
  HrEstimate          *at_micro_batch;
  /* The sweep several snapshots make: the measurements (const
   * HrMeasurement *, from the options) it was made of, and their file
   * names ("b8.pickle, b16.pickle"); NULL for any other measurement. */
  GPtrArray           *snapshots;
  char                *snapshot_files;
  char                *summary;       /* fit, error against the estimate, OOM */
  /* A step traced on the CPU (hr-measure-trace.h): the saved bytes traced
   * over those the walk predicts at the same batches and sizes; NAN for
   * every other measurement. */
  double               trace_ratio;
} HrAnalysisMeasurement;

/* Each series' fit of @measurement (HrFit, NULL where a series is no
 * sweep), as an analysis makes them: for a measurement read without a
 * scenario. */
GPtrArray        *hr_analysis_fit_measurement (const HrMeasurement *measurement);

/* Appends to @gpus (const HrGpu *) the cards a curve shows for reference
 * when no card is compared: a consumer card and the two data-centre cards
 * most rented for training, where @catalog has them and @gpus does not
 * already. */
void              hr_analysis_add_reference_gpus (GPtrArray *gpus,
                                                  HrCatalog *catalog);

typedef struct _HrAnalysis HrAnalysis;

HrAnalysis       *hr_analysis_new             (const HrScenario        *scenario,
                                               const HrAnalysisOptions *options);
/* An analysis is shared by reference (a dialog keeps the one it was
 * opened with); free drops a reference. */
HrAnalysis       *hr_analysis_ref             (HrAnalysis              *analysis);
void              hr_analysis_unref           (HrAnalysis              *analysis);
void              hr_analysis_free            (HrAnalysis              *analysis);

const HrScenario *hr_analysis_get_scenario    (HrAnalysis              *analysis);
/* The scenario's plan, on its own card, for comparisons with measured
 * points (uncalibrated). */
HrPlan           *hr_analysis_get_plan        (HrAnalysis              *analysis);
/* On the scenario's own GPU (or on none), calibrated when the analysis
 * is. */
const HrEstimate *hr_analysis_get_estimate    (HrAnalysis              *analysis);

guint             hr_analysis_get_n_gpus      (HrAnalysis              *analysis);
const HrAnalysisGpu *hr_analysis_get_gpu      (HrAnalysis              *analysis,
                                               guint                    index);
/* The cards a curve draws: the compared ones, else the reference ones
 * (HrAnalysisGpu). */
GPtrArray        *hr_analysis_get_curve_gpus  (HrAnalysis              *analysis);
/* The scenario's own GPU's fit, whether or not it is compared; NULL when
 * the scenario names none. */
const HrAnalysisGpu *hr_analysis_get_own_gpu  (HrAnalysis              *analysis);

/* The curve from micro-batch 1 to @to in steps (all integers up to 32
 * points, evenly spaced beyond; powers of two on a log axis), on the
 * scenario's own card.  hr_analysis_get_sweep() uses the range where the
 * decision is made (hr_analysis_get_sweep_range()): a little past the
 * micro-batch at which each compared GPU stops fitting, the scenario's
 * own and every measured batch size, on a log₂ axis when the cards stop
 * more than a decade apart. */
GArray           *hr_analysis_get_sweep       (HrAnalysis              *analysis);
void              hr_analysis_get_sweep_range (HrAnalysis              *analysis,
                                               guint                   *to,
                                               gboolean                *log2_x);
GArray           *hr_analysis_sweep           (HrAnalysis              *analysis,
                                               guint                    from,
                                               guint                    to,
                                               guint                    step,
                                               gboolean                 powers_of_two);

/* What a measured point at @micro_batch is set against: the uncalibrated
 * estimate there, on the scenario's own card, in the measure @metric. */
double            hr_analysis_predict         (HrAnalysis              *analysis,
                                               guint                    micro_batch,
                                               HrMetric                 metric);

/* The levers on the scenario's own card, in the options' order. */
GPtrArray        *hr_analysis_get_levers      (HrAnalysis              *analysis);

guint             hr_analysis_get_n_measurements (HrAnalysis           *analysis);
const HrAnalysisMeasurement *hr_analysis_get_measurement (HrAnalysis   *analysis,
                                                          guint          index);
/* The measurement @measurement (from the options, or the snapshots'
 * sweep) became; NULL when it is not the analysis'. */
const HrAnalysisMeasurement *hr_analysis_find_measurement (HrAnalysis          *analysis,
                                                           const HrMeasurement *measurement);
/* The sweep the snapshots made together (options.sweep_snapshots); NULL
 * when they made none. */
const HrAnalysisMeasurement *hr_analysis_get_snapshot_sweep (HrAnalysis *analysis);
/* The calibration in use (NULL when off or when none can be made), and
 * what the switch would do or why it cannot (a sentence). */
const HrCalibration *hr_analysis_get_calibration (HrAnalysis           *analysis);
gboolean          hr_analysis_can_calibrate   (HrAnalysis              *analysis);
/* The measurement the calibration in use was made from; NULL when none is
 * in use. */
const HrAnalysisMeasurement *hr_analysis_get_calibration_measurement (HrAnalysis *analysis);
const char       *hr_analysis_get_calibration_text (HrAnalysis         *analysis);

/* The costed advice for @inputs, from this scenario and its calibration. */
HrAdvice         *hr_analysis_advise          (HrAnalysis              *analysis,
                                               HrCatalog               *catalog,
                                               const HrAdviceInputs    *inputs,
                                               guint                    max);

/* "25.8 GiB peak", "… per GPU, calibrated". */
const char       *hr_analysis_get_headline    (HrAnalysis              *analysis);
/* Bytes in the options' unit (hr_size_format()). */
char             *hr_analysis_format_bytes    (HrAnalysis              *analysis,
                                               double                   bytes);
/* The options' unit: what every figure drawn or printed from the
 * analysis is in. */
HrSizeUnit        hr_analysis_get_unit        (HrAnalysis              *analysis);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrAnalysis, hr_analysis_free)

G_END_DECLS
