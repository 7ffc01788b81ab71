/* bench-charts.c: how long each chart takes to lay out, draw and export
 *
 * Renders each chart at 1280×800 into an image surface many times and
 * prints the mean time per frame (layout and render together, as the
 * window does when an input changes), the layout step alone (what a
 * hover or a hit test asks for), and then where the time of one PNG
 * export of the curve goes: font setup, the catalog and the analysis,
 * the layout, the render, and the PNG, with Headroom's writer and with
 * cairo's (libpng's) for comparison.  Last, what one change of the
 * micro-batch costs the window's two charts, as HrChartView spends it:
 * making the data (and its summary) from the analysis, laying out with
 * the view's own PangoContext (kept from change to change), and
 * rendering into a recording surface as gtk_snapshot_append_cairo()
 * does, with that context, for the screen.  Run with
 * `meson test --benchmark`; it never fails on speed.
 *
 *   bench-charts [--export SCENARIO GPU,GPU… RUNS]  (the export alone, for
 *                tests/bench/export-vs-matplotlib.py: prints "export N ms")
 *   bench-charts --changes [RUNS]  (the window's changes alone, for a
 *                profiler)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "hr-chart.h"
#include "hr-core.h"

#define WIDTH  1280
#define HEIGHT 800
#define FRAMES 200
/* The cards the window compares by default with its default scenario */
#define WINDOW_GPUS "rtx-4090,rtx-5090,a100-80gb,h100-sxm"

static double
ms_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1000.0;
}

static void
time_frames (const char         *name,
             const HrChartType  *type,
             const HrChartStyle *style,
             gconstpointer       data)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  PangoContext *context = hr_chart_pango_context_new ();
  gint64 start;
  double frame, layout_only;

  /* one frame to warm the font caches, as a running window has them */
  {
    cairo_t *cr = cairo_create (surface);

    hr_chart_type_draw (type, cr, context, style, WIDTH, HEIGHT, data);
    cairo_destroy (cr);
  }

  start = g_get_monotonic_time ();
  for (guint i = 0; i < FRAMES; i++)
    {
      cairo_t *cr = cairo_create (surface);

      hr_chart_type_draw (type, cr, context, style, WIDTH, HEIGHT, data);
      cairo_destroy (cr);
    }
  cairo_surface_flush (surface);
  frame = ms_since (start) / FRAMES;

  start = g_get_monotonic_time ();
  for (guint i = 0; i < FRAMES; i++)
    type->layout_free (type->layout (data, style, context, WIDTH, HEIGHT));
  layout_only = ms_since (start) / FRAMES;

  printf ("%-8s %7.2f ms per frame, %5.2f ms of it the layout, at %d×%d (%u frames)\n", name,
          frame, layout_only, WIDTH, HEIGHT, FRAMES);
  g_object_unref (context);
  cairo_surface_destroy (surface);
}

static HrAnalysis *
analysis_for (const char *path,
              const char *gpu_list)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_auto(GStrv) ids = g_strsplit (gpu_list, ",", -1);
  HrAnalysisOptions options = { 0 };

  if (scenario == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      exit (2);
    }
  for (guint i = 0; ids[i] != NULL; i++)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), ids[i]);

      if (gpu != NULL)
        g_ptr_array_add (gpus, (gpointer) gpu);
    }
  options.gpus = gpus;
  return hr_analysis_new (scenario, &options);
}

static GBytes *
export_png (const HrChartType  *type,
            gconstpointer       data,
            const HrChartStyle *style)
{
  HrChartDrawing drawing = { type, data };
  HrExportOptions options = { HR_EXPORT_PNG, WIDTH, HEIGHT, 1, "curve", NULL };
  g_autoptr(GError) error = NULL;
  GBytes *bytes = hr_chart_export_bytes (&options, style, hr_chart_drawing_draw, &drawing, &error);

  g_assert_no_error (error);
  return bytes;
}

/* Where one PNG export of the curve spends its time. */
static void
export_breakdown (const char *path,
                  const char *gpus)
{
  const HrChartType *type = hr_chart_type_find ("curve");
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(GByteArray) theirs = NULL;
  HrChartSource source = { 0 };
  PangoContext *context;
  cairo_surface_t *surface;
  gpointer layout, data;
  double fonts, analysed, laid_out = 0, rendered = 0, ours = 0, cairo_png = 0;
  gsize our_size = 0;
  gint64 start;
  const guint runs = 40;

  /* the first context and the first text measured: fontconfig reads its
   * configuration and caches, pango loads the face */
  start = g_get_monotonic_time ();
  context = hr_chart_pango_context_new ();
  hr_chart_text_size (context, style, HR_CHART_FONT_BODY, "Peak memory", 0, NULL, NULL);
  fonts = ms_since (start);

  start = g_get_monotonic_time ();
  analysis = analysis_for (path, gpus);
  source.analysis = analysis;
  data = type->data_new (&source);
  analysed = ms_since (start);

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  for (guint i = 0; i < runs; i++)
    {
      cairo_t *cr = cairo_create (surface);
      g_autoptr(GBytes) png = NULL;

      start = g_get_monotonic_time ();
      layout = type->layout (data, style, context, WIDTH, HEIGHT);
      laid_out += ms_since (start);

      start = g_get_monotonic_time ();
      hr_chart_prepare_cairo (cr);
      hr_chart_text_draw_with (cr, context);
      type->render (layout, data, style, cr);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      rendered += ms_since (start);
      type->layout_free (layout);

      start = g_get_monotonic_time ();
      png = hr_chart_png_encode (surface, TRUE, 96, "curve", NULL);
      ours += ms_since (start);
      our_size = g_bytes_get_size (png);

      g_clear_pointer (&theirs, g_byte_array_unref);
      theirs = g_byte_array_new ();
      start = g_get_monotonic_time ();
      cairo_surface_write_to_png_stream (surface, hr_chart_append_to_byte_array, theirs);
      cairo_png += ms_since (start);
    }

  printf ("one PNG export of the curve at %d×%d, where the time goes (%s, --gpus %s):\n",
          WIDTH, HEIGHT, path, gpus);
  printf ("  font setup (fontconfig, the first face)  %7.2f ms, once per process\n", fonts);
  printf ("  catalog, scenario, analysis, curve data  %7.2f ms\n", analysed);
  printf ("  layout                                   %7.2f ms\n", laid_out / runs);
  printf ("  render                                   %7.2f ms\n", rendered / runs);
  printf ("  PNG, Headroom's writer                   %7.2f ms, %zu bytes\n", ours / runs,
          our_size);
  printf ("  PNG, cairo_surface_write_to_png          %7.2f ms, %u bytes (%.1f× the time)\n",
          cairo_png / runs, theirs->len, cairo_png / MAX (ours, 1e-9));

  cairo_surface_destroy (surface);
  type->data_free (data);
  g_object_unref (context);
}

/* The export alone, in this process, @runs times: for comparing with
 * matplotlib in-process. */
static int
export_only (const char *path,
             const char *gpus,
             guint       runs)
{
  const HrChartType *type = hr_chart_type_find ("curve");
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrAnalysis) analysis = analysis_for (path, gpus);
  HrChartSource source = { analysis, NULL, NULL, NULL };
  gpointer data = type->data_new (&source);
  gint64 start;

  /* as a window or a script exporting many: fonts loaded once */
  g_bytes_unref (export_png (type, data, style));
  start = g_get_monotonic_time ();
  for (guint i = 0; i < runs; i++)
    g_bytes_unref (export_png (type, data, style));
  printf ("export %.3f ms\n", ms_since (start) / runs);
  type->data_free (data);
  return 0;
}

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static double
median_ms (GArray *values)
{
  guint n = values->len;
  gint64 *v = (gint64 *) (gpointer) values->data;

  qsort (v, n, sizeof (gint64), compare_gint64);
  return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) / 1000.0;
}

/* One change of the micro-batch (1 to 16, round again) as the window's
 * bucket chart and curve meet it, @runs times, at a chart view's size in
 * the 1400×900 window. */
static void
window_changes (const char *path,
                const char *gpus,
                guint       runs)
{
  const char *names[] = { "buckets", "curve" };
  const double width = 940, height = 420;
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrAnalysis) first = analysis_for (path, gpus);
  g_autoptr(HrScenario) scenario = hr_scenario_copy (hr_analysis_get_scenario (first));
  g_autoptr(GPtrArray) gpu_list = g_ptr_array_new ();
  g_autoptr(GArray) sweep_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) data_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) layout_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) render_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  PangoContext *contexts[G_N_ELEMENTS (names)];
  HrAnalysisOptions options = { 0 };

  /* a transparent chart over the window, as the view draws it */
  style->transparent = TRUE;
  for (guint i = 0; i < hr_analysis_get_n_gpus (first); i++)
    g_ptr_array_add (gpu_list, hr_analysis_get_gpu (first, i)->gpu);
  options.gpus = gpu_list;
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    contexts[k] = hr_chart_pango_context_new ();

  for (guint i = 0; i < runs + 1; i++)
    {
      g_autoptr(HrAnalysis) analysis = NULL;
      HrChartSource source = { 0 };
      gint64 sweep = 0, made = 0, laid_out = 0, rendered = 0;

      scenario->micro_batch = i % 16 + 1;
      analysis = hr_analysis_new (scenario, &options);
      source.analysis = analysis;
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        {
          const HrChartType *type = hr_chart_type_find (names[k]);
          cairo_rectangle_t extents = { 0, 0, width, height };
          cairo_surface_t *surface = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA,
                                                                     &extents);
          cairo_t *cr = cairo_create (surface);
          gint64 start = g_get_monotonic_time ();
          gpointer data, layout;

          /* the sweep is the analysis's, made when the curve first asks */
          if (g_str_equal (names[k], "curve"))
            {
              hr_analysis_get_sweep (analysis);
              sweep += g_get_monotonic_time () - start;
              start = g_get_monotonic_time ();
            }
          data = type->data_new (&source);
          /* the view's accessible description, made as it takes the data */
          g_free (type->summary (data));
          made += g_get_monotonic_time () - start;

          start = g_get_monotonic_time ();
          layout = type->layout (data, style, contexts[k], width, height);
          laid_out += g_get_monotonic_time () - start;

          start = g_get_monotonic_time ();
          hr_chart_prepare_cairo (cr);
          hr_chart_text_draw_for_screen (cr, contexts[k]);
          type->render (layout, data, style, cr);
          cairo_destroy (cr);
          rendered += g_get_monotonic_time () - start;

          cairo_surface_destroy (surface);
          type->layout_free (layout);
          type->data_free (data);
        }
      /* the first change fills the caches, as the window's first frame */
      if (i == 0)
        continue;
      g_array_append_val (sweep_us, sweep);
      g_array_append_val (data_us, made);
      g_array_append_val (layout_us, laid_out);
      g_array_append_val (render_us, rendered);
    }

  printf ("one change of the micro-batch, both of the window's charts at %.0f×%.0f "
          "(%s, --gpus %s), medians of %u:\n", width, height, path, gpus, runs);
  printf ("  the chart data and summaries     %7.3f ms (and the analysis's sweep %.3f ms)\n",
          median_ms (data_us), median_ms (sweep_us));
  printf ("  layout, with the view's context %7.3f ms\n", median_ms (layout_us));
  printf ("  render into a recording surface %7.3f ms\n", median_ms (render_us));
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      HrChartTextCacheStats stats;

      hr_chart_text_cache_get_stats (contexts[k], &stats);
      printf ("  %-8s text cache: sizes %u hits, %u measured; layouts %u hits, %u shaped; "
              "%u drawn as glyphs, %u by pango; paths %u appended again, %u made\n",
              names[k], stats.size_hits, stats.size_misses, stats.layout_hits,
              stats.layout_misses, stats.glyph_draws, stats.pango_draws, stats.path_hits,
              stats.path_misses);
      g_object_unref (contexts[k]);
    }
}

int
main (int    argc,
      char **argv)
{
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autofree char *example = NULL;
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrAnalysis) analysis = NULL;
  HrChartSource source = { 0 };

  if (argc == 5 && g_str_equal (argv[1], "--export"))
    return export_only (argv[2], argv[3], (guint) MAX (1, atoi (argv[4])));

  example = g_build_filename (dir != NULL ? dir : "data/examples", "llama-3.1-8b-lora-4090.json",
                              NULL);
  if (argc >= 2 && g_str_equal (argv[1], "--changes"))
    {
      window_changes (example, WINDOW_GPUS, argc >= 3 ? (guint) MAX (1, atoi (argv[2])) : 2000);
      return 0;
    }
  export_breakdown (example, "rtx-4090,a100-80gb,h100-sxm");

  analysis = analysis_for (example, "rtx-3090,rtx-4090,a100-80gb,h100-sxm,h200");
  source.analysis = analysis;
  source.catalog = hr_catalog_get_default ();
  for (guint i = 0; i < hr_chart_types_get_n (); i++)
    {
      const HrChartType *type = hr_chart_types_get (i);
      gpointer data = type->data_new (&source);

      time_frames (type->name, type, style, data);
      type->data_free (data);
    }
  window_changes (example, WINDOW_GPUS, 200);
  return 0;
}
