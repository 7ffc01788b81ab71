/* fuzz-catalog.c: libFuzzer target for user catalog files
 *
 * The bytes are read as a user's models.json and as a user's gpus.json,
 * each loaded twice into one catalog (the second load overrides every
 * entry of the first, as a user file overrides the built-in one).  An
 * accepted file leaves every entry findable by its id, each entry's JSON
 * reads back as the same entry, and a scenario for each model estimates
 * within SCENARIO.md's invariants.  A refused file leaves the catalog as
 * it was.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-catalog"

#include <string.h>

#include "hr-fuzz.h"

/* Estimating is the slow part: a file with thousands of models is no more
 * interesting after the first few. */
#define MAX_ESTIMATED_MODELS 2

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  hr_fuzz_setup ();
  return 0;
}

static void
check_models (HrCatalog *catalog)
{
  GPtrArray *models = hr_catalog_get_models (catalog);

  for (guint i = 0; i < models->len; i++)
    {
      const HrModel *model = g_ptr_array_index (models, i);
      g_autofree char *text = NULL;
      g_autoptr(HrJsonDoc) doc = NULL;
      g_autoptr(HrModel) again = NULL;
      g_autoptr(GError) error = NULL;
      guint64 parts = 0;

      HR_FUZZ_CHECK (hr_catalog_find_model (catalog, model->id) == model, "%s", model->id);

      for (guint j = 0; j < model->components->len; j++)
        parts += ((const HrComponent *) g_ptr_array_index (model->components, j))->params;

      /* The parts may differ from "params" by the 2% a model card rounds. */
      HR_FUZZ_CHECK (hr_model_trainable_default (model) <= parts, "%s", model->id);
      HR_FUZZ_CHECK (parts <= model->params + model->params / 50 + 1, "%s", model->id);
      HR_FUZZ_CHECK (model->components->len > 0, "%s has no component", model->id);

      /* The entry as `models --json` prints it and a scenario saves it. */
      HR_FUZZ_CHECK (model->json != NULL, "%s keeps no JSON", model->id);
      text = hr_json_node_to_string (model->json, FALSE);
      doc = hr_json_doc_load_data ("saved.json", text, -1, &error);
      HR_FUZZ_CHECK (doc != NULL, "%s: %s", text, error->message);
      again = hr_model_from_json (doc, "", hr_json_doc_get_root (doc), &error);
      HR_FUZZ_CHECK (again != NULL, "%s: %s", text, error->message);
      HR_FUZZ_CHECK (g_str_equal (again->id, model->id) && again->params == model->params &&
                     again->components->len == model->components->len,
                     "%s reads back differently", text);

      if (i < MAX_ESTIMATED_MODELS)
        {
          g_autoptr(HrScenario) scenario = hr_scenario_new_for_model (model);

          hr_fuzz_check_estimate (scenario);
        }
    }
}

static void
check_gpus (HrCatalog *catalog)
{
  GPtrArray *gpus = hr_catalog_get_gpus (catalog);

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);
      g_autofree char *text = NULL;
      g_autoptr(HrJsonDoc) doc = NULL;
      g_autoptr(HrGpu) again = NULL;
      g_autoptr(GError) error = NULL;

      HR_FUZZ_CHECK (hr_catalog_find_gpu (catalog, gpu->id) == gpu, "%s", gpu->id);
      HR_FUZZ_CHECK (gpu->memory > 0, "%s holds no memory", gpu->id);
      HR_FUZZ_CHECK (gpu->json != NULL, "%s keeps no JSON", gpu->id);
      text = hr_json_node_to_string (gpu->json, FALSE);
      doc = hr_json_doc_load_data ("saved.json", text, -1, &error);
      HR_FUZZ_CHECK (doc != NULL, "%s: %s", text, error->message);
      again = hr_gpu_from_json (doc, "", hr_json_doc_get_root (doc), &error);
      HR_FUZZ_CHECK (again != NULL, "%s: %s", text, error->message);
      HR_FUZZ_CHECK (g_str_equal (again->id, gpu->id) && again->memory == gpu->memory,
                     "%s reads back differently", text);
    }
}

static void
load_twice (HrJsonDoc *doc,
            gboolean   models)
{
  g_autoptr(HrCatalog) catalog = hr_catalog_new ();

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(GError) error = NULL;
      guint before = models ? hr_catalog_get_models (catalog)->len
                            : hr_catalog_get_gpus (catalog)->len;
      gboolean ok = models ? hr_catalog_load_models (catalog, doc, &error)
                           : hr_catalog_load_gpus (catalog, doc, &error);
      guint after = models ? hr_catalog_get_models (catalog)->len
                           : hr_catalog_get_gpus (catalog)->len;

      if (!ok)
        {
          hr_fuzz_check_error (error);
          HR_FUZZ_CHECK (g_str_has_prefix (error->message, "fuzz.json:"), "%s", error->message);
          HR_FUZZ_CHECK (before == after, "a refused file changed the catalog");
          return;
        }

      /* Loading the same file again overrides, never adds. */
      if (round == 1)
        HR_FUZZ_CHECK (before == after, "%u entries, then %u", before, after);
    }

  if (models)
    check_models (catalog);
  else
    check_gpus (catalog);
}

static int
fuzz_one (const uint8_t *data,
          size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;

  doc = hr_json_doc_load_data ("fuzz.json", (const char *) data, size, &error);
  if (doc == NULL)
    {
      hr_fuzz_check_error (error);
      return 0;
    }

  load_twice (doc, TRUE);
  load_twice (doc, FALSE);
  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
