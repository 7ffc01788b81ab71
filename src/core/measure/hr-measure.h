/* hr-measure.h: measured peaks read from probe CSVs, nvidia-smi logs,
 * W&B and TensorBoard exports, memory_stats() dumps and mapped CSVs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "hr-json.h"
#include "hr-types.h"

G_BEGIN_DECLS

typedef enum {
  HR_MEASURE_FORMAT_PROBE,        /* Headroom's probe CSV (data/probe/) */
  HR_MEASURE_FORMAT_NVIDIA_SMI,   /* nvidia-smi --query-gpu=... --format=csv */
  HR_MEASURE_FORMAT_WANDB,        /* W&B CSV export of system/gpu.N.* */
  HR_MEASURE_FORMAT_TENSORBOARD,  /* TensorBoard scalar CSV: Wall time,Step,Value */
  HR_MEASURE_FORMAT_TORCH_STATS,  /* torch.cuda.memory_stats() as JSON */
  HR_MEASURE_FORMAT_JAX_STATS,    /* jax Device.memory_stats() as JSON */
  HR_MEASURE_FORMAT_GENERIC,      /* any CSV, through a column mapping */
  /* Formats added later keep the values above. */
  HR_MEASURE_FORMAT_TORCH_SNAPSHOT,   /* torch.cuda.memory._dump_snapshot() pickle */
  HR_MEASURE_FORMAT_TORCH_SUMMARY,    /* torch.cuda.memory_summary() text */
  HR_MEASURE_FORMAT_TORCH_PROFILER,   /* torch.profiler export_memory_timeline */
  HR_MEASURE_FORMAT_DEEPSPEED,        /* DeepSpeed see_memory_usage() log lines */
  HR_MEASURE_FORMAT_LIGHTNING,        /* PyTorch Lightning DeviceStatsMonitor metrics */
  HR_MEASURE_FORMAT_HF_TRAINER,       /* Hugging Face Trainer memory metrics */
  HR_MEASURE_FORMAT_TORCH_TRACE,      /* headroom_trace_torch.py: a step traced on the CPU */
} HrMeasureFormat;

extern const HrEnumName hr_measure_format_names[];

/* Units a mapped CSV's memory column may be in. */
typedef enum {
  HR_MEASURE_UNIT_NONE,   /* not said: taken from the header, or an error */
  HR_MEASURE_UNIT_BYTES,
  HR_MEASURE_UNIT_KIB,
  HR_MEASURE_UNIT_MIB,
  HR_MEASURE_UNIT_GIB,
  HR_MEASURE_UNIT_KB,
  HR_MEASURE_UNIT_MB,
  HR_MEASURE_UNIT_GB,
} HrMeasureUnit;

extern const HrEnumName hr_measure_unit_names[];
double   hr_measure_unit_bytes      (HrMeasureUnit  unit);
/* "MiB", "GB", "bytes", "B"... (case as the units are written) to a unit. */
gboolean hr_measure_unit_from_string (const char    *text,
                                      HrMeasureUnit *unit);

/* The default row limit: a file with more data rows is refused with a
 * message rather than filling memory. */
#define HR_MEASURE_DEFAULT_MAX_ROWS 20000000u
/* JSON dumps are read whole; larger ones are refused. */
#define HR_MEASURE_MAX_JSON_SIZE (64 * 1024 * 1024)

/* How to read a file whose format is not recognised from its header (and
 * overrides for ones that are). Columns are header names, or 1-based
 * numbers when the file has no header row. */
typedef struct {
  char           delimiter;       /* 0: detected from the header line */
  gboolean       decimal_comma;   /* "1,5" is one and a half */
  gboolean       no_header;       /* the first row is data */
  char          *batch_column;
  char          *memory_column;
  char          *seq_column;      /* "": the file has none (NULL: found by name) */
  HrMeasureUnit  unit;
  HrMetric       metric;          /* of a mapped memory column */
  gboolean       has_metric;
  guint          max_rows;        /* 0: HR_MEASURE_DEFAULT_MAX_ROWS */
  /* A series over time (points without a batch size) is kept thinned to
   * at most this many points, the smallest and the largest of each run of
   * samples (hr_measure_thin_stream), so that a log of any length is read
   * in bounded memory; its peak stays exact.  0 keeps every point.  Points
   * with a batch size are always all kept: a fit needs them. */
  guint          max_time_points;
} HrMeasureOptions;

/* What `headroom-cli measure` keeps of a log over time when it is not
 * asked for every point. */
#define HR_MEASURE_SUMMARY_POINTS 1000u

void hr_measure_options_clear (HrMeasureOptions *options);

/* The options as `headroom-cli measure` takes them ("--unit", "MiB",
 * "--batch-column", "batch"...): a window's mapping is written down and
 * read back as the command line that reads the file the same way.  The
 * values are the CLI's: a unit of hr_measure_unit_from_string(), a
 * delimiter ",", ";", "|", "tab" or "space", a metric of
 * hr_metric_names.  From the arguments, the options are cleared first;
 * an unknown argument or value is refused with HR_ERROR_INVALID naming
 * it. */
GStrv    hr_measure_options_to_args   (const HrMeasureOptions *options);
gboolean hr_measure_options_from_args (HrMeasureOptions       *options,
                                       const char * const     *args,
                                       GError                **error);
/* The same as one line, each argument quoted only where a shell needs
 * it ("--unit MiB --batch-column 'micro batch'"), and back. */
char    *hr_measure_options_to_string   (const HrMeasureOptions *options);
gboolean hr_measure_options_from_string (HrMeasureOptions       *options,
                                         const char             *text,
                                         GError                **error);
/* The delimiter of "--delimiter" ("tab", "space", ",", ";", "|") and
 * back; FALSE for any other. */
gboolean    hr_measure_delimiter_from_string (const char *text,
                                              char       *delimiter);
const char *hr_measure_delimiter_to_string   (char        delimiter);

/* One measured figure. batch, seq_len and t are NAN when the file does not
 * give them: a time series has no batch, a batch sweep no t. */
typedef struct {
  double  batch;
  double  seq_len;
  double  t;          /* seconds from the series' first sample */
  double  bytes;
  guint   line;       /* where it was read, for residual tables */
} HrMeasurePoint;

typedef struct {
  char     *name;     /* "GPU 0 (NVIDIA A100-SXM4-80GB)", "max_memory_allocated" */
  HrMetric  metric;
  GArray   *points;   /* HrMeasurePoint, in file order */
  double    peak;     /* largest bytes, 0 when empty */
  guint     peak_index;
  /* The first batch the probe recorded as out of memory, 0 when none. */
  guint     oom_batch;
  /* Points the file gave the series, before any thinning: points->len
   * is smaller when the series was thinned (max_time_points). */
  guint     n_points;
} HrMeasureSeries;

typedef struct {
  char            *name;      /* the file's display name */
  HrMeasureFormat  format;
  GPtrArray       *series;    /* HrMeasureSeries */
  /* "key: value" lines of a probe's commented header (model, precision,
   * optimizer, gpu, torch, cuda...), in file order. */
  GPtrArray       *config_keys;
  GPtrArray       *config_values;
  GPtrArray       *notes;     /* char *: skipped values, assumptions */
  guint            rows;      /* data rows read */
  guint            missing;   /* values that were empty, [N/A] or [Not Supported] */
  /* A PyTorch memory snapshot's analysis (hr-snapshot.h), NULL for every
   * other format.  Its timelines are also the measurement's series. */
  struct _HrSnapshot *snapshot;
  /* A training step traced on the CPU (hr-measure-trace.h), NULL for
   * every other format.  Its saved bytes per micro-batch are also the
   * measurement's one series. */
  struct _HrTrace    *trace;
} HrMeasurement;

/* An empty series and an empty measurement, for importers and for
 * measurements put together from others. */
HrMeasureSeries *hr_measure_series_new   (const char      *name,
                                          HrMetric         metric);
HrMeasurement   *hr_measurement_new      (const char      *name);
void             hr_measure_series_free  (HrMeasureSeries *series);
void             hr_measurement_free     (HrMeasurement   *measurement);
const char      *hr_measurement_get_config (const HrMeasurement *measurement,
                                            const char          *key);
/* The series of @metric, NULL when there is none. */
HrMeasureSeries *hr_measurement_find_series (const HrMeasurement *measurement,
                                             HrMetric             metric);
/* Whether the series has at least two distinct batch sizes. */
gboolean         hr_measure_series_is_sweep (const HrMeasureSeries *series);
/* The series a fit and a calibration are made from: the first sweep in
 * the order allocated, reserved, device used; NULL when none is a sweep
 * (a log over time). */
const HrMeasureSeries *hr_measurement_get_sweep (const HrMeasurement *measurement);

/* Streaming reader: feed it the file in chunks of any size, then finish.
 * Every format goes through it; the format is recognised from the first
 * line that is not blank or a comment (or, for JSON, from its first
 * character). Errors name the file, line and column. */
typedef struct _HrMeasureParser HrMeasureParser;

HrMeasureParser *hr_measure_parser_new    (const char             *display_name,
                                           const HrMeasureOptions *options);
void             hr_measure_parser_free   (HrMeasureParser        *parser);
gboolean         hr_measure_parser_feed   (HrMeasureParser        *parser,
                                           const char             *data,
                                           gsize                   length,
                                           GError                **error);
HrMeasurement   *hr_measure_parser_finish (HrMeasureParser        *parser,
                                           GError                **error);

/* Called with every point as it is read, before any thinning, in file
 * order; @series is the one it belongs to (its name and metric are final,
 * its points may not be). */
typedef void (*HrMeasurePointFunc) (const HrMeasureSeries *series,
                                    const HrMeasurePoint  *point,
                                    gpointer               user_data);
/* Sets @func on @parser.  Unless @keep_points, points are only handed to
 * @func and not kept: the series come back with their peaks and
 * n_points, and no points (how every point of a file of any size is
 * streamed out in bounded memory). */
void             hr_measure_parser_set_point_func (HrMeasureParser   *parser,
                                                   HrMeasurePointFunc func,
                                                   gpointer           user_data,
                                                   gboolean           keep_points);

/* Thinning for drawing and for summaries: of a run of points, the one
 * with the fewest bytes and the one with the most (the earliest of
 * equals) are kept, in their order, so that every peak and every trough
 * survives and a line through the kept points covers what the full line
 * covers column by column.
 *
 * hr_measure_thin_columns: @x (n values, any order of size) cut into
 * @columns equal columns between @x_min and @x_max; the indices kept
 * (at most 2 per column, ascending) are appended to @kept (guint).  NAN
 * x values are skipped. */
void             hr_measure_thin_columns   (const double  *x,
                                            const double  *y,
                                            guint          n,
                                            double         x_min,
                                            double         x_max,
                                            guint          columns,
                                            GArray        *kept);
/* @series' points thinned to at most @max_points (at least 4) over their
 * t (or their order when t is missing); the series' peak is among them.
 * A new array of HrMeasurePoint. */
GArray          *hr_measure_series_thin    (const HrMeasureSeries *series,
                                            guint                  max_points);

/* The head of a file as the reader splits it, for a page that maps a
 * CSV's columns: which delimiter it splits on, the header's columns, the
 * first data rows' fields, the columns the reader takes (with no option,
 * by their names) for the batch, the memory and the sequence length, and
 * what reading the head with the options gives. */
typedef struct {
  HrMeasureFormat  format;         /* what the header was taken for */
  /* A CSV that no format recognises and whose batch or memory column, or
   * the memory's unit, the options do not settle: @error says which. */
  gboolean         needs_mapping;
  gboolean         is_csv;         /* FALSE: JSON, a pickle or a log */
  char             delimiter;      /* ' ': runs of blanks */
  gboolean         delimiter_detected;  /* not said by the options */
  char            *header;         /* the header line as written; NULL with no_header */
  guint            header_line;
  GPtrArray       *columns;        /* char *: the names, or "1", "2"... with no_header */
  GArray          *column_units;   /* HrMeasureUnit: what each name says */
  GPtrArray       *rows;           /* GStrv: the fields of the first data rows */
  GArray          *row_lines;      /* guint: the line of each */
  int              batch_column;   /* index into @columns, -1 */
  int              memory_column;
  int              seq_column;
  /* The head's data rows read with the options, by the reader that reads
   * the file (hr_measurement_parse_data), or why they cannot be. */
  HrMeasurement   *measurement;
  GError          *error;
} HrMeasureCsvHead;

/* @data is the file's first bytes (or all of it, @complete): a last line
 * cut short is not read unless the file ends there.  At most @max_rows
 * rows are split into @rows; every row of @data is read into
 * @measurement.  Never NULL. */
HrMeasureCsvHead *hr_measure_csv_head_read (const char             *display_name,
                                            const char             *data,
                                            gsize                   length,
                                            gboolean                complete,
                                            const HrMeasureOptions *options,
                                            guint                   max_rows);
void              hr_measure_csv_head_free (HrMeasureCsvHead       *head);

/* The whole of @data at once: the entry point for fuzzing. @options may be
 * NULL. */
HrMeasurement   *hr_measurement_parse_data (const char             *display_name,
                                            const char             *data,
                                            gsize                   length,
                                            const HrMeasureOptions *options,
                                            GError                **error);
/* @path read in chunks. */
HrMeasurement   *hr_measurement_load_file  (const char             *path,
                                            const HrMeasureOptions *options,
                                            GError                **error);
/* The same in a worker thread, for the window: a huge log never blocks
 * it, and @cancellable stops the read between chunks. */
void             hr_measurement_load_file_async  (const char             *path,
                                                  const HrMeasureOptions *options,
                                                  GCancellable           *cancellable,
                                                  GAsyncReadyCallback     callback,
                                                  gpointer                user_data);
HrMeasurement   *hr_measurement_load_file_finish (GAsyncResult           *result,
                                                  GError                **error);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HrMeasureOptions, hr_measure_options_clear)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrMeasureSeries, hr_measure_series_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrMeasurement, hr_measurement_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrMeasureParser, hr_measure_parser_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrMeasureCsvHead, hr_measure_csv_head_free)

G_END_DECLS
