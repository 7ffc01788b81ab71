/* hr-chart-advice.c: the advisor's recommendations as a table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-chart-advice.h"
#include "hr-chart-series.h"
#include "hr-chart-text.h"

#define MARGIN      16.0
#define TITLE_GAP    6.0
#define PATH_GAP    14.0
#define CELL_PAD     6.0   /* text to the column's right edge */
#define ROW_PAD      5.0   /* text to the row's rules */
#define SECTION_GAP 12.0
/* Narrower than this, the table is set in the small font. */
#define NARROW     1000.0

/* Columns: header and the share of the table's width each takes. */
static const struct {
  const char *header;
  double      share;
  HrAlign     align;
} columns[] = {
  { "", 0.035, HR_ALIGN_START },
  /* Translators: column headings of the advice table; keep them short. */
  { N_("GPU"), 0.205, HR_ALIGN_START },
  { N_("Cards"), 0.055, HR_ALIGN_END },
  { N_("Memory"), 0.085, HR_ALIGN_END },
  { N_("Price"), 0.095, HR_ALIGN_END },
  { N_("$/GB"), 0.06, HR_ALIGN_END },
  { N_("Cloud"), 0.075, HR_ALIGN_END },
  { N_("Power/mo"), 0.08, HR_ALIGN_END },
  { N_("Break-even"), 0.095, HR_ALIGN_END },
  { N_("Choice"), 0.075, HR_ALIGN_END },
  { N_("Batch"), 0.055, HR_ALIGN_END },
  { N_("As of"), 0.08, HR_ALIGN_END },
};

#define N_COLUMNS G_N_ELEMENTS (columns)

void
hr_advice_chart_layout_free (HrAdviceChartLayout *layout)
{
  if (layout == NULL)
    return;

  g_array_unref (layout->labels);
  g_array_unref (layout->rules);
  g_free (layout);
}

/* "$1900", or "$0.34/h" with @hourly; "–" when unknown. */
static char *
money (double   usd,
       gboolean hourly)
{
  if (usd < 0 || !isfinite (usd))
    return g_strdup ("–");
  return hourly ? g_strdup_printf ("$%.2f/h", usd) : g_strdup_printf ("$%.0f", usd);
}

/* The cells of one recommendation, in column order (owned strings). */
static void
row_cells (const HrRecommendation *r,
           guint                   rank,
           HrSizeUnit              unit,
           char                  **cells)
{
  cells[0] = g_strdup_printf ("%u.", rank);
  cells[1] = r->gpus_per_run > 1
    ? g_strdup_printf (_("%s (sharded over %u)"), r->gpu_name, r->gpus_per_run)
    : g_strdup (r->gpu_name);
  cells[2] = g_strdup_printf ("%u", r->count);
  cells[3] = hr_size_format_full (r->memory, unit, HR_SIZE_FORMAT_CHART);
  cells[4] = money (r->price_usd, FALSE);
  cells[5] = money (r->price_per_gb, FALSE);
  cells[6] = money (r->cloud_usd_per_hour, TRUE);
  cells[7] = r->choice == HR_ADVICE_CHOICE_BUY ? money (r->power_usd_per_month, FALSE)
                                               : g_strdup ("–");
  cells[8] = isfinite (r->break_even_months)
             ? g_strdup_printf (_("%.1f mo"), r->break_even_months)
             : isnan (r->break_even_months) ? g_strdup ("–") : g_strdup (_("never"));
  cells[9] = g_strdup_printf ("%s%s", r->choice == HR_ADVICE_CHOICE_BUY
                                        ? C_("advice choice", "Buy")
                                        : C_("advice choice", "Rent"),
                              r->within_budget ? "" : "*");
  cells[10] = g_strdup_printf ("%u", r->max_micro_batch);
  cells[11] = g_strdup (r->price_as_of != NULL ? r->price_as_of : "–");
}

static void
add_label (HrAdviceChartLayout *layout,
           PangoContext        *context,
           const HrChartStyle  *style,
           const char          *text,
           HrChartFont          font,
           HrChartTextRole      role,
           HrAlign              align,
           double               max_width,
           double               x,
           double               y)
{
  HrChartLabel label = hr_chart_label_new (context, style, g_strdup (text), font, role, align,
                                           max_width, x, y);

  g_array_append_val (layout->labels, label);
}

/* The columns a table shows, where and how wide. */
typedef struct {
  guint  n;
  guint  index[N_COLUMNS];   /* into columns[] */
  double x[N_COLUMNS];       /* from the table's left */
  double width[N_COLUMNS];
} Columns;

/* Lays out one table row of @cells at @y; returns its height. */
static double
add_row (HrAdviceChartLayout *layout,
         PangoContext        *context,
         const HrChartStyle  *style,
         char               **cells,
         HrChartFont          font,
         HrChartTextRole      role,
         double               left,
         const Columns       *shown,
         double               y)
{
  double height = 0;

  for (guint k = 0; k < shown->n; k++)
    {
      guint c = shown->index[k];
      double x = left + shown->x[k], w = shown->width[k];
      g_autofree char *text = hr_chart_text_ellipsize (context, style, font, cells[c], NULL,
                                                       w - CELL_PAD);
      double anchor = columns[c].align == HR_ALIGN_END ? x + w - CELL_PAD : x;
      double h;

      hr_chart_text_size (context, style, font, text, 0, NULL, &h);
      add_label (layout, context, style, text, font, role, columns[c].align, 0, anchor,
                 y + ROW_PAD);
      height = MAX (height, h);
    }

  return height + 2 * ROW_PAD;
}

/* The columns that fit @inner: every one at its share of the width when
 * each cell fits its share (a wide table, as on screen); else each at the
 * width its widest cell needs, the least needed going first ("As of",
 * power, $/GB, cards, break-even, cloud, price, choice) until the rest fit
 * whole.  @cells are the rows' cells (@n_rows of N_COLUMNS), the header
 * first. */
static void
choose_columns (PangoContext       *context,
                const HrChartStyle *style,
                HrChartFont         font,
                char             ***cells,
                guint               n_rows,
                gboolean            first_bold,
                double              inner,
                Columns            *shown)
{
  static const guint drop_order[] = { 11, 7, 5, 2, 8, 6, 4, 9 };
  double need[N_COLUMNS] = { 0 };
  gboolean keep[N_COLUMNS];
  gboolean by_share = TRUE;
  double total = 0, x = 0;

  for (guint c = 0; c < N_COLUMNS; c++)
    {
      for (guint r = 0; r < n_rows; r++)
        {
          double w;

          hr_chart_text_size (context, style,
                              r == 0 || (r == 1 && first_bold) ? HR_CHART_FONT_BOLD : font,
                              cells[r][c], 0, &w, NULL);
          need[c] = MAX (need[c], w + CELL_PAD);
        }
      keep[c] = TRUE;
      by_share &= need[c] <= columns[c].share * inner;
      total += need[c];
    }

  for (guint d = 0; !by_share && total > inner && d < G_N_ELEMENTS (drop_order); d++)
    {
      keep[drop_order[d]] = FALSE;
      total -= need[drop_order[d]];
    }

  shown->n = 0;
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      double w;

      if (!keep[c])
        continue;
      /* the room left over, shared as the columns' widths are */
      w = by_share ? columns[c].share * inner
                   : need[c] + MAX (0, inner - total) * need[c] / MAX (total, 1);
      shown->index[shown->n] = c;
      shown->x[shown->n] = x;
      shown->width[shown->n] = w;
      shown->n++;
      x += w;
    }
  /* still too wide (a very narrow canvas): the GPU's name takes what is
   * left, cut short */
  if (x > inner && shown->n > 1)
    {
      for (guint k = 0; k < shown->n; k++)
        {
          if (shown->index[k] == 1)
            shown->width[k] = MAX (shown->width[k] - (x - inner), 24);
          if (k > 0)
            shown->x[k] = shown->x[k - 1] + shown->width[k - 1];
        }
    }
}

HrAdviceChartLayout *
hr_advice_chart_layout (const HrAdviceChartData *data,
                        const HrChartStyle      *style,
                        PangoContext            *context,
                        double                   width,
                        double                   height)
{
  HrAdviceChartLayout *layout;
  const HrAdvice *advice;
  double left = MARGIN, inner = MAX (width - 2 * MARGIN, 1), y = MARGIN, h;
  double bottom = height - MARGIN;
  HrChartFont body = width < NARROW ? HR_CHART_FONT_SMALL : HR_CHART_FONT_BODY;

  g_return_val_if_fail (data != NULL && data->advice != NULL, NULL);
  g_return_val_if_fail (style != NULL, NULL);
  g_return_val_if_fail (PANGO_IS_CONTEXT (context), NULL);

  advice = data->advice;
  layout = g_new0 (HrAdviceChartLayout, 1);
  layout->bounds = (HrRect) { 0, 0, width, height };
  layout->labels = g_array_new (FALSE, TRUE, sizeof (HrChartLabel));
  g_array_set_clear_func (layout->labels, (GDestroyNotify) hr_chart_label_clear);
  layout->rules = g_array_new (FALSE, TRUE, sizeof (HrRect));
  layout->n_columns = N_COLUMNS;

  if (data->title != NULL && data->title[0] != '\0')
    {
      hr_chart_text_size (context, style, HR_CHART_FONT_TITLE, data->title, inner, NULL, &h);
      add_label (layout, context, style, data->title, HR_CHART_FONT_TITLE, HR_TEXT_FOREGROUND,
                 HR_ALIGN_START, inner, left, y);
      y += h + TITLE_GAP;
    }
  if (data->path != NULL && data->path[0] != '\0')
    {
      hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, data->path, inner, NULL, &h);
      add_label (layout, context, style, data->path, HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                 HR_ALIGN_START, inner, left, y);
      y += h;
    }
  y += PATH_GAP;

  if (advice->recommendations->len == 0)
    {
      add_label (layout, context, style,
                 _("No GPU in the catalog runs this scenario with its reserve."),
                 HR_CHART_FONT_BOLD, HR_TEXT_BAD,
                 HR_ALIGN_START, inner, left, y);
      return layout;
    }

  {
    guint n = advice->recommendations->len;
    g_autofree char ***cells = g_new0 (char **, n + 1);
    Columns shown;

    /* the header, then every recommendation's cells; as people say the
     * cards' names when the full ones would not fit */
    cells[0] = g_new0 (char *, N_COLUMNS + 1);
    for (guint c = 0; c < N_COLUMNS; c++)
      cells[0][c] = g_strdup (columns[c].header[0] != '\0' ? _(columns[c].header) : "");
    for (guint i = 0; i < n; i++)
      {
        cells[i + 1] = g_new0 (char *, N_COLUMNS + 1);
        row_cells (g_ptr_array_index (advice->recommendations, i), i + 1, data->unit,
                   cells[i + 1]);
      }
    choose_columns (context, style, body, cells, n + 1, width >= NARROW, inner, &shown);
    for (guint k = 0; k < shown.n; k++)
      if (shown.index[k] == 1)
        for (guint i = 0; i < n; i++)
          {
            const HrRecommendation *r = g_ptr_array_index (advice->recommendations, i);
            double w;

            hr_chart_text_size (context, style,
                                i == 0 && width >= NARROW ? HR_CHART_FONT_BOLD : body,
                                cells[i + 1][1], 0, &w, NULL);
            if (w + CELL_PAD > shown.width[k])
              {
                g_autofree char *said = hr_chart_gpu_short_name (r->gpu_name, NULL, NULL);

                g_free (cells[i + 1][1]);
                /* a sharded run keeps its count: the name goes short first */
                cells[i + 1][1] = r->gpus_per_run > 1
                  ? g_strdup_printf (_("%s (sharded over %u)"), said, r->gpus_per_run)
                  : g_steal_pointer (&said);
              }
          }
    layout->n_columns = shown.n;

    y += add_row (layout, context, style, cells[0], width < NARROW ? body : HR_CHART_FONT_BOLD,
                  HR_TEXT_FOREGROUND, left, &shown, y);
    g_array_append_val (layout->rules, ((HrRect) { left, y, inner, 0 }));

    for (guint i = 0; i < n; i++)
      {
        double row_height;

        hr_chart_text_size (context, style, body, cells[i + 1][1], 0, NULL, &row_height);
        if (y + row_height + 2 * ROW_PAD > bottom)
          break;
        row_height = add_row (layout, context, style, cells[i + 1],
                              i == 0 && width >= NARROW ? HR_CHART_FONT_BOLD : body,
                              HR_TEXT_FOREGROUND, left, &shown, y);
        if (i == 0)
          layout->best = (HrRect) { left, y, inner, row_height };
        y += row_height;
        g_array_append_val (layout->rules, ((HrRect) { left, y, inner, 0 }));
        layout->n_rows++;
      }
    for (guint i = 0; i <= n; i++)
      g_strfreev (cells[i]);
  }
  y += SECTION_GAP;

  /* Then, while there is room: the best option in words, the host, the
   * notes. */
  {
    const HrRecommendation *best = g_ptr_array_index (advice->recommendations, 0);
    GString *host = g_string_new (NULL);
    g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

    g_ptr_array_add (lines, g_strdup_printf ("%s.", best->summary));
    g_string_printf (host, _("Host: %u CPU cores, %.0f GB RAM, %.0f TB NVMe disk"),
                     advice->host.cpu_cores, advice->host.ram / 1e9, advice->host.disk / 1e12);
    if (advice->host.psu_watts > 0)
      g_string_append_printf (host, _(", %u W power supply"), advice->host.psu_watts);
    g_string_append (host, _(". Choice * : over budget."));
    g_ptr_array_add (lines, g_string_free (host, FALSE));
    for (guint i = 0; i < advice->notes->len; i++)
      g_ptr_array_add (lines, g_strdup (g_ptr_array_index (advice->notes, i)));

    for (guint i = 0; i < lines->len; i++)
      {
        const char *text = g_ptr_array_index (lines, i);
        HrChartFont font = i == 0 ? HR_CHART_FONT_BOLD : HR_CHART_FONT_SMALL;

        hr_chart_text_size (context, style, font, text, inner, NULL, &h);
        if (y + h > bottom)
          break;
        add_label (layout, context, style, text, font,
                   i == 0 ? HR_TEXT_ACCENT : HR_TEXT_MUTED, HR_ALIGN_START, inner, left, y);
        y += h + 4;
      }
  }

  return layout;
}

void
hr_advice_chart_render (const HrAdviceChartLayout *layout,
                        const HrChartStyle        *style,
                        cairo_t                   *cr)
{
  g_return_if_fail (layout != NULL);
  g_return_if_fail (style != NULL);
  g_return_if_fail (cr != NULL);

  cairo_save (cr);
  hr_chart_prepare_cairo (cr);
  hr_chart_paint_background (cr, style, layout->bounds.width, layout->bounds.height);

  /* The best option is tinted with the accent and set in bold: it does
   * not rest on colour alone. */
  if (layout->best.width > 0)
    {
      HrRgba tint = hr_rgba_mix (&style->background, &style->accent, 0.14);

      cairo_rectangle (cr, layout->best.x, layout->best.y, layout->best.width,
                       layout->best.height);
      hr_chart_set_color (cr, &tint);
      cairo_fill (cr);
    }

  cairo_set_line_width (cr, style->thin_line_width);
  hr_chart_set_color (cr, &style->grid);
  for (guint i = 0; i < layout->rules->len; i++)
    {
      const HrRect *rule = &g_array_index (layout->rules, HrRect, i);

      cairo_move_to (cr, rule->x, floor (rule->y) + 0.5);
      cairo_line_to (cr, rule->x + rule->width, floor (rule->y) + 0.5);
    }
  cairo_stroke (cr);

  for (guint i = 0; i < layout->labels->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->labels, HrChartLabel, i), NULL);

  cairo_restore (cr);
}

void
hr_advice_chart_draw (cairo_t            *cr,
                      PangoContext       *context,
                      const HrChartStyle *style,
                      double              width,
                      double              height,
                      gpointer            data)
{
  g_autoptr(HrAdviceChartLayout) layout = hr_advice_chart_layout (data, style, context, width,
                                                                  height);

  hr_advice_chart_render (layout, style, cr);
}

char *
hr_advice_chart_summary (const HrAdviceChartData *data)
{
  GString *str = g_string_new (NULL);
  const HrAdvice *advice;

  g_return_val_if_fail (data != NULL && data->advice != NULL, NULL);

  advice = data->advice;
  if (data->path != NULL)
    g_string_append_printf (str, "%s ", data->path);
  if (advice->recommendations->len == 0)
    {
      g_string_append (str, _("No GPU in the catalog runs this scenario with its reserve."));
      return g_string_free (str, FALSE);
    }

  g_string_append_printf (str, g_dngettext (GETTEXT_PACKAGE, "%u recommendation, best first. ",
                                            "%u recommendations, best first. ",
                                            advice->recommendations->len),
                          advice->recommendations->len);
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      const HrRecommendation *r = g_ptr_array_index (advice->recommendations, i);

      if (r->within_budget)
        g_string_append_printf (str, "%u. %s. ", i + 1, r->summary);
      else
        g_string_append_printf (str, _("%u. %s (over budget). "), i + 1, r->summary);
    }
  g_string_append_printf (str, _("Host: %u CPU cores, %.0f GB RAM, %.0f TB disk."),
                          advice->host.cpu_cores, advice->host.ram / 1e9,
                          advice->host.disk / 1e12);
  return g_string_free (str, FALSE);
}
