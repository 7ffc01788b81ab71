/* hr-window-dnd.c: files dropped on the window, and which kind each is
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>

#include "hr-model-import-dialog.h"
#include "hr-window-private.h"

/* A dropped or opened file is a scenario when it says so in its first
 * kilobytes; anything else goes to the measurement importers. */
static gboolean
looks_like_scenario (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GBytes) head = NULL;
  gsize n;
  const char *text;

  /* A pipe or a device is refused before anything waits on it; the
   * scenario reader then gives the clearer message. */
  if (path != NULL)
    head = hr_file_load_head (path, 4096, NULL);
  if (head == NULL)
    return TRUE;
  text = g_bytes_get_data (head, &n);
  return n > 0 && g_strstr_len (text, n, "\"headroom_scenario\"") != NULL;
}

gboolean
hr_window_file_is_scenario (GFile *file)
{
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  return !hr_model_import_file_is_model (file) && looks_like_scenario (file);
}

void
hr_window_open_any (HrWindow *self,
                    GFile    *file)
{
  if (hr_model_import_file_is_model (file))
    hr_window_import_model (self, file);
  else if (looks_like_scenario (file))
    hr_window_open_file (self, file);
  else
    hr_window_import_measurement (self, file);
}

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         HrWindow      *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;
  for (GSList *l = files; l != NULL; l = l->next)
    hr_window_open_any (self, l->data);
  g_slist_free (files);
  return TRUE;
}

void
_hr_window_dnd_init (HrWindow *self)
{
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
