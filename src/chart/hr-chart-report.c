/* hr-chart-report.c: a multi-page PDF report of one scenario
 *
 * A4 (or Letter) pages drawn in logical pixels (like every chart) on a PDF
 * surface scaled to points: the scenario, the verdict and the bucket
 * chart; the curve; the fit on every catalog GPU; the knobs; and the
 * estimate's breakdown, assumptions and sources.  The charts are figures
 * across the page, in the double-column preset's fonts.  Text flows onto
 * new pages as needed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <cairo-pdf.h>
#include <gio/gio.h>
#include <math.h>

#include "hr-chart-advice.h"
#include "hr-chart-buckets.h"
#include "hr-chart-curve.h"
#include "hr-chart-export.h"
#include "hr-chart-registry.h"
#include "hr-chart-report.h"
#include "hr-chart-text.h"
#include "hr-chart-tree.h"
#include "hr-file.h"
#include "hr-knobs.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

#define MARGIN       64.0
#define POINTS_PER_PIXEL (72.0 / 96.0)

const HrEnumName hr_report_paper_names[] = {
  { HR_REPORT_PAPER_A4, "a4" },
  { HR_REPORT_PAPER_LETTER, "letter" },
  { 0, NULL },
};

/* A4, 210 × 297 mm, and US Letter, 8.5 × 11 in, in logical pixels (1/96
 * inch). */
static const double paper_sizes[][2] = {
  [HR_REPORT_PAPER_A4] = { 210 / 25.4 * 96, 297 / 25.4 * 96 },
  [HR_REPORT_PAPER_LETTER] = { 8.5 * 96, 11 * 96 },
};

typedef struct {
  cairo_t            *cr;
  PangoContext       *context;
  const HrChartStyle *style;
  double              y;
  guint               page;
  const char         *footer;
  double              page_width;
  double              page_height;
  HrSizeUnit          unit;      /* of every size, the analysis' */
} Writer;

#define PAGE_WIDTH (w->page_width)
#define PAGE_HEIGHT (w->page_height)
#define content_width() (PAGE_WIDTH - 2 * MARGIN)

static void
draw_footer (Writer *w)
{
  g_autofree char *text = g_strdup_printf (_("%s · page %u"), w->footer, w->page);

  hr_chart_draw_text (w->cr, w->style, HR_CHART_FONT_SMALL, &w->style->muted, text,
                      PAGE_WIDTH - MARGIN, PAGE_HEIGHT - MARGIN / 2 - 8, 0, HR_ALIGN_END);
}

static void
new_page (Writer *w)
{
  draw_footer (w);
  cairo_show_page (w->cr);
  w->page++;
  w->y = MARGIN;
}

/* Starts a new page unless @height more fits on this one. */
static void
need (Writer *w,
      double  height)
{
  if (w->y + height > PAGE_HEIGHT - MARGIN)
    new_page (w);
}

static void
paragraph (Writer      *w,
           HrChartFont  font,
           const HrRgba *color,
           const char  *text,
           double       indent,
           double       after)
{
  double h;

  hr_chart_text_size (w->context, w->style, font, text, content_width () - indent, NULL, &h);
  need (w, h);
  hr_chart_draw_text (w->cr, w->style, font, color, text, MARGIN + indent, w->y,
                      content_width () - indent,
                      HR_ALIGN_START);
  w->y += h + after;
}

static void
heading (Writer     *w,
         const char *text)
{
  double h;

  hr_chart_text_size (w->context, w->style, HR_CHART_FONT_TITLE, text, 0, NULL, &h);
  /* a heading never sits alone at the foot of a page */
  need (w, h + 60);
  w->y += 6;
  hr_chart_draw_text (w->cr, w->style, HR_CHART_FONT_TITLE, &w->style->foreground, text, MARGIN,
                      w->y, 0, HR_ALIGN_START);
  w->y += h + 8;
}

/* One table row: cells at @columns (fractions of the width), wrapped. */
static void
row (Writer             *w,
     HrChartFont         font,
     const double       *columns,
     guint               n,
     const char * const *cells,
     gboolean            rule)
{
  double height = 0;

  for (guint i = 0; i < n; i++)
    {
      double right = i + 1 < n ? columns[i + 1] : 1.0;
      double h;

      hr_chart_text_size (w->context, w->style, font, cells[i],
                          (right - columns[i]) * content_width () - 8, NULL, &h);
      height = MAX (height, h);
    }

  need (w, height + 4);
  for (guint i = 0; i < n; i++)
    {
      double right = i + 1 < n ? columns[i + 1] : 1.0;

      hr_chart_draw_text (w->cr, w->style, font, &w->style->foreground, cells[i],
                          MARGIN + columns[i] * content_width (), w->y,
                          (right - columns[i]) * content_width () - 8, HR_ALIGN_START);
    }
  w->y += height + 2;

  if (rule)
    {
      cairo_save (w->cr);
      cairo_set_line_width (w->cr, w->style->thin_line_width);
      hr_chart_set_color (w->cr, &w->style->grid);
      cairo_move_to (w->cr, MARGIN, w->y + 0.5);
      cairo_line_to (w->cr, PAGE_WIDTH - MARGIN, w->y + 0.5);
      cairo_stroke (w->cr);
      cairo_restore (w->cr);
    }
  w->y += 3;
}

/* "24.38 GiB", in the analysis' unit. */
static char *
gib (Writer *w,
     double  bytes)
{
  return hr_size_format_full (bytes, w->unit, HR_SIZE_FORMAT_TABLE);
}

static void
scenario_table (Writer           *w,
                const HrScenario *s,
                const HrEstimate *est)
{
  static const double columns[] = { 0.0, 0.32 };
  g_autofree char *model = g_strdup_printf (_("%s (%s, %.2fB parameters)"), s->model->name,
                                            s->model->id,
                                            s->model->params / 1e9);
  g_autofree char *task = g_strdup_printf (_("%s, %s; %.1fM parameters train"),
                                           hr_enum_to_nick (hr_task_names, s->task),
                                           hr_enum_to_nick (hr_method_names, s->method),
                                           est->trainable_params / 1e6);
  g_autofree char *precision = g_strdup_printf (_("compute %s, weights stored in %s"),
                                                hr_enum_to_nick (hr_compute_names, s->compute),
                                                hr_enum_to_nick (hr_weights_dtype_names,
                                                                 s->weights_dtype));
  g_autofree char *batch = g_strdup_printf (_("%u per GPU, gradient accumulation %u"),
                                            s->micro_batch, s->grad_accum);
  g_autofree char *input = est->seq_len > 0
    ? g_strdup_printf (_("%u tokens per sample"), est->seq_len)
    : g_strdup (_("(image or step-based input; see the model's entry)"));
  g_autofree char *memory = g_strdup_printf (_("attention %s, recomputation %s, loss %s"),
                                             hr_enum_to_nick (hr_attention_names, s->attention),
                                             hr_enum_to_nick (hr_recompute_names, s->recompute),
                                             hr_enum_to_nick (hr_loss_names, s->loss));
  g_autofree char *parallel = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u GPU, sharding %s, offload %s, %s",
                                                            "%u GPUs, sharding %s, offload %s, %s",
                                                            s->gpus),
                                               s->gpus,
                                               hr_enum_to_nick (hr_sharding_names, s->sharding),
                                               hr_enum_to_nick (hr_offload_names, s->offload),
                                               hr_enum_to_nick (hr_framework_names, s->framework));
  g_autofree char *memory_size = s->gpu != NULL ? gib (w, s->gpu->memory) : NULL;
  g_autofree char *card = s->gpu != NULL
    ? g_strdup_printf (_("%s, %s as the driver reports it, %.0f%% kept in reserve"),
                       s->gpu->name, memory_size, s->reserve * 100)
    : g_strdup (_("none named"));
  const char *rows[][2] = {
    { _("Model"), model }, { _("Task"), task }, { _("Precision"), precision },
    { _("Optimizer"), hr_enum_to_nick (hr_optimizer_names, s->optimizer) },
    { _("Micro-batch"), batch }, { _("Input"), input }, { _("Activations"), memory },
    { _("Parallelism"), parallel }, { _("GPU"), card },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    row (w, HR_CHART_FONT_BODY, columns, 2, rows[i], TRUE);
}

/* A chart across the page is a figure across both columns: the double
 * preset's fonts and lines (HR_CHART_SIZE_DOUBLE), at the text's width.
 * The page is already white: the chart draws no background of its own. */
static HrChartStyle *
embed_style (Writer *w)
{
  HrChartStyle *style = hr_chart_style_copy (w->style);
  HrChartSize size;

  hr_chart_size_init_preset (&size, HR_CHART_SIZE_DOUBLE);
  hr_chart_style_apply_size (style, &size);
  style->transparent = TRUE;
  return style;
}

/* The height the decision tree takes, at most @most: less when it is
 * drawn as its chosen path, a list shorter than the room for a tree. */
static double
tree_height (Writer            *w,
             const HrChartType *type,
             gconstpointer      data,
             double             most)
{
  g_autoptr(HrChartStyle) style = embed_style (w);
  HrTreeChartLayout *layout = type->layout (data, style, w->context, content_width (), most);
  double bottom = 0;

  if (!layout->path)
    {
      type->layout_free (layout);
      return most;
    }
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      bottom = MAX (bottom, ln->box.y + ln->box.height);
      if (ln->edge_label.text != NULL)
        bottom = MAX (bottom, ln->edge_label.box.y + ln->edge_label.box.height);
    }
  type->layout_free (layout);
  /* the list's own margin under it, as over it */
  return MIN (most, ceil (bottom + 16));
}

/* Draws a chart at the writer's place, the full text width, @height tall. */
static void
embed (Writer          *w,
       double           height,
       HrChartDrawFunc  draw,
       gpointer         data)
{
  HrChartStyle *style = embed_style (w);

  need (w, height);
  cairo_save (w->cr);
  cairo_translate (w->cr, MARGIN, w->y);
  draw (w->cr, w->context, style, content_width (), height, data);
  cairo_restore (w->cr);
  w->y += height + 8;
  hr_chart_style_free (style);
}

static void
fit_table (Writer           *w,
           HrAnalysis       *everywhere)
{
  static const double columns[] = { 0.0, 0.28, 0.38, 0.48, 0.58, 0.65, 0.75 };
  const char *header[] = { _("GPU"), _("Memory"), _("Usable"), _("Needs"), _("Fits"),
                           _("Max batch"), _("Lever that fixes it") };
  const HrScenario *s = hr_analysis_get_scenario (everywhere);
  g_autofree char *intro = g_strdup_printf (
    _("At micro-batch %u, with %.0f%% of each card kept in reserve. Memory is what the driver "
      "reports; \"Needs\" is the estimate the fit compares with the usable memory; \"Max "
      "batch\" is the largest micro-batch that fits; the lever is the least costly one that "
      "makes it fit."), s->micro_batch, s->reserve * 100);

  heading (w, _("Fit on every GPU in the catalog"));
  paragraph (w, HR_CHART_FONT_SMALL, &w->style->muted, intro, 0, 6);
  if (hr_analysis_get_n_gpus (everywhere) > 0)
    paragraph (w, HR_CHART_FONT_SMALL, &w->style->muted,
               hr_analysis_get_gpu (everywhere, 0)->rule, 0, 6);
  row (w, HR_CHART_FONT_BOLD, columns, G_N_ELEMENTS (columns), header, TRUE);

  for (guint i = 0; i < hr_analysis_get_n_gpus (everywhere); i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (everywhere, i);
      g_autofree char *cap = gib (w, g->limit.capacity);
      g_autofree char *usable = gib (w, g->limit.usable);
      g_autofree char *needs = gib (w, g->need);
      g_autofree char *max = g->max_micro_batch == 0 ? g_strdup (_("none"))
                             : g_strdup_printf ("%s%u", g->max_is_lower_bound ? "≥ " : "",
                                                g->max_micro_batch);
      const char *fix = g->fits ? "" : g->fix != NULL ? g->fix->change : _("no single lever");
      const char *cells[] = { g->gpu->name, cap, usable, needs, g->fit == HR_ANALYSIS_FIT_FITS ? _("yes")
                              : g->fit == HR_ANALYSIS_FIT_TIGHT ? _("tight") : _("no"),
                              max, fix };

      row (w, HR_CHART_FONT_SMALL, columns, G_N_ELEMENTS (columns), cells, FALSE);
    }
}

static gint
compare_cost (gconstpointer a,
              gconstpointer b)
{
  return hr_knob_compare_cost (*(const HrKnob **) a, *(const HrKnob **) b);
}

static void
knob_table (Writer     *w,
            HrAnalysis *analysis)
{
  static const double columns[] = { 0.0, 0.05, 0.42, 0.53, 0.63 };
  const char *header[] = { "", _("Lever, least costly first"), _("Saves"), _("Step time"),
                           _("Cost and risk") };
  GPtrArray *knobs = hr_analysis_get_levers (analysis);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  heading (w, _("What to change"));
  if (knobs->len == 0)
    {
      paragraph (w, HR_CHART_FONT_BODY, &w->style->foreground,
                 _("No lever saves memory for this scenario."), 0, 8);
      return;
    }

  for (guint i = 0; i < knobs->len; i++)
    g_ptr_array_add (order, g_ptr_array_index (knobs, i));
  g_ptr_array_sort (order, compare_cost);

  row (w, HR_CHART_FONT_BOLD, columns, G_N_ELEMENTS (columns), header, TRUE);
  for (guint i = 0; i < order->len; i++)
    {
      HrKnob *k = g_ptr_array_index (order, i);
      g_autofree char *rank = g_strdup_printf ("%u.", i + 1);
      g_autofree char *lever = g_strdup_printf ("%s (%s)%s", k->label, k->change,
                                                k->has_fit && k->fits_after ? _(": then fits")
                                                                            : "");
      g_autofree char *gained = gib (w, k->gained);
      g_autofree char *saves = k->saved > 0 ? gib (w, k->saved)
                                            : g_strdup_printf (_("+%s usable"), gained);
      g_autofree char *speed = g_strdup_printf ("×%.2f", k->speed);
      g_autofree char *cost = g_strdup_printf (_("%s. Result: %s (%s). Sources: %s; %s"), k->cost,
                                               hr_knob_risk_label (k->risk), k->risk_text,
                                               k->source, k->risk_source);
      const char *cells[] = { rank, lever, saves, speed, cost };

      row (w, HR_CHART_FONT_SMALL, columns, G_N_ELEMENTS (columns), cells, TRUE);
    }
}

static void
breakdown (Writer           *w,
           const HrScenario *s,
           const HrEstimate *est)
{
  static const double columns[] = { 0.0, 0.14, 0.27 };

  heading (w, _("How the estimate is made"));
  for (guint i = 0; i < est->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->items, i);
      g_autofree char *size = gib (w, item->bytes);
      const char *cells[] = { hr_bucket_get_label (item->bucket), size, item->label };

      row (w, HR_CHART_FONT_SMALL, columns, G_N_ELEMENTS (columns), cells, FALSE);
    }
  w->y += 6;

  heading (w, _("Assumptions and sources"));
  for (guint i = 0; i < est->notes->len; i++)
    {
      g_autofree char *bullet = g_strdup_printf ("• %s",
                                                 (const char *) g_ptr_array_index (est->notes, i));

      paragraph (w, HR_CHART_FONT_SMALL, &w->style->foreground, bullet, 0, 4);
    }

  {
    g_autofree char *model = g_strdup_printf (_("• Model catalog entry \"%s\": %s"), s->model->id,
                                              s->model->source != NULL
                                                ? s->model->source
                                                : _("inline, no source given"));

    paragraph (w, HR_CHART_FONT_SMALL, &w->style->foreground, model, 0, 4);
  }
  if (s->gpu != NULL)
    {
      g_autofree char *gpu = g_strdup_printf (_("• GPU catalog entry \"%s\": %s"), s->gpu->id,
                                              s->gpu->source != NULL
                                                ? s->gpu->source
                                                : _("inline, no source given"));

      paragraph (w, HR_CHART_FONT_SMALL, &w->style->foreground, gpu, 0, 4);
    }
}

/* Draws the registry's chart @type for @source at the writer's place. */
static void
embed_chart (Writer              *w,
             const HrChartType   *type,
             const HrChartSource *source,
             double               height,
             gboolean             summary)
{
  gpointer data = type->data_new (source);
  HrChartDrawing drawing = { type, data };

  embed (w, height, hr_chart_drawing_draw, &drawing);
  if (summary)
    {
      g_autofree char *text = type->summary (data);

      paragraph (w, HR_CHART_FONT_SMALL, &w->style->muted, text, 0, 10);
    }
  type->data_free (data);
}

gboolean
hr_chart_report_write_analysis (const char          *path,
                                HrAnalysis          *analysis,
                                HrCatalog           *catalog,
                                const HrChartStyle  *style,
                                GError             **error)
{
  return hr_chart_report_write_on_paper (path, analysis, catalog, style, HR_REPORT_PAPER_A4,
                                         error);
}

/* The last page: the advisor's charts from one walk, answered from the
 * scenario and the tree's defaults. */
static void
advisor_page (Writer              *w,
              const HrChartSource *source)
{
  const HrChartStyle *style = w->style;

  HrChartSource advised = *source;
  const HrChartType *tree = NULL;
  gpointer data = NULL;
  const char *closing = _("Answered from the scenario and the tree's defaults; `headroom-cli "
                          "advise` takes your own hours, months, budget and preference.");
  double closing_h;

  new_page (w);
  heading (w, _("What to buy or rent"));

  /* the closing words stay on the table's page */
  hr_chart_text_size (w->context, w->style, HR_CHART_FONT_SMALL, closing,
                      w->page_width - 2 * MARGIN, NULL, &closing_h);

  /* One walk for both of the advisor's charts. */
  for (guint i = 0; i < hr_chart_types_get_n (); i++)
    {
      const HrChartType *type = hr_chart_types_get (i);
      HrChartDrawing drawing;

      if (!type->advisor)
        continue;
      if (data == NULL)
        {
          tree = type;
          data = type->data_new (&advised);
        }
      drawing.type = type;
      drawing.data = data;
      embed (w, type == tree && g_str_equal (type->name, "tree")
                   ? tree_height (w, type, data, 420)
                   : type == tree ? 420
                                  : MAX (360, w->page_height - MARGIN - w->y - 18 - closing_h),
             hr_chart_drawing_draw, &drawing);
    }
  if (data != NULL)
    tree->data_free (data);
  paragraph (w, HR_CHART_FONT_SMALL, &style->muted, closing, 0, 4);
}

/* Page 1 under the scenario: the peak and the verdict on the scenario's
 * card, what each tool would show, and the measurements. */
static void
verdict_paragraphs (Writer     *w,
                    HrAnalysis *analysis)
{
  const HrChartStyle *style = w->style;
  const HrScenario *scenario = hr_analysis_get_scenario (analysis);
  const HrEstimate *est = hr_analysis_get_estimate (analysis);
  const HrAnalysisGpu *own = hr_analysis_get_own_gpu (analysis);
  g_autofree char *headline = NULL;

  {
    /* under XLA's pool, the run's use of the pool: the figure the
     * verdict, the bars and the curve show (hr-analysis.h) */
    gboolean in_pool = own != NULL && own->limit.has_pool && !hr_scenario_has_kv_pool (scenario);
    g_autofree char *total = gib (w, in_pool ? own->need : est->total);
    g_autofree char *lo = gib (w, in_pool ? own->need_low : est->low);
    g_autofree char *hi = gib (w, in_pool ? own->need_high : est->high);

    if (in_pool)
      {
        g_autofree char *pool = gib (w, own->limit.pool);

        headline = g_strdup_printf (own->fit == HR_ANALYSIS_FIT_FITS
                                      ? _("Peak %s per GPU (likely %s to %s) in XLA's %s pool "
                                          "on %s: fits. %s. %s.")
                                      : own->fit == HR_ANALYSIS_FIT_TIGHT
                                      ? _("Peak %s per GPU (likely %s to %s) in XLA's %s pool "
                                          "on %s: probably fits, tight. %s. %s.")
                                      : _("Peak %s per GPU (likely %s to %s) in XLA's %s pool "
                                          "on %s: does not fit. %s. %s."),
                                    total, lo, hi, pool, own->gpu->name, own->verdict, own->rule);
      }
    else if (own != NULL)
      headline = g_strdup_printf (own->fit == HR_ANALYSIS_FIT_FITS
                                    ? _("Peak %s per GPU (likely %s to %s) on %s: fits. %s. %s.")
                                    : own->fit == HR_ANALYSIS_FIT_TIGHT
                                    ? _("Peak %s per GPU (likely %s to %s) on %s: probably fits, "
                                        "tight. %s. %s.")
                                    : _("Peak %s per GPU (likely %s to %s) on %s: does not fit. "
                                        "%s. %s."),
                                  total, lo, hi, own->gpu->name, own->verdict, own->rule);
    else
      headline = g_strdup_printf (_("Peak %s per GPU (likely %s to %s). No GPU is named: see "
                                    "the fit on every catalog card below."), total, lo, hi);
    paragraph (w, HR_CHART_FONT_BOLD, &style->foreground, headline, 0, 6);
  }
  {
    g_autofree char *allocated = gib (w, est->allocated_peak);
    g_autofree char *reserved = gib (w, est->reserved_peak);
    g_autofree char *device = gib (w, est->device_used);
    g_autofree char *host = gib (w, est->host_ram);
    g_autofree char *views = g_strdup_printf (
      _("What each tool would show: torch.cuda.max_memory_allocated %s, "
        "max_memory_reserved %s, nvidia-smi %s. Host RAM: %s."),
      allocated, reserved, device, host);

    paragraph (w, HR_CHART_FONT_SMALL, &style->muted, views, 0, 10);
  }
  if (hr_analysis_get_n_measurements (analysis) > 0)
    {
      g_autofree char *text = g_strdup_printf (_("Measurements: %s%s."),
                                               hr_analysis_get_calibration_text (analysis),
                                               hr_analysis_get_calibration (analysis) != NULL
                                                 ? _(" (applied)") : _(" (not applied)"));

      paragraph (w, HR_CHART_FONT_SMALL, &style->muted, text, 0, 4);
      for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
        {
          const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);
          g_autofree char *line = g_strdup_printf ("• %s: %s. %s", m->measurement->name,
                                                   m->match->summary, m->summary);

          paragraph (w, HR_CHART_FONT_SMALL, &style->muted, line, 0, 4);
        }
      w->y += 6;
    }
}

gboolean
hr_chart_report_write_on_paper (const char          *path,
                                HrAnalysis          *analysis,
                                HrCatalog           *catalog,
                                const HrChartStyle  *style,
                                HrReportPaper        paper,
                                GError             **error)
{
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  g_autoptr(HrAnalysis) everywhere = NULL;
  g_autofree char *title = NULL;
  g_autofree char *creator = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d");
  const HrScenario *scenario;
  const HrEstimate *est;
  HrChartSource source = { 0 };
  HrAnalysisOptions options = { 0 };
  g_autoptr(GPtrArray) measurements = g_ptr_array_new ();
  cairo_surface_t *surface;
  cairo_status_t status;
  Writer w = { 0 };
  gboolean first = TRUE;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (analysis != NULL, FALSE);
  g_return_val_if_fail (catalog != NULL, FALSE);
  g_return_val_if_fail (style != NULL, FALSE);
  g_return_val_if_fail (paper < G_N_ELEMENTS (paper_sizes), FALSE);

  w.page_width = paper_sizes[paper][0];
  w.page_height = paper_sizes[paper][1];
  scenario = hr_analysis_get_scenario (analysis);
  est = hr_analysis_get_estimate (analysis);
  source.analysis = analysis;
  source.catalog = catalog;

  /* The fit table: every catalog card, by the same analysis (the same
   * measurements and calibration). */
  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    g_ptr_array_add (measurements,
                     (gpointer) hr_analysis_get_measurement (analysis, i)->measurement);
  options.gpus = hr_catalog_get_gpus (catalog);
  options.measurements = measurements;
  options.use_calibration = hr_analysis_get_calibration (analysis) != NULL;
  options.lever_sort = HR_KNOB_SORT_COST;
  options.unit = hr_analysis_get_unit (analysis);
  everywhere = hr_analysis_new (scenario, &options);

  title = g_strdup_printf (_("Headroom report: %s"),
                           scenario->name != NULL && scenario->name[0] != '\0'
                                                    ? scenario->name : scenario->model->name);
  creator = g_strdup_printf ("Headroom %s", PACKAGE_VERSION);

  /* cairo writes the PDF into memory; the file is written atomically once
   * the whole report exists. */
  surface = cairo_pdf_surface_create_for_stream (hr_chart_append_to_byte_array, buffer,
                                                 w.page_width * POINTS_PER_PIXEL,
                                                 w.page_height * POINTS_PER_PIXEL);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, creator);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT,
                                  _("GPU memory estimate: buckets, peak versus micro-batch, "
                                    "fits, levers, sources"));

  w.cr = cairo_create (surface);
  cairo_scale (w.cr, POINTS_PER_PIXEL, POINTS_PER_PIXEL);
  hr_chart_prepare_cairo (w.cr);
  w.context = hr_chart_pango_context_new ();
  hr_chart_text_draw_with (w.cr, w.context);
  w.style = style;
  w.unit = hr_analysis_get_unit (analysis);
  w.y = MARGIN;
  w.page = 1;
  w.footer = title;

  /* ---- page 1: what, the verdict ---- */
  paragraph (&w, HR_CHART_FONT_TITLE, &style->foreground, title, 0, 2);
  {
    g_autofree char *made = g_strdup_printf (w.unit == HR_SIZE_GB
                                               ? _("Made by %s on %s from the scenario below. "
                                                   "Sizes are GB (10^9 bytes) per GPU.")
                                               : _("Made by %s on %s from the scenario below. "
                                                   "Sizes are GiB (2^30 bytes) per GPU."),
                                             creator, date);

    paragraph (&w, HR_CHART_FONT_SMALL, &style->muted, made, 0, 14);
  }
  scenario_table (&w, scenario, est);
  w.y += 8;

  verdict_paragraphs (&w, analysis);

  /* ---- every chart of the estimate, from the registry: the first under
   * the verdict, each other on a page of its own ---- */
  for (guint i = 0; i < hr_chart_types_get_n (); i++)
    {
      const HrChartType *type = hr_chart_types_get (i);

      if (type->advisor)
        continue;
      /* figures in the double preset's proportions, 2:1 (a little
       * taller on a page of their own) */
      if (first)
        embed_chart (&w, type, &source, (w.page_width - 2 * MARGIN) * 0.5, FALSE);
      else
        {
          new_page (&w);
          heading (&w, _(type->title));
          embed_chart (&w, type, &source, (w.page_width - 2 * MARGIN) * 0.6, TRUE);
        }
      first = FALSE;
    }

  /* ---- then the tables and the sources, flowing ---- */
  fit_table (&w, everywhere);
  w.y += 8;
  knob_table (&w, analysis);
  w.y += 8;
  breakdown (&w, scenario, est);

  /* ---- last page: the advisor's charts, answered from the scenario and
   * the tree's defaults ---- */
  advisor_page (&w, &source);

  draw_footer (&w);
  cairo_show_page (w.cr);
  g_object_unref (w.context);
  cairo_destroy (w.cr);
  cairo_surface_finish (surface);
  status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("%s: writing the report failed: %s"),
                   path,
                   cairo_status_to_string (status));
      return FALSE;
    }

  /* The previous report stays whole until the new one is complete. */
  return hr_file_write_atomic (path, buffer->data, buffer->len, error);
}

gboolean
hr_chart_report_write (const char          *path,
                       const HrScenario    *scenario,
                       HrCatalog           *catalog,
                       const HrChartStyle  *style,
                       GError             **error)
{
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(HrAnalysis) analysis = NULL;
  HrAnalysisOptions options = { 0 };

  g_return_val_if_fail (scenario != NULL, FALSE);
  g_return_val_if_fail (catalog != NULL, FALSE);

  /* The scenario's own card and the reference ones the curve shows. */
  if (scenario->gpu != NULL)
    g_ptr_array_add (gpus, scenario->gpu);
  hr_analysis_add_reference_gpus (gpus, catalog);
  options.gpus = gpus;
  options.lever_sort = HR_KNOB_SORT_COST;
  analysis = hr_analysis_new (scenario, &options);
  return hr_chart_report_write_analysis (path, analysis, catalog, style, error);
}
