/* main.c: starts Headroom
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <unistd.h>

#include "hr-application.h"

/* `meson devenv -C _build headroom FILE` runs Headroom in the build
 * folder, but FILE (and --screenshot=OUT.png, --measurements=CSV) mean
 * what they mean in the shell it was typed in.  meson marks the
 * environment with MESON_DEVENV and leaves the shell's PWD as it was
 * (mesonbuild/mdevenv.py runs the command with cwd set to the build
 * folder and the caller's environment): back to that folder, then, before
 * anything reads a path. */
static void
return_to_callers_folder (void)
{
  const char *pwd = g_getenv ("PWD");
  g_autofree char *here = g_get_current_dir ();

  if (g_getenv ("MESON_DEVENV") == NULL || pwd == NULL || !g_path_is_absolute (pwd)
      || g_strcmp0 (pwd, here) == 0 || !g_file_test (pwd, G_FILE_TEST_IS_DIR))
    return;
  if (chdir (pwd) != 0)
    g_printerr ("headroom: %s: %s\n", pwd, g_strerror (errno));
}

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

  return_to_callers_folder ();
  app = hr_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : hr_application_get_status (app);
}
