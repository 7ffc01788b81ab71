/* hr-window-settings.c: the sidebar (the model and GPU pickers, and the
 * settings rows)
 *
 * The rows come from the core's settings table (hr-setting.h): one row per
 * setting, built once, in the table's order, in its group.  A change of the
 * scenario updates each row in place (its value, and whether it shows: a
 * row shows only where the setting changes this scenario's estimate).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-window"

#include <glib/gi18n.h>
#include <string.h>

#include "hr-window-private.h"

/* ------------------------------------------------------------------ */
/* Settings rows                                                        */

static double
display_scale (const HrSetting *setting)
{
  return setting->display_scale > 0 ? setting->display_scale : 1.0;
}

static HrWindowSettingRow *
find_row_for_widget (HrWindow  *self,
                     GtkWidget *widget)
{
  for (guint i = 0; i < self->setting_rows->len; i++)
    {
      HrWindowSettingRow *r = &g_array_index (self->setting_rows, HrWindowSettingRow, i);

      if (r->row == widget || r->widget == widget || r->widget2 == widget)
        return r;
    }
  return NULL;
}

static void
setting_changed (HrWindow *self)
{
  /* Values that follow from the one changed (the weights dtype, the
   * optimizer) show in their rows, and rows that stop applying hide. */
  _hr_window_settings_sync (self);
  _hr_window_edited (self);
}

static void
on_combo_changed (AdwComboRow *combo,
                  GParamSpec  *pspec,
                  HrWindow    *self)
{
  HrWindowSettingRow *r = find_row_for_widget (self, GTK_WIDGET (combo));
  guint index;

  if (self->updating > 0 || r == NULL)
    return;
  index = adw_combo_row_get_selected (combo);
  if (index == GTK_INVALID_LIST_POSITION || index >= hr_setting_n_choices (r->setting))
    return;
  _hr_window_begin_edit (self, r->setting->key);
  hr_setting_set (r->setting, self->scenario, r->setting->choices[index].value);
  setting_changed (self);
}

static void
on_spin_changed (GtkSpinButton *spin,
                 HrWindow      *self)
{
  HrWindowSettingRow *r = find_row_for_widget (self, GTK_WIDGET (spin));

  if (self->updating > 0 || r == NULL)
    return;
  _hr_window_begin_edit (self, r->setting->key);
  if (r->setting->kind == HR_SETTING_SIZE)
    hr_setting_set_size (r->setting, self->scenario,
                         (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (r->widget)),
                         (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (r->widget2)));
  else
    hr_setting_set (r->setting, self->scenario,
                    gtk_spin_button_get_value (spin) / display_scale (r->setting));
  setting_changed (self);
}

static void
on_switch_changed (GtkSwitch  *sw,
                   GParamSpec *pspec,
                   HrWindow   *self)
{
  HrWindowSettingRow *r = find_row_for_widget (self, GTK_WIDGET (sw));

  if (self->updating > 0 || r == NULL)
    return;
  _hr_window_begin_edit (self, r->setting->key);
  hr_setting_set (r->setting, self->scenario, gtk_switch_get_active (sw) ? 1 : 0);
  setting_changed (self);
}

static GtkWidget *
new_spin (HrWindow        *self,
          const HrSetting *setting,
          const char      *tooltip)
{
  double scale = display_scale (setting);
  GtkWidget *spin = gtk_spin_button_new_with_range (setting->min * scale, setting->max * scale,
                                                    setting->step > 0 ? setting->step : 1);

  gtk_spin_button_set_increments (GTK_SPIN_BUTTON (spin), setting->step > 0 ? setting->step : 1,
                                  setting->page > 0 ? setting->page : 10);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), setting->digits);
  /* Ctrl+Z is the window's undo of the scenario: the field's own undo
   * would empty it (its first text was set, not typed). */
  gtk_editable_set_enable_undo (GTK_EDITABLE (spin), FALSE);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (spin, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  tooltip != NULL ? tooltip : _(setting->title), -1);
  g_signal_connect (spin, "value-changed", G_CALLBACK (on_spin_changed), self);
  return spin;
}

static HrWindowSettingRow
build_row (HrWindow        *self,
           const HrSetting *setting)
{
  HrWindowSettingRow r = { setting, NULL, NULL, NULL };

  if (setting->kind == HR_SETTING_ENUM)
    {
      g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

      r.row = adw_combo_row_new ();
      for (guint i = 0; setting->choices[i].label != NULL; i++)
        gtk_string_list_append (list, _(setting->choices[i].label));
      adw_combo_row_set_model (ADW_COMBO_ROW (r.row), G_LIST_MODEL (list));
      g_signal_connect (r.row, "notify::selected", G_CALLBACK (on_combo_changed), self);
    }
  else
    {
      r.row = adw_action_row_new ();
      if (setting->kind == HR_SETTING_BOOLEAN)
        {
          r.widget = gtk_switch_new ();
          gtk_widget_set_valign (r.widget, GTK_ALIGN_CENTER);
          adw_action_row_set_activatable_widget (ADW_ACTION_ROW (r.row), r.widget);
          g_signal_connect (r.widget, "notify::active", G_CALLBACK (on_switch_changed), self);
        }
      else if (setting->kind == HR_SETTING_SIZE)
        {
          r.widget = new_spin (self, setting, _("Image width"));
          r.widget2 = new_spin (self, setting, _("Image height"));
        }
      else
        r.widget = new_spin (self, setting, NULL);

      if (GTK_IS_SPIN_BUTTON (r.widget))
        {
          /* Enter or Space on a number's row (or a click on it) puts the
           * focus in the number, as AdwSpinRow does. */
          gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (r.row), TRUE);
          g_signal_connect_swapped (r.row, "activated", G_CALLBACK (gtk_widget_grab_focus),
                                    r.widget);
        }
      adw_action_row_add_suffix (ADW_ACTION_ROW (r.row), r.widget);
      if (r.widget2 != NULL)
        adw_action_row_add_suffix (ADW_ACTION_ROW (r.row), r.widget2);
      if (setting->subtitle != NULL)
        adw_action_row_set_subtitle (ADW_ACTION_ROW (r.row), _(setting->subtitle));
    }

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (r.row), _(setting->title));
  /* the scenario key, for tests and for the CSS inspector */
  gtk_widget_set_name (r.row, setting->key);
  return r;
}

static void
build_rows (HrWindow *self)
{
  guint n;
  const HrSetting *all = hr_settings_get_all (&n);

  for (guint i = 0; i < n; i++)
    {
      HrWindowSettingRow r = build_row (self, &all[i]);

      adw_preferences_group_add (all[i].group == HR_SETTING_GROUP_RUN ? self->run_group
                                                                       : self->scale_group,
                                 r.row);
      g_array_append_val (self->setting_rows, r);
    }
}

/* A spin button set to its own value still formats its text again (the
 * drop-downs, switches and visibility leave themselves alone). */
static void
sync_spin (GtkWidget *widget,
           double     value)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (widget);

  if (gtk_spin_button_get_value (spin) != value)
    gtk_spin_button_set_value (spin, value);
}

static void
sync_row (HrWindow                 *self,
          const HrWindowSettingRow *r)
{
  const HrSetting *setting = r->setting;
  const HrScenario *s = self->scenario;

  switch (setting->kind)
    {
    case HR_SETTING_ENUM:
      adw_combo_row_set_selected (ADW_COMBO_ROW (r->row),
                                  hr_setting_choice_index (setting,
                                                           (int) hr_setting_get (setting, s)));
      break;
    case HR_SETTING_UNSIGNED:
    case HR_SETTING_DOUBLE:
      sync_spin (r->widget, hr_setting_get (setting, s) * display_scale (setting));
      break;
    case HR_SETTING_BOOLEAN:
      gtk_switch_set_active (GTK_SWITCH (r->widget), hr_setting_get (setting, s) != 0);
      break;
    case HR_SETTING_SIZE:
      {
        guint width, height;

        hr_setting_get_size (setting, s, &width, &height);
        sync_spin (r->widget, width);
        sync_spin (r->widget2, height);
      }
      break;
    default:
      g_assert_not_reached ();
    }
  gtk_widget_set_visible (r->row, hr_setting_applies (setting, s));
}

/* ------------------------------------------------------------------ */
/* Scenario → widgets                                                   */

static void
select_model_row (HrWindow   *self,
                  const char *id)
{
  GtkListBoxRow *row = g_hash_table_lookup (self->model_rows, id);

  if (row != NULL)
    gtk_list_box_select_row (self->model_list, row);
  else
    gtk_list_box_unselect_all (self->model_list);
}

static void
sync_gpu_checks (HrWindow *self)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->gpu_checks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    gtk_check_button_set_active (value, _hr_window_gpu_ids_contain (self, key, NULL));
}

void
_hr_window_settings_sync (HrWindow *self)
{
  self->updating++;
  select_model_row (self, self->scenario->model->id);
  sync_gpu_checks (self);
  for (guint i = 0; i < self->setting_rows->len; i++)
    sync_row (self, &g_array_index (self->setting_rows, HrWindowSettingRow, i));
  self->updating--;
}

/* ------------------------------------------------------------------ */
/* The model and the GPUs                                               */

/* A new model keeps how the user runs things (task, GPUs, the memory
 * levers) and takes the model's own batch, sizes and method. */
void
_hr_window_settings_change_model (HrWindow      *self,
                                  const HrModel *model)
{
  HrScenario *old;
  HrScenario *s = hr_scenario_new_for_model (model);

  _hr_window_begin_edit (self, NULL);
  old = self->scenario;
  s->task = old->task;
  s->compute = model->has_compute ? model->compute : old->compute;
  s->recompute = old->recompute;
  s->attention = old->attention;
  s->gpus = old->gpus;
  s->sharding = old->sharding;
  s->offload = old->offload;
  s->reserve = old->reserve;
  s->jax_mem_fraction = old->jax_mem_fraction;
  s->gpu = old->gpu != NULL ? hr_gpu_copy (old->gpu) : NULL;
  if (s->task != HR_TASK_INFERENCE && old->method != HR_METHOD_FULL && !model->has_method)
    s->method = old->method;
  hr_scenario_resolve (s);
  hr_scenario_free (old);
  self->scenario = s;
  _hr_window_settings_sync (self);
  _hr_window_edited (self);
}

static void
on_model_selected (GtkListBox    *list,
                   GtkListBoxRow *row,
                   HrWindow      *self)
{
  const char *id;
  const HrModel *model;

  if (self->updating > 0 || row == NULL)
    return;
  id = g_object_get_data (G_OBJECT (row), "hr-id");
  if (g_strcmp0 (id, self->scenario->model->id) == 0)
    return;
  model = hr_catalog_find_model (self->catalog, id);
  if (model != NULL)
    _hr_window_settings_change_model (self, model);
}

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
on_gpu_toggled (GtkCheckButton *check,
                HrWindow       *self)
{
  const char *id = g_object_get_data (G_OBJECT (check), "hr-id");
  gboolean active = gtk_check_button_get_active (check);
  guint index;

  if (self->updating > 0)
    return;

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

static char *
model_info (const HrModel *model)
{
  g_autofree char *params = hr_format_params (model->params);
  guint64 trainable = hr_model_trainable_default (model);

  if (trainable < model->params && model->params > 0)
    return g_strdup_printf (_("%s parameters · %.0f%% trained by default"), params,
                            100.0 * trainable / model->params);
  return g_strdup_printf (_("%s parameters"), params);
}

void
_hr_window_settings_refresh_pickers (HrWindow *self)
{
  g_autoptr(GPtrArray) gpus = _hr_window_compared_gpus (self);
  g_autofree char *info = model_info (self->scenario->model);
  GString *names = g_string_new (NULL);
  g_autofree char *title = NULL;

  hr_label_set_text (self->model_name_label, self->scenario->model->name);
  hr_label_set_text (self->model_info_label, info);

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);

      g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", gpu->name);
    }
  if (gpus->len == 0)
    title = g_strdup (_("No GPU chosen"));
  else
    title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u GPU", "%u GPUs", gpus->len),
                             gpus->len);
  hr_label_set_text (self->gpu_name_label, title);
  hr_label_set_text (self->gpu_info_label, names->len > 0 ? names->str
                                                                  : _("Tick the cards to compare"));
  hr_widget_set_tooltip (GTK_WIDGET (self->gpu_info_label), names->str);
  g_string_free (names, TRUE);
}

/* ------------------------------------------------------------------ */
/* The pickers' lists                                                   */

static char *
casefold_search (GtkSearchEntry *entry)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  return text != NULL && text[0] != '\0' ? g_utf8_casefold (text, -1) : NULL;
}

static gboolean
row_matches (GtkListBoxRow *row,
             gpointer       user_data)
{
  GtkSearchEntry *entry = user_data;
  g_autofree char *needle = casefold_search (entry);
  const char *haystack = g_object_get_data (G_OBJECT (row), "hr-search");
  const guint64 *params = g_object_get_data (G_OBJECT (row), "hr-params");
  g_auto(GStrv) fields = NULL;

  if (needle == NULL)
    return TRUE;
  /* Every word typed matches a field or the size (hr-catalog.h). */
  fields = g_strsplit (haystack != NULL ? haystack : "", "\n", -1);
  return hr_catalog_search_matches (needle, (const char * const *) fields,
                                    params != NULL ? *params : 0);
}

static void
header_func (GtkListBoxRow *row,
             GtkListBoxRow *before,
             gpointer       user_data)
{
  const char *group = g_object_get_data (G_OBJECT (row), "hr-group");
  const char *previous = before != NULL ? g_object_get_data (G_OBJECT (before), "hr-group") : NULL;
  GtkWidget *header;

  if (g_strcmp0 (group, previous) == 0)
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  header = gtk_label_new (group);
  gtk_label_set_xalign (GTK_LABEL (header), 0);
  gtk_widget_add_css_class (header, "heading");
  gtk_widget_add_css_class (header, "picker-header");
  gtk_list_box_row_set_header (row, header);
}

static int
sort_func (GtkListBoxRow *a,
           GtkListBoxRow *b,
           gpointer       user_data)
{
  int ga = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (a), "hr-order"));
  int gb = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (b), "hr-order"));

  return ga - gb;
}

static void
set_row_search (GtkWidget  *row,
                const char *group,
                int         order,
                const char *first,
                ...)
{
  GString *search = g_string_new (NULL);
  const char *part;
  va_list args;

  va_start (args, first);
  for (part = first; part != NULL; part = va_arg (args, const char *))
    {
      g_autofree char *folded = g_utf8_casefold (part, -1);

      g_string_append_printf (search, "%s\n", folded);
    }
  va_end (args);
  g_object_set_data_full (G_OBJECT (row), "hr-search", g_string_free (search, FALSE), g_free);
  g_object_set_data_full (G_OBJECT (row), "hr-group", g_strdup (group), g_free);
  g_object_set_data (G_OBJECT (row), "hr-order", GINT_TO_POINTER (order));
}

static void
fill_model_list (HrWindow *self)
{
  GPtrArray *models = hr_catalog_get_models (self->catalog);

  for (guint i = 0; i < models->len; i++)
    {
      const HrModel *model = g_ptr_array_index (models, i);
      g_autofree char *subtitle = model_info (model);
      GtkWidget *row = adw_action_row_new ();
      const char *family = hr_family_label (model->family);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), model->name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      g_object_set_data_full (G_OBJECT (row), "hr-id", g_strdup (model->id), g_free);
      set_row_search (row, family, hr_family_order (model->family) * 1000 + i,
                      model->name, model->id, family, NULL);
      g_object_set_data_full (G_OBJECT (row), "hr-params",
                              g_memdup2 (&model->params, sizeof model->params), g_free);
      _hr_window_decorate_catalog_row (self, ADW_ACTION_ROW (row), HR_USER_CATALOG_MODELS,
                                      model->id, model->origin);
      gtk_list_box_append (self->model_list, row);
      g_hash_table_insert (self->model_rows, g_strdup (model->id), row);
    }
}

static void
fill_gpu_list (HrWindow *self)
{
  GPtrArray *gpus = hr_catalog_get_gpus (self->catalog);

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);
      g_autofree char *memory = _hr_window_format_bytes (self, (double) gpu->memory);
      g_autofree char *price = hr_format_price (gpu->price_usd);
      g_autofree char *subtitle = NULL;
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();
      const char *tier = hr_tier_label (gpu->tier);

      if (price != NULL && gpu->cloud_usd_per_hour >= 0)
        subtitle = g_strdup_printf (_("%s · %s · $%.2f/h to rent"), memory, price,
                                    gpu->cloud_usd_per_hour);
      else if (price != NULL)
        subtitle = g_strdup_printf ("%s · %s", memory, price);
      else if (gpu->cloud_usd_per_hour >= 0)
        subtitle = g_strdup_printf (_("%s · $%.2f/h to rent"), memory, gpu->cloud_usd_per_hour);
      else
        subtitle = g_strdup (memory);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), gpu->name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      gpu->name, -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      g_object_set_data_full (G_OBJECT (check), "hr-id", g_strdup (gpu->id), g_free);
      g_signal_connect (check, "toggled", G_CALLBACK (on_gpu_toggled), self);
      set_row_search (row, tier, gpu->tier * 1000 + i, gpu->name, gpu->id, tier, NULL);
      _hr_window_decorate_catalog_row (self, ADW_ACTION_ROW (row), HR_USER_CATALOG_GPUS,
                                      gpu->id, gpu->origin);
      gtk_list_box_append (self->gpu_list, row);
      g_hash_table_insert (self->gpu_checks, g_strdup (gpu->id), check);
    }
}

void
_hr_window_settings_fill_pickers (HrWindow *self)
{
  fill_model_list (self);
  fill_gpu_list (self);
}

void
_hr_window_settings_clear_pickers (HrWindow *self)
{
  hr_list_box_clear (self->model_list);
  hr_list_box_clear (self->gpu_list);
  g_hash_table_remove_all (self->model_rows);
  g_hash_table_remove_all (self->gpu_checks);
}

static void
on_search_changed (GtkSearchEntry *entry,
                   GtkListBox     *list)
{
  gtk_list_box_invalidate_filter (list);
}

static void
on_model_activated (GtkListBox    *list,
                    GtkListBoxRow *row,
                    HrWindow      *self)
{
  gtk_popover_popdown (self->model_popover);
}

/* Enter in the search field takes the first model that matches. */
static void
on_model_search_activate (GtkSearchEntry *entry,
                          HrWindow       *self)
{
  for (int i = 0;; i++)
    {
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->model_list, i);

      if (row == NULL)
        return;
      if (gtk_widget_get_child_visible (GTK_WIDGET (row)) && row_matches (row, entry))
        {
          gtk_list_box_select_row (self->model_list, row);
          gtk_popover_popdown (self->model_popover);
          return;
        }
    }
}

static void
on_popover_show (GtkPopover *popover,
                 GtkWidget  *search)
{
  gtk_editable_set_text (GTK_EDITABLE (search), "");
  gtk_widget_grab_focus (search);
}

void
_hr_window_settings_init (HrWindow *self)
{
  self->updating++;
  build_rows (self);

  gtk_list_box_set_filter_func (self->model_list, row_matches, self->model_search, NULL);
  gtk_list_box_set_header_func (self->model_list, header_func, NULL, NULL);
  gtk_list_box_set_sort_func (self->model_list, sort_func, NULL, NULL);
  gtk_list_box_set_filter_func (self->gpu_list, row_matches, self->gpu_search, NULL);
  gtk_list_box_set_header_func (self->gpu_list, header_func, NULL, NULL);
  gtk_list_box_set_sort_func (self->gpu_list, sort_func, NULL, NULL);
  _hr_window_settings_fill_pickers (self);
  g_signal_connect (self->model_list, "row-selected", G_CALLBACK (on_model_selected), self);
  g_signal_connect (self->model_search, "search-changed", G_CALLBACK (on_search_changed),
                    self->model_list);
  g_signal_connect (self->gpu_search, "search-changed", G_CALLBACK (on_search_changed),
                    self->gpu_list);
  g_signal_connect (self->model_list, "row-activated", G_CALLBACK (on_model_activated), self);
  g_signal_connect (self->model_search, "activate", G_CALLBACK (on_model_search_activate), self);
  g_signal_connect (self->model_popover, "show", G_CALLBACK (on_popover_show),
                    self->model_search);
  g_signal_connect (self->gpu_popover, "show", G_CALLBACK (on_popover_show), self->gpu_search);
  self->updating--;
}

/* ------------------------------------------------------------------ */
/* Public: the pickers as a user would use them                         */

gboolean
hr_window_select_model (HrWindow   *self,
                        const char *model_id)
{
  GtkListBoxRow *row = g_hash_table_lookup (self->model_rows, model_id);

  if (row == NULL)
    return FALSE;
  gtk_list_box_select_row (self->model_list, row);
  return TRUE;
}

gboolean
hr_window_set_gpu_active (HrWindow   *self,
                          const char *gpu_id,
                          gboolean    active)
{
  GtkCheckButton *check = g_hash_table_lookup (self->gpu_checks, gpu_id);

  if (check == NULL)
    return FALSE;
  gtk_check_button_set_active (check, active);
  return TRUE;
}

GtkWidget *
hr_window_get_setting_row (HrWindow   *self,
                           const char *key)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), NULL);

  for (guint i = 0; i < self->setting_rows->len; i++)
    {
      HrWindowSettingRow *r = &g_array_index (self->setting_rows, HrWindowSettingRow, i);

      if (g_str_equal (r->setting->key, key))
        return r->row;
    }
  return NULL;
}

GtkWidget *
hr_window_get_setting_widget (HrWindow   *self,
                              const char *key)
{
  g_return_val_if_fail (HR_IS_WINDOW (self), NULL);

  for (guint i = 0; i < self->setting_rows->len; i++)
    {
      HrWindowSettingRow *r = &g_array_index (self->setting_rows, HrWindowSettingRow, i);

      if (g_str_equal (r->setting->key, key))
        return r->widget != NULL ? r->widget : r->row;
    }
  return NULL;
}
