/* hr-cli-estimate.c: estimate, sweep, fits and knobs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hr-cli.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static gboolean opt_json;
static char **opt_sets;
static char **opt_measurements;
static gboolean opt_calibrate;

/* The options of estimate, sweep, fits and knobs before their own
 * (main.c defines --json, --set, --measurements, --calibrate and --unit
 * for every command). */
#define COMMON_OPTIONS \
  hr_cli_option_json (&opt_json, N_("Print JSON (sizes in bytes)")), \
  hr_cli_option_set (&opt_sets), \
  hr_cli_option_measurements (&opt_measurements, \
                              N_("A measurement of this scenario (repeatable)")), \
  hr_cli_option_calibrate (&opt_calibrate), \
  hr_cli_option_unit ()

/* --csv, of sweep and fits. */
#define CSV_OPTION(csv) \
  { "csv", 0, 0, G_OPTION_ARG_NONE, (csv), N_("Print CSV (sizes in bytes)"), NULL }

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

  if (!hr_cli_check_calibrate (argv[0], opt_measurements, opt_calibrate))
    {
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

  /* a vision model of 25.6M parameters reads as such, not as 0.03B,
   * and a full fine-tune of 3B as 3.00B trainable, not as 3000.0M */
  if (est->trainable_params >= 1e9)
    /* Translators: model name, billions of parameters, billions of them
     * trainable, then the task, method and precision ids and the batch. */
    printf (_("%s (%.2fB parameters, %.2fB trainable) · %s · %s · %s · micro-batch %u"),
            s->model->name, s->model->params / 1e9, est->trainable_params / 1e9,
            hr_enum_to_nick (hr_task_names, s->task), hr_enum_to_nick (hr_method_names, s->method),
            hr_enum_to_nick (hr_compute_names, s->compute), s->micro_batch);
  else if (s->model->params >= 1e9)
    /* Translators: model name, billions of parameters, millions of them
     * trainable, then the task, method and precision ids and the batch. */
    printf (_("%s (%.2fB parameters, %.1fM trainable) · %s · %s · %s · micro-batch %u"),
            s->model->name, s->model->params / 1e9, est->trainable_params / 1e6,
            hr_enum_to_nick (hr_task_names, s->task), hr_enum_to_nick (hr_method_names, s->method),
            hr_enum_to_nick (hr_compute_names, s->compute), s->micro_batch);
  else
    /* Translators: model name, millions of parameters, millions of them
     * trainable, then the task, method and precision ids and the batch. */
    printf (_("%s (%.1fM parameters, %.1fM trainable) · %s · %s · %s · micro-batch %u"),
            s->model->name, s->model->params / 1e6, est->trainable_params / 1e6,
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
  hr_cli_json_string (b, "id", fix->id);
  hr_cli_json_string (b, "label", fix->label);
  hr_cli_json_string (b, "change", fix->change);
  hr_cli_json_double (b, "speed", fix->speed);
  hr_cli_json_string (b, "risk", hr_enum_to_nick (hr_knob_risk_names, fix->risk));
  hr_cli_json_int (b, "max_micro_batch_after", fix->max_micro_batch_after);
  json_builder_end_object (b);
}

/* A GPU's fit, as `estimate` and `fits` print it. */
static void
add_gpu_fit_json (JsonBuilder         *b,
                  const HrAnalysisGpu *g)
{
  hr_cli_json_string (b, "gpu", g->gpu->id);
  hr_cli_json_int (b, "capacity", g->limit.capacity);
  hr_cli_json_int (b, "usable", g->limit.usable);
  hr_cli_json_int (b, "need", g->need);
  hr_cli_json_bool (b, "fits", g->fits);
  hr_cli_json_int (b, "max_micro_batch", g->max_micro_batch);
  hr_cli_json_bool (b, "max_is_lower_bound", g->max_is_lower_bound);
  hr_cli_json_string (b, "fit", hr_analysis_fit_to_string (g->fit));
  hr_cli_json_int (b, "need_low", g->need_low);
  hr_cli_json_int (b, "need_high", g->need_high);
  /* XLA's preallocated pool: what it holds beyond the need */
  hr_cli_json_int (b, "pool_unused", g->pool_unused);
  hr_cli_json_bool (b, "fits_at_high_end", g->fits_high);
  hr_cli_json_int (b, "short_at_high_end", g->need_high > g->limit.usable
                                           ? g->need_high - g->limit.usable : 0);
  hr_cli_json_int (b, "max_micro_batch_at_high_end", g->max_micro_batch_high);
  hr_cli_json_string (b, "reason", g->estimate->fit_reason);
  hr_cli_json_string (b, "verdict", g->verdict);
  hr_cli_json_string (b, "rule", g->rule);
  json_builder_set_member_name (b, "pool");
  if (g->limit.has_pool)
    {
      json_builder_begin_object (b);
      hr_cli_json_string (b, "variable", g->limit.pool_variable);
      hr_cli_json_double (b, "fraction", g->limit.pool_fraction);
      hr_cli_json_int (b, "bytes", g->limit.pool);
      hr_cli_json_bool (b, "preallocated", g->limit.pool_preallocated);
      hr_cli_json_int (b, "outside", g->limit.outside);
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
  hr_cli_json_bool (b, "calibrated", hr_analysis_get_calibration (analysis) != NULL);
  hr_cli_json_begin_array (b, "measurements");
  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);

      json_builder_begin_object (b);
      hr_cli_json_string (b, "file", m->measurement->name);
      hr_cli_json_bool (b, "matches", !m->match->differs);
      hr_cli_json_bool (b, "can_calibrate", m->match->can_calibrate);
      hr_cli_json_string (b, "match", m->match->summary);
      if (m->measurement->trace != NULL)
        {
          /* a step traced on the CPU: its ratio to the walk, and what it
           * says of itself */
          hr_cli_json_bool (b, "traced_on_cpu", TRUE);
          json_builder_set_member_name (b, "trace_ratio");
          if (isnan (m->trace_ratio))
            json_builder_add_null_value (b);
          else
            json_builder_add_double_value (b, m->trace_ratio);
          hr_cli_json_string (b, "summary", m->summary);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The five buckets on each GPU, the peak in its three views and its range. */
static void
add_per_gpu_json (JsonBuilder      *b,
                  const HrEstimate *est)
{
  hr_cli_json_begin_object (b, "per_gpu");
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      hr_cli_json_int (b, hr_enum_to_nick (hr_bucket_names, i), est->buckets[i]);
    }
  hr_cli_json_int (b, "total", est->total);
  hr_cli_json_int (b, "low", est->low);
  hr_cli_json_int (b, "high", est->high);
  hr_cli_json_int (b, "allocated_peak", est->allocated_peak);
  hr_cli_json_int (b, "reserved_peak", est->reserved_peak);
  hr_cli_json_int (b, "device_used", est->device_used);
  /* the weights' own range, and an inference's KV cache (a serving
   * engine's pool) with its range */
  hr_cli_json_int (b, "weights_low", est->bucket_low[HR_BUCKET_WEIGHTS]);
  hr_cli_json_int (b, "weights_high", est->bucket_high[HR_BUCKET_WEIGHTS]);
  hr_cli_json_int (b, "kv_cache", est->kv_cache);
  hr_cli_json_int (b, "kv_cache_low", est->kv_cache_low);
  hr_cli_json_int (b, "kv_cache_high", est->kv_cache_high);
  json_builder_end_object (b);
}

/* What a serving engine's pool holds, for the fit under it. */
static void
add_serving_json (JsonBuilder      *b,
                  const HrScenario *s,
                  const HrEstimate *est)
{
  hr_cli_json_begin_object (b, "serving");
  hr_cli_json_string (b, "engine", hr_enum_to_nick (hr_engine_names, s->engine));
  hr_cli_json_double (b, "pool_fraction", est->pool_fraction);
  hr_cli_json_int (b, "pool", est->pool);
  hr_cli_json_bool (b, "pool_limits", est->pool_limits);
  hr_cli_json_int (b, "kv_tokens", est->kv_tokens);
  hr_cli_json_int (b, "kv_sequences", est->kv_sequences);
  json_builder_end_object (b);
}

/* The range's kind of run and half-widths (hr-estimate-range.c), the
 * range of each view of the peak and of each bucket. */
static void
add_ranges_json (JsonBuilder      *b,
                 const HrEstimate *est)
{
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
  hr_cli_json_begin_object (b, "ranges");
  {
    const struct { const char *name; guint64 low, high; } ranges[] = {
      { "allocated", est->allocated_low, est->allocated_high },
      { "reserved", est->reserved_low, est->reserved_high },
      { "device_used", est->low, est->high },
    };

    for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
      {
        hr_cli_json_begin_object (b, ranges[i].name);
        hr_cli_json_int (b, "low", ranges[i].low);
        hr_cli_json_int (b, "high", ranges[i].high);
        json_builder_end_object (b);
      }
  }
  json_builder_end_object (b);

  /* Each bucket's own range, beside the contract's keys. */
  hr_cli_json_begin_object (b, "bucket_ranges");
  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      hr_cli_json_begin_object (b, hr_enum_to_nick (hr_bucket_names, i));
      hr_cli_json_int (b, "low", est->bucket_low[i]);
      hr_cli_json_int (b, "high", est->bucket_high[i]);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

/* Host memory and what holds it. */
static void
add_host_json (JsonBuilder      *b,
               const HrEstimate *est)
{
  hr_cli_json_begin_object (b, "host");
  hr_cli_json_int (b, "ram", est->host_ram);
  hr_cli_json_begin_array (b, "items");
  for (guint i = 0; i < est->host_items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->host_items, i);

      json_builder_begin_object (b);
      hr_cli_json_string (b, "label", item->label);
      hr_cli_json_int (b, "bytes", (gint64) item->bytes);
      hr_cli_json_string (b, "basis", hr_enum_to_nick (hr_basis_names, item->basis));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* Each item of the buckets. */
static void
add_items_json (JsonBuilder      *b,
                const HrEstimate *est)
{
  hr_cli_json_begin_array (b, "items");
  for (guint i = 0; i < est->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->items, i);

      json_builder_begin_object (b);
      hr_cli_json_string (b, "bucket", hr_enum_to_nick (hr_bucket_names, item->bucket));
      hr_cli_json_string (b, "label", item->label);
      hr_cli_json_int (b, "bytes", (gint64) (item->bytes + 0.5));
      hr_cli_json_int (b, "low", (gint64) (item->low + 0.5));
      hr_cli_json_int (b, "high", (gint64) (item->high + 0.5));
      hr_cli_json_string (b, "metric", hr_enum_to_nick (hr_metric_names, item->metric));
      hr_cli_json_string (b, "basis", hr_enum_to_nick (hr_basis_names, item->basis));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The scenario as estimated. */
static void
add_scenario_json (JsonBuilder      *b,
                   const HrScenario *s,
                   const HrEstimate *est)
{
  hr_cli_json_begin_object (b, "scenario");
  hr_cli_json_string (b, "model", s->model->id);
  hr_cli_json_int (b, "params", est->params);
  hr_cli_json_int (b, "trainable_params", est->trainable_params);
  hr_cli_json_int (b, "micro_batch", est->micro_batch);
  hr_cli_json_int (b, "seq_len", est->seq_len);
  json_builder_end_object (b);
}

/* What the architecture walk's parts save for the backward pass, the
 * figure a CPU trace measures. */
static void
add_walk_json (JsonBuilder      *b,
               const HrEstimate *est)
{
  json_builder_set_member_name (b, "walk_saved");
  json_builder_add_int_value (b, est->walk_saved);
  json_builder_set_member_name (b, "walk_blocks");
  json_builder_begin_array (b);
  for (guint i = 0; i < est->walk_blocks->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (est->walk_blocks, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "block");
      json_builder_add_string_value (b, item->label);
      json_builder_set_member_name (b, "saved");
      json_builder_add_int_value (b, (gint64) (item->bytes + 0.5));
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
  hr_cli_json_int (b, "headroom_estimate", 1);

  add_per_gpu_json (b, est);
  add_serving_json (b, s, est);
  add_ranges_json (b, est);
  add_host_json (b, est);

  json_builder_set_member_name (b, "fit");
  if (own != NULL)
    {
      json_builder_begin_object (b);
      add_gpu_fit_json (b, own);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);

  add_items_json (b, est);
  add_scenario_json (b, s, est);
  add_walk_json (b, est);

  add_measurements_json (b, analysis);

  hr_cli_json_begin_array (b, "notes");
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
      if (m->measurement->trace != NULL)
        printf ("  %s\n", m->summary);
    }
  if (hr_analysis_get_n_measurements (analysis) > 0)
    printf (_("Calibration: %s%s\n\n"), hr_analysis_get_calibration_text (analysis),
            hr_analysis_get_calibration (analysis) != NULL ? _(" (applied)") : "");
}

/* A step traced on the CPU, beside the walked activations: the traced
 * figure at the scenario's micro-batch and input size when the trace has
 * it, else the walk scaled by the trace's ratio. */
static void
print_traced (HrAnalysis *analysis)
{
  const HrScenario *s = hr_analysis_get_scenario (analysis);
  const HrEstimate *est = hr_analysis_get_estimate (analysis);
  double size = s->image_width > 0 && s->image_width == s->image_height ? s->image_width
              : s->seq_len > 0 ? s->seq_len : NAN;

  for (guint i = 0; i < hr_analysis_get_n_measurements (analysis); i++)
    {
      const HrAnalysisMeasurement *m = hr_analysis_get_measurement (analysis, i);
      const HrTraceRow *row;
      g_autofree char *walk = NULL, *v = NULL;

      if (m->measurement->trace == NULL || isnan (m->trace_ratio))
        continue;
      walk = hr_cli_size ((double) est->walk_saved);
      row = hr_trace_find (m->measurement->trace, est->micro_batch, size);
      if (row == NULL && isnan (size))
        row = hr_trace_find (m->measurement->trace, est->micro_batch, NAN);
      if (row != NULL)
        {
          v = hr_cli_size (row->saved);
          printf (_("  %-12s %10s  [traced on CPU] saved for backward at micro-batch %u, traced "
                    "(the walk: %s)\n"), "activations", v, est->micro_batch, walk);
        }
      else
        {
          v = hr_cli_size (m->trace_ratio * (double) est->walk_saved);
          printf (_("  %-12s %10s  [traced on CPU] the walk's %s × %.3f, the ratio traced at "
                    "other sizes\n"), "activations", v, walk, m->trace_ratio);
        }
    }
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
      g_autofree char *v = hr_cli_size (est->buckets[i]);
      g_autofree char *lo = hr_cli_size (est->bucket_low[i]);
      g_autofree char *hi = hr_cli_size (est->bucket_high[i]);

      printf ("%-17s %12s   %s – %s\n", hr_bucket_get_label (i), v, lo, hi);
    }

  {
    g_autofree char *t = hr_cli_size (est->total);
    g_autofree char *lo = hr_cli_size (est->low);
    g_autofree char *hi = hr_cli_size (est->high);
    g_autofree char *a = hr_cli_size (est->allocated_peak);
    g_autofree char *r = hr_cli_size (est->reserved_peak);
    g_autofree char *d = hr_cli_size (est->device_used);
    g_autofree char *h = hr_cli_size (est->host_ram);

    printf ("%-17s %12s   %s – %s\n", _("Total"), t, lo, hi);
    /* under XLA's pool, the figure the fit, the bars and the curve show:
     * the run's use of the pool, and what XLA holds of it unused */
    if (own != NULL && own->limit.has_pool && !hr_scenario_has_kv_pool (s))
      {
        g_autofree char *need = hr_cli_size (own->need);
        g_autofree char *need_lo = hr_cli_size (own->need_low);
        g_autofree char *need_hi = hr_cli_size (own->need_high);
        g_autofree char *unused = hr_cli_size (own->pool_unused);

        printf ("%-17s %12s   %s – %s\n", _("Peak in XLA pool"), need, need_lo, need_hi);
        if (own->pool_unused > 0)
          printf ("%-17s %12s\n", _("Held, unused"), unused);
      }
    printf ("\n");
    printf (_("Views: allocated %s · reserved %s · nvidia-smi %s\n"), a, r, d);
    printf (_("Host RAM: %s\n"), h);
    for (guint i = 0; i < est->host_items->len; i++)
      {
        HrEstimateItem *item = g_ptr_array_index (est->host_items, i);
        g_autofree char *v = hr_cli_size (item->bytes);

        printf ("  %10s  %s\n", v, item->label);
      }
  }

  if (own != NULL)
    {
      g_autofree char *cap = hr_cli_size (own->limit.capacity);
      g_autofree char *usable = hr_cli_size (own->limit.usable);

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
      g_autofree char *v = hr_cli_size (item->bytes);

      /* Translators: the basis of a figure, "derived", "calibrated" or
       * "assumed", in brackets before its label */
      printf ("  %-12s %10s  [%s] %s\n", hr_enum_to_nick (hr_bucket_names, item->bucket), v,
              hr_basis_get_label (item->basis), item->label);
    }

  print_traced (analysis);

  printf ("\n%s\n", _("Notes:"));
  for (guint i = 0; i < est->notes->len; i++)
    printf ("  - %s\n", (const char *) g_ptr_array_index (est->notes, i));
}

int
hr_cli_estimate (int    argc,
                 char **argv)
{
  GOptionEntry entries[] = { COMMON_OPTIONS, { NULL } };
  g_autoptr(GPtrArray) measurements = hr_cli_measurements_new ();
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
    CSV_OPTION (&csv),
    { NULL }
  };
  g_autoptr(GPtrArray) measurements = hr_cli_measurements_new ();
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
      hr_cli_json_int (b, "headroom_sweep", 1);
      json_builder_set_member_name (b, "gpu");
      if (own != NULL)
        json_builder_add_string_value (b, own->gpu->id);
      else
        json_builder_add_null_value (b);
      hr_cli_json_int (b, "usable", usable);
      json_builder_set_member_name (b, "rule");
      if (own != NULL)
        json_builder_add_string_value (b, own->rule);
      else
        json_builder_add_null_value (b);
      hr_cli_json_bool (b, "calibrated", hr_analysis_get_calibration (analysis) != NULL);
      hr_cli_json_begin_array (b, "points");
      for (guint i = 0; i < points->len; i++)
        {
          HrAnalysisSample *p = &g_array_index (points, HrAnalysisSample, i);

          json_builder_begin_object (b);
          hr_cli_json_int (b, "micro_batch", p->micro_batch);
          hr_cli_add_peak_json (b, &p->peak);
          hr_cli_json_int (b, "need", p->need);
          if (own != NULL)
            {
              hr_cli_json_bool (b, "fits", p->need <= usable);
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
      g_autofree char *total = hr_cli_column (_("Total"));
      g_autofree char *low = hr_cli_column (_("Low"));
      g_autofree char *high = hr_cli_column (_("High"));
      g_autofree char *alloc = hr_cli_column (_("Alloc"));
      g_autofree char *reserved = hr_cli_column (_("Reserved"));
      g_autofree char *needs = hr_cli_column (_("Needs"));
      HrSizeUnit u = hr_cli_get_unit ();

      printf ("%-11s %12s %12s %12s %12s %12s %12s%s%s\n", _("Micro-batch"), total, low, high,
              alloc, reserved, needs, own != NULL ? "  " : "", own != NULL ? _("Fits") : "");
      for (guint i = 0; i < points->len; i++)
        {
          HrAnalysisSample *p = &g_array_index (points, HrAnalysisSample, i);

          printf ("%-11u %12.2f %12.2f %12.2f %12.2f %12.2f %12.2f%s%s\n", p->micro_batch,
                  hr_size_in_unit (p->peak.total, u), hr_size_in_unit (p->peak.low, u),
                  hr_size_in_unit (p->peak.high, u), hr_size_in_unit (p->peak.allocated, u),
                  hr_size_in_unit (p->peak.reserved, u), hr_size_in_unit (p->need, u),
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
    hr_cli_option_gpus (&gpu_list, N_("GPUs to check (default all)"), TRUE),
    CSV_OPTION (&csv),
    { NULL }
  };
  g_autoptr(GPtrArray) measurements = hr_cli_measurements_new ();
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
      hr_cli_json_int (b, "headroom_fits", 1);
      hr_cli_json_int (b, "micro_batch", scenario->micro_batch);
      hr_cli_json_double (b, "reserve", scenario->reserve);
      hr_cli_json_bool (b, "calibrated", hr_analysis_get_calibration (analysis) != NULL);
      hr_cli_json_begin_array (b, "gpus");
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
  {
    g_autofree char *memory = hr_cli_column (_("Memory"));
    g_autofree char *usable = hr_cli_column (_("Usable"));
    g_autofree char *needs = hr_cli_column (_("Needs"));

    printf ("%-20s %11s %11s %11s  %-5s %10s  %s\n", _("GPU"), memory, usable, needs, _("Fits"),
            _("Max batch"), _("Lever that fixes it"));
  }
  for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
    {
      const HrAnalysisGpu *g = hr_analysis_get_gpu (analysis, i);
      g_autofree char *max = g->max_micro_batch == 0 ? g_strdup (_("none"))
                             : g_strdup_printf ("%s%u", g->max_is_lower_bound ? "≥" : "",
                                                g->max_micro_batch);

      printf ("%-20s %11.2f %11.2f %11.2f  %-5s %10s  %s\n", g->gpu->id,
              hr_size_in_unit (g->limit.capacity, hr_cli_get_unit ()),
              hr_size_in_unit (g->limit.usable, hr_cli_get_unit ()),
              hr_size_in_unit (g->need, hr_cli_get_unit ()),
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
  g_autoptr(GPtrArray) measurements = hr_cli_measurements_new ();
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
      hr_cli_json_int (b, "headroom_knobs", 1);
      hr_cli_json_string (b, "sort", hr_enum_to_nick (hr_knob_sort_names, sort));
      hr_cli_json_int (b, "total", est->total);
      hr_cli_json_int (b, "need", own != NULL ? own->need : est->total);
      if (own != NULL)
        {
          hr_cli_json_string (b, "gpu", own->gpu->id);
          hr_cli_json_int (b, "usable", own->limit.usable);
          hr_cli_json_bool (b, "fits", own->fits);
          hr_cli_json_string (b, "rule", own->rule);
          add_fix_json (b, own->fix);
        }
      hr_cli_json_begin_array (b, "knobs");
      for (guint i = 0; i < knobs->len; i++)
        hr_cli_add_knob_json (b, g_ptr_array_index (knobs, i));
      json_builder_end_array (b);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      hr_cli_print_json (node);
      return HR_CLI_EXIT_OK;
    }

  {
    g_autofree char *t = hr_cli_size (own != NULL ? own->need : est->total);

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
      g_autofree char *saved = hr_cli_size (k->saved);
      g_autofree char *after = hr_cli_size (k->after);
      g_autofree char *gained = hr_cli_size (k->gained);

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
