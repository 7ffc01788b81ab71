/* hr-window.h: the main window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-core.h"
#include "hr-window-type.h"

G_BEGIN_DECLS


HrWindow         *hr_window_new              (GtkApplication *application);

/* Loads a scenario file; on failure the error names the file, line and
 * column, and the window keeps the scenario it had. */
gboolean          hr_window_load_file        (HrWindow       *self,
                                              GFile          *file,
                                              GError        **error);
/* The same, with the error shown in a dialog. */
void              hr_window_open_file        (HrWindow       *self,
                                              GFile          *file);
gboolean          hr_window_save_file        (HrWindow       *self,
                                              GFile          *file,
                                              GError        **error);

/* The model and GPU pickers, as a user would use them. */
gboolean          hr_window_select_model     (HrWindow       *self,
                                              const char     *model_id);
gboolean          hr_window_set_gpu_active   (HrWindow       *self,
                                              const char     *gpu_id,
                                              gboolean        active);
/* Measurements: a file read at once (for the command line and tests), or
 * in a worker thread with errors in a dialog (for the user's clicks). */
gboolean          hr_window_add_measurement_file (HrWindow   *self,
                                                  GFile      *file,
                                                  GError    **error);
void              hr_window_import_measurement (HrWindow     *self,
                                                GFile        *file);
/* Measurements are the scenario's: opening another scenario sets them
 * aside (a toast offers them back); this takes them back. */
void              hr_window_keep_measurements (HrWindow      *self);
/* A scenario opens, a model (a folder, config.json, safetensors, GGUF) goes
 * to the import dialog, anything else is imported as a measurement. */
void              hr_window_open_any         (HrWindow       *self,
                                              GFile          *file);
/* Whether hr_window_open_any() would open @file as a scenario (rather
 * than import it as a model or a measurement). */
gboolean          hr_window_file_is_scenario (GFile          *file);
/* Shows what @file holds as a model and adds it on the user's word; the
 * window then reads the catalog again and selects the model.  A
 * config.json is read with the weights in its folder. */
GtkWindow        *hr_window_import_model     (HrWindow       *self,
                                              GFile          *file);

/* Reads the catalog again after the user's catalog changed, rebuilds the
 * pickers and selects @select_model_id (NULL: keeps the model). */
void              hr_window_reload_catalog   (HrWindow       *self,
                                              const char     *select_model_id);
/* Undo and redo of the scenario's edits (the settings, the model, the
 * GPUs compared); FALSE when there is nothing to undo or redo. */
gboolean          hr_window_undo             (HrWindow       *self);
gboolean          hr_window_redo             (HrWindow       *self);
/* The unsaved state, kept beside the settings for the next start (the
 * window's "recovery", HrRecovery), read back into the window.  Only a
 * window that keeps it (the application's, not a screenshot's or a
 * test's) writes or removes it. */
gboolean          hr_window_restore_recovery (HrWindow       *self,
                                              GError        **error);
void              hr_window_set_keeps_recovery (HrWindow     *self,
                                                gboolean      keeps);
/* The start page (shown on a first start): the examples, the recent
 * scenarios, New and Open.  Opening any scenario shows the results. */
void              hr_window_show_start_page  (HrWindow       *self);

/* Offers the kept unsaved state back, in a bar above the results. */
void              hr_window_offer_recovery   (HrWindow       *self);

/* What the windows did since the last reset, for the benchmark: how often
 * a change was shown, the time spent making the analysis, the time of
 * the whole refresh (the analysis and every row and chart it updates, up
 * to the next frame's layout), and the time of whole edits (from taking
 * the undo state, through updating the settings rows, to the refresh's
 * end). */
typedef struct {
  guint64 refreshes;
  gint64  analysis_us;
  gint64  refresh_us;
  guint64 edits;
  gint64  edit_us;
} HrWindowCounters;

void              hr_window_counters_get     (HrWindowCounters *counters);
void              hr_window_counters_reset   (void);

gboolean          hr_window_screenshot       (HrWindow       *self,
                                              const char     *path,
                                              GError        **error);

G_END_DECLS
