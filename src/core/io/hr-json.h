/* hr-json.h: strict JSON reading with a position for every value
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

/* HR_ERROR, which every reader here sets, for those that include only this */
#include "hr-error.h"

G_BEGIN_DECLS

/* Scenario and catalog files larger than this are refused before parsing. */
#define HR_JSON_MAX_FILE_SIZE (16 * 1024 * 1024)
/* ... and so are documents of more values than this (the built-in model
 * catalog holds a few thousand): every value keeps its position. */
#define HR_JSON_MAX_VALUES 1000000
/* Levels of nesting a document may have (objects and arrays). */
#define HR_JSON_MAX_DEPTH 64

typedef struct _HrJsonDoc HrJsonDoc;

HrJsonDoc  *hr_json_doc_load_file  (const char   *path,
                                    GError      **error);
HrJsonDoc  *hr_json_doc_load_data  (const char   *display_name,
                                    const char   *data,
                                    gssize        length,
                                    GError      **error);
HrJsonDoc  *hr_json_doc_new_for_node (const char *display_name,
                                      JsonNode   *root);
void        hr_json_doc_free       (HrJsonDoc    *doc);

JsonNode   *hr_json_doc_get_root   (HrJsonDoc    *doc);
const char *hr_json_doc_get_name   (HrJsonDoc    *doc);

/* Positions are kept per JSON pointer ("/model/components/0/params"). */
gboolean    hr_json_doc_get_position (HrJsonDoc  *doc,
                                      const char *pointer,
                                      gboolean    of_key,
                                      guint      *line,
                                      guint      *column);
void        hr_json_doc_set_position (HrJsonDoc  *doc,
                                      const char *pointer,
                                      guint       line,
                                      guint       column);

/* Marks a value as coming from elsewhere than the file ("--set seq_len=x"):
 * errors about it, or anything inside it, name that instead of a position. */
void        hr_json_doc_set_origin   (HrJsonDoc  *doc,
                                      const char *pointer,
                                      const char *origin);

/* Sets @error to "NAME:LINE:COL: message" for the value (or key) at
 * @pointer, falling back to the nearest enclosing value that has one. */
void        hr_json_doc_error      (HrJsonDoc    *doc,
                                    GError      **error,
                                    HrError       code,
                                    const char   *pointer,
                                    gboolean      at_key,
                                    const char   *format,
                                    ...) G_GNUC_PRINTF (6, 7);

char       *hr_json_pointer_append (const char   *pointer,
                                    const char   *key);
char       *hr_json_pointer_append_index (const char *pointer,
                                          guint       index);

/* @text with what must not reach a terminal or a one-line message written
 * as escapes: control characters ("\n", "\x1B"), C1 controls, line and
 * paragraph separators, direction overrides, and bytes that are not UTF-8
 * ("\xFF").  Every message that quotes a file's text goes through it. */
char       *hr_text_printable      (const char   *text,
                                    gssize        length);

char       *hr_json_node_to_string (JsonNode     *node,
                                    gboolean      pretty);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrJsonDoc, hr_json_doc_free)

/* The one formatter of doubles in Headroom's JSON: into @buf (at least
 * G_ASCII_DTOSTR_BUF_SIZE bytes), the shortest decimal text that
 * g_ascii_strtod() reads back as exactly @value (finite), in the C
 * locale's format, with a fraction or an exponent ("2.0", "0.15",
 * "1e+300").  At most three conversions: "%.15g" is already the shortest
 * whenever that has 15 significant digits or fewer (a double is within
 * 2^-53 ≈ 1.1e-16 of it, less than half a unit of the 15th digit,
 * 5e-16, so rounding to 15 digits gives those digits back), else 16 or
 * 17 digits (17 always read back, IEEE 754-2008 §5.12.2). */
void        hr_json_format_double  (char         *buf,
                                    double        value);

G_END_DECLS
