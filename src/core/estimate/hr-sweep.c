/* hr-sweep.c: peak versus micro-batch, and the fit on many GPUs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-sweep"

#include <glib/gi18n-lib.h>

#include <math.h>

#include "hr-sweep.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

GArray *
hr_sweep_run (const HrScenario *scenario,
              guint             from,
              guint             to,
              guint             step,
              gboolean          powers_of_two)
{
  g_autoptr(HrPlan) plan = NULL;
  GArray *points;

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (from >= 1 && to >= from, NULL);

  plan = hr_plan_new (scenario);
  points = g_array_new (FALSE, TRUE, sizeof (HrSweepPoint));

  if (powers_of_two)
    {
      for (guint64 b = 1; b <= to; b *= 2)
        {
          HrSweepPoint point = { 0 };

          if (b < from)
            continue;
          point.micro_batch = b;
          hr_plan_peak (plan, b, &point.peak);
          g_array_append_val (points, point);
        }
    }
  else
    {
      for (guint64 b = from; b <= to; b += MAX (1, step))
        {
          HrSweepPoint point = { 0 };

          point.micro_batch = b;
          hr_plan_peak (plan, b, &point.peak);
          g_array_append_val (points, point);
        }
    }

  return points;
}

void
hr_gpu_fit_free (HrGpuFit *fit)
{
  if (fit == NULL)
    return;

  g_free (fit->gpu_id);
  g_free (fit->gpu_name);
  g_free (fit->reason);
  g_free (fit);
}

GPtrArray *
hr_fit_gpus (const HrScenario *scenario,
             GPtrArray        *gpus)
{
  GPtrArray *fits = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_gpu_fit_free);

  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (gpus != NULL, NULL);

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);
      g_autoptr(HrScenario) on_gpu = hr_scenario_copy (scenario);
      g_autoptr(HrPlan) plan = NULL;
      HrGpuFit *fit = g_new0 (HrGpuFit, 1);

      /* The GPU matters to the estimate itself under JAX preallocation, so
       * each card gets its own plan. */
      g_clear_pointer (&on_gpu->gpu, hr_gpu_free);
      on_gpu->gpu = hr_gpu_copy (gpu);
      plan = hr_plan_new (on_gpu);

      fit->gpu_id = g_strdup (gpu->id);
      fit->gpu_name = g_strdup (gpu->name);
      fit->capacity = gpu->memory;
      fit->usable = hr_plan_usable (plan, gpu);
      hr_plan_peak (plan, scenario->micro_batch, &fit->peak);
      fit->fits = fit->peak.need <= fit->usable;
      fit->max_micro_batch = hr_plan_max_micro_batch (plan, fit->usable, &fit->max_is_lower_bound);

      if (fit->max_micro_batch == 0)
        {
          HrPeak one;

          hr_plan_peak (plan, 1, &one);
          fit->reason = g_strdup_printf (_("micro-batch 1 needs %.1f GiB of %.1f GiB usable"),
                                         one.need / GiB, fit->usable / GiB);
        }
      else if (!fit->fits)
        fit->reason = g_strdup_printf (_("micro-batch %u needs %.1f GiB of %.1f GiB usable"),
                                       scenario->micro_batch, fit->peak.need / GiB,
                                       fit->usable / GiB);
      else
        fit->reason = g_strdup_printf (_("%.1f GiB to spare"),
                                       ((double) fit->usable - fit->peak.need) / GiB);

      g_ptr_array_add (fits, fit);
    }

  return fits;
}

