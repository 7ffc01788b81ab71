/* hr-measure-private.h: what the importers of hr-core share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-measure.h"

G_BEGIN_DECLS

/* A series thinned as it streams in, to at most @max_points points (the
 * smallest and the largest of each run of samples): what
 * HrMeasureOptions.max_time_points does to a log. */
typedef struct _HrMeasureThinner HrMeasureThinner;

HrMeasureThinner *hr_measure_thinner_new   (guint                 max_points);
void              hr_measure_thinner_free  (HrMeasureThinner     *thinner);
void              hr_measure_thinner_add   (HrMeasureThinner     *thinner,
                                            const HrMeasurePoint *point);
/* Appends the points kept, in order, to @points. */
void              hr_measure_thinner_flush (HrMeasureThinner     *thinner,
                                            GArray               *points);

/* Reads the PyTorch memory snapshot in @data into @measurement (its
 * format, series, notes and snapshot); errors name @shown_name
 * (hr-snapshot.c). */
gboolean          hr_measurement_read_snapshot (HrMeasurement          *measurement,
                                                const char             *shown_name,
                                                const guint8           *data,
                                                gsize                   length,
                                                const HrMeasureOptions *options,
                                                GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrMeasureThinner, hr_measure_thinner_free)

G_END_DECLS
