/* bench-estimate.c: how long an estimate and a full sweep take
 *
 * Run with `meson test --benchmark`; it prints the time per call and never
 * fails on speed (docs/DESIGN.md: performance is measured, not asserted).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "hr-core.h"
#include "hr-test-utils.h"

int
main (void)
{
  g_autoptr(HrScenario) vla = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                                "\"gr00t-n1.7\", \"method\": \"freeze\", "
                                                "\"micro_batch\": 32, \"gpu\": \"h100-sxm\"}");
  g_autoptr(HrScenario) llm = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                                "\"llama-3.1-8b\", \"method\": \"qlora\", "
                                                "\"micro_batch\": 4, \"seq_len\": 2048, \"gpu\": "
                                                "\"rtx-4090\"}");
  GPtrArray *gpus = hr_catalog_get_gpus (hr_catalog_get_default ());
  const guint n_estimates = 2000;
  guint64 checksum = 0;
  gint64 start, elapsed;

  /* One estimate: everything the window recomputes when an input changes
   * (breakdown, notes and the max-batch search on the scenario's GPU). */
  start = g_get_monotonic_time ();
  for (guint i = 0; i < n_estimates; i++)
    {
      g_autoptr(HrEstimate) est = hr_estimate_new (i % 2 ? vla : llm);

      checksum += est->total;
    }
  elapsed = g_get_monotonic_time () - start;
  printf ("estimate (with fit and breakdown): %.1f µs per call over %u calls\n",
          (double) elapsed / n_estimates, n_estimates);

  /* A sweep of micro-batch 1..1024 on every catalog GPU: the curve chart's
   * worst case. */
  start = g_get_monotonic_time ();
  for (guint g = 0; g < gpus->len; g++)
    {
      g_autoptr(HrScenario) on = hr_scenario_copy (llm);
      g_autoptr(GArray) points = NULL;

      g_clear_pointer (&on->gpu, hr_gpu_free);
      on->gpu = hr_gpu_copy (g_ptr_array_index (gpus, g));
      points = hr_sweep_run (on, 1, 1024, 1, FALSE);
      checksum += g_array_index (points, HrSweepPoint, points->len - 1).peak.total;
    }
  elapsed = g_get_monotonic_time () - start;
  printf ("sweep 1..1024 on %u GPUs: %.1f ms in all, %.2f µs per point\n", gpus->len,
          elapsed / 1000.0, (double) elapsed / (1024.0 * gpus->len));

  /* The knob ranking: a dozen re-estimates with their fits. */
  start = g_get_monotonic_time ();
  for (guint i = 0; i < 100; i++)
    {
      g_autoptr(GPtrArray) knobs = hr_knobs_rank (llm);

      checksum += knobs->len;
    }
  elapsed = g_get_monotonic_time () - start;
  printf ("knob ranking: %.1f µs per call\n", (double) elapsed / 100);

  printf ("(checksum %" G_GUINT64_FORMAT ")\n", checksum);
  return 0;
}
