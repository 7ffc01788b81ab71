#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Writes the seed corpora of the binary formats: small real-format
# safetensors files (corpus/safetensors) and GGUF v3 headers (corpus/gguf),
# in the layouts tests/core/test-import.c builds.  Run it from anywhere;
# the files it writes are committed.

import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def write(folder, name, data):
    os.makedirs(os.path.join(here, "corpus", folder), exist_ok=True)
    with open(os.path.join(here, "corpus", folder, name), "wb") as f:
        f.write(data)


# ---- safetensors: 8-byte LE length, JSON header, the tensor data ----

DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2,
               "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


def safetensors(tensors, metadata=None, data=True, header_text=None):
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape in tensors:
        n = DTYPE_BYTES[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    text = (header_text or json.dumps(header)).encode()
    return struct.pack("<Q", len(text)) + text + (b"\0" * offset if data else b"")


write("safetensors", "test-import.safetensors",
      safetensors([("a.weight", "BF16", [4, 8]), ("b.bias", "F32", [8])], {"format": "pt"}))
write("safetensors", "gptq.safetensors",
      safetensors([("l.qweight", "I32", [16, 32]), ("l.scales", "F16", [1, 32]),
                   ("l.qzeros", "I32", [1, 4]), ("l.g_idx", "I32", [128])]))
write("safetensors", "fp8.safetensors",
      safetensors([("l.weight", "F8_E4M3", [64, 64]), ("l.weight_scale", "F32", []),
                   ("n.weight", "BF16", [64])]))
# Llama-style names, small shapes: the model is guessed from them.  Header
# only, as hr_import_safetensors_parse allows.
llama = [("model.embed_tokens.weight", "BF16", [256, 64])]
for layer in (0, 1):
    p = "model.layers.%d." % layer
    llama += [(p + "self_attn.q_proj.weight", "BF16", [64, 64]),
              (p + "self_attn.k_proj.weight", "BF16", [16, 64]),
              (p + "self_attn.v_proj.weight", "BF16", [16, 64]),
              (p + "self_attn.o_proj.weight", "BF16", [64, 64]),
              (p + "mlp.gate_proj.weight", "BF16", [128, 64]),
              (p + "mlp.up_proj.weight", "BF16", [128, 64]),
              (p + "mlp.down_proj.weight", "BF16", [64, 128]),
              (p + "input_layernorm.weight", "BF16", [64]),
              (p + "post_attention_layernorm.weight", "BF16", [64])]
llama += [("model.norm.weight", "BF16", [64]), ("lm_head.weight", "BF16", [256, 64])]
write("safetensors", "llama-header.safetensors", safetensors(llama, data=False))
gpt2 = [("wte.weight", "F32", [128, 32]), ("wpe.weight", "F32", [64, 32])]
for layer in (0, 1):
    p = "h.%d." % layer
    gpt2 += [(p + "ln_1.weight", "F32", [32]), (p + "ln_1.bias", "F32", [32]),
             (p + "attn.c_attn.weight", "F32", [32, 96]), (p + "attn.c_attn.bias", "F32", [96]),
             (p + "attn.c_proj.weight", "F32", [32, 32]), (p + "attn.c_proj.bias", "F32", [32]),
             (p + "ln_2.weight", "F32", [32]), (p + "ln_2.bias", "F32", [32]),
             (p + "mlp.c_fc.weight", "F32", [32, 128]), (p + "mlp.c_fc.bias", "F32", [128]),
             (p + "mlp.c_proj.weight", "F32", [128, 32]), (p + "mlp.c_proj.bias", "F32", [32])]
gpt2 += [("ln_f.weight", "F32", [32]), ("ln_f.bias", "F32", [32])]
write("safetensors", "gpt2-header.safetensors", safetensors(gpt2, data=False))
write("safetensors", "mixed.safetensors",
      safetensors([("e", "F16", [2, 3]), ("i", "I8", [5]), ("m", "BOOL", [3]),
                   ("u", "U8", [1, 1, 2]), ("d", "F64", [1]), ("x", "F8_E5M2", [4])],
                  {"format": "pt", "note": "seed"}))
write("safetensors", "empty.safetensors", safetensors([], {}))


# ---- GGUF v3: magic, version, tensor count, key count, keys, tensor infos ----

def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def gstr(s):
    b = s.encode()
    return u64(len(b)) + b


def kv_u32(key, v):
    return gstr(key) + u32(4) + u32(v)


def kv_u16(key, v):
    return gstr(key) + u32(2) + struct.pack("<H", v)


def kv_f32(key, v):
    return gstr(key) + u32(6) + struct.pack("<f", v)


def kv_bool(key, v):
    return gstr(key) + u32(7) + bytes([v])


def kv_str(key, v):
    return gstr(key) + u32(8) + gstr(v)


def kv_u64(key, v):
    return gstr(key) + u32(10) + u64(v)


def kv_array(key, elem_type, items):
    out = gstr(key) + u32(9) + u32(elem_type) + u64(len(items))
    for item in items:
        out += gstr(item) if elem_type == 8 else struct.pack("<i", item)
    return out


def tensor(name, dims, ggml_type, offset):
    out = gstr(name) + u32(len(dims))
    for d in dims:
        out += u64(d)
    return out + u32(ggml_type) + u64(offset)


def gguf(kvs, tensors, tail=b""):
    return (b"GGUF" + u32(3) + u64(len(tensors)) + u64(len(kvs)) + b"".join(kvs) +
            b"".join(tensors) + tail)


tiny_kvs = [kv_str("general.architecture", "llama"), kv_str("general.name", "Tiny Llama"),
            kv_u32("llama.block_count", 1), kv_u32("llama.embedding_length", 256),
            kv_u32("llama.attention.head_count", 4), kv_u32("llama.attention.head_count_kv", 2),
            kv_u32("llama.feed_forward_length", 64), kv_u32("llama.expert_count", 4),
            kv_u32("llama.expert_used_count", 2),
            kv_array("tokenizer.ggml.tokens", 8, ["t%d" % i for i in range(32)])]
tiny_tensors = [tensor("token_embd.weight", [256, 32], 12, 0),
                tensor("blk.0.attn_norm.weight", [256], 0, 4608),
                tensor("blk.0.ffn_up_exps.weight", [256, 64, 4], 1, 5632)]
# test-import.c's tiny_gguf (), its split part, and the same with data after it.
write("gguf", "tiny.gguf", gguf(tiny_kvs, tiny_tensors))
write("gguf", "tiny-split.gguf", gguf([kv_u16("split.count", 2)] + tiny_kvs, tiny_tensors))
write("gguf", "tiny-data.gguf", gguf(tiny_kvs, tiny_tensors, b"\0" * 64))
# GPT-2 style, an untied output, other value types in the metadata.
write("gguf", "gpt2.gguf",
      gguf([kv_str("general.architecture", "gpt2"), kv_u32("general.alignment", 32),
            kv_u32("gpt2.block_count", 2), kv_u32("gpt2.embedding_length", 64),
            kv_u32("gpt2.attention.head_count", 4), kv_u32("gpt2.context_length", 128),
            kv_u32("gpt2.feed_forward_length", 256),
            kv_f32("gpt2.attention.layer_norm_epsilon", 1e-5),
            kv_bool("tokenizer.ggml.add_bos_token", 1), kv_u64("general.file_type", 7),
            kv_array("tokenizer.ggml.token_type", 5, [1, 1, 3, 1])],
           [tensor("token_embd.weight", [64, 100], 8, 0),
            tensor("position_embd.weight", [64, 128], 1, 6800),
            tensor("blk.0.attn_qkv.weight", [64, 192], 1, 23184),
            tensor("output.weight", [64, 100], 8, 33264)]))
write("gguf", "no-arch.gguf", gguf([kv_str("general.name", "x")],
                                   [tensor("w", [32], 2, 0)]))
