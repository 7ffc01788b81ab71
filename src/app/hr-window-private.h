/* hr-window-private.h: the window's state, shared by its files
 *
 * The window is one class split by concern, as GNOME Text Editor splits
 * its own: hr-window.c (life cycle, files, the refresh),
 * hr-window-actions.c (win.* actions), hr-window-catalog.c (the user's
 * models and GPUs), hr-window-dnd.c (drag and drop), hr-window-fold.c
 * (the sidebar folded in a narrow window), hr-window-history.c (edits
 * through the undo history, HrHistory, and the unsaved state on disk,
 * HrRecovery), hr-window-measurements.c (importing into its
 * HrMeasurements), hr-window-settings.c (what the sidebar, HrSidebar,
 * asks: applied to the scenario) and hr-window-start.c (the start page
 * shown or hidden).  The main area is HrResultsView (hr-results-view.c)
 * and the start page HrStartPage (hr-start-page.c): composite widgets
 * with their own templates, which the window hands its analysis.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-chart-view.h"
#include "hr-format.h"
#include "hr-history.h"
#include "hr-measurements-group.h"
#include "hr-measurements.h"
#include "hr-recovery.h"
#include "hr-results-view.h"
#include "hr-sidebar.h"
#include "hr-start-page.h"
#include "hr-text-row.h"
#include "hr-toasts.h"
#include "hr-window.h"

G_BEGIN_DECLS

/* What to do once unsaved changes are saved or discarded. */
typedef void (*HrWindowThen) (HrWindow *self,
                              gpointer  data);

struct _HrWindow
{
  AdwApplicationWindow  parent_instance;

  HrCatalog            *catalog;
  HrScenario           *scenario;
  GPtrArray            *gpu_ids;       /* char *: the comparison, scenario's GPU first */
  GFile                *file;
  GSettings            *settings;
  HrMeasurements       *measurements;  /* imported for this scenario, and set aside */
  HrAnalysis           *analysis;      /* the scenario's, remade on every change */
  GCancellable         *cancellable;
  guint                 fold_source;   /* the sidebar folds or unfolds (hr-window-fold.c) */

  HrSizeUnit            unit;          /* the display-unit setting, read once */

  /* hr-window-history.c */
  HrHistory            *history;       /* the undo history, and the modified mark */
  HrRecovery           *recovery;      /* the unsaved state, on disk */
  gint64                edit_start;    /* when the edit being made began */
  HrWindowThen          pending_then;  /* after "Save Changes?" */
  gpointer              pending_data;
  GDestroyNotify        pending_destroy;

  /* Template objects, in alphabetical order */
  AdwFlap              *flap;
  GMenu                *examples_menu;
  GtkStack             *main_stack;
  HrMeasurementsGroup  *measurements_group;
  GMenu                *recent_menu;
  GtkLabel             *recovery_label;
  GtkRevealer          *recovery_revealer;
  HrResultsView        *results_view;
  HrSidebar            *sidebar;
  HrStartPage          *start_page;
  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
};

/* hr-window.c */
void        _hr_window_refresh              (HrWindow        *self);
/* An edit's whole time, from its undo state to its refresh, for the
 * window's counters. */
void        _hr_window_count_edit           (HrWindow        *self);
void        _hr_window_show_error           (HrWindow        *self,
                                             const char      *heading,
                                             const char      *body);
HrSizeUnit  _hr_window_display_unit         (HrWindow        *self);
void        _hr_window_save_as              (HrWindow        *self);
/* Back to the built-in example: Llama 3.1 8B with LoRA on an RTX 4090. */
void        _hr_window_load_default         (HrWindow        *self);
/* A toast with an Open button for @file. */
void        _hr_window_show_toast_for_file  (HrWindow        *self,
                                             const char      *message,
                                             GFile           *file);

void        _hr_window_set_scenario         (HrWindow        *self,
                                             HrScenario      *scenario,
                                             GFile           *file);
void        _hr_window_hide_recovery_banner (HrWindow        *self);
void        _hr_window_refresh_title        (HrWindow        *self);

/* hr-window-start.c */
void        _hr_window_start_init           (HrWindow        *self);
void        _hr_window_show_results         (HrWindow        *self);
gboolean    _hr_window_start_page_visible   (HrWindow        *self);

/* hr-window-history.c */
void        _hr_window_history_init         (HrWindow        *self);
void        _hr_window_history_finalize     (HrWindow        *self);
/* Before an edit of the scenario or the comparison; @key names the
 * setting (steps of one setting close together are one edit), or NULL. */
void        _hr_window_begin_edit           (HrWindow        *self,
                                             const char      *key);
/* After it: the refresh and the kept unsaved state. */
void        _hr_window_edited               (HrWindow        *self);
void        _hr_window_mark_saved           (HrWindow        *self);
/* Runs @then now, or once the user has saved or discarded the changes
 * (@body says what would lose them); never when the user cancels. */
void        _hr_window_confirm_discard      (HrWindow        *self,
                                             const char      *body,
                                             HrWindowThen     then,
                                             gpointer         data,
                                             GDestroyNotify   destroy);
/* Save As finished (@saved) or failed: the step that waited on it. */
void        _hr_window_after_save           (HrWindow        *self,
                                             gboolean         saved);

/* hr-window-actions.c */
void        _hr_window_class_actions_init   (GtkWidgetClass  *widget_class);

/* hr-window-catalog.c: the window's own models and GPUs (add, edit,
 * remove) */
/* win.add-model: a file chooser, then the import dialog. */
void       _hr_window_add_model_action   (GtkWidget         *widget,
                                         const char        *action_name,
                                         GVariant          *parameter);
/* win.add-gpu: the GPU editor for a new card. */
void       _hr_window_add_gpu_action     (GtkWidget         *widget,
                                         const char        *action_name,
                                         GVariant          *parameter);

/* A picker row of a catalog entry: a "Custom" badge on the user's entries
 * (with "replaces built-in" on overrides), and on those a button that
 * removes the entry after asking (and for a GPU, one that edits it). */
void       _hr_window_decorate_catalog_row (HrWindow        *self,
                                           AdwActionRow    *row,
                                           HrUserCatalogKind kind,
                                           const char      *id,
                                           HrOrigin         origin);

/* hr-window-fold.c: the sidebar folds below a width */
void        _hr_window_fold_init            (HrWindow        *self);
/* After the window's allocation at @width. */
void        _hr_window_fold_allocated       (HrWindow        *self,
                                             int              width);

/* hr-window-dnd.c */
void        _hr_window_dnd_init             (HrWindow        *self);

/* hr-window-settings.c */
void        _hr_window_settings_init        (HrWindow        *self);
void        _hr_window_settings_change_model (HrWindow       *self,
                                              const HrModel  *model);
/* Puts the comparison's first GPU in the scenario and saves the list. */
void        _hr_window_settings_update_gpu  (HrWindow        *self);
gboolean    _hr_window_gpu_ids_contain      (HrWindow        *self,
                                             const char      *id,
                                             guint           *index);


/* hr-window-measurements.c */
void        _hr_window_measurements_init    (HrWindow        *self);
void        _hr_window_measurements_set_aside (HrWindow      *self);

G_END_DECLS
