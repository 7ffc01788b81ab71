/* hr-estimate-sharding.c: where model state lives across the GPUs
 *
 * DDP, DeepSpeed ZeRO-1/2/3, PyTorch FSDP1 (FlatParameter) and FSDP2
 * (per-parameter fully_shard), and offload to host memory or NVMe, each as
 * its framework's source runs it:
 *
 * - FSDP2: torch/distributed/fsdp/_fully_shard/ (pytorch/pytorch
 *   @62a45b6 _fsdp_param_group.py, @1d2fbd4 _fully_shard.py).  Every
 *   parameter, frozen or not, is a DTensor sharded on dim 0; a group
 *   (one fully_shard call: a layer, or the root with what is left) is
 *   all-gathered in pre_forward and freed in post_forward when
 *   reshard_after_forward, all-gathered again in pre_backward with the
 *   previous group prefetched (_backward_prefetch), and freed in
 *   post_backward, which reduce-scatters the gradients of the parameters
 *   that have one.  The root group's reshard_after_forward is False (its
 *   parameters are needed at once by the backward pass).
 *   set_requires_gradient_sync(False) keeps unsharded gradients
 *   (to_accumulated_grad_if_needed).  CPUOffloadPolicy keeps the sharded
 *   parameters, gradients and optimizer step on the CPU.
 * - FSDP1: torch/distributed/fsdp/_runtime_utils.py (PyTorch 2.1.0,
 *   @7bcf7da).  One FlatParameter per wrapped unit; under no_sync()
 *   _post_backward_hook returns before the reduce-scatter, so the unsharded
 *   gradient of every unit accumulates.  Since PR #101982 ("Reshard frozen
 *   params in backward", commit 48056b1, before 2.1) units whose parameters
 *   are all frozen are resharded in the backward pass too
 *   (_register_post_backward_reshard_only_hook).  With use_orig_params=True
 *   a unit may mix frozen and trainable parameters, but its FlatParameter
 *   then requires grad as a whole (pytorch/pytorch#91167) and "the gradient
 *   memory will still be as if you did not freeze parameters"
 *   (pytorch/pytorch#104690; the FSDP docstring's warning, #104967).
 *   Lightning Fabric's FSDPStrategy sets use_orig_params=True on PyTorch 2.0
 *   and later (lightning/fabric/strategies/fsdp.py @71aed75, the commit
 *   LitGPT @8641822 pins) and LitGPT wraps each Block, LoRA and frozen
 *   weights together.
 * - DeepSpeed: deepspeed/runtime/zero/stage_1_and_2.py, stage3.py and
 *   partitioned_param_coordinator.py (deepspeedai/DeepSpeed @edaa722).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-estimate-private.h"

/* The data-parallel degree.  Tensor, pipeline and context parallelism
 * divide the job's GPUs before data parallelism sees them:
 * dp = gpus / (tp x pp x cp) (Megatron's initialize_model_parallel,
 * torchtitan's ParallelDims); this is the one place that computes it.
 * ZeRO and FSDP shard over dp x cp (hr_plan_shard_degree). */
guint
hr_plan_dp_degree (const HrScenario *scenario)
{
  guint64 model = (guint64) MAX (1, scenario->tensor_parallel) *
                  MAX (1, scenario->pipeline_parallel) * MAX (1, scenario->context_parallel);

  return (guint) MAX (1, scenario->gpus / model);
}

static gboolean
stack_is (const HrScenario *s,
          HrStack           stack)
{
  return s->stack_set && s->stack == stack;
}

void
hr_plan_setup_sharding (HrPlan *self)
{
  const HrScenario *s = self->scenario;
  ShardPlan *sp = &self->shard;
  HrSharding k = s->sharding;
  gboolean multi;

  memset (sp, 0, sizeof *sp);
  sp->dp = hr_plan_shard_degree (s);
  sp->tp = MAX (1, s->tensor_parallel);
  sp->pp = MAX (1, s->pipeline_parallel);
  sp->cp = MAX (1, s->context_parallel);
  sp->ep = MAX (1, s->expert_parallel);
  sp->sp = s->sequence_parallel && sp->tp > 1;
  multi = sp->dp > 1;
  sp->fsdp = k == HR_SHARDING_FSDP || k == HR_SHARDING_FSDP1;
  sp->zero = k == HR_SHARDING_ZERO1 || k == HR_SHARDING_ZERO2 || k == HR_SHARDING_ZERO3;
  sp->shard_states = multi && (sp->zero || sp->fsdp);
  sp->shard_grads = multi && (k == HR_SHARDING_ZERO2 || k == HR_SHARDING_ZERO3 || sp->fsdp);
  sp->shard_weights = multi && (k == HR_SHARDING_ZERO3 || sp->fsdp);
  sp->reshard_after_forward = s->reshard_after_forward;

  /* The Trainer's DeepSpeed example configs say "auto" for the bucket
   * sizes, and transformers fills them from the model's hidden size
   * (integrations/deepspeed.py, HfTrainerDeepSpeedConfig.
   * trainer_config_finalize: reduce_bucket_size h^2,
   * stage3_prefetch_bucket_size 0.9 h^2, stage3_param_persistence_threshold
   * 10 h); accelerate fills them the same way. */
  if (sp->zero && (stack_is (s, HR_STACK_TRANSFORMERS) || stack_is (s, HR_STACK_TRL) ||
                   stack_is (s, HR_STACK_AXOLOTL) || stack_is (s, HR_STACK_ACCELERATE)))
    {
      HrDeepSpeed *ds = &self->scenario->deepspeed;
      guint hidden = 0;

      for (guint i = 0; i < s->model->components->len; i++)
        {
          const HrComponent *c = g_ptr_array_index (s->model->components, i);

          if (c->kind == HR_COMPONENT_TRANSFORMER)
            hidden = MAX (hidden, c->hidden);
        }
      if (hidden > 0)
        {
          double h = hidden;

          if (!(ds->set & HR_DS_REDUCE_BUCKET_SIZE))
            ds->reduce_bucket_size = (guint64) (h * h);
          if (!(ds->set & HR_DS_PREFETCH_BUCKET_SIZE))
            ds->prefetch_bucket_size = (guint64) (0.9 * h * h);
          if (!(ds->set & HR_DS_PARAM_PERSISTENCE))
            ds->param_persistence_threshold = (guint64) (10 * h);
        }
    }

  sp->offload_states = s->offload != HR_OFFLOAD_NONE;
  sp->offload_params = s->offload == HR_OFFLOAD_OPTIMIZER_PARAMS;
  if (s->has_deepspeed)
    {
      if (s->deepspeed.offload_optimizer != HR_OFFLOAD_DEVICE_NONE)
        sp->offload_states = TRUE;
      if (s->deepspeed.offload_param != HR_OFFLOAD_DEVICE_NONE)
        sp->offload_params = TRUE;
      sp->nvme = s->deepspeed.offload_optimizer == HR_OFFLOAD_DEVICE_NVME;
    }

  /* The Trainer (transformers, TRL, axolotl) and accelerate accumulate
   * under Accelerator.no_sync: FSDP1's no_sync(), FSDP2's
   * set_requires_gradient_sync(False) (accelerate accelerator.py @16cb6eb,
   * no_sync and accumulate; sync_each_batch is off by default); LitGPT and
   * Lightning under Fabric's no_backward_sync, FSDP1's no_sync()
   * (_FSDPBackwardSyncControl).  torchtune and torchtitan reduce-scatter
   * every micro-batch. */
  sp->unsharded_accumulation =
    self->training && s->grad_accum > 1 && sp->fsdp && multi &&
    (stack_is (s, HR_STACK_TRANSFORMERS) || stack_is (s, HR_STACK_TRL) ||
     stack_is (s, HR_STACK_ACCELERATE) || stack_is (s, HR_STACK_AXOLOTL) ||
     stack_is (s, HR_STACK_LITGPT) || stack_is (s, HR_STACK_LIGHTNING));

  /* A pipeline's backward under FSDP2 accumulates each micro-batch's
   * unsharded gradients and reduce-scatters after the last
   * (torch/distributed/pipelining/stage.py, backward_maybe_with_nosync:
   * set_requires_gradient_sync(False), set_reshard_after_backward(False));
   * FSDP2 accumulates them in its reduce dtype, fp32 in torchtitan's
   * MixedPrecisionPolicy (_fsdp_param.py, to_accumulated_grad_if_needed).
   * torchtitan also keeps every stage unsharded after its forward
   * (parallelize_llama.py @9dec370: "For PP, do not reshard after forward
   * to avoid per-microbatch all-gathers"). */
  if (self->training && k == HR_SHARDING_FSDP && multi && sp->pp > 1 && s->grad_accum > 1)
    {
      sp->unsharded_accumulation = TRUE;
      if (stack_is (s, HR_STACK_TORCHTITAN))
        {
          sp->reshard_after_forward = FALSE;
          if (hr_compute_is_mixed (s->compute))
            sp->accumulated_bytes = 4.0;
        }
    }

  /* What FSDP1 would hold where the scenario leaves the version open:
   * LitGPT's and Lightning's FSDPStrategy, which "fsdp" meant before FSDP2
   * (accumulation under no_sync, whole-unit gradients beside adapters) */
  if (self->is_fsdp1_bound)
    {
      sp->unsharded_accumulation = TRUE;
      sp->whole_unit_grads = hr_method_is_peft (s->method) && s->method != HR_METHOD_PREFIX &&
                             s->method != HR_METHOD_PROMPT;
      sp->embedding_with_head = TRUE;
      return;
    }

  /* FSDP1 with use_orig_params=True and adapters inside the wrapped blocks
   * (LitGPT, Lightning); PyTorch's own default, use_orig_params=False,
   * refuses such mixed units, and PEFT's wrap policy (accelerate, the
   * Trainer) wraps the adapters on their own. */
  sp->whole_unit_grads =
    self->training && k == HR_SHARDING_FSDP1 && multi && hr_method_is_peft (s->method) &&
    s->method != HR_METHOD_PREFIX && s->method != HR_METHOD_PROMPT &&
    (stack_is (s, HR_STACK_LITGPT) || stack_is (s, HR_STACK_LIGHTNING));

  /* torchtitan shards the embedding on its own (parallelize.py applies
   * fully_shard to tok_embeddings, each block, then norm and output);
   * elsewhere the embedding stays in the root group with the head */
  sp->embedding_with_head = !stack_is (s, HR_STACK_TORCHTITAN);
}

double
hr_plan_sharded (HrPlan  *self,
                 double   bytes,
                 gboolean condition)
{
  return condition && self->shard.dp > 1 ? bytes / self->shard.dp : bytes;
}

/* Bytes left on each GPU after sharding and offloading. */
double
hr_plan_on_device (HrPlan   *self,
                   double    bytes,
                   gboolean  shard,
                   gboolean  offloaded)
{
  return offloaded ? 0 : hr_plan_sharded (self, bytes, shard);
}

double
hr_plan_frozen_bytes_per_param (HrPlan *self)
{
  const HrScenario *s = self->scenario;

  /* a GPTQ or AWQ checkpoint's packed codes (hr-types.c) */
  if (s->quant_method != HR_QUANT_METHOD_BITSANDBYTES)
    return hr_dtype_packed_bytes_per_param (s->weights_dtype);

  /* torchtune's NF4 weights are torchao NF4Tensors, which quantise their
   * scalers again (block_size 64, scaler_block_size 256:
   * torchao/prototype/_nf4tensor_api.py @36027d8), as bitsandbytes' double
   * quantisation does */
  return hr_dtype_bytes_per_param (s->weights_dtype,
                                   stack_is (s, HR_STACK_TORCHTUNE) &&
                                   s->weights_dtype == HR_DTYPE_NF4);
}

/* NF4 weights as torchao's NF4Tensor, which torchtune's QLoRA uses */
static gboolean
torchao_nf4 (const HrScenario *s)
{
  return stack_is (s, HR_STACK_TORCHTUNE) && s->weights_dtype == HR_DTYPE_NF4;
}

/* Whether the stack quantises the output head with the linear layers:
 * LitGPT and Lightning Fabric replace every nn.Linear; transformers skips
 * lm_head (get_keys_to_not_convert) and torchtune's QLoRA quantises only
 * its LoRA linears.  Without a stack the larger of the two is counted. */
static gboolean
head_quantized (const HrScenario *s)
{
  /* GPTQ and AWQ quantise the decoder layers' linear layers only: AutoGPTQ
   * walks each model's layers_block_name (auto_gptq/modeling/_base.py
   * @9f7d370, quantize: find_layers inside every block), AutoAWQ its
   * get_model_layers (awq/quantize/quantizer.py @88e4c76); the head of
   * their checkpoints is 16-bit */
  if (s->quant_method != HR_QUANT_METHOD_BITSANDBYTES)
    return FALSE;
  return !s->stack_set || s->stack == HR_STACK_LITGPT || s->stack == HR_STACK_LIGHTNING;
}

/* Whether PEFT's prepare_model_for_kbit_training has upcast the weights
 * bitsandbytes left unquantised: it casts every fp16 and bf16 parameter
 * but the Params4bit ones to fp32, except for GPTQ, AQLM, EETQ, HQQ and
 * torchao models (huggingface/peft src/peft/utils/other.py @5d602fd,
 * "cast all non INT8 parameters to fp32"; the exemptions since a916465).
 * TRL's trainers call it on any model loaded in 4 or 8 bits with a
 * peft_config (huggingface/trl trl/trainer/sft_trainer.py @d11f0f5), and
 * so does the Trainer's QLoRA recipe (artidoro/qlora qlora.py @00e5ad2,
 * get_accelerate_model).  The embedding, the norms and the output head
 * then take 4 bytes a parameter. */
static gboolean
peft_kbit_fp32 (const HrScenario *s)
{
  return s->method == HR_METHOD_QLORA && s->quant_method == HR_QUANT_METHOD_BITSANDBYTES &&
         (stack_is (s, HR_STACK_TRL) || stack_is (s, HR_STACK_TRANSFORMERS));
}

/* Parameters of one transformer layer: its linear layers and norms. */
static double
layer_params (const HrComponent *c)
{
  if (c->kind != HR_COMPONENT_TRANSFORMER || c->layers == 0)
    return (double) c->params;
  return (double) hr_component_linear_params (c) / c->layers +
         2.0 * c->hidden * (c->rmsnorm ? 1.0 : 2.0);
}

/* The group that holds the output head (and, where the stack leaves it in
 * the root group, the embedding). */
static double
head_group_params (HrPlan            *self,
                   const HrComponent *c)
{
  double head;

  if (c->kind != HR_COMPONENT_TRANSFORMER || c->vocab == 0)
    return 0;
  head = (double) c->vocab * c->hidden;
  if (self->shard.embedding_with_head && !c->tied_embeddings)
    head *= 2.0;
  return head;
}

/* Bytes per parameter of what is gathered: the frozen weights as stored,
 * trainable ones in the dtype the forward pass runs in. */
static double
gather_bytes (HrPlan *self,
              double  trainable_share)
{
  const HrScenario *s = self->scenario;
  double frozen = hr_plan_frozen_bytes_per_param (self);
  double trainable = hr_compute_is_mixed (s->compute) ? 2.0 : self->w_bytes;

  /* FSDP2's float8 all-gather (torchao/float8/fsdp_utils.py @e2fe7f7,
   * WeightWithDynamicFloat8CastTensor.fsdp_pre_all_gather: each shard is
   * cast to fp8 and the fp8 data gathered; torchtitan's
   * enable_fsdp_float8_all_gather): a linear weight is gathered in one
   * byte.  Counted so; without it the gather is 16-bit (the range's high
   * end, hr_plan_add_weights). */
  if (s->compute == HR_COMPUTE_FP8_MIXED && self->shard.fsdp)
    trainable = 1.0;

  return trainable_share * trainable + (1.0 - trainable_share) * frozen;
}

/* Module calls a transformer layer makes, each of which runs ZeRO-3's
 * fetch_sub_module and so one prefetch: a Hugging Face decoder layer has
 * the layer, two norms, the attention and its four projections, the MLP
 * with its three projections and activation (modeling_llama.py,
 * LlamaDecoderLayer); PEFT's LoRA adds lora_dropout, lora_A and lora_B
 * to every adapted linear (peft/tuners/lora/layer.py, Linear.forward). */
#define ZERO3_CALLS_PER_LAYER      13.0
#define ZERO3_CALLS_PER_ADAPTER     3.0

/* ZeRO-3's gathered parameters at the peak of a training step
 * (partitioned_param_coordinator.py, deepspeedai/DeepSpeed @bf6b980 and
 * unchanged at @edaa722).  Three rules decide them:
 * - after a module runs, its parameters are released unless the trace
 *   shows them used again within stage3_max_reuse_distance parameters
 *   (__params_to_release): at the turn to the backward pass the head and
 *   the last layers stay;
 * - every module call prefetches up to stage3_prefetch_bucket_size more
 *   parameters while fewer than stage3_max_live_parameters are gathered
 *   (fetch_sub_module: max_params_to_prefetch = min(max_live - available,
 *   bucket)).  Where a layer's calls prefetch faster than the layer
 *   consumes, the prefetcher runs ahead until stage3_max_live_parameters
 *   are gathered, the backward pass's first layers included;
 * - the loop adds whole tensors while under its budget, so the last one
 *   may overshoot it by one tensor, the output head or the embedding in a
 *   large-vocabulary model.
 * With offload_param the partition of each gathered tensor is first copied
 * to the GPU (all_gather_coalesced: param.ds_tensor.to(device)), beside
 * the buffer it is gathered into: a momentary second copy of the tensor's
 * partition.  The largest tensor's is counted, at the peak.
 * *staging_out receives that copy; *retained_out what the coalesced
 * all-gathers can keep beyond it: each batch's flat buffer lives until the
 * last of its tensors is used (AllGatherCoalescedHandle keeps its
 * partitions), up to every prefetched parameter again. */
static double
zero3_live_params (HrPlan *self,
                   double *staging_out,
                   double *retained_out)
{
  const HrScenario *s = self->scenario;
  const HrDeepSpeed *ds = &s->deepspeed;
  double reuse = (double) ds->max_reuse_distance;
  double max_live = (double) ds->max_live_parameters;
  double bucket = (double) ds->prefetch_bucket_size;
  double total = 0, kept = 0, largest = 0, live;
  guint adapted = 0;

  for (guint m = hr_scenario_get_lora_modules (s); m != 0; m &= m - 1)
    adapted++;

  for (guint i = 0; i < self->parts->len; i++)
    {
      const Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double layer = layer_params (c);
      double head = 0, tensor, calls, lead = layer;

      total += p->params + p->adapters + p->adapter_frozen;
      /* a part without a transformer's shape is taken as one module */
      if (c->kind != HR_COMPONENT_TRANSFORMER || c->layers == 0)
        {
          kept = MAX (kept, MIN ((double) c->params, MAX (max_live, 1.0)));
          continue;
        }

      head = (double) c->vocab * c->hidden;
      tensor = MAX (head, (double) c->hidden * hr_plan_widest_mlp (c));
      largest = MAX (largest, tensor);

      /* what reuse keeps at the turn: the head and the layers within
       * reach of their second use (each is used again after twice its
       * distance from the end of the forward pass) */
      if (layer > 0)
        {
          double layers = 1;

          if (reuse > 2.0 * head)
            layers = CLAMP (floor ((reuse - 2.0 * head) / (2.0 * layer)) + 1.0, 1.0,
                            (double) c->layers);
          kept = MAX (kept, head + layers * layer);
        }

      /* whether the prefetcher gets ahead of the layers it feeds */
      calls = ZERO3_CALLS_PER_LAYER +
              (hr_method_is_peft (s->method) ? ZERO3_CALLS_PER_ADAPTER * adapted : 0);
      if (bucket > 0 && calls * bucket >= layer)
        lead = max_live;
      else
        lead = layer + bucket;
      kept = MAX (kept, MIN (max_live, lead));
    }

  /* then the one tensor that overshoots the prefetcher's budget */
  live = MIN (total, kept + (total > max_live ? largest : 0));
  if (staging_out != NULL)
    *staging_out = self->shard.offload_params ? MIN (total, largest) / MAX (1, self->shard.dp)
                                              : 0;
  if (retained_out != NULL)
    *retained_out = bucket > 0 ? MIN (max_live, live) : 0;
  return live;
}

/* Parameters DeepSpeed ZeRO-3 keeps whole on every GPU: tensors of fewer
 * than stage3_param_persistence_threshold values are not partitioned
 * (ds_persist; stage3.py, partition_parameters.py): the norms, with the
 * default threshold of 1e5, and LoRA's small matrices.  The tensors of a
 * transformer follow from its shape; a part without one is taken to have
 * none that small. */
static double
zero3_persistent_params (HrPlan     *self,
                         const Part *p)
{
  const HrComponent *c = p->c;
  double threshold = (double) self->scenario->deepspeed.param_persistence_threshold;
  double h = c->hidden, I = c->intermediate, V = c->vocab, L = c->layers;
  double q = (double) c->heads * c->head_dim, kv = (double) c->kv_heads * c->head_dim;
  double persistent = 0;
  /* one layer's weight matrices: q, k, v, o, then gate (gated MLPs), up,
   * down, as (rows, columns) */
  double shapes[][2] = { { q, h }, { kv, h }, { kv, h }, { h, q }, { I, h }, { I, h }, { h, I } };
  HrModule modules[] = { HR_MODULE_Q, HR_MODULE_K, HR_MODULE_V, HR_MODULE_O,
                         HR_MODULE_GATE, HR_MODULE_UP, HR_MODULE_DOWN };
  guint lora = hr_scenario_get_lora_modules (self->scenario);
  double r = self->scenario->lora_rank;
  double adapter_total = 0, adapter_small = 0;

  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return 0;

  /* two norms a layer and the final one, a weight (and a LayerNorm bias)
   * of `hidden` each */
  if (h < threshold)
    persistent += (2.0 * L + 1.0) * h * (c->rmsnorm ? 1.0 : 2.0);

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      double rows = shapes[i][0], cols = shapes[i][1];

      if (modules[i] == HR_MODULE_GATE && !c->glu)
        continue;
      if (rows * cols < threshold)
        persistent += L * rows * cols;
      if (lora & modules[i])
        {
          /* A (r x in) and B (out x r) */
          adapter_total += r * (rows + cols);
          adapter_small += (r * cols < threshold ? r * cols : 0) +
                           (r * rows < threshold ? r * rows : 0);
        }
    }

  if (V > 0 && V * h < threshold)
    persistent += V * h * (c->tied_embeddings ? 1.0 : 2.0);

  /* a mixture of experts' routers (hidden x experts) are small tensors
   * too (Mixtral's: 4096 x 8) */
  if (hr_component_is_moe (c) && h * c->experts < threshold)
    persistent += (double) hr_component_moe_layers (c) * h * c->experts;

  /* the adapters the scenario adds, in the proportion of their small
   * matrices (the method's own shapes scale with the same modules) */
  if (p->adapters > 0 && adapter_total > 0)
    persistent += p->adapters * adapter_small / adapter_total;

  return MIN (persistent, p->params + p->adapters);
}

/* The parameters of @c's linear layers, which quantisation replaces.  A
 * pipeline's denoising transformer (a DiT: no vocabulary) is linear
 * layers throughout beside its norms: HunyuanVideo's dual-stream blocks
 * hold an image and a text copy of every projection, and every block its
 * adaLN modulation linears, which a decoder's shape does not count; the
 * bitsandbytes quantizer replaces every nn.Linear not listed in
 * modules_to_not_convert (huggingface/diffusers @58eb52c0
 * src/diffusers/quantizers/bitsandbytes/utils.py
 * _replace_with_bnb_linear).  Its patch embeddings are small
 * convolutions. */
static double
quantized_linear_params (HrPlan            *self,
                         const HrComponent *c)
{
  const char *family = self->scenario->model->family;

  if (c->vocab == 0 &&
      (g_strcmp0 (family, "diffusion") == 0 || g_strcmp0 (family, "video") == 0))
    return (double) c->params - (double) hr_component_norm_params (c);
  return (double) hr_component_linear_params (c);
}

/* A part's frozen weights, in the quantised dtype, its own or the
 * run's; the widest matrix a quantised part dequantises is noted. */
static void
add_frozen_weights (HrPlan     *self,
                    Acc        *acc,
                    Part       *p,
                    double      q_bytes,
                    const char *wname,
                    double     *widest_quantized)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  gboolean sw = sp->shard_weights, op = sp->offload_params;
  const HrComponent *c = p->c;
  double frozen_bytes;
  HrDtype own;
  /* "part_dtypes": this part is stored in its own dtype */
  gboolean has_own = hr_scenario_get_part_dtype (s, c, &own);

  /* on the GPU only in its own phase (hr-estimate-vision.c) */
  if (hr_plan_part_offloaded (self, c))
    {
      double bpp = has_own ? hr_dtype_bytes_per_param (own, FALSE) : q_bytes;

      if (s->pipeline_offload == HR_PIPELINE_OFFLOAD_MODEL)
        p->alone_weights = p->frozen * bpp;
      else
        {
          double one = MIN (p->frozen, hr_plan_part_largest_submodule (self, c)) * bpp;

          hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, one, 0,
                      one, _("%s: the weights of its largest submodule, on the GPU while it "
                             "runs (pipeline_offload sequential)"), c->name);
        }
      return;
    }

  if (hr_dtype_is_quantized (s->weights_dtype) && c->kind == HR_COMPONENT_TRANSFORMER &&
      !has_own)
    {
      /* Quantisation replaces the linear layers; embeddings, norms and
       * the output head stay 16-bit (transformers' bitsandbytes
       * integration skips lm_head: get_keys_to_not_convert). */
      double linear = MIN ((double) quantized_linear_params (self, c), p->frozen);
      double rest = MAX (0, p->frozen - linear);
      gboolean upcast = peft_kbit_fp32 (s);

      frozen_bytes = linear * q_bytes + rest * (upcast ? 4.0 : 2.0);
      if (p->frozen > 0)
        hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    hr_plan_on_device (self, frozen_bytes, sw, op),
                    hr_plan_on_device (self, frozen_bytes * 0.99, sw, op),
                    hr_plan_on_device (self, frozen_bytes * 1.02, sw, op),
                    upcast
                      ? _("%s: %.2fB frozen parameters, linear layers in %s (%.3f bytes each), "
                          "the rest fp32 (PEFT's prepare_model_for_kbit_training)")
                      : _("%s: %.2fB frozen parameters, linear layers in %s (%.3f bytes each), "
                          "the rest 16-bit"), c->name, p->frozen / 1e9, wname, q_bytes);

      /* see the 16-bit staging copy below */
      if (p->frozen > 0 && !op)
        *widest_quantized = MAX (*widest_quantized,
                                 MAX ((double) c->hidden * hr_plan_widest_mlp (c),
                                      head_quantized (s)
                                       ? (double) c->hidden * c->vocab : 0.0));
    }
  else
    {
      double bpp = has_own ? hr_dtype_bytes_per_param (own, FALSE) : q_bytes;

      if (hr_dtype_is_quantized (s->weights_dtype) && !has_own)
        hr_acc_note (acc,
                     _("%s: %s storage applied to all of its weights; quantising "
                       "convolutions is rare, so this part is likely 16-bit in practice"),
                     c->name, wname);
      frozen_bytes = p->frozen * bpp;
      if (p->frozen > 0)
        hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    hr_plan_on_device (self, frozen_bytes, sw, op),
                    hr_plan_on_device (self, frozen_bytes * 0.99, sw, op),
                    hr_plan_on_device (self, frozen_bytes * 1.01, sw, op),
                    self->training ? _("%s: %.2fB frozen parameters in %s (%g bytes each)")
                                   : _("%s: %.2fB parameters in %s (%g bytes each)"),
                    c->name, p->frozen / 1e9,
                    has_own ? hr_enum_to_nick (hr_weights_dtype_names, own) : wname, bpp);
    }

  if (op)
    acc->host_params += hr_plan_sharded (self, frozen_bytes, sw);
}

/* A part's trainable weights and frozen adapter weights. */
static void
add_trainable_weights (HrPlan     *self,
                       Acc        *acc,
                       Part       *p,
                       const char *wname)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  gboolean sw = sp->shard_weights, op = sp->offload_params;
  const HrComponent *c = p->c;

  /* adapter weights that stay frozen: LoRA-FA's A, VeRA's shared
   * random projections */
  if (p->adapter_frozen > 0)
    {
      double bytes = p->adapter_frozen * self->w_bytes;

      hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  hr_plan_on_device (self, bytes, sw, op),
                  hr_plan_on_device (self, bytes, sw, op),
                  hr_plan_on_device (self, bytes, sw, op),
                  _("%s: %.2fM frozen adapter parameters"), c->name,
                  p->adapter_frozen / 1e6);
    }

  if (p->trainable > 0 || p->adapters > 0)
    {
      double n = p->trainable + p->adapters;
      double bytes = n * self->w_bytes;
      double int8 = hr_plan_int8_weight_bytes (self, p, n);

      if (hr_dtype_is_quantized (s->weights_dtype) && p->trainable > 0)
        hr_acc_note (acc, _("%s: trainable weights cannot stay %s; counted in 16 bits"),
                     c->name, wname);

      if (int8 >= 0)
        hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    hr_plan_on_device (self, int8, sw, op),
                    hr_plan_on_device (self, int8, sw, op),
                    hr_plan_on_device (self, int8 * 1.01, sw, op),
                    _("%s: %.1fM trainable parameters, the attention and MLP linears in "
                      "int8 with a scale and zero point per %u"),
                    c->name, n / 1e6, s->int8_weight_group);
      else
        hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    hr_plan_on_device (self, bytes, sw, op),
                    hr_plan_on_device (self, bytes, sw, op),
                    hr_plan_on_device (self, bytes * 1.01, sw, op),
                    p->adapters > 0
                      ? _("%s: %.1fM trainable adapter parameters in %g-byte precision")
                      : _("%s: %.1fM trainable parameters in %g-byte precision"),
                    c->name, n / 1e6, self->w_bytes);
      if (op)
        acc->host_params += hr_plan_sharded (self, bytes, sw);
    }
}

/* The 16-bit copies of fp32 weights that autocast keeps. */
static void
add_autocast_copies (HrPlan *self,
                     Acc    *acc,
                     Part   *p)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  const HrComponent *c = p->c;

  /* torch.amp autocast keeps a 16-bit copy of each fp32 weight a matmul
   * used, for the backward pass (mm saves mat2 for the input's
   * gradient); trainable weights' copies stay in autocast's cache. */
  if (p->backprop && hr_compute_is_mixed (s->compute) && s->weights_dtype == HR_DTYPE_FP32 &&
      !sp->fsdp)
    {
      /* the linear layers, and the output head (a matmul too) */
      double linear = c->kind == HR_COMPONENT_TRANSFORMER
                        ? (double) hr_component_linear_params (c) +
                          (double) c->vocab * c->hidden
                        : p->params;
      double bytes = 2.0 * MIN (linear, p->params);

      hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  bytes, 0.8 * bytes, bytes,
                  _("%s: 16-bit copies of fp32 weights that autocast keeps for the backward "
                    "pass"), c->name);
    }
}

/* What AutoAWQ's fuse_layers holds while it fuses the loaded model.
 * LlamaFuser.fuse_transformer (casper-hansen/AutoAWQ v0.1.6 = @8110e02,
 * awq/models/llama.py) builds every layer's fused q/k/v projection with
 * fuse_qkv (awq/utils/fused_utils.py): a new
 * WQLinear whose zero-initialised buffers are replaced by torch.cat of the
 * three projections' qweight, qzeros and scales, a copy in the same packed
 * format.  The unfused layers stay referenced by self.model.model.layers
 * until the loop ends and LlamaLikeModel replaces them, so at the loop's
 * end the GPU holds the loaded weights, every layer's fused copy, the
 * last layer's zero buffers and the fused blocks' caches (WindowedCache,
 * allocated as each block is built).  examples/benchmark.py reads
 * max_memory_allocated after the run without resetting it, so this
 * loading peak is the figure wherever the run itself needs less: short
 * prompts and few new tokens.  The Mistral and Aquila fusers copy alike;
 * Falcon's and MPT's checkpoints hold one q/k/v projection already and
 * their fusers copy nothing, which a component does not tell apart: for
 * them this is too high (data/SCENARIO.md, fuse_layers). */
static void
add_fused_qkv_load (HrPlan *self,
                    Acc    *acc)
{
  const HrScenario *s = self->scenario;
  double fused = 0;

  if (!s->fuse_layers || self->training)
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      const Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double qkv;

      if (c->kind != HR_COMPONENT_TRANSFORMER || c->layers == 0 || p->frozen <= 0)
        continue;
      qkv = (double) c->hidden * (double) c->head_dim *
            ((double) c->heads + 2.0 * (double) c->kv_heads);
      fused += ((double) c->layers + 1.0) * qkv * hr_plan_frozen_bytes_per_param (self);
    }
  if (fused > 0)
    acc->load_allocated = acc->by_metric[HR_METRIC_ALLOCATED] + fused;
}

/* The transient 16-bit matrix that quantising and dequantising need. */
static void
add_dequant_transient (HrPlan *self,
                       Acc    *acc,
                       double  widest_quantized)
{
  const HrScenario *s = self->scenario;

  /* bitsandbytes quantises each weight on the GPU from its 16-bit copy while
   * loading, and dequantises one back to 16 bits for every matmul
   * (Linear4bit: Params4bit.cuda, then dequantize_4bit in MatMul4Bit forward
   * and backward).  One 16-bit matrix is therefore alive beside the
   * quantised model: the widest projection, or the output head where the
   * library quantises it too (LitGPT and Lightning Fabric do; transformers
   * keeps it 16-bit).  The larger of the two is counted, once. */
  if (widest_quantized > 0 && torchao_nf4 (s))
    {
      /* torchtune's NF4 weights are torchao NF4Tensors
       * (torchao/dtypes/nf4tensor.py @43966b6, unchanged since @a7670be).
       * LinearNF4 dequantises the weight in forward and backward with
       * get_original_weight, whose locals live until it returns: both
       * nibbles unpacked to int64 (8 bytes a pair of values), the
       * dequantised and scaled halves (4), the stacked 16-bit result (2):
       * 14 bytes a value of the widest matrix, during a layer's pass.
       * Compiled (torchtune compiles each layer), AOTAutograd traces
       * NF4Tensor's __torch_dispatch__ into the graph (torchao @e5b705c
       * keeps Dynamo out of it, not the dispatch tracing) and Inductor
       * fuses the dequantisation into one kernel writing the 16-bit
       * weight: 2 bytes a value.
       * torchtune builds the model on the GPU and quantises each weight
       * there (LoRALinear: to_nf4 of the new nn.Linear's weight):
       * from_tensor's quantize_tensor_nearest takes (value - nf4).abs()
       * over the 16 NF4 levels in 16 bits, 64 bytes a value momentarily,
       * beside the weight and its scaled copy (4).  The caching allocator
       * keeps those blocks: reserved memory holds the model and that
       * transient all run long, up to twice it where the quantised weights
       * were carved from the cached blocks in between.  Sharded by FSDP2,
       * each GPU moves the full 16-bit tensor to the GPU and quantises it
       * whole before taking its chunk (torchtune @30b8519
       * training/_distributed.py, load_from_full_model_state_dict:
       * "full_tensor = to_nf4(full_tensor)", then torch.chunk). */
      double dequant = (s->compile ? 2.0 : 14.0) * widest_quantized;
      double load = 68.0 * widest_quantized;
      double resident = acc->by_metric[HR_METRIC_ALLOCATED];

      hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, dequant,
                  0.5 * dequant, dequant,
                  s->compile
                    ? _("dequantising one NF4 weight matrix (torchao, compiled: the 16-bit "
                        "result)")
                    : _("dequantising one NF4 weight matrix (torchao: the unpacked codes, the "
                        "scaled halves and the 16-bit result)"));
      acc->dequant_transient = dequant;
      acc->load_reserved = resident + load;
      acc->load_reserved_high = resident + 2.0 * load;
    }
  else if (widest_quantized > 0 && s->quant_method != HR_QUANT_METHOD_BITSANDBYTES)
    /* A GPTQ or AWQ checkpoint is quantised already; its kernels
     * dequantise a whole matrix to fp16 for long inputs and run a dense
     * matmul: AutoAWQ's WQLinear_GEMM from 1024 tokens
     * (awq/modules/linear/gemm.py @88e4c76, FP16_MATMUL_HEURISTIC_CONDITION),
     * AutoGPTQ's cuda-old QuantLinear from 128 rows
     * (qlinear_cuda_old.py @9f7d370, kernel_switch_threshold), through
     * its int8 codes beside the result */
    hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                2.0 * widest_quantized, 0.0, 3.0 * widest_quantized,
                _("the 16-bit copy of the widest projection that GPTQ and AWQ kernels "
                  "dequantise for long inputs"));
  else if (widest_quantized > 0)
    hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                2.0 * widest_quantized, 0.6 * widest_quantized, 4.0 * widest_quantized,
                _("the 16-bit copy of one weight matrix that quantising and dequantising "
                  "needs"));
}

  /* What is gathered at the peak, the start of the backward pass.  ZeRO-3
   * gathers into buffers of their own even on one GPU (the partition stays
   * in ds_tensor). */
static void
add_gathered_params (HrPlan *self,
                     Acc    *acc,
                     double  largest_layer,
                     double  largest_head,
                     double  total_params,
                     double  trainable_params)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  gboolean sw = sp->shard_weights, op = sp->offload_params;

  if ((sw && sp->dp > 1) || op || (s->sharding == HR_SHARDING_ZERO3 && self->training))
    {
      double share = total_params > 0 ? trainable_params / total_params : 0;
      double per_param = gather_bytes (self, share);
      double params, bytes, lo, hi, staging = 0, retained = 0;
      const char *label;

      if (s->sharding == HR_SHARDING_ZERO3)
        {
          params = zero3_live_params (self, &staging, &retained);
          label = op ? _("ZeRO-3: parameters gathered at the peak (the prefetcher fills "
                         "stage3_max_live_parameters; the largest tensor overshoots it and its "
                         "partition is staged on the GPU from the host)")
                     : _("ZeRO-3: parameters gathered at the peak (the prefetcher fills "
                         "stage3_max_live_parameters; the largest tensor overshoots it)");
        }
      else if (sp->fsdp && !sp->reshard_after_forward)
        {
          /* reshard_after_forward=False (FSDP1 SHARD_GRAD_OP): every group
           * stays unsharded from its forward to its backward */
          params = total_params;
          label = _("FSDP without resharding after forward: the whole model unsharded between "
                    "forward and backward");
        }
      else if (sp->fsdp && self->training)
        {
          /* the head's group (the root, unsharded from forward through
           * backward) and the last layer prefetched for the backward pass,
           * or later two layers, the one in backward and the previous one
           * prefetched */
          params = MAX (largest_head + largest_layer, 2.0 * largest_layer);
          label = _("FSDP: the output head's group and the layer prefetched for the backward "
                    "pass, unsharded");
        }
      else if (sp->fsdp)
        {
          params = largest_head + 2.0 * largest_layer;
          label = _("FSDP: the root group and the layer in use with the next one prefetched, "
                    "unsharded");
        }
      else
        {
          params = 2.0 * largest_layer;
          label = _("unsharded parameters of the layer in use and the one prefetched");
        }

      params = MIN (params, total_params);
      bytes = (params + staging) * per_param;
      lo = 0.5 * bytes;
      hi = 1.5 * bytes;
      /* ZeRO-3's coalesced all-gathers keep their flat buffers until every
       * tensor of the batch has been used: up to the prefetched parameters
       * again */
      if (s->sharding == HR_SHARDING_ZERO3)
        hi = bytes + retained * per_param;
      /* FSDP2 keeps the all-gather output of the current group until the
       * next group's copy-out ("Overlapping all-gather copy-in and
       * all-gather", _fsdp_param_group.py): one more group's worth at most */
      if (sp->fsdp)
        hi = bytes + largest_layer * per_param;
      /* an fp8 run whose FSDP gathers in 16 bits */
      if (sp->fsdp && s->compute == HR_COMPUTE_FP8_MIXED)
        hi = 2.0 * hi;
      hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, bytes, lo, hi,
                  "%s", label);
    }
}

void
hr_plan_add_weights (HrPlan *self,
                     Acc    *acc)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  double largest_layer = 0, largest_head = 0, total_params = 0, trainable_params = 0;
  double widest_quantized = 0, persistent = 0;
  const char *wname = hr_enum_to_nick (hr_weights_dtype_names, s->weights_dtype);
  double q_bytes = hr_plan_frozen_bytes_per_param (self);

  /* llama.cpp places its layers itself (hr-estimate-serving.c) */
  if (hr_plan_add_llamacpp_weights (self, acc))
    return;
  /* and CTranslate2 quantises as it does (hr-estimate-serving.c) */
  if (hr_plan_add_ctranslate2_weights (self, acc))
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;

      largest_layer = MAX (largest_layer, layer_params (c));
      largest_head = MAX (largest_head, head_group_params (self, c));
      total_params += p->params + p->adapters + p->adapter_frozen;
      trainable_params += p->trainable + p->adapters;
      if (s->sharding == HR_SHARDING_ZERO3 && sp->dp > 1)
        persistent += zero3_persistent_params (self, p);

      add_frozen_weights (self, acc, p, q_bytes, wname, &widest_quantized);
      add_trainable_weights (self, acc, p, wname);
      add_autocast_copies (self, acc, p);
    }

  add_fused_qkv_load (self, acc);
  add_dequant_transient (self, acc, widest_quantized);

  /* ZeRO-3 keeps its small tensors whole on every GPU */
  if (persistent > 0)
    {
      double bytes = persistent * gather_bytes (self, total_params > 0
                                                        ? trainable_params / total_params : 0) *
                     (1.0 - 1.0 / sp->dp);

      hr_acc_add (acc, HR_BUCKET_WEIGHTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, bytes, bytes,
                  bytes,
                  _("ZeRO-3: %.2fM parameters under stage3_param_persistence_threshold (%.0f) "
                    "kept whole on every GPU"), persistent / 1e6,
                  (double) s->deepspeed.param_persistence_threshold);
    }

  add_gathered_params (self, acc, largest_layer, largest_head, total_params, trainable_params);
}

/* Parameters that get a gradient: the trainable ones, and under FSDP1's
 * mixed units every parameter of the units adapters sit in (the layers;
 * the root unit with the embedding and head has none that train). */
static double
gradient_params (HrPlan     *self,
                 const Part *p)
{
  const HrComponent *c = p->c;
  double n = p->trainable + p->adapters;

  if (self->shard.whole_unit_grads && p->adapters > 0 && c->kind == HR_COMPONENT_TRANSFORMER)
    n += MAX (0, MIN (p->frozen, p->params - (double) hr_component_embedding_params (c)));
  return n;
}

/* Whether the gradients grow only as the backward pass frees the
 * activations.  Every named stack zeroes gradients with set_to_none
 * between steps (torch.optim's zero_grad defaults to set_to_none=True since
 * PyTorch 2.0; torchtune's recipes call zero_grad(set_to_none=True), the
 * Trainer model.zero_grad()), so without accumulation no gradient exists
 * when the backward pass starts with every activation alive.  Without a
 * stack the gradients are counted alongside all activations, the safe
 * side, unless the file says how its loop clears them
 * ("zero_grad_set_to_none": a plain PyTorch 2 loop calling
 * optimizer.zero_grad() sets them to None; PyTorch 1.x's default,
 * set_to_none=False, keeps every gradient allocated between steps:
 * torch/optim/optimizer.py @v2.0.0 and @v1.13.1, zero_grad). */
gboolean
hr_plan_gradients_overlap_activations (HrPlan *self)
{
  const HrScenario *s = self->scenario;
  gboolean to_none = s->zero_grad_set_to_none_set ? s->zero_grad_set_to_none : s->stack_set;

  return self->training && to_none && s->grad_accum == 1 && !s->optimizer_in_bwd &&
         s->offload != HR_OFFLOAD_OPTIMIZER_GRADIENTS && !self->shard.unsharded_accumulation;
}

void
hr_plan_add_deferred_gradients (HrPlan *self,
                                Acc    *acc)
{
  double all = acc->deferred_grads, alive;

  if (!hr_plan_gradients_overlap_activations (self) || all <= 0)
    return;

  /* The backward pass frees each layer's activations as it makes that
   * layer's gradients: at its start every activation and the head's
   * gradient are alive, at its end every gradient (and, under full
   * recomputation, the first layer rebuilt).  The peak is the larger. */
  alive = CLAMP (all + acc->recompute_working_set - acc->activations, acc->deferred_first, all);
  hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, alive, alive, all,
              _("gradients of %.1fM trainable parameters alive at the peak: the backward pass "
                "makes them as it frees the activations (no accumulation, gradients set to None "
                "between steps)"), acc->deferred_params / 1e6);
}

/* Gradients stepped as soon as they are computed: only the largest
 * tensor's is alive. */
static void
add_stepped_gradients (HrPlan *self,
                       Acc    *acc,
                       double  grad_bytes)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  /* torchtune's optimizer_in_bwd gives every parameter an optimizer of
   * its own and steps it from a post-accumulate-grad hook, which then
   * zeroes the gradient (training/memory.py @bd2a0fc,
   * register_optim_in_bwd_hooks: optim_dict[param].step(),
   * .zero_grad()): no full gradient buffer, only the gradients of the
   * tensor just computed, at most the largest one.  Under FSDP2 the
   * hook fires on the sharded parameter. */
  double largest = 0;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);
      const HrComponent *c = p->c;
      double biggest;

      if (p->trainable <= 0 && p->adapters <= 0)
        continue;
      if (p->trainable > 0 && c->kind == HR_COMPONENT_TRANSFORMER)
        biggest = MAX ((double) c->vocab * c->hidden,
                       (double) c->hidden * hr_plan_widest_mlp (c));
      else if (c->arch != NULL && p->trainable > 0)
        /* a walked part: its largest layer, as the walk counts it (the
         * optimizer's largest step, hr-estimate-optimizer.c, likewise) */
        biggest = hr_plan_arch_largest_params (self, c);
      else if (c->kind == HR_COMPONENT_TRANSFORMER && c->layers > 0)
        biggest = (p->trainable + p->adapters) / c->layers;
      else
        biggest = p->trainable + p->adapters;
      largest = MAX (largest, MIN (biggest, p->trainable + p->adapters));
    }
  largest = hr_plan_sharded (self, largest * grad_bytes, sp->shard_grads);
  /* torchao's CPUOffloadOptimizer with offload_gradients copies each
   * gradient to pinned host memory from the same hook and frees it
   * once the copy is done (cpu_offload.py @122eb73, backward_hook:
   * p_host.grad.copy_, then p_device.grad = None): the copies in
   * flight, a tensor or two */
  if (s->offload == HR_OFFLOAD_OPTIMIZER_GRADIENTS)
    hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, largest,
                0.5 * largest, 2.0 * largest,
                _("gradients offloaded as they are computed (torchao CPUOffloadOptimizer, "
                  "offload_gradients): only the largest tensor's is on the GPU"));
  else
    hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, largest,
                0.5 * largest, 2.0 * largest,
                _("gradients under optimizer_in_bwd: each is stepped and freed as soon as it "
                  "is computed, so only the largest tensor's is alive"));
}

/* The buffers gradients pass through on their way to the other GPUs. */
static void
add_gradient_buffers (HrPlan *self,
                      Acc    *acc,
                      double  grads_total,
                      double  grad_bytes,
                      double  trainable)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;

  /* FSDP reduce-scatters one group's unsharded gradients while the next
   * group's backward runs (ReduceScatterState keeps the input alive until
   * the next reduce-scatter, _fsdp_param_group.py post_backward) */
  if (sp->fsdp && sp->dp > 1)
    {
      double layer = 0;

      for (guint i = 0; i < self->parts->len; i++)
        {
          Part *p = &g_array_index (self->parts, Part, i);
          double share = p->params > 0 ? gradient_params (self, p) / (p->params + p->adapters) : 0;

          layer = MAX (layer, layer_params (p->c) * MIN (1.0, share));
        }
      if (layer > 0)
        hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                    layer * grad_bytes, 0, 2.0 * layer * grad_bytes,
                    _("FSDP: one group's unsharded gradients awaiting their reduce-scatter"));
    }

  if (s->sharding == HR_SHARDING_DDP && sp->dp > 1)
    {
      /* DistributedDataParallel copies gradients into flat buckets for
       * all-reduce; unless gradient_as_bucket_view=True the buckets are
       * a second copy of every gradient (PyTorch DDP docs:
       * "gradient_as_bucket_view ... saved memory size will be equal to
       * the total gradients size"). */
      hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, grads_total, 0,
                  grads_total,
                  _("DDP gradient buckets for all-reduce (a second copy of the gradients)"));
    }

  if (sp->zero && trainable > 0)
    {
      const HrDeepSpeed *ds = &s->deepspeed;
      /* the model's dtype: 16 bits with fp16/bf16 enabled, fp32 without */
      double model_bytes = hr_compute_activation_bytes (s->compute);
      /* stage 1/2 allocate two reduce buffers when overlap_comm (off by
       * default there), stage 3 one per dtype (overlap_comm on) */
      gboolean overlap = (ds->set & HR_DS_OVERLAP_COMM) ? ds->overlap_comm
                                                         : s->sharding == HR_SHARDING_ZERO3;
      double buffers = s->sharding == HR_SHARDING_ZERO3 ? 1.0 : (overlap ? 2.0 : 1.0);
      /* allocated whole, whatever the number of trainable parameters */
      double bucket = (double) ds->reduce_bucket_size * model_bytes * buffers;

      /* contiguous_gradients: the backward pass copies each gradient into
       * a flat bucket of reduce_bucket_size values before reducing it
       * (stage_1_and_2.py: buf_0, and buf_1 with overlap_comm; stage3.py:
       * bucket.buffer = torch.empty(self.reduce_bucket_size, ...)) */
      if (ds->contiguous_gradients)
        hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, bucket,
                    bucket, bucket,
                    _("DeepSpeed gradient reduce buckets (reduce_bucket_size %.3g values × %g)"),
                    (double) ds->reduce_bucket_size, buffers);
    }
}

void
hr_plan_add_gradients (HrPlan *self,
                       Acc    *acc)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  double n = 0, trainable = 0, grads_total;
  double grad_bytes = self->g_bytes;
  gboolean on_host;

  if (!self->training)
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);

      n += gradient_params (self, p);
      trainable += p->trainable + p->adapters;
    }

  /* Reduced gradients go where the optimizer steps: the host under
   * ZeRO-Offload (Ren et al. 2021, section 4.1: fp16 gradients are
   * offloaded to CPU memory) and FSDP's CPU offload. */
  on_host = (sp->zero && sp->offload_states) || (sp->fsdp && sp->offload_params);

  if (sp->unsharded_accumulation)
    {
      /* unsharded gradients in the dtype the backward pass computes them
       * (or FSDP2 accumulates them in) */
      double per_value = sp->accumulated_bytes > 0 ? sp->accumulated_bytes
                         : hr_compute_is_mixed (s->compute) ? 2.0 : grad_bytes;
      double bytes = n * per_value * acc->pipeline_gradients;

      hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, bytes, bytes,
                  bytes,
                  sp->whole_unit_grads
                    ? _("gradients of whole FSDP1 units (frozen weights beside adapters get one "
                        "too), accumulated unsharded under no_sync over %u micro-batches")
                    : sp->pp > 1
                    ? _("gradients accumulated unsharded over the pipeline's %u micro-batches "
                        "(FSDP reduce-scatters after the last)")
                    : _("gradients accumulated unsharded under no_sync over %u micro-batches: "
                        "every GPU holds the full gradient"),
                  s->grad_accum);
      return;
    }

  grads_total = n * grad_bytes * acc->pipeline_gradients;

  if (hr_plan_gradients_overlap_activations (self))
    {
      double first = 0;

      /* the head's gradient is the first the backward pass makes */
      for (guint i = 0; i < self->parts->len; i++)
        {
          Part *p = &g_array_index (self->parts, Part, i);

          if (p->logits && p->trainable >= p->params && p->c->vocab > 0)
            first = MAX (first, (double) p->c->vocab * p->c->hidden * grad_bytes);
        }
      acc->deferred_grads = hr_plan_on_device (self, grads_total, sp->shard_grads, on_host);
      acc->deferred_first = MIN (acc->deferred_grads,
                                 hr_plan_on_device (self, first, sp->shard_grads, on_host));
      acc->deferred_params = n;
    }
  else if (s->optimizer_in_bwd || s->offload == HR_OFFLOAD_OPTIMIZER_GRADIENTS)
    add_stepped_gradients (self, acc, grad_bytes);
  else
    {
      hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  hr_plan_on_device (self, grads_total, sp->shard_grads, on_host),
                  hr_plan_on_device (self, grads_total, sp->shard_grads, on_host),
                  hr_plan_on_device (self, grads_total, sp->shard_grads, on_host),
                  sp->whole_unit_grads
                    ? _("gradients of whole FSDP1 units: frozen weights beside adapters get one "
                        "too (%.1fM parameters, %g bytes each), sharded")
                    : sp->shard_grads
                    ? _("gradients of %.1fM trainable parameters (%g bytes each), sharded")
                    : _("gradients of %.1fM trainable parameters (%g bytes each)"),
                  n / 1e6, grad_bytes);
    }

  /* CPUOffloadOptimizer preallocates a pinned host gradient beside every
   * host parameter (p_host.grad = torch.empty_like(p_host, pin_memory)) */
  if ((on_host && !s->optimizer_in_bwd) || s->offload == HR_OFFLOAD_OPTIMIZER_GRADIENTS)
    acc->host_states += hr_plan_sharded (self, grads_total, sp->shard_grads);

  add_gradient_buffers (self, acc, grads_total, grad_bytes, trainable);
}

/* ZeRO-1/2 with contiguous_gradients false reduce through
 * buffered_reduce_fallback (DeepSpeed stage_1_and_2.py @b647fb2,
 * reduce_ipg_grads): each gradient stays a whole param.grad until its
 * bucket of at most reduce_bucket_size values is reduced, and
 * allreduce_and_copy -> allreduce_bucket flattens the bucket into a new
 * tensor (self.flatten = _flatten_dense_tensors) that it all-reduces and
 * copies back.  Stage 2 then frees the gradients of other partitions
 * (with overlap_comm at the next reduction: previous_reduced_grads,
 * _clear_previous_reduced_grads), stage 1 keeps every gradient until the
 * step (counted already).  Each reduction holds one bucket whole and its
 * flat copy; the first comes once the backward pass has made a bucket's
 * gradients, the last (independent_gradient_partition_epilogue) after it,
 * with what remains. */
static double
fallback_reduction_bytes (HrPlan *self,
                          Acc    *acc,
                          double  trainable)
{
  const HrScenario *s = self->scenario;
  const HrDeepSpeed *ds = &s->deepspeed;
  double g = hr_compute_activation_bytes (s->compute);
  double m = MIN ((double) ds->reduce_bucket_size, trainable);
  double r = fmod (trainable, m) > 0 ? fmod (trainable, m) : m;
  /* the share of a bucket stage 2 does not keep */
  double other = s->sharding == HR_SHARDING_ZERO2 ? 1.0 - 1.0 / self->shard.dp : 0;
  gboolean overlap = (ds->set & HR_DS_OVERLAP_COMM) && ds->overlap_comm;
  double counted = acc->bytes[HR_BUCKET_GRADIENTS];
  double full = hr_plan_gradients_overlap_activations (self) ? acc->deferred_grads : counted;
  /* the last bucket whole and its copy, beside the previous bucket's
   * other-partition gradients while it fills under overlap_comm */
  double at_end = g * (other * r + MAX (r, overlap && trainable > m ? other * m : 0));
  double at_first = g * (1.0 + other) * m;
  /* the estimator's backward pass frees activations as it makes gradients */
  double first_state = (1.0 - m / trainable) * acc->activations + m / trainable * full + at_first;
  double end_state = full + acc->recompute_working_set + at_end;
  double most = MAX (at_end, at_first);

  /* stage 1 without overlap_comm installs no gradient hooks and reduces
   * every bucket after the backward pass (reduce_gradients) */
  if (s->sharding == HR_SHARDING_ZERO1 && !overlap)
    return CLAMP (full + g * m - acc->activations - counted, 0, g * m);
  return CLAMP (MAX (first_state, end_state) - acc->activations - counted, 0, most);
}

static void
add_fallback_reduction (HrPlan *self,
                        Acc    *acc,
                        double  trainable,
                        double  step_extra)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;
  double g = hr_compute_activation_bytes (s->compute), extra, most;

  if (!sp->zero || s->sharding == HR_SHARDING_ZERO3 || s->deepspeed.contiguous_gradients ||
      sp->offload_states || s->optimizer_in_bwd || trainable <= 0 ||
      s->deepspeed.reduce_bucket_size == 0)
    return;
  extra = MAX (0, fallback_reduction_bytes (self, acc, trainable) - step_extra);
  most = g * MIN ((double) s->deepspeed.reduce_bucket_size, trainable) *
         (s->sharding == HR_SHARDING_ZERO2 ? 2.0 - 1.0 / sp->dp : 1.0);
  hr_acc_add (acc, HR_BUCKET_GRADIENTS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, extra, extra,
              MAX (extra, most),
              _("DeepSpeed without contiguous_gradients: a reduce bucket's gradients held whole "
                "and flattened into a copy (at most %.3g values), beyond what the freed "
                "activations and the ZeRO step leave"),
              MIN ((double) s->deepspeed.reduce_bucket_size, trainable));
}

/* The ZeRO step upcasts its gradient partition to fp32 for the optimizer:
 * stage 3 one sub-group of at most sub_group_size values at a time
 * (fp32_partitioned_groups_flat[i].grad), beyond the freed activations.
 * Stage 1/2 the whole partition (stage_1_and_2.py @b647fb2, step):
 * single_grad_partition = self.flatten(self.averaged_gradients[i]).to(fp32)
 * makes a 16-bit flat copy of the partition's gradients, then the fp32 one,
 * while the gradients themselves are still referenced.  By then
 * independent_gradient_partition_epilogue has released the reduce buckets
 * and set every other gradient to None (zero_grad(set_to_none=True), the
 * partition kept in averaged_gradients), and step frees those not in the
 * partition first (free_grad_in_param_list): only the partition's 16-bit
 * gradients remain of what the gradients bucket counts.  .to() of an fp32
 * model's gradients copies nothing. */
static void
add_zero_step (HrPlan *self,
               Acc    *acc)
{
  const HrScenario *s = self->scenario;
  double trainable = 0, values, extra, g = hr_compute_activation_bytes (s->compute);

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *p = &g_array_index (self->parts, Part, i);

      trainable += p->trainable + p->adapters;
    }
  values = hr_plan_sharded (self, trainable, TRUE);
  if (s->sharding == HR_SHARDING_ZERO3)
    extra = MAX (0, 4.0 * MIN (values, (double) s->deepspeed.sub_group_size) - acc->activations);
  else
    extra = MAX (0, values * (2.0 * g + (g < 4.0 ? 4.0 : 0)) - acc->activations -
                      acc->bytes[HR_BUCKET_GRADIENTS]);
  /* the last reduction comes before the step: the larger one counts */
  add_fallback_reduction (self, acc, trainable, extra);
  if (extra > 0 && s->sharding == HR_SHARDING_ZERO3)
    hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, extra, extra,
                extra,
                _("ZeRO step: the fp32 copy of the gradient partition, beyond what the freed "
                  "activations leave"));
  else if (extra > 0)
    hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, extra, extra,
                extra,
                _("ZeRO step: the gradient partition flattened into a copy and cast to fp32, "
                  "beyond what the freed activations and gradients leave"));
}

/* What sharding adds outside the steady state: the ZeRO step's fp32
 * gradient partition, and the consolidated checkpoint. */
void
hr_plan_add_sharding_overhead (HrPlan *self,
                               Acc    *acc)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;

  if (!self->training)
    return;

  /* NCCL's communicators allocate their buffers with cudaMalloc, outside
   * PyTorch's allocator: NCCL_BUFFSIZE (4 MiB) for each channel and peer
   * of every communicator (NCCL docs, Environment Variables:
   * NCCL_BUFFSIZE default 4194304), one communicator per process group
   * (data, tensor, pipeline parallel).  nvidia-smi shows them; PyTorch's
   * statistics do not.  How many channels NCCL opens depends on the
   * topology: assumed. */
  if (s->gpus > 1 && (s->sharding != HR_SHARDING_NONE || sp->tp * sp->pp * sp->cp > 1))
    hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_DEVICE_USED, HR_BASIS_ASSUMED,
                0.25 * GiB, 0.1 * GiB, 1.0 * GiB,
                _("NCCL communication buffers outside PyTorch's allocator"));

  if (sp->zero && !sp->offload_states)
    add_zero_step (self, acc);

  /* The checkpoint-write spike: saving a consolidated checkpoint of a
   * sharded model gathers every 16-bit weight on one GPU (DeepSpeed's
   * stage3_gather_16bit_weights_on_model_save; FSDP's FULL_STATE_DICT
   * without offload_to_cpu).  It happens between steps, with the activations
   * freed, and only if the run saves that way: counted in the range only. */
  if (sp->shard_weights && sp->dp > 1 && !sp->offload_params)
    {
      double full = 0;

      for (guint i = 0; i < self->parts->len; i++)
        {
          Part *p = &g_array_index (self->parts, Part, i);

          full += (p->params + p->adapters) * 2.0;
        }
      full = MAX (0, full * (1.0 - 1.0 / sp->dp) - acc->activations);
      hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_ALLOCATED, HR_BASIS_ASSUMED, 0, 0, full,
                  _("saving a consolidated checkpoint: the whole model in 16 bits on one GPU "
                    "(range only)"));
    }
}

void
hr_plan_add_sharding_notes (HrPlan    *self,
                            GPtrArray *notes)
{
  const HrScenario *s = self->scenario;
  const ShardPlan *sp = &self->shard;

  if (!self->training)
    return;

  if (sp->shard_weights && sp->dp > 1)
    g_ptr_array_add (notes, g_strdup (
      _("the high end of the range allows for saving a consolidated checkpoint, which "
        "gathers the whole 16-bit model on one GPU; save sharded checkpoints to avoid that "
        "spike")));
  if (s->sharding != HR_SHARDING_NONE && sp->dp == 1)
    g_ptr_array_add (notes, g_strdup_printf (
      _("sharding \"%s\" with one GPU divides nothing; set gpus"),
      hr_enum_to_nick (hr_sharding_names, s->sharding)));
  if (sp->unsharded_accumulation)
    g_ptr_array_add (notes, g_strdup (
      _("gradient accumulation under no_sync keeps unsharded gradients on every GPU; "
        "accelerate's sync_each_batch (or reduce-scattering every micro-batch, as torchtune "
        "does) keeps them sharded at the cost of more communication")));
  if (sp->whole_unit_grads)
    g_ptr_array_add (notes, g_strdup (
      _("FSDP1 with use_orig_params=True: units that mix adapters and frozen weights compute "
        "gradients for the frozen weights too (pytorch/pytorch#104690); FSDP2 (\"fsdp\") or "
        "wrapping the adapters on their own avoids it")));
  if (s->sharding == HR_SHARDING_FSDP && sp->dp > 1 && hr_method_is_peft (s->method))
    g_ptr_array_add (notes, g_strdup (
      _("FSDP2 shards frozen weights like the others and frees them after each group's "
        "backward; FSDP1 with use_orig_params=True (LitGPT, Lightning: \"fsdp1\" with "
        "\"stack\") keeps gradients for whole units")));
}
