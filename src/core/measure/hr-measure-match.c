/* hr-measure-match.c: whether a measurement belongs to a scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-measure-match"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "hr-measure-match.h"

const HrEnumName hr_match_item_names[] = {
  { HR_MATCH_MODEL, "model" },
  { HR_MATCH_FRAMEWORK, "framework" },
  { HR_MATCH_PRECISION, "precision" },
  { HR_MATCH_GPU, "gpu" },
  { 0, NULL },
};

const HrEnumName hr_match_state_names[] = {
  { HR_MATCH_SAME, "same" },
  { HR_MATCH_DIFFERENT, "different" },
  { HR_MATCH_UNKNOWN, "unknown" },
  { 0, NULL },
};

/* Letters and digits only, folded: "NVIDIA GeForce RTX 4090" and
 * "geforce-rtx-4090" compare by what they spell. */
static char *
normalise (const char *text)
{
  g_autofree char *folded = g_utf8_casefold (text, -1);
  GString *out = g_string_new (NULL);

  for (const char *p = folded; *p != '\0'; p++)
    if (g_ascii_isalnum (*p))
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* The same thing named twice: equal, or one name within the other
 * ("smolvla-base" and "smolvla"; "NVIDIA A100-SXM4-80GB" and "A100 SXM4
 * 80GB"), where the shorter spells at least four characters. */
static gboolean
same_name (const char *a,
           const char *b)
{
  g_autofree char *na = normalise (a);
  g_autofree char *nb = normalise (b);
  const char *shorter = strlen (na) <= strlen (nb) ? na : nb;
  const char *longer = shorter == na ? nb : na;

  if (*shorter == '\0')
    return FALSE;
  if (g_str_equal (na, nb))
    return TRUE;
  return strlen (shorter) >= 4 && strstr (longer, shorter) != NULL;
}

static const char *
framework_nick (const char *text)
{
  g_autofree char *n = normalise (text);

  if (g_str_equal (n, "torch") || g_str_equal (n, "pytorch"))
    return "pytorch";
  if (g_str_equal (n, "jax") || g_str_equal (n, "flax"))
    return "jax";
  return NULL;
}

/* A probe writes the scenario's own precision names (bf16-mixed, fp32);
 * JAX's dtype names mean the same. */
static const char *
precision_nick (const char *text)
{
  static const struct {
    const char *name;
    const char *nick;
  } aliases[] = {
    { "float32", "fp32" }, { "bfloat16", "bf16-mixed" }, { "float16", "fp16-mixed" },
    { "bf16", "bf16-mixed" }, { "fp16", "fp16-mixed" },
  };
  int value;

  if (hr_enum_from_nick (hr_compute_names, text, &value))
    return hr_enum_to_nick (hr_compute_names, value);
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_ascii_strcasecmp (text, aliases[i].name) == 0)
      return aliases[i].nick;
  return NULL;
}

/* An nvidia-smi series is named "GPU 0 (NVIDIA A100-SXM4-80GB)". */
static char *
gpu_from_series (const HrMeasurement *measurement)
{
  for (guint i = 0; i < measurement->series->len; i++)
    {
      const HrMeasureSeries *series = g_ptr_array_index (measurement->series, i);
      const char *open = series->name != NULL ? strchr (series->name, '(') : NULL;
      const char *close = open != NULL ? strrchr (open, ')') : NULL;

      if (open != NULL && close != NULL && close > open + 1 &&
          g_str_has_prefix (series->name, "GPU "))
        return g_strndup (open + 1, close - open - 1);
    }
  return NULL;
}

static void
compare (HrMeasureMatch *self,
         HrMatchItem     item,
         const char     *measured,
         const char     *scenario,
         gboolean        same)
{
  self->measured[item] = g_strdup (measured);
  self->scenario[item] = g_strdup (scenario);
  if (measured == NULL || scenario == NULL)
    self->state[item] = HR_MATCH_UNKNOWN;
  else
    self->state[item] = same ? HR_MATCH_SAME : HR_MATCH_DIFFERENT;
  if (measured != NULL)
    self->known = TRUE;
  if (self->state[item] == HR_MATCH_DIFFERENT)
    self->differs = TRUE;
}

HrMeasureMatch *
hr_measure_match_new (const HrMeasurement *measurement,
                      const HrScenario    *scenario)
{
  HrMeasureMatch *self;
  const char *model, *framework, *precision, *gpu;
  g_autofree char *series_gpu = NULL;
  const char *compute = NULL;

  g_return_val_if_fail (measurement != NULL, NULL);
  g_return_val_if_fail (scenario != NULL, NULL);

  self = g_new0 (HrMeasureMatch, 1);

  model = hr_measurement_get_config (measurement, "model");
  compare (self, HR_MATCH_MODEL, model, scenario->model->name,
           model != NULL && (same_name (model, scenario->model->id) ||
                             same_name (model, scenario->model->name)));

  framework = hr_measurement_get_config (measurement, "framework");
  compare (self, HR_MATCH_FRAMEWORK, framework,
           hr_enum_to_nick (hr_framework_names, scenario->framework),
           framework != NULL &&
           g_strcmp0 (framework_nick (framework),
                      hr_enum_to_nick (hr_framework_names, scenario->framework)) == 0);

  precision = hr_measurement_get_config (measurement, "precision");
  compute = hr_enum_to_nick (hr_compute_names, scenario->compute);
  compare (self, HR_MATCH_PRECISION, precision, compute,
           precision != NULL && g_strcmp0 (precision_nick (precision), compute) == 0);

  gpu = hr_measurement_get_config (measurement, "gpu");
  if (gpu == NULL)
    gpu = series_gpu = gpu_from_series (measurement);
  compare (self, HR_MATCH_GPU, gpu, scenario->gpu != NULL ? scenario->gpu->name : NULL,
           gpu != NULL && scenario->gpu != NULL &&
           (same_name (gpu, scenario->gpu->name) || same_name (gpu, scenario->gpu->id)));

  self->can_calibrate = self->state[HR_MATCH_MODEL] != HR_MATCH_DIFFERENT &&
                        self->state[HR_MATCH_FRAMEWORK] != HR_MATCH_DIFFERENT &&
                        self->state[HR_MATCH_PRECISION] != HR_MATCH_DIFFERENT;

  if (!self->known)
    self->summary = g_strdup (_("The file does not say what it measured (no model, framework, "
                                "precision or GPU): check that it belongs to this scenario"));
  else if (!self->differs)
    self->summary = g_strdup (_("Measured for this scenario's setup, as far as the file says"));
  else
    {
      GString *measured = g_string_new (NULL);
      GString *ours = g_string_new (NULL);
      GString *items = g_string_new (NULL);
      static const char *what[] = {
        N_("model"), N_("framework"), N_("precision"), N_("GPU"),
      };

      for (guint i = 0; i < HR_MATCH_N_ITEMS; i++)
        {
          if (self->state[i] != HR_MATCH_DIFFERENT)
            continue;
          g_string_append_printf (measured, "%s%s %s", measured->len > 0 ? ", " : "",
                                  _(what[i]), self->measured[i]);
          g_string_append_printf (ours, "%s%s %s", ours->len > 0 ? ", " : "", _(what[i]),
                                  self->scenario[i]);
          g_string_append_printf (items, "%s%s", items->len > 0 ? ", " : "", _(what[i]));
        }
      /* Translators: what the file measured, then the scenario's. */
      self->summary = g_strdup_printf (_("Measured on another setup: %s; this scenario has %s"),
                                       measured->str, ours->str);
      g_string_free (measured, TRUE);
      g_string_free (ours, TRUE);
      self->differing = g_string_free (items, FALSE);
    }

  return self;
}

void
hr_measure_match_free (HrMeasureMatch *match)
{
  if (match == NULL)
    return;

  for (guint i = 0; i < HR_MATCH_N_ITEMS; i++)
    {
      g_free (match->measured[i]);
      g_free (match->scenario[i]);
    }
  g_free (match->summary);
  g_free (match->differing);
  g_free (match);
}
