/* fuzz-scenario.c: libFuzzer target for scenario files
 *
 * Any bytes either become a scenario or a one-line positioned message.  An
 * accepted scenario saves to JSON that reads back as the same scenario (the
 * save is a fixed point and the estimates agree), and its estimate keeps
 * SCENARIO.md's invariants.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-scenario"

#include <string.h>

#include "hr-fuzz.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  hr_fuzz_setup ();
  return 0;
}

static char *
scenario_text (const HrScenario *scenario)
{
  g_autoptr(JsonNode) node = hr_scenario_to_json (scenario);

  return hr_json_node_to_string (node, TRUE);
}

static int
fuzz_one (const uint8_t *data,
          size_t         size)
{
  HrCatalog *catalog = hr_catalog_get_default ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(HrJsonDoc) again_doc = NULL;
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrScenario) again = NULL;
  g_autoptr(HrEstimate) est = NULL;
  g_autoptr(HrEstimate) again_est = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again_text = NULL;

  doc = hr_json_doc_load_data ("fuzz.json", (const char *) data, size, &error);
  if (doc == NULL)
    {
      hr_fuzz_check_error (error);
      return 0;
    }

  scenario = hr_scenario_new_from_doc (doc, catalog, &error);
  if (scenario == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, "fuzz.json:"), "%s", error->message);
      return 0;
    }

  /* Saving and opening again gives the same scenario. */
  text = scenario_text (scenario);
  again_doc = hr_json_doc_load_data ("saved.json", text, -1, &error);
  HR_FUZZ_CHECK (again_doc != NULL, "saved scenario does not parse: %s\n%s",
                 error->message, text);
  again = hr_scenario_new_from_doc (again_doc, catalog, &error);
  HR_FUZZ_CHECK (again != NULL, "saved scenario is refused: %s\n%s", error->message, text);
  again_text = scenario_text (again);
  HR_FUZZ_CHECK (g_str_equal (text, again_text), "saving twice differs:\n%s\n%s", text,
                 again_text);

  hr_fuzz_check_estimate (scenario);

  est = hr_estimate_new (scenario);
  again_est = hr_estimate_new (again);
  HR_FUZZ_CHECK (est->total == again_est->total && est->low == again_est->low &&
                 est->high == again_est->high && est->max_micro_batch ==
                 again_est->max_micro_batch,
                 "the saved scenario estimates differently:\n%s", text);

  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
