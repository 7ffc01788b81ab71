/* hr-chart-types.h: geometry that layouts return
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  double x;
  double y;
  double width;
  double height;
} HrRect;

typedef struct {
  double x;
  double y;
} HrPoint;

typedef enum {
  HR_ALIGN_START,
  HR_ALIGN_CENTER,
  HR_ALIGN_END,
} HrAlign;

/* A piece of text placed by a layout: its box is where it is drawn. */
typedef struct {
  char        *text;
  HrRect       box;
  int          font;       /* HrChartFont */
  gboolean     on_fill;    /* drawn on a coloured fill: pick contrast */
  int          color_role; /* HrChartTextRole */
  double       max_width;  /* wrap width, 0 for one line */
  HrAlign      align;
} HrChartLabel;

typedef enum {
  HR_TEXT_FOREGROUND,
  HR_TEXT_MUTED,
  HR_TEXT_GOOD,
  HR_TEXT_BAD,
  HR_TEXT_ACCENT,
  HR_TEXT_ON_FILL,
} HrChartTextRole;

/* A tick on an axis: its value (in the axis's data units), where it is, and
 * its label. */
typedef struct {
  double        value;
  double        position;    /* x for the x axis, y for the y axis */
  HrChartLabel  label;
} HrAxisTick;

gboolean hr_rect_contains      (const HrRect *rect,
                                double        x,
                                double        y);
gboolean hr_rect_intersects    (const HrRect *a,
                                const HrRect *b);
/* TRUE when @inner lies within @outer, allowing @slack on each side. */
gboolean hr_rect_inside        (const HrRect *inner,
                                const HrRect *outer,
                                double        slack);

void     hr_chart_label_clear  (HrChartLabel *label);
/* A GArray clear function for HrAxisTick. */
void     hr_axis_tick_clear    (gpointer      tick);

/* "Nice" axis ticks (1, 2, 2.5, 5 × 10^n steps) covering [lo, hi] with about
 * @target ticks; returns the step and fills @ticks with the values. */
double   hr_nice_ticks         (double        lo,
                                double        hi,
                                guint         target,
                                GArray       *ticks);

G_END_DECLS
