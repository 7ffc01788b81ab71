/* hr-catalog.h: models and GPUs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-arch.h"
#include "hr-json.h"
#include "hr-types.h"

G_BEGIN_DECLS

typedef enum {
  HR_COMPONENT_TRANSFORMER,
  HR_COMPONENT_CNN,
  HR_COMPONENT_UNET,
  HR_COMPONENT_RSSM,
  HR_COMPONENT_MLP,
  /* a part given only its parameter count (a frozen VQ-GAN, a VAE, an
   * encoder whose blocks are unknown): its weights are counted, it never
   * trains, and its forward working set is an assumed share of them */
  HR_COMPONENT_WEIGHTS_ONLY,
} HrComponentKind;

extern const HrEnumName hr_component_kind_names[];

typedef enum {
  HR_SCALING_PIXELS,
  HR_SCALING_SEQ,
  HR_SCALING_NONE,
} HrScaling;

typedef enum {
  HR_TOKENS_SEQ_LEN,   /* the scenario's seq_len */
  HR_TOKENS_FIXED,     /* a fixed count, such as an action chunk */
  HR_TOKENS_PATCHES,   /* image patches, from the scenario's image_size */
} HrTokenSource;

/* How a transformer's attention scores are formed, where that changes what
 * eager attention keeps. */
typedef enum {
  HR_ATTENTION_VARIANT_STANDARD,
  HR_ATTENTION_VARIANT_T5,        /* relative position bias, shared by every layer */
  HR_ATTENTION_VARIANT_DEBERTA,   /* disentangled content/position attention */
  /* code that computes softmax(q k^T) itself whatever the scenario's
   * attention kernel: torch.nn.MultiheadAttention called with need_weights
   * (its default), timm 0.3's Attention */
  HR_ATTENTION_VARIANT_MATH,
} HrAttentionVariant;

extern const HrEnumName hr_attention_variant_names[];

/* Where a catalog entry comes from, for a "custom" badge in the pickers. */
typedef enum {
  HR_ORIGIN_BUILTIN,        /* the catalog built into Headroom */
  HR_ORIGIN_USER,           /* the user's catalog ($XDG_DATA_HOME/headroom) */
  HR_ORIGIN_USER_OVERRIDE,  /* the user's catalog, replacing the built-in entry of that id */
} HrOrigin;

typedef struct {
  char            *name;
  HrComponentKind  kind;
  guint64          params;
  gboolean         trainable;
  gboolean         backprop;

  /* kind == HR_COMPONENT_TRANSFORMER */
  guint            layers;
  guint            hidden;
  guint            heads;
  guint            kv_heads;
  guint            head_dim;
  guint            intermediate;
  guint            vocab;
  gboolean         glu;
  /* HunyuanVideo's single-stream blocks: one linear projects to the
   * queries, keys, values and the MLP's input at once */
  gboolean         single_stream;
  gboolean         rmsnorm;
  gboolean         dropout;
  gboolean         tied_embeddings;
  HrAttentionVariant attention_variant;
  guint            max_seq_len;
  HrTokenSource    tokens_from;
  guint            tokens;
  guint            patch;
  guint            images;
  guint            token_merge;
  /* video: input frames per latent frame (the VAE's temporal compression;
   * 0 for images), and tokens every sample adds beyond its patches (the
   * text tokens of joint attention) */
  guint            temporal_compression;
  guint            extra_tokens;
  /* a decoder whose every layer also attends to an encoder's output of
   * this many tokens (Whisper's 1500 audio tokens); 0 for none */
  guint            cross_attention_tokens;

  /* A mixture of experts, when experts > 0: every layer after the first
   * first_dense_layers (dense, of `intermediate`) routes each token to
   * experts_per_token of `experts` MLPs of expert_intermediate, beside
   * shared_experts always-on MLPs of shared_expert_intermediate. */
  guint            experts;
  guint            experts_per_token;
  guint            expert_intermediate;
  guint            shared_experts;
  guint            shared_expert_intermediate;
  guint            first_dense_layers;
  /* Multi-head latent attention (DeepSeek-V2/V3), when kv_lora_rank > 0:
   * queries through a rank-q_lora_rank bottleneck (none when 0), keys and
   * values decompressed from a kv_lora_rank latent; query and key heads of
   * qk_nope_head_dim + qk_rope_head_dim (head_dim holds the sum), value
   * heads of v_head_dim.  v_head_dim is head_dim for other attention. */
  guint            q_lora_rank;
  guint            kv_lora_rank;
  guint            qk_rope_head_dim;
  guint            v_head_dim;
  /* Not read from a file: the routed experts one GPU holds, where the
   * estimator splits them (0: all of them). */
  guint            experts_local;

  /* Calibrated activations (CNN, U-Net, RSSM, MLP) */
  gboolean         has_activation;
  double           act_bytes_per_sample;
  HrDtype          act_dtype;
  guint            act_ref_width;
  guint            act_ref_height;
  guint            act_ref_seq_len;
  HrScaling        act_scaling;
  double           act_spread;   /* the figure's relative uncertainty, ± */
  gboolean         act_from_peak;
  guint64          peak_bytes;
  guint            peak_micro_batch;
  HrMetric         peak_metric;
  char            *act_source;

  /* Activations from the architecture (CNN, U-Net, VAE: hr-arch.h), NULL
   * for transformers and calibrated parts */
  HrArch          *arch;
} HrComponent;

typedef struct {
  char        *id;
  char        *name;
  char        *family;
  char        *source;
  guint64      params;
  HrFramework  framework;

  /* Scenario defaults; 0 (or FALSE) where the model names none. */
  guint        seq_len;
  guint        image_width;
  guint        image_height;
  guint        micro_batch;
  guint        frames;      /* video models: frames per sample */
  double       audio_seconds;  /* speech models: seconds of audio per sample */
  gboolean     has_method;
  HrMethod     method;
  gboolean     has_compute;
  HrCompute    compute;

  /* One or more parts; a plain transformer has one, named after the model. */
  GPtrArray   *components;

  /* The object as written, for `models --json` and for saving scenarios. */
  JsonNode    *json;

  HrOrigin     origin;
} HrModel;

typedef struct {
  char       *id;
  char       *name;
  char       *vendor;
  char       *source;
  char       *price_as_of;
  HrGpuTier   tier;
  guint64     memory;
  double      memory_nominal_gb;
  guint64     bandwidth;
  double      fp32_tflops;
  double      tf32_tflops;
  double      bf16_tflops;
  guint       tdp_watts;
  double      price_usd;           /* < 0 when unknown */
  double      cloud_usd_per_hour;  /* < 0 when unknown */
  double      used_price_usd;      /* a used card, < 0 when none is offered */
  char       *used_price_as_of;
  JsonNode   *json;
  HrOrigin    origin;
} HrGpu;

HrComponent *hr_component_copy (const HrComponent *component);
void         hr_component_free (HrComponent       *component);

HrModel     *hr_model_copy     (const HrModel     *model);
void         hr_model_free     (HrModel           *model);
HrModel     *hr_model_from_json (HrJsonDoc        *doc,
                                 const char       *pointer,
                                 JsonNode         *node,
                                 GError          **error);
guint64      hr_model_trainable_default (const HrModel *model);

HrGpu       *hr_gpu_copy       (const HrGpu       *gpu);
void         hr_gpu_free       (HrGpu             *gpu);
HrGpu       *hr_gpu_from_json  (HrJsonDoc         *doc,
                                const char        *pointer,
                                JsonNode          *node,
                                GError           **error);

/* Tokens one sample puts through a transformer component. */
guint        hr_component_tokens (const HrComponent *component,
                                  guint              seq_len,
                                  guint              image_width,
                                  guint              image_height);
/* The same for a video of @frames frames (1 for an image). */
guint        hr_component_tokens_video (const HrComponent *component,
                                        guint              seq_len,
                                        guint              image_width,
                                        guint              image_height,
                                        guint              frames);
/* Parameters of the component's linear layers (the ones quantisation and
 * LoRA act on), from its shape; 0 for calibrated components. */
guint64      hr_component_linear_params (const HrComponent *component);
/* Embedding (and untied output head) parameters. */
guint64      hr_component_embedding_params (const HrComponent *component);
/* One layer's attention projections (standard, grouped-query or latent). */
guint64      hr_component_attention_params (const HrComponent *component);
/* Every layer's MLP projections: the dense layers', and in the MoE layers
 * every routed expert (of those one GPU holds, see experts_local), the
 * shared experts and the router. */
guint64      hr_component_mlp_params       (const HrComponent *component);
/* The routed experts' projections alone, every expert of every layer. */
guint64      hr_component_expert_params    (const HrComponent *component);
/* The norms' weights (and LayerNorm biases), the final norm included. */
guint64      hr_component_norm_params      (const HrComponent *component);
/* What the shape adds up to: projections, embeddings and norms. */
guint64      hr_component_shape_params     (const HrComponent *component);
/* Parameters one token passes through: for a mixture of experts the
 * experts_per_token routed experts of each MoE layer, not all of them. */
guint64      hr_component_active_params    (const HrComponent *component);
gboolean     hr_component_is_moe           (const HrComponent *component);
/* A causal language model, alone ("llm") or fed by a vision tower ("vlm"):
 * its transformer with a vocabulary computes next-token logits. */
gboolean     hr_model_is_language_model    (const HrModel     *model);
/* Layers with routed experts (0 for a dense transformer). */
guint        hr_component_moe_layers       (const HrComponent *component);
gboolean     hr_component_is_mla           (const HrComponent *component);

typedef struct _HrCatalog HrCatalog;

HrCatalog   *hr_catalog_new            (void);
void         hr_catalog_free           (HrCatalog   *catalog);
gboolean     hr_catalog_load_models    (HrCatalog   *catalog,
                                        HrJsonDoc   *doc,
                                        GError     **error);
gboolean     hr_catalog_load_gpus      (HrCatalog   *catalog,
                                        HrJsonDoc   *doc,
                                        GError     **error);
/* The catalogs built into hr-core, then the user's own files in
 * $XDG_DATA_HOME/headroom/{models,gpus}.json, which add or override entries
 * by id.  A user file that cannot be read is skipped with a warning kept in
 * hr_catalog_get_warnings(): the built-in entries are never lost. */
HrCatalog   *hr_catalog_get_default    (void);
/* A new catalog read the same way, as the files are now: what the window
 * reads again after hr_user_catalog_save() or _remove() (free it with
 * hr_catalog_free). */
HrCatalog   *hr_catalog_new_default    (void);
/* Reads the catalogs again into the default one when the user's files
 * changed since it read them (nothing otherwise): hr_catalog_get_default()
 * keeps its address and finds the new entries; entries found before stay
 * valid.  Main thread only. */
void         hr_catalog_reload_default (void);
const char * const *hr_catalog_get_warnings (HrCatalog *catalog);
/* Whether @id may be a catalog id: lowercase letters, digits, '-', '.', '_'. */
gboolean     hr_catalog_id_is_valid    (const char  *id);

const HrModel *hr_catalog_find_model   (HrCatalog   *catalog,
                                        const char  *id);
const HrGpu   *hr_catalog_find_gpu     (HrCatalog   *catalog,
                                        const char  *id);
/* Arrays of const HrModel * / const HrGpu *, in file order; owned by the
 * catalog (transfer none). */
GPtrArray   *hr_catalog_get_models     (HrCatalog   *catalog);
GPtrArray   *hr_catalog_get_gpus       (HrCatalog   *catalog);

/* The closest ids to a misspelt one, for "did you mean" hints. */
char        *hr_catalog_suggest_model  (HrCatalog   *catalog,
                                        const char  *id);
char        *hr_catalog_suggest_gpu    (HrCatalog   *catalog,
                                        const char  *id);

/* The pickers' search: whether every token of @query (split at white
 * space, compared case-insensitively) begins a word of one of @fields
 * ("qwen" in "Qwen2.5 7B", "2.5" in "qwen2.5", never "7b" in "27B"), or,
 * written as a size ("7b", "7.6B", "350m"; k, m, b, t), names @params:
 * "7b" any count from 7.0 to 7.99 billion, "7.6b" one that rounds to
 * 7.6 billion.  An empty query matches everything; @params 0 has no size. */
gboolean     hr_catalog_search_matches (const char          *query,
                                        const char * const  *fields,
                                        guint64              params);
/* hr_catalog_search_matches() over a model's name, id and family. */
gboolean     hr_catalog_model_matches  (const HrModel       *model,
                                        const char          *query);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrModel, hr_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrGpu, hr_gpu_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrCatalog, hr_catalog_free)

G_END_DECLS
