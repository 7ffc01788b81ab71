/* hr-measure-private.h: what the importers of hr-core share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <math.h>

#include "hr-json.h"
#include "hr-measure.h"
#include "hr-snapshot.h"

G_BEGIN_DECLS

/* The physical ranges every number read from a measurement file is
 * checked against, whatever its format, so that none turns into an
 * overflow, an infinity or a wrapped integer further on:
 * - a memory size is 0 to 10 PB (10^16 bytes), far more than any device
 *   or host holds;
 * - a batch size or a sequence length is a whole number from 1 to 10^9;
 * - a time or a step, as the file writes it, is at most 10^15 in size
 *   (seconds since 1970 are 1.7·10^9, milliseconds 1.7·10^12), so that
 *   the difference of two is exact enough and finite. */
#define HR_MEASURE_MAX_BYTES 1e16
#define HR_MEASURE_MAX_COUNT 1e9
#define HR_MEASURE_MAX_TIME  1e15

static inline gboolean
hr_measure_is_count (double value)
{
  return value >= 1 && value <= HR_MEASURE_MAX_COUNT && value == floor (value);
}

/* At most this many series are read from one file (GPUs of an
 * nvidia-smi log or a W&B export, devices of a summary); a name read
 * from a file (a GPU's) is cut to HR_MEASURE_MAX_NAME bytes. */
#define HR_MEASURE_MAX_SERIES 1024u
#define HR_MEASURE_MAX_NAME   256u

/* At most this many "# key: value" lines of a probe's header are kept
 * (and the key and value of each are cut to HR_MEASURE_MAX_CONFIG_TEXT
 * bytes); the others are counted in a note. */
#define HR_MEASURE_MAX_CONFIG_KEYS 256
#define HR_MEASURE_MAX_CONFIG_TEXT 1024

/* A series thinned as it streams in, to at most @max_points points (the
 * smallest and the largest of each run of samples): what
 * HrMeasureOptions.max_time_points does to a log. */
typedef struct _HrMeasureThinner HrMeasureThinner;

HrMeasureThinner *hr_measure_thinner_new   (guint                 max_points);
void              hr_measure_thinner_free  (HrMeasureThinner     *thinner);
void              hr_measure_thinner_add   (HrMeasureThinner     *thinner,
                                            const HrMeasurePoint *point);
/* Appends the points kept, in order, to @points. */
void              hr_measure_thinner_flush (HrMeasureThinner     *thinner,
                                            GArray               *points);

/* Reads the PyTorch memory snapshot in @data into @measurement (its
 * format, series, notes and snapshot); errors name @shown_name
 * (hr-snapshot.c). */
gboolean          hr_measurement_read_snapshot (HrMeasurement          *measurement,
                                                const char             *shown_name,
                                                const guint8           *data,
                                                gsize                   length,
                                                const HrMeasureOptions *options,
                                                GError                **error);
/* The same; @mapped: @data is a file's private read-only mapping, whose
 * pages are given back as they are read (hr_pickle_parse_full). */
gboolean          hr_measurement_read_snapshot_full (HrMeasurement          *measurement,
                                                     const char             *shown_name,
                                                     const guint8           *data,
                                                     gsize                   length,
                                                     gboolean                mapped,
                                                     const HrMeasureOptions *options,
                                                     GError                **error);

/* What the readers of hr-measure-formats.c add through the parser: a
 * series (its index), a point to it (thinned, peaks kept, handed to the
 * point callback as every other), a note. */
int               hr_measure_parser_add_series (HrMeasureParser *parser,
                                                const char      *name,
                                                HrMetric         metric);
void              hr_measure_parser_add_point  (HrMeasureParser *parser,
                                                guint            series,
                                                double           t,
                                                double           bytes,
                                                guint            line);
void              hr_measure_parser_note       (HrMeasureParser *parser,
                                                const char      *format,
                                                ...) G_GNUC_PRINTF (2, 3);
HrMeasurement    *hr_measure_parser_get_result (HrMeasureParser *parser);
/* Refuses the file at the line being read, column @column (1-based; 0:
 * none): "NAME:LINE:COL: message", HR_ERROR_INVALID.  Returns FALSE. */
gboolean          hr_measure_parser_fail       (HrMeasureParser *parser,
                                                guint            column,
                                                const char      *format,
                                                ...) G_GNUC_PRINTF (3, 4);
/* The file's name as messages show it. */
const char       *hr_measure_parser_get_name   (HrMeasureParser *parser);

/* hr-snapshot.c: an empty snapshot, and a device added to it (its
 * arrays made, its series NULL). */
struct _HrSnapshot *hr_snapshot_new        (void);
HrSnapshotDevice   *hr_snapshot_add_device (struct _HrSnapshot *snapshot,
                                            int                 device);

/* hr-measure-formats.c: JSON that is not a memory_stats() dump.  Each
 * returns FALSE with @error set when it recognises the document and finds
 * it wrong, and sets @recognised. */
gboolean          hr_measure_read_profiler_timeline (HrMeasureParser  *parser,
                                                     HrJsonDoc        *doc,
                                                     JsonNode         *root,
                                                     gboolean         *recognised,
                                                     GError          **error);
gboolean          hr_measure_read_hf_trainer_json   (HrMeasureParser  *parser,
                                                     HrJsonDoc        *doc,
                                                     JsonNode         *root,
                                                     gboolean         *recognised,
                                                     GError          **error);

/* ... and logs: lines of torch.cuda.memory_summary(), DeepSpeed's
 * see_memory_usage() and the Hugging Face Trainer's log_metrics() among
 * any others. */
typedef struct _HrLogScan HrLogScan;

/* Whether @line is one of those (or a timestamped log line). */
gboolean          hr_measure_log_line_is_known (const char      *line);
HrLogScan        *hr_measure_log_scan_new      (void);
void              hr_measure_log_scan_free     (HrLogScan       *scan);
/* Reads @line (NUL-terminated, line @number), ignoring what it does not
 * know; FALSE (the parser failed, hr_measure_parser_fail()) when a figure
 * it knows is not a size it can read. */
gboolean          hr_measure_log_scan_line     (HrLogScan       *scan,
                                                HrMeasureParser *parser,
                                                const char      *line,
                                                guint            number);
/* What the scan found, into the parser; FALSE when it found nothing. */
gboolean          hr_measure_log_scan_finish   (HrLogScan       *scan,
                                                HrMeasureParser *parser);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrMeasureThinner, hr_measure_thinner_free)

G_END_DECLS
