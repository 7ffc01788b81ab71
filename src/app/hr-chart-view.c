/* hr-chart-view.c: a chart from hr-chart as a widget
 *
 * The view draws with the same functions as the exports, so what the user
 * sees is what the report gets.  It is focusable (Ctrl+C copies it as an
 * image), shows the value under the pointer as a tooltip, and tells
 * assistive technologies what it shows: role img, the chart's title as its
 * label and its text summary as its description, updated with the data.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "hr-chart-view.h"

struct _HrChartView
{
  GtkWidget          parent_instance;

  const HrChartType *type;     /* from the chart registry */
  HrChartDrawing     drawing;  /* the type and the data, for drawing and export */
  gpointer           data;
  char              *summary;
  char              *title;
};

G_DEFINE_FINAL_TYPE (HrChartView, hr_chart_view, GTK_TYPE_WIDGET)

static void
clear_data (HrChartView *self)
{
  if (self->data == NULL)
    return;
  self->type->data_free (self->data);
  self->data = NULL;
  self->drawing.data = NULL;
}

HrChartStyle *
hr_chart_style_new_for_widget (GtkWidget *widget)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (manager);
  HrChartStyle *style = hr_chart_style_new (dark ? HR_CHART_THEME_DARK : HR_CHART_THEME_LIGHT);
  GdkRGBA color;

#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, &color);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
#endif
  /* The widget's text colour, so the chart follows the theme (and a high
   * contrast one) like the labels around it. */
  style->foreground = (HrRgba) { color.red, color.green, color.blue, 1.0 };
  style->transparent = TRUE;
  return style;
}

HrChartStyle *
hr_chart_view_make_style (HrChartView *self)
{
  return hr_chart_style_new_for_widget (GTK_WIDGET (self));
}

HrChartDrawFunc
hr_chart_view_get_draw_func (HrChartView *self)
{
  return hr_chart_drawing_draw;
}

gpointer
hr_chart_view_get_drawing (HrChartView *self)
{
  g_return_val_if_fail (HR_IS_CHART_VIEW (self), NULL);
  return &self->drawing;
}

const HrChartType *
hr_chart_view_get_chart_type (HrChartView *self)
{
  g_return_val_if_fail (HR_IS_CHART_VIEW (self), NULL);
  return self->type;
}

static void
hr_chart_view_snapshot (GtkWidget   *widget,
                        GtkSnapshot *snapshot)
{
  HrChartView *self = HR_CHART_VIEW (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  g_autoptr(HrChartStyle) style = NULL;
  PangoContext *context;
  cairo_t *cr;

  if (self->data == NULL || width < 1 || height < 1)
    return;

  style = hr_chart_view_make_style (self);
  context = hr_chart_pango_context_new ();
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  hr_chart_prepare_cairo (cr);
  hr_chart_type_draw (self->type, cr, context, style, width, height, self->data);
  cairo_destroy (cr);
  g_object_unref (context);

  if (gtk_widget_has_visible_focus (widget))
    {
      GdkRGBA focus = { style->accent.red, style->accent.green, style->accent.blue, 0.8 };
      GskRoundedRect outline;
      float widths[4] = { 2, 2, 2, 2 };
      GdkRGBA colors[4] = { focus, focus, focus, focus };

      gsk_rounded_rect_init_from_rect (&outline, &GRAPHENE_RECT_INIT (1, 1, width - 2,
                                                                      height - 2), 8);
      gtk_snapshot_append_border (snapshot, &outline, widths, colors);
    }
}

static void
update_accessible (HrChartView *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, self->title,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->summary,
                                  -1);
}

void
hr_chart_view_set_chart (HrChartView       *self,
                         const HrChartType *type,
                         gpointer           data)
{
  g_return_if_fail (HR_IS_CHART_VIEW (self));
  g_return_if_fail (type != NULL && data != NULL);

  clear_data (self);
  self->type = type;
  self->data = data;
  self->drawing.type = type;
  self->drawing.data = data;
  g_free (self->summary);
  self->summary = type->summary (data);
  g_free (self->title);
  self->title = g_strdup (_(type->title));
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
hr_chart_view_set_buckets (HrChartView       *self,
                           HrBucketChartData *data)
{
  hr_chart_view_set_chart (self, hr_chart_type_find ("buckets"), data);
}

void
hr_chart_view_set_curve (HrChartView      *self,
                         HrCurveChartData *data)
{
  hr_chart_view_set_chart (self, hr_chart_type_find ("curve"), data);
}

HrChartKind
hr_chart_view_get_kind (HrChartView *self)
{
  return self->type != NULL && g_str_equal (self->type->name, "curve") ? HR_CHART_KIND_CURVE
                                                                      : HR_CHART_KIND_BUCKETS;
}

gpointer
hr_chart_view_get_data (HrChartView *self)
{
  return self->data;
}

const char *
hr_chart_view_get_summary (HrChartView *self)
{
  return self->summary;
}

const char *
hr_chart_view_get_title (HrChartView *self)
{
  return self->title;
}

char *
hr_chart_view_describe_at (HrChartView *self,
                           double       x,
                           double       y)
{
  g_return_val_if_fail (HR_IS_CHART_VIEW (self), NULL);

  if (self->data == NULL || gtk_widget_get_width (GTK_WIDGET (self)) < 1)
    return NULL;
  {
    g_autoptr(HrChartStyle) style = hr_chart_view_make_style (self);
    PangoContext *context = hr_chart_pango_context_new ();
    char *text = hr_chart_type_describe_at (self->type, self->data, style, context,
                                            gtk_widget_get_width (GTK_WIDGET (self)),
                                            gtk_widget_get_height (GTK_WIDGET (self)), x, y);

    g_object_unref (context);
    return text;
  }
}

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard_mode,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  HrChartView *self = HR_CHART_VIEW (widget);
  g_autofree char *text = NULL;

  if (keyboard_mode)
    text = g_strdup (self->summary);
  else
    text = hr_chart_view_describe_at (self, x, y);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

gboolean
hr_chart_view_copy (HrChartView *self,
                    GError     **error)
{
  g_autoptr(HrChartStyle) style = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  HrExportOptions options = { 0 };

  g_return_val_if_fail (HR_IS_CHART_VIEW (self), FALSE);

  if (self->data == NULL)
    return TRUE;

  /* An opaque image at twice the size: pasted into a document or a chat,
   * it has to stand on its own background. */
  style = hr_chart_view_make_style (self);
  style->transparent = FALSE;
  options.format = HR_EXPORT_PNG;
  options.width = MAX (gtk_widget_get_width (GTK_WIDGET (self)), 320);
  options.height = MAX (gtk_widget_get_height (GTK_WIDGET (self)), 240);
  options.scale = 2;
  options.title = self->title;
  options.description = self->summary;
  png = hr_chart_export_bytes (&options, style, hr_chart_drawing_draw, &self->drawing, error);
  if (png == NULL)
    return FALSE;
  texture = gdk_texture_new_from_bytes (png, error);
  if (texture == NULL)
    return FALSE;
  gdk_clipboard_set_texture (gtk_widget_get_clipboard (GTK_WIDGET (self)), texture);
  return TRUE;
}

static void
copy_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  g_autoptr(GError) error = NULL;

  if (!hr_chart_view_copy (HR_CHART_VIEW (widget), &error))
    g_warning ("Could not copy the chart: %s", error->message);
}

static void
on_dark_changed (HrChartView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_pressed (GtkGestureClick *gesture,
            int              n_press,
            double           x,
            double           y,
            HrChartView     *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
hr_chart_view_css_changed (GtkWidget         *widget,
                           GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (hr_chart_view_parent_class)->css_changed (widget, change);
  gtk_widget_queue_draw (widget);
}

static void
hr_chart_view_dispose (GObject *object)
{
  HrChartView *self = HR_CHART_VIEW (object);

  clear_data (self);
  g_clear_pointer (&self->summary, g_free);
  g_clear_pointer (&self->title, g_free);
  G_OBJECT_CLASS (hr_chart_view_parent_class)->dispose (object);
}

static void
hr_chart_view_class_init (HrChartViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_chart_view_dispose;
  widget_class->snapshot = hr_chart_view_snapshot;
  widget_class->css_changed = hr_chart_view_css_changed;

  gtk_widget_class_set_css_name (widget_class, "chartview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
  gtk_widget_class_install_action (widget_class, "chart.copy", NULL, copy_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK,
                                       "chart.copy", NULL);
}

static void
hr_chart_view_init (HrChartView *self)
{
  GtkGesture *click = gtk_gesture_click_new ();

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (self), 300, 300);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
}

GtkWidget *
hr_chart_view_new (void)
{
  return g_object_new (HR_TYPE_CHART_VIEW, NULL);
}
