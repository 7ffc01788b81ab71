/* hr-measurements.c: the measurements imported for a scenario
 *
 * The files are the scenario's: another scenario opened sets them aside
 * (the window offers them back), and the calibration switch says whether
 * the estimates follow them.  The window holds one, hands the files and
 * the switch to HrMeasurementsGroup (which shows them and says what the
 * user removed or switched), and makes the analysis from them whenever
 * they change.  Reading a file, and asking how, is the window's
 * (hr-window-measurements.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-measurements"

#include "hr-measurements.h"

struct _HrMeasurements
{
  GObject    parent_instance;

  GPtrArray *files;       /* HrMeasurementFile, of this scenario */
  GPtrArray *set_aside;   /* HrMeasurementFile, of the scenario before */
  gboolean   use_calibration;
};

G_DEFINE_FINAL_TYPE (HrMeasurements, hr_measurements, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_N_FILES,
  PROP_N_SET_ASIDE,
  PROP_USE_CALIBRATION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

HrMeasurementFile *
hr_measurement_file_new (HrMeasurement *measurement,
                         const char    *path)
{
  HrMeasurementFile *file = g_new0 (HrMeasurementFile, 1);

  file->measurement = measurement;
  file->path = g_strdup (path);
  return file;
}

void
hr_measurement_file_free (HrMeasurementFile *file)
{
  if (file == NULL)
    return;
  hr_measurement_free (file->measurement);
  g_free (file->path);
  g_free (file);
}

/* The files changed (and with them, maybe, the counts). */
static void
changed (HrMeasurements *self,
         guint           n_files,
         guint           n_set_aside)
{
  g_object_freeze_notify (G_OBJECT (self));
  if (n_files != self->files->len)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_FILES]);
  if (n_set_aside != self->set_aside->len)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SET_ASIDE]);
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[CHANGED], 0);
}

GPtrArray *
hr_measurements_get_files (HrMeasurements *self)
{
  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), NULL);
  return self->files;
}

guint
hr_measurements_get_n_files (HrMeasurements *self)
{
  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), 0);
  return self->files->len;
}

guint
hr_measurements_get_n_set_aside (HrMeasurements *self)
{
  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), 0);
  return self->set_aside->len;
}

HrMeasurementFile *
hr_measurements_add (HrMeasurements    *self,
                     HrMeasurement     *measurement,
                     const char        *path,
                     HrMeasurementFile *replace)
{
  guint n_files, n_set_aside;
  HrMeasurementFile *file;

  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), NULL);
  g_return_val_if_fail (measurement != NULL && path != NULL, NULL);

  n_files = self->files->len;
  n_set_aside = self->set_aside->len;
  if (replace != NULL)
    g_ptr_array_remove (self->files, replace);
  file = hr_measurement_file_new (measurement, path);
  g_ptr_array_add (self->files, file);
  changed (self, n_files, n_set_aside);
  return file;
}

gboolean
hr_measurements_contains (HrMeasurements    *self,
                          HrMeasurementFile *file)
{
  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), FALSE);
  return file != NULL && g_ptr_array_find (self->files, file, NULL);
}

gboolean
hr_measurements_remove (HrMeasurements    *self,
                        HrMeasurementFile *file)
{
  guint n_files;

  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), FALSE);

  n_files = self->files->len;
  if (!g_ptr_array_remove (self->files, file))
    return FALSE;
  changed (self, n_files, self->set_aside->len);
  return TRUE;
}

guint
hr_measurements_set_aside (HrMeasurements *self)
{
  guint n_files, n_set_aside;

  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), 0);

  n_files = self->files->len;
  n_set_aside = self->set_aside->len;
  g_ptr_array_set_size (self->set_aside, 0);
  while (self->files->len > 0)
    g_ptr_array_add (self->set_aside, g_ptr_array_steal_index (self->files, 0));
  if (n_files > 0 || n_set_aside > 0)
    changed (self, n_files, n_set_aside);
  return self->set_aside->len;
}

void
hr_measurements_keep (HrMeasurements *self)
{
  guint n_files, n_set_aside;

  g_return_if_fail (HR_IS_MEASUREMENTS (self));

  n_files = self->files->len;
  n_set_aside = self->set_aside->len;
  while (self->set_aside->len > 0)
    g_ptr_array_add (self->files, g_ptr_array_steal_index (self->set_aside, 0));
  changed (self, n_files, n_set_aside);
}

gboolean
hr_measurements_get_use_calibration (HrMeasurements *self)
{
  g_return_val_if_fail (HR_IS_MEASUREMENTS (self), FALSE);
  return self->use_calibration;
}

void
hr_measurements_set_use_calibration (HrMeasurements *self,
                                     gboolean        use)
{
  g_return_if_fail (HR_IS_MEASUREMENTS (self));

  use = !!use;
  if (use == self->use_calibration)
    return;
  self->use_calibration = use;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USE_CALIBRATION]);
}

static void
hr_measurements_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  HrMeasurements *self = HR_MEASUREMENTS (object);

  switch (prop_id)
    {
    case PROP_N_FILES:
      g_value_set_uint (value, self->files->len);
      break;
    case PROP_N_SET_ASIDE:
      g_value_set_uint (value, self->set_aside->len);
      break;
    case PROP_USE_CALIBRATION:
      g_value_set_boolean (value, self->use_calibration);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_measurements_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  HrMeasurements *self = HR_MEASUREMENTS (object);

  switch (prop_id)
    {
    case PROP_USE_CALIBRATION:
      hr_measurements_set_use_calibration (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_measurements_finalize (GObject *object)
{
  HrMeasurements *self = HR_MEASUREMENTS (object);

  g_clear_pointer (&self->files, g_ptr_array_unref);
  g_clear_pointer (&self->set_aside, g_ptr_array_unref);
  G_OBJECT_CLASS (hr_measurements_parent_class)->finalize (object);
}

static void
hr_measurements_class_init (HrMeasurementsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = hr_measurements_get_property;
  object_class->set_property = hr_measurements_set_property;
  object_class->finalize = hr_measurements_finalize;

  properties[PROP_N_FILES] =
    g_param_spec_uint ("n-files", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_SET_ASIDE] =
    g_param_spec_uint ("n-set-aside", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_USE_CALIBRATION] =
    g_param_spec_boolean ("use-calibration", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
hr_measurements_init (HrMeasurements *self)
{
  self->files = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_measurement_file_free);
  self->set_aside = g_ptr_array_new_with_free_func ((GDestroyNotify) hr_measurement_file_free);
}

HrMeasurements *
hr_measurements_new (void)
{
  return g_object_new (HR_TYPE_MEASUREMENTS, NULL);
}
