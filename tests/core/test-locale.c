/* test-locale.c: files written under a comma-decimal locale read back
 * identically anywhere
 *
 * A desktop in German, French or Russian formats 0.15 as "0,15".  Headroom
 * writes scenarios, catalogs and CSV with '.', whatever the locale, and
 * reads them the same way: a file saved under de_DE opens identically
 * under C, and the other way round.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

#define COMMA_LOCALE "de_DE.UTF-8"

/* Fractions in every place a scenario holds one: the reserve, an inline
 * GPU's throughput and price, an inline model's calibrated activations. */
static const char scenario_json[] =
  "{\"headroom_scenario\": 1, \"name\": \"Komma 0,5\", \"reserve\": 0.15,"
  " \"model\": {\"id\": \"cnn\", \"name\": \"CNN\", \"params\": 25557032, \"source\": \"t\","
  "   \"components\": [{\"name\": \"body\", \"kind\": \"cnn\", \"params\": 25557032,"
  "     \"activation\": {\"bytes_per_sample\": 104857600.5e0, \"dtype\": \"fp16\","
  "       \"at_image_size\": [224, 224], \"spread\": 0.35, \"source\": \"t\"}}]},"
  " \"gpu\": {\"id\": \"card\", \"name\": \"Card\", \"memory\": 24000000000,"
  "   \"fp32_tflops\": 82.58, \"price_usd\": 1599.99, \"cloud_usd_per_hour\": 0.35}}";

static char *
saved_text (const HrScenario *scenario)
{
  g_autofree char *dir = g_dir_make_tmp ("headroom-locale-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_assert_true (hr_scenario_save (scenario, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_rmdir (dir);
  return text;
}

static HrScenario *
load_text (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("s.json", text, -1, &error);
  HrScenario *scenario;

  g_assert_no_error (error);
  scenario = hr_scenario_new_from_doc (doc, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  return scenario;
}

static void
test_round_trip (void)
{
  g_autoptr(HrScenario) in_c = NULL;
  g_autoptr(HrScenario) in_de = NULL;
  g_autoptr(HrScenario) back_in_c = NULL;
  g_autoptr(HrEstimate) est_c = NULL;
  g_autoptr(HrEstimate) est_de = NULL;
  g_autofree char *written_c = NULL;
  g_autofree char *written_de = NULL;
  g_autofree char *again_c = NULL;

  if (setlocale (LC_ALL, COMMA_LOCALE) == NULL)
    {
      /* .ci/run installs it; a machine without it cannot run this test. */
      g_test_skip ("the " COMMA_LOCALE " locale is not installed");
      return;
    }
  setlocale (LC_ALL, "C.UTF-8");

  in_c = load_text (scenario_json);
  written_c = saved_text (in_c);
  est_c = hr_estimate_new (in_c);

  /* Read and write the same file under a comma-decimal locale. */
  setlocale (LC_ALL, COMMA_LOCALE);
  g_assert_cmpstr (localeconv ()->decimal_point, ==, ",");
  in_de = load_text (written_c);
  g_assert_cmpfloat (in_de->reserve, ==, 0.15);
  g_assert_cmpfloat (in_de->gpu->fp32_tflops, ==, 82.58);
  written_de = saved_text (in_de);
  est_de = hr_estimate_new (in_de);

  /* ... and read what it wrote back in the C locale. */
  setlocale (LC_ALL, "C.UTF-8");
  back_in_c = load_text (written_de);
  again_c = saved_text (back_in_c);

  g_assert_cmpstr (written_de, ==, written_c);
  g_assert_cmpstr (again_c, ==, written_c);
  g_assert_nonnull (strstr (written_c, "0.15"));
  g_assert_null (strstr (written_c, "0,15"));
  g_assert_cmpuint (est_de->total, ==, est_c->total);
  g_assert_cmpuint (est_de->low, ==, est_c->low);
  g_assert_cmpuint (est_de->high, ==, est_c->high);
  g_assert_cmpuint (est_de->max_micro_batch, ==, est_c->max_micro_batch);
}

/* A CSV number cell written under de_DE is still a number elsewhere. */
static void
test_csv_numbers (void)
{
  g_autoptr(GString) line = g_string_new (NULL);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (setlocale (LC_ALL, COMMA_LOCALE) == NULL)
    {
      g_test_skip ("the " COMMA_LOCALE " locale is not installed");
      return;
    }

  hr_csv_append_text (line, g_ascii_dtostr (buf, sizeof buf, -3.5));
  g_assert_cmpstr (line->str, ==, "-3.5");
  g_assert_true (hr_csv_is_number ("-3.5"));
  g_assert_false (hr_csv_is_number ("-3,5"));
  setlocale (LC_ALL, "C.UTF-8");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/locale/scenario-round-trip", test_round_trip);
  g_test_add_func ("/locale/csv-numbers", test_csv_numbers);
  return g_test_run ();
}
