/* hr-reader.c: typed, checked reading of JSON objects
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <inttypes.h>

#define G_LOG_DOMAIN "hr-reader"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <string.h>

#include "hr-reader.h"

static const char *
node_type_name (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    return _("an object");
  if (JSON_NODE_HOLDS_ARRAY (node))
    return _("an array");
  if (JSON_NODE_HOLDS_NULL (node))
    return _("null");

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return _("a string");
    case G_TYPE_BOOLEAN:
      return _("a boolean");
    case G_TYPE_INT64:
      return _("an integer");
    case G_TYPE_DOUBLE:
      return _("a number");
    default:
      return _("a value");
    }
}

gboolean
hr_reader_init (HrReader    *reader,
                HrJsonDoc   *doc,
                const char  *pointer,
                JsonNode    *node,
                const char  *what,
                GError     **error)
{
  g_return_val_if_fail (reader != NULL, FALSE);
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  memset (reader, 0, sizeof *reader);
  reader->doc = doc;
  reader->pointer = g_strdup (pointer);
  reader->what = what;
  reader->error = error;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      hr_json_doc_error (doc, error, HR_ERROR_INVALID, pointer, FALSE,
                         _("%s must be a JSON object, not %s"), what, node_type_name (node));
      /* a reader that failed to start needs no hr_reader_clear() */
      g_clear_pointer (&reader->pointer, g_free);
      return FALSE;
    }

  reader->object = json_node_get_object (node);
  return TRUE;
}

void
hr_reader_clear (HrReader *reader)
{
  g_clear_pointer (&reader->pointer, g_free);
}

char *
hr_reader_child_pointer (HrReader   *reader,
                         const char *key)
{
  return hr_json_pointer_append (reader->pointer, key);
}

gboolean
hr_reader_fail (HrReader   *reader,
                const char *key,
                const char *format,
                ...)
{
  g_autofree char *message = NULL;
  g_autofree char *pointer = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  pointer = key != NULL ? hr_reader_child_pointer (reader, key) : g_strdup (reader->pointer);
  hr_json_doc_error (reader->doc, reader->error, HR_ERROR_INVALID, pointer, FALSE, "%s", message);
  return FALSE;
}

static guint
edit_distance (const char *a,
               const char *b)
{
  gsize la = strlen (a);
  gsize lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = j;

  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];

      row[0] = i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint cost = g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 1]) ? 0 : 1;

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diag + cost);
          diag = up;
        }
    }

  return row[lb];
}

/* The candidate within a third of the word's length in edits, if any. */
char *
hr_closest_word (const char         *word,
                 const char * const *candidates)
{
  const char *best = NULL;
  guint best_distance = G_MAXUINT;
  guint limit = MAX (2, strlen (word) / 3);

  /* No key or id is this long: a hint would cost time (the distance is
   * quadratic) and help nobody. */
  if (strlen (word) > HR_CLOSEST_WORD_MAX)
    return NULL;

  for (guint i = 0; candidates[i] != NULL; i++)
    {
      guint d = edit_distance (word, candidates[i]);

      /* A word that begins the typed one, or that the typed one begins,
       * is a good guess too ("training" for "train"). */
      if (strlen (candidates[i]) >= 3 && strlen (word) >= 3 &&
          (g_str_has_prefix (word, candidates[i]) || g_str_has_prefix (candidates[i], word)))
        d = MIN (d, 1);

      if (d < best_distance)
        {
          best_distance = d;
          best = candidates[i];
        }
    }

  if (best != NULL && best_distance <= limit)
    return g_strdup (best);
  return NULL;
}

gboolean
hr_reader_check_keys (HrReader           *reader,
                      const char * const *allowed)
{
  g_autoptr(GList) members = json_object_get_members (reader->object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;
      g_autofree char *pointer = NULL;
      g_autofree char *hint = NULL;

      if (g_str_has_prefix (key, "x-") || g_strv_contains (allowed, key))
        continue;

      pointer = hr_reader_child_pointer (reader, key);
      hint = hr_closest_word (key, allowed);
      if (hint != NULL)
        hr_json_doc_error (reader->doc, reader->error, HR_ERROR_INVALID, pointer, TRUE,
                           _("unknown key \"%s\" in %s; did you mean \"%s\"?"),
                           key, reader->what, hint);
      else
        hr_json_doc_error (reader->doc, reader->error, HR_ERROR_INVALID, pointer, TRUE,
                           _("unknown key \"%s\" in %s (keys starting with \"x-\" are ignored)"),
                           key, reader->what);
      return FALSE;
    }

  return TRUE;
}

gboolean
hr_reader_has (HrReader   *reader,
               const char *key)
{
  return json_object_has_member (reader->object, key);
}

JsonNode *
hr_reader_get_node (HrReader   *reader,
                    const char *key)
{
  return json_object_get_member (reader->object, key);
}

gboolean
hr_reader_require (HrReader   *reader,
                   const char *key)
{
  if (hr_reader_has (reader, key))
    return TRUE;

  hr_json_doc_error (reader->doc, reader->error, HR_ERROR_INVALID, reader->pointer, FALSE,
                     _("%s is missing the required key \"%s\""), reader->what, key);
  return FALSE;
}

gboolean
hr_reader_string (HrReader    *reader,
                  const char  *key,
                  gboolean     required,
                  char       **out)
{
  JsonNode *node = hr_reader_get_node (reader, key);

  if (node == NULL)
    return required ? hr_reader_require (reader, key) : TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return hr_reader_fail (reader, key, _("\"%s\" must be a string, not %s"), key,
                           node_type_name (node));

  /* Names, ids and sources end up in tables, labels and reports: a
   * megabyte in one of them would be laid out on every redraw. */
  if (g_utf8_strlen (json_node_get_string (node), HR_READER_MAX_STRING * 4 + 4) >
      HR_READER_MAX_STRING)
    return hr_reader_fail (reader, key, _("\"%s\" is longer than the %d characters a text "
                                          "here may have"), key, HR_READER_MAX_STRING);

  g_free (*out);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* Integers may be written as 7e9 or 7000000000.0 too: sizes are often typed
 * that way.  Anything with a fraction is refused. */
static gboolean
node_to_integer (JsonNode *node,
                 double   *out)
{
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  if (json_node_get_value_type (node) == G_TYPE_INT64)
    {
      *out = (double) json_node_get_int (node);
      return TRUE;
    }

  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      double v = json_node_get_double (node);

      if (isfinite (v) && v == floor (v))
        {
          *out = v;
          return TRUE;
        }
    }

  return FALSE;
}

gboolean
hr_reader_uint (HrReader   *reader,
                const char *key,
                gboolean    required,
                guint64     min,
                guint64     max,
                guint64    *out)
{
  JsonNode *node = hr_reader_get_node (reader, key);
  double value;

  if (node == NULL)
    return required ? hr_reader_require (reader, key) : TRUE;

  if (!node_to_integer (node, &value))
    {
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE)
        return hr_reader_fail (reader, key, _("\"%s\" must be a whole number, not %s"), key,
                               g_ascii_dtostr ((char[G_ASCII_DTOSTR_BUF_SIZE]) { 0 },
                                               G_ASCII_DTOSTR_BUF_SIZE,
                                               json_node_get_double (node)));
      return hr_reader_fail (reader, key, _("\"%s\" must be an integer, not %s"), key,
                             node_type_name (node));
    }

  if (value < (double) min || value > (double) max)
    {
      char shown[G_ASCII_DTOSTR_BUF_SIZE];

      /* 1e+30 rather than the 31 digits of the nearest double. */
      g_ascii_formatd (shown, sizeof shown, fabs (value) < 1e15 ? "%.0f" : "%g", value);
      if (min == max)
        return hr_reader_fail (reader, key, _("\"%s\" must be %" PRIu64 ", not %s"),
                               key, (uint64_t) min, shown);
      if (max == G_MAXUINT64 || max >= (guint64) 1 << 53)
        return hr_reader_fail (reader, key,
                               _("\"%s\" must be at least %" PRIu64 ", not %s"),
                               key, (uint64_t) min, shown);
      return hr_reader_fail (reader, key,
                             _("\"%s\" must be between %" PRIu64 " and %" PRIu64 ", not %s"),
                             key, (uint64_t) min, (uint64_t) max, shown);
    }

  *out = (guint64) value;
  return TRUE;
}

gboolean
hr_reader_double (HrReader   *reader,
                  const char *key,
                  gboolean    required,
                  double      min,
                  double      max,
                  double     *out)
{
  JsonNode *node = hr_reader_get_node (reader, key);
  double value;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];

  if (node == NULL)
    return required ? hr_reader_require (reader, key) : TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_DOUBLE &&
       json_node_get_value_type (node) != G_TYPE_INT64))
    return hr_reader_fail (reader, key, _("\"%s\" must be a number, not %s"), key,
                           node_type_name (node));

  value = json_node_get_double (node);
  if (value < min || value > max)
    return hr_reader_fail (reader, key, _("\"%s\" must be between %s and %s, not %s"), key,
                           g_ascii_formatd (a, sizeof a, "%g", min),
                           g_ascii_formatd (b, sizeof b, "%g", max),
                           g_ascii_formatd (c, sizeof c, "%g", value));

  *out = value;
  return TRUE;
}

gboolean
hr_reader_nullable_double (HrReader   *reader,
                           const char *key,
                           double      min,
                           double      max,
                           double     *out)
{
  JsonNode *node = hr_reader_get_node (reader, key);

  if (node != NULL && JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  return hr_reader_double (reader, key, FALSE, min, max, out);
}

gboolean
hr_reader_bool (HrReader   *reader,
                const char *key,
                gboolean   *out)
{
  JsonNode *node = hr_reader_get_node (reader, key);

  if (node == NULL)
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return hr_reader_fail (reader, key, _("\"%s\" must be true or false, not %s"), key,
                           node_type_name (node));

  *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
hr_reader_enum (HrReader         *reader,
                const char       *key,
                const HrEnumName *names,
                int              *out)
{
  g_autofree char *value = NULL;
  g_autofree char *accepted = NULL;
  g_autoptr(GPtrArray) nicks = NULL;
  g_autofree char *hint = NULL;

  if (!hr_reader_string (reader, key, FALSE, &value))
    return FALSE;
  if (value == NULL)
    return TRUE;

  if (hr_enum_from_nick (names, value, out))
    return TRUE;

  accepted = hr_enum_list_nicks (names);
  nicks = g_ptr_array_new ();
  for (guint i = 0; names[i].nick != NULL; i++)
    g_ptr_array_add (nicks, (gpointer) names[i].nick);
  g_ptr_array_add (nicks, NULL);
  hint = hr_closest_word (value, (const char * const *) nicks->pdata);

  if (hint != NULL)
    return hr_reader_fail (reader, key, _("\"%s\" is \"%s\"; did you mean \"%s\"? (accepted: %s)"),
                           key, value, hint, accepted);
  return hr_reader_fail (reader, key, _("\"%s\" must be %s, not \"%s\""), key, accepted, value);
}

gboolean
hr_reader_size (HrReader   *reader,
                const char *key,
                guint       max,
                guint      *width,
                guint      *height)
{
  JsonNode *node = hr_reader_get_node (reader, key);
  double w, h;

  if (node == NULL)
    return TRUE;

  if (node_to_integer (node, &w))
    {
      if (w < 1 || w > max)
        return hr_reader_fail (reader, key, _("\"%s\" must be between 1 and %u pixels, not %.0f"),
                               key, max, w);
      *width = *height = (guint) w;
      return TRUE;
    }

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      if (json_array_get_length (array) == 2 &&
          node_to_integer (json_array_get_element (array, 0), &w) &&
          node_to_integer (json_array_get_element (array, 1), &h))
        {
          if (w < 1 || h < 1 || w > max || h > max)
            return hr_reader_fail (reader, key,
                                   _("\"%s\" must be between 1 and %u pixels on each side"),
                                   key, max);
          *width = (guint) w;
          *height = (guint) h;
          return TRUE;
        }
    }

  return hr_reader_fail (reader, key,
                         _("\"%s\" must be an integer or an array [width, height], not %s"),
                         key, node_type_name (node));
}
