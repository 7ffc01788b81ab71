/* bench-measure.c: how fast a large nvidia-smi log is imported and drawn
 *
 * Run with `meson test --benchmark`; it prints MB/s and peak memory and
 * never fails on speed (docs/DESIGN.md: performance is measured, not
 * asserted).  Two ways of reading: the per-GPU peaks with every log thinned
 * to HR_MEASURE_SUMMARY_POINTS points (what `headroom-cli measure` does,
 * in bounded memory), and every point kept with a line fitted through GPU
 * 0's (what a window that draws the whole log needs).
 *
 * Then the curve export of `headroom-cli export --measurements`, from the
 * file to a PNG: a 10,000,000-row log (drawn as its peak), and a
 * 1,000,000-row sweep (every point on the curve, thinned per pixel
 * column as it is drawn).
 *
 * With --write FILE it only writes the generated log
 * (tests/bench/measure-vs-pandas.py times pandas on the same file); with
 * --file FILE [--points] it reads that file once, in a process of its
 * own, so that its peak memory is the import's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "hr-chart.h"
#include "hr-core.h"

#define N_ROWS 1000000
#define N_GPUS 4

/* nvidia-smi --query-gpu=timestamp,index,name,memory.used,memory.total,
 * utilization.gpu --format=csv -l 1, four GPUs interleaved. */
static GString *
generate_log (void)
{
  GString *log = g_string_sized_new ((gsize) N_ROWS * 96);
  guint32 state = 12345;

  g_string_append (log, "timestamp, index, name, memory.used [MiB], memory.total [MiB], "
                        "utilization.gpu [%]\n");
  for (guint i = 0; i < N_ROWS; i++)
    {
      guint second = i / N_GPUS, gpu = i % N_GPUS;
      guint used;

      state = state * 1664525u + 1013904223u;   /* Numerical Recipes' LCG */
      used = 20000 + (second % 600) * 80 + (state >> 20) % 512;
      g_string_append_printf (log, "2024/05/14 %02u:%02u:%02u.%03u, %u, NVIDIA A100-SXM4-80GB, "
                                   "%u MiB, 81920 MiB, %u %%\n",
                              (second / 3600) % 24, (second / 60) % 60, second % 60,
                              (i * 7) % 1000, gpu, used, (state >> 8) % 100);
    }

  return log;
}

/* This process's CPU time: what to compare on a machine others share. */
static double
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
peak_rss_mib (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;   /* kilobytes on Linux */
}

/* Reads the log from @path, or from @data when @path is NULL; @points:
 * every point kept and GPU 0's fitted, else the per-GPU peaks of a
 * summary. Returns the seconds it took. */
static double
import (const char *name,
        const char *path,
        const char *data,
        gsize       length,
        gboolean    points)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrMeasurement) m = NULL;
  g_autoptr(HrFit) fit = NULL;
  HrMeasureOptions options = { 0 };
  HrMeasureSeries *gpu0;
  gint64 start = g_get_monotonic_time ();
  double cpu_start = cpu_seconds ();
  double seconds, cpu;

  options.max_time_points = points ? 0 : HR_MEASURE_SUMMARY_POINTS;
  if (path != NULL)
    m = hr_measurement_load_file (path, &options, &error);
  else
    m = hr_measurement_parse_data (name, data, length, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->series->len, ==, N_GPUS);
  gpu0 = g_ptr_array_index (m->series, 0);

  if (points)
    {
      /* The same fit pandas is timed on: GPU 0's memory over time. */
      g_autoptr(GArray) t = g_array_sized_new (FALSE, FALSE, sizeof (double), gpu0->points->len);
      g_autoptr(GArray) y = g_array_sized_new (FALSE, FALSE, sizeof (double), gpu0->points->len);

      for (guint i = 0; i < gpu0->points->len; i++)
        {
          const HrMeasurePoint *p = &g_array_index (gpu0->points, HrMeasurePoint, i);

          g_array_append_val (t, p->t);
          g_array_append_val (y, p->bytes);
        }
      fit = hr_fit_linear ((double *) t->data, (double *) y->data, t->len, &error);
      g_assert_no_error (error);
    }

  seconds = (g_get_monotonic_time () - start) / 1e6;
  cpu = cpu_seconds () - cpu_start;
  printf ("%s: %u rows, %u GPUs, peak of GPU 0 %.0f MiB at t = %.3f s", name, m->rows,
          m->series->len, gpu0->peak / 1048576.0,
          g_array_index (gpu0->points, HrMeasurePoint, gpu0->peak_index).t);
  if (fit != NULL)
    printf (", slope %.3g B/s", fit->per_sample);
  printf (": %.3f s (%.3f s CPU), %.0f MB/s\n", seconds, cpu, length / seconds / 1e6);
  return seconds;
}

/* Writes @rows rows of a log over time (nvidia-smi's three columns a
 * query needs at least) or of a sweep, a chunk at a time. */
static char *
write_big (guint    rows,
           gboolean sweep,
           gsize   *length)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) chunk = g_string_sized_new (1 << 20);
  char *path = NULL;
  guint32 state = 777;
  FILE *f;
  int fd;

  fd = g_file_open_tmp ("headroom-bench-XXXXXX.csv", &path, &error);
  g_assert_no_error (error);
  f = fdopen (fd, "w");
  g_assert_nonnull (f);
  *length = 0;
  g_string_append (chunk, sweep ? "micro_batch,peak_gib\n"
                                : "timestamp, index, memory.used [MiB]\n");
  for (guint i = 0; i < rows; i++)
    {
      guint second = i / N_GPUS;

      state = state * 1664525u + 1013904223u;
      if (sweep)
        g_string_append_printf (chunk, "%u,%u.%03u\n", 1 + i % 64, 8 + (i % 64) * 2 / 3,
                                (state >> 12) % 1000);
      else
        g_string_append_printf (chunk, "2024/05/%02u %02u:%02u:%02u.%03u, %u, %u MiB\n",
                                1 + second / 86400 % 28, (second / 3600) % 24,
                                (second / 60) % 60, second % 60, (i * 7) % 1000, i % N_GPUS,
                                20000 + (second % 600) * 80 + (state >> 20) % 512);
      if (chunk->len > (1 << 20) - 128 || i + 1 == rows)
        {
          g_assert_cmpuint (fwrite (chunk->str, 1, chunk->len, f), ==, chunk->len);
          *length += chunk->len;
          g_string_truncate (chunk, 0);
        }
    }
  g_assert_cmpint (fclose (f), ==, 0);
  return path;
}

/* What `headroom-cli export SCENARIO --chart curve --measurements FILE`
 * does, from reading the file to the PNG's bytes. */
static void
export_curve (const char *name,
              const char *path,
              gsize       length)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrMeasurement) m = NULL;
  g_autoptr(HrCurveChartData) curve = NULL;
  g_autoptr(HrFit) fit = NULL;
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autofree char *scenario_path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                                     "smolvla-4090.json", NULL);
  HrMeasureOptions options = { 0 };
  HrExportOptions export = { HR_EXPORT_PNG, 1280, 800, 1, "curve", NULL };
  gboolean log2_x;
  guint upper;
  gint64 start = g_get_monotonic_time (), read_done;

  scenario = hr_scenario_load (scenario_path, hr_catalog_get_default (), &error);
  g_assert_no_error (error);
  options.max_time_points = HR_MEASURE_SUMMARY_POINTS;
  m = hr_measurement_load_file (path, &options, &error);
  g_assert_no_error (error);
  read_done = g_get_monotonic_time ();

  g_ptr_array_add (gpus, scenario->gpu);
  hr_curve_chart_batch_range (scenario, gpus, &upper, &log2_x);
  upper = hr_curve_chart_measurement_batch_range (m, upper);
  curve = hr_curve_chart_data_new_for_scenario (scenario, gpus, 1, upper, log2_x);
  if (hr_measurement_get_sweep (m) != NULL)
    fit = hr_fit_series (hr_measurement_get_sweep (m), NULL);
  hr_curve_chart_data_add_measurement (curve, m, fit, scenario->micro_batch);
  png = hr_chart_export_bytes (&export, style, hr_curve_chart_draw, curve, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (png), >, 1000);

  printf ("export of %s, %u rows (%.0f MB), %u measured points on the curve: %.3f s "
          "(reading %.3f s), peak RSS %.1f MiB\n", name, m->rows, length / 1e6,
          curve->measured->len, (g_get_monotonic_time () - start) / 1e6,
          (read_done - start) / 1e6, peak_rss_mib ());
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GString) log = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  int fd;

  if (argc >= 3 && g_str_equal (argv[1], "--file"))
    {
      gboolean points = argc == 4 && g_str_equal (argv[3], "--points");
      GStatBuf st;

      g_assert_cmpint (g_stat (argv[2], &st), ==, 0);
      import (points ? "every point, streamed from the file" : "per-GPU peaks, streamed from "
              "the file", argv[2], NULL, st.st_size, points);
      printf ("peak RSS %.1f MiB\n", peak_rss_mib ());
      return 0;
    }

  log = generate_log ();

  if (argc == 3 && g_str_equal (argv[1], "--write"))
    {
      g_assert_true (g_file_set_contents (argv[2], log->str, log->len, &error));
      return 0;
    }

  import ("per-GPU peaks, from memory", NULL, log->str, log->len, FALSE);
  import ("every point and a fit, from memory", NULL, log->str, log->len, TRUE);

  fd = g_file_open_tmp ("headroom-bench-XXXXXX.csv", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, log->str, log->len, &error));
  import ("per-GPU peaks, streamed from a file", path, NULL, log->len, FALSE);
  import ("every point and a fit, streamed from a file", path, NULL, log->len, TRUE);
  g_unlink (path);
  g_string_free (g_steal_pointer (&log), TRUE);

  if (g_getenv ("HEADROOM_EXAMPLES_DIR") == NULL)
    {
      printf ("exports not timed: HEADROOM_EXAMPLES_DIR is not set "
              "(meson test --benchmark sets it)\n");
      return 0;
    }
  {
    gsize length;
    g_autofree char *big = write_big (10 * N_ROWS, FALSE, &length);

    export_curve ("a log over time", big, length);
    g_unlink (big);
  }
  {
    gsize length;
    g_autofree char *big = write_big (N_ROWS, TRUE, &length);

    export_curve ("a sweep", big, length);
    g_unlink (big);
  }
  return 0;
}
