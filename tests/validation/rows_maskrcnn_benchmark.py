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
COMMON = ("config/defaults.py @61ffdb38: SOLVER.IMS_PER_BATCH 16 over 8 GPUs (the table's 'im / gpu' 2), "
          "INPUT.MIN_SIZE_TRAIN 800, MAX_SIZE_TRAIN 1333 and the configs' SIZE_DIVISIBILITY 32, so the largest "
          "batch is 1344 x 800; ResNet with FrozenBatchNorm2d (BottleneckWithFixedBatchNorm), "
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
    ]
    IOU = ("pairwise_iou_keeps_corners: maskrcnn_benchmark/structures/boxlist_ops.py @464b1af1 boxlist_iou keeps "
           "lt, rb and wh alive through the IoU, as detectron2's code before @baf6667e did")
    for rid, mid, cfg, label, gib, classes, extra in table:
        s = {"name": f"maskrcnn-benchmark {cfg}, 2 images per GPU", "task": "train", "model": mid,
             "method": "full", "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2,
             "image_size": [1344, 800], "recompute": "none", "zero_grad_set_to_none": False, "gpus": 8,
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
               f"'train mem(GB)': {gib}", [METRIC, SETUP, COMMON, extra, IOU, TORCH])


# Read but not written: the R-50-C4 rows (a C4 backbone, 1 image per GPU)
# and X-101-32x8d-FPN rows (not in the catalog as detectors), the FBNet
# light-weight baselines (not in the catalog).
