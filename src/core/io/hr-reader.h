/* hr-reader.h: typed, checked reading of JSON objects
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-json.h"
#include "hr-types.h"

G_BEGIN_DECLS

/* Reads the members of one JSON object, checking types and ranges, and
 * reports the first problem as "FILE:LINE:COL: message" at the member. */
typedef struct {
  HrJsonDoc   *doc;
  char        *pointer;
  JsonObject  *object;
  const char  *what;   /* "scenario", "model", "GPU"... for messages */
  GError     **error;
} HrReader;

gboolean  hr_reader_init        (HrReader     *reader,
                                 HrJsonDoc    *doc,
                                 const char   *pointer,
                                 JsonNode     *node,
                                 const char   *what,
                                 GError      **error);
void      hr_reader_clear       (HrReader     *reader);

/* Unknown keys are errors (with the closest known key as a hint), except
 * keys starting with "x-", which are ignored. */
gboolean  hr_reader_check_keys  (HrReader            *reader,
                                 const char * const  *allowed);
gboolean  hr_reader_has         (HrReader     *reader,
                                 const char   *key);
JsonNode *hr_reader_get_node    (HrReader     *reader,
                                 const char   *key);
char     *hr_reader_child_pointer (HrReader   *reader,
                                   const char *key);

gboolean  hr_reader_require     (HrReader     *reader,
                                 const char   *key);
/* The longest text a string key may hold, in characters. */
#define HR_READER_MAX_STRING 4096

gboolean  hr_reader_string      (HrReader     *reader,
                                 const char   *key,
                                 gboolean      required,
                                 char        **out);
gboolean  hr_reader_uint        (HrReader     *reader,
                                 const char   *key,
                                 gboolean      required,
                                 guint64       min,
                                 guint64       max,
                                 guint64      *out);
gboolean  hr_reader_double      (HrReader     *reader,
                                 const char   *key,
                                 gboolean      required,
                                 double        min,
                                 double        max,
                                 double       *out);
gboolean  hr_reader_nullable_double (HrReader *reader,
                                     const char *key,
                                     double      min,
                                     double      max,
                                     double     *out);
gboolean  hr_reader_bool        (HrReader     *reader,
                                 const char   *key,
                                 gboolean     *out);
gboolean  hr_reader_enum        (HrReader          *reader,
                                 const char        *key,
                                 const HrEnumName  *names,
                                 int               *out);
/* An integer, or an array [w, h], as `image_size` is written. */
gboolean  hr_reader_size        (HrReader     *reader,
                                 const char   *key,
                                 guint         max,
                                 guint        *width,
                                 guint        *height);
/* A failure at a member, formatted like the others. */
gboolean  hr_reader_fail        (HrReader     *reader,
                                 const char   *key,
                                 const char   *format,
                                 ...) G_GNUC_PRINTF (3, 4);

/* The candidate closest to @word, for "did you mean" hints; NULL when
 * none is close, or when @word is longer than HR_CLOSEST_WORD_MAX. */
#define HR_CLOSEST_WORD_MAX 128
char     *hr_closest_word       (const char          *word,
                                 const char * const  *candidates);

G_END_DECLS
