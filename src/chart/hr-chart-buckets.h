/* hr-chart-buckets.h: the five buckets as stacked bars
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hr-analysis.h"
#include "hr-chart-curve.h"
#include "hr-chart-style.h"
#include "hr-chart-types.h"
#include "hr-snapshot.h"

G_BEGIN_DECLS

/* One bar: one GPU, or one variant of a scenario (bf16 against fp32,
 * batch 8 against 32). */
typedef struct {
  char    *label;
  double   bytes[HR_N_BUCKETS];
  double   low;              /* range of the total */
  double   high;
  double   capacity;         /* 0 without a card */
  double   usable;           /* capacity less the reserve */
  char    *card;             /* the card's name, NULL without one */
  char    *short_card;       /* as people say it (hr_chart_gpu_short_name()) */
  guint    series;           /* the card's colour, dash and marker, as on the curve */
  /* What the fit compares with `usable`: the total, except under JAX
   * preallocation, where it is the model's use of XLA's pool. */
  double   need;
  gboolean fits;
  /* A measured bar (hr_bucket_chart_data_add_snapshot): memory no rule
   * attributed to a bucket is drawn on top, hatched, and counts in the
   * total. */
  gboolean measured;
  double   unattributed;
  /* XLA's preallocated pool: the part of it XLA holds and the run does
   * not use, drawn outlined on top of the need (which the buckets then
   * add up to, the CUDA context beside the pool left out), so that the
   * stack reaches the pool; 0 otherwise.  The bar's figure is then the
   * need, its range the need's. */
  double   pool_unused;
  /* Only the central estimate fits, not the range's high end: the card
   * says "tight", never "✓ spare". */
  gboolean tight;
} HrBucketBar;

typedef struct {
  char      *title;
  char      *subtitle;
  GPtrArray *bars;           /* HrBucketBar, owned */
  /* What is measured, calibrated and estimated, in a sentence. */
  char      *note;
  /* What every size the chart prints is in (the analysis' unit). */
  HrSizeUnit unit;
} HrBucketChartData;

HrBucketChartData *hr_bucket_chart_data_new    (void);
void               hr_bucket_chart_data_free   (HrBucketChartData *data);
HrBucketBar       *hr_bucket_chart_data_add_bar (HrBucketChartData *data,
                                                 const char        *label);
/* A bar from an estimate: its buckets, range and fit. */
HrBucketBar       *hr_bucket_chart_data_add_estimate (HrBucketChartData *data,
                                                      const char        *label,
                                                      const HrEstimate  *estimate);
/* A bar of what a memory snapshot (or a profiler timeline) held at
 * @device's allocated peak (hr_snapshot_device_bar): its buckets, the
 * allocator's unused reserve in the overhead, what no rule attributed on
 * top, on the card of the last estimate's bar before it; the window puts
 * it beside the estimate's bar. */
HrBucketBar       *hr_bucket_chart_data_add_snapshot (HrBucketChartData      *data,
                                                      const char             *label,
                                                      const HrSnapshotDevice *device);
/* One bar per GPU @analysis compares (its estimate on that card), or one
 * bar when it compares none; titled with the scenario's name and model. */
HrBucketChartData *hr_bucket_chart_data_new_for_analysis (HrAnalysis       *analysis);
/* The same for @scenario on its own card. */
HrBucketChartData *hr_bucket_chart_data_new_for_scenario (const HrScenario *scenario);

/* The whole stack: the buckets, a measured bar's unattributed memory and
 * the pool XLA holds unused. */
double             hr_bucket_bar_total         (const HrBucketBar *bar);
/* The bar's one figure: what it peaks at (the need, under XLA's pool), as
 * the headline, the curve and the verdict say it. */
double             hr_bucket_bar_peak          (const HrBucketBar *bar);

/* A card's usable memory across its bar, in the card's series look, and
 * its names and verdict beside the bar (cards alike share a line). */
typedef struct {
  GArray       *bars;                       /* guint: the data's bars of these cards */
  guint         series;
  double        y;
  double        x_start;
  double        x_end;
  gboolean      fits;
  HrRect        swatch;                     /* the line's dash and marker */
  HrChartLabel  label;                      /* the cards' names */
  HrChartLabel  detail;                     /* usable memory and the verdict */
  gboolean      has_leader;
  HrPoint       leader_from;
  HrPoint       leader_to;
} HrBucketCardLine;

/* One bar: the data's bars with the same estimate (cards alike under
 * PyTorch), stacked, with each card's usable line. */
typedef struct {
  GArray       *members;                    /* guint: the data's bars drawn as this one */
  HrRect        bar;                        /* the whole stack */
  HrRect        segments[HR_N_BUCKETS];     /* bottom to top: weights first */
  HrChartLabel  segment_labels[HR_N_BUCKETS];  /* text NULL when not shown */
  gboolean      label_inside[HR_N_BUCKETS];
  HrPoint       leader_from[HR_N_BUCKETS];  /* for labels beside the bar */
  HrPoint       leader_to[HR_N_BUCKETS];
  /* TRUE when the sizes beside the bar stand much taller than the bar
   * (a thin stack): they are joined by one bracket at @bracket_x, from
   * which one leader goes to the bar, instead of a leader each that
   * would all run together */
  gboolean      bracketed;
  double        bracket_x;
  HrRect        range;                      /* the low-high bracket */
  HrChartLabel  total;                      /* above the bar, or beside it */
  gboolean      total_leader;
  HrPoint       total_from;
  HrPoint       total_to;
  HrChartLabel  name;                       /* under the bar, when it has no card */
  GArray       *cards;                      /* HrBucketCardLine */
  /* a measured bar's unattributed memory, on top of the stack */
  HrRect        unattributed;
  HrChartLabel  unattributed_label;
  gboolean      unattributed_inside;
  HrPoint       unattributed_leader[2];
} HrBucketBarLayout;

typedef struct {
  HrRect        bounds;
  HrRect        plot;
  double        y_max;
  GArray       *y_ticks;       /* HrAxisTick */
  GArray       *bars;          /* HrBucketBarLayout */
  HrRect        legend_swatches[HR_N_BUCKETS];
  HrChartLabel  legend_labels[HR_N_BUCKETS];
  GArray       *labels;        /* HrChartLabel: title, subtitle, axis title, note */
} HrBucketChartLayout;

HrBucketChartLayout *hr_bucket_chart_layout      (const HrBucketChartData *data,
                                                  const HrChartStyle      *style,
                                                  PangoContext            *context,
                                                  double                   width,
                                                  double                   height);
void                 hr_bucket_chart_layout_free (HrBucketChartLayout     *layout);
/* Appends (const HrChartLabel *) every label @layout draws. */
void                 hr_bucket_chart_layout_collect_labels (const HrBucketChartLayout *layout,
                                                            GPtrArray                 *labels);
double               hr_bucket_chart_y_position  (const HrBucketChartLayout *layout,
                                                  double                     bytes);
void                 hr_bucket_chart_render      (const HrBucketChartLayout *layout,
                                                  const HrBucketChartData   *data,
                                                  const HrChartStyle        *style,
                                                  cairo_t                   *cr);
/* Lays out and renders @data (a HrBucketChartData) in one call: an
 * HrChartDrawFunc for exports and reports. */
void                 hr_bucket_chart_draw        (cairo_t                  *cr,
                                                  PangoContext             *context,
                                                  const HrChartStyle       *style,
                                                  double                    width,
                                                  double                    height,
                                                  gpointer                  data);
/* "Peak 71.2 GiB of 80 GiB (fits, 8.8 GiB spare): weights 13.5, …" */
char                *hr_bucket_chart_summary     (const HrBucketChartData   *data);

/* What the canvas point (x, y) of @layout shows, in words (a tooltip);
 * NULL over nothing. */
char                *hr_bucket_chart_describe_at (const HrBucketChartLayout *layout,
                                                  const HrBucketChartData   *data,
                                                  double                     x,
                                                  double                     y);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrBucketChartData, hr_bucket_chart_data_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrBucketChartLayout, hr_bucket_chart_layout_free)

G_END_DECLS
