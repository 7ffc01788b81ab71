/* hr-screenshot.c: a drawn widget into a PNG file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-screenshot"

#include <glib/gi18n.h>

#include "hr-core.h"
#include "hr-screenshot.h"

gboolean
hr_widget_screenshot (GtkWidget  *widget,
                      const char *path,
                      GError    **error)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GBytes) png = NULL;
  /* The widget's whole box, its border and padding included: a window's
   * solid-csd frame is padding that the live window draws (and that
   * --screenshot-size counts).  gtk_widget_get_width() is the content
   * box only, 10 pixels less: a paintable drawn into it is scaled down,
   * and every glyph with it. */
  int width = gdk_paintable_get_intrinsic_width (paintable);
  int height = gdk_paintable_get_intrinsic_height (paintable);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL || renderer == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_IO, _("%s: the window has not been drawn yet"),
                   path);
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  png = gdk_texture_save_to_png_bytes (texture);
  /* Through the one writer of every file (hr-file.h): a link is followed,
   * a pipe, a device or a dangling link is refused, the old file stays
   * whole until the new one is. */
  return hr_file_write_atomic (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png), error);
}
