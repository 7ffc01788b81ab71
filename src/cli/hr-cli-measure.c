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

/* ------------------------------------------------------------------------
 * JSON, written as it goes: a log of any length is printed in bounded
 * memory.  The layout is json-glib's (hr_json_node_to_string): two spaces
 * of indent, "key" : value, numbers with a fraction in their shortest form.
 * --------------------------------------------------------------------- */

#define JSON_MAX_DEPTH 16

typedef struct {
  FILE     *out;
  GString  *buf;                     /* written out in 64 KiB pieces */
  guint     depth;
  gboolean  empty[JSON_MAX_DEPTH];   /* nothing written yet at that depth */
  gboolean  after_member;            /* a member's name was just written */
} Json;

/* What is written so far, out. */
static void
json_flush (Json *j)
{
  fwrite (j->buf->str, 1, j->buf->len, j->out);
  g_string_truncate (j->buf, 0);
}

static void
json_indent (Json *j)
{
  g_string_append_c (j->buf, '\n');
  for (guint i = 0; i < j->depth; i++)
    g_string_append (j->buf, "  ");
}

/* What goes before a value: nothing after a member's name, else the
 * separator and a new line. */
static void
json_before_value (Json *j)
{
  if (j->buf->len >= 1 << 16)
    json_flush (j);
  if (j->after_member)
    {
      j->after_member = FALSE;
      return;
    }
  if (j->depth == 0)
    return;
  if (!j->empty[j->depth])
    g_string_append_c (j->buf, ',');
  j->empty[j->depth] = FALSE;
  json_indent (j);
}

static void
json_text (Json       *j,
           const char *text)
{
  g_autofree char *shown = NULL;

  /* A file's name may not be UTF-8: shown escaped, as messages show it. */
  if (!g_utf8_validate (text, -1, NULL))
    text = shown = hr_text_printable (text, -1);

  g_string_append_c (j->buf, '"');
  for (const char *c = text; *c != '\0'; c = g_utf8_next_char (c))
    {
      gunichar ch = g_utf8_get_char (c);

      switch (ch)
        {
        case '"':
          g_string_append (j->buf, "\\\"");
          break;
        case '\\':
          g_string_append (j->buf, "\\\\");
          break;
        case '\n':
          g_string_append (j->buf, "\\n");
          break;
        case '\t':
          g_string_append (j->buf, "\\t");
          break;
        case '\r':
          g_string_append (j->buf, "\\r");
          break;
        default:
          /* What could drive a terminal is escaped here, as main.c's
           * filter escapes it in text: control characters, C1 controls,
           * line and paragraph separators, direction overrides. */
          if (ch < 0x20 || ch == 0x7F || (ch >= 0x80 && ch < 0xA0) || ch == 0x2028 ||
              ch == 0x2029 || (ch >= 0x202A && ch <= 0x202E) || (ch >= 0x2066 && ch <= 0x2069))
            g_string_append_printf (j->buf, "\\u%04x", ch);
          else
            g_string_append_len (j->buf, c, g_utf8_next_char (c) - c);
        }
    }
  g_string_append_c (j->buf, '"');
}

static void
json_open (Json *j,
           char  bracket)
{
  json_before_value (j);
  g_string_append_c (j->buf, bracket);
  g_assert (j->depth + 1 < JSON_MAX_DEPTH);
  j->depth++;
  j->empty[j->depth] = TRUE;
}

static void
json_close (Json *j,
            char  bracket)
{
  j->depth--;
  json_indent (j);
  g_string_append_c (j->buf, bracket);
  if (j->depth == 0)
    g_string_append_c (j->buf, '\n');
}

static void
json_member (Json       *j,
             const char *name)
{
  if (!j->empty[j->depth])
    g_string_append_c (j->buf, ',');
  j->empty[j->depth] = FALSE;
  json_indent (j);
  json_text (j, name);
  g_string_append (j->buf, " : ");
  j->after_member = TRUE;
}

static void
json_string (Json       *j,
             const char *value)
{
  json_before_value (j);
  if (value == NULL)
    g_string_append (j->buf, "null");
  else
    json_text (j, value);
}

static void
json_int (Json   *j,
          gint64  value)
{
  char digits[24];
  guint n = 0;
  guint64 magnitude = value < 0 ? -(guint64) value : (guint64) value;

  json_before_value (j);
  if (value < 0)
    g_string_append_c (j->buf, '-');
  do
    {
      digits[n++] = '0' + magnitude % 10;
      magnitude /= 10;
    }
  while (magnitude > 0);
  while (n > 0)
    g_string_append_c (j->buf, digits[--n]);
}

static void
json_bool (Json     *j,
           gboolean  value)
{
  json_before_value (j);
  g_string_append (j->buf, value ? "true" : "false");
}

static void
json_null (Json *j)
{
  json_before_value (j);
  g_string_append (j->buf, "null");
}

/* @value as "%.{n}g" writes it, n its fewest significant digits that read
 * back the same, when it is a whole number of thousandths below 10^9 in
 * size (a log's times): then no decimal of fewer digits lies within half
 * a unit in the last place of it, and the thousandths are those digits.
 * FALSE for any other value. */
static gboolean
format_thousandths (double  value,
                    char   *out)
{
  char digits[24];
  gint64 k;
  guint n = 0, len, i;
  int exponent;
  char *o = out;

  if (!(fabs (value) < 1e9) || value == 0)
    return FALSE;
  k = (gint64) llround (value * 1000);
  if ((double) k / 1000 != value)
    return FALSE;

  if (k < 0)
    {
      *o++ = '-';
      k = -k;
    }
  for (gint64 rest = k; rest > 0; rest /= 10)
    digits[n++] = '0' + rest % 10;
  /* digits[] is least significant first; the leading one is 10^exponent */
  exponent = (int) n - 1 - 3;
  for (i = 0; i < n && digits[i] == '0'; i++)
    ;
  len = n - i;                 /* significant digits, trailing zeros dropped */

  if (exponent >= -4 && exponent < (int) len)
    {
      if (exponent < 0)
        {
          *o++ = '0';
          *o++ = '.';
          for (int z = -1; z > exponent; z--)
            *o++ = '0';
        }
      for (int d = (int) n - 1; d >= (int) i; d--)
        {
          *o++ = digits[d];
          if ((int) n - 1 - d == exponent && d > (int) i)
            *o++ = '.';
        }
    }
  else
    {
      int e = exponent < 0 ? -exponent : exponent;

      *o++ = digits[n - 1];
      if (len > 1)
        *o++ = '.';
      for (int d = (int) n - 2; d >= (int) i; d--)
        *o++ = digits[d];
      *o++ = 'e';
      *o++ = exponent < 0 ? '-' : '+';
      if (e >= 10)
        *o++ = '0' + e / 10;
      else
        *o++ = '0';
      *o++ = '0' + e % 10;
    }
  *o = '\0';
  return TRUE;
}

/* The shortest form that reads back the same, always with a fraction or
 * an exponent (hr-json.c writes doubles the same way). */
static void
json_double (Json   *j,
             double  value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    {
      json_null (j);
      return;
    }
  if (!format_thousandths (value, buf))
    for (int digits = 1; digits <= 17; digits++)
      {
        char format[8];

        g_snprintf (format, sizeof format, "%%.%dg", digits);
        g_ascii_formatd (buf, sizeof buf, format, value);
        if (g_ascii_strtod (buf, NULL) == value)
          break;
      }
  json_before_value (j);
  g_string_append (j->buf, buf);
  if (strpbrk (buf, ".eE") == NULL)
    g_string_append (j->buf, ".0");
}

/* Sizes are integers of bytes; NAN is null. */
static void
member_int (Json       *j,
            const char *name,
            double      value)
{
  json_member (j, name);
  /* the readers bound every size; what is not finite is still no number */
  if (!(fabs (value) < 9e18))
    json_null (j);
  else
    json_int (j, (gint64) llround (value));
}

static void
member_double (Json       *j,
               const char *name,
               double      value)
{
  json_member (j, name);
  json_double (j, value);
}

static void
member_nullable (Json       *j,
                 const char *name,
                 double      value)
{
  json_member (j, name);
  if (isnan (value))
    json_null (j);
  else
    json_double (j, value);
}

static void
member_string (Json       *j,
               const char *name,
               const char *value)
{
  json_member (j, name);
  json_string (j, value);
}

static void
write_fit (Json        *j,
           const HrFit *fit)
{
  json_open (j, '{');
  member_int (j, "floor", fit->floor);
  member_int (j, "per_sample", fit->per_sample);
  member_double (j, "r2", fit->r2);
  member_string (j, "metric", hr_enum_to_nick (hr_metric_names, fit->metric));
  member_string (j, "series", fit->series);
  json_member (j, "points");
  json_int (j, fit->n_points);
  member_int (j, "rmse", fit->rmse);
  if (fit->has_seq)
    {
      member_double (j, "per_token", fit->per_token);
      member_double (j, "per_token2", fit->per_token2);
    }
  json_close (j, '}');
}

static void
write_point (Json                 *j,
             const HrMeasurePoint *p,
             const HrFit          *series_fit,
             double                residual)
{
  json_open (j, '{');
  json_member (j, "batch");
  if (!(fabs (p->batch) < 9e18))
    json_null (j);
  else
    json_int (j, (gint64) p->batch);
  member_nullable (j, "t", p->t);
  if (!isnan (p->seq_len))
    member_int (j, "seq_len", p->seq_len);
  member_int (j, "bytes", p->bytes);
  if (series_fit != NULL)
    member_nullable (j, "residual", residual);
  json_close (j, '}');
}

typedef struct {
  Json                  *json;
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
stream_points (Json                   *j,
               const char             *path,
               const HrMeasureOptions *options,
               const HrMeasureSeries  *series,
               GError                **error)
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
member_string_or_null (Json       *j,
                       const char *name,
                       const char *value)
{
  json_member (j, name);
  if (value != NULL)
    json_string (j, value);
  else
    json_null (j);
}

static void
write_match (Json                 *j,
             const HrMeasureMatch *match)
{
  json_open (j, '{');
  json_member (j, "matches");
  json_bool (j, !match->differs);
  json_member (j, "can_calibrate");
  json_bool (j, match->can_calibrate);
  member_string (j, "summary", match->summary);
  for (guint i = 0; i < HR_MATCH_N_ITEMS; i++)
    {
      json_member (j, hr_enum_to_nick (hr_match_item_names, i));
      json_open (j, '{');
      member_string (j, "state", hr_enum_to_nick (hr_match_state_names, match->state[i]));
      member_string_or_null (j, "measured", match->measured[i]);
      member_string_or_null (j, "scenario", match->scenario[i]);
      json_close (j, '}');
    }
  json_close (j, '}');
}

/* The comparison with the scenario: the points against the (uncalibrated)
 * estimate, whether the measurement is of the scenario's setup, and each
 * card's largest micro-batch from the analysis, calibrated where the
 * measurement may calibrate it. */
static void
write_comparison (Json                *j,
                  HrAnalysis          *plain,
                  HrAnalysis          *calibrated,
                  const HrCalibration *calibration)
{
  const HrScenario *scenario = hr_analysis_get_scenario (plain);
  const HrMeasureMatch *match = hr_analysis_get_measurement (plain, 0)->match;
  gboolean applied = hr_analysis_get_calibration (calibrated) != NULL;

  json_open (j, '{');
  member_string (j, "scenario", scenario->name != NULL ? scenario->name : scenario->model->name);
  json_member (j, "match");
  write_match (j, match);
  member_string (j, "metric", hr_enum_to_nick (hr_metric_names, calibration->metric));

  json_member (j, "points");
  json_open (j, '[');
  for (guint i = 0; i < calibration->points->len; i++)
    {
      const HrCalibrationPoint *p = &g_array_index (calibration->points, HrCalibrationPoint, i);

      json_open (j, '{');
      member_int (j, "batch", p->batch);
      member_int (j, "measured", p->measured);
      member_int (j, "predicted", p->predicted);
      member_int (j, "error", p->predicted - p->measured);
      member_double (j, "relative_error", p->measured > 0 ? (p->predicted - p->measured) /
                                                             p->measured : 0);
      member_int (j, "calibrated", p->calibrated);
      json_close (j, '}');
    }
  json_close (j, ']');

  json_member (j, "uncalibrated");
  json_open (j, '{');
  member_int (j, "mean_error", calibration->mean_error);
  member_int (j, "mean_abs_error", calibration->mean_abs_error);
  member_double (j, "mean_relative_error", calibration->mean_relative_error);
  member_double (j, "max_relative_error", calibration->max_relative_error);
  json_close (j, '}');

  json_member (j, "calibration");
  json_open (j, '{');
  json_member (j, "applied");
  json_bool (j, applied);
  member_double (j, "activation_scale", calibration->activation_scale);
  member_int (j, "overhead_shift", calibration->overhead_shift);
  member_int (j, "band", calibration->band_bytes);
  member_double (j, "band_fraction", calibration->band_fraction);
  json_close (j, '}');

  json_member (j, "gpus");
  json_open (j, '[');
  for (guint i = 0; i < hr_analysis_get_n_gpus (plain); i++)
    {
      const HrAnalysisGpu *before = hr_analysis_get_gpu (plain, i);
      const HrAnalysisGpu *after = hr_analysis_get_gpu (calibrated, i);

      json_open (j, '{');
      member_string (j, "gpu", before->gpu->id);
      member_int (j, "usable", before->limit.usable);
      json_member (j, "max_micro_batch");
      json_int (j, before->max_micro_batch);
      json_member (j, "calibrated_max_micro_batch");
      if (applied)
        json_int (j, after->max_micro_batch);
      else
        json_null (j);
      member_string (j, "rule", before->rule);
      json_close (j, '}');
    }
  json_close (j, ']');
  json_close (j, '}');
}

/* A snapshot's peak beside a scenario's estimate at the snapshot's
 * micro-batch: what the window's measured bar shows. */
typedef struct {
  guint                 micro_batch;
  const HrEstimate     *estimate;
  const HrMeasureMatch *match;   /* whether the snapshot is of the scenario's setup */
} SnapshotComparison;

static void
write_snapshot_comparison (Json                     *j,
                           const HrScenario         *scenario,
                           const HrSnapshotDevice   *dev,
                           const SnapshotComparison *cmp)
{
  HrSnapshotBar bar;

  hr_snapshot_device_bar (dev, &bar);
  json_open (j, '{');
  member_string (j, "scenario", scenario->name != NULL ? scenario->name : scenario->model->name);
  json_member (j, "match");
  write_match (j, cmp->match);
  json_member (j, "device");
  json_int (j, dev->device);
  json_member (j, "micro_batch");
  json_int (j, cmp->micro_batch);
  json_member (j, "buckets");
  json_open (j, '[');
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    {
      json_open (j, '{');
      member_string (j, "bucket", hr_snapshot_bucket_nick (b));
      member_int (j, "measured", bar.bytes[b]);
      member_int (j, "predicted", cmp->estimate->buckets[b]);
      member_int (j, "error", (double) cmp->estimate->buckets[b] - bar.bytes[b]);
      json_close (j, '}');
    }
  json_close (j, ']');
  member_int (j, "unattributed", bar.bytes[HR_SNAPSHOT_UNATTRIBUTED]);
  json_member (j, "allocated_peak");
  json_open (j, '{');
  member_int (j, "measured", dev->allocated_peak);
  member_int (j, "predicted", cmp->estimate->allocated_peak);
  json_close (j, '}');
  json_member (j, "reserved_peak");
  json_open (j, '{');
  member_int (j, "measured", dev->reserved_peak);
  member_int (j, "predicted", cmp->estimate->reserved_peak);
  json_close (j, '}');
  json_close (j, '}');
}

static void
write_snapshot (Json             *j,
                const HrSnapshot *snapshot)
{
  json_open (j, '{');
  json_member (j, "protocol");
  json_int (j, snapshot->protocol);
  json_member (j, "has_times");
  json_bool (j, snapshot->has_times);
  json_member (j, "has_frames");
  json_bool (j, snapshot->has_frames);
  json_member (j, "has_cpp_frames");
  json_bool (j, snapshot->has_cpp_frames);
  json_member (j, "allocator_settings");
  json_open (j, '{');
  for (guint i = 0; i < snapshot->setting_keys->len; i++)
    member_string (j, g_ptr_array_index (snapshot->setting_keys, i),
                   g_ptr_array_index (snapshot->setting_values, i));
  json_close (j, '}');

  json_member (j, "devices");
  json_open (j, '[');
  for (guint d = 0; d < snapshot->devices->len; d++)
    {
      const HrSnapshotDevice *dev = g_ptr_array_index (snapshot->devices, d);

      json_open (j, '{');
      json_member (j, "device");
      json_int (j, dev->device);
      json_member (j, "events");
      json_int (j, dev->n_events);
      member_int (j, "allocated_peak", dev->allocated_peak);
      member_double (j, "allocated_peak_t", dev->allocated_peak_t);
      json_member (j, "allocated_peak_event");
      json_int (j, dev->allocated_peak_event);
      member_int (j, "reserved_peak", dev->reserved_peak);
      member_double (j, "reserved_peak_t", dev->reserved_peak_t);
      member_int (j, "reserved_at_allocated_peak", dev->reserved_at_allocated_peak);
      member_int (j, "fragmentation", dev->reserved_at_allocated_peak > dev->allocated_peak
                                      ? dev->reserved_at_allocated_peak - dev->allocated_peak
                                      : 0);
      member_int (j, "allocated_start", dev->allocated_start);
      member_int (j, "allocated_end", dev->allocated_end);
      member_int (j, "reserved_start", dev->reserved_start);
      member_int (j, "reserved_end", dev->reserved_end);
      member_int (j, "inactive_end", dev->inactive_end);
      member_int (j, "block_rounding", dev->block_rounding);
      json_member (j, "segments");
      json_int (j, dev->n_segments);
      json_member (j, "live_at_peak");
      json_int (j, dev->live_count);

      json_member (j, "buckets");
      json_open (j, '{');
      for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
        member_int (j, hr_snapshot_bucket_nick (b), dev->buckets[b]);
      json_close (j, '}');

      json_member (j, "groups");
      json_open (j, '[');
      for (guint k = 0; k < HR_SNAPSHOT_N_GROUPS; k++)
        {
          HrSnapshotGroupId g = hr_snapshot_groups_by_size (dev, k);

          if (dev->groups[g] == 0)
            break;
          json_open (j, '{');
          member_string (j, "group", hr_enum_to_nick (hr_snapshot_group_names, g));
          member_string (j, "bucket", hr_snapshot_bucket_nick (hr_snapshot_group_bucket (g)));
          member_int (j, "bytes", dev->groups[g]);
          json_close (j, '}');
        }
      json_close (j, ']');

      json_member (j, "sites");
      json_open (j, '[');
      for (guint k = 0; k < dev->sites->len; k++)
        {
          const HrSnapshotSite *site = g_ptr_array_index (dev->sites, k);

          json_open (j, '{');
          member_string (j, "filename", site->filename);
          json_member (j, "line");
          json_int (j, site->line);
          member_string (j, "function", site->function);
          member_string (j, "group", hr_enum_to_nick (hr_snapshot_group_names, site->group));
          member_string (j, "bucket",
                         hr_snapshot_bucket_nick (hr_snapshot_group_bucket (site->group)));
          member_int (j, "bytes", site->bytes);
          json_member (j, "count");
          json_int (j, site->count);
          json_close (j, '}');
        }
      json_close (j, ']');

      json_member (j, "ooms");
      json_open (j, '[');
      for (guint k = 0; k < dev->ooms->len; k++)
        {
          const HrSnapshotOom *oom = &g_array_index (dev->ooms, HrSnapshotOom, k);

          json_open (j, '{');
          member_double (j, "t", oom->t);
          member_int (j, "requested", oom->requested);
          member_int (j, "device_free", oom->device_free);
          member_int (j, "allocated", oom->allocated);
          member_int (j, "reserved", oom->reserved);
          json_close (j, '}');
        }
      json_close (j, ']');
      json_close (j, '}');
    }
  json_close (j, ']');
  json_close (j, '}');
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
write_json (Json                 *j,
            const HrMeasurement  *measurement,
            const Report         *report,
            GError              **error)
{
  double gap, fraction, at_batch;

  json_open (j, '{');
  json_member (j, "headroom_measurement");
  json_int (j, 1);
  member_string (j, "format", hr_enum_to_nick (hr_measure_format_names, measurement->format));
  json_member (j, "rows");
  json_int (j, measurement->rows);
  json_member (j, "missing");
  json_int (j, measurement->missing);

  json_member (j, "config");
  json_open (j, '{');
  for (guint i = 0; i < measurement->config_keys->len; i++)
    member_string (j, g_ptr_array_index (measurement->config_keys, i),
                   g_ptr_array_index (measurement->config_values, i));
  json_close (j, '}');

  json_member (j, "series");
  json_open (j, '[');
  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);
      const HrFit *series_fit = g_ptr_array_index (report->series_fits, i);
      gboolean thinned = s->n_points > s->points->len;

      json_open (j, '{');
      member_string (j, "name", s->name);
      member_string (j, "metric", hr_enum_to_nick (hr_metric_names, s->metric));
      json_member (j, "points");
      json_open (j, '[');
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
      json_close (j, ']');
      json_member (j, "n_points");
      json_int (j, s->n_points);
      json_member (j, "thinned");
      json_bool (j, thinned && !report->all_points);
      member_int (j, "peak", s->peak);
      if (s->points->len > 0)
        member_nullable (j, "peak_t", g_array_index (s->points, HrMeasurePoint, s->peak_index).t);
      json_member (j, "oom_batch");
      if (s->oom_batch > 0)
        json_int (j, s->oom_batch);
      else
        json_null (j);
      json_member (j, "fit");
      if (series_fit != NULL)
        write_fit (j, series_fit);
      else
        json_null (j);
      json_close (j, '}');
    }
  json_close (j, ']');

  json_member (j, "fit");
  if (report->fit != NULL)
    write_fit (j, report->fit);
  else
    json_null (j);

  json_member (j, "fragmentation");
  if (hr_measurement_fragmentation (measurement, &gap, &fraction, &at_batch))
    {
      json_open (j, '{');
      member_int (j, "bytes", gap);
      member_double (j, "fraction", fraction);
      member_nullable (j, "batch", at_batch);
      json_close (j, '}');
    }
  else
    json_null (j);

  if (measurement->snapshot != NULL)
    {
      json_member (j, "snapshot");
      write_snapshot (j, measurement->snapshot);
    }

  if (report->scenario != NULL && report->calibration != NULL)
    {
      json_member (j, "comparison");
      write_comparison (j, report->plain, report->calibrated, report->calibration);
    }
  else if (report->scenario != NULL && report->snapshot_comparison != NULL)
    {
      json_member (j, "comparison");
      write_snapshot_comparison (j, report->scenario,
                                 hr_snapshot_get_peak_device (measurement->snapshot),
                                 report->snapshot_comparison);
    }

  json_member (j, "notes");
  json_open (j, '[');
  for (guint i = 0; i < measurement->notes->len; i++)
    json_string (j, g_ptr_array_index (measurement->notes, i));
  json_close (j, ']');
  json_close (j, '}');
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
  Json json = { hr_cli_raw_stdout (), g_string_sized_new (1 << 17), 0, { FALSE }, FALSE };
  gboolean ok = write_json (&json, measurement, report, error);

  json_flush (&json);
  g_string_free (json.buf, TRUE);
  fflush (json.out);
  return ok;
}

static void
print_snapshot_text (const HrSnapshot *snapshot)
{
  for (guint d = 0; d < snapshot->devices->len; d++)
    {
      const HrSnapshotDevice *dev = g_ptr_array_index (snapshot->devices, d);
      g_autofree char *allocated = hr_cli_gib (dev->allocated_peak);
      g_autofree char *reserved = hr_cli_gib (dev->reserved_at_allocated_peak);
      g_autofree char *gap = hr_cli_gib (dev->reserved_at_allocated_peak > dev->allocated_peak
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
          g_autofree char *bytes = hr_cli_gib (dev->buckets[b]);

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
          bytes = hr_cli_gib (dev->groups[g]);
          printf ("    %12s  %s\n", bytes, hr_snapshot_group_label (g));
        }
      if (dev->sites->len > 0)
        printf ("%s\n", _("  Top allocation sites:"));
      for (guint k = 0; k < dev->sites->len; k++)
        {
          const HrSnapshotSite *site = g_ptr_array_index (dev->sites, k);
          g_autofree char *bytes = hr_cli_gib (site->bytes);
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
      g_autofree char *measured = hr_cli_gib (bar.bytes[b]);
      g_autofree char *predicted = hr_cli_gib (cmp->estimate->buckets[b]);

      if (bar.bytes[b] > 0)
        printf ("  %-18s %12s %12s %+8.1f%%\n", hr_snapshot_bucket_label (b), measured, predicted,
                100 * ((double) cmp->estimate->buckets[b] - bar.bytes[b]) / bar.bytes[b]);
      else
        printf ("  %-18s %12s %12s %9s\n", hr_snapshot_bucket_label (b), measured, predicted, "");
    }
  if (bar.bytes[HR_SNAPSHOT_UNATTRIBUTED] > 0)
    {
      g_autofree char *unattributed = hr_cli_gib (bar.bytes[HR_SNAPSHOT_UNATTRIBUTED]);

      printf ("  %-18s %12s\n", hr_snapshot_bucket_label (HR_SNAPSHOT_UNATTRIBUTED),
              unattributed);
    }
  {
    g_autofree char *measured = hr_cli_gib (dev->allocated_peak);
    g_autofree char *predicted = hr_cli_gib (cmp->estimate->allocated_peak);
    g_autofree char *measured_r = hr_cli_gib (dev->reserved_peak);
    g_autofree char *predicted_r = hr_cli_gib (cmp->estimate->reserved_peak);

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
      g_autofree char *peak = hr_cli_gib (s->peak);

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
  else if (measurement->snapshot == NULL)
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
  for (guint i = 0; i < hr_analysis_get_n_gpus (report->plain); i++)
    {
      const HrAnalysisGpu *before = hr_analysis_get_gpu (report->plain, i);
      const HrAnalysisGpu *after = hr_analysis_get_gpu (report->calibrated, i);
      g_autofree char *usable_text = hr_cli_gib (before->limit.usable);
      g_autofree char *calibrated_max = hr_analysis_get_calibration (report->calibrated) != NULL
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
  gboolean json = FALSE, decimal_comma = FALSE, no_header = FALSE, all_points = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Machine-readable output (SCENARIO.md)"), NULL },
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
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &gpu_list,
     N_("Cards the calibrated estimate is applied to"), N_("ID,ID…") },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, N_("Override a scenario key (repeatable)"),
     N_("KEY=VALUE") },
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
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  HrMeasureOptions options = { 0 };
  SnapshotComparison snapshot_comparison = { 0 };
  const HrAnalysisMeasurement *m = NULL;
  const HrMeasureSeries *sweep;
  Report report = { 0 };

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
  /* A log is read thinned, in bounded memory; --points reads it again to
   * print every point as it comes. */
  options.max_time_points = HR_MEASURE_SUMMARY_POINTS;

  measurement = hr_measurement_load_file (argv[1], &options, &error);
  if (measurement == NULL)
    return hr_cli_fail (error);
  /* A snapshot is read whole anyway: for every point, its timelines are
   * made again unthinned. */
  if (json && all_points && measurement->snapshot != NULL)
    {
      HrMeasureOptions whole = options;

      whole.max_time_points = 0;
      g_clear_pointer (&measurement, hr_measurement_free);
      measurement = hr_measurement_load_file (argv[1], &whole, &error);
      if (measurement == NULL)
        return hr_cli_fail (error);
    }

  sweep = hr_measurement_get_sweep (measurement);
  g_ptr_array_add (measured, measurement);

  if (scenario_path != NULL)
    {
      scenario = hr_cli_load_scenario (scenario_path, sets, &error);
      if (scenario == NULL)
        return hr_cli_fail (error);

      if (sweep != NULL)
        {
          if (gpu_list != NULL)
            {
              if (!hr_cli_resolve_gpus (gpu_list, gpus, &error))
                return hr_cli_fail (error);
            }
          else if (scenario->gpu != NULL)
            g_ptr_array_add (gpus, scenario->gpu);
          else
            hr_analysis_add_reference_gpus (gpus, hr_cli_get_catalog ());
        }

      /* The analysis without and with the measurement's calibration
       * (which it applies only when the measurement is of this setup). */
      plain = hr_cli_analysis_new (scenario, gpus, measured, FALSE, HR_KNOB_SORT_COST);
      m = hr_analysis_get_measurement (plain, 0);
      if (sweep == NULL && m->at_micro_batch != NULL)
        {
          /* A snapshot is one run: its buckets beside the estimate's at
           * the micro-batch it says, else the scenario's. */
          snapshot_comparison.micro_batch = m->micro_batch;
          snapshot_comparison.estimate = m->at_micro_batch;
          snapshot_comparison.match = m->match;
          report.snapshot_comparison = &snapshot_comparison;
        }
      else if (sweep == NULL)
        {
          fprintf (stderr, _("%s: no series has two or more batch sizes: nothing to compare "
                             "with the estimate's curve\n"), measurement->name);
          return HR_CLI_EXIT_USAGE;
        }
      else if (m->calibration == NULL)
        {
          /* Nothing to compare; say still whether the measurement is of
           * this setup, which is most often why. */
          if (m->match->differs)
            g_printerr ("%s: ✗ %s\n", argv[1], m->match->summary);
          return hr_cli_fail (m->calibration_error);
        }
      else
        calibrated = hr_cli_analysis_new (scenario, gpus, measured, TRUE, HR_KNOB_SORT_COST);
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
