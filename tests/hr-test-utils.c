/* hr-test-utils.c: what several tests and benchmarks share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "hr-test-utils.h"

HrScenario *
hr_test_scenario (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("test", json, -1, &error);
  HrScenario *s;

  g_assert_no_error (error);
  s = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  return s;
}

HrScenario *
hr_test_scenariof (const char *format,
                   ...)
{
  g_autofree char *json = NULL;
  va_list args;

  va_start (args, format);
  json = g_strdup_vprintf (format, args);
  va_end (args);
  return hr_test_scenario (json);
}
