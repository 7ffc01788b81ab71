/* hr-user-catalog.h: the user's own models and GPUs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-json.h"

G_BEGIN_DECLS

typedef enum {
  HR_USER_CATALOG_MODELS,
  HR_USER_CATALOG_GPUS,
} HrUserCatalogKind;

/* $XDG_DATA_HOME/headroom/models.json or gpus.json: the files
 * hr_catalog_get_default() reads after the built-in catalogs.  Entries there
 * add to the built-in ones, or replace the one with the same id (the
 * catalog marks them HR_ORIGIN_USER / HR_ORIGIN_USER_OVERRIDE); the built-in
 * catalog itself is never written. */
char     *hr_user_catalog_get_path   (HrUserCatalogKind   kind);

/* Adds @entry (a model or GPU object as data/CATALOG.md describes it) to the
 * user's file, replacing an entry with the same id; sets *@replaced to say
 * which happened.  The entry, and the file with it, must read back as a
 * catalog would, or nothing is written.  The file is written atomically (a
 * temporary file renamed over the old one).  A user file that cannot be read
 * is an error, not something to write over. */
gboolean  hr_user_catalog_save       (HrUserCatalogKind   kind,
                                      JsonNode           *entry,
                                      gboolean           *replaced,
                                      GError            **error);
gboolean  hr_user_catalog_save_model (JsonNode           *model,
                                      gboolean           *replaced,
                                      GError            **error);
gboolean  hr_user_catalog_save_gpu   (JsonNode           *gpu,
                                      gboolean           *replaced,
                                      GError            **error);

/* Removes the entry with @id from the user's file (HR_ERROR_NOT_FOUND when it
 * has none); a built-in entry it overrode shows again. */
gboolean  hr_user_catalog_remove     (HrUserCatalogKind   kind,
                                      const char         *id,
                                      GError            **error);

/* The entries of the user's file as stored (an empty array when there is no
 * file). */
JsonArray *hr_user_catalog_list      (HrUserCatalogKind   kind,
                                      GError            **error);

G_END_DECLS
