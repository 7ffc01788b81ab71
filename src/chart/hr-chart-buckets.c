/* hr-chart-buckets.c: the five buckets as stacked bars
 *
 * Each bar stacks weights, gradients, optimizer state, activations and
 * overhead from the bottom, with the estimate's range as a bracket beside
 * it and each card's usable memory as a line across it, in the card's
 * colour, dash and marker as on the curve.  Cards with the same estimate
 * share a bar, and cards alike a line.  Beside the bar, in one column
 * moved apart where they crowd and tied to what they name by leaders: the
 * segments' sizes that do not fit inside them, and each line's cards and
 * verdict.  Every segment has a pattern of its own, so nothing rests on
 * colour alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <math.h>

#include "hr-chart-buckets.h"
#include "hr-chart-place.h"
#include "hr-chart-series.h"
#include "hr-chart-text.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

/* Room around things, in logical pixels at the screen's size (times the
 * style's spacing) */
#define MARGIN        14.0
#define BAR_MAX_WIDTH 96.0
#define BAR_MIN_WIDTH 14.0
#define RANGE_WIDTH    6.0   /* the I-beam beside the bar */
#define RANGE_GAP      3.0   /* the I-beam to the bar */
#define LABEL_GAP     12.0   /* the bar to the labels beside it */
#define LABEL_SPACING  2.0   /* between two stacked labels */
#define LEGEND_GAP    14.0
#define LEGEND_SWATCH 10.0
#define SWATCH_WIDTH  18.0   /* a card's line and marker before its name */
#define SWATCH_GAP     4.0
#define MARKER_RADIUS  4.0
#define TITLE_GAP     10.0

/* Bars this close in every bucket are one bar: cards alike (see
 * same_estimate()). */
#define SAME_BAR 0.005

/* A size as the chart prints it, in the data's unit (hr-types.h). */
static char *
chart_bytes (const HrBucketChartData *data,
             double                   bytes)
{
  return hr_size_format_full (bytes, data->unit, HR_SIZE_FORMAT_CHART);
}

/* A size in a tooltip or a summary: "15.04 GiB". */
static char *
tooltip_bytes (const HrBucketChartData *data,
               double                   bytes)
{
  return hr_size_format_full (bytes, data->unit, HR_SIZE_FORMAT_TABLE);
}

/* Bytes in one of the data's unit. */
static double
unit_bytes (const HrBucketChartData *data)
{
  return data->unit == HR_SIZE_GB ? 1e9 : GiB;
}

static void
bar_free (HrBucketBar *bar)
{
  g_free (bar->label);
  g_free (bar->card);
  g_free (bar->short_card);
  g_free (bar);
}

HrBucketChartData *
hr_bucket_chart_data_new (void)
{
  HrBucketChartData *data = g_new0 (HrBucketChartData, 1);

  data->bars = g_ptr_array_new_with_free_func ((GDestroyNotify) bar_free);
  return data;
}

void
hr_bucket_chart_data_free (HrBucketChartData *data)
{
  if (data == NULL)
    return;

  g_free (data->title);
  g_free (data->subtitle);
  g_ptr_array_unref (data->bars);
  g_free (data->note);
  g_free (data);
}

HrBucketBar *
hr_bucket_chart_data_add_bar (HrBucketChartData *data,
                              const char        *label)
{
  HrBucketBar *bar = g_new0 (HrBucketBar, 1);

  g_return_val_if_fail (data != NULL, NULL);

  bar->label = g_strdup (label != NULL ? label : "");
  bar->series = data->bars->len;
  g_ptr_array_add (data->bars, bar);
  return bar;
}

HrBucketBar *
hr_bucket_chart_data_add_estimate (HrBucketChartData *data,
                                   const char        *label,
                                   const HrEstimate  *est)
{
  HrBucketBar *bar = hr_bucket_chart_data_add_bar (data, label);

  g_return_val_if_fail (est != NULL, bar);

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    bar->bytes[i] = est->buckets[i];
  bar->low = est->low;
  bar->high = est->high;
  bar->need = est->total;

  if (est->has_fit)
    {
      bar->capacity = est->capacity;
      bar->usable = est->usable;
      bar->card = g_strdup (est->gpu_name);
      bar->short_card = est->gpu_name != NULL ? hr_chart_gpu_short_name (est->gpu_name, NULL, NULL)
                                              : NULL;
      bar->fits = est->fits;
      bar->need = est->need;
    }

  return bar;
}

/* The analysis' fit of @g's card (hr-analysis.h): its verdict, and under
 * XLA's pool its need inside the pool, not the card's whole use. */
static void
bar_take_fit (HrBucketBar         *bar,
              const HrAnalysisGpu *g)
{
  bar->fits = g->fits;
  bar->tight = g->fit == HR_ANALYSIS_FIT_TIGHT;
  bar->need = g->need;
  bar->usable = g->limit.usable;
  if (!g->limit.has_pool || g->estimate->kv_cache > 0 || g->estimate->pool_fraction > 0)
    return;
  bar->bytes[HR_BUCKET_OVERHEAD] = MAX (0, bar->bytes[HR_BUCKET_OVERHEAD] -
                                             (double) g->pool_unused - (double) g->beside_pool);
  bar->pool_unused = g->pool_unused;
  bar->low = g->need_low;
  bar->high = g->need_high;
}

HrBucketChartData *
hr_bucket_chart_data_new_for_analysis (HrAnalysis *analysis)
{
  const HrScenario *scenario = hr_analysis_get_scenario (analysis);
  HrBucketChartData *data = hr_bucket_chart_data_new ();

  g_return_val_if_fail (analysis != NULL, data);

  data->title = g_strdup (scenario->name != NULL && scenario->name[0] != '\0'
                            ? scenario->name : scenario->model->name);
  data->subtitle = g_strdup_printf ("%s · %s · %s · %s%s%s", scenario->model->name,
                                    hr_enum_to_nick (hr_task_names, scenario->task),
                                    hr_enum_to_nick (hr_method_names, scenario->method),
                                    hr_enum_to_nick (hr_compute_names, scenario->compute),
                                    scenario->gpus > 1 ? _(" · per GPU") : "",
                                    hr_analysis_get_calibration (analysis) != NULL
                                      ? _(" · calibrated by measurement") : "");
  data->note = hr_chart_analysis_note (analysis);
  data->unit = hr_analysis_get_unit (analysis);

  if (hr_analysis_get_n_gpus (analysis) == 0)
    {
      g_autofree char *label = g_strdup_printf (_("micro-batch %u"), scenario->micro_batch);

      HrBucketBar *bar = hr_bucket_chart_data_add_estimate (data, label,
                                                            hr_analysis_get_estimate (analysis));

      if (hr_analysis_get_own_gpu (analysis) != NULL)
        bar_take_fit (bar, hr_analysis_get_own_gpu (analysis));
    }
  for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);

      bar_take_fit (hr_bucket_chart_data_add_estimate (data, g->gpu->name, g->estimate), g);
    }

  /* A memory snapshot (or a profiler timeline) among the measurements:
   * what it held at its peak, as a measured bar beside an estimate at the
   * micro-batch it ran, on the scenario's card. */
  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);
      const HrSnapshotDevice *device = m->measurement->snapshot != NULL
        ? hr_snapshot_get_peak_device (m->measurement->snapshot) : NULL;
      guint batch = m->micro_batch;
      HrBucketBar *beside = NULL;
      g_autofree char *base = NULL;
      g_autofree char *label = NULL;

      if (device == NULL)
        continue;
      /* (the scenario's own bar is the one beside it when it is alone
       * and at that micro-batch) */
      if (batch != scenario->micro_batch || hr_analysis_get_n_gpus (analysis) > 1)
        {
          g_autofree char *estimate_label = NULL;

          /* Translators: the estimate's bar beside a measured one */
          estimate_label = g_strdup_printf (_("estimate, micro-batch %u"), batch);
          /* the analysis' estimate at the snapshot's micro-batch */
          beside = hr_bucket_chart_data_add_estimate (data, estimate_label, m->at_micro_batch);
          /* the card's look, as its own bar has it */
          for (guint k = 0; k + 1 < data->bars->len; k++)
            {
              const HrBucketBar *same = g_ptr_array_index (data->bars, k);

              if (beside->card != NULL && same->card != NULL && !same->measured &&
                  g_str_equal (same->card, beside->card))
                {
                  beside->series = same->series;
                  break;
                }
            }
        }
      base = g_path_get_basename (m->measurement->name);
      /* Translators: a measured bar: the file's name, then "✗" when it is
       * of another setup than the scenario's */
      label = g_strdup_printf (_("measured (%s)%s"), base, m->match->differs ? " ✗" : "");
      hr_bucket_chart_data_add_snapshot (data, label, device);
    }
  return data;
}

HrBucketChartData *
hr_bucket_chart_data_new_for_scenario (const HrScenario *scenario)
{
  g_autoptr(HrAnalysis) analysis = NULL;

  g_return_val_if_fail (scenario != NULL, NULL);

  analysis = hr_analysis_new (scenario, NULL);
  return hr_bucket_chart_data_new_for_analysis (analysis);
}

HrBucketBar *
hr_bucket_chart_data_add_snapshot (HrBucketChartData      *data,
                                   const char             *label,
                                   const HrSnapshotDevice *device)
{
  HrBucketBar *bar;
  HrSnapshotBar measured;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (device != NULL, NULL);

  hr_snapshot_device_bar (device, &measured);
  bar = hr_bucket_chart_data_add_bar (data, label);
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    bar->bytes[b] = measured.bytes[b];
  bar->unattributed = measured.bytes[HR_SNAPSHOT_UNATTRIBUTED];
  bar->measured = TRUE;
  bar->need = measured.total;

  /* Beside an estimate's bar the run was on its card: the same line (in
   * the card's look), and a verdict of the same kind. */
  for (guint i = data->bars->len - 1; i-- > 0;)
    {
      const HrBucketBar *before = g_ptr_array_index (data->bars, i);

      if (before->capacity > 0 && !before->measured)
        {
          bar->capacity = before->capacity;
          bar->usable = before->usable;
          bar->card = g_strdup (before->card);
          bar->short_card = g_strdup (before->short_card);
          bar->series = before->series;
          bar->fits = bar->need <= bar->usable;
          break;
        }
    }
  return bar;
}

double
hr_bucket_bar_peak (const HrBucketBar *bar)
{
  return bar->pool_unused > 0 ? bar->need : hr_bucket_bar_total (bar);
}

double
hr_bucket_bar_total (const HrBucketBar *bar)
{
  double total = bar->unattributed + bar->pool_unused;

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    total += bar->bytes[i];
  return total;
}

static void
card_line_clear (gpointer data)
{
  HrBucketCardLine *line = data;

  g_clear_pointer (&line->bars, g_array_unref);
  hr_chart_label_clear (&line->label);
  hr_chart_label_clear (&line->detail);
}

static void
bar_layout_clear (gpointer data)
{
  HrBucketBarLayout *bar = data;

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    hr_chart_label_clear (&bar->segment_labels[i]);
  hr_chart_label_clear (&bar->unattributed_label);
  hr_chart_label_clear (&bar->name);
  hr_chart_label_clear (&bar->total);
  g_clear_pointer (&bar->members, g_array_unref);
  g_clear_pointer (&bar->cards, g_array_unref);
}

void
hr_bucket_chart_layout_free (HrBucketChartLayout *layout)
{
  if (layout == NULL)
    return;

  g_array_unref (layout->y_ticks);
  g_array_unref (layout->bars);
  g_array_unref (layout->labels);
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    hr_chart_label_clear (&layout->legend_labels[i]);
  g_free (layout);
}

void
hr_bucket_chart_layout_collect_labels (const HrBucketChartLayout *layout,
                                       GPtrArray                 *labels)
{
  g_return_if_fail (layout != NULL && labels != NULL);

  for (guint i = 0; i < layout->labels->len; i++)
    g_ptr_array_add (labels, &g_array_index (layout->labels, HrChartLabel, i));
  for (guint i = 0; i < layout->y_ticks->len; i++)
    g_ptr_array_add (labels, &g_array_index (layout->y_ticks, HrAxisTick, i).label);
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    if (layout->legend_labels[i].text != NULL)
      g_ptr_array_add (labels, (gpointer) &layout->legend_labels[i]);
  for (guint i = 0; i < layout->bars->len; i++)
    {
      HrBucketBarLayout *bar = &g_array_index (layout->bars, HrBucketBarLayout, i);
      HrChartLabel *own[] = { &bar->total, &bar->name };

      for (guint b = 0; b < HR_N_BUCKETS; b++)
        if (bar->segment_labels[b].text != NULL)
          g_ptr_array_add (labels, &bar->segment_labels[b]);
      if (bar->unattributed_label.text != NULL)
        g_ptr_array_add (labels, &bar->unattributed_label);
      for (guint k = 0; k < G_N_ELEMENTS (own); k++)
        if (own[k]->text != NULL)
          g_ptr_array_add (labels, own[k]);
      for (guint c = 0; c < bar->cards->len; c++)
        {
          HrBucketCardLine *line = &g_array_index (bar->cards, HrBucketCardLine, c);

          if (line->label.text != NULL)
            g_ptr_array_add (labels, &line->label);
          if (line->detail.text != NULL)
            g_ptr_array_add (labels, &line->detail);
        }
    }
}

double
hr_bucket_chart_y_position (const HrBucketChartLayout *layout,
                            double                     bytes)
{
  return layout->plot.y + layout->plot.height - bytes / layout->y_max * layout->plot.height;
}

/* A label of @text wrapped at @max_width, never cut. */
static HrChartLabel
wrapped_label (PangoContext       *context,
               const HrChartStyle *style,
               const char         *text,
               HrChartFont         font,
               HrChartTextRole     role,
               HrAlign             align,
               double              max_width)
{
  double w;

  hr_chart_text_size (context, style, font, text, 0, &w, NULL);
  return hr_chart_label_new (context, style, g_strdup (text), font, role, align,
                             max_width > 0 && w > max_width ? max_width : 0, 0, 0);
}

/* Two bars draw the same when every bucket and the range agree to the
 * chart's resolution: half a percent, or 0.05 GiB. */
static gboolean
same_amount (double a,
             double b)
{
  return fabs (a - b) <= MAX (SAME_BAR * MAX (fabs (a), fabs (b)), 0.05 * GiB);
}

static gboolean
same_estimate (const HrBucketBar *a,
               const HrBucketBar *b)
{
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    if (!same_amount (a->bytes[i], b->bytes[i]))
      return FALSE;
  /* a measured bar is never an estimate's */
  return same_amount (a->low, b->low) && same_amount (a->high, b->high) &&
         (a->capacity > 0) == (b->capacity > 0) && a->measured == b->measured &&
         same_amount (a->unattributed, b->unattributed) &&
         same_amount (a->pool_unused, b->pool_unused);
}

/* The data's bars as drawn: consecutive bars of one estimate (cards alike
 * under PyTorch) make one. */
static GPtrArray *
group_bars (const HrBucketChartData *data)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  for (guint i = 0; i < data->bars->len; i++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);
      GArray *home = NULL;

      for (guint g = 0; g < groups->len && home == NULL; g++)
        {
          GArray *group = g_ptr_array_index (groups, g);
          guint head = g_array_index (group, guint, 0);
          const HrBucketBar *first = g_ptr_array_index (data->bars, head);

          if (first->card != NULL && bar->card != NULL && same_estimate (first, bar))
            home = group;
        }
      if (home == NULL)
        {
          home = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (groups, home);
        }
      g_array_append_val (home, i);
    }
  return groups;
}

/* Whether two cards print the same line under a bar: the same usable
 * memory and the same room or shortfall, as printed, and the same
 * verdict; cards that differ in any printed figure are named apart. */
static gboolean
cards_print_alike (const HrBucketChartData *data,
                   const HrBucketBar       *a,
                   const HrBucketBar       *b)
{
  g_autofree char *usable_a = chart_bytes (data, a->usable);
  g_autofree char *usable_b = chart_bytes (data, b->usable);
  g_autofree char *room_a = chart_bytes (data, fabs (a->usable - a->need));
  g_autofree char *room_b = chart_bytes (data, fabs (b->usable - b->need));

  return a->fits == b->fits && a->tight == b->tight && g_str_equal (usable_a, usable_b) && g_str_equal (room_a, room_b);
}

/* The cards of one drawn bar, one line for cards alike. */
static GPtrArray *
group_cards (const HrBucketChartData *data,
             const GArray            *members)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  for (guint k = 0; k < members->len; k++)
    {
      guint i = g_array_index (members, guint, k);
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);
      GArray *home = NULL;

      if (bar->capacity <= 0)
        continue;
      for (guint g = 0; g < groups->len && home == NULL; g++)
        {
          GArray *group = g_ptr_array_index (groups, g);
          guint head = g_array_index (group, guint, 0);
          const HrBucketBar *first = g_ptr_array_index (data->bars, head);

          if (cards_print_alike (data, first, bar))
            home = group;
        }
      if (home == NULL)
        {
          home = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (groups, home);
        }
      g_array_append_val (home, i);
    }
  return groups;
}

/* A bar says what it is under it when that is not its card's name: a
 * variant ("bf16 mixed", "micro-batch 2"), or a bar without a card. */
static gboolean
bar_has_name (const HrBucketBar *bar)
{
  return bar->card == NULL || !g_str_equal (bar->label, bar->card);
}

/* How a line's cards are named: in full, as people say them, or so, one
 * a line. */
typedef enum {
  NAMES_FULL,
  NAMES_SHORT,
  NAMES_STACKED,
} NameForm;

static char *
card_names (const HrBucketChartData *data,
            const GArray            *cards,
            NameForm                 form)
{
  GString *names = g_string_new (NULL);
  g_autoptr(GPtrArray) said = g_ptr_array_new ();

  for (guint k = 0; k < cards->len; k++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, g_array_index (cards, guint, k));
      const char *name = form != NAMES_FULL && bar->short_card != NULL ? bar->short_card
                                                                       : bar->card;

      /* a card twice on one line (its bar and the estimate beside a
       * snapshot of it) is named once */
      if (g_ptr_array_find_with_equal_func (said, name, g_str_equal, NULL))
        continue;
      /* Translators: between the names of cards that share a line, on one
       * line or one a line */
      g_string_append_printf (names, "%s%s", said->len == 0 ? ""
                                             : form == NAMES_STACKED ? _(",\n") : _(", "),
                              name);
      g_ptr_array_add (said, (gpointer) name);
    }
  return g_string_free (names, FALSE);
}

/* "21.6 GiB usable · ✓ 3.5 GiB spare": words and a sign, never colour
 * alone; when the fit is not about the whole bar (JAX's pool), it says
 * what it is about. */
static char *
card_detail (const HrBucketChartData *data,
             const GArray            *cards,
             gboolean                 brief)
{
  const HrBucketBar *bar = g_ptr_array_index (data->bars, g_array_index (cards, guint, 0));
  double margin = G_MAXDOUBLE, usable = G_MAXDOUBLE;
  gboolean pool = bar->need < 0.99 * hr_bucket_bar_total (bar);
  g_autofree char *amount = NULL;
  g_autofree char *room = NULL;

  /* cards alike: the least room of them */
  for (guint k = 0; k < cards->len; k++)
    {
      const HrBucketBar *b = g_ptr_array_index (data->bars, g_array_index (cards, guint, k));

      margin = MIN (margin, fabs (b->usable - b->need));
      usable = MIN (usable, b->usable);
    }
  amount = chart_bytes (data, margin);
  room = chart_bytes (data, usable);

  if (brief)
    return bar->tight ? g_strdup_printf (_("⚠ %s spare, tight"), amount)
           : bar->fits ? g_strdup_printf (_("✓ %s spare"), amount)
                       : g_strdup_printf (_("✗ %s over"), amount);
  if (bar->tight)
    /* Translators: only the central estimate fits: the high end of its
     * range may not */
    return g_strdup_printf (pool ? _("%s usable · ⚠ %s spare in XLA's pool, tight")
                                 : _("%s usable · ⚠ %s spare, tight"), room, amount);
  if (bar->fits)
    /* Translators: a card's usable memory, then how much the estimate
     * leaves of it */
    return g_strdup_printf (pool ? _("%s usable · ✓ %s spare in XLA's pool")
                                 : _("%s usable · ✓ %s spare"), room, amount);
  return g_strdup_printf (pool ? _("%s usable · ✗ %s over XLA's pool")
                               : _("%s usable · ✗ %s over"), room, amount);
}

/* A segment's bytes: a bucket's, or (HR_N_BUCKETS) a measured bar's
 * unattributed memory on top. */
static double
segment_bytes (const HrBucketBar *bar,
               guint              bucket)
{
  return bucket < HR_N_BUCKETS ? bar->bytes[bucket] : bar->unattributed + bar->pool_unused;
}

/* The name of the part on top of the stack, which the legend lacks. */
static const char *
top_segment_name (const HrBucketBar *bar)
{
  /* Translators: memory of a measured bar no rule put in a bucket; or
   * the part of XLA's preallocated pool the run does not use */
  return bar->pool_unused > 0 ? _("held by XLA, unused") : _("unattributed");
}

static char *
segment_text (const HrBucketChartData *data,
              const HrBucketBar       *bar,
              guint                    bucket,
              guint                    level)
{
  double total = hr_bucket_bar_total (bar);
  double share = total > 0 ? 100.0 * segment_bytes (bar, bucket) / total : 0;
  g_autofree char *size = chart_bytes (data, segment_bytes (bar, bucket));
  g_autofree char *percent = share > 0 && share < 1 ? g_strdup ("<1%")
                                                    : g_strdup_printf ("%.0f%%", share);

  /* the name, the size and the share; then less, as room runs out (the
   * legend names each segment by its colour and pattern; the hatched
   * unattributed part keeps its name, which the legend lacks) */
  if (level == 0 || bucket == HR_N_BUCKETS)
    return g_strdup_printf ("%s  %s · %s", bucket < HR_N_BUCKETS ? hr_bucket_get_label (bucket)
                                                                 : top_segment_name (bar),
                            size, percent);
  if (level == 1)
    return g_strdup_printf ("%s · %s", size, percent);
  return g_steal_pointer (&size);
}

/* A block in a column beside a bar: a segment's size, the total, or a
 * line's cards; its anchor is the y it names. */
typedef struct {
  double        anchor;
  double        height;
  double        top;
  HrChartLabel *label;
  HrChartLabel *second;   /* a card's detail under its names */
  int           bucket;   /* the segment, -1 for others */
  int           card;     /* the card line, -1 for others */
  gboolean      total;
  int           priority; /* the least goes first when there is no room; 100 stays */
} Block;

static int
compare_blocks (gconstpointer a,
                gconstpointer b)
{
  const Block *ba = a, *bb = b;

  return (ba->anchor > bb->anchor) - (ba->anchor < bb->anchor);
}

/* The column's blocks, moved apart within [top, bottom], each as near its
 * anchor as the others let it; the least important go while they do not
 * fit.  Returns the blocks kept. */
static guint
spread_column (Block  *blocks,
               guint   n,
               double  gap,
               double  top,
               double  bottom)
{
  g_autofree double *tops = g_new0 (double, MAX (n, 1));
  g_autofree double *heights = g_new0 (double, MAX (n, 1));

  for (;;)
    {
      double total = 0;
      int weakest = -1;

      for (guint i = 0; i < n; i++)
        total += blocks[i].height + (i > 0 ? gap : 0);
      if (total <= bottom - top || n == 0)
        break;
      for (guint i = 0; i < n; i++)
        if (weakest < 0 || blocks[i].priority < blocks[weakest].priority)
          weakest = i;
      if (blocks[weakest].priority >= 100)
        break;
      /* not drawn */
      hr_chart_label_clear (blocks[weakest].label);
      memmove (&blocks[weakest], &blocks[weakest + 1], (n - weakest - 1) * sizeof *blocks);
      n--;
    }

  qsort (blocks, n, sizeof *blocks, compare_blocks);
  for (guint i = 0; i < n; i++)
    {
      tops[i] = blocks[i].anchor - blocks[i].label->box.height / 2;
      heights[i] = blocks[i].height;
    }
  hr_place_spread (tops, heights, n, gap, top, bottom);
  for (guint i = 0; i < n; i++)
    blocks[i].top = tops[i];
  return n;
}

typedef struct {
  const HrBucketChartData *data;
  const HrChartStyle      *style;
  PangoContext            *context;
  HrBucketChartLayout     *layout;
  double                   s;
} Builder;

/* How a bar's segments are labelled, from the most said to the least. */
typedef enum {
  SEGMENTS_NAMED,       /* all beside the bar: "Weights  15.0 GiB · 83%" */
  SEGMENTS_SIZED,       /* all beside: "15.0 GiB · 83%" */
  SEGMENTS_INSIDE,      /* inside where they fit, their size beside where not */
  SEGMENTS_INSIDE_ONLY, /* inside where they fit (the legend names the rest) */
} SegmentLevel;

/* The texts a bar's layout weighs, each made and measured once: the
 * layout tries up to twelve ways of fitting its slot, every one with the
 * same sizes, names and verdicts. */
typedef struct {
  char   *text;
  double  width;      /* on one line */
} Measured;

typedef struct {
  Builder           *b;
  const HrBucketBar *bar;
  GPtrArray         *cards;
  Measured          *names;                           /* [card][NameForm] */
  Measured          *details;                         /* [card][brief] */
  Measured           segments[HR_N_BUCKETS + 1][3];   /* [bucket][level] */
  Measured           sizes[HR_N_BUCKETS];             /* inside the segment */
  double             size_heights[HR_N_BUCKETS];
} BarTexts;

static void
bar_texts_init (BarTexts          *t,
                Builder           *b,
                const HrBucketBar *bar,
                GPtrArray         *cards)
{
  *t = (BarTexts) { b, bar, cards, g_new0 (Measured, cards->len * 3),
                    g_new0 (Measured, cards->len * 2) };
}

static void
bar_texts_clear (BarTexts *t)
{
  for (guint c = 0; c < t->cards->len * 3; c++)
    g_free (t->names[c].text);
  for (guint c = 0; c < t->cards->len * 2; c++)
    g_free (t->details[c].text);
  for (guint i = 0; i <= HR_N_BUCKETS; i++)
    for (guint level = 0; level < 3; level++)
      g_free (t->segments[i][level].text);
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    g_free (t->sizes[i].text);
  g_free (t->names);
  g_free (t->details);
}

static const Measured *
measured (Builder     *b,
          Measured    *m,
          char        *text,
          HrChartFont  font)
{
  if (m->text == NULL)
    {
      m->text = text;
      hr_chart_text_size (b->context, b->style, font, m->text, 0, &m->width, NULL);
    }
  else
    g_free (text);
  return m;
}

static const Measured *
bar_card_names (BarTexts *t,
                guint     card,
                NameForm  form)
{
  Measured *m = &t->names[card * 3 + form];

  return m->text != NULL ? m : measured (t->b, m, card_names (t->b->data,
                                                              g_ptr_array_index (t->cards, card),
                                                              form),
                                         HR_CHART_FONT_SMALL_BOLD);
}

static const Measured *
bar_card_detail (BarTexts *t,
                 guint     card,
                 gboolean  brief)
{
  Measured *m = &t->details[card * 2 + (brief ? 1 : 0)];

  return m->text != NULL ? m : measured (t->b, m, card_detail (t->b->data,
                                                               g_ptr_array_index (t->cards, card),
                                                               brief),
                                         HR_CHART_FONT_SMALL);
}

/* A segment's text beside the bar (HR_N_BUCKETS: the unattributed part). */
static const Measured *
bar_segment_text (BarTexts *t,
                  guint     bucket,
                  guint     level)
{
  Measured *m = &t->segments[bucket][MIN (level, 2)];

  return m->text != NULL ? m : measured (t->b, m, segment_text (t->b->data, t->bar, bucket, MIN (level, 2)),
                                         HR_CHART_FONT_SMALL);
}

/* A segment's size, as it is written inside the segment. */
static const Measured *
bar_segment_size (BarTexts *t,
                  guint     bucket)
{
  Measured *m = &t->sizes[bucket];

  if (m->text == NULL)
    {
      m->text = chart_bytes (t->b->data, t->bar->bytes[bucket]);
      hr_chart_text_size (t->b->context, t->b->style, HR_CHART_FONT_SMALL, m->text, 0,
                          &m->width, &t->size_heights[bucket]);
    }
  return m;
}

static gboolean
fits_inside (BarTexts *t,
             guint     bucket,
             double    bar_w)
{
  Builder *b = t->b;
  double h = t->bar->bytes[bucket] / b->layout->y_max * b->layout->plot.height;
  const Measured *size = bar_segment_size (t, bucket);

  return size->width + 4 * b->s <= bar_w && t->size_heights[bucket] + 1 <= h;
}

/* Whether a measured bar's unattributed part has a label beside the bar
 * (it has none inside: its name is said nowhere else). */
static gboolean
has_unattributed (const HrBucketBar *bar,
                  SegmentLevel       level)
{
  return segment_bytes (bar, HR_N_BUCKETS) > 0 && level < SEGMENTS_INSIDE_ONLY;
}

/* The width the segments' column needs at @level. */
static double
segments_need (BarTexts     *t,
               SegmentLevel  level,
               double        bar_w)
{
  const HrBucketBar *bar = t->bar;
  double need = 0;

  if (level == SEGMENTS_INSIDE_ONLY)
    return 0;
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    if (bar->bytes[i] > 0 && !(level == SEGMENTS_INSIDE && fits_inside (t, i, bar_w)))
      need = MAX (need, bar_segment_text (t, i, level)->width);
  if (has_unattributed (bar, level))
    need = MAX (need, bar_segment_text (t, HR_N_BUCKETS, level)->width);
  return need;
}

/* The width the cards' column needs, their names in full or short, their
 * verdict brief or whole. */
static double
cards_need (BarTexts *t,
            NameForm  form,
            gboolean  brief)
{
  double need = 0, lead = (SWATCH_WIDTH + SWATCH_GAP) * t->b->s;

  for (guint c = 0; c < t->cards->len; c++)
    need = MAX (need, lead + MAX (bar_card_names (t, c, form)->width,
                                  bar_card_detail (t, c, brief)->width));
  return need;
}

/* Puts a column's spread blocks at @x, with their leaders: the segments'
 * (right-aligned, left of the bar) or the cards' and the total (right of
 * it). */
static void
place_column (HrBucketBarLayout *bl,
              Block             *blocks,
              guint              n_blocks,
              double             x,
              double             width,
              gboolean           left,
              double             lead,
              double             s)
{
  for (guint i = 0; i < n_blocks; i++)
    {
      Block *block = &blocks[i];
      double middle = block->top + block->label->box.height / 2;

      if (block->card >= 0)
        {
          HrBucketCardLine *line = &g_array_index (bl->cards, HrBucketCardLine, block->card);

          line->swatch = (HrRect) { x, block->top, SWATCH_WIDTH * s, line->label.box.height };
          line->label.box.x = x + lead;
          line->label.box.y = block->top;
          line->detail.box.x = x + lead;
          line->detail.box.y = block->top + line->label.box.height;
          line->has_leader = TRUE;
          line->leader_from = (HrPoint) { line->x_end, line->y };
          line->leader_to = (HrPoint) { x - 1, middle };
          continue;
        }
      block->label->box.x = left ? x + width - block->label->box.width : x;
      block->label->box.y = block->top;
      if (block->bucket == HR_N_BUCKETS)
        {
          const HrRect *seg = &bl->unattributed;

          bl->unattributed_leader[0] = (HrPoint) { seg->x - 1, seg->y + seg->height / 2 };
          bl->unattributed_leader[1] = (HrPoint) { x + width + 2 * s, middle };
        }
      else if (block->bucket >= 0)
        {
          const HrRect *seg = &bl->segments[block->bucket];

          bl->leader_from[block->bucket] = (HrPoint) { seg->x - 1, seg->y + seg->height / 2 };
          bl->leader_to[block->bucket] = (HrPoint) { x + width + 2 * s, middle };
        }
      else if (block->total)
        {
          bl->total_leader = TRUE;
          bl->total_from = (HrPoint) { bl->bar.x + bl->bar.width + 1, bl->bar.y };
          bl->total_to = (HrPoint) { x - 2 * s, middle };
        }
    }
}

/* Whether a slot @slot_width wide has no room beside its bar for its
 * cards' names at their briefest (as people say them, one a line) and
 * their verdicts: then they go under the plot. */
static gboolean
slot_is_narrow (Builder   *b,
                GArray    *members,
                double     slot_width)
{
  g_autoptr(GPtrArray) cards = group_cards (b->data, members);
  const HrBucketBar *bar = g_ptr_array_index (b->data->bars, g_array_index (members, guint, 0));
  double s = b->s;
  double bar_w = CLAMP (slot_width * 0.3, BAR_MIN_WIDTH * s, BAR_MAX_WIDTH * s);
  BarTexts texts;
  gboolean narrow;

  if (cards->len == 0)
    return FALSE;
  bar_texts_init (&texts, b, bar, cards);
  narrow = bar_w + (RANGE_WIDTH + RANGE_GAP) * s + LABEL_GAP * s +
           cards_need (&texts, NAMES_STACKED, TRUE) > slot_width - 2 * s;
  bar_texts_clear (&texts);
  return narrow;
}

/* The height of a narrow slot's cards under the plot. */
static double
narrow_names_height (Builder *b,
                     GArray  *members,
                     double   slot_width)
{
  g_autoptr(GPtrArray) cards = group_cards (b->data, members);
  double s = b->s, lead = (SWATCH_WIDTH + SWATCH_GAP) * s, height = 0;

  for (guint c = 0; c < cards->len; c++)
    {
      g_autofree char *names = card_names (b->data, g_ptr_array_index (cards, c), NAMES_STACKED);
      g_autofree char *detail = card_detail (b->data, g_ptr_array_index (cards, c), TRUE);
      double hn, hd;

      hr_chart_text_size (b->context, b->style, HR_CHART_FONT_SMALL_BOLD, names,
                          slot_width - 2 * s - lead, NULL, &hn);
      hr_chart_text_size (b->context, b->style, HR_CHART_FONT_SMALL, detail,
                          slot_width - 2 * s - lead, NULL, &hd);
      height += hn + hd + (c > 0 ? LABEL_SPACING * s : 0);
    }
  return height;
}

/* What layout_bar decides across its slot: given the slot, the widths
 * of the bar and of the columns beside it, how much text they hold, and
 * where they go. */
typedef struct {
  double       slot_x;
  double       slot_width;
  double       top_limit;
  gboolean     narrow;       /* the cards go under the plot */
  gboolean     several;      /* beside other bars */
  SegmentLevel level;
  NameForm     form;
  double       bar_w;
  double       left_w;       /* the segments' column, left of the bar; 0: none */
  double       right_w;      /* the cards' column, right of it; 0: none */
  double       x0;           /* where the group starts */
  double       bar_x;
  double       right_x;
} BarPlan;

/* The widths, the text and the group's start across @plan's slot. */
static void
plan_bar_widths (Builder   *b,
                 BarTexts  *said,
                 GPtrArray *cards,
                 BarPlan   *plan)
{
  double s = b->s;
  double range_w = (RANGE_WIDTH + RANGE_GAP) * s;
  double gap = LABEL_GAP * s;
  double slot_x = plan->slot_x, slot_width = plan->slot_width;
  gboolean narrow = plan->narrow, several = plan->several;
  double bar_w = 0, left_w = 0, right_w = 0, x0;
  SegmentLevel level = SEGMENTS_NAMED;
  NameForm form = NAMES_FULL;
  gboolean found = FALSE;

  /* The most text that fits across the slot, with a bar at least
   * BAR_MIN_WIDTH wide: the cards' names in full, then as people say
   * them; the segments' text less and less. */
  for (guint attempt = 0; attempt < 12 && !found; attempt++)
    {
      double min_bar = BAR_MIN_WIDTH * s;

      form = (NameForm) (attempt % 3);
      /* beside several bars, the legend names the segments: sizes only */
      level = (SegmentLevel) MAX (attempt / 3, several ? SEGMENTS_INSIDE : SEGMENTS_NAMED);
      /* a narrow slot's cards go under the plot */
      right_w = cards->len > 0 && !narrow ? cards_need (said, form, TRUE) : 0;
      bar_w = CLAMP (slot_width * 0.3, min_bar, BAR_MAX_WIDTH * s);
      left_w = segments_need (said, level, bar_w);
      /* beside several bars, a column of sizes wider than a third of the
       * slot crowds more than it says */
      if (several && left_w + gap > slot_width / 3)
        continue;
      /* the bar gives up to a third of its width before the text gives
       * up a word */
      {
        double beside = (left_w > 0 ? left_w + gap : 0) + range_w +
                        (right_w > 0 ? gap + right_w : 0);
        double least = MAX (min_bar, bar_w * 2 / 3);

        if (beside + least <= slot_width - 2 * s)
          {
            bar_w = MIN (bar_w, slot_width - 2 * s - beside);
            found = TRUE;
          }
      }
      if (!found && attempt == 11)
        {
          /* nothing fits: the bar narrows to its least, values inside */
          bar_w = MAX (min_bar, MIN (slot_width * 0.5, BAR_MAX_WIDTH * s));
          left_w = 0;
          if (right_w > 0)
            right_w = MAX (slot_width - 2 * s - bar_w - range_w - gap, 8);
        }
    }

  /* the group, centred in its slot; a wide slot widens the bar */
  {
    double used = (left_w > 0 ? left_w + gap : 0) + bar_w + range_w +
                  (right_w > 0 ? gap + right_w : 0);
    double spare = slot_width - 2 * s - used;

    /* room to spare: the verdicts in full, then a wider bar */
    if (spare > 0 && right_w > 0)
      {
        double whole = cards_need (said, form, FALSE);
        double more = MIN (spare, MAX (0, whole - right_w));

        right_w += more;
        used += more;
        spare -= more;
      }
    if (spare > 0)
      {
        double wider = MIN (spare * 0.5, BAR_MAX_WIDTH * s - bar_w);

        if (wider > 0)
          {
            bar_w += wider;
            used += wider;
          }
      }
    x0 = slot_x + s + MAX (0, (slot_width - 2 * s - used) / 2);
  }
  plan->level = level;
  plan->form = form;
  plan->bar_w = bar_w;
  plan->left_w = left_w;
  plan->right_w = right_w;
  plan->x0 = x0;
}

/* The segments' leaders, when they would meet the bar within a third of
 * the height they leave the labels over, run together: one bracket, at
 * @x, says it better. */
static void
bracket_leaders (HrBucketBarLayout *bl,
                 double             x,
                 double             s)
{
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, from_lo = G_MAXDOUBLE, from_hi = -G_MAXDOUBLE;
  guint n = 0;

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    if (bl->segment_labels[i].text != NULL && !bl->label_inside[i])
      {
        lo = MIN (lo, bl->leader_to[i].y);
        hi = MAX (hi, bl->leader_to[i].y);
        from_lo = MIN (from_lo, bl->leader_from[i].y);
        from_hi = MAX (from_hi, bl->leader_from[i].y);
        n++;
      }
  if (n >= 3 && bl->unattributed_label.text == NULL && from_hi - from_lo < (hi - lo) / 3)
    {
      bl->bracketed = TRUE;
      bl->bracket_x = x + 5 * s;
    }
}

static void
keep_sizes_clear_of_cards (HrBucketBarLayout  *bl,
                           const HrChartStyle *style)
{
  /* a size inside its segment stays clear of the card lines across it:
   * moved within the segment, or left out (the legend and the line say
   * the rest) */
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      HrChartLabel *label = &bl->segment_labels[i];
      const HrRect *seg = &bl->segments[i];

      if (label->text == NULL || !bl->label_inside[i])
        continue;
      for (guint c = 0; c < bl->cards->len; c++)
        {
          const HrBucketCardLine *line = &g_array_index (bl->cards, HrBucketCardLine, c);
          double pad = style->line_width;

          if (line->y + pad <= label->box.y || line->y - pad >= label->box.y + label->box.height)
            continue;
          /* below the line, or above it, while inside the segment */
          if (line->y + pad + label->box.height <= seg->y + seg->height)
            label->box.y = line->y + pad;
          else if (line->y - pad - label->box.height >= seg->y)
            label->box.y = line->y - pad - label->box.height;
          else
            {
              hr_chart_label_clear (label);
              break;
            }
        }
    }
}

/* The total as a block of the cards' column, where it goes when it
 * finds no place over the bar. */
static Block
total_block (HrBucketBarLayout *bl)
{
  Block block = { bl->bar.y, bl->total.box.height, 0, &bl->total, NULL, -1, -1, TRUE, 100 };

  return block;
}

/* "(12.8–16.1)", a bar's range in the data's unit; NULL when it has
 * none. */
static char *
range_text (const HrBucketChartData *data,
            const HrBucketBar       *bar)
{
  if (bar->high <= 0)
    return NULL;
  return g_strdup_printf ("(%.1f–%.1f)", bar->low / unit_bytes (data),
                          bar->high / unit_bytes (data));
}

/* The total and its range over the bar, clear of what @placer knows:
 * on one line, on two (narrower), or the total alone (@t); whether a
 * place was found. */
static gboolean
place_total_over_bar (Builder           *b,
                      HrBucketBarLayout *bl,
                      const HrBucketBar *bar,
                      const BarPlan     *plan,
                      HrPlacer          *placer,
                      const char        *t,
                      const char        *text,
                      double             above)
{
  const HrChartStyle *style = b->style;
  double s = b->s;
  double bar_x = plan->bar_x, bar_w = plan->bar_w;
  gboolean several = plan->several;
  gboolean placed = FALSE;

  /* the total and its range on one line, on two (narrower), or the
   * total alone (the bracket still shows the range): the nearest
   * place over the bar wins, a form that says less paying a little */
  g_autofree char *range = range_text (b->data, bar);
  g_autofree char *stacked = range != NULL ? g_strdup_printf ("%s\n%s", t, range) : NULL;
  const char *texts[] = { text, stacked, t };
  static const double form_price[] = { 0, 4, 25 };
  HrChartLabel forms[3] = { { 0 } };
  HrRect candidates[3 * 3 * (8 + 2 * 16)];
  double prices[G_N_ELEMENTS (candidates)];
  guint form_of[G_N_ELEMENTS (candidates)];
  guint n = 0, n_forms = range != NULL ? 3 : 1;
  int chosen;

  /* beside other bars, every bar says its total alike: alone (each
   * bar's bracket shows its range) */
  for (guint f = several && range != NULL ? 2 : 0; f < n_forms; f++)
    {
      double w, h, lowest, ys[8 + 2 * 16];
      guint n_ys = 0;

      forms[f] = hr_chart_label_new (b->context, style, g_strdup (texts[f]),
                                     HR_CHART_FONT_BOLD, HR_TEXT_FOREGROUND, HR_ALIGN_CENTER,
                                     0, 0, 0);
      w = forms[f].box.width;
      h = forms[f].box.height;
      lowest = above - 2 * s - h;
      /* over the bar, then higher by half a line, and just under or
       * over each card's line (the gap between two lines may be
       * narrower than a step) */
      for (guint step = 0; step < 8; step++)
        ys[n_ys++] = lowest - step * (h / 2);
      for (guint c = 0; c < bl->cards->len && c < 16; c++)
        {
          double line_y = g_array_index (bl->cards, HrBucketCardLine, c).y;

          if (line_y + 2 <= lowest)
            ys[n_ys++] = line_y + 2;
          if (line_y - 2 - h <= lowest)
            ys[n_ys++] = line_y - 2 - h;
        }
      /* centred or edging aside; the nearer the bar, the better */
      for (guint k = 0; k < n_ys; k++)
        for (guint side = 0; side < 3; side++)
          {
            /* centred, right of centre, left of it */
            double cx = bar_x + bar_w / 2 + (side == 1 ? w / 3 : 0) - (side == 2 ? w / 3 : 0);

            candidates[n] = (HrRect) { cx - w / 2, ys[k], w, h };
            prices[n] = (lowest - ys[k]) / MAX (h / 2, 1) * 10 + side * 3 + form_price[f];
            form_of[n] = f;
            n++;
          }
    }
  chosen = hr_placer_choose (placer, candidates, prices, n);
  if (chosen >= 0)
    {
      bl->total = forms[form_of[chosen]];
      forms[form_of[chosen]] = (HrChartLabel) { 0 };
      bl->total.box = candidates[chosen];
      placed = TRUE;
    }
  for (guint f = 0; f < n_forms; f++)
    hr_chart_label_clear (&forms[f]);
  return placed;
}

/* The bar's total (with its range), placed (layout_bar): over the bar,
 * else alone, else in the cards' column. */
static void
place_total (Builder            *b,
             HrBucketBarLayout  *bl,
             const HrBucketBar  *bar,
             const BarPlan      *plan,
             Block              *left,
             guint               n_left,
             Block              *right,
             guint               n_right)
{
  const HrChartStyle *style = b->style;
  double s = b->s;
  double total = hr_bucket_bar_peak (bar);
  double lead = (SWATCH_WIDTH + SWATCH_GAP) * s;
  double bottom = b->layout->plot.y + b->layout->plot.height;
  double slot_x = plan->slot_x, slot_width = plan->slot_width, top_limit = plan->top_limit;
  double bar_x = plan->bar_x, bar_w = plan->bar_w;
  double right_x = plan->right_x, right_w = plan->right_w;
  gboolean narrow = plan->narrow;
  g_autoptr(HrPlacer) placer = NULL;

  /* the total (and its range) over the bar and its bracket, clear of the
   * card lines, the columns and the leaders; else with the cards, at the
   * bar's top */
  placer = hr_placer_new (&(HrRect) { slot_x, top_limit, slot_width, bottom - top_limit }, 0);
  hr_placer_block (placer, &bl->bar);
  if (bl->range.height > 0)
    {
      HrRect around = { bl->range.x - 1, bl->range.y - 1, 0, 0 };

      around.width = bl->range.width + 2;
      around.height = bl->range.height + 2;
      hr_placer_block (placer, &around);
    }
  {
    g_autofree char *t = chart_bytes (b->data, total);
    g_autofree char *text = NULL;
    double above = MIN (bl->bar.y, bl->range.height > 0 ? bl->range.y : bl->bar.y);
    gboolean placed = FALSE;

    if (bar->high > 0)
      text = g_strdup_printf ("%s (%.1f–%.1f)", t, bar->low / unit_bytes (b->data),
                              bar->high / unit_bytes (b->data));
    else
      text = g_strdup (t);
    for (guint i = 0; i < n_left; i++)
      hr_placer_take (placer, &left[i].label->box);
    for (guint i = 0; i < n_right; i++)
      {
        hr_placer_take (placer, &right[i].label->box);
        hr_placer_take (placer, &right[i].second->box);
      }
    if (narrow)
      hr_placer_avoid (placer, &(HrRect) { slot_x, bottom, slot_width, 1 }, HR_PLACE_FORBIDDEN);
    for (guint i = 0; i < HR_N_BUCKETS; i++)
      if (bl->segment_labels[i].text != NULL && !bl->label_inside[i])
        hr_placer_avoid_segment (placer, bl->leader_from[i].x, bl->leader_from[i].y,
                                 bl->leader_to[i].x, bl->leader_to[i].y, 1, HR_PLACE_FORBIDDEN);
    if (bl->unattributed_label.text != NULL)
      hr_placer_avoid_segment (placer, bl->unattributed_leader[0].x, bl->unattributed_leader[0].y,
                               bl->unattributed_leader[1].x, bl->unattributed_leader[1].y, 1,
                               HR_PLACE_FORBIDDEN);
    for (guint c = 0; c < bl->cards->len; c++)
      {
        const HrBucketCardLine *line = &g_array_index (bl->cards, HrBucketCardLine, c);

        hr_placer_avoid_segment (placer, line->x_start, line->y, line->x_end, line->y, 1,
                                 HR_PLACE_FORBIDDEN);
        if (line->has_leader)
          hr_placer_avoid_segment (placer, line->leader_from.x, line->leader_from.y,
                                   line->leader_to.x, line->leader_to.y, 1, HR_PLACE_FORBIDDEN);
      }

    placed = place_total_over_bar (b, bl, bar, plan, placer, t, text, above);
    if (!placed && narrow)
      {
        /* no column to go to: the least text, wherever over the bar it
         * fits, or none (the range and the lines still say it) */
        HrRect candidates[40];
        guint n = 0;
        int chosen;

        bl->total = hr_chart_label_new (b->context, style, g_strdup (t), HR_CHART_FONT_SMALL_BOLD,
                                        HR_TEXT_FOREGROUND, HR_ALIGN_CENTER, 0, 0, 0);
        for (double cy = above - 2 * s - bl->total.box.height; cy >= top_limit && n < 40;
             cy -= bl->total.box.height / 2)
          {
            double tw = bl->total.box.width, th = bl->total.box.height;

            candidates[n++] = (HrRect) { bar_x + bar_w / 2 - tw / 2, cy, tw, th };
          }
        chosen = hr_placer_choose (placer, candidates, NULL, n);
        if (chosen >= 0)
          bl->total.box = candidates[chosen];
        else
          hr_chart_label_clear (&bl->total);
        placed = TRUE;
      }
    if (!placed)
      {
        g_autofree char *beside = g_strdup_printf (_("total %s"), t);

        bl->total = wrapped_label (b->context, style, beside, HR_CHART_FONT_SMALL_BOLD,
                                   HR_TEXT_FOREGROUND, HR_ALIGN_START, MAX (right_w, 8));
        right[n_right++] = total_block (bl);
        n_right = spread_column (right, n_right, LABEL_SPACING * s, top_limit, bottom);
        place_column (bl, right, n_right, right_x, right_w, FALSE, lead, s);
      }
  }
}

/* The segments of @bar, bottom to top, and their sizes: inside the
 * segment where they fit, else in the column left of the bar (@left, the
 * blocks it gets; their count returned). */
static guint
layout_segments (Builder           *b,
                 HrBucketBarLayout *bl,
                 const HrBucketBar *bar,
                 BarTexts          *said,
                 SegmentLevel       level,
                 double             bar_x,
                 double             bar_w,
                 double             left_w,
                 Block             *left)
{
  HrBucketChartLayout *layout = b->layout;
  const HrChartStyle *style = b->style;
  double s = b->s;
  double total = hr_bucket_bar_total (bar);
  guint n_left = 0;
  double y;

  /* the segments, and their sizes: inside or beside */
  y = hr_bucket_chart_y_position (layout, 0);
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      double h = bar->bytes[i] / layout->y_max * layout->plot.height;

      y -= h;
      bl->segments[i] = (HrRect) { bar_x, y, bar_w, h };
      if (bar->bytes[i] <= 0)
        continue;

      if (level >= SEGMENTS_INSIDE && fits_inside (said, i, bar_w))
        {
          double th = said->size_heights[i];

          bl->segment_labels[i] = hr_chart_label_new (b->context, style,
                                                     g_strdup (bar_segment_size (said, i)->text),
                                                     HR_CHART_FONT_SMALL, HR_TEXT_ON_FILL,
                                                     HR_ALIGN_CENTER, 0, bar_x + bar_w / 2,
                                                     y + h / 2 - th / 2);
          bl->label_inside[i] = TRUE;
        }
      else if (level < SEGMENTS_INSIDE_ONLY && left_w > 0)
        {
          const char *text = bar_segment_text (said, i, level)->text;

          bl->segment_labels[i] = wrapped_label (b->context, style, text, HR_CHART_FONT_SMALL,
                                                HR_TEXT_FOREGROUND, HR_ALIGN_END, left_w);
          /* the larger segments matter more */
          left[n_left++] = (Block) { y + h / 2, bl->segment_labels[i].box.height, 0,
                                     &bl->segment_labels[i], NULL, i, -1, FALSE,
                                     (int) MIN (99, 1 + 98 * bar->bytes[i] / MAX (total, 1)) };
        }
    }
  /* a measured bar's unattributed memory, hatched on top, named beside;
   * the part of XLA's pool the run leaves unused, outlined on top, named
   * inside where it has room */
  if (segment_bytes (bar, HR_N_BUCKETS) > 0)
    {
      double h = segment_bytes (bar, HR_N_BUCKETS) / layout->y_max * layout->plot.height;

      y -= h;
      bl->unattributed = (HrRect) { bar_x, y, bar_w, h };
      if (bar->pool_unused > 0)
        {
          g_autofree char *size = chart_bytes (b->data, bar->pool_unused);
          g_autofree char *text = NULL;
          gboolean named = FALSE;

          /* named once, in the first bar that has room; the others alike */
          for (guint k = 0; k < layout->bars->len; k++)
            named |= g_array_index (layout->bars, HrBucketBarLayout, k).unattributed_inside;
          text = named ? g_strdup (size) : g_strdup_printf ("%s\n%s", top_segment_name (bar), size);

          bl->unattributed_label = wrapped_label (b->context, style, text, HR_CHART_FONT_SMALL,
                                                 HR_TEXT_MUTED, HR_ALIGN_CENTER,
                                                 MAX (bar_w - 4 * s, 8));
          if (bl->unattributed_label.box.width <= bar_w - 2 * s &&
              bl->unattributed_label.box.height <= h - 2 * s)
            {
              bl->unattributed_label.box.x = bar_x + bar_w / 2 - bl->unattributed_label.box.width / 2;
              bl->unattributed_label.box.y = y + h / 2 - bl->unattributed_label.box.height / 2;
              bl->unattributed_inside = TRUE;
            }
          else
            hr_chart_label_clear (&bl->unattributed_label);
        }
      if (!bl->unattributed_inside && has_unattributed (bar, level) && left_w > 0)
        {
          const char *text = bar_segment_text (said, HR_N_BUCKETS, level)->text;

          bl->unattributed_label = wrapped_label (b->context, style, text, HR_CHART_FONT_SMALL,
                                                 HR_TEXT_MUTED, HR_ALIGN_END, left_w);
          left[n_left++] = (Block) { y + h / 2, bl->unattributed_label.box.height, 0,
                                     &bl->unattributed_label, NULL, HR_N_BUCKETS, -1, FALSE,
                                     (int) MIN (99, 1 + 98 * segment_bytes (bar, HR_N_BUCKETS) /
                                                    MAX (total, 1)) };
        }
    }
  return n_left;
}

/* Each card line of the bar, across it and its bracket, with the cards'
 * names and verdict at its end (or, @narrow, under the plot). */
static void
layout_card_lines (Builder           *b,
                   HrBucketBarLayout *bl,
                   GPtrArray         *cards,
                   BarTexts          *said,
                   NameForm           form,
                   gboolean           narrow,
                   double             slot_width,
                   double             bar_x,
                   double             bar_w,
                   double             right_w)
{
  HrBucketChartLayout *layout = b->layout;
  const HrChartStyle *style = b->style;
  double s = b->s;
  double lead = (SWATCH_WIDTH + SWATCH_GAP) * s;
  double range_w = (RANGE_WIDTH + RANGE_GAP) * s;

  /* each card line, across the bar, its names and verdict at its end */
  for (guint c = 0; c < cards->len && c < 16; c++)
    {
      GArray *group = g_ptr_array_index (cards, c);
      const HrBucketBar *card = g_ptr_array_index (b->data->bars, g_array_index (group, guint, 0));
      HrBucketCardLine line = { 0 };
      const Measured *names = bar_card_names (said, c, form);
      const Measured *detail = bar_card_detail (said, c, FALSE);

      line.bars = g_array_ref (group);
      line.series = card->series;
      line.fits = card->fits;
      line.y = hr_bucket_chart_y_position (layout, card->usable);
      line.x_start = bar_x - 3 * s;
      line.x_end = bar_x + bar_w + range_w + 2 * s;
      if (narrow)
        {
          double room = slot_width - 2 * s - lead;

          /* across the bar and its bracket, the names under the plot */
          line.x_end = bar_x + bar_w + range_w + 4 * s;
          names = bar_card_names (said, c, NAMES_STACKED);
          detail = bar_card_detail (said, c, TRUE);
          line.label = wrapped_label (b->context, style, names->text, HR_CHART_FONT_SMALL_BOLD,
                                      HR_TEXT_FOREGROUND, HR_ALIGN_START, room);
          line.detail = wrapped_label (b->context, style, detail->text, HR_CHART_FONT_SMALL,
                                       card->fits && !card->tight ? HR_TEXT_GOOD : HR_TEXT_BAD, HR_ALIGN_START,
                                       room);
          g_array_append_val (bl->cards, line);
          continue;
        }
      line.label = wrapped_label (b->context, style, names->text, HR_CHART_FONT_SMALL_BOLD,
                                  HR_TEXT_FOREGROUND, HR_ALIGN_START, right_w - lead);
      if (detail->width > right_w - lead)
        detail = bar_card_detail (said, c, TRUE);
      line.detail = wrapped_label (b->context, style, detail->text, HR_CHART_FONT_SMALL,
                                   card->fits && !card->tight ? HR_TEXT_GOOD : HR_TEXT_BAD, HR_ALIGN_START,
                                   right_w - lead);
      g_array_append_val (bl->cards, line);
    }
}

/* One drawn bar in its slot: from the left, the segments' sizes (moved
 * apart, with leaders), the bar, the range's bracket, then the cards'
 * names and verdicts at their lines (moved apart, with leaders); the
 * total over the bar where nothing is, else with the cards. */
static void
layout_bar (Builder      *b,
            GArray       *members,
            double        slot_x,
            double        slot_width,
            double        top_limit,
            gboolean      narrow,
            gboolean      several)
{
  HrBucketChartLayout *layout = b->layout;
  const HrBucketBar *bar = g_ptr_array_index (b->data->bars, g_array_index (members, guint, 0));
  const HrChartStyle *style = b->style;
  double s = b->s;
  g_autoptr(GPtrArray) cards = group_cards (b->data, members);
  HrBucketBarLayout bl = { 0 };
  BarPlan plan = { 0 };
  double total = hr_bucket_bar_total (bar);
  double lead = (SWATCH_WIDTH + SWATCH_GAP) * s;
  double range_w = (RANGE_WIDTH + RANGE_GAP) * s;
  double gap = LABEL_GAP * s, bottom = layout->plot.y + layout->plot.height;
  double bar_w = 0, left_w = 0, right_w = 0, x0, bar_x, right_x;
  SegmentLevel level;
  NameForm form;
  Block left[HR_N_BUCKETS + 1], right[16 + 1];
  guint n_left = 0, n_right = 0;
  BarTexts said;

  bar_texts_init (&said, b, bar, cards);
  bl.members = g_array_ref (members);
  bl.cards = g_array_new (FALSE, TRUE, sizeof (HrBucketCardLine));
  g_array_set_clear_func (bl.cards, card_line_clear);

  plan.slot_x = slot_x;
  plan.slot_width = slot_width;
  plan.top_limit = top_limit;
  plan.narrow = narrow;
  plan.several = several;
  plan_bar_widths (b, &said, cards, &plan);
  level = plan.level;
  form = plan.form;
  bar_w = plan.bar_w;
  left_w = plan.left_w;
  right_w = plan.right_w;
  x0 = plan.x0;
  bar_x = x0 + (left_w > 0 ? left_w + gap : 0);
  right_x = bar_x + bar_w + range_w + gap;
  bl.bar = (HrRect) { bar_x, hr_bucket_chart_y_position (layout, total), bar_w,
                      total / layout->y_max * layout->plot.height };

  /* the range bracket, right of the bar */
  if (bar->high > 0)
    {
      double yl = hr_bucket_chart_y_position (layout, bar->low);
      double yh = hr_bucket_chart_y_position (layout, bar->high);

      bl.range = (HrRect) { bar_x + bar_w + RANGE_GAP * s, yh, RANGE_WIDTH * s, yl - yh };
    }

  n_left = layout_segments (b, &bl, bar, &said, level, bar_x, bar_w, left_w, left);
  n_left = spread_column (left, n_left, LABEL_SPACING * s, top_limit, bottom);
  place_column (&bl, left, n_left, x0, left_w, TRUE, lead, s);
  bracket_leaders (&bl, x0 + left_w, s);

  layout_card_lines (b, &bl, cards, &said, form, narrow, slot_width, bar_x, bar_w, right_w);
  keep_sizes_clear_of_cards (&bl, style);

  /* a bar that is not its card's says what it is under the plot */
  if (bar_has_name (bar))
    {
      bl.name = wrapped_label (b->context, style, bar->label, HR_CHART_FONT_SMALL_BOLD,
                               HR_TEXT_FOREGROUND, HR_ALIGN_CENTER, slot_width - 4 * s);
      hr_chart_label_place (b->context, style, &bl.name, bar_x + bar_w / 2, bottom + 3 * s);
      bl.name.box.x = CLAMP (bl.name.box.x, slot_x + s,
                             slot_x + slot_width - s - bl.name.box.width);
    }

  if (narrow)
    {
      /* under the plot, one card after the other, from the slot's left */
      double under = bl.name.text != NULL ? bl.name.box.y + bl.name.box.height + LABEL_SPACING * s
                                          : bottom + 3 * s;

      for (guint c = 0; c < bl.cards->len; c++)
        {
          HrBucketCardLine *line = &g_array_index (bl.cards, HrBucketCardLine, c);
          double x = slot_x + s;

          line->swatch = (HrRect) { x, under, SWATCH_WIDTH * s,
                                    MIN (line->label.box.height,
                                         line->label.box.height / MAX (1, line->bars->len)) };
          line->label.box.x = x + lead;
          line->label.box.y = under;
          line->detail.box.x = x + lead;
          line->detail.box.y = under + line->label.box.height;
          under = line->detail.box.y + line->detail.box.height + LABEL_SPACING * s;
        }
    }
  else
    {
      for (guint c = 0; c < bl.cards->len; c++)
        {
          HrBucketCardLine *line = &g_array_index (bl.cards, HrBucketCardLine, c);

          right[n_right++] = (Block) { line->y, line->label.box.height + line->detail.box.height,
                                       0, &line->label, &line->detail, -1, c, FALSE, 100 };
        }
      n_right = spread_column (right, n_right, LABEL_SPACING * s, top_limit, bottom);
      place_column (&bl, right, n_right, right_x, right_w, FALSE, lead, s);
    }

  plan.bar_x = bar_x;
  plan.right_x = right_x;
  place_total (b, &bl, bar, &plan, left, n_left, right, n_right);

  g_array_append_val (layout->bars, bl);
  bar_texts_clear (&said);
}

/* The title and the subtitle, wrapped rather than cut, from the top;
 * returns the y under them. */
static double
layout_title (Builder *b,
              double   margin,
              double   inner)
{
  const HrBucketChartData *data = b->data;
  const HrChartStyle *style = b->style;
  PangoContext *context = b->context;
  HrBucketChartLayout *layout = b->layout;
  double top = margin;

  if (data->title != NULL && data->title[0] != '\0')
    {
      HrChartLabel title = wrapped_label (context, style, data->title, HR_CHART_FONT_TITLE,
                                          HR_TEXT_FOREGROUND, HR_ALIGN_START, inner);

      hr_chart_label_place (context, style, &title, margin, top);
      top += title.box.height;
      g_array_append_val (layout->labels, title);
    }
  if (data->subtitle != NULL && data->subtitle[0] != '\0')
    {
      HrChartLabel subtitle = wrapped_label (context, style, data->subtitle, HR_CHART_FONT_SMALL,
                                             HR_TEXT_MUTED, HR_ALIGN_START, inner);

      hr_chart_label_place (context, style, &subtitle, margin, top + 1);
      top = subtitle.box.y + subtitle.box.height;
      g_array_append_val (layout->labels, subtitle);
    }
  return top;
}

/* The legend, wrapped, over @bottom; returns the y over it, with room for
 * the lower half of the axis's "0". */
static double
layout_legend (Builder *b,
               double   margin,
               double   width,
               double   bottom)
{
  const HrChartStyle *style = b->style;
  PangoContext *context = b->context;
  HrBucketChartLayout *layout = b->layout;
  double s = b->s;
  double x = margin, row = 0, row_h = 0, swatch = LEGEND_SWATCH * s;
  double rows_x[HR_N_BUCKETS], rows_y[HR_N_BUCKETS];

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      layout->legend_labels[i] = hr_chart_label_new (context, style,
                                                     g_strdup (hr_bucket_get_label (i)),
                                                     HR_CHART_FONT_SMALL, HR_TEXT_FOREGROUND,
                                                     HR_ALIGN_START, 0, 0, 0);
      row_h = MAX (row_h, layout->legend_labels[i].box.height);
    }
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      double w = swatch + SWATCH_GAP * s + layout->legend_labels[i].box.width;

      if (x > margin && x + w > width - margin)
        {
          x = margin;
          row++;
        }
      rows_x[i] = x;
      rows_y[i] = row;
      x += w + LEGEND_GAP * s;
    }
  bottom -= (row + 1) * row_h + row * 2 * s;
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      double ly = bottom + rows_y[i] * (row_h + 2 * s);

      layout->legend_swatches[i] = (HrRect) { rows_x[i], ly + (row_h - swatch) / 2, swatch,
                                              swatch };
      layout->legend_labels[i].box.x = rows_x[i] + swatch + SWATCH_GAP * s;
      layout->legend_labels[i].box.y = ly;
    }
  /* the axis's "0" is centred on the plot's foot: room for its lower half */
  bottom -= MAX (6 * s, row_h / 2 + 2 * s);
  return bottom;
}

/* The scale: every total, range and card on it, then nice ticks (in
 * @values, in the data's unit) between @top and @bottom. */
static void
layout_scale (Builder *b,
              GArray  *values,
              double   top,
              double   bottom)
{
  const HrBucketChartData *data = b->data;
  HrBucketChartLayout *layout = b->layout;
  double s = b->s;
  double needed = 0;

  for (guint i = 0; i < data->bars->len; i++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);

      needed = MAX (needed, hr_bucket_bar_total (bar));
      needed = MAX (needed, bar->high);
      needed = MAX (needed, bar->usable);
    }
  if (needed <= 0)
    needed = unit_bytes (data);
  hr_nice_ticks (0, needed * 1.06 / unit_bytes (data),
                 CLAMP ((guint) ((bottom - top) / (40 * s)), 3, 7), values);
  layout->y_max = g_array_index (values, double, values->len - 1) * unit_bytes (data);
  if (layout->y_max < needed * 1.02)
    {
      double step = values->len > 1
                      ? g_array_index (values, double, 1) - g_array_index (values, double, 0)
                      : 1;
      double next = g_array_index (values, double, values->len - 1) + step;

      g_array_append_val (values, next);
      layout->y_max = next * unit_bytes (data);
    }

}

HrBucketChartLayout *
hr_bucket_chart_layout (const HrBucketChartData *data,
                        const HrChartStyle      *given_style,
                        PangoContext            *context,
                        double                   width,
                        double                   height)
{
  g_autoptr(HrChartStyle) fitted = NULL;
  const HrChartStyle *style;
  HrBucketChartLayout *layout;
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GPtrArray) groups = NULL;
  Builder b = { 0 };
  g_autofree gboolean *narrow = NULL;
  gboolean any_narrow = FALSE;
  double s, margin, top, bottom, inner, tick_w = 0, names_h = 0, slot, top_limit;
  HrChartLabel unit;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (given_style != NULL, NULL);
  g_return_val_if_fail (context != NULL, NULL);

  /* a canvas too small for the fonts gets smaller ones */
  fitted = hr_chart_style_fit (given_style, width, height);
  style = fitted;

  s = style->spacing > 0 ? style->spacing : 1;
  margin = MAX (MARGIN * s, 4);
  inner = MAX (width - 2 * margin, 1);
  layout = g_new0 (HrBucketChartLayout, 1);
  layout->bounds = (HrRect) { 0, 0, width, height };
  layout->y_ticks = g_array_new (FALSE, TRUE, sizeof (HrAxisTick));
  g_array_set_clear_func (layout->y_ticks, hr_axis_tick_clear);
  layout->bars = g_array_new (FALSE, TRUE, sizeof (HrBucketBarLayout));
  g_array_set_clear_func (layout->bars, bar_layout_clear);
  layout->labels = g_array_new (FALSE, TRUE, sizeof (HrChartLabel));
  g_array_set_clear_func (layout->labels, (GDestroyNotify) hr_chart_label_clear);
  b.data = data;
  b.style = style;
  b.context = context;
  b.layout = layout;
  b.s = s;

  /* ---- title and subtitle, wrapped rather than cut ---- */
  top = layout_title (&b, margin, inner);
  top += TITLE_GAP * s;

  /* ---- from the bottom: the note, then the legend, wrapped ---- */
  bottom = height - margin;
  if (data->note != NULL && data->note[0] != '\0')
    {
      HrChartLabel note = wrapped_label (context, style, data->note, HR_CHART_FONT_SMALL,
                                         HR_TEXT_MUTED, HR_ALIGN_START, inner);

      hr_chart_label_place (context, style, &note, margin, bottom - note.box.height);
      bottom = note.box.y - 3 * s;
      g_array_append_val (layout->labels, note);
    }
  bottom = layout_legend (&b, margin, width, bottom);

  /* ---- the scale ---- */
  layout_scale (&b, values, top, bottom);

  for (guint i = 0; i < values->len; i++)
    {
      g_autofree char *text = g_strdup_printf ("%g", g_array_index (values, double, i));
      double w;

      hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, text, 0, &w, NULL);
      tick_w = MAX (tick_w, w);
    }

  /* ---- under the plot: what a bar without a card is, and the cards of
   * bars whose slot is too narrow for their names beside them ---- */
  groups = group_bars (data);
  slot = MAX (1, width - margin - (margin + tick_w + 6 * s)) / MAX (1, groups->len);
  narrow = g_new0 (gboolean, MAX (groups->len, 1));
  for (guint g = 0; g < groups->len; g++)
    {
      GArray *members = g_ptr_array_index (groups, g);
      const HrBucketBar *bar = g_ptr_array_index (data->bars, g_array_index (members, guint, 0));
      double h = 0;

      narrow[g] = slot_is_narrow (&b, members, slot);
      any_narrow |= narrow[g];
      if (bar_has_name (bar))
        hr_chart_text_size (context, style, HR_CHART_FONT_SMALL_BOLD, bar->label, slot - 4 * s,
                            NULL, &h);
      if (narrow[g])
        h += narrow_names_height (&b, members, slot) + (h > 0 ? LABEL_SPACING * s : 0);
      names_h = MAX (names_h, h > 0 ? h + 3 * s : 0);
    }
  /* one look for every bar: when one slot has no room beside its bar,
   * every bar's cards go under the plot */
  for (guint g = 0; g < groups->len && any_narrow; g++)
    {
      GArray *members = g_ptr_array_index (groups, g);
      const HrBucketBar *bar = g_ptr_array_index (data->bars, g_array_index (members, guint, 0));

      if (!narrow[g] && bar->card != NULL)
        {
          double h = 0;

          narrow[g] = TRUE;
          if (bar_has_name (bar))
            hr_chart_text_size (context, style, HR_CHART_FONT_SMALL_BOLD, bar->label,
                                slot - 4 * s, NULL, &h);
          h += narrow_names_height (&b, members, slot) + (h > 0 ? LABEL_SPACING * s : 0);
          names_h = MAX (names_h, h + 3 * s);
        }
    }
  bottom -= names_h;

  /* the unit, over the axis */
  unit = hr_chart_label_new (context, style,
                             g_strdup (data->unit == HR_SIZE_GB ? _("GB per GPU")
                                                                : _("GiB per GPU")),
                             HR_CHART_FONT_SMALL,
                             HR_TEXT_MUTED, HR_ALIGN_START, 0, margin, top);
  top_limit = top;
  top += unit.box.height + unit.box.height / 2 + 2 * s;
  g_array_append_val (layout->labels, unit);

  layout->plot.x = margin + tick_w + 6 * s;
  layout->plot.y = top;
  layout->plot.width = MAX (10, width - margin - layout->plot.x);
  layout->plot.height = MAX (10, bottom - top);

  for (guint i = 0; i < values->len; i++)
    {
      HrAxisTick tick = { 0 };
      double v = g_array_index (values, double, i);

      tick.value = v * unit_bytes (data);
      tick.position = hr_bucket_chart_y_position (layout, tick.value);
      tick.label = hr_chart_label_new (context, style, g_strdup_printf ("%g", v),
                                       HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                                       HR_ALIGN_END, 0, layout->plot.x - 6 * s, 0);
      tick.label.box.y = tick.position - tick.label.box.height / 2;
      g_array_append_val (layout->y_ticks, tick);
    }

  /* ---- bars ---- */
  slot = layout->plot.width / MAX (1, groups->len);
  for (guint g = 0; g < groups->len; g++)
    layout_bar (&b, g_ptr_array_index (groups, g), layout->plot.x + g * slot, slot,
                top_limit + unit.box.height + 2 * s, narrow[g], groups->len > 1);

  return layout;
}

/* The data's first bar drawn as @bl. */
static const HrBucketBar *
bar_of_layout (const HrBucketBarLayout *bl,
               const HrBucketChartData *data)
{
  return g_ptr_array_index (data->bars, g_array_index (bl->members, guint, 0));
}

static void
rounded_top_rect (cairo_t *cr,
                  HrRect  *r,
                  double   radius)
{
  double rad = MIN (radius, MIN (r->width / 2, r->height));

  cairo_new_path (cr);
  cairo_move_to (cr, r->x, r->y + r->height);
  cairo_line_to (cr, r->x, r->y + rad);
  cairo_arc (cr, r->x + rad, r->y + rad, rad, G_PI, 1.5 * G_PI);
  cairo_arc (cr, r->x + r->width - rad, r->y + rad, rad, 1.5 * G_PI, 2 * G_PI);
  cairo_line_to (cr, r->x + r->width, r->y + r->height);
  cairo_close_path (cr);
}

static void
draw_leader (cairo_t            *cr,
             const HrChartStyle *style,
             const HrPoint      *from,
             const HrPoint      *to,
             const HrRgba       *color)
{
  cairo_new_path (cr);
  cairo_move_to (cr, from->x, from->y);
  /* level, then to the label: elbows read better than slants */
  cairo_line_to (cr, from->x + (to->x - from->x) * 0.4, from->y);
  cairo_line_to (cr, to->x - (to->x - from->x) * 0.2, to->y);
  cairo_line_to (cr, to->x, to->y);
  cairo_set_line_width (cr, style->thin_line_width);
  hr_chart_set_color (cr, color);
  cairo_stroke (cr);
}

/* The sizes beside a thin stack, joined: a short tick from each to a
 * bracket, and from the bracket one leader to the stack's middle. */
static void
draw_bracket (cairo_t                 *cr,
              const HrChartStyle      *style,
              const HrBucketBarLayout *bl)
{
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, x = bl->bracket_x, first = G_MAXDOUBLE;
  double last = -G_MAXDOUBLE, y;

  cairo_new_path (cr);
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    if (bl->segment_labels[b].text != NULL && !bl->label_inside[b])
      {
        const HrPoint *to = &bl->leader_to[b];

        cairo_move_to (cr, to->x, to->y);
        cairo_line_to (cr, x, to->y);
        lo = MIN (lo, to->y);
        hi = MAX (hi, to->y);
        first = MIN (first, bl->leader_from[b].y);
        last = MAX (last, bl->leader_from[b].y);
      }
  cairo_move_to (cr, x, lo);
  cairo_line_to (cr, x, hi);
  /* to the labelled segments' middle, level where the bracket reaches it */
  y = (first + last) / 2;
  cairo_move_to (cr, x, CLAMP (y, lo, hi));
  cairo_line_to (cr, bl->bar.x - 1, y);
  cairo_set_line_width (cr, style->thin_line_width);
  hr_chart_set_color (cr, &style->muted);
  cairo_stroke (cr);
}

/* The stack of a bar's segments, bottom to top. */
static void
draw_stack (cairo_t                 *cr,
            const HrChartStyle      *style,
            const HrBucketBarLayout *bl)
{
  double s = style->spacing > 0 ? style->spacing : 1;

  /* the stack: rounded at the top only */
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    {
      HrRect seg = bl->segments[b];
      gboolean topmost = TRUE;

      if (seg.height <= 0)
        continue;

      for (guint above = b + 1; above < HR_N_BUCKETS; above++)
        if (bl->segments[above].height > 0)
          topmost = FALSE;
      if (bl->unattributed.height > 0)
        topmost = FALSE;

      if (topmost)
        rounded_top_rect (cr, &seg, style->corner_radius);
      else
        {
          cairo_new_path (cr);
          cairo_rectangle (cr, seg.x, seg.y, seg.width, seg.height);
        }
      hr_chart_fill_pattern (cr, style, &style->bucket[b], style->bucket_pattern[b]);

      /* a hairline between segments keeps thin ones visible */
      cairo_set_line_width (cr, MAX (0.5, s));
      hr_chart_set_color (cr, &style->background);
      cairo_move_to (cr, seg.x, seg.y + seg.height);
      cairo_line_to (cr, seg.x + seg.width, seg.y + seg.height);
      cairo_stroke (cr);
    }
}

/* On top of the stack: a measured bar's unattributed memory, or XLA's pool
 * held unused. */
static void
draw_top_segment (cairo_t                 *cr,
                  const HrChartStyle      *style,
                  const HrBucketBarLayout *bl,
                  const HrBucketChartData *data)
{
  double s = style->spacing > 0 ? style->spacing : 1;

  /* a measured bar's unattributed memory: hatched in the muted colour,
   * which no bucket uses */
  if (bl->unattributed.height > 0 && bar_of_layout (bl, data)->pool_unused > 0)
    {
      /* XLA's pool, held but unused: an outline, no fill */
      HrRect seg = bl->unattributed;
      double w = MAX (1, style->thin_line_width * 1.5);
      HrRect inner = { seg.x + w / 2, seg.y + w / 2, seg.width - w, seg.height - w / 2 };
      static const double dash[] = { 4, 2 };

      rounded_top_rect (cr, &inner, style->corner_radius);
      cairo_set_line_width (cr, w);
      cairo_set_dash (cr, dash, 2, 0);
      hr_chart_set_color (cr, &style->muted);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      if (bl->unattributed_inside)
        hr_chart_draw_label (cr, style, &bl->unattributed_label, NULL);
    }
  else if (bl->unattributed.height > 0)
    {
      HrRect seg = bl->unattributed;

      rounded_top_rect (cr, &seg, style->corner_radius);
      hr_chart_fill_pattern (cr, style, &style->muted, HR_PATTERN_BACK_DIAGONAL);
      cairo_set_line_width (cr, MAX (0.5, s));
      hr_chart_set_color (cr, &style->background);
      cairo_move_to (cr, seg.x, seg.y + seg.height);
      cairo_line_to (cr, seg.x + seg.width, seg.y + seg.height);
      cairo_stroke (cr);
    }
}

/* A bar's range. */
static void
draw_range (cairo_t                 *cr,
            const HrChartStyle      *style,
            const HrBucketBarLayout *bl)
{
  /* the estimate's range: an I-beam beside the bar */
  if (bl->range.height > 0)
    {
      double x = bl->range.x + bl->range.width / 2;

      cairo_new_path (cr);
      cairo_set_line_width (cr, style->thin_line_width * 1.5);
      hr_chart_set_color (cr, &style->foreground);
      cairo_move_to (cr, x, bl->range.y);
      cairo_line_to (cr, x, bl->range.y + bl->range.height);
      cairo_move_to (cr, bl->range.x, bl->range.y);
      cairo_line_to (cr, bl->range.x + bl->range.width, bl->range.y);
      cairo_move_to (cr, bl->range.x, bl->range.y + bl->range.height);
      cairo_line_to (cr, bl->range.x + bl->range.width, bl->range.y + bl->range.height);
      cairo_stroke (cr);
    }
}

/* A bar's card lines, their names and verdicts. */
static void
draw_card_lines (cairo_t                 *cr,
                 const HrChartStyle      *style,
                 const HrBucketBarLayout *bl)
{
  double s = style->spacing > 0 ? style->spacing : 1;

  /* each card's usable memory, in its series' look, over the bar */
  for (guint c = 0; c < bl->cards->len; c++)
    {
      const HrBucketCardLine *line = &g_array_index (bl->cards, HrBucketCardLine, c);
      HrChartSeries series = hr_chart_style_get_series (style, line->series);
      HrRgba color = hr_chart_series_text_color (style, &series);
      double middle = line->swatch.y + line->swatch.height / 2;

      cairo_new_path (cr);
      cairo_move_to (cr, line->x_start, line->y);
      cairo_line_to (cr, line->x_end, line->y);
      hr_chart_stroke_series (cr, &series, style->line_width);
      if (line->label.text == NULL)
        continue;
      if (line->has_leader)
        draw_leader (cr, style, &line->leader_from, &line->leader_to, &series.color);
      cairo_new_path (cr);
      cairo_move_to (cr, line->swatch.x, middle);
      cairo_line_to (cr, line->swatch.x + line->swatch.width, middle);
      hr_chart_stroke_series (cr, &series, style->line_width * 0.75);
      hr_chart_draw_marker (cr, style, &series, line->swatch.x + line->swatch.width / 2,
                            middle, MARKER_RADIUS * s * 0.9);
      hr_chart_draw_label_colored (cr, style, &line->label, &color);
      hr_chart_draw_label (cr, style, &line->detail, NULL);
    }
}

/* A bar's sizes, total and name, with their leaders. */
static void
draw_bar_labels (cairo_t                 *cr,
                 const HrChartStyle      *style,
                 const HrBucketBarLayout *bl)
{
  double s = style->spacing > 0 ? style->spacing : 1;

  if (bl->bracketed)
    draw_bracket (cr, style, bl);
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    {
      if (bl->segment_labels[b].text == NULL)
        continue;
      if (!bl->label_inside[b] && !bl->bracketed)
        draw_leader (cr, style, &bl->leader_from[b], &bl->leader_to[b], &style->muted);
      else if (style->bucket_pattern[b] != HR_PATTERN_SOLID)
        {
          /* the size on its segment's plain colour: a hatch or dots
           * through the digits make them hard to read */
          const HrRect *seg = &bl->segments[b];
          const HrRect *box = &bl->segment_labels[b].box;
          double x0 = MAX (seg->x + 1, box->x - 2 * s);
          double x1 = MIN (seg->x + seg->width - 1, box->x + box->width + 2 * s);
          double y0 = MAX (seg->y + 1, box->y);
          double y1 = MIN (seg->y + seg->height - 1, box->y + box->height);

          if (x1 > x0 && y1 > y0)
            {
              cairo_new_path (cr);
              cairo_rectangle (cr, x0, y0, x1 - x0, y1 - y0);
              hr_chart_set_color (cr, &style->bucket[b]);
              cairo_fill (cr);
            }
        }
      hr_chart_draw_label (cr, style, &bl->segment_labels[b], &style->bucket[b]);
    }
  if (bl->unattributed_label.text != NULL && !bl->unattributed_inside)
    {
      draw_leader (cr, style, &bl->unattributed_leader[0], &bl->unattributed_leader[1],
                   &style->muted);
      hr_chart_draw_label (cr, style, &bl->unattributed_label, NULL);
    }

  if (bl->total_leader)
    draw_leader (cr, style, &bl->total_from, &bl->total_to, &style->muted);
  hr_chart_draw_label (cr, style, &bl->total, NULL);
  hr_chart_draw_label (cr, style, &bl->name, NULL);
}

void
hr_bucket_chart_render (const HrBucketChartLayout *layout,
                        const HrBucketChartData   *data,
                        const HrChartStyle        *given_style,
                        cairo_t                   *cr)
{
  g_autoptr(HrChartStyle) fitted = NULL;
  const HrChartStyle *style;

  g_return_if_fail (layout != NULL);
  g_return_if_fail (data != NULL);
  g_return_if_fail (given_style != NULL);

  fitted = hr_chart_style_fit (given_style, layout->bounds.width, layout->bounds.height);
  style = fitted;

  cairo_save (cr);
  hr_chart_prepare_cairo (cr);
  hr_chart_paint_background (cr, style, layout->bounds.width, layout->bounds.height);

  /* grid and ticks */
  cairo_set_line_width (cr, style->thin_line_width);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    {
      HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);
      double y = round (tick->position) + 0.5;

      cairo_new_path (cr);
      hr_chart_set_color (cr, i == 0 ? &style->axis : &style->grid);
      cairo_move_to (cr, layout->plot.x, y);
      cairo_line_to (cr, layout->plot.x + layout->plot.width, y);
      cairo_stroke (cr);
      hr_chart_draw_label (cr, style, &tick->label, NULL);
    }

  for (guint i = 0; i < layout->bars->len; i++)
    {
      const HrBucketBarLayout *bl = &g_array_index (layout->bars, HrBucketBarLayout, i);

      draw_stack (cr, style, bl);
      draw_top_segment (cr, style, bl, data);
      draw_range (cr, style, bl);
      draw_card_lines (cr, style, bl);
      draw_bar_labels (cr, style, bl);
    }

  for (guint i = 0; i < layout->labels->len; i++)
    hr_chart_draw_label (cr, style, &g_array_index (layout->labels, HrChartLabel, i), NULL);

  for (guint b = 0; b < HR_N_BUCKETS; b++)
    {
      HrRect sw = layout->legend_swatches[b];

      cairo_new_path (cr);
      cairo_rectangle (cr, sw.x, sw.y, sw.width, sw.height);
      hr_chart_fill_pattern (cr, style, &style->bucket[b], style->bucket_pattern[b]);
      hr_chart_draw_label (cr, style, &layout->legend_labels[b], NULL);
    }

  cairo_restore (cr);
}

void
hr_bucket_chart_draw (cairo_t            *cr,
                      PangoContext       *context,
                      const HrChartStyle *style,
                      double              width,
                      double              height,
                      gpointer            data)
{
  g_autoptr(HrBucketChartLayout) layout = hr_bucket_chart_layout (data, style, context, width,
                                                                  height);

  hr_bucket_chart_render (layout, data, style, cr);
}

char *
hr_bucket_chart_summary (const HrBucketChartData *data)
{
  GString *str = g_string_new (NULL);
  const char *u;
  double gib;

  g_return_val_if_fail (data != NULL, NULL);
  gib = unit_bytes (data);
  u = hr_size_unit_symbol (data->unit);

  for (guint i = 0; i < data->bars->len; i++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);
      double total = hr_bucket_bar_peak (bar);

      if (i > 0)
        g_string_append (str, " ");
      if (data->bars->len > 1)
        g_string_append_printf (str, "%s: ", bar->label);

      if (bar->capacity <= 0)
        /* Translators: the peak, then its unit ("GiB") */
        g_string_append_printf (str, _("Peak %.1f %s"), total / gib, u);
      else
        {
          const char *card = bar->card != NULL ? bar->card : _("the card");
          double margin = fabs (bar->usable - bar->need) / gib;

          /* Translators: the peak, the card's memory, the card, the room
           * left or the shortfall; each figure followed by its unit */
          if (bar->tight)
            g_string_append_printf (str, _("Peak %.1f %s of %.0f %s on %s (probably fits, tight, "
                                           "%.1f %s spare)"),
                                    total / gib, u, bar->capacity / gib, u, card, margin, u);
          else if (bar->fits)
            g_string_append_printf (str, _("Peak %.1f %s of %.0f %s on %s (fits, %.1f %s spare)"),
                                    total / gib, u, bar->capacity / gib, u, card, margin, u);
          else
            g_string_append_printf (str, _("Peak %.1f %s of %.0f %s on %s (does not fit, %.1f %s "
                                           "over)"),
                                    total / gib, u, bar->capacity / gib, u, card, margin, u);
        }
      if (bar->high > 0)
        g_string_append_printf (str, _(", range %.1f to %.1f %s"), bar->low / gib,
                                bar->high / gib, u);
      g_string_append (str, ": ");
      for (guint b = 0; b < HR_N_BUCKETS; b++)
        g_string_append_printf (str, "%s%s %.1f", b > 0 ? ", " : "",
                                hr_enum_to_nick (hr_bucket_names, b), bar->bytes[b] / gib);
      if (segment_bytes (bar, HR_N_BUCKETS) > 0)
        g_string_append_printf (str, ", %s %.1f", top_segment_name (bar),
                                segment_bytes (bar, HR_N_BUCKETS) / gib);
      g_string_append_printf (str, " %s.", u);
    }

  /* what is derived, calibrated, assumed and measured, as the chart says */
  if (data->note != NULL && data->note[0] != '\0')
    g_string_append_printf (str, " %s", data->note);

  return g_string_free (str, FALSE);
}

char *
hr_bucket_chart_describe_at (const HrBucketChartLayout *layout,
                             const HrBucketChartData   *data,
                             double                     x,
                             double                     y)
{
  g_return_val_if_fail (layout != NULL && data != NULL, NULL);

  for (guint i = 0; i < layout->bars->len; i++)
    {
      const HrBucketBarLayout *bar = &g_array_index (layout->bars, HrBucketBarLayout, i);
      const HrBucketBar *values;

      if (bar->members->len == 0 || g_array_index (bar->members, guint, 0) >= data->bars->len)
        continue;
      values = g_ptr_array_index (data->bars, g_array_index (bar->members, guint, 0));

      for (guint b = 0; b < HR_N_BUCKETS; b++)
        if (hr_rect_contains (&bar->segments[b], x, y))
          {
            g_autofree char *amount = tooltip_bytes (data, values->bytes[b]);
            double total = hr_bucket_bar_total (values);

            /* TRANSLATORS: tooltip over a bar segment: "RTX 4090: Weights,
             * 15.0 GiB (62% of the peak)" */
            return g_strdup_printf (_("%s: %s, %s (%.0f%% of the peak)"), values->label,
                                    hr_bucket_get_label (b), amount,
                                    total > 0 ? 100.0 * values->bytes[b] / total : 0.0);
          }

      if (hr_rect_contains (&bar->unattributed, x, y) && values->pool_unused > 0)
        {
          g_autofree char *amount = tooltip_bytes (data, values->pool_unused);
          g_autofree char *need = tooltip_bytes (data, values->need);

          /* TRANSLATORS: tooltip over the outlined top of a bar under JAX */
          return g_strdup_printf (_("%s: held by XLA, unused, %s (XLA takes its pool at start-up; "
                                    "the run needs %s of it)"), values->label, amount, need);
        }
      if (hr_rect_contains (&bar->unattributed, x, y))
        {
          g_autofree char *amount = tooltip_bytes (data, values->unattributed);

          /* TRANSLATORS: tooltip over a measured bar's hatched top */
          return g_strdup_printf (_("%s: unattributed, %s (memory no rule put in a bucket)"),
                                  values->label, amount);
        }

      if (values->high <= 0 && hr_rect_contains (&bar->bar, x, y))
        {
          g_autofree char *total = tooltip_bytes (data, hr_bucket_bar_peak (values));

          return g_strdup_printf (_("%s: peak %s"), values->label, total);
        }

      if (hr_rect_contains (&bar->bar, x, y) || hr_rect_contains (&bar->range, x, y))
        {
          g_autofree char *total = tooltip_bytes (data, hr_bucket_bar_peak (values));
          g_autofree char *low = tooltip_bytes (data, values->low);
          g_autofree char *high = tooltip_bytes (data, values->high);

          return g_strdup_printf (_("%s: peak %s, range %s to %s"), values->label, total, low,
                                  high);
        }

      /* a card's line: its cards and verdicts */
      for (guint c = 0; c < bar->cards->len; c++)
        {
          const HrBucketCardLine *line = &g_array_index (bar->cards, HrBucketCardLine, c);
          HrRect near = { line->x_start, line->y - 4, line->x_end - line->x_start, 8 };

          if (hr_rect_contains (&near, x, y) || hr_rect_contains (&line->label.box, x, y) ||
              hr_rect_contains (&line->detail.box, x, y))
            {
              GString *text = g_string_new (NULL);

              for (guint k = 0; k < line->bars->len; k++)
                {
                  const HrBucketBar *card = g_ptr_array_index (data->bars,
                                                               g_array_index (line->bars, guint,
                                                                              k));
                  g_autofree char *usable = tooltip_bytes (data, card->usable);
                  g_autofree char *margin = tooltip_bytes (data, fabs (card->usable - card->need));

                  if (k > 0)
                    g_string_append (text, "; ");
                  g_string_append_printf (text, card->tight
                                                  ? _("%s: %s usable, probably fits with %s spare, "
                                                      "tight")
                                                  : card->fits
                                                  ? _("%s: %s usable, fits with %s spare")
                                                  : _("%s: %s usable, %s over"),
                                          card->card != NULL ? card->card : values->label, usable,
                                          margin);
                }
              return g_string_free (text, FALSE);
            }
        }
    }
  return NULL;
}
