/* hr-window-measurements.c: the window's imported measurements
 *
 * The files are the scenario's, kept in an HrMeasurements
 * (hr-measurements.c): read here (in a worker thread for the user's
 * clicks), set aside when another scenario opens, handed to the
 * analysis and to HrMeasurementsGroup (hr-measurements-group.c), which
 * shows them and says when the user removes one or switches the
 * calibration.
 *
 * A CSV that no format recognises, and whose columns or unit the reader
 * cannot tell, goes through the column-mapping page
 * (hr-csv-mapping-dialog.c) first; the mapping is remembered by the
 * file's header line (the csv-mappings key, as headroom-cli's options),
 * and the next file with that header is read with it without asking.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>
#include <string.h>

#include "hr-csv-mapping-dialog.h"
#include "hr-window-private.h"

/* What is read of a file before it is imported: enough for its header
 * and the mapping page's first rows. */
#define HEAD_SIZE (64 * 1024)
/* Mappings remembered, and the longest header remembered by. */
#define MAX_MAPPINGS      64
#define MAX_MAPPED_HEADER 4096

/* Measurements belong to the scenario they were imported for: another
 * scenario opened sets them aside, says so, and offers them back. */
void
_hr_window_measurements_set_aside (HrWindow *self)
{
  g_autofree char *message = NULL;
  AdwToast *toast;
  guint n;

  /* (the scenario that opens makes the next analysis) */
  g_signal_handlers_block_by_func (self->measurements, _hr_window_refresh, self);
  n = hr_measurements_set_aside (self->measurements);
  g_signal_handlers_unblock_by_func (self->measurements, _hr_window_refresh, self);
  if (n == 0)
    return;
  message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "%u measurement of the previous scenario was set aside",
                                          "%u measurements of the previous scenario were set aside",
                                          n),
                             n);
  toast = adw_toast_new (message);
  adw_toast_set_button_label (toast, _("_Keep Them"));
  adw_toast_set_action_name (toast, "win.keep-measurements");
  hr_toasts_add (self->toast_overlay, toast);
}

void
hr_window_keep_measurements (HrWindow *self)
{
  g_return_if_fail (HR_IS_WINDOW (self));
  hr_measurements_keep (self->measurements);
}

/* The first HEAD_SIZE bytes of @path; @complete: they are all of it. */
static GBytes *
read_head (const char *path,
           gboolean   *complete,
           GError    **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = g_file_read (file, NULL, error);
  g_autofree guint8 *buffer = NULL;
  gsize n = 0;

  if (in == NULL)
    return NULL;
  buffer = g_malloc (HEAD_SIZE + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (in), buffer, HEAD_SIZE + 1, &n, NULL, error))
    return NULL;
  *complete = n <= HEAD_SIZE;
  return g_bytes_new (buffer, MIN (n, HEAD_SIZE));
}

static HrMeasureCsvHead *
read_csv_head (const char *path,
               GBytes     *head,
               gboolean    complete)
{
  g_autofree char *name = g_path_get_basename (path);
  gsize length;
  const char *data = g_bytes_get_data (head, &length);

  /* (only the header matters here: no rows are split) */
  return hr_measure_csv_head_read (name, data, length, complete, NULL, 0);
}

/* The options remembered for files with @header; FALSE when there are
 * none (or they no longer read). */
static gboolean
lookup_mapping (HrWindow         *self,
                const char       *header,
                HrMeasureOptions *options)
{
  g_autoptr(GVariant) mappings = NULL;
  const char *text;

  if (header == NULL)
    return FALSE;
  mappings = g_settings_get_value (self->settings, "csv-mappings");
  if (!g_variant_lookup (mappings, header, "&s", &text) || *text == '\0')
    return FALSE;
  return hr_measure_options_from_string (options, text, NULL);
}

/* Remembers @options (as headroom-cli's options) for files with @header;
 * the oldest mapping goes when there are MAX_MAPPINGS. */
static void
remember_mapping (HrWindow   *self,
                  const char *header,
                  const char *options)
{
  g_autoptr(GVariant) mappings = NULL;
  GVariantBuilder builder;
  GVariantIter iter;
  const char *key, *value;
  gsize n, skip;

  if (header == NULL || strlen (header) > MAX_MAPPED_HEADER || options == NULL)
    return;

  mappings = g_settings_get_value (self->settings, "csv-mappings");
  n = g_variant_n_children (mappings);
  skip = n >= MAX_MAPPINGS ? n - MAX_MAPPINGS + 1 : 0;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{ss}"));
  g_variant_iter_init (&iter, mappings);
  while (g_variant_iter_next (&iter, "{&s&s}", &key, &value))
    {
      if (g_str_equal (key, header))
        continue;
      if (skip > 0)
        {
          skip--;
          continue;
        }
      g_variant_builder_add (&builder, "{ss}", key, value);
    }
  g_variant_builder_add (&builder, "{ss}", header, options);
  g_settings_set_value (self->settings, "csv-mappings", g_variant_builder_end (&builder));
}

gboolean
hr_window_add_measurement_file (HrWindow *self,
                                GFile    *file,
                                GError  **error)
{
  g_autofree char *path = g_file_get_path (file);
  HrMeasureOptions options = { 0 };
  HrMeasurement *measurement;
  g_autoptr(GBytes) head = NULL;
  gboolean complete;

  if (path == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("Only local files can be imported"));
      return FALSE;
    }
  /* a CSV mapped before is read as it was then */
  head = read_head (path, &complete, NULL);
  if (head != NULL)
    {
      g_autoptr(HrMeasureCsvHead) csv = read_csv_head (path, head, complete);

      lookup_mapping (self, csv->header, &options);
    }
  measurement = hr_measurement_load_file (path, &options, error);
  hr_measure_options_clear (&options);
  if (measurement == NULL)
    return FALSE;
  hr_measurements_add (self->measurements, measurement, path, NULL);
  return TRUE;
}

typedef struct {
  HrWindow          *self;
  char              *path;
  /* a mapping made on the mapping page, remembered once it reads */
  char              *header;
  char              *options;
  /* the measurement it reads again with the new mapping, or NULL */
  HrMeasurementFile *replace;
  /* read with a mapping remembered: the toast offers to change it */
  gboolean           remembered;
} ImportJob;

typedef struct {
  HrWindow          *self;
  char              *path;
  char              *options;
  HrMeasurementFile *replace;
} Remap;

static void
remap_free (gpointer  data,
            GClosure *closure)
{
  Remap *remap = data;

  g_object_unref (remap->self);
  g_free (remap->path);
  g_free (remap->options);
  g_free (remap);
}

static void show_mapping_page (HrWindow          *self,
                               const char        *path,
                               const char        *options,
                               HrMeasurementFile *replace);

static void
on_change_mapping_cb (AdwToast *toast,
                      Remap    *remap)
{
  show_mapping_page (remap->self, remap->path, remap->options, remap->replace);
}

static void
import_finished (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ImportJob *job = user_data;
  HrWindow *self = job->self;
  g_autoptr(GError) error = NULL;
  HrMeasurement *measurement = hr_measurement_load_file_finish (result, &error);

  if (measurement != NULL)
    {
      g_autofree char *name = g_path_get_basename (job->path);
      g_autofree char *message = NULL;
      HrMeasurementFile *file;
      AdwToast *toast;

      if (job->header != NULL)
        remember_mapping (self, job->header, job->options);
      /* read again with another mapping: in the place of the first */
      file = hr_measurements_add (self->measurements, measurement, job->path,
                                  hr_measurements_contains (self->measurements, job->replace)
                                    ? job->replace : NULL);

      if (job->remembered)
        {
          Remap *remap = g_new0 (Remap, 1);

          /* a mapping remembered may be a wrong one: it can be changed */
          message = g_strdup_printf (_("Imported “%s” with the columns mapped before"), name);
          toast = adw_toast_new (message);
          adw_toast_set_button_label (toast, _("_Change Mapping…"));
          remap->self = g_object_ref (self);
          remap->path = g_strdup (job->path);
          remap->options = g_strdup (job->options);
          remap->replace = file;
          g_signal_connect_data (toast, "button-clicked", G_CALLBACK (on_change_mapping_cb),
                                 remap, remap_free, 0);
        }
      else
        {
          message = g_strdup_printf (_("Imported “%s”"), name);
          toast = adw_toast_new (message);
        }
      hr_toasts_add (self->toast_overlay, toast);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *name = g_path_get_basename (job->path);
      g_autofree char *heading = g_strdup_printf (_("Could not import “%s”"), name);

      _hr_window_show_error (self, heading, error->message);
    }
  g_object_unref (job->self);
  g_free (job->path);
  g_free (job->header);
  g_free (job->options);
  g_free (job);
}

/* Reads @path with @options in a worker thread; @mapped_header: the
 * options are a mapping made for that header, remembered once they
 * read; @remembered: they are one remembered. */
static void
start_import (HrWindow               *self,
              const char             *path,
              const HrMeasureOptions *options,
              const char             *mapped_header,
              gboolean                remembered,
              HrMeasurementFile      *replace)
{
  ImportJob *job = g_new0 (ImportJob, 1);

  job->self = g_object_ref (self);
  job->path = g_strdup (path);
  job->header = g_strdup (mapped_header);
  job->options = hr_measure_options_to_string (options);
  job->remembered = remembered;
  job->replace = replace;
  hr_measurement_load_file_async (path, options, self->cancellable, import_finished, job);
}

static void
on_mapping_import_cb (HrWindow           *self,
                      HrCsvMappingDialog *dialog)
{
  HrMeasureOptions options;

  hr_csv_mapping_dialog_get_options (dialog, &options);
  start_import (self, hr_csv_mapping_dialog_get_path (dialog), &options,
                hr_csv_mapping_dialog_get_header (dialog), FALSE,
                g_object_get_data (G_OBJECT (dialog), "hr-replace"));
  hr_measure_options_clear (&options);
}

static void
show_import_error (HrWindow   *self,
                   const char *path,
                   GError     *error)
{
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *heading = g_strdup_printf (_("Could not import “%s”"), name);

  _hr_window_show_error (self, heading, error->message);
}

/* The mapping page for @path, set to @options when they are given
 * (headroom-cli's options, as remembered); its Import reads the file
 * in place of @replace. */
static void
open_mapping_page (HrWindow          *self,
                   const char        *path,
                   GBytes            *head,
                   gboolean           complete,
                   const char        *options,
                   HrMeasurementFile *replace)
{
  HrCsvMappingDialog *dialog = hr_csv_mapping_dialog_new (GTK_WINDOW (self), path, head,
                                                          complete);
  HrMeasureOptions remembered = { 0 };

  if (options != NULL && hr_measure_options_from_string (&remembered, options, NULL))
    hr_csv_mapping_dialog_set_options (dialog, &remembered);
  hr_measure_options_clear (&remembered);
  g_object_set_data (G_OBJECT (dialog), "hr-replace", replace);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  g_signal_connect_object (dialog, "import", G_CALLBACK (on_mapping_import_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
show_mapping_page (HrWindow          *self,
                   const char        *path,
                   const char        *options,
                   HrMeasurementFile *replace)
{
  g_autoptr(GBytes) head = NULL;
  g_autoptr(GError) error = NULL;
  gboolean complete = FALSE;

  head = read_head (path, &complete, &error);
  if (head == NULL)
    show_import_error (self, path, error);
  else
    open_mapping_page (self, path, head, complete, options, replace);
}

/* In a worker thread: a log of millions of rows never blocks the window. */
void
hr_window_import_measurement (HrWindow *self,
                              GFile    *file)
{
  g_autofree char *path = g_file_get_path (file);
  HrMeasureOptions options = { 0 };
  g_autoptr(GBytes) head = NULL;
  g_autoptr(HrMeasureCsvHead) csv = NULL;
  g_autoptr(GError) error = NULL;
  gboolean complete = FALSE;

  g_return_if_fail (HR_IS_WINDOW (self));
  if (path == NULL)
    {
      _hr_window_show_error (self, _("Could not import"), _("Only local files can be imported"));
      return;
    }

  /* The header says whether the file needs a mapping, or has one. */
  head = read_head (path, &complete, &error);
  if (head == NULL)
    {
      show_import_error (self, path, error);
      return;
    }
  csv = read_csv_head (path, head, complete);
  if (lookup_mapping (self, csv->header, &options))
    start_import (self, path, &options, NULL, TRUE, NULL);
  else if (!csv->needs_mapping)
    start_import (self, path, &options, NULL, FALSE, NULL);
  else
    open_mapping_page (self, path, head, complete, NULL, NULL);
  hr_measure_options_clear (&options);
}

static void
on_remove_file_cb (HrWindow          *self,
                   HrMeasurementFile *file)
{
  hr_measurements_remove (self->measurements, file);
}

/* The files and the switch go down to the group; what the user removes
 * or switches comes up to the measurements; any change of them makes
 * the analysis again. */
void
_hr_window_measurements_init (HrWindow *self)
{
  hr_measurements_group_set_files (self->measurements_group,
                                   hr_measurements_get_files (self->measurements));
  g_object_bind_property (self->measurements, "use-calibration",
                          self->measurements_group, "use-calibration",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->measurements, "changed", G_CALLBACK (_hr_window_refresh),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->measurements, "notify::use-calibration",
                           G_CALLBACK (_hr_window_refresh), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->measurements_group, "remove-file",
                           G_CALLBACK (on_remove_file_cb), self, G_CONNECT_SWAPPED);
}
