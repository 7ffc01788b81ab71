/* test-keyboard.c: the window walked with the keyboard alone
 *
 * From the start page: open an example, change the model, the
 * micro-batch and the GPUs, undo, export a chart, and run the advisor to
 * its end (Tab to each number it asks for: hours a day, months, budget),
 * each by the keys a user presses.
 *
 * Keys are pressed as GTK dispatches them to shortcuts (hr-key-test.h);
 * typing sets a text field's text.  The test runs with the real
 * application, so the accelerators are those of hr-application.c.
 *
 * Runs on a real display (Xvfb in CI); without one the test fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "hr-advisor-dialog.h"
#include "hr-application.h"
#include "hr-file-chooser.h"
#include "hr-start-page.h"
#include "hr-app-test.h"
#include "hr-key-test.h"
#include "hr-window.h"

static char *tmp_dir;

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

static void
test_walk (void)
{
  HrApplication *app = hr_application_new ();
  g_autoptr(GError) error = NULL;
  HrWindow *window;
  GtkWindow *win;
  GtkWidget *batch;
  GtkWidget *gpu_button;
  GtkWidget *model_search;
  GtkWindow *dialog;
  HrAdvisorDialog *advisor;
  g_autofree char *export_path = g_build_filename (tmp_dir, "walk-buckets.png", NULL);
  g_autoptr(GFile) export_file = g_file_new_for_path (export_path);
  static const HrFact number_facts[] = {
    HR_FACT_HOURS_PER_DAY, HR_FACT_MONTHS, HR_FACT_BUDGET,
  };
  guint numbers_reached = 0;
  guint before_batch;
  guint n_gpus;
  guint steps;

  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app))
                           | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  window = hr_window_new (GTK_APPLICATION (app));
  win = GTK_WINDOW (window);
  gtk_window_set_default_size (win, 1400, 900);
  hr_window_show_start_page (window);
  gtk_window_present (win);
  wait_ms (500);
  activate_window (win);

  /* 1. The start page: Tab to an example, Enter opens it. */
  g_assert_true (hr_test_start_page_visible (window));
  for (guint i = 0; i < 40 && !focus_is_row_for (win, "smolvla-4090.json"); i++)
    press_tab (win);
  g_assert_true (focus_is_row_for (win, "smolvla-4090.json"));
  g_assert_true (press (win, "Return"));
  g_assert_false (hr_test_start_page_visible (window));
  /* an example opens as an untitled copy */
  g_assert_null (hr_test_file (window));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");

  /* 2. The model: Ctrl+F, type, Enter. */
  g_assert_true (press (win, "<Control>f"));
  wait_ms (100);
  model_search = focus_of (win);
  g_assert_nonnull (model_search);
  for (; model_search != NULL && !GTK_IS_SEARCH_ENTRY (model_search);
       model_search = gtk_widget_get_parent (model_search))
    ;
  g_assert_nonnull (model_search);
  gtk_editable_set_text (GTK_EDITABLE (model_search), "pi0.5");
  iterate ();
  g_assert_true (press (win, "Return"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "pi05");

  /* 3. The micro-batch: Tab to it, Up twice. */
  batch = hr_test_setting_widget (window, "micro_batch");
  before_batch = hr_test_scenario (window)->micro_batch;
  tab_to (win, batch, 60);
  g_assert_true (shows_focus (win));
  g_assert_true (press (win, "Up"));
  g_assert_true (press (win, "Up"));
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, before_batch + 2);

  /* 4. The GPUs: Shift+Tab back to the picker, Enter opens it, Tab to a
   * card, Space ticks it, Escape closes the list. */
  gpu_button = NULL;
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    n_gpus = g_strv_length (ids);
    g_assert_false (g_strv_contains ((const char * const *) ids, "rtx-3090"));
    g_assert_false (g_strv_contains ((const char * const *) ids, "rtx-3090-ti"));
  }
  for (guint i = 0; i < 60; i++)
    {
      GtkWidget *focus = focus_of (win);

      for (; focus != NULL && !GTK_IS_MENU_BUTTON (focus); focus = gtk_widget_get_parent (focus))
        ;
      if (focus != NULL && g_strcmp0 (gtk_widget_get_tooltip_text (focus),
                                      "Choose the GPUs to Compare") == 0)
        {
          gpu_button = focus;
          break;
        }
      g_assert_true (gtk_widget_child_focus (GTK_WIDGET (win), GTK_DIR_TAB_BACKWARD));
      iterate ();
    }
  g_assert_nonnull (gpu_button);
  g_assert_true (press (win, "Return"));
  /* A button pressed by a key shows itself pressed for a moment first. */
  wait_ms (400);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (gtk_menu_button_get_popover (
                                                       GTK_MENU_BUTTON (gpu_button)))));
  gtk_editable_set_text (GTK_EDITABLE (focus_of (win)), "3090");
  /* A search entry tells of a change after a short pause. */
  wait_ms (400);
  tick_first_row (win, GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (gpu_button))));
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    /* The first card the search found: an RTX 3090 or 3090 Ti. */
    g_assert_cmpuint (g_strv_length (ids), ==, n_gpus + 1);
    g_assert_true (g_str_has_prefix (ids[n_gpus], "rtx-3090"));
  }
  g_assert_true (hr_test_modified (window));

  /* 5. Undo: the card, then the micro-batch, then the model. */
  g_assert_true (press (win, "<Control>z"));
  {
    g_auto(GStrv) ids = hr_test_dup_gpu_ids (window);

    g_assert_cmpuint (g_strv_length (ids), ==, n_gpus);
  }
  g_assert_true (press (win, "<Control>z"));
  g_assert_cmpuint (hr_test_scenario (window)->micro_batch, ==, before_batch);
  g_assert_true (press (win, "<Control>z"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");
  g_assert_false (hr_test_modified (window));
  g_assert_true (press (win, "<Control><Shift>z"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "pi05");
  g_assert_true (hr_test_modified (window));

  /* 6. Export a chart: Ctrl+E, Enter exports (the chooser answers with
   * the path, as a user typing it would). */
  g_assert_true (press (win, "<Control>e"));
  wait_ms (200);
  dialog = NULL;
  {
    GListModel *toplevels = gtk_window_get_toplevels ();

    for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
      {
        g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

        if (GTK_IS_WINDOW (item) && (GtkWindow *) item != win
            && gtk_window_get_transient_for (GTK_WINDOW (item)) == win
            && gtk_widget_get_visible (GTK_WIDGET (item)))
          dialog = GTK_WINDOW (item);
      }
  }
  g_assert_nonnull (dialog);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  activate_window (dialog);
  hr_file_chooser_set_test_answer (export_file);
  /* Tab to the Export button (the dialog's default), Enter. */
  g_assert_nonnull (gtk_window_get_default_widget (dialog));
  tab_to (dialog, gtk_window_get_default_widget (dialog), 30);
  g_assert_true (press (dialog, "Return"));
  wait_ms (600);
  g_assert_true (g_file_test (export_path, G_FILE_TEST_IS_REGULAR));
  /* The dialog closes once it has exported. */
  if (dialog != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
      gtk_window_destroy (dialog);
    }
  hr_file_chooser_set_test_answer (NULL);

  /* 7. The advisor: Ctrl+B, then Enter on each question (the focused
   * answer) to the costed list. */
  activate_window (win);
  g_assert_true (press (win, "<Control>b"));
  wait_ms (200);
  advisor = HR_ADVISOR_DIALOG (find_toplevel (HR_TYPE_ADVISOR_DIALOG));
  g_assert_nonnull (advisor);
  activate_window (GTK_WINDOW (advisor));
  for (steps = 0; steps < 20 && hr_advisor_dialog_get_advice (advisor) == NULL; steps++)
    {
      HrAdvisorWalk *walk = hr_advisor_dialog_get_walk (advisor);
      guint before = hr_advisor_walk_get_n_steps (walk);
      GtkWidget *answer;
      gint64 deadline;

      /* At "Long-term, high-frequency use?", Up to "Some hours most
       * days": the path that asks for a budget too. */
      if (g_str_equal (hr_advisor_walk_get_current (walk)->id, "usage"))
        {
          GtkWidget *regular = hr_advisor_dialog_get_answer_row (advisor, 1);

          for (guint i = 0; i < 3 && focus_of (GTK_WINDOW (advisor)) != regular; i++)
            g_assert_true (press (GTK_WINDOW (advisor), "Up"));
          g_assert_true (focus_of (GTK_WINDOW (advisor)) == regular);
        }
      answer = focus_of (GTK_WINDOW (advisor));

      /* The numbers a question asks for (hours a day, months, budget)
       * are reached by Tab from its answers, show their focus, and take
       * Up; then Shift+Tab goes back to the answer. */
      for (guint f = 0; f < G_N_ELEMENTS (number_facts); f++)
        {
          GtkSpinButton *spin = hr_advisor_dialog_get_number_spin (advisor, number_facts[f]);
          double value;

          if (spin == NULL)
            continue;
          tab_to (GTK_WINDOW (advisor), GTK_WIDGET (spin), 20);
          g_assert_true (shows_focus (GTK_WINDOW (advisor)));
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
  /* every number field the walk asked for was reached by the keyboard */
  g_assert_cmpuint (numbers_reached & HR_FACT_HOURS_PER_DAY, !=, 0);
  g_assert_cmpuint (numbers_reached & HR_FACT_MONTHS, !=, 0);
  g_assert_cmpuint (numbers_reached & HR_FACT_BUDGET, !=, 0);
  {
    g_auto(GStrv) lines = hr_advisor_dialog_dup_recommendation_summaries (advisor);

    g_assert_cmpuint (g_strv_length (lines), >, 0);
  }
  g_assert_true (press (GTK_WINDOW (advisor), "Escape"));

  /* Closing with changes asks first; Discard closes. */
  gtk_window_destroy (win);
  iterate ();
  g_object_unref (app);
}

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

/* Enter and Space on a focused settings row do what the row is for, as
 * on any GNOME settings row: a drop-down opens its list, a number row
 * puts the focus in its number, a switch row flips its switch. */
static void
test_settings_rows (void)
{
  HrWindow *window = hr_window_new (NULL);
  GtkWindow *win = GTK_WINDOW (window);
  static const char *const keys[] = { "Return", "space" };
  guint n_settings;
  const HrSetting *settings = hr_settings_get_all (&n_settings);

  gtk_window_set_default_size (win, 1400, 900);
  gtk_window_present (win);
  wait_ms (300);
  activate_window (win);

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      const char *number_keys[] = { "micro_batch", "image_size" };
      GtkWidget *combo = hr_test_setting_row (window, "compute");
      GtkWidget *popover;
      GtkWidget *row;
      GtkWidget *sw;
      gboolean active;

      /* a drop-down: its list opens */
      gtk_widget_grab_focus (combo);
      iterate ();
      g_assert_true (focus_of (win) == combo);
      g_assert_true (press (win, keys[k]));
      wait_ms (100);
      popover = shown_popover (combo);
      g_assert_nonnull (popover);
      gtk_popover_popdown (GTK_POPOVER (popover));
      iterate ();

      /* a number: the focus goes into it, ready for digits or Up */
      for (guint n = 0; n < G_N_ELEMENTS (number_keys); n++)
        {
          row = hr_test_setting_row (window, number_keys[n]);
          if (!gtk_widget_get_visible (row))
            continue;
          gtk_widget_grab_focus (row);
          iterate ();
          g_assert_true (focus_of (win) == row);
          g_assert_true (press (win, keys[k]));
          g_assert_true (within (focus_of (win),
                                 hr_test_setting_widget (window, number_keys[n])));
          g_assert_true (shows_focus (win));
        }

      /* a switch: it flips (the first the scenario shows) */
      row = sw = NULL;
      for (guint i = 0; i < n_settings && row == NULL; i++)
        if (settings[i].kind == HR_SETTING_BOOLEAN
            && gtk_widget_get_visible (hr_test_setting_row (window, settings[i].key)))
          {
            row = hr_test_setting_row (window, settings[i].key);
            sw = hr_test_setting_widget (window, settings[i].key);
          }
      g_assert_nonnull (row);
      g_assert_true (GTK_IS_SWITCH (sw));
      active = gtk_switch_get_active (GTK_SWITCH (sw));
      gtk_widget_grab_focus (row);
      iterate ();
      g_assert_true (focus_of (win) == row);
      g_assert_true (press (win, keys[k]));
      /* (a switch flips at the end of its animation) */
      for (guint i = 0; i < 50 && gtk_switch_get_active (GTK_SWITCH (sw)) == active; i++)
        wait_ms (20);
      g_assert_cmpint (gtk_switch_get_active (GTK_SWITCH (sw)), !=, active);
    }
  gtk_window_destroy (win);
  iterate ();
}

/* A label showing @text (a part of it) under @widget. */
static gboolean
shows_label (GtkWidget  *widget,
             const char *text)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return gtk_widget_is_drawable (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (shows_label (c, text))
      return TRUE;
  return FALSE;
}

/* Ctrl+F, @search typed, Enter: the first model that matches. */
static void
choose_model (GtkWindow  *win,
              const char *search)
{
  GtkWidget *entry;

  g_assert_true (press (win, "<Control>f"));
  wait_ms (100);
  for (entry = focus_of (win); entry != NULL && !GTK_IS_SEARCH_ENTRY (entry);
       entry = gtk_widget_get_parent (entry))
    ;
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), search);
  iterate ();
  g_assert_true (press (win, "Return"));
  iterate ();
}

static JsonObject *
load_object (JsonParser *parser,
             const char *path)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* A model change keeps the run: on the Llama 3.1 LoRA example, "qwen 7b"
 * chosen by the keyboard and the scenario saved keeps every key the file
 * had (the name, the stack, the loss, the LoRA rank and modules, the
 * accumulation, the sequence length); one Ctrl+Z gives the old model back.
 * A model without a gated MLP cannot keep a list naming gate_proj: the
 * targets are reset, and a toast says so. */
static void
test_model_change_keeps_run (void)
{
  HrApplication *app = hr_application_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *example = g_build_filename (hr_start_page_get_examples_dir (),
                                               "llama-3.1-8b-lora-4090.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (example);
  g_autofree char *saved_path = g_build_filename (tmp_dir, "qwen-lora.json", NULL);
  g_autoptr(GFile) saved = g_file_new_for_path (saved_path);
  g_autoptr(JsonParser) before_parser = json_parser_new ();
  g_autoptr(JsonParser) after_parser = json_parser_new ();
  JsonObject *before;
  JsonObject *after;
  g_autoptr(GList) members = NULL;
  HrWindow *window;
  GtkWindow *win;

  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app))
                           | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  window = hr_window_new (GTK_APPLICATION (app));
  win = GTK_WINDOW (window);
  gtk_window_set_default_size (win, 1400, 900);
  gtk_window_present (win);
  wait_ms (300);
  activate_window (win);
  g_assert_true (hr_window_load_file (window, file, &error));
  g_assert_no_error (error);
  iterate ();

  choose_model (win, "qwen 7b");
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "qwen2.5-7b");
  g_assert_true (hr_window_save_file (window, saved, &error));
  g_assert_no_error (error);

  before = load_object (before_parser, example);
  after = load_object (after_parser, saved_path);
  members = json_object_get_members (before);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;
      JsonNode *old = json_object_get_member (before, key);

      g_assert_true (json_object_has_member (after, key));
      if (g_str_equal (key, "model"))
        g_assert_cmpstr (json_object_get_string_member (after, key), ==, "qwen2.5-7b");
      else if (g_str_equal (key, "gpu"))
        ;   /* written inline or by id: its id stays */
      else if (!json_node_equal (old, json_object_get_member (after, key)))
        g_error ("%s changed: %s -> %s", key, json_to_string (old, FALSE),
                 json_to_string (json_object_get_member (after, key), FALSE));
    }

  /* One Ctrl+Z: the old model and all it had. */
  g_assert_true (press (win, "<Control>z"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "llama-3.1-8b");
  g_assert_cmpuint (hr_test_scenario (window)->grad_accum, ==, 8);
  /* (what was saved is the Qwen scenario) */
  g_assert_true (hr_test_modified (window));

  /* T5's MLP has no gate (T5 v1.0: ReLU, not gated). */
  choose_model (win, "t5-base");
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "t5-base");
  g_assert_cmpint (hr_test_scenario (window)->lora_targets, !=, HR_LORA_TARGETS_CUSTOM);
  g_assert_cmpuint (hr_test_scenario (window)->lora_rank, ==, 8);
  g_assert_true (shows_label (GTK_WIDGET (win), "LoRA targets reset: T5-base has no gate_proj"));
  g_assert_true (press (win, "<Control>z"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "llama-3.1-8b");
  g_assert_cmpint (hr_test_scenario (window)->lora_targets, ==, HR_LORA_TARGETS_CUSTOM);

  gtk_window_destroy (win);
  iterate ();
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
      g_printerr ("test-keyboard: no display (run under xvfb-run)\n");
      return 1;
    }
  adw_init ();
  tmp_dir = g_dir_make_tmp ("headroom-keyboard-XXXXXX", NULL);
  g_test_add_func ("/keyboard/walk", test_walk);
  g_test_add_func ("/keyboard/settings-rows", test_settings_rows);
  g_test_add_func ("/keyboard/model-change-keeps-run", test_model_change_keeps_run);
  status = g_test_run ();
  {
    g_autofree char *png = g_build_filename (tmp_dir, "walk-buckets.png", NULL);

    g_unlink (png);
    g_rmdir (tmp_dir);
  }
  return status;
}
