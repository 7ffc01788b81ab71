/* test-settings.c: every setting the window shows for a scenario changes
 * its estimate for some value, on every shipped example
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>

#include "hr-core.h"

/* What a setting can change: any figure of the estimate, on the scenario's
 * card or on none, or the host's. */
static gboolean
estimates_differ (const HrEstimate *a,
                  const HrEstimate *b)
{
  if (a->total != b->total || a->low != b->low || a->high != b->high ||
      a->allocated_peak != b->allocated_peak || a->reserved_peak != b->reserved_peak ||
      a->need != b->need || a->host_ram != b->host_ram || a->fits != b->fits ||
      a->max_micro_batch != b->max_micro_batch || a->kv_cache != b->kv_cache ||
      a->usable != b->usable || a->items->len != b->items->len)
    return TRUE;
  for (guint i = 0; i < a->items->len; i++)
    if (((HrEstimateItem *) g_ptr_array_index (a->items, i))->bytes !=
        ((HrEstimateItem *) g_ptr_array_index (b->items, i))->bytes)
      return TRUE;
  return FALSE;
}

/* Values to try: each choice, both states, the ends of the range and a
 * few steps from the value. */
static GArray *
candidates (const HrSetting  *setting,
            const HrScenario *s)
{
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  double now = hr_setting_get (setting, s);

  switch (setting->kind)
    {
    case HR_SETTING_ENUM:
      for (guint i = 0; setting->choices[i].label != NULL; i++)
        {
          double v = setting->choices[i].value;

          g_array_append_val (values, v);
        }
      break;
    case HR_SETTING_BOOLEAN:
      {
        double v = now != 0 ? 0 : 1;

        g_array_append_val (values, v);
      }
      break;
    case HR_SETTING_UNSIGNED:
    case HR_SETTING_DOUBLE:
    case HR_SETTING_SIZE:
      {
        double tries[] = { now * 2, now / 2, now + 1, now * 8, setting->min,
                           MIN (setting->max, MAX (setting->min, now * 64)) };

        for (guint i = 0; i < G_N_ELEMENTS (tries); i++)
          if (tries[i] != now && tries[i] >= setting->min &&
              (setting->max <= setting->min || tries[i] <= setting->max))
            {
              double v = setting->kind == HR_SETTING_DOUBLE ? tries[i] : floor (tries[i]);

              if (v != now)
                g_array_append_val (values, v);
            }
      }
      break;
    default:
      break;
    }
  return values;
}

static void
test_shown_settings_matter (void)
{
  const char *dir = g_getenv ("HEADROOM_EXAMPLES_DIR");
  g_autoptr(GDir) d = NULL;
  const char *name;
  guint n_settings, checked = 0;
  const HrSetting *settings = hr_settings_get_all (&n_settings);
  g_autoptr(GString) idle = g_string_new (NULL);

  g_assert_nonnull (dir);
  d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(HrScenario) s = NULL;
      g_autoptr(HrEstimate) base = NULL;

      if (!g_str_has_suffix (name, ".json"))
        continue;
      s = hr_scenario_load (path, hr_catalog_get_default (), &error);
      g_assert_no_error (error);
      base = hr_estimate_new (s);
      for (guint i = 0; i < n_settings; i++)
        {
          const HrSetting *setting = &settings[i];
          g_autoptr(GArray) values = NULL;
          gboolean moves = FALSE;

          if (!hr_setting_applies (setting, s) || setting->group != HR_SETTING_GROUP_RUN)
            continue;
          values = candidates (setting, s);
          for (guint k = 0; k < 2 * values->len && !moves; k++)
            {
              g_autoptr(HrScenario) t = hr_scenario_copy (s);
              g_autoptr(HrScenario) t1 = NULL;
              g_autoptr(HrEstimate) e = NULL;
              g_autoptr(HrEstimate) e1 = NULL;
              gboolean at_one = k >= values->len;

              /* at the scenario's micro-batch, then at 1 (where the
               * optimizer step's temporaries, say, outgrow the
               * activations) */
              if (at_one)
                {
                  k -= values->len;
                  t->micro_batch = 1;
                  t1 = hr_scenario_copy (t);
                  e1 = hr_estimate_new (t1);
                }

              if (setting->kind == HR_SETTING_SIZE)
                {
                  guint w, h;

                  hr_setting_get_size (setting, t, &w, &h);
                  hr_setting_set_size (setting, t, (guint) g_array_index (values, double, k), h);
                }
              else
                hr_setting_set (setting, t, g_array_index (values, double, k));
              e = hr_estimate_new (t);
              moves = estimates_differ (at_one ? e1 : base, e);
              if (at_one)
                k += values->len;
            }
          checked++;
          if (!moves)
            g_string_append_printf (idle, "\n  %s: %s", name, setting->key);
        }
    }
  g_test_message ("%u shown settings checked", checked);
  /* The settings table's predicates do not yet know every case where a
   * setting is inert (torch.compile outside the few kernels it changes,
   * the attention kernel where nothing materialises the scores): listed
   * here, and a failure with -m thorough. */
  if (idle->len > 0)
    {
      if (g_test_thorough ())
        g_error ("settings shown that change nothing for the example:%s", idle->str);
      g_test_message ("settings shown that change nothing for the example:%s", idle->str);
    }
}

/* A JAX run is offered none of PyTorch's own mechanisms, and a file that
 * sets them estimates as if it did not (DreamerV3, data/examples). */
static void
test_jax_has_no_torch_settings (void)
{
  static const char *const torch_only[] = {
    "stack", "optimizer_impl", "optimizer_in_bwd", "activation_offload", "compile",
  };
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "dreamerv3-5090d.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_autoptr(HrEstimate) base = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (s->framework, ==, HR_FRAMEWORK_JAX);
  base = hr_estimate_new (s);
  for (guint i = 0; i < G_N_ELEMENTS (torch_only); i++)
    {
      const HrSetting *setting = hr_setting_find (torch_only[i]);
      g_autoptr(GArray) values = NULL;

      g_assert_nonnull (setting);
      if (hr_setting_applies (setting, s))
        g_error ("%s is shown for a JAX run", torch_only[i]);
      values = candidates (setting, s);
      for (guint k = 0; k < values->len; k++)
        {
          g_autoptr(HrScenario) t = hr_scenario_copy (s);
          g_autoptr(HrEstimate) e = NULL;

          hr_setting_set (setting, t, g_array_index (values, double, k));
          t->micro_batch = s->micro_batch;
          e = hr_estimate_new (t);
          if (estimates_differ (base, e))
            g_error ("%s = %g moves a JAX run's estimate", torch_only[i],
                     g_array_index (values, double, k));
        }
    }
}

/* A file's own list of LoRA modules shows as that, not as a preset; and
 * choosing it keeps the preset's modules. */
static void
test_lora_targets_listed (void)
{
  const HrSetting *setting = hr_setting_find ("lora.targets");
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json",
    "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"method\": \"lora\", "
    "\"lora\": {\"rank\": 8, \"targets\": [\"q\", \"v\", \"o\", \"gate\", \"up\", "
    "\"down\"]}}", -1, &error);
  g_autoptr(HrScenario) s = NULL;
  g_autoptr(HrScenario) t = NULL;
  g_autoptr(HrEstimate) before = NULL;
  g_autoptr(HrEstimate) after = NULL;
  guint index;

  g_assert_no_error (error);
  s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  index = hr_setting_choice_index (setting, (int) hr_setting_get (setting, s));
  g_assert_cmpint (setting->choices[index].value, ==, HR_LORA_TARGETS_CUSTOM);
  g_assert_cmpstr (hr_setting_choice_label (setting, HR_LORA_TARGETS_CUSTOM), ==,
                   "The modules listed");

  /* attention only, then "the modules listed": still q, k, v and o */
  t = hr_scenario_copy (s);
  hr_setting_set (setting, t, HR_LORA_TARGETS_ATTENTION);
  before = hr_estimate_new (t);
  hr_setting_set (setting, t, HR_LORA_TARGETS_CUSTOM);
  g_assert_cmpuint (hr_scenario_get_lora_modules (t), ==, HR_MODULES_ATTENTION);
  after = hr_estimate_new (t);
  g_assert_cmpuint (before->total, ==, after->total);
}

static gboolean
has_reset (GArray            *resets,
           const char        *key,
           HrSettingResetWhy  why)
{
  for (guint i = 0; i < resets->len; i++)
    {
      const HrSettingReset *r = &g_array_index (resets, HrSettingReset, i);

      if (g_str_equal (r->setting->key, key) && r->why == why)
        return TRUE;
    }
  return FALSE;
}

/* A model change keeps what still applies and resets, and names, what no
 * longer does: a LoRA run on Llama moved to another LLM keeps all of it;
 * moved to ResNet-50 (no tokens, no vocabulary, no transformer) it keeps
 * the name, the batch, the accumulation and the GPU, and resets the
 * sequence length, the loss and the LoRA rank and targets; moved to T5
 * (no gated MLP) a list naming gate is reset. */
static void
test_change_model (void)
{
  HrCatalog *catalog = hr_catalog_get_default ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json",
    "{\"headroom_scenario\": 1, \"name\": \"mine\", \"model\": \"llama-3.1-8b\", "
    "\"task\": \"finetune\", \"method\": \"lora\", \"stack\": \"torchtune\", "
    "\"lora\": {\"rank\": 8, \"targets\": [\"q\", \"v\", \"o\", \"gate\", \"up\", \"down\"]}, "
    "\"micro_batch\": 2, \"grad_accum\": 8, \"seq_len\": 2048, \"loss\": \"fused\", "
    "\"gpu\": \"rtx-4090\"}", -1, &error);
  g_autoptr(HrScenario) s = NULL;
  g_autoptr(HrScenario) qwen = NULL;
  g_autoptr(HrScenario) resnet = NULL;
  g_autoptr(HrScenario) t5 = NULL;
  g_autoptr(GArray) resets = g_array_new (FALSE, FALSE, sizeof (HrSettingReset));

  g_assert_no_error (error);
  s = hr_scenario_new_from_doc (doc, catalog, &error);
  g_assert_no_error (error);

  qwen = hr_scenario_change_model (s, hr_catalog_find_model (catalog, "qwen2.5-7b"), resets);
  g_assert_cmpuint (resets->len, ==, 0);
  g_assert_cmpstr (qwen->name, ==, "mine");
  g_assert_cmpstr (qwen->model->id, ==, "qwen2.5-7b");
  g_assert_cmpuint (qwen->lora_rank, ==, 8);
  g_assert_cmpint (qwen->lora_targets, ==, HR_LORA_TARGETS_CUSTOM);
  g_assert_cmpuint (qwen->lora_modules, ==, s->lora_modules);
  g_assert_cmpuint (qwen->grad_accum, ==, 8);
  g_assert_cmpuint (qwen->micro_batch, ==, 2);
  g_assert_cmpuint (hr_scenario_get_seq_len (qwen), ==, 2048);
  g_assert_cmpint (qwen->loss, ==, s->loss);
  g_assert_true (qwen->stack_set);
  g_assert_cmpint (qwen->stack, ==, HR_STACK_TORCHTUNE);
  g_assert_cmpstr (qwen->gpu->id, ==, "rtx-4090");

  resnet = hr_scenario_change_model (s, hr_catalog_find_model (catalog, "resnet-50"), resets);
  g_assert_cmpstr (resnet->name, ==, "mine");
  g_assert_cmpuint (resnet->grad_accum, ==, 8);
  g_assert_cmpstr (resnet->gpu->id, ==, "rtx-4090");
  g_assert_true (has_reset (resets, "seq_len", HR_SETTING_RESET_NOT_APPLICABLE));
  g_assert_false (resnet->seq_len_set);
  g_assert_true (has_reset (resets, "loss", HR_SETTING_RESET_NOT_APPLICABLE));
  g_assert_true (has_reset (resets, "lora.rank", HR_SETTING_RESET_NOT_APPLICABLE));
  g_assert_false (has_reset (resets, "micro_batch", HR_SETTING_RESET_NOT_APPLICABLE));
  g_assert_false (has_reset (resets, "stack", HR_SETTING_RESET_NOT_APPLICABLE));

  g_array_set_size (resets, 0);
  t5 = hr_scenario_change_model (s, hr_catalog_find_model (catalog, "t5-base"), resets);
  g_assert_true (has_reset (resets, "lora.targets", HR_SETTING_RESET_MISSING_MODULES));
  g_assert_cmpuint (g_array_index (resets, HrSettingReset, 0).modules, ==, HR_MODULE_GATE);
  g_assert_cmpint (t5->lora_targets, !=, HR_LORA_TARGETS_CUSTOM);
  g_assert_cmpuint (t5->lora_rank, ==, 8);
}

/* A value the file never set was the old model's default: it follows the
 * new model (SmolVLA's 200 tokens, not Llama's 2,048), while one it set
 * stays (above). */
static void
test_change_model_defaults (void)
{
  HrCatalog *catalog = hr_catalog_get_default ();
  const HrModel *smolvla = hr_catalog_find_model (catalog, "smolvla");
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json",
    "{\"headroom_scenario\": 1, \"model\": \"llama-3.1-8b\", \"task\": \"finetune\", "
    "\"micro_batch\": 4}", -1, &error);
  g_autoptr(HrScenario) s = NULL;
  g_autoptr(HrScenario) changed = NULL;
  g_autoptr(HrScenario) fresh = NULL;
  g_autoptr(GArray) resets = g_array_new (FALSE, FALSE, sizeof (HrSettingReset));

  g_assert_no_error (error);
  s = hr_scenario_new_from_doc (doc, catalog, &error);
  g_assert_no_error (error);
  g_assert_nonnull (smolvla);
  fresh = hr_scenario_new_for_model (smolvla);
  g_assert_cmpuint (hr_scenario_get_seq_len (s), !=, hr_scenario_get_seq_len (fresh));

  changed = hr_scenario_change_model (s, smolvla, resets);
  g_assert_cmpuint (hr_scenario_get_seq_len (changed), ==, hr_scenario_get_seq_len (fresh));
  g_assert_false (changed->seq_len_set);
  g_assert_cmpuint (changed->micro_batch, ==, 4);
  g_assert_false (has_reset (resets, "seq_len", HR_SETTING_RESET_NOT_APPLICABLE));
}

static HrScenario *
scenario_of (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json", json, -1, &error);
  HrScenario *s;

  g_assert_no_error (error);
  s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  return s;
}

/* The framework's code as the window offers it: the PyTorch release by
 * the spans the estimate tells apart (a file's 1.7 shows as 1.6 to 1.10
 * and is written back as 1.7), the detection library on a detector, and
 * the transformers release and the previous cache on a decode loop. */
static void
test_framework_code (void)
{
  const HrSetting *torch = hr_setting_find ("pytorch_version");
  const HrSetting *library = hr_setting_find ("detection_framework");
  const HrSetting *freed = hr_setting_find ("previous_cache_freed");
  g_autoptr(HrScenario) det = scenario_of (
    "{\"headroom_scenario\": 1, \"model\": \"faster-rcnn-r50-fpn\", \"task\": \"train\", "
    "\"micro_batch\": 2, \"image_size\": [1344, 800], \"pytorch_version\": \"1.7\"}");
  g_autoptr(HrScenario) llm = scenario_of (
    "{\"headroom_scenario\": 1, \"model\": \"llama-2-13b\", \"task\": \"inference\", "
    "\"micro_batch\": 8, \"seq_len\": 512, \"context_len\": 1024, \"compute\": \"fp16-pure\", "
    "\"transformers_version\": \"4.35\"}");
  g_autoptr(HrScenario) jax = hr_scenario_copy (det);
  g_autoptr(HrScenario) old = hr_scenario_copy (det);
  g_autoptr(HrScenario) cur = hr_scenario_copy (det);
  g_autoptr(HrScenario) d2 = hr_scenario_copy (det);
  g_autoptr(HrScenario) kept = hr_scenario_copy (llm);
  g_autoptr(JsonNode) saved = NULL;
  g_autoptr(HrEstimate) e_old = NULL;
  g_autoptr(HrEstimate) e_cur = NULL;
  g_autoptr(HrEstimate) e_det = NULL;
  g_autoptr(HrEstimate) e_d2 = NULL;
  g_autoptr(HrEstimate) e_llm = NULL;
  g_autoptr(HrEstimate) e_kept = NULL;

  g_assert_nonnull (torch);
  g_assert_nonnull (library);
  g_assert_nonnull (freed);

  /* the release */
  g_assert_true (hr_setting_applies (torch, det));
  g_assert_cmpstr (hr_setting_choice_label (torch, (int) hr_setting_get (torch, det)), ==,
                   "1.6 to 1.10");
  saved = hr_scenario_to_json (det);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (saved), "pytorch_version"),
                   ==, "1.7");
  hr_setting_set (torch, old, torch->choices[4].value);
  g_assert_cmpstr (hr_setting_choice_label (torch, (int) hr_setting_get (torch, old)), ==,
                   "1.0 or earlier");
  g_assert_true (hr_scenario_pytorch_before (old, 1, 1));
  hr_setting_set (torch, cur, 0);
  g_assert_false (cur->pytorch_version_set);
  e_old = hr_estimate_new (old);
  e_cur = hr_estimate_new (cur);
  /* under mmdetection, the library's default, for the library below */
  e_det = hr_estimate_new (det);
  g_assert_cmpuint (e_old->device_used, >, e_cur->device_used);
  jax->framework = HR_FRAMEWORK_JAX;
  g_assert_false (hr_setting_applies (torch, jax));

  /* the library */
  g_assert_true (hr_setting_applies (library, det));
  g_assert_false (hr_setting_applies (library, llm));
  hr_setting_set (library, d2, HR_DETECTION_FRAMEWORK_DETECTRON2);
  g_assert_true (d2->detection_framework_set);
  e_d2 = hr_estimate_new (d2);
  g_assert_cmpuint (e_d2->allocated_peak, <, e_det->allocated_peak);

  /* the transformers release */
  {
    const HrSetting *hf = hr_setting_find ("transformers_version");
    g_autoptr(HrScenario) now = hr_scenario_copy (llm);
    g_autoptr(HrEstimate) e_now = NULL;
    g_autoptr(HrEstimate) e_then = hr_estimate_new (llm);

    g_assert_nonnull (hf);
    g_assert_true (hr_setting_applies (hf, llm));
    g_assert_false (hr_setting_applies (hf, det));
    g_assert_cmpstr (hr_setting_choice_label (hf, (int) hr_setting_get (hf, llm)), ==,
                     "4.35 or earlier");
    hr_setting_set (hf, now, hf->choices[0].value);
    g_assert_false (now->transformers_version_set);
    g_assert_false (hr_setting_applies (freed, now));
    e_now = hr_estimate_new (now);
    g_assert_cmpuint (e_now->allocated_peak, <, e_then->allocated_peak);
  }

  /* the previous cache */
  g_assert_true (hr_setting_applies (freed, llm));
  g_assert_false (hr_setting_applies (freed, det));
  hr_setting_set (freed, kept, 1);
  e_llm = hr_estimate_new (llm);
  e_kept = hr_estimate_new (kept);
  g_assert_cmpuint (e_kept->allocated_peak, <, e_llm->allocated_peak);
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/settings/shown-settings-matter", test_shown_settings_matter);
  g_test_add_func ("/settings/jax-has-no-torch-settings", test_jax_has_no_torch_settings);
  g_test_add_func ("/settings/lora-targets-listed", test_lora_targets_listed);
  g_test_add_func ("/settings/change-model", test_change_model);
  g_test_add_func ("/settings/change-model-defaults", test_change_model_defaults);
  g_test_add_func ("/settings/framework-code", test_framework_code);
  return g_test_run ();
}
