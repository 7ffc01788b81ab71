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

static HrScenario *
load_example (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"), name, NULL);
  g_autoptr(GError) error = NULL;
  HrScenario *s = hr_scenario_load (path, hr_catalog_get_default (), &error);

  g_assert_no_error (error);
  return s;
}

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
  g_autoptr(HrScenario) s = load_example ("dreamerv3-5090d.json");
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
  words = hr_fit_rule_describe (&limit);
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
  g_autoptr(HrScenario) s = load_example ("smolvla-4090.json");
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
      g_autoptr(HrScenario) s = load_example (names[i]);
      g_autoptr(HrEstimate) est = hr_estimate_new (s);
      HrFitLimit limit;

      limit_of (s, &limit);
      g_assert_cmpuint (est->usable, ==, limit.usable);
      g_assert_cmpint (est->fits, ==, est->need <= limit.usable);
      /* the verdict says how the usable memory was reached */
      g_assert_nonnull (strstr (est->fit_reason, "GiB usable:"));
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
      g_autoptr(HrScenario) s = load_example (names[i]);
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
  g_autoptr(HrScenario) s = load_example ("llama-3.1-8b-lora-4090.json");
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
  g_test_add_func ("/fit-rule/estimate", test_estimate_uses_the_rule);
  g_test_add_func ("/fit-rule/max-micro-batch", test_max_micro_batch_exact);
  g_test_add_func ("/settings/json", test_setting_json);
  g_test_add_func ("/settings/table", test_settings_table);

  return g_test_run ();
}
