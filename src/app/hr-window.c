/* hr-window.c: the main window
 *
 * The sidebar describes the run (model, GPUs, settings); the main area
 * shows the estimate for every GPU in the comparison.  Every change goes
 * widget → scenario → estimate → charts in the same main-loop turn: an
 * estimate takes microseconds, so nothing is deferred and the next frame
 * always shows the current scenario.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "hr-advisor-dialog.h"
#include "hr-export-dialog.h"
#include "hr-file-chooser.h"
#include "hr-format.h"
#include "hr-model-import-dialog.h"
#include "hr-window-catalog.h"
#include "hr-window.h"

#define DEFAULT_SCENARIO_RESOURCE "/io/github/vramlab/Headroom/default-scenario.json"
#define MAX_KNOB_ROWS 8

struct _HrWindow
{
  AdwApplicationWindow  parent_instance;

  HrCatalog            *catalog;
  HrScenario           *scenario;
  GPtrArray            *gpu_ids;       /* char *: the comparison, scenario's GPU first */
  GFile                *file;
  gboolean              modified;
  GSettings            *settings;
  guint                 updating;
  GHashTable           *model_rows;    /* id → GtkListBoxRow */
  GHashTable           *gpu_checks;    /* id → GtkCheckButton */
  GPtrArray            *verdicts;      /* char * */
  GPtrArray            *measurements;  /* MeasureSet */
  HrCalibration        *calibration;   /* applied to every GPU; NULL when off */
  GCancellable         *cancellable;

  /* Template */
  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
  AdwFlap              *flap;
  GtkMenuButton        *model_button;
  GtkPopover           *model_popover;
  GtkLabel             *model_name_label;
  GtkLabel             *model_info_label;
  GtkMenuButton        *gpu_button;
  GtkPopover           *gpu_popover;
  GtkLabel             *gpu_name_label;
  GtkLabel             *gpu_info_label;
  GtkSearchEntry       *model_search;
  GtkListBox           *model_list;
  GtkSearchEntry       *gpu_search;
  GtkListBox           *gpu_list;
  AdwComboRow          *task_row;
  AdwComboRow          *method_row;
  AdwActionRow         *lora_rank_row;
  GtkSpinButton        *lora_rank_spin;
  AdwComboRow          *lora_targets_row;
  AdwComboRow          *compute_row;
  AdwComboRow          *weights_row;
  AdwComboRow          *optimizer_row;
  GtkSpinButton        *micro_batch_spin;
  AdwActionRow         *seq_len_row;
  GtkSpinButton        *seq_len_spin;
  AdwActionRow         *image_size_row;
  GtkSpinButton        *image_width_spin;
  GtkSpinButton        *image_height_spin;
  AdwActionRow         *context_len_row;
  GtkSpinButton        *context_len_spin;
  AdwComboRow          *kv_dtype_row;
  AdwComboRow          *recompute_row;
  AdwComboRow          *attention_row;
  AdwComboRow          *loss_row;
  GtkSpinButton        *gpus_spin;
  AdwComboRow          *sharding_row;
  AdwComboRow          *offload_row;
  AdwComboRow          *framework_row;
  AdwActionRow         *preallocate_row;
  GtkSwitch            *preallocate_switch;
  GtkSpinButton        *reserve_spin;
  GtkLabel             *peak_label;
  GtkLabel             *peak_detail_label;
  GtkListBox           *verdict_list;
  GtkBox               *charts_box;
  HrChartView          *buckets_view;
  HrChartView          *curve_view;
  GtkListBox           *knobs_list;
  GtkListBox           *host_list;
  AdwPreferencesGroup  *host_group;
  GtkListBox           *notes_list;
  GtkListBox           *measure_list;
  AdwActionRow         *calibrate_row;
  GtkSwitch            *calibrate_switch;
};

/* One imported measurement file. */
typedef struct {
  HrMeasurement *measurement;
  char          *path;
} MeasureSet;

static void
measure_set_free (gpointer data)
{
  MeasureSet *set = data;

  hr_measurement_free (set->measurement);
  g_free (set->path);
  g_free (set);
}

G_DEFINE_FINAL_TYPE (HrWindow, hr_window, ADW_TYPE_APPLICATION_WINDOW)

static void refresh (HrWindow *self);

static HrUnit
display_unit (HrWindow *self)
{
  return g_settings_get_enum (self->settings, "display-unit") == 1 ? HR_UNIT_GB : HR_UNIT_GIB;
}

static char *
fmt_bytes (HrWindow *self,
           double    bytes)
{
  return hr_format_bytes (bytes, display_unit (self));
}

static void
list_box_clear (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

/* ------------------------------------------------------------------ */
/* Drop-downs                                                           */

static void
combo_fill (AdwComboRow    *row,
            const HrChoice *choices)
{
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

  for (guint i = 0; choices[i].label != NULL; i++)
    gtk_string_list_append (list, _(choices[i].label));
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  g_object_set_data (G_OBJECT (row), "hr-choices", (gpointer) choices);
}

static void
combo_set (AdwComboRow *row,
           int          value)
{
  const HrChoice *choices = g_object_get_data (G_OBJECT (row), "hr-choices");

  adw_combo_row_set_selected (row, hr_choice_index (choices, value));
}

static int
combo_get (AdwComboRow *row)
{
  const HrChoice *choices = g_object_get_data (G_OBJECT (row), "hr-choices");
  guint index = adw_combo_row_get_selected (row);

  if (index == GTK_INVALID_LIST_POSITION)
    index = 0;
  return hr_choice_value (choices, index);
}

/* ------------------------------------------------------------------ */
/* What applies to the model                                            */

static gboolean
model_has_transformer (const HrModel *model)
{
  for (guint i = 0; i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER)
        return TRUE;
    }
  return FALSE;
}

static gboolean
model_reads_seq_len (const HrModel *model)
{
  for (guint i = 0; i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->tokens_from == HR_TOKENS_SEQ_LEN)
        return TRUE;
      if (c->has_activation && c->act_scaling == HR_SCALING_SEQ)
        return TRUE;
    }
  return FALSE;
}

static gboolean
model_reads_image_size (const HrModel *model)
{
  for (guint i = 0; i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->tokens_from == HR_TOKENS_PATCHES)
        return TRUE;
      if (c->has_activation && c->act_scaling == HR_SCALING_PIXELS)
        return TRUE;
    }
  return FALSE;
}

static gboolean
model_has_vocab (const HrModel *model)
{
  for (guint i = 0; i < model->components->len; i++)
    {
      const HrComponent *c = g_ptr_array_index (model->components, i);

      if (c->kind == HR_COMPONENT_TRANSFORMER && c->vocab > 0)
        return TRUE;
    }
  return FALSE;
}

/* Only the settings that change this model's estimate are shown. */
static void
update_visibility (HrWindow *self)
{
  const HrScenario *s = self->scenario;
  gboolean training = s->task != HR_TASK_INFERENCE;
  gboolean transformer = model_has_transformer (s->model);
  gboolean lora = training && (s->method == HR_METHOD_LORA || s->method == HR_METHOD_QLORA);
  gboolean seq = model_reads_seq_len (s->model);

  gtk_widget_set_visible (GTK_WIDGET (self->method_row), training);
  gtk_widget_set_visible (GTK_WIDGET (self->lora_rank_row), lora && transformer);
  gtk_widget_set_visible (GTK_WIDGET (self->lora_targets_row), lora && transformer);
  gtk_widget_set_visible (GTK_WIDGET (self->weights_row),
                          !training || s->method != HR_METHOD_FULL);
  gtk_widget_set_visible (GTK_WIDGET (self->optimizer_row), training);
  gtk_widget_set_visible (GTK_WIDGET (self->seq_len_row), seq);
  gtk_widget_set_visible (GTK_WIDGET (self->image_size_row), model_reads_image_size (s->model));
  gtk_widget_set_visible (GTK_WIDGET (self->context_len_row), !training && seq && transformer);
  gtk_widget_set_visible (GTK_WIDGET (self->kv_dtype_row), !training && seq && transformer);
  gtk_widget_set_visible (GTK_WIDGET (self->recompute_row), training);
  gtk_widget_set_visible (GTK_WIDGET (self->attention_row), transformer);
  gtk_widget_set_visible (GTK_WIDGET (self->loss_row), training && model_has_vocab (s->model));
  gtk_widget_set_visible (GTK_WIDGET (self->sharding_row), training);
  gtk_widget_set_visible (GTK_WIDGET (self->offload_row), training);
  gtk_widget_set_visible (GTK_WIDGET (self->preallocate_row), s->framework == HR_FRAMEWORK_JAX);
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
    {
      gboolean active = FALSE;

      for (guint i = 0; i < self->gpu_ids->len; i++)
        if (g_str_equal (g_ptr_array_index (self->gpu_ids, i), key))
          active = TRUE;
      gtk_check_button_set_active (value, active);
    }
}

static void
sync_widgets (HrWindow *self)
{
  const HrScenario *s = self->scenario;
  guint width, height;

  self->updating++;
  select_model_row (self, s->model->id);
  sync_gpu_checks (self);
  combo_set (self->task_row, s->task);
  combo_set (self->method_row, s->method);
  gtk_spin_button_set_value (self->lora_rank_spin, s->lora_rank);
  combo_set (self->lora_targets_row, s->lora_targets);
  combo_set (self->compute_row, s->compute);
  combo_set (self->weights_row, s->weights_dtype);
  combo_set (self->optimizer_row, s->optimizer);
  gtk_spin_button_set_value (self->micro_batch_spin, s->micro_batch);
  gtk_spin_button_set_value (self->seq_len_spin, hr_scenario_get_seq_len (s));
  hr_scenario_get_image_size (s, &width, &height);
  gtk_spin_button_set_value (self->image_width_spin, width > 0 ? width : 224);
  gtk_spin_button_set_value (self->image_height_spin, height > 0 ? height : 224);
  gtk_spin_button_set_value (self->context_len_spin, hr_scenario_get_context_len (s));
  combo_set (self->kv_dtype_row, s->kv_dtype);
  combo_set (self->recompute_row, s->recompute);
  combo_set (self->attention_row, s->attention);
  combo_set (self->loss_row, s->loss);
  gtk_spin_button_set_value (self->gpus_spin, s->gpus);
  combo_set (self->sharding_row, s->sharding);
  combo_set (self->offload_row, s->offload);
  combo_set (self->framework_row, s->framework);
  gtk_switch_set_active (self->preallocate_switch, s->jax_preallocate);
  gtk_spin_button_set_value (self->reserve_spin, s->reserve * 100.0);
  update_visibility (self);
  self->updating--;
}

/* ------------------------------------------------------------------ */
/* Widgets → scenario                                                   */

static void
set_modified (HrWindow *self,
              gboolean  modified)
{
  self->modified = modified;
  refresh (self);
}

static void
on_combo_changed (AdwComboRow *row,
                  GParamSpec  *pspec,
                  HrWindow    *self)
{
  HrScenario *s = self->scenario;
  int value;

  if (self->updating > 0)
    return;

  value = combo_get (row);
  if (row == self->task_row)
    s->task = value;
  else if (row == self->method_row)
    s->method = value;
  else if (row == self->lora_targets_row)
    {
      s->lora_targets = value;
      s->lora_set = TRUE;
    }
  else if (row == self->compute_row)
    s->compute = value;
  else if (row == self->weights_row)
    {
      s->weights_dtype = value;
      s->weights_dtype_set = TRUE;
    }
  else if (row == self->optimizer_row)
    {
      s->optimizer = value;
      s->optimizer_set = TRUE;
    }
  else if (row == self->kv_dtype_row)
    s->kv_dtype = value;
  else if (row == self->recompute_row)
    s->recompute = value;
  else if (row == self->attention_row)
    s->attention = value;
  else if (row == self->loss_row)
    s->loss = value;
  else if (row == self->sharding_row)
    s->sharding = value;
  else if (row == self->offload_row)
    s->offload = value;
  else if (row == self->framework_row)
    {
      s->framework = value;
      s->framework_set = TRUE;
    }

  /* A choice that makes another one meaningless clears it: an optimizer
   * chosen for training does not carry into inference. */
  if (row == self->task_row && s->task == HR_TASK_INFERENCE)
    s->optimizer_set = FALSE;
  if (row == self->method_row || row == self->compute_row)
    s->weights_dtype_set = FALSE;
  hr_scenario_resolve (s);

  /* The resolved values (weights dtype, optimizer) show in their rows. */
  sync_widgets (self);
  set_modified (self, TRUE);
}

static void
on_spin_changed (GtkSpinButton *spin,
                 HrWindow      *self)
{
  HrScenario *s = self->scenario;
  guint value = (guint) gtk_spin_button_get_value_as_int (spin);

  if (self->updating > 0)
    return;

  if (spin == self->lora_rank_spin)
    {
      s->lora_rank = value;
      s->lora_set = TRUE;
    }
  else if (spin == self->micro_batch_spin)
    s->micro_batch = value;
  else if (spin == self->seq_len_spin)
    {
      s->seq_len = value;
      s->seq_len_set = TRUE;
    }
  else if (spin == self->image_width_spin || spin == self->image_height_spin)
    {
      s->image_width = (guint) gtk_spin_button_get_value_as_int (self->image_width_spin);
      s->image_height = (guint) gtk_spin_button_get_value_as_int (self->image_height_spin);
      s->image_size_set = TRUE;
    }
  else if (spin == self->context_len_spin)
    {
      s->context_len = value;
      s->context_len_set = TRUE;
    }
  else if (spin == self->gpus_spin)
    s->gpus = value;
  else if (spin == self->reserve_spin)
    s->reserve = gtk_spin_button_get_value (spin) / 100.0;

  hr_scenario_resolve (s);
  set_modified (self, TRUE);
}

static void
on_preallocate_changed (GtkSwitch  *sw,
                        GParamSpec *pspec,
                        HrWindow   *self)
{
  if (self->updating > 0)
    return;
  self->scenario->jax_preallocate = gtk_switch_get_active (sw);
  set_modified (self, TRUE);
}

/* A new model keeps how the user runs things (task, GPUs, the memory
 * levers) and takes the model's own batch, sizes and method. */
static void
change_model (HrWindow      *self,
              const HrModel *model)
{
  HrScenario *old = self->scenario;
  HrScenario *s = hr_scenario_new_for_model (model);

  s->task = old->task;
  s->compute = model->has_compute ? model->compute : old->compute;
  s->recompute = old->recompute;
  s->attention = old->attention;
  s->gpus = old->gpus;
  s->sharding = old->sharding;
  s->offload = old->offload;
  s->reserve = old->reserve;
  s->gpu = old->gpu != NULL ? hr_gpu_copy (old->gpu) : NULL;
  if (s->task != HR_TASK_INFERENCE && old->method != HR_METHOD_FULL && !model->has_method)
    s->method = old->method;
  hr_scenario_resolve (s);
  hr_scenario_free (old);
  self->scenario = s;
  sync_widgets (self);
  set_modified (self, TRUE);
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
    change_model (self, model);
}

static void
update_scenario_gpu (HrWindow *self)
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

static gboolean
gpu_ids_contain (HrWindow   *self,
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

static void
on_gpu_toggled (GtkCheckButton *check,
                HrWindow       *self)
{
  const char *id = g_object_get_data (G_OBJECT (check), "hr-id");
  gboolean active = gtk_check_button_get_active (check);
  guint index;

  if (self->updating > 0)
    return;

  if (active && !gpu_ids_contain (self, id, NULL))
    g_ptr_array_add (self->gpu_ids, g_strdup (id));
  else if (!active && gpu_ids_contain (self, id, &index))
    g_ptr_array_remove_index (self->gpu_ids, index);
  else
    return;

  update_scenario_gpu (self);
  set_modified (self, TRUE);
}

/* ------------------------------------------------------------------ */
/* The main area                                                        */

static GtkWidget *
text_row (const char *title,
          const char *subtitle,
          const char *suffix)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
  adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 0);
  if (suffix != NULL)
    {
      GtkWidget *label = gtk_label_new (suffix);

      gtk_widget_add_css_class (label, "numeric");
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
    }
  return row;
}

static GPtrArray *
compared_gpus (HrWindow *self)
{
  GPtrArray *gpus = g_ptr_array_new ();

  for (guint i = 0; i < self->gpu_ids->len; i++)
    {
      const HrGpu *gpu = hr_catalog_find_gpu (self->catalog, g_ptr_array_index (self->gpu_ids, i));

      /* The scenario's own card may be one written inline in the file. */
      if (i == 0 && self->scenario->gpu != NULL)
        gpu = self->scenario->gpu;
      if (gpu != NULL)
        g_ptr_array_add (gpus, (gpointer) gpu);
    }
  return gpus;
}

/* The first lever that makes the run fit on @gpu, in words. */
static char *
best_knob_for (HrWindow    *self,
               const HrGpu *gpu)
{
  g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
  g_autoptr(GPtrArray) knobs = NULL;

  g_clear_pointer (&s->gpu, hr_gpu_free);
  s->gpu = hr_gpu_copy (gpu);
  knobs = hr_knobs_rank (s);
  for (guint i = 0; i < knobs->len; i++)
    {
      const HrKnob *knob = g_ptr_array_index (knobs, i);

      if (knob->has_fit && knob->fits_after)
        return g_strdup_printf (_("%s fixes it (largest micro-batch %u)"), knob->label,
                                knob->max_micro_batch_after);
    }
  return g_strdup (_("no single lever makes it fit: combine several, or add GPUs"));
}

static void
refresh_verdicts (HrWindow  *self,
                  GPtrArray *gpus)
{
  g_autoptr(GPtrArray) fits = NULL;

  list_box_clear (self->verdict_list);
  g_ptr_array_set_size (self->verdicts, 0);

  if (gpus->len == 0)
    {
      GtkWidget *row = text_row (_("No GPU chosen"),
                                 _("Tick one or more GPUs in the sidebar to see whether "
                                   "the run fits."), NULL);
      gtk_list_box_append (self->verdict_list, row);
      g_ptr_array_add (self->verdicts, g_strdup (_("No GPU chosen")));
      return;
    }

  fits = hr_fit_gpus (self->scenario, gpus);
  for (guint i = 0; i < fits->len; i++)
    {
      HrGpuFit *fit = g_ptr_array_index (fits, i);
      g_autofree char *text = NULL;
      GtkWidget *row;
      GtkWidget *icon;

      /* With a calibration, the measured model decides on every card. */
      if (self->calibration != NULL)
        {
          g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
          g_autoptr(HrPlan) plan = NULL;

          g_clear_pointer (&s->gpu, hr_gpu_free);
          s->gpu = hr_gpu_copy (g_ptr_array_index (gpus, i));
          plan = hr_plan_new (s);
          hr_calibration_peak (self->calibration, plan, s->micro_batch, &fit->peak);
          fit->fits = fit->peak.need <= fit->usable;
          fit->max_micro_batch = hr_calibration_max_micro_batch (self->calibration, plan,
                                                                 fit->usable,
                                                                 &fit->max_is_lower_bound);
        }

      if (fit->fits)
        {
          g_autofree char *spare = fmt_bytes (self, (double) fit->usable - fit->peak.need);

          text = g_strdup_printf (_("Fits with %s to spare at micro-batch %u; "
                                    "largest micro-batch %s%u"),
                                  spare, self->scenario->micro_batch,
                                  fit->max_is_lower_bound ? "≥ " : "", fit->max_micro_batch);
        }
      else if (fit->max_micro_batch > 0)
        {
          g_autofree char *over = fmt_bytes (self, (double) fit->peak.need - fit->usable);
          g_autofree char *knob = best_knob_for (self, g_ptr_array_index (gpus, i));

          text = g_strdup_printf (_("Does not fit by %s at micro-batch %u; "
                                    "largest micro-batch %u, or %s"),
                                  over, self->scenario->micro_batch, fit->max_micro_batch, knob);
        }
      else
        {
          g_autofree char *over = fmt_bytes (self, (double) fit->peak.need - fit->usable);
          g_autofree char *knob = best_knob_for (self, g_ptr_array_index (gpus, i));

          text = g_strdup_printf (_("Does not fit by %s, not even at micro-batch 1: %s"),
                                  over, knob);
        }

      row = text_row (fit->gpu_name, text, NULL);
      icon = gtk_image_new_from_icon_name (fit->fits ? "emblem-ok-symbolic"
                                                     : "dialog-warning-symbolic");
      gtk_widget_add_css_class (icon, fit->fits ? "success" : "error");
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      fit->fits ? _("Fits") : _("Does not fit"), -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      gtk_list_box_append (self->verdict_list, row);
      g_ptr_array_add (self->verdicts, g_strdup_printf ("%s: %s", fit->gpu_name, text));
    }
}

/* The calibrated model for the curve: each sample, and the largest
 * micro-batch on each card. */
static void
calibrate_curve (HrWindow         *self,
                 HrCurveChartData *curve,
                 GPtrArray        *gpus)
{
  g_autoptr(HrPlan) plan = hr_plan_new (self->scenario);

  for (guint i = 0; i < curve->samples->len; i++)
    {
      HrCurveSample *sample = &g_array_index (curve->samples, HrCurveSample, i);
      HrPeak peak;

      hr_calibration_peak (self->calibration, plan, (guint) sample->batch, &peak);
      sample->bytes = peak.need;
      sample->low = peak.need_low;
      sample->high = peak.need_high;
    }
  for (guint i = 0; i < curve->gpus->len && i < gpus->len; i++)
    {
      HrCurveGpu *line = g_ptr_array_index (curve->gpus, i);
      g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
      g_autoptr(HrPlan) gpu_plan = NULL;

      g_clear_pointer (&s->gpu, hr_gpu_free);
      s->gpu = hr_gpu_copy (g_ptr_array_index (gpus, i));
      gpu_plan = hr_plan_new (s);
      line->max_micro_batch = hr_calibration_max_micro_batch (self->calibration, gpu_plan,
                                                              (guint64) line->usable,
                                                              &line->max_is_lower_bound);
    }
  {
    char *subtitle = g_strdup_printf (_("%s · calibrated by measurement"),
                                      curve->subtitle != NULL ? curve->subtitle : "");

    g_free (curve->subtitle);
    curve->subtitle = subtitle;
  }
}

static void
refresh_charts (HrWindow  *self,
                GPtrArray *gpus)
{
  HrBucketChartData *buckets;
  HrCurveChartData *curve;
  g_autoptr(GPtrArray) curve_gpus = g_ptr_array_new ();
  guint upper;
  gboolean log2_x;

  if (gpus->len == 0)
    buckets = hr_bucket_chart_data_new_for_scenario (self->scenario);
  else
    {
      g_autoptr(HrBucketChartData) one = hr_bucket_chart_data_new_for_scenario (self->scenario);

      buckets = hr_bucket_chart_data_new ();
      buckets->title = g_strdup (one->title);
      buckets->subtitle = g_strdup (one->subtitle);
      for (guint i = 0; i < gpus->len; i++)
        {
          const HrGpu *gpu = g_ptr_array_index (gpus, i);
          g_autoptr(HrScenario) s = hr_scenario_copy (self->scenario);
          g_autoptr(HrEstimate) est = NULL;

          g_clear_pointer (&s->gpu, hr_gpu_free);
          s->gpu = hr_gpu_copy (gpu);
          est = hr_estimate_new (s);
          if (self->calibration != NULL)
            {
              g_autoptr(HrPlan) plan = hr_plan_new (s);

              hr_calibration_apply_estimate (self->calibration, plan, est);
            }
          hr_bucket_chart_data_add_estimate (buckets, gpu->name, est);
        }
    }
  hr_chart_view_set_buckets (self->buckets_view, buckets);

  for (guint i = 0; i < gpus->len; i++)
    g_ptr_array_add (curve_gpus, g_ptr_array_index (gpus, i));
  if (curve_gpus->len == 0)
    hr_curve_chart_add_reference_gpus (curve_gpus, self->catalog);
  hr_curve_chart_batch_range (self->scenario, curve_gpus, &upper, &log2_x);
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const MeasureSet *set = g_ptr_array_index (self->measurements, i);

      upper = hr_curve_chart_measurement_batch_range (set->measurement, upper);
    }
  curve = hr_curve_chart_data_new_for_scenario (self->scenario, curve_gpus, 1, upper, log2_x);
  if (self->calibration != NULL)
    calibrate_curve (self, curve, curve_gpus);
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const MeasureSet *set = g_ptr_array_index (self->measurements, i);

      hr_curve_chart_data_add_measurement (curve, set->measurement,
                                           self->scenario->micro_batch);
    }
  hr_chart_view_set_curve (self->curve_view, curve);
}

static void
refresh_knobs (HrWindow *self)
{
  g_autoptr(GPtrArray) knobs = hr_knobs_rank (self->scenario);
  guint shown = 0;

  list_box_clear (self->knobs_list);
  for (guint i = 0; i < knobs->len && shown < MAX_KNOB_ROWS; i++)
    {
      const HrKnob *knob = g_ptr_array_index (knobs, i);
      g_autofree char *saved = NULL;
      g_autofree char *suffix = NULL;
      g_autofree char *subtitle = NULL;

      if (knob->saved <= 0)
        continue;
      saved = fmt_bytes (self, (double) knob->saved);
      suffix = g_strdup_printf ("−%s", saved);
      if (knob->has_fit && knob->fits_after)
        subtitle = g_strdup_printf (_("%s · then fits, largest micro-batch %u"), knob->cost,
                                    knob->max_micro_batch_after);
      else
        subtitle = g_strdup (knob->cost);
      gtk_list_box_append (self->knobs_list, text_row (knob->label, subtitle, suffix));
      shown++;
    }
  if (shown == 0)
    gtk_list_box_append (self->knobs_list,
                         text_row (_("Nothing left to save"),
                                   _("Every lever Headroom knows is already in use."), NULL));
}

static void
refresh_host (HrWindow         *self,
              const HrEstimate *est)
{
  g_autofree char *total = fmt_bytes (self, (double) est->host_ram);

  list_box_clear (self->host_list);
  for (guint i = 0; i < est->host_items->len; i++)
    {
      const HrEstimateItem *item = g_ptr_array_index (est->host_items, i);
      g_autofree char *amount = fmt_bytes (self, item->bytes);

      gtk_list_box_append (self->host_list, text_row (item->label, NULL, amount));
    }
  if (est->host_ram == 0)
    adw_preferences_group_set_description (self->host_group,
                                           _("Nothing beyond the operating system and the "
                                             "framework itself"));
  else
    {
      g_autofree char *desc = g_strdup_printf (_("%s of system memory, beyond the operating "
                                                 "system and the framework itself"), total);

      adw_preferences_group_set_description (self->host_group, desc);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->host_list), est->host_items->len > 0);
}

static void
refresh_notes (HrWindow         *self,
               const HrEstimate *est)
{
  list_box_clear (self->notes_list);
  for (guint i = 0; i < est->notes->len; i++)
    {
      GtkWidget *label = gtk_label_new (g_ptr_array_index (est->notes, i));

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_set_margin_top (label, 8);
      gtk_widget_set_margin_bottom (label, 8);
      gtk_widget_set_margin_start (label, 12);
      gtk_widget_set_margin_end (label, 12);
      gtk_list_box_append (self->notes_list, label);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->notes_list), est->notes->len > 0);
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

static void
refresh_pickers (HrWindow *self)
{
  g_autoptr(GPtrArray) gpus = compared_gpus (self);
  g_autofree char *info = model_info (self->scenario->model);
  GString *names = g_string_new (NULL);
  g_autofree char *title = NULL;

  gtk_label_set_text (self->model_name_label, self->scenario->model->name);
  gtk_label_set_text (self->model_info_label, info);

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
  gtk_label_set_text (self->gpu_name_label, title);
  gtk_label_set_text (self->gpu_info_label, names->len > 0 ? names->str
                                                           : _("Tick the cards to compare"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->gpu_info_label), names->str);
  g_string_free (names, TRUE);
}

static void
refresh_title (HrWindow *self)
{
  const char *name = self->scenario->name;
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;

  if (name == NULL || name[0] == '\0')
    name = self->scenario->model->name;
  title = g_strdup_printf ("%s%s", self->modified ? "• " : "", name);
  if (self->file != NULL)
    subtitle = g_file_get_basename (self->file);
  else
    subtitle = g_strdup (_("Not saved"));
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, subtitle);
}

/* The first imported sweep: what a calibration is made from. */
static const HrMeasureSeries *
first_sweep (HrWindow *self)
{
  for (guint i = 0; i < self->measurements->len; i++)
    {
      const MeasureSet *set = g_ptr_array_index (self->measurements, i);
      const HrMeasureSeries *sweep = hr_measurement_get_sweep (set->measurement);

      if (sweep != NULL)
        return sweep;
    }
  return NULL;
}

static void
update_calibration (HrWindow *self)
{
  const HrMeasureSeries *sweep = first_sweep (self);
  g_autoptr(HrPlan) plan = NULL;
  g_autoptr(HrCalibration) calibration = NULL;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->calibration, hr_calibration_free);
  if (sweep == NULL)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row), FALSE);
      adw_action_row_set_subtitle (self->calibrate_row,
                                   _("Needs a measurement at two or more micro-batches"));
      return;
    }

  plan = hr_plan_new (self->scenario);
  calibration = hr_calibration_new (plan, sweep, &error);
  if (calibration == NULL)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row), FALSE);
      adw_action_row_set_subtitle (self->calibrate_row, error->message);
      return;
    }

  gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_row), TRUE);
  {
    g_autofree char *shift = fmt_bytes (self, fabs (calibration->overhead_shift));
    g_autofree char *band = fmt_bytes (self, calibration->band_bytes);
    g_autofree char *subtitle = NULL;

    /* TRANSLATORS: "Activations ×1.12, overhead +0.40 GiB, then ±0.31 GiB:
     * applies to every GPU" */
    subtitle = g_strdup_printf (_("Activations ×%.2f, overhead %s%s, then ±%s: applies to "
                                  "every GPU compared"),
                                calibration->activation_scale,
                                calibration->overhead_shift < 0 ? "−" : "+", shift, band);
    adw_action_row_set_subtitle (self->calibrate_row, subtitle);
  }
  if (gtk_switch_get_active (self->calibrate_switch))
    self->calibration = g_steal_pointer (&calibration);
}

static void
on_remove_measurement (GtkButton *button,
                       HrWindow  *self)
{
  MeasureSet *set = g_object_get_data (G_OBJECT (button), "hr-set");

  g_ptr_array_remove (self->measurements, set);
  refresh (self);
}

static char *
measure_set_summary (HrWindow   *self,
                     MeasureSet *set,
                     HrFit     **fit_out)
{
  const HrMeasureSeries *sweep = hr_measurement_get_sweep (set->measurement);
  g_autoptr(HrFit) fit = NULL;
  g_autoptr(HrPlan) plan = NULL;
  g_autoptr(HrCalibration) calibration = NULL;
  GString *text = g_string_new (NULL);

  if (sweep == NULL)
    {
      /* A log over time: its peak. */
      for (guint i = 0; i < set->measurement->series->len; i++)
        {
          const HrMeasureSeries *series = g_ptr_array_index (set->measurement->series, i);
          g_autofree char *peak = fmt_bytes (self, series->peak);

          if (i > 0)
            g_string_append (text, " · ");
          g_string_append_printf (text, _("%s: peak %s"), series->name, peak);
        }
      return g_string_free (text, FALSE);
    }

  fit = hr_fit_series (sweep, NULL);
  if (fit != NULL)
    {
      g_autofree char *floor_text = fmt_bytes (self, fit->floor);
      g_autofree char *slope = fmt_bytes (self, fit->per_sample);

      g_string_append_printf (text, _("Fit %s + %s per sample, R² %.3f"), floor_text, slope,
                              fit->r2);
    }
  plan = hr_plan_new (self->scenario);
  calibration = hr_calibration_new (plan, sweep, NULL);
  if (calibration != NULL)
    g_string_append_printf (text, _(" · the estimate was off by %.0f%% on average, %.0f%% at "
                                    "most"),
                            100 * calibration->mean_relative_error,
                            100 * calibration->max_relative_error);
  if (sweep->oom_batch > 0)
    g_string_append_printf (text, _(" · out of memory at micro-batch %u"), sweep->oom_batch);
  if (fit_out != NULL)
    *fit_out = g_steal_pointer (&fit);
  return g_string_free (text, FALSE);
}

static void
refresh_measurements (HrWindow *self)
{
  GtkWidget *child = gtk_widget_get_next_sibling (GTK_WIDGET (self->calibrate_row));

  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_list_box_remove (self->measure_list, child);
      child = next;
    }

  for (guint i = 0; i < self->measurements->len; i++)
    {
      MeasureSet *set = g_ptr_array_index (self->measurements, i);
      const HrMeasureSeries *sweep = hr_measurement_get_sweep (set->measurement);
      g_autoptr(HrFit) fit = NULL;
      g_autofree char *summary = measure_set_summary (self, set, &fit);
      g_autofree char *name = g_path_get_basename (set->path);
      g_autoptr(HrPlan) plan = hr_plan_new (self->scenario);
      GtkWidget *row = adw_expander_row_new ();
      GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), summary);
      gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (remove, "flat");
      gtk_widget_set_tooltip_text (remove, _("Remove this measurement"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Remove this measurement"), -1);
      g_object_set_data (G_OBJECT (remove), "hr-set", set);
      g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_measurement), self);
      adw_expander_row_add_action (ADW_EXPANDER_ROW (row), remove);

      /* The points, with the fit's residual and the estimate beside each. */
      for (guint s = 0; s < set->measurement->series->len; s++)
        {
          const HrMeasureSeries *series = g_ptr_array_index (set->measurement->series, s);

          if (series != sweep)
            continue;
          for (guint j = 0; j < series->points->len; j++)
            {
              const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, j);
              g_autofree char *measured = fmt_bytes (self, p->bytes);
              g_autofree char *title = NULL;
              g_autofree char *detail = NULL;
              GString *sub = g_string_new (NULL);
              HrPeak peak;
              double predicted;

              if (isnan (p->batch) || p->batch < 1)
                continue;
              hr_plan_peak (plan, (guint) p->batch, &peak);
              predicted = series->metric == HR_METRIC_ALLOCATED ? peak.allocated
                          : series->metric == HR_METRIC_RESERVED ? peak.reserved
                          : peak.device_used;
              title = g_strdup_printf (_("Micro-batch %.0f: %s measured"), p->batch, measured);
              if (fit != NULL && j < fit->residuals->len
                  && !isnan (g_array_index (fit->residuals, double, j)))
                {
                  double r = g_array_index (fit->residuals, double, j);
                  g_autofree char *res = fmt_bytes (self, fabs (r));

                  g_string_append_printf (sub, _("fit residual %s%s"), r < 0 ? "−" : "+", res);
                }
              {
                g_autofree char *est = fmt_bytes (self, predicted);

                g_string_append_printf (sub, _("%sestimate %s (%+.0f%%)"),
                                        sub->len > 0 ? " · " : "", est,
                                        100.0 * (predicted - p->bytes) / p->bytes);
              }
              detail = g_string_free (sub, FALSE);
              adw_expander_row_add_row (ADW_EXPANDER_ROW (row), text_row (title, detail, NULL));
            }
        }
      for (guint n = 0; n < set->measurement->notes->len; n++)
        adw_expander_row_add_row (ADW_EXPANDER_ROW (row),
                                  text_row (g_ptr_array_index (set->measurement->notes, n), NULL,
                                            NULL));
      gtk_list_box_append (self->measure_list, row);
    }
}

static void
refresh (HrWindow *self)
{
  g_autoptr(GPtrArray) gpus = compared_gpus (self);
  g_autoptr(HrEstimate) est = hr_estimate_new (self->scenario);
  g_autofree char *peak = fmt_bytes (self, (double) est->total);
  g_autofree char *range = hr_format_bytes_range (est->low, est->high, display_unit (self));
  g_autofree char *alloc = fmt_bytes (self, (double) est->allocated_peak);
  g_autofree char *reserved = fmt_bytes (self, (double) est->reserved_peak);
  g_autofree char *params = hr_format_params (est->params);
  g_autofree char *trainable = hr_format_params (est->trainable_params);
  g_autofree char *headline = NULL;
  g_autofree char *detail = NULL;

  update_calibration (self);
  if (self->calibration != NULL)
    {
      g_autoptr(HrPlan) plan = hr_plan_new (self->scenario);

      hr_calibration_apply_estimate (self->calibration, plan, est);
      g_free (peak);
      g_free (range);
      peak = fmt_bytes (self, (double) est->total);
      range = hr_format_bytes_range (est->low, est->high, display_unit (self));
    }

  if (self->calibration != NULL)
    headline = g_strdup_printf (self->scenario->gpus > 1 ? _("%s peak per GPU, calibrated")
                                                         : _("%s peak, calibrated"), peak);
  else
    headline = g_strdup_printf (self->scenario->gpus > 1 ? _("%s peak per GPU") : _("%s peak"),
                                peak);
  detail = g_strdup_printf (_("Likely range %s · allocated %s · reserved %s · "
                              "%s parameters, %s trained"),
                            range, alloc, reserved, params, trainable);
  gtk_label_set_text (self->peak_label, headline);
  gtk_label_set_text (self->peak_detail_label, detail);

  refresh_verdicts (self, gpus);
  refresh_charts (self, gpus);
  refresh_knobs (self);
  refresh_host (self, est);
  refresh_notes (self, est);
  refresh_measurements (self);
  refresh_pickers (self);
  refresh_title (self);
}

/* ------------------------------------------------------------------ */
/* Pickers                                                              */

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

  if (needle == NULL)
    return TRUE;
  return haystack != NULL && strstr (haystack, needle) != NULL;
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
      hr_window_decorate_catalog_row (self, ADW_ACTION_ROW (row), HR_USER_CATALOG_MODELS,
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
      g_autofree char *memory = fmt_bytes (self, (double) gpu->memory);
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
      hr_window_decorate_catalog_row (self, ADW_ACTION_ROW (row), HR_USER_CATALOG_GPUS,
                                      gpu->id, gpu->origin);
      gtk_list_box_append (self->gpu_list, row);
      g_hash_table_insert (self->gpu_checks, g_strdup (gpu->id), check);
    }
}

void
hr_window_reload_catalog (HrWindow   *self,
                          const char *select_model_id)
{
  const HrModel *model;
  const HrGpu *gpu;

  g_return_if_fail (HR_IS_WINDOW (self));

  /* The user's catalog changed: read it again and rebuild the pickers.
   * The scenario keeps its own copies; its GPU takes the new prices. */
  hr_catalog_reload_default ();
  self->updating++;
  list_box_clear (self->model_list);
  list_box_clear (self->gpu_list);
  g_hash_table_remove_all (self->model_rows);
  g_hash_table_remove_all (self->gpu_checks);
  fill_model_list (self);
  fill_gpu_list (self);
  self->updating--;
  if (self->scenario->gpu != NULL && !self->scenario->gpu_inline
      && (gpu = hr_catalog_find_gpu (self->catalog, self->scenario->gpu->id)) != NULL)
    {
      hr_gpu_free (self->scenario->gpu);
      self->scenario->gpu = hr_gpu_copy (gpu);
    }

  model = select_model_id != NULL ? hr_catalog_find_model (self->catalog, select_model_id)
                                  : NULL;
  if (model != NULL && g_strcmp0 (model->id, self->scenario->model->id) == 0)
    change_model (self, model);   /* the same id, imported again */
  else if (model != NULL)
    hr_window_select_model (self, model->id);
  sync_widgets (self);
  refresh (self);
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

/* ------------------------------------------------------------------ */
/* Files                                                                */

static void
set_scenario (HrWindow   *self,
              HrScenario *scenario,
              GFile      *file)
{
  g_auto(GStrv) saved = g_settings_get_strv (self->settings, "compare-gpus");

  hr_scenario_free (self->scenario);
  self->scenario = scenario;
  g_set_object (&self->file, file);

  /* The scenario's own GPU leads the comparison; the rest stays as the
   * user left it. */
  g_ptr_array_set_size (self->gpu_ids, 0);
  if (scenario->gpu != NULL)
    g_ptr_array_add (self->gpu_ids, g_strdup (scenario->gpu->id));
  for (guint i = 0; saved[i] != NULL; i++)
    if (!gpu_ids_contain (self, saved[i], NULL)
        && hr_catalog_find_gpu (self->catalog, saved[i]) != NULL)
      g_ptr_array_add (self->gpu_ids, g_strdup (saved[i]));
  if (scenario->gpu == NULL)
    update_scenario_gpu (self);

  if (file != NULL)
    {
      g_autofree char *path = g_file_get_path (file);

      g_settings_set_string (self->settings, "last-scenario", path != NULL ? path : "");
    }

  sync_widgets (self);
  set_modified (self, FALSE);
}

gboolean
hr_window_load_file (HrWindow *self,
                     GFile    *file,
                     GError  **error)
{
  g_autofree char *path = g_file_get_path (file);
  HrScenario *scenario;

  g_return_val_if_fail (HR_IS_WINDOW (self), FALSE);

  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("%s: only local files can be opened"), uri);
      return FALSE;
    }
  scenario = hr_scenario_load (path, self->catalog, error);
  if (scenario == NULL)
    return FALSE;
  set_scenario (self, scenario, file);
  return TRUE;
}

static void
show_error (HrWindow   *self,
            const char *heading,
            const char *body)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

void
hr_window_open_file (HrWindow *self,
                     GFile    *file)
{
  g_autoptr(GError) error = NULL;

  if (!hr_window_load_file (self, file, &error))
    {
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *heading = g_strdup_printf (_("Could not open “%s”"), name);

      show_error (self, heading, error->message);
    }
}

gboolean
hr_window_save_file (HrWindow *self,
                     GFile    *file,
                     GError  **error)
{
  g_autofree char *path = g_file_get_path (file);

  if (path == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("Only local files can be saved"));
      return FALSE;
    }
  if (!hr_scenario_save (self->scenario, path, error))
    return FALSE;
  g_set_object (&self->file, file);
  g_settings_set_string (self->settings, "last-scenario", path);
  set_modified (self, FALSE);
  return TRUE;
}

void
hr_window_load_default (HrWindow *self)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(GError) error = NULL;
  HrScenario *scenario;

  bytes = g_resources_lookup_data (DEFAULT_SCENARIO_RESOURCE, 0, &error);
  if (bytes != NULL)
    doc = hr_json_doc_load_data (_("Default scenario"), g_bytes_get_data (bytes, NULL),
                                 g_bytes_get_size (bytes), &error);
  scenario = doc != NULL ? hr_scenario_new_from_doc (doc, self->catalog, &error) : NULL;
  if (scenario == NULL)
    {
      /* Only a broken build gets here; the first catalog model still
       * gives the user a working window. */
      GPtrArray *models = hr_catalog_get_models (self->catalog);

      g_critical ("The default scenario does not load: %s", error->message);
      scenario = hr_scenario_new_for_model (g_ptr_array_index (models, 0));
    }
  scenario->reserve = g_settings_get_double (self->settings, "default-reserve");
  set_scenario (self, scenario, NULL);
}

static GtkFileFilter *
json_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Headroom scenarios"));
  gtk_file_filter_add_pattern (filter, "*.json");
  gtk_file_filter_add_mime_type (filter, "application/json");
  return filter;
}

static void
open_chosen (GFile    *file,
             gpointer  user_data)
{
  hr_window_open_file (HR_WINDOW (user_data), file);
}

static void
save_chosen (GFile    *file,
             gpointer  user_data)
{
  HrWindow *self = HR_WINDOW (user_data);
  g_autoptr(GError) error = NULL;

  if (!hr_window_save_file (self, file, &error))
    show_error (self, _("Could not save the scenario"), error->message);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GtkFileFilter) filter = json_filter ();

  hr_file_chooser_open (GTK_WINDOW (self), _("Open a Scenario"), _("_Open"), filter,
                        open_chosen, g_object_ref (self), g_object_unref);
}

static char *
suggested_name (HrWindow *self)
{
  const char *name = self->scenario->name;
  g_autofree char *base = NULL;

  if (name == NULL || name[0] == '\0')
    name = self->scenario->model->id;
  base = g_strdup (name);
  g_strdelimit (base, "/\\:*?\"<>|", '-');
  return g_strconcat (base, ".json", NULL);
}

static void
save_as_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GtkFileFilter) filter = json_filter ();
  g_autofree char *name = suggested_name (self);

  hr_file_chooser_save (GTK_WINDOW (self), _("Save the Scenario"), _("_Save"), name, filter,
                        save_chosen, g_object_ref (self), g_object_unref);
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (self->file == NULL)
    {
      save_as_action (widget, action_name, parameter);
      return;
    }
  if (!hr_window_save_file (self, self->file, &error))
    show_error (self, _("Could not save the scenario"), error->message);
  else
    adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (_("Scenario saved")));
}

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  hr_window_load_default (self);
  g_settings_set_string (self->settings, "last-scenario", "");
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  gboolean report = g_strcmp0 (action_name, "win.export-report") == 0;
  HrExportWhat what = report ? HR_EXPORT_WHAT_REPORT : HR_EXPORT_WHAT_BUCKETS;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  /* The chart the user was looking at (it has the focus) comes first. */
  if (!report && focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->curve_view)))
    what = HR_EXPORT_WHAT_CURVE;
  if (!report && focus == GTK_WIDGET (self->curve_view))
    what = HR_EXPORT_WHAT_CURVE;
  gtk_window_present (GTK_WINDOW (hr_export_dialog_new (self, what)));
}

static void
toggle_sidebar_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, !adw_flap_get_reveal_flap (self->flap));
}

static void
search_models_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, TRUE);
  gtk_menu_button_popup (self->model_button);
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

/* ------------------------------------------------------------------ */
/* Measurements                                                         */

static void
add_measurement (HrWindow      *self,
                 HrMeasurement *measurement,
                 const char    *path,
                 gboolean       toast)
{
  MeasureSet *set = g_new0 (MeasureSet, 1);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *message = g_strdup_printf (_("Imported “%s”"), name);

  set->measurement = measurement;
  set->path = g_strdup (path);
  g_ptr_array_add (self->measurements, set);
  refresh (self);
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

void
hr_window_remove_measurement (HrWindow *self,
                              guint     index)
{
  g_return_if_fail (index < self->measurements->len);
  g_ptr_array_remove_index (self->measurements, index);
  refresh (self);
}

void
hr_window_set_use_calibration (HrWindow *self,
                               gboolean  use)
{
  gtk_switch_set_active (self->calibrate_switch, use);
}

gboolean
hr_window_get_calibrated (HrWindow *self)
{
  return self->calibration != NULL;
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

      show_error (job->self, heading, error->message);
    }
  g_object_unref (job->self);
  g_free (job->path);
  g_free (job);
}

/* In a worker thread: a log of millions of rows never blocks the window. */
static void
import_measurement (HrWindow *self,
                    GFile    *file)
{
  g_autofree char *path = g_file_get_path (file);
  HrMeasureOptions options = { 0 };
  ImportJob *job;

  if (path == NULL)
    {
      show_error (self, _("Could not import"), _("Only local files can be imported"));
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
  import_measurement (self, file);
}

/* A dropped or opened file is a scenario when it says so in its first
 * kilobytes; anything else goes to the measurement importers. */
static gboolean
looks_like_scenario (GFile *file)
{
  g_autoptr(GFileInputStream) stream = g_file_read (file, NULL, NULL);
  char buffer[4096];
  gssize n;

  if (stream == NULL)
    return TRUE;   /* the scenario reader gives the clearer message */
  n = g_input_stream_read (G_INPUT_STREAM (stream), buffer, sizeof buffer - 1, NULL, NULL);
  if (n <= 0)
    return TRUE;
  buffer[n] = '\0';
  return g_strstr_len (buffer, n, "\"headroom_scenario\"") != NULL;
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
    import_measurement (self, file);
}

static void
on_calibrate_changed (GtkSwitch  *sw,
                      GParamSpec *pspec,
                      HrWindow   *self)
{
  refresh (self);
}

static void
import_chosen (GFile    *file,
               gpointer  user_data)
{
  import_measurement (HR_WINDOW (user_data), file);
}

static void
import_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  hr_file_chooser_open (GTK_WINDOW (self), _("Import Measurements"), _("_Import"), NULL,
                        import_chosen, g_object_ref (self), g_object_unref);
}

static gboolean
save_probe_script (GFile   *file,
                   GError **error)
{
  g_autoptr(GBytes) bytes = g_resources_lookup_data ("/io/github/vramlab/Headroom/probe/"
                                                     "headroom_probe_torch.py", 0, error);

  if (bytes == NULL)
    return FALSE;
  /* g_file_replace_contents writes beside and renames: atomic. */
  return g_file_replace_contents (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                  NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, error);
}

static void
probe_save_chosen (GFile    *file,
                   gpointer  user_data)
{
  HrWindow *self = HR_WINDOW (user_data);
  g_autoptr(GError) error = NULL;

  if (!save_probe_script (file, &error))
    show_error (self, _("Could not save the script"), error->message);
  else
    hr_window_show_toast_for_file (self, _("Probe script saved"), file);
}

static void
on_probe_response (AdwMessageDialog *dialog,
                   const char       *response,
                   HrWindow         *self)
{
  if (!g_str_equal (response, "save"))
    return;
  hr_file_chooser_save (GTK_WINDOW (self), _("Save the Probe Script"), _("_Save"),
                        "headroom_probe_torch.py", NULL, probe_save_chosen, g_object_ref (self),
                        g_object_unref);
}

static void
probe_help_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Measure on Your GPU"),
                                   _("Headroom's probe script runs a few real training steps "
                                     "of your model at each micro-batch, records PyTorch's "
                                     "peak allocated and reserved memory and what the device "
                                     "shows, stops cleanly at the first out-of-memory, and "
                                     "writes a CSV that Headroom reads.\n\n"
                                     "Save the script, write a small Python file with build(), "
                                     "make_batch() and optionally loss() for your model, and "
                                     "run:\n\n"
                                     "python3 headroom_probe_torch.py --module my_model.py "
                                     "--batches 1,2,4,8,16 -o run.csv\n\n"
                                     "Then drop run.csv on this window. --demo probes a small "
                                     "built-in transformer; a JAX version is installed beside "
                                     "it."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "close", _("_Close"),
                                    "save", _("_Save Script…"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  g_signal_connect (dialog, "response", G_CALLBACK (on_probe_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------------ */
/* Export                                                               */

gboolean
hr_window_export (HrWindow      *self,
                  HrExportWhat   what,
                  const char    *path,
                  HrExportFormat format,
                  double         width,
                  double         height,
                  double         scale,
                  HrChartTheme   theme,
                  gboolean       transparent,
                  GError       **error)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (theme);
  HrChartView *view;
  HrExportOptions options = { 0 };

  style->transparent = transparent;
  if (what == HR_EXPORT_WHAT_REPORT)
    {
      return hr_chart_report_write (path, self->scenario, self->catalog, style, error);
    }

  view = what == HR_EXPORT_WHAT_CURVE ? self->curve_view : self->buckets_view;
  options.format = format;
  options.width = width;
  options.height = height;
  options.scale = scale;
  options.title = hr_chart_view_get_title (view);
  options.description = hr_chart_view_get_summary (view);
  return hr_chart_export (path, &options, style, hr_chart_view_get_draw_func (view),
                          hr_chart_view_get_data (view), error);
}

static void
open_uri_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  const char *uri = g_variant_get_string (parameter, NULL);
  g_autoptr(GFile) file = g_file_new_for_uri (uri);
#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileLauncher) launcher = gtk_file_launcher_new (file);

  gtk_file_launcher_launch (launcher, GTK_WINDOW (widget), NULL, NULL, NULL);
#else
  gtk_show_uri (GTK_WINDOW (widget), uri, GDK_CURRENT_TIME);
#endif
}

void
hr_window_show_toast_for_file (HrWindow   *self,
                               const char *message,
                               GFile      *file)
{
  AdwToast *toast = adw_toast_new (message);
  g_autofree char *uri = g_file_get_uri (file);

  adw_toast_set_button_label (toast, _("_Open"));
  adw_toast_set_action_name (toast, "win.open-uri");
  adw_toast_set_action_target_value (toast, g_variant_new_string (uri));
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* ------------------------------------------------------------------ */
/* Screenshots                                                          */

gboolean
hr_widget_screenshot (GtkWidget  *widget,
                      const char *path,
                      GError    **error)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL || renderer == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("%s: the window has not been drawn yet"),
                   path);
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (!gdk_texture_save_to_png (texture, path))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("%s: could not write the PNG"), path);
      return FALSE;
    }
  return TRUE;
}

gboolean
hr_window_screenshot (HrWindow   *self,
                      const char *path,
                      GError    **error)
{
  return hr_widget_screenshot (GTK_WIDGET (self), path, error);
}

/* ------------------------------------------------------------------ */
/* Accessors for tests and the application                              */

const HrScenario *
hr_window_get_scenario (HrWindow *self)
{
  return self->scenario;
}

GFile *
hr_window_get_file (HrWindow *self)
{
  return self->file;
}

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

GStrv
hr_window_dup_gpu_ids (HrWindow *self)
{
  GStrvBuilder *builder = g_strv_builder_new ();

  for (guint i = 0; i < self->gpu_ids->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (self->gpu_ids, i));
  return g_strv_builder_end (builder);
}

GStrv
hr_window_dup_verdicts (HrWindow *self)
{
  GStrvBuilder *builder = g_strv_builder_new ();

  for (guint i = 0; i < self->verdicts->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (self->verdicts, i));
  return g_strv_builder_end (builder);
}

HrChartView *
hr_window_get_chart (HrWindow    *self,
                     HrChartKind  kind)
{
  return kind == HR_CHART_KIND_CURVE ? self->curve_view : self->buckets_view;
}

/* ------------------------------------------------------------------ */

static void
on_display_unit_changed (HrWindow *self)
{
  refresh (self);
}

static void
on_width_changed (HrWindow *self)
{
  /* Charts side by side when there is room for both at a readable size:
   * four labelled bars need about 700 pixels. */
  int width = gtk_widget_get_width (GTK_WIDGET (self->charts_box));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->charts_box),
                                  width >= 1500 ? GTK_ORIENTATION_HORIZONTAL
                                                : GTK_ORIENTATION_VERTICAL);
}

static void
hr_window_size_allocate (GtkWidget *widget,
                         int        width,
                         int        height,
                         int        baseline)
{
  GTK_WIDGET_CLASS (hr_window_parent_class)->size_allocate (widget, width, height, baseline);
  on_width_changed (HR_WINDOW (widget));
}

static void
on_close_response (AdwMessageDialog *dialog,
                   const char       *response,
                   HrWindow         *self)
{
  g_autoptr(GError) error = NULL;

  if (g_str_equal (response, "discard"))
    {
      self->modified = FALSE;
      gtk_window_close (GTK_WINDOW (self));
    }
  else if (g_str_equal (response, "save"))
    {
      if (self->file == NULL)
        save_as_action (GTK_WIDGET (self), "win.save-as", NULL);
      else if (!hr_window_save_file (self, self->file, &error))
        show_error (self, _("Could not save the scenario"), error->message);
      else
        gtk_window_close (GTK_WINDOW (self));
    }
}

/* Closing with unsaved changes asks first, as every GNOME editor does. */
static gboolean
hr_window_close_request (GtkWindow *window)
{
  HrWindow *self = HR_WINDOW (window);
  GtkWidget *dialog;

  if (!self->modified)
    return GTK_WINDOW_CLASS (hr_window_parent_class)->close_request (window);

  dialog = adw_message_dialog_new (window, _("Save Changes?"),
                                   _("The scenario has changes that are not saved. "
                                     "Closing without saving loses them."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (on_close_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

static void
hr_window_dispose (GObject *object)
{
  HrWindow *self = HR_WINDOW (object);

  if (self->settings != NULL && gtk_widget_get_realized (GTK_WIDGET (self)))
    {
      int width, height;

      gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
      g_settings_set_boolean (self->settings, "window-maximized",
                              gtk_window_is_maximized (GTK_WINDOW (self)));
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_WINDOW);
  G_OBJECT_CLASS (hr_window_parent_class)->dispose (object);
}

static void
hr_window_finalize (GObject *object)
{
  HrWindow *self = HR_WINDOW (object);

  g_clear_pointer (&self->scenario, hr_scenario_free);
  g_clear_pointer (&self->gpu_ids, g_ptr_array_unref);
  g_clear_pointer (&self->verdicts, g_ptr_array_unref);
  g_clear_pointer (&self->measurements, g_ptr_array_unref);
  g_clear_pointer (&self->calibration, hr_calibration_free);
  g_clear_pointer (&self->model_rows, g_hash_table_unref);
  g_clear_pointer (&self->gpu_checks, g_hash_table_unref);
  g_clear_object (&self->file);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hr_window_parent_class)->finalize (object);
}

static void
advise_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HrWindow *self = HR_WINDOW (widget);

  gtk_window_present (GTK_WINDOW (hr_advisor_dialog_new (self, hr_window_get_scenario (self))));
}

static void
hr_window_class_init (HrWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_window_dispose;
  object_class->finalize = hr_window_finalize;
  widget_class->size_allocate = hr_window_size_allocate;
  GTK_WINDOW_CLASS (klass)->close_request = hr_window_close_request;

  g_type_ensure (HR_TYPE_CHART_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/hr-window.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, HrWindow, name)
  BIND (toast_overlay);
  BIND (window_title);
  BIND (flap);
  BIND (model_button);
  BIND (model_popover);
  BIND (model_name_label);
  BIND (model_info_label);
  BIND (gpu_button);
  BIND (gpu_popover);
  BIND (gpu_name_label);
  BIND (gpu_info_label);
  BIND (model_search);
  BIND (model_list);
  BIND (gpu_search);
  BIND (gpu_list);
  BIND (task_row);
  BIND (method_row);
  BIND (lora_rank_row);
  BIND (lora_rank_spin);
  BIND (lora_targets_row);
  BIND (compute_row);
  BIND (weights_row);
  BIND (optimizer_row);
  BIND (micro_batch_spin);
  BIND (seq_len_row);
  BIND (seq_len_spin);
  BIND (image_size_row);
  BIND (image_width_spin);
  BIND (image_height_spin);
  BIND (context_len_row);
  BIND (context_len_spin);
  BIND (kv_dtype_row);
  BIND (recompute_row);
  BIND (attention_row);
  BIND (loss_row);
  BIND (gpus_spin);
  BIND (sharding_row);
  BIND (offload_row);
  BIND (framework_row);
  BIND (preallocate_row);
  BIND (preallocate_switch);
  BIND (reserve_spin);
  BIND (peak_label);
  BIND (peak_detail_label);
  BIND (verdict_list);
  BIND (charts_box);
  BIND (buckets_view);
  BIND (curve_view);
  BIND (knobs_list);
  BIND (host_list);
  BIND (host_group);
  BIND (notes_list);
  BIND (measure_list);
  BIND (calibrate_row);
  BIND (calibrate_switch);
#undef BIND

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-report", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-sidebar", NULL,
                                   toggle_sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.search-models", NULL,
                                   search_models_action);
  gtk_widget_class_install_action (widget_class, "win.open-uri", "s", open_uri_activated);
  gtk_widget_class_install_action (widget_class, "win.import-measurements", NULL,
                                   import_action);
  gtk_widget_class_install_action (widget_class, "win.probe-help", NULL, probe_help_action);
  gtk_widget_class_install_action (widget_class, "win.advise", NULL, advise_action);
  gtk_widget_class_install_action (widget_class, "win.add-model", NULL,
                                   hr_window_add_model_action);
  gtk_widget_class_install_action (widget_class, "win.add-gpu", NULL, hr_window_add_gpu_action);
}

static void
connect_combo (HrWindow       *self,
               AdwComboRow    *row,
               const HrChoice *choices)
{
  combo_fill (row, choices);
  g_signal_connect (row, "notify::selected", G_CALLBACK (on_combo_changed), self);
}

static void
hr_window_init (HrWindow *self)
{
  GtkSpinButton *spins[8];
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->catalog = hr_catalog_get_default ();
  self->settings = g_settings_new (SCHEMA_ID);
  self->gpu_ids = g_ptr_array_new_with_free_func (g_free);
  self->verdicts = g_ptr_array_new_with_free_func (g_free);
  self->measurements = g_ptr_array_new_with_free_func (measure_set_free);
  self->cancellable = g_cancellable_new ();
  self->model_rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->gpu_checks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  self->updating++;
  connect_combo (self, self->task_row, hr_task_choices);
  connect_combo (self, self->method_row, hr_method_choices);
  connect_combo (self, self->lora_targets_row, hr_lora_targets_choices);
  connect_combo (self, self->compute_row, hr_compute_choices);
  connect_combo (self, self->weights_row, hr_weights_choices);
  connect_combo (self, self->optimizer_row, hr_optimizer_choices);
  connect_combo (self, self->kv_dtype_row, hr_kv_dtype_choices);
  connect_combo (self, self->recompute_row, hr_recompute_choices);
  connect_combo (self, self->attention_row, hr_attention_choices);
  connect_combo (self, self->loss_row, hr_loss_choices);
  connect_combo (self, self->sharding_row, hr_sharding_choices);
  connect_combo (self, self->offload_row, hr_offload_choices);
  connect_combo (self, self->framework_row, hr_framework_choices);

  spins[0] = self->lora_rank_spin;
  spins[1] = self->micro_batch_spin;
  spins[2] = self->seq_len_spin;
  spins[3] = self->image_width_spin;
  spins[4] = self->image_height_spin;
  spins[5] = self->context_len_spin;
  spins[6] = self->gpus_spin;
  spins[7] = self->reserve_spin;
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    g_signal_connect (spins[i], "value-changed", G_CALLBACK (on_spin_changed), self);
  g_signal_connect (self->preallocate_switch, "notify::active",
                    G_CALLBACK (on_preallocate_changed), self);
  g_signal_connect (self->calibrate_switch, "notify::active",
                    G_CALLBACK (on_calibrate_changed), self);

  gtk_list_box_set_filter_func (self->model_list, row_matches, self->model_search, NULL);
  gtk_list_box_set_header_func (self->model_list, header_func, NULL, NULL);
  gtk_list_box_set_sort_func (self->model_list, sort_func, NULL, NULL);
  gtk_list_box_set_filter_func (self->gpu_list, row_matches, self->gpu_search, NULL);
  gtk_list_box_set_header_func (self->gpu_list, header_func, NULL, NULL);
  gtk_list_box_set_sort_func (self->gpu_list, sort_func, NULL, NULL);
  fill_model_list (self);
  fill_gpu_list (self);
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

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect_object (self->settings, "changed::display-unit",
                           G_CALLBACK (on_display_unit_changed), self, G_CONNECT_SWAPPED);

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  hr_window_load_default (self);
}

HrWindow *
hr_window_new (GtkApplication *application)
{
  return g_object_new (HR_TYPE_WINDOW, "application", application, NULL);
}
