/* hr-cost.h: buying against renting
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Average days in a month (365.25 / 12). */
#define HR_DAYS_PER_MONTH 30.4375

/* Months of use after which owning a card of @price_usd costs less than
 * renting one at @usd_per_hour for @hours_per_day, counting the owned
 * card's electricity (@watts at @usd_per_kwh; pass 0 to leave it out).
 * Returns INFINITY when renting is never dearer. */
double hr_cost_break_even_months (double price_usd,
                                  double usd_per_hour,
                                  double hours_per_day,
                                  double watts,
                                  double usd_per_kwh);

G_END_DECLS
