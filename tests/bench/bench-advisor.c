/* bench-advisor.c: how long the advisor's recommendations take
 *
 * The wizard recomputes them when an answer changes; run with `meson test
 * --benchmark`.  It prints the time per call and never fails on speed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>

#include "hr-core.h"
#include "hr-test-utils.h"

static double
time_advice (const HrScenario     *scenario,
             const HrAdviceInputs *facts,
             guint                 n,
             guint64              *checksum)
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (hr_advisor_get_default ());
      g_autoptr(HrAdvice) advice = NULL;
      HrAdviceInputs inputs;

      hr_advisor_walk_auto (walk, facts);
      hr_advisor_walk_get_inputs (walk, facts, &inputs);
      advice = hr_advice_new (scenario, hr_catalog_get_default (), &inputs, 6);
      *checksum += advice->recommendations->len + advice->host.ram;
    }

  return (double) (g_get_monotonic_time () - start) / n;
}

int
main (void)
{
  g_autoptr(HrScenario) vla = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                                "\"gr00t-n1.7\", \"method\": \"freeze\", "
                                                "\"micro_batch\": 32}");
  g_autoptr(HrScenario) llm = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                                "\"llama-3.1-8b\", \"task\": \"train\", "
                                                "\"micro_batch\": 2, \"seq_len\": 4096, "
                                                "\"recompute\": \"full\", \"attention\": "
                                                "\"flash\"}");
  HrAdviceInputs one = { .known = HR_FACT_TASK, .task = HR_TASK_FINETUNE };
  HrAdviceInputs sharded = {
    .known = HR_FACT_TASK | HR_FACT_DATACENTER | HR_FACT_HOURS_PER_DAY,
    .task = HR_TASK_TRAIN, .datacenter = TRUE, .hours_per_day = 24,
  };
  guint64 checksum = 0;

  /* Every catalog card checked once. */
  printf ("advice, one card per run (GR00T fine-tune): %.1f ms per call\n",
          time_advice (vla, &one, 20, &checksum) / 1000.0);
  /* The worst case: most cards searched over 2, 4 … 64-way sharding. */
  printf ("advice, sharded search (8B pretraining): %.1f ms per call\n",
          time_advice (llm, &sharded, 10, &checksum) / 1000.0);
  printf ("(checksum %" G_GUINT64_FORMAT ")\n", checksum);
  return 0;
}
