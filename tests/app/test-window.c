/* test-window.c: the window, driven through its widgets
 *
 * Runs on a real display (Xvfb in CI).  Without one the test fails: a
 * display test that skips proves nothing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "hr-export-dialog.h"
#include "hr-results-view.h"
#include "hr-start-page.h"
#include "hr-text-row.h"
#include "hr-app-test.h"
#include "hr-window.h"

static char *tmp_dir;

static void
iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

/* Presents the window and waits until its charts have a size. */
static HrWindow *
new_window (void)
{
  HrWindow *window = hr_window_new (NULL);
  HrChartView *view = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (view)) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), >, 0);
  return window;
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
test_default_scenario (void)
{
  HrWindow *window = new_window ();
  const HrScenario *s = hr_test_scenario (window);
  g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);
  g_auto(GStrv) verdicts = hr_test_dup_verdicts (window);
  HrChartView *buckets = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  HrChartView *curve = hr_test_get_chart (window, HR_CHART_KIND_CURVE);

  /* Never an empty window: a real model, real cards, drawn charts. */
  g_assert_cmpstr (s->model->id, ==, "llama-3.1-8b");
  g_assert_cmpstr (ids[0], ==, "rtx-4090");
  g_assert_cmpuint (g_strv_length (ids), ==, 4);
  g_assert_cmpuint (g_strv_length (verdicts), ==, 4);
  g_assert_true (g_str_has_prefix (verdicts[0], "GeForce RTX 4090: "));
  g_assert_nonnull (hr_chart_view_get_summary (buckets));
  g_assert_nonnull (strstr (hr_chart_view_get_summary (buckets), "GeForce RTX 4090"));
  g_assert_nonnull (hr_chart_view_get_summary (curve));
  g_assert_true (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (buckets))
                 == GTK_ACCESSIBLE_ROLE_IMG);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_pick_and_change (void)
{
  HrWindow *window = new_window ();
  GtkSpinButton *batch = GTK_SPIN_BUTTON (hr_test_setting_widget (window, "micro_batch"));
  HrChartView *buckets = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  g_autofree char *before = NULL;
  g_auto(GStrv) verdicts = NULL;
  g_auto(GStrv) ids = NULL;
  g_autofree char *path = tmp_path ("picked.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) saved = NULL;
  HrEstimateCounters counters;

  /* The model picker, as a click on its row does it. */
  g_assert_true (hr_window_select_model (window, "smolvla"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");

  /* Only the RTX 3090 and the H100 SXM remain in the comparison. */
  g_assert_true (hr_window_set_gpu_active (window, "rtx-4090", FALSE));
  g_assert_true (hr_window_set_gpu_active (window, "rtx-5090", FALSE));
  g_assert_true (hr_window_set_gpu_active (window, "a100-80gb", FALSE));
  g_assert_true (hr_window_set_gpu_active (window, "rtx-3090", TRUE));
  ids = hr_test_dup_gpu_ids (window);
  g_assert_cmpstrv (ids, ((const char *[]) { "h100-sxm", "rtx-3090", NULL }));
  g_assert_cmpstr (hr_test_scenario (window)->gpu->id, ==, "h100-sxm");

  before = g_strdup (hr_chart_view_get_summary (buckets));
  hr_estimate_counters_reset ();
  gtk_spin_button_set_value (batch, 24);
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, 24);
  iterate ();
  /* One change, one analysis: one estimate per compared GPU, and the
   * lists, the charts and the verdicts all read it. */
  hr_estimate_counters_get (&counters);
  g_assert_cmpuint (counters.analyses, ==, 1);
  g_assert_cmpuint (counters.estimates, ==, 2);

  /* The verdict and the chart's description follow in the same turn. */
  verdicts = hr_test_dup_verdicts (window);
  g_assert_cmpuint (g_strv_length (verdicts), ==, 2);
  g_assert_true (g_str_has_prefix (verdicts[0], "H100 SXM5 80GB: Fits with "));
  g_assert_nonnull (strstr (verdicts[0], "at micro-batch 24"));
  g_assert_true (g_str_has_prefix (verdicts[1], "GeForce RTX 3090: "));
  g_assert_cmpstr (before, !=, hr_chart_view_get_summary (buckets));
  g_assert_nonnull (strstr (hr_chart_view_get_summary (buckets), "micro-batch 24")
                    ? strstr (hr_chart_view_get_summary (buckets), "micro-batch 24")
                    : strstr (hr_chart_view_get_summary (buckets), "H100"));

  g_assert_true (hr_window_save_file (window, file, &error));
  g_assert_no_error (error);
  saved = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (saved->model->id, ==, "smolvla");
  g_assert_cmpuint (saved->micro_batch, ==, 24);
  g_assert_cmpstr (saved->gpu->id, ==, "h100-sxm");
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_settings_that_apply (void)
{
  HrWindow *window = new_window ();
  AdwComboRow *task = ADW_COMBO_ROW (hr_test_setting_row (window, "task"));
  GtkWidget *optimizer = hr_test_setting_row (window, "optimizer");
  GtkWidget *kv = hr_test_setting_row (window, "kv_dtype");
  GtkWidget *image = hr_test_setting_row (window, "image_size");

  g_assert_true (gtk_widget_get_visible (optimizer));
  g_assert_false (gtk_widget_get_visible (kv));
  g_assert_false (gtk_widget_get_visible (image));

  /* Inference has no optimizer but a KV cache. */
  adw_combo_row_set_selected (task, 2);
  g_assert_cmpint (hr_test_scenario (window)->task, ==, HR_TASK_INFERENCE);
  g_assert_cmpint (hr_test_scenario (window)->optimizer, ==, HR_OPTIMIZER_NONE);
  g_assert_false (gtk_widget_get_visible (optimizer));
  g_assert_true (gtk_widget_get_visible (kv));

  /* A vision model reads the image size. */
  g_assert_true (hr_window_select_model (window, "vit-b-16"));
  g_assert_true (gtk_widget_get_visible (image));
  g_assert_false (gtk_widget_get_visible (hr_test_setting_row (window, "audio_seconds")));

  /* A speech model reads the clip's length and sample rate instead. */
  g_assert_true (hr_window_select_model (window, "wav2vec2-base-960h"));
  g_assert_false (gtk_widget_get_visible (image));
  g_assert_true (gtk_widget_get_visible (hr_test_setting_row (window, "audio_seconds")));
  g_assert_true (gtk_widget_get_visible (hr_test_setting_row (window, "sample_rate")));
  g_assert_cmpfloat (hr_scenario_get_audio_seconds (hr_test_scenario (window)), ==, 20.0);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_broken_file (void)
{
  HrWindow *window = new_window ();
  g_autofree char *path = tmp_path ("broken.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  GListModel *toplevels;
  gboolean dialog_found = FALSE;
  guint micro_batch = hr_test_scenario (window)->micro_batch;

  g_assert_true (g_file_set_contents (path,
                                      "{\n  \"headroom_scenario\": 1,\n"
                                      "  \"model\": \"llama-3.1-8b\",\n"
                                      "  \"micro_batch\": \"lots\"\n}\n", -1, NULL));
  g_assert_false (hr_window_load_file (window, file, &error));
  g_assert_nonnull (error);
  expected = g_strdup_printf ("%s:4:", path);
  g_assert_true (g_str_has_prefix (error->message, expected));
  g_assert_nonnull (strstr (error->message, "micro_batch"));

  /* The scenario the user had is untouched. */
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "llama-3.1-8b");
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, micro_batch);
  g_assert_null (hr_test_file (window));

  /* Opening it as the user does shows the same message in a dialog. */
  hr_window_open_file (window, file);
  iterate ();
  toplevels = gtk_window_get_toplevels ();
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (item))
        {
          const char *body = adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (item));

          g_assert_true (g_str_has_prefix (body, expected));
          g_assert_nonnull (strstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (item)),
                                    "broken.json"));
          dialog_found = TRUE;
          gtk_window_destroy (GTK_WINDOW (item));
        }
    }
  g_assert_true (dialog_found);
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, micro_batch);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
assert_starts_with (const char *path,
                    const char *magic,
                    gsize       len)
{
  g_autofree char *data = NULL;
  gsize size;

  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  g_assert_cmpuint (size, >, len);
  g_assert_cmpmem (data, len, magic, len);
}

static void
count_exported_cb (guint *count,
                   GFile *file)
{
  g_assert_true (G_IS_FILE (file));
  (*count)++;
}

static void
test_export (void)
{
  HrWindow *window = new_window ();
  static const struct {
    HrExportWhat    what;
    HrExportFormat  format;
    const char     *name;
    const char     *magic;
  } cases[] = {
    { HR_EXPORT_WHAT_BUCKETS, HR_EXPORT_PNG, "buckets.png", "\x89PNG" },
    { HR_EXPORT_WHAT_BUCKETS, HR_EXPORT_SVG, "buckets.svg", "<?xml" },
    { HR_EXPORT_WHAT_BUCKETS, HR_EXPORT_PDF, "buckets.pdf", "%PDF" },
    { HR_EXPORT_WHAT_CURVE, HR_EXPORT_PNG, "curve.png", "\x89PNG" },
    { HR_EXPORT_WHAT_CURVE, HR_EXPORT_SVG, "curve.svg", "<?xml" },
    { HR_EXPORT_WHAT_CURVE, HR_EXPORT_PDF, "curve.pdf", "%PDF" },
    { HR_EXPORT_WHAT_REPORT, HR_EXPORT_PDF, "report.pdf", "%PDF" },
  };

  /* Every chart and the report, in every format, through the dialog the
   * Export button opens. */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      HrExportDialog *dialog = hr_export_dialog_new (GTK_WINDOW (window),
                                                     hr_test_analysis (window), cases[i].what);
      g_autofree char *path = tmp_path (cases[i].name);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;

      hr_export_dialog_set_format (dialog, cases[i].format);
      hr_export_dialog_set_custom_size (dialog, 800, 500, HR_LENGTH_PX);
      g_assert_true (hr_export_dialog_export_to (dialog, file, &error));
      g_assert_no_error (error);
      assert_starts_with (path, cases[i].magic, strlen (cases[i].magic));
      gtk_window_destroy (GTK_WINDOW (dialog));
    }

  /* And the dialog says so, as the Export button finishes it. */
  {
    HrExportDialog *dialog = hr_export_dialog_new (GTK_WINDOW (window),
                                                   hr_test_analysis (window),
                                                   HR_EXPORT_WHAT_CURVE);
    g_autofree char *path = tmp_path ("dialog.svg");
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autoptr(GError) error = NULL;
    g_autofree char *svg = NULL;
    guint exported = 0;

    g_signal_connect_swapped (dialog, "exported", G_CALLBACK (count_exported_cb), &exported);
    hr_export_dialog_set_format (dialog, HR_EXPORT_SVG);
    g_assert_true (hr_export_dialog_export_to (dialog, file, &error));
    g_assert_no_error (error);
    /* the window that opened it says so, in a toast */
    g_assert_cmpuint (exported, ==, 1);
    g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
    g_assert_nonnull (strstr (svg, "<title id="));
    gtk_window_destroy (GTK_WINDOW (dialog));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_hover_and_dark (void)
{
  HrWindow *window = new_window ();
  HrChartView *buckets = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  HrChartView *curve = hr_test_get_chart (window, HR_CHART_KIND_CURVE);
  AdwStyleManager *manager = adw_style_manager_get_default ();
  g_autoptr(HrChartStyle) light = NULL;
  g_autoptr(HrChartStyle) dark = NULL;
  gboolean found_weights = FALSE;
  gboolean found_curve = FALSE;
  int width = gtk_widget_get_width (GTK_WIDGET (buckets));
  int height = gtk_widget_get_height (GTK_WIDGET (buckets));

  /* Somewhere over the chart, the pointer finds a weights segment, and
   * the tooltip says how much it is. */
  for (int x = 0; x < width && !found_weights; x += 4)
    for (int y = 0; y < height && !found_weights; y += 4)
      {
        g_autofree char *text = hr_chart_view_describe_at (buckets, x, y);

        if (text != NULL && strstr (text, "Weights") != NULL && strstr (text, "GiB") != NULL)
          found_weights = TRUE;
      }
  g_assert_true (found_weights);

  for (int x = 0; x < gtk_widget_get_width (GTK_WIDGET (curve)) && !found_curve; x += 8)
    {
      int middle = gtk_widget_get_height (GTK_WIDGET (curve)) / 2;
      g_autofree char *text = hr_chart_view_describe_at (curve, x, middle);

      if (text != NULL && g_str_has_prefix (text, "Micro-batch "))
        found_curve = TRUE;
    }
  g_assert_true (found_curve);
  g_assert_null (hr_chart_view_describe_at (buckets, 1, 1));

  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  iterate ();
  light = hr_chart_view_make_style (buckets);
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  iterate ();
  dark = hr_chart_view_make_style (buckets);
  g_assert_cmpint (light->theme, ==, HR_CHART_THEME_LIGHT);
  g_assert_cmpint (dark->theme, ==, HR_CHART_THEME_DARK);
  /* The text colour comes from the widget, and the dark theme's is light. */
  g_assert_cmpfloat (hr_rgba_luminance (&dark->foreground), >,
                     hr_rgba_luminance (&light->foreground));
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Undo and redo, the modified mark, and asking before another scenario
 * replaces unsaved changes. */
static void
test_undo_and_ask (void)
{
  HrWindow *window = new_window ();
  HrHistory *history = hr_test_history (window);
  GtkSpinButton *batch = GTK_SPIN_BUTTON (hr_test_setting_widget (window, "micro_batch"));
  guint first = hr_test_scenario (window)->micro_batch;
  g_autofree char *example = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                               "smolvla-4090.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (example);
  GListModel *toplevels;
  AdwMessageDialog *ask = NULL;
  g_auto(GStrv) ids_before = NULL;

  g_assert_false (hr_test_modified (window));
  g_assert_false (hr_history_get_can_undo (history));
  g_assert_false (hr_history_get_can_redo (history));
  /* Steps of one setting in a row are one edit (one undo below takes
   * both back). */
  gtk_spin_button_set_value (batch, first + 1);
  gtk_spin_button_set_value (batch, first + 2);
  g_assert_true (hr_history_get_can_undo (history));
  g_assert_true (hr_window_select_model (window, "smolvla"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");
  /* The second card compared (the settings keep the last comparison). */
  ids_before = hr_test_dup_gpu_ids (window);
  g_assert_cmpuint (g_strv_length (ids_before), >=, 2);
  g_assert_true (hr_window_set_gpu_active (window, ids_before[1], FALSE));
  g_assert_true (hr_test_modified (window));
  g_assert_false (hr_history_get_can_redo (history));

  g_assert_true (hr_window_undo (window));
  g_assert_true (hr_history_get_can_redo (history));
  g_assert_false (hr_window_set_gpu_active (window, "no-such-card", TRUE));
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    g_assert_cmpstrv (ids, ids_before);
  }
  g_assert_true (hr_window_undo (window));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "llama-3.1-8b");
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, first + 2);
  g_assert_true (hr_window_undo (window));
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, first);
  /* Back at the state opened: not modified, and the spin shows it. */
  g_assert_false (hr_test_modified (window));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (batch), ==, (int) first);
  g_assert_false (hr_history_get_can_undo (history));
  g_assert_false (hr_window_undo (window));
  g_assert_true (hr_window_redo (window));
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, first + 2);
  g_assert_true (hr_test_modified (window));

  /* Opening another asks first, and Cancel keeps everything. */
  hr_window_open_file (window, file);
  iterate ();
  toplevels = gtk_window_get_toplevels ();
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (item))
        ask = ADW_MESSAGE_DIALOG (item);
    }
  g_assert_nonnull (ask);
  g_assert_cmpstr (adw_message_dialog_get_heading (ask), ==, "Save Changes?");
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "llama-3.1-8b");
  adw_message_dialog_response (ask, "cancel");
  gtk_window_destroy (GTK_WINDOW (ask));
  iterate ();
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "llama-3.1-8b");
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, first + 2);

  /* Discard opens it. */
  ask = NULL;
  hr_window_open_file (window, file);
  iterate ();
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (item) && gtk_widget_get_visible (GTK_WIDGET (item)))
        ask = ADW_MESSAGE_DIALOG (item);
    }
  g_assert_nonnull (ask);
  adw_message_dialog_response (ask, "discard");
  gtk_window_destroy (GTK_WINDOW (ask));
  iterate ();
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");
  g_assert_false (hr_test_modified (window));
  g_assert_false (hr_history_get_can_undo (history));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The unsaved state, written beside the settings, comes back in another
 * window; saving removes it. */
static void
test_recovery (void)
{
  HrWindow *window = new_window ();
  HrWindow *next;
  GtkSpinButton *batch = GTK_SPIN_BUTTON (hr_test_setting_widget (window, "micro_batch"));
  HrRecovery *recovery = hr_test_recovery (window);
  g_autofree char *path = g_strdup (hr_recovery_get_path (recovery));
  g_autofree char *saved = tmp_path ("recovered.json");
  g_autoptr(GFile) saved_file = g_file_new_for_path (saved);
  g_autoptr(GError) error = NULL;

  hr_window_set_keeps_recovery (window, TRUE);
  g_assert_true (hr_window_select_model (window, "gr00t-n1.7"));
  gtk_spin_button_set_value (batch, 7);
  g_assert_true (hr_window_set_gpu_active (window, "rtx-3090", TRUE));
  g_assert_true (hr_recovery_write_now (recovery, &error));
  g_assert_no_error (error);
  g_assert_true (hr_recovery_exists (recovery));
  /* As a crash leaves it: the window goes without removing it. */
  hr_window_set_keeps_recovery (window, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));

  next = new_window ();
  hr_window_set_keeps_recovery (next, TRUE);
  g_assert_true (hr_window_restore_recovery (next, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (hr_test_scenario (next)->model->id, ==, "gr00t-n1.7");
  g_assert_cmpuint (hr_test_scenario (next)->micro_batch, ==, 7);
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (next);

    g_assert_true (g_strv_contains ((const char * const *) ids, "rtx-3090"));
  }
  g_assert_true (hr_test_modified (next));
  g_assert_true (hr_window_save_file (next, saved_file, &error));
  g_assert_no_error (error);
  g_assert_false (hr_recovery_exists (hr_test_recovery (next)));
  gtk_window_destroy (GTK_WINDOW (next));
}

/* The start page lists every example, and opening one shows it. */
static void
test_start_page (void)
{
  HrWindow *window = new_window ();
  g_autoptr(GDir) dir = g_dir_open (hr_start_page_get_examples_dir (), 0, NULL);
  const char *name;
  guint n = 0;
  g_autofree char *example = g_build_filename (hr_start_page_get_examples_dir (), "pi05-fp32.json",
                                               NULL);

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    n += g_str_has_suffix (name, ".json");
  g_assert_cmpuint (n, >, 10);
  hr_window_show_start_page (window);
  g_assert_true (hr_test_start_page_visible (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-file", "s",
                                             example));
  iterate ();
  g_assert_false (hr_test_start_page_visible (window));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "pi05");
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
find_label (GtkWidget  *widget,
            const char *text)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return gtk_widget_is_drawable (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (find_label (c, text))
      return TRUE;
  return FALSE;
}

/* The main menu's Open Example submenu. */
static GMenuModel *
examples_menu (GtkWidget *widget)
{
  if (GTK_IS_MENU_BUTTON (widget)
      && gtk_menu_button_get_primary (GTK_MENU_BUTTON (widget)))
    {
      GMenuModel *menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget));

      for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
        {
          g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, s,
                                                                      G_MENU_LINK_SECTION);

          for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
            {
              g_autofree char *label = NULL;

              if (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_LABEL, "s",
                                                   &label)
                  && g_str_equal (label, "Open _Example"))
                {
                  g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (section, i,
                                                                              G_MENU_LINK_SUBMENU);

                  /* the start page's menu, as the submenu's one section */
                  return g_menu_model_get_item_link (submenu, 0, G_MENU_LINK_SECTION);
                }
            }
        }
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GMenuModel *found = examples_menu (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Run where no examples are installed (the build tree outside meson
 * devenv), the start page says so, where it looked, and offers Open;
 * the Open Example submenu says there are none. */
static void
test_start_page_no_examples (void)
{
  g_autofree char *saved = g_strdup (g_getenv ("HEADROOM_EXAMPLES_DIR"));
  g_autofree char *empty = tmp_path ("no-examples");
  HrWindow *window;

  g_assert_cmpint (g_mkdir_with_parents (empty, 0700), ==, 0);
  g_setenv ("HEADROOM_EXAMPLES_DIR", empty, TRUE);
  window = new_window ();
  hr_window_show_start_page (window);
  iterate ();
  g_assert_true (hr_test_start_page_visible (window));
  g_assert_true (find_label (GTK_WIDGET (window), "No examples were found in"));
  g_assert_true (find_label (GTK_WIDGET (window), empty));
  g_assert_false (find_label (GTK_WIDGET (window), "Start from one of the examples"));
  /* nor a heading over an empty list */
  g_assert_false (find_label (GTK_WIDGET (window), "Each runs as its upstream project runs it"));
  /* Open is there, and works */
  g_assert_true (find_label (GTK_WIDGET (window), "Open…"));
  {
    g_autoptr(GMenuModel) menu = examples_menu (GTK_WIDGET (window));
    g_autofree char *label = NULL;
    g_autofree char *action = NULL;

    g_assert_nonnull (menu);
    g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 1);
    g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_LABEL, "s",
                                                    &label));
    g_assert_cmpstr (label, ==, "No Examples Installed");
    /* no action: shown greyed out */
    g_assert_false (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_ACTION, "s",
                                                     &action));
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_rmdir (empty);
  g_setenv ("HEADROOM_EXAMPLES_DIR", saved, TRUE);

  /* with them, it offers them */
  window = new_window ();
  hr_window_show_start_page (window);
  iterate ();
  g_assert_true (find_label (GTK_WIDGET (window), "Start from one of the examples"));
  g_assert_false (find_label (GTK_WIDGET (window), "No examples were found"));
  {
    g_autoptr(GMenuModel) menu = examples_menu (GTK_WIDGET (window));
    g_autofree char *action = NULL;

    g_assert_nonnull (menu);
    g_assert_cmpint (g_menu_model_get_n_items (menu), >, 1);
    g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_ACTION, "s",
                                                    &action));
    g_assert_cmpstr (action, ==, "win.open-file");
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A change updates the rows in place and renders each chart once; a
 * hover or a focus change draws on top of the rendered chart. */
static void
test_repaint (void)
{
  HrWindow *window = new_window ();
  GtkSpinButton *batch = GTK_SPIN_BUTTON (hr_test_setting_widget (window, "micro_batch"));
  HrChartView *buckets = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  HrChartView *curve = hr_test_get_chart (window, HR_CHART_KIND_CURVE);
  GtkWidget *verdicts = NULL;
  GtkWidget *first_row, *last_row;
  HrChartViewCounters counters;
  int width = gtk_widget_get_width (GTK_WIDGET (buckets));
  int height = gtk_widget_get_height (GTK_WIDGET (buckets));
  gboolean hovered = FALSE;

  /* The verdict list: the list box holding the first verdict row. */
  for (GtkWidget *w = GTK_WIDGET (window); w != NULL;)
    {
      if (GTK_IS_LIST_BOX (w) && g_strcmp0 (gtk_widget_get_name (w), "verdict_list") == 0)
        {
          verdicts = w;
          break;
        }
      /* depth-first walk */
      if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && gtk_widget_get_next_sibling (w) == NULL)
            w = gtk_widget_get_parent (w);
          if (w != NULL)
            w = gtk_widget_get_next_sibling (w);
        }
    }
  g_assert_nonnull (verdicts);
  first_row = gtk_widget_get_first_child (verdicts);
  last_row = gtk_widget_get_last_child (verdicts);

  hr_chart_view_counters_reset ();
  gtk_spin_button_set_value (batch, gtk_spin_button_get_value_as_int (batch) + 1);
  iterate ();
  gtk_widget_queue_draw (GTK_WIDGET (window));
  {
    gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

    hr_chart_view_counters_get (&counters);
    while (counters.renders < 2 && g_get_monotonic_time () < deadline)
      {
        g_main_context_iteration (NULL, TRUE);
        hr_chart_view_counters_get (&counters);
      }
  }
  /* The same rows, their texts changed. */
  g_assert_true (gtk_widget_get_first_child (verdicts) == first_row);
  g_assert_true (gtk_widget_get_last_child (verdicts) == last_row);
  g_assert_cmpuint (counters.renders, ==, 2);

  /* Hovering finds values without laying out or rendering the charts
   * again. */
  hr_chart_view_counters_reset ();
  for (int x = 0; x < width; x += 16)
    for (int y = 0; y < height; y += 16)
      {
        hr_chart_view_hover (buckets, x, y);
        hovered |= hr_chart_view_get_hover_text (buckets) != NULL;
      }
  hr_chart_view_hover (curve, gtk_widget_get_width (GTK_WIDGET (curve)) / 2.0,
                       gtk_widget_get_height (GTK_WIDGET (curve)) / 2.0);
  gtk_widget_grab_focus (GTK_WIDGET (curve));
  iterate ();
  gtk_widget_queue_draw (GTK_WIDGET (window));
  {
    gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC / 2;

    while (g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, FALSE);
  }
  g_assert_true (hovered);
  hr_chart_view_counters_get (&counters);
  g_assert_cmpuint (counters.renders, ==, 0);
  g_assert_cmpuint (counters.reuses, >, 0);
  hr_chart_view_hover (buckets, -1, -1);
  g_assert_null (hr_chart_view_get_hover_text (buckets));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A column of wrapping labels gives the same width at any height (a
 * horizontal box asks for it at its own height), stacks its shown
 * children, and a text row shows what it was last given. */
static void
test_text_column (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *column = hr_text_column_new (3);
  GtkWidget *labels[3];
  const char *text = "Fits with 6.90 GiB to spare at micro-batch 6; largest micro-batch 9, "
                     "with the optimizer state on the CPU";
  int min = 0, nat = 0, min_at = 0, nat_at = 0, height = 0, sum = 0;
  GtkWidget *row;

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      labels[i] = gtk_label_new (text);
      gtk_label_set_wrap (GTK_LABEL (labels[i]), TRUE);
      gtk_label_set_width_chars (GTK_LABEL (labels[i]), 20);
      hr_text_column_append (HR_TEXT_COLUMN (column), labels[i]);
    }
  gtk_widget_set_visible (labels[1], FALSE);
  gtk_window_set_child (GTK_WINDOW (window), column);
  gtk_window_present (GTK_WINDOW (window));
  iterate ();

  gtk_widget_measure (column, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  gtk_widget_measure (column, GTK_ORIENTATION_HORIZONTAL, 20, &min_at, &nat_at, NULL, NULL);
  g_assert_cmpint (min, >, 0);
  g_assert_cmpint (nat, >, min);
  g_assert_cmpint (min_at, ==, min);
  g_assert_cmpint (nat_at, ==, nat);

  /* at a narrow width the text wraps: the two shown labels and one gap */
  gtk_widget_measure (column, GTK_ORIENTATION_VERTICAL, min, NULL, &height, NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      int h = 0;

      if (i == 1)
        continue;
      gtk_widget_measure (labels[i], GTK_ORIENTATION_VERTICAL, min, NULL, &h, NULL, NULL);
      sum += h;
    }
  g_assert_cmpint (height, ==, sum + 3);
  gtk_window_destroy (GTK_WINDOW (window));

  row = g_object_ref_sink (hr_text_row_new ("Activations", "derived", "1.80 GiB"));
  g_assert_cmpstr (hr_text_row_get_title (HR_TEXT_ROW (row)), ==, "Activations");
  g_assert_cmpstr (hr_text_row_get_subtitle (HR_TEXT_ROW (row)), ==, "derived");
  g_assert_cmpstr (hr_text_row_get_suffix (HR_TEXT_ROW (row)), ==, "1.80 GiB");
  hr_text_row_set_texts (HR_TEXT_ROW (row), "Overhead", NULL, NULL);
  g_assert_cmpstr (hr_text_row_get_subtitle (HR_TEXT_ROW (row)), ==, "");
  g_assert_null (hr_text_row_get_suffix (HR_TEXT_ROW (row)));
  g_object_unref (row);
}

/* The bad-input corpus (tests/data/bad/expected.tsv) through the window's
 * open path: the same message as headroom-cli, and the scenario the user had
 * is untouched.  Files made at test time ('@' names) are left to the CLI's
 * test, except a folder and a missing file, which the window meets too. */
static void
test_bad_corpus (void)
{
  HrWindow *window = new_window ();
  const char *dir = g_getenv ("HEADROOM_BAD_DIR");
  g_autofree char *table_path = g_build_filename (dir, "expected.tsv", NULL);
  g_autofree char *table = NULL;
  g_auto(GStrv) lines = NULL;
  guint checked = 0;
  const HrScenario *before = hr_test_scenario (window);
  g_autofree char *model = g_strdup (before->model->id);
  guint micro_batch = before->micro_batch;

  g_assert_true (g_file_get_contents (table_path, &table, NULL, NULL));
  lines = g_strsplit (table, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) cols = NULL;
      g_autofree char *path = NULL;
      g_autoptr(GFile) file = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GString) want = NULL;

      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      cols = g_strsplit (lines[i], "\t", 4);
      g_assert_cmpuint (g_strv_length (cols), ==, 4);
      if (!g_str_equal (cols[1], "estimate"))
        continue;
      if (cols[0][0] == '@')
        {
          if (g_str_equal (cols[0], "@folder.json"))
            {
              path = tmp_path ("folder.json");
              g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
            }
          else if (g_str_equal (cols[0], "@missing.json"))
            path = tmp_path ("missing.json");
          else
            continue;
        }
      else
        path = g_build_filename (dir, cols[0], NULL);

      file = g_file_new_for_path (path);
      g_assert_false (hr_window_load_file (window, file, &error));
      g_assert_nonnull (error);
      want = g_string_new (cols[3]);
      g_string_replace (want, "{FILE}", path, 0);
      if (g_strcmp0 (error->message, want->str) != 0)
        g_error ("%s: the window says\n  %s\nbut headroom-cli says\n  %s", cols[0],
                 error->message, want->str);
      g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, model);
      g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, micro_batch);
      if (g_str_equal (cols[0], "@folder.json"))
        g_rmdir (path);
      checked++;
    }
  g_test_message ("%u files of the bad-input corpus", checked);
  g_assert_cmpuint (checked, >=, 40);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The first widget of @type under @widget whose preferences-row title
 * is @title (any, when NULL). */
static GtkWidget *
find_row (GtkWidget  *widget,
          GType       type,
          const char *title)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type)
      && (title == NULL
          || (ADW_IS_PREFERENCES_ROW (widget)
              && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)),
                            title) == 0)))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_row (c, type, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_measurements (void)
{
  HrWindow *window = new_window ();
  const char *dir = g_getenv ("HEADROOM_MEASURE_DIR");
  g_autofree char *probe = g_build_filename (dir, "probe-torch.csv", NULL);
  g_autofree char *log = g_build_filename (dir, "nvidia-smi.csv", NULL);
  g_autoptr(GFile) probe_file = g_file_new_for_path (probe);
  g_autoptr(GFile) log_file = g_file_new_for_path (log);
  g_autofree char *bad = tmp_path ("bad.csv");
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad);
  g_autoptr(GError) error = NULL;
  HrChartView *curve = hr_test_get_chart (window, HR_CHART_KIND_CURVE);
  HrCurveChartData *data;
  g_auto(GStrv) before = NULL;
  g_auto(GStrv) after = NULL;
  g_autofree char *point_detail = NULL;
  GtkWidget *expander, *point;
  gint64 deadline;

  g_assert_true (hr_window_select_model (window, "smolvla"));
  /* The model change keeps the default scenario's 2,048 tokens; the probe
   * ran SmolVLA's own 200. */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (hr_test_setting_widget (window, "seq_len")),
                             200);
  before = hr_test_dup_verdicts (window);

  /* A probe sweep: its points and its fitted line go on the curve. */
  g_assert_true (hr_window_add_measurement_file (window, probe_file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 1);
  data = hr_chart_view_get_data (curve);
  g_assert_cmpuint (data->measured->len, >=, 6);
  g_assert_true (data->has_fit_line);
  g_assert_nonnull (strstr (hr_chart_view_get_summary (curve), "easured"));

  /* The probe measured bf16-mixed; SmolVLA's default here is fp32: the
   * mismatch is said where the points are drawn, and it does not
   * calibrate. */
  g_assert_cmpint (hr_test_scenario (window)->compute, ==, HR_COMPUTE_FP32);
  g_assert_true (hr_analysis_get_measurement (hr_test_analysis (window), 0)->match->differs);
  g_assert_nonnull (strstr (hr_chart_view_get_summary (curve), "another setup: precision"));
  hr_test_set_use_calibration (window, TRUE);
  g_assert_false (hr_test_get_calibrated (window));

  /* The measurement's row, opened, and its first point beside the
   * estimate. */
  expander = find_row (GTK_WIDGET (window), ADW_TYPE_EXPANDER_ROW, "probe-torch.csv");
  g_assert_nonnull (expander);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (expander), TRUE);
  point = find_row (expander, HR_TYPE_TEXT_ROW, NULL);
  g_assert_nonnull (point);
  g_assert_nonnull (strstr (hr_text_row_get_title (HR_TEXT_ROW (point)), "Micro-batch"));
  point_detail = g_strdup (hr_text_row_get_subtitle (HR_TEXT_ROW (point)));

  /* In the measured precision, every card's verdict follows the
   * measurement. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (hr_test_setting_row (window, "compute")),
                              hr_setting_choice_index (hr_setting_find ("compute"),
                                                       HR_COMPUTE_BF16_MIXED));
  /* The same row, still open, its figures changed in place. */
  g_assert_true (find_row (GTK_WIDGET (window), ADW_TYPE_EXPANDER_ROW, "probe-torch.csv")
                 == expander);
  g_assert_true (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (expander)));
  g_assert_true (find_row (expander, HR_TYPE_TEXT_ROW, NULL) == point);
  g_assert_cmpstr (hr_text_row_get_subtitle (HR_TEXT_ROW (point)), !=, point_detail);
  hr_test_set_use_calibration (window, FALSE);
  g_strfreev (before);
  before = hr_test_dup_verdicts (window);
  hr_test_set_use_calibration (window, TRUE);
  g_assert_true (hr_test_get_calibrated (window));
  after = hr_test_dup_verdicts (window);
  g_assert_cmpuint (g_strv_length (after), ==, g_strv_length (before));
  g_assert_cmpstr (after[0], !=, before[0]);

  /* Another scenario opened sets the measurements aside rather than
   * carrying them over; the toast's Keep Them brings them back. */
  {
    g_autofree char *other = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                               "dreamerv3-5090d.json", NULL);
    g_autoptr(GFile) other_file = g_file_new_for_path (other);

    g_assert_true (hr_window_load_file (window, other_file, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (hr_test_n_measurements (window), ==, 0);
    g_assert_cmpuint (hr_measurements_get_n_set_aside (hr_test_measurements (window)), ==, 1);
    data = hr_chart_view_get_data (curve);
    g_assert_cmpuint (data->measured->len, ==, 0);
    g_assert_false (hr_test_get_calibrated (window));
    hr_window_keep_measurements (window);
    g_assert_cmpuint (hr_test_n_measurements (window), ==, 1);
    g_assert_cmpuint (hr_measurements_get_n_set_aside (hr_test_measurements (window)), ==, 0);
    /* kept, it is still another setup (torch, SmolVLA), and says so */
    g_assert_true (hr_analysis_get_measurement (hr_test_analysis (window), 0)
                     ->match->differs);
    g_assert_false (hr_test_get_calibrated (window));
    g_assert_nonnull (strstr (hr_chart_view_get_summary (curve), "another setup"));
  }

  /* A log over time, dropped as the user drops it: read in a thread. */
  hr_window_open_any (window, log_file);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (hr_test_n_measurements (window) < 2 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 2);

  /* A broken file names its line and column and changes nothing. */
  g_assert_true (g_file_set_contents (bad, "micro_batch,max_memory_allocated\n1,1000\n2,lots\n",
                                      -1, NULL));
  g_assert_false (hr_window_add_measurement_file (window, bad_file, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "bad.csv:3:"));
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 2);

  hr_test_remove_measurement (window, 0);
  hr_test_remove_measurement (window, 0);
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 0);
  g_assert_false (hr_test_get_calibrated (window));
  data = hr_chart_view_get_data (curve);
  g_assert_cmpuint (data->measured->len, ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_screenshot (void)
{
  HrWindow *window = new_window ();
  g_autofree char *path = tmp_path ("window.png");
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (hr_window_screenshot (window, path, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_filename (path, &error);
  g_assert_no_error (error);
  /* the whole window as the screen shows it (Xvfb: no shadow, the
   * surface is the window's box) */
  g_assert_cmpint (gdk_texture_get_width (texture), ==,
                   gdk_surface_get_width (gtk_native_get_surface (GTK_NATIVE (window))));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The levers' order is the results view's toggle: the view says so, the
 * window makes the analysis again with it, and the view shows it. */
static void
test_lever_sort (void)
{
  HrWindow *window = new_window ();
  GtkWidget *results = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_RESULTS_VIEW);
  GtkToggleButton *saved = GTK_TOGGLE_BUTTON (
    gtk_widget_get_template_child (results, HR_TYPE_RESULTS_VIEW, "levers_saved_button"));
  GtkListBox *list = GTK_LIST_BOX (
    gtk_widget_get_template_child (results, HR_TYPE_RESULTS_VIEW, "knobs_list"));
  GPtrArray *levers;

  g_assert_nonnull (results);
  g_assert_true (hr_results_view_get_analysis (HR_RESULTS_VIEW (results))
                 == hr_test_analysis (window));
  g_assert_cmpint (hr_results_view_get_lever_sort (HR_RESULTS_VIEW (results)), ==,
                   HR_KNOB_SORT_COST);
  gtk_toggle_button_set_active (saved, TRUE);
  iterate ();
  g_assert_cmpint (hr_results_view_get_lever_sort (HR_RESULTS_VIEW (results)), ==,
                   HR_KNOB_SORT_SAVED);
  /* a new analysis, handed down, with the most memory gained first */
  g_assert_true (hr_results_view_get_analysis (HR_RESULTS_VIEW (results))
                 == hr_test_analysis (window));
  levers = hr_analysis_get_levers (hr_test_analysis (window));
  g_assert_cmpuint (levers->len, >, 1);
  for (guint i = 1; i < levers->len; i++)
    g_assert_cmpint (((HrKnob *) g_ptr_array_index (levers, i - 1))->gained, >=,
                     ((HrKnob *) g_ptr_array_index (levers, i))->gained);
  g_assert_cmpstr (hr_text_row_get_title (HR_TEXT_ROW (gtk_list_box_get_row_at_index (list, 0))),
                   ==, ((HrKnob *) g_ptr_array_index (levers, 0))->label);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* What a drop-down row shows. */
static const char *
combo_text (GtkWidget *row)
{
  GObject *item = adw_combo_row_get_selected_item (ADW_COMBO_ROW (row));

  g_assert_true (GTK_IS_STRING_OBJECT (item));
  return gtk_string_object_get_string (GTK_STRING_OBJECT (item));
}

/* Each settings row shows the file's value: the LoRA example lists its
 * own modules (q, v, o, gate, up, down), which is "The modules listed",
 * not a preset; the QLoRA example's "all-linear" is "All linear layers".
 * The numbers are the file's too. */
static void
test_rows_show_scenario (void)
{
  HrWindow *window = new_window ();
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autofree char *lora = g_build_filename (dir, "llama-3.1-8b-lora-4090.json", NULL);
  g_autofree char *qlora = g_build_filename (dir, "llama-2-7b-qlora-3090.json", NULL);
  g_autoptr(GFile) lora_file = g_file_new_for_path (lora);
  g_autoptr(GFile) qlora_file = g_file_new_for_path (qlora);
  g_autoptr(GError) error = NULL;

  g_assert_true (hr_window_load_file (window, lora_file, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (combo_text (hr_test_setting_row (window, "lora.targets")), ==,
                   "The modules listed");
  g_assert_cmpstr (combo_text (hr_test_setting_row (window, "compute")), ==, "Pure BF16");
  g_assert_cmpstr (combo_text (hr_test_setting_row (window, "stack")), ==, "torchtune");
  g_assert_cmpfloat (gtk_spin_button_get_value (
                       GTK_SPIN_BUTTON (hr_test_setting_widget (window, "lora.rank"))), ==, 8);
  g_assert_cmpfloat (gtk_spin_button_get_value (
                       GTK_SPIN_BUTTON (hr_test_setting_widget (window, "micro_batch"))), ==, 2);
  g_assert_cmpfloat (gtk_spin_button_get_value (
                       GTK_SPIN_BUTTON (hr_test_setting_widget (window, "seq_len"))), ==, 2048);

  g_assert_true (hr_window_load_file (window, qlora_file, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (combo_text (hr_test_setting_row (window, "lora.targets")), ==,
                   "All linear layers");
  g_assert_cmpfloat (gtk_spin_button_get_value (
                       GTK_SPIN_BUTTON (hr_test_setting_widget (window, "lora.rank"))), ==, 64);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
wait_for_width (GtkWidget *widget,
                int        width)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  gint64 settle;

  /* (less the client-side decorations' margins) */
  while (ABS (gtk_widget_get_width (widget) - width) > 20 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpint (ABS (gtk_widget_get_width (widget) - width), <=, 20);
  /* the fold follows the allocation, one idle later, then animates */
  settle = g_get_monotonic_time () + G_USEC_PER_SEC;
  while (g_get_monotonic_time () < settle)
    g_main_context_iteration (NULL, FALSE);
}

/* Below 900 px wide the sidebar folds away, the results take the width,
 * and the header bar's toggle (win.toggle-sidebar, F9) shows it over
 * them; wide again, it sits beside them. */
static void
test_adaptive (void)
{
  HrWindow *window = hr_window_new (NULL);
  GtkWidget *flap = hr_test_find_widget (GTK_WIDGET (window), ADW_TYPE_FLAP);
  GtkWidget *results = GTK_WIDGET (hr_test_results_view (window));

  g_assert_nonnull (flap);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 900);
  gtk_window_present (GTK_WINDOW (window));
  wait_for_width (GTK_WIDGET (window), 800);
  g_assert_true (adw_flap_get_folded (ADW_FLAP (flap)));
  g_assert_false (adw_flap_get_reveal_flap (ADW_FLAP (flap)));
  g_assert_cmpint (gtk_widget_get_width (results), ==, gtk_widget_get_width (flap));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-sidebar", NULL));
  g_assert_true (adw_flap_get_reveal_flap (ADW_FLAP (flap)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-sidebar", NULL));
  g_assert_false (adw_flap_get_reveal_flap (ADW_FLAP (flap)));

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 768);
  wait_for_width (GTK_WIDGET (window), 1200);
  g_assert_false (adw_flap_get_folded (ADW_FLAP (flap)));
  g_assert_true (adw_flap_get_reveal_flap (ADW_FLAP (flap)));
  g_assert_cmpint (gtk_widget_get_width (results), <, gtk_widget_get_width (flap) - 300);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  tmp_dir = g_dir_make_tmp ("headroom-test-window-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-window: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  g_test_add_func ("/window/default-scenario", test_default_scenario);
  g_test_add_func ("/window/pick-and-change", test_pick_and_change);
  g_test_add_func ("/window/settings-that-apply", test_settings_that_apply);
  g_test_add_func ("/window/rows-show-scenario", test_rows_show_scenario);
  g_test_add_func ("/window/adaptive", test_adaptive);
  g_test_add_func ("/window/broken-file", test_broken_file);
  g_test_add_func ("/window/export", test_export);
  g_test_add_func ("/window/lever-sort", test_lever_sort);
  g_test_add_func ("/window/hover-and-dark", test_hover_and_dark);
  g_test_add_func ("/window/repaint", test_repaint);
  g_test_add_func ("/window/text-column", test_text_column);
  g_test_add_func ("/window/undo-and-ask", test_undo_and_ask);
  g_test_add_func ("/window/recovery", test_recovery);
  g_test_add_func ("/window/start-page", test_start_page);
  g_test_add_func ("/window/start-page-no-examples", test_start_page_no_examples);
  g_test_add_func ("/window/measurements", test_measurements);
  g_test_add_func ("/window/bad-corpus", test_bad_corpus);
  g_test_add_func ("/window/screenshot", test_screenshot);
  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = tmp_path (name);

        g_remove (path);
      }
    g_rmdir (tmp_dir);
  }
  return status;
}
