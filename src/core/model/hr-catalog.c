/* hr-catalog.c: models and GPUs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-catalog"

#include <glib/gi18n-lib.h>

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "hr-catalog.h"
#include "hr-file.h"
#include "hr-reader.h"

#define RESOURCE_PREFIX "/io/github/vramlab/Headroom/core/"

/* Bounds that catch a typo (an extra zero, bytes for GiB) rather than limit
 * real models: 10^13 parameters, 10^6 layers, 2^24 hidden units. */
#define MAX_PARAMS     G_GUINT64_CONSTANT (10000000000000)
#define MAX_LAYERS     1000000
#define MAX_HIDDEN     (1u << 24)
#define MAX_TOKENS     (1u << 26)
#define MAX_IMAGE_SIDE 65536

const HrEnumName hr_component_kind_names[] = {
  { HR_COMPONENT_TRANSFORMER, "transformer" },
  { HR_COMPONENT_CNN, "cnn" },
  { HR_COMPONENT_UNET, "unet" },
  { HR_COMPONENT_RSSM, "rssm" },
  { HR_COMPONENT_MLP, "mlp" },
  { HR_COMPONENT_WEIGHTS_ONLY, "weights-only" },
  { 0, NULL },
};

static const HrEnumName scaling_names[] = {
  { HR_SCALING_PIXELS, "pixels" },
  { HR_SCALING_SEQ, "seq" },
  { HR_SCALING_NONE, "none" },
  { 0, NULL },
};

static const HrEnumName act_dtype_names[] = {
  { HR_DTYPE_FP32, "fp32" },
  { HR_DTYPE_BF16, "bf16" },
  { HR_DTYPE_FP16, "fp16" },
  { 0, NULL },
};

const HrEnumName hr_attention_variant_names[] = {
  { HR_ATTENTION_VARIANT_STANDARD, "standard" },
  { HR_ATTENTION_VARIANT_T5, "t5" },
  { HR_ATTENTION_VARIANT_DEBERTA, "deberta" },
  { HR_ATTENTION_VARIANT_MATH, "math" },
  { 0, NULL },
};

static const HrEnumName norm_names[] = {
  { TRUE, "rmsnorm" },
  { FALSE, "layernorm" },
  { 0, NULL },
};

static const char * const families[] = {
  "llm", "vlm", "encoder", "vla", "world-model", "cnn", "detection", "segmentation",
  "diffusion", "video", "speech", "other", NULL
};

#define SHAPE_KEYS \
  "kind", "layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", \
  "vocab", "glu", "norm", "dropout", "tied_embeddings", "max_seq_len", "tokens", \
  "patch", "images", "token_merge", "activation", "attention_variant", \
  "experts", "experts_per_token", "expert_intermediate", "shared_experts", \
  "shared_expert_intermediate", "first_dense_layers", "q_lora_rank", \
  "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", \
  "arch", "temporal_compression", "extra_tokens", "cross_attention_tokens", \
  "single_stream"

static const char * const model_keys[] = {
  "id", "name", "family", "params", "framework", "source", "seq_len",
  "image_size", "micro_batch", "method", "compute", "components", "frames",
  "audio_seconds", SHAPE_KEYS, NULL
};

static const char * const shape_keys[] = { SHAPE_KEYS, NULL };

static const char * const component_keys[] = {
  "name", "params", "trainable", "backprop", "source", SHAPE_KEYS, NULL
};

static const char * const activation_keys[] = {
  "bytes_per_sample", "dtype", "at_image_size", "at_seq_len", "scales_with",
  "from_peak", "source", "spread", NULL
};

static const char * const from_peak_keys[] = {
  "bytes", "micro_batch", "metric", NULL
};

static const char * const gpu_keys[] = {
  "id", "name", "vendor", "tier", "memory", "memory_nominal_gb", "bandwidth",
  "fp32_tflops", "tf32_tflops", "bf16_tflops", "tdp_watts", "price_usd",
  "cloud_usd_per_hour", "price_as_of", "used_price_usd", "used_price_as_of", "source", NULL
};

HrComponent *
hr_component_copy (const HrComponent *component)
{
  HrComponent *copy;

  g_return_val_if_fail (component != NULL, NULL);

  copy = g_memdup2 (component, sizeof *component);
  copy->name = g_strdup (component->name);
  copy->act_source = g_strdup (component->act_source);
  copy->arch = component->arch != NULL ? hr_arch_copy (component->arch) : NULL;
  return copy;
}

void
hr_component_free (HrComponent *component)
{
  if (component == NULL)
    return;

  g_free (component->name);
  g_free (component->act_source);
  hr_arch_free (component->arch);
  g_free (component);
}

HrModel *
hr_model_copy (const HrModel *model)
{
  HrModel *copy;

  g_return_val_if_fail (model != NULL, NULL);

  copy = g_memdup2 (model, sizeof *model);
  copy->id = g_strdup (model->id);
  copy->name = g_strdup (model->name);
  copy->family = g_strdup (model->family);
  copy->source = g_strdup (model->source);
  copy->json = model->json != NULL ? json_node_ref (model->json) : NULL;
  copy->components = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_component_free);
  for (guint i = 0; i < model->components->len; i++)
    g_ptr_array_add (copy->components,
                     hr_component_copy (g_ptr_array_index (model->components, i)));

  return copy;
}

void
hr_model_free (HrModel *model)
{
  if (model == NULL)
    return;

  g_free (model->id);
  g_free (model->name);
  g_free (model->family);
  g_free (model->source);
  g_clear_pointer (&model->components, g_ptr_array_unref);
  g_clear_pointer (&model->json, json_node_unref);
  g_free (model);
}

guint64
hr_model_trainable_default (const HrModel *model)
{
  guint64 sum = 0;

  for (guint i = 0; i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);

      if (c->trainable)
        sum += c->params;
    }

  return sum;
}

guint
hr_component_tokens_video (const HrComponent *component,
                           guint              seq_len,
                           guint              image_width,
                           guint              image_height,
                           guint              frames)
{
  guint64 tokens;

  if (component->tokens_from != HR_TOKENS_PATCHES || component->temporal_compression == 0)
    tokens = hr_component_tokens (component, seq_len, image_width, image_height);
  else
    {
      /* a causal video VAE keeps the first frame and compresses the rest:
       * 1 + (frames - 1) / compression latent frames (CogVideoX, Wan, LTX) */
      guint64 latent = 1 + (MAX (frames, 1) - 1) / component->temporal_compression;
      guint64 per_frame = (guint64) (image_width / component->patch) *
                          (image_height / component->patch);

      tokens = MAX (1, per_frame) * latent * MAX (1, component->images);
    }
  if (component->tokens_from == HR_TOKENS_PATCHES)
    tokens += component->extra_tokens;
  return (guint) MIN ((guint64) G_MAXUINT, tokens);
}

guint
hr_component_tokens (const HrComponent *component,
                     guint              seq_len,
                     guint              image_width,
                     guint              image_height)
{
  switch (component->tokens_from)
    {
    case HR_TOKENS_SEQ_LEN:
      return seq_len;
    case HR_TOKENS_FIXED:
      return component->tokens;
    case HR_TOKENS_PATCHES:
      {
        guint64 per_image = (guint64) (image_width / component->patch) *
                            (image_height / component->patch);

        per_image = MAX (1, per_image / MAX (1, component->token_merge));
        return (guint) MIN ((guint64) G_MAXUINT, per_image * MAX (1, component->images));
      }
    default:
      g_assert_not_reached ();
    }
}

gboolean
hr_model_is_language_model (const HrModel *model)
{
  return g_strcmp0 (model->family, "llm") == 0 || g_strcmp0 (model->family, "vlm") == 0;
}

gboolean
hr_component_is_moe (const HrComponent *c)
{
  return c->kind == HR_COMPONENT_TRANSFORMER && c->experts > 0;
}

gboolean
hr_component_is_mla (const HrComponent *c)
{
  return c->kind == HR_COMPONENT_TRANSFORMER && c->kv_lora_rank > 0;
}

guint
hr_component_moe_layers (const HrComponent *c)
{
  if (!hr_component_is_moe (c))
    return 0;
  return c->layers - MIN (c->layers, c->first_dense_layers);
}

guint64
hr_component_attention_params (const HrComponent *c)
{
  guint64 h = c->hidden, heads = c->heads;

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return 0;

  if (hr_component_is_mla (c))
    {
      /* DeepSeek-V3's MLA (deepseek-ai/DeepSeek-V3 inference/model.py
       * @9b4e978, class MLA; Megatron's theoretical_memory_usage.py counts
       * the same): wq_a (h x q_lora) and wq_b (q_lora x heads x qk_head),
       * or one wq without q_lora; wkv_a (h x (kv_lora + rope)); wkv_b
       * (kv_lora x heads x (nope + v)); wo (heads x v x h).  head_dim is
       * nope + rope. */
      guint64 qk = c->head_dim, nope = c->head_dim - c->qk_rope_head_dim;
      guint64 q = c->q_lora_rank > 0
                    ? h * c->q_lora_rank + (guint64) c->q_lora_rank * heads * qk
                    : h * heads * qk;

      return q + h * ((guint64) c->kv_lora_rank + c->qk_rope_head_dim) +
             (guint64) c->kv_lora_rank * heads * (nope + c->v_head_dim) +
             heads * c->v_head_dim * h;
    }

  /* query, key and value (kv_heads of them under GQA), output */
  return h * heads * c->head_dim + 2 * h * (guint64) c->kv_heads * c->head_dim +
         heads * c->v_head_dim * h;
}

static guint64
mlp_block_params (const HrComponent *c,
                  guint64            width)
{
  return (c->glu ? 3 : 2) * (guint64) c->hidden * width;
}

guint64
hr_component_expert_params (const HrComponent *c)
{
  guint experts;

  if (!hr_component_is_moe (c))
    return 0;
  experts = c->experts_local > 0 ? c->experts_local : c->experts;
  return (guint64) hr_component_moe_layers (c) * experts *
         mlp_block_params (c, c->expert_intermediate);
}

guint64
hr_component_mlp_params (const HrComponent *c)
{
  guint moe;

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return 0;
  if (!hr_component_is_moe (c))
    return (guint64) c->layers * mlp_block_params (c, c->intermediate);

  /* Mixtral, Qwen3-MoE and DeepSeek-V3: a bias-free linear router of
   * hidden x experts, the routed experts, the shared experts; the first
   * first_dense_layers layers are dense (DeepSeek's first_k_dense_replace) */
  moe = hr_component_moe_layers (c);
  return (guint64) (c->layers - moe) * mlp_block_params (c, c->intermediate) +
         hr_component_expert_params (c) +
         (guint64) moe * ((guint64) c->shared_experts *
                          mlp_block_params (c, c->shared_expert_intermediate) +
                          (guint64) c->hidden * c->experts);
}

guint64
hr_component_linear_params (const HrComponent *c)
{
  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return 0;

  return hr_component_attention_params (c) * c->layers + hr_component_mlp_params (c);
}

guint64
hr_component_embedding_params (const HrComponent *c)
{
  if (c->kind != HR_COMPONENT_TRANSFORMER || c->vocab == 0)
    return 0;

  return (guint64) c->vocab * c->hidden * (c->tied_embeddings ? 1 : 2);
}

guint64
hr_component_norm_params (const HrComponent *c)
{
  guint64 per_norm, per_layer;

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return 0;

  /* a weight of `hidden` (and a LayerNorm's bias) before attention and
   * before the MLP, and the final norm; MLA normalises its two latents */
  per_norm = c->rmsnorm ? 1 : 2;
  per_layer = 2 * per_norm * c->hidden;
  if (hr_component_is_mla (c))
    per_layer += per_norm * ((guint64) c->q_lora_rank + c->kv_lora_rank);
  return per_layer * c->layers + per_norm * c->hidden;
}

guint64
hr_component_shape_params (const HrComponent *c)
{
  return hr_component_linear_params (c) + hr_component_embedding_params (c) +
         hr_component_norm_params (c);
}

guint64
hr_component_active_params (const HrComponent *c)
{
  guint64 all = hr_component_shape_params (c);

  if (!hr_component_is_moe (c) || c->experts == 0)
    return all;
  /* of the routed experts, experts_per_token per MoE layer */
  return all - hr_component_expert_params (c) +
         (guint64) hr_component_moe_layers (c) * c->experts_per_token *
         mlp_block_params (c, c->expert_intermediate);
}

static gboolean
read_activation (HrReader    *parent,
                 HrComponent *c)
{
  HrReader reader;
  g_autofree char *pointer = hr_reader_child_pointer (parent, "activation");
  gboolean ok = FALSE;
  int value;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, "activation"),
                       "\"activation\"", parent->error))
    return FALSE;

  if (!hr_reader_check_keys (&reader, activation_keys))
    goto out;

  if (!hr_reader_string (&reader, "source", FALSE, &c->act_source))
    goto out;

  c->has_activation = TRUE;
  c->act_dtype = HR_DTYPE_FP32;
  c->act_scaling = HR_SCALING_NONE;
  /* A measured per-sample figure is good to about the run-to-run variance
   * of its source (NVIDIA quotes 5-6% for GR00T) plus the input it was
   * measured on; 20% unless the entry says how uncertain it is. */
  c->act_spread = hr_reader_has (&reader, "from_peak") ? 0.15 : 0.20;
  if (!hr_reader_double (&reader, "spread", FALSE, 0.0, 0.95, &c->act_spread))
    goto out;

  if (hr_reader_has (&reader, "from_peak"))
    {
      HrReader peak;
      g_autofree char *peak_pointer = hr_reader_child_pointer (&reader, "from_peak");
      guint64 bytes = 0, batch = 0;

      if (hr_reader_has (&reader, "bytes_per_sample"))
        {
          hr_reader_fail (&reader, "from_peak",
                          _("\"activation\" takes either \"bytes_per_sample\" or \"from_peak\", "
                            "not both"));
          goto out;
        }

      if (!hr_reader_init (&peak, reader.doc, peak_pointer,
                           hr_reader_get_node (&reader, "from_peak"),
                           "\"from_peak\"", reader.error))
        goto out;

      value = HR_METRIC_DEVICE_USED;
      if (!hr_reader_check_keys (&peak, from_peak_keys) ||
          !hr_reader_uint (&peak, "bytes", TRUE, 1, G_MAXUINT64, &bytes) ||
          !hr_reader_uint (&peak, "micro_batch", TRUE, 1, 1 << 20, &batch) ||
          !hr_reader_require (&peak, "metric") ||
          !hr_reader_enum (&peak, "metric", hr_metric_names, &value))
        {
          hr_reader_clear (&peak);
          goto out;
        }
      hr_reader_clear (&peak);

      c->act_from_peak = TRUE;
      c->peak_bytes = bytes;
      c->peak_micro_batch = (guint) batch;
      c->peak_metric = value;
    }
  else
    {
      double bytes = 0;
      guint64 seq = 0;

      if (!hr_reader_double (&reader, "bytes_per_sample", TRUE, 0, 1e13, &bytes))
        goto out;
      c->act_bytes_per_sample = bytes;

      value = c->act_dtype;
      if (!hr_reader_enum (&reader, "dtype", act_dtype_names, &value))
        goto out;
      c->act_dtype = value;

      value = c->act_scaling;
      if (!hr_reader_enum (&reader, "scales_with", scaling_names, &value))
        goto out;
      c->act_scaling = value;

      if (!hr_reader_size (&reader, "at_image_size", MAX_IMAGE_SIDE, &c->act_ref_width,
                           &c->act_ref_height) ||
          !hr_reader_uint (&reader, "at_seq_len", FALSE, 1, MAX_TOKENS, &seq))
        goto out;
      c->act_ref_seq_len = (guint) seq;

      if (c->act_scaling == HR_SCALING_PIXELS && c->act_ref_width == 0)
        {
          hr_reader_fail (&reader, "scales_with",
                          _("\"scales_with\": \"pixels\" needs \"at_image_size\", the input size "
                            "the figure was measured at"));
          goto out;
        }
      if (c->act_scaling == HR_SCALING_SEQ && c->act_ref_seq_len == 0)
        {
          hr_reader_fail (&reader, "scales_with",
                          _("\"scales_with\": \"seq\" needs \"at_seq_len\", the sequence length "
                            "the figure was measured at"));
          goto out;
        }
    }

  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

/* The mixture-of-experts keys: all of them need "experts". */
static gboolean
read_experts (HrReader    *reader,
              HrComponent *c)
{
  static const char * const moe_keys[] = {
    "experts_per_token", "expert_intermediate", "shared_experts",
    "shared_expert_intermediate", "first_dense_layers", NULL
  };
  guint64 v = 0;

  if (!hr_reader_uint (reader, "experts", FALSE, 1, 1 << 16, &v))
    return FALSE;
  c->experts = v;

  if (c->experts == 0)
    {
      for (guint i = 0; moe_keys[i] != NULL; i++)
        if (hr_reader_has (reader, moe_keys[i]))
          return hr_reader_fail (reader, moe_keys[i],
                                 _("\"%s\" describes a mixture of experts: give \"experts\" "
                                   "too"), moe_keys[i]);
      return TRUE;
    }

  /* how many experts a token goes to is what its activations follow: no
   * default is guessed */
  if (!hr_reader_uint (reader, "experts_per_token", TRUE, 1, c->experts, &v))
    return FALSE;
  c->experts_per_token = v;

  v = c->intermediate;
  if (!hr_reader_uint (reader, "expert_intermediate", FALSE, 1, 16 * (guint64) MAX_HIDDEN, &v))
    return FALSE;
  c->expert_intermediate = v;

  v = 0;
  if (!hr_reader_uint (reader, "shared_experts", FALSE, 0, 1 << 16, &v))
    return FALSE;
  c->shared_experts = v;

  v = c->expert_intermediate;
  if (!hr_reader_uint (reader, "shared_expert_intermediate", FALSE, 1,
                       16 * (guint64) MAX_HIDDEN, &v))
    return FALSE;
  c->shared_expert_intermediate = v;

  v = 0;
  if (!hr_reader_uint (reader, "first_dense_layers", FALSE, 0, c->layers, &v))
    return FALSE;
  c->first_dense_layers = v;
  return TRUE;
}

/* Multi-head latent attention's keys: kv_lora_rank with the three head
 * widths, and q_lora_rank when the queries are compressed too. */
static gboolean
read_latent_attention (HrReader    *reader,
                       HrComponent *c)
{
  static const char * const mla_keys[] = {
    "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", NULL
  };
  guint64 kv_lora = 0, q_lora = 0, rope = 0, nope = 0, v_dim = 0;

  if (!hr_reader_uint (reader, "kv_lora_rank", FALSE, 1, MAX_HIDDEN, &kv_lora))
    return FALSE;
  if (kv_lora == 0)
    {
      for (guint i = 0; mla_keys[i] != NULL; i++)
        if (hr_reader_has (reader, mla_keys[i]))
          return hr_reader_fail (reader, mla_keys[i],
                                 _("\"%s\" describes latent attention: give \"kv_lora_rank\" "
                                   "too"), mla_keys[i]);
      return TRUE;
    }

  if (!hr_reader_uint (reader, "q_lora_rank", FALSE, 1, MAX_HIDDEN, &q_lora) ||
      !hr_reader_uint (reader, "qk_rope_head_dim", TRUE, 1, MAX_HIDDEN, &rope) ||
      !hr_reader_uint (reader, "qk_nope_head_dim", TRUE, 1, MAX_HIDDEN, &nope) ||
      !hr_reader_uint (reader, "v_head_dim", TRUE, 1, MAX_HIDDEN, &v_dim))
    return FALSE;

  if (hr_reader_has (reader, "head_dim") && c->head_dim != nope + rope)
    return hr_reader_fail (reader, "head_dim",
                           _("with latent attention \"head_dim\" is qk_nope_head_dim + "
                             "qk_rope_head_dim (%u), not %u"), (guint) (nope + rope), c->head_dim);
  if (hr_reader_has (reader, "kv_heads") && c->kv_heads != c->heads)
    return hr_reader_fail (reader, "kv_heads",
                           _("latent attention decompresses keys and values for every head: "
                             "\"kv_heads\" must equal \"heads\" or be left out"));

  c->kv_lora_rank = kv_lora;
  c->q_lora_rank = q_lora;
  c->qk_rope_head_dim = rope;
  c->head_dim = nope + rope;
  c->v_head_dim = v_dim;
  c->kv_heads = c->heads;
  return TRUE;
}

/* Whether any architecture key is given. */
static gboolean
has_shape (HrReader *reader)
{
  for (guint i = 0; shape_keys[i] != NULL; i++)
    if (hr_reader_has (reader, shape_keys[i]))
      return TRUE;
  return FALSE;
}

/* A weights-only part never trains: what its backward pass would keep
 * needs its shape.  It stays frozen unless the file says otherwise, which
 * is refused. */
static gboolean
check_weights_only (HrReader    *reader,
                    HrComponent *c)
{
  if (c->kind != HR_COMPONENT_WEIGHTS_ONLY)
    return TRUE;
  if ((hr_reader_has (reader, "trainable") && c->trainable) ||
      (hr_reader_has (reader, "backprop") && c->backprop))
    return hr_reader_fail (reader, hr_reader_has (reader, "trainable") && c->trainable
                                     ? "trainable" : "backprop",
                           _("\"%s\" is given by its parameter count alone, so it can only be "
                             "frozen: what a backward pass through it keeps needs its shape "
                             "(\"layers\", \"hidden\", \"heads\"), an \"arch\" or an "
                             "\"activation\" figure"), c->name);
  c->trainable = FALSE;
  c->backprop = FALSE;
  return TRUE;
}

/* The part's "kind", or the one its keys imply. */
static gboolean
read_kind (HrReader    *reader,
           HrComponent *c)
{
  int kind = -1;

  if (!hr_reader_enum (reader, "kind", hr_component_kind_names, &kind))
    return FALSE;

  if (kind < 0 && !has_shape (reader))
    kind = HR_COMPONENT_WEIGHTS_ONLY;
  if (kind < 0)
    kind = hr_reader_has (reader, "arch") ? HR_COMPONENT_CNN
           : hr_reader_has (reader, "layers") || !hr_reader_has (reader, "activation")
             ? HR_COMPONENT_TRANSFORMER : HR_COMPONENT_MLP;
  c->kind = kind;
  return TRUE;
}

/* A video or joint-attention transformer's extra tokens. */
static gboolean
read_extra_tokens (HrReader    *reader,
                   HrComponent *c)
{
  guint64 v = 0;

  if (!hr_reader_has (reader, "patch"))
    return hr_reader_fail (reader, hr_reader_has (reader, "extra_tokens")
                                     ? "extra_tokens" : "temporal_compression",
                           _("\"temporal_compression\" and \"extra_tokens\" need \"patch\""));
  v = 0;
  if (!hr_reader_uint (reader, "temporal_compression", FALSE, 1, 64, &v))
    return FALSE;
  c->temporal_compression = v;
  v = 0;
  if (!hr_reader_uint (reader, "extra_tokens", FALSE, 0, MAX_TOKENS, &v))
    return FALSE;
  c->extra_tokens = v;
  return TRUE;
}

/* A transformer's layers, widths and attention heads. */
static gboolean
read_transformer_widths (HrReader    *reader,
                         HrComponent *c)
{
  guint64 v = 0;

  if (!hr_reader_uint (reader, "layers", TRUE, 1, MAX_LAYERS, &v))
    return FALSE;
  c->layers = v;
  if (!hr_reader_uint (reader, "hidden", TRUE, 1, MAX_HIDDEN, &v))
    return FALSE;
  c->hidden = v;
  if (!hr_reader_uint (reader, "heads", TRUE, 1, MAX_HIDDEN, &v))
    return FALSE;
  c->heads = v;

  v = c->heads;
  if (!hr_reader_uint (reader, "kv_heads", FALSE, 1, c->heads, &v))
    return FALSE;
  c->kv_heads = v;
  if (c->heads % c->kv_heads != 0)
    return hr_reader_fail (reader, "kv_heads", _("\"kv_heads\" (%u) must divide \"heads\" (%u)"),
                           c->kv_heads, c->heads);

  v = 0;
  if (!hr_reader_uint (reader, "head_dim", FALSE, 1, MAX_HIDDEN, &v))
    return FALSE;
  if (v == 0)
    {
      /* latent attention sets it from its own head widths below */
      if (c->hidden % c->heads != 0 && !hr_reader_has (reader, "kv_lora_rank"))
        return hr_reader_fail (reader, "heads",
                               _("\"hidden\" (%u) is not a multiple of \"heads\" (%u): give "
                                 "\"head_dim\""),
                               c->hidden, c->heads);
      v = c->hidden / c->heads;
    }
  c->head_dim = v;

  v = 4 * (guint64) c->hidden;
  if (!hr_reader_uint (reader, "intermediate", FALSE, 1, 16 * (guint64) MAX_HIDDEN, &v))
    return FALSE;
  c->intermediate = v;
  return TRUE;
}

/* A transformer's vocabulary, flags, norm and attention variant. */
static gboolean
read_transformer_options (HrReader    *reader,
                          HrComponent *c)
{
  guint64 v = 0;
  int norm = -1;

  v = 0;
  if (!hr_reader_uint (reader, "vocab", FALSE, 1, 1 << 26, &v))
    return FALSE;
  c->vocab = v;

  v = 0;
  if (!hr_reader_uint (reader, "cross_attention_tokens", FALSE, 1, MAX_TOKENS, &v))
    return FALSE;
  c->cross_attention_tokens = v;

  if (!hr_reader_bool (reader, "glu", &c->glu) ||
      !hr_reader_bool (reader, "dropout", &c->dropout) ||
      !hr_reader_bool (reader, "tied_embeddings", &c->tied_embeddings) ||
      !hr_reader_bool (reader, "single_stream", &c->single_stream))
    return FALSE;

  if (!hr_reader_enum (reader, "norm", norm_names, &norm))
    return FALSE;
  {
    int variant = HR_ATTENTION_VARIANT_STANDARD;

    if (!hr_reader_enum (reader, "attention_variant", hr_attention_variant_names, &variant))
      return FALSE;
    c->attention_variant = variant;
  }
  /* Gated-MLP families (LLaMA, Mistral, Qwen, Gemma) use RMSNorm; GPT-2,
   * BERT, NeoX, Falcon and ViTs use LayerNorm. */
  c->rmsnorm = norm >= 0 ? norm : c->glu;

  v = 0;
  if (!hr_reader_uint (reader, "max_seq_len", FALSE, 1, MAX_TOKENS, &v))
    return FALSE;
  c->max_seq_len = v;
  return TRUE;
}

/* Where a transformer's tokens come from: the sequence length, a fixed
 * count, or an image's patches. */
static gboolean
read_tokens (HrReader    *reader,
             HrComponent *c)
{
  guint64 v = 0;
  JsonNode *tokens;

  c->images = 1;
  c->token_merge = 1;
  c->tokens_from = HR_TOKENS_SEQ_LEN;

  tokens = hr_reader_get_node (reader, "tokens");
  if (tokens != NULL && JSON_NODE_HOLDS_VALUE (tokens) &&
      json_node_get_value_type (tokens) == G_TYPE_STRING)
    {
      if (!g_str_equal (json_node_get_string (tokens), "seq_len"))
        return hr_reader_fail (reader, "tokens",
                               _("\"tokens\" must be an integer or \"seq_len\", not \"%s\""),
                               json_node_get_string (tokens));
    }
  else if (tokens != NULL)
    {
      if (!hr_reader_uint (reader, "tokens", FALSE, 1, MAX_TOKENS, &v))
        return FALSE;
      c->tokens = v;
      c->tokens_from = HR_TOKENS_FIXED;
    }

  if (hr_reader_has (reader, "patch"))
    {
      if (tokens != NULL)
        return hr_reader_fail (reader, "patch", _("give either \"tokens\" or \"patch\", not both"));
      if (!hr_reader_uint (reader, "patch", TRUE, 1, MAX_IMAGE_SIDE, &v))
        return FALSE;
      c->patch = v;
      c->tokens_from = HR_TOKENS_PATCHES;

      v = 1;
      if (!hr_reader_uint (reader, "images", FALSE, 1, 1024, &v))
        return FALSE;
      c->images = v;
      v = 1;
      if (!hr_reader_uint (reader, "token_merge", FALSE, 1, 1 << 20, &v))
        return FALSE;
      c->token_merge = v;
    }
  else if (hr_reader_has (reader, "images") || hr_reader_has (reader, "token_merge"))
    return hr_reader_fail (reader, hr_reader_has (reader, "images") ? "images" : "token_merge",
                           _("\"images\" and \"token_merge\" need \"patch\""));

  return TRUE;
}

/* A transformer part's shape, after its kind. */
static gboolean
read_transformer (HrReader    *reader,
                  HrComponent *c)
{
  if ((hr_reader_has (reader, "temporal_compression") ||
       hr_reader_has (reader, "extra_tokens")) && !read_extra_tokens (reader, c))
    return FALSE;
  if (!read_transformer_widths (reader, c))
    return FALSE;
  c->v_head_dim = c->head_dim;
  if (!read_latent_attention (reader, c) || !read_experts (reader, c))
    return FALSE;
  return read_transformer_options (reader, c) && read_tokens (reader, c);
}

/* Reads the architecture keys shared by a top-level model and a component. */
static gboolean
read_shape (HrReader    *reader,
            HrComponent *c)
{
  if (!read_kind (reader, c))
    return FALSE;

  /* A part known by its parameter count alone: nothing else describes it,
   * so a shape key beside "kind": "weights-only" is a contradiction. */
  if (c->kind == HR_COMPONENT_WEIGHTS_ONLY)
    {
      for (guint i = 0; shape_keys[i] != NULL; i++)
        if (!g_str_equal (shape_keys[i], "kind") && hr_reader_has (reader, shape_keys[i]))
          return hr_reader_fail (reader, shape_keys[i],
                                 _("a \"weights-only\" part is given by \"params\" alone; "
                                   "\"%s\" describes its shape (leave out \"kind\" to use it)"),
                                 shape_keys[i]);
      return TRUE;
    }

  if (hr_reader_has (reader, "activation") && !read_activation (reader, c))
    return FALSE;

  if (hr_reader_has (reader, "arch"))
    {
      if (c->kind == HR_COMPONENT_TRANSFORMER || c->has_activation)
        return hr_reader_fail (reader, "arch",
                               _("\"arch\" describes a CNN, U-Net or VAE part: a transformer's "
                                 "activations follow from its shape, and a part takes either "
                                 "\"arch\" or \"activation\""));
      c->arch = hr_arch_read (reader, "arch");
      if (c->arch == NULL)
        return FALSE;
      return TRUE;
    }

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    {
      if (!c->has_activation)
        return hr_reader_fail (reader, NULL,
                               _("a \"%s\" part needs \"arch\" (its stages and blocks) or "
                                 "\"activation\" (a measured figure)"),
                               hr_enum_to_nick (hr_component_kind_names, c->kind));
      return TRUE;
    }

  if (c->has_activation)
    return hr_reader_fail (reader, "activation",
                           _("a transformer's activations follow from its shape; \"activation\" is "
                             "for CNN, U-Net, RSSM and MLP parts"));

  return read_transformer (reader, c);
}

static HrComponent *
read_component (HrJsonDoc   *doc,
                const char  *pointer,
                JsonNode    *node,
                GError     **error)
{
  HrReader reader;
  HrComponent *c = g_new0 (HrComponent, 1);
  guint64 params = 0;
  gboolean ok = FALSE;

  if (!hr_reader_init (&reader, doc, pointer, node, _("a component"), error))
    {
      hr_component_free (c);
      return NULL;
    }

  c->trainable = TRUE;

  if (!hr_reader_check_keys (&reader, component_keys) ||
      !hr_reader_string (&reader, "name", TRUE, &c->name) ||
      !hr_reader_uint (&reader, "params", TRUE, 1, MAX_PARAMS, &params) ||
      !hr_reader_bool (&reader, "trainable", &c->trainable) ||
      !hr_reader_bool (&reader, "backprop", &c->backprop) ||
      !read_shape (&reader, c) ||
      !check_weights_only (&reader, c))
    goto out;

  c->params = params;
  if (c->trainable)
    c->backprop = TRUE;
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  if (!ok)
    {
      hr_component_free (c);
      return NULL;
    }
  return c;
}
/* The model's id, name, parameter count, family and source. */
static gboolean
read_model_identity (HrReader *reader,
                     HrModel  *model)
{
  if (!hr_reader_check_keys (reader, model_keys) ||
      !hr_reader_string (reader, "id", TRUE, &model->id) ||
      !hr_reader_string (reader, "name", TRUE, &model->name) ||
      !hr_reader_uint (reader, "params", TRUE, 1, MAX_PARAMS, &model->params) ||
      !hr_reader_string (reader, "family", FALSE, &model->family) ||
      !hr_reader_string (reader, "source", FALSE, &model->source))
    return FALSE;

  if (model->id[0] == '\0')
    {
      hr_reader_fail (reader, "id", _("\"id\" must not be empty"));
      return FALSE;
    }

  if (model->family != NULL && !g_strv_contains (families, model->family))
    {
      g_autofree char *hint = hr_closest_word (model->family, families);

      if (hint != NULL)
        hr_reader_fail (reader, "family",
                        _("\"family\" must be one of llm, vlm, encoder, vla, world-model, cnn, "
                          "detection, segmentation, diffusion, video, speech, other, not \"%s\" "
                          "(did you mean \"%s\"?)"),
                        model->family, hint);
      else
        hr_reader_fail (reader, "family",
                        _("\"family\" must be one of llm, vlm, encoder, vla, world-model, cnn, "
                          "detection, segmentation, diffusion, video, speech, other, not "
                          "\"%s\""),
                        model->family);
      return FALSE;
    }
  return TRUE;
}

/* What the model sets by default: its framework, sequence length,
 * micro-batch, frames, image size, method and compute. */
static gboolean
read_model_defaults (HrReader *reader,
                     HrModel  *model)
{
  guint64 v = 0;
  int value;

  value = HR_FRAMEWORK_PYTORCH;
  if (!hr_reader_enum (reader, "framework", hr_framework_names, &value))
    return FALSE;
  model->framework = value;

  if (!hr_reader_uint (reader, "seq_len", FALSE, 1, MAX_TOKENS, &v))
    return FALSE;
  model->seq_len = v;
  v = 0;
  if (!hr_reader_uint (reader, "micro_batch", FALSE, 1, 1 << 20, &v))
    return FALSE;
  model->micro_batch = v;
  v = 0;
  if (!hr_reader_uint (reader, "frames", FALSE, 1, 1 << 16, &v))
    return FALSE;
  model->frames = v;
  /* speech models: the clip length a run defaults to */
  if (!hr_reader_double (reader, "audio_seconds", FALSE, 0.01, HR_ARCH_MAX_AUDIO_SECONDS,
                         &model->audio_seconds))
    return FALSE;
  if (!hr_reader_size (reader, "image_size", MAX_IMAGE_SIDE, &model->image_width,
                       &model->image_height))
    return FALSE;

  value = -1;
  if (!hr_reader_enum (reader, "method", hr_method_names, &value))
    return FALSE;
  model->has_method = value >= 0;
  model->method = MAX (value, 0);
  value = -1;
  if (!hr_reader_enum (reader, "compute", hr_compute_names, &value))
    return FALSE;
  model->has_compute = value >= 0;
  model->compute = MAX (value, 0);
  /* speech models: the clip length a run defaults to */
  if (!hr_reader_double (reader, "audio_seconds", FALSE, 0.01, HR_ARCH_MAX_AUDIO_SECONDS,
                         &model->audio_seconds))
    return FALSE;
  return TRUE;
}

/* A composite model's "components", which must add up to its
 * parameters. */
static gboolean
read_components (HrJsonDoc  *doc,
                 HrReader   *reader,
                 HrModel    *model,
                 GError    **error)
{
  JsonNode *list = hr_reader_get_node (reader, "components");
  g_autofree char *list_pointer = hr_reader_child_pointer (reader, "components");
  guint64 sum = 0;
  JsonArray *array;

  for (guint i = 0; shape_keys[i] != NULL; i++)
    {
      /* The shape of a composite model belongs to its parts. */
      if (hr_reader_has (reader, shape_keys[i]))
        {
          hr_reader_fail (reader, shape_keys[i],
                          _("\"%s\" belongs to a component when the model lists "
                            "\"components\""),
                          shape_keys[i]);
          return FALSE;
        }
    }

  if (!JSON_NODE_HOLDS_ARRAY (list) || json_array_get_length (json_node_get_array (list)) == 0)
    {
      hr_reader_fail (reader, "components",
                      _("\"components\" must be a non-empty array of objects"));
      return FALSE;
    }

  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *item_pointer = hr_json_pointer_append_index (list_pointer, i);
      HrComponent *c = read_component (doc, item_pointer, json_array_get_element (array, i),
                                       error);

      if (c == NULL)
        return FALSE;
      sum += c->params;
      g_ptr_array_add (model->components, c);
    }

  /* The parts must add up to the whole (2% covers rounding in model
   * cards); otherwise one of the two numbers is wrong. */
  if (fabs ((double) sum - (double) model->params) > 0.02 * (double) model->params)
    {
      hr_reader_fail (reader, "params",
                      _("the components add up to %.0f parameters, but \"params\" says %.0f"),
                      (double) sum, (double) model->params);
      return FALSE;
    }
  return TRUE;
}

/* A model of one part: its shape is at the top level. */
static gboolean
read_single_component (HrReader *reader,
                       HrModel  *model)
{
  HrComponent *c = g_new0 (HrComponent, 1);

  c->name = g_strdup (model->name);
  c->params = model->params;
  c->trainable = TRUE;
  c->backprop = TRUE;
  g_ptr_array_add (model->components, c);
  return read_shape (reader, c) && check_weights_only (reader, c);
}


HrModel *
hr_model_from_json (HrJsonDoc   *doc,
                    const char  *pointer,
                    JsonNode    *node,
                    GError     **error)
{
  g_autoptr(HrModel) model = g_new0 (HrModel, 1);
  HrReader reader;
  gboolean ok = FALSE;

  g_return_val_if_fail (doc != NULL, NULL);
  g_return_val_if_fail (node != NULL, NULL);

  model->components = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_component_free);

  if (!hr_reader_init (&reader, doc, pointer, node, _("the model"), error))
    return NULL;

  if (!read_model_identity (&reader, model) || !read_model_defaults (&reader, model))
    goto out;

  if (hr_reader_has (&reader, "components"))
    {
      if (!read_components (doc, &reader, model, error))
        goto out;
    }
  else if (!read_single_component (&reader, model))
    goto out;

  if (model->family == NULL)
    {
      const HrComponent *first = g_ptr_array_index (model->components, 0);

      model->family = g_strdup (first->kind == HR_COMPONENT_TRANSFORMER && first->vocab > 0
                                  ? "llm" : "other");
    }

  model->json = json_node_ref (node);
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok ? g_steal_pointer (&model) : NULL;
}

HrGpu *
hr_gpu_copy (const HrGpu *gpu)
{
  HrGpu *copy;

  g_return_val_if_fail (gpu != NULL, NULL);

  copy = g_memdup2 (gpu, sizeof *gpu);
  copy->id = g_strdup (gpu->id);
  copy->name = g_strdup (gpu->name);
  copy->vendor = g_strdup (gpu->vendor);
  copy->source = g_strdup (gpu->source);
  copy->price_as_of = g_strdup (gpu->price_as_of);
  copy->used_price_as_of = g_strdup (gpu->used_price_as_of);
  copy->json = gpu->json != NULL ? json_node_ref (gpu->json) : NULL;
  return copy;
}

void
hr_gpu_free (HrGpu *gpu)
{
  if (gpu == NULL)
    return;

  g_free (gpu->id);
  g_free (gpu->name);
  g_free (gpu->vendor);
  g_free (gpu->source);
  g_free (gpu->price_as_of);
  g_free (gpu->used_price_as_of);
  g_clear_pointer (&gpu->json, json_node_unref);
  g_free (gpu);
}

HrGpu *
hr_gpu_from_json (HrJsonDoc   *doc,
                  const char  *pointer,
                  JsonNode    *node,
                  GError     **error)
{
  g_autoptr(HrGpu) gpu = g_new0 (HrGpu, 1);
  HrReader reader;
  guint64 v = 0;
  int tier = HR_GPU_TIER_DATACENTER;
  gboolean ok = FALSE;

  g_return_val_if_fail (doc != NULL, NULL);
  g_return_val_if_fail (node != NULL, NULL);

  gpu->price_usd = -1;
  gpu->cloud_usd_per_hour = -1;
  gpu->used_price_usd = -1;

  if (!hr_reader_init (&reader, doc, pointer, node, _("the GPU"), error))
    return NULL;

  /* 64 MiB is below any card that trains anything, and 2^44 bytes (16 TiB)
   * above any single device: either bound means a unit mistake. */
  if (!hr_reader_check_keys (&reader, gpu_keys) ||
      !hr_reader_string (&reader, "id", TRUE, &gpu->id) ||
      !hr_reader_string (&reader, "name", TRUE, &gpu->name) ||
      !hr_reader_uint (&reader, "memory", TRUE, 64 << 20, G_GUINT64_CONSTANT (1) << 44,
                       &gpu->memory) ||
      !hr_reader_string (&reader, "vendor", FALSE, &gpu->vendor) ||
      !hr_reader_string (&reader, "source", FALSE, &gpu->source) ||
      !hr_reader_string (&reader, "price_as_of", FALSE, &gpu->price_as_of) ||
      !hr_reader_enum (&reader, "tier", hr_gpu_tier_names, &tier) ||
      !hr_reader_double (&reader, "memory_nominal_gb", FALSE, 0, 1e5, &gpu->memory_nominal_gb) ||
      !hr_reader_uint (&reader, "bandwidth", FALSE, 0, G_GUINT64_CONSTANT (1) << 50,
                       &gpu->bandwidth) ||
      !hr_reader_nullable_double (&reader, "fp32_tflops", 0, 1e6, &gpu->fp32_tflops) ||
      !hr_reader_nullable_double (&reader, "tf32_tflops", 0, 1e6, &gpu->tf32_tflops) ||
      !hr_reader_nullable_double (&reader, "bf16_tflops", 0, 1e6, &gpu->bf16_tflops) ||
      !hr_reader_uint (&reader, "tdp_watts", FALSE, 0, 100000, &v) ||
      !hr_reader_nullable_double (&reader, "price_usd", 0, 1e8, &gpu->price_usd) ||
      !hr_reader_nullable_double (&reader, "cloud_usd_per_hour", 0, 1e4, &gpu->cloud_usd_per_hour) ||
      !hr_reader_nullable_double (&reader, "used_price_usd", 0, 1e8, &gpu->used_price_usd) ||
      !hr_reader_string (&reader, "used_price_as_of", FALSE, &gpu->used_price_as_of))
    goto out;

  if (gpu->used_price_usd >= 0 && gpu->used_price_as_of == NULL)
    {
      hr_reader_fail (&reader, "used_price_usd",
                      _("a used price needs the date it was read: add \"used_price_as_of\""));
      goto out;
    }

  if (gpu->id[0] == '\0')
    {
      hr_reader_fail (&reader, "id", _("\"id\" must not be empty"));
      goto out;
    }

  gpu->tdp_watts = v;
  gpu->tier = tier;
  gpu->json = json_node_ref (node);
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok ? g_steal_pointer (&gpu) : NULL;
}

struct _HrCatalog {
  GPtrArray  *models;   /* HrModel */
  GPtrArray  *gpus;     /* HrGpu */
  GHashTable *model_index;
  GHashTable *gpu_index;
  GPtrArray  *warnings;
};

HrCatalog *
hr_catalog_new (void)
{
  HrCatalog *catalog = g_new0 (HrCatalog, 1);

  catalog->models = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_model_free);
  catalog->gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_gpu_free);
  catalog->model_index = g_hash_table_new (g_str_hash, g_str_equal);
  catalog->gpu_index = g_hash_table_new (g_str_hash, g_str_equal);
  catalog->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (catalog->warnings, NULL);
  return catalog;
}

void
hr_catalog_free (HrCatalog *catalog)
{
  if (catalog == NULL)
    return;

  g_hash_table_unref (catalog->model_index);
  g_hash_table_unref (catalog->gpu_index);
  g_ptr_array_unref (catalog->models);
  g_ptr_array_unref (catalog->gpus);
  g_ptr_array_unref (catalog->warnings);
  g_free (catalog);
}

gboolean
hr_catalog_id_is_valid (const char *id)
{
  if (id == NULL || id[0] == '\0')
    return FALSE;

  for (const char *c = id; *c != '\0'; c++)
    {
      if (!g_ascii_islower (*c) && !g_ascii_isdigit (*c) && *c != '-' && *c != '.' && *c != '_')
        return FALSE;
    }

  return TRUE;
}

typedef gpointer (*EntryReader) (HrJsonDoc *, const char *, JsonNode *, GError **);

static gboolean
load_entries (HrCatalog   *catalog,
              HrJsonDoc   *doc,
              GPtrArray   *list,
              GHashTable  *index,
              EntryReader  read_entry,
              gsize        id_offset,
              gsize        source_offset,
              GError     **error)
{
  static const char * const file_keys[] = { "version", "entries", NULL };
  g_autoptr(GPtrArray) loaded = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  HrReader reader;
  guint64 version = 0;
  JsonNode *entries;
  JsonArray *array;
  gboolean ok = FALSE;

  if (!hr_reader_init (&reader, doc, "", hr_json_doc_get_root (doc), _("a catalog file"),
                       error))
    return FALSE;

  if (!hr_reader_check_keys (&reader, file_keys) ||
      !hr_reader_uint (&reader, "version", TRUE, 1, 1, &version) ||
      !hr_reader_require (&reader, "entries"))
    goto out;

  entries = hr_reader_get_node (&reader, "entries");
  if (!JSON_NODE_HOLDS_ARRAY (entries))
    {
      hr_reader_fail (&reader, "entries", _("\"entries\" must be an array"));
      goto out;
    }

  array = json_node_get_array (entries);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *pointer = hr_json_pointer_append_index ("/entries", i);
      g_autofree char *id_pointer = NULL;
      gpointer entry = read_entry (doc, pointer, json_array_get_element (array, i), error);
      const char *id;
      const char *source;

      if (entry == NULL)
        goto fail_entries;

      id = G_STRUCT_MEMBER (const char *, entry, id_offset);
      source = G_STRUCT_MEMBER (const char *, entry, source_offset);
      g_ptr_array_add (loaded, entry);
      id_pointer = hr_json_pointer_append (pointer, "id");

      if (!hr_catalog_id_is_valid (id))
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, id_pointer, FALSE,
                             _("catalog id \"%s\" may hold only lowercase letters, digits, '-', "
                               "'.' and '_'"), id);
          goto fail_entries;
        }

      if (g_hash_table_contains (seen, id))
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, id_pointer, FALSE,
                             _("catalog id \"%s\" appears twice"), id);
          goto fail_entries;
        }
      g_hash_table_add (seen, (gpointer) id);

      if (source == NULL || source[0] == '\0')
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                             _("catalog entry \"%s\" has no \"source\": every number needs one"),
                             id);
          goto fail_entries;
        }
    }

  /* Only once the whole file is good does it change the catalog. */
  for (guint i = 0; i < loaded->len; i++)
    {
      gpointer entry = g_ptr_array_index (loaded, i);
      const char *id = G_STRUCT_MEMBER (const char *, entry, id_offset);
      gpointer old = g_hash_table_lookup (index, id);

      if (old != NULL)
        {
          guint pos = 0;

          g_ptr_array_find (list, old, &pos);
          g_hash_table_remove (index, id);
          list->pdata[pos] = entry;
          /* Free the replaced entry without disturbing the order. */
          g_ptr_array_set_free_func (list, NULL);
          g_ptr_array_set_free_func (list, list == catalog->models
                                             ? (GDestroyNotify) hr_model_free
                                             : (GDestroyNotify) hr_gpu_free);
          if (list == catalog->models)
            hr_model_free (old);
          else
            hr_gpu_free (old);
        }
      else
        g_ptr_array_add (list, entry);

      g_hash_table_insert (index, (gpointer) id, entry);
    }
  g_ptr_array_set_size (loaded, 0);
  ok = TRUE;
  goto out;

fail_entries:
  for (guint i = 0; i < loaded->len; i++)
    {
      if (list == catalog->models)
        hr_model_free (g_ptr_array_index (loaded, i));
      else
        hr_gpu_free (g_ptr_array_index (loaded, i));
    }

out:
  hr_reader_clear (&reader);
  return ok;
}

gboolean
hr_catalog_load_models (HrCatalog  *catalog,
                        HrJsonDoc  *doc,
                        GError    **error)
{
  g_return_val_if_fail (catalog != NULL, FALSE);
  g_return_val_if_fail (doc != NULL, FALSE);

  return load_entries (catalog, doc, catalog->models, catalog->model_index,
                       (EntryReader) hr_model_from_json,
                       G_STRUCT_OFFSET (HrModel, id), G_STRUCT_OFFSET (HrModel, source), error);
}

gboolean
hr_catalog_load_gpus (HrCatalog  *catalog,
                      HrJsonDoc  *doc,
                      GError    **error)
{
  g_return_val_if_fail (catalog != NULL, FALSE);
  g_return_val_if_fail (doc != NULL, FALSE);

  return load_entries (catalog, doc, catalog->gpus, catalog->gpu_index,
                       (EntryReader) hr_gpu_from_json,
                       G_STRUCT_OFFSET (HrGpu, id), G_STRUCT_OFFSET (HrGpu, source), error);
}

static HrJsonDoc *
load_resource (const char  *name,
               GError     **error)
{
  g_autofree char *path = g_strconcat (RESOURCE_PREFIX, name, NULL);
  g_autofree char *display = g_strconcat ("resource://", path, NULL);
  g_autoptr(GBytes) bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  gsize size = 0;
  const char *data;

  if (bytes == NULL)
    return NULL;

  data = g_bytes_get_data (bytes, &size);
  return hr_json_doc_load_data (display, data, size, error);
}

/* Marks the entries the user's file added or replaced. */
static void
mark_user_entries (HrCatalog  *catalog,
                   HrJsonDoc  *doc,
                   gboolean    models,
                   GHashTable *builtin_ids)
{
  JsonArray *entries = json_object_get_array_member (
    json_node_get_object (hr_json_doc_get_root (doc)), "entries");

  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);
      const char *id = json_object_get_string_member (entry, "id");
      HrOrigin origin = g_hash_table_contains (builtin_ids, id) ? HR_ORIGIN_USER_OVERRIDE
                                                                : HR_ORIGIN_USER;

      if (models)
        ((HrModel *) g_hash_table_lookup (catalog->model_index, id))->origin = origin;
      else
        ((HrGpu *) g_hash_table_lookup (catalog->gpu_index, id))->origin = origin;
    }
}

static void
load_user_file (HrCatalog  *catalog,
                const char *name,
                gboolean    models)
{
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), "headroom", name, NULL);
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) builtin_ids = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return;

  builtin_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, models ? catalog->model_index : catalog->gpu_index);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      g_hash_table_add (builtin_ids, g_strdup (key));
  }

  doc = hr_json_doc_load_file (path, &error);
  if (doc != NULL)
    {
      if (models ? hr_catalog_load_models (catalog, doc, &error)
                 : hr_catalog_load_gpus (catalog, doc, &error))
        mark_user_entries (catalog, doc, models, builtin_ids);
    }

  if (error != NULL)
    {
      /* Keep the NULL terminator last. */
      g_ptr_array_insert (catalog->warnings, catalog->warnings->len - 1,
                          g_strdup_printf (_("%s (your catalog was not loaded; the built-in "
                                             "entries are used)"),
                                           error->message));
    }
}

HrCatalog *
hr_catalog_new_default (void)
{
  HrCatalog *loaded = hr_catalog_new ();
  g_autoptr(HrJsonDoc) models = NULL;
  g_autoptr(HrJsonDoc) gpus = NULL;
  g_autoptr(GError) error = NULL;

  /* The built-in catalogs are part of the program: if they do not load
   * the build is broken, and nothing could be estimated. */
  models = load_resource ("models.json", &error);
  if (models == NULL || !hr_catalog_load_models (loaded, models, &error))
    g_error ("built-in model catalog: %s", error->message);
  gpus = load_resource ("gpus.json", &error);
  if (gpus == NULL || !hr_catalog_load_gpus (loaded, gpus, &error))
    g_error ("built-in GPU catalog: %s", error->message);

  load_user_file (loaded, "models.json", TRUE);
  load_user_file (loaded, "gpus.json", FALSE);

  return loaded;
}

static HrCatalog *default_catalog;
static char *default_user_files;   /* the user's files as the default catalog read them */

/* Both user files' contents, or that they are missing: what decides
 * whether the default catalog must be read again. */
static char *
read_user_files (void)
{
  static const char * const names[] = { "models.json", "gpus.json" };
  GString *snapshot = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (g_get_user_data_dir (), "headroom", names[i],
                                                NULL);
      g_autoptr(GBytes) contents = NULL;
      g_autoptr(GError) error = NULL;

      /* Bounded like every read: a pipe or /dev/zero in its place must not
       * hang or fill the memory; its message is part of the snapshot. */
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        contents = hr_file_load (path, HR_JSON_MAX_FILE_SIZE, _("a catalog"), &error);
      if (contents != NULL)
        {
          g_string_append_printf (snapshot, "%s %" G_GSIZE_FORMAT "\n", names[i],
                                  g_bytes_get_size (contents));
          g_string_append_len (snapshot, g_bytes_get_data (contents, NULL),
                               g_bytes_get_size (contents));
        }
      else if (error != NULL)
        g_string_append_printf (snapshot, "%s error %s\n", names[i], error->message);
      else
        g_string_append_printf (snapshot, "%s none\n", names[i]);
    }
  return g_string_free (snapshot, FALSE);
}

static HrCatalog *
load_default (void)
{
  /* Read before the catalog: a change in between only costs one more
   * reload later. */
  g_free (default_user_files);
  default_user_files = read_user_files ();
  return hr_catalog_new_default ();
}

HrCatalog *
hr_catalog_get_default (void)
{
  if (g_once_init_enter (&default_catalog))
    g_once_init_leave (&default_catalog, load_default ());

  return default_catalog;
}

void
hr_catalog_reload_default (void)
{
  static GPtrArray *retired;
  HrCatalog *catalog = hr_catalog_get_default ();
  g_autofree char *user_files = read_user_files ();
  HrCatalog *fresh;
  HrCatalog swap;

  /* The window and the page that saved both ask; the files decide. */
  if (g_strcmp0 (user_files, default_user_files) == 0)
    return;

  fresh = load_default ();
  swap = *catalog;

  /* The default catalog keeps its address, so every holder of it sees the
   * new entries.  Entries handed out before (charts keep const HrGpu
   * pointers until their next redraw) must stay valid: the old contents
   * are kept, not freed.  A reload follows a user's save, so they are few
   * (about 0.4 MiB each). */
  *catalog = *fresh;
  *fresh = swap;
  if (retired == NULL)
    retired = g_ptr_array_new ();
  g_ptr_array_add (retired, fresh);
}

const char * const *
hr_catalog_get_warnings (HrCatalog *catalog)
{
  g_return_val_if_fail (catalog != NULL, NULL);
  return (const char * const *) catalog->warnings->pdata;
}

const HrModel *
hr_catalog_find_model (HrCatalog  *catalog,
                       const char *id)
{
  g_return_val_if_fail (catalog != NULL, NULL);
  g_return_val_if_fail (id != NULL, NULL);

  return g_hash_table_lookup (catalog->model_index, id);
}

const HrGpu *
hr_catalog_find_gpu (HrCatalog  *catalog,
                     const char *id)
{
  g_return_val_if_fail (catalog != NULL, NULL);
  g_return_val_if_fail (id != NULL, NULL);

  return g_hash_table_lookup (catalog->gpu_index, id);
}

GPtrArray *
hr_catalog_get_models (HrCatalog *catalog)
{
  g_return_val_if_fail (catalog != NULL, NULL);
  return catalog->models;
}

GPtrArray *
hr_catalog_get_gpus (HrCatalog *catalog)
{
  g_return_val_if_fail (catalog != NULL, NULL);
  return catalog->gpus;
}

static char *
suggest (GPtrArray  *list,
         gsize       id_offset,
         const char *id)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  g_autofree char *squashed = NULL;

  if (strlen (id) > HR_CLOSEST_WORD_MAX)
    return NULL;

  for (guint i = 0; i < list->len; i++)
    g_ptr_array_add (ids, G_STRUCT_MEMBER (char *, g_ptr_array_index (list, i), id_offset));
  g_ptr_array_add (ids, NULL);

  /* "llama2-7b" and "Llama-2-7B" should both find "llama-2-7b": compare
   * without case and separators first. */
  squashed = g_ascii_strdown (id, -1);
  for (guint i = 0; i + 1 < ids->len; i++)
    {
      g_autofree char *a = g_strdelimit (g_strdup (squashed), "-_. ", '-');
      g_autofree char *b = g_strdup (g_ptr_array_index (ids, i));
      GString *sa = g_string_new (NULL), *sb = g_string_new (NULL);
      gboolean same;

      for (const char *c = a; *c; c++)
        if (*c != '-')
          g_string_append_c (sa, *c);
      for (const char *c = b; *c; c++)
        if (*c != '-' && *c != '.' && *c != '_')
          g_string_append_c (sb, *c);
      same = g_str_equal (sa->str, sb->str);
      g_string_free (sa, TRUE);
      g_string_free (sb, TRUE);
      if (same)
        return g_strdup (g_ptr_array_index (ids, i));
    }

  return hr_closest_word (squashed, (const char * const *) ids->pdata);
}

char *
hr_catalog_suggest_model (HrCatalog  *catalog,
                          const char *id)
{
  return suggest (catalog->models, G_STRUCT_OFFSET (HrModel, id), id);
}

char *
hr_catalog_suggest_gpu (HrCatalog  *catalog,
                        const char *id)
{
  return suggest (catalog->gpus, G_STRUCT_OFFSET (HrGpu, id), id);
}

/* ------------------------------------------------------------------ */
/* Search                                                               */

/* A size token: digits, an optional fraction, one of k m b t (already
 * case-folded), nothing else: @value in @unit (10⁹ for "b"), with
 * @decimals digits after the point. */
static gboolean
parse_size_token (const char *token,
                  double     *value,
                  double     *unit,
                  int        *decimals)
{
  static const struct {
    char   suffix;
    double unit;
  } units[] = { { 'k', 1e3 }, { 'm', 1e6 }, { 'b', 1e9 }, { 't', 1e12 } };
  const char *p = token;
  const char *dot = NULL;
  char *end = NULL;

  while (g_ascii_isdigit (*p) || (*p == '.' && dot == NULL))
    {
      if (*p == '.')
        dot = p;
      p++;
    }
  if (!g_ascii_isdigit (token[0]) || p[0] == '\0' || p[1] != '\0'
      || (dot != NULL && dot + 1 == p))
    return FALSE;
  *value = g_ascii_strtod (token, &end);
  if (end != p)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (units[i].suffix == *p)
      {
        *unit = units[i].unit;
        *decimals = dot != NULL ? (int) (p - dot - 1) : 0;
        return TRUE;
      }
  return FALSE;
}

/* "7b" names 7.0 to 7.99 billion (a "7B" model may have 6.7 billion, as
 * Llama 2 7B has, and its name says so; Qwen2.5 7B has 7.6 billion,
 * which its card lists as "7.6B"); "7.6b" names what rounds to 7.6. */
static gboolean
size_matches (const char *token,
              guint64     params)
{
  double value, unit, scale;
  int decimals;

  if (params == 0 || !parse_size_token (token, &value, &unit, &decimals))
    return FALSE;
  if (decimals == 0)
    return floor ((double) params / unit) == value;
  scale = pow (10, decimals);
  return round ((double) params / unit * scale) == round (value * scale);
}

/* Whether @token (case-folded) starts a word of @field (case-folded):
 * at the start, after a character that is not a letter or digit, or
 * where digits follow letters ("qwen2.5": "2.5"). */
static gboolean
starts_a_word (const char *field,
               const char *token)
{

  for (const char *p = field; (p = strstr (p, token)) != NULL; p++)
    {
      const char *before;
      gunichar b, c;

      if (p == field)
        return TRUE;
      before = g_utf8_find_prev_char (field, p);
      b = g_utf8_get_char (before);
      c = g_utf8_get_char (p);
      if (!g_unichar_isalnum (b) || (g_unichar_isalpha (b) && g_unichar_isdigit (c)))
        return TRUE;
    }
  return FALSE;
}

gboolean
hr_catalog_search_matches (const char         *query,
                           const char * const *fields,
                           guint64             params)
{
  g_autofree char *folded = NULL;
  g_auto(GStrv) tokens = NULL;
  g_autoptr(GPtrArray) folded_fields = g_ptr_array_new_with_free_func (g_free);

  if (query == NULL)
    return TRUE;
  folded = g_utf8_casefold (query, -1);
  tokens = g_strsplit_set (folded, " \t\n", -1);
  for (guint i = 0; fields != NULL && fields[i] != NULL; i++)
    g_ptr_array_add (folded_fields, g_utf8_casefold (fields[i], -1));
  for (guint t = 0; tokens[t] != NULL; t++)
    {
      gboolean found = FALSE;

      if (tokens[t][0] == '\0')
        continue;
      for (guint i = 0; !found && i < folded_fields->len; i++)
        found = starts_a_word (g_ptr_array_index (folded_fields, i), tokens[t]);
      if (!found && !size_matches (tokens[t], params))
        return FALSE;
    }
  return TRUE;
}

gboolean
hr_catalog_model_matches (const HrModel *model,
                          const char    *query)
{
  const char *fields[] = { model->name, model->id, model->family, NULL };

  g_return_val_if_fail (model != NULL, FALSE);
  return hr_catalog_search_matches (query, fields, model->params);
}
