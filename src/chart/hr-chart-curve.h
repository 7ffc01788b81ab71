/* hr-chart-curve.h: predicted peak memory versus micro-batch
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hr-chart-style.h"
#include "hr-chart-types.h"
#include "hr-analysis.h"
#include "hr-measure.h"
#include "hr-sweep.h"

G_BEGIN_DECLS

/* One point of the predicted curve: the memory the fit compares with a
 * card's usable memory (device_used under PyTorch, the XLA pool's use under
 * JAX preallocation) and its low-high range. */
typedef struct {
  double batch;
  double bytes;
  double low;
  double high;
} HrCurveSample;

/* A card drawn as a horizontal line at its usable memory. */
typedef struct {
  char     *label;            /* "GeForce RTX 4090" */
  char     *short_label;      /* "RTX 4090" (hr_chart_gpu_short_name()) */
  double    capacity;         /* bytes the driver reports */
  double    usable;           /* capacity less the reserve: where the line is */
  guint     max_micro_batch;  /* 0 when nothing fits */
  gboolean  max_is_lower_bound;
  guint     series;           /* its colour, dash and marker: its place among the cards */
} HrCurveGpu;

/* A measurement to overlay: batch and bytes, and which measure it is,
 * drawn as its own marker shape (a circle for allocated, a square for
 * reserved, a triangle for device used), so that colour never carries it. */
typedef struct {
  double   batch;
  double   bytes;
  HrMetric metric;
  /* measured on another setup than the scenario's: drawn struck through */
  gboolean foreign;
} HrCurvePoint;

/* The marker of @metric as a character for legends: "●", "■" or "▲". */
const char       *hr_curve_marker_name (HrMetric metric);

typedef struct {
  char      *title;
  char      *subtitle;
  GArray    *samples;        /* HrCurveSample, in increasing batch */
  GPtrArray *gpus;           /* HrCurveGpu, owned */
  gboolean   log2_x;

  /* Overlay: measured points and a fitted line peak = floor + per_sample·b */
  GArray    *measured;       /* HrCurvePoint, may be empty */
  char      *measured_label;
  gboolean   has_fit_line;
  double     fit_floor;
  double     fit_per_sample;
  char      *fit_label;

  /* The scenario's micro-batch, marked on the x axis (0: none). */
  guint      micro_batch;
  /* What is measured, calibrated and estimated, in a sentence. */
  char      *note;
  /* What every size the chart prints is in (the analysis' unit). */
  HrSizeUnit unit;
} HrCurveChartData;

HrCurveChartData *hr_curve_chart_data_new  (void);
void              hr_curve_chart_data_free (HrCurveChartData *data);
void              hr_curve_chart_data_add_gpu (HrCurveChartData *data,
                                               const char       *label,
                                               double            capacity,
                                               double            usable,
                                               guint             max_micro_batch,
                                               gboolean          max_is_lower_bound);
void              hr_curve_chart_data_set_measurements (HrCurveChartData   *data,
                                                        const HrCurvePoint *points,
                                                        guint               n_points,
                                                        const char         *label);
/* Adds a measurement's points (a sweep's points, or a log's peak placed
 * at @at_batch, or at the micro-batch the measurement says it ran, as a
 * probe's snapshot does) to the overlay, after any added before, and the
 * line of @fit (its sweep's, HrAnalysisMeasurement.fit; may be NULL) when
 * it is a sweep. */
void              hr_curve_chart_data_add_measurement (HrCurveChartData    *data,
                                                       const HrMeasurement *measurement,
                                                       const HrFit         *fit,
                                                       guint                at_batch);
/* The same, for a measurement of another setup than the scenario's:
 * its points are struck through and the legend says what differs
 * (@differing, "model, GPU"). */
void              hr_curve_chart_data_add_foreign_measurement (HrCurveChartData    *data,
                                                               const HrMeasurement *measurement,
                                                               const HrFit         *fit,
                                                               guint                at_batch,
                                                               const char          *differing);
/* @upper doubled until it spans the measurement's batch sizes. */
guint             hr_curve_chart_measurement_batch_range (const HrMeasurement *measurement,
                                                          guint                upper);
void              hr_curve_chart_data_set_fit_line (HrCurveChartData *data,
                                                    double            floor_bytes,
                                                    double            per_sample_bytes,
                                                    const char       *label);
/* @analysis's curve (hr_analysis_get_sweep()) with each card it compares
 * (or its reference cards) as a line and its measurements overlaid. */
HrCurveChartData *hr_curve_chart_data_new_for_analysis (HrAnalysis       *analysis);
/* The sweep of @scenario from @from to @to (every integer, or the powers
 * of two when @log2_x) with each of @gpus (const HrGpu *) as a line; the
 * scenario's own GPU is used when @gpus is NULL. */
HrCurveChartData *hr_curve_chart_data_new_for_scenario (const HrScenario *scenario,
                                                        GPtrArray        *gpus,
                                                        guint             from,
                                                        guint             to,
                                                        gboolean          log2_x);
/* hr_analysis_add_reference_gpus(), kept for the window until it calls
 * the analysis itself. */
void              hr_curve_chart_add_reference_gpus (GPtrArray *gpus,
                                                     HrCatalog *catalog);
/* The micro-batches a curve of @scenario should span to show where it stops
 * fitting on each of @gpus (hr_analysis_get_sweep_range()). */
void              hr_curve_chart_batch_range (const HrScenario *scenario,
                                              GPtrArray        *gpus,
                                              guint            *to,
                                              gboolean         *log2_x);

/* The cards of equal memory and equal largest batch share one line. */
typedef struct {
  double        y;           /* the usable line */
  double        x_start;
  double        x_end;
  GArray       *gpus;        /* guint: the cards of data->gpus on this line */
  guint         series;      /* the first card's */
  /* At the line's end, right of the plot: the cards' names, then their
   * usable memory and largest micro-batch, moved apart from the other
   * lines' and tied to the line by a leader where moved. */
  HrRect        swatch;      /* the line's dash and marker, before the names */
  HrChartLabel  label;
  HrChartLabel  detail;
  gboolean      has_leader;
  HrPoint       leader_from;
  HrPoint       leader_to;
  gboolean      has_marker;  /* the largest batch that fits, on the curve */
  HrPoint       marker;
} HrCurveGpuLine;

typedef enum {
  HR_CURVE_LEGEND_PREDICTION,
  HR_CURVE_LEGEND_RANGE,
  HR_CURVE_LEGEND_SCENARIO,
  HR_CURVE_LEGEND_MEASURED,
  HR_CURVE_LEGEND_FIT,
} HrCurveLegendEntry;

#define HR_CURVE_MAX_LEGEND 5

typedef struct {
  HrRect        bounds;
  HrRect        plot;        /* the axes' box */
  double        x_min;
  double        x_max;
  double        y_min;
  double        y_max;
  gboolean      log2_x;
  GArray       *x_ticks;     /* HrAxisTick; a tick without a label has text NULL */
  GArray       *y_ticks;     /* HrAxisTick */
  GArray       *curve;       /* HrPoint */
  GArray       *band_low;    /* HrPoint */
  GArray       *band_high;   /* HrPoint */
  GArray       *gpu_lines;   /* HrCurveGpuLine */
  /* The measured points drawn: at most the smallest and the largest of
   * each measure in each pixel column (hr_measure_thin_columns), so that a
   * sweep of any length draws in bounded time and keeps its peaks. */
  GArray       *measured;    /* HrPoint */
  GArray       *measured_index;  /* guint: the HrCurvePoint of data->measured each is */
  gboolean      has_fit_line;
  HrPoint       fit_start;
  HrPoint       fit_end;
  /* The scenario's micro-batch: a dotted line and its tick. */
  gboolean      has_scenario;
  double        scenario_x;
  HrAxisTick    scenario_tick;
  /* title, subtitle, axis titles, the note */
  GArray       *labels;      /* HrChartLabel */
  /* the legend: a swatch, then its label, per entry */
  guint               n_legend;
  HrCurveLegendEntry  legend[HR_CURVE_MAX_LEGEND];
  HrRect              legend_swatches[HR_CURVE_MAX_LEGEND];
  HrChartLabel        legend_labels[HR_CURVE_MAX_LEGEND];
} HrCurveChartLayout;

HrCurveChartLayout *hr_curve_chart_layout       (const HrCurveChartData *data,
                                                 const HrChartStyle     *style,
                                                 PangoContext           *context,
                                                 double                  width,
                                                 double                  height);
void                hr_curve_chart_layout_free  (HrCurveChartLayout     *layout);
/* Appends (const HrChartLabel *) every label @layout draws, for checks
 * that none overlaps another or leaves the canvas. */
void                hr_curve_chart_layout_collect_labels (const HrCurveChartLayout *layout,
                                                          GPtrArray                *labels);
/* Data to canvas and back, with the layout's axes. */
double              hr_curve_chart_x_position   (const HrCurveChartLayout *layout,
                                                 double                    batch);
double              hr_curve_chart_y_position   (const HrCurveChartLayout *layout,
                                                 double                    bytes);
void                hr_curve_chart_render       (const HrCurveChartLayout *layout,
                                                 const HrCurveChartData   *data,
                                                 const HrChartStyle       *style,
                                                 cairo_t                  *cr);
/* Lays out and renders @data (a HrCurveChartData) in one call: an
 * HrChartDrawFunc for exports and reports. */
void                hr_curve_chart_draw         (cairo_t                  *cr,
                                                 PangoContext             *context,
                                                 const HrChartStyle       *style,
                                                 double                    width,
                                                 double                    height,
                                                 gpointer                  data);
/* A sentence for the accessible description and the SVG <desc>. */
char               *hr_curve_chart_summary      (const HrCurveChartData   *data);

/* What the canvas point (x, y) of @layout shows, in words (a tooltip):
 * a measured point, else the curve at that micro-batch; NULL far from
 * both. */
char               *hr_curve_chart_describe_at  (const HrCurveChartLayout *layout,
                                                 const HrCurveChartData   *data,
                                                 double                    x,
                                                 double                    y);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrCurveChartData, hr_curve_chart_data_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrCurveChartLayout, hr_curve_chart_layout_free)

G_END_DECLS
