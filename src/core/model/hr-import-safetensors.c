/* hr-import-safetensors.c: parameter counts from safetensors headers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The format (github.com/huggingface/safetensors, "Format"): 8 bytes, a
 * little-endian u64 N; N bytes of JSON, an object mapping each tensor name to
 * {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
 * byte after the header) plus an optional "__metadata__" object of strings;
 * then the tensor data, which Headroom never reads.
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-import"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <gio/gio.h>
#include <string.h>

#include "hr-file.h"
#include "hr-import-diffusers.h"
#include "hr-import-safetensors.h"
#include "hr-reader.h"

/* Dims above 2^40 or more than 8 of them are no tensor anyone stores. */
#define MAX_DIM   (G_GUINT64_CONSTANT (1) << 40)
#define MAX_RANK  8
/* The shards a model.safetensors.index.json may name. */
#define MAX_SHARDS 4096

/* Bits per element of each dtype the format defines (safetensors
 * src/tensor.rs, Dtype::bitsize). */
static const struct {
  const char *name;
  guint       bits;
} dtypes[] = {
  { "BOOL", 8 }, { "U8", 8 }, { "I8", 8 }, { "F8_E5M2", 8 }, { "F8_E4M3", 8 },
  { "F8_E8M0", 8 }, { "I16", 16 }, { "U16", 16 }, { "F16", 16 }, { "BF16", 16 },
  { "I32", 32 }, { "U32", 32 }, { "F32", 32 }, { "F64", 64 }, { "I64", 64 }, { "U64", 64 },
  { "F4", 4 }, { "F6_E2M3", 6 }, { "F6_E3M2", 6 },
};

static guint
dtype_bits (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      if (g_str_equal (dtypes[i].name, name))
        return dtypes[i].bits;
    }
  return 0;
}

/* Tensors that hold quantisation constants rather than parameters: GPTQ and
 * AWQ scales, zero points and group indices; bitsandbytes' absmax, quant map
 * and packed quant state; FP8 checkpoints' per-tensor scales. */
static gboolean
is_quant_constant (const char *name)
{
  static const char * const suffixes[] = {
    ".scales", ".qzeros", ".g_idx", ".absmax", ".quant_map", ".nested_absmax",
    ".nested_quant_map", ".weight_scale", ".weight_scale_inv", ".input_scale", ".SCB",
    ".weight_format",
  };

  if (strstr (name, ".quant_state.") != NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      if (g_str_has_suffix (name, suffixes[i]))
        return TRUE;
    }
  return FALSE;
}

static gboolean
read_shape (HrJsonDoc   *doc,
            const char  *pointer,
            JsonNode    *node,
            const char  *tensor,
            guint64     *numel,
            GArray      *dims,
            GError     **error)
{
  JsonArray *array;
  guint64 n = 1;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                         _("tensor \"%s\": \"shape\" must be an array of integers"), tensor);
      return FALSE;
    }

  array = json_node_get_array (node);
  if (json_array_get_length (array) > MAX_RANK)
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                         _("tensor \"%s\" has %u dimensions, more than %d"), tensor,
                         json_array_get_length (array), MAX_RANK);
      return FALSE;
    }

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *d = json_array_get_element (array, i);
      g_autofree char *p = hr_json_pointer_append_index (pointer, i);
      gint64 v;

      if (!JSON_NODE_HOLDS_VALUE (d) || json_node_get_value_type (d) != G_TYPE_INT64 ||
          (v = json_node_get_int (d)) < 0 || (guint64) v > MAX_DIM)
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, p, FALSE,
                             _("tensor \"%s\": a dimension must be an integer from 0 to 2^40"),
                             tensor);
          return FALSE;
        }

      /* Stop before the product leaves 64 bits. */
      if (v > 0 && n > G_MAXUINT64 / (guint64) v / 64)
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, p, FALSE,
                             _("tensor \"%s\" has more elements than any file can hold"), tensor);
          return FALSE;
        }
      n *= (guint64) v;
      g_array_append_val (dims, v);
    }

  *numel = n;
  return TRUE;
}

static gboolean
read_offsets (HrJsonDoc   *doc,
              const char  *pointer,
              JsonNode    *node,
              const char  *tensor,
              guint64     *begin,
              guint64     *end,
              GError     **error)
{
  JsonArray *array;
  gint64 v[2];

  if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) != 2)
    goto bad;

  array = json_node_get_array (node);
  for (guint i = 0; i < 2; i++)
    {
      JsonNode *e = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_INT64 ||
          (v[i] = json_node_get_int (e)) < 0)
        goto bad;
    }
  if (v[1] < v[0])
    goto bad;

  *begin = v[0];
  *end = v[1];
  return TRUE;

bad:
  hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                     _("tensor \"%s\": \"data_offsets\" must be [begin, end] with 0 <= begin "
                       "<= end"), tensor);
  return FALSE;
}

/* The number after the first ".layers." (or "h.", "blocks.", "layer."),
 * and the rest of the name after it; -1 when the tensor is not in a layer. */
static gint64
layer_index (const char  *name,
             const char **rest)
{
  static const char * const markers[] = { "layers.", "h.", "blocks.", "layer.", NULL };

  for (guint i = 0; markers[i] != NULL; i++)
    {
      const char *p = name;

      while ((p = strstr (p, markers[i])) != NULL)
        {
          const char *d = p + strlen (markers[i]);
          char *end = NULL;
          guint64 v;

          if ((p == name || p[-1] == '.') && g_ascii_isdigit (*d))
            {
              v = g_ascii_strtoull (d, &end, 10);
              if (end != NULL && *end == '.' && v < 1000000)
                {
                  *rest = end + 1;
                  return v;
                }
            }
          p++;
        }
    }
  return -1;
}

/* Keeps what the architecture can be told from: the count of layers and
 * experts, and the shapes of layer 0 (as "L.rest") and of the tensors
 * outside the layers. */
static void
remember_shape (HrImport   *import,
                const char *name,
                GArray     *dims)
{
  const char *rest = NULL;
  gint64 layer = layer_index (name, &rest);
  const char *experts;
  g_autofree char *key = NULL;
  GArray *copy;

  if (import->tensor_shapes == NULL)
    import->tensor_shapes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                   (GDestroyNotify) g_array_unref);

  if (layer >= 0)
    {
      import->tensor_layers = MAX (import->tensor_layers, (guint) layer + 1);
      if ((experts = strstr (rest, "experts.")) != NULL && g_ascii_isdigit (experts[8]))
        {
          guint64 e = g_ascii_strtoull (experts + 8, NULL, 10);

          if (e < 65536)
            import->tensor_experts = MAX (import->tensor_experts, (guint) e + 1);
        }
      if (layer != 0)
        return;
      key = g_strconcat ("L.", rest, NULL);
    }
  else
    key = g_strdup (name);

  copy = g_array_sized_new (FALSE, FALSE, sizeof (guint64), dims->len);
  g_array_append_vals (copy, dims->data, dims->len);
  g_hash_table_replace (import->tensor_shapes, g_steal_pointer (&key), copy);
}

/* The first remembered tensor whose name ends with one of @suffixes
 * ("|"-separated), in layer 0 when @in_layer; its first two dims. */
static gboolean
find_shape (HrImport   *import,
            gboolean    in_layer,
            const char *suffixes,
            guint64    *d0,
            guint64    *d1)
{
  g_auto(GStrv) list = g_strsplit (suffixes, "|", -1);
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; list[i] != NULL; i++)
    {
      g_hash_table_iter_init (&iter, import->tensor_shapes);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          GArray *dims = value;

          if (g_str_has_prefix (key, "L.") != in_layer || !g_str_has_suffix (key, list[i]))
            continue;
          if (in_layer && strstr (key, "experts.") != NULL &&
              strstr (key, "experts.0.") == NULL)
            continue;
          *d0 = dims->len > 0 ? g_array_index (dims, guint64, 0) : 0;
          *d1 = dims->len > 1 ? g_array_index (dims, guint64, 1) : 0;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
hr_safetensors_parse_header (HrImport    *import,
                             const char  *display_name,
                             const char  *json,
                             gsize        length,
                             guint64      data_size,
                             GError     **error)
{
  static const char * const tensor_keys[] = { "dtype", "shape", "data_offsets", NULL };
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(GList) members = NULL;
  JsonObject *root;
  guint64 packed = 0, total = 0;

  g_return_val_if_fail (import != NULL, FALSE);
  g_return_val_if_fail (display_name != NULL, FALSE);

  /* The shards read before this one count too. */
  for (guint i = 0; i < import->dtypes->len; i++)
    {
      const HrImportDtype *d = g_ptr_array_index (import->dtypes, i);

      total += d->params;
    }

  if (length > HR_SAFETENSORS_MAX_HEADER)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                   _("%s: the safetensors header is %zu bytes, more than the %d "
                     "MiB Headroom reads"), display_name, length, HR_SAFETENSORS_MAX_HEADER >> 20);
      return FALSE;
    }

  doc = hr_json_doc_load_data (display_name, json, length, error);
  if (doc == NULL)
    return FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (hr_json_doc_get_root (doc)))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, "", FALSE,
                         _("a safetensors header must be a JSON object of tensors"));
      return FALSE;
    }

  root = json_node_get_object (hr_json_doc_get_root (doc));
  members = json_object_get_members (root);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      g_autofree char *pointer = hr_json_pointer_append ("", name);
      JsonNode *node = json_object_get_member (root, name);
      g_autofree char *dtype = NULL;
      guint64 numel = 0, begin = 0, end = 0, params;
      const char *kind;
      g_autoptr(GArray) dims = g_array_new (FALSE, FALSE, sizeof (guint64));
      HrReader reader;
      guint bits;
      gboolean ok;

      if (g_str_equal (name, "__metadata__"))
        continue;

      if (!hr_reader_init (&reader, doc, pointer, node, _("a tensor entry"), error))
        return FALSE;
      ok = hr_reader_check_keys (&reader, tensor_keys) &&
           hr_reader_string (&reader, "dtype", TRUE, &dtype) &&
           hr_reader_require (&reader, "shape") &&
           hr_reader_require (&reader, "data_offsets");
      if (ok)
        {
          g_autofree char *shape_pointer = hr_reader_child_pointer (&reader, "shape");
          g_autofree char *offsets_pointer = hr_reader_child_pointer (&reader, "data_offsets");

          ok = read_shape (doc, shape_pointer, hr_reader_get_node (&reader, "shape"), name,
                           &numel, dims, error) &&
               read_offsets (doc, offsets_pointer, hr_reader_get_node (&reader, "data_offsets"),
                             name, &begin, &end, error);
        }
      if (ok && (bits = dtype_bits (dtype)) == 0)
        ok = hr_reader_fail (&reader, "dtype", _("tensor \"%s\": unknown dtype \"%s\""), name,
                             dtype);
      if (ok && end - begin != (numel * bits + 7) / 8)
        ok = hr_reader_fail (&reader, "data_offsets",
                             _("tensor \"%s\": %" PRIu64 " elements of %s take %"
                               PRIu64 " bytes, but its data_offsets span %"
                               PRIu64), name, numel, dtype, (numel * bits + 7) / 8,
                             end - begin);
      if (ok && data_size != G_MAXUINT64 && end > data_size)
        ok = hr_reader_fail (&reader, "data_offsets",
                             _("tensor \"%s\" ends at byte %" PRIu64 " of the data, "
                               "but the file holds only %" PRIu64 " bytes after the "
                               "header (truncated download?)"), name, end, data_size);
      hr_reader_clear (&reader);
      if (!ok)
        return FALSE;

      remember_shape (import, name, dims);

      /* What the tensor counts as, and under which name in the table. */
      kind = dtype;
      params = numel;
      if (is_quant_constant (name))
        {
          kind = "quantization constants";
          params = 0;
        }
      else if (g_str_has_suffix (name, ".qweight") && (g_str_equal (dtype, "I32") ||
                                                       g_str_equal (dtype, "U32")))
        {
          /* GPTQ / AWQ pack eight 4-bit weights into each 32-bit word. */
          kind = "INT4 (GPTQ/AWQ, packed in I32)";
          params = numel * 8;
          packed += params;
        }
      else if (g_str_equal (dtype, "U8") && g_str_has_suffix (name, ".weight"))
        {
          g_autofree char *nf4 = g_strconcat (name, ".quant_state.bitsandbytes__nf4", NULL);
          g_autofree char *fp4 = g_strconcat (name, ".quant_state.bitsandbytes__fp4", NULL);

          /* bitsandbytes stores two 4-bit weights per byte. */
          if (json_object_has_member (root, nf4))
            kind = "NF4 (bitsandbytes, packed in U8)";
          else if (json_object_has_member (root, fp4))
            kind = "FP4 (bitsandbytes, packed in U8)";
          if (kind != dtype)
            params = numel * 2;
        }

      /* Each count is below 2^61 (read_shape), so the sum cannot wrap
       * before this; the constants count too, for their bytes. */
      total += MAX (params, numel);
      if (total > HR_IMPORT_MAX_PARAMS)
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                             _("tensor \"%s\" brings the count to more than %" PRIu64
                               " parameters, more than any model has"), name,
                             HR_IMPORT_MAX_PARAMS);
          return FALSE;
        }

      hr_import_diffusers_count (import, name, (const guint64 *) (void *) dims->data, dims->len,
                                 params);
      hr_import_add_tensor (import, kind, params, end - begin);
    }

  if (packed > 0)
    hr_import_add_note (import, _("GPTQ/AWQ qweight tensors are taken as 4-bit (eight weights "
                                  "per 32-bit word)"));
  return TRUE;
}

/* Length prefix and header from the first bytes of a file. */
static gboolean
split_prefix (const char    *display_name,
              const guint8  *data,
              gsize          length,
              guint64       *header_len,
              GError       **error)
{
  guint64 n = 0;

  if (length < 8)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_PARSE,
                   _("%s: %zu bytes, too short for a safetensors file (the "
                     "header length alone takes 8)"), display_name, length);
      return FALSE;
    }

  for (int i = 7; i >= 0; i--)
    n = (n << 8) | data[i];

  if (n > HR_SAFETENSORS_MAX_HEADER)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                   _("%s: the safetensors header claims %" PRIu64 " bytes, more than "
                     "the %d MiB Headroom reads (not a safetensors file?)"), display_name, n,
                   HR_SAFETENSORS_MAX_HEADER >> 20);
      return FALSE;
    }
  if (n < 2)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_PARSE,
                   _("%s: a safetensors header of %" PRIu64 " bytes cannot hold a JSON "
                     "object"), display_name, n);
      return FALSE;
    }

  *header_len = n;
  return TRUE;
}

HrImport *
hr_import_safetensors_parse (const char    *display_name,
                             const guint8  *data,
                             gsize          length,
                             GError       **error)
{
  g_autoptr(HrImport) import = NULL;
  guint64 n = 0;

  g_return_val_if_fail (display_name != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (!split_prefix (display_name, data, length, &n, error))
    return NULL;
  if (length - 8 < n)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_PARSE,
                   _("%s: truncated: the header should be %" PRIu64 " bytes, only %zu follow"),
                   display_name, n, length - 8);
      return NULL;
    }

  import = hr_import_new (HR_IMPORT_SAFETENSORS, display_name);
  /* A buffer that stops right after the header holds no data to check the
   * byte ranges against; one that goes on must hold all of it. */
  if (!hr_safetensors_parse_header (import, display_name, (const char *) data + 8, n,
                                    length - 8 == n ? G_MAXUINT64 : length - 8 - n, error))
    return NULL;
  hr_import_finish_dtypes (import);
  {
    g_autofree char *base = g_path_get_basename (display_name);
    g_autofree char *stem = g_strndup (base, strcspn (base, "."));

    hr_import_safetensors_guess_model (import, stem);
  }
  return g_steal_pointer (&import);
}

gboolean
hr_import_safetensors_add_file (HrImport   *import,
                                const char *path,
                                GError    **error)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autofree char *header = NULL;
  guint8 prefix[8];
  gssize got;
  guint64 n = 0, size = 0;

  /* Only the header is read, whatever the size of the weights after it. */
  stream = hr_file_open (path, G_MAXUINT64, _("a safetensors file"), &size, error);
  if (stream == NULL)
    return FALSE;

  got = hr_file_read (stream, path, prefix, 8, error);
  if (got < 0)
    return FALSE;
  if (!split_prefix (path, prefix, got, &n, error))
    return FALSE;
  if (size - 8 < n)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_PARSE,
                   _("%s: truncated: the header should be %" PRIu64 " bytes, the file "
                     "has %" PRIu64 " after the length"), path, n, size - 8);
      return FALSE;
    }

  /* Shards and folders add up: the headers of one model are bounded
   * together, not only each on its own. */
  if (import->header_bytes + n > HR_IMPORT_MAX_HEADER_BYTES)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                   _("%s: the headers of this model's files come to more than the %u MiB "
                     "Headroom reads for one model"), path,
                   (guint) (HR_IMPORT_MAX_HEADER_BYTES >> 20));
      return FALSE;
    }
  import->header_bytes += n;

  /* Only the header: the tensor data after it is never read. */
  header = g_malloc (n);
  got = hr_file_read (stream, path, header, n, error);
  if (got < 0)
    return FALSE;
  if ((guint64) got != n)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_PARSE, _("%s: truncated inside the header"), path);
      return FALSE;
    }

  return hr_safetensors_parse_header (import, path, header, n, size - 8 - n, error);
}

gboolean
hr_import_safetensors_add_index (HrImport   *import,
                                 const char *path,
                                 GError    **error)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (path, error);
  g_autoptr(GPtrArray) shards = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GList) members = NULL;
  HrReader reader;
  JsonNode *map;
  JsonObject *object;
  gboolean ok = FALSE;

  if (doc == NULL)
    return FALSE;
  if (!hr_reader_init (&reader, doc, "", hr_json_doc_get_root (doc), _("the index"), error))
    return FALSE;
  if (!hr_reader_require (&reader, "weight_map"))
    goto out;

  map = hr_reader_get_node (&reader, "weight_map");
  if (!JSON_NODE_HOLDS_OBJECT (map))
    {
      hr_reader_fail (&reader, "weight_map", _("\"weight_map\" must map tensor names to files"));
      goto out;
    }

  object = json_node_get_object (map);
  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *file = json_object_get_member (object, l->data);
      g_autofree char *p = hr_json_pointer_append ("/weight_map", l->data);
      const char *shard;

      if (!JSON_NODE_HOLDS_VALUE (file) || json_node_get_value_type (file) != G_TYPE_STRING)
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, p, FALSE,
                             _("the file of tensor \"%s\" must be a string"), (char *) l->data);
          goto out;
        }
      shard = json_node_get_string (file);
      /* A shard sits beside the index: no folders, no way out of it. */
      if (shard[0] == '\0' || strchr (shard, '/') != NULL || strchr (shard, '\\') != NULL ||
          g_str_equal (shard, ".") || g_str_equal (shard, ".."))
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, p, FALSE,
                             _("shard \"%s\" must be a file name in the index's folder"), shard);
          goto out;
        }
      if (!g_hash_table_contains (seen, shard))
        {
          if (shards->len >= MAX_SHARDS)
            {
              hr_json_doc_error (doc, error, HR_ERROR_INVALID, p, FALSE,
                                 _("the index names more than %d shards"), MAX_SHARDS);
              goto out;
            }
          g_hash_table_add (seen, (gpointer) shard);
          g_ptr_array_add (shards, g_strdup (shard));
        }
    }

  g_ptr_array_sort (shards, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < shards->len; i++)
    {
      const char *shard = *(const char **) &shards->pdata[i];
      g_autofree char *shard_path = g_build_filename (dir, shard, NULL);

      if (!g_file_test (shard_path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_IO,
                       _("%s: shard %s is not in %s; the exact count needs every shard's header"),
                       path, shard, dir);
          goto out;
        }
      if (!hr_import_safetensors_add_file (import, shard_path, error))
        goto out;
    }

  hr_import_add_read (import, _("%s: %u tensors in %u shards"), path,
                      json_object_get_size (object), shards->len);
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

HrImport *
hr_import_safetensors_load (const char  *path,
                            GError     **error)
{
  g_autoptr(HrImport) import = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  import = hr_import_new (HR_IMPORT_SAFETENSORS, path);
  if (g_str_has_suffix (path, ".json"))
    {
      if (!hr_import_safetensors_add_index (import, path, error))
        return NULL;
    }
  else
    {
      if (!hr_import_safetensors_add_file (import, path, error))
        return NULL;
      hr_import_add_read (import, _("%s: safetensors header"), path);
    }

  hr_import_finish_dtypes (import);
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *dir = g_path_get_dirname (path);
    g_autofree char *dir_base = g_path_get_basename (dir);
    g_autofree char *name = NULL;

    /* "model.safetensors" and shard names say less than the folder's. */
    if (g_str_has_prefix (base, "model") && !g_str_equal (dir_base, "."))
      name = g_strdup (dir_base);
    else
      name = g_strndup (base, strcspn (base, "."));
    hr_import_safetensors_guess_model (import, name);
  }
  hr_import_add_note (import, _("no config.json was read: the architecture comes from the "
                                "tensor names; import the model's folder (or its config.json) "
                                "for one read from the config"));
  return g_steal_pointer (&import);
}

/* ---- Telling the architecture from the weights -------------------------- */

/* Tensor names Headroom cannot read an architecture from still give the
 * exact parameter count and the bytes the weights take: a model object of
 * one weights-only part (hr-catalog.h), which the estimate counts frozen
 * with an assumed forward working set. */
static void
weights_only_model (HrImport   *import,
                    const char *name)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *id = hr_import_make_id (name);
  g_autofree char *source = NULL;
  const HrImportDtype *top = import->dtypes != NULL && import->dtypes->len > 0
                               ? g_ptr_array_index (import->dtypes, 0) : NULL;

  {
    g_autofree char *path = hr_import_clip (import->path);

    source = g_strdup_printf ("Imported by Headroom from %s (safetensors headers); exact "
                              "parameter count from the tensors, architecture unknown "
                              "(weights only)", path);
  }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, id);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "family");
  json_builder_add_string_value (b, "other");
  json_builder_set_member_name (b, "params");
  json_builder_add_int_value (b, import->params);
  json_builder_set_member_name (b, "framework");
  json_builder_add_string_value (b, "pytorch");
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, "weights-only");
  json_builder_end_object (b);
  import->model = json_builder_get_root (b);

  /* Translators: the size of the weights as the file stores them, and the
   * dtype most of them are stored in. */
  hr_import_add_read (import, _("weights only: %.2f GiB as stored (mostly %s); the estimate "
                                "counts them frozen at the scenario's weights_dtype, with an "
                                "assumed forward working set"),
                      import->weight_bytes / (1024.0 * 1024.0 * 1024.0),
                      top != NULL ? top->dtype : "?");
}

/* The MLP's width from its first projection (gated when a gate is
 * stored); 4 x hidden, with a note, when none is recognised. */
static guint64
guess_mlp (HrImport *import,
           guint64   hidden,
           gboolean *glu)
{
  guint64 inter = 0, d0 = 0, d1 = 0;

  if (find_shape (import, TRUE, "gate_up_proj.weight", &d0, &d1))
    {
      *glu = TRUE;
      inter = d0 / 2;
    }
  else if (find_shape (import, TRUE, "gate_proj.weight|feed_forward.w1.weight|.w1.weight",
                       &d0, &d1))
    {
      *glu = TRUE;
      inter = d0;
    }
  else if (find_shape (import, TRUE, "c_fc.weight", &d0, &d1))
    inter = d1;
  else if (find_shape (import, TRUE, "dense_h_to_4h.weight|fc1.weight|up_proj.weight|"
                                     "intermediate.dense.weight", &d0, &d1))
    inter = d0;
  else
    {
      inter = 4 * hidden;
      hr_import_add_note (import, _("no MLP weight recognised: an intermediate width of 4 x "
                                    "hidden assumed for activations"));
    }
  if (inter == 0 || inter > (1u << 28))
    inter = 4 * hidden;

  return inter;
}

void
hr_import_safetensors_guess_model (HrImport   *import,
                                   const char *name)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *id = NULL;
  g_autofree char *source = NULL;
  guint64 vocab = 0, hidden = 0, q = 0, k = 0, inter = 0, d0 = 0, d1 = 0, head_dim;
  gboolean glu = FALSE, tied;
  const char *head_note = NULL;

  g_return_if_fail (import != NULL);

  if (import->model != NULL || import->tensor_shapes == NULL || import->params == 0)
    return;
  if (hr_import_diffusers_guess (import, name))
    return;

  if (!find_shape (import, FALSE, "embed_tokens.weight|wte.weight|tok_embeddings.weight|"
                                  "word_embeddings.weight|embed_in.weight", &vocab, &hidden) ||
      import->tensor_layers == 0 || vocab == 0 || hidden == 0 || hidden > (1u << 24) ||
      vocab > (1u << 26))
    {
      hr_import_add_note (import, _("the tensor names are not a layout Headroom can read an "
                                    "architecture from (no token embedding and numbered layers)"));
      weights_only_model (import, name);
      return;
    }

  /* Linear weights are [out, in]; GPT-2's Conv1D ones are [in, out]. */
  if (find_shape (import, TRUE, "q_proj.weight|attention.wq.weight", &q, &d1))
    {
      if (!find_shape (import, TRUE, "k_proj.weight|attention.wk.weight", &k, &d1))
        k = q;
    }
  else if (find_shape (import, TRUE, "query_key_value.weight|qkv_proj.weight", &d0, &d1) &&
           d0 == 3 * hidden)
    q = k = hidden;
  else if (find_shape (import, TRUE, "c_attn.weight", &d0, &d1) && d1 == 3 * hidden)
    q = k = hidden;
  else
    {
      q = k = hidden;
      head_note = _("the attention projections are fused or unnamed: as many key/value heads "
                    "as query heads assumed");
    }

  inter = guess_mlp (import, hidden, &glu);

  tied = !find_shape (import, FALSE, "lm_head.weight|embed_out.weight|output.weight", &d0,
                      &d1);

  /* The head width is not stored anywhere in the weights: 128 is what
   * Llama, Mistral and Qwen use at 7B and up, 64 the smaller models. */
  head_dim = (q % 128 == 0 && k % 128 == 0 && q / 128 >= 8) ? 128 : 64;
  if (q % head_dim != 0 || k % head_dim != 0 || k == 0 || (q / head_dim) % (k / head_dim) != 0)
    {
      head_dim = q;
      k = q;
    }
  hr_import_add_note (import, _("the head width is not in the weights: %" PRIu64
                                " assumed (%" PRIu64 " heads, %" PRIu64
                                " key/value); it changes only the attention estimate"),
                      head_dim, q / head_dim, k / head_dim);
  if (head_note != NULL)
    hr_import_add_note (import, "%s", head_note);
  if (import->tensor_experts > 0)
    hr_import_add_note (import, _("%u experts per layer are stored; how many run per token is "
                                  "not in the weights, so every parameter is counted as active"),
                        import->tensor_experts);
  if (import->quantization != NULL)
    hr_import_add_note (import, _("the weights are quantised (%s): shapes read from packed "
                                  "tensors may be off"), import->quantization);

  id = hr_import_make_id (name);
  {
    g_autofree char *path = hr_import_clip (import->path);

    source = g_strdup_printf ("Imported by Headroom from %s (safetensors headers); exact "
                              "parameter count from the tensors, architecture guessed from their "
                              "names and shapes", path);
  }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, id);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "family");
  json_builder_add_string_value (b, "llm");
  json_builder_set_member_name (b, "params");
  json_builder_add_int_value (b, import->params);
  json_builder_set_member_name (b, "framework");
  json_builder_add_string_value (b, "pytorch");
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source);
  json_builder_set_member_name (b, "layers");
  json_builder_add_int_value (b, import->tensor_layers);
  json_builder_set_member_name (b, "hidden");
  json_builder_add_int_value (b, hidden);
  json_builder_set_member_name (b, "heads");
  json_builder_add_int_value (b, q / head_dim);
  json_builder_set_member_name (b, "kv_heads");
  json_builder_add_int_value (b, k / head_dim);
  json_builder_set_member_name (b, "head_dim");
  json_builder_add_int_value (b, head_dim);
  json_builder_set_member_name (b, "intermediate");
  json_builder_add_int_value (b, inter);
  json_builder_set_member_name (b, "vocab");
  json_builder_add_int_value (b, vocab);
  json_builder_set_member_name (b, "tied_embeddings");
  json_builder_add_boolean_value (b, tied);
  json_builder_set_member_name (b, "glu");
  json_builder_add_boolean_value (b, glu);
  json_builder_set_member_name (b, "norm");
  json_builder_add_string_value (b, glu ? "rmsnorm" : "layernorm");
  json_builder_end_object (b);

  import->model = json_builder_get_root (b);
  /* Translators: the layers, the hidden size, the MLP's width, the
   * vocabulary. */
  if (glu && tied)
    hr_import_add_read (import, _("architecture from the tensor names: %u layers, hidden %" PRIu64
                                  ", gated MLP %" PRIu64 ", vocab %" PRIu64 " (tied head)"),
                        import->tensor_layers, hidden, inter, vocab);
  else if (glu)
    hr_import_add_read (import, _("architecture from the tensor names: %u layers, hidden %" PRIu64
                                  ", gated MLP %" PRIu64 ", vocab %" PRIu64 " (untied head)"),
                        import->tensor_layers, hidden, inter, vocab);
  else if (tied)
    hr_import_add_read (import, _("architecture from the tensor names: %u layers, hidden %" PRIu64
                                  ", plain MLP %" PRIu64 ", vocab %" PRIu64 " (tied head)"),
                        import->tensor_layers, hidden, inter, vocab);
  else
    hr_import_add_read (import, _("architecture from the tensor names: %u layers, hidden %" PRIu64
                                  ", plain MLP %" PRIu64 ", vocab %" PRIu64 " (untied head)"),
                        import->tensor_layers, hidden, inter, vocab);
}
