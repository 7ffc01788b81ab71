/* hr-export-dialog.c: export a chart or the report
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "hr-export-dialog.h"
#include "hr-file-chooser.h"

struct _HrExportDialog
{
  AdwWindow      parent_instance;

  HrWindow      *window;
  GSettings     *settings;
  AdwComboRow   *what_row;
  AdwComboRow   *format_row;
  AdwActionRow  *width_row;
  GtkSpinButton *width_spin;
  AdwActionRow  *height_row;
  GtkSpinButton *height_spin;
  AdwActionRow  *scale_row;
  GtkSpinButton *scale_spin;
  AdwComboRow   *theme_row;
  AdwActionRow  *transparent_row;
  GtkSwitch     *transparent_switch;
};

G_DEFINE_FINAL_TYPE (HrExportDialog, hr_export_dialog, ADW_TYPE_WINDOW)

static const char *format_labels[] = {
  N_("PNG image"),
  N_("SVG drawing"),
  N_("PDF document"),
  NULL
};
static const char *theme_labels[] = { N_("Light"), N_("Dark"), N_("Print"), NULL };

static AdwComboRow *
combo_row (const char  *title,
           const char **labels)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

  for (guint i = 0; labels[i] != NULL; i++)
    gtk_string_list_append (list, _(labels[i]));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  return row;
}

static GtkSpinButton *
spin_row (const char    *title,
          const char    *subtitle,
          double         lower,
          double         upper,
          double         value,
          guint          digits,
          AdwActionRow **row_out)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, digits > 0 ? 0.5 : 10);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (row, subtitle);
  adw_action_row_add_suffix (row, spin);
  adw_action_row_set_activatable_widget (row, spin);
  *row_out = row;
  return GTK_SPIN_BUTTON (spin);
}

/* The list: every chart of the registry, then the whole report. */
static AdwComboRow *
what_row (void)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

  for (guint i = 0; i < hr_chart_types_get_n (); i++)
    gtk_string_list_append (list, _(hr_chart_types_get (i)->title));
  gtk_string_list_append (list, _("Whole report (PDF)"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Chart"));
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  return row;
}

static gboolean
is_report (HrExportDialog *self)
{
  return adw_combo_row_get_selected (self->what_row) >= hr_chart_types_get_n ();
}

/* NULL for the report. */
static const HrChartType *
get_chart (HrExportDialog *self)
{
  return is_report (self) ? NULL
                          : hr_chart_types_get (adw_combo_row_get_selected (self->what_row));
}

static HrExportFormat
get_format (HrExportDialog *self)
{
  if (is_report (self))
    return HR_EXPORT_PDF;
  return (HrExportFormat) adw_combo_row_get_selected (self->format_row);
}

static void
update_sensitivity (HrExportDialog *self)
{
  gboolean report = is_report (self);
  HrExportFormat format = get_format (self);

  gtk_widget_set_sensitive (GTK_WIDGET (self->format_row), !report);
  gtk_widget_set_sensitive (GTK_WIDGET (self->width_row), !report);
  gtk_widget_set_sensitive (GTK_WIDGET (self->height_row), !report);
  gtk_widget_set_sensitive (GTK_WIDGET (self->scale_row), !report && format == HR_EXPORT_PNG);
  gtk_widget_set_sensitive (GTK_WIDGET (self->transparent_row), !report);
}

static void
on_changed (HrExportDialog *self)
{
  update_sensitivity (self);
}

void
hr_export_dialog_set_format (HrExportDialog *self,
                             HrExportFormat  format)
{
  adw_combo_row_set_selected (self->format_row, format);
}

gboolean
hr_export_dialog_export_to (HrExportDialog *self,
                            GFile          *file,
                            GError        **error)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *message = NULL;
  HrChartTheme theme = (HrChartTheme) adw_combo_row_get_selected (self->theme_row);

  if (path == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("Only local files can be written"));
      return FALSE;
    }
  g_settings_set_enum (self->settings, "export-theme", theme);
  if (is_report (self)
        ? !hr_window_export (self->window, HR_EXPORT_WHAT_REPORT, path, HR_EXPORT_PDF, 0, 0, 1,
                             theme, gtk_switch_get_active (self->transparent_switch), error)
        : !hr_window_export_chart (self->window, get_chart (self)->name, path, get_format (self),
                                   gtk_spin_button_get_value (self->width_spin),
                                   gtk_spin_button_get_value (self->height_spin),
                                   gtk_spin_button_get_value (self->scale_spin), theme,
                                   gtk_switch_get_active (self->transparent_switch), error))
    return FALSE;

  message = g_strdup_printf (_("Exported “%s”"), name);
  hr_window_show_toast_for_file (self->window, message, file);
  return TRUE;
}

static void
finish_export (HrExportDialog *self,
               GFile          *file)
{
  g_autoptr(GError) error = NULL;

  if (!hr_export_dialog_export_to (self, file, &error))
    {
      GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self),
                                                  _("Could not export"), error->message);

      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
      gtk_window_present (GTK_WINDOW (dialog));
      return;
    }
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
export_chosen (GFile    *file,
               gpointer  user_data)
{
  finish_export (HR_EXPORT_DIALOG (user_data), file);
}

static void
on_export_clicked (HrExportDialog *self)
{
  HrExportFormat format = get_format (self);
  g_autofree char *name = g_strdup_printf ("headroom-%s.%s",
                                           is_report (self) ? "report" : get_chart (self)->name,
                                           hr_enum_to_nick (hr_export_format_names, format));

  hr_file_chooser_save (GTK_WINDOW (self), _("Export"), _("_Export"), name, NULL, export_chosen,
                        g_object_ref (self), g_object_unref);
}

static void
hr_export_dialog_dispose (GObject *object)
{
  HrExportDialog *self = HR_EXPORT_DIALOG (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hr_export_dialog_parent_class)->dispose (object);
}

static void
hr_export_dialog_class_init (HrExportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_export_dialog_dispose;
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
hr_export_dialog_init (HrExportDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  GtkWidget *export = gtk_button_new_with_mnemonic (_("_Export…"));
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *look = adw_preferences_group_new ();

  self->settings = g_settings_new (SCHEMA_ID);

  gtk_window_set_title (GTK_WINDOW (self), _("Export"));
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (self), 460, 560);
  adw_header_bar_set_show_end_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_set_show_start_title_buttons (ADW_HEADER_BAR (header), FALSE);
  gtk_widget_add_css_class (export, "suggested-action");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "window.close");
  g_signal_connect_swapped (export, "clicked", G_CALLBACK (on_export_clicked), self);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), cancel);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), export);
  gtk_window_set_default_widget (GTK_WINDOW (self), export);

  self->what_row = what_row ();
  self->format_row = combo_row (_("Format"), format_labels);
  self->width_spin = spin_row (_("Width"), _("Logical pixels; SVG and PDF in points at 96 dpi"),
                               200, 8000, 1200, 0, &self->width_row);
  self->height_spin = spin_row (_("Height"), NULL, 150, 8000, 800, 0, &self->height_row);
  self->scale_spin = spin_row (_("Scale"), _("Device pixels per logical pixel, for PNG"),
                               0.5, 8, 2, 1, &self->scale_row);
  self->theme_row = combo_row (_("Theme"), theme_labels);
  self->transparent_row = ADW_ACTION_ROW (adw_action_row_new ());
  self->transparent_switch = GTK_SWITCH (gtk_switch_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->transparent_switch), GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->transparent_row),
                                 _("Transparent background"));
  adw_action_row_add_suffix (self->transparent_row, GTK_WIDGET (self->transparent_switch));
  adw_action_row_set_activatable_widget (self->transparent_row,
                                         GTK_WIDGET (self->transparent_switch));

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->what_row));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->format_row));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->width_row));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->height_row));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->scale_row));
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (look), _("Appearance"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (look), GTK_WIDGET (self->theme_row));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (look), GTK_WIDGET (self->transparent_row));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (look));

  gtk_box_append (GTK_BOX (box), header);
  gtk_widget_set_vexpand (page, TRUE);
  gtk_box_append (GTK_BOX (box), page);
  adw_window_set_content (ADW_WINDOW (self), box);

  adw_combo_row_set_selected (self->theme_row,
                              g_settings_get_enum (self->settings, "export-theme"));
  g_signal_connect_swapped (self->what_row, "notify::selected", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->format_row, "notify::selected", G_CALLBACK (on_changed), self);
}

HrExportDialog *
hr_export_dialog_new (HrWindow     *window,
                      HrExportWhat  what)
{
  HrExportDialog *self = g_object_new (HR_TYPE_EXPORT_DIALOG,
                                       "transient-for", window,
                                       NULL);

  self->window = window;
  if (what == HR_EXPORT_WHAT_REPORT)
    adw_combo_row_set_selected (self->what_row, hr_chart_types_get_n ());
  else
    for (guint i = 0; i < hr_chart_types_get_n (); i++)
      if (g_str_equal (hr_chart_types_get (i)->name,
                       what == HR_EXPORT_WHAT_CURVE ? "curve" : "buckets"))
        adw_combo_row_set_selected (self->what_row, i);
  update_sensitivity (self);
  return self;
}
