/* test-catalog.c: the built-in catalogs and the user's additions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"

static void
test_models (void)
{
  static const char *required[] = {
    /* every system in the seeds */
    "dreamerv3-12m", "dreamerv3-25m", "dreamerv3-50m", "dreamerv3-100m", "dreamerv3-200m",
    "dreamerv3-400m",
    "gr00t-n1.5", "gr00t-n1.7", "pi05", "smolvla", "act", "llama-2-7b", "llama-2-13b",
    "llama-2-70b",
    "bert-base", "resnet-50", "sd-1.5", "dino-wm",
    /* current open LLMs with GQA */
    "llama-3.1-8b", "llama-3.1-70b", "llama-3.2-1b", "qwen2.5-7b", "qwen2.5-72b", "mistral-7b",
    "gemma-2-9b",
    /* the current generation of open dense LLMs */
    "llama-3.1-405b", "llama-3.3-70b", "qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b",
    "qwen3-14b", "qwen3-32b", "gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b",
    "mistral-small-24b", "mistral-large-2", "phi-4", "phi-4-mini",
    "deepseek-r1-distill-qwen-1.5b", "deepseek-r1-distill-qwen-7b",
    "deepseek-r1-distill-qwen-14b", "deepseek-r1-distill-qwen-32b",
    "deepseek-r1-distill-llama-8b", "deepseek-r1-distill-llama-70b", "smollm2-135m",
    "smollm2-360m", "smollm2-1.7b",
    /* encoders, encoder-decoders, vision transformers */
    "bert-large", "roberta-base", "roberta-large", "distilbert-base", "deberta-v3-base",
    "deberta-v3-large", "modernbert-base", "modernbert-large", "t5-small", "t5-base",
    "t5-large", "vit-l-16", "vit-h-14", "clip-vit-l-14", "siglip-so400m-14-384",
    "dinov2-vits14", "dinov2-vitb14", "dinov2-vitl14", "dinov2-vitg14", "sam-vit-b",
    "sam-vit-l", "sam-vit-h", "whisper-small", "whisper-medium", "whisper-large-v3",
    /* VLAs and world models */
    "openvla-7b", "pi0", "pi0-fast", "vjepa2-vitl", "vjepa2-vith", "vjepa2-vitg", "vjepa2-ac",
    /* vision backbones, detectors, segmenters of the common model zoos */
    "resnet-18", "resnet-34", "resnet-101", "resnet-152", "resnext-50-32x4d",
    "resnext-101-64x4d", "convnext-tiny", "convnext-small", "convnext-base", "convnext-large",
    "efficientnet-b0", "efficientnet-b7", "regnety-400mf", "regnety-16gf",
    "faster-rcnn-r50-fpn", "faster-rcnn-r101-fpn", "faster-rcnn-x101-64x4d-fpn",
    "mask-rcnn-r50-fpn", "mask-rcnn-x101-64x4d-fpn", "retinanet-r50-fpn", "fcos-r50-fpn",
    "detr-r50", "pspnet-r18-d8", "pspnet-r50-d8", "pspnet-r101-d8", "deeplabv3plus-r50-d8",
    "deeplabv3plus-r101-d8", "upernet-r50", "segformer-mit-b0", "segformer-mit-b5",
    /* image and video diffusion */
    "sd-2.1", "sdxl", "controlnet-sd-1.5", "sd-3.5-medium", "sd-3.5-large", "flux.1-dev",
    "flux.1-schnell", "flux.2-klein-4b", "pixart-alpha", "pixart-sigma", "cogvideox-2b",
    "cogvideox-5b", "wan2.1-t2v-1.3b", "wan2.1-t2v-14b", "hunyuanvideo", "ltx-video",
  };
  /* The fewest entries each family may have: a floor that a lost or
   * mis-filed entry breaks, not a count to keep in step by hand. */
  static const struct {
    const char *family;
    guint       at_least;
  } per_family[] = {
    { "llm", 50 }, { "encoder", 20 }, { "vla", 8 }, { "world-model", 11 }, { "cnn", 25 },
    { "detection", 8 }, { "segmentation", 10 }, { "diffusion", 10 }, { "video", 5 },
  };
  static const char * const families[] = {
    "llm", "vlm", "encoder", "vla", "world-model", "cnn", "detection", "segmentation",
    "diffusion", "video", "speech", NULL
  };
  static const char *gqa[] = { "llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "gemma-2-9b",
                              "llama-2-70b" };
  HrCatalog *catalog = hr_catalog_get_default ();
  GPtrArray *models = hr_catalog_get_models (catalog);
  g_autoptr(GHashTable) ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  guint outside_llm = 0;

  g_assert_cmpuint (models->len, >=, 90);

  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    {
      if (hr_catalog_find_model (catalog, required[i]) == NULL)
        g_error ("model \"%s\" is missing from the catalog", required[i]);
    }

  for (guint i = 0; i < G_N_ELEMENTS (gqa); i++)
    {
      const HrModel *m = hr_catalog_find_model (catalog, gqa[i]);
      const HrComponent *c = g_ptr_array_index (m->components, 0);

      g_assert_cmpuint (c->kv_heads, <, c->heads);
    }

  for (guint i = 0; i < models->len; i++)
    {
      const HrModel *m = g_ptr_array_index (models, i);
      guint64 sum = 0;

      double shaped_sum = 0;

      g_assert_nonnull (m->source);
      g_assert_cmpuint (strlen (m->source), >, 20);
      /* the source names where the numbers come from: a config.json, a
       * model card, a paper, a repository at a commit, or a seed */
      if (!g_regex_match_simple ("@[0-9a-f]{7}|huggingface\\.co/|paper|config\\.json|arXiv|"
                                 "[Mm]odel card|[Ss]eed 00|tests/data",
                                 m->source, 0, 0))
        g_error ("%s: its source names no config, card, paper or commit", m->id);
      g_assert_cmpuint (m->params, >, 0);
      g_assert_nonnull (m->family);

      /* ids are unique, lowercase letters, digits, '.' and '-' */
      if (!g_regex_match_simple ("^[a-z0-9][a-z0-9.-]*$", m->id, 0, 0))
        g_error ("model id \"%s\" is not lowercase letters, digits, '.' and '-'", m->id);
      if (!g_hash_table_add (ids, m->id))
        g_error ("model id \"%s\" appears twice", m->id);

      /* every built-in entry sits in one of the picker's families */
      if (!g_strv_contains (families, m->family))
        g_error ("%s: family \"%s\" is not one of the built-in families", m->id, m->family);
      g_hash_table_insert (counts, m->family,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts,
                                                                                    m->family)) +
                                             1));
      if (!g_str_equal (m->family, "llm"))
        outside_llm++;
      for (guint j = 0; j < m->components->len; j++)
        {
          const HrComponent *c = g_ptr_array_index (m->components, j);

          sum += c->params;
          /* every calibrated figure says where it comes from */
          if (c->has_activation)
            g_assert_nonnull (c->act_source);
          if (c->kind == HR_COMPONENT_TRANSFORMER)
            shaped_sum += (double) hr_component_linear_params (c) +
                          hr_component_embedding_params (c);
          /* a transformer's shape accounts for most of its parameters */
          if (c->kind == HR_COMPONENT_TRANSFORMER && m->components->len == 1)
            {
              double shaped = (double) hr_component_linear_params (c) +
                              hr_component_embedding_params (c);

              if (shaped < 0.85 * c->params || shaped > 1.02 * c->params)
                g_error ("%s: its shape gives %.3gB parameters, params says %.3gB", m->id,
                         shaped / 1e9,
                         c->params / 1e9);
            }
        }
      g_assert_cmpfloat ((double) sum, >=, 0.98 * m->params);
      /* the shapes never account for more parameters than the model has (a
       * typo in a width or a layer count shows up here) */
      if (shaped_sum > 1.02 * m->params)
        g_error ("%s: its shapes give %.4gB parameters, params says %.4gB", m->id,
                 shaped_sum / 1e9, m->params / 1e9);
    }

  for (guint i = 0; i < G_N_ELEMENTS (per_family); i++)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, per_family[i].family));

      if (n < per_family[i].at_least)
        g_error ("family %s has %u models, at least %u expected", per_family[i].family, n,
                 per_family[i].at_least);
    }
  g_assert_cmpuint (outside_llm, >=, 40);
}

static void
test_gpus (void)
{
  static const char *required[] = {
    "rtx-3060-12gb", "rtx-3090", "rtx-4090", "rtx-5090", "rtx-5090d", "rtx-a6000", "rtx-6000-ada",
    "a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200", "mi300x",
    /* the used market and the current generation */
    "rtx-2080-ti", "rtx-3080-ti", "rtx-5060-ti-16gb", "rtx-5070", "rtx-5070-ti", "rtx-5080",
    "rtx-a4000", "rtx-a5000", "t4", "v100-16gb", "v100-32gb", "a10", "a10g", "l4", "l40", "l40s",
    "h20", "gb200", "mi325x",
  };
  HrCatalog *catalog = hr_catalog_get_default ();
  GPtrArray *gpus = hr_catalog_get_gpus (catalog);
  g_autoptr(GHashTable) ids = g_hash_table_new (g_str_hash, g_str_equal);

  g_assert_cmpuint (gpus->len, >=, 45);

  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    {
      if (hr_catalog_find_gpu (catalog, required[i]) == NULL)
        g_error ("GPU \"%s\" is missing from the catalog", required[i]);
    }

  /* SCENARIO.md: memory is what the driver reports */
  g_assert_cmpuint (hr_catalog_find_gpu (catalog, "h100-sxm")->memory, ==,
                    G_GUINT64_CONSTANT (85520809984));
  g_assert_cmpuint (hr_catalog_find_gpu (catalog, "rtx-4090")->memory, ==,
                    G_GUINT64_CONSTANT (25757220864));

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *g = g_ptr_array_index (gpus, i);

      g_assert_nonnull (g->source);
      g_assert_cmpuint (strlen (g->source), >, 20);
      if (!g_regex_match_simple ("^[a-z0-9][a-z0-9.-]*$", g->id, 0, 0))
        g_error ("GPU id \"%s\" is not lowercase letters, digits, '.' and '-'", g->id);
      if (!g_hash_table_add (ids, g->id))
        g_error ("GPU id \"%s\" appears twice", g->id);
      g_assert_cmpuint (g->memory, >, G_GUINT64_CONSTANT (4) << 30);
      g_assert_cmpuint (g->bandwidth, >, 0);
      g_assert_cmpfloat (g->fp32_tflops, >, 0);
      g_assert_cmpuint (g->tdp_watts, >, 0);
      /* a price needs a date */
      if (g->price_usd >= 0 || g->cloud_usd_per_hour >= 0)
        {
          g_assert_nonnull (g->price_as_of);
          g_assert_true (g_regex_match_simple ("^20[0-9][0-9]-[01][0-9](-[0-3][0-9])?$",
                                               g->price_as_of, 0, 0));
        }
      /* the driver's figure is close to the marketed size */
      if (g->memory_nominal_gb > 0)
        {
          double ratio = g->memory / (g->memory_nominal_gb * 1e9);

          if (ratio < 0.9 || ratio > 1.2)
            g_error ("%s: %.0f bytes for a %.0f GB card", g->id, (double) g->memory,
                     g->memory_nominal_gb);
        }
    }
}

static HrJsonDoc *
doc (const char *text)
{
  g_autoptr(GError) error = NULL;
  HrJsonDoc *d = hr_json_doc_load_data ("user.json", text, -1, &error);

  g_assert_no_error (error);
  return d;
}

static void
test_user_entries (void)
{
  g_autoptr(HrCatalog) catalog = hr_catalog_new ();
  g_autoptr(HrJsonDoc) first = doc ("{\"version\": 1, \"entries\": [ {\"id\": \"card\", "
                                    "\"name\": \"Card\", \"memory\": 24000000000, \"source\": "
                                    "\"test\"}, {\"id\": \"other\", \"name\": \"Other\", "
                                    "\"memory\": 8000000000, \"source\": \"test\"}]}");
  g_autoptr(HrJsonDoc) override = doc ("{\"version\": 1, \"entries\": [ {\"id\": \"card\", "
                                       "\"name\": \"Card v2\", \"memory\": 48000000000, "
                                       "\"source\": \"mine\"}]}");
  g_autoptr(HrJsonDoc) broken = doc ("{\"version\": 1, \"entries\": [ {\"id\": \"new\", "
                                     "\"name\": \"New\", \"memory\": 8000000000, \"source\": "
                                     "\"x\"}, {\"id\": \"card\", \"name\": \"Card v3\", "
                                     "\"memory\": 1, \"source\": \"x\"}]}");
  g_autoptr(HrJsonDoc) unsourced = doc ("{\"version\": 1, \"entries\": [ {\"id\": \"nosrc\", "
                                        "\"name\": \"N\", \"memory\": 8000000000}]}");
  g_autoptr(HrJsonDoc) dup = doc ("{\"version\": 1, \"entries\": [ {\"id\": \"a\", \"name\": "
                                  "\"A\", \"memory\": 8000000000, \"source\": \"x\"}, {\"id\": "
                                  "\"a\", \"name\": \"A\", \"memory\": 8000000000, \"source\": "
                                  "\"x\"}]}");
  g_autoptr(GError) error = NULL;

  g_assert_true (hr_catalog_load_gpus (catalog, first, &error));
  g_assert_true (hr_catalog_load_gpus (catalog, override, &error));
  g_assert_no_error (error);

  /* an override replaces the entry in place */
  g_assert_cmpuint (hr_catalog_get_gpus (catalog)->len, ==, 2);
  g_assert_cmpstr (hr_catalog_find_gpu (catalog, "card")->name, ==, "Card v2");
  g_assert_true (g_ptr_array_index (hr_catalog_get_gpus (catalog),
                                    0) == hr_catalog_find_gpu (catalog, "card"));

  /* a broken file changes nothing: not even its good first entry */
  g_assert_false (hr_catalog_load_gpus (catalog, broken, &error));
  g_assert_true (g_str_has_prefix (error->message, "user.json:1:"));
  g_clear_error (&error);
  g_assert_null (hr_catalog_find_gpu (catalog, "new"));
  g_assert_cmpuint (hr_catalog_find_gpu (catalog, "card")->memory, ==, 48000000000);

  g_assert_false (hr_catalog_load_gpus (catalog, unsourced, &error));
  g_assert_nonnull (strstr (error->message, "has no \"source\""));
  g_clear_error (&error);

  g_assert_false (hr_catalog_load_gpus (catalog, dup, &error));
  g_assert_nonnull (strstr (error->message, "appears twice"));
  g_clear_error (&error);

  g_assert_cmpuint (hr_catalog_get_gpus (catalog)->len, ==, 2);

  {
    g_autofree char *hint = hr_catalog_suggest_gpu (catalog, "Card");

    g_assert_cmpstr (hint, ==, "card");
  }
}

static void
test_examples (void)
{
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autoptr(GDir) listing = NULL;
  g_autoptr(GError) error = NULL;
  const char *name;
  guint count = 0;

  g_assert_nonnull (dir);
  listing = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);

  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(HrScenario) s = NULL;
      g_autoptr(HrEstimate) est = NULL;

      if (!g_str_has_suffix (name, ".json"))
        continue;

      s = hr_scenario_load (path, hr_catalog_get_default (), &error);
      if (s == NULL)
        g_error ("%s", error->message);
      est = hr_estimate_new (s);
      g_assert_cmpuint (est->total, >, 0);
      g_assert_true (est->has_fit);
      count++;
    }

  g_assert_cmpuint (count, >=, 10);
}


/* The mixtures of experts count what their cards and configs publish:
 * every expert stored, experts_per_token of them active (Mixtral 8x7B
 * 46.7B, 12.9B active; Mixtral 8x22B 141B; Qwen3 30B-A3B 30.53B, 3.3B
 * active; Qwen3 235B-A22B 235.1B, 22B active; DeepSeek-V3 671B, 37B
 * active, with MLA and three dense layers).  The shapes give the totals
 * to 0.01% (the rest is per-head norms and the router's bias). */
static void
test_moe_counts (void)
{
  static const struct {
    const char *id;
    double      total;
    double      tolerance;
    double      active;
  } models[] = {
    { "mixtral-8x7b", 46.7e9, 0.001, 12.9e9 },
    { "mixtral-8x22b", 141e9, 0.003, 39.2e9 },
    { "qwen3-30b-a3b", 30.532e9, 0.0005, 3.35e9 },
    { "qwen3-235b-a22b", 235.09e9, 0.0005, 22.2e9 },
    { "deepseek-v3", 671e9, 0.001, 37.6e9 },
  };
  HrCatalog *catalog = hr_catalog_get_default ();

  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    {
      const HrModel *m = hr_catalog_find_model (catalog, models[i].id);
      const HrComponent *c;
      double shape, active;

      g_assert_nonnull (m);
      c = g_ptr_array_index (m->components, 0);
      g_assert_true (hr_component_is_moe (c));
      shape = hr_component_shape_params (c);
      active = hr_component_active_params (c);
      if (fabs (m->params - models[i].total) > models[i].tolerance * models[i].total)
        g_error ("%s: %.4g parameters, published %.4g", models[i].id, (double) m->params,
                 models[i].total);
      if (fabs (shape - m->params) > 1e-4 * m->params)
        g_error ("%s: the shape gives %.6g parameters, the entry %.6g", models[i].id, shape,
                 (double) m->params);
      if (fabs (active - models[i].active) > 0.01 * models[i].active)
        g_error ("%s: %.4g active, published %.4g", models[i].id, active, models[i].active);
    }

  {
    const HrComponent *ds = g_ptr_array_index (
      hr_catalog_find_model (catalog, "deepseek-v3")->components, 0);

    g_assert_true (hr_component_is_mla (ds));
    g_assert_cmpuint (ds->head_dim, ==, 192);
    g_assert_cmpuint (ds->v_head_dim, ==, 128);
    g_assert_cmpuint (ds->kv_heads, ==, 128);
    g_assert_cmpuint (hr_component_moe_layers (ds), ==, 58);
  }
}

/* MoE and MLA keys need their anchors, and say so. */
static void
test_moe_errors (void)
{
  static const struct { const char *json; const char *message; } cases[] = {
    { "\"experts_per_token\": 2", "give \"experts\" too" },
    { "\"experts\": 8", "experts_per_token" },
    { "\"experts\": 8, \"experts_per_token\": 9", "experts_per_token" },
    { "\"qk_rope_head_dim\": 64", "give \"kv_lora_rank\" too" },
    { "\"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64, \"qk_nope_head_dim\": 128, "
      "\"v_head_dim\": 128, \"head_dim\": 64", "qk_nope_head_dim + qk_rope_head_dim" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *json = g_strdup_printf (
        "{\"id\": \"m\", \"name\": \"M\", \"params\": 1000000, \"layers\": 2, \"hidden\": 64, "
        "\"heads\": 4, %s}", cases[i].json);
      g_autoptr(GError) error = NULL;
      g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("m.json", json, -1, &error);
      g_autoptr(HrModel) model = NULL;

      g_assert_no_error (error);
      model = hr_model_from_json (doc, "", hr_json_doc_get_root (doc), &error);
      g_assert_null (model);
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: \"%s\" lacks \"%s\"", cases[i].json, error->message, cases[i].message);
    }
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/catalog/models", test_models);
  g_test_add_func ("/catalog/gpus", test_gpus);
  g_test_add_func ("/catalog/user-entries", test_user_entries);
  g_test_add_func ("/catalog/examples", test_examples);
  g_test_add_func ("/catalog/moe-counts", test_moe_counts);
  g_test_add_func ("/catalog/moe-errors", test_moe_errors);

  return g_test_run ();
}
