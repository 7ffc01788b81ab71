/* hr-recovery.c: the unsaved scenario, kept for the next start
 *
 * The unsaved state is written, a second after the last edit, beside the
 * settings ($XDG_CONFIG_HOME/headroom/unsaved-scenario.json, through
 * hr_file_write_atomic, in a worker thread); it is removed once the
 * changes are saved or discarded, so after a crash the next start finds
 * it and offers it back.  A scenario file with one "x-" key more, so it
 * opens as a scenario anywhere.
 *
 * Its own object, apart from the undo history (hr-history.c): the
 * history keeps states in memory and knows no files, this keeps one
 * state on disk and knows no edits; the window says when (after an edit
 * while modified, after a save or a discard).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-recovery"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "hr-recovery.h"

/* The unsaved state is written this long after the last edit. */
#define RECOVERY_DELAY_MS 1000

#define RECOVERY_KEY "x-headroom-unsaved"

struct _HrRecovery
{
  GObject                 parent_instance;

  char                   *path;
  HrRecoveryContentsFunc  func;
  gpointer                user_data;
  guint                   source;
  gboolean                enabled;
};

G_DEFINE_FINAL_TYPE (HrRecovery, hr_recovery, G_TYPE_OBJECT)

char *
hr_recovery_get_default_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "headroom", "unsaved-scenario.json",
                           NULL);
}

char *
hr_recovery_format (const HrScenario *scenario,
                    GFile            *file,
                    GPtrArray        *gpu_ids)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonObject *unsaved = json_object_new ();
  JsonArray *gpus = json_array_new ();
  g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

  g_return_val_if_fail (scenario != NULL && gpu_ids != NULL, NULL);

  root = hr_scenario_to_json (scenario);
  object = json_node_get_object (root);
  /* "x-" keys are ignored by every reader of scenarios: the file opens
   * as a scenario anywhere. */
  if (path != NULL)
    json_object_set_string_member (unsaved, "file", path);
  else
    json_object_set_null_member (unsaved, "file");
  for (guint i = 0; i < gpu_ids->len; i++)
    json_array_add_string_element (gpus, g_ptr_array_index (gpu_ids, i));
  json_object_set_array_member (unsaved, "compare", gpus);
  json_object_set_object_member (object, RECOVERY_KEY, unsaved);
  return hr_json_node_to_string (root, TRUE);
}

/* @member of @object when it holds a @type value, else NULL. */
static JsonNode *
member_of_type (JsonObject   *object,
                const char   *member,
                JsonNodeType  type)
{
  JsonNode *node;

  if (object == NULL || !json_object_has_member (object, member))
    return NULL;
  node = json_object_get_member (object, member);
  return JSON_NODE_TYPE (node) == type ? node : NULL;
}

HrScenario *
hr_recovery_read (const char  *path,
                  HrCatalog   *catalog,
                  GFile      **file,
                  GPtrArray  **gpu_ids,
                  GError     **error)
{
  g_autoptr(HrJsonDoc) doc = NULL;
  JsonNode *root, *node;
  JsonObject *unsaved = NULL;
  HrScenario *scenario;

  g_return_val_if_fail (path != NULL && catalog != NULL && file != NULL, NULL);
  g_return_val_if_fail (gpu_ids != NULL, NULL);

  *file = NULL;
  *gpu_ids = NULL;
  doc = hr_json_doc_load_file (path, error);
  if (doc == NULL)
    return NULL;
  root = hr_json_doc_get_root (doc);
  if (JSON_NODE_HOLDS_OBJECT (root)
      && (node = member_of_type (json_node_get_object (root), RECOVERY_KEY,
                                 JSON_NODE_OBJECT)) != NULL)
    unsaved = json_node_get_object (node);
  scenario = hr_scenario_new_from_doc (doc, catalog, error);
  if (scenario == NULL)
    return NULL;
  if ((node = member_of_type (unsaved, "file", JSON_NODE_VALUE)) != NULL
      && json_node_get_value_type (node) == G_TYPE_STRING)
    *file = g_file_new_for_path (json_node_get_string (node));
  if ((node = member_of_type (unsaved, "compare", JSON_NODE_ARRAY)) != NULL)
    {
      JsonArray *gpus = json_node_get_array (node);
      guint n = json_array_get_length (gpus);

      /* (cards the catalog no longer has are left out) */
      *gpu_ids = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < n; i++)
        {
          JsonNode *id = json_array_get_element (gpus, i);

          if (JSON_NODE_HOLDS_VALUE (id) && json_node_get_value_type (id) == G_TYPE_STRING
              && hr_catalog_find_gpu (catalog, json_node_get_string (id)) != NULL)
            g_ptr_array_add (*gpu_ids, g_strdup (json_node_get_string (id)));
        }
    }
  return scenario;
}

typedef struct {
  char *path;
  char *contents;
} Job;

static void
job_free (gpointer data)
{
  Job *job = data;

  g_free (job->path);
  g_free (job->contents);
  g_free (job);
}

static gboolean
write_file (const char  *path,
            const char  *contents,
            GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  return hr_file_write_atomic (path, contents, strlen (contents), error);
}

static void
write_in_thread (GTask        *task,
                 gpointer      source,
                 gpointer      data,
                 GCancellable *cancellable)
{
  Job *job = data;
  g_autoptr(GError) error = NULL;

  if (!write_file (job->path, job->contents, &error))
    g_warning ("Could not keep the unsaved scenario: %s", error->message);
  g_task_return_boolean (task, TRUE);
}

static gboolean
timeout_cb (gpointer user_data)
{
  HrRecovery *self = user_data;
  g_autoptr(GTask) task = NULL;
  char *contents;
  Job *job;

  self->source = 0;
  contents = self->func (self->user_data);
  if (contents == NULL)
    return G_SOURCE_REMOVE;
  job = g_new0 (Job, 1);
  job->path = g_strdup (self->path);
  job->contents = contents;
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, job, job_free);
  g_task_run_in_thread (task, write_in_thread);
  return G_SOURCE_REMOVE;
}

const char *
hr_recovery_get_path (HrRecovery *self)
{
  g_return_val_if_fail (HR_IS_RECOVERY (self), NULL);
  return self->path;
}

void
hr_recovery_set_enabled (HrRecovery *self,
                         gboolean    enabled)
{
  g_return_if_fail (HR_IS_RECOVERY (self));

  self->enabled = enabled;
  if (!enabled)
    hr_recovery_cancel (self);
}

gboolean
hr_recovery_get_enabled (HrRecovery *self)
{
  g_return_val_if_fail (HR_IS_RECOVERY (self), FALSE);
  return self->enabled;
}

gboolean
hr_recovery_exists (HrRecovery *self)
{
  g_return_val_if_fail (HR_IS_RECOVERY (self), FALSE);
  return g_file_test (self->path, G_FILE_TEST_IS_REGULAR);
}

void
hr_recovery_schedule (HrRecovery *self)
{
  g_return_if_fail (HR_IS_RECOVERY (self));

  /* A screenshot or a test window keeps nothing. */
  if (!self->enabled)
    return;
  g_clear_handle_id (&self->source, g_source_remove);
  self->source = g_timeout_add (RECOVERY_DELAY_MS, timeout_cb, self);
}

void
hr_recovery_cancel (HrRecovery *self)
{
  g_return_if_fail (HR_IS_RECOVERY (self));
  g_clear_handle_id (&self->source, g_source_remove);
}

gboolean
hr_recovery_write_now (HrRecovery  *self,
                       GError     **error)
{
  g_autofree char *contents = NULL;

  g_return_val_if_fail (HR_IS_RECOVERY (self), FALSE);

  hr_recovery_cancel (self);
  contents = self->func (self->user_data);
  return contents == NULL || write_file (self->path, contents, error);
}

void
hr_recovery_discard (HrRecovery *self)
{
  g_return_if_fail (HR_IS_RECOVERY (self));

  hr_recovery_cancel (self);
  if (self->enabled)
    g_unlink (self->path);
}

static void
hr_recovery_finalize (GObject *object)
{
  HrRecovery *self = HR_RECOVERY (object);

  g_clear_handle_id (&self->source, g_source_remove);
  g_clear_pointer (&self->path, g_free);
  G_OBJECT_CLASS (hr_recovery_parent_class)->finalize (object);
}

static void
hr_recovery_class_init (HrRecoveryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hr_recovery_finalize;
}

static void
hr_recovery_init (HrRecovery *self)
{
}

HrRecovery *
hr_recovery_new (const char             *path,
                 HrRecoveryContentsFunc  func,
                 gpointer                user_data)
{
  HrRecovery *self;

  g_return_val_if_fail (path != NULL && func != NULL, NULL);

  self = g_object_new (HR_TYPE_RECOVERY, NULL);
  self->path = g_strdup (path);
  self->func = func;
  self->user_data = user_data;
  return self;
}
