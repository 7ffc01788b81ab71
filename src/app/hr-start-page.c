/* hr-start-page.c: the start page, the examples and the recent files
 *
 * The examples are the scenarios installed in $datadir/headroom/examples
 * (HEADROOM_EXAMPLES_DIR names another folder: the build tree's, in
 * `meson devenv` and the tests).  The main menu's "Open Example" and the
 * start page list them by name; "Open Recent" and the start page list
 * the scenarios GtkRecentManager remembers Headroom opening or saving.
 * Every row and menu item is a win.open-file with the file's path: the
 * page opens nothing itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-start-page"

#include <glib/gi18n.h>

#include "hr-core.h"
#include "hr-start-page.h"

#define MAX_RECENT 6

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
} Example;

static void
example_clear (gpointer data)
{
  Example *example = data;

  g_free (example->path);
  g_free (example->name);
}

static int
example_compare (gconstpointer a,
                 gconstpointer b)
{
  return g_utf8_collate (((const Example *) a)->name, ((const Example *) b)->name);
}

char *
hr_start_page_dup_scenario_name (const char *path)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (path, NULL);
  JsonNode *root = doc != NULL ? hr_json_doc_get_root (doc) : NULL;
  JsonObject *object;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  object = json_node_get_object (root);
  if (!json_object_has_member (object, "headroom_scenario"))
    return NULL;
  if (json_object_has_member (object, "name")
      && JSON_NODE_HOLDS_VALUE (json_object_get_member (object, "name"))
      && json_node_get_value_type (json_object_get_member (object, "name")) == G_TYPE_STRING
      && json_object_get_string_member (object, "name")[0] != '\0')
    return g_strdup (json_object_get_string_member (object, "name"));
  return g_path_get_basename (path);
}

static GArray *
list_examples (void)
{
  GArray *examples = g_array_new (FALSE, TRUE, sizeof (Example));
  g_autoptr(GDir) dir = g_dir_open (hr_start_page_get_examples_dir (), 0, NULL);
  const char *entry;

  g_array_set_clear_func (examples, example_clear);
  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      Example example;

      if (!g_str_has_suffix (entry, ".json"))
        continue;
      example.path = g_build_filename (hr_start_page_get_examples_dir (), entry, NULL);
      example.name = hr_start_page_dup_scenario_name (example.path);
      if (example.name == NULL)
        {
          g_free (example.path);
          continue;
        }
      g_array_append_val (examples, example);
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
      g_autofree char *label = menu_label (example->name);
      g_autofree char *base = g_path_get_basename (example->path);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.open-file",
                                               g_variant_new_string (example->path));
      g_menu_append_item (self->examples_menu, item);
      gtk_list_box_append (self->examples_list, file_row (example->name, base,
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
      label = menu_label (name);
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
