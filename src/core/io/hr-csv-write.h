/* hr-csv-write.h: CSV cells that spreadsheets read as data, never as formulas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Appends @text to @line as one CSV cell (RFC 4180: quoted when it holds a
 * comma, a quote, a line break or edge spaces).  A cell that a spreadsheet
 * would run as a formula (one beginning with '=', '+', '-', '@', a tab or
 * a carriage return) gets a leading apostrophe, as OWASP advises, unless
 * it is a plain number such as -3.5, which stays a number.  Every text
 * cell Headroom writes goes through here; numbers are written as numbers. */
void      hr_csv_append_text   (GString    *line,
                                const char *text);

/* Whether @text is a plain decimal number ("-3.5", "1e9"), locale-free. */
gboolean  hr_csv_is_number     (const char *text);

G_END_DECLS
