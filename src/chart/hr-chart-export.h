/* hr-chart-export.h: charts to PNG, SVG and PDF
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hr-chart-size.h"
#include "hr-chart-style.h"

G_BEGIN_DECLS

typedef enum {
  HR_EXPORT_PNG,
  HR_EXPORT_SVG,
  HR_EXPORT_PDF,
} HrExportFormat;

extern const HrEnumName hr_export_format_names[];

/* Draws a chart in a @width × @height canvas of logical pixels; @context
 * measures text the way the chart's layout step expects. */
typedef void (*HrChartDrawFunc) (cairo_t            *cr,
                                 PangoContext       *context,
                                 const HrChartStyle *style,
                                 double              width,
                                 double              height,
                                 gpointer            user_data);

typedef struct {
  HrExportFormat  format;
  double          width;        /* logical pixels (1/96 inch) */
  double          height;
  double          scale;        /* PNG: device pixels per logical pixel */
  const char     *title;        /* SVG <title>, PDF Title, PNG Title */
  const char     *description;  /* SVG <desc>, PDF Subject, PNG Description */
  /* The unit an SVG page states its size in (pixels unless set); a PDF
   * page is in points, a PNG says its resolution (96 × scale per inch). */
  HrLengthUnit    unit;
  /* SVG: text as glyph outlines (what cairo writes) rather than <text>
   * elements a drawing program can edit. */
  gboolean        text_as_outlines;
} HrExportOptions;

/* Fills @options' size, unit and PNG scale from @size (the scale for
 * @size's resolution, or @dpi when above 0). */
void     hr_export_options_set_size (HrExportOptions   *options,
                                     const HrChartSize *size,
                                     double             dpi);

/* A cairo_write_func_t that appends to the GByteArray in @closure. */
cairo_status_t hr_chart_append_to_byte_array (void                *closure,
                                              const unsigned char *data,
                                              unsigned int         length);

/* Guesses the format from a file name's extension. */
gboolean hr_export_format_for_path (const char      *path,
                                    HrExportFormat  *format);

/* Renders with @draw and writes @path atomically: a failure leaves any
 * earlier file untouched. */
gboolean hr_chart_export           (const char            *path,
                                    const HrExportOptions *options,
                                    const HrChartStyle    *style,
                                    HrChartDrawFunc        draw,
                                    gpointer               user_data,
                                    GError               **error);

/* The same, to memory (for tests and the clipboard). */
GBytes  *hr_chart_export_bytes     (const HrExportOptions *options,
                                    const HrChartStyle    *style,
                                    HrChartDrawFunc        draw,
                                    gpointer               user_data,
                                    GError               **error);

G_END_DECLS
