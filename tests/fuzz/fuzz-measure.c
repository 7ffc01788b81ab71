/* fuzz-measure.c: libFuzzer target for measurement files
 *
 * The bytes are read twice: as a file Headroom recognises by itself (no
 * options), and through a column mapping made from the first two bytes
 * (delimiter, decimal comma, header or not, which columns, the unit, the
 * measure, a row limit), so that both the recognised formats and the
 * mapped CSV path are fuzzed.  Each read is made at once and again through
 * the streaming parser in three chunks split where the input says; both
 * give the same measurement or the same message.  An accepted
 * measurement's points are finite sizes of 0 or more, each series' peak is
 * its largest point, and a fit through a sweep gives finite numbers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-measure"

#include <math.h>
#include <string.h>

#include "hr-fuzz.h"

#define NAME "fuzz.csv"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  hr_fuzz_setup ();
  return 0;
}

/* Both NAN, or equal. */
static gboolean
same_double (double a,
             double b)
{
  return (isnan (a) && isnan (b)) || a == b;
}

static void
check_measurement (const HrMeasurement *m)
{
  const HrMeasureSeries *sweep;

  HR_FUZZ_CHECK (g_str_equal (m->name, NAME), "named %s", m->name);
  HR_FUZZ_CHECK (m->series->len > 0, "a measurement without a series");
  HR_FUZZ_CHECK (m->config_keys->len == m->config_values->len, "%u keys, %u values",
                 m->config_keys->len, m->config_values->len);
  HR_FUZZ_CHECK (m->config_keys->len <= 256, "%u configuration keys kept",
                 m->config_keys->len);
  HR_FUZZ_CHECK (m->series->len <= 2 * 1025, "%u series", m->series->len);

  for (guint i = 0; i < m->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (m->series, i);
      double peak = 0;
      guint peak_index = 0;

      HR_FUZZ_CHECK (s->name != NULL && g_utf8_validate (s->name, -1, NULL),
                     "series %u: a name that is not UTF-8", i);
      HR_FUZZ_CHECK (s->points->len > 0 || s->oom_batch > 0, "%s: an empty series", s->name);
      HR_FUZZ_CHECK (s->points->len <= s->n_points, "%s: %u points of %u", s->name,
                     s->points->len, s->n_points);
      HR_FUZZ_CHECK (strlen (s->name) < 512, "a series name of %zu bytes", strlen (s->name));

      for (guint j = 0; j < s->points->len; j++)
        {
          const HrMeasurePoint *p = &g_array_index (s->points, HrMeasurePoint, j);

          /* The ranges every reader checks (hr-measure-private.h): sizes
           * below 10 PB (a snapshot's, which add up blocks of at most
           * 2^50 bytes, below 2^62), batch sizes and sequence lengths
           * whole numbers from 1 to 10^9, times the difference of two
           * of at most 10^15 in size. */
          HR_FUZZ_CHECK (p->bytes >= 0 &&
                         p->bytes < (m->format == HR_MEASURE_FORMAT_TORCH_SNAPSHOT ? 0x1p62
                                                                                  : 1e16),
                         "%s: point %u is %g bytes", s->name, j, p->bytes);
          HR_FUZZ_CHECK (isnan (p->batch) ||
                         (p->batch >= 1 && p->batch <= 1e9 && p->batch == floor (p->batch)),
                         "%s: point %u at batch %g", s->name, j, p->batch);
          HR_FUZZ_CHECK (isnan (p->seq_len) ||
                         (p->seq_len >= 1 && p->seq_len <= 1e9 &&
                          p->seq_len == floor (p->seq_len)),
                         "%s: point %u at sequence length %g", s->name, j, p->seq_len);
          HR_FUZZ_CHECK (isnan (p->t) || fabs (p->t) <= 2e15, "%s: point %u at t %g", s->name,
                         j, p->t);
          if (j == 0 || p->bytes > peak)
            {
              peak = p->bytes;
              peak_index = j;
            }
        }

      HR_FUZZ_CHECK (s->peak == peak, "%s: peak %g, the largest point %g", s->name, s->peak,
                     peak);
      if (s->points->len > 0)
        HR_FUZZ_CHECK (s->peak_index == peak_index, "%s: peak at %u, the largest point at %u",
                       s->name, s->peak_index, peak_index);

      if (hr_measure_series_is_sweep (s))
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(HrFit) fit = hr_fit_series (s, &error);

          if (fit == NULL)
            {
              hr_fuzz_check_error (error);
              continue;
            }
          HR_FUZZ_CHECK (isfinite (fit->floor) && isfinite (fit->per_sample) &&
                         isfinite (fit->per_token) && isfinite (fit->per_token2) &&
                         isfinite (fit->rmse) && !isnan (fit->r2),
                         "%s: fit floor %g per_sample %g per_token %g per_token2 %g "
                         "rmse %g r2 %g", s->name, fit->floor, fit->per_sample,
                         fit->per_token, fit->per_token2, fit->rmse, fit->r2);
          HR_FUZZ_CHECK (fit->residuals->len == s->points->len, "%s: %u residuals, %u points",
                         s->name, fit->residuals->len, s->points->len);
          for (guint j = 0; j < fit->residuals->len; j++)
            {
              const HrMeasurePoint *p = &g_array_index (s->points, HrMeasurePoint, j);
              double r = g_array_index (fit->residuals, double, j);

              HR_FUZZ_CHECK (isnan (p->batch) ? isnan (r) : isfinite (r),
                             "%s: residual %u is %g", s->name, j, r);
            }
        }
    }

  sweep = hr_measurement_get_sweep (m);
  HR_FUZZ_CHECK (sweep == NULL || hr_measure_series_is_sweep (sweep), "not a sweep");
}

static void
check_same (const HrMeasurement *a,
            const HrMeasurement *b)
{
  HR_FUZZ_CHECK (a->format == b->format && a->rows == b->rows && a->missing == b->missing,
                 "format %d/%d, rows %u/%u, missing %u/%u", a->format, b->format, a->rows,
                 b->rows, a->missing, b->missing);
  HR_FUZZ_CHECK (a->series->len == b->series->len, "%u series, then %u", a->series->len,
                 b->series->len);
  HR_FUZZ_CHECK (a->notes->len == b->notes->len && a->config_keys->len == b->config_keys->len,
                 "%u notes and %u keys, then %u and %u", a->notes->len, a->config_keys->len,
                 b->notes->len, b->config_keys->len);

  for (guint i = 0; i < a->notes->len; i++)
    HR_FUZZ_CHECK (g_str_equal (g_ptr_array_index (a->notes, i), g_ptr_array_index (b->notes, i)),
                   "note %u: %s, then %s", i, (char *) g_ptr_array_index (a->notes, i),
                   (char *) g_ptr_array_index (b->notes, i));
  for (guint i = 0; i < a->config_keys->len; i++)
    HR_FUZZ_CHECK (g_str_equal (g_ptr_array_index (a->config_keys, i),
                                g_ptr_array_index (b->config_keys, i)) &&
                   g_str_equal (g_ptr_array_index (a->config_values, i),
                                g_ptr_array_index (b->config_values, i)),
                   "config key %u differs", i);

  for (guint i = 0; i < a->series->len; i++)
    {
      const HrMeasureSeries *sa = g_ptr_array_index (a->series, i);
      const HrMeasureSeries *sb = g_ptr_array_index (b->series, i);

      HR_FUZZ_CHECK (g_str_equal (sa->name, sb->name) && sa->metric == sb->metric,
                     "series %u: %s, then %s", i, sa->name, sb->name);
      HR_FUZZ_CHECK (sa->points->len == sb->points->len && sa->peak == sb->peak &&
                     sa->peak_index == sb->peak_index && sa->oom_batch == sb->oom_batch,
                     "%s: %u points peak %g oom %u, then %u points peak %g oom %u", sa->name,
                     sa->points->len, sa->peak, sa->oom_batch, sb->points->len, sb->peak,
                     sb->oom_batch);
      for (guint j = 0; j < sa->points->len; j++)
        {
          const HrMeasurePoint *pa = &g_array_index (sa->points, HrMeasurePoint, j);
          const HrMeasurePoint *pb = &g_array_index (sb->points, HrMeasurePoint, j);

          HR_FUZZ_CHECK (same_double (pa->batch, pb->batch) &&
                         same_double (pa->seq_len, pb->seq_len) &&
                         same_double (pa->t, pb->t) && pa->bytes == pb->bytes &&
                         pa->line == pb->line,
                         "%s point %u: (%g, %g, %g, %g, line %u), then (%g, %g, %g, %g, "
                         "line %u)", sa->name, j, pa->batch, pa->seq_len, pa->t, pa->bytes,
                         pa->line, pb->batch, pb->seq_len, pb->t, pb->bytes, pb->line);
        }
    }
}

/* An offset in 0..@size from two bytes of the input. */
static gsize
split_point (const uint8_t *data,
             size_t         size,
             size_t         at)
{
  if (size < 2 || at + 1 >= size)
    return 0;
  return ((gsize) data[at] << 8 | data[at + 1]) % (size + 1);
}

static void
parse_both_ways (const uint8_t          *data,
                 size_t                  size,
                 const HrMeasureOptions *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) stream_error = NULL;
  g_autoptr(HrMeasurement) m = NULL;
  g_autoptr(HrMeasurement) streamed = NULL;
  g_autoptr(HrMeasureParser) parser = NULL;
  gsize cut[4];

  m = hr_measurement_parse_data (NAME, (const char *) data, size, options, &error);
  if (m == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, NAME ":"), "%s", error->message);
    }
  else
    check_measurement (m);

  /* Three chunks, at offsets the input's last bytes choose. */
  cut[0] = 0;
  cut[1] = split_point (data, size, size >= 2 ? size - 2 : 0);
  cut[2] = cut[1] + split_point (data, size, size >= 4 ? size - 4 : 0) % (size - cut[1] + 1);
  cut[3] = size;
  parser = hr_measure_parser_new (NAME, options);
  for (guint i = 0; i < 3 && stream_error == NULL; i++)
    {
      if (!hr_measure_parser_feed (parser, (const char *) data + cut[i], cut[i + 1] - cut[i],
                                   &stream_error))
        HR_FUZZ_CHECK (stream_error != NULL, "feeding failed without a message");
    }
  if (stream_error == NULL)
    streamed = hr_measure_parser_finish (parser, &stream_error);

  if (m == NULL)
    {
      HR_FUZZ_CHECK (streamed == NULL, "refused whole (%s), accepted in chunks at %zu, %zu",
                     error->message, cut[1], cut[2]);
      HR_FUZZ_CHECK (g_str_equal (error->message, stream_error->message),
                     "whole: %s; in chunks at %zu, %zu: %s", error->message, cut[1], cut[2],
                     stream_error->message);
    }
  else
    {
      HR_FUZZ_CHECK (streamed != NULL, "accepted whole, refused in chunks at %zu, %zu: %s",
                     cut[1], cut[2], stream_error->message);
      check_same (m, streamed);
    }
}

static int
fuzz_one (const uint8_t *data,
          size_t         size)
{
  static const char delimiters[] = { 0, ',', ';', '\t', ' ', '|', ',', 0 };
  static const char * const batch[] = { NULL, "1", "2", "micro_batch", "batch", "BS", "3",
                                        "nope" };
  static const char * const memory[] = { NULL, "2", "3", "peak_mib", "memory", "Memory [GiB]",
                                         "1", "max_memory_allocated" };
  static const char * const seq[] = { NULL, "3", "seq_len", "4" };
  HrMeasureOptions options = { 0 };
  guint a, b;

  /* Options: none. */
  parse_both_ways (data, size, NULL);

  /* Options: a mapping made from the first two bytes. */
  a = size > 0 ? data[0] : 0;
  b = size > 1 ? data[1] : 0;
  options.delimiter = delimiters[a & 7];
  options.decimal_comma = (a >> 3) & 1;
  options.no_header = (a >> 4) & 1;
  options.batch_column = (char *) batch[(a >> 5) & 7];
  options.memory_column = (char *) memory[b & 7];
  options.seq_column = (char *) seq[(b >> 3) & 3];
  options.unit = (b >> 5) & 7;  /* NONE .. GB */
  options.has_metric = (b >> 5) & 1;
  options.metric = (b >> 6) % (HR_METRIC_DEVICE_USED + 1);
  options.max_rows = (b & 0x18) == 0x18 ? 3 : 0;
  /* a log thinned as it is read, to a few points or to many */
  options.max_time_points = (a & 0x40) != 0 ? ((b & 0x80) != 0 ? 4 : 100) : 0;
  parse_both_ways (data, size, &options);

  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
