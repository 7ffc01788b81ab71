/* hr-start-page.h: the start page (examples, recent scenarios, New, Open)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define HR_TYPE_START_PAGE (hr_start_page_get_type ())
G_DECLARE_FINAL_TYPE (HrStartPage, hr_start_page, HR, START_PAGE, AdwBin)

GtkWidget  *hr_start_page_new               (void);
/* The same examples and recent scenarios as menus (win.open-file items),
 * for the main menu's Open Example and Open Recent. */
GMenuModel *hr_start_page_get_examples_menu (HrStartPage *self);
GMenuModel *hr_start_page_get_recent_menu   (HrStartPage *self);

/* Where the examples are: HEADROOM_EXAMPLES_DIR, else the installed
 * ones. */
const char *hr_start_page_get_examples_dir  (void);
/* Whether @file lies in a folder of examples (HEADROOM_EXAMPLES_DIR,
 * the installed one, the source tree's): the window opens it as an
 * untitled copy. */
gboolean    hr_start_page_is_example        (GFile       *file);
/* Remembers @file as a scenario Headroom opened or saved. */
void        hr_start_page_add_recent        (GFile       *file);
/* The "name" of the scenario file at @path (else its file name); NULL
 * when it is not a scenario. */
char       *hr_start_page_dup_scenario_name (const char  *path);

G_END_DECLS
