/* hr-estimate-check.c: refusing a scenario whose figures cannot be held
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-estimate"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "hr-checked.h"
#include "hr-estimate-check.h"
#include "hr-estimate.h"
#include "hr-reader.h"
#include "hr-setting.h"

static gboolean
overflows (const HrScenario *scenario)
{
  g_autoptr(HrEstimate) est = hr_estimate_new (scenario);

  return est->overflow;
}

gboolean
hr_estimate_check_scenario (const HrScenario *scenario,
                            const char       *name,
                            GError          **error)
{
  g_autoptr(GString) keys = NULL;
  g_autofree char *shown = NULL;
  const HrSetting *settings;
  guint n_settings;

  g_return_val_if_fail (scenario != NULL, FALSE);

  if (!overflows (scenario))
    return TRUE;

  /* The keys that take part: those whose minimum alone brings every
   * figure back under the cap (a product of several large values names
   * each of them). */
  shown = hr_text_printable (name, -1);
  keys = g_string_new (NULL);
  settings = hr_settings_get_all (&n_settings);
  for (guint i = 0; i < n_settings; i++)
    {
      const HrSetting *setting = &settings[i];
      g_autoptr(HrScenario) lower = NULL;

      if ((setting->kind != HR_SETTING_UNSIGNED && setting->kind != HR_SETTING_DOUBLE &&
           setting->kind != HR_SETTING_SIZE) ||
          !hr_setting_applies (setting, scenario) ||
          hr_setting_get (setting, scenario) <= setting->min)
        continue;

      lower = hr_scenario_copy (scenario);
      if (setting->kind == HR_SETTING_SIZE)
        hr_setting_set_size (setting, lower, (guint) setting->min, (guint) setting->min);
      else
        hr_setting_set (setting, lower, setting->min);
      if (!overflows (lower))
        g_string_append_printf (keys, "%s%s", keys->len > 0 ? ", " : "", setting->key);
    }
  if (scenario->has_replay)
    {
      g_autoptr(HrScenario) lower = hr_scenario_copy (scenario);

      lower->has_replay = FALSE;
      if (!overflows (lower))
        g_string_append_printf (keys, "%s%s", keys->len > 0 ? ", " : "",
                                "replay.steps, replay.obs_shape");
    }

  if (keys->len > 0 && strchr (keys->str, ',') == NULL)
    /* Translators: the first %s is a file name, the second a scenario
     * key such as "seq_len" */
    g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                 _("%s: the estimate is more than 1 EiB (2^60 bytes) and cannot be held: %s is "
                   "too large; lower it"), shown, keys->str);
  else if (keys->len > 0)
    /* Translators: the first %s is a file name, the second a list of
     * scenario keys such as "seq_len, micro_batch" */
    g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                 _("%s: the estimate is more than 1 EiB (2^60 bytes) and cannot be held: the "
                   "product of %s is too large; lower one of them"), shown, keys->str);
  else
    g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                 _("%s: the estimate is more than 1 EiB (2^60 bytes) and cannot be held: the "
                   "model and the scenario's sizes together are too large"), shown);
  return FALSE;
}
