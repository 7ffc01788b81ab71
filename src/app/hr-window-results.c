/* hr-window-results.c: the main area (the headline, the verdict per GPU,
 * the charts, the levers, host RAM and the notes)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>

#include "hr-window-private.h"

#define MAX_KNOB_ROWS 8

/* The first lever that makes the run fit on @gpu, in words. */
static char *
best_knob_for (HrWindow    *self,
               const HrGpu *gpu)
{
  g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
  g_autoptr(GPtrArray) knobs = NULL;

  g_clear_pointer (&s->gpu, hr_gpu_free);
  s->gpu = hr_gpu_copy (gpu);
  knobs = hr_knobs_rank (s);
  for (guint i = 0; i < knobs->len; i++)
    {
      const HrKnob *knob = g_ptr_array_index (knobs, i);

      if (knob->has_fit && knob->fits_after)
        return g_strdup_printf (_("%s fixes it (largest micro-batch %u)"), knob->label,
                                knob->max_micro_batch_after);
    }
  return g_strdup (_("no single lever makes it fit: combine several, or add GPUs"));
}

static void
refresh_verdicts (HrWindow  *self,
                  GPtrArray *gpus)
{
  g_autoptr(GPtrArray) fits = NULL;

  _hr_window_list_box_clear (self->verdict_list);
  g_ptr_array_set_size (self->verdicts, 0);

  if (gpus->len == 0)
    {
      GtkWidget *row = _hr_window_text_row (_("No GPU chosen"),
                                 _("Tick one or more GPUs in the sidebar to see whether "
                                   "the run fits."), NULL);
      gtk_list_box_append (self->verdict_list, row);
      g_ptr_array_add (self->verdicts, g_strdup (_("No GPU chosen")));
      return;
    }

  fits = hr_fit_gpus (self->scenario, gpus);
  for (guint i = 0; i < fits->len; i++)
    {
      HrGpuFit *fit = g_ptr_array_index (fits, i);
      g_autofree char *text = NULL;
      GtkWidget *row;
      GtkWidget *icon;

      /* With a calibration, the measured model decides on every card. */
      if (self->calibration != NULL)
        {
          g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
          g_autoptr(HrPlan) plan = NULL;

          g_clear_pointer (&s->gpu, hr_gpu_free);
          s->gpu = hr_gpu_copy (g_ptr_array_index (gpus, i));
          plan = hr_plan_new (s);
          hr_calibration_peak (self->calibration, plan, s->micro_batch, &fit->peak);
          fit->fits = fit->peak.need <= fit->usable;
          fit->max_micro_batch = hr_calibration_max_micro_batch (self->calibration, plan,
                                                                 fit->usable,
                                                                 &fit->max_is_lower_bound);
        }

      if (fit->fits)
        {
          g_autofree char *spare = _hr_window_format_bytes (self, (double) fit->usable - fit->peak.need);

          text = g_strdup_printf (_("Fits with %s to spare at micro-batch %u; "
                                    "largest micro-batch %s%u"),
                                  spare, self->scenario->micro_batch,
                                  fit->max_is_lower_bound ? "≥ " : "", fit->max_micro_batch);
        }
      else if (fit->max_micro_batch > 0)
        {
          g_autofree char *over = _hr_window_format_bytes (self, (double) fit->peak.need - fit->usable);
          g_autofree char *knob = best_knob_for (self, g_ptr_array_index (gpus, i));

          text = g_strdup_printf (_("Does not fit by %s at micro-batch %u; "
                                    "largest micro-batch %u, or %s"),
                                  over, self->scenario->micro_batch, fit->max_micro_batch, knob);
        }
      else
        {
          g_autofree char *over = _hr_window_format_bytes (self, (double) fit->peak.need - fit->usable);
          g_autofree char *knob = best_knob_for (self, g_ptr_array_index (gpus, i));

          text = g_strdup_printf (_("Does not fit by %s, not even at micro-batch 1: %s"),
                                  over, knob);
        }

      row = _hr_window_text_row (fit->gpu_name, text, NULL);
      icon = gtk_image_new_from_icon_name (fit->fits ? "emblem-ok-symbolic"
                                                     : "dialog-warning-symbolic");
      gtk_widget_add_css_class (icon, fit->fits ? "success" : "error");
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      fit->fits ? _("Fits") : _("Does not fit"), -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      gtk_list_box_append (self->verdict_list, row);
      g_ptr_array_add (self->verdicts, g_strdup_printf ("%s: %s", fit->gpu_name, text));
    }
}

/* The calibrated model for the curve: each sample, and the largest
 * micro-batch on each card. */
static void
calibrate_curve (HrWindow         *self,
                 HrCurveChartData *curve,
                 GPtrArray        *gpus)
{
  g_autoptr(HrPlan) plan = hr_plan_new (self->scenario);

  for (guint i = 0; i < curve->samples->len; i++)
    {
      HrCurveSample *sample = &g_array_index (curve->samples, HrCurveSample, i);
      HrPeak peak;

      hr_calibration_peak (self->calibration, plan, (guint) sample->batch, &peak);
      sample->bytes = peak.need;
      sample->low = peak.need_low;
      sample->high = peak.need_high;
    }
  for (guint i = 0; i < curve->gpus->len && i < gpus->len; i++)
    {
      HrCurveGpu *line = g_ptr_array_index (curve->gpus, i);
      g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
      g_autoptr(HrPlan) gpu_plan = NULL;

      g_clear_pointer (&s->gpu, hr_gpu_free);
      s->gpu = hr_gpu_copy (g_ptr_array_index (gpus, i));
      gpu_plan = hr_plan_new (s);
      line->max_micro_batch = hr_calibration_max_micro_batch (self->calibration, gpu_plan,
                                                              (guint64) line->usable,
                                                              &line->max_is_lower_bound);
    }
  {
    char *subtitle = g_strdup_printf (_("%s · calibrated by measurement"),
                                      curve->subtitle != NULL ? curve->subtitle : "");

    g_free (curve->subtitle);
    curve->subtitle = subtitle;
  }
}

static void
refresh_charts (HrWindow  *self,
                GPtrArray *gpus)
{
  HrBucketChartData *buckets;
  HrCurveChartData *curve;
  g_autoptr(GPtrArray) curve_gpus = g_ptr_array_new ();
  guint upper;
  gboolean log2_x;

  if (gpus->len == 0)
    buckets = hr_bucket_chart_data_new_for_scenario (self->scenario);
  else
    {
      g_autoptr(HrBucketChartData) one = hr_bucket_chart_data_new_for_scenario (self->scenario);

      buckets = hr_bucket_chart_data_new ();
      buckets->title = g_strdup (one->title);
      buckets->subtitle = g_strdup (one->subtitle);
      for (guint i = 0; i < gpus->len; i++)
        {
          const HrGpu *gpu = g_ptr_array_index (gpus, i);
          g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
          g_autoptr(HrEstimate) est = NULL;

          g_clear_pointer (&s->gpu, hr_gpu_free);
          s->gpu = hr_gpu_copy (gpu);
          est = hr_estimate_new (s);
          if (self->calibration != NULL)
            {
              g_autoptr(HrPlan) plan = hr_plan_new (s);

              hr_calibration_apply_estimate (self->calibration, plan, est);
            }
          hr_bucket_chart_data_add_estimate (buckets, gpu->name, est);
        }
    }
  hr_chart_view_set_buckets (self->buckets_view, buckets);

  for (guint i = 0; i < gpus->len; i++)
    g_ptr_array_add (curve_gpus, g_ptr_array_index (gpus, i));
  if (curve_gpus->len == 0)
    hr_curve_chart_add_reference_gpus (curve_gpus, self->catalog);
  hr_curve_chart_batch_range (self->scenario, curve_gpus, &upper, &log2_x);
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);

      upper = hr_curve_chart_measurement_batch_range (set->measurement, upper);
    }
  curve = hr_curve_chart_data_new_for_scenario (self->scenario, curve_gpus, 1, upper, log2_x);
  if (self->calibration != NULL)
    calibrate_curve (self, curve, curve_gpus);
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const HrWindowMeasurement *set = g_ptr_array_index (self->measurements, i);

      hr_curve_chart_data_add_measurement (curve, set->measurement,
                                           self->scenario->micro_batch);
    }
  hr_chart_view_set_curve (self->curve_view, curve);
}

static void
refresh_knobs (HrWindow *self)
{
  g_autoptr(GPtrArray) knobs = hr_knobs_rank (self->scenario);
  guint shown = 0;

  _hr_window_list_box_clear (self->knobs_list);
  for (guint i = 0; i < knobs->len && shown < MAX_KNOB_ROWS; i++)
    {
      const HrKnob *knob = g_ptr_array_index (knobs, i);
      g_autofree char *saved = NULL;
      g_autofree char *suffix = NULL;
      g_autofree char *subtitle = NULL;

      if (knob->saved <= 0)
        continue;
      saved = _hr_window_format_bytes (self, (double) knob->saved);
      suffix = g_strdup_printf ("−%s", saved);
      if (knob->has_fit && knob->fits_after)
        subtitle = g_strdup_printf (_("%s · then fits, largest micro-batch %u"), knob->cost,
                                    knob->max_micro_batch_after);
      else
        subtitle = g_strdup (knob->cost);
      gtk_list_box_append (self->knobs_list, _hr_window_text_row (knob->label, subtitle, suffix));
      shown++;
    }
  if (shown == 0)
    gtk_list_box_append (self->knobs_list,
                         _hr_window_text_row (_("Nothing left to save"),
                                   _("Every lever Headroom knows is already in use."), NULL));
}

static void
refresh_host (HrWindow         *self,
              const HrEstimate *est)
{
  g_autofree char *total = _hr_window_format_bytes (self, (double) est->host_ram);

  _hr_window_list_box_clear (self->host_list);
  for (guint i = 0; i < est->host_items->len; i++)
    {
      const HrEstimateItem *item = g_ptr_array_index (est->host_items, i);
      g_autofree char *amount = _hr_window_format_bytes (self, item->bytes);

      gtk_list_box_append (self->host_list, _hr_window_text_row (item->label, NULL, amount));
    }
  if (est->host_ram == 0)
    adw_preferences_group_set_description (self->host_group,
                                           _("Nothing beyond the operating system and the "
                                             "framework itself"));
  else
    {
      g_autofree char *desc = g_strdup_printf (_("%s of system memory, beyond the operating "
                                                 "system and the framework itself"), total);

      adw_preferences_group_set_description (self->host_group, desc);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->host_list), est->host_items->len > 0);
}

static void
refresh_notes (HrWindow         *self,
               const HrEstimate *est)
{
  _hr_window_list_box_clear (self->notes_list);
  for (guint i = 0; i < est->notes->len; i++)
    {
      GtkWidget *label = gtk_label_new (g_ptr_array_index (est->notes, i));

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_set_margin_top (label, 8);
      gtk_widget_set_margin_bottom (label, 8);
      gtk_widget_set_margin_start (label, 12);
      gtk_widget_set_margin_end (label, 12);
      gtk_list_box_append (self->notes_list, label);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->notes_list), est->notes->len > 0);
}


void
_hr_window_results_refresh (HrWindow *self)
{
  g_autoptr(GPtrArray) gpus = _hr_window_compared_gpus (self);
  g_autoptr(HrEstimate) est = hr_estimate_new (self->scenario);
  g_autofree char *peak = _hr_window_format_bytes (self, (double) est->total);
  g_autofree char *range = hr_format_bytes_range (est->low, est->high,
                                                  _hr_window_display_unit (self));
  g_autofree char *alloc = _hr_window_format_bytes (self, (double) est->allocated_peak);
  g_autofree char *reserved = _hr_window_format_bytes (self, (double) est->reserved_peak);
  g_autofree char *params = hr_format_params (est->params);
  g_autofree char *trainable = hr_format_params (est->trainable_params);
  g_autofree char *headline = NULL;
  g_autofree char *detail = NULL;

  if (self->calibration != NULL)
    {
      g_autoptr(HrPlan) plan = hr_plan_new (self->scenario);

      hr_calibration_apply_estimate (self->calibration, plan, est);
      g_free (peak);
      g_free (range);
      peak = _hr_window_format_bytes (self, (double) est->total);
      range = hr_format_bytes_range (est->low, est->high, _hr_window_display_unit (self));
    }

  if (self->calibration != NULL)
    headline = g_strdup_printf (self->scenario->gpus > 1 ? _("%s peak per GPU, calibrated")
                                                         : _("%s peak, calibrated"), peak);
  else
    headline = g_strdup_printf (self->scenario->gpus > 1 ? _("%s peak per GPU") : _("%s peak"),
                                peak);
  detail = g_strdup_printf (_("Likely range %s · allocated %s · reserved %s · "
                              "%s parameters, %s trained"),
                            range, alloc, reserved, params, trainable);
  gtk_label_set_text (self->peak_label, headline);
  gtk_label_set_text (self->peak_detail_label, detail);

  refresh_verdicts (self, gpus);
  refresh_charts (self, gpus);
  refresh_knobs (self);
  refresh_host (self, est);
  refresh_notes (self, est);
}
