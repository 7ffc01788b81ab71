/* hr-analysis.c: everything Headroom answers about one scenario, computed
 * once
 *
 * What it costs: one plan and one estimate per compared card (the
 * scenario's own plan serves its card, the curve and the levers' "before"),
 * one plan per lever that applies, and a plan per card that does not fit
 * to confirm the lever that fixes it.  The fit searches guess from a line
 * and check the guess (hr-fit-rule.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-analysis"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "hr-analysis.h"
#include "hr-snapshot.h"

#define GB  1e9
#define GiB (1024.0 * 1024.0 * 1024.0)

/* The curve's points: every micro-batch up to this many, evenly spaced
 * beyond (the need is close to a line in the batch, so more points draw
 * nothing new). */
#define SWEEP_POINTS 32

struct _HrAnalysis {
  gint                 ref_count;
  HrScenario          *scenario;
  HrAnalysisOptions    options;
  HrPlan              *plan;
  HrEstimate          *estimate;
  GPtrArray           *gpus;          /* HrAnalysisGpu */
  GPtrArray           *references;    /* HrAnalysisGpu, for the curve */
  HrAnalysisGpu       *own;           /* in gpus, or own_gpu */
  HrAnalysisGpu       *own_gpu;       /* when the scenario's card is not compared */
  GPtrArray           *measurements;  /* HrAnalysisMeasurement */
  HrMeasurement       *snapshot_sweep;   /* the snapshots' together, when they make one */
  /* the candidate, a measurement's; applied when `calibrated` */
  const HrCalibration *calibration;
  guint                calibration_from;   /* the measurement it was made from */
  gboolean             calibrated;
  char                *calibration_text;
  GPtrArray           *levers;        /* HrKnob, lazily */
  GArray              *sweep;         /* HrAnalysisSample, lazily */
  char                *headline;
};

static void
analysis_gpu_free (HrAnalysisGpu *g)
{
  if (g == NULL)
    return;
  hr_gpu_free (g->gpu);
  hr_estimate_free (g->estimate);
  hr_knob_free (g->fix);
  g_free (g->rule);
  g_free (g->verdict);
  g_free (g);
}

static void
fit_free (gpointer fit)
{
  hr_fit_free (fit);
}

static void
analysis_measurement_free (HrAnalysisMeasurement *m)
{
  hr_measure_match_free (m->match);
  /* m->fit is one of the series' */
  g_clear_pointer (&m->series_fits, g_ptr_array_unref);
  g_clear_pointer (&m->calibration, hr_calibration_free);
  g_clear_error (&m->calibration_error);
  g_clear_pointer (&m->at_micro_batch, hr_estimate_free);
  g_clear_pointer (&m->snapshots, g_ptr_array_unref);
  g_free (m->snapshot_files);
  g_free (m->summary);
  g_free (m);
}

GPtrArray *
hr_analysis_fit_measurement (const HrMeasurement *measurement)
{
  GPtrArray *fits;

  g_return_val_if_fail (measurement != NULL, NULL);

  fits = g_ptr_array_new_with_free_func (fit_free);
  for (guint i = 0; i < measurement->series->len; i++)
    g_ptr_array_add (fits, hr_fit_series (g_ptr_array_index (measurement->series, i), NULL));
  return fits;
}

void
hr_analysis_add_reference_gpus (GPtrArray *gpus,
                                HrCatalog *catalog)
{
  /* A consumer card and the two data-centre cards most rented for
   * training (their catalog entries cite the vendors' pages). */
  static const char * const reference[] = { "rtx-4090", "a100-80gb", "h100-sxm" };

  g_return_if_fail (gpus != NULL);
  g_return_if_fail (catalog != NULL);

  for (guint i = 0; i < G_N_ELEMENTS (reference); i++)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (catalog, reference[i]);
      gboolean present = FALSE;

      for (guint j = 0; j < gpus->len && gpu != NULL; j++)
        present |= g_str_equal (((const HrGpu *) g_ptr_array_index (gpus, j))->id, gpu->id);

      if (gpu != NULL && !present)
        g_ptr_array_add (gpus, (gpointer) gpu);
    }
}

HrAnalysis *
hr_analysis_ref (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
hr_analysis_free (HrAnalysis *self)
{
  hr_analysis_unref (self);
}

void
hr_analysis_unref (HrAnalysis *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;

  hr_scenario_free (self->scenario);
  g_clear_pointer (&self->plan, hr_plan_free);
  g_clear_pointer (&self->estimate, hr_estimate_free);
  g_clear_pointer (&self->gpus, g_ptr_array_unref);
  g_clear_pointer (&self->references, g_ptr_array_unref);
  g_clear_pointer (&self->own_gpu, analysis_gpu_free);
  g_clear_pointer (&self->measurements, g_ptr_array_unref);
  g_clear_pointer (&self->snapshot_sweep, hr_measurement_free);
  g_clear_pointer (&self->levers, g_ptr_array_unref);
  g_clear_pointer (&self->sweep, g_array_unref);
  g_free (self->calibration_text);
  g_free (self->headline);
  g_free (self);
}

HrSizeUnit
hr_analysis_get_unit (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, HR_SIZE_GIB);
  return self->options.unit;
}

char *
hr_analysis_format_bytes (HrAnalysis *self,
                          double      bytes)
{
  return hr_size_format (bytes, self->options.unit);
}

static const HrCalibration *
applied (HrAnalysis *self)
{
  return self->calibrated ? self->calibration : NULL;
}

/* ---- measurements and the calibration ---- */

/* A snapshot is one run: the estimate at the micro-batch it says it ran
 * (else the scenario's), uncalibrated, on the scenario's card, for the
 * snapshot's buckets to be set beside. */
static void
estimate_at_snapshot (HrAnalysis            *self,
                      HrAnalysisMeasurement *m)
{
  const HrMeasurement *measurement = m->measurement;
  guint batch;

  if (measurement->snapshot == NULL || hr_snapshot_get_peak_device (measurement->snapshot) == NULL)
    return;
  batch = hr_measurement_get_micro_batch (measurement);
  m->micro_batch = batch > 0 ? batch : self->scenario->micro_batch;
  if (m->micro_batch == self->scenario->micro_batch)
    m->at_micro_batch = hr_plan_estimate (self->plan);
  else
    {
      g_autoptr(HrScenario) at_batch = hr_scenario_copy (self->scenario);
      g_autoptr(HrPlan) plan = NULL;

      at_batch->micro_batch = m->micro_batch;
      plan = hr_plan_new_in_unit (at_batch, self->options.unit);
      m->at_micro_batch = hr_plan_estimate (plan);
    }
}

static HrAnalysisMeasurement *
add_measurement (HrAnalysis          *self,
                 const HrMeasurement *measurement)
{
  HrAnalysisMeasurement *m = g_new0 (HrAnalysisMeasurement, 1);
  const HrMeasureSeries *sweep = hr_measurement_get_sweep (measurement);
  GString *text = g_string_new (NULL);

  m->measurement = measurement;
  m->match = hr_measure_match_new (measurement, self->scenario);
  m->mean_relative_error = NAN;
  m->max_relative_error = NAN;
  m->trace_ratio = NAN;
  m->series_fits = hr_analysis_fit_measurement (measurement);
  for (guint i = 0; sweep != NULL && i < measurement->series->len; i++)
    if (g_ptr_array_index (measurement->series, i) == sweep)
      m->fit = g_ptr_array_index (m->series_fits, i);
  estimate_at_snapshot (self, m);

  if (measurement->trace != NULL)
    {
      /* traced on the CPU: what autograd saved, against the walk's
       * figure at the same batches and sizes, and the calibration of the
       * walked activations it gives */
      g_autoptr(HrCalibration) calibration = NULL;
      g_autoptr(GArray) points = NULL;
      g_autoptr(GError) error = NULL;
      double ratio;

      if (hr_trace_compare (measurement->trace, self->scenario, &ratio, &points, &error))
        {
          double mean = 0, worst = 0;

          for (guint i = 0; i < points->len; i++)
            {
              const HrTracePoint *p = &g_array_index (points, HrTracePoint, i);
              double relative = p->traced > 0 ? fabs (p->walked - p->traced) / p->traced : 0;

              mean += relative / points->len;
              worst = MAX (worst, relative);
            }
          m->trace_ratio = ratio;
          m->mean_relative_error = mean;
          m->max_relative_error = worst;
          g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE,
                                                     "Traced on CPU (%u step): saved for backward "
                                                     "×%.3f the walk's, off by %.1f%% on average, "
                                                     "%.1f%% at most",
                                                     "Traced on CPU (%u steps): saved for backward "
                                                     "×%.3f the walk's, off by %.1f%% on average, "
                                                     "%.1f%% at most", points->len),
                                  points->len, ratio, 100 * mean, 100 * worst);
          calibration = hr_trace_calibration_new (measurement->trace, self->plan,
                                                  self->scenario, &error);
        }
      else
        g_string_append_printf (text, _("Traced on CPU: %s"), error->message);

      /* the measurement owns its calibration; the analysis borrows the
       * one in use, as it does a sweep's */
      m->calibration = g_steal_pointer (&calibration);
      if (m->calibration != NULL && self->calibration == NULL && m->match->can_calibrate)
        {
          self->calibration = m->calibration;
          self->calibration_from = self->measurements->len;
        }
      else if (m->calibration == NULL && error != NULL && self->calibration_text == NULL &&
               m->match->can_calibrate)
        self->calibration_text = g_strdup (error->message);
    }
  else if (sweep == NULL)
    {
      /* A log over time: its peak. */
      for (guint i = 0; i < measurement->series->len; i++)
        {
          const HrMeasureSeries *series = g_ptr_array_index (measurement->series, i);
          g_autofree char *peak = hr_analysis_format_bytes (self, series->peak);

          if (i > 0)
            g_string_append (text, " · ");
          g_string_append_printf (text, _("%s: peak %s"), series->name, peak);
        }
    }
  else
    {
      if (m->fit != NULL)
        {
          g_autofree char *floor_text = hr_analysis_format_bytes (self, m->fit->floor);
          g_autofree char *slope = hr_analysis_format_bytes (self, m->fit->per_sample);

          g_string_append_printf (text, _("Fit %s + %s per sample, R² %.3f"), floor_text, slope,
                                  m->fit->r2);
        }
      m->calibration = hr_calibration_new (self->plan, sweep, &m->calibration_error);
      if (m->calibration != NULL)
        {
          m->mean_relative_error = m->calibration->mean_relative_error;
          m->max_relative_error = m->calibration->max_relative_error;
          g_string_append_printf (text, _(" · the estimate was off by %.0f%% on average, %.0f%% "
                                          "at most"),
                                  100 * m->calibration->mean_relative_error,
                                  100 * m->calibration->max_relative_error);
          if (self->calibration == NULL && m->match->can_calibrate)
            {
              self->calibration = m->calibration;
              self->calibration_from = self->measurements->len;
            }
        }
      else if (self->calibration_text == NULL && m->match->can_calibrate)
        self->calibration_text = g_strdup (m->calibration_error->message);
      if (sweep->oom_batch > 0)
        g_string_append_printf (text, _(" · out of memory at micro-batch %u"), sweep->oom_batch);
    }

  m->summary = g_string_free (text, FALSE);
  g_ptr_array_add (self->measurements, m);
  return m;
}

/* What the snapshots' sweep copies from them: the keys that say what was
 * measured, when every snapshot that says one says the same. */
static const char * const sweep_keys[] = { "model", "framework", "precision", "gpu", "optimizer" };

static void
copy_agreeing_config (HrMeasurement *sweep,
                      GPtrArray     *snapshots)
{
  for (guint k = 0; k < G_N_ELEMENTS (sweep_keys); k++)
    {
      const char *value = NULL;
      gboolean agree = TRUE;

      for (guint i = 0; i < snapshots->len; i++)
        {
          const char *v = hr_measurement_get_config (g_ptr_array_index (snapshots, i),
                                                     sweep_keys[k]);

          if (v == NULL)
            continue;
          if (value != NULL && g_strcmp0 (value, v) != 0)
            agree = FALSE;
          value = v;
        }
      if (value != NULL && agree)
        {
          g_ptr_array_add (sweep->config_keys, g_strdup (sweep_keys[k]));
          g_ptr_array_add (sweep->config_values, g_strdup (value));
        }
    }
}

/* Snapshots that say their micro-batch and are of this setup as far as
 * they say (another card is fine: a calibration carries to every card),
 * taken at two or more micro-batches, make one sweep: added after the
 * measurements, so that each of those keeps its index. */
static void
add_snapshot_sweep (HrAnalysis *self)
{
  g_autoptr(GPtrArray) snapshots = g_ptr_array_new ();
  g_autoptr(GString) files = g_string_new (NULL);
  g_autoptr(GString) batches = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  HrAnalysisMeasurement *m;
  guint first_batch = 0;
  gboolean several = FALSE;

  for (guint i = 0; i < self->measurements->len; i++)
    {
      const HrAnalysisMeasurement *one = g_ptr_array_index (self->measurements, i);
      const HrMeasurement *measurement = one->measurement;
      guint batch = hr_measurement_get_micro_batch (measurement);
      g_autofree char *base = NULL;

      if (measurement->snapshot == NULL || batch == 0 ||
          hr_snapshot_get_peak_device (measurement->snapshot) == NULL ||
          !one->match->can_calibrate)
        continue;
      g_ptr_array_add (snapshots, (gpointer) measurement);
      base = g_path_get_basename (measurement->name);
      g_string_append_printf (files, "%s%s", files->len > 0 ? ", " : "", base);
      g_string_append_printf (batches, "%s%u", batches->len > 0 ? ", " : "", batch);
      if (first_batch == 0)
        first_batch = batch;
      else if (batch != first_batch)
        several = TRUE;
    }
  if (!several)
    return;

  /* (every snapshot kept says its micro-batch and has a peak: this cannot
   * fail, and would leave the snapshots as they are if it did) */
  self->snapshot_sweep = hr_measurement_new_snapshot_sweep (snapshots, &error);
  if (self->snapshot_sweep == NULL)
    {
      g_warning ("%s", error->message);
      return;
    }
  copy_agreeing_config (self->snapshot_sweep, snapshots);
  g_free (self->snapshot_sweep->name);
  /* Translators: the name of the sweep snapshots make together, in the
   * curve's legend; %s lists their micro-batches, "8, 16" */
  self->snapshot_sweep->name = g_strdup_printf (_("snapshots at micro-batch %s"), batches->str);

  m = add_measurement (self, self->snapshot_sweep);
  m->snapshots = g_steal_pointer (&snapshots);
  m->snapshot_files = g_string_free (g_steal_pointer (&files), FALSE);
}

static void
describe_calibration (HrAnalysis *self)
{
  gboolean any_sweep = FALSE;
  guint snapshots = 0;

  for (guint i = 0; i < self->measurements->len; i++)
    {
      const HrAnalysisMeasurement *m = g_ptr_array_index (self->measurements, i);

      any_sweep |= hr_measurement_get_sweep (m->measurement) != NULL ||
                   m->measurement->trace != NULL;
      snapshots += m->measurement->snapshot != NULL;
    }

  if (self->calibration != NULL)
    {
      g_autofree char *shift = hr_analysis_format_bytes (self,
                                                         fabs (self->calibration->overhead_shift));
      g_autofree char *band = hr_analysis_format_bytes (self, self->calibration->band_bytes);

      g_free (self->calibration_text);
      /* TRANSLATORS: "Activations ×1.12, overhead +0.40 GiB, then ±0.31 GiB:
       * applies to every GPU" */
      self->calibration_text = g_strdup_printf (_("Activations ×%.2f, overhead %s%s, then ±%s: "
                                                  "applies to every GPU compared"),
                                                self->calibration->activation_scale,
                                                self->calibration->overhead_shift < 0 ? "−" : "+",
                                                shift, band);
    }
  else if (!any_sweep && self->options.sweep_snapshots && snapshots > 0 &&
           snapshots == self->measurements->len)
    {
      /* A snapshot is one run at one micro-batch: "needs two or more
       * micro-batches" is true, and how to get the second is said. */
      g_free (self->calibration_text);
      self->calibration_text = g_strdup (_("A snapshot is one run at one micro-batch: import "
                                           "snapshots of this setup at two or more micro-batches "
                                           "(the probe's --snapshot writes one per "
                                           "micro-batch)"));
    }
  else if (!any_sweep)
    {
      g_free (self->calibration_text);
      self->calibration_text = g_strdup (_("Needs a measurement at two or more micro-batches"));
    }
  else if (self->calibration_text == NULL)
    self->calibration_text = g_strdup (_("The measured sweeps are of another model, framework or "
                                         "precision: none can calibrate this scenario"));
}

/* ---- the fit on each card ---- */

/* ---- the high end of the range ---- */

const char *
hr_analysis_fit_to_string (HrAnalysisFit fit)
{
  switch (fit)
    {
    case HR_ANALYSIS_FIT_FITS:
      return "fits";
    case HR_ANALYSIS_FIT_TIGHT:
      return "tight";
    case HR_ANALYSIS_FIT_NO:
    default:
      return "does-not-fit";
    }
}

/* A calibration sets the activations and the overhead from the
 * measurement (hr_calibration_apply_estimate): their lines are then
 * "calibrated", and no other line is (hr-types.h HrBasis). */
static void
mark_calibrated (HrEstimate *estimate)
{
  for (guint i = 0; i < estimate->items->len; i++)
    {
      HrEstimateItem *item = g_ptr_array_index (estimate->items, i);

      if (item->bucket == HR_BUCKET_ACTIVATIONS || item->bucket == HR_BUCKET_OVERHEAD)
        item->basis = HR_BASIS_CALIBRATED;
    }
}

typedef struct {
  HrAnalysis *self;
  HrPlan     *plan;
} HighEnd;

/* The need at the high end of the range at @micro_batch, calibrated when
 * the analysis is (a calibration's band is its own range). */
static guint64
need_high_at (guint    micro_batch,
              gpointer user_data)
{
  HighEnd *h = user_data;
  HrPeak peak = { 0 };

  if (applied (h->self) != NULL)
    hr_calibration_peak (applied (h->self), h->plan, micro_batch, &peak);
  else
    hr_plan_peak (h->plan, micro_batch, &peak);
  return MAX (peak.need_high, hr_fit_rule_need (hr_plan_get_scenario (h->plan), &peak));
}

/* Whether the high end of the estimate's range fits as well as the
 * central estimate, and the largest micro-batch whose high end does: the
 * range is how wrong the estimate may be, so a run that fits only at its
 * centre may still run out of memory. */
static void
fit_high_end (HrAnalysis    *self,
              HrPlan        *plan,
              HrAnalysisGpu *g)
{
  HighEnd h = { self, plan };
  gboolean lower_bound = FALSE;

  g->need_high = MAX (g->need, need_high_at (MAX (1, self->scenario->micro_batch), &h));
  g->fits_high = g->fits && g->need_high <= g->limit.usable;
  if (g->fits_high)
    g->max_micro_batch_high = g->max_micro_batch;
  if (g->max_micro_batch == 0)
    g->max_micro_batch_high = 0;
  else
    g->max_micro_batch_high = MIN (g->max_micro_batch,
                                   hr_fit_rule_max_micro_batch (need_high_at, &h,
                                                                g->limit.usable,
                                                                g->max_micro_batch,
                                                                &lower_bound));
  g->fit = g->fits_high ? HR_ANALYSIS_FIT_FITS
           : g->fits ? HR_ANALYSIS_FIT_TIGHT : HR_ANALYSIS_FIT_NO;
}

/* The low end of the need's range at the scenario's micro-batch, and
 * under XLA's pool what lies beside it and what of it the run leaves
 * unused: the one figure a headline, a bar, the curve and the verdict
 * show for this card is the need, inside the pool where there is one. */
static void
fit_low_end (HrAnalysis    *self,
             HrPlan        *plan,
             HrAnalysisGpu *g)
{
  const HrScenario *s = hr_plan_get_scenario (plan);
  HrPeak peak = { 0 };

  if (applied (self) != NULL)
    hr_calibration_peak (applied (self), plan, MAX (1, self->scenario->micro_batch), &peak);
  else
    hr_plan_peak (plan, MAX (1, self->scenario->micro_batch), &peak);
  g->need_low = MIN (g->need, peak.need_low > 0 ? peak.need_low : g->need);

  if (!g->limit.has_pool || hr_scenario_has_kv_pool (s))
    return;
  g->beside_pool = g->limit.outside;
  /* preallocated, XLA takes the whole pool at start-up (hr-estimate.c,
   * "XLA preallocation"), whatever the run needs of it */
  if (g->limit.pool_preallocated && g->need < g->limit.pool)
    g->pool_unused = g->limit.pool - g->need;
}

static HrAnalysisGpu *
fit_on (HrAnalysis  *self,
        const HrGpu *gpu)
{
  HrAnalysisGpu *g = g_new0 (HrAnalysisGpu, 1);
  g_autoptr(HrScenario) s = NULL;
  g_autoptr(HrPlan) plan = NULL;
  HrPlan *use;
  HrPeak peak = { 0 };

  g->gpu = hr_gpu_copy (gpu);

  /* The scenario's own card has its plan and estimate already. */
  if (self->scenario->gpu != NULL && g_strcmp0 (self->scenario->gpu->id, gpu->id) == 0 &&
      self->scenario->gpu->memory == gpu->memory)
    {
      use = self->plan;
      g->estimate = hr_estimate_copy (self->estimate);
    }
  else
    {
      s = hr_scenario_copy (self->scenario);
      g_clear_pointer (&s->gpu, hr_gpu_free);
      s->gpu = hr_gpu_copy (gpu);
      s->gpu_inline = FALSE;
      plan = hr_plan_new_in_unit (s, self->options.unit);
      use = plan;
      g->estimate = hr_plan_estimate (plan);
      if (applied (self) != NULL)
        {
          hr_calibration_apply_estimate (applied (self), plan, g->estimate);
          mark_calibrated (g->estimate);
        }
    }

  /* The estimate's fit is the rule's (hr-estimate.c); its peak tells the
   * rule what lies outside a pool.  Beside a serving engine's pool lie
   * the CUDA graphs (and SGLang's activations), which the estimate does
   * not keep: the plan's peak gives them. */
  if (hr_scenario_has_kv_pool (hr_plan_get_scenario (use)))
    hr_plan_peak (use, MAX (1, self->scenario->micro_batch), &peak);
  peak.need = g->estimate->need;
  peak.device_used = g->estimate->device_used;
  hr_fit_rule_limit (hr_plan_get_scenario (use), gpu, &peak, &g->limit);
  g->need = g->estimate->need;
  g->fits = g->estimate->fits;
  g->max_micro_batch = g->estimate->max_micro_batch;
  g->max_is_lower_bound = g->estimate->max_is_lower_bound;
  g->rule = hr_fit_rule_describe (&g->limit, self->options.unit);
  fit_high_end (self, use, g);
  fit_low_end (self, use, g);
  return g;
}

static void
write_verdict (HrAnalysis    *self,
               HrAnalysisGpu *g)
{
  guint micro_batch = self->scenario->micro_batch;
  g_autofree char *fix = NULL;

  /* A serving engine's micro-batch is the sequences it runs at once, each
   * holding context_len tokens of KV cache in the pool (hr-fit-rule.c). */
  if (hr_scenario_has_kv_pool (self->scenario))
    {
      guint context = hr_scenario_get_context_len (self->scenario);
      const char *knob = self->scenario->engine == HR_ENGINE_SGLANG ? "mem_fraction_static"
                                                                     : "gpu_memory_utilization";

      if (g->fit == HR_ANALYSIS_FIT_TIGHT)
        {
          g_autofree char *short_by = hr_analysis_format_bytes (self,
                                                                (double) g->need_high -
                                                                g->limit.usable);

          g->verdict = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                     "Probably fits %u sequence of %u tokens at "
                                                     "once, tight: %s short at the high end of "
                                                     "the range; up to %s%u at once",
                                                     "Probably fits %u sequences of %u tokens at "
                                                     "once, tight: %s short at the high end of "
                                                     "the range; up to %s%u at once", micro_batch),
                                        micro_batch, context, short_by,
                                        g->max_is_lower_bound ? "≥ " : "", g->max_micro_batch);
          return;
        }
      if (g->fits)
        {
          g_autofree char *spare = hr_analysis_format_bytes (self,
                                                             (double) g->limit.usable - g->need);

          g->verdict = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                     "Fits %u sequence of %u tokens at once with "
                                                     "%s to spare; up to %s%u at once",
                                                     "Fits %u sequences of %u tokens at once with "
                                                     "%s to spare; up to %s%u at once", micro_batch),
                                        micro_batch, context, spare,
                                        g->max_is_lower_bound ? "≥ " : "", g->max_micro_batch);
          return;
        }
      if (g->max_micro_batch > 0)
        {
          g->verdict = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                     "The KV cache left holds %u sequence of %u "
                                                     "tokens at once, fewer than the %u asked",
                                                     "The KV cache left holds %u sequences of %u "
                                                     "tokens at once, fewer than the %u asked",
                                                     g->max_micro_batch),
                                        g->max_micro_batch, context, micro_batch);
          return;
        }
      {
        g_autofree char *over = hr_analysis_format_bytes (self,
                                                          (double) g->need - g->limit.usable);

        if (g->fix != NULL)
          fix = g_strdup_printf (_("%s fixes it"), g->fix->label);
        else
          fix = g_strdup_printf (_("raise %s, shorten the context, or split the model over "
                                   "more GPUs"), knob);
        /* Translators: the engine refuses to start: "No available memory
         * for the cache blocks" or "To serve at least one request with the
         * model's max seq len". */
        g->verdict = g_strdup_printf (_("Does not fit by %s: not even one sequence of %u tokens "
                                        "fits in the KV cache left, and the engine refuses to "
                                        "start; %s"),
                                      over, context, fix);
      }
      return;
    }

  if (g->fit == HR_ANALYSIS_FIT_TIGHT)
    {
      g_autofree char *short_by = hr_analysis_format_bytes (self, (double) g->need_high -
                                                                  g->limit.usable);

      if (g->max_micro_batch_high > 0)
        g->verdict = g_strdup_printf (_("Probably fits, tight: %s short at the high end of the "
                                        "range at micro-batch %u; largest micro-batch %u at the "
                                        "high end, %s%u at the estimate"),
                                      short_by, micro_batch, g->max_micro_batch_high,
                                      g->max_is_lower_bound ? "≥ " : "", g->max_micro_batch);
      else
        g->verdict = g_strdup_printf (_("Probably fits, tight: %s short at the high end of the "
                                        "range at micro-batch %u, where not even micro-batch 1 "
                                        "fits; largest micro-batch %s%u at the estimate"),
                                      short_by, micro_batch, g->max_is_lower_bound ? "≥ " : "",
                                      g->max_micro_batch);
      return;
    }

  if (g->fits)
    {
      g_autofree char *spare = hr_analysis_format_bytes (self, (double) g->limit.usable - g->need);

      if (g->max_micro_batch_high < g->max_micro_batch)
        g->verdict = g_strdup_printf (_("Fits with %s to spare at micro-batch %u; "
                                        "largest micro-batch %s%u (%u at the high end of the "
                                        "range)"),
                                      spare, micro_batch, g->max_is_lower_bound ? "≥ " : "",
                                      g->max_micro_batch, g->max_micro_batch_high);
      else
        g->verdict = g_strdup_printf (_("Fits with %s to spare at micro-batch %u; "
                                        "largest micro-batch %s%u"),
                                      spare, micro_batch, g->max_is_lower_bound ? "≥ " : "",
                                      g->max_micro_batch);
      return;
    }

  if (g->fix != NULL)
    fix = g_strdup_printf (_("%s fixes it (largest micro-batch %u)"), g->fix->label,
                           g->fix->max_micro_batch_after);
  else
    fix = g_strdup (_("no single lever makes it fit: combine several, or add GPUs"));

  {
    g_autofree char *over = hr_analysis_format_bytes (self, (double) g->need - g->limit.usable);

    if (g->max_micro_batch > 0)
      g->verdict = g_strdup_printf (_("Does not fit by %s at micro-batch %u; "
                                      "largest micro-batch %u, or %s"),
                                    over, micro_batch, g->max_micro_batch, fix);
    else
      g->verdict = g_strdup_printf (_("Does not fit by %s, not even at micro-batch 1: %s"),
                                    over, fix);
  }
}

/* ---- the levers ---- */

GPtrArray *
hr_analysis_get_levers (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->levers == NULL)
    {
      self->levers = hr_knobs_evaluate (self->scenario, applied (self));
      hr_knobs_sort (self->levers, self->options.lever_sort);
    }
  return self->levers;
}

/* ---- construction ---- */

HrAnalysis *
hr_analysis_new (const HrScenario        *scenario,
                 const HrAnalysisOptions *options)
{
  HrAnalysis *self;
  g_autoptr(GPtrArray) compared = g_ptr_array_new ();

  g_return_val_if_fail (scenario != NULL, NULL);

  hr_estimate_counters_count_analysis ();
  self = g_new0 (HrAnalysis, 1);
  self->ref_count = 1;
  if (options != NULL)
    self->options = *options;
  /* the arrays are the caller's, and read here only */
  self->options.gpus = NULL;
  self->options.reference_gpus = NULL;
  self->options.measurements = NULL;
  self->scenario = hr_scenario_copy (scenario);
  self->plan = hr_plan_new_in_unit (self->scenario, self->options.unit);
  self->gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) analysis_gpu_free);
  self->references = g_ptr_array_new_with_free_func ((GDestroyNotify) analysis_gpu_free);
  self->measurements = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                       analysis_measurement_free);

  /* What was measured, and the calibration the first fitting sweep gives. */
  for (guint i = 0; options != NULL && options->measurements != NULL &&
                    i < options->measurements->len; i++)
    add_measurement (self, g_ptr_array_index (options->measurements, i));
  if (self->options.sweep_snapshots)
    add_snapshot_sweep (self);
  describe_calibration (self);
  self->calibrated = self->options.use_calibration && self->calibration != NULL;

  self->estimate = hr_plan_estimate (self->plan);
  if (applied (self) != NULL)
    {
      hr_calibration_apply_estimate (applied (self), self->plan, self->estimate);
      mark_calibrated (self->estimate);
    }

  if (options != NULL && options->gpus != NULL)
    for (guint i = 0; i < options->gpus->len; i++)
      g_ptr_array_add (compared, g_ptr_array_index (options->gpus, i));
  if (compared->len == 0 && self->scenario->gpu != NULL)
    g_ptr_array_add (compared, self->scenario->gpu);

  for (guint i = 0; i < compared->len; i++)
    {
      HrAnalysisGpu *g = fit_on (self, g_ptr_array_index (compared, i));

      g_ptr_array_add (self->gpus, g);
      if (self->own == NULL && self->scenario->gpu != NULL &&
          g_strcmp0 (g->gpu->id, self->scenario->gpu->id) == 0)
        self->own = g;
    }
  if (self->own == NULL && self->scenario->gpu != NULL)
    self->own = self->own_gpu = fit_on (self, self->scenario->gpu);
  if (self->gpus->len == 0 && options != NULL && options->reference_gpus != NULL)
    for (guint i = 0; i < options->reference_gpus->len; i++)
      g_ptr_array_add (self->references, fit_on (self,
                                                 g_ptr_array_index (options->reference_gpus, i)));

  /* The least costly lever that makes each card fit. */
  for (guint i = 0; i <= self->gpus->len; i++)
    {
      HrAnalysisGpu *g = i < self->gpus->len ? g_ptr_array_index (self->gpus, i)
                                             : self->own_gpu;

      if (g == NULL)
        continue;
      if (!g->fits)
        g->fix = hr_knobs_find_fix (hr_analysis_get_levers (self), g->gpu, applied (self));
      write_verdict (self, g);
    }

  {
    const HrAnalysisGpu *own = hr_analysis_get_own_gpu (self);
    gboolean per_gpu = self->scenario->gpus > 1;

    /* Under XLA's pool the peak is the run's use of the pool, the figure
     * the fit, the bars and the curve show; nvidia-smi shows the pool. */
    if (own != NULL && own->limit.has_pool && !hr_scenario_has_kv_pool (self->scenario))
      {
        g_autofree char *need = hr_analysis_format_bytes (self, (double) own->need);
        g_autofree char *pool = hr_analysis_format_bytes (self, (double) own->limit.pool);

        /* Translators: the run's peak, then the size of XLA's pool it
         * runs in */
        if (self->calibrated)
          self->headline = g_strdup_printf (per_gpu ? _("%s peak per GPU in XLA's %s pool, "
                                                        "calibrated")
                                                    : _("%s peak in XLA's %s pool, calibrated"),
                                            need, pool);
        else
          self->headline = g_strdup_printf (per_gpu ? _("%s peak per GPU in XLA's %s pool")
                                                    : _("%s peak in XLA's %s pool"),
                                            need, pool);
      }
    else
      {
        g_autofree char *peak = hr_analysis_format_bytes (self, (double) self->estimate->total);

        if (self->calibrated)
          self->headline = g_strdup_printf (per_gpu ? _("%s peak per GPU, calibrated")
                                                    : _("%s peak, calibrated"), peak);
        else
          self->headline = g_strdup_printf (per_gpu ? _("%s peak per GPU") : _("%s peak"), peak);
      }
  }

  return self;
}

/* ---- accessors ---- */

const HrScenario *
hr_analysis_get_scenario (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->scenario;
}

HrPlan *
hr_analysis_get_plan (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->plan;
}

const HrEstimate *
hr_analysis_get_estimate (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->estimate;
}

guint
hr_analysis_get_n_gpus (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->gpus->len;
}

const HrAnalysisGpu *
hr_analysis_get_gpu (HrAnalysis *self,
                     guint       index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->gpus->len, NULL);
  return g_ptr_array_index (self->gpus, index);
}

GPtrArray *
hr_analysis_get_curve_gpus (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->gpus->len > 0 ? self->gpus : self->references;
}

const HrAnalysisGpu *
hr_analysis_get_own_gpu (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->own;
}

guint
hr_analysis_get_n_measurements (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->measurements->len;
}

const HrAnalysisMeasurement *
hr_analysis_get_measurement (HrAnalysis *self,
                             guint       index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->measurements->len, NULL);
  return g_ptr_array_index (self->measurements, index);
}

const HrAnalysisMeasurement *
hr_analysis_find_measurement (HrAnalysis          *self,
                              const HrMeasurement *measurement)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->measurements->len; i++)
    {
      const HrAnalysisMeasurement *m = g_ptr_array_index (self->measurements, i);

      if (m->measurement == measurement)
        return m;
    }
  return NULL;
}

const HrAnalysisMeasurement *
hr_analysis_get_snapshot_sweep (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->snapshot_sweep == NULL)
    return NULL;
  return hr_analysis_find_measurement (self, self->snapshot_sweep);
}

const HrCalibration *
hr_analysis_get_calibration (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return applied (self);
}

const HrAnalysisMeasurement *
hr_analysis_get_calibration_measurement (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (!self->calibrated || self->calibration_from >= self->measurements->len)
    return NULL;
  return g_ptr_array_index (self->measurements, self->calibration_from);
}

gboolean
hr_analysis_can_calibrate (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->calibration != NULL;
}

const char *
hr_analysis_get_calibration_text (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->calibration_text;
}

const char *
hr_analysis_get_headline (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->headline;
}

/* ---- the curve ---- */

/* @value rounded up to a whole number of a step of 1, 2 or 5 × 10^n that
 * is about a tenth of it: 24.2 → 25, 65.6 → 70, 126.5 → 140. */
static guint
round_up_nicely (double value)
{
  double target = value / 10, step = 1;

  /* the least step of 1, 2 or 5 × 10^n at or above a tenth */
  for (double magnitude = 1; magnitude < 1e9; magnitude *= 10)
    {
      if (magnitude >= target)
        step = magnitude;
      else if (2 * magnitude >= target)
        step = 2 * magnitude;
      else if (5 * magnitude >= target)
        step = 5 * magnitude;
      else
        continue;
      break;
    }
  return (guint) (ceil (value / step - 1e-9) * step);
}

void
hr_analysis_get_sweep_range (HrAnalysis *self,
                             guint      *to,
                             gboolean   *log2_x)
{
  GPtrArray *gpus;
  guint lowest = G_MAXUINT, highest;
  gboolean log_axis;
  guint upper;

  g_return_if_fail (self != NULL);

  /* Where the decision is made: the micro-batch at which each card stops
   * fitting (one past its largest; where nothing fits, 1; where the
   * search only found a lower bound, that), the scenario's own, and every
   * measured batch size. */
  highest = MAX (self->scenario->micro_batch, 1);
  gpus = hr_analysis_get_curve_gpus (self);
  for (guint i = 0; i < gpus->len; i++)
    {
      const HrAnalysisGpu *g = g_ptr_array_index (gpus, i);
      guint stop = g->max_micro_batch == 0 ? 1
                   : g->max_is_lower_bound ? g->max_micro_batch : g->max_micro_batch + 1;

      if (g->max_micro_batch > 0)
        lowest = MIN (lowest, stop);
      highest = MAX (highest, stop);
    }
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const HrMeasurement *m = ((HrAnalysisMeasurement *)
                                g_ptr_array_index (self->measurements, i))->measurement;

      for (guint k = 0; k < m->series->len; k++)
        {
          const HrMeasureSeries *series = g_ptr_array_index (m->series, k);

          for (guint j = 0; j < series->points->len; j++)
            {
              double b = g_array_index (series->points, HrMeasurePoint, j).batch;

              if (!isnan (b) && b >= 1)
                highest = MAX (highest, (guint) MIN (ceil (b), 1 << 20));
            }
        }
    }

  /* A log₂ axis when the cards stop more than a decade apart (linear, the
   * smaller card's decision would be a sliver at the left); the range
   * ends a little past the last stop, on a power of two or a round
   * number. */
  log_axis = lowest != G_MAXUINT && highest >= 10 * lowest;
  if (log_axis)
    {
      upper = 2;
      while (upper < 1.05 * highest && upper < (1u << 20))
        upper *= 2;
    }
  else
    upper = MAX (4, round_up_nicely (1.15 * highest));

  if (to != NULL)
    *to = upper;
  if (log2_x != NULL)
    *log2_x = log_axis;
}

GArray *
hr_analysis_sweep (HrAnalysis *self,
                   guint       from,
                   guint       to,
                   guint       step,
                   gboolean    powers_of_two)
{
  GArray *points = g_array_new (FALSE, TRUE, sizeof (HrAnalysisSample));
  const HrCalibration *calibration;

  g_return_val_if_fail (self != NULL, points);
  g_return_val_if_fail (from >= 1 && to >= from, points);

  calibration = applied (self);
  for (guint64 b = powers_of_two ? 1 : from; b <= to; b = powers_of_two ? b * 2 : b + MAX (1, step))
    {
      HrAnalysisSample sample = { 0 };

      if (b < from)
        continue;
      sample.micro_batch = b;
      if (calibration != NULL)
        hr_calibration_peak (calibration, self->plan, b, &sample.peak);
      else
        hr_plan_peak (self->plan, b, &sample.peak);
      sample.need = hr_fit_rule_need (self->scenario, &sample.peak);
      sample.need_low = sample.peak.need_low;
      sample.need_high = sample.peak.need_high;
      g_array_append_val (points, sample);
    }
  return points;
}

double
hr_analysis_predict (HrAnalysis *self,
                     guint       micro_batch,
                     HrMetric    metric)
{
  HrPeak peak;

  g_return_val_if_fail (self != NULL, NAN);
  g_return_val_if_fail (micro_batch >= 1, NAN);

  hr_plan_peak (self->plan, micro_batch, &peak);
  switch (metric)
    {
    case HR_METRIC_ALLOCATED:
      return peak.allocated;
    case HR_METRIC_RESERVED:
      return peak.reserved;
    default:
      return peak.device_used;
    }
}

GArray *
hr_analysis_get_sweep (HrAnalysis *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->sweep == NULL)
    {
      guint to;
      gboolean log2_x;

      hr_analysis_get_sweep_range (self, &to, &log2_x);
      self->sweep = hr_analysis_sweep (self, 1, to, MAX (1, to / SWEEP_POINTS), log2_x);
      /* the range's end, on the curve whatever the step */
      if (!log2_x && self->sweep->len > 0 &&
          g_array_index (self->sweep, HrAnalysisSample, self->sweep->len - 1).micro_batch != to)
        {
          g_autoptr(GArray) last = hr_analysis_sweep (self, to, to, 1, FALSE);

          g_array_append_vals (self->sweep, last->data, last->len);
        }
      /* the scenario's own micro-batch, on the curve whatever the step,
       * so that the curve reads there what the verdict says */
      {
        guint own = MAX (1, self->scenario->micro_batch);
        guint at = 0;

        while (at < self->sweep->len &&
               g_array_index (self->sweep, HrAnalysisSample, at).micro_batch < own)
          at++;
        if (own <= to && (at == self->sweep->len ||
                          g_array_index (self->sweep, HrAnalysisSample, at).micro_batch != own))
          {
            g_autoptr(GArray) here = hr_analysis_sweep (self, own, own, 1, FALSE);

            g_array_insert_vals (self->sweep, at, here->data, here->len);
          }
      }
    }
  return self->sweep;
}

/* ---- advice ---- */

HrAdvice *
hr_analysis_advise (HrAnalysis           *self,
                    HrCatalog            *catalog,
                    const HrAdviceInputs *inputs,
                    guint                 max)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (catalog != NULL && inputs != NULL, NULL);

  return hr_advice_new_calibrated (self->scenario, catalog, inputs, max, applied (self));
}
