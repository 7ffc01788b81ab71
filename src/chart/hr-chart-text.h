/* hr-chart-text.h: measuring and drawing text with pango
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <pango/pangocairo.h>

#include "hr-chart-style.h"
#include "hr-chart-types.h"

G_BEGIN_DECLS

/* Charts are laid out at 96 logical pixels per inch, with metrics hinting
 * off so that a layout measured once draws the same at any scale, on screen
 * or in a PDF. */
#define HR_CHART_DPI 96.0

/* A context for laying text out when no cairo_t is at hand (tests, the
 * layout step of an export). */
PangoContext *hr_chart_pango_context_new   (void);
/* Makes @cr's text match what hr_chart_pango_context_new() measured. */
void          hr_chart_prepare_cairo       (cairo_t            *cr);
/* Draws @cr's text with @context, the one the layout step measured with
 * (hr_chart_type_draw() does this): its fonts are loaded already. */
void          hr_chart_text_draw_with      (cairo_t            *cr,
                                            PangoContext       *context);
/* The same for a screen (a widget's snapshot), where no one selects or
 * searches the text: a label is drawn as its glyphs alone, at the
 * positions pango gives them, and the glyphs of every text drawn are kept
 * on @context, so that a later render shapes only texts it has not seen;
 * the pixels are those hr_chart_text_draw_with() gives, for much less
 * work.  Exports keep their text (PDF and SVG carry it) and use the
 * other. */
void          hr_chart_text_draw_for_screen (cairo_t           *cr,
                                             PangoContext      *context);
/* Paths a screen's renders share: while @cr draws for a screen
 * (hr_chart_text_draw_for_screen()) with no transformation, the path
 * @cr has when hr_chart_path_keep() is called is kept on the context
 * under @key (bytes that say everything the path is made from), and
 * hr_chart_path_replay() appends it to @cr's path: TRUE then, FALSE
 * when there is none (make the path, then keep it).  Point for point
 * the path made, for much less than making one of many arcs.  Drawing
 * for an export, or transformed, nothing is kept and the path is made
 * every time. */
gboolean      hr_chart_path_replay         (cairo_t            *cr,
                                            gconstpointer       key,
                                            gsize               key_len);
void          hr_chart_path_keep           (cairo_t            *cr,
                                            gconstpointer       key,
                                            gsize               key_len);

PangoLayout  *hr_chart_text_layout         (PangoContext       *context,
                                            const HrChartStyle *style,
                                            HrChartFont         font,
                                            const char         *text,
                                            double              max_width);
/* The size @text takes in @font (wrapped at @max_width when > 0). */
void          hr_chart_text_size           (PangoContext       *context,
                                            const HrChartStyle *style,
                                            HrChartFont         font,
                                            const char         *text,
                                            double              max_width,
                                            double             *width,
                                            double             *height);
/* What @context's caches hold and how often they answered: the sizes
 * hr_chart_text_size() measured, and the texts drawn for a screen with
 * @context (hr_chart_text_draw_for_screen(): their glyphs), each kept by
 * text, font, wrap width and alignment, and the paths kept; all emptied
 * when the context changes (new fonts). */
typedef struct {
  guint size_hits;
  guint size_misses;
  guint n_sizes;
  guint layout_hits;       /* texts drawn for a screen from their kept glyphs */
  guint layout_misses;     /* texts shaped to be drawn for a screen */
  guint n_layouts;
  guint glyph_draws;       /* labels drawn as glyphs (for a screen) */
  guint pango_draws;       /* labels drawn by pango with @context */
  guint path_hits;         /* paths appended again (hr_chart_path_replay()) */
  guint path_misses;
} HrChartTextCacheStats;

void          hr_chart_text_cache_get_stats (PangoContext          *context,
                                             HrChartTextCacheStats *stats);
/* @text cut short with an ellipsis where needed so that it and @suffix fit
 * on one line of @max_width (the suffix goes too when even that is too
 * wide).  Returns a new string. */
char         *hr_chart_text_ellipsize      (PangoContext       *context,
                                            const HrChartStyle *style,
                                            HrChartFont         font,
                                            const char         *text,
                                            const char         *suffix,
                                            double              max_width);
/* A label of @text (taken), placed as hr_chart_label_place() does. */
HrChartLabel  hr_chart_label_new           (PangoContext       *context,
                                            const HrChartStyle *style,
                                            char               *text,
                                            HrChartFont         font,
                                            HrChartTextRole     role,
                                            HrAlign             align,
                                            double              max_width,
                                            double              x,
                                            double              y);
/* Fills @label->box for text anchored at (x, y): x is the start, centre or
 * end according to @align, y the top. */
void          hr_chart_label_place         (PangoContext       *context,
                                            const HrChartStyle *style,
                                            HrChartLabel       *label,
                                            double              x,
                                            double              y);
void          hr_chart_draw_label          (cairo_t            *cr,
                                            const HrChartStyle *style,
                                            const HrChartLabel *label,
                                            const HrRgba       *fill);
/* The same in @color, whatever the label's role. */
void          hr_chart_draw_label_colored  (cairo_t            *cr,
                                            const HrChartStyle *style,
                                            const HrChartLabel *label,
                                            const HrRgba       *color);
/* A translucent patch of background behind @label, so that text over a
 * line or a band stays readable (nothing on a transparent chart). */
void          hr_chart_draw_label_halo     (cairo_t            *cr,
                                            const HrChartStyle *style,
                                            const HrChartLabel *label);
/* Draws @text with its top-left corner at (x, y). */
void          hr_chart_draw_text           (cairo_t            *cr,
                                            const HrChartStyle *style,
                                            HrChartFont         font,
                                            const HrRgba       *color,
                                            const char         *text,
                                            double              x,
                                            double              y,
                                            double              max_width,
                                            HrAlign             align);

/* Text as text: while a sink is attached to a cairo_t, every label drawn
 * on it through this file is recorded (its lines, baselines, font and
 * colour in the surface's units) instead of drawn as glyphs, so that an
 * SVG can carry it as <text> a reader can edit. */
typedef struct _HrChartTextSink HrChartTextSink;

HrChartTextSink *hr_chart_text_sink_new    (void);
void             hr_chart_text_sink_free   (HrChartTextSink    *sink);
/* Records what is drawn on @cr from now on (until @cr is destroyed or
 * another sink is attached); @sink must outlive @cr's drawing. */
void             hr_chart_text_sink_attach (HrChartTextSink    *sink,
                                            cairo_t            *cr);
guint            hr_chart_text_sink_get_n  (HrChartTextSink    *sink);
/* Appends one <text> element per line recorded, in drawing order. */
void             hr_chart_text_sink_write_svg (HrChartTextSink *sink,
                                               GString         *svg);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrChartTextSink, hr_chart_text_sink_free)

G_END_DECLS
