/* test-import-diffusers.c: diffusers pipelines and single-file checkpoints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "hr-core.h"
#include "hr-import-safetensors.h"
#include "hr-test-utils.h"

static gboolean
has_note (const HrImport *import,
          const char     *part)
{
  for (guint i = 0; i < import->notes->len; i++)
    if (strstr (g_ptr_array_index (import->notes, i), part) != NULL)
      return TRUE;
  return FALSE;
}

/* stable-diffusion-v1-5's model_index.json and its components' configs
 * (tests/data/import/stable-diffusion-v1-5, no weights): the counts come
 * from the configs' shapes and match the checkpoint's (unet 859,520,964,
 * vae 83,653,863, text_encoder 123,060,480). */
static void
test_pipeline_folder (void)
{
  g_autofree char *dir = g_build_filename (HR_IMPORT_FIXTURES, "stable-diffusion-v1-5", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_path (dir, &error);
  g_autoptr(HrModel) model = NULL;
  const HrModel *builtin = hr_catalog_find_model (hr_catalog_get_default (), "sd-1.5");
  guint found = 0;

  g_assert_no_error (error);
  g_assert_nonnull (import);
  g_assert_cmpuint (import->params, ==, 859520964 + 83653863 + 123060480);
  g_assert_false (import->params_exact);
  g_assert_true (has_note (import, "safety_checker"));

  model = hr_test_model_of_import (import);
  g_assert_cmpstr (model->family, ==, "diffusion");
  for (guint i = 0; i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);

      if (g_str_equal (c->name, "unet"))
        {
          g_assert_nonnull (c->arch);
          g_assert_true (c->trainable);
          g_assert_cmpuint (c->arch->heads[0], ==, 8);
          g_assert_cmpuint (c->arch->transformer_layers[3], ==, 0);
          found++;
        }
      else if (g_str_equal (c->name, "vae"))
        {
          g_assert_nonnull (c->arch);
          g_assert_false (c->trainable);
          g_assert_cmpuint (c->arch->latent_scale, ==, 8);
          found++;
        }
      else if (g_str_equal (c->name, "text_encoder"))
        {
          g_assert_null (c->arch);
          g_assert_cmpuint (c->layers, ==, 12);
          g_assert_cmpuint (c->tokens, ==, 77);
          found++;
        }
    }
  g_assert_cmpuint (found, ==, 3);

  /* the imported pipeline estimates as the built-in SD 1.5 does */
  {
    g_autoptr(HrScenario) a = hr_scenario_new_for_model (model);
    g_autoptr(HrScenario) b = hr_scenario_new_for_model (builtin);
    g_autoptr(HrEstimate) ea = NULL;
    g_autoptr(HrEstimate) eb = NULL;

    a->method = b->method = HR_METHOD_LORA;
    a->image_width = a->image_height = b->image_width = b->image_height = 512;
    a->image_size_set = b->image_size_set = TRUE;
    hr_scenario_resolve (a);
    hr_scenario_resolve (b);
    ea = hr_estimate_new (a);
    eb = hr_estimate_new (b);
    g_assert_cmpuint (ea->buckets[HR_BUCKET_ACTIVATIONS], ==, eb->buckets[HR_BUCKET_ACTIVATIONS]);
    g_assert_cmpuint (ea->buckets[HR_BUCKET_WEIGHTS], ==, eb->buckets[HR_BUCKET_WEIGHTS]);
  }
}

static GByteArray *
header_bytes (const char *const *names,
              const char *const *shapes,
              guint               n)
{
  GString *h = g_string_new ("{");
  GByteArray *bytes = g_byte_array_new ();
  guint64 offset = 0, len;
  guint8 prefix[8];

  for (guint i = 0; i < n; i++)
    {
      g_auto(GStrv) dims = g_strsplit (shapes[i], ",", -1);
      guint64 numel = 1;

      for (guint j = 0; dims[j] != NULL; j++)
        numel *= g_ascii_strtoull (dims[j], NULL, 10);
      g_string_append_printf (h, "%s\"%s\": {\"dtype\": \"F16\", \"shape\": [%s], "
                                 "\"data_offsets\": [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                                 "]}", i ? ", " : "", names[i], shapes[i], offset,
                              offset + 2 * numel);
      offset += 2 * numel;
    }
  g_string_append (h, "}");
  len = h->len;
  for (int i = 0; i < 8; i++)
    prefix[i] = (len >> (8 * i)) & 0xff;
  g_byte_array_append (bytes, prefix, 8);
  g_byte_array_append (bytes, (const guint8 *) h->str, h->len);
  g_string_free (h, TRUE);
  return bytes;
}

/* A single-file SD 1.5 checkpoint (the original layout): its parts are
 * told from the names and counted exactly; the architecture is the
 * built-in sd-1.5's, whose U-Net has the same count. */
/* Copies stable-diffusion-v1-5's configs into a folder whose path is
 * near PATH_MAX, which the pipeline's source text quotes. */
static char *
deep_copy_of_sd (const char *top)
{
  static const char *files[] = { "model_index.json", "text_encoder/config.json",
                                 "vae/config.json", "unet/config.json" };
  g_autofree char *level = g_strnfill (250, 'd');
  g_autoptr(GString) dir = g_string_new (top);

  /* room left within PATH_MAX for "/sd/text_encoder/config.json" and
   * g_file_set_contents's temporary ".XXXXXX" beside it */
  while (dir->len + 251 + 48 < 4095)
    g_string_append_printf (dir, "/%s", level);
  if (dir->len + 2 + 48 < 4095)
    {
      g_autofree char *last = g_strnfill (4095 - 48 - dir->len - 1, 'e');

      g_string_append_printf (dir, "/%s", last);
    }
  g_string_append (dir, "/sd");
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *from = g_build_filename (HR_IMPORT_FIXTURES, "stable-diffusion-v1-5",
                                                files[i], NULL);
      g_autofree char *to = g_build_filename (dir->str, files[i], NULL);
      g_autofree char *parent = g_path_get_dirname (to);
      g_autofree char *text = NULL;
      gsize len = 0;

      g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
      g_assert_true (g_file_get_contents (from, &text, &len, NULL));
      g_assert_true (g_file_set_contents (to, text, len, NULL));
    }
  return g_string_free (g_steal_pointer (&dir), FALSE);
}

/* A pipeline folder deep in the tree: the source quotes its path cut to
 * HR_IMPORT_MAX_TEXT characters, so the catalog reads the model back
 * (its reader refuses texts over HR_READER_MAX_STRING). */
static void
test_pipeline_deep_path (void)
{
  g_autofree char *top = g_dir_make_tmp ("headroom-deep-XXXXXX", NULL);
  g_autofree char *dir = deep_copy_of_sd (top);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_path (dir, &error);
  g_autoptr(HrModel) model = NULL;
  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", top);

  g_assert_no_error (error);
  g_assert_cmpuint (strlen (dir), >, HR_READER_MAX_STRING - 100);
  model = hr_test_model_of_import (import);
  g_assert_nonnull (model);
  g_assert_cmpstr (model->name, ==, "sd");
  g_assert_cmpuint (strlen (model->source), <, HR_IMPORT_MAX_TEXT + 200);
  g_assert_cmpint (system (rm), ==, 0);
}

static void
test_single_file_sd (void)
{
  static const char *const names[] = {
    "model.diffusion_model.input_blocks.0.0.weight", "first_stage_model.encoder.conv_in.weight",
    "cond_stage_model.transformer.text_model.embeddings.token_embedding.weight",
  };
  static const char *const shapes[] = { "859520964", "83653863", "123060480" };
  g_autoptr(GByteArray) bytes = header_bytes (names, shapes, 3);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_safetensors_parse ("v1-5-pruned.safetensors", bytes->data,
                                                            bytes->len, &error);
  g_autoptr(HrModel) model = NULL;
  const HrComponent *unet;

  g_assert_no_error (error);
  g_assert_cmpuint (import->params, ==, 859520964 + 83653863 + 123060480);
  model = hr_test_model_of_import (import);
  unet = g_ptr_array_index (model->components, 0);
  g_assert_nonnull (unet->arch);
  g_assert_cmpuint (unet->params, ==, 859520964);
  g_assert_cmpuint (model->components->len, ==, 3);
  g_assert_true (has_note (import, "sd-1.5"));

  /* a U-Net no built-in model has: counted, no architecture guessed */
  {
    static const char *const odd[] = { "123" };
    g_autoptr(GByteArray) b2 = header_bytes (names, odd, 1);
    g_autoptr(HrImport) i2 = hr_import_safetensors_parse ("odd.safetensors", b2->data, b2->len,
                                                          &error);

    g_assert_no_error (error);
    g_assert_cmpuint (i2->params, ==, 123);
    g_assert_null (i2->model);
    g_assert_true (has_note (i2, "no built-in U-Net"));
  }
}

/* LoRA adapters: kohya's names on SD 1.5 (cross-attention keys of 768
 * channels) and on SDXL (2048); the rank and the exact adapter count. */
static void
test_lora (void)
{
  static const char *const names[] = {
    "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.lora_down.weight",
    "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn2_to_k.lora_up.weight",
    "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q.lora_down.weight",
    "lora_unet_down_blocks_0_attentions_0_transformer_blocks_0_attn1_to_q.lora_up.weight",
  };
  static const char *const sd15[] = { "16,768", "320,16", "16,320", "320,16" };
  static const char *const sdxl[] = { "8,2048", "640,8", "8,640", "640,8" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GByteArray) b1 = header_bytes (names, sd15, 4);
  g_autoptr(GByteArray) b2 = header_bytes (names, sdxl, 4);
  g_autoptr(HrImport) a = hr_import_safetensors_parse ("pixel-art.safetensors", b1->data,
                                                       b1->len, &error);
  g_autoptr(HrImport) b = hr_import_safetensors_parse ("xl-style.safetensors", b2->data,
                                                       b2->len, &error);
  g_autoptr(HrModel) ma = NULL;
  g_autoptr(HrModel) mb = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (a->params, ==, 16 * 768 + 320 * 16 + 16 * 320 + 320 * 16);
  ma = hr_test_model_of_import (a);
  mb = hr_test_model_of_import (b);
  g_assert_cmpuint (ma->params, ==,
                    hr_catalog_find_model (hr_catalog_get_default (), "sd-1.5")->params);
  g_assert_cmpuint (mb->params, ==,
                    hr_catalog_find_model (hr_catalog_get_default (), "sdxl")->params);
  g_assert_true (has_note (a, "\"rank\": 16"));
  g_assert_true (has_note (b, "\"rank\": 8"));
  g_assert_true (has_note (b, "sdxl"));
}

/* A name that holds "lora_up" inside another word, or up projections with
 * no down projection, are not an adapter: no base model is assumed for
 * them (the fuzzer's input, tests/fuzz/corpus/safetensors/
 * regress-lora-substring). */
static void
test_not_lora (void)
{
  static const char *const names[] = { "alora_up", "b.bias" };
  static const char *const shapes[] = { "4,8", "8" };
  static const char *const up_only[] = { "x.lora_up.weight", "y.lora_up.weight" };
  static const char *const up_shapes[] = { "320,16", "320,16" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GByteArray) b1 = header_bytes (names, shapes, 2);
  g_autoptr(GByteArray) b2 = header_bytes (up_only, up_shapes, 2);
  g_autoptr(HrImport) a = hr_import_safetensors_parse ("a.safetensors", b1->data, b1->len, &error);
  g_autoptr(HrImport) b = NULL;

  g_assert_no_error (error);
  b = hr_import_safetensors_parse ("b.safetensors", b2->data, b2->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->params, ==, 40);
  /* weights only, if anything: never a base assumed for an adapter */
  for (guint i = 0; i < 2; i++)
    {
      HrImport *import = i == 0 ? a : b;

      if (import->model != NULL)
        g_assert_null (json_object_get_string_member_with_default (
          json_node_get_object (import->model), "method", NULL));
      g_assert_false (has_note (import, "the model is the base"));
    }
}

/* A Flux transformer in Black Forest Labs' layout: 19 double and 38 single
 * blocks, hidden 3072 from img_in, [dev] by its guidance embedding. */
static void
test_flux (void)
{
  static const char *const names[] = {
    "img_in.weight", "guidance_in.in_layer.weight", "double_blocks.0.img_attn.qkv.weight",
    "double_blocks.18.img_attn.qkv.weight", "single_blocks.0.linear1.weight",
    "single_blocks.37.linear1.weight",
  };
  static const char *const shapes[] = {
    "3072,64", "3072,256", "9216,3072", "9216,3072", "21504,3072", "21504,3072",
  };
  g_autoptr(GByteArray) bytes = header_bytes (names, shapes, 6);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = hr_import_safetensors_parse ("flux1-dev.safetensors", bytes->data,
                                                            bytes->len, &error);
  g_autoptr(HrModel) model = NULL;
  const HrComponent *dbl, *sgl;

  g_assert_no_error (error);
  model = hr_test_model_of_import (import);
  g_assert_cmpuint (model->components->len, ==, 2);
  dbl = g_ptr_array_index (model->components, 0);
  sgl = g_ptr_array_index (model->components, 1);
  g_assert_cmpuint (dbl->layers, ==, 19);
  g_assert_cmpuint (sgl->layers, ==, 38);
  g_assert_cmpuint (dbl->hidden, ==, 3072);
  g_assert_cmpuint (sgl->params, ==, 2 * 21504 * 3072);
  g_assert_cmpuint (model->params, ==, import->params);
  g_assert_true (has_note (import, "flux.1-dev"));
  g_assert_true (has_note (import, "no VAE"));
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/import-diffusers/pipeline-folder", test_pipeline_folder);
  g_test_add_func ("/import-diffusers/pipeline-deep-path", test_pipeline_deep_path);
  g_test_add_func ("/import-diffusers/single-file-sd", test_single_file_sd);
  g_test_add_func ("/import-diffusers/lora", test_lora);
  g_test_add_func ("/import-diffusers/not-lora", test_not_lora);
  g_test_add_func ("/import-diffusers/flux", test_flux);

  return g_test_run ();
}
