/* hr-test-utils.c: what several tests and benchmarks share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

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

HrScenario *
hr_test_parse_scenario (const char  *text,
                        GError     **error)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json", text, -1, error);

  if (doc == NULL)
    return NULL;
  return hr_scenario_new_from_doc (doc, hr_catalog_get_default (), error);
}

void
hr_test_expect_scenario_error (const char *text,
                               const char *phrase)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_test_parse_scenario (text, &error);

  g_assert_null (s);
  g_assert_nonnull (error);
  if (strstr (error->message, phrase) == NULL)
    g_error ("expected \"%s\" in: %s", phrase, error->message);
  /* the message names the file, the line and the column */
  g_assert_true (g_str_has_prefix (error->message, "s.json:"));
}

double
hr_test_item_bytes_basis (const HrEstimate *est,
                          HrBucket          bucket,
                          const char       *label_part,
                          HrBasis          *basis)
{
  double sum = 0;

  for (guint i = 0; i < est->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->items, i);

      if (item->bucket == bucket &&
          (label_part == NULL || strstr (item->label, label_part) != NULL))
        {
          sum += item->bytes;
          if (basis != NULL)
            *basis = item->basis;
        }
    }
  return sum;
}

double
hr_test_item_bytes (const HrEstimate *est,
                    HrBucket          bucket,
                    const char       *label_part)
{
  return hr_test_item_bytes_basis (est, bucket, label_part, NULL);
}
