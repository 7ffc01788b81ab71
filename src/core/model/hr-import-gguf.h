/* hr-import-gguf.h: llama.cpp GGUF headers, read without the tensors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-import.h"

G_BEGIN_DECLS

/* Reads a GGUF (version 2 or 3) header held in memory: the metadata
 * key/values and the tensor infos, never the tensor data.  @length may stop
 * anywhere after the tensor infos.  Counts and lengths are checked against
 * the bytes there are, so a truncated or hostile header is an error, never a
 * large allocation.  The entry point a fuzz target calls. */
HrImport *hr_import_gguf_parse (const char    *display_name,
                                const guint8  *data,
                                gsize          length,
                                GError       **error);
HrImport *hr_import_gguf_load  (const char    *path,
                                GError       **error);

/* Bits per weight of a ggml tensor type (ggml's block size and bytes per
 * block); 0 for a type Headroom does not know. */
double    hr_gguf_type_bits    (guint32        type);
const char *hr_gguf_type_name  (guint32        type);

G_END_DECLS
