/* hr-model-import-dialog.c: what an imported model is, before it is added
 *
 * The file is read when the dialog opens (headers only: an import takes
 * milliseconds), and the dialog shows what the import read, the parameter
 * count and how it was found, the weights' element types, and what was
 * assumed.  Only "Add to Catalog" writes anything, to the user's catalog.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-model-import-dialog"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <string.h>

#include "hr-format.h"
#include "hr-model-import-dialog.h"

struct _HrModelImportDialog
{
  AdwWindow             parent_instance;

  HrImport             *import;
  GError               *error;
  char                 *id_message;

  AdwWindowTitle       *title;
  GtkButton            *add_button;
  AdwPreferencesPage   *page;
  AdwEntryRow          *name_row;
  AdwEntryRow          *id_row;
  GtkLabel             *id_label;
  GtkLabel             *add_error_label;
};

G_DEFINE_FINAL_TYPE (HrModelImportDialog, hr_model_import_dialog, ADW_TYPE_WINDOW)

enum {
  MODEL_ADDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkWidget *
group_new (HrModelImportDialog *self,
           const char          *title,
           const char          *description)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), description);
  adw_preferences_page_add (self->page, ADW_PREFERENCES_GROUP (group));
  return group;
}

static GtkWidget *
info_row_new (GtkWidget  *group,
              const char *title,
              const char *value)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (value != NULL)
    {
      GtkWidget *label = gtk_label_new (value);

      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "dim-label");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
    }
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  return row;
}

/* "494,032,768 (494 M)", in the locale's digits. */
static char *
format_count (guint64 params)
{
  g_autofree char *short_form = hr_format_params (params);

  return g_strdup_printf ("%'" G_GUINT64_FORMAT " (%s)", params, short_form);
}

/* What a table row of the weights says about quantisation, or NULL. */
static const char *
dtype_flag (const HrImportDtype *d)
{
  if (g_str_has_prefix (d->dtype, "F8") || g_str_has_prefix (d->dtype, "FP8"))
    return _("FP8");
  if (d->params > 0 && d->bits_per_weight < 7.5)
    return d->bits_per_weight < 4.75 ? _("4-bit") : _("quantised");
  if (g_str_equal (d->dtype, "I8") || g_str_equal (d->dtype, "Q8_0"))
    return _("8-bit");
  return NULL;
}

static void
show_parameters (HrModelImportDialog *self)
{
  const HrImport *import = self->import;
  g_autofree char *total = format_count (import->params);
  GtkWidget *group = group_new (self, _("Parameters"), NULL);

  info_row_new (group, _("Stored"), total);
  if (import->experts > 0)
    {
      g_autofree char *active = format_count (import->active_params);
      g_autofree char *title = g_strdup_printf (_("Active per token (%u of %u experts)"),
                                                import->experts_per_token, import->experts);

      info_row_new (group, title, active);
    }
  info_row_new (group, _("Counted"), import->params_exact
                                       ? _("Exactly, from the weights’ headers")
                                       : _("From the architecture in the config"));
  if (import->params_exact && import->params_from_config > 0)
    {
      g_autofree char *config = format_count (import->params_from_config);

      info_row_new (group, _("The config’s architecture gives"), config);
    }
  if (import->quantization != NULL)
    {
      GtkWidget *row = info_row_new (group, _("Quantised weights"), import->quantization);

      gtk_widget_add_css_class (row, "warning");
    }
}

static void
show_dtypes (HrModelImportDialog *self)
{
  const HrImport *import = self->import;
  g_autofree char *size = hr_size_format ((double) import->weight_bytes, HR_SIZE_GIB);
  g_autofree char *description = g_strdup_printf (_("%s of weights in the files"), size);
  GtkWidget *group;

  if (import->dtypes->len == 0)
    return;

  group = group_new (self, _("Stored As"), description);
  for (guint i = 0; i < import->dtypes->len; i++)
    {
      const HrImportDtype *d = g_ptr_array_index (import->dtypes, i);
      g_autofree char *bytes = hr_size_format ((double) d->bytes, HR_SIZE_GIB);
      g_autofree char *subtitle = NULL;
      GtkWidget *row = info_row_new (group, d->dtype, NULL);
      const char *flag = dtype_flag (d);

      if (d->params > 0)
        subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                 "%'" PRIu64 " parameters in %u "
                                                 "tensor · %.2f bits each · %s",
                                                 "%'" PRIu64 " parameters in %u "
                                                 "tensors · %.2f bits each · %s",
                                                 d->tensors),
                                    (uint64_t) d->params, d->tensors, d->bits_per_weight, bytes);
      else
        subtitle = g_strdup_printf (_("Quantisation constants · %s"), bytes);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      if (flag != NULL)
        {
          GtkWidget *tag = gtk_label_new (flag);

          gtk_widget_set_valign (tag, GTK_ALIGN_CENTER);
          gtk_widget_add_css_class (tag, "custom-badge");
          gtk_widget_add_css_class (tag, "warning");
          adw_action_row_add_suffix (ADW_ACTION_ROW (row), tag);
        }
    }
}

static void
show_lines (HrModelImportDialog *self,
            const char          *title,
            const char          *description,
            const char          *icon_name,
            GPtrArray           *lines)
{
  GtkWidget *group;

  if (lines->len == 0)
    return;

  group = group_new (self, title, description);
  for (guint i = 0; i < lines->len; i++)
    {
      GtkWidget *row = info_row_new (group, g_ptr_array_index (lines, i), NULL);

      adw_action_row_set_icon_name (ADW_ACTION_ROW (row), icon_name);
      gtk_widget_add_css_class (row, "property");
    }
}

/* "path:3:20: message" as "Line 3, column 20: message". */
static char *
describe_error (const GError *error)
{
  g_autoptr(GRegex) regex = g_regex_new ("^(.*?):([0-9]+):([0-9]+): (.*)$",
                                         G_REGEX_DOTALL, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  if (g_regex_match (regex, error->message, 0, &match))
    {
      g_autofree char *line = g_match_info_fetch (match, 2);
      g_autofree char *column = g_match_info_fetch (match, 3);
      g_autofree char *message = g_match_info_fetch (match, 4);

      return g_strdup_printf (_("Line %s, column %s: %s"), line, column, message);
    }

  return g_strdup (error->message);
}

static void
show_error (HrModelImportDialog *self,
            const char          *path)
{
  g_autofree char *description = describe_error (self->error);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *title = g_strdup_printf (_("Could Not Read “%s”"), name);
  GtkWidget *group = group_new (self, title, NULL);
  GtkWidget *label = gtk_label_new (description);
  GtkWidget *row;

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "error");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), label);
  row = info_row_new (group, _("File"), NULL);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), path);
  adw_action_row_set_icon_name (ADW_ACTION_ROW (row), "dialog-error-symbolic");
  gtk_widget_set_margin_top (row, 12);
  info_row_new (group, _("Nothing was added to your catalog"), NULL);
}

static gboolean
is_blank (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_isspace (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

/* Says what adding under the id would do, and whether it can. */
static void
update_id (HrModelImportDialog *self)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_row));
  const char *id = gtk_editable_get_text (GTK_EDITABLE (self->id_row));
  const HrModel *existing = NULL;
  gboolean valid = hr_catalog_id_is_valid (id);
  gboolean ok = FALSE;

  g_clear_pointer (&self->id_message, g_free);
  if (valid)
    existing = hr_catalog_find_model (hr_catalog_get_default (), id);

  if (self->import->model == NULL)
    self->id_message = g_strdup (_("The weights alone do not give the architecture: add the "
                                   "model folder or the config.json beside them instead"));
  else if (!valid)
    self->id_message = g_strdup (_("An id holds only lowercase letters, digits, “-”, “.” "
                                   "and “_”"));
  else if (is_blank (name))
    self->id_message = g_strdup (_("The model needs a name"));
  else if (existing != NULL && existing->origin == HR_ORIGIN_BUILTIN)
    {
      self->id_message = g_strdup_printf (_("Replaces the built-in “%s” with this id. The "
                                            "built-in entry is kept and comes back when you "
                                            "remove yours."), existing->name);
      ok = TRUE;
    }
  else if (existing != NULL)
    {
      self->id_message = g_strdup_printf (existing->origin == HR_ORIGIN_USER_OVERRIDE
                                            ? _("Replaces your “%s”, which already replaces a "
                                                "built-in model")
                                            : _("Replaces your “%s” with this id"),
                                          existing->name);
      ok = TRUE;
    }
  else
    {
      self->id_message = g_strdup (_("A new model in your catalog"));
      ok = TRUE;
    }

  gtk_label_set_text (self->id_label, self->id_message);
  if (ok)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->id_row), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->id_label), "error");
    }
  else
    {
      if (self->import->model != NULL)
        gtk_widget_add_css_class (GTK_WIDGET (self->id_row), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->id_label), "error");
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->add_button), ok);
}

static void
on_entry_changed (GtkEditable         *editable,
                  HrModelImportDialog *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->add_error_label), FALSE);
  update_id (self);
}

static void
show_model (HrModelImportDialog *self)
{
  JsonObject *model = self->import->model != NULL ? json_node_get_object (self->import->model)
                                                  : NULL;
  const char *name = model != NULL ? json_object_get_string_member (model, "name") : NULL;
  const char *id = model != NULL ? json_object_get_string_member (model, "id") : NULL;
  g_autofree char *made_id = hr_import_make_id (name);
  GtkWidget *group = group_new (self, _("In Your Catalog"), NULL);

  self->name_row = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->name_row), _("Name"));
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), name != NULL ? name : "");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->name_row));

  self->id_row = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->id_row), _("Id"));
  gtk_editable_set_text (GTK_EDITABLE (self->id_row), id != NULL ? id : made_id);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->id_row));

  self->id_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->id_label, TRUE);
  gtk_label_set_xalign (self->id_label, 0);
  gtk_widget_set_margin_top (GTK_WIDGET (self->id_label), 6);
  gtk_widget_add_css_class (GTK_WIDGET (self->id_label), "caption");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->id_label));

  self->add_error_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->add_error_label, TRUE);
  gtk_label_set_xalign (self->add_error_label, 0);
  gtk_label_set_selectable (self->add_error_label, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->add_error_label), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->add_error_label), FALSE);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->add_error_label));

  /* Nothing to name when the files do not give a model. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->name_row), model != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->id_row), model != NULL);
  g_signal_connect (self->name_row, "changed", G_CALLBACK (on_entry_changed), self);
  g_signal_connect (self->id_row, "changed", G_CALLBACK (on_entry_changed), self);
  update_id (self);
}

static void
on_add_clicked (GtkButton           *button,
                HrModelImportDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (hr_model_import_dialog_add (self, &error))
    {
      gtk_window_close (GTK_WINDOW (self));
      return;
    }
  gtk_label_set_text (self->add_error_label, error->message);
  gtk_widget_set_visible (GTK_WIDGET (self->add_error_label), TRUE);
}

static void
hr_model_import_dialog_finalize (GObject *object)
{
  HrModelImportDialog *self = HR_MODEL_IMPORT_DIALOG (object);

  g_clear_pointer (&self->import, hr_import_free);
  g_clear_error (&self->error);
  g_clear_pointer (&self->id_message, g_free);
  G_OBJECT_CLASS (hr_model_import_dialog_parent_class)->finalize (object);
}

static void
hr_model_import_dialog_class_init (HrModelImportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = hr_model_import_dialog_finalize;

  /**
   * HrModelImportDialog::model-added:
   * @id: the model's id in the catalog
   *
   * The model is in the user's catalog: the window reads the catalog again
   * and selects it.
   */
  signals[MODEL_ADDED] = g_signal_new ("model-added", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
hr_model_import_dialog_init (HrModelImportDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));

  self->title = ADW_WINDOW_TITLE (adw_window_title_new (_("Add Model"), NULL));
  self->add_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Add to Catalog")));
  gtk_widget_add_css_class (GTK_WIDGET (self->add_button), "suggested-action");
  gtk_widget_set_sensitive (GTK_WIDGET (self->add_button), FALSE);
  g_signal_connect (self->add_button, "clicked", G_CALLBACK (on_add_clicked), self);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "window.close");

  adw_header_bar_set_show_end_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), GTK_WIDGET (self->title));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), cancel);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), GTK_WIDGET (self->add_button));

  self->page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->page), TRUE);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->page));
  adw_window_set_content (ADW_WINDOW (self), box);

  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (self), 620, 720);
  gtk_window_set_title (GTK_WINDOW (self), _("Add Model"));
}

HrModelImportDialog *
hr_model_import_dialog_new (GtkWindow  *parent,
                            const char *path)
{
  HrModelImportDialog *self;
  g_autofree char *name = NULL;
  g_autofree char *read = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (HR_TYPE_MODEL_IMPORT_DIALOG, "transient-for", parent, NULL);
  name = g_path_get_basename (path);
  adw_window_title_set_subtitle (self->title, name);

  self->import = hr_import_path (path, &self->error);
  if (self->import == NULL)
    {
      show_error (self, path);
      return self;
    }

  read = g_strdup_printf (_("%s, read as %s; tensor data is never loaded"), path,
                          hr_import_format_names[self->import->format]);
  show_model (self);
  show_parameters (self);
  show_dtypes (self);
  show_lines (self, _("Assumed"), _("What the files did not say"),
              "dialog-information-symbolic", self->import->notes);
  show_lines (self, _("Read"), read, "document-open-symbolic", self->import->read);
  return self;
}

const HrImport *
hr_model_import_dialog_get_import (HrModelImportDialog *self)
{
  g_return_val_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self), NULL);
  return self->import;
}

const GError *
hr_model_import_dialog_get_error (HrModelImportDialog *self)
{
  g_return_val_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self), NULL);
  return self->error;
}

void
hr_model_import_dialog_set_name (HrModelImportDialog *self,
                                 const char          *name)
{
  g_return_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self));
  g_return_if_fail (self->name_row != NULL);
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), name);
}

void
hr_model_import_dialog_set_id (HrModelImportDialog *self,
                               const char          *id)
{
  g_return_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self));
  g_return_if_fail (self->id_row != NULL);
  gtk_editable_set_text (GTK_EDITABLE (self->id_row), id);
}

const char *
hr_model_import_dialog_get_id (HrModelImportDialog *self)
{
  g_return_val_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self), NULL);
  return self->id_row != NULL ? gtk_editable_get_text (GTK_EDITABLE (self->id_row)) : NULL;
}

const char *
hr_model_import_dialog_get_id_message (HrModelImportDialog *self)
{
  g_return_val_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self), NULL);
  return self->id_message;
}

gboolean
hr_model_import_dialog_can_add (HrModelImportDialog *self)
{
  g_return_val_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self), FALSE);
  return gtk_widget_get_sensitive (GTK_WIDGET (self->add_button));
}

gboolean
hr_model_import_dialog_add (HrModelImportDialog  *self,
                            GError              **error)
{
  g_autoptr(JsonNode) entry = NULL;
  g_autofree char *name = NULL;
  g_autofree char *id = NULL;
  JsonObject *object;

  g_return_val_if_fail (HR_IS_MODEL_IMPORT_DIALOG (self), FALSE);

  if (!hr_model_import_dialog_can_add (self))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID, "%s",
                   self->id_message != NULL ? self->id_message
                                            : _("The file could not be read"));
      return FALSE;
    }

  name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_row))));
  id = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->id_row)));
  entry = hr_import_model_json (self->import);
  object = json_node_get_object (entry);
  json_object_set_string_member (object, "id", id);
  json_object_set_string_member (object, "name", name);
  if (!hr_user_catalog_save_model (entry, NULL, error))
    return FALSE;

  g_signal_emit (self, signals[MODEL_ADDED], 0, id);
  return TRUE;
}

static gboolean
json_names_a_model (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GBytes) head = NULL;
  const char *buffer;
  gsize n;

  /* read as every reader reads: a pipe or device is refused at once */
  if (path != NULL)
    head = hr_file_load_head (path, 1024, NULL);
  if (head == NULL)
    return FALSE;
  buffer = g_bytes_get_data (head, &n);
  if (n == 0 || g_strstr_len (buffer, n, "\"headroom_scenario\"") != NULL)
    return FALSE;
  return g_strstr_len (buffer, n, "\"model_type\"") != NULL
         || g_strstr_len (buffer, n, "\"architectures\"") != NULL
         || g_strstr_len (buffer, n, "\"weight_map\"") != NULL;
}

gboolean
hr_model_import_file_is_model (GFile *file)
{
  g_autofree char *name = g_file_get_basename (file);
  GFileType type = g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL);

  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (type == G_FILE_TYPE_DIRECTORY)
    return TRUE;
  if (name == NULL)
    return FALSE;
  if (g_str_has_suffix (name, ".safetensors") || g_str_has_suffix (name, ".gguf"))
    return TRUE;
  if (g_str_has_suffix (name, ".json"))
    return json_names_a_model (file);
  return FALSE;
}
