/* hr-preferences.h: the Preferences window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

GtkWidget *hr_preferences_new (GtkWindow *parent);

G_END_DECLS
