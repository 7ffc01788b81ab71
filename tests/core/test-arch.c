/* test-arch.c: vision, diffusion and video networks from their stages and blocks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-arch.h"
#include "hr-core.h"
#include "hr-reader.h"
#include "hr-test-utils.h"

static HrArch *
arch_from_json (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf ("{\"arch\": %s}", json);
  HrJsonDoc *doc = hr_json_doc_load_data ("arch.json", text, -1, &error);
  HrReader reader;
  HrArch *arch;

  g_assert_no_error (error);
  g_assert_true (hr_reader_init (&reader, doc, "", hr_json_doc_get_root (doc), "test", &error));
  arch = hr_arch_read (&reader, "arch");
  g_assert_no_error (error);
  g_assert_nonnull (arch);
  hr_reader_clear (&reader);
  hr_json_doc_free (doc);
  return arch;
}

static HrArchRun
fp32_training (guint width,
               guint height)
{
  HrArchRun run = { 0 };

  run.width = width;
  run.height = height;
  run.frames = 1;
  run.e = run.e32 = run.input_bytes = 4.0;
  run.trainable = TRUE;
  run.grad = TRUE;
  return run;
}

static const HrComponent *
catalog_component (const char *model_id,
                   guint       index)
{
  const HrModel *model = hr_catalog_find_model (hr_catalog_get_default (), model_id);

  g_assert_nonnull (model);
  g_assert_cmpuint (index, <, model->components->len);
  return g_ptr_array_index (model->components, index);
}

#define RESNET50 "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, " \
                 "\"head\": \"classifier\"}"

/* ResNet-50 at 224x224 in fp32, every weight training, BatchNorm in
 * training mode.  Counted by hand from torchvision's resnet50 (elements
 * per sample, 4 bytes each):
 *
 * stem: conv1 7x7/2 keeps the 3x224x224 image (150,528); bn1 keeps conv1's
 *   64x112x112 output (802,816); relu keeps its result (802,816), which
 *   maxpool reads; maxpool keeps int64 indices of its 64x56x56 output
 *   (200,704 x 8 bytes).  4 x (150,528 + 2 x 802,816) + 8 x 200,704 =
 *   8,630,272 bytes.
 * layer1.0: conv1 keeps the maxpool output (200,704); bn and relu after
 *   conv1 and after conv2 keep 200,704 each (4 x 200,704; the convs read
 *   the relus' results); bn3 and the downsample's bn keep 256x56x56
 *   (2 x 802,816), the final relu 802,816; the downsample conv reads the
 *   block input, kept already.  4 x (5 x 200,704 + 3 x 802,816) =
 *   13,647,872 bytes.
 * layer1.1: as layer1.0 without the downsample and with its input kept by
 *   the block before: 4 x (4 x 200,704 + 2 x 802,816) = 9,633,792.
 * layer2.0: width 128, the stride on conv2: conv1's 128x56x56 (401,408)
 *   through bn and relu (2 x 401,408), conv2's 128x28x28 (2 x 100,352),
 *   bn3, the downsample's bn and the relu at 512x28x28 (3 x 401,408):
 *   4 x 2,207,744 = 8,830,976.
 * head: avgpool keeps its input (layer4's output, kept already), fc its
 *   2048-value input: 8,192; the cross-entropy its 1000 fp32
 *   log-probabilities and the int64 target: 4,008 more.
 * Once per step, whatever the batch: the batch mean and inverse standard
 * deviation of each of the 53 BatchNorms (26,560 channels, fp32) and
 * nll_loss's total_weight, 8 · 26,560 + 4 = 212,484 bytes; a CPU trace of
 * torchvision's resnet50 at 48 px, micro-batch 1, counts 4,305,324 saved
 * bytes, the walk's figure to the byte (tests/trace). */
static void
test_resnet50_geometry (void)
{
  g_autoptr(HrArch) arch = arch_from_json (RESNET50);
  HrArchRun run = fp32_training (224, 224);
  g_autoptr(HrArchResult) res = hr_arch_walk (arch, &run);
  static const struct {
    const char *block;
    guint       c, hw;
    double      saved;
  } expect[] = {
    { "stem", 64, 56, 4.0 * (150528 + 2 * 802816) + 8.0 * 200704 },
    { "layer1.0", 256, 56, 4.0 * (5 * 200704 + 3 * 802816) },
    { "layer1.1", 256, 56, 4.0 * (4 * 200704 + 2 * 802816) },
    { "layer2.0", 512, 28, 4.0 * (2 * 401408 + 2 * 100352 + 3 * 401408) },
    { "layer3.0", 1024, 14, -1 },
    { "layer4.2", 2048, 7, -1 },
    { "head", 1000, 1, 4.0 * 2048 + 4.0 * 1000 + 8.0 },
  };

  /* torchvision's ResNet50_Weights.IMAGENET1K_V1: num_params 25,557,032 */
  g_assert_cmpuint (res->params, ==, 25557032);
  g_assert_cmpfloat_with_epsilon (res->fixed_saved, 8.0 * 26560 + 4.0, 0.5);

  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      const HrArchBlock *b = hr_arch_result_find (res, expect[i].block);

      g_assert_nonnull (b);
      g_assert_cmpuint (b->channels, ==, expect[i].c);
      g_assert_cmpuint (b->height, ==, expect[i].hw);
      g_assert_cmpuint (b->width, ==, expect[i].hw);
      if (expect[i].saved >= 0)
        g_assert_cmpfloat_with_epsilon (b->saved, expect[i].saved, 0.5);
    }

  /* under autocast the stem keeps the image's 16-bit cast, and every
   * feature map is 16-bit */
  {
    HrArchRun amp = run;
    g_autoptr(HrArchResult) half = NULL;

    amp.e = 2.0;
    amp.e32 = 4.0;
    amp.autocast = TRUE;
    half = hr_arch_walk (arch, &amp);
    g_assert_cmpfloat_with_epsilon (hr_arch_result_find (half, "stem")->saved,
                                    2.0 * (150528 + 2 * 802816) + 8.0 * 200704, 0.5);
    g_assert_cmpfloat_with_epsilon (hr_arch_result_find (half, "layer1.1")->saved,
                                    2.0 * (4 * 200704 + 2 * 802816), 0.5);
  }
}

/* Parameter counts the walk makes from the catalog's shapes, against the
 * checkpoints' own (torchvision's weights tables, diffusers' checkpoints):
 * a wrong stride, width or block shows here first. */
static void
test_parameter_counts (void)
{
  static const struct {
    const char *model;
    guint       component;
    guint64     params;
  } known[] = {
    { "resnet-18", 0, 11689512 }, { "resnet-50", 0, 25557032 }, { "resnet-152", 0, 60192808 },
    { "resnext-101-64x4d", 0, 83455272 }, { "convnext-tiny", 0, 28589128 },
    { "convnext-large", 0, 197767336 }, { "efficientnet-b0", 0, 5288548 },
    { "efficientnet-b7", 0, 66347960 }, { "regnety-400mf", 0, 4344144 },
    { "regnety-32gf", 0, 145046770 },
    { "sd-1.5", 0, 859520964 }, { "sd-1.5", 1, 83653863 }, { "sd-2.1", 0, 865910724 },
    { "sdxl", 0, 2567463684 },
  };
  HrArchRun run = fp32_training (512, 512);

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    {
      const HrComponent *c = catalog_component (known[i].model, known[i].component);
      g_autoptr(HrArchResult) res = NULL;

      g_assert_nonnull (c->arch);
      res = hr_arch_walk (c->arch, &run);
      g_test_message ("%s: %" G_GUINT64_FORMAT, known[i].model, res->params);
      g_assert_cmpuint (res->params, ==, known[i].params);
    }

  /* torchvision's fasterrcnn_resnet50_fpn (FrozenBatchNorm2d, 91 classes)
   * lists 41,755,286 parameters; its box predictor regresses the
   * background class too (91 x 4 outputs where mmdet's has 90 x 4 for the
   * same 90 foreground classes): 4 x 1024 + 4 fewer here */
  {
    g_autoptr(HrArch) frcnn = arch_from_json (
      "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
      "\"bn\": \"frozen\", \"head\": \"faster-rcnn\", \"classes\": 90}");
    g_autoptr(HrArchResult) res = hr_arch_walk (frcnn, &run);

    g_assert_cmpuint (res->params, ==, 41755286 - 4 * 1024 - 4);
  }

  /* every built-in part described by its architecture counts what its
   * entry says (video VAEs, whose 3D kernels the 2D walk does not count,
   * aside), at the model's own input size: DreamerV3's decoder starts from
   * a linear layer to the smallest feature map, which grows with it, and
   * a ViT's position embedding has a row per patch */
  {
    GPtrArray *models = hr_catalog_get_models (hr_catalog_get_default ());
    guint checked = 0;

    for (guint i = 0; i < models->len; i++)
      {
        const HrModel *m = g_ptr_array_index (models, i);

        for (guint j = 0; j < m->components->len; j++)
          {
            const HrComponent *c = g_ptr_array_index (m->components, j);
            g_autoptr(HrArchResult) res = NULL;

            HrArchRun own = run;

            if (c->arch == NULL || c->arch->temporal_compression > 1)
              continue;
            if (c->arch->type == HR_ARCH_DREAMER || c->arch->type == HR_ARCH_VIT)
              {
                own.width = m->image_width;
                own.height = m->image_height;
              }
            res = hr_arch_walk (c->arch, &own);
            if (res->params != c->params)
              g_error ("%s / %s: the walk counts %" G_GUINT64_FORMAT " parameters, the entry says %"
                       G_GUINT64_FORMAT, m->id, c->name, res->params, c->params);
            checked++;
          }
      }
    g_assert_cmpuint (checked, >=, 50);
  }
}

/* SD 1.5's U-Net attends at 64, 32 and 16 latent pixels of a 512 image
 * and at 8 in its middle block: 4,096, 1,024, 256 and 64 tokens; a 1024
 * image has four times as many at every level.  SDXL has no attention at
 * its first level. */
static void
test_unet_tokens (void)
{
  const HrComponent *unet = catalog_component ("sd-1.5", 0);
  const HrComponent *xl = catalog_component ("sdxl", 0);
  static const char *blocks[] = {
    "down_blocks.0.attentions.0.transformer_blocks.0",
    "down_blocks.1.attentions.1.transformer_blocks.0",
    "down_blocks.2.attentions.0.transformer_blocks.0",
    "mid_block.attentions.0.transformer_blocks.0",
    "up_blocks.1.attentions.2.transformer_blocks.0",
    "up_blocks.3.attentions.0.transformer_blocks.0",
  };
  static const guint at512[] = { 4096, 1024, 256, 64, 256, 4096 };

  for (guint side = 512; side <= 1024; side *= 2)
    {
      HrArchRun run = fp32_training (side, side);
      g_autoptr(HrArchResult) res = hr_arch_walk (unet->arch, &run);
      g_autoptr(HrArchResult) xres = hr_arch_walk (xl->arch, &run);
      guint scale = (side / 512) * (side / 512);

      for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
        {
          const HrArchBlock *b = hr_arch_result_find (res, blocks[i]);

          g_assert_nonnull (b);
          g_assert_cmpuint (b->tokens, ==, at512[i] * scale);
          g_assert_cmpuint (b->attn_heads, ==, 8);
        }
      g_assert_cmpuint (res->max_tokens, ==, 4096 * scale);

      /* SDXL at 1024: 64x64 and 32x32 latent pixels at its two attention
       * levels, 64-channel heads (10 and 20) */
      g_assert_null (hr_arch_result_find (xres, "down_blocks.0.attentions.0"));
      g_assert_cmpuint (hr_arch_result_find (xres,
                          "down_blocks.1.attentions.0.transformer_blocks.1")->tokens, ==,
                        1024 * scale);
      g_assert_cmpuint (hr_arch_result_find (xres,
                          "down_blocks.2.attentions.1.transformer_blocks.9")->tokens, ==,
                        256 * scale);
      g_assert_cmpuint (hr_arch_result_find (xres,
                          "down_blocks.2.attentions.1.transformer_blocks.9")->attn_heads, ==, 20);
    }
}

/* Memory-efficient attention keeps no s² term: eager attention's extra
 * equals the score matrices (their softmax in fp32 under autocast and the
 * 16-bit probabilities), heads x tokens² at each level. */
static void
test_attention_scores (void)
{
  const HrComponent *unet = catalog_component ("sd-1.5", 0);
  HrArchRun run = fp32_training (512, 512);
  g_autoptr(HrArchResult) sdpa = NULL;
  g_autoptr(HrArchResult) eager = NULL;
  double self_scores, cross_scores;

  run.e = 2.0;
  run.e32 = 4.0;
  run.autocast = TRUE;
  sdpa = hr_arch_walk (unet->arch, &run);
  run.eager_attention = TRUE;
  eager = hr_arch_walk (unet->arch, &run);

  g_assert_cmpfloat (sdpa->scores, ==, 0);
  /* self-attention: 8 heads x s² at 5 blocks of 4,096 tokens, 5 of 1,024,
   * 5 of 256 and 1 of 64; cross-attention over 77 text tokens: 8 x s x 77;
   * 6 bytes an element (fp32 softmax + fp16 probabilities) */
  self_scores = 8.0 * (5.0 * 4096 * 4096 + 5.0 * 1024 * 1024 + 5.0 * 256 * 256 + 64 * 64) * 6;
  cross_scores = 8.0 * 77 * (5.0 * 4096 + 5.0 * 1024 + 5.0 * 256 + 64) * 6;
  g_assert_cmpfloat_with_epsilon (eager->scores, self_scores + cross_scores, 1.0);
  /* eager keeps the scores where the kernels keep their outputs and a
   * logsumexp per head and token */
  g_assert_cmpfloat (eager->saved - sdpa->saved, >, 0.95 * eager->scores);
  g_assert_cmpfloat (eager->saved - sdpa->saved, <, eager->scores);
}

/* FrozenBatchNorm2d is x * scale + bias with buffers: it keeps nothing,
 * where a BatchNorm in training or eval mode keeps its input. */
static void
test_frozen_batchnorm (void)
{
  g_autoptr(HrArch) train = arch_from_json (RESNET50);
  g_autoptr(HrArch) eval = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, \"bn\": \"eval\", "
    "\"head\": \"classifier\"}");
  g_autoptr(HrArch) frozen = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, \"bn\": \"frozen\", "
    "\"head\": \"classifier\"}");
  HrArchRun run = fp32_training (224, 224);
  g_autoptr(HrArchResult) a = hr_arch_walk (train, &run);
  g_autoptr(HrArchResult) b = hr_arch_walk (eval, &run);
  g_autoptr(HrArchResult) c = hr_arch_walk (frozen, &run);

  g_assert_cmpfloat (a->saved, ==, b->saved);
  /* layer1.1 without its three BatchNorm inputs: 4 x (2 x 200,704 + 802,816) */
  g_assert_cmpfloat_with_epsilon (hr_arch_result_find (c, "layer1.1")->saved,
                                  4.0 * (2 * 200704 + 802816), 0.5);
  g_assert_cmpfloat (c->saved, <, 0.6 * a->saved);
  /* FrozenBatchNorm2d's scale and bias are buffers, not parameters */
  g_assert_cmpuint (c->params, <, a->params);

  /* a frozen stage that no gradient reaches keeps nothing at all
   * (OpenMMLab's frozen_stages=1: the stem and stage 1) */
  {
    g_autoptr(HrArch) mm = arch_from_json (
      "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, \"bn\": \"eval\", "
      "\"frozen_stages\": 1}");
    g_autoptr(HrArchResult) m = hr_arch_walk (mm, &run);

    g_assert_cmpfloat (hr_arch_result_find (m, "stem")->saved, ==, 0);
    g_assert_cmpfloat (hr_arch_result_find (m, "layer1.2")->saved, ==, 0);
    g_assert_cmpfloat (hr_arch_result_find (m, "layer2.0")->saved, >, 0);
  }

  /* before PyTorch 1.1 the product x * scale kept x whatever needed a
   * gradient (PR #16583): FrozenBatchNorm2d then saves what eval-mode
   * BatchNorm does, its input, and nothing in a stage no gradient
   * reaches */
  {
    HrArchRun old = run;
    g_autoptr(HrArch) mm = arch_from_json (
      "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, \"bn\": \"frozen\", "
      "\"frozen_stages\": 1}");
    g_autoptr(HrArchResult) d = NULL;
    g_autoptr(HrArchResult) m = NULL;

    old.mul_saves_both = TRUE;
    d = hr_arch_walk (frozen, &old);
    g_assert_cmpfloat_with_epsilon (d->saved, b->saved, 0.5);
    g_assert_cmpfloat (d->saved, >, c->saved);
    m = hr_arch_walk (mm, &old);
    g_assert_cmpfloat (hr_arch_result_find (m, "layer1.2")->saved, ==, 0);
    g_assert_cmpfloat (hr_arch_result_find (m, "layer2.0")->saved, >,
                       hr_arch_result_find (c, "layer2.0")->saved);
  }
}

static HrEstimate *
estimate (const char *json)
{
  g_autoptr(HrScenario) s = hr_test_scenario (json);

  return hr_estimate_new (s);
}

static guint64
activations (const char *json)
{
  g_autoptr(HrEstimate) est = estimate (json);

  return est->buckets[HR_BUCKET_ACTIVATIONS];
}

/* Checkpointing every block keeps each block's input and rebuilds one at
 * a time: far less than what every op saves in a U-Net, whose blocks are
 * long; about half in a ResNet or EfficientNet, whose blocks keep three
 * to six maps of their input's size. */
static void
test_checkpointing (void)
{
#define SD_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"sd-1.5\", \"method\": \"lora\", " \
    "\"lora\": {\"rank\": 4, \"targets\": \"attention\"}, \"compute\": \"fp16-mixed\", " \
    "\"weights_dtype\": \"fp16\", \"image_size\": 512, \"micro_batch\": 4, \"recompute\": \"%s\"}"
#define CNN_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"%s\", \"compute\": \"bf16-mixed\", " \
    "\"micro_batch\": 32, \"recompute\": \"%s\"}"
  g_autofree char *sd_none = g_strdup_printf (SD_FMT, "none");
  g_autofree char *sd_full = g_strdup_printf (SD_FMT, "full");
  g_autofree char *r_none = g_strdup_printf (CNN_FMT, "resnet-50", "none");
  g_autofree char *r_full = g_strdup_printf (CNN_FMT, "resnet-50", "full");
  g_autofree char *e_none = g_strdup_printf (CNN_FMT, "efficientnet-b4", "none");
  g_autofree char *e_full = g_strdup_printf (CNN_FMT, "efficientnet-b4", "full");

  g_assert_cmpuint (activations (sd_full), <, activations (sd_none) / 3);
  g_assert_cmpuint (activations (r_full), <, 0.6 * activations (r_none));
  g_assert_cmpuint (activations (e_full), <, 0.6 * activations (e_none));
}

/* The issue's "done when": an SD 1.5 LoRA at 512 with gradient
 * checkpointing and 8-bit Adam fits an 8 GB card, as it does for its users
 * (diffusers' train_text_to_image_lora.py with --gradient_checkpointing
 * --use_8bit_adam --mixed_precision fp16); and the curve bends with
 * resolution as attention says: eager attention grows faster than the
 * pixels, the memory-efficient kernels with them. */
static void
test_sd15_lora_8gb (void)
{
#define LORA_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"sd-1.5\", \"method\": \"lora\", " \
    "\"lora\": {\"rank\": 4, \"targets\": \"attention\"}, \"compute\": \"fp16-mixed\", " \
    "\"weights_dtype\": \"fp16\", \"optimizer\": \"adamw-8bit\", \"micro_batch\": 1, " \
    "\"image_size\": %u, \"recompute\": \"%s\", \"attention\": \"%s\", \"gpu\": " \
    "{\"id\": \"card-8gb\", \"name\": \"an 8 GB card\", \"memory\": 8589934592}}"
  g_autofree char *fits = g_strdup_printf (LORA_FMT, 512, "full", "sdpa");
  g_autoptr(HrEstimate) est = estimate (fits);
  double eager_growth, sdpa_growth;

  g_assert_true (est->has_fit);
  g_assert_true (est->fits);
  g_assert_cmpuint (est->max_micro_batch, >=, 1);
  /* LoRA on to_q, to_k, to_v, to_out of 16 transformer blocks, rank 4:
   * about 0.8M parameters */
  g_assert_cmpuint (est->trainable_params, >, 700000);
  g_assert_cmpuint (est->trainable_params, <, 900000);

  {
    g_autofree char *e512 = g_strdup_printf (LORA_FMT, 512, "none", "eager");
    g_autofree char *e1024 = g_strdup_printf (LORA_FMT, 1024, "none", "eager");
    g_autofree char *s512 = g_strdup_printf (LORA_FMT, 512, "none", "sdpa");
    g_autofree char *s1024 = g_strdup_printf (LORA_FMT, 1024, "none", "sdpa");

    eager_growth = (double) activations (e1024) / activations (e512);
    sdpa_growth = (double) activations (s1024) / activations (s512);
  }
  g_assert_cmpfloat (sdpa_growth, >, 3.5);
  g_assert_cmpfloat (sdpa_growth, <, 4.5);
  g_assert_cmpfloat (eager_growth, >, sdpa_growth + 2.0);
}

/* Every model of the vision, detection, segmentation, diffusion and video
 * families estimates, for training and inference, with activations from
 * its architecture. */
static void
test_every_family (void)
{
  static const char * const families[] = {
    "cnn", "detection", "segmentation", "diffusion", "video", NULL
  };
  GPtrArray *models = hr_catalog_get_models (hr_catalog_get_default ());
  guint per_family[G_N_ELEMENTS (families)] = { 0 };

  for (guint i = 0; i < models->len; i++)
    {
      const HrModel *m = g_ptr_array_index (models, i);

      for (guint f = 0; families[f] != NULL; f++)
        {
          g_autoptr(HrScenario) train = NULL;
          g_autoptr(HrScenario) infer = NULL;
          g_autoptr(HrEstimate) a = NULL;
          g_autoptr(HrEstimate) b = NULL;

          if (g_strcmp0 (m->family, families[f]) != 0)
            continue;
          per_family[f]++;
          train = hr_scenario_new_for_model (m);
          train->task = HR_TASK_FINETUNE;
          hr_scenario_resolve (train);
          a = hr_estimate_new (train);
          g_assert_cmpuint (a->buckets[HR_BUCKET_ACTIVATIONS], >, 0);
          g_assert_cmpuint (a->total, >, a->buckets[HR_BUCKET_WEIGHTS]);

          infer = hr_scenario_new_for_model (m);
          infer->task = HR_TASK_INFERENCE;
          hr_scenario_resolve (infer);
          b = hr_estimate_new (infer);
          g_assert_cmpuint (b->buckets[HR_BUCKET_ACTIVATIONS], >, 0);
          g_assert_cmpuint (b->buckets[HR_BUCKET_OPTIMIZER], ==, 0);
        }
    }

  for (guint f = 0; families[f] != NULL; f++)
    {
      g_test_message ("%s: %u models", families[f], per_family[f]);
      g_assert_cmpuint (per_family[f], >=, 5);
    }
}

/* A video transformer's tokens: 1 + (frames - 1) / 4 latent frames of
 * (w / 16) x (h / 16) patches, plus the text it attends to jointly. */
static void
test_video_tokens (void)
{
  const HrComponent *cog = catalog_component ("cogvideox-2b", 0);
  const HrComponent *wan = catalog_component ("wan2.1-t2v-1.3b", 0);

  /* CogVideoX: 49 frames at 720x480 -> 13 x 45 x 30 + 226 */
  g_assert_cmpuint (hr_component_tokens_video (cog, 0, 720, 480, 49), ==, 13 * 45 * 30 + 226);
  /* Wan2.1: 81 frames at 832x480 -> 21 x 52 x 30 = 32,760 */
  g_assert_cmpuint (hr_component_tokens_video (wan, 0, 832, 480, 81), ==, 32760);
  g_assert_cmpuint (hr_component_tokens_video (wan, 0, 832, 480, 1), ==, 52 * 30);
}

/* CogVideoX's causal 3D VAE encoder, frozen, in fp16, at 49 frames of
 * 720x480 (SAT's encode_first_stage hands it the whole clip).  Its peak
 * is in a ResnetBlock3D of the first level, 128 channels at full
 * resolution, while the second causal convolution runs: the block's input,
 * the SiLU output the caller still holds, torch.cat's copy padded with two
 * more frames (51), then SafeConv3d: 51 x 480 x 720 x 128 elements are
 * 4.2 GiB at 2 bytes, so int(4.2 / 2) + 1 = 3 chunks of 17 frames, the
 * last two copied with 2 frames of overlap (38 frames), their outputs
 * (49) and torch.cat's join (49): X (49 + 49 + 51 + 38 + 49 + 49) / 49 for
 * X one 128 x 49 x 480 x 720 tensor of 2 bytes.  Two samples are cut in 5
 * chunks of 11: 48 frames of copies a sample.  diffusers encodes 8 frames
 * at a time, the remainder with the first: 9 frames (11 padded, 0.9 GiB,
 * not cut), the input, the SiLU output, the padded copy and the output,
 * X9 (3 + 11/9). */
static void
test_video_vae_encoder (void)
{
  const HrComponent *vae = catalog_component ("cogvideox-2b", 1);
  HrArchRun run = { 0 };
  double x49 = 128.0 * 49 * 480 * 720 * 2, x9 = 128.0 * 9 * 480 * 720 * 2;

  g_assert_nonnull (vae->arch);
  g_assert_cmpuint (vae->arch->temporal_compression, ==, 4);
  run.width = 720;
  run.height = 480;
  run.frames = 49;
  run.e = run.e32 = run.input_bytes = 2.0;

  /* the catalog's chunking: diffusers' frame batches */
  g_assert_cmpuint (hr_arch_encode_frames (vae->arch, &run), ==, 9);
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (vae->arch, &run);

    g_test_message ("9 frames: %.0f bytes", res->encode_peak);
    g_assert_cmpfloat_with_epsilon (res->encode_peak / (x9 * (3.0 + 11.0 / 9)), 1.0, 1e-9);
    g_assert_cmpfloat (res->saved, ==, 0);
  }

  /* the whole clip */
  run.encode_frames = 49;
  g_assert_cmpuint (hr_arch_encode_frames (vae->arch, &run), ==, 49);
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (vae->arch, &run);

    g_test_message ("49 frames: %.0f bytes", res->encode_peak);
    g_assert_cmpfloat_with_epsilon (res->encode_peak / (x49 * 285.0 / 49), 1.0, 1e-9);
  }
  run.batch = 2;
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (vae->arch, &run);

    g_assert_cmpfloat_with_epsilon (res->encode_peak / (x49 * 295.0 / 49), 1.0, 1e-9);
  }
  run.batch = 0;

  /* a chunk larger than the clip is the clip; a single frame still gets
   * its two causal padding frames */
  run.encode_frames = 64;
  run.frames = 1;
  g_assert_cmpuint (hr_arch_encode_frames (vae->arch, &run), ==, 1);
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (vae->arch, &run);
    double x1 = 128.0 * 480 * 720 * 2;

    g_assert_cmpfloat_with_epsilon (res->encode_peak / (x1 * 6.0), 1.0, 1e-9);
  }
}

/* Wan-VAE's decoder keeps CACHE_T frames of the input of every causal
 * convolution (wan/modules/vae.py @9737cba).  At 1280x720 in fp32, one
 * frame of them, counted from Decoder3d's layers (channels of the input
 * x pixels): at 160x90 conv1 (16), the middle's two residual blocks
 * (4 x 384), level 0's three (6 x 384) and its time_conv (384): 4,240;
 * at 320x180 level 1 (192 + 384 + 4 x 384) and its time_conv (384):
 * 2,496; at 640x360 level 2 (6 x 192): 1,152; at 1280x720 level 3
 * (6 x 96) and the head (96): 672.  The Resamples' Conv2d and the 1x1x1
 * shortcuts keep nothing. */
static void
test_wan_decoder_cache (void)
{
  const HrComponent *vae = catalog_component ("wan2.1-t2v-14b", 1);
  HrArchRun run = { 0 };
  g_autoptr(HrArchResult) res = NULL;
  double expect = 4.0 * (4240.0 * 160 * 90 + 2496.0 * 320 * 180 + 1152.0 * 640 * 360 +
                         672.0 * 1280 * 720);

  g_assert_true (vae->arch->wan_decoder);
  run.width = 1280;
  run.height = 720;
  run.frames = 81;
  run.e = run.e32 = run.input_bytes = 4.0;
  res = hr_arch_walk (vae->arch, &run);
  g_assert_cmpfloat_with_epsilon (res->decode_cache, expect, 1.0);
  /* the decoder ends at the image's resolution, in RGB */
  g_assert_cmpuint (g_array_index (res->blocks, HrArchBlock, res->blocks->len - 1).channels, ==,
                    3);
  g_assert_cmpuint (g_array_index (res->blocks, HrArchBlock, res->blocks->len - 1).width, ==,
                    1280);

  /* an image VAE keeps no cache */
  {
    const HrComponent *sd = catalog_component ("sd-1.5", 1);
    g_autoptr(HrArchResult) r2 = hr_arch_walk (sd->arch, &run);

    g_assert_cmpfloat (r2->decode_cache, ==, 0);
  }
}

/* HunyuanVideo's causal 3D VAE (Tencent/HunyuanVideo @fa14b00,
 * hyvideo/vae): 246,478,803 parameters counted from its layers; 129
 * frames of 1280x720 are 33 latent frames of 160x90 (time compressed by
 * the samplers of levels 1 and 2, space by those of levels 0-2), and its
 * middle blocks attend over all 33 x 90 x 160 positions at once.  One
 * tile of sample_video.py's tiled decode, 17 latent frames of 32x32 (65
 * frames of 256x256), peaks in the last UpsampleCausal3D's convolution,
 * fp16: the up block's input (512 x 33 x 128²) and the upsampler's
 * (256 x 33 x 128²), the interpolated first frame (256 x 1 x 256²) and
 * the others (256 x 64 x 256²), torch.cat's join (256 x 65 x 256²), the
 * replicate-padded copy (256 x 67 x 258²) and the output (256 x 65 x
 * 256²).  Nothing is cached between chunks.  The same walk of a narrowed
 * decoder matches the live tensors of HunyuanVideo's own code to the byte
 * (tests/validation/hunyuan_vae_trace.py). */
static void
test_hunyuan_vae (void)
{
  const HrComponent *vae = catalog_component ("hunyuanvideo", 1);
  HrArchRun run = { 0 };
  double expect = 2.0 * (512.0 * 33 * 128 * 128 + 256.0 * 33 * 128 * 128 + 256.0 * 256 * 256 +
                         256.0 * 64 * 256 * 256 + 2 * 256.0 * 65 * 256 * 256 +
                         256.0 * 67 * 258 * 258);

  g_assert_true (vae->arch->hunyuan_vae);
  run.width = 1280;
  run.height = 720;
  run.frames = 129;
  run.e = run.e32 = run.input_bytes = 2.0;
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (vae->arch, &run);
    const HrArchBlock *last = &g_array_index (res->blocks, HrArchBlock, res->blocks->len - 1);

    g_assert_cmpuint (res->params, ==, 246478803);
    g_assert_cmpuint (res->params, ==, vae->params);
    for (guint i = 0; i < res->blocks->len; i++)
      {
        const HrArchBlock *b = &g_array_index (res->blocks, HrArchBlock, i);

        if (g_str_equal (b->name, "encoder.conv_out"))
          {
            /* the moments: mean and log-variance of 16 channels */
            g_assert_cmpuint (b->channels, ==, 32);
            g_assert_cmpuint (b->width, ==, 160);
            g_assert_cmpuint (b->height, ==, 90);
          }
      }
    g_assert_cmpuint (res->max_tokens, ==, 33 * 90 * 160);
    g_assert_cmpuint (last->channels, ==, 3);
    g_assert_cmpuint (last->width, ==, 1280);
    /* untiled, the middle block's causal mask alone is 475,200² fp16 */
    g_assert_cmpfloat (res->decode_peak, >, 2.0 * 475200.0 * 475200.0);
    g_assert_cmpfloat (res->decode_cache, ==, 0);
  }

  run.width = run.height = 256;
  run.frames = 65;
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (vae->arch, &run);

    g_assert_cmpuint (res->max_tokens, ==, 17 * 32 * 32);
    g_test_message ("tile: %.0f bytes, expected %.0f", res->decode_peak, expect);
    g_assert_cmpfloat_with_epsilon (res->decode_peak / expect, 1.0, 1e-9);
  }
}

static double item_bytes (const HrEstimate *est,
                          HrBucket          bucket,
                          const char       *prefix);

/* sample_video.py tiles the decode by default ("vae_tiling"): 256-pixel
 * tiles of 64 + 1 frames (the VAE's tile_size and tile_frames); without
 * tiling no card holds it. */
#define HY_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"hunyuanvideo\", \"task\": \"inference\", " \
    "\"image_size\": [1280, 720], \"frames\": 129, \"compute\": \"bf16-pure\", " \
    "\"weights_dtype\": \"bf16\", \"attention\": \"flash\", \"vae_tiling\": %s}"

static void
test_hunyuan_tiling (void)
{
  g_autofree char *tiled_json = g_strdup_printf (HY_FMT, "true");
  g_autofree char *whole_json = g_strdup_printf (HY_FMT, "false");
  g_autoptr(HrEstimate) tiled = estimate (tiled_json);
  g_autoptr(HrEstimate) whole = estimate (whole_json);
  const HrComponent *vae = catalog_component ("hunyuanvideo", 1);
  HrArchRun run = { 0 };
  g_autoptr(HrArchResult) tile = NULL;
  double video = 2.0 * 3 * 129 * 1280 * 720;

  run.width = run.height = 256;
  run.frames = 65;
  run.e = run.e32 = run.input_bytes = 2.0;
  tile = hr_arch_walk (vae->arch, &run);
  g_assert_cmpfloat (whole->total, >, 4e11);
  g_assert_cmpfloat (tiled->total, <, 80e9);
  /* the tile's working set and the decoded video, twice, a phase after
   * the denoising: what is allocated is the larger of the two, here the
   * transformer's single-stream block over 119,056 tokens */
  g_assert_cmpfloat_with_epsilon (tiled->buckets[HR_BUCKET_ACTIVATIONS],
                                  MAX (tile->decode_peak + 2 * video,
                                       item_bytes (tiled, HR_BUCKET_ACTIVATIONS,
                                                   "HunyuanVideo transformer:")), 1e3);
}

/* diffusers' AutoencoderKLHunyuanVideo ("pipeline_library": "diffusers",
 * huggingface/diffusers @58eb52c0 autoencoder_kl_hunyuan_video.py)
 * decodes 16 + 1 frames at a time whether tiling is on or not; Tencent's
 * sample_video.py tiles 64 + 1 frames, and only with vae_tiling. */
#define HY_LIB_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"hunyuanvideo\", \"task\": \"inference\", " \
    "\"image_size\": [1280, 720], \"frames\": 61, \"compute\": \"bf16-pure\", " \
    "\"weights_dtype\": \"bf16\", \"vae_tiling\": %s%s}"

static void
test_hunyuan_diffusers_tiling (void)
{
  g_autofree char *framewise_json = g_strdup_printf (HY_LIB_FMT, "false",
                                                     ", \"pipeline_library\": \"diffusers\"");
  g_autofree char *tiled_json = g_strdup_printf (HY_LIB_FMT, "true",
                                                 ", \"pipeline_library\": \"diffusers\"");
  g_autofree char *original_json = g_strdup_printf (HY_LIB_FMT, "true", "");
  g_autoptr(HrEstimate) framewise = estimate (framewise_json);
  g_autoptr(HrEstimate) tiled = estimate (tiled_json);
  g_autoptr(HrEstimate) original = estimate (original_json);
  const HrComponent *vae = catalog_component ("hunyuanvideo", 1);
  HrArchRun run = { 0 };
  g_autoptr(HrArchResult) slice = NULL;
  double video = 2.0 * 3 * 61 * 1280 * 720;

  run.width = 1280;
  run.height = 720;
  run.frames = 17;
  run.e = run.e32 = run.input_bytes = 2.0;
  slice = hr_arch_walk (vae->arch, &run);
  /* untiled, diffusers decodes whole frames 17 at a time: the largest
   * phase, beside the decoded video twice */
  g_assert_cmpfloat_with_epsilon (framewise->buckets[HR_BUCKET_ACTIVATIONS],
                                  slice->decode_peak + 2 * video, 1e3);
  /* tiled, its 256-pixel tiles are 17 frames deep, sample_video.py's
   * the whole 61 (16 latent frames do not exceed its 64 / 4) */
  g_assert_cmpuint (tiled->allocated_peak, <, original->allocated_peak);
}

/* HunyuanVideo's MMSingleStreamBlock (Tencent/HunyuanVideo @e965abb
 * hyvideo/modules/models.py; the catalog's "single_stream"): at the
 * concatenation linear2 reads, 13 h + 3 m values a token are alive in
 * bf16, over 33 x 45 x 80 video tokens and 256 text tokens; diffusers'
 * port keeps the generic layer. */
static void
test_single_stream (void)
{
  g_autofree char *tencent_json = g_strdup_printf (HY_FMT, "true");
  g_autofree char *diffusers_json = g_strdup_printf (HY_LIB_FMT, "true",
                                                     ", \"pipeline_library\": \"diffusers\"");
  g_autoptr(HrEstimate) tencent = estimate (tencent_json);
  g_autoptr(HrEstimate) diffusers = estimate (diffusers_json);
  double tokens = 33.0 * 45 * 80 + 256;
  double block = tokens * (13.0 * 3072 + 3.0 * 12288) * 2;
  double generic = (16.0 * 45 * 80 + 256) * (2.0 * 2 * 3072 + 2.0 * 2 * 12288);

  g_assert_cmpfloat_with_epsilon (item_bytes (tencent, HR_BUCKET_ACTIVATIONS,
                                              "HunyuanVideo transformer:"), block, 1.0);
  /* diffusers at 61 frames: 16 latent frames, the generic layer (its
   * MLP's input and output beside the residual stream) */
  g_assert_cmpfloat_with_epsilon (item_bytes (diffusers, HR_BUCKET_ACTIVATIONS,
                                              "HunyuanVideo transformer:"), generic, 1.0);
}

/* An arch the scenario reader refuses, with @message in the error */
static void
assert_arch_refused (const char *arch,
                     const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf (
    "{\"headroom_scenario\": 1, \"model\": {\"id\": \"m\", \"name\": \"M\", \"params\": 10, "
    "\"components\": [{\"name\": \"c\", \"params\": 10, \"kind\": \"cnn\", \"arch\": %s}]}}",
    arch);
  HrJsonDoc *doc = hr_json_doc_load_data ("s.json", text, -1, &error);
  g_autoptr(HrScenario) s = NULL;

  g_assert_no_error (error);
  s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_null (s);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "s.json:1:"));
  g_assert_nonnull (strstr (error->message, message));
  hr_json_doc_free (doc);
}

/* Catalog entries with a malformed "arch" are refused with the member. */
static void
test_bad_arch (void)
{
  static const struct {
    const char *arch;
    const char *message;
  } cases[] = {
    { "{\"type\": \"resnett\"}", "resnet" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6]}", "4 stages" },
    { "{\"type\": \"unet\", \"widths\": [320, 650]}", "multiple of 32" },
    { "{\"type\": \"unet\", \"widths\": [320, 640], \"transformer_layers\": [1, 1, 1]}",
      "lists 3 stages" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"colour\": 1}", "colour" },
    { "{\"type\": \"regnet\"}", "regnet_depth" },
    { "{\"type\": \"vgg\", \"norm\": \"gn+ws\"}", "\"gn+ws\" needs a \"resnet\"" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"head\": \"retinanet\", "
      "\"roi_layer\": \"deform-roi-pool\"}", "\"roi_layer\" needs a \"faster-rcnn\"" },
    { "{\"type\": \"wav2vec2\", \"hidden_size\": 768}", "num_hidden_layers" },
    { "{\"type\": \"wav2vec2\", \"hidden_size\": 768, \"num_hidden_layers\": 12, "
      "\"num_attention_heads\": 12, \"intermediate_size\": 3072, "
      "\"feat_extract_norm\": \"batch\"}", "\"group\" or \"layer\"" },
    { "{\"type\": \"wav2vec2\", \"hidden_size\": 768, \"num_hidden_layers\": 12, "
      "\"num_attention_heads\": 12, \"intermediate_size\": 3072, "
      "\"conv_kernel\": [10, 3], \"conv_stride\": [5]}", "one number per convolution" },
    { "{\"type\": \"conformer\", \"hidden_size\": 144, \"num_hidden_layers\": 16, "
      "\"num_attention_heads\": 4, \"intermediate_size\": 576, "
      "\"depthwise_kernel\": 32}", "must be odd" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"head\": \"retinanet\", "
      "\"cascade_stages\": 3}", "cascade_stages" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"head\": \"ssd\"}", "\"vgg\" backbone" },
    { "{\"type\": \"vgg\", \"depths\": [2, 2, 3, 3]}", "5 stages" },
    { "{\"type\": \"mobilenet-v2\", \"head\": \"ssdlite\"}", "\"mobilenet-v3-large\" backbone" },
    { "{\"type\": \"vgg\", \"depths\": [2, 2, 3, 3, 3], \"head\": \"retinanet\"}",
      "\"ssd\" head" },
    { "{\"type\": \"resnet\", \"depths\": [2, 2, 2, 2], "
      "\"dcn\": {\"stages\": [false, true, true, true]}}", "bottleneck" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
      "\"dcn\": {\"stages\": [false, true, true]}}", "4 booleans" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
      "\"dcn\": {\"stages\": [false, true, true, true], \"deform_groups\": 3}}",
      "does not divide" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
      "\"dcn\": {\"modulated\": true}}", "stages" },
    { "{\"type\": \"resnet\", \"depths\": [2, 2, 2, 2], \"head\": \"mask-rcnn-c4\"}",
      "bottleneck" },
    { "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
      "\"head\": \"mask-rcnn-c4\", \"dcn\": {\"stages\": [false, false, false, true]}}",
      "\"mask-rcnn-c4\" head runs res5" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_arch_refused (cases[i].arch, cases[i].message);
}

/* Speech encoders (hr-arch-speech.c): the parameters torchaudio 0.13.1
 * counts for the catalog's models (wav2vec2_base(aux_num_out=32) and
 * the others, the Conformers with their input Linear and a 1024-symbol
 * CTC head), the frames the conv stack's strides give (320 samples a
 * frame after the first 400: 49 for a second at 16 kHz, 749 for 15 s;
 * torchaudio's ConvLayerBlock), and the frozen feature encoder keeping
 * nothing of the waveform. */
static void
test_speech (void)
{
  static const struct {
    const char *model;
    guint64     params;
  } known[] = {
    { "wav2vec2-base-960h", 94395552 }, { "wav2vec2-large-960h", 315460768 },
    { "wav2vec2-large-960h-lv60-self", 315470496 }, { "hubert-base-ls960", 94395552 },
    { "hubert-large-ls960-ft", 315466912 }, { "conformer-ctc-s", 7966096 },
    { "conformer-ctc-m", 24712448 }, { "conformer-ctc-l", 103718912 },
  };
  HrArchRun run = fp32_training (1, 1);
  const HrArch *base = catalog_component ("wav2vec2-base-960h", 0)->arch;
  const HrArch *conformer = catalog_component ("conformer-ctc-s", 0)->arch;
  g_autoptr(HrArch) unfrozen = hr_arch_copy (base);
  g_autoptr(HrArchResult) frozen_res = NULL;
  g_autoptr(HrArchResult) unfrozen_res = NULL;

  run.samples = 16000;
  run.sample_rate = 16000;
  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    {
      const HrComponent *c = catalog_component (known[i].model, 0);
      g_autoptr(HrArchResult) res = NULL;

      g_assert_nonnull (c->arch);
      g_assert_true (hr_arch_is_speech (c->arch));
      res = hr_arch_walk (c->arch, &run);
      g_test_message ("%s: %" G_GUINT64_FORMAT, known[i].model, res->params);
      g_assert_cmpuint (res->params, ==, known[i].params);
      g_assert_cmpuint (res->params, ==, c->params);
    }

  g_assert_cmpuint (hr_arch_speech_frames (base, 16000, 16000), ==, 49);
  g_assert_cmpuint (hr_arch_speech_frames (base, 240000, 16000), ==, 749);
  g_assert_cmpuint (hr_arch_speech_frames (base, 8000, 16000), ==, 24);
  /* 101 log-mel frames, 25 after the time reduction by 4 */
  g_assert_cmpuint (hr_arch_speech_frames (conformer, 16000, 16000), ==, 25);

  /* the trained feature encoder keeps the waveform (4 bytes a sample),
   * the first convolution's output, GroupNorm's and GELU's inputs (512 x
   * 3199 fp32 each) and more: the frozen one none of it */
  unfrozen->freeze_feature_encoder = FALSE;
  frozen_res = hr_arch_walk (base, &run);
  unfrozen_res = hr_arch_walk (unfrozen, &run);
  g_assert_cmpfloat (unfrozen_res->saved - frozen_res->saved, >, 16000 * 4.0 + 3 * 512 * 3199 * 4.0);
  g_assert_cmpfloat (frozen_res->saved, >, 0);
  /* the positional convolution's weight-normed weight, once per step:
   * 768 x 48 x 128 fp32 and the 128 norms */
  g_assert_cmpfloat (frozen_res->fixed_saved, ==, 768.0 * 48 * 128 * 4 + 128 * 4);
}

static const HrArchPeak *
find_peak (const HrArchResult *res,
           const char         *what)
{
  for (guint i = 0; i < res->peaks->len; i++)
    {
      const HrArchPeak *pk = &g_array_index (res->peaks, HrArchPeak, i);

      if (g_strcmp0 (pk->what, what) == 0)
        return pk;
    }
  return NULL;
}

/* mmdet's RPN assigns every anchor of one image against every
 * ground-truth box, bbox_overlaps holding 36 bytes a pair at its peak
 * (detectron2's pairwise_iou since its first release 24).  At
 * 1344 x 800 the FPN levels P2-P6 are 336x200, 168x100, 84x50, 42x25 and
 * 21x13 (89,523 positions), 3 anchors each: 268,569 anchors; 100 boxes
 * make 966,848,400 bytes, for one image at a time whatever the batch.
 * RetinaNet's P3-P7 (22,400 positions) with 9 anchors: 201,600. */
static void
test_detector_assigner (void)
{
  const HrComponent *frcnn = catalog_component ("faster-rcnn-r50-fpn", 0);
  const HrComponent *retina = catalog_component ("retinanet-r50-fpn", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) res = NULL;
  g_autoptr(HrArchResult) rres = NULL;
  g_autoptr(HrArchResult) none = NULL;
  const HrArchPeak *pk;

  run.objects = 100;
  res = hr_arch_walk (frcnn->arch, &run);
  pk = find_peak (res, "rpn assigner");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->fixed, 36.0 * 100 * 268569, 0.5);
  /* the assigner runs before the RPN's losses copy its outputs */
  g_assert_cmpfloat (pk->saved + pk->transient, <, res->saved);
  /* one image at a time: the moment's fixed part does not grow with the
   * batch, the saved tensors do */
  g_assert_cmpfloat (hr_arch_result_peak_extra (res, 1, FALSE, NULL), >, 0.9 * pk->fixed);
  g_assert_cmpfloat (8 * (pk->saved + pk->transient - res->saved) + pk->fixed, <,
                     pk->saved + pk->transient - res->saved + pk->fixed);

  rres = hr_arch_walk (retina->arch, &run);
  pk = find_peak (rres, "retina assigner");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->fixed, 36.0 * 100 * 201600, 0.5);
  g_assert_nonnull (find_peak (rres, "focal loss"));

  /* detectron2's pairwise_iou since @baf6667e: 24 bytes a pair, for the
   * RPN's anchors and RetinaNet's alike */
  {
    HrArchRun d2 = run;
    g_autoptr(HrArchResult) d2res = NULL;
    g_autoptr(HrArchResult) d2rres = NULL;

    d2.iou_frees_corners = TRUE;
    d2res = hr_arch_walk (frcnn->arch, &d2);
    g_assert_cmpfloat_with_epsilon (find_peak (d2res, "rpn assigner")->fixed,
                                    24.0 * 100 * 268569, 0.5);
    d2rres = hr_arch_walk (retina->arch, &d2);
    g_assert_cmpfloat_with_epsilon (find_peak (d2rres, "retina assigner")->fixed,
                                    24.0 * 100 * 201600, 0.5);
  }

  /* torchvision's loops keep the previous image's IoU matrix, 4 bytes
   * a pair, from the second image on (rpn.py @v0.14.1
   * assign_targets_to_anchors); a CPU profile of maskrcnn_resnet50_fpn
   * with 2 images of 100 boxes at 1344 x 800 peaks there */
  {
    HrArchRun tv = run;
    g_autoptr(HrArchResult) one = NULL;
    g_autoptr(HrArchResult) two = NULL;
    g_autoptr(HrArchResult) tvr = NULL;

    tv.assigner_keeps_previous_iou = TRUE;
    tv.batch = 1;
    one = hr_arch_walk (frcnn->arch, &tv);
    g_assert_cmpfloat_with_epsilon (find_peak (one, "rpn assigner")->fixed,
                                    36.0 * 100 * 268569, 0.5);
    tv.batch = 2;
    two = hr_arch_walk (frcnn->arch, &tv);
    g_assert_cmpfloat_with_epsilon (find_peak (two, "rpn assigner")->fixed,
                                    40.0 * 100 * 268569, 0.5);
    tvr = hr_arch_walk (retina->arch, &tv);
    g_assert_cmpfloat_with_epsilon (find_peak (tvr, "retina assigner")->fixed,
                                    40.0 * 100 * 201600, 0.5);
  }

  /* no boxes, no assigner; no gradient, no training moments at all */
  run.objects = 0;
  none = hr_arch_walk (frcnn->arch, &run);
  g_assert_null (find_peak (none, "rpn assigner"));
  {
    HrArchRun infer = run;
    g_autoptr(HrArchResult) fwd = NULL;

    infer.objects = 100;
    infer.grad = infer.trainable = FALSE;
    fwd = hr_arch_walk (frcnn->arch, &infer);
    g_assert_cmpuint (fwd->peaks->len, ==, 0);
  }
}

/* The backward pass at the RPN's finest level (hr-arch.c,
 * rpn_backward_peak): at 1344 x 800 the levels P2-P6 hold 89,523
 * positions of 256 fp32 channels (91,667,552 bytes), each waiting with
 * its gradient; P2 (336 x 200, 68,812,800 bytes) adds three more at its
 * 3x3 convolution's backward.  Alive beside them: what the backbone and
 * the neck saved, and P2's RPN input and ReLU output.  A CPU profile of
 * torchvision 0.14's fasterrcnn_resnet50_fpn (one image, 20 boxes,
 * tests/trace/peak_trace.py) peaks at 1,045,174,304 bytes above the
 * weights, gradients and momentum, inside the RPN's P2 convolution's
 * backward; this moment is 1,042,707,456. */
static void
test_rpn_backward (void)
{
  const HrComponent *frcnn = catalog_component ("faster-rcnn-r50-fpn", 0);
  const HrComponent *rpn = catalog_component ("rpn-r50-fpn", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) res = NULL;
  g_autoptr(HrArchResult) alone = NULL;
  const double levels = 256.0 * 89523 * 4, p2 = 256.0 * 336 * 200 * 4;
  const HrArchPeak *pk;
  double before = 0;

  run.frozen_bn = TRUE;
  run.objects = 20;
  res = hr_arch_walk (frcnn->arch, &run);
  pk = find_peak (res, "rpn backward");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, levels + 3 * p2, 0.5);
  for (guint i = 0; i < res->blocks->len; i++)
    {
      const HrArchBlock *b = &g_array_index (res->blocks, HrArchBlock, i);

      if (g_strcmp0 (b->name, "rpn head") == 0)
        break;
      before += b->saved;
    }
  g_assert_cmpfloat_with_epsilon (pk->saved, before + 2 * p2, 0.5);
  /* within 5% of the profile, below it (the profile's RoI-head leftovers) */
  g_assert_cmpfloat (pk->saved + pk->transient, >, 0.95 * 1045174304.0);
  g_assert_cmpfloat (pk->saved + pk->transient, <, 1045174304.0);
  /* per image, where the assigner's matrix is one image's: from a few
   * images on it is the step's highest moment */
  {
    const char *what = NULL;

    hr_arch_result_peak_extra (res, 8, FALSE, &what);
    g_assert_cmpstr (what, ==, "rpn backward");
  }

  /* an RPN alone: no RoI pooler, P2 waits on nothing */
  alone = hr_arch_walk (rpn->arch, &run);
  pk = find_peak (alone, "rpn backward");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, levels - p2 + 3 * p2, 0.5);
}

/* The mask head's moments (hr-arch.c, mask_logits_peak,
 * mask_targets_peak).  Backward: 20 positive RoIs an image at 28 x 28,
 * 256 channels upsampled (16,056,320 bytes) twice, beside every saved
 * tensor, above the 91 per-class logits' gradient and the first of them.
 * Targets: mmdetection's uint8 and fp32 bitmap of the 1344 x 800 image
 * per positive RoI, torchvision's fp32 bitmap per object, detectron2's
 * nothing at the image's size.  torchvision's uint8 masks
 * (GeneralizedRCNNTransform's resized copy) are alive through the
 * forward pass: a CPU profile of maskrcnn_resnet50_fpn (2 images of
 * 1344 x 800, 100 boxes each) peaks in the RPN's assigner with them. */
static void
test_mask_head_moments (void)
{
  const HrComponent *mask = catalog_component ("mask-rcnn-r50-fpn", 0);
  g_autoptr(HrArch) a = hr_arch_copy (mask->arch);
  HrArchRun run = fp32_training (1344, 800);
  const double pixels = 1344.0 * 800, up = 20.0 * 256 * 28 * 28 * 4, logits = 20.0 * 91 * 784 * 4;
  const HrArchPeak *pk;

  a->mask_rois = 20;
  run.classes = 91;
  run.objects = 20;
  for (guint m = HR_ARCH_MASK_TARGETS_HOST; m <= HR_ARCH_MASK_TARGETS_PER_OBJECT; m++)
    {
      g_autoptr(HrArchResult) res = NULL;

      run.mask_targets = m;
      res = hr_arch_walk (a, &run);
      pk = find_peak (res, "mask logits");
      g_assert_nonnull (pk);
      g_assert_cmpfloat_with_epsilon (pk->transient, 2 * up, 0.5);
      g_assert_cmpfloat_with_epsilon (pk->saved, res->saved, 0.5);
      pk = find_peak (res, "mask targets");
      if (m == HR_ARCH_MASK_TARGETS_HOST)
        {
          g_assert_null (pk);
          continue;
        }
      g_assert_nonnull (pk);
      if (m == HR_ARCH_MASK_TARGETS_PER_ROI)
        {
          g_assert_cmpfloat_with_epsilon (pk->fixed, 5 * pixels * 20, 0.5);
          g_assert_cmpfloat_with_epsilon (pk->transient, logits, 0.5);
        }
      else
        {
          g_assert_cmpfloat_with_epsilon (pk->fixed, 4 * pixels * 20, 0.5);
          g_assert_cmpfloat_with_epsilon (pk->transient, logits + pixels * 20, 0.5);
        }
    }

  /* torchvision's masks are alive at the RPN's assigner too, in the
   * forward pass, and gone by the backward pass's moments */
  {
    HrArchRun mm = run, tv = run;
    g_autoptr(HrArchResult) rmm = NULL;
    g_autoptr(HrArchResult) rtv = NULL;

    mm.mask_targets = HR_ARCH_MASK_TARGETS_PER_ROI;
    tv.mask_targets = HR_ARCH_MASK_TARGETS_PER_OBJECT;
    rmm = hr_arch_walk (a, &mm);
    rtv = hr_arch_walk (a, &tv);
    g_assert_cmpfloat_with_epsilon (find_peak (rtv, "rpn assigner")->transient -
                                    find_peak (rmm, "rpn assigner")->transient,
                                    pixels * 20, 0.5);
    g_assert_cmpfloat_with_epsilon (find_peak (rtv, "rpn backward")->transient,
                                    find_peak (rmm, "rpn backward")->transient, 0.5);
    g_assert_cmpfloat_with_epsilon (find_peak (rtv, "mask logits")->transient,
                                    find_peak (rmm, "mask logits")->transient, 0.5);
  }

  /* LVIS' 1,231 logits outgrow the two upsampled gradients */
  {
    g_autoptr(HrArchResult) res = NULL;

    run.classes = 1231;
    res = hr_arch_walk (a, &run);
    pk = find_peak (res, "mask logits");
    g_assert_cmpfloat_with_epsilon (pk->transient, 20.0 * 1231 * 784 * 4 + up, 0.5);
  }
}

/* The largest-fixed moment called @what: a convolution's backward
 * moments differ by the fresh weight gradient each holds. */
static const HrArchPeak *
find_heaviest_peak (const HrArchResult *res,
                    const char         *what)
{
  const HrArchPeak *best = NULL;

  for (guint i = 0; i < res->peaks->len; i++)
    {
      const HrArchPeak *pk = &g_array_index (res->peaks, HrArchPeak, i);

      if (g_strcmp0 (pk->what, what) == 0 && (best == NULL || pk->fixed > best->fixed))
        best = pk;
    }
  return best;
}

/* PSPNet R50-D8's bottleneck (a 3x3 convolution from the 2048 + 4 x 512
 * concatenated channels to 512, 75,497,472 bytes of fp32 weight) at
 * 256 x 128 runs on 32 x 16 positions: its backward pass holds the
 * gradients of its 512-channel output and 4096-channel input (9,437,184
 * bytes a sample) and, where the step's gradients already exist, a fresh
 * weight gradient: the step's highest moment at two crops, as the CPU
 * profile finds it (tests/trace/test-peak-oracle.py).  Set to None, the
 * weight gradient becomes .grad itself. */
static void
test_conv_backward_moment (void)
{
  const HrComponent *psp = catalog_component ("pspnet-r50-d8", 0);
  HrArchRun run = fp32_training (256, 128);
  const HrArchPeak *pk;
  const char *what = NULL;

  run.accumulate_grad_bytes = 4.0;
  run.autograd_moments = TRUE;
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (psp->arch, &run);

    pk = find_heaviest_peak (res, "convolution backward");
    g_assert_nonnull (pk);
    g_assert_cmpfloat_with_epsilon (pk->fixed, 4096.0 * 512 * 9 * 4, 0.5);
    g_assert_cmpfloat_with_epsilon (pk->transient, (4096.0 + 512) * 32 * 16 * 4, 0.5);
    g_assert_cmpfloat (hr_arch_result_peak_extra (res, 2, FALSE, &what), >, 0);
    g_assert_cmpstr (what, ==, "convolution backward");
  }

  run.accumulate_grad_bytes = 0;
  {
    g_autoptr(HrArchResult) res = hr_arch_walk (psp->arch, &run);

    pk = find_heaviest_peak (res, "convolution backward");
    g_assert_cmpfloat (pk->fixed, ==, 0);
    hr_arch_result_peak_extra (res, 2, FALSE, &what);
    g_assert_cmpstr (what, !=, "convolution backward");
  }
}

/* torchvision's DeepLabV3 sums its ASPP branches' gradients of the
 * 2048-channel input (16 x 16 at 128 x 128): the sum so far, the
 * branch's and their sum, three times 2,097,152 bytes a sample, beside
 * the fresh gradient of a dilated 3x3 branch's weight (18,874,368 bytes):
 * the step's highest moment, as the CPU profile finds it. */
static void
test_branch_gradients_moment (void)
{
  const HrComponent *dl = catalog_component ("deeplabv3-resnet50", 0);
  HrArchRun run = fp32_training (128, 128);
  g_autoptr(HrArchResult) res = NULL;
  const HrArchPeak *pk;
  const char *what = NULL;

  run.accumulate_grad_bytes = 4.0;
  run.autograd_moments = TRUE;
  res = hr_arch_walk (dl->arch, &run);
  pk = find_heaviest_peak (res, "branch gradients");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->fixed, 2048.0 * 256 * 9 * 4, 0.5);
  g_assert_cmpfloat_with_epsilon (pk->transient, 3.0 * 2048 * 16 * 16 * 4, 0.5);
  hr_arch_result_peak_extra (res, 2, FALSE, &what);
  g_assert_cmpstr (what, ==, "branch gradients");
}

/* The keypoint head's backward moment: its last ReLU's gradient in and
 * out, 512 channels at 14 x 14 for each of 122 RoIs (49,971,200 bytes
 * each), beside what the walk saved before the loss's log_softmax. */
static void
test_keypoint_head_moment (void)
{
  const HrComponent *kp = catalog_component ("keypoint-rcnn-r50-fpn", 0);
  g_autoptr(HrArch) a = hr_arch_copy (kp->arch);
  HrArchRun run = fp32_training (640, 384);
  g_autoptr(HrArchResult) res = NULL;
  const HrArchPeak *pk;

  a->mask_rois = 122;
  res = hr_arch_walk (a, &run);
  pk = find_peak (res, "keypoint head backward");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 2 * 122.0 * 512 * 14 * 14 * 4, 0.5);
  /* the loss's fp32 log-probabilities, 17 x 56 x 56 a RoI, are not alive */
  g_assert_cmpfloat_with_epsilon (res->saved - pk->saved, 122.0 * 17 * 56 * 56 * 4, 0.5);
}

/* detectron2's Faster R-CNN R50-C4 (configs/Base-RCNN-C4.yaml @02b5c4e2):
 * the backbone ends at res4 (stride 16: 84 x 50 at 1344 x 800), the RPN
 * puts 15 anchors on each of its 4,200 positions (63,000 anchors), and
 * res5 runs on the 512 RoIs of an image pooled to 14 x 14 from res4, its
 * stride in the first 1x1 (7 x 7 on), its input, 512 x 1024 x 14 x 14
 * fp32 (411 MB), saved.  Parameters: 33,791,644 (data/models.json). */
static void
test_faster_rcnn_c4 (void)
{
  const HrComponent *c4 = catalog_component ("faster-rcnn-r50-c4", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) res = NULL;
  const HrArchBlock *res5 = NULL;
  const HrArchPeak *pk;

  run.objects = 100;
  run.frozen_bn = TRUE;
  res = hr_arch_walk (c4->arch, &run);
  g_assert_cmpuint (res->params, ==, 33791644);
  for (guint i = 0; i < res->blocks->len; i++)
    {
      const HrArchBlock *b = &g_array_index (res->blocks, HrArchBlock, i);

      g_assert_false (g_str_has_prefix (b->name, "layer4"));
      if (g_strcmp0 (b->name, "roi head (res5).0") == 0)
        res5 = b;
    }
  g_assert_nonnull (res5);
  g_assert_cmpuint (res5->channels, ==, 2048);
  g_assert_cmpuint (res5->height, ==, 7);
  g_assert_cmpuint (res5->width, ==, 7 * 512);
  g_assert_cmpfloat (res5->saved, >=, 512.0 * 1024 * 14 * 14 * 4);
  pk = find_peak (res, "rpn assigner");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->fixed, 36.0 * 100 * 15 * 84 * 50, 0.5);
  /* the backward pass starts with mean's and the last ReLU's gradients
   * of res5's output, 2048 x 7 x 7 a RoI, beside every saved tensor */
  pk = find_peak (res, "res5 output gradients");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 2.0 * 2048 * 49 * 512 * 4, 0.5);
  g_assert_cmpfloat_with_epsilon (pk->saved, res->saved, 64.0 * 1024 * 1024);
}

/* detectron2's Faster R-CNN R50-DC5 (configs/Base-RCNN-DilatedC5.yaml
 * @02b5c4e2): res5 dilated, stride 16 kept (84 x 50 at 1344 x 800), the
 * RPN's 15 anchors on res5 alone, the two-FC box head on 2048 x 7 x 7
 * RoIs.  Parameters: 165,581,468 (data/models.json). */
static void
test_faster_rcnn_dc5 (void)
{
  const HrComponent *dc5 = catalog_component ("faster-rcnn-r50-dc5", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) res = NULL;
  const HrArchBlock *last = NULL;
  const HrArchPeak *pk;

  run.objects = 100;
  run.frozen_bn = TRUE;
  res = hr_arch_walk (dc5->arch, &run);
  g_assert_cmpuint (res->params, ==, 165581468);
  for (guint i = 0; i < res->blocks->len; i++)
    {
      const HrArchBlock *b = &g_array_index (res->blocks, HrArchBlock, i);

      if (g_strcmp0 (b->name, "layer4.2") == 0)
        last = b;
    }
  g_assert_nonnull (last);
  g_assert_cmpuint (last->channels, ==, 2048);
  g_assert_cmpuint (last->height, ==, 50);
  g_assert_cmpuint (last->width, ==, 84);
  pk = find_peak (res, "rpn assigner");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->fixed, 36.0 * 100 * 15 * 84 * 50, 0.5);
  /* the first fc's input gradient: 2048 x 7 x 7 a RoI */
  pk = find_peak (res, "box head input gradient");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 2048.0 * 49 * 512 * 4, 0.5);
}

/* detectron2's Mask R-CNN R50-C4 (configs/Base-RCNN-C4.yaml with
 * MASK_ON @02b5c4e2): Res5ROIHeads hands res5's output of the positive
 * RoIs, 2048 x 7 x 7 each, to MaskRCNNConvUpsampleHead with NUM_CONV 0:
 * the deconvolution keeps that copy, its ReLU the 256 x 14 x 14 result
 * the predictor reads (128 RoIs: 77,070,336 bytes in fp32).  The index's
 * scatter joins mean's gradient of res5's output: three such gradients
 * at once.  Parameters: 35,909,612 (data/models.json). */
static void
test_mask_rcnn_c4 (void)
{
  const HrComponent *c4 = catalog_component ("mask-rcnn-r50-c4", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) res = NULL;
  const HrArchBlock *mask;
  const HrArchPeak *pk;
  const double up = 128.0 * 256 * 14 * 14 * 4;

  run.objects = 100;
  run.frozen_bn = TRUE;
  run.classes = 80;
  run.mask_targets = HR_ARCH_MASK_TARGETS_HOST;
  res = hr_arch_walk (c4->arch, &run);
  g_assert_cmpuint (res->params, ==, 35909612);
  g_assert_null (hr_arch_result_find (res, "layer4.0"));
  mask = hr_arch_result_find (res, "roi head (mask)");
  g_assert_nonnull (mask);
  g_assert_cmpuint (mask->channels, ==, 80);
  g_assert_cmpuint (mask->height, ==, 14);
  g_assert_cmpfloat_with_epsilon (mask->saved, 128.0 * (2048 * 49 + 256 * 196) * 4, 0.5);
  pk = find_peak (res, "res5 output gradients");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 3.0 * 2048 * 49 * 512 * 4, 0.5);
  pk = find_peak (res, "mask logits");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 2 * up, 0.5);
  g_assert_null (find_peak (res, "mask targets"));
}

/* detectron2's Mask R-CNN R50-DC5 (configs/Base-RCNN-DilatedC5.yaml with
 * MASK_ON): the 4-conv mask head on the positive RoIs pooled 14 x 14 from
 * res5's 2048 channels.  Saved a RoI: the first convolution's input
 * (2048 x 196), four ReLU results (256 x 196 each, the next layer's
 * input) and the deconvolution's ReLU result (256 x 784): 411,041,792
 * bytes at 128 RoIs in fp32.  Parameters: 172,353,516. */
static void
test_mask_rcnn_dc5 (void)
{
  const HrComponent *dc5 = catalog_component ("mask-rcnn-r50-dc5", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) res = NULL;
  const HrArchBlock *mask;

  run.objects = 100;
  run.frozen_bn = TRUE;
  run.classes = 80;
  run.mask_targets = HR_ARCH_MASK_TARGETS_HOST;
  res = hr_arch_walk (dc5->arch, &run);
  g_assert_cmpuint (res->params, ==, 172353516);
  mask = hr_arch_result_find (res, "roi head (mask)");
  g_assert_nonnull (mask);
  g_assert_cmpuint (mask->height, ==, 28);
  g_assert_cmpfloat_with_epsilon (mask->saved,
                                  128.0 * (2048 * 196 + 4 * 256 * 196 + 256 * 784) * 4, 0.5);
  g_assert_nonnull (find_peak (res, "box head input gradient"));
}

/* detectron2's ResNeXt-101 32x8d FPN detectors (NUM_GROUPS 32,
 * WIDTH_PER_GROUP 8, STRIDE_IN_1X1 False): res2's first block is a 1x1
 * 64 -> 256, a 3x3 of 32 groups of 8, a 1x1 256 -> 256 and the 1x1
 * shortcut 64 -> 256, 116,736 weights.  Parameters: 104,784,480 and,
 * with the mask head, 107,427,760 (data/models.json). */
static void
test_x101_32x8d (void)
{
  const HrComponent *faster = catalog_component ("faster-rcnn-x101-32x8d-fpn", 0);
  const HrComponent *mask = catalog_component ("mask-rcnn-x101-32x8d-fpn", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) fres = NULL;
  g_autoptr(HrArchResult) mres = NULL;
  const HrArchBlock *b;

  run.frozen_bn = TRUE;
  run.classes = 80;
  fres = hr_arch_walk (faster->arch, &run);
  mres = hr_arch_walk (mask->arch, &run);
  g_assert_cmpuint (fres->params, ==, 104784480);
  g_assert_cmpuint (mres->params, ==, 107427760);
  b = hr_arch_result_find (fres, "layer1.0");
  g_assert_nonnull (b);
  g_assert_cmpuint (b->params, ==, 116736);
}

/* The focal loss per implementation.  mmcv's fused op (mmdetection)
 * saves the fp32 permuted copies of the class and box outputs; the
 * Python loss of torchvision and detectron2 saves eight tensors of
 * anchors x classes (torchvision/ops/focal_loss.py) and no copy.  At
 * 1344 x 800 RetinaNet has 201,600 anchors; 80 classes.  FCOS runs on the
 * 22,400 positions, its centerness BCE keeping two fp32 values each. */
static void
test_focal_loss_impl (void)
{
  const HrComponent *retina = catalog_component ("retinanet-r50-fpn", 0);
  const HrComponent *fcos = catalog_component ("fcos-r50-fpn", 0);
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) fused = NULL;
  g_autoptr(HrArchResult) python = NULL;
  g_autoptr(HrArchResult) ffused = NULL;
  g_autoptr(HrArchResult) fpython = NULL;
  g_autoptr(HrArchResult) frozen = NULL;
  double anchors = 201600, points = 22400;

  run.classes = 80;
  g_assert_cmpint (run.focal, ==, HR_ARCH_FOCAL_FUSED);
  fused = hr_arch_walk (retina->arch, &run);
  ffused = hr_arch_walk (fcos->arch, &run);
  run.focal = HR_ARCH_FOCAL_PYTHON;
  python = hr_arch_walk (retina->arch, &run);
  fpython = hr_arch_walk (fcos->arch, &run);
  g_assert_cmpfloat_with_epsilon (python->saved - fused->saved,
                                  anchors * 80 * 4 * (8 - 1) - anchors * 4 * 4, 1);
  g_assert_cmpfloat_with_epsilon (fpython->saved - ffused->saved,
                                  points * 80 * 4 * (8 - 1) - points * 4 * 4 + points * 4, 1);
  /* the same network either way */
  g_assert_cmpuint (python->params, ==, fused->params);
  /* before the sum: the full targets and two products */
  g_assert_cmpfloat_with_epsilon (find_peak (python, "focal loss")->transient,
                                  3.0 * anchors * 80 * 4, 1);

  /* detectron2: the head's outputs and their transposed copies (class
   * and box, fp32) alive at the assigner and through the loss, and there
   * the int64 one-hot of anchors x 81 as well; torchvision's walk is
   * unchanged */
  {
    HrArchRun d2 = run;
    g_autoptr(HrArchResult) rd2 = NULL;
    g_autoptr(HrArchResult) rtv = NULL;
    double outputs = anchors * (80 + 4) * 4.0;

    d2.objects = 100;
    rtv = hr_arch_walk (retina->arch, &d2);
    d2.dense_outputs_alive = TRUE;
    rd2 = hr_arch_walk (retina->arch, &d2);
    g_assert_cmpfloat_with_epsilon (rd2->saved, rtv->saved, 1);
    g_assert_cmpfloat_with_epsilon (find_peak (rd2, "focal loss")->transient,
                                    3.0 * anchors * 80 * 4 + 2.0 * outputs + anchors * 81 * 8.0, 1);
    g_assert_cmpfloat_with_epsilon (find_peak (rd2, "retina assigner")->transient -
                                    find_peak (rtv, "retina assigner")->transient,
                                    2.0 * outputs, 1);
  }

  /* autocast: fp32 casts of the logits and targets and the fp32 BCE
   * beside six 16-bit tensors */
  {
    HrArchRun amp = run;
    g_autoptr(HrArchResult) a16 = NULL;
    g_autoptr(HrArchResult) a16f = NULL;

    amp.e = 2;
    amp.autocast = TRUE;
    a16 = hr_arch_walk (retina->arch, &amp);
    amp.focal = HR_ARCH_FOCAL_FUSED;
    a16f = hr_arch_walk (retina->arch, &amp);
    g_assert_cmpfloat_with_epsilon (a16->saved - a16f->saved,
                                    anchors * 80 * (12 + 6 * 2) - anchors * 84 * 4, 1);
  }

  /* FrozenBatchNorm2d for norm_eval BatchNorm: the backbone's norms save
   * nothing, the rest is the same walk */
  run.frozen_bn = TRUE;
  frozen = hr_arch_walk (retina->arch, &run);
  g_assert_cmpfloat (frozen->saved, <, 0.8 * python->saved);
  g_assert_cmpuint (frozen->params, <, python->params);
}

/* Keypoint R-CNN is Faster R-CNN plus the keypoint head on the positive
 * RoIs: the pooled 256 x 14 x 14 input, eight ReLU outputs of 512 x 14 x
 * 14 (each the next conv's saved input, the last the deconvolution's) and
 * log_softmax's fp32 result over 17 x 56 x 56 per RoI; torchvision's
 * keypointrcnn_resnet50_fpn (num_classes 2, FrozenBatchNorm2d) lists
 * 59,137,258 parameters, its box predictor regressing the background too
 * (4 x 1024 + 4 more).  An RPN alone is Faster R-CNN without RoI heads. */
static void
test_keypoint_rpn_heads (void)
{
  g_autoptr(HrArch) kp = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"bn\": \"frozen\", \"head\": \"keypoint-rcnn\", \"classes\": 1}");
  g_autoptr(HrArch) fr = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"bn\": \"frozen\", \"head\": \"faster-rcnn\", \"classes\": 1}");
  g_autoptr(HrArch) rpn = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"bn\": \"frozen\", \"head\": \"rpn\", \"classes\": 1}");
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) rk = hr_arch_walk (kp, &run);
  g_autoptr(HrArchResult) rf = hr_arch_walk (fr, &run);
  g_autoptr(HrArchResult) rr = hr_arch_walk (rpn, &run);

  g_assert_cmpuint (rk->params, ==, 59137258 - 4 * 1024 - 4);
  g_assert_cmpfloat_with_epsilon (rk->saved - rf->saved,
                                  128.0 * 4 * (256 * 196 + 8 * 512 * 196 + 17 * 3136), 1);
  g_assert_nonnull (hr_arch_result_find (rk, "roi head (keypoints)"));
  g_assert_null (hr_arch_result_find (rr, "roi head (box)"));
  g_assert_nonnull (hr_arch_result_find (rr, "rpn head"));
  g_assert_cmpfloat (rr->saved, <, rf->saved);
  /* the box head: two fc layers of 1024 on 512 RoIs of 256 x 7 x 7 */
  g_assert_cmpuint (rf->params - rr->params, ==,
                    (256 * 49 + 1) * 1024 + 1025 * 1024 + 1025 * 2 + 1025 * 4);
}

#define PANOPTIC_R50 "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, " \
                     "\"bn\": \"eval\", \"frozen_stages\": 1, \"classes\": 80, "

/* Panoptic FPN is Mask R-CNN plus detectron2's SemSegFPNHead (hr-arch.c
 * sem_seg_head).  The head's parameters, 54 stuff classes and 128
 * channels: seven 3x3 convolutions without bias and their GroupNorms,
 * the first of each level from the FPN's 256 channels ((256 x 9 x 128 +
 * 256) x 4 + (128 x 9 x 128 + 256) x 3 = 1,623,808), and the 1x1
 * predictor with its bias (128 x 54 + 54 = 6,966): 1,630,774.  What it
 * saves for one 1344 x 800 image beyond the FPN levels (which the RPN
 * saves in Mask R-CNN), fp32, in elements (tests/validation/
 * panoptic_trace.py prints the same storages): p2 (336 x 200 = 67,200
 * positions) 2 x 128 (GroupNorm's input, ReLU's result); p3 (16,800)
 * 2 x 128 at 16,800; p4 2 x 128 at 4,200, then 3 x 128 (the upsampled
 * input, GroupNorm's, ReLU's) at 16,800; p5 2 x 128 at 1,050, 3 x 128 at
 * 4,200 and at 16,800; the levels' sum, which the predictor keeps, 128 at
 * 67,200; log_softmax's result, 54 x 1344 x 800; GroupNorm's mean and
 * rstd, 2 x 32 each of seven; and the int64 target, 1344 x 800 x 8
 * bytes: 424,705,792 bytes. */
static void
test_panoptic_head (void)
{
  g_autoptr(HrArch) mask = arch_from_json (PANOPTIC_R50 "\"head\": \"mask-rcnn\"}");
  g_autoptr(HrArch) pan = arch_from_json (PANOPTIC_R50 "\"head\": \"panoptic-fpn\"}");
  g_autoptr(HrArch) pan101 = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 23, 3], \"bottleneck\": true, \"bn\": \"eval\", "
    "\"frozen_stages\": 1, \"classes\": 80, \"head\": \"panoptic-fpn\"}");
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) rm = hr_arch_walk (mask, &run);
  g_autoptr(HrArchResult) rp = hr_arch_walk (pan, &run);
  g_autoptr(HrArchResult) r101 = hr_arch_walk (pan101, &run);
  const HrArchBlock *head = hr_arch_result_find (rp, "semantic segmentation head");
  double full = 54.0 * 1344 * 800 * 4;
  double levels = 256.0 * (67200 + 16800 + 4200 + 1050) * 4;
  const HrArchPeak *pk;

  g_assert_cmpuint (pan->stuff_classes, ==, 54);
  g_assert_cmpuint (pan->sem_seg_dims, ==, 128);
  g_assert_nonnull (head);
  g_assert_cmpuint (head->params, ==, 1630774);
  g_assert_cmpuint (rp->params, ==, 46027110);
  g_assert_cmpuint (r101->params, ==, 65019238);
  g_assert_cmpuint (rp->params - rm->params, ==, 1630774);
  g_assert_cmpfloat_with_epsilon (rp->saved - rm->saved, 424705792.0, 1);
  /* the head runs first: the FPN levels are its convolutions' inputs,
   * but for p5, which the FPN's max pooling to p6 saved already */
  g_assert_cmpfloat_with_epsilon (head->saved, 424705792.0 + levels - 256.0 * 1050 * 4, 1);
  /* its loss's backward, after the detector's: the two full-size
   * gradients and the detector's on p2-p5, beside what the backbone, the
   * FPN and the head saved */
  pk = find_peak (rp, "semantic segmentation loss gradients");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 2.0 * full + levels, 1);
  g_assert_cmpfloat (pk->saved, <, rp->saved);
  g_assert_null (find_peak (rm, "semantic segmentation loss gradients"));

  {
    g_autoptr(HrArch) small = arch_from_json (
      PANOPTIC_R50 "\"head\": \"panoptic-fpn\", \"stuff_classes\": 20, \"sem_seg_dims\": 64}");
    g_autoptr(HrArchResult) rs = hr_arch_walk (small, &run);

    g_assert_cmpuint (hr_arch_result_find (rs, "semantic segmentation head")->params, ==,
                      (256 * 9 * 64 + 128) * 4 + (64 * 9 * 64 + 128) * 3 + 64 * 20 + 20);
  }

  assert_arch_refused (PANOPTIC_R50 "\"head\": \"panoptic-fpn\", \"stuff_classes\": 0}",
                       "\"stuff_classes\" must be between 1");
  assert_arch_refused (PANOPTIC_R50 "\"head\": \"panoptic-fpn\", \"sem_seg_dims\": 0}",
                       "\"sem_seg_dims\" must be between 1");
  assert_arch_refused (PANOPTIC_R50 "\"head\": \"panoptic-fpn\", \"sem_seg_dims\": 100}",
                       "\"sem_seg_dims\" must be a multiple of 32");
  assert_arch_refused (PANOPTIC_R50 "\"head\": \"mask-rcnn\", \"stuff_classes\": 54}",
                       "\"stuff_classes\" needs the \"panoptic-fpn\" head");
  assert_arch_refused (PANOPTIC_R50 "\"head\": \"mask-rcnn\", \"sem_seg_dims\": 128}",
                       "\"sem_seg_dims\" needs the \"panoptic-fpn\" head");

  /* with CascadeROIHeads (detectron2's configs/Misc/
   * panoptic_fpn_R_101_dconv_cascade_gn_3x.yaml): three box stages of
   * class-agnostic boxes, one mask head under detectron2 */
  {
    g_autoptr(HrArch) cas = arch_from_json (
      PANOPTIC_R50 "\"head\": \"panoptic-fpn\", \"cascade_stages\": 3}");
    HrArchRun d2 = run;
    g_autoptr(HrArchResult) rc = NULL;
    /* fc6 12,544 x 1,024 and fc7 1,024 x 1,024 with biases, 81 scores and
     * 4 box deltas, against one stage's 81 and 320 */
    const double stage = 12544.0 * 1024 + 1024 + 1024.0 * 1024 + 1024 + 1024.0 * 81 + 81 + 1024.0 * 4 + 4;

    d2.cascade_one_mask_head = TRUE;
    rc = hr_arch_walk (cas, &d2);
    g_assert_nonnull (hr_arch_result_find (rc, "roi head (box, stage 3)"));
    g_assert_nonnull (hr_arch_result_find (rc, "semantic segmentation head"));
    g_assert_null (hr_arch_result_find (rc, "roi head (mask, stage 2)"));
    g_assert_cmpfloat_with_epsilon ((double) rc->params - rp->params,
                                    3.0 * stage - (stage - 1024.0 * 4 - 4 + 1024.0 * 320 + 320), 0.5);
    g_assert_cmpfloat (rc->saved, >, rp->saved);
  }
}

/* Cascade Mask R-CNN adds two more box heads on 512 RoIs each, all three
 * regressing class-agnostic boxes (4 outputs where Mask R-CNN regresses
 * 4 x 80); mmdetection trains a mask head in each stage, detectron2 one. */
static void
test_cascade_heads (void)
{
  g_autoptr(HrArch) plain = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"bn\": \"frozen\", \"head\": \"mask-rcnn\", \"classes\": 80}");
  g_autoptr(HrArch) cascade = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"bn\": \"frozen\", \"head\": \"mask-rcnn\", \"classes\": 80, \"cascade_stages\": 3}");
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) rp = hr_arch_walk (plain, &run);
  g_autoptr(HrArchResult) rmm = hr_arch_walk (cascade, &run);
  g_autoptr(HrArchResult) rd2 = NULL;
  const HrArchBlock *box = hr_arch_result_find (rp, "roi head (box)");
  const HrArchBlock *mask = hr_arch_result_find (rp, "roi head (mask)");
  guint64 box_params = (256 * 49 + 1) * 1024 + 1025 * 1024 + 1025 * 81;
  guint64 mask_params = 4 * (256 * 9 * 256 + 256) + 256 * 256 * 4 + 256 + 257 * 80;

  run.cascade_one_mask_head = TRUE;
  rd2 = hr_arch_walk (cascade, &run);
  g_assert_nonnull (box);
  g_assert_nonnull (mask);
  g_assert_nonnull (hr_arch_result_find (rd2, "roi head (box, stage 3)"));
  g_assert_null (hr_arch_result_find (rd2, "roi head (mask, stage 2)"));
  g_assert_nonnull (hr_arch_result_find (rmm, "roi head (mask, stage 3)"));

  g_assert_cmpuint (rd2->params - rp->params, ==, 2 * box_params + 3 * 1025 * 4 - 1025 * 320);
  g_assert_cmpuint (rmm->params - rd2->params, ==, 2 * mask_params);
  g_assert_cmpfloat_with_epsilon (rd2->saved - rp->saved, 2 * box->saved, 1);
  g_assert_cmpfloat_with_epsilon (rmm->saved - rd2->saved, 2 * mask->saved, 1);
  g_test_message ("cascade mask r-cnn r50: %" G_GUINT64_FORMAT " parameters (mmdet), %"
                  G_GUINT64_FORMAT " (detectron2)", rmm->params, rd2->params);
}

/* "norm": "gn" makes every norm of a ResNet GroupNorm (32 groups, trained)
 * and adds one after each convolution of the FPN and the mask head, whose
 * biases go; "box_head": "4conv1fc" puts four 3x3 convs of 256 with GN
 * in front of one fc 1024 (mmdetection's gn-all configs, detectron2's
 * mask_rcnn_R_50_FPN_3x_gn).  A GroupNorm saves its input as a training
 * BatchNorm does, plus its mean and rstd per sample and group; BatchNorm's
 * per-channel batch statistics are once per step. */
static void
test_group_norm_detector (void)
{
  g_autoptr(HrArch) bnet = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"bn\": \"train\", \"head\": \"mask-rcnn\", \"classes\": 80}");
  g_autoptr(HrArch) gnet = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"norm\": \"gn\", \"head\": \"mask-rcnn\", \"classes\": 80}");
  g_autoptr(HrArch) gconv = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"norm\": \"gn\", \"head\": \"mask-rcnn\", \"box_head\": \"4conv1fc\", "
    "\"classes\": 80}");
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) rb = hr_arch_walk (bnet, &run);
  g_autoptr(HrArchResult) rg = hr_arch_walk (gnet, &run);
  g_autoptr(HrArchResult) rc = hr_arch_walk (gconv, &run);
  double backbone_b = 0, backbone_g = 0, rois = 512;
  const HrArchBlock *box2 = hr_arch_result_find (rg, "roi head (box)");
  const HrArchBlock *box4 = hr_arch_result_find (rc, "roi head (box)");
  const HrArchBlock *fpn_b = hr_arch_result_find (rb, "neck (FPN)");
  const HrArchBlock *fpn_g = hr_arch_result_find (rg, "neck (FPN)");
  const HrArchBlock *mask_b = hr_arch_result_find (rb, "roi head (mask)");
  const HrArchBlock *mask_g = hr_arch_result_find (rg, "roi head (mask)");

  for (guint i = 0; i < rb->blocks->len; i++)
    {
      const HrArchBlock *b = &g_array_index (rb->blocks, HrArchBlock, i);
      const HrArchBlock *g = &g_array_index (rg->blocks, HrArchBlock, i);

      g_assert_cmpstr (b->name, ==, g->name);
      if (g_str_equal (b->name, "stem") || g_str_has_prefix (b->name, "layer"))
        {
          backbone_b += b->saved;
          backbone_g += g->saved;
        }
    }
  /* 53 norms in ResNet-50 (the stem's, three per bottleneck, four
   * downsamples), each 2 x 32 fp32 statistics more */
  g_assert_cmpfloat_with_epsilon (backbone_g - backbone_b, 53 * 2 * 32 * 4.0, 1);
  /* the FPN's eight and the mask head's four GroupNorms: 2 x 256 weights
   * each, one 256-bias fewer */
  g_assert_cmpuint (rg->params - rb->params, ==, 12 * 256);
  /* each FPN GroupNorm keeps its input; the convs' outputs were nobody's */
  g_assert_cmpfloat (fpn_g->saved, >, fpn_b->saved);
  /* the mask head's four GN inputs, 256 x 14 x 14 per RoI, and stats */
  g_assert_cmpfloat_with_epsilon (mask_g->saved - mask_b->saved,
                                  4 * (256 * 14 * 14 * 128 * 4.0 + 2 * 32 * 4.0), 1);
  /* 4conv1fc: the convs' and the GNs' inputs and the last ReLU's result
   * (nine 256 x 7 x 7 tensors per RoI) against 2fc's one fc input, and
   * one fc 1024 fewer */
  g_assert_nonnull (box2);
  g_assert_nonnull (box4);
  g_assert_cmpfloat_with_epsilon (box4->saved - box2->saved,
                                  8 * 256 * 49 * rois * 4.0 + 4 * 2 * 32 * 4.0 -
                                  1024 * rois * 4.0, 1);
  g_assert_cmpuint (rc->params - rg->params, ==,
                    4 * (256 * 9 * 256 + 2 * 256) - (1024 * 1024 + 1024));

  /* before PyTorch 1.6, batch_norm and an addcmul: the normalized tensor
   * is kept beside the input, one more 256 x 14 x 14 per RoI and GN */
  {
    g_autoptr(HrArchResult) rold = NULL;
    const HrArchBlock *mask_old;

    run.group_norm_via_batch_norm = TRUE;
    rold = hr_arch_walk (gnet, &run);
    mask_old = hr_arch_result_find (rold, "roi head (mask)");
    g_assert_cmpfloat_with_epsilon (mask_old->saved - mask_g->saved,
                                    4 * 256 * 14 * 14 * 128 * 4.0, 1);
  }
}

/* "norm": "gn+ws" is "gn" with every convolution before a GroupNorm a
 * ConvWS2d (mmdetection configs/gn+ws: conv_cfg dict(type='ConvWS') in
 * the backbone, the FPN and the R-CNN heads; mmcv conv_ws.py
 * conv_ws_2d): each trained one keeps, once per step, weight - mean and
 * the standardized weight, and std and std + eps per output channel.
 * With frozen_stages 1 the stem and layer1 train nothing and their input
 * wants no gradient: they keep nothing.  The RPN's conv and the mask
 * head's deconvolution and logits have no GroupNorm and stay plain. */
static double
ws_resnet50_tail_weights (guint *convs)
{
  double n = 0;
  guint cin = 256;
  static const guint depths[3] = { 4, 6, 3 };

  for (guint i = 0; i < 3; i++)
    {
      guint width = 128u << i, out = width * 4;

      for (guint j = 0; j < depths[i]; j++)
        {
          n += (double) cin * width + 9.0 * width * width + (double) width * out;
          *convs += 3;
          if (j == 0)
            {
              n += (double) cin * out;
              *convs += 1;
            }
          cin = out;
        }
    }
  return n;
}

static void
test_weight_standardization (void)
{
  g_autoptr(HrArch) gn = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"norm\": \"gn\", \"frozen_stages\": 1, \"head\": \"mask-rcnn\", "
    "\"box_head\": \"4conv1fc\", \"classes\": 80}");
  g_autoptr(HrArch) ws = arch_from_json (
    "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, "
    "\"norm\": \"gn+ws\", \"frozen_stages\": 1, \"head\": \"mask-rcnn\", "
    "\"box_head\": \"4conv1fc\", \"classes\": 80}");
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) rg = hr_arch_walk (gn, &run);
  g_autoptr(HrArchResult) rw = hr_arch_walk (ws, &run);
  guint backbone_convs = 0;
  double backbone = ws_resnet50_tail_weights (&backbone_convs);
  /* the FPN's four laterals (1x1 to 256) and four outputs (3x3), the box
   * head's four and the mask head's four 3x3 convolutions of 256 */
  double heads = (256.0 + 512 + 1024 + 2048) * 256 + 12 * 9.0 * 256 * 256;
  double couts = 0;

  for (guint i = 0; i < 3; i++)
    couts += ((i == 0 ? 4 : i == 1 ? 6 : 3) * 6.0 + 4) * (128u << i);
  couts += 16 * 256;
  g_assert_cmpuint (backbone_convs, ==, 42);
  /* the same network and parameters; per-sample tensors unchanged */
  g_assert_cmpuint (rw->params, ==, rg->params);
  g_assert_cmpfloat_with_epsilon (rw->saved, rg->saved, 1);
  g_assert_cmpfloat_with_epsilon (rw->fixed_saved - rg->fixed_saved,
                                  2 * 4.0 * (backbone + heads) + 2 * 4.0 * couts, 1);

  /* under autocast the convolution keeps a 16-bit cast of the fp32
   * standardized weight */
  {
    HrArchRun mixed = run;
    g_autoptr(HrArchResult) mg = NULL;
    g_autoptr(HrArchResult) mw = NULL;

    mixed.e = 2.0;
    mixed.autocast = TRUE;
    mg = hr_arch_walk (gn, &mixed);
    mw = hr_arch_walk (ws, &mixed);
    g_assert_cmpfloat_with_epsilon (mw->fixed_saved - mg->fixed_saved,
                                    6.0 * (backbone + heads) + 2 * 4.0 * couts, 1);
  }
}

/* "dcn" makes the bottleneck's 3x3 conv2 deformable in the stages it
 * marks (mmdetection configs/dcn, mmcv's DeformConv2dPack and
 * ModulatedDeformConv2dPack): each adds a conv_offset (3x3 with a bias, to
 * 18 x dg channels, 27 x dg for DCNv2) and keeps its offset (18 x dg
 * channels at the conv's output size) and, for DCNv2, its sigmoid mask
 * (9 x dg); the input is the one conv_offset keeps.  At 1344 x 800 c3-c5
 * run at 168 x 100, 84 x 50 and 42 x 25 (the first c3 block's conv2 has
 * the stride). */
#define DCN_R50 "{\"type\": \"resnet\", \"depths\": [3, 4, 6, 3], \"bottleneck\": true, " \
                "\"bn\": \"eval\", \"frozen_stages\": 1, \"head\": \"faster-rcnn\", " \
                "\"classes\": 80"

static void
test_deformable_conv (void)
{
  g_autoptr(HrArch) plain = arch_from_json (DCN_R50 "}");
  g_autoptr(HrArch) dcn = arch_from_json (
    DCN_R50 ", \"dcn\": {\"stages\": [false, true, true, true]}}");
  g_autoptr(HrArch) mdcn = arch_from_json (
    DCN_R50 ", \"dcn\": {\"stages\": [false, true, true, true], \"modulated\": true}}");
  g_autoptr(HrArch) mdcn4 = arch_from_json (
    DCN_R50 ", \"dcn\": {\"stages\": [false, true, true, true], \"modulated\": true, "
    "\"deform_groups\": 4}}");
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) rp = hr_arch_walk (plain, &run);
  g_autoptr(HrArchResult) rd = hr_arch_walk (dcn, &run);
  g_autoptr(HrArchResult) rm = hr_arch_walk (mdcn, &run);
  g_autoptr(HrArchResult) rm4 = hr_arch_walk (mdcn4, &run);
  static const guint widths[3] = { 128, 256, 512 }, blocks[3] = { 4, 6, 3 };
  static const double positions[3] = { 168 * 100, 84 * 50, 42 * 25 };
  guint64 offset_params = 0;
  double offsets = 0;
  const HrArchPeak *pk;

  g_assert_false (dcn->dcn_stages[0]);
  g_assert_true (dcn->dcn_stages[3]);
  g_assert_false (dcn->dcn_modulated);
  g_assert_cmpuint (dcn->dcn_deform_groups, ==, 1);
  g_assert_cmpuint (mdcn4->dcn_deform_groups, ==, 4);

  for (guint i = 0; i < 3; i++)
    {
      offset_params += blocks[i] * ((guint64) widths[i] * 9 * 18 + 18);
      offsets += blocks[i] * 18 * positions[i] * 4.0;
    }
  /* the 580,842 conv_offset weights and biases of DCN in c3-c5 */
  g_assert_cmpuint (rd->params - rp->params, ==, offset_params);
  g_assert_cmpuint (offset_params, ==, 580842);
  g_assert_cmpuint (rm->params - rp->params, ==, 871263);
  /* one 18-channel offset per deformable conv, nothing else: the input
   * was kept already (conv2's, and the ReLU's result before it) */
  g_assert_cmpfloat_with_epsilon (rd->saved - rp->saved, offsets, 1);
  /* DCNv2: the offset and the 9-channel mask; four groups, four times */
  g_assert_cmpfloat_with_epsilon (rm->saved - rp->saved, offsets * 27 / 18, 1);
  g_assert_cmpfloat_with_epsilon (rm4->saved - rp->saved, 4 * offsets * 27 / 18, 1);
  /* the first c3 block: its conv2's offset at stride 8 */
  g_assert_cmpfloat_with_epsilon (hr_arch_result_find (rd, "layer2.0")->saved -
                                  hr_arch_result_find (rp, "layer2.0")->saved,
                                  18 * 168 * 100 * 4.0, 1);
  g_assert_cmpfloat_with_epsilon (hr_arch_result_find (rd, "layer1.0")->saved,
                                  hr_arch_result_find (rp, "layer1.0")->saved, 0.5);

  /* the im2col columns: C_in x 9 rows by the output positions, every
   * sample at once for DCN, one for DCNv2 */
  pk = find_peak (rd, "deformable convolution columns");
  g_assert_nonnull (pk);
  g_assert_cmpfloat (pk->transient, >=, 128 * 9 * 168 * 100 * 4.0);
  g_assert_cmpfloat (pk->fixed, ==, 0);
  pk = find_peak (rm, "deformable convolution columns");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->fixed, 128 * 9 * 168 * 100 * 4.0, 1);
  g_assert_null (find_peak (rp, "deformable convolution columns"));

  /* beyond mmcv's im2col_step of 32 the batch runs in chunks: 64 images
   * hold the columns of 32 */
  {
    HrArchRun b32 = run, b64 = run;
    g_autoptr(HrArchResult) r32 = NULL;
    g_autoptr(HrArchResult) r64 = NULL;
    const HrArchPeak *p32, *p64;
    double cols;

    b32.batch = 32;
    b64.batch = 64;
    r32 = hr_arch_walk (dcn, &b32);
    r64 = hr_arch_walk (dcn, &b64);
    p32 = find_peak (r32, "deformable convolution columns");
    p64 = find_peak (r64, "deformable convolution columns");
    g_assert_nonnull (p32);
    g_assert_nonnull (p64);
    /* the first DCN's columns, in the first c3 block: C_in 128 x 9 rows */
    cols = 128 * 9 * 168 * 100 * 4.0;
    /* per image: all of one image's columns at 32, half at 64 */
    g_assert_cmpfloat_with_epsilon (p32->transient - p64->transient, cols / 2, 1);
  }
}

/* "roi_layer": "deform-roi-pool" pools each RoI twice (mmcv's
 * DeformRoIPoolPack: a plain pool, offset_fc to 2 x 7 x 7 offsets, a
 * pool with them); the fcs keep the first pool's output (256 x 49 a RoI)
 * and their two ReLUs' 1024, the second pool its 98 offsets.  The
 * modulated one adds mask_fc's ReLU (1024), its sigmoid (49) and the
 * product's pooled operand (256 x 49).  One roi_layer per FPN level: the
 * fcs' weights four times. */
static void
test_deform_roi_pool (void)
{
  g_autoptr(HrArch) align = arch_from_json (DCN_R50 "}");
  g_autoptr(HrArch) dpool = arch_from_json (DCN_R50 ", \"roi_layer\": \"deform-roi-pool\"}");
  g_autoptr(HrArch) mdpool = arch_from_json (
    DCN_R50 ", \"roi_layer\": \"modulated-deform-roi-pool\"}");
  HrArchRun run = fp32_training (1344, 800);
  g_autoptr(HrArchResult) ra = hr_arch_walk (align, &run);
  g_autoptr(HrArchResult) rd = hr_arch_walk (dpool, &run);
  g_autoptr(HrArchResult) rm = hr_arch_walk (mdpool, &run);
  const HrArchBlock *ba = hr_arch_result_find (ra, "roi head (box)");
  const HrArchBlock *bd = hr_arch_result_find (rd, "roi head (box)");
  const HrArchBlock *bm = hr_arch_result_find (rm, "roi head (box)");
  double rois = 512, pooled = 256 * 49;
  guint64 offset_fc = (guint64) 12544 * 1024 + 1024 + 1024 * 1024 + 1024 + 1024 * 98 + 98;
  guint64 mask_fc = (guint64) 12544 * 1024 + 1024 + 1024 * 49 + 49;

  g_assert_cmpfloat_with_epsilon (bd->saved - ba->saved, rois * (pooled + 2 * 1024 + 98) * 4.0, 1);
  g_assert_cmpfloat_with_epsilon (bm->saved - bd->saved, rois * (1024 + 49 + pooled) * 4.0, 1);
  g_assert_cmpuint (rd->params - ra->params, ==, 4 * offset_fc);
  g_assert_cmpuint (rm->params - rd->params, ==, 4 * mask_fc);
}

/* mmseg's loss keeps log_softmax's fp32 output at the crop's size for each
 * head (the decode head and the auxiliary one): ADE20K's 150 classes
 * against Cityscapes' 19 add 2 x 131 x 512 x 512 x 4 bytes per sample;
 * the backward pass starts with two such gradients beside everything. */
static void
test_segmentation_classes (void)
{
  const HrComponent *psp = catalog_component ("pspnet-r50-d8", 0);
  HrArchRun run = fp32_training (512, 512);
  g_autoptr(HrArchResult) city = NULL;
  g_autoptr(HrArchResult) ade = NULL;
  double full = 150.0 * 512 * 512 * 4;

  city = hr_arch_walk (psp->arch, &run);
  run.classes = 150;
  ade = hr_arch_walk (psp->arch, &run);
  g_assert_cmpfloat_with_epsilon (ade->saved - city->saved, 2.0 * 131 * 512 * 512 * 4, 0.5);
  g_assert_cmpfloat_with_epsilon (hr_arch_result_peak_extra (ade, 1, FALSE, NULL), 2.0 * full, 0.5);
  /* the conv_seg weights follow the classes */
  g_assert_cmpuint (ade->params - city->params, ==, 131 * (512 + 1) + 131 * (256 + 1));
}

/* mmsegmentation's FCNHead and ASPPHead (hr-arch.c, mmseg_fcn_head and
 * mmseg_aspp_head) at a 64 x 64 crop: stage 4 of the D8 backbone is 8 x 8,
 * 64 positions.  FCN's head saves, a position, BatchNorm's input and the
 * in-place ReLU's output of each of its three ConvModules (3 x 2 x 512),
 * conv_cat's input, stage 4 beside the convs' output (2048 + 512), and
 * conv_seg's input, the dropped-out 512 channels: 6,144 values; stage 4
 * itself is the backbone's, saved by its last ReLU.  DeepLabV3's saves
 * two 512s for each of the four ASPP branches, the bottleneck's
 * 5 x 512 input, its two 512s and conv_seg's 512: 8,192 a position, and
 * once the image pool's pooled 2048 channels, its BatchNorm's input and
 * ReLU's output at 1 x 1.  Each then keeps its loss's fp32 log-softmax of
 * the 19 classes at 64 x 64.  The parameter counts are those of a plain
 * PyTorch build of the same modules (tests/trace/test-trace-oracle.py,
 * mmseg_segmenter). */
static void
test_mmseg_heads (void)
{
  static const struct {
    const char *id;
    const char *block;
    guint64     params;
    double      saved;
  } cases[] = {
    { "fcn-r50-d8", "decode head (FCN)", 49497734, 6144.0 * 64 * 4 },
    { "fcn-r101-d8", "decode head (FCN)", 68489862, 6144.0 * 64 * 4 },
    { "deeplabv3-r50-d8", "decode head (DeepLabV3)", 68113030,
      8192.0 * 64 * 4 + (2048.0 + 2 * 512) * 4 },
    { "deeplabv3-r101-d8", "decode head (DeepLabV3)", 87105158,
      8192.0 * 64 * 4 + (2048.0 + 2 * 512) * 4 },
  };
  double loss = 19.0 * 64 * 64 * 4;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const HrComponent *c = catalog_component (cases[i].id, 0);
      HrArchRun run = fp32_training (64, 64);
      g_autoptr(HrArchResult) res = hr_arch_walk (c->arch, &run);
      const HrArchBlock *b = hr_arch_result_find (res, cases[i].block);

      g_assert_cmpuint (res->params, ==, cases[i].params);
      g_assert_cmpuint (c->params, ==, cases[i].params);
      g_assert_nonnull (b);
      g_assert_cmpfloat_with_epsilon (b->saved, cases[i].saved + loss, 0.5);
    }

  /* UPerNet R101: UPerNet R50's head on ResNetV1c-101 */
  {
    const HrComponent *r50 = catalog_component ("upernet-r50", 0);
    const HrComponent *r101 = catalog_component ("upernet-r101", 0);
    HrArchRun run = fp32_training (64, 64);
    g_autoptr(HrArchResult) a = hr_arch_walk (r50->arch, &run);
    g_autoptr(HrArchResult) b = hr_arch_walk (r101->arch, &run);

    g_assert_cmpuint (b->params, ==, 85508236);
    /* 17 more stage-3 bottlenecks: 1x1 1024 -> 256, 3x3 256 -> 256 and
     * 1x1 256 -> 1024, each with a BatchNorm's weight and bias */
    g_assert_cmpuint (b->params - a->params, ==,
                      17 * (1024 * 256 + 256 * 256 * 9 + 256 * 1024 + 2 * 256 + 2 * 256 + 2 * 1024));
  }
}

/* Before PyTorch 1.11 softmax and log_softmax saved their input too
 * (hr-arch.c, softmax_input_saved): each of PSPNet's two losses keeps its
 * logits resized to the crop, fp32 (19 x 512 x 512 x 4 bytes a sample);
 * a classifier's cross-entropy its 1,000 logits; MiT-B0's attention the
 * pre-softmax scores of every layer: at 512 x 512, heads x tokens x keys
 * per stage of 1 x 16,384 x 256, 2 x 4,096 x 256, 5 x 1,024 x 256 and
 * 8 x 256 x 256, two layers each, fp32; a vision transformer's eager
 * attention its scores. */
static void
test_softmax_saves_input (void)
{
  /* the extra bytes saved, of which attention scores */
  static const struct {
    const char *id;
    guint       size;
    gboolean    eager;
    double      extra;
    double      scores;
  } cases[] = {
    { "pspnet-r50-d8", 512, FALSE, 2.0 * 19 * 512 * 512 * 4, 0 },
    { "resnet-50", 512, FALSE, 1000.0 * 4, 0 },
    /* the scores, and SegFormer's one loss (no auxiliary head) */
    { "segformer-mit-b0", 512, FALSE,
      2.0 * 4 * (16384.0 * 256 + 2 * 4096.0 * 256 + 5 * 1024.0 * 256 + 8 * 256.0 * 256) +
        19.0 * 512 * 512 * 4,
      2.0 * 4 * (16384.0 * 256 + 2 * 4096.0 * 256 + 5 * 1024.0 * 256 + 8 * 256.0 * 256) },
    /* ViT-B/16's eager attention at 224 x 224 (DeiT-B: timm's Attention,
     * q @ k.transpose, softmax): 12 layers of 12 heads over 197 x 197
     * scores, fp32, and the classifier's 1,000 logits */
    { "vit-b-16", 224, TRUE, 12.0 * 12 * 197 * 197 * 4 + 1000.0 * 4, 12.0 * 12 * 197 * 197 * 4 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const HrComponent *c = catalog_component (cases[i].id, 0);
      HrArchRun run = fp32_training (cases[i].size, cases[i].size);
      g_autoptr(HrArchResult) now = NULL;
      g_autoptr(HrArchResult) before = NULL;

      run.eager_attention = cases[i].eager;
      now = hr_arch_walk (c->arch, &run);
      run.softmax_saves_input = TRUE;
      before = hr_arch_walk (c->arch, &run);
      g_assert_cmpfloat_with_epsilon (before->saved - now->saved, cases[i].extra, 0.5);
      g_assert_cmpfloat_with_epsilon (before->scores - now->scores, cases[i].scores, 0.5);
    }
}

/* The math path's backward holds the gradients of the probabilities and of
 * the scores: at SD 1.5's 64x64 latent, 8 heads over 4,096 tokens are
 * 134M values a matrix.  Memory-efficient kernels have no such moment. */
/* Swin V2-T (torchvision swin_v2_t @v0.14.1) at 64 x 64: the second block
 * of stage 1 runs on 16 x 16 positions in four shifted 8 x 8 windows, C
 * 96, 3 heads.  Counted by hand from ShiftedWindowAttentionV2 and
 * SwinTransformerBlockV2 (and a CPU trace of it) per position: the
 * gathered windows (96), the projection's output (288), the norms and
 * clamped norms of q and k (4 x 3), the normalized q and k copied for the
 * matmul (2 x 96), the matmul's output and the softmax's (2 x 3 x 64), v's
 * copy (96), the heads joined (96); norm1's input and statistics (96 + 2);
 * the MLP's input, GELU's input, the second linear's input (96 + 384 +
 * 384), norm2's input and statistics (96 + 2): 2,224 values, and two
 * stochastic-depth noise values.  V1's walk of the same shapes saves
 * other tensors (its LayerNorms before the branches, no cosine
 * attention). */
static void
test_swin_v2 (void)
{
  const HrComponent *c = catalog_component ("swin-v2-t", 0);
  HrArchRun run = fp32_training (64, 64);
  g_autoptr(HrArchResult) res = NULL;
  g_autoptr(HrArchResult) v1 = NULL;
  HrArch as_v1;
  const HrArchBlock *b;

  g_assert_cmpint (c->arch->type, ==, HR_ARCH_SWIN_V2);
  res = hr_arch_walk (c->arch, &run);
  g_assert_cmpuint (res->params, ==, 28351570);
  b = hr_arch_result_find (res, "stage1.1");
  g_assert_nonnull (b);
  g_assert_cmpfloat_with_epsilon (b->saved, 2224.0 * 256 * 4 + 2 * 4, 0.5);
  /* the CPB MLP's 15 x 15 x 512 ReLU output, 16 sigmoid's 3 x 64 x 64,
   * exp(logit_scale) and the int64 scalar, once per block and step */
  g_assert_cmpfloat (res->fixed_saved, >=, 12 * (15.0 * 15 * 512 * 4 + 3.0 * 64 * 64 * 4));

  as_v1 = *c->arch;
  as_v1.type = HR_ARCH_SWIN;
  v1 = hr_arch_walk (&as_v1, &run);
  b = hr_arch_result_find (v1, "stage1.1");
  g_assert_nonnull (b);
  g_assert_cmpfloat (fabs (b->saved - (2224.0 * 256 * 4 + 2 * 4)), >, 1e4);
}

static void
test_attention_backward (void)
{
  const HrComponent *unet = catalog_component ("sd-1.5", 0);
  HrArchRun run = fp32_training (512, 512);
  g_autoptr(HrArchResult) sdpa = NULL;
  g_autoptr(HrArchResult) eager = NULL;
  const HrArchPeak *pk;

  sdpa = hr_arch_walk (unet->arch, &run);
  g_assert_null (find_peak (sdpa, "attention gradients"));
  run.eager_attention = TRUE;
  eager = hr_arch_walk (unet->arch, &run);
  pk = find_peak (eager, "attention gradients");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 2.0 * 8 * 4096.0 * 4096 * 4, 0.5);
  g_assert_cmpfloat (hr_arch_result_peak_extra (eager, 1, FALSE, NULL), >,
                     2.0 * 8 * 4096.0 * 4096 * 4 - 0.2 * eager->saved);
}

/* DreamerV3 size12m (depth 16: depths 32, 48, 64, 64) on 64x64 frames, per
 * time step, counted by hand from dreamerv3/rssm.py Encoder: each level
 * keeps the conv's input, the conv's output and the pooled map (the max's
 * residuals; the norm reads the pooled map), and the norm's output (the
 * SiLU's input); the SiLU's output is the next conv's input.
 * cnn0: 12,288 + 131,072 + 32,768 + 32,768; cnn1: 32,768 + 49,152 +
 * 12,288 + 12,288; cnn2: 12,288 + 16,384 + 4,096 + 4,096; cnn3: 4,096 +
 * 4,096 + 1,024 + 1,024; the 1,024 features the RSSM reads: 363,520
 * values, in bfloat16. */
static void
test_dreamer_encoder (void)
{
  const HrComponent *cnn = catalog_component ("dreamerv3-12m", 0);
  HrArchRun run = fp32_training (64, 64);
  g_autoptr(HrArchResult) res = NULL;
  static const struct {
    const char *block;
    double      values;
  } expect[] = {
    { "enc.cnn0", 12288 + 131072 + 32768 + 32768 }, { "enc.cnn1", 32768 + 49152 + 12288 + 12288 },
    { "enc.cnn2", 12288 + 16384 + 4096 + 4096 }, { "enc.cnn3", 4096 + 4096 + 1024 + 1024 },
    { "enc.out", 1024 },
  };
  double total = 0;

  g_assert_cmpint (cnn->arch->type, ==, HR_ARCH_DREAMER);
  run.e = run.e32 = 2.0;
  res = hr_arch_walk (cnn->arch, &run);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      const HrArchBlock *b = hr_arch_result_find (res, expect[i].block);

      g_assert_nonnull (b);
      g_assert_cmpfloat_with_epsilon (b->saved, 2.0 * expect[i].values, 0.5);
      total += expect[i].values;
    }
  g_assert_cmpfloat_with_epsilon (total, 363520, 0.5);
  /* the decoder rebuilds the frame: its last map is 3 x 64 x 64 */
  g_assert_cmpuint (hr_arch_result_find (res, "dec.imgout")->channels, ==, 3);
  g_assert_cmpuint (hr_arch_result_find (res, "dec.imgout")->height, ==, 64);
  /* the estimate runs it over every step of the sequence: doubling
   * batch_length doubles the CNN's line */
  {
    g_autoptr(HrEstimate) e64 = estimate ("{\"headroom_scenario\": 1, \"model\": \"dreamerv3-12m\", "
                                          "\"task\": \"train\", \"seq_len\": 64}");
    g_autoptr(HrEstimate) e128 = estimate ("{\"headroom_scenario\": 1, \"model\": \"dreamerv3-12m\", "
                                           "\"task\": \"train\", \"seq_len\": 128}");

    g_assert_cmpfloat (e128->buckets[HR_BUCKET_ACTIVATIONS], >,
                       1.9 * e64->buckets[HR_BUCKET_ACTIVATIONS]);
  }
}

/* CogVideo's fine-tuning precomputes latents and prompt embeddings and
 * moves the VAE and T5 off the GPU: cache_latents drops their weights
 * (T5-XXL's 4.76B parameters are 8.9 GiB in fp16).  train_text_encoder
 * trains SD's CLIP text encoder beside the U-Net. */
static void
test_pipeline_parts (void)
{
#define COG_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"cogvideox-2b\", \"method\": \"lora\", " \
    "\"lora\": {\"rank\": 128, \"targets\": \"attention\"}, \"compute\": \"fp16-mixed\", " \
    "\"weights_dtype\": \"fp16\", \"image_size\": [720, 480], \"frames\": 49, " \
    "\"recompute\": \"full\", \"cache_latents\": %s}"
  g_autofree char *kept = g_strdup_printf (COG_FMT, "false");
  g_autofree char *cached = g_strdup_printf (COG_FMT, "true");
  g_autoptr(HrEstimate) a = estimate (kept);
  g_autoptr(HrEstimate) b = estimate (cached);
  double dropped = (double) a->buckets[HR_BUCKET_WEIGHTS] - b->buckets[HR_BUCKET_WEIGHTS];

  g_assert_cmpfloat (dropped, >, 2.0 * 4.7e9);
  g_assert_cmpfloat (dropped, <, 2.0 * 5.0e9);

  {
    g_autoptr(HrEstimate) unet = estimate ("{\"headroom_scenario\": 1, \"model\": \"sd-1.5\", "
                                           "\"method\": \"full\", \"compute\": \"fp32\"}");
    g_autoptr(HrEstimate) both = estimate ("{\"headroom_scenario\": 1, \"model\": \"sd-1.5\", "
                                           "\"method\": \"full\", \"compute\": \"fp32\", "
                                           "\"train_text_encoder\": true}");

    /* CLIP ViT-L/14's text tower: 123M parameters */
    g_assert_cmpuint (both->trainable_params - unet->trainable_params, >, 120000000);
    g_assert_cmpuint (both->trainable_params - unet->trainable_params, <, 126000000);
  }
}

#define WAN_PHASES_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"wan2.1-t2v-1.3b\", \"task\": \"inference\", " \
    "\"image_size\": [832, 480], \"frames\": 81, \"compute\": \"bf16-pure\", " \
    "\"weights_dtype\": \"bf16\", \"attention\": \"flash\"%s}"

/* The bytes of @est's line in @bucket whose label starts with @prefix, or
 * -1 when there is none. */
static double
item_bytes (const HrEstimate *est,
            HrBucket          bucket,
            const char       *prefix)
{
  for (guint i = 0; i < est->items->len; i++)
    {
      const HrEstimateItem *item = g_ptr_array_index (est->items, i);

      if (item->bucket == bucket && g_str_has_prefix (item->label, prefix))
        return item->bytes;
    }
  return -1;
}

/* A pipeline's inference runs in phases: the text encoders before the
 * first denoising step, the VAE after the last (Tencent/HunyuanVideo
 * @e965abb pipeline_hunyuan_video.py, Wan2.1 wan/text2video.py @9737cba):
 * what is allocated is the largest phase over the weights, and without
 * an empty_cache between them the earlier phases' blocks stay reserved. */
static void
test_pipeline_phases (void)
{
  g_autoptr(HrEstimate) hy = estimate (
    "{\"headroom_scenario\": 1, \"model\": \"hunyuanvideo\", \"task\": \"inference\", "
    "\"image_size\": [960, 544], \"frames\": 129, \"compute\": \"bf16-pure\", "
    "\"weights_dtype\": \"bf16\", \"attention\": \"flash\", \"vae_tiling\": true, "
    "\"text_encoder_cpu\": true}");
  g_autofree char *wan_json = g_strdup_printf (WAN_PHASES_FMT, "");
  g_autofree char *off_json = g_strdup_printf (WAN_PHASES_FMT, ", \"offload_model\": true");
  g_autoptr(HrEstimate) wan = estimate (wan_json);
  g_autoptr(HrEstimate) off = estimate (off_json);
  double dit = item_bytes (hy, HR_BUCKET_ACTIVATIONS, "HunyuanVideo transformer:");
  double vae = item_bytes (hy, HR_BUCKET_ACTIVATIONS, "HunyuanVideo 3D VAE:");
  double cached = item_bytes (hy, HR_BUCKET_OVERHEAD, "the working sets of the pipeline");
  double weights = hy->buckets[HR_BUCKET_WEIGHTS];

  /* at 544 x 960 the tile's decode (9.8 GiB) outgrows the transformer's
   * single-stream block (9.7 GiB): only its excess is added, and the
   * transformer's working set stays cached beside it */
  g_assert_cmpfloat (dit, >, 10e9);
  g_assert_cmpfloat (vae, >, 0);
  g_assert_cmpfloat (vae, <, dit);
  g_assert_cmpfloat_with_epsilon (cached, dit, 1.0);
  g_assert_cmpfloat (hy->allocated_peak, <, weights + dit + vae + 2e9);
  g_assert_cmpfloat (hy->reserved_peak, >, hy->allocated_peak + cached);

  /* the umT5's working set over 512 tokens is smaller than the DiT's: it
   * adds nothing; the cache the denoising leaves stays reserved unless
   * offload_model empties it before the decode */
  g_assert_cmpfloat (item_bytes (wan, HR_BUCKET_ACTIVATIONS, "umT5-XXL encoder:"), <=, 0);
  g_assert_cmpfloat (item_bytes (wan, HR_BUCKET_OVERHEAD, "the working sets of the pipeline"),
                     >, 1e9);
  g_assert_cmpfloat (item_bytes (off, HR_BUCKET_OVERHEAD, "the working sets of the pipeline"),
                     <, 1e8);
}

/* diffusers' enable_model_cpu_offload() ("pipeline_offload": "model",
 * huggingface/diffusers @58eb52c0 pipeline_utils.py): each model on the
 * GPU only while it runs, accelerate emptying the cache at each hand-over
 * (huggingface/accelerate @16cb6eb hooks.py CpuOffload.pre_forward). */
#define HY_OFFLOAD_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"hunyuanvideo\", \"task\": \"%s\", " \
    "\"image_size\": [1280, 720], \"frames\": 61, \"compute\": \"bf16-pure\", " \
    "\"weights_dtype\": \"bf16\", \"vae_tiling\": true, \"pipeline_offload\": \"model\"}"

#define HY_SEQ_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"hunyuanvideo\", \"task\": \"inference\", " \
    "\"image_size\": [1280, 720], \"frames\": 61, \"compute\": \"bf16-pure\", " \
    "\"weights_dtype\": \"bf16\", \"vae_tiling\": true, \"pipeline_offload\": \"sequential\"%s}"

static void
test_pipeline_offload (void)
{
  g_autofree char *json = g_strdup_printf (HY_OFFLOAD_FMT, "inference");
  g_autofree char *train = g_strdup_printf (HY_OFFLOAD_FMT, "train");
  g_autoptr(HrEstimate) est = estimate (json);
  g_autoptr(HrScenario) s = hr_test_scenario (json);
  g_autoptr(JsonNode) node = hr_scenario_to_json (s);
  g_autofree char *text = hr_json_node_to_string (node, FALSE);
  g_autoptr(GError) error = NULL;
  HrJsonDoc *doc = hr_json_doc_load_data ("s.json", train, -1, &error);
  g_autoptr(HrScenario) refused = NULL;
  /* the catalog's transformer; LLaVA-LLaMA-3-8B, CLIP-L and the VAE */
  double dit = 12821012544.0, rest = 7504924672.0 + 123060480.0 + 246478803.0;

  /* the transformer alone stays in the weights, the rest waits in host
   * RAM; nothing the text encoders or the VAE freed stays cached */
  g_assert_cmpfloat_with_epsilon ((double) est->buckets[HR_BUCKET_WEIGHTS], 2 * dit, 1e-3 * dit);
  g_assert_cmpfloat_with_epsilon ((double) est->host_ram, 2 * rest, 1.0);
  g_assert_cmpfloat (item_bytes (est, HR_BUCKET_OVERHEAD, "the working sets of the pipeline"),
                     <=, 0);
  g_assert_nonnull (strstr (text, "\"pipeline_offload\":\"model\""));

  /* enable_sequential_cpu_offload(): one submodule's weights at a time;
   * Tencent's pipeline keeps its transformer, diffusers' moves it too
   * (its largest submodule the single-stream block's linear1) */
  {
    g_autofree char *seq_json = g_strdup_printf (HY_SEQ_FMT, "");
    g_autofree char *seq_diffusers_json = g_strdup_printf (HY_SEQ_FMT,
                                                           ", \"pipeline_library\": \"diffusers\"");
    g_autoptr(HrEstimate) seq = estimate (seq_json);
    g_autoptr(HrEstimate) seq_diffusers = estimate (seq_diffusers_json);

    g_assert_cmpfloat ((double) seq->buckets[HR_BUCKET_WEIGHTS], >, 2 * dit);
    g_assert_cmpfloat ((double) seq->buckets[HR_BUCKET_WEIGHTS], <, 2 * dit + 0.5e9);
    g_assert_cmpfloat_with_epsilon ((double) seq->host_ram, 2 * rest, 1.0);
    g_assert_cmpfloat_with_epsilon (item_bytes (seq_diffusers, HR_BUCKET_WEIGHTS,
                                                "HunyuanVideo transformer:"),
                                    2.0 * 3072 * (3 * 3072 + 12288), 1.0);
    g_assert_cmpfloat_with_epsilon ((double) seq_diffusers->host_ram, 2 * (rest + dit), 1.0);
  }

  /* training has no pipeline to offload */
  g_assert_no_error (error);
  refused = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_null (refused);
  g_assert_nonnull (strstr (error->message, "pipeline_offload"));
  hr_json_doc_free (doc);
}

/* A DiT quantised by bitsandbytes (diffusers' PipelineQuantizationConfig
 * on the transformer): every linear layer, the dual-stream blocks' two
 * copies and the modulation included, so all but its norms at nf4. */
static void
test_dit_quantized (void)
{
  g_autoptr(HrEstimate) est = estimate (
    "{\"headroom_scenario\": 1, \"model\": \"hunyuanvideo\", \"task\": \"inference\", "
    "\"image_size\": [1280, 720], \"frames\": 61, \"compute\": \"bf16-pure\", "
    "\"weights_dtype\": \"nf4\", \"vae_tiling\": true, \"pipeline_offload\": \"model\"}");
  double dit = item_bytes (est, HR_BUCKET_WEIGHTS, "HunyuanVideo transformer:");

  /* 12.82B parameters at 0.5625 bytes, the norms' few at 2 */
  g_assert_cmpfloat (dit, >, 0.5625 * 12821012544.0);
  g_assert_cmpfloat (dit, <, 0.5625 * 12821012544.0 + 2e6);
}

/* Wan2.1's generate.py (wan/text2video.py @9737cba): the DiT and the VAE
 * in fp32 beside a bf16 umT5 ("part_dtypes"), --t5_cpu keeping the umT5 on
 * the CPU ("text_encoder_cpu"), --offload_model decoding with the DiT gone
 * ("offload_model"); and SAT's whole-clip VAE encode ("vae_encode_frames"). */
#define WAN_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"wan2.1-t2v-1.3b\", \"task\": \"inference\", " \
    "\"image_size\": [832, 480], \"frames\": 81, \"compute\": \"bf16-mixed\", " \
    "\"weights_dtype\": \"bf16\", \"attention\": \"flash\"%s}"
#define WAN_DTYPES ", \"part_dtypes\": {\"Wan DiT\": \"fp32\", \"Wan-VAE\": \"fp32\"}"

static void
test_wan_generate (void)
{
  g_autofree char *plain_json = g_strdup_printf (WAN_FMT, "");
  g_autofree char *fp32_json = g_strdup_printf (WAN_FMT, WAN_DTYPES);
  g_autofree char *cpu_json = g_strdup_printf (WAN_FMT, WAN_DTYPES ", \"text_encoder_cpu\": true");
  g_autofree char *off_json = g_strdup_printf (WAN_FMT, WAN_DTYPES ", \"text_encoder_cpu\": true, "
                                               "\"offload_model\": true");
  g_autoptr(HrEstimate) plain = estimate (plain_json);
  g_autoptr(HrEstimate) fp32 = estimate (fp32_json);
  g_autoptr(HrEstimate) cpu = estimate (cpu_json);
  g_autoptr(HrEstimate) off = estimate (off_json);
  /* the catalog's parameter counts: DiT, VAE, umT5 */
  double dit = 1418996800.0, vae = 127000000.0, t5 = 5680910336.0;
  double w_plain = plain->buckets[HR_BUCKET_WEIGHTS], w_fp32 = fp32->buckets[HR_BUCKET_WEIGHTS];

  g_assert_cmpfloat_with_epsilon (w_plain, 2 * (dit + vae + t5), 1e-3 * w_plain);
  g_assert_cmpfloat_with_epsilon (w_fp32, 4 * (dit + vae) + 2 * t5, 1e-3 * w_fp32);
  g_assert_cmpfloat_with_epsilon ((double) cpu->buckets[HR_BUCKET_WEIGHTS], 4 * (dit + vae),
                                  1e-3 * w_fp32);
  /* an fp32 VAE decodes in fp32: its working set doubles */
  g_assert_cmpuint (fp32->buckets[HR_BUCKET_ACTIVATIONS], >, plain->buckets[HR_BUCKET_ACTIVATIONS]);
  /* with the DiT gone the decode does not add to the denoising's peak */
  g_assert_cmpuint (off->buckets[HR_BUCKET_ACTIVATIONS], <, cpu->buckets[HR_BUCKET_ACTIVATIONS]);
  g_assert_cmpuint (off->buckets[HR_BUCKET_WEIGHTS], ==, cpu->buckets[HR_BUCKET_WEIGHTS]);
  /* the umT5 lives in host RAM, and the DiT joins it while the VAE decodes */
  g_assert_cmpuint (plain->host_ram, ==, 0);
  g_assert_cmpfloat_with_epsilon ((double) cpu->host_ram, 2 * t5, 1.0);
  g_assert_cmpfloat_with_epsilon ((double) off->host_ram, 2 * t5 + 4 * dit, 1.0);

  /* the keys survive a save */
  {
    g_autoptr(HrScenario) s = hr_test_scenario (off_json);
    g_autoptr(JsonNode) node = hr_scenario_to_json (s);
    g_autofree char *text = hr_json_node_to_string (node, FALSE);
    g_autoptr(HrScenario) again = hr_test_scenario (text);
    g_autoptr(HrEstimate) e = hr_estimate_new (again);
    HrDtype dtype = HR_DTYPE_BF16;

    g_assert_nonnull (strstr (text, "\"part_dtypes\""));
    g_assert_true (again->text_encoder_cpu && again->offload_model);
    g_assert_true (hr_scenario_get_part_dtype (again, g_ptr_array_index (again->model->components,
                                                                          0), &dtype));
    g_assert_cmpint (dtype, ==, HR_DTYPE_FP32);
    g_assert_false (hr_scenario_get_part_dtype (again, g_ptr_array_index (again->model->components,
                                                                           2), &dtype));
    g_assert_cmpuint (e->total, ==, off->total);
  }

  /* names and dtypes are checked */
  {
    static const struct {
      const char *keys;
      const char *message;
    } bad[] = {
      { ", \"part_dtypes\": {\"Wan UNet\": \"fp32\"}", "Wan UNet" },
      { ", \"part_dtypes\": {\"Wan DiT\": \"nf4\"}", "fp32, bf16 or fp16" },
      { ", \"part_dtypes\": {\"Wan DiT\": \"fp64\"}", "Wan DiT" },
      { ", \"part_dtypes\": [\"Wan DiT\"]", "part_dtypes" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *text = g_strdup_printf (WAN_FMT, bad[i].keys);
        HrJsonDoc *doc = hr_json_doc_load_data ("w.json", text, -1, &error);
        g_autoptr(HrScenario) s = NULL;

        g_assert_no_error (error);
        s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
        g_assert_null (s);
        g_assert_nonnull (error);
        g_test_message ("%s", error->message);
        g_assert_true (g_str_has_prefix (error->message, "w.json:1:"));
        g_assert_nonnull (strstr (error->message, bad[i].message));
        hr_json_doc_free (doc);
      }
  }

  /* SAT encodes the whole clip every step: nearly six 128-channel
   * full-size tensors of 49 frames (test_video_vae_encoder), 23.5 GiB a
   * sample in fp16, before the backward pass; diffusers' 9-frame chunks
   * need far less, and the encode grows with the batch SAT hands it */
  {
#define SAT_FMT \
    "{\"headroom_scenario\": 1, \"model\": \"cogvideox-2b\", \"method\": \"lora\", " \
    "\"lora\": {\"rank\": 128, \"targets\": \"attention\"}, \"compute\": \"fp16-mixed\", " \
    "\"weights_dtype\": \"fp16\", \"image_size\": [720, 480], \"frames\": 49, " \
    "\"recompute\": \"full\", \"micro_batch\": %d%s}"
    g_autofree char *chunked = g_strdup_printf (SAT_FMT, 1, "");
    g_autofree char *whole = g_strdup_printf (SAT_FMT, 1, ", \"vae_encode_frames\": 49");
    g_autofree char *whole2 = g_strdup_printf (SAT_FMT, 2, ", \"vae_encode_frames\": 49");
    g_autoptr(HrEstimate) c = estimate (chunked);
    g_autoptr(HrEstimate) w = estimate (whole);
    g_autoptr(HrEstimate) w2 = estimate (whole2);
    double x49 = 128.0 * 49 * 480 * 720 * 2;

    g_assert_cmpfloat_with_epsilon ((double) w->buckets[HR_BUCKET_ACTIVATIONS],
                                    x49 * 285.0 / 49, 0.01 * x49);
    g_assert_cmpfloat ((double) c->buckets[HR_BUCKET_ACTIVATIONS], <, 0.4 * x49 * 4);
    g_assert_cmpfloat_with_epsilon ((double) w2->buckets[HR_BUCKET_ACTIVATIONS],
                                    2 * x49 * 295.0 / 49, 0.01 * x49);
  }
}

/* What a CPU trace cannot see, for ResNet-50 at 224 px: the caching
 * allocator rounds each saved tensor up to 512-byte blocks, which shows
 * on the 64-channel BatchNorm layers' statistics (2 x 256 bytes each, 7
 * layers: the stem and layer1's 3x3 and 1x1 reductions) and on the
 * loss's 1000 fp32 log-probabilities plus the int64 target (4,008 bytes
 * a sample); 53 BatchNorm layers keep cuDNN's reserve space; the largest
 * im2col matrix is the stem's, 3 x 7 x 7 taps over 112 x 112 outputs. */
static void
test_device_lines (void)
{
  g_autoptr(HrArch) arch = arch_from_json (RESNET50);
  HrArchRun run = fp32_training (224, 224);
  g_autoptr(HrArchResult) res = hr_arch_walk (arch, &run);

  g_assert_cmpuint (res->bn_layers, ==, 53);
  g_assert_cmpfloat_with_epsilon (res->conv_workspace, 4.0 * 3 * 49 * 112 * 112, 0.5);
  g_assert_cmpfloat_with_epsilon (res->fixed_rounding, 7 * 2 * 256.0, 0.5);
  g_assert_cmpfloat_with_epsilon (hr_arch_result_rounding (res, 1), 3584.0 + 88.0, 0.5);
  /* eight samples: 32,064 bytes of log-probabilities take 63 blocks */
  g_assert_cmpfloat_with_epsilon (hr_arch_result_rounding (res, 8), 3584.0 + 192.0, 0.5);
}

/* SSD300-VGG16 as torchvision builds it: 35,641,826 parameters
 * (sum(p.numel()) of ssd300_vgg16 with 91 classes), six maps of 38, 19,
 * 10, 5, 3 and 1 with 8732 default boxes, whatever the image size (every
 * image is resized to 300 x 300), and the bytes a CPU trace of its
 * training step saves at micro-batch 1 (87,580,300, tests/trace; the walk
 * leaves out the few hundred bytes of the matched boxes' smooth L1). */
static void
test_ssd300 (void)
{
  const HrComponent *ssd = catalog_component ("ssd300-vgg16", 0);
  HrArchRun run = fp32_training (300, 300);
  HrArchRun wide = fp32_training (640, 480);
  g_autoptr(HrArchResult) res = NULL;
  g_autoptr(HrArchResult) res_wide = NULL;
  const HrArchBlock *head, *stage4;
  const HrArchPeak *pk;
  double anchors = 38 * 38 * 4 + 19 * 19 * 6 + 10 * 10 * 6 + 5 * 5 * 6 + 3 * 3 * 4 + 4;

  g_assert_cmpint (ssd->arch->type, ==, HR_ARCH_VGG);
  g_assert_cmpint (ssd->arch->head, ==, HR_ARCH_HEAD_SSD);
  res = hr_arch_walk (ssd->arch, &run);
  res_wide = hr_arch_walk (ssd->arch, &wide);
  g_assert_cmpuint (res->params, ==, 35641826);
  g_assert_cmpfloat (anchors, ==, 8732);
  stage4 = hr_arch_result_find (res, "stage4");
  g_assert_nonnull (stage4);
  g_assert_cmpuint (stage4->height, ==, 38);   /* maxpool3 rounds 75 up */
  g_assert_cmpuint (hr_arch_result_find (res, "extra4")->height, ==, 1);
  head = hr_arch_result_find (res, "ssd head");
  g_assert_nonnull (head);
  g_assert_cmpuint (head->width, ==, 8732);
  /* conv4_3's rescaled map, the log-probabilities, the targets, sort's
   * indices and two masks */
  g_assert_cmpfloat_with_epsilon (head->saved,
                                  512.0 * 38 * 38 * 4 + anchors * (91 * 4 + 8 + 8 + 2), 0.5);
  g_assert_cmpfloat (fabs (res->saved / 87580300.0 - 1), <, 0.001);
  g_assert_cmpfloat_with_epsilon (res_wide->saved, res->saved, 0.5);
  pk = find_peak (res, "ssd loss gradients");
  g_assert_nonnull (pk);
  g_assert_cmpfloat_with_epsilon (pk->transient, 2.0 * anchors * 91 * 4, 0.5);
}

/* SSDlite320 on MobileNetV3-Large as torchvision builds it: 3,440,060
 * parameters (the COCO_V1 weights' num_params), the reduced tail (the
 * backbone's last convolution 480 wide), six maps of 20 down to 1 with
 * 3234 default boxes at any image size, and the bytes a CPU trace of its
 * training step saves at micro-batch 2 (193,600,684, tests/trace). */
static void
test_ssdlite320 (void)
{
  const HrComponent *lite = catalog_component ("ssdlite320-mobilenet-v3-large", 0);
  HrArchRun run = fp32_training (320, 320);
  HrArchRun wide = fp32_training (800, 600);
  g_autoptr(HrArchResult) res = NULL;
  g_autoptr(HrArchResult) res_wide = NULL;
  const HrArchBlock *head;
  double anchors = 6.0 * (20 * 20 + 10 * 10 + 5 * 5 + 3 * 3 + 2 * 2 + 1);

  g_assert_cmpint (lite->arch->head, ==, HR_ARCH_HEAD_SSDLITE);
  g_assert_true (lite->arch->reduced_tail);
  res = hr_arch_walk (lite->arch, &run);
  res_wide = hr_arch_walk (lite->arch, &wide);
  g_assert_cmpuint (res->params, ==, 3440060);
  g_assert_cmpuint (hr_arch_result_find (res, "features.16")->channels, ==, 480);
  g_assert_cmpuint (hr_arch_result_find (res, "extra4")->height, ==, 1);
  head = hr_arch_result_find (res, "ssdlite head");
  g_assert_nonnull (head);
  g_assert_cmpuint (head->width, ==, 3234);
  g_assert_cmpfloat (anchors, ==, 3234);
  g_assert_cmpfloat (fabs (2 * res->saved / 193600684.0 - 1), <, 0.001);
  g_assert_cmpfloat_with_epsilon (res_wide->saved, res->saved, 0.5);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/arch/resnet50-geometry", test_resnet50_geometry);
  g_test_add_func ("/arch/parameter-counts", test_parameter_counts);
  g_test_add_func ("/arch/unet-tokens", test_unet_tokens);
  g_test_add_func ("/arch/attention-scores", test_attention_scores);
  g_test_add_func ("/arch/frozen-batchnorm", test_frozen_batchnorm);
  g_test_add_func ("/arch/weight-standardization", test_weight_standardization);
  g_test_add_func ("/arch/deform-roi-pool", test_deform_roi_pool);
  g_test_add_func ("/arch/checkpointing", test_checkpointing);
  g_test_add_func ("/arch/sd15-lora-8gb", test_sd15_lora_8gb);
  g_test_add_func ("/arch/every-family", test_every_family);
  g_test_add_func ("/arch/video-tokens", test_video_tokens);
  g_test_add_func ("/arch/video-vae-encoder", test_video_vae_encoder);
  g_test_add_func ("/arch/wan-decoder-cache", test_wan_decoder_cache);
  g_test_add_func ("/arch/hunyuan-vae", test_hunyuan_vae);
  g_test_add_func ("/arch/hunyuan-tiling", test_hunyuan_tiling);
  g_test_add_func ("/arch/bad-arch", test_bad_arch);
  g_test_add_func ("/arch/speech", test_speech);
  g_test_add_func ("/arch/detector-assigner", test_detector_assigner);
  g_test_add_func ("/arch/focal-loss-impl", test_focal_loss_impl);
  g_test_add_func ("/arch/keypoint-rpn-heads", test_keypoint_rpn_heads);
  g_test_add_func ("/arch/panoptic-head", test_panoptic_head);
  g_test_add_func ("/arch/cascade-heads", test_cascade_heads);
  g_test_add_func ("/arch/group-norm-detector", test_group_norm_detector);
  g_test_add_func ("/arch/deformable-conv", test_deformable_conv);
  g_test_add_func ("/arch/segmentation-classes", test_segmentation_classes);
  g_test_add_func ("/arch/mmseg-heads", test_mmseg_heads);
  g_test_add_func ("/arch/softmax-saves-input", test_softmax_saves_input);
  g_test_add_func ("/arch/attention-backward", test_attention_backward);
  g_test_add_func ("/arch/swin-v2", test_swin_v2);
  g_test_add_func ("/arch/dreamer-encoder", test_dreamer_encoder);
  g_test_add_func ("/arch/pipeline-parts", test_pipeline_parts);
  g_test_add_func ("/arch/wan-generate", test_wan_generate);
  g_test_add_func ("/arch/device-lines", test_device_lines);
  g_test_add_func ("/arch/ssd300", test_ssd300);
  g_test_add_func ("/arch/ssdlite320", test_ssdlite320);
  g_test_add_func ("/arch/rpn-backward", test_rpn_backward);
  g_test_add_func ("/arch/mask-head-moments", test_mask_head_moments);
  g_test_add_func ("/arch/conv-backward-moment", test_conv_backward_moment);
  g_test_add_func ("/arch/branch-gradients-moment", test_branch_gradients_moment);
  g_test_add_func ("/arch/keypoint-head-moment", test_keypoint_head_moment);
  g_test_add_func ("/arch/faster-rcnn-c4", test_faster_rcnn_c4);
  g_test_add_func ("/arch/faster-rcnn-dc5", test_faster_rcnn_dc5);
  g_test_add_func ("/arch/mask-rcnn-c4", test_mask_rcnn_c4);
  g_test_add_func ("/arch/mask-rcnn-dc5", test_mask_rcnn_dc5);
  g_test_add_func ("/arch/x101-32x8d", test_x101_32x8d);
  g_test_add_func ("/arch/pipeline-phases", test_pipeline_phases);
  g_test_add_func ("/arch/pipeline-offload", test_pipeline_offload);
  g_test_add_func ("/arch/dit-quantized", test_dit_quantized);
  g_test_add_func ("/arch/hunyuan-diffusers-tiling", test_hunyuan_diffusers_tiling);
  g_test_add_func ("/arch/single-stream", test_single_stream);

  return g_test_run ();
}
