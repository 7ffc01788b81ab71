/* fuzz-hf-config.c: libFuzzer target for Hugging Face config.json files
 *
 * Any bytes either become an import or a one-line positioned message.  An
 * accepted config counts more than no parameters, no more active ones than
 * stored ones, and its model object reads back through the catalog's model
 * reader (hr_fuzz_check_import).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-hf-config"

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

  /* A path ending in config.json: the folder names a model without a name. */
  import = hr_import_hf_config_parse ("fuzz-model/config.json", (const char *) data, size,
                                      &error);
  if (import == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, "fuzz-model/config.json:"), "%s",
                     error->message);
      return 0;
    }

  HR_FUZZ_CHECK (import->format == HR_IMPORT_HF_CONFIG, "format %d", import->format);
  HR_FUZZ_CHECK (import->params > 0, "an accepted config of no parameters");
  HR_FUZZ_CHECK (import->model != NULL, "an accepted config without a model");
  hr_fuzz_check_import (import);
  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
