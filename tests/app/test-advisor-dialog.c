/* test-advisor-dialog.c: the advisor wizard, walked by keyboard
 *
 * GTK 4.8 has no public way to synthesize a key press, so a key is
 * "pressed" the way GTK dispatches one to key bindings: from the focus
 * widget up to the window, the first shortcut whose trigger is the key
 * has its action activated (Enter on a list row, Down in a list, Enter
 * in a spin button's text, Alt+Left and Escape on the dialog).  Tab moves
 * the focus as GtkWindow's move-focus does; typing into a spin button
 * sets its text.  A click on the tree
 * goes through the same hit test as the click gesture.
 *
 * With HEADROOM_ADVISOR_SCREENSHOTS set to a folder, the three example
 * users' final steps are written there as advisor-*.png.
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
#include "hr-window.h"

static char *tmp_dir;

static void
iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

/* Presses @accelerator ("Return", "<Alt>Left") on @window's focus widget,
 * as GTK's key bindings see it.  FALSE when no binding takes it. */
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

              if (!gtk_shortcut_trigger_equal (trigger, key))
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

/* Types @text into @spin as a user does: click into it, then the keys. */
static void
type_into (HrAdvisorDialog *dialog,
           GtkSpinButton   *spin,
           const char      *text)
{
  g_assert_nonnull (spin);
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (spin)));
  gtk_editable_set_text (GTK_EDITABLE (spin), text);
}

/* Tab: what GtkWindow's move-focus does with it. */
static void
press_tab (GtkWindow *window)
{
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD));
  iterate ();
}

/* Enter in a number: the window's default button (Next) takes it, after
 * the button has shown itself pressed for a moment. */
static void
enter_number (HrAdvisorDialog *dialog)
{
  HrAdvisorWalk *walk = hr_advisor_dialog_get_walk (dialog);
  guint steps = hr_advisor_walk_get_n_steps (walk);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  g_assert_true (press (GTK_WINDOW (dialog), "Return"));
  while (hr_advisor_walk_get_n_steps (walk) == steps && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (hr_advisor_walk_get_n_steps (walk), ==, steps + 1);
}

static guint
focused_answer (HrAdvisorDialog *dialog)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (dialog));
  GtkWidget *row;

  for (guint i = 0; (row = hr_advisor_dialog_get_answer_row (dialog, i)) != NULL; i++)
    if (row == focus)
      return i;
  g_assert_not_reached ();
}

static const char *
current_id (HrAdvisorDialog *dialog)
{
  return hr_advisor_walk_get_current (hr_advisor_dialog_get_walk (dialog))->id;
}

/* Down or Up to the answer @answer_id of the current question, then
 * Enter. */
static void
choose (HrAdvisorDialog *dialog,
        const char      *answer_id)
{
  const HrAdvisorNode *node = hr_advisor_walk_get_current (hr_advisor_dialog_get_walk (dialog));
  guint steps = hr_advisor_walk_get_n_steps (hr_advisor_dialog_get_walk (dialog));
  guint want = G_MAXUINT;
  guint at;

  for (guint i = 0; i < node->answers->len; i++)
    if (g_str_equal (((HrAdvisorAnswer *) g_ptr_array_index (node->answers, i))->id, answer_id))
      want = i;
  g_assert_cmpuint (want, !=, G_MAXUINT);

  /* Each question starts with the focus on its selected answer. */
  while ((at = focused_answer (dialog)) != want)
    g_assert_true (press (GTK_WINDOW (dialog), at < want ? "Down" : "Up"));
  g_assert_true (press (GTK_WINDOW (dialog), "Return"));
  g_assert_cmpuint (hr_advisor_walk_get_n_steps (hr_advisor_dialog_get_walk (dialog)), ==,
                    steps + 1);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog),
                                                    steps)->id, ==, answer_id);
}

static HrScenario *
load (const char *dir,
      const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  HrScenario *scenario = hr_scenario_load (path, hr_catalog_get_default (), &error);

  g_assert_no_error (error);
  return scenario;
}

/* Presents the dialog and waits until the tree has a size. */
static HrAdvisorDialog *
new_dialog (const HrScenario *scenario)
{
  HrAdvisorDialog *dialog = hr_advisor_dialog_new (NULL, scenario);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  graphene_rect_t box;

  gtk_window_present (GTK_WINDOW (dialog));
  while (!hr_advisor_dialog_get_step_box (dialog, 0, &box) &&
         g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (hr_advisor_dialog_get_step_box (dialog, 0, &box));
  return dialog;
}

static void
click_step (HrAdvisorDialog *dialog,
            guint            step)
{
  graphene_rect_t box;

  g_assert_true (hr_advisor_dialog_get_step_box (dialog, step, &box));
  g_assert_true (hr_advisor_dialog_click_tree (dialog, box.origin.x + box.size.width / 2,
                                               box.origin.y + box.size.height / 2));
  iterate ();
}

static const HrRecommendation *
recommendation (HrAdvisorDialog *dialog,
                guint            i)
{
  const HrAdvice *advice = hr_advisor_dialog_get_advice (dialog);

  g_assert_nonnull (advice);
  g_assert_cmpuint (advice->recommendations->len, >, i);
  return g_ptr_array_index (advice->recommendations, i);
}

/* Seed 000's decision tree for DreamerV3 (without JAX's preallocation, so
 * that the fit is the model's, as the advisor's own tests do): long-term
 * high-frequency training with a limited budget → RTX 4090; a sufficient
 * budget → RTX 5090D; occasional use → rent. */
static void
test_dreamer_seed (void)
{
  g_autoptr(HrScenario) scenario = load (EXAMPLES_DIR, "dreamerv3-5090d.json");
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  HrAdvisorDialog *dialog;
  HrAdvisorWalk *walk;
  g_auto(GStrv) summaries = NULL;
  const HrAdvice *advice;

  scenario->jax_preallocate = FALSE;
  /* The seed's figures are at the U.S. average price, the default of both
   * Preferences and the advisor's own tests. */
  g_settings_set_double (settings, "electricity-price", HR_ADVICE_DEFAULT_USD_PER_KWH);
  dialog = new_dialog (scenario);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  walk = hr_advisor_dialog_get_walk (dialog);

  /* The scenario trains: Enter takes the answer it selected. */
  g_assert_cmpstr (current_id (dialog), ==, "workload");
  g_assert_nonnull (strstr (hr_advisor_dialog_get_tree_summary (dialog), "What will you run?"));
  g_assert_true (press (GTK_WINDOW (dialog), "Return"));
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (walk, 0)->id, ==, "train");

  /* 18 hours a day, typed: it picks "most of the day", and Enter in the
   * number goes on. */
  g_assert_cmpstr (current_id (dialog), ==, "usage");
  g_assert_null (hr_advisor_dialog_get_number_spin (dialog, HR_FACT_BUDGET));
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_HOURS_PER_DAY), "18");
  enter_number (dialog);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (walk, 1)->id, ==, "daily");

  choose (dialog, "cheaper");
  g_assert_cmpstr (current_id (dialog), ==, "budget");
  choose (dialog, "limited");
  choose (dialog, "one");
  choose (dialog, "no");
  choose (dialog, "cuda");
  g_assert_true (hr_advisor_walk_is_done (walk));
  g_assert_null (hr_advisor_dialog_get_answer_row (dialog, 0));

  summaries = hr_advisor_dialog_dup_recommendation_summaries (dialog);
  g_assert_cmpuint (g_strv_length (summaries), >=, 3);
  g_assert_true (g_str_has_prefix (summaries[0], "1. Buy 1 × GeForce RTX 4090: "));
  g_assert_cmpstr (recommendation (dialog, 0)->gpu_id, ==, "rtx-4090");
  /* Every figure the list promises, at 18 hours a day and the price set
   * in Preferences. */
  g_assert_nonnull (strstr (summaries[0], "micro-batch up to "));
  g_assert_nonnull (strstr (summaries[0], "Price $"));
  g_assert_nonnull (strstr (summaries[0], " as of 20"));
  g_assert_nonnull (strstr (summaries[0], " per GB"));
  g_assert_nonnull (strstr (summaries[0], "cloud $"));
  /* Numbers as the locale writes them: the suite also runs under de_DE. */
  {
    g_autofree char *want = g_strdup_printf ("a month at 18 h a day and $%.2f per kWh", 0.17);

    g_assert_nonnull (strstr (summaries[0], want));
  }
  g_assert_nonnull (strstr (summaries[0], "buying pays off after "));
  advice = hr_advisor_dialog_get_advice (dialog);
  g_assert_cmpfloat (advice->inputs.usd_per_kwh, ==, HR_ADVICE_DEFAULT_USD_PER_KWH);
  g_assert_cmpfloat (advice->inputs.hours_per_day, ==, 18);
  /* The path in words, and the leaf names the pick. */
  g_assert_nonnull (strstr (hr_advisor_dialog_get_tree_summary (dialog),
                            "Sufficient budget? → No: up to about $2,200"));
  g_assert_nonnull (strstr (hr_advisor_dialog_get_tree_summary (dialog),
                            "Buy 1 × GeForce RTX 4090"));

  /* A new electricity price redraws the costs. */
  g_settings_set_double (settings, "electricity-price", 0.25);
  g_clear_pointer (&summaries, g_strfreev);
  summaries = hr_advisor_dialog_dup_recommendation_summaries (dialog);
  {
    g_autofree char *want = g_strdup_printf ("$%.2f per kWh", 0.25);

    g_assert_nonnull (strstr (summaries[0], want));
  }
  g_settings_set_double (settings, "electricity-price", HR_ADVICE_DEFAULT_USD_PER_KWH);

  /* Alt+Left: the last question again, its answer still selected. */
  g_assert_true (press (GTK_WINDOW (dialog), "<Alt>Left"));
  g_assert_cmpstr (current_id (dialog), ==, "stack");
  g_assert_cmpuint (focused_answer (dialog), ==, 0);
  g_assert_null (hr_advisor_dialog_get_advice (dialog));

  /* A click on the budget question in the tree: back to it. */
  click_step (dialog, 3);
  g_assert_cmpstr (current_id (dialog), ==, "budget");
  g_assert_cmpuint (hr_advisor_walk_get_n_steps (walk), ==, 3);
  choose (dialog, "sufficient");
  choose (dialog, "one");
  choose (dialog, "no");
  choose (dialog, "cuda");
  g_clear_pointer (&summaries, g_strfreev);
  summaries = hr_advisor_dialog_dup_recommendation_summaries (dialog);
  g_assert_true (g_str_has_prefix (summaries[0], "1. Buy 1 × GeForce RTX 5090 D: "));
  g_assert_cmpstr (recommendation (dialog, 0)->gpu_id, ==, "rtx-5090d");

  /* Now and then: rent, every option. */
  click_step (dialog, 1);
  g_assert_cmpstr (current_id (dialog), ==, "usage");
  choose (dialog, "occasional");
  g_assert_cmpstr (current_id (dialog), ==, "runs");
  choose (dialog, "one");
  choose (dialog, "no");
  choose (dialog, "cuda");
  advice = hr_advisor_dialog_get_advice (dialog);
  g_assert_cmpfloat (advice->inputs.hours_per_day, ==, 2);
  for (guint i = 0; i < advice->recommendations->len; i++)
    g_assert_cmpint (recommendation (dialog, i)->choice, ==, HR_ADVICE_CHOICE_RENT);
  g_clear_pointer (&summaries, g_strfreev);
  summaries = hr_advisor_dialog_dup_recommendation_summaries (dialog);
  g_assert_true (g_str_has_prefix (summaries[0], "1. Rent "));

  /* Escape closes. */
  g_assert_true (press (GTK_WINDOW (dialog), "Escape"));
  g_assert_null (dialog);
  g_settings_reset (settings, "electricity-price");
}

static gboolean
file_starts_with (const char *path,
                  const char *magic)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return FALSE;
  return length > strlen (magic) && memcmp (contents, magic, strlen (magic)) == 0;
}

static void
test_export (void)
{
  g_autoptr(HrScenario) scenario = load (EXAMPLES_DIR, "dreamerv3-5090d.json");
  HrAdvisorDialog *dialog = new_dialog (scenario);
  static const char *names[] = { "tree.png", "tree.svg", "tree.pdf",
                                 "table.png", "table.svg", "table.pdf" };
  static const char *magic[] = { "\x89PNG", "<?xml", "%PDF" };
  g_autoptr(GError) error = NULL;
  g_autofree char *bad = g_build_filename (tmp_dir, "tree.txt", NULL);
  g_autofree char *early = g_build_filename (tmp_dir, "early.png", NULL);

  /* No table before the last answer. */
  g_assert_false (hr_advisor_dialog_export (dialog, HR_ADVISOR_EXPORT_TABLE, early, &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (g_file_test (early, G_FILE_TEST_EXISTS));

  /* The first answer to every question, as a click on its row. */
  while (!hr_advisor_walk_is_done (hr_advisor_dialog_get_walk (dialog)))
    g_assert_true (hr_advisor_dialog_answer (dialog, 0));
  g_assert_false (hr_advisor_dialog_answer (dialog, 0));
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog), 1)->id,
                   ==, "daily");

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (tmp_dir, names[i], NULL);

      g_assert_true (hr_advisor_dialog_export (dialog, i < 3 ? HR_ADVISOR_EXPORT_TREE
                                                             : HR_ADVISOR_EXPORT_TABLE,
                                               path, &error));
      g_assert_no_error (error);
      g_assert_true (file_starts_with (path, magic[i % 3]));
    }
  g_assert_false (hr_advisor_dialog_export (dialog, HR_ADVISOR_EXPORT_TREE, bad, &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static GtkWidget *
find_image (GtkWidget *widget)
{
  if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)) == GTK_ACCESSIBLE_ROLE_IMG)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_image (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The window's action opens the wizard over it, on its scenario. */
static void
test_window_action (void)
{
  HrWindow *window = hr_window_new (NULL);
  GListModel *toplevels = gtk_window_get_toplevels ();
  HrAdvisorDialog *dialog = NULL;

  gtk_window_present (GTK_WINDOW (window));
  iterate ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.advise", NULL));
  iterate ();
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (HR_IS_ADVISOR_DIALOG (item))
        dialog = HR_ADVISOR_DIALOG (item);
    }
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  /* The tree is an image to assistive technologies. */
  g_assert_nonnull (find_image (GTK_WIDGET (dialog)));
  g_assert_true (g_str_has_prefix (hr_advisor_dialog_get_tree_summary (dialog),
                                   "Decision path: What will you run?"));
  /* The window's scenario (Llama 3.1 8B LoRA) fine-tunes. */
  g_assert_true (press (GTK_WINDOW (dialog), "Return"));
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog), 0)->id,
                   ==, "finetune");
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
screenshot (HrAdvisorDialog *dialog,
            const char      *name)
{
  const char *dir = g_getenv ("HEADROOM_ADVISOR_SCREENSHOTS");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  /* A few frames, so that the lists and the tree have settled. */
  for (guint i = 0; i < 20; i++)
    {
      iterate ();
      g_usleep (10000);
    }
  path = g_strdup_printf ("%s/advisor-%s.png", dir != NULL ? dir : tmp_dir, name);
  g_assert_true (hr_advisor_dialog_screenshot (dialog, path, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_filename (path, &error);
  g_assert_no_error (error);
  /* the whole dialog as the screen shows it (Xvfb: no shadow) */
  g_assert_cmpint (gdk_texture_get_width (texture), ==,
                   gdk_surface_get_width (gtk_native_get_surface (GTK_NATIVE (dialog))));
}

/* The three example users of `headroom-cli advise`'s tests, with the same
 * figures, typed. */
static void
test_student (void)
{
  g_autoptr(HrScenario) scenario = load (ADVISE_DIR, "student-qlora-3060.json");
  HrAdvisorDialog *dialog = new_dialog (scenario);
  const HrAdvice *advice;

  choose (dialog, "finetune");
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_HOURS_PER_DAY), "4");
  press_tab (GTK_WINDOW (dialog));
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_MONTHS), "6");
  enter_number (dialog);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog), 1)->id,
                   ==, "regular");
  choose (dialog, "cheaper");
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_BUDGET), "1000");
  screenshot (dialog, "question");
  enter_number (dialog);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog), 3)->id,
                   ==, "tight");
  choose (dialog, "one");
  choose (dialog, "no");
  choose (dialog, "cuda");

  advice = hr_advisor_dialog_get_advice (dialog);
  g_assert_cmpfloat (advice->inputs.hours_per_day, ==, 4);
  g_assert_cmpfloat (advice->inputs.months, ==, 6);
  g_assert_cmpfloat (advice->inputs.budget_usd, ==, 1000);
  /* A few hours a day for a semester: rent a 24 GB card, within budget. */
  g_assert_cmpint (recommendation (dialog, 0)->choice, ==, HR_ADVICE_CHOICE_RENT);
  g_assert_cmpuint (recommendation (dialog, 0)->memory, >=, 24e9);
  g_assert_true (recommendation (dialog, 0)->within_budget);
  screenshot (dialog, "student");
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
test_lab (void)
{
  g_autoptr(HrScenario) scenario = load (ADVISE_DIR, "lab-gr00t-finetune.json");
  HrAdvisorDialog *dialog = new_dialog (scenario);
  const HrAdvice *advice;

  choose (dialog, "finetune");
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_HOURS_PER_DAY), "10");
  press_tab (GTK_WINDOW (dialog));
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_MONTHS), "12");
  enter_number (dialog);
  choose (dialog, "cheaper");
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_BUDGET), "40000");
  enter_number (dialog);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog), 3)->id,
                   ==, "team");
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_RUNS), "4");
  enter_number (dialog);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog), 4)->id,
                   ==, "several");
  choose (dialog, "no");
  choose (dialog, "cuda");

  /* Four seeds, one card (or group) each, batch 32 on every option. */
  advice = hr_advisor_dialog_get_advice (dialog);
  g_assert_cmpuint (advice->inputs.runs, ==, 4);
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      g_assert_cmpuint (recommendation (dialog, i)->runs, ==, 4);
      g_assert_cmpuint (recommendation (dialog, i)->max_micro_batch, >=, 32);
    }
  g_assert_true (recommendation (dialog, 0)->within_budget);
  screenshot (dialog, "lab");
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
test_team (void)
{
  g_autoptr(HrScenario) scenario = load (ADVISE_DIR, "team-llm-pretrain.json");
  HrAdvisorDialog *dialog = new_dialog (scenario);
  const HrAdvice *advice;

  choose (dialog, "train");
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_HOURS_PER_DAY), "24");
  press_tab (GTK_WINDOW (dialog));
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_MONTHS), "6");
  enter_number (dialog);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (hr_advisor_dialog_get_walk (dialog), 1)->id,
                   ==, "daily");
  choose (dialog, "cheaper");
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_BUDGET), "500000");
  enter_number (dialog);
  choose (dialog, "one");
  choose (dialog, "yes");
  choose (dialog, "cuda");

  /* Data-centre cards; six months is shorter than the break-even. */
  advice = hr_advisor_dialog_get_advice (dialog);
  g_assert_true (advice->inputs.datacenter);
  for (guint i = 0; i < advice->recommendations->len; i++)
    g_assert_cmpint (recommendation (dialog, i)->tier, ==, HR_GPU_TIER_DATACENTER);
  g_assert_cmpint (recommendation (dialog, 0)->choice, ==, HR_ADVICE_CHOICE_RENT);
  screenshot (dialog, "team");
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* The size a 1366 × 768 screen gives a window, less a top bar. */
#define SCREEN_WIDTH  1366
#define SCREEN_HEIGHT 768

static void
assert_fits_screen (HrAdvisorDialog *dialog,
                    const char      *step)
{
  int min_width, min_height;

  for (guint i = 0; i < 10; i++)
    {
      iterate ();
      g_usleep (5000);
    }
  gtk_widget_measure (GTK_WIDGET (dialog), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL,
                      NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (dialog), GTK_ORIENTATION_VERTICAL, SCREEN_WIDTH, &min_height,
                      NULL, NULL, NULL);
  g_test_message ("%s: %d × %d (at least %d × %d)", step,
                  gtk_widget_get_width (GTK_WIDGET (dialog)),
                  gtk_widget_get_height (GTK_WIDGET (dialog)), min_width, min_height);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (dialog)), <=, SCREEN_WIDTH);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (dialog)), <=, SCREEN_HEIGHT);
  g_assert_cmpint (min_width, <=, SCREEN_WIDTH);
  g_assert_cmpint (min_height, <=, SCREEN_HEIGHT);
  /* Next (or, at the end, Start Over) stays on screen */
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (dialog)));
}

/* Every step of the wizard, for the DreamerV3 example at the guide's use
 * (18 hours a day for two years, buying, "Lab or team budget"), within a
 * 1366 × 768 screen, and again after Start Over and Enter.  The budget
 * field says "No limit" while the lab or team budget is selected, and a
 * figure typed picks its band. */
static void
test_small_screen (void)
{
  g_autoptr(HrScenario) scenario = load (EXAMPLES_DIR, "dreamerv3-5090d.json");
  HrAdvisorDialog *dialog = new_dialog (scenario);
  HrAdvisorWalk *walk = hr_advisor_dialog_get_walk (dialog);
  GtkSpinButton *budget;
  char name[32];
  guint shot = 0;

  assert_fits_screen (dialog, "workload");
  g_snprintf (name, sizeof name, "step-%u", ++shot);
  screenshot (dialog, name);
  g_assert_true (press (GTK_WINDOW (dialog), "Return"));

  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_HOURS_PER_DAY), "18");
  press_tab (GTK_WINDOW (dialog));
  type_into (dialog, hr_advisor_dialog_get_number_spin (dialog, HR_FACT_MONTHS), "24");
  assert_fits_screen (dialog, "usage");
  g_snprintf (name, sizeof name, "step-%u", ++shot);
  screenshot (dialog, name);
  enter_number (dialog);

  assert_fits_screen (dialog, "prefer");
  g_snprintf (name, sizeof name, "step-%u", ++shot);
  screenshot (dialog, name);
  choose (dialog, "buy");

  /* The budget: "Lab or team budget" is the default, with no limit. */
  g_assert_cmpstr (current_id (dialog), ==, "budget");
  budget = hr_advisor_dialog_get_number_spin (dialog, HR_FACT_BUDGET);
  g_assert_nonnull (budget);
  g_assert_cmpuint (focused_answer (dialog), ==, 3);
  g_assert_cmpfloat (gtk_spin_button_get_value (budget), ==, 0);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (budget)), ==, "No limit");
  /* a figure picks its band, and the team answer, clicked, clears it */
  type_into (dialog, budget, "2000");
  gtk_spin_button_update (budget);
  iterate ();
  g_assert_true (gtk_check_button_get_active (
    GTK_CHECK_BUTTON (adw_action_row_get_activatable_widget (
      ADW_ACTION_ROW (hr_advisor_dialog_get_answer_row (dialog, 1))))));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (adw_action_row_get_activatable_widget (
    ADW_ACTION_ROW (hr_advisor_dialog_get_answer_row (dialog, 3)))), TRUE);
  iterate ();
  g_assert_cmpfloat (gtk_spin_button_get_value (budget), ==, 0);
  type_into (dialog, budget, "2000");
  gtk_spin_button_update (budget);
  iterate ();
  assert_fits_screen (dialog, "budget");
  g_snprintf (name, sizeof name, "step-%u", ++shot);
  screenshot (dialog, name);
  enter_number (dialog);
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (walk, 3)->id, ==, "limited");

  for (const char *id; !hr_advisor_walk_is_done (walk);)
    {
      id = current_id (dialog);
      assert_fits_screen (dialog, id);
      g_snprintf (name, sizeof name, "step-%u", ++shot);
      screenshot (dialog, name);
      g_assert_true (press (GTK_WINDOW (dialog), "Return"));
    }
  assert_fits_screen (dialog, "result");
  g_snprintf (name, sizeof name, "step-%u-result", ++shot);
  screenshot (dialog, name);
  /* within $2,000 the guide's RTX 4090; over-budget options say so */
  g_assert_cmpstr (recommendation (dialog, 0)->gpu_id, ==, "rtx-4090");
  {
    g_auto(GStrv) summaries = hr_advisor_dialog_dup_recommendation_summaries (dialog);

    g_assert_nonnull (strstr (summaries[0], "A run of "));
    for (guint i = 0; summaries[i] != NULL; i++)
      if (!recommendation (dialog, i)->within_budget)
        g_assert_nonnull (strstr (summaries[i], "over budget ("));
  }

  /* Start Over, then Enter: still on screen */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (dialog), "advisor.restart", NULL));
  iterate ();
  assert_fits_screen (dialog, "start over");
  g_assert_true (press (GTK_WINDOW (dialog), "Return"));
  assert_fits_screen (dialog, "start over, Enter");
  g_snprintf (name, sizeof name, "step-%u-start-over", ++shot);
  screenshot (dialog, name);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check ())
    {
      g_printerr ("No display: run under xvfb-run\n");
      return 1;
    }
  adw_init ();
  tmp_dir = g_dir_make_tmp ("headroom-advisor-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/advisor-dialog/dreamer-seed", test_dreamer_seed);
  g_test_add_func ("/advisor-dialog/export", test_export);
  g_test_add_func ("/advisor-dialog/window-action", test_window_action);
  g_test_add_func ("/advisor-dialog/student", test_student);
  g_test_add_func ("/advisor-dialog/lab", test_lab);
  g_test_add_func ("/advisor-dialog/team", test_team);
  g_test_add_func ("/advisor-dialog/small-screen", test_small_screen);
  status = g_test_run ();
  g_free (tmp_dir);
  return status;
}
