/* test-fit-rule.c: the one rule that decides a fit, and the settings
 * table the window and the levers use
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static void
set_gpu (HrScenario *s,
         const char *id)
{
  g_clear_pointer (&s->gpu, hr_gpu_free);
  s->gpu = hr_gpu_copy (hr_catalog_find_gpu (hr_catalog_get_default (), id));
  g_assert_nonnull (s->gpu);
}

static void
limit_of (const HrScenario *s,
          HrFitLimit       *limit)
{
  g_autoptr(HrPlan) plan = hr_plan_new (s);
  HrPeak peak;

  hr_plan_peak (plan, s->micro_batch, &peak);
  hr_fit_rule_limit (s, s->gpu, &peak, limit);
}

/* XLA's pool is the limit under JAX, with the reserve outside it and not
 * taken a second time inside (the BFC allocator's limit is
 * memory_fraction × total, preallocated or not: openxla/xla
 * gpu_helpers.cc). */
static void
test_xla_pool (void)
{
  g_autoptr(HrScenario) s = hr_test_load_example ("dreamerv3-5090d.json");
  HrFitLimit limit;
  g_autofree char *words = NULL;

  set_gpu (s, "rtx-4090");
  limit_of (s, &limit);
  g_assert_true (limit.has_pool);
  g_assert_true (limit.pool_limits);
  g_assert_cmpuint (limit.usable, ==, (guint64) (0.75 * s->gpu->memory));
  /* The CUDA context lives beside the pool. */
  g_assert_cmpfloat (limit.outside, >, 0.2 * GiB);
  g_assert_cmpfloat (limit.outside, <, 1.5 * GiB);
  words = hr_fit_rule_describe (&limit, HR_SIZE_GIB);
  g_assert_nonnull (strstr (words, "XLA_PYTHON_CLIENT_MEM_FRACTION"));
  g_assert_nonnull (strstr (words, "75%"));

  /* Preallocation changes what nvidia-smi shows, not the limit. */
  s->jax_preallocate = FALSE;
  {
    HrFitLimit off;

    limit_of (s, &off);
    g_assert_cmpuint (off.usable, ==, limit.usable);
  }
  s->jax_preallocate = TRUE;

  /* A pool of 95% leaves less outside than the reserve: the reserve and
   * the CUDA context limit then. */
  s->jax_mem_fraction = 0.95;
  limit_of (s, &limit);
  g_assert_false (limit.pool_limits);
  g_assert_cmpuint (limit.usable, ==, (guint64) (0.9 * s->gpu->memory - limit.outside));
}

/* PyTorch has no pool: the card less the reserve, the need with the CUDA
 * context in it. */
static void
test_no_pool (void)
{
  g_autoptr(HrScenario) s = hr_test_load_example ("smolvla-4090.json");
  g_autoptr(HrPlan) plan = hr_plan_new (s);
  HrFitLimit limit;
  HrPeak peak;

  hr_plan_peak (plan, s->micro_batch, &peak);
  hr_fit_rule_limit (s, s->gpu, &peak, &limit);
  g_assert_false (limit.has_pool);
  g_assert_cmpuint (limit.usable, ==, (guint64) (0.9 * s->gpu->memory));
  g_assert_cmpuint (hr_fit_rule_need (s, &peak), ==, peak.device_used);
}

/* The estimate's own fit is the rule's. */
static void
test_estimate_uses_the_rule (void)
{
  const char *names[] = { "dreamerv3-5090d.json", "llama-3.1-8b-lora-4090.json",
                          "pi05-fp32.json" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(HrScenario) s = hr_test_load_example (names[i]);
      g_autoptr(HrEstimate) est = hr_estimate_new (s);
      HrFitLimit limit;

      limit_of (s, &limit);
      g_assert_cmpuint (est->usable, ==, limit.usable);
      g_assert_cmpint (est->fits, ==, est->need <= limit.usable);
      /* the verdict says how the usable memory was reached */
      g_assert_nonnull (strstr (est->fit_reason, "GiB usable:"));
    }
}

/* The shipped inference examples served by @engine. */
static HrScenario *
load_served (const char *name,
             HrEngine    engine)
{
  HrScenario *s = hr_test_load_example (name);

  s->engine = engine;
  hr_scenario_resolve (s);
  return s;
}

/* A serving engine's pool is the limit: vLLM takes gpu_memory_utilization
 * of the card and fills it with KV cache, and refuses to start unless one
 * request of max_model_len fits in what the model leaves
 * (vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory); the CUDA
 * graphs lie beside the pool, so the reserve and the graphs bound it too. */
static void
test_engine_pool (void)
{
  g_autoptr(HrScenario) s = load_served ("llama-2-13b-4bit-inference.json", HR_ENGINE_VLLM);
  g_autoptr(HrPlan) plan = hr_plan_new (s);
  g_autoptr(HrEstimate) est = hr_estimate_new (s);
  HrFitLimit limit;
  HrPeak one, two;
  guint found, b;
  double card = (double) s->gpu->memory;
  /* Llama 2 13B: K and V of 40 layers x 40 heads x 128 in bf16, 4096
   * tokens (a whole number of 16-token blocks) */
  double sequence = 40.0 * 40 * 256 * 2 * 4096;

  hr_plan_peak (plan, 1, &one);
  hr_plan_peak (plan, 2, &two);
  hr_fit_rule_limit (s, s->gpu, &one, &limit);
  g_assert_true (limit.has_pool);
  g_assert_cmpstr (limit.pool_variable, ==, "gpu_memory_utilization");
  g_assert_cmpuint (limit.pool, ==, (guint64) (0.9 * card));
  /* the CUDA graphs lie beside the pool; with the default 0.9 they reach
   * into the 10% reserve, so the card less both is the limit */
  g_assert_cmpfloat (limit.outside, >=, 0.1 * GiB);
  g_assert_cmpfloat (limit.outside, <=, 2.0 * GiB);
  g_assert_false (limit.pool_limits);
  g_assert_cmpuint (limit.usable, ==, (guint64) (0.9 * card) - limit.outside);
  /* each sequence more needs one more sequence's KV cache in the pool */
  g_assert_cmpfloat (fabs ((double) two.need - one.need - sequence), <, 1.0);
  /* what nvidia-smi shows is the pool and the graphs, whatever the need */
  g_assert_cmpfloat (fabs ((double) one.device_used - 0.9 * card - limit.outside), <, 2.0);
  g_assert_cmpuint (one.device_used, ==, two.device_used);

  /* the estimate's verdict and the largest concurrency are the rule's */
  g_assert_cmpuint (est->usable, ==, limit.usable);
  g_assert_true (est->fits);
  found = hr_fit_rule_plan_max_micro_batch (plan, limit.usable, NULL);
  for (b = 1; b < 4096; b++)
    {
      HrPeak peak;

      hr_plan_peak (plan, b, &peak);
      if (hr_fit_rule_need (s, &peak) > limit.usable)
        break;
    }
  g_assert_cmpuint (found, ==, b - 1);
  g_assert_cmpuint (est->max_micro_batch, ==, found);
  /* one sequence more than the search found would not fit in the pool's
   * KV cache: the number follows the pool, not the card */
  g_assert_cmpfloat ((double) one.need + (found - 1) * sequence, <=, limit.usable);
  g_assert_cmpfloat ((double) one.need + found * sequence, >, limit.usable);

  /* a smaller pool holds fewer sequences; a larger one, up to the card's
   * limit, more */
  {
    g_autoptr(HrScenario) small = hr_scenario_copy (s);
    g_autoptr(HrEstimate) es = NULL;

    small->gpu_memory_utilization = 0.6;
    small->gpu_memory_utilization_set = TRUE;
    es = hr_estimate_new (small);
    g_assert_cmpuint (es->usable, ==, (guint64) (0.6 * card));
    g_assert_cmpuint (es->max_micro_batch, <, est->max_micro_batch);
    g_assert_nonnull (strstr (es->fit_reason, "gpu_memory_utilization"));
  }
}

/* Seed 004: LLaMA-2-70B in fp16 needs about 140 GB for its weights: more
 * than 90% of an H200, so vLLM finds no room for the cache blocks, and
 * over two cards (tensor parallel) it serves. */
static void
test_engine_pool_does_not_fit (void)
{
  for (guint e = 0; e < 2; e++)
    {
      HrEngine engine = e == 0 ? HR_ENGINE_VLLM : HR_ENGINE_SGLANG;
      g_autoptr(HrScenario) s = load_served ("llama-2-70b-fp16-inference.json", engine);
      g_autoptr(HrScenario) tp = NULL;
      g_autoptr(HrEstimate) est = hr_estimate_new (s);
      g_autoptr(HrEstimate) etp = NULL;
      g_autoptr(HrAnalysis) analysis = NULL;
      const HrAnalysisGpu *own;

      g_assert_false (est->fits);
      g_assert_cmpuint (est->max_micro_batch, ==, 0);
      g_assert_cmpfloat (est->buckets[HR_BUCKET_WEIGHTS], >, 0.9 * s->gpu->memory);

      analysis = hr_analysis_new (s, NULL);
      own = hr_analysis_get_own_gpu (analysis);
      g_assert_nonnull (own);
      g_assert_false (own->fits);
      g_assert_true (own->limit.has_pool);
      g_assert_nonnull (strstr (own->verdict, "not even one sequence"));

      tp = hr_scenario_copy (s);
      tp->tensor_parallel = 2;
      tp->gpus = 2;
      hr_scenario_resolve (tp);
      etp = hr_estimate_new (tp);
      g_assert_true (etp->fits);
      g_assert_cmpuint (etp->max_micro_batch, >, 1);
    }
}

static guint64
line_need (guint    b,
           gpointer user_data)
{
  guint *calls = user_data;

  (*calls)++;
  return 1000 + 37 * (guint64) b + (b > 500 ? 5000 : 0);
}

/* The search is exact: it agrees with counting up, on the shipped examples
 * and on a need with a step, and takes few evaluations on a line. */
static void
test_max_micro_batch_exact (void)
{
  const char *names[] = { "bert-base-finetune.json", "resnet-50-train.json",
                          "sd-1.5-lora-3060.json", "llama-2-13b-4bit-inference.json",
                          "dreamerv3-5090d.json" };
  guint calls = 0;
  guint best;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(HrScenario) s = hr_test_load_example (names[i]);
      g_autoptr(HrPlan) plan = hr_plan_new (s);
      HrFitLimit limit;
      HrPeak peak;
      guint found, b;

      hr_plan_peak (plan, s->micro_batch, &peak);
      hr_fit_rule_limit (s, s->gpu, &peak, &limit);
      found = hr_fit_rule_plan_max_micro_batch (plan, limit.usable, NULL);
      for (b = 1; b < 4096; b++)
        {
          hr_plan_peak (plan, b, &peak);
          if (hr_fit_rule_need (s, &peak) > limit.usable)
            break;
        }
      g_assert_cmpuint (found, ==, b - 1);
    }

  best = hr_fit_rule_max_micro_batch (line_need, &calls, 1000 + 37 * 300, 16, NULL);
  g_assert_cmpuint (best, ==, 300);
  g_assert_cmpuint (calls, <=, 4);
  calls = 0;
  best = hr_fit_rule_max_micro_batch (line_need, &calls, 1000 + 37 * 700, 16, NULL);
  g_assert_cmpuint (best, ==, 500 + (37 * 700 - 37 * 500 - 5000) / 37);
  g_assert_cmpuint (hr_fit_rule_max_micro_batch (line_need, &calls, 999, 16, NULL), ==, 0);
}

/* jax_mem_fraction is read and written by the settings table. */
static void
test_setting_json (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                              "\"dreamerv3-200m\", \"jax_mem_fraction\": 0.9}");
  g_autoptr(HrScenario) d = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                              "\"dreamerv3-200m\"}");
  g_autoptr(JsonNode) saved = hr_scenario_to_json (s);
  g_autoptr(JsonNode) plain = hr_scenario_to_json (d);
  g_autoptr(HrJsonDoc) bad = hr_json_doc_load_data ("bad.json",
                                                    "{\"headroom_scenario\": 1, \"model\": "
                                                    "\"dreamerv3-200m\",\n\"jax_mem_fraction\": "
                                                    "1.5}", -1, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) none = NULL;

  g_assert_cmpfloat (s->jax_mem_fraction, ==, 0.9);
  g_assert_cmpfloat (d->jax_mem_fraction, ==, 0.75);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (saved),
                                                    "jax_mem_fraction"), ==, 0.9);
  /* the default is not written back */
  g_assert_false (json_object_has_member (json_node_get_object (plain), "jax_mem_fraction"));

  none = hr_scenario_new_from_doc (bad, hr_catalog_get_default (), &error);
  g_assert_null (none);
  g_assert_true (g_str_has_prefix (error->message, "bad.json:2:"));
  g_assert_nonnull (strstr (error->message, "jax_mem_fraction"));
}

/* Every setting reads back what it wrote, and the drop-downs' choices are
 * values of their enumerations. */
static void
test_settings_table (void)
{
  g_autoptr(HrScenario) s = hr_test_load_example ("llama-3.1-8b-lora-4090.json");
  guint n;
  const HrSetting *all = hr_settings_get_all (&n);

  g_assert_cmpuint (n, >, 15);
  for (guint i = 0; i < n; i++)
    {
      const HrSetting *setting = &all[i];

      g_assert_true (hr_setting_find (setting->key) == setting);
      if (setting->kind == HR_SETTING_ENUM)
        {
          /* ... and every value a file may name is one of them: a drop-down
           * never shows a scenario's value as another. */
          for (guint v = 0; setting->names[v].nick != NULL; v++)
            {
              gboolean listed = FALSE;

              for (guint c = 0; setting->choices[c].label != NULL; c++)
                listed |= setting->choices[c].value == setting->names[v].value;
              if (!listed)
                g_error ("%s: \"%s\" is not among the drop-down's choices", setting->key,
                         setting->names[v].nick);
            }
          for (guint c = 0; setting->choices[c].label != NULL; c++)
            {
              /* every choice has a name in the file, but LoRA's own list
               * of modules, which is written as that list */
              if (!(g_str_equal (setting->key, "lora.targets") &&
                    setting->choices[c].value == HR_LORA_TARGETS_CUSTOM))
                g_assert_nonnull (hr_enum_to_nick (setting->names, setting->choices[c].value));
              hr_setting_set (setting, s, setting->choices[c].value);
              /* resolved values (weights, optimizer) may follow others */
              if (setting->set_offset >= 0 || setting->set == NULL)
                g_assert_cmpfloat (hr_setting_get (setting, s), ==, setting->choices[c].value);
            }
        }
      else if (setting->kind == HR_SETTING_UNSIGNED || setting->kind == HR_SETTING_DOUBLE)
        {
          hr_setting_set (setting, s, setting->max * 10);
          g_assert_cmpfloat (hr_setting_get (setting, s), ==, setting->max);
        }
    }
  {
    g_autofree char *set = hr_setting_format_set (hr_setting_find ("compute"),
                                                  HR_COMPUTE_BF16_MIXED);

    g_assert_cmpstr (set, ==, "compute=bf16-mixed");
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/fit-rule/xla-pool", test_xla_pool);
  g_test_add_func ("/fit-rule/no-pool", test_no_pool);
  g_test_add_func ("/fit-rule/engine-pool", test_engine_pool);
  g_test_add_func ("/fit-rule/engine-pool-does-not-fit", test_engine_pool_does_not_fit);
  g_test_add_func ("/fit-rule/estimate", test_estimate_uses_the_rule);
  g_test_add_func ("/fit-rule/max-micro-batch", test_max_micro_batch_exact);
  g_test_add_func ("/settings/json", test_setting_json);
  g_test_add_func ("/settings/table", test_settings_table);

  return g_test_run ();
}
