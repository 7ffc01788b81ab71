/* hr-csv-mapping-dialog.h: which column of a CSV is which, and its unit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-core.h"

G_BEGIN_DECLS

#define HR_TYPE_CSV_MAPPING_DIALOG (hr_csv_mapping_dialog_get_type ())
G_DECLARE_FINAL_TYPE (HrCsvMappingDialog, hr_csv_mapping_dialog, HR, CSV_MAPPING_DIALOG,
                      AdwWindow)

/* A modal window over @parent that maps the columns of the CSV at @path,
 * whose first bytes are @head (all of it when @complete): the rows as
 * they are split and the points read from them with the options chosen,
 * by the reader that reads the whole file.  Import emits "import" and closes the
 * window; the window that opened it reads the file with
 * hr_csv_mapping_dialog_get_options(). */
HrCsvMappingDialog *hr_csv_mapping_dialog_new         (GtkWindow          *parent,
                                                       const char         *path,
                                                       GBytes             *head,
                                                       gboolean            complete);
/* The options the page is set to, for hr_measurement_load_file(); clear
 * them with hr_measure_options_clear(). */
void                hr_csv_mapping_dialog_get_options (HrCsvMappingDialog *self,
                                                       HrMeasureOptions   *options);
/* Sets the page to @options (a mapping made before): the columns they
 * name, by name or number, where the file has them. */
void                hr_csv_mapping_dialog_set_options (HrCsvMappingDialog     *self,
                                                       const HrMeasureOptions *options);
const char         *hr_csv_mapping_dialog_get_path    (HrCsvMappingDialog *self);
/* The header line the mapping is for; NULL when the first row is data. */
const char         *hr_csv_mapping_dialog_get_header  (HrCsvMappingDialog *self);
/* Whether the file's first rows read with the options (Import is
 * sensitive then). */
gboolean            hr_csv_mapping_dialog_get_can_import (HrCsvMappingDialog *self);

G_END_DECLS
