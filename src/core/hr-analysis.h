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

G_BEGIN_DECLS

typedef enum {
  HR_SIZE_GIB,   /* 2^30 bytes: what PyTorch and nvidia-smi report */
  HR_SIZE_GB,    /* 10^9 bytes: what vendors print on the box */
} HrSizeUnit;

/* "14.2 GiB" in the locale's number format: two decimals below 10, one
 * above (the precision an estimate has). */
char       *hr_size_format        (double      bytes,
                                   HrSizeUnit  unit);

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
  const HrMeasurement *measurement;   /* borrowed from the options */
  HrMeasureMatch      *match;
  HrFit               *fit;           /* NULL for a log over time */
  /* Against the (uncalibrated) estimate; NAN without a sweep. */
  double               mean_relative_error;
  double               max_relative_error;
  char                *summary;       /* fit, error against the estimate, OOM */
} HrAnalysisMeasurement;

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

/* The levers on the scenario's own card, in the options' order. */
GPtrArray        *hr_analysis_get_levers      (HrAnalysis              *analysis);

guint             hr_analysis_get_n_measurements (HrAnalysis           *analysis);
const HrAnalysisMeasurement *hr_analysis_get_measurement (HrAnalysis   *analysis,
                                                          guint          index);
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
/* Bytes in the options' unit. */
char             *hr_analysis_format_bytes    (HrAnalysis              *analysis,
                                               double                   bytes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrAnalysis, hr_analysis_free)

G_END_DECLS
