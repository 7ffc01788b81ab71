/* hr-window-type.h: the window's type alone
 *
 * For the dialogs that stand over the window and take it as their parent
 * without calling it: they include this, not hr-window.h, so that the
 * window can include their headers without a circle (check-includes.py).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define HR_TYPE_WINDOW (hr_window_get_type ())
G_DECLARE_FINAL_TYPE (HrWindow, hr_window, HR, WINDOW, AdwApplicationWindow)

G_END_DECLS
