/* hr-import-hf.c: Hugging Face config.json to a Headroom model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every count below follows the module layout of the family's modeling file
 * in Hugging Face transformers (modeling_llama.py, modeling_gpt2.py, …): what
 * a checkpoint of that class stores, buffers (rotary tables, position ids)
 * excluded.  The tests check the sums against the published counts of real
 * models (tests/data/import/README.md).
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-import"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "hr-catalog.h"
#include "hr-import-hf.h"
#include "hr-reader.h"

/* Bounds that refuse a hostile or mistyped config before any arithmetic:
 * far above any published model, far below what overflows a double's exact
 * integers (2^53). */
#define MAX_PARAMS       1e13
#define MAX_WIDTH        (G_GUINT64_CONSTANT (1) << 24)
#define MAX_LAYERS       100000
#define MAX_VOCAB        (G_GUINT64_CONSTANT (1) << 26)
#define MAX_EXPERTS      4096
#define MAX_POSITIONS    (G_GUINT64_CONSTANT (1) << 26)
/* A rotary context length stores nothing, so any value is read (and only
 * one a scenario can use is passed on). */
#define MAX_CONTEXT      (G_GUINT64_CONSTANT (1) << 52)
#define MAX_IMAGE_SIDE   65536
#define REQUIRED         G_MAXUINT64

/* One stack of transformer blocks and what sits around it. */
typedef struct {
  char     *name;
  guint64   vocab;
  guint64   hidden;
  guint64   layers;
  guint64   heads;
  guint64   kv_heads;
  guint64   head_dim;
  guint64   intermediate;
  gboolean  glu;
  gboolean  qkv_bias;       /* biases on the query, key and value projections */
  gboolean  out_bias;       /* bias on the attention output projection */
  gboolean  mlp_bias;
  gboolean  layernorm;      /* LayerNorm (weight and bias), else RMSNorm (weight) */
  gboolean  qk_norm;        /* RMSNorm over head_dim on queries and keys (Qwen3, Gemma 3) */
  gboolean  final_norm;
  gboolean  tied;
  guint     norms_per_layer;
  guint64   positions;      /* rows of a learned position table */
  guint     experts;
  guint     experts_per_token;
  guint64   shared_intermediate; /* always-on shared experts' MLP width (Qwen-MoE, DeepSeek) */
  gboolean  shared_gate;    /* a hidden x 1 sigmoid gate on the shared expert (Qwen-MoE) */
  gboolean  router_bias;    /* DeepSeek-V3's e_score_correction_bias */
  guint64   dense_layers;   /* leading layers with a dense MLP (DeepSeek first_k_dense_replace) */
  guint64   dense_intermediate;
  /* Multi-head latent attention (DeepSeek-V2/V3): low-rank query and
   * key/value projections instead of q, k, v. */
  gboolean  mla;
  guint64   q_lora_rank;    /* 0: a plain query projection */
  guint64   kv_lora_rank;
  guint64   qk_nope_dim;
  guint64   qk_rope_dim;
  guint64   v_head_dim;
  double    extra;          /* parameters outside the blocks (poolers, heads, patch embedding) */
  guint64   max_seq_len;
  guint64   patch;
  gboolean  is_vision;
  gboolean  has_logits;     /* computes logits over the vocabulary (or an MLM head's) */
  gboolean  has_count;      /* params set directly (T5's stacks) */
  double    params;
  double    active;
} Shape;

static void
shape_free (Shape *s)
{
  g_free (s->name);
  g_free (s);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Shape, shape_free)

static Shape *
shape_new (const char *name)
{
  Shape *s = g_new0 (Shape, 1);

  s->name = g_strdup (name);
  s->norms_per_layer = 2;
  s->final_norm = TRUE;
  s->has_logits = TRUE;
  return s;
}

/* Parameters of the blocks, embeddings, head and extras.  Doubles hold every
 * integer below 2^53 exactly, and the count is refused above 10^13, so the
 * sums are exact. */
static void
shape_count (Shape *s)
{
  double hidden = s->hidden;
  double q_dim = (double) s->heads * s->head_dim;
  double kv_dim = (double) s->kv_heads * s->head_dim;
  double norm = hidden * (s->layernorm ? 2 : 1);
  double attn, mlp, block, block_active, router, outside;

  if (s->has_count)
    {
      s->active = s->params;
      return;
    }

  if (s->mla)
    {
      /* modeling_deepseek.py DeepseekV3Attention: q_a_proj, q_a_layernorm,
       * q_b_proj (or q_proj), kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj,
       * o_proj; no biases. */
      double qk_head = (double) s->qk_nope_dim + s->qk_rope_dim;

      attn = s->q_lora_rank > 0
               ? hidden * s->q_lora_rank + s->q_lora_rank +
                 (double) s->q_lora_rank * s->heads * qk_head
               : hidden * s->heads * qk_head;
      attn += hidden * ((double) s->kv_lora_rank + s->qk_rope_dim) + s->kv_lora_rank;
      attn += (double) s->kv_lora_rank * s->heads * ((double) s->qk_nope_dim + s->v_head_dim);
      attn += (double) s->heads * s->v_head_dim * hidden;
    }
  else
    attn = hidden * q_dim + 2 * hidden * kv_dim + q_dim * hidden;
  if (s->qkv_bias)
    attn += q_dim + 2 * kv_dim;
  if (s->out_bias)
    attn += hidden;
  if (s->qk_norm)
    attn += 2.0 * s->head_dim;

  mlp = (s->glu ? 3 : 2) * hidden * s->intermediate;
  if (s->mlp_bias)
    mlp += (s->glu ? 2 : 1) * (double) s->intermediate + hidden;

  block = attn + s->norms_per_layer * norm;
  block_active = block;
  if (s->experts > 0)
    {
      /* A linear router without bias picks experts_per_token of the
       * experts for each token; every expert is stored.  Shared experts
       * run for every token. */
      double shared = 3 * hidden * s->shared_intermediate + (s->shared_gate ? hidden : 0);

      router = hidden * s->experts + (s->router_bias ? s->experts : 0);
      block_active += s->experts_per_token * mlp + router + shared;
      block += s->experts * mlp + router + shared;
    }
  else
    {
      block += mlp;
      block_active += mlp;
    }

  outside = (double) s->vocab * hidden + (double) s->positions * hidden + s->extra;
  if (!s->tied)
    outside += (double) s->vocab * hidden;
  if (s->final_norm)
    outside += norm;

  s->params = outside + (double) (s->layers - s->dense_layers) * block;
  s->active = outside + (double) (s->layers - s->dense_layers) * block_active;
  if (s->dense_layers > 0)
    {
      double dense = attn + s->norms_per_layer * norm + 3 * hidden * s->dense_intermediate;

      s->params += s->dense_layers * dense;
      s->active += s->dense_layers * dense;
    }
}

/* Reading one config object: the root, or a nested text_config/vision_config. */
typedef struct {
  HrReader   reader;
  HrImport  *import;
  const char *prefix;      /* "" or "text_config." for notes */
  gboolean   defaults_ok;  /* nested configs may rely on transformers' defaults */
  char       what[64];     /* _("the config"), or "\"text_config\"" for messages */
} Cfg;

static gboolean
cfg_init (Cfg        *cfg,
          HrJsonDoc  *doc,
          const char *pointer,
          JsonNode   *node,
          const char *what,
          HrImport   *import,
          gboolean    nested,
          GError    **error)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->import = import;
  cfg->defaults_ok = nested;
  cfg->prefix = nested ? what : "";
  /* @what is "text_config." when nested: the member's name, quoted. */
  if (nested)
    g_snprintf (cfg->what, sizeof cfg->what, "\"%.*s\"", (int) strcspn (what, "."), what);
  else
    g_strlcpy (cfg->what, _("the config"), sizeof cfg->what);
  return hr_reader_init (&cfg->reader, doc, pointer, node, cfg->what, error);
}

/* A member, with JSON null taken as absent ("head_dim": null). */
static JsonNode *
cfg_get (Cfg        *cfg,
         const char *key)
{
  JsonNode *node = hr_reader_get_node (&cfg->reader, key);

  return node != NULL && !JSON_NODE_HOLDS_NULL (node) ? node : NULL;
}

/* A required key that is absent, or null (which cfg_get takes as absent):
 * an error either way, never a value left unset. */
static gboolean
cfg_require (Cfg        *cfg,
             const char *key)
{
  if (hr_reader_get_node (&cfg->reader, key) != NULL)
    return hr_reader_fail (&cfg->reader, key, _("%s gives \"%s\" as null; it is required"),
                           cfg->what, key);
  return hr_reader_require (&cfg->reader, key);
}

/* The first of @keys ("hidden_size|n_embd") that is present, read as an
 * integer in [1, @max].  When none is: @def if there is one (REQUIRED means
 * none), with a note when @def stands for a value a nested config left to
 * transformers' defaults. */
static gboolean
cfg_uint (Cfg        *cfg,
          const char *keys,
          guint64     def,
          guint64     max,
          guint64    *out)
{
  g_auto(GStrv) names = g_strsplit (keys, "|", -1);

  for (guint i = 0; names[i] != NULL; i++)
    {
      if (cfg_get (cfg, names[i]) != NULL)
        return hr_reader_uint (&cfg->reader, names[i], TRUE, 1, max, out);
    }

  if (def == REQUIRED)
    return cfg_require (cfg, names[0]);

  *out = def;
  return TRUE;
}

/* Like cfg_uint, for the architecture numbers a nested config may leave to
 * the family's defaults (a LLaVA text_config naming only its vocab). */
static gboolean
cfg_arch (Cfg        *cfg,
          const char *keys,
          guint64     family_default,
          guint64     max,
          guint64    *out)
{
  g_auto(GStrv) names = g_strsplit (keys, "|", -1);

  for (guint i = 0; names[i] != NULL; i++)
    {
      if (cfg_get (cfg, names[i]) != NULL)
        return hr_reader_uint (&cfg->reader, names[i], TRUE, 1, max, out);
    }

  if (!cfg->defaults_ok || family_default == 0)
    return cfg_require (cfg, names[0]);

  *out = family_default;
  hr_import_add_note (cfg->import, _("%s%s not given: %" PRIu64 " assumed "
                                     "(the family's default in transformers)"),
                      cfg->prefix, names[0], family_default);
  return TRUE;
}

static gboolean
cfg_bool (Cfg        *cfg,
          const char *key,
          gboolean    def,
          gboolean   *out)
{
  *out = def;
  if (cfg_get (cfg, key) == NULL)
    return TRUE;
  return hr_reader_bool (&cfg->reader, key, out);
}

static char *
cfg_string (Cfg        *cfg,
            const char *key)
{
  JsonNode *node = cfg_get (cfg, key);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return g_strdup (json_node_get_string (node));
}

/* Heads, KV heads and head width, checked against each other. */
static gboolean
cfg_heads (Cfg        *cfg,
           Shape      *s,
           const char *heads_keys,
           guint64     heads_default,
           const char *kv_keys,
           guint64     kv_default)
{
  guint64 kv_def;

  if (!cfg_arch (cfg, heads_keys, heads_default, MAX_WIDTH, &s->heads))
    return FALSE;

  /* Without the key, as many KV heads as heads, unless a nested config
   * relies on a family default that has fewer (MistralConfig: 8). */
  kv_def = cfg->defaults_ok && kv_default > 0 && kv_default <= s->heads ? kv_default : s->heads;
  s->kv_heads = s->heads;
  if (kv_keys != NULL && !cfg_uint (cfg, kv_keys, kv_def, s->heads, &s->kv_heads))
    return FALSE;

  if (s->heads % s->kv_heads != 0)
    {
      g_auto(GStrv) names = g_strsplit (kv_keys, "|", -1);

      return hr_reader_fail (&cfg->reader, names[0],
                             _("%" PRIu64 " key/value heads do not divide %"
                               PRIu64 " attention heads"), s->kv_heads, s->heads);
    }

  if (cfg_get (cfg, "head_dim") != NULL)
    return hr_reader_uint (&cfg->reader, "head_dim", TRUE, 1, MAX_WIDTH, &s->head_dim);

  if (s->hidden % s->heads != 0)
    {
      g_auto(GStrv) names = g_strsplit (heads_keys, "|", -1);

      return hr_reader_fail (&cfg->reader, names[0],
                             _("the hidden size %" PRIu64 " is not a multiple of %"
                               PRIu64 " heads, and \"head_dim\" is not given"),
                             s->hidden, s->heads);
    }
  s->head_dim = s->hidden / s->heads;
  return TRUE;
}

/* ---- Decoder-only LLMs with a gated MLP and RMSNorm ---------------------- */

enum {
  DEC_TIED_DEFAULT = 1 << 0,  /* tie_word_embeddings defaults to true */
  DEC_QKV_BIAS     = 1 << 1,  /* biases on q, k, v always (Qwen2) */
  DEC_BIAS_KEY     = 1 << 2,  /* attention_bias / mlp_bias keys (Llama) */
  DEC_FOUR_NORMS   = 1 << 3,  /* pre and post norms around attention and MLP (Gemma 2/3) */
  DEC_QK_NORM      = 1 << 4,  /* RMSNorm on queries and keys (Qwen3, Gemma 3) */
  DEC_MOE_MIXTRAL  = 1 << 5,  /* num_local_experts experts of intermediate_size */
  DEC_MOE_QWEN     = 1 << 6,  /* num_experts experts of moe_intermediate_size */
  DEC_SHARED_EXPERT = 1 << 7, /* plus a gated shared expert (Qwen2-MoE) */
};

typedef struct {
  const char *model_type;
  const char *label;
  guint       flags;
  /* transformers' defaults, for nested configs that leave them out */
  guint64     vocab, hidden, intermediate, layers, heads, kv_heads;
} DecoderFamily;

static const DecoderFamily decoder_families[] = {
  /* LlamaConfig defaults: the 7B model (configuration_llama.py). */
  { "llama", "Llama", DEC_BIAS_KEY, 32000, 4096, 11008, 32, 32 },
  { "mistral", "Mistral", 0, 32000, 4096, 14336, 32, 32, 8 },
  { "mixtral", "Mixtral", DEC_MOE_MIXTRAL, 32000, 4096, 14336, 32, 32, 8 },
  { "qwen2", "Qwen2", DEC_QKV_BIAS, 0, 0, 0, 0, 0 },
  { "qwen3", "Qwen3", DEC_BIAS_KEY | DEC_QK_NORM, 0, 0, 0, 0, 0 },
  { "qwen3_moe", "Qwen3-MoE", DEC_BIAS_KEY | DEC_QK_NORM | DEC_MOE_QWEN, 0, 0, 0, 0, 0 },
  { "qwen2_moe", "Qwen2-MoE", DEC_QKV_BIAS | DEC_MOE_QWEN | DEC_SHARED_EXPERT, 0, 0, 0, 0, 0 },
  { "gemma", "Gemma", DEC_TIED_DEFAULT | DEC_BIAS_KEY, 0, 0, 0, 0, 0 },
  { "gemma2", "Gemma 2", DEC_TIED_DEFAULT | DEC_BIAS_KEY | DEC_FOUR_NORMS, 0, 0, 0, 0, 0 },
  { "gemma3_text", "Gemma 3", DEC_TIED_DEFAULT | DEC_BIAS_KEY | DEC_FOUR_NORMS | DEC_QK_NORM,
    0, 0, 0, 0, 0 },
  { "phi3", "Phi-3", 0, 0, 0, 0, 0, 0 },
};

static const DecoderFamily *
find_decoder_family (const char *model_type)
{
  for (guint i = 0; i < G_N_ELEMENTS (decoder_families); i++)
    {
      if (g_strcmp0 (decoder_families[i].model_type, model_type) == 0)
        return &decoder_families[i];
    }
  return NULL;
}

static gboolean
read_gated_decoder (Cfg                 *cfg,
                    const DecoderFamily *family,
                    Shape               *s)
{
  guint64 v;
  gboolean attention_bias = FALSE;

  if (!cfg_arch (cfg, "vocab_size", family->vocab, MAX_VOCAB, &s->vocab) ||
      !cfg_arch (cfg, "hidden_size", family->hidden, MAX_WIDTH, &s->hidden) ||
      !cfg_arch (cfg, "num_hidden_layers", family->layers, MAX_LAYERS, &s->layers) ||
      !cfg_heads (cfg, s, "num_attention_heads", family->heads, "num_key_value_heads",
                  family->kv_heads) ||
      !cfg_uint (cfg, "max_position_embeddings", 0, MAX_CONTEXT, &s->max_seq_len) ||
      !cfg_bool (cfg, "tie_word_embeddings", (family->flags & DEC_TIED_DEFAULT) != 0, &s->tied))
    return FALSE;

  if (family->flags & DEC_MOE_QWEN)
    {
      if (!cfg_uint (cfg, "moe_intermediate_size", REQUIRED, 1 << 28, &s->intermediate))
        return FALSE;
    }
  else if (!cfg_arch (cfg, "intermediate_size", family->intermediate, 1 << 28, &s->intermediate))
    return FALSE;

  s->glu = TRUE;
  s->layernorm = FALSE;
  s->norms_per_layer = (family->flags & DEC_FOUR_NORMS) ? 4 : 2;
  s->qk_norm = (family->flags & DEC_QK_NORM) != 0;

  if (family->flags & DEC_QKV_BIAS)
    s->qkv_bias = TRUE;
  if (family->flags & DEC_BIAS_KEY)
    {
      if (!cfg_bool (cfg, "attention_bias", FALSE, &attention_bias) ||
          !cfg_bool (cfg, "mlp_bias", FALSE, &s->mlp_bias))
        return FALSE;
      s->qkv_bias = s->out_bias = attention_bias;
    }

  if (family->flags & (DEC_MOE_MIXTRAL | DEC_MOE_QWEN))
    {
      const char *experts_key = (family->flags & DEC_MOE_MIXTRAL) ? "num_local_experts"
                                                                   : "num_experts";

      if (!cfg_uint (cfg, experts_key, REQUIRED, MAX_EXPERTS, &v))
        return FALSE;
      s->experts = v;
      /* Top-2 unless said, and never more than there are experts. */
      if (!cfg_uint (cfg, "num_experts_per_tok", MIN (2, s->experts), s->experts, &v))
        return FALSE;
      s->experts_per_token = v;
      if (family->flags & DEC_SHARED_EXPERT)
        {
          if (!cfg_uint (cfg, "shared_expert_intermediate_size", REQUIRED, 1 << 28,
                         &s->shared_intermediate))
            return FALSE;
          s->shared_gate = TRUE;
        }
      if (family->flags & DEC_MOE_QWEN)
        hr_import_add_note (cfg->import, _("%severy layer is taken as a mixture-of-experts "
                                           "layer (decoder_sparse_step 1, no mlp_only_layers)"),
                            cfg->prefix);
    }

  return TRUE;
}

/* ---- DeepSeek-V2/V3: latent attention, shared and routed experts ---------- */

static gboolean
read_deepseek (Cfg   *cfg,
               Shape *s)
{
  guint64 v = 0, mtp = 0;
  g_autofree char *topk = NULL;

  /* modeling_deepseek.py (deepseek-ai/DeepSeek-V3): the first
   * first_k_dense_replace layers have a dense MLP, the others n_routed_experts
   * experts of moe_intermediate_size plus n_shared_experts always on. */
  if (!cfg_uint (cfg, "vocab_size", REQUIRED, MAX_VOCAB, &s->vocab) ||
      !cfg_uint (cfg, "hidden_size", REQUIRED, MAX_WIDTH, &s->hidden) ||
      !cfg_uint (cfg, "num_hidden_layers", REQUIRED, MAX_LAYERS, &s->layers) ||
      !cfg_uint (cfg, "num_attention_heads", REQUIRED, MAX_WIDTH, &s->heads) ||
      !cfg_uint (cfg, "intermediate_size", REQUIRED, 1 << 28, &s->dense_intermediate) ||
      !cfg_uint (cfg, "moe_intermediate_size", REQUIRED, 1 << 28, &s->intermediate) ||
      !cfg_uint (cfg, "kv_lora_rank", REQUIRED, MAX_WIDTH, &s->kv_lora_rank) ||
      !cfg_uint (cfg, "qk_nope_head_dim", REQUIRED, MAX_WIDTH, &s->qk_nope_dim) ||
      !cfg_uint (cfg, "qk_rope_head_dim", REQUIRED, MAX_WIDTH, &s->qk_rope_dim) ||
      !cfg_uint (cfg, "v_head_dim", REQUIRED, MAX_WIDTH, &s->v_head_dim) ||
      !cfg_uint (cfg, "max_position_embeddings", 0, MAX_CONTEXT, &s->max_seq_len) ||
      !cfg_bool (cfg, "tie_word_embeddings", FALSE, &s->tied))
    return FALSE;

  if (cfg_get (cfg, "q_lora_rank") != NULL &&
      !cfg_uint (cfg, "q_lora_rank", 0, MAX_WIDTH, &s->q_lora_rank))
    return FALSE;

  if (cfg_get (cfg, "n_routed_experts") != NULL)
    {
      if (!cfg_uint (cfg, "n_routed_experts", REQUIRED, MAX_EXPERTS, &v))
        return FALSE;
      s->experts = v;
      if (!cfg_uint (cfg, "num_experts_per_tok", REQUIRED, s->experts, &v))
        return FALSE;
      s->experts_per_token = v;
      v = 0;
      if (cfg_get (cfg, "n_shared_experts") != NULL &&
          !cfg_uint (cfg, "n_shared_experts", 0, 1024, &v))
        return FALSE;
      s->shared_intermediate = v * s->intermediate;
      if (!cfg_uint (cfg, "first_k_dense_replace", 0, s->layers, &s->dense_layers))
        return FALSE;
      topk = cfg_string (cfg, "topk_method");
      s->router_bias = g_strcmp0 (topk, "noaux_tc") == 0;
    }
  else
    {
      s->dense_layers = s->layers;
      s->intermediate = s->dense_intermediate;
    }

  if (cfg_get (cfg, "num_nextn_predict_layers") != NULL &&
      !cfg_uint (cfg, "num_nextn_predict_layers", 0, 64, &mtp))
    return FALSE;
  if (mtp > 0)
    hr_import_add_note (cfg->import, _("the %" PRIu64 " multi-token-prediction "
                                       "layer(s) a checkpoint may add are not counted, as in the "
                                       "published total"), mtp);

  /* For the estimator: attention heads of the value width; the KV cache of
   * latent attention (kv_lora_rank + qk_rope_head_dim per token and layer)
   * is smaller than this shape says. */
  s->mla = TRUE;
  s->kv_heads = s->heads;
  s->head_dim = s->v_head_dim;
  s->glu = TRUE;
  s->layernorm = FALSE;
  hr_import_add_note (cfg->import, _("multi-head latent attention caches %" PRIu64
                                     " values per token and layer; the KV cache is planned as "
                                     "full heads, an upper bound"),
                      s->kv_lora_rank + s->qk_rope_dim);
  return TRUE;
}

/* ---- GPT-2, GPT-NeoX, Falcon, OPT ---------------------------------------- */

static gboolean
read_gpt2 (Cfg   *cfg,
           Shape *s)
{
  guint64 inner;

  /* modeling_gpt2.py: Conv1D projections with biases, LayerNorm, a learned
   * position table of n_positions rows, lm_head tied to wte. */
  if (!cfg_uint (cfg, "vocab_size", REQUIRED, MAX_VOCAB, &s->vocab) ||
      !cfg_uint (cfg, "n_embd|hidden_size", REQUIRED, MAX_WIDTH, &s->hidden) ||
      !cfg_uint (cfg, "n_layer|num_hidden_layers", REQUIRED, MAX_LAYERS, &s->layers) ||
      !cfg_heads (cfg, s, "n_head|num_attention_heads", 0, NULL, 0) ||
      !cfg_uint (cfg, "n_positions|max_position_embeddings", REQUIRED, MAX_POSITIONS,
                 &s->positions) ||
      !cfg_uint (cfg, "n_inner", 4 * s->hidden, 1 << 28, &inner) ||
      !cfg_bool (cfg, "tie_word_embeddings", TRUE, &s->tied))
    return FALSE;

  s->intermediate = inner;
  s->max_seq_len = s->positions;
  s->qkv_bias = s->out_bias = s->mlp_bias = TRUE;
  s->layernorm = TRUE;
  return TRUE;
}

static gboolean
read_gpt_neox (Cfg   *cfg,
               Shape *s)
{
  gboolean bias = TRUE;

  /* modeling_gpt_neox.py: fused query_key_value and dense with biases
   * (attention_bias), MLP with biases, two LayerNorms per layer (parallel or
   * not), final LayerNorm, untied embed_out. */
  if (!cfg_uint (cfg, "vocab_size", REQUIRED, MAX_VOCAB, &s->vocab) ||
      !cfg_uint (cfg, "hidden_size", REQUIRED, MAX_WIDTH, &s->hidden) ||
      !cfg_uint (cfg, "num_hidden_layers", REQUIRED, MAX_LAYERS, &s->layers) ||
      !cfg_heads (cfg, s, "num_attention_heads", 0, NULL, 0) ||
      !cfg_uint (cfg, "intermediate_size", REQUIRED, 1 << 28, &s->intermediate) ||
      !cfg_uint (cfg, "max_position_embeddings", 0, MAX_CONTEXT, &s->max_seq_len) ||
      !cfg_bool (cfg, "tie_word_embeddings", FALSE, &s->tied) ||
      !cfg_bool (cfg, "attention_bias", TRUE, &bias))
    return FALSE;

  s->qkv_bias = s->out_bias = bias;
  s->mlp_bias = TRUE;
  s->layernorm = TRUE;
  return TRUE;
}

static gboolean
read_falcon (Cfg   *cfg,
             Shape *s)
{
  gboolean multi_query, new_arch, parallel, bias;
  guint64 ln_parallel = 2;

  /* modeling_falcon.py.  The old architecture (7B) shares one key/value
   * head (multi_query) and, with parallel_attn, one input LayerNorm; the
   * new one (40B, 180B) has num_kv_heads groups and ln_attn + ln_mlp. */
  if (!cfg_uint (cfg, "vocab_size", 65024, MAX_VOCAB, &s->vocab) ||
      !cfg_uint (cfg, "hidden_size", REQUIRED, MAX_WIDTH, &s->hidden) ||
      !cfg_uint (cfg, "num_hidden_layers|n_layer", REQUIRED, MAX_LAYERS, &s->layers) ||
      !cfg_bool (cfg, "multi_query", TRUE, &multi_query) ||
      !cfg_bool (cfg, "new_decoder_architecture", FALSE, &new_arch) ||
      !cfg_bool (cfg, "parallel_attn", TRUE, &parallel) ||
      !cfg_bool (cfg, "bias", FALSE, &bias) ||
      !cfg_bool (cfg, "tie_word_embeddings", TRUE, &s->tied) ||
      !cfg_uint (cfg, "max_position_embeddings", 0, MAX_CONTEXT, &s->max_seq_len))
    return FALSE;

  if (new_arch)
    {
      if (!cfg_heads (cfg, s, "num_attention_heads|n_head", 0, "num_kv_heads|n_head_kv", 0) ||
          !cfg_uint (cfg, "num_ln_in_parallel_attn", 2, 2, &ln_parallel))
        return FALSE;
      s->norms_per_layer = ln_parallel;
    }
  else
    {
      if (!cfg_heads (cfg, s, "num_attention_heads|n_head", 0, NULL, 0))
        return FALSE;
      s->kv_heads = multi_query ? 1 : s->heads;
      s->norms_per_layer = parallel ? 1 : 2;
    }

  if (!cfg_uint (cfg, "ffn_hidden_size", 4 * s->hidden, 1 << 28, &s->intermediate))
    return FALSE;

  s->qkv_bias = s->out_bias = s->mlp_bias = bias;
  s->layernorm = TRUE;
  return TRUE;
}

static gboolean
read_opt (Cfg   *cfg,
          Shape *s)
{
  guint64 proj_dim, max_pos;
  gboolean pre_norm, bias, affine, remove_final = FALSE;

  /* modeling_opt.py: learned positions with an offset of 2 rows, biases
   * everywhere (enable_bias), lm_head tied, and for OPT-350m a projection
   * between a narrower word embedding and the blocks. */
  if (!cfg_uint (cfg, "vocab_size", REQUIRED, MAX_VOCAB, &s->vocab) ||
      !cfg_uint (cfg, "hidden_size", REQUIRED, MAX_WIDTH, &s->hidden) ||
      !cfg_uint (cfg, "num_hidden_layers", REQUIRED, MAX_LAYERS, &s->layers) ||
      !cfg_heads (cfg, s, "num_attention_heads", 0, NULL, 0) ||
      !cfg_uint (cfg, "ffn_dim", REQUIRED, 1 << 28, &s->intermediate) ||
      !cfg_uint (cfg, "max_position_embeddings", REQUIRED, MAX_POSITIONS, &max_pos) ||
      !cfg_uint (cfg, "word_embed_proj_dim", s->hidden, MAX_WIDTH, &proj_dim) ||
      !cfg_bool (cfg, "do_layer_norm_before", TRUE, &pre_norm) ||
      !cfg_bool (cfg, "_remove_final_layer_norm", FALSE, &remove_final) ||
      !cfg_bool (cfg, "enable_bias", TRUE, &bias) ||
      !cfg_bool (cfg, "layer_norm_elementwise_affine", TRUE, &affine))
    return FALSE;

  s->positions = max_pos + 2;
  s->max_seq_len = max_pos;
  s->tied = TRUE;
  s->qkv_bias = s->out_bias = s->mlp_bias = bias;
  s->layernorm = TRUE;
  s->final_norm = pre_norm && !remove_final;
  if (proj_dim != s->hidden)
    {
      /* The embedding is vocab x proj_dim; project_in and project_out map
       * it to and from the hidden width, without bias. */
      s->extra += (double) s->vocab * proj_dim - (double) s->vocab * s->hidden;
      s->extra += 2.0 * proj_dim * s->hidden;
    }
  if (!affine)
    {
      s->norms_per_layer = 0;
      s->final_norm = FALSE;
    }
  return TRUE;
}

/* ---- Encoders: BERT, RoBERTa ---------------------------------------------- */

static gboolean
read_bert (Cfg   *cfg,
           Shape *s)
{
  guint64 types;

  /* modeling_bert.py BertModel: word, position and token-type embeddings,
   * an embedding LayerNorm, post-norm blocks with biases, and the pooler
   * (hidden x hidden + bias).  RoBERTa is the same with 514 positions and
   * one token type. */
  if (!cfg_uint (cfg, "vocab_size", REQUIRED, MAX_VOCAB, &s->vocab) ||
      !cfg_uint (cfg, "hidden_size", REQUIRED, MAX_WIDTH, &s->hidden) ||
      !cfg_uint (cfg, "num_hidden_layers", REQUIRED, MAX_LAYERS, &s->layers) ||
      !cfg_heads (cfg, s, "num_attention_heads", 0, NULL, 0) ||
      !cfg_uint (cfg, "intermediate_size", REQUIRED, 1 << 28, &s->intermediate) ||
      !cfg_uint (cfg, "max_position_embeddings", 512, MAX_POSITIONS, &s->positions) ||
      !cfg_uint (cfg, "type_vocab_size", 2, 1 << 20, &types))
    return FALSE;

  s->max_seq_len = s->positions;
  s->tied = TRUE;
  s->qkv_bias = s->out_bias = s->mlp_bias = TRUE;
  s->layernorm = TRUE;
  s->final_norm = FALSE;
  s->extra = (double) types * s->hidden + 2.0 * s->hidden + (double) s->hidden * s->hidden +
             s->hidden;
  hr_import_add_note (cfg->import, _("counted as the bare encoder with its pooler (what "
                                     "%sModel stores); a task head adds its own weights"),
                      g_strcmp0 (cfg->import->model_type, "bert") == 0 ? "Bert" : "Roberta");
  return TRUE;
}

/* ---- Vision towers: ViT, CLIP, SigLIP ---------------------------------- */

typedef enum {
  VISION_VIT,     /* class token, patch conv with bias, final LayerNorm */
  VISION_CLIP,    /* class embedding, patch conv without bias, pre and post LayerNorm */
  VISION_SIGLIP,  /* no class token, patch conv with bias, post LayerNorm, MAP head */
} VisionKind;

static gboolean
read_vision (Cfg        *cfg,
             VisionKind  kind,
             Shape      *s,
             guint64    *image_side)
{
  guint64 channels, patches;
  gboolean use_head = TRUE;
  gboolean qkv_bias = TRUE;
  /* CLIPVisionConfig defaults to ViT-B/32, SiglipVisionConfig to B/16
   * (configuration_clip.py, configuration_siglip.py). */
  guint64 def_patch = kind == VISION_CLIP ? 32 : 16;
  guint64 def_width = kind == VISION_VIT ? 0 : 768;

  if (!cfg_arch (cfg, "hidden_size", def_width, MAX_WIDTH, &s->hidden) ||
      !cfg_arch (cfg, "num_hidden_layers", def_width ? 12 : 0, MAX_LAYERS, &s->layers) ||
      !cfg_heads (cfg, s, "num_attention_heads", def_width ? 12 : 0, NULL, 0) ||
      !cfg_arch (cfg, "intermediate_size", def_width ? 3072 : 0, 1 << 28, &s->intermediate) ||
      !cfg_uint (cfg, "image_size", 224, MAX_IMAGE_SIDE, image_side) ||
      !cfg_uint (cfg, "patch_size", def_patch, MAX_IMAGE_SIDE, &s->patch) ||
      !cfg_uint (cfg, "num_channels", 3, 64, &channels))
    return FALSE;

  if (kind == VISION_VIT && !cfg_bool (cfg, "qkv_bias", TRUE, &qkv_bias))
    return FALSE;
  if (kind == VISION_SIGLIP && !cfg_bool (cfg, "vision_use_head", TRUE, &use_head))
    return FALSE;

  if (*image_side < s->patch)
    return hr_reader_fail (&cfg->reader, "patch_size",
                           _("the patch (%" PRIu64 " pixels) is larger than the image (%"
                             PRIu64 ")"), s->patch, *image_side);

  patches = (*image_side / s->patch) * (*image_side / s->patch);
  s->is_vision = TRUE;
  s->has_logits = FALSE;
  s->qkv_bias = qkv_bias;
  s->out_bias = s->mlp_bias = TRUE;
  s->layernorm = TRUE;
  s->glu = FALSE;
  s->tied = TRUE;
  s->final_norm = TRUE;   /* ViT layernorm, CLIP post_layernorm, SigLIP post_layernorm */

  /* Patch embedding: a conv of channels x patch x patch per output unit. */
  s->extra = (double) channels * s->patch * s->patch * s->hidden;
  switch (kind)
    {
    case VISION_VIT:
      s->extra += s->hidden;                          /* conv bias */
      s->extra += s->hidden;                          /* cls_token */
      s->extra += (double) (patches + 1) * s->hidden; /* position embeddings */
      break;
    case VISION_CLIP:
      s->extra += s->hidden;                          /* class_embedding */
      s->extra += (double) (patches + 1) * s->hidden;
      s->extra += 2.0 * s->hidden;                    /* pre_layrnorm */
      break;
    case VISION_SIGLIP:
      s->extra += s->hidden;                          /* conv bias */
      s->extra += (double) patches * s->hidden;
      if (use_head)
        {
          double h = s->hidden;

          /* SiglipMultiheadAttentionPoolingHead: a probe token, a
           * torch MultiheadAttention (in_proj 3h x h + 3h, out_proj), a
           * LayerNorm and an MLP. */
          s->extra += h + 3 * h * h + 3 * h + h * h + h + 2 * h +
                      2 * h * s->intermediate + s->intermediate + h;
        }
      break;
    default:
      g_assert_not_reached ();
    }

  return TRUE;
}

/* CLIP's and SigLIP's text towers: learned positions, biases, LayerNorm,
 * final LayerNorm, no output head over the vocabulary. */
static gboolean
read_text_tower (Cfg      *cfg,
                 gboolean  siglip,
                 Shape    *s)
{
  guint64 projection;

  if (!cfg_arch (cfg, "vocab_size", siglip ? 32000 : 49408, MAX_VOCAB, &s->vocab) ||
      !cfg_arch (cfg, "hidden_size", siglip ? 768 : 512, MAX_WIDTH, &s->hidden) ||
      !cfg_arch (cfg, "num_hidden_layers", 12, MAX_LAYERS, &s->layers) ||
      !cfg_heads (cfg, s, "num_attention_heads", siglip ? 12 : 8, NULL, 0) ||
      !cfg_arch (cfg, "intermediate_size", siglip ? 3072 : 2048, 1 << 28, &s->intermediate) ||
      !cfg_arch (cfg, "max_position_embeddings", siglip ? 64 : 77, MAX_POSITIONS,
                 &s->positions))
    return FALSE;

  s->max_seq_len = s->positions;
  s->has_logits = FALSE;
  s->qkv_bias = s->out_bias = s->mlp_bias = TRUE;
  s->layernorm = TRUE;
  s->tied = TRUE;   /* no lm_head: the embedding is the only vocab-sized table */
  if (siglip)
    {
      /* SiglipTextTransformer.head: Linear(hidden, projection_size) */
      if (!cfg_uint (cfg, "projection_size", s->hidden, MAX_WIDTH, &projection))
        return FALSE;
      s->extra += (double) s->hidden * projection + projection;
    }
  return TRUE;
}

/* ---- Generic fallback ------------------------------------------------------ */

static gboolean
read_generic (Cfg        *cfg,
              const char *model_type,
              Shape      *s)
{
  g_autofree char *act = NULL;

  /* A vision tower's own width is embed_dim where both are given (Qwen2-VL:
   * hidden_size there is the width it projects to). */
  if (!cfg_uint (cfg, g_str_has_prefix (cfg->prefix, "vision_config")
                        ? "embed_dim|hidden_size|width|d_model|dim"
                        : "hidden_size|n_embd|d_model|dim",
                 REQUIRED, MAX_WIDTH, &s->hidden) ||
      !cfg_uint (cfg, "num_hidden_layers|n_layer|num_layers|n_layers|depth", REQUIRED, MAX_LAYERS,
                 &s->layers) ||
      !cfg_heads (cfg, s, "num_attention_heads|n_head|num_heads|n_heads", 0,
                  "num_key_value_heads|n_kv_heads|num_kv_heads", 0) ||
      !cfg_uint (cfg, "intermediate_size|n_inner|ffn_dim|d_ff|ffn_hidden_size", 4 * s->hidden,
                 1 << 28, &s->intermediate) ||
      !cfg_uint (cfg, "vocab_size", 0, MAX_VOCAB, &s->vocab) ||
      !cfg_uint (cfg, "max_position_embeddings|n_positions|max_seq_len", 0, MAX_CONTEXT,
                 &s->max_seq_len) ||
      !cfg_bool (cfg, "tie_word_embeddings", FALSE, &s->tied))
    return FALSE;

  act = cfg_string (cfg, "hidden_act");
  /* SiLU-activated MLPs are gated in every current family that uses them
   * (Llama, Mistral, Qwen); GELU/ReLU ones mostly are not. */
  s->glu = act != NULL && g_str_equal (act, "silu");
  s->layernorm = !s->glu;
  hr_import_add_note (cfg->import,
                      _("%smodel_type \"%s\" is not one Headroom knows: read as a decoder-only "
                        "transformer from the generic fields, with a %s MLP, %s, no biases, "
                        "%s; the count may be off by the parts that assumption misses"),
                      cfg->prefix, model_type != NULL ? model_type : _("(none)"),
                      s->glu ? _("gated (hidden_act silu)") : _("plain two-layer"),
                      s->layernorm ? "LayerNorm" : "RMSNorm",
                      s->tied ? _("embeddings tied to the output head")
                              : (s->vocab ? _("an untied output head") : _("no vocabulary")));
  return TRUE;
}

/* ---- Reading one (sub-)config into shapes -------------------------------- */

static char *
describe_shape (const Shape *s)
{
  g_autoptr(GString) str = g_string_new (NULL);

  /* Translators: the part's name (as in the model file: "decoder",
   * "vision encoder"), its layers, hidden size and attention heads. */
  g_string_append_printf (str, _("%s: %" PRIu64 " layers, hidden %" PRIu64 ", %" PRIu64
                                 " heads"), s->name, s->layers, s->hidden, s->heads);
  if (s->kv_heads != s->heads)
    g_string_append_printf (str, _(" (%" PRIu64 " key/value)"), s->kv_heads);
  if (s->head_dim * s->heads != s->hidden)
    g_string_append_printf (str, _(" of %" PRIu64), s->head_dim);
  if (s->glu)
    g_string_append_printf (str, _(", gated MLP %" PRIu64), s->intermediate);
  else
    g_string_append_printf (str, _(", plain MLP %" PRIu64), s->intermediate);
  if (s->experts > 0)
    g_string_append_printf (str, _(" x %u experts (%u per token)"), s->experts,
                            s->experts_per_token);
  if (s->vocab > 0 && s->is_vision)
    g_string_append_printf (str, _(", vocab %" PRIu64), s->vocab);
  else if (s->vocab > 0)
    g_string_append_printf (str, s->tied ? _(", vocab %" PRIu64 " (tied head)")
                                         : _(", vocab %" PRIu64 " (untied head)"), s->vocab);
  if (s->patch > 0)
    g_string_append_printf (str, _(", patch %" PRIu64), s->patch);
  g_string_append_printf (str, _(": %.0f parameters"), s->params);
  return g_string_free (g_steal_pointer (&str), FALSE);
}

typedef struct {
  GPtrArray *shapes;   /* Shape */
  guint64    image_side;
  guint64    seq_len;
  const char *family;
  double     extra;    /* projections between towers, counted on the model */
} Parts;

static gboolean read_config_object (HrJsonDoc  *doc,
                                    const char *pointer,
                                    JsonNode   *node,
                                    const char *what,
                                    gboolean    nested,
                                    HrImport   *import,
                                    Parts      *parts,
                                    Shape     **main_shape,
                                    GError    **error);

static gboolean
read_nested (HrJsonDoc  *doc,
             Cfg        *cfg,
             const char *key,
             const char *default_type,
             HrImport   *import,
             Parts      *parts,
             Shape     **shape,
             GError    **error)
{
  JsonNode *node = cfg_get (cfg, key);
  g_autofree char *pointer = hr_reader_child_pointer (&cfg->reader, key);
  g_autofree char *what = g_strconcat (key, ".", NULL);
  g_autoptr(JsonNode) filled = NULL;

  if (node == NULL)
    {
      /* transformers builds the sub-config from its defaults. */
      filled = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (filled, json_object_new ());
      node = filled;
      hr_import_add_note (import, _("%s not given: the defaults of %s assumed"), key,
                          default_type != NULL ? default_type : _("its family"));
    }

  if (default_type != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
      !json_object_has_member (json_node_get_object (node), "model_type"))
    {
      /* Older configs omit the nested model_type: the parent's class
       * decides it. */
      if (filled == NULL)
        filled = json_node_copy (node);
      json_object_set_string_member (json_node_get_object (filled), "model_type", default_type);
      node = filled;
    }

  return read_config_object (doc, pointer, node, what, TRUE, import, parts, shape, error);
}

static gboolean
check_count (Cfg   *cfg,
             Shape *s)
{
  shape_count (s);
  if (!(s->params <= MAX_PARAMS) || s->params < 1)
    return hr_reader_fail (&cfg->reader, NULL,
                           _("the architecture adds up to %.3g parameters, which no model has: "
                             "check the sizes"), s->params);
  return TRUE;
}

static gboolean
read_t5 (Cfg   *cfg,
         Parts *parts)
{
  guint64 d_model, d_kv, d_ff, enc_layers, dec_layers, heads, vocab, buckets, max_len = 0;
  gboolean tied, glu;
  g_autofree char *ff = NULL;
  double inner, attn, ffn, rel, enc, dec, embed;
  Shape *e, *d;

  /* modeling_t5.py: no biases, T5LayerNorm (weight only), a relative
   * attention bias (buckets x heads) in the first layer of each stack, a
   * shared embedding, lm_head tied unless tie_word_embeddings is false
   * (T5 v1.1, Flan-T5). */
  if (!cfg_uint (cfg, "d_model", REQUIRED, MAX_WIDTH, &d_model) ||
      !cfg_uint (cfg, "d_kv", REQUIRED, MAX_WIDTH, &d_kv) ||
      !cfg_uint (cfg, "d_ff", REQUIRED, 1 << 28, &d_ff) ||
      !cfg_uint (cfg, "num_layers", REQUIRED, MAX_LAYERS, &enc_layers) ||
      !cfg_uint (cfg, "num_decoder_layers", enc_layers, MAX_LAYERS, &dec_layers) ||
      !cfg_uint (cfg, "num_heads", REQUIRED, MAX_WIDTH, &heads) ||
      !cfg_uint (cfg, "vocab_size", REQUIRED, MAX_VOCAB, &vocab) ||
      !cfg_uint (cfg, "relative_attention_num_buckets", 32, 1 << 20, &buckets) ||
      !cfg_uint (cfg, "n_positions", 0, MAX_POSITIONS, &max_len) ||
      !cfg_bool (cfg, "tie_word_embeddings", TRUE, &tied))
    return FALSE;

  ff = cfg_string (cfg, "feed_forward_proj");
  glu = ff != NULL && g_str_has_prefix (ff, "gated-");

  inner = (double) heads * d_kv;
  attn = 4.0 * d_model * inner;
  ffn = (glu ? 3.0 : 2.0) * d_model * d_ff;
  rel = (double) buckets * heads;
  embed = (double) vocab * d_model;
  enc = enc_layers * (attn + ffn + 2.0 * d_model) + rel + d_model;
  dec = dec_layers * (2 * attn + ffn + 3.0 * d_model) + rel + d_model;

  e = shape_new ("encoder");
  d = shape_new ("decoder");
  g_ptr_array_add (parts->shapes, e);
  g_ptr_array_add (parts->shapes, d);

  for (guint i = 0; i < 2; i++)
    {
      Shape *s = i == 0 ? e : d;

      s->hidden = d_model;
      s->layers = i == 0 ? enc_layers : dec_layers;
      s->heads = s->kv_heads = heads;
      s->head_dim = d_kv;
      s->intermediate = d_ff;
      s->glu = glu;
      s->layernorm = FALSE;
      s->max_seq_len = max_len;
      s->has_count = TRUE;
    }
  /* The shared embedding sits with the encoder; the decoder's logits use
   * it too (tied), or its own lm_head. */
  e->params = enc + embed;
  e->has_logits = FALSE;
  d->params = dec + (tied ? 0 : embed);
  d->vocab = vocab;
  d->tied = tied;
  shape_count (e);
  shape_count (d);
  parts->family = "llm";
  parts->seq_len = 512;
  hr_import_add_note (cfg->import, _("the shared token embedding is counted with the encoder"));
  return TRUE;
}

/* A ViT, CLIP or SigLIP vision tower into *@out (which the caller frees
 * whether or not it is read). */
static gboolean
read_vision_tower (Cfg        *cfg,
                   const char *model_type,
                   gboolean    nested,
                   HrImport   *import,
                   Parts      *parts,
                   Shape     **out)
{
  Shape *s;
  guint64 side = 0;
  VisionKind kind = g_str_equal (model_type, "vit") ? VISION_VIT
                    : g_str_equal (model_type, "clip_vision_model") ? VISION_CLIP
                    : VISION_SIGLIP;

  s = *out = shape_new ("vision encoder");
  if (!read_vision (cfg, kind, s, &side))
    return FALSE;

  if (kind == VISION_VIT && !nested)
    {
      JsonNode *archs = cfg_get (cfg, "architectures");
      JsonNode *labels = cfg_get (cfg, "id2label");
      gboolean classifier = FALSE;

      if (archs != NULL && JSON_NODE_HOLDS_ARRAY (archs))
        {
          JsonArray *a = json_node_get_array (archs);

          for (guint i = 0; i < json_array_get_length (a); i++)
            {
              const char *name = json_array_get_string_element (a, i);

              if (name != NULL && g_str_has_suffix (name, "ForImageClassification"))
                classifier = TRUE;
            }
        }

      if (classifier)
        {
          /* ViTForImageClassification: no pooler, a linear classifier
           * over the labels. */
          guint64 n = 2;

          if (labels != NULL && JSON_NODE_HOLDS_OBJECT (labels))
            n = json_object_get_size (json_node_get_object (labels));
          else if (!cfg_uint (cfg, "num_labels", 2, 1 << 24, &n))
            return FALSE;
          s->extra += (double) n * s->hidden + n;
          hr_import_add_note (import, _("counted with the image-classification head over %"
                                        PRIu64 " labels"), n);
        }
      else
        {
          s->extra += (double) s->hidden * s->hidden + s->hidden;
          hr_import_add_note (import, _("counted as ViTModel with its pooler"));
        }
    }

  if (!check_count (cfg, s))
    return FALSE;
  if (parts->image_side == 0)
    parts->image_side = side;
  if (parts->family == NULL)
    parts->family = "encoder";
  return TRUE;
}

/* A CLIP or SigLIP pair: its vision and text towers, the projections
 * between them and the logit scale. */
static gboolean
read_dual_encoder (HrJsonDoc  *doc,
                   Cfg        *cfg,
                   const char *model_type,
                   HrImport   *import,
                   Parts      *parts,
                   GError    **error)
{
  gboolean siglip = g_str_equal (model_type, "siglip");
  Shape *text = NULL, *vision = NULL;
  guint64 projection = 512;

  if (!read_nested (doc, cfg, "vision_config",
                    siglip ? "siglip_vision_model" : "clip_vision_model", import, parts,
                    &vision, error) ||
      !read_nested (doc, cfg, "text_config",
                    siglip ? "siglip_text_model" : "clip_text_model", import, parts, &text,
                    error))
    return FALSE;

  if (text == NULL || vision == NULL)
    {
      hr_reader_fail (&cfg->reader, text == NULL ? "text_config" : "vision_config",
                      _("the %s must describe one transformer tower"),
                      text == NULL ? "text_config" : "vision_config");
      return FALSE;
    }

  if (siglip)
    parts->extra += 2;   /* logit_scale, logit_bias */
  else
    {
      /* text_projection and visual_projection (no bias), logit_scale */
      if (!cfg_uint (cfg, "projection_dim", 512, MAX_WIDTH, &projection))
        return FALSE;
      text->extra += (double) projection * text->hidden;
      vision->extra += (double) projection * vision->hidden;
      shape_count (text);
      shape_count (vision);
      parts->extra += 1;
    }
  parts->family = "encoder";
  return TRUE;
}

/* A LLaVA or Gemma 3 model: a vision tower, a language model, and the
 * projector between them counted with the language model. */
static gboolean
read_vision_language (HrJsonDoc  *doc,
                      Cfg        *cfg,
                      const char *model_type,
                      HrImport   *import,
                      Parts      *parts,
                      GError    **error)
{
  gboolean gemma3 = g_str_equal (model_type, "gemma3");
  Shape *text = NULL, *vision = NULL;
  gboolean bias = TRUE;

  if (!read_nested (doc, cfg, "vision_config",
                    gemma3 ? "siglip_vision_model" : "clip_vision_model", import, parts,
                    &vision, error) ||
      !read_nested (doc, cfg, "text_config", gemma3 ? "gemma3_text" : "llama", import,
                    parts, &text, error))
    return FALSE;

  if (text == NULL || vision == NULL)
    {
      hr_reader_fail (&cfg->reader, text == NULL ? "text_config" : "vision_config",
                      _("the %s must describe one transformer"),
                      text == NULL ? "text_config" : "vision_config");
      return FALSE;
    }

  if (gemma3)
    {
      /* Gemma3MultiModalProjector: a vision x text matrix and an
       * RMSNorm over the vision width. */
      text->extra += (double) vision->hidden * text->hidden + vision->hidden;
    }
  else
    {
      /* LlavaMultiModalProjector: two linears (vision -> text -> text). */
      if (!cfg_bool (cfg, "multimodal_projector_bias", TRUE, &bias))
        return FALSE;
      text->extra += (double) vision->hidden * text->hidden + (double) text->hidden *
                     text->hidden + (bias ? 2.0 * text->hidden : 0);
    }
  hr_import_add_note (import, _("the multimodal projector is counted with the language "
                                "model; every vision layer is counted, as the checkpoint "
                                "stores them all"));
  shape_count (text);
  parts->family = "llm";
  return TRUE;
}

/* A config of an unknown model_type that nests text_config or
 * vision_config; a language model at its top level goes into *@out
 * (which the caller frees whether or not it is read). */
static gboolean
read_nested_generic (HrJsonDoc  *doc,
                     Cfg        *cfg,
                     const char *model_type,
                     HrImport   *import,
                     Parts      *parts,
                     Shape     **out,
                     GError    **error)
{
  Shape *sub = NULL, *s = NULL;

  /* Nested configs without a model_type are read from the generic
   * fields: the parent's type says nothing Headroom knows about them. */
  if (cfg_get (cfg, "vision_config") != NULL &&
      !read_nested (doc, cfg, "vision_config", NULL, import, parts, &sub, error))
    return FALSE;
  if (cfg_get (cfg, "text_config") != NULL)
    {
      if (!read_nested (doc, cfg, "text_config", NULL, import, parts, &sub, error))
        return FALSE;
    }
  else if (cfg_get (cfg, "num_hidden_layers") != NULL)
    {
      /* Qwen2-VL and its kin keep the language model at the top level. */
      s = *out = shape_new ("language model");
      if (!read_generic (cfg, model_type, s) || !check_count (cfg, s))
        return FALSE;
    }
  hr_import_add_note (import, _("model_type \"%s\" is read as its nested configs; the "
                                "connector between them is not counted"),
                      model_type != NULL ? model_type : _("(none)"));
  if (parts->family == NULL || s != NULL)
    parts->family = "llm";
  return TRUE;
}

static gboolean
read_config_object (HrJsonDoc  *doc,
                    const char *pointer,
                    JsonNode   *node,
                    const char *what,
                    gboolean    nested,
                    HrImport   *import,
                    Parts      *parts,
                    Shape     **main_shape,
                    GError    **error)
{
  Cfg cfg;
  g_autofree char *model_type = NULL;
  const DecoderFamily *family;
  g_autoptr(Shape) s = NULL;
  gboolean ok = FALSE;

  if (!cfg_init (&cfg, doc, pointer, node, what, import, nested, error))
    return FALSE;

  model_type = cfg_string (&cfg, "model_type");
  if (!nested && import->model_type == NULL)
    import->model_type = g_strdup (model_type);
  family = find_decoder_family (model_type);

  if (family != NULL)
    {
      s = shape_new (nested ? "language model" : "decoder");
      if (!read_gated_decoder (&cfg, family, s) || !check_count (&cfg, s))
        goto out;
      parts->family = "llm";
    }
  else if (g_strcmp0 (model_type, "deepseek_v2") == 0 ||
           g_strcmp0 (model_type, "deepseek_v3") == 0)
    {
      s = shape_new (nested ? "language model" : "decoder");
      if (!read_deepseek (&cfg, s) || !check_count (&cfg, s))
        goto out;
      parts->family = "llm";
    }
  else if (g_strcmp0 (model_type, "gpt2") == 0 || g_strcmp0 (model_type, "gpt_neox") == 0 ||
           g_strcmp0 (model_type, "falcon") == 0 || g_strcmp0 (model_type, "RefinedWeb") == 0 ||
           g_strcmp0 (model_type, "RefinedWebModel") == 0 || g_strcmp0 (model_type, "opt") == 0)
    {
      gboolean read;

      s = shape_new (nested ? "language model" : "decoder");
      if (g_str_equal (model_type, "gpt2"))
        read = read_gpt2 (&cfg, s);
      else if (g_str_equal (model_type, "gpt_neox"))
        read = read_gpt_neox (&cfg, s);
      else if (g_str_equal (model_type, "opt"))
        read = read_opt (&cfg, s);
      else
        read = read_falcon (&cfg, s);
      if (!read || !check_count (&cfg, s))
        goto out;
      parts->family = "llm";
    }
  else if (g_strcmp0 (model_type, "bert") == 0 || g_strcmp0 (model_type, "roberta") == 0 ||
           g_strcmp0 (model_type, "xlm-roberta") == 0)
    {
      s = shape_new ("encoder");
      if (!read_bert (&cfg, s) || !check_count (&cfg, s))
        goto out;
      parts->family = "encoder";
      parts->seq_len = MIN (512, s->max_seq_len);
    }
  else if (g_strcmp0 (model_type, "t5") == 0 || g_strcmp0 (model_type, "mt5") == 0)
    {
      if (!read_t5 (&cfg, parts))
        goto out;
    }
  else if (g_strcmp0 (model_type, "vit") == 0 || g_strcmp0 (model_type, "clip_vision_model") == 0 ||
           g_strcmp0 (model_type, "siglip_vision_model") == 0)
    {
      if (!read_vision_tower (&cfg, model_type, nested, import, parts, &s))
        goto out;
    }
  else if (g_strcmp0 (model_type, "clip_text_model") == 0 ||
           g_strcmp0 (model_type, "siglip_text_model") == 0)
    {
      s = shape_new ("text encoder");
      if (!read_text_tower (&cfg, g_str_equal (model_type, "siglip_text_model"), s) ||
          !check_count (&cfg, s))
        goto out;
      parts->seq_len = s->max_seq_len;
    }
  else if (nested && (g_strcmp0 (model_type, "clip") == 0 ||
                      g_strcmp0 (model_type, "siglip") == 0 ||
                      g_strcmp0 (model_type, "llava") == 0 ||
                      g_strcmp0 (model_type, "gemma3") == 0 ||
                      cfg_get (&cfg, "text_config") != NULL ||
                      cfg_get (&cfg, "vision_config") != NULL))
    {
      hr_reader_fail (&cfg.reader, NULL, _("a nested config cannot hold further nested configs"));
      goto out;
    }
  else if (g_strcmp0 (model_type, "clip") == 0 || g_strcmp0 (model_type, "siglip") == 0)
    {
      if (!read_dual_encoder (doc, &cfg, model_type, import, parts, error))
        goto out;
    }
  else if (g_strcmp0 (model_type, "llava") == 0 || g_strcmp0 (model_type, "gemma3") == 0)
    {
      if (!read_vision_language (doc, &cfg, model_type, import, parts, error))
        goto out;
    }
  else if (cfg_get (&cfg, "text_config") != NULL || cfg_get (&cfg, "vision_config") != NULL)
    {
      if (!read_nested_generic (doc, &cfg, model_type, import, parts, &s, error))
        goto out;
    }
  else
    {
      s = shape_new (!nested ? "decoder" : g_str_has_prefix (what, "vision") ? "vision encoder"
                                                                           : "language model");
      if (!read_generic (&cfg, model_type, s) || !check_count (&cfg, s))
        goto out;
      if (parts->family == NULL)
        parts->family = s->vocab > 0 ? "llm" : "other";
    }

  if (s != NULL)
    {
      if (main_shape != NULL)
        *main_shape = s;
      shape_count (s);
      g_ptr_array_add (parts->shapes, g_steal_pointer (&s));
    }
  ok = TRUE;

out:
  hr_reader_clear (&cfg.reader);
  return ok;
}

/* ---- The model object ----------------------------------------------------- */

static void
add_shape_members (JsonBuilder *b,
                   const Shape *s)
{
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, "transformer");
  json_builder_set_member_name (b, "layers");
  json_builder_add_int_value (b, s->layers);
  json_builder_set_member_name (b, "hidden");
  json_builder_add_int_value (b, s->hidden);
  json_builder_set_member_name (b, "heads");
  json_builder_add_int_value (b, s->heads);
  if (s->kv_heads != s->heads)
    {
      json_builder_set_member_name (b, "kv_heads");
      json_builder_add_int_value (b, s->kv_heads);
    }
  if (s->head_dim * s->heads != s->hidden)
    {
      json_builder_set_member_name (b, "head_dim");
      json_builder_add_int_value (b, s->head_dim);
    }
  json_builder_set_member_name (b, "intermediate");
  json_builder_add_int_value (b, s->intermediate);
  if (s->vocab > 0 && s->has_logits)
    {
      json_builder_set_member_name (b, "vocab");
      json_builder_add_int_value (b, s->vocab);
      json_builder_set_member_name (b, "tied_embeddings");
      json_builder_add_boolean_value (b, s->tied);
    }
  json_builder_set_member_name (b, "glu");
  json_builder_add_boolean_value (b, s->glu);
  json_builder_set_member_name (b, "norm");
  json_builder_add_string_value (b, s->layernorm ? "layernorm" : "rmsnorm");
  if (s->max_seq_len > 0 && s->max_seq_len <= MAX_POSITIONS)
    {
      json_builder_set_member_name (b, "max_seq_len");
      json_builder_add_int_value (b, s->max_seq_len);
    }
  if (s->patch > 0)
    {
      json_builder_set_member_name (b, "patch");
      json_builder_add_int_value (b, s->patch);
    }
}

static char *
model_display_name (HrJsonDoc  *doc,
                    const char *display_name)
{
  JsonNode *root = hr_json_doc_get_root (doc);
  JsonObject *object = json_node_get_object (root);
  const char *name_or_path = NULL;
  g_autofree char *base = NULL;

  if (json_object_has_member (object, "_name_or_path"))
    {
      JsonNode *n = json_object_get_member (object, "_name_or_path");

      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        name_or_path = json_node_get_string (n);
    }

  if (name_or_path != NULL && name_or_path[0] != '\0')
    {
      g_autofree char *trimmed = g_strdup (name_or_path);
      size_t len = strlen (trimmed);

      while (len > 1 && trimmed[len - 1] == '/')
        trimmed[--len] = '\0';
      base = g_path_get_basename (trimmed);
      /* a model's name is a title, and the catalog reads none longer than
       * 4096 characters: a longer "_name_or_path" is cut */
      if (g_utf8_validate (base, -1, NULL) && g_utf8_strlen (base, -1) > 256)
        return g_utf8_substring (base, 0, 256);
      return g_steal_pointer (&base);
    }

  base = g_path_get_basename (display_name);
  if (g_str_equal (base, "config.json"))
    {
      g_autofree char *dir = g_path_get_dirname (display_name);
      g_autofree char *dir_base = g_path_get_basename (dir);

      if (!g_str_equal (dir_base, ".") && !g_str_equal (dir_base, "/"))
        return g_steal_pointer (&dir_base);
    }
  return NULL;
}

static HrImport *
import_from_doc (HrJsonDoc  *doc,
                 GError    **error)
{
  const char *display_name = hr_json_doc_get_name (doc);
  g_autoptr(HrImport) import = NULL;
  g_autoptr(GPtrArray) shapes = g_ptr_array_new_with_free_func ((GDestroyNotify) shape_free);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *name = NULL;
  g_autofree char *id = NULL;
  g_autofree char *source = NULL;
  Parts parts = { 0 };
  double total = 0, active = 0;

  import = hr_import_new (HR_IMPORT_HF_CONFIG, display_name);
  parts.shapes = shapes;

  if (!read_config_object (doc, "", hr_json_doc_get_root (doc), "config", FALSE, import, &parts,
                           NULL, error))
    return NULL;

  for (guint i = 0; i < shapes->len; i++)
    {
      Shape *s = g_ptr_array_index (shapes, i);

      total += s->params;
      active += s->active;
      if (s->experts > 0)
        {
          import->experts = s->experts;
          import->experts_per_token = s->experts_per_token;
        }
      g_ptr_array_add (import->read, describe_shape (s));
    }
  total += parts.extra;
  active += parts.extra;

  if (!(total <= MAX_PARAMS))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, "", FALSE,
                         _("the architecture adds up to %.3g parameters, which no model has: "
                           "check the sizes"), total);
      return NULL;
    }

  import->params = (guint64) total;
  import->active_params = (guint64) active;
  if (import->experts > 0)
    hr_import_add_note (import, _("mixture of experts: all %u experts are stored (%"
                                  PRIu64 " parameters), %u run per token (%"
                                  PRIu64 " active)"), import->experts, import->params,
                        import->experts_per_token, import->active_params);

  name = model_display_name (doc, display_name);
  if (name == NULL)
    name = hr_import_clip (import->model_type != NULL ? import->model_type : "imported-model");
  id = hr_import_make_id (name);
  {
    g_autofree char *path = hr_import_clip (display_name);
    g_autofree char *type = hr_import_clip (import->model_type != NULL ? import->model_type
                                                                       : "not given");

    source = g_strdup_printf ("Imported by Headroom from %s (Hugging Face config.json, "
                              "model_type %s); parameter count computed from the architecture",
                              path, type);
  }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, id);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "family");
  json_builder_add_string_value (b, parts.family != NULL ? parts.family : "other");
  json_builder_set_member_name (b, "params");
  json_builder_add_int_value (b, import->params);
  json_builder_set_member_name (b, "framework");
  json_builder_add_string_value (b, "pytorch");
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source);
  if (parts.seq_len > 0)
    {
      json_builder_set_member_name (b, "seq_len");
      json_builder_add_int_value (b, parts.seq_len);
    }
  if (parts.image_side > 0)
    {
      json_builder_set_member_name (b, "image_size");
      json_builder_add_int_value (b, parts.image_side);
    }

  if (shapes->len == 1 && parts.extra == 0)
    add_shape_members (b, g_ptr_array_index (shapes, 0));
  else
    {
      json_builder_set_member_name (b, "components");
      json_builder_begin_array (b);
      for (guint i = 0; i < shapes->len; i++)
        {
          Shape *s = g_ptr_array_index (shapes, i);
          /* Model-level extras (CLIP's logit scale) go with the last part. */
          double params = s->params + (i + 1 == shapes->len ? parts.extra : 0);

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, s->name);
          json_builder_set_member_name (b, "params");
          json_builder_add_int_value (b, (gint64) params);
          json_builder_set_member_name (b, "trainable");
          json_builder_add_boolean_value (b, TRUE);
          add_shape_members (b, s);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  import->model = json_builder_get_root (b);

  return g_steal_pointer (&import);
}

HrImport *
hr_import_hf_config_parse (const char  *display_name,
                           const char  *data,
                           gsize        length,
                           GError     **error)
{
  g_autoptr(HrJsonDoc) doc = NULL;

  g_return_val_if_fail (display_name != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  doc = hr_json_doc_load_data (display_name, data, length, error);
  return doc != NULL ? import_from_doc (doc, error) : NULL;
}

HrImport *
hr_import_hf_config_load (const char  *path,
                          GError     **error)
{
  g_autoptr(HrJsonDoc) doc = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  doc = hr_json_doc_load_file (path, error);
  return doc != NULL ? import_from_doc (doc, error) : NULL;
}

void
hr_import_hf_set_exact_params (HrImport *import,
                               guint64   params)
{
  JsonObject *model;

  g_return_if_fail (import != NULL);

  import->params_from_config = import->params;
  if (import->experts == 0)
    import->active_params = params;
  import->params = params;
  import->params_exact = TRUE;

  if (import->model == NULL)
    return;

  model = json_node_get_object (import->model);
  json_object_set_int_member (model, "params", params);

  if (json_object_has_member (model, "components"))
    {
      /* The parts keep their shapes' counts; the largest absorbs the
       * difference, so that they add up to the exact total. */
      JsonArray *list = json_object_get_array_member (model, "components");
      JsonObject *largest = NULL;
      gint64 sum = 0, largest_params = 0;

      for (guint i = 0; i < json_array_get_length (list); i++)
        {
          JsonObject *c = json_array_get_object_element (list, i);
          gint64 p = json_object_get_int_member (c, "params");

          sum += p;
          if (p > largest_params)
            {
              largest_params = p;
              largest = c;
            }
        }
      if (largest != NULL && largest_params + ((gint64) params - sum) > 0)
        json_object_set_int_member (largest, "params",
                                    largest_params + ((gint64) params - sum));
    }
}
