/* hr-fuzz.h: what the fuzz targets share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hr-core.h"

G_BEGIN_DECLS

/* An invariant that does not hold is a finding: print it and abort, so
 * that libFuzzer saves the input that broke it. */
#define HR_FUZZ_CHECK(cond, ...)                                   \
  G_STMT_START {                                                   \
    if (G_UNLIKELY (!(cond)))                                      \
      {                                                            \
        fprintf (stderr, "%s:%d: invariant failed: %s: ",          \
                 __FILE__, __LINE__, #cond);                       \
        fprintf (stderr, __VA_ARGS__);                             \
        fputc ('\n', stderr);                                      \
        abort ();                                                  \
      }                                                            \
  } G_STMT_END

void hr_fuzz_setup          (void);
void hr_fuzz_check_error    (const GError     *error);
void hr_fuzz_check_estimate (const HrScenario *scenario);
void hr_fuzz_check_import   (const HrImport   *import);

G_END_DECLS
