/* hr-window-results.c: the main area (the headline, the verdict per GPU,
 * the charts, the levers, host RAM and the notes)
 *
 * Everything here is read from the window's analysis (hr-analysis.h):
 * nothing in this file decides a fit or picks a lever.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>

#include "hr-window-private.h"

#define MAX_KNOB_ROWS 8

static void
refresh_verdicts (HrWindow *self)
{
  HrAnalysis *analysis = self->analysis;

  _hr_window_list_box_clear (self->verdict_list);
  g_ptr_array_set_size (self->verdicts, 0);

  if (hr_analysis_get_n_gpus (analysis) == 0)
    {
      GtkWidget *row = _hr_window_text_row (_("No GPU chosen"),
                                            _("Tick one or more GPUs in the sidebar to see "
                                              "whether the run fits."), NULL);

      gtk_list_box_append (self->verdict_list, row);
      g_ptr_array_add (self->verdicts, g_strdup (_("No GPU chosen")));
      return;
    }

  for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);
      /* The verdict, and beside it how the usable memory was reached. */
      g_autofree char *text = g_strdup_printf ("%s\n%s", g->verdict, g->rule);
      GtkWidget *row = _hr_window_text_row (g->gpu->name, text, NULL);
      GtkWidget *icon = gtk_image_new_from_icon_name (g->fits ? "emblem-ok-symbolic"
                                                              : "dialog-warning-symbolic");

      gtk_widget_add_css_class (icon, g->fits ? "success" : "error");
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      g->fits ? _("Fits") : _("Does not fit"), -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      gtk_list_box_append (self->verdict_list, row);
      g_ptr_array_add (self->verdicts, g_strdup_printf ("%s: %s", g->gpu->name, g->verdict));
    }
}

static void
refresh_charts (HrWindow *self)
{
  hr_chart_view_set_buckets (self->buckets_view,
                             hr_bucket_chart_data_new_for_analysis (self->analysis));
  hr_chart_view_set_curve (self->curve_view,
                           hr_curve_chart_data_new_for_analysis (self->analysis));
}

static void
refresh_knobs (HrWindow *self)
{
  GPtrArray *knobs = hr_analysis_get_levers (self->analysis);
  const HrAnalysisGpu *own = hr_analysis_get_own_gpu (self->analysis);
  guint shown = 0;

  _hr_window_list_box_clear (self->knobs_list);
  for (guint i = 0; i < knobs->len && shown < MAX_KNOB_ROWS; i++)
    {
      const HrKnob *knob = g_ptr_array_index (knobs, i);
      g_autofree char *amount = _hr_window_format_bytes (self, (double) (knob->saved > 0
                                                                           ? knob->saved
                                                                           : knob->gained));
      g_autofree char *suffix = knob->saved > 0 ? g_strdup_printf ("−%s", amount)
                                                : g_strdup_printf (_("+%s usable"), amount);
      g_autofree char *subtitle = NULL;
      GString *text = g_string_new (knob->cost);
      GtkWidget *row;

      if (knob->has_fit && knob->fits_after)
        g_string_printf (text, _("%s · then fits, largest micro-batch %u"), knob->cost,
                         knob->max_micro_batch_after);
      /* Translators: what a lever may change in the result, then why. */
      g_string_append_printf (text, _("\nResult: %s (%s)"), hr_knob_risk_label (knob->risk),
                              knob->risk_text);
      if (knob->more_gpus)
        g_string_append (text, _(" · needs more GPUs"));
      subtitle = g_string_free (text, FALSE);
      row = _hr_window_text_row (knob->label, subtitle, suffix);
      gtk_widget_set_tooltip_text (row, knob->source);
      /* The lever that fixes the scenario's own card says so. */
      if (own != NULL && own->fix != NULL && g_str_equal (own->fix->id, knob->id))
        {
          GtkWidget *badge = gtk_label_new (_("Fixes it"));

          gtk_widget_add_css_class (badge, "caption-heading");
          gtk_widget_add_css_class (badge, "accent");
          gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
          adw_action_row_add_prefix (ADW_ACTION_ROW (row), badge);
        }
      gtk_list_box_append (self->knobs_list, row);
      shown++;
    }
  if (shown == 0)
    gtk_list_box_append (self->knobs_list,
                         _hr_window_text_row (_("Nothing left to save"),
                                              _("Every lever Headroom knows is already in use."),
                                              NULL));
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

static void
on_lever_sort_toggled (GtkToggleButton *button,
                       HrWindow        *self)
{
  HrKnobSort sort = gtk_toggle_button_get_active (self->levers_saved_button)
                      ? HR_KNOB_SORT_SAVED : HR_KNOB_SORT_COST;

  if (sort == self->lever_sort)
    return;
  self->lever_sort = sort;
  _hr_window_refresh (self);
}

void
_hr_window_results_init (HrWindow *self)
{
  g_signal_connect (self->levers_cost_button, "toggled", G_CALLBACK (on_lever_sort_toggled),
                    self);
}

void
_hr_window_results_refresh (HrWindow *self)
{
  const HrEstimate *est = hr_analysis_get_estimate (self->analysis);
  g_autofree char *range = hr_format_bytes_range (est->low, est->high,
                                                  _hr_window_display_unit (self));
  g_autofree char *alloc = _hr_window_format_bytes (self, (double) est->allocated_peak);
  g_autofree char *reserved = _hr_window_format_bytes (self, (double) est->reserved_peak);
  g_autofree char *params = hr_format_params (est->params);
  g_autofree char *trainable = hr_format_params (est->trainable_params);
  g_autofree char *detail = NULL;

  detail = g_strdup_printf (_("Likely range %s · allocated %s · reserved %s · "
                              "%s parameters, %s trained"),
                            range, alloc, reserved, params, trainable);
  gtk_label_set_text (self->peak_label, hr_analysis_get_headline (self->analysis));
  gtk_label_set_text (self->peak_detail_label, detail);

  refresh_verdicts (self);
  refresh_charts (self);
  refresh_knobs (self);
  refresh_host (self, est);
  refresh_notes (self, est);
}
