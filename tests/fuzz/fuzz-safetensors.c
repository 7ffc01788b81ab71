/* fuzz-safetensors.c: libFuzzer target for safetensors headers
 *
 * The bytes are a safetensors file's start: an 8-byte little-endian length
 * and that much JSON, then (some of) the tensor data.  They are read as
 * they are, and the JSON after the prefix once more as a bare header.  An
 * accepted file's per-dtype table adds up to its totals and its guessed
 * model, if any, reads back (hr_fuzz_check_import); AddressSanitizer sees
 * every read past the buffer, which is an exact-size copy of the input.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-safetensors"

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

  import = hr_import_safetensors_parse ("fuzz.safetensors", data, size, &error);
  if (import == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, "fuzz.safetensors:"), "%s",
                     error->message);
    }
  else
    {
      HR_FUZZ_CHECK (import->format == HR_IMPORT_SAFETENSORS, "format %d", import->format);
      HR_FUZZ_CHECK (size >= 8, "accepted %zu bytes", size);
      hr_fuzz_check_import (import);
    }

  /* The JSON after the prefix as a header alone, its data size unknown. */
  if (size > 8)
    {
      g_autoptr(HrImport) header = hr_import_new (HR_IMPORT_SAFETENSORS, "fuzz.safetensors");
      g_autoptr(GError) header_error = NULL;
      g_autofree char *json = g_memdup2 (data + 8, size - 8);

      if (hr_safetensors_parse_header (header, "fuzz.safetensors", json, size - 8, G_MAXUINT64,
                                       &header_error))
        {
          hr_import_finish_dtypes (header);
          hr_fuzz_check_import (header);
        }
      else
        {
          hr_fuzz_check_error (header_error);
          HR_FUZZ_CHECK (g_str_has_prefix (header_error->message, "fuzz.safetensors:"), "%s",
                         header_error->message);
        }
    }

  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
