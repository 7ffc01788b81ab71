/* analysis-figures.c: the figures of an analysis made directly, for
 * test-snapshot-sweep.py to set headroom-cli's beside
 *
 * Usage: analysis-figures SCENARIO MEASUREMENT...
 *
 * Prints, as JSON, what the analysis of SCENARIO with the measurements
 * (their snapshots taken together as one sweep, calibration on) says: the
 * estimate per GPU, the scenario's card's fit and the calibration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <locale.h>
#include <stdio.h>

#include "hr-core.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = NULL;
  GDestroyNotify free_measurement = (GDestroyNotify) hr_measurement_free;
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func (free_measurement);
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  HrAnalysisOptions options = { 0 };
  const HrEstimate *est;
  const HrAnalysisGpu *own;
  const HrCalibration *calibration;
  const HrAnalysisMeasurement *sweep;

  setlocale (LC_ALL, "");
  if (argc < 3)
    {
      fprintf (stderr, "usage: analysis-figures SCENARIO MEASUREMENT...\n");
      return 2;
    }
  scenario = hr_scenario_load (argv[1], hr_catalog_get_default (), &error);
  if (scenario == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  for (int i = 2; i < argc; i++)
    {
      HrMeasureOptions measure_options = { 0 };
      HrMeasurement *m = hr_measurement_load_file (argv[i], &measure_options, &error);

      if (m == NULL)
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      g_ptr_array_add (measurements, m);
    }

  options.measurements = measurements;
  options.sweep_snapshots = TRUE;
  options.use_calibration = TRUE;
  analysis = hr_analysis_new (scenario, &options);
  est = hr_analysis_get_estimate (analysis);
  own = hr_analysis_get_own_gpu (analysis);
  calibration = hr_analysis_get_calibration (analysis);
  sweep = hr_analysis_get_snapshot_sweep (analysis);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "calibrated");
  json_builder_add_boolean_value (b, calibration != NULL);
  json_builder_set_member_name (b, "calibration_text");
  json_builder_add_string_value (b, hr_analysis_get_calibration_text (analysis));
  json_builder_set_member_name (b, "n_measurements");
  json_builder_add_int_value (b, hr_analysis_get_n_measurements (analysis));
  json_builder_set_member_name (b, "sweep");
  json_builder_add_string_value (b, sweep != NULL ? sweep->measurement->name : NULL);
  json_builder_set_member_name (b, "per_gpu");
  json_builder_begin_object (b);
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      json_builder_set_member_name (b, hr_enum_to_nick (hr_bucket_names, i));
      json_builder_add_int_value (b, est->buckets[i]);
    }
  json_builder_set_member_name (b, "total");
  json_builder_add_int_value (b, est->total);
  json_builder_set_member_name (b, "low");
  json_builder_add_int_value (b, est->low);
  json_builder_set_member_name (b, "high");
  json_builder_add_int_value (b, est->high);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "max_micro_batch");
  json_builder_add_int_value (b, own != NULL ? own->max_micro_batch : 0);
  json_builder_set_member_name (b, "need");
  json_builder_add_int_value (b, own != NULL ? own->need : 0);
  json_builder_set_member_name (b, "activation_scale");
  json_builder_add_double_value (b, calibration != NULL ? calibration->activation_scale : 0);
  json_builder_set_member_name (b, "overhead_shift");
  json_builder_add_double_value (b, calibration != NULL ? calibration->overhead_shift : 0);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
  return 0;
}
