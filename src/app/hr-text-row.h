/* hr-text-row.h: rows of text that one change lays out cheaply
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A column of wrapping labels (or any widgets) whose width does not
 * depend on its height. */
#define HR_TYPE_TEXT_COLUMN (hr_text_column_get_type ())
G_DECLARE_FINAL_TYPE (HrTextColumn, hr_text_column, HR, TEXT_COLUMN, GtkWidget)

GtkWidget  *hr_text_column_new          (int           spacing);
void        hr_text_column_append       (HrTextColumn *self,
                                         GtkWidget    *child);

/* A list row of text that reads and looks like an AdwActionRow: a
 * prefix badge, a title and a subtitle (both wrapping), and a
 * figure as its suffix. */
#define HR_TYPE_TEXT_ROW (hr_text_row_get_type ())
G_DECLARE_FINAL_TYPE (HrTextRow, hr_text_row, HR, TEXT_ROW, GtkListBoxRow)

GtkWidget  *hr_text_row_new             (const char   *title,
                                         const char   *subtitle,
                                         const char   *suffix);
/* Each setter leaves a widget alone when it already shows the value, so
 * a refresh that changes one number lays out one label.  NULL or "" hides
 * the subtitle, NULL the suffix. */
void        hr_text_row_set_texts       (HrTextRow    *self,
                                         const char   *title,
                                         const char   *subtitle,
                                         const char   *suffix);
const char *hr_text_row_get_title       (HrTextRow    *self);
const char *hr_text_row_get_subtitle    (HrTextRow    *self);
const char *hr_text_row_get_suffix      (HrTextRow    *self);
/* A short accent word before the title (NULL hides it). */
void        hr_text_row_set_badge       (HrTextRow    *self,
                                         const char   *text);

/* Rows and labels updated in place.  A label's text, left alone when it
 * already reads so (a new text lays the label out again); and a widget's
 * tooltip, kept and given when GTK asks for it (setting a tooltip asks the
 * display where the pointer is, a round trip to the X server, every
 * time). */
void        hr_label_set_text           (GtkLabel     *label,
                                         const char   *text);
void        hr_widget_set_tooltip       (GtkWidget    *widget,
                                         const char   *text);
/* The row at @index of @list (an HrTextRow), made when the list is
 * shorter; the list cut to @n rows; and emptied.  A refresh updates rows
 * in place. */
GtkWidget  *hr_list_box_text_row        (GtkListBox   *list,
                                         guint         index);
void        hr_list_box_trim            (GtkListBox   *list,
                                         guint         n);
void        hr_list_box_clear           (GtkListBox   *list);

G_END_DECLS
