# SPDX-License-Identifier: GPL-3.0-or-later
"""mmsegmentation's FCN, DeepLabV3 and UPerNet: the 'Training Memory (GB)'
of its model zoo (configs/fcn/fcn.yml, configs/deeplabv3/deeplabv3.yml,
configs/upernet/upernet.yml) on ResNet-50 and ResNet-101 at Cityscapes
512x1024 and 769x769, ADE20K 512x512 and Pascal VOC 2012 + Aug 512x512,
on the catalog's fcn-r50-d8, fcn-r101-d8, deeplabv3-r50-d8,
deeplabv3-r101-d8 ("head": "mmseg-fcn", "mmseg-aspp"), upernet-r50 and
upernet-r101.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

FCN_SRC = "open-mmlab/mmsegmentation configs/fcn/fcn.yml @02e04cc2"
DLV3_SRC = "open-mmlab/mmsegmentation configs/deeplabv3/deeplabv3.yml @0e4fc19d"
UPER_SRC = "open-mmlab/mmsegmentation configs/upernet/upernet.yml @25271921"

FCN_HEAD = ("FCN: configs/_base_/models/fcn_r50-d8.py @3f8d34ee, FCNHead (mmseg/models/decode_heads/fcn_head.py) "
            "with channels 512, num_convs 2 (two 3x3 ConvModules 2048 -> 512 -> 512) and concat_input (conv_cat, "
            "a 3x3 ConvModule over cat(stage 4, their output), 2560 -> 512), dropout 0.1, conv_seg: head "
            "'mmseg-fcn'")
DLV3_HEAD = ("DeepLabV3: configs/_base_/models/deeplabv3_r50-d8.py @2fc821ec, ASPPHead "
             "(mmseg/models/decode_heads/aspp_head.py) with channels 512: image pooling (AdaptiveAvgPool2d(1), "
             "a 1x1 ConvModule, resized), ConvModules at dilations 1 (1x1), 12, 24, 36 (3x3) from stage 4, a 3x3 "
             "bottleneck over the five (2560 -> 512), dropout 0.1, conv_seg: head 'mmseg-aspp'")
UPER_HEAD = ("UPerNet: configs/_base_/models/upernet_r50.py @3f8d34ee, ResNetV1c without dilation (strides 1, 2, "
             "2, 2: output stride 32), UPerHead (PPM at 1, 2, 3, 6 on stage 4 and an FPN over stages 1-4, channels "
             "512, fused at stride 4) and the auxiliary FCNHead on stage 3; the SEG_COMMON line's D8 does not "
             "apply to it")
DEPTH = ("R-101: the same config with depth 101 (pretrained open-mmlab://resnet101_v1c), the catalog's "
         "{id}")
CROP = {
    "cityscapes-512x1024": ([1024, 512], 2, 19, "Cityscapes, crop 512 x 1024 (height x width), batch 2 per GPU on 4 "
                            "GPUs (configs/_base_/datasets/cityscapes.py samples_per_gpu 2 and the zoo's 4 GPUs; the 1.x "
                            "names' '4xb2'), 19 classes"),
    "cityscapes-769x769": ([769, 769], 2, 19, "Cityscapes, crop 769 x 769, batch 2 per GPU on 4 GPUs; these configs "
                           "set align_corners=True in both heads, which changes the interpolation's arithmetic, not "
                           "the tensors it keeps, so the scenario is the 512 x 1024 one's at the crop's size"),
    "ade20k-512x512": ([512, 512], 4, 150, "ADE20K, crop 512 x 512, batch 4 per GPU on 4 GPUs (configs/_base_/"
                       "datasets/ade20k.py samples_per_gpu 4; the 1.x name's '4xb4'), 150 classes (num_classes=150 "
                       "in both heads of the config, the scenario key num_classes)"),
    "voc12aug-512x512": ([512, 512], 4, 21, "Pascal VOC 2012 + Aug, crop 512 x 512, batch 4 per GPU on 4 GPUs "
                         "(configs/_base_/datasets/pascal_voc12_aug.py samples_per_gpu 4; the 1.x name's '4xb4'), "
                         "21 classes (num_classes=21 in both heads, the scenario key num_classes)"),
}


def add_row(mr, rid, model, coll, cfg, crop, gib):
    size, batch, classes, crop_note = CROP[crop]
    src, head, key = {"fcn": (FCN_SRC, FCN_HEAD, "Training Memory (GB)"),
                      "deeplabv3": (DLV3_SRC, DLV3_HEAD, "memory (GB)"),
                      "upernet": (UPER_SRC, UPER_HEAD, "Training Memory (GB)")}[coll]
    s = {"name": f"mmsegmentation {cfg}", "task": "train", "model": model, "method": "full", "compute": "fp32",
         "optimizer": "sgd-momentum", "micro_batch": batch, "image_size": size, "gpus": 4, "sharding": "ddp",
         "recompute": "none", "framework": "pytorch", "num_classes": classes,
         "x-model": {"config": f"configs/{coll}/{cfg}.py"}, "pytorch_version": mr.SEG_TORCH["pspnet"][0]}
    notes = [mr.MM_METRIC.replace("all 8 GPUs", "all GPUs").replace(
                 "mmdetection docs/model_zoo.md", "the OpenMMLab model zoos, e.g. mmdetection docs/model_zoo.md"),
             mr.SEG_COMMON, head, crop_note, mr.SEG_TORCH["pspnet"][1],
             "the zoo's 0.x checkpoints (download.openmmlab.com/mmsegmentation/v0.5) are dated 2020-05-30 .. "
             "2020-06-17 in their file names, the runs of the PyTorch 1.5 environment"]
    if "r101" in model:
        notes.append(DEPTH.format(id=model))
    mr.add(rid, "segmentation", "high", "allocated", gib, mr.GIB, s, src,
           f"model '{cfg}', Metadata '{key}': {gib}", notes)


def rows(mr):
    fcn = [
        (4300, "fcn-r50-d8", "fcn_r50-d8_4xb2-40k_cityscapes-512x1024", "cityscapes-512x1024", 5.7),
        (4301, "fcn-r101-d8", "fcn_r101-d8_4xb2-40k_cityscapes-512x1024", "cityscapes-512x1024", 9.2),
        (4302, "fcn-r50-d8", "fcn_r50-d8_4xb2-40k_cityscapes-769x769", "cityscapes-769x769", 6.5),
        (4303, "fcn-r101-d8", "fcn_r101-d8_4xb2-40k_cityscapes-769x769", "cityscapes-769x769", 10.4),
        (4304, "fcn-r50-d8", "fcn_r50-d8_4xb4-80k_ade20k-512x512", "ade20k-512x512", 8.5),
        (4305, "fcn-r101-d8", "fcn_r101-d8_4xb4-80k_ade20k-512x512", "ade20k-512x512", 12.0),
        (4306, "fcn-r50-d8", "fcn_r50-d8_4xb4-20k_voc12aug-512x512", "voc12aug-512x512", 5.7),
        (4307, "fcn-r101-d8", "fcn_r101-d8_4xb4-20k_voc12aug-512x512", "voc12aug-512x512", 9.2),
    ]
    dlv3 = [
        (4310, "deeplabv3-r50-d8", "deeplabv3_r50-d8_512x1024_40k_cityscapes", "cityscapes-512x1024", 6.1),
        (4311, "deeplabv3-r101-d8", "deeplabv3_r101-d8_512x1024_40k_cityscapes", "cityscapes-512x1024", 9.6),
        (4312, "deeplabv3-r50-d8", "deeplabv3_r50-d8_769x769_40k_cityscapes", "cityscapes-769x769", 6.9),
        (4313, "deeplabv3-r101-d8", "deeplabv3_r101-d8_769x769_40k_cityscapes", "cityscapes-769x769", 10.9),
        (4314, "deeplabv3-r50-d8", "deeplabv3_r50-d8_512x512_80k_ade20k", "ade20k-512x512", 8.9),
        (4315, "deeplabv3-r101-d8", "deeplabv3_r101-d8_512x512_80k_ade20k", "ade20k-512x512", 12.4),
        (4316, "deeplabv3-r50-d8", "deeplabv3_r50-d8_512x512_20k_voc12aug", "voc12aug-512x512", 6.1),
        (4317, "deeplabv3-r101-d8", "deeplabv3_r101-d8_512x512_20k_voc12aug", "voc12aug-512x512", 9.6),
    ]
    uper = [
        (4320, "upernet-r50", "upernet_r50_512x1024_40k_cityscapes", "cityscapes-512x1024", 6.4),
        (4321, "upernet-r101", "upernet_r101_512x1024_40k_cityscapes", "cityscapes-512x1024", 7.4),
        (4322, "upernet-r50", "upernet_r50_769x769_40k_cityscapes", "cityscapes-769x769", 7.2),
        (4323, "upernet-r101", "upernet_r101_769x769_40k_cityscapes", "cityscapes-769x769", 8.4),
        (4324, "upernet-r50", "upernet_r50_512x512_80k_ade20k", "ade20k-512x512", 8.1),
        (4325, "upernet-r101", "upernet_r101_512x512_80k_ade20k", "ade20k-512x512", 9.1),
        (4326, "upernet-r50", "upernet_r50_512x512_20k_voc12aug", "voc12aug-512x512", 6.4),
        (4327, "upernet-r101", "upernet_r101_512x512_20k_voc12aug", "voc12aug-512x512", 7.5),
    ]
    for coll, table in (("fcn", fcn), ("deeplabv3", dlv3), ("upernet", uper)):
        for rid, model, cfg, crop, gib in table:
            add_row(mr, rid, model, coll, cfg, crop, gib)
