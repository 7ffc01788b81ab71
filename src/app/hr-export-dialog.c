/* hr-export-dialog.c: export a chart or the report
 *
 * Every chart of the registry or the whole report; a figure size (the
 * screen, a column or both columns of a paper, a slide, a poster, or any
 * size in inches, centimetres or pixels) with the fonts that read at it;
 * the format, the resolution of a PNG, SVG text as text or outlines, and
 * the colours.  The preview draws the chart as the file will have it, with
 * the same functions, at the chosen size and fonts.
 *
 * Enter on a row opens or toggles that row's own control; Enter on the
 * Export button (the default) exports.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "hr-export-dialog.h"
#include "hr-file-chooser.h"

struct _HrExportDialog
{
  AdwWindow          parent_instance;

  HrAnalysis        *analysis;
  GSettings         *settings;

  /* Template objects, in alphabetical order */
  GtkLabel          *caption;
  AdwActionRow      *dpi_row;
  GtkSpinButton     *dpi_spin;
  GtkButton         *export_button;
  AdwComboRow       *format_row;
  AdwActionRow      *height_row;
  GtkSpinButton     *height_spin;
  GtkDrawingArea    *preview;
  AdwComboRow       *size_row;
  AdwActionRow      *svg_text_row;
  GtkSwitch         *svg_text_switch;
  AdwComboRow       *theme_row;
  AdwActionRow      *transparent_row;
  GtkSwitch         *transparent_switch;
  AdwComboRow       *unit_row;
  AdwComboRow       *what_row;
  AdwActionRow      *width_row;
  GtkSpinButton     *width_spin;

  /* the chart the preview draws, made from the window's analysis */
  const HrChartType *data_type;
  gpointer           data;
  HrLengthUnit       unit;        /* of the custom width and height */
  gboolean           updating;
};

G_DEFINE_FINAL_TYPE (HrExportDialog, hr_export_dialog, ADW_TYPE_WINDOW)

enum {
  EXPORTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The custom size's units (the Unit row's, ui/hr-export-dialog.ui) as
 * HrLengthUnit. */
static const HrLengthUnit units[] = { HR_LENGTH_IN, HR_LENGTH_CM, HR_LENGTH_PX };

/* The Chart row's list: every chart of the registry, then the whole
 * report. */
static void
fill_what_row (AdwComboRow *row)
{
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

  for (guint i = 0; i < hr_chart_types_get_n (); i++)
    gtk_string_list_append (list, _(hr_chart_types_get (i)->title));
  gtk_string_list_append (list, _("Whole report (PDF)"));
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
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

static HrChartSizePreset
get_preset (HrExportDialog *self)
{
  return (HrChartSizePreset) MIN (adw_combo_row_get_selected (self->size_row),
                                  HR_CHART_SIZE_CUSTOM);
}

static double
px_per_unit (HrLengthUnit unit)
{
  return 1.0 / hr_chart_length_in_unit (1.0, unit);
}

/* The size the dialog is set to: a preset, or the custom width and height
 * in their unit (with the fonts for that width). */
static void
get_size (HrExportDialog *self,
          HrChartSize    *size)
{
  HrChartSizePreset preset = get_preset (self);

  if (preset != HR_CHART_SIZE_CUSTOM)
    {
      hr_chart_size_init_preset (size, preset);
      return;
    }
  hr_chart_size_init_custom (size,
                             gtk_spin_button_get_value (self->width_spin) *
                             px_per_unit (self->unit),
                             gtk_spin_button_get_value (self->height_spin) *
                             px_per_unit (self->unit), self->unit);
}

/* The style of the file: its colours, its size's fonts. */
static HrChartStyle *
make_style (HrExportDialog    *self,
            const HrChartSize *size)
{
  HrChartStyle *style = hr_chart_style_new ((HrChartTheme) adw_combo_row_get_selected (
                                              self->theme_row));

  style->transparent = gtk_switch_get_active (self->transparent_switch);
  hr_chart_style_apply_size (style, size);
  return style;
}

/* The chart's data for @type, from the window's analysis (as the window's
 * views and its export make it); kept for the preview. */
static gconstpointer
chart_data (HrExportDialog    *self,
            const HrChartType *type)
{
  if (self->data_type != type)
    {
      HrChartSource source = { self->analysis, hr_catalog_get_default (),
                               NULL, NULL };

      if (self->data != NULL)
        self->data_type->data_free (self->data);
      self->data = NULL;
      self->data_type = type;
      if (type != NULL && source.analysis != NULL)
        self->data = type->data_new (&source);
    }
  return self->data;
}

/* The spin buttons show the size in the custom unit. */
static void
show_size (HrExportDialog    *self,
           const HrChartSize *size)
{
  guint digits = self->unit == HR_LENGTH_PX ? 0 : 2;

  self->updating = TRUE;
  gtk_spin_button_set_digits (self->width_spin, digits);
  gtk_spin_button_set_digits (self->height_spin, digits);
  gtk_spin_button_set_increments (self->width_spin, digits > 0 ? 0.1 : 10, digits > 0 ? 1 : 100);
  gtk_spin_button_set_increments (self->height_spin, digits > 0 ? 0.1 : 10, digits > 0 ? 1 : 100);
  /* 16 to 16384 pixels a side, what an export allows */
  gtk_spin_button_set_range (self->width_spin, hr_chart_length_in_unit (16, self->unit),
                             hr_chart_length_in_unit (16384, self->unit));
  gtk_spin_button_set_range (self->height_spin, hr_chart_length_in_unit (16, self->unit),
                             hr_chart_length_in_unit (16384, self->unit));
  gtk_spin_button_set_value (self->width_spin, hr_chart_length_in_unit (size->width, self->unit));
  gtk_spin_button_set_value (self->height_spin, hr_chart_length_in_unit (size->height,
                                                                         self->unit));
  self->updating = FALSE;
}

static void
update_caption (HrExportDialog *self)
{
  HrChartSize size;
  g_autofree char *w = NULL;
  g_autofree char *h = NULL;
  g_autofree char *text = NULL;
  HrLengthUnit shown;

  get_size (self, &size);
  shown = size.unit;
  w = hr_chart_length_format (size.width, shown);
  h = hr_chart_length_format (size.height, shown);
  if (is_report (self))
    text = g_strdup (_("A4 pages; each chart a figure across the page"));
  else if (get_format (self) == HR_EXPORT_PNG)
    {
      double dpi = gtk_spin_button_get_value (self->dpi_spin);

      /* Translators: the figure's size, its text's size, then the PNG's
       * pixels and resolution */
      text = g_strdup_printf (_("%s × %s · text %.1f pt · %.0f × %.0f pixels at %.0f dpi"),
                              w, h, size.font_size, round (size.width * dpi / 96),
                              round (size.height * dpi / 96), dpi);
    }
  else
    text = g_strdup_printf (_("%s × %s · text %.1f pt, %.1f pt at the least"), w, h,
                            size.font_size, MIN (size.small_size, size.font_size));
  gtk_label_set_text (self->caption, text);
}

static void
draw_preview (GtkDrawingArea *area,
              cairo_t        *cr,
              int             width,
              int             height,
              gpointer        user_data)
{
  HrExportDialog *self = HR_EXPORT_DIALOG (user_data);
  const HrChartType *type = get_chart (self);
  g_autoptr(HrChartStyle) style = NULL;
  PangoContext *context;
  gconstpointer data;
  HrChartSize size;
  double scale, x, y;
  const double margin = 12;

  if (type == NULL)
    type = hr_chart_type_find ("buckets");
  data = chart_data (self, type);
  if (data == NULL)
    return;

  get_size (self, &size);
  style = make_style (self, &size);
  scale = MIN ((width - 2 * margin) / size.width, (height - 2 * margin) / size.height);
  if (!(scale > 0))
    return;
  x = (width - size.width * scale) / 2;
  y = (height - size.height * scale) / 2;

  /* the page, with a soft edge under it */
  cairo_save (cr);
  cairo_rectangle (cr, x + 2, y + 3, size.width * scale, size.height * scale);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.18);
  cairo_fill (cr);
  cairo_rectangle (cr, x, y, size.width * scale, size.height * scale);
  if (style->transparent)
    {
      /* a transparent chart over a checkerboard, as image viewers show it */
      cairo_set_source_rgb (cr, 0.9, 0.9, 0.9);
      cairo_fill_preserve (cr);
      cairo_clip (cr);
      cairo_set_source_rgb (cr, 0.8, 0.8, 0.8);
      for (double cy = y; cy < y + size.height * scale; cy += 8)
        for (double cx = x + (fmod ((cy - y) / 8, 2) < 1 ? 0 : 8); cx < x + size.width * scale;
             cx += 16)
          cairo_rectangle (cr, cx, cy, 8, 8);
      cairo_fill (cr);
    }
  cairo_restore (cr);

  /* the chart, drawn as the file will have it, scaled to the preview */
  cairo_save (cr);
  cairo_translate (cr, x, y);
  cairo_scale (cr, scale, scale);
  cairo_rectangle (cr, 0, 0, size.width, size.height);
  cairo_clip (cr);
  context = hr_chart_pango_context_new ();
  hr_chart_prepare_cairo (cr);
  hr_chart_type_draw (type, cr, context, style, size.width, size.height, data);
  g_object_unref (context);
  cairo_restore (cr);
}

static void
update (HrExportDialog *self)
{
  gboolean report = is_report (self);
  HrExportFormat format = get_format (self);
  gboolean custom = get_preset (self) == HR_CHART_SIZE_CUSTOM;
  const HrChartType *type = get_chart (self);

  gtk_widget_set_sensitive (GTK_WIDGET (self->format_row), !report);
  gtk_widget_set_sensitive (GTK_WIDGET (self->size_row), !report);
  gtk_widget_set_sensitive (GTK_WIDGET (self->width_row), !report && custom);
  gtk_widget_set_sensitive (GTK_WIDGET (self->height_row), !report && custom);
  gtk_widget_set_sensitive (GTK_WIDGET (self->unit_row), !report && custom);
  gtk_widget_set_sensitive (GTK_WIDGET (self->dpi_row), !report && format == HR_EXPORT_PNG);
  gtk_widget_set_sensitive (GTK_WIDGET (self->svg_text_row), !report && format == HR_EXPORT_SVG);
  gtk_widget_set_sensitive (GTK_WIDGET (self->transparent_row), !report);

  if (type != NULL && chart_data (self, type) != NULL)
    {
      g_autofree char *summary = type->summary (chart_data (self, type));

      gtk_accessible_update_property (GTK_ACCESSIBLE (self->preview),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _(type->title),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, summary, -1);
    }
  update_caption (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

static void
on_changed (HrExportDialog *self)
{
  if (!self->updating)
    update (self);
}

static void
on_size_changed (HrExportDialog *self)
{
  HrChartSize size;
  HrChartSizePreset preset = get_preset (self);

  if (self->updating)
    return;
  /* a preset shows its size (inches for paper, pixels for the screen)
   * and its resolution; Custom starts from the size shown */
  if (preset != HR_CHART_SIZE_CUSTOM)
    {
      hr_chart_size_init_preset (&size, preset);
      self->updating = TRUE;
      for (guint i = 0; i < G_N_ELEMENTS (units); i++)
        if (units[i] == (size.unit == HR_LENGTH_PX ? HR_LENGTH_PX : HR_LENGTH_IN))
          adw_combo_row_set_selected (self->unit_row, i);
      self->unit = size.unit == HR_LENGTH_PX ? HR_LENGTH_PX : HR_LENGTH_IN;
      /* a screen export stays sharp on a HiDPI screen */
      gtk_spin_button_set_value (self->dpi_spin, preset == HR_CHART_SIZE_SCREEN ? 192 : size.dpi);
      self->updating = FALSE;
      show_size (self, &size);
    }
  update (self);
}

static void
on_unit_changed (HrExportDialog *self)
{
  HrChartSize size;
  guint selected = adw_combo_row_get_selected (self->unit_row);

  if (self->updating || selected >= G_N_ELEMENTS (units))
    return;
  /* the same size, said in the new unit */
  get_size (self, &size);
  self->unit = units[selected];
  show_size (self, &size);
  update (self);
}

void
hr_export_dialog_set_format (HrExportDialog *self,
                             HrExportFormat  format)
{
  g_return_if_fail (HR_IS_EXPORT_DIALOG (self));
  adw_combo_row_set_selected (self->format_row, format);
}

void
hr_export_dialog_set_size (HrExportDialog    *self,
                           HrChartSizePreset  preset)
{
  g_return_if_fail (HR_IS_EXPORT_DIALOG (self));
  adw_combo_row_set_selected (self->size_row, preset);
}

void
hr_export_dialog_set_custom_size (HrExportDialog *self,
                                  double          width,
                                  double          height,
                                  HrLengthUnit    unit)
{
  g_return_if_fail (HR_IS_EXPORT_DIALOG (self));

  adw_combo_row_set_selected (self->size_row, HR_CHART_SIZE_CUSTOM);
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (units[i] == unit)
      adw_combo_row_set_selected (self->unit_row, i);
  self->unit = unit;
  gtk_spin_button_set_value (self->width_spin, width);
  gtk_spin_button_set_value (self->height_spin, height);
  update (self);
}

void
hr_export_dialog_set_svg_outlines (HrExportDialog *self,
                                   gboolean        outlines)
{
  g_return_if_fail (HR_IS_EXPORT_DIALOG (self));
  gtk_switch_set_active (self->svg_text_switch, !outlines);
}

GtkWidget *
hr_export_dialog_get_preview (HrExportDialog *self)
{
  g_return_val_if_fail (HR_IS_EXPORT_DIALOG (self), NULL);
  return GTK_WIDGET (self->preview);
}

GtkWidget *
hr_export_dialog_get_chart_row (HrExportDialog *self)
{
  g_return_val_if_fail (HR_IS_EXPORT_DIALOG (self), NULL);
  return GTK_WIDGET (self->what_row);
}

GtkWidget *
hr_export_dialog_get_size_row (HrExportDialog *self)
{
  g_return_val_if_fail (HR_IS_EXPORT_DIALOG (self), NULL);
  return GTK_WIDGET (self->size_row);
}

/* One chart of the registry at the size, fonts and colours set. */
static gboolean
export_chart (HrExportDialog *self,
              const char     *path,
              GError        **error)
{
  const HrChartType *type = get_chart (self);
  gconstpointer data = chart_data (self, type);
  g_autoptr(HrChartStyle) style = NULL;
  g_autofree char *description = NULL;
  HrExportOptions options = { 0 };
  HrChartDrawing drawing = { type, data };
  HrChartSize size;

  if (data == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("There is no chart to export yet"));
      return FALSE;
    }
  get_size (self, &size);
  style = make_style (self, &size);
  description = type->summary (data);
  options.format = get_format (self);
  hr_export_options_set_size (&options, &size, gtk_spin_button_get_value (self->dpi_spin));
  options.text_as_outlines = !gtk_switch_get_active (self->svg_text_switch);
  options.title = type->data_title (data);
  options.description = description;
  return hr_chart_export (path, &options, style, hr_chart_drawing_draw, &drawing, error);
}

/* The report of what the window shows: its cards, its measurements, its
 * calibration. */
static gboolean
export_report (HrExportDialog *self,
               const char     *path,
               HrChartTheme    theme,
               GError        **error)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (theme);

  style->transparent = gtk_switch_get_active (self->transparent_switch);
  return hr_chart_report_write_analysis (path, self->analysis, hr_catalog_get_default (), style,
                                         error);
}

gboolean
hr_export_dialog_export_to (HrExportDialog *self,
                            GFile          *file,
                            GError        **error)
{
  g_autofree char *path = g_file_get_path (file);
  HrChartTheme theme = (HrChartTheme) adw_combo_row_get_selected (self->theme_row);

  if (path == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("Only local files can be written"));
      return FALSE;
    }
  g_settings_set_enum (self->settings, "export-theme", theme);
  if (is_report (self)
        ? !export_report (self, path, theme, error)
        : !export_chart (self, path, error))
    return FALSE;

  g_signal_emit (self, signals[EXPORTED], 0, file);
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

/* Enter on a row is the row's: a drop-down opens its list, a switch
 * toggles; the window's default (Export) only takes Enter from elsewhere. */
static gboolean
activate_row_cb (GtkWidget *widget,
                 GVariant  *args,
                 gpointer   user_data)
{
  return gtk_widget_activate (widget);
}

static void
enter_opens_row (GtkWidget *row)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();

  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string (
                                                            "Return|KP_Enter|ISO_Enter"),
                                                          gtk_callback_action_new (
                                                            activate_row_cb, NULL, NULL)));
  gtk_widget_add_controller (row, controller);
}

static void
hr_export_dialog_dispose (GObject *object)
{
  HrExportDialog *self = HR_EXPORT_DIALOG (object);

  if (self->data != NULL)
    self->data_type->data_free (self->data);
  self->data = NULL;
  self->data_type = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_EXPORT_DIALOG);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->analysis, hr_analysis_unref);
  G_OBJECT_CLASS (hr_export_dialog_parent_class)->dispose (object);
}

static void
hr_export_dialog_class_init (HrExportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_export_dialog_dispose;

  /* A file was written: the window that opened the dialog says so. */
  signals[EXPORTED] = g_signal_new ("exported", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_FILE);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/hr-export-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, caption);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, dpi_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, dpi_spin);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, export_button);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, format_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, height_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, height_spin);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, preview);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, size_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, svg_text_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, svg_text_switch);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, theme_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, transparent_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, transparent_switch);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, unit_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, what_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, width_row);
  gtk_widget_class_bind_template_child (widget_class, HrExportDialog, width_spin);
  gtk_widget_class_bind_template_callback (widget_class, on_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_export_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_size_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_unit_changed);
}

static void
hr_export_dialog_init (HrExportDialog *self)
{
  GtkWidget *rows[] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
  HrChartSize initial;

  self->settings = g_settings_new (SCHEMA_ID);
  self->unit = HR_LENGTH_PX;
  gtk_widget_init_template (GTK_WIDGET (self));

  /* what the template cannot say: the registry's charts, the preview's
   * drawing, the theme last used; none of it a change to show yet */
  self->updating = TRUE;
  fill_what_row (self->what_row);
  gtk_drawing_area_set_draw_func (self->preview, draw_preview, self, NULL);
  adw_combo_row_set_selected (self->theme_row,
                              g_settings_get_enum (self->settings, "export-theme"));
  hr_chart_size_init_preset (&initial, HR_CHART_SIZE_SCREEN);
  show_size (self, &initial);

  /* Enter on any row works that row, not the Export button */
  rows[0] = GTK_WIDGET (self->what_row);
  rows[1] = GTK_WIDGET (self->format_row);
  rows[2] = GTK_WIDGET (self->size_row);
  rows[3] = GTK_WIDGET (self->unit_row);
  rows[4] = GTK_WIDGET (self->theme_row);
  rows[5] = GTK_WIDGET (self->transparent_row);
  rows[6] = GTK_WIDGET (self->svg_text_row);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    enter_opens_row (rows[i]);
}

HrExportDialog *
hr_export_dialog_new (GtkWindow    *parent,
                      HrAnalysis   *analysis,
                      HrExportWhat  what)
{
  HrExportDialog *self = g_object_new (HR_TYPE_EXPORT_DIALOG,
                                       "transient-for", parent,
                                       NULL);

  g_return_val_if_fail (analysis != NULL, NULL);

  self->analysis = hr_analysis_ref (analysis);
  if (what == HR_EXPORT_WHAT_REPORT)
    adw_combo_row_set_selected (self->what_row, hr_chart_types_get_n ());
  else
    for (guint i = 0; i < hr_chart_types_get_n (); i++)
      if (g_str_equal (hr_chart_types_get (i)->name,
                       what == HR_EXPORT_WHAT_CURVE ? "curve" : "buckets"))
        adw_combo_row_set_selected (self->what_row, i);
  update (self);
  return self;
}
