/* hr-estimate-serving.c: the serving engines
 *
 * - vLLM (vllm-project/vllm @0012cf6, vllm/v1/worker/gpu_worker.py,
 *   Worker.determine_available_memory): the engine profiles one forward
 *   pass of max_num_batched_tokens dummy tokens (with the sampler on
 *   max_num_seqs sequences), takes the allocator's peak plus the memory
 *   allocated outside PyTorch (the CUDA context, NCCL's buffers), and
 *   gives the KV cache what is left of gpu_memory_utilization x the card:
 *   available = total x gpu_memory_utilization - peak.  The cache is cut
 *   into blocks of block_size tokens (vllm/v1/core/kv_cache_utils.py,
 *   get_num_blocks: available // page_size // layers).  CUDA graphs are
 *   captured afterwards (compile_or_warm_up_model, capture_model), beside
 *   the pool.  nvidia-smi therefore shows about the pool plus the graphs,
 *   whatever the model needs, and the pool is the limit: the model and
 *   one full sequence per micro-batch must fit in it (hr-fit-rule.c).
 * - SGLang (sgl-project/sglang @01cc04e,
 *   python/sglang/srt/model_executor/model_runner.py,
 *   profile_max_num_token): after loading the weights, rest =
 *   free memory - total x (1 - mem_fraction_static) goes to the KV pool;
 *   the activations and CUDA graphs live in the (1 - mem_fraction_static)
 *   left outside it.  A token takes K and V of every layer (the latent
 *   and its rotary part under MLA).
 * - llama.cpp (ggml-org/llama.cpp @a5410f0, src/llama-model.cpp
 *   load_tensors): -ngl N puts the last N repeating layers on the GPU and,
 *   when N exceeds the layer count, the output layer too; the token
 *   embedding stays in host memory.  The KV cache of the offloaded layers
 *   is on the GPU in its cache type (f16, q8_0, q4_0); the compute buffer
 *   is the graph reserved for one micro-batch (n_ubatch, 512) over the
 *   context.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-estimate-private.h"

/* Memory allocated outside PyTorch's allocator by NCCL and the engines'
 * custom all-reduce when a model is split over GPUs: NCCL's buffers
 * (NCCL_BUFFSIZE, 4 MiB per channel and peer, for each communicator the
 * engine opens) and vLLM's custom all-reduce buffers
 * (vllm/distributed/device_communicators/custom_all_reduce.py, max_size
 * 8 MiB per rank, registered for CUDA graphs).  Calibrated: vLLM's own
 * profile of Meta-Llama-3-8B on H100s logs non_torch_memory 1.79 GiB on
 * one GPU and 3.58 GiB over two (vllm-project/vllm pull request #10511,
 * 2024-12-14; validation row 506, marked calibration), so the second GPU
 * costs 1.79 GiB beside the allocator.  SGLang's pool on four H100s
 * (validation row 502, not calibrated from) agrees within 1%.  The range
 * is assumed: a quarter of it where NCCL finds no NVLink SHARP and fewer
 * channels, half as much again above it. */
#define COMM_BUFFERS_BYTES      (1.79 * GiB)
#define COMM_BUFFERS_LOW_BYTES  (0.45 * GiB)
#define COMM_BUFFERS_HIGH_BYTES (2.7 * GiB)

/* What CUDA graph capture keeps (vLLM logs "Graph capturing finished ...
 * took N GiB", SGLang "Capture cuda graph end ... mem usage"): a private
 * pool per graph set, typically a fraction of a GiB to about 1.5 GiB for
 * large models.  Assumed. */
#define CUDA_GRAPH_BYTES        (0.5 * GiB)
#define CUDA_GRAPH_LOW_BYTES    (0.1 * GiB)
#define CUDA_GRAPH_HIGH_BYTES   (2.0 * GiB)

/* llama.cpp's default micro-batch (common/common.h: n_ubatch 512). */
#define LLAMACPP_UBATCH 512.0

gboolean
hr_plan_is_served (HrPlan *self)
{
  /* CTranslate2 runs as a library in the caller's process, with no pool
   * of its own: counted as transformers is, with its own weights and
   * encoder-decoder caches (below) */
  return !self->training && self->scenario->engine != HR_ENGINE_TRANSFORMERS &&
         self->scenario->engine != HR_ENGINE_CTRANSLATE2;
}

static gboolean
large_card (const HrGpu *gpu)
{
  /* vLLM's EngineArgs.get_batch_defaults (vllm/engine/arg_utils.py
   * @99d7eb5): "device_memory >= 70 * GiB_bytes and 'a100' not in
   * device_name" selects the larger defaults */
  g_autofree char *name = NULL;

  if (gpu == NULL)
    return FALSE;
  name = g_ascii_strdown (gpu->name != NULL ? gpu->name : "", -1);
  return (double) gpu->memory >= 70.0 * GiB && strstr (name, "a100") == NULL;
}

/* The sequences the engine runs at once: max_num_seqs, else vLLM's
 * default (1024 on H100-class cards, 256 otherwise). */
static guint
max_num_seqs (HrPlan *self)
{
  const HrScenario *s = self->scenario;

  if (s->max_num_seqs_set)
    return s->max_num_seqs;
  return large_card (s->gpu) ? 1024 : 256;
}

guint
hr_plan_serving_max_seqs (HrPlan *self)
{
  return self->scenario->engine == HR_ENGINE_VLLM || self->scenario->max_num_seqs_set
           ? max_num_seqs (self) : G_MAXUINT;
}

/* Tokens the engine profiles (vLLM's max_num_batched_tokens for the API
 * server: 8192 on H100-class cards, 2048 otherwise) or prefills in one
 * chunk (SGLang's chunked_prefill_size: 8192, 2048 under 25 GB). */
static double
profile_tokens (HrPlan *self)
{
  const HrScenario *s = self->scenario;

  if (s->engine == HR_ENGINE_SGLANG)
    return s->gpu != NULL && (double) s->gpu->memory < 25e9 ? 2048 : 8192;
  return large_card (s->gpu) ? 8192 : 2048;
}

double
hr_plan_kv_bytes_per_token (HrPlan     *self,
                            const Part *part)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = part->c;
  double element = hr_dtype_element_bytes (s->kv_dtype);
  double layers = c->layers;

  /* CTranslate2 caches in the compute type's float type */
  if (s->engine == HR_ENGINE_CTRANSLATE2)
    return layers * c->kv_heads * ((double) c->head_dim + c->v_head_dim) *
           hr_compute_activation_bytes (s->compute);

  /* int8/int4 caches keep a 16-bit scale and zero point per group of 64
   * (transformers' QuantizedCache, quanto backend) */
  if (s->kv_dtype == HR_DTYPE_INT8 || s->kv_dtype == HR_DTYPE_INT4)
    element += 4.0 / 64.0;

  if (s->engine == HR_ENGINE_LLAMACPP)
    layers = MIN (layers, (double) s->gpu_layers);

  /* MLA's engines cache the compressed latent and the rotary key part,
   * one "head" of kv_lora_rank + qk_rope_head_dim per layer, whole on
   * every tensor-parallel rank (SGLang profile_max_num_token: cell_size
   * (kv_lora_rank + qk_rope_head_dim) x layers; vLLM's MLA backends);
   * transformers caches the decompressed keys and values */
  if (hr_component_is_mla (c) && s->engine != HR_ENGINE_TRANSFORMERS)
    return layers * ((double) c->kv_lora_rank + c->qk_rope_head_dim) * element;

  /* K and V for every layer and KV head: GQA keeps kv_heads, not heads
   * (Ainslie et al. 2023) */
  return layers * c->kv_heads * ((double) c->head_dim + c->v_head_dim) * element;
}

/* Weights llama.cpp puts on the GPU. */
gboolean
hr_plan_add_llamacpp_weights (HrPlan *self,
                              Acc    *acc)
{
  const HrScenario *s = self->scenario;
  double q = hr_plan_frozen_bytes_per_param (self);
  const char *wname = hr_enum_to_nick (hr_weights_dtype_names, s->weights_dtype);

  if (self->training || s->engine != HR_ENGINE_LLAMACPP)
    return FALSE;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double per_param = q;
      double layer_params, head, embed, offloaded, on_gpu, host;

      if (c->kind != HR_COMPONENT_TRANSFORMER || c->layers == 0)
        {
          hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                      p->params * per_param, p->params * per_param, p->params * per_param,
                      _("%s: %.2fB parameters in %s"), c->name, p->params / 1e9, wname);
          continue;
        }

      /* GGUF quantises the embedding and the output matrix too; norms are
       * f32 but a few thousand values a layer */
      embed = (double) c->vocab * c->hidden;
      head = c->tied_embeddings ? 0.0 : embed;
      layer_params = MAX (0.0, p->params - embed - head);
      offloaded = MIN ((double) s->gpu_layers, (double) c->layers);
      on_gpu = layer_params * offloaded / c->layers * per_param;
      host = (layer_params - layer_params * offloaded / c->layers + embed) * per_param;

      hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  on_gpu, 0.97 * on_gpu, 1.03 * on_gpu,
                  _("%s: %.0f of %u layers offloaded to the GPU (-ngl), in %s (%.3f bytes "
                    "each)"), c->name, offloaded, c->layers, wname, per_param);
      if (s->gpu_layers > c->layers)
        {
          double out = (c->tied_embeddings ? embed : head) * per_param;

          hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                      out, 0.97 * out, 1.03 * out,
                      _("%s: the output layer on the GPU (-ngl above the layer count)"),
                      c->name);
        }
      else
        host += (c->tied_embeddings ? 0 : head) * per_param;
      acc->host_params += host;
    }
  return TRUE;
}

/* CTranslate2's int8 (docs/quantization.md @0d8bcd3, after Wu et al.
 * 2016): the embedding and linear weights as int8 with one fp32 scale per
 * output row, about 4 / hidden bytes a weight; biases, norms, positions
 * and convolutions stay in the float type. */
gboolean
hr_plan_add_ctranslate2_weights (HrPlan *self,
                                 Acc    *acc)
{
  const HrScenario *s = self->scenario;
  double f = hr_compute_activation_bytes (s->compute);
  const char *ctname = hr_enum_to_nick (hr_ct2_compute_type_names, s->ct2_compute_type);

  if (self->training || s->engine != HR_ENGINE_CTRANSLATE2)
    return FALSE;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double bytes = p->params * f;

      if (s->weights_dtype == HR_DTYPE_INT8 && c->kind == HR_COMPONENT_TRANSFORMER &&
          c->hidden > 0)
        {
          /* a decoder's cross-attention adds q, k, v and out projections
           * of hidden x hidden to every layer */
          double cross = c->cross_attention_tokens > 0
                           ? 4.0 * c->layers * (double) c->hidden * c->hidden : 0.0;
          double q = MIN (p->params, (double) hr_component_linear_params (c) +
                                     (double) hr_component_embedding_params (c) + cross);

          bytes = q * (1.0 + 4.0 / c->hidden) + (p->params - q) * f;
          hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                      bytes, 0.99 * bytes, 1.02 * bytes,
                      _("%s: %.2fB parameters under CTranslate2 %s: embedding and linear "
                        "weights int8 with a scale per row, the rest in %g bytes"),
                      c->name, p->params / 1e9, ctname, f);
        }
      else
        hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    bytes, 0.99 * bytes, 1.01 * bytes,
                    _("%s: %.2fB parameters under CTranslate2 %s (%g bytes each)"),
                    c->name, p->params / 1e9, ctname, f);
    }
  return TRUE;
}

/* The decoder of an encoder-decoder (Whisper): a transformer part with a
 * vocabulary whose layers attend to an encoder's output. */
static gboolean
is_cross_decoder (const Part *p)
{
  return p->c->kind == HR_COMPONENT_TRANSFORMER && p->c->cross_attention_tokens > 0 &&
         p->c->layers > 0;
}

/* Inference of an encoder-decoder with beam search.  The encoder runs once
 * per sequence over its fixed tokens (Whisper: 30 s of audio, 1500
 * tokens); the decoder then runs micro-batch x beams rows, each with its
 * self-attention cache, and every layer attends to the encoder's output
 * through cross-attention keys and values (tokens x layers x 2 x width).
 *
 * transformers and openai/whisper repeat the encoder's output for every
 * beam (GenerationMixin._expand_inputs_for_generation; whisper/decoding.py
 * @c0d2f62: audio_features.repeat_interleave(n_group)), so both the output
 * and the cross-attention cache are per beam.  CTranslate2 keeps one copy
 * of the projected memory keys and values per sequence ("No need to
 * replicate projected memory keys and values as they are the same for
 * each beam", src/layers/transformer.cc @0d8bcd3,
 * TransformerDecoder::replicate_state) and erases the encoder's output
 * once they are computed (state.erase("memory") after step 0).
 *
 * The encoder's working set and the decoder's caches are not alive at
 * once: the encoder's is counted where it exceeds the decoding.  Returns
 * FALSE when the model has no such decoder. */
gboolean
hr_plan_add_encoder_decoder (HrPlan *self,
                             Acc    *acc,
                             double  b)
{
  const HrScenario *s = self->scenario;
  gboolean ct2 = s->engine == HR_ENGINE_CTRANSLATE2;
  double beams = hr_scenario_get_beams (s);
  double e = hr_compute_activation_bytes (s->compute);
  double encoder_phase = 0, decoder_phase = 0, output = 0;
  const Part *decoder = NULL;

  if (self->training)
    return FALSE;
  for (guint i = 0; i < self->parts->len && decoder == NULL; i++)
    if (is_cross_decoder (&g_array_index (self->parts, Part, i)))
      decoder = &g_array_index (self->parts, Part, i);
  if (decoder == NULL)
    return FALSE;

  /* the encoder: one layer's working set over its tokens, and its output */
  for (guint i = 0; i < self->parts->len; i++)
    {
      const Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double ws;

      if (p == decoder || c->kind != HR_COMPONENT_TRANSFORMER)
        {
          if (p != decoder)
            encoder_phase += hr_plan_part_forward_working_set (self, p) * b;
          continue;
        }
      ws = hr_plan_part_forward_working_set (self, p) * b;
      /* CTranslate2 materialises the attention scores unless built with
       * flash attention (faster-whisper's WhisperModel: flash_attention=False) */
      if (ct2 && s->attention != HR_ATTENTION_EAGER)
        ws += (double) c->heads * p->tokens * p->tokens * e * b;
      encoder_phase += ws;
      output = MAX (output, (double) p->tokens * c->hidden * e * b);
    }
  encoder_phase += output;

  {
    const HrComponent *c = decoder->c;
    double rows = b * beams;
    double width = (double) c->kv_heads * ((double) c->head_dim + c->v_head_dim);
    double element = ct2 ? e : hr_dtype_element_bytes (s->kv_dtype);
    double self_kv = hr_plan_kv_bytes_per_token (self, decoder) * self->context_len * rows;
    double cross = (double) c->cross_attention_tokens * c->layers * width * element *
                   (ct2 ? b : rows);
    double ws = hr_plan_part_forward_working_set (self, decoder) * rows;
    double logits = rows * c->vocab * (e + 4.0);

    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                self_kv, self_kv, 1.05 * self_kv,
                _("%s: self-attention cache, %u layers × %u tokens × %.0f sequences × %.0f "
                  "beams"), c->name, c->layers, self->context_len, b, beams);
    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                cross, cross, 1.05 * cross,
                ct2 ? _("%s: cross-attention keys and values over %u encoder tokens, %u layers, "
                        "one copy per sequence shared by its beams (CTranslate2)")
                    : _("%s: cross-attention keys and values over %u encoder tokens, %u layers, "
                        "for every beam"),
                c->name, c->cross_attention_tokens, c->layers);
    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                ws, 0.5 * ws, 2.0 * ws,
                _("%s: forward working set of one layer over the prompt, for every beam"),
                c->name);
    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                logits, logits, 2.0 * logits, _("%s: next-token logits of every beam"), c->name);
    decoder_phase = self_kv + cross + ws + logits;
    acc->kv_pool += self_kv + cross;
    acc->kv_pool_low += self_kv + cross;
    acc->kv_pool_high += 1.05 * (self_kv + cross);

    if (!ct2)
      {
        /* the encoder's output, repeated for every beam, stays beside */
        double kept = output * beams;

        hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    kept, kept, kept,
                    _("the encoder's output, repeated for every beam while decoding"));
        decoder_phase += kept;
      }
  }

  if (encoder_phase > decoder_phase)
    {
      double extra = encoder_phase - decoder_phase;

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  extra, 0.5 * extra, 2.0 * extra,
                  ct2 ? _("the encoder's working set (attention scores over its tokens), where "
                          "it exceeds the decoding's")
                      : _("the encoder's working set, where it exceeds the decoding's"));
      acc->activations += encoder_phase;
    }
  else
    acc->activations += decoder_phase;
  return TRUE;
}

/* One layer's working set per token while a batch of tokens runs forward
 * (no KV cache counted): the residual stream and the larger of attention's
 * and the MLP's intermediates.  A mixture of experts routes each token to
 * experts_per_token experts, whose intermediates (gate and up, their
 * product) and outputs exist at once (vLLM's fused_moe: intermediate
 * caches of tokens x top_k x 2I, x I and x h). */
static double
forward_per_token (const HrComponent *c,
                   double             e)
{
  double q = (double) c->heads * c->head_dim;
  double kv = (double) c->kv_heads * (c->head_dim + c->v_head_dim);
  double attention = e * (2.0 * q + kv);
  double mlp;

  if (hr_component_is_moe (c))
    mlp = e * (c->experts_per_token * (3.0 * c->expert_intermediate + c->hidden) +
               c->shared_experts * 3.0 * c->shared_expert_intermediate + c->experts) +
          4.0 * c->experts;
  else
    mlp = e * (c->glu ? 3.0 : 2.0) * c->intermediate;
  return 2.0 * e * c->hidden + MAX (attention, mlp);
}

void
hr_plan_add_serving (HrPlan *self,
                     Acc    *acc,
                     double  b)
{
  const HrScenario *s = self->scenario;
  double e = hr_compute_activation_bytes (s->compute);
  double context = self->context_len;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;

      if (c->kind != HR_COMPONENT_TRANSFORMER)
        {
          double ws = hr_plan_part_forward_working_set (self, p) * b;

          hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_ASSUMED,
                      ws, 0.5 * ws, 2.0 * ws,
                      _("%s: forward working set of one layer (a tenth of the training "
                        "figure)"), c->name);
          acc->activations += ws;
          continue;
        }

      if (s->engine == HR_ENGINE_LLAMACPP)
        {
          double kv = hr_plan_kv_bytes_per_token (self, p) * context * b;
          double ubatch = MIN (LLAMACPP_UBATCH, context);
          double compute;

          hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                      kv, kv, kv * 1.02,
                      _("%s: KV cache of the offloaded layers, %.0f tokens × %u sequences in "
                        "%s"), c->name, context, (guint) b,
                      hr_enum_to_nick (hr_kv_dtype_names, s->kv_dtype));
          acc->activations += kv;
          acc->kv_pool += kv;
          acc->kv_pool_low += kv;
          acc->kv_pool_high += 1.02 * kv;

          /* the compute buffer ggml reserves for the worst graph: a
           * micro-batch of n_ubatch tokens through one layer in f32, its
           * attention scores over the whole context unless flash attention
           * is on, and the logits when the output layer is on the GPU */
          compute = ubatch * 4.0 * (3.0 * c->hidden + forward_per_token (c, 4.0) / 4.0);
          if (s->attention != HR_ATTENTION_FLASH)
            compute += ubatch * context * c->heads * 4.0;
          if (s->gpu_layers > c->layers && c->vocab > 0)
            compute += ubatch * c->vocab * 4.0;
          hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_ASSUMED,
                      compute, 0.5 * compute, 2.0 * compute,
                      _("%s: llama.cpp's compute buffer for a micro-batch of %.0f tokens"),
                      c->name, ubatch);
          acc->activations += compute;
          continue;
        }

      /* vLLM and SGLang: the forward pass of the profiling run (or of a
       * prefill chunk), then the sampler on a full batch: logits over the
       * whole vocabulary (gathered from the tensor-parallel ranks), cast to
       * fp32, with their softmax */
      {
        double tokens = profile_tokens (self);
        double ws = tokens * forward_per_token (c, e);
        double vocab = (double) c->vocab * MAX (1, s->tensor_parallel);
        double sampler = c->vocab > 0 ? max_num_seqs (self) * vocab * (e + 8.0) : 0;
        /* The sampler's profile run asks for top-k and top-p on every
         * sequence (vLLM's V1 _dummy_sampler_run: top_p 0.9, top_k
         * vocab - 1).  Through FlashInfer (forward_cuda) it holds the
         * logits and their fp32 copy, the central figure above; without
         * FlashInfer, PyTorch's path (vllm/v1/sample/ops/
         * topk_topp_sampler.py, apply_top_k_top_p, as vLLM 0.8.4 has it
         * in Farrrrland/vllm084 at commit
         * 3da8dbf977db31f898fcc61278a1ada862b2c3e1) sorts them: at the
         * scatter the 16-bit logits, their fp32 copy, the sorted values
         * (4 B) and indices (int64, 8 B), the top-k and top-p masks (1 B
         * each), the probabilities (4 B) and the re-sorted copy (4 B) are
         * alive at once, 28 bytes a logit: the high end. */
        double sampler_high = c->vocab > 0 ? max_num_seqs (self) * vocab * (e + 26.0) : 0;
        double per_token = hr_plan_kv_bytes_per_token (self, p);
        double block = s->engine == HR_ENGINE_VLLM ? MAX (1, s->block_size) : 1;

        hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    ws, 0.5 * ws, 1.5 * ws,
                    s->engine == HR_ENGINE_VLLM
                      ? _("%s: the profiling run's forward pass over %.0f tokens "
                          "(max_num_batched_tokens)")
                      : _("%s: a prefill chunk of %.0f tokens (chunked_prefill_size)"),
                    c->name, tokens);
        acc->activations += ws;
        if (sampler > 0)
          {
            hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_ASSUMED,
                        sampler, 0.3 * sampler, MAX (1.5 * sampler, sampler_high),
                        _("%s: the sampler's logits and probabilities for %u sequences"),
                        c->name, max_num_seqs (self));
            acc->activations += sampler;
          }

        acc->kv_per_sequence += ceil (context / block) * block * per_token;
      }
    }

  if (s->engine != HR_ENGINE_LLAMACPP && s->tensor_parallel * s->pipeline_parallel > 1)
    hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_DEVICE_USED, HR_BASIS_ASSUMED,
                COMM_BUFFERS_BYTES, COMM_BUFFERS_LOW_BYTES, COMM_BUFFERS_HIGH_BYTES,
                _("NCCL and custom all-reduce buffers outside PyTorch's allocator"));
  if ((s->engine == HR_ENGINE_VLLM || s->engine == HR_ENGINE_SGLANG) && !s->enforce_eager)
    hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_RESERVED, HR_BASIS_ASSUMED,
                CUDA_GRAPH_BYTES, CUDA_GRAPH_LOW_BYTES, CUDA_GRAPH_HIGH_BYTES,
                _("CUDA graphs captured for decoding, beside the engine's pool "
                  "(enforce_eager leaves them out)"));
}

/* Fills the engine's pool with KV cache once everything else is counted:
 * called with every other line of the estimate in @acc. */
void
hr_plan_finish_serving (HrPlan *self,
                        Acc    *acc)
{
  const HrScenario *s = self->scenario;
  double fraction = hr_scenario_engine_pool_fraction (s);
  double kv, rest, rest_low, rest_high;

  if (!hr_scenario_has_kv_pool (s))
    return;

  /* what the pool must hold beside the KV cache: vLLM counts the profiled
   * peak and everything outside PyTorch (the CUDA context included);
   * SGLang the weights and what was allocated when they were loaded */
  if (s->engine == HR_ENGINE_VLLM)
    {
      rest = acc->by_metric[HR_METRIC_ALLOCATED] + acc->by_metric[HR_METRIC_DEVICE_USED];
      rest_low = acc->by_metric_low[HR_METRIC_ALLOCATED] +
                 acc->by_metric_low[HR_METRIC_DEVICE_USED];
      rest_high = acc->by_metric_high[HR_METRIC_ALLOCATED] +
                  acc->by_metric_high[HR_METRIC_DEVICE_USED];
    }
  else
    {
      rest = acc->bytes[HR_BUCKET_WEIGHTS] + acc->by_metric[HR_METRIC_DEVICE_USED];
      rest_low = acc->low[HR_BUCKET_WEIGHTS] + acc->by_metric_low[HR_METRIC_DEVICE_USED];
      rest_high = acc->high[HR_BUCKET_WEIGHTS] + acc->by_metric_high[HR_METRIC_DEVICE_USED];
    }
  acc->kv_rest = rest;
  acc->kv_rest_low = rest_low;
  acc->kv_rest_high = rest_high;

  if (s->gpu != NULL)
    {
      double pool = fraction * (double) s->gpu->memory;

      kv = MAX (0, pool - rest);
      acc->kv_pool_low = MAX (0, pool - rest_high);
      acc->kv_pool_high = MAX (0, pool - rest_low);
      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  kv, MAX (0, pool - rest_high), MAX (0, pool - rest_low),
                  s->engine == HR_ENGINE_VLLM
                    ? _("KV cache: what is left of gpu_memory_utilization %.2f × the card, "
                        "in blocks of %u tokens")
                    : _("KV cache: what is left of mem_fraction_static %.2f × the card after "
                        "the weights"),
                  fraction, s->engine == HR_ENGINE_VLLM ? s->block_size : 1);
    }
  else
    {
      /* without a card the pool has no size: the cache the micro-batch's
       * sequences need, the least the engine must find room for */
      kv = acc->kv_per_sequence * MAX (1, acc->micro_batch);
      acc->kv_pool_low = acc->kv_pool_high = kv;
      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  kv, kv, kv,
                  _("KV cache for %.0f sequences of %u tokens (no GPU given: the engine takes "
                    "its whole pool on the card it runs on)"),
                  MAX (1, acc->micro_batch), self->context_len);
    }
  acc->kv_pool = kv;
}

void
hr_plan_add_serving_notes (HrPlan     *self,
                           HrEstimate *est)
{
  const HrScenario *s = self->scenario;
  GPtrArray *notes = est->notes;

  switch (s->engine)
    {
    case HR_ENGINE_VLLM:
      g_ptr_array_add (notes, g_strdup_printf (
        _("vLLM takes gpu_memory_utilization (%.2f) of the card whatever the model needs and "
          "fills what the weights and the profiling run leave with KV cache: nvidia-smi shows "
          "the pool (and the CUDA graphs beside it); the pool must hold the model and one "
          "sequence's KV cache per micro-batch"), s->gpu_memory_utilization));
      break;
    case HR_ENGINE_SGLANG:
      g_ptr_array_add (notes, g_strdup_printf (
        _("SGLang keeps mem_fraction_static (%.2f) of the card for the weights and the KV "
          "pool; activations and CUDA graphs must fit in the rest"),
        s->mem_fraction_static));
      break;
    case HR_ENGINE_LLAMACPP:
      g_ptr_array_add (notes, g_strdup_printf (
        _("llama.cpp keeps the token embedding and the layers beyond -ngl (%u) in host memory "
          "and runs them on the CPU"), s->gpu_layers));
      break;
    default:
      break;
    }

  if (est->kv_sequences > 0 && hr_scenario_has_kv_pool (s))
    g_ptr_array_add (notes, g_strdup_printf (
      _("the KV cache holds %.0f tokens: %u sequences of %u tokens at once"),
      (double) est->kv_tokens, est->kv_sequences, self->context_len));
}
