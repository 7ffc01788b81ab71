/* hr-chart-view.h: a chart from hr-chart as a widget
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "hr-chart.h"

G_BEGIN_DECLS

typedef enum {
  HR_CHART_KIND_BUCKETS,
  HR_CHART_KIND_CURVE,
} HrChartKind;

#define HR_TYPE_CHART_VIEW (hr_chart_view_get_type ())
G_DECLARE_FINAL_TYPE (HrChartView, hr_chart_view, HR, CHART_VIEW, GtkWidget)

GtkWidget    *hr_chart_view_new          (void);
/* The view takes the data (made for @type, from the chart registry) and
 * redraws. */
void          hr_chart_view_set_chart    (HrChartView       *self,
                                          const HrChartType *type,
                                          gpointer           data);
const HrChartType *hr_chart_view_get_chart_type (HrChartView *self);
void          hr_chart_view_set_buckets  (HrChartView       *self,
                                          HrBucketChartData *data);
void          hr_chart_view_set_curve    (HrChartView       *self,
                                          HrCurveChartData  *data);
HrChartKind   hr_chart_view_get_kind     (HrChartView       *self);
gpointer      hr_chart_view_get_data     (HrChartView       *self);
/* The chart's text summary: its accessible description. */
const char   *hr_chart_view_get_summary  (HrChartView       *self);
/* The chart's title: its accessible label. */
const char   *hr_chart_view_get_title    (HrChartView       *self);
/* The style the view draws with: light or dark after the desktop, with the
 * widget's own text colour, over a transparent background. */
HrChartStyle *hr_chart_view_make_style   (HrChartView       *self);
/* The same for any widget that draws a chart. */
HrChartStyle *hr_chart_style_new_for_widget (GtkWidget      *widget);
/* The draw function and its user data (an HrChartDrawing) for exporting
 * what the view shows. */
HrChartDrawFunc hr_chart_view_get_draw_func (HrChartView    *self);
gpointer      hr_chart_view_get_drawing  (HrChartView       *self);
/* What the pointer at (x, y) points at, in words; NULL over nothing. */
char         *hr_chart_view_describe_at  (HrChartView       *self,
                                          double             x,
                                          double             y);
/* What the chart views did since the last reset, for the benchmark and
 * the tests: how often a chart was laid out and rendered (its data, size
 * or style changed), how often a frame reused the rendered node, and the
 * time spent laying out and rendering. */
typedef struct {
  guint64 renders;
  guint64 reuses;
  gint64  render_us;
} HrChartViewCounters;

void          hr_chart_view_counters_get   (HrChartViewCounters *counters);
void          hr_chart_view_counters_reset (void);

/* The pointer moved to (x, y) over the chart (negative: it left), as the
 * motion controller says; and what the hover box then shows (NULL:
 * none). */
void          hr_chart_view_hover        (HrChartView       *self,
                                          double             x,
                                          double             y);
const char   *hr_chart_view_get_hover_text (HrChartView     *self);

/* Puts the chart on the clipboard as an image. */
gboolean      hr_chart_view_copy         (HrChartView       *self,
                                          GError           **error);

G_END_DECLS
