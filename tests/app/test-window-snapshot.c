/* test-window-snapshot.c: PyTorch memory snapshots in the window
 *
 * A snapshot (torch.cuda.memory._dump_snapshot's pickle, written here by
 * tests/data/make-snapshots.py's model of the caching allocator) is
 * imported by the Import button and by a drop on the window, as a user
 * does; its peak and buckets must then be beside the prediction: a
 * measured bar in the bucket chart, the peak on the curve at the
 * micro-batch the snapshot says, its buckets against the estimate's in
 * the measurement's row, "another setup" when it says it ran another
 * model, and snapshots of the scenario's setup at two micro-batches
 * calibrating the estimate.
 *
 * Runs on a real display (Xvfb in CI); without one the test fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "hr-file-chooser.h"
#include "hr-format.h"
#include "hr-measurements-group.h"
#include "hr-results-view.h"
#include "hr-app-test.h"
#include "hr-window.h"

/* Presents the window and waits until its charts have a size. */
static HrWindow *
new_window (void)
{
  HrWindow *window = hr_window_new (NULL);
  HrChartView *view = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "smolvla-4090.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (view)) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), >, 0);

  /* the shipped example the snapshots are compared with */
  g_assert_true (hr_window_load_file (window, file, &error));
  g_assert_no_error (error);
  return window;
}

static GFile *
data_file (const char *env,
           const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv (env), name, NULL);

  return g_file_new_for_path (path);
}

/* What make-snapshots.py says Headroom must read from a snapshot. */
static JsonObject *
expected_device (const char *env,
                 const char *name)
{
  g_autofree char *file = g_strdup_printf ("%s.expected.json", name);
  g_autofree char *path = g_build_filename (g_getenv (env), file, NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  return json_object_ref (json_array_get_object_element (json_object_get_array_member (root,
                                                                                         "devices"),
                                                          0));
}

static void
wait_for_measurements (HrWindow *window,
                       guint     n)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (hr_test_n_measurements (window) < n && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (hr_test_n_measurements (window), ==, n);
}

static GtkWidget *
find_widget (GtkWidget *widget,
             gboolean (*match) (GtkWidget *widget, gconstpointer data),
             gconstpointer data)
{
  if (match (widget, data))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, match, data);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_action_button (GtkWidget     *widget,
                  gconstpointer  action)
{
  return GTK_IS_BUTTON (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0;
}

static gboolean
is_label_containing (GtkWidget     *widget,
                     gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL;
}

static gboolean
has_text (HrWindow   *window,
          const char *text)
{
  return find_widget (GTK_WIDGET (window), is_label_containing, text) != NULL;
}

/* The Import… button of the Measurements group, clicked, with the file
 * chooser answering @file as a user picking it would. */
static void
click_import (HrWindow *window,
              GFile    *file)
{
  GtkWidget *button = find_widget (GTK_WIDGET (window), is_action_button,
                                   "win.import-measurements");

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  hr_file_chooser_set_test_answer (file);
  g_signal_emit_by_name (button, "clicked");
  hr_file_chooser_set_test_answer (NULL);
}

/* @file dropped on the window: its drop target's "drop", with the file
 * list a file manager sends. */
static void
drop_file (HrWindow *window,
           GFile    *file)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  GtkDropTarget *target = NULL;
  g_autoslist(GFile) files = NULL;
  GValue value = G_VALUE_INIT;
  gboolean accepted = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && target == NULL; i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (c))
        target = GTK_DROP_TARGET (c);
    }
  g_assert_nonnull (target);
  files = g_slist_prepend (files, g_object_ref (file));
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &accepted);
  g_value_unset (&value);
  g_assert_true (accepted);
}

static const HrBucketBar *
measured_bar (HrWindow   *window,
              const char *name,
              guint      *n_measured)
{
  HrBucketChartData *data = hr_chart_view_get_data (hr_test_get_chart (window,
                                                                         HR_CHART_KIND_BUCKETS));
  const HrBucketBar *found = NULL;

  *n_measured = 0;
  for (guint i = 0; i < data->bars->len; i++)
    {
      const HrBucketBar *bar = g_ptr_array_index (data->bars, i);

      if (!bar->measured)
        continue;
      (*n_measured)++;
      if (strstr (bar->label, name) != NULL)
        found = bar;
    }
  return found;
}

static gboolean
curve_has_point (HrWindow *window,
                 double    batch,
                 double    bytes,
                 HrMetric  metric,
                 gboolean  foreign)
{
  HrCurveChartData *data = hr_chart_view_get_data (hr_test_get_chart (window,
                                                                        HR_CHART_KIND_CURVE));

  for (guint i = 0; i < data->measured->len; i++)
    {
      const HrCurvePoint *p = &g_array_index (data->measured, HrCurvePoint, i);

      if (p->batch == batch && p->bytes == bytes && p->metric == metric && p->foreign == foreign)
        return TRUE;
    }
  return FALSE;
}

/* The bar holds what was live at the allocated peak, bucket by bucket
 * as the generator kept it, the reserve that held no tensor then in the
 * overhead, and adds up to what was reserved at that moment. */
static void
assert_bar_is (const HrBucketBar *bar,
               JsonObject        *dev)
{
  JsonObject *buckets = json_object_get_object_member (dev, "buckets");
  double reserved = json_object_get_int_member (dev, "reserved_at_allocated_peak");
  double allocated = json_object_get_int_member (dev, "allocated_peak");

  g_assert_nonnull (bar);
  g_assert_cmpfloat (bar->bytes[HR_BUCKET_WEIGHTS], ==,
                     json_object_get_int_member (buckets, "weights"));
  g_assert_cmpfloat (bar->bytes[HR_BUCKET_GRADIENTS], ==,
                     json_object_get_int_member (buckets, "gradients"));
  g_assert_cmpfloat (bar->bytes[HR_BUCKET_OPTIMIZER], ==,
                     json_object_get_int_member (buckets, "optimizer"));
  g_assert_cmpfloat (bar->bytes[HR_BUCKET_ACTIVATIONS], ==,
                     json_object_get_int_member (buckets, "activations"));
  g_assert_cmpfloat (bar->bytes[HR_BUCKET_OVERHEAD], ==,
                     json_object_get_int_member (buckets, "overhead") + reserved - allocated);
  g_assert_cmpfloat (bar->unattributed, ==, json_object_get_int_member (buckets, "unattributed"));
  g_assert_cmpfloat (hr_bucket_bar_total (bar), ==, reserved);
  g_assert_cmpfloat (bar->need, ==, reserved);
}

static void
test_import_and_drop (void)
{
  HrWindow *window = new_window ();
  g_autoptr(GFile) train = data_file ("HEADROOM_SNAPSHOT_DATA", "snapshot-train.pickle");
  g_autoptr(GFile) train16 = data_file ("HEADROOM_SNAPSHOT_DATA", "snapshot-train-b16.pickle");
  g_autoptr(JsonObject) dev = expected_device ("HEADROOM_SNAPSHOT_DATA", "snapshot-train");
  g_autoptr(JsonObject) dev16 = expected_device ("HEADROOM_SNAPSHOT_DATA",
                                                 "snapshot-train-b16");
  HrChartView *buckets = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  HrChartView *curve = hr_test_get_chart (window, HR_CHART_KIND_CURVE);
  HrAnalysis *analysis;
  const HrBucketBar *bar;
  guint n_measured;

  /* By the Import… button: read in a worker thread, as a click reads it. */
  click_import (window, train);
  wait_for_measurements (window, 1);
  analysis = hr_test_analysis (window);
  g_assert_cmpuint (hr_analysis_get_n_measurements (analysis), ==, 1);
  g_assert_nonnull (hr_analysis_get_measurement (analysis, 0)->measurement->snapshot);

  /* The measured bar, exact to the byte, beside the estimate's. */
  bar = measured_bar (window, "snapshot-train.pickle", &n_measured);
  g_assert_cmpuint (n_measured, ==, 1);
  assert_bar_is (bar, dev);
  g_assert_nonnull (bar->card);
  g_assert_true (g_str_has_suffix (bar->label, "✗"));
  /* (numbers in the locale's format: the de_DE setup writes 0,1) */
  g_assert_nonnull (strstr (hr_chart_view_get_summary (buckets),
                            "measured (snapshot-train.pickle) ✗: Peak 0"));
  g_assert_nonnull (strstr (strstr (hr_chart_view_get_summary (buckets),
                                    "measured (snapshot-train.pickle) ✗: "),
                            " GiB on GeForce RTX 4090 (fits"));
  g_assert_nonnull (strstr (hr_chart_view_get_summary (buckets), "1 measurement drawn"));

  /* The peak on the curve at the micro-batch the snapshot ran (8), the
   * allocated and the reserved one, struck through: it says it ran
   * another model (tiny-test) than the scenario's SmolVLA. */
  g_assert_true (curve_has_point (window, 8, json_object_get_int_member (dev, "allocated_peak"),
                                  HR_METRIC_ALLOCATED, TRUE));
  g_assert_true (curve_has_point (window, 8, json_object_get_int_member (dev, "reserved_peak"),
                                  HR_METRIC_RESERVED, TRUE));
  g_assert_nonnull (strstr (hr_chart_view_get_summary (curve), "another setup: model"));
  g_assert_true (hr_analysis_get_measurement (analysis, 0)->match->differs);

  /* The measurement's row says so, and sets the peak and the buckets
   * beside the estimate at that micro-batch. */
  g_assert_true (has_text (window, "Measured on another setup: model tiny-test"));
  g_assert_true (has_text (window, "Measured peak on GPU 0 at micro-batch 8"));
  g_assert_true (has_text (window, "Measured · estimate "));
  g_assert_true (has_text (window, "the CUDA context is outside a snapshot"));
  g_assert_true (has_text (window, "train.py:70 train_step"));
  /* one snapshot cannot calibrate, and the switch says what would */
  g_assert_false (hr_analysis_can_calibrate (analysis));
  g_assert_true (has_text (window, "A snapshot is one run at one micro-batch"));
  hr_test_set_use_calibration (window, TRUE);
  g_assert_false (hr_test_get_calibrated (window));

  /* Dropped on the window: the second, at micro-batch 16; two of another
   * setup make no calibration. */
  drop_file (window, train16);
  wait_for_measurements (window, 2);
  analysis = hr_test_analysis (window);
  g_assert_cmpuint (hr_analysis_get_n_measurements (analysis), ==, 2);
  bar = measured_bar (window, "snapshot-train-b16.pickle", &n_measured);
  g_assert_cmpuint (n_measured, ==, 2);
  assert_bar_is (bar, dev16);
  g_assert_true (curve_has_point (window, 16,
                                  json_object_get_int_member (dev16, "allocated_peak"),
                                  HR_METRIC_ALLOCATED, TRUE));
  /* (the estimate at micro-batch 16 beside it) */
  g_assert_nonnull (strstr (hr_chart_view_get_summary (buckets), "estimate, micro-batch 16"));
  g_assert_false (hr_analysis_can_calibrate (analysis));
  g_assert_false (hr_test_get_calibrated (window));

  hr_test_remove_measurement (window, 0);
  hr_test_remove_measurement (window, 0);
  g_assert_null (measured_bar (window, "snapshot", &n_measured));
  g_assert_cmpuint (n_measured, ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Snapshots of SmolVLA's own setup at micro-batch 8 and 16 (as the
 * probe's --snapshot writes them) make a sweep that calibrates. */
static void
test_calibration (void)
{
  HrWindow *window = new_window ();
  g_autoptr(GFile) b8 = data_file ("HEADROOM_WINDOW_SNAPSHOTS", "smolvla-b8.pickle");
  g_autoptr(GFile) b16 = data_file ("HEADROOM_WINDOW_SNAPSHOTS", "smolvla-b16.pickle");
  g_autoptr(GFile) foreign = data_file ("HEADROOM_SNAPSHOT_DATA", "snapshot-train.pickle");
  g_autoptr(JsonObject) dev8 = expected_device ("HEADROOM_WINDOW_SNAPSHOTS", "smolvla-b8");
  g_autoptr(JsonObject) dev16 = expected_device ("HEADROOM_WINDOW_SNAPSHOTS", "smolvla-b16");
  g_auto(GStrv) before = hr_test_dup_verdicts (window);
  g_auto(GStrv) after = NULL;
  HrAnalysis *analysis;
  const HrAnalysisMeasurement *m;
  const HrBucketBar *bar;
  guint n_measured;

  click_import (window, b8);
  wait_for_measurements (window, 1);
  analysis = hr_test_analysis (window);
  g_assert_false (hr_analysis_get_measurement (analysis, 0)->match->differs);
  g_assert_true (has_text (window, "Measured for this scenario's setup"));
  bar = measured_bar (window, "smolvla-b8.pickle", &n_measured);
  assert_bar_is (bar, dev8);
  g_assert_false (g_str_has_suffix (bar->label, "✗"));
  g_assert_true (curve_has_point (window, 8, json_object_get_int_member (dev8, "allocated_peak"),
                                  HR_METRIC_ALLOCATED, FALSE));
  g_assert_false (hr_analysis_can_calibrate (analysis));

  drop_file (window, b16);
  wait_for_measurements (window, 2);
  analysis = hr_test_analysis (window);
  /* the two files, and the sweep they make together */
  g_assert_cmpuint (hr_analysis_get_n_measurements (analysis), ==, 3);
  m = hr_analysis_get_measurement (analysis, 2);
  g_assert_nonnull (m->fit);
  g_assert_false (m->match->differs);
  g_assert_true (m->match->can_calibrate);
  g_assert_true (hr_analysis_can_calibrate (analysis));
  g_assert_true (has_text (window, "Snapshots smolvla-b8.pickle, smolvla-b16.pickle, as one "
                                   "sweep"));
  /* its fit passes through the two peaks: the slope is theirs */
  g_assert_cmpfloat_with_epsilon (m->fit->per_sample,
                                  (json_object_get_int_member (dev16, "allocated_peak") -
                                   json_object_get_int_member (dev8, "allocated_peak")) / 8.0,
                                  1.0);
  bar = measured_bar (window, "smolvla-b16.pickle", &n_measured);
  g_assert_cmpuint (n_measured, ==, 2);
  assert_bar_is (bar, dev16);

  hr_test_set_use_calibration (window, TRUE);
  g_assert_true (hr_test_get_calibrated (window));
  /* (the switch remade the analysis: m is gone) */
  m = hr_analysis_get_calibration_measurement (hr_test_analysis (window));
  g_assert_nonnull (m);
  g_assert_cmpstr (m->measurement->name, ==, "snapshots at micro-batch 8, 16");
  g_assert_nonnull (strstr (hr_analysis_get_headline (hr_test_analysis (window)),
                            "calibrated"));
  g_assert_true (has_text (window, "Calibrated to the snapshots smolvla-b8.pickle, "
                                   "smolvla-b16.pickle"));
  after = hr_test_dup_verdicts (window);
  g_assert_cmpstr (after[0], !=, before[0]);

  /* A snapshot of another model joins no sweep and leaves the
   * calibration as it was. */
  click_import (window, foreign);
  wait_for_measurements (window, 3);
  analysis = hr_test_analysis (window);
  g_assert_cmpuint (hr_analysis_get_n_measurements (analysis), ==, 4);
  g_assert_true (hr_test_get_calibrated (window));

  /* Without the second micro-batch there is no sweep, and no calibration. */
  hr_test_remove_measurement (window, 1);
  g_assert_cmpuint (hr_analysis_get_n_measurements (hr_test_analysis (window)), ==, 2);
  g_assert_false (hr_test_get_calibrated (window));
  g_assert_false (has_text (window, "Calibrated to the snapshots"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static const char *
template_label (GtkWidget  *widget,
                GType       type,
                const char *name)
{
  return gtk_label_get_text (GTK_LABEL (gtk_widget_get_template_child (widget, type, name)));
}

/* The window and headroom-cli show the same figures for the scenario
 * calibrated to two snapshots of it: `headroom-cli estimate FILE
 * --measurements b8 --measurements b16 --calibrate --json` against what
 * the results view shows once the Measurements group's switch is on. */
static void
test_same_as_cli (void)
{
  HrWindow *window = new_window ();
  g_autofree char *scenario = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                                "smolvla-4090.json", NULL);
  g_autoptr(GFile) b8 = data_file ("HEADROOM_WINDOW_SNAPSHOTS", "smolvla-b8.pickle");
  g_autoptr(GFile) b16 = data_file ("HEADROOM_WINDOW_SNAPSHOTS", "smolvla-b16.pickle");
  g_autofree char *b8_path = g_file_get_path (b8);
  g_autofree char *b16_path = g_file_get_path (b16);
  const char *argv[] = {
    g_getenv ("HEADROOM_CLI"), "estimate", scenario, "--measurements", b8_path,
    "--measurements", b16_path, "--calibrate", "--json", NULL,
  };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *total = NULL;
  g_autofree char *range = NULL;
  g_autofree char *allocated = NULL;
  g_autofree char *reserved = NULL;
  g_autofree char *verdict = NULL;
  g_auto(GStrv) verdicts = NULL;
  JsonObject *root, *per_gpu, *fit;
  GtkWidget *results = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_RESULTS_VIEW);
  GtkWidget *group = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_MEASUREMENTS_GROUP);
  const char *headline, *detail;
  int status;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_get_boolean_member (root, "calibrated"));
  per_gpu = json_object_get_object_member (root, "per_gpu");
  fit = json_object_get_object_member (root, "fit");

  g_assert_true (hr_window_add_measurement_file (window, b8, &error));
  g_assert_true (hr_window_add_measurement_file (window, b16, &error));
  g_assert_no_error (error);
  g_assert_nonnull (group);
  hr_measurements_group_set_use_calibration (HR_MEASUREMENTS_GROUP (group), TRUE);
  g_assert_true (hr_test_get_calibrated (window));
  /* the one analysis, handed down to both */
  {
    HrAnalysis *shown = NULL;
    HrAnalysis *measured = NULL;

    g_object_get (results, "analysis", &shown, NULL);
    g_object_get (group, "analysis", &measured, NULL);
    g_assert_true (shown == hr_test_analysis (window));
    g_assert_true (measured == hr_test_analysis (window));
    hr_analysis_unref (shown);
    hr_analysis_unref (measured);
  }

  /* the figures, as the window formats them (GiB, its default unit) */
  total = hr_size_format (json_object_get_int_member (per_gpu, "total"), HR_SIZE_GIB);
  range = hr_size_format_range (json_object_get_int_member (per_gpu, "low"),
                                json_object_get_int_member (per_gpu, "high"), HR_SIZE_GIB);
  allocated = hr_size_format (json_object_get_int_member (per_gpu, "allocated_peak"),
                              HR_SIZE_GIB);
  reserved = hr_size_format (json_object_get_int_member (per_gpu, "reserved_peak"),
                             HR_SIZE_GIB);
  headline = template_label (results, HR_TYPE_RESULTS_VIEW, "peak_label");
  detail = template_label (results, HR_TYPE_RESULTS_VIEW, "peak_detail_label");
  g_test_message ("cli: %s, %s, allocated %s, reserved %s; window: %s / %s", total, range,
                  allocated, reserved, headline, detail);
  g_assert_nonnull (strstr (headline, total));
  g_assert_nonnull (strstr (headline, "calibrated"));
  g_assert_nonnull (strstr (detail, range));
  g_assert_nonnull (strstr (detail, allocated));
  g_assert_nonnull (strstr (detail, reserved));
  g_assert_nonnull (strstr (detail, "Calibrated to the snapshots smolvla-b8.pickle, "
                                    "smolvla-b16.pickle"));
  /* the scenario's own card leads the verdicts, in the CLI's words */
  verdicts = hr_results_view_dup_verdicts (HR_RESULTS_VIEW (results));
  verdict = g_strdup_printf (": %s", json_object_get_string_member (fit, "verdict"));
  g_assert_true (g_str_has_suffix (verdicts[0], verdict));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Under XLA's preallocated pool the headline is the run's use of the
 * pool, and the range beside it is that use's, as `fits --json` gives
 * it (need_low .. need_high), not the pool's single figure. */
static void
test_pool_range (void)
{
  HrWindow *window = new_window ();
  g_autofree char *scenario = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                                "dreamerv3-5090d.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (scenario);
  const char *argv[] = { g_getenv ("HEADROOM_CLI"), "fits", scenario, "--json", NULL };
  g_autofree char *out = NULL;
  g_autofree char *range = NULL;
  g_autofree char *need = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  GtkWidget *results = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_RESULTS_VIEW);
  JsonObject *own;
  const char *headline, *detail;
  int status;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  own = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "gpus"),
    0);
  need = hr_size_format (json_object_get_int_member (own, "need"), HR_SIZE_GIB);
  range = hr_size_format_range (json_object_get_int_member (own, "need_low"),
                                json_object_get_int_member (own, "need_high"), HR_SIZE_GIB);

  g_assert_true (hr_window_load_file (window, file, &error));
  g_assert_no_error (error);
  headline = template_label (results, HR_TYPE_RESULTS_VIEW, "peak_label");
  detail = template_label (results, HR_TYPE_RESULTS_VIEW, "peak_detail_label");
  g_test_message ("cli: %s, %s; window: %s / %s", need, range, headline, detail);
  g_assert_nonnull (strstr (headline, need));
  g_assert_nonnull (strstr (detail, range));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  /* /window-snapshot/same-as-cli compares the window's sentences with
   * the CLI's --json, which never changes with the language: the window
   * speaks English with C's numbers here, under the de_DE setup too
   * (test-window-german covers the translation). */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-window-snapshot: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  g_test_add_func ("/window-snapshot/import-and-drop", test_import_and_drop);
  g_test_add_func ("/window-snapshot/calibration", test_calibration);
  g_test_add_func ("/window-snapshot/same-as-cli", test_same_as_cli);
  g_test_add_func ("/window-snapshot/pool-range", test_pool_range);
  return g_test_run ();
}
