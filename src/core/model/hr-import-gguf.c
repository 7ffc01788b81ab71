/* hr-import-gguf.c: llama.cpp GGUF headers, read without the tensors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout (ggml docs/gguf.md): "GGUF" magic, u32 version, u64 tensor
 * count, u64 metadata count; the metadata as (string key, u32 type, value);
 * then per tensor (string name, u32 n_dims, u64 dims[n_dims], u32 ggml type,
 * u64 offset).  Strings are a u64 length and UTF-8 bytes, all little-endian.
 * Version 1 used 32-bit counts and is not read.
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-import"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "hr-file.h"
#include "hr-import-gguf.h"
#include "hr-types.h"

/* Limits far above real files (a 671B MoE has under 2,000 tensors and a
 * 256k-token vocabulary), checked before anything is allocated. */
#define MAX_TENSORS     (1u << 20)
#define MAX_KV          (1u << 16)
#define MAX_KEY_LEN     65535          /* gguf.md: keys are at most 65535 bytes */
#define MAX_DIMS        4              /* GGML_MAX_DIMS */
#define MAX_ARRAY_DEPTH 4
#define MAX_DIM         (G_GUINT64_CONSTANT (1) << 40)
/* The loader reads this much of the file first, then more if the header
 * (mostly the tokenizer's vocabulary and merges, some megabytes for a
 * 256k-token vocabulary) is longer, up to the second limit. */
#define FIRST_READ      (8u << 20)
#define MAX_HEADER      (G_GUINT64_CONSTANT (64) << 20)

enum {
  GGUF_UINT8, GGUF_INT8, GGUF_UINT16, GGUF_INT16, GGUF_UINT32, GGUF_INT32, GGUF_FLOAT32,
  GGUF_BOOL, GGUF_STRING, GGUF_ARRAY, GGUF_UINT64, GGUF_INT64, GGUF_FLOAT64,
};

double
hr_gguf_type_bits (guint32 type)
{
  const HrGgmlType *t = hr_ggml_type_find (type);

  return t == NULL ? 0 : 8.0 * t->bytes / t->block;
}

const char *
hr_gguf_type_name (guint32 type)
{
  const HrGgmlType *t = hr_ggml_type_find (type);

  return t == NULL ? NULL : t->name;
}

typedef struct {
  const char   *name;
  const guint8 *data;
  gsize         length;
  gsize         pos;
  gboolean      truncated;
  GError      **error;
  const char   *section;   /* for messages: _("the metadata"), _("the tensor infos") */
} Gguf;

static gboolean
truncated (Gguf *g)
{
  if (!g->truncated)
    g_set_error (g->error, HR_ERROR, HR_ERROR_PARSE,
                 _("%s: truncated at byte %zu in %s of the GGUF header"), g->name,
                 g->length, g->section);
  g->truncated = TRUE;
  return FALSE;
}

static gboolean G_GNUC_PRINTF (2, 3)
fail (Gguf       *g,
      const char *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (g->error, HR_ERROR, HR_ERROR_INVALID, _("%s: byte %zu: %s"),
               g->name, g->pos, message);
  return FALSE;
}

static gboolean
need (Gguf  *g,
      gsize  n)
{
  if (g->length - g->pos < n)
    return truncated (g);
  return TRUE;
}

static gboolean
read_u32 (Gguf    *g,
          guint32 *out)
{
  guint32 v = 0;

  if (!need (g, 4))
    return FALSE;
  for (int i = 3; i >= 0; i--)
    v = (v << 8) | g->data[g->pos + i];
  g->pos += 4;
  *out = v;
  return TRUE;
}

static gboolean
read_u64 (Gguf    *g,
          guint64 *out)
{
  guint64 v = 0;

  if (!need (g, 8))
    return FALSE;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | g->data[g->pos + i];
  g->pos += 8;
  *out = v;
  return TRUE;
}

/* A string in place (not copied). */
static gboolean
read_string (Gguf         *g,
             guint64       max,
             const char  **out,
             gsize        *out_len)
{
  guint64 n;

  if (!read_u64 (g, &n))
    return FALSE;
  if (n > max)
    return fail (g, _("a string of %" PRIu64 " bytes in %s, more than %"
                   PRIu64), n, g->section, max);
  if (!need (g, n))
    return FALSE;
  *out = (const char *) g->data + g->pos;
  *out_len = n;
  g->pos += n;
  return TRUE;
}

static gsize
scalar_size (guint32 type)
{
  switch (type)
    {
    case GGUF_UINT8: case GGUF_INT8: case GGUF_BOOL:
      return 1;
    case GGUF_UINT16: case GGUF_INT16:
      return 2;
    case GGUF_UINT32: case GGUF_INT32: case GGUF_FLOAT32:
      return 4;
    case GGUF_UINT64: case GGUF_INT64: case GGUF_FLOAT64:
      return 8;
    default:
      return 0;
    }
}

/* What the metadata says, for the keys Headroom uses. */
typedef struct {
  GHashTable *ints;     /* key -> guint64 *, integer scalars */
  GHashTable *strings;  /* key -> char *, short strings */
  GHashTable *arrays;   /* key -> guint64 *, array lengths */
} Meta;

/* What a header held besides its tensors' dtypes. */
typedef struct {
  Meta     meta;
  guint32  version;
  guint64  n_tensors;
  guint64  n_kv;
  guint64  expert_params;   /* elements of the stacked expert tensors ("_exps.") */
  gboolean has_output;      /* an untied output.weight */
} GgufHeader;

static void
header_clear (GgufHeader *h)
{
  g_clear_pointer (&h->meta.ints, g_hash_table_unref);
  g_clear_pointer (&h->meta.strings, g_hash_table_unref);
  g_clear_pointer (&h->meta.arrays, g_hash_table_unref);
  memset (h, 0, sizeof *h);
}

static gboolean
read_value (Gguf       *g,
            guint32     type,
            guint       depth,
            const char *key,
            Meta       *meta)
{
  gsize size = scalar_size (type);

  if (size > 0)
    {
      guint64 v = 0;
      gboolean is_signed = type == GGUF_INT8 || type == GGUF_INT16 || type == GGUF_INT32 ||
                           type == GGUF_INT64;

      if (!need (g, size))
        return FALSE;
      if (type != GGUF_FLOAT32 && type != GGUF_FLOAT64 && type != GGUF_BOOL)
        {
          for (int i = size - 1; i >= 0; i--)
            v = (v << 8) | g->data[g->pos + i];
          /* Negative values are of no use here; keep non-negative ones. */
          if (key != NULL && !(is_signed && (v >> (size * 8 - 1)) & 1))
            g_hash_table_insert (meta->ints, g_strdup (key), g_memdup2 (&v, sizeof v));
        }
      g->pos += size;
      return TRUE;
    }

  if (type == GGUF_STRING)
    {
      const char *s;
      gsize n;

      if (!read_string (g, G_MAXUINT64, &s, &n))
        return FALSE;
      /* gguf.md says UTF-8, but a name that is not would be written into
       * the model object and the user catalog as it is. */
      if (key != NULL && n <= 1024)
        g_hash_table_insert (meta->strings, g_strdup (key), g_utf8_make_valid (s, n));
      return TRUE;
    }

  if (type == GGUF_ARRAY)
    {
      guint32 item_type;
      guint64 count;
      gsize item_size;

      if (depth >= MAX_ARRAY_DEPTH)
        return fail (g, _("arrays nested more than %d deep"), MAX_ARRAY_DEPTH);
      if (!read_u32 (g, &item_type) || !read_u64 (g, &count))
        return FALSE;

      if (key != NULL)
        g_hash_table_insert (meta->arrays, g_strdup (key), g_memdup2 (&count, sizeof count));

      item_size = scalar_size (item_type);
      if (item_size > 0)
        {
          /* Fixed-size items are skipped in one step. */
          if (count > (g->length - g->pos) / item_size)
            return truncated (g);
          g->pos += count * item_size;
          return TRUE;
        }
      if (item_type != GGUF_STRING && item_type != GGUF_ARRAY)
        return fail (g, _("unknown array item type %u"), item_type);
      /* Each string or array item takes at least 8 bytes. */
      if (count > (g->length - g->pos) / 8)
        return truncated (g);
      for (guint64 i = 0; i < count; i++)
        {
          if (!read_value (g, item_type, depth + 1, NULL, meta))
            return FALSE;
        }
      return TRUE;
    }

  return fail (g, _("unknown metadata value type %u"), type);
}

static const guint64 *
meta_int (Meta       *meta,
          const char *arch,
          const char *key)
{
  g_autofree char *full = g_strconcat (arch, ".", key, NULL);

  return g_hash_table_lookup (meta->ints, full);
}

/* Architectures (general.architecture) whose MLP is a plain two-layer one
 * with LayerNorm; the llama.cpp decoders not listed have a gated MLP and
 * RMSNorm. */
static const char * const plain_mlp_archs[] = {
  "gpt2", "gptneox", "gptj", "falcon", "bloom", "mpt", "starcoder", "phi2", "bert",
  "nomic-bert", "jina-bert-v2", "opt", "refact", NULL
};

static const char * const gated_mlp_archs[] = {
  "llama", "mistral", "mixtral", "qwen2", "qwen2moe", "qwen3", "qwen3moe", "gemma", "gemma2",
  "gemma3", "phi3", "deepseek", "deepseek2", "olmo2", "granite", "command-r", "cohere2",
  "internlm2", "minicpm", "stablelm", "llama4", "exaone", "starcoder2", NULL
};

static void
build_model (HrImport   *import,
             Meta       *meta,
             const char *arch,
             const char *name,
             gboolean    has_output,
             guint64     expert_params)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *id = NULL;
  g_autofree char *source = NULL;
  const guint64 *layers = meta_int (meta, arch, "block_count");
  const guint64 *hidden = meta_int (meta, arch, "embedding_length");
  const guint64 *heads = meta_int (meta, arch, "attention.head_count");
  const guint64 *kv = meta_int (meta, arch, "attention.head_count_kv");
  const guint64 *ffn = meta_int (meta, arch, "feed_forward_length");
  const guint64 *ctx = meta_int (meta, arch, "context_length");
  const guint64 *key_len = meta_int (meta, arch, "attention.key_length");
  const guint64 *experts = meta_int (meta, arch, "expert_count");
  const guint64 *used = meta_int (meta, arch, "expert_used_count");
  const guint64 *vocab = meta_int (meta, arch, "vocab_size");
  g_autofree char *tokens_key = g_strdup ("tokenizer.ggml.tokens");
  guint64 kv_heads, head_dim, vocab_n = 0;
  gboolean glu;

  if (vocab != NULL)
    vocab_n = *vocab;
  else if (g_hash_table_lookup (meta->arrays, tokens_key) != NULL)
    vocab_n = *(guint64 *) g_hash_table_lookup (meta->arrays, tokens_key);

  if (experts != NULL && *experts > 0 && used != NULL && *used <= *experts && expert_params > 0)
    {
      import->experts = *experts;
      import->experts_per_token = *used;
      import->active_params = import->params -
                              (guint64) ((double) expert_params * (*experts - *used) / *experts);
      hr_import_add_note (import, _("mixture of experts: all %u experts are stored, %u run per "
                                    "token (%" PRIu64 " active parameters)"),
                          import->experts, import->experts_per_token, import->active_params);
    }

  if (layers == NULL || hidden == NULL || heads == NULL || *layers == 0 || *hidden == 0 ||
      *heads == 0 || *layers > 100000 || *hidden > (1u << 24) || *heads > *hidden)
    {
      hr_import_add_note (import, _("the metadata lacks %s.block_count, embedding_length or "
                                    "attention.head_count: the counts are exact, but no model "
                                    "can be planned from them"), arch);
      return;
    }

  kv_heads = kv != NULL && *kv > 0 && *kv <= *heads ? *kv : *heads;
  if (kv == NULL)
    {
      g_autofree char *kv_key = g_strconcat (arch, ".attention.head_count_kv", NULL);

      if (g_hash_table_contains (meta->arrays, kv_key))
        hr_import_add_note (import, _("the key/value heads vary by layer: %" PRIu64
                                      " (every head) assumed for the KV cache"), *heads);
    }
  if (*heads % kv_heads != 0)
    kv_heads = *heads;
  head_dim = key_len != NULL && *key_len > 0 && *key_len < (1u << 24) ? *key_len
                                                                     : *hidden / *heads;
  if (head_dim == 0 || (key_len == NULL && *hidden % *heads != 0))
    {
      hr_import_add_note (import, _("the head width does not follow from the metadata: no "
                                    "model can be planned from it"));
      return;
    }

  if (g_strv_contains (plain_mlp_archs, arch))
    glu = FALSE;
  else
    {
      glu = TRUE;
      if (!g_strv_contains (gated_mlp_archs, arch))
        hr_import_add_note (import, _("architecture \"%s\" is not one Headroom knows: a gated "
                                      "MLP and RMSNorm are assumed"), arch);
    }

  id = hr_import_make_id (name);
  {
    g_autofree char *path = hr_import_clip (import->path);
    g_autofree char *clipped = hr_import_clip (arch);

    source = g_strdup_printf ("Imported by Headroom from %s (GGUF header, architecture %s); "
                              "exact parameter count from its tensor infos", path, clipped);
  }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, id);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "family");
  json_builder_add_string_value (b, vocab_n > 0 ? "llm" : "other");
  json_builder_set_member_name (b, "params");
  json_builder_add_int_value (b, import->params);
  json_builder_set_member_name (b, "framework");
  json_builder_add_string_value (b, "pytorch");
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source);
  json_builder_set_member_name (b, "layers");
  json_builder_add_int_value (b, *layers);
  json_builder_set_member_name (b, "hidden");
  json_builder_add_int_value (b, *hidden);
  json_builder_set_member_name (b, "heads");
  json_builder_add_int_value (b, *heads);
  json_builder_set_member_name (b, "kv_heads");
  json_builder_add_int_value (b, kv_heads);
  if (head_dim * *heads != *hidden)
    {
      json_builder_set_member_name (b, "head_dim");
      json_builder_add_int_value (b, head_dim);
    }
  if (ffn != NULL && *ffn > 0 && *ffn < (1u << 28))
    {
      json_builder_set_member_name (b, "intermediate");
      json_builder_add_int_value (b, *ffn);
    }
  else
    hr_import_add_note (import, _("no single %s.feed_forward_length: 4 x hidden assumed for "
                                  "activations"), arch);
  if (vocab_n > 0 && vocab_n < (1u << 26))
    {
      json_builder_set_member_name (b, "vocab");
      json_builder_add_int_value (b, vocab_n);
      json_builder_set_member_name (b, "tied_embeddings");
      json_builder_add_boolean_value (b, !has_output);
    }
  json_builder_set_member_name (b, "glu");
  json_builder_add_boolean_value (b, glu);
  json_builder_set_member_name (b, "norm");
  json_builder_add_string_value (b, glu ? "rmsnorm" : "layernorm");
  if (ctx != NULL && *ctx > 0 && *ctx <= (1u << 26))
    {
      json_builder_set_member_name (b, "max_seq_len");
      json_builder_add_int_value (b, *ctx);
    }
  json_builder_end_object (b);

  import->model = json_builder_get_root (b);
}

/* The magic, the version and the counts of tensors and metadata keys. */
static gboolean
read_preamble (Gguf    *g,
               guint32 *version,
               guint64 *n_tensors,
               guint64 *n_kv)
{
  guint32 magic = 0;

  if (!read_u32 (g, &magic))
    return truncated (g);
  /* "GGUF" read as a little-endian u32 */
  if (magic != 0x46554747)
    {
      g_set_error (g->error, HR_ERROR, HR_ERROR_PARSE,
                   _("%s: not a GGUF file (it does not start with \"GGUF\")"), g->name);
      return FALSE;
    }
  if (!read_u32 (g, version) || !read_u64 (g, n_tensors) || !read_u64 (g, n_kv))
    return truncated (g);
  if (*version != 2 && *version != 3)
    {
      g_set_error (g->error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: GGUF version %u; Headroom reads versions 2 and 3"), g->name,
                   *version);
      return FALSE;
    }
  if (*n_tensors > MAX_TENSORS || *n_kv > MAX_KV)
    {
      g_set_error (g->error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: the header claims %" PRIu64 " tensors and %" PRIu64
                     " metadata keys, more than any model has (at most %u and %u are read)"),
                   g->name, *n_tensors, *n_kv, MAX_TENSORS, MAX_KV);
      return FALSE;
    }
  return TRUE;
}

/* The metadata keys Headroom uses, into @meta. */
static gboolean
read_metadata (Gguf    *g,
               guint64  n_kv,
               Meta    *meta)
{
  g->section = _("the metadata");
  for (guint64 i = 0; i < n_kv; i++)
    {
      const char *key;
      gsize key_len;
      guint32 type;
      g_autofree char *k = NULL;

      if (!read_string (g, MAX_KEY_LEN, &key, &key_len) || !read_u32 (g, &type))
        return FALSE;
      k = g_strndup (key, key_len);
      if (!read_value (g, type, 0, k, meta))
        return FALSE;
    }
  return TRUE;
}

/* Tensor info @i: its name, shape and type, counted into @import. */
static gboolean
read_tensor_info (Gguf     *g,
                  guint64   i,
                  HrImport *import,
                  guint64  *total,
                  gboolean *has_output,
                  guint64  *expert_params)
{
  const char *tname;
  gsize tname_len;
  guint32 n_dims, type;
  guint64 numel = 1, offset, ne0 = 1;
  const HrGgmlType *t;

  if (!read_string (g, MAX_KEY_LEN, &tname, &tname_len) || !read_u32 (g, &n_dims))
    return FALSE;
  if (n_dims > MAX_DIMS)
    {
      fail (g, _("tensor %" PRIu64 " has %u dimensions, more than ggml's %d"), i,
            n_dims, MAX_DIMS);
      return FALSE;
    }
  for (guint d = 0; d < n_dims; d++)
    {
      guint64 dim;

      if (!read_u64 (g, &dim))
        return FALSE;
      if (dim > MAX_DIM || (dim > 0 && numel > G_MAXUINT64 / 64 / dim))
        {
          fail (g, _("tensor %" PRIu64 " has a dimension of %" PRIu64
                  ", more than any file holds"), i, dim);
          return FALSE;
        }
      if (d == 0)
        ne0 = dim;
      numel *= dim;
    }
  if (!read_u32 (g, &type) || !read_u64 (g, &offset))
    return FALSE;

  t = hr_ggml_type_find (type);
  if (t == NULL)
    {
      fail (g, _("tensor %" PRIu64 " has ggml type %u, which Headroom does not "
                  "know"), i, type);
      return FALSE;
    }
  if (ne0 % t->block != 0)
    {
      fail (g, _("tensor %" PRIu64 ": a row of %" PRIu64 " is not a "
                  "whole number of %s blocks of %u"), i, ne0, t->name,
            t->block);
      return FALSE;
    }

  /* Each count is below 2^58, so the sum cannot wrap before this. */
  *total += numel;
  if (*total > HR_IMPORT_MAX_PARAMS)
    {
      fail (g, _("tensor %" PRIu64 " brings the count to more than %" PRIu64
                  " parameters, more than any model has"), i, HR_IMPORT_MAX_PARAMS);
      return FALSE;
    }

  if (tname_len == strlen ("output.weight") &&
      memcmp (tname, "output.weight", tname_len) == 0)
    *has_output = TRUE;
  if (g_strstr_len (tname, tname_len, "_exps.") != NULL)
    *expert_params += numel;

  hr_import_add_tensor (import, t->name, numel,
                        numel / t->block * t->bytes);
  return TRUE;
}

static HrImport *
parse (const char    *display_name,
       const guint8  *data,
       gsize          length,
       GgufHeader    *h,
       gboolean      *was_truncated,
       GError       **error)
{
  g_autoptr(HrImport) import = NULL;
  Meta meta;
  Gguf g = { display_name, data, length, 0, FALSE, error, _("the preamble") };
  guint32 version = 0;
  guint64 n_tensors = 0, n_kv = 0, expert_params = 0, total = 0;
  gboolean has_output = FALSE;
  const char *arch;

  header_clear (h);
  h->meta.ints = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  h->meta.strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  h->meta.arrays = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  meta = h->meta;

  *was_truncated = FALSE;
  if (!read_preamble (&g, &version, &n_tensors, &n_kv))
    goto fail;

  import = hr_import_new (HR_IMPORT_GGUF, display_name);

  if (!read_metadata (&g, n_kv, &meta))
    goto fail;

  arch = g_hash_table_lookup (meta.strings, "general.architecture");
  import->model_type = g_strdup (arch);

  g.section = _("the tensor infos");
  /* Each tensor info takes at least 8 + 4 + 8 + 4 + 8 bytes. */
  if (n_tensors > (g.length - g.pos) / 32)
    {
      truncated (&g);
      goto fail;
    }
  for (guint64 i = 0; i < n_tensors; i++)
    {
      if (!read_tensor_info (&g, i, import, &total, &has_output, &expert_params))
        goto fail;
    }

  h->version = version;
  h->n_tensors = n_tensors;
  h->n_kv = n_kv;
  h->expert_params = expert_params;
  h->has_output = has_output;
  return g_steal_pointer (&import);

fail:
  *was_truncated = g.truncated;
  return NULL;
}

/* Totals, what was read, and the model object from the metadata. */
static void
finish (HrImport   *import,
        GgufHeader *h,
        const char *display_name,
        guint       files)
{
  const char *arch = g_hash_table_lookup (h->meta.strings, "general.architecture");
  g_autofree char *name = g_strdup (g_hash_table_lookup (h->meta.strings, "general.name"));

  hr_import_finish_dtypes (import);
  import->active_params = import->params;
  if (files > 1)
    hr_import_add_read (import, _("%s and the %u other parts of the split: GGUF v%u, "
                                  "architecture %s, %" PRIu64 " tensors"),
                        display_name, files - 1, h->version, arch != NULL ? arch : _("not given"),
                        h->n_tensors);
  else
    hr_import_add_read (import, _("%s: GGUF v%u, architecture %s, %" PRIu64 " tensors, %"
                          PRIu64 " metadata keys"), display_name, h->version,
                        arch != NULL ? arch : _("not given"), h->n_tensors, h->n_kv);

  if (arch == NULL)
    {
      hr_import_add_note (import, _("no general.architecture in the metadata"));
      arch = "unknown";
    }

  if (name == NULL || name[0] == '\0')
    {
      g_autofree char *base = g_path_get_basename (display_name);

      g_free (name);
      name = g_str_has_suffix (base, ".gguf") ? g_strndup (base, strlen (base) - 5)
                                              : g_steal_pointer (&base);
    }
  if (import->params > 0)
    build_model (import, &h->meta, arch, name, h->has_output, h->expert_params);
  else
    hr_import_add_note (import, _("the file lists no tensors"));
}

HrImport *
hr_import_gguf_parse (const char    *display_name,
                      const guint8  *data,
                      gsize          length,
                      GError       **error)
{
  GgufHeader h = { { NULL, NULL, NULL }, 0, 0, 0, 0, FALSE };
  gboolean was_truncated;
  HrImport *import;

  g_return_val_if_fail (display_name != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  import = parse (display_name, data, length, &h, &was_truncated, error);
  if (import != NULL)
    finish (import, &h, display_name, 1);
  header_clear (&h);
  return import;
}

/* The header of one file, read in growing steps until it is whole. */
static HrImport *
load_header (const char  *path,
             GgufHeader  *h,
             GError     **error)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  guint64 size = 0, want;

  /* Only the header is read, whatever the size of the weights after it. */
  stream = hr_file_open (path, G_MAXUINT64, _("a GGUF file"), &size, error);
  if (stream == NULL)
    return NULL;
  want = MIN (size, FIRST_READ);

  for (;;)
    {
      g_autoptr(GError) parse_error = NULL;
      gboolean was_truncated = FALSE;
      HrImport *import;
      gssize got;
      gsize old = buf->len;

      /* Read on from where the last attempt stopped: only the header's
       * bytes are ever read, never the tensor data that follows. */
      g_byte_array_set_size (buf, want);
      got = hr_file_read (stream, path, buf->data + old, want - old, error);
      if (got < 0)
        return NULL;
      g_byte_array_set_size (buf, old + got);

      import = parse (path, buf->data, buf->len, h, &was_truncated, &parse_error);
      if (import != NULL)
        {
          import->header_bytes = buf->len;
          return import;
        }
      if (!was_truncated || buf->len >= size || buf->len < want)
        {
          g_propagate_error (error, g_steal_pointer (&parse_error));
          return NULL;
        }
      if (want >= MAX_HEADER)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                       _("%s: the GGUF header runs past its first %" PRIu64 " MiB; "
                         "Headroom reads no more"), path, MAX_HEADER >> 20);
          return NULL;
        }
      want = MIN (size, MIN (MAX_HEADER, want * 4));
    }
}

/* llama.cpp's gguf-split names the parts NAME-00001-of-00003.gguf and
 * records split.count in each; the metadata is in the first. */
static gboolean
split_part_path (const char *path,
                 guint       count,
                 guint       number,
                 char      **out)
{
  g_autofree char *suffix = g_strdup_printf ("-of-%05u.gguf", count);
  const char *end;
  gsize stem;

  if (!g_str_has_suffix (path, suffix) || strlen (path) < strlen (suffix) + 6)
    return FALSE;
  end = path + strlen (path) - strlen (suffix);
  stem = end - 6 - path;
  if (end[-6] != '-')
    return FALSE;
  *out = g_strdup_printf ("%.*s-%05u-of-%05u.gguf", (int) stem, path, number, count);
  return TRUE;
}

/* Parameters in the dtype table so far (each part's are below 2^44). */
static guint64
dtype_params (const HrImport *import)
{
  guint64 total = 0;

  for (guint i = 0; i < import->dtypes->len; i++)
    total += ((const HrImportDtype *) g_ptr_array_index (import->dtypes, i))->params;
  return total;
}

HrImport *
hr_import_gguf_load (const char  *path,
                     GError     **error)
{
  GgufHeader h = { { NULL, NULL, NULL }, 0, 0, 0, 0, FALSE };
  g_autoptr(HrImport) import = NULL;
  const guint64 *count;
  guint files = 1;

  g_return_val_if_fail (path != NULL, NULL);

  import = load_header (path, &h, error);
  if (import == NULL)
    {
      header_clear (&h);
      return NULL;
    }

  count = g_hash_table_lookup (h.meta.ints, "split.count");
  if (count != NULL && *count > 1 && *count <= 10000)
    {
      g_autofree char *first = NULL;

      if (!split_part_path (path, *count, 1, &first) || !g_str_equal (first, path))
        {
          hr_import_add_note (import, _("this is one part of a model split in %" PRIu64
                                        ": import the first part (…-00001-of-…) or the "
                                        "folder to count them all"), *count);
        }
      else
        {
          for (guint i = 2; i <= *count; i++)
            {
              g_autofree char *part = NULL;
              GgufHeader ph = { { NULL, NULL, NULL }, 0, 0, 0, 0, FALSE };
              g_autoptr(HrImport) more = NULL;

              split_part_path (path, *count, i, &part);
              more = load_header (part, &ph, error);
              if (more == NULL)
                {
                  header_clear (&ph);
                  header_clear (&h);
                  g_prefix_error (error, _("part %u of %" PRIu64 " of the split: "), i,
                                  *count);
                  return NULL;
                }
              hr_import_merge_dtypes (import, more);
              import->header_bytes += more->header_bytes;
              h.n_tensors += ph.n_tensors;
              h.expert_params += ph.expert_params;
              h.has_output |= ph.has_output;
              header_clear (&ph);
              files++;
              /* Each part is within the limits; together they may not be. */
              if (import->header_bytes > HR_IMPORT_MAX_HEADER_BYTES)
                {
                  g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                               _("%s: the headers of the first %u parts of the split come to "
                                 "more than the %u MiB Headroom reads for one model"), path, i,
                               (guint) (HR_IMPORT_MAX_HEADER_BYTES >> 20));
                  header_clear (&h);
                  return NULL;
                }
              if (dtype_params (import) > HR_IMPORT_MAX_PARAMS)
                {
                  g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                               _("%s: the first %u parts of the split add up to more than %"
                                 PRIu64 " parameters, more than any model has"), path, i,
                               HR_IMPORT_MAX_PARAMS);
                  header_clear (&h);
                  return NULL;
                }
            }
        }
    }

  finish (import, &h, path, files);
  header_clear (&h);
  return g_steal_pointer (&import);
}
