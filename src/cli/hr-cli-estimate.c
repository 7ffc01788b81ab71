/* hr-cli-estimate.c: estimate, sweep, fits and knobs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "hr-cli.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static gboolean opt_json;
static char **opt_sets;
static char **opt_measurements;
static gboolean opt_calibrate;

#define COMMON_OPTIONS \
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json, N_("Print JSON (sizes in bytes)"), NULL }, \
  { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_sets, N_("Override a scenario key (repeatable)"), \
    N_("KEY=VALUE") }, \
  { "measurements", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_measurements, \
    N_("A measurement of this scenario (repeatable)"), N_("FILE") }, \
  { "calibrate", 0, 0, G_OPTION_ARG_NONE, &opt_calibrate, \
    N_("Calibrate the estimate by the first measured sweep of this setup"), NULL }

/* Parses options and loads the one scenario argument; on failure returns
 * NULL with *status set. */
static HrScenario *
begin (const char      *usage,
       const char      *summary,
       GOptionEntry    *entries,
       int              argc,
       char           **argv,
       GPtrArray       *measurements,
       int             *status)
{
  g_autoptr(GOptionContext) context = g_option_context_new (usage);
  g_autoptr(GError) error = NULL;
  HrScenario *scenario;

  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, NULL);

  if (!hr_cli_parse_options (context, &argc, &argv))
    {
      *status = HR_CLI_EXIT_USAGE;
      return NULL;
    }

  if (argc != 2)
    {
      fprintf (stderr, _("headroom-cli %s: expected one scenario file (or - for standard input)\n"),
               argv[0]);
      *status = HR_CLI_EXIT_USAGE;
      return NULL;
    }

  scenario = hr_cli_load_scenario (argv[1], opt_sets, &error);
  if (scenario == NULL)
    {
      *status = hr_cli_fail (error);
      return NULL;
    }

  if (opt_calibrate && opt_measurements == NULL)
    {
      fprintf (stderr, _("headroom-cli %s: --calibrate needs --measurements FILE\n"), argv[0]);
      *status = HR_CLI_EXIT_USAGE;
      hr_scenario_free (scenario);
      return NULL;
    }
  if (!hr_cli_load_measurements (opt_measurements, measurements, &error))
    {
      *status = hr_cli_fail (error);
      hr_scenario_free (scenario);
      return NULL;
    }

  *status = HR_CLI_EXIT_OK;
  return scenario;
}

static void
print_scenario_line (const HrScenario *s,
                     const HrEstimate *est)
{
  if (s->name != NULL && s->name[0] != '\0')
    printf ("%s\n", s->name);

  /* Translators: model name, billions of parameters, millions of them
   * trainable, then the task, method and precision ids and the batch. */
  printf (_("%s (%.2fB parameters, %.1fM trainable) · %s · %s · %s · micro-batch %u"),
          s->model->name, s->model->params / 1e9, est->trainable_params / 1e6,
          hr_enum_to_nick (hr_task_names, s->task), hr_enum_to_nick (hr_method_names, s->method),
          hr_enum_to_nick (hr_compute_names, s->compute), s->micro_batch);
  if (est->seq_len > 0)
    printf (_(" · %u tokens"), est->seq_len);
  if (s->gpus > 1)
    printf (_(" · %u GPUs (%s)"), s->gpus, hr_enum_to_nick (hr_sharding_names, s->sharding));
  printf ("\n\n");
}

static void
add_fix_json (JsonBuilder  *b,
              const HrKnob *fix)
{
  json_builder_set_member_name (b, "fix");
  if (fix == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, fix->id);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, fix->label);
  json_builder_set_member_name (b, "change");
  json_builder_add_string_value (b, fix->change);
  json_builder_set_member_name (b, "speed");
  json_builder_add_double_value (b, fix->speed);
  json_builder_set_member_name (b, "risk");
  json_builder_add_string_value (b, hr_enum_to_nick (hr_knob_risk_names, fix->risk));
  json_builder_set_member_name (b, "max_micro_batch_after");
  json_builder_add_int_value (b, fix->max_micro_batch_after);
  json_builder_end_object (b);
}

/* A GPU's fit, as `estimate` and `fits` print it. */
static void
add_gpu_fit_json (JsonBuilder         *b,
                  const HrAnalysisGpu *g)
{
  json_builder_set_member_name (b, "gpu");
  json_builder_add_string_value (b, g->gpu->id);
  json_builder_set_member_name (b, "capacity");
  json_builder_add_int_value (b, g->limit.capacity);
  json_builder_set_member_name (b, "usable");
  json_builder_add_int_value (b, g->limit.usable);
  json_builder_set_member_name (b, "need");
  json_builder_add_int_value (b, g->need);
  json_builder_set_member_name (b, "fits");
  json_builder_add_boolean_value (b, g->fits);
  json_builder_set_member_name (b, "max_micro_batch");
  json_builder_add_int_value (b, g->max_micro_batch);
  json_builder_set_member_name (b, "max_is_lower_bound");
  json_builder_add_boolean_value (b, g->max_is_lower_bound);
  json_builder_set_member_name (b, "fit");
  json_builder_add_string_value (b, hr_analysis_fit_to_string (g->fit));
  json_builder_set_member_name (b, "need_high");
  json_builder_add_int_value (b, g->need_high);
  json_builder_set_member_name (b, "fits_at_high_end");
  json_builder_add_boolean_value (b, g->fits_high);
  json_builder_set_member_name (b, "short_at_high_end");
  json_builder_add_int_value (b, g->need_high > g->limit.usable ? g->need_high - g->limit.usable
                                                                : 0);
  json_builder_set_member_name (b, "max_micro_batch_at_high_end");
  json_builder_add_int_value (b, g->max_micro_batch_high);
  json_builder_set_member_name (b, "reason");
  json_builder_add_string_value (b, g->estimate->fit_reason);
  json_builder_set_member_name (b, "verdict");
  json_builder_add_string_value (b, g->verdict);
  json_builder_set_member_name (b, "rule");
  json_builder_add_string_value (b, g->rule);
  json_builder_set_member_name (b, "pool");
  if (g->limit.has_pool)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "variable");
      json_builder_add_string_value (b, g->limit.pool_variable);
      json_builder_set_member_name (b, "fraction");
      json_builder_add_double_value (b, g->limit.pool_fraction);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, g->limit.pool);
      json_builder_set_member_name (b, "preallocated");
      json_builder_add_boolean_value (b, g->limit.pool_preallocated);
      json_builder_set_member_name (b, "outside");
      json_builder_add_int_value (b, g->limit.outside);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
  add_fix_json (b, g->fix);
}

static void
add_measurements_json (JsonBuilder *b,
                       HrAnalysis  *analysis)
{
  json_builder_set_member_name (b, "calibrated");
  json_builder_add_boolean_value (b, hr_analysis_get_calibration (analysis) != NULL);
  json_builder_set_member_name (b, "measurements");
  json_builder_begin_array (b);
  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, m->measurement->name);
      json_builder_set_member_name (b, "matches");
      json_builder_add_boolean_value (b, !m->match->differs);
      json_builder_set_member_name (b, "can_calibrate");
      json_builder_add_boolean_value (b, m->match->can_calibrate);
      json_builder_set_member_name (b, "match");
      json_builder_add_string_value (b, m->match->summary);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static JsonNode *
estimate_to_json (HrAnalysis *analysis)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const HrScenario *s = hr_analysis_get_scenario (analysis);
  const HrEstimate *est = hr_analysis_get_estimate (analysis);
  const HrAnalysisGpu *own = hr_analysis_get_own_gpu (analysis);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "headroom_estimate");
  json_builder_add_int_value (b, 1);

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
  json_builder_set_member_name (b, "allocated_peak");
  json_builder_add_int_value (b, est->allocated_peak);
  json_builder_set_member_name (b, "reserved_peak");
  json_builder_add_int_value (b, est->reserved_peak);
  json_builder_set_member_name (b, "device_used");
  json_builder_add_int_value (b, est->device_used);
  /* the weights' own range, and an inference's KV cache (a serving
   * engine's pool) with its range */
  json_builder_set_member_name (b, "weights_low");
  json_builder_add_int_value (b, est->bucket_low[HR_BUCKET_WEIGHTS]);
  json_builder_set_member_name (b, "weights_high");
  json_builder_add_int_value (b, est->bucket_high[HR_BUCKET_WEIGHTS]);
  json_builder_set_member_name (b, "kv_cache");
  json_builder_add_int_value (b, est->kv_cache);
  json_builder_set_member_name (b, "kv_cache_low");
  json_builder_add_int_value (b, est->kv_cache_low);
  json_builder_set_member_name (b, "kv_cache_high");
  json_builder_add_int_value (b, est->kv_cache_high);
  json_builder_end_object (b);

  /* what a serving engine's pool holds, for the fit under it */
  json_builder_set_member_name (b, "serving");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "engine");
  json_builder_add_string_value (b, hr_enum_to_nick (hr_engine_names, s->engine));
  json_builder_set_member_name (b, "pool_fraction");
  json_builder_add_double_value (b, est->pool_fraction);
  json_builder_set_member_name (b, "pool");
  json_builder_add_int_value (b, est->pool);
  json_builder_set_member_name (b, "pool_limits");
  json_builder_add_boolean_value (b, est->pool_limits);
  json_builder_set_member_name (b, "kv_tokens");
  json_builder_add_int_value (b, est->kv_tokens);
  json_builder_set_member_name (b, "kv_sequences");
  json_builder_add_int_value (b, est->kv_sequences);
  json_builder_end_object (b);

  /* The range's kind of run and half-widths (hr-estimate-range.c). */
  json_builder_set_member_name (b, "range");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, est->range_kind);
  json_builder_set_member_name (b, "low");
  json_builder_add_double_value (b, est->range_low);
  json_builder_set_member_name (b, "high");
  json_builder_add_double_value (b, est->range_high);
  json_builder_end_object (b);

  /* The range of each view of the peak, beside the contract's keys
   * (per_gpu.low/high are device_used's). */
  json_builder_set_member_name (b, "ranges");
  json_builder_begin_object (b);
  {
    const struct { const char *name; guint64 low, high; } ranges[] = {
      { "allocated", est->allocated_low, est->allocated_high },
      { "reserved", est->reserved_low, est->reserved_high },
      { "device_used", est->low, est->high },
    };

    for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
      {
        json_builder_set_member_name (b, ranges[i].name);
        json_builder_begin_object (b);
        json_builder_set_member_name (b, "low");
        json_builder_add_int_value (b, ranges[i].low);
        json_builder_set_member_name (b, "high");
        json_builder_add_int_value (b, ranges[i].high);
        json_builder_end_object (b);
      }
  }
  json_builder_end_object (b);

  /* Each bucket's own range, beside the contract's keys. */
  json_builder_set_member_name (b, "bucket_ranges");
  json_builder_begin_object (b);
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      json_builder_set_member_name (b, hr_enum_to_nick (hr_bucket_names, i));
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "low");
      json_builder_add_int_value (b, est->bucket_low[i]);
      json_builder_set_member_name (b, "high");
      json_builder_add_int_value (b, est->bucket_high[i]);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "host");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ram");
  json_builder_add_int_value (b, est->host_ram);
  json_builder_set_member_name (b, "items");
  json_builder_begin_array (b);
  for (guint i = 0; i < est->host_items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->host_items, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, item->label);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, (gint64) item->bytes);
      json_builder_set_member_name (b, "basis");
      json_builder_add_string_value (b, hr_enum_to_nick (hr_basis_names, item->basis));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "fit");
  if (own != NULL)
    {
      json_builder_begin_object (b);
      add_gpu_fit_json (b, own);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);

  json_builder_set_member_name (b, "items");
  json_builder_begin_array (b);
  for (guint i = 0; i < est->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->items, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "bucket");
      json_builder_add_string_value (b, hr_enum_to_nick (hr_bucket_names, item->bucket));
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, item->label);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, (gint64) (item->bytes + 0.5));
      json_builder_set_member_name (b, "low");
      json_builder_add_int_value (b, (gint64) (item->low + 0.5));
      json_builder_set_member_name (b, "high");
      json_builder_add_int_value (b, (gint64) (item->high + 0.5));
      json_builder_set_member_name (b, "metric");
      json_builder_add_string_value (b, hr_enum_to_nick (hr_metric_names, item->metric));
      json_builder_set_member_name (b, "basis");
      json_builder_add_string_value (b, hr_enum_to_nick (hr_basis_names, item->basis));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "scenario");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, s->model->id);
  json_builder_set_member_name (b, "params");
  json_builder_add_int_value (b, est->params);
  json_builder_set_member_name (b, "trainable_params");
  json_builder_add_int_value (b, est->trainable_params);
  json_builder_set_member_name (b, "micro_batch");
  json_builder_add_int_value (b, est->micro_batch);
  json_builder_set_member_name (b, "seq_len");
  json_builder_add_int_value (b, est->seq_len);
  json_builder_end_object (b);

  add_measurements_json (b, analysis);

  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; i < est->notes->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (est->notes, i));
  json_builder_end_array (b);

  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
print_measurements (HrAnalysis *analysis)
{
  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);

      printf (_("Measurement %s: %s\n"), m->measurement->name, m->match->summary);
    }
  if (hr_analysis_get_n_measurements (analysis) > 0)
    printf (_("Calibration: %s%s\n\n"), hr_analysis_get_calibration_text (analysis),
            hr_analysis_get_calibration (analysis) != NULL ? _(" (applied)") : "");
}

static void
print_estimate (HrAnalysis *analysis)
{
  const HrScenario *s = hr_analysis_get_scenario (analysis);
  const HrEstimate *est = hr_analysis_get_estimate (analysis);
  const HrAnalysisGpu *own = hr_analysis_get_own_gpu (analysis);

  print_scenario_line (s, est);
  print_measurements (analysis);

  printf ("%-17s %12s   %s\n", _("Bucket (per GPU)"), _("Estimate"), _("Range"));
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      g_autofree char *v = hr_cli_gib (est->buckets[i]);
      g_autofree char *lo = hr_cli_gib (est->bucket_low[i]);
      g_autofree char *hi = hr_cli_gib (est->bucket_high[i]);

      printf ("%-17s %12s   %s – %s\n", hr_bucket_get_label (i), v, lo, hi);
    }

  {
    g_autofree char *t = hr_cli_gib (est->total);
    g_autofree char *lo = hr_cli_gib (est->low);
    g_autofree char *hi = hr_cli_gib (est->high);
    g_autofree char *a = hr_cli_gib (est->allocated_peak);
    g_autofree char *r = hr_cli_gib (est->reserved_peak);
    g_autofree char *d = hr_cli_gib (est->device_used);
    g_autofree char *h = hr_cli_gib (est->host_ram);

    printf ("%-17s %12s   %s – %s\n\n", _("Total"), t, lo, hi);
    printf (_("Views: allocated %s · reserved %s · nvidia-smi %s\n"), a, r, d);
    printf (_("Host RAM: %s\n"), h);
    for (guint i = 0; i < est->host_items->len; i++)
      {
        HrEstimateItem *item = g_ptr_array_index (est->host_items, i);
        g_autofree char *v = hr_cli_gib (item->bytes);

        printf ("  %10s  %s\n", v, item->label);
      }
  }

  if (own != NULL)
    {
      g_autofree char *cap = hr_cli_gib (own->limit.capacity);
      g_autofree char *usable = hr_cli_gib (own->limit.usable);

      /* Translators: GPU name, its memory, the usable part, "fits" or
       * "DOES NOT FIT", the micro-batch, then "at least " or nothing before
       * the largest micro-batch, and the reason. */
      printf (_("\nFit on %s (%s, %s usable): %s at micro-batch %u; "
                "largest micro-batch %s%u\n  %s\n"),
              own->gpu->name, cap, usable, own->fits ? _("fits") : _("DOES NOT FIT"),
              est->micro_batch,
              own->max_is_lower_bound ? _("at least ") : "", own->max_micro_batch, own->verdict);
      printf ("  %s\n", own->rule);
    }

  printf ("\n%s\n", _("Breakdown:"));
  for (guint i = 0; i < est->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->items, i);
      g_autofree char *v = hr_cli_gib (item->bytes);

      /* Translators: the basis of a figure, "derived", "calibrated" or
       * "assumed", in brackets before its label */
      printf ("  %-12s %10s  [%s] %s\n", hr_enum_to_nick (hr_bucket_names, item->bucket), v,
              hr_basis_get_label (item->basis), item->label);
    }

  printf ("\n%s\n", _("Notes:"));
  for (guint i = 0; i < est->notes->len; i++)
    printf ("  - %s\n", (const char *) g_ptr_array_index (est->notes, i));
}

int
hr_cli_estimate (int    argc,
                 char **argv)
{
  GOptionEntry entries[] = { COMMON_OPTIONS, { NULL } };
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                      hr_measurement_free);
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrAnalysis) analysis = NULL;
  int status;

  scenario = begin (N_("SCENARIO"), N_("Estimate the memory of a scenario."), entries, argc, argv,
                    measurements, &status);
  if (scenario == NULL)
    return status;

  analysis = hr_cli_analysis_new (scenario, NULL, measurements, opt_calibrate,
                                  HR_KNOB_SORT_COST);

  if (opt_json)
    {
      g_autoptr(JsonNode) node = estimate_to_json (analysis);

      hr_cli_print_json (node);
    }
  else
    print_estimate (analysis);

  return HR_CLI_EXIT_OK;
}

static gboolean
parse_range (const char  *text,
             guint       *from,
             guint       *to,
             guint       *step,
             GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ":", -1);
  guint n = g_strv_length (parts);
  guint64 values[3] = { 0, 0, 1 };

  if (n < 2 || n > 3)
    goto bad;

  for (guint i = 0; i < n; i++)
    {
      if (!g_ascii_string_to_unsigned (parts[i], 10, 1, 1 << 20, &values[i], NULL))
        goto bad;
    }

  if (values[1] < values[0])
    goto bad;

  *from = values[0];
  *to = values[1];
  *step = values[2];
  return TRUE;

bad:
  g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
               _("--batch %s: expected FROM:TO or FROM:TO:STEP with 1 ≤ FROM ≤ TO ≤ 1048576"),
               text);
  return FALSE;
}

int
hr_cli_sweep (int    argc,
              char **argv)
{
  g_autofree char *batch = NULL;
  gboolean csv = FALSE, pow2 = FALSE;
  GOptionEntry entries[] = {
    COMMON_OPTIONS,
    { "batch", 0, 0, G_OPTION_ARG_STRING, &batch, N_("Micro-batches to sweep (default 1:64)"),
     "FROM:TO[:STEP]" },
    { "pow2", 0, 0, G_OPTION_ARG_NONE, &pow2, N_("Only the powers of two in the range"), NULL },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &csv, N_("Print CSV (sizes in bytes)"), NULL },
    { NULL }
  };
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                      hr_measurement_free);
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(GArray) points = NULL;
  g_autoptr(GError) error = NULL;
  const HrAnalysisGpu *own;
  guint from = 1, to = 64, step = 1;
  guint64 usable = 0;
  int status;

  scenario = begin (N_("SCENARIO"), N_("Peak memory versus micro-batch."), entries, argc, argv,
                    measurements, &status);
  if (scenario == NULL)
    return status;

  if (batch != NULL && !parse_range (batch, &from, &to, &step, &error))
    return hr_cli_fail (error);

  analysis = hr_cli_analysis_new (scenario, NULL, measurements, opt_calibrate,
                                  HR_KNOB_SORT_COST);
  points = hr_analysis_sweep (analysis, from, to, step, pow2);
  own = hr_analysis_get_own_gpu (analysis);
  if (own != NULL)
    usable = own->limit.usable;

  if (opt_json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "headroom_sweep");
      json_builder_add_int_value (b, 1);
      json_builder_set_member_name (b, "gpu");
      if (own != NULL)
        json_builder_add_string_value (b, own->gpu->id);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "usable");
      json_builder_add_int_value (b, usable);
      json_builder_set_member_name (b, "rule");
      if (own != NULL)
        json_builder_add_string_value (b, own->rule);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "calibrated");
      json_builder_add_boolean_value (b, hr_analysis_get_calibration (analysis) != NULL);
      json_builder_set_member_name (b, "points");
      json_builder_begin_array (b);
      for (guint i = 0; i < points->len; i++)
        {
          HrAnalysisSample *p = &g_array_index (points, HrAnalysisSample, i);

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "micro_batch");
          json_builder_add_int_value (b, p->micro_batch);
          hr_cli_add_peak_json (b, &p->peak);
          json_builder_set_member_name (b, "need");
          json_builder_add_int_value (b, p->need);
          if (own != NULL)
            {
              json_builder_set_member_name (b, "fits");
              json_builder_add_boolean_value (b, p->need <= usable);
            }
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      hr_cli_print_json (node);
    }
  else if (csv)
    {
      printf ("micro_batch,total_bytes,low_bytes,high_bytes,allocated_bytes,reserved_bytes,"
              "device_used_bytes,need_bytes%s\n", own != NULL ? ",fits" : "");
      for (guint i = 0; i < points->len; i++)
        {
          HrAnalysisSample *p = &g_array_index (points, HrAnalysisSample, i);

          printf ("%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                  ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                  ",%" G_GUINT64_FORMAT "%s\n",
                  p->micro_batch, p->peak.total, p->peak.low, p->peak.high, p->peak.allocated,
                  p->peak.reserved, p->peak.device_used, p->need,
                  own == NULL ? "" : p->need <= usable ? ",true" : ",false");
        }
    }
  else
    {
      printf ("%-11s %12s %12s %12s %12s %12s %12s%s%s\n", _("Micro-batch"), _("Total GiB"),
              _("Low GiB"), _("High GiB"), _("Alloc GiB"), _("Reserved GiB"), _("Needs GiB"),
              own != NULL ? "  " : "", own != NULL ? _("Fits") : "");
      for (guint i = 0; i < points->len; i++)
        {
          HrAnalysisSample *p = &g_array_index (points, HrAnalysisSample, i);

          printf ("%-11u %12.2f %12.2f %12.2f %12.2f %12.2f %12.2f%s%s\n", p->micro_batch,
                  p->peak.total / GiB, p->peak.low / GiB, p->peak.high / GiB,
                  p->peak.allocated / GiB, p->peak.reserved / GiB, p->need / GiB,
                  own == NULL ? "" : "  ",
                  own == NULL ? "" : p->need <= usable ? _("yes") : _("no"));
        }
      if (own != NULL)
        printf ("\n%s: %s\n", own->gpu->name, own->rule);
    }

  return HR_CLI_EXIT_OK;
}

int
hr_cli_fits (int    argc,
             char **argv)
{
  g_autofree char *gpu_list = NULL;
  gboolean csv = FALSE;
  GOptionEntry entries[] = {
    COMMON_OPTIONS,
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &gpu_list, N_("GPUs to check (default all)"),
     "all|ID,ID…" },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &csv, N_("Print CSV (sizes in bytes)"), NULL },
    { NULL }
  };
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                      hr_measurement_free);
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  scenario = begin (N_("SCENARIO"),
                    N_("Which GPUs the scenario fits on, and the largest micro-batch on each."),
                    entries, argc, argv, measurements, &status);
  if (scenario == NULL)
    return status;

  if (!hr_cli_resolve_gpus (gpu_list != NULL ? gpu_list : "all", gpus, &error))
    return hr_cli_fail (error);

  analysis = hr_cli_analysis_new (scenario, gpus, measurements, opt_calibrate,
                                  HR_KNOB_SORT_COST);

  if (opt_json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "headroom_fits");
      json_builder_add_int_value (b, 1);
      json_builder_set_member_name (b, "micro_batch");
      json_builder_add_int_value (b, scenario->micro_batch);
      json_builder_set_member_name (b, "reserve");
      json_builder_add_double_value (b, scenario->reserve);
      json_builder_set_member_name (b, "calibrated");
      json_builder_add_boolean_value (b, hr_analysis_get_calibration (analysis) != NULL);
      json_builder_set_member_name (b, "gpus");
      json_builder_begin_array (b);
      for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
        {
          const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);
          HrPeak peak = { 0 };

          json_builder_begin_object (b);
          add_gpu_fit_json (b, g);
          peak.total = g->estimate->total;
          peak.low = g->estimate->low;
          peak.high = g->estimate->high;
          peak.allocated = g->estimate->allocated_peak;
          peak.reserved = g->estimate->reserved_peak;
          peak.device_used = g->estimate->device_used;
          hr_cli_add_peak_json (b, &peak);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      hr_cli_print_json (node);
      return HR_CLI_EXIT_OK;
    }

  if (csv)
    {
      g_autoptr(GString) out = g_string_new ("gpu,name,capacity_bytes,usable_bytes,need_bytes,"
                                             "fits,max_micro_batch,reason,fix\n");

      /* Names and reasons come from catalogs and scenarios anyone can
       * write: hr_csv_append_text() keeps them from running as formulas. */
      for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
        {
          const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);

          hr_csv_append_text (out, g->gpu->id);
          g_string_append_c (out, ',');
          hr_csv_append_text (out, g->gpu->name != NULL ? g->gpu->name : "");
          g_string_append_printf (out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                                  ",%" G_GUINT64_FORMAT ",%s,%u,",
                                  g->limit.capacity, g->limit.usable, g->need,
                                  g->fits ? "true" : "false", g->max_micro_batch);
          hr_csv_append_text (out, g->verdict);
          g_string_append_c (out, ',');
          hr_csv_append_text (out, g->fix != NULL ? g->fix->change : "");
          g_string_append_c (out, '\n');
        }
      fputs (out->str, stdout);
      return HR_CLI_EXIT_OK;
    }

  printf (_("%s at micro-batch %u, %.0f%% reserve\n\n"), scenario->model->name,
          scenario->micro_batch, scenario->reserve * 100);
  print_measurements (analysis);
  printf ("%-20s %11s %11s %11s  %-5s %10s  %s\n", _("GPU"), _("Memory GiB"), _("Usable GiB"),
          _("Needs GiB"), _("Fits"), _("Max batch"), _("Lever that fixes it"));
  for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);
      g_autofree char *max = g->max_micro_batch == 0 ? g_strdup (_("none"))
                             : g_strdup_printf ("%s%u", g->max_is_lower_bound ? "≥" : "",
                                                g->max_micro_batch);

      printf ("%-20s %11.2f %11.2f %11.2f  %-5s %10s  %s\n", g->gpu->id,
              g->limit.capacity / GiB, g->limit.usable / GiB, g->need / GiB,
              g->fit == HR_ANALYSIS_FIT_FITS ? _("yes")
              : g->fit == HR_ANALYSIS_FIT_TIGHT ? _("tight") : _("no"), max,
              g->fits ? "" : g->fix != NULL ? g->fix->change : _("no single lever"));
    }
  /* How the usable memory was reached: the rule as it applied to the
   * first card (the others follow the same way, in their own sizes). */
  if (hr_analysis_get_n_gpus (analysis) > 0)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, 0);

      printf ("\n%s: %s\n", g->gpu->id, g->rule);
    }

  return HR_CLI_EXIT_OK;
}

int
hr_cli_knobs (int    argc,
              char **argv)
{
  g_autofree char *sort_name = NULL;
  GOptionEntry entries[] = {
    COMMON_OPTIONS,
    { "sort", 0, 0, G_OPTION_ARG_STRING, &sort_name,
     N_("Most memory saved first, or least costly first (default saved)"), "saved|cost" },
    { NULL }
  };
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                      hr_measurement_free);
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrAnalysis) analysis = NULL;
  const HrAnalysisGpu *own;
  const HrEstimate *est;
  GPtrArray *knobs;
  int sort = HR_KNOB_SORT_SAVED;
  int status;

  scenario = begin (N_("SCENARIO"), N_("The levers that reduce memory, what each costs, and the "
                                       "one that fixes a run that does not fit."),
                    entries, argc, argv, measurements, &status);
  if (scenario == NULL)
    return status;
  if (sort_name != NULL && !hr_enum_from_nick (hr_knob_sort_names, sort_name, &sort))
    {
      fprintf (stderr, _("headroom-cli knobs: --sort %s: expected saved or cost\n"), sort_name);
      return HR_CLI_EXIT_USAGE;
    }

  analysis = hr_cli_analysis_new (scenario, NULL, measurements, opt_calibrate, sort);
  est = hr_analysis_get_estimate (analysis);
  own = hr_analysis_get_own_gpu (analysis);
  knobs = hr_analysis_get_levers (analysis);

  if (opt_json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "headroom_knobs");
      json_builder_add_int_value (b, 1);
      json_builder_set_member_name (b, "sort");
      json_builder_add_string_value (b, hr_enum_to_nick (hr_knob_sort_names, sort));
      json_builder_set_member_name (b, "total");
      json_builder_add_int_value (b, est->total);
      json_builder_set_member_name (b, "need");
      json_builder_add_int_value (b, own != NULL ? own->need : est->total);
      if (own != NULL)
        {
          json_builder_set_member_name (b, "gpu");
          json_builder_add_string_value (b, own->gpu->id);
          json_builder_set_member_name (b, "usable");
          json_builder_add_int_value (b, own->limit.usable);
          json_builder_set_member_name (b, "fits");
          json_builder_add_boolean_value (b, own->fits);
          json_builder_set_member_name (b, "rule");
          json_builder_add_string_value (b, own->rule);
          add_fix_json (b, own->fix);
        }
      json_builder_set_member_name (b, "knobs");
      json_builder_begin_array (b);
      for (guint i = 0; i < knobs->len; i++)
        hr_cli_add_knob_json (b, g_ptr_array_index (knobs, i));
      json_builder_end_array (b);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      hr_cli_print_json (node);
      return HR_CLI_EXIT_OK;
    }

  {
    g_autofree char *t = hr_cli_gib (own != NULL ? own->need : est->total);

    if (own == NULL)
      printf (_("%s: %s now\n"), scenario->model->name, t);
    else if (own->fits)
      printf (_("%s: %s now (fits)\n"), scenario->model->name, t);
    else
      printf (_("%s: %s now (does not fit)\n"), scenario->model->name, t);
    if (own != NULL)
      printf ("%s\n", own->rule);
    printf ("\n");
  }

  if (knobs->len == 0)
    printf ("%s\n", _("No lever saves memory for this scenario."));
  else if (own != NULL && !own->fits && own->fix == NULL)
    printf ("%s\n\n", _("No single lever makes it fit: combine several, or add GPUs."));
  else if (own != NULL && own->fix != NULL)
    printf (_("The lever that fixes it, least costly first: %s (--set %s).\n\n"),
            own->fix->label, own->fix->change);

  for (guint i = 0; i < knobs->len; i++)
    {
      HrKnob *k = g_ptr_array_index (knobs, i);
      g_autofree char *saved = hr_cli_gib (k->saved);
      g_autofree char *after = hr_cli_gib (k->after);
      g_autofree char *gained = hr_cli_gib (k->gained);

      /* the core sorts them last */
      if (!k->worth_it && (i == 0 || ((HrKnob *) g_ptr_array_index (knobs, i - 1))->worth_it))
        printf (_("Not worth it: each frees less than %.0f%% of the peak\n"),
                HR_KNOB_WORTH_IT * 100);
      printf ("%2u. %s\n    ", i + 1, k->label);
      if (k->saved > 0)
        printf (_("saves %s (to %s)"), saved, after);
      else
        printf (_("adds %s of usable memory"), gained);
      if (k->has_fit && k->fits_after)
        printf (_(", then fits, max micro-batch %u"), k->max_micro_batch_after);
      else if (k->has_fit)
        printf ("%s", _(", then still does not fit"));
      printf ("\n    ");
      printf (_("step time ×%.2f: %s"), k->speed, k->cost);
      printf ("\n    ");
      printf (_("result: %s: %s"), hr_knob_risk_label (k->risk), k->risk_text);
      if (k->more_gpus)
        printf ("%s", _("; needs more GPUs"));
      printf ("\n    --set %s\n", k->change);
    }

  return HR_CLI_EXIT_OK;
}
