/* hr-estimate-activations.c: what the backward pass keeps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-estimate-private.h"

/* The transformer closed form is exact for the tensors it counts; the
 * range covers what implementations add or drop (extra casts, fused
 * kernels, dropout left on). */
#define ACT_CLOSED_LOW  0.85
#define ACT_CLOSED_HIGH 1.20

/* torchtune's activation offloading keeps the last max_fwd_stash_size (5)
 * saved tensors on the GPU in the forward pass and brings each layer's back
 * one ahead in the backward pass (torchtune/training/_activation_offloading.py
 * @bd2a0fc, OffloadActivations): about two layers' worth stay on the GPU. */
#define OFFLOAD_LAYERS_ON_GPU 2.0

/* DeBERTa-v3's relative positions: position_buckets 256, so the position
 * embeddings projected by the key and query layers are 2 x 256 rows
 * (transformers models/deberta_v2/configuration_deberta_v2.py). */
#define DEBERTA_ATT_SPAN 256.0

/* A part given by its parameter count alone (HR_COMPONENT_WEIGHTS_ONLY):
 * its forward working set is assumed, at one activation value per
 * parameter for each sample (see hr_plan_part_forward_working_set), and
 * the range spans a text encoder's few values per parameter to a VAE at a
 * large image's several */
#define WEIGHTS_ONLY_VALUES_PER_PARAM 1.0
#define WEIGHTS_ONLY_LOW              0.25
#define WEIGHTS_ONLY_HIGH             4.0

static gboolean
projections_separate (const HrPlan      *self,
                      const HrComponent *c)
{
  const HrScenario *s = self->scenario;

  /* transformers' encoders and decoders, and torchtune, have separate q,
   * k, v (and gate, up) linears; LitGPT fuses q, k and v into one "attn"
   * linear (litgpt/model.py CausalSelfAttention).  Without a stack the
   * layer's input is counted once, as one fused projection reads it. */
  if (g_strcmp0 (self->scenario->model->family, "encoder") == 0)
    return TRUE;
  (void) c;
  return s->stack_set && s->stack != HR_STACK_LITGPT;
}

/* Bytes of one normalisation layer's saved tensors per token. */
static double
norm_bytes (const HrComponent *c,
            const LayerRegime *r)
{
  if (c->rmsnorm)
    {
      /* LLaMA-style RMSNorm upcasts to fp32 and saves that copy for
       * x * rsqrt(mean(x^2)); the normalised bf16 output is saved too when
       * the norm's weight trains (transformers' LlamaRMSNorm, LitGPT's
       * RMSNorm).  Compiled, Inductor saves the 16-bit input and the
       * per-token rstd and recomputes the rest (torch/_functorch/
       * partitioners.py, min_cut_rematerialization_partition). */
      if (r->compiled)
        return r->e * c->hidden + 4.0;
      return 4.0 * c->hidden + (r->norm_trainable ? r->e * c->hidden : 0.0);
    }

  /* LayerNorm saves its input (Korthikanti et al. 2022, section 4.1: 2sbh
   * per LayerNorm in 16 bits) plus per-token mean and rstd. */
  return r->e_res * c->hidden + 8.0;
}

/* Korthikanti et al. 2022 (eq. 1) counted per tensor and generalised to
 * GQA, gated MLPs, RMSNorm and frozen weights: bytes one token keeps in one
 * layer until the backward pass, for a sequence of @s tokens.
 *
 * With eager attention, dropout, MHA, LayerNorm, a 4h MLP and every weight
 * training this is exactly 34h + 5as at 2 bytes: attention 11h + 5as (QKV
 * input 2h, Q and K 4h, V 2h, softmax 2as, its dropout mask as and output
 * 2as, projection input 2h, dropout mask h), MLP 19h, norms 4h. */
/* What the MLP of one layer keeps per token: a dense gated (or plain) MLP
 * of @width.  The fc input is counted by the caller. */
static double
dense_mlp_bytes (const HrComponent *c,
                 const LayerRegime *r,
                 double             width)
{
  double e = r->e, bytes = 0;

  if (c->glu)
    {
      /* gate (for the activation), act(gate) and up (for the product);
       * compiled, act(gate) is recomputed from gate */
      bytes += (r->compiled ? 2.0 : 3.0) * e * width;
      /* T5 v1.1 and mT5's "gated-gelu" is gelu_new (transformers
       * models/t5/configuration_t5.py @038869d: feed_forward_proj
       * "gated-gelu" sets dense_act_fn "gelu_new"), NewGELUActivation
       * written in Python ops (activations.py @00e12e7: 0.5 * x * (1 +
       * tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))): autograd keeps tanh's
       * output and both factors of the last product, three tensors of
       * `width` beyond what a fused GELU keeps */
      if (c->attention_variant == HR_ATTENTION_VARIANT_T5 && !r->compiled)
        bytes += 3.0 * e * width;
    }
  else
    bytes += e * width;        /* the activation's input */
  if (r->down_saved)
    bytes += e * width;
  return bytes;
}

/* What a mixture-of-experts MLP keeps per token, as transformers' Mixtral,
 * Qwen3-MoE and DeepSeek-V3 blocks run it (models/mixtral/
 * modeling_mixtral.py, MixtralSparseMoeBlock.forward): the router's
 * logits and their fp32 softmax; for each of the experts_per_token routed
 * copies (times the capacity factor when tokens are padded to it) the
 * gathered input when the expert's weights (or adapters) need it, the
 * expert MLP's own tensors, and the expert output the routing weight
 * multiplies when that weight has a gradient; then the shared experts.
 * Megatron's grouped experts keep the same per routed token (the
 * permuted input, fc1's output for swiglu, fc2's input). */
static double
moe_mlp_bytes (const HrPlan      *self,
               const HrComponent *c,
               const LayerRegime *r,
               double            *routed_out)
{
  const HrScenario *s = self->scenario;
  double e = r->e;
  double routed = c->experts_per_token * (s->capacity_factor_set
                                            ? MIN (1.0, s->capacity_factor) : 1.0);
  double per_copy = dense_mlp_bytes (c, r, c->expert_intermediate);
  double bytes = e * c->experts + 4.0 * c->experts;

  if (r->fc_saved)
    per_copy += e * c->hidden;
  if (r->router_trains)
    per_copy += e * c->hidden;
  *routed_out = routed * per_copy;
  bytes += *routed_out;
  bytes += c->shared_experts * dense_mlp_bytes (c, r, c->shared_expert_intermediate);
  return bytes;
}

/* The routed experts' share of a token's bytes per layer, averaged over
 * the layers. */
static double
routed_bytes_per_token (const HrPlan      *self,
                        const HrComponent *c,
                        const LayerRegime *r)
{
  double routed = 0;

  if (!hr_component_is_moe (c))
    return 0;
  moe_mlp_bytes (self, c, r, &routed);
  return routed * hr_component_moe_layers (c) / MAX (1, c->layers);
}

static double
layer_bytes_per_token (const HrPlan      *self,
                       const HrComponent *c,
                       const LayerRegime *r,
                       double             s)
{
  /* sequence parallelism divides what a token keeps of `hidden` values */
  double h = c->hidden / r->h_split;
  double q = (double) c->heads * c->head_dim;
  double k_dim = (double) c->kv_heads * c->head_dim;
  double v_dim = (double) c->kv_heads * c->v_head_dim;
  double o_in = (double) c->heads * c->v_head_dim;
  double I = c->intermediate;
  double a = c->heads;
  double e = r->e;
  double s_kv = s + r->extra_kv_tokens;
  double bytes = 2.0 * norm_bytes (c, r) / r->h_split;
  /* Under autocast with an fp32 residual stream, every linear casts its
   * input to 16 bits on its own: separate q, k and v projections keep three
   * copies, gate and up two (autocast caches casts of weights only,
   * torch/csrc/autograd/autocast_mode.cpp cached_cast). */
  gboolean casts = r->e_res > e && projections_separate (self, c);
  /* transformers' eager and SDPA paths expand K and V to every head */
  double k_saved = r->keep_s2 || k_dim == q ? q : k_dim;
  double v_saved = r->keep_s2 || k_dim == q ? o_in : v_dim;

  /* A frozen linear layer keeps no input: autograd saves the input of a
   * matmul only for the weight's gradient (PyTorch derivatives.yaml, mm:
   * mat2's formula is the only one using self, and generated code saves it
   * only when should_compute_output for mat2). */
  if (r->qkv_saved)
    bytes += e * c->hidden / r->in_split * (casts ? 3.0 : 1.0);

  /* Q, K and V as the attention kernel saves them.  transformers' eager and
   * SDPA paths expand K and V to every query head (repeat_kv) before the
   * kernel; flash-attn takes the KV heads as they are.  Prefix tuning's
   * virtual keys and values are saved with them. */
  bytes += e * (q + (k_saved + v_saved) * s_kv / s);

  if (r->keep_s2)
    bytes += r->score_bytes * a * s_kv;
  else
    {
      /* flash and memory-efficient kernels save their output (and a
       * logsumexp per head) instead of the s^2 matrix */
      bytes += e * o_in + 4.0 * a;
    }

  if (hr_component_is_mla (c))
    {
      /* DeepSeek's latent attention also keeps the query and key-value
       * latents: the RMSNorm of each saves its fp32 input, and the
       * decompressing projections (wq_b, wkv_b) their 16-bit input when
       * they train (inference/model.py @9b4e978, MLA.forward) */
      double latents = (double) c->q_lora_rank + c->kv_lora_rank;

      bytes += 4.0 * latents;
      if (r->qkv_saved)
        bytes += e * latents;
    }

  if (c->attention_variant == HR_ATTENTION_VARIANT_DEBERTA)
    {
      /* DisentangledSelfAttention divides the keys by the scale before the
       * bmm (a copy the bmm keeps), and projects the relative position
       * embeddings through the key and query layers for every sample:
       * 2 x 2k rows of `hidden` (transformers models/deberta_v2/
       * modeling_deberta_v2.py, disentangled_attention_bias) */
      bytes += e * q + 2.0 * 2.0 * DEBERTA_ATT_SPAN * h * e / s;
    }

  if (r->o_saved)
    bytes += e * o_in;
  if (c->dropout)
    bytes += h;  /* attention-output dropout mask */

  if (r->fc_saved)
    bytes += e * c->hidden / r->in_split * (casts && c->glu ? 2.0 : 1.0);
  if (hr_component_is_moe (c))
    {
      /* the dense layers before the MoE ones, and the MoE layers, as an
       * average over the layers */
      double moe = hr_component_moe_layers (c), dense = c->layers - moe;
      double routed = 0, moe_bytes = moe_mlp_bytes (self, c, r, &routed);

      bytes += (dense * dense_mlp_bytes (c, r, I) + moe * moe_bytes) / MAX (1, c->layers);
    }
  else
    bytes += dense_mlp_bytes (c, r, I);
  if (c->dropout)
    {
      bytes += h;  /* MLP dropout mask */
      /* T5's DenseReluDense drops out the hidden activation too
       * (transformers models/t5/modeling_t5.py, T5DenseActDense) */
      if (c->attention_variant == HR_ATTENTION_VARIANT_T5)
        bytes += I;
    }

  /* the quantised projections' own input copies: q, k and v, gate and up
   * are separate layers in transformers, each casting its own copy */
  if (r->quant_input > 0)
    {
      double mlp_in = (c->glu ? 2.0 : 1.0) * h + I;

      /* a mixture of experts runs each routed copy through its own
       * quantised projections */
      if (hr_component_is_moe (c))
        mlp_in = c->experts_per_token * ((c->glu ? 2.0 : 1.0) * c->hidden +
                                         c->expert_intermediate) +
                 c->shared_experts * ((c->glu ? 2.0 : 1.0) * c->hidden +
                                      c->shared_expert_intermediate);
      bytes += r->quant_input * (3.0 * h + o_in + mlp_in);
    }

  /* what the adapters keep: x·A for B's gradient, their own input copies,
   * the outputs DoRA, VeRA and IA3 scale */
  bytes += r->adapter_per_token;

  return bytes;
}

/* Bytes per token around the loss over a vocabulary of V.
 *
 * "upcast", as transformers computes it (ForCausalLMLoss: logits.float()):
 * log_softmax saves its fp32 output; at the start of the backward pass the
 * gradients of the log-probabilities and of the logits (both fp32) are alive
 * beside it and the 16-bit logits: 2 + 4 + 4 + 4 = 14 bytes per vocabulary
 * entry in 16-bit training, 16 in fp32.  This is often the largest tensor of
 * a small LLM.
 * "chunked" (LitGPT's chunked_cross_entropy): the logits stay 16-bit and
 * each chunk's log-probabilities are saved in the dtype the loss runs in
 * (fp32 under autocast, 16-bit in pure 16-bit training).  torchtune's
 * LinearCrossEntropyLoss (torchtune/modules/loss/cross_entropy_loss.py
 * @bd2a0fc) projects each of its 8 chunks itself and upcasts it: only the
 * fp32 log-probabilities stay (4 bytes), and in the backward pass one
 * chunk's fp32 gradients and 16-bit logit gradient (10/8).
 * "fused" (Liger's fused linear cross-entropy): logits exist one chunk at a
 * time and the hidden state's gradient is computed in the forward pass, so
 * only that (h values a token) is kept.
 * Compiled, torchtune's chunked loss (CEWithChunkedOutputLoss
 * @1814feb17: the recipe compiles compute_cross_entropy, F.cross_entropy
 * of one chunk's logits.float(), and deletes its own reference to the
 * logits) keeps the 16-bit logits of every chunk and a logsumexp per
 * token: Inductor's min-cut partitioner saves the smallest inputs that
 * rebuild the fp32 log-probabilities (torch/_functorch/partitioners.py,
 * min_cut_rematerialization_partition).  Its backward is one fused kernel:
 * nll_loss_backward's zeros-then-scatter becomes a pointwise where
 * (torch/_inductor/fx_passes/post_grad.py, scatter_upon_const_tensor:
 * "This pattern shows up in the backward of cross entropy"), so no fp32
 * gradient is materialised; one chunk's 16-bit logit gradient is
 * written: 2 + 2/8 bytes.  Should the pattern not match, the chunk's fp32
 * gradient is materialised too (the range's high end, 2 + 6/8).  A
 * compiled model does not change the
 * upcast loss: torchtune's "+ Compile" (README @1814feb17, Llama 3.2 3B) and
 * torchtitan's "FSDP + torch.compile" (benchmarks/llama3_h100_202412,
 * Table 1) fall by about what their layers save. */
/* Whether the loss runs under torch.autocast.  The Trainer leaves half
 * precision to DeepSpeed when it runs the ZeRO engine ("deepspeed and
 * SageMaker Model Parallel manage their own half precision",
 * huggingface/transformers src/transformers/trainer.py, v4.32.0), and
 * DeepSpeed's fp16/bf16 engine casts the module itself instead of
 * autocasting (deepspeed/runtime/engine.py, _configure_distributed_model:
 * self.module.half() / .bfloat16()): the model, its logits and its loss
 * run in 16 bits. */
static gboolean
loss_autocast (const HrScenario *s)
{
  if (!hr_compute_is_mixed (s->compute))
    return FALSE;
  return s->sharding != HR_SHARDING_ZERO1 && s->sharding != HR_SHARDING_ZERO2 &&
         s->sharding != HR_SHARDING_ZERO3;
}

static double
logits_bytes_per_token (const HrPlan      *self,
                        const HrComponent *c,
                        double             e)
{
  const HrScenario *s = self->scenario;
  gboolean compiled = s->compile;
  /* Before PyTorch 1.11 log_softmax's backward read its input too
   * (derivatives.yaml: _log_softmax_backward_data(grad, result, dim,
   * self); PR #65242): where the loss runs on an fp32 copy of 16-bit
   * logits (logits.float(), autocast's cast), that copy stays saved, 4
   * bytes a logit; fp32 logits and a loss in their own dtype are saved
   * already */
  double old_input = hr_scenario_pytorch_before (s, 1, 11) && e < 4.0 ? 4.0 * c->vocab : 0;

  switch (s->loss)
    {
    case HR_LOSS_UPCAST:
      /* torchtitan under tensor parallelism computes the loss with
       * loss_parallel (train.py @9dec370: enable_loss_parallel=not
       * disable_loss_parallel), whose backward fuses nll_loss's and
       * log_softmax's: (zeros_like(x) + exp(x)) * grad beside the saved
       * log-probabilities x, 16 bytes a logit (pytorch/pytorch
       * torch/distributed/tensor/parallel/loss.py @02eef6b8,
       * _nll_loss_and_log_softmax_backward) */
      if (s->stack_set && s->stack == HR_STACK_TORCHTITAN && self->shard.tp > 1)
        return 16.0 * c->vocab;
      return (e < 4.0 ? e + 12.0 : 16.0) * c->vocab + old_input;
    case HR_LOSS_CHUNKED:
      if (s->stack_set && s->stack == HR_STACK_TORCHTUNE)
        return (compiled ? 2.0 + 2.0 / 8.0 : 4.0 + 10.0 / 8.0) * c->vocab;
      return (e + (hr_compute_is_pure16 (s->compute) ? 2.0 : 4.0)) * c->vocab +
             (hr_compute_is_pure16 (s->compute) ? 0 : old_input);
    case HR_LOSS_FUSED:
      return e * c->hidden;
    case HR_LOSS_NATIVE:
      /* a model whose head hands torch.nn.CrossEntropyLoss its logits
       * as they come (Qwen's remote modeling_qwen.py, QWenLMHeadModel.
       * forward: loss_fct(shift_logits.view(...)) with no .float(),
       * huggingface.co/Qwen/Qwen-7B).  Under autocast cross_entropy is
       * on autocast's fp32 list (log_softmax of an fp32 copy), which
       * is the upcast loss's 14 bytes.  Without it log_softmax runs in
       * the logits' dtype: the logits the caller keeps and the saved
       * log-probabilities, then in the backward pass the gradients of
       * the log-probabilities and of the logits, 4 bytes of e */
      if (loss_autocast (s) && e < 4.0)
        return (e + 12.0) * c->vocab + old_input;
      return 4.0 * e * c->vocab;
    case HR_LOSS_SUM:
      /* no loss head: a benchmark back-propagates logits.sum().  The
       * caller's output keeps the logits in the compute dtype; sum's
       * backward hands the head an expanded scalar, a stride-0 view of no
       * size (SumBackward0: grad.expand(self_sym_sizes), pytorch/pytorch
       * tools/autograd/derivatives.yaml, "sum(Tensor self, *, ScalarType?
       * dtype=None)"), so nothing of the vocabulary's size is upcast,
       * softmaxed or written back */
      return e * c->vocab;
    default:
      g_assert_not_reached ();
    }
}

/* Diffusion and video transformers (DiT, MMDiT, CogVideoX, Wan) add each
 * branch to the residual stream through an AdaLN gate, x + gate * f(norm
 * (x)), with x from the patch embedding and the gate from a linear layer,
 * both in the compute dtype under autocast: the LayerNorm's fp32 output
 * feeds the branch, not the stream (diffusers models/transformers/
 * cogvideox_transformer_3d.py @58eb52c0, CogVideoXBlock.forward). */
static gboolean
gated_residual (const HrScenario *s)
{
  return g_strcmp0 (s->model->family, "diffusion") == 0 ||
         g_strcmp0 (s->model->family, "video") == 0;
}

void
hr_plan_setup_regime (HrPlan *self,
                      Part   *part)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = part->c;
  LayerRegime *r = &part->regime;
  gboolean all_trainable = part->trainable >= part->params && part->params > 0;
  gboolean quantized_base = hr_dtype_is_quantized (s->weights_dtype) && part->frozen > 0 &&
                            s->weights_dtype != HR_DTYPE_FP8;
  gboolean upcast;

  r->e = hr_compute_activation_bytes (s->compute);
  /* Under autocast with fp32 weights the residual stream stays fp32: the
   * embedding output is fp32 and adding bf16 outputs to it promotes. */
  {
    HrDtype own = s->weights_dtype;

    /* a part kept in its own dtype ("part_dtypes") */
    hr_scenario_get_part_dtype (s, c, &own);
    r->e_res = hr_compute_is_mixed (s->compute) && own == HR_DTYPE_FP32 ? 4.0 : r->e;
  }
  /* ... and so it does after every LayerNorm: layer_norm is on autocast's
   * fp32 list, so its output is fp32 whatever the weights' dtype (PyTorch
   * "Automatic Mixed Precision", CUDA ops that autocast to float32);
   * LLaMA-style RMSNorm is plain code that returns the input's dtype. */
  if (hr_compute_is_mixed (s->compute) && !c->rmsnorm && !gated_residual (s))
    r->e_res = 4.0;
  r->compiled = s->compile;
  r->h_split = self->shard.sp ? (double) self->shard.tp : 1.0;
  /* torchtitan's tensor-parallel plan (parallelize_llama.py @9dec370):
   * colwise_parallel(input_layouts=Shard(1)) all-gathers the sequence
   * before F.linear, which saves the gathered input; Megatron's
   * LinearWithGradAccumulationAndAsyncCommunication saves it sharded and
   * gathers again in the backward pass */
  r->in_split = s->stack_set && s->stack == HR_STACK_TORCHTITAN ? 1.0 : r->h_split;

  /* FSDP1 units that mix frozen and trainable parameters under
   * use_orig_params=True hand autograd views of a FlatParameter that
   * requires grad: frozen weights get gradients, so their matmuls keep
   * their inputs as if everything trained (see hr-estimate-sharding.c). */
  if (self->shard.whole_unit_grads && part->adapters > 0 && self->training)
    all_trainable = TRUE;

  r->qkv_saved = r->o_saved = r->fc_saved = r->down_saved = all_trainable;
  r->norm_trainable = all_trainable;
  r->head_saved = all_trainable;
  r->router_trains = all_trainable;

  hr_plan_setup_adapter_regime (self, part);

  /* bitsandbytes' 4- and 8-bit matmuls save their input whenever it needs
   * a gradient, weight frozen or not (MatMul4Bit.forward: ctx.tensors =
   * (A, B) if any(needs_input_grad)).  Linear4bit first casts the input to
   * its compute dtype ("quant_compute_dtype": transformers'
   * BitsAndBytesConfig defaults bnb_4bit_compute_dtype to float32; LitGPT
   * and most QLoRA recipes use bf16).  When that is a real cast, every
   * projection keeps a copy of its own; when it is not, they share the
   * layer's input.  LLM.int8 casts to fp16 (MatMul8bitLt). */
  if (quantized_base)
    {
      double cast = s->weights_dtype == HR_DTYPE_INT8 ? 2.0
                    : hr_dtype_element_bytes (s->quant_compute_dtype);

      if (cast != r->e)
        r->quant_input = cast;
      else
        r->qkv_saved = r->o_saved = r->fc_saved = r->down_saved = TRUE;
    }

  /* torch.nn.MultiheadAttention computes softmax(q k^T) itself unless
   * need_weights is False (torch/nn/functional.py, multi_head_attention_
   * forward: the SDPA kernel only on its fast path), which DETR-style
   * heads built on mmcv's MultiheadAttention never pass */
  r->keep_s2 = (s->attention == HR_ATTENTION_EAGER ||
                c->attention_variant == HR_ATTENTION_VARIANT_MATH) &&
               s->recompute == HR_RECOMPUTE_NONE;

  /* The softmax of eager attention runs in fp32 when the code upcasts it
   * (transformers' eager_attention_forward: softmax(..., dtype=float32)
   * then .to(query.dtype); T5: softmax(scores.float())) or when autocast
   * does (softmax is on autocast's fp32 list, which is what BERT's
   * nn.Softmax gets under fp16-mixed): the fp32 output is what softmax
   * saves, and the 16-bit copy (after dropout, if any) is what the matmul
   * with V saves.  transformers models/bert/modeling_bert.py @004ad5f
   * (BertSelfAttention: softmax, dropout, matmul). */
  upcast = r->e < 4.0 &&
           (hr_model_is_language_model (s->model) ||
            c->attention_variant == HR_ATTENTION_VARIANT_T5 || hr_compute_is_mixed (s->compute));
  if (upcast)
    r->score_bytes = 4.0 + r->e + (c->dropout ? 1.0 : 0.0);
  else
    r->score_bytes = r->e + (c->dropout ? 1.0 + r->e : 0.0);

  /* Before PyTorch 1.11 softmax's backward read its input as well as its
   * result (tools/autograd/derivatives.yaml: _softmax_backward_data(grad,
   * result, dim, self); PR #65242 passed the dtype instead): the scores as
   * softmax received them stay saved too, fp32 where the softmax upcasts
   * (autocast's cast, or the fp32 copy softmax(dtype=float32) and
   * scores.float() make) */
  if (hr_scenario_pytorch_before (s, 1, 11))
    r->score_bytes += upcast ? 4.0 : r->e;
}

/* Activation bytes a part keeps for the backward pass, per sample. */
double
hr_plan_part_activations (HrPlan     *self,
                          const Part *part,
                          double     *logits_out,
                          double     *layer_out)
{
  const HrComponent *c = part->c;
  const HrScenario *s = self->scenario;
  double e = hr_compute_activation_bytes (s->compute);

  *logits_out = 0;
  *layer_out = 0;

  if (c->kind == HR_COMPONENT_TRANSFORMER)
    {
      double t = (double) part->tokens + part->extra_tokens;
      double per_layer = layer_bytes_per_token (self, c, &part->regime, t) * t;
      double kept;

      if (s->recompute == HR_RECOMPUTE_FULL)
        {
          /* Only each layer's input is kept; during the backward pass one
           * layer is recomputed whole (Korthikanti et al. 2022, section 4:
           * "2sbhL" with full recomputation). */
          kept = part->regime.e_res * c->hidden / part->regime.h_split * t * c->layers +
                 per_layer;
        }
      else if (s->recompute == HR_RECOMPUTE_SELECTIVE && s->stack_set &&
               s->stack == HR_STACK_TORCHTITAN && s->attention != HR_ATTENTION_EAGER)
        {
          /* torchtitan's selective "op" checkpointing saves the outputs of
           * the attention kernel and of every other matmul (wq, wv, w1, w2
           * of wq, wk, wv, wo, w1, w3, w2) and recomputes the rest, one
           * layer at a time in the backward pass
           * (torchtitan/parallelisms/parallelize_llama.py @9dec370,
           * _save_list and _custom_policy: "Saves output of all compute ops,
           * except every second mm"); each layer's input is the
           * checkpoint's. */
          double h = c->hidden / part->regime.h_split, q = (double) c->heads * c->head_dim;
          double kv = (double) c->kv_heads * c->v_head_dim;
          double saved = part->regime.e_res * h +
                         part->regime.e * (q + kv + q + c->intermediate + h) + 4.0 * c->heads;

          kept = saved * t * c->layers + per_layer;
        }
      else
        kept = per_layer * c->layers;

      /* T5's relative position bias, added to the mask once and passed to
       * every layer: one b x heads x s x s tensor (modeling_t5.py,
       * T5Stack: position_bias = position_bias + causal_mask) */
      if (c->attention_variant == HR_ATTENTION_VARIANT_T5 &&
          s->attention == HR_ATTENTION_EAGER)
        kept += e * c->heads * t * t;

      /* the final norm (on the pipeline's last stage), and the output
       * head's input when it trains */
      if (self->stage != HR_STAGE_FIRST)
        kept += norm_bytes (c, &part->regime) / part->regime.h_split * t;
      if (part->logits)
        {
          if (part->regime.head_saved)
            kept += e * c->hidden / part->regime.in_split * t;
          kept += part->regime.head_per_token * t;
          *logits_out = logits_bytes_per_token (self, c, e) * t;
        }

      *layer_out = per_layer;
      return kept;
    }

  /* Calibrated figures scale with the input and with the bytes of an
   * activation element relative to the calibration run's. */
  {
    double bytes = c->act_bytes_per_sample;

    if (c->act_scaling == HR_SCALING_PIXELS && c->act_ref_width > 0)
      bytes *= ((double) self->image_width * self->image_height) /
               ((double) c->act_ref_width * c->act_ref_height);
    else if (c->act_scaling == HR_SCALING_SEQ && c->act_ref_seq_len > 0)
      bytes *= (double) self->seq_len / c->act_ref_seq_len;

    bytes *= e / hr_dtype_element_bytes (c->act_dtype);
    return bytes;
  }
}

/* The attention scores a forward pass over @t tokens materialises, per
 * sample, where the attention is not a fused kernel.
 *
 * transformers' eager attention (huggingface/transformers @0022728,
 * src/transformers/models/llama/modeling_llama.py, LlamaAttention.forward)
 * computes attn_weights = matmul(q, k^T) in the activation type, adds the
 * causal mask into a new tensor, then softmax(dtype=torch.float32)
 * .to(query_states.dtype): at the cast the scores, their fp32 softmax
 * and its 16-bit copy are alive at once, 4 + 2e bytes a score; the 4D
 * mask the model built for the prompt (b x 1 x q x k in the activation
 * type, _prepare_4d_causal_attention_mask_with_cache_position @5dd4a63)
 * lives beside them through every layer.
 *
 * AutoAWQ's fused attention (casper-hansen/AutoAWQ v0.1.6 = @8110e02,
 * awq/modules/fused/attn.py, QuantAttentionFused.forward) computes the
 * scores in fp16 the same way but upcasts them first:
 * F.softmax(scores.float(), dim=-1).type_as(xq) holds the fp16 scores, their
 * fp32 copy and the fp32 softmax at once, e + 8 bytes a score; its mask is
 * one 1 x 1 x q x q tensor shared by the batch (awq/utils/fused_utils.py,
 * prepare_attention_mask). */
static double
attention_scores_bytes (HrPlan            *self,
                        const HrComponent *c,
                        double             t)
{
  const HrScenario *s = self->scenario;
  double e = hr_compute_activation_bytes (s->compute);

  if (s->fuse_layers && !self->training)
    return (double) c->heads * t * t * (e + 8.0);
  if (s->attention == HR_ATTENTION_EAGER)
    return (double) c->heads * t * t * (4.0 + 2.0 * e) + t * t * e;
  return 0;
}

/* What HunyuanVideo's MMSingleStreamBlock holds at its peak, the
 * concatenation linear2 reads, per token, in values (Tencent/HunyuanVideo
 * @e965abb hyvideo/modules/models.py, MMSingleStreamBlock.forward): its
 * input and x_mod (h each), linear1's output (3h + m; the queries, keys,
 * values and the MLP's input are views of it, alive to the end), the
 * normed queries and keys (2h, kept by the text tokens' slices), their
 * rotated copies and the concatenations of those (4h,
 * posemb_layers.apply_rotary_emb, torch.cat), the attention's output (h),
 * the GELU of the MLP's input (m) and the concatenation (h + m): 13h + 3m.
 * A live-bytes trace of the block on the CPU (bf16, attention stubbed)
 * holds 24 values per token and hidden beyond the input at m = 4h. */
static double
single_stream_values (const HrComponent *c)
{
  return 13.0 * c->hidden + 3.0 * c->intermediate;
}

/* Memory one layer needs while running forward only (inference, or a frozen
 * part no gradient flows through), per sample. */
double
hr_plan_part_forward_working_set (HrPlan     *self,
                                  const Part *part)
{
  const HrComponent *c = part->c;
  double e = hr_compute_activation_bytes (self->scenario->compute);
  double t = part->tokens;

  if (c->kind == HR_COMPONENT_TRANSFORMER)
    {
      double q = (double) c->heads * c->head_dim;
      double kv = (double) c->kv_heads * c->head_dim;
      double attention = e * (3.0 * q + 2.0 * kv);
      double mlp = e * (c->glu ? 3.0 : 2.0) * c->intermediate;
      double ws;

      /* transformers runs the experts one after another over the tokens
       * routed to each: the router's logits and the output being summed
       * beside one expert's intermediates */
      if (hr_component_is_moe (c))
        mlp = MAX (mlp, e * (c->hidden + c->experts + (c->glu ? 3.0 : 2.0) *
                             MAX (c->expert_intermediate, c->shared_expert_intermediate)));
      ws = t * (2.0 * e * c->hidden + MAX (attention, mlp));
      /* Tencent's blocks; diffusers' port (HunyuanVideoSingleTransformerBlock)
       * projects the attention and the MLP apart and keeps less, not
       * described here */
      if (c->single_stream &&
          self->scenario->pipeline_library == HR_PIPELINE_LIBRARY_ORIGINAL)
        ws = t * single_stream_values (c) * e;

      ws += attention_scores_bytes (self, c, t);
      return ws;
    }

  /* Known by its parameter count alone (hr-catalog.h): an assumed rule,
   * one activation element per parameter for each sample.  Frozen
   * autoencoders, the parts most often described this way, come near it:
   * Stable Diffusion's VAE (84M parameters) encoding a 512 x 512 image
   * holds three or four 128-channel full-resolution maps at once (33.5M
   * values each, diffusers' Encoder: ResnetBlock2D's GroupNorm, SiLU and
   * conv), about 1.5 values per parameter, and at 256 x 256 a quarter of
   * that; a text encoder over 77 tokens holds far less. */
  if (c->kind == HR_COMPONENT_WEIGHTS_ONLY)
    return WEIGHTS_ONLY_VALUES_PER_PARAM * e * part->params;

  /* A calibrated training figure holds every layer's output; forward only,
   * about a tenth of it is alive at once (two consecutive feature maps of
   * ten-odd stages).  An estimate, flagged in the notes. */
  {
    double logits, layer;

    return 0.1 * hr_plan_part_activations (self, part, &logits, &layer);
  }
}

/* The part of a backward pass's saved activations activation offloading
 * leaves on the GPU. */
static double
offload_on_gpu (HrPlan     *self,
                const Part *part,
                double      kept,
                double      layer,
                double      b)
{
  const HrComponent *c = part->c;

  if (c->kind != HR_COMPONENT_TRANSFORMER || c->layers == 0)
    return MIN (kept, OFFLOAD_LAYERS_ON_GPU * kept / 10.0);

  if (self->scenario->recompute == HR_RECOMPUTE_FULL)
    {
      /* the checkpoints (layer inputs) go to the host; the layer being
       * recomputed in the backward pass is rebuilt on the GPU, and the
       * next layer's input comes back ahead of it */
      double input = part->regime.e_res * c->hidden * ((double) part->tokens + part->extra_tokens);

      return MIN (kept, (layer + OFFLOAD_LAYERS_ON_GPU * input) * b);
    }

  return MIN (kept, OFFLOAD_LAYERS_ON_GPU * layer * b);
}

/* The tokens a rank's experts take beyond their share: padding to a
 * capacity factor, or uneven load under expert parallelism (range only). */
static void
add_expert_overflow (HrPlan *self,
                     Acc    *acc,
                     Part   *p,
                     double  b)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;

  /* how many tokens an expert takes is the router's choice: with a
   * capacity factor above 1 and padding, up to that factor more;
   * dropless under expert parallelism, one rank's experts can get
   * more than their share (an assumed half as much again) */
  if (hr_component_is_moe (c) && c->kind == HR_COMPONENT_TRANSFORMER &&
      s->recompute != HR_RECOMPUTE_FULL)
    {
      double routed = routed_bytes_per_token (self, c, &p->regime) *
                      ((double) p->tokens + p->extra_tokens) * c->layers * b *
                      acc->pipeline_activations;
      double extra = s->capacity_factor_set
                       ? routed * MAX (0.0, s->capacity_factor - 1.0) /
                         MIN (1.0, s->capacity_factor)
                       : self->shard.ep > 1 ? 0.5 * routed : 0;

      if (extra > 0)
        hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED,
                    s->capacity_factor_set ? HR_BASIS_DERIVED : HR_BASIS_ASSUMED,
                    0, 0, extra,
                    s->capacity_factor_set
                      ? _("%s: experts padded to capacity factor %.2f (range only)")
                      : _("%s: uneven expert load across expert-parallel ranks, "
                          "dropless routing (range only)"),
                    c->name, s->capacity_factor);
    }
}

/* The activations a trained part saves for its backward pass, on the GPU
 * or, offloaded, on the host. */
static void
add_saved_activations (HrPlan *self,
                       Acc    *acc,
                       Part   *p,
                       double  bytes,
                       double  per_sample,
                       double  layer,
                       guint   micro_batch,
                       double  b)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;
  double lo = ACT_CLOSED_LOW, hi = ACT_CLOSED_HIGH;
  HrBasis basis = HR_BASIS_DERIVED;

  /* A component's per-sample figure from the catalog follows from
   * its source (a derivation, a published run): "calibrated" is
   * kept for what a measurement of this scenario set (the
   * analysis marks it); without a source it is assumed. */
  if (c->kind != HR_COMPONENT_TRANSFORMER)
    {
      lo = 1.0 - c->act_spread;
      hi = 1.0 + c->act_spread;
      basis = c->act_source != NULL ? HR_BASIS_DERIVED : HR_BASIS_ASSUMED;
    }

  if (s->activation_offload)
    {
      double on_gpu = offload_on_gpu (self, p, bytes, layer, b);
      /* worded only for an estimate's items, not for every peak searched */
      g_autofree char *offloaded = acc->est != NULL ? hr_size_format (bytes - on_gpu, self->unit)
                                                    : NULL;

      acc->host_activations += bytes - on_gpu;
      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  on_gpu, lo * on_gpu, hi * on_gpu,
                  _("%s: saved activations offloaded to pinned host memory (%s "
                    "per GPU); on the GPU, the layers in use and the stash beside them"),
                  c->name, offloaded);
      acc->activations += on_gpu;
    }
  else
    {
      if (c->kind == HR_COMPONENT_TRANSFORMER)
        hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, basis, bytes,
                    lo * bytes, hi * bytes,
                    /* Translators: the two %s at the end are the optional
                     * clauses ", layer inputs only (full recomputation)" and
                     * ", frozen weights keep no inputs", translated on their
                     * own. */
                    _("%s: %u layers × %u tokens × micro-batch %u%s%s"), c->name,
                    c->layers, p->tokens + p->extra_tokens, micro_batch,
                    s->recompute == HR_RECOMPUTE_FULL
                      ? _(", layer inputs only (full recomputation)") : "",
                    p->trainable < p->params && p->adapters <= 0 &&
                    !hr_dtype_is_quantized (s->weights_dtype)
                      ? _(", frozen weights keep no inputs") : "");
      else
        {
          g_autofree char *sample = acc->est != NULL
                                      ? hr_size_format_full (per_sample, self->unit,
                                                             HR_SIZE_FORMAT_PRECISE)
                                      : NULL;

          hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, basis, bytes,
                      lo * bytes, hi * bytes,
                      c->act_source != NULL
                        ? _("%s: %s per sample × micro-batch %u (the catalog's "
                            "figure, from its source)")
                        : _("%s: %s per sample × micro-batch %u (the catalog's "
                            "figure, no source given)"),
                      c->name, sample, micro_batch);
        }
      acc->activations += bytes;
    }
}

/* The logits and loss of a trained part with a language-model head, and
 * what a pipeline's last stage keeps of them. */
static void
add_logits_and_loss (HrPlan *self,
                     Acc    *acc,
                     Part   *p,
                     double  logits,
                     double  once,
                     double  e,
                     double  b)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;
  /* the compiled loss rests on Inductor's fusion of its
   * backward (logits_bytes_per_token): up to the chunk's fp32
   * gradient more where it does not fuse */
  gboolean compiled = s->compile && s->loss == HR_LOSS_CHUNKED &&
                      s->stack_set && s->stack == HR_STACK_TORCHTUNE;
  double low = compiled ? 2.0 / (2.0 + 2.0 / 8.0)
                        : s->loss == HR_LOSS_UPCAST ||
                          (s->loss == HR_LOSS_NATIVE && loss_autocast (s)) ? 0.3 : 0.8;
  double high = compiled ? (2.0 + 6.0 / 8.0) / (2.0 + 2.0 / 8.0) : 1.0;
  /* torchtune's recipes and torchtitan drop their own reference
   * to the logits once the loss is computed (lora_finetune_
   * single_device.py @1814feb17 _loss_step: "del logits # free
   * logits otherwise it peaks backward memory"; torchtitan
   * train.py @9dec370: "del pred"), so the loss's tensors are
   * gone when the backward pass reaches the last layer: under
   * recomputation the layer it rebuilds, and any quantised
   * weight dequantised for a layer's pass, take their place and
   * only what they need beyond it adds to the peak.  Elsewhere
   * the caller's outputs keep the logits through the backward
   * pass (a training loop's `outputs = model(**batch)`), and
   * the two are counted together. */
  gboolean dropped = s->stack_set &&
                     (s->stack == HR_STACK_TORCHTUNE ||
                      (s->stack == HR_STACK_TORCHTITAN && self->shard.pp <= 1));
  double loss = logits * b;
  double overlap = dropped ? MIN (once * b + acc->dequant_transient, loss) : 0;

  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
              loss - overlap, low * loss - overlap, high * loss - overlap,
              overlap > 0
                ? _("%s: logits and loss over a %u-token vocabulary, beyond the "
                    "layer the backward pass rebuilds after them")
                : s->loss == HR_LOSS_UPCAST
                ? _("%s: logits and loss over a %u-token vocabulary (upcast to fp32)")
                : s->loss == HR_LOSS_CHUNKED
                ? _("%s: logits and loss over a %u-token vocabulary (chunked "
                    "cross-entropy)")
                : s->loss == HR_LOSS_SUM
                ? _("%s: logits over a %u-token vocabulary, kept for a backward pass "
                    "from their sum (no loss head)")
                : s->loss == HR_LOSS_NATIVE
                ? (loss_autocast (s)
                     ? _("%s: logits and loss over a %u-token vocabulary (cross-entropy "
                         "in fp32 under autocast)")
                     : _("%s: logits and loss over a %u-token vocabulary (cross-entropy "
                         "in the logits' dtype, no autocast)"))
                : _("%s: logits and loss over a %u-token vocabulary (fused, one "
                    "chunk at a time)"),
              c->name, c->vocab);
  acc->activations += loss - overlap;

  /* torch.distributed.pipelining keeps the last stage's output
   * of every micro-batch for the step's merged return value
   * (stage.py forward_one_chunk: "if self.is_last:
   * self.output_chunks.append(output)", cleared only by
   * clear_runtime_states at the next step; pytorch/pytorch
   * @0138610, and torchtitan @9dec370 calls step(target=,
   * losses=) without a way to skip it): the logits of the
   * micro-batches already run, in the head's dtype, beside the
   * one whose loss is being computed */
  if (self->stage == HR_STAGE_LAST && s->stack_set &&
      s->stack == HR_STACK_TORCHTITAN && s->grad_accum > 1)
    {
      double kept = (double) (s->grad_accum - 1) * e * c->vocab * p->tokens * b;

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED,
                  HR_BASIS_DERIVED, kept, kept, kept,
                  _("%s: the last stage's outputs (logits) of the %u micro-batches "
                    "before, kept by the pipeline schedule until the step ends"),
                  c->name, s->grad_accum - 1);
      acc->activations += kept;
    }
}

/* The adapters' tensors beside a trained part's activations, and the
 * mask of packed sequences. */
static void
add_adapter_and_mask_tensors (HrPlan *self,
                              Acc    *acc,
                              Part   *p,
                              double  b)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;

  /* LoHa's and LoKr's delta weights and BOFT's rotations, one set
   * per adapted module, whatever the batch; with full
   * recomputation only the recomputed layer's */
  if (p->adapter_static > 0)
    {
      double kept = s->recompute == HR_RECOMPUTE_FULL && c->layers > 0
                      ? p->adapter_static / c->layers : p->adapter_static;

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  kept, 0.9 * kept, 1.1 * kept,
                  _("%s: the adapters' full-size delta weights, kept for the backward "
                    "pass"), c->name);
      acc->activations += kept;
    }

  /* DoRA's weight norm: built while a layer runs; under full
   * recomputation it is rebuilt at the height of the backward pass */
  if (p->adapter_transient > 0)
    {
      double t = p->adapter_transient;

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  s->recompute == HR_RECOMPUTE_FULL ? t : 0, 0, t,
                  _("%s: the adapters' weight-sized working tensors in one layer"),
                  c->name);
      acc->activations += s->recompute == HR_RECOMPUTE_FULL ? t : 0;
    }

  /* packed sequences under eager or SDPA attention need a
   * block-diagonal mask per sample instead of is_causal
   * (transformers masking_utils: packed sequences from position_ids
   * get a materialised boolean mask) */
  if (s->packed && s->attention != HR_ATTENTION_FLASH &&
      c->kind == HR_COMPONENT_TRANSFORMER && p->tokens > 0 &&
      !(s->stack_set && s->stack == HR_STACK_TORCHTUNE))
    {
      double t = p->tokens;
      double mask = t * t * b;

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  mask, 0, mask,
                  _("%s: the block-diagonal attention mask of packed sequences"),
                  c->name);
      acc->activations += mask;
    }
}

/* A part a gradient flows through: what its backward pass keeps. */
static void
add_trained_part (HrPlan *self,
                  Acc    *acc,
                  Part   *p,
                  double  e,
                  guint   micro_batch,
                  double  b)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;
  double logits, layer;
  double per_sample = hr_plan_part_activations (self, p, &logits, &layer);
  /* a pipeline stage keeps the micro-batches its schedule has in
   * flight (hr-estimate-parallel.c); the layer a checkpointed
   * backward rebuilds is rebuilt for one of them at a time */
  gboolean rebuilt = c->kind == HR_COMPONENT_TRANSFORMER &&
                     (s->recompute == HR_RECOMPUTE_FULL ||
                      (s->recompute == HR_RECOMPUTE_SELECTIVE && s->stack_set &&
                       s->stack == HR_STACK_TORCHTITAN &&
                       s->attention != HR_ATTENTION_EAGER));
  double once = rebuilt ? MIN (layer, per_sample) : 0;
  double bytes = ((per_sample - once) * acc->pipeline_activations + once) * b;

  if (s->recompute == HR_RECOMPUTE_FULL && c->kind == HR_COMPONENT_TRANSFORMER)
    acc->recompute_working_set = MAX (acc->recompute_working_set, layer * b);

  add_expert_overflow (self, acc, p, b);
  add_saved_activations (self, acc, p, bytes, per_sample, layer, micro_batch, b);

  if (logits > 0)
    add_logits_and_loss (self, acc, p, logits, once, e, b);

  add_adapter_and_mask_tensors (self, acc, p, b);
}

/* A frozen part no gradient flows through, in a training step. */
static void
add_frozen_part (HrPlan *self,
                 Acc    *acc,
                 Part   *p,
                 double  e,
                 double  b)
{
  const HrComponent *c = p->c;

  if (c->kind == HR_COMPONENT_WEIGHTS_ONLY)
    {
      /* run forward before the backward pass (a frozen VQ-GAN or VAE
       * encoding the batch): counted where it rises above that peak */
      double ws = hr_plan_part_forward_working_set (self, p) * b;

      if (ws > acc->forward_transient)
        {
          acc->forward_transient = ws;
          acc->forward_transient_basis = HR_BASIS_ASSUMED;
          g_clear_pointer (&acc->forward_transient_label, g_free);
          acc->forward_transient_label =
            g_strdup_printf (_("%s: frozen, given by its parameter count alone: forward "
                               "working set assumed at one value per parameter per sample"),
                             c->name);
        }
    }
  else
    {
      /* A frozen part no gradient flows through runs as inference: one
       * layer's working set at a time, freed before the trainable part's
       * peak, so only its output is alive then. */
      if (c->kind == HR_COMPONENT_TRANSFORMER)
        {
          double out = e * c->hidden * p->tokens * b;

          hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                      out, out, 2 * out,
                      _("%s: frozen, no backward: only its output features are kept"),
                      c->name);
          acc->activations += out;
        }
    }
}

/* An inference part's KV cache and, once per plan, the causal mask a
 * static cache is allocated with. */
static void
add_kv_cache (HrPlan   *self,
              Acc      *acc,
              Part     *p,
              double    b,
              gboolean *mask_counted)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;
  /* K and V for every layer, KV head and cached token
   * (hr-estimate-serving.c) */
  double kv = hr_plan_kv_bytes_per_token (self, p) * (double) self->context_len * b *
              hr_scenario_get_beams (s);

  kv = hr_plan_sharded (self, kv, self->shard.shard_weights);
  acc->kv_pool += kv;
  acc->kv_pool_low += kv;
  acc->kv_pool_high += 1.05 * kv;
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
              kv, kv, kv * 1.05,
              _("%s: KV cache, %u layers × %u KV heads × %u tokens in %s"), c->name,
              c->layers, c->kv_heads, self->context_len,
              hr_enum_to_nick (hr_kv_dtype_names, s->kv_dtype));
  acc->activations += kv;

  if (s->causal_mask != HR_CAUSAL_MASK_NONE && !*mask_counted)
    {
      /* gpt-fast and torchao's generate.py allocate the static
       * cache for max_seq_length rounded up to a multiple of 8
       * and, beside it, torch.tril(torch.ones(S, S,
       * dtype=torch.bool)): S² bytes, whatever the batch
       * (gpt-fast model.py @03e10bc and torchao
       * _models/llama/model.py @1f66d47, setup_caches).
       * torchao's linear_causal_mask keeps one row of S and
       * builds a prompt x S mask for the prefill. */
      double cache = 8.0 * ceil ((double) self->context_len / 8.0);
      double mask = s->causal_mask == HR_CAUSAL_MASK_DENSE
                      ? cache * cache
                      : cache * (1.0 + (double) self->seq_len);

      if (s->causal_mask == HR_CAUSAL_MASK_DENSE)
        hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED,
                    HR_BASIS_DERIVED, mask, mask, mask,
                    _("causal mask beside the static KV cache: %.0f × %.0f "
                      "booleans (gpt-fast)"), cache, cache);
      else
        hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED,
                    HR_BASIS_DERIVED, mask, cache, mask,
                    _("linear causal mask: one row of %.0f booleans, and the "
                      "prompt's rows during the prefill (torchao)"), cache);
      acc->activations += mask;
      *mask_counted = TRUE;
    }
}

/* The prefill's logits over the whole prompt.  Before transformers 4.45
 * the causal LMs ran the head over every position and upcast the result:
 * logits = self.lm_head(hidden_states); logits = logits.float()
 * (huggingface/transformers @0022728, src/transformers/models/llama/
 * modeling_llama.py, LlamaForCausalLM.forward), so the prompt's b x s x vocab logits in the activation
 * type and their fp32 copy are alive at once.  4.45 added
 * num_logits_to_keep, which generate() sets to 1, and later releases
 * call it logits_to_keep (@5dd4a63, LlamaForCausalLM.forward:
 * self.lm_head(hidden_states[:, slice_indices, :])): only the last
 * position's logits.  The head runs after the last layer, so its peak
 * replaces the layer's working set: counted where it exceeds it. */
static double
add_prompt_logits (HrPlan     *self,
                   Acc        *acc,
                   const Part *p,
                   double      e,
                   double      b,
                   double      ws)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;
  double logits, extra;

  if (!hr_scenario_transformers_before (s, 4, 45) || p->tokens <= 1)
    return 0;
  logits = b * (double) p->tokens * c->vocab * (e + 4.0);
  extra = MAX (0, logits - ws);
  if (extra <= 0)
    return 0;
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
              extra, extra, 1.1 * extra,
              _("%s: the prompt's logits over all %u positions and their fp32 copy "
                "(transformers before 4.45), where they exceed the layer's working set"),
              c->name, p->tokens);
  acc->activations += extra;
  return extra;
}

/* Before transformers 4.36 a decoder's cache was a tuple per layer, and
 * each decode step built the layer's new one by concatenation
 * (huggingface/transformers, tag v4.35.0, src/transformers/models/llama/
 * modeling_llama.py, LlamaAttention.forward: key_states = torch.cat(
 * [past_key_value[0], key_states], dim=2); past_key_value = (key_states,
 * value_states)), while generate() still held the previous step's tuple
 * in model_kwargs until the forward returned (generation/utils.py,
 * greedy_search: outputs = self(**model_inputs); model_kwargs =
 * self._update_model_kwargs_for_generation(outputs, model_kwargs)).  At
 * the end of a decode step both caches are alive: the previous one, one
 * token shorter, beside the new.  4.36 introduced DynamicCache, whose
 * update replaces each layer's entry as it concatenates (cache_utils.py).
 * Only with a decode step: a context of two tokens past the prompt or
 * more (generate's first token comes from the prefill).  Counted where it
 * exceeds the prefill's working set and logits, which are gone by then;
 * not where the loop drops each layer's previous cache
 * as the layer runs ("previous_cache_freed": GPTQ-for-LLaMa's benchmark
 * hook), nor for a static or fused cache. */
static void
add_previous_cache (HrPlan     *self,
                    Acc        *acc,
                    const Part *p,
                    double      b,
                    double      prefill)
{
  const HrScenario *s = self->scenario;
  double previous, extra;

  if (!s->transformers_version_set || !hr_scenario_transformers_before (s, 4, 36) ||
      s->previous_cache_freed || s->fuse_layers || s->causal_mask != HR_CAUSAL_MASK_NONE ||
      (double) self->context_len < (double) p->tokens + 2)
    return;
  previous = hr_plan_kv_bytes_per_token (self, p) * (double) (self->context_len - 1) * b *
             hr_scenario_get_beams (s);
  previous = hr_plan_sharded (self, previous, self->shard.shard_weights);
  extra = MAX (0, previous - prefill);
  if (extra <= 0)
    return;
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
              extra, extra, 1.05 * extra,
              _("%s: the previous step's KV cache, which generate() holds while the step "
                "concatenates the new one (tuple caches before transformers 4.36), where it "
                "exceeds the prefill's working set"), p->c->name);
  acc->activations += extra;
}

/* A part run forward only: its working set, KV cache and logits. */
static void
add_inference_part (HrPlan   *self,
                    Acc      *acc,
                    Part     *p,
                    double    e,
                    double    b,
                    gboolean *mask_counted)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;
  double ws = hr_plan_part_forward_working_set (self, p) * b;
  double prompt_logits = 0;

  if (c->kind == HR_COMPONENT_WEIGHTS_ONLY)
    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_ASSUMED,
                ws, WEIGHTS_ONLY_LOW * ws, WEIGHTS_ONLY_HIGH * ws,
                _("%s: given by its parameter count alone: forward working set "
                  "assumed at one value per parameter per sample"), c->name);
  else
    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED,
                c->kind == HR_COMPONENT_TRANSFORMER ? HR_BASIS_DERIVED
                                                    : HR_BASIS_ASSUMED,
                ws, 0.5 * ws, 2.0 * ws,
                c->kind == HR_COMPONENT_TRANSFORMER
                  ? _("%s: forward working set of one layer over the prompt")
                  : _("%s: forward working set of one layer (a tenth of the training "
                      "figure)"),
                c->name);
  acc->activations += ws;

  if (p->kv_cache)
    add_kv_cache (self, acc, p, b, mask_counted);

  if (p->logits && c->vocab > 0)
    {
      /* generate() keeps the last position's logits, upcast to fp32 */
      double logits = b * hr_scenario_get_beams (s) * c->vocab * (e + 4.0);

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  logits, logits, 2 * logits, _("%s: next-token logits"), c->name);
      acc->activations += logits;
      prompt_logits = add_prompt_logits (self, acc, p, e, b, ws);
    }
  if (p->kv_cache)
    add_previous_cache (self, acc, p, b, ws + prompt_logits);
}

/* A pipeline's text encoders run once, before the first denoising step,
 * and hand the denoiser their embeddings: their working set is a phase of
 * its own (diffusers' pipelines: encode_prompt before the denoising loop,
 * e.g. pipelines/hunyuan_video/pipeline_hunyuan_video.py @58eb52c0;
 * Wan2.1 wan/text2video.py @9737cba generate). */
static void
add_encode_phase (HrPlan *self,
                  Acc    *acc,
                  Part   *p,
                  double  b)
{
  double ws = hr_plan_part_forward_working_set (self, p) * b;

  hr_plan_set_phase (&acc->encode_phase, p, ws,
                     p->alone_weights > 0
                       ? g_strdup_printf (_("%s: its weights alone on the GPU "
                                            "(pipeline_offload) and the forward working set "
                                            "of one layer over the prompt, before the first "
                                            "denoising step, where they exceed the "
                                            "denoising"), p->c->name)
                       : g_strdup_printf (_("%s: forward working set of one layer over the "
                                            "prompt, before the first denoising step, where "
                                            "it exceeds the denoising's"), p->c->name));
}

void
hr_plan_add_activations (HrPlan *self,
                         Acc    *acc,
                         double  b)
{
  const HrScenario *s = self->scenario;
  double e = hr_compute_activation_bytes (s->compute);
  guint micro_batch;
  gboolean mask_counted = FALSE;

  /* DreamBooth's prior preservation puts a class image beside each
   * instance image (train_dreambooth.py: torch.cat of both halves) */
  if (s->prior_preservation && self->training)
    b *= 2;
  micro_batch = (guint) b;

  if (hr_plan_is_served (self))
    {
      hr_plan_add_serving (self, acc, b);
      return;
    }
  /* an encoder-decoder decoding with beams (hr-estimate-serving.c) */
  if (hr_plan_add_encoder_decoder (self, acc, b))
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;

      if (c->arch != NULL)
        {
          hr_plan_add_arch_part (self, acc, p, b);
          continue;
        }

      if (self->training && p->backprop)
        add_trained_part (self, acc, p, e, micro_batch, b);
      else if (hr_plan_is_pipeline_inference (self) && c->kind == HR_COMPONENT_TRANSFORMER &&
               hr_plan_part_pipeline_frozen (self, c))
        add_encode_phase (self, acc, p, b);
      else if (self->training)
        add_frozen_part (self, acc, p, e, b);
      else
        add_inference_part (self, acc, p, e, b, &mask_counted);
    }

  hr_plan_add_forward_transient (self, acc);
}
