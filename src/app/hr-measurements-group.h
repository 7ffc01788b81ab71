/* hr-measurements-group.h: the imported measurements and the switch that
 * calibrates to them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-core.h"
#include "hr-format.h"
#include "hr-measurements.h"

G_BEGIN_DECLS

#define HR_TYPE_MEASUREMENTS_GROUP (hr_measurements_group_get_type ())
G_DECLARE_FINAL_TYPE (HrMeasurementsGroup, hr_measurements_group, HR, MEASUREMENTS_GROUP,
                      AdwBin)

/* A row per file of "files" (HrMeasurementFile, of the window's
 * HrMeasurements, borrowed)
 * and one for the sweep their snapshots make, each as "analysis" relates
 * it to the scenario, in "unit".  The trash button of a row emits
 * "remove-file" with its HrMeasurementFile; the switch is
 * "use-calibration": the window that owns the files and makes the
 * analysis listens to both. */
void      hr_measurements_group_set_files    (HrMeasurementsGroup *self,
                                              GPtrArray           *files);
void      hr_measurements_group_set_unit     (HrMeasurementsGroup *self,
                                              HrSizeUnit           unit);
void      hr_measurements_group_set_analysis (HrMeasurementsGroup *self,
                                              HrAnalysis          *analysis);
gboolean  hr_measurements_group_get_use_calibration (HrMeasurementsGroup *self);
void      hr_measurements_group_set_use_calibration (HrMeasurementsGroup *self,
                                                     gboolean             use);

G_END_DECLS
