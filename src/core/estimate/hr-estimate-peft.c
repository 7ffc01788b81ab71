/* hr-estimate-peft.c: the adapters of each PEFT method
 *
 * Every method is counted the way Hugging Face PEFT builds it
 * (huggingface/peft @5d602fd, src/peft/tuners/<method>/layer.py): the
 * parameters it adds per adapted module, which of them train, and what its
 * forward pass keeps for the backward pass.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-estimate-private.h"
#include "hr-setting.h"

/* A module's input and output features. */
static gboolean
module_shape (const HrComponent *c,
              HrModule           module,
              double            *in,
              double            *out)
{
  double h = c->hidden;
  double q = (double) c->heads * c->head_dim;
  double kv = (double) c->kv_heads * c->head_dim;
  double I = c->intermediate;

  switch (module)
    {
    case HR_MODULE_Q:
      *in = h, *out = q;
      return TRUE;
    case HR_MODULE_K:
    case HR_MODULE_V:
      *in = h, *out = kv;
      return TRUE;
    case HR_MODULE_O:
      *in = q, *out = h;
      return TRUE;
    case HR_MODULE_GATE:
      /* only gated MLPs have one */
      *in = h, *out = I;
      return c->glu;
    case HR_MODULE_UP:
      *in = h, *out = I;
      return TRUE;
    case HR_MODULE_DOWN:
      *in = I, *out = h;
      return TRUE;
    case HR_MODULE_EMBED:
      /* LoRA on an embedding: A is r x vocab, B is hidden x r (PEFT's
       * lora.Embedding) */
      *in = c->vocab, *out = h;
      return c->vocab > 0;
    case HR_MODULE_LM_HEAD:
      *in = h, *out = c->vocab;
      return c->vocab > 0;
    default:
      g_assert_not_reached ();
    }
}

guint
hr_model_missing_lora_modules (const HrModel *model,
                               guint          modules)
{
  guint present = 0;

  g_return_val_if_fail (model != NULL, 0);

  for (guint i = 0; i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);

      if (c->kind != HR_COMPONENT_TRANSFORMER)
        continue;
      for (guint j = 0; hr_module_names[j].nick != NULL; j++)
        {
          double in, out;

          if (module_shape (c, hr_module_names[j].value, &in, &out))
            present |= hr_module_names[j].value;
        }
    }
  return modules & ~present;
}

static gboolean
module_is_per_layer (HrModule module)
{
  return module != HR_MODULE_EMBED && module != HR_MODULE_LM_HEAD;
}

/* One kind of matrix an adapter sits on: its shape, how many of it the
 * component has, and how many times a token passes through one per layer
 * (on average over the layers). */
typedef struct {
  double in;
  double out;
  double count;
  double passes;
} ModuleVariant;

/* Where a module occurs.  In a mixture of experts the MLP's projections
 * are the dense layers', every routed expert's (of those one GPU holds;
 * each token passes experts_per_token of them) and every shared expert's,
 * as transformers 4.x builds Mixtral, Qwen3-MoE and DeepSeek-V3 (one
 * nn.Linear per expert projection, which PEFT's target modules match).
 * PEFT's "all-linear" also adapts the router, a Linear of hidden x experts
 * (@with_router, counted with the gate). */
static guint
module_variants (const HrComponent *c,
                 HrModule           module,
                 gboolean           with_router,
                 ModuleVariant      variants[4])
{
  double in, out, layers = MAX (1, c->layers);
  guint n = 0;

  if (!module_shape (c, module, &in, &out))
    return 0;

  if (!hr_component_is_moe (c) || (module & HR_MODULES_MLP) == 0)
    {
      variants[0] = (ModuleVariant) { in, out, module_is_per_layer (module) ? layers : 1, 1 };
      return 1;
    }

  {
    double moe = hr_component_moe_layers (c), dense = layers - moe;
    double experts = c->experts_local > 0 ? c->experts_local : c->experts;
    double widths[3] = { c->intermediate, c->expert_intermediate, c->shared_expert_intermediate };
    double counts[3] = { dense, moe * experts, moe * c->shared_experts };
    double passes[3] = { dense / layers, moe / layers * c->experts_per_token,
                         moe / layers * c->shared_experts };

    for (guint i = 0; i < 3; i++)
      {
        if (counts[i] <= 0)
          continue;
        variants[n++] = module == HR_MODULE_DOWN
                          ? (ModuleVariant) { widths[i], c->hidden, counts[i], passes[i] }
                          : (ModuleVariant) { c->hidden, widths[i], counts[i], passes[i] };
      }
    if (with_router && module == HR_MODULE_GATE && moe > 0)
      variants[n++] = (ModuleVariant) { c->hidden, c->experts, moe, moe / layers };
  }
  return n;
}

/* LoRA adds A (r x in) and B (out x r) to each adapted matrix (Hu et al.
 * 2021, section 4). */
double
hr_lora_params (const HrComponent *c,
                guint              rank,
                guint              modules)
{
  double total = 0;

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return 0;

  for (guint i = 0; hr_module_names[i].nick != NULL; i++)
    {
      HrModule m = hr_module_names[i].value;
      ModuleVariant v[4];
      guint n;

      if (!(modules & m))
        continue;
      n = module_variants (c, m, FALSE, v);
      for (guint j = 0; j < n; j++)
        total += rank * (v[j].in + v[j].out) * v[j].count;
    }
  return total;
}

/* PEFT's LoKr factorisation (src/peft/tuners/lokr/layer.py, factorization):
 * the pair (m, n), m <= n, m * n = dimension, closest to the square root
 * (or to the factor when one is given). */
static void
lokr_factorization (guint  dimension,
                    int    factor,
                    guint *m_out,
                    guint *n_out)
{
  guint m = 1, n = dimension, length;
  guint limit;

  if (factor > 0 && dimension % (guint) factor == 0)
    {
      *m_out = factor;
      *n_out = dimension / factor;
      if (*m_out > *n_out)
        {
          guint t = *m_out;
          *m_out = *n_out;
          *n_out = t;
        }
      return;
    }

  limit = factor == -1 ? dimension : (guint) MAX (factor, 1);
  length = m + n;
  while (m < n)
    {
      guint new_m = m + 1, new_n;

      while (dimension % new_m != 0)
        new_m++;
      new_n = dimension / new_m;
      if (new_m + new_n > length || new_m > limit)
        break;
      m = new_m;
      n = new_n;
      length = m + n;
    }
  *m_out = MIN (m, n);
  *n_out = MAX (m, n);
}

/* The modules a method adapts when the scenario names none: LoRA's
 * relatives follow the contract's "all-linear"; the other tuners use
 * PEFT's own mapping for LLaMA-style models
 * (src/peft/utils/constants.py): q and v, and for IA3 k, v and down
 * (down scaling its input, as a feed-forward module). */
static guint
method_modules (const HrScenario *s)
{
  gboolean chosen = s->lora_targets_set || s->lora_targets != HR_LORA_TARGETS_ALL_LINEAR;

  switch (s->method)
    {
    case HR_METHOD_LORA:
    case HR_METHOD_QLORA:
    case HR_METHOD_DORA:
    case HR_METHOD_LORA_FA:
      return hr_scenario_get_lora_modules (s);
    case HR_METHOD_IA3:
      return chosen ? hr_scenario_get_lora_modules (s) : HR_MODULE_K | HR_MODULE_V | HR_MODULE_DOWN;
    case HR_METHOD_VERA:
    case HR_METHOD_LOHA:
    case HR_METHOD_LOKR:
    case HR_METHOD_OFT:
    case HR_METHOD_BOFT:
    case HR_METHOD_ADALORA:
      return chosen ? hr_scenario_get_lora_modules (s) : HR_MODULE_Q | HR_MODULE_V;
    default:
      return 0;
    }
}

/* The rank a method uses: the scenario's lora.rank when it gives one, else
 * PEFT's default (VeraConfig r 256, LoHaConfig and LoKrConfig r 8,
 * AdaLoraConfig init_r 12) or the contract's 16 for LoRA. */
static guint
method_rank (const HrScenario *s)
{
  if (s->method == HR_METHOD_ADALORA)
    return (s->peft.set & HR_PEFT_INIT_R) ? s->peft.init_r
           : s->lora_rank_set ? s->lora_rank : 12;
  if (s->lora_rank_set)
    return s->lora_rank;
  switch (s->method)
    {
    case HR_METHOD_VERA:
      return 256;
    case HR_METHOD_LOHA:
    case HR_METHOD_LOKR:
      return 8;
    default:
      return s->lora_rank;
    }
}

/* Whether PEFT keeps this stack's adapters in fp32 beside 16-bit weights:
 * get_peft_model(autocast_adapter_dtype=True) upcasts bf16/fp16 adapter
 * weights (src/peft/peft_model.py), and each adapted layer casts its input
 * to the adapter's dtype (_cast_input_dtype, tuners_utils.py). */
static gboolean
peft_fp32_adapters (const HrScenario *s)
{
  if (!s->stack_set)
    return FALSE;
  return s->stack == HR_STACK_TRANSFORMERS || s->stack == HR_STACK_TRL ||
         s->stack == HR_STACK_ACCELERATE || s->stack == HR_STACK_AXOLOTL;
}

/* Whether the adapters include a mixture of experts' router: PEFT's
 * "all-linear" matches every nn.Linear but the output head, the router
 * too. */
static gboolean
router_adapted (const HrScenario *s)
{
  return s->lora_targets == HR_LORA_TARGETS_ALL_LINEAR;
}

/* Parameters a part's adapters add, and the batch-independent memory they
 * keep for the backward pass. */
/* Prefix and prompt tuning and LayerNorm tuning, which add to the model
 * as a whole rather than to its linear modules: TRUE when the method is
 * one of them. */
static gboolean
setup_model_wide_adapters (const HrScenario  *s,
                           const HrComponent *c,
                           Part              *part)
{
  switch (s->method)
    {
    case HR_METHOD_PREFIX:
      {
        /* PrefixEncoder (src/peft/tuners/prefix_tuning/model.py): an
         * embedding of num_virtual_tokens x (layers * 2 * token_dim), the
         * key/value dimension (KV heads x head_dim for GQA models,
         * utils/other.py); with prefix_projection an embedding of
         * token_dim and a two-layer MLP to that width instead. */
        double p = s->peft.num_virtual_tokens;
        double kv = (double) c->kv_heads * c->head_dim;
        double width = 2.0 * c->layers * kv;

        if (s->peft.prefix_projection)
          {
            double enc = s->peft.encoder_hidden_size > 0 ? s->peft.encoder_hidden_size
                                                         : c->hidden;

            part->adapters = p * c->hidden + c->hidden * enc + enc + enc * width + width;
          }
        else
          part->adapters = p * width;
        return TRUE;
      }
    case HR_METHOD_PROMPT:
      /* PromptEmbedding: num_virtual_tokens x token_dim
       * (src/peft/tuners/prompt_tuning/model.py) */
      part->adapters = (double) s->peft.num_virtual_tokens * c->hidden;
      part->extra_tokens = s->peft.num_virtual_tokens;
      return TRUE;
    case HR_METHOD_LAYERNORM:
      /* LNTuningLayer trains a copy of every norm (input_layernorm,
       * post_attention_layernorm and the final norm for LLaMA-style
       * models; src/peft/tuners/ln_tuning/layer.py deep-copies the base
       * layer): a weight (and a bias for LayerNorm) of `hidden` each */
      part->adapters = (2.0 * c->layers + 1.0) * c->hidden * (c->rmsnorm ? 1.0 : 2.0);
      return TRUE;
    default:
      break;
    }

  return FALSE;
}

/* What an adapter on one module of in x out adds, per copy of the module. */
typedef struct {
  double trainable;
  double frozen;
  double kept;
  double transient;
} ModuleAdapter;

static void
module_adapter (const HrScenario *s,
                Part             *part,
                HrModule          m,
                double            in,
                double            out,
                guint             r,
                double            e,
                double            adapter_e,
                ModuleAdapter    *a)
{
  switch (s->method)
    {
    case HR_METHOD_LORA:
    case HR_METHOD_QLORA:
      a->trainable = r * (in + out);
      break;
    case HR_METHOD_DORA:
      /* LoRA plus a magnitude per output feature (DoraLinearLayer.weight,
       * lora/dora.py).  Its forward builds B·A through an identity of
       * in x in, the whole weight plus scaling·B·A and its norm: alive
       * while the layer runs, about three weight-sized tensors. */
      a->trainable = r * (in + out) + out;
      a->transient = (in * in + 2.0 * in * out) * e;
      break;
    case HR_METHOD_LORA_FA:
      /* LoRA with A frozen (peft/optimizers/lorafa.py): only B trains */
      a->trainable = r * out;
      a->frozen = r * in;
      break;
    case HR_METHOD_ADALORA:
      /* SVDLinear: lora_A (r x in), lora_B (out x r), lora_E (r);
       * the RankAllocator keeps the last importance and its two averages
       * per adapter parameter (ipt, exp_avg_ipt, exp_avg_unc, each like
       * the parameter: huggingface/peft src/peft/tuners/adalora/layer.py
       * @06ee076a RankAllocator.update_ipt); the budget (target_r) masks
       * lora_E in place (mask_to_budget: masked_fill_), so every tensor
       * keeps init_r */
      a->trainable = r * (in + out + 1);
      part->adapter_state = 3.0;
      break;
    case HR_METHOD_VERA:
      /* lambda_d (r) and lambda_b (out) train; the random projections
       * vera_A (r x in) and vera_B (out x r) are shared by every layer
       * (vera/layer.py), counted once below */
      a->trainable = r + out;
      break;
    case HR_METHOD_IA3:
      /* one scaling vector per module: of the input for feed-forward
       * modules (down), of the output otherwise (ia3/layer.py) */
      a->trainable = m == HR_MODULE_DOWN ? in : out;
      break;
    case HR_METHOD_LOHA:
      /* hada_w1_a, hada_w2_a (out x r) and hada_w1_b, hada_w2_b (r x in);
       * F.linear(x, delta_weight) keeps the whole out x in delta weight
       * for the backward pass (loha/layer.py, _get_delta_activations) */
      a->trainable = 2.0 * r * (in + out);
      a->kept = in * out * adapter_e;
      break;
    case HR_METHOD_LOKR:
      {
        /* w1 (out_l x in_m) and w2 (out_k x in_n), either factor kept
         * whole or split at rank r (lokr/layer.py, update_layer) */
        guint in_m, in_n, out_l, out_k;
        double w1, w2;

        lokr_factorization ((guint) in, s->peft.decompose_factor, &in_m, &in_n);
        lokr_factorization ((guint) out, s->peft.decompose_factor, &out_l, &out_k);
        w1 = s->peft.decompose_both && r < MAX (out_l, in_m) / 2.0
               ? r * ((double) out_l + in_m) : (double) out_l * in_m;
        w2 = r < MAX (out_k, in_n) / 2.0 ? r * ((double) out_k + in_n)
                                         : (double) out_k * in_n;
        a->trainable = w1 + w2;
        a->kept = in * out * adapter_e;
      }
      break;
    case HR_METHOD_OFT:
      {
        /* r blocks of oft_block_size (32) along the input, each a
         * skew-symmetric matrix of b(b-1)/2 values (oft/layer.py) */
        double b = s->peft.block_size > 0 ? s->peft.block_size : 32;

        a->trainable = (in / b) * b * (b - 1.0) / 2.0;
      }
      break;
    case HR_METHOD_BOFT:
      {
        /* boft_R: (n_butterfly_factor + 1) x blocks x b x b, b 4 by
         * default, and boft_s (out).  Its forward multiplies out the
         * butterfly as dense in x in matrices (block_diag, two bmm with
         * the permutations, their product, the identity it multiplies,
         * the rotation): about 3N + 3 of them stay saved, N the
         * butterfly factor + 1 (boft/layer.py, Linear.forward). */
        double b = s->peft.block_size > 0 ? s->peft.block_size : 4;
        double n = s->peft.n_butterfly_factor + 1.0;

        a->trainable = n * (in / b) * b * b + out;
        a->kept = (3.0 * n + 3.0) * in * in * e;
      }
      break;
    default:
      break;
    }
}

void
hr_plan_setup_adapters (HrPlan *self,
                        Part   *part)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = part->c;
  guint modules = method_modules (s);
  guint r = method_rank (s);
  double e = hr_compute_activation_bytes (s->compute);
  double adapter_e = peft_fp32_adapters (s) && e < 4.0 ? 4.0 : e;
  double max_in = 0, max_out = 0;

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return;

  if (setup_model_wide_adapters (s, c, part))
    return;

  for (guint i = 0; hr_module_names[i].nick != NULL; i++)
    {
      HrModule m = hr_module_names[i].value;
      ModuleVariant variants[4];
      guint n_variants;

      if (!(modules & m))
        continue;
      n_variants = module_variants (c, m, router_adapted (s), variants);
      for (guint vi = 0; vi < n_variants; vi++)
        {
          double in = variants[vi].in, out = variants[vi].out;
          ModuleAdapter a = { 0 };
          double count = variants[vi].count;

          max_in = MAX (max_in, in);
          max_out = MAX (max_out, out);

          module_adapter (s, part, m, in, out, r, e, adapter_e, &a);

          part->adapters += a.trainable * count;
          part->adapter_frozen += a.frozen * count;
          part->adapter_static += a.kept * count;
          part->adapter_transient = MAX (part->adapter_transient, a.transient);
        }
    }

  if (s->method == HR_METHOD_VERA && part->adapters > 0)
    part->adapter_frozen += (double) r * (max_in + max_out);
}

/* What the adapters keep per token of one layer, and which of the layer's
 * own inputs they make it keep. */
void
hr_plan_setup_adapter_regime (HrPlan *self,
                              Part   *part)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = part->c;
  LayerRegime *r = &part->regime;
  guint modules = method_modules (s);
  guint rank = method_rank (s);
  double e = r->e;
  /* PEFT's own copy of each adapted module's input: under autocast the
   * fp32 cast is cast back to 16 bits per module; in pure 16-bit training
   * the fp32 copy itself is what lora_A saves */
  double own_copy = peft_fp32_adapters (s) && e < 4.0
                      ? (hr_compute_is_mixed (s->compute) ? 2.0 : 4.0) : 0.0;
  double per_token = 0;

  if (part->adapters <= 0 || c->kind != HR_COMPONENT_TRANSFORMER)
    return;

  switch (s->method)
    {
    case HR_METHOD_PREFIX:
      /* the virtual keys and values are read by every layer's attention */
      r->extra_kv_tokens = s->peft.num_virtual_tokens;
      return;
    case HR_METHOD_PROMPT:
      return;
    case HR_METHOD_LAYERNORM:
      r->norm_trainable = TRUE;
      return;
    default:
      break;
    }

  if (router_adapted (s) && (modules & HR_MODULE_GATE) && hr_component_is_moe (c))
    r->router_trains = TRUE;

  for (guint i = 0; hr_module_names[i].nick != NULL; i++)
    {
      HrModule m = hr_module_names[i].value;
      ModuleVariant variants[4];
      guint n_variants;

      if (!(modules & m))
        continue;
      n_variants = module_variants (c, m, router_adapted (s), variants);
      for (guint vi = 0; vi < n_variants; vi++)
        {
          double in = variants[vi].in, out = variants[vi].out;
          /* what one token keeps per pass, times its passes through this
           * kind of matrix in a layer */
          double passes = variants[vi].passes;
          double before = per_token;
          gboolean input_kept = FALSE;

          if (!module_is_per_layer (m))
            {
              /* an adapter on the head keeps the head's input and x·A; on the
               * embedding, the rank-r lookup B multiplies (lora.Embedding) */
              if (m == HR_MODULE_LM_HEAD)
                r->head_saved = TRUE;
              if (s->method != HR_METHOD_IA3)
                r->head_per_token += e * rank;
              else
                r->head_per_token += e * out;
              continue;
            }

          switch (s->method)
            {
            case HR_METHOD_LORA:
            case HR_METHOD_QLORA:
            case HR_METHOD_ADALORA:
              /* lora_A keeps x for its gradient, lora_B keeps x·A */
              input_kept = TRUE;
              per_token += e * rank;
              break;
            case HR_METHOD_DORA:
              /* and the magnitude's gradient needs the base output and the
               * LoRA output it scales (dora.py: (mag_norm_scale - 1) *
               * base_result + mag_norm_scale * lora_result * scaling) */
              input_kept = TRUE;
              per_token += e * rank + 2.0 * e * out;
              break;
            case HR_METHOD_LORA_FA:
              /* A is frozen: x is not needed, x·A is (the method's point,
               * Zhang et al. 2023, "LoRA-FA") */
              per_token += e * rank;
              break;
            case HR_METHOD_VERA:
              /* lambda_d * (x·A) keeps x·A; lambda_b * (... ·B) keeps its
               * input; x itself is not needed (A and B are frozen) */
              per_token += e * (rank + out);
              break;
            case HR_METHOD_IA3:
              /* the scaled tensor: the input of down, the output of k and v */
              per_token += e * (m == HR_MODULE_DOWN ? in : out);
              break;
            case HR_METHOD_LOHA:
            case HR_METHOD_LOKR:
            case HR_METHOD_OFT:
              /* F.linear(x, delta_weight) and OFT's rotation of x keep x */
              input_kept = TRUE;
              break;
            case HR_METHOD_BOFT:
              /* x @ rotation keeps x; result * boft_s keeps the result */
              input_kept = TRUE;
              per_token += e * out;
              break;
            default:
              break;
            }

          if (input_kept)
            {
              if (own_copy > 0)
                per_token += own_copy * in;
              else if (m == HR_MODULE_Q || m == HR_MODULE_K || m == HR_MODULE_V)
                r->qkv_saved = TRUE;
              else if (m == HR_MODULE_O)
                r->o_saved = TRUE;
              else if (m == HR_MODULE_GATE || m == HR_MODULE_UP)
                r->fc_saved = TRUE;
              else if (m == HR_MODULE_DOWN)
                r->down_saved = TRUE;
            }
          per_token = before + (per_token - before) * passes;
        }
    }

  r->adapter_per_token += per_token;
}

/* AutoGPTQ's QuantLinear dequantises its weight to fp16 with torch ops and
 * multiplies with torch.matmul for inputs of 128 rows or more
 * (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py and qlinear_cuda.py
 * @9f7d370: "weight = scales * (weight - zeros)", then "out =
 * torch.matmul(x, weight)"); its CUDA kernels below that threshold write
 * their output outside autograd, so a QLoRA step takes the torch path.
 * The weight is what the gradient of x needs: autograd keeps the fp16
 * copy of every quantised linear layer in the graph, one layer's under
 * full recomputation (the layer rebuilt in the backward pass), every
 * layer's otherwise.  AutoAWQ's WQLinearMMFunction saves the packed
 * tensors and dequantises again in its backward (awq/modules/linear/
 * gemm.py @88e4c76), so AWQ keeps none. */
void
hr_plan_add_gptq_backward (HrPlan *self,
                           Acc    *acc)
{
  const HrScenario *s = self->scenario;

  if (!self->training || s->quant_method != HR_QUANT_METHOD_GPTQ)
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      const Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      HrDtype own;
      double linear, bytes;
      gboolean full = s->recompute == HR_RECOMPUTE_FULL;

      if (!p->backprop || c->kind != HR_COMPONENT_TRANSFORMER || c->layers == 0 ||
          hr_scenario_get_part_dtype (s, c, &own))
        continue;

      linear = MIN ((double) hr_component_linear_params (c), p->frozen);
      bytes = 2.0 * (full ? linear / c->layers : linear);
      if (bytes <= 0)
        continue;
      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  bytes, bytes, bytes,
                  full ? _("%s: fp16 weights AutoGPTQ dequantises, kept for the backward pass "
                           "(the recomputed layer's)")
                       : _("%s: fp16 weights AutoGPTQ dequantises, kept for the backward pass "
                           "(every layer's)"),
                  c->name);
      acc->activations += bytes;
    }
}
