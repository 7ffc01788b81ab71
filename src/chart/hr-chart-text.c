/* hr-chart-text.c: measuring and drawing text with pango
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <math.h>
#include <string.h>

#include "hr-chart-text.h"

static cairo_font_options_t *
font_options (void)
{
  cairo_font_options_t *options = cairo_font_options_create ();

  /* Unhinted metrics: text measures the same at every scale and on every
   * surface, so a layout made for the screen holds in a PDF. */
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  return options;
}

static void
setup_context (PangoContext *context)
{
  cairo_font_options_t *options = font_options ();

  pango_cairo_context_set_resolution (context, HR_CHART_DPI);
  pango_cairo_context_set_font_options (context, options);
  pango_context_set_round_glyph_positions (context, FALSE);
  cairo_font_options_destroy (options);
}

PangoContext *
hr_chart_pango_context_new (void)
{
  PangoContext *context = pango_font_map_create_context (pango_cairo_font_map_get_default ());

  setup_context (context);
  return context;
}

void
hr_chart_prepare_cairo (cairo_t *cr)
{
  cairo_font_options_t *options = font_options ();

  cairo_set_font_options (cr, options);
  cairo_font_options_destroy (options);
}

static PangoFontDescription *
font_for (const HrChartStyle *style,
          HrChartFont         font)
{
  PangoFontDescription *desc = pango_font_description_new ();
  double size = style->font_size;

  pango_font_description_set_family (desc, style->font_family);

  switch (font)
    {
    case HR_CHART_FONT_SMALL:
      size = style->small_size;
      break;
    case HR_CHART_FONT_TITLE:
      size = style->title_size;
      pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
      break;
    case HR_CHART_FONT_BOLD:
      pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
      break;
    case HR_CHART_FONT_SMALL_BOLD:
      size = style->small_size;
      pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
      break;
    case HR_CHART_FONT_BODY:
    default:
      break;
    }

  pango_font_description_set_size (desc, (int) (size * PANGO_SCALE));
  return desc;
}

static void
fill_layout (PangoLayout        *layout,
             const HrChartStyle *style,
             HrChartFont         font,
             const char         *text,
             double              max_width)
{
  PangoFontDescription *desc = font_for (style, font);

  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_text (layout, text != NULL ? text : "", -1);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    }
}

PangoLayout *
hr_chart_text_layout (PangoContext       *context,
                      const HrChartStyle *style,
                      HrChartFont         font,
                      const char         *text,
                      double              max_width)
{
  PangoLayout *layout = pango_layout_new (context);

  fill_layout (layout, style, font, text, max_width);
  return layout;
}

/* A layout step measures the same text several times (each way it tries
 * to fit a label); shaping is what text costs, so sizes are kept on the
 * context, by everything that decides them. */
#define SIZE_CACHE_KEY "hr-chart-text-sizes"
#define SIZE_CACHE_MOST 4096

typedef struct {
  double width;
  double height;
} TextSize;

void
hr_chart_text_size (PangoContext       *context,
                    const HrChartStyle *style,
                    HrChartFont         font,
                    const char         *text,
                    double              max_width,
                    double             *width,
                    double             *height)
{
  GHashTable *sizes = g_object_get_data (G_OBJECT (context), SIZE_CACHE_KEY);
  char key_buffer[256];
  g_autofree char *long_key = NULL;
  const char *key;
  TextSize *size;

  if (sizes == NULL)
    {
      sizes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_object_set_data_full (G_OBJECT (context), SIZE_CACHE_KEY, sizes,
                              (GDestroyNotify) g_hash_table_unref);
    }

  /* the font, its sizes, the wrap width and the text */
  if (g_snprintf (key_buffer, sizeof key_buffer, "%d\x1f%s\x1f%a\x1f%a\x1f%a\x1f%a\x1f%s", font,
                  style->font_family, style->font_size, style->small_size, style->title_size,
                  max_width, text != NULL ? text : "") < (int) sizeof key_buffer)
    key = key_buffer;
  else
    key = long_key = g_strdup_printf ("%d\x1f%s\x1f%a\x1f%a\x1f%a\x1f%a\x1f%s", font,
                                      style->font_family, style->font_size, style->small_size,
                                      style->title_size, max_width, text != NULL ? text : "");

  size = g_hash_table_lookup (sizes, key);
  if (size == NULL)
    {
      g_autoptr(PangoLayout) layout = hr_chart_text_layout (context, style, font, text,
                                                            max_width);
      PangoRectangle logical;

      pango_layout_get_extents (layout, NULL, &logical);
      if (g_hash_table_size (sizes) >= SIZE_CACHE_MOST)
        g_hash_table_remove_all (sizes);
      size = g_new (TextSize, 1);
      size->width = (double) logical.width / PANGO_SCALE;
      size->height = (double) logical.height / PANGO_SCALE;
      g_hash_table_insert (sizes, g_strdup (key), size);
    }
  if (width != NULL)
    *width = size->width;
  if (height != NULL)
    *height = size->height;
}

void
hr_chart_label_place (PangoContext       *context,
                      const HrChartStyle *style,
                      HrChartLabel       *label,
                      double              x,
                      double              y)
{
  double w, h;

  hr_chart_text_size (context, style, label->font, label->text, label->max_width, &w, &h);
  label->box.width = w;
  label->box.height = h;
  label->box.y = y;
  label->box.x = label->align == HR_ALIGN_CENTER ? x - w / 2
               : label->align == HR_ALIGN_END ? x - w
               : x;
}

static double
text_width (PangoContext       *context,
            const HrChartStyle *style,
            HrChartFont         font,
            const char         *text)
{
  double width;

  hr_chart_text_size (context, style, font, text, 0, &width, NULL);
  return width;
}

static char *
truncated (const char *text,
           glong       n_chars,
           const char *suffix)
{
  g_autofree char *head = g_strndup (text, g_utf8_offset_to_pointer (text, n_chars) - text);

  return g_strconcat (g_strchomp (head), "…", suffix, NULL);
}

char *
hr_chart_text_ellipsize (PangoContext       *context,
                         const HrChartStyle *style,
                         HrChartFont         font,
                         const char         *text,
                         const char         *suffix,
                         double              max_width)
{
  g_autofree char *whole = NULL;
  g_autofree char *shortest = NULL;
  glong lo = 0, hi;

  g_return_val_if_fail (text != NULL, NULL);

  if (suffix == NULL)
    suffix = "";

  whole = g_strconcat (text, suffix, NULL);
  if (text_width (context, style, font, whole) <= max_width)
    return g_steal_pointer (&whole);

  shortest = truncated (text, 0, suffix);
  if (suffix[0] != '\0' && text_width (context, style, font, shortest) > max_width)
    return hr_chart_text_ellipsize (context, style, font, text, "", max_width);

  /* the longest start of @text that fits, by bisection */
  hi = g_utf8_strlen (text, -1);
  while (lo < hi)
    {
      glong mid = (lo + hi + 1) / 2;
      g_autofree char *candidate = truncated (text, mid, suffix);

      if (text_width (context, style, font, candidate) <= max_width)
        lo = mid;
      else
        hi = mid - 1;
    }
  return truncated (text, lo, suffix);
}

HrChartLabel
hr_chart_label_new (PangoContext       *context,
                    const HrChartStyle *style,
                    char               *text,
                    HrChartFont         font,
                    HrChartTextRole     role,
                    HrAlign             align,
                    double              max_width,
                    double              x,
                    double              y)
{
  HrChartLabel label = { 0 };

  label.text = text;
  label.font = font;
  label.color_role = role;
  label.align = align;
  label.max_width = max_width;
  hr_chart_label_place (context, style, &label, x, y);
  return label;
}

static PangoAlignment
pango_alignment (HrAlign align)
{
  switch (align)
    {
    case HR_ALIGN_CENTER:
      return PANGO_ALIGN_CENTER;
    case HR_ALIGN_END:
      return PANGO_ALIGN_RIGHT;
    case HR_ALIGN_START:
    default:
      return PANGO_ALIGN_LEFT;
    }
}

/* ---- the text sink ---- */

typedef struct {
  char    *text;
  double   x;          /* the anchor, in device units */
  double   baseline;
  double   size;       /* the font's em, in device units */
  HrAlign  anchor;
  gboolean bold;
  char    *family;
  HrRgba   color;
} SinkLine;

struct _HrChartTextSink {
  GArray *lines;       /* SinkLine */
  GHashTable *families;  /* asked family → what fontconfig gives */
};

static const cairo_user_data_key_t sink_key;

static void
sink_line_clear (gpointer data)
{
  SinkLine *line = data;

  g_free (line->text);
  g_free (line->family);
}

HrChartTextSink *
hr_chart_text_sink_new (void)
{
  HrChartTextSink *sink = g_new0 (HrChartTextSink, 1);

  sink->lines = g_array_new (FALSE, TRUE, sizeof (SinkLine));
  g_array_set_clear_func (sink->lines, sink_line_clear);
  sink->families = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return sink;
}

void
hr_chart_text_sink_free (HrChartTextSink *sink)
{
  if (sink == NULL)
    return;
  g_array_unref (sink->lines);
  g_hash_table_unref (sink->families);
  g_free (sink);
}

void
hr_chart_text_sink_attach (HrChartTextSink *sink,
                           cairo_t         *cr)
{
  g_return_if_fail (sink != NULL && cr != NULL);
  cairo_set_user_data (cr, &sink_key, sink, NULL);
}

guint
hr_chart_text_sink_get_n (HrChartTextSink *sink)
{
  g_return_val_if_fail (sink != NULL, 0);
  return sink->lines->len;
}

/* The family fontconfig draws @family with ("Sans" is DejaVu Sans here),
 * so that the SVG names the face the layout was measured in. */
static const char *
resolved_family (HrChartTextSink *sink,
                 PangoContext    *context,
                 const char      *family)
{
  const char *known = g_hash_table_lookup (sink->families, family);

  if (known == NULL)
    {
      PangoFontDescription *desc = pango_font_description_from_string (family);
      PangoFont *font;
      char *name = NULL;

      pango_font_description_set_size (desc, 10 * PANGO_SCALE);
      font = pango_context_load_font (context, desc);
      if (font != NULL)
        {
          PangoFontDescription *got = pango_font_describe (font);

          name = g_strdup (pango_font_description_get_family (got));
          pango_font_description_free (got);
          g_object_unref (font);
        }
      pango_font_description_free (desc);
      known = name != NULL ? name : g_strdup (family);
      g_hash_table_insert (sink->families, g_strdup (family), (gpointer) known);
    }
  return known;
}

/* Records @layout's lines, drawn with its top-left corner at the current
 * user-space (x, y) and aligned in a box @box_width wide (0: as laid out). */
static void
sink_layout (HrChartTextSink    *sink,
             cairo_t            *cr,
             const HrChartStyle *style,
             PangoLayout        *layout,
             const HrRgba       *color,
             double              x,
             double              y,
             HrAlign             align,
             double              box_width)
{
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  const char *text = pango_layout_get_text (layout);
  const PangoFontDescription *desc = pango_layout_get_font_description (layout);
  double size = pango_font_description_get_size (desc) / (double) PANGO_SCALE *
                HR_CHART_DPI / 72.0;
  double dx = 0, dy = size;
  const char *family = resolved_family (sink, pango_layout_get_context (layout),
                                        style->font_family);

  cairo_user_to_device_distance (cr, &dx, &dy);
  do
    {
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (iter);
      PangoRectangle logical;
      SinkLine out = { 0 };
      double ax, ay;
      g_autofree char *piece = NULL;

      if (line->length <= 0)
        continue;
      piece = g_strndup (text + line->start_index, line->length);
      g_strchomp (piece);
      if (piece[0] == '\0')
        continue;

      pango_layout_iter_get_line_extents (iter, NULL, &logical);
      ay = y + pango_layout_iter_get_baseline (iter) / (double) PANGO_SCALE;
      /* anchored as aligned, so text in another font stays in place */
      if (box_width > 0 && align == HR_ALIGN_CENTER)
        ax = x + box_width / 2;
      else if (box_width > 0 && align == HR_ALIGN_END)
        ax = x + box_width;
      else if (align == HR_ALIGN_CENTER)
        ax = x + (logical.x + logical.width / 2.0) / PANGO_SCALE;
      else if (align == HR_ALIGN_END)
        ax = x + (logical.x + logical.width) / (double) PANGO_SCALE;
      else
        ax = x + logical.x / (double) PANGO_SCALE;

      cairo_user_to_device (cr, &ax, &ay);
      out.text = g_steal_pointer (&piece);
      out.x = ax;
      out.baseline = ay;
      out.size = hypot (dx, dy);
      out.anchor = align;
      out.bold = pango_font_description_get_weight (desc) >= PANGO_WEIGHT_BOLD;
      out.family = g_strdup (family);
      out.color = *color;
      g_array_append_val (sink->lines, out);
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

static void
append_number (GString *svg,
               double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  /* two decimals of a pixel are finer than any screen or print */
  g_string_append (svg, g_ascii_formatd (buffer, sizeof buffer, "%.2f", value));
}

void
hr_chart_text_sink_write_svg (HrChartTextSink *sink,
                              GString         *svg)
{
  g_return_if_fail (sink != NULL && svg != NULL);

  for (guint i = 0; i < sink->lines->len; i++)
    {
      const SinkLine *line = &g_array_index (sink->lines, SinkLine, i);
      g_autofree char *text = g_markup_escape_text (line->text, -1);
      g_autofree char *family = g_markup_escape_text (line->family, -1);
      const char *generic = strstr (family, "Serif") != NULL && strstr (family, "Sans") == NULL
                              ? "serif" : strstr (family, "Mono") != NULL ? "monospace"
                                                                          : "sans-serif";

      g_string_append (svg, "<text x=\"");
      append_number (svg, line->x);
      g_string_append (svg, "\" y=\"");
      append_number (svg, line->baseline);
      g_string_append_printf (svg, "\" font-family=\"%s, %s\" font-size=\"", family, generic);
      append_number (svg, line->size);
      g_string_append_printf (svg, "\"%s fill=\"#%02X%02X%02X\"",
                              line->bold ? " font-weight=\"bold\"" : "",
                              (guint) round (CLAMP (line->color.red, 0, 1) * 255),
                              (guint) round (CLAMP (line->color.green, 0, 1) * 255),
                              (guint) round (CLAMP (line->color.blue, 0, 1) * 255));
      if (line->color.alpha < 1)
        {
          g_string_append (svg, " fill-opacity=\"");
          append_number (svg, line->color.alpha);
          g_string_append_c (svg, '"');
        }
      if (line->anchor == HR_ALIGN_CENTER)
        g_string_append (svg, " text-anchor=\"middle\"");
      else if (line->anchor == HR_ALIGN_END)
        g_string_append (svg, " text-anchor=\"end\"");
      g_string_append_printf (svg, " xml:space=\"preserve\">%s</text>\n", text);
    }
}

/* ---- drawing ---- */

/* Shows @layout with its top-left corner at (x, y): as glyphs, or into
 * the sink attached to @cr. */
static void
show_layout (cairo_t            *cr,
             const HrChartStyle *style,
             PangoLayout        *layout,
             const HrRgba       *color,
             double              x,
             double              y,
             HrAlign             align,
             double              box_width)
{
  HrChartTextSink *sink = cairo_get_user_data (cr, &sink_key);

  if (sink != NULL)
    {
      sink_layout (sink, cr, style, layout, color, x, y, align, box_width);
      return;
    }
  cairo_save (cr);
  hr_chart_set_color (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
  /* showing text leaves a current point behind */
  cairo_new_path (cr);
}

static const cairo_user_data_key_t context_key;

typedef struct {
  PangoContext *context;
  gboolean      follows_cr;   /* made for @cr: follows its transformation */
} DrawContext;

static void
draw_context_free (gpointer data)
{
  DrawContext *d = data;

  g_object_unref (d->context);
  g_free (d);
}

void
hr_chart_text_draw_with (cairo_t      *cr,
                         PangoContext *context)
{
  DrawContext *d;

  g_return_if_fail (cr != NULL && PANGO_IS_CONTEXT (context));

  d = g_new0 (DrawContext, 1);
  d->context = g_object_ref (context);
  if (cairo_set_user_data (cr, &context_key, d, draw_context_free) != CAIRO_STATUS_SUCCESS)
    draw_context_free (d);
}

/* A layout for @cr: text from pango-cairo, as pango_cairo_create_layout()
 * makes it (DESIGN.md), measured exactly as the layout step measured it.
 * The context is the layout step's when the chart drew with one (its
 * fonts are loaded already, and metrics do not hint, so they hold at any
 * scale), else one made once for @cr and kept on it. */
static PangoLayout *
cairo_layout (cairo_t            *cr,
              const HrChartStyle *style,
              HrChartFont         font,
              const char         *text,
              double              max_width)
{
  DrawContext *d = cairo_get_user_data (cr, &context_key);
  PangoLayout *layout;

  if (d == NULL)
    {
      PangoContext *context = pango_cairo_create_context (cr);

      setup_context (context);
      layout = pango_layout_new (context);
      d = g_new0 (DrawContext, 1);
      d->context = context;
      d->follows_cr = TRUE;
      /* kept for the next label; without memory for that, not kept */
      if (cairo_set_user_data (cr, &context_key, d, draw_context_free) != CAIRO_STATUS_SUCCESS)
        draw_context_free (d);
    }
  else
    {
      /* a scale or a rotation since (a translation changes nothing) */
      if (d->follows_cr)
        pango_cairo_update_context (cr, d->context);
      layout = pango_layout_new (d->context);
    }
  fill_layout (layout, style, font, text, max_width);
  return layout;
}

void
hr_chart_draw_text (cairo_t            *cr,
                    const HrChartStyle *style,
                    HrChartFont         font,
                    const HrRgba       *color,
                    const char         *text,
                    double              x,
                    double              y,
                    double              max_width,
                    HrAlign             align)
{
  g_autoptr(PangoLayout) layout = cairo_layout (cr, style, font, text, max_width);
  PangoRectangle logical;
  double left;

  pango_layout_get_extents (layout, NULL, &logical);
  if (max_width > 0)
    {
      /* aligned within the wrap width, which starts at x */
      pango_layout_set_alignment (layout, pango_alignment (align));
      show_layout (cr, style, layout, color, x, y, align, max_width);
      return;
    }
  left = x;
  if (align == HR_ALIGN_CENTER)
    left -= (double) logical.width / PANGO_SCALE / 2;
  else if (align == HR_ALIGN_END)
    left -= (double) logical.width / PANGO_SCALE;
  show_layout (cr, style, layout, color, left - (double) logical.x / PANGO_SCALE, y, align, 0);
}

void
hr_chart_draw_label (cairo_t            *cr,
                     const HrChartStyle *style,
                     const HrChartLabel *label,
                     const HrRgba       *fill)
{
  HrRgba color;

  if (label->text == NULL || label->text[0] == '\0')
    return;

  switch (label->color_role)
    {
    case HR_TEXT_MUTED:
      color = style->muted;
      break;
    case HR_TEXT_GOOD:
      color = style->good;
      break;
    case HR_TEXT_BAD:
      color = style->bad;
      break;
    case HR_TEXT_ACCENT:
      color = style->accent;
      break;
    case HR_TEXT_ON_FILL:
      color = hr_chart_text_color_on (fill != NULL ? fill : &style->background);
      break;
    case HR_TEXT_FOREGROUND:
    default:
      color = style->foreground;
      break;
    }
  hr_chart_draw_label_colored (cr, style, label, &color);
}

void
hr_chart_draw_label_colored (cairo_t            *cr,
                             const HrChartStyle *style,
                             const HrChartLabel *label,
                             const HrRgba       *color)
{
  if (label->text == NULL || label->text[0] == '\0')
    return;

  /* The box is already where the text goes.  A wrapped label is laid out
   * at its box's width (the widest line it was measured with), so its lines
   * break as measured and align inside the box. */
  if (label->max_width > 0)
    {
      g_autoptr(PangoLayout) layout = cairo_layout (cr, style, label->font, label->text, 0);

      pango_layout_set_width (layout, (int) ceil ((label->box.width + 0.5) * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_set_alignment (layout, pango_alignment (label->align));
      show_layout (cr, style, layout, color, label->box.x, label->box.y, label->align,
                   label->box.width);
    }
  else
    hr_chart_draw_text (cr, style, label->font, color, label->text, label->box.x, label->box.y, 0,
                        HR_ALIGN_START);
}

void
hr_chart_draw_label_halo (cairo_t            *cr,
                          const HrChartStyle *style,
                          const HrChartLabel *label)
{
  const double pad = 2.0;
  HrRgba halo = style->background;

  if (style->transparent || label->text == NULL)
    return;

  halo.alpha = 0.85;
  cairo_save (cr);
  cairo_new_path (cr);
  cairo_rectangle (cr, label->box.x - pad, label->box.y, label->box.width + 2 * pad,
                   label->box.height);
  hr_chart_set_color (cr, &halo);
  cairo_fill (cr);
  cairo_restore (cr);
}

char *
hr_chart_format_bytes (double bytes)
{
  const double gib = 1024.0 * 1024.0 * 1024.0;

  if (bytes >= 100 * gib)
    return g_strdup_printf ("%.0f GiB", bytes / gib);
  if (bytes >= gib)
    return g_strdup_printf ("%.1f GiB", bytes / gib);
  if (bytes >= 1024.0 * 1024.0)
    return g_strdup_printf ("%.0f MiB", bytes / (1024.0 * 1024.0));
  return g_strdup_printf ("%.0f KiB", bytes / 1024.0);
}
