/* hr-window-private.h: the window's state, shared by its files
 *
 * The window is one class split by concern, as GNOME Text Editor splits
 * its own: hr-window.c (life cycle, files, the refresh), hr-window-actions.c
 * (win.* actions), hr-window-dnd.c (drag and drop), hr-window-settings.c
 * (the sidebar: pickers and the settings rows), hr-window-results.c (the
 * main area: verdicts, charts, levers, host RAM, notes) and
 * hr-window-measurements.c (imported measurements and calibration).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-format.h"
#include "hr-window.h"

G_BEGIN_DECLS

/* One imported measurement file, and the scenario it was imported for. */
typedef struct {
  HrMeasurement *measurement;
  char          *path;
} HrWindowMeasurement;

/* One settings row, built from the core's settings table. */
typedef struct {
  const HrSetting *setting;
  GtkWidget       *row;      /* AdwComboRow or AdwActionRow */
  GtkWidget       *widget;   /* the spin button or switch (NULL for a drop-down) */
  GtkWidget       *widget2;  /* a size's height spin button */
} HrWindowSettingRow;

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
  GArray               *setting_rows;  /* HrWindowSettingRow, table order */
  GPtrArray            *verdicts;      /* char * */
  GPtrArray            *measurements;  /* HrWindowMeasurement, of this scenario */
  GPtrArray            *set_aside;     /* HrWindowMeasurement, of the scenario before */
  HrAnalysis           *analysis;      /* the scenario's, remade on every change */
  HrKnobSort            lever_sort;
  GCancellable         *cancellable;

  /* Template widgets, in alphabetical order */
  HrChartView          *buckets_view;
  AdwActionRow         *calibrate_row;
  GtkSwitch            *calibrate_switch;
  GtkBox               *charts_box;
  HrChartView          *curve_view;
  AdwFlap              *flap;
  GtkMenuButton        *gpu_button;
  GtkLabel             *gpu_info_label;
  GtkListBox           *gpu_list;
  GtkLabel             *gpu_name_label;
  GtkPopover           *gpu_popover;
  GtkSearchEntry       *gpu_search;
  AdwPreferencesGroup  *host_group;
  GtkListBox           *host_list;
  GtkListBox           *knobs_list;
  GtkToggleButton      *levers_cost_button;
  GtkToggleButton      *levers_saved_button;
  GtkListBox           *measure_list;
  GtkMenuButton        *model_button;
  GtkLabel             *model_info_label;
  GtkListBox           *model_list;
  GtkLabel             *model_name_label;
  GtkPopover           *model_popover;
  GtkSearchEntry       *model_search;
  GtkListBox           *notes_list;
  GtkLabel             *peak_detail_label;
  GtkLabel             *peak_label;
  AdwPreferencesGroup  *run_group;
  AdwPreferencesGroup  *scale_group;
  AdwToastOverlay      *toast_overlay;
  GtkListBox           *verdict_list;
  AdwWindowTitle       *window_title;
};

/* hr-window.c */
void        _hr_window_refresh              (HrWindow        *self);
void        _hr_window_set_modified         (HrWindow        *self,
                                             gboolean         modified);
void        _hr_window_show_error           (HrWindow        *self,
                                             const char      *heading,
                                             const char      *body);
HrUnit      _hr_window_display_unit         (HrWindow        *self);
char       *_hr_window_format_bytes         (HrWindow        *self,
                                             double           bytes);
void        _hr_window_list_box_clear       (GtkListBox      *list);
GtkWidget  *_hr_window_text_row             (const char      *title,
                                             const char      *subtitle,
                                             const char      *suffix);
/* The compared GPUs (const HrGpu *), the scenario's own first. */
GPtrArray  *_hr_window_compared_gpus        (HrWindow        *self);
void        _hr_window_save_as              (HrWindow        *self);

/* hr-window-actions.c */
void        _hr_window_class_actions_init   (GtkWidgetClass  *widget_class);

/* hr-window-dnd.c */
void        _hr_window_dnd_init             (HrWindow        *self);

/* hr-window-settings.c */
void        _hr_window_settings_init        (HrWindow        *self);
void        _hr_window_settings_sync        (HrWindow        *self);
void        _hr_window_settings_refresh_pickers (HrWindow    *self);
void        _hr_window_settings_fill_pickers (HrWindow       *self);
void        _hr_window_settings_clear_pickers (HrWindow      *self);
void        _hr_window_settings_change_model (HrWindow       *self,
                                              const HrModel  *model);
/* Puts the comparison's first GPU in the scenario and saves the list. */
void        _hr_window_settings_update_gpu  (HrWindow        *self);
gboolean    _hr_window_gpu_ids_contain      (HrWindow        *self,
                                             const char      *id,
                                             guint           *index);

/* hr-window-results.c */
void        _hr_window_results_init         (HrWindow        *self);
void        _hr_window_results_refresh      (HrWindow        *self);

/* hr-window-measurements.c */
void        _hr_window_measurements_init    (HrWindow        *self);
void        _hr_window_measurements_refresh (HrWindow        *self);
void        _hr_window_measurements_update_calibration (HrWindow *self);
void        _hr_window_measurement_free     (gpointer         data);
void        _hr_window_import_measurement   (HrWindow        *self,
                                             GFile           *file);
void        _hr_window_measurements_set_aside (HrWindow      *self);

G_END_DECLS
