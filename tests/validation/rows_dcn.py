# SPDX-License-Identifier: GPL-3.0-or-later
"""Deformable convolution (Dai et al. 2017, 'Deformable Convolutional
Networks'; Zhu et al. 2018, 'Deformable ConvNets v2'): the training memory
of mmdetection's configs/dcn table, on the catalog's Faster, Mask, Cascade
and Cascade Mask R-CNN with "dcn" on their ResNet part, given inline (the
catalog's counterpart with the bottleneck's conv2 deformable in c3-c5).

What DCN adds, per deformable conv2 (hr-arch.c deform_conv_bn_act): the
conv_offset weights (3x3, 18 x dg outputs, 27 x dg for DCNv2, with a bias),
the offset tensor the op saves (18 x dg channels at the conv's output size)
and DCNv2's sigmoid mask (9 x dg channels); the im2col columns are a
transient inside the op.  A CPU trace (torch 1.13, torchvision 0.14
torchvision.ops.deform_conv2d built as mmcv's DeformConv2dPack and
ModulatedDeformConv2dPack build theirs, saved_tensors_hooks, each storage
counted once) on a 2 x 64 x 20 x 30 input keeps, beyond the input and the
weights: 86,656 bytes for DCN (the 18-channel offset, 86,400, and
torchvision's own zero bias of 256 that mmcv does not make), 129,856 for
DCNv2 (offset and the 9-channel mask, 43,200), 518,656 for DCNv2 with 4
groups (72 + 36 channels) and 345,856 for DCN with 4 groups; the
27-channel conv_offset output is saved by nobody (chunk and cat save
nothing; the sigmoid's saved result is the mask itself): dcn_trace.py.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""
import copy
import json
import os

MM_SRC = "open-mmlab/mmdetection configs/dcn/README.md @ebe503f8"
MM_URL = ("https://github.com/open-mmlab/mmdetection/blob/ebe503f8d8068cfbd634a84d59d0e3570116a9f9/"
          "configs/dcn/README.md")
MM_DCN = ("configs/dcn/{cfg}.py: backbone dcn=dict(type='{kind}', deform_groups={dg}, fallback_on_stride=False), "
          "stage_with_dcn=(False, True, True, True): mmdet's Bottleneck builds conv2 with build_conv_layer(dcn, "
          "planes, planes, 3, stride, padding=dilation, dilation, bias=False) in stages c3-c5 "
          "(mmdet/models/backbones/resnet.py @00e97308); mmcv's {op} (open-mmlab/mmcv @a8073c74 "
          "mmcv/ops/{py}) has a zero-initialised conv_offset nn.Conv2d(in, {oc} x deform_groups, 3, stride, "
          "padding, dilation, bias=True) and saves {saved} (save_for_backward); the rest is the base config "
          "{base}")
TORCH = ("pytorch_version {v}, assumed: the run's PyTorch is not published; its checkpoint is dated {date} (its "
         "file name), {why}; what the walk reads (softmax saving its input before 1.11) is the same in every "
         "release before 1.11")

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = os.path.join(HERE, "..", "..", "data", "models.json")


def bottleneck_backbone_params(depths, groups=1, width_per_group=64):
    """mmdet's ResNet / ResNeXt with Bottleneck blocks, no fc: convs without
    bias, each followed by a BatchNorm (weight and bias)."""
    n = 3 * 64 * 49 + 2 * 64
    cin = 64
    for i, depth in enumerate(depths):
        planes = 64 << i
        width = planes * width_per_group // 64 * groups
        out = planes * 4
        for j in range(depth):
            n += cin * width + 2 * width
            n += width * (width // groups) * 9 + 2 * width
            n += width * out + 2 * out
            if j == 0:
                n += cin * out + 2 * out
            cin = out
    return n


def offset_params(depths, stages, modulated, deform_groups, groups=1, width_per_group=64):
    """The conv_offset of every deformable conv2: 3x3 from the conv's input
    channels to 18 (27 for DCNv2) x deform_groups, with a bias."""
    oc = (27 if modulated else 18) * deform_groups
    n = 0
    for i, depth in enumerate(depths):
        if stages[i]:
            width = (64 << i) * width_per_group // 64 * groups
            n += depth * (width * 9 * oc + oc)
    return n


def dcn_model(base, label, depths=None, groups=None, width_per_group=None, modulated=False, deform_groups=1):
    """The catalog entry `base` with its ResNet part's conv2 deformable in
    c3-c5, and the depth or ResNeXt shape given, as an inline model."""
    with open(CATALOG) as f:
        entry = copy.deepcopy(next(m for m in json.load(f)["entries"] if m["id"] == base))
    part = entry["components"][0]
    arch = part["arch"]
    old = bottleneck_backbone_params(arch["depths"], arch.get("groups", 1), arch.get("width_per_group", 64))
    if depths is not None:
        arch["depths"] = depths
    if groups is not None:
        arch["groups"] = groups
        arch["width_per_group"] = width_per_group
    g, wpg = arch.get("groups", 1), arch.get("width_per_group", 64)
    stages = [False, True, True, True]
    arch["dcn"] = {"stages": stages, "modulated": modulated, "deform_groups": deform_groups}
    params = (part["params"] - old + bottleneck_backbone_params(arch["depths"], g, wpg) +
              offset_params(arch["depths"], stages, modulated, deform_groups, g, wpg))
    what = (f"{'modulated ' if modulated else ''}deformable conv2 (DCN{'v2' if modulated else ''}, "
            f"deform_groups {deform_groups}) in c3-c5")
    source = (f"the catalog's {base} with the backbone {label} and a {what} (mmdetection configs/dcn); "
              f"parameters: the catalog's {part['params']:,}, the backbone counted again from its shapes, plus "
              f"each conv_offset (3x3 to {(27 if modulated else 18) * deform_groups} channels with a bias): "
              f"{params:,}")
    entry.update(id=f"{base}-{label.lower()}-dcn", name=f"{entry['name']} {label} {what}", params=params,
                 source=source)
    part.update(name=entry["name"], params=params)
    arch["source"] = source
    for k in ("image_size", "micro_batch", "compute", "method"):
        entry.pop(k, None)
    return entry


def rows(mr):
    fr = "faster_rcnn/faster_rcnn_r50_fpn_1x_coco.py"
    mk = "mask_rcnn/mask_rcnn_r50_fpn_1x_coco.py"
    cr = "cascade_rcnn/cascade_rcnn_{b}_fpn_1x_coco.py"
    cm = "cascade_rcnn/cascade_mask_rcnn_{b}_fpn_1x_coco.py"
    r101 = dict(depths=[3, 4, 23, 3])
    x32 = dict(depths=[3, 4, 23, 3], groups=32, width_per_group=4)
    # id, base entry, backbone label, shape, config, README row, GB, base config, checkpoint date, DCNv2, groups
    table = [
        (3800, "faster-rcnn-r50-fpn", "R50", {}, "faster_rcnn_r50_fpn_dconv_c3-c5_1x_coco",
         "R-50-FPN | Faster | pytorch | dconv(c3-c5)", 4.0, fr, "2020-01-30", False, 1),
        (3801, "faster-rcnn-r50-fpn", "R50", {}, "faster_rcnn_r50_fpn_mdconv_c3-c5_1x_coco",
         "R-50-FPN | Faster | pytorch | mdconv(c3-c5)", 4.1, fr, "2020-01-30", True, 1),
        (3802, "faster-rcnn-r50-fpn", "R50", {}, "faster_rcnn_r50_fpn_mdconv_c3-c5_group4_1x_coco",
         "*R-50-FPN (dg=4) | Faster | pytorch | mdconv(c3-c5)", 4.2, fr, "2020-01-30", True, 4),
        (3803, "faster-rcnn-r101-fpn", "R101", {}, "faster_rcnn_r101_fpn_dconv_c3-c5_1x_coco",
         "R-101-FPN | Faster | pytorch | dconv(c3-c5)", 6.0, "faster_rcnn/faster_rcnn_r101_fpn_1x_coco.py",
         "2020-02-03", False, 1),
        (3804, "faster-rcnn-r50-fpn", "X101-32x4d", x32, "faster_rcnn_x101_32x4d_fpn_dconv_c3-c5_1x_coco",
         "X-101-32x4d-FPN | Faster | pytorch | dconv(c3-c5)", 7.3,
         fr + " with backbone ResNeXt depth 101, groups 32, base_width 4 (the dcn config sets it)",
         "2020-02-03", False, 1),
        (3805, "mask-rcnn-r50-fpn", "R50", {}, "mask_rcnn_r50_fpn_dconv_c3-c5_1x_coco",
         "R-50-FPN | Mask | pytorch | dconv(c3-c5)", 4.5, mk, "2020-02-03", False, 1),
        (3806, "mask-rcnn-r50-fpn", "R50", {}, "mask_rcnn_r50_fpn_mdconv_c3-c5_1x_coco",
         "R-50-FPN | Mask | pytorch | mdconv(c3-c5)", 4.5, mk, "2020-02-03", True, 1),
        (3807, "mask-rcnn-r101-fpn", "R101", {}, "mask_rcnn_r101_fpn_dconv_c3-c5_1x_coco",
         "R-101-FPN | Mask | pytorch | dconv(c3-c5)", 6.5, "mask_rcnn/mask_rcnn_r101_fpn_1x_coco.py",
         "2020-02-16", False, 1),
        (3808, "cascade-rcnn-r50-fpn", "R50", {}, "cascade_rcnn_r50_fpn_dconv_c3-c5_1x_coco",
         "R-50-FPN | Cascade | pytorch | dconv(c3-c5)", 4.5, cr.format(b="r50"), "2020-01-30", False, 1),
        (3809, "cascade-rcnn-r50-fpn", "R101", r101, "cascade_rcnn_r101_fpn_dconv_c3-c5_1x_coco",
         "R-101-FPN | Cascade | pytorch | dconv(c3-c5)", 6.4, cr.format(b="r101"), "2020-02-03", False, 1),
        (3810, "cascade-mask-rcnn-r50-fpn", "R50", {}, "cascade_mask_rcnn_r50_fpn_dconv_c3-c5_1x_coco",
         "R-50-FPN | Cascade Mask | pytorch | dconv(c3-c5)", 6.0, cm.format(b="r50"), "2020-02-02", False, 1),
        (3811, "cascade-mask-rcnn-r50-fpn", "R101", r101, "cascade_mask_rcnn_r101_fpn_dconv_c3-c5_1x_coco",
         "R-101-FPN | Cascade Mask | pytorch | dconv(c3-c5)", 8.0, cm.format(b="r101"), "2020-02-04", False, 1),
        (3812, "cascade-mask-rcnn-r50-fpn", "X101-32x4d", x32,
         "cascade_mask_rcnn_x101_32x4d_fpn_dconv_c3-c5_1x_coco",
         "X-101-32x4d-FPN | Cascade Mask | pytorch | dconv(c3-c5)", 9.2, cm.format(b="x101_32x4d"),
         "2020-06-06", False, 1),
    ]
    for rid, base, label, shape, cfg, readme_row, gib, base_cfg, date, modulated, dg in table:
        model = dcn_model(base, label, modulated=modulated, deform_groups=dg, **shape)
        s = {"name": f"mmdetection {cfg}, batch 2 per GPU", "task": "train", "model": model, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
             "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "x-model": {"config": f"configs/dcn/{cfg}.py", "frozen_stages": 1, "norm_eval": True},
             "pytorch_version": "1.5" if date.startswith("2020-06") else "1.4"}
        why = ("after PyTorch 1.5 (2020-04-21) and before 1.6 (2020-07-28), so 1.5" if date.startswith("2020-06")
               else "after PyTorch 1.4 (2020-01-15) and before 1.5 (2020-04-21), so 1.4")
        notes = [mr.MM_METRIC, mr.DET_COMMON,
                 MM_DCN.format(cfg=cfg, kind="DCNv2" if modulated else "DCN", dg=dg,
                               op="ModulatedDeformConv2dPack" if modulated else "DeformConv2dPack",
                               py="modulated_deform_conv.py" if modulated else "deform_conv.py",
                               oc=27 if modulated else 18,
                               saved="input, offset, mask, weight and bias (an empty bias: bias=False)"
                               if modulated else "input, offset and weight",
                               base=f"configs/{base_cfg}"),
                 mr.MM_OUTDATED.format(date="2020-01-30 .. 2020-06-06"),
                 TORCH.format(v=s["pytorch_version"], date=date, why=why),
                 "table read at " + MM_URL, "trained on 8 V100; card size not stated, not scored"]
        if dg == 4:
            notes.append("(*) 'trained and tested on Amazon EC2 p3dn.24xlarge' (8 V100 32 GB), the README's note")
        if label != "R50" and base.endswith("r50-fpn"):
            notes.append(f"the catalog has no {label} {base.replace('-r50-fpn', '')}: its R50 entry with the "
                         f"{label} backbone ('depths' [3, 4, 23, 3]" +
                         (", 'groups' 32, 'width_per_group' 4" if "x" in label.lower() else "") + ")")
        mr.add(rid, "detector", "medium", "allocated", gib, mr.GIB, s, MM_SRC,
               f"table row '{readme_row}', column 'Mem (GB)': {gib}", notes)
