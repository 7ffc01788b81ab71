/* hr-scenario.c: the one input of every estimate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-scenario"

#include <glib/gi18n-lib.h>

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "hr-file.h"
#include "hr-estimate.h"
#include "hr-reader.h"
#include "hr-scenario.h"
#include "hr-setting.h"

#define MAX_MICRO_BATCH (1u << 20)
#define MAX_SEQ_LEN     (1u << 26)
#define MAX_GPUS        1000000
#define MAX_IMAGE_SIDE  65536

static const char * const scenario_keys[] = {
  "headroom_scenario", "name", "model", "task", "method", "trainable_params",
  "lora", "weights_dtype", "compute", "optimizer", "micro_batch", "grad_accum",
  "seq_len", "image_size", "recompute", "attention", "gpus", "sharding",
  "offload", "framework", "jax_preallocate", "context_len", "kv_dtype", "gpu",
  "reserve", "replay", "quant_compute_dtype", "quant_method", "loss", "causal_mask", "galore_rank",
  "apollo_rank", "int8_weights", "int8_weight_group",
  /* the stacks' keys */
  "stack", "reshard_after_forward", "optimizer_in_bwd", "activation_offload",
  "compile", "packed", "optimizer_impl", "optimizer_state_dtype", "deepspeed",
  "peft",
  /* parallelism, mixtures of experts and serving engines */
  "tensor_parallel", "sequence_parallel", "pipeline_parallel",
  "pipeline_schedule", "virtual_stages", "context_parallel", "expert_parallel",
  "capacity_factor", "engine", "gpu_memory_utilization", "mem_fraction_static",
  "max_num_seqs", "enforce_eager", "gpu_layers", "block_size", "compute_type",
  "beams",
  /* vision and diffusion (hr-estimate-vision.c) */
  "frames", "ema", "prior_preservation", "vae_tiling", "num_classes", "max_objects",
  "detection_framework", "focal_loss", "pairwise_iou_keeps_corners",
  "train_text_encoder", "cache_latents", "vae_encode_frames", "part_dtypes",
  "text_encoder_cpu", "offload_model", "pipeline_offload", "pipeline_library",
  "pytorch_version",
  /* transformers inference (hr-estimate-activations.c) */
  "transformers_version", "fuse_layers", "previous_cache_freed",
  /* speech (hr-arch-speech.c) */
  "audio_seconds", "sample_rate",
  /* the training loop (hr-estimate-sharding.c) */
  "zero_grad_set_to_none", NULL
};

/* The keys above and those the settings table reads itself. */
static const char * const *
all_scenario_keys (void)
{
  static GPtrArray *keys;

  if (g_once_init_enter (&keys))
    {
      GPtrArray *all = g_ptr_array_new ();

      for (guint i = 0; scenario_keys[i] != NULL; i++)
        g_ptr_array_add (all, (gpointer) scenario_keys[i]);
      hr_settings_add_json_keys (all);
      g_ptr_array_add (all, NULL);
      g_once_init_leave (&keys, all);
    }
  return (const char * const *) keys->pdata;
}

static const char * const lora_keys[] = { "rank", "targets", NULL };
static const char * const deepspeed_keys[] = {
  "stage3_max_live_parameters", "stage3_prefetch_bucket_size",
  "stage3_param_persistence_threshold", "reduce_bucket_size",
  "allgather_bucket_size", "stage3_max_reuse_distance", "sub_group_size",
  "offload_param", "offload_optimizer", "overlap_comm", "contiguous_gradients",
  NULL
};
static const char * const peft_keys[] = {
  "num_virtual_tokens", "prefix_projection", "encoder_hidden_size",
  "block_size", "n_butterfly_factor", "decompose_factor", "decompose_both",
  "init_r", "target_r", "d_initial", "save_projection", NULL
};
static const char * const replay_keys[] = { "steps", "obs_shape", "obs_dtype", NULL };

static void
apply_defaults (HrScenario *self)
{
  self->name = g_strdup ("");
  self->task = HR_TASK_FINETUNE;
  self->method = HR_METHOD_FULL;
  self->lora_rank = 16;
  self->lora_targets = HR_LORA_TARGETS_ALL_LINEAR;
  self->compute = HR_COMPUTE_BF16_MIXED;
  self->weights_dtype = HR_DTYPE_BF16;
  self->optimizer = HR_OPTIMIZER_ADAMW;
  self->micro_batch = 1;
  self->grad_accum = 1;
  self->recompute = HR_RECOMPUTE_NONE;
  self->attention = HR_ATTENTION_SDPA;
  self->gpus = 1;
  self->sharding = HR_SHARDING_NONE;
  self->offload = HR_OFFLOAD_NONE;
  self->framework = HR_FRAMEWORK_PYTORCH;
  self->jax_preallocate = TRUE;
  self->kv_dtype = HR_DTYPE_BF16;
  /* GaLore's torchrun_main.py @2cc66f8: --rank 128 */
  self->galore_rank = 128;
  /* the Systran/faster-whisper-* conversions are float16 (faster-whisper
   * README.md @65882ee, "ct2-transformers-converter ... --quantization
   * float16") */
  self->ct2_compute_type = HR_CT2_FLOAT16;
  /* APOLLO's scripts/pretrain_c4/llama_7b_apollo.sh @76b3472: num_rank=256 */
  self->apollo_rank = 256;
  /* Q-GaLore's run_pretrain.py @dd09cd3: --weight_group_size 256 */
  self->int8_weight_group = 256;
  /* transformers' BitsAndBytesConfig: bnb_4bit_compute_dtype defaults to
   * torch.float32 */
  self->quant_compute_dtype = HR_DTYPE_FP32;
  self->reserve = HR_SCENARIO_DEFAULT_RESERVE;

  self->stack = HR_STACK_TRANSFORMERS;
  self->reshard_after_forward = TRUE;
  self->optimizer_impl = HR_OPTIMIZER_IMPL_FOREACH;
  self->optimizer_state_dtype = HR_DTYPE_FP32;

  /* DeepSpeed's own defaults: deepspeed/runtime/zero/config.py
   * (deepspeedai/DeepSpeed @edaa722): stage3_max_live_parameters 1e9,
   * stage3_prefetch_bucket_size 5e7, stage3_param_persistence_threshold 1e5,
   * reduce_bucket_size 5e8, allgather_bucket_size 5e8,
   * stage3_max_reuse_distance 1e9, sub_group_size 1e9,
   * contiguous_gradients true; overlap_comm defaults to true for stage 3
   * only (overlap_comm_valid). */
  self->deepspeed.max_live_parameters = 1000000000;
  self->deepspeed.prefetch_bucket_size = 50000000;
  self->deepspeed.param_persistence_threshold = 100000;
  self->deepspeed.reduce_bucket_size = 500000000;
  self->deepspeed.allgather_bucket_size = 500000000;
  self->deepspeed.max_reuse_distance = 1000000000;
  self->deepspeed.sub_group_size = 1000000000;
  self->deepspeed.contiguous_gradients = TRUE;

  /* PEFT's defaults: OFTConfig oft_block_size 32 (BOFT's boft_block_size 4
   * is applied per method), BOFTConfig boft_n_butterfly_factor 1,
   * LoKrConfig decompose_factor -1, AdaLoraConfig init_r 12; prompt and
   * prefix tuning have no default length, 20 virtual tokens (PEFT's
   * examples) stands in. */
  self->peft.num_virtual_tokens = 20;
  self->peft.n_butterfly_factor = 1;
  self->peft.decompose_factor = -1;
  self->peft.init_r = 12;

  self->tensor_parallel = 1;
  self->pipeline_parallel = 1;
  self->pipeline_schedule = HR_PIPELINE_1F1B;
  self->virtual_stages = 1;
  self->context_parallel = 1;
  self->expert_parallel = 1;
  self->capacity_factor = 1.0;

  self->engine = HR_ENGINE_TRANSFORMERS;
  /* vLLM's CacheConfig: gpu_memory_utilization 0.9, block_size 16 on CUDA
   * (vllm/config.py, vllm-project/vllm @0012cf6) */
  self->gpu_memory_utilization = 0.9;
  self->block_size = 16;
  self->mem_fraction_static = 0.88;

  hr_settings_apply_defaults (self);
}

/* Values that follow from others unless the file set them. */
void
hr_scenario_resolve (HrScenario *self)
{
  if (!self->weights_dtype_set)
    self->weights_dtype = self->method == HR_METHOD_QLORA
                            ? HR_DTYPE_NF4
                            : hr_compute_default_weights_dtype (self->compute);
  if (!self->optimizer_set)
    self->optimizer = self->task == HR_TASK_INFERENCE ? HR_OPTIMIZER_NONE : HR_OPTIMIZER_ADAMW;
  if (!self->framework_set && self->model != NULL)
    self->framework = self->model->framework;

  /* The optimizer's moments live in the dtype of the parameters it steps:
   * fp32 masters in mixed precision, the 16-bit weights themselves in pure
   * 16-bit training (torch.optim creates state with zeros_like(param)). */
  if (!self->optimizer_state_dtype_set)
    self->optimizer_state_dtype = self->compute == HR_COMPUTE_BF16_PURE ? HR_DTYPE_BF16
                                  : self->compute == HR_COMPUTE_FP16_PURE ? HR_DTYPE_FP16
                                  : HR_DTYPE_FP32;

  /* torchtune's configs and torchtitan's job config use fused AdamW
   * (torchtune recipes/configs/llama3_1/8B_full.yaml @bd2a0fc: fused: True;
   * torchtitan optimizer.implementation "fused"); the transformers Trainer
   * defaults to "adamw_torch_fused" on PyTorch 2.8 and later
   * (transformers training_args.py, default_optim).  Without a stack,
   * torch.optim's own default, foreach. */
  /* The dtype 4-bit layers compute in: Lightning's BitsandbytesPrecision
   * sets compute_dtype to the precision's dtype
   * (lightning/fabric/plugins/precision/bitsandbytes.py @71aed75), as
   * LitGPT uses it; torchtune's and Unsloth's NF4 layers dequantise to the
   * activations' dtype.  transformers' BitsAndBytesConfig keeps float32. */
  if (!self->quant_compute_dtype_set)
    self->quant_compute_dtype =
      self->stack_set && (self->stack == HR_STACK_LITGPT || self->stack == HR_STACK_LIGHTNING ||
                          self->stack == HR_STACK_TORCHTUNE || self->stack == HR_STACK_UNSLOTH)
        ? (self->compute == HR_COMPUTE_FP16_MIXED || self->compute == HR_COMPUTE_FP16_PURE
             ? HR_DTYPE_FP16
             : self->compute == HR_COMPUTE_FP32 || self->compute == HR_COMPUTE_TF32
             ? HR_DTYPE_FP32 : HR_DTYPE_BF16)
        : HR_DTYPE_FP32;

  /* Megatron's interleaved schedule and torchtitan's looped schedules run
   * two model chunks per rank unless told otherwise (torchtitan
   * pipelining_utils.py @9dec370, generate_split_points: num_stages_per_rank
   * 2 for PipelineScheduleMulti) */
  if (!self->virtual_stages_set)
    self->virtual_stages = self->pipeline_schedule == HR_PIPELINE_INTERLEAVED ? 2 : 1;

  /* SGLang's default mem_fraction_static falls as tensor parallelism grows
   * (python/sglang/srt/server_args.py, ServerArgs.__post_init__, the 0.4
   * releases: 0.88, 0.87 from TP 2, 0.85 from 4, 0.81 from 8, 0.79 from
   * 16) */
  if (!self->mem_fraction_static_set)
    self->mem_fraction_static = self->tensor_parallel >= 16 ? 0.79
                                : self->tensor_parallel >= 8 ? 0.81
                                : self->tensor_parallel >= 4 ? 0.85
                                : self->tensor_parallel >= 2 ? 0.87 : 0.88;

  /* llama.cpp offloads no layer unless -ngl says so; a scenario that names
   * llama.cpp without gpu_layers means the whole model on the GPU (every
   * layer and the output, -ngl 999 as its docs write it) */
  if (!self->gpu_layers_set && self->model != NULL)
    {
      guint layers = 0;

      for (guint i = 0; i < self->model->components->len; i++)
        {
          const HrComponent *c = g_ptr_array_index (self->model->components, i);

          if (c->kind == HR_COMPONENT_TRANSFORMER)
            layers += c->layers;
        }
      self->gpu_layers = layers + 1;
    }

  if (!self->optimizer_impl_set)
    self->optimizer_impl =
      self->stack_set && (self->stack == HR_STACK_TORCHTUNE || self->stack == HR_STACK_TORCHTITAN ||
                          self->stack == HR_STACK_TRANSFORMERS || self->stack == HR_STACK_TRL ||
                          self->stack == HR_STACK_AXOLOTL)
        ? HR_OPTIMIZER_IMPL_FUSED : HR_OPTIMIZER_IMPL_FOREACH;
}

/* Defaults a named stack gives to the contract's own keys when the file
 * does not set them; applied once, when the file is read, so that the
 * window's later choices stand. */
static void
apply_stack_defaults (HrScenario *self,
                      HrReader   *reader)
{
  if (!self->stack_set)
    return;

  /* torchtune recipes run the whole model in `dtype: bf16` (no autocast,
   * no fp32 master): full_finetune_distributed.py @bd2a0fc, "When
   * dtype=bf16, all activations, gradients and optimizer states are in
   * bfloat16". */
  if (!hr_reader_has (reader, "compute") && self->stack == HR_STACK_TORCHTUNE)
    self->compute = HR_COMPUTE_BF16_PURE;

  /* LitGPT's chunked_cross_entropy and torchtune's LinearCrossEntropyLoss
   * (torchtune/modules/loss/cross_entropy_loss.py @bd2a0fc) chunk the
   * loss; Unsloth fuses it with the output head. */
  if (!hr_reader_has (reader, "loss"))
    {
      if (self->stack == HR_STACK_LITGPT || self->stack == HR_STACK_TORCHTUNE)
        self->loss = HR_LOSS_CHUNKED;
      else if (self->stack == HR_STACK_UNSLOTH)
        self->loss = HR_LOSS_FUSED;
    }

  /* torchtune's and torchtitan's distributed recipes shard with FSDP2
   * (torchtune/training/_distributed.py shard_model); LitGPT and Lightning
   * with FSDPStrategy, FSDP1. */
  if (!hr_reader_has (reader, "sharding") && self->gpus > 1)
    {
      if (self->stack == HR_STACK_TORCHTUNE || self->stack == HR_STACK_TORCHTITAN)
        self->sharding = HR_SHARDING_FSDP;
      else if (self->stack == HR_STACK_LITGPT || self->stack == HR_STACK_LIGHTNING)
        self->sharding = HR_SHARDING_FSDP1;
    }
}

/* A new scenario for the window: the model's own defaults (its usual
 * batch, method and precision) on top of the contract's. */
HrScenario *
hr_scenario_new_for_model (const HrModel *model)
{
  HrScenario *self = g_new0 (HrScenario, 1);

  g_return_val_if_fail (model != NULL, NULL);

  apply_defaults (self);
  self->model = hr_model_copy (model);
  if (model->micro_batch > 0)
    self->micro_batch = model->micro_batch;
  if (model->has_method)
    self->method = model->method;
  if (model->has_compute)
    self->compute = model->compute;
  hr_scenario_resolve (self);
  return self;
}

HrScenario *
hr_scenario_copy (const HrScenario *scenario)
{
  HrScenario *copy;

  g_return_val_if_fail (scenario != NULL, NULL);

  hr_estimate_counters_count_copy ();
  copy = g_memdup2 (scenario, sizeof *scenario);
  copy->name = g_strdup (scenario->name);
  copy->model = scenario->model != NULL ? hr_model_copy (scenario->model) : NULL;
  copy->gpu = scenario->gpu != NULL ? hr_gpu_copy (scenario->gpu) : NULL;
  copy->kept = scenario->kept != NULL ? json_node_copy (scenario->kept) : NULL;
  return copy;
}

void
hr_scenario_free (HrScenario *scenario)
{
  if (scenario == NULL)
    return;

  g_free (scenario->name);
  g_clear_pointer (&scenario->model, hr_model_free);
  g_clear_pointer (&scenario->gpu, hr_gpu_free);
  g_clear_pointer (&scenario->kept, json_node_unref);
  g_free (scenario);
}

static gboolean
read_model (HrScenario *self,
            HrReader   *reader,
            HrCatalog  *catalog)
{
  JsonNode *node = hr_reader_get_node (reader, "model");
  g_autofree char *pointer = hr_reader_child_pointer (reader, "model");

  if (node == NULL)
    return hr_reader_require (reader, "model");

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *id = json_node_get_string (node);
      const HrModel *model = catalog != NULL ? hr_catalog_find_model (catalog, id) : NULL;

      if (model == NULL)
        {
          g_autofree char *hint = catalog != NULL ? hr_catalog_suggest_model (catalog, id) : NULL;

          if (hint != NULL)
            hr_json_doc_error (reader->doc, reader->error, HR_ERROR_NOT_FOUND, pointer, FALSE,
                               _("unknown model \"%s\"; did you mean \"%s\"? "
                                 "(`headroom-cli models` lists the catalog)"), id, hint);
          else
            hr_json_doc_error (reader->doc, reader->error, HR_ERROR_NOT_FOUND, pointer, FALSE,
                               _("unknown model \"%s\" (`headroom-cli models` lists the catalog)"),
                               id);
          return FALSE;
        }

      self->model = hr_model_copy (model);
      self->model_inline = FALSE;
      return TRUE;
    }

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      self->model = hr_model_from_json (reader->doc, pointer, node, reader->error);
      self->model_inline = TRUE;
      return self->model != NULL;
    }

  return hr_reader_fail (reader, "model",
                         _("\"model\" must be a catalog id (a string) or a model object"));
}

static gboolean
read_gpu (HrScenario *self,
          HrReader   *reader,
          HrCatalog  *catalog)
{
  JsonNode *node = hr_reader_get_node (reader, "gpu");
  g_autofree char *pointer = hr_reader_child_pointer (reader, "gpu");

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *id = json_node_get_string (node);
      const HrGpu *gpu = catalog != NULL ? hr_catalog_find_gpu (catalog, id) : NULL;

      if (gpu == NULL)
        {
          g_autofree char *hint = catalog != NULL ? hr_catalog_suggest_gpu (catalog, id) : NULL;

          if (hint != NULL)
            hr_json_doc_error (reader->doc, reader->error, HR_ERROR_NOT_FOUND, pointer, FALSE,
                               _("unknown GPU \"%s\"; did you mean \"%s\"? "
                                 "(`headroom-cli gpus` lists the catalog)"), id, hint);
          else
            hr_json_doc_error (reader->doc, reader->error, HR_ERROR_NOT_FOUND, pointer, FALSE,
                               _("unknown GPU \"%s\" (`headroom-cli gpus` lists the catalog)"),
                               id);
          return FALSE;
        }

      self->gpu = hr_gpu_copy (gpu);
      self->gpu_inline = FALSE;
      return TRUE;
    }

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      self->gpu = hr_gpu_from_json (reader->doc, pointer, node, reader->error);
      self->gpu_inline = TRUE;
      return self->gpu != NULL;
    }

  return hr_reader_fail (reader, "gpu", _("\"gpu\" must be a catalog id (a string) or a GPU "
                                          "object"));
}

/* "part_dtypes": {"<component name>": "fp32"}: a part whose weights are
 * stored in another dtype than "weights_dtype" (Wan's generate.py keeps
 * its DiT and VAE in fp32 beside a bf16 umT5). */
static gboolean
read_part_dtypes (HrScenario *self,
                  HrReader   *parent)
{
  HrReader reader;
  g_autofree char *pointer = hr_reader_child_pointer (parent, "part_dtypes");
  JsonNode *node = hr_reader_get_node (parent, "part_dtypes");
  GPtrArray *components = self->model->components;
  gboolean ok = TRUE;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return hr_reader_fail (parent, "part_dtypes",
                           _("\"part_dtypes\" must be an object of component names and "
                             "dtypes"));
  if (!hr_reader_init (&reader, parent->doc, pointer, node, "\"part_dtypes\"", parent->error))
    return FALSE;

  {
    g_autoptr(GList) members = json_object_get_members (json_node_get_object (node));

    for (GList *l = members; ok && l != NULL; l = l->next)
      {
        const char *name = l->data;
        int dtype = HR_DTYPE_FP32;
        guint index = G_MAXUINT;

        for (guint i = 0; i < components->len; i++)
          if (g_strcmp0 (((HrComponent *) g_ptr_array_index (components, i))->name, name) == 0)
            index = i;
        if (index == G_MAXUINT)
          ok = hr_reader_fail (&reader, name, _("the model has no component called \"%s\""),
                               name);
        else if (index >= HR_SCENARIO_MAX_PART_DTYPES)
          ok = hr_reader_fail (&reader, name, _("\"part_dtypes\" reaches the first %u "
                                                "components only"),
                               HR_SCENARIO_MAX_PART_DTYPES);
        else if (!hr_reader_enum (&reader, name, hr_weights_dtype_names, &dtype))
          ok = FALSE;
        else if (hr_dtype_is_quantized (dtype))
          ok = hr_reader_fail (&reader, name, _("a part's own dtype must be fp32, bf16 or "
                                                "fp16"));
        else
          self->part_dtype[index] = (guint8) (dtype + 1);
      }
  }
  hr_reader_clear (&reader);
  return ok;
}

gboolean
hr_scenario_get_part_dtype (const HrScenario  *self,
                            const HrComponent *component,
                            HrDtype           *dtype)
{
  GPtrArray *components = self->model != NULL ? self->model->components : NULL;

  for (guint i = 0; components != NULL && i < components->len &&
       i < HR_SCENARIO_MAX_PART_DTYPES; i++)
    if (g_ptr_array_index (components, i) == component ||
        g_strcmp0 (((HrComponent *) g_ptr_array_index (components, i))->name,
                   component->name) == 0)
      {
        if (self->part_dtype[i] == 0)
          return FALSE;
        *dtype = self->part_dtype[i] - 1;
        return TRUE;
      }
  return FALSE;
}

static gboolean
read_lora (HrScenario *self,
           HrReader   *parent)
{
  HrReader reader;
  g_autofree char *pointer = hr_reader_child_pointer (parent, "lora");
  guint64 rank = self->lora_rank;
  int targets = self->lora_targets;
  gboolean ok;

  if (!hr_reader_has (parent, "lora"))
    return TRUE;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, "lora"),
                       "\"lora\"", parent->error))
    return FALSE;

  ok = hr_reader_check_keys (&reader, lora_keys) &&
       hr_reader_uint (&reader, "rank", FALSE, 1, 65536, &rank);

  if (ok && hr_reader_has (&reader, "targets") &&
      JSON_NODE_HOLDS_ARRAY (hr_reader_get_node (&reader, "targets")))
    {
      JsonArray *array = json_node_get_array (hr_reader_get_node (&reader, "targets"));
      g_autofree char *array_pointer = hr_reader_child_pointer (&reader, "targets");
      guint mask = 0;

      if (json_array_get_length (array) == 0)
        ok = hr_reader_fail (&reader, "targets",
                             _("\"targets\" must name at least one module"));
      for (guint i = 0; ok && i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          int module = 0;

          if (!JSON_NODE_HOLDS_VALUE (element) ||
              json_node_get_value_type (element) != G_TYPE_STRING ||
              !hr_enum_from_nick (hr_module_names, json_node_get_string (element), &module))
            {
              g_autofree char *element_pointer = hr_json_pointer_append_index (array_pointer, i);
              g_autofree char *accepted = hr_enum_list_nicks (hr_module_names);

              hr_json_doc_error (reader.doc, reader.error, HR_ERROR_INVALID, element_pointer, FALSE,
                                 _("each module in \"targets\" must be %s"), accepted);
              ok = FALSE;
              break;
            }
          mask |= module;
        }
      targets = HR_LORA_TARGETS_CUSTOM;
      self->lora_modules = mask;
    }
  else if (ok)
    ok = hr_reader_enum (&reader, "targets", hr_lora_targets_names, &targets);
  self->lora_rank_set = hr_reader_has (&reader, "rank");
  self->lora_targets_set = hr_reader_has (&reader, "targets");
  hr_reader_clear (&reader);

  self->lora_set = TRUE;
  self->lora_rank = rank;
  self->lora_targets = targets;
  return ok;
}

#define DS_UINT(key, field, bit)                                               \
  G_STMT_START {                                                               \
    if (hr_reader_has (&reader, key))                                          \
      {                                                                        \
        if (!hr_reader_uint (&reader, key, FALSE, 0, G_GUINT64_CONSTANT (1) << 50, \
                             &ds->field))                                      \
          goto out;                                                            \
        ds->set |= bit;                                                        \
      }                                                                        \
  } G_STMT_END

/* DeepSpeed's offload_param / offload_optimizer: a device name, or the
 * object DeepSpeed's own config takes ({"device": "cpu", ...}). */
static gboolean
read_offload_device (HrReader        *reader,
                     const char      *key,
                     HrOffloadDevice *out,
                     gboolean        *present)
{
  JsonNode *node = hr_reader_get_node (reader, key);
  int value = *out;

  *present = node != NULL;
  if (node == NULL)
    return TRUE;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      HrReader inner;
      g_autofree char *pointer = hr_reader_child_pointer (reader, key);
      static const char * const offload_keys[] = {
        "device", "pin_memory", "nvme_path", "buffer_count", "buffer_size",
        "max_in_cpu", "pipeline_read", "pipeline_write", "fast_init", "ratio", NULL
      };
      gboolean ok;

      if (!hr_reader_init (&inner, reader->doc, pointer, node, key, reader->error))
        return FALSE;
      ok = hr_reader_check_keys (&inner, offload_keys) &&
           hr_reader_require (&inner, "device") &&
           hr_reader_enum (&inner, "device", hr_offload_device_names, &value);
      hr_reader_clear (&inner);
      if (!ok)
        return FALSE;
    }
  else if (!hr_reader_enum (reader, key, hr_offload_device_names, &value))
    return FALSE;

  *out = value;
  return TRUE;
}

static gboolean
read_deepspeed (HrScenario *self,
                HrReader   *parent)
{
  HrReader reader;
  g_autofree char *pointer = hr_reader_child_pointer (parent, "deepspeed");
  HrDeepSpeed *ds = &self->deepspeed;
  gboolean ok = FALSE;
  gboolean present;

  if (!hr_reader_has (parent, "deepspeed"))
    return TRUE;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, "deepspeed"),
                       "\"deepspeed\"", parent->error))
    return FALSE;

  if (!hr_reader_check_keys (&reader, deepspeed_keys))
    goto out;

  DS_UINT ("stage3_max_live_parameters", max_live_parameters, HR_DS_MAX_LIVE_PARAMETERS);
  DS_UINT ("stage3_prefetch_bucket_size", prefetch_bucket_size, HR_DS_PREFETCH_BUCKET_SIZE);
  DS_UINT ("stage3_param_persistence_threshold", param_persistence_threshold,
           HR_DS_PARAM_PERSISTENCE);
  DS_UINT ("reduce_bucket_size", reduce_bucket_size, HR_DS_REDUCE_BUCKET_SIZE);
  DS_UINT ("allgather_bucket_size", allgather_bucket_size, HR_DS_ALLGATHER_BUCKET_SIZE);
  DS_UINT ("stage3_max_reuse_distance", max_reuse_distance, HR_DS_MAX_REUSE_DISTANCE);
  DS_UINT ("sub_group_size", sub_group_size, HR_DS_SUB_GROUP_SIZE);

  if (!read_offload_device (&reader, "offload_param", &ds->offload_param, &present))
    goto out;
  if (present)
    ds->set |= HR_DS_OFFLOAD_PARAM;
  if (!read_offload_device (&reader, "offload_optimizer", &ds->offload_optimizer, &present))
    goto out;
  if (present)
    ds->set |= HR_DS_OFFLOAD_OPTIMIZER;

  if (hr_reader_has (&reader, "overlap_comm"))
    {
      if (!hr_reader_bool (&reader, "overlap_comm", &ds->overlap_comm))
        goto out;
      ds->set |= HR_DS_OVERLAP_COMM;
    }
  if (hr_reader_has (&reader, "contiguous_gradients"))
    {
      if (!hr_reader_bool (&reader, "contiguous_gradients", &ds->contiguous_gradients))
        goto out;
      ds->set |= HR_DS_CONTIGUOUS_GRADIENTS;
    }

  self->has_deepspeed = TRUE;
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

#undef DS_UINT

#define PEFT_UINT(key, min, max, field, bit)                                   \
  G_STMT_START {                                                               \
    if (hr_reader_has (&reader, key))                                          \
      {                                                                        \
        guint64 v_ = peft->field;                                              \
        if (!hr_reader_uint (&reader, key, FALSE, min, max, &v_))              \
          goto out;                                                            \
        peft->field = v_;                                                      \
        peft->set |= bit;                                                      \
      }                                                                        \
  } G_STMT_END

static gboolean
read_peft (HrScenario *self,
           HrReader   *parent)
{
  HrReader reader;
  g_autofree char *pointer = hr_reader_child_pointer (parent, "peft");
  HrPeft *peft = &self->peft;
  gboolean ok = FALSE;

  if (!hr_reader_has (parent, "peft"))
    return TRUE;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, "peft"),
                       "\"peft\"", parent->error))
    return FALSE;

  if (!hr_reader_check_keys (&reader, peft_keys))
    goto out;

  PEFT_UINT ("num_virtual_tokens", 1, 1 << 20, num_virtual_tokens, HR_PEFT_NUM_VIRTUAL_TOKENS);
  PEFT_UINT ("encoder_hidden_size", 1, 1 << 20, encoder_hidden_size,
             HR_PEFT_ENCODER_HIDDEN_SIZE);
  PEFT_UINT ("block_size", 1, 1 << 16, block_size, HR_PEFT_BLOCK_SIZE);
  PEFT_UINT ("n_butterfly_factor", 0, 64, n_butterfly_factor, HR_PEFT_N_BUTTERFLY_FACTOR);
  PEFT_UINT ("init_r", 1, 65536, init_r, HR_PEFT_INIT_R);
  PEFT_UINT ("target_r", 1, 65536, target_r, HR_PEFT_TARGET_R);
  if (hr_reader_has (&reader, "d_initial"))
    {
      if (!hr_reader_double (&reader, "d_initial", FALSE, -1e6, 1e6, &peft->d_initial))
        goto out;
      peft->set |= HR_PEFT_D_INITIAL;
    }
  if (hr_reader_has (&reader, "save_projection"))
    {
      if (!hr_reader_bool (&reader, "save_projection", &peft->save_projection))
        goto out;
      peft->set |= HR_PEFT_SAVE_PROJECTION;
    }

  if (hr_reader_has (&reader, "prefix_projection"))
    {
      if (!hr_reader_bool (&reader, "prefix_projection", &peft->prefix_projection))
        goto out;
      peft->set |= HR_PEFT_PREFIX_PROJECTION;
    }
  if (hr_reader_has (&reader, "decompose_both"))
    {
      if (!hr_reader_bool (&reader, "decompose_both", &peft->decompose_both))
        goto out;
      peft->set |= HR_PEFT_DECOMPOSE_BOTH;
    }
  if (hr_reader_has (&reader, "decompose_factor"))
    {
      JsonNode *node = hr_reader_get_node (&reader, "decompose_factor");
      gint64 v = 0;

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
        v = json_node_get_int (node);
      if (v != -1 && (v < 1 || v > 65536))
        {
          hr_reader_fail (&reader, "decompose_factor",
                          _("\"decompose_factor\" must be -1 (near the square root) or an "
                            "integer from 1 to 65536"));
          goto out;
        }
      peft->decompose_factor = (int) v;
      peft->set |= HR_PEFT_DECOMPOSE_FACTOR;
    }

  self->has_peft = TRUE;
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

#undef PEFT_UINT

static gboolean
read_replay (HrScenario *self,
             HrReader   *parent)
{
  HrReader reader;
  g_autofree char *pointer = hr_reader_child_pointer (parent, "replay");
  g_autofree char *shape_pointer = NULL;
  JsonNode *shape;
  guint64 steps = 0;
  int dtype = HR_DTYPE_UINT8;
  gboolean ok = FALSE;

  if (!hr_reader_has (parent, "replay"))
    return TRUE;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, "replay"),
                       "\"replay\"", parent->error))
    return FALSE;

  if (!hr_reader_check_keys (&reader, replay_keys) ||
      !hr_reader_uint (&reader, "steps", TRUE, 1, G_GUINT64_CONSTANT (1) << 40, &steps) ||
      !hr_reader_require (&reader, "obs_shape") ||
      !hr_reader_enum (&reader, "obs_dtype", hr_obs_dtype_names, &dtype))
    goto out;

  shape = hr_reader_get_node (&reader, "obs_shape");
  shape_pointer = hr_reader_child_pointer (&reader, "obs_shape");
  if (!JSON_NODE_HOLDS_ARRAY (shape) || json_array_get_length (json_node_get_array (shape)) == 0 ||
      json_array_get_length (json_node_get_array (shape)) > G_N_ELEMENTS (self->replay.obs_shape))
    {
      hr_reader_fail (&reader, "obs_shape",
                      _("\"obs_shape\" must be an array of 1 to %u dimensions, such as [224, "
                        "224, 3]"),
                      (guint) G_N_ELEMENTS (self->replay.obs_shape));
      goto out;
    }

  for (guint i = 0; i < json_array_get_length (json_node_get_array (shape)); i++)
    {
      JsonNode *dim = json_array_get_element (json_node_get_array (shape), i);

      if (!JSON_NODE_HOLDS_VALUE (dim) || json_node_get_value_type (dim) != G_TYPE_INT64 ||
          json_node_get_int (dim) < 1 || json_node_get_int (dim) > (1 << 24))
        {
          g_autofree char *dim_pointer = hr_json_pointer_append_index (shape_pointer, i);

          hr_json_doc_error (reader.doc, reader.error, HR_ERROR_INVALID, dim_pointer, FALSE,
                             _("each dimension of \"obs_shape\" must be a positive integer"));
          goto out;
        }
      self->replay.obs_shape[i] = json_node_get_int (dim);
      self->replay.obs_rank = i + 1;
    }

  self->has_replay = TRUE;
  self->replay.steps = steps;
  self->replay.obs_dtype = dtype;
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

/* The first transformer part's layer count, for the pipeline's bounds. */
static guint
transformer_layers (const HrScenario *self)
{
  for (guint i = 0; i < self->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (self->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER)
        return c->layers;
    }
  return 0;
}

static const HrComponent *
moe_component (const HrScenario *self)
{
  for (guint i = 0; i < self->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (self->model->components, i);

      if (hr_component_is_moe (c))
        return c;
    }
  return NULL;
}

static gboolean
read_degree (HrReader   *reader,
             const char *key,
             guint      *field)
{
  guint64 v = *field;

  if (!hr_reader_uint (reader, key, FALSE, 1, MAX_GPUS, &v))
    return FALSE;
  *field = (guint) v;
  return TRUE;
}

/* Tensor, pipeline, context and expert parallelism, mixtures of experts'
 * capacity, and the serving engines' keys, with the combinations their
 * frameworks refuse. */
/* The degrees of tensor, pipeline, context and expert parallelism, and
 * whether the job's GPUs and the model's layers and experts allow them. */
static gboolean
read_parallel (HrScenario *self,
               HrReader   *reader)
{
  const HrComponent *moe = moe_component (self);
  guint layers = transformer_layers (self);
  guint64 model_parallel;
  guint chunks;
  int v;

  if (!read_degree (reader, "tensor_parallel", &self->tensor_parallel) ||
      !hr_reader_bool (reader, "sequence_parallel", &self->sequence_parallel) ||
      !read_degree (reader, "pipeline_parallel", &self->pipeline_parallel) ||
      !read_degree (reader, "context_parallel", &self->context_parallel) ||
      !read_degree (reader, "expert_parallel", &self->expert_parallel))
    return FALSE;

  v = self->pipeline_schedule;
  if (!hr_reader_enum (reader, "pipeline_schedule", hr_pipeline_schedule_names, &v))
    return FALSE;
  self->pipeline_schedule = v;
  if (hr_reader_has (reader, "virtual_stages"))
    {
      if (!read_degree (reader, "virtual_stages", &self->virtual_stages))
        return FALSE;
      self->virtual_stages_set = TRUE;
      if (self->pipeline_schedule != HR_PIPELINE_INTERLEAVED)
        return hr_reader_fail (reader, "virtual_stages",
                               _("\"virtual_stages\" are model chunks of the interleaved "
                                 "schedule: set \"pipeline_schedule\" to \"interleaved\""));
    }

  if (hr_reader_has (reader, "capacity_factor"))
    {
      if (!hr_reader_double (reader, "capacity_factor", FALSE, 0.01, 64.0,
                             &self->capacity_factor))
        return FALSE;
      self->capacity_factor_set = TRUE;
      if (moe == NULL)
        return hr_reader_fail (reader, "capacity_factor",
                               _("\"capacity_factor\" limits the tokens each expert takes: the "
                                 "model has no experts"));
    }

  /* the job's GPUs are tensor x pipeline x context x data parallel
   * (Megatron's parallel_state.initialize_model_parallel; torchtitan's
   * ParallelDims: "dp_replicate * dp_shard * cp * tp * pp != WORLD_SIZE") */
  model_parallel = (guint64) self->tensor_parallel * self->pipeline_parallel *
                   self->context_parallel;
  if (model_parallel > MAX_GPUS || self->gpus % model_parallel != 0)
    return hr_reader_fail (reader, "gpus",
                           _("\"gpus\" (%u) must be a multiple of tensor_parallel × "
                             "pipeline_parallel × context_parallel (%u × %u × %u)"),
                           self->gpus, self->tensor_parallel, self->pipeline_parallel,
                           self->context_parallel);

  chunks = self->virtual_stages_set ? self->virtual_stages
           : self->pipeline_schedule == HR_PIPELINE_INTERLEAVED ? 2 : 1;
  if (self->pipeline_parallel > 1 && layers > 0 &&
      (guint64) self->pipeline_parallel * chunks > layers)
    return hr_reader_fail (reader, "pipeline_parallel",
                           _("%u pipeline stages of %u model chunks each need at least as many "
                             "layers; the model has %u"),
                           self->pipeline_parallel, chunks, layers);

  if (self->expert_parallel > 1)
    {
      /* experts are split over ranks that hold the same dense weights:
       * data-parallel (and context-parallel) ranks in Megatron
       * (expert_model_parallel_size divides the data-parallel group) */
      if (moe == NULL)
        return hr_reader_fail (reader, "expert_parallel",
                               _("\"expert_parallel\" splits a mixture of experts: the model "
                                 "has no experts"));
      if (moe->experts % self->expert_parallel != 0)
        return hr_reader_fail (reader, "expert_parallel",
                               _("\"expert_parallel\" (%u) must divide the %u experts"),
                               self->expert_parallel, moe->experts);
      if ((self->gpus / (self->tensor_parallel * self->pipeline_parallel)) %
          self->expert_parallel != 0)
        return hr_reader_fail (reader, "expert_parallel",
                               _("\"expert_parallel\" (%u) must divide the %u GPUs each "
                                 "tensor- and pipeline-parallel group is repeated on"),
                               self->expert_parallel,
                               self->gpus / (self->tensor_parallel * self->pipeline_parallel));
    }

  return TRUE;
}

/* A serving engine and its keys, and beam search. */
static gboolean
read_serving (HrScenario *self,
              HrReader   *reader)
{
  int v;

  if (hr_reader_has (reader, "engine"))
    {
      v = self->engine;
      if (!hr_reader_enum (reader, "engine", hr_engine_names, &v))
        return FALSE;
      self->engine = v;
      self->engine_set = TRUE;
    }
  if (self->engine != HR_ENGINE_TRANSFORMERS && self->task != HR_TASK_INFERENCE)
    return hr_reader_fail (reader, "engine",
                           _("\"engine\": \"%s\" serves a model: set \"task\" to "
                             "\"inference\""),
                           hr_enum_to_nick (hr_engine_names, self->engine));

  if (hr_reader_has (reader, "gpu_memory_utilization"))
    {
      if (self->engine != HR_ENGINE_VLLM)
        return hr_reader_fail (reader, "gpu_memory_utilization",
                               _("\"gpu_memory_utilization\" is vLLM's: set \"engine\" to "
                                 "\"vllm\""));
      if (!hr_reader_double (reader, "gpu_memory_utilization", FALSE, 0.01, 1.0,
                             &self->gpu_memory_utilization))
        return FALSE;
      self->gpu_memory_utilization_set = TRUE;
    }
  if (hr_reader_has (reader, "mem_fraction_static"))
    {
      if (self->engine != HR_ENGINE_SGLANG)
        return hr_reader_fail (reader, "mem_fraction_static",
                               _("\"mem_fraction_static\" is SGLang's: set \"engine\" to "
                                 "\"sglang\""));
      if (!hr_reader_double (reader, "mem_fraction_static", FALSE, 0.01, 1.0,
                             &self->mem_fraction_static))
        return FALSE;
      self->mem_fraction_static_set = TRUE;
    }
  if (hr_reader_has (reader, "max_num_seqs") || hr_reader_has (reader, "enforce_eager") ||
      hr_reader_has (reader, "block_size"))
    {
      const char *key = hr_reader_has (reader, "max_num_seqs") ? "max_num_seqs"
                        : hr_reader_has (reader, "enforce_eager") ? "enforce_eager"
                        : "block_size";
      guint64 n = self->max_num_seqs, b = self->block_size;

      if (self->engine != HR_ENGINE_VLLM && self->engine != HR_ENGINE_SGLANG)
        return hr_reader_fail (reader, key,
                               _("\"%s\" is a serving engine's: set \"engine\" to "
                                 "\"vllm\" or \"sglang\""), key);
      if (!hr_reader_uint (reader, "max_num_seqs", FALSE, 1, 1 << 20, &n) ||
          !hr_reader_bool (reader, "enforce_eager", &self->enforce_eager) ||
          !hr_reader_uint (reader, "block_size", FALSE, 1, 1 << 16, &b))
        return FALSE;
      self->max_num_seqs = n;
      self->max_num_seqs_set = hr_reader_has (reader, "max_num_seqs");
      self->block_size = b;
      self->block_size_set = hr_reader_has (reader, "block_size");
    }
  if (hr_reader_has (reader, "gpu_layers"))
    {
      guint64 n = 0;

      if (self->engine != HR_ENGINE_LLAMACPP)
        return hr_reader_fail (reader, "gpu_layers",
                               _("\"gpu_layers\" is llama.cpp's -ngl: set \"engine\" to "
                                 "\"llama.cpp\""));
      if (!hr_reader_uint (reader, "gpu_layers", FALSE, 0, 1 << 20, &n))
        return FALSE;
      self->gpu_layers = n;
      self->gpu_layers_set = TRUE;
    }
  if (hr_reader_has (reader, "compute_type"))
    {
      if (self->engine != HR_ENGINE_CTRANSLATE2)
        return hr_reader_fail (reader, "compute_type",
                               _("\"compute_type\" is CTranslate2's: set \"engine\" to "
                                 "\"ctranslate2\" (otherwise \"weights_dtype\" and "
                                 "\"compute\" say it)"));
      v = self->ct2_compute_type;
      if (!hr_reader_enum (reader, "compute_type", hr_ct2_compute_type_names, &v))
        return FALSE;
      self->ct2_compute_type = v;
      self->ct2_compute_type_set = TRUE;
    }
  if (self->engine == HR_ENGINE_CTRANSLATE2)
    {
      HrDtype weights, kv;
      HrCompute compute;

      hr_ct2_compute_type_resolve (self->ct2_compute_type, &weights, &compute, &kv);
      /* the explicit keys may restate what compute_type says, not contradict it */
      if (hr_reader_has (reader, "weights_dtype") && self->weights_dtype != weights)
        return hr_reader_fail (reader, "weights_dtype",
                               _("\"weights_dtype\" disagrees with CTranslate2's "
                                 "\"compute_type\": \"%s\" stores its weights in %s"),
                               hr_enum_to_nick (hr_ct2_compute_type_names,
                                                self->ct2_compute_type),
                               hr_enum_to_nick (hr_weights_dtype_names, weights));
      if (hr_reader_has (reader, "compute") && self->compute != compute)
        return hr_reader_fail (reader, "compute",
                               _("\"compute\" disagrees with CTranslate2's \"compute_type\": "
                                 "\"%s\" runs in %s"),
                               hr_enum_to_nick (hr_ct2_compute_type_names,
                                                self->ct2_compute_type),
                               hr_enum_to_nick (hr_compute_names, compute));
      self->weights_dtype = weights;
      self->weights_dtype_set = TRUE;
      self->compute = compute;
      self->kv_dtype = kv;
    }
  if (hr_reader_has (reader, "beams"))
    {
      guint64 n = 1;

      if (self->task != HR_TASK_INFERENCE)
        return hr_reader_fail (reader, "beams",
                               _("\"beams\" is beam search while decoding: it needs "
                                 "\"task\": \"inference\""));
      if (!hr_reader_uint (reader, "beams", FALSE, 1, 1 << 16, &n))
        return FALSE;
      self->beams = n;
    }
  if (self->engine == HR_ENGINE_LLAMACPP &&
      (self->tensor_parallel > 1 || self->pipeline_parallel > 1))
    return hr_reader_fail (reader, self->tensor_parallel > 1 ? "tensor_parallel"
                                                             : "pipeline_parallel",
                           _("llama.cpp splits a model over GPUs by layers of its own "
                             "(--split-mode): leave out tensor_parallel and "
                             "pipeline_parallel"));
  return TRUE;
}

static gboolean
read_parallel_and_serving (HrScenario *self,
                           HrReader   *reader)
{
  return read_parallel (self, reader) && read_serving (self, reader);
}

#define READ_ENUM(key, names, field)                          \
  G_STMT_START {                                              \
    int v_ = (int) self->field;                               \
    if (!hr_reader_enum (reader, key, names, &v_))            \
      goto out;                                               \
    self->field = v_;                                         \
  } G_STMT_END

#define READ_UINT(key, min, max, field)                                   \
  G_STMT_START {                                                          \
    guint64 v_ = self->field;                                             \
    if (!hr_reader_uint (reader, key, FALSE, min, max, &v_))              \
      goto out;                                                           \
    self->field = v_;                                                     \
  } G_STMT_END

/* ---- keys kept for saving ---- */

/* The "x-" members of @object, and of the objects inside it, as an object
 * of the same shape; NULL when there are none.  Arrays are kept whole
 * when they sit under an "x-" key, and not looked into otherwise (an
 * array's elements have no names to put a key back by). */
static JsonObject *
keep_unread (JsonObject *object)
{
  JsonObject *kept = NULL;
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &key, &value))
    {
      JsonNode *node = NULL;

      if (g_str_has_prefix (key, "x-"))
        node = json_node_copy (value);
      else if (JSON_NODE_HOLDS_OBJECT (value))
        {
          JsonObject *inner = keep_unread (json_node_get_object (value));

          if (inner != NULL)
            {
              node = json_node_new (JSON_NODE_OBJECT);
              json_node_take_object (node, inner);
            }
        }
      if (node == NULL)
        continue;
      if (kept == NULL)
        kept = json_object_new ();
      json_object_set_member (kept, key, node);
    }
  return kept;
}

/* Puts @kept's members back into @object: an "x-" key as it was, unless
 * @object has one of that name; an object into the member of that name
 * when @object still has it as an object (a part the scenario no longer
 * has, such as "lora" after the method changed, takes its keys with it). */
static void
restore_unread (JsonObject *object,
                JsonObject *kept)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, kept);
  while (json_object_iter_next (&iter, &key, &value))
    {
      if (g_str_has_prefix (key, "x-"))
        {
          if (!json_object_has_member (object, key))
            json_object_set_member (object, key, json_node_copy (value));
        }
      else if (json_object_has_member (object, key))
        {
          JsonNode *there = json_object_get_member (object, key);

          if (JSON_NODE_HOLDS_OBJECT (there) && JSON_NODE_HOLDS_OBJECT (value))
            restore_unread (json_node_get_object (there), json_node_get_object (value));
        }
    }
}

/* The task, method, precision, optimizer and batch shape. */
static gboolean
read_task_keys (HrScenario *self,
                HrReader   *reader)
{
  READ_ENUM ("task", hr_task_names, task);
  READ_ENUM ("method", hr_method_names, method);

  if (hr_reader_has (reader, "trainable_params"))
    {
      if (!hr_reader_uint (reader, "trainable_params", FALSE, 0, self->model->params,
                           &self->trainable_params))
        goto out;
      self->trainable_params_set = TRUE;
    }

  if (!read_lora (self, reader) || !read_part_dtypes (self, reader))
    goto out;

  if (hr_reader_has (reader, "weights_dtype"))
    {
      READ_ENUM ("weights_dtype", hr_weights_dtype_names, weights_dtype);
      self->weights_dtype_set = TRUE;
    }

  READ_ENUM ("compute", hr_compute_names, compute);

  if (hr_reader_has (reader, "optimizer"))
    {
      READ_ENUM ("optimizer", hr_optimizer_names, optimizer);
      self->optimizer_set = TRUE;
    }

  READ_UINT ("micro_batch", 1, MAX_MICRO_BATCH, micro_batch);
  READ_UINT ("grad_accum", 1, MAX_MICRO_BATCH, grad_accum);

  if (hr_reader_has (reader, "seq_len"))
    {
      READ_UINT ("seq_len", 1, MAX_SEQ_LEN, seq_len);
      self->seq_len_set = TRUE;
    }

  if (hr_reader_has (reader, "image_size"))
    {
      if (!hr_reader_size (reader, "image_size", MAX_IMAGE_SIDE, &self->image_width,
                           &self->image_height))
        goto out;
      self->image_size_set = TRUE;
    }

  return TRUE;

out:
  return FALSE;
}

/* Recomputation, loss, attention, GPUs and sharding, offload, framework,
 * and the KV cache of inference. */
static gboolean
read_runtime_keys (HrScenario *self,
                   HrReader   *reader)
{
  READ_ENUM ("recompute", hr_recompute_names, recompute);
  READ_ENUM ("loss", hr_loss_names, loss);
  READ_ENUM ("attention", hr_attention_names, attention);
  READ_UINT ("gpus", 1, MAX_GPUS, gpus);
  READ_ENUM ("sharding", hr_sharding_names, sharding);
  {
    JsonNode *node = hr_reader_get_node (reader, "sharding");

    self->sharding_unversioned = node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
                                 json_node_get_value_type (node) == G_TYPE_STRING &&
                                 g_strcmp0 (json_node_get_string (node), "fsdp") == 0;
  }
  READ_ENUM ("offload", hr_offload_names, offload);

  if (hr_reader_has (reader, "framework"))
    {
      READ_ENUM ("framework", hr_framework_names, framework);
      self->framework_set = TRUE;
    }

  if (!hr_reader_bool (reader, "jax_preallocate", &self->jax_preallocate))
    goto out;

  if (hr_reader_has (reader, "context_len"))
    {
      READ_UINT ("context_len", 1, MAX_SEQ_LEN, context_len);
      self->context_len_set = TRUE;
    }

  READ_ENUM ("kv_dtype", hr_kv_dtype_names, kv_dtype);
  READ_ENUM ("causal_mask", hr_causal_mask_names, causal_mask);

  return TRUE;

out:
  return FALSE;
}

/* GaLore's and APOLLO's ranks, Q-GaLore's and Q-APOLLO's int8 weights,
 * the task the causal mask needs, and the quantised compute dtype. */
static gboolean
read_rank_and_int8_keys (HrScenario *self,
                         HrReader   *reader)
{
  READ_UINT ("galore_rank", 1, 65536, galore_rank);
  READ_UINT ("apollo_rank", 1, 65536, apollo_rank);
  if (hr_reader_has (reader, "apollo_rank") && self->optimizer != HR_OPTIMIZER_APOLLO_ADAMW)
    {
      hr_reader_fail (reader, "apollo_rank",
                      self->optimizer == HR_OPTIMIZER_APOLLO_MINI
                        ? _("\"apollo_rank\": APOLLO-Mini projects to rank 1; set \"optimizer\" "
                            "to \"apollo-adamw\" for another rank")
                        : _("\"apollo_rank\" is APOLLO's projection rank: set \"optimizer\" to "
                            "\"apollo-adamw\""));
      goto out;
    }
  /* Q-GaLore's --weight_quant holds the linears in int8 and asserts a
   * Q-GaLore optimizer (run_pretrain.py @dd09cd3); APOLLO's main_pretrain.py
   * @76b3472 does the same for its q_apollo optimizers */
  if (hr_reader_has (reader, "int8_weights"))
    {
      if (!hr_reader_bool (reader, "int8_weights", &self->int8_weights))
        goto out;
      self->int8_weights_set = TRUE;
      if (self->int8_weights && !hr_scenario_can_int8_weights (self))
        {
          hr_reader_fail (reader, "int8_weights",
                          _("\"int8_weights\" holds the trained linears in int8 as Q-GaLore "
                            "and Q-APOLLO do: set \"optimizer\" to \"q-galore-adamw-8bit\", "
                            "\"apollo-adamw\" or \"apollo-mini\""));
          goto out;
        }
    }
  READ_UINT ("int8_weight_group", 1, 1u << 20, int8_weight_group);
  if (hr_reader_has (reader, "int8_weight_group") && !hr_scenario_int8_weights (self))
    {
      hr_reader_fail (reader, "int8_weight_group",
                      _("\"int8_weight_group\" sizes the groups of int8 weights: it needs "
                        "\"int8_weights\""));
      goto out;
    }
  if (self->causal_mask != HR_CAUSAL_MASK_NONE && self->task != HR_TASK_INFERENCE)
    {
      hr_reader_fail (reader, "causal_mask",
                      _("\"causal_mask\" is the mask buffer beside a static KV cache: it needs "
                        "\"task\": \"inference\""));
      goto out;
    }

  if (hr_reader_has (reader, "quant_compute_dtype"))
    {
      READ_ENUM ("quant_compute_dtype", hr_quant_compute_dtype_names, quant_compute_dtype);
      self->quant_compute_dtype_set = TRUE;
    }
  READ_ENUM ("quant_method", hr_quant_method_names, quant_method);

  return TRUE;

out:
  return FALSE;
}

/* "pytorch_version" and "transformers_version": "MAJOR.MINOR", or with
 * a patch release ("1.10.2"); the patch does not matter to what the
 * estimate reads from them. */
static gboolean
read_version (HrReader   *reader,
              const char *key,
              gboolean   *set,
              guint      *major_out,
              guint      *minor_out)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;
  guint64 major = 0, minor = 0, patch = 0;
  guint n;

  if (!hr_reader_has (reader, key))
    return TRUE;
  {
    JsonNode *node = hr_reader_get_node (reader, key);

    /* 1.10 as a number reads as 1.1 */
    if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) != G_TYPE_STRING &&
        json_node_get_value_type (node) != G_TYPE_BOOLEAN)
      return hr_reader_fail (reader, key,
                             _("\"%s\" is written as a string, such as \"1.5\" "
                               "(as a number 1.10 would read as 1.1)"), key);
  }
  if (!hr_reader_string (reader, key, FALSE, &text))
    return FALSE;
  parts = g_strsplit (text, ".", -1);
  n = g_strv_length (parts);
  if (n < 2 || n > 3 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, 99, &major, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 0, 999, &minor, NULL) ||
      (n == 3 && !g_ascii_string_to_unsigned (parts[2], 10, 0, 999, &patch, NULL)))
    return hr_reader_fail (reader, key,
                           _("\"%s\" must be a release as \"MAJOR.MINOR\", such as "
                             "\"1.5\" or \"2.1\"; \"%s\" is not one"), key, text);
  *set = TRUE;
  *major_out = major;
  *minor_out = minor;
  return TRUE;
}

/* The stack, its switches, the diffusion and detection keys, and the
 * optimizer's implementation. */
static gboolean
read_stack_and_switches (HrScenario *self,
                         HrReader   *reader)
{
  if (hr_reader_has (reader, "stack"))
    {
      JsonNode *node = hr_reader_get_node (reader, "stack");

      /* "none": the generic estimate, as if the key were absent */
      if (!(JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
            g_strcmp0 (json_node_get_string (node), "none") == 0))
        {
          READ_ENUM ("stack", hr_stack_names, stack);
          self->stack_set = TRUE;
        }
    }
  if (hr_reader_has (reader, "reshard_after_forward"))
    {
      if (!hr_reader_bool (reader, "reshard_after_forward", &self->reshard_after_forward))
        goto out;
      self->reshard_after_forward_set = TRUE;
    }
  if (hr_reader_has (reader, "zero_grad_set_to_none"))
    {
      if (!hr_reader_bool (reader, "zero_grad_set_to_none", &self->zero_grad_set_to_none))
        goto out;
      self->zero_grad_set_to_none_set = TRUE;
    }
  if (!hr_reader_bool (reader, "optimizer_in_bwd", &self->optimizer_in_bwd) ||
      !hr_reader_bool (reader, "activation_offload", &self->activation_offload) ||
      !hr_reader_bool (reader, "compile", &self->compile) ||
      !hr_reader_bool (reader, "packed", &self->packed) ||
      !hr_reader_bool (reader, "ema", &self->ema) ||
      !hr_reader_bool (reader, "prior_preservation", &self->prior_preservation) ||
      !hr_reader_bool (reader, "vae_tiling", &self->vae_tiling) ||
      !hr_reader_bool (reader, "train_text_encoder", &self->train_text_encoder) ||
      !hr_reader_bool (reader, "cache_latents", &self->cache_latents) ||
      !hr_reader_bool (reader, "text_encoder_cpu", &self->text_encoder_cpu) ||
      !hr_reader_bool (reader, "offload_model", &self->offload_model))
    goto out;
  if (hr_reader_has (reader, "frames"))
    {
      READ_UINT ("frames", 1, 1 << 16, frames);
      self->frames_set = TRUE;
    }
  READ_UINT ("num_classes", 1, 1 << 20, num_classes);
  READ_UINT ("max_objects", 1, 1 << 20, max_objects);
  if (!read_version (reader, "pytorch_version", &self->pytorch_version_set,
                     &self->pytorch_major, &self->pytorch_minor) ||
      !read_version (reader, "transformers_version", &self->transformers_version_set,
                     &self->transformers_major, &self->transformers_minor) ||
      !hr_reader_bool (reader, "fuse_layers", &self->fuse_layers) ||
      !hr_reader_bool (reader, "previous_cache_freed", &self->previous_cache_freed) ||
      !hr_reader_bool (reader, "pairwise_iou_keeps_corners", &self->pairwise_iou_keeps_corners))
    goto out;
  if (hr_reader_has (reader, "detection_framework"))
    {
      READ_ENUM ("detection_framework", hr_detection_framework_names, detection_framework);
      self->detection_framework_set = TRUE;
    }
  if (hr_reader_has (reader, "focal_loss"))
    {
      READ_ENUM ("focal_loss", hr_arch_focal_names, focal_loss);
      self->focal_loss_set = TRUE;
    }
  READ_UINT ("vae_encode_frames", 1, 1 << 16, vae_encode_frames);
  READ_ENUM ("pipeline_offload", hr_pipeline_offload_names, pipeline_offload);
  READ_ENUM ("pipeline_library", hr_pipeline_library_names, pipeline_library);
  if (self->pipeline_offload != HR_PIPELINE_OFFLOAD_NONE && self->task != HR_TASK_INFERENCE)
    {
      hr_reader_fail (reader, "pipeline_offload",
                      _("\"pipeline_offload\" moves a pipeline's models between the CPU and "
                        "the GPU as they run: it needs \"task\": \"inference\""));
      goto out;
    }
  if (hr_reader_has (reader, "audio_seconds"))
    {
      if (!hr_reader_double (reader, "audio_seconds", FALSE, 0.01, HR_ARCH_MAX_AUDIO_SECONDS,
                             &self->audio_seconds))
        goto out;
      self->audio_seconds_set = TRUE;
    }
  READ_UINT ("sample_rate", 1000, 384000, sample_rate);
  if (hr_reader_has (reader, "optimizer_impl"))
    {
      READ_ENUM ("optimizer_impl", hr_optimizer_impl_names, optimizer_impl);
      self->optimizer_impl_set = TRUE;
    }
  if (hr_reader_has (reader, "optimizer_state_dtype"))
    {
      READ_ENUM ("optimizer_state_dtype", hr_state_dtype_names, optimizer_state_dtype);
      self->optimizer_state_dtype_set = TRUE;
    }

  return TRUE;

out:
  return FALSE;
}

/* Combinations that cannot be what the user meant. */
static gboolean
check_combinations (HrScenario *self,
                    HrReader   *reader)
{
  if (self->quant_method != HR_QUANT_METHOD_BITSANDBYTES &&
      self->weights_dtype != HR_DTYPE_INT4 && self->weights_dtype != HR_DTYPE_INT8)
    {
      hr_reader_fail (reader, "quant_method",
                      _("\"quant_method\" \"%s\" needs \"weights_dtype\" int4 or int8 (the "
                        "checkpoint's packed codes), not \"%s\""),
                      hr_enum_to_nick (hr_quant_method_names, self->quant_method),
                      hr_enum_to_nick (hr_weights_dtype_names, self->weights_dtype));
      goto out;
    }
  if (self->quant_method == HR_QUANT_METHOD_AWQ && self->weights_dtype != HR_DTYPE_INT4)
    {
      /* AutoAWQ's linear layers are 4-bit (awq/modules/linear/gemm.py
       * @88e4c76: WQLinear_GEMM raises NotImplementedError for any other
       * w_bit) */
      hr_reader_fail (reader, "quant_method",
                      _("AWQ checkpoints are 4-bit: \"quant_method\" \"awq\" needs "
                        "\"weights_dtype\" \"int4\""));
      goto out;
    }
  if (self->fuse_layers &&
      (self->quant_method != HR_QUANT_METHOD_AWQ || self->task != HR_TASK_INFERENCE ||
       self->engine != HR_ENGINE_TRANSFORMERS))
    {
      /* AutoAWQ's from_quantized(fuse_layers=True) replaces the decoder
       * layers of a quantised checkpoint for generation */
      hr_reader_fail (reader, "fuse_layers",
                      _("\"fuse_layers\" is AutoAWQ's fused inference modules: it needs "
                        "\"task\" \"inference\" and \"quant_method\" \"awq\""));
      goto out;
    }

  if (self->method == HR_METHOD_QLORA && self->weights_dtype_set &&
      self->weights_dtype != HR_DTYPE_NF4 && self->weights_dtype != HR_DTYPE_INT4)
    {
      hr_reader_fail (reader, "weights_dtype",
                      _("\"method\": \"qlora\" keeps the frozen weights in 4 bits, so "
                        "\"weights_dtype\" must be \"nf4\" or \"int4\", not \"%s\""),
                      hr_enum_to_nick (hr_weights_dtype_names, self->weights_dtype));
      goto out;
    }

  if (self->task == HR_TASK_INFERENCE && self->optimizer_set &&
      self->optimizer != HR_OPTIMIZER_NONE)
    {
      hr_reader_fail (reader, "optimizer",
                      _("\"task\": \"inference\" runs no optimizer: remove \"optimizer\" or set it "
                        "to \"none\""));
      goto out;
    }

  if (self->offload != HR_OFFLOAD_NONE && self->task == HR_TASK_INFERENCE &&
      self->offload == HR_OFFLOAD_OPTIMIZER)
    {
      hr_reader_fail (reader, "offload",
                      _("\"task\": \"inference\" has no optimizer state to offload; use "
                        "\"optimizer+params\" to keep the weights in host memory"));
      goto out;
    }

  if (self->offload == HR_OFFLOAD_OPTIMIZER_GRADIENTS)
    {
      /* torchao's CPUOffloadOptimizer (torchao/prototype/low_bit_optim/
       * cpu_offload.py @122eb73): "offload_gradients: free GPU gradients
       * once they are moved to CPU. Not compatible with gradient
       * accumulation", and "for single-GPU training" */
      const char *why = NULL;

      if (self->task == HR_TASK_INFERENCE)
        why = _("\"task\": \"inference\" has no optimizer state or gradients to offload");
      else if (self->grad_accum > 1)
        why = _("\"optimizer+gradients\" (torchao's CPUOffloadOptimizer with "
                "offload_gradients) frees each gradient once it is copied to the host, so it "
                "cannot accumulate gradients: set \"grad_accum\" to 1");
      else if (self->sharding != HR_SHARDING_NONE && self->sharding != HR_SHARDING_DDP)
        why = _("\"optimizer+gradients\" is torchao's single-GPU CPUOffloadOptimizer; with "
                "ZeRO give \"deepspeed\": {\"offload_optimizer\": \"cpu\"} (ZeRO-Offload moves "
                "the gradients too), with FSDP \"optimizer+params\"");
      if (why != NULL)
        {
          hr_reader_fail (reader, "offload", "%s", why);
          goto out;
        }
    }

  if (self->optimizer_in_bwd && self->grad_accum > 1)
    {
      /* torchtune refuses it: full_finetune_distributed.py @bd2a0fc,
       * "Please set gradient_accumulation_steps=1, or optimizer_in_bwd=False" */
      hr_reader_fail (reader, "optimizer_in_bwd",
                      _("\"optimizer_in_bwd\" steps each parameter as soon as its gradient is "
                        "ready, so it cannot accumulate gradients: set \"grad_accum\" to 1"));
      goto out;
    }

  if (self->has_deepspeed && self->deepspeed.offload_param != HR_OFFLOAD_DEVICE_NONE &&
      self->sharding != HR_SHARDING_ZERO3)
    {
      /* DeepSpeedZeroConfig: offload_param is "Valid only with stage 3" */
      hr_reader_fail (reader, "deepspeed",
                      _("DeepSpeed offloads parameters (\"offload_param\") only with ZeRO-3: set "
                        "\"sharding\" to \"zero3\""));
      goto out;
    }

  if (self->has_deepspeed && self->sharding != HR_SHARDING_ZERO1 &&
      self->sharding != HR_SHARDING_ZERO2 && self->sharding != HR_SHARDING_ZERO3)
    {
      hr_reader_fail (reader, "deepspeed",
                      _("\"deepspeed\" configures ZeRO: set \"sharding\" to \"zero1\", "
                        "\"zero2\" or \"zero3\""));
      goto out;
    }

  return TRUE;

out:
  return FALSE;
}

HrScenario *
hr_scenario_new_from_doc (HrJsonDoc  *doc,
                          HrCatalog  *catalog,
                          GError    **error)
{
  g_autoptr(HrScenario) self = g_new0 (HrScenario, 1);
  HrReader reader;
  guint64 version = 0;
  gboolean ok = FALSE;

  g_return_val_if_fail (doc != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  apply_defaults (self);

  if (!hr_reader_init (&reader, doc, "", hr_json_doc_get_root (doc), _("a scenario"),
                       error))
    return NULL;

  if (!hr_reader_has (&reader, "headroom_scenario"))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, "", FALSE,
                         _("not a Headroom scenario: the key \"headroom_scenario\": 1 is missing"));
      goto out;
    }

  if (!hr_reader_uint (&reader, "headroom_scenario", TRUE, 1, G_MAXINT, &version))
    goto out;
  if (version != 1)
    {
      hr_reader_fail (&reader, "headroom_scenario",
                      _("scenario format version %.0f was written by a newer Headroom; this one "
                        "reads version 1"), (double) version);
      goto out;
    }

  if (!hr_reader_check_keys (&reader, all_scenario_keys ()) ||
      !hr_reader_string (&reader, "name", FALSE, &self->name) ||
      !read_model (self, &reader, catalog))
    goto out;

  if (!read_task_keys (self, &reader) || !read_runtime_keys (self, &reader) ||
      !read_rank_and_int8_keys (self, &reader))
    goto out;

  if (!read_gpu (self, &reader, catalog) ||
      !hr_reader_double (&reader, "reserve", FALSE, 0.0, 0.5, &self->reserve) ||
      !read_replay (self, &reader) ||
      !hr_settings_read (&reader, self))
    goto out;

  if (!read_stack_and_switches (self, &reader))
    goto out;
  if (!read_deepspeed (self, &reader) || !read_peft (self, &reader) ||
      !read_parallel_and_serving (self, &reader))
    goto out;

  apply_stack_defaults (self, &reader);

  if (!check_combinations (self, &reader))
    goto out;

  {
    JsonNode *root = hr_json_doc_get_root (doc);
    JsonObject *kept = JSON_NODE_HOLDS_OBJECT (root) ? keep_unread (json_node_get_object (root))
                                                     : NULL;

    if (kept != NULL)
      {
        self->kept = json_node_new (JSON_NODE_OBJECT);
        json_node_take_object (self->kept, kept);
      }
  }

  hr_scenario_resolve (self);
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok ? g_steal_pointer (&self) : NULL;
}

#undef READ_ENUM
#undef READ_UINT

HrScenario *
hr_scenario_load (const char  *path,
                  HrCatalog   *catalog,
                  GError     **error)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_file (path, error);

  if (doc == NULL)
    return NULL;

  return hr_scenario_new_from_doc (doc, catalog, error);
}

gboolean
hr_json_doc_apply_set (HrJsonDoc   *doc,
                       const char  *assignment,
                       GError     **error)
{
  g_autofree char *origin = NULL;
  g_autofree char *shown = NULL;
  g_auto(GStrv) path = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autofree char *pointer = g_strdup ("");
  const char *eq;
  JsonNode *root;
  JsonObject *object;
  g_autofree char *key = NULL;

  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (assignment != NULL, FALSE);

  /* Messages quote the assignment made printable, and no longer than a
   * line: a key of 60,000 parts must not become a message of as many. */
  {
    gsize length = strlen (assignment), cut = MIN (length, 200);

    while (cut > 0 && cut < length && (assignment[cut] & 0xC0) == 0x80)
      cut--;   /* not inside a character */
    shown = hr_text_printable (assignment, cut);
    origin = g_strdup_printf (cut < length ? "--set %s…" : "--set %s", shown);
  }

  eq = strchr (assignment, '=');
  if (eq == NULL || eq == assignment)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: expected KEY=VALUE, such as micro_batch=16"),
                   origin);
      return FALSE;
    }

  key = g_strndup (assignment, eq - assignment);
  {
    guint parts = 1;

    for (const char *c = key; *c != '\0'; c++)
      parts += *c == '.';
    /* the nested objects it builds count like a file's nesting */
    if (parts >= HR_JSON_MAX_DEPTH)
      {
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                     _("%s: the key has %u parts, more than the %d levels a scenario may nest"),
                     origin, parts, HR_JSON_MAX_DEPTH - 1);
        return FALSE;
      }
  }
  path = g_strsplit (key, ".", -1);

  {
    g_autoptr(HrJsonDoc) parsed = hr_json_doc_load_data (origin, eq + 1, -1, NULL);

    /* JSON when it is JSON (16, true, [224, 224], "bf16"), else the text as
     * a string, so that --set gpu=h100-sxm needs no quotes. */
    if (parsed != NULL)
      value = json_node_ref (hr_json_doc_get_root (parsed));
    else
      value = json_node_init_string (json_node_alloc (), eq + 1);
  }

  root = hr_json_doc_get_root (doc);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("%s: the scenario is not a JSON object"),
                   origin);
      return FALSE;
    }

  object = json_node_get_object (root);
  for (guint i = 0; path[i] != NULL; i++)
    {
      char *child_pointer;

      if (path[i][0] == '\0')
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("%s: empty key name"), origin);
          return FALSE;
        }

      child_pointer = hr_json_pointer_append (pointer, path[i]);
      g_free (pointer);
      pointer = child_pointer;

      if (path[i + 1] == NULL)
        {
          json_object_set_member (object, path[i], json_node_ref (value));
          break;
        }

      if (!json_object_has_member (object, path[i]))
        json_object_set_object_member (object, path[i], json_object_new ());

      if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, path[i])))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("%s: \"%s\" is not an object"), origin,
                       path[i]);
          return FALSE;
        }
      object = json_object_get_object_member (object, path[i]);
    }

  hr_json_doc_set_origin (doc, pointer, origin);
  return TRUE;
}

static void
add_enum (JsonBuilder      *builder,
          const char       *key,
          const HrEnumName *names,
          int               value)
{
  json_builder_set_member_name (builder, key);
  json_builder_add_string_value (builder, hr_enum_to_nick (names, value));
}

static void
add_bool (JsonBuilder *builder,
          const char  *key,
          gboolean     value)
{
  json_builder_set_member_name (builder, key);
  json_builder_add_boolean_value (builder, value);
}

static void
add_uint (JsonBuilder *builder,
          const char  *key,
          guint64      value)
{
  json_builder_set_member_name (builder, key);
  json_builder_add_int_value (builder, (gint64) value);
}

/* "pytorch_version" and "transformers_version" as MAJOR.MINOR, where
 * the scenario set them, and "fuse_layers" and "previous_cache_freed"
 * where they are on. */
static void
add_versions (JsonBuilder      *builder,
              const HrScenario *self)
{
  if (self->pytorch_version_set)
    {
      g_autofree char *version = g_strdup_printf ("%u.%u", self->pytorch_major,
                                                  self->pytorch_minor);

      json_builder_set_member_name (builder, "pytorch_version");
      json_builder_add_string_value (builder, version);
    }
  if (self->transformers_version_set)
    {
      g_autofree char *version = g_strdup_printf ("%u.%u", self->transformers_major,
                                                  self->transformers_minor);

      json_builder_set_member_name (builder, "transformers_version");
      json_builder_add_string_value (builder, version);
    }
  if (self->fuse_layers)
    {
      json_builder_set_member_name (builder, "fuse_layers");
      json_builder_add_boolean_value (builder, TRUE);
    }
  if (self->previous_cache_freed)
    {
      json_builder_set_member_name (builder, "previous_cache_freed");
      json_builder_add_boolean_value (builder, TRUE);
    }
}

/* The stacks' keys, written only where the scenario set them (or a
 * boolean is on), so that a file keeps meaning what it said. */
/* "deepspeed", where the sharding is ZeRO's. */
static void
add_deepspeed_keys (JsonBuilder      *builder,
                    const HrScenario *self)
{
  /* keys the reader refuses out of their context are left out, so that a
   * file written after the window changed the context reads back */
  if (self->has_deepspeed && (self->sharding == HR_SHARDING_ZERO1 ||
                              self->sharding == HR_SHARDING_ZERO2 ||
                              self->sharding == HR_SHARDING_ZERO3))
    {
      const HrDeepSpeed *ds = &self->deepspeed;

      json_builder_set_member_name (builder, "deepspeed");
      json_builder_begin_object (builder);
      if (ds->set & HR_DS_MAX_LIVE_PARAMETERS)
        add_uint (builder, "stage3_max_live_parameters", ds->max_live_parameters);
      if (ds->set & HR_DS_PREFETCH_BUCKET_SIZE)
        add_uint (builder, "stage3_prefetch_bucket_size", ds->prefetch_bucket_size);
      if (ds->set & HR_DS_PARAM_PERSISTENCE)
        add_uint (builder, "stage3_param_persistence_threshold", ds->param_persistence_threshold);
      if (ds->set & HR_DS_REDUCE_BUCKET_SIZE)
        add_uint (builder, "reduce_bucket_size", ds->reduce_bucket_size);
      if (ds->set & HR_DS_ALLGATHER_BUCKET_SIZE)
        add_uint (builder, "allgather_bucket_size", ds->allgather_bucket_size);
      if (ds->set & HR_DS_MAX_REUSE_DISTANCE)
        add_uint (builder, "stage3_max_reuse_distance", ds->max_reuse_distance);
      if (ds->set & HR_DS_SUB_GROUP_SIZE)
        add_uint (builder, "sub_group_size", ds->sub_group_size);
      if ((ds->set & HR_DS_OFFLOAD_PARAM) && self->sharding == HR_SHARDING_ZERO3)
        add_enum (builder, "offload_param", hr_offload_device_names, ds->offload_param);
      if (ds->set & HR_DS_OFFLOAD_OPTIMIZER)
        add_enum (builder, "offload_optimizer", hr_offload_device_names, ds->offload_optimizer);
      if (ds->set & HR_DS_OVERLAP_COMM)
        add_bool (builder, "overlap_comm", ds->overlap_comm);
      if (ds->set & HR_DS_CONTIGUOUS_GRADIENTS)
        add_bool (builder, "contiguous_gradients", ds->contiguous_gradients);
      json_builder_end_object (builder);
    }
}

/* The parallelism degrees, and the serving engine's keys. */
static void
add_parallel_and_serving_keys (JsonBuilder      *builder,
                               const HrScenario *self)
{
  if (self->tensor_parallel > 1)
    add_uint (builder, "tensor_parallel", self->tensor_parallel);
  if (self->sequence_parallel)
    add_bool (builder, "sequence_parallel", TRUE);
  if (self->pipeline_parallel > 1)
    add_uint (builder, "pipeline_parallel", self->pipeline_parallel);
  if (self->pipeline_schedule != HR_PIPELINE_1F1B)
    add_enum (builder, "pipeline_schedule", hr_pipeline_schedule_names,
              self->pipeline_schedule);
  if (self->virtual_stages_set && self->pipeline_schedule == HR_PIPELINE_INTERLEAVED)
    add_uint (builder, "virtual_stages", self->virtual_stages);
  if (self->context_parallel > 1)
    add_uint (builder, "context_parallel", self->context_parallel);
  if (self->expert_parallel > 1 && moe_component (self) != NULL)
    add_uint (builder, "expert_parallel", self->expert_parallel);
  if (self->capacity_factor_set && moe_component (self) != NULL)
    {
      json_builder_set_member_name (builder, "capacity_factor");
      json_builder_add_double_value (builder, self->capacity_factor);
    }
  if (self->task == HR_TASK_INFERENCE)
    {
      if (self->engine_set)
        add_enum (builder, "engine", hr_engine_names, self->engine);
      if (self->gpu_memory_utilization_set && self->engine == HR_ENGINE_VLLM)
        {
          json_builder_set_member_name (builder, "gpu_memory_utilization");
          json_builder_add_double_value (builder, self->gpu_memory_utilization);
        }
      if (self->mem_fraction_static_set && self->engine == HR_ENGINE_SGLANG)
        {
          json_builder_set_member_name (builder, "mem_fraction_static");
          json_builder_add_double_value (builder, self->mem_fraction_static);
        }
      if (self->engine == HR_ENGINE_VLLM || self->engine == HR_ENGINE_SGLANG)
        {
          if (self->max_num_seqs_set)
            add_uint (builder, "max_num_seqs", self->max_num_seqs);
          if (self->enforce_eager)
            add_bool (builder, "enforce_eager", TRUE);
          if (self->block_size_set)
            add_uint (builder, "block_size", self->block_size);
        }
      if (self->ct2_compute_type_set && self->engine == HR_ENGINE_CTRANSLATE2)
        add_enum (builder, "compute_type", hr_ct2_compute_type_names, self->ct2_compute_type);
      if (self->beams > 0)
        add_uint (builder, "beams", self->beams);
      if (self->gpu_layers_set && self->engine == HR_ENGINE_LLAMACPP)
        add_uint (builder, "gpu_layers", self->gpu_layers);
    }
}

/* "peft": the keys of the PEFT methods beyond LoRA. */
static void
add_peft_keys (JsonBuilder      *builder,
               const HrScenario *self)
{
  if (self->has_peft)
    {
      const HrPeft *peft = &self->peft;

      json_builder_set_member_name (builder, "peft");
      json_builder_begin_object (builder);
      if (peft->set & HR_PEFT_NUM_VIRTUAL_TOKENS)
        add_uint (builder, "num_virtual_tokens", peft->num_virtual_tokens);
      if (peft->set & HR_PEFT_PREFIX_PROJECTION)
        add_bool (builder, "prefix_projection", peft->prefix_projection);
      if (peft->set & HR_PEFT_ENCODER_HIDDEN_SIZE)
        add_uint (builder, "encoder_hidden_size", peft->encoder_hidden_size);
      if (peft->set & HR_PEFT_BLOCK_SIZE)
        add_uint (builder, "block_size", peft->block_size);
      if (peft->set & HR_PEFT_N_BUTTERFLY_FACTOR)
        add_uint (builder, "n_butterfly_factor", peft->n_butterfly_factor);
      if (peft->set & HR_PEFT_DECOMPOSE_FACTOR)
        {
          json_builder_set_member_name (builder, "decompose_factor");
          json_builder_add_int_value (builder, peft->decompose_factor);
        }
      if (peft->set & HR_PEFT_DECOMPOSE_BOTH)
        add_bool (builder, "decompose_both", peft->decompose_both);
      if (peft->set & HR_PEFT_INIT_R)
        add_uint (builder, "init_r", peft->init_r);
      if (peft->set & HR_PEFT_TARGET_R)
        add_uint (builder, "target_r", peft->target_r);
      if (peft->set & HR_PEFT_D_INITIAL)
        {
          json_builder_set_member_name (builder, "d_initial");
          json_builder_add_double_value (builder, peft->d_initial);
        }
      if (peft->set & HR_PEFT_SAVE_PROJECTION)
        add_bool (builder, "save_projection", peft->save_projection);
      json_builder_end_object (builder);
    }
}

static void
add_stack_keys (JsonBuilder      *builder,
                const HrScenario *self)
{
  if (self->stack_set)
    add_enum (builder, "stack", hr_stack_names, self->stack);
  if (self->reshard_after_forward_set)
    add_bool (builder, "reshard_after_forward", self->reshard_after_forward);
  if (self->zero_grad_set_to_none_set)
    add_bool (builder, "zero_grad_set_to_none", self->zero_grad_set_to_none);
  if (self->optimizer_in_bwd)
    add_bool (builder, "optimizer_in_bwd", TRUE);
  if (self->activation_offload)
    add_bool (builder, "activation_offload", TRUE);
  if (self->compile)
    add_bool (builder, "compile", TRUE);
  if (self->packed)
    add_bool (builder, "packed", TRUE);
  if (self->frames_set)
    add_uint (builder, "frames", self->frames);
  if (self->ema)
    add_bool (builder, "ema", TRUE);
  if (self->prior_preservation)
    add_bool (builder, "prior_preservation", TRUE);
  if (self->vae_tiling)
    add_bool (builder, "vae_tiling", TRUE);
  if (self->train_text_encoder)
    add_bool (builder, "train_text_encoder", TRUE);
  if (self->cache_latents)
    add_bool (builder, "cache_latents", TRUE);
  if (self->vae_encode_frames > 0)
    add_uint (builder, "vae_encode_frames", self->vae_encode_frames);
  if (self->audio_seconds_set)
    {
      json_builder_set_member_name (builder, "audio_seconds");
      json_builder_add_double_value (builder, self->audio_seconds);
    }
  if (self->sample_rate > 0)
    add_uint (builder, "sample_rate", self->sample_rate);
  if (self->text_encoder_cpu)
    add_bool (builder, "text_encoder_cpu", TRUE);
  if (self->offload_model)
    add_bool (builder, "offload_model", TRUE);
  if (self->pipeline_offload != HR_PIPELINE_OFFLOAD_NONE)
    add_enum (builder, "pipeline_offload", hr_pipeline_offload_names, self->pipeline_offload);
  if (self->pipeline_library != HR_PIPELINE_LIBRARY_ORIGINAL)
    add_enum (builder, "pipeline_library", hr_pipeline_library_names, self->pipeline_library);
  {
    guint n = self->model != NULL ? MIN (self->model->components->len,
                                         HR_SCENARIO_MAX_PART_DTYPES) : 0;
    gboolean any = FALSE;

    for (guint i = 0; i < n; i++)
      any = any || self->part_dtype[i] != 0;
    if (any)
      {
        json_builder_set_member_name (builder, "part_dtypes");
        json_builder_begin_object (builder);
        for (guint i = 0; i < n; i++)
          if (self->part_dtype[i] != 0)
            add_enum (builder,
                      ((HrComponent *) g_ptr_array_index (self->model->components, i))->name,
                      hr_weights_dtype_names, self->part_dtype[i] - 1);
        json_builder_end_object (builder);
      }
  }
  if (self->num_classes > 0)
    add_uint (builder, "num_classes", self->num_classes);
  if (self->max_objects > 0)
    add_uint (builder, "max_objects", self->max_objects);
  add_versions (builder, self);
  if (self->detection_framework_set)
    add_enum (builder, "detection_framework", hr_detection_framework_names,
              self->detection_framework);
  if (self->focal_loss_set)
    add_enum (builder, "focal_loss", hr_arch_focal_names, self->focal_loss);
  if (self->pairwise_iou_keeps_corners)
    {
      json_builder_set_member_name (builder, "pairwise_iou_keeps_corners");
      json_builder_add_boolean_value (builder, TRUE);
    }
  if (self->optimizer_impl_set)
    add_enum (builder, "optimizer_impl", hr_optimizer_impl_names, self->optimizer_impl);
  if (self->optimizer_state_dtype_set)
    add_enum (builder, "optimizer_state_dtype", hr_state_dtype_names,
              self->optimizer_state_dtype);

  add_deepspeed_keys (builder, self);
  add_parallel_and_serving_keys (builder, self);
  add_peft_keys (builder, self);
}

/* "lora": its rank and targets, for a LoRA run or one that set them */
static void
add_lora_keys (JsonBuilder      *builder,
               const HrScenario *self)
{
  if (self->lora_set || self->method == HR_METHOD_LORA || self->method == HR_METHOD_QLORA)
    {
      json_builder_set_member_name (builder, "lora");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "rank");
      json_builder_add_int_value (builder, self->lora_rank);
      if (self->lora_targets == HR_LORA_TARGETS_CUSTOM)
        {
          json_builder_set_member_name (builder, "targets");
          json_builder_begin_array (builder);
          for (guint i = 0; hr_module_names[i].nick != NULL; i++)
            if (self->lora_modules & hr_module_names[i].value)
              json_builder_add_string_value (builder, hr_module_names[i].nick);
          json_builder_end_array (builder);
        }
      else
        add_enum (builder, "targets", hr_lora_targets_names, self->lora_targets);
      json_builder_end_object (builder);
    }
}

/* The low-rank optimizers' ranks, int8 weights, the causal mask and the
 * quantised layers' compute dtype and method, where they apply */
static void
add_optimizer_and_quant_keys (JsonBuilder      *builder,
                              const HrScenario *self)
{
  if (self->optimizer == HR_OPTIMIZER_GALORE_ADAMW ||
      self->optimizer == HR_OPTIMIZER_GALORE_ADAMW_8BIT ||
      self->optimizer == HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT)
    add_uint (builder, "galore_rank", self->galore_rank);
  if (self->optimizer == HR_OPTIMIZER_APOLLO_ADAMW)
    add_uint (builder, "apollo_rank", self->apollo_rank);
  if (hr_scenario_can_int8_weights (self) && self->int8_weights_set)
    add_bool (builder, "int8_weights", self->int8_weights);
  if (hr_scenario_int8_weights (self) && self->int8_weight_group != 256)
    add_uint (builder, "int8_weight_group", self->int8_weight_group);
  if (self->task == HR_TASK_INFERENCE && self->causal_mask != HR_CAUSAL_MASK_NONE)
    add_enum (builder, "causal_mask", hr_causal_mask_names, self->causal_mask);
  if (self->quant_compute_dtype_set)
    add_enum (builder, "quant_compute_dtype", hr_quant_compute_dtype_names,
              self->quant_compute_dtype);
  if (self->quant_method != HR_QUANT_METHOD_BITSANDBYTES)
    add_enum (builder, "quant_method", hr_quant_method_names, self->quant_method);
}

/* A world model's "replay" buffer */
static void
add_replay_keys (JsonBuilder      *builder,
                 const HrScenario *self)
{
  if (self->has_replay)
    {
      json_builder_set_member_name (builder, "replay");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "steps");
      json_builder_add_int_value (builder, self->replay.steps);
      json_builder_set_member_name (builder, "obs_shape");
      json_builder_begin_array (builder);
      for (guint i = 0; i < self->replay.obs_rank; i++)
        json_builder_add_int_value (builder, self->replay.obs_shape[i]);
      json_builder_end_array (builder);
      add_enum (builder, "obs_dtype", hr_obs_dtype_names, self->replay.obs_dtype);
      json_builder_end_object (builder);
    }
}

JsonNode *
hr_scenario_to_json (const HrScenario *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  JsonNode *root;

  g_return_val_if_fail (self != NULL, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "headroom_scenario");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, self->name != NULL ? self->name : "");

  json_builder_set_member_name (builder, "model");
  if (self->model_inline && self->model->json != NULL)
    json_builder_add_value (builder, json_node_copy (self->model->json));
  else
    json_builder_add_string_value (builder, self->model->id);

  add_enum (builder, "task", hr_task_names, self->task);
  add_enum (builder, "method", hr_method_names, self->method);
  if (self->trainable_params_set)
    {
      json_builder_set_member_name (builder, "trainable_params");
      json_builder_add_int_value (builder, self->trainable_params);
    }
  add_lora_keys (builder, self);
  if (self->weights_dtype_set)
    add_enum (builder, "weights_dtype", hr_weights_dtype_names, self->weights_dtype);
  add_enum (builder, "compute", hr_compute_names, self->compute);
  if (self->optimizer_set)
    add_enum (builder, "optimizer", hr_optimizer_names, self->optimizer);

  json_builder_set_member_name (builder, "micro_batch");
  json_builder_add_int_value (builder, self->micro_batch);
  json_builder_set_member_name (builder, "grad_accum");
  json_builder_add_int_value (builder, self->grad_accum);
  if (self->seq_len_set)
    {
      json_builder_set_member_name (builder, "seq_len");
      json_builder_add_int_value (builder, self->seq_len);
    }
  if (self->image_size_set)
    {
      json_builder_set_member_name (builder, "image_size");
      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, self->image_width);
      json_builder_add_int_value (builder, self->image_height);
      json_builder_end_array (builder);
    }
  add_enum (builder, "recompute", hr_recompute_names, self->recompute);
  /* Always written: a stack's default loss is not upcast everywhere
   * (torchtune's recipes chunk it), so leaving upcast implicit would read
   * back as another loss. */
  add_enum (builder, "loss", hr_loss_names, self->loss);
  add_enum (builder, "attention", hr_attention_names, self->attention);
  json_builder_set_member_name (builder, "gpus");
  json_builder_add_int_value (builder, self->gpus);
  /* "fsdp" and "fsdp2" mean the same, but only "fsdp" leaves FSDP1 in the
   * range (data/SCENARIO.md) */
  if (self->sharding == HR_SHARDING_FSDP && !self->sharding_unversioned)
    {
      json_builder_set_member_name (builder, "sharding");
      json_builder_add_string_value (builder, "fsdp2");
    }
  else
    add_enum (builder, "sharding", hr_sharding_names, self->sharding);
  add_enum (builder, "offload", hr_offload_names, self->offload);
  if (self->framework_set)
    add_enum (builder, "framework", hr_framework_names, self->framework);
  if (!self->jax_preallocate)
    {
      json_builder_set_member_name (builder, "jax_preallocate");
      json_builder_add_boolean_value (builder, FALSE);
    }
  if (self->context_len_set)
    {
      json_builder_set_member_name (builder, "context_len");
      json_builder_add_int_value (builder, self->context_len);
    }
  /* CTranslate2's cache type is its compute_type's (written above), and a
   * float32 one has no kv_dtype name: writing it would say fp16 */
  if (self->task == HR_TASK_INFERENCE && self->engine != HR_ENGINE_CTRANSLATE2)
    add_enum (builder, "kv_dtype", hr_kv_dtype_names, self->kv_dtype);
  add_optimizer_and_quant_keys (builder, self);
  if (self->gpu != NULL)
    {
      json_builder_set_member_name (builder, "gpu");
      if (self->gpu_inline && self->gpu->json != NULL)
        json_builder_add_value (builder, json_node_copy (self->gpu->json));
      else
        json_builder_add_string_value (builder, self->gpu->id);
    }
  json_builder_set_member_name (builder, "reserve");
  json_builder_add_double_value (builder, self->reserve);
  hr_settings_write (builder, self);
  add_replay_keys (builder, self);
  add_stack_keys (builder, self);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  if (self->kept != NULL)
    restore_unread (json_node_get_object (root), json_node_get_object (self->kept));
  return root;
}

gboolean
hr_scenario_save (const HrScenario  *scenario,
                  const char        *path,
                  GError           **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autofree char *with_newline = NULL;

  g_return_val_if_fail (scenario != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  node = hr_scenario_to_json (scenario);
  text = hr_json_node_to_string (node, TRUE);
  with_newline = g_strconcat (text, "\n", NULL);

  /* A temporary file renamed over the old one: a crash or a full disk
   * never leaves half a scenario. */
  return hr_file_write_atomic (path, with_newline, strlen (with_newline), error);
}

guint
hr_scenario_get_seq_len (const HrScenario *self)
{
  const HrComponent *first = NULL;

  if (self->seq_len_set)
    return self->seq_len;
  if (self->model->seq_len > 0)
    return self->model->seq_len;

  for (guint i = 0; i < self->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (self->model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->tokens_from == HR_TOKENS_SEQ_LEN)
        {
          first = c;
          break;
        }
    }

  /* 2048 tokens, or the model's whole context when that is shorter. */
  if (first != NULL && first->max_seq_len > 0)
    return MIN (2048, first->max_seq_len);
  return 2048;
}

void
hr_scenario_get_image_size (const HrScenario *self,
                            guint            *width,
                            guint            *height)
{
  if (self->image_size_set)
    {
      *width = self->image_width;
      *height = self->image_height;
    }
  else if (self->model->image_width > 0)
    {
      *width = self->model->image_width;
      *height = self->model->image_height;
    }
  else
    {
      /* ImageNet's 224 x 224, the input most vision backbones are sized for. */
      *width = 224;
      *height = 224;
    }
}

guint
hr_scenario_get_frames (const HrScenario *self)
{
  if (self->frames_set)
    return self->frames;
  return MAX (1, self->model->frames);
}

gboolean
hr_scenario_reads_audio (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; self->model != NULL && i < self->model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (self->model->components, i);

      if (c->arch != NULL && hr_arch_is_speech (c->arch))
        return TRUE;
    }
  return FALSE;
}

double
hr_scenario_get_audio_seconds (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, 0);

  if (self->audio_seconds_set)
    return self->audio_seconds;
  if (self->model != NULL && self->model->audio_seconds > 0)
    return self->model->audio_seconds;
  /* a speech model from elsewhere that names no clip */
  return hr_scenario_reads_audio (self) ? HR_ARCH_DEFAULT_AUDIO_SECONDS : 0;
}

guint
hr_scenario_get_sample_rate (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, HR_ARCH_DEFAULT_SAMPLE_RATE);

  return self->sample_rate > 0 ? self->sample_rate : HR_ARCH_DEFAULT_SAMPLE_RATE;
}

guint
hr_scenario_get_audio_samples (const HrScenario *self)
{
  return (guint) MAX (1, round (hr_scenario_get_audio_seconds (self) *
                                hr_scenario_get_sample_rate (self)));
}

guint
hr_scenario_get_context_len (const HrScenario *self)
{
  return self->context_len_set ? self->context_len : hr_scenario_get_seq_len (self);
}

gboolean
hr_scenario_is_training (const HrScenario *self)
{
  return self->task != HR_TASK_INFERENCE;
}

guint
hr_scenario_get_lora_modules (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, 0);

  switch (self->lora_targets)
    {
    case HR_LORA_TARGETS_ATTENTION:
      return HR_MODULES_ATTENTION;
    case HR_LORA_TARGETS_ALL_LINEAR:
      /* PEFT's "all-linear": every linear layer but the output head */
      return HR_MODULES_ATTENTION | HR_MODULES_MLP;
    case HR_LORA_TARGETS_QV:
      return HR_MODULE_Q | HR_MODULE_V;
    case HR_LORA_TARGETS_MLP:
      return HR_MODULES_MLP;
    case HR_LORA_TARGETS_CUSTOM:
      return self->lora_modules;
    default:
      g_assert_not_reached ();
    }
}

gboolean
hr_method_is_peft (HrMethod method)
{
  return method != HR_METHOD_FULL && method != HR_METHOD_FREEZE;
}

double
hr_scenario_engine_pool_fraction (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, 0);

  switch (self->engine)
    {
    case HR_ENGINE_VLLM:
      return self->gpu_memory_utilization;
    case HR_ENGINE_SGLANG:
      return self->mem_fraction_static;
    default:
      return 0;
    }
}

gboolean
hr_scenario_has_kv_pool (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->task == HR_TASK_INFERENCE &&
         (self->engine == HR_ENGINE_VLLM || self->engine == HR_ENGINE_SGLANG);
}

const HrEnumName hr_detection_framework_names[] = {
  { HR_DETECTION_FRAMEWORK_MMDETECTION, "mmdetection" },
  { HR_DETECTION_FRAMEWORK_DETECTRON2, "detectron2" },
  { HR_DETECTION_FRAMEWORK_TORCHVISION, "torchvision" },
  { 0, NULL },
};

/* mmdetection's FocalLoss calls mmcv's CUDA op whenever the prediction is
 * on the GPU (open-mmlab/mmdetection @v2.28.2 mmdet/models/losses/
 * focal_loss.py FocalLoss.forward: sigmoid_focal_loss from mmcv.ops, whose
 * SigmoidFocalLossFunction saves the logits, the int64 labels and the
 * weights and computes the rest in sigmoid_focal_loss_cuda_kernel.cuh,
 * open-mmlab/mmcv @v1.7.1 mmcv/ops/focal_loss.py); torchvision's RetinaNet
 * and FCOS call torchvision.ops.sigmoid_focal_loss and detectron2's
 * RetinaNet fvcore's sigmoid_focal_loss_jit, the same Python code
 * (hr-arch.c focal_loss_python).  Without either key the catalog's
 * detectors are mmdetection's configs. */
HrArchFocal
hr_scenario_get_focal_loss (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, HR_ARCH_FOCAL_FUSED);

  if (self->focal_loss_set)
    return self->focal_loss;
  if (self->detection_framework_set &&
      self->detection_framework != HR_DETECTION_FRAMEWORK_MMDETECTION)
    return HR_ARCH_FOCAL_PYTHON;
  return HR_ARCH_FOCAL_FUSED;
}

gboolean
hr_scenario_transformers_before (const HrScenario *self,
                                 guint             major,
                                 guint             minor)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!self->transformers_version_set)
    return FALSE;
  return self->transformers_major < major ||
         (self->transformers_major == major && self->transformers_minor < minor);
}

gboolean
hr_scenario_pytorch_before (const HrScenario *self,
                            guint             major,
                            guint             minor)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!self->pytorch_version_set)
    return FALSE;
  return self->pytorch_major < major ||
         (self->pytorch_major == major && self->pytorch_minor < minor);
}

/* detectron2's ResNet defaults to RESNETS.NORM "FrozenBN"
 * (facebookresearch/detectron2 @989f52d6 detectron2/config/defaults.py), and
 * torchvision's detection builders pass norm_layer=FrozenBatchNorm2d
 * with pretrained weights (torchvision/models/detection/faster_rcnn.py
 * @v0.14.1: is_trained -> misc_nn_ops.FrozenBatchNorm2d): no affine
 * parameter trains, so the backbone's norms save nothing, where
 * mmdetection's norm_eval BatchNorm trains its affine and saves its
 * input. */
gboolean
hr_scenario_get_detector_frozen_bn (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->detection_framework_set &&
         self->detection_framework != HR_DETECTION_FRAMEWORK_MMDETECTION;
}

/* mmdetection's CascadeRoIHead trains a mask head in every stage (open-
 * mmlab/mmdetection @024d2bd2 mmdet/models/roi_heads/cascade_roi_head.py:
 * loss() calls mask_loss inside its stage loop); detectron2's
 * CascadeROIHeads one, after the box stages (facebookresearch/detectron2
 * @02b5c4e2 modeling/roi_heads/cascade_rcnn.py).  torchvision has no
 * cascade: its detectors' single mask head is detectron2's count. */
gboolean
hr_scenario_get_cascade_one_mask_head (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->detection_framework_set &&
         self->detection_framework != HR_DETECTION_FRAMEWORK_MMDETECTION;
}

/* detectron2's DenseDetector keeps the dense heads' outputs and their
 * transposed copies alive through the losses, and its RetinaNet and FCOS
 * losses build int64 one-hot targets (facebookresearch/detectron2
 * @02b5c4e2 detectron2/modeling/meta_arch/dense_detector.py,
 * retinanet.py, fcos.py; hr-arch.c dense_outputs_alive); torchvision's
 * and mmdetection's heads do neither. */
gboolean
hr_scenario_get_dense_outputs_alive (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->detection_framework_set &&
         self->detection_framework == HR_DETECTION_FRAMEWORK_DETECTRON2;
}

/* detectron2's pairwise_iou frees the boxes' corners before the IoU
 * (facebookresearch/detectron2 @baf6667e, 2019-12-03, and every release
 * from v0.1 on: detectron2/structures/boxes.py, hr-arch.c assign_peak);
 * its first public code kept them, as mmdetection's bbox_overlaps and
 * torchvision's box_iou do ("pairwise_iou_keeps_corners"). */
gboolean
hr_scenario_get_iou_frees_corners (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->detection_framework_set &&
         self->detection_framework == HR_DETECTION_FRAMEWORK_DETECTRON2 &&
         !self->pairwise_iou_keeps_corners;
}

/* Whether an optimizer can hold its linears in int8 (Q-GaLore's
 * --weight_quant, which Q-APOLLO takes over) */
gboolean
hr_scenario_can_int8_weights (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return hr_scenario_is_training (self) &&
         (self->optimizer == HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT ||
          self->optimizer == HR_OPTIMIZER_APOLLO_ADAMW ||
          self->optimizer == HR_OPTIMIZER_APOLLO_MINI);
}

/* Whether the trained linears are int8: Q-GaLore's scripts all pass
 * --weight_quant (scripts/single_gpu/llama_7b.sh @dd09cd3), so it is
 * Q-GaLore's default; APOLLO's is off (main_pretrain.py @76b3472) */
gboolean
hr_scenario_int8_weights (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!hr_scenario_can_int8_weights (self))
    return FALSE;
  if (self->int8_weights_set)
    return self->int8_weights;
  return self->optimizer == HR_OPTIMIZER_Q_GALORE_ADAMW_8BIT;
}

/* Hypotheses a decoder keeps per sequence: the scenario's "beams", else
 * faster-whisper's transcribe() default under CTranslate2 (beam_size=5,
 * faster_whisper/transcribe.py @65882ee) and greedy decoding otherwise
 * (transformers' GenerationConfig num_beams=1) */
guint
hr_scenario_get_beams (const HrScenario *self)
{
  g_return_val_if_fail (self != NULL, 1);

  if (self->task != HR_TASK_INFERENCE)
    return 1;
  if (self->beams > 0)
    return self->beams;
  return self->engine == HR_ENGINE_CTRANSLATE2 ? 5 : 1;
}

/* What a CTranslate2 compute_type stores and runs in (docs/quantization.md
 * @0d8bcd3: int8 on the embedding and linear layers, the rest in the float
 * type; "int8" keeps the model's float type, float16 for the
 * faster-whisper conversions, src/types.cc resolve_compute_type) */
void
hr_ct2_compute_type_resolve (HrCt2ComputeType  type,
                             HrDtype          *weights,
                             HrCompute        *compute,
                             HrDtype          *kv)
{
  switch (type)
    {
    case HR_CT2_BFLOAT16:
    case HR_CT2_INT8_BFLOAT16:
      *compute = HR_COMPUTE_BF16_PURE;
      *kv = HR_DTYPE_BF16;
      break;
    case HR_CT2_FLOAT32:
    case HR_CT2_INT8_FLOAT32:
      *compute = HR_COMPUTE_FP32;
      /* the cache in fp32: counted at 4 bytes by the serving code */
      *kv = HR_DTYPE_FP16;
      break;
    case HR_CT2_FLOAT16:
    case HR_CT2_INT8:
    case HR_CT2_INT8_FLOAT16:
    default:
      *compute = HR_COMPUTE_FP16_PURE;
      *kv = HR_DTYPE_FP16;
      break;
    }
  switch (type)
    {
    case HR_CT2_INT8:
    case HR_CT2_INT8_FLOAT16:
    case HR_CT2_INT8_BFLOAT16:
    case HR_CT2_INT8_FLOAT32:
      *weights = HR_DTYPE_INT8;
      break;
    case HR_CT2_FLOAT32:
      *weights = HR_DTYPE_FP32;
      break;
    case HR_CT2_BFLOAT16:
      *weights = HR_DTYPE_BF16;
      break;
    case HR_CT2_FLOAT16:
    default:
      *weights = HR_DTYPE_FP16;
      break;
    }
}
