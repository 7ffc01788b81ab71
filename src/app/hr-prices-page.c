/* hr-prices-page.c: purchase and cloud prices, editable, in Preferences
 *
 * Prices go stale faster than anything else in the catalog.  An edit here is
 * written to the user's catalog as a copy of the built-in entry with the new
 * prices (atomically, checked as the catalog reads it), so the built-in
 * catalog stays as shipped and "Reset" brings its prices back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-prices-page"

#include <glib/gi18n.h>

#include "hr-format.h"
#include "hr-gpu-editor.h"
#include "hr-prices-page.h"

#define EDITED_NOTE "Prices edited in Headroom's preferences."

typedef struct {
  HrPricesPage   *page;
  char           *id;
  AdwExpanderRow *row;
  GtkSpinButton  *price;
  GtkSpinButton  *cloud;
  AdwEntryRow    *as_of;
  GtkLabel       *badge;
  GtkWidget      *reset_row;
  guint           save_source;  /* a save waiting for the spin buttons to settle */
} PriceRow;

struct _HrPricesPage
{
  AdwPreferencesPage  parent_instance;

  GHashTable         *rows;      /* GPU id -> PriceRow */
  guint               updating;
};

G_DEFINE_FINAL_TYPE (HrPricesPage, hr_prices_page, ADW_TYPE_PREFERENCES_PAGE)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Clicking "+" ten times is one edit: saved once, when the clicks stop. */
#define SAVE_DELAY_MS 600

static void
price_row_free (PriceRow *row)
{
  g_clear_handle_id (&row->save_source, g_source_remove);
  g_free (row->id);
  g_free (row);
}

static char *
summary (const HrGpu *gpu)
{
  g_autofree char *price = hr_format_price (gpu->price_usd);
  g_autofree char *cloud = gpu->cloud_usd_per_hour >= 0
                             ? g_strdup_printf (_("$%.2f/h to rent"), gpu->cloud_usd_per_hour)
                             : g_strdup (_("not rented"));

  return g_strdup_printf (_("%s · %s · as of %s"), price != NULL ? price : _("no price"), cloud,
                          gpu->price_as_of != NULL ? gpu->price_as_of : _("unknown"));
}

/* Shows the catalog's entry as it is now. */
static void
sync_row (PriceRow *row)
{
  const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), row->id);
  g_autofree char *subtitle = NULL;

  g_return_if_fail (gpu != NULL);

  subtitle = summary (gpu);
  row->page->updating++;
  adw_expander_row_set_subtitle (row->row, subtitle);
  gtk_spin_button_set_value (row->price, MAX (gpu->price_usd, 0));
  gtk_spin_button_set_value (row->cloud, MAX (gpu->cloud_usd_per_hour, 0));
  gtk_editable_set_text (GTK_EDITABLE (row->as_of),
                         gpu->price_as_of != NULL ? gpu->price_as_of : "");
  gtk_widget_remove_css_class (GTK_WIDGET (row->as_of), "error");
  gtk_label_set_text (row->badge, gpu->origin == HR_ORIGIN_USER ? _("Your card") : _("Custom"));
  gtk_widget_set_visible (GTK_WIDGET (row->badge), gpu->origin != HR_ORIGIN_BUILTIN);
  gtk_widget_set_visible (row->reset_row, gpu->origin == HR_ORIGIN_USER_OVERRIDE);
  row->page->updating--;
}

static void
show_error (HrPricesPage *self,
            const char   *message)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (ADW_IS_PREFERENCES_WINDOW (root))
    adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (root), adw_toast_new (message));
  else
    g_warning ("%s", message);
}

static void
set_price_member (JsonObject *object,
                  const char *key,
                  double      value)
{
  if (value > 0)
    json_object_set_double_member (object, key, value);
  else
    json_object_set_null_member (object, key);
}

/* Writes the row's prices as the user's entry for the card. */
static gboolean
save_row (PriceRow  *row,
          GError   **error)
{
  HrPricesPage *self = row->page;
  const HrGpu *gpu = hr_catalog_find_gpu (hr_catalog_get_default (), row->id);
  const char *as_of = gtk_editable_get_text (GTK_EDITABLE (row->as_of));
  g_autoptr(JsonNode) entry = NULL;
  JsonObject *object;
  const char *source;

  if (gpu == NULL || gpu->json == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_NOT_FOUND, _("No GPU “%s” in the catalog"),
                   row->id);
      return FALSE;
    }
  if (!hr_gpu_price_date_is_valid (as_of))
    {
      gtk_widget_add_css_class (GTK_WIDGET (row->as_of), "error");
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("“%s” is not a date: prices need the date they were read, as YYYY-MM "
                     "or YYYY-MM-DD"), as_of);
      return FALSE;
    }

  /* The catalog's entry (the built-in one, or the user's own) with the new
   * prices: every other number and its source stay as they were. */
  entry = json_node_copy (gpu->json);
  object = json_node_get_object (entry);
  set_price_member (object, "price_usd", gtk_spin_button_get_value (row->price));
  set_price_member (object, "cloud_usd_per_hour", gtk_spin_button_get_value (row->cloud));
  json_object_set_string_member (object, "price_as_of", as_of);
  source = json_object_get_string_member_with_default (object, "source", "");
  if (strstr (source, EDITED_NOTE) == NULL)
    {
      g_autofree char *with_note = g_strconcat (source, source[0] != '\0' ? " " : "",
                                                EDITED_NOTE, NULL);

      json_object_set_string_member (object, "source", with_note);
    }

  if (!hr_user_catalog_save_gpu (entry, NULL, error))
    return FALSE;

  hr_catalog_reload_default ();
  sync_row (row);
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

static void
save_row_or_warn (PriceRow *row)
{
  g_autoptr(GError) error = NULL;

  if (!save_row (row, &error))
    show_error (row->page, error->message);
}

static gboolean
save_timeout_cb (gpointer user_data)
{
  PriceRow *row = user_data;

  row->save_source = 0;
  save_row_or_warn (row);
  return G_SOURCE_REMOVE;
}

static void
on_price_changed (GtkSpinButton *spin,
                  PriceRow      *row)
{
  g_autofree char *today = NULL;

  if (row->page->updating > 0)
    return;

  /* A price typed now was read today. */
  today = hr_gpu_price_date_today ();
  row->page->updating++;
  gtk_editable_set_text (GTK_EDITABLE (row->as_of), today);
  row->page->updating--;
  g_clear_handle_id (&row->save_source, g_source_remove);
  row->save_source = g_timeout_add (SAVE_DELAY_MS, save_timeout_cb, row);
}

/* Saves what is still waiting, so closing Preferences loses nothing. */
static void
flush_saves (HrPricesPage *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      PriceRow *row = value;

      if (row->save_source != 0)
        {
          g_clear_handle_id (&row->save_source, g_source_remove);
          save_row_or_warn (row);
        }
    }
}

static void
on_as_of_apply (AdwEntryRow *entry,
                PriceRow    *row)
{
  if (row->page->updating == 0)
    {
      g_clear_handle_id (&row->save_source, g_source_remove);
      save_row_or_warn (row);
    }
}

static void
on_reset_clicked (GtkButton *button,
                  PriceRow  *row)
{
  g_autoptr(GError) error = NULL;

  if (!hr_prices_page_reset (row->page, row->id, &error))
    show_error (row->page, error->message);
}

static GtkSpinButton *
add_spin (PriceRow   *row,
          const char *title,
          double      upper,
          double      step,
          guint       digits)
{
  GtkWidget *action = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (0, upper, step);
  g_autofree char *label = g_strdup_printf ("%s, %s", title,
                                            adw_preferences_row_get_title (
                                              ADW_PREFERENCES_ROW (row->row)));

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (action), title);
  adw_action_row_add_suffix (ADW_ACTION_ROW (action), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (action), spin);
  adw_expander_row_add_row (row->row, action);
  g_signal_connect (spin, "value-changed", G_CALLBACK (on_price_changed), row);
  return GTK_SPIN_BUTTON (spin);
}

static void
add_gpu_row (HrPricesPage        *self,
             AdwPreferencesGroup *group,
             const HrGpu         *gpu)
{
  PriceRow *row = g_new0 (PriceRow, 1);
  GtkWidget *button;

  row->page = self;
  row->id = g_strdup (gpu->id);
  row->row = ADW_EXPANDER_ROW (adw_expander_row_new ());
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row->row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->row), gpu->name);

  row->badge = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_set_valign (GTK_WIDGET (row->badge), GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (GTK_WIDGET (row->badge), "custom-badge");
  adw_expander_row_add_action (row->row, GTK_WIDGET (row->badge));

  row->price = add_spin (row, _("Purchase price (US$)"), 1e7, 50, 0);
  row->cloud = add_spin (row, _("Cloud price (US$ per GPU-hour)"), 1e4, 0.05, 2);

  row->as_of = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->as_of),
                                 _("Prices as of (YYYY-MM-DD)"));
  adw_entry_row_set_show_apply_button (row->as_of, TRUE);
  g_signal_connect (row->as_of, "apply", G_CALLBACK (on_as_of_apply), row);
  adw_expander_row_add_row (row->row, GTK_WIDGET (row->as_of));

  row->reset_row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->reset_row), _("Built-in prices"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row->reset_row),
                               _("Your prices replace them; the built-in catalog is unchanged"));
  button = gtk_button_new_with_mnemonic (_("_Reset"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_signal_connect (button, "clicked", G_CALLBACK (on_reset_clicked), row);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row->reset_row), button);
  adw_expander_row_add_row (row->row, row->reset_row);

  adw_preferences_group_add (group, GTK_WIDGET (row->row));
  g_hash_table_insert (self->rows, row->id, row);
  sync_row (row);
}

static void
hr_prices_page_unmap (GtkWidget *widget)
{
  flush_saves (HR_PRICES_PAGE (widget));
  GTK_WIDGET_CLASS (hr_prices_page_parent_class)->unmap (widget);
}

static void
hr_prices_page_dispose (GObject *object)
{
  HrPricesPage *self = HR_PRICES_PAGE (object);

  if (self->rows != NULL)
    flush_saves (self);
  G_OBJECT_CLASS (hr_prices_page_parent_class)->dispose (object);
}

static void
hr_prices_page_finalize (GObject *object)
{
  HrPricesPage *self = HR_PRICES_PAGE (object);

  g_clear_pointer (&self->rows, g_hash_table_unref);
  G_OBJECT_CLASS (hr_prices_page_parent_class)->finalize (object);
}

static void
hr_prices_page_class_init (HrPricesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_prices_page_dispose;
  object_class->finalize = hr_prices_page_finalize;
  widget_class->unmap = hr_prices_page_unmap;

  /**
   * HrPricesPage::changed:
   *
   * A price was saved or reset, and the default catalog read again: the
   * windows rebuild their pickers.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
hr_prices_page_init (HrPricesPage *self)
{
  GPtrArray *gpus = hr_catalog_get_gpus (hr_catalog_get_default ());
  AdwPreferencesGroup *groups[HR_GPU_TIER_DATACENTER + 1];

  self->rows = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                      (GDestroyNotify) price_row_free);
  adw_preferences_page_set_title (ADW_PREFERENCES_PAGE (self), _("Prices"));
  adw_preferences_page_set_icon_name (ADW_PREFERENCES_PAGE (self),
                                      "accessories-calculator-symbolic");

  for (int t = HR_GPU_TIER_CONSUMER; t <= HR_GPU_TIER_DATACENTER; t++)
    {
      groups[t] = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
      adw_preferences_group_set_title (groups[t], hr_tier_label (t));
      adw_preferences_page_add (ADW_PREFERENCES_PAGE (self), groups[t]);
    }
  adw_preferences_group_set_description (groups[HR_GPU_TIER_CONSUMER],
                                         _("Your prices are kept in your own catalog and "
                                           "marked “Custom”; the built-in ones are never "
                                           "changed, and Reset brings them back."));

  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *gpu = g_ptr_array_index (gpus, i);

      add_gpu_row (self, groups[gpu->tier], gpu);
    }
}

GtkWidget *
hr_prices_page_new (void)
{
  return g_object_new (HR_TYPE_PRICES_PAGE, NULL);
}

static PriceRow *
find_row (HrPricesPage  *self,
          const char    *gpu_id,
          GError       **error)
{
  PriceRow *row = g_hash_table_lookup (self->rows, gpu_id);

  if (row == NULL)
    g_set_error (error, HR_ERROR, HR_ERROR_NOT_FOUND, _("No GPU “%s” in the catalog"), gpu_id);
  return row;
}

gboolean
hr_prices_page_set_prices (HrPricesPage  *self,
                           const char    *gpu_id,
                           double         price_usd,
                           double         cloud_usd_per_hour,
                           const char    *as_of,
                           GError       **error)
{
  g_autofree char *today = hr_gpu_price_date_today ();
  PriceRow *row;

  g_return_val_if_fail (HR_IS_PRICES_PAGE (self), FALSE);
  g_return_val_if_fail (gpu_id != NULL, FALSE);

  row = find_row (self, gpu_id, error);
  if (row == NULL)
    return FALSE;

  g_clear_handle_id (&row->save_source, g_source_remove);
  self->updating++;
  gtk_spin_button_set_value (row->price, price_usd);
  gtk_spin_button_set_value (row->cloud, cloud_usd_per_hour);
  gtk_editable_set_text (GTK_EDITABLE (row->as_of), as_of != NULL ? as_of : today);
  self->updating--;
  return save_row (row, error);
}

gboolean
hr_prices_page_reset (HrPricesPage  *self,
                      const char    *gpu_id,
                      GError       **error)
{
  PriceRow *row;

  g_return_val_if_fail (HR_IS_PRICES_PAGE (self), FALSE);
  g_return_val_if_fail (gpu_id != NULL, FALSE);

  row = find_row (self, gpu_id, error);
  if (row == NULL)
    return FALSE;
  g_clear_handle_id (&row->save_source, g_source_remove);
  if (!hr_user_catalog_remove (HR_USER_CATALOG_GPUS, gpu_id, error))
    return FALSE;

  hr_catalog_reload_default ();
  sync_row (row);
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

gboolean
hr_prices_page_is_custom (HrPricesPage *self,
                          const char   *gpu_id)
{
  PriceRow *row;

  g_return_val_if_fail (HR_IS_PRICES_PAGE (self), FALSE);

  row = g_hash_table_lookup (self->rows, gpu_id);
  return row != NULL && gtk_widget_get_visible (GTK_WIDGET (row->badge));
}

GtkWidget *
hr_prices_page_get_row (HrPricesPage *self,
                        const char   *gpu_id)
{
  PriceRow *row;

  g_return_val_if_fail (HR_IS_PRICES_PAGE (self), NULL);

  row = g_hash_table_lookup (self->rows, gpu_id);
  return row != NULL ? GTK_WIDGET (row->row) : NULL;
}
