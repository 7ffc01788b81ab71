/* hr-text-row.c: rows of text that one change lays out cheaply
 *
 * The result rows change their texts on every edit.  In a horizontal
 * GtkBox (an AdwActionRow's header, a verdict row) GTK 4.8 asks each
 * child for its width at the box's height when it allocates the box
 * (gtk_box_layout_allocate measures children in the box's orientation
 * with the other dimension as for_size).  A vertical box of wrapping
 * labels can answer that only by searching: it measures the labels'
 * heights at one width after another (18, 36, 74, ... 1214, then
 * bisecting), and every width is the text laid out again.  In the window
 * benchmark a verdict label was laid out about 80 times for one change.
 *
 * HrTextColumn stacks its children vertically and gives its width
 * whatever the height it is asked for: the widest child's width when
 * nothing constrains it, which is what a column of text in a row wants.
 * A changed label is then laid out three or four times (its widths, its
 * height at the width it gets, its drawing).  HrTextRow is an
 * AdwActionRow's look (the same style classes, so Adwaita's stylesheet
 * draws it the same) built on such a column.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-text-row"

#include "hr-text-row.h"

/* ------------------------------------------------------------------ */
/* HrTextColumn                                                         */

struct _HrTextColumn
{
  GtkWidget parent_instance;

  int spacing;
};

G_DEFINE_FINAL_TYPE (HrTextColumn, hr_text_column, GTK_TYPE_WIDGET)

static GtkSizeRequestMode
hr_text_column_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
hr_text_column_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  HrTextColumn *self = HR_TEXT_COLUMN (widget);
  guint shown = 0;

  *minimum = 0;
  *natural = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int child_min = 0, child_nat = 0;

      if (!gtk_widget_get_visible (child))
        continue;
      if (orientation == GTK_ORIENTATION_HORIZONTAL)
        {
          /* The same width at any height: see the top of the file. */
          gtk_widget_measure (child, orientation, -1, &child_min, &child_nat, NULL, NULL);
          *minimum = MAX (*minimum, child_min);
          *natural = MAX (*natural, child_nat);
        }
      else
        {
          gtk_widget_measure (child, orientation, for_size, &child_min, &child_nat, NULL, NULL);
          *minimum += child_min + (shown > 0 ? self->spacing : 0);
          *natural += child_nat + (shown > 0 ? self->spacing : 0);
        }
      shown++;
    }
}

static void
hr_text_column_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  HrTextColumn *self = HR_TEXT_COLUMN (widget);
  int y = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int child_min = 0, child_nat = 0;

      if (!gtk_widget_get_visible (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, &child_min, &child_nat,
                          NULL, NULL);
      gtk_widget_allocate (child, width, child_nat, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, y)));
      y += child_nat + self->spacing;
    }
}

static void
hr_text_column_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (hr_text_column_parent_class)->dispose (object);
}

static void
hr_text_column_class_init (HrTextColumnClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_text_column_dispose;
  widget_class->get_request_mode = hr_text_column_get_request_mode;
  widget_class->measure = hr_text_column_measure;
  widget_class->size_allocate = hr_text_column_size_allocate;
  /* "box", so that the stylesheet's rules for a row's title box hold */
  gtk_widget_class_set_css_name (widget_class, "box");
}

static void
hr_text_column_init (HrTextColumn *self)
{
}

GtkWidget *
hr_text_column_new (int spacing)
{
  HrTextColumn *self = g_object_new (HR_TYPE_TEXT_COLUMN, NULL);

  self->spacing = MAX (spacing, 0);
  return GTK_WIDGET (self);
}

void
hr_text_column_append (HrTextColumn *self,
                       GtkWidget    *child)
{
  g_return_if_fail (HR_IS_TEXT_COLUMN (self));
  g_return_if_fail (GTK_IS_WIDGET (child));

  gtk_widget_insert_before (child, GTK_WIDGET (self), NULL);
}

/* ------------------------------------------------------------------ */
/* HrTextRow                                                            */

struct _HrTextRow
{
  GtkListBoxRow parent_instance;

  GtkWidget *prefixes;
  GtkWidget *badge;
  GtkLabel  *title;
  GtkLabel  *subtitle;
  GtkWidget *suffixes;
  GtkLabel  *suffix;
};

G_DEFINE_FINAL_TYPE (HrTextRow, hr_text_row, GTK_TYPE_LIST_BOX_ROW)

static void
set_text (GtkLabel   *label,
          const char *text)
{
  if (text == NULL)
    text = "";
  if (g_strcmp0 (gtk_label_get_text (label), text) != 0)
    gtk_label_set_text (label, text);
  gtk_widget_set_visible (GTK_WIDGET (label), text[0] != '\0');
}

static GtkWidget *
wrapping_label (const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_width_chars (GTK_LABEL (label), 20);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, css_class);
  gtk_widget_set_visible (label, FALSE);
  return label;
}

static void
hr_text_row_class_init (HrTextRowClass *klass)
{
}

static void
hr_text_row_init (HrTextRow *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *column = hr_text_column_new (3);

  /* What an AdwActionRow is made of (its adw-action-row.ui), so that
   * Adwaita's rules for "row > box.header" and the rest apply. */
  gtk_widget_add_css_class (header, "header");
  gtk_widget_set_valign (header, GTK_ALIGN_CENTER);

  self->prefixes = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (self->prefixes, "prefixes");
  gtk_widget_set_visible (self->prefixes, FALSE);
  self->badge = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->badge, "caption-heading");
  gtk_widget_add_css_class (self->badge, "accent");
  gtk_widget_set_valign (self->badge, GTK_ALIGN_CENTER);
  gtk_widget_set_visible (self->badge, FALSE);
  gtk_box_append (GTK_BOX (self->prefixes), self->badge);
  gtk_box_append (GTK_BOX (header), self->prefixes);

  gtk_widget_add_css_class (column, "title");
  gtk_widget_set_valign (column, GTK_ALIGN_CENTER);
  gtk_widget_set_hexpand (column, TRUE);
  self->title = GTK_LABEL (wrapping_label ("title"));
  self->subtitle = GTK_LABEL (wrapping_label ("subtitle"));
  hr_text_column_append (HR_TEXT_COLUMN (column), GTK_WIDGET (self->title));
  hr_text_column_append (HR_TEXT_COLUMN (column), GTK_WIDGET (self->subtitle));
  gtk_box_append (GTK_BOX (header), column);

  self->suffixes = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (self->suffixes, "suffixes");
  gtk_widget_set_visible (self->suffixes, FALSE);
  self->suffix = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->suffix), "numeric");
  gtk_box_append (GTK_BOX (self->suffixes), GTK_WIDGET (self->suffix));
  gtk_box_append (GTK_BOX (header), self->suffixes);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (self), header);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (self), FALSE);
  /* A row of text is read, not used: the focus passes it by. */
  gtk_widget_set_focusable (GTK_WIDGET (self), FALSE);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, self->title, NULL,
                                  GTK_ACCESSIBLE_RELATION_DESCRIBED_BY, self->subtitle, NULL,
                                  -1);
}

GtkWidget *
hr_text_row_new (const char *title,
                 const char *subtitle,
                 const char *suffix)
{
  HrTextRow *self = g_object_new (HR_TYPE_TEXT_ROW, NULL);

  hr_text_row_set_texts (self, title, subtitle, suffix);
  return GTK_WIDGET (self);
}

void
hr_text_row_set_texts (HrTextRow  *self,
                       const char *title,
                       const char *subtitle,
                       const char *suffix)
{
  g_return_if_fail (HR_IS_TEXT_ROW (self));

  set_text (self->title, title);
  set_text (self->subtitle, subtitle);
  if (suffix != NULL)
    set_text (self->suffix, suffix);
  gtk_widget_set_visible (self->suffixes, suffix != NULL && suffix[0] != '\0');
}

const char *
hr_text_row_get_title (HrTextRow *self)
{
  g_return_val_if_fail (HR_IS_TEXT_ROW (self), NULL);
  return gtk_label_get_text (self->title);
}

const char *
hr_text_row_get_subtitle (HrTextRow *self)
{
  g_return_val_if_fail (HR_IS_TEXT_ROW (self), NULL);
  return gtk_label_get_text (self->subtitle);
}

const char *
hr_text_row_get_suffix (HrTextRow *self)
{
  g_return_val_if_fail (HR_IS_TEXT_ROW (self), NULL);
  return gtk_widget_get_visible (self->suffixes) ? gtk_label_get_text (self->suffix) : NULL;
}

void
hr_text_row_set_badge (HrTextRow  *self,
                       const char *text)
{
  g_return_if_fail (HR_IS_TEXT_ROW (self));

  if (text != NULL)
    set_text (GTK_LABEL (self->badge), text);
  else
    gtk_widget_set_visible (self->badge, FALSE);
  gtk_widget_set_visible (self->prefixes, gtk_widget_get_visible (self->badge));
}

/* ------------------------------------------------------------------ */
/* Rows and labels updated in place                                     */

void
hr_list_box_clear (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

void
hr_label_set_text (GtkLabel   *label,
                   const char *text)
{
  if (g_strcmp0 (gtk_label_get_text (label), text != NULL ? text : "") != 0)
    gtk_label_set_text (label, text != NULL ? text : "");
}

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard_mode,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  const char *text = g_object_get_data (G_OBJECT (widget), "hr-tooltip");

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

void
hr_widget_set_tooltip (GtkWidget  *widget,
                       const char *text)
{
  if (text != NULL && text[0] == '\0')
    text = NULL;
  if (g_object_get_data (G_OBJECT (widget), "hr-tooltip-asked") == NULL)
    {
      g_signal_connect (widget, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
      gtk_widget_set_has_tooltip (widget, TRUE);
      g_object_set_data (G_OBJECT (widget), "hr-tooltip-asked", GINT_TO_POINTER (TRUE));
    }
  if (g_strcmp0 (g_object_get_data (G_OBJECT (widget), "hr-tooltip"), text) != 0)
    g_object_set_data_full (G_OBJECT (widget), "hr-tooltip", g_strdup (text), g_free);
}

GtkWidget *
hr_list_box_text_row (GtkListBox *list,
                      guint       index)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (list, (int) index);

  if (row == NULL)
    {
      GtkWidget *made = hr_text_row_new (NULL, NULL, NULL);

      gtk_list_box_append (list, made);
      return made;
    }
  return GTK_WIDGET (row);
}

void
hr_list_box_trim (GtkListBox *list,
                  guint       n)
{
  GtkListBoxRow *row;

  while ((row = gtk_list_box_get_row_at_index (list, (int) n)) != NULL)
    gtk_list_box_remove (list, GTK_WIDGET (row));
}
