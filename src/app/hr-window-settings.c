/* hr-window-settings.c: what the sidebar asks, applied to the scenario
 *
 * HrSidebar (hr-sidebar.c) shows the run and never changes it: a setting
 * changed, a model chosen, a card ticked come up as its signals, and here
 * each becomes one edit of the window's scenario or comparison, through
 * the undo history (hr-window-history.c), after which the refresh hands
 * the new analysis down to the sidebar again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>
#include <string.h>

#include "hr-window-private.h"

/* ------------------------------------------------------------------ */
/* A setting                                                            */

static void
on_setting_changed_cb (HrSidebar       *sidebar,
                       const HrSetting *setting,
                       double           value,
                       double           height,
                       HrWindow        *self)
{
  _hr_window_begin_edit (self, setting->key);
  if (setting->kind == HR_SETTING_SIZE)
    hr_setting_set_size (setting, self->scenario, (guint) value, (guint) height);
  else
    hr_setting_set (setting, self->scenario, value);
  _hr_window_edited (self);
}

/* ------------------------------------------------------------------ */
/* The model                                                            */

/* "gate_proj, up_proj": the modules of @modules as the Hugging Face
 * checkpoints name them. */
static char *
module_list (guint modules)
{
  GString *list = g_string_new (NULL);

  for (guint i = 0; hr_module_names[i].nick != NULL; i++)
    if (modules & hr_module_names[i].value)
      {
        const char *nick = hr_module_names[i].nick;
        gboolean proj = (hr_module_names[i].value & (HR_MODULES_ATTENTION | HR_MODULES_MLP)) != 0;

        g_string_append_printf (list, "%s%s%s", list->len > 0 ? ", " : "", nick,
                                proj ? "_proj" : "");
      }
  return g_string_free (list, FALSE);
}

/* What a model change could not keep, in one line. */
static char *
describe_resets (const HrModel *model,
                 GArray        *resets)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) unused = g_string_new (NULL);
  g_autoptr(GString) recipe = g_string_new (NULL);
  guint n_unused = 0;

  for (guint i = 0; i < resets->len; i++)
    {
      const HrSettingReset *r = &g_array_index (resets, HrSettingReset, i);
      const char *title = _(r->setting->title);

      switch (r->why)
        {
        case HR_SETTING_RESET_MISSING_MODULES:
          {
            g_autofree char *modules = module_list (r->modules);

            /* Translators: the first %s is a setting ("LoRA targets"),
             * the second a model, the third modules ("o_proj"). */
            g_ptr_array_add (parts, g_strdup_printf (_("%s reset: %s has no %s"), title,
                                                     model->name, modules));
          }
          break;
        case HR_SETTING_RESET_MODEL_RECIPE:
          g_string_append_printf (recipe, "%s%s", recipe->len > 0 ? ", " : "", title);
          break;
        case HR_SETTING_RESET_NOT_APPLICABLE:
        default:
          g_string_append_printf (unused, "%s%s", unused->len > 0 ? ", " : "", title);
          n_unused++;
          break;
        }
    }
  if (n_unused > 0)
    /* Translators: the first %s lists settings, the second is a model. */
    g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                          "%s reset: it does not apply to %s",
                                                          "%s reset: they do not apply to %s",
                                                          n_unused),
                                             unused->str, model->name));
  if (recipe->len > 0)
    /* Translators: %s lists settings ("Method, Precision"). */
    g_ptr_array_add (parts, g_strdup_printf (_("%s set as the new model runs"), recipe->str));
  if (parts->len == 0)
    return NULL;
  g_ptr_array_add (parts, NULL);
  return g_strjoinv ("; ", (char **) parts->pdata);
}

/* A new model keeps the run: every setting that still applies to it stays
 * (the core's settings table decides), and a toast names what was reset.
 * The whole change is one edit, undone at once. */
void
_hr_window_settings_change_model (HrWindow      *self,
                                  const HrModel *model)
{
  g_autoptr(GArray) resets = g_array_new (FALSE, FALSE, sizeof (HrSettingReset));
  g_autofree char *message = NULL;
  HrScenario *s = hr_scenario_change_model (self->scenario, model, resets);

  _hr_window_begin_edit (self, NULL);
  hr_scenario_free (self->scenario);
  self->scenario = s;
  _hr_window_edited (self);

  message = describe_resets (model, resets);
  if (message != NULL)
    {
      AdwToast *toast = adw_toast_new (message);

      adw_toast_set_timeout (toast, 8);
      hr_toasts_add (self->toast_overlay, toast);
    }
}

static void
on_model_chosen_cb (HrSidebar  *sidebar,
                    const char *id,
                    HrWindow   *self)
{
  const HrModel *model = hr_catalog_find_model (self->catalog, id);

  if (model != NULL && g_strcmp0 (id, self->scenario->model->id) != 0)
    _hr_window_settings_change_model (self, model);
}

/* ------------------------------------------------------------------ */
/* The GPUs compared                                                    */

gboolean
_hr_window_gpu_ids_contain (HrWindow   *self,
                            const char *id,
                            guint      *index)
{
  for (guint i = 0; i < self->gpu_ids->len; i++)
    if (g_str_equal (g_ptr_array_index (self->gpu_ids, i), id))
      {
        if (index != NULL)
          *index = i;
        return TRUE;
      }
  return FALSE;
}

void
_hr_window_settings_update_gpu (HrWindow *self)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  const HrGpu *gpu = NULL;

  g_clear_pointer (&self->scenario->gpu, hr_gpu_free);
  self->scenario->gpu_inline = FALSE;
  if (self->gpu_ids->len > 0)
    gpu = hr_catalog_find_gpu (self->catalog, g_ptr_array_index (self->gpu_ids, 0));
  if (gpu != NULL)
    self->scenario->gpu = hr_gpu_copy (gpu);

  for (guint i = 0; i < self->gpu_ids->len; i++)
    g_ptr_array_add (ids, g_ptr_array_index (self->gpu_ids, i));
  g_ptr_array_add (ids, NULL);
  g_settings_set_strv (self->settings, "compare-gpus", (const char * const *) ids->pdata);
}

static void
on_gpu_toggled_cb (HrSidebar  *sidebar,
                   const char *id,
                   gboolean    active,
                   HrWindow   *self)
{
  guint index;

  if (active == _hr_window_gpu_ids_contain (self, id, &index))
    return;
  _hr_window_begin_edit (self, NULL);
  if (active)
    g_ptr_array_add (self->gpu_ids, g_strdup (id));
  else
    g_ptr_array_remove_index (self->gpu_ids, index);

  _hr_window_settings_update_gpu (self);
  _hr_window_edited (self);
}

static void
on_catalog_row_added_cb (HrSidebar    *sidebar,
                         AdwActionRow *row,
                         int           kind,
                         const char   *id,
                         int           origin,
                         HrWindow     *self)
{
  _hr_window_decorate_catalog_row (self, row, (HrUserCatalogKind) kind, id, (HrOrigin) origin);
}

void
_hr_window_settings_init (HrWindow *self)
{
  g_signal_connect_object (self->sidebar, "setting-changed", G_CALLBACK (on_setting_changed_cb),
                           self, 0);
  g_signal_connect_object (self->sidebar, "model-chosen", G_CALLBACK (on_model_chosen_cb), self,
                           0);
  g_signal_connect_object (self->sidebar, "gpu-toggled", G_CALLBACK (on_gpu_toggled_cb), self, 0);
  g_signal_connect_object (self->sidebar, "catalog-row-added",
                           G_CALLBACK (on_catalog_row_added_cb), self, 0);
  hr_sidebar_set_unit (self->sidebar, _hr_window_display_unit (self));
  hr_sidebar_set_catalog (self->sidebar, self->catalog);
}

/* ------------------------------------------------------------------ */
/* Public: the pickers as a user would use them                         */

gboolean
hr_window_select_model (HrWindow   *self,
                        const char *model_id)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  return hr_sidebar_select_model (self->sidebar, model_id);
}

gboolean
hr_window_set_gpu_active (HrWindow   *self,
                          const char *gpu_id,
                          gboolean    active)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);
  return hr_sidebar_set_gpu_active (self->sidebar, gpu_id, active);
}
