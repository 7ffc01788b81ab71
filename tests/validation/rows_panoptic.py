# SPDX-License-Identifier: GPL-3.0-or-later
"""Panoptic FPN (Kirillov et al. 2019, 'Panoptic Feature Pyramid
Networks'): the training memory of detectron2's COCO panoptic baselines
(MODEL_ZOO.md), on the catalog's panoptic-fpn-r50 and panoptic-fpn-r101
("head": "panoptic-fpn": Mask R-CNN plus SemSegFPNHead).

What the semantic head adds (hr-arch.c sem_seg_head): for one 1344 x 800
image in fp32, 424,705,792 bytes saved beyond the FPN levels, which a CPU
trace of the head rebuilt from detectron2's source matches
(panoptic_trace.py: 424,705,804, nll_loss's two scalars beside), most of it
the 54-class log-softmax at full resolution (232 MB) and the p2 tower.

Row 3853, Misc/panoptic_fpn_R_101_dconv_cascade_gn_3x (11.4 GB), is the
catalog's panoptic-fpn-r101 given inline with GroupNorm, deformable
convolutions in res3-res5 and three cascade stages.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = os.path.join(HERE, "..", "..", "data", "models.json")

D2_URL = ("https://github.com/facebookresearch/detectron2/blob/8b0953c0dbae0bc48d4f244c25f310cf8ebfbf78/"
          "MODEL_ZOO.md")
D2_PANOPTIC = ("configs/COCO-PanopticSegmentation/{cfg}.yaml @02b5c4e2 on Base-Panoptic-FPN.yaml: "
               "META_ARCHITECTURE PanopticFPN, MASK_ON, SEM_SEG_HEAD.LOSS_WEIGHT 0.5, the rest of the head from "
               "config/defaults.py (SemSegFPNHead on p2-p5, CONVS_DIM 128, COMMON_STRIDE 4, NORM GN, NUM_CLASSES "
               "54, IGNORE_VALUE 255); Base-RCNN-FPN.yaml's MIN_SIZE_TRAIN (640..800) and ROI_HEADS 80 classes; "
               "PanopticFPN.forward (modeling/meta_arch/panoptic_fpn.py) runs the semantic head, then the RPN and "
               "the RoI heads; the sem_seg target is an int64 label map padded to the images' size")
TORCH = ("pytorch_version 1.3, assumed: the run's PyTorch is not published; the rows are in MODEL_ZOO.md from "
         "detectron2's initial commit (989f52d6, 2019-10-10) with the same train mem, so they ran on PyTorch 1.3 at "
         "the latest (released 2019-10-10); what the walk reads of it (GroupNorm through batch_norm before 1.6, "
         "log_softmax saving its input before 1.11) is the same in every release before 1.6")


def rows(mr):
    table = [
        (3850, "panoptic-fpn-r50", "panoptic_fpn_R_50_1x", "R50-FPN (1x)", 4.8, "1x schedule"),
        (3851, "panoptic-fpn-r50", "panoptic_fpn_R_50_3x", "R50-FPN (3x)", 4.8, "3x schedule"),
        (3852, "panoptic-fpn-r101", "panoptic_fpn_R_101_3x", "R101-FPN (3x)", 6.0, "ResNet-101 (RESNETS.DEPTH 101), "
         "3x schedule"),
    ]
    for rid, mid, cfg, label, gib, extra in table:
        s = {"name": f"detectron2 {cfg}, 2 images per GPU", "task": "train", "model": mid, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
             "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "detection_framework": "detectron2",
             "x-model": {"config": f"configs/COCO-PanopticSegmentation/{cfg}.yaml", "freeze_at": 2,
                         "norm": "FrozenBN"},
             "pytorch_version": "1.3"}
        mr.add(rid, "detector", "medium", "allocated", gib, mr.GIB, mr.d2_iou_2019(s), mr.D2_SRC,
               f"'COCO Panoptic Segmentation Baselines with Panoptic FPN' table, row '{label}' ({cfg}), "
               f"column 'train mem (GB)': {gib}",
               [mr.D2_METRIC, mr.D2_COMMON, D2_PANOPTIC.format(cfg=cfg), extra, TORCH, mr.D2_IOU_2019,
                "table read at " + D2_URL,
                "card size not stated (V100, 16 or 32 GB), not scored"])
    misc_rows(mr)


MISC_CFG = "panoptic_fpn_R_101_dconv_cascade_gn_3x"
MISC = ("configs/Misc/panoptic_fpn_R_101_dconv_cascade_gn_3x.yaml @989f52d6 on Base-Panoptic-FPN.yaml: "
        "RESNETS.DEPTH 101, NORM GN (weights FAIR/R-101-GN), DEFORM_ON_PER_STAGE [False, True, True, True] with "
        "config/defaults.py's DEFORM_MODULATED False and DEFORM_NUM_GROUPS 1 (DCN, one offset group, in res3-res5), "
        "STRIDE_IN_1X1 False, FPN.NORM GN, ROI_HEADS.NAME CascadeROIHeads (three stages, one mask head on the "
        "first stage's proposals), ROI_BOX_HEAD.CLS_AGNOSTIC_BBOX_REG True with Base-RCNN-FPN's two-fc box head "
        "(no norm), ROI_MASK_HEAD.NORM GN, RPN.POST_NMS_TOPK_TRAIN 2000; the semantic head as the other rows; "
        "the catalog's panoptic-fpn-r101 given inline with \"norm\": \"gn\", \"dcn\" and \"cascade_stages\" 3; "
        "parameters: 93,950,192, which hr-arch counts from these shapes (the catalog entry's 65,019,238, the three "
        "cascade box heads with class-agnostic boxes, each conv_offset 3x3 to 18 channels with a bias, and GN's "
        "affine parameters beside FPN and mask-head convolutions without bias)")
MISC_BATCH = ("SOLVER.IMS_PER_BATCH 32, and MODEL_ZOO.md: 'A few very large models trained for a long time, for demo "
              "purposes. They are trained using multiple machines': taken as two Big Basin servers of 8 V100, 16 "
              "GPUs, so 2 images per GPU as in the rest of the zoo (assumption: the number of machines is not "
              "stated; four would make it 1)")


def misc_model():
    with open(CATALOG) as f:
        entry = copy.deepcopy(next(m for m in json.load(f)["entries"] if m["id"] == "panoptic-fpn-r101"))
    part = entry["components"][0]
    arch = part["arch"]
    arch.pop("bn", None)
    arch.update(norm="gn", dcn={"stages": [False, True, True, True], "modulated": False, "deform_groups": 1},
                cascade_stages=3)
    name = "Panoptic FPN R101 with GroupNorm, DCN in res3-res5 and a 3-stage cascade"
    entry.update(id="panoptic-fpn-r101-dconv-cascade-gn", name=name, params=93950192, source=MISC)
    part.update(name=name, params=93950192)
    arch["source"] = MISC
    for k in ("image_size", "micro_batch", "compute", "method"):
        entry.pop(k, None)
    return entry


def misc_rows(mr):
    s = {"name": f"detectron2 {MISC_CFG}, 2 images per GPU", "task": "train", "model": misc_model(),
         "method": "full", "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2,
         "image_size": [1344, 800], "gpus": 16, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
         "detection_framework": "detectron2", "x-model": {"config": f"configs/Misc/{MISC_CFG}.yaml",
                                                         "freeze_at": 2, "norm": "GN"},
         "pytorch_version": "1.3"}
    mr.add(3853, "detector", "medium", "allocated", 11.4, mr.GIB, mr.d2_iou_2019(s), mr.D2_SRC,
           f"table of 'A few very large models', row 'Panoptic FPN R101' ({MISC_CFG}), column 'train mem (GB)': 11.4",
           [mr.D2_METRIC, MISC, MISC_BATCH, D2_PANOPTIC.format(cfg=MISC_CFG), TORCH, mr.D2_IOU_2019,
            "table read at " + D2_URL, "card size not stated (V100, 16 or 32 GB), not scored"])
