/* bench-charts.c: how long each chart takes to lay out and draw
 *
 * Renders each chart at 1280×800 into an image surface many times and
 * prints the mean time per frame (layout and render together, as the
 * window does when an input changes).  Run with `meson test --benchmark`;
 * it never fails on speed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "hr-chart.h"
#include "hr-core.h"

#define WIDTH  1280
#define HEIGHT 800
#define FRAMES 200

static void
tree_frame (cairo_t            *cr,
            PangoContext       *context,
            const HrChartStyle *style,
            double              width,
            double              height,
            gpointer            data)
{
  g_autoptr(HrTreeChartLayout) layout = hr_tree_chart_layout (data, "GPU choice", style, context,
                                                             width, height);

  hr_tree_chart_render (layout, style, cr);
}

static void
time_frames (const char         *name,
             HrChartDrawFunc     frame,
             const HrChartStyle *style,
             gpointer            data)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  PangoContext *context = hr_chart_pango_context_new ();
  gint64 start, elapsed;

  /* one frame to warm the font caches, as a running window has them */
  {
    cairo_t *cr = cairo_create (surface);

    frame (cr, context, style, WIDTH, HEIGHT, data);
    cairo_destroy (cr);
  }

  start = g_get_monotonic_time ();
  for (guint i = 0; i < FRAMES; i++)
    {
      cairo_t *cr = cairo_create (surface);

      frame (cr, context, style, WIDTH, HEIGHT, data);
      cairo_destroy (cr);
    }
  cairo_surface_flush (surface);
  elapsed = g_get_monotonic_time () - start;

  printf ("%-8s %7.2f ms per frame at %d×%d (%u frames)\n", name, elapsed / 1000.0 / FRAMES,
          WIDTH, HEIGHT,
          FRAMES);
  g_object_unref (context);
  cairo_surface_destroy (surface);
}

int
main (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data (
    "bench",
    "{\"headroom_scenario\": 1, \"model\": \"llama-3.1-8b\", \"method\": \"lora\", "
    "\"micro_batch\": 2, \"seq_len\": 2048, \"gpu\": \"rtx-4090\"}", -1, &error);
  g_autoptr(HrScenario) s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(HrBucketChartData) buckets = NULL;
  g_autoptr(HrCurveChartData) curve = NULL;
  g_autoptr(HrTreeNode) tree = NULL;

  g_assert_no_error (error);
  g_ptr_array_add (gpus, (gpointer) hr_catalog_find_gpu (hr_catalog_get_default (), "rtx-4090"));
  g_ptr_array_add (gpus, (gpointer) hr_catalog_find_gpu (hr_catalog_get_default (), "a100-80gb"));
  g_ptr_array_add (gpus, (gpointer) hr_catalog_find_gpu (hr_catalog_get_default (), "h100-sxm"));

  buckets = hr_bucket_chart_data_new_for_scenario (s);
  curve = hr_curve_chart_data_new_for_scenario (s, gpus, 1, 64, FALSE);
  tree = hr_tree_new_gpu_choice (s, hr_catalog_get_default ());

  time_frames ("buckets", hr_bucket_chart_draw, style, buckets);
  time_frames ("curve", hr_curve_chart_draw, style, curve);
  time_frames ("tree", tree_frame, style, tree);
  return 0;
}
