/* hr-chart-types.c: geometry that layouts return
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <math.h>

#include "hr-chart-types.h"

gboolean
hr_rect_contains (const HrRect *rect,
                  double        x,
                  double        y)
{
  return x >= rect->x && x <= rect->x + rect->width && y >= rect->y && y <= rect->y + rect->height;
}

gboolean
hr_rect_intersects (const HrRect *a,
                    const HrRect *b)
{
  return a->x < b->x + b->width && b->x < a->x + a->width &&
         a->y < b->y + b->height && b->y < a->y + a->height;
}

gboolean
hr_rect_inside (const HrRect *inner,
                const HrRect *outer,
                double        slack)
{
  return inner->x >= outer->x - slack && inner->y >= outer->y - slack &&
         inner->x + inner->width <= outer->x + outer->width + slack &&
         inner->y + inner->height <= outer->y + outer->height + slack;
}

void
hr_chart_label_clear (HrChartLabel *label)
{
  g_clear_pointer (&label->text, g_free);
}

void
hr_axis_tick_clear (gpointer tick)
{
  hr_chart_label_clear (&((HrAxisTick *) tick)->label);
}

double
hr_nice_ticks (double  lo,
               double  hi,
               guint   target,
               GArray *ticks)
{
  static const double steps[] = { 1.0, 2.0, 2.5, 5.0, 10.0 };
  double span, raw, magnitude, step = 1.0;

  g_return_val_if_fail (ticks != NULL, 0);

  g_array_set_size (ticks, 0);
  if (!(hi > lo))
    hi = lo + 1.0;

  span = hi - lo;
  raw = span / MAX (1, target);
  magnitude = pow (10.0, floor (log10 (raw)));

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      step = steps[i] * magnitude;
      if (step >= raw)
        break;
    }

  for (double v = ceil (lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    {
      double clean = fabs (v) < step * 1e-9 ? 0.0 : v;

      g_array_append_val (ticks, clean);
    }

  return step;
}
