/* test-infer.c: checkpoints quantised ahead (GPTQ, AWQ) and
 * vision-language models, in inference and in LoRA / QLoRA fine-tunes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

static HrScenario *
parse (const char  *text,
       GError     **error)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json", text, -1, error);

  if (doc == NULL)
    return NULL;
  return hr_scenario_new_from_doc (doc, hr_catalog_get_default (), error);
}

static void
expect_error (const char *text,
              const char *phrase)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = parse (text, &error);

  g_assert_null (s);
  g_assert_nonnull (error);
  if (strstr (error->message, phrase) == NULL)
    g_error ("expected \"%s\" in: %s", phrase, error->message);
  g_assert_true (g_str_has_prefix (error->message, "s.json:"));
}

static double
item_bytes (const HrEstimate *est,
            HrBucket          bucket,
            const char       *label_part)
{
  double sum = 0;

  for (guint i = 0; i < est->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->items, i);

      if (item->bucket == bucket && strstr (item->label, label_part) != NULL)
        sum += item->bytes;
    }
  return sum;
}

#define assert_near(a, b, rel) \
  G_STMT_START { \
    double a_ = (a), b_ = (b); \
    if (fabs (a_ - b_) > (rel) * fabs (b_)) \
      g_error ("%s = %.6g, expected %.6g within %.1f%%", #a, a_, b_, 100.0 * (rel)); \
  } G_STMT_END

/* Qwen3-14B (data/models.json): 40 layers, hidden 5120, 40 heads of 128,
 * 8 KV heads, gated MLP of 17408, vocabulary 151936, untied */
static const double hidden = 5120, inter = 17408, layers = 40, vocab = 151936;

static double
linear_params (void)
{
  double q = 40 * 128, kv = 8 * 128;

  return layers * (hidden * q + 2 * hidden * kv + q * hidden + 3 * hidden * inter);
}

#define QWEN3_INFER(extra) \
  "{\"headroom_scenario\": 1, \"model\": \"qwen3-14b\", \"task\": \"inference\", " \
  "\"compute\": \"bf16-pure\", \"micro_batch\": 1, \"seq_len\": 1, \"context_len\": 2049, " \
  "\"attention\": \"flash\", \"weights_dtype\": \"int4\", \"quant_compute_dtype\": \"fp16\"" extra "}"

/* GPTQ and AWQ: packed codes with an fp16 scale and a packed zero per 128
 * input rows; the output head stays 16-bit, so the staging copy is the
 * widest projection, not the head */
static void
test_packed_checkpoints (void)
{
  g_autoptr(HrScenario) bnb = hr_test_scenario (QWEN3_INFER (""));
  g_autoptr(HrScenario) awq = hr_test_scenario (QWEN3_INFER (", \"quant_method\": \"awq\""));
  g_autoptr(HrScenario) gptq8 = hr_test_scenario (
    "{\"headroom_scenario\": 1, \"model\": \"qwen3-14b\", \"task\": \"inference\", "
    "\"compute\": \"bf16-pure\", \"seq_len\": 1, \"weights_dtype\": \"int8\", "
    "\"quant_method\": \"gptq\"}");
  g_autoptr(HrEstimate) e_bnb = hr_estimate_new (bnb);
  g_autoptr(HrEstimate) e_awq = hr_estimate_new (awq);
  g_autoptr(HrEstimate) e_gptq8 = hr_estimate_new (gptq8);
  double rest = (double) awq->model->params - linear_params ();

  g_assert_cmpint (bnb->quant_method, ==, HR_QUANT_METHOD_BITSANDBYTES);
  g_assert_cmpint (awq->quant_method, ==, HR_QUANT_METHOD_AWQ);
  assert_near (item_bytes (e_awq, HR_BUCKET_WEIGHTS, "linear layers in int4"),
               linear_params () * (0.5 + 2.5 / 128) + rest * 2, 0.001);
  assert_near (item_bytes (e_gptq8, HR_BUCKET_WEIGHTS, "linear layers in int8"),
               linear_params () * (1.0 + 3.0 / 128) + rest * 2, 0.001);
  /* bitsandbytes: one fp32 absmax per 64 */
  assert_near (item_bytes (e_bnb, HR_BUCKET_WEIGHTS, "linear layers in int4"),
               linear_params () * (0.5 + 4.0 / 64) + rest * 2, 0.001);

  /* the 16-bit staging copy: the generic estimate allows for a quantised
   * head (LitGPT's bitsandbytes layers); a GPTQ or AWQ checkpoint never
   * quantises it */
  assert_near (item_bytes (e_bnb, HR_BUCKET_WEIGHTS, "16-bit copy"), 2 * hidden * vocab, 0.001);
  assert_near (item_bytes (e_awq, HR_BUCKET_WEIGHTS, "16-bit copy"), 2 * hidden * inter, 0.001);
  assert_near (item_bytes (e_gptq8, HR_BUCKET_WEIGHTS, "16-bit copy"), 2 * hidden * inter, 0.001);
  g_assert_cmpuint (e_awq->allocated_peak, <, e_bnb->allocated_peak);
}

/* AutoAWQ's fuse_layers (awq/models/llama.py @8110e02, fuse_qkv): while
 * the layers are fused the GPU holds the loaded weights, every layer's
 * fused q/k/v copy (and the last one's zero buffers) and the fused blocks'
 * caches; with one new token that loading peak is the run's
 * max_memory_allocated */
static void
test_fused_layers_load (void)
{
  g_autoptr(HrScenario) plain = hr_test_scenario (QWEN3_INFER (", \"quant_method\": \"awq\""));
  g_autoptr(HrScenario) fused = hr_test_scenario (
    QWEN3_INFER (", \"quant_method\": \"awq\", \"fuse_layers\": true"));
  g_autoptr(HrEstimate) e_plain = hr_estimate_new (plain);
  g_autoptr(HrEstimate) e_fused = hr_estimate_new (fused);
  double qkv = hidden * 128 * (40 + 2 * 8) * (0.5 + 2.5 / 128);
  double resident = item_bytes (e_fused, HR_BUCKET_WEIGHTS, "linear layers in int4") +
                    item_bytes (e_fused, HR_BUCKET_ACTIVATIONS, "KV cache");

  g_assert_cmpfloat (item_bytes (e_plain, HR_BUCKET_WEIGHTS, "fusing the layers"), ==, 0);
  g_assert_cmpfloat (item_bytes (e_fused, HR_BUCKET_WEIGHTS, "fusing the layers"), >, 0);
  assert_near ((double) e_fused->allocated_peak, resident + (layers + 1) * qkv, 0.001);
  g_assert_cmpuint (e_fused->allocated_peak, >, e_plain->allocated_peak);
}

static void
test_quant_method_keys (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (QWEN3_INFER (", \"quant_method\": \"gptq\""));
  g_autoptr(JsonNode) node = hr_scenario_to_json (s);
  g_autofree char *text = json_to_string (node, FALSE);
  g_autoptr(HrScenario) back = hr_test_scenario (text);

  g_assert_cmpint (back->quant_method, ==, HR_QUANT_METHOD_GPTQ);
  g_assert_nonnull (strstr (text, "\"quant_method\":\"gptq\""));

  expect_error (QWEN3_INFER (", \"quant_method\": \"gptqq\""), "quant_method");
  expect_error ("{\"headroom_scenario\": 1, \"model\": \"qwen3-14b\", \"task\": \"inference\", "
                "\"weights_dtype\": \"int8\", \"quant_method\": \"awq\"}",
                "AWQ checkpoints are 4-bit");
  expect_error ("{\"headroom_scenario\": 1, \"model\": \"qwen3-14b\", \"task\": \"inference\", "
                "\"weights_dtype\": \"nf4\", \"quant_method\": \"gptq\"}",
                "\"quant_method\" \"gptq\" needs \"weights_dtype\" int4 or int8");
  expect_error ("{\"headroom_scenario\": 1, \"model\": \"qwen3-14b\", \"task\": \"inference\", "
                "\"weights_dtype\": \"bf16\", \"quant_method\": \"gptq\"}",
                "\"quant_method\" \"gptq\" needs \"weights_dtype\" int4 or int8");
}

#define QWEN3_QLORA(extra) \
  "{\"headroom_scenario\": 1, \"model\": \"qwen3-14b\", \"task\": \"finetune\", " \
  "\"method\": \"qlora\", \"compute\": \"fp16-mixed\", \"micro_batch\": 1, \"seq_len\": 512, " \
  "\"attention\": \"flash\", \"weights_dtype\": \"int4\", \"quant_compute_dtype\": \"fp16\"" extra "}"

/* AutoGPTQ's torch path keeps each quantised layer's fp16 weight for the
 * backward pass; AutoAWQ's autograd function keeps the packed codes */
static void
test_gptq_backward (void)
{
  g_autoptr(HrScenario) full = hr_test_scenario (
    QWEN3_QLORA (", \"quant_method\": \"gptq\", \"recompute\": \"full\""));
  g_autoptr(HrScenario) none = hr_test_scenario (
    QWEN3_QLORA (", \"quant_method\": \"gptq\", \"recompute\": \"none\""));
  g_autoptr(HrScenario) awq = hr_test_scenario (
    QWEN3_QLORA (", \"quant_method\": \"awq\", \"recompute\": \"full\""));
  g_autoptr(HrEstimate) e_full = hr_estimate_new (full);
  g_autoptr(HrEstimate) e_none = hr_estimate_new (none);
  g_autoptr(HrEstimate) e_awq = hr_estimate_new (awq);

  assert_near (item_bytes (e_full, HR_BUCKET_ACTIVATIONS, "AutoGPTQ dequantises"),
               2 * linear_params () / layers, 0.001);
  assert_near (item_bytes (e_none, HR_BUCKET_ACTIVATIONS, "AutoGPTQ dequantises"),
               2 * linear_params (), 0.001);
  g_assert_cmpfloat (item_bytes (e_awq, HR_BUCKET_ACTIVATIONS, "AutoGPTQ dequantises"), ==, 0);
}

#define QWEN_VL(extra) \
  "{\"headroom_scenario\": 1, \"model\": \"qwen-vl-chat\", \"micro_batch\": 1, " \
  "\"seq_len\": 1024, \"attention\": \"flash\", " extra "}"

/* A vision-language model: the vision tower runs over its patches, the
 * language model over the sequence (image tokens included); the loss and
 * the next-token logits are the language model's, as for an LLM */
static void
test_vlm (void)
{
  g_autoptr(HrScenario) infer = hr_test_scenario (
    QWEN_VL ("\"task\": \"inference\", \"compute\": \"bf16-pure\", \"context_len\": 1025"));
  g_autoptr(HrScenario) lora = hr_test_scenario (
    QWEN_VL ("\"task\": \"finetune\", \"method\": \"lora\", \"compute\": \"bf16-mixed\", "
             "\"lora\": {\"rank\": 64, \"targets\": \"all-linear\"}, \"recompute\": \"full\""));
  g_autoptr(HrEstimate) e_infer = hr_estimate_new (infer);
  g_autoptr(HrEstimate) e_lora = hr_estimate_new (lora);
  /* Qwen-7B: 32 layers of q, k, v, o (4096 x 4096) and w1, w2, c_proj
   * (4096 x 11008), rank 64 */
  double adapters = 32 * 64 * (4 * (4096 + 4096) + 3 * (4096 + 11008));

  g_assert_cmpstr (infer->model->family, ==, "vlm");
  /* generate() keeps the last position's logits, upcast to fp32 */
  assert_near (item_bytes (e_infer, HR_BUCKET_ACTIVATIONS, "next-token logits"),
               151936 * (2 + 4.0), 0.001);
  g_assert_cmpfloat (item_bytes (e_infer, HR_BUCKET_ACTIVATIONS, "KV cache"), >, 0);
  g_assert_cmpstr (e_infer->range_kind, ==, "transformer-inference");

  /* the loss over the vocabulary at every position */
  g_assert_cmpfloat (item_bytes (e_lora, HR_BUCKET_ACTIVATIONS, "vocabulary"), >,
                     1024 * 151936 * 4.0);
  /* adapters on the language model only: the vision tower is frozen and
   * named apart (Qwen-VL's finetune.py, LLaVA's find_all_linear_names) */
  assert_near (item_bytes (e_lora, HR_BUCKET_WEIGHTS, "trainable adapter"), 2 * adapters, 0.001);
  /* (the count after it is written in the locale's digits) */
  g_assert_cmpfloat (item_bytes (e_lora, HR_BUCKET_WEIGHTS, "vision encoder (ViT-bigG/14 + "
                                 "resampler): "), >, 0);
  g_assert_cmpstr (e_lora->range_kind, ==, "transformer-train");
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/infer/packed-checkpoints", test_packed_checkpoints);
  g_test_add_func ("/infer/quant-method-keys", test_quant_method_keys);
  g_test_add_func ("/infer/fused-layers-load", test_fused_layers_load);
  g_test_add_func ("/infer/gptq-backward", test_gptq_backward);
  g_test_add_func ("/infer/vlm", test_vlm);

  return g_test_run ();
}
