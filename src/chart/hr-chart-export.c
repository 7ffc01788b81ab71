/* hr-chart-export.c: charts to PNG, SVG and PDF
 *
 * The chart draws in logical pixels whatever the surface: a PNG surface is
 * scaled by the pixel ratio asked for (and says its resolution), an SVG is
 * drawn in px on a page that states its size in inches, centimetres or
 * pixels, and a PDF page is sized in points with a 72/96 scale, so the same
 * renderer gives the same picture, at the same physical size, everywhere.
 * An SVG's text is written as <text> from what the chart's layout placed
 * (cairo's SVG surface would write glyph outlines), unless outlines are
 * asked for.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "hr-chart-export.h"
#include "hr-chart-png.h"
#include "hr-chart-text.h"
#include "hr-file.h"

#define POINTS_PER_PIXEL (72.0 / 96.0)

/* Each side of a PNG, in device pixels; beyond it an export is a mistake
 * (and an image surface would need gigabytes). */
#define MAX_PNG_SIDE 16384
/* 256 MiB of cairo's ARGB: a poster 16 × 10 in at 600 dpi */
#define MAX_PNG_PIXELS (64.0 * 1024 * 1024)

const HrEnumName hr_export_format_names[] = {
  { HR_EXPORT_PNG, "png" },
  { HR_EXPORT_SVG, "svg" },
  { HR_EXPORT_PDF, "pdf" },
  { 0, NULL },
};

gboolean
hr_export_format_for_path (const char     *path,
                           HrExportFormat *format)
{
  const char *dot;
  g_autofree char *ext = NULL;
  int value;

  g_return_val_if_fail (path != NULL, FALSE);

  dot = strrchr (path, '.');
  if (dot == NULL || strchr (dot, G_DIR_SEPARATOR) != NULL)
    return FALSE;

  ext = g_ascii_strdown (dot + 1, -1);
  if (!hr_enum_from_nick (hr_export_format_names, ext, &value))
    return FALSE;

  if (format != NULL)
    *format = value;
  return TRUE;
}

cairo_status_t
hr_chart_append_to_byte_array (void                *closure,
                               const unsigned char *data,
                               unsigned int         length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

void
hr_export_options_set_size (HrExportOptions   *options,
                            const HrChartSize *size,
                            double             dpi)
{
  g_return_if_fail (options != NULL && size != NULL);

  options->width = size->width;
  options->height = size->height;
  options->unit = size->unit;
  options->scale = (dpi > 0 ? dpi : size->dpi) / 96.0;
}

static void
draw_on (cairo_t            *cr,
         const HrChartStyle *style,
         double              width,
         double              height,
         HrChartDrawFunc     draw,
         gpointer            user_data)
{
  PangoContext *context = hr_chart_pango_context_new ();

  hr_chart_prepare_cairo (cr);
  draw (cr, context, style, width, height, user_data);
  g_object_unref (context);
}

/* Puts <title> and <desc> (and role="img") into cairo's SVG, so that screen
 * readers and file managers can say what the chart shows; states the
 * page's size in @unit; and adds the text @sink recorded as <text>. */
static GBytes *
svg_finish (GByteArray            *svg,
            const HrExportOptions *options,
            HrChartTextSink       *sink)
{
  static const char role[] = " role=\"img\" aria-labelledby=\"hr-title hr-desc\"";
  GString *out = g_string_new_len ((const char *) svg->data, svg->len);
  const char *open = strstr (out->str, "<svg");
  const char *end = open != NULL ? strchr (open, '>') : NULL;
  g_autofree char *t = g_markup_escape_text (options->title != NULL ? options->title : "", -1);
  g_autofree char *d = g_markup_escape_text (options->description != NULL
                                               ? options->description : "", -1);
  g_autofree char *text = g_strdup_printf ("\n<title id=\"hr-title\">%s</title>\n<desc "
                                           "id=\"hr-desc\">%s</desc>",
                                           t, d);
  gsize length;

  if (end != NULL)
    {
      gsize open_at = open - out->str, insert_at = end - out->str;
      g_autofree char *tag = g_strndup (open, end - open);
      const char *w = strstr (tag, " width=\"");
      const char *h = strstr (tag, " height=\"");

      g_string_insert (out, insert_at, role);
      g_string_insert (out, insert_at + strlen (role) + 1, text);

      /* width="336px" height="240px" → width="3.5in" height="2.5in": the
       * page's physical size, the viewBox still in pixels */
      if (w != NULL && h != NULL && strchr (w + 8, '"') != NULL && strchr (h + 9, '"') != NULL)
        {
          char wb[G_ASCII_DTOSTR_BUF_SIZE], hb[G_ASCII_DTOSTR_BUF_SIZE];
          const char *unit = hr_enum_to_nick (hr_length_unit_names, options->unit);
          g_autofree char *size = NULL;
          gsize from = open_at + (w - tag), to = open_at + (strchr (h + 9, '"') - tag) + 1;

          g_ascii_formatd (wb, sizeof wb, "%.4g",
                           hr_chart_length_in_unit (options->width, options->unit));
          g_ascii_formatd (hb, sizeof hb, "%.4g",
                           hr_chart_length_in_unit (options->height, options->unit));
          size = g_strdup_printf (" width=\"%s%s\" height=\"%s%s\"", wb, unit, hb, unit);
          if (w < h)
            {
              g_string_erase (out, from, to - from);
              g_string_insert (out, from, size);
            }
        }
    }

  if (sink != NULL && hr_chart_text_sink_get_n (sink) > 0)
    {
      const char *close = g_strrstr (out->str, "</svg>");

      if (close != NULL)
        {
          GString *texts = g_string_new ("<g id=\"hr-text\">\n");
          gsize at = close - out->str;

          hr_chart_text_sink_write_svg (sink, texts);
          g_string_append (texts, "</g>\n");
          g_string_insert (out, at, texts->str);
          g_string_free (texts, TRUE);
        }
    }

  length = out->len;
  return g_bytes_new_take (g_string_free (out, FALSE), length);
}

GBytes *
hr_chart_export_bytes (const HrExportOptions *options,
                       const HrChartStyle    *style,
                       HrChartDrawFunc        draw,
                       gpointer               user_data,
                       GError               **error)
{
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  g_autoptr(HrChartTextSink) sink = NULL;
  GBytes *png = NULL;
  cairo_surface_t *surface = NULL;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (options != NULL, NULL);
  g_return_val_if_fail (style != NULL, NULL);
  g_return_val_if_fail (draw != NULL, NULL);

  if (!(options->width >= 16 && options->height >= 16 && options->width <= MAX_PNG_SIDE &&
        options->height <= MAX_PNG_SIDE))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("a chart must be between 16 and %d pixels on each side, not %g × %g"),
                   MAX_PNG_SIDE, options->width, options->height);
      return NULL;
    }

  switch (options->format)
    {
    case HR_EXPORT_PNG:
      {
        double scale = options->scale > 0 ? options->scale : 1.0;
        int w = MAX (1, (int) round (options->width * scale));
        int h = MAX (1, (int) round (options->height * scale));

        if (w > MAX_PNG_SIDE || h > MAX_PNG_SIDE)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("%d × %d pixels is larger than the %d pixels a side a PNG export "
                           "allows"),
                         w, h, MAX_PNG_SIDE);
            return NULL;
          }
        if ((double) w * h > MAX_PNG_PIXELS)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("%d × %d pixels is more than the 64 million a PNG export allows"),
                         w, h);
            return NULL;
          }

        surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
        cr = cairo_create (surface);
        cairo_scale (cr, scale, scale);
        draw_on (cr, style, options->width, options->height, draw, user_data);
        cairo_destroy (cr);
        status = cairo_surface_status (surface);
        if (status == CAIRO_STATUS_SUCCESS)
          {
            /* a chart that paints its background leaves no pixel clear */
            png = hr_chart_png_encode (surface, !style->transparent, 96.0 * scale,
                                       options->title, options->description);
            if (png == NULL)
              status = CAIRO_STATUS_NO_MEMORY;
          }
      }
      break;

    case HR_EXPORT_SVG:
      surface = cairo_svg_surface_create_for_stream (hr_chart_append_to_byte_array, buffer,
                                                     options->width, options->height);
      cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PX);
      cr = cairo_create (surface);
      if (!options->text_as_outlines)
        {
          sink = hr_chart_text_sink_new ();
          hr_chart_text_sink_attach (sink, cr);
        }
      draw_on (cr, style, options->width, options->height, draw, user_data);
      cairo_destroy (cr);
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
      break;

    case HR_EXPORT_PDF:
      {
        g_autofree char *creator = g_strdup_printf ("Headroom %s", PACKAGE_VERSION);

        surface = cairo_pdf_surface_create_for_stream (hr_chart_append_to_byte_array, buffer,
                                                       options->width * POINTS_PER_PIXEL,
                                                       options->height * POINTS_PER_PIXEL);
        if (options->title != NULL)
          cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, options->title);
        if (options->description != NULL)
          cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT,
                                          options->description);
        cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, creator);
        cr = cairo_create (surface);
        cairo_scale (cr, POINTS_PER_PIXEL, POINTS_PER_PIXEL);
        draw_on (cr, style, options->width, options->height, draw, user_data);
        cairo_destroy (cr);
        cairo_surface_finish (surface);
        status = cairo_surface_status (surface);
      }
      break;

    default:
      g_return_val_if_reached (NULL);
    }

  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("drawing the chart failed: %s"),
                   cairo_status_to_string (status));
      return NULL;
    }

  if (options->format == HR_EXPORT_SVG)
    return svg_finish (buffer, options, sink);
  if (options->format == HR_EXPORT_PNG)
    return png;

  return g_byte_array_free_to_bytes (g_steal_pointer (&buffer));
}

gboolean
hr_chart_export (const char            *path,
                 const HrExportOptions *options,
                 const HrChartStyle    *style,
                 HrChartDrawFunc        draw,
                 gpointer               user_data,
                 GError               **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize size = 0;
  const char *data;

  g_return_val_if_fail (path != NULL, FALSE);

  bytes = hr_chart_export_bytes (options, style, draw, user_data, &local_error);
  if (bytes == NULL)
    {
      g_set_error (error, local_error->domain, local_error->code, "%s: %s", path,
                   local_error->message);
      return FALSE;
    }

  /* A temporary file renamed over the target: an interrupted export never
   * leaves half a file, and an earlier one survives a failure. */
  data = g_bytes_get_data (bytes, &size);
  return hr_file_write_atomic (path, data, size, error);
}
