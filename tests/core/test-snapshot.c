/* test-snapshot.c: the pickle reader and PyTorch memory snapshots
 *
 * The snapshots are written at build time by
 * tests/data/make-snapshots.py, which also writes what Headroom must
 * read from each (NAME.expected.json), kept by its model of the allocator
 * as it ran.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"

static char *
snapshot_path (const char *name)
{
  const char *dir = g_getenv ("HEADROOM_SNAPSHOT_DATA");

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static GBytes *
read_bytes (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &data, &length, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (data, length);
}

static HrPickle *
parse (const guint8 *data,
       gsize         length,
       GError      **error)
{
  return hr_pickle_parse ("t.pickle", data, length, NULL, error);
}

#define PARSE_OK(literal) parse_ok ((const guint8 *) (literal), sizeof (literal) - 1)

static HrPickle *
parse_ok (const guint8 *data,
          gsize         length)
{
  g_autoptr(GError) error = NULL;
  HrPickle *p = parse (data, length, &error);

  g_assert_no_error (error);
  g_assert_nonnull (p);
  return p;
}

/* Refused, with a message that contains @want. */
static void
refused (const char *data,
         gsize       length,
         const char *want)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HrPickle) p = parse ((const guint8 *) data, length, &error);

  g_assert_null (p);
  g_assert_error (error, HR_ERROR, error->code);
  if (strstr (error->message, want) == NULL)
    g_error ("expected \"%s\" in: %s", want, error->message);
}

#define REFUSED(literal, want) refused ((literal), sizeof (literal) - 1, (want))
#define CASE(literal, want) { (literal), sizeof (literal) - 1, (want) }

/* A reader's hook: every list stored in another becomes a reduced value
 * numbering it, and is freed. */
typedef struct {
  guint reduced;
  guint reused;
} Hooks;

static gboolean
reduce_lists_cb (guint32              parent_kind,
                 const HrPickleValue *key,
                 HrPickleValue       *value,
                 gpointer             user_data)
{
  Hooks *hooks = user_data;

  if (value->kind != HR_PICKLE_LIST)
    return FALSE;
  value->kind = HR_PICKLE_REDUCED;
  value->length = 7;
  value->v.integer = hooks->reduced++;
  return TRUE;
}

static void
reused_cb (const HrPickleValue *value,
           gpointer             user_data)
{
  Hooks *hooks = user_data;

  g_assert_cmpint (value->kind, ==, HR_PICKLE_REDUCED);
  hooks->reused++;
}

static HrPickle *
parse_reduced (const char *data,
               gsize       length,
               Hooks      *hooks)
{
  g_autoptr(GError) error = NULL;
  HrPickleOptions options = { NULL, reduce_lists_cb, reused_cb, hooks, FALSE };
  HrPickle *p;

  memset (hooks, 0, sizeof *hooks);
  p = hr_pickle_parse_full ("t.pickle", (const guint8 *) data, length, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (p);
  return p;
}

#define PARSE_REDUCED(literal, hooks) parse_reduced ((literal), sizeof (literal) - 1, (hooks))

static void
test_pickle_reduce (void)
{
  Hooks hooks;
  const HrPickleValue *items;
  guint n;

  /* [[1, 2] (memo 1), then memo 1 again]: the inner list is reduced as
   * it is stored, and the memo gives out its replacement */
  {
    g_autoptr(HrPickle) p = PARSE_REDUCED ("\x80\x04]\x94]\x94(K\x01K\x02" "eah\x01" "a.",
                                           &hooks);

    items = hr_pickle_items (hr_pickle_get_root (p), &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (hooks.reduced, ==, 1);
    g_assert_cmpuint (hooks.reused, ==, 1);
    for (guint i = 0; i < 2; i++)
      {
        g_assert_cmpint (items[i].kind, ==, HR_PICKLE_REDUCED);
        g_assert_cmpuint (items[i].length, ==, 7);
        g_assert_cmpint (items[i].v.integer, ==, 0);
      }
  }

  /* fetched again (or DUP'ed) before it is stored: shared, kept whole */
  {
    g_autoptr(HrPickle) p = PARSE_REDUCED ("\x80\x04]\x94(]\x94K\x01" "ah\x01" "e.", &hooks);

    items = hr_pickle_items (hr_pickle_get_root (p), &n);
    g_assert_cmpuint (hooks.reduced, ==, 0);
    g_assert_cmpint (items[0].kind, ==, HR_PICKLE_LIST);
    g_assert_true (items[0].v.container == items[1].v.container);
  }
  {
    g_autoptr(HrPickle) p = PARSE_REDUCED ("\x80\x04](]2e.", &hooks);

    items = hr_pickle_items (hr_pickle_get_root (p), &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (hooks.reduced, ==, 0);
  }

  /* in two memo entries: not offered */
  {
    g_autoptr(HrPickle) p = PARSE_REDUCED ("\x80\x04](]\x94\x94" "e.", &hooks);

    g_assert_cmpuint (hooks.reduced, ==, 0);
  }

  /* its memo entry set again to something else (PUT 1 over it): that
   * entry keeps the other value */
  {
    g_autoptr(HrPickle) p = PARSE_REDUCED ("\x80\x04]\x94(]q\x01K\x05q\x01" "0eh\x01" "a.",
                                           &hooks);

    items = hr_pickle_items (hr_pickle_get_root (p), &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (hooks.reduced, ==, 1);
    g_assert_cmpuint (hooks.reused, ==, 0);
    g_assert_cmpint (items[0].kind, ==, HR_PICKLE_REDUCED);
    g_assert_cmpint (items[1].kind, ==, HR_PICKLE_INT);
    g_assert_cmpint (items[1].v.integer, ==, 5);
  }
}

/* What the values hold: a reduced container's room is given back, and
 * freed containers are made again. */
static void
test_pickle_kept_bytes (void)
{
  g_autoptr(GString) data = g_string_new ("\x80\x04]\x94(");
  g_autoptr(HrPickle) whole = NULL;
  g_autoptr(HrPickle) reduced = NULL;
  HrPickleOptions options = { NULL, reduce_lists_cb, NULL, NULL, FALSE };
  Hooks hooks = { 0 };
  guint64 whole_bytes, reduced_bytes;

  options.user_data = &hooks;
  /* 10,000 lists of 30 integers in one list */
  for (guint i = 0; i < 10000; i++)
    {
      g_string_append (data, "]\x94(");
      for (guint j = 0; j < 30; j++)
        g_string_append (data, "K\x07");
      g_string_append (data, "e");
    }
  g_string_append (data, "e.");

  whole = hr_pickle_parse ("t.pickle", (const guint8 *) data->str, data->len, NULL, NULL);
  reduced = hr_pickle_parse_full ("t.pickle", (const guint8 *) data->str, data->len, &options,
                                  NULL);
  g_assert_nonnull (whole);
  g_assert_nonnull (reduced);
  g_assert_cmpuint (hooks.reduced, ==, 10000);
  whole_bytes = hr_pickle_get_kept_bytes (whole);
  reduced_bytes = hr_pickle_get_kept_bytes (reduced);
  /* 10,001 containers and 310,000 values, against one list of 10,000 */
  g_assert_cmpuint (whole_bytes, >=, 310000 * sizeof (HrPickleValue));
  g_assert_cmpuint (reduced_bytes, <=, 10000 * sizeof (HrPickleValue) + 4096);
}

/* Every opcode that would import, call or fetch is refused by name, at
 * its offset, whatever follows it. */
static void
test_pickle_refuses_code (void)
{
  static const struct {
    const char *bytes;
    gsize       length;
    const char *want;
  } cases[] = {
    CASE ("\x80\x02" "cposix\nsystem\n", "byte 2: opcode GLOBAL (0x63) would import posix.system"),
    CASE ("\x80\x02" "c", "byte 2: opcode GLOBAL (0x63) would import a Python name"),
    CASE ("\x80\x04" "\x93", "byte 2: opcode STACK_GLOBAL (0x93)"),
    CASE ("\x80\x02" "NN" "R", "byte 4: opcode REDUCE (0x52) would call"),
    CASE ("\x80\x02" "}}" "b", "byte 4: opcode BUILD (0x62)"),
    CASE ("\x80\x02" "(" "iposix\nsystem\n",
          "byte 3: opcode INST (0x69) would import posix.system"),
    CASE ("\x80\x02" "(N" "o", "byte 4: opcode OBJ (0x6F)"),
    CASE ("\x80\x02" "N)" "\x81", "byte 4: opcode NEWOBJ (0x81)"),
    CASE ("\x80\x04" "N)}" "\x92", "byte 5: opcode NEWOBJ_EX (0x92)"),
    CASE ("\x80\x02" "\x82\x01", "byte 2: opcode EXT1 (0x82)"),
    CASE ("\x80\x02" "\x83\x01\x00", "byte 2: opcode EXT2 (0x83)"),
    CASE ("\x80\x02" "\x84\x01\x00\x00\x00", "byte 2: opcode EXT4 (0x84)"),
    CASE ("\x80\x02" "P1\n", "byte 2: opcode PERSID (0x50)"),
    CASE ("\x80\x02" "N" "Q", "byte 3: opcode BINPERSID (0x51)"),
    CASE ("\x80\x05" "\x97", "byte 2: opcode NEXT_BUFFER (0x97)"),
    CASE ("\x80\x05" "N" "\x98", "byte 3: opcode READONLY_BUFFER (0x98)"),
    CASE ("\x80\x04" "\x8f", "byte 2: opcode EMPTY_SET (0x8F) makes a set"),
    CASE ("\x80\x04" "(" "\x91", "byte 3: opcode FROZENSET (0x91)"),
    CASE ("\x80\x02" "I1\n.", "byte 2: opcode INT (0x49) belongs to pickle protocols 0 and 1"),
    CASE ("\x80\x02" "p0\n", "byte 2: opcode PUT (0x70) belongs to"),
    CASE ("\x80\x02" "U\x01" "a.", "byte 2: opcode SHORT_BINSTRING (0x55) belongs to"),
    CASE ("\x80\x02" "\xff", "byte 2: 0xFF is no pickle opcode"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    refused (cases[i].bytes, cases[i].length, cases[i].want);
}

/* A pickle whose REDUCE would run a shell command is refused, and the
 * command never runs: the file it would make is not there. */
static void
test_pickle_runs_nothing (void)
{
  g_autofree char *bad = g_build_filename (g_getenv ("HEADROOM_MEASURE_DATA"), "bad",
                                           "reduce.pickle", NULL);
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *marker = g_build_filename (cwd, "headroom-pickle-ran-me", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrMeasurement) m = NULL;

  g_unlink (marker);
  m = hr_measurement_load_file (bad, NULL, &error);
  g_assert_null (m);
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "byte 2: opcode GLOBAL (0x63) would import "
                                            "posix.system"));
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));

  /* REDUCE itself, on plain values, at its own offset */
  REFUSED ("\x80\x04\x8c\x08segments)R.", "byte 13: opcode REDUCE (0x52)");
}

static void
test_pickle_protocols (void)
{
  g_autoptr(HrPickle) p2 = PARSE_OK ("\x80\x02N.");
  g_autoptr(HrPickle) p5 = PARSE_OK ("\x80\x05N.");

  g_assert_cmpuint (hr_pickle_get_protocol (p2), ==, 2);
  g_assert_cmpuint (hr_pickle_get_protocol (p5), ==, 5);
  g_assert_cmpint (hr_pickle_get_root (p5)->kind, ==, HR_PICKLE_NONE);
  REFUSED ("\x80\x01N.", "byte 0: pickle protocol 1");
  REFUSED ("\x80\x06N.", "byte 0: pickle protocol 6");
  REFUSED ("(dp0\n.", "byte 0: not a pickle of protocol 2 to 5");
  REFUSED ("\x80", "not a pickle of protocol 2 to 5");
  REFUSED ("\x80\x02", "before the pickle's STOP");
  REFUSED ("\x80\x02.", "STOP needs 1 values on the stack and finds 0");
}

static gint64
int_at (const HrPickleValue *list,
        guint                i)
{
  guint n;
  const HrPickleValue *items = hr_pickle_items (list, &n);

  g_assert_cmpuint (i, <, n);
  g_assert_cmpint (items[i].kind, ==, HR_PICKLE_INT);
  return items[i].v.integer;
}

/* What Python pickled (make-snapshots.py, kinds-pN.pickle) reads back. */
static void
test_pickle_kinds (void)
{
  for (guint protocol = 2; protocol <= 5; protocol++)
    {
      g_autofree char *name = g_strdup_printf ("kinds-p%u.pickle", protocol);
      g_autofree char *path = snapshot_path (name);
      g_autoptr(GBytes) bytes = read_bytes (path);
      g_autoptr(HrPickle) p = parse_ok (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
      const HrPickleValue *root = hr_pickle_get_root (p);
      const HrPickleValue *ints, *big, *floats, *text, *tuples, *nested, *shared, *v, *items;
      static const gint64 want_ints[] = {
        0, 1, -1, 255, 256, 65535, 65536, -(G_GINT64_CONSTANT (1) << 31),
        (G_GINT64_CONSTANT (1) << 31) - 1, G_GINT64_CONSTANT (1) << 31,
        G_GINT64_CONSTANT (1) << 40, G_MAXINT64, G_MININT64,
      };
      guint n;

      g_assert_cmpuint (hr_pickle_get_protocol (p), ==, protocol);
      g_assert_cmpint (root->kind, ==, HR_PICKLE_DICT);
      g_assert_cmpint (hr_pickle_dict_get (root, "none")->kind, ==, HR_PICKLE_NONE);
      g_assert_true (hr_pickle_dict_get (root, "true")->v.boolean);
      g_assert_false (hr_pickle_dict_get (root, "false")->v.boolean);
      g_assert_null (hr_pickle_dict_get (root, "absent"));

      ints = hr_pickle_dict_get (root, "ints");
      hr_pickle_items (ints, &n);
      g_assert_cmpuint (n, ==, G_N_ELEMENTS (want_ints));
      for (guint i = 0; i < n; i++)
        g_assert_cmpint (int_at (ints, i), ==, want_ints[i]);

      big = hr_pickle_dict_get (root, "big");
      items = hr_pickle_items (big, &n);
      g_assert_cmpuint (n, ==, 3);
      for (guint i = 0; i < n; i++)
        g_assert_cmpint (items[i].kind, ==, HR_PICKLE_BIG_INT);
      g_assert_cmpfloat (items[0].v.real, ==, 9223372036854775808.0);
      g_assert_cmpfloat (items[1].v.real, ==, ldexp (1, 100));
      g_assert_cmpfloat (items[2].v.real, ==, -ldexp (1, 100) - 7);

      floats = hr_pickle_dict_get (root, "float");
      items = hr_pickle_items (floats, &n);
      g_assert_cmpuint (n, ==, 4);
      g_assert_cmpfloat (items[0].v.real, ==, 1.5);
      g_assert_cmpfloat (items[1].v.real, ==, -0.1);
      g_assert_cmpfloat (items[2].v.real, ==, 1e300);
      g_assert_cmpfloat (items[3].v.real, ==, 5e-324);

      text = hr_pickle_dict_get (root, "text");
      items = hr_pickle_items (text, &n);
      g_assert_cmpuint (n, ==, 3);
      g_assert_true (hr_pickle_is_string (&items[0], ""));
      g_assert_true (hr_pickle_is_string (&items[1], "ümlaut ☃"));
      g_assert_cmpuint (items[2].length, ==, 300);

      if (protocol >= 3)
        {
          items = hr_pickle_items (hr_pickle_dict_get (root, "bytes"), &n);
          g_assert_cmpuint (n, ==, 3);
          g_assert_cmpint (items[1].kind, ==, HR_PICKLE_BYTES);
          g_assert_cmpuint (items[1].length, ==, 2);
          g_assert_cmpuint ((guchar) items[1].v.text[1], ==, 0xff);
          g_assert_cmpuint (items[2].length, ==, 512);
        }
      if (protocol == 5)
        {
          v = hr_pickle_dict_get (root, "bytearray");
          g_assert_cmpint (v->kind, ==, HR_PICKLE_BYTES);
          g_assert_cmpuint (v->length, ==, 3);
        }

      tuples = hr_pickle_dict_get (root, "tuples");
      items = hr_pickle_items (tuples, &n);
      g_assert_cmpuint (n, ==, 5);
      for (guint i = 0; i < n; i++)
        {
          guint length;

          g_assert_cmpint (items[i].kind, ==, HR_PICKLE_TUPLE);
          hr_pickle_items (&items[i], &length);
          g_assert_cmpuint (length, ==, i < 4 ? i : 5);
        }

      nested = hr_pickle_dict_get (root, "nested");
      items = hr_pickle_items (nested, &n);
      g_assert_cmpuint (n, ==, 2);
      v = hr_pickle_dict_get (hr_pickle_dict_get (&items[1], "a"), "b");
      g_assert_nonnull (v);
      g_assert_cmpint (v->kind, ==, HR_PICKLE_DICT);

      /* One list pickled twice is one list here too (the memo). */
      shared = hr_pickle_dict_get (root, "shared");
      items = hr_pickle_items (shared, &n);
      g_assert_cmpuint (n, ==, 2);
      g_assert_true (items[0].v.container == items[1].v.container);
      g_assert_cmpint (int_at (&items[1], 1), ==, 2);
    }
}

static void
test_pickle_memo_and_cycles (void)
{
  /* a list that contains itself, through the memo */
  g_autoptr(HrPickle) cycle = PARSE_OK ("\x80\x02]q\x00h\x00" "a.");
  const HrPickleValue *root = hr_pickle_get_root (cycle);
  const HrPickleValue *items;
  guint n;

  items = hr_pickle_items (root, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_true (items[0].v.container == root->v.container);

  /* MEMOIZE numbers in order; LONG_BINPUT and LONG_BINGET too */
  {
    g_autoptr(HrPickle) p = PARSE_OK ("\x80\x04K\x07\x94K\x08r\x01\x00\x00\x00"
                                      "0j\x00\x00\x00\x00h\x01\x86.");

    items = hr_pickle_items (hr_pickle_get_root (p), &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpint (items[0].v.integer, ==, 7);
    g_assert_cmpint (items[1].v.integer, ==, 8);
  }

  REFUSED ("\x80\x02Nq\x05.", "byte 3: memo index 5 out of order (the memo holds 0)");
  REFUSED ("\x80\x02h\x00.", "byte 2: memo index 0 was never stored");
  REFUSED ("\x80\x02j\xff\xff\xff\xff.", "memo index 4294967295 was never stored");
}

static void
test_pickle_stack_errors (void)
{
  REFUSED ("\x80\x02" "(K\x01" "u.", "SETITEMS with nothing to add to");
  REFUSED ("\x80\x02" "}(K\x01" "u.", "byte 6: SETITEMS with a key and no value");
  REFUSED ("\x80\x02" "](K\x01K\x02" "u.", "SETITEMS on a value of type list");
  REFUSED ("\x80\x02" "}(K\x01" "e.", "APPENDS on a value of type dict");
  REFUSED ("\x80\x02" "K\x01K\x02" "a.", "APPEND on a value of type int");
  REFUSED ("\x80\x02" "N" "s.", "SETITEM needs 3 values on the stack and finds 1");
  REFUSED ("\x80\x02" "t.", "TUPLE without a MARK before it");
  REFUSED ("\x80\x02" "(K\x01" "d.", "DICT with a key and no value");
  REFUSED ("\x80\x02" "(N" "\x86.", "TUPLE2 needs 2 values on the stack and finds 1");
  REFUSED ("\x80\x02" "\x8b\xff\xff\xff\xff.", "LONG4 with a negative size");
  REFUSED ("\x80\x02" "X\x05\x00\x00\x00" "ab", "the file ends inside BINUNICODE's argument");
  REFUSED ("\x80\x04" "\x95\x10\x00\x00\x00\x00\x00\x00\x00" "N.", "a FRAME of 16 bytes");
  REFUSED ("\x80\x02" "J\x01\x00", "the file ends inside BININT's argument");

  /* POP with nothing above the mark pops the mark, as Lib/pickle.py does */
  {
    g_autoptr(HrPickle) p = PARSE_OK ("\x80\x02" "K\x05" "(0.");

    g_assert_cmpint (hr_pickle_get_root (p)->v.integer, ==, 5);
  }
  /* POP_MARK, DUP; the mark-based LIST and DICT of older picklers */
  {
    g_autoptr(HrPickle) p = PARSE_OK ("\x80\x02" "(K\x01K\x02" "1" "K\x03" "2" "\x86" "(K\x09" "l"
                                      "(K\x01K\x02" "d" "\x87.");
    const HrPickleValue *items;
    guint n;

    items = hr_pickle_items (hr_pickle_get_root (p), &n);
    g_assert_cmpuint (n, ==, 3);
    g_assert_cmpint (items[0].kind, ==, HR_PICKLE_TUPLE);
    g_assert_cmpint (items[1].kind, ==, HR_PICKLE_LIST);
    g_assert_cmpint (hr_pickle_dict_get (&items[2], "absent") == NULL, ==, TRUE);
  }
}

static void
test_pickle_limits (void)
{
  HrPickleLimits limits = { 10, 4, 16, 8 };
  g_autoptr(GError) error = NULL;
  g_autoptr(HrPickle) p = NULL;
  g_autoptr(GString) many = g_string_new ("\x80\x02]");

  for (guint i = 0; i < 11; i++)
    g_string_append (many, "Na");
  g_string_append_c (many, '.');
  p = hr_pickle_parse ("t.pickle", (const guint8 *) many->str, many->len, &limits, &error);
  g_assert_null (p);
  g_assert_error (error, HR_ERROR, HR_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "more than 10 values"));
  g_clear_error (&error);

  p = hr_pickle_parse ("t.pickle", (const guint8 *) "\x80\x02(((((.", 8, &limits, &error);
  g_assert_null (p);
  g_assert_nonnull (strstr (error->message, "byte 6: more than 4 MARKs open at once"));
  g_clear_error (&error);

  p = hr_pickle_parse ("t.pickle",
                       (const guint8 *) "\x80\x02X\x11\x00\x00\x00" "aaaaaaaaaaaaaaaaa.", 25,
                       &limits, &error);
  g_assert_null (p);
  g_assert_nonnull (strstr (error->message, "a string of 17 bytes; Headroom reads at most 16"));
  g_clear_error (&error);

  p = hr_pickle_parse ("t.pickle",
                       (const guint8 *) "\x80\x02\x8b\x09\x00\x00\x00" "123456789.", 18,
                       &limits, &error);
  g_assert_null (p);
  g_assert_nonnull (strstr (error->message, "an integer of 9 bytes; Headroom reads at most 8"));
}

/* Every prefix of a real snapshot is refused, none crashes or hangs; and
 * every byte changed in turn is read or refused. */
static void
test_pickle_truncated (void)
{
  g_autofree char *path = snapshot_path ("snapshot-train.pickle");
  g_autoptr(GBytes) bytes = read_bytes (path);
  gsize length = g_bytes_get_size (bytes);
  const guint8 *data = g_bytes_get_data (bytes, NULL);
  g_autofree guint8 *copy = g_memdup2 (data, length);

  for (gsize cut = 0; cut < length; cut++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrPickle) p = parse (data, cut, &error);

      /* A pickle may STOP before its last byte only if it ends there. */
      if (p != NULL)
        g_error ("a prefix of %" G_GSIZE_FORMAT " bytes was read", cut);
      g_assert_nonnull (error);
    }

  for (gsize i = 0; i < length; i += 7)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrMeasurement) m = NULL;

      copy[i] ^= 0x5a;
      m = hr_measurement_parse_data ("x.pickle", (const char *) copy, length, NULL, &error);
      g_assert_true ((m == NULL) != (error == NULL));
      copy[i] ^= 0x5a;
    }
}

static JsonObject *
expected_for (const char *name)
{
  g_autofree char *file = g_strdup_printf ("%s.expected.json", name);
  g_autofree char *path = snapshot_path (file);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static HrMeasurement *
load_snapshot (const char *name,
               guint       max_time_points)
{
  g_autofree char *file = g_strdup_printf ("%s.pickle", name);
  g_autofree char *path = snapshot_path (file);
  g_autoptr(GError) error = NULL;
  HrMeasureOptions options = { 0 };
  HrMeasurement *m;

  options.max_time_points = max_time_points;
  m = hr_measurement_load_file (path, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (m);
  return m;
}

static guint64
member_uint (JsonObject *o,
             const char *key)
{
  return (guint64) json_object_get_int_member (o, key);
}

/* Exact peaks, when they happened, and what was live at the allocated
 * peak, as the model that wrote each snapshot kept them. */
static void
check_snapshot (const char *name)
{
  g_autoptr(HrMeasurement) m = load_snapshot (name, 0);
  g_autoptr(HrMeasurement) thin = load_snapshot (name, 64);
  g_autoptr(JsonObject) want = expected_for (name);
  JsonArray *devices = json_object_get_array_member (want, "devices");
  const HrSnapshot *snapshot = hr_measurement_get_snapshot (m);

  g_test_message ("%s", name);
  g_assert_cmpint (m->format, ==, HR_MEASURE_FORMAT_TORCH_SNAPSHOT);
  g_assert_nonnull (snapshot);
  g_assert_cmpuint (snapshot->devices->len, ==, json_array_get_length (devices));
  g_assert_cmpuint (m->series->len, ==, 2 * snapshot->devices->len);
  if (json_object_has_member (want, "micro_batch"))
    g_assert_cmpuint (hr_measurement_get_micro_batch (m), ==,
                      member_uint (want, "micro_batch"));

  for (guint d = 0; d < snapshot->devices->len; d++)
    {
      const HrSnapshotDevice *dev = g_ptr_array_index (snapshot->devices, d);
      const HrSnapshotDevice *thin_dev = g_ptr_array_index (thin->snapshot->devices, d);
      JsonObject *w = json_array_get_object_element (devices, d);
      JsonObject *buckets = json_object_get_object_member (w, "buckets");
      JsonObject *groups = json_object_get_object_member (w, "groups");
      JsonObject *site = json_object_get_object_member (w, "top_site");
      const HrSnapshotSite *top;
      HrSnapshotBar bar;
      guint64 sum = 0;

      g_assert_cmpint (dev->device, ==, json_object_get_int_member (w, "device"));
      g_assert_cmpuint (dev->n_events, ==, member_uint (w, "n_events"));
      g_assert_cmpuint (dev->allocated_peak, ==, member_uint (w, "allocated_peak"));
      g_assert_cmpfloat_with_epsilon (dev->allocated_peak_t,
                                      json_object_get_double_member (w, "allocated_peak_t"),
                                      1e-9);
      g_assert_cmpuint (dev->reserved_peak, ==, member_uint (w, "reserved_peak"));
      g_assert_cmpuint (dev->reserved_at_allocated_peak, ==,
                        member_uint (w, "reserved_at_allocated_peak"));
      g_assert_cmpuint (dev->allocated_start, ==, member_uint (w, "allocated_start"));
      g_assert_cmpuint (dev->allocated_end, ==, member_uint (w, "allocated_end"));
      g_assert_cmpuint (dev->reserved_end, ==, member_uint (w, "reserved_end"));
      g_assert_cmpuint (dev->live_count, ==, member_uint (w, "live_count"));
      g_assert_cmpuint (dev->ooms->len, ==, member_uint (w, "ooms"));

      /* The timelines are the series, and their peaks are the device's. */
      g_assert_cmpfloat (dev->allocated->peak, ==, dev->allocated_peak);
      g_assert_cmpfloat (dev->reserved->peak, ==, dev->reserved_peak);
      g_assert_cmpfloat (g_array_index (dev->allocated->points, HrMeasurePoint,
                                        dev->allocated->peak_index).t, ==,
                         dev->allocated_peak_t);
      g_assert_cmpuint (dev->allocated->n_points, ==, dev->allocated->points->len);

      for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
        {
          g_assert_cmpuint (dev->buckets[b], ==,
                            member_uint (buckets, hr_snapshot_bucket_nick (b)));
          sum += dev->buckets[b];
        }
      g_assert_cmpuint (sum, ==, dev->allocated_peak);
      for (guint g = 0; g < HR_SNAPSHOT_N_GROUPS; g++)
        {
          const char *nick = hr_enum_to_nick (hr_snapshot_group_names, g);
          guint64 bytes = json_object_has_member (groups, nick) ? member_uint (groups, nick) : 0;

          g_assert_cmpuint (dev->groups[g], ==, bytes);
        }

      g_assert_cmpuint (dev->sites->len, >, 0);
      top = g_ptr_array_index (dev->sites, 0);
      g_assert_cmpuint (top->bytes, ==, member_uint (site, "bytes"));
      g_assert_cmpstr (hr_enum_to_nick (hr_snapshot_group_names, top->group), ==,
                       json_object_get_string_member (site, "group"));
      if (json_object_get_null_member (site, "filename"))
        g_assert_null (top->filename);
      else
        {
          g_assert_cmpstr (top->filename, ==, json_object_get_string_member (site, "filename"));
          g_assert_cmpuint (top->line, ==, member_uint (site, "line"));
        }

      /* The measured bar adds up to what was reserved at the peak. */
      hr_snapshot_device_bar (dev, &bar);
      g_assert_cmpuint (bar.total, ==, MAX (dev->reserved_at_allocated_peak,
                                             dev->allocated_peak));

      /* Thinned for drawing: fewer points, the same exact peaks. */
      g_assert_cmpuint (thin_dev->allocated->points->len, <=, 64);
      g_assert_cmpuint (thin_dev->allocated->n_points, ==, dev->allocated->n_points);
      g_assert_cmpfloat (thin_dev->allocated->peak, ==, dev->allocated_peak);
      g_assert_cmpfloat (g_array_index (thin_dev->allocated->points, HrMeasurePoint,
                                        thin_dev->allocated->peak_index).bytes, ==,
                         dev->allocated_peak);
      g_assert_cmpuint (thin_dev->allocated_peak, ==, dev->allocated_peak);
      g_assert_cmpuint (thin_dev->buckets[HR_BUCKET_WEIGHTS], ==, dev->buckets[HR_BUCKET_WEIGHTS]);
    }
}

static void
test_snapshot_fixtures (void)
{
  static const char * const names[] = {
    "snapshot-train", "snapshot-train-b16", "snapshot-ring", "snapshot-two-devices",
    "snapshot-legacy",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    check_snapshot (names[i]);
}

static void
test_snapshot_details (void)
{
  g_autoptr(HrMeasurement) ring = load_snapshot ("snapshot-ring", 0);
  g_autoptr(HrMeasurement) legacy = load_snapshot ("snapshot-legacy", 0);
  g_autoptr(HrMeasurement) train = load_snapshot ("snapshot-train", 0);
  const HrSnapshotDevice *dev = hr_snapshot_get_peak_device (ring->snapshot);
  const HrSnapshotOom *oom;
  double gap, fraction, at_batch;

  /* stacks="all" */
  g_assert_true (ring->snapshot->has_cpp_frames);
  g_assert_false (train->snapshot->has_cpp_frames);
  g_assert_true (ring->snapshot->has_times);
  g_assert_false (legacy->snapshot->has_times);
  g_assert_cmpuint (ring->snapshot->protocol, ==, 5);
  g_assert_cmpuint (legacy->snapshot->protocol, ==, 2);
  /* allocator_settings, as text */
  g_assert_cmpuint (ring->snapshot->setting_keys->len, ==, 8);
  g_assert_cmpstr (g_ptr_array_index (ring->snapshot->setting_keys, 3), ==,
                   "expandable_segments");
  g_assert_cmpstr (g_ptr_array_index (ring->snapshot->setting_values, 3), ==, "False");
  g_assert_cmpuint (legacy->snapshot->setting_keys->len, ==, 0);

  /* the out-of-memory entry, with what was live then */
  g_assert_cmpuint (dev->ooms->len, ==, 1);
  oom = &g_array_index (dev->ooms, HrSnapshotOom, 0);
  g_assert_cmpuint (oom->requested, ==, G_GUINT64_CONSTANT (80) << 30);
  g_assert_cmpuint (oom->device_free, ==, 1500u << 20);
  g_assert_cmpuint (oom->allocated, ==, dev->allocated_end);
  g_assert_cmpuint (oom->reserved, >=, oom->allocated);

  /* fragmentation: the peaks' gap */
  g_assert_true (hr_measurement_fragmentation (train, &gap, &fraction, &at_batch));
  dev = hr_snapshot_get_peak_device (train->snapshot);
  g_assert_cmpfloat (gap, ==, (double) (dev->reserved_peak - dev->allocated_peak));
  g_assert_cmpfloat (at_batch, ==, 8);

  /* the probe's configuration */
  g_assert_cmpstr (hr_measurement_get_config (train, "model"), ==, "tiny-test");
  g_assert_cmpstr (hr_measurement_get_config (train, "seq_len"), ==, "512");
  g_assert_cmpuint (hr_measurement_get_micro_batch (ring), ==, 0);

  /* at a time: before the trace, the start; at the peak, the peak */
  {
    guint64 allocated, reserved;

    hr_snapshot_device_at (dev, dev->allocated_peak_t, &allocated, &reserved);
    g_assert_cmpuint (allocated, <=, dev->allocated_peak);
    hr_snapshot_device_at (dev, -1, &allocated, &reserved);
    g_assert_cmpuint (allocated, ==, dev->allocated_start);
  }

  /* largest groups first */
  for (guint k = 1; k < HR_SNAPSHOT_N_GROUPS; k++)
    g_assert_cmpuint (dev->groups[hr_snapshot_groups_by_size (dev, k - 1)], >=,
                      dev->groups[hr_snapshot_groups_by_size (dev, k)]);
}

/* Fed in chunks of any size, a snapshot reads as loaded whole. */
static void
test_snapshot_streaming (void)
{
  g_autofree char *path = snapshot_path ("snapshot-two-devices.pickle");
  g_autoptr(GBytes) bytes = read_bytes (path);
  g_autoptr(HrMeasurement) whole = load_snapshot ("snapshot-two-devices", 0);
  const char *data = g_bytes_get_data (bytes, NULL);
  gsize length = g_bytes_get_size (bytes);

  for (gsize chunk = 1; chunk < length; chunk = chunk * 3 + 1)
    {
      g_autoptr(HrMeasureParser) parser = hr_measure_parser_new (path, NULL);
      g_autoptr(HrMeasurement) m = NULL;
      g_autoptr(GError) error = NULL;

      for (gsize at = 0; at < length; at += chunk)
        g_assert_true (hr_measure_parser_feed (parser, data + at, MIN (chunk, length - at),
                                               &error));
      m = hr_measure_parser_finish (parser, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (m->series->len, ==, whole->series->len);
      for (guint i = 0; i < m->series->len; i++)
        {
          const HrMeasureSeries *a = g_ptr_array_index (m->series, i);
          const HrMeasureSeries *b = g_ptr_array_index (whole->series, i);

          g_assert_cmpstr (a->name, ==, b->name);
          g_assert_cmpfloat (a->peak, ==, b->peak);
          g_assert_cmpuint (a->points->len, ==, b->points->len);
        }
    }
}

/* Two snapshots at micro-batches 8 and 16 make a sweep a line fits. */
static void
test_snapshot_sweep (void)
{
  g_autoptr(GPtrArray) snapshots = g_ptr_array_new_with_free_func (
    (GDestroyNotify) hr_measurement_free);
  g_autoptr(HrMeasurement) sweep = NULL;
  g_autoptr(HrFit) fit = NULL;
  g_autoptr(GError) error = NULL;
  const HrMeasureSeries *allocated;
  const HrSnapshotDevice *d8, *d16;

  g_ptr_array_add (snapshots, load_snapshot ("snapshot-train", 0));
  g_ptr_array_add (snapshots, load_snapshot ("snapshot-train-b16", 0));
  sweep = hr_measurement_new_snapshot_sweep (snapshots, &error);
  g_assert_no_error (error);
  allocated = hr_measurement_get_sweep (sweep);
  g_assert_nonnull (allocated);
  g_assert_cmpint (allocated->metric, ==, HR_METRIC_ALLOCATED);
  fit = hr_fit_series (allocated, &error);
  g_assert_no_error (error);

  d8 = hr_snapshot_get_peak_device (((HrMeasurement *) snapshots->pdata[0])->snapshot);
  d16 = hr_snapshot_get_peak_device (((HrMeasurement *) snapshots->pdata[1])->snapshot);
  g_assert_cmpfloat_with_epsilon (fit->per_sample,
                                  ((double) d16->allocated_peak - d8->allocated_peak) / 8, 1e-3);

  /* one that does not say its micro-batch cannot join */
  g_ptr_array_add (snapshots, load_snapshot ("snapshot-ring", 0));
  g_clear_pointer (&sweep, hr_measurement_free);
  sweep = hr_measurement_new_snapshot_sweep (snapshots, &error);
  g_assert_null (sweep);
  g_assert_nonnull (strstr (error->message, "does not say its micro-batch"));
}

/* The rules on stacks of the libraries they name. */
static void
test_snapshot_rules (void)
{
  static const struct {
    const char *file;
    const char *function;
    int         group;     /* -1: no rule, so "other" */
  } cases[] = {
    { "/x/torch/optim/adam.py", "_init_group", HR_SNAPSHOT_GROUP_OPTIMIZER_STATE },
    { "/x/bitsandbytes/optim/optimizer.py", "init_state", HR_SNAPSHOT_GROUP_OPTIMIZER_STATE },
    { "/x/torch/optim/adam.py", "_multi_tensor_adam", HR_SNAPSHOT_GROUP_OPTIMIZER_STEP },
    { "/x/deepspeed/runtime/zero/stage_1_and_2.py", "__init__",
      HR_SNAPSHOT_GROUP_MASTER_WEIGHTS },
    { "/x/deepspeed/runtime/zero/stage_1_and_2.py", "initialize_optimizer_states",
      HR_SNAPSHOT_GROUP_OPTIMIZER_STATE },
    { "/x/deepspeed/runtime/zero/stage_1_and_2.py", "reduce_ipg_grads",
      HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS },
    { "/x/torch/nn/parallel/distributed.py", "_ddp_init_helper",
      HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS },
    { "/x/torch/distributed/fsdp/_flat_param.py", "unshard", HR_SNAPSHOT_GROUP_PARAMETERS },
    { "/x/torch/distributed/distributed_c10d.py", "all_reduce",
      HR_SNAPSHOT_GROUP_COMMUNICATION },
    { "/x/torch/_tensor.py", "backward", HR_SNAPSHOT_GROUP_BACKWARD },
    { "/x/torch/autograd/graph.py", "_engine_run_backward", HR_SNAPSHOT_GROUP_BACKWARD },
    { "/x/accelerate/accelerator.py", "backward", HR_SNAPSHOT_GROUP_BACKWARD },
    { "/x/torch/nn/modules/module.py", "to", HR_SNAPSHOT_GROUP_PARAMETERS },
    { "/x/torch/nn/modules/linear.py", "__init__", HR_SNAPSHOT_GROUP_PARAMETERS },
    { "/x/torch/nn/modules/linear.py", "forward", HR_SNAPSHOT_GROUP_FORWARD },
    { "/x/bitsandbytes/nn/modules.py", "_quantize", HR_SNAPSHOT_GROUP_PARAMETERS },
    { "/x/bitsandbytes/nn/modules.py", "forward", HR_SNAPSHOT_GROUP_FORWARD },
    { "/x/peft/tuners/lora/layer.py", "update_layer", HR_SNAPSHOT_GROUP_PARAMETERS },
    { "/x/safetensors/torch.py", "load_file", HR_SNAPSHOT_GROUP_LOADED_WEIGHTS },
    { "/x/transformers/modeling_utils.py", "_load_state_dict_into_meta_model",
      HR_SNAPSHOT_GROUP_LOADED_WEIGHTS },
    { "/x/transformers/modeling_utils.py", "get_extended_attention_mask", -1 },
    { "/x/accelerate/utils/modeling.py", "set_module_tensor_to_device",
      HR_SNAPSHOT_GROUP_LOADED_WEIGHTS },
    { "/x/torch/utils/checkpoint.py", "recompute_fn", HR_SNAPSHOT_GROUP_RECOMPUTED },
    { "/x/torch/nn/functional.py", "cross_entropy", HR_SNAPSHOT_GROUP_FORWARD },
    { "", "torch::autograd::AccumulateGrad::accumulateGrad",
      HR_SNAPSHOT_GROUP_PARAMETER_GRADIENTS },
    { "", "torch::autograd::generated::MmBackward0::apply", HR_SNAPSHOT_GROUP_BACKWARD },
    { "", "at::cuda::getCurrentCUDABlasHandle()", HR_SNAPSHOT_GROUP_WORKSPACES },
    { "", "c10d::ProcessGroupNCCL::allreduce", HR_SNAPSHOT_GROUP_COMMUNICATION },
    { "/home/me/train.py", "main", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* [{"filename": FILE, "line": 1, "name": NAME}, {"filename": "/home/me/train.py",
       * "line": 9, "name": "main"}], pickled by hand */
      g_autoptr(GByteArray) b = g_byte_array_new ();
      g_autoptr(HrPickle) p = NULL;
      guint32 n;

#define ADD(bytes, len) g_byte_array_append (b, (const guint8 *) (bytes), (len))
#define ADD_STR(s) G_STMT_START {                                                  \
        n = GUINT32_TO_LE (strlen (s)); ADD ("X", 1); ADD (&n, 4); ADD (s, strlen (s)); \
      } G_STMT_END
      ADD ("\x80\x02](}(", 6);
      ADD_STR ("filename");
      ADD_STR (cases[i].file);
      ADD_STR ("line");
      ADD ("K\x01", 2);
      ADD_STR ("name");
      ADD_STR (cases[i].function);
      ADD ("u}(", 3);
      ADD_STR ("filename");
      ADD_STR ("/home/me/train.py");
      ADD_STR ("line");
      ADD ("K\x09", 2);
      ADD_STR ("name");
      ADD_STR ("main");
      ADD ("ue.", 3);
#undef ADD_STR
#undef ADD
      p = parse_ok (b->data, b->len);
      g_assert_cmpint (hr_snapshot_classify (hr_pickle_get_root (p), TRUE), ==,
                       cases[i].group >= 0 ? (HrSnapshotGroupId) cases[i].group
                                           : HR_SNAPSHOT_GROUP_OTHER);
    }

  /* no frames: recorded (autograd's thread) or from before recording */
  g_assert_cmpint (hr_snapshot_classify (NULL, TRUE), ==, HR_SNAPSHOT_GROUP_BACKWARD_THREAD);
  g_assert_cmpint (hr_snapshot_classify (NULL, FALSE), ==, HR_SNAPSHOT_GROUP_BEFORE_RECORDING);
  for (guint g = 0; g < HR_SNAPSHOT_N_GROUPS; g++)
    {
      g_assert_nonnull (hr_snapshot_group_label (g));
      g_assert_nonnull (hr_enum_to_nick (hr_snapshot_group_names, g));
    }
}

/* What is not a snapshot, and a snapshot with nothing in it. */
static void
test_snapshot_refused (void)
{
  static const struct {
    const char *bytes;
    gsize       length;
    const char *want;
  } cases[] = {
    CASE ("\x80\x02K\x01.",
          "x.pickle: a pickled value of type int; a PyTorch memory snapshot is a dict"),
    CASE ("\x80\x02}.", "x.pickle: a pickled dict without \"segments\" or \"device_traces\""),
    CASE ("\x80\x02}(X\x08\x00\x00\x00" "segments]X\x0d\x00\x00\x00" "device_traces]u.",
          "x.pickle: no measurements: the snapshot holds no segments and no trace"),
    CASE ("\x80\x02}X\x08\x00\x00\x00" "segmentsK\x01s.",
          "x.pickle: the snapshot: \"segments\" is of type int; expected a list"),
    CASE ("\x80\x02]K\x01" "a.", "x.pickle: segments[0]: a value of type int; expected a dict"),
    CASE ("\x80\x02]}a.", "x.pickle: segments[0]: no \"total_size\""),
    /* one entry twice, through the memo: counted twice, and work that
     * grows faster than the file */
    CASE ("\x80\x02}(X\x0d\x00\x00\x00" "device_traces]](}(X\x06\x00\x00\x00" "action"
          "X\x05\x00\x00\x00" "allocuq\x00h\x00" "eau.",
          "x.pickle: device_traces[0][0]: the same dict as another entry"),
    /* the same, the memo giving it out again after it was stored (and
     * reduced to its event as it was) */
    CASE ("\x80\x02}(X\x0d\x00\x00\x00" "device_traces]](}(X\x06\x00\x00\x00" "action"
          "X\x05\x00\x00\x00" "allocX\x04\x00\x00\x00" "addrK\x00X\x04\x00\x00\x00" "size"
          "K\x10uq\x00" "eh\x00" "aau.",
          "x.pickle: device_traces[0][0]: the same dict as another entry"),
    /* a stack where an entry should be */
    CASE ("\x80\x02}(X\x0d\x00\x00\x00" "device_traces]](}(X\x06\x00\x00\x00" "frames"
          "]q\x00uh\x00" "eau.",
          "x.pickle: device_traces[0][1]: a value of type list; expected a dict"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrMeasurement) m = hr_measurement_parse_data ("x.pickle", cases[i].bytes,
                                                              cases[i].length, NULL, &error);

      g_assert_null (m);
      if (error == NULL || strstr (error->message, cases[i].want) == NULL)
        g_error ("case %u: expected \"%s\", got %s", i, cases[i].want,
                 error != NULL ? error->message : "no error");
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pickle/refuses-code", test_pickle_refuses_code);
  g_test_add_func ("/pickle/runs-nothing", test_pickle_runs_nothing);
  g_test_add_func ("/pickle/protocols", test_pickle_protocols);
  g_test_add_func ("/pickle/kinds", test_pickle_kinds);
  g_test_add_func ("/pickle/memo-and-cycles", test_pickle_memo_and_cycles);
  g_test_add_func ("/pickle/stack-errors", test_pickle_stack_errors);
  g_test_add_func ("/pickle/limits", test_pickle_limits);
  g_test_add_func ("/pickle/truncated", test_pickle_truncated);
  g_test_add_func ("/pickle/reduce", test_pickle_reduce);
  g_test_add_func ("/pickle/kept-bytes", test_pickle_kept_bytes);
  g_test_add_func ("/snapshot/fixtures", test_snapshot_fixtures);
  g_test_add_func ("/snapshot/details", test_snapshot_details);
  g_test_add_func ("/snapshot/streaming", test_snapshot_streaming);
  g_test_add_func ("/snapshot/sweep", test_snapshot_sweep);
  g_test_add_func ("/snapshot/rules", test_snapshot_rules);
  g_test_add_func ("/snapshot/refused", test_snapshot_refused);

  return g_test_run ();
}
