/* hr-json.c: strict JSON reading with a position for every value
 *
 * json-glib's parser accepts duplicate keys (the last wins), unknown escapes
 * and numbers that overflow to infinity, and an empty document.  A scenario
 * is a contract other tools write, so Headroom reads it with this small
 * RFC 8259 parser instead, which builds json-glib nodes, rejects all of
 * those with the line and column, and remembers where every value sits so
 * that later checks can point at it too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-json"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "hr-file.h"
#include "hr-json.h"

#define MAX_DEPTH HR_JSON_MAX_DEPTH

/* Longer messages are shortened in the middle. */
#define MAX_MESSAGE_CHARS 600

typedef struct {
  guint line;
  guint column;
  guint key_line;
  guint key_column;
} Position;

struct _HrJsonDoc {
  char       *name;
  JsonNode   *root;
  GHashTable *positions;  /* pointer -> Position */
  GHashTable *origins;    /* pointer -> where a value not from the file came from */
};

typedef struct {
  HrJsonDoc  *doc;
  const char *text;
  const char *end;
  const char *p;
  guint       line;
  guint       depth;
  guint       values;
  GError    **error;
  /* The last column worked out, so that the columns of values met in
   * order cost one pass over the text, not one pass each over their line
   * (a 16 MiB file on one line would otherwise take hours). */
  const char *column_at;
  guint       column;
} Parser;

char *
hr_text_printable (const char *text,
                   gssize      length)
{
  GString *out;
  const char *end;

  g_return_val_if_fail (text != NULL, NULL);

  if (length < 0)
    length = strlen (text);
  end = text + length;
  out = g_string_sized_new (length);

  for (const char *c = text; c < end;)
    {
      gunichar ch = g_utf8_get_char_validated (c, end - c);

      if (ch == (gunichar) -1 || ch == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02X", (guchar) *c);
          c++;
          continue;
        }

      /* Control characters would end the line or drive the terminal, and
       * direction overrides would show the text in another order. */
      if (ch == '\n')
        g_string_append (out, "\\n");
      else if (ch == '\t')
        g_string_append (out, "\\t");
      else if (ch == '\r')
        g_string_append (out, "\\r");
      else if (ch < 0x20 || ch == 0x7F)
        g_string_append_printf (out, "\\x%02X", ch);
      else if ((ch >= 0x80 && ch < 0xA0) || ch == 0x2028 || ch == 0x2029 ||
               (ch >= 0x202A && ch <= 0x202E) || (ch >= 0x2066 && ch <= 0x2069))
        g_string_append_printf (out, "\\u%04X", ch);
      else
        g_string_append_len (out, c, g_utf8_next_char (c) - c);

      c = g_utf8_next_char (c);
    }

  return g_string_free (out, FALSE);
}

/* Sets @error to "@where: @message", made printable (see
 * hr_text_printable()).  A message quoting a megabyte-long key would fill
 * the terminal, so a long one keeps its start (what is wrong) and its end
 * (the hint); @where, the file and position, is always whole. */
static void
set_printable_error (GError     **error,
                     HrError      code,
                     const char  *where,
                     const char  *message)
{
  g_autofree char *place = hr_text_printable (where, -1);
  g_autofree char *text = hr_text_printable (message, -1);
  glong length = g_utf8_strlen (text, -1);

  if (length > MAX_MESSAGE_CHARS)
    {
      const char *head_end = g_utf8_offset_to_pointer (text, MAX_MESSAGE_CHARS / 2);
      const char *tail = g_utf8_offset_to_pointer (text, length - MAX_MESSAGE_CHARS / 4);

      g_set_error (error, HR_ERROR, code, "%s: %.*s … %s", place, (int) (head_end - text), text,
                   tail);
      return;
    }

  g_set_error (error, HR_ERROR, code, "%s: %s", place, text);
}

static guint
column_of (Parser     *self,
           const char *at)
{
  const char *start = at;
  guint column = 1;

  if (self->column_at != NULL && self->column_at <= at)
    {
      start = self->column_at;
      column = self->column;
    }
  else
    {
      while (start > self->text && start[-1] != '\n')
        start--;
    }

  /* Columns count characters, not bytes: skip UTF-8 continuation bytes. */
  for (const char *c = start; c < at; c++)
    {
      if (*c == '\n')
        column = 1;
      else if (((guchar) *c & 0xC0) != 0x80)
        column++;
    }

  self->column_at = at;
  self->column = column;
  return column;
}

static gboolean G_GNUC_PRINTF (3, 4)
fail_at (Parser     *self,
         const char *at,
         const char *format,
         ...)
{
  g_autofree char *message = NULL;
  g_autofree char *where = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  where = g_strdup_printf ("%s:%u:%u", self->doc->name, self->line, column_of (self, at));
  set_printable_error (self->error, HR_ERROR_PARSE, where, message);
  return FALSE;
}

static gboolean G_GNUC_PRINTF (4, 5)
fail_at_line (Parser     *self,
              const char *at,
              guint       line,
              const char *format,
              ...)
{
  g_autofree char *message = NULL;
  g_autofree char *where = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  where = g_strdup_printf ("%s:%u:%u", self->doc->name, line, column_of (self, at));
  set_printable_error (self->error, HR_ERROR_PARSE, where, message);
  return FALSE;
}

static void
skip_whitespace (Parser *self)
{
  while (self->p < self->end)
    {
      char c = *self->p;

      if (c == '\n')
        self->line++;
      else if (c != ' ' && c != '\t' && c != '\r')
        break;
      self->p++;
    }
}

static const char *
describe_char (const char *at,
               char        buf[16])
{
  guchar c = (guchar) *at;

  if (c == '"')
    return "'\"'";
  if (c >= 0x20 && c < 0x7F)
    {
      g_snprintf (buf, 16, "'%c'", c);
      return buf;
    }
  g_snprintf (buf, 16, _("byte 0x%02X"), c);
  return buf;
}

/* Columns are taken when the parser reaches a value or key, in file
 * order; the value itself is recorded once it has been read. */
static void
record (Parser     *self,
        const char *pointer,
        guint       value_line,
        guint       value_column,
        guint       key_line,
        guint       key_column)
{
  Position *pos = g_new0 (Position, 1);

  pos->line = value_line;
  pos->column = value_column;
  pos->key_line = key_line > 0 ? key_line : pos->line;
  pos->key_column = key_line > 0 ? key_column : pos->column;

  g_hash_table_insert (self->doc->positions, g_strdup (pointer), pos);
}

static gboolean parse_value (Parser      *self,
                             const char  *pointer,
                             JsonNode   **out);

static gboolean
parse_hex4 (Parser     *self,
            const char *at,
            gunichar   *out)
{
  gunichar value = 0;

  if (self->end - at < 4)
    return fail_at (self, at, _("incomplete \\u escape in string"));

  for (guint i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (at[i]);

      if (digit < 0)
        return fail_at (self, at + i, _("invalid \\u escape in string: expected four hex digits"));
      value = value * 16 + (gunichar) digit;
    }

  *out = value;
  return TRUE;
}

static gboolean
parse_string (Parser  *self,
              char   **out)
{
  GString *str = g_string_new (NULL);
  const char *start = self->p;
  guint start_line = self->line;

  g_assert (*self->p == '"');
  self->p++;

  while (TRUE)
    {
      guchar c;

      if (self->p >= self->end)
        {
          g_string_free (str, TRUE);
          return fail_at_line (self, start, start_line, _("unterminated string"));
        }

      c = (guchar) *self->p;

      if (c == '"')
        {
          self->p++;
          break;
        }

      if (c == '\n')
        {
          g_string_free (str, TRUE);
          return fail_at (self, start,
                          _("unterminated string (a line break inside a string must be written "
                            "\\n)"));
        }

      if (c < 0x20)
        {
          g_string_free (str, TRUE);
          return fail_at (self, self->p, _("control character 0x%02X inside a string"), c);
        }

      if (c == '\\')
        {
          const char *esc = self->p;
          gunichar ch;

          if (self->p + 1 >= self->end)
            {
              g_string_free (str, TRUE);
              return fail_at (self, start, _("unterminated string"));
            }

          switch (self->p[1])
            {
            case '"': g_string_append_c (str, '"'); break;
            case '\\': g_string_append_c (str, '\\'); break;
            case '/': g_string_append_c (str, '/'); break;
            case 'b': g_string_append_c (str, '\b'); break;
            case 'f': g_string_append_c (str, '\f'); break;
            case 'n': g_string_append_c (str, '\n'); break;
            case 'r': g_string_append_c (str, '\r'); break;
            case 't': g_string_append_c (str, '\t'); break;
            case 'u':
              if (!parse_hex4 (self, self->p + 2, &ch))
                {
                  g_string_free (str, TRUE);
                  return FALSE;
                }
              self->p += 4;
              if (ch >= 0xD800 && ch <= 0xDBFF)
                {
                  gunichar low;

                  if (self->end - self->p < 8 || self->p[2] != '\\' || self->p[3] != 'u' ||
                      !parse_hex4 (self, self->p + 4, &low) || low < 0xDC00 || low > 0xDFFF)
                    {
                      g_clear_error (self->error);
                      g_string_free (str, TRUE);
                      return fail_at (self, esc, _("unpaired UTF-16 surrogate in \\u escape"));
                    }
                  ch = 0x10000 + ((ch - 0xD800) << 10) + (low - 0xDC00);
                  self->p += 6;
                }
              else if (ch >= 0xDC00 && ch <= 0xDFFF)
                {
                  g_string_free (str, TRUE);
                  return fail_at (self, esc, _("unpaired UTF-16 surrogate in \\u escape"));
                }
              if (ch == 0)
                {
                  g_string_free (str, TRUE);
                  return fail_at (self, esc, _("\\u0000 is not allowed in a string"));
                }
              g_string_append_unichar (str, ch);
              break;
            default:
              g_string_free (str, TRUE);
              if ((guchar) self->p[1] >= 0x20 && (guchar) self->p[1] < 0x7F)
                return fail_at (self, esc,
                                _("invalid escape \\%c in string (a backslash is written \\\\)"),
                                self->p[1]);
              return fail_at (self, esc, _("invalid escape in string"));
            }
          self->p += 2;
          continue;
        }

      g_string_append_c (str, (char) c);
      self->p++;
    }

  *out = g_string_free (str, FALSE);
  return TRUE;
}

static gboolean
parse_number (Parser    *self,
              JsonNode **out)
{
  const char *start = self->p;
  const char *q = self->p;
  gboolean is_integer = TRUE;
  g_autofree char *text = NULL;

  if (q < self->end && *q == '-')
    q++;

  if (self->end - q >= 8 && strncmp (q, "Infinity", 8) == 0)
    return fail_at (self, start, _("-Infinity is not a JSON number: write a finite number"));

  if (q >= self->end || !g_ascii_isdigit (*q))
    return fail_at (self, start, _("invalid number: expected a digit"));

  if (*q == '0')
    {
      q++;
      if (q < self->end && g_ascii_isdigit (*q))
        return fail_at (self, start, _("invalid number: leading zeros are not allowed"));
    }
  else
    {
      while (q < self->end && g_ascii_isdigit (*q))
        q++;
    }

  if (q < self->end && *q == '.')
    {
      is_integer = FALSE;
      q++;
      if (q >= self->end || !g_ascii_isdigit (*q))
        return fail_at (self, start, _("invalid number: expected a digit after '.'"));
      while (q < self->end && g_ascii_isdigit (*q))
        q++;
    }

  if (q < self->end && (*q == 'e' || *q == 'E'))
    {
      is_integer = FALSE;
      q++;
      if (q < self->end && (*q == '+' || *q == '-'))
        q++;
      if (q >= self->end || !g_ascii_isdigit (*q))
        return fail_at (self, start, _("invalid number: expected a digit in the exponent"));
      while (q < self->end && g_ascii_isdigit (*q))
        q++;
    }

  if (q < self->end && (g_ascii_isalpha (*q) || *q == '_'))
    return fail_at (self, q, _("invalid number: unexpected '%c' after %.*s"), *q,
                    (int) MIN (q - start, 32), start);

  text = g_strndup (start, q - start);
  self->p = q;

  /* Numbers are parsed with g_ascii_*: the desktop's locale never decides
   * whether "0.5" is a half. */
  if (is_integer)
    {
      char *endptr = NULL;
      gint64 value;

      errno = 0;
      value = g_ascii_strtoll (text, &endptr, 10);
      if (errno == 0 && endptr != NULL && *endptr == '\0')
        {
          *out = json_node_init_int (json_node_alloc (), value);
          return TRUE;
        }
    }

  {
    double value = g_ascii_strtod (text, NULL);

    if (!isfinite (value))
      return fail_at (self, start, _("number %s is out of range"), text);
    *out = json_node_init_double (json_node_alloc (), value);
  }

  return TRUE;
}

static gboolean
parse_literal (Parser     *self,
               const char *word,
               JsonNode  **out)
{
  gsize len = strlen (word);
  const char *start = self->p;

  if ((gsize) (self->end - self->p) < len || strncmp (self->p, word, len) != 0 ||
      (self->p + len < self->end && g_ascii_isalnum (self->p[len])))
    {
      const char *q = self->p;

      while (q < self->end && (g_ascii_isalnum (*q) || *q == '_' || *q == '-'))
        q++;
      return fail_at (self, start,
                      _("unexpected word '%.*s': strings need double quotes, literals are true, "
                        "false and null"),
                      (int) MIN (q - start, 40), start);
    }

  self->p += len;

  if (g_str_equal (word, "true") || g_str_equal (word, "false"))
    *out = json_node_init_boolean (json_node_alloc (), word[0] == 't');
  else
    *out = json_node_init_null (json_node_alloc ());

  return TRUE;
}

static gboolean
parse_object (Parser     *self,
              const char *pointer,
              JsonNode  **out)
{
  g_autoptr(JsonObject) object = json_object_new ();
  const char *open = self->p;
  guint open_line = self->line;

  self->p++;  /* '{' */
  skip_whitespace (self);

  if (self->p < self->end && *self->p == '}')
    {
      self->p++;
      *out = json_node_init_object (json_node_alloc (), object);
      return TRUE;
    }

  while (TRUE)
    {
      g_autofree char *key = NULL;
      g_autofree char *child_pointer = NULL;
      JsonNode *child = NULL;
      const char *key_at;
      guint key_line;
      guint key_column;
      guint value_line;
      guint value_column;
      char buf[16];

      skip_whitespace (self);
      if (self->p >= self->end)
        return fail_at_line (self, open, open_line,
                             _("unterminated object: '{' has no matching '}'"));

      if (*self->p != '"')
        {
          if (*self->p == '}')
            return fail_at (self, self->p, _("trailing comma before '}'"));
          if (*self->p == '/' && self->end - self->p >= 2 &&
              (self->p[1] == '/' || self->p[1] == '*'))
            return fail_at (self, self->p, _("JSON has no comments (a key starting with \"x-\" "
                                             "can hold a note)"));
          return fail_at (self, self->p, _("expected a key in double quotes, found %s%s"),
                          describe_char (self->p, buf),
                          g_ascii_isdigit (*self->p)
                            ? _(" (a decimal comma? JSON numbers use '.')") : "");
        }

      key_at = self->p;
      key_line = self->line;
      key_column = column_of (self, key_at);
      if (!parse_string (self, &key))
        return FALSE;

      if (json_object_has_member (object, key))
        return fail_at_line (self, key_at, key_line, _("duplicate key \"%s\""), key);

      skip_whitespace (self);
      if (self->p >= self->end || *self->p != ':')
        {
          if (self->p >= self->end)
            return fail_at (self, self->p,
                            _("expected ':' after key \"%s\", found the end of the file"), key);
          return fail_at (self, self->p, _("expected ':' after key \"%s\", found %s"), key,
                          describe_char (self->p, buf));
        }
      self->p++;
      skip_whitespace (self);

      child_pointer = hr_json_pointer_append (pointer, key);
      value_line = self->line;
      value_column = column_of (self, self->p);
      if (self->p >= self->end)
        return fail_at (self, self->p, _("expected a value for \"%s\", found the end of the file"),
                        key);
      if (*self->p == '}' || *self->p == ',')
        return fail_at (self, self->p, _("expected a value for \"%s\", found %s"), key,
                        describe_char (self->p, buf));

      if (!parse_value (self, child_pointer, &child))
        return FALSE;

      record (self, child_pointer, value_line, value_column, key_line, key_column);
      json_object_set_member (object, key, child);

      skip_whitespace (self);
      if (self->p >= self->end)
        return fail_at (self, self->p,
                        _("unterminated object: expected ',' or '}' after the value of \"%s\""),
                        key);
      if (*self->p == ',')
        {
          self->p++;
          continue;
        }
      if (*self->p == '}')
        {
          self->p++;
          break;
        }
      return fail_at (self, self->p, _("expected ',' or '}' after the value of \"%s\", found %s"),
                      key,
                      describe_char (self->p, buf));
    }

  *out = json_node_init_object (json_node_alloc (), object);
  return TRUE;
}

static gboolean
parse_array (Parser     *self,
             const char *pointer,
             JsonNode  **out)
{
  g_autoptr(JsonArray) array = json_array_new ();
  guint index = 0;

  self->p++;  /* '[' */
  skip_whitespace (self);

  if (self->p < self->end && *self->p == ']')
    {
      self->p++;
      *out = json_node_init_array (json_node_alloc (), array);
      return TRUE;
    }

  while (TRUE)
    {
      g_autofree char *child_pointer = hr_json_pointer_append_index (pointer, index);
      JsonNode *child = NULL;
      guint value_line;
      guint value_column;
      char buf[16];

      skip_whitespace (self);
      if (self->p >= self->end)
        return fail_at (self, self->p, _("unterminated array: expected a value or ']'"));
      if (*self->p == ']')
        return fail_at (self, self->p, _("trailing comma before ']'"));

      value_line = self->line;
      value_column = column_of (self, self->p);
      if (!parse_value (self, child_pointer, &child))
        return FALSE;
      record (self, child_pointer, value_line, value_column, 0, 0);
      json_array_add_element (array, child);
      index++;

      skip_whitespace (self);
      if (self->p >= self->end)
        return fail_at (self, self->p, _("unterminated array: expected ',' or ']'"));
      if (*self->p == ',')
        {
          self->p++;
          continue;
        }
      if (*self->p == ']')
        {
          self->p++;
          break;
        }
      return fail_at (self, self->p, _("expected ',' or ']' in array, found %s"),
                      describe_char (self->p, buf));
    }

  *out = json_node_init_array (json_node_alloc (), array);
  return TRUE;
}

static gboolean
parse_value (Parser      *self,
             const char  *pointer,
             JsonNode   **out)
{
  gboolean ret;
  char buf[16];

  skip_whitespace (self);

  if (self->p >= self->end)
    return fail_at (self, self->p, _("expected a value, found the end of the file"));

  if (self->depth >= MAX_DEPTH)
    return fail_at (self, self->p, _("nested more than %d levels deep"), MAX_DEPTH);

  if (++self->values > HR_JSON_MAX_VALUES)
    return fail_at (self, self->p, _("more than %d values: larger than any Headroom file can be"),
                    HR_JSON_MAX_VALUES);

  self->depth++;

  switch (*self->p)
    {
    case '{':
      ret = parse_object (self, pointer, out);
      break;
    case '[':
      ret = parse_array (self, pointer, out);
      break;
    case '"':
      {
        char *str = NULL;

        ret = parse_string (self, &str);
        if (ret)
          {
            *out = json_node_init_string (json_node_alloc (), str);
            g_free (str);
          }
      }
      break;
    case 't':
      ret = parse_literal (self, "true", out);
      break;
    case 'f':
      ret = parse_literal (self, "false", out);
      break;
    case 'n':
      ret = parse_literal (self, "null", out);
      break;
    default:
      if (*self->p == '-' || g_ascii_isdigit (*self->p))
        ret = parse_number (self, out);
      else if ((self->end - self->p >= 3 && strncmp (self->p, "NaN", 3) == 0) ||
               (self->end - self->p >= 8 && strncmp (self->p, "Infinity", 8) == 0))
        ret = fail_at (self, self->p, _("%s is not a JSON number: write a finite number"),
                       *self->p == 'N' ? "NaN" : "Infinity");
      else if (*self->p == '/' && self->end - self->p >= 2 &&
               (self->p[1] == '/' || self->p[1] == '*'))
        ret = fail_at (self, self->p, _("JSON has no comments (a key starting with \"x-\" can "
                                        "hold a note)"));
      else if (g_ascii_isalpha (*self->p))
        ret = parse_literal (self, "\x01", out);
      else if (*self->p == '\'')
        ret = fail_at (self, self->p, _("strings need double quotes, not single quotes"));
      else
        ret = fail_at (self, self->p, _("expected a value, found %s"),
                       describe_char (self->p, buf));
      break;
    }

  self->depth--;
  return ret;
}

static void
hr_json_doc_init_common (HrJsonDoc  *doc,
                         const char *display_name)
{
  doc->name = g_strdup (display_name != NULL ? display_name : "<data>");
  doc->positions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  doc->origins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

HrJsonDoc *
hr_json_doc_load_data (const char  *display_name,
                       const char  *data,
                       gssize       length,
                       GError     **error)
{
  g_autoptr(HrJsonDoc) doc = g_new0 (HrJsonDoc, 1);
  const char *invalid = NULL;
  Parser parser = { 0 };
  JsonNode *root = NULL;

  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length < 0)
    length = strlen (data);

  hr_json_doc_init_common (doc, display_name);

  parser.doc = doc;
  parser.text = data;
  parser.end = data + length;
  parser.p = data;
  parser.line = 1;
  parser.error = error;

  if (length > HR_JSON_MAX_FILE_SIZE)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                   _("%s: file is %.0f bytes, more than the %d MiB a JSON file of Headroom can be"),
                   doc->name, (double) length, HR_JSON_MAX_FILE_SIZE / (1024 * 1024));
      return NULL;
    }

  /* Text that is not UTF-8 gets a message saying what it is instead, since
   * "byte 0x00" helps nobody who saved a file from Notepad as "Unicode". */
  if (length >= 2 && (memcmp (data, "\xFF\xFE", 2) == 0 || memcmp (data, "\xFE\xFF", 2) == 0))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_BINARY,
                   "%s:1:1: the file is UTF-16 text (it starts with a UTF-16 byte order mark); "
                   "save it as UTF-8", doc->name);
      return NULL;
    }
  if (length >= 4 && ((data[0] == '\0') != (data[1] == '\0')) &&
      ((data[2] == '\0') != (data[3] == '\0')) && (data[0] == '\0') == (data[2] == '\0'))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_BINARY,
                   "%s:1:1: the file looks like UTF-16 text (every other byte is NUL); "
                   "save it as UTF-8", doc->name);
      return NULL;
    }

  /* A UTF-8 byte order mark is harmless: skip it, and count columns after
   * it as an editor does. */
  if (length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    {
      parser.text += 3;
      parser.p += 3;
    }

  {
    const char *nul = memchr (parser.p, '\0', parser.end - parser.p);

    if (nul != NULL)
      {
        for (const char *c = parser.p; c < nul; c++)
          if (*c == '\n')
            parser.line++;
        fail_at (&parser, nul, _("the file holds a NUL byte: it is binary, not JSON text"));
        if (error != NULL)
          (*error)->code = HR_ERROR_BINARY;
        return NULL;
      }
  }

  if (!g_utf8_validate (parser.p, parser.end - parser.p, &invalid))
    {
      for (const char *c = parser.p; c < invalid; c++)
        if (*c == '\n')
          parser.line++;
      fail_at (&parser, invalid,
               _("invalid UTF-8 (byte 0x%02X): save the file as UTF-8 (this may be Latin-1 or "
                 "Windows-1252 text)"), (guchar) *invalid);
      if (error != NULL)
        (*error)->code = HR_ERROR_BINARY;
      return NULL;
    }

  skip_whitespace (&parser);
  if (parser.p >= parser.end)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_PARSE,
                   _("%s:%u:%u: the file is empty: expected a JSON object"),
                   doc->name, parser.line, column_of (&parser, parser.p));
      return NULL;
    }

  {
    guint value_line = parser.line;
    guint value_column = column_of (&parser, parser.p);

    if (!parse_value (&parser, "", &root))
      return NULL;
    record (&parser, "", value_line, value_column, 0, 0);
  }

  skip_whitespace (&parser);
  if (parser.p < parser.end)
    {
      json_node_unref (root);
      return fail_at (&parser, parser.p,
                      _("unexpected text after the end of the JSON value")), NULL;
    }

  doc->root = root;
  return g_steal_pointer (&doc);
}

HrJsonDoc *
hr_json_doc_load_file (const char  *path,
                       GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;
  const char *data;
  gsize length = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  bytes = hr_file_load (path, HR_JSON_MAX_FILE_SIZE, _("a JSON file of Headroom"), error);
  if (bytes == NULL)
    return NULL;

  data = g_bytes_get_data (bytes, &length);
  return hr_json_doc_load_data (path, data, length, error);
}

HrJsonDoc *
hr_json_doc_new_for_node (const char *display_name,
                          JsonNode   *root)
{
  HrJsonDoc *doc = g_new0 (HrJsonDoc, 1);

  g_return_val_if_fail (root != NULL, NULL);

  hr_json_doc_init_common (doc, display_name);
  doc->root = json_node_ref (root);
  return doc;
}

void
hr_json_doc_free (HrJsonDoc *doc)
{
  if (doc == NULL)
    return;

  g_clear_pointer (&doc->root, json_node_unref);
  g_clear_pointer (&doc->positions, g_hash_table_unref);
  g_clear_pointer (&doc->origins, g_hash_table_unref);
  g_free (doc->name);
  g_free (doc);
}

JsonNode *
hr_json_doc_get_root (HrJsonDoc *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);
  return doc->root;
}

const char *
hr_json_doc_get_name (HrJsonDoc *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);
  return doc->name;
}

gboolean
hr_json_doc_get_position (HrJsonDoc  *doc,
                          const char *pointer,
                          gboolean    of_key,
                          guint      *line,
                          guint      *column)
{
  Position *pos;

  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (pointer != NULL, FALSE);

  pos = g_hash_table_lookup (doc->positions, pointer);
  if (pos == NULL)
    return FALSE;

  if (line != NULL)
    *line = of_key ? pos->key_line : pos->line;
  if (column != NULL)
    *column = of_key ? pos->key_column : pos->column;
  return TRUE;
}

void
hr_json_doc_set_position (HrJsonDoc  *doc,
                          const char *pointer,
                          guint       line,
                          guint       column)
{
  Position *pos = g_new0 (Position, 1);

  g_return_if_fail (doc != NULL);
  g_return_if_fail (pointer != NULL);

  pos->line = pos->key_line = line;
  pos->column = pos->key_column = column;
  g_hash_table_insert (doc->positions, g_strdup (pointer), pos);
}

void
hr_json_doc_error (HrJsonDoc   *doc,
                   GError     **error,
                   HrError      code,
                   const char  *pointer,
                   gboolean     at_key,
                   const char  *format,
                   ...)
{
  g_autofree char *message = NULL;
  g_autofree char *search = NULL;
  g_autofree char *where = NULL;
  guint line = 0;
  guint column = 0;
  va_list args;

  g_return_if_fail (doc != NULL);

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  /* Walk up the pointer until a position (or the command-line option the
   * value came from) is known: a missing key is reported at the object that
   * lacks it. */
  search = g_strdup (pointer != NULL ? pointer : "");
  while (TRUE)
    {
      const char *origin = g_hash_table_lookup (doc->origins, search);
      char *slash;

      if (origin != NULL)
        {
          set_printable_error (error, code, origin, message);
          return;
        }
      if (hr_json_doc_get_position (doc, search, at_key, &line, &column))
        break;
      slash = strrchr (search, '/');
      if (slash == NULL)
        break;
      *slash = '\0';
      at_key = FALSE;
    }

  if (line > 0)
    where = g_strdup_printf ("%s:%u:%u", doc->name, line, column);
  else
    where = g_strdup (doc->name);
  set_printable_error (error, code, where, message);
}

void
hr_json_doc_set_origin (HrJsonDoc  *doc,
                        const char *pointer,
                        const char *origin)
{
  g_return_if_fail (doc != NULL);
  g_return_if_fail (pointer != NULL);
  g_return_if_fail (origin != NULL);

  g_hash_table_insert (doc->origins, g_strdup (pointer), g_strdup (origin));
}

char *
hr_json_pointer_append (const char *pointer,
                        const char *key)
{
  GString *str = g_string_new (pointer);

  g_string_append_c (str, '/');
  /* RFC 6901: '~' is written "~0" and '/' is written "~1". */
  for (const char *c = key; *c != '\0'; c++)
    {
      if (*c == '~')
        g_string_append (str, "~0");
      else if (*c == '/')
        g_string_append (str, "~1");
      else
        g_string_append_c (str, *c);
    }

  return g_string_free (str, FALSE);
}

char *
hr_json_pointer_append_index (const char *pointer,
                              guint       index)
{
  return g_strdup_printf ("%s/%u", pointer, index);
}

void
hr_json_format_double (char   *buf,
                       double  value)
{
  static const char * const formats[] = { NULL, "%.1g", "%.2g", "%.3g", "%.4g", "%.5g",
                                           "%.6g", "%.7g", "%.8g", "%.9g", "%.10g", "%.11g",
                                           "%.12g", "%.13g", "%.14g", "%.15g", "%.16g",
                                           "%.17g" };

  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.15g", value);
  if (g_ascii_strtod (buf, NULL) == value)
    {
      /* its significant digits are the shortest's; written again at that
       * precision, %g picks the same layout (fixed or exponent) as at any
       * other way of finding them */
      guint digits = 0, zeros = 0;
      gboolean leading = TRUE;

      for (const char *c = buf; *c != '\0' && *c != 'e' && *c != 'E'; c++)
        {
          if (!g_ascii_isdigit (*c) || (leading && *c == '0'))
            continue;
          leading = FALSE;
          if (*c == '0')
            zeros++;
          else
            {
              digits += zeros + 1;
              zeros = 0;
            }
        }
      if (digits >= 1 && digits < 15)
        g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, formats[digits], value);
    }
  else
    {
      g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, formats[16], value);
      if (g_ascii_strtod (buf, NULL) != value)
        g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, formats[17], value);
    }

  /* Keep it a JSON number with a fraction or exponent, so that it reads
   * back as a double ("2" would become an integer). */
  if (strpbrk (buf, ".eEn") == NULL)
    strcat (buf, ".0");
}

/* The shortest text that reads back as exactly @value: "0.15", where
 * json-glib writes all 17 digits ("0.14999999999999999"). */
static void
append_shortest_double (GString *out,
                        double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 2];

  hr_json_format_double (buf, value);
  g_string_append (out, buf);
}

char *
hr_json_node_to_string (JsonNode *node,
                        gboolean  pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  GString *out;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);

  /* Rewrite each number with a fraction or an exponent (outside strings)
   * in its shortest form; json-glib's layout is kept as it is. */
  out = g_string_sized_new (strlen (text));
  for (const char *c = text; *c != '\0';)
    {
      if (*c == '"')
        {
          g_string_append_c (out, *c++);
          while (*c != '\0' && *c != '"')
            {
              if (*c == '\\' && c[1] != '\0')
                {
                  g_string_append_len (out, c, 2);
                  c += 2;
                }
              /* json-glib 1.6 writes U+001F as it is, which no JSON
               * reader (ours included) accepts: escape every control
               * character it left. */
              else if ((guchar) *c < 0x20)
                g_string_append_printf (out, "\\u%04x", (guchar) *c++);
              else
                g_string_append_c (out, *c++);
            }
          if (*c == '"')
            g_string_append_c (out, *c++);
        }
      else if (*c == '-' || g_ascii_isdigit (*c))
        {
          const char *start = c;

          while (*c == '-' || *c == '+' || *c == '.' || *c == 'e' || *c == 'E' ||
                 g_ascii_isdigit (*c))
            c++;
          if (memchr (start, '.', c - start) != NULL || memchr (start, 'e', c - start) != NULL ||
              memchr (start, 'E', c - start) != NULL)
            {
              g_autofree char *number = g_strndup (start, c - start);

              append_shortest_double (out, g_ascii_strtod (number, NULL));
            }
          else
            g_string_append_len (out, start, c - start);
        }
      else
        g_string_append_c (out, *c++);
    }

  return g_string_free (out, FALSE);
}
