/* hr-import-safetensors.h: parameter counts from safetensors headers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-import.h"

G_BEGIN_DECLS

/* A safetensors file starts with an 8-byte little-endian header length and
 * that many bytes of JSON naming each tensor's dtype, shape and byte range.
 * Only those are read, never the tensor data.  Headers are JSON read by
 * hr-json, so the same size limit applies. */
#define HR_SAFETENSORS_MAX_HEADER HR_JSON_MAX_FILE_SIZE

/* Adds the tensors of one header (the JSON after the length) to @import's
 * per-dtype table.  @data_size, the bytes after the header (G_MAXUINT64 when
 * unknown), is checked against the byte ranges the header gives. */
gboolean  hr_safetensors_parse_header (HrImport    *import,
                                       const char  *display_name,
                                       const char  *json,
                                       gsize        length,
                                       guint64      data_size,
                                       GError     **error);

/* A whole file's first bytes (length prefix + header) held in memory;
 * @length may stop right after the header.  The entry point a fuzz target
 * calls. */
HrImport *hr_import_safetensors_parse (const char    *display_name,
                                       const guint8  *data,
                                       gsize          length,
                                       GError       **error);

/* A .safetensors file, or a model.safetensors.index.json and the headers of
 * the shards it names (in the same folder). */
HrImport *hr_import_safetensors_load  (const char    *path,
                                       GError       **error);

/* Reads the tensors of @path into an existing import (a folder import). */
gboolean  hr_import_safetensors_add_file (HrImport   *import,
                                          const char *path,
                                          GError    **error);
gboolean  hr_import_safetensors_add_index (HrImport   *import,
                                           const char *path,
                                           GError    **error);

/* Without a config.json: a model object from the tensor names and shapes
 * kept while reading (Llama-, GPT-2- and NeoX-style names), with notes
 * saying what was assumed; leaves import->model NULL when the names follow
 * no layout it knows. */
void      hr_import_safetensors_guess_model (HrImport   *import,
                                             const char *name);

G_END_DECLS
