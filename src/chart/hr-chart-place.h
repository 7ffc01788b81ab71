/* hr-chart-place.h: placing labels where nothing else is
 *
 * A layout step tells the placer what it has drawn (bars, lines, the
 * labels placed so far) and offers each new label a few places, each with
 * its own price; the placer takes the cheapest place where the label stays
 * inside the area and overlaps no other label and nothing blocked, or says
 * that there is none.  So a label is placed knowing every other label's
 * box, and two never overlap.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "hr-chart-types.h"

G_BEGIN_DECLS

/* The price of a place a label may not take. */
#define HR_PLACE_FORBIDDEN G_MAXDOUBLE

typedef struct _HrPlacer HrPlacer;

/* Labels go inside @area and keep @gap from each other. */
HrPlacer *hr_placer_new              (const HrRect  *area,
                                      double         gap);
void      hr_placer_free             (HrPlacer      *placer);

/* No label may overlap @rect. */
void      hr_placer_block            (HrPlacer      *placer,
                                      const HrRect  *rect);
/* A label over @rect costs @cost (HR_PLACE_FORBIDDEN: blocks it). */
void      hr_placer_avoid            (HrPlacer      *placer,
                                      const HrRect  *rect,
                                      double         cost);
/* A label crossing the segment costs @cost (HR_PLACE_FORBIDDEN: may not
 * cross it), with @halo of room on each side of the line. */
void      hr_placer_avoid_segment    (HrPlacer      *placer,
                                      double         x0,
                                      double         y0,
                                      double         x1,
                                      double         y1,
                                      double         halo,
                                      double         cost);
/* Each segment of @points (HrPoint), as hr_placer_avoid_segment(). */
void      hr_placer_avoid_polyline   (HrPlacer      *placer,
                                      const GArray  *points,
                                      double         halo,
                                      double         cost);

/* What a label at @box would cost: HR_PLACE_FORBIDDEN outside the area,
 * over another label (within the gap) or over anything blocked. */
double    hr_placer_cost             (HrPlacer      *placer,
                                      const HrRect  *box);
/* Takes @box for a label: the labels after it keep clear of it. */
void      hr_placer_take             (HrPlacer      *placer,
                                      const HrRect  *box);
/* Of @n candidate boxes, each with a price of its own (@prices may be
 * NULL), takes the one whose price and cost are least and returns its
 * index; -1, taking nothing, when every one is forbidden. */
int       hr_placer_choose           (HrPlacer      *placer,
                                      const HrRect  *candidates,
                                      const double  *prices,
                                      guint          n);

/* Moves @n boxes in a column (@tops sorted, each @heights tall) apart so
 * that each keeps @gap from the next, as little as they can, within
 * [top, bottom]; when they need more room than that, they run from @top
 * down.  Returns FALSE in that case. */
gboolean  hr_place_spread            (double        *tops,
                                      const double  *heights,
                                      guint          n,
                                      double         gap,
                                      double         top,
                                      double         bottom);

/* TRUE when the segment from (x0, y0) to (x1, y1) meets @rect. */
gboolean  hr_segment_meets_rect      (double         x0,
                                      double         y0,
                                      double         x1,
                                      double         y1,
                                      const HrRect  *rect);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrPlacer, hr_placer_free)

G_END_DECLS
