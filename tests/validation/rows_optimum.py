# SPDX-License-Identifier: GPL-3.0-or-later
"""Optimum's GPTQ benchmark (huggingface/optimum tests/benchmark): Llama 2 13B
inference in fp16, with AutoGPTQ 4-bit weights and with bitsandbytes 4-bit
weights, prefill-only and generating 512 tokens, batches 1 to 16 on one A100.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "huggingface/optimum tests/benchmark/README.md @87fcf9f0 (2023-11-01, 'gptq_benchmark_update (#1420)')"
METRIC = ("metric device_used, as the benchmark defines it (tests/benchmark/benchmark_gptq.py @87fcf9f0 "
          "benchmark_memory): torch's allocated_bytes.all.peak plus the memory nvidia-smi shows beyond torch's "
          "reserved peak (memory_tracker.py polls `nvidia-smi --query-gpu=memory.used` every 0.1 s, MiB x "
          "1.048576); 'the CUDA context (taken into account in the measurements)' (README): what nvidia-smi "
          "would show without the caching allocator's unused reserve, so it can read up to that reserve below a "
          "device_used figure; printed in decimal MB (bytes x 1e-6)")
STACK = ("README @87fcf9f0: AutoGPTQ 0.5.0, PyTorch 2.0.1, bitsandbytes 0.41.1, transformers 4.35, one NVIDIA "
         "A100-SXM4-80GB; transformers 4.35 runs Llama's eager attention (SDPA arrived in 4.36) and the "
         "output head over every prompt position with an fp32 copy of the logits (transformers_version 4.35)")
INPUT = ("input: torch.randint token ids of batch_size x prompt_length with an all-ones attention mask, no "
         "padding; greedy generate with use_cache=True and min_new_tokens = max_new_tokens (eos disabled); "
         "torch.cuda.empty_cache() and reset_peak_memory_stats() before each batch size, one warm-up generate "
         "inside the measured window")
MODEL = ("meta-llama/Llama-2-13b-chat-hf (fp16 and bitsandbytes runs) and TheBloke/Llama-2-13B-chat-GPTQ "
         "(GPTQ runs) have Llama 2 13B's shapes: llama-2-13b")
FP16 = "fp16: from_pretrained(torch_dtype=torch.float16) inside `with device:` (cuda:0)"
GPTQ = ("gptq: GPTQConfig(bits=4, use_exllama=True) on TheBloke/Llama-2-13B-chat-GPTQ, 4 bits, group size 128, "
        "no act-order (the README's act_order False, group_size 128), exllama (v1) kernel, torch_dtype fp16; "
        "the row is the 'exllama' one; the same table's exllamav2 and autogptq-cuda-old rows differ from it by "
        "-12% to +9% (kernel buffers), which no scenario key expresses")
BNB = ("bitsandbytes: BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='fp4', bnb_4bit_compute_dtype="
       "torch.float16), torch_dtype fp16: fp4 has nf4's storage (4-bit codes, one fp32 absmax per 64 weights), "
       "expressed as int4; transformers leaves lm_head unquantised")

# Peak memory (MB) by batch size 1, 2, 4, 8, 16, as the README prints it.
GENERATE = {"fp16": [29152.98, 30831.09, 34187.22, 40327.62, 53986.51],
            "gptq": [10484.34, 12162.43, 15518.55, 21864.56, 34777.04],
            "bitsandbytes": [11018.36, 12834.84, 16187.69, 22894.02, 35532.37]}
PREFILL = {"fp16": [27999.54, 28524.37, 29574.01, 31673.30, 35871.88],
           "gptq": [9330.89, 9855.71, 10905.35, 13004.64, 17203.22],
           "bitsandbytes": [9952.65, 10421.89, 11440.08, 13539.37, 17737.95]}
BATCHES = [1, 2, 4, 8, 16]
README_ROW = {"fp16": "None|None|None|None|None", "gptq": "gptq|False|4|128|exllama",
              "bitsandbytes": "bitsandbytes|None|None|None|None"}


def scenario(quant, batch, phase):
    s = {"name": f"Llama 2 13B {quant} {'prefill 512' if phase == 'prefill' else 'generate 512 + 512'}, "
                 f"batch {batch} (optimum GPTQ benchmark)",
         "task": "inference", "model": "llama-2-13b", "micro_batch": batch, "seq_len": 512,
         "context_len": 513 if phase == "prefill" else 1024, "kv_dtype": "fp16", "compute": "fp16-pure",
         "attention": "eager", "gpus": 1, "sharding": "none", "offload": "none", "gpu": "a100-80gb",
         "transformers_version": "4.35"}
    if quant == "fp16":
        s["weights_dtype"] = "fp16"
    else:
        s.update(weights_dtype="int4", quant_compute_dtype="fp16", quant_method=quant)
    return s


def rows(mr):
    rid = 4200
    for phase, table in (("prefill", PREFILL), ("generate", GENERATE)):
        if phase == "prefill":
            what = ("'Prefill-only benchmark results' (--prefill --generate, --num-batches 10): prompt_length 512, "
                    "new_tokens 1: seq_len 512, context 513")
            section, column = "Prefill-only benchmark results", "Max memory (MB)"
        else:
            what = ("'Generation benchmark results' (--generate, --num-batches 4): prompt length 512 and exactly "
                    "512 new tokens: seq_len 512, context 1024")
            section, column = "Generation benchmark results", "Peak memory (MB)"
        for quant, values in table.items():
            for batch, mb in zip(BATCHES, values):
                notes = [METRIC, STACK, what, INPUT, MODEL,
                         {"fp16": FP16, "gptq": GPTQ, "bitsandbytes": BNB}[quant]]
                locator = (f"'{section}', 'Batch size = {batch}' table, row '{README_ROW[quant]}', "
                           f"column '{column}': {mb:.2f}")
                mr.add(rid, "inference_hf", "medium", "device_used", mb, 10**6,
                       scenario(quant, batch, phase), SRC, locator, notes)
                rid += 1
