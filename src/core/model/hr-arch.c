/* hr-arch.c: the blocks of vision and diffusion networks, and what each saves
 *
 * Every op below saves for the backward pass what PyTorch's autograd
 * formula for it names (pytorch/pytorch tools/autograd/derivatives.yaml
 * @d327a787, and the same entries in the PyTorch 2.x file):
 *
 * - convolution (cudnn_convolution, convolution): "self, weight, bias:
 *   cudnn_convolution_backward(self, grad, weight, ...)", one formula for
 *   all three, and the comment beside it: "we unconditionally save input
 *   and weight, even if weight/input gradients are not being computed".  A
 *   frozen convolution a gradient flows through keeps its input.
 * - mm/addmm (a linear layer): "mat1: mm_mat1_backward(grad, mat2, ...)"
 *   and "mat2: mm_mat2_backward(grad, mat1, ...)": the input (mat1) is
 *   saved only for the weight's gradient, so a frozen linear keeps nothing.
 * - native_batch_norm / cudnn_batch_norm: input and the per-channel
 *   statistics, in training and in eval mode alike (eval mode goes through
 *   native_batch_norm_backward).  torchvision's FrozenBatchNorm2d is
 *   x * scale + bias with buffers (torchvision/ops/misc.py): "mul.Tensor:
 *   self: grad * other" saves only the per-channel scale, so it keeps
 *   nothing per element (from PyTorch 1.1 on; bn, mul_saves_both).
 * - native_layer_norm, native_group_norm: input, mean and rstd.
 * - relu / relu_ / threshold_: the result ("NB: `output` instead of `self`
 *   saves memory"); gelu and silu: the input (silu: silu_backward(grad,
 *   self)); sigmoid: the result; _softmax: the result.
 * - max_pool2d_with_indices: the input and the int64 indices;
 *   _adaptive_avg_pool2d: the input; upsample_*2d and cat: only sizes;
 *   add: nothing; mul of two tensors that need gradients: both.
 * - _fused_dropout / native_dropout: the mask (one byte an element); p = 0
 *   returns the input untouched (ATen dropout's p == 0 shortcut).
 * - scaled_dot_product attention with the memory-efficient or flash
 *   kernels (and xformers' memory_efficient_attention): query, key, value,
 *   the output and a logsumexp per head and query; the math path keeps the
 *   softmax of the s x s_kv scores and the probabilities the bmm with V
 *   reads.
 *
 * Under autocast (torch.autocast, which accelerate and the training scripts
 * turn on for --mixed_precision), a convolution or linear casts an fp32
 * input to 16 bits and saves that copy (autocast caches only the casts of
 * weights, torch/csrc/autograd/autocast_mode.cpp cached_cast); group_norm,
 * layer_norm and softmax are on the fp32 list, so their outputs are fp32
 * and the SiLU after a GroupNorm saves an fp32 tensor.
 *
 * Checkpointing, as diffusers applies it (each ResnetBlock2D and each
 * BasicTransformerBlock through torch.utils.checkpoint when
 * enable_gradient_checkpointing() is on, diffusers
 * models/unets/unet_2d_blocks.py and transformers/transformer_2d.py) and
 * as OpenMMLab backbones do with with_cp (each residual block, mmdet
 * models/backbones/resnet.py): a checkpointed block keeps only its input;
 * in the backward pass it is run again and its own saved tensors live
 * while its gradient is computed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-arch"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "hr-arch.h"

/* DreamerV3's decoder splits the deterministic state into this many blocks
 * (dec.simple.bspace, dreamerv3/configs.yaml) and its convolutions are
 * 5 x 5 (enc and dec kernel) */
#define DREAMER_BSPACE 8
#define DREAMER_KERNEL 5

const HrEnumName hr_arch_type_names[] = {
  { HR_ARCH_RESNET, "resnet" },
  { HR_ARCH_CONVNEXT, "convnext" },
  { HR_ARCH_EFFICIENTNET, "efficientnet" },
  { HR_ARCH_REGNET, "regnet" },
  { HR_ARCH_MIT, "mit" },
  { HR_ARCH_UNET, "unet" },
  { HR_ARCH_VAE, "vae" },
  { HR_ARCH_DREAMER, "dreamer" },
  { HR_ARCH_MOBILENET_V2, "mobilenet-v2" },
  { HR_ARCH_MOBILENET_V3_LARGE, "mobilenet-v3-large" },
  { HR_ARCH_MOBILENET_V3_SMALL, "mobilenet-v3-small" },
  { HR_ARCH_R3D, "r3d" },
  { HR_ARCH_MC3, "mc3" },
  { HR_ARCH_R2PLUS1D, "r2plus1d" },
  { HR_ARCH_WAV2VEC2, "wav2vec2" },
  { HR_ARCH_CONFORMER, "conformer" },
  { HR_ARCH_VIT, "vit" },
  { HR_ARCH_SWIN, "swin" },
  { HR_ARCH_SWIN_V2, "swin-v2" },
  { HR_ARCH_VGG, "vgg" },
  { 0, NULL },
};

const HrEnumName hr_arch_bn_names[] = {
  { HR_ARCH_BN_TRAIN, "train" },
  { HR_ARCH_BN_EVAL, "eval" },
  { HR_ARCH_BN_FROZEN, "frozen" },
  { 0, NULL },
};

const HrEnumName hr_arch_norm_names[] = {
  { HR_ARCH_NORM_BN, "bn" },
  { HR_ARCH_NORM_GN, "gn" },
  { HR_ARCH_NORM_GN_WS, "gn+ws" },
  { 0, NULL },
};

const HrEnumName hr_arch_roi_layer_names[] = {
  { HR_ARCH_ROI_LAYER_ALIGN, "roi-align" },
  { HR_ARCH_ROI_LAYER_DEFORM, "deform-roi-pool" },
  { HR_ARCH_ROI_LAYER_MODULATED_DEFORM, "modulated-deform-roi-pool" },
  { 0, NULL },
};

const HrEnumName hr_arch_box_head_names[] = {
  { HR_ARCH_BOX_HEAD_2FC, "2fc" },
  { HR_ARCH_BOX_HEAD_4CONV1FC, "4conv1fc" },
  { 0, NULL },
};

const HrEnumName hr_arch_head_names[] = {
  { HR_ARCH_HEAD_NONE, "none" },
  { HR_ARCH_HEAD_CLASSIFIER, "classifier" },
  { HR_ARCH_HEAD_FASTER_RCNN, "faster-rcnn" },
  { HR_ARCH_HEAD_MASK_RCNN, "mask-rcnn" },
  { HR_ARCH_HEAD_RETINANET, "retinanet" },
  { HR_ARCH_HEAD_FCOS, "fcos" },
  { HR_ARCH_HEAD_DETR, "detr" },
  { HR_ARCH_HEAD_PSP, "psp" },
  { HR_ARCH_HEAD_ASPP, "aspp" },
  { HR_ARCH_HEAD_UPER, "uper" },
  { HR_ARCH_HEAD_SEGFORMER, "segformer" },
  { HR_ARCH_HEAD_FCN, "fcn" },
  { HR_ARCH_HEAD_DEEPLABV3, "deeplabv3" },
  { HR_ARCH_HEAD_LRASPP, "lraspp" },
  { HR_ARCH_HEAD_RPN, "rpn" },
  { HR_ARCH_HEAD_KEYPOINT_RCNN, "keypoint-rcnn" },
  { HR_ARCH_HEAD_SSD, "ssd" },
  { HR_ARCH_HEAD_SSDLITE, "ssdlite" },
  { HR_ARCH_HEAD_FASTER_RCNN_C4, "faster-rcnn-c4" },
  { HR_ARCH_HEAD_FASTER_RCNN_DC5, "faster-rcnn-dc5" },
  { HR_ARCH_HEAD_PANOPTIC_FPN, "panoptic-fpn" },
  { HR_ARCH_HEAD_MASK_RCNN_C4, "mask-rcnn-c4" },
  { HR_ARCH_HEAD_MASK_RCNN_DC5, "mask-rcnn-dc5" },
  { HR_ARCH_HEAD_MMSEG_FCN, "mmseg-fcn" },
  { HR_ARCH_HEAD_MMSEG_ASPP, "mmseg-aspp" },
  { 0, NULL },
};

const HrEnumName hr_arch_focal_names[] = {
  { HR_ARCH_FOCAL_FUSED, "fused" },
  { HR_ARCH_FOCAL_PYTHON, "python" },
  { 0, NULL },
};

/* ------------------------------------------------------------------ */
/* Reading                                                             */

static const char * const arch_keys[] = {
  "type", "depths", "widths", "strides", "dilations", "heads", "sr_ratios",
  "transformer_layers", "bottleneck", "groups", "width_per_group", "deep_stem",
  "frozen_stages", "bn", "width_mult", "depth_mult", "regnet_depth", "w0", "wa",
  "wm", "group_width", "se_ratio", "in_channels", "out_channels", "latent_scale",
  "layers_per_block", "head_dim", "cross_attention_dim", "text_tokens",
  "linear_projection", "addition_embed", "controlnet", "controlnet_residuals",
  "mid_attention", "mid_transformer_layers", "temporal_compression",
  "frames_per_chunk", "encode_frames_per_chunk", "wan_decoder", "hunyuan_vae",
  "tile_size", "tile_frames", "quant_conv", "head", "classes",
  "head_channels", "aux_head", "rois",
  "mask_rois", "deter", "stoch", "units", "dilated", "reduced_tail", "source", "keypoints",
  "stuff_classes", "sem_seg_dims",
  /* speech encoders (hr_arch_read_speech) */
  "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
  "feat_extract_norm", "conv_bias", "do_stable_layer_norm", "num_conv_pos_embeddings",
  "num_conv_pos_embedding_groups", "conv_dim", "conv_kernel", "conv_stride",
  "freeze_feature_encoder", "attention_dropout", "activation_dropout", "hidden_dropout",
  "feat_proj_dropout", "layerdrop", "num_mel_bins", "frame_shift_ms", "time_reduction",
  "depthwise_kernel", "conv_group_norm",
  "patch", "mlp_dim", "window", "drop_path",
  "cascade_stages", "fixed_size", "norm", "box_head", "roi_layer", "dcn", NULL
};

static const char * const dcn_keys[] = {
  "stages", "modulated", "deform_groups", NULL
};

HrArch *
hr_arch_copy (const HrArch *arch)
{
  g_return_val_if_fail (arch != NULL, NULL);
  return g_memdup2 (arch, sizeof *arch);
}

void
hr_arch_free (HrArch *arch)
{
  g_free (arch);
}

/* An array of small integers, as "depths": [3, 4, 6, 3] is written. */
static gboolean
read_uints (HrReader   *reader,
            const char *key,
            guint       max,
            guint      *out,
            guint      *n_out)
{
  JsonNode *node = hr_reader_get_node (reader, key);
  JsonArray *array;
  guint n;

  if (node == NULL)
    return TRUE;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return hr_reader_fail (reader, key, _("\"%s\" must be an array of integers"), key);

  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0 || n > HR_ARCH_MAX_STAGES)
    return hr_reader_fail (reader, key, _("\"%s\" must list 1 to %u stages, not %u"), key,
                           HR_ARCH_MAX_STAGES, n);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      double v;

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          (json_node_get_value_type (element) != G_TYPE_INT64 &&
           json_node_get_value_type (element) != G_TYPE_DOUBLE))
        return hr_reader_fail (reader, key, _("\"%s\" must be an array of integers"), key);
      v = json_node_get_double (element);
      if (v != floor (v) || v < 0 || v > max)
        return hr_reader_fail (reader, key,
                               _("\"%s\": element %u must be an integer from 0 to %u"), key,
                               i + 1, max);
      out[i] = (guint) v;
    }

  if (n_out != NULL)
    {
      if (*n_out != 0 && *n_out != n)
        return hr_reader_fail (reader, key,
                               _("\"%s\" lists %u stages, but the architecture has %u"), key, n,
                               *n_out);
      *n_out = n;
    }
  return TRUE;
}

static gboolean
read_small (HrReader   *reader,
            const char *key,
            guint64     min,
            guint64     max,
            guint      *out)
{
  guint64 v = *out;

  if (!hr_reader_uint (reader, key, FALSE, min, max, &v))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

/* A ViT or Swin: a patch size, and per stage the depth, the width and
 * heads that divide it (ViT: one stage; Swin: 4, each twice as wide as
 * the one before, as PatchMerging makes it, and a window). */
static gboolean
check_vision_transformer (HrReader     *reader,
                          const HrArch *a)
{
  gboolean swin = a->type == HR_ARCH_SWIN || a->type == HR_ARCH_SWIN_V2;

  if (a->patch == 0)
    return hr_reader_fail (reader, "patch", _("a \"%s\" needs \"patch\", the side of its patches"),
                           hr_enum_to_nick (hr_arch_type_names, a->type));
  if (a->n_stages != (swin ? 4 : 1))
    return hr_reader_fail (reader, "depths",
                           swin ? _("a \"swin\" network has 4 stages: give \"depths\" with 4 numbers")
                                : _("a \"vit\" network has one stage: give \"depths\" with one "
                                    "number, its layers"));
  for (guint i = 0; i < a->n_stages; i++)
    if (a->widths[i] == 0 || a->heads[i] == 0 || a->widths[i] % a->heads[i] != 0 ||
        (i > 0 && a->widths[i] != 2 * a->widths[i - 1]))
      return hr_reader_fail (reader, "widths",
                             _("\"widths\" and \"heads\" need a value per stage, the heads "
                               "dividing the width (a Swin stage twice as wide as the one "
                               "before)"));
  if (!swin && a->mlp_dim == 0)
    return hr_reader_fail (reader, "mlp_dim", _("a \"vit\" needs \"mlp_dim\", its MLP's width"));
  if (swin && a->window == 0)
    return hr_reader_fail (reader, "window", _("a \"swin\" needs \"window\", its window's side"));
  return TRUE;
}

/* the 3x3 convolution's channels in bottleneck stage @stage (0 for
 * res2): torchvision's Bottleneck, width = planes x width_per_group / 64
 * x groups */
static guint
bottleneck_width (const HrArch *a,
                  guint         stage)
{
  return (64u << stage) * a->width_per_group / 64 * a->groups;
}

/* detectron2's C4 heads: the backbone ends at res4, res5 runs on the
 * RoIs (Res5ROIHeads) */
static gboolean
is_c4_head (const HrArch *a)
{
  return a->head == HR_ARCH_HEAD_FASTER_RCNN_C4 || a->head == HR_ARCH_HEAD_MASK_RCNN_C4;
}

/* detectron2's DC5 heads: every head on a dilated res5 */
static gboolean
is_dc5_head (const HrArch *a)
{
  return a->head == HR_ARCH_HEAD_FASTER_RCNN_DC5 || a->head == HR_ARCH_HEAD_MASK_RCNN_DC5;
}

static gboolean
has_dcn (const HrArch *a)
{
  for (guint i = 0; i < HR_ARCH_MAX_STAGES; i++)
    if (a->dcn_stages[i])
      return TRUE;
  return FALSE;
}

/* "stuff_classes" and "sem_seg_dims" belong to the "panoptic-fpn" head,
 * whose towers run GroupNorm of 32 groups (SEM_SEG_HEAD.NORM "GN") */
/* "box_head" and "roi_layer" shape the box head of a Faster or Mask
 * R-CNN (and their Cascade forms) only */
static gboolean
check_box_head (HrReader     *reader,
                const HrArch *a)
{
  gboolean rcnn = a->head == HR_ARCH_HEAD_FASTER_RCNN || a->head == HR_ARCH_HEAD_MASK_RCNN;

  if (a->box_head == HR_ARCH_BOX_HEAD_4CONV1FC && !rcnn)
    return hr_reader_fail (reader, "box_head",
                           _("\"box_head\" needs a \"faster-rcnn\" or \"mask-rcnn\" head"));
  if (a->roi_layer != HR_ARCH_ROI_LAYER_ALIGN && !rcnn)
    return hr_reader_fail (reader, "roi_layer",
                           _("\"roi_layer\" needs a \"faster-rcnn\" or \"mask-rcnn\" head"));
  return TRUE;
}

static gboolean
check_panoptic (HrReader     *reader,
                const HrArch *a)
{
  static const char * const keys[] = { "stuff_classes", "sem_seg_dims" };

  if (a->head != HR_ARCH_HEAD_PANOPTIC_FPN)
    {
      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        if (hr_reader_has (reader, keys[i]))
          return hr_reader_fail (reader, keys[i], _("\"%s\" needs the \"panoptic-fpn\" head"),
                                 keys[i]);
      return TRUE;
    }
  if (a->sem_seg_dims % 32 != 0)
    return hr_reader_fail (reader, "sem_seg_dims",
                           _("\"sem_seg_dims\" must be a multiple of 32 (GroupNorm's 32 "
                             "groups), not %u"),
                           a->sem_seg_dims);
  return TRUE;
}

static gboolean
check_arch (HrReader *reader,
            HrArch   *a)
{
  if (a->cascade_stages > 0 && a->head != HR_ARCH_HEAD_FASTER_RCNN &&
      a->head != HR_ARCH_HEAD_MASK_RCNN && a->head != HR_ARCH_HEAD_PANOPTIC_FPN)
    return hr_reader_fail (reader, "cascade_stages",
                           _("\"cascade_stages\" needs a \"faster-rcnn\", \"mask-rcnn\" or "
                             "\"panoptic-fpn\" head"));
  if (a->head == HR_ARCH_HEAD_LRASPP && a->type != HR_ARCH_MOBILENET_V3_LARGE)
    return hr_reader_fail (reader, "head",
                           _("the \"lraspp\" head sits on a \"mobilenet-v3-large\" backbone"));
  if (a->head == HR_ARCH_HEAD_SSDLITE && a->type != HR_ARCH_MOBILENET_V3_LARGE)
    return hr_reader_fail (reader, "head",
                           _("the \"ssdlite\" head sits on a \"mobilenet-v3-large\" backbone"));
  if ((is_c4_head (a) || is_dc5_head (a)) && (a->type != HR_ARCH_RESNET || !a->bottleneck))
    return hr_reader_fail (reader, "head",
                           _("the \"%s\" head sits on a bottleneck \"resnet\" backbone"),
                           hr_enum_to_nick (hr_arch_head_names, a->head));
  if (a->head == HR_ARCH_HEAD_SSD && a->type != HR_ARCH_VGG)
    return hr_reader_fail (reader, "head",
                           _("the \"ssd\" head sits on a \"vgg\" backbone"));
  if (a->norm != HR_ARCH_NORM_BN && a->type != HR_ARCH_RESNET)
    return hr_reader_fail (reader, "norm", _("\"norm\": \"%s\" needs a \"resnet\" network"),
                           hr_enum_to_nick (hr_arch_norm_names, a->norm));
  if (has_dcn (a) && (a->type != HR_ARCH_RESNET || !a->bottleneck))
    return hr_reader_fail (reader, "dcn",
                           _("\"dcn\" needs a bottleneck \"resnet\" network (mmdet's "
                             "BasicBlock has no deformable convolution)"));
  if (a->dcn_stages[3] && is_c4_head (a))
    return hr_reader_fail (reader, "dcn",
                           _("\"dcn\" on stage 4 needs a backbone that runs it: the "
                             "\"%s\" head runs res5 on the RoIs"),
                           hr_enum_to_nick (hr_arch_head_names, a->head));
  for (guint i = 0; i < 4 && has_dcn (a); i++)
    {
      guint width = bottleneck_width (a, i);

      if (a->dcn_stages[i] && width % a->dcn_deform_groups != 0)
        return hr_reader_fail (reader, "dcn",
                               _("\"deform_groups\" %u does not divide stage %u's %u "
                                 "channels"),
                               a->dcn_deform_groups, i + 1, width);
    }
  switch (a->type)
    {
    case HR_ARCH_VGG:
      if (a->n_stages != 5)
        return hr_reader_fail (reader, "depths",
                               _("a \"vgg\" network has 5 stages: give \"depths\" with 5 "
                                 "numbers"));
      for (guint i = 0; i < 5; i++)
        if (a->depths[i] == 0 || a->widths[i] == 0)
          return hr_reader_fail (reader, "depths",
                                 _("\"depths\" and \"widths\" need a non-zero value per "
                                   "stage"));
      if (a->head != HR_ARCH_HEAD_NONE && a->head != HR_ARCH_HEAD_SSD)
        return hr_reader_fail (reader, "head",
                               _("a \"vgg\" network takes the \"ssd\" head, or none"));
      break;
    case HR_ARCH_RESNET:
    case HR_ARCH_CONVNEXT:
    case HR_ARCH_MIT:
    case HR_ARCH_R3D:
    case HR_ARCH_MC3:
    case HR_ARCH_R2PLUS1D:
      if (a->n_stages != 4)
        return hr_reader_fail (reader, "depths",
                               _("a \"%s\" network has 4 stages: give \"depths\" with 4 numbers"),
                               hr_enum_to_nick (hr_arch_type_names, a->type));
      if (a->type == HR_ARCH_CONVNEXT || a->type == HR_ARCH_MIT)
        for (guint i = 0; i < 4; i++)
          if (a->widths[i] == 0)
            return hr_reader_fail (reader, "widths",
                                   _("\"widths\" needs the channels of each of the 4 stages"));
      if (a->type == HR_ARCH_MIT)
        for (guint i = 0; i < 4; i++)
          if (a->heads[i] == 0 || a->sr_ratios[i] == 0 || a->widths[i] % a->heads[i] != 0)
            return hr_reader_fail (reader, "heads",
                                   _("\"heads\" and \"sr_ratios\" need a non-zero value per "
                                     "stage, and the heads must divide the stage's width"));
      break;
    case HR_ARCH_UNET:
    case HR_ARCH_VAE:
      if (a->n_stages == 0 || a->widths[0] == 0)
        return hr_reader_fail (reader, "widths",
                               _("a \"%s\" needs \"widths\", its block_out_channels"),
                               hr_enum_to_nick (hr_arch_type_names, a->type));
      for (guint i = 0; i < a->n_stages; i++)
        {
          guint heads = a->head_dim > 0 ? a->widths[i] / a->head_dim : a->heads[i];

          if (a->widths[i] == 0 || a->widths[i] % 32 != 0)
            return hr_reader_fail (reader, "widths",
                                   _("\"widths\": every level needs a multiple of 32 channels "
                                     "(GroupNorm's 32 groups)"));
          if (a->type == HR_ARCH_UNET && a->transformer_layers[i] > 0 &&
              (heads == 0 || a->widths[i] % heads != 0))
            return hr_reader_fail (reader, "heads",
                                   _("a level with attention needs \"heads\" (or \"head_dim\") "
                                     "that divide its channels"));
        }
      if (a->latent_scale == 0)
        return hr_reader_fail (reader, "latent_scale", _("\"latent_scale\" must be at least 1"));
      break;
    case HR_ARCH_EFFICIENTNET:
      break;
    case HR_ARCH_VIT:
    case HR_ARCH_SWIN:
    case HR_ARCH_SWIN_V2:
      if (!check_vision_transformer (reader, a))
        return FALSE;
      break;
    case HR_ARCH_MOBILENET_V2:
    case HR_ARCH_MOBILENET_V3_LARGE:
    case HR_ARCH_MOBILENET_V3_SMALL:
      if (a->head != HR_ARCH_HEAD_NONE && a->head != HR_ARCH_HEAD_CLASSIFIER &&
          !(a->head == HR_ARCH_HEAD_LRASPP && a->type == HR_ARCH_MOBILENET_V3_LARGE) &&
          !(a->head == HR_ARCH_HEAD_SSDLITE && a->type == HR_ARCH_MOBILENET_V3_LARGE))
        return hr_reader_fail (reader, "head",
                               _("a MobileNet takes the \"classifier\" head, or \"lraspp\" "
                                 "on \"mobilenet-v3-large\""));
      break;
    case HR_ARCH_DREAMER:
      if (a->n_stages < 2 || a->deter == 0 || a->stoch == 0 || a->units == 0 ||
          a->deter % DREAMER_BSPACE != 0)
        return hr_reader_fail (reader, "widths",
                               _("a \"dreamer\" network needs \"widths\" (its CNN depths, 2 or "
                                 "more), \"deter\" (a multiple of 8), \"stoch\", \"classes\" "
                                 "and \"units\""));
      for (guint i = 0; i < a->n_stages; i++)
        if (a->widths[i] == 0)
          return hr_reader_fail (reader, "widths", _("\"widths\": every depth must be above 0"));
      break;
    case HR_ARCH_WAV2VEC2:
    case HR_ARCH_CONFORMER:
      /* hr_arch_read_speech checked them */
      break;
    case HR_ARCH_REGNET:
      if (a->regnet_depth == 0 || a->w0 <= 0 || a->wa <= 0 || a->wm <= 1 || a->group_width == 0)
        return hr_reader_fail (reader, "regnet_depth",
                               _("a \"regnet\" needs \"regnet_depth\", \"w0\", \"wa\", \"wm\" "
                                 "(above 1) and \"group_width\""));
      break;
    default:
      g_assert_not_reached ();
    }
  return TRUE;
}

/* "norm", "box_head" and "roi_layer" (hr-arch.h HrArchNorm,
 * HrArchBoxHead, HrArchRoiLayer) */
static gboolean
read_norm_keys (HrReader *reader,
                HrArch   *a)
{
  int norm_kind = HR_ARCH_NORM_BN, box = HR_ARCH_BOX_HEAD_2FC, roi = HR_ARCH_ROI_LAYER_ALIGN;

  if (!hr_reader_enum (reader, "norm", hr_arch_norm_names, &norm_kind) ||
      !hr_reader_enum (reader, "box_head", hr_arch_box_head_names, &box) ||
      !hr_reader_enum (reader, "roi_layer", hr_arch_roi_layer_names, &roi))
    return FALSE;
  a->norm = norm_kind;
  a->box_head = box;
  a->roi_layer = roi;
  return TRUE;
}

/* "dcn": {"stages": [false, true, true, true], "modulated": false,
 * "deform_groups": 1}, mmdet's ResNet dcn=dict(type='DCN' or 'DCNv2',
 * deform_groups=...) and stage_with_dcn (hr-arch.h) */
static gboolean
read_dcn (HrReader *parent,
          HrArch   *a)
{
  JsonNode *node = hr_reader_get_node (parent, "dcn");
  g_autofree char *pointer = NULL;
  HrReader reader;
  JsonArray *stages;
  guint64 groups = 1;
  gboolean ok = FALSE;

  if (node == NULL)
    return TRUE;
  pointer = hr_reader_child_pointer (parent, "dcn");
  if (!hr_reader_init (&reader, parent->doc, pointer, node, "\"dcn\"", parent->error))
    return FALSE;
  if (!hr_reader_check_keys (&reader, dcn_keys) || !hr_reader_require (&reader, "stages"))
    goto out;

  node = hr_reader_get_node (&reader, "stages");
  if (!JSON_NODE_HOLDS_ARRAY (node) ||
      json_array_get_length (stages = json_node_get_array (node)) != 4)
    {
      hr_reader_fail (&reader, "stages",
                      _("\"stages\" must list 4 booleans, one per ResNet stage "
                        "(mmdet's stage_with_dcn)"));
      goto out;
    }
  for (guint i = 0; i < 4; i++)
    {
      JsonNode *element = json_array_get_element (stages, i);

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          json_node_get_value_type (element) != G_TYPE_BOOLEAN)
        {
          hr_reader_fail (&reader, "stages",
                          _("\"stages\": element %u must be true or false"), i + 1);
          goto out;
        }
      a->dcn_stages[i] = json_node_get_boolean (element);
    }

  if (!hr_reader_bool (&reader, "modulated", &a->dcn_modulated) ||
      !hr_reader_uint (&reader, "deform_groups", FALSE, 1, 64, &groups))
    goto out;
  a->dcn_deform_groups = (guint) groups;
  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok;
}

/* What an "arch" object leaves out: torchvision's ResNet and diffusers'
 * blocks */
static void
set_defaults (HrArch *a)
{
  a->groups = 1;
  a->width_per_group = 64;
  a->frozen_stages = -1;
  a->dcn_deform_groups = 1;
  a->bn = HR_ARCH_BN_TRAIN;
  a->width_mult = 1.0;
  a->depth_mult = 1.0;
  a->se_ratio = 0.25;
  a->in_channels = 4;
  a->out_channels = 4;
  a->latent_scale = 8;
  a->layers_per_block = 2;
  a->text_tokens = 77;
  a->cross_attention_dim = 768;
  a->mid_attention = TRUE;
  a->mid_transformer_layers = 0;
  a->classes = 1000;
  a->rois = 512;
  a->mask_rois = 128;
  a->keypoints = 17;
  /* detectron2 @02b5c4e2 config/defaults.py: SEM_SEG_HEAD.NUM_CLASSES 54
   * (COCO panoptic's 53 stuff classes and one "things" class:
   * data/datasets/builtin_meta.py "54 names for COCO stuff categories
   * (including "things")"), CONVS_DIM 128 */
  a->stuff_classes = 54;
  a->sem_seg_dims = 128;
  a->temporal_compression = 1;
  a->frames_per_chunk = 1;
  a->quant_conv = TRUE;
  for (guint i = 0; i < HR_ARCH_MAX_STAGES; i++)
    {
      a->strides[i] = i == 0 ? 1 : 2;
      a->dilations[i] = 1;
    }
}

/* What the keys read imply where the file does not say it */
static void
set_implied (HrArch *a)
{
  /* torchvision's VGG16 ("D" in torchvision/models/vgg.py cfgs): 64, 128,
   * 256, 512 and 512 channels */
  if (a->type == HR_ARCH_VGG && a->widths[0] == 0)
    {
      static const guint vgg_widths[5] = { 64, 128, 256, 512, 512 };

      for (guint i = 0; i < 5; i++)
        a->widths[i] = vgg_widths[i];
    }
  /* ssd300_vgg16 builds SSD with size (300, 300), which its
   * GeneralizedRCNNTransform gets as fixed_size (pytorch/vision @v0.14.1
   * torchvision/models/detection/ssd.py ssd300_vgg16, SSD.__init__) */
  if (a->head == HR_ARCH_HEAD_SSD && a->fixed_size == 0)
    a->fixed_size = 300;
  /* and ssdlite320_mobilenet_v3_large with size (320, 320) (ssdlite.py) */
  if (a->head == HR_ARCH_HEAD_SSDLITE && a->fixed_size == 0)
    a->fixed_size = 320;
  if (a->type == HR_ARCH_UNET && a->mid_transformer_layers == 0 && a->n_stages > 0)
    a->mid_transformer_layers = MAX (1, a->transformer_layers[a->n_stages - 1]);
}

HrArch *
hr_arch_read (HrReader   *parent,
              const char *key)
{
  g_autoptr(HrArch) a = g_new0 (HrArch, 1);
  g_autofree char *pointer = hr_reader_child_pointer (parent, key);
  g_autofree char *source = NULL;
  HrReader reader;
  int value;
  gboolean ok = FALSE;

  if (!hr_reader_init (&reader, parent->doc, pointer, hr_reader_get_node (parent, key),
                       "\"arch\"", parent->error))
    return NULL;

  set_defaults (a);

  if (!hr_reader_check_keys (&reader, arch_keys) || !hr_reader_require (&reader, "type"))
    goto out;

  value = 0;
  if (!hr_reader_enum (&reader, "type", hr_arch_type_names, &value))
    goto out;
  a->type = value;

  {
    int head = HR_ARCH_HEAD_NONE, bn = HR_ARCH_BN_TRAIN;
    guint64 frozen = 0;

    if (!read_uints (&reader, "depths", 1000, a->depths, &a->n_stages) ||
        !read_uints (&reader, "widths", 1 << 16, a->widths, &a->n_stages) ||
        !read_uints (&reader, "strides", 64, a->strides, &a->n_stages) ||
        !read_uints (&reader, "dilations", 64, a->dilations, &a->n_stages) ||
        !read_uints (&reader, "heads", 4096, a->heads, &a->n_stages) ||
        !read_uints (&reader, "sr_ratios", 64, a->sr_ratios, &a->n_stages) ||
        !read_uints (&reader, "transformer_layers", 1000, a->transformer_layers,
                     &a->n_stages) ||
        !hr_reader_bool (&reader, "bottleneck", &a->bottleneck) ||
        !read_small (&reader, "groups", 1, 4096, &a->groups) ||
        !read_small (&reader, "width_per_group", 1, 4096, &a->width_per_group) ||
        !hr_reader_bool (&reader, "deep_stem", &a->deep_stem) ||
        !hr_reader_enum (&reader, "bn", hr_arch_bn_names, &bn) ||
        !read_norm_keys (&reader, a) ||
        !read_dcn (&reader, a) ||
        !hr_reader_double (&reader, "width_mult", FALSE, 0.1, 16, &a->width_mult) ||
        !hr_reader_double (&reader, "depth_mult", FALSE, 0.1, 16, &a->depth_mult) ||
        !read_small (&reader, "regnet_depth", 1, 1000, &a->regnet_depth) ||
        !hr_reader_double (&reader, "w0", FALSE, 1, 1 << 16, &a->w0) ||
        !hr_reader_double (&reader, "wa", FALSE, 0.01, 1 << 16, &a->wa) ||
        !hr_reader_double (&reader, "wm", FALSE, 1.0001, 16, &a->wm) ||
        !read_small (&reader, "group_width", 1, 1 << 16, &a->group_width) ||
        !hr_reader_double (&reader, "se_ratio", FALSE, 0, 1, &a->se_ratio) ||
        !read_small (&reader, "in_channels", 1, 1 << 16, &a->in_channels) ||
        !read_small (&reader, "out_channels", 1, 1 << 16, &a->out_channels) ||
        !read_small (&reader, "latent_scale", 1, 1024, &a->latent_scale) ||
        !read_small (&reader, "layers_per_block", 1, 64, &a->layers_per_block) ||
        !read_small (&reader, "head_dim", 1, 4096, &a->head_dim) ||
        !read_small (&reader, "cross_attention_dim", 1, 1 << 16, &a->cross_attention_dim) ||
        !read_small (&reader, "text_tokens", 1, 1 << 16, &a->text_tokens) ||
        !hr_reader_bool (&reader, "linear_projection", &a->linear_projection) ||
        !hr_reader_bool (&reader, "addition_embed", &a->addition_embed) ||
        !hr_reader_bool (&reader, "controlnet", &a->controlnet) ||
        !hr_reader_bool (&reader, "controlnet_residuals", &a->controlnet_residuals) ||
        !hr_reader_bool (&reader, "mid_attention", &a->mid_attention) ||
        !hr_reader_bool (&reader, "quant_conv", &a->quant_conv) ||
        !hr_reader_bool (&reader, "wan_decoder", &a->wan_decoder) ||
        !hr_reader_bool (&reader, "hunyuan_vae", &a->hunyuan_vae) ||
        !read_small (&reader, "tile_size", 8, 1 << 16, &a->tile_size) ||
        !read_small (&reader, "tile_frames", 1, 4096, &a->tile_frames) ||
        !read_small (&reader, "mid_transformer_layers", 1, 1000, &a->mid_transformer_layers) ||
        !read_small (&reader, "temporal_compression", 1, 64, &a->temporal_compression) ||
        !read_small (&reader, "frames_per_chunk", 1, 4096, &a->frames_per_chunk) ||
        !read_small (&reader, "encode_frames_per_chunk", 1, 4096,
                     &a->encode_frames_per_chunk) ||
        !hr_reader_enum (&reader, "head", hr_arch_head_names, &head) ||
        !read_small (&reader, "classes", 1, 1 << 20, &a->classes) ||
        !read_small (&reader, "head_channels", 1, 1 << 16, &a->head_channels) ||
        !hr_reader_bool (&reader, "aux_head", &a->aux_head) ||
        !hr_reader_bool (&reader, "dilated", &a->dilated) ||
        !hr_reader_bool (&reader, "reduced_tail", &a->reduced_tail) ||
        !read_small (&reader, "rois", 1, 1 << 16, &a->rois) ||
        !read_small (&reader, "mask_rois", 1, 1 << 16, &a->mask_rois) ||
        !read_small (&reader, "keypoints", 1, 1024, &a->keypoints) ||
        !read_small (&reader, "stuff_classes", 1, 1 << 16, &a->stuff_classes) ||
        !read_small (&reader, "sem_seg_dims", 1, 1 << 16, &a->sem_seg_dims) ||
        !read_small (&reader, "cascade_stages", 1, 8, &a->cascade_stages) ||
        !read_small (&reader, "fixed_size", 1, 4096, &a->fixed_size) ||
        !read_small (&reader, "deter", 1, 1 << 20, &a->deter) ||
        !read_small (&reader, "stoch", 1, 1 << 16, &a->stoch) ||
        !read_small (&reader, "units", 1, 1 << 20, &a->units) ||
        !read_small (&reader, "patch", 1, 1024, &a->patch) ||
        !read_small (&reader, "mlp_dim", 1, 1 << 20, &a->mlp_dim) ||
        !read_small (&reader, "window", 1, 1024, &a->window) ||
        !hr_reader_double (&reader, "drop_path", FALSE, 0, 1, &a->drop_path) ||
        !hr_reader_string (&reader, "source", FALSE, &source))
      goto out;
    a->head = head;
    a->bn = bn;

    if (hr_reader_has (&reader, "frozen_stages"))
      {
        if (!hr_reader_uint (&reader, "frozen_stages", FALSE, 0, 4, &frozen))
          goto out;
        /* OpenMMLab's convention: 0 freezes the stem, n the stem and the
         * first n stages; absent (-1) freezes nothing */
        a->frozen_stages = (int) frozen;
      }
  }

  set_implied (a);

  if (a->type == HR_ARCH_DREAMER && !hr_reader_has (&reader, "classes"))
    {
      hr_reader_fail (&reader, "classes",
                      _("a \"dreamer\" network needs \"classes\", the classes of each of its "
                        "\"stoch\" categorical latents"));
      goto out;
    }

  if (hr_arch_is_speech (a) && !hr_arch_read_speech (&reader, a))
    goto out;

  if (!check_arch (&reader, a) || !check_box_head (&reader, a) || !check_panoptic (&reader, a))
    goto out;

  ok = TRUE;

out:
  hr_reader_clear (&reader);
  return ok ? g_steal_pointer (&a) : NULL;
}

guint
hr_arch_latent_side (const HrArch *arch,
                     guint         pixels)
{
  return MAX (1, pixels / MAX (1, arch->latent_scale));
}

/* ------------------------------------------------------------------ */
/* The walk                                                            */

/* A tensor of the forward pass: its shape per sample, its element size,
 * whether some op already saved it, and whether it needs a gradient. */
typedef struct {
  guint    c, h, w;
  double   eb;
  guint    id;       /* which tensor it is: copies share it */
  gboolean grad;
  guint    t;        /* video: frames (0 and 1 both mean an image) */
} T;

typedef struct {
  const HrArch    *a;
  const HrArchRun *r;
  HrArchResult    *res;
  T                x;          /* the current tensor */
  guint            classes;    /* what the head predicts */
  gboolean         train;      /* the weights of the current region train */
  gboolean         count_params;  /* FALSE while a shared head runs on later levels */
  gboolean         lora_here;  /* adapters sit on the attention projections here */
  /* the current block */
  guint            block;
  gboolean         ckpt;
  double           block_input;
  gboolean         block_input_counted;
  gboolean         block_input_taken;
  double           block_recompute;
  double           block_transient;  /* the largest transient of the rebuilt block's backward */
  guint64          block_params;
  double           held;       /* forward only: tensors kept for later */
  guint            time_taps;  /* frames a 3D convolution's kernel spans, less one */
  gboolean         cache_convs;  /* count each k > 1 convolution's input in decode_cache */
  /* branch_grad_peak: the summed gradients of a shared input, for the
   * branch's first convolution to register */
  double           branch_grads;
  /* the last convolution's weights, output channels and whether its
   * weights train and its input wants a gradient: what "gn+ws"
   * standardizes when a GroupNorm follows it (weight_standardize) */
  double           conv_weights;
  guint            conv_cout;
  gboolean         conv_train;
  gboolean         conv_in_grad;
  guint            next_id;
  GHashTable      *saved_ids;  /* the tensors some op saved */
  GArray          *block_ids;  /* those saved inside the current checkpointed block */
} Walk;

/* A new tensor: an op's output. */
static void
fresh (Walk *W,
       T    *t)
{
  t->id = ++W->next_id;
}

static gboolean
is_saved (Walk    *W,
          const T *t)
{
  return g_hash_table_contains (W->saved_ids, GUINT_TO_POINTER (t->id));
}

static void
mark (Walk *W,
      T    *t)
{
  g_hash_table_add (W->saved_ids, GUINT_TO_POINTER (t->id));
  if (W->ckpt)
    g_array_append_val (W->block_ids, t->id);
}

static double
numel (const T *t)
{
  return (double) t->c * t->h * t->w * MAX (1, t->t);
}

static double
tbytes (const T *t)
{
  return numel (t) * t->eb;
}

static HrArchBlock *
cur_block (Walk *W)
{
  return &g_array_index (W->res->blocks, HrArchBlock, W->block);
}

static void
params (Walk    *W,
        guint64  n)
{
  if (W->count_params)
    W->res->params += n;
  W->res->largest_params = MAX (W->res->largest_params, n);
}

static void
fwd (Walk   *W,
     double  in,
     double  out,
     double  extra)
{
  W->res->forward_peak = MAX (W->res->forward_peak, W->held + in + out + extra);
}

static void
save_scores (Walk   *W,
             double  bytes,
             double  scores)
{
  HrArchBlock *b = cur_block (W);

  if (bytes <= 0)
    return;

  g_array_append_val (W->res->saved_sizes, bytes);
  b->saved += bytes;
  b->scores += scores;
  W->res->saved += bytes;
  W->res->scores += scores;

  if (W->ckpt)
    {
      W->block_recompute += bytes;
      if (!W->block_input_taken)
        {
          W->block_input_taken = TRUE;
          if (!W->block_input_counted)
            {
              W->res->kept += W->block_input;
              b->kept += W->block_input;
            }
        }
    }
  else
    {
      W->res->kept += bytes;
      b->kept += bytes;
    }
}

static void
save (Walk   *W,
      double  bytes)
{
  save_scores (W, bytes, 0);
}

static void
save_tensor (Walk *W,
             T    *t)
{
  if (!is_saved (W, t))
    {
      save (W, tbytes (t));
      mark (W, t);
    }
}

/* A moment above the saved tensors (HrArchPeak): what is saved so far,
 * plus @transient bytes per sample and @fixed bytes per step. */
static void
peak (Walk       *W,
      double      transient,
      double      fixed,
      const char *what)
{
  HrArchPeak pk = { W->res->saved, W->res->kept, transient, fixed, what };

  if (transient > 0 || fixed > 0)
    g_array_append_val (W->res->peaks, pk);
}

/* What a convolution or linear layer keeps of its input: its own 16-bit
 * copy when autocast casts an fp32 input, the input itself otherwise. */
static void
save_matmul_input (Walk *W,
                   T    *in)
{
  if (W->r->autocast && in->eb > W->r->e)
    save (W, numel (in) * W->r->e);
  else
    save_tensor (W, in);
}

static void
block_begin (Walk       *W,
             gboolean    checkpointable,
             const char *format,
             ...) G_GNUC_PRINTF (3, 4);

static void
block_begin (Walk       *W,
             gboolean    checkpointable,
             const char *format,
             ...)
{
  HrArchBlock b = { 0 };
  va_list args;

  va_start (args, format);
  b.name = g_strdup_vprintf (format, args);
  va_end (args);
  b.checkpointed = checkpointable && W->r->recompute;
  g_array_append_val (W->res->blocks, b);

  W->block = W->res->blocks->len - 1;
  W->ckpt = b.checkpointed;
  W->block_input = tbytes (&W->x);
  W->block_input_counted = is_saved (W, &W->x);
  g_array_set_size (W->block_ids, 0);
  W->block_input_taken = FALSE;
  W->block_recompute = 0;
  W->block_transient = 0;
  W->block_params = W->res->params;
}

static void
block_end (Walk *W)
{
  HrArchBlock *b = cur_block (W);

  b->channels = W->x.c;
  b->height = W->x.h;
  b->width = W->x.w;
  b->params = W->res->params - W->block_params;
  if (W->ckpt)
    {
      /* the block's own tensors are dropped after its forward pass and
       * rebuilt in the backward pass: its output is nobody's saved tensor */
      W->res->recompute_peak = MAX (W->res->recompute_peak,
                                    W->block_recompute + W->block_input + W->block_transient);
      for (guint i = 0; i < W->block_ids->len; i++)
        g_hash_table_remove (W->saved_ids,
                             GUINT_TO_POINTER (g_array_index (W->block_ids, guint, i)));
      g_array_set_size (W->block_ids, 0);
    }
  W->ckpt = FALSE;
}

/* The CUDA caching allocator's block: every allocation is rounded up to
 * a multiple of 512 bytes, and max_memory_allocated counts the rounded
 * size (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp @eb42ad6e:
 * kMinBlockSize 512, "all sizes are rounded to at least 512 bytes",
 * round_size).  Segments (2 MiB for allocations up to 1 MiB, 20 MiB up to
 * 10 MiB, larger ones rounded to 2 MiB: kSmallBuffer, kLargeBuffer,
 * kRoundLarge) are reserved memory, the estimate's fragmentation line. */
#define ALLOC_BLOCK 512.0

static double
alloc_round (double bytes)
{
  return bytes <= 0 ? 0 : ceil (bytes / ALLOC_BLOCK) * ALLOC_BLOCK;
}

/* cuDNN's GEMM algorithm "expresses the convolution as an explicit
 * matrix product", whose workspace holds the input unrolled: C_in/groups
 * x kernel taps per output position (cuDNN API reference,
 * cudnnConvolutionFwdAlgo_t CUDNN_CONVOLUTION_FWD_ALGO_GEMM); the
 * implicit-GEMM algorithms need little or none.  The largest one bounds
 * what a call's workspace can take (hr-estimate-vision.c). */
static void
conv_workspace (Walk   *W,
                double  elements)
{
  W->res->conv_workspace = MAX (W->res->conv_workspace, elements * W->r->e);
}

static guint
conv_out (guint h,
          guint k,
          guint stride,
          guint pad,
          guint dilation)
{
  guint span = dilation * (k - 1) + 1;

  if (h + 2 * pad < span)
    return 1;
  return (h + 2 * pad - span) / stride + 1;
}

/* A convolution's backward pass (ATen convolution_backward, the ends of
 * which tests/trace/peak_trace.py profiles): its output's gradient, its
 * input's where one flows, and, where the step's gradients already exist
 * (run->accumulate_grad_bytes), the fresh weight gradient AccumulateGrad
 * then adds in place (torch/csrc/autograd/functions/accumulate_grad.h
 * @v1.13.1, accumulateGrad: `variable_grad += new_grad` when the gradient
 * is defined), beside what the layers up to this one saved.  Where the
 * input is a decoder's concatenated branches (mmsegmentation's PSPHead
 * bottleneck, 2048 + 4 x 512 channels) this is the step's highest moment:
 * PSPNet R50-D8 at 512 x 256, two crops, peaks there at 1,259,749,384
 * bytes above the weights, gradients and momentum (operator ends). */
static void
conv_backward_peak (Walk    *W,
                    T       *in,
                    T       *out,
                    guint64  weights)
{
  double fresh_grad = W->train ? (double) weights * W->r->accumulate_grad_bytes : 0;
  double branch = W->branch_grads;

  W->branch_grads = 0;
  if (!W->r->autograd_moments)
    return;
  if (branch > 0)
    peak (W, branch, fresh_grad, "branch gradients");
  peak (W, tbytes (out) + (in->grad ? tbytes (in) : 0), fresh_grad, "convolution backward");
}

/* @in feeds several branches (ASPP's rates, a pyramid's poolings), so its
 * gradient is summed from theirs as each one's backward pass ends
 * (torch/csrc/autograd/input_buffer.cpp @v1.13.1, InputBuffer::
 * accumulate: `old_var + var`, out of place): the sum so far, the
 * branch's gradient and their sum, beside what the layers before the
 * branch saved and the fresh weight gradient of its first convolution,
 * which the branch's next convolution registers (conv_pad).  Called
 * before each branch but the first to run backward (the last to run
 * forward).  torchvision's DeepLabV3 ResNet-50 at 128 x 128, two images,
 * peaks at such an add after a dilated ASPP convolution's backward:
 * 163,272,200 bytes above the weights, gradients and momentum (operator
 * ends). */
static void
branch_grad_peak (Walk *W,
                  T    *in)
{
  W->branch_grads = in->grad ? 3.0 * tbytes (in) : 0;
}

/* nn.Conv2d: saves its input whenever a gradient is wanted of it or of the
 * weight (the formula above). */
static T
conv_pad (Walk     *W,
          T        *in,
          guint     cout,
          guint     k,
          guint     stride,
          guint     pad,
          guint     groups,
          guint     dilation,
          gboolean  bias)
{
  T out = { cout, conv_out (in->h, k, stride, pad, dilation),
            conv_out (in->w, k, stride, pad, dilation), W->r->e, 0, in->grad || W->train };
  guint64 weights = (guint64) cout * (in->c / groups) * k * k + (bias ? cout : 0);

  g_assert (groups > 0 && in->c % groups == 0);
  if (W->cache_convs && k > 1)
    W->res->decode_cache += tbytes (in);
  /* a 3D convolution's time taps (causal_conv3d), without time padding */
  out.t = in->t > W->time_taps ? in->t - W->time_taps : in->t;
  fresh (W, &out);
  params (W, weights);
  W->conv_weights = (double) cout * (in->c / groups) * k * k;
  W->conv_cout = cout;
  W->conv_train = W->train;
  W->conv_in_grad = in->grad;
  if (out.grad)
    {
      save_matmul_input (W, in);
      if (k > 1)
        conv_workspace (W, (double) (in->c / groups) * k * k * numel (&out) / out.c);
      conv_backward_peak (W, in, &out, weights);
    }
  fwd (W, tbytes (in), tbytes (&out), 0);
  return out;
}

static T
conv (Walk     *W,
      T        *in,
      guint     cout,
      guint     k,
      guint     stride,
      guint     groups,
      guint     dilation,
      gboolean  bias)
{
  return conv_pad (W, in, cout, k, stride, dilation * (k - 1) / 2, groups, dilation, bias);
}

/* A linear layer over every position (a token, or a pixel as a 1x1
 * convolution would see it); with `lora`, PEFT's adapter beside it:
 * lora_A keeps its input (its own cast copy under autocast), lora_B keeps
 * the rank-r product. */
static T
linear (Walk     *W,
        T        *in,
        guint     cout,
        gboolean  bias,
        gboolean  lora)
{
  T out = { cout, in->h, in->w, W->r->e, 0, FALSE };
  gboolean adapter = lora && W->r->lora_rank > 0;

  fresh (W, &out);
  params (W, (guint64) in->c * cout + (bias ? cout : 0));
  if (W->train)
    save_matmul_input (W, in);
  if (adapter)
    {
      if (W->count_params)
        W->res->lora_params += (guint64) W->r->lora_rank * (in->c + cout);
      save_matmul_input (W, in);
      save (W, (double) W->r->lora_rank * in->h * in->w * W->r->e);
    }
  out.grad = in->grad || W->train || adapter;
  fwd (W, tbytes (in), tbytes (&out), 0);
  return out;
}

static void
bn (Walk *W,
    T    *x)
{
  T out = *x;

  fresh (W, &out);
  /* FrozenBatchNorm2d is x * scale + bias with buffers; before PyTorch
   * 1.1 the autograd code saved every input a derivative formula names
   * ("mul: self: grad * other, other: grad * self"), whether or not its
   * own gradient was needed (tools/autograd/gen_variable_type.py of the
   * 1.0 releases: save_variables (func['saved_inputs']) unguarded), so
   * the product kept x, the convolution's output; pytorch/pytorch PR
   * #16583 ("Don't keep unnecessary saved_inputs alive", 2019-01-30)
   * guarded each such save with should_compute_output, mul's among them */
  if (W->a->bn == HR_ARCH_BN_FROZEN && W->r->mul_saves_both && (x->grad || W->train))
    save_tensor (W, x);
  if (W->a->bn != HR_ARCH_BN_FROZEN)
    {
      params (W, 2 * (guint64) x->c);
      if (x->grad || W->train)
        save_tensor (W, x);
      /* in training mode it also saves the batch's mean and inverse
       * standard deviation, fp32 per channel whatever the batch
       * (derivatives.yaml @v1.13.1 native_batch_norm: result1, result2;
       * cudnn_batch_norm saves the same two, CUDA's reserve space aside) */
      if ((x->grad || W->train) && W->a->bn == HR_ARCH_BN_TRAIN)
        {
          W->res->fixed_saved += 2.0 * 4.0 * x->c;
          W->res->fixed_rounding += 2.0 * (alloc_round (4.0 * x->c) - 4.0 * x->c);
          W->res->bn_layers++;
        }
      out.grad = x->grad || W->train;
    }
  fwd (W, tbytes (x), tbytes (&out), 0);
  *x = out;
}

/* GroupNorm or LayerNorm: the input is saved; under autocast the output is
 * fp32. */
static void
norm (Walk *W,
      T    *x)
{
  T out = *x;

  params (W, 2 * (guint64) x->c);
  if (x->grad || W->train)
    save_tensor (W, x);
  fresh (W, &out);
  out.eb = W->r->e32;
  out.grad = x->grad || W->train;
  fwd (W, tbytes (x), tbytes (&out), 0);
  *x = out;
}

/* GroupNorm of 32 groups, as mmcv's and detectron2's "GN" build it
 * (nn.GroupNorm(32, C): open-mmlab/mmdetection configs/gn/
 * mask_rcnn_r50_fpn_gn-all_2x_coco.py @ca2f67f7 norm_cfg dict(type='GN',
 * num_groups=32, requires_grad=True); facebookresearch/detectron2
 * @02b5c4e2 detectron2/layers/batch_norm.py get_norm: "GN": lambda
 * channels: nn.GroupNorm(32, channels)).  native_group_norm saves its
 * input and the mean and rstd it returns, one value per sample and group
 * each (derivatives.yaml @d327a787 native_group_norm: "input, mean,
 * rstd"), in the input's dtype.  group_norm is on autocast's fp32 list
 * (torch/csrc/autograd/autocast_mode.cpp), so under autocast a 16-bit
 * input is cast to fp32 first and that copy is what is saved, and the
 * output is fp32.
 *
 * Before PyTorch 1.6 group_norm had no kernel of its own: ATen's
 * group_norm viewed the input as (1, N x groups, -1), ran batch_norm in
 * training mode on it (which saves that view of the input and the
 * per-group mean and invstd) and returned bias.addcmul(out, weight), whose
 * formula keeps `out`, the normalized tensor, for the weight's gradient
 * (aten/src/ATen/native/Normalization.cpp group_norm: "auto out =
 * at::batch_norm(input_reshaped, ...)", "return
 * bias.view(affine_param_shape).addcmul(out, weight.view(...), 1)").
 * pytorch/pytorch PR #28204 "Optimize GroupNorm on CUDA" replaced it
 * with native_group_norm ("we removed the native_batch_norm function in
 * group_norm", pytorch/xla issue #2126, closed on the merge 2020-06-15);
 * PR #46170 compares against "the impl via BatchNorm before PyTorch
 * 1.5.1".  So a run on PyTorch 1.5 or older keeps one more tensor the
 * size of the input per GroupNorm (run->group_norm_via_batch_norm). */
#define GN_GROUPS 32

/* Weight Standardization (Qiao et al. 2019) as mmcv's ConvWS2d runs it
 * (open-mmlab/mmcv @a8073c74 mmcv/cnn/bricks/conv_ws.py conv_ws_2d):
 * mean and std over each output channel's weights, weight = (weight -
 * mean) / (std + eps), then F.conv2d with that new tensor, every step.
 * For the backward pass the division keeps weight - mean and std + eps,
 * std its result (its input is the parameter itself) and the convolution
 * the standardized weight (derivatives.yaml: div saves self and other,
 * std self and result, convolution input and weight; mean nothing).  So
 * a trained ConvWS2d keeps two weight-sized tensors and two values per
 * output channel; one whose weights are frozen only the standardized
 * weight, and only if its input wants a gradient.  Under autocast the
 * standardization runs on the fp32 parameter and the convolution keeps
 * its 16-bit cast.  mmdetection's configs/gn+ws give conv_cfg
 * dict(type='ConvWS') to exactly the ConvModules they give the GroupNorm
 * norm_cfg (backbone, FPN, the shared box-head convs, the mask head's
 * convs), so under "gn+ws" the convolution before each GroupNorm is a
 * ConvWS2d.  Once per step, whatever the batch.  A CPU trace of
 * conv_ws_2d (torch 1.13, saved_tensors_hooks) keeps exactly these:
 * tests/validation/ws_trace.py. */
static void
weight_standardize (Walk *W)
{
  double wide = W->r->autocast ? W->r->e32 : W->r->e;

  if (W->a->norm != HR_ARCH_NORM_GN_WS || W->conv_weights <= 0)
    return;
  if (W->conv_train)
    W->res->fixed_saved += W->conv_weights * (wide + W->r->e) + 2.0 * W->conv_cout * wide;
  else if (W->conv_in_grad)
    W->res->fixed_saved += W->conv_weights * W->r->e;
  W->conv_weights = 0;
}

static void
group_norm (Walk *W,
            T    *x)
{
  T out = *x;
  gboolean saves = x->grad || W->train;
  gboolean cast = W->r->autocast && x->eb < W->r->e32;
  double eb = cast ? W->r->e32 : x->eb;

  g_assert (x->c % GN_GROUPS == 0);
  weight_standardize (W);
  params (W, 2 * (guint64) x->c);
  if (saves)
    {
      if (cast)
        save (W, numel (x) * W->r->e32);
      else
        save_tensor (W, x);
      save (W, 2.0 * GN_GROUPS * MAX (1, x->t) * eb);
      if (W->r->group_norm_via_batch_norm && W->train)
        save (W, numel (x) * eb);
    }
  fresh (W, &out);
  out.eb = cast ? W->r->e32 : x->eb;
  out.grad = saves;
  fwd (W, tbytes (x) + (cast ? numel (x) * W->r->e32 : 0), tbytes (&out), 0);
  *x = out;
}

/* The network's norm after a convolution: BatchNorm as "bn" says, or
 * GroupNorm with "norm": "gn". */
static void
conv_norm (Walk *W,
           T    *x)
{
  if (W->a->norm != HR_ARCH_NORM_BN)
    group_norm (W, x);
  else
    bn (W, x);
}

/* The heads' norm: none with "norm": "bn" (mmdet's FPN and R-CNN heads
 * have norm_cfg None; detectron2's FPN.NORM, ROI_BOX_HEAD.NORM and
 * ROI_MASK_HEAD.NORM are ""), GroupNorm with "gn".  A convolution
 * followed by a norm has no bias (mmcv ConvModule bias='auto';
 * detectron2 fpn.py and roi_heads: bias=not norm / use_bias = norm ==
 * ""). */
static gboolean
head_gn (Walk *W)
{
  return W->a->norm != HR_ARCH_NORM_BN;
}

static void
head_norm (Walk *W,
           T    *x)
{
  if (head_gn (W))
    group_norm (W, x);
}

typedef enum {
  ACT_RELU,      /* saves its result (in place or not) */
  ACT_INPUT,     /* SiLU, GELU: save their input */
  ACT_SIGMOID,   /* saves its result */
} ActKind;

static void
act (Walk    *W,
     T       *x,
     ActKind  kind)
{
  T out = *x;

  fresh (W, &out);
  if (kind == ACT_INPUT && x->grad)
    save_tensor (W, x);
  fwd (W, tbytes (x), kind == ACT_RELU ? 0 : tbytes (&out), 0);
  if (kind != ACT_INPUT && x->grad)
    save_tensor (W, &out);
  *x = out;
}

/* A max pooling of x to h x w: it saves its input and the int64 indices
 * of the maxima */
static void
maxpool_to (Walk  *W,
            T     *x,
            guint  h,
            guint  w)
{
  T out = *x;

  out.h = h;
  out.w = w;
  fresh (W, &out);
  if (x->grad)
    {
      save_tensor (W, x);
      save (W, numel (&out) * 8.0);   /* int64 indices */
    }
  fwd (W, tbytes (x), tbytes (&out), numel (&out) * 8.0);
  *x = out;
}

static void
maxpool (Walk  *W,
         T     *x,
         guint  k,
         guint  stride,
         guint  pad)
{
  maxpool_to (W, x, conv_out (x->h, k, stride, pad, 1), conv_out (x->w, k, stride, pad, 1));
}

/* adaptive_avg_pool2d to s x s (saves its input) */
static T
avgpool (Walk  *W,
         T     *x,
         guint  s)
{
  T out = *x;

  out.h = out.w = s;
  fresh (W, &out);
  if (x->grad)
    save_tensor (W, x);
  fwd (W, tbytes (x), tbytes (&out), 0);
  return out;
}

/* interpolate to h x w, nearest or bilinear: saves nothing */
static T
resize (Walk  *W,
        T     *x,
        guint  h,
        guint  w)
{
  T out = *x;

  out.h = h;
  out.w = w;
  fresh (W, &out);
  fwd (W, tbytes (x), tbytes (&out), 0);
  return out;
}

/* x + y (a residual, an FPN's top-down path): nothing saved */
static T
add (Walk *W,
     T    *x,
     T    *y)
{
  T out = *x;

  fresh (W, &out);
  out.grad = x->grad || y->grad;
  out.eb = MAX (x->eb, y->eb);
  fwd (W, tbytes (x), tbytes (&out), 0);
  return out;
}

/* torch.cat along channels: nothing saved */
static T
cat (Walk  *W,
     T     *parts,
     guint  n)
{
  T out = parts[0];

  out.c = 0;
  fresh (W, &out);
  out.grad = FALSE;
  for (guint i = 0; i < n; i++)
    {
      out.c += parts[i].c;
      out.grad = out.grad || parts[i].grad;
      out.eb = MAX (out.eb, parts[i].eb);
    }
  fwd (W, 0, tbytes (&out), 0);
  return out;
}

static void
hold (Walk *W,
      T    *t)
{
  W->held += tbytes (t);
}

static void
release (Walk *W,
         T    *t)
{
  W->held = MAX (0, W->held - tbytes (t));
}

/* A conv, its norm and an optional ReLU: mmcv's ConvModule,
 * torchvision's Conv2dNormActivation. */
static void
conv_bn_act (Walk     *W,
             guint     cout,
             guint     k,
             guint     stride,
             guint     groups,
             guint     dilation,
             int       activation)
{
  W->x = conv (W, &W->x, cout, k, stride, groups, dilation, FALSE);
  conv_norm (W, &W->x);
  if (activation >= 0)
    act (W, &W->x, activation);
}

/* mmcv's DeformConv2d default im2col_step (mmcv/ops/deform_conv.py
 * @a8073c74: im2col_step: int = 32) */
#define DCN_IM2COL_STEP 32

/* A deformable 3x3 convolution as mmcv builds it for mmdet's ResNet
 * (dcn=dict(type='DCN' | 'DCNv2', deform_groups=dg): DeformConv2dPack or
 * ModulatedDeformConv2dPack, open-mmlab/mmcv @a8073c74
 * mmcv/ops/deform_conv.py and modulated_deform_conv.py).  Its
 * conv_offset is a plain nn.Conv2d with a bias, 3x3 with the deformable
 * conv's stride and dilation, to 18 x dg channels (DCN: an x and a y
 * offset per tap and group) or 27 x dg (DCNv2: chunked in three, the
 * first two concatenated into the offset, the third through a sigmoid
 * into the mask), zero-initialised.  DeformConv2dFunction saves input,
 * offset and weight, ModulatedDeformConv2dFunction input, offset, mask,
 * weight and bias (save_for_backward; mmdet's Bottleneck builds conv2
 * with bias=False, so the bias is an empty tensor): beyond the input,
 * which conv_offset keeps too, each keeps its offset and DCNv2 its mask,
 * the sigmoid's own saved result.  conv_offset's 27-channel output is
 * saved by nobody (chunk and cat save nothing).  A CPU trace with
 * torchvision.ops.deform_conv2d (torch 1.13, saved_tensors_hooks, each
 * storage once) keeps exactly these: 18 x dg channels at the output size,
 * 27 x dg with the mask (tests/validation/dcn_trace.py).
 *
 * The op's im2col columns are a transient inside it: C_in x 9 rows by
 * im2col_step x H_out x W_out (DCN, im2col_step min (32, batch): every
 * sample of a batch up to 32 at once) or one sample's H_out x W_out
 * (DCNv2, a loop over the batch), allocated with at::zeros in the forward
 * and again in each backward call, beside DCN's output_buffer and the
 * zeroed input and offset gradients (mmcv/ops/csrc/pytorch/deform_conv.cpp
 * deform_conv_forward, deform_conv_backward_input;
 * modulated_deform_conv.cpp). */
static void
deform_conv_bn_act (Walk  *W,
                    guint  cout,
                    guint  stride,
                    guint  groups,
                    guint  dilation)
{
  const HrArch *a = W->a;
  guint dg = a->dcn_deform_groups;
  T in = W->x, offsets, offset, mask, out;
  double columns, per_sample, fixed;

  offsets = conv (W, &in, (a->dcn_modulated ? 27 : 18) * dg, 3, stride, 1, dilation, TRUE);
  offset = offsets;
  offset.c = 18 * dg;
  mask = offsets;
  mask.c = 9 * dg;
  if (a->dcn_modulated)
    {
      fresh (W, &offset);
      fwd (W, tbytes (&offsets), tbytes (&offset), 0);
      fresh (W, &mask);
      fwd (W, tbytes (&offsets), tbytes (&mask), tbytes (&offset));
      if (mask.grad)
        save_tensor (W, &mask);
    }

  out = (T) { cout, offsets.h, offsets.w, W->r->e, 0, in.grad || W->train, in.t };
  fresh (W, &out);
  params (W, (guint64) cout * (in.c / groups) * 9);
  columns = (double) in.c * 9 * out.h * out.w * W->r->e;
  /* DCN's columns hold im2col_step samples at once, every sample of a
   * batch up to 32 (mmcv DeformConv2dPack im2col_step 32: the batch runs
   * in chunks of 32 beyond it, deform_conv.cpp's loop over
   * batch / im2col_step); DCNv2's one */
  {
    guint batch = MAX (1, W->r->batch);

    per_sample = a->dcn_modulated ? 0 : columns * MIN (batch, DCN_IM2COL_STEP) / batch;
  }
  fixed = a->dcn_modulated ? columns : 0;
  if (out.grad)
    {
      save_matmul_input (W, &in);
      save_tensor (W, &offset);
      if (a->dcn_modulated)
        save_tensor (W, &mask);
      /* the backward call: the columns, the output's gradient and the
       * zeroed gradients of the input, offset (and mask) */
      peak (W, per_sample + tbytes (&out) + tbytes (&in) + tbytes (&offset) +
            (a->dcn_modulated ? tbytes (&mask) : 0), fixed,
            "deformable convolution columns");
    }
  fwd (W, tbytes (&in) + tbytes (&offset) + (a->dcn_modulated ? tbytes (&mask) : 0),
       tbytes (&out), per_sample + fixed + (a->dcn_modulated ? 0 : tbytes (&out)));
  W->x = out;
  /* the deformable conv2 is built from "dcn", not from conv_cfg: it is
   * no ConvWS2d */
  W->conv_weights = 0;
  conv_norm (W, &W->x);
  act (W, &W->x, ACT_RELU);
}

/* Before PyTorch 1.11 the backward formulas of softmax and log_softmax
 * named their input as well as their result, so autograd saved both
 * (pytorch/pytorch tools/autograd/derivatives.yaml before PR #65242,
 * "Avoid saving self for softmax and log_softmax", opened 2021-09-17:
 * "_log_softmax: self: _log_softmax_backward_data(grad, result, dim,
 * self)", and _softmax alike; issue #64000: "we retain reference to self
 * and use more memory than needed"; the schema
 * "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim,
 * Tensor self)").  From 1.11 the formula takes self's dtype only
 * (transformers src/transformers/pytorch_utils.py softmax_backward_data
 * passes self while is_torch_less_than_1_11, its dtype after).  @bytes:
 * the input's, of which @scores are attention scores.  Under autocast
 * an attention's softmax reads the fp32 copy autocast made of the
 * scores (softmax and log_softmax are on its fp32 list), a tensor of its
 * own; a loss reads its fp32 logits. */
static void
softmax_input_saved (Walk   *W,
                     double  bytes,
                     double  scores)
{
  if (W->r->softmax_saves_input && bytes > 0)
    save_scores (W, bytes, scores);
}

/* ------------------------------------------------------------------ */
/* Attention                                                           */

/* The attention kernel itself over q (s tokens) and k, v (s_kv tokens),
 * `width` channels in `heads` heads, q, k, v already made. */
static void
attention_kernel (Walk    *W,
                  double   s,
                  double   s_kv,
                  guint    width,
                  guint    heads,
                  gboolean eager,
                  gboolean grad)
{
  double e = W->r->e;
  double qkv = (s + 2.0 * s_kv) * width * e;
  double scores_elems = (double) heads * s * s_kv;
  double score_bytes = W->r->e32 + (W->r->e32 != e ? e : 0);

  if (grad)
    {
      if (eager)
        {
          /* The backward pass of the math path: bmm's gradient with
           * respect to the probabilities and softmax's with respect to
           * the scores, each heads x s x s_kv, alive together beside what
           * is still saved (in fp32 where the softmax ran in fp32) */
          double grads = 2.0 * scores_elems * W->r->e32;

          save_scores (W, qkv + scores_elems * score_bytes, scores_elems * score_bytes);
          softmax_input_saved (W, scores_elems * W->r->e32, scores_elems * W->r->e32);
          if (W->ckpt)
            W->block_transient = MAX (W->block_transient, grads);
          else
            peak (W, grads, 0, "attention gradients");
        }
      else
        save (W, qkv + s * width * e + 4.0 * heads * s);
    }
  fwd (W, qkv, s * width * e, eager ? scores_elems * score_bytes : 0);

  {
    HrArchBlock *b = cur_block (W);

    b->tokens = MAX (b->tokens, (guint) s);
    b->attn_heads = MAX (b->attn_heads, heads);
    W->res->max_tokens = MAX (W->res->max_tokens, (guint) s);
  }
}

/* diffusers' Attention: to_q, to_k, to_v, the kernel, to_out; the context
 * (`ctx`, NULL for self-attention) gives the keys and values. */
static void
attention (Walk    *W,
           T       *ctx,
           guint    heads,
           gboolean bias_qkv)
{
  T *kv_in = ctx != NULL ? ctx : &W->x;
  T q, k, v, o;
  gboolean lora = W->lora_here;
  double s = (double) W->x.h * W->x.w;
  double s_kv = (double) kv_in->h * kv_in->w;
  guint on = W->r->lora_attention;

  q = linear (W, &W->x, W->x.c, bias_qkv, lora && (on & HR_MODULE_Q));
  k = linear (W, kv_in, W->x.c, bias_qkv, lora && (on & HR_MODULE_K));
  v = linear (W, kv_in, W->x.c, bias_qkv, lora && (on & HR_MODULE_V));
  attention_kernel (W, s, s_kv, W->x.c, heads, W->r->eager_attention,
                    q.grad || k.grad || v.grad);
  o = q;
  o.grad = q.grad || k.grad || v.grad;
  fresh (W, &o);
  if (!W->r->eager_attention)
    mark (W, &o);   /* the efficient kernels saved their output */
  W->x = linear (W, &o, W->x.c, TRUE, lora && (on & HR_MODULE_O));
  (void) v;
}

/* ------------------------------------------------------------------ */
/* ResNet (torchvision models/resnet.py; mmdet/mmseg backbones/resnet.py) */

static void
resnet_backbone (Walk *W,
                 T     outs[4])
{
  const HrArch *a = W->a;
  gboolean trainable = W->r->trainable;
  guint in_c, stages;

  block_begin (W, FALSE, "stem");
  W->train = trainable && a->frozen_stages < 0;
  if (a->deep_stem)
    {
      /* ResNetV1c: 3x3/2 to 32, 3x3 to 32, 3x3 to 64 (stem_channels 64) */
      conv_bn_act (W, 32, 3, 2, 1, 1, ACT_RELU);
      conv_bn_act (W, 32, 3, 1, 1, 1, ACT_RELU);
      conv_bn_act (W, 64, 3, 1, 1, 1, ACT_RELU);
    }
  else
    {
      W->x = conv_pad (W, &W->x, 64, 7, 2, 3, 1, 1, FALSE);
      conv_norm (W, &W->x);
      act (W, &W->x, ACT_RELU);
    }
  maxpool (W, &W->x, 3, 2, 1);
  block_end (W);

  in_c = 64;
  /* a C4 backbone ends at res4 (detectron2 config/defaults.py
   * RESNETS.OUT_FEATURES ["res4"]); its res5 runs on the RoIs */
  stages = is_c4_head (a) ? 3 : 4;
  for (guint i = 0; i < stages; i++)
    {
      guint planes = 64u << i;
      guint out_c = a->bottleneck ? planes * 4 : planes;
      guint width = a->bottleneck ? bottleneck_width (a, i) : planes;

      W->train = trainable && a->frozen_stages < (int) i + 1;
      for (guint j = 0; j < a->depths[i]; j++)
        {
          guint stride = j == 0 ? a->strides[i] : 1;
          guint dilation = a->dilations[i];
          T id;

          block_begin (W, TRUE, "layer%u.%u", i + 1, j);
          id = W->x;
          hold (W, &id);
          if (a->bottleneck)
            {
              conv_bn_act (W, width, 1, 1, 1, 1, ACT_RELU);
              if (a->dcn_stages[i])
                deform_conv_bn_act (W, width, stride, a->groups, dilation);
              else
                conv_bn_act (W, width, 3, stride, a->groups, dilation, ACT_RELU);
              conv_bn_act (W, out_c, 1, 1, 1, 1, -1);
            }
          else
            {
              conv_bn_act (W, out_c, 3, stride, 1, dilation, ACT_RELU);
              conv_bn_act (W, out_c, 3, 1, 1, dilation, -1);
            }
          if (j == 0 && (stride != 1 || in_c != out_c))
            {
              T down = conv (W, &id, out_c, 1, stride, 1, 1, FALSE);

              conv_norm (W, &down);
              W->x = add (W, &W->x, &down);
            }
          else
            W->x = add (W, &W->x, &id);
          release (W, &id);
          act (W, &W->x, ACT_RELU);
          block_end (W);
          in_c = out_c;
        }
      outs[i] = W->x;
    }
  for (guint i = stages; i < 4; i++)
    outs[i] = outs[stages - 1];
  W->train = trainable;
}

/* The classification loss on the head's logits: F.cross_entropy is
 * log_softmax, which saves its result (the classes' log-probabilities, in
 * fp32 under autocast: log_softmax is on autocast's fp32 list), then
 * nll_loss, which saves that same tensor, the int64 target and a scalar
 * total_weight (PyTorch tools/autograd/derivatives.yaml @v1.13.1:
 * _log_softmax "result", nll_loss_forward "self, target, total_weight"),
 * as a CPU trace of torchvision's classifiers counts (tests/trace). */
static void
cross_entropy (Walk *W)
{
  if (!W->x.grad)
    return;
  save (W, numel (&W->x) * W->r->e32 + 8.0);
  softmax_input_saved (W, numel (&W->x) * W->r->e32, 0);
  W->res->fixed_saved += 4.0;
}

static void
classifier (Walk  *W,
            guint  classes)
{
  block_begin (W, FALSE, "head");
  W->x = avgpool (W, &W->x, 1);
  W->x = linear (W, &W->x, classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* Detection heads (mmdet 2.x/3.x configs/_base_/models)               */

/* Cross-entropy and focal losses read a permuted, flattened copy of the
 * head's outputs (mmdet's loss_by_feat: permute(0, 2, 3, 1).reshape), in
 * fp32: the heads' loss() is decorated with force_fp32(apply_to=
 * ('cls_scores', 'bbox_preds')), which casts 16-bit outputs first (mmdet
 * 2.x models/dense_heads/anchor_head.py, mmcv runner/fp16_utils.py).
 * Returns the bytes saved; *cast gets the fp32 cast of a 16-bit output,
 * alive while the loss runs. */
static double
loss_copy (Walk   *W,
           T      *scores,
           double *cast)
{
  double bytes = numel (scores) * 4.0;

  if (!scores->grad)
    return 0;
  save (W, bytes);
  if (cast != NULL && scores->eb < 4.0)
    *cast += bytes;
  return bytes;
}

/* mmdet's MaxIoUAssigner (the RPN's and RetinaNet's, gpu_assign_thr -1:
 * on the GPU) compares every ground-truth box with every anchor of an
 * image through bbox_overlaps (mmdet/core/bbox/iou_calculators/
 * iou2d_calculator.py @0a8a50f1), one image at a time (multi_apply over
 * the images in get_targets): lt and rb, [gts, anchors, 2] in fp32 (8
 * bytes a pair each), rb - lt and its clamp wh (8 each, alive together),
 * then overlap, the union, its max with eps and the IoUs (4 each); at
 * the union's max 36 bytes a pair are alive.  allowed_border is -1 in
 * both heads' train_cfg, so every anchor takes part. */
#define IOU_BYTES_PER_PAIR 36.0

/* detectron2's pairwise_iou (facebookresearch/detectron2 @baf6667e
 * detectron2/structures/boxes.py, 2019-12-03, unchanged at @30fc1a1d and
 * in every release from v0.1 on) subtracts torch.max from torch.min of
 * the corners in one expression, so only that difference (8 bytes a
 * pair) outlives them, clamps it in place and dels it after its prod:
 * at the subtraction the min, the max and the difference, 24 bytes a
 * pair, are alive, later no more than 13.  Its first public code
 * (@989f52d6, with which MODEL_ZOO's 2019 'train mem' figures were
 * measured) named lt, rb and wh as bbox_overlaps does and kept them
 * through the IoU ("pairwise_iou_keeps_corners"): a CPU profile of each
 * (tests/trace/peak_trace.py profiled_peaks, 50 boxes by 100,000
 * anchors, with Matcher @989f52d6) peaks at 24.08 and 37.08 bytes a
 * pair.  That first code also kept the previous image's IoU matrix (4
 * bytes a pair of that image's boxes) through the next image's
 * (rpn_outputs.py _get_ground_truth has no del): 41.26 for two images
 * of as many boxes; not counted, as the other images' boxes are not
 * known. */
#define IOU_BYTES_PER_PAIR_CORNERS_FREED 24.0

/* torchvision's assigners loop over the images and rebind
 * match_quality_matrix without del (pytorch/vision @v0.14.1
 * torchvision/models/detection/rpn.py
 * RegionProposalNetwork.assign_targets_to_anchors; retinanet.py
 * RetinaNet.compute_loss), so from the second image on the previous
 * image's IoU matrix, fp32, is alive while box_iou (torchvision/ops/
 * boxes.py _box_inter_union) builds the next one: 4 bytes a pair more,
 * counted for an image as crowded as the next.  A CPU profile of
 * maskrcnn_resnet50_fpn (2 images of 1344 x 800, 100 boxes each:
 * tests/trace/peak_trace.py profiled_peaks) peaks in the second image's
 * _box_inter_union with the first image's matrix (107,427,600 bytes)
 * alive.  (roi_heads.py assign_targets_to_proposals does the same on
 * 2,000 proposals an image, far below this.) */
#define IOU_BYTES_PER_PAIR_PREVIOUS_IMAGE 4.0

/* torchvision's uint8 ground-truth masks of a sample: 1 byte a pixel
 * an object, from GeneralizedRCNNTransform to the mask loss
 * (mask_targets_peak); 0 elsewhere */
static double
transform_masks_bytes (Walk *W)
{
  const HrArch *a = W->a;
  gboolean masks = a->head == HR_ARCH_HEAD_MASK_RCNN || a->head == HR_ARCH_HEAD_MASK_RCNN_C4 ||
                   a->head == HR_ARCH_HEAD_MASK_RCNN_DC5;

  if (!masks || W->r->mask_targets != HR_ARCH_MASK_TARGETS_PER_OBJECT || !W->r->grad)
    return 0;
  return (double) W->r->width * W->r->height * W->r->objects;
}

static void
assign_peak (Walk       *W,
             double      anchors,
             double      copies,
             const char *what)
{
  double per_pair = W->r->iou_frees_corners ? IOU_BYTES_PER_PAIR_CORNERS_FREED
                                            : IOU_BYTES_PER_PAIR;

  if (W->r->objects == 0 || !W->r->grad)
    return;
  if (W->r->assigner_keeps_previous_iou && W->r->batch >= 2)
    per_pair += IOU_BYTES_PER_PAIR_PREVIOUS_IMAGE;
  /* the masks are made before the backbone runs */
  peak (W, transform_masks_bytes (W) - copies, per_pair * W->r->objects * anchors, what);
}

/* mmdet FPN: 1x1 laterals, nearest top-down, 3x3 outputs; `extra` levels
 * beyond the backbone's: max-pooled (Faster R-CNN), or stride-2 convs on
 * C5 (RetinaNet) or on P5 (FCOS). */
static guint
fpn (Walk  *W,
     T     *c,
     guint  start,
     int    extra_mode,
     T     *p)
{
  T lat[4];
  guint n = 0;

  block_begin (W, FALSE, "neck (FPN)");
  for (guint i = start; i < 4; i++)
    {
      lat[i] = conv (W, &c[i], 256, 1, 1, 1, 1, !head_gn (W));
      head_norm (W, &lat[i]);
    }
  for (guint i = 3; i > start; i--)
    {
      T up = resize (W, &lat[i], lat[i - 1].h, lat[i - 1].w);

      lat[i - 1] = add (W, &lat[i - 1], &up);
    }
  for (guint i = start; i < 4; i++)
    {
      p[n] = conv (W, &lat[i], 256, 3, 1, 1, 1, !head_gn (W));
      head_norm (W, &p[n]);
      hold (W, &p[n]);
      n++;
    }

  if (extra_mode == 0)
    {
      /* F.max_pool2d(outs[-1], 1, stride=2) */
      p[n] = p[n - 1];
      maxpool (W, &p[n], 1, 2, 0);
      n++;
    }
  else
    {
      /* RetinaNet: add_extra_convs='on_input' (from C5); FCOS:
       * 'on_output' with relu_before_extra_convs */
      T src = extra_mode == 1 ? c[3] : p[n - 1];

      p[n] = conv (W, &src, 256, 3, 2, 1, 1, !head_gn (W));
      head_norm (W, &p[n]);
      n++;
      src = p[n - 1];
      if (extra_mode == 2)
        act (W, &src, ACT_RELU);
      p[n] = conv (W, &src, 256, 3, 2, 1, 1, !head_gn (W));
      head_norm (W, &p[n]);
      n++;
    }
  W->x = p[n - 1];
  block_end (W);
  return n;
}

/* The backward pass reaches the RPN's finest level last (its ops ran
 * first), with the saved tensors of the backbone, the neck and that
 * level alive and the RoI heads' and coarser levels' freed.  Waiting
 * for it: each level's gradient, summed from the RPN's coarser levels
 * and the RoI pooler's backward, which scatters into zeros of the whole
 * level (pytorch/vision @f205f1e3 torchvision/csrc/ops/cpu/
 * roi_align_kernel.cpp roi_align_backward_kernel: grad_input at::zeros
 * of the input's size; open-mmlab/mmcv @2b876bc7 mmcv/ops/roi_align.py
 * RoIAlignFunction.backward: grad_output.new_zeros (ctx.input_shape);
 * detectron2's ROIAlign calls torchvision's); and three level-sized
 * tensors at the level's 3x3 convolution's backward: its gradients in
 * and out and the ReLU's gradient, freed when its node returns.  A CPU
 * profile of torchvision 0.14's fasterrcnn_resnet50_fpn (one 1344 x 800
 * image, 20 boxes: tests/trace/peak_trace.py) peaks there, 1,045,174,304
 * bytes above the weights, gradients and momentum at the ends of ATen
 * operators; this moment is 1,042,707,456.  @pooled: the RoI heads pool
 * from the levels (not so for an RPN alone, whose finest level waits on
 * nothing). */
static void
rpn_backward_peak (Walk     *W,
                   const T  *p,
                   guint     n,
                   gboolean  pooled)
{
  double waiting = 0;

  if (!W->r->grad)
    return;
  for (guint i = pooled ? 0 : 1; i < n; i++)
    waiting += tbytes (&p[i]);
  peak (W, waiting + 3.0 * tbytes (&p[0]), 0, "rpn backward");
}

/* The RPN head shared over the @n levels @p: a 3x3 convolution keeping
 * the level's channels (mmdet's RPNHead, detectron2's StandardRPNHead
 * with RPN.CONV_DIMS [-1]), then per anchor an objectness logit and four
 * deltas.  @per_position anchors at every position: 3 on an FPN level
 * (one size, three ratios), 15 on a single C4 map (detectron2
 * config/defaults.py @02b5c4e2 ANCHOR_GENERATOR.SIZES [[32, 64, 128, 256,
 * 512]] by ASPECT_RATIOS [[0.5, 1.0, 2.0]]). */
static void
rpn_head (Walk     *W,
          T        *p,
          guint     n,
          guint     per_position,
          gboolean  pooled)
{
  double copies = 0, cast = 0, anchors = 0;

  block_begin (W, FALSE, "rpn head");
  for (guint i = 0; i < n; i++)
    {
      T x = p[i], cls, reg;

      W->count_params = i == 0;
      x = conv (W, &x, p[i].c, 3, 1, 1, 1, TRUE);
      act (W, &x, ACT_RELU);
      cls = conv (W, &x, per_position, 1, 1, 1, 1, TRUE);    /* sigmoid */
      reg = conv (W, &x, 4 * per_position, 1, 1, 1, 1, TRUE);
      if (i == 0)
        rpn_backward_peak (W, p, n, pooled);
      copies += loss_copy (W, &cls, &cast);
      copies += loss_copy (W, &reg, &cast);
      anchors += (double) per_position * p[i].h * p[i].w;
    }
  W->count_params = TRUE;
  /* the targets are assigned before the losses copy the outputs */
  assign_peak (W, anchors, copies - cast, "rpn assigner");
  block_end (W);
}

/* The mask head predicts a 28 x 28 mask per class for every positive RoI;
 * the loss picks each RoI's own class (mmdet FCNMaskHead.loss:
 * mask_pred[inds, labels]; detectron2 mask_rcnn_loss:
 * pred_mask_logits[indices, gt_classes]; torchvision maskrcnn_loss:
 * mask_logits[arange, labels]), an index that saves its indices only.
 * The backward pass starts with the per-class logits' gradient, index's
 * scatter into zeros (LVIS' 1,230 classes make it 494 MB an image at
 * 128 RoIs), beside every saved tensor; the 1x1 predictor's backward
 * then makes the gradient of the upsampled features @up beside it, and
 * the ReLU's backward a second one of @up's size.  A CPU profile of
 * torchvision 0.14's maskrcnn_resnet50_fpn (2 images of 640 x 384, 20
 * boxes each, 40 positive RoIs: tests/trace/peak_trace.py) peaks there,
 * 561,039,904 bytes above the weights, gradients and momentum. */
static void
mask_logits_peak (Walk    *W,
                  const T *up)
{
  double logits = tbytes (&W->x), features = tbytes (up);

  if (!W->r->grad)
    return;
  peak (W, MAX (logits + features, 2.0 * features), 0, "mask logits");
}

/* The mask targets: each positive RoI's ground-truth mask cut to 28 x
 * 28, after the mask head's forward pass, one image at a time, with
 * every saved tensor alive.
 * - mmdetection's BitmapMasks.crop_and_resize (open-mmlab/mmdetection
 *   @0e17986a mmdet/core/mask/structures.py, called by mask_target.py's
 *   mask_target_single; LoadAnnotations' poly2mask defaults to True):
 *   torch.from_numpy(self.masks).to(device).index_select(0, inds)
 *   .to(dtype=rois.dtype), a uint8 and an fp32 bitmap of the padded
 *   image per positive RoI, 5 bytes a pixel each.
 * - torchvision's project_masks_on_boxes (torchvision/models/detection/
 *   roi_heads.py @v0.14.1): gt_masks[:, None].to(rois), every object's
 *   bitmap in fp32, 4 bytes a pixel each.  The uint8 masks it reads,
 *   1 byte a pixel an object, are GeneralizedRCNNTransform's
 *   (transform.py _resize_image_and_masks: interpolate(mask[:, None]
 *   .float(), ...)[:, 0].byte(), a new tensor even at scale 1), made
 *   before the backbone runs and held by GeneralizedRCNN.forward's
 *   targets until the forward pass returns (the mask loss saves none of
 *   them): beside the forward pass's moments, the RPN's assigner too
 *   (transform_masks_bytes), where a CPU profile at 1344 x 800 with 2
 *   images of 100 boxes peaks with them (215,040,000 bytes), and not
 *   beside the backward pass's.  The dataset's own masks, which the
 *   training loop moves to the device before the step, are not counted.
 * - detectron2's PolygonMasks.crop_and_resize (INPUT.MASK_FORMAT
 *   "polygon" in config/defaults.py @02b5c4e2) rasterizes each RoI's
 *   polygons at 28 x 28 on the CPU: nothing at the image's size. */
static void
mask_targets_peak (Walk *W)
{
  double pixels = (double) W->r->width * W->r->height;

  if (!W->r->grad)
    return;
  /* the per-class logits are alive beside them, not yet in the loss */
  if (W->r->mask_targets == HR_ARCH_MASK_TARGETS_PER_ROI)
    peak (W, tbytes (&W->x), 5.0 * pixels * W->a->mask_rois, "mask targets");
  else if (W->r->mask_targets == HR_ARCH_MASK_TARGETS_PER_OBJECT && W->r->objects > 0)
    peak (W, tbytes (&W->x) + transform_masks_bytes (W), 4.0 * pixels * W->r->objects,
          "mask targets");
}

/* FCNMaskHead (mmdet) / MaskRCNNConvUpsampleHead (detectron2) on the
 * positive RoIs' @in_c x @side x @side features: @convs 3x3 convs of 256
 * with ReLU, a 2x deconvolution to 256 and the per-class 1x1 logits.  The
 * FPN and DC5 heads pool 14 x 14 and run four convs (ROI_MASK_HEAD
 * NUM_CONV 4 in Base-RCNN-FPN.yaml and Base-RCNN-DilatedC5.yaml), on 256
 * FPN channels or res5's 2048; the C4 head none, on res5's 7 x 7 output
 * (config/defaults.py NUM_CONV 0: conv_dims [CONV_DIM] is the
 * deconvolution alone, from 2048 channels; facebookresearch/detectron2
 * @02b5c4e2 modeling/roi_heads/mask_head.py MaskRCNNConvUpsampleHead). */
static void
mask_head (Walk       *W,
           const char *name,
           guint       in_c,
           guint       convs,
           guint       side)
{
  const HrArch *a = W->a;

  block_begin (W, FALSE, "%s", name);
  /* the RoIs side by side: a convolution over 14 x (14 * rois) keeps what
   * one over rois x 14 x 14 keeps */
  W->x = (T) { in_c, side, side * a->mask_rois, W->r->e, 0, TRUE };
  fresh (W, &W->x);
  for (guint i = 0; i < convs; i++)
    {
      W->x = conv (W, &W->x, 256, 3, 1, 1, 1, !head_gn (W));
      head_norm (W, &W->x);
      act (W, &W->x, ACT_RELU);
    }
  {
    /* ConvTranspose2d(C, 256, 2, stride 2) saves its input like a
     * convolution */
    T up = { 256, 2 * side, 2 * side * a->mask_rois, W->r->e, 0, TRUE };

    fresh (W, &up);
    params (W, (guint64) W->x.c * 256 * 4 + 256);
    save_matmul_input (W, &W->x);
    W->x = up;
    act (W, &W->x, ACT_RELU);
  }
  {
    T up = W->x;

    W->x = conv (W, &W->x, W->classes, 1, 1, 1, 1, TRUE);
    mask_logits_peak (W, &up);
  }
  mask_targets_peak (W);
  block_end (W);
}

/* mmcv's DeformRoIPoolPack and ModulatedDeformRoIPoolPack
 * (open-mmlab/mmcv @a8073c74 mmcv/ops/deform_roi_pool.py) as the box
 * head's roi_layer (mmdetection configs/dcn/faster_rcnn_r50_fpn_dpool_1x_coco.py,
 * _mdpool_: roi_layer type DeformRoIPoolPack / ModulatedDeformRoIPoolPack,
 * output_size 7, output_channels 256).  A first deform_roi_pool without
 * offsets pools each RoI to 7 x 7; offset_fc (Linear 7 x 7 x C to 1024,
 * ReLU, Linear 1024, ReLU, Linear to 2 x 7 x 7) turns it into an offset
 * per bin, and a second deform_roi_pool pools again with them, which is
 * the box head's input.  The modulated one also runs mask_fc (Linear 7 x
 * 7 x C to 1024, ReLU, Linear to 7 x 7, Sigmoid) and returns d * mask.
 * DeformRoIPoolFunction saves input, rois and offset: the FPN level is
 * the RPN's saved input already, the offset is new; the Linears keep
 * their inputs (the first pool's output, the ReLUs' results, which the
 * in-place ReLUs keep too), the Sigmoid its result and the product d and
 * the mask.  The pooled output of the second call is copied into the RoI
 * extractor's roi_feats (index_put_ keeps nothing of it).
 * SingleRoIExtractor builds one roi_layer per level (mmdet/models/
 * roi_heads/roi_extractors/base_roi_extractor.py build_roi_layers:
 * nn.ModuleList of layer_cls(spatial_scale=1 / s) for the four
 * featmap_strides), so the fcs' weights are there four times, while each
 * RoI runs through its own level's: the activations are those of the
 * image's RoIs once. */
static void
deform_roi_pool (Walk  *W,
                 guint  channels)
{
  const HrArch *a = W->a;
  gboolean modulated = a->roi_layer == HR_ARCH_ROI_LAYER_MODULATED_DEFORM;
  guint bins = 7 * 7;
  T x = { channels * bins, 1, a->rois, W->r->e, 0, TRUE };
  T h, offset;
  guint64 level = (guint64) channels * bins * 1024 + 1024 + 1024 * 1024 + 1024 +
                  1024 * 2 * bins + 2 * bins;

  fresh (W, &x);
  h = linear (W, &x, 1024, TRUE, FALSE);
  act (W, &h, ACT_RELU);
  h = linear (W, &h, 1024, TRUE, FALSE);
  act (W, &h, ACT_RELU);
  offset = linear (W, &h, 2 * bins, TRUE, FALSE);
  if (W->train)
    save_tensor (W, &offset);
  if (modulated)
    {
      T d = x, mask;

      level += (guint64) channels * bins * 1024 + 1024 + 1024 * bins + bins;
      h = linear (W, &x, 1024, TRUE, FALSE);
      act (W, &h, ACT_RELU);
      mask = linear (W, &h, bins, TRUE, FALSE);
      act (W, &mask, ACT_SIGMOID);
      fresh (W, &d);
      if (W->train)
        save_tensor (W, &d);
    }
  /* the three other levels' own offset_fc (and mask_fc) */
  params (W, 3 * level);
}

/* The box head on `rois` RoIs per image of `channels` channels pooled to
 * 7 x 7 (RoIAlign: mmcv's op saves the RoIs, not the features), with
 * `reg` box outputs.
 * Shared2FCBBoxHead (mmdet) / FastRCNNConvFCHead with NUM_FC 2
 * (detectron2): fc 1024, 1024.  "box_head": "4conv1fc": four 3x3 convs
 * of 256, each with the heads' norm and a ReLU, then one fc 1024
 * (open-mmlab/mmdetection configs/gn/mask_rcnn_r50_fpn_gn-all_2x_coco.py
 * @ca2f67f7: Shared4Conv1FCBBoxHead, conv_out_channels 256;
 * mmdet/models/roi_heads/bbox_heads/convfc_bbox_head.py: ConvModule
 * 3x3 convs, then flatten and fc_out_channels 1024; facebookresearch/
 * detectron2 @02b5c4e2 configs/Misc/mask_rcnn_R_50_FPN_3x_gn.yaml:
 * FastRCNNConvFCHead NUM_CONV 4, NUM_FC 1, NORM GN, modeling/roi_heads/
 * box_head.py: Conv2d 3x3 with bias=not conv_norm, relu, flatten, fc). */
static void
box_head (Walk       *W,
          guint       channels,
          guint       reg,
          const char *name)
{
  const HrArch *a = W->a;
  T x = { channels * 7 * 7, 1, a->rois, W->r->e, 0, TRUE };
  T cls, box;

  block_begin (W, FALSE, "%s", name);
  if (a->roi_layer != HR_ARCH_ROI_LAYER_ALIGN)
    deform_roi_pool (W, channels);
  if (a->box_head == HR_ARCH_BOX_HEAD_4CONV1FC)
    {
      /* the RoIs side by side, as in mask_head */
      x = (T) { channels, 7, 7 * a->rois, W->r->e, 0, TRUE };
      fresh (W, &x);
      for (guint i = 0; i < 4; i++)
        {
          x = conv (W, &x, 256, 3, 1, 1, 1, !head_gn (W));
          head_norm (W, &x);
          act (W, &x, ACT_RELU);
        }
      /* flatten: a view of the last ReLU's result (the same tensor) */
      x.c = 256 * 7 * 7;
      x.h = 1;
      x.w = a->rois;
      x = linear (W, &x, 1024, TRUE, FALSE);
      act (W, &x, ACT_RELU);
    }
  else
    {
      fresh (W, &x);
      x = linear (W, &x, 1024, TRUE, FALSE);
      act (W, &x, ACT_RELU);
      x = linear (W, &x, 1024, TRUE, FALSE);
      act (W, &x, ACT_RELU);
    }
  cls = linear (W, &x, W->classes + 1, TRUE, FALSE);
  box = linear (W, &x, reg, TRUE, FALSE);
  loss_copy (W, &cls, NULL);
  (void) box;
  W->x = x;
  block_end (W);
}

/* StandardRoIHead: the box head with class-specific boxes; the mask head
 * (FCNMaskHead: 4 convs, a 2x deconv, per-class logits) on the positive
 * RoIs. */
static void
roi_heads (Walk     *W,
           gboolean  mask,
           guint     channels)
{
  const HrArch *a = W->a;
  /* what the first fc reads: the pooled RoIs, or the last conv's 256
   * channels in a 4conv1fc head */
  guint fc_in = a->box_head == HR_ARCH_BOX_HEAD_4CONV1FC ? 256 : channels;

  box_head (W, channels, 4 * W->classes, "roi head (box)");
  /* the first fc's backward, with the box head's saved tensors alive,
   * makes the gradient of its input, a new tensor of the pooled RoIs
   * (AddmmBackward: grad.mm(weight), tools/autograd/derivatives.yaml
   * @v1.13.1 addmm mat1): 12,544 values a RoI from 256 channels, 100,352
   * from a DC5 res5's 2048 (205 MB an image in fp32 at 512 RoIs) */
  if (W->r->grad)
    peak (W, (double) fc_in * 7 * 7 * a->rois * W->r->e, 0, "box head input gradient");

  if (mask)
    mask_head (W, "roi head (mask)", channels, 4, 14);
}

/* The backward pass reaches res5's output (W->x) with every saved tensor
 * of the RoI heads but the box predictor's and the mask head's alive
 * (those nodes ran first): mean's gradient is sum_backward's expanded
 * view divided by the 49 positions, a new tensor of res5's output
 * (torch/csrc/autograd/FunctionsManual.cpp @v1.13.1 mean_backward:
 * sum_backward(...) / n), and the last ReLU's threshold_backward(grad,
 * result, 0) (tools/autograd/derivatives.yaml) another beside it: two
 * 2048 x 7 x 7 tensors a RoI, 411 MB an image in fp32 at 512 RoIs,
 * against a few hundred kB on an FPN head's RoIs.  With a @mask head the
 * index's backward has already scattered the positive RoIs' gradient
 * into zeros of the same size (index_backward: zeros_like(self)
 * .index_put_), and the autograd engine's input buffer sums the two
 * into a third: a CPU profile of r.mean() + r[idx].sum(), r = relu(x),
 * under PyTorch 1.13 peaks in the backward pass at three gradients of
 * r's size beside r, against two without the index
 * (tests/validation/d2variants_trace.py). */
static void
res5_output_gradients (Walk     *W,
                       gboolean  mask)
{
  if (W->r->grad)
    peak (W, (mask ? 3.0 : 2.0) * tbytes (&W->x), 0, "res5 output gradients");
}

/* detectron2's Res5ROIHeads (facebookresearch/detectron2 @02b5c4e2
 * detectron2/modeling/roi_heads/roi_heads.py): the ROIPooler (ROIAlignV2,
 * ROI_BOX_HEAD.POOLER_RESOLUTION 14 in config/defaults.py) on res4
 * (stride 16, 1024 channels) for the ROI_HEADS.BATCH_SIZE_PER_IMAGE (the
 * catalog's rois, 512) sampled RoIs of each image, then res5 on every
 * RoI (_build_res5_block: the backbone's last stage, stride_per_block
 * [2, 1, 1], 2048 channels out; RESNETS.STRIDE_IN_1X1 True puts the
 * stride in the first 1x1 convolution, modeling/backbone/resnet.py
 * BottleneckBlock: stride_1x1, stride_3x3 = (stride, 1)), so 14 x 14 in,
 * 7 x 7 from the first block's first convolution on.  The pooled
 * features are the first block's input, saved by its 1x1 convolution and
 * its shortcut (torchvision's roi_align keeps the boxes, not the
 * features).  box_features.mean(dim=[2, 3]) saves only sizes;
 * FastRCNNOutputLayers: cls_score 2048 -> classes + 1, bbox_pred 2048 ->
 * 4 x classes.  The RoIs side by side: a convolution over 14 x (14 x
 * rois) keeps what one over rois x 14 x 14 keeps.  @mask: MASK_ON, the
 * mask head on res5's output of the positive RoIs, after the box
 * predictor's losses (Res5ROIHeads.forward). */
static void
res5_roi_head (Walk     *W,
               gboolean  mask)
{
  const HrArch *a = W->a;
  guint planes = 512;
  guint out_c = planes * 4;
  guint width = bottleneck_width (a, 3);
  guint side;
  T cls, reg;

  W->x = (T) { out_c / 2, 14, 14 * a->rois, W->r->e, 0, TRUE };
  fresh (W, &W->x);
  for (guint j = 0; j < a->depths[3]; j++)
    {
      guint stride = j == 0 ? 2 : 1;
      T id;

      block_begin (W, TRUE, "roi head (res5).%u", j);
      id = W->x;
      hold (W, &id);
      conv_bn_act (W, width, 1, stride, 1, 1, ACT_RELU);
      conv_bn_act (W, width, 3, 1, a->groups, 1, ACT_RELU);
      conv_bn_act (W, out_c, 1, 1, 1, 1, -1);
      if (j == 0)
        {
          T down = conv (W, &id, out_c, 1, stride, 1, 1, FALSE);

          bn (W, &down);
          W->x = add (W, &W->x, &down);
        }
      else
        W->x = add (W, &W->x, &id);
      release (W, &id);
      act (W, &W->x, ACT_RELU);
      block_end (W);
    }

  res5_output_gradients (W, mask);
  side = W->x.h;

  W->x = (T) { out_c, 1, a->rois, W->r->e, 0, TRUE };
  fresh (W, &W->x);
  block_begin (W, FALSE, "roi head (box predictor)");
  cls = linear (W, &W->x, W->classes + 1, TRUE, FALSE);
  reg = linear (W, &W->x, 4 * W->classes, TRUE, FALSE);
  loss_copy (W, &cls, NULL);
  (void) reg;
  block_end (W);

  /* Res5ROIHeads.forward with MASK_ON: mask_features =
   * box_features[torch.cat(fg_selection_masks)], res5's output of the
   * positive RoIs copied by the index (whose node keeps the indices), the
   * mask head's input */
  if (mask)
    mask_head (W, "roi head (mask)", out_c, 0, side);
}

/* Cascade R-CNN (Cai and Vasconcelos 2018): `cascade_stages` box heads in
 * sequence, stage k+1 on the boxes stage k regressed (IoU thresholds 0.5,
 * 0.6, 0.7), each its own Shared2FCBBoxHead with class-agnostic boxes
 * (open-mmlab/mmdetection @024d2bd2 configs/_base_/models/
 * cascade_rcnn_r50_fpn.py: num_stages 3, reg_class_agnostic=True;
 * facebookresearch/detectron2 @02b5c4e2 configs/Misc/
 * cascade_mask_rcnn_R_50_FPN_1x.yaml: CascadeROIHeads,
 * CLS_AGNOSTIC_BBOX_REG).  Each stage pools its own `rois` per image
 * (mmdet's CascadeRoIHead.loss samples 512 anew per stage; detectron2's
 * _forward_box relabels the same proposals, moved to the last stage's
 * boxes) and keeps what the box head keeps; detectron2's _ScaleGradient
 * in front of each head saves nothing.  The mask head: mmdetection trains
 * one per stage on that stage's positive RoIs (CascadeRoIHead.loss calls
 * mask_loss in the stage loop, init_mask_head builds num_stages
 * heads), detectron2 one, on the first stage's positive proposals
 * (modeling/roi_heads/cascade_rcnn.py forward: _forward_mask(features,
 * proposals) with the proposals label_and_sample_proposals returned). */
static void
cascade_roi_heads (Walk     *W,
                   gboolean  mask)
{
  const HrArch *a = W->a;

  for (guint stage = 0; stage < a->cascade_stages; stage++)
    {
      g_autofree char *box_name = g_strdup_printf ("roi head (box, stage %u)", stage + 1);

      box_head (W, 256, 4, box_name);

      if (mask && (!W->r->cascade_one_mask_head || stage == 0))
        {
          g_autofree char *name = g_strdup_printf ("roi head (mask, stage %u)", stage + 1);

          mask_head (W, name, 256, 4, 14);
        }
    }
}

/* The sigmoid focal loss written out in Python: torchvision's
 * (pytorch/vision @v0.14.1 torchvision/ops/focal_loss.py
 * sigmoid_focal_loss, "Original implementation from fvcore"), which
 * detectron2 calls as fvcore's sigmoid_focal_loss_jit (facebookresearch/
 * fvcore fvcore/nn/focal_loss.py; detectron2 modeling/meta_arch/
 * retinanet.py losses()).  Its autograd graph saves, per anchor and class:
 * the logits (binary_cross_entropy_with_logits' self, an index copy of
 * the valid anchors in torchvision's RetinaNet, the concatenated outputs
 * in its FCOS), the one-hot targets (BCE's target, also p * targets'),
 * sigmoid's result p, 1 - targets ((1 - p) * (1 - targets)), 1 - p_t
 * (pow's base), (1 - p_t) ** gamma and ce_loss (their product saves both)
 * and alpha_t (alpha_t * loss): eight tensors.  Under autocast the
 * logits are 16-bit and BCE, an fp32 op of autocast, saves fp32 casts of
 * the logits and targets and returns ce_loss in fp32 (12 bytes), beside
 * six 16-bit tensors.  The valid anchors are all but those between the
 * IoU thresholds (0.4 to 0.5), which depend on the boxes: every anchor is
 * counted (a CPU trace at three boxes an image found 96% of them valid,
 * tests/trace).  Before the sum, the full one-hot targets and two
 * products are alive: three more such tensors.
 *
 * The heads hand their outputs over as views, permuted and reshaped
 * (copies nobody saves) and concatenated over the levels
 * (torchvision's RetinaNetClassificationHead.forward, detectron2's
 * permute_to_N_HWA_K), so no other copy of them is saved.  FCOS's
 * centerness loss (BCE with logits) saves its logits and targets. */
static void
focal_loss_python (Walk     *W,
                   double    elems,
                   double    centerness,
                   double    alive)
{
  double e = W->r->e;
  double per_elem = W->r->autocast ? 3.0 * 4.0 + 6.0 * e : 8.0 * e;

  if (!W->r->grad)
    return;
  save (W, elems * per_elem + centerness * 2.0 * 4.0);
  peak (W, 3.0 * elems * 4.0 + alive, 0, "focal loss");
}

/* What detectron2's dense detectors keep alive through their losses
 * beside the saved tensors (facebookresearch/detectron2 @02b5c4e2
 * detectron2/modeling/meta_arch/dense_detector.py and retinanet.py,
 * fcos.py):
 *
 * - DenseDetector.forward holds the head's outputs (`predictions`, N x
 *   A*K x H x W a level) until forward_training returns, and
 *   forward_training holds their transposed copies (permute_to_N_HWA_K:
 *   view, permute, then reshape, which copies a permuted tensor), both
 *   before label_anchors runs and through losses(): the class and box
 *   outputs twice, in the outputs' dtype (@outputs bytes);
 * - RetinaNet.losses and FCOS.losses build the targets as F.one_hot(
 *   gt_labels, num_classes + 1)[..., :-1], an int64 tensor of anchors x
 *   (classes + 1) that the name gt_labels_target holds while the focal
 *   loss runs (its float copy is the loss's target, saved).
 *
 * Returns the bytes alive at the focal loss; *at_assigner gets those
 * alive while the anchors are labelled.  torchvision's RetinaNet and FCOS
 * concatenate the levels' copies in the head and build float targets
 * image by image (models/detection/retinanet.py @v0.14.1), which
 * focal_loss_python counts. */
static double
dense_outputs_alive (Walk   *W,
                     double  outputs,
                     double  cls_elems,
                     double *at_assigner)
{
  double one_hot;

  *at_assigner = 0;
  if (!W->r->dense_outputs_alive || !W->r->grad || W->classes == 0)
    return 0;
  one_hot = cls_elems / W->classes * (W->classes + 1) * 8.0;
  *at_assigner = 2.0 * outputs;
  return 2.0 * outputs + one_hot;
}

/* Keypoint R-CNN's keypoint head on the positive RoIs ("mask_rois" per
 * image), pooled to 14 x 14: eight 3x3 convolutions of 512 channels, each
 * with a ReLU, a ConvTranspose2d(512, K, 4, stride 2, padding 1) to 28 x
 * 28, then a bilinear 2x upsampling to 56 x 56, which saves nothing but
 * sizes (detectron2 @989f52d6 modeling/roi_heads/keypoint_head.py
 * KRCNNConvDeconvUpsampleHead with ROI_KEYPOINT_HEAD.CONV_DIMS (512,) * 8
 * and POOLER_RESOLUTION 14; torchvision @v0.14.1 models/detection/
 * keypoint_rcnn.py KeypointRCNNHeads and KeypointRCNNPredictor).  The loss
 * is a cross-entropy over the 56 x 56 positions of each visible keypoint
 * (keypoint_rcnn_loss: logits viewed as N * K x 3136): log_softmax keeps
 * its fp32 result, counted here for every keypoint of every RoI.  A CPU
 * trace of torchvision 0.14's keypointrcnn_resnet50_fpn at 1344 x 800, 2
 * images, 20 boxes each and 107 keypoint RoIs (resident memory with
 * MALLOC_MMAP_THRESHOLD_=65536) rose 1.890 GiB by the end of the forward
 * pass, where this walk saves 1.897 GiB, and peaked 0.19 GiB higher in
 * the backward pass (Faster R-CNN alike: 1.539, then 0.47 higher); with
 * more RoIs the backward pass through its last ReLU is the moment
 * (below). */
static void
keypoint_head (Walk *W)
{
  const HrArch *a = W->a;
  guint k = a->keypoints;

  block_begin (W, FALSE, "roi head (keypoints)");
  /* the RoIs side by side, as the mask head's */
  W->x = (T) { 256, 14, 14 * a->mask_rois, W->r->e, 0, TRUE };
  fresh (W, &W->x);
  for (guint i = 0; i < 8; i++)
    {
      W->x = conv (W, &W->x, 512, 3, 1, 1, 1, TRUE);
      act (W, &W->x, ACT_RELU);
    }
  {
    T up = { k, 28, 28 * a->mask_rois, W->r->e, 0, TRUE };
    double features = tbytes (&W->x);

    fresh (W, &up);
    params (W, (guint64) 512 * k * 16 + k);
    save_matmul_input (W, &W->x);
    W->x = resize (W, &up, 56, 56 * a->mask_rois);
    /* the backward pass through the last ReLU: its gradient in and out,
     * 512 channels at 14 x 14 a RoI each, beside every saved tensor but
     * the loss's, which is freed by then.  A CPU profile of torchvision
     * 0.14's keypointrcnn_resnet50_fpn (one 640 x 384 image, 100 boxes,
     * 122 keypoint RoIs: tests/trace/peak_trace.py) peaks 724,617,300
     * bytes above the weights, gradients and momentum */
    if (W->r->grad)
      peak (W, 2.0 * features, 0, "keypoint head backward");
  }
  if (W->r->grad)
    save (W, numel (&W->x) * W->r->e32);
  block_end (W);
}

/* Panoptic FPN's semantic head: detectron2's SemSegFPNHead
 * (facebookresearch/detectron2 @02b5c4e2 detectron2/modeling/meta_arch/
 * semantic_seg.py) on p2-p5 (SEM_SEG_HEAD.IN_FEATURES), with
 * config/defaults.py's CONVS_DIM 128 ("sem_seg_dims"), COMMON_STRIDE 4,
 * NORM "GN" and NUM_CLASSES 54 ("stuff_classes").  Each level runs
 * max(1, log2(stride / 4)) Conv2d 3x3 (bias=not norm), GroupNorm(32) and
 * F.relu (detectron2/layers/wrappers.py Conv2d: conv, norm, activation),
 * each followed by nn.Upsample(scale_factor=2, bilinear) while the level
 * is coarser than stride 4: 1 on p2, 1 on p3, 2 on p4, 3 on p5.  The
 * convolutions save their inputs (the FPN level, or the upsampled
 * tensor), GroupNorm its input and its mean and rstd, ReLU its result;
 * the upsampling saves only sizes and the sum of the levels nothing. */
static T
sem_seg_tower (Walk  *W,
               T     *level,
               guint  stride)
{
  T x = *level;
  guint convs = 0;

  for (guint s = stride; s > 4; s /= 2)
    convs++;
  for (guint k = 0; k < MAX (1, convs); k++)
    {
      x = conv (W, &x, W->a->sem_seg_dims, 3, 1, 1, 1, FALSE);
      group_norm (W, &x);
      act (W, &x, ACT_RELU);
      if (stride > 4)
        x = resize (W, &x, 2 * x.h, 2 * x.w);
    }
  return x;
}

/* SemSegFPNHead.losses: predictions.float(), F.interpolate by
 * COMMON_STRIDE (bilinear, align_corners False: saves only sizes), then
 * F.cross_entropy with ignore_index 255 (the loss weight, 0.5 in
 * configs/COCO-PanopticSegmentation/Base-Panoptic-FPN.yaml, saves
 * nothing): log_softmax saves its fp32 result at the image's padded size
 * and nll_loss2d the int64 target (DatasetMapper's sem_seg as a long
 * tensor, padded by ImageList.from_tensors in PanopticFPN.forward).
 *
 * PanopticFPN.forward runs this head before the proposal generator and
 * the RoI heads, so the autograd engine, which runs the ready function
 * created last first, differentiates the detector first and frees its
 * saved tensors: the loss's backward (nll_loss2d's and log_softmax's
 * gradients, each the size of the full logits) runs beside what the
 * backbone, the FPN and this head saved, and the gradients the detector
 * left on p2-p5 (@detector_grads), waiting for this head's.  A CPU trace
 * (tests/validation/panoptic_trace.py, torch 1.13) saves 424,705,804
 * bytes beyond the FPN levels for one 1344 x 800 image, this walk
 * 424,705,792 (nll_loss's two scalars aside), and sees the head's
 * backward run after the detector's. */
static void
sem_seg_loss (Walk   *W,
              T      *logits,
              double  detector_grads)
{
  T full = { logits->c, 4 * logits->h, 4 * logits->w, W->r->e32, 0, logits->grad };

  fwd (W, tbytes (logits), 2.0 * tbytes (&full), 0);
  if (!logits->grad)
    return;
  save (W, tbytes (&full));
  softmax_input_saved (W, tbytes (&full), 0);
  save (W, (double) full.h * full.w * 8.0);
  peak (W, tbytes (&full), 0, "semantic segmentation loss");
  peak (W, 2.0 * tbytes (&full) + detector_grads, 0,
        "semantic segmentation loss gradients");
}

static void
sem_seg_head (Walk *W,
              T    *p)
{
  T sum = { 0 };
  double grads = 0;

  block_begin (W, FALSE, "semantic segmentation head");
  for (guint i = 0; i < 4; i++)
    {
      T tower = sem_seg_tower (W, &p[i], 4u << i);

      sum = i == 0 ? tower : add (W, &sum, &tower);
      grads += tbytes (&p[i]);
    }
  W->x = conv (W, &sum, W->a->stuff_classes, 1, 1, 1, 1, TRUE);
  sem_seg_loss (W, &W->x, W->r->grad ? grads : 0);
  block_end (W);
}

/* RetinaHead (4 convs per tower, 9 anchors) and FCOSHead (4 convs with
 * GroupNorm per tower, centerness): one set of weights for every level. */
static void
dense_head (Walk     *W,
            T        *p,
            guint     n,
            gboolean  fcos)
{
  double copies = 0, cast = 0, anchors = 0;
  double level_copies[8] = { 0 }, level_cls[8] = { 0 };
  gboolean python = W->r->focal == HR_ARCH_FOCAL_PYTHON;
  double cls_elems = 0, points = 0, outputs = 0;

  g_assert (n <= G_N_ELEMENTS (level_copies));
  block_begin (W, FALSE, fcos ? "fcos head" : "retina head");
  for (guint i = 0; i < n; i++)
    {
      W->count_params = i == 0;
      for (guint tower = 0; tower < 2; tower++)
        {
          T x = p[i], out;

          for (guint j = 0; j < 4; j++)
            {
              x = conv (W, &x, 256, 3, 1, 1, 1, !fcos);
              if (fcos)
                norm (W, &x);
              act (W, &x, ACT_RELU);
            }
          if (tower == 0 && python)
            {
              /* the outputs reach focal_loss_python as views */
              out = conv (W, &x, fcos ? W->classes : 9 * W->classes, 3, 1, 1, 1, TRUE);
              cls_elems += numel (&out);
              outputs += tbytes (&out);
              if (fcos)
                {
                  T centerness = conv (W, &x, 1, 3, 1, 1, 1, TRUE);

                  outputs += tbytes (&centerness);
                }
            }
          else if (python)
            {
              out = conv (W, &x, fcos ? 4 : 36, 3, 1, 1, 1, TRUE);
              outputs += tbytes (&out);
            }
          else if (tower == 0)
            {
              out = conv (W, &x, fcos ? W->classes : 9 * W->classes, 3, 1, 1, 1, TRUE);
              level_cls[i] = loss_copy (W, &out, &cast);
              level_copies[i] += level_cls[i];
              if (fcos)
                {
                  T centerness = conv (W, &x, 1, 3, 1, 1, 1, TRUE);

                  level_copies[i] += loss_copy (W, &centerness, &cast);
                }
            }
          else
            {
              out = conv (W, &x, fcos ? 4 : 36, 3, 1, 1, 1, TRUE);
              level_copies[i] += loss_copy (W, &out, &cast);
            }
        }
      copies += level_copies[i];
      anchors += 9.0 * p[i].h * p[i].w;
      points += (double) p[i].h * p[i].w;
    }
  W->count_params = TRUE;

  if (python)
    {
      double at_assigner;
      double alive = dense_outputs_alive (W, outputs, cls_elems, &at_assigner);

      if (!fcos)
        assign_peak (W, anchors, -at_assigner, "retina assigner");
      focal_loss_python (W, cls_elems, fcos ? points : 0, alive);
      block_end (W);
      return;
    }

  if (!fcos)
    assign_peak (W, anchors, copies - cast, "retina assigner");

  /* The focal loss, level by level (AnchorHead.loss: multi_apply of
   * loss_single over the levels): mmcv's sigmoid_focal_loss returns the
   * loss of every anchor and class, and weight_reduce_loss multiplies it by
   * the weights before the sum (mmdet models/losses/focal_loss.py): two
   * fp32 tensors the size of the level's class scores, beside the copies
   * of the levels before it. */
  if (W->r->grad && !fcos)
    {
      double later = copies;

      for (guint i = 0; i < n; i++)
        {
          later -= level_copies[i];
          peak (W, 2.0 * level_cls[i] - later + cast, 0, "focal loss");
        }
    }
  /* FCOSHead.loss concatenates the levels' flattened scores and runs the
   * focal loss once over all of them (mmdet models/dense_heads/
   * fcos_head.py) */
  if (W->r->grad && fcos)
    {
      double cls = 0;

      for (guint i = 0; i < n; i++)
        cls += level_cls[i];
      peak (W, 2.0 * cls + cast, 0, "focal loss");
    }
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* SSD (pytorch/vision @16daea1c torchvision/models/detection/ssd.py,  */
/* the same network and loss in the v0.14.1 release)                 */

/* nn.MaxPool2d(2, 2) with ceil_mode, as SSDFeatureExtractorVGG patches
 * VGG's third pooling ("to get the same WxH output sizes as the paper":
 * 75 to 38 at 300 px).  Saves what maxpool() saves. */
static void
maxpool_ceil (Walk *W,
              T    *x)
{
  maxpool_to (W, x, x->h / 2 + x->h % 2, x->w / 2 + x->w % 2);
}

/* A 3x3 convolution with its bias and an in-place ReLU, VGG's layer
 * (torchvision/models/vgg.py make_layers, batch_norm False). */
static void
conv_relu (Walk  *W,
           guint  cout,
           guint  k,
           guint  stride,
           guint  pad,
           guint  dilation)
{
  W->x = conv_pad (W, &W->x, cout, k, stride, pad, 1, dilation, TRUE);
  act (W, &W->x, ACT_RELU);
}

/* torchvision's VGG features: stage i is depths[i] 3x3 convolutions of
 * widths[i] channels, then a 2x2 max pooling.  Under SSD the walk stops
 * at conv4_3 (SSDFeatureExtractorVGG.features, backbone[:maxpool4_pos]),
 * its third pooling rounding up; the SSD head walks the rest.
 * "frozen_stages" n freezes stages 1..n (_vgg_extractor: parameters
 * before stage_indices[5 - trainable_layers] stop requiring gradients;
 * ssd300_vgg16's trainable_backbone_layers 4 freezes conv1_1 and
 * conv1_2). */
static void
vgg (Walk *W,
     T     c[4])
{
  const HrArch *a = W->a;
  gboolean trainable = W->r->trainable;
  gboolean ssd = a->head == HR_ARCH_HEAD_SSD;
  guint stages = ssd ? 4 : 5;

  for (guint i = 0; i < stages; i++)
    {
      block_begin (W, TRUE, "stage%u", i + 1);
      W->train = trainable && a->frozen_stages < (int) i + 1;
      if (i > 0)
        {
          if (ssd && i == 3)
            maxpool_ceil (W, &W->x);
          else
            maxpool (W, &W->x, 2, 2, 0);
        }
      for (guint j = 0; j < a->depths[i]; j++)
        conv_relu (W, a->widths[i], 3, 1, 1, 1);
      if (!ssd && i == 4)
        maxpool (W, &W->x, 2, 2, 0);
      block_end (W);
    }
  W->train = trainable;
  c[0] = W->x;
}

/* SSD300 on VGG16 (SSDFeatureExtractorVGG, SSDHead, SSD.compute_loss).
 *
 * conv4_3's map is rescaled by a learned weight times F.normalize (torch
 * 1.13 nn/functional.py normalize: input / input.norm(2, 1,
 * keepdim).clamp_min(eps).expand_as(input)): norm saves its input and its
 * result, clamp_min its input (that result), the division its input and
 * the clamped norm, and the product with the weight the normalized map.
 * Then maxpool4, conv5_1..5_3, the 3x3/1 maxpool5, the dilated fc6
 * (1024, 3x3, dilation 6), fc7 (1x1) and four extra 1x1 + 3x3 pairs give
 * six maps (38, 19, 10, 5, 3 and 1 at 300 px).  DefaultBoxGenerator's
 * aspect ratios [[2], [2, 3], [2, 3], [2, 3], [2], [2]] make 2 + 2 per
 * ratio boxes per position: 4, 6, 6, 6, 4, 4, 8732 at 300 px.  A 3x3
 * convolution per map predicts classes and 4 offsets per box; the outputs
 * are permuted, reshaped (copies) and concatenated, which saves nothing.
 *
 * The loss: F.cross_entropy over every box and class, reduction "none"
 * (log_softmax keeps its fp32 result, nll_loss the int64 target of every
 * box); hard negative mining writes -inf into a clone at the positives
 * (index_put_ keeps the boolean mask) and sorts it (sort keeps its int64
 * indices), and the sum over the positives and over the 3:1 negatives
 * indexes the losses with one more boolean mask.  Smooth L1 runs on the
 * matched boxes only, a few hundred bytes.  A CPU trace counts these
 * bytes to the byte (tests/trace). */
/* SSD.compute_loss over @anchors default boxes of @elems class scores
 * (the comment above); the walk's output becomes the class scores. */
static void
ssd_loss (Walk   *W,
          double  elems,
          double  anchors)
{
  if (W->r->grad)
    {
      /* log-probabilities, the targets and sort's indices, two masks */
      save (W, elems * W->r->e32);
      save (W, anchors * 8.0);
      save (W, anchors * 8.0);
      save (W, 2.0 * anchors);
      W->res->fixed_saved += 4.0;                  /* nll_loss's total_weight */
      softmax_input_saved (W, elems * W->r->e32, 0);
      /* the backward pass starts with the gradients of the
       * log-probabilities and of the logits, each as large */
      peak (W, 2.0 * elems * W->r->e32, 0, "ssd loss gradients");
    }
  W->x = (T) { W->classes, 1, (guint) anchors, W->r->e, 0, W->r->grad };
  fresh (W, &W->x);
}

static void
ssd_head (Walk *W)
{
  static const guint boxes[6] = { 4, 6, 6, 6, 4, 4 };
  T maps[6], x;
  double anchors = 0, elems = 0;

  block_begin (W, FALSE, "l2norm");
  x = W->x;
  if (x.grad)
    {
      double hw = (double) x.h * x.w;

      /* autocast runs norm in fp32, on an fp32 copy of a 16-bit map */
      if (W->r->autocast && x.eb < W->r->e32)
        save (W, numel (&x) * W->r->e32);
      else
        save_tensor (W, &x);
      save (W, 2.0 * hw * W->r->e32);              /* the norm, the clamped norm */
      save (W, numel (&x) * W->r->e32);            /* the normalized map */
    }
  params (W, x.c);
  maps[0] = x;
  maps[0].eb = W->r->e32;
  maps[0].grad = x.grad || W->train;
  fresh (W, &maps[0]);
  fwd (W, tbytes (&x), 2.0 * tbytes (&maps[0]), 0);
  hold (W, &maps[0]);
  block_end (W);

  block_begin (W, TRUE, "stage5 + fc6, fc7");
  maxpool (W, &W->x, 2, 2, 0);
  for (guint j = 0; j < W->a->depths[4]; j++)
    conv_relu (W, W->a->widths[4], 3, 1, 1, 1);
  maxpool (W, &W->x, 3, 1, 1);
  conv_relu (W, 1024, 3, 1, 6, 6);
  conv_relu (W, 1024, 1, 1, 0, 1);
  block_end (W);
  maps[1] = W->x;
  hold (W, &maps[1]);

  {
    static const guint mids[4] = { 256, 128, 128, 128 };
    static const guint outs[4] = { 512, 256, 256, 256 };

    for (guint i = 0; i < 4; i++)
      {
        block_begin (W, TRUE, "extra%u", i + 1);
        conv_relu (W, mids[i], 1, 1, 0, 1);
        /* conv8_2 and conv9_2 are 3x3/2 with padding 1, conv10_2 and
         * conv11_2 3x3 without */
        conv_relu (W, outs[i], 3, i < 2 ? 2 : 1, i < 2 ? 1 : 0, 1);
        block_end (W);
        maps[i + 2] = W->x;
        hold (W, &maps[i + 2]);
      }
  }

  block_begin (W, FALSE, "ssd head");
  for (guint i = 0; i < 6; i++)
    {
      T cls = conv (W, &maps[i], boxes[i] * W->classes, 3, 1, 1, 1, TRUE);
      T reg = conv (W, &maps[i], boxes[i] * 4, 3, 1, 1, 1, TRUE);

      elems += numel (&cls);
      anchors += (double) boxes[i] * maps[i].h * maps[i].w;
      (void) reg;
    }
  for (guint i = 0; i < 6; i++)
    release (W, &maps[i]);
  ssd_loss (W, elems, anchors);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* Segmentation heads (mmseg configs/_base_/models)                     */

/* The loss at full resolution (mmseg decode_head.py, BaseDecodeHead.
 * losses, and models/losses/cross_entropy_loss.py): the logits are cast to
 * fp32 (force_fp32 on losses) and resized to the label's size, and
 * F.cross_entropy's log_softmax saves its fp32 result.  The resized logits
 * stay alive while the loss runs (accuracy() reads them after it), and the
 * backward pass starts here: nll_loss's gradient and log_softmax's, each
 * the size of the full logits, beside every saved tensor (the head that
 * ran last, the auxiliary one, is differentiated first). */
static void
seg_loss (Walk *W,
          T    *logits)
{
  T full = { logits->c, W->r->height, W->r->width, 4.0, 0, logits->grad };

  fwd (W, tbytes (logits), 2.0 * tbytes (&full), 0);
  if (!logits->grad)
    return;
  save (W, tbytes (&full));
  softmax_input_saved (W, tbytes (&full), 0);
  peak (W, tbytes (&full), 0, "segmentation loss");
  peak (W, 2.0 * tbytes (&full), 0, "segmentation loss gradients");
}

/* cls_seg: dropout_ratio 0.1 is nn.Dropout2d, whose output (input times a
 * per-channel mask: ATen feature_dropout) is a new tensor conv_seg saves,
 * then conv_seg to the classes */
static void
conv_seg (Walk *W)
{
  T dropped = W->x;

  fresh (W, &dropped);
  W->x = conv (W, &dropped, W->classes, 1, 1, 1, 1, TRUE);
  seg_loss (W, &W->x);
}

static void
ppm (Walk *W,
     T    *x,
     guint channels,
     T    *outs)
{
  static const guint scales[] = { 1, 2, 3, 6 };

  outs[0] = *x;
  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    {
      T pooled;

      /* the concatenation's share of the gradient is the first */
      branch_grad_peak (W, x);
      pooled = avgpool (W, x, scales[i]);

      W->x = pooled;
      conv_bn_act (W, channels, 1, 1, 1, 1, ACT_RELU);
      outs[i + 1] = resize (W, &W->x, x->h, x->w);
    }
}

/* FCNHead on stage 3, num_convs 1, half the decode head's channels (256
 * beside a 512-channel head, 64 beside ResNet-18's 128) */
static void
aux_fcn (Walk  *W,
         T     *c4,
         guint  channels)
{
  block_begin (W, FALSE, "auxiliary head (FCN)");
  W->x = *c4;
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  conv_seg (W);
  block_end (W);
}

static void
psp_head (Walk  *W,
          T     *c,
          guint  channels)
{
  T parts[5];

  block_begin (W, FALSE, "decode head (PSP)");
  ppm (W, &c[3], channels, parts);
  W->x = cat (W, parts, 5);
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  conv_seg (W);
  block_end (W);
}

/* mmsegmentation's FCNHead as configs/_base_/models/fcn_r50-d8.py builds
 * the decode head (open-mmlab/mmsegmentation @3f8d34ee; the head in
 * mmseg/models/decode_heads/fcn_head.py @0b5f81f9): num_convs 2 and
 * concat_input, so two 3x3 ConvModules from stage 4 to the channels, then
 * conv_cat, a 3x3 ConvModule over torch.cat([x, output]) (stage 4's 2048
 * channels beside the 512), and cls_seg.  Stage 4 feeds both convs[0] and
 * the concatenation, whose share of its gradient is the first. */
static void
mmseg_fcn_head (Walk  *W,
                T     *c,
                guint  channels)
{
  T parts[2];

  block_begin (W, FALSE, "decode head (FCN)");
  W->x = c[3];
  branch_grad_peak (W, &c[3]);
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  parts[0] = c[3];
  parts[1] = W->x;
  W->x = cat (W, parts, 2);
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  conv_seg (W);
  block_end (W);
}

/* mmsegmentation's ASPPHead (DeepLabV3) as configs/_base_/models/
 * deeplabv3_r50-d8.py builds it (open-mmlab/mmsegmentation @2fc821ec;
 * mmseg/models/decode_heads/aspp_head.py @306731f4): image_pool
 * (AdaptiveAvgPool2d(1) and a 1x1 ConvModule, resized bilinearly to stage
 * 4's size) first, then ASPPModule at dilations (1, 12, 24, 36), a 1x1
 * ConvModule for dilation 1 and 3x3 ones otherwise, each from stage 4 to
 * the channels; the bottleneck, a 3x3 ConvModule over the five
 * concatenated, and cls_seg. */
static void
mmseg_aspp_head (Walk  *W,
                 T     *c,
                 guint  channels)
{
  static const guint dilations[] = { 1, 12, 24, 36 };
  T parts[5];

  block_begin (W, FALSE, "decode head (DeepLabV3)");
  W->x = avgpool (W, &c[3], 1);
  conv_bn_act (W, channels, 1, 1, 1, 1, ACT_RELU);
  parts[0] = resize (W, &W->x, c[3].h, c[3].w);
  for (guint i = 0; i < G_N_ELEMENTS (dilations); i++)
    {
      W->x = c[3];
      branch_grad_peak (W, &c[3]);
      conv_bn_act (W, channels, dilations[i] == 1 ? 1 : 3, 1, 1, dilations[i], ACT_RELU);
      parts[i + 1] = W->x;
    }
  W->x = cat (W, parts, 5);
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  conv_seg (W);
  block_end (W);
}

/* DepthwiseSeparableConvModule: depthwise conv + BN + ReLU, pointwise
 * conv + BN + ReLU */
static void
sep_conv (Walk  *W,
          guint  cout,
          guint  dilation)
{
  conv_bn_act (W, W->x.c, 3, 1, W->x.c, dilation, ACT_RELU);
  conv_bn_act (W, cout, 1, 1, 1, 1, ACT_RELU);
}

static void
aspp_head (Walk *W,
           T    *c)
{
  static const guint dilations[] = { 12, 24, 36 };
  T parts[5], c1;

  block_begin (W, FALSE, "decode head (DeepLabv3+)");
  W->x = avgpool (W, &c[3], 1);
  conv_bn_act (W, 512, 1, 1, 1, 1, ACT_RELU);
  parts[0] = resize (W, &W->x, c[3].h, c[3].w);
  W->x = c[3];
  branch_grad_peak (W, &c[3]);
  conv_bn_act (W, 512, 1, 1, 1, 1, ACT_RELU);
  parts[1] = W->x;
  for (guint i = 0; i < G_N_ELEMENTS (dilations); i++)
    {
      W->x = c[3];
      branch_grad_peak (W, &c[3]);
      sep_conv (W, 512, dilations[i]);
      parts[i + 2] = W->x;
    }
  W->x = cat (W, parts, 5);
  conv_bn_act (W, 512, 3, 1, 1, 1, ACT_RELU);
  {
    T out = resize (W, &W->x, c[0].h, c[0].w);

    W->x = c[0];
    conv_bn_act (W, 48, 1, 1, 1, 1, ACT_RELU);
    c1 = W->x;
    parts[0] = out;
    parts[1] = c1;
    W->x = cat (W, parts, 2);
  }
  sep_conv (W, 512, 1);
  sep_conv (W, 512, 1);
  conv_seg (W);
  block_end (W);
}

/* nn.Dropout in training on CUDA: the fused native_dropout saves its bool
 * mask, one byte an element (derivatives.yaml @v1.13.1 native_dropout:
 * "mask"; ATen Dropout.cpp dropout() takes it for every CUDA input), and
 * the output is a new tensor, which the next op saves. */
static void
dropout (Walk *W)
{
  T out = W->x;

  fresh (W, &out);
  if (W->x.grad)
    save (W, numel (&W->x));
  fwd (W, tbytes (&W->x), tbytes (&out) + numel (&W->x), 0);
  W->x = out;
}

/* torchvision's FCNHead (models/segmentation/fcn.py @v0.14.1): a 3x3
 * convolution to a quarter of the channels, BatchNorm, ReLU, Dropout(0.1)
 * and a 1x1 convolution to the classes; the model upsamples the logits to
 * the input (F.interpolate, bilinear: upsample_bilinear2d's backward
 * needs only the sizes) and the loss (torchvision references/segmentation
 * train.py criterion: cross-entropy of "out", plus 0.5 times that of
 * "aux") saves their log-softmax at full size. */
static void
tv_fcn_head (Walk       *W,
             T          *in,
             const char *name)
{
  block_begin (W, FALSE, "%s", name);
  W->x = *in;
  conv_bn_act (W, in->c / 4, 3, 1, 1, 1, ACT_RELU);
  dropout (W);
  W->x = conv (W, &W->x, W->classes, 1, 1, 1, 1, TRUE);
  seg_loss (W, &W->x);
  block_end (W);
}

/* torchvision's DeepLabHead (models/segmentation/deeplabv3.py @v0.14.1):
 * ASPP at rates 12, 24, 36 (a 1x1 branch, three dilated 3x3 ones and
 * image pooling, 256 channels each), concatenated and projected by a 1x1
 * convolution with BatchNorm, ReLU and Dropout(0.5); then a 3x3
 * convolution, BatchNorm, ReLU and the 1x1 convolution to the classes. */
static void
tv_deeplabv3_head (Walk *W,
                   T    *c)
{
  static const guint rates[] = { 12, 24, 36 };
  T parts[5];

  block_begin (W, FALSE, "decode head (DeepLabV3)");
  W->x = c[3];
  branch_grad_peak (W, &c[3]);
  conv_bn_act (W, 256, 1, 1, 1, 1, ACT_RELU);
  parts[0] = W->x;
  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      W->x = c[3];
      branch_grad_peak (W, &c[3]);
      conv_bn_act (W, 256, 3, 1, 1, rates[i], ACT_RELU);
      parts[i + 1] = W->x;
    }
  W->x = avgpool (W, &c[3], 1);
  conv_bn_act (W, 256, 1, 1, 1, 1, ACT_RELU);
  parts[4] = resize (W, &W->x, c[3].h, c[3].w);
  W->x = cat (W, parts, 5);
  conv_bn_act (W, 256, 1, 1, 1, 1, ACT_RELU);
  dropout (W);
  conv_bn_act (W, 256, 3, 1, 1, 1, ACT_RELU);
  W->x = conv (W, &W->x, W->classes, 1, 1, 1, 1, TRUE);
  seg_loss (W, &W->x);
  block_end (W);
}

static void
uper_head (Walk  *W,
           T     *c,
           guint  channels)
{
  T parts[5], lat[4], outs[4];

  block_begin (W, FALSE, "decode head (UPerNet)");
  ppm (W, &c[3], channels, parts);
  W->x = cat (W, parts, 5);
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  lat[3] = W->x;
  for (guint i = 0; i < 3; i++)
    {
      W->x = c[i];
      conv_bn_act (W, channels, 1, 1, 1, 1, ACT_RELU);
      lat[i] = W->x;
    }
  for (guint i = 3; i > 0; i--)
    {
      T up = resize (W, &lat[i], lat[i - 1].h, lat[i - 1].w);

      lat[i - 1] = add (W, &lat[i - 1], &up);
    }
  for (guint i = 0; i < 4; i++)
    {
      W->x = lat[i];
      if (i < 3)
        conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
      outs[i] = resize (W, &W->x, lat[0].h, lat[0].w);
    }
  W->x = cat (W, outs, 4);
  conv_bn_act (W, channels, 3, 1, 1, 1, ACT_RELU);
  conv_seg (W);
  block_end (W);
}

static void
segformer_head (Walk  *W,
                T     *c,
                guint  channels)
{
  T outs[4];

  block_begin (W, FALSE, "decode head (SegFormer)");
  for (guint i = 0; i < 4; i++)
    {
      W->x = c[i];
      conv_bn_act (W, channels, 1, 1, 1, 1, ACT_RELU);
      outs[i] = resize (W, &W->x, c[0].h, c[0].w);
    }
  W->x = cat (W, outs, 4);
  conv_bn_act (W, channels, 1, 1, 1, 1, ACT_RELU);
  conv_seg (W);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* ConvNeXt (torchvision models/convnext.py)                            */

static void
convnext (Walk *W)
{
  const HrArch *a = W->a;

  block_begin (W, FALSE, "stem");
  W->x = conv_pad (W, &W->x, a->widths[0], 4, 4, 0, 1, 1, TRUE);
  norm (W, &W->x);   /* LayerNorm2d */
  block_end (W);

  for (guint i = 0; i < 4; i++)
    {
      guint C = a->widths[i];

      if (i > 0)
        {
          block_begin (W, FALSE, "downsample%u", i);
          norm (W, &W->x);
          W->x = conv_pad (W, &W->x, C, 2, 2, 0, 1, 1, TRUE);
          block_end (W);
        }
      for (guint j = 0; j < a->depths[i]; j++)
        {
          T id = W->x;

          block_begin (W, TRUE, "stages.%u.%u", i, j);
          hold (W, &id);
          W->x = conv (W, &W->x, C, 7, 1, C, 1, TRUE);   /* depthwise 7x7 */
          norm (W, &W->x);
          W->x = linear (W, &W->x, 4 * C, TRUE, FALSE);
          act (W, &W->x, ACT_INPUT);                      /* GELU */
          W->x = linear (W, &W->x, C, TRUE, FALSE);
          /* layer_scale * x: the scale trains, so the mul keeps x */
          params (W, C);
          if (W->train)
            save_tensor (W, &W->x);
          W->x = add (W, &W->x, &id);
          release (W, &id);
          block_end (W);
        }
    }

  block_begin (W, FALSE, "head");
  W->x = avgpool (W, &W->x, 1);
  norm (W, &W->x);
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* EfficientNet and RegNet (torchvision models/efficientnet.py, regnet.py) */

static guint
make_divisible (double v,
                guint  divisor)
{
  guint new_v = MAX (divisor, (guint) (v + divisor / 2.0) / divisor * divisor);

  if (new_v < 0.9 * v)
    new_v += divisor;
  return new_v;
}

/* SqueezeExcitation: pool, fc1, act, fc2, sigmoid, scale * x (the mul
 * keeps x and the scale) */
static void
squeeze_excite (Walk    *W,
                guint    squeeze,
                ActKind  activation)
{
  T x = W->x, s;

  s = avgpool (W, &x, 1);
  W->x = s;
  W->x = conv (W, &W->x, squeeze, 1, 1, 1, 1, TRUE);
  act (W, &W->x, activation);
  W->x = conv (W, &W->x, x.c, 1, 1, 1, 1, TRUE);
  act (W, &W->x, ACT_SIGMOID);
  if (x.grad || W->train)
    save_tensor (W, &x);
  fresh (W, &x);
  W->x = x;
}

static void
efficientnet (Walk *W)
{
  /* EfficientNet-B0's stages: expand ratio, kernel, stride, input and
   * output channels, layers (torchvision _efficientnet_conf) */
  static const guint conf[7][6] = {
    { 1, 3, 1, 32, 16, 1 }, { 6, 3, 2, 16, 24, 2 }, { 6, 5, 2, 24, 40, 2 },
    { 6, 3, 2, 40, 80, 3 }, { 6, 5, 1, 80, 112, 3 }, { 6, 5, 2, 112, 192, 4 },
    { 6, 3, 1, 192, 320, 1 },
  };
  const HrArch *a = W->a;
  guint last = 0;

  block_begin (W, FALSE, "stem");
  conv_bn_act (W, make_divisible (32 * a->width_mult, 8), 3, 2, 1, 1, ACT_INPUT);
  block_end (W);

  for (guint i = 0; i < 7; i++)
    {
      guint in_c = make_divisible (conf[i][3] * a->width_mult, 8);
      guint out_c = make_divisible (conf[i][4] * a->width_mult, 8);
      guint layers = (guint) ceil (conf[i][5] * a->depth_mult);

      for (guint j = 0; j < layers; j++)
        {
          guint block_in = j == 0 ? in_c : out_c;
          guint stride = j == 0 ? conf[i][2] : 1;
          guint expanded = make_divisible ((double) block_in * conf[i][0], 8);
          T id = W->x;

          block_begin (W, TRUE, "features.%u.%u", i + 1, j);
          hold (W, &id);
          if (expanded != block_in)
            conv_bn_act (W, expanded, 1, 1, 1, 1, ACT_INPUT);
          conv_bn_act (W, expanded, conf[i][1], stride, expanded, 1, ACT_INPUT);
          squeeze_excite (W, MAX (1, block_in / 4), ACT_INPUT);
          conv_bn_act (W, out_c, 1, 1, 1, 1, -1);
          if (stride == 1 && block_in == out_c)
            W->x = add (W, &W->x, &id);
          release (W, &id);
          block_end (W);
        }
      last = out_c;
    }

  block_begin (W, FALSE, "head");
  conv_bn_act (W, 4 * last, 1, 1, 1, 1, ACT_INPUT);
  W->x = avgpool (W, &W->x, 1);
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* torchvision BlockParams.from_init_params: the quantised linear widths
 * of a RegNet, grouped into stages */
static guint
regnet_stages (const HrArch *a,
               guint        *widths,
               guint        *depths)
{
  guint n = 0, prev = 0;

  for (guint i = 0; i < a->regnet_depth; i++)
    {
      double cont = i * a->wa + a->w0;
      double capacity = round (log (cont / a->w0) / log (a->wm));
      guint w = (guint) (round (a->w0 * pow (a->wm, capacity) / 8.0) * 8.0);

      if (w != prev)
        {
          if (n == HR_ARCH_MAX_STAGES)
            break;
          widths[n] = w;
          depths[n] = 0;
          n++;
          prev = w;
        }
      depths[n - 1]++;
    }

  /* _adjust_widths_groups_compatibilty with bottleneck multiplier 1 */
  for (guint i = 0; i < n; i++)
    {
      guint g = MIN (a->group_width, widths[i]);

      widths[i] = make_divisible (widths[i], g);
    }
  return n;
}

static void
regnet (Walk *W)
{
  const HrArch *a = W->a;
  guint widths[HR_ARCH_MAX_STAGES], depths[HR_ARCH_MAX_STAGES];
  guint n = regnet_stages (a, widths, depths);
  guint in_c = 32;

  block_begin (W, FALSE, "stem");
  conv_bn_act (W, 32, 3, 2, 1, 1, ACT_RELU);
  block_end (W);

  for (guint i = 0; i < n; i++)
    {
      guint w = widths[i];
      guint g = MIN (a->group_width, w);

      for (guint j = 0; j < depths[i]; j++)
        {
          guint stride = j == 0 ? 2 : 1;
          T id = W->x;

          block_begin (W, TRUE, "trunk_output.block%u.%u", i + 1, j);
          hold (W, &id);
          conv_bn_act (W, w, 1, 1, 1, 1, ACT_RELU);
          conv_bn_act (W, w, 3, stride, w / g, 1, ACT_RELU);
          if (a->se_ratio > 0)
            squeeze_excite (W, (guint) round (a->se_ratio * in_c), ACT_RELU);
          conv_bn_act (W, w, 1, 1, 1, 1, -1);
          if (in_c != w || stride != 1)
            {
              T proj = conv (W, &id, w, 1, stride, 1, 1, FALSE);

              bn (W, &proj);
              W->x = add (W, &W->x, &proj);
            }
          else
            W->x = add (W, &W->x, &id);
          release (W, &id);
          act (W, &W->x, ACT_RELU);
          block_end (W);
          in_c = w;
        }
    }

  block_begin (W, FALSE, "head");
  W->x = avgpool (W, &W->x, 1);
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* MobileNetV2 and V3 (torchvision models/mobilenetv2.py, mobilenetv3.py
 * @v0.14.1) and LRASPP (models/segmentation/lraspp.py @v0.14.1)        */

/* An activation torchvision builds in place (Conv2dNormActivation's
 * inplace=True) whose autograd formula needs its input: ReLU6
 * (hardtanh_: hardtanh_backward(grad, self, ...)) and Hardswish
 * (hardswish_backward(grad, self)).  An in-place op that saves `self`
 * saves a copy of it before overwriting it (autograd's generated
 * VariableType code clones self for such formulas), so the BatchNorm
 * output is kept beside the activation's result, which the next
 * convolution saves: two tensors, as a CPU trace of torchvision's
 * MobileNets counts (tests/trace), the same on the GPU. */
#define ACT_INPLACE_CLONE ACT_INPUT

/* nn.Dropout(inplace=True), MobileNetV3's classifier: dropout_ does not
 * take the fused kernel; it multiplies the input in place by a noise
 * tensor of the input's dtype and saves it (ATen native/Dropout.cpp
 * @v1.13.1, _dropout_impl: input.mul_(noise)), on the GPU as on the CPU. */
static void
dropout_inplace (Walk *W)
{
  if (W->x.grad)
    save (W, tbytes (&W->x));
  fwd (W, tbytes (&W->x), tbytes (&W->x), 0);
}

/* MobileNetV3's SqueezeExcitation: pool, fc1, ReLU, fc2, Hardsigmoid
 * (which saves its input: hardsigmoid_backward(grad, self)), then scale *
 * x, whose mul keeps both (torchvision ops/misc.py SqueezeExcitation,
 * scale_activation=nn.Hardsigmoid) */
static void
squeeze_excite_hard (Walk  *W,
                     guint  squeeze)
{
  T x = W->x, scale;

  W->x = avgpool (W, &x, 1);
  W->x = conv (W, &W->x, squeeze, 1, 1, 1, 1, TRUE);
  act (W, &W->x, ACT_RELU);
  W->x = conv (W, &W->x, x.c, 1, 1, 1, 1, TRUE);
  act (W, &W->x, ACT_INPUT);
  scale = W->x;
  if (x.grad || W->train)
    {
      save_tensor (W, &x);
      save_tensor (W, &scale);
    }
  fresh (W, &x);
  W->x = x;
}

/* MobileNetV2: the stem, 17 inverted residuals, a 1x1 convolution to
 * 1280 channels, pooling, Dropout(0.2) and the classifier */
static void
mobilenet_v2 (Walk *W)
{
  /* expand ratio t, channels c, repeats n, stride s (MobileNetV2's
   * inverted_residual_setting; Sandler et al. 2018, Table 2) */
  static const guint conf[7][4] = {
    { 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 }, { 6, 64, 4, 2 },
    { 6, 96, 3, 1 }, { 6, 160, 3, 2 }, { 6, 320, 1, 1 },
  };
  const HrArch *a = W->a;
  guint in_c = make_divisible (32 * a->width_mult, 8);
  guint last = make_divisible (1280 * MAX (1.0, a->width_mult), 8);

  block_begin (W, FALSE, "features.0");
  conv_bn_act (W, in_c, 3, 2, 1, 1, ACT_INPLACE_CLONE);
  block_end (W);

  for (guint i = 0, n = 1; i < G_N_ELEMENTS (conf); i++)
    {
      guint out_c = make_divisible (conf[i][1] * a->width_mult, 8);

      for (guint j = 0; j < conf[i][2]; j++, n++)
        {
          guint stride = j == 0 ? conf[i][3] : 1;
          guint hidden = (guint) round ((double) in_c * conf[i][0]);
          T id = W->x;

          block_begin (W, TRUE, "features.%u", n);
          hold (W, &id);
          if (conf[i][0] != 1)
            conv_bn_act (W, hidden, 1, 1, 1, 1, ACT_INPLACE_CLONE);
          conv_bn_act (W, hidden, 3, stride, hidden, 1, ACT_INPLACE_CLONE);
          conv_bn_act (W, out_c, 1, 1, 1, 1, -1);
          if (stride == 1 && in_c == out_c)
            W->x = add (W, &W->x, &id);
          release (W, &id);
          block_end (W);
          in_c = out_c;
        }
    }

  block_begin (W, FALSE, "head");
  conv_bn_act (W, last, 1, 1, 1, 1, ACT_INPLACE_CLONE);
  W->x = avgpool (W, &W->x, 1);
  dropout (W);
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* LRASPP's head (Howard et al. 2019, section 6.4; torchvision
 * LRASPPHead, inter_channels 128): on the last features a 1x1
 * convolution, BatchNorm and ReLU, gated by pooling, a 1x1 convolution
 * and a sigmoid (x * s keeps both), upsampled to the stride-8 features
 * (bilinear: nothing saved), a 1x1 classifier on each and their sum; the
 * model upsamples the logits to the input, and the loss saves their
 * log-softmax there (seg_loss). */
static void
lraspp_head (Walk *W,
             T    *low,
             T    *high)
{
  T x, s, low_logits;

  block_begin (W, FALSE, "decode head (LRASPP)");
  W->x = *high;
  conv_bn_act (W, 128, 1, 1, 1, 1, ACT_RELU);
  x = W->x;
  s = avgpool (W, high, 1);
  s = conv (W, &s, 128, 1, 1, 1, 1, FALSE);
  act (W, &s, ACT_SIGMOID);
  if (x.grad || s.grad)
    {
      save_tensor (W, &x);
      save_tensor (W, &s);
    }
  fresh (W, &x);
  x.grad = x.grad || s.grad;
  x = resize (W, &x, low->h, low->w);
  x = conv (W, &x, W->classes, 1, 1, 1, 1, TRUE);
  low_logits = conv (W, low, W->classes, 1, 1, 1, 1, TRUE);
  W->x = add (W, &low_logits, &x);
  seg_loss (W, &W->x);
  block_end (W);
}

/* MobileNetV3: the stem (Hardswish), 15 (large) or 11 (small) inverted
 * residuals, with squeeze-excitation where the paper's Tables 1 and 2
 * put it, a 1x1 convolution to six times the last width, pooling and a
 * two-layer classifier (Linear, Hardswish, in-place Dropout(0.2),
 * Linear); for LRASPP the backbone ends at that 1x1 convolution, with the
 * last stage dilated (stride 1, dilation 2) */
/* SSDlite320 on MobileNetV3-Large (pytorch/vision @caf45fd0 torchvision/
 * models/detection/ssdlite.py): the C4 block's expansion (672 channels at
 * stride 16) and the backbone's last 1x1 convolution (stride 32) are the
 * first two maps; four _extra_block (a 1x1 to half the output, a 3x3/2
 * depthwise, a 1x1 to 512, 256, 256 and 128, each with BatchNorm and
 * ReLU6) make four more (20, 10, 5, 3, 2, 1 at 320 px).  Every map has
 * 6 default boxes a position (DefaultBoxGenerator [[2, 3]] x 6: 3234 at
 * 320 px) and two _prediction_block, a 3x3 depthwise with BatchNorm and
 * ReLU6 then a 1x1 to the classes (or 4 offsets) of each box.  ReLU6,
 * inplace=True though it is, keeps its input and hands on a new tensor,
 * which the next convolution keeps: a CPU trace of one _prediction_block
 * under PyTorch 1.13 sees four tensors of the map's size saved (the
 * depthwise's input, BatchNorm's, ReLU6's and the 1x1's), as Hardswish's
 * clone (ACT_INPLACE_CLONE).  The loss is SSD's. */

static void
ssdlite_head (Walk *W,
              T    *c4_map)
{
  static const guint outs[4] = { 512, 256, 256, 128 };
  T maps[6];
  double anchors = 0, elems = 0;

  maps[0] = *c4_map;
  maps[1] = W->x;
  hold (W, &maps[1]);
  for (guint i = 0; i < 4; i++)
    {
      block_begin (W, TRUE, "extra%u", i + 1);
      conv_bn_act (W, outs[i] / 2, 1, 1, 1, 1, ACT_INPLACE_CLONE);
      conv_bn_act (W, outs[i] / 2, 3, 2, outs[i] / 2, 1, ACT_INPLACE_CLONE);
      conv_bn_act (W, outs[i], 1, 1, 1, 1, ACT_INPLACE_CLONE);
      block_end (W);
      maps[i + 2] = W->x;
      hold (W, &maps[i + 2]);
    }

  block_begin (W, FALSE, "ssdlite head");
  for (guint i = 0; i < 6; i++)
    {
      for (guint branch = 0; branch < 2; branch++)
        {
          guint cout = 6 * (branch == 0 ? W->classes : 4);

          W->x = maps[i];
          conv_bn_act (W, maps[i].c, 3, 1, maps[i].c, 1, ACT_INPLACE_CLONE);
          W->x = conv (W, &W->x, cout, 1, 1, 1, 1, TRUE);
          if (branch == 0)
            elems += numel (&W->x);
        }
      anchors += 6.0 * maps[i].h * maps[i].w;
    }
  for (guint i = 0; i < 6; i++)
    release (W, &maps[i]);
  ssd_loss (W, elems, anchors);
  block_end (W);
}

static void
mobilenet_v3 (Walk *W)
{
  /* input, kernel, expanded, output channels, squeeze-excitation,
   * Hardswish, stride (_mobilenet_v3_conf's bneck_conf rows) */
  static const guint large[15][7] = {
    { 16, 3, 16, 16, 0, 0, 1 }, { 16, 3, 64, 24, 0, 0, 2 }, { 24, 3, 72, 24, 0, 0, 1 },
    { 24, 5, 72, 40, 1, 0, 2 }, { 40, 5, 120, 40, 1, 0, 1 }, { 40, 5, 120, 40, 1, 0, 1 },
    { 40, 3, 240, 80, 0, 1, 2 }, { 80, 3, 200, 80, 0, 1, 1 }, { 80, 3, 184, 80, 0, 1, 1 },
    { 80, 3, 184, 80, 0, 1, 1 }, { 80, 3, 480, 112, 1, 1, 1 }, { 112, 3, 672, 112, 1, 1, 1 },
    { 112, 5, 672, 160, 1, 1, 2 }, { 160, 5, 960, 160, 1, 1, 1 }, { 160, 5, 960, 160, 1, 1, 1 },
  };
  static const guint small[11][7] = {
    { 16, 3, 16, 16, 1, 0, 2 }, { 16, 3, 72, 24, 0, 0, 2 }, { 24, 3, 88, 24, 0, 0, 1 },
    { 24, 5, 96, 40, 1, 1, 2 }, { 40, 5, 240, 40, 1, 1, 1 }, { 40, 5, 240, 40, 1, 1, 1 },
    { 40, 5, 120, 48, 1, 1, 1 }, { 48, 5, 144, 48, 1, 1, 1 }, { 48, 5, 288, 96, 1, 1, 2 },
    { 96, 5, 576, 96, 1, 1, 1 }, { 96, 5, 576, 96, 1, 1, 1 },
  };
  const HrArch *a = W->a;
  gboolean is_large = a->type == HR_ARCH_MOBILENET_V3_LARGE;
  const guint (*conf)[7] = is_large ? large : small;
  guint n = is_large ? G_N_ELEMENTS (large) : G_N_ELEMENTS (small);
  /* the C4 stage: the blocks from the last stride-2 row on */
  guint c4 = is_large ? 12 : 8;
  guint last_c = 0;
  T low = { 0 }, c4_map = { 0 };

  block_begin (W, FALSE, "features.0");
  conv_bn_act (W, make_divisible (16 * a->width_mult, 8), 3, 2, 1, 1, ACT_INPLACE_CLONE);
  block_end (W);

  for (guint i = 0; i < n; i++)
    {
      /* reduced_tail: the C4 stage's output, and the inputs and
       * expansions of the blocks after it, halved (reduce_divider 2) */
      guint tail = a->reduced_tail && i >= c4 ? 2 : 1;
      guint in_tail = a->reduced_tail && i > c4 ? 2 : 1;
      guint in_c = make_divisible (conf[i][0] / in_tail * a->width_mult, 8);
      guint expanded = make_divisible (conf[i][2] / in_tail * a->width_mult, 8);
      guint out_c = make_divisible (conf[i][3] / tail * a->width_mult, 8);
      ActKind kind = conf[i][5] ? ACT_INPLACE_CLONE : ACT_RELU;
      guint dilation = a->dilated && i >= c4 ? 2 : 1;
      guint stride = dilation > 1 ? 1 : conf[i][6];
      T id = W->x;

      block_begin (W, TRUE, "features.%u", i + 1);
      hold (W, &id);
      if (expanded != in_c)
        conv_bn_act (W, expanded, 1, 1, 1, 1, kind);
      /* SSDlite's first map: the C4 block's expansion (SSDLiteFeature
       * ExtractorMobileNet: backbone[c4_pos].block[0]) */
      if (i == c4)
        {
          c4_map = W->x;
          hold (W, &c4_map);
        }
      conv_bn_act (W, expanded, conf[i][1], stride, expanded, dilation, kind);
      if (conf[i][4])
        squeeze_excite_hard (W, make_divisible (expanded / 4, 8));
      conv_bn_act (W, out_c, 1, 1, 1, 1, -1);
      if (conf[i][6] == 1 && in_c == out_c)
        W->x = add (W, &W->x, &id);
      release (W, &id);
      block_end (W);
      last_c = out_c;
      /* LRASPP's "low" features: the output of the block before C3, at
       * stride 8 (the fourth-last of its stage_indices) */
      if (i + 1 == (is_large ? 6u : 3u))
        {
          low = W->x;
          hold (W, &low);
        }
    }

  block_begin (W, FALSE, "features.%u", n + 1);
  conv_bn_act (W, 6 * last_c, 1, 1, 1, 1, ACT_INPLACE_CLONE);
  block_end (W);

  if (a->head == HR_ARCH_HEAD_LRASPP)
    {
      T high = W->x;

      release (W, &c4_map);
      lraspp_head (W, &low, &high);
      return;
    }
  release (W, &low);
  if (a->head == HR_ARCH_HEAD_SSDLITE)
    {
      ssdlite_head (W, &c4_map);
      return;
    }
  release (W, &c4_map);

  block_begin (W, FALSE, "head");
  W->x = avgpool (W, &W->x, 1);
  W->x = linear (W, &W->x, make_divisible ((is_large ? 1280 : 1024) * a->width_mult, 8), TRUE,
                 FALSE);
  act (W, &W->x, ACT_INPLACE_CLONE);
  dropout_inplace (W);
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* Video ResNets (torchvision models/video/resnet.py @v0.14.1; Tran et
 * al. 2018, arXiv:1711.11248: R3D, MC3 and R(2+1)D)                    */

/* nn.Conv3d over frames x height x width, kernel kt x k x k, stride st x
 * s x s, padding pt x p x p, no bias: saves its input (the convolution
 * formula above, one for 2D and 3D) */
static T
conv3d (Walk  *W,
        T     *in,
        guint  cout,
        guint  kt,
        guint  k,
        guint  st,
        guint  s,
        guint  pt,
        guint  p)
{
  T out = *in;

  out.c = cout;
  out.t = conv_out (MAX (1, in->t), kt, st, pt, 1);
  out.h = conv_out (in->h, k, s, p, 1);
  out.w = conv_out (in->w, k, s, p, 1);
  out.eb = W->r->e;
  out.grad = in->grad || W->train;
  fresh (W, &out);
  params (W, (guint64) cout * in->c * kt * k * k);
  if (out.grad)
    {
      save_matmul_input (W, in);
      if (kt * k > 1)
        conv_workspace (W, (double) in->c * kt * k * k * numel (&out) / out.c);
    }
  fwd (W, tbytes (in), tbytes (&out), 0);
  return out;
}

/* One of the residual block's convolutions: Conv3DSimple (3x3x3),
 * Conv3DNoTemporal (1x3x3, MC3's later stages) or Conv2Plus1D (1x3x3 to
 * `mid` channels, BatchNorm3d, ReLU, 3x1x1), stride s in time and space
 * but for Conv3DNoTemporal's 1 in time */
static void
video_conv (Walk  *W,
            guint  stage,
            guint  cout,
            guint  mid,
            guint  s)
{
  const HrArch *a = W->a;

  if (a->type == HR_ARCH_R2PLUS1D)
    {
      W->x = conv3d (W, &W->x, mid, 1, 3, 1, s, 0, 1);
      bn (W, &W->x);
      act (W, &W->x, ACT_RELU);
      W->x = conv3d (W, &W->x, cout, 3, 1, s, 1, 1, 0);
    }
  else if (a->type == HR_ARCH_MC3 && stage > 0)
    W->x = conv3d (W, &W->x, cout, 1, 3, 1, s, 0, 1);
  else
    W->x = conv3d (W, &W->x, cout, 3, 3, s, s, 1, 1);
}

/* VideoResNet: the stem (R3D and MC3: 3x7x7 stride 1x2x2; R(2+1)D: 1x7x7
 * to 45 channels and 3x1x1 to 64), four stages of BasicBlocks (conv,
 * BatchNorm3d, ReLU, conv, BatchNorm3d, the shortcut added, ReLU; a
 * 1x1x1 convolution and BatchNorm3d on the shortcut where the shape
 * changes), adaptive average pooling to one value and the classifier */
static void
video_resnet (Walk *W)
{
  const HrArch *a = W->a;
  guint in_c = 64;

  W->x.t = MAX (1, W->r->frames);
  block_begin (W, FALSE, "stem");
  if (a->type == HR_ARCH_R2PLUS1D)
    {
      W->x = conv3d (W, &W->x, 45, 1, 7, 1, 2, 0, 3);
      bn (W, &W->x);
      act (W, &W->x, ACT_RELU);
      W->x = conv3d (W, &W->x, 64, 3, 1, 1, 1, 1, 0);
    }
  else
    W->x = conv3d (W, &W->x, 64, 3, 7, 1, 2, 1, 3);
  bn (W, &W->x);
  act (W, &W->x, ACT_RELU);
  block_end (W);

  for (guint i = 0; i < 4; i++)
    {
      guint planes = 64u << i;

      for (guint j = 0; j < a->depths[i]; j++)
        {
          guint s = j == 0 && i > 0 ? 2 : 1;
          /* BasicBlock's midplanes, for both its convolutions: the
           * (2+1)D factorisation keeps about the parameters of a 3x3x3
           * convolution (Tran et al. section 3.5) */
          guint mid = in_c * planes * 27 / (in_c * 9 + 3 * planes);
          T id = W->x;

          block_begin (W, TRUE, "layer%u.%u", i + 1, j);
          hold (W, &id);
          video_conv (W, i, planes, mid, s);
          bn (W, &W->x);
          act (W, &W->x, ACT_RELU);
          video_conv (W, i, planes, mid, 1);
          bn (W, &W->x);
          if (s != 1 || in_c != planes)
            {
              /* the downsample's stride: MC3's later stages keep time */
              guint st = a->type == HR_ARCH_MC3 && i > 0 ? 1 : s;
              T down = conv3d (W, &id, planes, 1, 1, st, s, 0, 0);

              bn (W, &down);
              W->x = add (W, &W->x, &down);
            }
          else
            W->x = add (W, &W->x, &id);
          release (W, &id);
          act (W, &W->x, ACT_RELU);
          block_end (W);
          in_c = planes;
        }
    }

  block_begin (W, FALSE, "head");
  W->x = avgpool (W, &W->x, 1);
  W->x.t = 1;
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* SegFormer's Mix Transformer (mmseg models/backbones/mit.py)          */

static void
mit (Walk *W,
     T     outs[4])
{
  const HrArch *a = W->a;

  for (guint i = 0; i < 4; i++)
    {
      guint C = a->widths[i];
      guint k = i == 0 ? 7 : 3;
      guint sr = a->sr_ratios[i];

      block_begin (W, FALSE, "stage%u.patch_embed", i + 1);
      W->x = conv_pad (W, &W->x, C, k, i == 0 ? 4 : 2, k / 2, 1, 1, TRUE);
      norm (W, &W->x);
      block_end (W);

      for (guint j = 0; j < a->depths[i]; j++)
        {
          T id = W->x, q, kv_src, k_t, v_t, o;
          double s = (double) W->x.h * W->x.w;

          block_begin (W, TRUE, "stage%u.%u", i + 1, j);
          hold (W, &id);
          norm (W, &W->x);
          kv_src = W->x;
          if (sr > 1)
            {
              kv_src = conv_pad (W, &kv_src, C, sr, sr, 0, 1, 1, TRUE);
              norm (W, &kv_src);
            }
          /* nn.MultiheadAttention, called with need_weights left True:
           * the math path, whatever the scenario's attention kernel */
          q = linear (W, &W->x, C, TRUE, FALSE);
          k_t = linear (W, &kv_src, C, TRUE, FALSE);
          v_t = linear (W, &kv_src, C, TRUE, FALSE);
          attention_kernel (W, s, (double) kv_src.h * kv_src.w, C, a->heads[i], TRUE, q.grad);
          o = q;
          fresh (W, &o);
          W->x = linear (W, &o, C, TRUE, FALSE);
          W->x = add (W, &W->x, &id);
          release (W, &id);
          (void) k_t;
          (void) v_t;

          /* MixFFN: 1x1 to 4C, depthwise 3x3, GELU, 1x1 back */
          id = W->x;
          hold (W, &id);
          norm (W, &W->x);
          W->x = conv (W, &W->x, 4 * C, 1, 1, 1, 1, TRUE);
          W->x = conv (W, &W->x, 4 * C, 3, 1, 4 * C, 1, TRUE);
          act (W, &W->x, ACT_INPUT);
          W->x = conv (W, &W->x, C, 1, 1, 1, 1, TRUE);
          W->x = add (W, &W->x, &id);
          release (W, &id);
          block_end (W);
        }

      block_begin (W, FALSE, "stage%u.norm", i + 1);
      norm (W, &W->x);
      block_end (W);
      outs[i] = W->x;
      hold (W, &outs[i]);
    }
}

/* ------------------------------------------------------------------ */
/* Vision transformers: torchvision's ViT and Swin (pytorch/vision
 * torchvision/models/vision_transformer.py and swin_transformer.py
 * @v0.14.1), which timm's VisionTransformer matches op for op (timm/
 * models/vision_transformer.py: Attention, Block, Mlp)                */

/* nn.LayerNorm over the channels of every position: native_layer_norm
 * saves its input and its mean and rstd, one fp32 value each per position
 * (derivatives.yaml @v1.13.1 native_layer_norm: input, result1, result2;
 * the statistics are in the accumulation type, and under autocast
 * layer_norm runs in fp32 anyway) */
static void
token_norm (Walk *W,
            T    *x)
{
  gboolean grad = x->grad || W->train;
  double positions = numel (x) / MAX (1, x->c);

  norm (W, x);
  if (grad)
    save (W, 2.0 * 4.0 * positions);
}

/* The end of an attention block: the block's widest attention noted
 * (`span` tokens, `heads` heads), the heads joined (a fresh tensor of x's
 * shape) and the output projection back to C, which keeps them */
static void
attention_out (Walk     *W,
               guint     span,
               guint     heads,
               gboolean  grad)
{
  HrArchBlock *b = cur_block (W);
  T o = W->x;

  b->tokens = MAX (b->tokens, span);
  b->attn_heads = MAX (b->attn_heads, heads);
  W->res->max_tokens = MAX (W->res->max_tokens, span);

  o.eb = W->r->e;
  o.grad = grad;
  fresh (W, &o);
  W->x = linear (W, &o, W->x.c, TRUE, FALSE);
}

/* Self-attention over `tokens` positions of x (C channels, x.h x x.w
 * positions in all) split into windows of `span` tokens each (ViT: one
 * window of every token), as nn.MultiheadAttention (torch/nn/
 * functional.py @v1.13.1 multi_head_attention_forward), timm's Attention
 * and torchvision's shifted_window_attention run it: one packed
 * projection to 3C (which keeps its input), then
 *
 * - the math path (PyTorch 1.13 everywhere; on the CPU; torchvision's
 *   Swin always, whose relative position bias and shift mask are added to
 *   the scores): q scaled by 1/sqrt(head_dim), a new tensor the bmm
 *   keeps; k transposed and v, each copied contiguous for the batched
 *   matmul and kept by it; the softmax's output, kept by softmax and by
 *   the bmm with v (in fp32 under autocast, whose softmax runs in fp32,
 *   and the bmm's 16-bit copy of it beside).  Where the whole batch is
 *   one window (`views`, a Swin stage at micro-batch 1 that one window
 *   covers), k and v reach the matmul as views of the projection's
 *   output, which is then kept whole.  q * scale also keeps its wrapped
 *   Python scalar, an 8-byte tensor on the host, not counted;
 * - scaled_dot_product_attention's flash and memory-efficient kernels
 *   (torch/nn/functional.py @v2.0.0 multi_head_attention_forward calls
 *   it when need_weights is False, as torchvision's EncoderBlock passes;
 *   timm's fused_attn): q, k and v (views of the projection's output,
 *   kept whole), the kernel's output and its fp32 log-sum-exp per head
 *   and query, no score matrix;
 *
 * and the heads joined by a transpose and reshape (a contiguous copy) into
 * the output projection, which keeps it.  The kernel's own share (the
 * score matrices, or the output and log-sum-exp) is summed in
 * `attn_kernel`, the estimate's line of its own. */
static void
token_attention (Walk     *W,
                 guint     span,
                 guint     heads,
                 gboolean  eager,
                 gboolean  views)
{
  guint C = W->x.c;
  double positions = numel (&W->x) / MAX (1, C);
  double e = W->r->e;
  T qkv;

  qkv = linear (W, &W->x, 3 * C, TRUE, FALSE);
  if (qkv.grad)
    {
      double kernel;

      if (eager)
        {
          double scores = (double) heads * positions * span;
          double score_bytes = W->r->e32 + (W->r->e32 != e ? e : 0);

          kernel = scores * score_bytes;
          save_scores (W, (views ? 4.0 : 3.0) * positions * C * e + kernel, kernel);
          softmax_input_saved (W, scores * W->r->e32, scores * W->r->e32);
          if (W->ckpt)
            W->block_transient = MAX (W->block_transient, 2.0 * scores * W->r->e32);
          else
            peak (W, 2.0 * scores * W->r->e32, 0, "attention gradients");
          fwd (W, tbytes (&qkv), positions * C * e, kernel);
        }
      else
        {
          kernel = positions * C * e + 4.0 * heads * positions;
          save (W, 3.0 * positions * C * e + kernel);
          fwd (W, tbytes (&qkv), positions * C * e, 0);
        }
      W->res->attn_kernel += kernel;
    }

  attention_out (W, span, heads, qkv.grad);
}

/* The MLP of a transformer block: Linear to `hidden`, GELU (keeps its
 * input), dropout (p = 0: nothing), Linear back */
static void
token_mlp (Walk  *W,
           guint  hidden)
{
  guint C = W->x.c;

  W->x = linear (W, &W->x, hidden, TRUE, FALSE);
  act (W, &W->x, ACT_INPUT);
  W->x = linear (W, &W->x, C, TRUE, FALSE);
}

/* torchvision's VisionTransformer (vit_b_16 ... vit_h_14): conv_proj, the
 * class token and position embedding, pre-norm EncoderBlocks (ln_1,
 * self_attention, dropout, + input; ln_2, MLPBlock, + x), the final
 * LayerNorm and the head on the class token.  Dropout defaults to 0 in
 * torchvision and timm: nothing saved. */
static void
vit (Walk *W)
{
  const HrArch *a = W->a;
  guint C = a->widths[0], p = a->patch;
  guint tokens;

  block_begin (W, FALSE, "conv_proj");
  W->x = conv_pad (W, &W->x, C, p, p, 0, 1, 1, TRUE);
  /* flattened to tokens, the class token in front: torch.cat promotes
   * the 16-bit conv output to the fp32 token's dtype under autocast, and
   * the position embedding (fp32) is added */
  tokens = W->x.h * W->x.w + 1;
  W->x.h = tokens;
  W->x.w = 1;
  W->x.eb = W->r->e32;
  fresh (W, &W->x);
  params (W, (guint64) C + (guint64) tokens * C);   /* class_token, pos_embedding */
  block_end (W);

  for (guint j = 0; j < a->depths[0]; j++)
    {
      T id = W->x;

      block_begin (W, TRUE, "encoder.layers.%u", j);
      hold (W, &id);
      token_norm (W, &W->x);
      token_attention (W, tokens, a->heads[0], W->r->eager_attention, FALSE);
      W->x = add (W, &W->x, &id);
      release (W, &id);
      id = W->x;
      hold (W, &id);
      token_norm (W, &W->x);
      token_mlp (W, a->mlp_dim);
      W->x = add (W, &W->x, &id);
      release (W, &id);
      block_end (W);
    }

  block_begin (W, FALSE, "head");
  token_norm (W, &W->x);
  /* x[:, 0] into the head: a view of the LayerNorm's output, kept whole
   * by the linear; under autocast its 16-bit copy of the class token */
  {
    T cls = W->x;

    if (W->train && !(W->r->autocast && W->x.eb > W->r->e))
      save_tensor (W, &W->x);
    cls.h = 1;
    fresh (W, &cls);
    if (W->r->autocast && cls.eb > W->r->e)
      W->x = linear (W, &cls, W->classes, TRUE, FALSE);
    else
      {
        mark (W, &cls);
        W->x = linear (W, &cls, W->classes, TRUE, FALSE);
      }
  }
  cross_entropy (W);
  block_end (W);
}

/* torchvision's SwinTransformer (swin_t, swin_s, swin_b): the 4x4 patch
 * embedding and its LayerNorm; per stage, blocks of windowed attention
 * (pre-norm, every second block shifted by half a window) and the MLP,
 * each branch through stochastic depth; PatchMerging between stages;
 * the final LayerNorm, average pooling and the head.  The feature map is
 * padded to whole windows (shifted_window_attention: F.pad to multiples
 * of window_size), and the windows gathered into a contiguous copy that
 * the qkv projection keeps; the roll of a shifted block, the relative
 * position bias and the shift mask keep nothing per sample.  StochasticDepth
 * ("row") multiplies by a noise tensor of one value per sample, which the
 * mul keeps, wherever its rate (drop_path x block / (blocks - 1)) is above
 * 0. */
static void
swin (Walk *W)
{
  const HrArch *a = W->a;
  guint ws = a->window, total = 0, k = 0;
  guint C = a->widths[0];

  for (guint i = 0; i < a->n_stages; i++)
    total += a->depths[i];

  block_begin (W, FALSE, "features.0");
  W->x = conv_pad (W, &W->x, C, a->patch, a->patch, 0, 1, 1, TRUE);
  token_norm (W, &W->x);
  block_end (W);

  for (guint i = 0; i < a->n_stages; i++)
    {
      for (guint j = 0; j < a->depths[i]; j++, k++)
        {
          guint ph = W->x.h + (ws - W->x.h % ws) % ws;
          guint pw = W->x.w + (ws - W->x.w % ws) % ws;
          guint windows = (ph / ws) * (pw / ws);
          double rate = total > 1 ? a->drop_path * k / (total - 1) : 0;
          T id = W->x, win;

          block_begin (W, TRUE, "stage%u.%u", i + 1, j);
          hold (W, &id);
          /* the relative position bias table, (2 window - 1)^2 x heads */
          params (W, (guint64) (2 * ws - 1) * (2 * ws - 1) * a->heads[i]);
          token_norm (W, &W->x);
          win = W->x;
          win.h = ph;
          win.w = pw;
          fresh (W, &win);
          W->x = win;
          token_attention (W, ws * ws, a->heads[i], TRUE,
                           windows * MAX (1, W->r->batch) == 1);
          W->x.h = id.h;
          W->x.w = id.w;
          fresh (W, &W->x);
          if (rate > 0 && W->x.grad)
            save (W, W->x.eb);
          W->x = add (W, &W->x, &id);
          release (W, &id);

          id = W->x;
          hold (W, &id);
          token_norm (W, &W->x);
          token_mlp (W, 4 * W->x.c);
          if (rate > 0 && W->x.grad)
            save (W, W->x.eb);
          W->x = add (W, &W->x, &id);
          release (W, &id);
          block_end (W);
        }

      if (i + 1 < a->n_stages)
        {
          /* PatchMerging: the four strided slices joined (odd sides
           * padded), LayerNorm over 4C, a linear to 2C without bias */
          block_begin (W, FALSE, "stage%u.downsample", i + 1);
          W->x.c *= 4;
          W->x.h = (W->x.h + 1) / 2;
          W->x.w = (W->x.w + 1) / 2;
          fresh (W, &W->x);
          token_norm (W, &W->x);
          W->x = linear (W, &W->x, W->x.c / 2, FALSE, FALSE);
          block_end (W);
        }
    }

  block_begin (W, FALSE, "head");
  token_norm (W, &W->x);
  W->x = avgpool (W, &W->x, 1);
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* Swin V2's window attention (torchvision swin_transformer.py @v0.14.1
 * shifted_window_attention with logit_scale, ShiftedWindowAttentionV2;
 * Liu et al. 2022, arXiv:2111.09883, sections 3.1 and 3.2): the packed
 * projection keeps the gathered windows; its output (3C per position) is
 * kept whole, since F.normalize's norm keeps q and k, views of it; each
 * normalize keeps its norm and the clamped norm, one value per head and
 * position (fp32 under autocast, whose fp32 list has norm: pytorch/pytorch
 * aten/src/ATen/autocast_mode.cpp @v1.13.1);
 * the cosine-similarity matmul keeps contiguous copies of both normalized
 * operands; the scores, scaled by the clamped, exponentiated logit_scale
 * (a mul that keeps the matmul's output) and given the CPB bias (and the
 * shift mask), go through the softmax, whose result the matmul with v keeps
 * with v's contiguous copy (v a view of the projection's output where the
 * whole batch is one window, `views`); the output projection keeps the
 * heads joined. */
static void
swin_v2_attention (Walk     *W,
                   guint     span,
                   guint     heads,
                   gboolean  views)
{
  guint C = W->x.c;
  double positions = numel (&W->x) / MAX (1, C);
  double e = W->r->e;
  T qkv;

  qkv = linear (W, &W->x, 3 * C, TRUE, FALSE);
  /* the logit_scale (heads) and the continuous position bias MLP:
   * Linear(2, 512), ReLU, Linear(512, heads, bias=False) */
  params (W, heads + 2 * 512 + 512 + 512 * (guint64) heads);
  if (qkv.grad)
    {
      double scores = (double) heads * positions * span;
      double score_bytes = W->r->e32 + (W->r->e32 != e ? e : 0);
      double kernel = scores * (e + score_bytes);

      save_scores (W, (views ? 5.0 : 6.0) * positions * C * e + 4.0 * heads * positions * W->r->e32 +
                        kernel,
                   kernel);
      softmax_input_saved (W, scores * W->r->e32, scores * W->r->e32);
      if (W->ckpt)
        W->block_transient = MAX (W->block_transient, 2.0 * scores * W->r->e32);
      else
        peak (W, 2.0 * scores * W->r->e32, 0, "attention gradients");
      fwd (W, tbytes (&qkv), positions * C * e, kernel);
      W->res->attn_kernel += kernel;

      /* once per step, whatever the batch: the CPB MLP's ReLU output over
       * the (2 window - 1)^2 relative coordinates, 16 * sigmoid's result
       * gathered to heads x span x span, exp(logit_scale) per head, and
       * an 8-byte int64 scalar (traced on the CPU) */
      W->res->fixed_saved += (2.0 * sqrt (span) - 1) * (2.0 * sqrt (span) - 1) * 512 * e +
                             (double) heads * span * span * e + heads * W->r->e32 + 8.0;
    }

  attention_out (W, span, heads, qkv.grad);
}

/* torchvision's SwinTransformer with SwinTransformerBlockV2 and
 * PatchMergingV2 (swin_v2_t, swin_v2_s, swin_v2_b @v0.14.1): the patch
 * embedding as V1's; res-post-norm blocks, x + stochastic_depth(norm1(
 * attn(x))) and x + stochastic_depth(norm2(mlp(x))), so that the LayerNorms
 * keep the branches' outputs and the attention and the MLP the block's
 * input and the sum; PatchMergingV2 reduces the four slices joined to 2C
 * before its LayerNorm; the head as V1's. */
static void
swin_v2 (Walk *W)
{
  const HrArch *a = W->a;
  guint ws = a->window, total = 0, k = 0;

  for (guint i = 0; i < a->n_stages; i++)
    total += a->depths[i];

  block_begin (W, FALSE, "features.0");
  W->x = conv_pad (W, &W->x, a->widths[0], a->patch, a->patch, 0, 1, 1, TRUE);
  token_norm (W, &W->x);
  block_end (W);

  for (guint i = 0; i < a->n_stages; i++)
    {
      for (guint j = 0; j < a->depths[i]; j++, k++)
        {
          guint ph = W->x.h + (ws - W->x.h % ws) % ws;
          guint pw = W->x.w + (ws - W->x.w % ws) % ws;
          guint windows = (ph / ws) * (pw / ws);
          double rate = total > 1 ? a->drop_path * k / (total - 1) : 0;
          T id = W->x, win;

          block_begin (W, TRUE, "stage%u.%u", i + 1, j);
          hold (W, &id);
          /* padded to whole windows and gathered: a copy the projection
           * keeps (the block's input itself where that is a view) */
          win = W->x;
          win.h = ph;
          win.w = pw;
          fresh (W, &win);
          W->x = win;
          swin_v2_attention (W, ws * ws, a->heads[i], windows * MAX (1, W->r->batch) == 1);
          W->x.h = id.h;
          W->x.w = id.w;
          fresh (W, &W->x);
          token_norm (W, &W->x);
          if (rate > 0 && W->x.grad)
            save (W, W->x.eb);
          W->x = add (W, &W->x, &id);
          release (W, &id);

          id = W->x;
          hold (W, &id);
          token_mlp (W, 4 * W->x.c);
          token_norm (W, &W->x);
          if (rate > 0 && W->x.grad)
            save (W, W->x.eb);
          W->x = add (W, &W->x, &id);
          release (W, &id);
          block_end (W);
        }

      if (i + 1 < a->n_stages)
        {
          block_begin (W, FALSE, "stage%u.downsample", i + 1);
          W->x.c *= 4;
          W->x.h = (W->x.h + 1) / 2;
          W->x.w = (W->x.w + 1) / 2;
          fresh (W, &W->x);
          W->x = linear (W, &W->x, W->x.c / 2, FALSE, FALSE);
          token_norm (W, &W->x);
          block_end (W);
        }
    }

  block_begin (W, FALSE, "head");
  token_norm (W, &W->x);
  W->x = avgpool (W, &W->x, 1);
  W->x = linear (W, &W->x, W->classes, TRUE, FALSE);
  cross_entropy (W);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* diffusers UNet2DConditionModel, ControlNetModel and AutoencoderKL    */

#define TIME_EMBED_CHANNELS_PER_BLOCK 4   /* time_embed_dim = 4 * block_out_channels[0] */

/* ResnetBlock2D: GroupNorm, SiLU, conv, + time embedding, GroupNorm, SiLU,
 * dropout (p = 0), conv, 1x1 shortcut when the channels change */
static void
resnet2d (Walk  *W,
          guint  cout,
          guint  temb_channels)
{
  T id = W->x;

  hold (W, &id);
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  W->x = conv (W, &W->x, cout, 3, 1, 1, 1, TRUE);
  if (temb_channels > 0)
    {
      /* time_emb_proj: SiLU(temb) then Linear(temb_channels, cout), added
       * to every pixel; a vector per sample */
      T temb = { temb_channels, 1, 1, W->r->e, 0, FALSE };
      T proj;

      fresh (W, &temb);
      act (W, &temb, ACT_INPUT);
      proj = linear (W, &temb, cout, TRUE, W->lora_here && W->r->lora_all_linear);
      W->x = add (W, &W->x, &proj);
    }
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  W->x = conv (W, &W->x, cout, 3, 1, 1, 1, TRUE);
  if (id.c != cout)
    {
      T sc = conv (W, &id, cout, 1, 1, 1, 1, TRUE);

      W->x = add (W, &W->x, &sc);
    }
  else
    W->x = add (W, &W->x, &id);
  release (W, &id);
}

/* BasicTransformerBlock: LayerNorm, self-attention, LayerNorm,
 * cross-attention, LayerNorm, GEGLU feed-forward (diffusers attention.py:
 * proj to 8C, chunk, hidden * gelu(gate): gelu keeps its input, a view of
 * the projection, and the product keeps both factors) */
static void
transformer_block (Walk  *W,
                   T     *ctx,
                   guint  heads)
{
  guint C = W->x.c;
  gboolean lora_ff = W->lora_here && W->r->lora_all_linear;
  T id = W->x, proj, gate;

  hold (W, &id);
  norm (W, &W->x);
  attention (W, NULL, heads, FALSE);
  W->x = add (W, &W->x, &id);

  id = W->x;
  norm (W, &W->x);
  attention (W, ctx, heads, FALSE);
  W->x = add (W, &W->x, &id);

  id = W->x;
  norm (W, &W->x);
  proj = linear (W, &W->x, 8 * C, TRUE, lora_ff);
  if (proj.grad)
    save_tensor (W, &proj);           /* gelu's input is a view of it */
  gate = proj;
  gate.c = 4 * C;
  fresh (W, &gate);
  if (proj.grad)
    save_tensor (W, &gate);           /* gelu(gate), kept by the product */
  fresh (W, &gate);
  gate.grad = proj.grad;
  fwd (W, tbytes (&proj), 2.0 * tbytes (&gate), 0);
  W->x = linear (W, &gate, C, TRUE, lora_ff);
  W->x = add (W, &W->x, &id);
  release (W, &id);
}

/* Transformer2DModel: GroupNorm, proj_in (a 1x1 conv, or a linear with
 * use_linear_projection), the blocks, proj_out, + input */
static void
transformer2d (Walk       *W,
               T          *ctx,
               guint       layers,
               guint       heads,
               const char *name)
{
  T id = W->x;
  gboolean lora_proj = W->lora_here && W->r->lora_all_linear && W->a->linear_projection;

  block_begin (W, FALSE, "%s", name);
  hold (W, &id);
  norm (W, &W->x);
  if (W->a->linear_projection)
    W->x = linear (W, &W->x, W->x.c, TRUE, lora_proj);
  else
    W->x = conv (W, &W->x, W->x.c, 1, 1, 1, 1, TRUE);
  block_end (W);

  for (guint k = 0; k < layers; k++)
    {
      block_begin (W, TRUE, "%s.transformer_blocks.%u", name, k);
      transformer_block (W, ctx, heads);
      block_end (W);
    }

  block_begin (W, FALSE, "%s.proj_out", name);
  if (W->a->linear_projection)
    W->x = linear (W, &W->x, W->x.c, TRUE, lora_proj);
  else
    W->x = conv (W, &W->x, W->x.c, 1, 1, 1, 1, TRUE);
  W->x = add (W, &W->x, &id);
  release (W, &id);
  block_end (W);
}

static guint
level_heads (const HrArch *a,
             guint         level)
{
  return a->head_dim > 0 ? a->widths[level] / a->head_dim : a->heads[level];
}

/* diffusers TimestepEmbedding (and SDXL's add_embedding): two linears of
 * 4 * block_out_channels[0] with a SiLU; vectors per sample */
static void
time_embedding (Walk  *W,
                guint  temb)
{
  T t = { W->a->widths[0], 1, 1, W->r->e, 0, FALSE };

  fresh (W, &t);
  block_begin (W, FALSE, "time_embedding");
  t = linear (W, &t, temb, TRUE, FALSE);
  act (W, &t, ACT_INPUT);
  t = linear (W, &t, temb, TRUE, FALSE);
  if (W->a->addition_embed)
    {
      /* text_time: 6 time ids x 256 sinusoidal channels + the pooled
       * 1280-channel text embedding = 2816 (SDXL's
       * projection_class_embeddings_input_dim) */
      T add_t = { 2816, 1, 1, W->r->e, 0, FALSE };

      fresh (W, &add_t);
      add_t = linear (W, &add_t, temb, TRUE, FALSE);
      act (W, &add_t, ACT_INPUT);
      add_t = linear (W, &add_t, temb, TRUE, FALSE);
    }
  block_end (W);
}

/* conv_in, after a ControlNet's conditioning embedding where there is one. */
static void
unet_conv_in (Walk *W)
{
  const HrArch *a = W->a;

  if (a->controlnet)
    {
      /* ControlNetConditioningEmbedding: the conditioning image through
       * convs of 16, 32, 96, 256 channels, three of them stride 2, to the
       * latent size, then a zero conv to block_out_channels[0] */
      static const guint ch[] = { 16, 32, 96, 256 };
      T cond = { 3, W->r->height, W->r->width, W->r->input_bytes, 0, FALSE };
      T saved_x = W->x;

      fresh (W, &cond);
      block_begin (W, FALSE, "controlnet_cond_embedding");
      W->x = cond;
      W->x = conv (W, &W->x, ch[0], 3, 1, 1, 1, TRUE);
      act (W, &W->x, ACT_INPUT);
      for (guint i = 0; i < 3; i++)
        {
          W->x = conv (W, &W->x, ch[i], 3, 1, 1, 1, TRUE);
          act (W, &W->x, ACT_INPUT);
          W->x = conv (W, &W->x, ch[i + 1], 3, 2, 1, 1, TRUE);
          act (W, &W->x, ACT_INPUT);
        }
      W->x = conv (W, &W->x, a->widths[0], 3, 1, 1, 1, TRUE);
      cond = W->x;
      W->x = saved_x;
      block_end (W);

      block_begin (W, FALSE, "conv_in");
      W->x = conv (W, &W->x, a->widths[0], 3, 1, 1, 1, TRUE);
      W->x = add (W, &W->x, &cond);
      block_end (W);
    }
  else
    {
      block_begin (W, FALSE, "conv_in");
      W->x = conv (W, &W->x, a->widths[0], 3, 1, 1, 1, TRUE);
      block_end (W);
    }
}

/* The down blocks, each output kept in skips for the up path. */
static void
unet_down (Walk    *W,
           T       *ctx,
           GArray  *skips,
           guint    temb)
{
  const HrArch *a = W->a;
  guint n = a->n_stages;

  for (guint i = 0; i < n; i++)
    {
      for (guint j = 0; j < a->layers_per_block; j++)
        {
          block_begin (W, TRUE, "down_blocks.%u.resnets.%u", i, j);
          resnet2d (W, a->widths[i], temb);
          block_end (W);
          if (a->transformer_layers[i] > 0)
            {
              g_autofree char *name = g_strdup_printf ("down_blocks.%u.attentions.%u", i, j);

              transformer2d (W, ctx, a->transformer_layers[i], level_heads (a, i), name);
            }
          g_array_append_val (skips, W->x);
          hold (W, &W->x);
        }
      if (i + 1 < n)
        {
          block_begin (W, FALSE, "down_blocks.%u.downsamplers", i);
          W->x = conv (W, &W->x, a->widths[i], 3, 2, 1, 1, TRUE);
          block_end (W);
          g_array_append_val (skips, W->x);
          hold (W, &W->x);
        }
    }
}

/* The up blocks, each taking its skip back. */
static void
unet_up (Walk    *W,
         T       *ctx,
         GArray  *skips,
         guint    temb)
{
  const HrArch *a = W->a;
  guint n = a->n_stages;

  for (guint level = n; level-- > 0;)
    {
      guint up = n - 1 - level;

      for (guint j = 0; j < a->layers_per_block + 1; j++)
        {
          T parts[2];

          parts[0] = W->x;
          parts[1] = g_array_index (skips, T, skips->len - 1);
          g_array_set_size (skips, skips->len - 1);
          release (W, &parts[1]);
          block_begin (W, TRUE, "up_blocks.%u.resnets.%u", up, j);
          W->x = cat (W, parts, 2);
          resnet2d (W, a->widths[level], temb);
          block_end (W);
          if (a->transformer_layers[level] > 0)
            {
              g_autofree char *name = g_strdup_printf ("up_blocks.%u.attentions.%u", up, j);

              transformer2d (W, ctx, a->transformer_layers[level], level_heads (a, level),
                             name);
            }
        }
      if (level > 0)
        {
          T big;

          block_begin (W, FALSE, "up_blocks.%u.upsamplers", up);
          big = resize (W, &W->x, W->x.h * 2, W->x.w * 2);
          W->x = conv (W, &big, a->widths[level], 3, 1, 1, 1, TRUE);
          block_end (W);
        }
    }
}

static void
unet (Walk *W)
{
  const HrArch *a = W->a;
  guint n = a->n_stages;
  guint temb = TIME_EMBED_CHANNELS_PER_BLOCK * a->widths[0];
  T ctx = { a->cross_attention_dim, 1, a->text_tokens, W->r->e, 0, FALSE };
  g_autoptr(GArray) skips = g_array_new (FALSE, FALSE, sizeof (T));
  gboolean frozen_front = a->controlnet_residuals && !W->r->trainable;
  gboolean grad = W->r->grad && !frozen_front;

  fresh (W, &ctx);
  W->x.grad = FALSE;
  W->lora_here = W->r->lora_rank > 0;
  if (!grad)
    W->train = FALSE;

  time_embedding (W, temb);

  unet_conv_in (W);
  g_array_append_val (skips, W->x);
  hold (W, &W->x);

  unet_down (W, &ctx, skips, temb);

  block_begin (W, TRUE, "mid_block.resnets.0");
  resnet2d (W, a->widths[n - 1], temb);
  block_end (W);
  if (a->mid_attention)
    transformer2d (W, &ctx, a->mid_transformer_layers, level_heads (a, n - 1),
                   "mid_block.attentions.0");
  block_begin (W, TRUE, "mid_block.resnets.1");
  resnet2d (W, a->widths[n - 1], temb);
  block_end (W);

  if (a->controlnet)
    {
      /* the zero convs: a 1x1 conv on every skip and on the middle */
      block_begin (W, FALSE, "controlnet_down_blocks");
      for (guint i = 0; i < skips->len; i++)
        {
          T s = g_array_index (skips, T, i);

          conv (W, &s, s.c, 1, 1, 1, 1, TRUE);
        }
      conv (W, &W->x, W->x.c, 1, 1, 1, 1, TRUE);
      block_end (W);
      W->res->output = tbytes (&W->x);
      return;
    }

  if (frozen_front && W->r->grad)
    {
      /* a ControlNet's residuals are added to the skips and to the middle
       * block's output: the gradient enters there, so the up path keeps
       * what it computes and the down path nothing */
      W->x.grad = TRUE;
      fresh (W, &W->x);
      for (guint i = 0; i < skips->len; i++)
        {
          g_array_index (skips, T, i).grad = TRUE;
          fresh (W, &g_array_index (skips, T, i));
        }
    }

  unet_up (W, &ctx, skips, temb);

  block_begin (W, FALSE, "conv_out");
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  W->x = conv (W, &W->x, a->out_channels, 3, 1, 1, 1, TRUE);
  block_end (W);
  W->res->output = tbytes (&W->x);
}

/* UNetMidBlock2D of the VAE: resnet, single-head attention, resnet */
static void
vae_mid (Walk       *W,
         guint       C,
         const char *prefix)
{
  T id;

  block_begin (W, TRUE, "%s.mid_block.resnets.0", prefix);
  resnet2d (W, C, 0);
  block_end (W);

  block_begin (W, TRUE, "%s.mid_block.attentions.0", prefix);
  id = W->x;
  hold (W, &id);
  norm (W, &W->x);
  attention (W, NULL, 1, TRUE);
  W->x = add (W, &W->x, &id);
  release (W, &id);
  block_end (W);

  block_begin (W, TRUE, "%s.mid_block.resnets.1", prefix);
  resnet2d (W, C, 0);
  block_end (W);
}

static void
vae_encoder (Walk *W)
{
  const HrArch *a = W->a;
  guint n = a->n_stages;

  block_begin (W, FALSE, "encoder.conv_in");
  W->x = conv (W, &W->x, a->widths[0], 3, 1, 1, 1, TRUE);
  block_end (W);
  for (guint i = 0; i < n; i++)
    {
      for (guint j = 0; j < a->layers_per_block; j++)
        {
          block_begin (W, TRUE, "encoder.down_blocks.%u.resnets.%u", i, j);
          resnet2d (W, a->widths[i], 0);
          block_end (W);
        }
      if (i + 1 < n)
        {
          block_begin (W, FALSE, "encoder.down_blocks.%u.downsamplers", i);
          W->x = conv (W, &W->x, a->widths[i], 3, 2, 1, 1, TRUE);
          block_end (W);
        }
    }
  vae_mid (W, a->widths[n - 1], "encoder");
  block_begin (W, FALSE, "encoder.conv_out");
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  W->x = conv (W, &W->x, 2 * a->out_channels, 3, 1, 1, 1, TRUE);
  if (a->quant_conv)   /* absent where use_quant_conv is false (SD3, Flux) */
    W->x = conv (W, &W->x, 2 * a->out_channels, 1, 1, 1, 1, TRUE);
  block_end (W);
}

static void
vae_decoder (Walk *W)
{
  const HrArch *a = W->a;
  guint n = a->n_stages;

  block_begin (W, FALSE, "decoder.conv_in");
  if (a->quant_conv)   /* post_quant_conv */
    W->x = conv (W, &W->x, a->out_channels, 1, 1, 1, 1, TRUE);
  W->x = conv (W, &W->x, a->widths[n - 1], 3, 1, 1, 1, TRUE);
  block_end (W);
  vae_mid (W, a->widths[n - 1], "decoder");
  for (guint level = n; level-- > 0;)
    {
      guint up = n - 1 - level;

      for (guint j = 0; j < a->layers_per_block + 1; j++)
        {
          block_begin (W, TRUE, "decoder.up_blocks.%u.resnets.%u", up, j);
          resnet2d (W, a->widths[level], 0);
          block_end (W);
        }
      if (level > 0)
        {
          T big;

          block_begin (W, FALSE, "decoder.up_blocks.%u.upsamplers", up);
          big = resize (W, &W->x, W->x.h * 2, W->x.w * 2);
          W->x = conv (W, &big, a->widths[level], 3, 1, 1, 1, TRUE);
          block_end (W);
        }
    }
  block_begin (W, FALSE, "decoder.conv_out");
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  W->x = conv (W, &W->x, 3, 3, 1, 1, 1, TRUE);
  block_end (W);
}

/* How many times a power-of-two factor halves: the levels that compress
 * by 2 to make a VAE's temporal_compression or latent_scale */
static guint
halvings (guint factor)
{
  guint levels = 0;

  for (guint r = factor; r > 1; r /= 2)
    levels++;
  return levels;
}

/* Wan-VAE's Decoder3d (Wan-Video/Wan2.1 wan/modules/vae.py @9737cba),
 * one frame of a chunk at a time as the 2D walk counts: dims
 * [w3, w3, w2, w1, w0] from the widths (dim x dim_mult, reversed, the
 * deepest twice), a causal conv1, the middle (residual, attention,
 * residual), for each level num_res_blocks + 1 ResidualBlocks (RMS_norm,
 * SiLU, causal 3x3x3 convolutions, a 1x1x1 shortcut) and a Resample that
 * halves the channels: upsample3d (the first log2(temporal_compression)
 * levels: a causal time_conv to twice the channels, split into twice the
 * frames, then nearest 2x and a Conv2d) or upsample2d (nearest 2x and a
 * Conv2d); the head (RMS_norm, SiLU, causal conv to RGB).  Every causal
 * convolution keeps CACHE_T frames of its input in feat_cache
 * (decode_cache counts one); the Conv2d and the 1x1x1 shortcuts keep
 * none. */
static void
wan_decoder (Walk *W)
{
  const HrArch *a = W->a;
  guint n = a->n_stages, compress_levels = halvings (a->temporal_compression);
  guint dims[HR_ARCH_MAX_STAGES + 1];

  dims[0] = a->widths[n - 1];
  for (guint j = 0; j < n; j++)
    dims[j + 1] = a->widths[n - 1 - j];

  block_begin (W, FALSE, "decoder.conv1");
  W->x = conv (W, &W->x, dims[0], 3, 1, 1, 1, TRUE);
  block_end (W);
  vae_mid (W, dims[0], "decoder");
  for (guint i = 0; i < n; i++)
    {
      for (guint j = 0; j < a->layers_per_block + 1; j++)
        {
          block_begin (W, TRUE, "decoder.upsamples.%u.%u", i, j);
          resnet2d (W, dims[i + 1], 0);
          block_end (W);
        }
      if (i + 1 < n)
        {
          T big;

          block_begin (W, FALSE, "decoder.upsamples.%u.resample", i);
          if (i < compress_levels)
            {
              /* time_conv: CausalConv3d(dim, 2 dim, (3, 1, 1)), cached;
               * its output is the two frames it makes */
              T twice = W->x;

              W->res->decode_cache += tbytes (&W->x);
              twice.c *= 2;
              fresh (W, &twice);
              params (W, 3 * (guint64) W->x.c * twice.c + twice.c);
              fwd (W, tbytes (&W->x), tbytes (&twice), 0);
            }
          big = resize (W, &W->x, W->x.h * 2, W->x.w * 2);
          W->cache_convs = FALSE;
          W->x = conv (W, &big, dims[i + 1] / 2, 3, 1, 1, 1, TRUE);
          W->cache_convs = TRUE;
          block_end (W);
        }
    }
  block_begin (W, FALSE, "decoder.head");
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  W->x = conv (W, &W->x, 3, 3, 1, 1, 1, TRUE);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* The causal 3D VAE encoder of CogVideoX: diffusers' CogVideoXEncoder3D
 * (huggingface/diffusers @58eb52c0,
 * src/diffusers/models/autoencoders/autoencoder_kl_cogvideox.py) and SAT's
 * ContextParallelEncoder3D (zai-org/CogVideo @0ae12e3e,
 * sat/vae_modules/cp_enc_dec.py), the same network: a causal conv_in,
 * layers_per_block ResnetBlock3D per level, a downsampler between levels
 * that halves the frames too for the first log2(temporal_compression)
 * levels, a mid block of two resnets (no attention), GroupNorm, SiLU and a
 * causal conv_out to twice the latent channels.  The tensors carry the
 * frames of the chunk the encoder runs on; at the first level they are
 * the clip's full resolution, which is where the working set peaks. */

/* CogVideoXCausalConv3d / ContextParallelCausalConv3d: the input is joined
 * in time to k - 1 copies of its first frame (or the conv cache of the
 * previous chunk), torch.cat: a new tensor of t + k - 1 frames beside the
 * input, which the caller still holds while the convolution runs; then the
 * k x k x k convolution with the spatial padding inside it.  (SAT joins the
 * frames in a transposed layout and copies it back with .contiguous(), then
 * pads the height and width in a further F.pad copy, one input-sized
 * tensor more at a time; the walk follows diffusers.) */
static T
causal_conv3d (Walk  *W,
               T     *in,
               guint  cout,
               guint  k)
{
  T padded = *in, out;
  guint frames = MAX (1, in->t);

  padded.t = frames + k - 1;
  fresh (W, &padded);
  fwd (W, tbytes (in), tbytes (&padded), 0);
  hold (W, in);
  W->time_taps = k - 1;
  out = conv_pad (W, &padded, cout, k, 1, k / 2, 1, 1, TRUE);
  W->time_taps = 0;
  {
    /* SafeConv3d, under both stacks' causal convolutions (diffusers'
     * CogVideoXSafeConv3d; SAT sat/vae_modules/utils.py @0ae12e3e): an
     * input above 2 GiB counted at 2 bytes an element is cut in
     * int(GiB / 2) + 1 chunks along time (torch.chunk); every chunk after
     * the first is a torch.cat copy with the k - 1 frames before it (the
 * whole batch is cut, so the batch sets the chunks), all
     * made at once, each chunk's output is kept and torch.cat joins them:
     * at that moment the input, the copies, the outputs and the joined
     * output are alive together */
    double gib = numel (&padded) * MAX (1, W->r->batch) * 2.0 / (1024.0 * 1024.0 * 1024.0);

    if (gib > 2)
      {
        guint parts = (guint) (gib / 2) + 1;
        guint t = padded.t, c = (t + parts - 1) / parts, n = (t + c - 1) / c;
        double frame = tbytes (&padded) / t;
        double copies = ((double) (t - c) + (double) (n - 1) * (k - 1)) * frame;

        fwd (W, tbytes (&padded) + copies + tbytes (&out), tbytes (&out), 0);
      }
  }
  release (W, in);
  /* the kernel's other k - 1 time taps */
  params (W, (guint64) (k - 1) * cout * in->c * k * k);
  g_assert (out.t == frames);
  return out;
}

/* CogVideoXResnetBlock3D: GroupNorm, SiLU, causal conv, GroupNorm, SiLU,
 * dropout (p = 0), causal conv, a 1x1x1 shortcut when the channels change,
 * the sum; the block's input stays alive throughout */
static void
resnet3d (Walk  *W,
          guint  cout)
{
  T id = W->x, h;

  hold (W, &id);
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  h = W->x;
  W->x = causal_conv3d (W, &h, cout, 3);
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  h = W->x;
  W->x = causal_conv3d (W, &h, cout, 3);
  if (id.c != cout)
    {
      T sc = conv (W, &id, cout, 1, 1, 1, 1, TRUE);

      W->x = add (W, &W->x, &sc);
    }
  else
    W->x = add (W, &W->x, &id);
  release (W, &id);
}

/* CogVideoXDownsample3D (diffusers src/diffusers/models/downsampling.py
 * @58eb52c0; SAT's DownSample3D the same): with compress_time the tensor
 * is permuted to (b h w, c, t), a copy; the frames after the first are
 * average-pooled in pairs and joined to it again (torch.cat), beside the
 * input the caller holds; then F.pad (0, 1, 0, 1), a permuted copy of the
 * frames as a batch of images and the 3x3 convolution of stride 2 */
static void
downsample3d (Walk     *W,
              gboolean  compress_time)
{
  T orig = W->x, x = W->x, padded, batch;
  gboolean held = FALSE;

  if (compress_time && MAX (1, x.t) > 1)
    {
      T copy = x, pooled, joined;
      guint frames = MAX (1, x.t);

      fresh (W, &copy);
      fwd (W, tbytes (&orig), tbytes (&copy), 0);
      hold (W, &orig);
      held = TRUE;
      pooled = copy;
      pooled.t = (frames - 1) / 2;
      fresh (W, &pooled);
      joined = copy;
      joined.t = frames % 2 == 1 ? 1 + (frames - 1) / 2 : frames / 2;
      fresh (W, &joined);
      fwd (W, tbytes (&copy) + tbytes (&pooled), tbytes (&joined), 0);
      x = joined;
    }
  padded = x;
  padded.h += 1;
  padded.w += 1;
  fresh (W, &padded);
  fwd (W, tbytes (&x), tbytes (&padded), 0);
  batch = padded;
  fresh (W, &batch);
  fwd (W, tbytes (&padded), tbytes (&batch), 0);
  W->x = conv_pad (W, &batch, x.c, 3, 2, 0, 1, 1, TRUE);
  W->x.t = x.t;
  if (held)
    release (W, &orig);
}

static void
vae3d_encoder (Walk  *W,
               guint  frames)
{
  const HrArch *a = W->a;
  guint n = a->n_stages;
  guint compress_levels = halvings (a->temporal_compression);
  T in;

  W->x.t = frames;
  block_begin (W, FALSE, "encoder.conv_in");
  in = W->x;
  W->x = causal_conv3d (W, &in, a->widths[0], 3);
  block_end (W);
  for (guint i = 0; i < n; i++)
    {
      for (guint j = 0; j < a->layers_per_block; j++)
        {
          block_begin (W, TRUE, "encoder.down_blocks.%u.resnets.%u", i, j);
          resnet3d (W, a->widths[i]);
          block_end (W);
        }
      if (i + 1 < n)
        {
          block_begin (W, FALSE, "encoder.down_blocks.%u.downsamplers", i);
          downsample3d (W, i < compress_levels);
          block_end (W);
        }
    }
  for (guint j = 0; j < 2; j++)
    {
      block_begin (W, TRUE, "encoder.mid_block.resnets.%u", j);
      resnet3d (W, a->widths[n - 1]);
      block_end (W);
    }
  block_begin (W, FALSE, "encoder.conv_out");
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  in = W->x;
  W->x = causal_conv3d (W, &in, 2 * a->out_channels, 3);
  if (a->quant_conv)
    W->x = conv (W, &W->x, 2 * a->out_channels, 1, 1, 1, 1, TRUE);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* HunyuanVideo's causal 3D VAE, AutoencoderKLCausal3D (Tencent/
 * HunyuanVideo @fa14b00, hyvideo/vae/vae.py EncoderCausal3D and
 * DecoderCausal3D, hyvideo/vae/unet_causal_3d_blocks.py): CogVideoX's
 * family (causal convolutions padding with the first frame, ResNet blocks
 * of GroupNorm and SiLU) laid out as diffusers' 2D VAE with a third
 * dimension.  Every tensor carries all the frames of the clip, or of the
 * tile under tiling: nothing is cached between chunks.  Time is
 * compressed by the last levels' samplers (levels 1 and 2 of 4 for
 * time_compression_ratio 4: i >= n - 1 - log2 4 and not the last), space
 * by the first log2(8) levels'; the middle block attends over every
 * position of every frame with a causal mask.  Python's references keep
 * a block's input alive while the block runs: the encoder's and the
 * decoder's `sample`, the blocks' `hidden_states`. */

/* CausalConv3d: F.pad (x, (k/2, k/2, k/2, k/2, k - 1, 0), "replicate"), a
 * new tensor padded in space and by k - 1 copies of the first frame,
 * beside the input; then nn.Conv3d without padding, stride st_t in time
 * and st_hw in space (DownsampleCausal3D); a kernel of 1 (the shortcut)
 * pads nothing but replication_pad3d still copies */
static T
hy_conv3d (Walk  *W,
           T     *in,
           guint  cout,
           guint  k,
           guint  st_t,
           guint  st_hw)
{
  T padded = *in, out;
  guint frames = MAX (1, in->t);

  padded.t = frames + k - 1;
  padded.h += 2 * (k / 2);
  padded.w += 2 * (k / 2);
  fresh (W, &padded);
  fwd (W, tbytes (in), tbytes (&padded), 0);
  hold (W, in);
  /* the output's frames: (t + k - 1 - k) / st_t + 1 */
  W->time_taps = padded.t - ((frames - 1) / st_t + 1);
  out = conv_pad (W, &padded, cout, k, st_hw, 0, 1, 1, TRUE);
  W->time_taps = 0;
  release (W, in);
  params (W, (guint64) (k - 1) * cout * in->c * k * k);
  return out;
}

/* ResnetBlockCausal3D: GroupNorm, SiLU, causal conv, GroupNorm, SiLU,
 * dropout (p = 0), causal conv, a 1x1x1 causal shortcut when the
 * channels change, then (input + h) / output_scale_factor: the sum and
 * its quotient beside both terms.  `held`: the caller already keeps the
 * input alive (the block's first resnet) */
static void
hy_resnet (Walk     *W,
           guint     cout,
           gboolean  held)
{
  T id = W->x, h, sum, out;

  if (!held)
    hold (W, &id);
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  h = W->x;
  W->x = hy_conv3d (W, &h, cout, 3, 1, 1);
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  h = W->x;
  h = hy_conv3d (W, &h, cout, 3, 1, 1);
  hold (W, &h);
  if (id.c != cout)
    {
      T sc = hy_conv3d (W, &id, cout, 1, 1, 1);

      hold (W, &sc);
      sum = add (W, &h, &sc);
      release (W, &sc);
    }
  else
    sum = add (W, &h, &id);
  out = sum;
  fresh (W, &out);
  fwd (W, tbytes (&sum), tbytes (&out), 0);
  release (W, &h);
  if (!held)
    release (W, &id);
  W->x = out;
}

/* The middle block: a resnet, then the attention over every position:
 * rearrange to (b, f h w, c) (a copy), prepare_causal_attention_mask's
 * (f h w)² mask in the activations' dtype (torch.full, expanded to the
 * batch as a view), diffusers' Attention with one head (attention_head_dim
 * = channels) under SDPA with that mask, its GroupNorm and residual, the
 * rearrange back (a copy); a last resnet.  The block's input stays alive
 * (the caller's `sample`). */
static void
hy_mid (Walk       *W,
        guint       C,
        const char *prefix)
{
  T in = W->x, flat, mask, id, back;
  guint frames = MAX (1, W->x.t), rows;

  hold (W, &in);
  block_begin (W, TRUE, "%s.mid_block.resnets.0", prefix);
  hy_resnet (W, C, TRUE);
  block_end (W);

  block_begin (W, TRUE, "%s.mid_block.attentions.0", prefix);
  rows = W->x.h;
  flat = W->x;
  flat.h = frames * rows;
  flat.t = 0;
  fresh (W, &flat);
  fwd (W, tbytes (&W->x), tbytes (&flat), 0);
  mask = (T) { 1, flat.h * flat.w, flat.h * flat.w, W->r->e, 0, FALSE, 0 };
  fresh (W, &mask);
  hold (W, &mask);
  W->x = flat;
  id = W->x;
  hold (W, &id);
  norm (W, &W->x);
  attention (W, NULL, 1, TRUE);
  W->x = add (W, &W->x, &id);
  release (W, &id);
  release (W, &mask);
  back = W->x;
  back.h = rows;
  back.t = frames;
  fresh (W, &back);
  fwd (W, tbytes (&W->x), tbytes (&back), 0);
  W->x = back;
  block_end (W);

  block_begin (W, TRUE, "%s.mid_block.resnets.1", prefix);
  hy_resnet (W, C, FALSE);
  block_end (W);
  release (W, &in);
}

/* Whether level i of n compresses time (vae.py add_time_downsample and
 * add_time_upsample for time_compression_ratio 4) */
static gboolean
hy_time_level (const HrArch *a,
               guint         i)
{
  guint n = a->n_stages, levels = halvings (a->temporal_compression);

  return i + 1 < n && i + 1 + levels >= n;
}

static void
hy_encoder (Walk  *W,
            guint  frames)
{
  const HrArch *a = W->a;
  guint n = a->n_stages, space_levels = halvings (a->latent_scale);
  T in;

  W->x.t = frames;
  block_begin (W, FALSE, "encoder.conv_in");
  in = W->x;
  W->x = hy_conv3d (W, &in, a->widths[0], 3, 1, 1);
  block_end (W);
  for (guint i = 0; i < n; i++)
    {
      T blk = W->x;

      hold (W, &blk);
      for (guint j = 0; j < a->layers_per_block; j++)
        {
          block_begin (W, TRUE, "encoder.down_blocks.%u.resnets.%u", i, j);
          hy_resnet (W, a->widths[i], j == 0);
          block_end (W);
        }
      if (i < space_levels || hy_time_level (a, i))
        {
          block_begin (W, FALSE, "encoder.down_blocks.%u.downsamplers", i);
          in = W->x;
          W->x = hy_conv3d (W, &in, a->widths[i], 3, hy_time_level (a, i) ? 2 : 1,
                            i < space_levels ? 2 : 1);
          block_end (W);
        }
      release (W, &blk);
    }
  hy_mid (W, a->widths[n - 1], "encoder");
  block_begin (W, FALSE, "encoder.conv_out");
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  in = W->x;
  W->x = hy_conv3d (W, &in, 2 * a->out_channels, 3, 1, 1);
  if (a->quant_conv)
    W->x = conv (W, &W->x, 2 * a->out_channels, 1, 1, 1, 1, TRUE);
  block_end (W);
}

/* UpsampleCausal3D: the first frame upsampled in space alone, the others
 * in time too (F.interpolate, nearest), torch.cat, the causal conv; the
 * input (the caller's) and both interpolated parts (forward's locals
 * first_h and other_h) stay alive through the conv.  A bf16 input is cast
 * to fp32 around the interpolation; the VAE runs in fp16
 * (--vae-precision), so that is not counted. */
static void
hy_upsample (Walk     *W,
             gboolean  in_time,
             gboolean  in_space)
{
  T in = W->x, first = W->x, rest = W->x, joined;
  guint frames = MAX (1, in.t), s = in_space ? 2 : 1;

  hold (W, &in);
  first.t = 1;
  first.h *= s;
  first.w *= s;
  fresh (W, &first);
  joined = first;
  if (frames > 1)
    {
      rest.t = (frames - 1) * (in_time ? 2 : 1);
      rest.h *= s;
      rest.w *= s;
      fresh (W, &rest);
      fwd (W, 0, tbytes (&first) + tbytes (&rest), 0);
      joined.t = 1 + rest.t;
      fresh (W, &joined);
      fwd (W, tbytes (&first) + tbytes (&rest), tbytes (&joined), 0);
      hold (W, &first);
      hold (W, &rest);
    }
  else
    fwd (W, 0, tbytes (&first), 0);
  W->x = hy_conv3d (W, &joined, in.c, 3, 1, 1);
  if (frames > 1)
    {
      release (W, &first);
      release (W, &rest);
    }
  release (W, &in);
}

static void
hy_decoder (Walk *W)
{
  const HrArch *a = W->a;
  guint n = a->n_stages, space_levels = halvings (a->latent_scale);
  T in;

  block_begin (W, FALSE, "decoder.conv_in");
  if (a->quant_conv)   /* post_quant_conv */
    W->x = conv (W, &W->x, a->out_channels, 1, 1, 1, 1, TRUE);
  in = W->x;
  W->x = hy_conv3d (W, &in, a->widths[n - 1], 3, 1, 1);
  block_end (W);
  hy_mid (W, a->widths[n - 1], "decoder");
  for (guint i = 0; i < n; i++)
    {
      guint level = n - 1 - i;
      T blk = W->x;

      hold (W, &blk);
      for (guint j = 0; j < a->layers_per_block + 1; j++)
        {
          block_begin (W, TRUE, "decoder.up_blocks.%u.resnets.%u", i, j);
          hy_resnet (W, a->widths[level], j == 0);
          block_end (W);
        }
      if (i < space_levels || hy_time_level (a, i))
        {
          block_begin (W, FALSE, "decoder.up_blocks.%u.upsamplers", i);
          hy_upsample (W, hy_time_level (a, i), i < space_levels);
          block_end (W);
        }
      release (W, &blk);
    }
  block_begin (W, FALSE, "decoder.conv_out");
  norm (W, &W->x);
  act (W, &W->x, ACT_INPUT);
  in = W->x;
  W->x = hy_conv3d (W, &in, 3, 3, 1, 1);
  block_end (W);
}

/* ------------------------------------------------------------------ */
/* DreamerV3 (danijar/dreamerv3 @e3f0224, dreamerv3/rssm.py)            */

/* The image encoder's 2x2 max-pool, x.reshape(B, H/2, 2, W/2, 2, C).max:
 * JAX's VJP of a max reduction compares the input with the result, so
 * both are residuals. */
static void
max_reduce (Walk *W,
            T    *x)
{
  T out = *x;

  out.h = x->h / 2;
  out.w = x->w / 2;
  fresh (W, &out);
  if (x->grad)
    {
      save_tensor (W, x);
      save_tensor (W, &out);
    }
  fwd (W, tbytes (x), tbytes (&out), 0);
  *x = out;
}

/* x.repeat(2, -2).repeat(2, -3): a new tensor four times the size, which
 * the next convolution keeps */
static void
repeat2 (Walk *W,
         T    *x)
{
  T out = *x;

  out.h = x->h * 2;
  out.w = x->w * 2;
  fresh (W, &out);
  fwd (W, tbytes (x), tbytes (&out), 0);
  *x = out;
}

/* nn.Norm('rms') then the SiLU: the norm has a scale per channel and
 * keeps its input (it computes in fp32 and casts back to the compute
 * dtype, embodied/jax/nets.py Norm), the SiLU keeps its input */
static void
dreamer_norm_act (Walk *W)
{
  T out = W->x;

  params (W, W->x.c);
  if (W->x.grad || W->train)
    save_tensor (W, &W->x);
  fresh (W, &out);
  out.grad = W->x.grad || W->train;
  fwd (W, tbytes (&W->x), tbytes (&out), 0);
  W->x = out;
  act (W, &W->x, ACT_INPUT);
}

/* Encoder: for each depth a 5x5 convolution (stride 1, 'same'), the 2x2
 * max-pool, the norm and the SiLU; the flattened result feeds the RSSM's
 * posterior, whose first linear layer keeps it. */
static void
dreamer_encoder (Walk *W)
{
  const HrArch *a = W->a;

  for (guint i = 0; i < a->n_stages; i++)
    {
      block_begin (W, FALSE, "enc.cnn%u", i);
      W->x = conv (W, &W->x, a->widths[i], DREAMER_KERNEL, 1, 1, 1, TRUE);
      max_reduce (W, &W->x);
      dreamer_norm_act (W);
      block_end (W);
    }
  block_begin (W, FALSE, "enc.out");
  if (W->x.grad)
    save_tensor (W, &W->x);
  block_end (W);
}

/* Decoder with bspace: the deterministic state through a block-diagonal
 * linear (sp0), the categorical latent through two linears with a norm and
 * SiLU (sp1, sp2), their sum normed and activated as the smallest feature
 * map; then for each depth but the last, reversed, a nearest 2x upsample,
 * a 5x5 convolution, the norm and the SiLU; a last upsample and
 * convolution to the image's channels, a sigmoid (which keeps its result)
 * and the squared error, whose VJP keeps the difference. */
static void
dreamer_decoder (Walk *W)
{
  const HrArch *a = W->a;
  guint n = a->n_stages;
  guint side_h = MAX (1, W->r->height >> n), side_w = MAX (1, W->r->width >> n);
  guint top = a->widths[n - 1];
  guint u = side_h * side_w * top;
  T deter = { a->deter, 1, 1, W->r->e, 0, FALSE };
  T stoch = { a->stoch * a->classes, 1, 1, W->r->e, 0, FALSE };
  T x0, x1, img;

  fresh (W, &deter);
  fresh (W, &stoch);
  block_begin (W, FALSE, "dec.space");
  /* sp0: BlockLinear(u, 8), kernel (8, deter / 8, u / 8) and a bias */
  params (W, (guint64) a->deter / DREAMER_BSPACE * u + u);
  if (W->train)
    save_tensor (W, &deter);
  x0 = (T) { u, 1, 1, W->r->e, 0, W->train };
  fresh (W, &x0);
  x1 = linear (W, &stoch, 2 * a->units, TRUE, FALSE);
  W->x = x1;
  dreamer_norm_act (W);
  x1 = linear (W, &W->x, u, TRUE, FALSE);
  W->x = add (W, &x0, &x1);
  dreamer_norm_act (W);
  W->x.c = top;
  W->x.h = side_h;
  W->x.w = side_w;
  block_end (W);

  for (guint i = n - 1; i-- > 0;)
    {
      block_begin (W, FALSE, "dec.conv%u", i);
      repeat2 (W, &W->x);
      W->x = conv (W, &W->x, a->widths[i], DREAMER_KERNEL, 1, 1, 1, TRUE);
      dreamer_norm_act (W);
      block_end (W);
    }

  block_begin (W, FALSE, "dec.imgout");
  repeat2 (W, &W->x);
  W->x = conv (W, &W->x, 3, DREAMER_KERNEL, 1, 1, 1, TRUE);
  act (W, &W->x, ACT_SIGMOID);
  img = W->x;
  img.eb = W->r->e32;
  fresh (W, &img);
  if (W->x.grad)
    save_tensor (W, &img);
  block_end (W);
}

/* ------------------------------------------------------------------ */

/* The frames of the largest chunk a video VAE's encoder runs on: the whole
 * clip, or diffusers' frame batches (AutoencoderKLCogVideoX._encode
 * @58eb52c0: num_frames // num_sample_frames_batch_size batches, the
 * remainder riding with the first: 9 of 49 frames in batches of 8). */
guint
hr_arch_encode_frames (const HrArch    *arch,
                       const HrArchRun *run)
{
  guint frames = MAX (1, run->frames);
  guint chunk = run->encode_frames > 0 ? run->encode_frames : arch->encode_frames_per_chunk;

  if (chunk == 0 || chunk >= frames)
    return frames;
  return chunk + frames % chunk;
}

/* A VAE: the encoder (what training runs, under no_grad) and the decoder
 * (what generation runs), each from its own input; forward_peak is the
 * larger, decode_peak the decoder's. */
static void
walk_vae (Walk *W)
{
  const HrArch *arch = W->a;
  const HrArchRun *run = W->r;
  HrArchResult *res = W->res;
  double encode_peak;
  T latent;

  if (arch->hunyuan_vae)
    hy_encoder (W, hr_arch_encode_frames (arch, run));
  else if (arch->temporal_compression > 1)
    vae3d_encoder (W, hr_arch_encode_frames (arch, run));
  else
    vae_encoder (W);
  encode_peak = res->forward_peak;
  latent = (T) { arch->out_channels, W->x.h, W->x.w, run->e, 0, FALSE };
  if (arch->hunyuan_vae)   /* the decoder runs on every latent frame at once */
    latent.t = 1 + (MAX (1, run->frames) - 1) / arch->temporal_compression;
  fresh (W, &latent);
  W->x = latent;
  W->held = 0;
  res->forward_peak = 0;
  /* a video VAE's decoder convolutions are causal 3D ones that keep
   * the last frames of their input for the next chunk */
  W->cache_convs = arch->temporal_compression > 1 && !arch->hunyuan_vae;
  if (arch->hunyuan_vae)
    hy_decoder (W);
  else if (arch->wan_decoder)
    wan_decoder (W);
  else
    vae_decoder (W);
  W->cache_convs = FALSE;
  res->decode_peak = res->forward_peak;
  res->encode_peak = encode_peak;
  res->forward_peak = MAX (encode_peak, res->decode_peak);
}

/* The network up to its head. */
static void
walk_backbone (Walk *W,
               T     c[4])
{
  const HrArch *arch = W->a;

  switch (arch->type)
    {
    case HR_ARCH_RESNET:
      resnet_backbone (W, c);
      break;
    case HR_ARCH_CONVNEXT:
      convnext (W);
      break;
    case HR_ARCH_EFFICIENTNET:
      efficientnet (W);
      break;
    case HR_ARCH_REGNET:
      regnet (W);
      break;
    case HR_ARCH_MOBILENET_V2:
      mobilenet_v2 (W);
      break;
    case HR_ARCH_MOBILENET_V3_LARGE:
    case HR_ARCH_MOBILENET_V3_SMALL:
      mobilenet_v3 (W);
      break;
    case HR_ARCH_R3D:
    case HR_ARCH_MC3:
    case HR_ARCH_R2PLUS1D:
      video_resnet (W);
      break;
    case HR_ARCH_MIT:
      mit (W, c);
      break;
    case HR_ARCH_VIT:
      vit (W);
      break;
    case HR_ARCH_SWIN:
      swin (W);
      break;
    case HR_ARCH_SWIN_V2:
      swin_v2 (W);
      break;
    case HR_ARCH_VGG:
      vgg (W, c);
      break;
    case HR_ARCH_DREAMER:
      dreamer_encoder (W);
      dreamer_decoder (W);
      break;
    case HR_ARCH_UNET:
      unet (W);
      break;
    case HR_ARCH_VAE:
      walk_vae (W);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* The head on the backbone's features, and an auxiliary head. */
static void
walk_head (Walk *W,
           T     c[4],
           T     p[8])
{
  const HrArch *arch = W->a;

  switch (arch->head)
    {
    case HR_ARCH_HEAD_NONE:
      break;
    case HR_ARCH_HEAD_CLASSIFIER:
      if (arch->type == HR_ARCH_RESNET)
        classifier (W, W->classes);
      break;
    case HR_ARCH_HEAD_FASTER_RCNN:
    case HR_ARCH_HEAD_MASK_RCNN:
      {
        guint n = fpn (W, c, 0, 0, p);

        rpn_head (W, p, n, 3, TRUE);
        if (arch->cascade_stages > 0)
          cascade_roi_heads (W, arch->head == HR_ARCH_HEAD_MASK_RCNN);
        else
          roi_heads (W, arch->head == HR_ARCH_HEAD_MASK_RCNN, 256);
      }
      break;
    case HR_ARCH_HEAD_FASTER_RCNN_C4:
    case HR_ARCH_HEAD_MASK_RCNN_C4:
      /* the RPN on res4 alone (RPN.IN_FEATURES ["res4"]) */
      p[0] = c[2];
      rpn_head (W, p, 1, 15, TRUE);
      res5_roi_head (W, arch->head == HR_ARCH_HEAD_MASK_RCNN_C4);
      break;
    case HR_ARCH_HEAD_FASTER_RCNN_DC5:
    case HR_ARCH_HEAD_MASK_RCNN_DC5:
      /* facebookresearch/detectron2 @02b5c4e2 configs/Base-RCNN-DilatedC5.yaml:
       * RESNETS.OUT_FEATURES ["res5"] with RES5_DILATION 2 (the catalog's
       * "strides" [1, 2, 2, 1], "dilations" [1, 1, 1, 2]: stride 16, as
       * modeling/backbone/resnet.py build_resnet_backbone sets the first
       * stride of a dilated res5 to 1), the RPN on res5 alone (2048
       * channels, 15 anchors a position), StandardROIHeads with
       * FastRCNNConvFCHead (NUM_FC 2, POOLER_RESOLUTION 7) on res5's 2048
       * channels; with MASK_ON, ROI_MASK_HEAD's MaskRCNNConvUpsampleHead
       * (NUM_CONV 4, POOLER_RESOLUTION 14) on res5's 2048 channels */
      p[0] = c[3];
      rpn_head (W, p, 1, 15, TRUE);
      roi_heads (W, arch->head == HR_ARCH_HEAD_MASK_RCNN_DC5, c[3].c);
      break;
    case HR_ARCH_HEAD_RPN:
      rpn_head (W, p, fpn (W, c, 0, 0, p), 3, FALSE);
      break;
    case HR_ARCH_HEAD_PANOPTIC_FPN:
      {
        /* PanopticFPN.forward: the semantic head, then the proposal
         * generator and the RoI heads (detectron2 @02b5c4e2
         * modeling/meta_arch/panoptic_fpn.py) */
        guint n = fpn (W, c, 0, 0, p);

        sem_seg_head (W, p);
        rpn_head (W, p, n, 3, TRUE);
        /* PanopticFPN takes any ROI_HEADS.NAME: CascadeROIHeads in
         * detectron2's configs/Misc/panoptic_fpn_R_101_dconv_cascade_gn_3x.yaml */
        if (arch->cascade_stages > 0)
          cascade_roi_heads (W, TRUE);
        else
          roi_heads (W, TRUE, 256);
      }
      break;
    case HR_ARCH_HEAD_KEYPOINT_RCNN:
      rpn_head (W, p, fpn (W, c, 0, 0, p), 3, TRUE);
      roi_heads (W, FALSE, 256);
      keypoint_head (W);
      break;
    case HR_ARCH_HEAD_RETINANET:
      dense_head (W, p, fpn (W, c, 1, 1, p), FALSE);
      break;
    case HR_ARCH_HEAD_FCOS:
      dense_head (W, p, fpn (W, c, 1, 2, p), TRUE);
      break;
    case HR_ARCH_HEAD_SSD:
      ssd_head (W);
      break;
    case HR_ARCH_HEAD_DETR:
      block_begin (W, FALSE, "input_proj");
      W->x = conv (W, &c[3], arch->head_channels > 0 ? arch->head_channels : 256, 1, 1, 1, 1,
                  TRUE);
      block_end (W);
      break;
    case HR_ARCH_HEAD_PSP:
      psp_head (W, c, arch->head_channels > 0 ? arch->head_channels : 512);
      break;
    case HR_ARCH_HEAD_ASPP:
      aspp_head (W, c);
      break;
    case HR_ARCH_HEAD_UPER:
      uper_head (W, c, arch->head_channels > 0 ? arch->head_channels : 512);
      break;
    case HR_ARCH_HEAD_MMSEG_FCN:
      mmseg_fcn_head (W, c, arch->head_channels > 0 ? arch->head_channels : 512);
      break;
    case HR_ARCH_HEAD_MMSEG_ASPP:
      mmseg_aspp_head (W, c, arch->head_channels > 0 ? arch->head_channels : 512);
      break;
    case HR_ARCH_HEAD_SEGFORMER:
      segformer_head (W, c, arch->head_channels > 0 ? arch->head_channels : 256);
      break;
    case HR_ARCH_HEAD_FCN:
      tv_fcn_head (W, &c[3], "decode head (FCN)");
      break;
    case HR_ARCH_HEAD_DEEPLABV3:
      tv_deeplabv3_head (W, c);
      break;
    case HR_ARCH_HEAD_LRASPP:
    case HR_ARCH_HEAD_SSDLITE:
      /* walked with its backbone (mobilenet_v3) */
      break;
    default:
      g_assert_not_reached ();
    }

  if (arch->aux_head && (arch->head == HR_ARCH_HEAD_FCN || arch->head == HR_ARCH_HEAD_DEEPLABV3))
    tv_fcn_head (W, &c[2], "auxiliary head (FCN)");
  else if (arch->aux_head)
    aux_fcn (W, &c[2], (arch->head_channels > 0 ? arch->head_channels : 512) / 2);
}

HrArchResult *
hr_arch_walk (const HrArch    *arch,
              const HrArchRun *run)
{
  HrArchResult *res;
  Walk W = { 0 };
  T c[4] = { { 0 } }, p[8];
  HrArch local;

  g_return_val_if_fail (arch != NULL, NULL);
  g_return_val_if_fail (run != NULL, NULL);

  res = g_new0 (HrArchResult, 1);
  res->blocks = g_array_new (FALSE, TRUE, sizeof (HrArchBlock));
  res->peaks = g_array_new (FALSE, TRUE, sizeof (HrArchPeak));
  res->saved_sizes = g_array_new (FALSE, FALSE, sizeof (double));

  /* speech encoders: their own walk over frames (hr-arch-speech.c) */
  if (hr_arch_is_speech (arch))
    {
      hr_arch_walk_speech (arch, run, res);
      return res;
    }

  /* detectron2's and torchvision's detectors run FrozenBatchNorm2d
   * where OpenMMLab's configs run BatchNorm in eval mode (HrArchRun) */
  local = *arch;
  if (run->frozen_bn && local.bn == HR_ARCH_BN_EVAL)
    local.bn = HR_ARCH_BN_FROZEN;
  arch = &local;

  W.a = arch;
  W.r = run;
  W.res = res;
  W.train = run->trainable && run->grad;
  W.count_params = TRUE;
  W.classes = run->classes > 0 ? run->classes : arch->classes;
  W.saved_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  W.block_ids = g_array_new (FALSE, FALSE, sizeof (guint));

  switch (arch->type)
    {
    case HR_ARCH_UNET:
      W.x = (T) { arch->in_channels, hr_arch_latent_side (arch, run->height),
                  hr_arch_latent_side (arch, run->width), run->e, 0, FALSE };
      break;
    case HR_ARCH_VAE:
      W.x = (T) { 3, run->height, run->width, run->input_bytes, 0, FALSE };
      break;
    case HR_ARCH_DREAMER:
      /* uint8 frames, cast to the compute dtype and scaled (nn.cast(...,
       * force=True) / 255 - 0.5) */
      W.x = (T) { 3, run->height, run->width, run->e, 0, FALSE };
      break;
    default:
      W.x = (T) { 3, run->height, run->width, run->input_bytes, 0, FALSE };
      break;
    }
  /* a transform resizing every image to one size (SSD's) */
  if (arch->fixed_size > 0)
    W.x.h = W.x.w = arch->fixed_size;
  fresh (&W, &W.x);

  walk_backbone (&W, c);
  walk_head (&W, c, p);

  if (res->output == 0)
    res->output = tbytes (&W.x);
  g_hash_table_unref (W.saved_ids);
  g_array_unref (W.block_ids);
  return res;
}

void
hr_arch_result_free (HrArchResult *result)
{
  if (result == NULL)
    return;

  for (guint i = 0; i < result->blocks->len; i++)
    g_free (g_array_index (result->blocks, HrArchBlock, i).name);
  g_array_unref (result->blocks);
  g_array_unref (result->peaks);
  g_array_unref (result->saved_sizes);
  g_free (result);
}

double
hr_arch_result_rounding (const HrArchResult *result,
                         double              micro_batch)
{
  double extra = 0;

  g_return_val_if_fail (result != NULL, 0);

  for (guint i = 0; i < result->saved_sizes->len; i++)
    {
      double bytes = g_array_index (result->saved_sizes, double, i) * micro_batch;

      extra += alloc_round (bytes) - bytes;
    }
  return extra + result->fixed_rounding;
}

double
hr_arch_result_peak_extra (const HrArchResult *result,
                           double              micro_batch,
                           gboolean            recompute,
                           const char        **what)
{
  double base, best = 0;

  g_return_val_if_fail (result != NULL, 0);

  base = micro_batch * (recompute ? result->kept : result->saved);
  if (what != NULL)
    *what = NULL;
  for (guint i = 0; i < result->peaks->len; i++)
    {
      const HrArchPeak *pk = &g_array_index (result->peaks, HrArchPeak, i);
      double live = micro_batch * ((recompute ? pk->kept : pk->saved) + pk->transient) + pk->fixed;

      if (live - base > best)
        {
          best = live - base;
          if (what != NULL)
            *what = pk->what;
        }
    }
  return best;
}

const HrArchBlock *
hr_arch_result_find (const HrArchResult *result,
                     const char         *name)
{
  g_return_val_if_fail (result != NULL, NULL);

  for (guint i = 0; i < result->blocks->len; i++)
    {
      const HrArchBlock *b = &g_array_index (result->blocks, HrArchBlock, i);

      if (g_strcmp0 (b->name, name) == 0)
        return b;
    }
  return NULL;
}
