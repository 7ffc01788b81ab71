#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The source of this validation set: every published measurement, written once.

    python3 make_rows.py          # rewrites expected.csv and scenarios/*.json

Each row is a figure somebody measured and published with another stack than
LitGPT, the configuration it was measured with, and where it was read. The
scenario files and expected.csv are generated from the tables below so that the
assumptions made for a source family (dataset lengths, units, which metric)
are written once, next to the rows they apply to; edit this file, not the
generated ones. Standard library only.
"""
import csv
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

GIB = 2**30
MIB = 2**20
GB = 10**9

# Device memory of the cards the rows ran on, as data/gpus.json has them
# (nvidia-smi total MiB x 1048576); cards the catalog lacks are given inline
# with the source of their size.
CAPACITY = {
    "rtx-4090": 25757220864, "rtx-4080": 17171480576, "rtx-3090-ti": 25757220864,
    "rtx-3090": 25769803776, "rtx-a6000": 51527024640, "l40s": 48305799168, "t4": 16106127360,
    "a100-40gb": 42949672960, "a100-80gb": 85899345920, "h100-sxm": 85520809984,
    "h200": 150754820096, "rtx-5090": 34190917632,
}
# Tesla V100-SXM2 16GB: 16160 MiB total in the nvidia-smi table the
# transformers guide prints (perf_train_gpu_one.mdx).
V100_16 = {"id": "v100-16gb", "name": "Tesla V100-SXM2 16GB", "memory": 16160 * MIB,
           "source": "nvidia-smi table in huggingface/transformers docs/source/en/perf_train_gpu_one.mdx: 16160MiB"}
# torchtitan's Grand Teton H100s: "96GB HBM2e" (benchmarks/llama3_h100_202412_torchtitan.md);
# taken as 96 GiB nominal (the driver's exact figure is not published there).
H100_96 = {"id": "h100-96gb-hbm2e", "name": "H100 96GB HBM2e (Grand Teton)", "memory": 96 * GIB,
           "source": "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md 'Hardware': 96GB HBM2e, nominal"}
# H20 96GB (Wan2.1 table): nominal 96 GiB.
H20 = {"id": "h20", "name": "H20 96GB", "memory": 96 * GIB, "source": "nominal 96 GB"}

ROWS = []

# KEYS-14 defaults of the agreed keys (under the default stack).
AGREED_DEFAULTS = {"optimizer_impl": "foreach", "reshard_after_forward": True, "optimizer_in_bwd": False,
                   "activation_offload": False, "compile": False, "packed": False, "tensor_parallel": 1,
                   "sequence_parallel": False, "pipeline_parallel": 1, "context_parallel": 1,
                   "expert_parallel": 1}


def lp(layers, hidden, heads, kv, inter, vocab, tied, head_dim=None, qk_norm=False):
    """Parameter count of a Llama-style decoder (RMSNorm, SwiGLU, no biases)."""
    hd = head_dim or hidden // heads
    attn = hidden * heads * hd + 2 * hidden * kv * hd + heads * hd * hidden
    if qk_norm:
        attn += 2 * hd
    mlp = 3 * hidden * inter
    per_layer = attn + mlp + 2 * hidden
    emb = vocab * hidden * (1 if tied else 2)
    return layers * per_layer + emb + hidden


ARCH = {
    # from data/models.json (each entry cites its config.json)
    "llama-2-7b": dict(layers=32, hidden=4096, heads=32, kv=32, inter=11008, vocab=32000),
    "llama-2-70b": dict(layers=80, hidden=8192, heads=64, kv=8, inter=28672, vocab=32000),
    "llama-3.1-8b": dict(layers=32, hidden=4096, heads=32, kv=8, inter=14336, vocab=128256),
    "llama-3.1-70b": dict(layers=80, hidden=8192, heads=64, kv=8, inter=28672, vocab=128256),
    "llama-3.2-3b": dict(layers=28, hidden=3072, heads=24, kv=8, inter=8192, vocab=128256),
    # meta-llama/Llama-3.1-405B config.json
    "llama-3.1-405b": dict(layers=126, hidden=16384, heads=128, kv=8, inter=53248, vocab=128256),
}

LLAMA_405B = {
    "id": "meta-llama/Llama-3.1-405B", "name": "Llama 3.1 405B",
    "params": lp(126, 16384, 128, 8, 53248, 128256, False),
    "layers": 126, "hidden": 16384, "heads": 128, "kv_heads": 8, "intermediate": 53248,
    "vocab": 128256, "glu": True, "norm": "rmsnorm", "tied_embeddings": False, "max_seq_len": 131072,
    "source": "huggingface.co/meta-llama/Llama-3.1-405B config.json: num_hidden_layers 126, hidden_size 16384, "
              "num_attention_heads 128, num_key_value_heads 8, intermediate_size 53248, vocab_size 128256, "
              "tie_word_embeddings false; params counted from those shapes (405,853,388,800)",
}


def lora_count(model, targets, rank):
    """Trainable LoRA parameters: r x (in + out) per adapted matrix (Hu et al. 2021)."""
    a = ARCH[model]
    h, hd = a["hidden"], a["hidden"] // a["heads"]
    q, kv, i = a["heads"] * hd, a["kv"] * hd, a["inter"]
    dims = {"q": (h, q), "k": (h, kv), "v": (h, kv), "o": (q, h), "gate": (h, i), "up": (h, i),
            "down": (i, h), "lm_head": (h, a["vocab"])}
    per_layer = sum(rank * sum(dims[t]) for t in targets if t != "lm_head")
    head = rank * sum(dims["lm_head"]) if "lm_head" in targets else 0
    return per_layer * a["layers"] + head


def add(rid, category, quality, metric, value, unit, scenario, source, locator, notes,
        bound="exact", gpu=None, capacity=None, calibration="no", stack_config=None):
    """One row: the published figure, its scenario, and every assumption made."""
    assert metric in ("allocated", "reserved", "device_used", "weights", "kv_cache"), metric
    assert bound in ("exact", "lower_bound", "upper_bound"), bound
    assert quality in ("high", "medium", "low"), quality
    s = {"headroom_scenario": 1}
    s.update(scenario)
    if "stack" not in s:
        # Rows of the default stack (transformers) leave out agreed keys that
        # only restate their default, so that they run on builds that do not
        # read those keys yet.
        for k, v in AGREED_DEFAULTS.items():
            if s.get(k, object()) == v:
                del s[k]
        if s.get("optimizer_state_dtype") == ("bf16" if s.get("compute") == "bf16-pure" else "fp32"):
            del s["optimizer_state_dtype"]
    if gpu is None and "gpu" in s:
        gpu = s["gpu"]
    if isinstance(gpu, dict):
        s["gpu"] = gpu
        cap = gpu["memory"]
        gname = gpu["id"]
    elif gpu is not None:
        s["gpu"] = gpu
        cap = CAPACITY[gpu]
        gname = gpu
    else:
        cap, gname = None, None
    if capacity is not None:
        cap = capacity
    s["x-row"] = rid
    s["x-source"] = f"{source} / {locator}"
    if gname:
        s["x-gpu"] = gname
    if cap:
        s["x-gpu-capacity-bytes"] = int(cap)
    s["x-metric"] = metric
    if stack_config:
        s["x-stack-config"] = stack_config
    s["x-notes"] = list(notes)
    if bound in ("lower_bound", "upper_bound"):
        if not cap:
            raise SystemExit(f"row {rid}: a bound needs the card's capacity")
        # A bound's value is the card's capacity, whatever the source rounds it to.
        value, unit = cap, 1
    ROWS.append({
        "row_id": rid, "scenario": f"scenarios/{rid}.json", "category": category,
        "quality": quality, "metric": metric, "value_bytes": int(round(value * unit)),
        "gpus": s.get("gpus", 1), "notes": "; ".join(notes), "bound": bound,
        "source": source, "source_locator": locator, "calibration": calibration,
        "_scenario": s,
    })


def write():
    os.makedirs(os.path.join(HERE, "scenarios"), exist_ok=True)
    keep = set()
    for r in ROWS:
        path = os.path.join(HERE, r["scenario"])
        keep.add(os.path.basename(path))
        with open(path, "w") as f:
            json.dump(r["_scenario"], f, indent=2)
            f.write("\n")
    for name in os.listdir(os.path.join(HERE, "scenarios")):
        if name.endswith(".json") and name not in keep:
            os.remove(os.path.join(HERE, "scenarios", name))
    fields = ["row_id", "scenario", "category", "quality", "metric", "value_bytes", "gpus", "notes",
              "bound", "source", "source_locator", "calibration"]
    ids = [r["row_id"] for r in ROWS]
    assert len(ids) == len(set(ids)), "duplicate row ids"
    with open(os.path.join(HERE, "expected.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in sorted(ROWS, key=lambda r: r["row_id"]):
            w.writerow({k: r[k] for k in fields})
    print(f"{len(ROWS)} rows written")


# Families of rows, one module-level function each, in the order of the row ids.
FAMILIES = []


def family(fn):
    FAMILIES.append(fn)
    return fn


# ---------------------------------------------------------------------------
# torchtune: README tables and tutorials (pytorch/torchtune)
# ---------------------------------------------------------------------------
# Sequence lengths of unpacked Alpaca runs. torchtune pads each batch to its
# longest sample (padded_collate) and never resets the peak statistics during a
# run (recipes call training.get_memory_stats without reset_peak_memory_stats),
# so the logged peak is that of the batch holding the longest sample.
ALPACA_LLAMA2 = 1304  # longest Alpaca sample in Llama-2 tokens (shared/validation rows 24-27, LitGPT's count)
ALPACA_LLAMA3 = 1044  # longest Alpaca sample in GPT-2-BPE tokens (shared/validation row 13); taken for
                      # Llama 3's 128k BPE, which is at least as efficient (assumption, +-10%)
TT_SEQ_NOTE2 = ("seq_len: longest Alpaca sample, 1304 Llama-2 tokens (the LitGPT count in shared/validation); "
                "torchtune pads each batch to its longest sample and its peak statistics are never reset, "
                "so the peak is that batch's; torchtune's prompt template differs from LitGPT's by a few tokens")
TT_SEQ_NOTE3 = ("seq_len: longest Alpaca sample taken as 1044 tokens (the GPT-2-BPE count in shared/validation "
                "row 13; Llama 3's 128k tokenizer is at least as efficient: assumption, +-10%); batches "
                "padded to their longest sample, peak statistics never reset during the run")
TT_METRIC_1E9 = ("torchtune/utils/memory.py @fef3ed10d: peak_memory_* = memory_stats / 1e9 (decimal GB); "
                 "metric reserved: the README until 2024-04 states its table is 'GPU peak memory reserved', "
                 "and the QLoRA figure equals the tutorial's 'Peak memory reserved, training'")
TT_BASE = {"task": "finetune", "stack": "torchtune", "weights_dtype": "bf16", "compute": "bf16-pure",
           "optimizer_state_dtype": "bf16", "attention": "sdpa", "sharding": "none", "offload": "none"}
TT_SRC_0416 = "pytorch/torchtune README.md @fef3ed10d (2024-04-16, 'Memory update (#775)')"


def tt(**kw):
    s = dict(TT_BASE)
    s.update(kw)
    return s


@family
def torchtune_rows():
    L2, L31, L32 = "llama-2-7b", "llama-3.1-8b", "llama-3.2-3b"
    qv = ["q", "v"]
    all7 = ["q", "k", "v", "o", "gate", "up", "down"]
    # --- README table of 2024-04-16 (GB = 1e9, reserved) ------------------
    loc = "'Example HW Resources | Finetuning Method | Config | Model | Peak Memory per GPU' table"
    add(101, "torchtune_single", "medium", "reserved", 9.29, GB, tt(
        name="torchtune QLoRA Llama-2-7B on 1x RTX 4090 (llama2/7B_qlora_single_device)", model=L2,
        method="qlora", weights_dtype="nf4", quant_compute_dtype="bf16",
        lora={"rank": 8, "targets": "all-linear"}, trainable_params=lora_count(L2, all7, 8),
        optimizer="adamw", optimizer_impl="foreach", micro_batch=2, grad_accum=16,
        seq_len=ALPACA_LLAMA2, recompute="full", loss="upcast", gpus=1),
        TT_SRC_0416, loc + ", row '1 x RTX 4090 | QLoRA'",
        [TT_METRIC_1E9, TT_SEQ_NOTE2,
         "config llama2/7B_qlora_single_device @fef3ed10d: LoRA r=8 on q,k,v,output_proj + MLP (= all-linear), "
         "batch 2, AdamW, activation checkpointing, torch.nn.CrossEntropyLoss on fp32 logits "
         "(TransformerDecoder returns self.output(h).float()), dataset alpaca_cleaned",
         "torchao NF4 weights computed in bf16 (quant_compute_dtype bf16)"],
        gpu="rtx-4090",
        stack_config="model: qlora_llama2_7b lora_attn_modules=[q_proj,v_proj,k_proj,output_proj] "
                     "apply_lora_to_mlp=True lora_rank=8 lora_alpha=16; dataset: alpaca_cleaned_dataset; "
                     "batch_size: 2; optimizer: torch.optim.AdamW lr 3e-4; loss: torch.nn.CrossEntropyLoss; "
                     "gradient_accumulation_steps: 16; compile: False; dtype: bf16; "
                     "enable_activation_checkpointing: True")
    add(102, "fsdp1_lora", "medium", "reserved", 20.95, GB, tt(
        name="torchtune LoRA Llama-2-7B on 2x RTX 4090 (llama2/7B_lora, FSDP1)", model=L2,
        method="lora", lora={"rank": 8, "targets": "qv"}, trainable_params=lora_count(L2, qv, 8),
        optimizer="adamw", optimizer_impl="foreach", micro_batch=2, grad_accum=32,
        seq_len=ALPACA_LLAMA2, recompute="none", loss="upcast", gpus=2, sharding="fsdp1",
        reshard_after_forward=True),
        TT_SRC_0416, loc + ", row '2 x RTX 4090 | LoRA'",
        [TT_METRIC_1E9, TT_SEQ_NOTE2,
         "recipes/lora_finetune_distributed.py @fef3ed10d wraps with FSDP1 FullyShardedDataParallel, "
         "ShardingStrategy.FULL_SHARD, lora_fsdp_wrap_policy (each decoder layer and each LoRA module)",
         "config llama2/7B_lora: LoRA r=8 on q_proj,v_proj, batch 2 per GPU, no activation checkpointing"],
        gpu="rtx-4090",
        stack_config="model: lora_llama2_7b lora_attn_modules=[q_proj,v_proj] lora_rank=8 lora_alpha=16; "
                     "batch_size: 2; optimizer: torch.optim.AdamW lr 3e-4; gradient_accumulation_steps: 32; "
                     "dtype: bf16; enable_activation_checkpointing: False; tune run --nproc_per_node 2")
    add(103, "torchtune_single", "medium", "reserved", 17.18, GB, tt(
        name="torchtune LoRA Llama-2-7B on 1x RTX 4090 (llama2/7B_lora_single_device)", model=L2,
        method="lora", lora={"rank": 8, "targets": "qv"}, trainable_params=lora_count(L2, qv, 8),
        optimizer="adamw", optimizer_impl="foreach", micro_batch=2, grad_accum=64,
        seq_len=ALPACA_LLAMA2, recompute="full", loss="upcast", gpus=1),
        TT_SRC_0416, loc + ", row '1 x RTX 4090 | LoRA'",
        [TT_METRIC_1E9, TT_SEQ_NOTE2, "config llama2/7B_lora_single_device: LoRA r=8 on q_proj,v_proj, batch 2, "
         "activation checkpointing on"],
        gpu="rtx-4090",
        stack_config="model: lora_llama2_7b lora_attn_modules=[q_proj,v_proj] lora_rank=8 lora_alpha=16; "
                     "batch_size: 2; optimizer: torch.optim.AdamW lr 3e-4; gradient_accumulation_steps: 64; "
                     "compile: False; dtype: bf16; enable_activation_checkpointing: True")
    add(104, "torchtune_single", "medium", "reserved", 14.97, GB, tt(
        name="torchtune full fine-tune Llama-2-7B on 1x RTX 4090 (llama2/7B_full_low_memory)", model=L2,
        method="full", optimizer="paged-adamw", optimizer_state_dtype="fp32", optimizer_in_bwd=True,
        micro_batch=2, grad_accum=1, seq_len=ALPACA_LLAMA2, recompute="full", loss="upcast", gpus=1),
        TT_SRC_0416, loc + ", row '1 x RTX 4090 | Full finetune'",
        [TT_METRIC_1E9, TT_SEQ_NOTE2 + " (this config uses alpaca_dataset, the uncleaned original)",
         "bitsandbytes PagedAdamW (32-bit states, fp32) in paged (unified) memory allocated outside the "
         "PyTorch caching allocator, so it does not count in reserved",
         "optimizer_in_bwd: the step runs in a post-accumulate-grad hook, no full gradient buffer"],
        gpu="rtx-4090",
        stack_config="model: llama2_7b; dataset: alpaca_dataset; batch_size: 2; optimizer: "
                     "bitsandbytes.optim.PagedAdamW lr 2e-5; optimizer_in_bwd: True; "
                     "gradient_accumulation_steps: 1; compile: False; enable_activation_checkpointing: True; "
                     "dtype: bf16")
    add(105, "fsdp_full", "medium", "reserved", 22.9, GB, tt(
        name="torchtune full fine-tune Llama-2-7B on 4x RTX 4090 (llama2/7B_full, FSDP1)", model=L2,
        method="full", optimizer="adamw", optimizer_impl="foreach", micro_batch=2, grad_accum=1,
        seq_len=ALPACA_LLAMA2, recompute="full", loss="upcast", gpus=4, sharding="fsdp1",
        reshard_after_forward=True),
        TT_SRC_0416, loc + ", row '4 x RTX 4090 | Full finetune'",
        [TT_METRIC_1E9, TT_SEQ_NOTE2 + " (alpaca_dataset)",
         "recipes/full_finetune_distributed.py @fef3ed10d: FSDP1 FULL_SHARD per decoder layer",
         "config llama2/7B_full: AdamW (bf16 states), batch 2 per GPU, activation checkpointing"],
        gpu="rtx-4090",
        stack_config="model: llama2_7b; dataset: alpaca_dataset; batch_size: 2; optimizer: torch.optim.AdamW "
                     "lr 2e-5; gradient_accumulation_steps: 1; enable_activation_checkpointing: True; dtype: bf16; "
                     "tune run --nproc_per_node 4 full_finetune_distributed")

    # --- tutorials (docs/source/tutorials) --------------------------------
    src = "pytorch/torchtune docs/source/tutorials/lora_finetune.rst @bd2a0fc7"
    loc = "'Trading off memory and model performance with LoRA' table"
    note = ("metric reserved in decimal GB: the table's 'Q and V only, rank 8' figure 15.57 GB equals the "
            "qlora_finetune.rst 'Peak memory reserved, training' for the same config; the tutorial dates from "
            "the /1e9 era of torchtune/utils/memory.py")
    for rid, layers, rank, val in ((111, "qv", 8, 15.57), (112, "all", 8, 15.87), (113, "qv", 64, 15.86),
                                   (114, "all", 64, 17.04)):
        targets = qv if layers == "qv" else all7 + ["lm_head"]
        add(rid, "torchtune_single", "medium", "reserved", val, GB, tt(
            name=f"torchtune LoRA Llama-2-7B single device, {'q,v' if layers == 'qv' else 'all layers'} r={rank}",
            model=L2, method="lora",
            lora={"rank": rank, "targets": "qv" if layers == "qv" else
                  ["q", "k", "v", "o", "gate", "up", "down", "lm_head"]},
            trainable_params=lora_count(L2, targets, rank), optimizer="adamw", optimizer_impl="foreach",
            micro_batch=2, grad_accum=64, seq_len=ALPACA_LLAMA2, recompute="full", loss="upcast", gpus=1),
            src, loc + f", row '{'Q and V only' if layers == 'qv' else 'all layers'} | {rank}'",
            [note, TT_SEQ_NOTE2, "config llama2/7B_lora_single_device (batch 2, activation checkpointing); "
             + ("LoRA on q_proj,v_proj" if layers == "qv" else
                "lora_attn_modules q,k,v,output_proj + apply_lora_to_mlp + apply_lora_to_output"),
             "card not stated (single device); capacity left unset"],
            stack_config="tune run lora_finetune_single_device --config llama2/7B_lora_single_device"
                         + ("" if layers == "qv" else " model.lora_attn_modules=[q_proj,k_proj,v_proj,output_proj] "
                            "model.apply_lora_to_mlp=True model.apply_lora_to_output=True")
                         + f" model.lora_rank={rank} model.lora_alpha={2 * rank}")
    add(115, "qlora", "medium", "reserved", 9.29, GB, tt(
        name="torchtune QLoRA Llama-2-7B single device (qlora tutorial)", model=L2,
        method="qlora", weights_dtype="nf4", quant_compute_dtype="bf16",
        lora={"rank": 8, "targets": "all-linear"}, trainable_params=lora_count(L2, all7, 8),
        optimizer="adamw", optimizer_impl="foreach", micro_batch=2, grad_accum=16,
        seq_len=ALPACA_LLAMA2, recompute="full", loss="upcast", gpus=1),
        "pytorch/torchtune docs/source/tutorials/qlora_finetune.rst @bd2a0fc7",
        "'Putting it all together' table, row 'QLoRA | Peak memory reserved, training'",
        ["metric named by the source: peak memory reserved during training, decimal GB", TT_SEQ_NOTE2,
         "config llama2/7B_qlora_single_device as in row 101"])

    # --- README table of 2024-09-24 (Llama 3.1, GiB) ----------------------
    src = "pytorch/torchtune README.md @30b8519e8 (2024-09-24, 'Readme Updates (#1664)')"
    loc = "'Memory and training speed' table"
    common = ["README: 'all the below numbers are provided for batch size 2 (without gradient accumulation), "
              "a dataset packed to sequence length 2048, and torch compile enabled'",
              "GiB: torchtune logs memory / 2**30 since d0b89e206 (2024-08-15)",
              "metric not named in this table; taken as active = allocated, the figure torchtune's 2024-11 "
              "README table names ('Peak Memory Active')",
              "the README does not say what differs between the '1x 4090' and '1x A6000' rows of one model; "
              "the scenarios assume the shipped config (activation checkpointing on) for the 4090 and "
              "activation checkpointing off for the A6000 (assumption)"]
    pk = dict(micro_batch=2, grad_accum=1, seq_len=2048, packed=True, compile=True, loss="chunked")
    add(121, "torchtune_single", "low", "allocated", 18.9, GIB, tt(
        name="torchtune full fine-tune Llama 3.1 8B on 1x RTX 4090", model=L31, method="full",
        optimizer="paged-adamw-8bit", optimizer_in_bwd=True, recompute="full", gpus=1, **pk),
        src, loc + ", row 'Llama 3.1 8B | Full finetune | 1x 4090'",
        common + ["config llama3_1/8B_full_single_device @30b8519e8: bitsandbytes PagedAdamW8bit, "
                  "optimizer_in_bwd True, CEWithChunkedOutputLoss, activation checkpointing"],
        gpu="rtx-4090",
        stack_config="tune run full_finetune_single_device --config llama3_1/8B_full_single_device "
                     "batch_size=2 gradient_accumulation_steps=1 dataset.packed=True tokenizer.max_seq_len=2048 "
                     "compile=True")
    add(122, "torchtune_single", "low", "allocated", 37.4, GIB, tt(
        name="torchtune full fine-tune Llama 3.1 8B on 1x RTX A6000", model=L31, method="full",
        optimizer="paged-adamw-8bit", optimizer_in_bwd=True, recompute="none", gpus=1, **pk),
        src, loc + ", row 'Llama 3.1 8B | Full finetune | 1x A6000'",
        common + ["config llama3_1/8B_full_single_device; activation checkpointing assumed off"],
        gpu="rtx-a6000")
    add(123, "torchtune_single", "low", "allocated", 16.2, GIB, tt(
        name="torchtune LoRA Llama 3.1 8B on 1x RTX 4090", model=L31, method="lora",
        lora={"rank": 8, "targets": "qv"}, trainable_params=lora_count(L31, qv, 8), optimizer="adamw",
        optimizer_impl="fused", recompute="full", gpus=1, **pk),
        src, loc + ", row 'Llama 3.1 8B | LoRA | 1x 4090'",
        common + ["config llama3_1/8B_lora_single_device: LoRA r=8 on q_proj,v_proj, AdamW fused=True"],
        gpu="rtx-4090")
    add(124, "torchtune_single", "low", "allocated", 30.3, GIB, tt(
        name="torchtune LoRA Llama 3.1 8B on 1x RTX A6000", model=L31, method="lora",
        lora={"rank": 8, "targets": "qv"}, trainable_params=lora_count(L31, qv, 8), optimizer="adamw",
        optimizer_impl="fused", recompute="none", gpus=1, **pk),
        src, loc + ", row 'Llama 3.1 8B | LoRA | 1x A6000'",
        common + ["config llama3_1/8B_lora_single_device; activation checkpointing assumed off"],
        gpu="rtx-a6000")
    add(125, "qlora", "low", "allocated", 7.4, GIB, tt(
        name="torchtune QLoRA Llama 3.1 8B on 1x RTX 4090", model=L31, method="qlora", weights_dtype="nf4",
        quant_compute_dtype="bf16", lora={"rank": 8, "targets": "all-linear"},
        trainable_params=lora_count(L31, all7, 8), optimizer="adamw", optimizer_impl="fused",
        recompute="full", gpus=1, **pk),
        src, loc + ", row 'Llama 3.1 8B | QLoRA | 1x 4090'",
        common + ["config llama3_1/8B_qlora_single_device: LoRA r=8 on q,k,v,output_proj + MLP"],
        gpu="rtx-4090")
    add(126, "fsdp_full", "low", "allocated", 13.9, GIB, tt(
        name="torchtune full fine-tune Llama 3.1 70B on 8x A100 (FSDP2, CPU offload)", model="llama-3.1-70b",
        method="full", optimizer="adamw", optimizer_impl="fused", recompute="full", gpus=8, sharding="fsdp2",
        reshard_after_forward=True, offload="optimizer+params", **pk),
        src, loc + ", row 'Llama 3.1 70B | Full finetune | 8x A100' (footnote: uses CPU offload with fused optimizer)",
        common + ["recipes/full_finetune_distributed.py @30b8519e8: FSDP2 fully_shard per layer, "
                  "fsdp_cpu_offload True (CPUOffloadPolicy: parameters, gradients and optimizer state on the "
                  "host), custom_sharded_layers tok_embeddings and output",
                  "A100 80GB assumed (the README says '8x A100')"],
        gpu="a100-80gb")
    add(127, "fsdp2_lora", "low", "allocated", 27.6, GIB, tt(
        name="torchtune LoRA Llama 3.1 70B on 8x A100 (FSDP2)", model="llama-3.1-70b", method="lora",
        lora={"rank": 16, "targets": ["q", "k", "v"]},
        trainable_params=lora_count("llama-3.1-70b", ["q", "k", "v"], 16), optimizer="adamw",
        optimizer_impl="fused", recompute="full", gpus=8, sharding="fsdp2", reshard_after_forward=True, **pk),
        src, loc + ", row 'Llama 3.1 70B | LoRA | 8x A100'",
        common + ["config llama3_1/70B_lora: LoRA r=16 on q_proj,k_proj,v_proj; FSDP2 of every parameter",
                  "A100 80GB assumed"],
        gpu="a100-80gb")
    add(128, "fsdp2_lora", "low", "allocated", 44.8, GIB, tt(
        name="torchtune QLoRA Llama 3.1 405B on 8x A100 (FSDP2)", model=LLAMA_405B, method="qlora",
        weights_dtype="nf4", quant_compute_dtype="bf16", lora={"rank": 16, "targets": "all-linear"},
        trainable_params=lora_count("llama-3.1-405b", all7, 16), optimizer="adamw", optimizer_impl="fused",
        recompute="full", gpus=8, sharding="fsdp2", reshard_after_forward=True,
        **dict(pk, loss="upcast")),
        src, loc + ", row 'Llama 3.1 405B | QLoRA | 8x A100' ('44.8 GB')",
        common + ["this cell says 'GB' where the others say 'GiB'; taken as GiB like the rest of the column",
                  "config llama3_1/405B_qlora: LoRA r=16 on q,k,v,output_proj + MLP, torch.nn.CrossEntropyLoss "
                  "(not chunked), FSDP2; A100 80GB assumed"],
        gpu="a100-80gb")

    # --- README table of 2024-11-18: optimisation flags, Llama 3.2 3B ----
    src = "pytorch/torchtune README.md @1814feb17 (2024-11-18, 'add flags to readme (#2003)')"
    loc = "'Optimization flags' table (Recipe full_finetune_single_device, Llama 3.2 3B, batch 2, max seq 4096, bf16, A100)"
    common = ["metric named by the source: Peak Memory Active (GiB) = torch.cuda.memory_stats "
              "'active_bytes.all.peak' / 2**30; taken as allocated (equal unless blocks wait on streams, "
              "as activation offloading's do)",
              "each row adds its technique to the previous one; LoRA and QLoRA rows use the final "
              "command shown in the README (no optimizer_in_bwd, torch AdamW)",
              "A100 80GB assumed (the README says 'Hardware=A100')"]
    steps = [
        (131, 25.5, "Baseline", dict(seq_len=ALPACA_LLAMA3, loss="upcast", recompute="none")),
        (132, 60.0, "+ Packed Dataset", dict(seq_len=4096, packed=True, loss="upcast", recompute="none")),
        (133, 51.0, "+ Compile", dict(seq_len=4096, packed=True, compile=True, loss="upcast", recompute="none")),
        (134, 42.9, "+ Chunked Cross Entropy", dict(seq_len=4096, packed=True, compile=True, loss="chunked",
                                                     recompute="none")),
        (135, 24.9, "+ Activation Checkpointing", dict(seq_len=4096, packed=True, compile=True, loss="chunked",
                                                        recompute="full")),
        (136, 23.1, "+ Fuse optimizer step into backward", dict(seq_len=4096, packed=True, compile=True,
                                                                 loss="chunked", recompute="full",
                                                                 optimizer_in_bwd=True)),
        (137, 21.8, "+ Activation Offloading", dict(seq_len=4096, packed=True, compile=True, loss="chunked",
                                                     recompute="full", optimizer_in_bwd=True,
                                                     activation_offload=True)),
        (138, 17.6, "+ 8-bit AdamW", dict(seq_len=4096, packed=True, compile=True, loss="chunked",
                                           recompute="full", optimizer_in_bwd=True, activation_offload=True,
                                           optimizer="adamw-8bit-ao")),
    ]
    for rid, val, label, kw in steps:
        s = tt(name=f"torchtune Llama 3.2 3B full fine-tune, {label}", model=L32, method="full",
               optimizer="adamw", optimizer_impl="foreach", micro_batch=2, grad_accum=1, gpus=1)
        s.update(kw)
        notes = list(common)
        if rid == 131:
            notes.append(TT_SEQ_NOTE3 + " (alpaca_dataset, max_seq_len 4096 truncates nothing)")
        if rid == 138:
            notes.append("'8-bit AdamW' links torchtune's lower-precision-optimizers section, which uses "
                         "torchao's AdamW8bit; taken as adamw-8bit-ao (bitsandbytes AdamW8bit is the alternative)")
        notes.append("torch.optim.AdamW with PyTorch defaults (foreach) and bf16 states (param dtype) for "
                     "the baseline, replacing the config's PagedAdamW8bit (the table says the 8-bit optimizer "
                     "is added last)")
        add(rid, "torchtune_single", "medium" if rid != 131 else "medium", "allocated", val, GIB, s,
            src, loc + f", row '{label}'", notes, gpu="a100-80gb")
    lora_cmd = ("tune run lora_finetune_single_device --config llama3_2/3B_qlora_single_device dataset.packed=True "
                "compile=True loss=torchtune.modules.loss.CEWithChunkedOutputLoss enable_activation_checkpointing=True "
                "optimizer_in_bwd=False enable_activation_offloading=True optimizer=torch.optim.AdamW "
                "tokenizer.max_seq_len=4096 gradient_accumulation_steps=1 epochs=1 batch_size=2")
    lt = ["q", "v", "o", "gate", "up", "down"]
    for rid, val, label, q in ((139, 8.5, "LoRA", False), (140, 4.6, "QLoRA", True)):
        s = tt(name=f"torchtune Llama 3.2 3B {label} with every flag", model=L32,
               method="qlora" if q else "lora", lora={"rank": 64, "targets": ["q", "v", "o", "gate", "up", "down"]},
               trainable_params=lora_count(L32, lt, 64), optimizer="adamw", optimizer_impl="fused",
               micro_batch=2, grad_accum=1, seq_len=4096, packed=True, compile=True, loss="chunked",
               recompute="full", activation_offload=True, gpus=1)
        if q:
            s.update(weights_dtype="nf4", quant_compute_dtype="bf16")
        add(rid, "qlora" if q else "torchtune_single", "high", "allocated", val, GIB, s,
            src, loc + f", row '{label}' and the 'Command to reproduce final row'",
            common + ["config llama3_2/3B_%s_single_device @1814feb17: LoRA r=64 alpha=128 on q_proj, v_proj, "
                      "output_proj and the MLP, AdamW fused=True (kept by the optimizer override)" %
                      ("qlora" if q else "lora")],
            gpu="a100-80gb", stack_config=lora_cmd if q else lora_cmd.replace("3B_qlora", "3B_lora"))


# ---------------------------------------------------------------------------
# torchtitan: benchmarks/ (pytorch/torchtitan)
# ---------------------------------------------------------------------------
TITAN_METRIC = ("metric reserved in GiB: torchtitan train.py @9dec370 logs "
                "device_memory_monitor.get_peak_stats().max_reserved_gib = "
                "memory_stats()['reserved_bytes.all.peak'] / 2**30 ('memory: X GiB'); the benchmark "
                "notes 'Different PP ranks can have different peak memory usages. We take the maximum'")
TITAN_COMMON = ("torchtitan @9dec370: FSDP2 fully_shard per TransformerBlock with "
                "MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32): fp32 sharded master parameters, "
                "gradients and AdamW state (foreach, optimizer.fused false); C4 dataset, every sample "
                "seq_len tokens; untied output head; CrossEntropy on fp32 logits")
TITAN_SRC = "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md (torchtitan 9dec370, torch 1963fc8, 2024-12)"
TITAN_BASE = {"task": "train", "stack": "torchtitan", "weights_dtype": "bf16", "compute": "bf16-mixed",
              "optimizer": "adamw", "optimizer_impl": "foreach", "attention": "flash", "loss": "upcast",
              "sharding": "fsdp2", "reshard_after_forward": True, "offload": "none", "grad_accum": 1}


def titan(**kw):
    s = dict(TITAN_BASE)
    s.update(kw)
    return s


@family
def torchtitan_rows():
    f8 = ("Float8 linears (torchao convert_to_float8_training, enable_fsdp_float8_all_gather): compute "
          "fp8-mixed; Table 1 of the same source shows Float8 changing memory by 0.3% (77.0 -> 76.8 GiB)")
    sac = "selective activation checkpointing, per-op policy (activation_checkpoint.mode='selective', option 'op')"
    add(201, "fsdp_full", "high", "reserved", 82.4, GIB, titan(
        name="torchtitan Llama 3.1 8B, FSDP on 8 H100", model="llama-3.1-8b", micro_batch=2, seq_len=8192,
        recompute="selective", gpus=8),
        TITAN_SRC, "Table 1 (1D FSDP, Llama 3.1 8B, 8 GPUs, local batch 2, selective AC), row 'FSDP'",
        [TITAN_METRIC, TITAN_COMMON, sac, "seq_len 8192 from train_configs/llama3_8b.toml @9dec370"],
        gpu=H100_96)
    add(202, "fsdp_full", "high", "reserved", 77.0, GIB, titan(
        name="torchtitan Llama 3.1 8B, FSDP + torch.compile on 8 H100", model="llama-3.1-8b", micro_batch=2,
        seq_len=8192, recompute="selective", compile=True, gpus=8),
        TITAN_SRC, "Table 1, row 'FSDP + torch.compile'",
        [TITAN_METRIC, TITAN_COMMON, sac, "torch.compile per TransformerBlock"], gpu=H100_96)
    add(203, "fsdp_full", "high", "reserved", 67.0, GIB, titan(
        name="torchtitan Llama 3.1 8B, FSDP on 128 H100", model="llama-3.1-8b", micro_batch=2, seq_len=8192,
        recompute="selective", gpus=128),
        TITAN_SRC, "Table 3 (1D FSDP, 128 GPUs, local batch 2, selective AC), row 'FSDP'",
        [TITAN_METRIC, TITAN_COMMON, sac], gpu=H100_96)
    add(204, "fsdp_full", "high", "reserved", 62.0, GIB, titan(
        name="torchtitan Llama 3.1 8B, FSDP + compile on 128 H100", model="llama-3.1-8b", micro_batch=2,
        seq_len=8192, recompute="selective", compile=True, gpus=128),
        TITAN_SRC, "Table 3, row 'FSDP + torch.compile'", [TITAN_METRIC, TITAN_COMMON, sac], gpu=H100_96)
    for rid, fsdp, cp, seq, val in ((205, 8, 1, 32768, 83.9), (206, 4, 2, 65536, 84.2), (207, 2, 4, 131072, 84.0),
                                    (208, 1, 8, 262144, 84.5)):
        add(rid, "context_parallel", "medium", "reserved", val, GIB, titan(
            name=f"torchtitan Llama 3.1 8B, FSDP {fsdp} x CP {cp}, seq {seq}", model="llama-3.1-8b",
            micro_batch=1, seq_len=seq, recompute="full", compile=True, context_parallel=cp, compute="fp8-mixed", gpus=8),
            TITAN_SRC, f"Table 2 (FSDP + CP + torch.compile + Float8, 8 GPUs, local batch 1, full AC), "
                       f"row 'FSDP {fsdp}, CP {cp}'",
            [TITAN_METRIC, TITAN_COMMON, f8, "full activation checkpointing",
             "context parallel degree cp; data-parallel (FSDP) degree = 8 / cp"], gpu=H100_96)
    add(209, "tensor_parallel", "medium", "reserved", 71.9, GIB, titan(
        name="torchtitan Llama 3.1 70B, FSDP 32 x TP 8 on 256 H100", model="llama-3.1-70b", micro_batch=16,
        seq_len=8192, recompute="full", compile=True, tensor_parallel=8, sequence_parallel=True, compute="fp8-mixed", gpus=256),
        TITAN_SRC, "Table 4 (2D FSDP 32 + TP 8, torch.compile, Float8, local batch 16, full AC), row '2D'",
        [TITAN_METRIC, TITAN_COMMON, f8, "torchtitan's tensor parallel plan shards norms' activations along "
         "the sequence (SequenceParallel), i.e. Megatron sequence parallelism",
         "local batch 16 = batch per data-parallel rank, shared by its TP group"], gpu=H100_96)
    add(210, "tensor_parallel", "medium", "reserved", 67.6, GIB, titan(
        name="torchtitan Llama 3.1 70B, FSDP 32 x async TP 8 on 256 H100", model="llama-3.1-70b",
        micro_batch=16, seq_len=8192, recompute="full", compile=True, tensor_parallel=8,
        sequence_parallel=True, compute="fp8-mixed", gpus=256),
        TITAN_SRC, "Table 4, row '2D + AsyncTP'",
        [TITAN_METRIC, TITAN_COMMON, f8, "async TP (symmetric-memory micro-pipelining) is not expressible; "
         "it changes the peak by -6% against row 209"], gpu=H100_96)
    for rid, sched, val in ((211, "1f1b", 82.5), (212, "interleaved", 72.7)):
        add(rid, "pipeline_parallel", "medium", "reserved", val, GIB, titan(
            name=f"torchtitan Llama 3.1 405B, FSDP 8 x TP 8 x PP 8 ({sched}) on 512 H100", model=LLAMA_405B,
            micro_batch=4, grad_accum=8, seq_len=8192, recompute="full", compile=True, tensor_parallel=8,
            sequence_parallel=True, pipeline_parallel=8, pipeline_schedule=sched, compute="fp8-mixed", gpus=512),
            TITAN_SRC, f"Table 5 (3D, 512 GPUs, local batch 32, full AC, Float8, AsyncTP), row "
                       f"'{'1F1B' if sched == '1f1b' else 'Interleaved 1F1B'}'",
            [TITAN_METRIC, TITAN_COMMON, f8, "local batch 32 per data-parallel rank; the micro-batch count "
             "and size of the pipeline are not stated (torchtitan's default pipeline_parallel_microbatches "
             "= number of stages at that commit: assumption)",
             "the figure is the maximum over pipeline ranks (footnote 1)",
             "pipelining_utils.py @9dec370 build_pipeline_schedule: n_microbatches = pipeline_parallel_degree "
             "(8) when not set, so the local batch of 32 runs as 8 pipeline micro-batches of 4: micro_batch 4 "
             "(samples per forward) and grad_accum 8 (micro-batches per step), as the scenario format says a "
             "pipeline's micro-batches"], gpu=H100_96)
    for rid, fsdp, cp, seq, val in ((213, 8, 1, 32768, 75.3), (214, 1, 8, 262144, 84.9)):
        add(rid, "context_parallel", "low", "reserved", val, GIB, titan(
            name=f"torchtitan Llama 3.1 405B 4D, FSDP {fsdp} x CP {cp}, seq {seq}", model=LLAMA_405B,
            micro_batch=1, grad_accum=8, seq_len=seq, recompute="full", compile=True, tensor_parallel=8,
            sequence_parallel=True, pipeline_parallel=8, pipeline_schedule="1f1b", context_parallel=cp,
            compute="fp8-mixed", gpus=512),
            TITAN_SRC, f"Table 6 (4D FSDP + TP 8 + PP 8 + CP, 1F1B, local batch 8), row 'FSDP {fsdp}, CP {cp}'",
            [TITAN_METRIC, TITAN_COMMON, f8, "pipeline micro-batching not stated (assumption as rows 211-212): "
             "the local batch of 8 as 8 pipeline micro-batches of 1 (micro_batch 1, grad_accum 8)"],
            gpu=H100_96)
    src = ("pytorch/torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md "
           "(torchtitan e7c0cae, torch 2.8.0a0, 2025-06)")
    for rid, nodes, val in ((215, 4, 47.96), (216, 8, 46.97)):
        add(rid, "fsdp_full", "medium", "reserved", val, GIB, titan(
            name=f"torchtitan Llama 3.1 8B, FSDP on {8 * nodes} H200", model="llama-3.1-8b", micro_batch=2,
            seq_len=8192, recompute="selective", compile=True, compute="fp8-mixed", gpus=8 * nodes),
            src, f"Results table, row 'NUM_NODES {nodes}' (sampled at iteration 100)",
            [TITAN_METRIC, "config llama3_8b.toml at e7c0cae with --training.local_batch_size=2 --training.compile "
             "and Float8 (fsdp float8 all-gather, force_recompute_fp8_weight_in_bwd); seq_len 8192 and "
             "selective AC are that toml's defaults (assumption: not re-read at e7c0cae)", f8],
            gpu="h200",
            stack_config="torchtitan/train.py --job.config-file torchtitan/models/llama3/train_configs/llama3_8b.toml "
                         "--training.local_batch_size=2 --training.compile --model.converters=quantize.linear.float8 "
                         "--quantize.linear.float8.enable_fsdp_float8_all_gather "
                         "--quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp "
                         "--quantize.linear.float8.force_recompute_fp8_weight_in_bwd")


# ---------------------------------------------------------------------------
# Hugging Face PEFT: method_comparison benchmarks and README tables
# ---------------------------------------------------------------------------
PEFT_SRC = ("huggingface/peft method_comparison/MetaMathQA/results/{name}.json @5d602fdb "
            "(peft 0.19.2.dev0, transformers 5.13.1, torch 2.13.0, bitsandbytes 0.49.2, NVIDIA L40S)")
PEFT_METRIC = ("metric reserved: train_info.accelerator_memory_max = torch.cuda.max_memory_reserved() at the end "
               "minus max_memory_reserved() after init_accelerator (a 1x1 Linear, about 2 MiB) "
               "(method_comparison/MetaMathQA/utils.py), bytes as published")
PEFT_SETUP = ("default_training_params.json: meta-llama/Llama-3.2-3B in bfloat16 without autocast (use_amp false), "
              "batch 4, max_seq_length 768, AdamW, no gradient checkpointing (use_gc false), no compile, "
              "attn_implementation default (sdpa); transformers' causal-LM loss upcasts the logits to fp32")
PEFT_SEQ = ("seq_len 768: queries+responses over 1300 characters are filtered out (data.py, 'with a token limit of "
            "768 ... 93.8% of the dataset') and inputs are truncated at 768; over 5000 steps of batch 4 the "
            "longest batch is taken to reach the cap (assumption)")
PEFT_ADAPTER = ("autocast_adapter_dtype true: adapter weights are upcast to fp32, and PEFT casts each adapted "
                "layer's input to the adapter dtype, so the adapted projections save an fp32 copy of their input")


@family
def peft_rows():
    M = "llama-3.2-3b"
    base = {"task": "finetune", "model": M, "weights_dtype": "bf16", "compute": "bf16-pure",
            "optimizer": "adamw", "optimizer_impl": "foreach", "micro_batch": 4, "grad_accum": 1,
            "seq_len": 768, "recompute": "none", "attention": "sdpa", "loss": "upcast", "gpus": 1,
            "sharding": "none", "offload": "none", "gpu": "l40s"}
    # (row, result file, method, lora/peft settings, trainable count as published, value bytes, extra notes)
    runs = [
        (301, "lora--llama-3.2-3B-rank32", "lora", {"lora": {"rank": 32, "targets": "qv"}}, 9175040, 22292725760,
         ["LoRA r=32 alpha=64 on q_proj, v_proj"]),
        (302, "lora--llama-3.2-3B-rank64", "lora", {"lora": {"rank": 64, "targets": "qv"}}, 18350080, 22552772608,
         ["LoRA r=64 alpha=128 on q_proj, v_proj"]),
        (303, "lora--llama-3.2-3B-rank10-target-mlp", "lora", {"lora": {"rank": 10, "targets": "mlp"}}, 9461760,
         24698159104, ["LoRA r=10 on gate_proj, up_proj, down_proj"]),
        (304, "lora--llama-3.2-3B-rank32-dora", "dora", {"lora": {"rank": 32, "targets": "qv"}}, 9289728,
         24532484096, ["LoRA r=32 with use_dora=True on q_proj, v_proj (DoRA magnitude vector per output)"]),
        (305, "lora--llama-3.2-3B-rank32-lorafa", "lora-fa", {"lora": {"rank": 32, "targets": "qv"}}, 3670016,
         22240296960, ["LoRA-FA: optimizer_type 'lora-fa' (A frozen, only B trained), r=32 on q_proj, v_proj"]),
        (306, "vera--llama-3.2-3B-default", "vera", {"lora": {"rank": 256, "targets": "qv"},
                                                     "peft": {"d_initial": 0.1, "save_projection": True}},
         129024, 21621637120, ["VeRA r=256 on q_proj, v_proj, shared random projections, d_initial 0.1; lr 1e-3"]),
        (307, "ia3--llama-3.2-3B-default", "ia3", {"lora": {"targets": ["k", "v", "down"]}}, 286720, 23234347008,
         ["IA3 on k_proj, v_proj, down_proj (feedforward_modules down_proj)"]),
        (308, "ia3--llama-3.2-3B-all-attn-5k-lr0.005", "ia3",
         {"lora": {"targets": ["q", "k", "v", "o", "gate", "up", "down"]}}, 630784, 26145193984,
         ["IA3 on every projection (feedforward_modules gate, up, down)"]),
        (309, "loha--llama-3.2-3B-rank32", "loha", {"lora": {"rank": 32, "targets": "qv"}}, 18350080, 23907532800,
         ["LoHa r=32 on q_proj, v_proj"]),
        (310, "lokr--llama-3.2-3B-rank32-factor4-lr0.003", "lokr",
         {"lora": {"rank": 32, "targets": "qv"}, "peft": {"decompose_factor": 4}}, 2294656, 23590862848,
         ["LoKr r=32, decompose_factor 4, on q_proj, v_proj"]),
        (311, "oft--llama-3.2-3B-rank32", "oft", {"lora": {"rank": 32, "targets": "qv"}}, 8171520, 22332571648,
         ["OFT r=32 on q_proj, v_proj"]),
        (312, "boft--llama-3.2-3B-default", "boft",
         {"lora": {"targets": "qv"}, "peft": {"block_size": 4, "n_butterfly_factor": 1}}, 802816, 24691867648,
         ["BOFT boft_block_size 4, boft_n_butterfly_factor 1, on q_proj, v_proj"]),
        (313, "prefixtuning--llama-3.2-3B-lr_0.001", "prefix", {"peft": {"num_virtual_tokens": 200}}, 11468800,
         21952987136, ["prefix tuning, 200 virtual tokens in every layer's keys and values (no projection)"]),
        (314, "prefixtuning--llama-3.2-3B-tokens50-init_prefix-lr_0.005", "prefix",
         {"peft": {"num_virtual_tokens": 50}}, 2867200, 20585644032, ["prefix tuning, 50 virtual tokens"]),
        (315, "prompt_tuning--llama-3.2-3B-default", "prompt", {"peft": {"num_virtual_tokens": 200}}, 614400,
         24394072064, ["prompt tuning, 200 virtual tokens prepended to the input (sequence 768 + 200)"]),
        (316, "ln_tuning--llama-3.2-3B-default", "layernorm", {}, 175104, 21181235200,
         ["LN tuning: input_layernorm, post_attention_layernorm and the final norm trainable"]),
        (317, "adalora--llama-3.2-3B-rank32", "adalora",
         {"lora": {"rank": 64, "targets": "qv"}, "peft": {"init_r": 64, "target_r": 32}}, 18353664, 22781362176,
         ["AdaLoRA init_r 64 -> target_r 32 on q_proj, v_proj, total_step 5000 (SVD-form adapters)"]),
    ]
    for rid, name, method, extra, trainable, value, notes in runs:
        s = dict(base)
        s.update(name=f"PEFT MetaMathQA {name}", method=method, trainable_params=trainable)
        s.update(extra)
        add(rid, "peft_methods", "high", "reserved", value, 1, s, PEFT_SRC.format(name=name),
            "train_info.accelerator_memory_max (also shown in the method_comparison Gradio app)",
            [PEFT_METRIC, PEFT_SETUP, PEFT_SEQ, PEFT_ADAPTER] + notes +
            [f"trainable_params {trainable:,} = train_info.num_trainable_params"], gpu="l40s")
    s = dict(base)
    s.update(name="PEFT MetaMathQA full fine-tuning (bf16)", method="full", optimizer_state_dtype="bf16")
    add(318, "peft_methods", "high", "reserved", 38868615168, 1, s,
        PEFT_SRC.format(name="full-finetuning--llama-3.2-3B-lr_0.00001"),
        "train_info.accelerator_memory_max",
        [PEFT_METRIC, PEFT_SETUP, PEFT_SEQ, "full fine-tuning of the bf16 model: bf16 weights, gradients and "
         "AdamW moments (torch.optim keeps state in the parameter's dtype), lr 1e-5"], gpu="l40s")

    # --- Flux.2 klein 4B image-generation benchmark -----------------------
    fsrc = ("huggingface/peft method_comparison/image-gen/results/{name}.json @5d602fdb "
            "(default_training_params.json: FLUX.2-klein-base-4B, NVIDIA L40S)")
    fnotes = ["metric reserved: accelerator_memory_max as in the MetaMathQA benchmark; the image-gen README says it "
              "covers the training part only, not evaluation",
              "only the transformer is on the GPU while training: prompt embeddings and VAE latents are "
              "precomputed (run.py precompute_prompt_caches / precompute_latent_cache with the text encoder and "
              "VAE offloaded), so text encoder and VAE keep no memory during training",
              "resolution 512, batch 2, bfloat16 without autocast, gradient checkpointing (use_gc true), AdamW "
              "lr 1e-4; fp32 adapters (autocast_adapter_dtype true); max_sequence_length 512 prompt tokens",
              "model id flux.2-klein-4b is not in the catalog yet (FLUX.2-klein-base-4B, 3.88B-parameter "
              "transformer by the full-finetuning row's num_trainable_params 3,875,544,576)"]
    fbase = {"task": "finetune", "model": "flux.2-klein-4b", "weights_dtype": "bf16", "compute": "bf16-pure",
             "optimizer": "adamw", "micro_batch": 2, "grad_accum": 1, "image_size": 512, "recompute": "full",
             "attention": "sdpa", "gpus": 1, "sharding": "none", "offload": "none", "gpu": "l40s"}
    flux = [
        (351, "lora--flux2-klein-default", "lora", {"lora": {"rank": 32, "targets": "all-linear"}}, 38338560,
         10708058112, "LoRA r=32 alpha=32 on the attention and MLP projections of every block"),
        (352, "full-finetuning--flux2-klein-default", "full", {"optimizer_state_dtype": "bf16"}, None, None,
         "full fine-tuning in bf16: bf16 weights, gradients and AdamW moments (3,875,544,576 trainable)"),
        (353, "loha--flux2-klein-default", "loha", {"lora": {"rank": 32, "targets": "all-linear"}}, 76677120, None,
         "LoHa on the same modules"),
        (354, "oft--flux2-klein-default", "oft", {"lora": {"targets": "all-linear"}, "peft": {"block_size": 32}},
         4761600, None, "OFT oft_block_size 32 (r 0), Cayley-Neumann parametrisation, on the same modules"),
        (355, "ia3--flux2-klein-default", "ia3", {"lora": {"targets": "all-linear"}}, 307200, None,
         "IA3 on the same modules"),
    ]
    # accelerator_memory_max of each result file (bytes)
    fvalues = {"lora--flux2-klein-default": 10708058112, "full-finetuning--flux2-klein-default": 39873150976,
               "loha--flux2-klein-default": 12691963904, "oft--flux2-klein-default": 9669967872,
               "ia3--flux2-klein-default": 9586081792}
    for rid, name, method, extra, trainable, _, note in flux:
        s = dict(fbase)
        s.update(name=f"PEFT image-gen {name}", method=method)
        if trainable:
            s["trainable_params"] = trainable
        s.update(extra)
        add(rid, "diffusion_dit", "medium", "reserved", fvalues[name], 1, s, fsrc.format(name=name),
            "train_info.accelerator_memory_max", fnotes + [note], gpu="l40s")


def t5_model(mid, name, d, ff, heads, layers, vocab, target_tokens, source):
    """A T5 v1.1 encoder-decoder (gated-GELU, RMS LayerNorm, untied head) as two components."""
    attn = 4 * d * (heads * 64)
    enc_layer = attn + 3 * d * ff + 2 * d
    dec_layer = 2 * attn + 3 * d * ff + 3 * d
    rel = 32 * heads
    emb = vocab * d
    enc = emb + layers * enc_layer + d + rel
    dec = layers * dec_layer + d + rel + emb
    common = {"kind": "transformer", "trainable": True, "layers": layers, "hidden": d, "heads": heads,
              "head_dim": 64, "intermediate": ff, "glu": True, "norm": "rmsnorm", "dropout": True,
              "max_seq_len": 512, "attention_variant": "t5"}
    return {"id": mid, "name": name, "params": enc + dec, "source": source,
            "components": [
                dict(common, name="encoder (with the shared embedding)", params=enc, tokens="seq_len"),
                dict(common, name="decoder (with the untied lm_head; cross-attention counted in its params)",
                     params=dec, tokens=target_tokens, vocab=vocab)]}


T0_3B = t5_model("bigscience/T0_3B", "T0 3B (T5 v1.1 LM-adapted XL)", 2048, 5120, 32, 24, 32128, 4,
                 "huggingface.co/bigscience/T0_3B config.json: d_model 2048, d_ff 5120, d_kv 64, num_heads 32, "
                 "num_layers 24, num_decoder_layers 24, vocab_size 32128, feed_forward_proj gated-gelu, "
                 "tie_word_embeddings false, dropout_rate 0.1; params counted from those shapes "
                 "(2,849,757,184)")
MT0_XXL = t5_model("bigscience/mt0-xxl", "mT0 XXL (mT5 XXL)", 4096, 10240, 64, 24, 250112, 4,
                   "huggingface.co/bigscience/mt0-xxl config.json: d_model 4096, d_ff 10240, d_kv 64, "
                   "num_heads 64, num_layers 24, num_decoder_layers 24, vocab_size 250112, gated-gelu, untied; "
                   "params counted from those shapes (12,921,057,280)")
BLOOMZ_7B1 = {
    "id": "bigscience/bloomz-7b1", "name": "BLOOMZ 7B1", "params": 7069016064,
    "layers": 30, "hidden": 4096, "heads": 32, "intermediate": 16384, "vocab": 250880, "glu": False,
    "norm": "layernorm", "dropout": False, "tied_embeddings": True, "max_seq_len": 2048,
    "source": "huggingface.co/bigscience/bloomz-7b1 config.json: n_layer 30, hidden_size 4096, n_head 32, "
              "vocab_size 250880, ALiBi, LayerNorm, 4h GELU MLP, tied embeddings; 7,069,016,064 parameters "
              "(BLOOM paper, Table 3: 7.1B)",
}


@family
def peft_readme_rows():
    src = "huggingface/peft README.md @73d7224b (2022-12-30, 'add examples and update readme'), unchanged at @5d602fdb"
    loc = "'Consider the memory requirements for training ... on ought/raft/twitter_complaints ... A100 80GB' table"
    metric = ("metric allocated: the examples print 'GPU Total Peak Memory consumed during the train (max)' = "
              "TorchTracemalloc peak (torch.cuda.max_memory_allocated) in MiB (b2mb = bytes / 2**20); the "
              "README's 'GB' taken as that MiB figure / 1024 (GiB) (assumption, 2.4% from decimal GB)")
    s2s = ("examples/conditional_generation/peft_lora_seq2seq_accelerate_ds_zero3_offload.py @73d7224b: batch 8, "
           "AdamW lr 3e-3, fp32 (accelerate mixed_precision 'no'), inputs padded to the longest in the batch "
           "(tokenizer.pad padding='longest'); labels = class names ('complaint', 'no complaint'), "
           "target_max_length tokens; LoRA r=8 alpha=32 on T5's default q, v (self- and cross-attention)")
    seq = ("seq_len 96: longest of the 50 training tweets (<= 280 characters) taken as about 96 T5 tokens "
           "(assumption); decoder tokens 4 (longest class label + EOS)")
    cpu = "(the README's CPU column is host RAM, not scored)"
    t5lora = 72 * 2 * 8 * (2048 + 2048)   # q and v in 24 encoder + 48 decoder attention blocks, r=8
    mt0lora = 72 * 2 * 8 * (4096 + 4096)
    base = {"task": "finetune", "compute": "fp32", "weights_dtype": "fp32", "optimizer": "adamw",
            "optimizer_impl": "foreach", "micro_batch": 8, "grad_accum": 1, "recompute": "none",
            "attention": "eager", "loss": "upcast", "gpus": 1, "sharding": "none", "offload": "none",
            "gpu": "a100-80gb"}

    def r(**kw):
        d = dict(base)
        d.update(kw)
        return d
    add(361, "encoder_decoder", "medium", "allocated", 47.14, GIB, r(
        name="PEFT README: T0_3B full fine-tuning (fp32)", model=T0_3B, method="full", seq_len=96),
        src, loc + ", row 'bigscience/T0_3B', column 'Full Finetuning' (47.14GB GPU)",
        [metric, s2s.replace("; LoRA r=8 alpha=32 on T5's default q, v (self- and cross-attention)", ""), seq, cpu,
         "full fine-tuning: the README's script for this column is not named; taken as the same script without PEFT"])
    add(362, "encoder_decoder", "medium", "allocated", 14.4, GIB, r(
        name="PEFT README: T0_3B LoRA (plain PyTorch)", model=T0_3B, method="lora",
        lora={"rank": 8, "targets": ["q", "v"]}, trainable_params=t5lora, seq_len=96),
        src, loc + ", row 'bigscience/T0_3B', column 'PEFT-LoRA PyTorch' (14.4GB GPU)",
        [metric, s2s, seq, cpu, f"trainable_params {t5lora:,} counted: r x (2048 + 2048) for q and v in 72 "
         "attention blocks"])
    add(363, "deepspeed_zero", "medium", "allocated", 9.8, GIB, r(
        name="PEFT README: T0_3B LoRA, DeepSpeed ZeRO-3 with CPU offload", model=T0_3B, method="lora",
        lora={"rank": 8, "targets": ["q", "v"]}, trainable_params=t5lora, seq_len=96, stack="deepspeed",
        sharding="zero3", offload="optimizer+params",
        deepspeed={"offload_param": "cpu", "offload_optimizer": "cpu"}),
        src, loc + ", row 'bigscience/T0_3B', column 'PEFT-LoRA DeepSpeed with CPU Offloading' (9.8GB GPU)",
        [metric, s2s, seq, cpu, "accelerate config ds_zero3_cpu.yaml (README @5de17518): zero_stage 3, "
         "offload_optimizer_device cpu, offload_param_device cpu, zero3_init_flag true, mixed_precision 'no', "
         "one process; DeepSpeed's stage-3 defaults for buckets and persistence"],
        stack_config="deepspeed_config: {gradient_accumulation_steps: 1, gradient_clipping: 1.0, "
                     "offload_optimizer_device: cpu, offload_param_device: cpu, zero3_init_flag: true, "
                     "zero3_save_16bit_model: true, zero_stage: 3}; mixed_precision: 'no'; num_processes: 1")
    add(364, "encoder_decoder", "medium", "allocated", 80, GIB, r(
        name="PEFT README: mt0-xxl full fine-tuning runs out of memory on 80 GB", model=MT0_XXL, method="full",
        seq_len=96),
        src, loc + ", row 'bigscience/mt0-xxl', column 'Full Finetuning' (OOM GPU)",
        [metric, seq, "OOM on an A100 80GB: the value is the card's capacity, a lower bound"],
        bound="lower_bound")
    add(365, "encoder_decoder", "medium", "allocated", 56, GIB, r(
        name="PEFT README: mt0-xxl LoRA (plain PyTorch)", model=MT0_XXL, method="lora",
        lora={"rank": 8, "targets": ["q", "v"]}, trainable_params=mt0lora, seq_len=96),
        src, loc + ", row 'bigscience/mt0-xxl', column 'PEFT-LoRA PyTorch' (56GB GPU)",
        [metric, s2s, seq, cpu, "56GB is rounded to the gigabyte in the source"])
    add(366, "deepspeed_zero", "medium", "allocated", 22, GIB, r(
        name="PEFT README: mt0-xxl LoRA, DeepSpeed ZeRO-3 with CPU offload", model=MT0_XXL, method="lora",
        lora={"rank": 8, "targets": ["q", "v"]}, trainable_params=mt0lora, seq_len=96, stack="deepspeed",
        sharding="zero3", offload="optimizer+params",
        deepspeed={"offload_param": "cpu", "offload_optimizer": "cpu"}),
        src, loc + ", row 'bigscience/mt0-xxl', column 'PEFT-LoRA DeepSpeed with CPU Offloading' (22GB GPU)",
        [metric, s2s, seq, cpu, "accelerate ds_zero3_cpu.yaml as row 363; 22GB rounded in the source"])
    clm = ("examples/causal_language_modeling/pet_lora_clm_accelerate_ds_zero3_offload.py @73d7224b: batch 8, "
           "every sample left-padded or cut to max_length 64, AdamW lr 3e-3, fp32, LoRA r=8 alpha=32 on "
           "BLOOM's fused query_key_value (3 x 4096 outputs)")
    blora = 30 * 8 * (4096 + 3 * 4096)
    add(367, "llm_lora_hf", "medium", "allocated", 80, GIB, r(
        name="PEFT README: bloomz-7b1 full fine-tuning runs out of memory on 80 GB", model=BLOOMZ_7B1,
        method="full", seq_len=64),
        src, loc + ", row 'bigscience/bloomz-7b1', column 'Full Finetuning' (OOM GPU)",
        [metric, clm.replace(", LoRA r=8 alpha=32 on BLOOM's fused query_key_value (3 x 4096 outputs)", ""),
         "OOM on an A100 80GB: lower bound"], bound="lower_bound")
    add(368, "llm_lora_hf", "high", "allocated", 32, GIB, r(
        name="PEFT README: bloomz-7b1 LoRA (plain PyTorch)", model=BLOOMZ_7B1, method="lora",
        lora={"rank": 8, "targets": ["q", "k", "v"]}, trainable_params=blora, seq_len=64),
        src, loc + ", row 'bigscience/bloomz-7b1', column 'PEFT-LoRA PyTorch' (32GB GPU)",
        [metric, clm, f"trainable_params {blora:,} = 30 layers x 8 x (4096 + 12288)", "32GB rounded in the source"])
    add(369, "deepspeed_zero", "high", "allocated", 18.1, GIB, r(
        name="PEFT README: bloomz-7b1 LoRA, DeepSpeed ZeRO-3 with CPU offload", model=BLOOMZ_7B1, method="lora",
        lora={"rank": 8, "targets": ["q", "k", "v"]}, trainable_params=blora, seq_len=64, stack="deepspeed",
        sharding="zero3", offload="optimizer+params",
        deepspeed={"offload_param": "cpu", "offload_optimizer": "cpu"}),
        src, loc + ", row 'bigscience/bloomz-7b1', column 'PEFT-LoRA DeepSpeed with CPU Offloading' (18.1GB GPU)",
        [metric, clm, "accelerate config examples/causal_language_modeling/accelerate_ds_zero3_cpu_offload_config.yaml: "
         "zero_stage 3, offload_optimizer_device cpu, offload_param_device cpu, mixed_precision 'no'"])
    # Stable Diffusion v1-4 LoRA (README 'Parameter Efficient Tuning of Diffusion Models'): the table was added
    # in 82ef390f (2023-01-03), its gradient-checkpointing column and the flag in the command in 03bb01dc
    # (2023-01-15); the README gives the command the figures were run with
    sd_src = ("huggingface/peft README.md @03bb01dc (2023-01-15, the table's last change), command under "
              "'Training'; examples/lora_dreambooth/train_dreambooth.py @03bb01dc")
    sd_loc = ("'Parameter Efficient Tuning of Diffusion Models' table (Hardware: Single A100 80GB), row "
              "'CompVis/stable-diffusion-v1-4'")
    sd_notes = ["GB taken as GiB like the table above (same author and TorchTracemalloc helper: "
                "max_memory_allocated after reset_max_memory_allocated, 'GPU Total Peak Memory consumed during "
                "the train (max)'); metric allocated",
                "the README's command: --train_text_encoder --with_prior_preservation --resolution=512 "
                "--train_batch_size=1 --use_lora --lora_r 16 --lora_alpha 27 --lora_text_encoder_r 16 "
                "--gradient_accumulation_steps=1 (--gradient_checkpointing for the last column only); "
                "prior preservation concatenates an instance and a class image, so the UNet and the text "
                "encoder run on batch 2 (micro_batch 1 with prior_preservation)",
                "no --mixed_precision in the command and no accelerate config given: fp32 (the script's "
                "weight_dtype for 'no'), AdamW (no --use_8bit_adam)",
                "attention: diffusers at that date (0.12.0.dev0 @9b37ed33, 2023-01-15) runs CrossAttention "
                "through CrossAttnProcessor (baddbmm, softmax: the score matrix is kept); xformers only with "
                "--enable_xformers_memory_efficient_attention, not in the command",
                "SD v1-4 and v1-5 share the UNet, VAE and text-encoder shapes, so the catalog's sd-1.5 stands in",
                "the full fine-tuning column's command is not given: taken as the same command without "
                "--use_lora (UNet and text encoder trained in full)"]
    sdb = {"task": "finetune", "model": "sd-1.5", "compute": "fp32", "weights_dtype": "fp32", "optimizer": "adamw",
           "micro_batch": 1, "image_size": 512, "attention": "eager", "prior_preservation": True,
           "train_text_encoder": True, "gpus": 1, "gpu": "a100-80gb"}
    for rid, meth, rec, val, col in ((371, "full", "none", 27.5, "Full Finetuning"), (372, "lora", "none", 15.5, "PEFT-LoRA"),
                                     (373, "lora", "full", 8.12, "PEFT-LoRA with Gradient Checkpoitning")):
        s = dict(sdb)
        s.update(name=f"PEFT README: SD v1-4 DreamBooth, {col}", method=meth, recompute=rec)
        if meth == "lora":
            s["lora"] = {"rank": 16, "targets": ["q", "v"]}
        add(rid, "diffusion_unet", "medium", "allocated", val, GIB, s, sd_src, sd_loc + f", column '{col}'",
            sd_notes + ([] if meth == "full" else ["LoRA rank 16 on the UNet's to_q and to_v (UNET_TARGET_MODULES "
                                                   "to_q, to_v, query, value) and rank 16 on the text encoder's "
                                                   "q_proj and v_proj (lora.targets q, v); the text encoder is "
                                                   "not checkpointed under LoRA ('below fails when using lora')"]))


# ---------------------------------------------------------------------------
# Encoders: transformers' single-GPU training guide (BERT-large on a V100 16GB)
# ---------------------------------------------------------------------------
BERT_LARGE = {
    "id": "google-bert/bert-large-uncased", "name": "BERT-large (uncased) for sequence classification",
    "params": 335143938,
    "layers": 24, "hidden": 1024, "heads": 16, "intermediate": 4096, "vocab": 30522, "glu": False,
    "norm": "layernorm", "dropout": True, "tied_embeddings": True, "max_seq_len": 512, "family": "encoder",
    "source": "huggingface.co/google-bert/bert-large-uncased config.json: num_hidden_layers 24, hidden_size 1024, "
              "num_attention_heads 16, intermediate_size 4096, vocab_size 30522, max_position_embeddings 512, "
              "hidden_dropout_prob and attention_probs_dropout_prob 0.1; params: BertModel 335,141,888 counted "
              "from those shapes (embeddings 31,782,912 + 24 x 12,596,224 + pooler 1,049,600) + the 2-label "
              "classifier 2,050",
}


@family
def encoder_rows():
    src = ("huggingface/transformers docs/source/en/perf_train_gpu_one.mdx @0016acf7 "
           "('Efficient Training on a Single GPU', experiments run 2022-01-11 on a Tesla V100-SXM2 16GB)")
    common = ["metric device_used: print_gpu_utilization() reads pynvml nvmlDeviceGetMemoryInfo(handle).used // "
              "1024**2 after trainer.train() (labelled 'MB', MiB), i.e. nvidia-smi's used memory including the "
              "CUDA context (1343 MB with kernels loaded) and the allocator's cache",
              "dummy data: 512 sequences of exactly 512 random token ids, binary labels; "
              "AutoModelForSequenceClassification('bert-large-uncased'); Trainer defaults of transformers 4.16 "
              "(optim adamw_hf = transformers.AdamW, fp32 states, dropout active, eager attention)",
              "the guide restarts the Python kernel between experiments",
              "pytorch_version 1.10, assumed: the guide does not name its PyTorch; 1.10.1 was the current "
              "release on 2022-01-11, and its nvidia-smi shows driver 460.91.03 with CUDA 11.2, below the CUDA "
              "11.7 that lazy kernel loading needs, so every kernel was loaded into the context whatever the "
              "release (the 1343 MB the guide measures before loading the model)",
              "family encoder: AutoModelForSequenceClassification puts a 2-label classifier on the pooled output "
              "(BertForSequenceClassification), so no logits over the vocabulary are computed",
              "optimizer_impl for-loop: the Trainer's optimizers of transformers 4.16 step one parameter at a time "
              "(src/transformers/optimization.py AdamW.step and Adafactor.step loop 'for p in group[\"params\"]', "
              "as the copies of it show, e.g. jiaweizzhao/GaLore galore_torch/adamw.py, 'copy dependencies from "
              "transformers/optimization.py'; bitsandbytes' Optimizer8bit.step updates one parameter at a time), "
              "so the step's temporaries are one tensor's"]
    base = {"task": "finetune", "model": BERT_LARGE, "method": "full", "seq_len": 512, "attention": "eager",
            "loss": "upcast", "gpus": 1, "sharding": "none", "offload": "none", "gpu": V100_16,
            "weights_dtype": "fp32", "pytorch_version": "1.10", "optimizer_impl": "for-loop"}
    runs = [
        (401, 14949, "Vanilla Training", dict(micro_batch=4, grad_accum=1, compute="fp32", optimizer="adamw",
                                              recompute="none")),
        (402, 8681, "Gradient Accumulation", dict(micro_batch=1, grad_accum=4, compute="fp32", optimizer="adamw",
                                                  recompute="none")),
        (403, 6775, "Gradient Checkpointing", dict(micro_batch=1, grad_accum=4, compute="fp32", optimizer="adamw",
                                                   recompute="full")),
        (404, 13939, "FP16 Training (batch 4)", dict(micro_batch=4, grad_accum=1, compute="fp16-mixed",
                                                     optimizer="adamw", recompute="none")),
        (405, 7275, "FP16 Training + accumulation + checkpointing", dict(micro_batch=1, grad_accum=4,
                                                                         compute="fp16-mixed", optimizer="adamw",
                                                                         recompute="full")),
        (406, 12295, "Adafactor (batch 4)", dict(micro_batch=4, grad_accum=1, compute="fp32", optimizer="adafactor",
                                                 recompute="none")),
        (407, 4847, "Adafactor + accumulation + checkpointing + fp16", dict(micro_batch=1, grad_accum=4,
                                                                            compute="fp16-mixed",
                                                                            optimizer="adafactor",
                                                                            recompute="full")),
        (408, 13085, "8-bit Adam (batch 4)", dict(micro_batch=4, grad_accum=1, compute="fp32", optimizer="adamw-8bit",
                                                  recompute="none")),
        (409, 5363, "8-bit Adam + accumulation + checkpointing + fp16", dict(micro_batch=1, grad_accum=4,
                                                                             compute="fp16-mixed",
                                                                             optimizer="adamw-8bit",
                                                                             recompute="full")),
    ]
    for rid, mib, label, kw in runs:
        s = dict(base)
        s.update(name=f"BERT-large seq-cls, {label} (V100 16GB)", **kw)
        notes = list(common)
        if "8-bit" in label:
            notes.append("bitsandbytes Adam8bit built by hand with two parameter groups (decay / no decay); "
                         "tensors under 4096 elements keep 32-bit state (bnb min_8bit_size)")
        if kw["compute"] == "fp16-mixed":
            notes.append("fp16=True: torch.cuda.amp autocast with an fp32 master model")
        if kw["optimizer"] == "adafactor":
            notes.append("optim='adafactor': transformers' Adafactor with factored second moments")
        add(rid, "encoder", "high", "device_used", mib, MIB, s, src, f"section '{label.split(' (')[0]}' output "
            f"'GPU memory occupied: {mib} MB'", notes)


# ---------------------------------------------------------------------------
# Inference with transformers: 'Optimizing LLMs for Speed and Memory'
# ---------------------------------------------------------------------------
OCTOCODER = {
    "id": "bigcode/octocoder", "name": "OctoCoder (StarCoder 15.5B, GPTBigCode)",
    "params": 40 * (6144 * (6144 + 2 * 128) + 6400 + 6144 * 6144 + 6144 + 2 * 6144 * 24576 + 24576 + 6144
                    + 4 * 6144) + 49152 * 6144 + 8192 * 6144 + 2 * 6144,
    "layers": 40, "hidden": 6144, "heads": 48, "kv_heads": 1, "intermediate": 24576, "vocab": 49152,
    "glu": False, "norm": "layernorm", "tied_embeddings": True, "max_seq_len": 8192,
    "source": "huggingface.co/bigcode/octocoder config.json (GPTBigCode, as bigcode/starcoder): n_layer 40, n_embd "
              "6144, n_head 48, multi_query true (one key/value head of 128), n_inner 24576, vocab_size 49152, "
              "n_positions 8192, learned positions, LayerNorm, GELU, tied head; params counted from those shapes "
              "with biases (15,517,456,384)",
}


@family
def inference_rows():
    src = ("huggingface/transformers docs/source/en/llm_tutorial_optimization.md @008f5c8c "
           "('Optimizing LLMs for Speed and Memory', bigcode/octocoder on one A100 40GB)")
    metric = ("metric allocated: bytes_to_giga_bytes(torch.cuda.max_memory_allocated()) with "
              "bytes_to_giga_bytes = bytes / 1024**3 (GiB); flush() resets peak statistics between experiments")
    short = ("prompt 'Question: Please write a function in Python that transforms bytes to Giga bytes.\\n\\nAnswer:' "
             "= 20 tokens (the guide's key-value-cache printout starts at length 20), max_new_tokens 60, batch 1, "
             "text-generation pipeline with the KV cache")
    base = {"task": "inference", "model": OCTOCODER, "micro_batch": 1, "seq_len": 20, "context_len": 80,
            "kv_dtype": "bf16", "compute": "bf16-pure", "gpus": 1, "sharding": "none", "offload": "none",
            "gpu": "a100-40gb"}
    add(451, "inference_hf", "high", "allocated", 29.0260648727417, GIB, dict(base,
        name="OctoCoder bf16 generate, short prompt", weights_dtype="bf16", attention="eager"),
        src, "section '1. Lower Precision', first max_memory_allocated output (29.026...)",
        [metric, short, "torch_dtype=torch.bfloat16, device_map='auto'; eager attention (transformers' default "
         "for GPTBigCode at the time)"])
    add(452, "inference_hf", "high", "allocated", 15.219234466552734, GIB, dict(base,
        name="OctoCoder LLM.int8 generate, short prompt", weights_dtype="int8", attention="eager"),
        src, "section '1. Lower Precision', load_in_8bit=True output (15.219...)",
        [metric, short, "bitsandbytes LLM.int8(): int8 weights with fp16 outlier decomposition; with no torch_dtype "
         "transformers overrides the dtype to float16 for bitsandbytes, so the layers left unquantised "
         "(lm_head, norms, embeddings) are fp16"])
    add(453, "inference_hf", "high", "allocated", 9.543574333190918, GIB, dict(base,
        name="OctoCoder 4-bit generate, short prompt", weights_dtype="int4", quant_compute_dtype="fp32",
        attention="eager"),
        src, "section '1. Lower Precision', load_in_4bit=True output (9.543...)",
        [metric, short, "load_in_4bit=True with bitsandbytes defaults: quant type fp4 (expressed as int4), "
         "bnb_4bit_compute_dtype float32; with no torch_dtype transformers overrides the dtype to float16, "
         "so the unquantised tensors are fp16"])
    longp = ("long prompt: the system prompt (about 1,360 characters of dialogue and Python) repeated ten times plus "
             "the question, taken as 3,600 tokens (assumption: about 3.8 characters per StarCoder token); "
             "max_new_tokens 60")
    add(454, "inference_hf", "medium", "allocated", 37.668193340301514, GIB, dict(base,
        name="OctoCoder bf16 generate, long prompt, eager attention", weights_dtype="bf16", attention="eager",
        seq_len=3600, context_len=3660),
        src, "section '2. Flash Attention', output without Flash Attention (37.668...)",
        [metric, longp, "eager attention materialises the 48-head score matrix of the prompt in the prefill"])
    add(455, "inference_hf", "medium", "allocated", 32.617331981658936, GIB, dict(base,
        name="OctoCoder bf16 generate, long prompt, flash attention", weights_dtype="bf16", attention="flash",
        seq_len=3600, context_len=3660),
        src, "section '2. Flash Attention', output with model.to_bettertransformer() and sdp_kernel(enable_flash=True) "
             "(32.617...)",
        [metric, longp, "SDPA restricted to the flash kernel: no score matrix"])


# ---------------------------------------------------------------------------
# Serving engines and mixtures of experts
# ---------------------------------------------------------------------------
def qwen3_moe(mid, name, layers, hidden, heads, kv, experts, top_k, moe_inter, vocab, source):
    hd = 128
    attn = hidden * heads * hd + 2 * hidden * kv * hd + heads * hd * hidden + 2 * hd
    moe = experts * 3 * hidden * moe_inter + hidden * experts
    params = layers * (attn + moe + 2 * hidden) + 2 * vocab * hidden + hidden
    return {"id": mid, "name": name, "params": params, "layers": layers, "hidden": hidden, "heads": heads,
            "kv_heads": kv, "head_dim": hd, "intermediate": moe_inter, "vocab": vocab, "glu": True,
            "norm": "rmsnorm", "tied_embeddings": False, "max_seq_len": 40960,
            "experts": experts, "experts_per_token": top_k, "expert_intermediate": moe_inter,
            "shared_experts": 0, "first_dense_layers": 0, "source": source}


QWEN3_235B = qwen3_moe(
    "Qwen/Qwen3-235B-A22B-FP8", "Qwen3 235B-A22B (FP8)", 94, 4096, 64, 4, 128, 8, 1536, 151936,
    "huggingface.co/Qwen/Qwen3-235B-A22B config.json: num_hidden_layers 94, hidden_size 4096, num_attention_heads "
    "64, num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 1536, "
    "no shared expert, vocab_size 151936, untied, q/k RMSNorm; params counted from those shapes (235.1B). "
    "Cross-check: SGLang's 8.23 GiB for 367,404 tokens = 94 layers x 1 KV head per TP rank x 128 x 2 B per token")
QWEN3_30B = qwen3_moe(
    "Qwen/Qwen3-30B-A3B", "Qwen3 30B-A3B", 48, 2048, 32, 4, 128, 8, 768, 151936,
    "huggingface.co/Qwen/Qwen3-30B-A3B config.json: num_hidden_layers 48, hidden_size 2048, num_attention_heads 32, "
    "num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768, "
    "vocab_size 151936; params counted from those shapes (30.53B; llama.cpp prints 'model params = 30.532 B')")


@family
def serving_rows():
    add(501, "serving", "medium", "kv_cache", 8.11, GIB, {
        "name": "vLLM serve Qwen3-235B-A22B-FP8, TP 4 on 4x H100", "task": "inference", "model": QWEN3_235B,
        "engine": "vllm", "weights_dtype": "fp8", "kv_dtype": "bf16", "compute": "bf16-pure",
        "tensor_parallel": 4, "gpus": 4, "gpu_memory_utilization": 0.9, "micro_batch": 1, "seq_len": 40960,
        "gpu": "h100-sxm"},
        "vllm-project/vllm issue #21348 ('[Performance]: KV Cache Size Comparison vLLM vs SGLang', 2025-07-22)",
        "issue description, vLLM log 'Available KV cache memory: 8.11 GiB' / 'GPU KV cache size: 178,880 tokens'",
        ["metric kv_cache: vLLM's 'Available KV cache memory' per GPU (GiB, the pool left after weights, "
         "activation profile and non-torch memory at gpu_memory_utilization)",
         "vllm serve ... --tensor-parallel-size 4 with LMCacheConnectorV1 (kv_both); default "
         "gpu_memory_utilization 0.9, kv-cache dtype auto (bf16 for an FP8 checkpoint), max_model_len from the "
         "config (40960)", "178,880 tokens x 94 layers x 1 KV head x 128 x 2 x 2 B = 8.02 GiB of blocks",
         "H100 80GB assumed (the issue says 4xH100)"],
        stack_config="CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /path/to/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4 "
                     "--kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'")
    add(502, "serving", "medium", "kv_cache", 2 * 8.23, GIB, {
        "name": "SGLang Qwen3-235B-A22B-FP8, TP 4 on 4x H100, mem_fraction_static 0.93", "task": "inference",
        "model": QWEN3_235B, "engine": "sglang", "weights_dtype": "fp8", "kv_dtype": "bf16",
        "compute": "bf16-pure", "tensor_parallel": 4, "gpus": 4, "mem_fraction_static": 0.93, "micro_batch": 1,
        "seq_len": 40960, "gpu": "h100-sxm"},
        "vllm-project/vllm issue #21348 ('[Performance]: KV Cache Size Comparison vLLM vs SGLang', 2025-07-22)",
        "issue description, SGLang log 'KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB'",
        ["metric kv_cache: K + V pool per GPU; SGLang's memory pool prints sizes / 2**30 labelled GB (checked: "
         "367,404 tokens x 94 x 128 x 2 B = 8.23 GiB for K)",
         "python3 -m sglang.launch_server --tp 4 --mem-fraction-static 0.93; H100 80GB assumed"],
        stack_config="python3 -m sglang.launch_server --model /path/to/Qwen3-235B-A22B-FP8 --tp 4 "
                     "--trust-remote-code --mem-fraction-static 0.93")
    add(503, "llamacpp", "low", "weights", 17787, MIB, {
        "name": "ik_llama.cpp Qwen3-30B-A3B IQ4_K, all 49 layers on an RTX 3090 Ti", "task": "inference",
        "model": QWEN3_30B, "engine": "llama.cpp", "weights_dtype": "int4", "gpu_layers": 49, "kv_dtype": "fp16",
        "micro_batch": 1, "seq_len": 512, "gpus": 1, "gpu": "rtx-3090-ti"},
        "ikawrakow/ik_llama.cpp pull request #370 ('CUDA: faster FA TG for GQA models'), comment by ubergarm",
        "log 'llm_load_tensors: CUDA0 buffer size = 17787... MiB' (the excerpt ends after the integer part)",
        ["metric weights: the CUDA0 model buffer, in MiB as ggml prints it; the decimals are cut in the "
         "published excerpt (error < 1 MiB)",
         "IQ4_K: 4.974 bits per weight over the whole file ('model size = 17.679 GiB (4.974 BPW)'); expressed as "
         "int4, which the estimator counts at its own bits per weight; the token embedding stays on the host "
         "('CPU buffer size = 315.30 MiB')", "offloaded 49/49 layers; the row is also a mixture-of-experts row "
         "(every expert stored)"])
    # A dense model's vLLM pool, measured beside its profile: the pool's
    # arithmetic with nothing but the engine's own terms
    a100 = {"id": "a100-40gb-vllm", "name": "A100 40GB (as vLLM saw it)", "memory": int(36.33 / 0.92 * GIB),
            "source": "ovg-project/kvcached pull request #448: 'util 0.92, requested 36.33 GiB' (36.33 / 0.92 GiB)"}
    add(504, "serving", "low", "kv_cache", 34.70, GIB, {
        "name": "vLLM Qwen2.5-0.5B on an A100 40GB, gpu_memory_utilization 0.92, enforce_eager",
        "task": "inference", "model": "qwen2.5-0.5b", "engine": "vllm", "compute": "bf16-pure",
        "kv_dtype": "bf16", "gpu_memory_utilization": 0.92, "enforce_eager": True, "micro_batch": 1,
        "seq_len": 32768, "gpus": 1, "gpu": a100},
        "ovg-project/kvcached pull request #448 ('fix: decouple virtual KV capacity from shared-GPU profiling'), "
        "review comment by RixinLiu, 2026-08-19",
        "table 'Measured on an A100, enforce_eager, util 0.92, requested 36.33 GiB', column Qwen2.5-0.5B, row "
        "'real KV capacity' (weights_memory 0.93 GiB, torch_peak_increase 0.59 GiB, non_torch_increase 0.11 GiB)",
        ["metric kv_cache: the KV capacity vLLM allocates (GiB)",
         "vLLM 0.11 or later (the comment contrasts a pre-0.11 fallback); max_model_len and "
         "max_num_batched_tokens are vLLM's defaults (not stated: 32768 from the config, the server's 2048 on "
         "an A100 assumed)", "the card's total as vLLM read it: 36.33 / 0.92 = 39.49 GiB"])
    # vLLM's own profile of one model on one and on two H100s: what a second
    # GPU costs outside PyTorch's allocator (NCCL and custom all-reduce
    # buffers).  Row 506 is the figure the estimator's communication buffers
    # are calibrated from (its non_torch_memory less row 505's).
    h100 = {"id": "h100-80gb-vllm", "name": "H100 80GB (as vLLM saw it)", "memory": int(79.22 * GIB),
            "source": "vllm-project/vllm pull request #10511, vLLM's log: 'total_gpu_memory 79.22GiB'"}
    src = ("vllm-project/vllm pull request #10511 ('[core] overhaul memory profiling and fix backward "
           "compatibility'), comment by youkaichao, 2024-12-14")
    llama3 = ("Meta-Llama-3-8B has Llama 3.1 8B's shapes (32 layers, hidden 4096, 8 KV heads, vocab 128256; "
              "'model weights take 14.96GiB' = 8.03B x 2 B), so the catalog's llama-3.1-8b stands in; its "
              "max_position_embeddings 8192 is max_model_len")
    v0 = ("vLLM 0.6.x (V0 engine, worker.py): max_num_seqs 256, no chunked prefill, so the profile runs "
          "max_model_len (8192) tokens; non_torch_memory counts the CUDA context too")
    add(505, "serving", "medium", "kv_cache", 53.29, GIB, {
        "name": "vLLM serve Meta-Llama-3-8B on one H100", "task": "inference", "model": "llama-3.1-8b",
        "engine": "vllm", "compute": "bf16-pure", "kv_dtype": "bf16", "gpu_memory_utilization": 0.9,
        "max_num_seqs": 256, "micro_batch": 1, "seq_len": 8192, "gpus": 1, "gpu": h100},
        src, "log 'Memory profiling results' of 'vllm serve meta-llama/Meta-Llama-3-8B': "
             "available_kv_cache_memory 53.29GiB (weights 14.96, non_torch_memory 1.79, activation peak 1.26)",
        ["metric kv_cache: vLLM's available_kv_cache_memory", llama3, v0])
    add(506, "serving", "medium", "kv_cache", 71.29 - 7.48 - 3.58 - 1.26, GIB, {
        "name": "vLLM serve Meta-Llama-3-8B, TP 2 on two H100s", "task": "inference", "model": "llama-3.1-8b",
        "engine": "vllm", "compute": "bf16-pure", "kv_dtype": "bf16", "gpu_memory_utilization": 0.9,
        "max_num_seqs": 256, "tensor_parallel": 2, "micro_batch": 1, "seq_len": 8192, "gpus": 2, "gpu": h100},
        src, "log 'Memory profiling results' of 'vllm serve meta-llama/Meta-Llama-3-8B -tp 2': usable 71.29GiB, "
             "weights 7.48, non_torch_memory 3.58, activation peak 1.26 (the excerpt ends before "
             "available_kv_cache_memory; vLLM's own formula, usable less the three, gives it)",
        ["metric kv_cache: vLLM's available_kv_cache_memory, derived from the logged terms", llama3, v0,
         "calibration: non_torch_memory 3.58 GiB against 1.79 GiB on one GPU: the second GPU's NCCL and custom "
         "all-reduce buffers, 1.79 GiB, are the estimator's communication-buffer figure"],
        calibration="yes")
    # Unsloth README: longest context that fits (bounds)
    src = ("unslothai/unsloth README.md @0acd1c7e ('Context length benchmarks', added in e3162dc5 2025-01-14 with "
           "the same figures)")
    hf = ("'Hugging Face + FA2' column: transformers + PEFT + bitsandbytes 4-bit QLoRA on all linear layers "
          "(q, k, v, o, gate, up, down), rank 32, batch 1, sequences padded to the length; gradient checkpointing "
          "and the 8-bit AdamW of Unsloth's notebooks assumed for both columns (not stated)")
    us = ("'Unsloth' column: the same QLoRA run with Unsloth's kernels (fused cross-entropy, its gradient "
          "checkpointing that offloads the checkpointed hidden states to host memory)")
    bound = ("upper bound: the run at this length fits on a card of the stated size (the source gives the longest "
             "length that fits, so an estimate far below the capacity is also wrong); capacity taken as the "
             "nominal GiB")
    rows = [
        (511, "llama-3.1-8b", "transformers", 932, 12, "12 GB", "Llama 3.1 (8B)"),
        (512, "llama-3.1-8b", "transformers", 5789, 24, "24 GB", "Llama 3.1 (8B)"),
        (513, "llama-3.1-8b", "transformers", 28454, 80, "80 GB", "Llama 3.1 (8B)"),
        (514, "llama-3.1-8b", "unsloth", 2972, 8, "8 GB", "Llama 3.1 (8B)"),
        (515, "llama-3.1-8b", "unsloth", 78475, 24, "24 GB", "Llama 3.1 (8B)"),
        (516, "llama-3.1-8b", "unsloth", 342733, 80, "80 GB", "Llama 3.1 (8B)"),
        (517, "llama-3.1-70b", "transformers", 6916, 80, "80 GB", "Llama 3.3 (70B)"),
        (518, "llama-3.1-70b", "unsloth", 12106, 48, "48 GB", "Llama 3.3 (70B)"),
        (519, "llama-3.1-70b", "unsloth", 89389, 80, "80 GB", "Llama 3.3 (70B)"),
    ]
    for rid, model, stack, seq, gib, vram, table in rows:
        ntr = lora_count(model, ["q", "k", "v", "o", "gate", "up", "down"], 32)
        s = {"name": f"{'Unsloth' if stack == 'unsloth' else 'HF + FA2'} QLoRA {table} at {seq} tokens fits in {vram}",
             "task": "finetune", "model": model, "method": "qlora", "weights_dtype": "nf4",
             "quant_compute_dtype": "bf16", "compute": "bf16-mixed", "lora": {"rank": 32, "targets": "all-linear"},
             "trainable_params": ntr, "optimizer": "adamw-8bit", "micro_batch": 1, "seq_len": seq,
             "recompute": "full", "attention": "flash", "gpus": 1, "sharding": "none"}
        if stack == "unsloth":
            s.update(stack="unsloth", loss="fused", activation_offload=True)
        else:
            s.update(loss="upcast", offload="none")
        add(rid, "long_context", "low", "device_used", gib, GIB, s, src,
            f"'{table} max. context length' table, row '{vram}', column "
            f"'{'Unsloth context length' if stack == 'unsloth' else 'Hugging Face + FA2'}' ({seq:,})",
            [bound, us if stack == "unsloth" else hf,
             "Llama 3.3 70B has Llama 3.1 70B's shapes, so the catalog's llama-3.1-70b stands in" if "70" in model else
             "Llama 3.1 8B Instruct"],
            bound="upper_bound", capacity=gib * GIB)


# ---------------------------------------------------------------------------
# Detection and segmentation: OpenMMLab model zoos
# ---------------------------------------------------------------------------
# mmdetection READMEs whose memory column the README itself calls outdated (configs/gn, configs/dcn)
MM_OUTDATED = ("the README says 'Memory, Train/Inf time is outdated.': the figures are from the mmdet v2.0 "
               "conversion runs (checkpoints dated {date}), PyTorch not stated")
MM_METRIC = ("metric allocated: the model zoo 'report[s] the GPU memory as the maximum value of "
             "torch.cuda.max_memory_allocated() for all 8 GPUs' (mmdetection docs/model_zoo.md, 'Common "
             "settings'); mmcv TextLoggerHook._get_max_memory logs max_memory_allocated // 2**20 reduced with MAX "
             "over ranks (open-mmlab/mmcv mmcv/runner/hooks/logger/text.py @797fc9a8), and the tables' 'GB' is "
             "that MiB figure / 1024 (GiB); never reset, so it is the peak over the whole run")
DET_COMMON = ("configs/_base_: batch 2 images per GPU on 8 V100, Resize to (1333, 800) keeping the ratio and "
              "padding to a multiple of 32, so the largest batch is about 1344 x 800; SGD momentum 0.9, fp32; "
              "ResNet with frozen_stages=1 (stem and stage 1 frozen) and norm_eval=True (BatchNorm in eval mode, "
              "frozen statistics), FPN neck")
SEG_COMMON = ("mmsegmentation configs/_base_: ResNetV1c backbone (deep stem) with dilation (D8: output stride 8), "
              "SyncBN trained, auxiliary FCN head on stage 3, SGD momentum 0.9, fp32 unless 'amp' in the name; "
              "random crop of the stated size, so every sample is exactly the crop")
# The PyTorch of the segmentation zoo's runs.  PyTorch before 1.11 saved
# softmax's and log_softmax's input beside their result (pytorch/pytorch
# issue #64000, PR #65242; transformers pytorch_utils.softmax_backward_data
# passes the input when is_torch_less_than_1_11), which the loss's logits
# at the crop's size and MiT's attention scores make large here.
SEG_TORCH = {
    "pspnet": ("1.5", "pytorch_version 1.5: mmsegmentation docs/model_zoo.md @04c5547c 'Software environment: "
                      "Python 3.7, PyTorch 1.5, CUDA 10.1, CUDNN 7.6.03' (the zoo's benchmark environment; its "
                      "memory is max_memory_allocated 'with torch.backends.cudnn.benchmark=False', same file)"),
    "deeplabv3plus": ("1.5", "pytorch_version 1.5: mmsegmentation docs/model_zoo.md @04c5547c 'Software "
                             "environment: Python 3.7, PyTorch 1.5, CUDA 10.1, CUDNN 7.6.03' (the zoo's benchmark "
                             "environment; its memory is max_memory_allocated 'with torch.backends.cudnn.benchmark="
                             "False', same file)"),
    "segformer": ("1.10", "pytorch_version 1.10, assumed: the run's PyTorch is not published; its checkpoint is "
                          "dated 2021-07-26 (ADE20K) or 2021-12-06/08 (Cityscapes) in configs/segformer/README.md "
                          "@02e04cc2, before PyTorch 1.11 (2022-03-10), so at most 1.10; any release before 1.11 "
                          "saves the same"),
}
DET_IDS_NOTE = ("model ids here are the catalog ids the vision families are expected to use; rows fail with "
                "'unknown model' until the catalog has them")


@family
def vision_rows():
    det = [
        (601, "faster-rcnn-r50-fpn", "faster_rcnn", "faster_rcnn_r50_fpn_1x_coco", 4.0, "fp32", "sgd-momentum", ""),
        (602, "faster-rcnn-r101-fpn", "faster_rcnn", "faster_rcnn_r101_fpn_1x_coco", 6.0, "fp32", "sgd-momentum", ""),
        (603, "faster-rcnn-x101-64x4d-fpn", "faster_rcnn", "faster_rcnn_x101_64x4d_fpn_1x_coco", 10.3, "fp32",
         "sgd-momentum", "ResNeXt-101 64x4d backbone"),
        (604, "retinanet-r50-fpn", "retinanet", "retinanet_r50_fpn_1x_coco", 3.8, "fp32", "sgd-momentum",
         "one-stage, focal loss, 9 anchors per location"),
        (605, "retinanet-r50-fpn", "retinanet", "retinanet_r50_fpn_fp16_1x_coco", 2.8, "fp16-mixed", "sgd-momentum",
         "mixed precision (mmcv fp16 with loss scaling, fp32 master weights)"),
        (606, "mask-rcnn-r50-fpn", "mask_rcnn", "mask_rcnn_r50_fpn_1x_coco", 4.4, "fp32", "sgd-momentum",
         "adds the 28x28 mask head"),
        (607, "mask-rcnn-x101-64x4d-fpn", "mask_rcnn", "mask_rcnn_x101_64x4d_fpn_1x_coco", 10.7, "fp32", "sgd-momentum",
         "ResNeXt-101 64x4d backbone"),
        (608, "detr-r50", "detr", "detr_r50_8xb2-150e_coco", 7.9, "fp32", "adamw",
         "DETR: ResNet-50 (frozen stage 1, norm_eval) + 6+6-layer transformer with 100 queries, AdamW, "
         "multi-scale training with random crops (max 1333 x 800), mmdet 3.x"),
    ]
    commits = {"faster_rcnn": "0ed37e3b", "retinanet": "0847deb6", "mask_rcnn": "0190d6bb", "detr": "19bceba5"}
    for rid, mid, coll, cfg, gib, compute, opt, extra in det:
        s = {"name": f"mmdetection {cfg}, batch 2 per GPU", "task": "train", "model": mid, "method": "full",
             "compute": compute, "optimizer": opt, "micro_batch": 2, "image_size": [1344, 800], "gpus": 8,
             "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "x-model": {"config": f"configs/{coll}/{cfg}.py", "frozen_stages": 1, "norm_eval": True}}
        add(rid, "detector", "high" if coll != "detr" else "medium", "allocated", gib, GIB, s,
            f"open-mmlab/mmdetection configs/{coll}/metafile.yml @{commits[coll]}",
            f"model '{cfg}', Metadata 'Training Memory (GB): {gib}'",
            [MM_METRIC, DET_COMMON, DET_IDS_NOTE] + ([extra] if extra else []) +
            ["trained on 8x V100 ('Training Resources: 8x V100 GPUs'); card size not stated, not scored"])
    seg = [
        (621, "pspnet-r50-d8", "pspnet", "pspnet_r50-d8_4xb2-40k_cityscapes-512x1024", 6.1, 2, [1024, 512], 4, "fp32"),
        (622, "pspnet-r101-d8", "pspnet", "pspnet_r101-d8_4xb2-40k_cityscapes-512x1024", 9.6, 2, [1024, 512], 4, "fp32"),
        (623, "pspnet-r18-d8", "pspnet", "pspnet_r18-d8_4xb2-80k_cityscapes-512x1024", 1.7, 2, [1024, 512], 4, "fp32"),
        (624, "pspnet-r101-d8", "pspnet", "pspnet_r101-d8_4xb2-amp-80k_cityscapes-512x1024", 5.34, 2, [1024, 512], 4,
         "fp16-mixed"),
        (625, "pspnet-r50-d8", "pspnet", "pspnet_r50-d8_4xb4-80k_ade20k-512x512", 8.5, 4, [512, 512], 4, "fp32"),
        (627, "deeplabv3plus-r50-d8", "deeplabv3plus", "deeplabv3plus_r50-d8_4xb2-40k_cityscapes-512x1024", 7.5, 2,
         [1024, 512], 4, "fp32"),
        (628, "deeplabv3plus-r101-d8", "deeplabv3plus", "deeplabv3plus_r101-d8_4xb2-40k_cityscapes-512x1024", 11.0, 2,
         [1024, 512], 4, "fp32"),
        (629, "deeplabv3plus-r50-d8", "deeplabv3plus", "deeplabv3plus_r50-d8_4xb4-80k_ade20k-512x512", 10.6, 4,
         [512, 512], 4, "fp32"),
        (630, "segformer-mit-b0", "segformer", "segformer_mit-b0_8x1_1024x1024_160k_cityscapes", 3.64, 1,
         [1024, 1024], 8, "fp32"),
        (631, "segformer-mit-b5", "segformer", "segformer_mit-b5_8x1_1024x1024_160k_cityscapes", 18.0, 1,
         [1024, 1024], 8, "fp32"),
        (632, "segformer-mit-b0", "segformer", "segformer_mit-b0_512x512_160k_ade20k", 2.1, 2, [512, 512], 8, "fp32"),
    ]
    commits = {"pspnet": ("pspnet/pspnet.yml", "02e04cc2"), "deeplabv3plus": ("deeplabv3plus/deeplabv3plus.yml", "02e04cc2"),
               "segformer": ("segformer/segformer.yml", "37872ea1")}
    for rid, mid, coll, cfg, gib, batch, size, ngpu, compute in seg:
        path, commit = commits[coll]
        s = {"name": f"mmsegmentation {cfg}", "task": "train", "model": mid, "method": "full", "compute": compute,
             "optimizer": "adamw" if coll == "segformer" else "sgd-momentum", "micro_batch": batch,
             "image_size": size, "gpus": ngpu, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "x-model": {"config": f"configs/{coll}/{cfg}.py"}}
        if "ade20k" in cfg:
            # the ADE20K configs set num_classes=150 in the decode and auxiliary heads
            s["num_classes"] = 150
        # the PyTorch the runs used, where its autograd saved more than a
        # current one (SCENARIO.md pytorch_version)
        s["pytorch_version"] = SEG_TORCH[coll][0]
        notes = [MM_METRIC.replace("all 8 GPUs", "all GPUs").replace("mmdetection docs/model_zoo.md",
                                                                      "the OpenMMLab model zoos, e.g. mmdetection docs/model_zoo.md"),
                 SEG_COMMON if coll != "segformer" else
                 "SegFormer: Mix Transformer encoder (efficient attention with spatial reduction) and an all-MLP "
                 "decoder, AdamW, fp32, random crop of the stated size",
                 f"batch {batch} per GPU on {ngpu} GPUs (the config name's '{ngpu}x{batch}' / '{ngpu}xb{batch}')",
                 DET_IDS_NOTE]
        if "ade20k" in cfg:
            notes.append("ADE20K: 150 classes (num_classes=150 in both heads of the config), the scenario key "
                         "num_classes")
        notes.append(SEG_TORCH[coll][1])
        add(rid, "segmentation", "high" if compute == "fp32" else "medium", "allocated", gib, GIB, s,
            f"open-mmlab/mmsegmentation configs/{path} @{commit}", f"model '{cfg}', Metadata 'Training Memory (GB)'",
            notes)


# ---------------------------------------------------------------------------
# Diffusion training statements in diffusers' examples (bounds) and README figures
# ---------------------------------------------------------------------------
DIFF_SRC = "huggingface/diffusers examples/{path} @58eb52c0"
DIFF_NOTE = ("diffusers' training scripts cast the frozen VAE and text encoder (and a frozen UNet) to the "
             "--mixed_precision dtype (fp32 without it), encode latents under no_grad and keep the trained "
             "model in fp32; attention as diffusers ran it when the statement was written: CrossAttention's "
             "CrossAttnProcessor (baddbmm and softmax, the score matrix kept) before PyTorch 2 (2023-03-15, "
             "when diffusers 0.15.0.dev0 @79eb3d07 picks AttnProcessor2_0 only if F.scaled_dot_product_attention "
             "exists), so 'eager' for the statements of 2022 and of the ControlNet example merged that day; "
             "xformers where the command enables it ('flash')")
UB_NOTE = ("upper bound: the README says the run fits on a card of that size; capacity taken as the nominal "
           "GiB of such a card")


@family
def diffusion_rows():
    base = {"task": "finetune", "model": "sd-1.5", "image_size": 512, "gpus": 1, "sharding": "none",
            "attention": "eager", "framework": "pytorch"}
    db = DIFF_SRC.format(path="dreambooth/README.md")
    prior = ("--with_prior_preservation: each step concatenates the instance image and a class image, "
             "so the UNet sees batch 2 (micro_batch 2)")
    add(701, "diffusion_unet", "medium", "device_used", 16, GIB, dict(base,
        name="DreamBooth SD v1-4 (full UNet), gradient checkpointing + 8-bit Adam, fits 16 GB", method="full",
        compute="fp32", weights_dtype="fp32", optimizer="adamw-8bit", micro_batch=2, grad_accum=2, recompute="full"),
        db, "section 'Training on a 16GB GPU'",
        [UB_NOTE, DIFF_NOTE, prior, "no --mixed_precision in the command: fp32 UNet, fp32 frozen parts",
         "SD v1-4 has SD v1-5's shapes, so the catalog's sd-1.5 stands in"],
        bound="upper_bound", capacity=16 * GIB,
        stack_config="accelerate launch train_dreambooth.py --pretrained_model_name_or_path=CompVis/stable-diffusion-v1-4 "
                     "--with_prior_preservation --prior_loss_weight=1.0 --resolution=512 --train_batch_size=1 "
                     "--gradient_accumulation_steps=2 --gradient_checkpointing --use_8bit_adam --learning_rate=5e-6 "
                     "--num_class_images=200 --max_train_steps=800")
    add(702, "diffusion_unet", "medium", "device_used", 12, GIB, dict(base,
        name="DreamBooth SD v1-4 (full UNet), + xformers + set_grads_to_none, fits 12 GB", method="full",
        compute="fp32", weights_dtype="fp32", optimizer="adamw-8bit", micro_batch=2, grad_accum=1,
        recompute="full", attention="flash"),
        db, "section 'Training on a 12GB GPU'",
        [UB_NOTE, DIFF_NOTE, prior, "xformers memory-efficient attention expressed as attention 'flash' (no score "
         "matrix); --set_grads_to_none frees gradients between steps (not expressible)"],
        bound="upper_bound", capacity=12 * GIB)
    add(703, "diffusion_unet", "medium", "device_used", 8, GIB, dict(base,
        name="DreamBooth SD v1-4 (full UNet), DeepSpeed ZeRO-2 with CPU offload, fits under 8 GB", method="full",
        compute="fp16-mixed", weights_dtype="fp16", optimizer="adamw", micro_batch=2, grad_accum=1,
        recompute="full", stack="deepspeed", sharding="zero2", offload="optimizer",
        deepspeed={"offload_optimizer": "cpu"}),
        db, "section 'Training on a 8 GB GPU' ('possible to train on under 8 GB VRAM')",
        [UB_NOTE, DIFF_NOTE, prior, "accelerate config with DeepSpeed stage 2, fp16 mixed precision, parameters "
         "and optimizer state offloaded to the CPU (about 25 GB of RAM)",
         "DeepSpeed reads offload_param only under ZeRO-3 (deepspeed/runtime/engine.py @edaa7221, "
         "_configure_zero_optimizer passes offload_param_config in the stage-3 branch alone), so under stage 2 "
         "the parameters stay on the GPU: the scenario offloads the optimizer state only"],
        bound="upper_bound", capacity=8 * GIB)
    add(704, "diffusion_unet", "medium", "device_used", 24, GIB, dict(base,
        name="SD v1-4 text-to-image full fine-tune with EMA, fits 24 GB", method="full", compute="fp16-mixed",
        weights_dtype="fp16", optimizer="adamw", micro_batch=1, grad_accum=4, recompute="full", ema=True),
        DIFF_SRC.format(path="text_to_image/README.md"),
        "section 'Hardware' ('With gradient_checkpointing and mixed_precision it should be possible to fine tune "
        "the model on a single 24GB GPU')",
        [UB_NOTE, DIFF_NOTE, "command: --mixed_precision fp16 --use_ema --train_batch_size 1 "
         "--gradient_accumulation_steps 4 --gradient_checkpointing; the EMA copy of the UNet (fp32, on the GPU) "
         "is the scenario key ema", "fp16 autocast with the fp32 UNet as master"],
        bound="upper_bound", capacity=24 * GIB)
    add(705, "diffusion_unet", "medium", "device_used", 16, GIB, dict(base,
        name="SD v1-4 text-to-image LoRA on a 16 GB T4", method="lora", lora={"rank": 4, "targets": "attention"},
        compute="fp16-mixed", weights_dtype="fp16", optimizer="adamw", micro_batch=1, grad_accum=1,
        recompute="none", gpu="t4"),
        DIFF_SRC.format(path="text_to_image/README.md"),
        "section 'Training with LoRA' ('it's possible to run train_text_to_image_lora.py in consumer GPUs like T4 "
        "or V100'; the example weights are named sd-model-finetuned-lora-t4)",
        [UB_NOTE.replace("nominal GiB of such a card", "T4's 15 GiB (catalog)"), DIFF_NOTE,
         "command: --mixed_precision fp16 --resolution 512 --train_batch_size 1, LoRA rank 4 (the script's "
         "default --rank 4) on the UNet attention projections, no gradient checkpointing"],
        bound="upper_bound")
    cn = DIFF_SRC.format(path="controlnet/README.md")
    cnb = dict(base, model="controlnet-sd-1.5", method="freeze")
    cn_notes = ["ControlNet training (train_controlnet.py): the ControlNet (a trainable copy of the UNet encoder, "
                "initialised from it) is trained, the UNet, VAE and text encoder are frozen; gradients flow back "
                "through the frozen UNet into the ControlNet's residuals, so the UNet keeps activations",
                "model id controlnet-sd-1.5 is not in the catalog yet (SD 1.5 + ControlNet, method freeze trains "
                "the ControlNet component)", DIFF_NOTE]
    add(711, "diffusion_unet", "medium", "device_used", 38, GIB, dict(cnb,
        name="ControlNet SD 1.5 default config (batch 4, fp32)", compute="fp32", weights_dtype="fp32",
        optimizer="adamw", micro_batch=4, grad_accum=1, recompute="none"),
        cn, "'This default configuration requires ~38GB VRAM.'",
        ["'~38GB VRAM' read as what nvidia-smi shows (device_used), decimal/binary unknown: taken as GiB"] + cn_notes)
    add(712, "diffusion_unet", "medium", "device_used", 20, GIB, dict(cnb,
        name="ControlNet SD 1.5, batch 1 with 4 accumulation steps (fp32)", compute="fp32", weights_dtype="fp32",
        optimizer="adamw", micro_batch=1, grad_accum=4, recompute="none"),
        cn, "'Gradient accumulation with a smaller batch size can be used to reduce training requirements to ~20 GB VRAM.'",
        ["'~20 GB VRAM' taken as GiB, device_used"] + cn_notes)
    add(713, "diffusion_unet", "medium", "device_used", 16, GIB, dict(cnb,
        name="ControlNet SD 1.5 on a 16 GB GPU", compute="fp32", weights_dtype="fp32", optimizer="adamw-8bit",
        micro_batch=1, grad_accum=4, recompute="full"),
        cn, "section 'Training on a 16 GB GPU' (gradient checkpointing, 8-bit Adam)", [UB_NOTE] + cn_notes,
        bound="upper_bound", capacity=16 * GIB)
    add(714, "diffusion_unet", "medium", "device_used", 12, GIB, dict(cnb,
        name="ControlNet SD 1.5 on a 12 GB GPU", compute="fp32", weights_dtype="fp32", optimizer="adamw-8bit",
        micro_batch=1, grad_accum=4, recompute="full", attention="flash"),
        cn, "section 'Training on a 12 GB GPU' (+ xformers, set grads to none)", [UB_NOTE] + cn_notes,
        bound="upper_bound", capacity=12 * GIB)
    add(721, "diffusion_unet", "medium", "device_used", 16, GIB, {
        "name": "DreamBooth LoRA SDXL at 1024, fp16, checkpointing, xformers, 8-bit Adam, under 16 GB",
        "task": "finetune", "model": "sdxl", "method": "lora", "lora": {"rank": 4, "targets": "attention"},
        "compute": "fp16-mixed", "weights_dtype": "fp16", "optimizer": "adamw-8bit", "micro_batch": 1,
        "grad_accum": 4, "image_size": 1024, "recompute": "full", "attention": "flash", "gpus": 1},
        DIFF_SRC.format(path="dreambooth/README_sdxl.md"), "section 'Dog toy example with < 16GB VRAM'",
        [UB_NOTE, DIFF_NOTE, "train_dreambooth_lora_sdxl.py defaults: LoRA rank 4 on the UNet attention "
         "projections, text encoders frozen, no prior preservation; fp16-fix VAE",
         "model id sdxl is not in the catalog yet"],
        bound="upper_bound", capacity=16 * GIB,
        stack_config="accelerate launch train_dreambooth_lora_sdxl.py --pretrained_model_name_or_path="
                     "stabilityai/stable-diffusion-xl-base-1.0 --pretrained_vae_model_name_or_path="
                     "madebyollin/sdxl-vae-fp16-fix --mixed_precision=fp16 --resolution=1024 --train_batch_size=1 "
                     "--gradient_accumulation_steps=4 --enable_xformers_memory_efficient_attention "
                     "--gradient_checkpointing --use_8bit_adam")


# ---------------------------------------------------------------------------
# Video diffusion: CogVideoX and Wan2.1 READMEs
# ---------------------------------------------------------------------------
@family
def video_rows():
    cog = "THUDM/CogVideo finetune/README.md @e519eced (diffusers-based fine-tuning, 2025-01)"
    loc = "'Hardware Requirements' table"
    cnote = ("the table's figure is read as the peak VRAM the run needs (nvidia-smi, device_used), rounded to the "
             "GB (taken as GiB); the card named beside it is where it ran")
    frames = ("49 frames at 480 x 720: the CogVideoX VAE compresses 4x in time and 8x in space, so 13 latent frames "
              "of 60 x 90, patch 2 -> 13 x 30 x 45 = 17,550 video tokens + 226 text tokens (the scenario "
              "key frames)")
    vb = {"task": "finetune", "image_size": [720, 480], "frames": 49, "micro_batch": 1, "grad_accum": 1,
          "recompute": "full", "attention": "sdpa", "optimizer": "adamw"}
    rows = [
        (801, "cogvideox-2b", "lora", "fp16-mixed", 1, "ddp", None, 16, "rtx-4080",
         "cogvideox-t2v-2b | lora (rank128) | DDP | fp16 | 49x480x720 | 16GB VRAM (NVIDIA 4080)", "upper_bound"),
        (802, "cogvideox-5b", "lora", "bf16-mixed", 1, "ddp", None, 24, "rtx-4090",
         "cogvideox-{t2v, i2v}-5b | lora (rank128) | DDP | bf16 | 49x480x720 | 24GB VRAM (NVIDIA 4090)", "upper_bound"),
        (803, "cogvideox-2b", "full", "fp16-mixed", 1, "ddp", None, 36, "a100-80gb",
         "cogvideox-t2v-2b | sft | DDP | fp16 | 49x480x720 | 36GB VRAM (NVIDIA A100)", "exact"),
        (804, "cogvideox-2b", "full", "fp16-mixed", 8, "zero2", None, 17, "rtx-4090",
         "cogvideox-t2v-2b | sft | 8-GPU zero-2 | fp16 | 49x480x720 | 17GB VRAM (NVIDIA 4090)", "exact"),
        (805, "cogvideox-2b", "full", "fp16-mixed", 8, "zero3", None, 19, "rtx-4090",
         "cogvideox-t2v-2b | sft | 8-GPU zero-3 | fp16 | 49x480x720 | 19GB VRAM (NVIDIA 4090)", "exact"),
        (806, "cogvideox-5b", "full", "bf16-mixed", 8, "zero2", None, 42, "a100-80gb",
         "cogvideox-{t2v, i2v}-5b | sft | 8-GPU zero-2 | bf16 | 49x480x720 | 42GB VRAM (NVIDIA 4090)", "exact"),
        (807, "cogvideox-5b", "full", "bf16-mixed", 8, "zero3", "optimizer+params", 28, "rtx-5090",
         "cogvideox-{t2v, i2v}-5b | sft | 8-GPU zero-3 + opt and param offload | bf16 | 49x480x720 | 28GB VRAM (NVIDIA 5090)",
         "exact"),
    ]
    for rid, mid, meth, comp, n, shard, off, gib, gpu, cell, bound in rows:
        s = dict(vb, name=f"CogVideoX fine-tune {mid} {meth} {shard} on {n} GPU(s)", model=mid, method=meth,
                 compute=comp, weights_dtype="fp16" if comp.startswith("fp16") else "bf16", gpus=n, sharding=shard,
                 offload=off or "none", cache_latents=True)
        if meth == "lora":
            s["lora"] = {"rank": 128, "targets": "attention"}
        if shard in ("zero2", "zero3"):
            # finetune/configs/zero2.yaml, zero3.yaml, zero3_offload.yaml @e519eced, zero_optimization
            s["stack"] = "deepspeed"
            if shard == "zero2":
                s["deepspeed"] = {"reduce_bucket_size": 500000000, "allgather_bucket_size": 200000000,
                                  "overlap_comm": True, "contiguous_gradients": True}
            else:
                s["deepspeed"] = {"reduce_bucket_size": 500000000, "stage3_prefetch_bucket_size": 500000000,
                                  "stage3_param_persistence_threshold": 1000000 if off else 100000,
                                  "stage3_max_live_parameters": 1000000000, "overlap_comm": True,
                                  "contiguous_gradients": True}
            if off:
                s["deepspeed"].update({"offload_param": "cpu", "offload_optimizer": "cpu"})
        notes = [cnote if bound == "exact" else UB_NOTE, frames,
                 "diffusers-based CogVideo finetune scripts (train_ddp_t2v.sh / train_zero_t2v.sh) with the "
                 "defaults of finetune/schemas/args.py @e519eced: gradient_checkpointing True, enable_slicing and "
                 "enable_tiling True, rank 128, lora_alpha 64, target_modules to_q, to_k, to_v, to_out.0; "
                 "finetune/trainer.py prepare_dataset precomputes the latents and prompt embeddings, then "
                 "unload_model(vae), unload_model(text_encoder) and free_memory(): training holds the transformer "
                 "alone (the scenario key cache_latents); trainable weights cast to fp32 (cast_training_params)",
                 f"model id {mid} is not in the catalog yet"]
        if shard in ("zero2", "zero3"):
            notes.append(f"DeepSpeed config finetune/configs/{shard}{'_offload' if off else ''}.yaml @e519eced: "
                         + json.dumps(s["deepspeed"]))
        if rid == 806:
            notes.append("the table names an RTX 4090 for a 42 GB figure (more than a 4090 holds); the figure is "
                         "kept, the card is taken as an A100 80GB")
        add(rid, "video_diffusion", "low", "device_used", gib, GIB, s, cog, loc + f", row '{cell}'", notes,
            bound=bound, gpu=gpu, capacity=gib * GIB if bound == "upper_bound" else None)
    sat = "THUDM/CogVideo README.md @806a7f6^ (2024-11, SAT fine-tuning)"
    for rid, mid, meth, bs, gib, cell in ((811, "cogvideox-2b", "lora", 1, 47, "47 GB (bs=1, LORA)"),
                                          (812, "cogvideox-2b", "lora", 2, 61, "61 GB (bs=2, LORA)"),
                                          (813, "cogvideox-2b", "full", 1, 62, "62GB (bs=1, SFT)"),
                                          (814, "cogvideox-5b", "lora", 1, 63, "63 GB (bs=1, LORA)"),
                                          (815, "cogvideox-5b", "lora", 2, 80, "80 GB (bs=2, LORA)"),
                                          (816, "cogvideox-5b", "full", 1, 75, "75GB (bs=1, SFT)")):
        # sat/configs/sft.yaml @806a7f6^: checkpoint_activations True, DeepSpeed ZeRO-2 with 1e9-value
        # reduce and allgather buckets, overlap_comm, contiguous_gradients false; the LoRA configs r 128
        s = dict(vb, name=f"CogVideoX SAT fine-tune {mid} {meth} batch {bs}", model=mid, method=meth,
                 compute="fp16-mixed" if "2b" in mid else "bf16-mixed", micro_batch=bs, gpus=8, sharding="zero2",
                 recompute="full", stack="deepspeed", vae_encode_frames=49,
                 deepspeed={"reduce_bucket_size": 1000000000, "allgather_bucket_size": 1000000000,
                            "overlap_comm": True, "contiguous_gradients": False},
                 **{"x-stack": "SwissArmyTransformer (SAT)"})
        if meth == "lora":
            s["lora"] = {"rank": 128, "targets": "attention"}
        add(rid, "video_diffusion", "low", "device_used", gib, GIB, s, sat,
            f"model table, row 'Fine-tuning Memory Usage', cell '{cell}'",
            ["SwissArmyTransformer (SAT) fine-tuning, not one of the agreed stack values (x-stack); its DeepSpeed "
             "engine is expressed as stack deepspeed", cnote, frames,
             "sat/configs/sft.yaml @806a7f6^ (0ae12e3e): checkpoint_activations True, zero_optimization stage 2, "
             "reduce_bucket_size and allgather_bucket_size 1e9, overlap_comm True, contiguous_gradients False, "
             "optimizer sat.ops.FusedEmaAdam (exp_avg, exp_avg_sq and an EMA 'shadow' of each parameter, "
             "SwissArmyTransformer sat/ops/fused_ema_adam.py @63dc23a: the shadow is partitioned with the "
             "optimizer state and not expressible, so not counted); cogvideox_*_lora.yaml LoraMixin r 128",
             "diffusion_video.py: the VAE encodes and the T5 conditioner embeds every batch (no cache), both "
             "resident and frozen",
             "8 GPUs: the same README says memory was 'tested in an 8 * H100 environment'",
             "diffusion_video.py encode_first_stage encodes the whole batch's 49-frame clip at once "
             "(en_and_decode_n_samples_a_time unset) through the 3D VAE (ContextParallelEncoder3D, ch 128, "
             "ch_mult 1, 2, 2, 4, 3 res blocks per level), every step; vae_modules/autoencoder.py "
             "VideoAutoencoderInferenceWrapper.encode with cp_size 1 (cogvideox_*_lora.yaml, first_stage_config) "
             "splits nothing: vae_encode_frames 49",
             f"model id {mid} is not in the catalog yet"])
    # wan/text2video.py @9737cba9: the DiT and the VAE stay fp32 beside the bf16 umT5
    WAN_PARTS = {"Wan DiT": "fp32", "Wan-VAE": "fp32"}
    wan = "Wan-Video/Wan2.1 README.md @9737cba9, 'Computational Efficiency on Different GPUs' (assets/comp_effic.png)"
    wn = ["metric: 'peak GPU memory (GB)' of generate.py (taken as device_used, GiB); inference of the default "
          "81 frames (5 s at 16 fps), 50 sampling steps for T2V, classifier-free guidance as two forward passes",
          "Wan-VAE compresses 4x in time and 8x in space, patch 1x2x2: 81 frames -> 21 latent frames; at 832 x 480 "
          "that is 21 x 30 x 52 = 32,760 tokens, at 1280 x 720 21 x 45 x 80 = 75,600 tokens (the scenario key frames)",
          "wan/text2video.py @9737cba9: WanModel.from_pretrained(checkpoint_dir) with no dtype, then "
          "eval().requires_grad_(False) and .to(self.device): the DiT's weights stay fp32 and the sampling runs "
          "under amp.autocast(dtype=bfloat16); the umT5 encoder is bf16 (t5_dtype) and the VAE fp32 "
          "(part_dtypes)",
          "with offload_model the umT5 encodes on the GPU beside the resident DiT, then leaves for the CPU "
          "(text_encoder.model.cpu()); the DiT leaves before the VAE decodes"]
    add(821, "video_diffusion", "medium", "device_used", 8.19, GIB, {
        "name": "Wan2.1 T2V-1.3B 480P on one RTX 4090 with --offload_model --t5_cpu", "task": "inference",
        "model": "wan2.1-t2v-1.3b", "image_size": [832, 480], "frames": 81, "micro_batch": 1,
        "compute": "bf16-pure", "weights_dtype": "bf16", "attention": "flash", "gpus": 1, "gpu": "rtx-4090",
        "part_dtypes": WAN_PARTS, "offload_model": True, "text_encoder_cpu": True},
        wan, "row '4090 | T2V-1.3B | 480P', 1 GPU (261.4 s / 8.19 GB)",
        wn + ["--offload_model True moves the DiT to the CPU while the VAE decodes (offload_model); --t5_cpu "
              "keeps the umT5 text encoder on the CPU (text_encoder_cpu)"],
        stack_config="python generate.py --task t2v-1.3B --size 832*480 --ckpt_dir ./Wan2.1-T2V-1.3B "
                     "--offload_model True --t5_cpu --sample_shift 8 --sample_guide_scale 6")
    add(822, "video_diffusion", "medium", "device_used", 69.1, GIB, {
        "name": "Wan2.1 T2V-14B 720P on one H100 with --offload_model", "task": "inference",
        "model": "wan2.1-t2v-14b", "image_size": [1280, 720], "frames": 81, "micro_batch": 1,
        "compute": "bf16-pure", "weights_dtype": "bf16", "attention": "flash", "gpus": 1, "gpu": "h100-sxm",
        "part_dtypes": WAN_PARTS, "offload_model": True},
        wan, "row 'H800/H100 | T2V-14B | 720P', 1 GPU (1837.9 s / 69.1 GB)",
        wn + ["--offload_model True (the model leaves the GPU while the VAE decodes; offload_model)"])
    add(823, "video_diffusion", "medium", "device_used", 29.9, GIB, {
        "name": "Wan2.1 T2V-14B 720P on 8 H100, FSDP + Ulysses 8", "task": "inference",
        "model": "wan2.1-t2v-14b", "image_size": [1280, 720], "frames": 81, "micro_batch": 1,
        "compute": "bf16-pure", "weights_dtype": "bf16", "attention": "flash", "gpus": 8, "sharding": "fsdp",
        "context_parallel": 8, "gpu": "h100-sxm", "part_dtypes": WAN_PARTS},
        wan, "row 'H800/H100 | T2V-14B | 720P', 8 GPUs (287.9 s / 29.9 GB)",
        wn + ["multi-GPU generation: torchrun --nproc_per_node=8 generate.py --dit_fsdp --t5_fsdp --ulysses_size 8 "
              "(the README's multi-GPU command; sequence split over 8 ranks expressed as context_parallel 8)"])


# ---------------------------------------------------------------------------
# Detection: the Detectron2 model zoo (facebookresearch/detectron2)
# ---------------------------------------------------------------------------
D2_SRC = "facebookresearch/detectron2 MODEL_ZOO.md @8b0953c0"
D2_METRIC = ("metric allocated: the 'train mem (GB)' column; detectron2 logs max_mem = "
             "torch.cuda.max_memory_allocated() / 1024 / 1024 (MiB) in its CommonMetricPrinter "
             "(detectron2/utils/events.py @8f22855e, 'max_mem is parsed by grep in dev/parse_results.sh'), never "
             "reset, so the peak over the run; the table's GB taken as that MiB figure / 1024 (GiB), the same "
             "convention as the OpenMMLab zoos (assumption: the conversion script is not in the repository)")
D2_COMMON = ("configs/Base-RCNN-FPN.yaml / Base-RetinaNet.yaml and detectron2/config/defaults.py @02b5c4e2: "
             "IMS_PER_BATCH 16 on 8 V100 ('All numbers were obtained on Big Basin servers with 8 NVIDIA V100 "
             "GPUs'), so 2 images per GPU; MIN_SIZE_TRAIN (640..800) for 3x and FPN configs, MAX_SIZE_TRAIN 1333, "
             "padded to a multiple of 32 (the largest batch about 1344 x 800); SGD momentum 0.9, fp32 "
             "(SOLVER.AMP off); MSRA ResNet weights with RESNETS.NORM FrozenBN and BACKBONE.FREEZE_AT 2 (stem and "
             "res2 frozen, as mmdetection's frozen_stages=1); DistributedDataParallel")
# The zoo's figures that MODEL_ZOO.md's first commit already had are
# from detectron2's code before @baf6667e, whose pairwise_iou kept the
# corners (data/SCENARIO.md, pairwise_iou_keeps_corners); RetinaNet's
# and GN's were measured again later.
D2_IOU_2019 = ("pairwise_iou_keeps_corners: the figure is in MODEL_ZOO.md's first commit (@989f52d6, 2019-10-10) "
               "and unchanged at @8b0953c0, so measured with the code before @baf6667e (2019-12-03), whose "
               "pairwise_iou kept lt, rb and wh alive through the IoU (detectron2/structures/boxes.py @989f52d6)")
D2_IOU_LATER = ("the figure was measured again after @baf6667e (2019-12-03), so pairwise_iou frees the corners "
                "(detectron2's default): {}")


def d2_iou_2019(s):
    """A detectron2 zoo scenario measured with the first public code."""
    s["pairwise_iou_keeps_corners"] = True
    return s


D2_UNEXPRESSED = [
    ("rpn_R_50_C4_1x",
     "the C4 RPN alone: the catalog has the C4 and DC5 Faster and Mask R-CNN (faster-rcnn-r50-c4, "
     "mask-rcnn-r50-c4, ...; the Mask R-CNN C4/DC5 and X101-32x8d rows are rows_d2variants.py) and FPN "
     "detectors only"),
    ("new_baselines *_LSJ rows (mem 44.6 .. 48.9)",
     "the column there is another quantity (box AP order, 'model id' layout differs); not read as memory"),
]


D2_C4_NOTE = ("C4 (configs/Base-RCNN-C4.yaml @02b5c4e2, the same MIN_SIZE_TRAIN (640..800)): ResNet to res4, RPN on "
              "res4 with 15 anchors, Res5ROIHeads running res5 on the 512 RoIs per image pooled to 14 x 14 "
              "(the catalog's faster-rcnn-c4 head)")

D2_DC5_NOTE = ("DC5 (configs/Base-RCNN-DilatedC5.yaml @02b5c4e2, the same MIN_SIZE_TRAIN (640..800)): res5 dilated "
               "(RES5_DILATION 2, stride 16), RPN on res5 with 15 anchors, the two-FC box head on 7 x 7 RoIs of "
               "res5's 2048 channels (the catalog's faster-rcnn-dc5 head)")


@family
def detectron2_rows():
    rows = [
        (1501, "faster-rcnn-r50-fpn", "COCO-Detection/faster_rcnn_R_50_FPN_1x", 3.0, 80, "1x schedule"),
        (1502, "faster-rcnn-r50-fpn", "COCO-Detection/faster_rcnn_R_50_FPN_3x", 3.0, 80, "3x schedule"),
        (1503, "faster-rcnn-r101-fpn", "COCO-Detection/faster_rcnn_R_101_FPN_3x", 4.1, 80, "ResNet-101"),
        (1504, "retinanet-r50-fpn", "COCO-Detection/retinanet_R_50_FPN_1x", 4.1, 80,
         "one-stage, focal loss, 9 anchors per location"),
        (1505, "retinanet-r50-fpn", "COCO-Detection/retinanet_R_50_FPN_3x", 4.1, 80, "3x schedule"),
        (1506, "mask-rcnn-r50-fpn", "COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_1x", 3.4, 80, "mask head"),
        (1507, "mask-rcnn-r50-fpn", "COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x", 3.4, 80, "3x schedule"),
        (1508, "mask-rcnn-r101-fpn", "COCO-InstanceSegmentation/mask_rcnn_R_101_FPN_3x", 4.6, 80, "ResNet-101"),
        (1509, "mask-rcnn-r50-fpn", "LVISv0.5-InstanceSegmentation/mask_rcnn_R_50_FPN_1x", 7.1, 1230,
         "LVIS v0.5: ROI_HEADS.NUM_CLASSES 1230, repeat-factor sampling"),
        (1510, "mask-rcnn-r101-fpn", "LVISv0.5-InstanceSegmentation/mask_rcnn_R_101_FPN_1x", 7.8, 1230,
         "LVIS v0.5: ROI_HEADS.NUM_CLASSES 1230, repeat-factor sampling"),
        (3700, "faster-rcnn-r50-c4", "COCO-Detection/faster_rcnn_R_50_C4_1x", 4.8, 80, D2_C4_NOTE),
        (3701, "faster-rcnn-r50-c4", "COCO-Detection/faster_rcnn_R_50_C4_3x", 4.8, 80, D2_C4_NOTE + ", 3x schedule"),
        (3702, "faster-rcnn-r101-c4", "COCO-Detection/faster_rcnn_R_101_C4_3x", 5.9, 80,
         D2_C4_NOTE + ", ResNet-101, 3x schedule"),
        (3703, "faster-rcnn-r50-dc5", "COCO-Detection/faster_rcnn_R_50_DC5_1x", 5.0, 80, D2_DC5_NOTE),
        (3704, "faster-rcnn-r50-dc5", "COCO-Detection/faster_rcnn_R_50_DC5_3x", 5.0, 80,
         D2_DC5_NOTE + ", 3x schedule"),
        (3705, "faster-rcnn-r101-dc5", "COCO-Detection/faster_rcnn_R_101_DC5_3x", 6.1, 80,
         D2_DC5_NOTE + ", ResNet-101, 3x schedule"),
    ]
    for rid, mid, cfg, gib, classes, extra in rows:
        name = cfg.split("/")[1]
        s = {"name": f"detectron2 {name}, 2 images per GPU", "task": "train", "model": mid, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
             "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "detection_framework": "detectron2",
             "x-model": {"config": f"configs/{cfg}.yaml", "freeze_at": 2, "norm": "FrozenBN"}}
        if classes != 80:
            s["num_classes"] = classes
        if mid.startswith("retinanet"):
            iou = D2_IOU_LATER.format("3.9 at @989f52d6, 4.1 from @b0e26875 (2020-05-18, 'use L1 loss in "
                                      "RetinaNet')")
        else:
            iou = D2_IOU_2019
            d2_iou_2019(s)
        add(rid, "detector", "medium", "allocated", gib, GIB, s, D2_SRC,
            f"table row '{name}', column 'train mem (GB)': {gib}",
            [D2_METRIC, D2_COMMON, extra, iou, "card size not stated (V100, 16 or 32 GB), not scored"])
    # Cityscapes Mask R-CNN: 8 images over 8 GPUs, short side 800..1024, long side up to 2048
    add(1511, "detector", "medium", "allocated", 4.4, GIB, d2_iou_2019({
        "name": "detectron2 Cityscapes mask_rcnn_R_50_FPN, 1 image per GPU", "task": "train",
        "model": "mask-rcnn-r50-fpn", "method": "full", "compute": "fp32", "optimizer": "sgd-momentum",
        "micro_batch": 1, "image_size": [2048, 1024], "num_classes": 8, "gpus": 8, "sharding": "ddp",
        "recompute": "none", "framework": "pytorch", "detection_framework": "detectron2",
        "x-model": {"config": "configs/Cityscapes/mask_rcnn_R_50_FPN.yaml", "freeze_at": 2, "norm": "FrozenBN"}}),
        D2_SRC, "table row 'R50-FPN, Cityscapes', column 'train mem (GB)': 4.4",
        [D2_METRIC, D2_COMMON.replace("IMS_PER_BATCH 16", "IMS_PER_BATCH 8 (this config)")
         .replace("so 2 images per GPU", "so 1 image per GPU"),
         "configs/Cityscapes/mask_rcnn_R_50_FPN.yaml: MIN_SIZE_TRAIN (800..1024), MAX_SIZE_TRAIN 2048 "
         "(Cityscapes images are 2048 x 1024, so the largest sample is 2048 x 1024), NUM_CLASSES 8", D2_IOU_2019])


# The RPN-only and Keypoint R-CNN rows of the same zoo, read from a later
# MODEL_ZOO.md (its figures for the rows above agree, retinanet aside);
# the models are the catalog's rpn-r50-fpn and keypoint-rcnn-* entries.
D2_SRC_KP = "facebookresearch/detectron2 MODEL_ZOO.md @02478d2e"
D2_URL_KP = "https://github.com/facebookresearch/detectron2/blob/02478d2e332d4ff501be136794b2919029ebb6be/MODEL_ZOO.md"


@family
def detectron2_heads_rows():
    rows = [
        (1512, "rpn-r50-fpn", "COCO-Detection/rpn_R_50_FPN_1x", "RPN R50-FPN", 2.7,
         "ProposalNetwork: FPN and RPN only, no RoI heads"),
        (1513, "keypoint-rcnn-r50-fpn", "COCO-Keypoints/keypoint_rcnn_R_50_FPN_1x", "R50-FPN (1x)", 5.0,
         "Keypoint R-CNN (Base-Keypoint-RCNN-FPN.yaml: NUM_CLASSES 1, KEYPOINT_ON, POST_NMS_TOPK_TRAIN 1500); "
         "the keypoint head on up to 128 positive RoIs per image (the catalog's mask_rois)"),
        (1514, "keypoint-rcnn-r50-fpn", "COCO-Keypoints/keypoint_rcnn_R_50_FPN_3x", "R50-FPN (3x)", 5.0,
         "Keypoint R-CNN, 3x schedule"),
        (1515, "keypoint-rcnn-r101-fpn", "COCO-Keypoints/keypoint_rcnn_R_101_FPN_3x", "R101-FPN (3x)", 6.1,
         "Keypoint R-CNN, ResNet-101"),
    ]
    for rid, mid, cfg, label, gib, extra in rows:
        name = cfg.split("/")[1]
        s = {"name": f"detectron2 {name}, 2 images per GPU", "task": "train", "model": mid, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800],
             "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "detection_framework": "detectron2",
             "x-model": {"config": f"configs/{cfg}.yaml", "freeze_at": 2, "norm": "FrozenBN"}}
        if mid.startswith("keypoint"):
            s["num_classes"] = 1
        add(rid, "detector", "medium", "allocated", gib, GIB, d2_iou_2019(s), D2_SRC_KP,
            f"table row '{label}' ({name}), column 'train mem (GB)': {gib}",
            [D2_METRIC, D2_COMMON, extra, D2_IOU_2019, "table read at " + D2_URL_KP,
             "card size not stated (V100, 16 or 32 GB), not scored"])


# Cascade R-CNN (the catalog's cascade-rcnn-r50-fpn and
# cascade-mask-rcnn-r50-fpn, "cascade_stages" 3): the detectron2 zoo's
# Cascade Mask R-CNN rows and mmdetection's Cascade (Mask) R-CNN README table.
MM_CASCADE_SRC = "open-mmlab/mmdetection configs/cascade_rcnn/README.md @fd53b37c"
MM_CASCADE_URL = ("https://github.com/open-mmlab/mmdetection/blob/fd53b37cee16f1c083915f982210dd417469512c/"
                  "configs/cascade_rcnn/README.md")
D2_URL_CASCADE = ("https://github.com/facebookresearch/detectron2/blob/8b0953c0dbae0bc48d4f244c25f310cf8ebfbf78/"
                  "MODEL_ZOO.md")


@family
def cascade_rows():
    for rid, cfg, gib in [(1541, "cascade_mask_rcnn_R_50_FPN_1x", 4.0), (1542, "cascade_mask_rcnn_R_50_FPN_3x", 4.0)]:
        s = {"name": f"detectron2 {cfg}, 2 images per GPU", "task": "train", "model": "cascade-mask-rcnn-r50-fpn",
             "method": "full", "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2,
             "image_size": [1344, 800], "gpus": 8, "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "detection_framework": "detectron2",
             "x-model": {"config": f"configs/Misc/{cfg}.yaml", "freeze_at": 2, "norm": "FrozenBN"}}
        add(rid, "detector", "medium", "allocated", gib, GIB, d2_iou_2019(s), D2_SRC,
            f"'Cascade R-CNN' table row '{cfg}', column 'train mem (GB)': {gib}",
            [D2_METRIC, D2_COMMON,
             "configs/Misc/" + cfg + ".yaml @02b5c4e2: ROI_HEADS.NAME CascadeROIHeads (3 stages, IoU 0.5/0.6/0.7), "
             "ROI_BOX_HEAD.CLS_AGNOSTIC_BBOX_REG, RPN.POST_NMS_TOPK_TRAIN 2000, MASK_ON; one mask head, on the "
             "first stage's positive proposals (modeling/roi_heads/cascade_rcnn.py)", D2_IOU_2019,
             "table read at " + D2_URL_CASCADE, "card size not stated (V100, 16 or 32 GB), not scored"])
    for rid, mid, cfg, gib in [(1543, "cascade-rcnn-r50-fpn", "cascade_rcnn_r50_fpn_1x_coco", 4.4),
                               (1544, "cascade-mask-rcnn-r50-fpn", "cascade_mask_rcnn_r50_fpn_1x_coco", 6.0)]:
        kind = "Cascade Mask R-CNN" if "mask" in cfg else "Cascade R-CNN"
        s = {"name": f"mmdetection {cfg}, batch 2 per GPU", "task": "train", "model": mid, "method": "full",
             "compute": "fp32", "optimizer": "sgd-momentum", "micro_batch": 2, "image_size": [1344, 800], "gpus": 8,
             "sharding": "ddp", "recompute": "none", "framework": "pytorch",
             "x-model": {"config": f"configs/cascade_rcnn/{cfg}.py", "frozen_stages": 1, "norm_eval": True}}
        add(rid, "detector", "high", "allocated", gib, GIB, s, MM_CASCADE_SRC,
            f"'{kind}' table, row 'R-50-FPN | pytorch | 1x', column 'Mem (GB)': {gib}",
            [MM_METRIC, DET_COMMON,
             "configs/_base_/models/" + ("cascade_mask_rcnn" if "mask" in cfg else "cascade_rcnn") + "_r50_fpn.py: "
             "CascadeRoIHead num_stages 3, three Shared2FCBBoxHeads with reg_class_agnostic=True, 512 RoIs "
             "sampled per image in each stage" + ("; an FCNMaskHead trained in every stage" if "mask" in cfg else ""),
             "table read at " + MM_CASCADE_URL, "trained on 8 V100; card size not stated, not scored"])


# ---------------------------------------------------------------------------
# Qwen (v1) README: finetuning profile and inference memory (QwenLM/Qwen)
# ---------------------------------------------------------------------------
def qwen1(size, layers, hidden, heads, inter_half, vocab):
    """Qwen (v1): MHA with a bias on c_attn, SwiGLU (w1, w2 of intermediate_size / 2, c_proj), RMSNorm, untied."""
    params = lp(layers, hidden, heads, heads, inter_half, vocab, False) + layers * 3 * hidden
    return {
        "id": f"Qwen/Qwen-{size}", "name": f"Qwen-{size} (v1)", "family": "llm", "params": params,
        "layers": layers, "hidden": hidden, "heads": heads, "kv_heads": heads, "intermediate": inter_half,
        "vocab": vocab, "glu": True, "norm": "rmsnorm", "tied_embeddings": False, "max_seq_len": 8192,
        "source": f"huggingface.co/Qwen/Qwen-{size} config.json: num_hidden_layers {layers}, hidden_size {hidden}, "
                  f"num_attention_heads {heads}, intermediate_size {2 * inter_half} (w1 and w2 of "
                  f"{inter_half} each, modeling_qwen.py QWenMLP), vocab_size {vocab}, untied lm_head, c_attn with "
                  f"bias; params counted from those shapes ({params:,})",
    }


QWEN1 = {"1.8B": qwen1("1_8B", 24, 2048, 16, 5504, 151936), "7B": qwen1("7B", 32, 4096, 32, 11008, 151936),
         "14B": qwen1("14B", 40, 5120, 40, 13696, 152064), "72B": qwen1("72B", 80, 8192, 64, 24576, 152064)}
QWEN1_SRC = "QwenLM/Qwen README.md @712d922"
QWEN1_FT = ("README 'Profiling of Memory and Speed': one A100-SXM4-80G, CUDA 11.8, PyTorch 2.0, flash attention 2, "
            "batch size 1 and gradient accumulation 8; finetune.py @2df8e8a pads every sample to model_max_length "
            "(input_id += [pad_token_id] * (max_len - len(input_id))), so each step holds exactly the stated length; "
            "finetune/finetune_lora_single_gpu.sh: --gradient_checkpointing, --use_lora, LoRA r 64 on c_attn, "
            "c_proj, w1, w2 (all linear layers), AdamW (adamw_torch)")
QWEN1_METRIC = ("metric not named: the table gives 'memory (GB)' without saying how it was read; taken as what "
                "nvidia-smi shows (device_used) in GiB (assumption)")


# finetune/ds_config_zero2.json (QwenLM/Qwen @af22d5e, also in Qwen-VL): ZeRO stage 2, offload "none",
# reduce_bucket_size and allgather_bucket_size 2e8, overlap_comm and contiguous_gradients true
QWEN_DS_ZERO2 = {"reduce_bucket_size": 2e8, "allgather_bucket_size": 2e8, "overlap_comm": True,
                 "contiguous_gradients": True}
QWEN_DS_NOTE = ("--deepspeed ds_config_zero2.json on one GPU: ZeRO-2 with nothing to shard, but its engine runs "
                "(sharding zero2): two 2e8-value fp16 reduce buckets (overlap_comm, contiguous_gradients), and "
                "the Trainer leaves half precision to DeepSpeed (trainer.py: 'deepspeed and SageMaker Model "
                "Parallel manage their own half precision'), which casts the model to fp16 with no autocast; "
                "modeling_qwen.py QWenLMHeadModel.forward calls CrossEntropyLoss on lm_logits without .float(), "
                "so the loss runs in fp16 (loss native)")


def qwen1_lora_params(m, rank=64):
    h, i = m["hidden"], m["intermediate"]
    per_layer = rank * ((h + 3 * h) + (h + h) + 2 * (h + i) + (i + h))
    return per_layer * m["layers"]


@family
def qwen1_rows():
    lens = [256, 512, 1024, 2048, 4096, 8192]
    table = {
        ("1.8B", "lora"): [6.7, 7.4, 8.4, 11.0, 16.2, 21.8],
        ("1.8B", "qlora"): [5.8, 6.0, 6.6, 7.8, 10.2, 15.8],
        ("1.8B", "full"): [43.5, 43.5, 43.5, 43.5, 47.1, 48.3],
        ("7B", "lora"): [20.1, 20.4, 21.5, 23.8, 29.7, 36.6],
        ("7B", "qlora"): [11.5, 11.5, 12.3, 13.9, 16.9, 23.5],
        ("14B", "lora"): [34.6, 35.1, 35.3, 37.4, 42.5, 55.2],
        ("14B", "qlora"): [18.7, 18.4, 18.9, 19.9, 23.0, 27.9],
        ("72B", "qlora"): [61.4, 61.4, 62.9, 64.1, 68.0, 75.6],
    }
    rid = 1001
    for (size, method), values in table.items():
        m = QWEN1[size]
        for seq, gb in zip(lens, values):
            s = {"name": f"Qwen-{size} {method} seq {seq} (Qwen README profile)", "task": "finetune",
                 "model": m, "micro_batch": 1, "grad_accum": 8, "seq_len": seq, "recompute": "full",
                 "attention": "flash", "loss": "upcast", "gpus": 1, "offload": "none", "gpu": "a100-80gb",
                 "optimizer": "adamw"}
            notes = [QWEN1_METRIC, QWEN1_FT]
            if method == "lora":
                s.update(method="lora", weights_dtype="bf16", compute="bf16-mixed", sharding="none",
                         lora={"rank": 64, "targets": "all-linear"}, trainable_params=qwen1_lora_params(m))
                notes.append("--bf16 True: modeling_qwen.py keeps the model in bf16 (config bf16) and the Trainer "
                             "autocasts; LoRA adapters trained under AMP (bf16-mixed)")
                cat = "llm_lora_hf"
            elif method == "qlora":
                s.update(method="qlora", weights_dtype="int4", quant_compute_dtype="fp16", quant_method="gptq",
                         compute="fp16-mixed", sharding="zero2", deepspeed=QWEN_DS_ZERO2, loss="native",
                         lora={"rank": 64, "targets": "all-linear"}, trainable_params=qwen1_lora_params(m))
                notes.append("finetune/finetune_qlora_single_gpu.sh: --fp16 True ('due to autogptq'), --q_lora; "
                             "finetune.py loads the Int4 GPTQ checkpoint (GPTQConfig(bits=4, disable_exllama=True)), "
                             "not bitsandbytes NF4: 4-bit weights with group-128 scales, expressed as int4")
                notes.append(QWEN_DS_NOTE)
                cat = "qlora"
            else:
                s.update(method="full", weights_dtype="bf16", compute="bf16-mixed", sharding="zero3")
                notes.append("full-parameter: finetune/finetune_ds.sh, --bf16 True, --deepspeed "
                             "ds_config_zero3.json (ZeRO-3 on one GPU, offload_optimizer and offload_param 'none'), "
                             "AdamW from the DeepSpeed config (fp32 master weights and moments)")
                cat = "deepspeed_zero"
            add(rid, cat, "low", "device_used", gb, GIB, s, QWEN1_SRC,
                f"'Profiling of Memory and Speed' table, row '{size} | "
                f"{ {'lora': 'LoRA', 'qlora': 'Q-LoRA', 'full': 'Full-parameter'}[method]}', column {seq}: {gb}G",
                notes)
            rid += 1
    # Inference: 'average inference speed and GPU memory usage of generating 2048 [tokens]'
    inf = [("1.8B", "bf16", 4.23), ("1.8B", "int8", 3.48), ("1.8B", "int4", 2.91),
           ("7B", "bf16", 16.99), ("7B", "int8", 11.20), ("7B", "int4", 8.21),
           ("14B", "bf16", 30.15), ("14B", "int8", 18.81), ("14B", "int4", 13.01),
           ("72B", "int4", 48.86)]
    rid = 1061
    for size, dt, gb in inf:
        s = {"name": f"Qwen-{size} {dt} generating 2048 tokens", "task": "inference", "model": QWEN1[size],
             "micro_batch": 1, "seq_len": 1, "context_len": 2048, "weights_dtype": dt, "kv_dtype": "bf16",
             "compute": "bf16-pure", "attention": "flash", "gpus": 1, "sharding": "none", "offload": "none",
             "gpu": "a100-80gb"}
        if dt != "bf16":
            s["quant_compute_dtype"] = "fp16"
            s["quant_method"] = "gptq"
        add(rid, "inference_hf", "low", "device_used", gb, GIB, s, QWEN1_SRC,
            f"'Inference Performance' table, row '{size} | {dt.upper() if dt == 'bf16' else dt.capitalize()}', "
            f"column 'GPU Memory Usage': {gb}GB",
            [QWEN1_METRIC, "README: 'speed and memory profiling ... using this script' (profile.py, hosted off "
             "GitHub, not read): 'generating 2048 [tokens]'; the prompt length is not given, taken as 1 token "
             "(context 2048 at the end); on an A100 80GB (the README's multi-GPU rows say 2xA100)",
             "Int8 and Int4 are the GPTQ checkpoints (Qwen-*-Chat-Int8/Int4, auto-gptq), 8- and 4-bit weights "
             "with fp16 scales; expressed as int8 and int4"])
        rid += 1



# ---------------------------------------------------------------------------
# Qwen3 speed benchmark with transformers (QwenLM/Qwen2.5, now the Qwen3 repository)
# ---------------------------------------------------------------------------
QWEN3_SRC = "QwenLM/Qwen2.5 docs/source/getting_started/speed_benchmark.md @c7f51a1"
QWEN3_METRIC = ("metric allocated: examples/speed-benchmark/speed_benchmark_transformers.py @8205ba2 sums "
                "torch.cuda.max_memory_allocated(i) over the visible GPUs after one generate() call (one GPU here); "
                "the tables' 'GPU Memory (MB)' taken as MiB (the script's own output divides by 1024**3, "
                "so the docs print that figure x 1024)")
QWEN3_SETUP = ("NVIDIA H20 96GB, PyTorch 2.6.0, Transformers 4.51.3, Flash Attention 2.7.4 (USE_FLASH_ATTN True, "
               "attn_implementation flash_attention_2), torch_dtype 'auto' (bf16), device_map 'auto', batch 1; "
               "'generating 2048 tokens, with input lengths of 1, 6144, 14336, 30720' (min_length = input + 2048, so "
               "exactly 2048 new tokens)")
QWEN3_Q = {"BF16": ("bf16", "bf16 checkpoint"),
           "FP8": ("fp8", "Qwen3-*-FP8: fine-grained fp8 (e4m3) weights with block scales"),
           "GPTQ-Int8": ("int8", "GPTQ 8-bit weights with fp16 group scales (GPTQModel 2.2.0)"),
           "GPTQ-INT4": ("int4", "GPTQ 4-bit weights with fp16 group scales (GPTQModel 2.2.0)"),
           "AWQ-INT4": ("int4", "AWQ 4-bit weights with fp16 group scales (AutoAWQ 0.2.9)")}
# Qwen3-30B-A3B GPTQ-INT4 rows read '-' ('MoE Kernel Unsupported'); the 235B rows use several GPUs.
QWEN3_ROWS = [
        ("Qwen3-0.6B", 1, "BF16", 1394),
        ("Qwen3-0.6B", 1, "FP8", 1217),
        ("Qwen3-0.6B", 1, "GPTQ-Int8", 986),
        ("Qwen3-0.6B", 6144, "BF16", 2066),
        ("Qwen3-0.6B", 6144, "FP8", 1943),
        ("Qwen3-0.6B", 6144, "GPTQ-Int8", 1658),
        ("Qwen3-0.6B", 14336, "BF16", 2963),
        ("Qwen3-0.6B", 14336, "FP8", 2839),
        ("Qwen3-0.6B", 14336, "GPTQ-Int8", 2554),
        ("Qwen3-0.6B", 30720, "BF16", 4755),
        ("Qwen3-0.6B", 30720, "FP8", 4632),
        ("Qwen3-0.6B", 30720, "GPTQ-Int8", 4347),
        ("Qwen3-1.7B", 1, "BF16", 3412),
        ("Qwen3-1.7B", 1, "FP8", 2726),
        ("Qwen3-1.7B", 1, "GPTQ-Int8", 2229),
        ("Qwen3-1.7B", 6144, "BF16", 4213),
        ("Qwen3-1.7B", 6144, "FP8", 3462),
        ("Qwen3-1.7B", 6144, "GPTQ-Int8", 2901),
        ("Qwen3-1.7B", 14336, "BF16", 5109),
        ("Qwen3-1.7B", 14336, "FP8", 4359),
        ("Qwen3-1.7B", 14336, "GPTQ-Int8", 3798),
        ("Qwen3-1.7B", 30720, "BF16", 6902),
        ("Qwen3-1.7B", 30720, "FP8", 6151),
        ("Qwen3-1.7B", 30720, "GPTQ-Int8", 5590),
        ("Qwen3-4B", 1, "BF16", 7973),
        ("Qwen3-4B", 1, "FP8", 5281),
        ("Qwen3-4B", 1, "AWQ-INT4", 2915),
        ("Qwen3-4B", 6144, "BF16", 8860),
        ("Qwen3-4B", 6144, "FP8", 6144),
        ("Qwen3-4B", 6144, "AWQ-INT4", 3881),
        ("Qwen3-4B", 14336, "BF16", 10012),
        ("Qwen3-4B", 14336, "FP8", 7297),
        ("Qwen3-4B", 14336, "AWQ-INT4", 5151),
        ("Qwen3-4B", 30720, "BF16", 12317),
        ("Qwen3-4B", 30720, "FP8", 9611),
        ("Qwen3-4B", 30720, "AWQ-INT4", 7742),
        ("Qwen3-8B", 1, "BF16", 15947),
        ("Qwen3-8B", 1, "FP8", 9323),
        ("Qwen3-8B", 1, "AWQ-INT4", 6177),
        ("Qwen3-8B", 6144, "BF16", 16811),
        ("Qwen3-8B", 6144, "FP8", 10187),
        ("Qwen3-8B", 6144, "AWQ-INT4", 7113),
        ("Qwen3-8B", 14336, "BF16", 17963),
        ("Qwen3-8B", 14336, "FP8", 11340),
        ("Qwen3-8B", 14336, "AWQ-INT4", 8409),
        ("Qwen3-8B", 30720, "BF16", 20267),
        ("Qwen3-8B", 30720, "FP8", 13644),
        ("Qwen3-8B", 30720, "AWQ-INT4", 11001),
        ("Qwen3-14B", 1, "BF16", 28402),
        ("Qwen3-14B", 1, "FP8", 16012),
        ("Qwen3-14B", 1, "AWQ-INT4", 9962),
        ("Qwen3-14B", 6144, "BF16", 29495),
        ("Qwen3-14B", 6144, "FP8", 16972),
        ("Qwen3-14B", 6144, "AWQ-INT4", 11020),
        ("Qwen3-14B", 14336, "BF16", 30775),
        ("Qwen3-14B", 14336, "FP8", 18253),
        ("Qwen3-14B", 14336, "AWQ-INT4", 12438),
        ("Qwen3-14B", 30720, "BF16", 33336),
        ("Qwen3-14B", 30720, "FP8", 20813),
        ("Qwen3-14B", 30720, "AWQ-INT4", 15323),
        ("Qwen3-32B", 1, "BF16", 62751),
        ("Qwen3-32B", 1, "FP8", 33379),
        ("Qwen3-32B", 1, "AWQ-INT4", 19109),
        ("Qwen3-32B", 6144, "BF16", 64583),
        ("Qwen3-32B", 6144, "FP8", 34915),
        ("Qwen3-32B", 6144, "AWQ-INT4", 20795),
        ("Qwen3-32B", 14336, "BF16", 66632),
        ("Qwen3-32B", 14336, "FP8", 36963),
        ("Qwen3-32B", 14336, "AWQ-INT4", 23105),
        ("Qwen3-32B", 30720, "BF16", 70728),
        ("Qwen3-32B", 30720, "FP8", 41060),
        ("Qwen3-32B", 30720, "AWQ-INT4", 27718),
        ("Qwen3-30B-A3B", 1, "BF16", 58462),
        ("Qwen3-30B-A3B", 1, "FP8", 30296),
        ("Qwen3-30B-A3B", 6144, "BF16", 59037),
        ("Qwen3-30B-A3B", 6144, "FP8", 30872),
        ("Qwen3-30B-A3B", 14336, "BF16", 59806),
        ("Qwen3-30B-A3B", 14336, "FP8", 31641),
        ("Qwen3-30B-A3B", 30720, "BF16", 61342),
        ("Qwen3-30B-A3B", 30720, "FP8", 33177),
]


@family
def qwen3_speed_rows():
    h20 = dict(H20, source="NVIDIA H20 96GB as the benchmark names it; nominal 96 GiB")
    for i, (model, length, quant, mib) in enumerate(QWEN3_ROWS):
        dtype, what = QWEN3_Q[quant]
        s = {"name": f"{model} {quant} generate 2048 after {length} tokens (Qwen3 speed benchmark)",
             "task": "inference", "model": model.lower(), "micro_batch": 1, "seq_len": length,
             "context_len": length + 2048, "weights_dtype": dtype, "kv_dtype": "bf16", "compute": "bf16-pure",
             "attention": "flash", "gpus": 1, "sharding": "none", "offload": "none", "gpu": h20}
        if dtype in ("int8", "int4"):
            s["quant_compute_dtype"] = "fp16"
            s["quant_method"] = "awq" if quant.startswith("AWQ") else "gptq"
        add(1101 + i, "inference_hf", "medium", "allocated", mib, MIB, s, QWEN3_SRC,
            f"table '{model} (Transformers)', row input length {length}, {quant}, 1 GPU: {mib} MB",
            [QWEN3_METRIC, QWEN3_SETUP, what])


# ---------------------------------------------------------------------------
# Low-bit optimizers: torchao's ViT-H fine-tune benchmark (pytorch/ao)
# ---------------------------------------------------------------------------
AO_SRC = "pytorch/ao torchao/optim/README.md @ca17609a0"
AO_NOTES = [
    "metric allocated: benchmarks/benchmark_low_bit_adam.py @f3342a0aa logs "
    "torch.cuda.max_memory_allocated() / 1e9 (decimal GB) at the end of the run",
    "README 'Benchmarks': timm vit_huge_patch14_224.orig_in21k (630M params) fine-tuned on resisc45 (45 classes, "
    "timm.create_model(..., num_classes=45)), PyTorch 2.4, BF16 AMP, compiled model (model.compile(fullgraph=True)), "
    "batch size 8, 224 x 224 (RandomResizedCrop to the model's input size), RTX 4070 Ti SUPER (16 GB); no "
    "activation checkpointing (the README's command has no --checkpoint_activations)",
    "gradients: the loop calls optim.zero_grad() after every step (benchmark_low_bit_adam.py @f3342a0aa), whose "
    "set_to_none defaults to True since PyTorch 2.0 (torch/optim/optimizer.py zero_grad), and grad_accum is 1: "
    "no gradient is alive when the backward pass starts (zero_grad_set_to_none)",
]
AO_UNEXPRESSED = [
    ("lpmm 4-bit rows (7.72, 7.74)", "lpmm's fused 4-bit AdamW: no agreed optimizer value"),
    ("Llama2-7B torchtune rows (51.6 .. 33.2)", "the torchtune config of PR #812 is not in the README"),
    ("CPU offload rows (ViT-giant DINOv2)", "the training input size (224 or DINOv2's 518) is not stated"),
]


@family
def torchao_rows():
    rows = [(1201, "PyTorch (fused)", "adamw", "fused", 12.23), (1202, "bnb 8-bit", "adamw-8bit", None, 8.32),
            (1203, "ao 8-bit", "adamw-8bit-ao", None, 8.33), (1204, "ao FP8 E4M3", "adamw-fp8", None, 8.33),
            (1205, "ao 4-bit", "adamw-4bit", None, 7.72)]
    for rid, impl, opt, fused, gb in rows:
        s = {"name": f"timm ViT-H/14 fine-tune, AdamW {impl} (torchao benchmark)", "task": "finetune",
             "model": "vit-h-14", "method": "full", "compute": "bf16-mixed", "weights_dtype": "fp32",
             "optimizer": opt, "micro_batch": 8, "image_size": [224, 224], "num_classes": 45, "compile": True,
             "recompute": "none", "attention": "sdpa", "zero_grad_set_to_none": True, "gpus": 1,
             "sharding": "none", "offload": "none",
             "gpu": {"id": "rtx-4070-ti-super", "name": "GeForce RTX 4070 Ti SUPER", "memory": 16 * GIB,
                     "source": "NVIDIA product page: 16 GB GDDR6X; nominal"}}
        if fused:
            s["optimizer_impl"] = fused
        add(rid, "classifier", "medium", "allocated", gb, GB, s, AO_SRC,
            f"ViT-H table, row '{impl}', 'Peak memory allocated (GB)': {gb}", AO_NOTES)


# ---------------------------------------------------------------------------
# AutoAWQ benchmark table (casper-hansen/AutoAWQ)
# ---------------------------------------------------------------------------
AWQ_SRC = "casper-hansen/AutoAWQ README.md @8f774d5"
AWQ_NOTES = [
    "metric allocated: examples/benchmark.py sums torch.cuda.max_memory_allocated(device) / 1024**3 (GiB) over "
    "the devices after the prefill and decode runs",
    "README 'Benchmarks': AutoAWQ 0.1.6 on one RTX 4090, 'python examples/benchmark.py --model_path <hf_model> "
    "--batch_size N'; AWQ 4-bit weights (group 128, fp16 scales and zeros) computed in fp16",
    "AutoAWQ 0.1.6 (tag v0.1.6 = 8110e028c7fe496287d9092d2255f3b7fa6bdd2d) examples/benchmark.py: "
    "from_quantized(..., fuse_layers=True, max_new_tokens=n_generate, batch_size=batch_size) (fuse_layers); "
    "awq/models/base.py _load_config sets config.max_new_tokens = n_generate and awq/models/mistral.py / llama.py "
    "fuse_layers build each LlamaLikeBlock with max_seq_len=config.max_new_tokens, so the fused modules' fp16 "
    "cache (awq/modules/fused/cache.py WindowedCache) holds batch x n_generate tokens, allocated up front, and "
    "rolls once prefill + decode exceed it: context_len is the decode length (earlier versions of these rows "
    "took max_seq_len=n_generate+context from the benchmark.py of a later release)",
    "the benchmark calls model(inputs) on the HF causal LM whose decoder the fused modules replace; AutoAWQ 0.1.6 "
    "requires transformers>=4.35.0 (setup.py at v0.1.6), released then: transformers_version 4.35",
]
AWQ_UNEXPRESSED = [
    ("MPT 7B, Falcon 7B, CodeLlama 34B, DeepSeek 33B rows", "models the catalog lacks"),
    ("Mixtral rows (2x RTX 4090) and the CPU rows", "split across two GPUs by device_map, or run on CPU"),
]


@family
def autoawq_rows():
    rows = [
        (1301, "Vicuna 7B", "llama-2-7b", "GEMV", 1, 64, 4.50), (1302, "Vicuna 7B", "llama-2-7b", "GEMV", 1, 2048, 6.15),
        (1303, "Mistral 7B", "mistral-7b", "GEMM", 1, 64, 4.35), (1304, "Mistral 7B", "mistral-7b", "GEMM", 1, 2048, 5.55),
        (1305, "Mistral 7B", "mistral-7b", "GEMM", 8, 64, 4.35), (1306, "Mistral 7B", "mistral-7b", "GEMM", 8, 2048, 16.82),
        (1307, "Mistral 7B", "mistral-7b", "GEMV", 1, 64, 4.28), (1308, "Mistral 7B", "mistral-7b", "GEMV", 1, 2048, 5.55),
        (1309, "Mistral 7B", "mistral-7b", "GEMV", 8, 64, 4.33), (1310, "Mistral 7B", "mistral-7b", "GEMV", 8, 2048, 16.82),
        (1311, "TinyLlama 1B", "tinyllama-1.1b", "GEMV", 1, 64, 0.86),
        (1312, "TinyLlama 1B", "tinyllama-1.1b", "GEMV", 1, 2048, 2.10),
        (1313, "Llama 2 13B", "llama-2-13b", "GEMM", 1, 64, 8.47), (1314, "Llama 2 13B", "llama-2-13b", "GEMM", 1, 2048, 10.28),
        (1315, "Llama 2 13B", "llama-2-13b", "GEMM", 3, 64, 8.57), (1316, "Llama 2 13B", "llama-2-13b", "GEMM", 3, 2048, 16.90),
    ]
    for rid, name, mid, kernel, batch, length, gib in rows:
        s = {"name": f"AutoAWQ {name} {kernel}, batch {batch}, prefill {length} + decode {length}",
             "task": "inference", "model": mid, "micro_batch": batch, "seq_len": length, "context_len": length,
             "weights_dtype": "int4", "quant_compute_dtype": "fp16", "quant_method": "awq", "kv_dtype": "fp16",
             "compute": "bf16-pure", "attention": "sdpa", "gpus": 1, "sharding": "none", "offload": "none",
             "gpu": "rtx-4090", "fuse_layers": True, "transformers_version": "4.35"}
        notes = list(AWQ_NOTES)
        if name == "Vicuna 7B":
            notes.append("Vicuna 7B (lmsys/vicuna-7b-v1.5) is a Llama 2 7B fine-tune with its shapes: llama-2-7b")
        add(rid, "inference_hf", "medium", "allocated", gib, GIB, s, AWQ_SRC,
            f"'Benchmarks' table, row '{name.split()[0]} | {name.split()[1]} | {kernel} | {batch} | {length} | "
            f"{length}', 'Memory (VRAM)': {gib} GB", notes)


# ---------------------------------------------------------------------------
# ChatGLM2-6B and GLM-4-9B: the READMEs' memory tables (THUDM)
# ---------------------------------------------------------------------------
def chatglm(mid, name, layers, hidden, heads, groups, ffn, vocab, source):
    hd = hidden // heads
    attn = hidden * (heads * hd + 2 * groups * hd) + (heads * hd + 2 * groups * hd) + heads * hd * hidden
    params = layers * (attn + 3 * hidden * ffn + 2 * hidden) + 2 * vocab * hidden + hidden
    return {"id": mid, "name": name, "family": "llm", "params": params, "layers": layers, "hidden": hidden,
            "heads": heads, "kv_heads": groups, "intermediate": ffn, "vocab": vocab, "glu": True, "norm": "rmsnorm",
            "tied_embeddings": False,
            "source": f"{source}: num_layers {layers}, hidden_size {hidden}, num_attention_heads {heads}, "
                      f"multi_query_group_num {groups}, ffn_hidden_size {ffn} (SwiGLU), padded_vocab_size {vocab}, "
                      f"add_qkv_bias true, separate output_layer; params counted from those shapes ({params:,})"}


CHATGLM2 = chatglm("THUDM/chatglm2-6b", "ChatGLM2-6B", 28, 4096, 32, 2, 13696, 65024,
                   "huggingface.co/THUDM/chatglm2-6b config.json")
GLM4 = chatglm("THUDM/glm-4-9b-chat", "GLM-4-9B-Chat", 40, 4096, 32, 2, 13696, 151552,
               "huggingface.co/THUDM/glm-4-9b-chat config.json")
GLM_UNEXPRESSED = [("GLM-4V-9B rows (28, 33, 10, 15 GB)", "a vision-language model the catalog lacks"),
                   ("ChatGLM-6B (v1) README 'minimum GPU memory' table", "no input length is stated")]


@family
def glm_rows():
    src2 = "THUDM/ChatGLM2-6B README.md @d8894f8"
    notes2 = ["metric not named ('minimum GPU memory'); taken as what nvidia-smi shows (device_used), in GiB "
              "(assumption)",
              "README: the official implementation (transformers remote code) with PyTorch 2.0 SDPA ('if the "
              "PyTorch version is lower it falls back to naive attention, with higher memory than the table'); "
              "INT8/INT4 are the repository's own quantize(8) / quantize(4) (int8 and int4 weights with fp16 "
              "scales), compute fp16; batch 1",
              "card not stated; scored without one"]
    rows2 = [("fp16", "FP16 / BF16", 13.1, 12.8), ("int8", "INT8", 8.2, 8.1), ("int4", "INT4", 5.5, 5.1)]
    rid = 1401
    for dt, label, enc, gen in rows2:
        for what, seq, ctx, gb in (("encode 2048 tokens", 2048, 2048, enc), ("generate 8192 tokens", 1, 8192, gen)):
            s = {"name": f"ChatGLM2-6B {label} {what}", "task": "inference", "model": CHATGLM2, "micro_batch": 1,
                 "seq_len": seq, "context_len": ctx, "weights_dtype": "fp16" if dt == "fp16" else dt,
                 "kv_dtype": "fp16", "compute": "bf16-pure", "attention": "sdpa", "gpus": 1, "sharding": "none",
                 "offload": "none"}
            if dt != "fp16":
                s["quant_compute_dtype"] = "fp16"
            add(rid, "inference_hf", "low", "device_used", gb, GIB, s, src2,
                f"table '量化等级 | 编码 2048 长度的最小显存 | 生成 8192 长度的最小显存', row '{label}': {gb} GB",
                notes2 + (["generate 8192: a short prompt (taken as 1 token) and 8192 tokens generated"]
                          if seq == 1 else ["encode 2048: one prefill of 2048 tokens"]))
            rid += 1
    src4 = "THUDM/GLM-4 basic_demo/README_en.md @a3e59fb"
    notes4 = ["metric not named beyond 'all GPU memory consumption is calculated based on the peak value'; "
              "taken as what nvidia-smi shows (device_used), GB as GiB (assumption)",
              "README: 'All tests are performed on a single GPU', A100-SXM4-80GB, CUDA 12.3; transformers "
              "backend; the number of generated tokens is not stated (taken as 256: assumption)",
              "INT4: bitsandbytes 4-bit as the demos load it (BitsAndBytesConfig(load_in_4bit=True)), expressed "
              "as nf4 with fp16 compute (assumption: the quant type is not stated)"]
    rows4 = [("bf16", 1000, 19), ("bf16", 8000, 21), ("bf16", 32000, 28), ("bf16", 128000, 58),
             ("nf4", 1000, 8), ("nf4", 8000, 10), ("nf4", 32000, 17)]
    rid = 1411
    for dt, length, gb in rows4:
        s = {"name": f"GLM-4-9B-Chat {dt} input {length}", "task": "inference", "model": GLM4, "micro_batch": 1,
             "seq_len": length, "context_len": length + 256, "weights_dtype": dt, "kv_dtype": "bf16",
             "compute": "bf16-pure", "attention": "sdpa", "gpus": 1, "sharding": "none", "offload": "none",
             "gpu": "a100-80gb"}
        if dt == "nf4":
            s["quant_compute_dtype"] = "fp16"
        add(rid, "inference_hf", "low", "device_used", gb, GIB, s, src4,
            f"'GLM-4-9B-Chat' tables, row '{'BF16' if dt == 'bf16' else 'INT4'} | {gb} GB | ... | Input length is "
            f"{length}'", notes4)
        rid += 1


# ---------------------------------------------------------------------------
# Baichuan 2: the README's quantisation memory table (baichuan-inc/Baichuan2)
# ---------------------------------------------------------------------------
def baichuan2(size, layers, hidden, heads, inter, position):
    params = lp(layers, hidden, heads, heads, inter, 125696, False)
    return {"id": f"baichuan-inc/Baichuan2-{size}-Chat", "name": f"Baichuan2-{size}-Chat", "family": "llm",
            "params": params, "layers": layers, "hidden": hidden, "heads": heads, "kv_heads": heads,
            "intermediate": inter, "vocab": 125696, "glu": True, "norm": "rmsnorm", "tied_embeddings": False,
            "source": f"huggingface.co/baichuan-inc/Baichuan2-{size}-Chat config.json: num_hidden_layers {layers}, "
                      f"hidden_size {hidden}, num_attention_heads {heads}, intermediate_size {inter}, vocab_size "
                      f"125696, {position}, separate lm_head (NormHead); params counted from those shapes "
                      f"({params:,})"}


@family
def baichuan2_rows():
    src = "baichuan-inc/Baichuan2 README_EN.md @ed1cf0f"
    models = {"7B": baichuan2("7B", 32, 4096, 32, 11008, "rotary positions"),
              "13B": baichuan2("13B", 40, 5120, 40, 13696, "ALiBi positions")}
    notes = ["metric weights: 'Comparison of memory usage before and after quantization (GPU Mem in GB)' is the "
             "loaded model, nothing generated (no input is named); GB taken as GiB (assumption)",
             "8bits and 4bits: the README's online quantize(8) / quantize(4) or BitsAndBytes ('Baichuan 2 "
             "selecting NF4 as its 4bits quantization data type'); expressed as int8 and nf4, the unquantised "
             "embedding, norms and head in fp16"]
    rows = [(1431, "7B", "fp16", 14.0), (1432, "7B", "int8", 8.0), (1433, "7B", "nf4", 5.1),
            (1434, "13B", "fp16", 25.9), (1435, "13B", "int8", 14.2), (1436, "13B", "nf4", 8.6)]
    for rid, size, dt, gb in rows:
        s = {"name": f"Baichuan2-{size}-Chat loaded in {dt}", "task": "inference", "model": models[size],
             "micro_batch": 1, "seq_len": 1, "context_len": 1, "weights_dtype": dt, "kv_dtype": "fp16",
             "compute": "bf16-pure", "attention": "sdpa", "gpus": 1, "sharding": "none", "offload": "none"}
        if dt != "fp16":
            s["quant_compute_dtype"] = "fp16"
        label = {"fp16": "bf16 / fp16", "int8": "8bits", "nf4": "4bits"}[dt]
        add(rid, "inference_hf", "medium", "weights", gb, GIB, s, src,
            f"'Quantization Effect' table, row '{label}', column 'Baichuan2-{size}': {gb}", notes)


# ---------------------------------------------------------------------------
# Runs that needed a key, a value or a model description of their own (rows
# 901-): GGUF block types, weights-only parts, offloading, losses, masks and
# low-precision training.  Kept in one block, after every other family.
# ---------------------------------------------------------------------------
GGML_CI_V100 = ("ggml-org/ci llama.cpp/d1/99ca79f279e84ebe27caafe0aa59c461d88969/ggml-4-x86-cuda-v100/README.md "
                "@030daed1 (llama.cpp CI on a Tesla V100-PCIE-16GB, llama.cpp build 2459 d199ca79, 2024-03-18)")
GGML_CI_NOTES = [
    "metric weights: llama.cpp's 'CUDA0 buffer size' in MiB; the token embedding stays in the host buffer "
    "('CPU buffer size'), which the estimate counts as host memory",
    "OpenLLaMA 7B v2 (open-llama/7B-v2): n_embd 4096, n_layer 32, n_head 32, n_ff 11008, n_vocab 32000, untied "
    "output ('model params = 6.74 B'), the shapes of the catalog's llama-2-7b (6,738,415,616 parameters)",
    "./bin/main ... -ngl 999: 'offloaded 33/33 layers to GPU', n_ctx 512"]


@family
def express_rows():
    base = {"task": "inference", "model": "llama-2-7b", "engine": "llama.cpp", "gpu_layers": 999,
            "kv_dtype": "fp16", "micro_batch": 1, "seq_len": 512, "gpus": 1,
            "gpu": {"id": "tesla-v100-16gb", "name": "Tesla V100-PCIE-16GB", "memory": 16 * 1024 ** 3,
                    "source": "NVIDIA V100 datasheet: 16 GB HBM2 (capacity not used by the weights metric)"}}
    add(901, "llamacpp", "high", "weights", 6695.84, MIB,
        dict(base, name="llama.cpp OpenLLaMA 7B v2 Q8_0, every layer on a V100", weights_dtype="q8_0"),
        GGML_CI_V100, "section 'open_llama_7b_v2', '- q8_0:' run: 'llm_load_tensors: CUDA0 buffer size = 6695.84 MiB'",
        GGML_CI_NOTES + ["'type q8_0: 226 tensors', 'type f32: 65 tensors' (norms): every matrix, the output "
                         "included, is Q8_0 (34 bytes per 32 weights); 'CPU buffer size = 132.81 MiB' is the "
                         "token embedding (32000 x 4096 x 34 / 32 bytes)"])
    add(902, "llamacpp", "high", "weights", 3963.56, MIB,
        dict(base, name="llama.cpp OpenLLaMA 7B v2 Q4_1, every layer on a V100", weights_dtype="q4_1"),
        GGML_CI_V100, "section 'open_llama_7b_v2', '- q4_1:' run: 'llm_load_tensors: CUDA0 buffer size = 3963.56 MiB'",
        GGML_CI_NOTES + ["'type q4_1: 225 tensors', 'type q6_K: 1 tensors': llama.cpp's quantize keeps the "
                         "output matrix in Q6_K (210 bytes per 256) under every 4-bit type; the scenario's one "
                         "weights_dtype counts it as Q4_1 (20 bytes per 32), 25 MB under"])

    # torchao's CPU-offloaded AdamW on a ViT-g, full BF16 training
    vitg = {"id": "vit-giant-patch14-dinov2", "name": "ViT-g/14 DINOv2 (timm)", "family": "other",
            "params": 1136480768, "layers": 40, "hidden": 1536, "heads": 24, "intermediate": 4096, "glu": True,
            "norm": "layernorm", "patch": 14,
            "source": "timm vision_transformer.py vit_giant_patch14_dinov2: embed_dim 1536, depth 40, num_heads 24, "
                      "mlp_ratio 2.66667 x 2 with SwiGLUPacked (fc1 8192 = two 4096 halves, fc2 4096 -> 1536), "
                      "patch 14; params: the DINOv2 ViT-g/14 backbone's 1.1B (facebookresearch/dinov2 "
                      "MODEL_CARD.md: 1,100M) with timm's 45-class head"}
    ao_src = "pytorch/ao torchao/prototype/low_bit_optim/README.md @03cf0ad ('Optimizer CPU offload' benchmark)"
    ao_notes = [
        "metric allocated: benchmarks/benchmark_low_bit_adam.py @03cf0ad prints torch.cuda.max_memory_allocated() / 1e9 "
        "('Max memory used: ... GB', decimal)",
        "'timm/vit_giant_patch14_dinov2.lvd142m (1.1B params), eager mode, full BF16 training, activations "
        "checkpointing, batch size 32, on 4070Ti SUPER': --full_bf16 (model.bfloat16(), compute bf16-pure), "
        "--checkpoint_activations (timm set_grad_checkpointing: every block, recompute full), --batch_size 32",
        "images: the script's RandomResizedCrop(224): 16 x 16 patches of 14 (the class token not counted); the "
        "model's 45-class head (resisc45) is a few thousand parameters",
        "torch.optim.AdamW(fused=True) inside CPUOffloadOptimizer (the step runs on the CPU); RTX 4070 Ti SUPER, "
        "16 GB (data/gpus.json rtx-4070-ti-super: 17,171,480,576 bytes)"]
    abase = {"task": "finetune", "model": vitg, "method": "full", "compute": "bf16-pure", "recompute": "full",
             "optimizer": "adamw", "optimizer_impl": "fused", "micro_batch": 32, "image_size": 224, "gpus": 1,
             "gpu": {"id": "rtx-4070-ti-super", "name": "GeForce RTX 4070 Ti SUPER", "memory": 17171480576,
                     "source": "data/gpus.json rtx-4070-ti-super"}}
    add(903, "cpu_offload", "medium", "allocated", 4.01, 1e9,
        dict(abase, name="torchao CPUOffloadOptimizer(offload_gradients=True), ViT-g/14 full BF16, batch 32",
             offload="optimizer+gradients"),
        ao_src, "table 'Adam offload | Time per step | Max memory', row 'ao (offload gradients) | 1.53s/it | 4.01 GB'",
        ao_notes + ["--optim_cpu_offload ao_offload_grads: CPUOffloadOptimizer(..., offload_gradients=True) "
                    "(cpu_offload.py @122eb73: each gradient copied to pinned host memory from its "
                    "post-accumulate-grad hook, then p_device.grad = None)"],
        stack_config="python benchmark_low_bit_adam.py --model timm/vit_giant_patch14_dinov2.lvd142m --full_bf16 "
                     "--checkpoint_activations --batch_size 32 --optim AdamW --optim_cpu_offload ao_offload_grads")
    add(904, "cpu_offload", "medium", "allocated", 5.24, 1e9,
        dict(abase, name="torchao CPUOffloadOptimizer, ViT-g/14 full BF16, batch 32", offload="optimizer"),
        ao_src, "table 'Adam offload | Time per step | Max memory', row 'ao | 1.52s/it | 5.24 GB'",
        ao_notes + ["--optim_cpu_offload ao: CPUOffloadOptimizer without offload_gradients: the state and a host "
                    "copy of every parameter on the CPU, the gradients stay on the GPU (the companion of row 903)"],
        stack_config="python benchmark_low_bit_adam.py --model timm/vit_giant_patch14_dinov2.lvd142m --full_bf16 "
                     "--checkpoint_activations --batch_size 32 --optim AdamW --optim_cpu_offload ao")

    # gpt-fast-style generation with a static KV cache and its dense mask
    mask_src = "pytorch/ao torchao/_models/llama/README.md @41abb0fa (KV cache quantization and linear causal mask)"
    mask_notes = [
        "metric reserved: torchao/_models/llama/generate.py prints 'Peak Memory Usage' = "
        "torch.cuda.max_memory_reserved() / 1e9 (decimal GB)",
        "'we've run generate.py with subsets of these features for different context lengths on an A100 GPU': "
        "Llama-3.1-8B in bf16, batch 1, --cache_size the context length; the 'normal' column has neither "
        "kv_cache_quantization nor linear_causal_mask, so setup_caches allocates the static bf16 KV cache and "
        "torch.tril(torch.ones(S, S, dtype=torch.bool)) (torchao/_models/llama/model.py @1f66d47)",
        "prompt: generate.py's default 'Hello, my name is' (about 6 tokens, assumed); A100 80GB assumed (the "
        "131072 run needs 59 GB)",
        "generate.py's Attention expands K and V to every head (repeat_interleave) for each layer; the "
        "estimate has no term for that copy yet (2 x 32 heads x S x 128 x 2 bytes, 2.1 GB at 131072)"]
    for rid, ctx, gb in ((905, 8192, 17.86), (906, 16384, 19.81), (907, 32768, 23.83), (908, 65536, 33.5),
                         (909, 131072, 59.27)):
        add(rid, "llm_inference", "medium", "reserved", gb, 1e9, {
            "name": f"torchao generate.py Llama-3.1-8B bf16, static cache of {ctx} tokens, dense causal mask",
            "task": "inference", "model": "llama-3.1-8b", "compute": "bf16-pure", "weights_dtype": "bf16",
            "kv_dtype": "bf16", "micro_batch": 1, "seq_len": 6, "context_len": ctx, "causal_mask": "dense",
            "gpus": 1, "gpu": "a100-80gb"},
            mask_src, f"table 'context length (tokens) | normal peak (GB) | ...', row '{ctx} | {gb}'", mask_notes)

    # torchao weight-only quantisation with gpt-fast's generate.py: bf16, int8, fp6 (fpx e3m2), int4
    wq_src = "pytorch/ao torchao/quantization/README.md @e2fe7f7 (2025-03-03)"
    wq_notes = [
        "metric reserved: torchao/_models/llama/generate.py @e2fe7f7 prints 'Peak Memory Usage' = "
        "torch.cuda.max_memory_reserved() / 1e9 (decimal GB)",
        "torchao/_models/llama/benchmarks.sh @e2fe7f7: generate.py --compile --quantization Q, batch 1, the "
        "default prompt 'Hello, my name is' (6 tokens with BOS, assumed) and max_new_tokens 100, so a static KV "
        "cache of 106 positions (cache_size = max_seq_length = T + max_new_tokens); the README's 'single "
        "NVIDIA-A100-80GB GPU'",
        "bf16 by default; fp6 runs with --precision float16 (FP6-LLM's kernels take fp16 activations); int8wo "
        "is int8 weights with a scale per output channel, int4wo-64 int4 weights with a bf16 scale and zero "
        "point per 64 (tinygemm); embeddings and the output head stay in the model's precision"]
    for rid, mid, name, tech, wdt, comp, gb in (
            (2901, "llama-2-7b", "Llama-2-7B", "Base (bfloat16)", "bf16", "bf16-pure", 13.88),
            (2902, "llama-2-7b", "Llama-2-7B", "int8wo", "int8", "bf16-pure", 8.95),
            (2903, "llama-2-7b", "Llama-2-7B", "fp6", "fp6", "fp16-pure", 6.52),
            (2904, "llama-2-7b", "Llama-2-7B", "int4wo-64", "int4", "bf16-pure", 4.87),
            (2905, "llama-3.1-8b", "Llama-3-8B", "Base (bfloat16)", "bf16", "bf16-pure", 16.43),
            (2906, "llama-3.1-8b", "Llama-3-8B", "int8wo", "int8", "bf16-pure", 10.42),
            (2907, "llama-3.1-8b", "Llama-3-8B", "fp6", "fp6", "fp16-pure", 7.72),
            (2908, "llama-3.1-8b", "Llama-3-8B", "int4wo-64", "int4", "bf16-pure", 6.88)):
        notes = list(wq_notes)
        if mid == "llama-3.1-8b":
            notes.append("Meta-Llama-3-8B as llama-3.1-8b: the same shapes (32 layers of 4096, GQA 8 KV heads, "
                         "vocab 128,256); only the RoPE scaling differs, which a 106-token cache never reaches")
        add(rid, "llm_inference", "medium", "reserved", gb, 1e9, {
            "name": f"torchao generate.py {name} {tech}, batch 1, 100 new tokens on an A100 80GB",
            "task": "inference", "model": mid, "compute": comp, "weights_dtype": wdt,
            "kv_dtype": "fp16" if comp == "fp16-pure" else "bf16", "micro_batch": 1, "seq_len": 6,
            "context_len": 106, "compile": True, "gpus": 1, "gpu": "a100-80gb"},
            wq_src, f"'Benchmarks / CUDA backend' table, row '{name} | {tech} | Peak Memory (GB) {gb}'", notes,
            stack_config=f"python generate.py --checkpoint_path $CHECKPOINT_PATH/$MODEL_REPO/model.pth --compile "
                         f"--quantization {tech if tech[0] != 'B' else 'None'} --write_result benchmark_results.txt"
                         + (" --precision float16" if comp == "fp16-pure" else ""))

    # torchao float8 training under torchtitan (the companion of row 202)
    add(910, "fsdp_full", "medium", "reserved", 76.8, GIB, titan(
        name="torchtitan Llama 3.1 8B, FSDP + torch.compile + Float8 on 8 H100", model="llama-3.1-8b",
        micro_batch=2, seq_len=8192, recompute="selective", compile=True, compute="fp8-mixed", gpus=8),
        TITAN_SRC, "Table 1, row 'FSDP + torch.compile + Float8 | 8,532 | 76.8'",
        [TITAN_METRIC, TITAN_COMMON, "selective activation checkpointing, per-op policy",
         "Float8: torchao Float8Linear for every linear but the output head, dynamic tensorwise scaling, and "
         "FSDP2's float8 all-gather (enable_fsdp_float8_all_gather; assumed, the benchmark names 'Float8' only): "
         "compute fp8-mixed; row 202 is the same run without Float8 (77.0 GiB)"], gpu=H100_96)

    # GaLore: 8-bit GaLore-Adam with per-layer updates, LLaMA 7B on one RTX 4090
    llama7 = {"id": "llama-7b-galore", "name": "LLaMA 7B (GaLore configs/llama_7b.json)", "family": "llm",
              "params": 6738415616, "layers": 32, "hidden": 4096, "heads": 32, "intermediate": 11008,
              "vocab": 32000, "glu": True,
              "source": "jiaweizzhao/GaLore configs/llama_7b.json: hidden_size 4096, intermediate_size 11008, "
                        "num_attention_heads 32, num_hidden_layers 32, vocab_size 32000 (LLaMA-7B's shapes)"}
    add(911, "llm_full", "low", "device_used", 22.8, GIB, {
        "name": "GaLore 8-bit AdamW per layer, LLaMA 7B pre-training, batch 16, on an RTX 4090",
        "task": "train", "model": llama7, "method": "full", "compute": "bf16-pure",
        "optimizer": "galore-adamw-8bit", "galore_rank": 1024, "optimizer_in_bwd": True, "recompute": "full",
        "micro_batch": 16, "seq_len": 256, "gpus": 1, "gpu": "rtx-4090"},
        "jiaweizzhao/GaLore README.md @0c63f63", "section 'Train 7B model with a single GPU with 24GB memory', "
        "comment '# bsz=16, 22.8G'",
        ["metric: the README's '22.8G' with no unit or counter named: taken as GiB of device memory (low quality)",
         "--optimizer galore_adamw8bit_per_layer: GaLoreAdamW8bit (bitsandbytes 8-bit moments over the projected "
         "gradients) stepped per parameter from its gradient hook, which frees the gradient "
         "(optimizer_in_bwd); --rank 1024; --dtype bfloat16 (the model in bf16, compute bf16-pure); "
         "--activation_checkpointing (recompute full); --batch_size 16; torchrun_main.py's --max_length "
         "default 256",
         "--total_batch_size 512 accumulates 32 micro-batches, which per-layer updates step one at a time: "
         "grad_accum 1 here (the peak is a micro-batch's)"])



# ---------------------------------------------------------------------------
# Low-rank optimizers: Q-GaLore (VITA-Group/Q-GaLore) and APOLLO
# (zhuhanqing/APOLLO), LLaMA 7B from scratch on one GPU
# ---------------------------------------------------------------------------
QGALORE_SRC = "VITA-Group/Q-GaLore @dd09cd3"
QGALORE_LLAMA7 = {"id": "llama-7b-galore", "name": "LLaMA 7B (configs/llama_7b.json)", "family": "llm",
                  "params": 6738415616, "layers": 32, "hidden": 4096, "heads": 32, "intermediate": 11008,
                  "vocab": 32000, "glu": True,
                  "source": "configs/llama_7b.json of GaLore, Q-GaLore and APOLLO: hidden_size 4096, "
                            "intermediate_size 11008, num_attention_heads 32, num_hidden_layers 32, "
                            "vocab_size 32000"}
QGALORE_METRIC = ("metric: the script's comment 'Memory cost: N G' names no counter or unit: taken as GiB of "
                  "device memory (low quality)")
QGALORE_RUN = ("run_pretrain.py: --dtype bfloat16 (model.to(bfloat16): compute bf16-pure), --rank 1024, "
               "--max_length default 256; the *_per_layer optimizers step each parameter from its gradient "
               "hook (optimizer_in_bwd); --total_batch_size 512 accumulates, which per-layer updates step one "
               "micro-batch at a time: grad_accum 1 (the peak is a micro-batch's)")


@family
def low_rank_optimizer_rows():
    rows = (
        (2101, "q-galore-adamw-8bit", 1, "none", 15.08, "scripts/single_gpu/llama_7b.sh",
         "'# Memory cost: 15.08 G'"),
        (2102, "q-galore-adamw-8bit", 16, "full", 15.26, "scripts/single_gpu/llama_7b_checkpointing.sh",
         "'# Memory cost: 15.26G, BSZ=16'"),
        (2103, "galore-adamw-8bit", 1, "none", 21.3, "scripts/single_gpu/llama_7b_galore.sh",
         "'# Memory cost: 21.3G'"),
        (2104, "galore-adamw-8bit", 16, "full", 22.02, "scripts/single_gpu/llama_7b_galore_checkpointing.sh",
         "'# Memory cost: 22.02G, BSZ=16'"),
    )
    for rid, opt, batch, recompute, g, script, locator in rows:
        q = opt.startswith("q-")
        add(rid, "llm_full", "low", "device_used", g, GIB, {
            "name": f"{'Q-GaLore' if q else 'GaLore'} 8-bit AdamW per layer, LLaMA 7B pre-training, batch {batch}"
                    f"{', checkpointing' if recompute == 'full' else ''}",
            "task": "train", "model": QGALORE_LLAMA7, "method": "full", "compute": "bf16-pure",
            "optimizer": opt, "galore_rank": 1024, "optimizer_in_bwd": True, "recompute": recompute,
            "micro_batch": batch, "seq_len": 256, "gpus": 1, "gpu": "a100-80gb"},
            f"{QGALORE_SRC} {script}", locator,
            [QGALORE_METRIC, QGALORE_RUN,
             ("--optimizer q_galore_adamw8bit_per_layer: QGaLoreAdamW8bit, bitsandbytes 8-bit moments over the "
              "projected gradient; --proj_quant: projectors as 4-bit codes held one a byte with fp32 scale and "
              "zero per 256 (q_galore_projector.py _quantize); --weight_quant: q/k/v/o/gate/up/down in int8 with "
              "fp32 scale and zero per 256 (utils/quantization.py QGaLoreLinear): int8_weights, Q-GaLore's "
              "default" if q else
              "--optimizer galore_adamw8bit_per_layer: GaLoreAdamW8bit, bf16 weights"),
             "--activation_checkpointing: recompute full" if recompute == "full" else "no checkpointing",
             "the card is not named (--single_gpu); an A100 80GB assumed, which only sets the capacity"])

    # APOLLO-Mini over int8 weights (Q-APOLLO), per layer, within 11 GB
    add(2105, "llm_full", "low", "device_used", 0, 1, {
        "name": "Q-APOLLO-Mini per layer, LLaMA 7B pre-training, batch 1, within 11 GB",
        "task": "train", "model": QGALORE_LLAMA7, "method": "full", "compute": "bf16-pure",
        "optimizer": "apollo-mini", "int8_weights": True, "int8_weight_group": 128, "optimizer_in_bwd": True,
        "recompute": "none", "micro_batch": 1, "seq_len": 256, "gpus": 1, "gpu": "a100-80gb"},
        "zhuhanqing/APOLLO @76b3472 README.md and scripts/single_gpu/llama_7b_q_apollo_mini_per_layer.sh",
        "README 'Benchmark 3': 'With 1 batch size, the following scripts can pre-train a LLaMA-7B model within "
        "11GB memory (tested on a single A100 GPU)'",
        ["upper bound: the README says the run fits within 11GB (the script's header says '12GB'); capacity "
         "taken as 11 GiB nominal",
         "--optimizer q_apollo_per_layer: QAPOLLOAdamW (bitsandbytes Optimizer2State, optim_bits=32) over the "
         "projected attention and MLP matrices, bnb.optim.Adam8bit for the rest (utils/setup.py), each stepped "
         "from its gradient hook (optimizer_in_bwd); --rank 1 --scale_type tensor (APOLLO-Mini); --weight_quant "
         "--weight_group_size 128: int8_weights, int8_weight_group 128",
         "--dtype bfloat16 (compute bf16-pure); --batch_size 1 --total_batch_size 1; utils/argparse.py "
         "--max_length default 256; no checkpointing"],
        bound="upper_bound", capacity=11 * GIB)


# ---------------------------------------------------------------------------
# Whisper large-v2 transcribing 13 minutes of audio (faster-whisper's README
# benchmark): CTranslate2, openai/whisper and transformers, beam search
# ---------------------------------------------------------------------------
FW_SRC = "SYSTRAN/faster-whisper README.md @4bd98d5"
RTX3070TI = {"id": "rtx-3070-ti", "name": "GeForce RTX 3070 Ti 8GB", "memory": 8192 * MIB,
             "source": "faster-whisper README 'NVIDIA RTX 3070 Ti 8GB'; 8192 MiB, NVIDIA's specification page"}
FW_METRIC = ("metric device_used: benchmark/memory_benchmark.py samples nvmlDeviceGetMemoryInfo(handle).used >> 20 "
             "(MiB) every 0.5 s and reports the maximum: the card's whole use, a desktop's display included")
FW_TOKENS = ("decoder tokens: 13 minutes of French speech (benchmark/utils.py transcribes benchmark.m4a with "
             "language='fr') taken as about 100 text tokens a 30-s window, the longest about 128 (assumed: not "
             "published); the cache grows with the tokens decoded")
FW_SEQ = ("sequential transcribe(): condition_on_previous_text=True puts up to 223 previous tokens "
          "(max_length // 2 - 1, get_prompt) and 4 special tokens before the text: seq_len 356 = 223 + 4 + 128")
FW_BATCHED = ("BatchedInferencePipeline(batch_size=8): 8 VAD chunks of up to 30 s at once (micro_batch 8), "
              "prompt without previous text (generate_segment_batched): seq_len 132 = 4 + 128")


@family
def whisper_rows():
    rows = (
        (2110, "ctranslate2", "float16", 1, 356, 4525, "faster-whisper | fp16 | 5 | 1m03s | 4525MB"),
        (2111, "ctranslate2", "float16", 8, 132, 6090, "faster-whisper (`batch_size=8`) | fp16 | 5 | 17s | 6090MB"),
        (2112, "ctranslate2", "int8", 1, 356, 2926, "faster-whisper | int8 | 5 | 59s | 2926MB"),
        (2113, "ctranslate2", "int8", 8, 132, 4500, "faster-whisper (`batch_size=8`) | int8 | 5 | 16s | 4500MB"),
        (2114, "openai", "fp16", 1, 356, 4708, "openai/whisper | fp16 | 5 | 2m23s | 4708MB"),
        (2115, "transformers", "fp16", 1, 132, 4960, "transformers (SDPA)[^1] | fp16 | 5 | 1m52s | 4960MB"),
    )
    for rid, impl, ct, batch, seq, mib, cell in rows:
        sc = {"name": f"Whisper large-v2, {impl}, {ct}, beam 5, batch {batch}, RTX 3070 Ti",
              "task": "inference", "model": "whisper-large-v2", "micro_batch": batch, "seq_len": seq,
              "beams": 5, "gpus": 1}
        notes = [FW_METRIC, FW_TOKENS]
        if impl == "ctranslate2":
            sc.update({"engine": "ctranslate2", "compute_type": ct})
            notes += [FW_SEQ if batch == 1 else FW_BATCHED,
                      "faster-whisper v1.1.0 on CTranslate2 4.x: Systran/faster-whisper-large-v2 is a float16 "
                      "conversion, so compute_type int8 resolves to int8_float16 (src/types.cc)",
                      "beam_size 5 (transcribe's default); the cross-attention keys and values are one copy per "
                      "sequence (TransformerDecoder::replicate_state) and the encoder output is erased after the "
                      "first step"]
        else:
            sc.update({"compute": "fp16-pure", "weights_dtype": "fp16", "kv_dtype": "fp16",
                       "attention": "sdpa"})
            notes += [FW_SEQ.replace("sequential transcribe()", "openai/whisper transcribe()") if impl == "openai"
                      else "transformers' long-form generate() does not condition on previous text by default "
                           "(condition_on_prev_tokens=False): seq_len 132 = 4 + 128",
                      "openai/whisper's decoding.py repeats the audio features for every beam (repeat_interleave "
                      "n_group) and caches cross-attention K/V per beam through its kv_cache hooks; the PyTorch "
                      "engine is counted as transformers (eager, caching allocator)" if impl == "openai" else
                      "transformers 4.46.3 with SDPA; generate() expands the encoder outputs to every beam "
                      "(_expand_inputs_for_generation) and keeps an EncoderDecoderCache per beam; the README notes "
                      "it ran out of memory for any batch size > 1"]
        add(rid, "inference_hf", "low", "device_used", mib, MIB, sc, FW_SRC,
            f"'Large-v2 model on GPU' table, row '{cell}'", notes, gpu=RTX3070TI)

def family_files():
    """Families kept in files of their own, rows_<family>.py next to this
    one: each defines rows(mr), called with this module, after the families
    above (the row helpers and constants are mr's)."""
    import glob
    import importlib.util
    import sys
    here = sys.modules[__name__]
    for path in sorted(glob.glob(os.path.join(HERE, "rows_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mod.rows(here)


if __name__ == "__main__":
    for fn in FAMILIES:
        fn()
    family_files()
    write()
