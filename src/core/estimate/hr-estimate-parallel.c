/* hr-estimate-parallel.c: what one GPU holds of a model split by tensor,
 * pipeline, context and expert parallelism
 *
 * - Tensor parallelism, as Megatron-LM's tensor_parallel layers build it
 *   (NVIDIA/Megatron-LM @d98e8a6, megatron/core/tensor_parallel/layers.py:
 *   ColumnParallelLinear splits the output features, RowParallelLinear the
 *   input features, VocabParallelEmbedding and the output layer the
 *   vocabulary; norms and MoE routers are replicated) and as torchtitan's
 *   plan does it (pytorch/torchtitan @9dec370,
 *   torchtitan/parallelisms/parallelize_llama.py: colwise wq/wk/wv/w1/w3,
 *   rowwise wo/w2, the output layer sharded on the vocabulary with
 *   loss_parallel).  One GPU holds heads / t of the attention heads (KV
 *   heads replicated when there are fewer than t, as vLLM does), and
 *   intermediate / t of each MLP; the activations split accordingly.
 *   Without sequence parallelism the tensors of `hidden` values a token
 *   keeps (norm inputs, the inputs of the first projections, dropout
 *   masks) are whole on every GPU: Korthikanti et al. 2022, eq. 2,
 *   sbh (10 + 24/t + 5as/(ht)); with it every term is divided by t
 *   (eq. 4, sbh/t (34 + 5as/h)); Megatron's
 *   LinearWithGradAccumulationAndAsyncCommunication saves the input before
 *   the sequence all-gather and gathers it again in the backward pass.
 * - Pipeline parallelism: a stage holds its share of the layers; the first
 *   stage the embedding, the last the output head and the loss.  The
 *   first stage has the most micro-batches in flight: 1F1B runs p - rank - 1
 *   warm-up forwards before its first backward (Megatron
 *   megatron/core/pipeline_parallel/schedules.py @d98e8a6,
 *   get_pp_rank_microbatches; torch.distributed.pipelining Schedule1F1B
 *   warms up min(n, stages - stage_index)), so stage one holds p
 *   micro-batches of its L/p layers, one micro-batch's worth of the whole
 *   model (Korthikanti et al. 2022, section 4.2.3).  The interleaved
 *   schedule warms up 2 (p - rank - 1) + (v - 1) p chunk micro-batches of
 *   L/(pv) layers each: L (1 + (p - 1)/(pv)) layers' worth (Narayanan et
 *   al. 2021; Megatron's theoretical_memory_usage.py applies the same
 *   factor).  GPipe runs every forward before the first backward.
 * - Context parallelism divides the sequence: each GPU keeps s / cp
 *   tokens' activations and exchanges keys and values around the ring
 *   (Megatron through Transformer Engine's AttnFuncWithCPAndKVP2P: two
 *   buffers of the local K and V chunk; torchtitan @9dec370
 *   context_parallel_rotate_method "allgather" by default: all K and V
 *   gathered for the layer being computed).  FSDP and Megatron's
 *   distributed optimizer shard the model over data x context parallel
 *   ranks (torchtitan parallelize_llama.py: the "dp_shard_cp" mesh).
 * - Expert parallelism splits the routed experts of each MoE layer over ep
 *   ranks taken from the data-parallel ones; each rank then computes the
 *   tokens of every rank routed to its experts, on average as many as its
 *   own (Megatron megatron/core/transformer/moe/token_dispatcher.py,
 *   MoEAlltoAllTokenDispatcher).  Expert weights are sharded over the
 *   expert-data-parallel group, dp x cp / ep (Megatron's
 *   theoretical_memory_usage.py, expert_data_parallel_size).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-estimate-private.h"

static guint
ceil_div (guint a,
          guint b)
{
  return b > 1 ? (a + b - 1) / b : a;
}

static gboolean
stack_is (const HrScenario *s,
          HrStack           stack)
{
  return s->stack_set && s->stack == stack;
}

/* Model chunks per pipeline rank. */
static guint
pipeline_chunks (const HrScenario *s)
{
  return s->pipeline_schedule == HR_PIPELINE_INTERLEAVED ? MAX (1, s->virtual_stages) : 1;
}

/* Layers of a transformer of @layers on the first or last pipeline rank.
 * torchtitan splits them itself (pipelining_utils.py @9dec370,
 * generate_split_points: base = layers // stages to the first and last
 * stage, one more to the middle stages while the remainder lasts; rank r
 * holds stages r, r + p, ... in the looped style); Megatron needs an even
 * split (or says how uneven it is), so elsewhere a stage holds the
 * rounded-up share. */
static guint
stage_layers (const HrScenario *s,
              guint             layers,
              HrStage           stage)
{
  guint p = s->pipeline_parallel, v = pipeline_chunks (s);
  guint stages = p * v;

  if (p <= 1 || stage == HR_STAGE_ONLY)
    return layers;

  if (stack_is (s, HR_STACK_TORCHTITAN) && stages <= layers)
    {
      guint base = layers / stages, extra = layers % stages;
      guint rank = stage == HR_STAGE_FIRST ? 0 : p - 1;
      guint placed = 0, held = 0;

      for (guint i = 0; i < stages; i++)
        {
          guint n;

          if (i == 0)
            n = base;
          else if (i + 1 == stages)
            n = layers - placed;
          else if (extra > 0)
            {
              n = base + 1;
              extra--;
            }
          else
            n = base;
          placed += n;
          if (i % p == rank)
            held += n;
        }
      return MAX (1, held);
    }

  return MAX (1, ceil_div (layers, stages) * v);
}

double
hr_plan_widest_mlp (const HrComponent *c)
{
  double widest = c->intermediate;

  if (hr_component_is_moe (c))
    widest = MAX (widest, MAX (c->expert_intermediate, c->shared_expert_intermediate));
  return widest;
}

guint
hr_plan_shard_degree (const HrScenario *scenario)
{
  return hr_plan_dp_degree (scenario) * MAX (1, scenario->context_parallel);
}

/* Turns the plan's copy of each transformer part into what one GPU holds
 * and computes on its pipeline stage. */
void
hr_plan_localize (HrPlan *self)
{
  const HrScenario *s = self->scenario;
  guint tp = MAX (1, s->tensor_parallel), ep = MAX (1, s->expert_parallel);
  gboolean served = s->task == HR_TASK_INFERENCE &&
                    (s->engine == HR_ENGINE_VLLM || s->engine == HR_ENGINE_SGLANG);
  GPtrArray *components = s->model->components;

  for (guint i = 0; i < components->len; i++)
    {
      HrComponent *c = g_ptr_array_index (components, i);
      HrComponent global;
      double remainder;
      guint layers;

      if (c->kind != HR_COMPONENT_TRANSFORMER)
        continue;
      if (tp == 1 && ep == 1 && self->stage == HR_STAGE_ONLY)
        continue;

      global = *c;
      /* what the shape does not say (biases, per-head norms, a router's
       * bias): replicated on every tensor-parallel rank, shared out by
       * layers over the stages */
      remainder = MAX (0.0, (double) c->params - (double) hr_component_shape_params (&global));

      layers = stage_layers (s, c->layers, self->stage);
      if (hr_component_is_moe (c))
        {
          guint before = self->stage == HR_STAGE_LAST ? c->layers - layers : 0;

          c->first_dense_layers = c->first_dense_layers > before
                                    ? MIN (layers, c->first_dense_layers - before) : 0;
        }
      c->layers = layers;

      c->heads = ceil_div (c->heads, tp);
      c->kv_heads = c->kv_heads >= tp ? ceil_div (c->kv_heads, tp) : 1;
      if (hr_component_is_mla (c))
        c->kv_heads = c->heads;
      c->intermediate = ceil_div (c->intermediate, tp);
      c->shared_expert_intermediate = ceil_div (c->shared_expert_intermediate, tp);
      /* Megatron's expert tensor parallelism defaults to tp (experts split
       * like the dense MLP, then over ep); vLLM's and SGLang's expert
       * parallelism replaces tensor parallelism for the experts
       * (--enable-expert-parallel: EP = TP x DP) */
      if (!(served && ep > 1))
        c->expert_intermediate = ceil_div (c->expert_intermediate, tp);
      if (hr_component_is_moe (c))
        c->experts_local = c->experts / ep;
      c->vocab = ceil_div (c->vocab, tp);

      /* with pipeline parallelism the first stage holds the embedding, the
       * last the output head: one vocabulary matrix each */
      if (self->stage != HR_STAGE_ONLY && c->vocab > 0)
        c->tied_embeddings = TRUE;

      c->params = (guint64) llround ((double) hr_component_shape_params (c) +
                                     remainder * layers / MAX (1, global.layers));
    }
}

double
hr_plan_pipeline_in_flight (HrPlan *self)
{
  double act = 1, grads = 1;

  hr_plan_pipeline_peak (self, 1.0, 0.0, &act, &grads);
  return act * pipeline_chunks (self->scenario);
}

/* The state of the stage's schedule at its peak: the share of one
 * micro-batch's activations of the whole stage alive then (chunk
 * micro-batches / chunks), and the share of the gradient buffer.
 *
 * At the first backward F0 chunk micro-batches are alive and, where
 * gradients are set to None between steps, no gradient yet; the backward
 * of chunk j (the rank's chunks are stepped back from the last, a round
 * of p micro-batches each) creates its gradients, and in the steady state
 * each backward is followed by a forward while any remain. */
void
hr_plan_pipeline_peak (HrPlan *self,
                       double  activations,
                       double  gradients,
                       double *activation_share,
                       double *gradient_share)
{
  const HrScenario *s = self->scenario;
  double p = MAX (1, s->pipeline_parallel), v = pipeline_chunks (s);
  double n = MAX (1, s->grad_accum), rank = self->stage == HR_STAGE_LAST ? p - 1 : 0;
  double total = n * v, first, rest, best, best_act, best_grads;
  /* Megatron's DDP allocates its fp32 main-gradient buffers once
   * (megatron/core/distributed/param_and_grad_buffer.py): they exist
   * before any backward */
  gboolean before = stack_is (s, HR_STACK_MEGATRON);

  switch (s->pipeline_schedule)
    {
    case HR_PIPELINE_GPIPE:
      first = total;
      break;
    case HR_PIPELINE_INTERLEAVED:
      first = MIN (2.0 * (p - rank - 1.0) + (v - 1.0) * p + 1.0, total);
      break;
    case HR_PIPELINE_1F1B:
    default:
      first = MIN (p - rank, total);
      break;
    }
  rest = total - first;

  best_act = first;
  best_grads = before ? 1.0 : 0.0;
  best = first * activations / v + best_grads * gradients;
  for (guint j = 1; j <= (guint) v; j++)
    {
      double k = (j - 1.0) * p + 1.0;
      double after, share, value;

      if (k > total)
        break;
      after = first - k + MIN (k, rest);
      share = before ? 1.0 : j / v;
      value = after * activations / v + share * gradients;
      if (value > best)
        {
          best = value;
          best_act = after;
          best_grads = share;
        }
    }

  *activation_share = best_act / v;
  *gradient_share = best_grads;
}

/* Keys and values exchanged around the context-parallel ring while a layer
 * computes attention, alive at the start of the backward pass (the last
 * layer's attention backward runs the ring again). */
void
hr_plan_add_context_parallel (HrPlan *self,
                              Acc    *acc,
                              double  b)
{
  const HrScenario *s = self->scenario;
  double cp = MAX (1, s->context_parallel);
  double e = hr_compute_activation_bytes (s->compute);

  if (cp <= 1)
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double kv, bytes;

      if (c->kind != HR_COMPONENT_TRANSFORMER || c->tokens_from != HR_TOKENS_SEQ_LEN ||
          (self->training && !p->backprop))
        continue;

      kv = (double) c->kv_heads * (c->head_dim + c->v_head_dim) * p->tokens * e * b;
      /* torchtitan gathers every rank's chunk at once; Megatron double-
       * buffers one remote chunk beside the local one */
      bytes = stack_is (s, HR_STACK_TORCHTITAN) ? kv * cp : 2.0 * kv;
      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  bytes, 0.5 * bytes, MAX (bytes, kv * cp),
                  stack_is (s, HR_STACK_TORCHTITAN)
                    ? _("%s: context parallelism, keys and values of all %.0f chunks gathered "
                        "for the layer being computed")
                    : _("%s: context parallelism, the ring's key and value buffers (%.0f "
                        "chunks)"), c->name, cp);
      acc->activations += bytes;
    }
}

void
hr_plan_add_parallel_notes (HrPlan    *self,
                            GPtrArray *notes)
{
  const HrScenario *s = self->scenario;
  guint dp = hr_plan_dp_degree (s);

  if (s->tensor_parallel * s->pipeline_parallel * s->context_parallel > 1 || s->expert_parallel > 1)
    g_ptr_array_add (notes, g_strdup_printf (
      _("%u GPUs: tensor parallel %u × pipeline parallel %u × context parallel %u × data "
        "parallel %u; model state is sharded over the %u data- and context-parallel ranks"),
      s->gpus, s->tensor_parallel, s->pipeline_parallel, s->context_parallel, dp,
      hr_plan_shard_degree (s)));
  if (s->tensor_parallel > 1 && !s->sequence_parallel && self->training)
    g_ptr_array_add (notes, g_strdup (
      _("tensor parallelism without sequence parallelism keeps the norms' inputs, the "
        "projections' inputs and the dropout masks whole on every GPU (Korthikanti et al. "
        "2022, eq. 2); sequence_parallel divides them too")));
  if (s->sequence_parallel && s->tensor_parallel <= 1)
    g_ptr_array_add (notes, g_strdup (
      _("sequence_parallel splits activations over the tensor-parallel group: with "
        "tensor_parallel 1 it divides nothing")));
  if (s->pipeline_parallel > 1 && self->training)
    g_ptr_array_add (notes, g_strdup_printf (
      _("pipeline parallelism (%s, %u micro-batches a step from grad_accum): the estimate is "
        "the fuller of the first stage (embedding, %.3g micro-batches' activations in flight) "
        "and the last (output head and loss)"),
      hr_enum_to_nick (hr_pipeline_schedule_names, s->pipeline_schedule), s->grad_accum,
      hr_plan_pipeline_in_flight (self)));
  if (s->pipeline_parallel > 1 && self->training && s->grad_accum < s->pipeline_parallel)
    g_ptr_array_add (notes, g_strdup_printf (
      _("fewer micro-batches (grad_accum %u) than pipeline stages (%u) leave stages idle; "
        "pipelines run grad_accum ≥ pipeline_parallel"), s->grad_accum, s->pipeline_parallel));
  if (s->expert_parallel > 1)
    g_ptr_array_add (notes, g_strdup_printf (
      _("expert parallelism: each GPU holds 1/%u of the routed experts and computes every "
        "rank's tokens routed to them, as many as its own on average"), s->expert_parallel));
}
