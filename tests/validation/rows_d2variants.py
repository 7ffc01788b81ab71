# SPDX-License-Identifier: GPL-3.0-or-later
"""detectron2's Mask R-CNN C4 and DC5 baselines and its ResNeXt-101 32x8d
FPN detectors: the training memory of MODEL_ZOO.md's COCO tables, on the
catalog's mask-rcnn-r50-c4, -r101-c4, -r50-dc5, -r101-dc5 ("head":
"mask-rcnn-c4" and "mask-rcnn-dc5") and faster-rcnn-x101-32x8d-fpn,
mask-rcnn-x101-32x8d-fpn.

What the mask heads keep (hr-arch.c mask_head, res5_roi_head), checked
against a CPU trace of the heads rebuilt from detectron2's source
(d2variants_trace.py): 603,696 bytes a positive RoI on C4 (the walk
602,112) and 3,217,552 on DC5 (the walk 3,211,264), the difference the
mask loss's picked logits and targets.

Read but not written: rpn_R_50_C4_1x (the C4 RPN alone, no head for it),
LVISv0.5 mask_rcnn_X_101_32x8d_FPN_1x and keypoint_rcnn_X_101_32x8d_FPN_3x
(no catalog entry for those heads on this backbone); the RetinaNet table
has no X101 row.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

D2_URL = ("https://github.com/facebookresearch/detectron2/blob/8b0953c0dbae0bc48d4f244c25f310cf8ebfbf78/"
          "MODEL_ZOO.md")
C4_MASK = ("C4 with MASK_ON (configs/COCO-InstanceSegmentation/{cfg}.yaml @02b5c4e2 on Base-RCNN-C4.yaml, "
           "MIN_SIZE_TRAIN (640..800)): ResNet to res4, RPN on res4 with 15 anchors, Res5ROIHeads running res5 on "
           "the 512 RoIs per image pooled to 14 x 14; the mask head on res5's 2048 x 7 x 7 output of the positive "
           "RoIs (box_features[fg_selection_masks], up to 128 per image: BATCH_SIZE_PER_IMAGE 512 x "
           "POSITIVE_FRACTION 0.25), MaskRCNNConvUpsampleHead with NUM_CONV 0 (config/defaults.py): a 2x "
           "deconvolution to 256 channels and the 80 per-class 14 x 14 logits (the catalog's mask-rcnn-c4 head)")
DC5_MASK = ("DC5 with MASK_ON (configs/COCO-InstanceSegmentation/{cfg}.yaml @02b5c4e2 on Base-RCNN-DilatedC5.yaml, "
            "MIN_SIZE_TRAIN (640..800)): res5 dilated (RES5_DILATION 2, stride 16), RPN on res5 with 15 anchors, "
            "the two-FC box head on 7 x 7 RoIs of res5's 2048 channels, and ROI_MASK_HEAD "
            "MaskRCNNConvUpsampleHead with NUM_CONV 4 on 14 x 14 RoIs of res5 (POOLER_RESOLUTION 14) for the "
            "positive RoIs, up to 128 per image (the catalog's mask-rcnn-dc5 head)")
X101 = ("configs/COCO-{task}/{cfg}.yaml @02b5c4e2 on Base-RCNN-FPN.yaml: RESNETS.DEPTH 101, NUM_GROUPS 32, "
        "WIDTH_PER_GROUP 8, STRIDE_IN_1X1 False (the stride in the grouped 3x3, as the walk's bottleneck has it), "
        "FAIR's X-101-32x8d.pkl weights (PIXEL_STD changes nothing in memory); FPN, RPN and StandardROIHeads of "
        "the R50-FPN configs{mask}, 3x schedule")


def rows(mr):
    table = [
        (4050, "mask-rcnn-r50-c4", "mask_rcnn_R_50_C4_1x", "R50-C4 (1x)", 5.2, C4_MASK, "1x schedule"),
        (4051, "mask-rcnn-r50-c4", "mask_rcnn_R_50_C4_3x", "R50-C4 (3x)", 5.2, C4_MASK, "3x schedule"),
        (4052, "mask-rcnn-r101-c4", "mask_rcnn_R_101_C4_3x", "R101-C4 (3x)", 6.3, C4_MASK,
         "ResNet-101 (RESNETS.DEPTH 101), 3x schedule"),
        (4053, "mask-rcnn-r50-dc5", "mask_rcnn_R_50_DC5_1x", "R50-DC5 (1x)", 6.5, DC5_MASK, "1x schedule"),
        (4054, "mask-rcnn-r50-dc5", "mask_rcnn_R_50_DC5_3x", "R50-DC5 (3x)", 6.5, DC5_MASK, "3x schedule"),
        (4055, "mask-rcnn-r101-dc5", "mask_rcnn_R_101_DC5_3x", "R101-DC5 (3x)", 7.6, DC5_MASK,
         "ResNet-101 (RESNETS.DEPTH 101), 3x schedule"),
    ]
    for rid, mid, cfg, label, gib, head, extra in table:
        s = mr.d2_iou_2019(scenario(mid, cfg, "COCO-InstanceSegmentation"))
        mr.add(rid, "detector", "medium", "allocated", gib, mr.GIB, s, mr.D2_SRC,
               f"'COCO Instance Segmentation Baselines with Mask R-CNN' table, row '{label}' ({cfg}), "
               f"column 'train mem (GB)': {gib}",
               [mr.D2_METRIC, mr.D2_COMMON, head.format(cfg=cfg), extra, mr.D2_IOU_2019, "table read at " + D2_URL,
                "card size not stated (V100, 16 or 32 GB), not scored"])
    xs = [
        (4056, "faster-rcnn-x101-32x8d-fpn", "COCO-Detection", "faster_rcnn_X_101_32x8d_FPN_3x",
         "'COCO Object Detection Baselines' table, Faster R-CNN", 6.7, ""),
        (4057, "mask-rcnn-x101-32x8d-fpn", "COCO-InstanceSegmentation", "mask_rcnn_X_101_32x8d_FPN_3x",
         "'COCO Instance Segmentation Baselines with Mask R-CNN' table", 7.2,
         " with MASK_ON (the 4-conv mask head on 14 x 14 RoIs of the positive proposals)"),
    ]
    for rid, mid, task, cfg, where, gib, mask in xs:
        s = mr.d2_iou_2019(scenario(mid, cfg, task))
        mr.add(rid, "detector", "medium", "allocated", gib, mr.GIB, s, mr.D2_SRC,
               f"{where}, row 'X101-FPN' ({cfg}), column 'train mem (GB)': {gib}",
               [mr.D2_METRIC, mr.D2_COMMON, X101.format(task=task.split("-")[1], cfg=cfg, mask=mask),
                mr.D2_IOU_2019, "table read at " + D2_URL, "card size not stated (V100, 16 or 32 GB), not scored"])


def scenario(mid, cfg, task):
    return {"name": f"detectron2 {cfg}, 2 images per GPU", "task": "train", "model": mid, "method": "full",
            "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
            "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
            "detection_framework": "detectron2",
            "x-model": {"config": f"configs/{task}/{cfg}.yaml", "freeze_at": 2, "norm": "FrozenBN"}}
