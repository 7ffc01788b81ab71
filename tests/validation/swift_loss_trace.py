#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Evidence for the ms-swift rows (rows_swift.py): the peak of live
vocabulary-sized memory of Qwen v1's loss path, traced on the CPU with
torch.profiler's memory records (PyTorch 1.13).  Run by hand:

    /usr/bin/python3 tests/validation/swift_loss_trace.py

The path is modeling_qwen.py QWenLMHeadModel.forward's (bf16 lm_logits,
lm_logits[..., :-1, :].contiguous(), CrossEntropyLoss, which autocast runs
in fp32), optionally with accelerate's fp32 copy of the output logits
(convert_outputs_to_fp32) and with the caller keeping the outputs through
the backward pass (swift's Seq2SeqTrainer.compute_loss @4312aeb2 does not).
Printed in bytes per token and vocabulary entry.
"""

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

VOCAB, TOKENS, HIDDEN = 151936, 256, 64


def step(h, w, labels, fp32_copy, keep):
    logits = h @ w.t()
    out = logits.float() if fp32_copy else logits
    shift = logits[..., :-1, :].contiguous()
    loss = F.cross_entropy(shift.float().view(-1, VOCAB), labels[..., 1:].reshape(-1))
    out.argmax(dim=2)
    kept = (out, logits) if keep else None
    del out, logits, shift
    loss.backward()
    return kept


def main():
    torch.manual_seed(0)
    h = torch.randn(1, TOKENS, HIDDEN, dtype=torch.bfloat16, requires_grad=True)
    w = torch.randn(VOCAB, HIDDEN, dtype=torch.bfloat16)
    labels = torch.randint(0, VOCAB, (1, TOKENS))
    for fp32_copy in (False, True):
        for keep in (False, True):
            with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
                step(h, w, labels, fp32_copy, keep)
            records = sorted((e.start_us(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                             if e.name() == "[memory]")
            live = peak = 0
            for _, nbytes in records:
                live += nbytes
                peak = max(peak, live)
            print(f"accelerate fp32 copy {fp32_copy}, outputs kept {keep}: "
                  f"peak {peak / (TOKENS * VOCAB):.1f} bytes per token and vocabulary entry")


if __name__ == "__main__":
    main()
