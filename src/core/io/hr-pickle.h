/* hr-pickle.h: a reader of Python pickles that holds only plain data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What a pickle may hold here: Python's built-in dicts, lists, tuples,
 * strings, bytes, integers, floats, booleans and None, as protocols 2 to
 * 5 write them.  Every opcode that would import a name, call a function,
 * build an object or fetch data from outside (GLOBAL, STACK_GLOBAL,
 * REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID,
 * BINPERSID, NEXT_BUFFER...) is refused with a message naming it and its
 * offset: nothing a file says is ever run.  Nothing is read recursively,
 * and every size, count and depth has a limit. */
typedef enum {
  HR_PICKLE_NONE,
  HR_PICKLE_BOOL,
  HR_PICKLE_INT,       /* fits a gint64 */
  HR_PICKLE_BIG_INT,   /* does not: v.real holds it approximately */
  HR_PICKLE_FLOAT,
  HR_PICKLE_STRING,    /* text, as the file encodes it (UTF-8, unchecked) */
  HR_PICKLE_BYTES,     /* bytes and bytearray */
  HR_PICKLE_LIST,
  HR_PICKLE_TUPLE,
  HR_PICKLE_DICT,
  /* A container a reader's HrPickleReduceFunc replaced as it was read:
   * `length` and `v.integer` are the reader's */
  HR_PICKLE_REDUCED,
} HrPickleKind;

typedef struct _HrPickleContainer HrPickleContainer;

/* A value is 16 bytes; strings point into the data the document was read
 * from (which must outlive it) and are not NUL-terminated. */
typedef struct {
  guint32  kind;       /* HrPickleKind */
  guint32  length;     /* a string's or bytes' size */
  union {
    gboolean           boolean;
    gint64             integer;
    double             real;
    const char        *text;
    HrPickleContainer *container;
  } v;
} HrPickleValue;

/* A list, a tuple or a dict; a dict's items are its keys and values in
 * turn (2 × length values), in the order they were set.  A key set twice
 * is there twice: hr_pickle_dict_get finds the last value, as Python
 * would keep it. */
struct _HrPickleContainer {
  guint32        kind;
  guint32        length;
  guint32        capacity;
  /* How many times the pickle put it on the stack: 1 when it was made
   * and never fetched again from the memo (or DUP'ed), more when it is
   * shared, as PyTorch shares the frames of one stack. */
  guint32        uses;
  /* The memo entry it was stored in (PUT, MEMOIZE); HR_PICKLE_NO_MEMO when
   * none, HR_PICKLE_MEMO_MANY when more than one. */
  guint32        memo;
  HrPickleValue *items;
};

#define HR_PICKLE_NO_MEMO   G_MAXUINT32
#define HR_PICKLE_MEMO_MANY (G_MAXUINT32 - 1)

typedef struct {
  guint64 max_values;   /* values pushed, copies included: bounds the memory */
  guint   max_marks;    /* MARKs open at once */
  guint64 max_string;   /* bytes of one string */
  guint   max_int_bytes;  /* bytes of one LONG4 integer */
} HrPickleLimits;

#define HR_PICKLE_DEFAULT_MAX_VALUES    (G_GUINT64_CONSTANT (1) << 28)
#define HR_PICKLE_DEFAULT_MAX_MARKS     512
#define HR_PICKLE_DEFAULT_MAX_STRING    (G_GUINT64_CONSTANT (64) << 20)
#define HR_PICKLE_DEFAULT_MAX_INT_BYTES 4096

typedef struct _HrPickle HrPickle;

/* Called as a container is stored in another (a list, tuple or dict of
 * kind @parent_kind; in a dict under @key, NULL otherwise) when nothing
 * else refers to it (no DUP, no GET from the memo yet): the reader may
 * keep only what it needs of it by replacing *@value with a value of kind
 * HR_PICKLE_REDUCED and returning TRUE.  The container is then freed, and
 * the memo entry it was in holds the replacement from then on, so that
 * the file's size does not bound what is kept: what the reader keeps
 * does.  A container stored in more than one memo entry is not offered. */
typedef gboolean (*HrPickleReduceFunc) (guint32              parent_kind,
                                        const HrPickleValue *key,
                                        HrPickleValue       *value,
                                        gpointer             user_data);
/* Called when a reduced value is put on the stack again (GET, DUP). */
typedef void     (*HrPickleReusedFunc) (const HrPickleValue *value,
                                        gpointer             user_data);

typedef struct {
  const HrPickleLimits *limits;          /* NULL: the defaults */
  HrPickleReduceFunc    reduce;          /* may be NULL */
  HrPickleReusedFunc    reused;
  gpointer              user_data;
  /* @data is a private read-only mapping of a file (g_mapped_file_new):
   * the pages read are given back to the kernel as the reading goes on,
   * so that the mapping does not stay resident (they are read again from
   * the file when a string in them is used later). */
  gboolean              mapped;
} HrPickleOptions;

/* Reads the pickle in @data (@length bytes); errors are HR_ERROR and say
 * "NAME: byte OFFSET: what is wrong".  @limits may be NULL. */
HrPickle            *hr_pickle_parse      (const char           *display_name,
                                           const guint8         *data,
                                           gsize                 length,
                                           const HrPickleLimits *limits,
                                           GError              **error);
/* The same, with a reader's hooks. */
HrPickle            *hr_pickle_parse_full (const char           *display_name,
                                           const guint8         *data,
                                           gsize                 length,
                                           const HrPickleOptions *options,
                                           GError              **error);
void                 hr_pickle_free       (HrPickle             *pickle);
/* Bytes the parsed values hold (containers and their items), for
 * benchmarks and tests of what a reader keeps. */
guint64              hr_pickle_get_kept_bytes (HrPickle         *pickle);
const HrPickleValue *hr_pickle_get_root   (HrPickle             *pickle);
/* The protocol the file declared (2 to 5). */
guint                hr_pickle_get_protocol (HrPickle           *pickle);

/* "dict", "list", "string"... */
const char          *hr_pickle_kind_name  (HrPickleKind          kind);
/* The value of the string key @key in @dict (the last one set), NULL when
 * @dict is no dict or has no such key. */
const HrPickleValue *hr_pickle_dict_get   (const HrPickleValue  *dict,
                                           const char           *key);
gboolean             hr_pickle_is_string  (const HrPickleValue  *value,
                                           const char           *text);
/* A list's or a tuple's items, NULL (and 0) for anything else. */
const HrPickleValue *hr_pickle_items      (const HrPickleValue  *value,
                                           guint                *length);
/* A string as NUL-terminated text (a copy) fit to show: bytes that are not
 * UTF-8 and control characters escaped (hr_text_printable). */
char                *hr_pickle_dup_string (const HrPickleValue  *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrPickle, hr_pickle_free)

G_END_DECLS
