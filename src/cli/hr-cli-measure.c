/* hr-cli-measure.c: the measure command, and measured points on the curve
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "hr-cli-measure.h"

static void
add_nullable (JsonBuilder *builder,
              const char  *name,
              double       value)
{
  json_builder_set_member_name (builder, name);
  if (isnan (value))
    json_builder_add_null_value (builder);
  else
    json_builder_add_double_value (builder, value);
}

static void
add_int (JsonBuilder *builder,
         const char  *name,
         double       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, (gint64) llround (value));
}

static void
add_fit_json (JsonBuilder *builder,
              const HrFit *fit)
{
  json_builder_begin_object (builder);
  add_int (builder, "floor", fit->floor);
  add_int (builder, "per_sample", fit->per_sample);
  json_builder_set_member_name (builder, "r2");
  json_builder_add_double_value (builder, fit->r2);
  json_builder_set_member_name (builder, "metric");
  json_builder_add_string_value (builder, hr_enum_to_nick (hr_metric_names, fit->metric));
  json_builder_set_member_name (builder, "series");
  json_builder_add_string_value (builder, fit->series);
  json_builder_set_member_name (builder, "points");
  json_builder_add_int_value (builder, fit->n_points);
  add_int (builder, "rmse", fit->rmse);
  if (fit->has_seq)
    {
      json_builder_set_member_name (builder, "per_token");
      json_builder_add_double_value (builder, fit->per_token);
      json_builder_set_member_name (builder, "per_token2");
      json_builder_add_double_value (builder, fit->per_token2);
    }
  json_builder_end_object (builder);
}

static void
add_match_json (JsonBuilder          *builder,
                const HrMeasureMatch *match)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "matches");
  json_builder_add_boolean_value (builder, !match->differs);
  json_builder_set_member_name (builder, "can_calibrate");
  json_builder_add_boolean_value (builder, match->can_calibrate);
  json_builder_set_member_name (builder, "summary");
  json_builder_add_string_value (builder, match->summary);
  for (guint i = 0; i < HR_MATCH_N_ITEMS; i++)
    {
      json_builder_set_member_name (builder, hr_enum_to_nick (hr_match_item_names, i));
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "state");
      json_builder_add_string_value (builder, hr_enum_to_nick (hr_match_state_names,
                                                               match->state[i]));
      json_builder_set_member_name (builder, "measured");
      if (match->measured[i] != NULL)
        json_builder_add_string_value (builder, match->measured[i]);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "scenario");
      if (match->scenario[i] != NULL)
        json_builder_add_string_value (builder, match->scenario[i]);
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
}

/* The comparison with the scenario: the points against the (uncalibrated)
 * estimate, whether the measurement is of the scenario's setup, and each
 * card's largest micro-batch from the analysis, calibrated where the
 * measurement may calibrate it. */
static void
add_comparison_json (JsonBuilder         *builder,
                     HrAnalysis          *plain,
                     HrAnalysis          *calibrated,
                     const HrCalibration *calibration)
{
  const HrScenario *scenario = hr_analysis_get_scenario (plain);
  const HrMeasureMatch *match = hr_analysis_get_measurement (plain, 0)->match;
  gboolean applied = hr_analysis_get_calibration (calibrated) != NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "scenario");
  json_builder_add_string_value (builder, scenario->name != NULL ? scenario->name
                                                                 : scenario->model->name);
  json_builder_set_member_name (builder, "match");
  add_match_json (builder, match);
  json_builder_set_member_name (builder, "metric");
  json_builder_add_string_value (builder, hr_enum_to_nick (hr_metric_names, calibration->metric));

  json_builder_set_member_name (builder, "points");
  json_builder_begin_array (builder);
  for (guint i = 0; i < calibration->points->len; i++)
    {
      const HrCalibrationPoint *p = &g_array_index (calibration->points, HrCalibrationPoint, i);

      json_builder_begin_object (builder);
      add_int (builder, "batch", p->batch);
      add_int (builder, "measured", p->measured);
      add_int (builder, "predicted", p->predicted);
      add_int (builder, "error", p->predicted - p->measured);
      json_builder_set_member_name (builder, "relative_error");
      json_builder_add_double_value (builder, p->measured > 0 ? (p->predicted - p->measured) /
                                                                p->measured : 0);
      add_int (builder, "calibrated", p->calibrated);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "uncalibrated");
  json_builder_begin_object (builder);
  add_int (builder, "mean_error", calibration->mean_error);
  add_int (builder, "mean_abs_error", calibration->mean_abs_error);
  json_builder_set_member_name (builder, "mean_relative_error");
  json_builder_add_double_value (builder, calibration->mean_relative_error);
  json_builder_set_member_name (builder, "max_relative_error");
  json_builder_add_double_value (builder, calibration->max_relative_error);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "calibration");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "applied");
  json_builder_add_boolean_value (builder, applied);
  json_builder_set_member_name (builder, "activation_scale");
  json_builder_add_double_value (builder, calibration->activation_scale);
  add_int (builder, "overhead_shift", calibration->overhead_shift);
  add_int (builder, "band", calibration->band_bytes);
  json_builder_set_member_name (builder, "band_fraction");
  json_builder_add_double_value (builder, calibration->band_fraction);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "gpus");
  json_builder_begin_array (builder);
  for (guint i = 0; i < hr_analysis_get_n_gpus (plain); i++)
    {
      const HrAnalysisGpu *before = hr_analysis_get_gpu (plain, i);
      const HrAnalysisGpu *after = hr_analysis_get_gpu (calibrated, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "gpu");
      json_builder_add_string_value (builder, before->gpu->id);
      json_builder_set_member_name (builder, "usable");
      json_builder_add_int_value (builder, before->limit.usable);
      json_builder_set_member_name (builder, "max_micro_batch");
      json_builder_add_int_value (builder, before->max_micro_batch);
      json_builder_set_member_name (builder, "calibrated_max_micro_batch");
      if (applied)
        json_builder_add_int_value (builder, after->max_micro_batch);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "rule");
      json_builder_add_string_value (builder, before->rule);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

static void
print_json (const HrMeasurement *measurement,
            const HrFit         *fit,
            HrAnalysis          *plain,
            HrAnalysis          *calibrated,
            const HrCalibration *calibration)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  double gap, fraction, at_batch;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "headroom_measurement");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, "format");
  json_builder_add_string_value (builder, hr_enum_to_nick (hr_measure_format_names,
                                                           measurement->format));
  json_builder_set_member_name (builder, "rows");
  json_builder_add_int_value (builder, measurement->rows);
  json_builder_set_member_name (builder, "missing");
  json_builder_add_int_value (builder, measurement->missing);

  json_builder_set_member_name (builder, "config");
  json_builder_begin_object (builder);
  for (guint i = 0; i < measurement->config_keys->len; i++)
    {
      json_builder_set_member_name (builder, g_ptr_array_index (measurement->config_keys, i));
      json_builder_add_string_value (builder, g_ptr_array_index (measurement->config_values, i));
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "series");
  json_builder_begin_array (builder);
  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);
      g_autoptr(HrFit) series_fit = hr_fit_series (s, NULL);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, s->name);
      json_builder_set_member_name (builder, "metric");
      json_builder_add_string_value (builder, hr_enum_to_nick (hr_metric_names, s->metric));
      json_builder_set_member_name (builder, "points");
      json_builder_begin_array (builder);
      for (guint j = 0; j < s->points->len; j++)
        {
          const HrMeasurePoint *p = &g_array_index (s->points, HrMeasurePoint, j);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "batch");
          if (isnan (p->batch))
            json_builder_add_null_value (builder);
          else
            json_builder_add_int_value (builder, (gint64) p->batch);
          add_nullable (builder, "t", p->t);
          if (!isnan (p->seq_len))
            add_int (builder, "seq_len", p->seq_len);
          add_int (builder, "bytes", p->bytes);
          if (series_fit != NULL)
            add_nullable (builder, "residual", g_array_index (series_fit->residuals, double, j));
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      add_int (builder, "peak", s->peak);
      if (s->points->len > 0)
        add_nullable (builder, "peak_t",
                      g_array_index (s->points, HrMeasurePoint, s->peak_index).t);
      json_builder_set_member_name (builder, "oom_batch");
      if (s->oom_batch > 0)
        json_builder_add_int_value (builder, s->oom_batch);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "fit");
      if (series_fit != NULL)
        add_fit_json (builder, series_fit);
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "fit");
  if (fit != NULL)
    add_fit_json (builder, fit);
  else
    json_builder_add_null_value (builder);

  json_builder_set_member_name (builder, "fragmentation");
  if (hr_measurement_fragmentation (measurement, &gap, &fraction, &at_batch))
    {
      json_builder_begin_object (builder);
      add_int (builder, "bytes", gap);
      json_builder_set_member_name (builder, "fraction");
      json_builder_add_double_value (builder, fraction);
      add_nullable (builder, "batch", at_batch);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);

  if (plain != NULL)
    {
      json_builder_set_member_name (builder, "comparison");
      add_comparison_json (builder, plain, calibrated, calibration);
    }

  json_builder_set_member_name (builder, "notes");
  json_builder_begin_array (builder);
  for (guint i = 0; i < measurement->notes->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (measurement->notes, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  hr_cli_print_json (root);
}

static void
print_text (const HrMeasurement *measurement,
            const HrFit         *fit,
            HrAnalysis          *plain,
            HrAnalysis          *calibrated,
            const HrCalibration *calibration)
{
  const HrScenario *scenario = plain != NULL ? hr_analysis_get_scenario (plain) : NULL;
  double gap, fraction, at_batch;

  printf (g_dngettext (GETTEXT_PACKAGE, "%s: %s, %u row\n", "%s: %s, %u rows\n",
                       measurement->rows),
          measurement->name, hr_enum_to_nick (hr_measure_format_names, measurement->format),
          measurement->rows);
  for (guint i = 0; i < measurement->config_keys->len; i++)
    printf ("  %s: %s\n", (char *) g_ptr_array_index (measurement->config_keys, i),
            (char *) g_ptr_array_index (measurement->config_values, i));

  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);
      g_autofree char *peak = hr_cli_gib (s->peak);

      printf (g_dngettext (GETTEXT_PACKAGE, "%s (%s): %u point, peak %s",
                           "%s (%s): %u points, peak %s", s->points->len),
              s->name, hr_enum_to_nick (hr_metric_names, s->metric), s->points->len, peak);
      if (s->points->len > 0)
        {
          const HrMeasurePoint *p = &g_array_index (s->points, HrMeasurePoint, s->peak_index);

          if (!isnan (p->batch))
            printf (_(" at micro-batch %.0f"), p->batch);
          else if (!isnan (p->t))
            printf (_(" at t = %.1f s"), p->t);
        }
      if (s->oom_batch > 0)
        printf (_("; out of memory at micro-batch %u"), s->oom_batch);
      printf ("\n");
    }

  if (fit != NULL)
    {
      g_autofree char *floor_text = hr_cli_gib (fit->floor);
      g_autofree char *slope = hr_cli_gib (fit->per_sample);
      g_autofree char *rmse = hr_cli_gib (fit->rmse);

      printf (g_dngettext (GETTEXT_PACKAGE,
                           "Fit (%s): peak = %s + %s·b, R² %.4f, RMS residual %s over %u "
                           "point\n",
                           "Fit (%s): peak = %s + %s·b, R² %.4f, RMS residual %s over %u "
                           "points\n",
                           fit->n_points),
              fit->series, floor_text, slope, fit->r2, rmse, fit->n_points);
      if (fit->has_seq)
        printf (_("  varies with sequence length s: per sample %.4g·s + %.4g·s² bytes\n"),
                fit->per_token, fit->per_token2);
    }
  else
    printf ("%s\n", _("No fit: no series has two or more batch sizes"));

  if (hr_measurement_fragmentation (measurement, &gap, &fraction, &at_batch))
    {
      g_autofree char *gap_text = hr_cli_gib (gap);

      printf (_("Fragmentation: reserved exceeds allocated by up to %s (%.0f%% of reserved)"),
              gap_text, fraction * 100);
      if (!isnan (at_batch))
        printf (_(" at micro-batch %.0f"), at_batch);
      printf ("\n");
    }

  for (guint i = 0; i < measurement->notes->len; i++)
    printf (_("Note: %s\n"), (char *) g_ptr_array_index (measurement->notes, i));

  if (scenario == NULL)
    return;

  printf ("\n");
  printf (_("Against %s (%s):\n"),
          scenario->name != NULL ? scenario->name : scenario->model->name,
          hr_enum_to_nick (hr_metric_names, calibration->metric));
  {
    const HrMeasureMatch *match = hr_analysis_get_measurement (plain, 0)->match;

    /* What was measured against what this scenario is: a mismatch is said
     * before any number is compared. */
    printf ("  %s%s\n", match->differs ? "✗ " : "", match->summary);
    if (!match->can_calibrate)
      printf ("  %s\n", _("Not used to calibrate: a measurement of another model, framework or "
                          "precision would carry the wrong correction."));
  }
  /* Translators: column headings of the comparison table; keep them short. */
  printf ("  %6s %12s %12s %9s %12s\n", _("batch"), _("measured"), _("estimate"), _("error"),
          _("calibrated"));
  for (guint i = 0; i < calibration->points->len; i++)
    {
      const HrCalibrationPoint *p = &g_array_index (calibration->points, HrCalibrationPoint, i);
      g_autofree char *measured = hr_cli_gib (p->measured);
      g_autofree char *predicted = hr_cli_gib (p->predicted);
      g_autofree char *after = hr_cli_gib (p->calibrated);

      printf ("  %6.0f %12s %12s %+8.1f%% %12s\n", p->batch, measured, predicted,
              p->measured > 0 ? 100 * (p->predicted - p->measured) / p->measured : 0, after);
    }

  {
    g_autofree char *mean = hr_cli_gib (calibration->mean_abs_error);
    g_autofree char *shift = hr_cli_gib (calibration->overhead_shift);
    g_autofree char *band = hr_cli_gib (calibration->band_bytes);

    if (calibration->mean_error > 0)
      printf (_("Uncalibrated estimate: too high by %s on average (%.1f%%; worst %.1f%%)\n"),
              mean, 100 * calibration->mean_relative_error,
              100 * calibration->max_relative_error);
    else
      printf (_("Uncalibrated estimate: too low by %s on average (%.1f%%; worst %.1f%%)\n"),
              mean, 100 * calibration->mean_relative_error,
              100 * calibration->max_relative_error);
    printf (_("Calibration: activations ×%.3f, overhead %s%s, band ±%s or ±%.0f%%\n"),
            calibration->activation_scale, calibration->overhead_shift >= 0 ? "+" : "", shift,
            band, 100 * calibration->band_fraction);
  }

  /* Translators: column headings; keep them short. */
  printf ("  %-22s %12s %10s %11s\n", _("GPU"), _("usable"), _("max batch"), _("calibrated"));
  for (guint i = 0; i < hr_analysis_get_n_gpus (plain); i++)
    {
      const HrAnalysisGpu *before = hr_analysis_get_gpu (plain, i);
      const HrAnalysisGpu *after = hr_analysis_get_gpu (calibrated, i);
      g_autofree char *usable_text = hr_cli_gib (before->limit.usable);
      g_autofree char *calibrated_max = hr_analysis_get_calibration (calibrated) != NULL
                                          ? g_strdup_printf ("%u", after->max_micro_batch)
                                          : g_strdup ("–");

      printf ("  %-22s %12s %10u %11s\n", before->gpu->id, usable_text,
              before->max_micro_batch, calibrated_max);
    }
}

gboolean
hr_cli_measure_options (HrMeasureOptions  *options,
                        const char        *unit,
                        const char        *delimiter,
                        const char        *metric,
                        GError           **error)
{
  int value;

  if (unit != NULL)
    {
      HrMeasureUnit u;

      if (!hr_measure_unit_from_string (unit, &u))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("--unit %s: expected bytes, KiB, MiB, "
                                                            "GiB, KB, MB or GB"), unit);
          return FALSE;
        }
      options->unit = u;
    }

  if (delimiter != NULL)
    {
      if (g_str_equal (delimiter, "tab") || g_str_equal (delimiter, "\\t"))
        options->delimiter = '\t';
      else if (g_str_equal (delimiter, "space") || g_str_equal (delimiter, "whitespace"))
        options->delimiter = ' ';
      else if (strlen (delimiter) == 1 && strchr (",;|\t ", delimiter[0]) != NULL)
        options->delimiter = delimiter[0];
      else
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("--delimiter %s: expected , ; | tab "
                                                            "or space"), delimiter);
          return FALSE;
        }
    }

  if (metric != NULL)
    {
      if (!hr_enum_from_nick (hr_metric_names, metric, &value))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("--metric %s: expected allocated, "
                                                            "reserved or device_used"), metric);
          return FALSE;
        }
      options->metric = value;
      options->has_metric = TRUE;
    }

  return TRUE;
}

int
hr_cli_measure (int    argc,
                char **argv)
{
  g_autofree char *batch_column = NULL;
  g_autofree char *memory_column = NULL;
  g_autofree char *seq_column = NULL;
  g_autofree char *unit = NULL;
  g_autofree char *delimiter = NULL;
  g_autofree char *metric = NULL;
  g_autofree char *scenario_path = NULL;
  g_autofree char *gpu_list = NULL;
  g_auto(GStrv) sets = NULL;
  gboolean json = FALSE, decimal_comma = FALSE, no_header = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Machine-readable output (SCENARIO.md)"), NULL },
    { "batch-column", 0, 0, G_OPTION_ARG_STRING, &batch_column,
     N_("The micro-batch column of a CSV (header name, or number)"), "C" },
    { "memory-column", 0, 0, G_OPTION_ARG_STRING, &memory_column,
     N_("The memory column of a CSV (header name, or number)"), "C" },
    { "seq-column", 0, 0, G_OPTION_ARG_STRING, &seq_column,
     N_("The sequence-length column of a CSV"), "C" },
    { "unit", 0, 0, G_OPTION_ARG_STRING, &unit, N_("Unit of the memory column"),
     "bytes|KiB|MiB|GiB|KB|MB|GB" },
    { "delimiter", 0, 0, G_OPTION_ARG_STRING, &delimiter,
     N_("Field separator (default: detected)"), ",|;|tab|space" },
    { "decimal-comma", 0, 0, G_OPTION_ARG_NONE, &decimal_comma, N_("Numbers are written 1,5"),
     NULL },
    { "no-header", 0, 0, G_OPTION_ARG_NONE, &no_header,
     N_("The first row is data; columns are numbered from 1"), NULL },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, N_("Which measure a mapped column is"),
     "allocated|reserved|device_used" },
    { "scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario_path,
     N_("Compare with this scenario's estimate and calibrate it"), N_("SCENARIO") },
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &gpu_list,
     N_("Cards the calibrated estimate is applied to"), N_("ID,ID…") },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, N_("Override a scenario key (repeatable)"),
     N_("KEY=VALUE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("FILE"));
  g_autoptr(GError) error = NULL;
  g_autoptr(HrMeasurement) measurement = NULL;
  g_autoptr(HrFit) fit = NULL;
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrCalibration) calibration = NULL;
  g_autoptr(HrAnalysis) plain = NULL;
  g_autoptr(HrAnalysis) calibrated = NULL;
  g_autoptr(GPtrArray) measured = g_ptr_array_new ();
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  HrMeasureOptions options = { 0 };
  const HrMeasureSeries *sweep;

  g_option_context_set_summary (context, N_("Import a measurement file and fit "
                                            "peak = floor + per_sample·b."));
  g_option_context_add_main_entries (context, entries, NULL);
  if (!hr_cli_parse_options (context, &argc, &argv))
    return HR_CLI_EXIT_USAGE;

  if (argc != 2)
    {
      fprintf (stderr, "%s\n", _("headroom-cli measure: expected FILE"));
      return HR_CLI_EXIT_USAGE;
    }

  if (!hr_cli_measure_options (&options, unit, delimiter, metric, &error))
    {
      fprintf (stderr, _("headroom-cli measure: %s\n"), error->message);
      return HR_CLI_EXIT_USAGE;
    }
  options.batch_column = batch_column;
  options.memory_column = memory_column;
  options.seq_column = seq_column;
  options.decimal_comma = decimal_comma;
  options.no_header = no_header;

  measurement = hr_measurement_load_file (argv[1], &options, &error);
  if (measurement == NULL)
    return hr_cli_fail (error);

  sweep = hr_measurement_get_sweep (measurement);
  if (sweep != NULL)
    fit = hr_fit_series (sweep, NULL);

  if (scenario_path != NULL)
    {
      scenario = hr_cli_load_scenario (scenario_path, sets, &error);
      if (scenario == NULL)
        return hr_cli_fail (error);
      if (sweep == NULL)
        {
          fprintf (stderr, _("%s: no series has two or more batch sizes: nothing to compare "
                             "with the estimate's curve\n"), measurement->name);
          return HR_CLI_EXIT_USAGE;
        }

      if (gpu_list != NULL)
        {
          if (!hr_cli_resolve_gpus (gpu_list, gpus, &error))
            return hr_cli_fail (error);
        }
      else if (scenario->gpu != NULL)
        g_ptr_array_add (gpus, scenario->gpu);
      else
        hr_curve_chart_add_reference_gpus (gpus, hr_catalog_get_default ());

      /* The analysis without and with the measurement's calibration (which
       * it applies only when the measurement is of this setup). */
      g_ptr_array_add (measured, measurement);
      plain = hr_cli_analysis_new (scenario, gpus, measured, FALSE, HR_KNOB_SORT_COST);
      calibrated = hr_cli_analysis_new (scenario, gpus, measured, TRUE, HR_KNOB_SORT_COST);
      calibration = hr_calibration_new (hr_analysis_get_plan (plain), sweep, &error);
      if (calibration == NULL)
        {
          const HrMeasureMatch *match = hr_analysis_get_measurement (plain, 0)->match;

          /* Nothing to compare; say still whether the measurement is of
           * this setup, which is most often why. */
          if (match->differs)
            g_printerr ("%s: ✗ %s\n", argv[1], match->summary);
          return hr_cli_fail (error);
        }
    }

  if (json)
    print_json (measurement, fit, plain, calibrated, calibration);
  else
    print_text (measurement, fit, plain, calibrated, calibration);

  return HR_CLI_EXIT_OK;
}

