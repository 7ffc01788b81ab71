#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Evidence for the ms-swift rows (rows_swift.py): what the CUDA caching
allocator may reserve for the loss's vocabulary-sized tensors when batch
lengths vary.  Not part of the scored set; run by hand:

    python3 tests/validation/swift_alloc_replay.py [STEPS]

Lengths are drawn as ms-swift's benchmark page gives cls-fudan-news-zh
(3234.4 ± 2547.5 tokens, min 91) and dropped past max_length
(truncation_strategy 'delete', swift/llm/utils/template.py _encode
@4312aeb2).  Each step allocates and frees, in order, the tensors of
Qwen v1's loss under bf16 autocast: lm_logits (bf16), the shifted
contiguous copy (bf16), its fp32 cast, log_softmax's fp32 output,
accelerate's fp32 copy of the output logits, then in the backward pass
nll_loss's and log_softmax's fp32 gradients, the bf16 gradient and
SliceBackward's bf16 zeros.  The allocator model follows the large pool
of c10/cuda/CUDACachingAllocator.cpp (torch 2.1): sizes rounded to 512 B,
a new segment of the request rounded up to 2 MiB, best fit among free
blocks, a block split when the rest exceeds 1 MiB, free neighbours merged,
nothing released.  Every other allocation of the step is left out.
"""

import random
import sys

MIB = 1 << 20
VOCAB = 151936


class Pool:
    def __init__(self):
        self.segments = []
        self.reserved = 0
        self.live = 0
        self.peak_live = 0

    def malloc(self, size):
        size = (size + 511) // 512 * 512
        best = None
        for seg in self.segments:
            for i, (off, sz, free) in enumerate(seg):
                if free and sz >= size and (best is None or sz < best[2]):
                    best = (seg, i, sz)
        if best is None:
            seg_size = (size + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)
            seg = [(0, seg_size, True)]
            self.segments.append(seg)
            self.reserved += seg_size
            best = (seg, 0, seg_size)
        seg, i, sz = best
        off = seg[i][0]
        if sz - size > MIB:
            seg[i:i + 1] = [(off, size, False), (off + size, sz - size, True)]
        else:
            seg[i] = (off, sz, False)
            size = sz
        self.live += size
        self.peak_live = max(self.peak_live, self.live)
        return (seg, off)

    def free(self, handle):
        seg, off = handle
        for i, (o, sz, _) in enumerate(seg):
            if o == off:
                seg[i] = (o, sz, True)
                self.live -= sz
                break
        j = 0
        while j < len(seg) - 1:
            if seg[j][2] and seg[j + 1][2]:
                seg[j:j + 2] = [(seg[j][0], seg[j][1] + seg[j + 1][1], True)]
            else:
                j += 1


def step(pool, length):
    n, m = length * VOCAB, (length - 1) * VOCAB
    logits = pool.malloc(2 * n)
    shift = pool.malloc(2 * m)
    upcast = pool.malloc(4 * m)
    logp = pool.malloc(4 * m)
    pool.free(upcast)
    pool.free(shift)
    out32 = pool.malloc(4 * n)
    pool.free(logits)
    pool.free(out32)
    g_nll = pool.malloc(4 * m)
    g_lsm = pool.malloc(4 * m)
    pool.free(g_nll)
    pool.free(logp)
    g_16 = pool.malloc(2 * m)
    pool.free(g_lsm)
    g_slice = pool.malloc(2 * n)
    pool.free(g_16)
    pool.free(g_slice)


def run(max_length, steps, seed, mean=3234.4, sd=2547.5, shortest=91):
    rnd = random.Random(seed)
    pool = Pool()
    longest = done = 0
    while done < steps:
        length = int(rnd.gauss(mean, sd))
        if length < shortest or length > max_length:
            continue
        step(pool, length)
        done += 1
        longest = max(longest, length)
    per = longest * VOCAB
    return longest, pool.peak_live / per, pool.reserved / per


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    for max_length in (512, 1024, 2048):
        for seed in (1, 2):
            longest, live, reserved = run(max_length, steps, seed)
            print(f"max_length {max_length} seed {seed}: longest {longest}, peak live {live:.1f} B, "
                  f"reserved {reserved:.1f} B per token and vocabulary entry of the longest batch")


if __name__ == "__main__":
    main()
