/* hr-model-import-dialog.h: what an imported model is, before it is added
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-core.h"

G_BEGIN_DECLS

#define HR_TYPE_MODEL_IMPORT_DIALOG (hr_model_import_dialog_get_type ())
G_DECLARE_FINAL_TYPE (HrModelImportDialog, hr_model_import_dialog, HR, MODEL_IMPORT_DIALOG,
                      AdwWindow)

/* Reads @path (config.json, .safetensors, model.safetensors.index.json,
 * .gguf or a model folder) at once and shows what was read and assumed;
 * nothing is saved until "Add to Catalog".  Emits ::model-added with the
 * new id once the model is in the user's catalog. */
HrModelImportDialog *hr_model_import_dialog_new        (GtkWindow           *parent,
                                                        const char          *path);

/* NULL when the file could not be read; then get_error() says why. */
const HrImport      *hr_model_import_dialog_get_import (HrModelImportDialog *self);
const GError        *hr_model_import_dialog_get_error  (HrModelImportDialog *self);

void                 hr_model_import_dialog_set_name   (HrModelImportDialog *self,
                                                        const char          *name);
void                 hr_model_import_dialog_set_id     (HrModelImportDialog *self,
                                                        const char          *id);
const char          *hr_model_import_dialog_get_id     (HrModelImportDialog *self);
/* What the dialog says about the id: new, replacing a built-in model, or
 * not a valid id. */
const char          *hr_model_import_dialog_get_id_message (HrModelImportDialog *self);
gboolean             hr_model_import_dialog_can_add    (HrModelImportDialog *self);

/* What "Add to Catalog" does, without closing the dialog. */
gboolean             hr_model_import_dialog_add        (HrModelImportDialog *self,
                                                        GError             **error);

/* Whether a dropped or opened file is a model to import: a folder, a
 * .safetensors, .safetensors.index.json or .gguf file, or a JSON file whose
 * first kilobyte names a "model_type" or "architectures". */
gboolean             hr_model_import_file_is_model     (GFile               *file);

G_END_DECLS
