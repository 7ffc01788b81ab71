# SPDX-License-Identifier: GPL-3.0-or-later
"""MMAction2 (open-mmlab/mmaction2): the training memory of Temporal Segment
Networks (a 2D ResNet run over every sampled frame) in its 0.x model zoo.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "open-mmlab/mmaction2 configs/recognition/tsn/README.md @699e31a0 (v0.24.1)"
METRIC = ("metric allocated: the README's 'gpu_mem(M)' is the 'memory' field of the training log (the linked "
          "log.json), which mmcv's TextLoggerHook writes as _get_max_memory(): "
          "torch.cuda.max_memory_allocated() / (1024 * 1024) cast to int and reduced with MAX over the ranks "
          "(open-mmlab/mmcv mmcv/runner/hooks/logger/text.py @75d907c9, v1.3.0), never reset: the peak over "
          "the run in MiB")
TSN = ("TSN as the config builds it (configs/_base_/models/tsn_r50.py @699e31a0: Recognizer2D, ResNet-50 from "
       "torchvision://resnet50 with BatchNorm trained (norm_eval=False), TSNHead: global average pool, dropout, "
       "one linear layer, AvgConsensus over the segments, cross-entropy): the backbone runs on videos_per_gpu x "
       "num_clips frames at once (Recognizer2D.forward_train reshapes the clips to a batch of images), so the "
       "scenario is the catalog's ResNet at micro_batch = that product; the consensus is one mean over the "
       "segments of a 2048-wide feature per frame")
LOOP = ("training loop: mmcv OptimizerHook.after_train_iter calls runner.optimizer.zero_grad() before "
        "loss.backward() (mmcv/runner/hooks/optimizer.py @75d907c9); the runs are of 2020-2021 on PyTorch 1.x, "
        "whose zero_grad() keeps every gradient allocated (set_to_none=False): zero_grad_set_to_none false; "
        "SGD momentum 0.9, fp32 (no fp16 in these configs), DistributedDataParallel over the 8 GPUs")
CROP = ("every training frame is resized to exactly 224 x 224 (the pipeline's MultiScaleCrop or "
        "RandomResizedCrop followed by Resize(scale=(224, 224), keep_ratio=False)): image_size 224")
CONFIG_NOTE = ("the config is read at the v0.24.1 tag; the logs are older (2020-2021) and the config they ran "
               "is assumed to be that one (the figures follow the frames per GPU: about 82 MiB a frame over "
               "all these rows)")


def rows(mr):
    # (row, config, table, videos_per_gpu, num_clips, classes, MiB, extra notes)
    tsn = [
        (3501, "tsn_r50_1x1x3_75e_ucf101_rgb", "UCF-101", 32, 3, 101, 8332,
         "UCF-101: num_classes=101; grad_clip max_norm 40"),
        (3502, "tsn_r50_video_1x1x8_100e_diving48_rgb", "Diving48", 8, 8, 48, 5699, "Diving48: num_classes=48"),
        (3503, "tsn_r50_video_1x1x16_100e_diving48_rgb", "Diving48", 4, 16, 48, 5705,
         "Diving48: num_classes=48; 16 segments of 4 videos"),
        (3504, "tsn_r50_1x1x8_50e_hmdb51_imagenet_rgb", "HMDB51", 32, 8, 51, 21535,
         "HMDB51: num_classes=51 (the same figure, 21535, for the Kinetics400 and Moments pretrained runs of "
         "the same config, not written again)"),
        (3505, "tsn_r50_1x1x3_100e_kinetics400_rgb", "Kinetics-400", 32, 3, 400, 8344,
         "Kinetics-400, the row of resolution 340x256"),
        (3506, "tsn_r50_dense_1x1x5_100e_kinetics400_rgb", "Kinetics-400", 16, 5, 400, 7028,
         "Kinetics-400, DenseSampleFrames (which frames are sampled does not change their number); the "
         "table's gpus column says 8x3 (trained over 3 nodes of 8): DDP's per-GPU memory does not depend on "
         "the count, written as 8"),
        (3507, "tsn_r50_video_1x1x8_100e_kinetics400_rgb", "Kinetics-400", 32, 8, 400, 21558,
         "Kinetics-400, decoded from the videos"),
        (3508, "tsn_r50_1x1x8_50e_sthv1_rgb", "Something-Something V1", 16, 8, 174, 10978,
         "Something-Something V1: num_classes=174, the backbone's norm_cfg SyncBN with norm_eval=True (eval-"
         "mode BatchNorm with trainable affine weights, which still saves its input for the backward pass, as "
         "a trained one does); grad_clip max_norm 20"),
        (3509, "tsn_r50_1x1x16_50e_sthv1_rgb", "Something-Something V1", 4, 16, 174, 5691,
         "Something-Something V1, 16 segments of 4 videos (inherits the 1x1x8 config: SyncBN, norm_eval)"),
        (3510, "tsn_r50_1x1x8_50e_sthv2_rgb", "Something-Something V2", 16, 8, 174, 10966,
         "Something-Something V2: num_classes=174, BatchNorm trained"),
        (3511, "tsn_r50_1x1x6_100e_mit_rgb", "Moments in Time", 16, 6, 339, 8339,
         "Moments in Time: num_classes=339"),
        (3512, "tsn_r50_320p_1x1x8_50e_activitynet_video_rgb", "ActivityNet v1.3", 8, 8, 200, 5692,
         "ActivityNet v1.3: num_classes=200, dropout 0.8"),
    ]
    for rid, cfg, table, vpg, clips, classes, mib, extra in tsn:
        frames = vpg * clips
        s = {"name": f"MMAction2 {cfg}, {vpg} videos x {clips} segments per GPU", "task": "train",
             "model": "resnet-50", "method": "full", "compute": "fp32", "optimizer": "sgd-momentum",
             "micro_batch": frames, "image_size": 224, "num_classes": classes, "recompute": "none",
             "zero_grad_set_to_none": False, "gpus": 8, "sharding": "ddp", "offload": "none",
             "framework": "pytorch",
             "x-model": {"config": f"configs/recognition/tsn/{cfg}.py", "videos_per_gpu": vpg, "num_clips": clips,
                         "clip_len": 1}}
        notes = [METRIC, TSN, LOOP, CROP,
                 f"data.videos_per_gpu={vpg}, SampleFrames num_clips={clips}, clip_len=1: {frames} frames per GPU",
                 extra, CONFIG_NOTE, "trained on 8 GPUs whose size the README does not state: not scored"]
        mr.add(rid, "classifier", "medium", "allocated", mib, mr.MIB, s, SRC,
               f"'{table}' table, row '{cfg}', column 'gpu_mem(M)': {mib}", notes)

    # ResNet-101 on Multi-Moments in Time (multi-label, sigmoid cross-entropy).
    cfg = "tsn_r101_1x1x5_50e_mmit_rgb"
    s = {"name": f"MMAction2 {cfg}, 16 videos x 5 segments per GPU", "task": "train", "model": "resnet-101",
         "method": "full", "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 80, "image_size": 224,
         "num_classes": 313, "recompute": "none", "zero_grad_set_to_none": False, "gpus": 8, "sharding": "ddp",
         "offload": "none", "framework": "pytorch",
         "x-model": {"config": f"configs/recognition/tsn/{cfg}.py", "videos_per_gpu": 16, "num_clips": 5,
                     "clip_len": 1}}
    mr.add(3513, "classifier", "medium", "allocated", 10467, mr.MIB, s, SRC,
           f"'Multi-Moments in Time' table, row '{cfg}', column 'gpu_mem(M)': 10467",
           [METRIC, TSN.replace("ResNet-50 from torchvision://resnet50", "the ResNet of the config"),
            LOOP, CROP,
            "the config sets ResNet depth=101 (torchvision://resnet101), TSNHead num_classes=313 with "
            "multi_class=True and BCELossWithLogits (sigmoid cross-entropy over 313 labels instead of softmax: "
            "the same size of logits); data.videos_per_gpu=16, num_clips=5: 80 frames per GPU",
            CONFIG_NOTE, "trained on 8 GPUs whose size the README does not state: not scored"])


# Read but not written (v0.24.1 tables):
# - tsn_r50_1x1x16_50e_sthv2_rgb (8337 MiB): its config has videos_per_gpu=4 x
#   16 segments = 64 frames, like the Something-Something V1 16-segment run
#   (5691 MiB); the figure is that of 96 frames, so the run was not that config.
# - the optical-flow rows (tsn_r50_320p_1x1x{3,8}_110e_kinetics400_flow):
#   the first convolution takes 10 channels (5 stacked x/y flow pairs), which
#   no scenario key expresses.
# - the 320p and 256p duplicates of the Kinetics-400 RGB rows (same frames per
#   GPU, same figures within 1 MiB), and runs on 8x2, 8x3 or 8x4 GPUs with the
#   same per-GPU configuration.
# - TSM, TIN, TPN, TANet (temporal shift / interlace / pyramid modules beside
#   the ResNet), I3D, SlowFast, SlowOnly, CSN, X3D, C3D (3D networks the
#   catalog lacks; its r2plus1d-18 is torchvision's ResNet-18, mmaction2's
#   R(2+1)D is a ResNet-34), and the Swin / TimeSformer video transformers.
