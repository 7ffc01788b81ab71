/* hr-error.h: hr-core's error domain
 *
 * Every refusal of what a user gave (a file, a key, a value, a name) is an
 * HR_ERROR, its message naming the file, the line and the field; anything
 * else (a GIO error, an out-of-memory) is the program's own failure.
 * headroom-cli exits 2 for the first and 1 for the second.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HR_ERROR (hr_error_quark ())

typedef enum {
  HR_ERROR_IO,         /* the file cannot be read or written */
  HR_ERROR_TOO_LARGE,  /* over the size a file of its kind can sensibly be */
  HR_ERROR_BINARY,     /* not text */
  HR_ERROR_PARSE,      /* not well-formed JSON (or CSV) */
  HR_ERROR_INVALID,    /* well-formed, but a key or value is wrong */
  HR_ERROR_NOT_FOUND,  /* names a catalog entry that does not exist */
} HrError;

GQuark hr_error_quark (void);

G_END_DECLS
