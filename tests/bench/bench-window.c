/* bench-window.c: the window's full redraw, per frame
 *
 * What one change costs: set the micro-batch through its spin button (the
 * window makes one analysis of the scenario, HrAnalysis, which estimates
 * every compared GPU once, ranks the levers and sweeps; the lists and the
 * charts read it), then render the whole window to a texture as the frame
 * clock would.  Prints the mean and worst time per frame, and what one
 * change costs in estimator work: analyses, estimates, plans, passes of the
 * estimator's arithmetic and scenario copies (hr_estimate_counters_get).  Needs
 * a display (xvfb-run); run with `meson test --benchmark`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <stdio.h>

#include "hr-window.h"

#define FRAMES 60

static void
render (GtkWidget *window)
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

int
main (int   argc,
      char *argv[])
{
  HrWindow *window;
  GtkSpinButton *batch;
  gint64 deadline, total = 0, worst = 0, estimate_total = 0, layout_total = 0;
  HrEstimateCounters counters;

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

  batch = GTK_SPIN_BUTTON (hr_window_get_setting_widget (window, "micro_batch"));
  hr_estimate_counters_reset ();
  for (guint i = 0; i < FRAMES; i++)
    {
      gint64 start = g_get_monotonic_time ();
      gint64 estimated, laid_out, elapsed;

      gtk_spin_button_set_value (batch, 1 + i % 16);
      estimated = g_get_monotonic_time ();
      /* Layout as the next frame does it, then draw everything. */
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      laid_out = g_get_monotonic_time ();
      render (GTK_WIDGET (window));
      elapsed = g_get_monotonic_time () - start;
      total += elapsed;
      layout_total += laid_out - estimated;
      estimate_total += estimated - start;
      worst = MAX (worst, elapsed);
    }

  hr_estimate_counters_get (&counters);
  printf ("one change of the micro-batch: %.1f analyses, %.1f estimates (one per GPU "
          "compared), %.1f plans, %.1f passes of the estimator, %.1f scenario copies\n",
          (double) counters.analyses / FRAMES, (double) counters.estimates / FRAMES, (double) counters.plans / FRAMES,
          (double) counters.passes / FRAMES, (double) counters.scenario_copies / FRAMES);
  printf ("window redraw, 4 GPUs, 1400x900: %.2f ms per frame (re-estimate and rebuild "
          "%.2f ms, layout %.2f ms, render %.2f ms), worst %.2f ms, over %u frames\n",
          total / 1000.0 / FRAMES, estimate_total / 1000.0 / FRAMES,
          layout_total / 1000.0 / FRAMES,
          (total - estimate_total - layout_total) / 1000.0 / FRAMES, worst / 1000.0, FRAMES);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
