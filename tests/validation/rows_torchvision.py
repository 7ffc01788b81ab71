# SPDX-License-Identifier: GPL-3.0-or-later
"""torchvision (pytorch/vision): the training memory of its detection
models, as the 'Runtime characteristics' table of its model documentation
gives it.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "pytorch/vision docs/source/models.rst @00542d95"
METRIC = ("metric allocated (assumption: the table does not name it): references/detection/utils.py "
          "(pytorch/vision @227111b6) MetricLogger.log_every prints 'max mem: {memory:.0f}' with memory = "
          "torch.cuda.max_memory_allocated() / MB, MB = 1024.0 * 1024.0, the only memory figure the reference "
          "scripts log; the table's 'memory (GB)' taken as that MiB / 1024 (GiB), as the detection zoos print "
          "it; never reset, so the peak of the run on the GPU that printed it (rank 0)")
SETUP = ("'we use 8 V100 GPUs, with CUDA 10.0 and CUDNN 7.4 to report the results. During training, we use a "
         "batch size of 2 per GPU' (models.rst, 'Runtime characteristics'); the card size is not stated "
         "(16 or 32 GB): not scored")
RUN = ("references/detection/README.md (pytorch/vision @04ec56a3): torch.distributed.launch --nproc_per_node=8 "
       "train.py --dataset coco --model <model> --aspect-ratio-group-factor 3 (default --batch-size 2, SGD "
       "momentum 0.9, weight decay 1e-4, no --amp: fp32); engine.py train_one_epoch calls optimizer.zero_grad() "
       "before losses.backward(), on PyTorch 1.x (CUDA 10.0) keeping every gradient allocated: "
       "zero_grad_set_to_none false; DistributedDataParallel")
MODEL = ("torchvision.models.detection builds the ResNet-50 FPN backbone from ImageNet weights with "
         "FrozenBatchNorm2d, the stem and layer1 frozen (resnet_fpn_backbone), so detection_framework "
         "torchvision; GeneralizedRCNNTransform resizes each image to a short side of 800 and a long side of at "
         "most 1333 and pads the batch to a multiple of 32 (size_divisible=32): the largest batch is 1344 x "
         "800, grouped by aspect ratio (group factor 3)")


def rows(mr):
    # (row, catalog model, table row, GB, num_classes as the scenario counts them, note)
    table = [
        (3521, "faster-rcnn-r50-fpn", "Faster R-CNN ResNet-50 FPN", 5.2, 90,
         "fasterrcnn_resnet50_fpn(num_classes=91): 91 outputs with the background, 90 foreground classes "
         "(COCO's 80 and the N/A slots of the 91-id list); RPN keeps 2000 proposals per image in training "
         "(rpn_post_nms_top_n_train), of which the RoI head samples 512 (box_batch_size_per_image)"),
        (3522, "retinanet-r50-fpn", "RetinaNet ResNet-50 FPN", 4.1, 91,
         "retinanet_resnet50_fpn(num_classes=91): a sigmoid logit for each of the 91 ids at each of 9 anchors "
         "per location (RetinaNetClassificationHead, no background logit), focal loss computed in Python "
         "(torchvision.ops.sigmoid_focal_loss)"),
        (3523, "mask-rcnn-r50-fpn", "Mask R-CNN ResNet-50 FPN", 5.4, 90,
         "maskrcnn_resnet50_fpn(num_classes=91): Faster R-CNN's heads plus the 28 x 28 mask head on the "
         "positive RoIs (at most 128 of the 512 sampled per image)"),
        (3524, "keypoint-rcnn-r50-fpn", "Keypoint R-CNN ResNet-50 FPN", 6.8, 1,
         "keypointrcnn_resnet50_fpn(num_classes=2, num_keypoints=17): person and background (1 foreground "
         "class); KeypointRCNN trains at min_size (640, 672, ..., 800), so the largest batch is still 1344 x 800; "
         "the keypoint head (8 convolutions of 512 channels at 14 x 14, upsampled to 56 x 56) on the positive RoIs; "
         "--dataset coco_kp"),
    ]
    for rid, mid, label, gb, classes, extra in table:
        s = {"name": f"torchvision {label}, 2 images per GPU", "task": "train", "model": mid, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
             "num_classes": classes, "recompute": "none", "zero_grad_set_to_none": False, "gpus": 8,
             "sharding": "ddp", "offload": "none", "framework": "pytorch", "detection_framework": "torchvision",
             "x-model": {"builder": f"torchvision.models.detection.{label}", "trainable_backbone_layers": 3,
                         "norm": "FrozenBatchNorm2d"}}
        mr.add(rid, "detector", "medium", "allocated", gb, mr.GIB, s, SRC,
               f"'Runtime characteristics' table, row '{label}', column 'memory (GB)': {gb}",
               [METRIC, SETUP, RUN, MODEL, extra])


# Read but not written: the table's Faster R-CNN MobileNetV3-Large FPN (1.0)
# and MobileNetV3-Large 320 FPN (0.6) rows: the catalog has MobileNetV3-Large
# as a classifier and LR-ASPP backbone only, not that detector.
