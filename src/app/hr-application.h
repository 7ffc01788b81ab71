/* hr-application.h: the Headroom application
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define HR_TYPE_APPLICATION (hr_application_get_type ())
G_DECLARE_FINAL_TYPE (HrApplication, hr_application, HR, APPLICATION, AdwApplication)

HrApplication *hr_application_new        (void);
int            hr_application_get_status (HrApplication *self);
/* What Help opens: the installed README as a file: URI, else the
 * project page. */
char          *hr_application_dup_help_uri (void);

G_END_DECLS
