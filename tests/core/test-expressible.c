/* test-expressible.c: runs that need a key, a value or a model description
 * of their own (a part known by its parameter count, GGUF block types,
 * offloading, losses, masks, low-precision training)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

static gboolean
has_item (const HrEstimate *est,
          const char       *label_part)
{
  for (guint i = 0; i < est->items->len; i++)
    if (strstr (((HrEstimateItem *) g_ptr_array_index (est->items, i))->label,
                label_part) != NULL)
      return TRUE;
  return FALSE;
}

/* A frozen VQ-GAN beside a trainable dynamics transformer, as world-model
 * papers describe them (a tokenizer's size and nothing else). */
#define WORLD_MODEL \
  "{\"id\": \"wm\", \"name\": \"World model\", \"params\": 150000000, \"components\": [" \
  " {\"name\": \"VQ-GAN\", \"params\": 50000000}," \
  " {\"name\": \"Dynamics\", \"params\": 100000000, \"layers\": 12, \"hidden\": 768," \
  "  \"heads\": 12, \"tokens\": 340}]}"

static void
test_weights_only_parse (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                              WORLD_MODEL "}");
  const HrComponent *vq = g_ptr_array_index (s->model->components, 0);

  g_assert_cmpint (vq->kind, ==, HR_COMPONENT_WEIGHTS_ONLY);
  g_assert_false (vq->trainable);
  g_assert_false (vq->backprop);
  g_assert_cmpuint (vq->params, ==, 50000000);

  /* a whole model given by its count (a bare .safetensors file) */
  {
    g_autoptr(HrScenario) w = hr_test_scenario (
      "{\"headroom_scenario\": 1, \"model\": {\"id\": \"w\", \"name\": \"W\", "
      "\"params\": 1000000, \"kind\": \"weights-only\"}, \"task\": \"inference\"}");

    g_assert_cmpint (((HrComponent *) g_ptr_array_index (w->model->components, 0))->kind, ==,
                     HR_COMPONENT_WEIGHTS_ONLY);
  }

  /* it cannot train, and a shape key contradicts "weights-only" */
  hr_test_expect_scenario_error (
      "{\"headroom_scenario\": 1, \"model\": {\"id\": \"m\", \"name\": \"M\", "
      "\"params\": 10, \"components\": [{\"name\": \"VAE\", \"params\": 10, "
      "\"trainable\": true}]}}",
      "\"VAE\" is given by its parameter count alone");
  hr_test_expect_scenario_error (
      "{\"headroom_scenario\": 1, \"model\": {\"id\": \"m\", \"name\": \"M\", "
      "\"params\": 10, \"components\": [{\"name\": \"VAE\", \"params\": 10, "
      "\"backprop\": true}]}}",
      "can only be frozen");
  hr_test_expect_scenario_error (
      "{\"headroom_scenario\": 1, \"model\": {\"id\": \"m\", \"name\": \"M\", "
      "\"params\": 10, \"kind\": \"weights-only\", \"hidden\": 64}}",
      "\"hidden\" describes its shape");
  /* a half-given shape is still a transformer missing a key */
  hr_test_expect_scenario_error (
      "{\"headroom_scenario\": 1, \"model\": {\"id\": \"m\", \"name\": \"M\", "
      "\"params\": 10, \"hidden\": 64}}",
      "\"layers\"");
}

static void
test_weights_only_estimate (void)
{
  /* inference: its weights at the stored precision, and the assumed
   * working set of one value (2 bytes in bf16) per parameter per sample */
  {
    g_autoptr(HrScenario) s = hr_test_scenario (
      "{\"headroom_scenario\": 1, \"model\": {\"id\": \"w\", \"name\": \"VAE\", "
      "\"params\": 80000000}, \"task\": \"inference\", \"compute\": \"bf16-mixed\", "
      "\"micro_batch\": 4}");
    g_autoptr(HrEstimate) est = hr_estimate_new (s);
    HrBasis basis = HR_BASIS_DERIVED;
    double  ws =
        hr_test_item_bytes_basis (est, HR_BUCKET_ACTIVATIONS, "parameter count alone", &basis);

    hr_test_assert_near (est->buckets[HR_BUCKET_WEIGHTS], 2.0 * 80e6, 0.001);
    hr_test_assert_near (ws, 2.0 * 80e6 * 4, 0.001);
    g_assert_cmpint (basis, ==, HR_BASIS_ASSUMED);
  }

  /* training: method full trains the dynamics model only; the VQ-GAN's
   * weights count, no gradient or optimizer state for it */
  {
    g_autoptr(HrScenario) s = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                                WORLD_MODEL ", \"task\": \"train\", "
                                                "\"method\": \"full\", \"micro_batch\": 8}");
    g_autoptr(HrEstimate) est = hr_estimate_new (s);
    gboolean noted = FALSE;

    g_assert_cmpuint (est->trainable_params, ==, 100000000);
    hr_test_assert_near (hr_test_item_bytes_basis (est, HR_BUCKET_WEIGHTS, "VQ-GAN", NULL),
                         2.0 * 50e6, 0.001);
    hr_test_assert_near (est->buckets[HR_BUCKET_GRADIENTS], 2.0 * 100e6, 0.01);
    g_assert_true (has_item (est, "forward working set assumed"));
    for (guint i = 0; i < est->notes->len; i++)
      noted |= strstr (g_ptr_array_index (est->notes, i), "VQ-GAN is given by its parameter "
                       "count alone") != NULL;
    g_assert_true (noted);
  }

  /* trainable_params is spread over the parts that can train */
  {
    g_autoptr(HrScenario) s = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                                WORLD_MODEL ", \"task\": \"train\", "
                                                "\"trainable_params\": 60000000}");
    g_autoptr(HrEstimate) est = hr_estimate_new (s);

    hr_test_assert_near (hr_test_item_bytes_basis (est, HR_BUCKET_WEIGHTS, "VQ-GAN", NULL),
                         2.0 * 50e6, 0.001);
    hr_test_assert_near (est->buckets[HR_BUCKET_GRADIENTS], 2.0 * 60e6, 0.01);
  }
}

/* GGUF's block types as weights_dtype, sized from the table the GGUF
 * importer reads (ggml-common.h's block structs) */
static void
test_gguf_types (void)
{
  static const struct { const char *nick; double bytes; } types[] = {
    { "q8_0", 34.0 / 32 }, { "q4_0", 18.0 / 32 }, { "q4_1", 20.0 / 32 }, { "q5_0", 22.0 / 32 },
    { "q5_1", 24.0 / 32 }, { "q2_k", 84.0 / 256 }, { "q3_k", 110.0 / 256 },
    { "q4_k", 144.0 / 256 }, { "q5_k", 176.0 / 256 }, { "q6_k", 210.0 / 256 },
    { "iq4_xs", 136.0 / 256 }, { "iq4_nl", 18.0 / 32 }, { "iq2_xxs", 66.0 / 256 },
    { "iq1_s", 50.0 / 256 }, { "tq2_0", 66.0 / 256 }, { "mxfp4", 17.0 / 32 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      /* llama.cpp with every layer on the GPU: the layers and the output
       * matrix there, the token embedding in host memory */
      g_autoptr(HrScenario) s = hr_test_scenariof (
        "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": \"inference\", "
        "\"engine\": \"llama.cpp\", \"weights_dtype\": \"%s\", \"gpu_layers\": 999}",
        types[i].nick);
      g_autoptr(HrEstimate) est = hr_estimate_new (s);
      double embed = 32000.0 * 4096;

      hr_test_assert_near (est->buckets[HR_BUCKET_WEIGHTS], (6738415616.0 - embed) * types[i].bytes,
                           0.001);
      g_assert_cmpfloat (hr_dtype_bytes_per_param (s->weights_dtype, FALSE), ==, types[i].bytes);
    }

  /* llama.cpp's other KV cache types */
  {
    g_autoptr(HrScenario) s = hr_test_scenario (
      "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": \"inference\", "
      "\"engine\": \"llama.cpp\", \"kv_dtype\": \"q5_1\"}");

    g_assert_cmpfloat (hr_dtype_element_bytes (s->kv_dtype), ==, 24.0 / 32);
  }
  hr_test_expect_scenario_error (
      "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"weights_dtype\": "
      "\"q4_k_m\"}",
      "weights_dtype");
}

/* torchao's CPUOffloadOptimizer with offload_gradients: the optimizer
 * state and every gradient in host memory, one tensor's gradient on the
 * GPU at a time */
static void
test_offload_gradients (void)
{
#define OFFLOAD_BASE "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": " \
                     "\"finetune\", \"compute\": \"bf16-pure\", \"micro_batch\": 1, " \
                     "\"seq_len\": 512, \"offload\": \"%s\"%s}"
  g_autoptr(HrScenario) opt = hr_test_scenariof (OFFLOAD_BASE, "optimizer", "");
  g_autoptr(HrScenario) both = hr_test_scenariof (OFFLOAD_BASE, "optimizer+gradients", "");
  g_autoptr(HrEstimate) e_opt = hr_estimate_new (opt);
  g_autoptr(HrEstimate) e_both = hr_estimate_new (both);
  double grads = 2.0 * 6738415616.0;

  g_assert_cmpint (both->offload, ==, HR_OFFLOAD_OPTIMIZER_GRADIENTS);
  hr_test_assert_near (e_opt->buckets[HR_BUCKET_GRADIENTS], grads, 0.01);
  g_assert_cmpuint (e_both->buckets[HR_BUCKET_OPTIMIZER], ==, 0);
  /* the largest tensor's gradient: the embedding, 32000 x 4096 */
  hr_test_assert_near (e_both->buckets[HR_BUCKET_GRADIENTS], 2.0 * 32000 * 4096, 0.01);
  /* the host holds the gradients the GPU no longer does */
  hr_test_assert_near ((double) e_both->host_ram - e_opt->host_ram, grads, 0.05);

  {
    g_autofree char *accum = g_strdup_printf (OFFLOAD_BASE, "optimizer+gradients", ", \"grad_accum\": 4");
    g_autofree char *zero = g_strdup_printf (OFFLOAD_BASE, "optimizer+gradients",
                                             ", \"gpus\": 2, \"sharding\": \"zero2\"");
    hr_test_expect_scenario_error (accum, "cannot accumulate gradients");
    hr_test_expect_scenario_error (zero, "ZeRO-Offload");
    hr_test_expect_scenario_error (
        "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": "
        "\"inference\", \"offload\": \"optimizer+gradients\"}",
        "no optimizer state or gradients");
  }
}

/* loss "sum": a benchmark's logits.sum().backward(), no loss head and
 * (with optimizer "none") no step */
static void
test_loss_sum (void)
{
  g_autoptr(HrScenario) sum = hr_test_scenariof ("{\"headroom_scenario\": 1, \"model\": "
                                                 "\"llama-2-7b\", \"task\": \"train\", "
                                                 "\"compute\": \"bf16-pure\", \"optimizer\": "
                                                 "\"none\", \"micro_batch\": 2, \"seq_len\": "
                                                 "1024, \"loss\": \"sum\"}");
  g_autoptr(HrScenario) upcast = hr_test_scenariof ("{\"headroom_scenario\": 1, \"model\": "
                                                    "\"llama-2-7b\", \"task\": \"train\", "
                                                    "\"compute\": \"bf16-pure\", "
                                                    "\"optimizer\": \"none\", \"micro_batch\": 2, "
                                                    "\"seq_len\": 1024}");
  g_autoptr(HrEstimate) e_sum = hr_estimate_new (sum);
  g_autoptr(HrEstimate) e_up = hr_estimate_new (upcast);
  double logits = 2.0 * 32000 * 1024 * 2;

  g_assert_cmpint (sum->loss, ==, HR_LOSS_SUM);
  hr_test_assert_near (
      hr_test_item_bytes_basis (e_sum, HR_BUCKET_ACTIVATIONS, "no loss head", NULL), logits, 0.001);
  /* transformers' upcast loss: 14 bytes a logit against the sum's 2 */
  hr_test_assert_near (
      hr_test_item_bytes_basis (e_up, HR_BUCKET_ACTIVATIONS, "upcast to fp32", NULL), 7.0 * logits,
      0.001);
  g_assert_cmpuint (e_sum->buckets[HR_BUCKET_OPTIMIZER], ==, 0);
}

/* gpt-fast's static cache: a dense S x S bool mask beside it, S the cache
 * length rounded up to a multiple of 8 */
static void
test_causal_mask (void)
{
  static const struct { const char *mask; double bytes; } masks[] = {
    { "dense", 1008.0 * 1008.0 }, { "linear", 1008.0 * (1 + 6) },
  };

  for (guint i = 0; i < G_N_ELEMENTS (masks); i++)
    {
      g_autoptr(HrScenario) s = hr_test_scenariof (
        "{\"headroom_scenario\": 1, \"model\": \"llama-3.1-8b\", \"task\": \"inference\", "
        "\"micro_batch\": 4, \"seq_len\": 6, \"context_len\": 1001, \"causal_mask\": \"%s\"}",
        masks[i].mask);
      g_autoptr(HrEstimate) est = hr_estimate_new (s);

      hr_test_assert_near (
          hr_test_item_bytes_basis (est, HR_BUCKET_ACTIVATIONS, "causal mask", NULL),
          masks[i].bytes, 0.001);
    }

  {
    g_autoptr(HrScenario) s = hr_test_scenario (
      "{\"headroom_scenario\": 1, \"model\": \"llama-3.1-8b\", \"task\": \"inference\", "
      "\"context_len\": 1001}");
    g_autoptr(HrEstimate) est = hr_estimate_new (s);

    g_assert_false (has_item (est, "causal mask"));
  }
  hr_test_expect_scenario_error (
      "{\"headroom_scenario\": 1, \"model\": \"llama-3.1-8b\", \"task\": \"train\", "
      "\"causal_mask\": \"dense\"}",
      "needs \"task\": \"inference\"");
}

/* torchao float8 training: bf16 mixed precision whose FSDP2 gathers the
 * linears in fp8 */
static void
test_fp8_mixed (void)
{
  g_autoptr(HrScenario) bf16 = hr_test_scenariof ("{\"headroom_scenario\": 1, \"model\": "
                                                  "\"llama-3.1-8b\", \"task\": \"train\", "
                                                  "\"micro_batch\": 1, \"seq_len\": 2048, "
                                                  "\"gpus\": 8, \"sharding\": \"fsdp2\", "
                                                  "\"compute\": \"bf16-mixed\"}");
  g_autoptr(HrScenario) fp8 = hr_test_scenariof ("{\"headroom_scenario\": 1, \"model\": "
                                                 "\"llama-3.1-8b\", \"task\": \"train\", "
                                                 "\"micro_batch\": 1, \"seq_len\": 2048, "
                                                 "\"gpus\": 8, \"sharding\": \"fsdp2\", "
                                                 "\"compute\": \"fp8-mixed\"}");
  g_autoptr(HrEstimate) e16 = hr_estimate_new (bf16);
  g_autoptr(HrEstimate) e8 = hr_estimate_new (fp8);
  double g16 = hr_test_item_bytes_basis (e16, HR_BUCKET_WEIGHTS, "unsharded", NULL);
  double g8 = hr_test_item_bytes_basis (e8, HR_BUCKET_WEIGHTS, "unsharded", NULL);

  g_assert_cmpint (fp8->compute, ==, HR_COMPUTE_FP8_MIXED);
  g_assert_true (hr_compute_is_mixed (fp8->compute));
  /* the gathered weights in one byte instead of two; the rest as bf16 */
  g_assert_cmpfloat (g16, >, 0);
  hr_test_assert_near (g8, g16 / 2, 0.001);
  hr_test_assert_near (e8->buckets[HR_BUCKET_ACTIVATIONS], e16->buckets[HR_BUCKET_ACTIVATIONS],
                       0.001);
  hr_test_assert_near (e8->buckets[HR_BUCKET_OPTIMIZER], e16->buckets[HR_BUCKET_OPTIMIZER], 0.001);
}

/* torchao's fp6 weights and the MX element types, in the weights table */
static void
test_fp6_mx (void)
{
  static const struct { const char *nick; double bytes; } types[] = {
    { "fp6", 0.75 }, { "mxfp6", 25.0 / 32 }, { "mxfp8", 33.0 / 32 }, { "mxfp4", 17.0 / 32 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autoptr(HrScenario) s = hr_test_scenariof (
        "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": \"inference\", "
        "\"weights_dtype\": \"%s\"}", types[i].nick);
      g_autoptr(HrEstimate) est = hr_estimate_new (s);
      const HrComponent *c = g_ptr_array_index (s->model->components, 0);
      double linear = (double) hr_component_linear_params (c);

      g_assert_cmpfloat (hr_dtype_bytes_per_param (s->weights_dtype, FALSE), ==, types[i].bytes);
      g_assert_true (hr_dtype_is_quantized (s->weights_dtype));
      /* the linear layers in that type, embeddings, head and norms 16-bit */
      hr_test_assert_near (hr_test_item_bytes_basis (est, HR_BUCKET_WEIGHTS,
                                                     "frozen parameters, linear layers", NULL),
                           linear * types[i].bytes + (6738415616.0 - linear) * 2.0, 0.001);
    }
}

/* GaLore: Adam moments over rank-r projected gradients of the attention
 * and MLP matrices, plain Adam for the rest */
static void
test_galore (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (
    "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": \"train\", "
    "\"compute\": \"bf16-pure\", \"optimizer\": \"galore-adamw\", \"galore_rank\": 512, "
    "\"micro_batch\": 1, \"seq_len\": 256}");
  g_autoptr(HrEstimate) est = hr_estimate_new (s);
  double r = 512, h = 4096, I = 11008, L = 32;
  /* bf16 moments and projector: 2 bytes each */
  double attention = 4 * (2 * h * r * 2 + h * r * 2);
  double mlp = 3 * (2 * I * r * 2 + h * r * 2);
  double projected = L * (4 * h * h + 3 * h * I);
  double rest = 6738415616.0 - projected;
  double expected = L * (attention + mlp) + rest * 2 * 2;

  g_assert_cmpuint (s->galore_rank, ==, 512);
  hr_test_assert_near (hr_test_item_bytes_basis (est, HR_BUCKET_OPTIMIZER, "state", NULL), expected,
                       0.001);
  g_assert_true (has_item (est, "GaLore's projector refresh"));

  {
    g_autoptr(HrScenario) adam = hr_test_scenario (
      "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": \"train\", "
      "\"compute\": \"bf16-pure\", \"micro_batch\": 1, \"seq_len\": 256}");
    g_autoptr(HrEstimate) e_adam = hr_estimate_new (adam);

    g_assert_cmpfloat (hr_test_item_bytes_basis (est, HR_BUCKET_OPTIMIZER, "state", NULL), <,
                       0.5 * hr_test_item_bytes_basis (e_adam, HR_BUCKET_OPTIMIZER, "state", NULL));
  }
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/weights-only/parse", test_weights_only_parse);
  g_test_add_func ("/weights-only/estimate", test_weights_only_estimate);
  g_test_add_func ("/gguf/types", test_gguf_types);
  g_test_add_func ("/offload/optimizer-gradients", test_offload_gradients);
  g_test_add_func ("/loss/sum", test_loss_sum);
  g_test_add_func ("/inference/causal-mask", test_causal_mask);
  g_test_add_func ("/compute/fp8-mixed", test_fp8_mixed);
  g_test_add_func ("/weights/fp6-mx", test_fp6_mx);
  g_test_add_func ("/optimizer/galore", test_galore);

  return g_test_run ();
}
