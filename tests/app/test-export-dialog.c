/* test-export-dialog.c: the export dialog, by keyboard and by its rows
 *
 * GTK 4.8 has no public way to synthesize a key press, so a key is
 * "pressed" the way GTK dispatches one to key bindings: from the focus
 * widget up to the window, the first shortcut whose trigger is the key
 * has its action activated.  Enter on the Chart row must open the row's
 * list, not the file chooser the Export button (the window's default)
 * opens.  The sizes the dialog offers are written as the files say them:
 * a PDF page of 3.5 × 2.5 in, an SVG of 3.5in, a PNG of the pixels a size
 * in centimetres at its resolution.
 *
 * With HEADROOM_EXPORT_SCREENSHOTS set to a folder, the dialog with its
 * preview at each size is written there as export-*.png.
 *
 * Runs on a real display (Xvfb in CI); without one the test fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "hr-export-dialog.h"
#include "hr-app-test.h"
#include "hr-screenshot.h"
#include "hr-window.h"

static char *tmp_dir;

static void
iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static HrWindow *
new_window (void)
{
  HrWindow *window = hr_window_new (NULL);
  HrChartView *view = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (view)) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), >, 0);
  return window;
}

static HrExportDialog *
new_dialog (HrWindow     *window,
            HrExportWhat  what)
{
  HrExportDialog *dialog = hr_export_dialog_new (GTK_WINDOW (window),
                                                 hr_test_analysis (window), what);
  GtkWidget *preview = hr_export_dialog_get_preview (dialog);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  gtk_window_present (GTK_WINDOW (dialog));
  while (gtk_widget_get_width (preview) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (preview), >, 0);
  iterate ();
  return dialog;
}

/* Presses @accelerator on @window's focus widget, as GTK's key bindings
 * see it; FALSE when no binding takes it. */
static gboolean
press (GtkWindow  *window,
       const char *accelerator)
{
  g_autoptr(GtkShortcutTrigger) key = gtk_shortcut_trigger_parse_string (accelerator);
  GtkWidget *widget = gtk_root_get_focus (GTK_ROOT (window));

  g_assert_nonnull (key);
  if (widget == NULL)
    widget = GTK_WIDGET (window);
  for (; widget != NULL; widget = gtk_widget_get_parent (widget))
    {
      g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

      for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
        {
          g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

          if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
            continue;
          for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (controller)); k++)
            {
              g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller),
                                                                       k);
              GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);
              g_autofree char *keys = gtk_shortcut_trigger_to_string (trigger);
              g_auto(GStrv) each = g_strsplit (keys, "|", -1);
              gboolean match = FALSE;

              /* a trigger of several keys ("Return|KP_Enter") takes any */
              for (guint e = 0; each[e] != NULL && !match; e++)
                {
                  g_autoptr(GtkShortcutTrigger) one = gtk_shortcut_trigger_parse_string (each[e]);

                  match = one != NULL && gtk_shortcut_trigger_equal (one, key);
                }
              if (!match)
                continue;
              if (gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut),
                                                GTK_SHORTCUT_ACTION_EXCLUSIVE, widget,
                                                gtk_shortcut_get_arguments (shortcut)))
                {
                  iterate ();
                  return TRUE;
                }
            }
        }
    }
  return FALSE;
}

static GtkWidget *
find_popover (GtkWidget *widget)
{
  if (GTK_IS_POPOVER (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_popover (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
count_click (GtkButton *button,
             gpointer   user_data)
{
  (*(guint *) user_data)++;
}

static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Enter on the Chart row opens the row's list; the Export button, the
 * window's default, is not clicked (its file chooser does not open). */
static void
test_enter_on_chart_row (void)
{
  HrWindow *window = new_window ();
  HrExportDialog *dialog = new_dialog (window, HR_EXPORT_WHAT_CURVE);
  GtkWidget *row = hr_export_dialog_get_chart_row (dialog);
  GtkWidget *export = find_button (GTK_WIDGET (dialog), "_Export…");
  GtkWidget *popover;
  guint clicks = 0;

  g_assert_nonnull (export);
  g_signal_connect (export, "clicked", G_CALLBACK (count_click), &clicks);
  g_assert_true (gtk_widget_grab_focus (row));
  iterate ();
  g_assert_true (gtk_root_get_focus (GTK_ROOT (dialog)) == row);

  g_assert_true (press (GTK_WINDOW (dialog), "Return"));
  popover = find_popover (row);
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));
  g_assert_cmpuint (clicks, ==, 0);
  gtk_popover_popdown (GTK_POPOVER (popover));
  iterate ();

  /* the keypad's Enter too */
  gtk_widget_grab_focus (row);
  g_assert_true (press (GTK_WINDOW (dialog), "KP_Enter"));
  g_assert_true (gtk_widget_get_visible (find_popover (row)));
  g_assert_cmpuint (clicks, ==, 0);
  /* closed before the dialog goes, as Escape would */
  gtk_popover_popdown (GTK_POPOVER (find_popover (row)));
  {
    gint64 until = g_get_monotonic_time () + G_USEC_PER_SEC / 10;

    while (g_get_monotonic_time () < until)
      g_main_context_iteration (NULL, FALSE);
  }

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

static char *
read_file (const char *path,
           gsize      *size)
{
  char *data = NULL;

  g_assert_true (g_file_get_contents (path, &data, size, NULL));
  return data;
}

/* @needle in the @size bytes at @data, NULs and all. */
static gboolean
contains (const char *data,
          gsize       size,
          const char *needle)
{
  gsize n = strlen (needle);

  for (gsize i = 0; i + n <= size; i++)
    if (memcmp (data + i, needle, n) == 0)
      return TRUE;
  return FALSE;
}

static void
screenshot (HrExportDialog *dialog,
            const char     *name)
{
  const char *dir = g_getenv ("HEADROOM_EXPORT_SCREENSHOTS");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  if (dir == NULL)
    return;
  path = g_strdup_printf ("%s/export-%s.png", dir, name);
  /* a few frames, so that the dialog is drawn as set */
  {
    gint64 until = g_get_monotonic_time () + G_USEC_PER_SEC / 4;

    while (g_get_monotonic_time () < until)
      g_main_context_iteration (NULL, FALSE);
  }
  g_assert_true (hr_widget_screenshot (GTK_WIDGET (dialog), path, &error));
  g_assert_no_error (error);
}

/* Each size writes the page it says, with text as text in an SVG. */
static void
test_sizes (void)
{
  HrWindow *window = new_window ();
  HrExportDialog *dialog = new_dialog (window, HR_EXPORT_WHAT_CURVE);
  g_autoptr(GError) error = NULL;

  /* a column wide, as a PDF: 252 × 180 pt */
  {
    g_autofree char *path = g_build_filename (tmp_dir, "column.pdf", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autofree char *pdf = NULL;
    gsize size;

    hr_export_dialog_set_size (dialog, HR_CHART_SIZE_COLUMN);
    hr_export_dialog_set_format (dialog, HR_EXPORT_PDF);
    screenshot (dialog, "column");
    g_assert_true (hr_export_dialog_export_to (dialog, file, &error));
    g_assert_no_error (error);
    pdf = read_file (path, &size);
    g_assert_true (memcmp (pdf, "%PDF", 4) == 0);
    g_assert_true (contains (pdf, size, "/MediaBox [ 0 0 252 180 ]"));
  }

  /* the same as an SVG: the page in inches, the text as text; outlines
   * when asked */
  {
    g_autofree char *path = g_build_filename (tmp_dir, "column.svg", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autofree char *svg = NULL;

    hr_export_dialog_set_format (dialog, HR_EXPORT_SVG);
    g_assert_true (hr_export_dialog_export_to (dialog, file, &error));
    g_assert_no_error (error);
    svg = read_file (path, NULL);
    g_assert_nonnull (strstr (svg, "width=\"3.5in\" height=\"2.5in\""));
    g_assert_nonnull (strstr (svg, "<text "));
    g_assert_nonnull (strstr (svg, ">Micro-batch"));
    g_free (svg);

    hr_export_dialog_set_svg_outlines (dialog, TRUE);
    g_assert_true (hr_export_dialog_export_to (dialog, file, &error));
    g_assert_no_error (error);
    svg = read_file (path, NULL);
    g_assert_null (strstr (svg, "<text "));
    g_assert_nonnull (strstr (svg, "glyph"));
    hr_export_dialog_set_svg_outlines (dialog, FALSE);
  }

  /* a custom 8.9 × 6 cm PNG at its resolution (300 dpi): 1051 × 709 px */
  {
    g_autofree char *path = g_build_filename (tmp_dir, "custom.png", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autofree char *png = NULL;
    gsize size;
    guint32 w, h;

    hr_export_dialog_set_size (dialog, HR_CHART_SIZE_COLUMN);
    hr_export_dialog_set_custom_size (dialog, 8.9, 6, HR_LENGTH_CM);
    hr_export_dialog_set_format (dialog, HR_EXPORT_PNG);
    screenshot (dialog, "custom");
    g_assert_true (hr_export_dialog_export_to (dialog, file, &error));
    g_assert_no_error (error);
    png = read_file (path, &size);
    g_assert_cmpuint (size, >, 24);
    memcpy (&w, png + 16, 4);
    memcpy (&h, png + 20, 4);
    g_assert_cmpuint (GUINT32_FROM_BE (w), ==, 1051);
    g_assert_cmpuint (GUINT32_FROM_BE (h), ==, 709);
  }

  /* a slide and a poster preview without trouble */
  hr_export_dialog_set_size (dialog, HR_CHART_SIZE_SLIDE);
  screenshot (dialog, "slide");
  hr_export_dialog_set_size (dialog, HR_CHART_SIZE_POSTER);
  screenshot (dialog, "poster");

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Every size preset is shown whole: the chosen one as the Size row's
 * subtitle (nothing beside the title to cut it short), each in the list,
 * and the dialog fits a 1366 × 768 screen. */
static void
test_presets_shown (void)
{
  HrWindow *window = new_window ();
  HrExportDialog *dialog = new_dialog (window, HR_EXPORT_WHAT_BUCKETS);
  AdwComboRow *row = ADW_COMBO_ROW (hr_export_dialog_get_size_row (dialog));
  GListModel *model = adw_combo_row_get_model (row);
  static const char * const wanted[] = { "3.5 × 2.5 in", "7 × 3.5 in", "Slide", "Custom" };
  int width = 0, height = 0, min_height = 0;

  g_assert_true (adw_combo_row_get_use_subtitle (row));
  for (guint i = 0; i < G_N_ELEMENTS (wanted); i++)
    {
      gboolean found = FALSE;

      for (guint k = 0; k < g_list_model_get_n_items (model); k++)
        found |= strstr (gtk_string_list_get_string (GTK_STRING_LIST (model), k),
                         wanted[i]) != NULL;
      g_assert_true (found);
    }
  for (guint k = 0; k + 1 < g_list_model_get_n_items (model); k++)
    {
      hr_export_dialog_set_size (dialog, (HrChartSizePreset) k);
      iterate ();
      g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                       gtk_string_list_get_string (GTK_STRING_LIST (model), k));
    }
  gtk_window_get_default_size (GTK_WINDOW (dialog), &width, &height);
  gtk_widget_measure (GTK_WIDGET (dialog), GTK_ORIENTATION_VERTICAL, width, &min_height, NULL,
                      NULL, NULL);
  g_assert_cmpint (width, <=, 1366);
  g_assert_cmpint (height, <=, 768 - 80);
  g_assert_cmpint (min_height, <=, height);
  screenshot (dialog, "presets");

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  tmp_dir = g_dir_make_tmp ("headroom-test-export-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-export-dialog: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  g_test_add_func ("/export-dialog/enter-on-chart-row", test_enter_on_chart_row);
  g_test_add_func ("/export-dialog/sizes", test_sizes);
  g_test_add_func ("/export-dialog/presets-shown", test_presets_shown);
  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (tmp_dir, name, NULL);

        g_remove (path);
      }
    g_rmdir (tmp_dir);
  }
  return status;
}
