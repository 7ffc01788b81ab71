/* hr-csv-write.c: CSV cells that spreadsheets read as data, never as formulas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-csv-write"

#include <math.h>
#include <string.h>

#include "hr-csv-write.h"

gboolean
hr_csv_is_number (const char *text)
{
  const char *c = text;
  gboolean digits = FALSE;
  char *end = NULL;

  g_return_val_if_fail (text != NULL, FALSE);

  /* Only what a CSV reader takes for a number: an optional sign, digits,
   * a point, an exponent; not "inf", "nan", hex or spaces. */
  if (*c == '-' || *c == '+')
    c++;
  for (; *c != '\0'; c++)
    {
      if (g_ascii_isdigit (*c))
        digits = TRUE;
      else if (*c != '.' && *c != 'e' && *c != 'E' && *c != '-' && *c != '+')
        return FALSE;
    }
  if (!digits)
    return FALSE;

  return isfinite (g_ascii_strtod (text, &end)) && end != NULL && *end == '\0';
}

void
hr_csv_append_text (GString    *line,
                    const char *text)
{
  g_autoptr(GString) cell = NULL;
  gboolean quote;

  g_return_if_fail (line != NULL);
  g_return_if_fail (text != NULL);

  cell = g_string_new (NULL);
  if (strchr ("=+-@\t\r", text[0]) != NULL && text[0] != '\0' && !hr_csv_is_number (text))
    g_string_append_c (cell, '\'');
  g_string_append (cell, text);

  quote = strpbrk (cell->str, ",\"\r\n") != NULL ||
          (cell->len > 0 && (cell->str[0] == ' ' || cell->str[cell->len - 1] == ' '));
  if (!quote)
    {
      g_string_append_len (line, cell->str, cell->len);
      return;
    }

  g_string_append_c (line, '"');
  for (const char *c = cell->str; *c != '\0'; c++)
    {
      if (*c == '"')
        g_string_append_c (line, '"');
      g_string_append_c (line, *c);
    }
  g_string_append_c (line, '"');
}
