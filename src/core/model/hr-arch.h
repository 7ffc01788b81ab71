/* hr-arch.h: vision and diffusion networks as stages and blocks
 *
 * A convolutional network, a diffusion U-Net or a VAE has no closed form
 * for its activations the way a transformer layer has: what it keeps for
 * the backward pass follows from its feature maps, which follow from the
 * input size and the strides.  An HrArch describes such a network by the
 * numbers its library's configuration gives (torchvision, timm, OpenMMLab,
 * diffusers); hr_arch_walk() builds its blocks for one input size and
 * counts, op by op, what autograd saves (hr-arch.c cites the formulas), the
 * parameters, and the working set of a forward pass without gradients.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "hr-reader.h"
#include "hr-types.h"

G_BEGIN_DECLS

typedef enum {
  HR_ARCH_RESNET,         /* ResNet, ResNeXt, ResNetV1c (deep stem), dilated */
  HR_ARCH_CONVNEXT,
  HR_ARCH_EFFICIENTNET,
  HR_ARCH_REGNET,
  HR_ARCH_MIT,            /* SegFormer's Mix Transformer encoder */
  HR_ARCH_UNET,           /* diffusers UNet2DConditionModel, or its ControlNet */
  HR_ARCH_VAE,            /* diffusers AutoencoderKL (and video VAEs by frame) */
  HR_ARCH_DREAMER,        /* DreamerV3's image encoder and decoder, per time step */
  HR_ARCH_MOBILENET_V2,   /* torchvision's MobileNetV2 */
  HR_ARCH_MOBILENET_V3_LARGE,  /* torchvision's MobileNetV3, large and small */
  HR_ARCH_MOBILENET_V3_SMALL,
  HR_ARCH_R3D,            /* torchvision's video ResNets: R3D, MC3, R(2+1)D */
  HR_ARCH_MC3,
  HR_ARCH_R2PLUS1D,
  HR_ARCH_WAV2VEC2,       /* torchaudio's Wav2Vec2Model: wav2vec 2.0, HuBERT (hr-arch-speech.c) */
  HR_ARCH_CONFORMER,      /* torchaudio's Conformer on log-mel frames (hr-arch-speech.c) */
  HR_ARCH_VIT,            /* torchvision's VisionTransformer (timm's, DeiT) */
  HR_ARCH_SWIN,           /* torchvision's SwinTransformer (V1) */
  HR_ARCH_SWIN_V2,        /* torchvision's SwinTransformer V2 (swin_v2_t, _s, _b) */
  HR_ARCH_VGG,            /* torchvision's VGG features (no BatchNorm), SSD's backbone */
} HrArchType;

/* ViT and Swin (V1, V2): their attention is a line of the estimate
 * of its own, and they train as classifiers. */
static inline gboolean
hr_arch_type_is_vision_transformer (HrArchType type)
{
  return type == HR_ARCH_VIT || type == HR_ARCH_SWIN || type == HR_ARCH_SWIN_V2;
}

extern const HrEnumName hr_arch_type_names[];

/* How the network's BatchNorm layers run. */
typedef enum {
  HR_ARCH_BN_TRAIN,    /* training mode, affine trains (SyncBN too) */
  HR_ARCH_BN_EVAL,     /* eval mode, affine trains (OpenMMLab norm_eval=True) */
  HR_ARCH_BN_FROZEN,   /* FrozenBatchNorm2d: constants, nothing saved */
} HrArchBn;

extern const HrEnumName hr_arch_bn_names[];

/* The normalisation of a ResNet and of the FPN and R-CNN heads on it. */
typedef enum {
  HR_ARCH_NORM_BN,     /* BatchNorm in the backbone (as "bn" says), none in the heads */
  HR_ARCH_NORM_GN,     /* GroupNorm of 32 groups everywhere, trained (Wu and He 2018) */
  HR_ARCH_NORM_GN_WS,  /* GroupNorm, and every convolution before one weight-standardized
                        * (Qiao et al. 2019; mmcv's ConvWS2d) */
} HrArchNorm;

extern const HrEnumName hr_arch_norm_names[];

/* The R-CNN box head. */
typedef enum {
  HR_ARCH_BOX_HEAD_2FC,      /* Shared2FCBBoxHead / FastRCNNConvFCHead NUM_FC 2 */
  HR_ARCH_BOX_HEAD_4CONV1FC, /* Shared4Conv1FCBBoxHead / NUM_CONV 4, NUM_FC 1 */
} HrArchBoxHead;

extern const HrEnumName hr_arch_box_head_names[];

/* The box head's RoI layer (mmdetection's bbox_roi_extractor.roi_layer):
 * RoIAlign, or mmcv's DeformRoIPoolPack / ModulatedDeformRoIPoolPack
 * (configs/dcn "dpool", "mdpool") */
typedef enum {
  HR_ARCH_ROI_LAYER_ALIGN,
  HR_ARCH_ROI_LAYER_DEFORM,
  HR_ARCH_ROI_LAYER_MODULATED_DEFORM,
} HrArchRoiLayer;

extern const HrEnumName hr_arch_roi_layer_names[];

/* The head on top of the backbone. */
typedef enum {
  HR_ARCH_HEAD_NONE,
  HR_ARCH_HEAD_CLASSIFIER,  /* global pooling and a linear classifier */
  HR_ARCH_HEAD_FASTER_RCNN, /* FPN, RPN, RoIAlign and two shared FC layers */
  HR_ARCH_HEAD_MASK_RCNN,   /* Faster R-CNN plus the 4-conv mask head */
  HR_ARCH_HEAD_RETINANET,   /* FPN P3-P7, 4-conv class and box towers */
  HR_ARCH_HEAD_FCOS,        /* FPN P3-P7, 4-conv towers with GroupNorm */
  HR_ARCH_HEAD_DETR,        /* a 1x1 projection to the transformer's width */
  HR_ARCH_HEAD_PSP,         /* pyramid pooling (PSPNet) */
  HR_ARCH_HEAD_ASPP,        /* DeepLabv3+ separable ASPP and decoder */
  HR_ARCH_HEAD_UPER,        /* UPerNet: PPM plus FPN fusion */
  HR_ARCH_HEAD_SEGFORMER,   /* SegFormer's all-MLP decoder */
  HR_ARCH_HEAD_FCN,         /* torchvision's FCN: FCNHead on the dilated stage 4 */
  HR_ARCH_HEAD_DEEPLABV3,   /* torchvision's DeepLabV3: ASPP and DeepLabHead */
  HR_ARCH_HEAD_LRASPP,      /* torchvision's LRASPP on a dilated MobileNetV3 */
  HR_ARCH_HEAD_RPN,         /* FPN and the RPN alone (a proposal network) */
  HR_ARCH_HEAD_KEYPOINT_RCNN,  /* Faster R-CNN plus the 8-conv keypoint head */
  HR_ARCH_HEAD_SSD,         /* torchvision's SSD300: L2Norm, extra layers, 3x3 heads */
  HR_ARCH_HEAD_SSDLITE,     /* torchvision's SSDlite320 on a MobileNetV3-Large */
  HR_ARCH_HEAD_FASTER_RCNN_C4, /* RPN on res4, res5 and the box predictor on the RoIs */
  HR_ARCH_HEAD_FASTER_RCNN_DC5, /* RPN and two shared FC layers on a dilated res5 */
  HR_ARCH_HEAD_PANOPTIC_FPN, /* Mask R-CNN plus detectron2's SemSegFPNHead */
  HR_ARCH_HEAD_MASK_RCNN_C4, /* the C4 head plus a deconvolution on res5's positive RoIs */
  HR_ARCH_HEAD_MASK_RCNN_DC5, /* the DC5 head plus the 4-conv mask head on res5 */
  HR_ARCH_HEAD_MMSEG_FCN,   /* mmseg's FCNHead: two 3x3 convs, conv_cat over the input */
  HR_ARCH_HEAD_MMSEG_ASPP,  /* mmseg's ASPPHead (DeepLabV3): image pool, four rates */
} HrArchHead;

extern const HrEnumName hr_arch_head_names[];

/* How a dense detector's sigmoid focal loss runs (hr-arch.c cites both). */
typedef enum {
  HR_ARCH_FOCAL_FUSED,    /* mmcv's sigmoid_focal_loss CUDA op (mmdetection) */
  HR_ARCH_FOCAL_PYTHON,   /* torchvision.ops.sigmoid_focal_loss, fvcore's (detectron2) */
} HrArchFocal;

extern const HrEnumName hr_arch_focal_names[];

/* Where a Mask R-CNN's mask targets are cut from the ground truth
 * (hr-arch.c, mask_targets_peak cites each). */
typedef enum {
  HR_ARCH_MASK_TARGETS_HOST,       /* polygons rasterized per RoI on the CPU (detectron2) */
  HR_ARCH_MASK_TARGETS_PER_ROI,    /* a bitmap per positive RoI in fp32 (mmdetection) */
  HR_ARCH_MASK_TARGETS_PER_OBJECT, /* every object's bitmap in fp32 (torchvision) */
} HrArchMaskTargets;

#define HR_ARCH_MAX_STAGES 8

typedef struct {
  HrArchType  type;
  guint       n_stages;
  guint       depths[HR_ARCH_MAX_STAGES];
  guint       widths[HR_ARCH_MAX_STAGES];    /* channels per stage (ConvNeXt, MiT, U-Net, VAE) */
  guint       strides[HR_ARCH_MAX_STAGES];
  guint       dilations[HR_ARCH_MAX_STAGES];
  guint       heads[HR_ARCH_MAX_STAGES];     /* attention heads per stage (MiT, U-Net) */
  guint       sr_ratios[HR_ARCH_MAX_STAGES]; /* MiT's spatial reduction */
  guint       transformer_layers[HR_ARCH_MAX_STAGES]; /* U-Net: 0 = no attention */

  /* ResNet */
  gboolean    bottleneck;
  guint       groups;
  guint       width_per_group;
  gboolean    deep_stem;        /* ResNetV1c: three 3x3 convolutions */
  int         frozen_stages;    /* -1: none; 0: the stem; n: stem and stages 1..n */
  HrArchBn    bn;
  HrArchNorm  norm;             /* "gn": GroupNorm in the backbone, FPN and heads;
                                 * "gn+ws": and ConvWS2d before each */
  /* "dcn": the bottleneck's 3x3 conv2 made deformable in the stages it
   * names (mmdet's ResNet dcn and stage_with_dcn), modulated (DCNv2) or
   * not, with deform_groups offset groups */
  gboolean    dcn_stages[HR_ARCH_MAX_STAGES];
  gboolean    dcn_modulated;
  guint       dcn_deform_groups;

  /* EfficientNet, RegNet */
  double      width_mult;
  double      depth_mult;
  guint       regnet_depth;
  double      w0, wa, wm;
  guint       group_width;
  double      se_ratio;
  /* MobileNetV3: the last stage dilated (torchvision dilated=True, as its
   * segmentation models build it) */
  gboolean    dilated;
  /* MobileNetV3: the last stage's channels halved (torchvision
   * reduced_tail=True, as ssdlite320_mobilenet_v3_large builds it) */
  gboolean    reduced_tail;

  /* U-Net and VAE (diffusers) */
  guint       in_channels;
  guint       out_channels;
  guint       latent_scale;     /* pixels per latent pixel (8) */
  guint       layers_per_block;
  guint       head_dim;         /* U-Net: when set, heads = channels / head_dim */
  guint       cross_attention_dim;
  guint       text_tokens;
  gboolean    linear_projection;
  gboolean    addition_embed;   /* SDXL's text_time embedding */
  gboolean    controlnet;       /* the ControlNet copy of the encoder */
  gboolean    controlnet_residuals;  /* a frozen U-Net fed by a ControlNet */
  gboolean    mid_attention;
  guint       mid_transformer_layers;
  guint       temporal_compression;  /* video VAE: frames per latent frame */
  guint       frames_per_chunk;      /* video VAE: frames decoded at once */
  guint       encode_frames_per_chunk;  /* video VAE: frames encoded at once, 0: all */
  gboolean    quant_conv;            /* VAE: quant_conv and post_quant_conv */
  gboolean    wan_decoder;           /* video VAE: Wan-VAE's Decoder3d, not diffusers' */
  /* video VAE: HunyuanVideo's AutoencoderKLCausal3D (EncoderCausal3D and
   * DecoderCausal3D), walked over every frame of the clip or tile */
  gboolean    hunyuan_vae;
  guint       tile_size;             /* VAE: tiles of this many pixels under tiling, 0: 512 */
  guint       tile_frames;           /* video VAE: frames per temporal tile (+1), 0: none */

  /* DreamerV3 (dreamerv3/rssm.py Encoder and Decoder): the CNN's depths
   * are "widths"; the decoder starts from the RSSM's deterministic state
   * (deter), its stoch x classes categorical latent, and units */
  guint       deter;
  guint       stoch;
  guint       units;

  /* vision transformers (ViT, Swin): the patch side, the MLP's hidden
   * width (ViT; Swin's is 4x), the attention window's side (Swin) and
   * the stochastic depth rate of the last block (Swin, torchvision's
   * stochastic_depth_prob) */
  guint       patch;
  guint       mlp_dim;
  guint       window;
  double      drop_path;

  /* the head */
  HrArchHead  head;
  guint       classes;
  guint       head_channels;
  gboolean    aux_head;         /* the FCN auxiliary head on stage 3 (mmseg's, or
                                 * torchvision's aux_classifier for "fcn" and
                                 * "deeplabv3") */
  guint       rois;             /* RoIs sampled per image for the box head */
  guint       mask_rois;        /* positive RoIs the mask head sees per image */
  HrArchBoxHead box_head;
  HrArchRoiLayer roi_layer;
  guint       keypoints;        /* Keypoint R-CNN: keypoints per instance (17, COCO's) */
  guint       stuff_classes;    /* Panoptic FPN: the semantic head's classes (54) */
  guint       sem_seg_dims;     /* Panoptic FPN: its towers' channels (128) */

  /* Speech encoders (hr-arch-speech.c), by the names of transformers'
   * Wav2Vec2Config / HubertConfig; "classes" is the CTC vocabulary */
  guint       hidden_size;
  guint       num_hidden_layers;
  guint       num_attention_heads;
  guint       intermediate_size;
  gboolean    feat_extract_layer_norm;   /* feat_extract_norm "layer" (large), else "group" */
  gboolean    conv_bias;
  gboolean    do_stable_layer_norm;      /* pre-LN layers (large), else post-LN (base) */
  guint       num_conv_pos_embeddings;   /* the positional convolution's kernel (128) */
  guint       num_conv_pos_embedding_groups;  /* and its groups (16) */
  guint       n_conv_layers;
  guint       conv_dim[HR_ARCH_MAX_STAGES];
  guint       conv_kernel[HR_ARCH_MAX_STAGES];
  guint       conv_stride[HR_ARCH_MAX_STAGES];
  gboolean    freeze_feature_encoder;    /* the conv feature encoder frozen (fine-tuning) */
  double      attention_dropout;
  double      activation_dropout;
  double      hidden_dropout;
  double      feat_proj_dropout;
  double      layerdrop;
  /* Conformer: the log-mel front end and the depthwise convolution */
  guint       num_mel_bins;              /* features per frame (80) */
  guint       frame_shift_ms;            /* hop between frames (10 ms) */
  guint       time_reduction;            /* frames merged into one (4) */
  guint       depthwise_kernel;          /* the convolution module's kernel (31) */
  gboolean    conv_group_norm;           /* GroupNorm instead of BatchNorm1d */
  /* Cascade R-CNN: box heads in sequence, each on the RoIs the one before
   * it refined, regressing class-agnostic boxes; 0: one class-specific
   * box head (Faster and Mask R-CNN) */
  guint       cascade_stages;
  /* The side every image is resized to before the network, whatever its
   * size (torchvision's GeneralizedRCNNTransform with fixed_size, as SSD
   * builds it); 0: the scenario's image size */
  guint       fixed_size;
} HrArch;

HrArch     *hr_arch_copy       (const HrArch *arch);
void        hr_arch_free       (HrArch       *arch);
/* Reads the "arch" object of a catalog component. */
HrArch     *hr_arch_read       (HrReader     *parent,
                                const char   *key);

/* What a walk is run for. */
typedef struct {
  guint       width, height;    /* input pixels */
  guint       frames;           /* video: input frames (1 for images) */
  /* audio: samples per clip, at sample_rate Hz (speech encoders) */
  guint       samples;
  guint       sample_rate;
  /* video VAE: frames its encoder runs on at once; 0: the arch's
   * encode_frames_per_chunk */
  guint       encode_frames;
  /* samples a pass runs on together, where an op's choice depends on the
   * whole tensor (SafeConv3d's chunks); 0: one.  Sizes stay per sample. */
  guint       batch;
  double      e;                /* bytes of an activation element */
  double      e32;              /* bytes of the outputs of autocast's fp32 ops */
  double      input_bytes;      /* bytes of an input pixel (fp32 images) */
  gboolean    autocast;         /* convolutions and linears cast fp32 inputs */
  gboolean    trainable;        /* the network's weights train */
  gboolean    grad;             /* a gradient flows through it (backprop) */
  gboolean    eager_attention;  /* attention keeps its score matrix */
  gboolean    recompute;        /* gradient checkpointing per block */
  /* LoRA: the rank and whether it sits on the attention projections only
   * or on every linear layer; 0 for none */
  guint       lora_rank;
  gboolean    lora_all_linear;
  /* the attention projections that carry adapters (HrModule: Q, K, V,
   * O) */
  guint       lora_attention;
  /* the classes the head predicts; 0: the arch's own "classes" */
  guint       classes;
  /* detection: ground-truth boxes of the most crowded image, which the
   * anchor heads' IoU assigners compare with every anchor; 0: none */
  guint       objects;
  /* detection: the focal loss's implementation, and with it how the
   * dense heads' outputs reach it */
  HrArchFocal focal;
  /* BatchNorm the catalog runs in eval mode ("bn": "eval", OpenMMLab's
   * norm_eval) is FrozenBatchNorm2d instead (detectron2's and
   * torchvision's detectors) */
  gboolean    frozen_bn;
  /* PyTorch before 1.11: softmax and log_softmax save their input beside
   * their result (hr-arch.c, softmax_input_saved) */
  gboolean    softmax_saves_input;
  /* PyTorch before 1.6: group_norm is batch_norm over the reshaped input
   * and an addcmul with the weight, which keeps the normalized tensor too
   * (hr-arch.c, group_norm) */
  gboolean    group_norm_via_batch_norm;
  /* PyTorch before 1.1: mul saved both operands whichever needed a
   * gradient, so FrozenBatchNorm2d's x * scale keeps x (hr-arch.c, bn) */
  gboolean    mul_saves_both;
  /* Cascade Mask R-CNN: one mask head on the first stage's positive RoIs
   * (detectron2's CascadeROIHeads) rather than one per stage on its own
   * (mmdetection's CascadeRoIHead, the catalog's) */
  gboolean    cascade_one_mask_head;
  /* detectron2's dense detectors (DenseDetector): the heads' outputs and
   * their transposed copies stay alive through the losses, which build
   * the focal loss's targets as an int64 one-hot (hr-arch.c,
   * dense_outputs_alive) */
  gboolean    dense_outputs_alive;
  /* detection: the IoU assigner frees the boxes' corners before the IoU
   * (detectron2's pairwise_iou since its first release: hr-arch.c,
   * assign_peak) */
  gboolean    iou_frees_corners;
  /* detection: the IoU assigner keeps the previous image's IoU matrix
   * while it builds the next image's (torchvision's loops rebind
   * match_quality_matrix: hr-arch.c, assign_peak); counted from `batch`
   * 2 on */
  gboolean    assigner_keeps_previous_iou;
  /* Mask R-CNN: how the ground-truth masks reach the mask loss */
  HrArchMaskTargets mask_targets;
  /* bytes of a parameter's gradient where the gradients exist before the
   * backward pass makes them (zeroed without set_to_none, or accumulated
   * over micro-batches), so each layer's fresh weight gradient is alive
   * beside its accumulated one; 0 where it becomes .grad itself */
  double      accumulate_grad_bytes;
  /* PyTorch's autograd engine runs the backward pass op by op: the
   * moments its CPU profile shows between the saved tensors' frees (a
   * convolution's gradients in and out, branches' gradients summed:
   * hr-arch.c, conv_backward_peak).  XLA plans JAX's buffers itself. */
  gboolean    autograd_moments;
} HrArchRun;

/* One block of a walk: a stem, a residual block, a transformer block, a
 * head.  Sizes are per sample. */
typedef struct {
  char       *name;
  guint       channels, height, width;   /* its output feature map */
  guint       tokens;                    /* attention blocks: tokens attended over */
  guint       attn_heads;
  double      saved;      /* bytes the block's ops save for backward */
  double      scores;     /* of which the attention score matrices */
  double      kept;       /* what stays until backward with checkpointing on */
  gboolean    checkpointed;
  guint64     params;
} HrArchBlock;

/* A moment of a training step when more is alive than the tensors saved
 * for the backward pass: a loss's temporaries in the forward pass, the
 * first gradients of the backward pass.  What is alive then is the saved
 * bytes so far (`saved`, or `kept` with checkpointing) per sample, plus
 * `transient` bytes per sample and `fixed` bytes that do not grow with
 * the batch (work done one image at a time). */
typedef struct {
  double      saved;
  double      kept;
  double      transient;
  double      fixed;
  const char *what;        /* static, untranslated: hr-estimate-vision.c words it */
} HrArchPeak;

typedef struct {
  GArray     *blocks;      /* HrArchBlock */
  guint64     params;
  /* the parameters of the largest layer (a weight and its bias): what an
   * optimizer stepping one parameter at a time holds temporaries for */
  guint64     largest_params;
  guint64     lora_params;
  /* bytes per sample: */
  double      saved;       /* kept for backward, no recomputation */
  /* bytes saved for backward once per step, whatever the batch
   * (BatchNorm's batch statistics, a loss's scalars) */
  double      fixed_saved;
  double      kept;        /* kept for backward with recompute (checkpoint inputs) */
  double      recompute_peak;  /* the largest block rebuilt in the backward pass */
  double      scores;      /* the s² attention matrices inside `saved` */
  /* what the attention kernels themselves keep, inside `saved`: the
   * score matrices on the math path, the output and log-sum-exp under
   * SDPA's flash and memory-efficient kernels (ViT and Swin) */
  double      attn_kernel;
  double      forward_peak;    /* working set of a forward pass without gradients */
  double      encode_peak;     /* VAE: the encoder's */
  double      decode_peak;     /* VAE: the decoder's */
  /* video VAE: one frame of the input of every decoder convolution wider
   * than 1, which a causal 3D convolution caches for the next chunk */
  double      decode_cache;
  double      output;      /* the output features */
  guint       max_tokens;  /* tokens of the largest attention */
  GArray     *peaks;       /* HrArchPeak: moments above the saved tensors */
  /* What a CPU trace cannot see, for hr-estimate-vision.c's lines:
   * the bytes per sample of each tensor saved (double), as the caching
   * allocator rounds each one; the rounding of the tensors saved once
   * per step (BatchNorm's statistics); the BatchNorm layers that train
   * (each saves cuDNN's reserve space); and the largest convolution's
   * im2col matrix per sample (the workspace of cuDNN's GEMM algorithm) */
  GArray     *saved_sizes;
  double      fixed_rounding;
  guint       bn_layers;
  double      conv_workspace;
} HrArchResult;

HrArchResult *hr_arch_walk         (const HrArch     *arch,
                                    const HrArchRun  *run);
void          hr_arch_result_free  (HrArchResult     *result);
/* Bytes alive above the saved activations at the step's highest moment,
 * for @micro_batch samples; @recompute: with checkpointing (against
 * `kept`).  @what, if not NULL, is set to the moment's HrArchPeak.what. */
double        hr_arch_result_peak_extra (const HrArchResult *result,
                                         double              micro_batch,
                                         gboolean            recompute,
                                         const char        **what);
/* Bytes the CUDA caching allocator adds to the saved tensors of
 * @micro_batch samples by rounding each up to its 512-byte blocks. */
double        hr_arch_result_rounding   (const HrArchResult *result,
                                         double              micro_batch);
/* The block called @name, or NULL. */
const HrArchBlock *hr_arch_result_find (const HrArchResult *result,
                                        const char         *name);

/* A video VAE (temporal_compression above 1): the frames of the largest
 * chunk its encoder runs on at once. */
guint         hr_arch_encode_frames (const HrArch    *arch,
                                     const HrArchRun *run);

/* The longest clip a speech scenario or catalog entry may name (an hour) */
#define HR_ARCH_MAX_AUDIO_SECONDS 3600.0
/* The sample rate of speech models' audio when the scenario names none:
 * wav2vec 2.0, HuBERT and the Conformer recipes take 16 kHz
 * (facebook/wav2vec2-base-960h preprocessor_config.json sampling_rate
 * 16000; torchaudio pipelines WAV2VEC2_ASR_BASE_960H.sample_rate) */
#define HR_ARCH_DEFAULT_SAMPLE_RATE 16000
/* The clip a speech model runs on when neither the scenario nor the model
 * names one: the longest clip transformers' CTC fine-tuning script keeps
 * (examples/pytorch/speech-recognition/run_speech_recognition_ctc.py,
 * max_duration_in_seconds default 20.0), whose padded batch is the peak */
#define HR_ARCH_DEFAULT_AUDIO_SECONDS 20.0

/* Speech encoders (hr-arch-speech.c): the frames the encoder's layers
 * run on for @samples samples at @sample_rate Hz, and the walk itself,
 * which fills @result as hr_arch_walk() does. */
gboolean      hr_arch_is_speech    (const HrArch *arch);
/* Parameters the architecture itself keeps frozen whatever the method
 * (a wav2vec 2.0 fine-tune's feature encoder): 0 for most. */
guint64       hr_arch_frozen_params (const HrArch *arch);
/* Reads the speech keys of an "arch" object into @arch (hr_arch_read) */
gboolean      hr_arch_read_speech  (HrReader     *reader,
                                    HrArch       *arch);
guint         hr_arch_speech_frames (const HrArch *arch,
                                     guint         samples,
                                     guint         sample_rate);
void          hr_arch_walk_speech  (const HrArch    *arch,
                                    const HrArchRun *run,
                                    HrArchResult    *result);

/* Latent size of a diffusion model's input (image / latent_scale). */
guint         hr_arch_latent_side  (const HrArch *arch,
                                    guint         pixels);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrArch, hr_arch_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrArchResult, hr_arch_result_free)

G_END_DECLS
