/* hr-screenshot.h: a drawn widget into a PNG file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Renders a realized widget (a window, a dialog) into a PNG file. */
gboolean hr_widget_screenshot (GtkWidget   *widget,
                               const char  *path,
                               GError     **error);

G_END_DECLS
