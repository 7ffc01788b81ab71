/* hr-import-hf.h: Hugging Face config.json to a Headroom model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-import.h"

G_BEGIN_DECLS

/* Reads a config.json held in memory.  @display_name names it in messages
 * ("FILE:LINE:COL: …"); when it is a path ending in config.json, the folder's
 * name becomes the model's name if the config does not carry one.  The
 * parameter count comes from the architecture: embeddings, tied or untied
 * head, grouped-query projections, gated MLP width, biases, norms, experts.
 * A missing required field is an error naming the file and the field. */
HrImport *hr_import_hf_config_parse (const char  *display_name,
                                     const char  *data,
                                     gsize        length,
                                     GError     **error);
HrImport *hr_import_hf_config_load  (const char  *path,
                                     GError     **error);

/* Replaces the shapes' count with the exact count from the weights'
 * headers (what a folder import does when both are there). */
void      hr_import_hf_set_exact_params (HrImport *import,
                                         guint64   params);

G_END_DECLS
