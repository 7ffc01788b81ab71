/* hr-estimate-vision.c: CNN, U-Net and VAE parts from their architecture
 *
 * A part with an "arch" (hr-arch.h) is walked block by block at the
 * scenario's input size: what its ops save for the backward pass, what a
 * checkpointed block keeps and rebuilds, and the working set of a forward
 * pass without gradients (a frozen VAE encoding the batch, a U-Net or VAE
 * at inference).  This file turns one walk into the estimate's lines.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-estimate"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-checked.h"
#include "hr-estimate-private.h"

/* The walk counts the tensors autograd saves, exactly; what it leaves out
 * is small and one-sided (cuDNN's per-call workspaces, BatchNorm's
 * per-channel statistics, the losses' temporaries), and the kernels chosen
 * (cuDNN may keep a transposed copy of an input for channels-last) can add
 * a little: the range is -10% to +25%. */
#define ARCH_LOW  0.90
#define ARCH_HIGH 1.25

/* A forward pass without gradients frees each input as soon as the next
 * op has run; the allocator's rounding and the kernels' workspaces come on
 * top of the live tensors the walk follows: half to twice that. */
#define FORWARD_LOW  0.5
#define FORWARD_HIGH 2.0

/* diffusers' AutoencoderKL tiling: tiles of sample_size (512 pixels for
 * the SD 1.x/2.x VAEs, 1024 for SDXL's) overlapping by a quarter
 * (tile_overlap_factor 0.25, autoencoder_kl.py enable_tiling); one tile's
 * decoder working set is alive at a time. */
#define VAE_TILE_PIXELS 512

/* diffusers' AutoencoderKLHunyuanVideo (huggingface/diffusers @58eb52c0
 * src/diffusers/models/autoencoders/autoencoder_kl_hunyuan_video.py):
 * use_framewise_decoding is on whatever enable_tiling says, and
 * _temporal_tiled_decode hands the decoder latent slices of
 * tile_sample_min_num_frames / 4 + 1 = 5 latent frames (17 decoded) once
 * the clip has more than 4; under enable_tiling, tiles of
 * tile_sample_min_height and _width, 256 pixels, stride 192 (the
 * sample_video.py tiles: Tencent/HunyuanVideo @e965abb takes 64 + 1
 * frames, and only with --vae-tiling). */
#define DIFFUSERS_HY_TILE_FRAMES 16

/* The frames a video VAE's causal convolution caches of its input for the
 * next chunk: CACHE_T = 2 in Wan's CausalConv3d (Wan-Video/Wan2.1
 * wan/modules/vae.py @9737cba: cache_x = x[:, :, -CACHE_T:].clone() into
 * feat_cache for every convolution of the decoder), kernel - 1 = 2 in
 * CogVideoXCausalConv3d's conv_cache (huggingface/diffusers @58eb52c0
 * autoencoder_kl_cogvideox.py, inputs[:, :, -time_kernel_size + 1:]). */
#define VIDEO_CACHE_FRAMES 2

/* Ground-truth boxes in the most crowded training image when the scenario
 * does not say ("max_objects"): the detectors' IoU assigners compare each
 * with every anchor.  mmdetection's maintainers: "Popular object
 * detection datasets usually annotates less than 100 gts"
 * (open-mmlab/mmdetection issue 188, 2018-12-19), which is also the
 * number of queries DETR chose to exceed the objects of a COCO image
 * (Carion et al. 2020, section 4); COCO's most crowded images come near
 * it.  The range's low end takes half as many. */
#define DEFAULT_MAX_OBJECTS 100

/* A diffusion pipeline's VAE and text encoders stay frozen whatever the
 * method: diffusers' training scripts call requires_grad_(False) on them
 * and train the denoiser (examples/text_to_image/train_text_to_image.py,
 * dreambooth/train_dreambooth.py without --train_text_encoder), fully or
 * through adapters.  "train_text_encoder" trains the text encoders (the
 * pipeline's transformer parts the model does not train by default) the
 * way the method trains the denoiser; "trainable_params" can still say
 * otherwise. */
gboolean
hr_plan_part_pipeline_frozen (HrPlan            *self,
                              const HrComponent *c)
{
  const char *family = self->scenario->model->family;

  if (c->trainable || self->scenario->trainable_params_set ||
      (g_strcmp0 (family, "diffusion") != 0 && g_strcmp0 (family, "video") != 0))
    return FALSE;
  return !(self->scenario->train_text_encoder && c->kind == HR_COMPONENT_TRANSFORMER);
}

/* "cache_latents": the latents and the prompt embeddings are computed once
 * before training, and the frozen VAE and text encoders then leave the GPU
 * (CogVideo finetune/trainer.py @e519eced, prepare_dataset: precompute,
 * then unload_model(vae), unload_model(text_encoder), free_memory(); the
 * trainers' UNLOAD_LIST).  Training holds the denoiser alone. */
gboolean
hr_plan_part_unloaded (HrPlan            *self,
                       const HrComponent *c)
{
  /* "text_encoder_cpu": the frozen text encoders run on the CPU and hand
   * their embeddings to the GPU (Wan2.1 generate.py --t5_cpu: T5EncoderModel
   * on torch.device('cpu'), wan/text2video.py @9737cba) */
  if (self->scenario->text_encoder_cpu && c->kind == HR_COMPONENT_TRANSFORMER &&
      hr_plan_part_pipeline_frozen (self, c))
    return TRUE;
  return self->training && self->scenario->cache_latents &&
         hr_plan_part_pipeline_frozen (self, c);
}

/* diffusers' enable_model_cpu_offload() (huggingface/diffusers @58eb52c0
 * src/diffusers/pipelines/pipeline_utils.py): every model of the pipeline
 * on the CPU, each hooked by accelerate's cpu_offload_with_hook along
 * model_cpu_offload_seq ("text_encoder->text_encoder_2->transformer->vae"
 * for HunyuanVideo) so that it moves to the GPU when its forward runs and
 * the one before goes back.  The denoiser, on the GPU through every step,
 * stays in the weights; the text encoders and the VAE count in their own
 * phases. */
gboolean
hr_plan_part_offloaded (HrPlan            *self,
                        const HrComponent *c)
{
  const HrScenario *s = self->scenario;

  if (s->pipeline_offload == HR_PIPELINE_OFFLOAD_NONE || !hr_plan_is_pipeline_inference (self))
    return FALSE;
  /* enable_sequential_cpu_offload() spares the pipeline's
   * _exclude_from_cpu_offload: none of diffusers' video pipelines, the
   * transformer in Tencent's (Tencent/HunyuanVideo @e965abb
   * hyvideo/diffusion/pipelines/pipeline_hunyuan_video.py) */
  if (s->pipeline_offload == HR_PIPELINE_OFFLOAD_SEQUENTIAL &&
      s->pipeline_library == HR_PIPELINE_LIBRARY_DIFFUSERS)
    return TRUE;
  return hr_plan_part_pipeline_frozen (self, c);
}

/* diffusers' enable_sequential_cpu_offload() (pipeline_utils.py
 * @58eb52c0): accelerate's cpu_offload keeps the state dict on the CPU
 * and an AlignDevicesHook on every submodule moves its weights to the GPU
 * for its forward alone (huggingface/accelerate @16cb6eb
 * src/accelerate/hooks.py, AlignDevicesHook.pre_forward and
 * post_forward): the largest leaf module's weights, an embedding table or
 * the widest linear layer, or the walk's largest layer. */
double
hr_plan_part_largest_submodule (HrPlan            *self,
                                const HrComponent *c)
{
  double widest;

  if (c->arch != NULL)
    return hr_plan_arch_largest_params (self, c);
  if (c->kind != HR_COMPONENT_TRANSFORMER)
    return (double) c->params;
  widest = c->single_stream ? 3.0 * c->hidden + c->intermediate
                            : hr_plan_widest_mlp (c) * (c->glu ? 2.0 : 1.0);
  return (double) c->hidden * MAX (widest, (double) c->vocab);
}

/* Bytes per parameter of a part's stored weights. */
static double
part_bytes_per_param (HrPlan            *self,
                      const HrComponent *c)
{
  HrDtype own;

  if (hr_scenario_get_part_dtype (self->scenario, c, &own))
    return hr_dtype_bytes_per_param (own, FALSE);
  return hr_plan_frozen_bytes_per_param (self);
}

void
hr_plan_add_host_parts (HrPlan     *self,
                        HrEstimate *est,
                        double      processes)
{
  const HrScenario *s = self->scenario;
  GPtrArray *components = s->model->components;
  double held = 0, moved = 0;

  for (guint i = 0; i < components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (components, i);
      double bytes = (double) c->params * part_bytes_per_param (self, c);

      if (hr_plan_part_unloaded (self, c) || hr_plan_part_offloaded (self, c))
        held += bytes;
      /* offload_model: the denoiser and the text encoders go to the CPU
       * (self.model.cpu(), text_encoder.model.cpu()) */
      else if (s->offload_model && !self->training && c->kind == HR_COMPONENT_TRANSFORMER)
        moved += bytes;
    }
  if (held + moved <= 0)
    return;

  {
    HrEstimateItem *item = g_new0 (HrEstimateItem, 1);
    double job = (held + moved) * processes;

    item->label = g_strdup (moved > 0
                              ? _("pipeline parts in host RAM: the text encoders kept on the CPU "
                                  "and the parts offload_model moves there")
                              : s->pipeline_offload != HR_PIPELINE_OFFLOAD_NONE
                              ? _("pipeline parts in host RAM: the models that wait on the CPU "
                                  "while the denoiser runs (pipeline_offload)")
                              : _("pipeline parts in host RAM: the frozen encoders kept on the "
                                  "CPU"));
    item->basis = HR_BASIS_DERIVED;
    item->bytes = item->low = job;
    item->high = job * 1.1;
    g_ptr_array_add (est->host_items, item);
    est->host_ram = hr_checked_add (est->host_ram, hr_checked_bytes (job, &est->overflow),
                                    &est->overflow);
  }
}

static void
setup_run (HrPlan      *self,
           const Part  *p,
           HrArchRun   *run)
{
  const HrScenario *s = self->scenario;
  gboolean peft = hr_method_is_peft (s->method) && self->training;

  memset (run, 0, sizeof *run);
  run->width = self->image_width;
  run->height = self->image_height;
  run->frames = self->frames;
  /* speech encoders: the clip's samples ("audio_seconds" x "sample_rate") */
  if (hr_arch_is_speech (p->c->arch))
    {
      run->samples = hr_scenario_get_audio_samples (s);
      run->sample_rate = hr_scenario_get_sample_rate (s);
    }
  /* "vae_encode_frames": the frames a video VAE encodes at once where the
   * stack does not chunk as the catalog's library does (SAT's
   * encode_first_stage passes the whole clip) */
  run->encode_frames = s->vae_encode_frames;
  run->e = hr_compute_activation_bytes (s->compute);
  /* autocast wraps the forward of the model accelerate prepared, the one
   * that trains; a frozen VAE or text encoder runs outside it, in the
   * dtype the script cast it to (train_text_to_image_lora.py encodes the
   * latents under no autocast, with the VAE in weight_dtype) */
  run->autocast = hr_compute_is_mixed (s->compute) && self->training && p->backprop &&
                  s->framework != HR_FRAMEWORK_JAX;
  run->e32 = run->autocast ? 4.0 : run->e;
  /* a part kept in its own dtype ("part_dtypes") that runs outside the
   * trained model's autocast computes in it (Wan's fp32 VAE decodes under
   * amp.autocast(dtype=torch.float), wan/modules/vae.py @9737cba) */
  {
    HrDtype own;

    if (!run->autocast && hr_scenario_get_part_dtype (s, p->c, &own))
      run->e = run->e32 = hr_dtype_element_bytes (own);
  }
  /* images come as fp32 tensors from the dataloader; a pure 16-bit model
   * is handed them cast (diffusers' scripts cast pixel_values to
   * weight_dtype) */
  run->input_bytes = hr_compute_is_pure16 (s->compute) ? run->e : 4.0;
  run->trainable = self->training && p->trainable > 0;
  run->grad = self->training && p->backprop;
  run->eager_attention = s->attention == HR_ATTENTION_EAGER;
  run->recompute = s->recompute != HR_RECOMPUTE_NONE;
  run->classes = s->num_classes;
  /* before PyTorch 1.11 softmax and log_softmax kept their input
   * (hr-arch.c, softmax_input_saved) */
  run->softmax_saves_input = s->framework != HR_FRAMEWORK_JAX &&
                             hr_scenario_pytorch_before (s, 1, 11);
  run->group_norm_via_batch_norm = s->framework != HR_FRAMEWORK_JAX &&
                                   hr_scenario_pytorch_before (s, 1, 6);
  run->mul_saves_both = s->framework != HR_FRAMEWORK_JAX && hr_scenario_pytorch_before (s, 1, 1);
  run->objects = s->max_objects > 0 ? s->max_objects : DEFAULT_MAX_OBJECTS;
  run->focal = hr_scenario_get_focal_loss (s);
  run->frozen_bn = hr_scenario_get_detector_frozen_bn (s);
  run->cascade_one_mask_head = hr_scenario_get_cascade_one_mask_head (s);
  run->dense_outputs_alive = hr_scenario_get_dense_outputs_alive (s);
  run->iou_frees_corners = hr_scenario_get_iou_frees_corners (s);
  /* hr-arch.c, assign_peak: torchvision's assigners keep the previous
   * image's IoU matrix */
  run->assigner_keeps_previous_iou = s->detection_framework_set &&
                                     s->detection_framework == HR_DETECTION_FRAMEWORK_TORCHVISION;
  /* hr-arch.c, mask_targets_peak: mmdetection's bitmaps unless the
   * scenario names another library */
  if (!s->detection_framework_set || s->detection_framework == HR_DETECTION_FRAMEWORK_MMDETECTION)
    run->mask_targets = HR_ARCH_MASK_TARGETS_PER_ROI;
  else if (s->detection_framework == HR_DETECTION_FRAMEWORK_TORCHVISION)
    run->mask_targets = HR_ARCH_MASK_TARGETS_PER_OBJECT;
  else
    run->mask_targets = HR_ARCH_MASK_TARGETS_HOST;
  /* hr-arch.c, conv_backward_peak: one data-parallel replica's gradients
   * that exist before the backward pass (ZeRO and FSDP reduce into
   * buckets and shards of their own); PyTorch's AccumulateGrad, not
   * JAX's functional gradients */
  run->autograd_moments = s->framework != HR_FRAMEWORK_JAX;
  if (run->trainable && run->autograd_moments &&
      !hr_plan_gradients_overlap_activations (self) &&
      (s->sharding == HR_SHARDING_NONE || s->sharding == HR_SHARDING_DDP) &&
      !s->optimizer_in_bwd && s->offload != HR_OFFLOAD_OPTIMIZER_GRADIENTS)
    run->accumulate_grad_bytes = self->g_bytes;
  if (peft && p->c->trainable && s->method != HR_METHOD_PREFIX &&
      s->method != HR_METHOD_PROMPT && s->method != HR_METHOD_LAYERNORM)
    {
      guint modules = hr_scenario_get_lora_modules (s);

      run->lora_rank = s->lora_rank;
      /* PEFT's target_modules on diffusers' attention: to_q, to_k, to_v,
       * to_out.0 (q, k, v, o); "all-linear" also the feed-forward, the
       * projections in and out and the time-embedding projections */
      run->lora_all_linear = (modules & HR_MODULES_MLP) != 0;
      run->lora_attention = modules & HR_MODULES_ATTENTION;
    }
}

double
hr_plan_arch_lora_params (HrPlan            *self,
                          const HrComponent *c)
{
  g_autoptr(HrArchResult) res = NULL;
  HrArchRun run;
  Part probe = { 0 };

  probe.c = (HrComponent *) c;
  probe.backprop = TRUE;
  setup_run (self, &probe, &run);
  if (run.lora_rank == 0)
    return 0;
  run.grad = TRUE;
  res = hr_arch_walk (c->arch, &run);
  return (double) res->lora_params;
}

/* The parameters of @c's largest layer, as the walk counts them. */
double
hr_plan_arch_largest_params (HrPlan            *self,
                             const HrComponent *c)
{
  g_autoptr(HrArchResult) res = NULL;
  HrArchRun run;
  Part probe = { 0 };

  probe.c = (HrComponent *) c;
  probe.backprop = TRUE;
  setup_run (self, &probe, &run);
  res = hr_arch_walk (c->arch, &run);
  return (double) res->largest_params;
}

/* The input the walk runs at, for the lines' labels. */
static char *
describe_input (HrPlan       *self,
                const HrArch *a)
{
  if (a->type == HR_ARCH_DREAMER)
    return g_strdup_printf (_("%u steps of %u×%u frames"), MAX (1, self->seq_len),
                            self->image_width, self->image_height);
  if (a->type == HR_ARCH_UNET)
    return g_strdup_printf (_("%u×%u latent"), hr_arch_latent_side (a, self->image_width),
                            hr_arch_latent_side (a, self->image_height));
  if (hr_arch_is_speech (a))
    {
      const HrScenario *s = self->scenario;

      return g_strdup_printf (_("%.3g s of audio at %u Hz, %u frames"),
                              hr_scenario_get_audio_seconds (s), hr_scenario_get_sample_rate (s),
                              hr_arch_speech_frames (a, hr_scenario_get_audio_samples (s),
                                                     hr_scenario_get_sample_rate (s)));
    }
  return g_strdup_printf (_("%u×%u input"), self->image_width, self->image_height);
}

/* The VAE's decoder at inference: every frame a video VAE decodes at once,
 * or one tile under vae_tiling. */
static double
decode_working_set (HrPlan           *self,
                    const Part       *p,
                    const HrArchRun  *run,
                    HrArchResult     *res)
{
  const HrArch *a = p->c->arch;
  double ws = res->decode_peak, cache = res->decode_cache;
  guint side = a->tile_size > 0 ? a->tile_size : VAE_TILE_PIXELS;
  gboolean framewise = a->hunyuan_vae &&
                       self->scenario->pipeline_library == HR_PIPELINE_LIBRARY_DIFFUSERS;
  guint frames_per_tile = framewise ? DIFFUSERS_HY_TILE_FRAMES : a->tile_frames;
  /* HunyuanVideo's temporal tiles (autoencoder_kl_causal_3d.py
   * temporal_tiled_decode): latent slices of tile_frames / compression + 1
   * frames once the clip has more than tile_frames / compression */
  guint tile_frames = frames_per_tile > 0 ? frames_per_tile + 1 : 0;
  gboolean in_time = tile_frames > 0 && 1 + (MAX (1, self->frames) - 1) / a->temporal_compression >
                                          frames_per_tile / a->temporal_compression;
  gboolean spatial = self->scenario->vae_tiling &&
                     (self->image_width > side || self->image_height > side);

  if (spatial || (in_time && (self->scenario->vae_tiling || framewise)))
    {
      HrArchRun tile = *run;
      g_autoptr(HrArchResult) t = NULL;

      if (spatial)
        {
          tile.width = MIN (self->image_width, side);
          tile.height = MIN (self->image_height, side);
        }
      if (in_time)
        tile.frames = MIN (tile.frames, tile_frames);
      t = hr_arch_walk (a, &tile);
      ws = t->decode_peak;
      cache = t->decode_cache;
    }
  if (a->hunyuan_vae)
    {
      /* its walk holds every frame it decodes at once; the decoded tiles
       * are kept, blended and joined by torch.cat: about twice the video */
      ws += 2.0 * 3.0 * MAX (1, self->frames) * self->image_width * self->image_height * run->e;
    }
  else if (a->temporal_compression > 1)
    {
      /* the frames of one chunk; the cache every causal convolution keeps
       * of the last VIDEO_CACHE_FRAMES frames of its input for the next
       * chunk, all of them alive through the decode; and the decoded
       * video, which grows chunk by chunk and is joined by torch.cat (the
       * frames so far and the joined copy: twice the video at the end) */
      double video = 3.0 * MAX (1, self->frames) * self->image_width * self->image_height *
                     run->e;

      ws = ws * MIN (a->frames_per_chunk, self->frames) + VIDEO_CACHE_FRAMES * cache +
           2.0 * video;
    }
  return ws;
}

/* What a peak of the walk (hr-arch.h, HrArchPeak) is, in the estimate's
 * words. */
static const char *
describe_peak (const char *what)
{
  static const struct {
    const char *what;
    const char *label;
  } labels[] = {
    { "rpn assigner", N_("the RPN's IoU assigner: every ground-truth box against every anchor "
                         "of one image, beside the saved tensors") },
    { "rpn backward", N_("the backward pass at the RPN's finest level: every level's waiting "
                         "gradient and that level's convolution gradients, beside the "
                         "backbone's and the neck's saved tensors") },
    { "retina assigner", N_("RetinaNet's IoU assigner: every ground-truth box against every "
                            "anchor of one image, beside the saved tensors") },
    { "attention gradients", N_("the backward pass through eager attention: the gradients of the "
                                "probabilities and of the scores, beside the saved tensors") },
    { "focal loss", N_("the focal loss's per-anchor, per-class terms, beside the saved tensors") },
    { "mask logits", N_("the backward pass through the mask head: the per-class logits' "
                        "gradient, then the upsampled features' gradients, beside the saved "
                        "tensors") },
    { "keypoint head backward", N_("the backward pass through the keypoint head: the last "
                                   "ReLU's gradients in and out, beside the saved tensors") },
    { "mask targets", N_("the mask targets: the ground-truth masks as full-image fp32 bitmaps, "
                         "one image at a time, beside the saved tensors") },
    { "segmentation loss", N_("the cross-entropy over logits resized to the crop, beside the "
                              "saved tensors") },
    { "ssd loss gradients", N_("the backward pass starting at SSD's loss: the gradients of the "
                               "log-probabilities and of the logits of every default box") },
    { "convolution backward", N_("the backward pass through a convolution: its output's and its "
                                 "input's gradients and a fresh weight gradient, beside what the "
                                 "layers up to it saved") },
    { "branch gradients", N_("the backward pass where branches meet: the gradient summed so "
                             "far from the branches that share an input, the next branch's and "
                             "their sum, beside what the layers before it saved") },
    { "segmentation loss gradients", N_("the backward pass starting at the loss: the gradients "
                                        "of the full-resolution logits beside every saved "
                                        "tensor") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_strcmp0 (labels[i].what, what) == 0)
      return _(labels[i].label);
  return what;
}

/* The step's highest moment above what the backward pass keeps: a loss's
 * temporaries, an assigner's IoU matrix, the first gradients (hr-arch.c
 * registers them where the code runs them).  With checkpointing, the
 * rebuilt block (a later moment) is counted by the caller; only what
 * exceeds it is added here. */
static void
add_peak_line (HrPlan           *self,
               Acc              *acc,
               const Part       *p,
               const HrArchRun  *run,
               HrArchResult     *res,
               double            b)
{
  const char *what = NULL;
  double extra = hr_arch_result_peak_extra (res, b, run->recompute, &what);
  double low = ARCH_LOW * extra, high = ARCH_HIGH * extra;
  HrBasis basis = HR_BASIS_DERIVED;

  if (run->recompute)
    extra = MAX (0, extra - res->recompute_peak * b);
  if (extra <= 0)
    return;

  low = ARCH_LOW * extra;
  high = ARCH_HIGH * extra;
  if (self->scenario->max_objects == 0 && run->objects > 0 &&
      (g_strcmp0 (what, "rpn assigner") == 0 || g_strcmp0 (what, "retina assigner") == 0))
    {
      /* the boxes of the most crowded image were assumed */
      HrArchRun half = *run;
      g_autoptr(HrArchResult) r2 = NULL;

      half.objects = MAX (1, run->objects / 2);
      r2 = hr_arch_walk (p->c->arch, &half);
      low = ARCH_LOW * MAX (0, hr_arch_result_peak_extra (r2, b, run->recompute, NULL) -
                               (run->recompute ? r2->recompute_peak * b : 0));
      basis = HR_BASIS_ASSUMED;
    }

  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, basis, extra, low, high,
              "%s: %s", p->c->name, describe_peak (what));
  acc->activations += extra;
}

/* What the GPU holds beside the tensors a CPU trace counts (the trace
 * sees exact byte counts, no workspaces and no cuDNN state), each as a
 * line of its own so that the gap between a traced and a GPU-measured
 * peak is these lines, not a factor:
 *
 * - the caching allocator's rounding: every saved tensor takes whole
 *   512-byte blocks (hr-arch.c, alloc_round, from c10/cuda/
 *   CUDACachingAllocator.cpp @eb42ad6e), which torch.cuda.
 *   max_memory_allocated counts; BatchNorm's per-channel statistics, two
 *   small fp32 tensors a layer, are where it shows;
 * - cuDNN BatchNorm's reserve space: in training each BatchNorm layer
 *   allocates a byte tensor of the size cuDNN asks for and keeps it for
 *   the backward pass (pytorch/pytorch aten/src/ATen/native/cudnn/
 *   BatchNorm.cpp @015d4cad, cudnn_batch_norm: reserve = at::empty(
 *   reserve_size) from cudnnGetBatchNormalizationTrainingExReserveSpaceSize,
 *   mode CUDNN_BATCHNORM_SPATIAL_PERSISTENT, op CUDNN_BATCHNORM_OPS_BN
 *   with no fused activation, whose reserve cuDNN may size 0): none to
 *   one block a layer;
 * - cuDNN's convolution workspace: each call allocates the workspace of
 *   the algorithm chosen from the caching allocator and frees it after
 *   the call (aten/src/ATen/native/cudnn/Conv_v7.cpp @01b468ad,
 *   allocate_workspace in the try_all lambdas); when it cannot be
 *   allocated, try_all catches the out-of-memory error and takes the next
 *   algorithm, and in benchmark mode (torch.backends.cudnn.benchmark)
 *   cudnnFind is offered only what fits the largest free cached block
 *   (getMaxWorkspaceSize).  It never makes a run fail, but a measured
 *   max_memory_allocated includes it: nothing at the centre, up to the
 *   largest convolution's im2col matrix (the GEMM algorithm's) at the
 *   top.
 *
 * PyTorch on the GPU only: JAX's XLA has its own allocator and
 * BatchNorm. */
static void
add_device_lines (HrPlan             *self,
                  Acc                *acc,
                  const Part         *p,
                  const HrArchRun    *run,
                  const HrArchResult *res,
                  double              b)
{
  double rounding, reserve, workspace;

  if (self->scenario->framework == HR_FRAMEWORK_JAX)
    return;

  rounding = hr_arch_result_rounding (res, b);
  /* with checkpointing only the blocks' inputs stay: their share */
  if (run->recompute && res->saved > 0)
    rounding *= res->kept / res->saved;
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, rounding,
              rounding, rounding,
              _("%s: the caching allocator's 512-byte blocks, each saved tensor rounded up "
                "(a CPU trace counts exact bytes)"),
              p->c->name);
  acc->activations += rounding;

  reserve = 512.0 * res->bn_layers;
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_ASSUMED, 0, 0,
              reserve,
              _("%s: cuDNN BatchNorm's reserve space, kept for the backward pass by %u "
                "layers (cuDNN sizes it; none to one block each)"),
              p->c->name, res->bn_layers);

  workspace = res->conv_workspace * b;
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_ASSUMED, 0, 0,
              workspace,
              _("%s: cuDNN convolution workspace, per call and freed after it, up to the "
                "largest convolution's im2col matrix; PyTorch takes another algorithm "
                "when it does not fit"),
              p->c->name);
}

/* A walked vision transformer's attention kernels, a line of their own
 * (HrArchResult.attn_kernel, from hr-arch.c token_attention): the score
 * matrices the math path keeps (PyTorch 1.13's nn.MultiheadAttention,
 * every CPU trace, torchvision's Swin whatever the kernel: torch/nn/
 * functional.py @v1.13.1 multi_head_attention_forward, bmm and softmax),
 * or the output and fp32 log-sum-exp that SDPA's flash and
 * memory-efficient kernels keep instead (torch/nn/functional.py @v2.0.0
 * multi_head_attention_forward calls scaled_dot_product_attention when
 * need_weights is False, as torchvision's EncoderBlock asks;
 * aten/src/ATen/native/native_functions.yaml @v2.0.0
 * _scaled_dot_product_flash_attention returns the output and the
 * logsumexp its backward reads).  A trace on the CPU sees the first; a
 * GPU run under PyTorch 2 with "sdpa" or "flash" keeps the second.
 * Returns the bytes added, which the caller's line leaves out. */
static double
add_attention_kernel_line (Acc                *acc,
                           const Part         *p,
                           const HrArchResult *res,
                           double              b)
{
  const HrArch *a = p->c->arch;
  double bytes = res->attn_kernel * b;

  if (bytes <= 0 || !hr_arch_type_is_vision_transformer (a->type))
    return 0;
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, bytes,
              ARCH_LOW * bytes, ARCH_HIGH * bytes,
              res->scores > 0
                ? _("%s: the attention score matrices the math path keeps (the softmax of heads × "
                    "tokens² per layer, or per window) × micro-batch %u")
                : _("%s: the attention kernel's output and log-sum-exp, which SDPA's flash and "
                    "memory-efficient kernels keep instead of score matrices × micro-batch %u"),
              p->c->name, (guint) b);
  return bytes;
}

/* What a part walked block by block saves for its backward pass. */
static void
add_trained_arch_part (HrPlan             *self,
                       Acc                *acc,
                       Part               *p,
                       const HrArchRun    *run,
                       HrArchResult       *res,
                       const char         *input,
                       double              b)
{
  const HrComponent *c = p->c;
  const HrArch *a = c->arch;
  guint micro_batch = (guint) b;
  /* DreamerV3's encoder and decoder run on every step of the
   * sequence (batch_length frames per sample) */
  double steps = a->type == HR_ARCH_DREAMER ? MAX (1, self->seq_len) : 1;
  double per_sample = (run->recompute ? res->kept : res->saved) * steps;
  double bytes = per_sample * b + res->fixed_saved * steps;

  acc->walk_saved += bytes;
  if (acc->est != NULL)
    for (guint i = 0; i < res->blocks->len; i++)
      {
        const HrArchBlock *block = &g_array_index (res->blocks, HrArchBlock, i);
        HrEstimateItem *item = g_new0 (HrEstimateItem, 1);

        item->bucket = HR_BUCKET_ACTIVATIONS;
        item->basis = HR_BASIS_DERIVED;
        item->label = g_strdup_printf ("%s: %s", c->name, block->name);
        item->bytes = item->low = item->high =
          (run->recompute ? block->kept : block->saved) * steps * b;
        g_ptr_array_add (acc->est->walk_blocks, item);
      }
  if (acc->est != NULL && res->fixed_saved > 0)
    {
      HrEstimateItem *item = g_new0 (HrEstimateItem, 1);

      item->bucket = HR_BUCKET_ACTIVATIONS;
      item->basis = HR_BASIS_DERIVED;
      item->label = g_strdup_printf ("%s: once per step", c->name);
      item->bytes = item->low = item->high = res->fixed_saved * steps;
      g_ptr_array_add (acc->est->walk_blocks, item);
    }
  add_peak_line (self, acc, p, run, res, b * steps);
  add_device_lines (self, acc, p, run, res, b * steps);

  if (run->recompute)
    {
      double rebuilt = res->recompute_peak * b;

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, bytes,
                  ARCH_LOW * bytes, ARCH_HIGH * bytes,
                  _("%s: %u blocks at %s × micro-batch %u, checkpointed: the inputs of "
                    "the checkpointed blocks and what the rest saves"),
                  c->name, res->blocks->len, input, micro_batch);
      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, rebuilt,
                  ARCH_LOW * rebuilt, ARCH_HIGH * rebuilt,
                  _("%s: the largest checkpointed block, rebuilt in the backward pass"),
                  c->name);
      acc->activations += bytes + rebuilt;
    }
  else
    {
      double kernel = add_attention_kernel_line (acc, p, res, b);

      hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED,
                  bytes - kernel, ARCH_LOW * (bytes - kernel), ARCH_HIGH * (bytes - kernel),
                  res->scores > 0 && kernel <= 0
                    ? _("%s: what %u blocks at %s save for the backward pass × micro-batch "
                        "%u (with the attention score matrices)")
                    : _("%s: what %u blocks at %s save for the backward pass × micro-batch "
                        "%u"),
                  c->name, res->blocks->len, input, micro_batch);
      acc->activations += bytes;
    }
}

gboolean
hr_plan_is_pipeline_inference (HrPlan *self)
{
  const char *family = self->scenario->model->family;

  return !self->training &&
         (g_strcmp0 (family, "diffusion") == 0 || g_strcmp0 (family, "video") == 0);
}

/* Keeps the larger of a phase's parts (two text encoders run one after
 * the other), with the weights @part brings to the GPU when it runs alone
 * ("pipeline_offload"); takes @label. */
void
hr_plan_set_phase (PipelinePhase *phase,
                   const Part    *part,
                   double         working_set,
                   char          *label)
{
  if (working_set + part->alone_weights <= phase->working_set + phase->weights &&
      phase->label != NULL)
    {
      g_free (label);
      return;
    }
  phase->working_set = working_set;
  if (part->alone_weights > 0)
    {
      /* accelerate's CpuOffload.pre_forward moves the model before to
       * the CPU and empties the cache (huggingface/accelerate @16cb6eb
       * src/accelerate/hooks.py: prev_module_hook.offload();
       * clear_device_cache()) */
      phase->alone = TRUE;
      phase->cache_emptied = TRUE;
      phase->weights = part->alone_weights;
    }
  g_free (phase->label);
  phase->label = label;
}

/* A pipeline decodes once, after the last denoising step: the VAE's
 * working set is a phase of its own, never alive beside the denoiser's
 * (diffusers' pipelines call self.vae.decode after the denoising loop,
 * e.g. pipelines/wan/pipeline_wan.py @58eb52c0; Tencent/HunyuanVideo
 * @e965abb hyvideo/diffusion/pipelines/pipeline_hunyuan_video.py after
 * its loop; Wan2.1 wan/text2video.py @9737cba generate). */
static void
add_decode_phase (HrPlan      *self,
                  Acc         *acc,
                  const Part  *p,
                  double       ws,
                  const char  *what)
{
  PipelinePhase *phase = &acc->decode_phase;
  const HrComponent *c = p->c;

  if (self->scenario->offload_model)
    {
      /* Wan2.1's --offload_model: the DiT goes to the CPU and the cache
       * is emptied before the VAE decodes (self.model.cpu();
       * torch.cuda.empty_cache()), the text encoder left after encoding:
       * the VAE decodes with its own weights alone */
      phase->alone = TRUE;
      phase->cache_emptied = TRUE;
      phase->weights = p->params * part_bytes_per_param (self, c);
      hr_plan_set_phase (phase, p, ws,
                         g_strdup_printf (_("%s: decodes after the denoiser and text encoder "
                                            "left the GPU (offload_model): its weights and "
                                            "working set, where they exceed the denoising"),
                                          c->name));
      return;
    }
  hr_plan_set_phase (phase, p, ws,
                     p->alone_weights > 0
                       ? g_strdup_printf (_("%s: %s, after the last denoising step, with its "
                                            "weights alone on the GPU (pipeline_offload), "
                                            "where they exceed the denoising"), c->name, what)
                       : g_strdup_printf (_("%s: %s, after the last denoising step, where it "
                                            "exceeds the denoising's"), c->name, what));
}

void
hr_plan_add_arch_part (HrPlan *self,
                       Acc    *acc,
                       Part   *p,
                       double  b)
{
  const HrScenario *s = self->scenario;
  const HrComponent *c = p->c;
  const HrArch *a = c->arch;
  g_autoptr(HrArchResult) res = NULL;
  g_autofree char *input = NULL;
  HrArchRun run;
  guint micro_batch = (guint) b;

  setup_run (self, p, &run);
  run.batch = MAX (1, micro_batch);
  res = hr_arch_walk (a, &run);
  input = describe_input (self, a);

  if (self->training && p->backprop)
    {
      add_trained_arch_part (self, acc, p, &run, res, input, b);
      return;
    }

  /* no backward pass through it: its forward pass runs on its own, before
   * (a frozen VAE encoding the batch under no_grad) or instead of one
   * (inference); classifier-free guidance runs a U-Net on two copies of
   * the batch */
  {
    double ws;
    const char *what;
    g_autofree char *what_frames = NULL;

    if (a->type == HR_ARCH_VAE)
      {
        ws = self->training ? res->encode_peak : decode_working_set (self, p, &run, res);
        if (self->training && a->temporal_compression > 1)
          what_frames = g_strdup_printf (
            _("frozen, encodes the batch without gradients, %u of its %u frames at a time "
              "through the causal 3D encoder (its working set, before the backward pass)"),
            hr_arch_encode_frames (a, &run), MAX (1, self->frames));
        what = what_frames != NULL ? what_frames
             : self->training
                 ? _("frozen, encodes the batch without gradients (its working set, before "
                     "the backward pass)")
                 : s->vae_tiling
                 ? _("decodes the latents in tiles (one tile's working set)")
                 : _("decodes the latents (its working set)");
      }
    else
      {
        ws = res->forward_peak;
        if (!self->training && a->type == HR_ARCH_UNET && !a->controlnet)
          ws *= 2;
        what = self->training
                 ? _("frozen, no backward: its forward working set")
                 : a->type == HR_ARCH_UNET
                 ? _("forward working set of one denoising step (two copies of the batch "
                     "for classifier-free guidance)")
                 : _("forward working set, without gradients");
      }
    ws *= b;

    if (self->training)
      {
        /* alive only while the part runs, apart from the backward pass's
         * peak: counted where it rises above that peak (below) */
        if (ws > acc->forward_transient)
          {
            acc->forward_transient = ws;
            acc->forward_transient_basis = HR_BASIS_DERIVED;
            g_clear_pointer (&acc->forward_transient_label, g_free);
            acc->forward_transient_label = g_strdup_printf ("%s: %s", c->name, what);
          }
        return;
      }

    if (hr_plan_is_pipeline_inference (self) && a->type == HR_ARCH_VAE)
      {
        add_decode_phase (self, acc, p, ws, what);
        return;
      }

    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, ws,
                FORWARD_LOW * ws, FORWARD_HIGH * ws, "%s: %s", c->name, what);
    acc->activations += ws;
  }
}

/* What a phase that runs apart from the denoising needs beyond it; with
 * @scale on its working set. */
static double
phase_beyond (Acc                 *acc,
              const PipelinePhase *phase,
              double               scale)
{
  double before = acc->activations + (phase->alone ? acc->bytes[HR_BUCKET_WEIGHTS] : 0);

  return scale * phase->working_set + (phase->alone ? phase->weights : 0) - before;
}

static void
add_pipeline_phase (Acc           *acc,
                    PipelinePhase *phase)
{
  double over = MAX (0, phase_beyond (acc, phase, 1.0));
  double high = MAX (over, phase_beyond (acc, phase, FORWARD_HIGH));

  if (phase->label != NULL)
    hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, over, 0,
                high, "%s", phase->label);
  acc->activations += over;
  g_clear_pointer (&phase->label, g_free);
}

/* PyTorch's caching allocator keeps the blocks a phase frees: a later
 * phase is handed a cached block only for a request it can hold, and
 * otherwise a new segment from cudaMalloc; the cache is given back only
 * when cudaMalloc fails or torch.cuda.empty_cache() is called
 * (pytorch/pytorch @001074d c10/cuda/CUDACachingAllocator.cpp,
 * DeviceCachingAllocator::malloc:
 * get_free_block, then alloc_block, then release_cached_blocks).  Without
 * an empty_cache between the phases the earlier ones' working sets can
 * stay reserved beside the later one's: reserved up to their sum, at
 * least the largest phase. */
static double
phases_cached (Acc *acc)
{
  const PipelinePhase *e = &acc->encode_phase, *v = &acc->decode_phase;
  double weights = acc->bytes[HR_BUCKET_WEIGHTS];
  double den = weights + acc->activations;
  double enc = e->working_set + (e->alone ? e->weights : weights);
  double dec = v->working_set + (v->alone ? v->weights : weights);
  double enc_kept = e->cache_emptied ? 0 : e->working_set;
  double den_kept = v->cache_emptied ? 0 : acc->activations + enc_kept;
  double reserved = MAX (enc, MAX (den + enc_kept, dec + den_kept));

  return MAX (0, reserved - MAX (enc, MAX (den, dec)));
}

static void
add_pipeline_phases (Acc *acc)
{
  double cached;

  if (acc->encode_phase.label == NULL && acc->decode_phase.label == NULL)
    return;
  cached = phases_cached (acc);
  add_pipeline_phase (acc, &acc->encode_phase);
  add_pipeline_phase (acc, &acc->decode_phase);
  hr_acc_add (acc, HR_BUCKET_OVERHEAD, HR_METRIC_RESERVED, HR_BASIS_DERIVED, cached, 0, cached,
              _("the working sets of the pipeline's earlier phases, freed but still cached "
                "by PyTorch's allocator (no empty_cache between them): reused only for "
                "requests they can hold"));
  memset (&acc->encode_phase, 0, sizeof acc->encode_phase);
  memset (&acc->decode_phase, 0, sizeof acc->decode_phase);
}

void
hr_plan_add_forward_transient (HrPlan *self,
                               Acc    *acc)
{
  double over;

  (void) self;
  add_pipeline_phases (acc);
  if (acc->forward_transient <= 0)
    return;

  /* a frozen part's forward pass runs when no activation of the backward
   * pass is alive yet: the peak is the larger of the two */
  over = MAX (0, acc->forward_transient - acc->activations);
  hr_acc_add (acc, HR_BUCKET_ACTIVATIONS, HR_METRIC_ALLOCATED, acc->forward_transient_basis,
              over, 0, MAX (over, FORWARD_HIGH * acc->forward_transient - acc->activations),
              "%s", acc->forward_transient_label);
  acc->activations += over;
  g_clear_pointer (&acc->forward_transient_label, g_free);
}

/* diffusers' EMAModel (training_utils.py): shadow copies of the trained
 * parameters in fp32, on the GPU unless --offload_ema; train_text_to_image
 * and the SDXL scripts create it with --use_ema. */
void
hr_plan_add_ema (HrPlan *self,
                 Acc    *acc)
{
  double np = 0;

  if (!self->training || !self->scenario->ema)
    return;

  for (guint i = 0; i < self->parts->len; i++)
    {
      const Part *p = &g_array_index (self->parts, Part, i);

      np += p->trainable + p->adapters;
    }
  if (np <= 0)
    return;

  hr_acc_add (acc, HR_BUCKET_OPTIMIZER, HR_METRIC_ALLOCATED, HR_BASIS_DERIVED, 4.0 * np,
              4.0 * np, 4.0 * np,
              _("EMA copy of the trained weights (fp32, diffusers' EMAModel)"));
}

void
hr_plan_add_vision_notes (HrPlan    *self,
                          GPtrArray *notes)
{
  const HrScenario *s = self->scenario;
  gboolean any = FALSE, unet = FALSE;

  for (guint i = 0; i < self->parts->len; i++)
    {
      const Part *p = &g_array_index (self->parts, Part, i);

      if (p->c->arch != NULL)
        {
          any = TRUE;
          unet = unet || p->c->arch->type == HR_ARCH_UNET;
        }
    }
  if (!any)
    return;

  g_ptr_array_add (notes, g_strdup (
    _("CNN, U-Net and VAE parts are walked block by block at the input size: each op keeps "
      "what PyTorch's autograd formula saves (a convolution its input even when frozen, a "
      "frozen linear nothing, frozen BatchNorm nothing, SiLU and GroupNorm their inputs, "
      "fp32 under autocast)")));
  if (self->training && s->recompute != HR_RECOMPUTE_NONE)
    g_ptr_array_add (notes, g_strdup (
      _("gradient checkpointing as diffusers and OpenMMLab apply it: every residual and "
        "transformer block keeps only its input and is run again in the backward pass")));
  if (unet && s->attention != HR_ATTENTION_EAGER)
    g_ptr_array_add (notes, g_strdup (
      _("the U-Net's attention runs in a memory-efficient kernel (SDPA or xformers): no score "
        "matrix is kept; eager attention would keep heads × tokens² per layer")));
  if (s->prior_preservation && self->training)
    g_ptr_array_add (notes, g_strdup (
      _("prior preservation: every step runs a class image beside each instance image, so the "
        "model sees twice the micro-batch")));
}
