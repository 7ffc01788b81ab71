/* hr-file-chooser.c: one way to ask for a file, on every GTK
 *
 * GTK 4.10 replaced GtkFileChooserNative with GtkFileDialog.  Both go
 * through the file chooser portal inside the Flatpak; this file is the one
 * place that knows which one the GTK at hand has.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "hr-file-chooser.h"

typedef struct {
  HrFileChosenFunc func;
  gpointer         user_data;
  GDestroyNotify   destroy;
} Request;

static Request *
request_new (HrFileChosenFunc func,
             gpointer         user_data,
             GDestroyNotify   destroy)
{
  Request *request = g_new0 (Request, 1);

  request->func = func;
  request->user_data = user_data;
  request->destroy = destroy;
  return request;
}

static void
request_finish (Request *request,
                GFile   *file)
{
  if (file != NULL)
    request->func (file, request->user_data);
  if (request->destroy != NULL)
    request->destroy (request->user_data);
  g_free (request);
}

#if GTK_CHECK_VERSION (4, 10, 0)
static void
open_finished (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GFile) file = gtk_file_dialog_open_finish (GTK_FILE_DIALOG (source), result, NULL);

  request_finish (user_data, file);
}

static void
save_finished (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GFile) file = gtk_file_dialog_save_finish (GTK_FILE_DIALOG (source), result, NULL);

  request_finish (user_data, file);
}

static GtkFileDialog *
dialog_new (const char    *title,
            const char    *accept_label,
            GtkFileFilter *filter)
{
  GtkFileDialog *dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, title);
  gtk_file_dialog_set_accept_label (dialog, accept_label);
  if (filter != NULL)
    gtk_file_dialog_set_default_filter (dialog, filter);
  return dialog;
}
#else
static void
native_response (GtkNativeDialog *dialog,
                 int              response,
                 gpointer         user_data)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  request_finish (user_data, file);
  g_object_unref (dialog);
}

static void
native_show (GtkWindow            *parent,
             const char           *title,
             const char           *accept_label,
             GtkFileChooserAction  action,
             const char           *initial_name,
             GtkFileFilter        *filter,
             Request              *request)
{
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (title, parent, action, accept_label, _("_Cancel"));
  if (filter != NULL)
    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  if (initial_name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), initial_name);
  g_signal_connect (dialog, "response", G_CALLBACK (native_response), request);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
#endif

static GFile *test_answer;

void
hr_file_chooser_set_test_answer (GFile *file)
{
  g_set_object (&test_answer, file);
}

/* A test answers for the user: the file, as if picked and accepted. */
static gboolean
answer_for_test (Request *request)
{
  g_autoptr(GFile) file = g_steal_pointer (&test_answer);

  if (file == NULL)
    return FALSE;
  request_finish (request, file);
  return TRUE;
}

void
hr_file_chooser_open (GtkWindow        *parent,
                      const char       *title,
                      const char       *accept_label,
                      GtkFileFilter    *filter,
                      HrFileChosenFunc  func,
                      gpointer          user_data,
                      GDestroyNotify    destroy)
{
  Request *request = request_new (func, user_data, destroy);
#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = NULL;

  if (answer_for_test (request))
    return;
  dialog = dialog_new (title, accept_label, filter);
  gtk_file_dialog_open (dialog, parent, NULL, open_finished, request);
#else
  if (answer_for_test (request))
    return;
  native_show (parent, title, accept_label, GTK_FILE_CHOOSER_ACTION_OPEN, NULL, filter, request);
#endif
}

void
hr_file_chooser_save (GtkWindow        *parent,
                      const char       *title,
                      const char       *accept_label,
                      const char       *initial_name,
                      GtkFileFilter    *filter,
                      HrFileChosenFunc  func,
                      gpointer          user_data,
                      GDestroyNotify    destroy)
{
  Request *request = request_new (func, user_data, destroy);
#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = NULL;

  if (answer_for_test (request))
    return;
  dialog = dialog_new (title, accept_label, filter);
  if (initial_name != NULL)
    gtk_file_dialog_set_initial_name (dialog, initial_name);
  gtk_file_dialog_save (dialog, parent, NULL, save_finished, request);
#else
  if (answer_for_test (request))
    return;
  native_show (parent, title, accept_label, GTK_FILE_CHOOSER_ACTION_SAVE, initial_name, filter,
               request);
#endif
}
