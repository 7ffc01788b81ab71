/* hr-file.h: reading and writing the user's files safely
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Opens the regular file at @path (a path or a URI) for reading, the one way
 * every reader of Headroom opens a file.  It is refused with a one-line
 * HR_ERROR message naming @path when the name is empty, the file is missing
 * or unreadable, or is a folder, a device, a pipe or a socket (opening never
 * blocks: a pipe is recognised before anything waits on it), and when it is
 * larger than @max_size bytes (G_MAXUINT64 for files of which only a header
 * is read).  @kind names what the file was meant to be, for the message.
 * @size_out, if not NULL, gets the file's size. */
GInputStream *hr_file_open      (const char   *path,
                                 guint64       max_size,
                                 const char   *kind,
                                 guint64      *size_out,
                                 GError      **error);

/* Reads up to @length bytes from @stream into @buffer, stopping early only
 * at the end of the file; errors name @path.  Returns the bytes read, or -1. */
gssize    hr_file_read          (GInputStream *stream,
                                 const char   *path,
                                 void         *buffer,
                                 gsize         length,
                                 GError      **error);

/* The first @length bytes of the regular file at @path (fewer if it is
 * shorter), opened as hr_file_open() opens it: what a file is can be told
 * from its start without waiting on a pipe.  The data is followed by a NUL
 * not counted in its size. */
GBytes   *hr_file_load_head     (const char   *path,
                                 gsize         length,
                                 GError      **error);

/* The whole of the regular file at @path (a path or a URI), refused with a
 * one-line HR_ERROR message naming @path when it is missing, unreadable, a
 * folder, a device or a pipe (which could block or never end), or larger
 * than @max_size bytes; it is read no further than @max_size, whatever
 * its size claims.  The data is followed by a NUL not counted in its size. */
GBytes   *hr_file_load          (const char   *path,
                                 gsize         max_size,
                                 const char   *kind,
                                 GError      **error);

/* Writes @data to @path atomically: a temporary file in the same folder,
 * flushed to disk, then renamed over @path, so that @path always holds
 * either its previous contents or all of @data, even if Headroom is
 * killed or the disk fills up.  A symbolic link is followed (the file it
 * points to is replaced, the link stays), and an existing file keeps its
 * permissions.  Only a regular file or a missing one is ever replaced: a
 * folder, a device, a pipe or a socket at @path is refused and left as it
 * is.  The temporary file's name starts with HR_FILE_TEMP_PREFIX, and
 * temporary files a killed writer left in that folder are removed.
 * Errors are G_FILE_ERROR, naming @path.  Every file Headroom writes goes
 * through here. */
gboolean  hr_file_write_atomic  (const char   *path,
                                 const void   *data,
                                 gsize         length,
                                 GError      **error);

/* The prefix of Headroom's temporary files: a name no user picks. */
#define HR_FILE_TEMP_PREFIX ".headroom-tmp-"

/* Runs @func with an exclusive lock on @lock_path (created if missing, in a
 * folder that exists), so that a read-modify-write of a file beside it by
 * several Headroom processes at once keeps every change.  The lock is
 * released when @func returns, or when the process dies.  A lock another
 * process holds is waited for HR_FILE_LOCK_TIMEOUT seconds at most
 * ($HEADROOM_LOCK_TIMEOUT overrides it); then G_FILE_ERROR_AGAIN, naming
 * @lock_path, and @func is not run. */
#define HR_FILE_LOCK_TIMEOUT 5
typedef gboolean (*HrFileLockedFunc) (gpointer   user_data,
                                      GError   **error);

gboolean  hr_file_with_lock     (const char       *lock_path,
                                 HrFileLockedFunc  func,
                                 gpointer          user_data,
                                 GError          **error);

G_END_DECLS
