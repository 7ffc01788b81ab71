/* hr-sidebar.h: the run a scenario describes (the model, the GPUs
 * compared, the settings rows)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-core.h"
#include "hr-format.h"

G_BEGIN_DECLS

#define HR_TYPE_SIDEBAR (hr_sidebar_get_type ())
G_DECLARE_FINAL_TYPE (HrSidebar, hr_sidebar, HR, SIDEBAR, AdwBin)

/* The sidebar shows "analysis" (its scenario's model and settings, the
 * GPUs it compares) and never changes the scenario: what the user does
 * is a signal, applied by whoever made the analysis, which hands the next
 * one down.
 *
 * "setting-changed" (const HrSetting *setting, double value, double
 * height): a row's new value (a size's width and height);
 * "model-chosen" (const char *id); "gpu-toggled" (const char *id,
 * gboolean active); "catalog-row-added" (AdwActionRow *row,
 * HrUserCatalogKind kind, const char *id, HrOrigin origin), for each
 * picker row, so that the rows of the user's own entries can get their
 * buttons. */
void        hr_sidebar_set_analysis      (HrSidebar   *self,
                                          HrAnalysis  *analysis);
HrAnalysis *hr_sidebar_get_analysis      (HrSidebar   *self);
/* The catalog the pickers list; set again after it changed, rebuilds
 * them. */
void        hr_sidebar_set_catalog       (HrSidebar   *self,
                                          HrCatalog   *catalog);
/* The unit of the GPU list's memory sizes. */
void        hr_sidebar_set_unit          (HrSidebar   *self,
                                          HrSizeUnit   unit);

/* Opens the model picker, its search field focused (Ctrl+F). */
void        hr_sidebar_popup_model_picker (HrSidebar  *self);
/* The model picker's button, where the keyboard starts. */
GtkWidget  *hr_sidebar_get_model_button  (HrSidebar   *self);

/* The pickers as a user would use them (a row selected, a card ticked);
 * FALSE for an id the catalog does not have. */
gboolean    hr_sidebar_select_model      (HrSidebar   *self,
                                          const char  *model_id);
gboolean    hr_sidebar_set_gpu_active    (HrSidebar   *self,
                                          const char  *gpu_id,
                                          gboolean     active);
/* The settings row of a scenario key ("micro_batch", "compute"...), and
 * its spin button or switch (the row itself for a drop-down); NULL when
 * the settings table has no such key. */
GtkWidget  *hr_sidebar_get_setting_row   (HrSidebar   *self,
                                          const char  *key);
GtkWidget  *hr_sidebar_get_setting_widget (HrSidebar  *self,
                                           const char *key);

G_END_DECLS
