/* test-chart-export.c: PNG, SVG and PDF files, and the report
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"

static HrScenario *
example (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data (
    "test",
    "{\"headroom_scenario\": 1, \"name\": \"Tom & Jerry <test>\", \"model\": \"llama-3.1-8b\", "
    "\"method\": \"lora\", \"micro_batch\": 2, \"seq_len\": 2048, \"gpu\": \"rtx-4090\"}", -1,
    &error);
  HrScenario *s;

  g_assert_no_error (error);
  s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  return s;
}

static GBytes *
export (HrExportFormat  format,
        double          scale,
        const char     *title,
        const char     *description)
{
  g_autoptr(HrScenario) s = example ();
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new_for_scenario (s);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(GError) error = NULL;
  HrExportOptions options = { format, 640, 400, scale, title, description };
  GBytes *bytes = hr_chart_export_bytes (&options, style, hr_bucket_chart_draw, data, &error);

  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  return bytes;
}

typedef struct {
  const guchar *data;
  gsize         size;
  gsize         offset;
} Reader;

static cairo_status_t
read_bytes (void          *closure,
            unsigned char *data,
            unsigned int   length)
{
  Reader *r = closure;

  if (r->offset + length > r->size)
    return CAIRO_STATUS_READ_ERROR;
  memcpy (data, r->data + r->offset, length);
  r->offset += length;
  return CAIRO_STATUS_SUCCESS;
}

static void
test_png (void)
{
  static const double scales[] = { 1, 2 };

  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    {
      g_autoptr(GBytes) bytes = export (HR_EXPORT_PNG, scales[i], "t", "d");
      Reader reader = { 0 };
      cairo_surface_t *image;

      reader.data = g_bytes_get_data (bytes, &reader.size);
      g_assert_cmpuint (reader.size, >, 8);
      g_assert_cmpmem (reader.data, 8, "\x89PNG\r\n\x1a\n", 8);

      image = cairo_image_surface_create_from_png_stream (read_bytes, &reader);
      g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
      g_assert_cmpint (cairo_image_surface_get_width (image), ==, (int) (640 * scales[i]));
      g_assert_cmpint (cairo_image_surface_get_height (image), ==, (int) (400 * scales[i]));
      cairo_surface_destroy (image);
    }
}

static void
test_svg (void)
{
  g_autoptr(GBytes) bytes = export (HR_EXPORT_SVG, 1, "Peak & fit <buckets>",
                                    "Peak 9.0 GiB of 24 GiB \"fits\"");
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);
  g_autofree char *text = g_strndup (data, size);
  const char *svg = strstr (text, "<svg");
  const char *title = strstr (text,
                              "<title id=\"hr-title\">Peak &amp; fit &lt;buckets&gt;</title>");
  const char *desc = strstr (text,
                             "<desc id=\"hr-desc\">Peak 9.0 GiB of 24 GiB &quot;fits&quot;</desc>");

  g_assert_nonnull (svg);
  g_assert_nonnull (title);
  g_assert_nonnull (desc);
  /* title and desc are the first children of <svg>, which says it is an image */
  g_assert_true (title > svg && desc > title);
  g_assert_true (title < strstr (text, "<g") || strstr (text, "<g") == NULL);
  g_assert_nonnull (strstr (svg, "role=\"img\""));
  g_assert_nonnull (strstr (svg, "width=\"640px\""));
  /* the chart's own text is there, as glyphs or as text */
  g_assert_cmpuint (size, >, 2000);

  /* and it parses as XML */
  {
    g_autoptr(GMarkupParseContext) ctx = NULL;
    g_autoptr(GError) error = NULL;
    GMarkupParser parser = { 0 };

    ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);
    g_assert_true (g_markup_parse_context_parse (ctx, text, -1, &error));
    g_assert_true (g_markup_parse_context_end_parse (ctx, &error));
    g_assert_no_error (error);
  }
}

static char *
run (const char *const *argv)
{
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL,
                     &out, NULL, &status, &error))
    g_error ("%s: %s (poppler-utils provides it; .ci/run installs it)", argv[0], error->message);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_steal_pointer (&out);
}

static guint
count_pages (const char *data,
             gsize       size)
{
  guint pages = 0;

  /* Page objects, not the /Pages tree: "/Type /Page" followed by a
   * delimiter other than 's'.  The file holds binary streams, so search
   * with memmem, not a string function. */
  for (const char *p = data; (p = memmem (p, size - (p - data), "/Type /Page", 11)) != NULL; p++)
    if (p + 11 < data + size && p[11] != 's')
      pages++;
  return pages;
}

static void
test_pdf (void)
{
  g_autoptr(GBytes) bytes = export (HR_EXPORT_PDF, 1, "Memory buckets", "Peak 9 GiB");
  g_autofree char *dir = g_dir_make_tmp ("headroom-export-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "chart.pdf", NULL);
  g_autofree char *info = NULL;
  g_autofree char *fonts = NULL;
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);

  g_assert_cmpmem (data, 5, "%PDF-", 5);
  g_assert_cmpuint (count_pages (data, size), ==, 1);
  g_assert_true (g_file_set_contents (path, data, size, NULL));

  info = run ((const char *[]) { "pdfinfo", path, NULL });
  g_assert_true (g_regex_match_simple ("^Title: +Memory buckets$", info, G_REGEX_MULTILINE, 0));
  g_assert_true (g_regex_match_simple ("^Subject: +Peak 9 GiB$", info, G_REGEX_MULTILINE, 0));
  g_assert_true (g_regex_match_simple ("^Creator: +Headroom ", info, G_REGEX_MULTILINE, 0));
  g_assert_true (g_regex_match_simple ("^Pages: +1$", info, G_REGEX_MULTILINE, 0));
  /* 640 × 400 logical pixels are 480 × 300 points */
  g_assert_true (g_regex_match_simple ("^Page size: +480 x 300 pts", info, G_REGEX_MULTILINE, 0));

  /* every font is embedded */
  fonts = run ((const char *[]) { "pdffonts", path, NULL });
  g_assert_true (g_regex_match_simple ("^-+", fonts, G_REGEX_MULTILINE, 0));
  g_assert_false (g_regex_match_simple (" no +(yes|no) +(yes|no) +[0-9]+ +[0-9]+$", fonts,
                                        G_REGEX_MULTILINE, 0));
  g_assert_true (g_regex_match_simple (" yes +(yes|no) +(yes|no) +[0-9]+ +[0-9]+$", fonts,
                                       G_REGEX_MULTILINE, 0));

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_atomic_files (void)
{
  g_autoptr(HrScenario) s = example ();
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new_for_scenario (s);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_PRINT);
  g_autofree char *dir = g_dir_make_tmp ("headroom-export-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "chart.png", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "chart.png", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  HrExportOptions good = { HR_EXPORT_PNG, 320, 200, 1, "t", "d" };
  HrExportOptions bad = { HR_EXPORT_PNG, 320, 200000, 1, "t", "d" };
  HrExportFormat format;

  g_assert_true (hr_export_format_for_path ("a/b.Svg", &format));
  g_assert_cmpint (format, ==, HR_EXPORT_SVG);
  g_assert_false (hr_export_format_for_path ("chart", &format));
  g_assert_false (hr_export_format_for_path ("dir.png/chart", &format));

  g_assert_true (g_file_set_contents (path, "earlier file", -1, NULL));

  /* a failed export leaves the earlier file as it was */
  g_assert_false (hr_chart_export (path, &bad, style, hr_bucket_chart_draw, data, &error));
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "earlier file");
  g_clear_pointer (&contents, g_free);

  /* a folder that does not exist is an error naming the file */
  g_assert_false (hr_chart_export (missing, &good, style, hr_bucket_chart_draw, data, &error));
  g_assert_nonnull (strstr (error->message, "chart.png"));
  g_clear_error (&error);

  /* a good one replaces it, and no temporary file is left behind */
  g_assert_true (hr_chart_export (path, &good, style, hr_bucket_chart_draw, data, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpmem (contents, 8, "\x89PNG\r\n\x1a\n", 8);
  {
    g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
    guint n = 0;

    while (g_dir_read_name (listing) != NULL)
      n++;
    g_assert_cmpuint (n, ==, 1);
  }

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_report (void)
{
  g_autoptr(HrScenario) s = example ();
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_PRINT);
  g_autofree char *dir = g_dir_make_tmp ("headroom-report-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "report.pdf", NULL);
  g_autofree char *info = NULL;
  g_autofree char *fonts = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (hr_chart_report_write (path, s, hr_catalog_get_default (), style, &error));
  g_assert_no_error (error);

  info = run ((const char *[]) { "pdfinfo", path, NULL });
  g_assert_true (g_regex_match_simple ("^Title: +Headroom report: Tom & Jerry <test>$", info,
                                       G_REGEX_MULTILINE, 0));
  g_assert_true (g_regex_match_simple ("^Creator: +Headroom ", info, G_REGEX_MULTILINE, 0));
  {
    g_autoptr(GRegex) pages = g_regex_new ("^Pages: +([0-9]+)$", G_REGEX_MULTILINE, 0, NULL);
    g_autoptr(GMatchInfo) match = NULL;
    g_autofree char *n = NULL;

    g_assert_true (g_regex_match (pages, info, 0, &match));
    n = g_match_info_fetch (match, 1);
    /* summary and buckets; the curve; the GPU table, levers and sources */
    g_assert_cmpint (atoi (n), >=, 3);
  }
  /* A4 */
  g_assert_true (g_regex_match_simple ("^Page size: +595\\.[0-9]+ x 841\\.[0-9]+ pts", info,
                                       G_REGEX_MULTILINE, 0));

  fonts = run ((const char *[]) { "pdffonts", path, NULL });
  g_assert_false (g_regex_match_simple (" no +(yes|no) +(yes|no) +[0-9]+ +[0-9]+$", fonts,
                                        G_REGEX_MULTILINE, 0));

  /* the sections are there, as text a reader can search */
  text = run ((const char *[]) { "pdftotext", "-layout", path, "-", NULL });
  g_assert_nonnull (strstr (text, "Llama 3.1 8B"));
  /* every chart of the registry, the fit table with the lever that fixes
   * each card, the levers with their risks */
  g_assert_nonnull (strstr (text, "Peak against micro-batch"));
  g_assert_nonnull (strstr (text, "Fit on every GPU in the catalog"));
  g_assert_nonnull (strstr (text, "Lever that fixes it"));
  g_assert_nonnull (strstr (text, "What to change"));
  g_assert_nonnull (strstr (text, "Result:"));
  g_assert_nonnull (strstr (text, "What to buy or rent"));
  g_assert_nonnull (strstr (text, "Assumptions and sources"));
  g_assert_nonnull (strstr (text, "H200"));

  g_unlink (path);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chart/export/png", test_png);
  g_test_add_func ("/chart/export/svg", test_svg);
  g_test_add_func ("/chart/export/pdf", test_pdf);
  g_test_add_func ("/chart/export/atomic-files", test_atomic_files);
  g_test_add_func ("/chart/export/report", test_report);

  return g_test_run ();
}
