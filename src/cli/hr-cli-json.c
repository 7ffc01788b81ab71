/* hr-cli-json.c: headroom-cli's JSON, a member at a time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "hr-cli-json.h"
#include "hr-core.h"

void
hr_cli_json_int (JsonBuilder *builder,
                 const char  *name,
                 gint64       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

void
hr_cli_json_double (JsonBuilder *builder,
                    const char  *name,
                    double       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_double_value (builder, value);
}

void
hr_cli_json_bool (JsonBuilder *builder,
                  const char  *name,
                  gboolean     value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_boolean_value (builder, value);
}

void
hr_cli_json_string (JsonBuilder *builder,
                    const char  *name,
                    const char  *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

void
hr_cli_json_begin_object (JsonBuilder *builder,
                          const char  *name)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
}

void
hr_cli_json_begin_array (JsonBuilder *builder,
                         const char  *name)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
}

/* ---- JSON written as it goes ---- */

void
hr_cli_writer_init (HrCliWriter *j,
                    FILE        *out)
{
  memset (j, 0, sizeof *j);
  j->out = out;
  j->buf = g_string_sized_new (1 << 17);
}

void
hr_cli_writer_finish (HrCliWriter *j)
{
  hr_cli_writer_flush (j);
  g_string_free (j->buf, TRUE);
  j->buf = NULL;
  fflush (j->out);
}

/* What is written so far, out. */
void
hr_cli_writer_flush (HrCliWriter *j)
{
  fwrite (j->buf->str, 1, j->buf->len, j->out);
  g_string_truncate (j->buf, 0);
}

static void
json_indent (HrCliWriter *j)
{
  g_string_append_c (j->buf, '\n');
  for (guint i = 0; i < j->depth; i++)
    g_string_append (j->buf, "  ");
}

/* What goes before a value: nothing after a member's name, else the
 * separator and a new line. */
static void
json_before_value (HrCliWriter *j)
{
  if (j->buf->len >= 1 << 16)
    hr_cli_writer_flush (j);
  if (j->after_member)
    {
      j->after_member = FALSE;
      return;
    }
  if (j->depth == 0)
    return;
  if (!j->empty[j->depth])
    g_string_append_c (j->buf, ',');
  j->empty[j->depth] = FALSE;
  json_indent (j);
}

static void
json_text (HrCliWriter *j,
           const char  *text)
{
  g_autofree char *shown = NULL;

  /* A file's name may not be UTF-8: shown escaped, as messages show it. */
  if (!g_utf8_validate (text, -1, NULL))
    text = shown = hr_text_printable (text, -1);

  g_string_append_c (j->buf, '"');
  for (const char *c = text; *c != '\0'; c = g_utf8_next_char (c))
    {
      gunichar ch = g_utf8_get_char (c);

      switch (ch)
        {
        case '"':
          g_string_append (j->buf, "\\\"");
          break;
        case '\\':
          g_string_append (j->buf, "\\\\");
          break;
        case '\n':
          g_string_append (j->buf, "\\n");
          break;
        case '\t':
          g_string_append (j->buf, "\\t");
          break;
        case '\r':
          g_string_append (j->buf, "\\r");
          break;
        default:
          /* What could drive a terminal is escaped here, as main.c's
           * filter escapes it in text: control characters, C1 controls,
           * line and paragraph separators, direction overrides. */
          if (ch < 0x20 || ch == 0x7F || (ch >= 0x80 && ch < 0xA0) || ch == 0x2028 ||
              ch == 0x2029 || (ch >= 0x202A && ch <= 0x202E) || (ch >= 0x2066 && ch <= 0x2069))
            g_string_append_printf (j->buf, "\\u%04x", ch);
          else
            g_string_append_len (j->buf, c, g_utf8_next_char (c) - c);
        }
    }
  g_string_append_c (j->buf, '"');
}

void
hr_cli_writer_open (HrCliWriter *j,
                    char         bracket)
{
  json_before_value (j);
  g_string_append_c (j->buf, bracket);
  g_assert (j->depth + 1 < HR_CLI_WRITER_MAX_DEPTH);
  j->depth++;
  j->empty[j->depth] = TRUE;
}

void
hr_cli_writer_close (HrCliWriter *j,
                     char         bracket)
{
  j->depth--;
  json_indent (j);
  g_string_append_c (j->buf, bracket);
  if (j->depth == 0)
    g_string_append_c (j->buf, '\n');
}

void
hr_cli_writer_member (HrCliWriter *j,
                      const char  *name)
{
  if (!j->empty[j->depth])
    g_string_append_c (j->buf, ',');
  j->empty[j->depth] = FALSE;
  json_indent (j);
  json_text (j, name);
  g_string_append (j->buf, " : ");
  j->after_member = TRUE;
}

void
hr_cli_writer_add_string (HrCliWriter *j,
                          const char  *value)
{
  json_before_value (j);
  if (value == NULL)
    g_string_append (j->buf, "null");
  else
    json_text (j, value);
}

void
hr_cli_writer_add_int (HrCliWriter *j,
                       gint64       value)
{
  char digits[24];
  guint n = 0;
  guint64 magnitude = value < 0 ? -(guint64) value : (guint64) value;

  json_before_value (j);
  if (value < 0)
    g_string_append_c (j->buf, '-');
  do
    {
      digits[n++] = '0' + magnitude % 10;
      magnitude /= 10;
    }
  while (magnitude > 0);
  while (n > 0)
    g_string_append_c (j->buf, digits[--n]);
}

void
hr_cli_writer_add_bool (HrCliWriter *j,
                        gboolean     value)
{
  json_before_value (j);
  g_string_append (j->buf, value ? "true" : "false");
}

void
hr_cli_writer_add_null (HrCliWriter *j)
{
  json_before_value (j);
  g_string_append (j->buf, "null");
}

/* @value as "%.{n}g" writes it, n its fewest significant digits that read
 * back the same, when it is a whole number of thousandths below 10^9 in
 * size (a log's times): then no decimal of fewer digits lies within half
 * a unit in the last place of it, and the thousandths are those digits.
 * FALSE for any other value. */
static gboolean
format_thousandths (double  value,
                    char   *out)
{
  char digits[24];
  gint64 k;
  guint n = 0, len, i;
  int exponent;
  char *o = out;

  if (!(fabs (value) < 1e9) || value == 0)
    return FALSE;
  k = (gint64) llround (value * 1000);
  if ((double) k / 1000 != value)
    return FALSE;

  if (k < 0)
    {
      *o++ = '-';
      k = -k;
    }
  for (gint64 rest = k; rest > 0; rest /= 10)
    digits[n++] = '0' + rest % 10;
  /* digits[] is least significant first; the leading one is 10^exponent */
  exponent = (int) n - 1 - 3;
  for (i = 0; i < n && digits[i] == '0'; i++)
    ;
  len = n - i;                 /* significant digits, trailing zeros dropped */

  if (exponent >= -4 && exponent < (int) len)
    {
      if (exponent < 0)
        {
          *o++ = '0';
          *o++ = '.';
          for (int z = -1; z > exponent; z--)
            *o++ = '0';
        }
      for (int d = (int) n - 1; d >= (int) i; d--)
        {
          *o++ = digits[d];
          if ((int) n - 1 - d == exponent && d > (int) i)
            *o++ = '.';
        }
    }
  else
    {
      int e = exponent < 0 ? -exponent : exponent;

      *o++ = digits[n - 1];
      if (len > 1)
        *o++ = '.';
      for (int d = (int) n - 2; d >= (int) i; d--)
        *o++ = digits[d];
      *o++ = 'e';
      *o++ = exponent < 0 ? '-' : '+';
      if (e >= 10)
        *o++ = '0' + e / 10;
      else
        *o++ = '0';
      *o++ = '0' + e % 10;
    }
  *o = '\0';
  return TRUE;
}

/* The shortest form that reads back the same, always with a fraction or
 * an exponent (hr-json.c writes doubles the same way). */
void
hr_cli_writer_add_double (HrCliWriter *j,
                          double       value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 2];

  if (!isfinite (value))
    {
      hr_cli_writer_add_null (j);
      return;
    }
  if (!format_thousandths (value, buf))
    hr_json_format_double (buf, value);
  json_before_value (j);
  g_string_append (j->buf, buf);
  if (strpbrk (buf, ".eE") == NULL)
    g_string_append (j->buf, ".0");
}

/* Sizes are integers of bytes; NAN is null. */
void
hr_cli_writer_int (HrCliWriter *j,
                   const char  *name,
                   double       value)
{
  hr_cli_writer_member (j, name);
  /* the readers bound every size; what is not finite is still no number */
  if (!(fabs (value) < 9e18))
    hr_cli_writer_add_null (j);
  else
    hr_cli_writer_add_int (j, (gint64) llround (value));
}

void
hr_cli_writer_double (HrCliWriter *j,
                      const char  *name,
                      double       value)
{
  hr_cli_writer_member (j, name);
  hr_cli_writer_add_double (j, value);
}

void
hr_cli_writer_nullable (HrCliWriter *j,
                        const char  *name,
                        double       value)
{
  hr_cli_writer_member (j, name);
  if (isnan (value))
    hr_cli_writer_add_null (j);
  else
    hr_cli_writer_add_double (j, value);
}

void
hr_cli_writer_string (HrCliWriter *j,
                      const char  *name,
                      const char  *value)
{
  hr_cli_writer_member (j, name);
  hr_cli_writer_add_string (j, value);
}

void
hr_cli_writer_string_or_null (HrCliWriter *j,
                              const char  *name,
                              const char  *value)
{
  hr_cli_writer_member (j, name);
  if (value != NULL)
    hr_cli_writer_add_string (j, value);
  else
    hr_cli_writer_add_null (j);
}
