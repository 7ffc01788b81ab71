/* hr-window-catalog.c: the window's own models and GPUs (add, edit, remove)
 *
 * Everything here goes through the window's public API: the dialogs write
 * the user's catalog, and hr_window_reload_catalog() shows the result.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window-catalog"

#include <glib/gi18n.h>

#include "hr-file-chooser.h"
#include "hr-gpu-editor.h"
#include "hr-model-import-dialog.h"
#include "hr-window-private.h"

static void
on_model_added (HrModelImportDialog *dialog,
                const char          *id,
                HrWindow            *self)
{
  hr_window_reload_catalog (self, id);
}

static void
on_gpu_saved (HrGpuEditor *editor,
              const char  *id,
              HrWindow    *self)
{
  hr_window_reload_catalog (self, NULL);
  hr_window_set_gpu_active (self, id, TRUE);
}

GtkWindow *
hr_window_import_model (HrWindow *self,
                        GFile    *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = g_file_get_basename (file);
  HrModelImportDialog *dialog;

  g_return_val_if_fail (HR_IS_WINDOW (self), NULL);

  if (path == NULL)
    path = g_file_get_uri (file);
  else if (g_strcmp0 (name, "config.json") == 0)
    {
      /* The folder gives the exact count when the weights are beside it. */
      char *dir = g_path_get_dirname (path);

      g_free (path);
      path = dir;
    }

  dialog = hr_model_import_dialog_new (GTK_WINDOW (self), path);
  g_signal_connect_object (dialog, "model-added", G_CALLBACK (on_model_added), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return GTK_WINDOW (dialog);
}

static void
model_chosen (GFile    *file,
              gpointer  user_data)
{
  hr_window_import_model (HR_WINDOW (user_data), file);
}

static GtkFileFilter *
model_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Models (config.json, safetensors, GGUF)"));
  gtk_file_filter_add_pattern (filter, "*.json");
  gtk_file_filter_add_pattern (filter, "*.safetensors");
  gtk_file_filter_add_pattern (filter, "*.gguf");
  return filter;
}

void
_hr_window_add_model_action (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GtkFileFilter) filter = model_filter ();

  hr_file_chooser_open (GTK_WINDOW (self), _("Add Model"), _("_Read"), filter, model_chosen,
                        g_object_ref (self), g_object_unref);
}

static void
edit_gpu (HrWindow    *self,
          const HrGpu *gpu)
{
  HrGpuEditor *editor = hr_gpu_editor_new (GTK_WINDOW (self), gpu);

  g_signal_connect_object (editor, "gpu-saved", G_CALLBACK (on_gpu_saved), self, 0);
  gtk_window_present (GTK_WINDOW (editor));
}

void
_hr_window_add_gpu_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  edit_gpu (HR_WINDOW (widget), NULL);
}

/* ------------------------------------------------------------------ */
/* Picker rows                                                          */

typedef struct {
  HrWindow          *window;
  HrUserCatalogKind  kind;
  char              *id;
} RowEntry;

static void
row_entry_free (gpointer data)
{
  RowEntry *entry = data;

  g_free (entry->id);
  g_free (entry);
}

static void
on_remove_response (AdwMessageDialog *dialog,
                    const char       *response,
                    RowEntry         *entry)
{
  g_autoptr(GError) error = NULL;

  if (!g_str_equal (response, "remove"))
    return;
  if (!hr_user_catalog_remove (entry->kind, entry->id, &error))
    {
      GtkWidget *message = adw_message_dialog_new (GTK_WINDOW (entry->window),
                                                   _("Could Not Remove"), error->message);

      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (message), "close", _("_Close"));
      gtk_window_present (GTK_WINDOW (message));
      return;
    }
  hr_window_reload_catalog (entry->window, NULL);
}

static void
on_remove_clicked (GtkButton *button,
                   RowEntry  *entry)
{
  HrCatalog *catalog = hr_catalog_get_default ();
  const char *name = entry->id;
  gboolean overrides = FALSE;
  g_autofree char *heading = NULL;
  GtkWidget *dialog;
  RowEntry *copy;

  if (entry->kind == HR_USER_CATALOG_MODELS && hr_catalog_find_model (catalog, entry->id))
    {
      const HrModel *model = hr_catalog_find_model (catalog, entry->id);

      name = model->name;
      overrides = model->origin == HR_ORIGIN_USER_OVERRIDE;
    }
  else if (entry->kind == HR_USER_CATALOG_GPUS && hr_catalog_find_gpu (catalog, entry->id))
    {
      const HrGpu *gpu = hr_catalog_find_gpu (catalog, entry->id);

      name = gpu->name;
      overrides = gpu->origin == HR_ORIGIN_USER_OVERRIDE;
    }

  heading = g_strdup_printf (_("Remove “%s”?"), name);
  dialog = adw_message_dialog_new (GTK_WINDOW (entry->window), heading,
                                   overrides
                                     ? _("Your entry is removed from your catalog and the "
                                         "built-in entry with this id comes back.")
                                     : _("It is removed from your catalog. Scenarios saved "
                                         "with it keep their own copy."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "remove", _("_Remove"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);

  /* The row goes away when the lists are rebuilt: the dialog keeps its own
   * copy of what to remove. */
  copy = g_new0 (RowEntry, 1);
  copy->window = entry->window;
  copy->kind = entry->kind;
  copy->id = g_strdup (entry->id);
  g_object_set_data_full (G_OBJECT (dialog), "hr-entry", copy, row_entry_free);
  g_signal_connect (dialog, "response", G_CALLBACK (on_remove_response), copy);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_edit_clicked (GtkButton *button,
                 RowEntry  *entry)
{
  const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), entry->id);

  if (gpu != NULL)
    edit_gpu (entry->window, gpu);
}

static GtkWidget *
flat_button (const char *icon_name,
             const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip,
                                  -1);
  gtk_widget_add_css_class (button, "flat");
  return button;
}

void
_hr_window_decorate_catalog_row (HrWindow          *self,
                                AdwActionRow      *row,
                                HrUserCatalogKind  kind,
                                const char        *id,
                                HrOrigin           origin)
{
  GtkWidget *badge, *remove;
  RowEntry *entry;

  g_return_if_fail (HR_IS_WINDOW (self));

  if (origin == HR_ORIGIN_BUILTIN)
    return;

  badge = gtk_label_new (origin == HR_ORIGIN_USER_OVERRIDE ? _("Custom, replaces built-in")
                                                           : _("Custom"));
  gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (badge, "custom-badge");
  adw_action_row_add_suffix (row, badge);

  entry = g_new0 (RowEntry, 1);
  entry->window = self;
  entry->kind = kind;
  entry->id = g_strdup (id);
  g_object_set_data_full (G_OBJECT (row), "hr-catalog-entry", entry, row_entry_free);

  if (kind == HR_USER_CATALOG_GPUS)
    {
      GtkWidget *edit = flat_button ("document-edit-symbolic", _("Edit This Card"));

      g_signal_connect (edit, "clicked", G_CALLBACK (on_edit_clicked), entry);
      adw_action_row_add_suffix (row, edit);
    }
  /* The pickers are as wide as their rows: room for the name beside the
   * badge and buttons. */
  gtk_widget_set_size_request (GTK_WIDGET (row), 340, -1);
  remove = flat_button ("user-trash-symbolic", _("Remove From Your Catalog"));
  g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_clicked), entry);
  adw_action_row_add_suffix (row, remove);
}
