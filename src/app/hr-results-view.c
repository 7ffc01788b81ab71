/* hr-results-view.c: the main area (the headline, the verdict per GPU,
 * the charts, the breakdown, the levers, host RAM and the notes)
 *
 * Everything here is read from the analysis the window hands down
 * (hr-analysis.h): nothing in this file decides a fit or picks a lever.
 * A refresh updates the rows in place (a row's texts change, rows are
 * added or cut only when the count changes), so one change lays out only
 * the labels whose text changed.  Every figure says where it comes from:
 * estimated (and from what: derived from the scenario's numbers, or
 * assumed), calibrated to a measurement file, or measured.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-results-view"

#include <glib/gi18n.h>

#include "hr-results-view.h"
#include "hr-text-row.h"

struct _HrResultsView
{
  AdwBin                parent_instance;

  HrAnalysis           *analysis;
  char                 *provenance;
  HrSizeUnit            unit;
  HrKnobSort            lever_sort;
  GPtrArray            *verdicts;      /* char * */
  GtkPopover           *source_popover; /* a lever's source, on Enter or a click */
  GtkLabel             *source_label;

  /* Template objects, in alphabetical order */
  AdwPreferencesGroup  *breakdown_group;
  GtkListBox           *breakdown_list;
  HrChartView          *buckets_view;
  GtkBox               *charts_box;
  HrChartView          *curve_view;
  AdwPreferencesGroup  *host_group;
  GtkListBox           *host_list;
  GtkListBox           *knobs_list;
  GtkToggleButton      *levers_cost_button;
  GtkToggleButton      *levers_saved_button;
  GtkBox               *main_box;
  GtkListBox           *notes_list;
  GtkLabel             *peak_detail_label;
  GtkLabel             *peak_label;
  GtkListBox           *verdict_list;
};

enum {
  PROP_0,
  PROP_ANALYSIS,
  PROP_PROVENANCE,
  PROP_LEVER_SORT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void hr_results_view_buildable_init (GtkBuildableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (HrResultsView, hr_results_view, ADW_TYPE_BIN,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_BUILDABLE,
                                                      hr_results_view_buildable_init))

static GtkBuildableIface *parent_buildable_iface;

static char *
format_bytes (HrResultsView *self,
              double         bytes)
{
  return hr_size_format (bytes, self->unit);
}

#define MAX_KNOB_ROWS 8

/* A verdict row: the card's name, the verdict, and beside it how the
 * usable memory was reached and where the figures come from.  Plain
 * labels rather than one subtitle, so that a change of the verdict lays
 * out the verdict alone. */
static GtkWidget *
verdict_row (HrResultsView *self,
             guint     index)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->verdict_list, (int) index);
  GtkWidget *box, *text, *icon, *label;

  if (row != NULL)
    return GTK_WIDGET (row);

  row = GTK_LIST_BOX_ROW (gtk_list_box_row_new ());
  gtk_list_box_row_set_activatable (row, FALSE);
  gtk_widget_set_focusable (GTK_WIDGET (row), FALSE);
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  icon = gtk_image_new ();
  gtk_widget_set_valign (icon, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (box), icon);
  /* a column, not a vertical box: see hr-text-row.c */
  text = hr_text_column_new (2);
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (box), text);
  for (guint i = 0; i < 3; i++)
    {
      label = gtk_label_new (NULL);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_width_chars (GTK_LABEL (label), 20);
      if (i == 0)
        gtk_widget_add_css_class (label, "heading");
      if (i == 2)
        {
          gtk_widget_add_css_class (label, "dim-label");
          gtk_widget_add_css_class (label, "caption");
        }
      hr_text_column_append (HR_TEXT_COLUMN (text), label);
    }
  gtk_list_box_row_set_child (row, box);
  gtk_list_box_append (self->verdict_list, GTK_WIDGET (row));
  return GTK_WIDGET (row);
}

static void
verdict_row_update (GtkWidget  *row,
                    const char *icon_name,
                    const char *css_class,
                    const char *description,
                    const char *title,
                    const char *verdict,
                    const char *detail)
{
  GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));
  GtkWidget *icon = gtk_widget_get_first_child (box);
  GtkWidget *label = gtk_widget_get_first_child (gtk_widget_get_next_sibling (icon));
  const char *texts[] = { title, verdict, detail };
  const char *old_class = g_object_get_data (G_OBJECT (icon), "hr-class");

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++, label = gtk_widget_get_next_sibling (label))
    {
      hr_label_set_text (GTK_LABEL (label), texts[i]);
      gtk_widget_set_visible (label, texts[i] != NULL);
    }
  gtk_widget_set_visible (icon, icon_name != NULL);
  if (icon_name == NULL)
    return;
  if (g_strcmp0 (gtk_image_get_icon_name (GTK_IMAGE (icon)), icon_name) != 0)
    gtk_image_set_from_icon_name (GTK_IMAGE (icon), icon_name);
  if (g_strcmp0 (old_class, css_class) != 0)
    {
      if (old_class != NULL)
        gtk_widget_remove_css_class (icon, old_class);
      gtk_widget_add_css_class (icon, css_class);
      g_object_set_data_full (G_OBJECT (icon), "hr-class", g_strdup (css_class), g_free);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  description, -1);
}

static void
refresh_verdicts (HrResultsView *self,
                  const char *provenance)
{
  HrAnalysis *analysis = self->analysis;
  guint n = hr_analysis_get_n_gpus (analysis);

  g_ptr_array_set_size (self->verdicts, 0);

  if (n == 0)
    {
      verdict_row_update (verdict_row (self, 0), NULL, NULL, NULL, _("No GPU chosen"),
                          _("Tick one or more GPUs in the sidebar to see whether the run fits."),
                          NULL);
      hr_list_box_trim (self->verdict_list, 1);
      g_ptr_array_add (self->verdicts, g_strdup (_("No GPU chosen")));
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);
      /* Translators: how the usable memory was reached, then %s: "Estimated"
       * or "Calibrated to FILE". */
      g_autofree char *detail = g_strdup_printf (_("%s\n%s for this card; its memory from the "
                                                   "catalog"), g->rule, provenance);

      verdict_row_update (verdict_row (self, i),
                          g->fit == HR_ANALYSIS_FIT_FITS ? "emblem-ok-symbolic"
                                                         : "dialog-warning-symbolic",
                          g->fit == HR_ANALYSIS_FIT_FITS ? "success"
                          : g->fit == HR_ANALYSIS_FIT_TIGHT ? "warning" : "error",
                          g->fit == HR_ANALYSIS_FIT_FITS ? _("Fits")
                          : g->fit == HR_ANALYSIS_FIT_TIGHT ? _("Probably fits, tight")
                                                            : _("Does not fit"),
                          g->gpu->name, g->verdict, detail);
      g_ptr_array_add (self->verdicts, g_strdup_printf ("%s: %s", g->gpu->name, g->verdict));
    }
  hr_list_box_trim (self->verdict_list, n);
}

static void
refresh_charts (HrResultsView *self)
{
  hr_chart_view_set_buckets (self->buckets_view,
                             hr_bucket_chart_data_new_for_analysis (self->analysis));
  hr_chart_view_set_curve (self->curve_view,
                           hr_curve_chart_data_new_for_analysis (self->analysis));
}

/* Each line of the estimate, with its bucket and its basis. */
static void
refresh_breakdown (HrResultsView    *self,
                   const HrEstimate *est)
{
  guint shown = 0;

  for (guint i = 0; i < est->items->len; i++)
    {
      const HrEstimateItem *item = g_ptr_array_index (est->items, i);
      g_autofree char *amount = NULL;
      g_autofree char *range = NULL;
      g_autofree char *subtitle = NULL;
      GtkWidget *row;

      if (item->bytes <= 0 && item->high <= 0)
        continue;
      amount = format_bytes (self, item->bytes);
      range = hr_size_format_range (item->low, item->high,
                                    self->unit);
      /* Translators: a breakdown line's bucket, its basis (derived,
       * calibrated, assumed) and its range. */
      subtitle = g_strdup_printf (_("%s · %s · %s"), hr_bucket_get_label (item->bucket),
                                  hr_basis_get_label (item->basis), range);
      row = hr_list_box_text_row (self->breakdown_list, shown++);
      hr_text_row_set_texts (HR_TEXT_ROW (row), item->label, subtitle, amount);
    }
  hr_list_box_trim (self->breakdown_list, shown);
  gtk_widget_set_visible (GTK_WIDGET (self->breakdown_list), shown > 0);
}

static void
set_row_source (GtkWidget  *row,
                const char *source)
{
  gboolean has = source != NULL && source[0] != '\0';

  g_object_set_data_full (G_OBJECT (row), "hr-source", has ? g_strdup (source) : NULL, g_free);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), has);
  gtk_widget_set_focusable (row, TRUE);
  if (has)
    gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                    source, -1);
  else
    gtk_accessible_reset_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
}

static void
on_knob_activated_cb (GtkListBox    *list,
                      GtkListBoxRow *row,
                      HrResultsView *self)
{
  const char *source = g_object_get_data (G_OBJECT (row), "hr-source");
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (self)));
  graphene_rect_t bounds, window, shown;
  graphene_point_t origin;

  if (source == NULL || root == NULL)
    return;
  gtk_label_set_text (self->source_label, source);
  /* The part of the row inside the window: a popover pointing outside
   * it would have no monitor to open on. */
  graphene_rect_init (&window, 0, 0, gtk_widget_get_width (root), gtk_widget_get_height (root));
  if (!gtk_widget_compute_bounds (GTK_WIDGET (row), root, &bounds)
      || !graphene_rect_intersection (&bounds, &window, &shown)
      || !gtk_widget_compute_point (root, GTK_WIDGET (self), &shown.origin, &origin))
    return;
  gtk_popover_set_pointing_to (self->source_popover,
                               &(GdkRectangle) { (int) origin.x, (int) origin.y,
                                                 MAX (1, (int) shown.size.width),
                                                 MAX (1, (int) shown.size.height) });
  gtk_popover_popup (self->source_popover);
}

/* One popover for every lever's source, pointing at the row shown. */
static void
make_source_popover (HrResultsView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *heading = gtk_label_new (_("Source"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_widget_add_css_class (heading, "heading");
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_box_append (GTK_BOX (box), heading);
  gtk_box_append (GTK_BOX (box), label);
  self->source_popover = GTK_POPOVER (gtk_popover_new ());
  self->source_label = GTK_LABEL (label);
  gtk_popover_set_child (self->source_popover, box);
  gtk_popover_set_position (self->source_popover, GTK_POS_TOP);
  gtk_widget_set_parent (GTK_WIDGET (self->source_popover), GTK_WIDGET (self));
  g_signal_connect_object (self->knobs_list, "row-activated", G_CALLBACK (on_knob_activated_cb),
                           self, 0);
}

static void
refresh_knobs (HrResultsView *self,
               const char *provenance)
{
  GPtrArray *knobs = hr_analysis_get_levers (self->analysis);
  const HrAnalysisGpu *own = hr_analysis_get_own_gpu (self->analysis);
  guint shown = 0;

  for (guint i = 0; i < knobs->len && shown < MAX_KNOB_ROWS; i++)
    {
      const HrKnob *knob = g_ptr_array_index (knobs, i);
      g_autofree char *amount = format_bytes (self, (double) (knob->saved > 0
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
      /* Translators: %s is "Estimated" or "Calibrated to FILE". */
      g_string_append_printf (text, _("\n%s again with the change made"), provenance);
      subtitle = g_string_free (text, FALSE);
      row = hr_list_box_text_row (self->knobs_list, shown);
      hr_text_row_set_texts (HR_TEXT_ROW (row), knob->label, subtitle, suffix);
      hr_widget_set_tooltip (row, knob->source);
      /* The source is the keyboard's too: Tab reaches the row, Enter or
       * a click shows the source in a popover, and a screen reader reads
       * it as the row's description. */
      set_row_source (row, knob->source);
      /* The lever that fixes the scenario's own card says so. */
      hr_text_row_set_badge (HR_TEXT_ROW (row), own != NULL && own->fix != NULL
                                          && g_str_equal (own->fix->id, knob->id)
                                            ? _("Fixes it") : NULL);
      shown++;
    }
  if (shown == 0)
    {
      GtkWidget *row = hr_list_box_text_row (self->knobs_list, 0);

      hr_text_row_set_texts (HR_TEXT_ROW (row), _("Nothing left to save"),
                                  _("Every lever Headroom knows is already in use."), NULL);
      hr_text_row_set_badge (HR_TEXT_ROW (row), NULL);
      hr_widget_set_tooltip (row, NULL);
      set_row_source (row, NULL);
      shown = 1;
    }
  hr_list_box_trim (self->knobs_list, shown);
}

static void
refresh_host (HrResultsView    *self,
              const HrEstimate *est)
{
  g_autofree char *total = format_bytes (self, (double) est->host_ram);

  for (guint i = 0; i < est->host_items->len; i++)
    {
      const HrEstimateItem *item = g_ptr_array_index (est->host_items, i);
      g_autofree char *amount = format_bytes (self, item->bytes);
      /* Translators: %s is how the figure was reached (derived, assumed). */
      g_autofree char *basis = g_strdup_printf (_("Estimated, %s"),
                                                hr_basis_get_label (item->basis));

      hr_text_row_set_texts (HR_TEXT_ROW (hr_list_box_text_row (self->host_list, i)), item->label, basis,
                                  amount);
    }
  hr_list_box_trim (self->host_list, est->host_items->len);
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
refresh_notes (HrResultsView    *self,
               const HrEstimate *est)
{
  for (guint i = 0; i < est->notes->len; i++)
    {
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->notes_list, (int) i);
      const char *note = g_ptr_array_index (est->notes, i);
      GtkWidget *label;

      if (row == NULL)
        {
          label = gtk_label_new (NULL);
          gtk_label_set_wrap (GTK_LABEL (label), TRUE);
          gtk_label_set_width_chars (GTK_LABEL (label), 20);
          gtk_label_set_xalign (GTK_LABEL (label), 0);
          gtk_widget_set_margin_top (label, 8);
          gtk_widget_set_margin_bottom (label, 8);
          gtk_widget_set_margin_start (label, 12);
          gtk_widget_set_margin_end (label, 12);
          gtk_list_box_append (self->notes_list, label);
          row = gtk_list_box_get_row_at_index (self->notes_list, (int) i);
          gtk_widget_set_focusable (GTK_WIDGET (row), FALSE);
        }
      label = gtk_list_box_row_get_child (row);
      hr_label_set_text (GTK_LABEL (label), note);
    }
  hr_list_box_trim (self->notes_list, est->notes->len);
  gtk_widget_set_visible (GTK_WIDGET (self->notes_list), est->notes->len > 0);
}

static void
on_lever_sort_toggled_cb (GtkToggleButton *button,
                          HrResultsView   *self)
{
  /* The button that toggled, read: a group's other button is made
   * active only after this one's "toggled". */
  HrKnobSort sort = gtk_toggle_button_get_active (self->levers_cost_button)
                      ? HR_KNOB_SORT_COST : HR_KNOB_SORT_SAVED;

  if (sort == self->lever_sort)
    return;
  self->lever_sort = sort;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEVER_SORT]);
}

/* "Estimated: 9 lines derived from the scenario's numbers, 3 assumed". */
static char *
describe_basis (HrResultsView    *self,
                const HrEstimate *est,
                const char       *provenance)
{
  guint counts[3] = { 0, 0, 0 };
  GString *text = g_string_new (provenance);

  for (guint i = 0; i < est->items->len; i++)
    {
      const HrEstimateItem *item = g_ptr_array_index (est->items, i);

      if (item->basis <= HR_BASIS_ASSUMED)
        counts[item->basis]++;
    }
  g_string_append (text, ": ");
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE,
                                             "%u line derived from the scenario's numbers",
                                             "%u lines derived from the scenario's numbers",
                                             counts[HR_BASIS_DERIVED]),
                          counts[HR_BASIS_DERIVED]);
  if (counts[HR_BASIS_CALIBRATED] > 0)
    g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, ", %u calibrated",
                                               ", %u calibrated", counts[HR_BASIS_CALIBRATED]),
                            counts[HR_BASIS_CALIBRATED]);
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, ", %u assumed", ", %u assumed",
                                             counts[HR_BASIS_ASSUMED]),
                          counts[HR_BASIS_ASSUMED]);
  return g_string_free (text, FALSE);
}

static void
refresh (HrResultsView *self)
{
  const HrEstimate *est = hr_analysis_get_estimate (self->analysis);
  const HrAnalysisGpu *own = hr_analysis_get_own_gpu (self->analysis);
  const char *provenance = self->provenance;
  /* Under XLA's preallocated pool the headline is the run's use of the
   * pool, so the range beside it is that use's, not the pool's (which is
   * one fixed figure) */
  gboolean in_pool = own != NULL && own->limit.has_pool &&
                     !hr_scenario_has_kv_pool (hr_analysis_get_scenario (self->analysis));
  g_autofree char *range = in_pool
                             ? hr_size_format_range (own->need_low, own->need_high, self->unit)
                             : hr_size_format_range (est->low, est->high, self->unit);
  g_autofree char *alloc = format_bytes (self, (double) est->allocated_peak);
  g_autofree char *reserved = format_bytes (self, (double) est->reserved_peak);
  g_autofree char *params = hr_format_params (est->params);
  g_autofree char *trainable = hr_format_params (est->trainable_params);
  g_autofree char *basis = describe_basis (self, est, provenance);
  g_autofree char *detail = NULL;

  /* the range is the fit's scatter once measurements calibrate the
   * estimate, else the estimator's error on published runs of sources it
   * was not built from (hr-estimate-range.c) */
  detail = g_strdup_printf (hr_analysis_get_calibration (self->analysis) != NULL
                              ? _("Likely range %s (from your measurements) · allocated %s · "
                                  "reserved %s · %s parameters, %s trained\n%s")
                              : _("Likely range %s (calibrated from published runs of other "
                                  "sources) · allocated %s · reserved %s · %s parameters, "
                                  "%s trained\n%s"),
                            range, alloc, reserved, params, trainable, basis);
  hr_label_set_text (self->peak_label, hr_analysis_get_headline (self->analysis));
  hr_label_set_text (self->peak_detail_label, detail);

  refresh_verdicts (self, provenance);
  refresh_charts (self);
  refresh_breakdown (self, est);
  refresh_knobs (self, provenance);
  refresh_host (self, est);
  refresh_notes (self, est);
}

/* Charts side by side when there is room for both at a readable size:
 * four labelled bars need about 700 pixels. */
static void
hr_results_view_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  HrResultsView *self = HR_RESULTS_VIEW (widget);

  GTK_WIDGET_CLASS (hr_results_view_parent_class)->size_allocate (widget, width, height,
                                                                  baseline);
  /* A popover parented here is placed by its parent's allocation. */
  if (self->source_popover != NULL)
    gtk_popover_present (self->source_popover);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->charts_box),
                                  gtk_widget_get_width (GTK_WIDGET (self->charts_box)) >= 1500
                                    ? GTK_ORIENTATION_HORIZONTAL
                                    : GTK_ORIENTATION_VERTICAL);
}

/* <child type="measurements">: the window's measurements, after the
 * breakdown. */
static void
hr_results_view_add_child (GtkBuildable *buildable,
                           GtkBuilder   *builder,
                           GObject      *child,
                           const char   *type)
{
  HrResultsView *self = HR_RESULTS_VIEW (buildable);

  if (g_strcmp0 (type, "measurements") == 0)
    gtk_box_insert_child_after (self->main_box, GTK_WIDGET (child),
                                GTK_WIDGET (self->breakdown_group));
  else
    parent_buildable_iface->add_child (buildable, builder, child, type);
}

static void
hr_results_view_buildable_init (GtkBuildableIface *iface)
{
  parent_buildable_iface = g_type_interface_peek_parent (iface);
  iface->add_child = hr_results_view_add_child;
}

static void
hr_results_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  HrResultsView *self = HR_RESULTS_VIEW (object);

  switch (prop_id)
    {
    case PROP_ANALYSIS:
      g_value_set_boxed (value, self->analysis);
      break;
    case PROP_PROVENANCE:
      g_value_set_string (value, self->provenance);
      break;
    case PROP_LEVER_SORT:
      g_value_set_int (value, self->lever_sort);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_results_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  HrResultsView *self = HR_RESULTS_VIEW (object);

  switch (prop_id)
    {
    case PROP_ANALYSIS:
      hr_results_view_set_analysis (self, g_value_get_boxed (value));
      break;
    case PROP_PROVENANCE:
      hr_results_view_set_provenance (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_results_view_dispose (GObject *object)
{
  HrResultsView *self = HR_RESULTS_VIEW (object);

  if (self->source_popover != NULL)
    gtk_widget_unparent (GTK_WIDGET (g_steal_pointer (&self->source_popover)));
  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_RESULTS_VIEW);
  G_OBJECT_CLASS (hr_results_view_parent_class)->dispose (object);
}

static void
hr_results_view_finalize (GObject *object)
{
  HrResultsView *self = HR_RESULTS_VIEW (object);

  g_clear_pointer (&self->analysis, hr_analysis_unref);
  g_clear_pointer (&self->provenance, g_free);
  g_clear_pointer (&self->verdicts, g_ptr_array_unref);
  G_OBJECT_CLASS (hr_results_view_parent_class)->finalize (object);
}

static void
hr_results_view_class_init (HrResultsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = hr_results_view_get_property;
  object_class->set_property = hr_results_view_set_property;
  object_class->dispose = hr_results_view_dispose;
  object_class->finalize = hr_results_view_finalize;
  widget_class->size_allocate = hr_results_view_size_allocate;

  properties[PROP_ANALYSIS] =
    g_param_spec_boxed ("analysis", NULL, NULL, HR_TYPE_ANALYSIS_BOXED,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROVENANCE] =
    g_param_spec_string ("provenance", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LEVER_SORT] =
    g_param_spec_int ("lever-sort", NULL, NULL, 0, G_MAXINT, HR_KNOB_SORT_COST,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (HR_TYPE_CHART_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/hr-results-view.ui");
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, breakdown_group);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, breakdown_list);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, buckets_view);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, charts_box);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, curve_view);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, host_group);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, host_list);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, knobs_list);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, levers_cost_button);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, levers_saved_button);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, main_box);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, notes_list);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, peak_detail_label);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, peak_label);
  gtk_widget_class_bind_template_child (widget_class, HrResultsView, verdict_list);
  gtk_widget_class_bind_template_callback (widget_class, on_lever_sort_toggled_cb);
}

static void
hr_results_view_init (HrResultsView *self)
{
  self->verdicts = g_ptr_array_new_with_free_func (g_free);
  self->lever_sort = HR_KNOB_SORT_COST;
  self->unit = HR_SIZE_GIB;
  self->provenance = g_strdup (_("Estimated"));

  gtk_widget_init_template (GTK_WIDGET (self));
  make_source_popover (self);
}

void
hr_results_view_set_analysis (HrResultsView *self,
                              HrAnalysis    *analysis)
{
  g_return_if_fail (HR_IS_RESULTS_VIEW (self));

  if (analysis == self->analysis)
    return;
  if (analysis != NULL)
    hr_analysis_ref (analysis);
  g_clear_pointer (&self->analysis, hr_analysis_unref);
  self->analysis = analysis;
  if (analysis != NULL)
    refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
}

HrAnalysis *
hr_results_view_get_analysis (HrResultsView *self)
{
  g_return_val_if_fail (HR_IS_RESULTS_VIEW (self), NULL);
  return self->analysis;
}

/* Read at the next analysis. */
void
hr_results_view_set_provenance (HrResultsView *self,
                                const char    *provenance)
{
  g_return_if_fail (HR_IS_RESULTS_VIEW (self));

  if (g_strcmp0 (self->provenance, provenance) == 0)
    return;
  g_free (self->provenance);
  self->provenance = g_strdup (provenance);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROVENANCE]);
}

/* Read at the next analysis. */
void
hr_results_view_set_unit (HrResultsView *self,
                          HrSizeUnit     unit)
{
  g_return_if_fail (HR_IS_RESULTS_VIEW (self));
  self->unit = unit;
}

HrKnobSort
hr_results_view_get_lever_sort (HrResultsView *self)
{
  g_return_val_if_fail (HR_IS_RESULTS_VIEW (self), HR_KNOB_SORT_COST);
  return self->lever_sort;
}

HrChartView *
hr_results_view_get_chart (HrResultsView *self,
                           HrChartKind    kind)
{
  g_return_val_if_fail (HR_IS_RESULTS_VIEW (self), NULL);
  return kind == HR_CHART_KIND_CURVE ? self->curve_view : self->buckets_view;
}

GStrv
hr_results_view_dup_verdicts (HrResultsView *self)
{
  GStrvBuilder *builder;

  g_return_val_if_fail (HR_IS_RESULTS_VIEW (self), NULL);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < self->verdicts->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (self->verdicts, i));
  return g_strv_builder_end (builder);
}
