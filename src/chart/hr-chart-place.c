/* hr-chart-place.c: placing labels where nothing else is
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <math.h>

#include "hr-chart-place.h"

typedef struct {
  HrRect rect;
  double cost;
} Obstacle;

typedef struct {
  double x0, y0, x1, y1;
  double halo;
  double cost;
} Segment;

struct _HrPlacer {
  HrRect  area;
  double  gap;
  GArray *labels;     /* HrRect */
  GArray *obstacles;  /* Obstacle */
  GArray *segments;   /* Segment */
};

HrPlacer *
hr_placer_new (const HrRect *area,
               double        gap)
{
  HrPlacer *placer = g_new0 (HrPlacer, 1);

  g_return_val_if_fail (area != NULL, placer);

  placer->area = *area;
  placer->gap = MAX (gap, 0);
  placer->labels = g_array_new (FALSE, FALSE, sizeof (HrRect));
  placer->obstacles = g_array_new (FALSE, FALSE, sizeof (Obstacle));
  placer->segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  return placer;
}

void
hr_placer_free (HrPlacer *placer)
{
  if (placer == NULL)
    return;
  g_array_unref (placer->labels);
  g_array_unref (placer->obstacles);
  g_array_unref (placer->segments);
  g_free (placer);
}

void
hr_placer_avoid (HrPlacer     *placer,
                 const HrRect *rect,
                 double        cost)
{
  Obstacle o;

  g_return_if_fail (placer != NULL && rect != NULL);

  if (!(rect->width > 0 || rect->height > 0))
    return;
  o.rect = *rect;
  o.cost = cost;
  g_array_append_val (placer->obstacles, o);
}

void
hr_placer_block (HrPlacer     *placer,
                 const HrRect *rect)
{
  hr_placer_avoid (placer, rect, HR_PLACE_FORBIDDEN);
}

void
hr_placer_avoid_segment (HrPlacer *placer,
                         double    x0,
                         double    y0,
                         double    x1,
                         double    y1,
                         double    halo,
                         double    cost)
{
  Segment s = { x0, y0, x1, y1, MAX (halo, 0), cost };

  g_return_if_fail (placer != NULL);
  g_array_append_val (placer->segments, s);
}

void
hr_placer_avoid_polyline (HrPlacer     *placer,
                          const GArray *points,
                          double        halo,
                          double        cost)
{
  g_return_if_fail (placer != NULL && points != NULL);

  for (guint i = 1; i < points->len; i++)
    {
      const HrPoint *a = &g_array_index (points, HrPoint, i - 1);
      const HrPoint *b = &g_array_index (points, HrPoint, i);

      hr_placer_avoid_segment (placer, a->x, a->y, b->x, b->y, halo, cost);
    }
}

/* Cohen and Sutherland's outcodes: which sides of @r a point is beyond. */
static guint
outcode (double        x,
         double        y,
         const HrRect *r)
{
  guint code = 0;

  if (x < r->x)
    code |= 1;
  else if (x > r->x + r->width)
    code |= 2;
  if (y < r->y)
    code |= 4;
  else if (y > r->y + r->height)
    code |= 8;
  return code;
}

gboolean
hr_segment_meets_rect (double        x0,
                       double        y0,
                       double        x1,
                       double        y1,
                       const HrRect *rect)
{
  guint a = outcode (x0, y0, rect), b = outcode (x1, y1, rect);

  /* Clip the segment to the rectangle until it is inside or wholly on
   * one side of it. */
  for (guint round = 0; round < 8; round++)
    {
      guint out;
      double x, y;

      if ((a | b) == 0)
        return TRUE;
      if ((a & b) != 0)
        return FALSE;

      out = a != 0 ? a : b;
      if (out & 8)
        {
          y = rect->y + rect->height;
          x = x0 + (x1 - x0) * (y - y0) / (y1 - y0);
        }
      else if (out & 4)
        {
          y = rect->y;
          x = x0 + (x1 - x0) * (y - y0) / (y1 - y0);
        }
      else if (out & 2)
        {
          x = rect->x + rect->width;
          y = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
        }
      else
        {
          x = rect->x;
          y = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
        }

      if (out == a)
        {
          x0 = x;
          y0 = y;
          a = outcode (x0, y0, rect);
        }
      else
        {
          x1 = x;
          y1 = y;
          b = outcode (x1, y1, rect);
        }
    }
  return FALSE;
}

static double
add_cost (double total,
          double cost)
{
  if (total == HR_PLACE_FORBIDDEN || cost == HR_PLACE_FORBIDDEN)
    return HR_PLACE_FORBIDDEN;
  return total + cost;
}

double
hr_placer_cost (HrPlacer     *placer,
                const HrRect *box)
{
  double cost = 0;

  g_return_val_if_fail (placer != NULL && box != NULL, HR_PLACE_FORBIDDEN);

  if (!hr_rect_inside (box, &placer->area, 1e-6))
    return HR_PLACE_FORBIDDEN;

  for (guint i = 0; i < placer->labels->len; i++)
    {
      const HrRect *other = &g_array_index (placer->labels, HrRect, i);
      HrRect apart = {
        other->x - placer->gap, other->y - placer->gap,
        other->width + 2 * placer->gap, other->height + 2 * placer->gap,
      };

      if (hr_rect_intersects (box, &apart))
        return HR_PLACE_FORBIDDEN;
    }

  for (guint i = 0; i < placer->obstacles->len; i++)
    {
      const Obstacle *o = &g_array_index (placer->obstacles, Obstacle, i);

      if (hr_rect_intersects (box, &o->rect))
        {
          cost = add_cost (cost, o->cost);
          if (cost == HR_PLACE_FORBIDDEN)
            return cost;
        }
    }

  for (guint i = 0; i < placer->segments->len; i++)
    {
      const Segment *s = &g_array_index (placer->segments, Segment, i);
      HrRect grown = { box->x - s->halo, box->y - s->halo, box->width + 2 * s->halo,
                       box->height + 2 * s->halo };

      if (hr_segment_meets_rect (s->x0, s->y0, s->x1, s->y1, &grown))
        {
          cost = add_cost (cost, s->cost);
          if (cost == HR_PLACE_FORBIDDEN)
            return cost;
        }
    }
  return cost;
}

void
hr_placer_take (HrPlacer     *placer,
                const HrRect *box)
{
  g_return_if_fail (placer != NULL && box != NULL);
  g_array_append_val (placer->labels, *box);
}

int
hr_placer_choose (HrPlacer     *placer,
                  const HrRect *candidates,
                  const double *prices,
                  guint         n)
{
  double best = HR_PLACE_FORBIDDEN;
  int chosen = -1;

  g_return_val_if_fail (placer != NULL, -1);

  for (guint i = 0; i < n; i++)
    {
      double cost = hr_placer_cost (placer, &candidates[i]);

      if (cost == HR_PLACE_FORBIDDEN)
        continue;
      if (prices != NULL)
        cost += prices[i];
      if (cost < best)
        {
          best = cost;
          chosen = i;
        }
    }
  if (chosen >= 0)
    hr_placer_take (placer, &candidates[chosen]);
  return chosen;
}

gboolean
hr_place_spread (double       *tops,
                 const double *heights,
                 guint         n,
                 double        gap,
                 double        top,
                 double        bottom)
{
  g_return_val_if_fail (n == 0 || (tops != NULL && heights != NULL), FALSE);

  if (n == 0)
    return TRUE;
  for (guint i = 0; i < n; i++)
    tops[i] = MAX (tops[i], top);
  /* down: each below the one above it */
  for (guint i = 1; i < n; i++)
    tops[i] = MAX (tops[i], tops[i - 1] + heights[i - 1] + gap);
  /* then up from the bottom, where the last overflows */
  if (tops[n - 1] + heights[n - 1] > bottom)
    {
      tops[n - 1] = bottom - heights[n - 1];
      for (guint i = n - 1; i > 0; i--)
        tops[i - 1] = MIN (tops[i - 1], tops[i] - gap - heights[i - 1]);
    }
  if (tops[0] < top)
    {
      tops[0] = top;
      for (guint i = 1; i < n; i++)
        tops[i] = MAX (tops[i], tops[i - 1] + heights[i - 1] + gap);
      return FALSE;
    }
  return TRUE;
}
