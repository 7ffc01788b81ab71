# SPDX-License-Identifier: GPL-3.0-or-later
"""maskrcnn-benchmark (facebookresearch/maskrcnn-benchmark): the training
memory of its end-to-end Faster, Mask and Keypoint R-CNN FPN baselines, as
its MODEL_ZOO.md gives it (the PyTorch 1.0 predecessor of Detectron2).

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "facebookresearch/maskrcnn-benchmark MODEL_ZOO.md @464b1af1"
METRIC = ("metric allocated: maskrcnn_benchmark/engine/trainer.py (@61ffdb38, the initial release the R-CNN rows "
          "come with) logs 'max mem: {memory:.0f}' with memory = torch.cuda.max_memory_allocated() / 1024.0 / "
          "1024.0 (MiB), never reset; the table's 'train mem(GB)' taken as that MiB / 1024 (GiB), as Detectron2's "
          "zoo, which inherits the format, prints it (the unit is the assumption)")
SETUP = ("MODEL_ZOO.md 'Hardware: 8 NVIDIA V100 GPUs', 'PyTorch version: 1.0.0a0+dd2c487', CUDA 9.2; the card size "
         "is not stated: not scored")
BATCH2 = ("config/defaults.py @61ffdb38: SOLVER.IMS_PER_BATCH 16 over 8 GPUs (the table's 'im / gpu' 2), "
          "INPUT.MIN_SIZE_TRAIN 800, MAX_SIZE_TRAIN 1333 and the configs' SIZE_DIVISIBILITY 32, so the largest "
          "batch is 1344 x 800")
COMMON = ("config/defaults.py @61ffdb38: INPUT.MIN_SIZE_TRAIN 800, MAX_SIZE_TRAIN 1333; ResNet with "
          "FrozenBatchNorm2d (BottleneckWithFixedBatchNorm), "
          "FREEZE_CONV_BODY_AT 2 (stem and stage 1 frozen), STRIDE_IN_1X1 (the MSRA weights), the losses in "
          "Python: the design Detectron2 kept, so detection_framework detectron2; RPN 2000 proposals after NMS "
          "in training (FPN_POST_NMS_TOP_N_TRAIN), the RoI head samples 512 per image with 25% positives "
          "(ROI_HEADS.BATCH_SIZE_PER_IMAGE, POSITIVE_FRACTION); ROI_BOX_HEAD.NUM_CLASSES 81 with the background "
          "(80 foreground); SGD momentum 0.9, fp32 (apex AMP came to trainer.py later); trainer.py calls "
          "optimizer.zero_grad() before losses.backward(), on PyTorch 1.0 keeping every gradient allocated: "
          "zero_grad_set_to_none false; DistributedDataParallel")


TORCH = ("pytorch_version 1.0: 'PyTorch version: 1.0.0a0+dd2c487' (MODEL_ZOO.md), before pytorch/pytorch PR #16583 "
         "(2019-01-30) made the autograd code save an input only where a gradient needs it: the training-mode "
         "FrozenBatchNorm2d (maskrcnn_benchmark/layers/batch_norm.py, x * scale + bias with buffers) then keeps "
         "its input, the convolution's output, in every trained stage")


C4 = ("C4: configs/e2e_*_R_50_C4_1x.yaml on config/defaults.py @61ffdb38: ResNet-50 to res4 (stride 16) with "
      "FrozenBatchNorm2d, the RPN on res4 alone with 15 anchors a position (ANCHOR_SIZES (32, 64, 128, 256, 512), "
      "three ratios), 2000 proposals after NMS in training, the RoI head pooling 14 x 14 from res4 and running "
      "res5 on every sampled RoI (ResNet50Conv5ROIFeatureExtractor, 512 RoIs an image): the catalog's C4 "
      "detector; one image per GPU (the table's 'im / gpu' 1) and SIZE_DIVISIBILITY 0, so the largest input is "
      "1333 x 800")
X101 = ("ResNeXt-101 32x8d FPN: configs/e2e_*_X_101_32x8d_FPN_1x.yaml (RESNETS.NUM_GROUPS 32, WIDTH_PER_GROUP 8, "
        "STRIDE_IN_1X1 False, FAIR's X-101-32x8d ImageNet weights, SIZE_DIVISIBILITY 32, IMS_PER_BATCH 8 over 8 "
        "GPUs: one image per GPU, the table's 'im / gpu' 1); FPN, RPN and box head as the R-50-FPN rows")


def rows(mr):
    # (row, catalog model, config, table label, GiB, foreground classes, note)
    table = [
        (3531, "faster-rcnn-r50-fpn", "e2e_faster_rcnn_R_50_FPN_1x", "R-50-FPN | Fast", 4.4, 80, "Faster R-CNN"),
        (3532, "faster-rcnn-r101-fpn", "e2e_faster_rcnn_R_101_FPN_1x", "R-101-FPN | Fast", 7.1, 80,
         "Faster R-CNN, ResNet-101"),
        (3533, "mask-rcnn-r50-fpn", "e2e_mask_rcnn_R_50_FPN_1x", "R-50-FPN | Mask", 5.2, 80,
         "Mask R-CNN: MASK_ON, mask head pooled at 14 x 14, 28 x 28 masks on the positive RoIs"),
        (3534, "mask-rcnn-r101-fpn", "e2e_mask_rcnn_R_101_FPN_1x", "R-101-FPN | Mask", 7.9, 80,
         "Mask R-CNN, ResNet-101"),
        (3535, "keypoint-rcnn-r50-fpn", "e2e_keypoint_rcnn_R_50_FPN_1x", "R-50-FPN | Keypoint", 5.7, 1,
         "Keypoint R-CNN (added in e0a525a0, 2019-02-12): NUM_CLASSES 2 (person and background), KEYPOINT_ON, "
         "keypoint head pooled at 14 x 14 with 56 x 56 heatmaps, MIN_SIZE_TRAIN (640 ... 800), so the largest "
         "batch is still 1344 x 800; the table's keypoint section"),
        # one image per GPU (the table's 'im / gpu' 1): IMS_PER_BATCH 8 over 8 GPUs
        (3536, "faster-rcnn-r50-c4", "e2e_faster_rcnn_R_50_C4_1x", "R-50-C4 | Fast", 5.8, 80, C4),
        (3537, "mask-rcnn-r50-c4", "e2e_mask_rcnn_R_50_C4_1x", "R-50-C4 | Mask", 5.8, 80,
         C4 + "; MASK_ON with ROI_MASK_HEAD.SHARE_BOX_FEATURE_EXTRACTOR True and MaskRCNNC4Predictor: the mask "
         "head's deconvolution and per-class 14 x 14 logits on res5's features of the positive RoIs, as "
         "detectron2's Res5ROIHeads (the catalog's mask-rcnn-c4 head)"),
        (3538, "faster-rcnn-x101-32x8d-fpn", "e2e_faster_rcnn_X_101_32x8d_FPN_1x", "X-101-32x8d-FPN | Fast", 7.6,
         80, X101),
        (3539, "mask-rcnn-x101-32x8d-fpn", "e2e_mask_rcnn_X_101_32x8d_FPN_1x", "X-101-32x8d-FPN | Mask", 7.8, 80,
         X101 + "; MASK_ON, the FPN mask head pooled at 14 x 14 (MaskRCNNFPNFeatureExtractor)"),
    ]
    IOU = ("pairwise_iou_keeps_corners: maskrcnn_benchmark/structures/boxlist_ops.py @464b1af1 boxlist_iou keeps "
           "lt, rb and wh alive through the IoU, as detectron2's code before @baf6667e did")
    for rid, mid, cfg, label, gib, classes, extra in table:
        images = 1 if rid >= 3536 else 2
        # C4 configs leave SIZE_DIVISIBILITY at 0: one image is at most 1333 x 800
        size = [1333, 800] if "_C4_" in cfg else [1344, 800]
        s = {"name": f"maskrcnn-benchmark {cfg}, {images} image{'s' if images > 1 else ''} per GPU", "task": "train",
             "model": mid, "method": "full", "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": images,
             "image_size": size, "recompute": "none", "zero_grad_set_to_none": False, "gpus": 8,
             "sharding": "ddp", "offload": "none", "framework": "pytorch", "detection_framework": "detectron2",
             "x-model": {"config": f"configs/{cfg}.yaml", "freeze_conv_body_at": 2, "norm": "FrozenBatchNorm2d"}}
        if classes != 80:
            s["num_classes"] = classes
        # boxlist_iou keeps lt, rb and wh as detectron2's first code did
        s["pairwise_iou_keeps_corners"] = True
        # the PyTorch MODEL_ZOO.md names
        s["pytorch_version"] = "1.0"
        mr.add(rid, "detector", "medium", "allocated", gib, mr.GIB, s, SRC,
               f"'End-to-end Faster and Mask R-CNN baselines' table, row '{label} | 1x', column "
               f"'train mem(GB)': {gib}", [METRIC, SETUP] + ([BATCH2] if images == 2 else []) + [COMMON, extra, IOU, TORCH])


# Read but not written: the FBNet light-weight baselines (not in the
# catalog).
