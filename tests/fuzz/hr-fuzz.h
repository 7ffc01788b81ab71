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

/* Work grows at most linearly with the input: between begin and end, the
 * memory in use may rise by no more than HR_FUZZ_BYTES_PER_INPUT_BYTE per
 * byte of input plus HR_FUZZ_FIXED_BYTES (the sanitizers' allocator
 * hooks count every allocation).  A parser that makes a gigabyte of a
 * small file breaks it. */
#define HR_FUZZ_BYTES_PER_INPUT_BYTE 64
#define HR_FUZZ_FIXED_BYTES (32u << 20)
void hr_fuzz_begin          (size_t            size);
void hr_fuzz_end            (void);

/* Defines libFuzzer's entry point around a target's own function, with
 * the linear-work check around every input. */
#define HR_FUZZ_TARGET(func)                                       \
  int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);   \
  int                                                              \
  LLVMFuzzerTestOneInput (const uint8_t *data,                     \
                          size_t         size)                     \
  {                                                                \
    int result;                                                    \
                                                                   \
    hr_fuzz_begin (size);                                          \
    result = func (data, size);                                    \
    hr_fuzz_end ();                                                \
    return result;                                                 \
  }
void hr_fuzz_check_error    (const GError     *error);
void hr_fuzz_check_estimate (const HrScenario *scenario);
void hr_fuzz_check_import   (const HrImport   *import);

G_END_DECLS
