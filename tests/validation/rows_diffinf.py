# SPDX-License-Identifier: GPL-3.0-or-later
"""Diffusion and video inference in phases (hr-estimate-vision.c): the text
encoders run before the first denoising step, the VAE decodes after the
last, and diffusers' enable_model_cpu_offload() ("pipeline_offload":
"model") puts each model on the GPU only while it runs.  Rows 4150-4199.

4150: diffusers' HunyuanVideo page, the nf4 transformer under model CPU
offload and VAE tiling.  With the models offloaded, the largest phase is
the text encoding: the LLaVA-LLaMA-3-8B encoder's 7.50B bf16 parameters
(14.0 GiB) alone on the GPU, against the nf4 transformer's 6.7 GiB and its
working set over 57,600 video tokens during the denoising.

Read but not written:
- the same page's "inference speed" variant (torch.compile of the
  transformer, mode max-autotune) gives no memory figure;
- the page at c934720 and at 58eb52c0 states the same figure.

Read by make_rows.py (family_files), which passes itself as `mr`.
"""

DOC = "huggingface/diffusers docs/source/en/api/pipelines/hunyuan_video.md @58eb52c0"
DOC_URL = ("https://github.com/huggingface/diffusers/blob/58eb52c0803ea9af3abec60841c2a093bdf1f951/"
           "docs/source/en/api/pipelines/hunyuan_video.md")
METRIC = ("metric: 'requires ~14GB of VRAM', taken as the peak nvidia-smi shows (device_used) and read as GiB "
          "like the project's other 'GB' figures; an approximate figure, hence quality low")
CODE = ("the page's 'memory' example: PipelineQuantizationConfig(quant_backend='bitsandbytes_4bit', nf4, "
        "bnb_4bit_compute_dtype bfloat16, components_to_quantize='transformer'); HunyuanVideoPipeline."
        "from_pretrained('hunyuanvideo-community/HunyuanVideo', dtype=torch.bfloat16): the text encoders and "
        "the VAE in bf16 (part_dtypes), the transformer nf4 (weights_dtype; bitsandbytes replaces every "
        "nn.Linear, src/diffusers/quantizers/bitsandbytes/utils.py _replace_with_bnb_linear)")
OFFLOAD = ("pipeline.enable_model_cpu_offload(): src/diffusers/pipelines/pipeline_utils.py @58eb52c0 hooks "
           "each model with accelerate's cpu_offload_with_hook along model_cpu_offload_seq "
           "'text_encoder->text_encoder_2->transformer->vae' (pipelines/hunyuan_video/"
           "pipeline_hunyuan_video.py); accelerate's CpuOffload.pre_forward (huggingface/accelerate @16cb6eb "
           "src/accelerate/hooks.py) moves the model before to the CPU and calls clear_device_cache(): "
           "pipeline_offload model")
VAE = ("pipeline.vae.enable_tiling(): AutoencoderKLHunyuanVideo (src/diffusers/models/autoencoders/"
       "autoencoder_kl_hunyuan_video.py @58eb52c0) decodes slices of 16 / 4 + 1 latent frames in tiles of "
       "256 pixels, stride 192: vae_tiling with pipeline_library diffusers")
CALL = ("pipeline(prompt, num_frames=61, num_inference_steps=30): __call__'s defaults height 720, width 1280, "
        "true_cfg_scale 1.0 (no classifier-free guidance: one forward a step; guidance_scale 6.0 is embedded), "
        "max_sequence_length 256; 61 frames are 16 latent frames of 90 x 160, patch 1 x 2 x 2: 57,600 video "
        "tokens; the steps do not change the peak")
ATTN = ("attention: HunyuanVideoAttnProcessor2_0 calls F.scaled_dot_product_attention (diffusers' "
        "dispatch_attention_fn, native backend): attention sdpa")
TE = ("the text encoder is the catalog's LLaVA-LLaMA-3-8B text encoder, 7.50B parameters (the LlamaModel "
      "the community checkpoint stores, no head); its phase is the peak here, 14.0 GiB of bf16 weights "
      "beside a working set over 351 tokens (the prompt template's 95 tokens cropped before the 256)")
GPU = ("the card is not named; taken as an H100 SXM5 80GB, where the run is far from the capacity (the fit "
       "does not change the estimate)")
PARTS = {"HunyuanVideo 3D VAE": "bf16", "LLaVA-LLaMA-3-8B text encoder": "bf16",
         "CLIP text encoder (ViT-L/14)": "bf16"}


def rows(mr):
    s = {"name": "HunyuanVideo 720x1280x61f in diffusers, nf4 transformer, model CPU offload and VAE tiling",
         "task": "inference", "model": "hunyuanvideo", "image_size": [1280, 720], "frames": 61,
         "micro_batch": 1, "compute": "bf16-pure", "weights_dtype": "nf4", "attention": "sdpa", "gpus": 1,
         "gpu": "h100-sxm", "vae_tiling": True, "pipeline_offload": "model", "pipeline_library": "diffusers",
         "part_dtypes": PARTS}
    mr.add(4150, "video_diffusion", "low", "device_used", 14, mr.GIB, s, DOC,
           "section 'HunyuanVideo', tab 'memory': 'The quantized HunyuanVideo model below requires ~14GB of "
           "VRAM.' (added in c934720, '[docs] Model cards (#11112)', 2025-06-02)",
           [METRIC, CODE, OFFLOAD, VAE, CALL, ATTN, TE, GPU, "page read at " + DOC_URL],
           stack_config="python3 (the page's 'memory' example, as printed)")
