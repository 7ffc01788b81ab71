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

#include "hr-cli.h"

static void
write_fit (HrCliWriter *j,
           const HrFit *fit)
{
  hr_cli_writer_open (j, '{');
  hr_cli_writer_int (j, "floor", fit->floor);
  hr_cli_writer_int (j, "per_sample", fit->per_sample);
  hr_cli_writer_double (j, "r2", fit->r2);
  hr_cli_writer_string (j, "metric", hr_enum_to_nick (hr_metric_names, fit->metric));
  hr_cli_writer_string (j, "series", fit->series);
  hr_cli_writer_member (j, "points");
  hr_cli_writer_add_int (j, fit->n_points);
  hr_cli_writer_int (j, "rmse", fit->rmse);
  if (fit->has_seq)
    {
      hr_cli_writer_double (j, "per_token", fit->per_token);
      hr_cli_writer_double (j, "per_token2", fit->per_token2);
    }
  hr_cli_writer_close (j, '}');
}

static void
write_point (HrCliWriter          *j,
             const HrMeasurePoint *p,
             const HrFit          *series_fit,
             double                residual)
{
  hr_cli_writer_open (j, '{');
  hr_cli_writer_member (j, "batch");
  if (!(fabs (p->batch) < 9e18))
    hr_cli_writer_add_null (j);
  else
    hr_cli_writer_add_int (j, (gint64) p->batch);
  hr_cli_writer_nullable (j, "t", p->t);
  if (!isnan (p->seq_len))
    hr_cli_writer_int (j, "seq_len", p->seq_len);
  hr_cli_writer_int (j, "bytes", p->bytes);
  if (series_fit != NULL)
    hr_cli_writer_nullable (j, "residual", residual);
  hr_cli_writer_close (j, '}');
}

typedef struct {
  HrCliWriter                  *json;
  const HrMeasureSeries *series;
} StreamJob;

static void
stream_point_cb (const HrMeasureSeries *series,
                 const HrMeasurePoint  *point,
                 gpointer               user_data)
{
  StreamJob *job = user_data;

  if (series->metric == job->series->metric && g_str_equal (series->name, job->series->name))
    write_point (job->json, point, NULL, NAN);
}

/* Every point of @series, read again from @path and written as they come:
 * the series was thinned when it was first read. */
static gboolean
stream_points (HrCliWriter             *j,
               const char              *path,
               const HrMeasureOptions  *options,
               const HrMeasureSeries   *series,
               GError                 **error)
{
  g_autoptr(HrMeasureParser) parser = hr_measure_parser_new (path, options);
  g_autoptr(HrMeasurement) again = NULL;
  g_autoptr(GInputStream) stream = hr_file_open (path, G_MAXUINT64, _("a measurement file"),
                                                 NULL, error);
  g_autofree char *buffer = g_malloc (1 << 20);
  StreamJob job = { j, series };

  if (stream == NULL)
    return FALSE;
  hr_measure_parser_set_point_func (parser, stream_point_cb, &job, FALSE);
  for (;;)
    {
      gssize n = g_input_stream_read (stream, buffer, 1 << 20, NULL, error);

      if (n < 0)
        return FALSE;
      if (n == 0)
        break;
      if (!hr_measure_parser_feed (parser, buffer, n, error))
        return FALSE;
    }
  again = hr_measure_parser_finish (parser, error);
  return again != NULL;
}

static void
write_match (HrCliWriter          *j,
             const HrMeasureMatch *match)
{
  hr_cli_writer_open (j, '{');
  hr_cli_writer_member (j, "matches");
  hr_cli_writer_add_bool (j, !match->differs);
  hr_cli_writer_member (j, "can_calibrate");
  hr_cli_writer_add_bool (j, match->can_calibrate);
  hr_cli_writer_string (j, "summary", match->summary);
  for (guint i = 0; i < HR_MATCH_N_ITEMS; i++)
    {
      hr_cli_writer_member (j, hr_enum_to_nick (hr_match_item_names, i));
      hr_cli_writer_open (j, '{');
      hr_cli_writer_string (j, "state", hr_enum_to_nick (hr_match_state_names, match->state[i]));
      hr_cli_writer_string_or_null (j, "measured", match->measured[i]);
      hr_cli_writer_string_or_null (j, "scenario", match->scenario[i]);
      hr_cli_writer_close (j, '}');
    }
  hr_cli_writer_close (j, '}');
}

/* The comparison with the scenario: the points against the (uncalibrated)
 * estimate, whether the measurement is of the scenario's setup, and each
 * card's largest micro-batch from the analysis, calibrated where the
 * measurement may calibrate it. */
static void
write_comparison (HrCliWriter         *j,
                  HrAnalysis          *plain,
                  HrAnalysis          *calibrated,
                  const HrCalibration *calibration)
{
  const HrScenario *scenario = hr_analysis_get_scenario (plain);
  const HrMeasureMatch *match = hr_analysis_get_measurement (plain, 0)->match;
  gboolean applied = hr_analysis_get_calibration (calibrated) != NULL;

  hr_cli_writer_open (j, '{');
  hr_cli_writer_string (j, "scenario",
                        scenario->name != NULL ? scenario->name : scenario->model->name);
  hr_cli_writer_member (j, "match");
  write_match (j, match);
  hr_cli_writer_string (j, "metric", hr_enum_to_nick (hr_metric_names, calibration->metric));

  hr_cli_writer_member (j, "points");
  hr_cli_writer_open (j, '[');
  for (guint i = 0; i < calibration->points->len; i++)
    {
      const HrCalibrationPoint *p = &g_array_index (calibration->points, HrCalibrationPoint, i);

      hr_cli_writer_open (j, '{');
      hr_cli_writer_int (j, "batch", p->batch);
      hr_cli_writer_int (j, "measured", p->measured);
      hr_cli_writer_int (j, "predicted", p->predicted);
      hr_cli_writer_int (j, "error", p->predicted - p->measured);
      hr_cli_writer_double (j, "relative_error",
                            p->measured > 0 ? (p->predicted - p->measured) / p->measured : 0);
      hr_cli_writer_int (j, "calibrated", p->calibrated);
      hr_cli_writer_close (j, '}');
    }
  hr_cli_writer_close (j, ']');

  hr_cli_writer_member (j, "uncalibrated");
  hr_cli_writer_open (j, '{');
  hr_cli_writer_int (j, "mean_error", calibration->mean_error);
  hr_cli_writer_int (j, "mean_abs_error", calibration->mean_abs_error);
  hr_cli_writer_double (j, "mean_relative_error", calibration->mean_relative_error);
  hr_cli_writer_double (j, "max_relative_error", calibration->max_relative_error);
  hr_cli_writer_close (j, '}');

  hr_cli_writer_member (j, "calibration");
  hr_cli_writer_open (j, '{');
  hr_cli_writer_member (j, "applied");
  hr_cli_writer_add_bool (j, applied);
  hr_cli_writer_double (j, "activation_scale", calibration->activation_scale);
  hr_cli_writer_int (j, "overhead_shift", calibration->overhead_shift);
  hr_cli_writer_int (j, "band", calibration->band_bytes);
  hr_cli_writer_double (j, "band_fraction", calibration->band_fraction);
  hr_cli_writer_close (j, '}');

  hr_cli_writer_member (j, "gpus");
  hr_cli_writer_open (j, '[');
  for (guint i = 0; i < hr_analysis_get_n_gpus (plain); i++)
    {
      const HrAnalysisGpu *before = hr_analysis_get_gpu (plain, i);
      const HrAnalysisGpu *after = hr_analysis_get_gpu (calibrated, i);

      hr_cli_writer_open (j, '{');
      hr_cli_writer_string (j, "gpu", before->gpu->id);
      hr_cli_writer_int (j, "usable", before->limit.usable);
      hr_cli_writer_member (j, "max_micro_batch");
      hr_cli_writer_add_int (j, before->max_micro_batch);
      hr_cli_writer_member (j, "calibrated_max_micro_batch");
      if (applied)
        hr_cli_writer_add_int (j, after->max_micro_batch);
      else
        hr_cli_writer_add_null (j);
      hr_cli_writer_string (j, "rule", before->rule);
      hr_cli_writer_close (j, '}');
    }
  hr_cli_writer_close (j, ']');
  hr_cli_writer_close (j, '}');
}

/* A snapshot's peak beside a scenario's estimate at the snapshot's
 * micro-batch: what the window's measured bar shows. */
typedef struct {
  guint                 micro_batch;
  const HrEstimate     *estimate;
  const HrMeasureMatch *match;   /* whether the snapshot is of the scenario's setup */
} SnapshotComparison;

static void
write_snapshot_comparison (HrCliWriter              *j,
                           const HrScenario         *scenario,
                           const HrSnapshotDevice   *dev,
                           const SnapshotComparison *cmp)
{
  HrSnapshotBar bar;

  hr_snapshot_device_bar (dev, &bar);
  hr_cli_writer_open (j, '{');
  hr_cli_writer_string (j, "scenario",
                        scenario->name != NULL ? scenario->name : scenario->model->name);
  hr_cli_writer_member (j, "match");
  write_match (j, cmp->match);
  hr_cli_writer_member (j, "device");
  hr_cli_writer_add_int (j, dev->device);
  hr_cli_writer_member (j, "micro_batch");
  hr_cli_writer_add_int (j, cmp->micro_batch);
  hr_cli_writer_member (j, "buckets");
  hr_cli_writer_open (j, '[');
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    {
      hr_cli_writer_open (j, '{');
      hr_cli_writer_string (j, "bucket", hr_snapshot_bucket_nick (b));
      hr_cli_writer_int (j, "measured", bar.bytes[b]);
      hr_cli_writer_int (j, "predicted", cmp->estimate->buckets[b]);
      hr_cli_writer_int (j, "error", (double) cmp->estimate->buckets[b] - bar.bytes[b]);
      hr_cli_writer_close (j, '}');
    }
  hr_cli_writer_close (j, ']');
  hr_cli_writer_int (j, "unattributed", bar.bytes[HR_SNAPSHOT_UNATTRIBUTED]);
  hr_cli_writer_member (j, "allocated_peak");
  hr_cli_writer_open (j, '{');
  hr_cli_writer_int (j, "measured", dev->allocated_peak);
  hr_cli_writer_int (j, "predicted", cmp->estimate->allocated_peak);
  hr_cli_writer_close (j, '}');
  hr_cli_writer_member (j, "reserved_peak");
  hr_cli_writer_open (j, '{');
  hr_cli_writer_int (j, "measured", dev->reserved_peak);
  hr_cli_writer_int (j, "predicted", cmp->estimate->reserved_peak);
  hr_cli_writer_close (j, '}');
  hr_cli_writer_close (j, '}');
}

static void
write_snapshot (HrCliWriter      *j,
                const HrSnapshot *snapshot)
{
  hr_cli_writer_open (j, '{');
  hr_cli_writer_member (j, "protocol");
  hr_cli_writer_add_int (j, snapshot->protocol);
  hr_cli_writer_member (j, "has_times");
  hr_cli_writer_add_bool (j, snapshot->has_times);
  hr_cli_writer_member (j, "has_frames");
  hr_cli_writer_add_bool (j, snapshot->has_frames);
  hr_cli_writer_member (j, "has_cpp_frames");
  hr_cli_writer_add_bool (j, snapshot->has_cpp_frames);
  hr_cli_writer_member (j, "allocator_settings");
  hr_cli_writer_open (j, '{');
  for (guint i = 0; i < snapshot->setting_keys->len; i++)
    hr_cli_writer_string (j, g_ptr_array_index (snapshot->setting_keys, i),
                   g_ptr_array_index (snapshot->setting_values, i));
  hr_cli_writer_close (j, '}');

  hr_cli_writer_member (j, "devices");
  hr_cli_writer_open (j, '[');
  for (guint d = 0; d < snapshot->devices->len; d++)
    {
      const HrSnapshotDevice *dev = g_ptr_array_index (snapshot->devices, d);
      /* the reserve holding no tensor at the allocated peak */
      double fragmentation = 0;

      if (dev->reserved_at_allocated_peak > dev->allocated_peak)
        fragmentation = dev->reserved_at_allocated_peak - dev->allocated_peak;
      hr_cli_writer_open (j, '{');
      hr_cli_writer_member (j, "device");
      hr_cli_writer_add_int (j, dev->device);
      hr_cli_writer_member (j, "events");
      hr_cli_writer_add_int (j, dev->n_events);
      hr_cli_writer_int (j, "allocated_peak", dev->allocated_peak);
      hr_cli_writer_double (j, "allocated_peak_t", dev->allocated_peak_t);
      hr_cli_writer_member (j, "allocated_peak_event");
      hr_cli_writer_add_int (j, dev->allocated_peak_event);
      hr_cli_writer_int (j, "reserved_peak", dev->reserved_peak);
      hr_cli_writer_double (j, "reserved_peak_t", dev->reserved_peak_t);
      hr_cli_writer_int (j, "reserved_at_allocated_peak", dev->reserved_at_allocated_peak);
      hr_cli_writer_int (j, "fragmentation", fragmentation);
      hr_cli_writer_int (j, "allocated_start", dev->allocated_start);
      hr_cli_writer_int (j, "allocated_end", dev->allocated_end);
      hr_cli_writer_int (j, "reserved_start", dev->reserved_start);
      hr_cli_writer_int (j, "reserved_end", dev->reserved_end);
      hr_cli_writer_int (j, "inactive_end", dev->inactive_end);
      hr_cli_writer_int (j, "block_rounding", dev->block_rounding);
      hr_cli_writer_member (j, "segments");
      hr_cli_writer_add_int (j, dev->n_segments);
      hr_cli_writer_member (j, "live_at_peak");
      hr_cli_writer_add_int (j, dev->live_count);

      hr_cli_writer_member (j, "buckets");
      hr_cli_writer_open (j, '{');
      for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
        hr_cli_writer_int (j, hr_snapshot_bucket_nick (b), dev->buckets[b]);
      hr_cli_writer_close (j, '}');

      hr_cli_writer_member (j, "groups");
      hr_cli_writer_open (j, '[');
      for (guint k = 0; k < HR_SNAPSHOT_N_GROUPS; k++)
        {
          HrSnapshotGroupId g = hr_snapshot_groups_by_size (dev, k);

          if (dev->groups[g] == 0)
            break;
          hr_cli_writer_open (j, '{');
          hr_cli_writer_string (j, "group", hr_enum_to_nick (hr_snapshot_group_names, g));
          hr_cli_writer_string (j, "bucket",
                                hr_snapshot_bucket_nick (hr_snapshot_group_bucket (g)));
          hr_cli_writer_int (j, "bytes", dev->groups[g]);
          hr_cli_writer_close (j, '}');
        }
      hr_cli_writer_close (j, ']');

      hr_cli_writer_member (j, "sites");
      hr_cli_writer_open (j, '[');
      for (guint k = 0; k < dev->sites->len; k++)
        {
          const HrSnapshotSite *site = g_ptr_array_index (dev->sites, k);

          hr_cli_writer_open (j, '{');
          hr_cli_writer_string (j, "filename", site->filename);
          hr_cli_writer_member (j, "line");
          hr_cli_writer_add_int (j, site->line);
          hr_cli_writer_string (j, "function", site->function);
          hr_cli_writer_string (j, "group", hr_enum_to_nick (hr_snapshot_group_names, site->group));
          hr_cli_writer_string (j, "bucket",
                         hr_snapshot_bucket_nick (hr_snapshot_group_bucket (site->group)));
          hr_cli_writer_int (j, "bytes", site->bytes);
          hr_cli_writer_member (j, "count");
          hr_cli_writer_add_int (j, site->count);
          hr_cli_writer_close (j, '}');
        }
      hr_cli_writer_close (j, ']');

      hr_cli_writer_member (j, "ooms");
      hr_cli_writer_open (j, '[');
      for (guint k = 0; k < dev->ooms->len; k++)
        {
          const HrSnapshotOom *oom = &g_array_index (dev->ooms, HrSnapshotOom, k);

          hr_cli_writer_open (j, '{');
          hr_cli_writer_double (j, "t", oom->t);
          hr_cli_writer_int (j, "requested", oom->requested);
          hr_cli_writer_int (j, "device_free", oom->device_free);
          hr_cli_writer_int (j, "allocated", oom->allocated);
          hr_cli_writer_int (j, "reserved", oom->reserved);
          hr_cli_writer_close (j, '}');
        }
      hr_cli_writer_close (j, ']');
      hr_cli_writer_close (j, '}');
    }
  hr_cli_writer_close (j, ']');
  hr_cli_writer_close (j, '}');
}

typedef struct {
  const char             *path;
  const HrMeasureOptions *options;
  gboolean                all_points;
  const HrFit            *fit;
  GPtrArray              *series_fits; /* HrFit or NULL, per series (the analysis') */
  const HrScenario       *scenario;
  const HrCalibration    *calibration;
  HrAnalysis             *plain;       /* the scenario without calibration */
  HrAnalysis             *calibrated;  /* with it, where it may apply */
  SnapshotComparison     *snapshot_comparison;
} Report;

static gboolean
write_json (HrCliWriter          *j,
            const HrMeasurement  *measurement,
            const Report         *report,
            GError              **error)
{
  double gap, fraction, at_batch;

  hr_cli_writer_open (j, '{');
  hr_cli_writer_member (j, "headroom_measurement");
  hr_cli_writer_add_int (j, 1);
  hr_cli_writer_string (j, "format",
                        hr_enum_to_nick (hr_measure_format_names, measurement->format));
  hr_cli_writer_member (j, "rows");
  hr_cli_writer_add_int (j, measurement->rows);
  hr_cli_writer_member (j, "missing");
  hr_cli_writer_add_int (j, measurement->missing);

  hr_cli_writer_member (j, "config");
  hr_cli_writer_open (j, '{');
  for (guint i = 0; i < measurement->config_keys->len; i++)
    hr_cli_writer_string (j, g_ptr_array_index (measurement->config_keys, i),
                   g_ptr_array_index (measurement->config_values, i));
  hr_cli_writer_close (j, '}');

  hr_cli_writer_member (j, "series");
  hr_cli_writer_open (j, '[');
  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);
      const HrFit *series_fit = g_ptr_array_index (report->series_fits, i);
      gboolean thinned = s->n_points > s->points->len;

      hr_cli_writer_open (j, '{');
      hr_cli_writer_string (j, "name", s->name);
      hr_cli_writer_string (j, "metric", hr_enum_to_nick (hr_metric_names, s->metric));
      hr_cli_writer_member (j, "points");
      hr_cli_writer_open (j, '[');
      if (thinned && report->all_points)
        {
          if (!stream_points (j, report->path, report->options, s, error))
            return FALSE;
        }
      else
        for (guint k = 0; k < s->points->len; k++)
          write_point (j, &g_array_index (s->points, HrMeasurePoint, k), series_fit,
                       series_fit != NULL ? g_array_index (series_fit->residuals, double, k)
                                          : NAN);
      hr_cli_writer_close (j, ']');
      hr_cli_writer_member (j, "n_points");
      hr_cli_writer_add_int (j, s->n_points);
      hr_cli_writer_member (j, "thinned");
      hr_cli_writer_add_bool (j, thinned && !report->all_points);
      hr_cli_writer_int (j, "peak", s->peak);
      if (s->points->len > 0)
        hr_cli_writer_nullable (j, "peak_t",
                                g_array_index (s->points, HrMeasurePoint, s->peak_index).t);
      hr_cli_writer_member (j, "oom_batch");
      if (s->oom_batch > 0)
        hr_cli_writer_add_int (j, s->oom_batch);
      else
        hr_cli_writer_add_null (j);
      hr_cli_writer_member (j, "fit");
      if (series_fit != NULL)
        write_fit (j, series_fit);
      else
        hr_cli_writer_add_null (j);
      hr_cli_writer_close (j, '}');
    }
  hr_cli_writer_close (j, ']');

  hr_cli_writer_member (j, "fit");
  if (report->fit != NULL)
    write_fit (j, report->fit);
  else
    hr_cli_writer_add_null (j);

  hr_cli_writer_member (j, "fragmentation");
  if (hr_measurement_fragmentation (measurement, &gap, &fraction, &at_batch))
    {
      hr_cli_writer_open (j, '{');
      hr_cli_writer_int (j, "bytes", gap);
      hr_cli_writer_double (j, "fraction", fraction);
      hr_cli_writer_nullable (j, "batch", at_batch);
      hr_cli_writer_close (j, '}');
    }
  else
    hr_cli_writer_add_null (j);

  if (measurement->snapshot != NULL)
    {
      hr_cli_writer_member (j, "snapshot");
      write_snapshot (j, measurement->snapshot);
    }

  if (report->scenario != NULL && report->calibration != NULL)
    {
      hr_cli_writer_member (j, "comparison");
      write_comparison (j, report->plain, report->calibrated, report->calibration);
    }
  else if (report->scenario != NULL && report->snapshot_comparison != NULL)
    {
      hr_cli_writer_member (j, "comparison");
      write_snapshot_comparison (j, report->scenario,
                                 hr_snapshot_get_peak_device (measurement->snapshot),
                                 report->snapshot_comparison);
    }

  hr_cli_writer_member (j, "notes");
  hr_cli_writer_open (j, '[');
  for (guint i = 0; i < measurement->notes->len; i++)
    hr_cli_writer_add_string (j, g_ptr_array_index (measurement->notes, i));
  hr_cli_writer_close (j, ']');
  hr_cli_writer_close (j, '}');
  return TRUE;
}

static gboolean
print_json (const HrMeasurement  *measurement,
            const Report         *report,
            GError              **error)
{
  /* Straight to the terminal or pipe: every string is escaped by
   * json_text as the text filter would, and a log's every point is many
   * megabytes. */
  HrCliWriter json;
  gboolean ok;

  hr_cli_writer_init (&json, hr_cli_raw_stdout ());
  ok = write_json (&json, measurement, report, error);
  hr_cli_writer_finish (&json);
  return ok;
}

static void
print_snapshot_text (const HrSnapshot *snapshot)
{
  for (guint d = 0; d < snapshot->devices->len; d++)
    {
      const HrSnapshotDevice *dev = g_ptr_array_index (snapshot->devices, d);
      g_autofree char *allocated = hr_cli_size (dev->allocated_peak);
      g_autofree char *reserved = hr_cli_size (dev->reserved_at_allocated_peak);
      g_autofree char *gap = hr_cli_size (dev->reserved_at_allocated_peak > dev->allocated_peak
                                         ? dev->reserved_at_allocated_peak - dev->allocated_peak
                                         : 0);

      printf ("\n");
      if (dev->reserved != NULL)
        /* Translators: GPU number, time, trace entry, entries, then sizes. */
        printf (_("GPU %d at its allocated peak (t = %.3f s, after entry %u of %u): %s "
                  "allocated, %s reserved, %s of it holding no tensor\n"),
                dev->device, dev->allocated_peak_t, dev->allocated_peak_event, dev->n_events,
                allocated, reserved, gap);
      else
        /* Translators: time, point, points, then the size. */
        printf (_("At the peak (t = %.3f s, point %u of %u): %s allocated\n"),
                dev->allocated_peak_t, dev->allocated_peak_event, dev->n_events, allocated);
      for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
        {
          g_autofree char *bytes = hr_cli_size (dev->buckets[b]);

          if (dev->buckets[b] > 0 || b < HR_N_BUCKETS)
            printf ("  %-18s %12s\n", hr_snapshot_bucket_label (b), bytes);
        }
      printf ("%s\n", _("  by what allocated it:"));
      for (guint k = 0; k < HR_SNAPSHOT_N_GROUPS; k++)
        {
          HrSnapshotGroupId g = hr_snapshot_groups_by_size (dev, k);
          g_autofree char *bytes = NULL;

          if (dev->groups[g] == 0)
            break;
          bytes = hr_cli_size (dev->groups[g]);
          printf ("    %12s  %s\n", bytes, hr_snapshot_group_label (g));
        }
      if (dev->sites->len > 0)
        printf ("%s\n", _("  Top allocation sites:"));
      for (guint k = 0; k < dev->sites->len; k++)
        {
          const HrSnapshotSite *site = g_ptr_array_index (dev->sites, k);
          g_autofree char *bytes = hr_cli_size (site->bytes);
          g_autofree char *base = site->filename != NULL ? g_path_get_basename (site->filename)
                                                         : NULL;

          if (base != NULL)
            printf ("    %12s %6u×  %s:%u %s (%s)\n", bytes, site->count, base, site->line,
                    site->function, hr_snapshot_group_label (site->group));
          else
            printf ("    %12s %6u×  %s\n", bytes, site->count,
                    hr_snapshot_group_label (site->group));
        }
    }

  if (snapshot->setting_keys->len > 0)
    {
      printf ("%s\n", _("Allocator settings:"));
      for (guint i = 0; i < snapshot->setting_keys->len; i++)
        printf ("  %s: %s\n", (char *) g_ptr_array_index (snapshot->setting_keys, i),
                (char *) g_ptr_array_index (snapshot->setting_values, i));
    }
}

static void
print_snapshot_comparison_text (const HrScenario         *scenario,
                                const HrSnapshotDevice   *dev,
                                const SnapshotComparison *cmp)
{
  HrSnapshotBar bar;

  hr_snapshot_device_bar (dev, &bar);
  printf ("\n");
  printf (_("Against %s at micro-batch %u (GPU %d's peak):\n"),
          scenario->name != NULL ? scenario->name : scenario->model->name, cmp->micro_batch,
          dev->device);
  printf ("  %s%s\n", cmp->match->differs ? "✗ " : "", cmp->match->summary);
  /* Translators: column headings of the comparison table; keep them short. */
  printf ("  %-18s %12s %12s %9s\n", _("bucket"), _("measured"), _("estimate"), _("error"));
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    {
      g_autofree char *measured = hr_cli_size (bar.bytes[b]);
      g_autofree char *predicted = hr_cli_size (cmp->estimate->buckets[b]);

      if (bar.bytes[b] > 0)
        printf ("  %-18s %12s %12s %+8.1f%%\n", hr_snapshot_bucket_label (b), measured, predicted,
                100 * ((double) cmp->estimate->buckets[b] - bar.bytes[b]) / bar.bytes[b]);
      else
        printf ("  %-18s %12s %12s %9s\n", hr_snapshot_bucket_label (b), measured, predicted, "");
    }
  if (bar.bytes[HR_SNAPSHOT_UNATTRIBUTED] > 0)
    {
      g_autofree char *unattributed = hr_cli_size (bar.bytes[HR_SNAPSHOT_UNATTRIBUTED]);

      printf ("  %-18s %12s\n", hr_snapshot_bucket_label (HR_SNAPSHOT_UNATTRIBUTED),
              unattributed);
    }
  {
    g_autofree char *measured = hr_cli_size (dev->allocated_peak);
    g_autofree char *predicted = hr_cli_size (cmp->estimate->allocated_peak);
    g_autofree char *measured_r = hr_cli_size (dev->reserved_peak);
    g_autofree char *predicted_r = hr_cli_size (cmp->estimate->reserved_peak);

    printf (_("  allocated peak: %s measured, %s estimated\n"), measured, predicted);
    printf (_("  reserved peak: %s measured, %s estimated\n"), measured_r, predicted_r);
  }
  printf ("%s\n", _("  (the overhead measured is the allocator's unused reserve and the "
                    "workspaces; the CUDA context is outside a snapshot)"));
}

static void
print_text (const HrMeasurement *measurement,
            const Report        *report)
{
  const HrFit *fit = report->fit;
  const HrScenario *scenario = report->scenario;
  const HrCalibration *calibration = report->calibration;
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
      g_autofree char *peak = hr_cli_size (s->peak);

      printf (g_dngettext (GETTEXT_PACKAGE, "%s (%s): %u point, peak %s",
                           "%s (%s): %u points, peak %s", s->n_points),
              s->name, hr_enum_to_nick (hr_metric_names, s->metric), s->n_points, peak);
      if (s->points->len > 0)
        {
          const HrMeasurePoint *p = &g_array_index (s->points, HrMeasurePoint, s->peak_index);

          if (!isnan (p->batch))
            printf (_(" at micro-batch %.0f"), p->batch);
          else if (!isnan (p->t))
            printf (measurement->snapshot != NULL ? _(" at t = %.3f s") : _(" at t = %.1f s"),
                    p->t);
        }
      if (s->oom_batch > 0)
        printf (_("; out of memory at micro-batch %u"), s->oom_batch);
      printf ("\n");
    }

  if (fit != NULL)
    {
      g_autofree char *floor_text = hr_cli_size (fit->floor);
      g_autofree char *slope = hr_cli_size (fit->per_sample);
      g_autofree char *rmse = hr_cli_size (fit->rmse);

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
  else if (measurement->snapshot == NULL)
    printf ("%s\n", _("No fit: no series has two or more batch sizes"));

  if (hr_measurement_fragmentation (measurement, &gap, &fraction, &at_batch))
    {
      g_autofree char *gap_text = hr_cli_size (gap);

      printf (_("Fragmentation: reserved exceeds allocated by up to %s (%.0f%% of reserved)"),
              gap_text, fraction * 100);
      if (!isnan (at_batch))
        printf (_(" at micro-batch %.0f"), at_batch);
      printf ("\n");
    }

  if (measurement->snapshot != NULL)
    print_snapshot_text (measurement->snapshot);

  for (guint i = 0; i < measurement->notes->len; i++)
    printf (_("Note: %s\n"), (char *) g_ptr_array_index (measurement->notes, i));

  if (scenario != NULL && report->snapshot_comparison != NULL)
    {
      print_snapshot_comparison_text (scenario,
                                      hr_snapshot_get_peak_device (measurement->snapshot),
                                      report->snapshot_comparison);
      return;
    }
  if (scenario == NULL)
    return;

  printf ("\n");
  printf (_("Against %s (%s):\n"),
          scenario->name != NULL ? scenario->name : scenario->model->name,
          hr_enum_to_nick (hr_metric_names, calibration->metric));
  {
    const HrMeasureMatch *match = hr_analysis_get_measurement (report->plain, 0)->match;

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
      g_autofree char *measured = hr_cli_size (p->measured);
      g_autofree char *predicted = hr_cli_size (p->predicted);
      g_autofree char *after = hr_cli_size (p->calibrated);

      printf ("  %6.0f %12s %12s %+8.1f%% %12s\n", p->batch, measured, predicted,
              p->measured > 0 ? 100 * (p->predicted - p->measured) / p->measured : 0, after);
    }

  {
    g_autofree char *mean = hr_cli_size (calibration->mean_abs_error);
    g_autofree char *shift = hr_cli_size (calibration->overhead_shift);
    g_autofree char *band = hr_cli_size (calibration->band_bytes);

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
  for (guint i = 0; i < hr_analysis_get_n_gpus (report->plain); i++)
    {
      const HrAnalysisGpu *before = hr_analysis_get_gpu (report->plain, i);
      const HrAnalysisGpu *after = hr_analysis_get_gpu (report->calibrated, i);
      g_autofree char *usable_text = hr_cli_size (before->limit.usable);
      g_autofree char *calibrated_max = hr_analysis_get_calibration (report->calibrated) != NULL
                                          ? g_strdup_printf ("%u", after->max_micro_batch)
                                          : g_strdup ("–");

      printf ("  %-22s %12s %10u %11s\n", before->gpu->id, usable_text,
              before->max_micro_batch, calibrated_max);
    }
}

/* The mapping options as the command line gave them, read as the core
 * reads a window's mapping back (hr_measure_options_from_args), so that
 * both take the same values with the same messages. */
static gboolean
measure_options_from_flags (HrMeasureOptions  *options,
                            const char        *unit,
                            const char        *delimiter,
                            const char        *metric,
                            const char        *batch_column,
                            const char        *memory_column,
                            const char        *seq_column,
                            gboolean           decimal_comma,
                            gboolean           no_header,
                            GError           **error)
{
  const struct { const char *name; const char *value; } valued[] = {
    { "--unit", unit },
    { "--delimiter", delimiter },
    { "--metric", metric },
    { "--batch-column", batch_column },
    { "--memory-column", memory_column },
    { "--seq-column", seq_column },
  };
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) args = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (valued); i++)
    if (valued[i].value != NULL)
      {
        g_strv_builder_add (builder, valued[i].name);
        g_strv_builder_add (builder, valued[i].value);
      }
  if (decimal_comma)
    g_strv_builder_add (builder, "--decimal-comma");
  if (no_header)
    g_strv_builder_add (builder, "--no-header");
  args = g_strv_builder_end (builder);
  return hr_measure_options_from_args (options, (const char * const *) args, error);
}

/* The file at @path; a snapshot is read whole anyway, so for every point
 * (@every_point) its timelines are made again unthinned. */
static HrMeasurement *
measure_load (const char              *path,
              const HrMeasureOptions  *options,
              gboolean                 every_point,
              GError                 **error)
{
  g_autoptr(HrMeasurement) measurement = hr_measurement_load_file (path, options, error);
  HrMeasureOptions whole = *options;

  if (measurement == NULL || !every_point || measurement->snapshot == NULL)
    return g_steal_pointer (&measurement);
  whole.max_time_points = 0;
  return hr_measurement_load_file (path, &whole, error);
}

/* The measurement (the one in @measured, read from @path) beside
 * @scenario: the analysis without its calibration (@plain) and, for a
 * sweep, with it (@calibrated, which applies it only when the measurement
 * is of this setup), on the cards --gpus names, else the scenario's own,
 * else the reference ones; for a snapshot, its buckets beside the
 * estimate at its micro-batch (@cmp).  FALSE with the message printed
 * and *status set when there is nothing to compare. */
static gboolean
measure_compare (const HrScenario    *scenario,
                 const char          *path,
                 GPtrArray           *measured,
                 const char          *gpu_list,
                 HrAnalysis         **plain,
                 HrAnalysis         **calibrated,
                 SnapshotComparison  *cmp,
                 int                 *status)
{
  const HrMeasurement *measurement = g_ptr_array_index (measured, 0);
  const HrMeasureSeries *sweep = hr_measurement_get_sweep (measurement);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const HrAnalysisMeasurement *m;

  if (sweep != NULL)
    {
      if (gpu_list != NULL)
        {
          if (!hr_cli_resolve_gpus (gpu_list, gpus, &error))
            {
              *status = hr_cli_fail (error);
              return FALSE;
            }
        }
      else if (scenario->gpu != NULL)
        g_ptr_array_add (gpus, scenario->gpu);
      else
        hr_analysis_add_reference_gpus (gpus, hr_cli_get_catalog ());
    }

  *plain = hr_cli_analysis_new (scenario, gpus, measured, FALSE, HR_KNOB_SORT_COST);
  m = hr_analysis_get_measurement (*plain, 0);
  if (sweep == NULL && m->at_micro_batch != NULL)
    {
      /* A snapshot is one run: its buckets beside the estimate's at the
       * micro-batch it says, else the scenario's. */
      cmp->micro_batch = m->micro_batch;
      cmp->estimate = m->at_micro_batch;
      cmp->match = m->match;
      return TRUE;
    }
  if (sweep == NULL)
    {
      fprintf (stderr, _("%s: no series has two or more batch sizes: nothing to compare "
                         "with the estimate's curve\n"),
               measurement->name);
      *status = HR_CLI_EXIT_USAGE;
      return FALSE;
    }
  if (m->calibration == NULL)
    {
      /* Nothing to compare; say still whether the measurement is of this
       * setup, which is most often why. */
      if (m->match->differs)
        g_printerr ("%s: ✗ %s\n", path, m->match->summary);
      *status = hr_cli_fail (m->calibration_error);
      return FALSE;
    }
  *calibrated = hr_cli_analysis_new (scenario, gpus, measured, TRUE, HR_KNOB_SORT_COST);
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
  gboolean json = FALSE, decimal_comma = FALSE, no_header = FALSE, all_points = FALSE;
  GOptionEntry entries[] = {
    hr_cli_option_json (&json, N_("Machine-readable output (SCENARIO.md)")),
    { "points", 0, 0, G_OPTION_ARG_NONE, &all_points,
     N_("With --json, every point of a log (by default at most 1000 a series, its peaks kept)"),
     NULL },
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
    hr_cli_option_gpus (&gpu_list, N_("Cards the calibrated estimate is applied to"), FALSE),
    hr_cli_option_set (&sets),
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("FILE"));
  g_autoptr(GError) error = NULL;
  g_autoptr(HrMeasurement) measurement = NULL;
  g_autoptr(GPtrArray) own_fits = NULL;
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrAnalysis) plain = NULL;
  g_autoptr(HrAnalysis) calibrated = NULL;
  g_autoptr(GPtrArray) measured = g_ptr_array_new ();
  g_auto(HrMeasureOptions) options = { 0 };
  SnapshotComparison snapshot_comparison = { 0 };
  const HrAnalysisMeasurement *m = NULL;
  const HrMeasureSeries *sweep;
  Report report = { 0 };
  int status;

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

  if (!measure_options_from_flags (&options, unit, delimiter, metric, batch_column,
                                   memory_column, seq_column, decimal_comma, no_header, &error))
    {
      fprintf (stderr, _("headroom-cli measure: %s\n"), error->message);
      return HR_CLI_EXIT_USAGE;
    }
  /* A log is read thinned, in bounded memory; --points reads it again to
   * print every point as it comes. */
  options.max_time_points = HR_MEASURE_SUMMARY_POINTS;

  measurement = measure_load (argv[1], &options, json && all_points, &error);
  if (measurement == NULL)
    return hr_cli_fail (error);

  sweep = hr_measurement_get_sweep (measurement);
  g_ptr_array_add (measured, measurement);

  if (scenario_path != NULL)
    {
      scenario = hr_cli_load_scenario (scenario_path, sets, &error);
      if (scenario == NULL)
        return hr_cli_fail (error);
      if (!measure_compare (scenario, argv[1], measured, gpu_list, &plain, &calibrated,
                            &snapshot_comparison, &status))
        return status;
      m = hr_analysis_get_measurement (plain, 0);
      if (snapshot_comparison.estimate != NULL)
        report.snapshot_comparison = &snapshot_comparison;
    }

  /* The measurement's fits, made once: the analysis', or made as an
   * analysis makes them when there is no scenario. */
  if (m == NULL)
    own_fits = hr_analysis_fit_measurement (measurement);
  report.series_fits = m != NULL ? m->series_fits : own_fits;
  for (guint i = 0; sweep != NULL && i < measurement->series->len; i++)
    if (g_ptr_array_index (measurement->series, i) == sweep)
      report.fit = g_ptr_array_index (report.series_fits, i);

  report.path = argv[1];
  report.options = &options;
  report.all_points = all_points;
  report.scenario = scenario;
  report.calibration = calibrated != NULL ? m->calibration : NULL;
  report.plain = plain;
  report.calibrated = calibrated;

  if (json)
    {
      if (!print_json (measurement, &report, &error))
        {
          /* Half a document is out: the message says why it stops. */
          fflush (stdout);
          return hr_cli_fail (error);
        }
    }
  else
    print_text (measurement, &report);

  return HR_CLI_EXIT_OK;
}
