/* main.c: starts Headroom
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "hr-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(HrApplication) app = NULL;
  const char *localedir = g_getenv ("HEADROOM_LOCALEDIR");
  int status;

  /* HEADROOM_LOCALEDIR runs the build tree's translations (`meson devenv`
   * and the tests set it to <build>/po); an installed Headroom reads its
   * own. */
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE,
                  localedir != NULL && localedir[0] != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = hr_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : hr_application_get_status (app);
}
