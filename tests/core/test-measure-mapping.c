/* test-measure-mapping.c: the head of a CSV for the column-mapping page,
 * and the mapping written down as headroom-cli's arguments
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "hr-core.h"

#define MiB (1024.0 * 1024.0)

static HrMeasureCsvHead *
head_of (const char             *text,
         const HrMeasureOptions *options)
{
  return hr_measure_csv_head_read ("peaks.csv", text, strlen (text), TRUE, options, 8);
}

/* A batch,peak file: its columns are found by name, but no unit. */
static void
test_head_needs_unit (void)
{
  g_autoptr(HrMeasureCsvHead) head = head_of ("batch,peak\n1,100\n2,150\n4,250\n", NULL);

  g_assert_true (head->is_csv);
  g_assert_true (head->needs_mapping);
  g_assert_cmpint (head->format, ==, HR_MEASURE_FORMAT_GENERIC);
  g_assert_cmpint (head->delimiter, ==, ',');
  g_assert_true (head->delimiter_detected);
  g_assert_cmpstr (head->header, ==, "batch,peak");
  g_assert_cmpuint (head->header_line, ==, 1);
  g_assert_cmpuint (head->columns->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (head->columns, 0), ==, "batch");
  g_assert_cmpstr (g_ptr_array_index (head->columns, 1), ==, "peak");
  g_assert_cmpint (head->batch_column, ==, 0);
  g_assert_cmpint (head->memory_column, ==, 1);
  g_assert_cmpint (head->seq_column, ==, -1);
  g_assert_cmpuint (head->rows->len, ==, 3);
  g_assert_cmpstr (((GStrv) g_ptr_array_index (head->rows, 2))[1], ==, "250");
  g_assert_cmpuint (g_array_index (head->row_lines, guint, 2), ==, 4);
  g_assert_null (head->measurement);
  g_assert_error (head->error, HR_ERROR, HR_ERROR_INVALID);
  g_assert_nonnull (strstr (head->error->message, "peaks.csv:1:"));
  g_assert_nonnull (strstr (head->error->message, "unit"));
}

/* With the unit said, the head's rows read as the whole file would. */
static void
test_head_with_unit (void)
{
  HrMeasureOptions options = { .unit = HR_MEASURE_UNIT_MIB };
  g_autoptr(HrMeasureCsvHead) head = head_of ("batch,peak\n1,100\n2,150\n4,250\n", &options);
  const HrMeasureSeries *s;

  g_assert_no_error (head->error);
  g_assert_false (head->needs_mapping);
  g_assert_nonnull (head->measurement);
  s = g_ptr_array_index (head->measurement->series, 0);
  g_assert_cmpuint (s->points->len, ==, 3);
  g_assert_cmpfloat (g_array_index (s->points, HrMeasurePoint, 1).batch, ==, 2);
  g_assert_cmpfloat (g_array_index (s->points, HrMeasurePoint, 1).bytes, ==, 150 * MiB);
}

/* The first bytes of a file: the line they cut short is left out, and
 * comment lines and a byte-order mark come before the header. */
static void
test_head_cut (void)
{
  const char *text = "\xef\xbb\xbf# measured on an L4\n\nbs;mem_gib\n1;1,5\n2;2,25\n4;3,";
  HrMeasureOptions options = { .decimal_comma = TRUE };
  g_autoptr(HrMeasureCsvHead) head = hr_measure_csv_head_read ("cut.csv", text, strlen (text),
                                                               FALSE, &options, 8);
  const HrMeasureSeries *s;

  g_assert_no_error (head->error);
  g_assert_cmpint (head->delimiter, ==, ';');
  g_assert_cmpstr (head->header, ==, "bs;mem_gib");
  g_assert_cmpuint (head->header_line, ==, 3);
  g_assert_cmpuint (head->rows->len, ==, 2);
  g_assert_cmpint (g_array_index (head->column_units, HrMeasureUnit, 1), ==, HR_MEASURE_UNIT_GIB);
  s = g_ptr_array_index (head->measurement->series, 0);
  g_assert_cmpuint (s->points->len, ==, 2);
  g_assert_cmpfloat (g_array_index (s->points, HrMeasurePoint, 0).bytes, ==, 1.5 * 1024 * MiB);
}

/* Formats Headroom knows need no mapping; JSON and logs are no CSV. */
static void
test_head_known (void)
{
  g_autoptr(HrMeasureCsvHead) probe =
    head_of ("micro_batch,status,max_memory_allocated\n1,ok,1000\n", NULL);
  g_autoptr(HrMeasureCsvHead) json = head_of ("{\"allocated_bytes.all.peak\": 1000}\n", NULL);
  g_autoptr(HrMeasureCsvHead) both = head_of ("batch,mem_a,mem_b\n1,2,3\n", NULL);

  g_assert_true (probe->is_csv);
  g_assert_false (probe->needs_mapping);
  g_assert_cmpint (probe->format, ==, HR_MEASURE_FORMAT_PROBE);
  g_assert_nonnull (probe->measurement);
  g_assert_false (json->is_csv);
  g_assert_false (json->needs_mapping);
  g_assert_null (json->header);
  /* two columns could be the memory: the user says which */
  g_assert_true (both->needs_mapping);
  g_assert_cmpint (both->batch_column, ==, -1);
  g_assert_nonnull (strstr (both->error->message, "mem_a"));
}

/* Mapped columns, and a bad value named by its line and column. */
static void
test_head_mapped (void)
{
  HrMeasureOptions options = { .batch_column = (char *) "n", .memory_column = (char *) "used",
                               .unit = HR_MEASURE_UNIT_GB };
  g_autoptr(HrMeasureCsvHead) head = head_of ("n,used,seq_len\n1,3,128\n2,x,128\n", &options);
  HrMeasureOptions no_seq = options;
  g_autoptr(HrMeasureCsvHead) good = NULL;
  const HrMeasurePoint *p;

  g_assert_cmpint (head->batch_column, ==, 0);
  g_assert_cmpint (head->memory_column, ==, 1);
  g_assert_cmpint (head->seq_column, ==, 2);
  g_assert_cmpuint (head->rows->len, ==, 2);
  g_assert_null (head->measurement);
  g_assert_nonnull (strstr (head->error->message, "peaks.csv:3:3:"));

  /* "" says there is no sequence-length column, whatever the names */
  no_seq.seq_column = (char *) "";
  good = head_of ("n,used,seq_len\n1,3,128\n", &no_seq);
  g_assert_no_error (good->error);
  g_assert_cmpint (good->seq_column, ==, -1);
  p = &g_array_index (((HrMeasureSeries *) g_ptr_array_index (good->measurement->series,
                                                              0))->points, HrMeasurePoint, 0);
  g_assert_true (isnan (p->seq_len));
  g_assert_cmpfloat (p->bytes, ==, 3e9);
}

/* A file without a header: the columns are numbers, every line a row. */
static void
test_head_no_header (void)
{
  HrMeasureOptions options = { .no_header = TRUE, .batch_column = (char *) "1",
                               .memory_column = (char *) "2", .unit = HR_MEASURE_UNIT_BYTES };
  g_autoptr(HrMeasureCsvHead) head = head_of ("1\t1000\n2\t2000\n", &options);

  g_assert_no_error (head->error);
  g_assert_null (head->header);
  g_assert_cmpint (head->delimiter, ==, '\t');
  g_assert_cmpstr (g_ptr_array_index (head->columns, 1), ==, "2");
  g_assert_cmpuint (head->rows->len, ==, 2);
  g_assert_cmpuint (g_array_index (head->row_lines, guint, 0), ==, 1);
  g_assert_cmpuint (((HrMeasureSeries *) g_ptr_array_index (head->measurement->series,
                                                            0))->points->len, ==, 2);
}

/* The options as headroom-cli's arguments, and back. */
static void
test_options_args (void)
{
  HrMeasureOptions options = { .delimiter = '\t', .decimal_comma = TRUE,
                               .batch_column = (char *) "micro batch",
                               .memory_column = (char *) "peak", .seq_column = (char *) "",
                               .unit = HR_MEASURE_UNIT_KIB, .metric = HR_METRIC_RESERVED,
                               .has_metric = TRUE };
  const char *expected[] = { "--delimiter", "tab", "--decimal-comma", "--batch-column",
                             "micro batch", "--memory-column", "peak", "--seq-column", "",
                             "--unit", "KiB", "--metric", "reserved", NULL };
  const char *bad_unit[] = { "--unit", "furlongs", NULL };
  const char *unknown[] = { "--colour", NULL };
  g_auto(GStrv) args = hr_measure_options_to_args (&options);
  HrMeasureOptions back = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_cmpstrv (args, expected);
  g_assert_true (hr_measure_options_from_args (&back, (const char * const *) args, &error));
  g_assert_no_error (error);
  g_assert_cmpint (back.delimiter, ==, '\t');
  g_assert_true (back.decimal_comma);
  g_assert_false (back.no_header);
  g_assert_cmpstr (back.batch_column, ==, "micro batch");
  g_assert_cmpstr (back.memory_column, ==, "peak");
  g_assert_cmpstr (back.seq_column, ==, "");
  g_assert_cmpint (back.unit, ==, HR_MEASURE_UNIT_KIB);
  g_assert_true (back.has_metric);
  g_assert_cmpint (back.metric, ==, HR_METRIC_RESERVED);

  /* as one line, quoted only where a shell needs it */
  {
    g_autofree char *line = hr_measure_options_to_string (&options);
    HrMeasureOptions again = { 0 };

    g_assert_cmpstr (line, ==, "--delimiter tab --decimal-comma --batch-column 'micro batch' "
                               "--memory-column peak --seq-column '' --unit KiB "
                               "--metric reserved");
    g_assert_true (hr_measure_options_from_string (&again, line, &error));
    g_assert_no_error (error);
    g_assert_cmpstr (again.batch_column, ==, "micro batch");
    g_assert_cmpstr (again.seq_column, ==, "");
    hr_measure_options_clear (&again);
    g_assert_false (hr_measure_options_from_string (&again, "--unit 'MiB", &error));
    g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
    g_clear_error (&error);
  }

  g_assert_false (hr_measure_options_from_args (&back, bad_unit, &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "furlongs"));
  g_assert_null (back.batch_column);
  g_clear_error (&error);
  g_assert_false (hr_measure_options_from_args (&back, unknown, &error));
  g_assert_nonnull (strstr (error->message, "--colour"));
  hr_measure_options_clear (&back);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/measure-mapping/head-needs-unit", test_head_needs_unit);
  g_test_add_func ("/measure-mapping/head-with-unit", test_head_with_unit);
  g_test_add_func ("/measure-mapping/head-cut", test_head_cut);
  g_test_add_func ("/measure-mapping/head-known", test_head_known);
  g_test_add_func ("/measure-mapping/head-mapped", test_head_mapped);
  g_test_add_func ("/measure-mapping/head-no-header", test_head_no_header);
  g_test_add_func ("/measure-mapping/options-args", test_options_args);
  return g_test_run ();
}
