/* hr-chart-size.c: figure sizes in physical units, and the fonts that suit
 * them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "hr-chart-size.h"
#include "hr-json.h"

#define PX_PER_IN 96.0
#define PX_PER_CM (96.0 / 2.54)
#define PX_PER_PT (96.0 / 72.0)

const HrEnumName hr_chart_size_names[] = {
  { HR_CHART_SIZE_SCREEN, "screen" },
  { HR_CHART_SIZE_COLUMN, "column" },
  { HR_CHART_SIZE_DOUBLE, "double" },
  { HR_CHART_SIZE_SLIDE, "slide" },
  { HR_CHART_SIZE_POSTER, "poster" },
  { HR_CHART_SIZE_CUSTOM, "custom" },
  { 0, NULL },
};

const HrEnumName hr_length_unit_names[] = {
  { HR_LENGTH_PX, "px" },
  { HR_LENGTH_IN, "in" },
  { HR_LENGTH_CM, "cm" },
  { HR_LENGTH_MM, "mm" },
  { HR_LENGTH_PT, "pt" },
  { 0, NULL },
};

/* The presets.  Widths are the ones journals and templates ask for: a
 * column of a two-column paper is 3.3 to 3.5 in (IEEE 3.5 in, ACM 3.33
 * in), both columns about 7 in; a 16:9 slide is 13.33 × 7.5 in (the size
 * PowerPoint and Google Slides use).  The fonts are what stays readable
 * once printed at that size: 7 pt body and 6.5 pt ticks at a column's
 * width (journals ask for at least 6 pt), 8 pt across a page, and sizes a
 * room or a poster's reader at two metres can read. */
static const HrChartSize presets[] = {
  [HR_CHART_SIZE_SCREEN] = { HR_CHART_SIZE_SCREEN, 1280, 800, HR_LENGTH_PX,
                             9.5, 8.0, 12.5, 1.0, 2.0, 1.0, 96 },
  [HR_CHART_SIZE_COLUMN] = { HR_CHART_SIZE_COLUMN, 3.5 * PX_PER_IN, 2.5 * PX_PER_IN, HR_LENGTH_IN,
                             7.0, 6.5, 8.0, 0.62, 1.3, 0.6, 300 },
  [HR_CHART_SIZE_DOUBLE] = { HR_CHART_SIZE_DOUBLE, 7.0 * PX_PER_IN, 3.5 * PX_PER_IN, HR_LENGTH_IN,
                             8.0, 7.0, 9.5, 0.75, 1.5, 0.75, 300 },
  [HR_CHART_SIZE_SLIDE] = { HR_CHART_SIZE_SLIDE, 1280, 720, HR_LENGTH_IN,
                            16.0, 14.0, 22.0, 1.5, 3.0, 1.5, 192 },
  [HR_CHART_SIZE_POSTER] = { HR_CHART_SIZE_POSTER, 16.0 * PX_PER_IN, 10.0 * PX_PER_IN, HR_LENGTH_IN,
                             24.0, 20.0, 32.0, 2.2, 4.5, 2.0, 200 },
};

void
hr_chart_size_init_preset (HrChartSize       *size,
                           HrChartSizePreset  preset)
{
  g_return_if_fail (size != NULL);
  g_return_if_fail (preset < G_N_ELEMENTS (presets));

  *size = presets[preset];
}

void
hr_chart_size_init_custom (HrChartSize  *size,
                           double        width,
                           double        height,
                           HrLengthUnit  unit)
{
  HrChartSizePreset fonts;

  g_return_if_fail (size != NULL);

  /* A figure narrower than halfway between a column and a page reads like
   * a column; one up to 10 in like a page; wider, like the screen. */
  if (width < 5.25 * PX_PER_IN)
    fonts = HR_CHART_SIZE_COLUMN;
  else if (width < 10 * PX_PER_IN)
    fonts = HR_CHART_SIZE_DOUBLE;
  else
    fonts = HR_CHART_SIZE_SCREEN;

  *size = presets[fonts];
  size->preset = HR_CHART_SIZE_CUSTOM;
  size->width = width;
  size->height = height;
  size->unit = unit;
  if (unit == HR_LENGTH_PX)
    size->dpi = 96;
}

void
hr_chart_style_apply_size (HrChartStyle      *style,
                           const HrChartSize *size)
{
  g_return_if_fail (style != NULL);
  g_return_if_fail (size != NULL);

  style->font_size = size->font_size;
  style->small_size = size->small_size;
  style->title_size = size->title_size;
  style->spacing = size->spacing;
  /* Print keeps its thinner rules, in proportion. */
  if (style->theme == HR_CHART_THEME_PRINT)
    {
      style->line_width = size->line_width * 0.65;
      style->thin_line_width = size->thin_line_width * 0.6;
    }
  else
    {
      style->line_width = size->line_width;
      style->thin_line_width = size->thin_line_width;
    }
  style->corner_radius = MAX (1.0, 4.0 * size->spacing);
}

static double
px_per (HrLengthUnit unit)
{
  switch (unit)
    {
    case HR_LENGTH_IN:
      return PX_PER_IN;
    case HR_LENGTH_CM:
      return PX_PER_CM;
    case HR_LENGTH_MM:
      return PX_PER_CM / 10;
    case HR_LENGTH_PT:
      return PX_PER_PT;
    case HR_LENGTH_PX:
    default:
      return 1;
    }
}

gboolean
hr_chart_length_parse (const char    *text,
                       const char    *what,
                       double        *pixels,
                       HrLengthUnit  *unit_out,
                       GError       **error)
{
  static const struct {
    const char   *name;
    HrLengthUnit  unit;
  } units[] = {
    { "px", HR_LENGTH_PX }, { "in", HR_LENGTH_IN }, { "inch", HR_LENGTH_IN },
    { "inches", HR_LENGTH_IN }, { "\"", HR_LENGTH_IN }, { "cm", HR_LENGTH_CM },
    { "mm", HR_LENGTH_MM }, { "pt", HR_LENGTH_PT },
  };
  g_autofree char *suffix = NULL;
  HrLengthUnit unit = HR_LENGTH_PX;
  char *end = NULL;
  double value;
  gboolean known = FALSE;

  g_return_val_if_fail (text != NULL, FALSE);

  while (g_ascii_isspace (*text))
    text++;
  /* Locale-free: "3.5in" is 3.5 inches in every language; decimal digits
   * only (no hex floats, no "nan" or "inf") */
  if (!g_ascii_isdigit (*text) && *text != '.' && *text != '+' && *text != '-')
    goto bad;
  value = g_ascii_strtod (text, &end);
  if (end == text)
    goto bad;
  for (const char *c = text; c < end; c++)
    if (!g_ascii_isdigit (*c) && strchr ("+-.eE", *c) == NULL)
      goto bad;
  suffix = g_ascii_strdown (end, -1);
  g_strstrip (suffix);
  if (suffix[0] == '\0')
    known = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (units) && !known; i++)
    if (g_str_equal (suffix, units[i].name))
      {
        unit = units[i].unit;
        known = TRUE;
      }
  if (!known || !isfinite (value) || !(value > 0))
    goto bad;

  if (pixels != NULL)
    *pixels = value * px_per (unit);
  if (unit_out != NULL)
    *unit_out = unit;
  return TRUE;

bad:
  {
    /* a long or unprintable text, shown short and escaped */
    g_autofree char *shown = hr_text_printable (text, MIN (strlen (text), (gsize) 40));

    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                 /* Translators: %s is an option (--width), then the text given */
                 _("%s “%s”: expected a positive length such as 1280 (pixels), 1280px, 3.5in, "
                   "8.9cm, 89mm or 252pt"), what != NULL ? what : _("length"), shown);
  }
  return FALSE;
}

double
hr_chart_length_in_unit (double       pixels,
                         HrLengthUnit unit)
{
  return pixels / px_per (unit);
}

char *
hr_chart_length_format (double       pixels,
                        HrLengthUnit unit)
{
  double v = hr_chart_length_in_unit (pixels, unit);
  int decimals = unit == HR_LENGTH_PX || unit == HR_LENGTH_PT || unit == HR_LENGTH_MM ? 0 : 2;

  /* fewer decimals where they say nothing: 3.5 in, not 3.50 in */
  while (decimals > 0 && fabs (v * pow (10, decimals - 1) - round (v * pow (10, decimals - 1)))
                         < 1e-6)
    decimals--;
  return g_strdup_printf ("%.*f %s", decimals, v, hr_enum_to_nick (hr_length_unit_names, unit));
}
