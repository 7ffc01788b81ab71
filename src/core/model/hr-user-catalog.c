/* hr-user-catalog.c: the user's own models and GPUs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-user-catalog"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "hr-catalog.h"
#include "hr-file.h"
#include "hr-user-catalog.h"

static const char *
file_name (HrUserCatalogKind kind)
{
  return kind == HR_USER_CATALOG_MODELS ? "models.json" : "gpus.json";
}

char *
hr_user_catalog_get_path (HrUserCatalogKind kind)
{
  return g_build_filename (g_get_user_data_dir (), "headroom", file_name (kind), NULL);
}

/* The entries of the user's file, checked the way the catalog reads them. */
static JsonArray *
load_entries (HrUserCatalogKind   kind,
              const char         *path,
              GError            **error)
{
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(HrCatalog) scratch = NULL;
  gboolean ok;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return json_array_new ();

  doc = hr_json_doc_load_file (path, error);
  ok = doc != NULL;
  if (ok)
    {
      scratch = hr_catalog_new ();
      ok = kind == HR_USER_CATALOG_MODELS ? hr_catalog_load_models (scratch, doc, error)
                                          : hr_catalog_load_gpus (scratch, doc, error);
    }
  if (!ok)
    {
      g_prefix_error (error, _("your catalog cannot be read, so it is left as it is: "));
      return NULL;
    }

  return json_array_ref (json_object_get_array_member (
                           json_node_get_object (hr_json_doc_get_root (doc)), "entries"));
}

JsonArray *
hr_user_catalog_list (HrUserCatalogKind   kind,
                      GError            **error)
{
  g_autofree char *path = hr_user_catalog_get_path (kind);

  return load_entries (kind, path, error);
}

static const char *
entry_id (JsonNode *entry)
{
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (entry))
    return NULL;
  object = json_node_get_object (entry);
  if (!json_object_has_member (object, "id"))
    return NULL;
  return json_object_get_string_member_with_default (object, "id", NULL);
}

/* Checks the new file as the catalog will read it, then writes it over the
 * old one in one rename. */
static gboolean
write_entries (HrUserCatalogKind   kind,
               const char         *path,
               JsonArray          *entries,
               GError            **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(HrCatalog) scratch = NULL;
  g_autofree char *text = NULL;
  g_autofree char *with_newline = NULL;
  JsonObject *object = json_object_new ();
  gboolean ok;

  json_object_set_int_member (object, "version", 1);
  json_object_set_array_member (object, "entries", json_array_ref (entries));
  json_node_take_object (root, object);

  text = hr_json_node_to_string (root, TRUE);
  with_newline = g_strconcat (text, "\n", NULL);

  /* Read back exactly what will be written, with positions, so a bad entry
   * is reported as the catalog would report it and never reaches the disk. */
  doc = hr_json_doc_load_data (path, with_newline, -1, error);
  if (doc == NULL)
    return FALSE;
  scratch = hr_catalog_new ();
  ok = kind == HR_USER_CATALOG_MODELS ? hr_catalog_load_models (scratch, doc, error)
                                      : hr_catalog_load_gpus (scratch, doc, error);
  if (!ok)
    return FALSE;

  /* A crash or a full disk never leaves half a catalog. */
  /* A file that cannot be written keeps hr_file_write_atomic's domain:
   * that is a failure of the system, not bad input. */
  if (!hr_file_write_atomic (path, with_newline, strlen (with_newline), error))
    return FALSE;

  return TRUE;
}

/* One change to the user's file: an entry saved (or replaced), or removed. */
typedef struct {
  HrUserCatalogKind  kind;
  const char        *path;
  JsonNode          *entry;    /* to save, or NULL */
  const char        *id;
  gboolean           found;
} Change;

/* Read, change and write the file, under the lock: the file is read again
 * here, so a change another process made since is kept. */
static gboolean
change_locked (gpointer   user_data,
               GError   **error)
{
  Change *change = user_data;
  g_autoptr(JsonArray) old = NULL;
  g_autoptr(JsonArray) entries = json_array_new ();

  old = load_entries (change->kind, change->path, error);
  if (old == NULL)
    return FALSE;

  for (guint i = 0; i < json_array_get_length (old); i++)
    {
      JsonNode *e = json_array_get_element (old, i);

      if (g_strcmp0 (entry_id (e), change->id) == 0)
        {
          /* Replaced where it stood, so the file keeps its order. */
          if (change->entry != NULL)
            json_array_add_element (entries, json_node_copy (change->entry));
          change->found = TRUE;
        }
      else
        json_array_add_element (entries, json_node_copy (e));
    }

  if (change->entry == NULL)
    {
      if (!change->found)
        {
          if (change->kind == HR_USER_CATALOG_MODELS)
            g_set_error (error, HR_ERROR, HR_ERROR_NOT_FOUND,
                         _("%s: no model \"%s\" in your catalog"), change->path, change->id);
          else
            g_set_error (error, HR_ERROR, HR_ERROR_NOT_FOUND,
                         _("%s: no GPU \"%s\" in your catalog"), change->path, change->id);
          return FALSE;
        }
    }
  else if (!change->found)
    json_array_add_element (entries, json_node_copy (change->entry));

  return write_entries (change->kind, change->path, entries, error);
}

/* Several Headroom processes may add to the catalog at once (the window and
 * scripts calling headroom-cli import-model --add): every read-modify-write
 * of the file holds a lock on a file beside it. */
static gboolean
apply_change (Change  *change,
              GError **error)
{
  g_autofree char *dir = g_path_get_dirname (change->path);
  g_autofree char *lock = g_build_filename (dir, ".headroom-lock", NULL);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }

  /* The catalog's own errors are HR_ERROR; a lock that cannot be taken or
   * a file that cannot be written are G_FILE_ERROR. */
  return hr_file_with_lock (lock, change_locked, change, error);
}

gboolean
hr_user_catalog_save (HrUserCatalogKind   kind,
                      JsonNode           *entry,
                      gboolean           *replaced,
                      GError            **error)
{
  g_autofree char *path = hr_user_catalog_get_path (kind);
  Change change = { 0 };
  const char *id;

  g_return_val_if_fail (entry != NULL, FALSE);

  id = entry_id (entry);
  if (id == NULL)
    {
      g_set_error_literal (error, HR_ERROR, HR_ERROR_INVALID,
                           kind == HR_USER_CATALOG_MODELS
                             ? _("a model entry needs a string \"id\" to be saved")
                             : _("a GPU entry needs a string \"id\" to be saved"));
      return FALSE;
    }

  change.kind = kind;
  change.path = path;
  change.entry = entry;
  change.id = id;
  if (!apply_change (&change, error))
    return FALSE;

  if (replaced != NULL)
    *replaced = change.found;
  return TRUE;
}

gboolean
hr_user_catalog_save_model (JsonNode  *model,
                            gboolean  *replaced,
                            GError   **error)
{
  return hr_user_catalog_save (HR_USER_CATALOG_MODELS, model, replaced, error);
}

gboolean
hr_user_catalog_save_gpu (JsonNode  *gpu,
                          gboolean  *replaced,
                          GError   **error)
{
  return hr_user_catalog_save (HR_USER_CATALOG_GPUS, gpu, replaced, error);
}

gboolean
hr_user_catalog_remove (HrUserCatalogKind   kind,
                        const char         *id,
                        GError            **error)
{
  g_autofree char *path = hr_user_catalog_get_path (kind);
  Change change = { 0 };

  g_return_val_if_fail (id != NULL, FALSE);

  change.kind = kind;
  change.path = path;
  change.id = id;
  return apply_change (&change, error);
}
