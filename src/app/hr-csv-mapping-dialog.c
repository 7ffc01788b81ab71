/* hr-csv-mapping-dialog.c: which column of a CSV is which, and its unit
 *
 * The page builds the HrMeasureOptions that `headroom-cli measure` builds
 * from its --batch-column, --memory-column, --seq-column, --unit,
 * --metric, --delimiter, --decimal-comma and --no-header, and shows what
 * the core's reader makes of the file's first rows with them
 * (hr_measure_csv_head_read): the same reader the import then runs on the
 * whole file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-csv-mapping"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "hr-csv-mapping-dialog.h"
#include "hr-format.h"

/* Rows of the preview, columns of it, and points listed under it. */
#define PREVIEW_ROWS    8
#define PREVIEW_COLUMNS 12
#define PREVIEW_POINTS  6

struct _HrCsvMappingDialog {
  AdwWindow         parent_instance;

  AdwComboRow      *batch_row;
  GtkLabel         *command_label;
  GtkSwitch        *decimal_comma_switch;
  AdwComboRow      *delimiter_row;
  GtkLabel         *error_label;
  GtkSwitch        *header_switch;
  GtkWidget        *import_button;
  GtkLabel         *intro_label;
  AdwComboRow      *memory_row;
  AdwComboRow      *metric_row;
  GtkLabel         *points_label;
  GtkGrid          *rows_grid;
  AdwComboRow      *seq_row;
  AdwComboRow      *unit_row;

  GSettings        *settings;
  char             *path;
  char             *name;
  GBytes           *head_bytes;
  gboolean          complete;
  char             *header;        /* of the layout read; NULL without one */
  GPtrArray        *columns;       /* char *: the layout's column names */
  gboolean          can_import;
  gboolean          updating;
};

G_DEFINE_FINAL_TYPE (HrCsvMappingDialog, hr_csv_mapping_dialog, ADW_TYPE_WINDOW)

enum {
  IMPORT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The Delimiter row's choices (0: the one the reader detects). */
static const char delimiters[] = { 0, ',', ';', '\t', ' ', '|' };

/* The Unit row's, after "as the column's name says". */
static const HrMeasureUnit units[] = {
  HR_MEASURE_UNIT_BYTES, HR_MEASURE_UNIT_KIB, HR_MEASURE_UNIT_MIB, HR_MEASURE_UNIT_GIB,
  HR_MEASURE_UNIT_KB, HR_MEASURE_UNIT_MB, HR_MEASURE_UNIT_GB,
};

/* The Measure row's. */
static const HrMetric metrics[] = {
  HR_METRIC_ALLOCATED, HR_METRIC_RESERVED, HR_METRIC_DEVICE_USED,
};

static const char *
delimiter_name (char delimiter)
{
  switch (delimiter)
    {
    case ',':
      return _("Comma");
    case ';':
      return _("Semicolon");
    case '\t':
      return _("Tab");
    case ' ':
      return _("Spaces");
    case '|':
      return _("Vertical bar");
    default:
      return "?";
    }
}

/* The reading options of the Reading group: what splits the file into
 * columns, before any column is named. */
static void
get_layout_options (HrCsvMappingDialog *self,
                    HrMeasureOptions   *options)
{
  guint d = adw_combo_row_get_selected (self->delimiter_row);

  memset (options, 0, sizeof *options);
  options->delimiter = d < G_N_ELEMENTS (delimiters) ? delimiters[d] : 0;
  options->decimal_comma = gtk_switch_get_active (self->decimal_comma_switch);
  options->no_header = !gtk_switch_get_active (self->header_switch);
}

/* A column as the options name it: its name, or its number where the
 * name is not one the reader would find first (a name twice, a name
 * that is a number, none). */
static char *
column_option (HrCsvMappingDialog *self,
               guint               index)
{
  const char *name = g_ptr_array_index (self->columns, index);
  guint64 number;

  for (guint i = 0; i < index; i++)
    if (g_ascii_strcasecmp (g_ptr_array_index (self->columns, i), name) == 0)
      return g_strdup_printf ("%u", index + 1);
  if (*name == '\0' ||
      (g_ascii_string_to_unsigned (name, 10, 1, G_MAXUINT, &number, NULL) &&
       number != index + 1))
    return g_strdup_printf ("%u", index + 1);
  return g_strdup (name);
}

void
hr_csv_mapping_dialog_get_options (HrCsvMappingDialog *self,
                                   HrMeasureOptions   *options)
{
  guint batch, memory, seq, unit, metric;

  g_return_if_fail (HR_IS_CSV_MAPPING_DIALOG (self));
  g_return_if_fail (options != NULL);

  get_layout_options (self, options);
  batch = adw_combo_row_get_selected (self->batch_row);
  memory = adw_combo_row_get_selected (self->memory_row);
  seq = adw_combo_row_get_selected (self->seq_row);
  unit = adw_combo_row_get_selected (self->unit_row);
  metric = adw_combo_row_get_selected (self->metric_row);

  if (batch < self->columns->len)
    options->batch_column = column_option (self, batch);
  if (memory < self->columns->len)
    options->memory_column = column_option (self, memory);
  /* the first choice is None: the file has no sequence-length column */
  options->seq_column = seq >= 1 && seq - 1 < self->columns->len ? column_option (self, seq - 1)
                                                                 : g_strdup ("");
  options->unit = unit >= 1 && unit - 1 < G_N_ELEMENTS (units) ? units[unit - 1]
                                                               : HR_MEASURE_UNIT_NONE;
  if (metric < G_N_ELEMENTS (metrics))
    {
      options->metric = metrics[metric];
      options->has_metric = TRUE;
    }
}

static void
set_strings (AdwComboRow        *row,
             const char         *first,
             GPtrArray          *names)
{
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);

  if (first != NULL)
    gtk_string_list_append (list, first);
  for (guint i = 0; i < names->len; i++)
    gtk_string_list_append (list, g_ptr_array_index (names, i));
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
}

static int
find_name (GPtrArray  *names,
           const char *name)
{
  guint index;

  if (name != NULL && g_ptr_array_find_with_equal_func (names, name, g_str_equal, &index))
    return index;
  return -1;
}

static char *
selected_name (HrCsvMappingDialog *self,
               AdwComboRow        *row,
               guint               skip)
{
  guint selected = adw_combo_row_get_selected (row);

  if (self->columns == NULL || selected < skip || selected - skip >= self->columns->len)
    return NULL;
  return g_strdup (g_ptr_array_index (self->columns, selected - skip));
}

/* The columns the Reading group splits the file into, in the column
 * rows; the columns chosen stay chosen where the new layout has them,
 * else the reader's own choice (by name) is taken. */
static void
read_layout (HrCsvMappingDialog *self)
{
  HrMeasureOptions options;
  g_autoptr(HrMeasureCsvHead) head = NULL;
  g_autofree char *batch = selected_name (self, self->batch_row, 0);
  g_autofree char *memory = selected_name (self, self->memory_row, 0);
  g_autofree char *seq = selected_name (self, self->seq_row, 1);
  gsize length;
  const char *data = g_bytes_get_data (self->head_bytes, &length);
  int b, m, s;

  get_layout_options (self, &options);
  head = hr_measure_csv_head_read (self->name, data, length, self->complete, &options,
                                   PREVIEW_ROWS);

  g_clear_pointer (&self->columns, g_ptr_array_unref);
  self->columns = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < head->columns->len; i++)
    g_ptr_array_add (self->columns, g_strdup (g_ptr_array_index (head->columns, i)));
  g_free (self->header);
  self->header = g_strdup (head->header);

  /* what the reader detects, named in the first choice (the first line
   * decides it, whatever the other options) */
  if (adw_combo_row_get_model (self->delimiter_row) == NULL)
    {
      g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);
      g_autofree char *detected = head->is_csv
        ? g_strdup_printf (_("Detected: %s"), delimiter_name (head->delimiter))
        : g_strdup (_("Detected"));

      gtk_string_list_append (list, detected);
      for (guint i = 1; i < G_N_ELEMENTS (delimiters); i++)
        gtk_string_list_append (list, delimiter_name (delimiters[i]));
      adw_combo_row_set_model (self->delimiter_row, G_LIST_MODEL (list));
    }

  set_strings (self->batch_row, NULL, self->columns);
  set_strings (self->memory_row, NULL, self->columns);
  set_strings (self->seq_row, _("None"), self->columns);

  b = find_name (self->columns, batch);
  if (b < 0)
    b = head->batch_column >= 0 ? head->batch_column : 0;
  m = find_name (self->columns, memory);
  if (m < 0)
    m = head->memory_column >= 0 ? head->memory_column
                                 : (b == 0 && self->columns->len > 1 ? 1 : 0);
  s = seq != NULL ? find_name (self->columns, seq) : head->seq_column;

  if (self->columns->len > 0)
    {
      adw_combo_row_set_selected (self->batch_row, b);
      adw_combo_row_set_selected (self->memory_row, m);
    }
  adw_combo_row_set_selected (self->seq_row, s >= 0 ? s + 1 : 0);

  /* a unit the memory column's name says is the one taken */
  if (m >= 0 && (guint) m < head->column_units->len &&
      g_array_index (head->column_units, HrMeasureUnit, m) != HR_MEASURE_UNIT_NONE)
    adw_combo_row_set_selected (self->unit_row, 0);
}

static GtkWidget *
cell_label (const char *text,
            gboolean    heading)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 24);
  gtk_widget_add_css_class (label, heading ? "heading" : "numeric");
  return label;
}

static void
show_rows (HrCsvMappingDialog     *self,
           const HrMeasureCsvHead *head)
{
  GtkWidget *child;
  guint batch = adw_combo_row_get_selected (self->batch_row);
  guint memory = adw_combo_row_get_selected (self->memory_row);
  guint seq = adw_combo_row_get_selected (self->seq_row);
  guint n = MIN (head->columns->len, PREVIEW_COLUMNS);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->rows_grid))) != NULL)
    gtk_grid_remove (self->rows_grid, child);

  /* the line numbers first, then each column, named by what it is read as */
  gtk_grid_attach (self->rows_grid, cell_label (_("Line"), TRUE), 0, 0, 1, 1);
  for (guint c = 0; c < n; c++)
    {
      const char *name = g_ptr_array_index (head->columns, c);
      g_autofree char *text = NULL;

      if (c == batch)
        text = g_strdup_printf (_("%s (micro-batch)"), name);
      else if (c == memory)
        text = g_strdup_printf (_("%s (peak)"), name);
      else if (seq >= 1 && c == seq - 1)
        text = g_strdup_printf (_("%s (sequence)"), name);
      else
        text = g_strdup (name);
      gtk_grid_attach (self->rows_grid, cell_label (text, TRUE), c + 1, 0, 1, 1);
    }
  for (guint r = 0; r < head->rows->len; r++)
    {
      GStrv fields = g_ptr_array_index (head->rows, r);
      g_autofree char *line = g_strdup_printf ("%u", g_array_index (head->row_lines, guint, r));
      GtkWidget *number = cell_label (line, FALSE);

      gtk_widget_add_css_class (number, "dim-label");
      gtk_grid_attach (self->rows_grid, number, 0, r + 1, 1, 1);
      for (guint c = 0; c < n && fields[c] != NULL; c++)
        gtk_grid_attach (self->rows_grid, cell_label (fields[c], FALSE), c + 1, r + 1, 1, 1);
    }
}

static void
show_points (HrCsvMappingDialog     *self,
             const HrMeasureCsvHead *head)
{
  const HrMeasureSeries *series;
  HrSizeUnit unit = g_settings_get_enum (self->settings, "display-unit") == 1 ? HR_SIZE_GB
                                                                              : HR_SIZE_GIB;
  g_autoptr(GString) text = g_string_new (NULL);

  if (head->measurement == NULL || head->measurement->series->len == 0)
    {
      gtk_label_set_text (self->points_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->points_label), FALSE);
      return;
    }
  series = g_ptr_array_index (head->measurement->series, 0);
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE,
                                             "%u point in the first rows:",
                                             "%u points in the first rows:",
                                             series->points->len),
                          series->points->len);
  for (guint i = 0; i < MIN (series->points->len, PREVIEW_POINTS); i++)
    {
      const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, i);
      g_autofree char *bytes = hr_size_format (p->bytes, unit);

      g_string_append (text, i == 0 ? " " : "; ");
      if (isnan (p->batch))
        g_string_append (text, bytes);
      else
        /* Translators: a measured point: the micro-batch, then the peak */
        g_string_append_printf (text, _("micro-batch %g: %s"), p->batch, bytes);
    }
  if (series->points->len > PREVIEW_POINTS)
    g_string_append (text, "; …");
  gtk_label_set_text (self->points_label, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->points_label), TRUE);
}

/* What the command line would say: the same options, by their names. */
static void
show_command (HrCsvMappingDialog     *self,
              const HrMeasureOptions *options)
{
  g_autofree char *args = hr_measure_options_to_string (options);
  g_autofree char *name = g_shell_quote (self->name);
  g_autofree char *text = NULL;

  /* (a plain name as it is) */
  if (strspn (self->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,+-=@%")
      == strlen (self->name))
    {
      g_free (name);
      name = g_strdup (self->name);
    }
  text = g_strdup_printf (_("The same as: headroom-cli measure %s %s"), name, args);
  gtk_label_set_text (self->command_label, text);
}

static void
update (HrCsvMappingDialog *self)
{
  HrMeasureOptions options;
  g_autoptr(HrMeasureCsvHead) head = NULL;
  gsize length;
  const char *data = g_bytes_get_data (self->head_bytes, &length);

  hr_csv_mapping_dialog_get_options (self, &options);
  head = hr_measure_csv_head_read (self->name, data, length, self->complete, &options,
                                   PREVIEW_ROWS);
  show_rows (self, head);
  show_points (self, head);
  show_command (self, &options);

  gtk_label_set_text (self->error_label, head->error != NULL ? head->error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), head->error != NULL);
  self->can_import = head->measurement != NULL;
  gtk_widget_set_sensitive (self->import_button, self->can_import);
  hr_measure_options_clear (&options);
}

static void
on_changed (HrCsvMappingDialog *self)
{
  if (self->updating)
    return;
  update (self);
}

static void
on_layout_changed (HrCsvMappingDialog *self)
{
  if (self->updating)
    return;
  self->updating = TRUE;
  read_layout (self);
  self->updating = FALSE;
  update (self);
}

static void
on_import_clicked (HrCsvMappingDialog *self)
{
  if (!self->can_import)
    return;
  g_signal_emit (self, signals[IMPORT], 0);
  gtk_window_destroy (GTK_WINDOW (self));
}

/* The column @option names (its name in any case, or its 1-based
 * number, as the reader finds it), or -1. */
static int
option_column (HrCsvMappingDialog *self,
               const char         *option)
{
  guint64 number;

  if (option == NULL)
    return -1;
  for (guint i = 0; i < self->columns->len; i++)
    if (g_ascii_strcasecmp (g_ptr_array_index (self->columns, i), option) == 0)
      return i;
  if (g_ascii_string_to_unsigned (option, 10, 1, self->columns->len, &number, NULL))
    return number - 1;
  return -1;
}

void
hr_csv_mapping_dialog_set_options (HrCsvMappingDialog     *self,
                                   const HrMeasureOptions *options)
{
  int column;

  g_return_if_fail (HR_IS_CSV_MAPPING_DIALOG (self));
  g_return_if_fail (options != NULL);

  self->updating = TRUE;
  adw_combo_row_set_selected (self->delimiter_row, 0);
  for (guint i = 1; i < G_N_ELEMENTS (delimiters); i++)
    if (delimiters[i] == options->delimiter)
      adw_combo_row_set_selected (self->delimiter_row, i);
  gtk_switch_set_active (self->decimal_comma_switch, options->decimal_comma);
  gtk_switch_set_active (self->header_switch, !options->no_header);
  read_layout (self);

  if ((column = option_column (self, options->batch_column)) >= 0)
    adw_combo_row_set_selected (self->batch_row, column);
  if ((column = option_column (self, options->memory_column)) >= 0)
    adw_combo_row_set_selected (self->memory_row, column);
  if (options->seq_column != NULL && options->seq_column[0] == '\0')
    adw_combo_row_set_selected (self->seq_row, 0);
  else if ((column = option_column (self, options->seq_column)) >= 0)
    adw_combo_row_set_selected (self->seq_row, column + 1);
  adw_combo_row_set_selected (self->unit_row, 0);
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (units[i] == options->unit)
      adw_combo_row_set_selected (self->unit_row, i + 1);
  for (guint i = 0; options->has_metric && i < G_N_ELEMENTS (metrics); i++)
    if (metrics[i] == options->metric)
      adw_combo_row_set_selected (self->metric_row, i);
  self->updating = FALSE;
  update (self);
}

const char *
hr_csv_mapping_dialog_get_path (HrCsvMappingDialog *self)
{
  g_return_val_if_fail (HR_IS_CSV_MAPPING_DIALOG (self), NULL);

  return self->path;
}

const char *
hr_csv_mapping_dialog_get_header (HrCsvMappingDialog *self)
{
  g_return_val_if_fail (HR_IS_CSV_MAPPING_DIALOG (self), NULL);

  return self->header;
}

gboolean
hr_csv_mapping_dialog_get_can_import (HrCsvMappingDialog *self)
{
  g_return_val_if_fail (HR_IS_CSV_MAPPING_DIALOG (self), FALSE);

  return self->can_import;
}

static gboolean
activate_row_cb (GtkWidget *widget,
                 GVariant  *args,
                 gpointer   user_data)
{
  return gtk_widget_activate (widget);
}

/* Enter on a combo row opens its list, rather than pressing Import. */
static void
enter_opens_row (GtkWidget *row)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();

  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string (
                                                            "Return|KP_Enter|ISO_Enter"),
                                                          gtk_callback_action_new (
                                                            activate_row_cb, NULL, NULL)));
  gtk_widget_add_controller (row, controller);
}

static void
hr_csv_mapping_dialog_dispose (GObject *object)
{
  HrCsvMappingDialog *self = HR_CSV_MAPPING_DIALOG (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), HR_TYPE_CSV_MAPPING_DIALOG);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->head_bytes, g_bytes_unref);
  g_clear_pointer (&self->columns, g_ptr_array_unref);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->header, g_free);
  G_OBJECT_CLASS (hr_csv_mapping_dialog_parent_class)->dispose (object);
}

static void
hr_csv_mapping_dialog_class_init (HrCsvMappingDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_csv_mapping_dialog_dispose;

  /* Import was pressed: the window reads the file with the options. */
  signals[IMPORT] = g_signal_new ("import", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/"
                                               "hr-csv-mapping-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, batch_row);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, command_label);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, decimal_comma_switch);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, delimiter_row);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, header_switch);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, import_button);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, intro_label);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, memory_row);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, metric_row);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, points_label);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, rows_grid);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, seq_row);
  gtk_widget_class_bind_template_child (widget_class, HrCsvMappingDialog, unit_row);
  gtk_widget_class_bind_template_callback (widget_class, on_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_import_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_layout_changed);
}

static void
hr_csv_mapping_dialog_init (HrCsvMappingDialog *self)
{
  GtkWidget *rows[6];

  self->settings = g_settings_new (SCHEMA_ID);
  self->updating = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));
  self->updating = FALSE;

  rows[0] = GTK_WIDGET (self->batch_row);
  rows[1] = GTK_WIDGET (self->memory_row);
  rows[2] = GTK_WIDGET (self->unit_row);
  rows[3] = GTK_WIDGET (self->metric_row);
  rows[4] = GTK_WIDGET (self->seq_row);
  rows[5] = GTK_WIDGET (self->delimiter_row);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    enter_opens_row (rows[i]);
}

HrCsvMappingDialog *
hr_csv_mapping_dialog_new (GtkWindow  *parent,
                           const char *path,
                           GBytes     *head,
                           gboolean    complete)
{
  HrCsvMappingDialog *self;
  g_autofree char *intro = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (head != NULL, NULL);

  self = g_object_new (HR_TYPE_CSV_MAPPING_DIALOG, "transient-for", parent, NULL);
  self->path = g_strdup (path);
  self->name = g_path_get_basename (path);
  self->head_bytes = g_bytes_ref (head);
  self->complete = complete;

  intro = g_strdup_printf (_("“%s” is a CSV file Headroom does not recognise. Say which column "
                             "is the micro-batch and which the peak memory, and in what unit."),
                           self->name);
  gtk_label_set_text (self->intro_label, intro);

  self->updating = TRUE;
  read_layout (self);
  self->updating = FALSE;
  update (self);
  return self;
}
