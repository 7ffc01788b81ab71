/* hr-cli-json.h: headroom-cli's JSON, a member at a time
 *
 * Every command's --json output goes through these: a member's name and
 * its value in one call.  The commands that print one document build it
 * with json-glib's builder (hr_cli_json_*); `measure`, which may print a
 * log of millions of points, writes as it goes, in bounded memory
 * (HrCliWriter, hr_cli_writer_*), in the same layout.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdio.h>

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

/* JSON written as it goes.  The layout is json-glib's
 * (hr_json_node_to_string): two spaces of indent, "key" : value, numbers
 * with a fraction in their shortest form; strings escaped as headroom-cli
 * escapes text (what could drive a terminal never reaches it). */
#define HR_CLI_WRITER_MAX_DEPTH 16

typedef struct {
  FILE     *out;
  GString  *buf;                               /* written out in 64 KiB pieces */
  guint     depth;
  gboolean  empty[HR_CLI_WRITER_MAX_DEPTH];    /* nothing written yet at that depth */
  gboolean  after_member;                      /* a member's name was just written */
} HrCliWriter;

void hr_cli_writer_init           (HrCliWriter *writer,
                                   FILE        *out);
/* What is left written out, and the writer's buffer freed. */
void hr_cli_writer_finish         (HrCliWriter *writer);
void hr_cli_writer_flush          (HrCliWriter *writer);

/* '{' or '[' */
void hr_cli_writer_open           (HrCliWriter *writer,
                                   char         bracket);
void hr_cli_writer_close          (HrCliWriter *writer,
                                   char         bracket);
/* A member's name; its value follows. */
void hr_cli_writer_member         (HrCliWriter *writer,
                                   const char  *name);
/* A value (an array's element, or a member's after hr_cli_writer_member);
 * a NULL string and a double that is not finite are null. */
void hr_cli_writer_add_string     (HrCliWriter *writer,
                                   const char  *value);
void hr_cli_writer_add_int        (HrCliWriter *writer,
                                   gint64       value);
void hr_cli_writer_add_bool       (HrCliWriter *writer,
                                   gboolean     value);
void hr_cli_writer_add_null       (HrCliWriter *writer);
void hr_cli_writer_add_double     (HrCliWriter *writer,
                                   double       value);

/* Members: a size (an integer of bytes; NAN or beyond 9e18 is null), a
 * double, a double that is null when NAN, a string, a string or null. */
void hr_cli_writer_int            (HrCliWriter *writer,
                                   const char  *name,
                                   double       value);
void hr_cli_writer_double         (HrCliWriter *writer,
                                   const char  *name,
                                   double       value);
void hr_cli_writer_nullable       (HrCliWriter *writer,
                                   const char  *name,
                                   double       value);
void hr_cli_writer_string         (HrCliWriter *writer,
                                   const char  *name,
                                   const char  *value);
void hr_cli_writer_string_or_null (HrCliWriter *writer,
                                   const char  *name,
                                   const char  *value);

G_END_DECLS
