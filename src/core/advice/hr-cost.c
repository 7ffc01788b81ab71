/* hr-cost.c: buying against renting
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-cost"

#include <math.h>

#include "hr-cost.h"

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
