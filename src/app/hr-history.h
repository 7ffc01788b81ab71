/* hr-history.h: the undo and redo of a scenario's edits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "hr-core.h"

G_BEGIN_DECLS

/* What an edit changes, and undo gives back: the scenario and the GPUs
 * compared (ids, the scenario's own first). */
typedef struct {
  HrScenario *scenario;
  GStrv       gpu_ids;
} HrHistoryState;

void              hr_history_state_free    (HrHistoryState   *state);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrHistoryState, hr_history_state_free)

#define HR_TYPE_HISTORY (hr_history_get_type ())
G_DECLARE_FINAL_TYPE (HrHistory, hr_history, HR, HISTORY, GObject)

HrHistory        *hr_history_new           (void);

/* A scenario was opened or started: no edits to undo or redo, and what
 * is shown is what was saved. */
void              hr_history_reset         (HrHistory        *self);
/* Before an edit: keeps a copy of @scenario and @gpu_ids (char *), the
 * state the edit changes.  @key names the setting edited, or NULL: steps
 * of one setting close together, with no save between, are one edit
 * (the state before the first is the one undo returns to). */
void              hr_history_begin_edit    (HrHistory        *self,
                                            const char       *key,
                                            const HrScenario *scenario,
                                            GPtrArray        *gpu_ids);
/* One edit back (or forward again): keeps the state shown, @scenario and
 * @gpu_ids, for the way back, and returns the state to show; NULL when
 * there is nothing to undo (or redo). */
HrHistoryState   *hr_history_undo          (HrHistory        *self,
                                            const HrScenario *scenario,
                                            GPtrArray        *gpu_ids);
HrHistoryState   *hr_history_redo          (HrHistory        *self,
                                            const HrScenario *scenario,
                                            GPtrArray        *gpu_ids);
/* What is shown was saved, or is unsaved work whatever the history
 * says (a state kept after a crash and restored). */
void              hr_history_mark_saved    (HrHistory        *self);
void              hr_history_mark_unsaved  (HrHistory        *self);

gboolean          hr_history_get_can_undo  (HrHistory        *self);
gboolean          hr_history_get_can_redo  (HrHistory        *self);
/* Whether the state shown differs from the one last saved or opened:
 * undoing back to it clears the mark. */
gboolean          hr_history_get_modified  (HrHistory        *self);

G_END_DECLS
