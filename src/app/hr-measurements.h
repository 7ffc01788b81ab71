/* hr-measurements.h: the measurements imported for a scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "hr-core.h"

G_BEGIN_DECLS

/* One imported measurement file. */
typedef struct {
  HrMeasurement *measurement;
  char          *path;
} HrMeasurementFile;

/* Takes @measurement. */
HrMeasurementFile *hr_measurement_file_new  (HrMeasurement     *measurement,
                                             const char        *path);
void               hr_measurement_file_free (HrMeasurementFile *file);

#define HR_TYPE_MEASUREMENTS (hr_measurements_get_type ())
G_DECLARE_FINAL_TYPE (HrMeasurements, hr_measurements, HR, MEASUREMENTS, GObject)

/* The files imported for the scenario shown, in the order imported; the
 * ones of the scenario before, set aside when another opened; and
 * whether the estimates are calibrated to them ("use-calibration").
 * "changed" says the files changed; "n-files" and "n-set-aside" count
 * them. */
HrMeasurements    *hr_measurements_new            (void);
/* HrMeasurementFile, the object's: valid as long as it is. */
GPtrArray         *hr_measurements_get_files      (HrMeasurements    *self);
guint              hr_measurements_get_n_files    (HrMeasurements    *self);
guint              hr_measurements_get_n_set_aside (HrMeasurements   *self);
/* Takes @measurement, read from @path, as the last file; in place of
 * @replace (a file read again with another mapping) when that is still
 * there.  Returns the new file. */
HrMeasurementFile *hr_measurements_add            (HrMeasurements    *self,
                                                   HrMeasurement     *measurement,
                                                   const char        *path,
                                                   HrMeasurementFile *replace);
gboolean           hr_measurements_contains       (HrMeasurements    *self,
                                                   HrMeasurementFile *file);
gboolean           hr_measurements_remove         (HrMeasurements    *self,
                                                   HrMeasurementFile *file);
/* Another scenario opened: its files are set aside (those set aside
 * before are forgotten).  Returns how many were. */
guint              hr_measurements_set_aside      (HrMeasurements    *self);
/* The files set aside come back, after any imported since. */
void               hr_measurements_keep           (HrMeasurements    *self);
gboolean           hr_measurements_get_use_calibration (HrMeasurements *self);
void               hr_measurements_set_use_calibration (HrMeasurements *self,
                                                        gboolean        use);

G_END_DECLS
