/* hr-chart-view.c: a chart from hr-chart as a widget
 *
 * The view draws with the same functions as the exports, so what the user
 * sees is what the report gets.  It is focusable (Ctrl+C copies it as an
 * image), shows the value under the pointer, and tells assistive
 * technologies what it shows: role img, the chart's title as its label and
 * its text summary as its description, updated with the data.
 *
 * As Sysprof's charts do, the view keeps the chart's layout and its
 * rendered node, and lays out and renders again only when the data, the
 * size or the style changes; a frame in between (a hover, a focus change,
 * a redraw of the window around it) appends the same node, so the
 * renderer finds nothing changed there.  The hover (the value under the
 * pointer) and the focus ring are drawn on top of it every frame.
 *
 * The view also keeps one PangoContext for its life, the one its layouts
 * measure text with and its renders draw text with: the sizes measured,
 * the glyphs of the texts drawn and the dots of the patterns stay on it
 * (hr_chart_text_size(), hr_chart_text_draw_for_screen(),
 * hr_chart_path_replay()), so a new layout or render shapes only the
 * texts it has not seen before (a change of micro-batch changes a few
 * numbers; the ticks, the legend, the titles and the cards' names stay);
 * each label is drawn as its glyphs, the pixels an export draws, without
 * pango's renderer.  The context depends on nothing of the widget's
 * (charts are laid out at their own resolution, with their own font
 * options), only on the fonts there are: when they change, the context is
 * made again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

#include "hr-chart-view.h"

struct _HrChartView
{
  GtkWidget          parent_instance;

  const HrChartType *type;     /* from the chart registry */
  HrChartDrawing     drawing;  /* the type and the data, for drawing and export */
  gpointer           data;
  char              *summary;
  char              *title;

  /* The cache: the layout and the rendered node, at this size. */
  PangoContext      *context;
  guint              context_serial;    /* the context's, at the layout */
  gpointer           layout;
  GskRenderNode     *node;
  int                node_width;
  int                node_height;
  HrRgba             node_foreground;   /* the style it was made in */
  HrChartTheme       node_theme;

  /* The pointer, while it is over the chart. */
  gboolean           hovering;
  double             hover_x;
  double             hover_y;
  char              *hover_text;
};

static HrChartViewCounters counters;

G_DEFINE_FINAL_TYPE (HrChartView, hr_chart_view, GTK_TYPE_WIDGET)

void
hr_chart_view_counters_get (HrChartViewCounters *out)
{
  *out = counters;
}

void
hr_chart_view_counters_reset (void)
{
  memset (&counters, 0, sizeof counters);
}

/* Forgets the layout and the node, so that the next frame lays out and
 * renders again. */
static void
drop_cache (HrChartView *self)
{
  if (self->layout != NULL)
    self->type->layout_free (self->layout);
  self->layout = NULL;
  g_clear_pointer (&self->node, gsk_render_node_unref);
  g_clear_pointer (&self->hover_text, g_free);
}

/* The data, the size or the style changed: lay out and render again at
 * the next frame. */
static void
invalidate (HrChartView *self)
{
  drop_cache (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
clear_data (HrChartView *self)
{
  if (self->data == NULL)
    return;
  invalidate (self);
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

/* Whether the cache was made in the style the widget has now. */
static gboolean
style_is_current (HrChartView *self)
{
  g_autoptr(HrChartStyle) style = NULL;

  if (self->layout == NULL)
    return TRUE;
  style = hr_chart_view_make_style (self);
  return style->theme == self->node_theme
         && memcmp (&style->foreground, &self->node_foreground, sizeof (HrRgba)) == 0;
}

/* Lays the chart out at the widget's size, if it is not already. */
static gboolean
ensure_layout (HrChartView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));

  if (self->data == NULL || width < 1 || height < 1)
    return FALSE;
  /* (called while the frame is drawn: that frame draws it anew) */
  if (self->layout != NULL && (width != self->node_width || height != self->node_height))
    drop_cache (self);
  /* new fonts since (the font map's change reaches the context) */
  if (self->layout != NULL && pango_context_get_serial (self->context) != self->context_serial)
    drop_cache (self);
  if (self->layout == NULL)
    {
      g_autoptr(HrChartStyle) style = hr_chart_view_make_style (self);
      gint64 start = g_get_monotonic_time ();

      if (self->context == NULL)
        self->context = hr_chart_pango_context_new ();
      self->layout = self->type->layout (self->data, style, self->context, width, height);
      self->context_serial = pango_context_get_serial (self->context);
      self->node_width = width;
      self->node_height = height;
      self->node_foreground = style->foreground;
      self->node_theme = style->theme;
      counters.render_us += g_get_monotonic_time () - start;
    }
  return TRUE;
}

/* The chart itself, rendered once for its data, size and style. */
static GskRenderNode *
ensure_node (HrChartView *self)
{
  g_autoptr(HrChartStyle) style = NULL;
  GtkSnapshot *snapshot;
  gint64 start;
  cairo_t *cr;

  if (!ensure_layout (self))
    return NULL;
  if (self->node != NULL)
    {
      counters.reuses++;
      return self->node;
    }

  start = g_get_monotonic_time ();
  style = hr_chart_view_make_style (self);
  snapshot = gtk_snapshot_new ();
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, self->node_width,
                                                                 self->node_height));
  hr_chart_prepare_cairo (cr);
  /* with the layout's context, for a screen: the texts drawn before are
   * not shaped again, and every label is drawn as its glyphs */
  hr_chart_text_draw_for_screen (cr, self->context);
  self->type->render (self->layout, self->data, style, cr);
  cairo_destroy (cr);
  self->node = gtk_snapshot_free_to_node (snapshot);
  counters.renders++;
  counters.render_us += g_get_monotonic_time () - start;
  return self->node;
}

/* The value under the pointer, in a box beside it. */
static void
snapshot_hover (HrChartView *self,
                GtkSnapshot *snapshot,
                double       width,
                double       height)
{
  g_autoptr(PangoLayout) layout = NULL;
  GdkRGBA background, foreground;
  GskRoundedRect box;
  PangoRectangle extent;
  double x, y, w, h;

  if (!self->hovering || self->hover_text == NULL)
    return;

  layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), self->hover_text);
  pango_layout_set_width (layout, (int) MIN (360, width - 24) * PANGO_SCALE);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_get_pixel_extents (layout, NULL, &extent);
  w = extent.width + 16;
  h = extent.height + 10;
  /* Beside the pointer, kept inside the chart. */
  x = self->hover_x + 14;
  y = self->hover_y + 14;
  if (x + w > width - 2)
    x = MAX (2, self->hover_x - 14 - w);
  if (y + h > height - 2)
    y = MAX (2, self->hover_y - 14 - h);

  if (adw_style_manager_get_dark (adw_style_manager_get_default ()))
    {
      background = (GdkRGBA) { 0.93, 0.93, 0.93, 0.96 };
      foreground = (GdkRGBA) { 0.1, 0.1, 0.1, 1 };
    }
  else
    {
      background = (GdkRGBA) { 0.16, 0.16, 0.18, 0.94 };
      foreground = (GdkRGBA) { 1, 1, 1, 1 };
    }
  gsk_rounded_rect_init_from_rect (&box, &GRAPHENE_RECT_INIT (x, y, w, h), 6);
  gtk_snapshot_push_rounded_clip (snapshot, &box);
  gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (x, y, w, h));
  gtk_snapshot_pop (snapshot);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x + 8 - extent.x, y + 5 - extent.y));
  gtk_snapshot_append_layout (snapshot, layout, &foreground);
  gtk_snapshot_restore (snapshot);
}

static void
hr_chart_view_snapshot (GtkWidget   *widget,
                        GtkSnapshot *snapshot)
{
  HrChartView *self = HR_CHART_VIEW (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  GskRenderNode *node = ensure_node (self);

  if (node == NULL)
    return;
  gtk_snapshot_append_node (snapshot, node);
  snapshot_hover (self, snapshot, width, height);

  if (gtk_widget_has_visible_focus (widget))
    {
      g_autoptr(HrChartStyle) style = hr_chart_view_make_style (self);
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

  /* The hit test reads the layout the frame was drawn from: a hover
   * never lays the chart out again. */
  if (!ensure_layout (self) || self->type->hit_test == NULL)
    return NULL;
  return self->type->hit_test (self->layout, self->data, x, y);
}

static void
set_hover (HrChartView *self,
           gboolean     hovering,
           double       x,
           double       y)
{
  g_autofree char *text = hovering ? hr_chart_view_describe_at (self, x, y) : NULL;
  gboolean was_shown = self->hovering && self->hover_text != NULL;

  self->hovering = hovering;
  self->hover_x = x;
  self->hover_y = y;
  /* Only the box on top changes; the chart's node stays. */
  if (g_strcmp0 (text, self->hover_text) != 0 || (text != NULL && was_shown))
    {
      g_free (self->hover_text);
      self->hover_text = g_steal_pointer (&text);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else if (was_shown && !hovering)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
hr_chart_view_get_hover_text (HrChartView *self)
{
  g_return_val_if_fail (HR_IS_CHART_VIEW (self), NULL);
  return self->hovering ? self->hover_text : NULL;
}

void
hr_chart_view_hover (HrChartView *self,
                     double       x,
                     double       y)
{
  g_return_if_fail (HR_IS_CHART_VIEW (self));
  set_hover (self, x >= 0 && y >= 0, x, y);
}

static void
on_motion (GtkEventControllerMotion *motion,
           double                    x,
           double                    y,
           HrChartView              *self)
{
  set_hover (self, TRUE, x, y);
}

static void
on_leave (GtkEventControllerMotion *motion,
          HrChartView              *self)
{
  set_hover (self, FALSE, 0, 0);
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

  /* The pointer's value is drawn beside it (snapshot_hover); focused by
   * the keyboard, the chart says what it shows. */
  if (!keyboard_mode || self->summary == NULL)
    return FALSE;
  text = g_strdup (self->summary);
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
  invalidate (self);
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
  /* A change of the text colour (the theme, high contrast) draws the
   * chart again; a change of state alone (hover, focus, backdrop) keeps
   * its colours and so its node. */
  if (!style_is_current (HR_CHART_VIEW (widget)))
    invalidate (HR_CHART_VIEW (widget));
}

static void
hr_chart_view_system_setting_changed (GtkWidget        *widget,
                                      GtkSystemSetting  setting)
{
  HrChartView *self = HR_CHART_VIEW (widget);

  GTK_WIDGET_CLASS (hr_chart_view_parent_class)->system_setting_changed (widget, setting);
  /* Fonts installed or removed, or the desktop's font settings changed:
   * a new context, and every text measured again. */
  if (setting == GTK_SYSTEM_SETTING_FONT_CONFIG || setting == GTK_SYSTEM_SETTING_FONT_NAME ||
      setting == GTK_SYSTEM_SETTING_DPI)
    {
      invalidate (self);
      g_clear_object (&self->context);
    }
}

static void
hr_chart_view_dispose (GObject *object)
{
  HrChartView *self = HR_CHART_VIEW (object);

  clear_data (self);
  g_clear_object (&self->context);
  g_clear_pointer (&self->hover_text, g_free);
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
  widget_class->system_setting_changed = hr_chart_view_system_setting_changed;

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
  GtkEventController *motion = gtk_event_controller_motion_new ();

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (self), 300, 300);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
}

GtkWidget *
hr_chart_view_new (void)
{
  return g_object_new (HR_TYPE_CHART_VIEW, NULL);
}
