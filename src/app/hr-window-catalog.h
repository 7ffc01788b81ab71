/* hr-window-catalog.h: the window's own models and GPUs (add, edit, remove)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-window.h"

G_BEGIN_DECLS

/* win.add-model: a file chooser, then the import dialog. */
void       hr_window_add_model_action   (GtkWidget         *widget,
                                         const char        *action_name,
                                         GVariant          *parameter);
/* win.add-gpu: the GPU editor for a new card. */
void       hr_window_add_gpu_action     (GtkWidget         *widget,
                                         const char        *action_name,
                                         GVariant          *parameter);

/* Shows what @file holds as a model and adds it on the user's word; the
 * window then reads the catalog again and selects the model.  A
 * config.json is read with the weights in its folder. */
GtkWindow *hr_window_import_model       (HrWindow          *self,
                                         GFile             *file);

/* A picker row of a catalog entry: a "Custom" badge on the user's entries
 * (with "replaces built-in" on overrides), and on those a button that
 * removes the entry after asking (and for a GPU, one that edits it). */
void       hr_window_decorate_catalog_row (HrWindow        *self,
                                           AdwActionRow    *row,
                                           HrUserCatalogKind kind,
                                           const char      *id,
                                           HrOrigin         origin);

G_END_DECLS
