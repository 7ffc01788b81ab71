# SPDX-License-Identifier: GPL-3.0-or-later
"""PyTorch's tutorial on fusing the optimizer step into the backward pass
(pytorch/tutorials): torchvision's ViT-L/16 trained with Adam on one 224 x 224
image, the peak read off the CUDA memory snapshots, with the usual step and with
a per-parameter Adam stepping from the post-accumulate-grad hook.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

SRC = "pytorch/tutorials intermediate_source/optimizer_step_in_backward_tutorial.py @2a48870"
METRIC = ("metric allocated: the peak read off torch.cuda.memory._snapshot() of three training steps in the "
          "CUDA Memory Visualizer, which draws the caching allocator's live allocations; the tutorial rounds "
          "it to one figure ('~6GB', '~4GB'), taken as decimal GB since it gives ViT-L's 304M fp32 parameters "
          "as '~1.2GB' (1.22e9 bytes; assumption); quality low for the rounding (+-0.5 GB)")
RUN = ("models.vit_l_16(weights='DEFAULT').cuda(), fp32, no autocast; train(): torch.rand(1, 3, 224, 224), "
       "loss = model.forward(fake_image).sum() (the 1000 logits summed, no cross-entropy), backward; "
       "torchvision's EncoderBlock calls nn.MultiheadAttention with need_weights=False, which runs "
       "scaled_dot_product_attention (sdpa); 'PyTorch 2.1.0 or newer' (the tutorial's requirement), "
       "the card is not named")
ADAM = ("torch.optim.Adam(model.parameters()) with its defaults (foreach on CUDA): the tutorial's breakdown "
        "of the peak, during optimizer.step(): ~1.2GB parameters, ~1.2GB gradients, ~2.4GB Adam state and "
        "~1.2GB of foreach intermediates; optimizer.zero_grad() sets the gradients to None (the 2.x default)")
IN_BWD = ("a torch.optim.Adam([p], foreach=False) per parameter, stepped and zeroed from "
          "p.register_post_accumulate_grad_hook: each gradient is freed once its step is done (optimizer_in_bwd, "
          "for-loop step); the tutorial places the new peak near the start of the backward pass, parameters, "
          "Adam state and ~0.4GB of activations")


def rows(mr):
    base = {"task": "finetune", "model": "vit-l-16", "method": "full", "compute": "fp32",
            "weights_dtype": "fp32", "optimizer": "adam", "micro_batch": 1, "image_size": [224, 224],
            "recompute": "none", "attention": "sdpa", "gpus": 1, "sharding": "none", "offload": "none"}
    s = dict(base, name="torchvision ViT-L/16, Adam, batch 1 (PyTorch optimizer-in-backward tutorial)")
    mr.add(4250, "classifier", "low", "allocated", 6, mr.GB, s, SRC,
           "section 'Capturing and visualizing memory snapshots': 'totaling to ~6GB of peak memory'",
           [METRIC, RUN, ADAM])
    s = dict(base, name="torchvision ViT-L/16, Adam stepped in the backward pass, batch 1 (PyTorch "
                        "optimizer-in-backward tutorial)", optimizer_in_bwd=True, optimizer_impl="for-loop")
    mr.add(4251, "classifier", "low", "allocated", 4, mr.GB, s, SRC,
           "section 'How everything fits together in 10 lines': 'The peak memory is lower! It is now ~4GB'",
           [METRIC, RUN, IN_BWD])
