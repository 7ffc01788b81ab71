/* hr-sidebar.c: the model and GPU pickers and the settings rows
 *
 * The rows come from the core's settings table (hr-setting.h): one row per
 * setting, built once, in the table's order, in its group.  Each analysis
 * handed down updates every row in place (its value, and whether it shows:
 * a row shows only where the setting changes this scenario's estimate),
 * the pickers' labels and the GPUs ticked.  Data flows down, edits flow
 * up: a row the user changes emits "setting-changed", a model chosen
 * "model-chosen", a card ticked "gpu-toggled"; the window applies them to
 * its scenario, through its undo history, and hands the next analysis
 * down.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-sidebar"

#include <glib/gi18n.h>
#include <string.h>

#include "hr-sidebar.h"
#include "hr-text-row.h"

/* One settings row, built from the core's settings table. */
typedef struct {
  const HrSetting *setting;
  GtkWidget       *row;      /* AdwComboRow or AdwActionRow */
  GtkWidget       *widget;   /* the spin button or switch (NULL for a drop-down) */
  GtkWidget       *widget2;  /* a size's height spin button */
} SettingRow;

struct _HrSidebar
{
  AdwBin               parent_instance;

  HrAnalysis          *analysis;      /* borrowed: the window's, until the next */
  HrCatalog           *catalog;
  HrSizeUnit           unit;
  guint                updating;
  GHashTable          *model_rows;    /* id → GtkListBoxRow */
  GHashTable          *gpu_checks;    /* id → GtkCheckButton */
  GArray              *setting_rows;  /* SettingRow, table order */

  /* The pickers' rows are built after the window's first frame, a few
   * at a time, or at once when a picker opens (see "Filling lazily"). */
  guint                models_filled; /* rows built, in catalog order */
  guint                gpus_filled;
  gboolean             pickers_stale; /* rows still to build */
  gboolean             pickers_built; /* built once: rebuilt at once */
  guint                fill_source;
  GdkFrameClock       *fill_clock;    /* waited on for the first paint */
  gulong               fill_paint_id;
  gulong               fill_map_id;

  /* Template objects, in alphabetical order */
  GtkMenuButton       *gpu_button;
  GtkLabel            *gpu_info_label;
  GtkListBox          *gpu_list;
  GtkLabel            *gpu_name_label;
  GtkPopover          *gpu_popover;
  GtkSearchEntry      *gpu_search;
  GtkMenuButton       *model_button;
  GtkLabel            *model_info_label;
  GtkListBox          *model_list;
  GtkLabel            *model_name_label;
  GtkPopover          *model_popover;
  GtkSearchEntry      *model_search;
  AdwPreferencesGroup *run_group;
  AdwPreferencesGroup *scale_group;
};

enum {
  PROP_0,
  PROP_ANALYSIS,
  N_PROPS
};

enum {
  SETTING_CHANGED,
  MODEL_CHOSEN,
  GPU_TOGGLED,
  CATALOG_ROW_ADDED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HrSidebar, hr_sidebar, ADW_TYPE_BIN)

/* ------------------------------------------------------------------ */
/* Settings rows                                                        */

static double
display_scale (const HrSetting *setting)
{
  return setting->display_scale > 0 ? setting->display_scale : 1.0;
}

static SettingRow *
find_row_for_widget (HrSidebar *self,
                     GtkWidget *widget)
{
  for (guint i = 0; i < self->setting_rows->len; i++)
    {
      SettingRow *r = &g_array_index (self->setting_rows, SettingRow, i);

      if (r->row == widget || r->widget == widget || r->widget2 == widget)
        return r;
    }
  return NULL;
}

/* The window applies the value, and the next analysis shows it (and the
 * values that follow from it, the weights dtype, the optimizer; rows that
 * stop applying hide). */
static void
emit_setting (HrSidebar        *self,
              const SettingRow *r,
              double            value,
              double            height)
{
  g_signal_emit (self, signals[SETTING_CHANGED], 0, r->setting, value, height);
}

static void
on_combo_changed (AdwComboRow *combo,
                  GParamSpec  *pspec,
                  HrSidebar   *self)
{
  SettingRow *r = find_row_for_widget (self, GTK_WIDGET (combo));
  guint index;

  if (self->updating > 0 || r == NULL)
    return;
  index = adw_combo_row_get_selected (combo);
  if (index == GTK_INVALID_LIST_POSITION || index >= hr_setting_n_choices (r->setting))
    return;
  emit_setting (self, r, r->setting->choices[index].value, 0);
}

static void
on_spin_changed (GtkSpinButton *spin,
                 HrSidebar     *self)
{
  SettingRow *r = find_row_for_widget (self, GTK_WIDGET (spin));

  if (self->updating > 0 || r == NULL)
    return;
  if (r->setting->kind == HR_SETTING_SIZE)
    emit_setting (self, r, gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (r->widget)),
                  gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (r->widget2)));
  else
    emit_setting (self, r, gtk_spin_button_get_value (spin) / display_scale (r->setting), 0);
}

static void
on_switch_changed (GtkSwitch  *sw,
                   GParamSpec *pspec,
                   HrSidebar  *self)
{
  SettingRow *r = find_row_for_widget (self, GTK_WIDGET (sw));

  if (self->updating > 0 || r == NULL)
    return;
  emit_setting (self, r, gtk_switch_get_active (sw) ? 1 : 0, 0);
}

static GtkWidget *
new_spin (HrSidebar       *self,
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

static SettingRow
build_row (HrSidebar       *self,
           const HrSetting *setting)
{
  SettingRow r = { setting, NULL, NULL, NULL };

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
build_rows (HrSidebar *self)
{
  guint n;
  const HrSetting *all = hr_settings_get_all (&n);

  for (guint i = 0; i < n; i++)
    {
      SettingRow r = build_row (self, &all[i]);

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
sync_row (HrSidebar                *self,
          const SettingRow *r)
{
  const HrSetting *setting = r->setting;
  const HrScenario *s = hr_analysis_get_scenario (self->analysis);

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
/* The pickers                                                          */

static char *
model_info (const HrModel *model);

/* Whether the analysis compares the card @id. */
static gboolean
compares_gpu (HrSidebar  *self,
              const char *id)
{
  guint n = hr_analysis_get_n_gpus (self->analysis);

  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (hr_analysis_get_gpu (self->analysis, i)->gpu->id, id) == 0)
      return TRUE;
  return FALSE;
}

static void
sync_pickers (HrSidebar *self)
{
  const HrScenario *scenario = hr_analysis_get_scenario (self->analysis);
  GtkListBoxRow *row = g_hash_table_lookup (self->model_rows, scenario->model->id);
  g_autofree char *info = model_info (scenario->model);
  GString *names = g_string_new (NULL);
  g_autofree char *title = NULL;
  guint n = hr_analysis_get_n_gpus (self->analysis);
  GHashTableIter iter;
  gpointer key, value;

  if (row != NULL)
    gtk_list_box_select_row (self->model_list, row);
  else
    gtk_list_box_unselect_all (self->model_list);
  hr_label_set_text (self->model_name_label, scenario->model->name);
  hr_label_set_text (self->model_info_label, info);

  g_hash_table_iter_init (&iter, self->gpu_checks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    gtk_check_button_set_active (value, compares_gpu (self, key));
  for (guint i = 0; i < n; i++)
    g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                            hr_analysis_get_gpu (self->analysis, i)->gpu->name);
  if (n == 0)
    title = g_strdup (_("No GPU chosen"));
  else
    title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u GPU", "%u GPUs", n), n);
  hr_label_set_text (self->gpu_name_label, title);
  hr_label_set_text (self->gpu_info_label, names->len > 0 ? names->str
                                                          : _("Tick the cards to compare"));
  hr_widget_set_tooltip (GTK_WIDGET (self->gpu_info_label), names->str);
  g_string_free (names, TRUE);
}

static void
sync_all (HrSidebar *self)
{
  if (self->analysis == NULL)
    return;
  self->updating++;
  sync_pickers (self);
  for (guint i = 0; i < self->setting_rows->len; i++)
    sync_row (self, &g_array_index (self->setting_rows, SettingRow, i));
  self->updating--;
}

static void
on_model_selected_cb (GtkListBox    *list,
                      GtkListBoxRow *row,
                      HrSidebar     *self)
{
  const char *id;

  if (self->updating > 0 || row == NULL || self->analysis == NULL)
    return;
  id = g_object_get_data (G_OBJECT (row), "hr-id");
  if (g_strcmp0 (id, hr_analysis_get_scenario (self->analysis)->model->id) == 0)
    return;
  g_signal_emit (self, signals[MODEL_CHOSEN], 0, id);
}

static void
on_gpu_toggled_cb (GtkCheckButton *check,
                   HrSidebar      *self)
{
  const char *id = g_object_get_data (G_OBJECT (check), "hr-id");
  gboolean active = gtk_check_button_get_active (check);

  if (self->updating > 0 || self->analysis == NULL || active == compares_gpu (self, id))
    return;
  g_signal_emit (self, signals[GPU_TOGGLED], 0, id, active);
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

/* ------------------------------------------------------------------ */
/* The pickers' lists                                                   */

static char *
casefold_search (GtkSearchEntry *entry)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  return text != NULL && text[0] != '\0' ? g_utf8_casefold (text, -1) : NULL;
}

/* Every word typed matches a field or the size (hr-catalog.h):
 * "qwen 7b" finds "Qwen2.5 7B". */
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

/* "24 GiB · $1,599 · $0.69/h to rent": memory in @unit, and what the
 * card costs as far as the catalog knows. */
static char *
gpu_subtitle (const HrGpu *gpu,
              HrSizeUnit   unit)
{
  g_autofree char *memory = hr_size_format ((double) gpu->memory, unit);
  g_autofree char *price = hr_format_price (gpu->price_usd);

  if (price != NULL && gpu->cloud_usd_per_hour >= 0)
    return g_strdup_printf (_("%s · %s · $%.2f/h to rent"), memory, price,
                            gpu->cloud_usd_per_hour);
  if (price != NULL)
    return g_strdup_printf ("%s · %s", memory, price);
  if (gpu->cloud_usd_per_hour >= 0)
    return g_strdup_printf (_("%s · $%.2f/h to rent"), memory, gpu->cloud_usd_per_hour);
  return g_steal_pointer (&memory);
}

/* Builds up to @budget more model rows; the number built. */
static guint
fill_model_list (HrSidebar *self,
                 guint      budget)
{
  GPtrArray *models = hr_catalog_get_models (self->catalog);
  guint built = 0;

  for (guint i = self->models_filled; i < models->len && built < budget; i++)
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
      g_signal_emit (self, signals[CATALOG_ROW_ADDED], 0, row, HR_USER_CATALOG_MODELS,
                     model->id, model->origin);
      gtk_list_box_append (self->model_list, row);
      g_hash_table_insert (self->model_rows, g_strdup (model->id), row);
      self->models_filled = i + 1;
      built++;
    }
  return built;
}

static guint
fill_gpu_list (HrSidebar *self,
               guint      budget)
{
  GPtrArray *gpus = hr_catalog_get_gpus (self->catalog);
  guint built = 0;

  for (guint i = self->gpus_filled; i < gpus->len && built < budget; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);
      g_autofree char *subtitle = gpu_subtitle (gpu, self->unit);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();
      const char *tier = hr_tier_label (gpu->tier);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), gpu->name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      gpu->name, -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      g_object_set_data_full (G_OBJECT (check), "hr-id", g_strdup (gpu->id), g_free);
      g_signal_connect (check, "toggled", G_CALLBACK (on_gpu_toggled_cb), self);
      set_row_search (row, tier, gpu->tier * 1000 + i, gpu->name, gpu->id, tier, NULL);
      g_signal_emit (self, signals[CATALOG_ROW_ADDED], 0, row, HR_USER_CATALOG_GPUS, gpu->id,
                     gpu->origin);
      gtk_list_box_append (self->gpu_list, row);
      g_hash_table_insert (self->gpu_checks, g_strdup (gpu->id), check);
      self->gpus_filled = i + 1;
      built++;
    }
  return built;
}

/* ------------------------------------------------------------------ */
/* Filling lazily                                                       */

/* A catalog holds a few hundred models and cards, and an AdwActionRow
 * each costs about half a millisecond to build here: all of them took
 * ~184 ms of a ~750 ms start-up (tests/bench/startup.py).  Nobody sees
 * them before a picker opens, so they are built after the window's first
 * frame, FILL_BATCH rows per idle so that the window answers in between,
 * and at once when a picker opens or a caller asks for a row. */
#define FILL_BATCH 24

static void
stop_filling (HrSidebar *self)
{
  g_clear_handle_id (&self->fill_source, g_source_remove);
  if (self->fill_clock != NULL)
    g_clear_signal_handler (&self->fill_paint_id, self->fill_clock);
  g_clear_object (&self->fill_clock);
  if (self->fill_map_id != 0)
    {
      GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

      if (root != NULL)
        g_clear_signal_handler (&self->fill_map_id, root);
      self->fill_map_id = 0;
    }
}

/* Builds up to @budget rows; TRUE once every row is built. */
static gboolean
fill_pickers (HrSidebar *self,
              guint      budget)
{
  guint built;

  if (!self->pickers_stale)
    return TRUE;
  self->updating++;
  built = fill_model_list (self, budget);
  if (built < budget)
    built += fill_gpu_list (self, budget - built);
  self->updating--;
  if (built < budget)
    {
      self->pickers_stale = FALSE;
      self->pickers_built = TRUE;
    }
  /* the rows just built show the model chosen and the cards ticked */
  if (self->analysis != NULL)
    {
      self->updating++;
      sync_pickers (self);
      self->updating--;
    }
  return !self->pickers_stale;
}

static void
ensure_pickers (HrSidebar *self)
{
  if (!self->pickers_stale)
    return;
  stop_filling (self);
  fill_pickers (self, G_MAXUINT);
}

static gboolean
fill_idle_cb (gpointer user_data)
{
  HrSidebar *self = user_data;

  if (fill_pickers (self, FILL_BATCH))
    {
      self->fill_source = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
fill_in_idle (HrSidebar *self)
{
  if (self->fill_source == 0)
    self->fill_source = g_idle_add_full (G_PRIORITY_LOW, fill_idle_cb, self, NULL);
}

static void
on_first_paint_cb (GdkFrameClock *clock,
                   HrSidebar     *self)
{
  g_clear_signal_handler (&self->fill_paint_id, clock);
  g_clear_object (&self->fill_clock);
  fill_in_idle (self);
}

/* Fills once the toplevel has painted a frame. */
static void
fill_after_paint (HrSidebar *self)
{
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (self)));
  GdkFrameClock *clock = root != NULL ? gtk_widget_get_frame_clock (root) : NULL;

  /* no window, or one already painted: nothing to wait for */
  if (clock == NULL || gdk_frame_clock_get_frame_counter (clock) > 0)
    {
      fill_in_idle (self);
      return;
    }
  self->fill_clock = g_object_ref (clock);
  self->fill_paint_id = g_signal_connect_object (clock, "after-paint",
                                                 G_CALLBACK (on_first_paint_cb), self, 0);
}

static void
on_root_map_cb (GtkWidget *root,
                HrSidebar *self)
{
  g_clear_signal_handler (&self->fill_map_id, root);
  fill_after_paint (self);
}

static gboolean
schedule_idle_cb (gpointer user_data)
{
  HrSidebar *self = user_data;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  self->fill_source = 0;
  if (root != NULL && !gtk_widget_get_mapped (GTK_WIDGET (root)))
    self->fill_map_id = g_signal_connect_object (root, "map", G_CALLBACK (on_root_map_cb),
                                                 self, 0);
  else
    fill_after_paint (self);
  return G_SOURCE_REMOVE;
}

static void
rebuild_pickers (HrSidebar *self)
{
  stop_filling (self);
  self->updating++;
  hr_list_box_clear (self->model_list);
  hr_list_box_clear (self->gpu_list);
  g_hash_table_remove_all (self->model_rows);
  g_hash_table_remove_all (self->gpu_checks);
  self->updating--;
  self->models_filled = 0;
  self->gpus_filled = 0;
  self->pickers_stale = self->catalog != NULL;
  /* A catalog changed under a window already shown (an entry added or
   * edited) is rebuilt at once, as the user looks for the entry; at
   * start-up the window shows first. */
  if (self->pickers_built)
    ensure_pickers (self);
  else if (self->pickers_stale)
    self->fill_source = g_idle_add (schedule_idle_cb, self);
  sync_all (self);
}

static void
on_search_changed_cb (GtkSearchEntry *entry,
                   GtkListBox     *list)
{
  gtk_list_box_invalidate_filter (list);
}

static void
on_model_activated_cb (GtkListBox    *list,
                    GtkListBoxRow *row,
                    HrSidebar     *self)
{
  gtk_popover_popdown (self->model_popover);
}

/* Enter in the search field takes the first model that matches. */
static void
on_model_search_activate_cb (GtkSearchEntry *entry,
                          HrSidebar      *self)
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
on_popover_show_cb (GtkPopover *popover,
                 GtkWidget  *search)
{
  gtk_editable_set_text (GTK_EDITABLE (search), "");
  gtk_widget_grab_focus (search);
}

/* ------------------------------------------------------------------ */
/* Public                                                               */

void
hr_sidebar_set_analysis (HrSidebar  *self,
                         HrAnalysis *analysis)
{
  g_return_if_fail (HR_IS_SIDEBAR (self));

  /* Every analysis is new (the window makes one per change): always
   * shown, always notified. */
  self->analysis = analysis;
  sync_all (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
}

HrAnalysis *
hr_sidebar_get_analysis (HrSidebar *self)
{
  g_return_val_if_fail (HR_IS_SIDEBAR (self), NULL);
  return self->analysis;
}

void
hr_sidebar_set_catalog (HrSidebar *self,
                        HrCatalog *catalog)
{
  g_return_if_fail (HR_IS_SIDEBAR (self));

  self->catalog = catalog;
  rebuild_pickers (self);
}

void
hr_sidebar_set_unit (HrSidebar *self,
                     HrSizeUnit unit)
{
  GPtrArray *gpus;

  g_return_if_fail (HR_IS_SIDEBAR (self));

  if (self->unit == unit)
    return;
  self->unit = unit;
  /* only the cards' memory changes: the rows built show it in place, the
   * rest are built with it */
  if (self->catalog == NULL)
    return;
  gpus = hr_catalog_get_gpus (self->catalog);
  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);
      GtkWidget *check = g_hash_table_lookup (self->gpu_checks, gpu->id);
      GtkWidget *row = check != NULL ? gtk_widget_get_ancestor (check, ADW_TYPE_ACTION_ROW)
                                     : NULL;
      g_autofree char *subtitle = NULL;

      if (row == NULL)
        continue;
      subtitle = gpu_subtitle (gpu, unit);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
    }
}

void
hr_sidebar_popup_model_picker (HrSidebar *self)
{
  g_return_if_fail (HR_IS_SIDEBAR (self));
  gtk_menu_button_popup (self->model_button);
}

GtkWidget *
hr_sidebar_get_model_button (HrSidebar *self)
{
  g_return_val_if_fail (HR_IS_SIDEBAR (self), NULL);
  return GTK_WIDGET (self->model_button);
}

gboolean
hr_sidebar_select_model (HrSidebar  *self,
                         const char *model_id)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (HR_IS_SIDEBAR (self), FALSE);

  ensure_pickers (self);
  row = g_hash_table_lookup (self->model_rows, model_id);
  if (row == NULL)
    return FALSE;
  gtk_list_box_select_row (self->model_list, row);
  return TRUE;
}

gboolean
hr_sidebar_set_gpu_active (HrSidebar  *self,
                           const char *gpu_id,
                           gboolean    active)
{
  GtkCheckButton *check;

  g_return_val_if_fail (HR_IS_SIDEBAR (self), FALSE);

  ensure_pickers (self);
  check = g_hash_table_lookup (self->gpu_checks, gpu_id);
  if (check == NULL)
    return FALSE;
  gtk_check_button_set_active (check, active);
  return TRUE;
}

static const SettingRow *
find_row_for_key (HrSidebar  *self,
                  const char *key)
{
  for (guint i = 0; i < self->setting_rows->len; i++)
    {
      const SettingRow *r = &g_array_index (self->setting_rows, SettingRow, i);

      if (g_str_equal (r->setting->key, key))
        return r;
    }
  return NULL;
}

GtkWidget *
hr_sidebar_get_setting_row (HrSidebar  *self,
                            const char *key)
{
  const SettingRow *r;

  g_return_val_if_fail (HR_IS_SIDEBAR (self), NULL);

  r = find_row_for_key (self, key);
  return r != NULL ? r->row : NULL;
}

GtkWidget *
hr_sidebar_get_setting_widget (HrSidebar  *self,
                               const char *key)
{
  const SettingRow *r;

  g_return_val_if_fail (HR_IS_SIDEBAR (self), NULL);

  r = find_row_for_key (self, key);
  if (r == NULL)
    return NULL;
  return r->widget != NULL ? r->widget : r->row;
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                           */

static void
hr_sidebar_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  HrSidebar *self = HR_SIDEBAR (object);

  switch (prop_id)
    {
    case PROP_ANALYSIS:
      g_value_set_pointer (value, self->analysis);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_sidebar_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  HrSidebar *self = HR_SIDEBAR (object);

  switch (prop_id)
    {
    case PROP_ANALYSIS:
      hr_sidebar_set_analysis (self, g_value_get_pointer (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_sidebar_dispose (GObject *object)
{
  HrSidebar *self = HR_SIDEBAR (object);

  self->analysis = NULL;
  stop_filling (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_SIDEBAR);
  G_OBJECT_CLASS (hr_sidebar_parent_class)->dispose (object);
}

static void
hr_sidebar_finalize (GObject *object)
{
  HrSidebar *self = HR_SIDEBAR (object);

  g_clear_pointer (&self->setting_rows, g_array_unref);
  g_clear_pointer (&self->model_rows, g_hash_table_unref);
  g_clear_pointer (&self->gpu_checks, g_hash_table_unref);
  G_OBJECT_CLASS (hr_sidebar_parent_class)->finalize (object);
}

static void
hr_sidebar_class_init (HrSidebarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = hr_sidebar_get_property;
  object_class->set_property = hr_sidebar_set_property;
  object_class->dispose = hr_sidebar_dispose;
  object_class->finalize = hr_sidebar_finalize;

  /* An HrAnalysis, borrowed: the one the window shows. */
  properties[PROP_ANALYSIS] =
    g_param_spec_pointer ("analysis", NULL, NULL,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SETTING_CHANGED] = g_signal_new ("setting-changed", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 3, G_TYPE_POINTER, G_TYPE_DOUBLE,
                                           G_TYPE_DOUBLE);
  signals[MODEL_CHOSEN] = g_signal_new ("model-chosen", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[GPU_TOGGLED] = g_signal_new ("gpu-toggled", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  signals[CATALOG_ROW_ADDED] = g_signal_new ("catalog-row-added", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 4, ADW_TYPE_ACTION_ROW, G_TYPE_INT,
                                             G_TYPE_STRING, G_TYPE_INT);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/hr-sidebar.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, HrSidebar, name)
  BIND (gpu_button);
  BIND (gpu_info_label);
  BIND (gpu_list);
  BIND (gpu_name_label);
  BIND (gpu_popover);
  BIND (gpu_search);
  BIND (model_button);
  BIND (model_info_label);
  BIND (model_list);
  BIND (model_name_label);
  BIND (model_popover);
  BIND (model_search);
  BIND (run_group);
  BIND (scale_group);
#undef BIND
}

static void
hr_sidebar_init (HrSidebar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->unit = HR_SIZE_GIB;
  self->setting_rows = g_array_new (FALSE, TRUE, sizeof (SettingRow));
  self->model_rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->gpu_checks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  self->updating++;
  build_rows (self);
  gtk_list_box_set_filter_func (self->model_list, row_matches, self->model_search, NULL);
  gtk_list_box_set_header_func (self->model_list, header_func, NULL, NULL);
  gtk_list_box_set_sort_func (self->model_list, sort_func, NULL, NULL);
  gtk_list_box_set_filter_func (self->gpu_list, row_matches, self->gpu_search, NULL);
  gtk_list_box_set_header_func (self->gpu_list, header_func, NULL, NULL);
  gtk_list_box_set_sort_func (self->gpu_list, sort_func, NULL, NULL);
  g_signal_connect (self->model_list, "row-selected", G_CALLBACK (on_model_selected_cb), self);
  g_signal_connect (self->model_search, "search-changed", G_CALLBACK (on_search_changed_cb),
                    self->model_list);
  g_signal_connect (self->gpu_search, "search-changed", G_CALLBACK (on_search_changed_cb),
                    self->gpu_list);
  g_signal_connect (self->model_list, "row-activated", G_CALLBACK (on_model_activated_cb), self);
  g_signal_connect (self->model_search, "activate", G_CALLBACK (on_model_search_activate_cb),
                    self);
  g_signal_connect_swapped (self->model_popover, "show", G_CALLBACK (ensure_pickers), self);
  g_signal_connect_swapped (self->gpu_popover, "show", G_CALLBACK (ensure_pickers), self);
  g_signal_connect (self->model_popover, "show", G_CALLBACK (on_popover_show_cb),
                    self->model_search);
  g_signal_connect (self->gpu_popover, "show", G_CALLBACK (on_popover_show_cb), self->gpu_search);
  self->updating--;
}

