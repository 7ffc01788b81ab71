/* hr-toasts.h: toasts shown one after the other
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Shows @toast (transfer full, as adw_toast_overlay_add_toast() takes
 * it) on @overlay once the toast shown before it has left. */
void hr_toasts_add (AdwToastOverlay *overlay,
                    AdwToast        *toast);

G_END_DECLS
