# SPDX-License-Identifier: GPL-3.0-or-later
"""HunyuanVideo (Kong et al. 2024, 'HunyuanVideo: A Systematic Framework
for Large Video Generative Models'): the GPU peak memory of Tencent's own
sample_video.py, on the catalog's hunyuanvideo (the 13B transformer, the
LLaVA-LLaMA-3-8B and CLIP-L text encoders, the causal 3D VAE walked as
hr-arch.c hy_encoder / hy_decoder).

What the walk computes for the VAE (tests/core/test-arch.c
test_hunyuan_vae): 246,478,803 parameters; 129 frames at 1280 x 720 are
33 latent frames of 160 x 90; decoding them whole would build the middle
block's causal mask over 33 x 90 x 160 = 475,200 positions (451 GB in
fp16), which is why sample_video.py tiles by default: 256-pixel tiles of
64 + 1 frames, 17 x 32 x 32 latent positions each.

Read but not written:
- the same README's table at e965abb also lists an H20 for both settings,
  with the same figures (the same runs on a larger card);
- diffusers' docs/source/en/api/pipelines/hunyuan_video.md @58eb52c0: "The
  quantized HunyuanVideo model below requires ~14GB of VRAM" (bitsandbytes
  nf4 transformer, pipeline.enable_model_cpu_offload(),
  pipeline.vae.enable_tiling(), 61 frames, 30 steps): written in
  rows_diffinf.py (row 4150), with pipeline_offload "model" and
  pipeline_library "diffusers".

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

HY = "Tencent/HunyuanVideo README.md @e965abb (2024-12-03, the first release)"
HY_URL = "https://github.com/Tencent/HunyuanVideo/blob/e965abb/README.md"
METRIC = ("metric: the table's 'GPU Peak Memory' (batch size = 1), taken as the peak nvidia-smi shows "
          "(device_used), '60G' and '45G' read as GiB; the README at fa14b00 (2025-05-23) keeps both figures "
          "('60GB', '45GB', 'tested on a single 80G GPU') without the GPU and step columns")
SETTINGS = ("sample_video.py with the README's own command (python3 sample_video.py --video-size H W "
            "--video-length 129 --infer-steps 30 --flow-reverse --seed 0 --use-cpu-offload): hyvideo/config.py "
            "@e965abb defaults --model HYVideo-T/2-cfgdistill, --precision bf16 (the transformer's weights), "
            "--vae-precision fp16, --text-encoder-precision fp16 (both encoders), vae_tiling True, --cfg-scale 1.0 "
            "(no classifier-free guidance: one forward pass a step), --embedded-cfg-scale 6.0, --flow-shift 9.0 (7.0 at fa14b00), "
            "--text-len 256; the steps (30 here) do not change the peak")
OFFLOAD = ("assumed: the figures were measured with the README's command, --use-cpu-offload (the table does not "
           "name the flags; the help calls it 'necessary for high-res video generation'): hyvideo/inference.py "
           "@e965abb loads the text encoders and the VAE on the CPU and calls "
           "pipeline.enable_sequential_cpu_offload(), whose hooks move one submodule at a time to the GPU while it "
           "runs; the pipeline excludes the transformer (pipeline_hunyuan_video.py _exclude_from_cpu_offload = "
           "['transformer']), which model.to(device) put on the GPU: pipeline_offload sequential (the text "
           "encoders' and the VAE's largest submodules on the GPU, the transformer resident); the pipeline empties "
           "no cache between the text encoding, the denoising and the decode")
VAE = ("pipeline_hunyuan_video.py @e965abb decode_latents: vae.enable_tiling() then vae.decode under "
       "torch.autocast(fp16): AutoencoderKLCausal3D's temporal_tiled_decode (latent slices of 16 + 1 frames, "
       "overlap 25%) over spatial_tiled_decode (32 x 32 latent tiles, 256 pixels, overlap 25%): the scenario's "
       "vae_tiling with the catalog VAE's tile_size 256 and tile_frames 64")
ATTN = ("attention: hyvideo/modules/attenion.py @e965abb mode 'flash' (flash_attn_varlen_func over the video and "
        "text tokens): attention flash")
TOKENS = ("{frames} frames at {w} x {h}: the VAE compresses 4x in time and 8x in space, patch 1 x 2 x 2: "
          "33 latent frames, 33 x {lh} x {lw} = {tok:,} video tokens joined to 256 text tokens")
PARTS = {"HunyuanVideo 3D VAE": "fp16", "LLaVA-LLaMA-3-8B text encoder": "fp16",
         "CLIP text encoder (ViT-L/14)": "fp16"}


def rows(mr):
    table = [
        (4000, 1280, 720, 60, "HunyuanVideo | H800 | 720px1280px129f | 30 | 60G"),
        (4001, 960, 544, 45, "HunyuanVideo | H800 | 544px960px129f | 30 | 45G"),
    ]
    for rid, w, h, gib, cell in table:
        s = {"name": f"HunyuanVideo {h}x{w}x129f on one H800 (sample_video.py --use-cpu-offload)",
             "task": "inference", "model": "hunyuanvideo", "image_size": [w, h], "frames": 129,
             "micro_batch": 1, "compute": "bf16-pure", "weights_dtype": "bf16", "attention": "flash",
             "gpus": 1, "gpu": "h100-sxm", "vae_tiling": True, "pipeline_offload": "sequential",
             "part_dtypes": PARTS}
        tokens = TOKENS.format(frames=129, w=w, h=h, lw=w // 16, lh=h // 16, tok=33 * (w // 16) * (h // 16))
        mr.add(rid, "video_diffusion", "low", "device_used", gib, mr.GIB, s, HY,
               f"'Requirements' table, row '{cell}'",
               [METRIC, SETTINGS, OFFLOAD, VAE, ATTN, tokens,
                "the H800 (80 GB HBM3) is taken as the catalog's H100 SXM5 80GB, the same memory",
                "table read at " + HY_URL],
               stack_config=f"python3 sample_video.py --video-size {h} {w} --video-length 129 --infer-steps 30 "
                            "--prompt \"a cat is running, realistic.\" --flow-reverse --seed 0 --use-cpu-offload "
                            "--save-path ./results")
