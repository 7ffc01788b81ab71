/* hr-application.c: the Headroom application
 *
 * Actions and their accelerators are set here, in one table.  `headroom
 * FILE.json` opens a scenario; `headroom --screenshot=OUT.png [FILE]` draws
 * the window once, writes it as a PNG and exits.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "hr-application.h"
#include "hr-preferences.h"
#include "hr-window.h"

struct _HrApplication
{
  AdwApplication  parent_instance;

  char           *screenshot;
  char          **measurements;
  int             screenshot_width;
  int             screenshot_height;
  int             screenshot_shadow_width;   /* the surface beyond the window's box */
  int             screenshot_shadow_height;
  int             status;
};

G_DEFINE_FINAL_TYPE (HrApplication, hr_application, ADW_TYPE_APPLICATION)

static const struct {
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "app.help", { "F1", NULL } },
  { "win.new", { "<Control>n", NULL } },
  { "win.undo", { "<Control>z", NULL } },
  { "win.redo", { "<Control><Shift>z", "<Control>y", NULL } },
  { "win.open", { "<Control>o", NULL } },
  { "win.save", { "<Control>s", NULL } },
  { "win.save-as", { "<Control><Shift>s", NULL } },
  { "win.export", { "<Control>e", NULL } },
  { "win.import-measurements", { "<Control>i", NULL } },
  { "win.export-report", { "<Control><Shift>e", NULL } },
  { "win.advise", { "<Control>b", NULL } },
  { "win.search-models", { "<Control>f", NULL } },
  { "win.add-model", { "<Control><Shift>m", NULL } },
  { "win.add-gpu", { "<Control><Shift>g", NULL } },
  { "win.toggle-sidebar", { "F9", NULL } },
  { "win.show-help-overlay", { "<Control>question", NULL } },
  { "window.close", { "<Control>w", NULL } },
};

static HrWindow *
get_window (HrApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    {
      window = GTK_WINDOW (hr_window_new (GTK_APPLICATION (self)));
      /* A screenshot is drawn and gone: it keeps no unsaved state. */
      hr_window_set_keeps_recovery (HR_WINDOW (window), self->screenshot == NULL);
    }
  return HR_WINDOW (window);
}

/* --screenshot-size: the window's box is the size asked, even where the
 * screen is smaller (a 1920×1080 screenshot on a 1280×1024 Xvfb): GTK
 * clamps a window's size to the monitor's work area when it computes
 * it, so the size is set again after GTK's handler.  The frame's
 * shadow, outside the box, is added on top (screenshot_tick measures
 * it). */
static void
screenshot_compute_size_cb (GdkToplevel     *toplevel,
                            GdkToplevelSize *size,
                            gpointer         user_data)
{
  HrApplication *self = HR_APPLICATION (user_data);

  if (self->screenshot_width > 0 && self->screenshot_height > 0)
    gdk_toplevel_size_set_size (size, self->screenshot_width + self->screenshot_shadow_width,
                                self->screenshot_height + self->screenshot_shadow_height);
}

static void
screenshot_realize_cb (GtkWidget *widget,
                       gpointer   user_data)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (widget));

  g_signal_connect_object (surface, "compute-size", G_CALLBACK (screenshot_compute_size_cb),
                           user_data, G_CONNECT_AFTER);
}

static gboolean
screenshot_tick (GtkWidget     *widget,
                 GdkFrameClock *clock,
                 gpointer       user_data)
{
  HrApplication *self = HR_APPLICATION (user_data);
  int frames = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), "hr-frames")) + 1;
  g_autoptr(GError) error = NULL;

  /* A few frames, so that lists, charts and the window size have settled. */
  g_object_set_data (G_OBJECT (widget), "hr-frames", GINT_TO_POINTER (frames));
  if (frames < 4)
    return G_SOURCE_CONTINUE;
  /* Not yet the size asked: the surface was the box plus a shadow, which
   * is now known; a few frames more at the corrected size. */
  if (self->screenshot_width > 0 && frames < 40)
    {
      g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
      GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (widget));
      int box_width = gdk_paintable_get_intrinsic_width (paintable);
      int box_height = gdk_paintable_get_intrinsic_height (paintable);

      if (box_width != self->screenshot_width || box_height != self->screenshot_height)
        {
          self->screenshot_shadow_width = MAX (0, gdk_surface_get_width (surface) - box_width);
          self->screenshot_shadow_height = MAX (0, gdk_surface_get_height (surface) - box_height);
          /* (a default size that changes, so that GTK computes the
           * size again; the handler above sets the one asked) */
          gtk_window_set_default_size (GTK_WINDOW (widget),
                                       self->screenshot_width + (frames % 2),
                                       self->screenshot_height);
          return G_SOURCE_CONTINUE;
        }
    }

  if (!hr_window_screenshot (HR_WINDOW (widget), self->screenshot, &error))
    {
      g_printerr ("headroom: %s\n", error->message);
      self->status = 1;
    }
  g_application_quit (G_APPLICATION (self));
  return G_SOURCE_REMOVE;
}

/* --measurements: read at once, so that a screenshot shows them. */
static gboolean
add_measurements (HrApplication *self,
                  HrWindow      *window)
{
  for (guint i = 0; self->measurements != NULL && self->measurements[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (self->measurements[i]);
      g_autoptr(GError) error = NULL;

      if (!hr_window_add_measurement_file (window, file, &error))
        {
          g_printerr ("headroom: %s\n", error->message);
          self->status = 2;
          return FALSE;
        }
    }
  g_clear_pointer (&self->measurements, g_strfreev);
  return TRUE;
}

static void
present (HrApplication *self,
         HrWindow      *window)
{
  if (!add_measurements (self, window) && self->screenshot != NULL)
    {
      g_application_quit (G_APPLICATION (self));
      return;
    }
  if (self->screenshot != NULL)
    {
      if (self->screenshot_width > 0 && self->screenshot_height > 0)
        {
          gtk_window_unmaximize (GTK_WINDOW (window));
          gtk_window_set_default_size (GTK_WINDOW (window), self->screenshot_width,
                                       self->screenshot_height);
          g_signal_connect_object (window, "realize", G_CALLBACK (screenshot_realize_cb), self,
                                   0);
        }
      gtk_widget_add_tick_callback (GTK_WIDGET (window), screenshot_tick, self, NULL);
    }
  gtk_window_present (GTK_WINDOW (window));
}

static void
hr_application_activate (GApplication *app)
{
  HrApplication *self = HR_APPLICATION (app);
  gboolean fresh = gtk_application_get_active_window (GTK_APPLICATION (app)) == NULL;
  HrWindow *window = get_window (self);

  /* The scenario that was open last time comes back; a file that has gone
   * or broken since only costs a message.  With none (a first start),
   * the start page offers the examples and the recent files; a
   * screenshot without a file shows it too. */
  if (fresh)
    {
      g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
      g_autofree char *last = self->screenshot == NULL
                                ? g_settings_get_string (settings, "last-scenario")
                                : g_strdup ("");
      gboolean opened = FALSE;

      if (last[0] != '\0')
        {
          g_autoptr(GFile) file = g_file_new_for_path (last);
          g_autoptr(GError) error = NULL;

          opened = hr_window_load_file (window, file, &error);
          if (!opened)
            {
              g_message ("%s", error->message);
              g_settings_set_string (settings, "last-scenario", "");
            }
        }
      if (!opened && self->measurements == NULL)
        hr_window_show_start_page (window);
      if (self->screenshot == NULL)
        hr_window_offer_recovery (window);
    }
  present (self, window);
}

static void
hr_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  HrApplication *self = HR_APPLICATION (app);
  gboolean fresh = gtk_application_get_active_window (GTK_APPLICATION (app)) == NULL;
  HrWindow *window = get_window (self);

  if (fresh && self->screenshot == NULL)
    hr_window_offer_recovery (window);
  if (n_files > 0)
    {
      if (self->screenshot != NULL)
        {
          /* The scenario first, then what was measured (a memory snapshot,
           * a log), read at once so that the screenshot shows it; opening
           * a scenario after them would set them aside. */
          for (guint pass = 0; pass < 2; pass++)
            for (int i = 0; i < n_files; i++)
              {
                g_autoptr(GError) error = NULL;
                gboolean scenario = hr_window_file_is_scenario (files[i]);

                if (scenario != (pass == 0))
                  continue;
                if (scenario ? hr_window_load_file (window, files[i], &error)
                             : hr_window_add_measurement_file (window, files[i], &error))
                  continue;
                g_printerr ("headroom: %s\n", error->message);
                self->status = 2;
                g_application_quit (app);
                return;
              }
        }
      else
        {
          /* A scenario opens; a CSV or a memory_stats() dump is imported. */
          for (int i = 0; i < n_files; i++)
            hr_window_open_any (window, files[i]);
        }
    }
  present (self, window);
}

static int
hr_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  HrApplication *self = HR_APPLICATION (app);
  const char *size = NULL;

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("headroom %s\n", PACKAGE_VERSION);
      return 0;
    }
  if (g_variant_dict_lookup (options, "screenshot", "^ay", &self->screenshot))
    {
      /* A screenshot run is its own process: it never hands the file to a
       * Headroom that is already open. */
      g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);
    }
  g_variant_dict_lookup (options, "measurements", "^aay", &self->measurements);
  if (g_variant_dict_lookup (options, "screenshot-size", "&s", &size))
    {
      if (sscanf (size, "%dx%d", &self->screenshot_width, &self->screenshot_height) != 2
          || self->screenshot_width < 200 || self->screenshot_height < 200
          || self->screenshot_width > 8000 || self->screenshot_height > 8000)
        {
          g_printerr (_("headroom: --screenshot-size wants WIDTHxHEIGHT, such as 1280x800\n"));
          return 2;
        }
    }
  return -1;
}

/* Closing each window lets one with unsaved changes ask first; the
 * application ends when the last one has gone. */
static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free (windows);
}

static void
preferences_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_window_present (GTK_WINDOW (hr_preferences_new (parent)));
}

/* The user documentation is the README, installed in $datadir/doc/headroom
 * (a help: URI would need a Yelp page, which Headroom does not ship);
 * HEADROOM_README names another (the source tree's, in `meson devenv`
 * and the tests).  Without one, the project page has the same text. */
char *
hr_application_dup_help_uri (void)
{
  const char *candidates[] = { g_getenv ("HEADROOM_README"), HEADROOM_README };

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    if (candidates[i] != NULL && candidates[i][0] != '\0'
        && g_file_test (candidates[i], G_FILE_TEST_IS_REGULAR))
      {
        g_autoptr(GFile) file = g_file_new_for_path (candidates[i]);

        return g_file_get_uri (file);
      }
  return g_strdup ("https://github.com/vramlab/headroom#readme");
}

static void
help_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  g_autofree char *uri = hr_application_dup_help_uri ();

#if GTK_CHECK_VERSION (4, 10, 0)
  {
    g_autoptr(GtkUriLauncher) launcher = gtk_uri_launcher_new (uri);

    gtk_uri_launcher_launch (launcher, parent, NULL, NULL, NULL);
  }
#else
  gtk_show_uri (parent, uri, GDK_CURRENT_TIME);
#endif
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  static const char *developers[] = { "The Headroom developers", NULL };
  static const char *formulas[] = {
    "Korthikanti et al. 2022, “Reducing Activation Recomputation in Large Transformer "
    "Models” (activation memory, eq. 1) https://arxiv.org/abs/2205.05198",
    "Rajbhandari et al. 2020, “ZeRO: Memory Optimizations Toward Training Trillion "
    "Parameter Models” (optimizer, gradient and parameter sharding) "
    "https://arxiv.org/abs/1910.02054",
    "Dettmers et al. 2023, “QLoRA: Efficient Finetuning of Quantized LLMs” (NF4 storage, "
    "double quantisation, paged optimizers) https://arxiv.org/abs/2305.14314",
    "Hu et al. 2021, “LoRA: Low-Rank Adaptation of Large Language Models” "
    "https://arxiv.org/abs/2106.09685",
    "Okabe and Ito 2008, “Color Universal Design” (chart colours)",
    NULL
  };
  GtkWidget *about = NULL;

#if ADW_CHECK_VERSION (1, 4, 0)
  /* The metainfo compiled into the resources gives the release notes,
   * name, developer and links. */
  if (g_resources_get_info ("/io/github/vramlab/Headroom/" APP_ID ".metainfo.xml", 0, NULL,
                            NULL, NULL))
    about = adw_about_window_new_from_appdata ("/io/github/vramlab/Headroom/" APP_ID
                                               ".metainfo.xml", PACKAGE_VERSION);
#endif
  /* libadwaita 1.2 cannot read the metainfo: the same fields, by hand. */
  if (about == NULL)
    {
      about = adw_about_window_new ();
      adw_about_window_set_application_name (ADW_ABOUT_WINDOW (about), _("Headroom"));
      adw_about_window_set_version (ADW_ABOUT_WINDOW (about), PACKAGE_VERSION);
      adw_about_window_set_developer_name (ADW_ABOUT_WINDOW (about),
                                           _("The Headroom developers"));
      adw_about_window_set_license_type (ADW_ABOUT_WINDOW (about), GTK_LICENSE_GPL_3_0);
      adw_about_window_set_website (ADW_ABOUT_WINDOW (about),
                                    "https://github.com/vramlab/headroom");
      adw_about_window_set_issue_url (ADW_ABOUT_WINDOW (about),
                                      "https://github.com/vramlab/headroom/issues");
    }
  adw_about_window_set_application_icon (ADW_ABOUT_WINDOW (about), APP_ID);
  adw_about_window_set_comments (ADW_ABOUT_WINDOW (about),
                                 _("Plans GPU memory for training, fine-tuning and running "
                                   "AI models: how the peak splits into weights, gradients, "
                                   "optimizer state, activations and overhead, where it stops "
                                   "fitting, and which lever buys the most memory.\n\n"
                                   "Every figure is an estimate with a range. Check it against "
                                   "a measurement on your own card before you spend money."));
  adw_about_window_set_developers (ADW_ABOUT_WINDOW (about), developers);
  adw_about_window_add_acknowledgement_section (ADW_ABOUT_WINDOW (about),
                                                _("Formulas and figures"), formulas);
  gtk_window_set_transient_for (GTK_WINDOW (about), parent);
  gtk_window_present (GTK_WINDOW (about));
}

static void
hr_application_startup (GApplication *app)
{
  static const GActionEntry entries[] = {
    { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
    { "preferences", preferences_activated, NULL, NULL, NULL, { 0 } },
    { "help", help_activated, NULL, NULL, NULL, { 0 } },
    { "about", about_activated, NULL, NULL, NULL, { 0 } },
  };

  G_APPLICATION_CLASS (hr_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action,
                                           accels[i].accels);
}

static void
hr_application_finalize (GObject *object)
{
  HrApplication *self = HR_APPLICATION (object);

  g_free (self->screenshot);
  g_strfreev (self->measurements);
  G_OBJECT_CLASS (hr_application_parent_class)->finalize (object);
}

static void
hr_application_class_init (HrApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = hr_application_finalize;
  app_class->activate = hr_application_activate;
  app_class->open = hr_application_open;
  app_class->startup = hr_application_startup;
  app_class->handle_local_options = hr_application_handle_local_options;
}

static void
hr_application_init (HrApplication *self)
{
  static const GOptionEntry options[] = {
    { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Draw the window once into a PNG file and quit"), N_("FILE") },
    { "screenshot-size", 0, 0, G_OPTION_ARG_STRING, NULL,
      N_("Window size for --screenshot, such as 1280x800"), N_("WIDTHxHEIGHT") },
    { "measurements", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL,
      N_("Import a measurement file (repeatable)"), N_("FILE") },
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and quit"), NULL },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE.json]"));
}

HrApplication *
hr_application_new (void)
{
  return g_object_new (HR_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/vramlab/Headroom",
                       NULL);
}

/* Non-zero when a --screenshot run failed. */
int
hr_application_get_status (HrApplication *self)
{
  return self->status;
}
