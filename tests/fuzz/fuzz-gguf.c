/* fuzz-gguf.c: libFuzzer target for GGUF headers
 *
 * Any bytes either become an import or a one-line message naming the file.
 * An accepted header's per-dtype table adds up to its totals (no count
 * wraps around), no more parameters are active than stored, and the model
 * object, when the metadata gives one, reads back through the catalog's
 * model reader (hr_fuzz_check_import).  Every prefix of an accepted header
 * that stops inside it is refused, never read past.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-gguf"

#include <string.h>

#include "hr-fuzz.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  hr_fuzz_setup ();
  return 0;
}

static int
fuzz_one (const uint8_t *data,
          size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrImport) import = NULL;

  import = hr_import_gguf_parse ("fuzz.gguf", data, size, &error);
  if (import == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, "fuzz.gguf"), "%s", error->message);
      return 0;
    }

  HR_FUZZ_CHECK (import->format == HR_IMPORT_GGUF, "format %d", import->format);
  HR_FUZZ_CHECK (size >= 24, "accepted %zu bytes", size);
  hr_fuzz_check_import (import);

  /* The header ends somewhere: cut one byte short of the input it is
   * refused or, when the input went on past the header, read the same. */
  if (size > 24)
    {
      g_autoptr(GError) cut_error = NULL;
      g_autofree guint8 *copy = g_memdup2 (data, size - 1);
      g_autoptr(HrImport) cut = hr_import_gguf_parse ("fuzz.gguf", copy, size - 1, &cut_error);

      if (cut == NULL)
        hr_fuzz_check_error (cut_error);
      else
        HR_FUZZ_CHECK (cut->params == import->params && cut->weight_bytes == import->weight_bytes,
                       "one byte less, %" G_GUINT64_FORMAT " parameters instead of %"
                       G_GUINT64_FORMAT, cut->params, import->params);
    }

  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
