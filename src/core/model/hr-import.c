/* hr-import.c: models brought in from Hugging Face configs, safetensors and GGUF files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-import"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <errno.h>
#include <gio/gio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hr-file.h"
#include "hr-import.h"
#include "hr-import-diffusers.h"
#include "hr-import-gguf.h"
#include "hr-import-hf.h"
#include "hr-import-safetensors.h"

const char * const hr_import_format_names[] = {
  "config.json", "safetensors", "gguf", "folder", NULL
};

static void
dtype_free (HrImportDtype *d)
{
  g_free (d->dtype);
  g_free (d);
}

HrImport *
hr_import_new (HrImportFormat  format,
               const char     *path)
{
  HrImport *import = g_new0 (HrImport, 1);

  import->format = format;
  import->path = g_strdup (path);
  import->dtypes = g_ptr_array_new_with_free_func ((GDestroyNotify) dtype_free);
  import->read = g_ptr_array_new_with_free_func (g_free);
  import->notes = g_ptr_array_new_with_free_func (g_free);
  return import;
}

void
hr_import_free (HrImport *import)
{
  if (import == NULL)
    return;

  g_free (import->path);
  g_free (import->model_type);
  g_free (import->quantization);
  g_clear_pointer (&import->model, json_node_unref);
  g_ptr_array_unref (import->dtypes);
  g_ptr_array_unref (import->read);
  g_ptr_array_unref (import->notes);
  g_clear_pointer (&import->tensor_shapes, g_hash_table_unref);
  hr_import_diffusion_free (import->diffusion);
  g_free (import);
}

void
hr_import_add_read (HrImport   *import,
                    const char *format,
                    ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (import->read, g_strdup_vprintf (format, args));
  va_end (args);
}

void
hr_import_add_note (HrImport   *import,
                    const char *format,
                    ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (import->notes, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
add_tensors (HrImport   *import,
             const char *dtype,
             guint64     params,
             guint64     bytes,
             guint       tensors)
{
  HrImportDtype *d = NULL;

  for (guint i = 0; i < import->dtypes->len; i++)
    {
      HrImportDtype *e = g_ptr_array_index (import->dtypes, i);

      if (g_str_equal (e->dtype, dtype))
        {
          d = e;
          break;
        }
    }

  if (d == NULL)
    {
      d = g_new0 (HrImportDtype, 1);
      d->dtype = g_strdup (dtype);
      g_ptr_array_add (import->dtypes, d);
    }

  d->params += params;
  d->bytes += bytes;
  d->tensors += tensors;
}

void
hr_import_add_tensor (HrImport   *import,
                      const char *dtype,
                      guint64     params,
                      guint64     bytes)
{
  add_tensors (import, dtype, params, bytes, 1);
}

void
hr_import_merge_dtypes (HrImport       *import,
                        const HrImport *other)
{
  for (guint i = 0; i < other->dtypes->len; i++)
    {
      const HrImportDtype *d = g_ptr_array_index (other->dtypes, i);

      add_tensors (import, d->dtype, d->params, d->bytes, d->tensors);
    }
}

static gint
compare_dtypes (gconstpointer a,
                gconstpointer b)
{
  const HrImportDtype *da = *(HrImportDtype * const *) a;
  const HrImportDtype *db = *(HrImportDtype * const *) b;

  if (da->params != db->params)
    return da->params > db->params ? -1 : 1;
  return g_strcmp0 (da->dtype, db->dtype);
}

void
hr_import_finish_dtypes (HrImport *import)
{
  guint64 total = 0, bytes = 0, four_bit = 0, eight_bit = 0, fp8 = 0;
  double overall;

  g_ptr_array_sort (import->dtypes, compare_dtypes);

  for (guint i = 0; i < import->dtypes->len; i++)
    {
      HrImportDtype *d = g_ptr_array_index (import->dtypes, i);
      double bits = d->params > 0 ? 8.0 * d->bytes / d->params : 0;

      d->bits_per_weight = bits;
      total += d->params;
      bytes += d->bytes;
      if (d->params == 0)
        continue;
      if (g_str_has_prefix (d->dtype, "F8_"))
        fp8 += d->params;
      else if (bits <= 4.6)
        four_bit += d->params;   /* packed INT4/NF4, Q4_0, Q4_K, IQ4_XS, and smaller */
      else if (bits >= 7.5 && bits <= 8.6 && !g_str_equal (d->dtype, "U8") &&
               !g_str_equal (d->dtype, "BOOL"))
        eight_bit += d->params;  /* I8, Q8_0 */
    }

  import->params = total;
  import->weight_bytes = bytes;
  import->params_exact = TRUE;
  if (import->active_params == 0 || import->active_params > total)
    import->active_params = total;

  /* Name the precision most of the weights are stored at, when it is a
   * quantised one; the table gives the rest. */
  g_clear_pointer (&import->quantization, g_free);
  overall = total > 0 ? 8.0 * bytes / total : 0;
  if (fp8 * 2 > total)
    import->quantization = g_strdup ("FP8");
  else if (four_bit * 2 > total)
    import->quantization = g_strdup_printf (_("4-bit (%.2f bits per weight overall)"), overall);
  else if (eight_bit * 2 > total)
    import->quantization = g_strdup_printf (_("8-bit (%.2f bits per weight overall)"), overall);
  else if (total > 0 && overall < 12)
    import->quantization = g_strdup_printf (_("mixed, %.2f bits per weight overall"), overall);
}

char *
hr_import_clip (const char *text)
{
  if (text == NULL)
    return NULL;
  if (g_utf8_validate (text, -1, NULL) && g_utf8_strlen (text, -1) > HR_IMPORT_MAX_TEXT)
    return g_utf8_substring (text, 0, HR_IMPORT_MAX_TEXT);
  return g_strdup (text);
}

char *
hr_import_make_id (const char *name)
{
  g_autoptr(GString) id = g_string_new (NULL);

  for (const char *p = name; p != NULL && *p != '\0'; p++)
    {
      char c = g_ascii_tolower (*p);

      if (g_ascii_isalnum (c) || c == '.' || c == '_')
        g_string_append_c (id, c);
      else if (id->len > 0 && id->str[id->len - 1] != '-')
        g_string_append_c (id, '-');
    }
  while (id->len > 0 && (id->str[id->len - 1] == '-' || id->str[id->len - 1] == '.'))
    g_string_truncate (id, id->len - 1);
  if (id->len > 64)
    g_string_truncate (id, 64);
  if (id->len == 0)
    g_string_assign (id, "imported-model");
  return g_string_free (g_steal_pointer (&id), FALSE);
}

/* ---- Combining a config with its weights --------------------------------- */

static void
take_weights (HrImport *import,
              HrImport *weights)
{
  guint64 from_config = import->params;

  for (guint i = 0; i < weights->read->len; i++)
    g_ptr_array_add (import->read, g_strdup (g_ptr_array_index (weights->read, i)));
  for (guint i = 0; i < weights->notes->len; i++)
    {
      const char *note = g_ptr_array_index (weights->notes, i);

      /* The weights-only advice (hr-import-safetensors.c's) does not apply
       * once the config is read; the note is in the user's language. */
      if (!g_str_equal (note, _("no config.json was read: the architecture comes from the "
                                "tensor names; import the model's folder (or its "
                                "config.json) for one read from the config")))
        g_ptr_array_add (import->notes, g_strdup (note));
    }
  hr_import_merge_dtypes (import, weights);

  hr_import_finish_dtypes (import);
  g_clear_pointer (&import->quantization, g_free);
  import->quantization = g_strdup (weights->quantization);

  if (weights->params == 0)
    {
      import->params = from_config;
      import->params_exact = FALSE;
      hr_import_add_note (import, _("the weights list no tensors: the count is the config's"));
      return;
    }

  /* finish_dtypes summed the weights; put the config's count back before
   * recording both. */
  import->params = from_config;
  hr_import_hf_set_exact_params (import, weights->params);
  if (weights->experts > 0)
    import->active_params = weights->active_params;

  if (fabs ((double) weights->params - (double) from_config) > 0.005 * (double) from_config)
    hr_import_add_note (import, _("the config's architecture gives %" PRIu64
                                  " parameters, the weights hold %" PRIu64
                                  "; the weights' exact count is used"),
                        from_config, weights->params);
}

static HrImport *
combine (const char *config_path,
         HrImport   *weights,
         GError    **error)
{
  g_autoptr(HrImport) import = hr_import_hf_config_load (config_path, error);

  if (import == NULL)
    return NULL;
  take_weights (import, weights);
  hr_import_add_read (import, _("%s: the architecture"), config_path);
  return g_steal_pointer (&import);
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

HrImport *
hr_import_folder (const char  *path,
                  GError     **error)
{
  g_autofree char *config = g_build_filename (path, "config.json", NULL);
  g_autofree char *index = g_build_filename (path, "model.safetensors.index.json", NULL);
  g_autoptr(GPtrArray) safetensors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) ggufs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(HrImport) weights = NULL;
  g_autoptr(HrImport) import = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean has_config;
  const char *entry;

  g_return_val_if_fail (path != NULL, NULL);

  /* a diffusers pipeline: its components in subfolders */
  {
    g_autofree char *model_index = g_build_filename (path, "model_index.json", NULL);

    if (g_file_test (model_index, G_FILE_TEST_IS_REGULAR))
      return hr_import_diffusers_folder (path, error);
  }

  dir = g_dir_open (path, 0, &local_error);
  if (dir == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, "%s: %s", path, local_error->message);
      return NULL;
    }
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_suffix (entry, ".safetensors"))
        g_ptr_array_add (safetensors, g_strdup (entry));
      else if (g_str_has_suffix (entry, ".gguf"))
        g_ptr_array_add (ggufs, g_strdup (entry));
    }
  g_ptr_array_sort (safetensors, compare_strings);
  g_ptr_array_sort (ggufs, compare_strings);

  has_config = g_file_test (config, G_FILE_TEST_IS_REGULAR);

  if (g_file_test (index, G_FILE_TEST_IS_REGULAR))
    {
      weights = hr_import_new (HR_IMPORT_SAFETENSORS, index);
      if (!hr_import_safetensors_add_index (weights, index, error))
        return NULL;
    }
  else if (safetensors->len > 0)
    {
      gboolean others = FALSE;

      for (guint i = 0; i < safetensors->len; i++)
        others |= !g_str_has_prefix (g_ptr_array_index (safetensors, i), "consolidated");

      weights = hr_import_new (HR_IMPORT_SAFETENSORS, path);
      for (guint i = 0; i < safetensors->len; i++)
        {
          const char *name = g_ptr_array_index (safetensors, i);
          g_autofree char *file = g_build_filename (path, name, NULL);

          /* Mistral's repositories hold the same weights twice: the
           * transformers shards and consolidated.safetensors. */
          if (others && g_str_has_prefix (name, "consolidated"))
            {
              hr_import_add_note (weights, _("%s skipped: it repeats the other shards"), name);
              continue;
            }
          if (!hr_import_safetensors_add_file (weights, file, error))
            return NULL;
          hr_import_add_read (weights, _("%s: safetensors header"), file);
        }
    }
  else if (ggufs->len > 0)
    {
      g_autofree char *file = g_build_filename (path, g_ptr_array_index (ggufs, 0), NULL);

      weights = hr_import_gguf_load (file, error);
      if (weights == NULL)
        return NULL;
      if (ggufs->len > 1 && strstr (g_ptr_array_index (ggufs, 0), "-00001-of-") == NULL)
        hr_import_add_note (weights, _("%u GGUF files in the folder: %s was read"),
                            ggufs->len, (char *) g_ptr_array_index (ggufs, 0));
    }

  if (weights != NULL && weights->format == HR_IMPORT_SAFETENSORS)
    hr_import_finish_dtypes (weights);

  if (!has_config)
    {
      if (weights == NULL)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_NOT_FOUND,
                       _("%s: no config.json, .safetensors or .gguf file in this folder"), path);
          return NULL;
        }
      if (weights->format == HR_IMPORT_SAFETENSORS)
        {
          g_autofree char *base = g_path_get_basename (path);

          hr_import_safetensors_guess_model (weights, base);
          hr_import_add_note (weights, _("no config.json in the folder: the architecture comes "
                                         "from the tensor names"));
        }
      import = g_steal_pointer (&weights);
    }
  else if (weights == NULL)
    {
      import = hr_import_hf_config_load (config, error);
      if (import == NULL)
        return NULL;
      hr_import_add_note (import, _("no weights in the folder: the count is computed from the "
                                    "architecture"));
    }
  else
    {
      import = combine (config, weights, error);
      if (import == NULL)
        return NULL;
    }

  import->format = HR_IMPORT_FOLDER;
  g_free (import->path);
  import->path = g_strdup (path);
  return g_steal_pointer (&import);
}

HrImport *
hr_import_path (const char  *path,
                GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *config = NULL;
  g_autoptr(HrImport) weights = NULL;
  g_autoptr(GInputStream) stream = NULL;
  guint8 magic[4] = { 0 };
  gssize got;

  g_return_val_if_fail (path != NULL, NULL);

  if (path[0] != '\0' && g_file_test (path, G_FILE_TEST_IS_DIR))
    return hr_import_folder (path, error);

  stream = hr_file_open (path, G_MAXUINT64, _("a model file"), NULL, error);
  if (stream == NULL)
    return NULL;
  got = hr_file_read (stream, path, magic, sizeof magic, error);
  if (got < 0)
    return NULL;
  g_clear_object (&stream);

  dir = g_path_get_dirname (path);
  config = g_build_filename (dir, "config.json", NULL);

  if (got == 4 && memcmp (magic, "GGUF", 4) == 0)
    return hr_import_gguf_load (path, error);
  if (g_str_has_suffix (path, ".gguf"))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_PARSE,
                   _("%s: not a GGUF file: it does not start with the GGUF magic"), path);
      return NULL;
    }

  if (g_str_has_suffix (path, ".json"))
    {
      g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (path, error);
      JsonNode *root;

      if (doc == NULL)
        return NULL;
      root = hr_json_doc_get_root (doc);
      if (!JSON_NODE_HOLDS_OBJECT (root) ||
          !json_object_has_member (json_node_get_object (root), "weight_map"))
        return hr_import_hf_config_load (path, error);

      weights = hr_import_safetensors_load (path, error);
    }
  else
    weights = hr_import_safetensors_load (path, error);

  if (weights == NULL)
    return NULL;

  /* A config.json beside the weights gives the architecture. */
  if (g_file_test (config, G_FILE_TEST_IS_REGULAR))
    {
      HrImport *import = combine (config, weights, error);

      if (import != NULL)
        {
          import->format = HR_IMPORT_SAFETENSORS;
          g_free (import->path);
          import->path = g_strdup (path);
        }
      return import;
    }

  return g_steal_pointer (&weights);
}

/* ---- Output --------------------------------------------------------------- */

static void
add_strings (JsonBuilder *b,
             const char  *member,
             GPtrArray   *list)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (list, i));
  json_builder_end_array (b);
}

/* Everything the import found, as stored under "x-import": sizes in bytes. */
static JsonNode *
import_details (const HrImport *import)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, hr_import_format_names[import->format]);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, import->path);
  json_builder_set_member_name (b, "model_type");
  if (import->model_type != NULL)
    json_builder_add_string_value (b, import->model_type);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "params_exact");
  json_builder_add_boolean_value (b, import->params_exact);
  json_builder_set_member_name (b, "params_from_config");
  if (import->params_from_config > 0)
    json_builder_add_int_value (b, import->params_from_config);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "active_params");
  json_builder_add_int_value (b, import->active_params);
  json_builder_set_member_name (b, "experts");
  json_builder_add_int_value (b, import->experts);
  json_builder_set_member_name (b, "experts_per_token");
  json_builder_add_int_value (b, import->experts_per_token);
  json_builder_set_member_name (b, "quantization");
  if (import->quantization != NULL)
    json_builder_add_string_value (b, import->quantization);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "weight_bytes");
  json_builder_add_int_value (b, import->weight_bytes);

  json_builder_set_member_name (b, "dtypes");
  json_builder_begin_array (b);
  for (guint i = 0; i < import->dtypes->len; i++)
    {
      const HrImportDtype *d = g_ptr_array_index (import->dtypes, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "dtype");
      json_builder_add_string_value (b, d->dtype);
      json_builder_set_member_name (b, "params");
      json_builder_add_int_value (b, d->params);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, d->bytes);
      json_builder_set_member_name (b, "tensors");
      json_builder_add_int_value (b, d->tensors);
      json_builder_set_member_name (b, "bits_per_weight");
      json_builder_add_double_value (b, round (d->bits_per_weight * 1000) / 1000);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  add_strings (b, "read", import->read);
  add_strings (b, "notes", import->notes);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

JsonNode *
hr_import_model_json (const HrImport *import)
{
  JsonNode *model;

  g_return_val_if_fail (import != NULL, NULL);

  if (import->model == NULL)
    return NULL;

  model = json_node_copy (import->model);
  json_object_set_member (json_node_get_object (model), "x-import", import_details (import));
  return model;
}
