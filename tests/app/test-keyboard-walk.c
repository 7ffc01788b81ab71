/* test-keyboard-walk.c: a whole session with the keyboard alone
 *
 * With the real application (its accelerators are hr-application.c's):
 * open an example from the start page, change the model, the micro-batch
 * and the GPUs, undo, import a plain CSV through the column-mapping page
 * (Ctrl+I, then each choice from its list by Up/Down and Enter), export
 * the curve as a one-column PDF (3.5 in wide), and run the advisor to a
 * recommendation.  Keys are dispatched as GTK dispatches them to
 * shortcuts (hr-key-test.h); the file choosers answer with a path, as a
 * user typing it would.
 *
 * Runs on a real display (Xvfb in CI); without one the test fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "hr-key-test.h"
#include "hr-app-test.h"
#include "hr-advisor-dialog.h"
#include "hr-application.h"
#include "hr-csv-mapping-dialog.h"
#include "hr-export-dialog.h"
#include "hr-file-chooser.h"
#include "hr-window.h"

static char *tmp_dir;

/* A visible popover inside @widget (an AdwComboRow's list), or NULL. */
static GtkWidget *
shown_popover (GtkWidget *widget)
{
  if (GTK_IS_POPOVER (widget) && gtk_widget_get_visible (widget))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = shown_popover (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Tab to the combo row @row, Enter opens its list, Up or Down to @item,
 * Enter picks it and closes the list. */
static void
choose_by_keys (GtkWindow  *window,
                GtkWidget  *row,
                const char *item)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (row));
  guint target = G_MAXUINT, selected;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GObject) s = g_list_model_get_item (model, i);

      if (GTK_IS_STRING_OBJECT (s)
          && g_str_equal (gtk_string_object_get_string (GTK_STRING_OBJECT (s)), item))
        target = i;
    }
  g_assert_cmpuint (target, !=, G_MAXUINT);

  tab_to (window, row, 40);
  g_assert_true (shows_focus (window));
  g_assert_true (press (window, "Return"));
  wait_ms (200);
  g_assert_nonnull (shown_popover (row));
  /* the list opens on the item selected */
  selected = adw_combo_row_get_selected (ADW_COMBO_ROW (row));
  for (guint i = selected; i < target; i++)
    g_assert_true (press (window, "Down"));
  for (guint i = selected; i > target; i--)
    g_assert_true (press (window, "Up"));
  g_assert_true (press (window, "Return"));
  wait_ms (200);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row)), ==, target);
  g_assert_null (shown_popover (row));
}

static GtkWidget *
template_child (GtkWindow  *window,
                GType       type,
                const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (window), type, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

/* The window transient for @parent that opened last, or NULL. */
static GtkWindow *
find_dialog_of (GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  GtkWindow *dialog = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (GTK_IS_WINDOW (item) && (GtkWindow *) item != parent
          && gtk_window_get_transient_for (GTK_WINDOW (item)) == parent
          && gtk_widget_get_visible (GTK_WIDGET (item)))
        dialog = GTK_WINDOW (item);
    }
  return dialog;
}

/* The row of the start page that opens @name. */
static gboolean
focus_is_row_for (GtkWindow  *window,
                  const char *name)
{
  GtkWidget *focus = focus_of (window);
  GVariant *target;

  for (; focus != NULL && !GTK_IS_LIST_BOX_ROW (focus); focus = gtk_widget_get_parent (focus))
    ;
  if (focus == NULL || !GTK_IS_ACTIONABLE (focus))
    return FALSE;
  target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (focus));
  return target != NULL && g_str_has_suffix (g_variant_get_string (target, NULL), name);
}

/* 1. The start page: Tab to an example, Enter opens it. */
static void
open_example (HrWindow *window)
{
  GtkWindow *win = GTK_WINDOW (window);

  g_assert_true (hr_test_start_page_visible (window));
  for (guint i = 0; i < 40 && !focus_is_row_for (win, "smolvla-4090.json"); i++)
    press_tab (win);
  g_assert_true (focus_is_row_for (win, "smolvla-4090.json"));
  g_assert_true (press (win, "Return"));
  g_assert_false (hr_test_start_page_visible (window));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");
}

/* 2. The model: Ctrl+F, type, Enter. */
static void
change_model (HrWindow *window)
{
  GtkWindow *win = GTK_WINDOW (window);
  GtkWidget *search;

  g_assert_true (press (win, "<Control>f"));
  wait_ms (100);
  for (search = focus_of (win); search != NULL && !GTK_IS_SEARCH_ENTRY (search);
       search = gtk_widget_get_parent (search))
    ;
  g_assert_nonnull (search);
  gtk_editable_set_text (GTK_EDITABLE (search), "pi0.5");
  iterate ();
  g_assert_true (press (win, "Return"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "pi05");
}

/* 3. The micro-batch: Tab to it, Up twice. */
static void
change_micro_batch (HrWindow *window)
{
  GtkWindow *win = GTK_WINDOW (window);
  guint before = hr_test_scenario (window)->micro_batch;

  tab_to (win, hr_test_setting_widget (window, "micro_batch"), 60);
  g_assert_true (shows_focus (win));
  g_assert_true (press (win, "Up"));
  g_assert_true (press (win, "Up"));
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, before + 2);
}

/* 4. The GPUs: Shift+Tab back to the picker, Enter opens it, type to
 * search, Tab to a card, Space ticks it, and the list closes. */
static void
add_gpu (HrWindow *window)
{
  GtkWindow *win = GTK_WINDOW (window);
  GtkWidget *button = NULL;
  GtkWidget *popover;
  guint n_gpus;

  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    n_gpus = g_strv_length (ids);
    g_assert_false (g_strv_contains ((const char * const *) ids, "rtx-3090"));
  }
  for (guint i = 0; i < 60 && button == NULL; i++)
    {
      GtkWidget *focus = focus_of (win);

      for (; focus != NULL && !GTK_IS_MENU_BUTTON (focus); focus = gtk_widget_get_parent (focus))
        ;
      if (focus != NULL
          && g_strcmp0 (gtk_widget_get_tooltip_text (focus), "Choose the GPUs to Compare") == 0)
        button = focus;
      else
        {
          g_assert_true (gtk_widget_child_focus (GTK_WIDGET (win), GTK_DIR_TAB_BACKWARD));
          iterate ();
        }
    }
  g_assert_nonnull (button);
  g_assert_true (press (win, "Return"));
  /* a button pressed by a key shows itself pressed for a moment first */
  wait_ms (400);
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  g_assert_true (gtk_widget_get_visible (popover));
  gtk_editable_set_text (GTK_EDITABLE (focus_of (win)), "3090");
  /* a search entry tells of a change after a short pause */
  wait_ms (400);
  tick_first_row (win, popover);
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    g_assert_cmpuint (g_strv_length (ids), ==, n_gpus + 1);
    g_assert_true (g_str_has_prefix (ids[n_gpus], "rtx-3090"));
  }
}

/* 5. Undo: the card, the micro-batch, the model; redo the model. */
static void
undo_redo (HrWindow *window,
           guint     n_gpus,
           guint     micro_batch)
{
  GtkWindow *win = GTK_WINDOW (window);

  g_assert_true (press (win, "<Control>z"));
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    g_assert_cmpuint (g_strv_length (ids), ==, n_gpus);
  }
  g_assert_true (press (win, "<Control>z"));
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, micro_batch);
  g_assert_true (press (win, "<Control>z"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");
  g_assert_false (hr_test_modified (window));
  g_assert_true (press (win, "<Control><Shift>z"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "pi05");
}

/* 6. A plain batch,peak CSV: Ctrl+I, the mapping page opens (its columns
 * found by name), the unit from its list, Tab to Import, Enter. */
static void
import_csv (HrWindow *window)
{
  GtkWindow *win = GTK_WINDOW (window);
  g_autofree char *path = g_build_filename (tmp_dir, "walk-peaks.csv", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GtkWindow *dialog;
  gint64 deadline;

  g_assert_true (g_file_set_contents (path, "batch,peak\n1,9625.6\n2,10854.4\n4,13312\n", -1,
                                      NULL));
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 0);
  hr_file_chooser_set_test_answer (file);
  g_assert_true (press (win, "<Control>i"));
  wait_ms (300);
  hr_file_chooser_set_test_answer (NULL);
  dialog = find_dialog_of (win);
  g_assert_true (HR_IS_CSV_MAPPING_DIALOG (dialog));
  activate_window (dialog);

  /* nothing says the unit: Import waits for it */
  g_assert_false (hr_csv_mapping_dialog_get_can_import (HR_CSV_MAPPING_DIALOG (dialog)));
  choose_by_keys (dialog, template_child (dialog, HR_TYPE_CSV_MAPPING_DIALOG, "unit_row"), "MiB");
  g_assert_true (hr_csv_mapping_dialog_get_can_import (HR_CSV_MAPPING_DIALOG (dialog)));
  tab_to (dialog, gtk_window_get_default_widget (dialog), 40);
  g_assert_true (press (dialog, "Return"));

  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (hr_test_n_measurements (window) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (hr_test_n_measurements (window), ==, 1);
  g_assert_null (find_dialog_of (win));
}

/* The width and height of a PDF's first page, in points, from its
 * /MediaBox. */
static void
pdf_page_size (const char *path,
               double     *width,
               double     *height)
{
  g_autofree char *data = NULL;
  gsize length;
  const char *box;
  double v[4];
  char *end;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_true (g_str_has_prefix (data, "%PDF-"));
  /* (past compressed streams, which hold NUL bytes) */
  box = NULL;
  for (gsize i = 0; box == NULL && i + 9 <= length; i++)
    if (memcmp (data + i, "/MediaBox", 9) == 0)
      box = data + i;
  g_assert_nonnull (box);
  box = strchr (box, '[');
  g_assert_nonnull (box);
  end = (char *) box + 1;
  for (guint i = 0; i < 4; i++)
    {
      const char *start = end;

      v[i] = g_ascii_strtod (start, &end);
      g_assert_true (end != start);
    }
  *width = v[2] - v[0];
  *height = v[3] - v[1];
}

/* 7. Export: Ctrl+E, PDF and the one-column size from their lists, Tab
 * to Export, Enter (the chooser answers with the path). */
static void
export_column_pdf (HrWindow *window)
{
  GtkWindow *win = GTK_WINDOW (window);
  g_autofree char *path = g_build_filename (tmp_dir, "walk-column.pdf", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GtkWindow *dialog;
  double width, height;

  activate_window (win);
  g_assert_true (press (win, "<Control>e"));
  wait_ms (300);
  dialog = find_dialog_of (win);
  g_assert_true (HR_IS_EXPORT_DIALOG (dialog));
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  activate_window (dialog);
  choose_by_keys (dialog, template_child (dialog, HR_TYPE_EXPORT_DIALOG, "format_row"),
                  "PDF document");
  choose_by_keys (dialog, template_child (dialog, HR_TYPE_EXPORT_DIALOG, "size_row"),
                  "Single column, 3.5 × 2.5 in");
  hr_file_chooser_set_test_answer (file);
  tab_to (dialog, gtk_window_get_default_widget (dialog), 40);
  g_assert_true (press (dialog, "Return"));
  wait_ms (600);
  hr_file_chooser_set_test_answer (NULL);

  /* 3.5 × 2.5 in: 252 × 180 pt */
  pdf_page_size (path, &width, &height);
  g_assert_cmpfloat_with_epsilon (width, 3.5 * 72, 0.5);
  g_assert_cmpfloat_with_epsilon (height, 2.5 * 72, 0.5);
  /* the dialog closes once it has exported */
  if (dialog != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
      gtk_window_destroy (dialog);
    }
  g_unlink (path);
}

/* 8. The advisor: Ctrl+B, Enter on each question's focused answer (Up
 * to "Some hours most days" at the usage question, the path that asks
 * for numbers too, each reached by Tab and raised by Up) to the costed
 * list. */
static void
run_advisor (HrWindow *window)
{
  static const HrFact number_facts[] = {
    HR_FACT_HOURS_PER_DAY, HR_FACT_MONTHS, HR_FACT_BUDGET,
  };
  GtkWindow *win = GTK_WINDOW (window);
  HrAdvisorDialog *advisor;
  guint numbers_reached = 0;

  activate_window (win);
  g_assert_true (press (win, "<Control>b"));
  wait_ms (200);
  advisor = HR_ADVISOR_DIALOG (find_toplevel (HR_TYPE_ADVISOR_DIALOG));
  g_assert_nonnull (advisor);
  activate_window (GTK_WINDOW (advisor));
  for (guint steps = 0; steps < 20 && hr_advisor_dialog_get_advice (advisor) == NULL; steps++)
    {
      HrAdvisorWalk *walk = hr_advisor_dialog_get_walk (advisor);
      guint before = hr_advisor_walk_get_n_steps (walk);
      GtkWidget *answer;
      gint64 deadline;

      if (g_str_equal (hr_advisor_walk_get_current (walk)->id, "usage"))
        {
          GtkWidget *regular = hr_advisor_dialog_get_answer_row (advisor, 1);

          for (guint i = 0; i < 3 && focus_of (GTK_WINDOW (advisor)) != regular; i++)
            g_assert_true (press (GTK_WINDOW (advisor), "Up"));
          g_assert_true (focus_of (GTK_WINDOW (advisor)) == regular);
        }
      answer = focus_of (GTK_WINDOW (advisor));

      for (guint f = 0; f < G_N_ELEMENTS (number_facts); f++)
        {
          GtkSpinButton *spin = hr_advisor_dialog_get_number_spin (advisor, number_facts[f]);
          double value;

          if (spin == NULL)
            continue;
          tab_to (GTK_WINDOW (advisor), GTK_WIDGET (spin), 20);
          value = gtk_spin_button_get_value (spin);
          g_assert_true (press (GTK_WINDOW (advisor), "Up"));
          g_assert_cmpfloat (gtk_spin_button_get_value (spin), >, value);
          numbers_reached |= number_facts[f];
          for (guint i = 0; i < 20 && !within (focus_of (GTK_WINDOW (advisor)), answer); i++)
            {
              g_assert_true (gtk_widget_child_focus (GTK_WIDGET (advisor), GTK_DIR_TAB_BACKWARD));
              iterate ();
            }
          g_assert_true (within (focus_of (GTK_WINDOW (advisor)), answer));
        }

      g_assert_true (press (GTK_WINDOW (advisor), "Return"));
      deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
      while (hr_advisor_walk_get_n_steps (walk) == before
             && hr_advisor_dialog_get_advice (advisor) == NULL
             && g_get_monotonic_time () < deadline)
        g_main_context_iteration (NULL, TRUE);
    }
  g_assert_nonnull (hr_advisor_dialog_get_advice (advisor));
  g_assert_cmpuint (numbers_reached, ==,
                    HR_FACT_HOURS_PER_DAY | HR_FACT_MONTHS | HR_FACT_BUDGET);
  {
    g_auto(GStrv) lines = hr_advisor_dialog_dup_recommendation_summaries (advisor);

    g_assert_cmpuint (g_strv_length (lines), >, 0);
  }
  g_assert_true (press (GTK_WINDOW (advisor), "Escape"));
}

static void
test_walk (void)
{
  HrApplication *app = hr_application_new ();
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(GError) error = NULL;
  HrWindow *window;
  guint n_gpus, micro_batch;

  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app))
                           | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  /* no mapping remembered from before: the page must ask */
  g_settings_reset (settings, "csv-mappings");

  window = hr_window_new (GTK_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  hr_window_show_start_page (window);
  gtk_window_present (GTK_WINDOW (window));
  wait_ms (500);
  activate_window (GTK_WINDOW (window));

  open_example (window);
  micro_batch = hr_test_scenario (window)->micro_batch;
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    n_gpus = g_strv_length (ids);
  }
  change_model (window);
  change_micro_batch (window);
  add_gpu (window);
  undo_redo (window, n_gpus, micro_batch);
  import_csv (window);
  export_column_pdf (window);
  run_advisor (window);

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
  g_settings_reset (settings, "csv-mappings");
  g_object_unref (app);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check ())
    {
      g_printerr ("test-keyboard-walk: no display (run under xvfb-run)\n");
      return 1;
    }
  adw_init ();
  tmp_dir = g_dir_make_tmp ("headroom-keyboard-walk-XXXXXX", NULL);
  g_test_add_func ("/keyboard-walk/walk", test_walk);
  status = g_test_run ();
  {
    g_autofree char *csv = g_build_filename (tmp_dir, "walk-peaks.csv", NULL);

    g_unlink (csv);
    g_rmdir (tmp_dir);
  }
  return status;
}
