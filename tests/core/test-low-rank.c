/* test-low-rank.c: the optimizers that keep Adam's moments in a low-rank
 * space (Q-GaLore, APOLLO, APOLLO-Mini) and Q-GaLore's int8 weights
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

#define LLAMA7B_PARAMS 6738415616.0

/* LLaMA-2-7B's projected matrices: q, k, v, o (h x h) and gate, up, down
 * (h x I) in each of 32 layers */
static const double h = 4096, I = 11008, L = 32;

static double
projected_params (void)
{
  return L * (4 * h * h + 3 * h * I);
}

/* Moments (2 max(m, n) r) and projector (min(m, n) r) of every projected
 * matrix at rank r, in bytes a value of each */
static double
low_rank_bytes (double r,
                double moment,
                double projector)
{
  double attention = 4 * (2 * h * MIN (r, h) * moment + h * MIN (r, h) * projector);
  double mlp = 3 * (2 * I * MIN (r, h) * moment + h * MIN (r, h) * projector);

  return L * (attention + mlp);
}

#define LLAMA_TRAIN "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"task\": \"train\", " \
                    "\"compute\": \"bf16-pure\", \"micro_batch\": 1, \"seq_len\": 256, "

/* Q-GaLore: 8-bit moments, 4-bit projector codes one a byte with an fp32
 * scale and zero per 256, int8 linears with the same per 256 */
static void
test_q_galore (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (
    LLAMA_TRAIN "\"optimizer\": \"q-galore-adamw-8bit\", \"galore_rank\": 1024}");
  g_autoptr(HrEstimate) est = hr_estimate_new (s);
  g_autoptr(HrScenario) g = hr_test_scenario (
    LLAMA_TRAIN "\"optimizer\": \"galore-adamw-8bit\", \"galore_rank\": 1024}");
  g_autoptr(HrEstimate) e_g = hr_estimate_new (g);
  double bnb8 = 1.0 + 4.0 / 256, proj = 1.0 + 8.0 / 256;
  double rest = LLAMA7B_PARAMS - projected_params ();

  g_assert_true (hr_scenario_int8_weights (s));
  g_assert_false (hr_scenario_int8_weights (g));
  hr_test_assert_near (hr_test_item_bytes (est, HR_BUCKET_OPTIMIZER, "state"),
                       low_rank_bytes (1024, bnb8, proj) + rest * 2 * bnb8, 0.001);
  /* GaLore 8-bit keeps its projector in bf16 */
  hr_test_assert_near (hr_test_item_bytes (e_g, HR_BUCKET_OPTIMIZER, "state"),
                       low_rank_bytes (1024, bnb8, 2) + rest * 2 * bnb8, 0.001);
  /* weights: int8 linears, the embedding, head and norms in bf16 */
  hr_test_assert_near (hr_test_item_bytes (est, HR_BUCKET_WEIGHTS, "in int8"),
                       projected_params () * (1 + 8.0 / 256) + rest * 2, 0.001);
  hr_test_assert_near (hr_test_item_bytes (e_g, HR_BUCKET_WEIGHTS, "trainable"), LLAMA7B_PARAMS * 2,
                       0.001);
  /* the SVD refresh is GaLore's */
  g_assert_cmpfloat (hr_test_item_bytes (est, HR_BUCKET_OPTIMIZER, "projector refresh"), >, 0);

  {
    /* without --weight_quant the linears stay bf16 */
    g_autoptr(HrScenario) off = hr_test_scenario (
      LLAMA_TRAIN "\"optimizer\": \"q-galore-adamw-8bit\", \"int8_weights\": false}");
    g_autoptr(HrEstimate) e_off = hr_estimate_new (off);

    g_assert_false (hr_scenario_int8_weights (off));
    hr_test_assert_near (hr_test_item_bytes (e_off, HR_BUCKET_WEIGHTS, "trainable"),
                         LLAMA7B_PARAMS * 2, 0.001);
  }
}

/* APOLLO: GaLore's state at apollo_rank in the gradient's dtype, no SVD;
 * APOLLO-Mini at rank 1 */
static void
test_apollo (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (
    LLAMA_TRAIN "\"optimizer\": \"apollo-adamw\"}");
  g_autoptr(HrEstimate) est = hr_estimate_new (s);
  g_autoptr(HrScenario) mini = hr_test_scenario (
    LLAMA_TRAIN "\"optimizer\": \"apollo-mini\"}");
  g_autoptr(HrEstimate) e_mini = hr_estimate_new (mini);
  double rest = LLAMA7B_PARAMS - projected_params ();

  /* scripts/pretrain_c4/llama_7b_apollo.sh: rank 256 */
  g_assert_cmpuint (s->apollo_rank, ==, 256);
  hr_test_assert_near (hr_test_item_bytes (est, HR_BUCKET_OPTIMIZER, "state"),
                       low_rank_bytes (256, 2, 2) + rest * 2 * 2, 0.001);
  hr_test_assert_near (hr_test_item_bytes (e_mini, HR_BUCKET_OPTIMIZER, "state"),
                       low_rank_bytes (1, 2, 2) + rest * 2 * 2, 0.001);
  g_assert_cmpfloat (hr_test_item_bytes (est, HR_BUCKET_OPTIMIZER, "projector refresh"), ==, 0);
  /* the step's fp32 copy of the largest gradient (an MLP matrix) */
  hr_test_assert_near (hr_test_item_bytes (est, HR_BUCKET_OPTIMIZER, "APOLLO's step"), 4 * h * I,
                       0.001);
  g_assert_false (hr_scenario_int8_weights (s));

  {
    /* Q-APOLLO-Mini per layer: int8 linears, fp32 rank-1 moments, bnb
     * Adam8bit for the rest */
    g_autoptr(HrScenario) q = hr_test_scenario (
      LLAMA_TRAIN "\"optimizer\": \"apollo-mini\", \"int8_weights\": true, "
      "\"int8_weight_group\": 128, \"optimizer_in_bwd\": true}");
    g_autoptr(HrEstimate) e_q = hr_estimate_new (q);
    double bnb8 = 1.0 + 4.0 / 256;

    hr_test_assert_near (hr_test_item_bytes (e_q, HR_BUCKET_OPTIMIZER, "state"),
                         low_rank_bytes (1, 4, 2) + rest * 2 * bnb8, 0.001);
    hr_test_assert_near (hr_test_item_bytes (e_q, HR_BUCKET_WEIGHTS, "in int8"),
                         projected_params () * (1 + 8.0 / 128) + rest * 2, 0.001);
  }
}

static void
test_keys (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario (
    LLAMA_TRAIN "\"optimizer\": \"apollo-adamw\", \"apollo_rank\": 128, \"int8_weights\": true}");
  g_autoptr(JsonNode) node = hr_scenario_to_json (s);
  g_autofree char *text = json_to_string (node, FALSE);
  g_autoptr(HrScenario) back = hr_test_scenario (text);

  g_assert_cmpuint (s->apollo_rank, ==, 128);
  g_assert_cmpuint (back->apollo_rank, ==, 128);
  g_assert_true (hr_scenario_int8_weights (back));

  hr_test_expect_scenario_error (LLAMA_TRAIN "\"optimizer\": \"apollo-mini\", \"apollo_rank\": 4}",
                                 "APOLLO-Mini projects to rank 1");
  hr_test_expect_scenario_error (LLAMA_TRAIN "\"optimizer\": \"adamw\", \"apollo_rank\": 4}",
                                 "\"apollo_rank\" is APOLLO's");
  hr_test_expect_scenario_error (LLAMA_TRAIN
                                 "\"optimizer\": \"galore-adamw-8bit\", \"int8_weights\": true}",
                                 "\"int8_weights\" holds the trained linears in int8");
  hr_test_expect_scenario_error (LLAMA_TRAIN
                                 "\"optimizer\": \"apollo-mini\", \"int8_weight_group\": 64}",
                                 "it needs \"int8_weights\"");
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/optimizer/q-galore", test_q_galore);
  g_test_add_func ("/optimizer/apollo", test_apollo);
  g_test_add_func ("/optimizer/low-rank-keys", test_keys);

  return g_test_run ();
}
