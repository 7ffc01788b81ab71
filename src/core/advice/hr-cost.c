/* hr-cost.c: buying against renting
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-cost"

#include <math.h>

#include "hr-cost.h"
#include "hr-catalog.h"

double
hr_cost_break_even_months (double price_usd,
                           double usd_per_hour,
                           double hours_per_day,
                           double watts,
                           double usd_per_kwh)
{
  double saved_per_hour;

  g_return_val_if_fail (price_usd >= 0, NAN);
  g_return_val_if_fail (usd_per_hour >= 0, NAN);
  g_return_val_if_fail (hours_per_day >= 0 && hours_per_day <= 24, NAN);

  /* Each hour on an owned card saves the rent but pays the power. */
  saved_per_hour = usd_per_hour - watts / 1000.0 * usd_per_kwh;
  if (saved_per_hour <= 0 || hours_per_day <= 0)
    return INFINITY;

  return price_usd / (saved_per_hour * hours_per_day * HR_DAYS_PER_MONTH);
}

double
hr_cost_step_flops (const HrScenario *scenario,
                    gboolean         *lower_bound)
{
  const HrModel *model;
  gboolean world_model;
  gboolean bound = FALSE;
  double samples, flops = 0;
  guint seq_len, image_width, image_height, frames;

  g_return_val_if_fail (scenario != NULL && scenario->model != NULL, 0);

  model = scenario->model;
  world_model = g_strcmp0 (model->family, "world-model") == 0;
  samples = (double) MAX (1, scenario->micro_batch) * MAX (1, scenario->grad_accum);
  /* the figures the estimate reads: the model's defaults where the
   * scenario names none */
  seq_len = MAX (1, hr_scenario_get_seq_len (scenario));
  hr_scenario_get_image_size (scenario, &image_width, &image_height);
  frames = hr_scenario_get_frames (scenario);

  for (guint i = 0; model->components != NULL && i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);
      double params = (double) c->params;
      double per_sample, per_param;
      gboolean trained, backward;

      if (c->kind == HR_COMPONENT_TRANSFORMER)
        {
          guint64 active = hr_component_active_params (c);

          if (active > 0)
            params = (double) active;
          per_sample = hr_component_tokens_video (c, seq_len, image_width, image_height,
                                                  frames);
        }
      else
        {
          /* An RSSM steps once per timestep; DreamerV3's imagination
           * (imag_length steps from every start) is not counted. */
          per_sample = world_model || c->kind == HR_COMPONENT_RSSM ? seq_len : 1;
          bound = TRUE;
        }

      if (!hr_scenario_is_training (scenario))
        {
          trained = FALSE;
          backward = FALSE;
        }
      else if (scenario->method == HR_METHOD_FULL)
        {
          trained = TRUE;
          backward = TRUE;
        }
      else if (scenario->method == HR_METHOD_FREEZE)
        {
          trained = c->trainable;
          backward = c->trainable || c->backprop;
        }
      else
        {
          /* adapters: the base is frozen, the gradient flows through it */
          trained = FALSE;
          backward = c->trainable || c->backprop;
        }

      per_param = trained ? 6 : backward ? 4 : 2;
      if (backward && scenario->recompute == HR_RECOMPUTE_FULL)
        per_param += 2;
      flops += per_param * params * MAX (1.0, per_sample) * samples;
    }

  if (lower_bound != NULL)
    *lower_bound = bound;
  return flops;
}
