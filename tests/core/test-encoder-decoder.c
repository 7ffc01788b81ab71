/* test-encoder-decoder.c: Whisper-style encoder-decoder inference with
 * beams, and CTranslate2's compute types
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

#define WHISPER "{\"headroom_scenario\": 1, \"model\": \"whisper-large-v2\", " \
                "\"task\": \"inference\", \"micro_batch\": 2, \"seq_len\": 448, "

/* large-v2's decoder: 32 layers of width 1280 over 1500 audio tokens */
static const double L = 32, h = 1280, T = 1500;

/* CTranslate2 keeps one cross-attention copy per sequence; transformers
 * one per beam */
static void
test_cross_attention (void)
{
  g_autoptr(HrScenario) ct2 = hr_test_scenario (
    WHISPER "\"engine\": \"ctranslate2\", \"compute_type\": \"float16\"}");
  g_autoptr(HrEstimate) e_ct2 = hr_estimate_new (ct2);
  g_autoptr(HrScenario) hf = hr_test_scenario (
    WHISPER "\"compute\": \"fp16-pure\", \"weights_dtype\": \"fp16\", \"kv_dtype\": \"fp16\", "
    "\"beams\": 5}");
  g_autoptr(HrEstimate) e_hf = hr_estimate_new (hf);
  double cross = T * L * 2 * h * 2;     /* per sequence, fp16 */
  double self_kv = 448 * L * 2 * h * 2; /* per row */

  /* faster-whisper's default beam_size 5 */
  g_assert_cmpuint (hr_scenario_get_beams (ct2), ==, 5);
  g_assert_cmpuint (hr_scenario_get_beams (hf), ==, 5);
  hr_test_assert_near (hr_test_item_bytes (e_ct2, HR_BUCKET_ACTIVATIONS, "cross-attention"),
                       2 * cross, 0.001);
  hr_test_assert_near (hr_test_item_bytes (e_hf, HR_BUCKET_ACTIVATIONS, "cross-attention"),
                       2 * 5 * cross, 0.001);
  hr_test_assert_near (hr_test_item_bytes (e_ct2, HR_BUCKET_ACTIVATIONS, "self-attention cache"),
                       2 * 5 * self_kv, 0.001);
  hr_test_assert_near (hr_test_item_bytes (e_hf, HR_BUCKET_ACTIVATIONS, "self-attention cache"),
                       2 * 5 * self_kv, 0.001);
  /* transformers keeps the encoder's output for every beam */
  hr_test_assert_near (hr_test_item_bytes (e_hf, HR_BUCKET_ACTIVATIONS, "repeated for every beam"),
                       5 * 2 * T * h * 2, 0.001);
  g_assert_cmpfloat (hr_test_item_bytes (e_ct2, HR_BUCKET_ACTIVATIONS, "repeated for every beam"),
                     ==, 0);

  {
    /* greedy decoding by default outside CTranslate2 */
    g_autoptr(HrScenario) greedy = hr_test_scenario (
      WHISPER "\"compute\": \"fp16-pure\", \"weights_dtype\": \"fp16\", \"kv_dtype\": \"fp16\"}");
    g_autoptr(HrEstimate) e_g = hr_estimate_new (greedy);

    g_assert_cmpuint (hr_scenario_get_beams (greedy), ==, 1);
    hr_test_assert_near (hr_test_item_bytes (e_g, HR_BUCKET_ACTIVATIONS, "cross-attention"),
                         2 * cross, 0.001);
  }
}

/* int8 embedding and linear weights (self- and cross-attention, MLP) with
 * a scale per row; the rest in the float type */
static void
test_compute_type (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (
    WHISPER "\"engine\": \"ctranslate2\", \"compute_type\": \"int8\"}");
  g_autoptr(HrEstimate) est = hr_estimate_new (s);
  double enc_linear = L * 12 * h * h;
  double dec_linear = L * 16 * h * h + 51865 * h;
  double enc = 636784640, dec = 906520320;
  double expected = (enc_linear + dec_linear) * (1 + 4.0 / h) +
                    (enc - enc_linear + dec - dec_linear) * 2;

  g_assert_cmpint (s->weights_dtype, ==, HR_DTYPE_INT8);
  g_assert_cmpint (s->compute, ==, HR_COMPUTE_FP16_PURE);
  hr_test_assert_near (hr_test_item_bytes (est, HR_BUCKET_WEIGHTS, "CTranslate2 int8"), expected,
                       0.001);

  {
    g_autoptr(JsonNode) node = hr_scenario_to_json (s);
    g_autofree char *text = json_to_string (node, FALSE);
    g_autoptr(HrScenario) back = hr_test_scenario (text);

    g_assert_cmpint (back->engine, ==, HR_ENGINE_CTRANSLATE2);
    g_assert_cmpint (back->ct2_compute_type, ==, HR_CT2_INT8);
    g_assert_cmpint (back->weights_dtype, ==, HR_DTYPE_INT8);
  }

  {
    /* a float32 cache has no kv_dtype name: the saved file must not say fp16 */
    g_autoptr(HrScenario) f32 = hr_test_scenario (
      WHISPER "\"engine\": \"ctranslate2\", \"compute_type\": \"float32\"}");
    g_autoptr(JsonNode) node = hr_scenario_to_json (f32);
    JsonObject *o = json_node_get_object (node);

    g_assert_false (json_object_has_member (o, "kv_dtype"));
    g_assert_cmpstr (json_object_get_string_member (o, "compute_type"), ==, "float32");
  }

  hr_test_expect_scenario_error (WHISPER "\"compute_type\": \"int8\"}",
                                 "\"compute_type\" is CTranslate2's");
  hr_test_expect_scenario_error (WHISPER "\"engine\": \"ctranslate2\", \"compute_type\": \"int8\", "
                                 "\"weights_dtype\": \"fp16\"}", "disagrees with CTranslate2's");
  hr_test_expect_scenario_error (
      "{\"headroom_scenario\": 1, \"model\": \"whisper-large-v2\", \"task\": \"train\", "
      "\"beams\": 4}",
      "\"beams\" is beam search");
}

/* the catalog's Whisper sizes, counted from the model card's shapes */
static void
test_catalog (void)
{
  static const struct { const char *id; guint64 params; guint dec_layers; } sizes[] = {
    { "whisper-tiny", 37760640, 4 },
    { "whisper-base", 72593920, 6 },
    { "whisper-large-v2", 1543304960, 32 },
    { "whisper-large-v3-turbo", 808878080, 4 },
    { "distil-whisper-large-v3", 756405760, 2 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const HrModel *m = hr_catalog_find_model (hr_catalog_get_default (), sizes[i].id);
      const HrComponent *dec;

      g_assert_nonnull (m);
      g_assert_cmpuint (m->params, ==, sizes[i].params);
      g_assert_cmpuint (m->components->len, ==, 2);
      dec = g_ptr_array_index (m->components, 1);
      g_assert_cmpuint (dec->layers, ==, sizes[i].dec_layers);
      g_assert_cmpuint (dec->cross_attention_tokens, ==, 1500);
    }
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/encoder-decoder/cross-attention", test_cross_attention);
  g_test_add_func ("/encoder-decoder/ctranslate2-compute-type", test_compute_type);
  g_test_add_func ("/encoder-decoder/catalog", test_catalog);

  return g_test_run ();
}
