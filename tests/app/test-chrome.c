/* test-chrome.c: what the window does as a GNOME application: actions
 * that need a scenario, examples opened as copies, the title, the main
 * menu, the pickers' search, Open Recent, the shortcuts window and the
 * levers' sources
 *
 * Runs on a real display (Xvfb in CI); without one it fails.  The
 * examples are copied into a folder of the test's own first, so that no
 * mistake can write the source tree's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "hr-app-test.h"
#include "hr-application.h"
#include "hr-file-chooser.h"
#include "hr-start-page.h"
#include "hr-window.h"

static char *tmp_dir;

static void
iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static void
wait_ms (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (2000);
    }
}

static HrWindow *
new_window (int width,
            int height)
{
  HrWindow *window = hr_window_new (NULL);
  HrChartView *view = hr_test_get_chart (window, HR_CHART_KIND_BUCKETS);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (view)) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), >, 0);
  return window;
}

static char *
example_path (const char *name)
{
  return g_build_filename (hr_start_page_get_examples_dir (), name, NULL);
}

/* The first button under @widget that runs @action. */
static GtkWidget *
find_action_button (GtkWidget  *widget,
                    const char *action)
{
  if (GTK_IS_BUTTON (widget)
      && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_action_button (c, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The main menu: the primary GtkMenuButton's model. */
static GMenuModel *
main_menu (GtkWidget *widget)
{
  if (GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_primary (GTK_MENU_BUTTON (widget)))
    return gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GMenuModel *found = main_menu (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Every item of @menu, sections and submenus walked:
 * "action\ttarget\tlabel". */
static void
collect_items (GMenuModel *menu,
               GPtrArray  *items)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *label = NULL;
      g_autofree char *action = NULL;
      g_autofree char *target = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);
      g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SUBMENU);

      g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label);
      g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &action);
      g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_TARGET, "s", &target);
      if (label != NULL)
        g_ptr_array_add (items, g_strdup_printf ("%s\t%s\t%s", action != NULL ? action : "",
                                                 target != NULL ? target : "", label));
      if (section != NULL)
        collect_items (section, items);
      if (submenu != NULL)
        collect_items (submenu, items);
    }
}

/* Save, Export, the report, the advisor... act on the scenario shown:
 * off on the start page, on again once a scenario shows. */
static void
test_scenario_actions (void)
{
  HrWindow *window = new_window (1366, 768);
  GtkWidget *save = find_action_button (GTK_WIDGET (window), "win.save");
  GtkWidget *export = find_action_button (GTK_WIDGET (window), "win.export");
  g_autofree char *target = g_build_filename (tmp_dir, "hidden.json", NULL);
  g_autoptr(GFile) answer = g_file_new_for_path (target);

  g_assert_nonnull (save);
  g_assert_nonnull (export);
  g_assert_true (gtk_widget_get_sensitive (save));
  g_assert_true (gtk_widget_get_sensitive (export));

  hr_window_show_start_page (window);
  iterate ();
  g_assert_false (gtk_widget_get_sensitive (save));
  g_assert_false (gtk_widget_get_sensitive (export));
  /* Ctrl+S on the start page saves nothing. */
  hr_file_chooser_set_test_answer (answer);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.save-as", NULL);
  iterate ();
  hr_file_chooser_set_test_answer (NULL);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-results", NULL);
  iterate ();
  g_assert_true (gtk_widget_get_sensitive (save));
  g_assert_true (gtk_widget_get_sensitive (export));
  gtk_window_destroy (GTK_WINDOW (window));
}

static char *
read_file (const char *path)
{
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

/* An example opens as an untitled copy: editing it and pressing Ctrl+S
 * asks where (the test answers), and the example's bytes stay. */
static void
test_example_is_a_copy (void)
{
  HrWindow *window = new_window (1366, 768);
  g_autofree char *example = example_path ("smolvla-4090.json");
  g_autofree char *before = read_file (example);
  g_autofree char *after = NULL;
  g_autofree char *target = g_build_filename (tmp_dir, "my-smolvla.json", NULL);
  g_autoptr(GFile) answer = g_file_new_for_path (target);
  GtkSpinButton *batch;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-file", "s",
                                             example));
  iterate ();
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");
  g_assert_null (hr_test_file (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Untitled — Headroom");

  batch = GTK_SPIN_BUTTON (hr_test_setting_widget (window, "micro_batch"));
  gtk_spin_button_set_value (batch, gtk_spin_button_get_value (batch) + 4);
  iterate ();
  g_assert_true (hr_test_modified (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "• Untitled — Headroom");

  hr_file_chooser_set_test_answer (answer);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL);
  iterate ();
  hr_file_chooser_set_test_answer (NULL);

  after = read_file (example);
  g_assert_cmpstr (before, ==, after);
  g_assert_true (g_file_test (target, G_FILE_TEST_IS_REGULAR));
  g_assert_nonnull (hr_test_file (window));
  g_assert_true (g_file_equal (hr_test_file (window), answer));
  g_assert_false (hr_test_modified (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "my-smolvla.json — Headroom");

  /* Opened again from where it was saved, it is that file. */
  hr_window_open_file (window, answer);
  iterate ();
  g_assert_true (g_file_equal (hr_test_file (window), answer));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The main menu fits a small screen: Open Example lists short names; it
 * has Keyboard Shortcuts, Help and About; Help opens the README. */
static void
test_main_menu (void)
{
  HrWindow *window = new_window (800, 900);
  GMenuModel *menu = main_menu (GTK_WIDGET (window));
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *uri = NULL;
  guint examples = 0;
  gboolean help = FALSE, shortcuts = FALSE, about = FALSE;

  g_assert_nonnull (menu);
  collect_items (menu, items);
  for (guint i = 0; i < items->len; i++)
    {
      const char *item = g_ptr_array_index (items, i);
      const char *label = strrchr (item, '\t') + 1;
      g_autofree char *example = g_strdup_printf ("win.open-file\t%s/",
                                                  hr_start_page_get_examples_dir ());

      if (g_str_has_prefix (item, example))
        {
          examples++;
          /* "GR00T N1.7 on A100 SXM4 80GB" is the longest. */
          g_assert_cmpuint (g_utf8_strlen (label, -1), <=, 32);
        }
      help |= g_str_has_prefix (item, "app.help\t");
      shortcuts |= g_str_has_prefix (item, "win.show-help-overlay\t");
      about |= g_str_has_prefix (item, "app.about\t");
    }
  g_assert_cmpuint (examples, >, 10);
  g_assert_true (help);
  g_assert_true (shortcuts);
  g_assert_true (about);

  uri = hr_application_dup_help_uri ();
  g_assert_true (g_str_has_prefix (uri, "file:///"));
  g_assert_true (g_str_has_suffix (uri, "README.md"));
  {
    g_autoptr(GFile) file = g_file_new_for_uri (uri);
    g_autofree char *path = g_file_get_path (file);

    g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The model picker's search: every word must match, sizes included. */
static void
test_search (void)
{
  HrWindow *window = new_window (1366, 768);
  HrSidebar *sidebar = hr_test_sidebar (window);
  GtkEditable *search = GTK_EDITABLE (gtk_widget_get_template_child (GTK_WIDGET (sidebar),
                                                                     HR_TYPE_SIDEBAR,
                                                                     "model_search"));
  GtkListBox *list = GTK_LIST_BOX (gtk_widget_get_template_child (GTK_WIDGET (sidebar),
                                                                  HR_TYPE_SIDEBAR,
                                                                  "model_list"));
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();

  g_assert_nonnull (search);
  g_assert_nonnull (list);
  gtk_editable_set_text (search, "qwen 7b");
  g_signal_emit_by_name (search, "search-changed");
  iterate ();
  for (int i = 0;; i++)
    {
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (list, i);

      if (row == NULL)
        break;
      if (gtk_widget_get_child_visible (GTK_WIDGET (row)))
        g_ptr_array_add (shown, g_object_get_data (G_OBJECT (row), "hr-id"));
    }
  g_ptr_array_add (shown, NULL);
  g_assert_true (g_strv_contains ((const char * const *) shown->pdata, "qwen2.5-7b"));
  g_assert_false (g_strv_contains ((const char * const *) shown->pdata, "qwen2.5-72b"));
  g_assert_false (g_strv_contains ((const char * const *) shown->pdata, "llama-2-7b"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static char *
write_scenario (const char *folder,
                const char *name)
{
  g_autofree char *dir = g_build_filename (tmp_dir, folder, NULL);
  char *path = g_build_filename (dir, "run.json", NULL);
  g_autofree char *json = g_strdup_printf ("{ \"headroom_scenario\": 1, \"name\": \"%s\", "
                                           "\"model\": \"smolvla\" }\n", name);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  return path;
}

/* Open Recent names each scenario and its folder: two files called
 * run.json are told apart. */
static void
test_recent_labels (void)
{
  HrWindow *window = new_window (1366, 768);
  g_autofree char *a = write_scenario ("alpha", "My Run");
  g_autofree char *b = write_scenario ("beta", "My Run");
  g_autoptr(GFile) fa = g_file_new_for_path (a);
  g_autoptr(GFile) fb = g_file_new_for_path (b);
  GtkWidget *page = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_START_PAGE);
  GMenuModel *recent;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  g_assert_nonnull (page);
  recent = hr_start_page_get_recent_menu (HR_START_PAGE (page));
  hr_start_page_add_recent (fa);
  hr_start_page_add_recent (fb);
  /* (the recent files change in an idle of GtkRecentManager's) */
  while (g_get_monotonic_time () < deadline)
    {
      g_ptr_array_set_size (labels, 0);
      for (int i = 0; i < g_menu_model_get_n_items (recent); i++)
        {
          char *label = NULL;

          g_assert_true (g_menu_model_get_item_attribute (recent, i, G_MENU_ATTRIBUTE_LABEL,
                                                          "s", &label));
          if (g_str_has_prefix (label, "My Run"))
            g_ptr_array_add (labels, label);
          else
            g_free (label);
        }
      if (labels->len >= 2)
        break;
      wait_ms (20);
    }
  g_assert_cmpuint (labels->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (labels, 0), !=, g_ptr_array_index (labels, 1));
  for (guint i = 0; i < labels->len; i++)
    {
      const char *label = g_ptr_array_index (labels, i);

      g_assert_true (strstr (label, "alpha") != NULL || strstr (label, "beta") != NULL);
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
collect_shortcuts (GObject    *object,
                   GHashTable *actions)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (object))
    {
      g_autofree char *action = NULL;

      g_object_get (object, "action-name", &action, NULL);
      if (action != NULL)
        g_hash_table_add (actions, g_steal_pointer (&action));
    }
  if (GTK_IS_WIDGET (object))
    for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (object)); c != NULL;
         c = gtk_widget_get_next_sibling (c))
      collect_shortcuts (G_OBJECT (c), actions);
}

/* Every accelerator the application sets is in the shortcuts window. */
static void
test_shortcuts_complete (void)
{
  g_autoptr(HrApplication) app = hr_application_new ();
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) actions = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *overlay;
  guint with_accels = 0;

  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app))
                             | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  builder = gtk_builder_new_from_resource ("/io/github/vramlab/Headroom/gtk/help-overlay.ui");
  overlay = GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay"));
  g_assert_nonnull (overlay);
  collect_shortcuts (G_OBJECT (overlay), listed);

  actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                    actions[i]);

      if (accels[0] == NULL)
        continue;
      with_accels++;
      if (!g_hash_table_contains (listed, actions[i]))
        g_error ("%s (%s) is not in the shortcuts window", actions[i], accels[0]);
    }
  g_assert_cmpuint (with_accels, >, 15);
  gtk_window_destroy (GTK_WINDOW (overlay));
}

/* The source of the lever row that holds @widget, or NULL. */
static const char *
lever_source_of (GtkWidget *widget)
{
  GtkWidget *row = gtk_widget_get_ancestor (widget, GTK_TYPE_LIST_BOX_ROW);

  return row != NULL ? g_object_get_data (G_OBJECT (row), "hr-source") : NULL;
}

/* The levers' sources are the keyboard's: Tab reaches a lever row, Enter
 * shows its source. */
static void
test_lever_sources (void)
{
  HrWindow *window = new_window (1200, 768);
  GtkWidget *focus = NULL;
  const char *source = NULL;
  GtkWidget *popover;
  GtkWidget *view = GTK_WIDGET (hr_test_results_view (window));

  gtk_widget_grab_focus (GTK_WIDGET (hr_test_get_chart (window, HR_CHART_KIND_BUCKETS)));
  for (int i = 0; i < 400 && source == NULL; i++)
    {
      gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD);
      focus = gtk_root_get_focus (GTK_ROOT (window));
      source = focus != NULL ? lever_source_of (focus) : NULL;
    }
  g_assert_nonnull (source);
  g_assert_cmpuint (strlen (source), >, 10);

  /* Enter on the row (its activation) shows the source text, once the
   * view has scrolled the row into sight. */
  while (!GTK_IS_LIST_BOX_ROW (focus))
    focus = gtk_widget_get_parent (focus);
  {
    gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    graphene_rect_t bounds;

    /* (until the view has scrolled it into the window: a busy machine
     * takes more than a frame) */
    while (g_get_monotonic_time () < deadline
           && !(gtk_widget_compute_bounds (focus, GTK_WIDGET (window), &bounds)
                && bounds.origin.y >= 0
                && bounds.origin.y + bounds.size.height
                     <= gtk_widget_get_height (GTK_WIDGET (window))))
      wait_ms (20);
    wait_ms (50);
  }
  g_signal_emit_by_name (focus, "activate");
  iterate ();
  popover = NULL;
  for (GtkWidget *c = gtk_widget_get_first_child (view); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_POPOVER (c))
      popover = c;
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));
  {
    GtkWidget *label = gtk_widget_get_last_child (gtk_popover_get_child (GTK_POPOVER (popover)));

    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, source);
  }
  gtk_popover_popdown (GTK_POPOVER (popover));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
copy_examples (const char *into)
{
  g_autoptr(GDir) dir = g_dir_open (hr_start_page_get_examples_dir (), 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (into, 0700), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *from = example_path (name);
      g_autofree char *to = g_build_filename (into, name, NULL);
      g_autofree char *contents = NULL;
      gsize length;

      if (!g_str_has_suffix (name, ".json"))
        continue;
      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, length, NULL));
    }
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_remove (child);
    }
  g_rmdir (path);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *examples = NULL;
  g_autofree char *data = NULL;
  int status;

  tmp_dir = g_dir_make_tmp ("headroom-test-chrome-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* The recent files and the user catalog of the test's own, and the
   * examples in a copy. */
  data = g_build_filename (tmp_dir, "data", NULL);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  examples = g_build_filename (tmp_dir, "examples", NULL);
  copy_examples (examples);
  g_setenv ("HEADROOM_EXAMPLES_DIR", examples, TRUE);
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-chrome: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  g_test_add_func ("/chrome/scenario-actions", test_scenario_actions);
  g_test_add_func ("/chrome/example-is-a-copy", test_example_is_a_copy);
  g_test_add_func ("/chrome/main-menu", test_main_menu);
  g_test_add_func ("/chrome/search", test_search);
  g_test_add_func ("/chrome/recent-labels", test_recent_labels);
  g_test_add_func ("/chrome/shortcuts-complete", test_shortcuts_complete);
  g_test_add_func ("/chrome/lever-sources", test_lever_sources);
  status = g_test_run ();
  remove_tree (tmp_dir);
  return status;
}
