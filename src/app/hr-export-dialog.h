/* hr-export-dialog.h: export a chart or the report
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-window.h"

G_BEGIN_DECLS

#define HR_TYPE_EXPORT_DIALOG (hr_export_dialog_get_type ())
G_DECLARE_FINAL_TYPE (HrExportDialog, hr_export_dialog, HR, EXPORT_DIALOG, AdwWindow)

HrExportDialog *hr_export_dialog_new       (HrWindow       *window,
                                            HrExportWhat    what);
/* Writes what the dialog is set to into @path, as the Export button does
 * after the file chooser; shows the toast on the window. */
gboolean        hr_export_dialog_export_to (HrExportDialog *self,
                                            GFile          *file,
                                            GError        **error);
void            hr_export_dialog_set_format (HrExportDialog *self,
                                             HrExportFormat  format);

G_END_DECLS
