/* hr-file-chooser.h: one way to ask for a file, on every GTK
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Called with the chosen file; never called when the user cancels. */
typedef void (*HrFileChosenFunc) (GFile    *file,
                                  gpointer  user_data);

/* Asks for a file to open (through the portal where there is one):
 * GtkFileDialog on GTK 4.10 and later, GtkFileChooserNative on 4.8.
 * @filter may be NULL; @destroy frees @user_data once the dialog is done. */
void hr_file_chooser_open (GtkWindow        *parent,
                           const char       *title,
                           const char       *accept_label,
                           GtkFileFilter    *filter,
                           HrFileChosenFunc  func,
                           gpointer          user_data,
                           GDestroyNotify    destroy);
/* The same for a file to write, suggesting @initial_name. */
void hr_file_chooser_save (GtkWindow        *parent,
                           const char       *title,
                           const char       *accept_label,
                           const char       *initial_name,
                           GtkFileFilter    *filter,
                           HrFileChosenFunc  func,
                           gpointer          user_data,
                           GDestroyNotify    destroy);

/* For tests, which cannot drive a portal or a native dialog: the next
 * chooser answers at once with @file, as a user picking it would. */
void hr_file_chooser_set_test_answer (GFile *file);

G_END_DECLS
