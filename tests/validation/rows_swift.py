# SPDX-License-Identifier: GPL-3.0-or-later
"""ms-swift (modelscope/ms-swift): LoRA fine-tunes of Qwen (v1) chat models
on one A100, as its LLM benchmark page measured them (max length, batch
size, flash attention and checkpointing, LoRA rank and targets, gradient
accumulation).

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "modelscope/ms-swift docs/source_en/LLM/Benchmark.md @d2b45ec8"
METRIC = ("metric reserved: the benchmark script (scripts/benchmark/test_memory_time/run_single.py) reports "
          "sft_main's output['memory'], the trainer's perf['memory'], which swift/trainers/trainers.py (@4312aeb2, "
          "the commit of the benchmark's last update, 2024-01-04) fills with "
          "torch.cuda.max_memory_reserved(i) / 1024**3 per device ('GiB'); never reset within a run")
ENV = ("'Experimental environment: A100, CUDA 11.8, torch 2.1.1, flash_attn 2.3.4' (the page); the card size is not "
       "stated, taken as the 80 GB A100 (several runs exceed 40 GiB)")
DEFAULTS = ("swift sft --sft_type lora with the page's defaults: --max_length 2048, --batch_size 1, "
            "--gradient_checkpointing true, --use_flash_attn true, --lora_rank 8, --lora_target_modules DEFAULT "
            "(c_attn for Qwen: swift/llm/utils/model.py LoRATM.qwen), --gradient_accumulation_steps 16; lora_alpha "
            "32, optim adamw_torch and dtype AUTO (bf16 on an A100: the model loads in bf16 and the Trainer runs "
            "bf16 autocast) from SftArguments (swift/llm/utils/argument.py @4312aeb2)")
DATA = ("--dataset cls-fudan-news-zh: 'Token statistics ... 3234.4±2547.5, min=91, max=19548' (the page); "
        "samples longer than max_length are dropped, not cut (SftArguments truncation_strategy 'delete', "
        "swift/llm/utils/template.py _encode @4312aeb2: 'return None' past template.max_length), so batch "
        "lengths vary from 91 up to max_length in a random order and the longest holds close to max_length "
        "tokens (seq_len = max_length; batches pad to their longest sample)")
ATTN_FLASH = ("attention: Qwen's modeling_qwen.py with use_flash_attn (flash-attn 2): 'flash'")
QWEN_LOSS = ("loss: modeling_qwen.py's CrossEntropyLoss over the full logits (upcast, as the Qwen README rows of "
             "this set take it)")


def lora_cattn(m, rank):
    """LoRA on Qwen's fused c_attn only: r x (hidden + 3 hidden) per layer."""
    return rank * (m["hidden"] + 3 * m["hidden"]) * m["layers"]


def rows(mr):
    rid = 3571

    def scenario(size, seq, batch=1, accum=16, rank=8, targets="DEFAULT", flash=True, ckpt=True):
        m = mr.QWEN1[size]
        if targets == "DEFAULT":
            lora = {"rank": rank, "targets": ["q", "k", "v"]}
            trainable = lora_cattn(m, rank)
        else:
            lora = {"rank": rank, "targets": "all-linear"}
            trainable = mr.qwen1_lora_params(m, rank)
        s = {"name": f"swift sft Qwen-{size}-Chat LoRA r{rank} {targets}, max_length {seq}, batch {batch}"
                     f"{'' if flash else ', no flash attention'}{'' if ckpt else ', no checkpointing'}",
             "task": "finetune", "model": m, "method": "lora", "weights_dtype": "bf16", "compute": "bf16-mixed",
             "optimizer": "adamw", "micro_batch": batch, "grad_accum": accum, "seq_len": seq,
             "recompute": "full" if ckpt else "none", "attention": "flash" if flash else "eager",
             "loss": "upcast", "lora": lora, "trainable_params": trainable, "gpus": 1, "sharding": "none",
             "offload": "none", "gpu": "a100-80gb"}
        return s, trainable

    def notes_for(trainable, extra):
        return [METRIC, ENV, DEFAULTS, DATA, QWEN_LOSS,
                f"LoRA trainable parameters: {trainable:,} (the page's 'Trainable Params' column gives 4.19M for "
                "the 7B's default rank 8 on c_attn)"] + extra

    # 'Model Type & Max Length', LoRA: qwen-{1_8b,7b,14b}-chat on one A100
    table = {"1.8B": [6.99, 10.71, 16.35, 23.80, 37.03], "7B": [18.01, 21.73, 27.74, 35.31, 48.41],
             "14B": [30.14, 34.43, 40.14, 47.95, 60.74]}
    label = {"1.8B": "qwen-1_8b-chat", "7B": "qwen-7b-chat", "14B": "qwen-14b-chat"}
    for size, values in table.items():
        for seq, gib in zip([512, 1024, 2048, 4096, 8192], values):
            s, tr = scenario(size, seq)
            mr.add(rid, "llm_lora_hf", "medium", "reserved", gib, mr.GIB, s, SRC,
                   f"'Model Type & Max Length' LoRA table, row '{label[size]}', Max Length {seq}: {gib} GiB",
                   notes_for(tr, [ATTN_FLASH]))
            rid += 1

    # 'Batch Size': qwen-7b-chat, max_length 2048 (batch 1 is the row above)
    for batch, gib in [(2, 43.11), (4, 63.81), (8, 76.14)]:
        s, tr = scenario("7B", 2048, batch=batch)
        mr.add(rid, "llm_lora_hf", "medium", "reserved", gib, mr.GIB, s, SRC,
               f"'Batch Size' table, row 'qwen-7b-chat', Batch Size {batch}: {gib} GiB",
               notes_for(tr, [ATTN_FLASH, f"--batch_size {batch}: {batch} samples padded to the longest, "
                              "nearly all cut at 2048"]))
        rid += 1

    # 'Use Flash Attn & Gradient Checkpointing': qwen-7b-chat, max_length 2048
    for flash, ckpt, gib in [(True, False, 37.70), (False, True, 27.71), (False, False, 57.67)]:
        s, tr = scenario("7B", 2048, flash=flash, ckpt=ckpt)
        extra = [ATTN_FLASH if flash else
                 "--use_flash_attn false: modeling_qwen.py (hosted with the checkpoint, not read) computes its "
                 "attention in PyTorch; taken as eager (the score matrix kept; assumption: the run without "
                 "either needs 20 GiB more than with flash attention alone, as a kept score matrix does)"]
        extra.append("--gradient_checkpointing " + ("true" if ckpt else "false"))
        mr.add(rid, "llm_lora_hf", "medium" if flash else "low", "reserved", gib, mr.GIB, s, SRC,
               f"'Use Flash Attn & Gradient Checkpointing' table, row 'qwen-7b-chat', flash "
               f"{'yes' if flash else 'no'}, checkpointing {'yes' if ckpt else 'no'}: {gib} GiB",
               notes_for(tr, extra))
        rid += 1

    # 'LoRA Rank & LoRA Target Modules': qwen-7b-chat, max_length 2048 (rank 8 DEFAULT is above)
    for rank, targets, gib in [(2, "DEFAULT", 27.72), (64, "DEFAULT", 27.85), (8, "ALL", 27.87)]:
        s, tr = scenario("7B", 2048, rank=rank, targets=targets)
        extra = [ATTN_FLASH, f"--lora_rank {rank} --lora_target_modules {targets}" +
                 (" (every linear layer: c_attn, attn.c_proj, w1, w2, mlp.c_proj; the page's 17.89M trainable)"
                  if targets == "ALL" else "")]
        mr.add(rid, "llm_lora_hf", "medium", "reserved", gib, mr.GIB, s, SRC,
               f"'LoRA Rank & LoRA Target Modules' table, row 'qwen-7b-chat', rank {rank}, {targets}: {gib} GiB",
               notes_for(tr, extra))
        rid += 1

    # 'Gradient Accumulation Steps': 1 (27.73); 2-64 give 27.74, the default row's figure
    s, tr = scenario("7B", 2048, accum=1)
    mr.add(rid, "llm_lora_hf", "medium", "reserved", 27.73, mr.GIB, s, SRC,
           "'Gradient Accumulation Steps' table, row 'qwen-7b-chat', 1 step: 27.73 GiB",
           notes_for(tr, [ATTN_FLASH, "--gradient_accumulation_steps 1 (2 to 64 all give 27.74, the default "
                          "row's figure, not written again)"]))


# Under-prediction of these rows (18-49% of the reserved figure), what was
# checked against source and what the figures say:
# - swift/trainers/trainers.py @4312aeb2, Seq2SeqTrainer.compute_loss:
#   `loss, outputs = super().compute_loss(model, inputs, True)`, then
#   `outputs.logits.argmax(dim=2)` (an int64 b x s result, no fp32 copy of
#   the logits) and a token accuracy over the masked labels, added to
#   _custom_metrics as a detached scalar; it returns the loss alone, so
#   `outputs` (and the logits it holds) is released before the Trainer's
#   backward pass.  The extra accuracy is not a vocabulary-sized term, and
#   the estimator's count, which keeps the logits beside the loss through
#   the backward pass, is if anything high for this trainer.
# - scripts/benchmark/test_memory_time/run_single.py @4312aeb2: no
#   evaluation (dataset_test_ratio=0, save_strategy 'no'); sft_main's
#   memory is max_memory_reserved over the whole run; with max_length
#   above 2048 only 1000 samples are trained (train_dataset_sample), so the
#   longest batch of the 4096 and 8192 runs may fall short of max_length.
# - The figures: measured minus the estimator's weights (3.42, 14.39, 26.40
#   GiB for 1.8B, 7B, 14B) is nearly the same for the three models at each
#   max_length: 3.57/3.62/3.74 GiB at 512, 7.29/7.34/8.03 at 1024,
#   12.93/13.35/13.74 at 2048, 20.38/20.92/21.55 at 4096, 33.61/34.02/34.34
#   at 8192.  What the estimator misses does not grow with hidden size or
#   depth (the layers' kept inputs differ 3x between 1.8B and 14B): it is
#   tied to tokens x vocabulary (151936, the same for all three): about
#   50 bytes per token and vocabulary entry at 512 and 1024 (3.57 GiB /
#   (512 x 151936)), 3.5 times the estimator's 14 for an upcast loss.
#   The samples longer than max_length are dropped (DATA), so every run
#   sees batches of many lengths.
# - A count of every vocabulary-sized tensor of the loss in bf16 autocast
#   (lm_logits 2, shift_logits.contiguous() 2, its fp32 autocast copy 4,
#   log_softmax's output 4, nll_loss's and log_softmax's fp32 gradients 4 +
#   4, the bf16 gradient 2, SliceBackward's zeros 2, and accelerate's
#   convert_outputs_to_fp32 copy of the output logits 4 under mixed
#   precision) reaches 28 even with none freed; a CPU trace of that path
#   (tests/validation/swift_loss_trace.py: torch 1.13, profile_memory, bf16 logits, shift, fp32 cross-entropy,
#   backward) peaks at 12 bytes (14 with the caller's logits kept, 18 with
#   accelerate's fp32 copy kept too), as the estimator counts.
# - What the allocator makes of it: tests/validation/swift_alloc_replay.py
#   replays those tensors, for random lengths drawn as the page's token
#   statistics and dropped past max_length, through a model of the
#   caching allocator's large pool (best fit, split past 1 MiB, merge of
#   free neighbours, no release): with 12 bytes live at the peak the
#   segments reserved come to about 30 to 105 bytes per token and
#   vocabulary entry of the longest batch after 150 to 400 steps,
#   depending on the order of the lengths and still growing with the
#   steps: the measured 45-50 falls in that range, but the replay leaves
#   out every other allocation and is no prediction of its own.  The under-prediction
#   is then the reserved-but-free memory of vocabulary-sized blocks of
#   varying size, which the estimator's fragmentation line (a small share
#   of allocated) does not model; no term was added for it yet.

# Read but not written (the same page):
# - the rows on 2 A100s ('73.71+78.54' and the like): the model split over
#   the cards by device_map, not expressible;
# - 'Quantization' (GPTQ int4/int8 and bnb int4 Qwen chat checkpoints),
#   'Full' and the other models of 'Model Type & Max Length' (chatglm3-6b,
#   yi-6b/34b, openbuddy-zephyr-7b, baichuan2-7b/13b): expressible with
#   inline models, not written yet;
# - 'Sequence Parallel' (chatglm3-6b-32k, '27G*2'): swift's sequence
#   parallelism has no agreed key.
