/* hr-preferences.c: the Preferences window
 *
 * Every row is bound to GSettings: a change applies at once, and the open
 * window redraws with it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "hr-preferences.h"
#include "hr-prices-page.h"
#include "hr-window.h"

/* A price edit changed the catalog: every window shows the new prices. */
static void
on_prices_changed (HrPricesPage *page,
                   GtkWindow    *parent)
{
  GtkApplication *app = gtk_window_get_application (parent);
  GList *windows = app != NULL ? gtk_application_get_windows (app) : NULL;

  if (windows == NULL && HR_IS_WINDOW (parent))
    hr_window_reload_catalog (HR_WINDOW (parent), NULL);
  for (GList *l = windows; l != NULL; l = l->next)
    if (HR_IS_WINDOW (l->data))
      hr_window_reload_catalog (l->data, NULL);
}

static AdwComboRow *
enum_row (GSettings   *settings,
          const char  *key,
          const char  *title,
          const char  *subtitle,
          const char **labels)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

  for (guint i = 0; labels[i] != NULL; i++)
    gtk_string_list_append (list, _(labels[i]));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  adw_combo_row_set_selected (row, g_settings_get_enum (settings, key));
  g_object_set_data_full (G_OBJECT (row), "hr-key", g_strdup (key), g_free);
  return row;
}

static void
on_enum_selected (AdwComboRow *row,
                  GParamSpec  *pspec,
                  GSettings   *settings)
{
  g_settings_set_enum (settings, g_object_get_data (G_OBJECT (row), "hr-key"),
                       adw_combo_row_get_selected (row));
}

static gboolean
percent_get (GValue   *value,
             GVariant *variant,
             gpointer  user_data)
{
  g_value_set_double (value, g_variant_get_double (variant) * 100.0);
  return TRUE;
}

static GVariant *
percent_set (const GValue       *value,
             const GVariantType *type,
             gpointer            user_data)
{
  return g_variant_new_double (g_value_get_double (value) / 100.0);
}

static AdwActionRow *
spin_row (GSettings  *settings,
          const char *key,
          const char *title,
          const char *subtitle,
          double      lower,
          double      upper,
          double      step,
          guint       digits,
          gboolean    percent)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (row, subtitle);
  adw_action_row_add_suffix (row, spin);
  adw_action_row_set_activatable_widget (row, spin);
  if (percent)
    g_settings_bind_with_mapping (settings, key, spin, "value", G_SETTINGS_BIND_DEFAULT,
                                  percent_get, percent_set, NULL, NULL);
  else
    g_settings_bind (settings, key, spin, "value", G_SETTINGS_BIND_DEFAULT);
  return row;
}

GtkWidget *
hr_preferences_new (GtkWindow *parent)
{
  static const char *units[] = { N_("GiB (2³⁰ bytes)"), N_("GB (10⁹ bytes)"), NULL };
  static const char *themes[] = { N_("Light"), N_("Dark"), N_("Print"), NULL };
  GtkWidget *window = adw_preferences_window_new ();
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *display = adw_preferences_group_new ();
  GtkWidget *planning = adw_preferences_group_new ();
  GSettings *settings = g_settings_new (SCHEMA_ID);
  AdwComboRow *unit_row, *theme_row;
  GtkWidget *prices;

  g_object_set_data_full (G_OBJECT (window), "hr-settings", settings, g_object_unref);
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  adw_preferences_window_set_search_enabled (ADW_PREFERENCES_WINDOW (window), FALSE);

  adw_preferences_page_set_title (ADW_PREFERENCES_PAGE (page), _("General"));
  adw_preferences_page_set_icon_name (ADW_PREFERENCES_PAGE (page), "preferences-system-symbolic");
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (display), _("Display"));
  unit_row = enum_row (settings, "display-unit", _("Memory unit"),
                       _("PyTorch and nvidia-smi count in GiB; vendors print GB on the box"),
                       units);
  theme_row = enum_row (settings, "export-theme", _("Export theme"),
                        _("The colours exported charts and reports use"), themes);
  g_signal_connect (unit_row, "notify::selected", G_CALLBACK (on_enum_selected), settings);
  g_signal_connect (theme_row, "notify::selected", G_CALLBACK (on_enum_selected), settings);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (display), GTK_WIDGET (unit_row));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (display), GTK_WIDGET (theme_row));

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (planning), _("Planning"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (planning),
                             GTK_WIDGET (spin_row (settings, "default-reserve",
                                                   _("Default reserve"),
                                                   _("Percent of each card kept free in new "
                                                     "scenarios"),
                                                   0, 50, 1, 0, TRUE)));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (planning),
                             GTK_WIDGET (spin_row (settings, "electricity-price",
                                                   _("Electricity price"),
                                                   _("US dollars per kWh, for the cost of "
                                                     "running a card you own"),
                                                   0, 10, 0.01, 2, FALSE)));

  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (display));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (planning));
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (window), ADW_PREFERENCES_PAGE (page));
  prices = hr_prices_page_new ();
  if (parent != NULL)
    g_signal_connect_object (prices, "changed", G_CALLBACK (on_prices_changed), parent, 0);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (window), ADW_PREFERENCES_PAGE (prices));
  return window;
}
