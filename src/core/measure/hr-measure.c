/* hr-measure.c: measured peaks read from probe CSVs, nvidia-smi logs,
 * W&B and TensorBoard exports, memory_stats() dumps and mapped CSVs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-measure"

#include <glib/gi18n-lib.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <string.h>
#include <sys/stat.h>

#include "hr-file.h"
#include "hr-measure.h"
#include "hr-measure-private.h"
#include "hr-measure-trace.h"
#include "hr-snapshot.h"

const HrEnumName hr_measure_format_names[] = {
  { HR_MEASURE_FORMAT_PROBE, "headroom-probe" },
  { HR_MEASURE_FORMAT_NVIDIA_SMI, "nvidia-smi" },
  { HR_MEASURE_FORMAT_WANDB, "wandb" },
  { HR_MEASURE_FORMAT_TENSORBOARD, "tensorboard" },
  { HR_MEASURE_FORMAT_TORCH_STATS, "torch-memory-stats" },
  { HR_MEASURE_FORMAT_JAX_STATS, "jax-memory-stats" },
  { HR_MEASURE_FORMAT_GENERIC, "csv" },
  { HR_MEASURE_FORMAT_TORCH_SNAPSHOT, "torch-memory-snapshot" },
  { HR_MEASURE_FORMAT_TORCH_SUMMARY, "torch-memory-summary" },
  { HR_MEASURE_FORMAT_TORCH_PROFILER, "torch-memory-timeline" },
  { HR_MEASURE_FORMAT_DEEPSPEED, "deepspeed" },
  { HR_MEASURE_FORMAT_LIGHTNING, "lightning" },
  { HR_MEASURE_FORMAT_HF_TRAINER, "hf-trainer" },
  { HR_MEASURE_FORMAT_TORCH_TRACE, "headroom-trace" },
  { 0, NULL }
};

const HrEnumName hr_measure_unit_names[] = {
  { HR_MEASURE_UNIT_BYTES, "bytes" },
  { HR_MEASURE_UNIT_KIB, "KiB" },
  { HR_MEASURE_UNIT_MIB, "MiB" },
  { HR_MEASURE_UNIT_GIB, "GiB" },
  { HR_MEASURE_UNIT_KB, "KB" },
  { HR_MEASURE_UNIT_MB, "MB" },
  { HR_MEASURE_UNIT_GB, "GB" },
  { 0, NULL }
};

/* SCENARIO.md: GB and MB are decimal, GiB and MiB binary (IEC 80000-13);
 * by HrMeasureUnit. */
static const double unit_bytes[] = {
  1.0, 1.0, 1024.0, 1024.0 * 1024.0, 1024.0 * 1024.0 * 1024.0, 1e3, 1e6, 1e9,
};

double
hr_measure_unit_bytes (HrMeasureUnit unit)
{
  switch (unit)
    {
    case HR_MEASURE_UNIT_NONE:
    case HR_MEASURE_UNIT_BYTES:
      return 1.0;
    case HR_MEASURE_UNIT_KIB:
      return 1024.0;
    case HR_MEASURE_UNIT_MIB:
      return 1024.0 * 1024.0;
    case HR_MEASURE_UNIT_GIB:
      return 1024.0 * 1024.0 * 1024.0;
    case HR_MEASURE_UNIT_KB:
      return 1e3;
    case HR_MEASURE_UNIT_MB:
      return 1e6;
    case HR_MEASURE_UNIT_GB:
      return 1e9;
    default:
      g_assert_not_reached ();
    }
}

gboolean
hr_measure_unit_from_string (const char    *text,
                             HrMeasureUnit *unit)
{
  static const struct {
    const char    *name;
    HrMeasureUnit  unit;
  } units[] = {
    { "b", HR_MEASURE_UNIT_BYTES }, { "bytes", HR_MEASURE_UNIT_BYTES },
    { "byte", HR_MEASURE_UNIT_BYTES },
    { "kib", HR_MEASURE_UNIT_KIB }, { "mib", HR_MEASURE_UNIT_MIB },
    { "gib", HR_MEASURE_UNIT_GIB }, { "kb", HR_MEASURE_UNIT_KB },
    { "mb", HR_MEASURE_UNIT_MB }, { "gb", HR_MEASURE_UNIT_GB },
  };

  g_return_val_if_fail (text != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (g_ascii_strcasecmp (text, units[i].name) == 0)
        {
          *unit = units[i].unit;
          return TRUE;
        }
    }

  return FALSE;
}

void
hr_measure_options_clear (HrMeasureOptions *options)
{
  if (options == NULL)
    return;

  g_clear_pointer (&options->batch_column, g_free);
  g_clear_pointer (&options->memory_column, g_free);
  g_clear_pointer (&options->seq_column, g_free);
}

gboolean
hr_measure_delimiter_from_string (const char *text,
                                  char       *delimiter)
{
  g_return_val_if_fail (text != NULL, FALSE);

  if (g_str_equal (text, "tab") || g_str_equal (text, "\\t"))
    *delimiter = '\t';
  else if (g_str_equal (text, "space") || g_str_equal (text, "whitespace"))
    *delimiter = ' ';
  else if (strlen (text) == 1 && strchr (",;|\t ", text[0]) != NULL)
    *delimiter = text[0];
  else
    return FALSE;
  return TRUE;
}

const char *
hr_measure_delimiter_to_string (char delimiter)
{
  switch (delimiter)
    {
    case '\t':
      return "tab";
    case ' ':
      return "space";
    case ',':
      return ",";
    case ';':
      return ";";
    case '|':
      return "|";
    default:
      return NULL;
    }
}

GStrv
hr_measure_options_to_args (const HrMeasureOptions *options)
{
  g_autoptr(GStrvBuilder) args = g_strv_builder_new ();

  g_return_val_if_fail (options != NULL, NULL);

  if (hr_measure_delimiter_to_string (options->delimiter) != NULL)
    {
      g_strv_builder_add (args, "--delimiter");
      g_strv_builder_add (args, hr_measure_delimiter_to_string (options->delimiter));
    }
  if (options->decimal_comma)
    g_strv_builder_add (args, "--decimal-comma");
  if (options->no_header)
    g_strv_builder_add (args, "--no-header");
  if (options->batch_column != NULL)
    {
      g_strv_builder_add (args, "--batch-column");
      g_strv_builder_add (args, options->batch_column);
    }
  if (options->memory_column != NULL)
    {
      g_strv_builder_add (args, "--memory-column");
      g_strv_builder_add (args, options->memory_column);
    }
  if (options->seq_column != NULL)
    {
      g_strv_builder_add (args, "--seq-column");
      g_strv_builder_add (args, options->seq_column);
    }
  if (options->unit != HR_MEASURE_UNIT_NONE)
    {
      g_strv_builder_add (args, "--unit");
      g_strv_builder_add (args, hr_enum_to_nick (hr_measure_unit_names, options->unit));
    }
  if (options->has_metric)
    {
      g_strv_builder_add (args, "--metric");
      g_strv_builder_add (args, hr_enum_to_nick (hr_metric_names, options->metric));
    }
  return g_strv_builder_end (args);
}

gboolean
hr_measure_options_from_args (HrMeasureOptions   *options,
                              const char * const *args,
                              GError            **error)
{
  static const char * const valued[] = { "--delimiter", "--batch-column", "--memory-column",
                                         "--seq-column", "--unit", "--metric", NULL };

  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (args != NULL, FALSE);

  hr_measure_options_clear (options);
  memset (options, 0, sizeof *options);

  for (guint i = 0; args[i] != NULL; i++)
    {
      const char *arg = args[i];
      const char *value;

      if (g_str_equal (arg, "--decimal-comma"))
        {
          options->decimal_comma = TRUE;
          continue;
        }
      if (g_str_equal (arg, "--no-header"))
        {
          options->no_header = TRUE;
          continue;
        }
      if (!g_strv_contains (valued, arg))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("unknown option \"%s\""), arg);
          goto failed;
        }
      value = args[++i];
      if (value == NULL)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("%s needs a value"), arg);
          goto failed;
        }
      if (g_str_equal (arg, "--delimiter"))
        {
          if (!hr_measure_delimiter_from_string (value, &options->delimiter))
            {
              g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                           _("--delimiter %s: expected , ; | tab or space"), value);
              goto failed;
            }
        }
      else if (g_str_equal (arg, "--unit"))
        {
          if (!hr_measure_unit_from_string (value, &options->unit))
            {
              g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                           _("--unit %s: expected bytes, KiB, MiB, GiB, KB, MB or GB"), value);
              goto failed;
            }
        }
      else if (g_str_equal (arg, "--metric"))
        {
          int metric;

          if (!hr_enum_from_nick (hr_metric_names, value, &metric))
            {
              g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                           _("--metric %s: expected allocated, reserved or device_used"), value);
              goto failed;
            }
          options->metric = metric;
          options->has_metric = TRUE;
        }
      else
        {
          char **column = g_str_equal (arg, "--batch-column") ? &options->batch_column
                        : g_str_equal (arg, "--memory-column") ? &options->memory_column
                        : &options->seq_column;

          g_free (*column);
          *column = g_strdup (value);
        }
    }
  return TRUE;

failed:
  hr_measure_options_clear (options);
  memset (options, 0, sizeof *options);
  return FALSE;
}

/* @word as a shell reads it back: as it is where nothing in it is
 * special, else quoted. */
static char *
shell_word (const char *word)
{
  const char *plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                      "_.,/+-=:@%";

  if (*word != '\0' && strspn (word, plain) == strlen (word))
    return g_strdup (word);
  return g_shell_quote (word);
}

char *
hr_measure_options_to_string (const HrMeasureOptions *options)
{
  g_auto(GStrv) args = hr_measure_options_to_args (options);
  GString *text = g_string_new (NULL);

  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    {
      g_autofree char *word = shell_word (args[i]);

      if (i > 0)
        g_string_append_c (text, ' ');
      g_string_append (text, word);
    }
  return g_string_free (text, FALSE);
}

gboolean
hr_measure_options_from_string (HrMeasureOptions *options,
                                const char       *text,
                                GError          **error)
{
  g_auto(GStrv) args = NULL;
  g_autoptr(GError) shell_error = NULL;

  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  memset (options, 0, sizeof *options);
  if (*text == '\0')
    return TRUE;
  if (!g_shell_parse_argv (text, NULL, &args, &shell_error))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID, "%s", shell_error->message);
      return FALSE;
    }
  return hr_measure_options_from_args (options, (const char * const *) args, error);
}

void
hr_measure_series_free (HrMeasureSeries *series)
{
  if (series == NULL)
    return;

  g_free (series->name);
  g_array_unref (series->points);
  g_free (series);
}

HrMeasureSeries *
hr_measure_series_new (const char *name,
            HrMetric    metric)
{
  HrMeasureSeries *series = g_new0 (HrMeasureSeries, 1);

  series->name = g_strdup (name);
  series->metric = metric;
  series->points = g_array_new (FALSE, FALSE, sizeof (HrMeasurePoint));
  return series;
}

void
hr_measurement_free (HrMeasurement *measurement)
{
  if (measurement == NULL)
    return;

  g_free (measurement->name);
  g_clear_pointer (&measurement->snapshot, hr_snapshot_free);
  g_clear_pointer (&measurement->trace, hr_trace_free);
  g_ptr_array_unref (measurement->series);
  g_ptr_array_unref (measurement->config_keys);
  g_ptr_array_unref (measurement->config_values);
  g_ptr_array_unref (measurement->notes);
  g_free (measurement);
}

HrMeasurement *
hr_measurement_new (const char *name)
{
  HrMeasurement *m = g_new0 (HrMeasurement, 1);

  m->name = g_strdup (name);
  m->series = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_measure_series_free);
  m->config_keys = g_ptr_array_new_with_free_func (g_free);
  m->config_values = g_ptr_array_new_with_free_func (g_free);
  m->notes = g_ptr_array_new_with_free_func (g_free);
  return m;
}

const char *
hr_measurement_get_config (const HrMeasurement *measurement,
                           const char          *key)
{
  g_return_val_if_fail (measurement != NULL, NULL);

  for (guint i = 0; i < measurement->config_keys->len; i++)
    {
      if (g_str_equal (g_ptr_array_index (measurement->config_keys, i), key))
        return g_ptr_array_index (measurement->config_values, i);
    }

  return NULL;
}

HrMeasureSeries *
hr_measurement_find_series (const HrMeasurement *measurement,
                            HrMetric             metric)
{
  g_return_val_if_fail (measurement != NULL, NULL);

  for (guint i = 0; i < measurement->series->len; i++)
    {
      HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);

      if (s->metric == metric)
        return s;
    }

  return NULL;
}

gboolean
hr_measure_series_is_sweep (const HrMeasureSeries *series)
{
  double first = NAN;

  g_return_val_if_fail (series != NULL, FALSE);

  for (guint i = 0; i < series->points->len; i++)
    {
      double b = g_array_index (series->points, HrMeasurePoint, i).batch;

      if (isnan (b))
        continue;
      if (isnan (first))
        first = b;
      else if (b != first)
        return TRUE;
    }

  return FALSE;
}

const HrMeasureSeries *
hr_measurement_get_sweep (const HrMeasurement *measurement)
{
  g_return_val_if_fail (measurement != NULL, NULL);

  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *s = g_ptr_array_index (measurement->series, i);

      if (hr_measure_series_is_sweep (s))
        return s;
    }

  return NULL;
}

/* A longer line is refused: a file without newlines is no CSV. */
#define MAX_LINE (1024 * 1024)
/* A message is cut to this many bytes (before its "NAME:LINE:"). */
#define MAX_MESSAGE 1024

/* ------------------------------------------------------------------------
 * The streaming reader
 * --------------------------------------------------------------------- */

/* What a column of a recognised format holds. */
typedef enum {
  ROLE_NONE,
  ROLE_BATCH,
  ROLE_SEQ,
  ROLE_TIME,         /* seconds, or a timestamp for nvidia-smi */
  ROLE_STEP,         /* a time axis in steps, when no clock is given */
  ROLE_STATUS,       /* probe: ok / oom */
  ROLE_GPU_INDEX,
  ROLE_GPU_NAME,
  ROLE_MEMORY,       /* a memory value into series `series` */
  ROLE_MODULE,       /* trace: the module a row's saved bytes are of */
} Role;

typedef struct {
  char          *name;      /* as written, unquoted and trimmed */
  char          *base;      /* lower case, without a "[unit]" or "(unit)" */
  HrMeasureUnit  unit;      /* from the brackets, NONE when there are none */
  Role           role;
  int            series;    /* for ROLE_MEMORY: index into the result's series, -1 for
                             * nvidia-smi, where the row's GPU picks the series */
  gboolean       is_max;    /* W&B __MAX */
  HrTraceField   trace;     /* trace: which figure of a row the column is */
} Column;

typedef struct {
  const char *text;
  guint       length;
  guint       column;     /* 1-based position in the line */
} Field;

struct _HrMeasureParser {
  char             *name;
  char             *shown_name;  /* the name as messages show it (hr_text_printable) */
  HrMeasureOptions  options;
  guint             max_rows;

  GString          *pending;     /* a line not yet ended */
  guint             line;        /* lines completed so far */
  gboolean          started;
  gboolean          is_json;
  GString          *json;
  gboolean          have_header;
  guint             header_line;
  char              delimiter;   /* ' ' means runs of blanks */
  GArray           *columns;     /* Column */
  GArray           *fields;      /* Field, reused for every line */
  guint             field_room;  /* what split_fast may fill of it */
  GArray           *read_columns;  /* guint: the columns with a role */
  guint8           *wanted;        /* per column: whether it has a role */
  guint             n_coordinates; /* of them, those before the memory columns */

  HrMeasurement    *result;
  GHashTable       *gpu_series;  /* nvidia-smi: GPU key → series index + 1 */
  /* ... and the GPUs met so far, compared byte for byte before the hash
   * table is asked: a log names a handful of GPUs over millions of rows. */
  struct {
    char            key[128];
    guint           length;
    int             index;
  }                 gpu_cache[8];
  guint             n_gpu_cache;
  int               gpu_by_digit[10];  /* key "0" to "9": series index + 1 */
  /* The last date a timestamp named, and its day number; the last
   * "YYYY/MM/DD HH:MM:" and its seconds. */
  guint             cached_date[3];
  gint64            cached_days;
  char              cached_minute[17];
  gint64            cached_minute_us;
  gboolean          cached_minute_ok;
  gboolean          time_is_step;
  gboolean          time_is_timestamp;
  gboolean          has_t0;
  double            t0;
  gint64            t0_us;     /* a timestamp's, in microseconds */

  gboolean          config_keys_dropped;

  GPtrArray        *thinners;    /* per series index: Thinner, or NULL */
  HrMeasurePointFunc point_func;
  gpointer          point_data;
  gboolean          keep_points;

  /* A pickle (a memory snapshot) is read whole, when it is complete. */
  gboolean          is_pickle;
  GByteArray       *pickle;

  /* A log: its lines are scanned for the memory lines Headroom knows; the
   * generic CSV's refusal of its first line is kept for when none is. */
  HrLogScan        *log;
  GError           *log_error;

  GError           *error;       /* the first error; feeding stops there */
};

/* ------------------------------------------------------------------------
 * Thinning
 * --------------------------------------------------------------------- */

/* A run of points, by the one with the fewest bytes and the one with the
 * most; seq numbers keep their order. */
typedef struct {
  HrMeasurePoint min;
  HrMeasurePoint max;
  guint64        min_seq;
  guint64        max_seq;
} ThinBucket;

/* A series thinned as it streams in: full buckets of `width` points each;
 * when `limit` of them are full, neighbours merge two by two and the width
 * doubles, so that the buckets always cover the whole series evenly. */
typedef struct {
  GArray     *buckets;     /* ThinBucket */
  ThinBucket  current;
  guint64     in_current;
  guint64     width;
  guint64     seq;
  guint       limit;       /* even */
} Thinner;

static Thinner *
thinner_new (guint max_points)
{
  Thinner *t = g_new0 (Thinner, 1);

  /* Full buckets stay below `limit`, and the one being filled is one more:
   * at most 2 * limit points come out. */
  t->limit = MAX (2, (max_points / 2) & ~1u);
  if (2 * t->limit > max_points && t->limit > 2)
    t->limit -= 2;
  t->width = 1;
  t->buckets = g_array_sized_new (FALSE, FALSE, sizeof (ThinBucket), t->limit);
  return t;
}

static void
thinner_free (gpointer data)
{
  Thinner *t = data;

  if (t == NULL)
    return;
  g_array_unref (t->buckets);
  g_free (t);
}

static void
thin_bucket_merge (ThinBucket       *into,
                   const ThinBucket *next)
{
  /* The earliest of equals stays: ties keep the left one. */
  if (next->min.bytes < into->min.bytes)
    {
      into->min = next->min;
      into->min_seq = next->min_seq;
    }
  if (next->max.bytes > into->max.bytes)
    {
      into->max = next->max;
      into->max_seq = next->max_seq;
    }
}

static void
thinner_add (Thinner              *t,
             const HrMeasurePoint *point)
{
  if (t->in_current == 0)
    {
      t->current.min = t->current.max = *point;
      t->current.min_seq = t->current.max_seq = t->seq;
    }
  else if (point->bytes < t->current.min.bytes)
    {
      t->current.min = *point;
      t->current.min_seq = t->seq;
    }
  else if (point->bytes > t->current.max.bytes)
    {
      t->current.max = *point;
      t->current.max_seq = t->seq;
    }
  t->seq++;

  if (++t->in_current < t->width)
    return;

  g_array_append_val (t->buckets, t->current);
  t->in_current = 0;
  if (t->buckets->len < t->limit)
    return;

  for (guint i = 0; i < t->buckets->len / 2; i++)
    {
      ThinBucket merged = g_array_index (t->buckets, ThinBucket, 2 * i);

      thin_bucket_merge (&merged, &g_array_index (t->buckets, ThinBucket, 2 * i + 1));
      g_array_index (t->buckets, ThinBucket, i) = merged;
    }
  g_array_set_size (t->buckets, t->buckets->len / 2);
  t->width *= 2;
}

static void
thin_bucket_emit (const ThinBucket *b,
                  GArray           *points)
{
  if (b->min_seq == b->max_seq)
    g_array_append_val (points, b->min);
  else if (b->min_seq < b->max_seq)
    {
      g_array_append_val (points, b->min);
      g_array_append_val (points, b->max);
    }
  else
    {
      g_array_append_val (points, b->max);
      g_array_append_val (points, b->min);
    }
}

/* Appends what @t kept, in order, to @points. */
static void
thinner_flush (Thinner *t,
               GArray  *points)
{
  for (guint i = 0; i < t->buckets->len; i++)
    thin_bucket_emit (&g_array_index (t->buckets, ThinBucket, i), points);
  if (t->in_current > 0)
    thin_bucket_emit (&t->current, points);
}

static int
compare_guint (gconstpointer a,
               gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

void
hr_measure_thin_columns (const double *x,
                         const double *y,
                         guint         n,
                         double        x_min,
                         double        x_max,
                         guint         columns,
                         GArray       *kept)
{
  g_autofree gint64 *lowest = NULL;
  g_autofree gint64 *highest = NULL;
  guint first = kept != NULL ? kept->len : 0;
  double span;

  g_return_if_fail (x != NULL || n == 0);
  g_return_if_fail (y != NULL || n == 0);
  g_return_if_fail (columns > 0 && columns <= (1u << 24));
  g_return_if_fail (kept != NULL && g_array_get_element_size (kept) == sizeof (guint));

  lowest = g_new (gint64, columns);
  highest = g_new (gint64, columns);
  for (guint c = 0; c < columns; c++)
    lowest[c] = highest[c] = -1;

  span = x_max - x_min;
  for (guint i = 0; i < n; i++)
    {
      double position;
      guint c = 0;

      if (isnan (x[i]) || isnan (y[i]))
        continue;
      position = span > 0 ? (x[i] - x_min) / span * columns : 0;
      if (position >= columns)
        c = columns - 1;
      else if (position > 0)
        c = (guint) position;

      if (lowest[c] < 0 || y[i] < y[lowest[c]])
        lowest[c] = i;
      if (highest[c] < 0 || y[i] > y[highest[c]])
        highest[c] = i;
    }

  for (guint c = 0; c < columns; c++)
    {
      guint a, b;

      if (lowest[c] < 0)
        continue;
      a = (guint) MIN (lowest[c], highest[c]);
      b = (guint) MAX (lowest[c], highest[c]);
      g_array_append_val (kept, a);
      if (b != a)
        g_array_append_val (kept, b);
    }

  /* Columns in x order are not index order when x goes back and forth. */
  if (kept->len > first)
    {
      guint *k = &g_array_index (kept, guint, first);
      guint count = kept->len - first;

      for (guint i = 1; i < count; i++)
        {
          if (k[i] < k[i - 1])
            {
              g_array_sort (kept, compare_guint);
              break;
            }
        }
    }
}

GArray *
hr_measure_series_thin (const HrMeasureSeries *series,
                        guint                  max_points)
{
  const GArray *points;
  g_autofree double *x = NULL;
  g_autofree double *y = NULL;
  g_autoptr(GArray) kept = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *out;
  double x_min = G_MAXDOUBLE, x_max = -G_MAXDOUBLE;
  gboolean by_t = TRUE;
  guint n;

  g_return_val_if_fail (series != NULL, NULL);

  points = series->points;
  n = points->len;
  max_points = MAX (max_points, 4);
  out = g_array_sized_new (FALSE, FALSE, sizeof (HrMeasurePoint), MIN (n, max_points));
  if (n <= max_points)
    {
      g_array_append_vals (out, points->data, n);
      return out;
    }

  for (guint i = 0; i < n && by_t; i++)
    by_t = !isnan (g_array_index (points, HrMeasurePoint, i).t);

  x = g_new (double, n);
  y = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      const HrMeasurePoint *p = &g_array_index (points, HrMeasurePoint, i);

      x[i] = by_t ? p->t : i;
      y[i] = p->bytes;
      x_min = MIN (x_min, x[i]);
      x_max = MAX (x_max, x[i]);
    }

  hr_measure_thin_columns (x, y, n, x_min, x_max, max_points / 2, kept);
  for (guint i = 0; i < kept->len; i++)
    g_array_append_val (out, g_array_index (points, HrMeasurePoint,
                                            g_array_index (kept, guint, i)));
  return out;
}

HrMeasureThinner *
hr_measure_thinner_new (guint max_points)
{
  return (HrMeasureThinner *) thinner_new (MAX (max_points, 4));
}

void
hr_measure_thinner_free (HrMeasureThinner *thinner)
{
  thinner_free (thinner);
}

void
hr_measure_thinner_add (HrMeasureThinner     *thinner,
                        const HrMeasurePoint *point)
{
  thinner_add ((Thinner *) thinner, point);
}

void
hr_measure_thinner_flush (HrMeasureThinner *thinner,
                          GArray           *points)
{
  thinner_flush ((Thinner *) thinner, points);
}

/* Every point of every format comes in here. */
static inline void
add_point (HrMeasureParser      *self,
           guint                 index,
           const HrMeasurePoint *point)
{
  HrMeasureSeries *series = g_ptr_array_index (self->result->series, index);

  if (point->bytes > series->peak || series->n_points == 0)
    {
      series->peak = point->bytes;
      series->peak_index = series->points->len;
    }
  series->n_points++;

  if (self->point_func != NULL)
    self->point_func (series, point, self->point_data);
  if (!self->keep_points)
    return;

  if (self->options.max_time_points > 0 && isnan (point->batch))
    {
      Thinner *t;

      while (self->thinners->len <= index)
        g_ptr_array_add (self->thinners, NULL);
      t = g_ptr_array_index (self->thinners, index);
      if (t == NULL)
        {
          t = thinner_new (MAX (self->options.max_time_points, 4));
          g_ptr_array_index (self->thinners, index) = t;
        }
      thinner_add (t, point);
      return;
    }

  g_array_append_val (series->points, *point);
}

static int add_series (HrMeasureParser *self,
                       const char      *name,
                       HrMetric         metric);

/* Takes @text as a note, cut to MAX_MESSAGE bytes: notes quote column
 * names, which may be long. */
static void
add_note (HrMeasureParser *self,
          char            *text)
{
  if (strlen (text) > MAX_MESSAGE && g_utf8_validate (text, -1, NULL))
    strcpy (g_utf8_find_prev_char (text, text + MAX_MESSAGE - 2), "…");
  g_ptr_array_add (self->result->notes, text);
}

int
hr_measure_parser_add_series (HrMeasureParser *self,
                              const char      *name,
                              HrMetric         metric)
{
  return add_series (self, name, metric);
}

void
hr_measure_parser_add_point (HrMeasureParser *self,
                             guint            series,
                             double           t,
                             double           bytes,
                             guint            line)
{
  HrMeasurePoint point = { NAN, NAN, t, bytes, line };

  g_return_if_fail (series < self->result->series->len);
  add_point (self, series, &point);
}

void
hr_measure_parser_note (HrMeasureParser *self,
                        const char      *format,
                        ...)
{
  va_list args;

  va_start (args, format);
  add_note (self, g_strdup_vprintf (format, args));
  va_end (args);
}

HrMeasurement *
hr_measure_parser_get_result (HrMeasureParser *self)
{
  return self->result;
}

const char *
hr_measure_parser_get_name (HrMeasureParser *self)
{
  return self->shown_name;
}

/* The thinned series made whole: their kept points, and the index of the
 * peak among them (the earliest of equals, as when nothing is thinned). */
static void
flush_thinners (HrMeasureParser *self)
{
  for (guint i = 0; i < self->thinners->len && i < self->result->series->len; i++)
    {
      Thinner *t = g_ptr_array_index (self->thinners, i);
      HrMeasureSeries *series = g_ptr_array_index (self->result->series, i);

      if (t == NULL)
        continue;
      thinner_flush (t, series->points);
      for (guint j = 0; j < series->points->len; j++)
        {
          if (g_array_index (series->points, HrMeasurePoint, j).bytes == series->peak)
            {
              series->peak_index = j;
              break;
            }
        }
    }
  g_ptr_array_set_size (self->thinners, 0);
}

static void
column_clear (gpointer data)
{
  Column *c = data;

  g_free (c->name);
  g_free (c->base);
}

HrMeasureParser *
hr_measure_parser_new (const char             *display_name,
                       const HrMeasureOptions *options)
{
  HrMeasureParser *self = g_new0 (HrMeasureParser, 1);

  self->name = g_strdup (display_name != NULL ? display_name : "<data>");
  self->shown_name = hr_text_printable (self->name, -1);
  if (options != NULL)
    {
      self->options = *options;
      self->options.batch_column = g_strdup (options->batch_column);
      self->options.memory_column = g_strdup (options->memory_column);
      self->options.seq_column = g_strdup (options->seq_column);
    }
  self->max_rows = self->options.max_rows > 0 ? self->options.max_rows
                                               : HR_MEASURE_DEFAULT_MAX_ROWS;
  self->pending = g_string_new (NULL);
  self->columns = g_array_new (FALSE, TRUE, sizeof (Column));
  g_array_set_clear_func (self->columns, column_clear);
  self->fields = g_array_new (FALSE, FALSE, sizeof (Field));
  self->result = hr_measurement_new (self->name);
  self->gpu_series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->thinners = g_ptr_array_new_with_free_func (thinner_free);
  self->keep_points = TRUE;
  return self;
}

void
hr_measure_parser_set_point_func (HrMeasureParser    *self,
                                  HrMeasurePointFunc  func,
                                  gpointer            user_data,
                                  gboolean            keep_points)
{
  g_return_if_fail (self != NULL);

  self->point_func = func;
  self->point_data = user_data;
  self->keep_points = keep_points || func == NULL;
}

void
hr_measure_parser_free (HrMeasureParser *self)
{
  if (self == NULL)
    return;

  g_free (self->name);
  g_free (self->shown_name);
  hr_measure_options_clear (&self->options);
  g_string_free (self->pending, TRUE);
  if (self->json != NULL)
    g_string_free (self->json, TRUE);
  g_array_unref (self->columns);
  g_array_unref (self->fields);
  g_clear_pointer (&self->read_columns, g_array_unref);
  g_free (self->wanted);
  g_clear_pointer (&self->result, hr_measurement_free);
  g_hash_table_unref (self->gpu_series);
  g_ptr_array_unref (self->thinners);
  if (self->pickle != NULL)
    g_byte_array_unref (self->pickle);
  g_clear_pointer (&self->log, hr_measure_log_scan_free);
  g_clear_error (&self->log_error);
  g_clear_error (&self->error);
  g_free (self);
}

static gboolean
fail (HrMeasureParser *self,
      HrError          code,
      guint            column,
      const char      *format,
      ...) G_GNUC_PRINTF (4, 5);

/* "NAME:LINE:COL: message" (or "NAME:LINE: ..." without a column). */
static gboolean
fail (HrMeasureParser *self,
      HrError          code,
      guint            column,
      const char      *format,
      ...)
{
  g_autofree char *message = NULL;
  g_autofree char *shown = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  if (self->error != NULL)
    return FALSE;

  /* Messages quote column names and values: a control character there
   * would drive the terminal, and a value cut at 40 bytes may end inside
   * a character.  Shown escaped, as the JSON reader's are. */
  shown = hr_text_printable (message, -1);
  /* ... and kept to a line or two, whatever the names it quotes. */
  if (strlen (shown) > MAX_MESSAGE)
    {
      char *cut = g_utf8_find_prev_char (shown, shown + MAX_MESSAGE - 2);

      strcpy (cut, "…");
    }
  if (column > 0)
    self->error = g_error_new (HR_ERROR, code, "%s:%u:%u: %s", self->shown_name, self->line,
                               column, shown);
  else
    self->error = g_error_new (HR_ERROR, code, "%s:%u: %s", self->shown_name, self->line, shown);
  return FALSE;
}

gboolean
hr_measure_parser_fail (HrMeasureParser *self,
                        guint            column,
                        const char      *format,
                        ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  return fail (self, HR_ERROR_INVALID, column, "%s", message);
}

static void
note (HrMeasureParser *self,
      const char      *format,
      ...) G_GNUC_PRINTF (2, 3);

static void
note (HrMeasureParser *self,
      const char      *format,
      ...)
{
  va_list args;

  va_start (args, format);
  add_note (self, g_strdup_vprintf (format, args));
  va_end (args);
}

static gboolean
is_blank (const char *s,
          gsize       length)
{
  for (gsize i = 0; i < length; i++)
    {
      if (s[i] != ' ' && s[i] != '\t')
        return FALSE;
    }

  return TRUE;
}

/* The columns a row is read from, once the header has said their roles:
 * the coordinates first, then the memory values; and which they are. */
static void
prepare_columns (HrMeasureParser *self)
{
  guint n_columns = self->columns->len;

  if (self->read_columns != NULL)
    return;

  self->read_columns = g_array_new (FALSE, FALSE, sizeof (guint));
  self->wanted = g_new0 (guint8, n_columns + 1);
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n_columns; i++)
      {
        Role role = g_array_index (self->columns, Column, i).role;

        if (role != ROLE_NONE && (role == ROLE_MEMORY) == (pass == 1))
          g_array_append_val (self->read_columns, i);
        self->wanted[i] = role != ROLE_NONE;
      }
  self->n_coordinates = 0;
  while (self->n_coordinates < self->read_columns->len &&
         g_array_index (self->columns, Column,
                        g_array_index (self->read_columns, guint,
                                       self->n_coordinates)).role != ROLE_MEMORY)
    self->n_coordinates++;
}

/* Which of 16 bytes are the delimiter, a newline, or something the fast
 * way does not take (a NUL, a quote, a byte above 0x7F), as bit masks. */
static inline void
block_masks (const char *p,
             char        delimiter,
             guint      *delimiters,
             guint      *newlines,
             guint      *others)
{
#ifdef __SSE2__
  __m128i v = _mm_loadu_si128 ((const __m128i *) (const void *) p);

  *delimiters = (guint) _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 (delimiter)));
  *newlines = (guint) _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 ('\n')));
  /* a byte's own high bit, or 0xFF where it is NUL or a quote */
  *others = (guint) _mm_movemask_epi8 (_mm_or_si128 (v, _mm_or_si128 (
    _mm_cmpeq_epi8 (v, _mm_setzero_si128 ()), _mm_cmpeq_epi8 (v, _mm_set1_epi8 ('"')))));
#else
  *delimiters = *newlines = *others = 0;
  for (guint i = 0; i < 16; i++)
    {
      if (p[i] == delimiter)
        *delimiters |= 1u << i;
      else if (p[i] == '\n')
        *newlines |= 1u << i;
      else if (p[i] == '\0' || p[i] == '"' || (guchar) p[i] >= 0x80)
        *others |= 1u << i;
    }
#endif
}

/* One field, from @start to @stop (exclusive), trimmed as split_fields
 * trims an unquoted one. */
static inline void
emit_field (Field      *f,
            const char *line,
            const char *start,
            const char *stop)
{
  /* (no delimiter lies between @start and @stop) */
  while (start < stop && (*start == ' ' || *start == '\t'))
    start++;
  f->column = start - line + 1;
  f->text = start;
  while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t'))
    stop--;
  f->length = stop - start;
}

/* Splits the line at @p into self->fields while its newline is looked
 * for, 16 bytes at a time, as split_fields would split it: its newline,
 * or NULL when the line is not all in [@p, @end), is longer than MAX_LINE,
 * or holds a byte that needs the checks of read_line (the fields are then
 * left undone). */
static const char *
split_fast (HrMeasureParser *self,
            const char      *p,
            const char      *end)
{
  const char *line = p, *start = p;
  char delimiter = self->delimiter;
  guint n_columns = self->columns->len;
  const guint8 *wanted;
  Field *fields;
  guint n = 0;

  prepare_columns (self);
  wanted = self->wanted;

  /* The array's room is kept: its length is set, not its size changed
   * (the array has no clear function, and holds plain structs). */
  if (self->field_room < self->columns->len + 2)
    {
      self->field_room = self->columns->len + 2;
      g_array_set_size (self->fields, self->field_room);
    }
  self->fields->len = self->field_room;
  fields = (Field *) (void *) self->fields->data;

  for (const char *block = p;; block += 16)
    {
      guint delimiters, newlines, others, before;

      if (end - block >= 16)
        block_masks (block, delimiter, &delimiters, &newlines, &others);
      else
        {
          /* The chunk's last bytes, one by one. */
          delimiters = newlines = others = 0;
          for (guint i = 0; i < (guint) (end - block); i++)
            {
              if (block[i] == self->delimiter)
                delimiters |= 1u << i;
              else if (block[i] == '\n')
                newlines |= 1u << i;
              else if (block[i] == '\0' || block[i] == '"' || (guchar) block[i] >= 0x80)
                others |= 1u << i;
            }
          if (newlines == 0)
            return NULL;
        }

      before = newlines != 0 ? (newlines & -newlines) - 1 : 0xffff;
      if ((others & before) != 0)
        return NULL;

      for (guint d = delimiters & before; d != 0; d &= d - 1)
        {
          const char *at = block + __builtin_ctz (d);

          /* only the fields a row is read from; the others are counted */
          if (n < n_columns && wanted[n])
            emit_field (&fields[n], line, start, at);
          n++;
          start = at + 1;
        }

      if (newlines != 0)
        {
          const char *nl = block + __builtin_ctz (newlines);
          const char *stop = nl;

          if (nl - line > MAX_LINE)
            return NULL;
          if (stop > line && stop[-1] == '\r')
            stop--;
          /* "a,\r": the carriage return ends the line, not a field. */
          if (stop < start)
            stop = start;
          if (n < n_columns && wanted[n])
            emit_field (&fields[n], line, start, stop);
          n++;
          /* Another count of fields is read_row's to word (and a trailing
           * delimiter its to allow): the general way does it. */
          if (n != n_columns)
            return NULL;
          self->fields->len = n;
          return nl;
        }
      if (block + 16 - line > MAX_LINE)
        return NULL;
    }
}

/* Splits @line (writable, NUL-terminated) into self->fields, in place:
 * quotes are removed ("" inside quotes is one quote), fields are trimmed. */
static gboolean
split_fields (HrMeasureParser *self,
              char            *line,
              gsize            length)
{
  char *p = line, *end = line + length;

  g_array_set_size (self->fields, 0);

  if (self->delimiter == ' ')
    {
      while (p < end)
        {
          Field f;

          while (p < end && (*p == ' ' || *p == '\t'))
            p++;
          if (p == end)
            break;
          f.text = p;
          f.column = p - line + 1;
          while (p < end && *p != ' ' && *p != '\t')
            p++;
          f.length = p - f.text;
          g_array_append_val (self->fields, f);
        }
      return TRUE;
    }

  for (;;)
    {
      Field f;
      char *out;

      while (p < end && (*p == ' ' || *p == '\t') && *p != self->delimiter)
        p++;
      f.column = p - line + 1;

      if (p < end && *p == '"')
        {
          guint quote_column = f.column;

          p++;
          out = p;
          f.text = p;
          for (;;)
            {
              if (p == end)
                return fail (self, HR_ERROR_PARSE, quote_column,
                             _("a quoted field has no closing quote"));
              if (*p == '"')
                {
                  if (p + 1 < end && p[1] == '"')
                    {
                      *out++ = '"';
                      p += 2;
                      continue;
                    }
                  p++;
                  break;
                }
              *out++ = *p++;
            }
          f.length = out - f.text;
          while (p < end && (*p == ' ' || *p == '\t') && *p != self->delimiter)
            p++;
          if (p < end && *p != self->delimiter)
            return fail (self, HR_ERROR_PARSE, p - line + 1,
                         _("text after a quoted field; expected '%c' or the end of the line"),
                         self->delimiter);
        }
      else
        {
          char *next = memchr (p, self->delimiter, end - p);

          f.text = p;
          p = next != NULL ? next : end;
          f.length = p - f.text;
          while (f.length > 0 && (f.text[f.length - 1] == ' ' || f.text[f.length - 1] == '\t'))
            f.length--;
        }

      g_array_append_val (self->fields, f);
      if (p == end)
        break;
      p++;   /* the delimiter */
    }

  return TRUE;
}

static char
detect_delimiter (const char *line)
{
  guint commas = 0, semicolons = 0, tabs = 0;
  gboolean quoted = FALSE;

  for (const char *p = line; *p != '\0'; p++)
    {
      if (*p == '"')
        quoted = !quoted;
      else if (quoted)
        continue;
      else if (*p == ',')
        commas++;
      else if (*p == ';')
        semicolons++;
      else if (*p == '\t')
        tabs++;
    }

  if (tabs > 0 && tabs >= commas && tabs >= semicolons)
    return '\t';
  if (semicolons > 0 && semicolons >= commas)
    return ';';
  if (commas > 0)
    return ',';
  return strchr (line, ' ') != NULL ? ' ' : ',';
}

/* Nearly every value starts with a digit, and no missing mark does. */
#define IS_MISSING(s, length) \
  ((length) == 0 || (!g_ascii_isdigit ((s)[0]) && is_missing ((s), (length))))

static gboolean
is_missing (const char *s,
            guint       length)
{
  static const char * const missing[] = {
    "[N/A]", "N/A", "NA", "[Not Supported]", "nan", "NaN", "null", "None", "-", NULL
  };

  if (length == 0)
    return TRUE;
  /* None of them starts with a digit, and nearly every value does. */
  if (g_ascii_isdigit (s[0]))
    return FALSE;

  for (guint i = 0; missing[i] != NULL; i++)
    {
      if (strlen (missing[i]) == length && g_ascii_strncasecmp (s, missing[i], length) == 0)
        return TRUE;
    }

  return FALSE;
}

/* A number as files write it, never in the locale's format: "1234.5",
 * "1,5" when decimal commas are on, "1e9", and an optional unit after it
 * ("81920 MiB"). */
G_GNUC_NO_INLINE static gboolean
parse_number_general (HrMeasureParser *self,
                      const Field     *field,
                      const char      *column_name,
                      double          *value,
                      HrMeasureUnit   *unit);

/* The commonest value inline: a whole number, bare or in MiB (nvidia-smi's
 * "20480 MiB"); anything else, parse_number_general. */
static inline gboolean
parse_number (HrMeasureParser *self,
              const Field     *field,
              const char      *column_name,
              double          *value,
              HrMeasureUnit   *unit)
{
  const char *c = field->text, *e = field->text + field->length;
  const char *stop = c + MIN (field->length, 15);  /* at most 15 digits */
  guint64 whole = 0;
  guint digit;

  while (c < stop && (digit = (guchar) *c - '0') < 10)
    {
      whole = whole * 10 + digit;
      c++;
    }
  if (c == field->text)
    return parse_number_general (self, field, column_name, value, unit);
  if (c == e)
    {
      *value = (double) whole;
      *unit = HR_MEASURE_UNIT_NONE;
      return TRUE;
    }
  if (e - c == 4 && memcmp (c, " MiB", 4) == 0)
    {
      *value = (double) whole;
      *unit = HR_MEASURE_UNIT_MIB;
      return TRUE;
    }
  return parse_number_general (self, field, column_name, value, unit);
}

static gboolean
parse_number_general (HrMeasureParser *self,
                      const Field     *field,
                      const char      *column_name,
                      double          *value,
                      HrMeasureUnit   *unit)
{
  char buffer[128];
  char *end;
  gboolean comma_decimal;
  guint length = field->length;

  *unit = HR_MEASURE_UNIT_NONE;

  /* At disk speed first: a whole number below 10^15 (exact as a double,
   * as g_ascii_strtod would give it), maybe followed by a unit.  Anything
   * else takes the general way below, which also words the errors. */
  {
    const char *c = field->text, *e = field->text + length;
    guint64 whole = 0;
    guint digits = 0;

    while (c < e && digits < 15 && g_ascii_isdigit (*c))
      {
        whole = whole * 10 + (guint64) (*c - '0');
        c++;
        digits++;
      }
    /* "8.345": (8345) / 10^3, two exact doubles divided, is the double
     * nearest 8.345, as g_ascii_strtod gives it. */
    if (digits > 0 && c < e && *c == '.' && !self->options.decimal_comma)
      {
        guint64 scale = 1;

        c++;
        while (c < e && digits < 15 && g_ascii_isdigit (*c))
          {
            whole = whole * 10 + (guint64) (*c - '0');
            scale *= 10;
            c++;
            digits++;
          }
        if (scale > 1 && (c == e || (*c == ' ' && e - c == 1)))
          {
            *value = (double) whole / (double) scale;
            return TRUE;
          }
        digits = 0;   /* anything else: the general way */
      }
    if (digits > 0 && (c == e || *c == ' ' || g_ascii_isalpha (*c)))
      {
        while (c < e && *c == ' ')
          c++;
        if (c == e)
          {
            *value = (double) whole;
            return TRUE;
          }
        if (e - c == 3 && c[0] == 'M' && c[1] == 'i' && c[2] == 'B')
          {
            *value = (double) whole;
            *unit = HR_MEASURE_UNIT_MIB;
            return TRUE;
          }
        if (e - c < 8 && *c != 'e' && *c != 'E')
          {
            char text[8];

            memcpy (text, c, e - c);
            text[e - c] = '\0';
            if (hr_measure_unit_from_string (text, unit))
              {
                *value = (double) whole;
                return TRUE;
              }
            *unit = HR_MEASURE_UNIT_NONE;
          }
      }
  }

  if (length >= sizeof buffer)
    return fail (self, HR_ERROR_INVALID, field->column,
                 _("column \"%s\": a value of %u characters is not a number"), column_name, length);

  memcpy (buffer, field->text, length);
  buffer[length] = '\0';

  /* "1,5" in a semicolon- or tab-separated file is one and a half. */
  comma_decimal = self->options.decimal_comma ||
                  (self->delimiter != ',' && strchr (buffer, '.') == NULL);
  if (comma_decimal)
    {
      char *comma = strchr (buffer, ',');

      if (comma != NULL && strchr (comma + 1, ',') == NULL)
        *comma = '.';
    }

  if (!(g_ascii_isdigit (buffer[0]) || buffer[0] == '.' ||
        ((buffer[0] == '-' || buffer[0] == '+') &&
         (g_ascii_isdigit (buffer[1]) || buffer[1] == '.'))))
    goto bad;

  *value = g_ascii_strtod (buffer, &end);
  if (end == buffer || !isfinite (*value))
    goto bad;
  /* g_ascii_strtod also reads C's hexadecimal floats ("0x1p3"), which no
   * tool writes a measurement in. */
  for (const char *c = buffer; c < end; c++)
    {
      if (*c == 'x' || *c == 'X')
        goto bad;
    }

  while (*end == ' ')
    end++;
  if (*end != '\0' && !hr_measure_unit_from_string (end, unit))
    goto bad;

  return TRUE;

bad:
  {
    g_autofree char *shown = g_strndup (field->text, MIN (length, 40));

    if (strchr (shown, ',') != NULL && !self->options.decimal_comma)
      return fail (self, HR_ERROR_INVALID, field->column,
                   _("column \"%s\": \"%s%s\" is not a number (if the comma is a decimal "
                     "comma, say so)"), column_name, shown, length > 40 ? "…" : "");
    return fail (self, HR_ERROR_INVALID, field->column,
                 _("column \"%s\": \"%s%s\" is not a number"), column_name, shown,
                 length > 40 ? "…" : "");
  }
}

/* "memory.used [MiB]" → base "memory.used", unit MiB; "peak (GB)" too;
 * "peak_gb" → unit GB. */
static void
column_init (Column     *c,
             const char *text,
             guint       length)
{
  g_autofree char *name = g_strndup (text, length);
  const char *open = strrchr (name, '[');
  const char *paren = strrchr (name, '(');
  static const char * const suffixes[] = { "_bytes", "_kib", "_mib", "_gib", "_kb", "_mb", "_gb",
                                           NULL };

  c->name = g_strdup (name);
  c->unit = HR_MEASURE_UNIT_NONE;
  c->series = -1;

  if (open == NULL || (paren != NULL && paren > open))
    open = paren;

  if (open != NULL && open > name)
    {
      const char *close = strchr (open, *open == '[' ? ']' : ')');

      if (close != NULL && close[1] == '\0')
        {
          g_autofree char *unit = g_strndup (open + 1, close - open - 1);
          HrMeasureUnit u;

          if (hr_measure_unit_from_string (g_strstrip (unit), &u))
            {
              c->unit = u;
              name[open - name] = '\0';
              g_strstrip (name);
            }
        }
    }

  c->base = g_ascii_strdown (name, -1);

  if (c->unit == HR_MEASURE_UNIT_NONE)
    {
      for (guint i = 0; suffixes[i] != NULL; i++)
        {
          if (g_str_has_suffix (c->base, suffixes[i]))
            {
              hr_measure_unit_from_string (suffixes[i] + 1, &c->unit);
              break;
            }
        }
    }
}

static int
find_column (HrMeasureParser    *self,
             const char * const *names)
{
  for (guint n = 0; names[n] != NULL; n++)
    {
      for (guint i = 0; i < self->columns->len; i++)
        {
          if (g_str_equal (g_array_index (self->columns, Column, i).base, names[n]))
            return i;
        }
    }

  return -1;
}

/* A series named @name, cut to HR_MEASURE_MAX_NAME bytes (a column's
 * name may be a megabyte long). */
static int
add_series (HrMeasureParser *self,
            const char      *name,
            HrMetric         metric)
{
  g_autofree char *cut = NULL;

  if (strlen (name) > HR_MEASURE_MAX_NAME && g_utf8_validate (name, -1, NULL))
    {
      const char *end = g_utf8_find_prev_char (name, name + HR_MEASURE_MAX_NAME - 2);

      cut = g_strdup_printf ("%.*s…", (int) (end - name), name);
      name = cut;
    }
  g_ptr_array_add (self->result->series, hr_measure_series_new (name, metric));
  return self->result->series->len - 1;
}

static int
series_index (HrMeasureParser       *self,
              const HrMeasureSeries *series)
{
  guint index;

  if (!g_ptr_array_find (self->result->series, series, &index))
    g_assert_not_reached ();
  return index;
}

/* The header's column names for a message: the first few, each cut, and
 * how many more there are (a header may have half a million). */
static char *
column_list (HrMeasureParser *self)
{
  const guint max_listed = 20, max_length = 64;
  GString *names = g_string_new (NULL);
  guint n = self->columns->len;

  for (guint i = 0; i < MIN (n, max_listed); i++)
    {
      const char *name = g_array_index (self->columns, Column, i).name;
      gsize length = strlen (name);

      if (length > max_length)
        length = g_utf8_find_prev_char (name, name + max_length + 1) - name;
      g_string_append_printf (names, "%s\"%.*s%s\"", i > 0 ? ", " : "", (int) length, name,
                              name[length] != '\0' ? "…" : "");
    }
  if (n > max_listed)
    g_string_append_printf (names, g_dngettext (GETTEXT_PACKAGE, " and %u more",
                                                " and %u more", n - max_listed),
                            n - max_listed);
  return g_string_free (names, FALSE);
}

/* A column named by the options: its header name (any case), or its
 * 1-based number. */
static int
named_column (HrMeasureParser *self,
              const char      *option,
              const char      *what)
{
  guint64 number;

  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *c = &g_array_index (self->columns, Column, i);

      if (g_ascii_strcasecmp (c->name, option) == 0 || g_str_equal (c->base, option))
        return i;
    }

  if (g_ascii_string_to_unsigned (option, 10, 1, self->columns->len, &number, NULL))
    return number - 1;

  {
    g_autofree char *names = column_list (self);

    /* Translators: the second %s is "the batch size", "the memory" or
     * "the sequence length", translated on their own. */
    fail (self, HR_ERROR_INVALID, 0, _("no column \"%s\" for %s; the columns are %s"), option,
          what, names);
  }
  return -2;
}

static gboolean
setup_probe (HrMeasureParser *self)
{
  static const char * const batch[] = { "micro_batch", NULL };
  static const char * const seq[] = { "seq_len", NULL };
  static const char * const status[] = { "status", NULL };
  static const struct {
    const char *column;
    HrMetric    metric;
  } memory[] = {
    { "max_memory_allocated", HR_METRIC_ALLOCATED },
    { "max_memory_reserved", HR_METRIC_RESERVED },
    { "device_used", HR_METRIC_DEVICE_USED },
  };
  int b = find_column (self, batch);

  self->result->format = HR_MEASURE_FORMAT_PROBE;
  if (b < 0)
    return fail (self, HR_ERROR_INVALID, 0, _("a probe file needs a \"micro_batch\" column"));
  g_array_index (self->columns, Column, b).role = ROLE_BATCH;

  if (find_column (self, seq) >= 0)
    g_array_index (self->columns, Column, find_column (self, seq)).role = ROLE_SEQ;
  if (find_column (self, status) >= 0)
    g_array_index (self->columns, Column, find_column (self, status)).role = ROLE_STATUS;

  for (guint i = 0; i < G_N_ELEMENTS (memory); i++)
    {
      const char * const names[] = { memory[i].column, NULL };
      int c = find_column (self, names);

      if (c < 0)
        continue;
      g_array_index (self->columns, Column, c).role = ROLE_MEMORY;
      g_array_index (self->columns, Column, c).series = add_series (self, memory[i].column,
                                                                      memory[i].metric);
    }

  if (self->result->series->len == 0)
    return fail (self, HR_ERROR_INVALID, 0,
                 _("a probe file needs at least one of the columns \"max_memory_allocated\", "
                   "\"max_memory_reserved\", \"device_used\""));
  return TRUE;
}

/* headroom_trace_torch.py's CSV: the totals' saved bytes are the
 * series; every row, a module's too, goes to the measurement's trace. */
static gboolean
setup_trace (HrMeasureParser *self)
{
  static const char * const batch[] = { "micro_batch", NULL };
  static const char * const size[] = { "size", NULL };
  static const char * const module[] = { "module", NULL };
  static const struct {
    const char   *column;
    HrTraceField  field;
  } values[] = {
    { "saved_bytes", HR_TRACE_FIELD_SAVED },
    { "params_bytes", HR_TRACE_FIELD_PARAMS },
    { "grads_bytes", HR_TRACE_FIELD_GRADS },
    { "optimizer_bytes", HR_TRACE_FIELD_OPTIMIZER },
  };
  int b = find_column (self, batch), c;

  self->result->format = HR_MEASURE_FORMAT_TORCH_TRACE;
  if (b < 0)
    return fail (self, HR_ERROR_INVALID, 0, _("a trace file needs a \"micro_batch\" column"));
  g_array_index (self->columns, Column, b).role = ROLE_BATCH;
  if ((c = find_column (self, size)) >= 0)
    g_array_index (self->columns, Column, c).role = ROLE_SEQ;
  if ((c = find_column (self, module)) >= 0)
    g_array_index (self->columns, Column, c).role = ROLE_MODULE;

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      const char * const names[] = { values[i].column, NULL };
      Column *col;

      if ((c = find_column (self, names)) < 0)
        {
          if (values[i].field == HR_TRACE_FIELD_SAVED)
            return fail (self, HR_ERROR_INVALID, 0,
                         _("a trace file needs a \"saved_bytes\" column"));
          continue;
        }
      col = &g_array_index (self->columns, Column, c);
      col->role = ROLE_MEMORY;
      col->trace = values[i].field;
      /* every value goes to the trace; the totals' saved bytes are
       * also the series */
      col->series = values[i].field == HR_TRACE_FIELD_SAVED
                    ? add_series (self, _("saved for backward, traced on CPU"),
                                  HR_METRIC_ALLOCATED)
                    : -1;
    }
  self->result->trace = hr_trace_new ();
  return TRUE;
}

static gboolean
setup_nvidia_smi (HrMeasureParser *self)
{
  static const char * const used[] = { "memory.used", NULL };
  static const char * const time[] = { "timestamp", NULL };
  static const char * const index[] = { "index", "uuid", "pci.bus_id", NULL };
  static const char * const name[] = { "name", NULL };
  int c;

  self->result->format = HR_MEASURE_FORMAT_NVIDIA_SMI;
  c = find_column (self, used);
  g_array_index (self->columns, Column, c).role = ROLE_MEMORY;
  /* nvidia-smi reports memory in MiB whether or not the header says so. */
  if (g_array_index (self->columns, Column, c).unit == HR_MEASURE_UNIT_NONE)
    g_array_index (self->columns, Column, c).unit = HR_MEASURE_UNIT_MIB;

  if ((c = find_column (self, time)) >= 0)
    {
      g_array_index (self->columns, Column, c).role = ROLE_TIME;
      self->time_is_timestamp = TRUE;
    }
  else
    note (self, _("no timestamp column: t counts samples"));
  if ((c = find_column (self, index)) >= 0)
    g_array_index (self->columns, Column, c).role = ROLE_GPU_INDEX;
  if ((c = find_column (self, name)) >= 0)
    g_array_index (self->columns, Column, c).role = ROLE_GPU_NAME;
  return TRUE;
}

/* "run - system/gpu.0.memoryAllocatedBytes__MAX" → GPU 0, max. */
static gboolean
wandb_gpu_column (const char *base,
                  guint      *gpu,
                  gboolean   *process,
                  gboolean   *is_min,
                  gboolean   *is_max)
{
  const char *p = strstr (base, "gpu.");
  const char *rest;
  char *end;
  guint64 number;

  if (p == NULL)
    return FALSE;
  p += 4;
  *process = g_str_has_prefix (p, "process.");
  if (*process)
    p += strlen ("process.");
  if (!g_ascii_isdigit (*p))
    return FALSE;
  number = g_ascii_strtoull (p, &end, 10);
  /* no machine has more (and a larger number would wrap) */
  if (number > 1024)
    return FALSE;
  *gpu = (guint) number;
  rest = end;
  if (!g_str_has_prefix (rest, ".memoryallocatedbytes"))
    return FALSE;
  rest += strlen (".memoryallocatedbytes");
  *is_min = g_str_equal (rest, "__min");
  *is_max = g_str_equal (rest, "__max");
  return *rest == '\0' || *is_min || *is_max;
}

static gboolean
setup_wandb (HrMeasureParser *self)
{
  static const char * const seconds[] = { "_runtime", "relative time (process)",
                                          "relative time (wall)", "_timestamp", NULL };
  static const char * const steps[] = { "step", "_step", NULL };
  g_autoptr(GHashTable) kept = NULL;
  int c;

  self->result->format = HR_MEASURE_FORMAT_WANDB;

  /* Per GPU, the __MAX column when there is one: a peak is what it is for.
   * The column kept for each series' name is looked up, not searched
   * for: a header may have thousands of columns. */
  kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *col = &g_array_index (self->columns, Column, i);
      guint gpu;
      gboolean process, is_min, is_max, better = TRUE;
      g_autofree char *name = NULL;
      gpointer value;
      int existing = -1;

      if (!wandb_gpu_column (col->base, &gpu, &process, &is_min, &is_max) || is_min)
        continue;

      name = g_strdup_printf ("GPU %u%s", gpu, process ? " (process)" : "");
      if (g_hash_table_lookup_extended (kept, name, NULL, &value))
        {
          Column *other;

          existing = GPOINTER_TO_INT (value) - 1;
          other = &g_array_index (self->columns, Column, existing);
          better = is_max && !other->is_max;
        }

      if (existing >= 0 && !better)
        continue;
      col->role = ROLE_MEMORY;
      col->is_max = is_max;
      col->unit = HR_MEASURE_UNIT_BYTES;
      if (existing >= 0)
        {
          Column *other = &g_array_index (self->columns, Column, existing);

          col->series = other->series;
          other->role = ROLE_NONE;
        }
      else
        {
          if (self->result->series->len >= HR_MEASURE_MAX_SERIES)
            return fail (self, HR_ERROR_TOO_LARGE, 0,
                         _("more than %u GPU memory columns; Headroom reads at most that many "
                           "series from one file"), HR_MEASURE_MAX_SERIES);
          col->series = add_series (self, name, HR_METRIC_DEVICE_USED);
        }
      g_hash_table_replace (kept, g_steal_pointer (&name), GINT_TO_POINTER (i + 1));
    }

  if ((c = find_column (self, seconds)) >= 0)
    {
      g_array_index (self->columns, Column, c).role = ROLE_TIME;
    }
  else if ((c = find_column (self, steps)) >= 0)
    {
      g_array_index (self->columns, Column, c).role = ROLE_STEP;
      self->time_is_step = TRUE;
      note (self, _("no time column (\"_runtime\" or \"Relative Time (Process)\"): t is the step"));
    }

  return TRUE;
}

static gboolean
setup_tensorboard (HrMeasureParser *self)
{
  self->result->format = HR_MEASURE_FORMAT_TENSORBOARD;
  g_array_index (self->columns, Column, 0).role = ROLE_TIME;
  g_array_index (self->columns, Column, 2).role = ROLE_MEMORY;
  g_array_index (self->columns, Column, 2).unit = self->options.unit;
  if (self->options.unit == HR_MEASURE_UNIT_NONE)
    note (self, _("TensorBoard does not record the scalar's unit: read as bytes"));
  if (!self->options.has_metric)
    note (self, _("TensorBoard does not record which measure the scalar is: read as "
                  "max_memory_allocated"));
  g_array_index (self->columns, Column, 2).series =
    add_series (self, "Value", self->options.has_metric ? self->options.metric
                                                        : HR_METRIC_ALLOCATED);
  return TRUE;
}

/* PyTorch Lightning's DeviceStatsMonitor logs torch.cuda.memory_stats()
 * under "DeviceStatsMonitor.HOOK/KEY" (lightning/pytorch/callbacks/
 * device_stats_monitor.py, commit a33cf7331af3; the separator is the
 * logger's group_separator, "/" by default), in bytes: the CUDA
 * accelerator's get_device_stats is torch.cuda.memory_stats
 * (accelerators/cuda.py, commit eddba2fc4151).  Before 1.7 it logged
 * nvidia-smi's "memory.used (MB)", which is MiB. */
static gboolean
setup_lightning (HrMeasureParser *self)
{
  static const char * const hooks[] = { "on_train_batch_end", "on_train_batch_start",
                                        "on_validation_batch_end", "on_test_batch_end", NULL };
  static const struct {
    const char *key;
    HrMetric    metric;
  } keys[] = {
    { "allocated_bytes.all.peak", HR_METRIC_ALLOCATED },
    { "reserved_bytes.all.peak", HR_METRIC_RESERVED },
    { "memory.used", HR_METRIC_DEVICE_USED },
  };
  static const char * const steps[] = { "step", NULL };
  int c;

  self->result->format = HR_MEASURE_FORMAT_LIGHTNING;

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    for (guint h = 0; hooks[h] != NULL; h++)
      {
        int found = -1;

        for (guint i = 0; i < self->columns->len && found < 0; i++)
          {
            const char *base = g_array_index (self->columns, Column, i).base;
            const char *rest = base + strlen ("devicestatsmonitor.");

            if (g_str_has_prefix (base, "devicestatsmonitor.") &&
                g_str_has_prefix (rest, hooks[h]) &&
                rest[strlen (hooks[h])] != '\0' &&
                strchr ("/.-", rest[strlen (hooks[h])]) != NULL &&
                g_str_equal (rest + strlen (hooks[h]) + 1, keys[k].key))
              found = i;
          }
        if (found < 0)
          continue;

        {
          Column *col = &g_array_index (self->columns, Column, found);

          col->role = ROLE_MEMORY;
          col->unit = keys[k].metric == HR_METRIC_DEVICE_USED ? HR_MEASURE_UNIT_MIB
                                                              : HR_MEASURE_UNIT_BYTES;
          col->series = add_series (self, col->name, keys[k].metric);
        }
        break;
      }

  if (self->result->series->len == 0)
    return fail (self, HR_ERROR_INVALID, 0,
                 _("DeviceStatsMonitor columns without allocated_bytes.all.peak, "
                   "reserved_bytes.all.peak or memory.used"));

  if ((c = find_column (self, steps)) >= 0)
    {
      g_array_index (self->columns, Column, c).role = ROLE_STEP;
      self->time_is_step = TRUE;
      note (self, _("t is Lightning's step; rows where the monitor logged nothing are left "
                    "out"));
    }
  return TRUE;
}

static gboolean
setup_generic (HrMeasureParser *self)
{
  static const char * const batch_names[] = { "micro_batch", "batch_size", "batch", "microbatch",
                                              "micro-batch", "batch size", "bs", NULL };
  static const char * const seq_names[] = { "seq_len", "seq", "sequence_length", "seqlen",
                                            "sequence length", NULL };
  int b, m = -1, s = -1;
  Column *memory;

  self->result->format = HR_MEASURE_FORMAT_GENERIC;

  b = self->options.batch_column != NULL
      ? named_column (self, self->options.batch_column, _("the batch size"))
      : find_column (self, batch_names);
  if (b == -2)
    return FALSE;

  if (self->options.memory_column != NULL)
    {
      m = named_column (self, self->options.memory_column, _("the memory"));
      if (m == -2)
        return FALSE;
    }
  else
    {
      for (guint i = 0; i < self->columns->len; i++)
        {
          const char *base = g_array_index (self->columns, Column, i).base;

          if ((int) i != b && (strstr (base, "mem") != NULL || strstr (base, "peak") != NULL ||
                               strstr (base, "vram") != NULL))
            {
              if (m >= 0)
                return fail (self, HR_ERROR_INVALID, 0,
                             _("columns \"%s\" and \"%s\" could both be the memory: say which "
                               "(--memory-column)"),
                             g_array_index (self->columns, Column, m).name,
                             g_array_index (self->columns, Column, i).name);
              m = i;
            }
        }
    }

  if (b < 0 || m < 0)
    {
      g_autofree char *names = column_list (self);

      if (b < 0)
        return fail (self, HR_ERROR_INVALID, 0,
                     _("not a format Headroom recognises, and no batch-size column was named "
                       "(--batch-column, --memory-column); the columns are %s"), names);
      return fail (self, HR_ERROR_INVALID, 0,
                   _("not a format Headroom recognises, and no memory column was named "
                     "(--batch-column, --memory-column); the columns are %s"), names);
    }

  if (b == m)
    return fail (self, HR_ERROR_INVALID, 0, _("the batch and memory columns are the same column"));

  if (self->options.seq_column != NULL && self->options.seq_column[0] == '\0')
    s = -1;
  else if (self->options.seq_column != NULL)
    {
      s = named_column (self, self->options.seq_column, _("the sequence length"));
      if (s == -2)
        return FALSE;
    }
  else
    s = find_column (self, seq_names);

  g_array_index (self->columns, Column, b).role = ROLE_BATCH;
  if (s >= 0 && s != b && s != m)
    g_array_index (self->columns, Column, s).role = ROLE_SEQ;

  memory = &g_array_index (self->columns, Column, m);
  memory->role = ROLE_MEMORY;
  if (self->options.unit != HR_MEASURE_UNIT_NONE)
    memory->unit = self->options.unit;
  if (memory->unit == HR_MEASURE_UNIT_NONE)
    return fail (self, HR_ERROR_INVALID, 0,
                 _("column \"%s\" does not say its unit; give it (--unit bytes, KiB, MiB, GiB, "
                   "KB, MB or GB)"), memory->name);
  if (!self->options.has_metric)
    note (self, _("column \"%s\" read as max_memory_allocated (say another measure with "
                  "--metric)"), memory->name);
  memory->series = add_series (self, memory->name,
                               self->options.has_metric ? self->options.metric
                                                        : HR_METRIC_ALLOCATED);
  return TRUE;
}

static gboolean
read_header (HrMeasureParser *self,
             char            *line,
             gsize            length)
{
  static const char * const probe_memory[] = { "max_memory_allocated", "max_memory_reserved",
                                               "device_used", NULL };
  static const char * const probe_batch[] = { "micro_batch", NULL };
  static const char * const used[] = { "memory.used", NULL };
  gboolean mapped = self->options.batch_column != NULL || self->options.memory_column != NULL;

  self->delimiter = self->options.delimiter != 0 ? self->options.delimiter
                                                 : detect_delimiter (line);
  if (!split_fields (self, line, length))
    return FALSE;

  self->have_header = TRUE;
  self->header_line = self->line;

  for (guint i = 0; i < self->fields->len; i++)
    {
      const Field *f = &g_array_index (self->fields, Field, i);
      Column c = { 0 };

      if (self->options.no_header)
        {
          g_autofree char *name = g_strdup_printf ("%u", i + 1);

          column_init (&c, name, strlen (name));
        }
      else
        {
          if (f->length == 0)
            return fail (self, HR_ERROR_INVALID, f->column, _("column %u has no name in the "
                                                              "header"), i + 1);
          column_init (&c, f->text, f->length);
        }
      g_array_append_val (self->columns, c);
    }

  if (mapped || self->options.no_header)
    return setup_generic (self);
  if (hr_measurement_get_config (self->result, "headroom-trace") != NULL)
    return setup_trace (self);
  if (find_column (self, probe_batch) >= 0 && find_column (self, probe_memory) >= 0)
    return setup_probe (self);
  if (hr_measurement_get_config (self->result, "headroom-probe") != NULL)
    return setup_probe (self);
  if (find_column (self, used) >= 0)
    return setup_nvidia_smi (self);

  for (guint i = 0; i < self->columns->len; i++)
    {
      guint gpu;
      gboolean process, is_min, is_max;

      if (wandb_gpu_column (g_array_index (self->columns, Column, i).base, &gpu, &process,
                           &is_min, &is_max))
        return setup_wandb (self);
    }

  if (self->columns->len == 3 &&
      g_str_equal (g_array_index (self->columns, Column, 0).base, "wall time") &&
      g_str_equal (g_array_index (self->columns, Column, 1).base, "step") &&
      g_str_equal (g_array_index (self->columns, Column, 2).base, "value"))
    return setup_tensorboard (self);

  for (guint i = 0; i < self->columns->len; i++)
    {
      if (g_str_has_prefix (g_array_index (self->columns, Column, i).base, "devicestatsmonitor."))
        return setup_lightning (self);
    }

  if (setup_generic (self))
    return TRUE;

  /* No CSV Headroom knows: maybe a log with memory lines further on.  The
   * refusal stands if none comes. */
  self->log_error = g_steal_pointer (&self->error);
  self->log = hr_measure_log_scan_new ();
  g_ptr_array_set_size (self->result->series, 0);
  return TRUE;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms", days_from_civil). */
static gint64
days_from_civil (gint64 y,
                 guint  m,
                 guint  d)
{
  gint64 era, yoe, doy, doe;

  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* nvidia-smi's "2024/05/14 10:31:02.123" (also with '-' in the date or a
 * 'T' between), in seconds. */
static inline gboolean
two_digits (const char *p,
            guint      *value)
{
  guint a = (guchar) p[0] - '0', b = (guchar) p[1] - '0';

  *value = a * 10 + b;
  return a < 10 && b < 10;
}

/* A fraction of @digits digits (at most 9) in microseconds, rounded. */
static inline gint64
fraction_us (guint64 fraction,
             guint   digits)
{
  static const guint64 powers[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                    100000000, 1000000000 };

  if (digits <= 6)
    return (gint64) (fraction * powers[6 - digits]);
  return (gint64) ((fraction + powers[digits - 6] / 2) / powers[digits - 6]);
}

/* nvidia-smi's own layout, "2024/05/14 10:31:02.123", at disk speed, in
 * microseconds since 1970 (whole numbers: the times a log's points get
 * from them are exact to the microsecond, "2.056", not 2.0559999); FALSE
 * for anything else, which parse_timestamp reads the general way. */
static inline gboolean
parse_timestamp_fast (HrMeasureParser *self,
                      const Field     *f,
                      gint64          *us)
{
  const char *p = f->text;
  guint y, y2, mo, d, h, mi, sec, digits = 0;
  guint64 fraction = 0;

  /* A log's rows share their minute: the date, hours and minutes, and
   * their sum in seconds, are kept from the row before. */
  if (f->length >= 19 && f->length <= 29 && self->cached_minute_ok &&
      memcmp (p, self->cached_minute, 17) == 0 && two_digits (p + 17, &sec) && sec <= 60)
    {
      if (f->length > 19)
        {
          if (p[19] != '.' || f->length == 20)
            return FALSE;
          for (guint i = 20; i < f->length; i++)
            {
              guint digit = (guchar) p[i] - '0';

              if (digit >= 10)
                return FALSE;
              fraction = fraction * 10 + digit;
              digits++;
            }
        }
      *us = self->cached_minute_us + sec * G_GINT64_CONSTANT (1000000) +
            fraction_us (fraction, digits);
      return TRUE;
    }

  if (f->length < 19 || f->length > 29 ||
      !two_digits (p, &y) || !two_digits (p + 2, &y2) ||
      (p[4] != '/' && p[4] != '-') || !two_digits (p + 5, &mo) || p[7] != p[4] ||
      !two_digits (p + 8, &d) || (p[10] != ' ' && p[10] != 'T') ||
      !two_digits (p + 11, &h) || p[13] != ':' || !two_digits (p + 14, &mi) ||
      p[16] != ':' || !two_digits (p + 17, &sec))
    return FALSE;
  if (f->length > 19)
    {
      if (p[19] != '.' || f->length == 20)
        return FALSE;
      for (guint i = 20; i < f->length; i++)
        {
          guint digit = (guchar) p[i] - '0';

          if (digit >= 10)
            return FALSE;
          fraction = fraction * 10 + digit;
          digits++;
        }
    }
  y = y * 100 + y2;

  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
    return FALSE;

  if (self->cached_date[0] != y || self->cached_date[1] != mo || self->cached_date[2] != d)
    {
      self->cached_date[0] = y;
      self->cached_date[1] = mo;
      self->cached_date[2] = d;
      self->cached_days = days_from_civil (y, mo, d);
    }

  self->cached_minute_us = ((self->cached_days * 24 + h) * 60 + mi) * 60 *
                           G_GINT64_CONSTANT (1000000);
  memcpy (self->cached_minute, p, 17);
  self->cached_minute_ok = TRUE;
  *us = self->cached_minute_us + sec * G_GINT64_CONSTANT (1000000) +
        fraction_us (fraction, digits);
  return TRUE;
}

static gboolean
parse_timestamp (HrMeasureParser *self,
                 const Field     *f,
                 gint64          *us)
{
  char buffer[64];
  guint y, mo, d, h, mi;
  double s;
  char *end;

  if (parse_timestamp_fast (self, f, us))
    return TRUE;

  if (f->length >= sizeof buffer)
    return FALSE;
  memcpy (buffer, f->text, f->length);
  buffer[f->length] = '\0';

  for (char *p = buffer; *p != '\0'; p++)
    {
      if (*p == '/' || *p == '-' || *p == ':' || *p == 'T')
        *p = ' ';
      /* digits, blanks and the seconds' point only: no sign, no "0x" */
      else if (!g_ascii_isdigit (*p) && *p != ' ' && *p != '.')
        return FALSE;
    }

  {
    guint64 parts[5];
    char *p = buffer;

    /* Each part read whole and checked before it is narrowed: a year of
     * 4294969266 is no 1970. */
    for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
      {
        while (*p == ' ')
          p++;
        if (!g_ascii_isdigit (*p))
          return FALSE;
        parts[i] = g_ascii_strtoull (p, &end, 10);
        if (end - p > 4)
          return FALSE;
        p = end;
      }
    y = (guint) parts[0];
    mo = (guint) parts[1];
    d = (guint) parts[2];
    h = (guint) parts[3];
    mi = (guint) parts[4];
    while (*p == ' ')
      p++;
    if (!g_ascii_isdigit (*p))
      return FALSE;
    s = g_ascii_strtod (p, &end);
    if (end == p)
      return FALSE;
    while (*end == ' ')
      end++;
    if (*end != '\0')
      return FALSE;
  }

  if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
      !(s >= 0 && s < 61))
    return FALSE;

  *us = ((days_from_civil (y, mo, d) * 24 + h) * 60 + mi) * 60 * G_GINT64_CONSTANT (1000000) +
        (gint64) llround (s * 1e6);
  return TRUE;
}

/* The index of the series of the GPU @key (@length bytes, at most 127). */
static int
gpu_series (HrMeasureParser *self,
            const char      *key,
            guint            length,
            const char      *gpu_name,
            guint            gpu_name_length)
{
  gpointer value;
  g_autofree char *name = NULL;
  char text[128];
  int index;

  g_assert (length < sizeof text);

  if (length == 1 && (guint) ((guchar) key[0] - '0') < 10 &&
      self->gpu_by_digit[key[0] - '0'] > 0)
    return self->gpu_by_digit[key[0] - '0'] - 1;

  for (guint i = 0; i < self->n_gpu_cache; i++)
    {
      if (self->gpu_cache[i].length == length &&
          (length == 1 ? self->gpu_cache[i].key[0] == key[0]
                       : memcmp (self->gpu_cache[i].key, key, length) == 0))
        return self->gpu_cache[i].index;
    }

  memcpy (text, key, length);
  text[length] = '\0';
  if (g_hash_table_lookup_extended (self->gpu_series, text, NULL, &value))
    return GPOINTER_TO_INT (value) - 1;

  if (self->result->series->len >= HR_MEASURE_MAX_SERIES)
    {
      fail (self, HR_ERROR_TOO_LARGE, 0,
            _("more than %u GPUs (distinct values of the GPU column); Headroom reads at most "
              "that many series from one file"), HR_MEASURE_MAX_SERIES);
      return -1;
    }

  if (gpu_name != NULL)
    {
      /* A GPU's name is a few words; what is longer is cut, at a
       * character's start (the line is UTF-8). */
      gboolean cut = gpu_name_length > HR_MEASURE_MAX_NAME;

      if (cut)
        gpu_name_length = g_utf8_find_prev_char (gpu_name, gpu_name + HR_MEASURE_MAX_NAME + 1) -
                          gpu_name;
      name = g_strdup_printf ("GPU %s (%.*s%s)", text, (int) gpu_name_length, gpu_name,
                              cut ? "…" : "");
    }
  else
    name = g_strdup_printf ("GPU %s", text);
  index = add_series (self, name, HR_METRIC_DEVICE_USED);
  g_hash_table_insert (self->gpu_series, g_strdup (text), GINT_TO_POINTER (index + 1));
  if (self->n_gpu_cache < G_N_ELEMENTS (self->gpu_cache))
    {
      memcpy (self->gpu_cache[self->n_gpu_cache].key, key, length);
      self->gpu_cache[self->n_gpu_cache].length = length;
      self->gpu_cache[self->n_gpu_cache].index = index;
      self->n_gpu_cache++;
    }
  if (length == 1 && (guint) ((guchar) key[0] - '0') < 10)
    self->gpu_by_digit[key[0] - '0'] = index + 1;
  return index;
}

/* What a row says of where its values are: its micro-batch, sequence
 * length and time (NAN where it has none), whether it ran out of memory,
 * and the fields naming its GPU and module. */
typedef struct {
  double       batch;
  double       seq;
  double       t;
  gboolean     oom;
  const Field *gpu_key;
  const Field *gpu_name;
  const Field *module;
} RowCoordinates;

/* The row has as many fields as the header, and is not one too many. */
static gboolean
check_row (HrMeasureParser *self)
{
  guint n_columns = self->columns->len;

  if (self->fields->len != n_columns)
    {
      /* A trailing delimiter makes one empty field more: allowed. */
      if (!(self->fields->len == n_columns + 1 &&
            g_array_index (self->fields, Field, n_columns).length == 0))
        return fail (self, HR_ERROR_PARSE,
                     g_array_index (self->fields, Field,
                                    self->fields->len > n_columns ? n_columns
                                                                  : self->fields->len - 1).column,
                     _("%u fields, but the header on line %u has %u"), self->fields->len,
                     self->header_line, n_columns);
    }

  if (++self->result->rows > self->max_rows)
    return fail (self, HR_ERROR_TOO_LARGE, 0,
                 _("more than %u data rows; Headroom reads at most that many from one file (keep "
                   "every n-th row, or split the file)"),
                 self->max_rows);
  return TRUE;
}

/* A batch-size or sequence-length field into *@batch or *@seq. */
static gboolean
read_count (HrMeasureParser *self,
            const Column    *c,
            const Field     *f,
            double          *batch,
            double          *seq)
{
  HrMeasureUnit unit;
  double v;

  if (IS_MISSING (f->text, f->length))
    {
      if (c->role == ROLE_BATCH)
        return fail (self, HR_ERROR_INVALID, f->column, _("column \"%s\": no batch size"),
                     c->name);
      return TRUE;
    }
  if (!parse_number (self, f, c->name, &v, &unit))
    return FALSE;
  if (!hr_measure_is_count (v) || unit != HR_MEASURE_UNIT_NONE)
    return fail (self, HR_ERROR_INVALID, f->column,
                 c->role == ROLE_BATCH
                   ? _("column \"%s\": %.*s is not a batch size (a whole number from 1 "
                       "to 10^9)")
                   : _("column \"%s\": %.*s is not a sequence length (a whole number "
                       "from 1 to 10^9)"), c->name, (int) MIN (f->length, 40), f->text);
  if (c->role == ROLE_BATCH)
    *batch = v;
  else
    *seq = v;
  return TRUE;
}

/* A time or step field into *@t, counted from the file's first. */
static gboolean
read_time (HrMeasureParser *self,
           const Column    *c,
           const Field     *f,
           double          *t)
{
  HrMeasureUnit unit;
  double v;

  if (IS_MISSING (f->text, f->length))
    return TRUE;
  if (self->time_is_timestamp)
    {
      gint64 us;

      if (!parse_timestamp (self, f, &us))
        return fail (self, HR_ERROR_INVALID, f->column,
                     _("column \"%s\": \"%.*s\" is not a timestamp like 2024/05/14 "
                       "10:31:02.123"), c->name,
                     (int) MIN (f->length, 40), f->text);
      if (!self->has_t0)
        {
          self->has_t0 = TRUE;
          self->t0_us = us;
        }
      /* whole microseconds, so that 2.056 s is the double nearest it */
      *t = (double) (us - self->t0_us) / 1e6;
      return TRUE;
    }
  if (!parse_number (self, f, c->name, &v, &unit))
    return FALSE;
  if (!(fabs (v) <= HR_MEASURE_MAX_TIME) || unit != HR_MEASURE_UNIT_NONE)
    return fail (self, HR_ERROR_INVALID, f->column,
                 c->role == ROLE_STEP
                   ? _("column \"%s\": %.*s is not a step (a number of at most 10^15)")
                   : _("column \"%s\": %.*s is not a time (a number of seconds of at "
                       "most 10^15)"), c->name, (int) MIN (f->length, 40), f->text);
  if (!self->has_t0)
    {
      self->has_t0 = TRUE;
      self->t0 = v;
    }
  *t = v - self->t0;
  return TRUE;
}

/* The row's coordinates, read before its values. */
static gboolean
read_coordinates (HrMeasureParser *self,
                  RowCoordinates  *row)
{
  for (guint k = 0; k < self->n_coordinates; k++)
    {
      guint i = g_array_index (self->read_columns, guint, k);
      const Column *c = &g_array_index (self->columns, Column, i);
      const Field *f = &g_array_index (self->fields, Field, i);

      switch (c->role)
        {
        case ROLE_BATCH:
        case ROLE_SEQ:
          if (!read_count (self, c, f, &row->batch, &row->seq))
            return FALSE;
          break;

        case ROLE_TIME:
        case ROLE_STEP:
          if (!read_time (self, c, f, &row->t))
            return FALSE;
          break;

        case ROLE_STATUS:
          if (f->length == 3 && g_ascii_strncasecmp (f->text, "oom", 3) == 0)
            row->oom = TRUE;
          else if (!(f->length == 0 || (f->length == 2 && g_ascii_strncasecmp (f->text, "ok",
                                                                                2) == 0)))
            return fail (self, HR_ERROR_INVALID, f->column,
                         _("column \"%s\": \"%.*s\"; expected ok or oom"),
                         c->name, (int) MIN (f->length, 40), f->text);
          break;

        case ROLE_GPU_INDEX:
          row->gpu_key = f;
          break;

        case ROLE_GPU_NAME:
          row->gpu_name = f;
          break;

        case ROLE_MODULE:
          row->module = f;
          break;

        case ROLE_NONE:
        case ROLE_MEMORY:
        default:
          break;
        }
    }
  return TRUE;
}

/* The row's memory values, each a point of its series. */
static gboolean
read_values (HrMeasureParser      *self,
             const RowCoordinates *row)
{
  for (guint k = self->n_coordinates; k < self->read_columns->len; k++)
    {
      guint i = g_array_index (self->read_columns, guint, k);
      const Column *c = &g_array_index (self->columns, Column, i);
      const Field *f = &g_array_index (self->fields, Field, i);
      HrMeasureSeries *series;
      HrMeasurePoint point;
      HrMeasureUnit unit;
      int index;
      double v;

      if (c->trace != HR_TRACE_FIELD_NONE)
        index = c->series;
      else if (c->series >= 0)
        index = c->series;
      else
        index = gpu_series (self, row->gpu_key != NULL ? row->gpu_key->text : "0",
                            row->gpu_key != NULL ? MIN (row->gpu_key->length, 127) : 1,
                            row->gpu_name != NULL ? row->gpu_name->text : NULL,
                            row->gpu_name != NULL ? row->gpu_name->length : 0);
      if (index < 0 && c->trace == HR_TRACE_FIELD_NONE)
        return FALSE;
      series = index >= 0 ? g_ptr_array_index (self->result->series, index) : NULL;

      if (row->oom && series != NULL)
        {
          if (!isnan (row->batch) && (series->oom_batch == 0 || row->batch < series->oom_batch))
            series->oom_batch = (guint) row->batch;
          continue;
        }

      if (IS_MISSING (f->text, f->length))
        {
          /* a trace's module rows give their saved bytes alone */
          if (c->trace == HR_TRACE_FIELD_NONE)
            self->result->missing++;
          continue;
        }

      if (!parse_number (self, f, c->name, &v, &unit))
        return FALSE;
      if (unit == HR_MEASURE_UNIT_NONE)
        unit = c->unit;
      v *= unit_bytes[unit];
      if (!(v >= 0 && v < HR_MEASURE_MAX_BYTES))
        return fail (self, HR_ERROR_INVALID, f->column,
                     _("column \"%s\": %.*s is not a memory size (0 to 10 PB)"),
                     c->name, (int) MIN (f->length, 40), f->text);

      if (c->trace != HR_TRACE_FIELD_NONE)
        {
          gboolean total = row->module == NULL || row->module->length == 0 ||
                           (row->module->length == 5 &&
                            g_ascii_strncasecmp (row->module->text, "total", 5) == 0);

          hr_trace_take (self->result->trace, self->line, row->batch, row->seq,
                         row->module != NULL ? row->module->text : NULL,
                         row->module != NULL ? row->module->length : 0,
                         c->trace, v);
          /* a module's share is not a point of the step's series */
          if (series == NULL || !total)
            continue;
        }

      point.batch = row->batch;
      point.seq_len = row->seq;
      point.t = row->t;
      if (self->result->format == HR_MEASURE_FORMAT_NVIDIA_SMI && !self->time_is_timestamp)
        point.t = series->n_points;
      point.bytes = v;
      point.line = self->line;
      add_point (self, index, &point);
    }
  return TRUE;
}

/* @split: split_fast has put the line's fields in self->fields already. */
static gboolean
read_row (HrMeasureParser *self,
          char            *line,
          gsize            length,
          gboolean         split)
{
  RowCoordinates row = { NAN, NAN, NAN, FALSE, NULL, NULL, NULL };

  if (!split && !split_fields (self, line, length))
    return FALSE;
  if (!check_row (self))
    return FALSE;

  prepare_columns (self);

  /* First the row's coordinates, then its values. */
  return read_coordinates (self, &row) && read_values (self, &row);
}

/* "# key: value" before the header: a probe's configuration. */
static void
read_comment (HrMeasureParser *self,
              const char      *line)
{
  const char *colon;
  g_autofree char *key = NULL;
  g_autofree char *value = NULL;

  if (self->have_header)
    return;

  line++;
  colon = strchr (line, ':');
  if (colon == NULL)
    return;

  /* A probe writes a few dozen; a file of a million is bounded here.  A
   * key is one word, so a long one is no key. */
  if (colon - line > HR_MEASURE_MAX_CONFIG_TEXT)
    return;
  if (self->result->config_keys->len >= HR_MEASURE_MAX_CONFIG_KEYS)
    {
      if (!self->config_keys_dropped)
        note (self, _("more than %u \"# key: value\" lines: those from line %u on are not "
                      "read"), HR_MEASURE_MAX_CONFIG_KEYS, self->line);
      self->config_keys_dropped = TRUE;
      return;
    }

  key = g_strstrip (g_strndup (line, colon - line));
  if (key[0] == '\0' || strchr (key, ' ') != NULL)
    return;
  value = g_strstrip (g_strdup (colon + 1));
  if (strlen (value) > HR_MEASURE_MAX_CONFIG_TEXT)
    {
      /* the line is UTF-8: cut at a character's start */
      char *cut = g_utf8_find_prev_char (value, value + HR_MEASURE_MAX_CONFIG_TEXT - 2);

      strcpy (cut, "…");
    }

  g_ptr_array_add (self->result->config_keys, g_steal_pointer (&key));
  g_ptr_array_add (self->result->config_values, g_steal_pointer (&value));
}

/* Whether a first line starts a JSON document, "{\"key\"…" or "[{…",
 * "[[…", "[1…": one that names the Trainer's metrics is still JSON, while
 * a log's "[2024-05-14 …", "[INFO|trainer.py:…]" or a printed Python dict
 * "{'loss': …}" are not. */
static gboolean
looks_like_json (const char *first)
{
  const char *next = first + 1;

  if (*first != '{' && *first != '[')
    return FALSE;
  while (*next == ' ' || *next == '\t')
    next++;
  if (*next == '\0')
    return TRUE;
  if (*first == '{')
    return *next == '"' || *next == '}';
  if (g_ascii_isdigit (next[0]) && g_ascii_isdigit (next[1]) && g_ascii_isdigit (next[2]) &&
      g_ascii_isdigit (next[3]) && next[4] == '-')
    return FALSE;
  return (*next != '\0' && strchr ("{[\"-]tfn", *next) != NULL) || g_ascii_isdigit (*next);
}

static gboolean
read_line (HrMeasureParser *self,
           char            *line,
           gsize            length)
{
  const char *first;

  self->line++;

  if (!self->started && length >= 2 && (guchar) line[0] == 0xff && (guchar) line[1] == 0xfe)
    return fail (self, HR_ERROR_BINARY, 0, _("UTF-16 text; save the file as UTF-8"));

  if (memchr (line, '\0', length) != NULL)
    return fail (self, HR_ERROR_BINARY, 0, _("not a text file (a NUL byte); Headroom reads CSV "
                                             "and JSON measurement files"));

  if (length > 0 && line[length - 1] == '\r')
    line[--length] = '\0';

  if (!self->started)
    {
      self->started = TRUE;
      if (length >= 3 && memcmp (line, "\xef\xbb\xbf", 3) == 0)
        {
          line += 3;
          length -= 3;
        }
    }

  if (self->is_json)
    {
      g_string_append_len (self->json, line, length);
      g_string_append_c (self->json, '\n');
      if (self->json->len > HR_MEASURE_MAX_JSON_SIZE)
        return fail (self, HR_ERROR_TOO_LARGE, 0, _("a memory_stats() dump larger than %d MiB"),
                     HR_MEASURE_MAX_JSON_SIZE >> 20);
      return TRUE;
    }

  if (!g_utf8_validate (line, length, &first))
    return fail (self, HR_ERROR_BINARY, first - line + 1, _("not UTF-8 text"));

  /* Blank, comment and log lines count too: as many of them as data rows
   * may be read, so that a file of blank lines is refused as soon as one
   * of data rows would be (1 GiB of them took 25 s, and no limit). */
  if (self->line - MIN (self->line, self->result->rows) > (guint64) self->max_rows + 1)
    return fail (self, HR_ERROR_TOO_LARGE, 0,
                 _("more than %u lines that are not data rows (blank, comment or log lines); "
                   "Headroom reads at most that many from one file"),
                 self->max_rows);

  if (is_blank (line, length))
    return TRUE;

  first = line;
  while (*first == ' ' || *first == '\t')
    first++;

  if (*first == '#')
    {
      read_comment (self, first);
      return TRUE;
    }

  if (self->log != NULL)
    {
      return hr_measure_log_scan_line (self->log, self, line, self->line);
    }

  if (!self->have_header)
    {
      /* A log whose first line is one Headroom knows, or a timestamped
       * "[2024-05-14 10:31:02,123] [INFO] ..." line, which is no JSON. */
      if (!looks_like_json (first) && hr_measure_log_line_is_known (first) &&
          self->options.batch_column == NULL &&
          self->options.memory_column == NULL && !self->options.no_header)
        {
          self->log = hr_measure_log_scan_new ();
          self->have_header = TRUE;
          self->header_line = self->line;
          return hr_measure_log_scan_line (self->log, self, line, self->line);
        }
      /* torch.profiler's export_memory_timeline("….html") writes a page
       * holding a PNG and nothing else (_memory_profiler.py,
       * export_memory_timeline_html): there is nothing to read in it. */
      if (g_ascii_strncasecmp (first, "<html", 5) == 0 ||
          g_ascii_strncasecmp (first, "<!doctype html", 14) == 0)
        return fail (self, HR_ERROR_INVALID, first - line + 1,
                     _("an HTML page; torch.profiler's memory timeline as HTML holds only "
                       "a picture: export it as JSON instead "
                       "(prof.export_memory_timeline(\"timeline.json\")), which Headroom "
                       "reads"));
      if (looks_like_json (first))
        {
          self->is_json = TRUE;
          self->json = g_string_new (NULL);
          /* Keep the line numbers of the JSON parser's messages right. */
          for (guint i = 1; i < self->line; i++)
            g_string_append_c (self->json, '\n');
          g_string_append_len (self->json, line, length);
          g_string_append_c (self->json, '\n');
          return TRUE;
        }

      if (!read_header (self, line, length))
        return FALSE;
      if (!self->options.no_header)
        return TRUE;
    }

  return read_row (self, line, length, FALSE);
}

gboolean
hr_measure_parser_feed (HrMeasureParser  *self,
                        const char       *data,
                        gsize             length,
                        GError          **error)
{
  const char *p = data, *end = data + length;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->error != NULL)
    goto failed;

  /* A memory snapshot is a pickle, whose first byte (PROTO, 0x80) no
   * text file starts with: it is kept whole and read at the end. */
  if (self->is_pickle || (!self->started && self->line == 0 && self->pending->len == 0 &&
                          length > 0 && (guchar) data[0] == 0x80))
    {
      if (self->pickle == NULL)
        {
          self->is_pickle = TRUE;
          self->pickle = g_byte_array_new ();
        }
      if (length > HR_SNAPSHOT_MAX_FILE_SIZE - self->pickle->len)
        {
          fail (self, HR_ERROR_TOO_LARGE, 0,
                _("a memory snapshot larger than %u MiB; record fewer entries "
                  "(_record_memory_history(max_entries=…))"),
                (guint) (HR_SNAPSHOT_MAX_FILE_SIZE >> 20));
          goto failed;
        }
      g_byte_array_append (self->pickle, (const guint8 *) data, length);
      return TRUE;
    }

  /* Every check is made line by line, in file order, so that the message
   * does not depend on where the chunks are cut. */
  while (p < end)
    {
      const char *nl;

      /* A data row that is whole in this chunk, plain ASCII without a
       * quote, and neither blank nor a comment is split where it lies,
       * as its newline is looked for: it is what a long log is made of.
       * Any other line takes the way below, which checks everything. */
      if (self->pending->len == 0 && self->have_header && !self->is_json && self->log == NULL &&
          self->started && self->delimiter != ' ')
        {
          /* (rows change none of the above) */
          while (p < end && *p != ' ' && *p != '\t' && *p != '#' && *p != '\r' && *p != '\n' &&
                 (nl = split_fast (self, p, end)) != NULL)
            {
              gsize line_length = nl - p;

              if (p[line_length - 1] == '\r')
                line_length--;
              self->line++;
              if (!read_row (self, (char *) p, line_length, TRUE))
                goto failed;
              p = nl + 1;
            }
          if (p == end)
            break;
        }

      nl = memchr (p, '\n', end - p);

      if (self->pending->len + ((nl != NULL ? nl : end) - p) > MAX_LINE)
        {
          self->line++;
          fail (self, HR_ERROR_PARSE, 0, _("a line longer than 1 MiB; is this a text file?"));
          goto failed;
        }

      if (nl == NULL)
        {
          g_string_append_len (self->pending, p, end - p);
          break;
        }

      g_string_append_len (self->pending, p, nl - p);
      if (!read_line (self, self->pending->str, self->pending->len))
        goto failed;
      g_string_truncate (self->pending, 0);
      p = nl + 1;
    }

  return TRUE;

failed:
  if (error != NULL)
    *error = g_error_copy (self->error);
  return FALSE;
}

/* @key of @object (or of the nested dicts its dots name) into @value,
 * left as it is when there is none: a number of bytes (0 to
 * HR_MEASURE_MAX_BYTES), or with @count a whole number from 1 to
 * HR_MEASURE_MAX_COUNT. */
static gboolean
json_number (HrJsonDoc   *doc,
             JsonObject  *object,
             const char  *pointer,
             const char  *key,
             gboolean     count,
             double      *value,
             GError     **error)
{
  double v;

  JsonNode *node = json_object_get_member (object, key);
  g_autofree char *child = NULL;

  /* torch.cuda.memory_stats_as_nested_dict(): "allocated_bytes.all.peak"
   * is {"allocated_bytes": {"all": {"peak": N}}} */
  if (node == NULL && strchr (key, '.') != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (key, ".", 0);
      g_autofree char *path = g_strdup (pointer);
      JsonObject *at = object;

      for (guint i = 0; parts[i] != NULL && at != NULL; i++)
        {
          JsonNode *next = json_object_get_member (at, parts[i]);
          char *longer = hr_json_pointer_append (path, parts[i]);

          g_free (path);
          path = longer;
          if (parts[i + 1] == NULL)
            {
              node = next;
              child = g_steal_pointer (&path);
            }
          else
            at = next != NULL && JSON_NODE_HOLDS_OBJECT (next) ? json_node_get_object (next)
                                                               : NULL;
        }
    }
  if (node == NULL)
    return TRUE;

  if (child == NULL)
    child = hr_json_pointer_append (pointer, key);
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_INT64 &&
       json_node_get_value_type (node) != G_TYPE_DOUBLE))
    v = NAN;
  else
    v = json_node_get_double (node);
  if (count && !hr_measure_is_count (v))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, child, FALSE,
                         _("\"%s\" must be a whole number from 1 to 10^9"), key);
      return FALSE;
    }
  if (!count && !(v >= 0 && v < HR_MEASURE_MAX_BYTES))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, child, FALSE,
                         _("\"%s\" must be a number of bytes (0 to 10 PB)"), key);
      return FALSE;
    }

  *value = v;
  return TRUE;
}

/* One memory_stats() dump: a flat object of PyTorch's or JAX's keys, or
 * {"micro_batch": 8, "seq_len": 512, "memory_stats": {...}}. */
static gboolean
read_stats_object (HrMeasureParser *self,
                   HrJsonDoc       *doc,
                   JsonNode        *node,
                   const char      *pointer,
                   guint            index,
                   GError         **error)
{
  static const struct {
    const char *key;
    HrMetric    metric;
    HrMeasureFormat format;
  } keys[] = {
    { "allocated_bytes.all.peak", HR_METRIC_ALLOCATED, HR_MEASURE_FORMAT_TORCH_STATS },
    { "reserved_bytes.all.peak", HR_METRIC_RESERVED, HR_MEASURE_FORMAT_TORCH_STATS },
    { "peak_bytes_in_use", HR_METRIC_ALLOCATED, HR_MEASURE_FORMAT_JAX_STATS },
    { "peak_pool_bytes", HR_METRIC_RESERVED, HR_MEASURE_FORMAT_JAX_STATS },
  };
  JsonObject *object;
  JsonObject *stats;
  g_autofree char *stats_pointer = NULL;
  double batch = NAN, seq = NAN;
  gboolean found = FALSE;
  guint line = 0, column = 0;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                         _("a memory_stats() dump must be a JSON object"));
      return FALSE;
    }

  object = stats = json_node_get_object (node);
  stats_pointer = g_strdup (pointer);

  if (json_object_has_member (object, "memory_stats"))
    {
      JsonNode *inner = json_object_get_member (object, "memory_stats");

      g_free (stats_pointer);
      stats_pointer = hr_json_pointer_append (pointer, "memory_stats");
      if (!JSON_NODE_HOLDS_OBJECT (inner))
        {
          hr_json_doc_error (doc, error, HR_ERROR_INVALID, stats_pointer, FALSE,
                             _("\"memory_stats\" must be a JSON object"));
          return FALSE;
        }
      stats = json_node_get_object (inner);
    }

  if (!json_number (doc, object, pointer, "micro_batch", TRUE, &batch, error) ||
      !json_number (doc, object, pointer, "seq_len", TRUE, &seq, error))
    return FALSE;

  hr_json_doc_get_position (doc, pointer, FALSE, &line, &column);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      double v = NAN;
      HrMeasureSeries *series;
      HrMeasurePoint point;
      int series_number;

      if (!json_number (doc, stats, stats_pointer, keys[i].key, FALSE, &v, error))
        return FALSE;
      if (isnan (v))
        continue;

      if (found && self->result->format != keys[i].format)
        continue;
      found = TRUE;
      self->result->format = keys[i].format;

      series = hr_measurement_find_series (self->result, keys[i].metric);
      series_number = series != NULL ? series_index (self, series)
                                     : add_series (self, keys[i].key, keys[i].metric);
      point.batch = batch;
      point.seq_len = seq;
      point.t = NAN;
      point.bytes = v;
      point.line = line;
      add_point (self, series_number, &point);
    }

  if (!found)
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, stats_pointer, FALSE,
                         _("a memory_stats() dump needs \"allocated_bytes.all.peak\" (PyTorch) or "
                           "\"peak_bytes_in_use\" (JAX)"));
      return FALSE;
    }

  if (self->result->format == HR_MEASURE_FORMAT_JAX_STATS && index == 0 &&
      json_object_has_member (stats, "bytes_limit"))
    {
      double limit = 0;

      if (!json_number (doc, stats, stats_pointer, "bytes_limit", FALSE, &limit, error))
        return FALSE;
      note (self, _("XLA's pool limit (bytes_limit) is %.2f GB: with preallocation on, "
                    "nvidia-smi shows about that much whatever the model needs"), limit / 1e9);
    }

  self->result->rows++;
  return TRUE;
}

static gboolean
read_json (HrMeasureParser  *self,
           GError          **error)
{
  g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data (self->name, self->json->str, self->json->len,
                                                    error);
  JsonNode *root;

  if (doc == NULL)
    return FALSE;

  root = hr_json_doc_get_root (doc);
  {
    gboolean recognised = FALSE;

    if (!hr_measure_read_profiler_timeline (self, doc, root, &recognised, error))
      return FALSE;
    if (!recognised && !hr_measure_read_hf_trainer_json (self, doc, root, &recognised, error))
      return FALSE;
    if (recognised)
      return TRUE;
  }
  if (JSON_NODE_HOLDS_ARRAY (root))
    {
      JsonArray *array = json_node_get_array (root);

      if (json_array_get_length (array) == 0)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("%s:1:1: an empty list of memory_stats() dumps"), self->shown_name);
          return FALSE;
        }

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_autofree char *pointer = hr_json_pointer_append_index ("", i);

          if (!read_stats_object (self, doc, json_array_get_element (array, i), pointer, i,
                                  error))
            return FALSE;
        }
      return TRUE;
    }

  return read_stats_object (self, doc, root, "", 0, error);
}

static int
compare_metric (gconstpointer a,
                gconstpointer b)
{
  const HrMeasureSeries *sa = *(HrMeasureSeries * const *) a;
  const HrMeasureSeries *sb = *(HrMeasureSeries * const *) b;

  return (int) sa->metric - (int) sb->metric;
}

HrMeasurement *
hr_measure_parser_finish (HrMeasureParser  *self,
                          GError          **error)
{
  HrMeasurement *result;
  gboolean any = FALSE;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->error == NULL && self->pending->len > 0)
    {
      /* With its NUL: a NUL byte in the last line is found there too. */
      gsize length = self->pending->len;
      g_autofree char *last = g_memdup2 (self->pending->str, length + 1);

      g_string_truncate (self->pending, 0);
      read_line (self, last, length);
    }

  if (self->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      return NULL;
    }

  if (self->is_pickle)
    {
      if (!hr_measurement_read_snapshot (self->result, self->shown_name, self->pickle->data,
                                         self->pickle->len, &self->options, error))
        return NULL;
      g_clear_pointer (&self->pickle, g_byte_array_unref);
      result = g_steal_pointer (&self->result);
      self->result = hr_measurement_new (self->name);
      return result;
    }

  if (self->log != NULL)
    {
      if (!hr_measure_log_scan_finish (self->log, self))
        {
          if (self->log_error != NULL)
            g_propagate_error (error, g_steal_pointer (&self->log_error));
          else
            g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                         _("%s: no measurements: no line of torch.cuda.memory_summary(), "
                           "DeepSpeed's see_memory_usage() or the Trainer's memory metrics"),
                         self->shown_name);
          return NULL;
        }
    }
  else if (self->is_json)
    {
      if (!read_json (self, error))
        return NULL;
    }
  else if (!self->have_header)
    {
      if (self->line > 0)
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                     _("%s: no measurements: the file is empty but for blank and comment lines"),
                     self->shown_name);
      else
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("%s: no measurements: the file is empty"),
                     self->shown_name);
      return NULL;
    }

  flush_thinners (self);

  for (guint i = self->result->series->len; i > 0; i--)
    {
      HrMeasureSeries *s = g_ptr_array_index (self->result->series, i - 1);

      if (s->n_points > 0)
        any = TRUE;
      else if (s->oom_batch == 0)
        g_ptr_array_remove_index (self->result->series, i - 1);
    }

  if (!any)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: no measurements: %u data rows, and every memory value is missing"),
                   self->shown_name, self->result->rows);
      return NULL;
    }

  /* Probe and memory_stats() series in the order allocated, reserved,
   * device used; GPUs in the order the file first names them. */
  if (self->result->format != HR_MEASURE_FORMAT_NVIDIA_SMI &&
      self->result->format != HR_MEASURE_FORMAT_WANDB)
    g_ptr_array_sort (self->result->series, compare_metric);

  if (self->result->missing > 0)
    note (self, _("%u values were missing (empty, [N/A] or [Not Supported]) and are left out"),
          self->result->missing);

  result = g_steal_pointer (&self->result);
  self->result = hr_measurement_new (self->name);
  return result;
}

HrMeasurement *
hr_measurement_parse_data (const char             *display_name,
                           const char             *data,
                           gsize                   length,
                           const HrMeasureOptions *options,
                           GError                **error)
{
  g_autoptr(HrMeasureParser) parser = hr_measure_parser_new (display_name, options);

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (!hr_measure_parser_feed (parser, data, length, error))
    return NULL;
  return hr_measure_parser_finish (parser, error);
}

void
hr_measure_csv_head_free (HrMeasureCsvHead *head)
{
  if (head == NULL)
    return;
  g_free (head->header);
  g_ptr_array_unref (head->columns);
  g_array_unref (head->column_units);
  g_ptr_array_unref (head->rows);
  g_array_unref (head->row_lines);
  g_clear_pointer (&head->measurement, hr_measurement_free);
  g_clear_error (&head->error);
  g_free (head);
}

/* The fields self->fields holds, as strings. */
static GStrv
copy_fields (HrMeasureParser *self)
{
  GStrv fields = g_new0 (char *, self->fields->len + 1);

  for (guint i = 0; i < self->fields->len; i++)
    {
      const Field *f = &g_array_index (self->fields, Field, i);

      fields[i] = g_strndup (f->text, f->length);
    }
  return fields;
}

HrMeasureCsvHead *
hr_measure_csv_head_read (const char             *display_name,
                          const char             *data,
                          gsize                   length,
                          gboolean                complete,
                          const HrMeasureOptions *options,
                          guint                   max_rows)
{
  HrMeasureCsvHead *head = g_new0 (HrMeasureCsvHead, 1);
  g_autoptr(HrMeasureParser) parser = hr_measure_parser_new (display_name, options);
  const char *p = data, *end;
  gsize read_length = length;

  g_return_val_if_fail (data != NULL || length == 0, head);

  head->columns = g_ptr_array_new_with_free_func (g_free);
  head->column_units = g_array_new (FALSE, FALSE, sizeof (HrMeasureUnit));
  head->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  head->row_lines = g_array_new (FALSE, FALSE, sizeof (guint));
  head->batch_column = head->memory_column = head->seq_column = -1;
  head->delimiter_detected = options == NULL || options->delimiter == 0;

  /* a line the head cuts short is no line of the file */
  if (!complete)
    {
      while (read_length > 0 && data[read_length - 1] != '\n')
        read_length--;
    }
  end = data + read_length;

  /* The header, as the reader takes it: the first line that is not
   * blank or a comment (past a byte-order mark). */
  while (p < end && !parser->have_header && !parser->is_json)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize n = (nl != NULL ? nl : end) - p;
      g_autofree char *line = NULL;
      gboolean ok;

      /* a pickle, or no text file */
      if ((p == data && (guchar) p[0] == 0x80) || n > MAX_LINE)
        break;
      line = g_strndup (p, n);
      ok = read_line (parser, line, n);
      if (parser->have_header && !parser->is_json &&
          (parser->log == NULL || parser->log_error != NULL))
        {
          g_autofree char *text = g_strndup (p, n);

          if (n > 0 && text[n - 1] == '\r')
            text[n - 1] = '\0';
          head->header = g_strdup (g_str_has_prefix (text, "\xef\xbb\xbf") ? text + 3 : text);
          head->header_line = parser->header_line;
          /* with no header, the line is the first row, split below */
          if (parser->options.no_header)
            {
              g_clear_pointer (&head->header, g_free);
              parser->line--;
              break;
            }
        }
      p = nl != NULL ? nl + 1 : end;
      if (!ok)
        break;
    }

  head->format = parser->result->format;
  head->is_csv = parser->have_header && !parser->is_json && !parser->is_pickle &&
                 (parser->log == NULL || parser->log_error != NULL) && parser->columns->len > 0;
  /* the header was a CSV no format recognises, and the options did not
   * say enough to read it */
  head->needs_mapping = head->is_csv && parser->log_error != NULL;
  if (parser->options.no_header || parser->options.batch_column != NULL ||
      parser->options.memory_column != NULL)
    head->needs_mapping = head->is_csv && parser->error != NULL &&
                          parser->header_line == parser->line;
  if (!head->is_csv)
    g_clear_pointer (&head->header, g_free);
  head->delimiter = parser->delimiter;

  for (guint i = 0; head->is_csv && i < parser->columns->len; i++)
    {
      const Column *c = &g_array_index (parser->columns, Column, i);

      g_ptr_array_add (head->columns, g_strdup (c->name));
      g_array_append_val (head->column_units, c->unit);
      if (c->role == ROLE_BATCH && head->batch_column < 0)
        head->batch_column = i;
      else if (c->role == ROLE_MEMORY && head->memory_column < 0)
        head->memory_column = i;
      else if (c->role == ROLE_SEQ && head->seq_column < 0)
        head->seq_column = i;
    }

  /* the rows, split as the reader splits them */
  while (head->is_csv && p < end && head->rows->len < max_rows)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize n = (nl != NULL ? nl : end) - p;
      g_autofree char *line = g_strndup (p, MIN (n, MAX_LINE));

      parser->line++;
      p = nl != NULL ? nl + 1 : end;
      n = strlen (line);
      if (n > 0 && line[n - 1] == '\r')
        line[--n] = '\0';
      if (is_blank (line, n) || line[strspn (line, " \t")] == '#')
        continue;
      g_clear_error (&parser->error);
      if (!split_fields (parser, line, n))
        break;
      g_ptr_array_add (head->rows, copy_fields (parser));
      g_array_append_val (head->row_lines, parser->line);
    }

  head->measurement = hr_measurement_parse_data (display_name, data, read_length, options,
                                                 &head->error);
  return head;
}

/* The snapshot whose file @fd is open on (the regular file hr_file_open
 * opened, of @size bytes), mapped from that descriptor: the file is not
 * opened again, so that what was checked is what is read. */
static HrMeasurement *
load_snapshot_file (const char              *path,
                    int                      fd,
                    guint64                  size,
                    const char              *shown_name,
                    const HrMeasureOptions  *options,
                    GCancellable            *cancellable,
                    GError                 **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(HrMeasurement) m = NULL;
  HrMeasureOptions defaults = { 0 };

  if (size > HR_SNAPSHOT_MAX_FILE_SIZE)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                   _("%s: a memory snapshot larger than %u MiB; record fewer entries "
                     "(_record_memory_history(max_entries=…))"),
                   shown_name, (guint) (HR_SNAPSHOT_MAX_FILE_SIZE >> 20));
      return NULL;
    }

  mapped = g_mapped_file_new_from_fd (fd, FALSE, &local_error);
  if (mapped == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, "%s: %s", shown_name, local_error->message);
      return NULL;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  m = hr_measurement_new (path);
  if (!hr_measurement_read_snapshot_full (m, shown_name,
                                          (const guint8 *) g_mapped_file_get_contents (mapped),
                                          g_mapped_file_get_length (mapped), TRUE,
                                          options != NULL ? options : &defaults, error))
    return NULL;
  return g_steal_pointer (&m);
}

static HrMeasurement *
load_file (const char              *path,
           const HrMeasureOptions  *options,
           GCancellable            *cancellable,
           GError                 **error)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(HrMeasureParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *buffer = NULL;
  const gsize chunk = 1 << 20;
  guint64 size = 0;

  /* Opened as every file is (hr_file_open: a regular file, never waiting
   * on a pipe); a log is streamed, so its size is not bounded here but its
   * rows are, and a snapshot's below. */
  stream = hr_file_open (path, G_MAXUINT64, _("a measurement file"), &size, error);
  if (stream == NULL)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  parser = hr_measure_parser_new (path, options);
  buffer = g_malloc (chunk);

  for (gboolean first = TRUE;; first = FALSE)
    {
      gssize n = g_input_stream_read (stream, buffer, chunk, cancellable, &local_error);

      /* A memory snapshot is read from the file's pages where they lie,
       * not copied: it can be gigabytes.  (A file GIO opens, not a local
       * one, is fed to the parser as any other, which keeps it whole up
       * to the same bound.) */
      if (first && n > 0 && (guchar) buffer[0] == 0x80 && G_IS_UNIX_INPUT_STREAM (stream))
        return load_snapshot_file (path,
                                   g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (stream)),
                                   size, parser->shown_name, options, cancellable, error);

      if (n < 0)
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_set_error (error, HR_ERROR, HR_ERROR_IO, "%s: %s", path, local_error->message);
          return NULL;
        }
      if (n == 0)
        break;
      if (!hr_measure_parser_feed (parser, buffer, n, error))
        return NULL;
    }

  return hr_measure_parser_finish (parser, error);
}

HrMeasurement *
hr_measurement_load_file (const char             *path,
                          const HrMeasureOptions *options,
                          GError                **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  return load_file (path, options, NULL, error);
}

typedef struct {
  char             *path;
  HrMeasureOptions  options;
} LoadJob;

static void
load_job_free (gpointer data)
{
  LoadJob *job = data;

  g_free (job->path);
  hr_measure_options_clear (&job->options);
  g_free (job);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadJob *job = task_data;
  GError *error = NULL;
  HrMeasurement *measurement = load_file (job->path, &job->options, cancellable, &error);

  if (measurement == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, measurement, (GDestroyNotify) hr_measurement_free);
}

void
hr_measurement_load_file_async (const char             *path,
                                const HrMeasureOptions *options,
                                GCancellable           *cancellable,
                                GAsyncReadyCallback     callback,
                                gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;
  LoadJob *job;

  g_return_if_fail (path != NULL);

  job = g_new0 (LoadJob, 1);
  job->path = g_strdup (path);
  if (options != NULL)
    {
      job->options = *options;
      job->options.batch_column = g_strdup (options->batch_column);
      job->options.memory_column = g_strdup (options->memory_column);
      job->options.seq_column = g_strdup (options->seq_column);
    }

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hr_measurement_load_file_async);
  g_task_set_task_data (task, job, load_job_free);
  g_task_run_in_thread (task, load_thread);
}

HrMeasurement *
hr_measurement_load_file_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
