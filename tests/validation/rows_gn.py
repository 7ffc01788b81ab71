# SPDX-License-Identifier: GPL-3.0-or-later
"""GroupNorm Mask R-CNN (Wu and He 2018, 'Group Normalization'): the
training memory of mmdetection's gn-all configs (configs/gn/README.md) and
of Detectron2's mask_rcnn_R_50_FPN_3x_gn (MODEL_ZOO.md), on the catalog's
mask-rcnn-r50-fpn-gn and mask-rcnn-r101-fpn-gn ("norm": "gn",
"box_head": "4conv1fc").

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

MM_SRC = "open-mmlab/mmdetection configs/gn/README.md @7e5efb98"
MM_URL = ("https://github.com/open-mmlab/mmdetection/blob/7e5efb9897cbbe472555788306dcf31f874a94f5/"
          "configs/gn/README.md")
MM_GN = ("configs/gn/mask_rcnn_r50_fpn_gn-all_2x_coco.py @ca2f67f7 (the r101 and contrib configs inherit it): "
         "norm_cfg dict(type='GN', num_groups=32, requires_grad=True) in the backbone, the FPN "
         "(neck=dict(norm_cfg=norm_cfg)), a Shared4Conv1FCBBoxHead (conv_out_channels 256, norm_cfg) and the "
         "mask head (mask_head=dict(norm_cfg=norm_cfg)); frozen_stages=1 and norm_eval=True come from the base "
         "config, and norm_eval only puts _BatchNorm layers in eval mode, so every GroupNorm past stage 1 "
         "trains; Resize (1333, 800) keep_ratio, Pad size_divisor 32; base config samples_per_gpu 2")
TORCH_OLD = ("pytorch_version {v}: before PyTorch 1.6 group_norm ran batch_norm on the reshaped input and an "
             "addcmul with the weight (aten/src/ATen/native/Normalization.cpp group_norm), which keeps the "
             "normalized tensor too; native_group_norm came with pytorch/pytorch PR #28204 (merged 2020-06, "
             "pytorch/xla issue #2126) and PR #46170 names 'the impl via BatchNorm before PyTorch 1.5.1'. {why}")

D2_SRC = "facebookresearch/detectron2 MODEL_ZOO.md @8b0953c0"
D2_URL = ("https://github.com/facebookresearch/detectron2/blob/8b0953c0dbae0bc48d4f244c25f310cf8ebfbf78/"
          "MODEL_ZOO.md")
D2_GN = ("configs/Misc/mask_rcnn_R_50_FPN_3x_gn.yaml @02b5c4e2: RESNETS.NORM GN, FPN.NORM GN, ROI_BOX_HEAD "
         "FastRCNNConvFCHead NUM_CONV 4 NUM_FC 1 NORM GN, ROI_MASK_HEAD.NORM GN, STRIDE_IN_1X1 False, "
         "weights R-50-GN; BACKBONE.FREEZE_AT 2 from Base-RCNN-FPN (stem and res2 frozen; freezing turns only "
         "BatchNorm into FrozenBatchNorm2d, the GroupNorms stay GroupNorm); detectron2/layers/batch_norm.py "
         "get_norm 'GN': nn.GroupNorm(32, channels)")

# Read but not written: Detectron2's scratch_mask_rcnn_R_50_FPN_3x_gn / 9x_gn
# (7.2 GB) train with BACKBONE.FREEZE_AT 0, which the catalog's entry
# (frozen_stages 1) does not say.  The configs/gn+ws rows (GroupNorm with
# weight standardization) are rows_mmdetx.py's.


def rows(mr):
    mm = [
        (3750, "mask-rcnn-r50-fpn-gn", "mask_rcnn_r50_fpn_gn-all_2x_coco", "R-50-FPN (d) | Mask R-CNN | 2x", 7.1),
        (3751, "mask-rcnn-r50-fpn-gn", "mask_rcnn_r50_fpn_gn-all_3x_coco", "R-50-FPN (d) | Mask R-CNN | 3x", 7.1),
        (3752, "mask-rcnn-r101-fpn-gn", "mask_rcnn_r101_fpn_gn-all_2x_coco", "R-101-FPN (d) | Mask R-CNN | 2x", 9.9),
        (3753, "mask-rcnn-r101-fpn-gn", "mask_rcnn_r101_fpn_gn-all_3x_coco", "R-101-FPN (d) | Mask R-CNN | 3x", 9.9),
        (3754, "mask-rcnn-r50-fpn-gn", "mask_rcnn_r50_fpn_gn-all_contrib_2x_coco", "R-50-FPN (c) | Mask R-CNN | 2x",
         7.1),
        (3755, "mask-rcnn-r50-fpn-gn", "mask_rcnn_r50_fpn_gn-all_contrib_3x_coco", "R-50-FPN (c) | Mask R-CNN | 3x",
         7.1),
    ]
    for rid, mid, cfg, label, gib in mm:
        s = {"name": f"mmdetection {cfg}, batch 2 per GPU", "task": "train", "model": mid, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
             "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "x-model": {"config": f"configs/gn/{cfg}.py", "frozen_stages": 1, "norm": "GN"},
             "pytorch_version": "1.5"}
        notes = [mr.MM_METRIC, mr.DET_COMMON.replace(
                     "norm_eval=True (BatchNorm in eval mode, frozen statistics)",
                     "GroupNorm (32 groups) trained in the backbone, FPN and heads"),
                 MM_GN, mr.MM_OUTDATED.format(date="2020-02 and 2020-05"), TORCH_OLD.format(
                     v="1.5, assumed", why="The run's PyTorch is not published; the checkpoints are dated "
                     "2020-02-05 .. 2020-05-13 (their file names), before PyTorch 1.6 (2020-07-28), so at most "
                     "1.5; every release before 1.6 saves the same"), "table read at " + MM_URL,
                 "trained on 8 V100; card size not stated, not scored"]
        if "contrib" in cfg:
            notes.append("(c): the backbone pretrained by a contributor (open-mmlab://contrib/resnet50_gn), the "
                         "same network")
        mr.add(rid, "detector", "low", "allocated", gib, mr.GIB, s, MM_SRC,
               f"table row '{label}', column 'Mem (GB)': {gib}", notes)
    s = {"name": "detectron2 mask_rcnn_R_50_FPN_3x_gn, 2 images per GPU", "task": "train",
         "model": "mask-rcnn-r50-fpn-gn", "method": "full", "compute": "fp32", "optimizer": "sgd-momentum",
         "micro_batch": 2, "image_size": [1344, 800], "gpus": 8, "sharding": "ddp", "recompute": "none",
         "framework": "pytorch", "detection_framework": "detectron2",
         "x-model": {"config": "configs/Misc/mask_rcnn_R_50_FPN_3x_gn.yaml", "freeze_at": 2, "norm": "GN"},
         "pytorch_version": "1.3"}
    mr.add(3760, "detector", "medium", "allocated", 5.6, mr.GIB, s, D2_SRC,
           "'Group Normalization' table ('Baseline R50-FPN', 'GN', ...), row 'GN' "
           "(mask_rcnn_R_50_FPN_3x_gn), column 'train mem (GB)': 5.6",
           [mr.D2_METRIC, mr.D2_COMMON.replace("MSRA ResNet weights with RESNETS.NORM FrozenBN and ",
                                               "").replace("(stem and res2 frozen", "(stem and res2 frozen"),
            D2_GN, TORCH_OLD.format(
                v="1.3, assumed", why="The run's PyTorch is not published; the row is in MODEL_ZOO.md from "
                "detectron2's initial commit (989f52d6, 2019-10-10), model id 138602888, so it ran on PyTorch 1.3 "
                "at the latest (released 2019-10-10); every release before 1.6 saves the same"),
            mr.D2_IOU_LATER.format("7.3 at @989f52d6, 5.6 from @01dab47e (2020-06-10, 'update speed for "
                                   "GN/SyncBN')"),
            "table read at " + D2_URL, "card size not stated (V100, 16 or 32 GB), not scored"])
