/* hr-chart-style.c: colours, fonts and lines shared by every chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <math.h>
#include <string.h>

#include "hr-chart-style.h"
#include "hr-chart-text.h"

const HrEnumName hr_chart_theme_names[] = {
  { HR_CHART_THEME_LIGHT, "light" },
  { HR_CHART_THEME_DARK, "dark" },
  { HR_CHART_THEME_PRINT, "print" },
  { 0, NULL },
};

static HrRgba
hex (guint32 rgb)
{
  HrRgba c = {
    ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0, (rgb & 0xFF) / 255.0, 1.0,
  };

  return c;
}

static HrRgba
hexa (guint32 rgb,
      double  alpha)
{
  HrRgba c = hex (rgb);

  c.alpha = alpha;
  return c;
}

HrChartStyle *
hr_chart_style_new (HrChartTheme theme)
{
  HrChartStyle *style = g_new0 (HrChartStyle, 1);
  /* Okabe & Ito's palette: blue, orange, bluish green, vermillion; grey for
   * the overhead, the bucket no formula predicts. */
  static const guint32 buckets[HR_N_BUCKETS] = { 0x0072B2, 0xE69F00, 0x009E73, 0xD55E00, 0x999999 };
  static const guint32 series[8] = {
    0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9, 0x000000, 0xF0E442,
  };

  style->theme = theme;

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    style->bucket[i] = hex (buckets[i]);
  for (guint i = 0; i < G_N_ELEMENTS (series); i++)
    style->series[i] = hex (series[i]);

  style->bucket_pattern[HR_BUCKET_WEIGHTS] = HR_PATTERN_SOLID;
  style->bucket_pattern[HR_BUCKET_GRADIENTS] = HR_PATTERN_DIAGONAL;
  style->bucket_pattern[HR_BUCKET_OPTIMIZER] = HR_PATTERN_BACK_DIAGONAL;
  style->bucket_pattern[HR_BUCKET_ACTIVATIONS] = HR_PATTERN_DOTS;
  style->bucket_pattern[HR_BUCKET_OVERHEAD] = HR_PATTERN_HORIZONTAL;

  /* "Sans" lets fontconfig pick the desktop's UI font (Cantarell or Adwaita
   * Sans on GNOME, DejaVu Sans where that is all there is). */
  style->font_family = g_strdup ("Sans");
  style->font_size = 9.5;
  style->small_size = 8.0;
  style->title_size = 12.5;
  style->line_width = 2.0;
  style->thin_line_width = 1.0;
  style->corner_radius = 4.0;
  style->spacing = 1.0;

  switch (theme)
    {
    case HR_CHART_THEME_LIGHT:
      /* libadwaita's light palette */
      style->background = hex (0xFFFFFF);
      style->foreground = hexa (0x000000, 0.85);
      style->muted = hex (0x5E5C64);
      style->grid = hex (0xE6E5E3);
      style->axis = hex (0x9A9996);
      style->accent = hex (0x1C71D8);
      style->good = hex (0x1F7A4D);
      style->bad = hex (0xC01C28);
      style->capacity = hex (0x241F31);
      style->reserve = hexa (0x77767B, 0.18);
      style->band = hexa (0x1C71D8, 0.16);
      style->measured = hex (0x000000);
      style->node = hex (0xF6F5F4);
      style->node_border = hex (0xC0BFBC);
      break;

    case HR_CHART_THEME_DARK:
      /* libadwaita's dark palette; the data colours are lifted a little so
       * they keep their contrast on a dark ground */
      style->background = hex (0x1E1E1E);
      style->foreground = hex (0xFFFFFF);
      style->muted = hex (0xC0BFBC);
      style->grid = hex (0x333333);
      style->axis = hex (0x77767B);
      style->accent = hex (0x78AEED);
      style->good = hex (0x57E389);
      style->bad = hex (0xFF7B63);
      style->capacity = hex (0xF6F5F4);
      style->reserve = hexa (0xC0BFBC, 0.16);
      style->band = hexa (0x78AEED, 0.20);
      style->measured = hex (0xFFFFFF);
      style->node = hex (0x2E2E32);
      style->node_border = hex (0x5E5C64);
      style->bucket[HR_BUCKET_WEIGHTS] = hex (0x3A8FD0);
      style->bucket[HR_BUCKET_OVERHEAD] = hex (0x8A8A8A);
      style->series[0] = hex (0x3A8FD0);
      style->series[6] = hex (0xFFFFFF);
      break;

    case HR_CHART_THEME_PRINT:
      /* for journals: white, black text, thin rules */
      style->background = hex (0xFFFFFF);
      style->foreground = hex (0x000000);
      style->muted = hex (0x333333);
      style->grid = hex (0xDDDDDD);
      style->axis = hex (0x000000);
      style->accent = hex (0x0072B2);
      style->good = hex (0x000000);
      style->bad = hex (0x000000);
      style->capacity = hex (0x000000);
      style->reserve = hexa (0x000000, 0.10);
      style->band = hexa (0x000000, 0.12);
      style->measured = hex (0x000000);
      style->node = hex (0xFFFFFF);
      style->node_border = hex (0x000000);
      style->line_width = 1.25;
      style->thin_line_width = 0.6;
      style->corner_radius = 2.0;
      break;

    default:
      g_assert_not_reached ();
    }

  return style;
}

HrChartStyle *
hr_chart_style_copy (const HrChartStyle *style)
{
  HrChartStyle *copy;

  g_return_val_if_fail (style != NULL, NULL);

  copy = g_memdup2 (style, sizeof *style);
  copy->font_family = g_strdup (style->font_family);
  return copy;
}

void
hr_chart_style_free (HrChartStyle *style)
{
  if (style == NULL)
    return;

  g_free (style->font_family);
  g_free (style);
}

/* Dashes in units of the line's width, each told from the others in
 * black and white; none is solid, which the prediction is. */
static const struct {
  double dashes[4];
  guint  n;
} series_dashes[HR_CHART_N_SERIES] = {
  { { 5.0, 2.5 }, 2 },              /* dashed */
  { { 1.0, 1.8 }, 2 },              /* dotted */
  { { 6.0, 2.0, 1.0, 2.0 }, 4 },    /* dash-dot */
  { { 10.0, 3.0 }, 2 },             /* long dashes */
  { { 2.5, 1.8 }, 2 },              /* short dashes */
  { { 1.0, 4.0 }, 2 },              /* sparse dots */
  { { 10.0, 2.5, 3.0, 2.5 }, 4 },   /* long and short */
  { { 6.0, 2.0, 1.0, 2.0 }, 4 },    /* dash-dot again, with the eighth marker */
};

HrChartSeries
hr_chart_style_get_series (const HrChartStyle *style,
                           guint               index)
{
  HrChartSeries series = { 0 };
  guint i = index % HR_CHART_N_SERIES;

  series.color = style->series[i];
  memcpy (series.dashes, series_dashes[i].dashes, sizeof series.dashes);
  series.n_dashes = series_dashes[i].n;
  series.marker = (HrMarker) i;
  return series;
}

void
hr_chart_stroke_series (cairo_t             *cr,
                        const HrChartSeries *series,
                        double               width)
{
  double dashes[4];

  for (guint i = 0; i < series->n_dashes; i++)
    dashes[i] = series->dashes[i] * width;
  cairo_save (cr);
  cairo_set_dash (cr, dashes, series->n_dashes, 0);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  cairo_set_line_width (cr, width);
  hr_chart_set_color (cr, &series->color);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
polygon (cairo_t *cr,
         double   x,
         double   y,
         double   radius,
         guint    n,
         double   start)
{
  for (guint k = 0; k < n; k++)
    {
      double a = start + 2 * G_PI * k / n;

      if (k == 0)
        cairo_move_to (cr, x + radius * cos (a), y + radius * sin (a));
      else
        cairo_line_to (cr, x + radius * cos (a), y + radius * sin (a));
    }
  cairo_close_path (cr);
}

void
hr_chart_draw_marker (cairo_t             *cr,
                      const HrChartStyle  *style,
                      const HrChartSeries *series,
                      double               x,
                      double               y,
                      double               radius)
{
  /* Sizes chosen so each shape covers about the circle's area. */
  cairo_save (cr);
  cairo_new_path (cr);
  switch (series->marker)
    {
    case HR_MARKER_SQUARE:
      cairo_rectangle (cr, x - radius * 0.89, y - radius * 0.89, radius * 1.78, radius * 1.78);
      break;
    case HR_MARKER_TRIANGLE:
      polygon (cr, x, y + radius * 0.2, radius * 1.35, 3, -G_PI / 2);
      break;
    case HR_MARKER_TRIANGLE_DOWN:
      polygon (cr, x, y - radius * 0.2, radius * 1.35, 3, G_PI / 2);
      break;
    case HR_MARKER_DIAMOND:
      polygon (cr, x, y, radius * 1.25, 4, 0);
      break;
    case HR_MARKER_PENTAGON:
      polygon (cr, x, y, radius * 1.1, 5, -G_PI / 2);
      break;
    case HR_MARKER_HEXAGON:
      polygon (cr, x, y, radius * 1.07, 6, 0);
      break;
    case HR_MARKER_STAR:
      for (guint k = 0; k < 10; k++)
        {
          double a = -G_PI / 2 + G_PI * k / 5;
          double r = k % 2 == 0 ? radius * 1.45 : radius * 0.62;

          if (k == 0)
            cairo_move_to (cr, x + r * cos (a), y + r * sin (a));
          else
            cairo_line_to (cr, x + r * cos (a), y + r * sin (a));
        }
      cairo_close_path (cr);
      break;
    case HR_MARKER_CIRCLE:
    default:
      cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
      break;
    }
  hr_chart_set_color (cr, &series->color);
  cairo_fill_preserve (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_MITER);
  cairo_set_line_width (cr, MAX (0.75, radius * 0.3));
  hr_chart_set_color (cr, &style->background);
  cairo_stroke (cr);
  cairo_restore (cr);
}

HrRgba
hr_chart_series_text_color (const HrChartStyle  *style,
                            const HrChartSeries *series)
{
  HrRgba color = series->color;

  for (double t = 0.2; t <= 1.0 && hr_rgba_contrast (&color, &style->background) < 4.5; t += 0.2)
    color = hr_rgba_mix (&series->color, &style->foreground, t);
  color.alpha = 1;
  return color;
}

HrChartStyle *
hr_chart_style_fit (const HrChartStyle *style,
                    double              width,
                    double              height)
{
  HrChartStyle *fitted;
  double body = style->font_size * 96.0 / 72.0;
  double scale;

  g_return_val_if_fail (style != NULL, NULL);

  fitted = hr_chart_style_copy (style);
  scale = MIN (1.0, MIN (width / (36 * body), height / (25 * body)));
  if (!(scale < 1.0) || !(scale > 0))
    return fitted;
  fitted->font_size *= scale;
  fitted->small_size *= scale;
  fitted->title_size *= scale;
  fitted->spacing *= scale;
  return fitted;
}

void
hr_chart_set_color (cairo_t      *cr,
                    const HrRgba *color)
{
  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha);
}

static double
linear (double channel)
{
  return channel <= 0.04045 ? channel / 12.92 : pow ((channel + 0.055) / 1.055, 2.4);
}

double
hr_rgba_luminance (const HrRgba *c)
{
  return 0.2126 * linear (c->red) + 0.7152 * linear (c->green) + 0.0722 * linear (c->blue);
}

double
hr_rgba_contrast (const HrRgba *a,
                  const HrRgba *b)
{
  double la = hr_rgba_luminance (a) + 0.05;
  double lb = hr_rgba_luminance (b) + 0.05;

  return la > lb ? la / lb : lb / la;
}

HrRgba
hr_chart_text_color_on (const HrRgba *background)
{
  static const HrRgba black = { 0, 0, 0, 1 };
  static const HrRgba white = { 1, 1, 1, 1 };

  return hr_rgba_contrast (&black, background) >= hr_rgba_contrast (&white,
                                                                    background) ? black : white;
}

HrRgba
hr_rgba_mix (const HrRgba *a,
             const HrRgba *b,
             double        t)
{
  HrRgba c = {
    a->red + (b->red - a->red) * t,
    a->green + (b->green - a->green) * t,
    a->blue + (b->blue - a->blue) * t,
    a->alpha + (b->alpha - a->alpha) * t,
  };

  return c;
}

void
hr_chart_fill_pattern (cairo_t            *cr,
                       const HrChartStyle *style,
                       const HrRgba       *color,
                       HrPattern           pattern)
{
  double x1, y1, x2, y2;
  const double spacing = 6.0;
  HrRgba ink;

  hr_chart_set_color (cr, color);
  if (pattern == HR_PATTERN_SOLID)
    {
      cairo_fill (cr);
      return;
    }

  cairo_save (cr);
  cairo_fill_preserve (cr);
  cairo_clip (cr);
  cairo_clip_extents (cr, &x1, &y1, &x2, &y2);

  /* The pattern is a darker (on light colours) or lighter shade of the
   * fill: readable as texture, never louder than the colour itself. */
  {
    HrRgba black = { 0, 0, 0, 1 }, white = { 1, 1, 1, 1 };

    ink = hr_rgba_luminance (color) > 0.3 ? hr_rgba_mix (color, &black, 0.38)
                                          : hr_rgba_mix (color, &white, 0.45);
    if (style->theme == HR_CHART_THEME_PRINT)
      ink = hr_rgba_mix (color, &black, 0.6);
  }
  hr_chart_set_color (cr, &ink);
  cairo_set_line_width (cr, 1.0);

  switch (pattern)
    {
    case HR_PATTERN_DIAGONAL:
    case HR_PATTERN_BACK_DIAGONAL:
      {
        double h = y2 - y1;
        double start = floor ((x1 - h) / spacing) * spacing;

        for (double x = start; x <= x2 + h; x += spacing)
          {
            if (pattern == HR_PATTERN_DIAGONAL)
              {
                cairo_move_to (cr, x, y2);
                cairo_line_to (cr, x + h, y1);
              }
            else
              {
                cairo_move_to (cr, x, y1);
                cairo_line_to (cr, x + h, y2);
              }
          }
        cairo_stroke (cr);
      }
      break;

    case HR_PATTERN_HORIZONTAL:
      for (double y = floor (y1 / spacing) * spacing + spacing / 2; y <= y2; y += spacing)
        {
          cairo_move_to (cr, x1, y);
          cairo_line_to (cr, x2, y);
        }
      cairo_stroke (cr);
      break;

    case HR_PATTERN_DOTS:
      {
        /* a dot is an arc of four curves: a screen's render keeps the
         * dots of a segment that keeps its place from one render to the
         * next (most do), and appends them again */
        const double key[] = { HR_PATTERN_DOTS, spacing, x1, y1, x2, y2,
                               cairo_get_tolerance (cr) };

        if (!hr_chart_path_replay (cr, key, sizeof key))
          {
            for (double y = floor (y1 / spacing) * spacing + spacing / 2; y <= y2; y += spacing)
              {
                double offset = fmod (fabs (y / spacing), 2.0) < 1.0 ? 0 : spacing / 2;

                for (double x = floor (x1 / spacing) * spacing + offset; x <= x2; x += spacing)
                  {
                    cairo_new_sub_path (cr);
                    cairo_arc (cr, x, y, 1.1, 0, 2 * G_PI);
                  }
              }
            hr_chart_path_keep (cr, key, sizeof key);
          }
        cairo_fill (cr);
      }
      break;

    case HR_PATTERN_SOLID:
    default:
      break;
    }

  cairo_restore (cr);
  cairo_new_path (cr);
}

void
hr_chart_paint_background (cairo_t            *cr,
                           const HrChartStyle *style,
                           double              width,
                           double              height)
{
  if (style->transparent)
    return;

  cairo_save (cr);
  hr_chart_set_color (cr, &style->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  cairo_restore (cr);
}
