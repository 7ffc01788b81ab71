/* test-csv-mapping.c: a plain CSV imported in the window through the
 * column-mapping page
 *
 * A batch,peak file says no unit: the import shows the mapping page, the
 * test picks the columns and the unit in its rows and presses Import, and
 * the window's points must be those `headroom-cli measure FILE --unit
 * MiB --json` reads.  A second file with the same header then imports
 * without asking.  Runs on a real display (Xvfb in CI); without one the
 * test fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>

#include "hr-app-test.h"
#include "hr-csv-mapping-dialog.h"
#include "hr-window.h"

static char *tmp_dir;

/* Lets a new window lay out and draw. */
static void
settle (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  gint64 drawn = 0;

  while (g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      if (gtk_widget_get_width (widget) > 0 && drawn == 0)
        drawn = g_get_monotonic_time ();
      if (drawn > 0 && g_get_monotonic_time () - drawn > G_USEC_PER_SEC / 2)
        break;
    }
  g_assert_cmpint (gtk_widget_get_width (widget), >, 0);
}

static HrWindow *
new_window (void)
{
  HrWindow *window = hr_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  settle (GTK_WIDGET (hr_test_get_chart (window, HR_CHART_KIND_BUCKETS)));
  return window;
}

static char *
write_csv (const char *name,
           const char *text)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

/* The mapping page on the screen, or NULL. */
static HrCsvMappingDialog *
find_dialog (void)
{
  g_autoptr(GList) windows = gtk_window_list_toplevels ();

  for (GList *l = windows; l != NULL; l = l->next)
    if (HR_IS_CSV_MAPPING_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

/* Runs the main loop until the window has @n measurements (a worker
 * thread reads them); with @no_dialog, fails if the mapping page shows
 * meanwhile. */
static void
wait_for_measurements (HrWindow *window,
                       guint     n,
                       gboolean  no_dialog)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (hr_test_n_measurements (window) < n && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      if (no_dialog)
        g_assert_null (find_dialog ());
    }
  g_assert_cmpuint (hr_test_n_measurements (window), ==, n);
}

static HrCsvMappingDialog *
wait_for_dialog (void)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  HrCsvMappingDialog *dialog = NULL;

  while ((dialog = find_dialog ()) == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_nonnull (dialog);
  settle (GTK_WIDGET (dialog));
  return dialog;
}

static GtkWidget *
child (HrCsvMappingDialog *dialog,
       const char         *name)
{
  GtkWidget *widget = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (dialog),
                                                                 HR_TYPE_CSV_MAPPING_DIALOG,
                                                                 name));

  g_assert_nonnull (widget);
  return widget;
}

/* Chooses @item in the combo row @name, as a user picks it from the list. */
static void
choose (HrCsvMappingDialog *dialog,
        const char         *name,
        const char         *item)
{
  AdwComboRow *row = ADW_COMBO_ROW (child (dialog, name));
  GListModel *model = adw_combo_row_get_model (row);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkStringObject) s = g_list_model_get_item (model, i);

      if (g_str_equal (gtk_string_object_get_string (s), item))
        {
          adw_combo_row_set_selected (row, i);
          return;
        }
    }
  g_error ("no item \"%s\" in the %s", item, name);
}

static const char *
label_text (HrCsvMappingDialog *dialog,
            const char         *name)
{
  return gtk_label_get_text (GTK_LABEL (child (dialog, name)));
}

/* The points `headroom-cli measure @path @args --json` reads, as
 * (batch, bytes) pairs. */
static GArray *
cli_points (const char *path,
            const char *unit)
{
  const char *cli = g_getenv ("HEADROOM_CLI");
  const char *argv[] = { cli, "measure", path, "--unit", unit, "--json", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  GArray *points = g_array_new (FALSE, FALSE, sizeof (double));
  JsonArray *array;
  int status;

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  array = json_object_get_array_member (
    json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                    "series"), 0), "points");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *p = json_array_get_object_element (array, i);
      double pair[2] = { json_object_get_double_member (p, "batch"),
                         json_object_get_double_member (p, "bytes") };

      g_array_append_vals (points, pair, 2);
    }
  return points;
}

static void
assert_points_equal (const HrMeasurement *m,
                     GArray              *expected)
{
  const HrMeasureSeries *s;

  g_assert_cmpuint (m->series->len, ==, 1);
  s = g_ptr_array_index (m->series, 0);
  g_assert_cmpuint (s->points->len * 2, ==, expected->len);
  for (guint i = 0; i < s->points->len; i++)
    {
      const HrMeasurePoint *p = &g_array_index (s->points, HrMeasurePoint, i);

      g_assert_cmpfloat (p->batch, ==, g_array_index (expected, double, 2 * i));
      /* the CLI's JSON writes whole bytes */
      g_assert_cmpfloat_with_epsilon (p->bytes, g_array_index (expected, double, 2 * i + 1), 0.5);
    }
}

/* The button labelled @label under @widget, or NULL. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static const HrMeasurement *
window_measurement (HrWindow *window,
                    guint     index)
{
  HrAnalysis *analysis = hr_test_analysis (window);

  g_assert_cmpuint (hr_analysis_get_n_measurements (analysis), >, index);
  return hr_analysis_get_measurement (analysis, index)->measurement;
}

static void
test_import_through_mapping (void)
{
  g_autofree char *path = write_csv ("peaks.csv",
                                     "batch,peak\n1,9625.6\n2,10854.4\n4,13312\n8,18227.2\n");
  g_autofree char *path2 = write_csv ("peaks-again.csv",
                                      "batch,peak\n2,4096\n16,8192\n");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) file2 = g_file_new_for_path (path2);
  g_autoptr(GArray) expected = cli_points (path, "MiB");
  g_autoptr(GArray) expected2 = cli_points (path2, "MiB");
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(GVariant) mappings = NULL;
  HrWindow *window = new_window ();
  HrCsvMappingDialog *dialog;
  const char *text;

  g_settings_reset (settings, "csv-mappings");
  hr_window_import_measurement (window, file);
  dialog = wait_for_dialog ();
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 0);

  /* the reader found the columns by name but no unit: Import waits */
  g_assert_false (hr_csv_mapping_dialog_get_can_import (dialog));
  g_assert_false (gtk_widget_get_sensitive (child (dialog, "import_button")));
  text = label_text (dialog, "error_label");
  g_assert_nonnull (strstr (text, "peaks.csv:1:"));
  g_assert_nonnull (strstr (text, "unit"));

  /* the same column twice is refused */
  choose (dialog, "batch_row", "peak");
  choose (dialog, "memory_row", "peak");
  choose (dialog, "unit_row", "MiB");
  g_assert_false (hr_csv_mapping_dialog_get_can_import (dialog));
  g_assert_nonnull (strstr (label_text (dialog, "error_label"), "same column"));

  choose (dialog, "batch_row", "batch");
  g_assert_true (hr_csv_mapping_dialog_get_can_import (dialog));
  g_assert_true (gtk_widget_get_sensitive (child (dialog, "import_button")));
  g_assert_false (gtk_widget_get_visible (child (dialog, "error_label")));
  g_assert_nonnull (strstr (label_text (dialog, "points_label"), "4 points"));
  text = label_text (dialog, "command_label");
  g_assert_nonnull (strstr (text, "headroom-cli measure peaks.csv"));
  g_assert_nonnull (strstr (text, "--unit MiB"));

  gtk_widget_activate (child (dialog, "import_button"));
  wait_for_measurements (window, 1, FALSE);
  g_assert_null (find_dialog ());
  assert_points_equal (window_measurement (window, 0), expected);

  /* remembered by the header line */
  mappings = g_settings_get_value (settings, "csv-mappings");
  g_assert_true (g_variant_lookup (mappings, "batch,peak", "&s", &text));
  g_assert_nonnull (strstr (text, "--unit MiB"));

  /* the next file with that header imports without asking */
  hr_window_import_measurement (window, file2);
  wait_for_measurements (window, 2, TRUE);
  assert_points_equal (window_measurement (window, 1), expected2);

  /* and so does one read at once (the command line's --measurements) */
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (hr_window_add_measurement_file (window, file2, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (hr_test_n_measurements (window), ==, 3);
    assert_points_equal (window_measurement (window, 2), expected2);
    hr_test_remove_measurement (window, 2);
    g_assert_cmpuint (hr_test_n_measurements (window), ==, 2);
  }

  /* a mapping remembered may be wrong: the toast's Change Mapping opens
   * the page set to it, and Import reads the file again in its place */
  {
    GtkWidget *change = NULL;
    const HrMeasureSeries *s;

    /* (after the first import's toast has gone) */
    for (gint64 deadline = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;
         change == NULL && g_get_monotonic_time () < deadline; )
      {
        g_main_context_iteration (NULL, FALSE);
        change = find_button (GTK_WIDGET (window), "_Change Mapping…");
      }

    g_assert_nonnull (change);
    /* clicked as soon as it shows: the toast is dismissed while it slides
     * in (hr-toasts.c) */
    g_signal_emit_by_name (change, "clicked");
    dialog = wait_for_dialog ();
    g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (child (dialog, "unit_row"))),
                      ==, 3);
    g_assert_true (hr_csv_mapping_dialog_get_can_import (dialog));
    choose (dialog, "unit_row", "GiB");
    gtk_widget_activate (child (dialog, "import_button"));
    wait_for_measurements (window, 2, FALSE);
    /* (the count stays: wait for the new measurement to be read) */
    for (gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
         g_get_monotonic_time () < deadline; )
      {
        s = g_ptr_array_index (window_measurement (window, 1)->series, 0);
        if (g_array_index (s->points, HrMeasurePoint, 0).bytes == 4096.0 * 1024 * 1024 * 1024)
          break;
        g_main_context_iteration (NULL, FALSE);
      }
    s = g_ptr_array_index (window_measurement (window, 1)->series, 0);
    g_assert_cmpfloat (g_array_index (s->points, HrMeasurePoint, 0).bytes, ==,
                       4096.0 * 1024 * 1024 * 1024);
    g_assert_cmpuint (hr_test_n_measurements (window), ==, 2);
    g_assert_null (find_dialog ());
    g_clear_pointer (&mappings, g_variant_unref);
    mappings = g_settings_get_value (settings, "csv-mappings");
    g_assert_true (g_variant_lookup (mappings, "batch,peak", "&s", &text));
    g_assert_nonnull (strstr (text, "--unit GiB"));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings, "csv-mappings");
}

/* Cancel loses nothing and imports nothing; a bad value further down is
 * named by its file, line and column when the whole file is read. */
static void
test_cancel_and_bad_value (void)
{
  g_autoptr(GString) text = g_string_new ("n;used_mb\n");
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  HrWindow *window = new_window ();
  HrCsvMappingDialog *dialog;
  gint64 deadline;

  /* more than the head the page reads, with a bad value past it */
  for (guint i = 1; i <= 12000; i++)
    g_string_append_printf (text, "%u;%u\n", i, 1000 + i);
  g_string_append (text, "12001;lots\n");
  path = write_csv ("long.csv", text->str);
  file = g_file_new_for_path (path);

  /* a KB column with "used" for a name, no batch name the reader knows */
  hr_window_import_measurement (window, file);
  dialog = wait_for_dialog ();
  gtk_window_close (GTK_WINDOW (dialog));
  deadline = g_get_monotonic_time () + G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (find_dialog ());
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 0);

  hr_window_import_measurement (window, file);
  dialog = wait_for_dialog ();
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (adw_combo_row_get_model (
                     ADW_COMBO_ROW (child (dialog, "delimiter_row")))), 0),
                   ==, "Detected: Semicolon");
  choose (dialog, "batch_row", "n");
  choose (dialog, "memory_row", "used_mb");
  /* the column's name says MB */
  choose (dialog, "unit_row", "As the column’s name says");
  g_assert_true (hr_csv_mapping_dialog_get_can_import (dialog));
  gtk_widget_activate (child (dialog, "import_button"));

  /* the error dialog names the line and the column */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  for (;;)
    {
      g_autoptr(GList) windows = gtk_window_list_toplevels ();
      AdwMessageDialog *error = NULL;

      for (GList *l = windows; l != NULL; l = l->next)
        if (ADW_IS_MESSAGE_DIALOG (l->data))
          error = l->data;
      if (error != NULL)
        {
          const char *body = adw_message_dialog_get_body (error);

          g_assert_nonnull (strstr (body, "long.csv:12002:7:"));
          g_assert_nonnull (strstr (body, "used_mb"));
          gtk_window_destroy (GTK_WINDOW (error));
          break;
        }
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  tmp_dir = g_dir_make_tmp ("headroom-test-csv-mapping-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-csv-mapping: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  g_test_add_func ("/csv-mapping/import-through-mapping", test_import_through_mapping);
  g_test_add_func ("/csv-mapping/cancel-and-bad-value", test_cancel_and_bad_value);
  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (tmp_dir, name, NULL);

        g_unlink (path);
      }
    g_rmdir (tmp_dir);
  }
  return status;
}
