# SPDX-License-Identifier: GPL-3.0-or-later
"""Mesa (zhuang-group/Mesa): the training memory of DeiT and Swin on ImageNet
without Mesa, the baselines of its 'Results on ImageNet' table.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "zhuang-group/Mesa README.md @8b7a0db"
# README.md @8b7a0db, Installation: "we use PyTorch 1.7.1 with CUDA 10.1"
TORCH = ("PyTorch 1.7.1 (README, Installation: 'we use PyTorch 1.7.1 with CUDA 10.1'): before 1.11 softmax "
         "kept its input beside its result (pytorch_version)")
SETUP = ("'Memory footprint at training time is measured with a batch size of 128 and an image resolution of "
         "224x224 on a single GPU' (README); the GPU is not named (a card of 24 GB or more for DeiT-B's 17.7 GB)")
DEIT_METRIC = ("metric allocated: the demo project HubHop/deit-mesa @c5551a8 (facebookresearch/deit's code) logs "
               "'max mem' from utils.py MetricLogger: torch.cuda.max_memory_allocated() / MB with MB = 1024.0 * "
               "1024.0 (MiB)")
DEIT_RUN = ("HubHop/deit-mesa @c5551a8 main.py defaults: timm 0.3.2 VisionTransformer (patch 16, class token, "
            "eager attention: q @ k.transpose, softmax, attn @ v, attention dropout 0), AdamW, "
            "torch.cuda.amp.autocast (fp16) with NativeScaler, model EMA on the GPU (timm ModelEma, an fp32 copy: "
            "'ema'), drop_path 0.1, Mixup/CutMix soft targets; engine.py calls optimizer.zero_grad() before each "
            "backward, which on PyTorch 1.7/1.8 (set_to_none=False) keeps every gradient allocated between steps")
SWIN_METRIC = ("metric allocated: the demo project HubHop/swin-mesa @3127a98 (microsoft/Swin-Transformer's code) "
               "logs 'mem' = torch.cuda.max_memory_allocated() / (1024.0 * 1024.0) (MiB) in main.py")
SWIN_RUN = ("HubHop/swin-mesa @3127a98: configs/swin_tiny_patch4_window7_224_mesa.yaml (embed 96, depths "
            "2-2-6-2, heads 3-6-12-24, window 7, drop_path 0.2), batch 128, AdamW, apex amp O1 (main.py "
            "--amp-opt-level default O1: fp16 casts as autocast makes them), no gradient checkpointing "
            "(TRAIN.USE_CHECKPOINT False), gradient clipping 5.0; the shifted-window attention keeps its score "
            "matrices (softmax of q @ k.transpose plus the relative position bias); same architecture as "
            "torchvision's swin_t (the catalog's swin-t)")


def rows(mr):
    deit = [(2401, "DeiT-Ti", "deit-tiny", 4171), (2402, "DeiT-S", "deit-small", 8459),
            (2403, "DeiT-B", "vit-b-16", 17691)]
    for rid, label, model, mib in deit:
        s = {"name": f"{label} ImageNet training, batch 128, fp16 AMP (Mesa's baseline)", "task": "train",
             "model": model, "method": "full", "compute": "fp16-mixed", "optimizer": "adamw", "micro_batch": 128,
             "image_size": 224, "num_classes": 1000, "attention": "eager", "recompute": "none", "ema": True,
             "gpus": 1, "sharding": "none", "offload": "none", "framework": "pytorch",
             "pytorch_version": "1.7"}
        notes = [DEIT_METRIC, SETUP, DEIT_RUN, TORCH]
        if model == "vit-b-16":
            notes.append("DeiT-B is ViT-B/16's architecture (DeiT paper, Touvron et al. 2021, Table 1: 12 layers, "
                         "768 wide, 12 heads): the catalog's vit-b-16")
        mr.add(rid, "classifier", "medium", "allocated", mib, mr.MIB, s, SRC,
               f"'Results on ImageNet' table, row '{label}', 'Train Memory (MB)': {mib:,}", notes)

    s = {"name": "Swin-T ImageNet training, batch 128, apex O1 (Mesa's baseline)", "task": "train",
         "model": "swin-t", "method": "full", "compute": "fp16-mixed", "optimizer": "adamw", "micro_batch": 128,
         "image_size": 224, "num_classes": 1000, "attention": "eager", "recompute": "none", "gpus": 1,
         "sharding": "none", "offload": "none", "framework": "pytorch", "pytorch_version": "1.7"}
    mr.add(2404, "classifier", "medium", "allocated", 11812, mr.MIB, s, SRC,
           "'Results on ImageNet' table, row 'Swin-Ti', 'Train Memory (MB)': 11,812",
           [SWIN_METRIC, SETUP, SWIN_RUN, TORCH])
