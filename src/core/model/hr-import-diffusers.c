/* hr-import-diffusers.c: diffusion pipelines and single-file checkpoints
 *
 * A diffusers pipeline folder lists its components in model_index.json
 * ({"unet": ["diffusers", "UNet2DConditionModel"], ...}); each component
 * has a folder with its config.json and weights.  The U-Net, ControlNet
 * and VAE become parts with an "arch" read from their configs (the names
 * are diffusers': block_out_channels, down_block_types,
 * transformer_layers_per_block, attention_head_dim, ...), the text
 * encoders and the DiT/MMDiT transformers transformer parts; the weights'
 * headers give the exact counts.
 *
 * A single-file checkpoint (the original Stable Diffusion layout of
 * model.diffusion_model / first_stage_model / cond_stage_model, SDXL's
 * conditioner.embedders, Flux's double_blocks / single_blocks, a diffusers
 * transformer's transformer_blocks) has no config: its parts are told from
 * the tensor names, their exact counts summed from the headers, and the
 * architecture taken from the built-in model whose denoiser has the same
 * count, with a note saying so.  A LoRA file (kohya's lora_unet_ /
 * lora_te_ names, PEFT's lora_A / lora_B) gives its rank, its adapter count
 * and the base it fits, from the cross-attention width its keys read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-import"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "hr-arch.h"
#include "hr-catalog.h"
#include "hr-import-diffusers.h"
#include "hr-import-hf.h"
#include "hr-import-safetensors.h"
#include "hr-reader.h"

struct _HrImportDiffusion {
  GHashTable *groups;        /* part name -> guint64 * parameters */
  guint       double_blocks;
  guint       single_blocks;
  guint       lora_rank;
  guint       lora_modules;
  guint       lora_context_dim;
  guint64     hidden;
  gboolean    guidance;
};

void
hr_import_diffusion_free (HrImportDiffusion *d)
{
  if (d == NULL)
    return;
  g_hash_table_unref (d->groups);
  g_free (d);
}

/* ---- Single files ------------------------------------------------------- */

static guint
block_number (const char *name,
              const char *marker)
{
  const char *p = strstr (name, marker);

  if (p == NULL || !g_ascii_isdigit (p[strlen (marker)]))
    return 0;
  return (guint) MIN (g_ascii_strtoull (p + strlen (marker), NULL, 10) + 1, 100000);
}

static const char *
group_of (HrImportDiffusion *d,
          const char        *name)
{
  /* kohya's "<module>.lora_down.weight" and PEFT's "<module>.lora_A.weight":
   * a name part of its own, not any name that contains the letters */
  gboolean lora = strstr (name, ".lora_down.") != NULL || strstr (name, ".lora_up.") != NULL ||
                  strstr (name, ".lora_A.") != NULL || strstr (name, ".lora_B.") != NULL ||
                  (g_str_has_prefix (name, "lora_") && g_str_has_suffix (name, ".alpha"));

  if (lora)
    return g_str_has_prefix (name, "lora_te") || strstr (name, "text_encoder") != NULL
             ? "lora_te" : "lora_unet";

  /* Flux (Black Forest Labs' layout, also under ComfyUI's prefix) and
   * diffusers' FluxTransformer2DModel */
  if (strstr (name, "double_blocks.") != NULL)
    {
      d->double_blocks = MAX (d->double_blocks, block_number (name, "double_blocks."));
      return "double_blocks";
    }
  if (strstr (name, "single_blocks.") != NULL)
    {
      d->single_blocks = MAX (d->single_blocks, block_number (name, "single_blocks."));
      return "single_blocks";
    }
  if (g_str_has_prefix (name, "single_transformer_blocks."))
    {
      d->single_blocks = MAX (d->single_blocks, block_number (name, "single_transformer_blocks."));
      return "single_blocks";
    }
  if (g_str_has_prefix (name, "transformer_blocks."))
    {
      d->double_blocks = MAX (d->double_blocks, block_number (name, "transformer_blocks."));
      return "double_blocks";
    }

  if (g_str_has_prefix (name, "model.diffusion_model."))
    return "unet";
  if (g_str_has_prefix (name, "first_stage_model."))
    return "vae";
  if (g_str_has_prefix (name, "cond_stage_model.") ||
      g_str_has_prefix (name, "conditioner.embedders.0."))
    return "text_encoder";
  if (g_str_has_prefix (name, "conditioner.embedders.1."))
    return "text_encoder_2";
  return "other";
}

void
hr_import_diffusers_count (HrImport      *import,
                           const char    *name,
                           const guint64 *dims,
                           guint          n_dims,
                           guint64        params)
{
  HrImportDiffusion *d;
  const char *group;
  guint64 *sum;

  g_return_if_fail (import != NULL && name != NULL);

  if (import->diffusion == NULL)
    {
      import->diffusion = g_new0 (HrImportDiffusion, 1);
      import->diffusion->groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
    }
  d = import->diffusion;
  group = group_of (d, name);

  sum = g_hash_table_lookup (d->groups, group);
  if (sum == NULL)
    {
      sum = g_new0 (guint64, 1);
      g_hash_table_insert (d->groups, (gpointer) group, sum);
    }
  *sum += params;

  if ((strstr (name, "lora_down.weight") != NULL || strstr (name, ".lora_A.") != NULL) &&
      n_dims >= 2)
    {
      d->lora_rank = MAX (d->lora_rank, (guint) MIN (dims[0], 1u << 20));
      d->lora_modules++;
      /* the keys of cross-attention read the text encoder's width */
      if ((strstr (name, "attn2_to_k") != NULL || strstr (name, "attn2.to_k") != NULL) &&
          d->lora_context_dim == 0)
        d->lora_context_dim = (guint) MIN (dims[1], 1u << 20);
    }

  /* Flux's image embedding: [hidden, 64] */
  if ((g_str_has_suffix (name, "img_in.weight") || g_str_equal (name, "x_embedder.weight")) &&
      n_dims == 2)
    d->hidden = dims[0];
  if (strstr (name, "guidance_in.") != NULL || strstr (name, "guidance_embedder.") != NULL)
    d->guidance = TRUE;
}

static guint64
group (HrImportDiffusion *d,
       const char        *name)
{
  guint64 *v = g_hash_table_lookup (d->groups, name);

  return v != NULL ? *v : 0;
}

/* A copy of a built-in model's object, as the architecture to import. */
static JsonObject *
catalog_copy (const char *id)
{
  const HrModel *m = hr_catalog_find_model (hr_catalog_get_default (), id);
  JsonNode *copy;
  JsonObject *object;

  if (m == NULL || m->json == NULL)
    return NULL;
  copy = json_node_copy (m->json);
  object = json_object_ref (json_node_get_object (copy));
  json_node_unref (copy);
  return object;
}

static JsonObject *
component_object (JsonObject *model,
                  guint       index)
{
  JsonArray *components = json_object_get_array_member (model, "components");

  return json_array_get_object_element (components, index);
}

static void
finish_model (HrImport   *import,
              JsonObject *model,
              const char *name,
              const char *base_id)
{
  g_autofree char *id = hr_import_make_id (name);
  g_autofree char *path = hr_import_clip (import->path);
  g_autofree char *source = g_strdup_printf (
    "Imported by Headroom from %s (safetensors headers): exact parameter counts per part from "
    "the tensors; the architecture is the built-in %s's, whose parts have those counts",
    path, base_id);
  JsonArray *components = json_object_get_array_member (model, "components");
  guint64 sum = 0;

  for (guint i = 0; i < json_array_get_length (components); i++)
    sum += json_object_get_int_member (json_array_get_object_element (components, i), "params");

  json_object_set_string_member (model, "id", id);
  json_object_set_string_member (model, "name", name);
  json_object_set_int_member (model, "params", sum);
  json_object_set_string_member (model, "source", source);
  import->model = json_node_init_object (json_node_alloc (), model);
  json_object_unref (model);
}

/* Keeps the components of @model whose count (by index) is not 0, with
 * those counts. */
static void
set_counts (JsonObject    *model,
            const guint64 *counts,
            guint          n)
{
  JsonArray *components = json_object_get_array_member (model, "components");
  JsonArray *kept = json_array_new ();

  for (guint i = 0; i < n && i < json_array_get_length (components); i++)
    {
      JsonObject *c;

      if (counts[i] == 0)
        continue;
      c = json_object_ref (json_array_get_object_element (components, i));
      json_object_set_int_member (c, "params", counts[i]);
      json_array_add_object_element (kept, c);
    }
  json_object_set_array_member (model, "components", kept);
}

static gboolean
guess_lora (HrImport   *import,
            const char *name)
{
  HrImportDiffusion *d = import->diffusion;
  guint64 adapters = group (d, "lora_unet") + group (d, "lora_te");
  const char *base;
  g_autoptr(JsonObject) model = NULL;
  g_autofree char *title = NULL;

  /* an adapter adapts something: at least one down projection of rank 1
   * or more, or it is not told apart as one */
  if (d->lora_modules == 0 || d->lora_rank == 0)
    return FALSE;

  if (d->double_blocks > 0 || d->single_blocks > 0)
    base = "flux.1-dev";
  else if (d->lora_context_dim == 2048)
    base = "sdxl";
  else if (d->lora_context_dim == 1024)
    base = "sd-2.1";
  else
    base = "sd-1.5";

  model = catalog_copy (base);
  if (model == NULL)
    return FALSE;

  hr_import_add_read (import, _("a LoRA adapter: %u adapted modules, rank %u, %" PRIu64
                                " adapter parameters (exact)"),
                      d->lora_modules, d->lora_rank, adapters);
  if (d->lora_context_dim > 0)
    hr_import_add_note (import, _("the base is %s: the adapter's cross-attention keys read "
                                  "%u-channel text embeddings"), base, d->lora_context_dim);
  else
    hr_import_add_note (import, _("the base is %s, assumed from the tensor names (no "
                                  "cross-attention key tells the text width)"), base);
  hr_import_add_note (import, _("the model is the base; estimate the adapter with \"method\": "
                                "\"lora\" and \"lora\": {\"rank\": %u}"), d->lora_rank);
  if (group (d, "lora_te") > 0)
    hr_import_add_note (import, _("the adapter trains the text encoder too (%" PRIu64
                                  " of its parameters)"), group (d, "lora_te"));

  {
    g_autofree char *lora = hr_import_clip (name);

    title = g_strdup_printf ("%s (base of LoRA %s)",
                             json_object_get_string_member (model, "name"), lora);
  }
  finish_model (import, g_steal_pointer (&model), title, base);
  json_object_set_string_member (json_node_get_object (import->model), "method", "lora");
  return TRUE;
}

static gboolean
guess_flux (HrImport   *import,
            const char *name)
{
  HrImportDiffusion *d = import->diffusion;
  const char *base = d->guidance ? "flux.1-dev" : "flux.1-schnell";
  g_autoptr(JsonObject) model = catalog_copy (base);
  guint64 counts[5] = { 0 };
  JsonObject *c;

  if (model == NULL || d->double_blocks == 0 || d->single_blocks == 0)
    return FALSE;

  /* the transformer: double blocks with the embedders, single blocks;
   * a full checkpoint may hold the VAE and text encoders too */
  counts[0] = group (d, "double_blocks") + group (d, "other") + group (d, "unet");
  counts[1] = group (d, "single_blocks");
  counts[2] = group (d, "vae");
  counts[3] = group (d, "text_encoder");
  counts[4] = group (d, "text_encoder_2");
  set_counts (model, counts, 5);

  c = component_object (model, 0);
  json_object_set_int_member (c, "layers", d->double_blocks);
  c = component_object (model, 1);
  json_object_set_int_member (c, "layers", d->single_blocks);
  if (d->hidden > 0 && d->hidden % 128 == 0 && d->hidden < (1u << 20))
    for (guint i = 0; i < 2; i++)
      {
        c = component_object (model, i);
        json_object_set_int_member (c, "hidden", d->hidden);
        json_object_set_int_member (c, "heads", d->hidden / 128);
        json_object_set_int_member (c, "intermediate", 4 * d->hidden);
      }

  hr_import_add_read (import, _("a Flux transformer: %u double-stream and %u single-stream "
                                "blocks, hidden %" PRIu64 ", from the tensor names"),
                      d->double_blocks, d->single_blocks, d->hidden);
  hr_import_add_note (import, _("%s: guidance embedding %s; heads of 128 channels, the MLP of "
                                "4 x hidden and 512 text tokens are %s's"),
                      base, d->guidance ? _("present ([dev])") : _("absent ([schnell])"),
                      base);
  if (counts[2] == 0)
    hr_import_add_note (import, _("the file holds no VAE and no text encoders: the estimate "
                                  "counts the transformer alone"));
  finish_model (import, g_steal_pointer (&model), name, base);
  return TRUE;
}

static gboolean
guess_unet_checkpoint (HrImport   *import,
                       const char *name)
{
  static const char * const bases[] = { "sd-1.5", "sd-2.1", "sdxl", NULL };
  HrImportDiffusion *d = import->diffusion;
  guint64 unet = group (d, "unet");

  for (guint i = 0; bases[i] != NULL; i++)
    {
      g_autoptr(JsonObject) model = catalog_copy (bases[i]);
      guint64 counts[4] = { 0 };
      guint64 known;

      if (model == NULL)
        continue;
      known = json_object_get_int_member (component_object (model, 0), "params");
      if (fabs ((double) unet - (double) known) > 0.005 * (double) known)
        continue;

      counts[0] = unet;
      counts[1] = group (d, "vae");
      counts[2] = group (d, "text_encoder");
      counts[3] = group (d, "text_encoder_2");
      set_counts (model, counts, 4);
      hr_import_add_read (import, _("a single-file Stable Diffusion checkpoint: U-Net %" PRIu64
                                    ", VAE %" PRIu64 ", text encoders %" PRIu64
                                    " parameters"),
                          unet, counts[1], counts[2] + counts[3]);
      hr_import_add_note (import, _("the U-Net's %" PRIu64 " parameters are %s's (%" PRIu64
                                    "): its architecture is used"), unet, bases[i], known);
      if (counts[1] == 0 || counts[2] == 0)
        hr_import_add_note (import, _("the file lacks the VAE or a text encoder: the estimate "
                                      "counts what it holds"));
      finish_model (import, g_steal_pointer (&model), name, bases[i]);
      return TRUE;
    }

  hr_import_add_note (import, _("a Stable Diffusion-style U-Net of %" PRIu64 " parameters, "
                                "which no built-in U-Net has: import its diffusers folder for "
                                "an architecture"), unet);
  return FALSE;
}

gboolean
hr_import_diffusers_guess (HrImport   *import,
                           const char *name)
{
  HrImportDiffusion *d;

  g_return_val_if_fail (import != NULL, FALSE);

  d = import->diffusion;
  if (d == NULL || import->model != NULL)
    return FALSE;

  if (group (d, "lora_unet") + group (d, "lora_te") > import->params / 2)
    return guess_lora (import, name);
  if (d->double_blocks > 0 && d->single_blocks > 0)
    return guess_flux (import, name);
  if (group (d, "unet") > import->params / 2)
    {
      guess_unet_checkpoint (import, name);
      return TRUE;   /* told apart, even when no architecture fits */
    }
  return FALSE;
}

/* ---- Pipeline folders ---------------------------------------------------- */

static JsonNode *
int_node (gint64 v)
{
  JsonNode *n = json_node_new (JSON_NODE_VALUE);

  json_node_set_int (n, v);
  return n;
}

/* An integer member, or each element of an array member (diffusers writes
 * attention_head_dim and transformer_layers_per_block either way). */
static guint
int_at (JsonObject *o,
        const char *key,
        guint       index,
        guint       fallback)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return fallback;
  if (JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);

      if (index >= json_array_get_length (a))
        return fallback;
      n = json_array_get_element (a, index);
    }
  if (!JSON_NODE_HOLDS_VALUE (n) || (json_node_get_value_type (n) != G_TYPE_INT64 &&
                                     json_node_get_value_type (n) != G_TYPE_DOUBLE))
    return fallback;
  return (guint) CLAMP (json_node_get_double (n), 0, 1 << 20);
}

static gboolean
bool_at (JsonObject *o,
         const char *key,
         gboolean    fallback)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) ||
      json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return fallback;
  return json_node_get_boolean (n);
}

static const char *
string_at (JsonObject *o,
           const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static JsonArray *
uint_array (const guint *values,
            guint        n)
{
  JsonArray *a = json_array_new ();

  for (guint i = 0; i < n; i++)
    json_array_add_int_element (a, values[i]);
  return a;
}

/* UNet2DConditionModel's (and ControlNetModel's) config as an "arch" */
static JsonObject *
unet_arch (JsonObject *config,
           gboolean    controlnet)
{
  JsonObject *arch = json_object_new ();
  JsonArray *blocks = json_object_get_array_member (config, "down_block_types");
  guint widths[HR_ARCH_MAX_STAGES], heads[HR_ARCH_MAX_STAGES], layers[HR_ARCH_MAX_STAGES];
  guint n = MIN (json_array_get_length (blocks), HR_ARCH_MAX_STAGES);
  const char *mid = string_at (config, "mid_block_type");

  for (guint i = 0; i < n; i++)
    {
      const char *type = json_array_get_string_element (blocks, i);

      widths[i] = int_at (config, "block_out_channels", i, 320);
      /* diffusers names the head count attention_head_dim (a legacy
       * misnomer, models/unets/unet_2d_condition.py: "num_attention_heads =
       * num_attention_heads or attention_head_dim") */
      heads[i] = int_at (config, "num_attention_heads", i,
                         int_at (config, "attention_head_dim", i, 8));
      layers[i] = type != NULL && strstr (type, "CrossAttn") != NULL
                    ? int_at (config, "transformer_layers_per_block", i, 1) : 0;
    }

  json_object_set_string_member (arch, "type", "unet");
  json_object_set_array_member (arch, "widths", uint_array (widths, n));
  json_object_set_array_member (arch, "heads", uint_array (heads, n));
  json_object_set_array_member (arch, "transformer_layers", uint_array (layers, n));
  json_object_set_member (arch, "layers_per_block",
                          int_node (int_at (config, "layers_per_block", 0, 2)));
  json_object_set_member (arch, "in_channels", int_node (int_at (config, "in_channels", 0, 4)));
  json_object_set_member (arch, "out_channels",
                          int_node (int_at (config, "out_channels", 0, 4)));
  json_object_set_member (arch, "cross_attention_dim",
                          int_node (int_at (config, "cross_attention_dim", 0, 768)));
  json_object_set_boolean_member (arch, "linear_projection",
                                  bool_at (config, "use_linear_projection", FALSE));
  json_object_set_boolean_member (arch, "addition_embed",
                                  g_strcmp0 (string_at (config, "addition_embed_type"),
                                             "text_time") == 0);
  json_object_set_boolean_member (arch, "mid_attention",
                                  mid == NULL || strstr (mid, "CrossAttn") != NULL);
  if (controlnet)
    json_object_set_boolean_member (arch, "controlnet", TRUE);
  json_object_set_string_member (arch, "source", "the component's config.json");
  return arch;
}

static JsonObject *
vae_arch (JsonObject *config)
{
  JsonObject *arch = json_object_new ();
  guint widths[HR_ARCH_MAX_STAGES];
  JsonNode *b = json_object_get_member (config, "block_out_channels");
  guint n = b != NULL && JSON_NODE_HOLDS_ARRAY (b)
              ? MIN (json_array_get_length (json_node_get_array (b)), HR_ARCH_MAX_STAGES) : 0;

  if (n == 0)
    {
      json_object_unref (arch);
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    widths[i] = int_at (config, "block_out_channels", i, 128);
  json_object_set_string_member (arch, "type", "vae");
  json_object_set_array_member (arch, "widths", uint_array (widths, n));
  json_object_set_member (arch, "out_channels",
                          int_node (int_at (config, "latent_channels", 0, 4)));
  json_object_set_member (arch, "layers_per_block",
                          int_node (int_at (config, "layers_per_block", 0, 2)));
  json_object_set_member (arch, "latent_scale", int_node (1u << (n - 1)));
  json_object_set_boolean_member (arch, "quant_conv", bool_at (config, "use_quant_conv", TRUE));
  json_object_set_string_member (arch, "source", "the component's config.json");
  return arch;
}

/* A text encoder (CLIPTextModel, T5EncoderModel...) or a DiT/MMDiT
 * transformer as a transformer part; NULL when the config has no shape. */
static JsonObject *
transformer_part (JsonObject *config,
                  const char *cls,
                  gboolean    denoiser,
                  guint       latent_scale,
                  GPtrArray  *notes)
{
  JsonObject *c = json_object_new ();
  guint layers = int_at (config, "num_hidden_layers", 0,
                         int_at (config, "num_layers", 0, 0));
  guint hidden = int_at (config, "hidden_size", 0, int_at (config, "d_model", 0, 0));
  guint heads = int_at (config, "num_attention_heads", 0, int_at (config, "num_heads", 0, 0));
  guint head_dim = int_at (config, "attention_head_dim", 0, int_at (config, "d_kv", 0, 0));
  guint inter = int_at (config, "intermediate_size", 0, int_at (config, "d_ff", 0,
                        int_at (config, "ffn_dim", 0, 0)));
  const char *ff = string_at (config, "feed_forward_proj");

  if (hidden == 0 && heads > 0 && head_dim > 0)
    hidden = heads * head_dim;
  if (hidden == 0 && int_at (config, "dim", 0, 0) > 0)
    hidden = int_at (config, "dim", 0, 0);
  if (layers == 0 || hidden == 0 || heads == 0)
    {
      json_object_unref (c);
      return NULL;
    }
  if (inter == 0)
    inter = (guint) (hidden * (json_object_has_member (config, "mlp_ratio")
                                 ? json_object_get_double_member (config, "mlp_ratio") : 4.0));

  json_object_set_string_member (c, "kind", "transformer");
  json_object_set_member (c, "layers", int_node (layers));
  json_object_set_member (c, "hidden", int_node (hidden));
  json_object_set_member (c, "heads", int_node (heads));
  if (head_dim > 0 && head_dim * heads != hidden)
    json_object_set_member (c, "head_dim", int_node (head_dim));
  json_object_set_member (c, "intermediate", int_node (inter));
  json_object_set_boolean_member (c, "glu", ff != NULL && g_str_has_prefix (ff, "gated"));
  json_object_set_string_member (c, "norm", ff != NULL ? "rmsnorm" : "layernorm");
  if (ff != NULL)
    json_object_set_string_member (c, "attention_variant", "t5");

  if (denoiser)
    {
      /* image tokens: pixels / (VAE scale x patch); video: latent frames */
      guint patch = MAX (1, int_at (config, "patch_size", 0, 2));

      if (patch == 1 && strstr (cls, "Flux") != NULL)
        patch = 2;   /* Flux packs 2x2 latents into each token */
      json_object_set_member (c, "patch", int_node (patch * latent_scale));
      if (strstr (cls, "3D") != NULL)
        {
          json_object_set_member (c, "temporal_compression", int_node (4));
          g_ptr_array_add (notes, g_strdup_printf (
            _("%s: 4 frames per latent frame assumed (the video VAE's compression)"), cls));
        }
      if (json_object_has_member (config, "joint_attention_dim") ||
          json_object_has_member (config, "text_embed_dim"))
        {
          json_object_set_member (c, "extra_tokens", int_node (512));
          g_ptr_array_add (notes, g_strdup_printf (
            _("%s: joint attention over 512 text tokens assumed (the pipelines' longest "
              "default prompt)"), cls));
        }
    }
  else
    json_object_set_member (c, "tokens", int_node (int_at (config, "max_position_embeddings",
                                                           0, 77)));
  return c;
}

/* The exact count of one component's weights, 0 without any. */
static guint64
component_weights (HrImport   *import,
                   const char *dir,
                   GError    **error)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(HrImport) w = hr_import_new (HR_IMPORT_SAFETENSORS, dir);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char *entry;
  g_autofree char *index = NULL;
  gboolean fp16_variant = FALSE;

  if (d == NULL)
    return 0;
  while ((entry = g_dir_read_name (d)) != NULL)
    {
      if (g_str_has_suffix (entry, ".safetensors.index.json") && index == NULL &&
          strstr (entry, ".fp16.") == NULL)
        index = g_build_filename (dir, entry, NULL);
      else if (g_str_has_suffix (entry, ".safetensors"))
        g_ptr_array_add (files, g_strdup (entry));
    }
  g_ptr_array_sort (files, (GCompareFunc) g_strcmp0);

  if (index != NULL)
    {
      if (!hr_import_safetensors_add_index (w, index, error))
        return G_MAXUINT64;
    }
  else
    {
      /* repositories hold one weights file per variant (".fp16."): one
       * set is counted */
      for (guint i = 0; i < files->len; i++)
        fp16_variant |= strstr (g_ptr_array_index (files, i), ".fp16.") == NULL;
      for (guint i = 0; i < files->len; i++)
        {
          const char *name = g_ptr_array_index (files, i);
          g_autofree char *path = g_build_filename (dir, name, NULL);

          if (fp16_variant && strstr (name, ".fp16.") != NULL)
            continue;
          if (!hr_import_safetensors_add_file (w, path, error))
            return G_MAXUINT64;
          hr_import_add_read (import, _("%s: safetensors header"), path);
        }
    }
  hr_import_finish_dtypes (w);
  hr_import_merge_dtypes (import, w);
  return w->params;
}

/* The pipeline's component names, sorted, the VAE first: its depth gives
 * the latent scale the denoiser reads. */
static GList *
component_names (JsonObject *index)
{
  GList *names = json_object_get_members (index);

  names = g_list_sort (names, (GCompareFunc) g_strcmp0);
  for (GList *l = names; l != NULL; l = l->next)
    if (g_str_has_prefix (l->data, "vae"))
      {
        names = g_list_remove_link (names, l);
        names = g_list_concat (l, names);
        break;
      }
  return names;
}

/* TRUE for a component no training script counts (a scheduler, a
 * tokenizer, a safety checker...), with a note where it holds weights. */
static gboolean
component_not_counted (const char *name,
                       const char *cls,
                       GPtrArray  *notes)
{
  if (strstr (cls, "Scheduler") != NULL || strstr (cls, "Tokenizer") != NULL ||
      strstr (cls, "Processor") != NULL || strstr (cls, "FeatureExtractor") != NULL ||
      strstr (cls, "SafetyChecker") != NULL)
    {
      if (strstr (cls, "SafetyChecker") != NULL)
        g_ptr_array_add (notes, g_strdup_printf (
          _("%s (%s) is not counted: training scripts do not load it"), name, cls));
      return TRUE;
    }
  return FALSE;
}

/* The component's config.json, an object; NULL with @error set. */
static HrJsonDoc *
component_config (const char  *config_path,
                  const char  *name,
                  GError     **error)
{
  g_autoptr(HrJsonDoc) config_doc = NULL;
  g_autoptr(GError) config_error = NULL;

  /* A folder fails whole: a component the pipeline lists whose
   * config cannot be read (missing, a pipe, a device, a loop,
   * unreadable, broken) is an error naming the file, as a broken
   * model_index.json is; leaving it out would import the pipeline
   * without its U-Net and still say the denoiser trains. */
  config_doc = hr_json_doc_load_file (config_path, &config_error);
  if (config_doc == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&config_error));
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (hr_json_doc_get_root (config_doc)))
    {
      g_autofree char *shown = hr_text_printable (config_path, -1);

      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: %s's config is not a JSON object"), shown, name);
      return NULL;
    }
  return g_steal_pointer (&config_doc);
}

/* The part for component @name of class @cls (its "arch" in *@arch when
 * it has one), NULL when its config gives no shape; a U-Net that takes a
 * ControlNet's residuals stops being the denoiser (*@denoiser), and a
 * VAE sets the *@latent_scale the denoiser after it reads. */
static JsonObject *
component_part (JsonObject  *config,
                const char  *name,
                const char  *cls,
                gboolean     controlnet,
                gboolean    *denoiser,
                guint       *latent_scale,
                JsonObject **arch,
                GPtrArray   *notes)
{
  JsonObject *part = NULL;

  if (g_str_has_prefix (cls, "UNet2DCondition") || g_str_has_prefix (cls, "ControlNet"))
    {
      *arch = unet_arch (config, g_str_has_prefix (cls, "ControlNet"));
      part = json_object_new ();
      json_object_set_string_member (part, "kind", "unet");
      if (controlnet && g_str_equal (name, "unet"))
        {
          json_object_set_boolean_member (*arch, "controlnet_residuals", TRUE);
          json_object_set_boolean_member (part, "backprop", TRUE);
          *denoiser = FALSE;
        }
    }
  else if (g_str_has_prefix (cls, "AutoencoderKL") || g_str_has_prefix (cls, "Autoencoder"))
    {
      *arch = vae_arch (config);
      if (*arch != NULL)
        {
          part = json_object_new ();
          json_object_set_string_member (part, "kind", "cnn");
          *latent_scale = int_at (config, "spatial_compression_ratio", 0,
                                  1u << (MAX (1, json_array_get_length (
                                           json_object_get_array_member (
                                             config, "block_out_channels"))) - 1));
          json_object_set_member (*arch, "latent_scale", int_node (*latent_scale));
          if (strstr (cls, "3D") != NULL || strstr (cls, "Video") != NULL ||
              strstr (cls, "Wan") != NULL || strstr (cls, "CogVideoX") != NULL)
            {
              json_object_set_member (*arch, "temporal_compression", int_node (4));
              json_object_set_member (*arch, "frames_per_chunk", int_node (4));
            }
        }
    }
  else
    part = transformer_part (config, cls, *denoiser, *latent_scale, notes);
  return part;
}

/* The parameters of a component with no weights in its folder, counted
 * from its @arch's shapes; G_MAXUINT64 with @error set when the shape
 * cannot be read. */
static guint64
component_params_from_arch (JsonObject  *arch,
                            const char  *config_path,
                            const char  *name,
                            GPtrArray   *notes,
                            GError     **error)
{
  g_autoptr(HrJsonDoc) arch_doc = NULL;
  JsonObject *holder = json_object_new ();
  JsonNode *holder_node;
  HrReader reader;
  g_autoptr(HrArch) parsed = NULL;
  g_autoptr(GError) arch_error = NULL;
  guint64 params;

  json_object_set_object_member (holder, "arch", json_object_ref (arch));
  holder_node = json_node_init_object (json_node_alloc (), holder);
  arch_doc = hr_json_doc_new_for_node (config_path, holder_node);
  json_node_unref (holder_node);
  json_object_unref (holder);
  if (hr_reader_init (&reader, arch_doc, "", hr_json_doc_get_root (arch_doc), "arch",
                      &arch_error))
    {
      parsed = hr_arch_read (&reader, "arch");
      hr_reader_clear (&reader);
    }
  /* a shape out of range (a negative or huge layer count) is the
   * config's error, not a part to leave out */
  if (parsed == NULL)
    {
      g_autofree char *shown = hr_text_printable (config_path, -1);

      if (arch_error != NULL)
        g_propagate_error (error, g_steal_pointer (&arch_error));
      else
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                     _("%s: %s's shape cannot be read"), shown, name);
      return G_MAXUINT64;
    }
  else
    {
      HrArchRun run = { 512, 512, 1, 4, 4, 4, FALSE, TRUE, TRUE, FALSE, FALSE, 0,
                        FALSE };
      g_autoptr(HrArchResult) res = hr_arch_walk (parsed, &run);

      params = res->params;
      g_ptr_array_add (notes, g_strdup_printf (
        _("%s: no weights in its folder, %" PRIu64 " parameters counted from its "
          "config's shapes"), name, params));
    }
  return params;
}

/* The parameters of component @name: from its weights' headers, else
 * its shapes, else its transformers config; G_MAXUINT64 with @error set
 * when none gives a count.  *@all_weights is cleared when the count is
 * not from weights. */
static guint64
component_params (HrImport    *import,
                  const char  *dir,
                  const char  *config_path,
                  const char  *name,
                  JsonObject  *arch,
                  gboolean    *all_weights,
                  GPtrArray   *notes,
                  GError     **error)
{
  guint64 params = component_weights (import, dir, error);

  if (params == G_MAXUINT64)
    return G_MAXUINT64;
  *all_weights &= params > 0;
  if (params == 0 && arch != NULL)
    {
      /* no weights: the architecture's own count */
      params = component_params_from_arch (arch, config_path, name, notes, error);
      if (params == G_MAXUINT64)
        return G_MAXUINT64;
    }
  if (params == 0 && arch == NULL)
    {
      /* a text encoder's config.json is a transformers config */
      g_autoptr(HrImport) hf = hr_import_hf_config_load (config_path, NULL);

      if (hf != NULL && hf->params > 0)
        {
          params = hf->params;
          g_ptr_array_add (notes, g_strdup_printf (
            _("%s: no weights in its folder, %" PRIu64 " parameters computed from its "
              "config.json"), name, params));
        }
    }
  if (params == 0)
    {
      g_autofree char *shown = hr_text_printable (config_path, -1);

      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: %s has no weights in its folder and its config gives no "
                     "parameter count Headroom reads"), shown, name);
      return G_MAXUINT64;
    }
  return params;
}

/* What a diffusers pipeline folder is read into, one component at a
 * time. */
typedef struct {
  HrImport   *import;
  const char *path;
  JsonArray  *components;
  GPtrArray  *notes;
  gboolean    controlnet;
  gboolean    video;
  gboolean    all_weights;
  guint       latent_scale;
  guint64     total;
} Pipeline;

/* Adds component @name of model_index.json (@entry: [library, class]) to
 * @pipeline, or leaves it out with a note; FALSE with @error set when
 * the folder cannot be imported. */
static gboolean
add_component (Pipeline    *pipeline,
               const char  *name,
               JsonNode    *entry,
               GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *config_path = NULL;
  g_autoptr(HrJsonDoc) config_doc = NULL;
  JsonObject *config, *part = NULL, *arch = NULL;
  const char *cls;
  gboolean denoiser;
  guint64 params;

  if (name[0] == '_' || entry == NULL || !JSON_NODE_HOLDS_ARRAY (entry) ||
      json_array_get_length (json_node_get_array (entry)) < 2 ||
      (cls = json_array_get_string_element (json_node_get_array (entry), 1)) == NULL)
    return TRUE;
  if (component_not_counted (name, cls, pipeline->notes))
    return TRUE;

  dir = g_build_filename (pipeline->path, name, NULL);
  config_path = g_build_filename (dir, "config.json", NULL);
  config_doc = component_config (config_path, name, error);
  if (config_doc == NULL)
    return FALSE;
  config = json_node_get_object (hr_json_doc_get_root (config_doc));
  hr_import_add_read (pipeline->import, _("%s: %s's shape"), config_path, cls);

  denoiser = g_str_equal (name, "unet") || g_str_equal (name, "transformer") ||
             g_str_equal (name, "controlnet");
  pipeline->video |= strstr (cls, "3D") != NULL || strstr (cls, "Video") != NULL;

  part = component_part (config, name, cls, pipeline->controlnet, &denoiser,
                         &pipeline->latent_scale, &arch, pipeline->notes);

  if (part == NULL && denoiser)
    {
      g_autofree char *shown = hr_text_printable (config_path, -1);

      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: the denoiser %s (%s) has no shape Headroom reads, so the "
                     "pipeline cannot be counted without it"), shown, name, cls);
      return FALSE;
    }
  if (part == NULL)
    {
      g_ptr_array_add (pipeline->notes, g_strdup_printf (
        _("%s (%s): its config gives no shape Headroom reads, left out"), name, cls));
      return TRUE;
    }
  if (arch != NULL)
    json_object_set_object_member (part, "arch", arch);

  params = component_params (pipeline->import, dir, config_path, name, arch,
                             &pipeline->all_weights, pipeline->notes, error);
  if (params == G_MAXUINT64)
    {
      json_object_unref (part);
      return FALSE;
    }

  json_object_set_string_member (part, "name", name);
  json_object_set_int_member (part, "params", params);
  json_object_set_boolean_member (part, "trainable",
                                  pipeline->controlnet ? g_str_equal (name, "controlnet")
                                                       : denoiser);
  json_array_add_object_element (pipeline->components, part);
  pipeline->total += params;
  return TRUE;
}

/* The model object of the pipeline read into @pipeline, which gives it
 * its components. */
static JsonObject *
pipeline_model (Pipeline   *pipeline,
                const char *base)
{
  g_autofree char *id = hr_import_make_id (base);
  g_autofree char *path = hr_import_clip (pipeline->path);
  g_autofree char *name = hr_import_clip (base);
  g_autofree char *source = NULL;
  JsonObject *model;

  source = g_strdup_printf ("Imported by Headroom from the diffusers pipeline %s "
                            "(model_index.json and each component's config.json; counts from "
                            "the weights' headers where present)", path);
  model = json_object_new ();
  json_object_set_string_member (model, "id", id);
  json_object_set_string_member (model, "name", name);
  json_object_set_string_member (model, "family", pipeline->video ? "video" : "diffusion");
  json_object_set_int_member (model, "params", pipeline->total);
  json_object_set_string_member (model, "framework", "pytorch");
  json_object_set_string_member (model, "source", source);
  json_object_set_array_member (model, "components", g_steal_pointer (&pipeline->components));
  json_object_set_member (model, "image_size", int_node (512));
  if (pipeline->controlnet)
    json_object_set_string_member (model, "method", "freeze");
  return model;
}

HrImport *
hr_import_diffusers_folder (const char  *path,
                            GError     **error)
{
  g_autofree char *index_path = g_build_filename (path, "model_index.json", NULL);
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (index_path, error);
  g_autoptr(HrImport) import = NULL;
  g_autoptr(GList) names = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Pipeline pipeline = { 0 };
  JsonObject *model, *index;
  g_autofree char *base = g_path_get_basename (path);
  const char *pipeline_class;

  if (doc == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (hr_json_doc_get_root (doc)))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, "", FALSE,
                         _("model_index.json must be an object of the pipeline's components"));
      return NULL;
    }

  import = hr_import_new (HR_IMPORT_FOLDER, path);
  index = json_node_get_object (hr_json_doc_get_root (doc));
  pipeline_class = string_at (index, "_class_name");
  import->model_type = g_strdup (pipeline_class);
  hr_import_add_read (import, _("%s: the pipeline's components"), index_path);

  pipeline.import = import;
  pipeline.path = path;
  pipeline.components = json_array_new ();
  pipeline.notes = notes;
  pipeline.controlnet = json_object_has_member (index, "controlnet");
  pipeline.all_weights = TRUE;
  pipeline.latent_scale = 8;

  names = component_names (index);
  for (GList *l = names; l != NULL; l = l->next)
    if (!add_component (&pipeline, l->data, json_object_get_member (index, l->data), error))
      {
        json_array_unref (pipeline.components);
        return NULL;
      }

  if (json_array_get_length (pipeline.components) == 0)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: no component of the pipeline has a shape Headroom reads"), path);
      json_array_unref (pipeline.components);
      return NULL;
    }

  model = pipeline_model (&pipeline, base);
  import->model = json_node_init_object (json_node_alloc (), model);
  json_object_unref (model);

  hr_import_finish_dtypes (import);
  import->params = pipeline.total;
  import->params_exact = pipeline.all_weights;
  for (guint i = 0; i < notes->len; i++)
    hr_import_add_note (import, "%s", (char *) g_ptr_array_index (notes, i));
  hr_import_add_note (import, _("the pipeline's denoiser trains, its VAE and text encoders stay "
                                "frozen, as diffusers' training scripts have them"));
  return g_steal_pointer (&import);
}
