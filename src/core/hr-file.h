/* hr-file.h: reading and writing the user's files safely
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

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
 * permissions.  Errors are G_FILE_ERROR, naming @path.  Every file
 * Headroom writes goes through here. */
gboolean  hr_file_write_atomic  (const char   *path,
                                 const void   *data,
                                 gsize         length,
                                 GError      **error);

G_END_DECLS
