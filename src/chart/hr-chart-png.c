/* hr-chart-png.c: an image surface to PNG, quickly
 *
 * cairo_surface_write_to_png() spends most of an export's time in libpng:
 * it tries every filter on every row and compresses at zlib's default
 * level.  A chart is flat colour, text and lines, so one filter ("Up",
 * which turns every row that repeats the one above into zeros) and zlib's
 * fastest level compress it nearly as well in a fraction of the time
 * (tests/bench/export-vs-matplotlib.py prints both).  The PNG format is
 * W3C's "Portable Network Graphics (PNG) Specification (Third Edition)",
 * https://www.w3.org/TR/png-3/: chunks §5.3, IHDR §11.2.1, filters §7.3
 * and §9, pHYs §11.3.5.3, iTXt §11.3.3.4.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <math.h>
#include <string.h>
#include <zlib.h>

#include "hr-chart-png.h"

/* zlib's fastest level: the rows "Up" leaves are mostly zeros, which any
 * level finds. */
#define COMPRESSION_LEVEL 1

#define FILTER_NONE 0
#define FILTER_UP   2

static void
put_u32 (GByteArray *out,
         guint32     value)
{
  guint8 bytes[4] = { value >> 24, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF };

  g_byte_array_append (out, bytes, 4);
}

/* A chunk: length, type, data, and the CRC-32 of type and data. */
static void
put_chunk (GByteArray   *out,
           const char   *type,
           const guint8 *data,
           gsize         length)
{
  uLong crc = crc32 (0, (const Bytef *) type, 4);

  g_assert (length <= G_MAXINT32);
  put_u32 (out, (guint32) length);
  g_byte_array_append (out, (const guint8 *) type, 4);
  if (length > 0)
    {
      g_byte_array_append (out, data, (guint) length);
      crc = crc32 (crc, data, (uInt) length);
    }
  put_u32 (out, (guint32) crc);
}

static void
put_text (GByteArray *out,
          const char *keyword,
          const char *text)
{
  GByteArray *data;

  if (text == NULL || text[0] == '\0' || !g_utf8_validate (text, -1, NULL))
    return;

  /* keyword, 0, compression flag 0, method 0, language tag "", 0,
   * translated keyword "", 0, then the UTF-8 text */
  data = g_byte_array_new ();
  g_byte_array_append (data, (const guint8 *) keyword, strlen (keyword));
  g_byte_array_append (data, (const guint8 *) "\0\0\0\0\0", 5);
  g_byte_array_append (data, (const guint8 *) text, strlen (text));
  put_chunk (out, "iTXt", data->data, data->len);
  g_byte_array_unref (data);
}

static gboolean
is_opaque (const guint8 *pixels,
           int           width,
           int           height,
           int           stride)
{
  for (int y = 0; y < height; y++)
    {
      const guint32 *row = (const guint32 *) (pixels + (gsize) y * stride);

      for (int x = 0; x < width; x++)
        if ((row[x] >> 24) != 0xFF)
          return FALSE;
    }
  return TRUE;
}

/* One row as PNG samples: RGB, or RGBA with the colour no longer
 * premultiplied by alpha (cairo premultiplies, PNG does not). */
static void
unpack_row (const guint32 *row,
            int            width,
            gboolean       alpha,
            guint8        *out)
{
  for (int x = 0; x < width; x++)
    {
      guint32 p = row[x];
      guint a = p >> 24, r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF;

      if (!alpha)
        {
          *out++ = r;
          *out++ = g;
          *out++ = b;
          continue;
        }
      if (a != 0 && a != 0xFF)
        {
          r = (r * 255 + a / 2) / a;
          g = (g * 255 + a / 2) / a;
          b = (b * 255 + a / 2) / a;
        }
      *out++ = r;
      *out++ = g;
      *out++ = b;
      *out++ = a;
    }
}

GBytes *
hr_chart_png_encode (cairo_surface_t *image,
                     double           dpi,
                     const char      *title,
                     const char      *description)
{
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
  GByteArray *out;
  const guint8 *pixels;
  g_autofree guint8 *raw = NULL;
  g_autofree guint8 *previous = NULL;
  g_autofree guint8 *current = NULL;
  g_autofree guint8 *compressed = NULL;
  int width, height, stride, channels;
  gsize row_bytes, raw_size;
  gboolean alpha;
  z_stream z = { 0 };
  uLong bound;

  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (cairo_surface_get_type (image) == CAIRO_SURFACE_TYPE_IMAGE, NULL);
  g_return_val_if_fail (cairo_image_surface_get_format (image) == CAIRO_FORMAT_ARGB32, NULL);

  cairo_surface_flush (image);
  pixels = cairo_image_surface_get_data (image);
  width = cairo_image_surface_get_width (image);
  height = cairo_image_surface_get_height (image);
  stride = cairo_image_surface_get_stride (image);
  g_return_val_if_fail (pixels != NULL && width > 0 && height > 0, NULL);

  alpha = !is_opaque (pixels, width, height, stride);
  channels = alpha ? 4 : 3;
  row_bytes = (gsize) width * channels;
  raw_size = (row_bytes + 1) * height;
  raw = g_malloc (raw_size);
  previous = g_malloc (row_bytes);
  current = g_malloc (row_bytes);

  /* Each row, less the row above it (the first as it is). */
  for (int y = 0; y < height; y++)
    {
      guint8 *line = raw + (row_bytes + 1) * y;
      guint8 *swap;

      unpack_row ((const guint32 *) (pixels + (gsize) y * stride), width, alpha, current);
      if (y == 0)
        {
          line[0] = FILTER_NONE;
          memcpy (line + 1, current, row_bytes);
        }
      else
        {
          line[0] = FILTER_UP;
          for (gsize i = 0; i < row_bytes; i++)
            line[1 + i] = (guint8) (current[i] - previous[i]);
        }
      swap = previous;
      previous = current;
      current = swap;
    }

  if (deflateInit (&z, COMPRESSION_LEVEL) != Z_OK)
    return NULL;
  bound = deflateBound (&z, raw_size);
  compressed = g_malloc (bound);
  z.next_in = raw;
  z.avail_in = (uInt) raw_size;
  z.next_out = compressed;
  z.avail_out = (uInt) bound;
  if (deflate (&z, Z_FINISH) != Z_STREAM_END)
    {
      deflateEnd (&z);
      return NULL;
    }
  deflateEnd (&z);

  out = g_byte_array_sized_new (z.total_out + 256);
  g_byte_array_append (out, signature, sizeof signature);
  {
    guint8 header[13];

    header[0] = width >> 24;
    header[1] = (width >> 16) & 0xFF;
    header[2] = (width >> 8) & 0xFF;
    header[3] = width & 0xFF;
    header[4] = height >> 24;
    header[5] = (height >> 16) & 0xFF;
    header[6] = (height >> 8) & 0xFF;
    header[7] = height & 0xFF;
    header[8] = 8;                 /* bits per sample */
    header[9] = alpha ? 6 : 2;     /* truecolour with alpha, or without */
    header[10] = 0;                /* deflate */
    header[11] = 0;                /* adaptive filtering */
    header[12] = 0;                /* not interlaced */
    put_chunk (out, "IHDR", header, sizeof header);
  }
  if (dpi > 0 && isfinite (dpi))
    {
      /* pixels per metre, the same both ways, unit 1 (the metre) */
      guint32 ppm = (guint32) round (dpi / 0.0254);
      guint8 phys[9] = {
        ppm >> 24, (ppm >> 16) & 0xFF, (ppm >> 8) & 0xFF, ppm & 0xFF,
        ppm >> 24, (ppm >> 16) & 0xFF, (ppm >> 8) & 0xFF, ppm & 0xFF, 1,
      };

      put_chunk (out, "pHYs", phys, sizeof phys);
    }
  put_text (out, "Title", title);
  put_text (out, "Description", description);
  put_text (out, "Software", "Headroom " PACKAGE_VERSION);
  put_chunk (out, "IDAT", compressed, z.total_out);
  put_chunk (out, "IEND", NULL, 0);

  return g_byte_array_free_to_bytes (out);
}
