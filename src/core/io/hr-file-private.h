/* hr-file-private.h: a hook for the tests that kill a writer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where hr_file_write_atomic() is: the temporary file made, data written
 * (called after every chunk with the bytes so far), flushed, renamed. */
typedef enum {
  HR_FILE_WRITE_CREATED,
  HR_FILE_WRITE_DATA,
  HR_FILE_WRITE_SYNCED,
  HR_FILE_WRITE_RENAMED,
} HrFileWriteStage;

typedef void (*HrFileWriteHook) (HrFileWriteStage stage,
                                 gsize            written,
                                 gpointer         user_data);

/* Only the kill test sets one: it stops the process at chosen points of a
 * write, so that every point is tried without timing. */
void hr_file_set_write_hook (HrFileWriteHook hook,
                             gpointer        user_data);

G_END_DECLS
