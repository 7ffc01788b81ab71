# SPDX-License-Identifier: GPL-3.0-or-later
"""Qwen-VL (QwenLM/Qwen-VL): a vision-language model's inference and its
LoRA and Q-LoRA fine-tunes on one GPU, as its README profiles them.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "QwenLM/Qwen-VL README.md @aa00ed0"
METRIC = ("metric not named: the README gives 'Peak Usage' / 'memory (GB)' without saying how it was read (the "
          "profiling script profile_mm.py is hosted off GitHub and was not read); taken as what nvidia-smi shows "
          "(device_used) in GiB, as for the Qwen README's tables of the same team (assumption)")
IMAGE = ("one 448 x 448 image: the ViT runs over its 32 x 32 = 1024 patches and hands the language model 256 "
         "resampled tokens plus the <img> and </img> markers, 'an image (which takes 258 tokens)' (README); "
         "seq_len counts those 258 tokens with the text")
ATTN = ("attention: requirements.txt @aa00ed0 pins transformers 4.32.0 and installs no flash-attn, and the README "
        "gives no flash-attention step for Qwen-VL (unlike Qwen's): taken as modeling_qwen.py's eager attention "
        "(assumption)")
INT4 = ("Int4: Qwen-VL-Chat-Int4, AutoGPTQ 4-bit weights with fp16 group scales on the language model's layers, "
        "expressed as int4 computing in fp16; the vision encoder stays 16-bit (part_dtypes fp16)")
VISION = "vision encoder (ViT-bigG/14 + resampler)"


def rows(mr):
    # 'GPU Memory Usage': 'encoding 1792 (2048-258) tokens (including an image) as context (and generating single
    # token) and generating 7934 (8192-258) tokens (with an image as context)', BF16 and Int4, one A100-SXM4-80G,
    # PyTorch 2.0.1, CUDA 11.4 ('Inference Speed' paragraph).
    inference = [("BF16", "encode", 22.60), ("BF16", "generate", 28.01),
                 ("Int4", "encode", 11.82), ("Int4", "generate", 17.23)]
    rid = 2601
    for quant, phase, gb in inference:
        s = {"name": f"Qwen-VL-Chat {quant} {'encoding 2048 tokens' if phase == 'encode' else 'generating 8192 tokens'}"
                     " (Qwen-VL README profile)",
             "task": "inference", "model": "qwen-vl-chat", "micro_batch": 1,
             "seq_len": 2048 if phase == "encode" else 258, "context_len": 2049 if phase == "encode" else 8192,
             "kv_dtype": "bf16" if quant == "BF16" else "fp16", "attention": "eager", "gpus": 1, "sharding": "none",
             "offload": "none", "gpu": "a100-80gb"}
        notes = [METRIC, IMAGE, ATTN,
                 "encoding: a 2048-token prompt (258 image tokens and 1790 text tokens) and one generated token: "
                 "seq_len 2048, context 2049" if phase == "encode" else
                 "generating: the image alone as the prompt (258 tokens) and 7934 new tokens: context 8192"]
        if quant == "BF16":
            s.update(weights_dtype="bf16", compute="bf16-pure")
            notes.append("BF16: Qwen-VL-Chat in bfloat16")
        else:
            s.update(weights_dtype="int4", quant_compute_dtype="fp16", quant_method="gptq", compute="fp16-pure",
                     part_dtypes={VISION: "fp16"})
            notes.append(INT4)
        add_locator = (f"'GPU Memory Usage' table, row '{quant}', column "
                       f"'{'Peak Usage for Encoding 2048 Tokens' if phase == 'encode' else 'Peak Usage for Generating 8192 Tokens'}'"
                       f": {gb}GB")
        mr.add(rid, "inference_hf", "low", "device_used", gb, mr.GIB, s, SRC, add_locator, notes)
        rid += 1

    # 'Profiling of Memory and Speed': one A100-SXM4-80G, CUDA 11.8, PyTorch 2.0, batch 1, gradient accumulation 8,
    # an image in every sample, lengths 384-2048. LoRA (Base) trains the embedding and output layer whole
    # (modules_to_save ["wte", "lm_head"]), which no scenario key expresses: not written.
    lens = [384, 512, 1024, 2048]
    table = {"lora": [23.3, 23.6, 25.1, 27.3], "qlora": [17.0, 17.2, 18.2, 19.3]}
    # finetune.py @aa00ed0 LoraArguments: r 64, target_modules c_attn, attn.c_proj, w1, w2 (the language model's
    # fused qkv, attention output and the MLP's two input projections; mlp.c_proj and the ViT's modules do not
    # match): 64 x ((4096 + 12288) + (4096 + 4096) + 2 x (4096 + 11008)) x 32 layers
    lora_params = 64 * ((4096 + 3 * 4096) + (4096 + 4096) + 2 * (4096 + 11008)) * 32
    ft = ("finetune/finetune_lora_single_gpu.sh and finetune_qlora_single_gpu.sh @aa00ed0: Qwen/Qwen-VL-Chat "
          "(LoRA (Chat): no modules_to_save for a chat model) or Qwen/Qwen-VL-Chat-Int4, --fix_vit True, "
          "--per_device_train_batch_size 1, --gradient_accumulation_steps 8, --gradient_checkpointing, "
          "--use_lora, AdamW (the Trainer's adamw_torch); finetune.py preprocess pads every sample to "
          "model_max_length (input_id += [pad_token_id] * (max_len - len(input_id))), so each step holds exactly "
          "the stated length; LoRA r 64 on c_attn, attn.c_proj, w1, w2 of the language model: "
          f"{lora_params:,} trainable parameters (lora.targets q, k, v, o, gate, up); the ViT is frozen")
    rid = 2611
    for method, values in table.items():
        for seq, gb in zip(lens, values):
            s = {"name": f"Qwen-VL-Chat {method} seq {seq} (Qwen-VL README profile)", "task": "finetune",
                 "model": "qwen-vl-chat", "micro_batch": 1, "grad_accum": 8, "seq_len": seq, "recompute": "full",
                 "attention": "eager", "loss": "upcast", "gpus": 1, "offload": "none", "gpu": "a100-80gb",
                 "optimizer": "adamw", "method": method, "sharding": "none",
                 "lora": {"rank": 64, "targets": ["q", "k", "v", "o", "gate", "up"]},
                 "trainable_params": lora_params}
            notes = [METRIC, ft, IMAGE, ATTN]
            if method == "lora":
                s.update(weights_dtype="bf16", compute="bf16-mixed")
                notes.append("--bf16 True: the model loads in bf16 (config bf16) and the Trainer autocasts; the "
                             "adapters train under AMP (bf16-mixed)")
                cat = "llm_lora_hf"
            else:
                s.update(weights_dtype="int4", quant_compute_dtype="fp16", quant_method="gptq",
                         compute="fp16-mixed", part_dtypes={VISION: "fp16"}, sharding="zero2",
                         deepspeed=mr.QWEN_DS_ZERO2, loss="native")
                notes.append("--fp16 True, --q_lora: finetune.py loads Qwen-VL-Chat-Int4 with GPTQConfig(bits=4, "
                             "disable_exllama=True), 4-bit GPTQ weights with fp16 group scales (not bitsandbytes "
                             "NF4), expressed as int4; the vision encoder stays fp16; prepare_model_for_kbit_training")
                notes.append(mr.QWEN_DS_NOTE)
                cat = "qlora"
            mr.add(rid, cat, "low", "device_used", gb, mr.GIB, s, SRC,
                   f"'Profiling of Memory and Speed' table, row '{'LoRA (Chat)' if method == 'lora' else 'Q-LoRA'}', "
                   f"column {seq}: {gb}G", notes)
            rid += 1
