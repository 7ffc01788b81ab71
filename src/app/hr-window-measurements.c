/* hr-window-measurements.c: the window's imported measurements
 *
 * The files are the scenario's: read here (in a worker thread for the
 * user's clicks), set aside when another scenario opens, handed to the
 * analysis and to HrMeasurementsGroup (hr-measurements-group.c), which
 * shows them and says when the user removes one or switches the
 * calibration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>

#include "hr-window-private.h"

/* Measurements belong to the scenario they were imported for: another
 * scenario opened sets them aside, says so, and offers them back. */
void
_hr_window_measurements_set_aside (HrWindow *self)
{
  g_autofree char *message = NULL;
  AdwToast *toast;

  g_ptr_array_set_size (self->set_aside, 0);
  if (self->measurements->len == 0)
    return;

  while (self->measurements->len > 0)
    g_ptr_array_add (self->set_aside, g_ptr_array_steal_index (self->measurements, 0));
  message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "%u measurement of the previous scenario was set aside",
                                          "%u measurements of the previous scenario were set aside",
                                          self->set_aside->len),
                             self->set_aside->len);
  toast = adw_toast_new (message);
  adw_toast_set_button_label (toast, _("_Keep Them"));
  adw_toast_set_action_name (toast, "win.keep-measurements");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

void
hr_window_keep_measurements (HrWindow *self)
{
  g_return_if_fail (HR_IS_WINDOW (self));

  while (self->set_aside->len > 0)
    g_ptr_array_add (self->measurements, g_ptr_array_steal_index (self->set_aside, 0));
  _hr_window_refresh (self);
}

static void
add_measurement (HrWindow      *self,
                 HrMeasurement *measurement,
                 const char    *path,
                 gboolean       toast)
{
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *message = g_strdup_printf (_("Imported “%s”"), name);

  g_ptr_array_add (self->measurements, hr_measurement_file_new (measurement, path));
  _hr_window_refresh (self);
  if (toast)
    adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

gboolean
hr_window_add_measurement_file (HrWindow *self,
                                GFile    *file,
                                GError  **error)
{
  g_autofree char *path = g_file_get_path (file);
  HrMeasureOptions options = { 0 };
  HrMeasurement *measurement;

  if (path == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("Only local files can be imported"));
      return FALSE;
    }
  measurement = hr_measurement_load_file (path, &options, error);
  if (measurement == NULL)
    return FALSE;
  add_measurement (self, measurement, path, FALSE);
  return TRUE;
}

guint
hr_window_get_n_measurements (HrWindow *self)
{
  return self->measurements->len;
}

typedef struct {
  HrWindow *self;
  char     *path;
} ImportJob;

static void
import_finished (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ImportJob *job = user_data;
  g_autoptr(GError) error = NULL;
  HrMeasurement *measurement = hr_measurement_load_file_finish (result, &error);

  if (measurement != NULL)
    add_measurement (job->self, measurement, job->path, TRUE);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *name = g_path_get_basename (job->path);
      g_autofree char *heading = g_strdup_printf (_("Could not import “%s”"), name);

      _hr_window_show_error (job->self, heading, error->message);
    }
  g_object_unref (job->self);
  g_free (job->path);
  g_free (job);
}

/* In a worker thread: a log of millions of rows never blocks the window. */
void
_hr_window_import_measurement (HrWindow *self,
                               GFile    *file)
{
  g_autofree char *path = g_file_get_path (file);
  HrMeasureOptions options = { 0 };
  ImportJob *job;

  if (path == NULL)
    {
      _hr_window_show_error (self, _("Could not import"), _("Only local files can be imported"));
      return;
    }
  job = g_new0 (ImportJob, 1);
  job->self = g_object_ref (self);
  job->path = g_strdup (path);
  hr_measurement_load_file_async (path, &options, self->cancellable, import_finished, job);
}

void
hr_window_import_measurement (HrWindow *self,
                              GFile    *file)
{
  _hr_window_import_measurement (self, file);
}

static void
on_remove_file_cb (HrWindow          *self,
                   HrMeasurementFile *file)
{
  g_ptr_array_remove (self->measurements, file);
  _hr_window_refresh (self);
}

void
_hr_window_measurements_init (HrWindow *self)
{
  hr_measurements_group_set_files (self->measurements_group, self->measurements);
  g_signal_connect_object (self->measurements_group, "notify::use-calibration",
                           G_CALLBACK (_hr_window_refresh), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->measurements_group, "remove-file",
                           G_CALLBACK (on_remove_file_cb), self, G_CONNECT_SWAPPED);
}
