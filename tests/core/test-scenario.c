/* test-scenario.c: parsing scenarios, and every way a file can be wrong
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

/* Parses @text, expects it to fail with a message that starts with
 * "s.json:LINE:COL: " and contains @phrase. */
static void
expect_error (const char *text,
              guint       line,
              guint       column,
              const char *phrase)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = hr_test_parse_scenario (text, &error);
  g_autofree char *prefix = g_strdup_printf ("s.json:%u:%u: ", line, column);

  g_assert_null (scenario);
  g_assert_nonnull (error);
  g_assert_true (error->domain == HR_ERROR);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, phrase) == NULL)
    g_error ("for\n%s\nexpected \"%s…%s…\", got \"%s\"", text, prefix, phrase, error->message);
}

#define HEAD "{\n  \"headroom_scenario\": 1,\n  \"model\": \"llama-2-7b\",\n"

static void
test_minimal_defaults (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_test_parse_scenario (
      "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\"}", &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  /* SCENARIO.md's defaults */
  g_assert_cmpstr (s->name, ==, "");
  g_assert_cmpint (s->task, ==, HR_TASK_FINETUNE);
  g_assert_cmpint (s->method, ==, HR_METHOD_FULL);
  g_assert_cmpint (s->lora_rank, ==, 16);
  g_assert_cmpint (s->lora_targets, ==, HR_LORA_TARGETS_ALL_LINEAR);
  g_assert_cmpint (s->compute, ==, HR_COMPUTE_BF16_MIXED);
  g_assert_cmpint (s->weights_dtype, ==, HR_DTYPE_BF16);
  g_assert_cmpint (s->optimizer, ==, HR_OPTIMIZER_ADAMW);
  g_assert_cmpint (s->micro_batch, ==, 1);
  g_assert_cmpint (s->grad_accum, ==, 1);
  g_assert_cmpint (s->recompute, ==, HR_RECOMPUTE_NONE);
  g_assert_cmpint (s->attention, ==, HR_ATTENTION_SDPA);
  g_assert_cmpint (s->gpus, ==, 1);
  g_assert_cmpint (s->sharding, ==, HR_SHARDING_NONE);
  g_assert_cmpint (s->offload, ==, HR_OFFLOAD_NONE);
  g_assert_cmpint (s->framework, ==, HR_FRAMEWORK_PYTORCH);
  g_assert_true (s->jax_preallocate);
  g_assert_cmpint (s->kv_dtype, ==, HR_DTYPE_BF16);
  g_assert_null (s->gpu);
  g_assert_cmpfloat_with_epsilon (s->reserve, 0.10, 1e-12);
  g_assert_false (s->has_replay);
  g_assert_cmpuint (hr_scenario_get_context_len (s), ==, hr_scenario_get_seq_len (s));
}

static void
test_dependent_defaults (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) inference =
                 hr_test_parse_scenario (HEAD "  \"task\": \"inference\"\n}", &error);
  g_autoptr(HrScenario) qlora = NULL;
  g_autoptr(HrScenario) fp32 = NULL;
  g_autoptr(HrScenario) jax = NULL;

  g_assert_no_error (error);
  /* "adamw (none for inference)" */
  g_assert_cmpint (inference->optimizer, ==, HR_OPTIMIZER_NONE);

  /* "qlora implies nf4" */
  qlora = hr_test_parse_scenario (HEAD "  \"method\": \"qlora\"\n}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (qlora->weights_dtype, ==, HR_DTYPE_NF4);

  /* weights_dtype follows compute */
  fp32 = hr_test_parse_scenario (HEAD "  \"compute\": \"fp32\"\n}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (fp32->weights_dtype, ==, HR_DTYPE_FP32);

  /* framework comes from the model (DreamerV3 is a JAX code base) */
  jax =
      hr_test_parse_scenario ("{\"headroom_scenario\": 1, \"model\": \"dreamerv3-200m\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (jax->framework, ==, HR_FRAMEWORK_JAX);
}

static void
test_every_key (void)
{
  /* Every key and value SCENARIO.md lists is accepted. */
  static const char *text =
    "{\n"
    "  \"headroom_scenario\": 1, \"name\": \"all\", \"model\": \"llama-3.1-8b\",\n"
    "  \"task\": \"train\", \"method\": \"lora\", \"trainable_params\": 1000,\n"
    "  \"lora\": {\"rank\": 8, \"targets\": \"attention\"}, \"weights_dtype\": \"int8\",\n"
    "  \"compute\": \"fp16-mixed\", \"optimizer\": \"paged-adamw-8bit\", \"micro_batch\": 4,\n"
    "  \"grad_accum\": 8, \"seq_len\": 1024, \"image_size\": [640, 480], \"recompute\": "
    "\"selective\",\n"
    "  \"attention\": \"flash\", \"gpus\": 8, \"sharding\": \"zero2\", \"offload\": "
    "\"optimizer+params\",\n"
    "  \"framework\": \"jax\", \"jax_preallocate\": false, \"context_len\": 4096, \"kv_dtype\": "
    "\"fp8\",\n"
    "  \"gpu\": \"h100-sxm\", \"reserve\": 0.2,\n"
    "  \"replay\": {\"steps\": 1000, \"obs_shape\": [84, 84, 4], \"obs_dtype\": \"float32\"},\n"
    "  \"x-anything\": {\"ignored\": [1, 2]}\n"
    "}\n";
  static const char *values[][2] = {
    { "task", "\"train\"" }, { "task", "\"finetune\"" }, { "task", "\"inference\"" },
    { "method", "\"full\"" }, { "method", "\"freeze\"" }, { "method", "\"lora\"" },
    { "method", "\"qlora\"" },
    { "weights_dtype", "\"fp32\"" }, { "weights_dtype", "\"bf16\"" },
    { "weights_dtype", "\"fp16\"" },
    { "weights_dtype", "\"fp8\"" }, { "weights_dtype", "\"int8\"" }, { "weights_dtype", "\"nf4\"" },
    { "weights_dtype", "\"int4\"" },
    { "compute", "\"fp32\"" }, { "compute", "\"tf32\"" }, { "compute", "\"bf16-mixed\"" },
    { "compute", "\"fp16-mixed\"" }, { "compute", "\"bf16-pure\"" },
    { "optimizer", "\"adamw\"" }, { "optimizer", "\"adam\"" }, { "optimizer", "\"adamw-8bit\"" },
    { "optimizer", "\"paged-adamw-8bit\"" }, { "optimizer", "\"sgd\"" },
    { "optimizer", "\"sgd-momentum\"" },
    { "optimizer", "\"adafactor\"" }, { "optimizer", "\"lion\"" }, { "optimizer", "\"none\"" },
    { "recompute", "\"none\"" }, { "recompute", "\"selective\"" }, { "recompute", "\"full\"" },
    { "attention", "\"eager\"" }, { "attention", "\"sdpa\"" }, { "attention", "\"flash\"" },
    { "sharding", "\"none\"" }, { "sharding", "\"ddp\"" }, { "sharding", "\"zero1\"" },
    { "sharding", "\"zero2\"" }, { "sharding", "\"zero3\"" }, { "sharding", "\"fsdp\"" },
    { "offload", "\"none\"" }, { "offload", "\"optimizer\"" },
    { "offload", "\"optimizer+params\"" },
    { "framework", "\"pytorch\"" }, { "framework", "\"jax\"" },
    { "kv_dtype", "\"fp16\"" }, { "kv_dtype", "\"bf16\"" }, { "kv_dtype", "\"fp8\"" },
    { "kv_dtype", "\"int8\"" }, { "kv_dtype", "\"int4\"" },
    { "image_size", "224" }, { "image_size", "[224, 160]" },
    { "lora", "{\"rank\": 64, \"targets\": \"all-linear\"}" },
    { "gpu", "{\"id\": \"x\", \"name\": \"X\", \"memory\": 24000000000}" },
    { "model",
     "{\"id\": \"tiny\", \"name\": \"Tiny\", \"params\": 1000000, \"layers\": 2, \"hidden\": 64, "
     "\"heads\": 4}" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_test_parse_scenario (text, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (s->name, ==, "all");
  g_assert_cmpint (s->image_width, ==, 640);
  g_assert_cmpint (s->image_height, ==, 480);
  g_assert_cmpint (s->lora_rank, ==, 8);
  g_assert_cmpint (s->replay.obs_rank, ==, 3);
  g_assert_cmpint (s->replay.obs_dtype, ==, HR_DTYPE_FP32);
  g_assert_false (s->jax_preallocate);
  g_assert_cmpstr (s->gpu->id, ==, "h100-sxm");

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      gboolean is_model = g_str_equal (values[i][0], "model");
      g_autofree char *one = g_strdup_printf ("{\"headroom_scenario\": 1%s, \"%s\": %s}",
                                              is_model ? "" : ", \"model\": \"llama-2-7b\"",
                                              values[i][0], values[i][1]);
      g_autoptr(HrScenario) t = hr_test_parse_scenario (one, &error);

      if (t == NULL)
        g_error ("%s: %s", one, error->message);
    }
}

static void
test_malformed (void)
{
  /* Not JSON at all */
  expect_error ("", 1, 1, "the file is empty");
  expect_error ("   \n\n", 3, 1, "the file is empty");
  expect_error (HEAD "  \"micro_batch\": 8,\n}\n", 5, 1, "trailing comma before '}'");
  expect_error (HEAD "  \"micro_batch\": 8\n  \"seq_len\": 10\n}\n", 5, 3, "expected ',' or '}'");
  expect_error (HEAD "  \"micro_batch\" 8\n}\n", 4, 17, "expected ':' after key \"micro_batch\"");
  expect_error (HEAD "  \"name\": \"a\\qb\"\n}\n", 4, 13, "invalid escape \\q in string");
  expect_error (HEAD "  \"name\": \"open\n}\n", 4, 11, "unterminated string");
  expect_error (HEAD "  \"reserve\": 0,1\n}\n", 4, 16, "decimal comma");
  expect_error (HEAD "  \"micro_batch\": 1e999\n}\n", 4, 18, "out of range");
  expect_error (HEAD "  \"micro_batch\": 08\n}\n", 4, 18, "leading zeros");
  expect_error (HEAD "  \"name\": 'single'\n}\n", 4, 11, "double quotes");
  expect_error (HEAD "  \"task\": train\n}\n", 4, 11, "strings need double quotes");
  expect_error (HEAD "  \"name\": \"a\",\n  \"name\": \"b\"\n}\n", 5, 3, "duplicate key \"name\"");
  expect_error ("{\"headroom_scenario\": 1} trailing", 1, 26, "unexpected text after the end");
  expect_error ("{\"headroom_scenario\": 1,\n \"model\": [1, 2,]}", 2, 17, "trailing comma");
  expect_error ("{\"a\": {\"b\": 1}", 1, 15, "unterminated object");

  /* Well-formed, but not a valid scenario */
  expect_error ("[1, 2]", 1, 1, "must be a JSON object");
  expect_error ("{\"model\": \"llama-2-7b\"}", 1, 1, "\"headroom_scenario\": 1 is missing");
  expect_error ("{\"headroom_scenario\": 2, \"model\": \"llama-2-7b\"}", 1, 23, "newer Headroom");
  expect_error ("{\"headroom_scenario\": 1}", 1, 1, "missing the required key \"model\"");
  expect_error (HEAD "  \"micro_bacth\": 8\n}\n", 4, 3, "did you mean \"micro_batch\"");
  expect_error (HEAD "  \"colour\": 8\n}\n", 4, 3, "unknown key \"colour\"");
  expect_error (HEAD "  \"micro_batch\": \"8\"\n}\n", 4, 18, "must be an integer, not a string");
  expect_error (HEAD "  \"micro_batch\": 0\n}\n", 4, 18, "between 1 and 1048576, not 0");
  expect_error (HEAD "  \"micro_batch\": 2.5\n}\n", 4, 18, "whole number");
  expect_error (HEAD "  \"reserve\": 0.7\n}\n", 4, 14, "between 0 and 0.5");
  expect_error (HEAD "  \"task\": \"training\"\n}\n", 4, 11, "did you mean \"train\"");
  expect_error (HEAD "  \"compute\": \"int8\"\n}\n", 4, 14, "\"compute\" must be");
  expect_error (HEAD "  \"jax_preallocate\": \"yes\"\n}\n", 4, 22, "true or false");
  expect_error ("{\"headroom_scenario\": 1, \"model\": \"llama2-7b\"}", 1, 35,
                "did you mean \"llama-2-7b\"");
  expect_error (HEAD "  \"gpu\": \"rtx4090\"\n}\n", 4, 10, "did you mean \"rtx-4090\"");
  expect_error (HEAD "  \"gpu\": 24\n}\n", 4, 10, "catalog id (a string) or a GPU object");
  expect_error (HEAD "  \"gpu\": {\"id\": \"g\", \"name\": \"G\", \"memory\": 24}\n}\n", 4, 45,
                "\"memory\" must be");
  expect_error (HEAD "  \"gpu\": {\"id\": \"g\", \"memory\": 24000000000}\n}\n", 4, 10,
                "missing the required key \"name\"");
  expect_error (HEAD "  \"method\": \"qlora\",\n  \"weights_dtype\": \"bf16\"\n}\n", 5, 20,
                "must be \"nf4\" or \"int4\"");
  expect_error (HEAD "  \"lora\": {\"rank\": 0}\n}\n", 4, 20, "between 1 and 65536");
  expect_error (HEAD "  \"lora\": {\"rank\": 8, \"target\": \"all\"}\n}\n", 4, 23,
                "did you mean \"targets\"");
  expect_error (HEAD "  \"image_size\": [224]\n}\n", 4, 17, "[width, height]");
  expect_error (HEAD "  \"replay\": {\"steps\": 10, \"obs_shape\": [84, -1]}\n}\n", 4, 45,
                "positive integer");
  expect_error (HEAD "  \"replay\": {\"obs_shape\": [84]}\n}\n", 4, 13,
                "missing the required key \"steps\"");
  expect_error (HEAD "  \"task\": \"inference\",\n  \"optimizer\": \"adamw\"\n}\n", 5, 16,
                "runs no optimizer");
  expect_error (HEAD "  \"trainable_params\": 99999999999\n}\n", 4, 23, "between 0 and");

  /* Inline models */
  expect_error ("{\"headroom_scenario\": 1,\n \"model\": {\"id\": \"m\", \"name\": \"M\", "
                "\"layers\": 2}}",
                2, 11, "missing the required key \"params\"");
  expect_error ("{\"headroom_scenario\": 1,\n \"model\": {\"id\": \"m\", \"name\": \"M\", "
                "\"params\": 10,"
                " \"layers\": 2, \"hidden\": 64, \"heads\": 8, \"kv_heads\": 3}}", 2, 101,
                "must divide");
  expect_error ("{\"headroom_scenario\": 1,\n \"model\": {\"id\": \"m\", \"name\": \"M\", "
                "\"params\": 10,"
                " \"layers\": 2, \"hidden\": 65, \"heads\": 8}}", 2, 86, "give \"head_dim\"");
  expect_error ("{\"headroom_scenario\": 1,\n \"model\": {\"id\": \"m\", \"name\": \"M\", "
                "\"params\": 100,"
                " \"components\": [{\"name\": \"a\", \"params\": 10, \"layers\": 1, \"hidden\": "
                "8, \"heads\": 1}]}}",
                2, 46, "the components add up to 10 parameters");
  expect_error ("{\"headroom_scenario\": 1,\n \"model\": {\"id\": \"m\", \"name\": \"M\", "
                "\"params\": 10,"
                " \"kind\": \"cnn\"}}", 2, 11, "needs \"arch\" (its stages and blocks) or \"activation\"");
  expect_error ("{\"headroom_scenario\": 1,\n \"model\": {\"id\": \"m\", \"name\": \"M\", "
                "\"params\": 10,"
                " \"kind\": \"cnn\", \"activation\": {\"bytes_per_sample\": 5, \"scales_with\": "
                "\"pixels\"}}}",
                2, 118, "needs \"at_image_size\"");
}

static void
test_binary_and_encoding (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;
  const char nul[] = "{\"a\":\n 1\0}";
  char big[64];

  doc = hr_json_doc_load_data ("b.json", nul, sizeof nul - 1, &error);
  g_assert_null (doc);
  g_assert_error (error, HR_ERROR, HR_ERROR_BINARY);
  g_assert_true (g_str_has_prefix (error->message, "b.json:2:3: "));
  g_clear_error (&error);

  doc = hr_json_doc_load_data ("b.json", "{\"name\": \"\xff\xfe\"}", -1, &error);
  g_assert_null (doc);
  g_assert_error (error, HR_ERROR, HR_ERROR_BINARY);
  g_assert_true (g_str_has_prefix (error->message, "b.json:1:11: invalid UTF-8"));
  g_clear_error (&error);

  /* UTF-8 is fine, and columns count characters */
  doc = hr_json_doc_load_data ("u.json", "{\"name\": \"Größe\", \"x\": }", -1, &error);
  g_assert_null (doc);
  g_assert_true (g_str_has_prefix (error->message, "u.json:1:24: "));
  g_clear_error (&error);

  /* a byte order mark is skipped */
  doc = hr_json_doc_load_data ("bom.json", "\xEF\xBB\xBF{\"a\": 1}", -1, &error);
  g_assert_no_error (error);
  g_clear_pointer (&doc, hr_json_doc_free);

  /* deep nesting is refused rather than overflowing the stack */
  {
    GString *deep = g_string_new (NULL);

    for (guint i = 0; i < 200; i++)
      g_string_append_c (deep, '[');
    doc = hr_json_doc_load_data ("d.json", deep->str, deep->len, &error);
    g_assert_null (doc);
    g_assert_nonnull (strstr (error->message, "nested more than"));
    g_clear_error (&error);
    g_string_free (deep, TRUE);
  }

  /* files over the limit are refused before parsing */
  memset (big, ' ', sizeof big);
  doc = hr_json_doc_load_data ("big.json", big, HR_JSON_MAX_FILE_SIZE + 1, &error);
  g_assert_null (doc);
  g_assert_error (error, HR_ERROR, HR_ERROR_TOO_LARGE);
  g_clear_error (&error);
}

static void
test_file_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("headroom-test-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  g_autoptr(HrScenario) s = NULL;

  s = hr_scenario_load (missing, hr_catalog_get_default (), &error);
  g_assert_null (s);
  g_assert_error (error, HR_ERROR, HR_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, missing));
  g_clear_error (&error);

  s = hr_scenario_load (dir, hr_catalog_get_default (), &error);
  g_assert_null (s);
  g_assert_nonnull (strstr (error->message, "is a folder"));
  g_rmdir (dir);
}

static void
test_set (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json", HEAD "  \"micro_batch\": 2\n}", -1,
                                                    &error);
  g_autoptr(HrScenario) s = NULL;

  g_assert_no_error (error);
  g_assert_true (hr_json_doc_apply_set (doc, "micro_batch=16", &error));
  g_assert_true (hr_json_doc_apply_set (doc, "gpu=rtx-4090", &error));
  g_assert_true (hr_json_doc_apply_set (doc, "lora.rank=8", &error));
  g_assert_true (hr_json_doc_apply_set (doc, "image_size=[640,480]", &error));
  s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  g_assert_cmpint (s->micro_batch, ==, 16);
  g_assert_cmpstr (s->gpu->id, ==, "rtx-4090");
  g_assert_cmpint (s->lora_rank, ==, 8);
  g_assert_cmpint (s->image_width, ==, 640);
  g_clear_pointer (&s, hr_scenario_free);

  /* a bad value names the option, not a line of the file */
  g_assert_true (hr_json_doc_apply_set (doc, "micro_batch=abc", &error));
  s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_null (s);
  g_assert_true (g_str_has_prefix (error->message, "--set micro_batch=abc: "));
  g_clear_error (&error);

  g_assert_false (hr_json_doc_apply_set (doc, "=3", &error));
  g_assert_nonnull (strstr (error->message, "KEY=VALUE"));
}

static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("headroom-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "saved.json", NULL);
  g_autoptr(HrScenario) a = hr_test_parse_scenario (
      HEAD "  \"name\": \"trip\", \"method\": \"qlora\", "
           "\"micro_batch\": 3,\n"
           "  \"seq_len\": 777, \"gpu\": {\"id\": \"g\", \"name\": "
           "\"G\", \"memory\": 48000000000},\n"
           "  \"replay\": {\"steps\": 5, \"obs_shape\": [2, 3]}, "
           "\"loss\": \"chunked\"\n}",
      &error);
  g_autoptr(HrScenario) b = NULL;
  g_autoptr(HrEstimate) ea = NULL;
  g_autoptr(HrEstimate) eb = NULL;

  g_assert_no_error (error);
  g_assert_true (hr_scenario_save (a, path, &error));
  g_assert_no_error (error);
  b = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_assert_no_error (error);

  g_assert_cmpstr (b->name, ==, "trip");
  g_assert_cmpint (b->method, ==, HR_METHOD_QLORA);
  g_assert_cmpint (b->weights_dtype, ==, HR_DTYPE_NF4);
  g_assert_cmpint (b->micro_batch, ==, 3);
  g_assert_cmpint (b->seq_len, ==, 777);
  g_assert_true (b->gpu_inline);
  g_assert_cmpuint (b->gpu->memory, ==, 48000000000);
  g_assert_cmpint (b->loss, ==, HR_LOSS_CHUNKED);
  g_assert_true (b->has_replay);

  ea = hr_estimate_new (a);
  eb = hr_estimate_new (b);
  g_assert_cmpuint (ea->total, ==, eb->total);

  g_unlink (path);
  g_rmdir (dir);
}

/* Every key a file holds at @path in @from is in @to: "x-" keys with the
 * same value; a key Headroom reads, with a value that reads the same, or
 * left out only where the reloaded scenario is the same (a default the
 * writer leaves implicit).  Returns the number of keys checked. */
static guint
check_kept (JsonObject *from,
            JsonObject *to,
            const char *file,
            const char *path)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;
  guint checked = 0;

  json_object_iter_init (&iter, from);
  while (json_object_iter_next (&iter, &key, &value))
    {
      g_autofree char *where = g_strconcat (path, "/", key, NULL);
      JsonNode *there = json_object_get_member (to, key);

      checked++;
      if (g_str_has_prefix (key, "x-"))
        {
          if (there == NULL || !json_node_equal (value, there))
            g_error ("%s: saving lost or changed %s", file, where);
          continue;
        }
      if (there != NULL && JSON_NODE_HOLDS_OBJECT (value) && JSON_NODE_HOLDS_OBJECT (there))
        checked += check_kept (json_node_get_object (value), json_node_get_object (there), file,
                               where);
    }
  return checked;
}

static void
keeps_every_key_in (const char *dir,
                    guint      *files,
                    guint      *keys)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(HrJsonDoc) doc = NULL;
      g_autoptr(HrScenario) a = NULL;
      g_autoptr(HrScenario) b = NULL;
      g_autoptr(JsonNode) saved = NULL;
      g_autoptr(JsonNode) saved_again = NULL;
      g_autoptr(HrJsonDoc) saved_doc = NULL;
      g_autoptr(HrEstimate) ea = NULL;
      g_autoptr(HrEstimate) eb = NULL;
      g_autofree char *text = NULL;

      if (!g_str_has_suffix (name, ".json"))
        continue;
      doc = hr_json_doc_load_file (path, &error);
      g_assert_no_error (error);
      a = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
      if (a == NULL)
        {
          /* a validation row that uses keys not read yet */
          g_test_message ("%s: not read (%s)", path, error->message);
          continue;
        }
      saved = hr_scenario_to_json (a);
      *keys += check_kept (json_node_get_object (hr_json_doc_get_root (doc)),
                           json_node_get_object (saved), path, "");

      /* What was saved reads as the same scenario, and saves the same. */
      text = hr_json_node_to_string (saved, TRUE);
      saved_doc = hr_json_doc_load_data (path, text, -1, &error);
      g_assert_no_error (error);
      b = hr_scenario_new_from_doc (saved_doc, hr_catalog_get_default (), &error);
      g_assert_no_error (error);
      saved_again = hr_scenario_to_json (b);
      if (!json_node_equal (saved, saved_again))
        g_error ("%s: saving what was saved changes it", path);
      ea = hr_estimate_new (a);
      eb = hr_estimate_new (b);
      g_assert_cmpuint (ea->total, ==, eb->total);
      g_assert_cmpuint (ea->high, ==, eb->high);
      (*files)++;
    }
}

/* Open, then save: every shipped example and every validation scenario
 * keeps each key it held, its "x-" keys (the examples' sources) included. */
static void
test_keeps_every_key (void)
{
  const char *examples = g_getenv ("HEADROOM_EXAMPLES_DIR");
  const char *validation = g_getenv ("HEADROOM_VALIDATION_DIR");
  guint files = 0, keys = 0;

  g_assert_nonnull (examples);
  g_assert_nonnull (validation);
  keeps_every_key_in (examples, &files, &keys);
  g_assert_cmpuint (files, >=, 14);
  keeps_every_key_in (validation, &files, &keys);
  g_assert_cmpuint (files, >=, 100);
  g_test_message ("%u files, %u keys kept", files, keys);
}

/* An "x-" key inside an object (the LoRA settings) is kept there, and a
 * part the scenario no longer has takes its "x-" keys with it. */
static void
test_keeps_nested_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_test_parse_scenario (
      HEAD "  \"method\": \"lora\", \"x-note\": [1, {\"a\": 2}],\n"
           "  \"lora\": {\"rank\": 8, \"x-why\": \"paper\"}\n}",
      &error);
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  node = hr_scenario_to_json (s);
  text = hr_json_node_to_string (node, FALSE);
  g_assert_nonnull (strstr (text, "\"x-note\":[1,{\"a\":2}]"));
  g_assert_nonnull (strstr (text, "\"x-why\":\"paper\""));

  s->method = HR_METHOD_FULL;
  s->lora_set = FALSE;
  g_clear_pointer (&node, json_node_unref);
  g_clear_pointer (&text, g_free);
  node = hr_scenario_to_json (s);
  text = hr_json_node_to_string (node, FALSE);
  g_assert_null (strstr (text, "x-why"));
  g_assert_nonnull (strstr (text, "\"x-note\""));
}

/* Every control character in a string is saved escaped: json-glib 1.6
 * wrote U+001F as it is, and the saved file could not be opened again
 * (found by fuzz-gguf, through a model name). */
static void
test_round_trip_control_characters (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) a = hr_test_parse_scenario (
      HEAD "  \"name\": \"a\\u001fb\\u0001c\\u007f\\n\"\n}", &error);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(HrScenario) b = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (a->name, ==, "a\x1f" "b\x01" "c\x7f\n");
  node = hr_scenario_to_json (a);
  text = hr_json_node_to_string (node, TRUE);
  g_assert_nonnull (strstr (text, "a\\u001fb\\u0001c"));
  doc = hr_json_doc_load_data ("saved.json", text, -1, &error);
  g_assert_no_error (error);
  b = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (b->name, ==, a->name);
}

static void
test_copy (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) a = hr_test_parse_scenario (HEAD "  \"gpu\": \"rtx-4090\"\n}", &error);
  g_autoptr(HrScenario) b = hr_scenario_copy (a);

  g_assert_true (a->model != b->model);
  g_assert_true (a->gpu != b->gpu);
  g_assert_cmpstr (a->model->id, ==, b->model->id);
  g_clear_pointer (&a, hr_scenario_free);
  g_assert_cmpstr (b->gpu->id, ==, "rtx-4090");
}

/* The stacks' keys (data/SCENARIO.md, "Keys Headroom adds"): every value
 * is accepted, each means what it says, and a saved file reads back the
 * same. */
/* "detection_framework" and "focal_loss": mmdetection's fused focal loss
 * and norm_eval BatchNorm by default; detectron2 and torchvision compute
 * it in Python and freeze BatchNorm; "focal_loss" overrides either. */
static void
test_detection_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) none = hr_test_parse_scenario (HEAD "  \"task\": \"train\"\n}", &error);
  g_autoptr(HrScenario) d2 = hr_test_parse_scenario (
      HEAD "  \"detection_framework\": \"detectron2\"\n}", &error);
  g_autoptr(HrScenario) tv =
                 hr_test_parse_scenario (HEAD "  \"detection_framework\": \"torchvision\",\n"
                                              "  \"focal_loss\": \"fused\"\n}",
                                         &error);
  g_autoptr(HrScenario) mm =
                 hr_test_parse_scenario (HEAD "  \"detection_framework\": \"mmdetection\",\n"
                                              "  \"focal_loss\": \"python\"\n}",
                                         &error);

  g_assert_no_error (error);
  g_assert_cmpint (hr_scenario_get_focal_loss (none), ==, HR_ARCH_FOCAL_FUSED);
  g_assert_false (hr_scenario_get_detector_frozen_bn (none));
  g_assert_cmpint (hr_scenario_get_focal_loss (d2), ==, HR_ARCH_FOCAL_PYTHON);
  g_assert_true (hr_scenario_get_detector_frozen_bn (d2));
  g_assert_cmpint (hr_scenario_get_focal_loss (tv), ==, HR_ARCH_FOCAL_FUSED);
  g_assert_true (hr_scenario_get_detector_frozen_bn (tv));
  g_assert_cmpint (hr_scenario_get_focal_loss (mm), ==, HR_ARCH_FOCAL_PYTHON);
  g_assert_false (hr_scenario_get_detector_frozen_bn (mm));

  /* saved as given, absent when not given */
  {
    g_autoptr(JsonNode) saved = hr_scenario_to_json (tv);
    g_autoptr(JsonNode) plain = hr_scenario_to_json (none);
    JsonObject *o = json_node_get_object (saved);

    g_assert_cmpstr (json_object_get_string_member (o, "detection_framework"), ==,
                     "torchvision");
    g_assert_cmpstr (json_object_get_string_member (o, "focal_loss"), ==, "fused");
    g_assert_false (json_object_has_member (json_node_get_object (plain), "focal_loss"));
  }

  expect_error (HEAD "  \"detection_framework\": \"yolo\"\n}", 4, 26, "detection_framework");
  expect_error (HEAD "  \"focal_loss\": 1\n}", 4, 17, "focal_loss");
}

/* "pairwise_iou_keeps_corners": detectron2's IoU frees the corners
 * unless the run used its code before @baf6667e; the other frameworks'
 * keep them whatever the key says.  Saved where it is on. */
static void
test_pairwise_iou_keeps_corners (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) mm = hr_test_parse_scenario (HEAD "  \"task\": \"train\"\n}", &error);
  g_autoptr(HrScenario) d2 = hr_test_parse_scenario (
      HEAD "  \"detection_framework\": \"detectron2\"\n}", &error);
  g_autoptr(HrScenario) d2_2019 =
                 hr_test_parse_scenario (HEAD "  \"detection_framework\": \"detectron2\",\n"
                                              "  \"pairwise_iou_keeps_corners\": true\n}",
                                         &error);
  g_autoptr(HrScenario) tv = hr_test_parse_scenario (
      HEAD "  \"detection_framework\": \"torchvision\"\n}", &error);

  g_assert_no_error (error);
  g_assert_false (hr_scenario_get_iou_frees_corners (mm));
  g_assert_true (hr_scenario_get_iou_frees_corners (d2));
  g_assert_false (hr_scenario_get_iou_frees_corners (d2_2019));
  g_assert_false (hr_scenario_get_iou_frees_corners (tv));
  {
    g_autoptr(JsonNode) saved = hr_scenario_to_json (d2_2019);
    g_autoptr(JsonNode) plain = hr_scenario_to_json (d2);

    g_assert_true (json_object_get_boolean_member (json_node_get_object (saved),
                                                   "pairwise_iou_keeps_corners"));
    g_assert_false (json_object_has_member (json_node_get_object (plain),
                                            "pairwise_iou_keeps_corners"));
  }
  expect_error (HEAD "  \"pairwise_iou_keeps_corners\": 1\n}", 4, 33,
                "pairwise_iou_keeps_corners");
}

/* "pytorch_version": a release as MAJOR.MINOR (a patch allowed), saved
 * as MAJOR.MINOR; compared by release, not as text ("1.10" is after
 * "1.5"); anything else is refused at its line. */
static void
test_pytorch_version (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) none = hr_test_parse_scenario (HEAD "  \"task\": \"train\"\n}", &error);
  g_autoptr(HrScenario) old =
                 hr_test_parse_scenario (HEAD "  \"pytorch_version\": \"1.5\"\n}", &error);
  g_autoptr(HrScenario) ten =
                 hr_test_parse_scenario (HEAD "  \"pytorch_version\": \"1.10.2\"\n}", &error);
  g_autoptr(HrScenario) cur =
                 hr_test_parse_scenario (HEAD "  \"pytorch_version\": \"2.1\"\n}", &error);

  g_assert_no_error (error);
  g_assert_false (hr_scenario_pytorch_before (none, 1, 11));
  g_assert_true (hr_scenario_pytorch_before (old, 1, 11));
  g_assert_true (hr_scenario_pytorch_before (ten, 1, 11));
  g_assert_false (hr_scenario_pytorch_before (ten, 1, 10));
  g_assert_false (hr_scenario_pytorch_before (cur, 1, 11));
  g_assert_true (hr_scenario_pytorch_before (cur, 2, 2));

  {
    g_autoptr(JsonNode) saved = hr_scenario_to_json (ten);
    g_autoptr(JsonNode) plain = hr_scenario_to_json (none);

    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (saved),
                                                    "pytorch_version"), ==, "1.10");
    g_assert_false (json_object_has_member (json_node_get_object (plain), "pytorch_version"));
  }

  expect_error (HEAD "  \"pytorch_version\": \"latest\"\n}", 4, 22, "MAJOR.MINOR");
  expect_error (HEAD "  \"pytorch_version\": \"1\"\n}", 4, 22, "pytorch_version");
  expect_error (HEAD "  \"pytorch_version\": \"1.5.x\"\n}", 4, 22, "pytorch_version");
  expect_error (HEAD "  \"pytorch_version\": 1.5\n}", 4, 22, "written as a string");
  expect_error (HEAD "  \"pytorch_version\": true\n}", 4, 22, "pytorch_version");
}

static void
test_stack_keys (void)
{
  static const char *values[][2] = {
    { "stack", "\"transformers\"" }, { "stack", "\"litgpt\"" }, { "stack", "\"torchtune\"" },
    { "stack", "\"torchtitan\"" }, { "stack", "\"accelerate\"" }, { "stack", "\"trl\"" },
    { "stack", "\"deepspeed\"" }, { "stack", "\"lightning\"" }, { "stack", "\"unsloth\"" },
    { "stack", "\"axolotl\"" }, { "stack", "\"megatron\"" },
    { "sharding", "\"fsdp1\"" }, { "sharding", "\"fsdp2\"" },
    { "reshard_after_forward", "false" }, { "optimizer_in_bwd", "true" },
    { "activation_offload", "true" }, { "compile", "true" }, { "packed", "true" },
    { "optimizer", "\"paged-adamw\"" }, { "optimizer", "\"adamw-8bit-ao\"" },
    { "optimizer", "\"adamw-4bit\"" }, { "optimizer", "\"adamw-fp8\"" },
    { "optimizer_impl", "\"foreach\"" }, { "optimizer_impl", "\"fused\"" },
    { "optimizer_impl", "\"for-loop\"" },
    { "optimizer_state_dtype", "\"fp32\"" }, { "optimizer_state_dtype", "\"bf16\"" },
    { "compute", "\"fp16-pure\"" },
    { "method", "\"dora\"" }, { "method", "\"vera\"" }, { "method", "\"ia3\"" },
    { "method", "\"loha\"" }, { "method", "\"lokr\"" }, { "method", "\"oft\"" },
    { "method", "\"boft\"" }, { "method", "\"prefix\"" }, { "method", "\"prompt\"" },
    { "method", "\"layernorm\"" }, { "method", "\"lora-fa\"" }, { "method", "\"adalora\"" },
    { "lora", "{\"targets\": \"qv\"}" }, { "lora", "{\"targets\": \"mlp\"}" },
    { "lora", "{\"targets\": [\"q\", \"k\", \"v\", \"o\", \"gate\", \"up\", \"down\", \"embed\", "
              "\"lm_head\"]}" },
    { "peft", "{\"num_virtual_tokens\": 30, \"prefix_projection\": true, "
              "\"encoder_hidden_size\": 512, \"block_size\": 16, \"n_butterfly_factor\": 2, "
              "\"decompose_factor\": -1, \"decompose_both\": true, \"init_r\": 10, "
              "\"target_r\": 4, \"d_initial\": 0.1, \"save_projection\": false}" },
  };
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *one = g_strdup_printf ("{\"headroom_scenario\": 1, \"model\": "
                                              "\"llama-2-7b\", \"%s\": %s}",
                                              values[i][0], values[i][1]);
      g_autoptr(HrScenario) t = hr_test_parse_scenario (one, &error);

      if (t == NULL)
        g_error ("%s: %s", one, error->message);
    }

  /* DeepSpeed: its defaults, and what a file sets */
  {
    g_autoptr(HrScenario) z = hr_test_parse_scenario (
        HEAD "  \"sharding\": \"zero3\", \"gpus\": 4,\n"
             "  \"deepspeed\": {\"stage3_max_live_parameters\": 300000000,"
             " \"stage3_prefetch_bucket_size\": 1000,"
             " \"stage3_param_persistence_threshold\": 0,"
             " \"reduce_bucket_size\": 2000, \"allgather_bucket_size\": 3,"
             " \"stage3_max_reuse_distance\": 7, \"sub_group_size\": 9,"
             " \"offload_param\": \"nvme\","
             " \"offload_optimizer\": {\"device\": \"cpu\","
             " \"pin_memory\": true},"
             " \"overlap_comm\": false,"
             " \"contiguous_gradients\": false}\n}",
        &error);
    g_autoptr(HrScenario) d = hr_test_parse_scenario (
        HEAD "  \"sharding\": \"zero3\", \"gpus\": 4\n}", &error);

    g_assert_no_error (error);
    g_assert_true (z->has_deepspeed);
    g_assert_cmpuint (z->deepspeed.max_live_parameters, ==, 300000000);
    g_assert_cmpuint (z->deepspeed.prefetch_bucket_size, ==, 1000);
    g_assert_cmpuint (z->deepspeed.param_persistence_threshold, ==, 0);
    g_assert_cmpuint (z->deepspeed.reduce_bucket_size, ==, 2000);
    g_assert_cmpuint (z->deepspeed.max_reuse_distance, ==, 7);
    g_assert_cmpint (z->deepspeed.offload_param, ==, HR_OFFLOAD_DEVICE_NVME);
    g_assert_cmpint (z->deepspeed.offload_optimizer, ==, HR_OFFLOAD_DEVICE_CPU);
    g_assert_false (z->deepspeed.overlap_comm);
    g_assert_false (z->deepspeed.contiguous_gradients);
    /* deepspeed/runtime/zero/config.py */
    g_assert_false (d->has_deepspeed);
    g_assert_cmpuint (d->deepspeed.max_live_parameters, ==, 1000000000);
    g_assert_cmpuint (d->deepspeed.prefetch_bucket_size, ==, 50000000);
    g_assert_cmpuint (d->deepspeed.param_persistence_threshold, ==, 100000);
    g_assert_cmpuint (d->deepspeed.reduce_bucket_size, ==, 500000000);
    g_assert_true (d->deepspeed.contiguous_gradients);
  }

  /* chosen modules */
  {
    g_autoptr(HrScenario) m =
                   hr_test_parse_scenario (HEAD "  \"method\": \"lora\", \"lora\": {\"targets\": "
                                                "[\"gate\", \"down\"]}\n}",
                                           &error);

    g_assert_no_error (error);
    g_assert_cmpint (m->lora_targets, ==, HR_LORA_TARGETS_CUSTOM);
    g_assert_cmpuint (hr_scenario_get_lora_modules (m), ==, HR_MODULE_GATE | HR_MODULE_DOWN);
  }
}

/* A named stack sets what it does where the file is silent, and nothing
 * the file says. */
static void
test_stack_defaults (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) tt =
                 hr_test_parse_scenario (HEAD "  \"stack\": \"torchtune\", \"gpus\": 8\n}", &error);
  g_autoptr(HrScenario) tt_set =
                 hr_test_parse_scenario (HEAD "  \"stack\": \"torchtune\", \"gpus\": 8, "
                                              "\"compute\": \"bf16-mixed\", \"loss\": \"upcast\", "
                                              "\"sharding\": \"zero3\"\n}",
                                         &error);
  g_autoptr(HrScenario) lit =
                 hr_test_parse_scenario (HEAD "  \"stack\": \"litgpt\", \"gpus\": 2\n}", &error);
  g_autoptr(HrScenario) none = hr_test_parse_scenario (HEAD "  \"gpus\": 8\n}", &error);
  g_autoptr(HrScenario) hf =
                 hr_test_parse_scenario (HEAD "  \"stack\": \"transformers\"\n}", &error);

  g_assert_no_error (error);
  /* torchtune: dtype bf16, LinearCrossEntropyLoss, FSDP2, fused AdamW */
  g_assert_cmpint (tt->compute, ==, HR_COMPUTE_BF16_PURE);
  g_assert_cmpint (tt->loss, ==, HR_LOSS_CHUNKED);
  g_assert_cmpint (tt->sharding, ==, HR_SHARDING_FSDP);
  g_assert_cmpint (tt->optimizer_impl, ==, HR_OPTIMIZER_IMPL_FUSED);
  g_assert_cmpint (tt->optimizer_state_dtype, ==, HR_DTYPE_BF16);
  g_assert_cmpint (tt_set->compute, ==, HR_COMPUTE_BF16_MIXED);
  g_assert_cmpint (tt_set->loss, ==, HR_LOSS_UPCAST);
  g_assert_cmpint (tt_set->sharding, ==, HR_SHARDING_ZERO3);
  g_assert_cmpint (tt_set->optimizer_state_dtype, ==, HR_DTYPE_FP32);
  /* LitGPT: FSDPStrategy (FSDP1) and its chunked loss */
  g_assert_cmpint (lit->sharding, ==, HR_SHARDING_FSDP1);
  g_assert_cmpint (lit->loss, ==, HR_LOSS_CHUNKED);
  /* no stack: the contract's defaults */
  g_assert_cmpint (none->sharding, ==, HR_SHARDING_NONE);
  g_assert_cmpint (none->optimizer_impl, ==, HR_OPTIMIZER_IMPL_FOREACH);
  g_assert_cmpint (hf->optimizer_impl, ==, HR_OPTIMIZER_IMPL_FUSED);
}

static void
test_stack_key_errors (void)
{
  expect_error (HEAD "  \"stack\": \"torchtun\"\n}", 4, 12, "did you mean \"torchtune\"");
  expect_error (HEAD "  \"optimizer_in_bwd\": true, \"grad_accum\": 4\n}", 4, 23,
                "cannot accumulate gradients");
  expect_error (HEAD "  \"sharding\": \"zero2\", \"deepspeed\": {\"offload_param\": \"cpu\"}\n}",
                4, 37, "only with ZeRO-3");
  expect_error (HEAD "  \"deepspeed\": {\"reduce_bucket_size\": 1}\n}", 4, 16,
                "\"deepspeed\" configures ZeRO");
  expect_error (HEAD "  \"deepspeed\": {\"stage3_max_live\": 1}\n}", 4, 17, "stage3_max_live");
  expect_error (HEAD "  \"sharding\": \"zero3\", \"deepspeed\": {\"offload_optimizer\": "
                "{\"device\": \"gpu\"}}\n}", 4, 70, "\"device\" is \"gpu\"");
  expect_error (HEAD "  \"method\": \"lora\", \"lora\": {\"targets\": [\"q\", \"query\"]}\n}",
                4, 47, "each module in \"targets\" must be");
  expect_error (HEAD "  \"lora\": {\"targets\": []}\n}", 4, 23, "at least one module");
  expect_error (HEAD "  \"peft\": {\"decompose_factor\": 0}\n}", 4, 32, "decompose_factor");
  expect_error (HEAD "  \"peft\": {\"num_virtual_tokens\": 0}\n}", 4, 34, "num_virtual_tokens");
  expect_error (HEAD "  \"optimizer_state_dtype\": \"fp16\"\n}", 4, 28, "optimizer_state_dtype");
}

static void
test_stack_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) a = hr_test_parse_scenario (HEAD "  \"stack\": \"torchtune\", \"gpus\": 4, "
                                                    "\"method\": \"dora\", \"lora\": {\"targets\": [\"q\", \"v\", "
                                                    "\"down\"]},\n  \"reshard_after_forward\": false, "
                                                    "\"activation_offload\": true, \"compile\": true, "
                                                    "\"packed\": true, \"optimizer_impl\": \"for-loop\", "
                                                    "\"optimizer_state_dtype\": \"fp32\",\n"
                                                    "  \"peft\": {\"block_size\": 8, \"decompose_factor\": 4}\n}",
                                                    &error);
  g_autoptr(HrScenario) z = hr_test_parse_scenario (
      HEAD "  \"sharding\": \"zero3\", \"gpus\": 2, \"deepspeed\": "
           "{\"stage3_param_persistence_threshold\": 5, "
           "\"offload_optimizer\": \"nvme\", \"overlap_comm\": true}\n}",
      &error);

  g_assert_no_error (error);
  for (guint k = 0; k < 2; k++)
    {
      HrScenario *s = k == 0 ? a : z;
      g_autoptr(JsonNode) node = hr_scenario_to_json (s);
      g_autofree char *text = hr_json_node_to_string (node, TRUE);
      g_autoptr(HrScenario) b = hr_test_parse_scenario (text, &error);
      g_autoptr(HrEstimate) ea = NULL;
      g_autoptr(HrEstimate) eb = NULL;

      g_assert_no_error (error);
      g_assert_cmpint (b->stack_set, ==, s->stack_set);
      g_assert_cmpint (b->stack, ==, s->stack);
      g_assert_cmpint (b->sharding, ==, s->sharding);
      g_assert_cmpint (b->method, ==, s->method);
      g_assert_cmpuint (hr_scenario_get_lora_modules (b), ==, hr_scenario_get_lora_modules (s));
      g_assert_cmpint (b->reshard_after_forward, ==, s->reshard_after_forward);
      g_assert_cmpint (b->activation_offload, ==, s->activation_offload);
      g_assert_cmpint (b->compile, ==, s->compile);
      g_assert_cmpint (b->packed, ==, s->packed);
      g_assert_cmpint (b->optimizer_impl, ==, s->optimizer_impl);
      g_assert_cmpint (b->optimizer_state_dtype, ==, s->optimizer_state_dtype);
      g_assert_cmpuint (b->peft.set, ==, s->peft.set);
      g_assert_cmpint (b->peft.decompose_factor, ==, s->peft.decompose_factor);
      g_assert_cmpuint (b->deepspeed.set, ==, s->deepspeed.set);
      g_assert_cmpuint (b->deepspeed.param_persistence_threshold, ==,
                        s->deepspeed.param_persistence_threshold);
      g_assert_cmpint (b->deepspeed.offload_optimizer, ==, s->deepspeed.offload_optimizer);
      ea = hr_estimate_new (s);
      eb = hr_estimate_new (b);
      g_assert_cmpuint (ea->total, ==, eb->total);
    }
}


/* Parallelism, mixtures of experts and serving engines: combinations the
 * frameworks refuse are refused, naming the key. */
static void
test_parallel_key_errors (void)
{
  expect_error (HEAD "  \"gpus\": 6, \"tensor_parallel\": 4\n}", 4, 11,
                "must be a multiple of tensor_parallel");
  expect_error (HEAD "  \"pipeline_parallel\": 64, \"gpus\": 64\n}", 4, 24,
                "the model has 32");
  expect_error (HEAD "  \"virtual_stages\": 2\n}", 4, 21, "interleaved");
  expect_error (HEAD "  \"expert_parallel\": 2, \"gpus\": 2\n}", 4, 22, "has no experts");
  expect_error (HEAD "  \"capacity_factor\": 1.25\n}", 4, 22, "has no experts");
  expect_error (HEAD "  \"engine\": \"vllm\"\n}", 4, 13, "serves a model");
  expect_error (HEAD "  \"task\": \"inference\",\n  \"gpu_memory_utilization\": 0.8\n}", 5, 29,
                "is vLLM's");
  expect_error (HEAD "  \"task\": \"inference\", \"engine\": \"vllm\",\n  \"gpu_layers\": 10\n}", 5,
                17, "llama.cpp's -ngl");
  expect_error (HEAD "  \"task\": \"inference\", \"engine\": \"sglang\",\n"
                "  \"mem_fraction_static\": 1.5\n}", 5, 26, "mem_fraction_static");
  expect_error (HEAD "  \"pipeline_schedule\": \"zero-bubble\"\n}", 4, 24, "1f1b");
  expect_error ("{\n  \"headroom_scenario\": 1,\n  \"model\": \"mixtral-8x7b\",\n"
                "  \"expert_parallel\": 3, \"gpus\": 3\n}", 4, 22, "must divide the 8 experts");
}

static void
test_parallel_round_trip (void)
{
  static const char *texts[] = {
    "{\"headroom_scenario\": 1, \"model\": \"mixtral-8x7b\", \"gpus\": 64, "
    "\"tensor_parallel\": 2, \"sequence_parallel\": true, \"pipeline_parallel\": 4, "
    "\"pipeline_schedule\": \"interleaved\", \"virtual_stages\": 4, \"context_parallel\": 2, "
    "\"expert_parallel\": 4, \"capacity_factor\": 1.25, \"grad_accum\": 8, "
    "\"sharding\": \"zero1\", \"stack\": \"megatron\"}",
    "{\"headroom_scenario\": 1, \"model\": \"qwen3-30b-a3b\", \"task\": \"inference\", "
    "\"engine\": \"vllm\", \"gpu_memory_utilization\": 0.85, \"max_num_seqs\": 64, "
    "\"block_size\": 32, \"enforce_eager\": true, \"gpu\": \"h100-sxm\"}",
    "{\"headroom_scenario\": 1, \"model\": \"qwen3-30b-a3b\", \"task\": \"inference\", "
    "\"engine\": \"llama.cpp\", \"gpu_layers\": 20, \"kv_dtype\": \"q4_0\", "
    "\"weights_dtype\": \"int4\"}",
    "{\"headroom_scenario\": 1, \"model\": \"llama-2-7b\", \"stack\": \"none\", "
    "\"sharding\": \"fsdp\", \"gpus\": 2}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrScenario) a = hr_test_parse_scenario (texts[i], &error);
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *text = NULL;
      g_autoptr(HrScenario) b = NULL;
      g_autoptr(HrEstimate) ea = NULL;
      g_autoptr(HrEstimate) eb = NULL;

      g_assert_no_error (error);
      node = hr_scenario_to_json (a);
      text = hr_json_node_to_string (node, TRUE);
      b = hr_test_parse_scenario (text, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (b->tensor_parallel, ==, a->tensor_parallel);
      g_assert_cmpint (b->sequence_parallel, ==, a->sequence_parallel);
      g_assert_cmpuint (b->pipeline_parallel, ==, a->pipeline_parallel);
      g_assert_cmpint (b->pipeline_schedule, ==, a->pipeline_schedule);
      g_assert_cmpuint (b->virtual_stages, ==, a->virtual_stages);
      g_assert_cmpuint (b->context_parallel, ==, a->context_parallel);
      g_assert_cmpuint (b->expert_parallel, ==, a->expert_parallel);
      g_assert_cmpint (b->capacity_factor_set, ==, a->capacity_factor_set);
      g_assert_cmpfloat (b->capacity_factor, ==, a->capacity_factor);
      g_assert_cmpint (b->engine, ==, a->engine);
      g_assert_cmpfloat (b->gpu_memory_utilization, ==, a->gpu_memory_utilization);
      g_assert_cmpuint (b->max_num_seqs, ==, a->max_num_seqs);
      g_assert_cmpuint (b->block_size, ==, a->block_size);
      g_assert_cmpint (b->enforce_eager, ==, a->enforce_eager);
      g_assert_cmpuint (b->gpu_layers, ==, a->gpu_layers);
      g_assert_cmpint (b->kv_dtype, ==, a->kv_dtype);
      g_assert_cmpint (b->stack_set, ==, a->stack_set);
      g_assert_cmpint (b->sharding_unversioned, ==, a->sharding_unversioned);
      ea = hr_estimate_new (a);
      eb = hr_estimate_new (b);
      g_assert_cmpuint (ea->total, ==, eb->total);
      g_assert_cmpuint (ea->high, ==, eb->high);
    }

  /* "stack": "none" is the generic estimate; "fsdp" stays unversioned,
   * "fsdp2" written back as such */
  {
    g_autoptr(HrScenario) none = hr_test_parse_scenario (texts[3], NULL);
    g_autoptr(HrScenario) v2 =
                   hr_test_parse_scenario (HEAD "  \"sharding\": \"fsdp2\", \"gpus\": 2\n}", NULL);
    g_autoptr(JsonNode) node = hr_scenario_to_json (v2);
    g_autofree char *text = hr_json_node_to_string (node, FALSE);

    g_assert_false (none->stack_set);
    g_assert_true (none->sharding_unversioned);
    g_assert_false (v2->sharding_unversioned);
    g_assert_nonnull (strstr (text, "\"fsdp2\""));
  }

  /* an engine's keys out of their context are left out, and the file
   * reads back */
  {
    g_autoptr(HrScenario) s = hr_test_parse_scenario (texts[1], NULL);
    g_autoptr(JsonNode) node = NULL;
    g_autofree char *text = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(HrScenario) back = NULL;

    s->task = HR_TASK_FINETUNE;
    node = hr_scenario_to_json (s);
    text = hr_json_node_to_string (node, FALSE);
    back = hr_test_parse_scenario (text, &error);
    g_assert_no_error (error);
    g_assert_null (strstr (text, "gpu_memory_utilization"));
  }
}

/* hr_json_format_double() at most three conversions gives what trying
 * every precision from 1 to 17 digits gave: the shortest text that reads
 * back as the same double. */
static void
test_shortest_double (void)
{
  GRand *rand = g_rand_new_with_seed (20261201);

  for (guint i = 0; i < 60000; i++)
    {
      char fast[G_ASCII_DTOSTR_BUF_SIZE + 2];
      char slow[G_ASCII_DTOSTR_BUF_SIZE + 2];
      double value;

      /* any bit pattern, decimals of a few digits, and sizes */
      if (i % 3 == 0)
        {
          guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

          memcpy (&value, &bits, sizeof value);
          if (!isfinite (value))
            continue;
        }
      else if (i % 3 == 1)
        value = g_rand_int_range (rand, -1000000, 1000000) /
                pow (10, g_rand_int_range (rand, 0, 9));
      else
        value = g_rand_double_range (rand, 0, 1e13);

      hr_json_format_double (fast, value);
      for (int digits = 1; digits <= 17; digits++)
        {
          char format[8];

          g_snprintf (format, sizeof format, "%%.%dg", digits);
          g_ascii_formatd (slow, G_ASCII_DTOSTR_BUF_SIZE, format, value);
          if (g_ascii_strtod (slow, NULL) == value)
            break;
        }
      if (strpbrk (slow, ".eE") == NULL)
        strcat (slow, ".0");
      g_assert_cmpstr (fast, ==, slow);
      g_assert_true (g_ascii_strtod (fast, NULL) == value);
    }
  g_rand_free (rand);
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scenario/defaults", test_minimal_defaults);
  g_test_add_func ("/scenario/dependent-defaults", test_dependent_defaults);
  g_test_add_func ("/scenario/every-key", test_every_key);
  g_test_add_func ("/scenario/malformed", test_malformed);
  g_test_add_func ("/scenario/binary-and-encoding", test_binary_and_encoding);
  g_test_add_func ("/scenario/file-errors", test_file_errors);
  g_test_add_func ("/scenario/set", test_set);
  g_test_add_func ("/scenario/round-trip", test_round_trip);
  g_test_add_func ("/scenario/keeps-every-key", test_keeps_every_key);
  g_test_add_func ("/scenario/keeps-nested-keys", test_keeps_nested_keys);
  g_test_add_func ("/scenario/round-trip-control-characters",
                   test_round_trip_control_characters);
  g_test_add_func ("/scenario/copy", test_copy);
  g_test_add_func ("/scenario/stack-keys", test_stack_keys);
  g_test_add_func ("/scenario/stack-defaults", test_stack_defaults);
  g_test_add_func ("/scenario/stack-key-errors", test_stack_key_errors);
  g_test_add_func ("/scenario/stack-round-trip", test_stack_round_trip);
  g_test_add_func ("/scenario/parallel-key-errors", test_parallel_key_errors);
  g_test_add_func ("/scenario/parallel-round-trip", test_parallel_round_trip);
  g_test_add_func ("/json/shortest-double", test_shortest_double);
  g_test_add_func ("/scenario/detection-keys", test_detection_keys);
  g_test_add_func ("/scenario/pairwise-iou-keeps-corners", test_pairwise_iou_keeps_corners);
  g_test_add_func ("/scenario/pytorch-version", test_pytorch_version);

  return g_test_run ();
}
