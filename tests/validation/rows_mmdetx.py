# SPDX-License-Identifier: GPL-3.0-or-later
"""mmdetection variants beside the GN and DCN families.

GroupNorm with Weight Standardization (Qiao et al. 2019, 'Weight
Standardization'), rows 4100-4111: the training memory of mmdetection's
configs/gn+ws table, on the catalog's Faster R-CNN and GN Mask R-CNN given
inline with "norm": "gn+ws".

What WS adds beside GN (hr-arch.c weight_standardize): mmcv's ConvWS2d
builds the standardized weight, (weight - mean) / (std + eps), in every
forward pass; for the backward pass the division keeps weight - mean and
the convolution the standardized weight, so every trained ConvWS2d keeps
two copies of its weight once per step (about 8 bytes a trained conv
parameter in fp32: some 250 MB for the R50 Mask R-CNN, 400 MB for R101),
which matches the README's note 'GN+WS requires about 5% more memory than
GN' (7.3 against configs/gn's 7.1 GB for R-50 Mask R-CNN, 10.3 against
9.9 for R-101).  A CPU trace of mmcv's conv_ws_2d (torch 1.13, saved_tensors_hooks,
each storage once) on a 128 x 64 x 3 x 3 weight keeps, beyond the input
and the parameter, 590,848 bytes: two weights (294,912 each) and the 128
values of std and of std + eps; with the weight frozen and the input
wanting a gradient, the standardized weight alone: ws_trace.py.

Deformable RoI pooling (Dai et al. 2017), rows 4120-4121: configs/dcn's
'dpool' and 'mdpool' Faster R-CNN R50-FPN, the catalog's entry given
inline with "roi_layer" (hr-arch.c deform_roi_pool).  Most of what they
add is parameters: SingleRoIExtractor builds one roi_layer per FPN level,
each with its own offset_fc (14.0 M parameters) and, modulated, mask_fc
(12.9 M more), which SGD with momentum keeps three times in fp32 (about
0.63 and 0.58 GiB); the pooled RoIs the fcs keep are some 80 MB more per
batch of two.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""
import copy
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = os.path.join(HERE, "..", "..", "data", "models.json")

WS_SRC = "open-mmlab/mmdetection configs/gn+ws/README.md @96eea76d"
WS_URL = ("https://github.com/open-mmlab/mmdetection/blob/96eea76da912c06e7e891c7df3d06104cd157bb8/"
          "configs/gn%2Bws/README.md")
WS_CFG = ("configs/gn+ws/{cfg}.py (faster_rcnn_r50_fpn_gn_ws-all_1x_coco.py @5f922d67, "
          "mask_rcnn_r50_fpn_gn_ws-all_2x_coco.py @11f3ca2b; the r101 and x configs inherit them): "
          "conv_cfg dict(type='ConvWS') and norm_cfg dict(type='GN', num_groups=32, requires_grad=True) in the "
          "backbone, the FPN (neck=dict(conv_cfg, norm_cfg)), a Shared4Conv1FCBBoxHead (conv_out_channels 256, "
          "conv_cfg, norm_cfg){mask}; mmcv's ConvWS2d (open-mmlab/mmcv @a8073c74 mmcv/cnn/bricks/conv_ws.py "
          "conv_ws_2d) convolves with (weight - mean) / (std + eps), a new tensor every step; the rest is the "
          "base config configs/{base}")
TORCH = ("pytorch_version 1.4, assumed: the run's PyTorch is not published; the checkpoints are dated {date} "
         "(their file names), after PyTorch 1.4 (2020-01-15) and before 1.5 (2020-04-21), so 1.4; what the walk "
         "reads of it (group_norm through batch_norm before 1.6, softmax saving its input before 1.11) is the "
         "same in every release before 1.6")


def _dcn_rows():
    """rows_dcn.py, for its ResNet parameter count."""
    spec = importlib.util.spec_from_file_location("rows_dcn_for_mmdetx", os.path.join(HERE, "rows_dcn.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gn_ws_model(base, label, depths, groups=1, width_per_group=64):
    """The catalog entry `base` with GroupNorm and Weight Standardization
    and the backbone shape given, as an inline model.  From a BatchNorm
    Faster R-CNN, GN's parameters: the FPN's eight convolutions trade
    their bias for a GroupNorm's weight and bias, and the box head becomes
    Shared4Conv1FCBBoxHead (four 3x3 convs of 256 with GN, one fc 1024 in
    place of two); WS adds none."""
    bb = _dcn_rows().bottleneck_backbone_params
    with open(CATALOG) as f:
        entry = copy.deepcopy(next(m for m in json.load(f)["entries"] if m["id"] == base))
    part = entry["components"][0]
    arch = part["arch"]
    params = part["params"] - bb(arch["depths"]) + bb(depths, groups, width_per_group)
    if arch.get("norm") != "gn":
        params += 8 * 256 + 4 * (256 * 9 * 256 + 2 * 256) - (1024 * 1024 + 1024)
        arch.pop("bn", None)
        arch["box_head"] = "4conv1fc"
    arch["norm"] = "gn+ws"
    arch["depths"] = depths
    if groups != 1:
        arch["groups"] = groups
        arch["width_per_group"] = width_per_group
    kind = "Mask R-CNN" if arch["head"] == "mask-rcnn" else "Faster R-CNN"
    source = (f"the catalog's {base} with a {label} backbone, GroupNorm and Weight Standardization "
              f"(mmdetection configs/gn+ws); parameters: the catalog's {part['params']:,}, the backbone counted "
              f"again from its shapes" +
              ("" if base.endswith("-gn") else ", the FPN's and box head's GN changes") + f": {params:,}")
    entry.update(id=f"{kind.lower().replace(' ', '-')}-{label.lower()}-fpn-gn-ws",
                 name=f"{kind} {label}-FPN GN+WS", params=params, source=source)
    part.update(name=entry["name"], params=params)
    arch["source"] = source
    for k in ("image_size", "micro_batch", "compute", "method"):
        entry.pop(k, None)
    return entry


def gn_ws_rows(mr):
    r50, r101 = [3, 4, 6, 3], [3, 4, 23, 3]
    # id, base, label, depths, groups, config, README row, GB, checkpoint date
    table = [
        (4100, "faster-rcnn-r50-fpn", "R50", r50, 1, "faster_rcnn_r50_fpn_gn_ws-all_1x_coco",
         "R-50-FPN | pytorch | GN+WS | 1x", 5.9, "2020-01-30"),
        (4101, "faster-rcnn-r50-fpn", "R101", r101, 1, "faster_rcnn_r101_fpn_gn_ws-all_1x_coco",
         "R-101-FPN | pytorch | GN+WS | 1x", 8.9, "2020-02-05"),
        (4102, "faster-rcnn-r50-fpn", "X50-32x4d", r50, 32, "faster_rcnn_x50_32x4d_fpn_gn_ws-all_1x_coco",
         "X-50-32x4d-FPN | pytorch | GN+WS | 1x", 7.0, "2020-02-03"),
        (4103, "faster-rcnn-r50-fpn", "X101-32x4d", r101, 32, "faster_rcnn_x101_32x4d_fpn_gn_ws-all_1x_coco",
         "X-101-32x4d-FPN | pytorch | GN+WS | 1x", 10.8, "2020-02-12"),
        (4104, "mask-rcnn-r50-fpn-gn", "R50", r50, 1, "mask_rcnn_r50_fpn_gn_ws-all_2x_coco",
         "R-50-FPN | pytorch | GN+WS | 2x", 7.3, "2020-02-26"),
        (4105, "mask-rcnn-r101-fpn-gn", "R101", r101, 1, "mask_rcnn_r101_fpn_gn_ws-all_2x_coco",
         "R-101-FPN | pytorch | GN+WS | 2x", 10.3, "2020-02-12"),
        (4106, "mask-rcnn-r50-fpn-gn", "X50-32x4d", r50, 32, "mask_rcnn_x50_32x4d_fpn_gn_ws-all_2x_coco",
         "X-50-32x4d-FPN | pytorch | GN+WS | 2x", 8.4, "2020-02-16"),
        (4107, "mask-rcnn-r101-fpn-gn", "X101-32x4d", r101, 32, "mask_rcnn_x101_32x4d_fpn_gn_ws-all_2x_coco",
         "X-101-32x4d-FPN | pytorch | GN+WS | 2x", 12.2, "2020-03-19"),
        (4108, "mask-rcnn-r50-fpn-gn", "R50", r50, 1, "mask_rcnn_r50_fpn_gn_ws-all_20_23_24e_coco",
         "R-50-FPN | pytorch | GN+WS | 20-23-24e", 7.3, "2020-02-13"),
        (4109, "mask-rcnn-r101-fpn-gn", "R101", r101, 1, "mask_rcnn_r101_fpn_gn_ws-all_20_23_24e_coco",
         "R-101-FPN | pytorch | GN+WS | 20-23-24e", 10.3, "2020-02-13"),
        (4110, "mask-rcnn-r50-fpn-gn", "X50-32x4d", r50, 32, "mask_rcnn_x50_32x4d_fpn_gn_ws-all_20_23_24e_coco",
         "X-50-32x4d-FPN | pytorch | GN+WS | 20-23-24e", 8.4, "2020-02-26"),
        (4111, "mask-rcnn-r101-fpn-gn", "X101-32x4d", r101, 32,
         "mask_rcnn_x101_32x4d_fpn_gn_ws-all_20_23_24e_coco", "X-101-32x4d-FPN | pytorch | GN+WS | 20-23-24e",
         12.2, "2020-03-16"),
    ]
    for rid, base, label, depths, groups, cfg, readme_row, gib, date in table:
        model = gn_ws_model(base, label, depths, groups, 4 if groups == 32 else 64)
        mask = model["components"][0]["arch"]["head"] == "mask-rcnn"
        base_cfg = ("mask_rcnn/mask_rcnn_r50_fpn_1x_coco.py" if mask else "faster_rcnn/faster_rcnn_r50_fpn_1x_coco.py")
        s = {"name": f"mmdetection {cfg}, batch 2 per GPU", "task": "train", "model": model, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
             "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "x-model": {"config": f"configs/gn+ws/{cfg}.py", "frozen_stages": 1, "norm": "GN",
                         "conv": "ConvWS"},
             "pytorch_version": "1.4"}
        notes = [mr.MM_METRIC, mr.DET_COMMON.replace(
                     "norm_eval=True (BatchNorm in eval mode, frozen statistics)",
                     "GroupNorm (32 groups) trained in the backbone, FPN and heads, every convolution before one "
                     "weight-standardized"),
                 WS_CFG.format(cfg=cfg, base=base_cfg,
                               mask=" and the mask head (mask_head=dict(conv_cfg, norm_cfg))" if mask else ""),
                 mr.MM_OUTDATED.format(date="2020-01-30 .. 2020-03-19"), TORCH.format(date=date),
                 "table read at " + WS_URL, "trained on 8 V100; card size not stated, not scored"]
        if label.startswith("X"):
            notes.append(f"the catalog has no {label} entry: the {base} entry with the ResNeXt backbone "
                         f"('depths' {depths}, 'groups' 32, 'width_per_group' 4; the config's ResNeXt, "
                         "groups 32, base_width 4)")
        elif label == "R101" and base.endswith("r50-fpn"):
            notes.append(f"the catalog has no R101 GN+WS Faster R-CNN: its R50 entry with 'depths' {depths}")
        mr.add(rid, "detector", "medium", "allocated", gib, mr.GIB, s, WS_SRC,
               f"table '{'Mask R-CNN' if mask else 'Faster R-CNN'}', row '{readme_row}', column 'Mem (GB)': "
               f"{gib}", notes)


DCN_SRC = "open-mmlab/mmdetection configs/dcn/README.md @ebe503f8"
DCN_URL = ("https://github.com/open-mmlab/mmdetection/blob/ebe503f8d8068cfbd634a84d59d0e3570116a9f9/"
           "configs/dcn/README.md")
DPOOL_CFG = ("configs/dcn/{cfg}.py @d179f325: roi_head.bbox_roi_extractor SingleRoIExtractor with roi_layer "
             "dict(_delete_=True, type='{op}', out_size=7, out_channels=256, no_trans=False, group_size=1, "
             "trans_std=0.1), featmap_strides [4, 8, 16, 32]; the op of that time, mmdet/ops/dcn/deform_pool.py "
             "@07be84ce, has mmcv's shapes (num_offset_fcs 3: Linear 7 x 7 x 256 to 1024, 1024, 2 x 7 x 7{mask}; "
             "deform_fc_channels 1024); BaseRoIExtractor.build_roi_layers makes one per stride, four; the rest is "
             "the base config configs/faster_rcnn/faster_rcnn_r50_fpn_1x_coco.py")
OUTPUT_COUNT = ("walked as mmcv's DeformRoIPoolFunction (open-mmlab/mmcv @a8073c74 mmcv/ops/deform_roi_pool.py: "
                "saves input, rois, offset); the 2020 op (mmdet/ops/dcn/deform_pool.py @07be84ce "
                "DeformRoIPoolingFunction) also kept an output_count tensor the size of its output on ctx, for the "
                "first and the second pool, 2 x 256 x 49 fp32 per RoI (about 51 MB an image at 512 RoIs), not "
                "walked: the row expects an estimate somewhat below the figure")


def dpool_model(modulated):
    """The catalog's Faster R-CNN R50-FPN with a deformable RoI pooling
    box head, inline: four levels' offset_fc (and mask_fc) more."""
    offset_fc = 12544 * 1024 + 1024 + 1024 * 1024 + 1024 + 1024 * 98 + 98
    mask_fc = 12544 * 1024 + 1024 + 1024 * 49 + 49
    with open(CATALOG) as f:
        entry = copy.deepcopy(next(m for m in json.load(f)["entries"] if m["id"] == "faster-rcnn-r50-fpn"))
    part = entry["components"][0]
    params = part["params"] + 4 * (offset_fc + (mask_fc if modulated else 0))
    what = "modulated deformable RoI pooling" if modulated else "deformable RoI pooling"
    source = (f"the catalog's faster-rcnn-r50-fpn with {what} in the box head (mmdetection configs/dcn "
              f"{'mdpool' if modulated else 'dpool'}); parameters: the catalog's {part['params']:,} plus four "
              f"levels' offset_fc ({offset_fc:,} each)" +
              (f" and mask_fc ({mask_fc:,} each)" if modulated else "") + f": {params:,}")
    part["arch"]["roi_layer"] = "modulated-deform-roi-pool" if modulated else "deform-roi-pool"
    part["arch"]["source"] = source
    entry.update(id=f"faster-rcnn-r50-fpn-{'mdpool' if modulated else 'dpool'}",
                 name=f"{entry['name']} {what}", params=params, source=source)
    part.update(name=entry["name"], params=params)
    for k in ("image_size", "micro_batch", "compute", "method"):
        entry.pop(k, None)
    return entry


def dpool_rows(mr):
    for rid, modulated, cfg, gib in ((4120, False, "faster_rcnn_r50_fpn_dpool_1x_coco", 5.0),
                                     (4121, True, "faster_rcnn_r50_fpn_mdpool_1x_coco", 5.8)):
        op = "ModulatedDeformRoIPoolingPack" if modulated else "DeformRoIPoolingPack"
        s = {"name": f"mmdetection {cfg}, batch 2 per GPU", "task": "train", "model": dpool_model(modulated),
             "method": "full", "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2,
             "image_size": [1344, 800], "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "x-model": {"config": f"configs/dcn/{cfg}.py", "frozen_stages": 1, "norm_eval": True,
                         "roi_layer": op},
             "pytorch_version": "1.4"}
        label = f"R-50-FPN | Faster | pytorch | - | {'mdpool' if modulated else 'dpool'} | 1x"
        notes = [mr.MM_METRIC, mr.DET_COMMON,
                 DPOOL_CFG.format(cfg=cfg, op=op,
                                  mask="; num_mask_fcs 2: Linear 7 x 7 x 256 to 1024, 7 x 7, Sigmoid"
                                  if modulated else ""),
                 OUTPUT_COUNT, mr.MM_OUTDATED.format(date="2020-03-07"),
                 "pytorch_version 1.4, assumed: the run's PyTorch is not published; the checkpoint is dated "
                 "2020-03-07 (its file name), after PyTorch 1.4 (2020-01-15) and before 1.5 (2020-04-21), so 1.4; "
                 "what the walk reads (softmax saving its input before 1.11) is the same in every release before "
                 "1.11", "table read at " + DCN_URL, "trained on 8 V100; card size not stated, not scored"]
        mr.add(rid, "detector", "medium", "allocated", gib, mr.GIB, s, DCN_SRC,
               f"table row '{label}', column 'Mem (GB)': {gib}", notes)


def rows(mr):
    gn_ws_rows(mr)
    dpool_rows(mr)
