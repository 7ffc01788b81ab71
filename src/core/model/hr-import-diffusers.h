/* hr-import-diffusers.h: diffusion pipelines and single-file checkpoints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-import.h"

G_BEGIN_DECLS

/* A diffusers pipeline folder: model_index.json, each component's
 * config.json and, where present, its safetensors headers for the exact
 * counts. */
HrImport   *hr_import_diffusers_folder  (const char *path,
                                         GError    **error);

void        hr_import_diffusion_free    (HrImportDiffusion *diffusion);

/* Counts one tensor of a safetensors header towards the part of a
 * checkpoint its name places it in (U-Net, VAE, text encoders, Flux's
 * double and single blocks, LoRA adapters). */
void        hr_import_diffusers_count   (HrImport      *import,
                                         const char    *name,
                                         const guint64 *dims,
                                         guint          n_dims,
                                         guint64        params);

/* Tells a single-file checkpoint (SD 1.x/2.x, SDXL, Flux, a diffusers
 * transformer) or a LoRA adapter from its tensor names and sets
 * import->model, with notes saying what was inferred; FALSE when the names
 * are not a diffusion layout. */
gboolean    hr_import_diffusers_guess   (HrImport   *import,
                                         const char *name);

G_END_DECLS
