/* hr-chart-buckets.c: the five buckets as stacked bars
 *
 * Each bar stacks weights, gradients, optimizer state, activations and
 * overhead from the bottom, with the estimate's range as a bracket beside
 * it, the card's memory as a line, its reserve as a strip, and a verdict.
 * Every segment is named in text beside the bar (with its size and share),
 * and has a pattern of its own, so nothing rests on colour alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <glib/gi18n-lib.h>

#include <math.h>

#include "hr-chart-buckets.h"
#include "hr-chart-text.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

#define MARGIN        20.0
#define BAR_MAX_WIDTH 110.0
#define LABEL_GAP     14.0   /* between the bar and its labels */
#define LABEL_SPACING 3.0    /* between two stacked labels */
#define LEGEND_GAP    16.0

static void
bar_free (HrBucketBar *bar)
{
  g_free (bar->label);
  g_free (bar->card);
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
  g_free (data);
}

HrBucketBar *
hr_bucket_chart_data_add_bar (HrBucketChartData *data,
                              const char        *label)
{
  HrBucketBar *bar = g_new0 (HrBucketBar, 1);

  g_return_val_if_fail (data != NULL, NULL);

  bar->label = g_strdup (label != NULL ? label : "");
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
      bar->fits = est->fits;
      bar->need = est->need;
    }

  return bar;
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

  if (hr_analysis_get_n_gpus (analysis) == 0)
    {
      g_autofree char *label = g_strdup_printf (_("micro-batch %u"), scenario->micro_batch);

      hr_bucket_chart_data_add_estimate (data, label, hr_analysis_get_estimate (analysis));
    }
  for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);

      hr_bucket_chart_data_add_estimate (data, g->gpu->name, g->estimate);
    }

  /* A memory snapshot (or a profiler timeline) among the measurements:
   * what it held at its peak, as a measured bar beside an estimate at the
   * micro-batch it ran, on the scenario's card. */
  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);
      const HrSnapshotDevice *device = m->measurement->snapshot != NULL
        ? hr_snapshot_get_peak_device (m->measurement->snapshot) : NULL;
      guint batch = hr_measurement_get_micro_batch (m->measurement);
      g_autofree char *base = NULL;
      g_autofree char *label = NULL;

      if (device == NULL)
        continue;
      if (batch == 0)
        batch = scenario->micro_batch;
      /* (the scenario's own bar is the one beside it when it is alone
       * and at that micro-batch) */
      if (batch != scenario->micro_batch || hr_analysis_get_n_gpus (analysis) > 1)
        {
          g_autoptr(HrScenario) at_batch = hr_scenario_copy (scenario);
          g_autoptr(HrEstimate) estimate = NULL;
          g_autofree char *estimate_label = NULL;

          at_batch->micro_batch = batch;
          estimate = hr_estimate_new (at_batch);
          /* Translators: the estimate's bar beside a measured one */
          estimate_label = g_strdup_printf (_("estimate, micro-batch %u"), batch);
          hr_bucket_chart_data_add_estimate (data, estimate_label, estimate);
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

  /* Beside an estimate's bar the run was on its card: the same line, and
   * a verdict of the same kind. */
  for (guint i = data->bars->len - 1; i-- > 0;)
    {
      const HrBucketBar *before = g_ptr_array_index (data->bars, i);

      if (before->capacity > 0 && !before->measured)
        {
          bar->capacity = before->capacity;
          bar->usable = before->usable;
          bar->card = g_strdup (before->card);
          bar->fits = bar->need <= bar->usable;
          break;
        }
    }
  return bar;
}

double
hr_bucket_bar_total (const HrBucketBar *bar)
{
  double total = bar->unattributed;

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    total += bar->bytes[i];
  return total;
}

static void
bar_layout_clear (gpointer data)
{
  HrBucketBarLayout *bar = data;

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    hr_chart_label_clear (&bar->segment_labels[i]);
  hr_chart_label_clear (&bar->unattributed_label);
  hr_chart_label_clear (&bar->capacity_label);
  hr_chart_label_clear (&bar->name);
  hr_chart_label_clear (&bar->total);
  hr_chart_label_clear (&bar->verdict);
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

double
hr_bucket_chart_y_position (const HrBucketChartLayout *layout,
                            double                     bytes)
{
  return layout->plot.y + layout->plot.height - bytes / layout->y_max * layout->plot.height;
}

/* Moves label boxes (sorted by their wanted y) apart so that none
 * overlaps, keeping them within [top, bottom]. */
static void
spread_labels (HrChartLabel **labels,
               guint          n,
               double         top,
               double         bottom)
{
  if (n == 0)
    return;

  /* downwards: each below the previous */
  for (guint i = 1; i < n; i++)
    {
      double min_y = labels[i - 1]->box.y + labels[i - 1]->box.height + LABEL_SPACING;

      if (labels[i]->box.y < min_y)
        labels[i]->box.y = min_y;
    }

  /* then upwards from the bottom limit if the last one overflows */
  if (labels[n - 1]->box.y + labels[n - 1]->box.height > bottom)
    {
      labels[n - 1]->box.y = bottom - labels[n - 1]->box.height;
      for (guint i = n - 1; i > 0; i--)
        {
          double max_y = labels[i]->box.y - LABEL_SPACING - labels[i - 1]->box.height;

          if (labels[i - 1]->box.y > max_y)
            labels[i - 1]->box.y = max_y;
        }
    }

  if (labels[0]->box.y < top)
    {
      double shift = top - labels[0]->box.y;

      for (guint i = 0; i < n; i++)
        labels[i]->box.y += shift;
    }
}

HrBucketChartLayout *
hr_bucket_chart_layout (const HrBucketChartData *data,
                        const HrChartStyle      *style,
                        PangoContext            *context,
                        double                   width,
                        double                   height)
{
  HrBucketChartLayout *layout;
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  double top = MARGIN, bottom = height - MARGIN;
  double text_h, small_h, tick_w = 0, needed = 0;
  double slot, label_column;
  guint n;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (style != NULL, NULL);
  g_return_val_if_fail (context != NULL, NULL);

  layout = g_new0 (HrBucketChartLayout, 1);
  layout->bounds = (HrRect) { 0, 0, width, height };
  layout->y_ticks = g_array_new (FALSE, TRUE, sizeof (HrAxisTick));
  g_array_set_clear_func (layout->y_ticks, hr_axis_tick_clear);
  layout->bars = g_array_new (FALSE, TRUE, sizeof (HrBucketBarLayout));
  g_array_set_clear_func (layout->bars, bar_layout_clear);
  layout->labels = g_array_new (FALSE, TRUE, sizeof (HrChartLabel));
  g_array_set_clear_func (layout->labels, (GDestroyNotify) hr_chart_label_clear);

  hr_chart_text_size (context, style, HR_CHART_FONT_BODY, "Ag", 0, NULL, &text_h);
  hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, "Ag", 0, NULL, &small_h);
  n = data->bars->len;

  /* ---- title and subtitle ---- */
  if (data->title != NULL && data->title[0] != '\0')
    {
      HrChartLabel title = hr_chart_label_new (context, style,
                                               hr_chart_text_ellipsize (context, style,
                                                                        HR_CHART_FONT_TITLE,
                                                                        data->title, "",
                                                                        width - 2 * MARGIN),
                                               HR_CHART_FONT_TITLE, HR_TEXT_FOREGROUND,
                                               HR_ALIGN_START, 0, MARGIN, top);

      top += title.box.height + 2;
      g_array_append_val (layout->labels, title);
    }
  if (data->subtitle != NULL && data->subtitle[0] != '\0')
    {
      HrChartLabel subtitle = hr_chart_label_new (context, style,
                                                  hr_chart_text_ellipsize (context, style,
                                                                           HR_CHART_FONT_SMALL,
                                                                           data->subtitle, "",
                                                                           width - 2 * MARGIN),
                                                  HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                                                  HR_ALIGN_START, 0, MARGIN, top);

      top += subtitle.box.height;
      g_array_append_val (layout->labels, subtitle);
    }
  top += 12;

  /* ---- legend, wrapped over as many rows as it needs ---- */
  {
    double x = MARGIN, row_y = 0, rows_h = small_h;
    HrRect swatches[HR_N_BUCKETS];
    double label_x[HR_N_BUCKETS];
    double label_row[HR_N_BUCKETS];

    for (guint i = 0; i < HR_N_BUCKETS; i++)
      {
        double w;

        hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, hr_bucket_get_label (i), 0, &w,
                            NULL);
        if (x > MARGIN && x + 14 + 5 + w > width - MARGIN)
          {
            x = MARGIN;
            row_y += small_h + 6;
            rows_h += small_h + 6;
          }
        swatches[i] = (HrRect) { x, row_y, 14, 14 };
        label_x[i] = x + 14 + 5;
        label_row[i] = row_y;
        x += 14 + 5 + w + LEGEND_GAP;
      }

    bottom -= rows_h;
    for (guint i = 0; i < HR_N_BUCKETS; i++)
      {
        layout->legend_swatches[i] = swatches[i];
        layout->legend_swatches[i].y += bottom + (small_h - 14) / 2;
        layout->legend_labels[i] = hr_chart_label_new (context, style,
                                                       g_strdup (hr_bucket_get_label (i)),
                                                       HR_CHART_FONT_SMALL, HR_TEXT_FOREGROUND,
                                                       HR_ALIGN_START, 0,
                                                       label_x[i], bottom + label_row[i]);
      }
    bottom -= 14;
  }

  /* ---- bar names under the plot ---- */
  {
    double names_h = 0;

    for (guint i = 0; i < n; i++)
      {
        const HrBucketBar *bar = g_ptr_array_index (data->bars, i);
        double h;

        hr_chart_text_size (context, style, HR_CHART_FONT_BOLD, bar->label,
                            (width - 2 * MARGIN) / MAX (1, n) - 8, NULL, &h);
        names_h = MAX (names_h, h);
      }
    bottom -= names_h + 8;
  }

  /* ---- the scale: every total, range and card on it, then nice ticks ---- */
  for (guint i = 0; i < n; i++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);

      needed = MAX (needed, hr_bucket_bar_total (bar));
      needed = MAX (needed, bar->high);
      needed = MAX (needed, bar->capacity);
    }
  if (needed <= 0)
    needed = GiB;
  hr_nice_ticks (0, needed * 1.06 / GiB, 6, values);
  layout->y_max = g_array_index (values, double, values->len - 1) * GiB;
  if (layout->y_max < needed * 1.02)
    {
      double step = values->len > 1
                      ? g_array_index (values, double, 1) - g_array_index (values, double, 0)
                      : 1;
      double next = g_array_index (values, double, values->len - 1) + step;

      g_array_append_val (values, next);
      layout->y_max = next * GiB;
    }

  for (guint i = 0; i < values->len; i++)
    {
      double v = g_array_index (values, double, i);
      g_autofree char *text = g_strdup_printf ("%g", v);
      double w;

      hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, text, 0, &w, NULL);
      tick_w = MAX (tick_w, w);
    }

  /* room above the plot for the total and verdict of the tallest bar */
  top += 2 * text_h + 8;

  layout->plot.x = MARGIN + tick_w + 8;
  layout->plot.y = top;
  layout->plot.width = MAX (10, width - MARGIN - layout->plot.x);
  layout->plot.height = MAX (10, bottom - top);

  {
    /* the unit, just above the axis's top tick */
    HrChartLabel axis = hr_chart_label_new (context, style, g_strdup (_("GiB per GPU")),
                                            HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                                            HR_ALIGN_START, 0, MARGIN, top - small_h * 1.5 - 10);

    g_array_append_val (layout->labels, axis);
  }

  for (guint i = 0; i < values->len; i++)
    {
      HrAxisTick tick = { 0 };
      double v = g_array_index (values, double, i);

      tick.value = v * GiB;
      tick.position = hr_bucket_chart_y_position (layout, tick.value);
      tick.label = hr_chart_label_new (context, style, g_strdup_printf ("%g", v),
                                       HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                                       HR_ALIGN_END, 0, layout->plot.x - 8, 0);
      tick.label.box.y = tick.position - tick.label.box.height / 2;
      g_array_append_val (layout->y_ticks, tick);
    }

  /* ---- bars ---- */
  slot = layout->plot.width / MAX (1, n);
  /* Labels beside each bar while there is room for them (up to about four
   * bars on a wide canvas); inside the segments otherwise. */
  label_column = slot >= 300 ? MIN (slot * 0.58, 260) : 0;

  for (guint i = 0; i < n; i++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);
      HrBucketBarLayout bl = { 0 };
      double total = hr_bucket_bar_total (bar);
      double slot_x = layout->plot.x + i * slot;
      double bar_w = MIN (BAR_MAX_WIDTH, (slot - label_column) * 0.6);
      /* the bar and its labels, as one group, centred in the slot */
      double bar_x = slot_x + (slot - bar_w - label_column) / 2;
      double y = hr_bucket_chart_y_position (layout, 0);
      HrChartLabel *beside[HR_N_BUCKETS + 1];
      guint n_beside = 0;

      bl.bar = (HrRect) { bar_x, hr_bucket_chart_y_position (layout, total), bar_w,
                         total / layout->y_max * layout->plot.height };

      for (guint b = 0; b < HR_N_BUCKETS; b++)
        {
          double h = bar->bytes[b] / layout->y_max * layout->plot.height;
          g_autofree char *size = hr_chart_format_bytes (bar->bytes[b]);
          double share = total > 0 ? 100.0 * bar->bytes[b] / total : 0;

          y -= h;
          bl.segments[b] = (HrRect) { bar_x, y, bar_w, h };

          if (bar->bytes[b] <= 0)
            continue;

          if (label_column > 0)
            {
              double max_w = label_column - LABEL_GAP - 4;
              g_autofree char *percent = share > 0 && share < 1 ? g_strdup ("<1%")
                                                                : g_strdup_printf ("%.0f%%", share);
              char *text = g_strdup_printf ("%s  %s · %s", hr_bucket_get_label (b), size, percent);
              char *shown = hr_chart_text_ellipsize (context, style, HR_CHART_FONT_SMALL, text,
                                                     "", max_w);

              g_free (text);
              bl.segment_labels[b] = hr_chart_label_new (context, style, shown,
                                                         HR_CHART_FONT_SMALL, HR_TEXT_FOREGROUND,
                                                         HR_ALIGN_START, 0,
                                                         bar_x + bar_w + LABEL_GAP, 0);
              bl.segment_labels[b].box.y = y + h / 2 - bl.segment_labels[b].box.height / 2;
              beside[n_beside++] = &bl.segment_labels[b];
            }
          else
            {
              /* inside the segment, when the size fits in it */
              double w, th;

              hr_chart_text_size (context, style, HR_CHART_FONT_SMALL, size, 0, &w, &th);
              if (w + 6 <= bar_w && th + 2 <= h)
                {
                  bl.segment_labels[b] = hr_chart_label_new (context, style, g_strdup (size),
                                                             HR_CHART_FONT_SMALL,
                                                             HR_TEXT_ON_FILL, HR_ALIGN_CENTER, 0,
                                                             bar_x + bar_w / 2,
                                                             y + h / 2 - th / 2);
                  bl.label_inside[b] = TRUE;
                }
            }
        }

      /* a measured bar's unattributed memory, on top */
      if (bar->unattributed > 0)
        {
          double h = bar->unattributed / layout->y_max * layout->plot.height;
          g_autofree char *size = hr_chart_format_bytes (bar->unattributed);

          y -= h;
          bl.unattributed = (HrRect) { bar_x, y, bar_w, h };
          if (label_column > 0)
            {
              double share = total > 0 ? 100.0 * bar->unattributed / total : 0;
              g_autofree char *percent = share < 1 ? g_strdup ("<1%")
                                                   : g_strdup_printf ("%.0f%%", share);
              /* Translators: memory of a measured bar no rule put in a bucket */
              g_autofree char *text = g_strdup_printf (_("unattributed  %s · %s"), size, percent);

              bl.unattributed_label = hr_chart_label_new (context, style,
                                                          hr_chart_text_ellipsize (
                                                            context, style, HR_CHART_FONT_SMALL,
                                                            text, "", label_column - LABEL_GAP - 4),
                                                          HR_CHART_FONT_SMALL,
                                                          HR_TEXT_MUTED, HR_ALIGN_START, 0,
                                                          bar_x + bar_w + LABEL_GAP, 0);
              bl.unattributed_label.box.y = y + h / 2 - bl.unattributed_label.box.height / 2;
              beside[n_beside++] = &bl.unattributed_label;
            }
        }

      /* Segment labels go top to bottom in the same order as the stack,
       * nudged apart where small segments crowd them, each tied to its
       * segment by a leader line. */
      if (n_beside > 0)
        {
          HrChartLabel *ordered[HR_N_BUCKETS + 1];

          for (guint k = 0; k < n_beside; k++)
            ordered[k] = beside[n_beside - 1 - k];
          spread_labels (ordered, n_beside, layout->plot.y - 2 * text_h,
                         layout->plot.y + layout->plot.height);

          for (guint b = 0; b < HR_N_BUCKETS; b++)
            {
              if (bl.segment_labels[b].text == NULL)
                continue;
              bl.leader_from[b] = (HrPoint) { bar_x + bar_w + 1,
                                             bl.segments[b].y + bl.segments[b].height / 2 };
              bl.leader_to[b] = (HrPoint) {
                bar_x + bar_w + LABEL_GAP - 3,
                bl.segment_labels[b].box.y + bl.segment_labels[b].box.height / 2,
              };
            }
          if (bl.unattributed_label.text != NULL)
            {
              bl.unattributed_leader[0] = (HrPoint) {
                bar_x + bar_w + 1, bl.unattributed.y + bl.unattributed.height / 2 };
              bl.unattributed_leader[1] = (HrPoint) {
                bar_x + bar_w + LABEL_GAP - 3,
                bl.unattributed_label.box.y + bl.unattributed_label.box.height / 2,
              };
            }
        }

      /* the range bracket, left of the bar */
      if (bar->high > 0)
        {
          double yl = hr_bucket_chart_y_position (layout, bar->low);
          double yh = hr_bucket_chart_y_position (layout, bar->high);

          bl.range = (HrRect) { bar_x - 9, yh, 6, yl - yh };
        }

      /* the card: capacity, its reserve, and the verdict */
      if (bar->capacity > 0)
        {
          g_autofree char *cap = hr_chart_format_bytes (bar->capacity);
          g_autofree char *usable = hr_chart_format_bytes (bar->usable);
          double left = label_column > 0 ? slot_x + 4 : slot_x + 2;
          double right = slot_x + slot - 4;
          char *text;

          bl.has_capacity = TRUE;
          bl.capacity_y = hr_bucket_chart_y_position (layout, bar->capacity);
          bl.usable_y = hr_bucket_chart_y_position (layout, bar->usable);
          bl.reserve = (HrRect) { left, bl.capacity_y, right - left, bl.usable_y - bl.capacity_y };

          /* Translators: a card's name (or "card"), its memory and the
           * part of it that is usable. */
          text = g_strdup_printf (_("%s · %s, %s usable"),
                                  bar->card != NULL ? bar->card : _("card"), cap, usable);
          bl.capacity_label = hr_chart_label_new (context, style,
                                                  hr_chart_text_ellipsize (context, style,
                                                                           HR_CHART_FONT_SMALL,
                                                                           text, "",
                                                                           right - left - 8),
                                                  HR_CHART_FONT_SMALL, HR_TEXT_MUTED,
                                                  HR_ALIGN_END, 0, right - 2, 0);
          g_free (text);
          bl.capacity_label.box.y = bl.capacity_y - bl.capacity_label.box.height - 2;
          bl.fits = bar->fits;

          {
            double margin = bar->usable - bar->need;
            g_autofree char *amount = hr_chart_format_bytes (fabs (margin));

            /* words and a sign, not only green and red; when the fit is
             * not about the whole bar (JAX's pool), say what it is about */
            gboolean pool = bar->need < 0.99 * total;

            double text_w, unused;

            if (bar->fits)
              text = g_strdup_printf (pool ? _("✓ Fits · %s to spare in XLA's pool")
                                           : _("✓ Fits · %s to spare"), amount);
            else
              text = g_strdup_printf (pool ? _("✗ Does not fit · %s over XLA's pool")
                                           : _("✗ Does not fit · %s over"), amount);
            /* a narrow slot gets the short form rather than an ellipsis
             * that hides the amount */
            hr_chart_text_size (context, style, HR_CHART_FONT_BOLD, text, 0, &text_w, &unused);
            if (text_w > slot - 8)
              {
                g_free (text);
                text = bar->fits ? g_strdup_printf (_("✓ %s spare"), amount)
                                 : g_strdup_printf (_("✗ %s over"), amount);
              }
            bl.verdict = hr_chart_label_new (context, style,
                                             hr_chart_text_ellipsize (context, style,
                                                                      HR_CHART_FONT_BOLD, text, "",
                                                               slot - 8),
                                             HR_CHART_FONT_BOLD,
                                             bar->fits ? HR_TEXT_GOOD : HR_TEXT_BAD,
                                             HR_ALIGN_CENTER, 0, bar_x + bar_w / 2, 0);
            g_free (text);
          }
        }

      /* the total (and its range) over the bar, the verdict above that */
      {
        g_autofree char *t = hr_chart_format_bytes (total);
        char *text = bar->high > 0 ? g_strdup_printf ("%s (%.1f–%.1f)", t, bar->low / GiB,
                                                      bar->high / GiB)
                                   : g_strdup (t);
        double text_w, unused;
        double above = MIN (bl.bar.y, bar->high > 0 ? bl.range.y : bl.bar.y);
        double block = 2 * text_h + 8;

        /* the range is drawn as the bracket anyway: without room, the
         * label keeps the total alone */
        hr_chart_text_size (context, style, HR_CHART_FONT_BOLD, text, 0, &text_w, &unused);
        if (text_w > slot - 8)
          {
            g_free (text);
            text = g_strdup (t);
          }

        /* over the card's line too when the two lines of text would cross it */
        if (bl.has_capacity && bl.capacity_y < above && bl.capacity_y > above - block)
          above = bl.capacity_y - 2;

        bl.total = hr_chart_label_new (context, style,
                                       hr_chart_text_ellipsize (context, style,
                                                                HR_CHART_FONT_BOLD, text, "",
                                                                slot - 8),
                                       HR_CHART_FONT_BOLD, HR_TEXT_FOREGROUND, HR_ALIGN_CENTER, 0,
                                       bar_x + bar_w / 2, 0);
        g_free (text);
        bl.total.box.y = above - bl.total.box.height - 4;

        if (bl.verdict.text != NULL)
          bl.verdict.box.y = bl.total.box.y - bl.verdict.box.height - 2;

        /* A short bar's labels beside it rise above it: the total and
         * the verdict then go over the highest of them. */
        {
          double highest = bl.total.box.y;
          gboolean crossed = FALSE;

          for (guint k = 0; k < n_beside; k++)
            {
              highest = MIN (highest, beside[k]->box.y);
              if (hr_rect_intersects (&bl.total.box, &beside[k]->box) ||
                  (bl.verdict.text != NULL &&
                   hr_rect_intersects (&bl.verdict.box, &beside[k]->box)))
                crossed = TRUE;
            }
          if (crossed)
            {
              bl.total.box.y = highest - bl.total.box.height - 4;
              if (bl.verdict.text != NULL)
                bl.verdict.box.y = bl.total.box.y - bl.verdict.box.height - 2;
            }
        }
      }

      /* The card's label goes at the right end of its line, or the left
       * end, or just under the line: wherever no other label is. */
      if (bl.has_capacity)
        {
          double left = bl.reserve.x + 2, right = bl.reserve.x + bl.reserve.width - 2;
          double above = bl.capacity_y - bl.capacity_label.box.height - 2;
          const HrPoint spots[] = {
            { right - bl.capacity_label.box.width, above },
            { left, above },
            { right - bl.capacity_label.box.width, bl.capacity_y + 2 },
            { left, bl.capacity_y + 2 },
          };

          for (guint k = 0; k < G_N_ELEMENTS (spots); k++)
            {
              gboolean clear = TRUE;

              bl.capacity_label.box.x = spots[k].x;
              bl.capacity_label.box.y = spots[k].y;
              for (guint b = 0; b < HR_N_BUCKETS && clear; b++)
                if (bl.segment_labels[b].text != NULL &&
                    hr_rect_intersects (&bl.capacity_label.box, &bl.segment_labels[b].box))
                  clear = FALSE;
              if (hr_rect_intersects (&bl.capacity_label.box, &bl.total.box) ||
                  (bl.verdict.text != NULL && hr_rect_intersects (&bl.capacity_label.box,
                                                                  &bl.verdict.box)) ||
                  hr_rect_intersects (&bl.capacity_label.box, &bl.bar))
                clear = FALSE;
              if (clear)
                break;
            }
        }

      /* keep every label inside the canvas and clamp the slot's edges */
      {
        HrChartLabel *all[] = { &bl.total, &bl.verdict, &bl.capacity_label };

        for (guint k = 0; k < G_N_ELEMENTS (all); k++)
          {
            if (all[k]->text == NULL)
              continue;
            all[k]->box.x = CLAMP (all[k]->box.x, slot_x + 2,
                                   slot_x + slot - all[k]->box.width - 2);
            all[k]->box.x = MAX (all[k]->box.x, 2);
            all[k]->box.y = MAX (all[k]->box.y, 2);
          }
      }

      bl.name = hr_chart_label_new (context, style, g_strdup (bar->label), HR_CHART_FONT_BOLD,
                                    HR_TEXT_FOREGROUND,
                                    HR_ALIGN_CENTER, slot - 8, bar_x + bar_w / 2,
                                    layout->plot.y + layout->plot.height + 6);
      bl.name.box.x = CLAMP (bl.name.box.x, slot_x + 2, slot_x + slot - bl.name.box.width - 2);

      g_array_append_val (layout->bars, bl);
    }

  return layout;
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

void
hr_bucket_chart_render (const HrBucketChartLayout *layout,
                        const HrBucketChartData   *data,
                        const HrChartStyle        *style,
                        cairo_t                   *cr)
{
  g_return_if_fail (layout != NULL);
  g_return_if_fail (data != NULL);
  g_return_if_fail (style != NULL);

  cairo_save (cr);
  hr_chart_prepare_cairo (cr);
  hr_chart_paint_background (cr, style, layout->bounds.width, layout->bounds.height);

  /* grid and ticks */
  cairo_set_line_width (cr, style->thin_line_width);
  for (guint i = 0; i < layout->y_ticks->len; i++)
    {
      HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);
      double y = round (tick->position) + 0.5;

      hr_chart_set_color (cr, i == 0 ? &style->axis : &style->grid);
      cairo_move_to (cr, layout->plot.x, y);
      cairo_line_to (cr, layout->plot.x + layout->plot.width, y);
      cairo_stroke (cr);
      hr_chart_draw_label (cr, style, &tick->label, NULL);
    }

  for (guint i = 0; i < layout->bars->len; i++)
    {
      const HrBucketBarLayout *bl = &g_array_index (layout->bars, HrBucketBarLayout, i);

      /* reserve strip and card lines behind the bar */
      if (bl->has_capacity)
        {
          HrRect r = bl->reserve;

          cairo_rectangle (cr, r.x, r.y, r.width, r.height);
          hr_chart_set_color (cr, &style->reserve);
          cairo_fill (cr);

          cairo_set_line_width (cr, style->line_width);
          hr_chart_set_color (cr, &style->capacity);
          cairo_move_to (cr, r.x, bl->capacity_y);
          cairo_line_to (cr, r.x + r.width, bl->capacity_y);
          cairo_stroke (cr);

          cairo_set_line_width (cr, style->thin_line_width);
          cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
          cairo_move_to (cr, r.x, bl->usable_y);
          cairo_line_to (cr, r.x + r.width, bl->usable_y);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);

          hr_chart_draw_label_halo (cr, style, &bl->capacity_label);
          hr_chart_draw_label (cr, style, &bl->capacity_label, NULL);
        }

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
            cairo_rectangle (cr, seg.x, seg.y, seg.width, seg.height);
          hr_chart_fill_pattern (cr, style, &style->bucket[b], style->bucket_pattern[b]);

          /* a hairline between segments keeps thin ones visible */
          cairo_set_line_width (cr, 1.0);
          hr_chart_set_color (cr, &style->background);
          cairo_move_to (cr, seg.x, seg.y + seg.height);
          cairo_line_to (cr, seg.x + seg.width, seg.y + seg.height);
          cairo_stroke (cr);

          if (bl->segment_labels[b].text != NULL)
            {
              if (!bl->label_inside[b])
                {
                  cairo_set_line_width (cr, style->thin_line_width);
                  hr_chart_set_color (cr, &style->muted);
                  cairo_move_to (cr, bl->leader_from[b].x, bl->leader_from[b].y);
                  cairo_line_to (cr, bl->leader_to[b].x, bl->leader_to[b].y);
                  cairo_stroke (cr);
                }
              if (!bl->label_inside[b])
                hr_chart_draw_label_halo (cr, style, &bl->segment_labels[b]);
              hr_chart_draw_label (cr, style, &bl->segment_labels[b], &style->bucket[b]);
            }
        }

      /* a measured bar's unattributed memory: hatched in the muted colour,
       * which no bucket uses, and named beside the bar */
      if (bl->unattributed.height > 0)
        {
          HrRect seg = bl->unattributed;

          rounded_top_rect (cr, &seg, style->corner_radius);
          hr_chart_fill_pattern (cr, style, &style->muted, HR_PATTERN_BACK_DIAGONAL);
          cairo_set_line_width (cr, 1.0);
          hr_chart_set_color (cr, &style->background);
          cairo_move_to (cr, seg.x, seg.y + seg.height);
          cairo_line_to (cr, seg.x + seg.width, seg.y + seg.height);
          cairo_stroke (cr);
          if (bl->unattributed_label.text != NULL)
            {
              cairo_set_line_width (cr, style->thin_line_width);
              hr_chart_set_color (cr, &style->muted);
              cairo_move_to (cr, bl->unattributed_leader[0].x, bl->unattributed_leader[0].y);
              cairo_line_to (cr, bl->unattributed_leader[1].x, bl->unattributed_leader[1].y);
              cairo_stroke (cr);
              hr_chart_draw_label_halo (cr, style, &bl->unattributed_label);
              hr_chart_draw_label (cr, style, &bl->unattributed_label, NULL);
            }
        }

      /* the estimate's range: an I-beam beside the bar */
      if (bl->range.height > 0)
        {
          double x = bl->range.x + bl->range.width / 2;

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

      hr_chart_draw_label (cr, style, &bl->total, NULL);
      if (bl->verdict.text != NULL)
        hr_chart_draw_label (cr, style, &bl->verdict, NULL);
      hr_chart_draw_label (cr, style, &bl->name, NULL);
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
  const double gib = GiB;

  g_return_val_if_fail (data != NULL, NULL);

  for (guint i = 0; i < data->bars->len; i++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);
      double total = hr_bucket_bar_total (bar);

      if (i > 0)
        g_string_append (str, " ");
      if (data->bars->len > 1)
        g_string_append_printf (str, "%s: ", bar->label);

      if (bar->capacity <= 0)
        g_string_append_printf (str, _("Peak %.1f GiB"), total / gib);
      else if (bar->fits)
        g_string_append_printf (str, _("Peak %.1f GiB of %.0f GiB on %s (fits, %.1f GiB spare)"),
                                total / gib, bar->capacity / gib,
                                bar->card != NULL ? bar->card : _("the card"),
                                (bar->usable - bar->need) / gib);
      else
        g_string_append_printf (str, _("Peak %.1f GiB of %.0f GiB on %s (does not fit, %.1f GiB "
                                       "over)"),
                                total / gib, bar->capacity / gib,
                                bar->card != NULL ? bar->card : _("the card"),
                                (bar->need - bar->usable) / gib);
      if (bar->high > 0)
        g_string_append_printf (str, _(", range %.1f to %.1f GiB"), bar->low / gib,
                                bar->high / gib);
      g_string_append (str, ": ");
      for (guint b = 0; b < HR_N_BUCKETS; b++)
        g_string_append_printf (str, "%s%s %.1f", b > 0 ? ", " : "",
                                hr_enum_to_nick (hr_bucket_names, b), bar->bytes[b] / gib);
      if (bar->unattributed > 0)
        g_string_append_printf (str, ", %s %.1f", _("unattributed"), bar->unattributed / gib);
      g_string_append (str, " GiB.");
    }

  return g_string_free (str, FALSE);
}

static char *
tooltip_gib (double bytes)
{
  return g_strdup_printf (_("%.2f GiB"), bytes / 1073741824.0);
}

char *
hr_bucket_chart_describe_at (const HrBucketChartLayout *layout,
                             const HrBucketChartData   *data,
                             double                     x,
                             double                     y)
{
  g_return_val_if_fail (layout != NULL && data != NULL, NULL);

  for (guint i = 0; i < layout->bars->len && i < data->bars->len; i++)
    {
      const HrBucketBarLayout *bar = &g_array_index (layout->bars, HrBucketBarLayout, i);
      const HrBucketBar *values = g_ptr_array_index (data->bars, i);

      for (guint b = 0; b < HR_N_BUCKETS; b++)
        if (hr_rect_contains (&bar->segments[b], x, y))
          {
            g_autofree char *amount = tooltip_gib (values->bytes[b]);
            double total = hr_bucket_bar_total (values);

            /* TRANSLATORS: tooltip over a bar segment: "RTX 4090: Weights,
             * 15.0 GiB (62% of the peak)" */
            return g_strdup_printf (_("%s: %s, %s (%.0f%% of the peak)"), values->label,
                                    hr_bucket_get_label (b), amount,
                                    total > 0 ? 100.0 * values->bytes[b] / total : 0.0);
          }

      if (hr_rect_contains (&bar->bar, x, y) || hr_rect_contains (&bar->range, x, y))
        {
          g_autofree char *total = tooltip_gib (hr_bucket_bar_total (values));
          g_autofree char *low = tooltip_gib (values->low);
          g_autofree char *high = tooltip_gib (values->high);

          return g_strdup_printf (_("%s: peak %s, range %s to %s"), values->label, total, low,
                                  high);
        }
    }
  return NULL;
}
