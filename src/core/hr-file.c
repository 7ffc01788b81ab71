/* hr-file.c: reading and writing the user's files safely
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-file"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "hr-file.h"
#include "hr-json.h"

#define READ_CHUNK 65536

/* GIO's messages repeat the absolute path and follow the desktop's
 * language; these name what the user can do something about. */
static void
set_io_error (GError     **error,
              const char  *path,
              GError      *io_error)
{
  const char *what;
  g_autofree char *message = NULL;

  if (g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    what = _("no such file");
  else if (g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    what = _("permission denied (the file may not be read)");
  else if (g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS))
    what = _("too many levels of symbolic links (a link that leads back to itself?)");
  else if (g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY))
    what = _("is a folder, not a file");
  else if (g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY))
    what = _("a part of the path is not a folder");
  else if (g_error_matches (io_error, G_IO_ERROR, G_IO_ERROR_FILENAME_TOO_LONG))
    what = _("the file name is too long");
  else
    what = NULL;

  if (what != NULL)
    message = g_strdup_printf ("%s: %s", path, what);
  else
    message = g_strdup_printf (_("%s: cannot be read: %s"), path, io_error->message);

  g_set_error_literal (error, HR_ERROR, HR_ERROR_IO, message);
}

GBytes *
hr_file_load (const char  *path,
              gsize        max_size,
              const char  *kind,
              GError     **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GByteArray) data = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *shown = NULL;
  guint8 *chunk;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  shown = hr_text_printable (path, -1);
  file = g_file_new_for_commandline_arg (path);
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  if (info == NULL)
    {
      set_io_error (error, shown, local_error);
      return NULL;
    }

  switch (g_file_info_get_file_type (info))
    {
    case G_FILE_TYPE_REGULAR:
      break;
    case G_FILE_TYPE_DIRECTORY:
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("%s: is a folder, not a file"), shown);
      return NULL;
    case G_FILE_TYPE_SYMBOLIC_LINK:
      {
        /* GIO describes the link itself when what it points to cannot be
         * reached. */
        GStatBuf st;
        const char *local = g_file_peek_path (file);

        if (local != NULL && g_stat (local, &st) != 0 && errno == ELOOP)
          g_set_error (error, HR_ERROR, HR_ERROR_IO,
                       _("%s: too many levels of symbolic links (a link that leads back to "
                         "itself?)"), shown);
        else
          g_set_error (error, HR_ERROR, HR_ERROR_IO,
                       _("%s: is a symbolic link to a file that does not exist"), shown);
        return NULL;
      }
    default:
      /* A pipe would block until something writes to it, /dev/zero would
       * never end. */
      g_set_error (error, HR_ERROR, HR_ERROR_IO,
                   _("%s: is not a regular file (a device, pipe or socket)"), shown);
      return NULL;
    }

  if (g_file_info_get_size (info) > (goffset) max_size)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                   _("%s: file is %.0f bytes, more than the %u MiB %s can be"), shown,
                   (double) g_file_info_get_size (info), (guint) (max_size >> 20), kind);
      return NULL;
    }

  stream = g_file_read (file, NULL, &local_error);
  if (stream == NULL)
    {
      set_io_error (error, shown, local_error);
      return NULL;
    }

  /* Read at most one byte past the limit: a file that grows while it is
   * read, or whose size was not known, is refused the same way. */
  data = g_byte_array_sized_new (MIN ((gsize) g_file_info_get_size (info), max_size) + 1);
  chunk = g_malloc (READ_CHUNK);
  while (TRUE)
    {
      gssize n = g_input_stream_read (G_INPUT_STREAM (stream), chunk, READ_CHUNK, NULL,
                                      &local_error);

      if (n < 0)
        {
          g_free (chunk);
          set_io_error (error, shown, local_error);
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (data, chunk, n);
      if (data->len > max_size)
        {
          g_free (chunk);
          g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                       _("%s: file is more than the %u MiB %s can be"), shown,
                       (guint) (max_size >> 20), kind);
          return NULL;
        }
    }
  g_free (chunk);

  {
    gsize length = data->len;
    g_autoptr(GBytes) with_nul = NULL;

    g_byte_array_append (data, (const guint8 *) "", 1);
    with_nul = g_byte_array_free_to_bytes (g_steal_pointer (&data));
    return g_bytes_new_from_bytes (with_nul, 0, length);
  }
}

gboolean
hr_file_write_atomic (const char  *path,
                      const void  *data,
                      gsize        length,
                      GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *target = NULL;
  g_autofree char *shown = NULL;
  GStatBuf st;
  int mode = 0666;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  shown = hr_text_printable (path, -1);

  /* Replace what a link points to, not the link: the user's file lives
   * where the link says. */
  {
    char resolved[PATH_MAX];
    GStatBuf lst;

    if (g_lstat (path, &lst) == 0 && S_ISLNK (lst.st_mode) && realpath (path, resolved) != NULL)
      target = g_strdup (resolved);
    else
      target = g_strdup (path);
  }

  /* Keep the permissions a file already has (0666 less the umask for a
   * new one, as any program creates files). */
  if (g_stat (target, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, _("%s: is a folder, not a file"),
                       shown);
          return FALSE;
        }
      mode = st.st_mode & 07777;
    }

  /* CONSISTENT: a temporary file in the same folder, renamed over the
   * target; DURABLE: fsync before the rename, so a crash of the machine
   * cannot leave an empty file in place of the old one either. */
  if (!g_file_set_contents_full (target, data, length,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 mode, &local_error))
    {
      /* The domain stays G_FILE_ERROR: a file that cannot be written is
       * not bad input. */
      g_set_error (error, local_error->domain, local_error->code, _("%s: cannot be written: %s"),
                   shown, local_error->message);
      return FALSE;
    }

  return TRUE;
}
