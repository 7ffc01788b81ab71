/* test-import.c: models from Hugging Face configs, safetensors and GGUF headers,
 * and the user catalog
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

/* Real config.json files; each published count and where it comes from is
 * listed in tests/data/import/README.md.  `exact` is the count of the
 * checkpoint's tensors where it is published (the safetensors total on the
 * model's Hugging Face page, or a paper's table), 0 where only a rounded
 * figure is. */
static const struct {
  const char *dir;
  double      published;
  guint64     exact;
} fixtures[] = {
  { "llama-2-7b-hf", 6.74e9, G_GUINT64_CONSTANT (6738415616) },
  { "llama-3.1-8b", 8.03e9, G_GUINT64_CONSTANT (8030261248) },
  { "llama-3.2-1b", 1.24e9, G_GUINT64_CONSTANT (1235814400) },
  { "mistral-7b-v0.1", 7.24e9, G_GUINT64_CONSTANT (7241732096) },
  { "mixtral-8x7b-v0.1", 46.7e9, G_GUINT64_CONSTANT (46702792704) },
  { "qwen2.5-0.5b", 0.494e9, G_GUINT64_CONSTANT (494032768) },
  { "qwen2.5-7b", 7.61e9, G_GUINT64_CONSTANT (7615616512) },
  { "qwen3-8b", 8.2e9, 0 },
  { "qwen1.5-moe-a2.7b", 14.3e9, 0 },
  { "deepseek-v2-lite", 15.7e9, 0 },
  { "deepseek-v3", 671e9, 0 },
  { "gemma-2b", 2.51e9, G_GUINT64_CONSTANT (2506172416) },
  { "gemma-2-9b", 9.24e9, G_GUINT64_CONSTANT (9241705984) },
  { "gemma-3-4b-it", 4.3e9, G_GUINT64_CONSTANT (4300079472) },
  { "phi-3-mini-4k-instruct", 3.82e9, G_GUINT64_CONSTANT (3821079552) },
  { "phi-4", 14.7e9, 0 },
  { "gpt2", 124e6, G_GUINT64_CONSTANT (124439808) },
  { "pythia-1.4b", 1.41e9, G_GUINT64_CONSTANT (1414647808) },
  { "falcon-7b", 6.92e9, G_GUINT64_CONSTANT (6921720704) },
  { "opt-125m", 125e6, 0 },
  { "bert-base-uncased", 110e6, 0 },
  { "roberta-base", 125e6, 0 },
  { "t5-base", 223e6, 0 },
  { "vit-base-patch16-224", 86.6e6, 0 },
  { "clip-vit-base-patch32", 151e6, 0 },
  { "siglip-base-patch16-224", 203e6, 0 },
  { "llava-1.5-7b-hf", 7.06e9, 0 },
};

static char *
fixture_path (const char *dir)
{
  return g_build_filename (HR_IMPORT_FIXTURES, dir, "config.json", NULL);
}

static void
test_real_configs (void)
{
  g_assert_cmpuint (G_N_ELEMENTS (fixtures), >=, 15);

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = fixture_path (fixtures[i].dir);
      g_autoptr(GError) error = NULL;
      g_autoptr(HrImport) import = hr_import_hf_config_load (path, &error);
      g_autoptr(HrModel) model = NULL;
      double off;

      g_assert_no_error (error);
      off = fabs ((double) import->params - fixtures[i].published) / fixtures[i].published;
      if (off > 0.005)
        g_error ("%s: %" G_GUINT64_FORMAT " parameters, %.2f%% from the published %.4g",
                 fixtures[i].dir, import->params, 100 * off, fixtures[i].published);
      if (fixtures[i].exact != 0)
        g_assert_cmpuint (import->params, ==, fixtures[i].exact);
      g_assert_false (import->params_exact);

      model = hr_test_model_of_import (import);
      g_assert_cmpuint (model->params, ==, import->params);
      g_assert_cmpstr (model->id, ==, fixtures[i].dir);
      g_assert_cmpuint (import->read->len, >=, 1);
    }
}

static void
test_moe (void)
{
  g_autofree char *path = fixture_path ("mixtral-8x7b-v0.1");
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_load (path, &error);
  g_autoptr(JsonNode) node = NULL;
  JsonObject *details;

  g_assert_no_error (error);
  g_assert_cmpuint (import->experts, ==, 8);
  g_assert_cmpuint (import->experts_per_token, ==, 2);
  /* Mistral AI, "Mixtral of experts" (2023): 46.7B total, 12.9B per token. */
  g_assert_cmpfloat (fabs (import->active_params - 12.9e9) / 12.9e9, <=, 0.005);
  g_assert_cmpuint (import->active_params, ==, G_GUINT64_CONSTANT (12879925248));

  node = hr_import_model_json (import);
  details = json_object_get_object_member (json_node_get_object (node), "x-import");
  g_assert_cmpint (json_object_get_int_member (details, "active_params"), ==,
                   import->active_params);
  g_assert_cmpint (json_object_get_int_member (details, "experts"), ==, 8);
}

/* One expert and no num_experts_per_tok: the default top-2 is one, never
 * more active parameters than stored ones (found by fuzz-hf-config). */
static void
test_moe_one_expert (void)
{
  static const char config[] =
    "{\"model_type\": \"mixtral\", \"hidden_size\": 64, \"intermediate_size\": 128,"
    " \"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"num_key_value_heads\": 2,"
    " \"num_local_experts\": 1, \"vocab_size\": 100}";
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_parse ("one/config.json", config,
                                                          sizeof config - 1, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (import->experts, ==, 1);
  g_assert_cmpuint (import->experts_per_token, ==, 1);
  g_assert_cmpuint (import->active_params, ==, import->params);
}

static void
test_moe_shared (void)
{
  g_autofree char *qwen = fixture_path ("qwen1.5-moe-a2.7b");
  g_autofree char *deepseek = fixture_path ("deepseek-v3");
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) q = hr_import_hf_config_load (qwen, &error);
  g_autoptr(HrImport) d = NULL;

  /* Qwen1.5-MoE-A2.7B's model card: 14.3B in total, 2.7B activated (four
   * of 60 routed experts and the shared expert). */
  g_assert_no_error (error);
  g_assert_cmpuint (q->experts, ==, 60);
  g_assert_cmpfloat (fabs (q->active_params - 2.7e9) / 2.7e9, <=, 0.005);

  /* DeepSeek-V3: latent attention, 3 dense layers, 256 routed experts (8 per
   * token) and one shared; 671B total (technical report, Table 1 notes). */
  d = hr_import_hf_config_load (deepseek, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d->experts, ==, 256);
  g_assert_cmpuint (d->experts_per_token, ==, 8);
  g_assert_cmpuint (d->active_params, <, d->params / 10);
}

static void
test_composite (void)
{
  g_autofree char *path = fixture_path ("llava-1.5-7b-hf");
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_load (path, &error);
  g_autoptr(HrModel) model = NULL;
  const HrComponent *vision, *text;

  g_assert_no_error (error);
  model = hr_test_model_of_import (import);
  g_assert_cmpuint (model->components->len, ==, 2);
  vision = g_ptr_array_index (model->components, 0);
  text = g_ptr_array_index (model->components, 1);
  /* CLIP ViT-L/14 at 336 px: 303.5M; the rest is Vicuna-7B and the projector. */
  g_assert_cmpuint (vision->params, ==, 303507456);
  g_assert_cmpuint (vision->patch, ==, 14);
  g_assert_cmpuint (text->layers, ==, 32);
  g_assert_cmpuint (text->vocab, ==, 32064);
  g_assert_cmpuint (model->image_width, ==, 336);
  /* The text_config names only its vocabulary: the rest are defaults, said so. */
  g_assert_true (g_strstr_len (g_ptr_array_index (import->notes, 0), -1, "hidden_size"));
}

static void
expect_error (const char *name,
              const char *json,
              const char *prefix,
              const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_parse (name, json, strlen (json), &error);

  g_assert_null (import);
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, needle) == NULL)
    g_error ("expected \"%s…%s…\", got \"%s\"", prefix, needle, error->message);
}

static void
test_bad_configs (void)
{
  /* A missing field names the file and the field. */
  expect_error ("bad/config.json",
                "{\n  \"model_type\": \"llama\",\n  \"vocab_size\": 32000,\n"
                "  \"num_hidden_layers\": 32,\n  \"num_attention_heads\": 32,\n"
                "  \"intermediate_size\": 11008\n}\n",
                "bad/config.json:1:1: ", "\"hidden_size\"");
  /* A wrong type is positioned at the value. */
  expect_error ("bad/config.json",
                "{\n  \"model_type\": \"mistral\",\n  \"vocab_size\": 32000,\n"
                "  \"hidden_size\": \"4096\"\n}",
                "bad/config.json:4:18: ", "hidden_size");
  /* Key/value heads that do not divide the heads. */
  expect_error ("gqa.json",
                "{\"model_type\": \"qwen2\", \"vocab_size\": 100, \"hidden_size\": 64,\n"
                " \"num_hidden_layers\": 2, \"num_attention_heads\": 8,\n"
                " \"num_key_value_heads\": 3, \"intermediate_size\": 128}",
                "gqa.json:3:25: ", "do not divide");
  /* Sizes no model has are refused before they overflow anything. */
  expect_error ("huge.json",
                "{\"model_type\": \"gpt2\", \"vocab_size\": 67108864, \"n_embd\": 16777216,"
                " \"n_layer\": 100000, \"n_head\": 1, \"n_positions\": 1024}",
                "huge.json:", "which no model has");
  expect_error ("neg.json", "{\"model_type\": \"gpt2\", \"vocab_size\": -5}", "neg.json:1:",
                "vocab_size");
  /* A required key given as null is an error at the null, never a size
   * of 0 (found by fuzz-hf-config: OPT's "ffn_dim": null). */
  expect_error ("null.json",
                "{\"model_type\": \"opt\", \"hidden_size\": 768, \"num_hidden_layers\": 1,\n"
                " \"num_attention_heads\": 12, \"vocab_size\": 50272, \"ffn_dim\": null}",
                "null.json:2:61: ", "gives \"ffn_dim\" as null; it is required");
  /* A nested config may not nest again. */
  expect_error ("deep.json",
                "{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llava\"}}",
                "deep.json:", "nested");
}

static void
test_unknown_type (void)
{
  static const char json[] =
    "{\"model_type\": \"mystery\", \"hidden_size\": 1024, \"num_hidden_layers\": 4,"
    " \"num_attention_heads\": 8, \"vocab_size\": 1000, \"intermediate_size\": 4096,"
    " \"hidden_act\": \"silu\"}";
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_parse ("mystery.json", json, strlen (json),
                                                          &error);
  g_autoptr(HrModel) model = NULL;
  guint64 expect;
  gboolean noted = FALSE;

  g_assert_no_error (error);
  /* A gated MLP (silu), RMSNorm, no biases, untied head, as the note says. */
  expect = 2 * 1000 * 1024 + 4 * (4 * 1024 * 1024 + 3 * 1024 * 4096 + 2 * 1024) + 1024;
  g_assert_cmpuint (import->params, ==, expect);
  for (guint i = 0; i < import->notes->len; i++)
    noted |= strstr (g_ptr_array_index (import->notes, i), "\"mystery\" is not one") != NULL;
  g_assert_true (noted);
  model = hr_test_model_of_import (import);
  g_assert_cmpstr (model->id, ==, "mystery");
}

/* A model_type as long as the reader's longest text: the model JSON the
 * import writes (its name and its source quote the type) still reads. */
static void
test_long_model_type (void)
{
  g_autofree char *type = g_strnfill (HR_READER_MAX_STRING, 'q');
  g_autofree char *json = g_strdup_printf (
    "{\"model_type\": \"%s\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
    " \"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128}", type);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_parse ("long.json", json, strlen (json),
                                                          &error);
  g_autoptr(HrModel) model = NULL;

  g_assert_no_error (error);
  model = hr_test_model_of_import (import);
  g_assert_nonnull (model);
  g_assert_cmpuint (g_utf8_strlen (model->name, -1), ==, HR_IMPORT_MAX_TEXT);
}

static void
test_unknown_multimodal (void)
{
  /* Qwen2-VL-7B's shape: the language model at the top level, a vision
   * tower whose hidden_size is the width it projects to (embed_dim is its
   * own).  Neither is a family Headroom knows; both are read generically. */
  static const char json[] =
    "{\"model_type\": \"qwen2_vl\", \"hidden_act\": \"silu\", \"hidden_size\": 3584,"
    " \"intermediate_size\": 18944, \"num_attention_heads\": 28, \"num_hidden_layers\": 28,"
    " \"num_key_value_heads\": 4, \"tie_word_embeddings\": false, \"vocab_size\": 152064,"
    " \"vision_config\": {\"depth\": 32, \"embed_dim\": 1280, \"mlp_ratio\": 4,"
    " \"num_heads\": 16, \"hidden_size\": 3584, \"patch_size\": 14}}";
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_parse ("vl.json", json, strlen (json), &error);
  g_autoptr(HrModel) model = NULL;
  const HrComponent *vision;

  g_assert_no_error (error);
  model = hr_test_model_of_import (import);
  g_assert_cmpuint (model->components->len, ==, 2);
  vision = g_ptr_array_index (model->components, 0);
  g_assert_cmpstr (vision->name, ==, "vision encoder");
  g_assert_cmpuint (vision->hidden, ==, 1280);
  g_assert_cmpuint (vision->layers, ==, 32);
  /* Qwen2-VL-7B is published at 8.29B (model card); the generic reading
   * misses the biases and the merger, and says so. */
  g_assert_cmpfloat (fabs (import->params - 8.29e9) / 8.29e9, <, 0.01);
  g_assert_cmpuint (import->notes->len, ==, 3);
}

/* ---- safetensors ------------------------------------------------------------ */

static GByteArray *
safetensors_bytes (const char *header,
                   gsize       data_size)
{
  GByteArray *bytes = g_byte_array_new ();
  guint64 n = strlen (header);
  guint8 prefix[8];

  for (int i = 0; i < 8; i++)
    prefix[i] = (n >> (8 * i)) & 0xff;
  g_byte_array_append (bytes, prefix, 8);
  g_byte_array_append (bytes, (const guint8 *) header, n);
  for (gsize i = 0; i < data_size; i++)
    g_byte_array_append (bytes, (const guint8 *) "\0", 1);
  return bytes;
}

static const HrImportDtype *
find_dtype (const HrImport *import,
            const char     *dtype)
{
  for (guint i = 0; i < import->dtypes->len; i++)
    {
      const HrImportDtype *d = g_ptr_array_index (import->dtypes, i);

      if (g_str_equal (d->dtype, dtype))
        return d;
    }
  return NULL;
}

static void
test_safetensors (void)
{
  static const char header[] =
    "{\"__metadata__\": {\"format\": \"pt\"},"
    " \"a.weight\": {\"dtype\": \"BF16\", \"shape\": [4, 8], \"data_offsets\": [0, 64]},"
    " \"b.bias\": {\"dtype\": \"F32\", \"shape\": [8], \"data_offsets\": [64, 96]}}";
  g_autoptr(GByteArray) bytes = safetensors_bytes (header, 96);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_safetensors_parse ("t.safetensors", bytes->data,
                                                            bytes->len, &error);
  const HrImportDtype *bf16, *f32;

  g_assert_no_error (error);
  g_assert_cmpuint (import->params, ==, 40);
  g_assert_true (import->params_exact);
  g_assert_cmpuint (import->weight_bytes, ==, 96);
  bf16 = find_dtype (import, "BF16");
  f32 = find_dtype (import, "F32");
  g_assert_nonnull (bf16);
  g_assert_nonnull (f32);
  g_assert_cmpuint (bf16->params, ==, 32);
  g_assert_cmpfloat (bf16->bits_per_weight, ==, 16);
  g_assert_cmpuint (f32->params, ==, 8);
  g_assert_null (import->quantization);
  /* names Headroom reads no architecture from: a weights-only model of
   * the exact count, which the catalog reads and the estimate counts */
  g_assert_nonnull (import->model);
  {
    JsonObject *o = json_node_get_object (import->model);
    g_autoptr(HrJsonDoc) doc = hr_json_doc_new_for_node ("t.safetensors", import->model);
    g_autoptr(HrModel) model = NULL;

    g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, "weights-only");
    g_assert_cmpint (json_object_get_int_member (o, "params"), ==, 40);
    model = hr_model_from_json (doc, "", import->model, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (model->params, ==, 40);
    g_assert_cmpint (((HrComponent *) g_ptr_array_index (model->components, 0))->kind, ==,
                     HR_COMPONENT_WEIGHTS_ONLY);
  }

  /* Every truncation is an error, never a crash or a partial count. */
  for (gsize len = 0; len < 8 + strlen (header); len++)
    {
      g_autoptr(GError) e = NULL;
      g_autoptr(HrImport) cut = hr_import_safetensors_parse ("t.safetensors", bytes->data, len,
                                                             &e);

      g_assert_null (cut);
      g_assert_error (e, HR_ERROR, HR_ERROR_PARSE);
    }
  /* Cut inside the data: the header says more than the file holds. */
  {
    g_autoptr(GError) e = NULL;
    g_autoptr(HrImport) cut = hr_import_safetensors_parse ("t.safetensors", bytes->data,
                                                           bytes->len - 10, &e);

    g_assert_null (cut);
    g_assert_nonnull (strstr (e->message, "truncated download"));
  }
}

static void
expect_safetensors_error (const char *header,
                          gsize       data_size,
                          const char *needle)
{
  g_autoptr(GByteArray) bytes = safetensors_bytes (header, data_size);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_safetensors_parse ("h.safetensors", bytes->data,
                                                            bytes->len, &error);

  g_assert_null (import);
  g_assert_nonnull (error);
  if (strstr (error->message, needle) == NULL)
    g_error ("expected \"%s\" in \"%s\"", needle, error->message);
}

static void
test_safetensors_hostile (void)
{
  guint8 huge[16] = { 0, 0, 0, 0, 0, 0, 0, 0x40, '{', '}' };
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_safetensors_parse ("huge.safetensors", huge,
                                                            sizeof huge, &error);

  /* A length of 2^62: refused before anything is read or allocated. */
  g_assert_null (import);
  g_assert_error (error, HR_ERROR, HR_ERROR_TOO_LARGE);

  expect_safetensors_error ("{\"w\": {\"dtype\": \"F16\", \"shape\": [4], "
                            "\"data_offsets\": [0, 6]}}", 6, "h.safetensors:1:54: ");
  /* Columns count characters on a one-line header, after earlier values. */
  expect_safetensors_error ("{\"\xc3\xa9\": {\"dtype\": \"F32\", \"shape\": [1], "
                            "\"data_offsets\": [0, 4]}, \"w\": {\"dtype\": \"F16\", "
                            "\"shape\": [4], \"data_offsets\": [0, 6]}}", 10,
                            "h.safetensors:1:115: ");
  expect_safetensors_error ("{\"w\": {\"dtype\": \"Q9\", \"shape\": [4], "
                            "\"data_offsets\": [0, 4]}}", 4, "unknown dtype");
  expect_safetensors_error ("{\"w\": {\"dtype\": \"F32\", \"shape\": [1099511627776, "
                            "1099511627776], \"data_offsets\": [0, 4]}}", 4, "more elements");
  expect_safetensors_error ("{\"w\": {\"dtype\": \"F32\", \"shape\": [-1], "
                            "\"data_offsets\": [0, 4]}}", 4, "dimension");
  expect_safetensors_error ("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], "
                            "\"data_offsets\": [8, 4]}}", 8, "data_offsets");
  expect_safetensors_error ("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], "
                            "\"data_offsets\": [0, 4], \"extra\": 1}}", 4, "unknown key");
  expect_safetensors_error ("[1, 2]", 0, "JSON object");
  /* 2^44 parameters: more than the catalog takes (found by fuzz-gguf, the
   * same in both readers); the message points at the tensor. */
  expect_safetensors_error ("{\"w\": {\"dtype\": \"F32\", \"shape\": [1099511627776, 16], "
                            "\"data_offsets\": [0, 70368744177664]}}", 0,
                            "h.safetensors:1:7: tensor \"w\" brings the count to more than "
                            "10000000000000 parameters");
}

static void
test_safetensors_quantized (void)
{
  /* GPTQ: qweight packs 8 4-bit weights per I32; scales/qzeros/g_idx are
   * constants, not parameters. */
  static const char gptq[] =
    "{\"l.qweight\": {\"dtype\": \"I32\", \"shape\": [16, 32], \"data_offsets\": [0, 2048]},"
    " \"l.scales\": {\"dtype\": \"F16\", \"shape\": [1, 32], \"data_offsets\": [2048, 2112]},"
    " \"l.qzeros\": {\"dtype\": \"I32\", \"shape\": [1, 4], \"data_offsets\": [2112, 2128]},"
    " \"l.g_idx\": {\"dtype\": \"I32\", \"shape\": [128], \"data_offsets\": [2128, 2640]}}";
  static const char fp8[] =
    "{\"l.weight\": {\"dtype\": \"F8_E4M3\", \"shape\": [64, 64], \"data_offsets\": [0, 4096]},"
    " \"l.weight_scale\": {\"dtype\": \"F32\", \"shape\": [], \"data_offsets\": [4096, 4100]},"
    " \"n.weight\": {\"dtype\": \"BF16\", \"shape\": [64], \"data_offsets\": [4100, 4228]}}";
  g_autoptr(GByteArray) a = safetensors_bytes (gptq, 2640);
  g_autoptr(GByteArray) b = safetensors_bytes (fp8, 4228);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) q = hr_import_safetensors_parse ("gptq.safetensors", a->data, a->len,
                                                       &error);
  g_autoptr(HrImport) f = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (q->params, ==, 16 * 32 * 8);
  g_assert_nonnull (q->quantization);
  g_assert_true (g_str_has_prefix (q->quantization, "4-bit"));
  g_assert_cmpuint (find_dtype (q, "quantization constants")->bytes, ==, 64 + 16 + 512);

  f = hr_import_safetensors_parse ("fp8.safetensors", b->data, b->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f->params, ==, 64 * 64 + 64);
  g_assert_cmpstr (f->quantization, ==, "FP8");
}

static void
test_safetensors_guess (void)
{
  /* Llama 3.1 8B's shapes (header only: no data follows, none is read). */
  static const struct { const char *name; guint64 rows, cols; } t[] = {
    { "model.embed_tokens.weight", 128256, 4096 },
    { "model.layers.0.self_attn.q_proj.weight", 4096, 4096 },
    { "model.layers.0.self_attn.k_proj.weight", 1024, 4096 },
    { "model.layers.0.self_attn.v_proj.weight", 1024, 4096 },
    { "model.layers.0.self_attn.o_proj.weight", 4096, 4096 },
    { "model.layers.0.mlp.gate_proj.weight", 14336, 4096 },
    { "model.layers.0.mlp.up_proj.weight", 14336, 4096 },
    { "model.layers.0.mlp.down_proj.weight", 4096, 14336 },
    { "model.layers.31.mlp.down_proj.weight", 4096, 14336 },
    { "model.norm.weight", 1, 4096 },
    { "lm_head.weight", 128256, 4096 },
  };
  g_autoptr(GString) header = g_string_new ("{");
  g_autoptr(GByteArray) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = NULL;
  g_autoptr(HrModel) model = NULL;
  const HrComponent *c;
  guint64 offset = 0;

  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    {
      guint64 size = t[i].rows * t[i].cols * 2;

      g_string_append_printf (header, "%s\"%s\": {\"dtype\": \"BF16\", \"shape\": [%"
                              G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "], \"data_offsets\": [%"
                              G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]}", i ? ", " : "",
                              t[i].name, t[i].rows, t[i].cols, offset, offset + size);
      offset += size;
    }
  g_string_append (header, "}");
  bytes = safetensors_bytes (header->str, 0);

  import = hr_import_safetensors_parse ("llama.safetensors", bytes->data, bytes->len, &error);
  g_assert_no_error (error);
  model = hr_test_model_of_import (import);
  c = g_ptr_array_index (model->components, 0);
  g_assert_cmpuint (c->layers, ==, 32);
  g_assert_cmpuint (c->hidden, ==, 4096);
  g_assert_cmpuint (c->heads, ==, 32);
  g_assert_cmpuint (c->kv_heads, ==, 8);
  g_assert_cmpuint (c->intermediate, ==, 14336);
  g_assert_cmpuint (c->vocab, ==, 128256);
  g_assert_true (c->glu);
  g_assert_false (c->tied_embeddings);
  g_assert_cmpstr (model->id, ==, "llama");
  g_assert_cmpuint (model->params, ==, import->params);
}

/* ---- folders: config.json + safetensors shards -------------------------- */

/* A tiny Llama: vocab 16, hidden 8, 1 layer, 2 heads (1 KV head of 4),
 * gated MLP 16, untied head.  Tensors as modeling_llama.py names them. */
static const char tiny_config[] =
  "{\"model_type\": \"llama\", \"vocab_size\": 16, \"hidden_size\": 8,"
  " \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"num_key_value_heads\": 1,"
  " \"intermediate_size\": 16, \"tie_word_embeddings\": false}";

static void
write_bytes (const char *path,
             GByteArray *bytes)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, (const char *) bytes->data, bytes->len, &error);
  g_assert_no_error (error);
}

/* Tensors of the tiny Llama: [name, rows, cols]. */
static char *
tiny_header (gboolean first_shard,
             gsize   *data_size)
{
  static const struct { const char *name; guint rows, cols; gboolean first; } t[] = {
    { "model.embed_tokens.weight", 16, 8, TRUE },
    { "model.layers.0.self_attn.q_proj.weight", 8, 8, TRUE },
    { "model.layers.0.self_attn.k_proj.weight", 4, 8, TRUE },
    { "model.layers.0.self_attn.v_proj.weight", 4, 8, TRUE },
    { "model.layers.0.self_attn.o_proj.weight", 8, 8, TRUE },
    { "model.layers.0.mlp.gate_proj.weight", 16, 8, FALSE },
    { "model.layers.0.mlp.up_proj.weight", 16, 8, FALSE },
    { "model.layers.0.mlp.down_proj.weight", 8, 16, FALSE },
    { "model.layers.0.input_layernorm.weight", 1, 8, FALSE },
    { "model.layers.0.post_attention_layernorm.weight", 1, 8, FALSE },
    { "model.norm.weight", 1, 8, FALSE },
    { "lm_head.weight", 16, 8, FALSE },
  };
  GString *s = g_string_new ("{");
  gsize offset = 0;

  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    {
      gsize size = (gsize) t[i].rows * t[i].cols * 2;

      if (t[i].first != first_shard)
        continue;
      g_string_append_printf (s, "%s\"%s\": {\"dtype\": \"BF16\", \"shape\": [%u, %u], "
                                 "\"data_offsets\": [%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "]}",
                              offset > 0 ? ", " : "", t[i].name, t[i].rows, t[i].cols, offset,
                              offset + size);
      offset += size;
    }
  g_string_append (s, "}");
  *data_size = offset;
  return g_string_free (s, FALSE);
}

static void
test_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hr-import-XXXXXX", NULL);
  g_autofree char *config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *index = g_build_filename (dir, "model.safetensors.index.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) from_config = NULL;
  g_autoptr(HrImport) import = NULL;
  g_autoptr(HrImport) via_index = NULL;
  g_autoptr(HrModel) model = NULL;
  gsize size1, size2;
  g_autofree char *h1 = tiny_header (TRUE, &size1);
  g_autofree char *h2 = tiny_header (FALSE, &size2);
  g_autoptr(GByteArray) s1 = safetensors_bytes (h1, size1);
  g_autoptr(GByteArray) s2 = safetensors_bytes (h2, size2);
  g_autofree char *p1 = g_build_filename (dir, "model-00001-of-00002.safetensors", NULL);
  g_autofree char *p2 = g_build_filename (dir, "model-00002-of-00002.safetensors", NULL);
  g_autofree char *index_json = NULL;

  g_file_set_contents (config, tiny_config, -1, &error);
  g_assert_no_error (error);

  /* The config alone: embeddings 2 x 128, attention 64 + 32 + 32 + 64,
   * MLP 3 x 128, norms 8 + 8 + 8. */
  from_config = hr_import_path (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (from_config->params, ==, 256 + 192 + 384 + 24);
  g_assert_false (from_config->params_exact);

  write_bytes (p1, s1);
  write_bytes (p2, s2);
  index_json = g_strdup_printf (
    "{\"metadata\": {\"total_size\": %" G_GSIZE_FORMAT "}, \"weight_map\": {"
    "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\","
    " \"lm_head.weight\": \"model-00002-of-00002.safetensors\"}}", size1 + size2);
  g_file_set_contents (index, index_json, -1, &error);
  g_assert_no_error (error);

  import = hr_import_path (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (import->format, ==, HR_IMPORT_FOLDER);
  g_assert_true (import->params_exact);
  g_assert_cmpuint (import->params, ==, 856);
  g_assert_cmpuint (import->params_from_config, ==, 856);
  g_assert_cmpuint (find_dtype (import, "BF16")->params, ==, 856);
  model = hr_test_model_of_import (import);
  g_assert_cmpuint (model->params, ==, 856);
  g_assert_cmpuint (((HrComponent *) g_ptr_array_index (model->components, 0))->kv_heads, ==, 1);

  /* The index file itself, with the config beside it, gives the same. */
  via_index = hr_import_path (index, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (via_index->params, ==, 856);
  g_assert_true (via_index->params_exact);
  g_assert_nonnull (via_index->model);

  /* A shard that is missing is named. */
  g_remove (p2);
  {
    g_autoptr(HrImport) missing = hr_import_path (dir, &error);

    g_assert_null (missing);
    g_assert_nonnull (strstr (error->message, "model-00002-of-00002.safetensors"));
    g_clear_error (&error);
  }

  /* An index may not point outside its folder. */
  g_file_set_contents (index, "{\"weight_map\": {\"w\": \"../../etc/passwd\"}}", -1, &error);
  g_assert_no_error (error);
  {
    g_autoptr(HrImport) evil = hr_import_path (dir, &error);

    g_assert_null (evil);
    g_assert_nonnull (strstr (error->message, "must be a file name"));
    g_clear_error (&error);
  }

  g_remove (index);
  g_remove (p1);
  g_remove (config);
  g_rmdir (dir);
}

/* ---- GGUF ------------------------------------------------------------------- */

static void
put_u32 (GByteArray *b,
         guint32     v)
{
  guint8 x[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff };

  g_byte_array_append (b, x, 4);
}

static void
put_u64 (GByteArray *b,
         guint64     v)
{
  put_u32 (b, v & 0xffffffff);
  put_u32 (b, v >> 32);
}

static void
put_str (GByteArray *b,
         const char *s)
{
  put_u64 (b, strlen (s));
  g_byte_array_append (b, (const guint8 *) s, strlen (s));
}

static void
kv_u32 (GByteArray *b,
        const char *key,
        guint32     v)
{
  put_str (b, key);
  put_u32 (b, 4);   /* GGUF_TYPE_UINT32 */
  put_u32 (b, v);
}

static void
kv_str (GByteArray *b,
        const char *key,
        const char *v)
{
  put_str (b, key);
  put_u32 (b, 8);   /* GGUF_TYPE_STRING */
  put_str (b, v);
}

static void
tensor (GByteArray    *b,
        const char    *name,
        guint          n_dims,
        const guint64 *dims,
        guint32        type,
        guint64        offset)
{
  put_str (b, name);
  put_u32 (b, n_dims);
  for (guint i = 0; i < n_dims; i++)
    put_u64 (b, dims[i]);
  put_u32 (b, type);
  put_u64 (b, offset);
}

/* A tiny Llama-architecture GGUF v3: token embeddings in Q4_K, an F32 norm,
 * MoE up-projections in F16, no output.weight (tied). */
static void
kv_split_count (GByteArray *b,
                guint16     count)
{
  guint8 v[2] = { count & 0xff, count >> 8 };

  put_str (b, "split.count");
  put_u32 (b, 2);   /* GGUF_TYPE_UINT16, as gguf-split writes it */
  g_byte_array_append (b, v, 2);
}

static GByteArray *
tiny_gguf_part (gboolean split)
{
  GByteArray *b = g_byte_array_new ();
  const guint64 embd[] = { 256, 32 };
  const guint64 norm[] = { 256 };
  const guint64 exps[] = { 256, 64, 4 };

  g_byte_array_append (b, (const guint8 *) "GGUF", 4);
  put_u32 (b, 3);
  put_u64 (b, 3);                /* tensors */
  put_u64 (b, split ? 11 : 10);  /* metadata keys */
  if (split)
    kv_split_count (b, 2);
  kv_str (b, "general.architecture", "llama");
  kv_str (b, "general.name", "Tiny Llama");
  kv_u32 (b, "llama.block_count", 1);
  kv_u32 (b, "llama.embedding_length", 256);
  kv_u32 (b, "llama.attention.head_count", 4);
  kv_u32 (b, "llama.attention.head_count_kv", 2);
  kv_u32 (b, "llama.feed_forward_length", 64);
  kv_u32 (b, "llama.expert_count", 4);
  kv_u32 (b, "llama.expert_used_count", 2);
  /* tokenizer.ggml.tokens: an array of 32 strings */
  put_str (b, "tokenizer.ggml.tokens");
  put_u32 (b, 9);
  put_u32 (b, 8);
  put_u64 (b, 32);
  for (guint i = 0; i < 32; i++)
    {
      g_autofree char *tok = g_strdup_printf ("t%u", i);

      put_str (b, tok);
    }
  tensor (b, "token_embd.weight", 2, embd, 12 /* Q4_K */, 0);
  tensor (b, "blk.0.attn_norm.weight", 1, norm, 0 /* F32 */, 4608);
  tensor (b, "blk.0.ffn_up_exps.weight", 3, exps, 1 /* F16 */, 5632);
  return b;
}

static GByteArray *
tiny_gguf (void)
{
  return tiny_gguf_part (FALSE);
}

static void
test_gguf (void)
{
  g_autoptr(GByteArray) b = tiny_gguf ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_gguf_parse ("tiny.gguf", b->data, b->len, &error);
  g_autoptr(HrModel) model = NULL;
  const HrImportDtype *q4k;
  const HrComponent *c;

  g_assert_no_error (error);
  g_assert_cmpuint (import->params, ==, 256 * 32 + 256 + 256 * 64 * 4);
  g_assert_true (import->params_exact);
  q4k = find_dtype (import, "Q4_K");
  g_assert_nonnull (q4k);
  /* ggml: a Q4_K block holds 256 weights in 144 bytes, 4.5 bits each. */
  g_assert_cmpuint (q4k->bytes, ==, 32 * 144);
  g_assert_cmpfloat (q4k->bits_per_weight, ==, 4.5);
  g_assert_cmpfloat (hr_gguf_type_bits (12), ==, 4.5);
  g_assert_cmpfloat (hr_gguf_type_bits (8), ==, 8.5);     /* Q8_0: 34 bytes per 32 */
  g_assert_cmpfloat (hr_gguf_type_bits (14), ==, 6.5625); /* Q6_K: 210 bytes per 256 */
  g_assert_cmpstr (import->model_type, ==, "llama");
  g_assert_cmpuint (import->experts, ==, 4);
  g_assert_cmpuint (import->active_params, ==, import->params - 256 * 64 * 2);

  model = hr_test_model_of_import (import);
  c = g_ptr_array_index (model->components, 0);
  g_assert_cmpstr (model->id, ==, "tiny-llama");
  g_assert_cmpuint (c->layers, ==, 1);
  g_assert_cmpuint (c->hidden, ==, 256);
  g_assert_cmpuint (c->kv_heads, ==, 2);
  g_assert_cmpuint (c->vocab, ==, 32);
  g_assert_true (c->tied_embeddings);

  /* A name that is not UTF-8 reaches the model as UTF-8, so that the
   * saved model reads back (found by fuzz-gguf). */
  {
    g_autoptr(GByteArray) latin1 = tiny_gguf ();
    guint8 *name = NULL;
    g_autoptr(GError) e = NULL;
    g_autoptr(HrImport) bad = NULL;
    g_autoptr(JsonNode) node = NULL;
    g_autoptr(HrJsonDoc) doc = NULL;
    g_autofree char *text = NULL;

    for (guint i = 0; i + 10 <= latin1->len && name == NULL; i++)
      if (memcmp (latin1->data + i, "Tiny Llama", 10) == 0)
        name = latin1->data + i;
    g_assert_nonnull (name);
    name[4] = 0xe9;   /* "Tiny\xe9Llama", Latin-1 */
    bad = hr_import_gguf_parse ("tiny.gguf", latin1->data, latin1->len, &e);
    g_assert_no_error (e);
    node = hr_import_model_json (bad);
    text = hr_json_node_to_string (node, FALSE);
    doc = hr_json_doc_load_data ("saved.json", text, -1, &e);
    g_assert_no_error (e);
    g_assert_nonnull (strstr (text, "Tiny\xef\xbf\xbdLlama"));
  }

  /* Every prefix of the header is an error (truncated), never a crash. */
  for (gsize len = 0; len < b->len; len++)
    {
      g_autoptr(GError) e = NULL;
      g_autoptr(HrImport) cut = hr_import_gguf_parse ("tiny.gguf", b->data, len, &e);

      g_assert_null (cut);
      g_assert_nonnull (e);
    }
}

static void
expect_gguf_error (GByteArray *b,
                   const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_gguf_parse ("bad.gguf", b->data, b->len, &error);

  g_assert_null (import);
  g_assert_nonnull (error);
  if (strstr (error->message, needle) == NULL)
    g_error ("expected \"%s\" in \"%s\"", needle, error->message);
}

static GByteArray *
gguf_preamble (guint32 version,
               guint64 tensors,
               guint64 kvs)
{
  GByteArray *b = g_byte_array_new ();

  g_byte_array_append (b, (const guint8 *) "GGUF", 4);
  put_u32 (b, version);
  put_u64 (b, tensors);
  put_u64 (b, kvs);
  return b;
}

static void
test_gguf_hostile (void)
{
  const guint64 dims9[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  const guint64 odd[] = { 100 };
  g_autoptr(GByteArray) v1 = gguf_preamble (1, 0, 0);
  g_autoptr(GByteArray) many = gguf_preamble (3, G_GUINT64_CONSTANT (1) << 40, 0);
  g_autoptr(GByteArray) long_key = gguf_preamble (3, 0, 1);
  g_autoptr(GByteArray) long_array = gguf_preamble (3, 0, 1);
  g_autoptr(GByteArray) rank = gguf_preamble (3, 1, 0);
  g_autoptr(GByteArray) type = gguf_preamble (3, 1, 0);
  g_autoptr(GByteArray) block = gguf_preamble (3, 1, 0);
  g_autoptr(GByteArray) value = gguf_preamble (3, 0, 1);
  g_autoptr(GByteArray) tensors = gguf_preamble (3, 1000, 0);

  expect_gguf_error (v1, "version 1");
  expect_gguf_error (many, "more than any model has");
  put_u64 (long_key, G_GUINT64_CONSTANT (1) << 60);
  expect_gguf_error (long_key, "more than 65535");
  put_str (long_array, "k");
  put_u32 (long_array, 9);
  put_u32 (long_array, 6);
  put_u64 (long_array, G_GUINT64_CONSTANT (1) << 61);
  expect_gguf_error (long_array, "truncated");
  tensor (rank, "t", 9, dims9, 0, 0);
  expect_gguf_error (rank, "dimensions");
  tensor (type, "t", 1, odd, 99, 0);
  expect_gguf_error (type, "ggml type 99");
  tensor (block, "t", 1, odd, 2 /* Q4_0, blocks of 32 */, 0);
  expect_gguf_error (block, "whole number");
  put_str (value, "k");
  put_u32 (value, 77);
  expect_gguf_error (value, "unknown metadata value type");
  expect_gguf_error (tensors, "truncated");
  /* 2^44 parameters in one tensor: every count is checked against the
   * catalog's limit, so that none wraps around and the model is taken. */
  {
    const guint64 huge[] = { G_GUINT64_CONSTANT (1) << 40, 16 };
    g_autoptr(GByteArray) too_many = gguf_preamble (3, 1, 0);

    tensor (too_many, "t", 2, huge, 0 /* F32 */, 0);
    expect_gguf_error (too_many, "tensor 0 brings the count to more than 10000000000000 "
                       "parameters");
  }
  {
    guint8 not_gguf[] = "PK\x03\x04 a zip file";
    g_autoptr(GError) error = NULL;
    g_autoptr(HrImport) import = hr_import_gguf_parse ("x.gguf", not_gguf, sizeof not_gguf,
                                                       &error);

    g_assert_null (import);
    g_assert_error (error, HR_ERROR, HR_ERROR_PARSE);
  }
}

static void
test_gguf_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hr-gguf-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tiny.gguf", NULL);
  g_autoptr(GByteArray) b = tiny_gguf ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = NULL;

  /* Tensor data after the header: never read, but there. */
  for (guint i = 0; i < 4096; i++)
    g_byte_array_append (b, (const guint8 *) "\x55", 1);
  write_bytes (path, b);

  import = hr_import_path (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (import->format, ==, HR_IMPORT_GGUF);
  g_assert_cmpuint (import->params, ==, 256 * 32 + 256 + 256 * 64 * 4);

  g_clear_pointer (&import, hr_import_free);
  import = hr_import_path (dir, &error);   /* the folder, GGUF only */
  g_assert_no_error (error);
  g_assert_cmpuint (import->params, ==, 256 * 32 + 256 + 256 * 64 * 4);
  g_assert_nonnull (import->model);

  g_remove (path);

  /* A model split by gguf-split: the parts add up, the output head of the
   * second part unties the embeddings. */
  {
    g_autofree char *p1 = g_build_filename (dir, "tiny-00001-of-00002.gguf", NULL);
    g_autofree char *p2 = g_build_filename (dir, "tiny-00002-of-00002.gguf", NULL);
    g_autoptr(GByteArray) first = tiny_gguf_part (TRUE);
    g_autoptr(GByteArray) second = g_byte_array_new ();
    g_autoptr(HrModel) model = NULL;
    const guint64 out[] = { 256, 32 };

    g_byte_array_append (second, (const guint8 *) "GGUF", 4);
    put_u32 (second, 3);
    put_u64 (second, 1);
    put_u64 (second, 1);
    kv_split_count (second, 2);
    tensor (second, "output.weight", 2, out, 8 /* Q8_0 */, 0);
    write_bytes (p1, first);
    write_bytes (p2, second);

    g_clear_pointer (&import, hr_import_free);
    import = hr_import_path (dir, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (import->params, ==, 256 * 32 + 256 + 256 * 64 * 4 + 256 * 32);
    g_assert_cmpuint (find_dtype (import, "Q8_0")->bytes, ==, 32 * 8 * 34);
    model = hr_test_model_of_import (import);
    g_assert_false (((HrComponent *) g_ptr_array_index (model->components, 0))->tied_embeddings);

    /* The second part alone says it is one. */
    g_clear_pointer (&import, hr_import_free);
    import = hr_import_path (p2, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (import->params, ==, 256 * 32);
    g_assert_nonnull (strstr (g_ptr_array_index (import->notes, 0), "one part of a model"));

    /* Two parts of 8.8·10^12 parameters each: over the catalog's limit
     * together, though each is under it. */
    {
      const guint64 big[] = { G_GUINT64_CONSTANT (1) << 40, 8 };
      g_autoptr(GByteArray) half = gguf_preamble (3, 1, 1);

      kv_split_count (half, 2);
      tensor (half, "t", 2, big, 0 /* F32 */, 0);
      write_bytes (p1, half);
      write_bytes (p2, half);
      g_clear_pointer (&import, hr_import_free);
      import = hr_import_path (p1, &error);
      g_assert_null (import);
      g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "the first 2 parts of the split add up to more "
                                                "than 10000000000000 parameters"));
      g_clear_error (&error);
    }

    g_remove (p1);
    g_remove (p2);
  }
  g_rmdir (dir);
}

/* ---- the user catalog -------------------------------------------------------- */

static void
test_user_catalog (void)
{
  g_autofree char *models_path = hr_user_catalog_get_path (HR_USER_CATALOG_MODELS);
  g_autofree char *gpus_path = hr_user_catalog_get_path (HR_USER_CATALOG_GPUS);
  g_autofree char *config = fixture_path ("qwen2.5-0.5b");
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_hf_config_load (config, &error);
  g_autoptr(JsonNode) entry = NULL;
  g_autoptr(JsonNode) override = NULL;
  g_autoptr(JsonNode) gpu = NULL;
  g_autoptr(JsonNode) bad = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gboolean replaced = TRUE;
  HrCatalog *catalog;
  const HrModel *m;

  g_assert_no_error (error);
  g_assert_false (g_file_test (models_path, G_FILE_TEST_EXISTS));

  entry = hr_import_model_json (import);
  json_object_set_string_member (json_node_get_object (entry), "id", "my-qwen-variant");
  g_assert_true (hr_user_catalog_save_model (entry, &replaced, &error));
  g_assert_no_error (error);
  g_assert_false (replaced);
  g_assert_true (hr_user_catalog_save_model (entry, &replaced, &error));
  g_assert_true (replaced);
  list = hr_user_catalog_list (HR_USER_CATALOG_MODELS, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (list), ==, 1);

  /* A bad entry is refused, with the catalog's message, and the file is
   * left as it was. */
  g_file_get_contents (models_path, &before, NULL, NULL);
  bad = json_from_string ("{\"id\": \"broken\", \"name\": \"Broken\", \"source\": \"x\"}", NULL);
  g_assert_false (hr_user_catalog_save_model (bad, NULL, &error));
  g_assert_nonnull (strstr (error->message, "\"params\""));
  g_clear_error (&error);
  g_file_get_contents (models_path, &after, NULL, NULL);
  g_assert_cmpstr (before, ==, after);

  /* The same id as a built-in model overrides it, without touching it. */
  override = json_node_copy (entry);
  json_object_set_string_member (json_node_get_object (override), "id", "llama-2-7b");
  g_assert_true (hr_user_catalog_save_model (override, &replaced, &error));
  g_assert_false (replaced);

  gpu = json_from_string ("{\"id\": \"lab-card\", \"name\": \"Lab card\", "
                          "\"memory\": 25757220864, \"price_usd\": 1500, "
                          "\"price_as_of\": \"2026-11\", \"source\": \"nvidia-smi on the card\"}",
                          NULL);
  g_assert_true (hr_user_catalog_save_gpu (gpu, &replaced, &error));
  g_assert_no_error (error);

  /* The catalog reads the user's files after its own. */
  catalog = hr_catalog_get_default ();
  g_assert_null (hr_catalog_get_warnings (catalog)[0]);
  m = hr_catalog_find_model (catalog, "my-qwen-variant");
  g_assert_nonnull (m);
  g_assert_cmpint (m->origin, ==, HR_ORIGIN_USER);
  g_assert_cmpuint (m->params, ==, 494032768);
  m = hr_catalog_find_model (catalog, "llama-2-7b");
  g_assert_cmpint (m->origin, ==, HR_ORIGIN_USER_OVERRIDE);
  g_assert_cmpuint (m->params, ==, 494032768);
  g_assert_cmpint (hr_catalog_find_model (catalog, "llama-2-13b")->origin, ==, HR_ORIGIN_BUILTIN);
  g_assert_cmpint (hr_catalog_find_gpu (catalog, "lab-card")->origin, ==, HR_ORIGIN_USER);
  g_assert_cmpint (hr_catalog_find_gpu (catalog, "rtx-4090")->origin, ==, HR_ORIGIN_BUILTIN);

  /* Removing. */
  g_assert_true (hr_user_catalog_remove (HR_USER_CATALOG_GPUS, "lab-card", &error));
  g_assert_no_error (error);
  g_assert_false (hr_user_catalog_remove (HR_USER_CATALOG_GPUS, "lab-card", &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_clear_pointer (&list, json_array_unref);
  list = hr_user_catalog_list (HR_USER_CATALOG_GPUS, &error);
  g_assert_cmpuint (json_array_get_length (list), ==, 0);

  /* A catalog read again sees the change; removing the override brings the
   * built-in entry back. */
  {
    g_autoptr(HrCatalog) fresh = hr_catalog_new_default ();

    g_assert_null (hr_catalog_find_gpu (fresh, "lab-card"));
    g_assert_cmpint (hr_catalog_find_model (fresh, "llama-2-7b")->origin, ==,
                     HR_ORIGIN_USER_OVERRIDE);
  }
  g_assert_true (hr_user_catalog_remove (HR_USER_CATALOG_MODELS, "llama-2-7b", &error));
  {
    g_autoptr(HrCatalog) fresh = hr_catalog_new_default ();
    const HrModel *builtin = hr_catalog_find_model (fresh, "llama-2-7b");

    g_assert_cmpint (builtin->origin, ==, HR_ORIGIN_BUILTIN);
    g_assert_cmpuint (builtin->params, ==, G_GUINT64_CONSTANT (6738415616));
    g_assert_cmpint (hr_catalog_find_model (fresh, "my-qwen-variant")->origin, ==,
                     HR_ORIGIN_USER);
  }

  /* The default catalog read again in place: the same address, the new
   * entries, and an entry found before still readable (charts hold them). */
  {
    const HrGpu *old_4090 = hr_catalog_find_gpu (catalog, "rtx-4090");

    hr_catalog_reload_default ();
    g_assert_true (hr_catalog_get_default () == catalog);
    g_assert_null (hr_catalog_find_gpu (catalog, "lab-card"));
    g_assert_cmpint (hr_catalog_find_model (catalog, "llama-2-7b")->origin, ==,
                     HR_ORIGIN_BUILTIN);
    g_assert_cmpint (hr_catalog_find_model (catalog, "my-qwen-variant")->origin, ==,
                     HR_ORIGIN_USER);
    g_assert_true (hr_catalog_find_gpu (catalog, "rtx-4090") != old_4090);
    g_assert_cmpstr (old_4090->id, ==, "rtx-4090");

    /* Files as they were: nothing is read again. */
    old_4090 = hr_catalog_find_gpu (catalog, "rtx-4090");
    hr_catalog_reload_default ();
    g_assert_true (hr_catalog_find_gpu (catalog, "rtx-4090") == old_4090);
  }
  g_assert_true (hr_catalog_id_is_valid ("qwen2.5-7b_v2"));
  g_assert_false (hr_catalog_id_is_valid (""));
  g_assert_false (hr_catalog_id_is_valid ("Qwen2.5"));
  g_assert_false (hr_catalog_id_is_valid ("my model"));

  /* A user file that cannot be read is never written over. */
  g_file_set_contents (gpus_path, "{\"version\": 1, \"entries\": [", -1, &error);
  g_assert_no_error (error);
  g_assert_false (hr_user_catalog_save_gpu (gpu, NULL, &error));
  g_assert_nonnull (strstr (error->message, "left as it is"));
  g_clear_error (&error);
  g_clear_pointer (&after, g_free);
  g_file_get_contents (gpus_path, &after, NULL, NULL);
  g_assert_cmpstr (after, ==, "{\"version\": 1, \"entries\": [");

  g_remove (models_path);
  g_remove (gpus_path);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *data_home = g_dir_make_tmp ("hr-user-data-XXXXXX", NULL);
  g_autofree char *headroom_dir = g_build_filename (data_home, "headroom", NULL);
  int ret;

  /* Before GLib reads it: the user catalog of these tests lives here. */
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/import/hf/real-configs", test_real_configs);
  g_test_add_func ("/import/hf/moe", test_moe);
  g_test_add_func ("/import/hf/moe-one-expert", test_moe_one_expert);
  g_test_add_func ("/import/hf/moe-shared", test_moe_shared);
  g_test_add_func ("/import/hf/composite", test_composite);
  g_test_add_func ("/import/hf/bad", test_bad_configs);
  g_test_add_func ("/import/hf/unknown-type", test_unknown_type);
  g_test_add_func ("/import/hf/unknown-multimodal", test_unknown_multimodal);
  g_test_add_func ("/import/hf/long-model-type", test_long_model_type);
  g_test_add_func ("/import/safetensors/counts", test_safetensors);
  g_test_add_func ("/import/safetensors/hostile", test_safetensors_hostile);
  g_test_add_func ("/import/safetensors/quantized", test_safetensors_quantized);
  g_test_add_func ("/import/safetensors/guess", test_safetensors_guess);
  g_test_add_func ("/import/folder", test_folder);
  g_test_add_func ("/import/gguf/counts", test_gguf);
  g_test_add_func ("/import/gguf/hostile", test_gguf_hostile);
  g_test_add_func ("/import/gguf/file", test_gguf_file);
  g_test_add_func ("/import/user-catalog", test_user_catalog);

  ret = g_test_run ();

  g_rmdir (headroom_dir);
  g_rmdir (data_home);
  return ret;
}
