/* hr-gpu-editor.c: a card the catalog does not have, or one of the user's own
 *
 * The fields are the catalog's GPU keys in the units people read on spec
 * sheets (GiB, GB/s, W, US$); the entry is checked as the catalog reads it
 * and written atomically to the user's catalog.  An edited card keeps every
 * key the editor does not show.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-gpu-editor"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "hr-format.h"
#include "hr-gpu-editor.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

struct _HrGpuEditor
{
  AdwWindow           parent_instance;

  JsonNode           *base;        /* the entry edited; NULL for a new card */
  gboolean            id_edited;   /* the user typed an id: stop making it from the name */
  guint               updating;
  char               *message;

  GtkButton          *save_button;
  AdwPreferencesPage *page;
  GtkLabel           *message_label;
  GHashTable         *fields;      /* catalog key -> widget */
};

G_DEFINE_FINAL_TYPE (HrGpuEditor, hr_gpu_editor, ADW_TYPE_WINDOW)

enum {
  GPU_SAVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

gboolean
hr_gpu_price_date_is_valid (const char *date)
{
  guint year, month, day = 1;
  gsize len;

  if (date == NULL)
    return FALSE;
  len = strlen (date);
  if (len != 7 && len != 10)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if ((i == 4 || i == 7) ? date[i] != '-' : !g_ascii_isdigit (date[i]))
      return FALSE;

  year = (guint) g_ascii_strtoull (date, NULL, 10);
  month = (guint) g_ascii_strtoull (date + 5, NULL, 10);
  if (len == 10)
    day = (guint) g_ascii_strtoull (date + 8, NULL, 10);
  return year >= 1990 && g_date_valid_dmy (day, month, year);
}

char *
hr_gpu_price_date_today (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  return g_date_time_format (now, "%Y-%m-%d");
}

static const char *
entry_text (HrGpuEditor *self,
            const char  *key)
{
  return gtk_editable_get_text (GTK_EDITABLE (g_hash_table_lookup (self->fields, key)));
}

static double
spin_value (HrGpuEditor *self,
            const char  *key)
{
  return gtk_spin_button_get_value (g_hash_table_lookup (self->fields, key));
}

static gboolean
is_blank (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_isspace (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

static void
set_message (HrGpuEditor *self,
             gboolean     ok,
             char        *message)
{
  g_free (self->message);
  self->message = message;
  gtk_label_set_text (self->message_label, message);
  if (ok)
    gtk_widget_remove_css_class (GTK_WIDGET (self->message_label), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "error");
  gtk_widget_set_sensitive (GTK_WIDGET (self->save_button), ok);
}

static void
mark (HrGpuEditor *self,
      const char  *key,
      gboolean     bad)
{
  GtkWidget *widget = g_hash_table_lookup (self->fields, key);

  if (bad)
    gtk_widget_add_css_class (widget, "error");
  else
    gtk_widget_remove_css_class (widget, "error");
}

/* Checks every field; says what is wrong, or what saving will do. */
static void
validate (HrGpuEditor *self)
{
  const char *name = entry_text (self, "name");
  const char *id = entry_text (self, "id");
  const char *as_of = entry_text (self, "price_as_of");
  gboolean priced = spin_value (self, "price_usd") > 0
                     || spin_value (self, "cloud_usd_per_hour") > 0;
  gboolean bad_name = is_blank (name);
  gboolean bad_id = !hr_catalog_id_is_valid (id);
  gboolean bad_date = (as_of[0] != '\0' || priced) && !hr_gpu_price_date_is_valid (as_of);
  gboolean bad_source = is_blank (entry_text (self, "source"));
  const HrGpu *existing = bad_id ? NULL : hr_catalog_find_gpu (hr_catalog_get_default (), id);
  const char *base_id = NULL;

  mark (self, "name", bad_name);
  mark (self, "id", bad_id);
  mark (self, "price_as_of", bad_date);
  mark (self, "source", bad_source);

  if (self->base != NULL)
    base_id = json_object_get_string_member (json_node_get_object (self->base), "id");

  if (bad_name)
    set_message (self, FALSE, g_strdup (_("The card needs a name")));
  else if (bad_id)
    set_message (self, FALSE, g_strdup (_("An id holds only lowercase letters, digits, “-”, "
                                          "“.” and “_”")));
  else if (bad_date)
    set_message (self, FALSE, g_strdup (_("Prices need the date they were read, as YYYY-MM or "
                                          "YYYY-MM-DD")));
  else if (bad_source)
    set_message (self, FALSE, g_strdup (_("Say where the numbers come from (a spec sheet, "
                                          "nvidia-smi on the card)")));
  else if (existing != NULL && existing->origin == HR_ORIGIN_BUILTIN)
    set_message (self, TRUE, g_strdup_printf (_("Replaces the built-in “%s” with this id; the "
                                                "built-in entry comes back when you remove "
                                                "yours"), existing->name));
  else if (existing != NULL && g_strcmp0 (base_id, id) != 0)
    set_message (self, TRUE, g_strdup_printf (_("Replaces your “%s” with this id"),
                                              existing->name));
  else if (existing != NULL)
    set_message (self, TRUE, g_strdup (_("Saves your changes to this card")));
  else
    set_message (self, TRUE, g_strdup (_("A new card in your catalog")));
}

static void
on_name_changed (GtkEditable *editable,
                 HrGpuEditor *self)
{
  if (self->updating == 0 && !self->id_edited && self->base == NULL)
    {
      g_autofree char *id = hr_import_make_id (gtk_editable_get_text (editable));

      self->updating++;
      gtk_editable_set_text (GTK_EDITABLE (g_hash_table_lookup (self->fields, "id")), id);
      self->updating--;
    }
  validate (self);
}

static void
on_id_changed (GtkEditable *editable,
               HrGpuEditor *self)
{
  if (self->updating == 0)
    self->id_edited = TRUE;
  validate (self);
}

static void
on_field_changed (HrGpuEditor *self)
{
  validate (self);
}

static GtkWidget *
add_entry (HrGpuEditor *self,
           GtkWidget   *group,
           const char  *key,
           const char  *title,
           const char  *text)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_editable_set_text (GTK_EDITABLE (row), text != NULL ? text : "");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  g_hash_table_insert (self->fields, (gpointer) key, row);
  return row;
}

static GtkWidget *
add_spin (HrGpuEditor *self,
          GtkWidget   *group,
          const char  *key,
          const char  *title,
          const char  *subtitle,
          double       upper,
          double       step,
          guint        digits,
          double       value)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (0, upper, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), MAX (value, 0));
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  g_hash_table_insert (self->fields, (gpointer) key, spin);
  g_signal_connect_swapped (spin, "value-changed", G_CALLBACK (on_field_changed), self);
  return spin;
}

static GtkWidget *
group_new (HrGpuEditor *self,
           const char  *title,
           const char  *description)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), description);
  adw_preferences_page_add (self->page, ADW_PREFERENCES_GROUP (group));
  return group;
}

static void
build_fields (HrGpuEditor *self,
              const HrGpu *gpu)
{
  g_autoptr(GtkStringList) tiers = gtk_string_list_new (NULL);
  g_autofree char *today = hr_gpu_price_date_today ();
  g_autofree char *source = NULL;
  GtkWidget *card = group_new (self, _("Card"), NULL);
  GtkWidget *specs = group_new (self, _("Specifications"),
                                _("Memory as the driver reports it: nvidia-smi’s total MiB "
                                  "divided by 1024"));
  GtkWidget *prices = group_new (self, _("Prices"), _("Zero where unknown or not rented"));
  GtkWidget *tier_row = adw_combo_row_new ();
  GtkWidget *row;

  add_entry (self, card, "name", _("Name"), gpu != NULL ? gpu->name : NULL);
  row = add_entry (self, card, "id", _("Id"), gpu != NULL ? gpu->id : NULL);
  /* Another id would be another card: an edit keeps its id. */
  gtk_widget_set_sensitive (row, gpu == NULL);

  for (int t = HR_GPU_TIER_CONSUMER; t <= HR_GPU_TIER_DATACENTER; t++)
    gtk_string_list_append (tiers, hr_tier_label (t));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (tier_row), _("Tier"));
  adw_combo_row_set_model (ADW_COMBO_ROW (tier_row), G_LIST_MODEL (tiers));
  adw_combo_row_set_selected (ADW_COMBO_ROW (tier_row),
                              gpu != NULL ? (guint) gpu->tier : HR_GPU_TIER_CONSUMER);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (card), tier_row);
  g_hash_table_insert (self->fields, (gpointer) "tier", tier_row);

  if (gpu == NULL)
    source = g_strdup_printf (_("Entered by hand in Headroom on %s"), today);
  add_entry (self, card, "source", _("Source of the numbers"),
             gpu != NULL ? gpu->source : source);

  add_spin (self, specs, "memory", _("Memory"), _("GiB"), 16384, 1, 1,
            gpu != NULL ? gpu->memory / GIB : 24);
  add_spin (self, specs, "bandwidth", _("Memory bandwidth"), _("GB/s"), 1e6, 10, 0,
            gpu != NULL ? gpu->bandwidth / 1e9 : 0);
  add_spin (self, specs, "tdp_watts", _("Board power"), _("W"), 100000, 5, 0,
            gpu != NULL ? gpu->tdp_watts : 0);
  add_spin (self, specs, "bf16_tflops", _("BF16 throughput"), _("Dense TFLOP/s"), 1e6, 1, 1,
            gpu != NULL ? gpu->bf16_tflops : 0);

  add_spin (self, prices, "price_usd", _("Purchase price"), _("US$, a new card"), 1e7, 50, 0,
            gpu != NULL ? gpu->price_usd : 0);
  add_spin (self, prices, "cloud_usd_per_hour", _("Cloud price"), _("US$ per GPU-hour"), 1e4,
            0.05, 2, gpu != NULL ? gpu->cloud_usd_per_hour : 0);
  add_entry (self, prices, "price_as_of", _("Prices as of (YYYY-MM-DD)"),
             gpu != NULL && gpu->price_as_of != NULL ? gpu->price_as_of : today);

  self->message_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->message_label, TRUE);
  gtk_label_set_xalign (self->message_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "caption");
  gtk_widget_set_margin_top (GTK_WIDGET (self->message_label), 6);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (prices), GTK_WIDGET (self->message_label));

  g_signal_connect (g_hash_table_lookup (self->fields, "name"), "changed",
                    G_CALLBACK (on_name_changed), self);
  g_signal_connect (g_hash_table_lookup (self->fields, "id"), "changed",
                    G_CALLBACK (on_id_changed), self);
  g_signal_connect_swapped (g_hash_table_lookup (self->fields, "price_as_of"), "changed",
                            G_CALLBACK (on_field_changed), self);
  g_signal_connect_swapped (g_hash_table_lookup (self->fields, "source"), "changed",
                            G_CALLBACK (on_field_changed), self);
}

static void
set_number_or_null (JsonObject *object,
                    const char *key,
                    double      value)
{
  if (value > 0)
    json_object_set_double_member (object, key, value);
  else
    json_object_set_null_member (object, key);
}

/* The entry as the catalog stores it. */
static JsonNode *
build_entry (HrGpuEditor *self)
{
  JsonNode *node = self->base != NULL ? json_node_copy (self->base)
                                      : json_node_new (JSON_NODE_OBJECT);
  JsonObject *object;
  guint tier = adw_combo_row_get_selected (g_hash_table_lookup (self->fields, "tier"));
  double memory_gib = spin_value (self, "memory");
  g_autofree char *name = g_strstrip (g_strdup (entry_text (self, "name")));
  g_autofree char *source = g_strstrip (g_strdup (entry_text (self, "source")));
  const char *as_of = entry_text (self, "price_as_of");

  if (self->base == NULL)
    json_node_take_object (node, json_object_new ());
  object = json_node_get_object (node);

  json_object_set_string_member (object, "id", entry_text (self, "id"));
  json_object_set_string_member (object, "name", name);
  json_object_set_string_member (object, "tier",
                                 hr_enum_to_nick (hr_gpu_tier_names, (int) tier));
  /* Whole MiB, as nvidia-smi counts them. */
  json_object_set_int_member (object, "memory",
                              (gint64) llround (memory_gib * 1024.0) * 1024 * 1024);
  if (!json_object_has_member (object, "memory_nominal_gb"))
    json_object_set_double_member (object, "memory_nominal_gb", round (memory_gib));
  if (spin_value (self, "bandwidth") > 0)
    json_object_set_int_member (object, "bandwidth",
                                (gint64) llround (spin_value (self, "bandwidth") * 1e9));
  if (spin_value (self, "tdp_watts") > 0)
    json_object_set_int_member (object, "tdp_watts", (gint64) spin_value (self, "tdp_watts"));
  set_number_or_null (object, "bf16_tflops", spin_value (self, "bf16_tflops"));
  set_number_or_null (object, "price_usd", spin_value (self, "price_usd"));
  set_number_or_null (object, "cloud_usd_per_hour", spin_value (self, "cloud_usd_per_hour"));
  if (as_of[0] != '\0')
    json_object_set_string_member (object, "price_as_of", as_of);
  json_object_set_string_member (object, "source", source);
  return node;
}

static void
on_save_clicked (GtkButton   *button,
                 HrGpuEditor *self)
{
  g_autoptr(GError) error = NULL;

  if (hr_gpu_editor_save (self, &error))
    gtk_window_close (GTK_WINDOW (self));
  else
    set_message (self, FALSE, g_strdup (error->message));
}

static void
hr_gpu_editor_finalize (GObject *object)
{
  HrGpuEditor *self = HR_GPU_EDITOR (object);

  g_clear_pointer (&self->base, json_node_unref);
  g_clear_pointer (&self->fields, g_hash_table_unref);
  g_clear_pointer (&self->message, g_free);
  G_OBJECT_CLASS (hr_gpu_editor_parent_class)->finalize (object);
}

static void
hr_gpu_editor_class_init (HrGpuEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = hr_gpu_editor_finalize;

  /**
   * HrGpuEditor::gpu-saved:
   * @id: the card's id in the catalog
   *
   * The card is in the user's catalog.
   */
  signals[GPU_SAVED] = g_signal_new ("gpu-saved", G_TYPE_FROM_CLASS (klass),
                                     G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                     G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
hr_gpu_editor_init (HrGpuEditor *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));

  self->fields = g_hash_table_new (g_str_hash, g_str_equal);
  self->save_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Save")));
  gtk_widget_add_css_class (GTK_WIDGET (self->save_button), "suggested-action");
  g_signal_connect (self->save_button, "clicked", G_CALLBACK (on_save_clicked), self);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "window.close");

  adw_header_bar_set_show_end_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), cancel);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), GTK_WIDGET (self->save_button));

  self->page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->page), TRUE);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->page));
  adw_window_set_content (ADW_WINDOW (self), box);

  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (self), 520, 760);
}

HrGpuEditor *
hr_gpu_editor_new (GtkWindow   *parent,
                   const HrGpu *gpu)
{
  HrGpuEditor *self = g_object_new (HR_TYPE_GPU_EDITOR, "transient-for", parent, NULL);

  gtk_window_set_title (GTK_WINDOW (self), gpu != NULL ? _("Edit GPU") : _("Add GPU"));
  if (gpu != NULL && gpu->json != NULL)
    self->base = json_node_copy (gpu->json);
  self->updating++;
  build_fields (self, gpu);
  self->updating--;
  validate (self);
  return self;
}

GtkWidget *
hr_gpu_editor_get_field (HrGpuEditor *self,
                         const char  *key)
{
  g_return_val_if_fail (HR_IS_GPU_EDITOR (self), NULL);
  return g_hash_table_lookup (self->fields, key);
}

const char *
hr_gpu_editor_get_message (HrGpuEditor *self)
{
  g_return_val_if_fail (HR_IS_GPU_EDITOR (self), NULL);
  return self->message;
}

gboolean
hr_gpu_editor_can_save (HrGpuEditor *self)
{
  g_return_val_if_fail (HR_IS_GPU_EDITOR (self), FALSE);
  return gtk_widget_get_sensitive (GTK_WIDGET (self->save_button));
}

gboolean
hr_gpu_editor_save (HrGpuEditor  *self,
                    GError      **error)
{
  g_autoptr(JsonNode) entry = NULL;
  g_autofree char *id = NULL;

  g_return_val_if_fail (HR_IS_GPU_EDITOR (self), FALSE);

  if (!hr_gpu_editor_can_save (self))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID, "%s", self->message);
      return FALSE;
    }

  entry = build_entry (self);
  id = g_strdup (entry_text (self, "id"));
  if (!hr_user_catalog_save_gpu (entry, NULL, error))
    return FALSE;

  g_signal_emit (self, signals[GPU_SAVED], 0, id);
  return TRUE;
}
