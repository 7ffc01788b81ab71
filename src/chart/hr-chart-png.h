/* hr-chart-png.h: an image surface to PNG, quickly
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

/* @image (an ARGB32 image surface, flushed) as a PNG: RGB when every
 * pixel is opaque (@opaque: the caller painted every pixel opaque, so
 * none needs looking at), RGBA otherwise; its resolution (@dpi, 0 for none) in a
 * pHYs chunk, so the picture keeps its physical size; @title and
 * @description (UTF-8, may be NULL) as iTXt chunks. */
GBytes *hr_chart_png_encode (cairo_surface_t *image,
                             gboolean         opaque,
                             double           dpi,
                             const char      *title,
                             const char      *description);

G_END_DECLS
