# SPDX-License-Identifier: GPL-3.0-or-later
"""DeepSeek LLM (deepseek-ai/DeepSeek-LLM): the inference memory of DeepSeek
LLM 7B over a grid of batch sizes and sequence lengths on one A100 40GB, as
its README profiles it.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "deepseek-ai/DeepSeek-LLM README.md @6712a86"
METRIC = ("metric not named: 'We profile the peak memory usage of inference' (README 'GPU Memory Usage', added in "
          "20d316b, 2023-11-30) without saying how it was read; taken as what nvidia-smi shows (device_used) in "
          "GiB, as for the other model vendors' tables of this set (assumption)")
RUN = ("how the runs were made is not stated; taken as Hugging Face transformers (the README's first inference "
       "path; requirements.txt: torch>=2.0, transformers>=4.35.0), torch_dtype bfloat16, eager attention "
       "(transformers 4.35's LlamaAttention default; sdpa became the default in 4.36, after the table) and "
       "4.35's head over the whole prompt, upcast to fp32 (transformers_version 4.35, the release current when "
       "the table was added), a "
       "'Sequence Length' of L taken as a prompt of L tokens run as one prefill that generates one token "
       "(context L + 1: the decoding length is not stated; the figures grow with batch x length as a prefill "
       "does) (assumptions)")
GPU = "'For DeepSeek LLM 7B, we utilize 1 NVIDIA A100-PCIE-40GB GPU for inference' (40 GiB, as a100-40gb)"


def model(mr):
    params = mr.lp(30, 4096, 32, 32, 11008, 102400, False)
    return {
        "id": "deepseek-ai/deepseek-llm-7b-base", "name": "DeepSeek LLM 7B", "family": "llm", "params": params,
        "layers": 30, "hidden": 4096, "heads": 32, "kv_heads": 32, "intermediate": 11008, "vocab": 102400,
        "glu": True, "norm": "rmsnorm", "tied_embeddings": False, "max_seq_len": 4096,
        "source": "DeepSeek LLM (arXiv 2401.02954) Table 2, 7B: 30 layers, d_model 4096, 32 heads, 32 KV heads, "
                  "context 4096, vocabulary 102400; huggingface.co/deepseek-ai/deepseek-llm-7b-base config.json "
                  "(LlamaForCausalLM): intermediate_size 11008, tie_word_embeddings false; params counted from "
                  f"those shapes ({params:,})",
    }


def rows(mr):
    m = model(mr)
    lens = [256, 512, 1024, 2048, 4096]
    # 'GPU Memory Usage', the DeepSeek LLM 7B table: batch size (rows) x sequence length (columns), GB or OOM
    grid = [(1, [13.29, 13.63, 14.47, 16.37, 21.25]),
            (2, [13.63, 14.39, 15.98, 19.82, 29.59]),
            (4, [14.47, 15.82, 19.04, 26.65, None]),
            (8, [15.99, 18.71, 25.14, 35.19, None]),
            (16, [19.06, 24.52, 37.28, None, None])]
    rid = 3541
    for batch, values in grid:
        for seq, gb in zip(lens, values):
            s = {"name": f"DeepSeek LLM 7B bf16, batch {batch}, sequence {seq} (DeepSeek-LLM README profile)",
                 "task": "inference", "model": m, "micro_batch": batch, "seq_len": seq, "context_len": seq + 1,
                 "weights_dtype": "bf16", "compute": "bf16-pure", "kv_dtype": "bf16", "attention": "eager",
                 "transformers_version": "4.35", "gpus": 1, "sharding": "none", "offload": "none", "gpu": "a100-40gb"}
            notes = [METRIC, RUN, GPU]
            if gb is None:
                mr.add(rid, "inference_hf", "low", "device_used", 0, 1, s, SRC,
                       f"'GPU Memory Usage', DeepSeek LLM 7B table, batch size {batch}, sequence length {seq}: OOM",
                       notes + ["OOM on the A100 40GB: lower bound"], bound="lower_bound")
            else:
                mr.add(rid, "inference_hf", "low", "device_used", gb, mr.GIB, s, SRC,
                       f"'GPU Memory Usage', DeepSeek LLM 7B table, batch size {batch}, sequence length {seq}: "
                       f"{gb} GB", notes)
            rid += 1


# Read but not written: the DeepSeek LLM 67B table (8 A100-PCIE-40GB: the
# model split over the cards, whether the figure is one card's or the sum is
# not stated, and a device_map split is not expressible).
