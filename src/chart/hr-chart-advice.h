/* hr-chart-advice.h: the advisor's recommendations as a table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hr-advisor.h"
#include "hr-chart-style.h"
#include "hr-chart-types.h"

G_BEGIN_DECLS

/* What the table shows: the advice, a title, and the decision path in
 * words (both may be NULL). */
typedef struct {
  const HrAdvice *advice;
  const char     *title;
  const char     *path;
  HrSizeUnit      unit;    /* of the cards' memory */
} HrAdviceChartData;

typedef struct {
  HrRect  bounds;
  GArray *labels;     /* HrChartLabel: title, path, header, cells, host, notes */
  GArray *rules;      /* HrRect: hairlines under the header and between rows */
  HrRect  best;       /* the first row's band (width 0 when there is none) */
  guint   n_rows;     /* recommendation rows shown */
  guint   n_columns;
} HrAdviceChartLayout;

/* Lays the table out in a @width × @height canvas: one row per
 * recommendation (as many as fit), best first and tinted, cells cut short
 * with an ellipsis where a column is too narrow, and the host advice and
 * notes under it while there is room. */
HrAdviceChartLayout *hr_advice_chart_layout      (const HrAdviceChartData *data,
                                                  const HrChartStyle      *style,
                                                  PangoContext            *context,
                                                  double                   width,
                                                  double                   height);
void                 hr_advice_chart_layout_free (HrAdviceChartLayout     *layout);
void                 hr_advice_chart_render      (const HrAdviceChartLayout *layout,
                                                  const HrChartStyle      *style,
                                                  cairo_t                 *cr);
/* An HrChartDrawFunc taking an HrAdviceChartData. */
void                 hr_advice_chart_draw        (cairo_t                 *cr,
                                                  PangoContext            *context,
                                                  const HrChartStyle      *style,
                                                  double                   width,
                                                  double                   height,
                                                  gpointer                 data);
/* The table in words, for the accessible description and SVG/PDF. */
char                *hr_advice_chart_summary     (const HrAdviceChartData *data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrAdviceChartLayout, hr_advice_chart_layout_free)

G_END_DECLS
