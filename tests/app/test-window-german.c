/* test-window-german.c: the window in German
 *
 * Runs with LANGUAGE=de, LC_ALL=de_DE.UTF-8 and the build tree's
 * translations: the window's own strings, the core's and the numbers on
 * screen follow the locale.  Skips only when the system has no de_DE
 * locale (CI generates it); without a display it fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <locale.h>

#include "hr-results-view.h"
#include "hr-app-test.h"
#include "hr-window.h"

static void
test_german (void)
{
  HrWindow *window = hr_window_new (NULL);
  GtkWidget *results = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_RESULTS_VIEW);
  GObject *group = gtk_widget_get_template_child (results, HR_TYPE_RESULTS_VIEW, "host_group");
  GObject *peak = gtk_widget_get_template_child (results, HR_TYPE_RESULTS_VIEW, "peak_label");
  g_auto(GStrv) verdicts = hr_results_view_dup_verdicts (HR_RESULTS_VIEW (results));
  const char *text = gtk_label_get_text (GTK_LABEL (peak));

  /* From the .ui template, from the window's C code, and from the core. */
  g_assert_cmpstr (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group)), ==,
                   "Host-RAM");
  g_assert_cmpuint (g_strv_length (verdicts), >, 0);
  g_assert_nonnull (strstr (verdicts[0], ": Passt "));
  g_assert_nonnull (strstr (text, "Spitzenbedarf"));
  /* "25,8 GiB": the decimal comma of the locale. */
  g_assert_nonnull (strchr (text, ','));
  g_assert_null (strchr (text, '.'));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  const char *localedir = g_getenv ("HEADROOM_LOCALEDIR");

  g_test_init (&argc, &argv, NULL);
  if (setlocale (LC_ALL, "") == NULL || setlocale (LC_ALL, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("the de_DE.UTF-8 locale is not installed");
      return g_test_run ();
    }
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (!gtk_init_check ())
    {
      g_printerr ("test-window-german: no display; run it under xvfb-run\n");
      return 1;
    }
  adw_init ();
  g_test_add_func ("/window/german", test_german);
  return g_test_run ();
}
