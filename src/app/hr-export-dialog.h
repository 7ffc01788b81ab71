/* hr-export-dialog.h: export a chart or the report
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-chart.h"
#include "hr-core.h"

G_BEGIN_DECLS

#define HR_TYPE_EXPORT_DIALOG (hr_export_dialog_get_type ())
G_DECLARE_FINAL_TYPE (HrExportDialog, hr_export_dialog, HR, EXPORT_DIALOG, AdwWindow)

/* What the export dialog can write. */
typedef enum {
  HR_EXPORT_WHAT_BUCKETS,
  HR_EXPORT_WHAT_CURVE,
  HR_EXPORT_WHAT_REPORT,
} HrExportWhat;

/* A modal window over @parent that exports a chart of @analysis (which
 * it keeps a reference to) or the report. */
HrExportDialog *hr_export_dialog_new       (GtkWindow      *parent,
                                            HrAnalysis     *analysis,
                                            HrExportWhat    what);
/* Writes what the dialog is set to into @path, as the Export button does
 * after the file chooser, and emits "exported" with @file (the window
 * shows a toast). */
gboolean        hr_export_dialog_export_to (HrExportDialog *self,
                                            GFile          *file,
                                            GError        **error);
void            hr_export_dialog_set_format (HrExportDialog *self,
                                             HrExportFormat  format);
/* A figure size and its fonts, as the Size row sets it. */
void            hr_export_dialog_set_size   (HrExportDialog    *self,
                                             HrChartSizePreset  preset);
/* A custom size, @width × @height in @unit (inches, centimetres or
 * pixels). */
void            hr_export_dialog_set_custom_size (HrExportDialog *self,
                                                  double          width,
                                                  double          height,
                                                  HrLengthUnit    unit);
/* SVG text as glyph outlines instead of editable <text>. */
void            hr_export_dialog_set_svg_outlines (HrExportDialog *self,
                                                   gboolean        outlines);
/* The preview, and the Chart row (for tests). */
GtkWidget      *hr_export_dialog_get_preview (HrExportDialog *self);
GtkWidget      *hr_export_dialog_get_chart_row (HrExportDialog *self);
/* The Size row (an AdwComboRow of HrChartSizePreset), for tests. */
GtkWidget      *hr_export_dialog_get_size_row (HrExportDialog *self);

G_END_DECLS
