/* hr-cli-json.h: headroom-cli's JSON, a member at a time
 *
 * Every command's --json output is built with these: a member's name and
 * its value in one call, as json-glib's builder writes them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

void hr_cli_json_int          (JsonBuilder *builder,
                               const char  *name,
                               gint64       value);
void hr_cli_json_double       (JsonBuilder *builder,
                               const char  *name,
                               double       value);
void hr_cli_json_bool         (JsonBuilder *builder,
                               const char  *name,
                               gboolean     value);
void hr_cli_json_string       (JsonBuilder *builder,
                               const char  *name,
                               const char  *value);
/* A member whose value is an object or an array, begun: end it with
 * json_builder_end_object() or json_builder_end_array(). */
void hr_cli_json_begin_object (JsonBuilder *builder,
                               const char  *name);
void hr_cli_json_begin_array  (JsonBuilder *builder,
                               const char  *name);

G_END_DECLS
