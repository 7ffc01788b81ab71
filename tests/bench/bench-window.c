/* bench-window.c: what one change costs the window, up to the painted frame
 *
 * One change: set the micro-batch through its spin button (the window
 * makes one analysis of the scenario, HrAnalysis, which estimates every
 * compared GPU once, ranks the levers and sweeps; the rows and the charts
 * read it), then let the frame clock lay the window out, snapshot it and
 * render it onto the window, as it does for a user.  Run in GTK's software
 * renderer (GSK_RENDERER=cairo, what a machine without GL or a remote
 * session gets) at 1400x900 with the four GPUs the window compares by
 * default.
 *
 * It prints, per change, the processor time from the change to the end of
 * the painted frame (the work; the wall time adds the wait for the frame
 * clock's tick), and Headroom's own part of it: the analysis, the window's
 * edit (its undo state, the settings rows) and updates of its rows and
 * labels, and the charts' layout and rendering
 * (hr_window_counters_get, hr_chart_view_counters_get); the rest is GTK's
 * layout, snapshot and rendering.  Medians, since other builds may load
 * the machine; the mean and the worst follow.  Then what redrawing the
 * whole window into a texture costs (a screenshot: no damage tracking),
 * and the estimator work per change (hr_estimate_counters_get).  The goal
 * is at most 33 ms per change, Headroom's own at most 2 ms.  Needs a
 * display (xvfb-run); run with `meson test --benchmark`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "app/hr-app-test.h"
#include "hr-window.h"

#define CHANGES 60

static gboolean painted;

static gint64
cpu_time_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
on_after_paint (GdkFrameClock *clock,
                gpointer       user_data)
{
  painted = TRUE;
}

/* Keeps the main loop from sleeping past the deadline. */
static gboolean
wake_up (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

static void
render_to_texture (GtkWidget *window)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (window);
  int height = gtk_widget_get_height (window);

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static double
median_ms (gint64 *values,
           guint   n)
{
  gint64 sorted[CHANGES];

  memcpy (sorted, values, n * sizeof (gint64));
  qsort (sorted, n, sizeof (gint64), compare_gint64);
  return (n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2) / 1000.0;
}

static double
mean_ms (const gint64 *values,
         guint         n)
{
  gint64 sum = 0;

  for (guint i = 0; i < n; i++)
    sum += values[i];
  return sum / 1000.0 / n;
}

static double
max_ms (const gint64 *values,
        guint         n)
{
  gint64 worst = 0;

  for (guint i = 0; i < n; i++)
    worst = MAX (worst, values[i]);
  return worst / 1000.0;
}

int
main (int   argc,
      char *argv[])
{
  HrWindow *window;
  GtkSpinButton *batch;
  GdkFrameClock *clock;
  gint64 deadline;
  gint64 work[CHANGES], wall[CHANGES], own[CHANGES], analysis[CHANGES], window_part[CHANGES];
  gint64 charts[CHANGES], full[CHANGES] = { 0 };
  guint64 renders = 0;
  g_auto(GStrv) gpus = NULL;
  HrEstimateCounters estimator;

  if (!gtk_init_check ())
    {
      g_printerr ("bench-window: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();

  window = hr_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  gpus = hr_window_dup_gpu_ids (window);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), NULL);

  batch = GTK_SPIN_BUTTON (hr_test_setting_widget (window, "micro_batch"));
  hr_estimate_counters_reset ();
  for (guint i = 0; i < CHANGES; i++)
    {
      HrWindowCounters w;
      HrChartViewCounters c;
      gint64 start, cpu_start;
      guint wake;

      hr_window_counters_reset ();
      hr_chart_view_counters_reset ();
      painted = FALSE;
      start = g_get_monotonic_time ();
      cpu_start = cpu_time_us ();
      /* Always another value: 1 to 16 and round again. */
      gtk_spin_button_set_value (batch, gtk_spin_button_get_value_as_int (batch) % 16 + 1);
      /* Until the frame clock has laid out, drawn and painted the window. */
      deadline = start + 5 * G_USEC_PER_SEC;
      wake = g_timeout_add (100, wake_up, NULL);
      while (!painted && g_get_monotonic_time () < deadline)
        g_main_context_iteration (NULL, TRUE);
      g_source_remove (wake);
      work[i] = cpu_time_us () - cpu_start;
      wall[i] = g_get_monotonic_time () - start;
      hr_window_counters_get (&w);
      hr_chart_view_counters_get (&c);
      analysis[i] = w.analysis_us;
      /* the whole edit: the undo state and the settings rows besides the
       * refresh */
      window_part[i] = MAX (w.edit_us, w.refresh_us) - w.analysis_us;
      charts[i] = c.render_us;
      own[i] = MAX (w.edit_us, w.refresh_us) + c.render_us;
      renders += c.renders;
      if (!painted)
        g_printerr ("bench-window: change %u was never painted\n", i);
    }
  /* --changes-only: for a profiler, the changes alone. */
  for (guint i = 0; i < CHANGES && !(argc > 1 && g_str_equal (argv[1], "--changes-only")); i++)
    {
      gint64 start = g_get_monotonic_time ();

      render_to_texture (GTK_WIDGET (window));
      full[i] = g_get_monotonic_time () - start;
    }

  hr_estimate_counters_get (&estimator);
  printf ("one change of the micro-batch: %.1f analyses, %.1f estimates (one per GPU "
          "compared), %.1f plans, %.1f passes of the estimator, %.1f scenario copies; "
          "%.1f chart renders\n",
          (double) estimator.analyses / CHANGES, (double) estimator.estimates / CHANGES,
          (double) estimator.plans / CHANGES, (double) estimator.passes / CHANGES,
          (double) estimator.scenario_copies / CHANGES, (double) renders / CHANGES);
  printf ("one change, %u GPUs, 1400x900, GSK_RENDERER=%s: %.2f ms of work to the painted "
          "frame (mean %.2f, worst %.2f), %.2f ms from the change to the frame\n",
          g_strv_length (gpus), g_getenv ("GSK_RENDERER") ? g_getenv ("GSK_RENDERER") : "default",
          median_ms (work, CHANGES), mean_ms (work, CHANGES), max_ms (work, CHANGES),
          median_ms (wall, CHANGES));
  printf ("Headroom's own part: %.2f ms (mean %.2f, worst %.2f): analysis %.2f ms, rows and "
          "labels %.2f ms, charts' layout and render %.2f ms; GTK's layout, snapshot and "
          "render the rest\n",
          median_ms (own, CHANGES), mean_ms (own, CHANGES), max_ms (own, CHANGES),
          median_ms (analysis, CHANGES), median_ms (window_part, CHANGES),
          median_ms (charts, CHANGES));
  printf ("the whole window drawn into a texture (a screenshot, no damage tracking): "
          "%.2f ms\n", median_ms (full, CHANGES));
  printf ("medians over %u changes\n", CHANGES);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
