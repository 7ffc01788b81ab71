# SPDX-License-Identifier: GPL-3.0-or-later
"""GPTQ-for-LLaMa (qwopqwop200/GPTQ-for-LLaMa): LLaMA 7B to 65B decoding a
2048-token sequence one token at a time on one RTX 3090, in fp16, with GPTQ
4-bit weights and with bitsandbytes 4-bit weights, as its README's tables
print the memory.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "qwopqwop200/GPTQ-for-LLaMa README.md @e985b70"
METRIC = ("metric allocated: llama.py benchmark() (@4628566 and @f3a4df5, the commits that wrote the tables) "
          "takes max over the decoding steps of torch.cuda.memory_allocated() / 1024 / 1024 (MiB) read after "
          "each step, not max_memory_allocated: a step's transient working set (one layer's cache "
          "concatenation, the decode activations, a few tens of MiB at batch 1) is not in it; a forward hook "
          "sets the previous step's cache of each layer to None once the layer has run, so old and new caches "
          "never coexist beyond one layer")
RUN = ("--benchmark 2048 --check (README 'Benchmark generating a 2048 token sequence'): input_ids are the first "
       "2048 tokens of a dataset sample, fed one token at a time with past_key_values (no prefill): seq_len 1, "
       "context 2048 (1024 for LLaMA-33B in the 'seqlen=1024' table); batch 1; the logits of each step (one "
       "position, fp32) are alive at the reading; transformers 4.28.0.dev0 (README 'Dependencies'), eager "
       "attention for a one-token query")
CARD = "README: 'All experiments were run on a single NVIDIA RTX3090' (24 GB, nvidia-smi 24576 MiB)"
FP16 = "FP16: get_llama loads LlamaForCausalLM.from_pretrained(torch_dtype=torch.float16)"
GPTQ = ("GPTQ 4-bit, group size 128: load_quant builds QuantLinear layers for every linear layer but lm_head "
        "(kept fp16), int32-packed 4-bit codes with fp16 scales and packed zeros per 128 input rows")
GPTQ_A = ("first tables (wikitext2 column, written @4628566 on 2023-04-01, CUDA kernels of that time): the "
          "QuantLinear layers alone")
GPTQ_B = ("'GPTQ vs bitsandbytes' tables (c4 column, written @f3a4df5 on 2023-05-24, triton branch): load_quant "
          "also fuses q, k, v into one packed projection (make_quant_attn), the norms and the MLP (make_fused_mlp): "
          "the same bytes a weight")
BNB = ("bitsandbytes 4-bit: the README gives no script for these rows (commit f3a4df5 changed only README.md); "
       "taken as transformers' load_in_4bit with bnb_4bit_quant_type nf4 or fp4, no double quantisation "
       "('Bits Per Weight 4.5': one fp32 absmax per 64 weights), fp16 compute and lm_head unquantised "
       "(assumption), read by the same benchmark; fp4 has nf4's storage and is expressed as int4")
LLAMA1 = ("LLaMA-7B and LLaMA-13B (Touvron et al. 2023) have Llama 2 7B's and 13B's shapes (the same layers, "
          "widths, heads and 32000-token vocabulary): llama-2-7b, llama-2-13b")

RTX3090 = 25769803776  # data/gpus.json rtx-3090: 24576 MiB (make_rows.CAPACITY)


def llama1(mr, size, layers, hidden, heads, inter):
    return {
        "id": f"huggyllama/llama-{size}", "name": f"LLaMA {size.upper()}",
        "params": mr.lp(layers, hidden, heads, heads, inter, 32000, False),
        "layers": layers, "hidden": hidden, "heads": heads, "kv_heads": heads, "intermediate": inter,
        "vocab": 32000, "glu": True, "norm": "rmsnorm", "tied_embeddings": False, "max_seq_len": 2048,
        "source": f"huggingface.co/huggyllama/llama-{size} config.json: num_hidden_layers {layers}, hidden_size "
                  f"{hidden}, num_attention_heads {heads}, intermediate_size {inter}, vocab_size 32000, "
                  f"max_position_embeddings 2048 (LLaMA paper table 2); params counted from those shapes",
    }


def scenario(model, name, quant, context):
    s = {"name": f"{name} {quant} decoding {context} tokens one at a time (GPTQ-for-LLaMa benchmark)",
         "task": "inference", "model": model, "micro_batch": 1, "seq_len": 1, "context_len": context,
         "kv_dtype": "fp16", "compute": "fp16-pure", "attention": "eager", "gpus": 1, "sharding": "none",
         "offload": "none", "gpu": "rtx-3090", "transformers_version": "4.28",
         # the benchmark's forward hook drops each layer's previous cache (METRIC)
         "previous_cache_freed": True}
    if quant == "FP16":
        s["weights_dtype"] = "fp16"
    elif quant.startswith("GPTQ"):
        s.update(weights_dtype="int4", quant_compute_dtype="fp16", quant_method="gptq")
    elif quant == "nf4":
        s.update(weights_dtype="nf4", quant_compute_dtype="fp16", quant_method="bitsandbytes")
    else:
        s.update(weights_dtype="int4", quant_compute_dtype="fp16", quant_method="bitsandbytes")
    return s


def rows(mr):
    l33 = llama1(mr, "30b", 60, 6656, 52, 17920)
    l65 = llama1(mr, "65b", 80, 8192, 64, 22016)
    models = {"7B": "llama-2-7b", "13B": "llama-2-13b", "33B": l33, "65B": l65}

    def add(rid, size, quant, mib, locator, notes, context=2048):
        s = scenario(models[size], f"LLaMA-{size}", quant, context)
        notes = [METRIC, RUN, CARD] + notes + ([LLAMA1] if size in ("7B", "13B") else
                                               [f"LLaMA-{size}: huggyllama/llama-{'30b' if size == '33B' else '65b'} "
                                                "shapes, given inline"])
        if mib is None:
            mr.add(rid, "inference_hf", "medium", "allocated", RTX3090, 1, s, SRC, locator + ": OOM",
                   notes + ["OOM on the RTX 3090: the value is the card's capacity, a lower bound"],
                   bound="lower_bound", capacity=RTX3090)
        else:
            mr.add(rid, "inference_hf", "medium", "allocated", mib, mr.MIB, s, SRC, f"{locator}: {mib}", notes)

    # 'Result' tables: rows FP16 and GPTQ 4-bit group 128, column 'memory(MiB)'. The 3-bit rows and the
    # 4-bit rows without groups are left out: no weights_dtype holds 3 bits and quant_method gptq fixes
    # groups of 128.
    first = [("7B", "FP16", 13940), ("7B", "GPTQ", 4891), ("13B", "FP16", None), ("13B", "GPTQ", 8747),
             ("33B", "FP16", None), ("33B", "GPTQ", 20570), ("65B", "FP16", None), ("65B", "GPTQ", None)]
    rid = 4230
    for size, quant, mib in first:
        row = "FP16 | 16 | -" if quant == "FP16" else "GPTQ | 4 | 128"
        add(rid, size, quant, mib, f"'Result' section, 'LLaMA-{size}' table, row '{row}', column 'memory(MiB)'",
            [FP16] if quant == "FP16" else [GPTQ, GPTQ_A])
        rid += 1

    # 'GPTQ vs bitsandbytes' tables, column 'memory(MiB)'. nf4-double_quant (4.127 bits a weight) is left
    # out: no scenario key states bitsandbytes' double quantisation. The FP16 rows of 13B and 33B repeat the
    # first tables' OOM.
    second = [("7B", "FP16", 13948, 2048), ("7B", "GPTQ-128g", 4781, 2048), ("7B", "nf4", 5102, 2048),
              ("7B", "fp4", 5102, 2048), ("13B", "GPTQ-128g", 8589, 2048), ("13B", "nf4", 9170, 2048),
              ("13B", "fp4", 9170, 2048), ("33B", "GPTQ-128g", 18441, 1024), ("33B", "nf4", 19729, 1024),
              ("33B", "fp4", 19729, 1024)]
    rid = 4240
    for size, quant, mib, context in second:
        notes = {"FP16": [FP16], "GPTQ-128g": [GPTQ, GPTQ_B]}.get(quant, [BNB])
        add(rid, size, quant, mib,
            f"'GPTQ vs bitsandbytes' section, 'LLaMA-{size}(seqlen={context})' table, row '{quant}', "
            f"column 'memory(MiB)'", notes, context)
        rid += 1
