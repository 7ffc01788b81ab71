/* test-model-import.c: bringing a model or a card into the window
 *
 * Imports real config.json fixtures through the dialog, adds them to a
 * user catalog in a temporary XDG_DATA_HOME, and checks what the window's
 * pickers then show; edits and resets a price through the Preferences page
 * and checks that the built-in catalog never changes.  Runs on a real
 * display (Xvfb in CI); without one the test fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "hr-app-test.h"
#include "hr-screenshot.h"
#include "hr-gpu-editor.h"
#include "hr-model-import-dialog.h"
#include "hr-preferences.h"
#include "hr-prices-page.h"
#include "hr-window.h"

static char *tmp_dir;

static void
iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

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
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static char *
fixture (const char *name)
{
  return g_build_filename (HR_IMPORT_FIXTURES, name, NULL);
}

/* Every label's text under @widget, one per line: what the user sees. */
static void
collect_text (GtkWidget *widget,
              GString   *text)
{
  if (!gtk_widget_get_visible (widget))
    return;
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (text, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    collect_text (c, text);
}

static char *
shown_text (GtkWidget *widget)
{
  GString *text = g_string_new (NULL);

  collect_text (widget, text);
  return g_string_free (text, FALSE);
}

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_descendant (c, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_with_css_class (GtkWidget  *widget,
                     const char *css_class)
{
  if (gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_with_css_class (c, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_button_with_tooltip (GtkWidget  *widget,
                          const char *tooltip)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button_with_tooltip (c, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWindow *
find_toplevel (GType type)
{
  g_autoptr(GListModel) toplevels = g_object_ref (gtk_window_get_toplevels ());

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return GTK_WINDOW (window);
    }
  return NULL;
}

static void
click (GtkWidget *button)
{
  g_assert_true (GTK_IS_BUTTON (button));
  g_signal_emit_by_name (button, "clicked");
}

/* The picker row of a catalog entry, by its id. */
static GtkWidget *
picker_row (HrWindow   *window,
            const char *list_name,
            const char *id)
{
  GtkWidget *list = GTK_WIDGET (gtk_widget_get_template_child (
    GTK_WIDGET (hr_test_sidebar (window)), HR_TYPE_SIDEBAR, list_name));

  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      const char *row_id = g_object_get_data (G_OBJECT (row), "hr-id");
      GtkWidget *check = NULL;

      if (row_id == NULL && (check = find_descendant (row, GTK_TYPE_CHECK_BUTTON)) != NULL)
        row_id = g_object_get_data (G_OBJECT (check), "hr-id");
      if (g_strcmp0 (row_id, id) == 0)
        return row;
    }
  return NULL;
}

static const char *
badge_text (GtkWidget *row)
{
  GtkWidget *badge = find_with_css_class (row, "custom-badge");

  return badge != NULL && gtk_widget_get_visible (badge) ? gtk_label_get_text (GTK_LABEL (badge))
                                                         : NULL;
}

/* Renders a window to PNG as hr_window_screenshot() does; into
 * $HEADROOM_SCREENSHOT_DIR when set, to look at. */
static void
screenshot (GtkWidget  *window,
            const char *name)
{
  const char *dir = g_getenv ("HEADROOM_SCREENSHOT_DIR");
  g_autofree char *path = g_build_filename (dir != NULL ? dir : tmp_dir, name, NULL);
  g_autoptr(GdkTexture) read_back = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (hr_widget_screenshot (window, path, &error));
  g_assert_no_error (error);
  read_back = gdk_texture_new_from_filename (path, &error);
  g_assert_no_error (error);
  /* the whole window as the screen shows it (Xvfb: no shadow) */
  g_assert_cmpint (gdk_texture_get_width (read_back), ==,
                   gdk_surface_get_width (gtk_native_get_surface (GTK_NATIVE (window))));
}

static char *
read_file (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

static JsonObject *
user_entry (HrUserCatalogKind kind,
            const char       *id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) entries = hr_user_catalog_list (kind, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);

      if (g_strcmp0 (json_object_get_string_member (entry, "id"), id) == 0)
        return json_object_ref (entry);
    }
  return NULL;
}

static void
test_import_and_add (void)
{
  HrWindow *window = new_window ();
  g_autofree char *folder = fixture ("mixtral-8x7b-v0.1");
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  g_autofree char *models_path = hr_user_catalog_get_path (HR_USER_CATALOG_MODELS);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) verdicts = NULL;
  HrModelImportDialog *dialog;
  const HrImport *import;
  GtkWidget *row;

  g_assert_false (g_file_test (models_path, G_FILE_TEST_EXISTS));

  /* A model folder dropped on the window opens the dialog. */
  g_assert_true (hr_model_import_file_is_model (file));
  hr_window_open_any (window, file);
  dialog = HR_MODEL_IMPORT_DIALOG (find_toplevel (HR_TYPE_MODEL_IMPORT_DIALOG));
  g_assert_nonnull (dialog);
  settle (GTK_WIDGET (dialog));

  /* Mixtral 8x7B: 46.7B stored, 12.9B per token (Jiang et al. 2024). */
  import = hr_model_import_dialog_get_import (dialog);
  g_assert_nonnull (import);
  g_assert_null (hr_model_import_dialog_get_error (dialog));
  g_assert_cmpuint (import->params, ==, G_GUINT64_CONSTANT (46702792704));
  g_assert_cmpuint (import->active_params, ==, G_GUINT64_CONSTANT (12879925248));

  /* What was read, the counts, and what was assumed are on screen before
   * anything is added. */
  text = shown_text (GTK_WIDGET (dialog));
  g_assert_nonnull (strstr (text, "46702792704"));
  g_assert_nonnull (strstr (text, "Active per token (2 of 8 experts)"));
  g_assert_nonnull (strstr (text, "12879925248"));
  g_assert_nonnull (strstr (text, "From the architecture in the config"));
  g_assert_nonnull (strstr (text, "32 layers, hidden 4096"));
  g_assert_nonnull (strstr (text, "no weights in the folder"));
  g_assert_nonnull (strstr (text, "Assumed"));
  g_assert_false (g_file_test (models_path, G_FILE_TEST_EXISTS));
  screenshot (GTK_WIDGET (dialog), "import-dialog.png");

  /* The id is checked as it is typed. */
  g_assert_cmpstr (hr_model_import_dialog_get_id (dialog), ==, "mixtral-8x7b-v0.1");
  g_assert_cmpstr (hr_model_import_dialog_get_id_message (dialog), ==,
                   "A new model in your catalog");
  hr_model_import_dialog_set_id (dialog, "My Mixtral");
  g_assert_false (hr_model_import_dialog_can_add (dialog));
  g_assert_nonnull (strstr (hr_model_import_dialog_get_id_message (dialog), "lowercase"));
  g_assert_false (hr_model_import_dialog_add (dialog, &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (g_file_test (models_path, G_FILE_TEST_EXISTS));
  hr_model_import_dialog_set_id (dialog, "llama-2-7b");
  g_assert_true (hr_model_import_dialog_can_add (dialog));
  g_assert_true (g_str_has_prefix (hr_model_import_dialog_get_id_message (dialog),
                                   "Replaces the built-in “Llama 2 7B”"));
  hr_model_import_dialog_set_name (dialog, "   ");
  g_assert_false (hr_model_import_dialog_can_add (dialog));

  hr_model_import_dialog_set_id (dialog, "my-mixtral");
  hr_model_import_dialog_set_name (dialog, "My Mixtral");
  g_assert_true (hr_model_import_dialog_can_add (dialog));
  g_assert_true (hr_model_import_dialog_add (dialog, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (dialog));
  iterate ();

  /* In the user's catalog, with what the import found. */
  entry = user_entry (HR_USER_CATALOG_MODELS, "my-mixtral");
  g_assert_nonnull (entry);
  g_assert_cmpstr (json_object_get_string_member (entry, "name"), ==, "My Mixtral");
  g_assert_cmpint (json_object_get_int_member (entry, "params"), ==, 46702792704);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (entry, "x-import"),
                                               "active_params"), ==, 12879925248);

  /* In the picker with its badge, selected, and estimated. */
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "my-mixtral");
  row = picker_row (window, "model_list", "my-mixtral");
  g_assert_nonnull (row);
  g_assert_true (gtk_list_box_row_is_selected (GTK_LIST_BOX_ROW (row)));
  g_assert_cmpstr (badge_text (row), ==, "Custom");
  g_assert_null (badge_text (picker_row (window, "model_list", "llama-3.1-8b")));
  {
    /* The picker as the user finds it, for the screenshot. */
    GtkWidget *button = GTK_WIDGET (gtk_widget_get_template_child (
      GTK_WIDGET (hr_test_sidebar (window)), HR_TYPE_SIDEBAR, "model_button"));
    GtkWidget *popover = GTK_WIDGET (gtk_widget_get_template_child (
      GTK_WIDGET (hr_test_sidebar (window)), HR_TYPE_SIDEBAR, "model_popover"));
    GtkWidget *search = GTK_WIDGET (gtk_widget_get_template_child (
      GTK_WIDGET (hr_test_sidebar (window)), HR_TYPE_SIDEBAR, "model_search"));

    gtk_menu_button_popup (GTK_MENU_BUTTON (button));
    settle (popover);
    gtk_editable_set_text (GTK_EDITABLE (search), "mi");
    settle (popover);
    g_assert_true (gtk_widget_get_child_visible (row));
    screenshot (popover, "model-picker.png");
    gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  }
  g_assert_true (hr_window_select_model (window, "llama-3.1-8b"));
  g_assert_true (hr_window_select_model (window, "my-mixtral"));
  g_assert_cmpuint (hr_test_scenario (window)->model->params, ==, 46702792704);
  verdicts = hr_test_dup_verdicts (window);
  g_assert_cmpuint (g_strv_length (verdicts), >, 0);
  /* 46.7B parameters at two bytes each do not fit one 24 GB card. */
  g_assert_true (g_str_has_prefix (verdicts[0], "GeForce RTX 4090: "));
  g_assert_null (strstr (verdicts[0], "Fits"));

  /* The same id over a built-in model says so on its badge. */
  dialog = HR_MODEL_IMPORT_DIALOG (hr_window_import_model (window, file));
  hr_model_import_dialog_set_id (dialog, "llama-2-7b");
  g_assert_true (hr_model_import_dialog_add (dialog, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_cmpstr (badge_text (picker_row (window, "model_list", "llama-2-7b")), ==,
                   "Custom, replaces built-in");
  g_assert_cmpstr (hr_test_scenario (window)->model->id, ==, "llama-2-7b");

  /* Removing it, after the confirmation, brings the built-in one back. */
  click (find_button_with_tooltip (picker_row (window, "model_list", "llama-2-7b"),
                                   "Remove From Your Catalog"));
  iterate ();
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (find_toplevel (ADW_TYPE_MESSAGE_DIALOG)),
                               "remove");
  iterate ();
  g_assert_null (user_entry (HR_USER_CATALOG_MODELS, "llama-2-7b"));
  g_assert_null (badge_text (picker_row (window, "model_list", "llama-2-7b")));
  g_assert_cmpuint (hr_catalog_find_model (hr_catalog_get_default (), "llama-2-7b")->params, ==,
                    G_GUINT64_CONSTANT (6738415616));
  g_assert_nonnull (user_entry (HR_USER_CATALOG_MODELS, "my-mixtral"));

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

static void
test_weights_only (void)
{
  /* An FP8 checkpoint's header alone: counts by dtype, no architecture:
   * a weights-only model of the exact count, which the catalog takes. */
  static const char header[] =
    "{\"__metadata__\": {\"format\": \"pt\"},"
    " \"model.layers.0.mlp.up_proj.weight\": {\"dtype\": \"F8_E4M3\", \"shape\": [64, 32],"
    " \"data_offsets\": [0, 2048]},"
    " \"model.norm.weight\": {\"dtype\": \"BF16\", \"shape\": [32],"
    " \"data_offsets\": [2048, 2112]}}";
  g_autofree char *path = tmp_path ("fp8.safetensors");
  g_autofree char *models_path = hr_user_catalog_get_path (HR_USER_CATALOG_MODELS);
  g_autofree char *before = read_file (models_path);
  g_autofree char *after = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  guint64 n = strlen (header);
  guint8 prefix[8];
  HrModelImportDialog *dialog;

  for (int i = 0; i < 8; i++)
    prefix[i] = (n >> (8 * i)) & 0xff;
  g_byte_array_append (bytes, prefix, 8);
  g_byte_array_append (bytes, (const guint8 *) header, n);
  g_byte_array_set_size (bytes, bytes->len + 2112);
  memset (bytes->data + 8 + n, 0, 2112);
  g_assert_true (g_file_set_contents (path, (const char *) bytes->data, bytes->len, &error));
  g_assert_no_error (error);

  g_assert_true (hr_model_import_file_is_model (file));
  dialog = hr_model_import_dialog_new (NULL, path);
  gtk_window_present (GTK_WINDOW (dialog));
  settle (GTK_WIDGET (dialog));
  g_assert_nonnull (hr_model_import_dialog_get_import (dialog));
  g_assert_cmpuint (hr_model_import_dialog_get_import (dialog)->params, ==, 64 * 32 + 32);
  text = shown_text (GTK_WIDGET (dialog));
  g_assert_nonnull (strstr (text, "F8_E4M3"));
  g_assert_nonnull (strstr (text, "\nFP8\n"));
  g_assert_nonnull (strstr (text, "Exactly, from the weights’ headers"));
  screenshot (GTK_WIDGET (dialog), "import-fp8.png");
  g_assert_nonnull (strstr (text, "weights only"));
  g_assert_true (hr_model_import_dialog_can_add (dialog));
  g_assert_true (hr_model_import_dialog_add (dialog, &error));
  g_assert_no_error (error);
  after = read_file (models_path);
  g_assert_cmpstr (before, !=, after);
  g_assert_nonnull (strstr (after, "\"weights-only\""));
  {
    g_autoptr(JsonObject) entry = user_entry (HR_USER_CATALOG_MODELS, "fp8");

    g_assert_nonnull (entry);
    g_assert_cmpstr (json_object_get_string_member (entry, "kind"), ==, "weights-only");
  }
  gtk_window_destroy (GTK_WINDOW (dialog));
  iterate ();
}

static void
test_broken_config (void)
{
  g_autofree char *dir = tmp_path ("broken-model");
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *models_path = hr_user_catalog_get_path (HR_USER_CATALOG_MODELS);
  g_autofree char *before = read_file (models_path);
  g_autofree char *after = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  HrModelImportDialog *dialog;
  const GError *shown;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, "{\n  \"model_type\": \"llama\",\n"
                                            "  \"hidden_size\": 4096,,\n}\n", -1, &error));
  g_assert_true (hr_model_import_file_is_model (file));

  dialog = hr_model_import_dialog_new (NULL, path);
  gtk_window_present (GTK_WINDOW (dialog));
  settle (GTK_WIDGET (dialog));
  g_assert_null (hr_model_import_dialog_get_import (dialog));
  shown = hr_model_import_dialog_get_error (dialog);
  g_assert_nonnull (shown);
  g_assert_true (g_str_has_prefix (shown->message, path));
  text = shown_text (GTK_WIDGET (dialog));
  g_assert_nonnull (strstr (text, "Could Not Read “config.json”"));
  g_assert_nonnull (strstr (text, "Line 3, column 23: "));
  g_assert_nonnull (strstr (text, path));
  g_assert_false (hr_model_import_dialog_can_add (dialog));
  g_assert_false (hr_model_import_dialog_add (dialog, &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  screenshot (GTK_WIDGET (dialog), "import-error.png");
  after = read_file (models_path);
  g_assert_cmpstr (before, ==, after);
  gtk_window_destroy (GTK_WINDOW (dialog));
  iterate ();
  g_remove (path);
  g_rmdir (dir);
}

static void
test_routing (void)
{
  g_autofree char *config = fixture ("qwen2.5-0.5b/config.json");
  g_autofree char *scenario = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                                "llama-3.1-8b-lora-4090.json", NULL);
  g_autofree char *csv = tmp_path ("run.csv");
  g_autoptr(GFile) config_file = g_file_new_for_path (config);
  g_autoptr(GFile) scenario_file = g_file_new_for_path (scenario);
  g_autoptr(GFile) csv_file = g_file_new_for_path (csv);
  g_autoptr(GFile) gguf_file = g_file_new_for_path ("/nonexistent/model.Q4_K_M.gguf");

  g_assert_true (g_file_set_contents (csv, "micro_batch,peak_allocated_bytes\n1,100\n", -1,
                                      NULL));
  g_assert_true (hr_model_import_file_is_model (config_file));
  g_assert_true (hr_model_import_file_is_model (gguf_file));
  g_assert_false (hr_model_import_file_is_model (scenario_file));
  g_assert_false (hr_model_import_file_is_model (csv_file));
}

static void
test_gpu_editor (void)
{
  HrWindow *window = new_window ();
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;
  HrGpuEditor *editor;
  GtkWidget *row;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.add-gpu", NULL);
  iterate ();
  editor = HR_GPU_EDITOR (find_toplevel (HR_TYPE_GPU_EDITOR));
  g_assert_nonnull (editor);

  /* The id follows the name until it is typed. */
  gtk_editable_set_text (GTK_EDITABLE (hr_gpu_editor_get_field (editor, "name")),
                         "Lab RTX 6000 Ada 48GB");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (hr_gpu_editor_get_field (editor, "id"))),
                   ==, "lab-rtx-6000-ada-48gb");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (hr_gpu_editor_get_field (editor, "memory")), 47.5);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (hr_gpu_editor_get_field (editor, "bandwidth")),
                             960);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (hr_gpu_editor_get_field (editor, "price_usd")),
                             6800);
  adw_combo_row_set_selected (ADW_COMBO_ROW (hr_gpu_editor_get_field (editor, "tier")),
                              HR_GPU_TIER_WORKSTATION);

  /* A price without a real date cannot be saved. */
  gtk_editable_set_text (GTK_EDITABLE (hr_gpu_editor_get_field (editor, "price_as_of")),
                         "2026-02-30");
  g_assert_false (hr_gpu_editor_can_save (editor));
  g_assert_nonnull (strstr (hr_gpu_editor_get_message (editor), "YYYY-MM"));
  g_assert_false (hr_gpu_editor_save (editor, &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_null (user_entry (HR_USER_CATALOG_GPUS, "lab-rtx-6000-ada-48gb"));
  gtk_editable_set_text (GTK_EDITABLE (hr_gpu_editor_get_field (editor, "price_as_of")),
                         "2026-11-20");
  g_assert_true (hr_gpu_editor_can_save (editor));
  g_assert_cmpstr (hr_gpu_editor_get_message (editor), ==, "A new card in your catalog");
  settle (GTK_WIDGET (editor));
  screenshot (GTK_WIDGET (editor), "gpu-editor.png");

  g_assert_true (hr_gpu_editor_save (editor, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (editor));
  iterate ();

  entry = user_entry (HR_USER_CATALOG_GPUS, "lab-rtx-6000-ada-48gb");
  g_assert_nonnull (entry);
  /* 47.5 GiB = 48640 MiB, as nvidia-smi counts them. */
  g_assert_cmpint (json_object_get_int_member (entry, "memory"), ==,
                   G_GINT64_CONSTANT (48640) * 1024 * 1024);
  g_assert_cmpint (json_object_get_int_member (entry, "bandwidth"), ==, 960000000000);
  g_assert_cmpstr (json_object_get_string_member (entry, "tier"), ==, "workstation");
  g_assert_cmpfloat (json_object_get_double_member (entry, "price_usd"), ==, 6800);
  g_assert_true (json_object_get_null_member (entry, "cloud_usd_per_hour"));
  g_assert_cmpstr (json_object_get_string_member (entry, "price_as_of"), ==, "2026-11-20");

  /* In the picker, with its badge, and in the comparison. */
  row = picker_row (window, "gpu_list", "lab-rtx-6000-ada-48gb");
  g_assert_nonnull (row);
  g_assert_cmpstr (badge_text (row), ==, "Custom");
  ids = hr_test_dup_gpu_ids (window);
  g_assert_true (g_strv_contains ((const char * const *) ids, "lab-rtx-6000-ada-48gb"));
  {
    GtkWidget *button = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (hr_test_sidebar (window)),
                                                                   HR_TYPE_SIDEBAR, "gpu_button"));
    GtkWidget *popover = GTK_WIDGET (gtk_widget_get_template_child (
      GTK_WIDGET (hr_test_sidebar (window)), HR_TYPE_SIDEBAR, "gpu_popover"));
    GtkWidget *search = GTK_WIDGET (gtk_widget_get_template_child (
      GTK_WIDGET (hr_test_sidebar (window)), HR_TYPE_SIDEBAR, "gpu_search"));

    gtk_menu_button_popup (GTK_MENU_BUTTON (button));
    settle (popover);
    gtk_editable_set_text (GTK_EDITABLE (search), "6000");
    settle (popover);
    screenshot (popover, "gpu-picker.png");
    gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  }

  /* Editing it keeps its id. */
  click (find_button_with_tooltip (row, "Edit This Card"));
  iterate ();
  editor = HR_GPU_EDITOR (find_toplevel (HR_TYPE_GPU_EDITOR));
  g_assert_nonnull (editor);
  g_assert_false (gtk_widget_get_sensitive (hr_gpu_editor_get_field (editor, "id")));
  g_assert_cmpstr (hr_gpu_editor_get_message (editor), ==, "Saves your changes to this card");
  gtk_window_destroy (GTK_WINDOW (editor));

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

static void
test_prices (void)
{
  HrWindow *window = new_window ();
  g_autoptr(GBytes) builtin_bytes = NULL;
  g_autofree char *builtin_before = NULL;
  g_autofree char *gpus_path = hr_user_catalog_get_path (HR_USER_CATALOG_GPUS);
  g_autofree char *file_before = NULL;
  g_autofree char *file_after = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(GError) error = NULL;
  const HrGpu *builtin;
  GtkWidget *prefs;
  HrPricesPage *page;
  double builtin_price;
  guint64 builtin_memory;

  builtin_bytes = g_resources_lookup_data ("/io/github/vramlab/Headroom/core/gpus.json", 0,
                                           &error);
  g_assert_no_error (error);
  builtin_before = g_strndup (g_bytes_get_data (builtin_bytes, NULL),
                              g_bytes_get_size (builtin_bytes));
  builtin = hr_catalog_find_gpu (hr_catalog_get_default (), "rtx-4090");
  g_assert_cmpint (builtin->origin, ==, HR_ORIGIN_BUILTIN);
  builtin_price = builtin->price_usd;
  builtin_memory = builtin->memory;
  g_assert_cmpfloat (builtin_price, !=, 1799);

  /* The page as Preferences shows it. */
  prefs = hr_preferences_new (GTK_WINDOW (window));
  page = HR_PRICES_PAGE (find_descendant (prefs, HR_TYPE_PRICES_PAGE));
  g_assert_nonnull (page);
  adw_preferences_window_set_visible_page (ADW_PREFERENCES_WINDOW (prefs),
                                           ADW_PREFERENCES_PAGE (page));
  gtk_window_set_default_size (GTK_WINDOW (prefs), 640, 900);
  gtk_window_present (GTK_WINDOW (prefs));
  settle (GTK_WIDGET (page));
  g_assert_false (hr_prices_page_is_custom (page, "rtx-4090"));

  g_assert_true (hr_prices_page_set_prices (page, "rtx-4090", 1799, 0.55, "2026-11-29", &error));
  g_assert_no_error (error);
  g_assert_true (hr_prices_page_is_custom (page, "rtx-4090"));
  g_assert_false (hr_prices_page_is_custom (page, "rtx-3090"));

  /* The user's file holds the built-in entry with the new prices. */
  entry = user_entry (HR_USER_CATALOG_GPUS, "rtx-4090");
  g_assert_nonnull (entry);
  g_assert_cmpfloat (json_object_get_double_member (entry, "price_usd"), ==, 1799);
  g_assert_cmpfloat (json_object_get_double_member (entry, "cloud_usd_per_hour"), ==, 0.55);
  g_assert_cmpstr (json_object_get_string_member (entry, "price_as_of"), ==, "2026-11-29");
  g_assert_cmpint (json_object_get_int_member (entry, "memory"), ==, builtin_memory);
  g_assert_nonnull (strstr (json_object_get_string_member (entry, "source"),
                            "Prices edited in Headroom's preferences."));

  /* The catalog and the window's picker see it; the built-in catalog is
   * as shipped. */
  builtin = hr_catalog_find_gpu (hr_catalog_get_default (), "rtx-4090");
  g_assert_cmpint (builtin->origin, ==, HR_ORIGIN_USER_OVERRIDE);
  g_assert_cmpfloat (builtin->price_usd, ==, 1799);
  g_assert_cmpstr (badge_text (picker_row (window, "gpu_list", "rtx-4090")), ==,
                   "Custom, replaces built-in");
  g_assert_cmpfloat (hr_test_scenario (window)->gpu->price_usd, ==, 1799);
  {
    g_autoptr(GBytes) now = g_resources_lookup_data ("/io/github/vramlab/Headroom/core/gpus.json",
                                                     0, NULL);

    g_assert_cmpmem (g_bytes_get_data (now, NULL), g_bytes_get_size (now),
                     builtin_before, strlen (builtin_before));
  }

  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (hr_prices_page_get_row (page, "rtx-4090")),
                                 TRUE);
  settle (GTK_WIDGET (page));
  {
    /* Scrolled to the edited card, for the screenshot. */
    GtkScrolledWindow *scrolled = GTK_SCROLLED_WINDOW (find_descendant (GTK_WIDGET (page),
                                                                        GTK_TYPE_SCROLLED_WINDOW));
    graphene_point_t top;

    g_assert_true (gtk_widget_compute_point (hr_prices_page_get_row (page, "rtx-4090"),
                                             gtk_scrolled_window_get_child (scrolled),
                                             &GRAPHENE_POINT_INIT (0, 0), &top));
    gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (scrolled), top.y - 160);
    settle (GTK_WIDGET (page));
  }
  screenshot (prefs, "prices-page.png");

  /* A date that is not one saves nothing. */
  file_before = read_file (gpus_path);
  g_assert_false (hr_prices_page_set_prices (page, "rtx-4090", 1899, 0.55, "2026-13", &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_clear_error (&error);
  file_after = read_file (gpus_path);
  g_assert_cmpstr (file_before, ==, file_after);

  /* A click on the row's spin button, as the user edits: saved once the
   * clicks stop, dated today. */
  {
    GtkWidget *row = hr_prices_page_get_row (page, "rtx-3090");
    GtkSpinButton *price = GTK_SPIN_BUTTON (find_descendant (row, GTK_TYPE_SPIN_BUTTON));
    g_autofree char *today = NULL;
    g_autoptr(GDateTime) now = g_date_time_new_now_local ();
    g_autoptr(JsonObject) edited = NULL;
    gint64 deadline;

    gtk_spin_button_set_value (price, 950);
    gtk_spin_button_set_value (price, 900);
    g_assert_null (user_entry (HR_USER_CATALOG_GPUS, "rtx-3090"));
    deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    while (!hr_prices_page_is_custom (page, "rtx-3090") && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
    edited = user_entry (HR_USER_CATALOG_GPUS, "rtx-3090");
    g_assert_nonnull (edited);
    g_assert_cmpfloat (json_object_get_double_member (edited, "price_usd"), ==, 900);
    today = g_date_time_format (now, "%Y-%m-%d");
    g_assert_cmpstr (json_object_get_string_member (edited, "price_as_of"), ==, today);
    g_assert_true (hr_prices_page_reset (page, "rtx-3090", &error));
    g_assert_no_error (error);
  }

  /* Reset brings the built-in price back. */
  g_assert_true (hr_prices_page_reset (page, "rtx-4090", &error));
  g_assert_no_error (error);
  g_assert_false (hr_prices_page_is_custom (page, "rtx-4090"));
  g_assert_null (user_entry (HR_USER_CATALOG_GPUS, "rtx-4090"));
  builtin = hr_catalog_find_gpu (hr_catalog_get_default (), "rtx-4090");
  g_assert_cmpint (builtin->origin, ==, HR_ORIGIN_BUILTIN);
  g_assert_cmpfloat (builtin->price_usd, ==, builtin_price);
  g_assert_null (badge_text (picker_row (window, "gpu_list", "rtx-4090")));
  g_assert_cmpfloat (hr_test_scenario (window)->gpu->price_usd, ==, builtin_price);

  gtk_window_destroy (GTK_WINDOW (prefs));
  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
    }
  g_remove (path);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data_home = NULL;
  int status;

  tmp_dir = g_dir_make_tmp ("headroom-test-model-import-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* The user catalog lives here, before anything reads the catalog. */
  data_home = g_build_filename (tmp_dir, "data", NULL);
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_printerr ("test-model-import: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();
  {
    /* The application's style sheet, as the app loads it: badges in the
     * screenshots look as users see them. */
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, "/io/github/vramlab/Headroom/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }

  g_test_add_func ("/model-import/routing", test_routing);
  g_test_add_func ("/model-import/import-and-add", test_import_and_add);
  g_test_add_func ("/model-import/weights-only", test_weights_only);
  g_test_add_func ("/model-import/broken-config", test_broken_config);
  g_test_add_func ("/model-import/gpu-editor", test_gpu_editor);
  g_test_add_func ("/model-import/prices", test_prices);
  status = g_test_run ();

  remove_tree (tmp_dir);
  return status;
}
