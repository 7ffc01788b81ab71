/* hr-chart-png.c: an image surface to PNG, quickly
 *
 * cairo_surface_write_to_png() spent four fifths of an export in libpng:
 * it tries every filter on every row and compresses at zlib's default
 * level.  A chart is flat colour, text and lines: one filter ("Up", which
 * turns every pixel that repeats the one above it into zeros) leaves long
 * runs of one byte, and a deflate stream of runs (a literal, then copies
 * of it at distance 1) with the fixed Huffman code compresses those in
 * one pass, a seventh of zlib's fastest level's work, at about twice its
 * size (tests/bench/export-vs-matplotlib.py prints the times).
 *
 * Formats: W3C's "Portable Network Graphics (PNG) Specification (Third
 * Edition)", https://www.w3.org/TR/png-3/ (chunks §5.3, IHDR §11.2.1,
 * filters §7.3 and §9, pHYs §11.3.5.3, iTXt §11.3.3.4, the zlib stream
 * §10); RFC 1950 (the zlib header and its Adler-32) and RFC 1951 (deflate:
 * fixed Huffman codes §3.2.6, lengths and distances §3.2.5).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <math.h>
#include <string.h>
#include <zlib.h>

#include "hr-chart-png.h"

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

/* ---- a deflate stream of runs ---- */

/* RFC 1950 §8.2: Adler-32 sums bytes modulo 65521. */
#define ADLER_BASE 65521u

/* Rows go in one after the other; a run of one byte is written when it
 * ends, so runs go on from one row to the next. */
typedef struct {
  const struct _FixedCode *fixed;
  guint8   *out;
  gsize     n;
  gsize     capacity;
  guint64   bits;
  guint     n_bits;
  gboolean  in_run;
  guint8    value;      /* the run's byte */
  gsize     length;     /* and how many */
  guint64   a;          /* Adler-32's sums, reduced as they near 64 bits */
  guint64   b;
} RunEncoder;

static void
reserve (RunEncoder *e,
         gsize       more)
{
  if (e->n + more <= e->capacity)
    return;
  while (e->n + more > e->capacity)
    e->capacity = MAX (e->capacity * 2, 65536);
  e->out = g_realloc (e->out, e->capacity);
}

/* Bits go in from the least significant end (RFC 1951 §3.1.1); the
 * caller has reserved room for them. */
static inline void
put_bits (RunEncoder *e,
          guint32     value,
          guint       n)
{
  e->bits |= (guint64) value << e->n_bits;
  e->n_bits += n;
  while (e->n_bits >= 8)
    {
      e->out[e->n++] = (guint8) e->bits;
      e->bits >>= 8;
      e->n_bits -= 8;
    }
}

/* The fixed literal/length code (RFC 1951 §3.2.6), bit-reversed, since
 * Huffman codes are packed from their most significant bit. */
typedef struct _FixedCode {
  guint16 code[288];
  guint8  length[288];
} FixedCode;

static const FixedCode *
fixed_code (void)
{
  static FixedCode table;
  static gsize ready = 0;

  if (g_once_init_enter (&ready))
    {
      for (guint i = 0; i < 288; i++)
        {
          guint code, n;
          guint16 reversed = 0;

          if (i < 144)
            code = 0x30 + i, n = 8;
          else if (i < 256)
            code = 0x190 + i - 144, n = 9;
          else if (i < 280)
            code = i - 256, n = 7;
          else
            code = 0xC0 + i - 280, n = 8;
          for (guint b = 0; b < n; b++)
            reversed = (reversed << 1) | ((code >> b) & 1);
          table.code[i] = reversed;
          table.length[i] = n;
        }
      g_once_init_leave (&ready, 1);
    }
  return &table;
}

/* A copy of the byte before, @length (3 to 258) long: length codes 257 to
 * 285 with their extra bits, then distance code 0 (distance 1), five bits
 * of zeros (RFC 1951 §3.2.5). */
static inline void
put_copy (RunEncoder      *e,
          const FixedCode *fixed,
          guint            length)
{
  static const guint16 base[29] = {
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
    131, 163, 195, 227, 258,
  };
  static const guint8 extra[29] = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
  };
  int k = 28;

  while (base[k] > length)
    k--;
  put_bits (e, fixed->code[257 + k], fixed->length[257 + k]);
  if (extra[k] > 0)
    put_bits (e, length - base[k], extra[k]);
  put_bits (e, 0, 5);
}

static void
run_encoder_init (RunEncoder *e)
{
  memset (e, 0, sizeof *e);
  e->fixed = fixed_code ();
  e->a = 1;
  reserve (e, 16);
  /* the zlib header (deflate, a 32 KiB window, no dictionary, FCHECK
   * making it a multiple of 31), then BFINAL 1, BTYPE 01: one last block
   * of fixed codes */
  e->out[e->n++] = 0x78;
  e->out[e->n++] = 0x01;
  put_bits (e, 0x3, 3);
}

/* Writes the run that ended: its byte, then copies of it. */
static inline void
end_run (RunEncoder *e)
{
  const FixedCode *fixed = e->fixed;
  guint64 v = e->value, k = e->length;
  gsize run;

  if (!e->in_run)
    return;
  e->in_run = FALSE;

  /* most runs are a byte or two: no copies, Adler-32 a byte at a time */
  if (k < 3)
    {
      reserve (e, 8);
      for (guint i = 0; i < k; i++)
        {
          put_bits (e, fixed->code[v], fixed->length[v]);
          e->a += v;
          e->b += e->a;
        }
      if (e->b >= (G_GUINT64_CONSTANT (1) << 62))
        {
          e->a %= ADLER_BASE;
          e->b %= ADLER_BASE;
        }
      return;
    }

  /* nine bits for the byte, at most twenty for each copy, and two more
   * bytes at the end */
  reserve (e, 8 + (k / 258 + 1) * 3 + 4);
  put_bits (e, fixed->code[v], fixed->length[v]);
  for (run = k - 1; run >= 3;)
    {
      guint length = (guint) MIN (run, 258);

      put_copy (e, fixed, length);
      run -= length;
    }
  for (; run > 0; run--)
    put_bits (e, fixed->code[v], fixed->length[v]);

  /* Adler-32 over the run at once: k bytes of v add k·v to a, and
   * k·a + v·k(k+1)/2 to b */
  if (k <= (1u << 20))
    {
      /* a stays under 2^32, so k·a and v·k(k+1)/2 stay under 2^53 */
      e->b += k * e->a + v * (k * (k + 1) / 2);
      e->a += k * v;
      if (e->a >= (G_GUINT64_CONSTANT (1) << 32))
        e->a %= ADLER_BASE;
      if (e->b >= (G_GUINT64_CONSTANT (1) << 62))
        e->b %= ADLER_BASE;
    }
  else
    {
      guint64 km = k % ADLER_BASE, kk = k % (2 * ADLER_BASE);

      e->a %= ADLER_BASE;
      e->b = (e->b % ADLER_BASE + km * e->a +
              v * (kk * ((kk + 1) % (2 * ADLER_BASE)) / 2 % ADLER_BASE)) % ADLER_BASE;
      e->a = (e->a + km * v) % ADLER_BASE;
    }
}

static void
feed (RunEncoder   *e,
      const guint8 *data,
      gsize         n)
{
  gsize i = 0;

  while (i < n)
    {
      guint64 pattern;
      gsize j;

      if (!e->in_run || data[i] != e->value)
        {
          end_run (e);
          e->in_run = TRUE;
          e->value = data[i];
          e->length = 0;
        }
      /* the run goes on: eight bytes at a time while they repeat */
      pattern = G_GUINT64_CONSTANT (0x0101010101010101) * e->value;
      j = i;
      while (j + 8 <= n)
        {
          guint64 word;

          memcpy (&word, data + j, 8);
          if (word != pattern)
            break;
          j += 8;
        }
      while (j < n && data[j] == e->value)
        j++;
      e->length += j - i;
      i = j;
    }
}

/* Ends the stream with its Adler-32; returns the bytes, @n_out long. */
static guint8 *
run_encoder_finish (RunEncoder *e,
                    gsize      *n_out)
{
  const FixedCode *fixed = e->fixed;
  guint32 adler;

  end_run (e);
  reserve (e, 16);
  put_bits (e, fixed->code[256], fixed->length[256]);
  if (e->n_bits > 0)
    put_bits (e, 0, 8 - e->n_bits);
  adler = (guint32) (((e->b % ADLER_BASE) << 16) | (e->a % ADLER_BASE));
  e->out[e->n++] = (adler >> 24) & 0xFF;
  e->out[e->n++] = (adler >> 16) & 0xFF;
  e->out[e->n++] = (adler >> 8) & 0xFF;
  e->out[e->n++] = adler & 0xFF;
  *n_out = e->n;
  return e->out;
}

/* Row @y of an opaque image straight from the surface, less the row
 * above (the first as it is), into @line after its filter byte. */
static void
filter_opaque_row (guint8        *line,
                   const guint8  *pixels,
                   int            y,
                   int            width,
                   int            stride)
{
  const guint32 *row = (const guint32 *) (pixels + (gsize) y * stride);
  guint8 *dst = line + 1;

  if (y == 0)
    for (int x = 0; x < width; x++)
      {
        guint32 p = row[x];

        *dst++ = (guint8) (p >> 16);
        *dst++ = (guint8) (p >> 8);
        *dst++ = (guint8) p;
      }
  else
    {
      const guint32 *above = (const guint32 *) (pixels + (gsize) (y - 1) * stride);

      int x = 0;

      while (x < width)
        {
          int same = x;

          /* a stretch that repeats the row above is zeros: found
           * two pixels at a time, no arithmetic for it */
          while (same + 2 <= width)
            {
              guint64 p2, q2;

              memcpy (&p2, row + same, 8);
              memcpy (&q2, above + same, 8);
              if (p2 != q2)
                break;
              same += 2;
            }
          while (same < width && row[same] == above[same])
            same++;
          if (same > x)
            {
              memset (dst, 0, (gsize) (same - x) * 3);
              dst += (gsize) (same - x) * 3;
              x = same;
            }
          if (x < width)
            {
              guint32 p = row[x], q = above[x];

              *dst++ = (guint8) ((p >> 16) - (q >> 16));
              *dst++ = (guint8) ((p >> 8) - (q >> 8));
              *dst++ = (guint8) (p - q);
              x++;
            }
        }
    }
}

/* Each row filtered and fed to @encoder. */
static void
encode_rows (RunEncoder   *encoder,
             const guint8 *pixels,
             int           width,
             int           height,
             int           stride,
             gboolean      alpha)
{
  gsize row_bytes = (gsize) width * (alpha ? 4 : 3);
  g_autofree guint8 *line = g_malloc (row_bytes + 1);
  g_autofree guint8 *previous = g_malloc (row_bytes);
  g_autofree guint8 *current = g_malloc (row_bytes);

  /* Each row, less the row above it (the first as it is), into the runs
   * as it is made. */
  for (int y = 0; y < height; y++)
    {
      const guint32 *row = (const guint32 *) (pixels + (gsize) y * stride);
      guint8 *swap;

      line[0] = y == 0 ? FILTER_NONE : FILTER_UP;
      if (!alpha)
        {
          /* opaque: straight from the surface, less the row above */
          filter_opaque_row (line, pixels, y, width, stride);
          feed (encoder, line, row_bytes + 1);
          continue;
        }

      unpack_row (row, width, TRUE, current);
      if (y == 0)
        memcpy (line + 1, current, row_bytes);
      else
        for (gsize i = 0; i < row_bytes; i++)
          line[1 + i] = (guint8) (current[i] - previous[i]);
      feed (encoder, line, row_bytes + 1);
      swap = previous;
      previous = current;
      current = swap;
    }
}

/* IHDR: the size and the pixel format. */
static void
put_header (GByteArray *out,
            int         width,
            int         height,
            gboolean    alpha)
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

/* pHYs: the resolution, when there is one. */
static void
put_resolution (GByteArray *out,
                double      dpi)
{
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
}

GBytes *
hr_chart_png_encode (cairo_surface_t *image,
                     gboolean         opaque,
                     double           dpi,
                     const char      *title,
                     const char      *description)
{
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
  GByteArray *out;
  const guint8 *pixels;
  g_autofree guint8 *compressed = NULL;
  int width, height, stride;
  gsize compressed_size;
  gboolean alpha;
  RunEncoder encoder;

  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (cairo_surface_get_type (image) == CAIRO_SURFACE_TYPE_IMAGE, NULL);
  g_return_val_if_fail (cairo_image_surface_get_format (image) == CAIRO_FORMAT_ARGB32, NULL);

  cairo_surface_flush (image);
  pixels = cairo_image_surface_get_data (image);
  width = cairo_image_surface_get_width (image);
  height = cairo_image_surface_get_height (image);
  stride = cairo_image_surface_get_stride (image);
  g_return_val_if_fail (pixels != NULL && width > 0 && height > 0, NULL);

  alpha = !opaque && !is_opaque (pixels, width, height, stride);
  run_encoder_init (&encoder);
  encode_rows (&encoder, pixels, width, height, stride, alpha);
  compressed = run_encoder_finish (&encoder, &compressed_size);

  out = g_byte_array_sized_new (compressed_size + 256);
  g_byte_array_append (out, signature, sizeof signature);
  put_header (out, width, height, alpha);
  put_resolution (out, dpi);
  put_text (out, "Title", title);
  put_text (out, "Description", description);
  put_text (out, "Software", "Headroom " PACKAGE_VERSION);
  put_chunk (out, "IDAT", compressed, compressed_size);
  put_chunk (out, "IEND", NULL, 0);

  return g_byte_array_free_to_bytes (out);
}
