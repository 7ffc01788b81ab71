/* hr-chart-size.h: figure sizes in physical units, and the fonts that suit
 * them
 *
 * A chart is laid out in logical pixels (1/96 inch) whatever its size; a
 * figure size says how many, what the page says its size is (inches,
 * centimetres or pixels), the font sizes in points that stay readable at
 * that size once printed, and the resolution a PNG of it gets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "hr-chart-style.h"
#include "hr-types.h"

G_BEGIN_DECLS

typedef enum {
  HR_CHART_SIZE_SCREEN,   /* 1280 × 800 px: the window's fonts (the default) */
  HR_CHART_SIZE_COLUMN,   /* 3.5 × 2.5 in: one column of a two-column paper */
  HR_CHART_SIZE_DOUBLE,   /* 7 × 3.5 in: across both columns */
  HR_CHART_SIZE_SLIDE,    /* 13.33 × 7.5 in: a 16:9 slide */
  HR_CHART_SIZE_POSTER,   /* 16 × 10 in: a figure on a conference poster */
  HR_CHART_SIZE_CUSTOM,
} HrChartSizePreset;

extern const HrEnumName hr_chart_size_names[];

/* The unit a length was given in, and that a page states its size in. */
typedef enum {
  HR_LENGTH_PX,    /* logical pixels, 1/96 inch (CSS's px) */
  HR_LENGTH_IN,
  HR_LENGTH_CM,
  HR_LENGTH_MM,
  HR_LENGTH_PT,    /* 1/72 inch */
} HrLengthUnit;

extern const HrEnumName hr_length_unit_names[];

typedef struct {
  HrChartSizePreset preset;
  double            width;         /* logical pixels */
  double            height;
  HrLengthUnit      unit;          /* what the SVG page's size is written in */
  /* Points, for the body, the small text (ticks, notes) and the title. */
  double            font_size;
  double            small_size;
  double            title_size;
  /* Gaps, ticks and markers against the screen's (hr_chart_style's
   * spacing), and line widths in logical pixels. */
  double            spacing;
  double            line_width;
  double            thin_line_width;
  /* PNG pixels per inch unless the export says otherwise. */
  double            dpi;
} HrChartSize;

/* @size for @preset (not CUSTOM). */
void     hr_chart_size_init_preset (HrChartSize       *size,
                                    HrChartSizePreset  preset);
/* @size for @width × @height logical pixels in @unit: the fonts of the
 * preset nearest in width (a figure 3.5 inches wide reads like a column
 * one), the window's for a size in pixels. */
void     hr_chart_size_init_custom (HrChartSize       *size,
                                    double             width,
                                    double             height,
                                    HrLengthUnit       unit);
/* Sets @style's fonts, spacing and lines for @size. */
void     hr_chart_style_apply_size (HrChartStyle      *style,
                                    const HrChartSize *size);

/* Reads "3.5in", "8.9 cm", "89mm", "252pt", "336px" or a bare "336"
 * (logical pixels) into logical pixels and the unit given; FALSE with an
 * error naming @what on anything else, or a length that is not positive
 * and finite. */
gboolean hr_chart_length_parse     (const char        *text,
                                    const char        *what,
                                    double            *pixels,
                                    HrLengthUnit      *unit,
                                    GError           **error);
/* @pixels in @unit. */
double   hr_chart_length_in_unit   (double             pixels,
                                    HrLengthUnit       unit);
/* "3.5 in", "8.9 cm", "1280 px", in the locale's format. */
char    *hr_chart_length_format    (double             pixels,
                                    HrLengthUnit       unit);

G_END_DECLS
