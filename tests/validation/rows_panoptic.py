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

Read but not written: Misc/panoptic_fpn_R_101_dconv_cascade_gn_3x (11.4 GB),
a Cascade R-CNN with deformable convolutions and GroupNorm under the
panoptic head, which the catalog has no entry for.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

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
