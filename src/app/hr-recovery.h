/* hr-recovery.h: the unsaved scenario, kept for the next start
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "hr-core.h"

G_BEGIN_DECLS

/* The unsaved state as the file holds it (hr_recovery_format()), or
 * NULL when there is nothing unsaved to keep. */
typedef char *(*HrRecoveryContentsFunc) (gpointer user_data);

#define HR_TYPE_RECOVERY (hr_recovery_get_type ())
G_DECLARE_FINAL_TYPE (HrRecovery, hr_recovery, HR, RECOVERY, GObject)

/* Where it is kept: $XDG_CONFIG_HOME/headroom/unsaved-scenario.json. */
char             *hr_recovery_get_default_path (void);

/* A keeper of the file at @path that asks @func for its contents when
 * it writes.  It writes and removes nothing until it is enabled. */
HrRecovery       *hr_recovery_new           (const char              *path,
                                             HrRecoveryContentsFunc   func,
                                             gpointer                 user_data);
const char       *hr_recovery_get_path      (HrRecovery              *self);
void              hr_recovery_set_enabled   (HrRecovery              *self,
                                             gboolean                 enabled);
gboolean          hr_recovery_get_enabled   (HrRecovery              *self);
/* Whether the file is there. */
gboolean          hr_recovery_exists        (HrRecovery              *self);
/* Writes the file a second after the last call, in a worker thread. */
void              hr_recovery_schedule      (HrRecovery              *self);
/* Forgets a write scheduled, and keeps the file as it is. */
void              hr_recovery_cancel        (HrRecovery              *self);
/* Writes it now (enabled or not); TRUE when there was nothing to keep. */
gboolean          hr_recovery_write_now     (HrRecovery              *self,
                                             GError                 **error);
/* Forgets a write scheduled and removes the file (when enabled). */
void              hr_recovery_discard       (HrRecovery              *self);

/* The file's contents: @scenario as a scenario file (it opens anywhere),
 * with the file it came from (or none) and the GPUs compared (char *)
 * under "x-headroom-unsaved". */
char             *hr_recovery_format        (const HrScenario        *scenario,
                                             GFile                   *file,
                                             GPtrArray               *gpu_ids);
/* Reads @path back: the scenario, the file it came from (NULL: none)
 * and the GPUs compared that @catalog still has (char *; NULL when the
 * file names none). */
HrScenario       *hr_recovery_read          (const char              *path,
                                             HrCatalog               *catalog,
                                             GFile                  **file,
                                             GPtrArray              **gpu_ids,
                                             GError                 **error);

G_END_DECLS
