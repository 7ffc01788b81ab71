/* hr-measure-formats.c: torch.profiler memory timelines, Hugging Face Trainer
 * memory metrics, and the memory lines of torch.cuda.memory_summary() and
 * DeepSpeed's see_memory_usage() in a log
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-measure"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hr-measure-private.h"
#include "hr-snapshot.h"

#define GiB (1024.0 * 1024.0 * 1024.0)
#define MiB (1024.0 * 1024.0)

/* ------------------------------------------------------------------------
 * torch.profiler's export_memory_timeline
 *
 * torch/profiler/_memory_profiler.py (commit d3f26f0c97c1):
 * MemoryProfileTimeline.export_memory_timeline writes `[times, sizes]`,
 * sizes[i] being 0 and then the bytes of each category at times[i]
 * (_coalesce_timeline); export_memory_timeline_raw writes events
 * `[t, action, numbytes, category]` whose numbytes add up (negative for
 * DESTROY and the old version of INCREMENT_VERSION).  The categories are
 * indexed in the order of _CATEGORY_TO_COLORS: PARAMETER, OPTIMIZER_STATE,
 * INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, unknown.  The
 * times are nanoseconds from the profiler's clock until PyTorch 2.2 and
 * microseconds since (the conversion in _coalesce_timeline); an .html
 * export holds only a picture of the plot.
 * --------------------------------------------------------------------- */

#define N_CATEGORIES 8

static const HrSnapshotGroupId category_groups[N_CATEGORIES] = {
  HR_SNAPSHOT_GROUP_PARAMETERS,
  HR_SNAPSHOT_GROUP_OPTIMIZER_STATE,
  HR_SNAPSHOT_GROUP_INPUTS,
  HR_SNAPSHOT_GROUP_TEMPORARIES,
  HR_SNAPSHOT_GROUP_FORWARD,
  HR_SNAPSHOT_GROUP_PARAMETER_GRADIENTS,
  HR_SNAPSHOT_GROUP_BACKWARD,
  HR_SNAPSHOT_GROUP_OTHER,
};

static gboolean
json_is_number (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
         (json_node_get_value_type (node) == G_TYPE_INT64 ||
          json_node_get_value_type (node) == G_TYPE_DOUBLE);
}

/* An array of arrays of numbers (@width of them, or any when 0)? */
static gboolean
all_number_rows (JsonArray *rows,
                 guint      width)
{
  guint n = json_array_get_length (rows);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *row = json_array_get_element (rows, i);
      JsonArray *a;

      if (!JSON_NODE_HOLDS_ARRAY (row))
        return FALSE;
      a = json_node_get_array (row);
      if (width > 0 && json_array_get_length (a) != width)
        return FALSE;
      /* the first row stands for all in the recognition; all are checked
       * when they are read */
      for (guint j = 0; j < json_array_get_length (a) && i == 0; j++)
        if (!json_is_number (json_array_get_element (a, j)))
          return FALSE;
      if (i == 0 && width == 0 && json_array_get_length (a) == 0)
        return FALSE;
      break;
    }
  return n > 0;
}

typedef struct {
  HrMeasureParser *parser;
  HrJsonDoc       *doc;
  GError         **error;
  guint            series;
  gint64           t0;         /* the first time, exactly: nanoseconds pass 2^53 */
  double           t_scale;
  double           peak;
  double           peak_t;
  guint            peak_index;
  guint            n_points;
  double           at_peak[N_CATEGORIES];
  gboolean         any;
  gboolean         raw;        /* a list of events, not [times, sizes] */
} Timeline;

static gboolean
timeline_fail (Timeline   *tl,
               const char *pointer,
               const char *message)
{
  hr_json_doc_error (tl->doc, tl->error, HR_ERROR_INVALID, pointer, FALSE, "%s", message);
  return FALSE;
}

/* A time as the file writes it: an integer (exact), else a double. */
static gint64
time_value (JsonNode *node)
{
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node);
  return (gint64) CLAMP (json_node_get_double (node), -9e18, 9e18);
}

/* Whether @node is a time the profiler's clock could give: nanoseconds
 * since 1970 are 1.7·10^18 today, and a bound of 4·10^18 keeps the
 * difference of two times within a gint64. */
static gboolean
time_is_valid (JsonNode *node)
{
  const double max = 4e18;

  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node) <= (gint64) max && json_node_get_int (node) >= -(gint64) max;
  return fabs (json_node_get_double (node)) <= max;
}

static gboolean
timeline_point (Timeline     *tl,
                gint64        t,
                const double *sizes,
                guint         line,
                guint         index)
{
  double total = 0, seconds;

  for (guint c = 0; c < N_CATEGORIES; c++)
    total += MAX (sizes[c], 0);
  /* each size is below 10 PB, and so must be what they add up to */
  if (!(total < HR_MEASURE_MAX_BYTES))
    {
      g_autofree char *pointer = g_strdup_printf (tl->raw ? "/%u" : "/1/%u", index);

      return timeline_fail (tl, pointer, _("the categories add up to more than 10 PB"));
    }
  if (!tl->any)
    tl->t0 = t;
  /* the difference of two times of the same clock, exactly */
  seconds = (double) (t - tl->t0) * tl->t_scale;
  if (!tl->any || total > tl->peak)
    {
      tl->peak = total;
      tl->peak_t = seconds;
      tl->peak_index = tl->n_points;
      for (guint c = 0; c < N_CATEGORIES; c++)
        tl->at_peak[c] = MAX (sizes[c], 0);
    }
  tl->any = TRUE;
  tl->n_points++;
  hr_measure_parser_add_point (tl->parser, tl->series, seconds, total, line);
  return TRUE;
}

static double
time_scale (gint64 first)
{
  /* The profiler's clock is the wall clock's epoch: nanoseconds are past
   * 10^17 today, microseconds below it. */
  return first > G_GINT64_CONSTANT (100000000000000000) ||
         first < -G_GINT64_CONSTANT (100000000000000000) ? 1e-9 : 1e-6;
}

static gboolean
read_coalesced (Timeline  *tl,
                JsonArray *times,
                JsonArray *sizes)
{
  guint n = json_array_get_length (times);

  if (json_array_get_length (sizes) != n)
    return timeline_fail (tl, "/1", _("a memory timeline needs as many sizes as times"));
  if (n > 0 && json_is_number (json_array_get_element (times, 0)))
    tl->t_scale = time_scale (time_value (json_array_get_element (times, 0)));

  for (guint i = 0; i < n; i++)
    {
      JsonNode *t = json_array_get_element (times, i);
      JsonNode *row = json_array_get_element (sizes, i);
      double values[N_CATEGORIES] = { 0 };
      guint line = 0, column = 0;
      JsonArray *a;

      if (!json_is_number (t) || !time_is_valid (t))
        {
          g_autofree char *pointer = g_strdup_printf ("/0/%u", i);

          return timeline_fail (tl, pointer, _("a memory timeline's times must be numbers of "
                                               "microseconds or nanoseconds of at most "
                                               "4·10^18"));
        }
      if (!JSON_NODE_HOLDS_ARRAY (row) ||
          (json_array_get_length (json_node_get_array (row)) != N_CATEGORIES + 1 &&
           json_array_get_length (json_node_get_array (row)) != N_CATEGORIES))
        {
          g_autofree char *pointer = g_strdup_printf ("/1/%u", i);

          return timeline_fail (tl, pointer, _("each size of a memory timeline is a list of "
                                               "the bytes of its 8 categories"));
        }
      a = json_node_get_array (row);
      /* _coalesce_timeline puts a 0 first, for the plot's stacking */
      for (guint c = 0; c < N_CATEGORIES; c++)
        {
          JsonNode *v = json_array_get_element (a, json_array_get_length (a) - N_CATEGORIES + c);
          double bytes;

          if (!json_is_number (v) || !isfinite (bytes = json_node_get_double (v)) ||
              fabs (bytes) >= HR_MEASURE_MAX_BYTES)
            {
              g_autofree char *pointer = g_strdup_printf ("/1/%u/%u", i,
                                                          json_array_get_length (a) -
                                                          N_CATEGORIES + c);

              return timeline_fail (tl, pointer, _("a size must be a number of bytes"));
            }
          values[c] = bytes;
        }
      {
        g_autofree char *pointer = g_strdup_printf ("/1/%u", i);

        hr_json_doc_get_position (tl->doc, pointer, FALSE, &line, &column);
      }
      if (!timeline_point (tl, time_value (t), values, line, i))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_raw (Timeline  *tl,
          JsonArray *events)
{
  double running[N_CATEGORIES] = { 0 };
  guint n = json_array_get_length (events);
  gint64 t_last = 0;
  guint line = 0;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (events, i);
      JsonArray *e = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
      double bytes, category;
      gint64 t;
      guint column;

      if (e == NULL || json_array_get_length (e) != 4 ||
          !json_is_number (json_array_get_element (e, 0)) ||
          !json_is_number (json_array_get_element (e, 2)) ||
          !json_is_number (json_array_get_element (e, 3)))
        {
          g_autofree char *pointer = g_strdup_printf ("/%u", i);

          return timeline_fail (tl, pointer, _("a raw memory event is [time, action, bytes, "
                                               "category]"));
        }
      if (!time_is_valid (json_array_get_element (e, 0)))
        {
          g_autofree char *pointer = g_strdup_printf ("/%u/0", i);

          return timeline_fail (tl, pointer, _("a memory timeline's times must be numbers of "
                                               "microseconds or nanoseconds of at most "
                                               "4·10^18"));
        }
      t = time_value (json_array_get_element (e, 0));
      bytes = json_array_get_double_element (e, 2);
      category = json_array_get_double_element (e, 3);
      if (!(category >= 0 && category < N_CATEGORIES) || !isfinite (bytes) ||
          fabs (bytes) >= HR_MEASURE_MAX_BYTES)
        {
          g_autofree char *pointer = g_strdup_printf ("/%u", i);

          return timeline_fail (tl, pointer, _("a raw memory event's category is 0 to 7 and "
                                               "its bytes a size"));
        }
      if (i == 0)
        tl->t_scale = time_scale (t);
      /* One point per time: the events of one time are one change. */
      if (i > 0 && t != t_last && !timeline_point (tl, t_last, running, line, i - 1))
        return FALSE;
      running[(guint) category] += bytes;
      t_last = t;
      {
        g_autofree char *pointer = g_strdup_printf ("/%u", i);

        hr_json_doc_get_position (tl->doc, pointer, FALSE, &line, &column);
      }
    }
  if (n > 0)
    return timeline_point (tl, t_last, running, line, n - 1);
  return TRUE;
}

/* The timeline's peak, by category, as a one-device snapshot: what the
 * window's measured bar and the CLI show for snapshots. */
static void
timeline_snapshot (Timeline *tl)
{
  HrMeasurement *m = hr_measure_parser_get_result (tl->parser);
  HrSnapshot *snapshot = hr_snapshot_new ();
  HrSnapshotDevice *dev = hr_snapshot_add_device (snapshot, 0);

  snapshot->has_times = TRUE;
  snapshot->max_sites = 0;
  dev->allocated = g_ptr_array_index (m->series, tl->series);
  dev->allocated_peak = (guint64) llround (tl->peak);
  dev->allocated_peak_t = tl->peak_t;
  dev->n_events = tl->n_points;
  dev->allocated_peak_event = tl->peak_index + 1;
  for (guint c = 0; c < N_CATEGORIES; c++)
    {
      guint64 bytes = (guint64) llround (tl->at_peak[c]);

      dev->groups[category_groups[c]] += bytes;
      dev->buckets[hr_snapshot_group_bucket (category_groups[c])] += bytes;
    }
  /* rounding of fractional bytes: the buckets add up to the peak */
  {
    guint64 sum = 0;

    for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
      sum += dev->buckets[b];
    if (sum != dev->allocated_peak)
      {
        dev->allocated_peak = sum;
        dev->allocated->peak = (double) sum;
      }
  }
  m->snapshot = snapshot;
}

gboolean
hr_measure_read_profiler_timeline (HrMeasureParser  *parser,
                                   HrJsonDoc        *doc,
                                   JsonNode         *root,
                                   gboolean         *recognised,
                                   GError          **error)
{
  Timeline tl = { parser, doc, error, 0, 0, 1e-6, 0, 0, 0, 0, { 0 }, FALSE, FALSE };
  HrMeasurement *m = hr_measure_parser_get_result (parser);
  JsonArray *array;
  gboolean raw;

  *recognised = FALSE;
  if (!JSON_NODE_HOLDS_ARRAY (root))
    return TRUE;
  array = json_node_get_array (root);

  /* [times, sizes]: two arrays, numbers then rows of numbers */
  raw = FALSE;
  if (json_array_get_length (array) == 2 &&
      JSON_NODE_HOLDS_ARRAY (json_array_get_element (array, 0)) &&
      JSON_NODE_HOLDS_ARRAY (json_array_get_element (array, 1)))
    {
      JsonArray *times = json_array_get_array_element (array, 0);
      JsonArray *sizes = json_array_get_array_element (array, 1);

      if (json_array_get_length (times) == 0 ||
          !json_is_number (json_array_get_element (times, 0)) || !all_number_rows (sizes, 0))
        return TRUE;
    }
  else if (all_number_rows (array, 4))
    raw = TRUE;
  else
    return TRUE;

  *recognised = TRUE;
  tl.raw = raw;
  hr_measure_parser_get_result (parser)->format = HR_MEASURE_FORMAT_TORCH_PROFILER;
  tl.series = hr_measure_parser_add_series (parser, "allocated (profiler categories)",
                                            HR_METRIC_ALLOCATED);
  if (raw ? !read_raw (&tl, array)
          : !read_coalesced (&tl, json_array_get_array_element (array, 0),
                             json_array_get_array_element (array, 1)))
    return FALSE;
  if (!tl.any)
    return TRUE;

  m->rows = ((HrMeasureSeries *) g_ptr_array_index (m->series, tl.series))->n_points;
  timeline_snapshot (&tl);
  hr_measure_parser_note (parser, _("torch.profiler's memory timeline: what its categories "
                                    "held at the peak is the snapshot's buckets; it has no "
                                    "reserved memory"));
  return TRUE;
}

/* ------------------------------------------------------------------------
 * The Hugging Face Trainer's memory metrics
 *
 * transformers/trainer_utils.py (commit c599e989ac5f), TrainerMemoryTracker:
 * each stage (init, train, eval, test) starts with reset_peak_memory_stats
 * and records memory_allocated() at its start and end and
 * max_memory_allocated() at its end, as STAGE_mem_gpu_alloc_delta (end −
 * begin) and STAGE_mem_gpu_peaked_delta (peak − end), in bytes, and
 * before_init_mem_gpu (the allocated memory when the Trainer was made).
 * A stage's peak is its begin + alloc + peaked; a stage begins where the
 * one before it ended.  log_metrics prints them as "KEY = NMB", N being
 * the bytes >> 20 (trainer_pt_utils.py metrics_format).
 * --------------------------------------------------------------------- */

static const char * const hf_stages[] = { "init", "train", "eval", "test" };

typedef struct {
  double   value[G_N_ELEMENTS (hf_stages)][2];   /* alloc, peaked; NAN when absent */
  double   before_init;
  gboolean any;
  guint    line;
} HfMetrics;

static void
hf_metrics_init (HfMetrics *hf)
{
  for (guint s = 0; s < G_N_ELEMENTS (hf_stages); s++)
    hf->value[s][0] = hf->value[s][1] = NAN;
  hf->before_init = NAN;
  hf->any = FALSE;
  hf->line = 0;
}

/* Takes @key = @bytes when it is one of the Trainer's GPU metrics. */
static gboolean
hf_metrics_take (HfMetrics  *hf,
                 const char *key,
                 double      bytes)
{
  if (g_str_equal (key, "before_init_mem_gpu"))
    {
      hf->before_init = bytes;
      hf->any = TRUE;
      return TRUE;
    }
  for (guint s = 0; s < G_N_ELEMENTS (hf_stages); s++)
    {
      gsize n = strlen (hf_stages[s]);

      if (strncmp (key, hf_stages[s], n) != 0)
        continue;
      if (g_str_equal (key + n, "_mem_gpu_alloc_delta"))
        hf->value[s][0] = bytes;
      else if (g_str_equal (key + n, "_mem_gpu_peaked_delta"))
        hf->value[s][1] = bytes;
      else
        continue;
      hf->any = TRUE;
      return TRUE;
    }
  return FALSE;
}

static gboolean
hf_metrics_finish (HfMetrics       *hf,
                   HrMeasureParser *parser,
                   const char      *unit_note)
{
  HrMeasurement *m = hr_measure_parser_get_result (parser);
  double begin = isnan (hf->before_init) ? 0 : hf->before_init;
  int series = -1;

  if (!hf->any)
    return FALSE;
  m->format = HR_MEASURE_FORMAT_HF_TRAINER;

  for (guint s = 0; s < G_N_ELEMENTS (hf_stages); s++)
    {
      double alloc = hf->value[s][0], peaked = hf->value[s][1];

      if (isnan (alloc) || isnan (peaked))
        continue;
      /* each figure is below 10 PB, their sum may not be */
      if (!(begin + alloc + MAX (peaked, 0) < HR_MEASURE_MAX_BYTES))
        {
          hr_measure_parser_note (parser, _("the %s stage's peak adds up to more than 10 PB: "
                                            "left out"), hf_stages[s]);
          begin = MAX (0, begin + alloc);
          continue;
        }
      if (series < 0)
        series = hr_measure_parser_add_series (parser, "max_memory_allocated (Trainer stages)",
                                               HR_METRIC_ALLOCATED);
      hr_measure_parser_add_point (parser, series, s, MAX (0, begin + alloc + MAX (peaked, 0)),
                                   hf->line);
      m->rows++;
      begin = MAX (0, begin + alloc);
    }
  if (series < 0)
    return FALSE;

  hr_measure_parser_note (parser, _("the Trainer's stages: t is 0 for init, 1 train, 2 eval, "
                                    "3 test; each peak is the memory allocated at its start, what "
                                    "it kept and what it peaked above that"));
  if (isnan (hf->before_init))
    hr_measure_parser_note (parser, _("before_init_mem_gpu is not in the file: the peaks leave "
                                      "out what was allocated before the Trainer was made"));
  if (unit_note != NULL)
    hr_measure_parser_note (parser, "%s", unit_note);
  return TRUE;
}

/* The Trainer's metrics in @object (at @pointer); FALSE with @error set
 * when one of them is not a number of bytes below 10 PB in size. */
static gboolean
hf_take_object (HfMetrics   *hf,
                JsonObject  *object,
                HrJsonDoc   *doc,
                const char  *pointer,
                GError     **error)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *v = json_object_get_member (object, l->data);
      HfMetrics scratch;

      /* the one rule of log_size(): a peak's delta and the memory before
       * the Trainer are never negative (trainer_utils.py takes max(0, …)) */
      if (json_is_number (v) && fabs (json_node_get_double (v)) < HR_MEASURE_MAX_BYTES &&
          (json_node_get_double (v) >= 0 || strstr (l->data, "alloc_delta") != NULL))
        {
          hf_metrics_take (hf, l->data, json_node_get_double (v));
          continue;
        }
      /* not a size: an error only where the key is one of the Trainer's */
      hf_metrics_init (&scratch);
      if (hf_metrics_take (&scratch, l->data, 0))
        {
          g_autofree char *child = hr_json_pointer_append (pointer, l->data);

          hr_json_doc_error (doc, error, HR_ERROR_INVALID, child, FALSE,
                             _("\"%s\" must be a number of bytes (less than 10 PB in size)"),
                             (const char *) l->data);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
hr_measure_read_hf_trainer_json (HrMeasureParser  *parser,
                                 HrJsonDoc        *doc,
                                 JsonNode         *root,
                                 gboolean         *recognised,
                                 GError          **error)
{
  HfMetrics hf;
  JsonObject *object;
  JsonNode *history;

  *recognised = FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return TRUE;
  object = json_node_get_object (root);
  hf_metrics_init (&hf);

  /* train_results.json, all_results.json...: the metrics themselves */
  if (!hf_take_object (&hf, object, doc, "", error))
    {
      *recognised = TRUE;
      return FALSE;
    }
  /* trainer_state.json: the entries of log_history */
  history = json_object_get_member (object, "log_history");
  if (!hf.any && history != NULL && JSON_NODE_HOLDS_ARRAY (history))
    {
      JsonArray *entries = json_node_get_array (history);

      for (guint i = 0; i < json_array_get_length (entries); i++)
        {
          JsonNode *e = json_array_get_element (entries, i);

          if (JSON_NODE_HOLDS_OBJECT (e))
            {
              g_autofree char *pointer = g_strdup_printf ("/log_history/%u", i);

              if (!hf_take_object (&hf, json_node_get_object (e), doc, pointer, error))
                {
                  *recognised = TRUE;
                  return FALSE;
                }
            }
        }
    }
  if (!hf.any)
    return TRUE;

  *recognised = TRUE;
  hf.line = 1;
  if (!hf_metrics_finish (&hf, parser, NULL))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, "", FALSE,
                         _("the Trainer's memory metrics need a stage's _mem_gpu_alloc_delta and "
                           "_mem_gpu_peaked_delta"));
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Memory lines in a log
 * --------------------------------------------------------------------- */

/* torch.cuda.memory_summary() (torch/cuda/memory.py, commit 00b65a04a2d3):
 * a table whose rows are "| NAME | CUR | PEAK | ALLOC | FREED |", each
 * size _format_size'd: an integer in B, KiB, MiB, GiB, TiB or PiB, rounded
 * down, the unit the largest that keeps it at 768 or more; a table per
 * call, headed " PyTorch CUDA memory summary, device ID N ".
 *
 * DeepSpeed's see_memory_usage() (deepspeed/runtime/utils.py, commit
 * 03959e2b5ffe) prints "MA x GB Max_MA y GB CA z GB Max_CA w GB", each
 * bytes / 2^30 (GiB, named GB) rounded to 2 decimals, Max_CA to a whole
 * one, and resets the peaks after each call; later ones join the figures
 * with " | " and add "NV" (what NVML says the device uses). */

struct _HrLogScan {
  HfMetrics hf;
  gboolean  hf_seen;
  /* memory_summary */
  int       device;
  gboolean  in_summary;
  guint     summaries;
  double    allocated;           /* NAN until the table gives it */
  double    reserved;
  guint     line;
  GArray   *summary_series;      /* int: allocated, reserved series per device, -1 */
  guint     ooms;
  /* DeepSpeed */
  int       ds_series[3];        /* Max_MA, Max_CA, NV */
  guint     ds_calls;
  gboolean  ds_rounded;
};

HrLogScan *
hr_measure_log_scan_new (void)
{
  HrLogScan *scan = g_new0 (HrLogScan, 1);

  hf_metrics_init (&scan->hf);
  scan->device = -1;
  scan->allocated = scan->reserved = NAN;
  scan->summary_series = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; i < G_N_ELEMENTS (scan->ds_series); i++)
    scan->ds_series[i] = -1;
  return scan;
}

void
hr_measure_log_scan_free (HrLogScan *scan)
{
  if (scan == NULL)
    return;
  g_array_unref (scan->summary_series);
  g_free (scan);
}

gboolean
hr_measure_log_line_is_known (const char *line)
{
  /* "[2024-05-14 10:31:02,123] ..." (Python's logging) */
  if (line[0] == '[' && g_ascii_isdigit (line[1]) && g_ascii_isdigit (line[2]) &&
      g_ascii_isdigit (line[3]) && g_ascii_isdigit (line[4]) && line[5] == '-')
    return TRUE;
  return strstr (line, "PyTorch CUDA memory summary") != NULL ||
         (strstr (line, "Max_MA ") != NULL && strstr (line, " GB") != NULL) ||
         strstr (line, "_mem_gpu_") != NULL;
}

/* The one rule of every log reader: a figure it knows (a key it reads
 * followed by a number and its unit) is a size Headroom can hold, in
 * [0, 10 PB), or in (-10 PB, 10 PB) for a delta that may be negative; any
 * other is refused at its line and column, never dropped (dropping the
 * training stage's figure made the evaluation stage's the peak).  @at is
 * where the figure starts in @line and @length its length. */
static gboolean
log_size (HrMeasureParser *parser,
          const char      *line,
          const char      *at,
          gsize            length,
          const char      *key,
          double           bytes,
          gboolean         may_be_negative)
{
  g_autofree char *text = NULL;

  if (isfinite (bytes) && fabs (bytes) < HR_MEASURE_MAX_BYTES && (may_be_negative || bytes >= 0))
    return TRUE;
  text = g_strndup (at, MIN (length, 40));
  return hr_measure_parser_fail (parser, (guint) (at - line) + 1,
                                 may_be_negative
                                   ? _("%s: \"%s\" is not a size Headroom reads (a number of "
                                       "bytes less than 10 PB in size)")
                                   : _("%s: \"%s\" is not a size Headroom reads (0 to 10 PB)"),
                                 key, text);
}

/* "  8583 MiB " → bytes, or NAN. */
static double
summary_size (const char *text)
{
  static const struct {
    const char *name;
    double      bytes;
  } units[] = {
    { "B", 1 }, { "KiB", 1024.0 }, { "MiB", MiB }, { "GiB", GiB }, { "TiB", GiB * 1024 },
    { "PiB", GiB * 1024 * 1024 },
  };
  g_autofree char *copy = g_strstrip (g_strdup (text));
  char *end;
  guint64 value;

  if (!g_ascii_isdigit (copy[0]))
    return NAN;
  value = g_ascii_strtoull (copy, &end, 10);
  while (*end == ' ')
    end++;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (g_str_equal (end, units[i].name) && value < (G_GUINT64_CONSTANT (1) << 52) &&
          (double) value * units[i].bytes < HR_MEASURE_MAX_BYTES)
        return (double) value * units[i].bytes;
    }
  return NAN;
}

static int
summary_series (HrLogScan       *scan,
                HrMeasureParser *parser,
                int              device,
                guint            which)
{
  guint slot = 2 * (guint) device + which;

  while (scan->summary_series->len <= slot)
    {
      int none = -1;

      g_array_append_val (scan->summary_series, none);
    }
  if (g_array_index (scan->summary_series, int, slot) < 0)
    {
      g_autofree char *name = g_strdup_printf (which == 0 ? "GPU %d allocated" : "GPU %d reserved",
                                               device);

      g_array_index (scan->summary_series, int, slot) =
        hr_measure_parser_add_series (parser, name, which == 0 ? HR_METRIC_ALLOCATED
                                                               : HR_METRIC_RESERVED);
    }
  return g_array_index (scan->summary_series, int, slot);
}

static void
summary_flush (HrLogScan       *scan,
               HrMeasureParser *parser)
{
  if (!scan->in_summary)
    return;
  if (!isnan (scan->allocated))
    hr_measure_parser_add_point (parser, summary_series (scan, parser, scan->device, 0),
                                 scan->summaries, scan->allocated, scan->line);
  if (!isnan (scan->reserved))
    hr_measure_parser_add_point (parser, summary_series (scan, parser, scan->device, 1),
                                 scan->summaries, scan->reserved, scan->line);
  if (!isnan (scan->allocated) || !isnan (scan->reserved))
    {
      scan->summaries++;
      hr_measure_parser_get_result (parser)->rows++;
    }
  scan->in_summary = FALSE;
  scan->allocated = scan->reserved = NAN;
}

static gboolean
summary_line (HrLogScan       *scan,
              HrMeasureParser *parser,
              const char      *line,
              guint            number)
{
  const char *head = strstr (line, "PyTorch CUDA memory summary, device ID");
  g_auto(GStrv) cells = NULL;
  g_autofree char *name = NULL;

  if (head != NULL)
    {
      guint64 device = 0;
      g_autofree char *number_text = NULL;

      summary_flush (scan, parser);
      head += strlen ("PyTorch CUDA memory summary, device ID");
      while (*head == ' ')
        head++;
      number_text = g_strndup (head, strcspn (head, " |"));

      if (!g_ascii_string_to_unsigned (number_text, 10, 0, 1024, &device, NULL))
        device = 0;
      scan->device = (int) device;
      scan->in_summary = TRUE;
      return TRUE;
    }
  if (!scan->in_summary)
    return TRUE;

  {
    const char *ooms = strstr (line, "CUDA OOMs:");
    guint64 n;

    if (ooms != NULL)
      {
        g_autofree char *count = g_strndup (ooms + 10, strcspn (ooms + 10, "|"));

        if (g_ascii_string_to_unsigned (g_strstrip (count), 10, 0, G_MAXUINT, &n, NULL))
          scan->ooms += (guint) n;
        return TRUE;
      }
  }

  if (line[0] != '|')
    return TRUE;
  cells = g_strsplit (line, "|", 0);
  if (g_strv_length (cells) < 6)
    return TRUE;
  name = g_strstrip (g_strdup (cells[1]));
  if (g_str_equal (name, "Allocated memory") || g_str_equal (name, "GPU reserved memory"))
    {
      /* the PEAK column, the fourth cell */
      const char *at = line + strlen (cells[0]) + strlen (cells[1]) + strlen (cells[2]) + 3;
      double bytes = summary_size (cells[3]);

      while (*at == ' ')
        at++;
      if (!log_size (parser, line, at, strcspn (at, "|"), name, bytes, FALSE))
        return FALSE;
      if (g_str_equal (name, "Allocated memory"))
        scan->allocated = bytes;
      else
        scan->reserved = bytes;
    }
  else
    return TRUE;
  scan->line = number;
  return TRUE;
}

/* "Max_MA 4.56 GB" in @line: the number before " GB" after @key, in GiB;
 * NAN where @key is not there.  *@at and *@length get where the number is,
 * so that one out of range is refused there (log_size()). */
static double
deepspeed_figure (const char  *line,
                  const char  *key,
                  const char **at,
                  gsize       *length)
{
  gsize n = strlen (key);

  for (const char *p = strstr (line, key); p != NULL; p = strstr (p + 1, key))
    {
      char *end;
      double v;

      /* a word of its own: "MA" is not the end of "Max_MA" */
      if (p > line && (g_ascii_isalnum (p[-1]) || p[-1] == '_'))
        continue;
      if (p[n] != ' ')
        continue;
      v = g_ascii_strtod (p + n + 1, &end);
      if (end == p + n + 1)
        continue;
      *at = p + n + 1;
      *length = end - *at;
      while (*end == ' ')
        end++;
      /* (a hexadecimal, "inf" or "nan" spelling is no figure DeepSpeed
       * prints: not a size) */
      if (strncmp (end, "GB", 2) == 0)
        return strspn (*at, "0123456789.+-eE") < *length ? NAN : v * GiB;
      *at = NULL;
    }
  return NAN;
}

static gboolean
deepspeed_line (HrLogScan       *scan,
                HrMeasureParser *parser,
                const char      *line,
                guint            number)
{
  static const char * const keys[] = { "Max_MA", "Max_CA", "NV" };
  static const char * const names[] = { "max_memory_allocated", "max_memory_reserved",
                                        "device_used" };
  static const HrMetric metrics[] = { HR_METRIC_ALLOCATED, HR_METRIC_RESERVED,
                                      HR_METRIC_DEVICE_USED };
  gboolean any = FALSE;

  if (strstr (line, "Max_MA ") == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *at = NULL;
      gsize length = 0;
      double v = deepspeed_figure (line, keys[i], &at, &length);

      if (isnan (v) && at == NULL)
        continue;
      if (!log_size (parser, line, at, length, keys[i], v, FALSE))
        return FALSE;
      if (scan->ds_series[i] < 0)
        scan->ds_series[i] = hr_measure_parser_add_series (parser, names[i], metrics[i]);
      hr_measure_parser_add_point (parser, scan->ds_series[i], scan->ds_calls, v, number);
      any = TRUE;
      /* before the " | " layout, Max_CA is rounded to a whole GiB */
      if (i == 1 && strstr (line, " | ") == NULL)
        scan->ds_rounded = TRUE;
    }
  if (any)
    {
      scan->ds_calls++;
      hr_measure_parser_get_result (parser)->rows++;
      hr_measure_parser_get_result (parser)->format = HR_MEASURE_FORMAT_DEEPSPEED;
    }
  return TRUE;
}

/* "  train_mem_gpu_peaked_delta =     7044MB" */
static gboolean
hf_line (HrLogScan       *scan,
         HrMeasureParser *parser,
         const char      *line,
         guint            number)
{
  g_autofree char *key = NULL;
  const char *eq = strchr (line, '=');
  const char *p, *word;
  char *end;
  gint64 mib;
  HfMetrics scratch;
  double bytes;

  if (eq == NULL || strstr (line, "_mem_gpu") == NULL)
    return TRUE;
  /* the word before " = ", whatever the logger put before it */
  p = eq;
  while (p > line && p[-1] == ' ')
    p--;
  word = p;
  while (word > line && (g_ascii_isalnum (word[-1]) || word[-1] == '_'))
    word--;
  key = g_strndup (word, p - word);
  hf_metrics_init (&scratch);
  if (!hf_metrics_take (&scratch, key, 0))
    return TRUE;
  p = eq + 1;
  while (*p == ' ')
    p++;
  errno = 0;
  mib = g_ascii_strtoll (p, &end, 10);
  /* one of the Trainer's metrics: "NMB", N a whole number of MiB, a size
   * (an alloc_delta may be negative, what a stage freed; a peaked_delta
   * is max(0, peak - end), trainer_utils.py) */
  bytes = end == p || strcmp (end, "MB") != 0 || errno == ERANGE ? NAN : (double) mib * MiB;
  if (!log_size (parser, line, p, strlen (p), key, bytes, strstr (key, "alloc_delta") != NULL))
    return FALSE;
  hf_metrics_take (&scan->hf, key, bytes);
  scan->hf_seen = TRUE;
  scan->hf.line = number;
  return TRUE;
}

gboolean
hr_measure_log_scan_line (HrLogScan       *scan,
                          HrMeasureParser *parser,
                          const char      *line,
                          guint            number)
{
  /* each format's figures pass log_size(): one rule for all */
  return summary_line (scan, parser, line, number) &&
         deepspeed_line (scan, parser, line, number) &&
         hf_line (scan, parser, line, number);
}

gboolean
hr_measure_log_scan_finish (HrLogScan       *scan,
                            HrMeasureParser *parser)
{
  HrMeasurement *m = hr_measure_parser_get_result (parser);
  gboolean any = FALSE;

  summary_flush (scan, parser);
  if (scan->summaries > 0)
    {
      m->format = HR_MEASURE_FORMAT_TORCH_SUMMARY;
      hr_measure_parser_note (parser, _("torch.cuda.memory_summary() rounds each size down to "
                                        "its unit: each peak may be up to one KiB, MiB or GiB "
                                        "more; t counts the summaries"));
      if (scan->ooms > 0)
        hr_measure_parser_note (parser, _("the summaries count %u out-of-memory errors"),
                                scan->ooms);
      any = TRUE;
    }
  if (scan->ds_calls > 0)
    {
      m->format = HR_MEASURE_FORMAT_DEEPSPEED;
      hr_measure_parser_note (parser, _("DeepSpeed's see_memory_usage() prints GiB (2^30 bytes) "
                                        "as GB, to 2 decimals, and resets the peaks at each "
                                        "call; t counts the calls"));
      if (scan->ds_rounded)
        hr_measure_parser_note (parser, _("its Max_CA (max_memory_reserved) is rounded to a "
                                          "whole GiB"));
      any = TRUE;
    }
  if (scan->hf_seen &&
      hf_metrics_finish (&scan->hf, parser,
                         _("log_metrics() prints the memory metrics in MiB (bytes >> 20), "
                           "named MB")))
    any = TRUE;
  return any;
}
