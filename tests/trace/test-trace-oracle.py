#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The architecture walk against the real code: torchvision's own models,
traced on the CPU by data/probe/headroom_trace_torch.py, and the walk's
saved-activation bytes (headroom-cli estimate --json, "walk_saved") for
the same model, micro-batch and input size must agree within ±5%, at
three micro-batches and two input sizes per model, with the frozen stages
and the frozen BatchNorm torchvision's detectors run with.

Every trace also goes through the trace CSV and the importer: the file
is written as the script writes it, read by `headroom-cli estimate
--measurements`, whose trace_ratio must be the ratio computed here.

    test-trace-oracle.py HEADROOM_CLI TRACER [--suite ci|bench] [MODEL...]

Exits 77 (skipped) when PyTorch and torchvision cannot be imported, but
fails when CI=true (CI installs python3-torch and python3-torchvision).
"""

import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

TOLERANCE = 0.05


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_env import reexec_with_torch  # noqa: E402

reexec_with_torch()

import torch  # noqa: E402
import torchvision  # noqa: E402


def classifier(name, catalog_id, sizes=(48, 64), batches=(1, 2, 3)):
    def build():
        return getattr(torchvision.models, name)(weights=None)

    def batch(b, size):
        return (torch.randn(b, 3, size, size), torch.randint(0, 1000, (b,)))

    def loss(model, data):
        return torch.nn.functional.cross_entropy(model(data[0]), data[1])
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {}}


def gn_classifier(name, catalog_id, sizes=(48, 64), batches=(1, 2, 3)):
    """torchvision's ResNet with nn.GroupNorm(32, C) for every BatchNorm
    (its norm_layer argument): the walk's "norm": "gn", the backbone of
    the GN detectors (native_group_norm saves input, mean and rstd)."""
    case = classifier(name, catalog_id, sizes, batches)

    def build():
        return getattr(torchvision.models, name)(weights=None,
                                                 norm_layer=lambda c: torch.nn.GroupNorm(32, c))
    case["build"] = build
    case["name"] = name + "-gn"
    case["arch"] = {"norm": "gn"}
    return case


def vit_classifier(name, catalog_id, sizes=(48, 64), batches=(1, 2, 3)):
    """torchvision's VisionTransformer, built for each input size (its
    position embedding has one row per patch: image_size is a
    constructor argument).  PyTorch 1.13's nn.MultiheadAttention runs the
    math path on the CPU (torch/nn/functional.py
    multi_head_attention_forward: bmm, softmax, bmm): the scenario's
    attention is "eager"."""
    case = classifier(name, catalog_id, sizes, batches)

    def build_for(size):
        return getattr(torchvision.models, name)(weights=None, image_size=size)
    del case["build"]
    case["build_for"] = build_for
    case["scenario"] = {"attention": "eager"}
    return case


def video_classifier(name, catalog_id, sizes=(32, 48), batches=(1, 2, 3), frames=4):
    """torchvision's video ResNets (torchvision.models.video) on clips of
    @frames frames, cross-entropy over Kinetics' 400 classes"""
    def build():
        return getattr(torchvision.models.video, name)(weights=None)

    def batch(b, size):
        return (torch.randn(b, 3, frames, size, size), torch.randint(0, 400, (b,)))

    def loss(model, data):
        return torch.nn.functional.cross_entropy(model(data[0]), data[1])
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {"frames": frames}}


def detector(kind, catalog_id, sizes=((128, 128), (160, 128)), batches=(1, 2, 3), boxes=3):
    """torchvision's detectors as their pretrained weights run them:
    FrozenBatchNorm2d and trainable_backbone_layers=3 (the stem and layer1
    frozen), built here without weights (torchvision/models/detection/
    faster_rcnn.py fasterrcnn_resnet50_fpn: is_trained -> norm_layer
    FrozenBatchNorm2d, _validate_trainable_layers(..., 5, 3))."""
    from torchvision.models.detection import FasterRCNN, FCOS, KeypointRCNN, MaskRCNN, RetinaNet
    from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7
    from torchvision.ops.misc import FrozenBatchNorm2d

    sampled = {}

    def build_for(size):
        w, h = size
        body = torchvision.models.resnet50(weights=None, norm_layer=FrozenBatchNorm2d)
        kw = dict(min_size=min(w, h), max_size=max(w, h))
        if kind in ("retinanet", "fcos"):
            backbone = _resnet_fpn_extractor(body, 3, returned_layers=[2, 3, 4],
                                             extra_blocks=LastLevelP6P7(256, 256))
            return (RetinaNet if kind == "retinanet" else FCOS)(backbone, 91, **kw)
        backbone = _resnet_fpn_extractor(body, 3)
        if kind == "keypoint-rcnn":
            model = KeypointRCNN(backbone, 2, **kw)
        else:
            model = (MaskRCNN if kind == "mask-rcnn" else FasterRCNN)(backbone, 91, **kw)

        # the RoIs the box and mask heads see depend on the proposals of
        # random weights: counted here, handed to the walk ("rois",
        # "mask_rois" per image)
        def box_hook(module, args, output):
            sampled["rois"] = output.shape[0]

        def mask_hook(module, args, output):
            sampled["mask_rois"] = output.shape[0]
        model.roi_heads.box_roi_pool.register_forward_hook(box_hook)
        if kind == "mask-rcnn":
            model.roi_heads.mask_roi_pool.register_forward_hook(mask_hook)
        if kind == "keypoint-rcnn":
            # the keypoint head's RoIs stand where the mask head's do
            model.roi_heads.keypoint_roi_pool.register_forward_hook(mask_hook)
        return model

    def batch(b, size):
        w, h = size
        targets = []
        for i in range(b):
            box = torch.tensor([[4.0 + 8 * k, 6.0 + 5 * k, w / 2 + 10 * k, h / 2 + 7 * k]
                                for k in range(boxes)])
            target = {"boxes": box, "labels": torch.arange(1, boxes + 1)}
            if kind == "keypoint-rcnn":
                # one class (person); 17 keypoints inside each box, visible
                target["labels"] = torch.ones(boxes, dtype=torch.int64)
                kx = box[:, None, 0] + (box[:, None, 2] - box[:, None, 0]) * torch.linspace(0.1, 0.9, 17)
                ky = box[:, None, 1] + (box[:, None, 3] - box[:, None, 1]) * torch.linspace(0.9, 0.1, 17)
                target["keypoints"] = torch.stack([kx, ky, torch.ones_like(kx)], dim=2)
            if kind == "mask-rcnn":
                target["masks"] = torch.zeros(boxes, h, w, dtype=torch.uint8)
            targets.append(target)
        return ([torch.rand(3, h, w) for _ in range(b)], targets)

    def loss(model, data):
        return sum(model(data[0], data[1]).values())
    # torchvision's num_classes counts the background: the two-stage heads
    # softmax over it (the walk's "classes" + 1), the dense heads' sigmoid
    # outputs include its unused column (91 for COCO)
    classes = 91 if kind in ("retinanet", "fcos") else 1 if kind == "keypoint-rcnn" else 90
    return {"id": catalog_id, "build_for": build_for, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "sampled": sampled,
            "arch": {"bn": "frozen", "classes": classes},
            "scenario": {"max_objects": boxes, "detection_framework": "torchvision"}}


def ssd_detector(catalog_id, sizes=(300, (400, 300)), batches=(1, 2, 3), boxes=3, lite=False):
    """torchvision's SSD300-VGG16 as ssd300_vgg16 builds it on its
    pretrained backbone: trainable_backbone_layers 4, which freezes the
    first stage (conv1_1 and conv1_2, features[:4]; models/detection/
    ssd.py _vgg_extractor).  Built without weights, which would leave every
    layer trainable, and frozen here as the weights would.  Every image is
    resized to 300 x 300 (GeneralizedRCNNTransform fixed_size), so the
    400 x 300 images walk as the 300 x 300 ones.  With `lite`,
    SSDlite320-MobileNetV3-Large as its COCO weights build it: the reduced
    tail (no backbone weights), every layer trainable, 320 x 320."""
    from torchvision.models.detection import ssd300_vgg16, ssdlite320_mobilenet_v3_large

    def build():
        if lite:
            return ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        model = ssd300_vgg16(weights=None, weights_backbone=None)
        for p in model.backbone.features[:4].parameters():
            p.requires_grad_(False)
        return model

    def batch(b, size):
        w, h = (size, size) if isinstance(size, int) else size
        targets = [{"boxes": torch.tensor([[4.0 + 8 * k, 6.0 + 5 * k, w / 2 + 10 * k, h / 2 + 7 * k]
                                           for k in range(boxes)]),
                    "labels": torch.arange(1, boxes + 1)} for _ in range(b)]
        return ([torch.rand(3, h, w) for _ in range(b)], targets)

    def loss(model, data):
        return sum(model(data[0], data[1]).values())
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {},
            "scenario": {"max_objects": boxes, "detection_framework": "torchvision"}}


def segmenter(name, catalog_id, sizes=(64, 96), batches=(2, 3, 4), aux=True):
    """torchvision's FCN and DeepLabV3 as its reference script trains them
    (references/segmentation/train.py: --aux-loss, cross-entropy of "out"
    plus 0.5 times that of "aux", ignore_index 255); DeepLabV3's image
    pooling runs BatchNorm on one value per channel and sample, so the
    batches start at 2.  LRASPP has no auxiliary head (aux False)."""
    def build():
        kw = {"aux_loss": True} if aux else {}
        return getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, num_classes=21, **kw)

    def batch(b, size):
        return (torch.randn(b, 3, size, size), torch.randint(0, 21, (b, size, size)))

    def loss(model, data):
        out = model(data[0])
        ce = torch.nn.functional.cross_entropy
        if "aux" not in out:
            return ce(out["out"], data[1], ignore_index=255)
        return ce(out["out"], data[1], ignore_index=255) + \
            0.5 * ce(out["aux"], data[1], ignore_index=255)
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {}}


def mmseg_segmenter(head, depth, catalog_id, classes, sizes=(64, (128, 64)), batches=(2, 3)):
    """mmsegmentation's EncoderDecoder written out in plain PyTorch, as its
    configs build it (open-mmlab/mmsegmentation @3f8d34ee configs/_base_/
    models/pspnet_r50-d8.py, deeplabv3plus_r50-d8.py, upernet_r50.py,
    fcn_r50-d8.py; @2fc821ec deeplabv3_r50-d8.py):
    ResNetV1c (three 3x3 convolutions in the stem; D8: strides 1, 2, 1, 1,
    dilations 1, 1, 2, 4, the first block of a dilated stage at half the
    dilation, contract_dilation) with BatchNorm training (SyncBN saves the
    same: torch/nn/modules/_functions.py SyncBatchNorm.forward,
    save_for_backward(input, weight, mean, invstd, count_all)); the decode
    head (mmseg/models/decode_heads psp_head.py PSPHead, sep_aspp_head.py
    DepthwiseSeparableASPPHead, uper_head.py UPerHead, fcn_head.py FCNHead
    with num_convs 2 and concat_input, aspp_head.py ASPPHead: ConvModule
    is conv, BatchNorm, in-place ReLU; cls_seg is Dropout2d(0.1) and the 1x1
    conv_seg) and the auxiliary FCNHead on stage 3 (one 3x3 ConvModule,
    loss weight 0.4); each head's loss as decode_head.py
    BaseDecodeHead.losses computes it: the logits resized (bilinear) to
    the label's size, then models/losses/cross_entropy_loss.py
    cross_entropy (F.cross_entropy, reduction 'none', ignore_index 255)
    and its mean.  accuracy() is left out: its topk saves int64 indices
    for a node freed as soon as it returns."""
    import torch.nn as nn
    import torch.nn.functional as F

    def cm(cin, cout, k, d=1, groups=1):
        return nn.Sequential(nn.Conv2d(cin, cout, k, padding=d * (k // 2), dilation=d,
                                       groups=groups, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def sep(cin, cout, d):
        return nn.Sequential(cm(cin, cin, 3, d, groups=cin), cm(cin, cout, 1))

    def resize(x, size):
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            dilated = head != "uper"
            if depth == 18:
                r = torchvision.models.resnet18(weights=None)
                if dilated:
                    # BasicBlock: both 3x3 convolutions dilated, the
                    # stage's first at half (contract_dilation)
                    for layer, d in ((r.layer3, 2), (r.layer4, 4)):
                        for i, blk in enumerate(layer):
                            for conv in (blk.conv1, blk.conv2):
                                dd = d // 2 if i == 0 and conv is blk.conv1 else d
                                conv.stride, conv.dilation, conv.padding = (1, 1), (dd, dd), (dd, dd)
                            if blk.downsample is not None:
                                blk.downsample[0].stride = (1, 1)
            else:
                ctor = torchvision.models.resnet50 if depth == 50 else torchvision.models.resnet101
                r = ctor(weights=None, replace_stride_with_dilation=[False, True, True] if dilated else None)
            self.stem = nn.Sequential(cm(3, 32, 3), cm(32, 32, 3), cm(32, 64, 3))
            self.stem[0][0].stride = (2, 2)
            self.pool = nn.MaxPool2d(3, 2, 1)
            self.layers = nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])

        def forward(self, x):
            x = self.pool(self.stem(x))
            outs = []
            for layer in self.layers:
                x = layer(x)
                outs.append(x)
            return outs

    big = depth != 18
    cins = [256, 512, 1024, 2048] if big else [64, 128, 256, 512]
    ch = 512 if big else 128

    class Decode(nn.Module):
        def __init__(self):
            super().__init__()
            self.dropout = nn.Dropout2d(0.1)
            self.conv_seg = nn.Conv2d(ch, classes, 1)
            if head in ("psp", "uper"):
                self.ppm = nn.ModuleList([nn.Sequential(nn.AdaptiveAvgPool2d(s), cm(cins[3], ch, 1))
                                          for s in (1, 2, 3, 6)])
                self.bottleneck = cm(cins[3] + 4 * ch, ch, 3)
            if head == "uper":
                self.lateral = nn.ModuleList([cm(c, ch, 1) for c in cins[:3]])
                self.fpn = nn.ModuleList([cm(ch, ch, 3) for _ in cins[:3]])
                self.fpn_bottleneck = cm(4 * ch, ch, 3)
            if head == "mmseg-fcn":
                # FCNHead: num_convs 2, concat_input
                self.convs = nn.Sequential(cm(cins[3], ch, 3), cm(ch, ch, 3))
                self.conv_cat = cm(cins[3] + ch, ch, 3)
            if head == "mmseg-aspp":
                # ASPPHead: image pooling, dilations (1, 12, 24, 36)
                self.image_pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), cm(cins[3], ch, 1))
                self.aspp = nn.ModuleList([cm(cins[3], ch, 1)] + [cm(cins[3], ch, 3, d) for d in (12, 24, 36)])
                self.bottleneck = cm(5 * ch, ch, 3)
            if head == "aspp":
                # dilations (1, 12, 24, 36); c1 from stage 1 to 48 channels
                self.image_pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), cm(cins[3], ch, 1))
                self.aspp = nn.ModuleList([cm(cins[3], ch, 1)] + [sep(cins[3], ch, d) for d in (12, 24, 36)])
                self.bottleneck = cm(5 * ch, ch, 3)
                self.c1_bottleneck = cm(cins[0], 48, 1)
                self.sep_bottleneck = nn.Sequential(sep(ch + 48, ch, 1), sep(ch, ch, 1))

        def psp(self, x):
            return self.bottleneck(torch.cat([x] + [resize(p(x), x.shape[2:]) for p in self.ppm], 1))

        def forward(self, c):
            if head == "psp":
                out = self.psp(c[3])
            elif head == "mmseg-fcn":
                out = self.conv_cat(torch.cat([c[3], self.convs(c[3])], 1))
            elif head == "mmseg-aspp":
                x = c[3]
                outs = [resize(self.image_pool(x), x.shape[2:])] + [a(x) for a in self.aspp]
                out = self.bottleneck(torch.cat(outs, 1))
            elif head == "aspp":
                x = c[3]
                outs = [resize(self.image_pool(x), x.shape[2:])] + [a(x) for a in self.aspp]
                out = self.bottleneck(torch.cat(outs, 1))
                c1 = self.c1_bottleneck(c[0])
                out = self.sep_bottleneck(torch.cat([resize(out, c1.shape[2:]), c1], 1))
            else:
                lats = [lat(c[i]) for i, lat in enumerate(self.lateral)] + [self.psp(c[3])]
                for i in range(3, 0, -1):
                    lats[i - 1] = lats[i - 1] + resize(lats[i], lats[i - 1].shape[2:])
                outs = [self.fpn[i](lats[i]) for i in range(3)] + [lats[3]]
                outs = [outs[0]] + [resize(o, outs[0].shape[2:]) for o in outs[1:]]
                out = self.fpn_bottleneck(torch.cat(outs, 1))
            return self.conv_seg(self.dropout(out))

    class Aux(nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = cm(cins[2], ch // 2, 3)
            self.dropout = nn.Dropout2d(0.1)
            self.conv_seg = nn.Conv2d(ch // 2, classes, 1)

        def forward(self, c):
            return self.conv_seg(self.dropout(self.convs(c[2])))

    class EncoderDecoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = Backbone()
            self.decode_head = Decode()
            self.auxiliary_head = Aux()

        def forward(self, img, label):
            c = self.backbone(img)

            def loss(logits, weight):
                logits = resize(logits, label.shape[1:])
                return weight * F.cross_entropy(logits, label, reduction="none", ignore_index=255).mean()
            return loss(self.decode_head(c), 1.0) + loss(self.auxiliary_head(c), 0.4)

    def build():
        return EncoderDecoder()

    def batch(b, size):
        w, h = (size, size) if isinstance(size, int) else size
        return (torch.randn(b, 3, h, w), torch.randint(0, classes, (b, h, w)))

    def loss(model, data):
        return model(*data)
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {}}


def mmseg_segformer(catalog_id, widths, depths, heads, classes=19, sizes=(64, (128, 64)),
                    batches=(1, 2)):
    """SegFormer as mmsegmentation builds it, in plain PyTorch
    (open-mmlab/mmsegmentation @3f8d34ee mmseg/models/backbones/mit.py
    MixVisionTransformer, decode_heads/segformer_head.py SegformerHead):
    per stage an overlapping patch embedding (7x7/4, then 3x3/2) and
    LayerNorm; each layer LayerNorm, EfficientMultiheadAttention (keys and
    values from a sr x sr / sr convolution and a LayerNorm where sr > 1,
    then nn.MultiheadAttention, need_weights left True: the math path) and
    Mix-FFN (1x1 to 4C, depthwise 3x3, GELU, 1x1); a LayerNorm after each
    stage.  The head: a 1x1 ConvModule per stage to 256 channels resized
    to stride 4, a fusion 1x1 ConvModule, Dropout2d(0.1), conv_seg; the
    loss as mmseg_segmenter's, with no auxiliary head."""
    import torch.nn as nn
    import torch.nn.functional as F
    srs = (8, 4, 2, 1)

    class Layer(nn.Module):
        def __init__(self, c, h, sr):
            super().__init__()
            self.norm1 = nn.LayerNorm(c)
            self.sr = sr
            if sr > 1:
                self.sr_conv = nn.Conv2d(c, c, sr, sr)
                self.sr_norm = nn.LayerNorm(c)
            self.attn = nn.MultiheadAttention(c, h)
            self.norm2 = nn.LayerNorm(c)
            self.ffn = nn.Sequential(nn.Conv2d(c, 4 * c, 1), nn.Conv2d(4 * c, 4 * c, 3, padding=1, groups=4 * c),
                                     nn.GELU(), nn.Conv2d(4 * c, c, 1))

        def forward(self, x, hw):
            b, n, c = x.shape
            q = self.norm1(x)
            kv = q
            if self.sr > 1:
                kv = self.sr_conv(q.transpose(1, 2).reshape(b, c, *hw)).flatten(2).transpose(1, 2)
                kv = self.sr_norm(kv)
            # mmcv's MultiheadAttention (batch_first False): sequence first
            out = self.attn(q.transpose(0, 1), kv.transpose(0, 1), kv.transpose(0, 1))[0]
            x = x + out.transpose(0, 1)
            y = self.norm2(x).transpose(1, 2).reshape(b, c, *hw)
            return x + self.ffn(y).flatten(2).transpose(1, 2)

    class MiT(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeds = nn.ModuleList()
            self.stages = nn.ModuleList()
            self.norms = nn.ModuleList()
            cin = 3
            for i, c in enumerate(widths):
                k = 7 if i == 0 else 3
                self.embeds.append(nn.ModuleList([nn.Conv2d(cin, c, k, 4 if i == 0 else 2, k // 2),
                                                  nn.LayerNorm(c)]))
                self.stages.append(nn.ModuleList([Layer(c, heads[i], srs[i]) for _ in range(depths[i])]))
                self.norms.append(nn.LayerNorm(c))
                cin = c

        def forward(self, x):
            outs = []
            for embed, stage, norm in zip(self.embeds, self.stages, self.norms):
                x = embed[0](x)
                hw = x.shape[2:]
                x = embed[1](x.flatten(2).transpose(1, 2))
                for layer in stage:
                    x = layer(x, hw)
                x = norm(x)
                x = x.transpose(1, 2).reshape(x.shape[0], -1, *hw)
                outs.append(x)
            return outs

    def cm(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class Segformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = MiT()
            self.convs = nn.ModuleList([cm(c, 256) for c in widths])
            self.fusion = cm(4 * 256, 256)
            self.dropout = nn.Dropout2d(0.1)
            self.conv_seg = nn.Conv2d(256, classes, 1)

        def forward(self, img, label):
            c = self.backbone(img)
            size = c[0].shape[2:]
            outs = [F.interpolate(conv(x), size=size, mode="bilinear", align_corners=False)
                    for conv, x in zip(self.convs, c)]
            logits = self.conv_seg(self.dropout(self.fusion(torch.cat(outs, 1))))
            logits = F.interpolate(logits, size=label.shape[1:], mode="bilinear", align_corners=False)
            return F.cross_entropy(logits, label, reduction="none", ignore_index=255).mean()

    def batch(b, size):
        w, h = (size, size) if isinstance(size, int) else size
        return (torch.randn(b, 3, h, w), torch.randint(0, classes, (b, h, w)))

    return {"id": catalog_id, "build": Segformer, "batch": batch, "loss": lambda m, d: m(*d),
            "sizes": sizes, "batches": batches, "arch": {}, "scenario": {}}


def ctc_loss(logits):
    """CTC over @logits (batch, frames, vocab) as transformers' Wav2Vec2ForCTC
    computes it: log_softmax in fp32, (frames, batch, vocab), every frame
    valid, random labels at half the frame rate (the walk's label count)"""
    log_probs = torch.nn.functional.log_softmax(logits, dim=-1, dtype=torch.float32).transpose(0, 1)
    frames, b, vocab = log_probs.shape
    labels = max(1, frames // 2)
    targets = torch.randint(1, vocab, (b, labels))
    return torch.nn.functional.ctc_loss(log_probs, targets, torch.full((b,), frames),
                                        torch.full((b,), labels), blank=0, reduction="mean")


def wav2vec2(factory, catalog_id, samples=(8000, 16000), batches=(1, 2, 3), layers=2):
    """torchaudio's wav2vec 2.0 / HuBERT (torchaudio.models.@factory) with a
    32-token CTC head (aux_num_out), the feature encoder frozen as
    fine-tunes run it, on 16 kHz clips of @samples samples.  Built with
    @layers transformer layers (None: all of the catalog's) and no layer
    drop, so that every step runs them all: the walk counts every layer
    (the peak step), and the per-layer count is what a short stack tests."""
    import torchaudio

    def build():
        kw = {"encoder_layer_drop": 0.0, "aux_num_out": 32}
        model = getattr(torchaudio.models, factory)(**kw)
        if layers is not None:
            model.encoder.transformer.layers = model.encoder.transformer.layers[:layers]
        model.feature_extractor.requires_grad_(False)
        return model

    def batch(b, size):
        return torch.randn(b, size)

    def loss(model, data):
        return ctc_loss(model(data)[0])
    return {"id": catalog_id, "build": build, "batch": batch, "loss": loss,
            "sizes": samples, "batches": batches, "speech": True,
            "arch": {} if layers is None else {"num_hidden_layers": layers},
            "scenario": {"sample_rate": 16000, "attention": "eager"}}


def conformer(catalog_id, dim, heads, samples=(8000, 16000), batches=(1, 2, 3), layers=2):
    """torchaudio's Conformer as its RNN-T recipe feeds it (80 log-mel bins
    every 10 ms, _TimeReduction by 4, an input Linear), with a linear CTC
    head over 1024 symbols, @layers layers of width @dim"""
    import torchaudio
    from torchaudio.models.rnnt import _TimeReduction

    class ConformerCTC(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.time_reduction = _TimeReduction(4)
            self.input_linear = torch.nn.Linear(80 * 4, dim)
            self.conformer = torchaudio.models.Conformer(
                input_dim=dim, num_heads=heads, ffn_dim=4 * dim, num_layers=layers,
                depthwise_conv_kernel_size=31, dropout=0.1)
            self.ctc = torch.nn.Linear(dim, 1024)

        def forward(self, mels):
            lengths = torch.full((mels.shape[0],), mels.shape[1])
            x, lengths = self.time_reduction(mels, lengths)
            x, _ = self.conformer(self.input_linear(x), lengths)
            return self.ctc(x)

    def batch(b, size):
        # torchaudio.transforms.MelSpectrogram(hop_length=160, center=True)
        return torch.randn(b, size // 160 + 1, 80)

    def loss(model, data):
        return ctc_loss(model(data))
    return {"id": catalog_id, "build": ConformerCTC, "batch": batch, "loss": loss,
            "sizes": samples, "batches": batches, "speech": True,
            "arch": {"num_hidden_layers": layers},
            "scenario": {"sample_rate": 16000, "attention": "eager"}}


# The catalog's torchvision classifiers, at small inputs so that the whole
# test stays near three minutes on two cores.
CI_MODELS = [
    classifier("resnet18", "resnet-18"),
    classifier("resnet34", "resnet-34"),
    classifier("resnet50", "resnet-50"),
    gn_classifier("resnet50", "resnet-50"),
    classifier("resnet101", "resnet-101"),
    classifier("resnext50_32x4d", "resnext-50-32x4d"),
    classifier("resnext101_32x8d", "resnext-101-32x8d"),
    classifier("resnext101_64x4d", "resnext-101-64x4d"),
    classifier("convnext_tiny", "convnext-tiny"),
    classifier("convnext_small", "convnext-small"),
    classifier("convnext_base", "convnext-base"),
    classifier("efficientnet_b0", "efficientnet-b0"),
    classifier("efficientnet_b1", "efficientnet-b1"),
    classifier("efficientnet_b2", "efficientnet-b2"),
    classifier("efficientnet_b3", "efficientnet-b3"),
    classifier("regnet_y_400mf", "regnety-400mf"),
    classifier("regnet_y_800mf", "regnety-800mf"),
    classifier("regnet_y_1_6gf", "regnety-1.6gf"),
    classifier("regnet_y_3_2gf", "regnety-3.2gf"),
    classifier("regnet_y_8gf", "regnety-8gf"),
    classifier("resnet152", "resnet-152"),
    segmenter("fcn_resnet50", "fcn-resnet50"),
    segmenter("deeplabv3_resnet50", "deeplabv3-resnet50"),
    classifier("mobilenet_v2", "mobilenet-v2"),
    classifier("mobilenet_v3_large", "mobilenet-v3-large"),
    classifier("mobilenet_v3_small", "mobilenet-v3-small"),
    segmenter("lraspp_mobilenet_v3_large", "lraspp-mobilenet-v3-large", sizes=(64, 96),
              batches=(1, 2, 3), aux=False),
    mmseg_segmenter("psp", 18, "pspnet-r18-d8", 19),
    mmseg_segformer("segformer-mit-b0", (32, 64, 160, 256), (2, 2, 2, 2), (1, 2, 5, 8)),
    video_classifier("r3d_18", "r3d-18"),
    video_classifier("mc3_18", "mc3-18"),
    video_classifier("r2plus1d_18", "r2plus1d-18"),
    # speech: two layers of each stack (the feature encoder, projection,
    # positional convolution and head in full), post-LN and pre-LN
    wav2vec2("wav2vec2_base", "wav2vec2-base-960h"),
    wav2vec2("hubert_large", "hubert-large-ls960-ft", layers=1),
    conformer("conformer-ctc-s", 144, 4),
    vit_classifier("vit_b_16", "vit-b-16", sizes=(32, 48)),
    # Swin at 32 and 64 px: the 8 x 8 and 16 x 16 patch maps padded to
    # whole 7 x 7 windows (shifted where a stage has more than one), the
    # later stages one window each, which at micro-batch 1 the attention's
    # matmuls read as views
    classifier("swin_t", "swin-t", sizes=(32, 64)),
    # Swin V2 at 32 and 64 px: 8 x 8 windows, the first stage one window
    # (32 px) or four, shifted (64 px); the later stages padded
    classifier("swin_v2_t", "swin-v2-t", sizes=(32, 64)),
    # SSD300-VGG16: six steps at 300 x 300 (the 400 x 300 images resized
    # to it), about 10 s on two cores
    ssd_detector("ssd300-vgg16"),
    # SSDlite320: its extra layers' BatchNorm needs two images or more on
    # the 1 x 1 map
    ssd_detector("ssdlite320-mobilenet-v3-large", sizes=(320, (400, 320)), batches=(2, 3, 4),
                 lite=True),
]

# Slower traces: `meson test --benchmark` (meson's benchmark()).  The
# detectors run with "detection_framework": "torchvision", whose focal
# loss is torchvision.ops.sigmoid_focal_loss in Python (eight tensors of
# anchors x classes saved, 8.6 MB of RetinaNet's 20 MB at 128 px); with
# the walk's mmcv-style fused loss RetinaNet came out at -38% and FCOS at
# -6.5%.
BENCH_MODELS = [
    classifier("convnext_large", "convnext-large"),
    vit_classifier("vit_b_32", "vit-b-32", sizes=(64, 96)),
    vit_classifier("vit_l_16", "vit-l-16"),
    classifier("swin_s", "swin-s", sizes=(64, 96)),
    classifier("swin_b", "swin-b", sizes=(64, 96)),
    classifier("swin_v2_s", "swin-v2-s", sizes=(64, 96)),
    classifier("swin_v2_b", "swin-v2-b", sizes=(64, 96)),
    classifier("efficientnet_b4", "efficientnet-b4"),
    classifier("regnet_y_16gf", "regnety-16gf"),
    segmenter("fcn_resnet101", "fcn-resnet101"),
    segmenter("deeplabv3_resnet101", "deeplabv3-resnet101"),
    detector("faster-rcnn", "faster-rcnn-r50-fpn"),
    detector("mask-rcnn", "mask-rcnn-r50-fpn"),
    detector("retinanet", "retinanet-r50-fpn"),
    detector("fcos", "fcos-r50-fpn"),
    detector("keypoint-rcnn", "keypoint-rcnn-r50-fpn"),
    mmseg_segmenter("psp", 50, "pspnet-r50-d8", 19),
    mmseg_segmenter("psp", 101, "pspnet-r101-d8", 19),
    mmseg_segmenter("aspp", 50, "deeplabv3plus-r50-d8", 19),
    mmseg_segmenter("aspp", 101, "deeplabv3plus-r101-d8", 19),
    mmseg_segmenter("uper", 50, "upernet-r50", 150),
    mmseg_segmenter("uper", 101, "upernet-r101", 150),
    mmseg_segmenter("mmseg-fcn", 50, "fcn-r50-d8", 19),
    mmseg_segmenter("mmseg-fcn", 101, "fcn-r101-d8", 19),
    mmseg_segmenter("mmseg-aspp", 50, "deeplabv3-r50-d8", 19),
    mmseg_segmenter("mmseg-aspp", 101, "deeplabv3-r101-d8", 19),
    dict(wav2vec2("wav2vec2_base", "wav2vec2-base-960h", layers=None),
         name="wav2vec2-base-960h-all-layers"),
    wav2vec2("wav2vec2_large_lv60k", "wav2vec2-large-960h-lv60-self", layers=None,
             batches=(1, 2, 3)),
    wav2vec2("hubert_base", "hubert-base-ls960", layers=None),
    wav2vec2("wav2vec2_large", "wav2vec2-large-960h", layers=None),
    conformer("conformer-ctc-m", 256, 4, layers=16),
]


def load_tracer(path):
    spec = importlib.util.spec_from_file_location("headroom_trace_torch", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def catalog_entry(cli, model_id):
    out = subprocess.run([cli, "models", "--json"], capture_output=True, text=True, check=True)
    entries = json.loads(out.stdout)
    entries = entries.get("entries", entries) if isinstance(entries, dict) else entries
    for entry in entries:
        if entry.get("id") == model_id:
            return entry
    return None


def scenario_for(case, model, b, size):
    s = {"headroom_scenario": 1, "model": model, "task": "train", "method": "full",
         "compute": "fp32", "optimizer": "sgd", "micro_batch": b}
    if case.get("speech"):
        # size: samples per clip, at the case's sample rate
        s["audio_seconds"] = size / case["scenario"]["sample_rate"]
    else:
        width, height = (size, size) if isinstance(size, int) else size
        s["image_size"] = [width, height] if width != height else width
    s.update(case["scenario"])
    return s


def walked(cli, scenario, tmp, measurements=None):
    path = os.path.join(tmp, "scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    args = [cli, "estimate", path, "--json"]
    if measurements:
        args += ["--measurements", measurements]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"headroom-cli estimate: {out.stderr.strip()}")
    return json.loads(out.stdout)


def inline_model(cli, case, cache):
    """The catalog's entry, or for a detector the catalog's entry as
    torchvision configures it (frozen BatchNorm, the RoIs sampled)."""
    if case["id"] not in cache:
        cache[case["id"]] = catalog_entry(cli, case["id"])
    entry = cache[case["id"]]
    if not case["arch"] and not case.get("sampled"):
        return case["id"]
    if entry is None or "components" not in entry:
        raise RuntimeError(f"{case['id']}: models --json gives no components to configure")
    entry = copy.deepcopy(entry)
    entry["id"] = "torchvision-" + case["id"]
    arch = entry["components"][0]["arch"]
    arch.update(case["arch"])
    for key, value in case.get("sampled", {}).items():
        arch[key] = max(1, int(round(value)))
    return entry


def run_case(cli, tracer, case, tmp, cache):
    failures = []
    started = time.time()
    model = None
    rows = []
    for size in case["sizes"]:
        if "build_for" in case:
            torch.manual_seed(0)
            model = case["build_for"](size)
        elif model is None:
            torch.manual_seed(0)
            model = case["build"]()
        model.train()
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
        for b in case["batches"]:
            torch.manual_seed(b)
            data = case["batch"](b, size)
            result = tracer.trace_step(torch, model, optimizer, data, case["loss"],
                                       backward=False)
            sampled = dict(case.get("sampled", {}))
            if "rois" in sampled:
                sampled["rois"] = sampled["rois"] / b
            if "mask_rois" in sampled:
                sampled["mask_rois"] = sampled["mask_rois"] / b
            rows.append((b, size, result, sampled))

    path = os.path.join(tmp, case["id"] + ".trace.csv")
    with open(path, "w") as out:
        tracer.write_header(out, {"framework": "torch", "model": case["id"],
                                  "precision": "fp32", "provenance": "traced on CPU"})
        for b, size, result, _ in rows:
            if isinstance(size, int):
                tracer.write_rows(out, b, size, result)

    worst = 0.0
    for b, size, result, sampled in rows:
        if "sampled" in case:
            case["sampled"].clear()
            case["sampled"].update(sampled)
        model_json = inline_model(cli, case, cache)
        est = walked(cli, scenario_for(case, model_json, b, size), tmp)
        walk, traced = est["walk_saved"], result["saved"]
        error = walk / traced - 1 if traced else float("inf")
        worst = max(worst, abs(error))
        label = f"{case['id']} b={b} size={size}"
        if abs(error) > TOLERANCE:
            failures.append(f"{label}: walk {walk} bytes, traced {traced} ({100 * error:+.1f}%);"
                            f" traced per module {result['modules']}")

    # the importer: the trace file read back, its ratio to the walk
    square = [r for r in rows if isinstance(r[1], int)]
    if square:
        b, size = square[0][0], square[0][1]
        model_json = inline_model(cli, case, cache)
        est = walked(cli, scenario_for(case, model_json, b, size), tmp, measurements=path)
        ratios = [m.get("trace_ratio") for m in est["measurements"] if m.get("traced_on_cpu")]
        tw = ww = 0.0
        for b2, size2, result, _ in square:
            w = walked(cli, scenario_for(case, model_json, b2, size2), tmp)["walk_saved"]
            tw += result["saved"] * w
            ww += w * w
        expected = tw / ww
        if len(ratios) != 1 or ratios[0] is None or abs(ratios[0] / expected - 1) > 1e-6:
            failures.append(f"{case['id']}: estimate --measurements TRACE gives trace_ratio "
                            f"{ratios}, the rows give {expected:.6f}")
    print(f"# {case.get('name', case['id'])}: {len(rows)} traced steps, "
          f"the walk within {100 * worst:.1f}% "
          f"({time.time() - started:.1f} s)", flush=True)
    return failures


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    cli, tracer_path = args[0], args[1]
    suite = "ci"
    names = []
    rest = args[2:]
    while rest:
        arg = rest.pop(0)
        if arg == "--suite":
            suite = rest.pop(0)
        else:
            names.append(arg)
    cases = CI_MODELS if suite == "ci" else BENCH_MODELS
    if names:
        cases = [c for c in CI_MODELS + BENCH_MODELS if c.get("name", c["id"]) in names]
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    tracer = load_tracer(tracer_path)
    failures = []
    cache = {}
    print(f"1..{len(cases)}")
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases, 1):
            try:
                problems = run_case(cli, tracer, case, tmp, cache)
            except Exception as error:  # noqa: BLE001 - reported as the case's failure
                problems = [f"{case['id']}: {type(error).__name__}: {error}"]
            print(("not ok" if problems else "ok") + f" {i} {case.get('name', case['id'])}",
                  flush=True)
            for p in problems:
                print("#   " + p, flush=True)
            failures += problems
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
