/* hr-chart-style.h: colours, fonts and lines shared by every chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <glib.h>

#include "hr-estimate.h"

G_BEGIN_DECLS

typedef struct {
  double red;
  double green;
  double blue;
  double alpha;
} HrRgba;

typedef enum {
  HR_CHART_THEME_LIGHT,
  HR_CHART_THEME_DARK,
  HR_CHART_THEME_PRINT,
} HrChartTheme;

extern const HrEnumName hr_chart_theme_names[];

/* How a bucket is told apart without its colour. */
typedef enum {
  HR_PATTERN_SOLID,
  HR_PATTERN_DIAGONAL,       /* / */
  HR_PATTERN_BACK_DIAGONAL,  /* \ */
  HR_PATTERN_DOTS,
  HR_PATTERN_HORIZONTAL,
} HrPattern;

/* How a GPU's line and marker are told apart without its colour. */
typedef enum {
  HR_MARKER_CIRCLE,
  HR_MARKER_SQUARE,
  HR_MARKER_TRIANGLE,
  HR_MARKER_DIAMOND,
  HR_MARKER_TRIANGLE_DOWN,
  HR_MARKER_PENTAGON,
  HR_MARKER_HEXAGON,
  HR_MARKER_STAR,
} HrMarker;

#define HR_CHART_N_SERIES 8

/* One series (a GPU) on every chart: its colour, its dash and its marker;
 * series i keeps the same look in the curve and the bucket chart. */
typedef struct {
  HrRgba    color;
  double    dashes[4];     /* in units of the line width; n_dashes 0: solid */
  guint     n_dashes;
  HrMarker  marker;
} HrChartSeries;

typedef enum {
  HR_CHART_FONT_BODY,
  HR_CHART_FONT_SMALL,
  HR_CHART_FONT_TITLE,
  HR_CHART_FONT_BOLD,
  HR_CHART_FONT_SMALL_BOLD,
} HrChartFont;

/* Everything a renderer needs to know about looks.  Charts are laid out in
 * logical pixels (1/96 inch, what GTK calls a pixel); font sizes are in
 * points, so text keeps its size whatever the canvas. */
typedef struct {
  HrChartTheme theme;

  HrRgba       background;
  HrRgba       foreground;
  HrRgba       muted;          /* secondary text, ticks */
  HrRgba       grid;
  HrRgba       axis;
  HrRgba       accent;         /* highlights: the chosen path, hover */
  HrRgba       good;           /* fits */
  HrRgba       bad;            /* does not fit */
  HrRgba       capacity;       /* a card's memory */
  HrRgba       reserve;        /* the reserve strip */
  HrRgba       band;           /* low-high ranges */
  HrRgba       measured;       /* imported measurements */
  HrRgba       node;           /* decision-tree boxes */
  HrRgba       node_border;

  /* Okabe & Ito (2008), "Color Universal Design": distinguishable with
   * every common colour-vision deficiency.  Same bucket, same colour, in
   * every chart and theme. */
  HrRgba       bucket[HR_N_BUCKETS];
  HrPattern    bucket_pattern[HR_N_BUCKETS];
  /* Colours for several series (GPUs, scenario variants). */
  HrRgba       series[HR_CHART_N_SERIES];

  char        *font_family;
  double       font_size;      /* points */
  double       small_size;
  double       title_size;

  double       line_width;     /* logical pixels */
  double       thin_line_width;
  double       corner_radius;
  /* Gaps, ticks and markers are this many times their size on screen:
   * below 1 for a figure a column wide, above for a slide or a poster. */
  double       spacing;

  gboolean     transparent;    /* leave the background unpainted */
} HrChartStyle;

HrChartStyle *hr_chart_style_new      (HrChartTheme        theme);
HrChartStyle *hr_chart_style_copy     (const HrChartStyle *style);
void          hr_chart_style_free     (HrChartStyle       *style);

/* Series @index (any number: it wraps around the set) in @style. */
HrChartSeries hr_chart_style_get_series (const HrChartStyle *style,
                                         guint               index);
/* Strokes the current path as series @series draws its line (its colour
 * and dash at @width); the path is cleared. */
void          hr_chart_stroke_series  (cairo_t             *cr,
                                       const HrChartSeries *series,
                                       double               width);
/* The marker of @series, filled, centred on (x, y), @radius across half
 * its width, with an edge of @style's background. */
void          hr_chart_draw_marker    (cairo_t             *cr,
                                       const HrChartStyle  *style,
                                       const HrChartSeries *series,
                                       double               x,
                                       double               y,
                                       double               radius);
/* The series' colour made readable as text on @style's background
 * (WCAG's 4.5:1), keeping its hue. */
HrRgba        hr_chart_series_text_color (const HrChartStyle  *style,
                                          const HrChartSeries *series);

/* @style for a canvas @width × @height logical pixels: the same, or, on
 * a canvas too small for its fonts (under about 36 × 25 of its body text's
 * size, what a column-wide figure has), its fonts and spacing scaled down
 * to fit.  The layout and the render steps of a chart both ask, so they
 * agree. */
HrChartStyle *hr_chart_style_fit      (const HrChartStyle *style,
                                       double              width,
                                       double              height);

void          hr_chart_set_color      (cairo_t            *cr,
                                       const HrRgba       *color);
/* Black or white, whichever reads better on @background. */
HrRgba        hr_chart_text_color_on  (const HrRgba       *background);
/* A colour's relative luminance (WCAG 2.1). */
double        hr_rgba_luminance       (const HrRgba       *color);
/* WCAG contrast ratio between two opaque colours, 1 to 21. */
double        hr_rgba_contrast        (const HrRgba       *a,
                                       const HrRgba       *b);
HrRgba        hr_rgba_mix             (const HrRgba       *a,
                                       const HrRgba       *b,
                                       double              t);
/* Fills the current path with @color overlaid by @pattern in a shade of
 * it; @scale is the user-to-device scale so patterns keep their spacing. */
void          hr_chart_fill_pattern   (cairo_t            *cr,
                                       const HrChartStyle *style,
                                       const HrRgba       *color,
                                       HrPattern           pattern);
void          hr_chart_paint_background (cairo_t            *cr,
                                         const HrChartStyle *style,
                                         double              width,
                                         double              height);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrChartStyle, hr_chart_style_free)

G_END_DECLS
