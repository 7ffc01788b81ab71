/* test-chart-text.c: what the text caches keep, and that nothing they keep
 * can show a stale chart
 *
 * A layout step's context keeps the sizes it measured and the layouts it
 * drew (hr-chart-text.c); a chart view draws with it for the screen, as
 * glyphs straight from those layouts, and appends the paths of patterns
 * it made before.  These tests draw every shipped
 * example's charts both ways and with fresh and used contexts, and ask
 * for the same pixels; they change the context under the caches, and
 * the catalog under the short names of cards, and ask for new answers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"

#define WIDTH  940
#define HEIGHT 420

static GPtrArray *
example_paths (void)
{
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autoptr(GDir) folder = g_dir_open (dir, 0, NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (folder);
  while ((name = g_dir_read_name (folder)) != NULL)
    if (g_str_has_suffix (name, ".json"))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (paths, (GCompareFunc) g_strcmp0);
  g_assert_cmpuint (paths->len, >=, 10);
  return paths;
}

static HrAnalysis *
analysis_for (const char *path,
              guint       micro_batch)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = hr_scenario_load (path, hr_catalog_get_default (), &error);

  g_assert_no_error (error);
  if (micro_batch > 0)
    scenario->micro_batch = micro_batch;
  return hr_analysis_new (scenario, NULL);
}

/* @type's chart of @data drawn as a chart view draws it: into a recording
 * surface (what gtk_snapshot_append_cairo() gives), then that onto an
 * image, at @scale. */
static cairo_surface_t *
draw_chart (const HrChartType  *type,
            gconstpointer       data,
            const HrChartStyle *style,
            PangoContext       *context,
            gboolean            for_screen,
            double              scale)
{
  cairo_rectangle_t extents = { 0, 0, WIDTH, HEIGHT };
  cairo_surface_t *recording = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA,
                                                               &extents);
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH * scale,
                                                       HEIGHT * scale);
  cairo_t *cr = cairo_create (recording);
  gpointer layout;

  hr_chart_prepare_cairo (cr);
  if (for_screen)
    hr_chart_text_draw_for_screen (cr, context);
  else
    hr_chart_text_draw_with (cr, context);
  layout = type->layout (data, style, context, WIDTH, HEIGHT);
  type->render (layout, data, style, cr);
  type->layout_free (layout);
  cairo_destroy (cr);

  cr = cairo_create (image);
  cairo_scale (cr, scale, scale);
  cairo_set_source_surface (cr, recording, 0, 0);
  cairo_paint (cr);
  cairo_destroy (cr);
  cairo_surface_destroy (recording);
  cairo_surface_flush (image);
  return image;
}

static gboolean
same_pixels (cairo_surface_t *a,
             cairo_surface_t *b)
{
  int height = cairo_image_surface_get_height (a);
  int stride = cairo_image_surface_get_stride (a);

  g_assert_cmpint (cairo_image_surface_get_width (a), ==, cairo_image_surface_get_width (b));
  g_assert_cmpint (height, ==, cairo_image_surface_get_height (b));
  return memcmp (cairo_image_surface_get_data (a), cairo_image_surface_get_data (b),
                 (gsize) stride * height) == 0;
}

/* Inked pixels: a chart that drew nothing would pass every comparison. */
static guint
n_inked (cairo_surface_t *image)
{
  const guchar *data = cairo_image_surface_get_data (image);
  int stride = cairo_image_surface_get_stride (image);
  guint n = 0;

  for (int y = 0; y < cairo_image_surface_get_height (image); y++)
    for (int x = 0; x < cairo_image_surface_get_width (image); x++)
      n += ((const guint32 *) (gconstpointer) (data + (gsize) y * stride))[x] != 0;
  return n;
}

/* Sizes measured once are answered again, and are what a fresh context
 * measures. */
static void
test_sizes_kept (void)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  PangoContext *context = hr_chart_pango_context_new ();
  const char *texts[] = { "Peak against micro-batch", "13.5 GiB", "RTX 4090, A100 80GB",
                          "✓ 3.5 GiB spare", "", "A longer note that wraps at some width and "
                          "goes on for a while, so that it takes two lines" };
  HrChartTextCacheStats before, after;
  double widths[G_N_ELEMENTS (texts)][2], heights[G_N_ELEMENTS (texts)][2];

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    for (guint w = 0; w < 2; w++)
      hr_chart_text_size (context, style, HR_CHART_FONT_BODY, texts[i], w == 0 ? 0 : 120,
                          &widths[i][w], &heights[i][w]);
  hr_chart_text_cache_get_stats (context, &before);
  g_assert_cmpuint (before.size_misses, ==, 2 * G_N_ELEMENTS (texts));
  g_assert_cmpuint (before.n_sizes, ==, 2 * G_N_ELEMENTS (texts));

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    for (guint w = 0; w < 2; w++)
      {
        PangoContext *fresh = hr_chart_pango_context_new ();
        double width, height, fresh_width, fresh_height;

        hr_chart_text_size (context, style, HR_CHART_FONT_BODY, texts[i], w == 0 ? 0 : 120,
                            &width, &height);
        hr_chart_text_size (fresh, style, HR_CHART_FONT_BODY, texts[i], w == 0 ? 0 : 120,
                            &fresh_width, &fresh_height);
        g_assert_cmpfloat (width, ==, widths[i][w]);
        g_assert_cmpfloat (height, ==, heights[i][w]);
        g_assert_cmpfloat (width, ==, fresh_width);
        g_assert_cmpfloat (height, ==, fresh_height);
        g_object_unref (fresh);
      }
  hr_chart_text_cache_get_stats (context, &after);
  g_assert_cmpuint (after.size_misses, ==, before.size_misses);
  g_assert_cmpuint (after.size_hits, ==, before.size_hits + 2 * G_N_ELEMENTS (texts));

  /* the wrapped note is taller than its line, the bold title wider */
  g_assert_cmpfloat (heights[5][1], >, heights[5][0] * 1.5);
  {
    double bold;

    hr_chart_text_size (context, style, HR_CHART_FONT_TITLE, texts[0], 0, &bold, NULL);
    g_assert_cmpfloat (bold, >, widths[0][0]);
  }
  g_object_unref (context);
}

/* A change of the context (here its font options; new fonts change it
 * the same way) empties the caches: no size or layout from before is
 * used.  (The resolution is set once, when the context is made: pango
 * does not tell its change.) */
static void
test_context_changed (void)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  PangoContext *context = hr_chart_pango_context_new ();
  PangoContext *hinted = hr_chart_pango_context_new ();
  cairo_font_options_t *options = cairo_font_options_create ();
  const cairo_font_options_t *before;
  cairo_font_options_t *saved;
  const char *text = "Memory by bucket, 13.7 GiB (12.1–15.8)";
  HrChartTextCacheStats stats;
  double width, again, hinted_width;
  guint serial;

  hr_chart_text_size (context, style, HR_CHART_FONT_BODY, text, 0, &width, NULL);
  before = pango_cairo_context_get_font_options (context);
  saved = cairo_font_options_copy (before);

  /* metrics hinted: whole-pixel advances, another width */
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_ON);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_FULL);
  serial = pango_context_get_serial (context);
  pango_cairo_context_set_font_options (context, options);
  pango_cairo_context_set_font_options (hinted, options);
  g_assert_cmpuint (pango_context_get_serial (context), !=, serial);
  hr_chart_text_size (context, style, HR_CHART_FONT_BODY, text, 0, &again, NULL);
  hr_chart_text_size (hinted, style, HR_CHART_FONT_BODY, text, 0, &hinted_width, NULL);
  hr_chart_text_cache_get_stats (context, &stats);
  g_assert_cmpuint (stats.n_sizes, ==, 1);
  g_assert_cmpuint (stats.size_misses, ==, 2);
  g_assert_cmpfloat (again, ==, hinted_width);
  g_test_message ("unhinted %.4f, hinted %.4f", width, hinted_width);

  pango_cairo_context_set_font_options (context, saved);
  hr_chart_text_size (context, style, HR_CHART_FONT_BODY, text, 0, &again, NULL);
  g_assert_cmpfloat (again, ==, width);
  hr_chart_text_cache_get_stats (context, &stats);
  g_assert_cmpuint (stats.size_misses, ==, 3);

  /* what the font map says when fonts are installed or removed (GTK has
   * fontconfig's map say it on a change of gtk-fontconfig-timestamp): the
   * context's serial moves and the caches empty */
  serial = pango_context_get_serial (context);
  pango_font_map_changed (pango_context_get_font_map (context));
  g_assert_cmpuint (pango_context_get_serial (context), !=, serial);
  hr_chart_text_size (context, style, HR_CHART_FONT_BODY, text, 0, &again, NULL);
  hr_chart_text_cache_get_stats (context, &stats);
  g_assert_cmpuint (stats.n_sizes, ==, 1);
  g_assert_cmpuint (stats.size_misses, ==, 4);
  g_assert_cmpfloat (again, ==, width);

  cairo_font_options_destroy (options);
  cairo_font_options_destroy (saved);
  g_object_unref (hinted);
  g_object_unref (context);
}

/* Every shipped example's charts, at the window's micro-batch and at
 * others: drawn for the screen (glyphs from the kept layouts) and for an
 * export (pango), with a context kept from chart to chart and with a
 * fresh one, at scale 1 and 2, in the light and the dark theme: the
 * same pixels every time. */
static void
test_screen_glyphs (void)
{
  g_autoptr(GPtrArray) paths = example_paths ();
  const HrChartTheme themes[] = { HR_CHART_THEME_LIGHT, HR_CHART_THEME_DARK };
  PangoContext *kept[2];
  guint compared = 0;

  for (guint t = 0; t < G_N_ELEMENTS (themes); t++)
    kept[t] = hr_chart_pango_context_new ();

  for (guint p = 0; p < paths->len; p++)
    for (guint batch = 0; batch < 3; batch++)
      {
        g_autoptr(HrAnalysis) analysis = analysis_for (g_ptr_array_index (paths, p),
                                                       batch == 0 ? 0 : batch * 3);
        HrChartSource source = { analysis, hr_catalog_get_default (), NULL, NULL };

        for (guint k = 0; k < hr_chart_types_get_n (); k++)
          {
            const HrChartType *type = hr_chart_types_get (k);
            gpointer data;

            /* the advisor's charts do not follow the micro-batch */
            if (type->advisor && batch > 0)
              continue;
            data = type->data_new (&source);
            for (guint t = 0; t < G_N_ELEMENTS (themes); t++)
              {
                g_autoptr(HrChartStyle) style = hr_chart_style_new (themes[t]);
                PangoContext *fresh = hr_chart_pango_context_new ();
                PangoContext *other = hr_chart_pango_context_new ();
                double scale = (p + t) % 2 ? 2 : 1;
                cairo_surface_t *exported, *screen, *screen_fresh;

                style->transparent = TRUE;
                exported = draw_chart (type, data, style, fresh, FALSE, scale);
                screen = draw_chart (type, data, style, kept[t], TRUE, scale);
                screen_fresh = draw_chart (type, data, style, other, TRUE, scale);
                if (!same_pixels (exported, screen) || !same_pixels (exported, screen_fresh))
                  g_error ("%s, %s chart, micro-batch step %u, theme %u, scale %g: drawn for "
                           "the screen, the pixels differ from the export's",
                           (const char *) g_ptr_array_index (paths, p), type->name, batch, t,
                           scale);
                g_assert_cmpuint (n_inked (screen), >, 1000);
                compared++;
                cairo_surface_destroy (exported);
                cairo_surface_destroy (screen);
                cairo_surface_destroy (screen_fresh);
                g_object_unref (fresh);
                g_object_unref (other);
              }
            type->data_free (data);
          }
      }

  for (guint t = 0; t < G_N_ELEMENTS (themes); t++)
    {
      HrChartTextCacheStats stats;

      hr_chart_text_cache_get_stats (kept[t], &stats);
      g_test_message ("theme %u: %u labels drawn as glyphs, %u by pango; layouts %u kept, "
                      "%u reused, %u shaped; paths %u appended again, %u made", t,
                      stats.glyph_draws, stats.pango_draws, stats.n_layouts, stats.layout_hits,
                      stats.layout_misses, stats.path_hits, stats.path_misses);
      /* the kept context drew most labels from layouts it had, and the
       * dots of segments that stayed from paths it had */
      g_assert_cmpuint (stats.glyph_draws, >, 1000);
      g_assert_cmpuint (stats.layout_hits, >, stats.layout_misses);
      g_assert_cmpuint (stats.path_hits, >, 0);
      g_object_unref (kept[t]);
    }
  g_test_message ("%u charts compared", compared);
  g_assert_cmpuint (compared, >=, 2 * (paths->len * 3 * 2 + paths->len * 2));
}

/* A second render with the same context shapes nothing. */
static void
test_layouts_reused (void)
{
  g_autoptr(GPtrArray) paths = example_paths ();
  g_autoptr(HrAnalysis) analysis = analysis_for (g_ptr_array_index (paths, 0), 0);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  HrChartSource source = { analysis, NULL, NULL, NULL };

  for (guint k = 0; k < hr_chart_types_get_n (); k++)
    {
      const HrChartType *type = hr_chart_types_get (k);
      gpointer data = type->data_new (&source);
      PangoContext *context = hr_chart_pango_context_new ();
      HrChartTextCacheStats first, second;
      cairo_surface_t *a, *b;

      a = draw_chart (type, data, style, context, TRUE, 1);
      hr_chart_text_cache_get_stats (context, &first);
      b = draw_chart (type, data, style, context, TRUE, 1);
      hr_chart_text_cache_get_stats (context, &second);
      g_assert_cmpuint (first.layout_misses, >, 0);
      g_assert_cmpuint (second.layout_misses, ==, first.layout_misses);
      g_assert_cmpuint (second.size_misses, ==, first.size_misses);
      g_assert_cmpuint (second.layout_hits, >=, first.layout_hits + first.layout_misses);
      g_assert_true (same_pixels (a, b));
      cairo_surface_destroy (a);
      cairo_surface_destroy (b);
      g_object_unref (context);
      type->data_free (data);
    }
}

static void
load_gpus (HrCatalog  *catalog,
           const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("gpus.json", json, -1, &error);

  g_assert_no_error (error);
  g_assert_true (hr_catalog_load_gpus (catalog, doc, &error));
  g_assert_no_error (error);
}

/* The short names of cards are remembered, but never past a change of
 * the cards they are told apart from. */
static void
test_short_names_follow_catalog (void)
{
  g_autoptr(HrCatalog) catalog = hr_catalog_new ();
  g_autofree char *alone = NULL;
  g_autofree char *again = NULL;
  g_autofree char *beside = NULL;
  g_autofree char *with_others = NULL;
  g_autofree char *from_default = NULL;
  const char *others[] = { "H100 NVL 94GB", NULL };

  load_gpus (catalog, "{\"version\": 1, \"entries\": [{\"id\": \"h100-sxm\", \"name\": "
             "\"H100 SXM5 80GB\", \"memory\": 85899345920, \"source\": \"test\"}]}");
  alone = hr_chart_gpu_short_name ("H100 SXM5 80GB", catalog, NULL);
  g_assert_cmpstr (alone, ==, "H100");
  again = hr_chart_gpu_short_name ("H100 SXM5 80GB", catalog, NULL);
  g_assert_cmpstr (again, ==, "H100");

  /* the same catalog, one card more: "H100" no longer names one card */
  load_gpus (catalog, "{\"version\": 1, \"entries\": [{\"id\": \"h100-pcie\", \"name\": "
             "\"H100 PCIe 80GB\", \"memory\": 85899345920, \"source\": \"test\"}]}");
  beside = hr_chart_gpu_short_name ("H100 SXM5 80GB", catalog, NULL);
  g_assert_cmpstr (beside, ==, "H100 SXM");

  /* the others given count too, and the default catalog is another */
  with_others = hr_chart_gpu_short_name ("H100 PCIe 80GB", catalog, others);
  g_assert_cmpstr (with_others, ==, "H100 PCIe");
  from_default = hr_chart_gpu_short_name ("GeForce RTX 4090", NULL, NULL);
  g_assert_cmpstr (from_default, ==, "RTX 4090");
  g_free (alone);
  alone = hr_chart_gpu_short_name ("H100 SXM5 80GB", catalog, NULL);
  g_assert_cmpstr (alone, ==, "H100 SXM");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chart/text/sizes-kept", test_sizes_kept);
  g_test_add_func ("/chart/text/context-changed", test_context_changed);
  g_test_add_func ("/chart/text/layouts-reused", test_layouts_reused);
  g_test_add_func ("/chart/text/screen-glyphs", test_screen_glyphs);
  g_test_add_func ("/chart/text/short-names-follow-catalog", test_short_names_follow_catalog);
  return g_test_run ();
}
