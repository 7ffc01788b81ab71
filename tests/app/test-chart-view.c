/* test-chart-view.c: a chart view draws what its data says, never what it
 * kept
 *
 * The view keeps its layout, its rendered node and a PangoContext with
 * the sizes and layouts of every text it drew.  After each change that
 * must show (new data, another chart, a new size, the dark theme, another
 * text colour, new fonts) the view is rendered as the window renders it
 * and compared, pixel by pixel, with the same chart drawn afresh the way
 * an export draws it; and it is rendered once for each change, never for
 * a frame that changes nothing.
 *
 * Runs on a real display (Xvfb in CI); without one the test fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "hr-chart-view.h"
#include "hr-core.h"

static void
iterate_for (gint64 us)
{
  gint64 deadline = g_get_monotonic_time () + us;

  while (g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

typedef struct {
  GtkWindow   *window;
  HrChartView *view;
  HrScenario  *scenario;
} Fixture;

static void
fixture_init (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "llama-3.1-8b-lora-4090.json", NULL);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  f->scenario = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  f->window = GTK_WINDOW (gtk_window_new ());
  f->view = HR_CHART_VIEW (hr_chart_view_new ());
  gtk_window_set_child (f->window, GTK_WIDGET (f->view));
  gtk_window_set_default_size (f->window, 940, 420);
  gtk_window_present (f->window);
  while (gtk_widget_get_width (GTK_WIDGET (f->view)) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->view)), >, 0);
}

static void
fixture_clear (Fixture *f)
{
  gtk_window_destroy (f->window);
  hr_scenario_free (f->scenario);
}

/* The chart's data at @micro_batch, as the window makes it. */
static void
set_chart (Fixture    *f,
           const char *name,
           guint       micro_batch)
{
  const HrChartType *type = hr_chart_type_find (name);
  g_autoptr(HrAnalysis) analysis = NULL;
  HrChartSource source = { 0 };

  f->scenario->micro_batch = micro_batch;
  analysis = hr_analysis_new (f->scenario, NULL);
  source.analysis = analysis;
  hr_chart_view_set_chart (f->view, type, type->data_new (&source));
}

/* The view as the window's renderer draws it, in cairo's ARGB32. */
static cairo_surface_t *
render_view (Fixture *f)
{
  GtkWidget *widget = GTK_WIDGET (f->view);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (f->window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_surface_flush (image);
  /* GDK's default memory format is cairo's ARGB32 */
  gdk_texture_download (texture, cairo_image_surface_get_data (image),
                        cairo_image_surface_get_stride (image));
  cairo_surface_mark_dirty (image);
  return image;
}

/* The same chart drawn afresh, as an export draws it: a new context, the
 * view's style, the view's size. */
static cairo_surface_t *
render_fresh (Fixture *f)
{
  GtkWidget *widget = GTK_WIDGET (f->view);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  g_autoptr(HrChartStyle) style = hr_chart_view_make_style (f->view);
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  PangoContext *context = hr_chart_pango_context_new ();
  cairo_t *cr = cairo_create (image);

  hr_chart_prepare_cairo (cr);
  hr_chart_type_draw (hr_chart_view_get_chart_type (f->view), cr, context, style, width, height,
                      hr_chart_view_get_data (f->view));
  cairo_destroy (cr);
  g_object_unref (context);
  cairo_surface_flush (image);
  return image;
}

/* Pixels that differ by more than two levels in a channel. */
static guint
n_different (cairo_surface_t *a,
             cairo_surface_t *b)
{
  int width = cairo_image_surface_get_width (a), height = cairo_image_surface_get_height (a);
  int stride = cairo_image_surface_get_stride (a);
  const guchar *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
  guint n = 0;

  g_assert_cmpint (width, ==, cairo_image_surface_get_width (b));
  g_assert_cmpint (height, ==, cairo_image_surface_get_height (b));
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width * 4; x++)
      if (ABS (pa[(gsize) y * stride + x] - pb[(gsize) y * stride + x]) > 2)
        {
          n++;
          x += 3 - x % 4;
        }
  return n;
}

static guint
n_inked (cairo_surface_t *image)
{
  int stride = cairo_image_surface_get_stride (image);
  const guchar *data = cairo_image_surface_get_data (image);
  guint n = 0;

  for (int y = 0; y < cairo_image_surface_get_height (image); y++)
    for (int x = 0; x < cairo_image_surface_get_width (image); x++)
      n += ((const guint32 *) (gconstpointer) (data + (gsize) y * stride))[x] != 0;
  return n;
}

/* After a change: lets the window draw its frame, then renders the view
 * and compares it with a fresh drawing; returns how often the chart was
 * rendered meanwhile. */
static guint64
check_shows (Fixture    *f,
             const char *what)
{
  HrChartViewCounters counters;
  cairo_surface_t *shown, *fresh;
  guint different;

  iterate_for (G_USEC_PER_SEC / 10);
  shown = render_view (f);
  fresh = render_fresh (f);
  different = n_different (shown, fresh);
  g_test_message ("%s: %u pixels of %d inked, %u differ from a fresh drawing", what,
                  n_inked (shown), cairo_image_surface_get_width (shown) *
                  cairo_image_surface_get_height (shown), different);
  g_assert_cmpuint (n_inked (shown), >, 2000);
  if (different > 0)
    g_error ("%s: the view shows %u pixels other than a fresh drawing", what, different);
  cairo_surface_destroy (shown);
  cairo_surface_destroy (fresh);
  hr_chart_view_counters_get (&counters);
  return counters.renders;
}

static void
test_follows_changes (void)
{
  Fixture f;
  AdwStyleManager *manager = adw_style_manager_get_default ();
  g_autoptr(GtkCssProvider) red = gtk_css_provider_new ();
  HrChartViewCounters counters;
  char what[64];

  fixture_init (&f);

  /* new data, in both charts, micro-batch after micro-batch */
  for (guint k = 0; k < 2; k++)
    for (guint batch = 1; batch <= 6; batch++)
      {
        const char *name = k == 0 ? "buckets" : "curve";

        hr_chart_view_counters_reset ();
        set_chart (&f, name, batch);
        g_snprintf (what, sizeof what, "%s at micro-batch %u", name, batch);
        g_assert_cmpuint (check_shows (&f, what), ==, 1);
      }

  /* a frame with nothing changed (the view asked to draw again, as a
   * hover or a focus change asks) renders nothing: the node is reused */
  hr_chart_view_counters_reset ();
  gtk_widget_queue_draw (GTK_WIDGET (f.view));
  g_assert_cmpuint (check_shows (&f, "nothing changed"), ==, 0);
  hr_chart_view_counters_get (&counters);
  g_assert_cmpuint (counters.reuses, >, 0);

  /* a new size */
  hr_chart_view_counters_reset ();
  gtk_window_set_default_size (f.window, 700, 380);
  iterate_for (G_USEC_PER_SEC / 4);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f.view)), <, 940);
  g_assert_cmpuint (check_shows (&f, "a new size"), ==, 1);

  /* the dark theme, and back */
  hr_chart_view_counters_reset ();
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  iterate_for (G_USEC_PER_SEC / 4);
  {
    g_autoptr(HrChartStyle) style = hr_chart_view_make_style (f.view);

    g_assert_cmpint (style->theme, ==, HR_CHART_THEME_DARK);
  }
  g_assert_cmpuint (check_shows (&f, "the dark theme"), >=, 1);
  hr_chart_view_counters_reset ();
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  iterate_for (G_USEC_PER_SEC / 4);
  g_assert_cmpuint (check_shows (&f, "the light theme"), >=, 1);

  /* another text colour (a high-contrast theme, say) */
  hr_chart_view_counters_reset ();
  gtk_css_provider_load_from_data (red, "chartview { color: rgb(200, 30, 30); }", -1);
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (red),
                                              GTK_STYLE_PROVIDER_PRIORITY_USER);
  iterate_for (G_USEC_PER_SEC / 4);
  {
    g_autoptr(HrChartStyle) style = hr_chart_view_make_style (f.view);

    g_assert_cmpfloat_with_epsilon (style->foreground.red, 200 / 255.0, 0.01);
  }
  g_assert_cmpuint (check_shows (&f, "red text"), ==, 1);
  gtk_style_context_remove_provider_for_display (gdk_display_get_default (),
                                                 GTK_STYLE_PROVIDER (red));
  iterate_for (G_USEC_PER_SEC / 4);

  /* new fonts: the font map tells its contexts (as fontconfig's does when
   * GTK sees gtk-fontconfig-timestamp change), and the view lays out and
   * renders again with every text measured again */
  hr_chart_view_counters_reset ();
  pango_font_map_changed (pango_cairo_font_map_get_default ());
  gtk_widget_queue_draw (GTK_WIDGET (f.view));
  g_assert_cmpuint (check_shows (&f, "new fonts"), ==, 1);

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
  fixture_clear (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-chart-view: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  g_test_add_func ("/chart-view/follows-changes", test_follows_changes);
  return g_test_run ();
}
