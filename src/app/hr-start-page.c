/* hr-start-page.c: the start page, the examples and the recent files
 *
 * The examples are the scenarios installed in $datadir/headroom/examples
 * (HEADROOM_EXAMPLES_DIR names another folder: the build tree's, in
 * `meson devenv` and the tests).  The main menu's "Open Example" and the
 * start page list them by name; "Open Recent" and the start page list
 * the scenarios GtkRecentManager remembers Headroom opening or saving.
 * Every row and menu item is a win.open-file with the file's path: the
 * page opens nothing itself.  An example opens as an untitled copy
 * (hr_start_page_is_example()): saving it asks where, and the installed
 * file stays as it was.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-start-page"

#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>

#include "hr-core.h"
#include "hr-start-page.h"

#define MAX_RECENT 6
/* Characters of a scenario's name in an Open Recent item. */
#define MAX_MENU_NAME 40

struct _HrStartPage
{
  AdwBin                parent_instance;

  GMenu                *examples_menu;
  GMenu                *recent_menu;

  /* Template objects, in alphabetical order */
  AdwPreferencesGroup  *examples_group;
  GtkListBox           *examples_list;
  GtkButton            *new_button;
  AdwPreferencesGroup  *recent_group;
  GtkListBox           *recent_list;
  AdwStatusPage        *status_page;
};

G_DEFINE_FINAL_TYPE (HrStartPage, hr_start_page, ADW_TYPE_BIN)

const char *
hr_start_page_get_examples_dir (void)
{
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");

  return dir != NULL && dir[0] != '\0' ? dir : HEADROOM_EXAMPLES_DIR;
}

static void
list_box_clear (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

/* The examples: (path, name) pairs sorted by name. */
typedef struct {
  char *path;
  char *name;
  char *label;   /* short: the model's name, and the card's where two share it */
  char *gpu;     /* the card's name, or NULL */
} Example;

static void
example_clear (gpointer data)
{
  Example *example = data;

  g_free (example->path);
  g_free (example->name);
  g_free (example->label);
  g_free (example->gpu);
}

static int
example_compare (gconstpointer a,
                 gconstpointer b)
{
  const Example *ea = a, *eb = b;
  int by_label = g_utf8_collate (ea->label, eb->label);

  return by_label != 0 ? by_label : g_utf8_collate (ea->name, eb->name);
}

/* @path with its links and ".." resolved, or NULL when it does not exist. */
static char *
dup_real_path (const char *path)
{
  char *real = realpath (path, NULL);
  char *copy = g_strdup (real);

  free (real);
  return copy;
}

gboolean
hr_start_page_is_example (GFile *file)
{
  const char *dirs[] = { hr_start_page_get_examples_dir (), HEADROOM_EXAMPLES_DIR,
                         HEADROOM_SOURCE_EXAMPLES_DIR };
  g_autofree char *path = NULL;
  g_autofree char *real = NULL;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  path = g_file_get_path (file);
  real = path != NULL ? dup_real_path (path) : NULL;
  if (real == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *dir = dup_real_path (dirs[i]);

      if (dir != NULL && g_str_has_prefix (real, dir)
          && real[strlen (dir)] == G_DIR_SEPARATOR)
        return TRUE;
    }
  return FALSE;
}

/* The scenario object of @doc, or NULL when it is not a scenario. */
static JsonObject *
scenario_object (HrJsonDoc *doc)
{
  JsonNode *root = doc != NULL ? hr_json_doc_get_root (doc) : NULL;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)
      || !json_object_has_member (json_node_get_object (root), "headroom_scenario"))
    return NULL;
  return json_node_get_object (root);
}

static char *
dup_name (JsonObject *object,
          const char *path)
{
  if (json_object_has_member (object, "name")
      && JSON_NODE_HOLDS_VALUE (json_object_get_member (object, "name"))
      && json_node_get_value_type (json_object_get_member (object, "name")) == G_TYPE_STRING
      && json_object_get_string_member (object, "name")[0] != '\0')
    return g_strdup (json_object_get_string_member (object, "name"));
  return g_path_get_basename (path);
}

char *
hr_start_page_dup_scenario_name (const char *path)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (path, NULL);
  JsonObject *object = scenario_object (doc);

  return object != NULL ? dup_name (object, path) : NULL;
}

/* The catalog name of the scenario's "model" or "gpu" (an id, or an
 * object written inline with its own "name"); NULL when it has none. */
static char *
dup_entry_name (JsonObject *scenario,
                const char *member,
                gboolean    is_model)
{
  JsonNode *node = json_object_get_member (scenario, member);
  HrCatalog *catalog = hr_catalog_get_default ();
  const char *id;

  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      JsonNode *name = json_object_get_member (object, "name");

      return name != NULL && JSON_NODE_HOLDS_VALUE (name)
               && json_node_get_value_type (name) == G_TYPE_STRING
               ? g_strdup (json_node_get_string (name)) : NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  id = json_node_get_string (node);
  if (is_model)
    {
      const HrModel *model = hr_catalog_find_model (catalog, id);

      return model != NULL ? g_strdup (model->name) : NULL;
    }
  else
    {
      const HrGpu *gpu = hr_catalog_find_gpu (catalog, id);

      return gpu != NULL ? g_strdup (gpu->name) : NULL;
    }
}

static GArray *
list_examples (void)
{
  GArray *examples = g_array_new (FALSE, TRUE, sizeof (Example));
  g_autoptr(GDir) dir = g_dir_open (hr_start_page_get_examples_dir (), 0, NULL);
  g_autoptr(GHashTable) models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *entry;

  g_array_set_clear_func (examples, example_clear);
  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      Example example = { 0 };
      g_autoptr(HrJsonDoc) doc = NULL;
      JsonObject *object;

      if (!g_str_has_suffix (entry, ".json"))
        continue;
      example.path = g_build_filename (hr_start_page_get_examples_dir (), entry, NULL);
      /* Each file read once: its name, its model's and its card's. */
      doc = hr_json_doc_load_file (example.path, NULL);
      object = scenario_object (doc);
      if (object == NULL)
        {
          g_free (example.path);
          continue;
        }
      example.name = dup_name (object, example.path);
      example.label = dup_entry_name (object, "model", TRUE);
      example.gpu = dup_entry_name (object, "gpu", FALSE);
      /* An example of a model the catalog does not know keeps its file
       * name, which is short too. */
      if (example.label == NULL)
        example.label = g_path_get_basename (example.path);
      /* "DINO-WM (DINOv2 ViT-S/14 + ViT predictor)": the name before the
       * parenthesis is the short one. */
      else if (strstr (example.label, " (") != NULL && strstr (example.label, " (") != example.label)
        *strstr (example.label, " (") = '\0';
      g_hash_table_insert (models, g_strdup (example.label),
                           GINT_TO_POINTER (GPOINTER_TO_INT (g_hash_table_lookup (models,
                                                                                example.label))
                                            + 1));
      g_array_append_val (examples, example);
    }
  /* Two examples of one model are told apart by their cards. */
  for (guint i = 0; i < examples->len; i++)
    {
      Example *example = &g_array_index (examples, Example, i);

      if (GPOINTER_TO_INT (g_hash_table_lookup (models, example->label)) > 1
          && example->gpu != NULL)
        {
          /* Translators: an example's short name, "GR00T N1.7 on H100 SXM5 80GB" */
          char *label = g_strdup_printf (_("%s on %s"), example->label, example->gpu);

          g_free (example->label);
          example->label = label;
        }
    }
  g_array_sort (examples, example_compare);
  return examples;
}

/* A menu label shows "_" as a mnemonic: doubled, it is a "_". */
static char *
menu_label (const char *text)
{
  g_auto(GStrv) parts = g_strsplit (text, "_", -1);

  return g_strjoinv ("__", parts);
}

static GtkWidget *
file_row (const char *title,
          const char *subtitle,
          const char *path)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *arrow = gtk_image_new_from_icon_name ("go-next-symbolic");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), arrow);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  /* Enter or a click opens it. */
  gtk_actionable_set_action_name (GTK_ACTIONABLE (row), "win.open-file");
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (row), g_variant_new_string (path));
  return row;
}

static void
fill_examples (HrStartPage *self)
{
  g_autoptr(GArray) examples = list_examples ();

  g_menu_remove_all (self->examples_menu);
  list_box_clear (self->examples_list);
  for (guint i = 0; i < examples->len; i++)
    {
      Example *example = &g_array_index (examples, Example, i);
      g_autofree char *label = menu_label (example->label);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      /* The menu shows the short name; the page, the full one below it. */
      g_menu_item_set_action_and_target_value (item, "win.open-file",
                                               g_variant_new_string (example->path));
      g_menu_append_item (self->examples_menu, item);
      gtk_list_box_append (self->examples_list, file_row (example->label, example->name,
                                                          example->path));
    }
  gtk_widget_set_visible (GTK_WIDGET (self->examples_group), examples->len > 0);
  /* Run from the build tree outside `meson devenv`, or installed without
   * them, there are none: the page says so and where it looked, and
   * offers what is there (New Scenario, Open). */
  if (examples->len == 0)
    {
      g_autofree char *text = g_strdup_printf (_("Open a scenario, or describe your own run. "
                                                 "No examples were found in %s."),
                                               hr_start_page_get_examples_dir ());
      /* an item without an action, which the menu shows greyed out */
      g_autoptr(GMenuItem) none = g_menu_item_new (_("No Examples Installed"), NULL);

      g_menu_append_item (self->examples_menu, none);
      adw_status_page_set_description (self->status_page, text);
    }
  else
    adw_status_page_set_description (self->status_page,
                                     _("Start from one of the examples, open a scenario, or "
                                       "describe your own run"));
}

static gint
recent_compare (gconstpointer a,
                gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *tb = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);

  return -g_date_time_compare (ta, tb);
}

/* Headroom's scenarios among the recent files, newest first. */
static GPtrArray *
list_recent (void)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  GPtrArray *recent = g_ptr_array_new_with_free_func ((GDestroyNotify) gtk_recent_info_unref);
  /* (NULL in a program that never named itself, such as a benchmark) */
  const char *name = g_get_application_name ();

  for (GList *l = items; l != NULL; l = l->next)
    {
      GtkRecentInfo *info = l->data;

      if (name != NULL && gtk_recent_info_has_application (info, name)
          && gtk_recent_info_is_local (info) && gtk_recent_info_exists (info)
          && g_str_has_suffix (gtk_recent_info_get_uri (info), ".json"))
        g_ptr_array_add (recent, gtk_recent_info_ref (info));
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  g_ptr_array_sort (recent, recent_compare);
  if (recent->len > MAX_RECENT)
    g_ptr_array_set_size (recent, MAX_RECENT);
  return recent;
}

/* A folder as a person reads it: the home folder as "~". */
static char *
display_folder (const char *folder)
{
  const char *home = g_get_home_dir ();
  gsize length = strlen (home);
  g_autofree char *shown = NULL;

  if (length > 1 && g_str_has_prefix (folder, home)
      && (folder[length] == '\0' || folder[length] == G_DIR_SEPARATOR))
    shown = g_strconcat ("~", folder + length, NULL);
  else
    shown = g_strdup (folder);
  return g_filename_display_name (shown);
}

static void
fill_recent (HrStartPage *self)
{
  g_autoptr(GPtrArray) recent = list_recent ();

  g_menu_remove_all (self->recent_menu);
  list_box_clear (self->recent_list);
  for (guint i = 0; i < recent->len; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (recent, i);
      g_autoptr(GFile) file = g_file_new_for_uri (gtk_recent_info_get_uri (info));
      g_autofree char *path = g_file_get_path (file);
      g_autofree char *name = NULL;
      g_autofree char *label = NULL;
      g_autoptr(GMenuItem) item = NULL;

      if (path == NULL)
        continue;
      name = hr_start_page_dup_scenario_name (path);
      if (name == NULL)
        name = g_path_get_basename (path);
      /* Two scenarios of one name are told apart by their folders; a
       * name may be a sentence, of which a menu item shows the start (the
       * page shows it whole). */
      {
        g_autofree char *folder = g_path_get_dirname (path);
        g_autofree char *shown = display_folder (folder);
        /* g_utf8_substring () must not be asked past the string's end */
        gboolean cut = g_utf8_strlen (name, -1) > MAX_MENU_NAME;
        g_autofree char *start = cut ? g_utf8_substring (name, 0, MAX_MENU_NAME - 1) : NULL;
        g_autofree char *short_name = cut ? g_strconcat (g_strchomp (start), "…", NULL)
                                          : g_strdup (name);
        /* Translators: an Open Recent item, "Llama 3.1 8B LoRA — ~/runs" */
        g_autofree char *text = g_strdup_printf (_("%s — %s"), short_name, shown);

        label = menu_label (text);
      }
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-file",
                                               g_variant_new_string (path));
      g_menu_append_item (self->recent_menu, item);
      gtk_list_box_append (self->recent_list, file_row (name, path, path));
    }
  gtk_widget_set_visible (GTK_WIDGET (self->recent_group), recent->len > 0);
}

void
hr_start_page_add_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  GtkRecentData data = { 0 };
  static char *groups[] = { (char *) "headroom", NULL };

  /* The examples have their own list (and open as copies). */
  if (hr_start_page_is_example (file))
    return;

  data.display_name = NULL;
  data.mime_type = (char *) "application/json";
  data.app_name = (char *) g_get_application_name ();
  data.app_exec = (char *) "headroom %f";
  data.groups = groups;
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static void
on_recent_changed_cb (GtkRecentManager *manager,
                      HrStartPage      *self)
{
  fill_recent (self);
}

/* Shown, the page gives the focus to New Scenario. */
static gboolean
hr_start_page_grab_focus (GtkWidget *widget)
{
  return gtk_widget_grab_focus (GTK_WIDGET (HR_START_PAGE (widget)->new_button));
}

static void
hr_start_page_dispose (GObject *object)
{
  HrStartPage *self = HR_START_PAGE (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_START_PAGE);
  g_clear_object (&self->examples_menu);
  g_clear_object (&self->recent_menu);
  G_OBJECT_CLASS (hr_start_page_parent_class)->dispose (object);
}

static void
hr_start_page_class_init (HrStartPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_start_page_dispose;
  widget_class->grab_focus = hr_start_page_grab_focus;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/hr-start-page.ui");
  gtk_widget_class_bind_template_child (widget_class, HrStartPage, examples_group);
  gtk_widget_class_bind_template_child (widget_class, HrStartPage, examples_list);
  gtk_widget_class_bind_template_child (widget_class, HrStartPage, new_button);
  gtk_widget_class_bind_template_child (widget_class, HrStartPage, recent_group);
  gtk_widget_class_bind_template_child (widget_class, HrStartPage, recent_list);
  gtk_widget_class_bind_template_child (widget_class, HrStartPage, status_page);
}

static void
hr_start_page_init (HrStartPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->examples_menu = g_menu_new ();
  self->recent_menu = g_menu_new ();
  fill_examples (self);
  fill_recent (self);
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (on_recent_changed_cb), self, 0);
}

GtkWidget *
hr_start_page_new (void)
{
  return g_object_new (HR_TYPE_START_PAGE, NULL);
}

GMenuModel *
hr_start_page_get_examples_menu (HrStartPage *self)
{
  g_return_val_if_fail (HR_IS_START_PAGE (self), NULL);
  return G_MENU_MODEL (self->examples_menu);
}

GMenuModel *
hr_start_page_get_recent_menu (HrStartPage *self)
{
  g_return_val_if_fail (HR_IS_START_PAGE (self), NULL);
  return G_MENU_MODEL (self->recent_menu);
}
