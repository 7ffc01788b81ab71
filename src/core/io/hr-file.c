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
#include <fcntl.h>
#include <unistd.h>
#include <gio/gunixinputstream.h>
#include <string.h>
#include <sys/file.h>

#include "hr-file.h"
#include "hr-file-private.h"
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

/* What is at a path that is not a regular file, in words. */
static void
set_not_regular_error (GError     **error,
                       const char  *shown,
                       mode_t       mode)
{
  if (S_ISDIR (mode))
    g_set_error (error, HR_ERROR, HR_ERROR_IO, _("%s: is a folder, not a file"), shown);
  else
    /* A pipe would block until something writes to it, /dev/zero would
     * never end. */
    g_set_error (error, HR_ERROR, HR_ERROR_IO,
                 _("%s: is not a regular file (a device, pipe or socket)"), shown);
}

static void
set_errno_error (GError     **error,
                 const char  *path,
                 const char  *shown,
                 int          saved_errno)
{
  GStatBuf lst;

  /* A link whose target is missing is reported as such, not as a missing
   * file: the link is there to see. */
  if (saved_errno == ENOENT && g_lstat (path, &lst) == 0 && S_ISLNK (lst.st_mode))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO,
                   _("%s: is a symbolic link to a file that does not exist"), shown);
      return;
    }

  {
    g_autoptr(GError) io_error = g_error_new_literal (G_IO_ERROR,
                                                      g_io_error_from_errno (saved_errno),
                                                      g_strerror (saved_errno));

    set_io_error (error, shown, io_error);
  }
}

static gboolean
check_size (const char  *shown,
            guint64      size,
            guint64      max_size,
            const char  *kind,
            GError     **error)
{
  if (size <= max_size)
    return TRUE;

  g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
               _("%s: file is %.0f bytes, more than the %u MiB %s can be"), shown,
               (double) size, (guint) MIN (max_size >> 20, G_MAXUINT), kind);
  return FALSE;
}

/* A URI GIO reads for us (no local path): checked by its file info. */
static GInputStream *
open_with_gio (GFile       *file,
               const char  *shown,
               guint64      max_size,
               const char  *kind,
               guint64     *size_out,
               GError     **error)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) local_error = NULL;
  GFileInputStream *stream;

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  if (info == NULL)
    {
      set_io_error (error, shown, local_error);
      return NULL;
    }
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      set_not_regular_error (error, shown,
                             g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY ? S_IFDIR
                                                                                       : S_IFIFO);
      return NULL;
    }
  if (!check_size (shown, g_file_info_get_size (info), max_size, kind, error))
    return NULL;

  stream = g_file_read (file, NULL, &local_error);
  if (stream == NULL)
    {
      set_io_error (error, shown, local_error);
      return NULL;
    }
  if (size_out != NULL)
    *size_out = g_file_info_get_size (info);
  return G_INPUT_STREAM (stream);
}

GInputStream *
hr_file_open (const char  *path,
              guint64      max_size,
              const char  *kind,
              guint64     *size_out,
              GError     **error)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *shown = NULL;
  const char *local;
  struct stat st;
  int fd, flags;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (kind != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (path[0] == '\0')
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("no file name given (the name is empty)"));
      return NULL;
    }

  shown = hr_text_printable (path, -1);
  file = g_file_new_for_commandline_arg (path);
  local = g_file_peek_path (file);
  if (local == NULL)
    return open_with_gio (file, shown, max_size, kind, size_out, error);

  /* O_NONBLOCK: opening a pipe for reading would otherwise wait for a
   * writer; what the descriptor is decides before anything is read. */
  fd = g_open (local, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      set_errno_error (error, local, shown, errno);
      return NULL;
    }
  if (fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      close (fd);
      set_errno_error (error, local, shown, saved_errno);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      set_not_regular_error (error, shown, st.st_mode);
      return NULL;
    }
  if (!check_size (shown, (guint64) st.st_size, max_size, kind, error))
    {
      close (fd);
      return NULL;
    }

  /* A regular file never blocks; the flag only mattered for opening. */
  flags = fcntl (fd, F_GETFL);
  if (flags >= 0)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);

  if (size_out != NULL)
    *size_out = (guint64) st.st_size;
  return g_unix_input_stream_new (fd, TRUE);
}

gssize
hr_file_read (GInputStream  *stream,
              const char    *path,
              void          *buffer,
              gsize          length,
              GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gsize got = 0;

  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), -1);

  if (!g_input_stream_read_all (stream, buffer, length, &got, NULL, &local_error))
    {
      g_autofree char *shown = hr_text_printable (path, -1);

      set_io_error (error, shown, local_error);
      return -1;
    }
  return (gssize) got;
}

GBytes *
hr_file_load_head (const char  *path,
                   gsize        length,
                   GError     **error)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autofree char *data = NULL;
  gssize n;

  g_return_val_if_fail (path != NULL, NULL);

  stream = hr_file_open (path, G_MAXUINT64, _("a file"), NULL, error);
  if (stream == NULL)
    return NULL;
  data = g_malloc (length + 1);
  n = hr_file_read (stream, path, data, length, error);
  if (n < 0)
    return NULL;
  data[n] = '\0';
  return g_bytes_new_take (g_steal_pointer (&data), n);
}

GBytes *
hr_file_load (const char  *path,
              gsize        max_size,
              const char  *kind,
              GError     **error)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GByteArray) data = NULL;
  g_autofree char *shown = NULL;
  g_autofree guint8 *chunk = NULL;
  guint64 size = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stream = hr_file_open (path, max_size, kind, &size, error);
  if (stream == NULL)
    return NULL;
  shown = hr_text_printable (path, -1);

  /* Read at most one byte past the limit: a file that grows while it is
   * read is refused the same way. */
  data = g_byte_array_sized_new (MIN (size, max_size) + 1);
  chunk = g_malloc (READ_CHUNK);
  while (TRUE)
    {
      gssize n = hr_file_read (stream, path, chunk, READ_CHUNK, error);

      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      g_byte_array_append (data, chunk, n);
      if (data->len > max_size)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                       _("%s: file is more than the %u MiB %s can be"), shown,
                       (guint) (max_size >> 20), kind);
          return NULL;
        }
      if (n < READ_CHUNK)
        break;
    }

  {
    gsize length = data->len;
    g_autoptr(GBytes) with_nul = NULL;

    g_byte_array_append (data, (const guint8 *) "", 1);
    with_nul = g_byte_array_free_to_bytes (g_steal_pointer (&data));
    return g_bytes_new_from_bytes (with_nul, 0, length);
  }
}

/* The test hook: called as the data goes to disk (see hr-file-private.h). */
static HrFileWriteHook write_hook;
static gpointer write_hook_data;

void
hr_file_set_write_hook (HrFileWriteHook hook,
                        gpointer        user_data)
{
  write_hook = hook;
  write_hook_data = user_data;
}

static inline void
run_hook (HrFileWriteStage stage,
          gsize            written)
{
  if (write_hook != NULL)
    write_hook (stage, written, write_hook_data);
}

/* Removes the temporary files of writers that were killed: names with
 * Headroom's prefix that no live writer holds a lock on. */
static void
remove_orphans (const char *folder)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      struct stat st;
      int fd;

      if (!g_str_has_prefix (name, HR_FILE_TEMP_PREFIX))
        continue;
      path = g_build_filename (folder, name, NULL);
      fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0);
      if (fd < 0)
        continue;
      /* A live writer holds its lock from creation to rename. */
      if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && flock (fd, LOCK_EX | LOCK_NB) == 0)
        g_unlink (path);
      close (fd);
    }
}

/* A new temporary file beside @target, locked; -1 with errno on failure. */
static int
create_temp (const char  *target,
             char       **temp_out)
{
  g_autofree char *folder = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);

  /* Keep the name short enough for any file system. */
  if (strlen (base) > 100)
    base[100] = '\0';

  for (guint attempt = 0; attempt < 8; attempt++)
    {
      g_autofree char *name = g_strconcat (HR_FILE_TEMP_PREFIX, base, "-XXXXXX", NULL);
      char *temp = g_build_filename (folder, name, NULL);
      struct stat st;
      int fd = g_mkstemp_full (temp, O_RDWR | O_CLOEXEC, 0666);

      if (fd < 0)
        {
          g_free (temp);
          return -1;
        }
      /* Another process cleaning up may have taken the file for an orphan
       * between its creation and the lock: then it is gone, try again. */
      if (flock (fd, LOCK_EX) == 0 && fstat (fd, &st) == 0 && st.st_nlink > 0)
        {
          *temp_out = temp;
          return fd;
        }
      close (fd);
      g_free (temp);
    }

  errno = EAGAIN;
  return -1;
}

static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         length)
{
  gsize done = 0;

  while (done < length)
    {
      /* small steps under the test hook, so that it can stop anywhere */
      gsize step = write_hook != NULL ? 256 : (gsize) 1 << 20;
      gssize n = write (fd, data + done, MIN (length - done, step));

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      done += n;
      run_hook (HR_FILE_WRITE_DATA, done);
    }
  return TRUE;
}

gboolean
hr_file_write_atomic (const char  *path,
                      const void  *data,
                      gsize        length,
                      GError     **error)
{
  g_autofree char *target = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *temp = NULL;
  g_autofree char *folder = NULL;
  gboolean exists = FALSE;
  GStatBuf st;
  int fd, saved_errno;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  shown = hr_text_printable (path, -1);
  if (path[0] == '\0')
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("no file name given (the name is empty)"));
      return FALSE;
    }

  /* Replace what a link points to, not the link: the user's file lives
   * where the link says.  A link that leads nowhere (dangling, or a loop)
   * is refused and left as it is: renaming over it would put a file in
   * the link's place. */
  {
    char resolved[PATH_MAX];
    GStatBuf lst;

    if (g_lstat (path, &lst) == 0 && S_ISLNK (lst.st_mode))
      {
        if (realpath (path, resolved) == NULL)
          {
            saved_errno = errno;
            g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                         _("%s: is a symbolic link that leads to no file (%s); Headroom "
                           "replaces only what a link points to, so it is left as it is"),
                         shown, g_strerror (saved_errno));
            return FALSE;
          }
        target = g_strdup (resolved);
      }
    else
      target = g_strdup (path);
  }

  if (g_stat (target, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, _("%s: is a folder, not a file"),
                       shown);
          return FALSE;
        }
      /* Renaming over a device or a pipe would put a file in its place
       * (as root, in /dev); Headroom replaces regular files only. */
      if (!S_ISREG (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       _("%s: is not a regular file (a device, pipe or socket); Headroom "
                         "replaces only regular files, so it is left as it is"), shown);
          return FALSE;
        }
      exists = TRUE;
    }

  folder = g_path_get_dirname (target);
  remove_orphans (folder);

  /* CONSISTENT: a temporary file in the same folder, renamed over the
   * target; DURABLE: fsync before the rename and of the folder after it,
   * so a crash of the machine cannot leave an empty file in place of the
   * old one either. */
  fd = create_temp (target, &temp);
  if (fd < 0)
    goto fail_errno;
  run_hook (HR_FILE_WRITE_CREATED, 0);

  /* Keep the permissions a file already has (0666 less the umask for a
   * new one, as any program creates files). */
  if ((exists && fchmod (fd, st.st_mode & 07777) != 0) ||
      !write_all (fd, data, length) ||
      fsync (fd) != 0)
    {
      saved_errno = errno;
      close (fd);
      g_unlink (temp);
      errno = saved_errno;
      goto fail_errno;
    }
  run_hook (HR_FILE_WRITE_SYNCED, length);

  if (g_rename (temp, target) != 0)
    {
      saved_errno = errno;
      close (fd);
      g_unlink (temp);
      errno = saved_errno;
      goto fail_errno;
    }
  run_hook (HR_FILE_WRITE_RENAMED, length);
  /* (the data is on disk already: fsync succeeded) */
  close (fd);

  {
    int dir_fd = g_open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

    if (dir_fd >= 0)
      {
        fsync (dir_fd);
        close (dir_fd);
      }
  }
  return TRUE;

fail_errno:
  saved_errno = errno;
  /* The domain stays G_FILE_ERROR: a file that cannot be written is not
   * bad input. */
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("%s: cannot be written: %s"), shown, g_strerror (saved_errno));
  return FALSE;
}

/* ---- Locks ---------------------------------------------------------------- */

/* How long hr_file_with_lock() waits: HR_FILE_LOCK_TIMEOUT seconds, or
 * what $HEADROOM_LOCK_TIMEOUT says (the tests shorten it). */
static gint64
lock_timeout_us (void)
{
  const char *env = g_getenv ("HEADROOM_LOCK_TIMEOUT");
  double seconds = env != NULL ? g_ascii_strtod (env, NULL) : 0;

  if (!(seconds > 0 && seconds <= 3600))
    seconds = HR_FILE_LOCK_TIMEOUT;
  return (gint64) (seconds * G_TIME_SPAN_SECOND);
}

gboolean
hr_file_with_lock (const char        *lock_path,
                   HrFileLockedFunc   func,
                   gpointer           user_data,
                   GError           **error)
{
  g_autofree char *shown = NULL;
  gint64 deadline;
  gboolean ok;
  int fd;

  g_return_val_if_fail (lock_path != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  shown = hr_text_printable (lock_path, -1);
  fd = g_open (lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("%s: cannot be locked: %s"), shown, g_strerror (saved_errno));
      return FALSE;
    }

  /* Another process holds the lock for a read-modify-write that takes
   * milliseconds; one that holds it for seconds is stuck (or stopped),
   * and waiting with no end and no word would hang this one too. */
  deadline = g_get_monotonic_time () + lock_timeout_us ();
  while (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == EINTR)
        continue;
      if (saved_errno == EWOULDBLOCK && g_get_monotonic_time () < deadline)
        {
          g_usleep (20 * G_TIME_SPAN_MILLISECOND);
          continue;
        }
      close (fd);
      if (saved_errno == EWOULDBLOCK)
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_AGAIN,
                     _("%s: another process has held this lock for %.0f s; gave up waiting "
                       "(let it finish, or end it, and try again)"),
                     shown, lock_timeout_us () / (double) G_TIME_SPAN_SECOND);
      else
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                     _("%s: cannot be locked: %s"), shown, g_strerror (saved_errno));
      return FALSE;
    }

  ok = func (user_data, error);
  close (fd);   /* releases the lock */
  return ok;
}
