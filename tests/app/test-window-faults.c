/* test-window-faults.c: the window's small behaviours: pickers built
 * after the first frame, the sidebar button off on the start page, toasts
 * one after the other
 *
 * Runs on a real display (Xvfb in CI); without one it fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "hr-app-test.h"
#include "hr-toasts.h"

static void
iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

/* Runs the main loop for @ms, or until @done (when given) says so. */
static void
run_for (guint      ms,
         gboolean (*done) (gpointer),
         gpointer   data)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      if (done != NULL && done (data))
        return;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static guint
n_rows (GtkWidget *list)
{
  guint n = 0;

  for (GtkWidget *c = gtk_widget_get_first_child (list); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_LIST_BOX_ROW (c))
      n++;
  return n;
}

static GtkWidget *
sidebar_child (HrWindow   *window,
               const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (hr_test_sidebar (window)),
                                                  HR_TYPE_SIDEBAR, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

static gboolean
pickers_full_cb (gpointer data)
{
  HrWindow *window = data;
  HrCatalog *catalog = hr_catalog_get_default ();

  return n_rows (sidebar_child (window, "model_list")) == hr_catalog_get_models (catalog)->len
         && n_rows (sidebar_child (window, "gpu_list")) == hr_catalog_get_gpus (catalog)->len;
}

static gboolean
chart_drawn_cb (gpointer data)
{
  return gtk_widget_get_width (data) > 0;
}

/* Start-up builds no picker row before the window's first frame
 * (tests/bench/startup.py); they are all there soon after, each
 * searchable, and the model chosen is selected among them. */
static void
test_pickers_after_first_frame (void)
{
  HrWindow *window = hr_window_new (NULL);
  GtkWidget *models = sidebar_child (window, "model_list");
  GtkWidget *gpus = sidebar_child (window, "gpu_list");
  HrCatalog *catalog = hr_catalog_get_default ();
  const char *model_id;
  GtkListBoxRow *selected;

  iterate ();
  g_assert_cmpuint (n_rows (models), ==, 0);
  g_assert_cmpuint (n_rows (gpus), ==, 0);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  run_for (10000, chart_drawn_cb, hr_test_get_chart (window, HR_CHART_KIND_BUCKETS));
  run_for (10000, pickers_full_cb, window);
  g_assert_cmpuint (n_rows (models), ==, hr_catalog_get_models (catalog)->len);
  g_assert_cmpuint (n_rows (gpus), ==, hr_catalog_get_gpus (catalog)->len);

  model_id = hr_test_scenario (window)->model->id;
  selected = gtk_list_box_get_selected_row (GTK_LIST_BOX (models));
  g_assert_nonnull (selected);
  g_assert_cmpstr (g_object_get_data (G_OBJECT (selected), "hr-id"), ==, model_id);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A picker opened, or a row asked for, before the rows were built in
 * the background builds them at once. */
static void
test_pickers_on_demand (void)
{
  HrWindow *window = hr_window_new (NULL);
  GtkWidget *models = sidebar_child (window, "model_list");
  g_auto(GStrv) ids = NULL;

  iterate ();
  g_assert_cmpuint (n_rows (models), ==, 0);
  g_assert_true (hr_window_set_gpu_active (window, "rtx-3090", TRUE));
  g_assert_true (pickers_full_cb (window));
  g_assert_true (hr_window_select_model (window, "smolvla"));
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "smolvla");
  ids = hr_test_dup_gpu_ids (window);
  g_assert_true (g_strv_contains ((const char * const *) ids, "rtx-3090"));
  gtk_window_destroy (GTK_WINDOW (window));

  window = hr_window_new (NULL);
  models = sidebar_child (window, "model_list");
  iterate ();
  g_assert_cmpuint (n_rows (models), ==, 0);
  gtk_window_present (GTK_WINDOW (window));
  hr_sidebar_popup_model_picker (hr_test_sidebar (window));
  g_assert_true (pickers_full_cb (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

static GtkWidget *
find_toggle_with_icon (GtkWidget  *widget,
                       const char *icon)
{
  if (GTK_IS_TOGGLE_BUTTON (widget)
      && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), icon) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_toggle_with_icon (c, icon);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The sidebar button acts on the scenario shown: on the start page it
 * is off, as F9 is. */
static void
test_sidebar_button_on_start_page (void)
{
  HrWindow *window = hr_window_new (NULL);
  GtkWidget *button = NULL;
  GtkWidget *flap;
  gboolean revealed;

  gtk_window_present (GTK_WINDOW (window));
  run_for (10000, chart_drawn_cb, hr_test_get_chart (window, HR_CHART_KIND_BUCKETS));
  button = find_toggle_with_icon (GTK_WIDGET (window), "sidebar-show-symbolic");
  flap = hr_test_find_widget (GTK_WIDGET (window), ADW_TYPE_FLAP);
  g_assert_nonnull (button);
  g_assert_nonnull (flap);

  hr_window_show_start_page (window);
  iterate ();
  g_assert_false (gtk_widget_get_sensitive (button));
  revealed = adw_flap_get_reveal_flap (ADW_FLAP (flap));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-sidebar", NULL);
  iterate ();
  g_assert_cmpint (adw_flap_get_reveal_flap (ADW_FLAP (flap)), ==, revealed);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-results", NULL);
  iterate ();
  g_assert_true (gtk_widget_get_sensitive (button));
  /* and with a scenario shown, the button still shows and toggles the
   * sidebar */
  g_assert_cmpint (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (button)), ==, revealed);
  g_signal_emit_by_name (button, "clicked");
  iterate ();
  g_assert_cmpint (adw_flap_get_reveal_flap (ADW_FLAP (flap)), ==, !revealed);
  g_assert_cmpint (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (button)), ==, !revealed);
  g_signal_emit_by_name (button, "clicked");
  iterate ();
  g_assert_cmpint (adw_flap_get_reveal_flap (ADW_FLAP (flap)), ==, revealed);
  gtk_window_destroy (GTK_WINDOW (window));
}

static guint
n_toast_widgets (GtkWidget *overlay)
{
  GType type = g_type_from_name ("AdwToastWidget");
  guint n = 0;

  g_assert_true (type != 0);
  for (GtkWidget *c = gtk_widget_get_first_child (overlay); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
      n++;
  return n;
}

static gboolean
toast_shown_cb (gpointer data)
{
  return n_toast_widgets (data) > 0;
}

static gboolean
no_toast_cb (gpointer data)
{
  return n_toast_widgets (data) == 0;
}

static void
on_clicked_cb (AdwToast *toast,
               gpointer  data)
{
  (*(guint *) data)++;
}

/* A toast waits until the one before it has left the overlay, so that
 * it slides in no longer than it takes to hide; then its button clicked
 * the moment it shows is safe (libadwaita 1.2, hr-toasts.c). */
static void
test_toasts_one_after_the_other (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *overlay = adw_toast_overlay_new ();
  AdwToast *first = adw_toast_new ("First");
  AdwToast *second = adw_toast_new ("Second");
  guint clicked = 0;

  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), gtk_label_new ("content"));
  gtk_window_set_child (GTK_WINDOW (window), overlay);
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 400);
  gtk_window_present (GTK_WINDOW (window));
  run_for (500, NULL, NULL);

  adw_toast_set_button_label (second, "_Act");
  g_signal_connect (second, "button-clicked", G_CALLBACK (on_clicked_cb), &clicked);
  g_object_ref (first);
  hr_toasts_add (ADW_TOAST_OVERLAY (overlay), first);
  hr_toasts_add (ADW_TOAST_OVERLAY (overlay), second);
  run_for (100, NULL, NULL);
  g_assert_cmpuint (n_toast_widgets (overlay), ==, 1);

  /* the first hides: the second waits for it to be gone */
  adw_toast_dismiss (first);
  g_object_unref (first);
  run_for (100, NULL, NULL);
  g_assert_cmpuint (n_toast_widgets (overlay), ==, 1);
  run_for (3000, no_toast_cb, overlay);
  run_for (3000, toast_shown_cb, overlay);
  g_assert_cmpuint (n_toast_widgets (overlay), ==, 1);

  /* its button, clicked as soon as it is there */
  {
    GtkWidget *toast_widget = gtk_widget_get_last_child (overlay);
    GtkWidget *button = hr_test_find_widget (toast_widget, GTK_TYPE_BUTTON);

    g_assert_nonnull (button);
    g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "_Act");
    g_signal_emit_by_name (button, "clicked");
  }
  run_for (2000, NULL, NULL);
  g_assert_cmpuint (clicked, ==, 1);
  g_assert_cmpuint (n_toast_widgets (overlay), ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Every label under @widget whose text has a size in the other unit
 * (a number, a space, then the unit), into @bad. */
static void
collect_wrong_unit (GtkWidget *widget,
                    GRegex    *wrong,
                    GPtrArray *bad)
{
  if (GTK_IS_LABEL (widget))
    {
      const char *text = gtk_label_get_text (GTK_LABEL (widget));

      if (text != NULL && g_regex_match (wrong, text, 0, NULL))
        g_ptr_array_add (bad, g_strdup (text));
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    collect_wrong_unit (c, wrong, bad);
}

/* Preferences' unit reaches every size the results show: the verdict,
 * the breakdown's rows and their labels, the levers, host RAM and the
 * estimator's notes, for every example shipped. */
static void
test_unit_everywhere (void)
{
  static const struct {
    const char *nick;
    const char *wrong;
  } units[] = {
    /* sizes are printed "%s %s" (hr_size_format_full): a card's name
     * ("80GB") has no space.  Under GiB the notes may quote a source's
     * GB ("peak < ~35 GB per GPU"), so only the figures the estimator
     * words per sample are checked there. */
    { "gb", "[0-9] (GiB|MiB|KiB)\\b" },
    { "gib", "[0-9] (GB|MB|kB) (of activations )?per sample" },
  };
  g_autoptr(GSettings) settings = g_settings_new ("io.github.vramlab.Headroom");
  const char *examples = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  guint failures = 0;

  g_assert_nonnull (examples);
  dir = g_dir_open (examples, 0, NULL);
  g_assert_nonnull (dir);
  for (const char *name; (name = g_dir_read_name (dir)) != NULL; )
    if (g_str_has_suffix (name, ".json"))
      g_ptr_array_add (names, g_strdup (name));
  g_assert_cmpuint (names->len, >, 0);

  for (guint u = 0; u < G_N_ELEMENTS (units); u++)
    {
      g_autoptr(GRegex) wrong = g_regex_new (units[u].wrong, 0, 0, NULL);
      HrWindow *window;

      g_assert_true (g_settings_set_string (settings, "display-unit", units[u].nick));
      window = hr_window_new (NULL);
      gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
      gtk_window_present (GTK_WINDOW (window));
      run_for (10000, chart_drawn_cb, hr_test_get_chart (window, HR_CHART_KIND_BUCKETS));
      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *path = g_build_filename (examples, names->pdata[i], NULL);
          g_autoptr(GFile) file = g_file_new_for_path (path);
          g_autoptr(GError) error = NULL;
          g_autoptr(GPtrArray) bad = g_ptr_array_new_with_free_func (g_free);

          g_assert_true (hr_window_load_file (window, file, &error));
          g_assert_no_error (error);
          iterate ();
          collect_wrong_unit (GTK_WIDGET (hr_test_results_view (window)), wrong, bad);
          for (guint j = 0; j < bad->len; j++)
            g_printerr ("%s, unit %s: %s\n", (char *) names->pdata[i], units[u].nick,
                        (char *) bad->pdata[j]);
          failures += bad->len;
        }
      gtk_window_destroy (GTK_WINDOW (window));
    }
  g_settings_reset (settings, "display-unit");
  g_assert_cmpuint (failures, ==, 0);
}

/* A JAX run shows none of PyTorch's own settings rows (the core's
 * table says where a setting applies; tests/core/test-settings.c). */
static void
test_jax_rows (void)
{
  static const char *const torch_only[] = {
    "stack", "optimizer_impl", "optimizer_in_bwd", "activation_offload", "compile",
  };
  const char *examples = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autofree char *path = g_build_filename (examples, "dreamerv3-5090d.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  HrWindow *window = hr_window_new (NULL);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (hr_window_load_file (window, file, &error));
  g_assert_no_error (error);
  iterate ();
  g_assert_cmpint (hr_test_scenario (window)->framework, ==, HR_FRAMEWORK_JAX);
  for (guint i = 0; i < G_N_ELEMENTS (torch_only); i++)
    {
      GtkWidget *row = hr_test_setting_row (window, torch_only[i]);

      g_assert_nonnull (row);
      if (gtk_widget_get_visible (row))
        g_error ("the %s row shows for a JAX run", torch_only[i]);
    }
  /* the row that chose JAX still shows */
  g_assert_true (gtk_widget_get_visible (hr_test_setting_row (window, "framework")));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-window-faults: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  g_test_add_func ("/window-faults/pickers-after-first-frame", test_pickers_after_first_frame);
  g_test_add_func ("/window-faults/pickers-on-demand", test_pickers_on_demand);
  g_test_add_func ("/window-faults/sidebar-button-on-start-page",
                   test_sidebar_button_on_start_page);
  g_test_add_func ("/window-faults/toasts-one-after-the-other", test_toasts_one_after_the_other);
  g_test_add_func ("/window-faults/unit-everywhere", test_unit_everywhere);
  g_test_add_func ("/window-faults/jax-rows", test_jax_rows);
  return g_test_run ();
}
