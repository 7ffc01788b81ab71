/* hr-cli-json.c: headroom-cli's JSON, a member at a time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "hr-cli-json.h"

void
hr_cli_json_int (JsonBuilder *builder,
                 const char  *name,
                 gint64       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

void
hr_cli_json_double (JsonBuilder *builder,
                    const char  *name,
                    double       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_double_value (builder, value);
}

void
hr_cli_json_bool (JsonBuilder *builder,
                  const char  *name,
                  gboolean     value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_boolean_value (builder, value);
}

void
hr_cli_json_string (JsonBuilder *builder,
                    const char  *name,
                    const char  *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

void
hr_cli_json_begin_object (JsonBuilder *builder,
                          const char  *name)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
}

void
hr_cli_json_begin_array (JsonBuilder *builder,
                         const char  *name)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
}
