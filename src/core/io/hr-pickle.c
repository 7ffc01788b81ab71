/* hr-pickle.c: a reader of Python pickles that holds only plain data
 *
 * The opcodes and their arguments are those of CPython's Lib/pickle.py
 * and Modules/_pickle.c (the format of protocols 2 to 5, PEP 307, PEP
 * 3154 and PEP 574), read by a stack machine of our own that knows no
 * opcode able to reach code.  Containers live in a pool freed at once, so
 * a pickle that makes a list contain itself costs nothing more; a reader
 * may reduce a container to what it needs of it as it is read, and the
 * pool takes it back (HrPickleReduceFunc).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-pickle"

#include <glib/gi18n-lib.h>

#include <inttypes.h>
#include <math.h>
#include <string.h>
#ifdef G_OS_UNIX
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "hr-json.h"
#include "hr-pickle.h"

/* The containers: in chunks, never moving once made; one a reader
 * reduced goes to a free list and is made again as the next.  Their items
 * are allocated apart. */
#define POOL_CHUNK 16384
#define FREED      G_MAXUINT32

typedef struct {
  GPtrArray         *chunks;     /* HrPickleContainer[POOL_CHUNK] */
  guint              used;       /* of the last chunk */
  HrPickleContainer *free_list;  /* linked through `items` */
  guint64            live;       /* containers in use */
  guint64            item_bytes; /* their items' room */
} Pool;

struct _HrPickle {
  Pool           pool;
  HrPickleValue  root;
  guint          protocol;
};

static HrPickleContainer *
pool_alloc (Pool *pool)
{
  HrPickleContainer *c;

  pool->live++;
  if (pool->free_list != NULL)
    {
      c = pool->free_list;
      pool->free_list = (HrPickleContainer *) c->items;
      return c;
    }
  if (pool->chunks->len == 0 || pool->used == POOL_CHUNK)
    {
      g_ptr_array_add (pool->chunks, g_new (HrPickleContainer, POOL_CHUNK));
      pool->used = 0;
    }
  c = (HrPickleContainer *) g_ptr_array_index (pool->chunks, pool->chunks->len - 1) + pool->used;
  pool->used++;
  return c;
}

/* @c's items go, and @c to the free list. */
static void
pool_release (Pool              *pool,
              HrPickleContainer *c)
{
  g_free (c->items);
  pool->item_bytes -= (guint64) c->capacity * sizeof (HrPickleValue);
  c->kind = FREED;
  c->length = c->capacity = 0;
  c->items = (HrPickleValue *) pool->free_list;
  pool->free_list = c;
  pool->live--;
}

void
hr_pickle_free (HrPickle *pickle)
{
  Pool *pool;

  if (pickle == NULL)
    return;
  pool = &pickle->pool;
  for (guint i = 0; i < pool->chunks->len; i++)
    {
      HrPickleContainer *chunk = g_ptr_array_index (pool->chunks, i);
      guint n = i + 1 == pool->chunks->len ? pool->used : POOL_CHUNK;

      for (guint j = 0; j < n; j++)
        {
          if (chunk[j].kind != FREED)
            g_free (chunk[j].items);
        }
    }
  g_ptr_array_unref (pool->chunks);
  g_free (pickle);
}

guint64
hr_pickle_get_kept_bytes (HrPickle *pickle)
{
  g_return_val_if_fail (pickle != NULL, 0);

  return pickle->pool.live * sizeof (HrPickleContainer) + pickle->pool.item_bytes;
}

const HrPickleValue *
hr_pickle_get_root (HrPickle *pickle)
{
  g_return_val_if_fail (pickle != NULL, NULL);

  return &pickle->root;
}

guint
hr_pickle_get_protocol (HrPickle *pickle)
{
  g_return_val_if_fail (pickle != NULL, 0);

  return pickle->protocol;
}

const char *
hr_pickle_kind_name (HrPickleKind kind)
{
  switch (kind)
    {
    case HR_PICKLE_NONE:
      return "None";
    case HR_PICKLE_BOOL:
      return "bool";
    case HR_PICKLE_INT:
    case HR_PICKLE_BIG_INT:
      return "int";
    case HR_PICKLE_FLOAT:
      return "float";
    case HR_PICKLE_STRING:
      return "str";
    case HR_PICKLE_BYTES:
      return "bytes";
    case HR_PICKLE_LIST:
      return "list";
    case HR_PICKLE_TUPLE:
      return "tuple";
    case HR_PICKLE_DICT:
      return "dict";
    case HR_PICKLE_REDUCED:
      return "entry already read";
    default:
      return "?";
    }
}

gboolean
hr_pickle_is_string (const HrPickleValue *value,
                     const char          *text)
{
  gsize n;

  if (value == NULL || value->kind != HR_PICKLE_STRING)
    return FALSE;
  n = strlen (text);
  return value->length == n && memcmp (value->v.text, text, n) == 0;
}

const HrPickleValue *
hr_pickle_dict_get (const HrPickleValue *dict,
                    const char          *key)
{
  const HrPickleContainer *c;
  gsize n;

  g_return_val_if_fail (key != NULL, NULL);

  if (dict == NULL || dict->kind != HR_PICKLE_DICT)
    return NULL;
  c = dict->v.container;
  n = strlen (key);
  for (guint i = c->length; i > 0; i--)
    {
      const HrPickleValue *k = &c->items[2 * (i - 1)];

      if (k->kind == HR_PICKLE_STRING && k->length == n && memcmp (k->v.text, key, n) == 0)
        return &c->items[2 * (i - 1) + 1];
    }
  return NULL;
}

const HrPickleValue *
hr_pickle_items (const HrPickleValue *value,
                 guint               *length)
{
  *length = 0;
  if (value == NULL || (value->kind != HR_PICKLE_LIST && value->kind != HR_PICKLE_TUPLE))
    return NULL;
  *length = value->v.container->length;
  return value->v.container->items;
}

char *
hr_pickle_dup_string (const HrPickleValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);

  if (value->kind != HR_PICKLE_STRING && value->kind != HR_PICKLE_BYTES)
    return g_strdup ("");
  return hr_text_printable (value->v.text, value->length);
}

/* ------------------------------------------------------------------------
 * The machine
 * --------------------------------------------------------------------- */

/* Opcodes, as Lib/pickle.py names them. */
enum {
  OP_MARK = '(',
  OP_STOP = '.',
  OP_POP = '0',
  OP_POP_MARK = '1',
  OP_DUP = '2',
  OP_FLOAT = 'F',
  OP_INT = 'I',
  OP_BININT = 'J',
  OP_BININT1 = 'K',
  OP_LONG = 'L',
  OP_BININT2 = 'M',
  OP_NONE = 'N',
  OP_PERSID = 'P',
  OP_BINPERSID = 'Q',
  OP_REDUCE = 'R',
  OP_STRING = 'S',
  OP_BINSTRING = 'T',
  OP_SHORT_BINSTRING = 'U',
  OP_UNICODE = 'V',
  OP_BINUNICODE = 'X',
  OP_APPEND = 'a',
  OP_BUILD = 'b',
  OP_GLOBAL = 'c',
  OP_DICT = 'd',
  OP_EMPTY_DICT = '}',
  OP_APPENDS = 'e',
  OP_GET = 'g',
  OP_BINGET = 'h',
  OP_INST = 'i',
  OP_LONG_BINGET = 'j',
  OP_LIST = 'l',
  OP_EMPTY_LIST = ']',
  OP_OBJ = 'o',
  OP_PUT = 'p',
  OP_BINPUT = 'q',
  OP_LONG_BINPUT = 'r',
  OP_SETITEM = 's',
  OP_TUPLE = 't',
  OP_EMPTY_TUPLE = ')',
  OP_SETITEMS = 'u',
  OP_BINFLOAT = 'G',
  OP_PROTO = 0x80,
  OP_NEWOBJ = 0x81,
  OP_EXT1 = 0x82,
  OP_EXT2 = 0x83,
  OP_EXT4 = 0x84,
  OP_TUPLE1 = 0x85,
  OP_TUPLE2 = 0x86,
  OP_TUPLE3 = 0x87,
  OP_NEWTRUE = 0x88,
  OP_NEWFALSE = 0x89,
  OP_LONG1 = 0x8a,
  OP_LONG4 = 0x8b,
  OP_BINBYTES = 'B',
  OP_SHORT_BINBYTES = 'C',
  OP_SHORT_BINUNICODE = 0x8c,
  OP_BINUNICODE8 = 0x8d,
  OP_BINBYTES8 = 0x8e,
  OP_EMPTY_SET = 0x8f,
  OP_ADDITEMS = 0x90,
  OP_FROZENSET = 0x91,
  OP_NEWOBJ_EX = 0x92,
  OP_STACK_GLOBAL = 0x93,
  OP_MEMOIZE = 0x94,
  OP_FRAME = 0x95,
  OP_BYTEARRAY8 = 0x96,
  OP_NEXT_BUFFER = 0x97,
  OP_READONLY_BUFFER = 0x98,
};

static const char *
opcode_name (guint op)
{
  static const struct {
    guint       op;
    const char *name;
  } names[] = {
    { OP_MARK, "MARK" }, { OP_STOP, "STOP" }, { OP_POP, "POP" }, { OP_POP_MARK, "POP_MARK" },
    { OP_DUP, "DUP" }, { OP_FLOAT, "FLOAT" }, { OP_INT, "INT" }, { OP_BININT, "BININT" },
    { OP_BININT1, "BININT1" }, { OP_LONG, "LONG" }, { OP_BININT2, "BININT2" },
    { OP_NONE, "NONE" }, { OP_PERSID, "PERSID" }, { OP_BINPERSID, "BINPERSID" },
    { OP_REDUCE, "REDUCE" }, { OP_STRING, "STRING" }, { OP_BINSTRING, "BINSTRING" },
    { OP_SHORT_BINSTRING, "SHORT_BINSTRING" }, { OP_UNICODE, "UNICODE" },
    { OP_BINUNICODE, "BINUNICODE" }, { OP_APPEND, "APPEND" }, { OP_BUILD, "BUILD" },
    { OP_GLOBAL, "GLOBAL" }, { OP_DICT, "DICT" }, { OP_EMPTY_DICT, "EMPTY_DICT" },
    { OP_APPENDS, "APPENDS" }, { OP_GET, "GET" }, { OP_BINGET, "BINGET" }, { OP_INST, "INST" },
    { OP_LONG_BINGET, "LONG_BINGET" }, { OP_LIST, "LIST" }, { OP_EMPTY_LIST, "EMPTY_LIST" },
    { OP_OBJ, "OBJ" }, { OP_PUT, "PUT" }, { OP_BINPUT, "BINPUT" },
    { OP_LONG_BINPUT, "LONG_BINPUT" }, { OP_SETITEM, "SETITEM" }, { OP_TUPLE, "TUPLE" },
    { OP_EMPTY_TUPLE, "EMPTY_TUPLE" }, { OP_SETITEMS, "SETITEMS" }, { OP_BINFLOAT, "BINFLOAT" },
    { OP_PROTO, "PROTO" }, { OP_NEWOBJ, "NEWOBJ" }, { OP_EXT1, "EXT1" }, { OP_EXT2, "EXT2" },
    { OP_EXT4, "EXT4" }, { OP_TUPLE1, "TUPLE1" }, { OP_TUPLE2, "TUPLE2" },
    { OP_TUPLE3, "TUPLE3" }, { OP_NEWTRUE, "NEWTRUE" }, { OP_NEWFALSE, "NEWFALSE" },
    { OP_LONG1, "LONG1" }, { OP_LONG4, "LONG4" }, { OP_BINBYTES, "BINBYTES" },
    { OP_SHORT_BINBYTES, "SHORT_BINBYTES" }, { OP_SHORT_BINUNICODE, "SHORT_BINUNICODE" },
    { OP_BINUNICODE8, "BINUNICODE8" }, { OP_BINBYTES8, "BINBYTES8" },
    { OP_EMPTY_SET, "EMPTY_SET" }, { OP_ADDITEMS, "ADDITEMS" }, { OP_FROZENSET, "FROZENSET" },
    { OP_NEWOBJ_EX, "NEWOBJ_EX" }, { OP_STACK_GLOBAL, "STACK_GLOBAL" },
    { OP_MEMOIZE, "MEMOIZE" }, { OP_FRAME, "FRAME" }, { OP_BYTEARRAY8, "BYTEARRAY8" },
    { OP_NEXT_BUFFER, "NEXT_BUFFER" }, { OP_READONLY_BUFFER, "READONLY_BUFFER" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      if (names[i].op == op)
        return names[i].name;
    }
  return NULL;
}

typedef struct {
  const char           *name;      /* as messages show it */
  const guint8         *data;
  gsize                 length;
  gsize                 pos;
  gsize                 op_pos;    /* where the opcode being run starts */
  guint                 op;
  HrPickleLimits        limits;
  guint64               pushed;
  GArray               *stack;     /* HrPickleValue */
  GArray               *marks;     /* guint: stack heights */
  GArray               *memo;      /* HrPickleValue; kind G_MAXUINT32 where unset */
  HrPickle             *pickle;
  HrPickleReduceFunc    reduce;
  HrPickleReusedFunc    reused;
  gpointer              user_data;
  gboolean              mapped;
  gsize                 released;  /* bytes of a mapping given back */
  GError              **error;
} Machine;

#define UNSET G_MAXUINT32

static gboolean
fail (Machine    *m,
      HrError     code,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Machine    *m,
      HrError     code,
      const char *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (m->error, HR_ERROR, code, _("%s: byte %" PRIu64 ": %s"), m->name,
               (guint64) m->op_pos, message);
  return FALSE;
}

static gboolean
truncated (Machine *m)
{
  const char *name = opcode_name (m->op);

  return fail (m, HR_ERROR_PARSE, _("the file ends inside %s's argument: it is cut short"),
               name != NULL ? name : "?");
}

static gboolean
take (Machine       *m,
      gsize          n,
      const guint8 **out)
{
  if (n > m->length - m->pos)
    return truncated (m);
  *out = m->data + m->pos;
  m->pos += n;
  return TRUE;
}

static guint64
little_endian (const guint8 *p,
               guint         n)
{
  guint64 v = 0;

  for (guint i = n; i > 0; i--)
    v = (v << 8) | p[i - 1];
  return v;
}

static gboolean
push (Machine             *m,
      const HrPickleValue *value)
{
  if (++m->pushed > m->limits.max_values)
    return fail (m, HR_ERROR_TOO_LARGE,
                 _("more than %" PRIu64 " values; Headroom reads at most that many "
                   "from one pickle"), m->limits.max_values);
  g_array_append_vals (m->stack, value, 1);
  return TRUE;
}

/* The items above the innermost mark: their first index, or FALSE. */
static gboolean
mark_start (Machine *m,
            guint   *start)
{
  if (m->marks->len == 0)
    return fail (m, HR_ERROR_PARSE, _("%s without a MARK before it"), opcode_name (m->op));
  *start = g_array_index (m->marks, guint, m->marks->len - 1);
  return TRUE;
}

static void
pop_mark (Machine *m,
          guint    start)
{
  g_array_set_size (m->stack, start);
  g_array_set_size (m->marks, m->marks->len - 1);
}

/* The top of the stack, at least @n items above the innermost mark. */
static gboolean
need (Machine *m,
      guint    n)
{
  guint floor = m->marks->len > 0 ? g_array_index (m->marks, guint, m->marks->len - 1) : 0;

  if (m->stack->len < floor + n)
    return fail (m, HR_ERROR_PARSE, _("%s needs %u values on the stack and finds %u"),
                 opcode_name (m->op), n, m->stack->len - floor);
  return TRUE;
}

static HrPickleValue *
top (Machine *m,
     guint    depth)
{
  return &g_array_index (m->stack, HrPickleValue, m->stack->len - 1 - depth);
}

static HrPickleContainer *
container_new (Machine *m,
               guint32  kind)
{
  HrPickleContainer *c = pool_alloc (&m->pickle->pool);

  c->kind = kind;
  c->length = 0;
  c->capacity = 0;
  c->uses = 1;
  c->memo = HR_PICKLE_NO_MEMO;
  c->items = NULL;
  return c;
}

static gboolean
is_container (const HrPickleValue *v)
{
  return v->kind == HR_PICKLE_LIST || v->kind == HR_PICKLE_TUPLE || v->kind == HR_PICKLE_DICT;
}

/* Offers the reader the container in @slot, just stored in a container of
 * kind @parent_kind (under @key in a dict). */
static void
offer (Machine             *m,
       guint32              parent_kind,
       const HrPickleValue *key,
       HrPickleValue       *slot)
{
  HrPickleContainer *c;
  HrPickleValue v;

  if (!is_container (slot))
    return;
  c = slot->v.container;
  if (c->uses != 1 || c->memo == HR_PICKLE_MEMO_MANY)
    return;
  v = *slot;
  if (!m->reduce (parent_kind, key, &v, m->user_data))
    return;
  g_assert (v.kind == HR_PICKLE_REDUCED);
  /* The memo entry may have been set again since (PUT to an index in
   * use): only one that still holds @c takes the replacement. */
  if (c->memo != HR_PICKLE_NO_MEMO)
    {
      HrPickleValue *entry = &g_array_index (m->memo, HrPickleValue, c->memo);

      if (is_container (entry) && entry->v.container == c)
        *entry = v;
    }
  pool_release (&m->pickle->pool, c);
  *slot = v;
}

/* Appends @n values to @c (a dict takes them as key, value, ...). */
static gboolean
container_append (Machine             *m,
                  HrPickleContainer   *c,
                  const HrPickleValue *values,
                  guint                n)
{
  guint slots = c->kind == HR_PICKLE_DICT ? 2 * c->length : c->length;

  if (n > G_MAXUINT32 / 2 - slots)
    return fail (m, HR_ERROR_TOO_LARGE, _("a container of more than 2^31 values"));

  if (slots + n > c->capacity)
    {
      /* The first items get exactly their room (a list is mostly filled
       * at once); more grow it by half, so that the room never exceeds
       * half as much again as the items (memory stays linear in them). */
      guint capacity = c->capacity == 0 ? slots + n
                                        : MAX (slots + n, c->capacity + c->capacity / 2);

      c->items = g_renew (HrPickleValue, c->items, capacity);
      m->pickle->pool.item_bytes += (guint64) (capacity - c->capacity) * sizeof (HrPickleValue);
      c->capacity = capacity;
    }

  memcpy (c->items + slots, values, n * sizeof (HrPickleValue));
  c->length += c->kind == HR_PICKLE_DICT ? n / 2 : n;

  if (m->reduce != NULL)
    {
      if (c->kind == HR_PICKLE_DICT)
        for (guint i = slots; i + 1 < slots + n; i += 2)
          offer (m, c->kind, &c->items[i], &c->items[i + 1]);
      else
        for (guint i = slots; i < slots + n; i++)
          offer (m, c->kind, NULL, &c->items[i]);
    }
  return TRUE;
}

static gboolean
push_container (Machine *m,
                guint32  kind,
                guint    start)
{
  HrPickleValue v = { kind, 0, { 0 } };
  guint n = m->stack->len - start;

  v.v.container = container_new (m, kind);
  if (n > 0 && !container_append (m, v.v.container,
                                  &g_array_index (m->stack, HrPickleValue, start), n))
    return FALSE;
  g_array_set_size (m->stack, start);
  /* Built from values already counted: not pushed again. */
  g_array_append_val (m->stack, v);
  return TRUE;
}

static gboolean
memo_put (Machine *m,
          guint64  index)
{
  HrPickleValue unset = { UNSET, 0, { 0 } };

  if (!need (m, 1))
    return FALSE;
  /* Python's picklers (Lib/pickle.py and _pickle.c) number the memo in
   * order, len(memo) each time: any other index is refused, and the memo
   * grows by one entry per opcode at most. */
  if (index > m->memo->len)
    return fail (m, HR_ERROR_INVALID,
                 _("memo index %" PRIu64 " out of order (the memo holds %u)"), index,
                 m->memo->len);
  if (index == m->memo->len)
    {
      /* The memo holds values as the stack does: they count alike. */
      if (++m->pushed > m->limits.max_values)
        return fail (m, HR_ERROR_TOO_LARGE,
                     _("more than %" PRIu64 " values; Headroom reads at most that many "
                       "from one pickle"), m->limits.max_values);
      g_array_append_val (m->memo, unset);
    }
  g_array_index (m->memo, HrPickleValue, index) = *top (m, 0);
  if (is_container (top (m, 0)))
    {
      HrPickleContainer *c = top (m, 0)->v.container;

      if (c->memo == HR_PICKLE_NO_MEMO)
        c->memo = (guint32) index;
      else if (c->memo != index)
        c->memo = HR_PICKLE_MEMO_MANY;
    }
  return TRUE;
}

/* A value pushed again: a container it is gets one use more. */
static gboolean
push_again (Machine             *m,
            const HrPickleValue *value)
{
  if (is_container (value) && value->v.container->uses < G_MAXUINT32)
    value->v.container->uses++;
  else if (value->kind == HR_PICKLE_REDUCED && m->reused != NULL)
    m->reused (value, m->user_data);
  return push (m, value);
}

static gboolean
memo_get (Machine *m,
          guint64  index)
{
  HrPickleValue v;

  if (index >= m->memo->len || g_array_index (m->memo, HrPickleValue, index).kind == UNSET)
    return fail (m, HR_ERROR_INVALID, _("memo index %" PRIu64 " was never stored"),
                 index);
  v = g_array_index (m->memo, HrPickleValue, index);
  return push_again (m, &v);
}

static gboolean
push_string (Machine *m,
             guint32  kind,
             guint64  n)
{
  const guint8 *p;
  HrPickleValue v = { kind, 0, { 0 } };

  if (n > m->limits.max_string)
    return fail (m, HR_ERROR_TOO_LARGE,
                 _("a string of %" PRIu64 " bytes; Headroom reads at most %"
                   PRIu64), n, m->limits.max_string);
  if (!take (m, n, &p))
    return FALSE;
  v.length = (guint32) n;
  v.v.text = (const char *) p;
  return push (m, &v);
}

/* Two's complement, little-endian, as LONG1 and LONG4 write it. */
static gboolean
push_long (Machine *m,
           guint64  n)
{
  const guint8 *p;
  HrPickleValue v = { HR_PICKLE_INT, 0, { 0 } };
  gboolean negative;
  gboolean fits = TRUE;

  if (n > m->limits.max_int_bytes)
    return fail (m, HR_ERROR_TOO_LARGE,
                 _("an integer of %" PRIu64 " bytes; Headroom reads at most %u"), n,
                 m->limits.max_int_bytes);
  if (!take (m, n, &p))
    return FALSE;
  if (n == 0)
    return push (m, &v);

  negative = (p[n - 1] & 0x80) != 0;
  /* Beyond 8 bytes, every byte must only extend the sign. */
  for (guint64 i = 8; i < n; i++)
    fits &= p[i] == (negative ? 0xff : 0x00);
  if (n > 8 && fits && ((p[7] & 0x80) != 0) != negative)
    fits = FALSE;

  if (fits)
    {
      guint64 u = little_endian (p, (guint) MIN (n, 8));

      if (negative && n < 8)
        u |= G_MAXUINT64 << (8 * n);
      v.v.integer = (gint64) u;
      return push (m, &v);
    }

  {
    double value = 0;

    for (guint64 i = n; i > 0; i--)
      value = value * 256 + (negative ? (double) (0xff - p[i - 1]) : (double) p[i - 1]);
    v.kind = HR_PICKLE_BIG_INT;
    v.v.real = negative ? -(value + 1) : value;
    return push (m, &v);
  }
}

static gboolean
refuse (Machine *m)
{
  const char *name = opcode_name (m->op);

  switch (m->op)
    {
    case OP_GLOBAL:
    case OP_INST:
      {
        /* Named only: "module\nname\n", never looked up. */
        const guint8 *start = m->data + m->pos;
        gsize left = m->length - m->pos;
        const guint8 *nl = memchr (start, '\n', MIN (left, 256));
        const guint8 *nl2 = nl != NULL ? memchr (nl + 1, '\n', MIN (left - (nl + 1 - start),
                                                                    256)) : NULL;

        if (nl != NULL && nl2 != NULL)
          {
            g_autofree char *module = hr_text_printable ((const char *) start, nl - start);
            g_autofree char *attr = hr_text_printable ((const char *) nl + 1, nl2 - nl - 1);

            return fail (m, HR_ERROR_INVALID,
                         _("opcode %s (0x%02X) would import %s.%s to call it; Headroom reads "
                           "only plain data (dicts, lists, strings, numbers) and runs nothing "
                           "from a file"), name, m->op, module, attr);
          }
      }
      G_GNUC_FALLTHROUGH;
    case OP_STACK_GLOBAL:
      return fail (m, HR_ERROR_INVALID,
                   _("opcode %s (0x%02X) would import a Python name; Headroom reads only plain "
                     "data (dicts, lists, strings, numbers) and runs nothing from a file"),
                   name, m->op);
    case OP_REDUCE:
      return fail (m, HR_ERROR_INVALID,
                   _("opcode %s (0x%02X) would call a Python function; Headroom reads only plain "
                     "data (dicts, lists, strings, numbers) and runs nothing from a file"),
                   name, m->op);
    case OP_BUILD:
      return fail (m, HR_ERROR_INVALID,
                   _("opcode %s (0x%02X) would call code to set an object's state; Headroom "
                     "reads only plain data (dicts, lists, strings, numbers) and runs nothing "
                     "from a file"), name, m->op);
    case OP_OBJ:
    case OP_NEWOBJ:
    case OP_NEWOBJ_EX:
      return fail (m, HR_ERROR_INVALID,
                   _("opcode %s (0x%02X) would call a class to build an object; Headroom reads "
                     "only plain data (dicts, lists, strings, numbers) and runs nothing from a "
                     "file"), name, m->op);
    case OP_EXT1:
    case OP_EXT2:
    case OP_EXT4:
    case OP_PERSID:
    case OP_BINPERSID:
    case OP_NEXT_BUFFER:
    case OP_READONLY_BUFFER:
      return fail (m, HR_ERROR_INVALID,
                   _("opcode %s (0x%02X) would fetch an object from outside the file; Headroom "
                     "reads only plain data (dicts, lists, strings, numbers)"), name, m->op);
    case OP_EMPTY_SET:
    case OP_ADDITEMS:
    case OP_FROZENSET:
      return fail (m, HR_ERROR_INVALID,
                   _("opcode %s (0x%02X) makes a set, which a memory snapshot never holds"),
                   name, m->op);
    default:
      if (name != NULL)
        return fail (m, HR_ERROR_INVALID,
                     _("opcode %s (0x%02X) belongs to pickle protocols 0 and 1 (text); Headroom "
                       "reads protocols 2 to 5"), name, m->op);
      return fail (m, HR_ERROR_PARSE, _("0x%02X is no pickle opcode"), m->op);
    }
}

/* PROTO, FRAME and STOP: the pickle's framing. */
static gboolean
step_framing (Machine  *m,
              gboolean *stop)
{
  const guint8 *arg;

  switch (m->op)
    {
    case OP_PROTO:
      if (!take (m, 1, &arg))
        return FALSE;
      if (arg[0] < 2 || arg[0] > 5)
        return fail (m, HR_ERROR_INVALID, _("pickle protocol %u; Headroom reads protocols 2 to 5"),
                     arg[0]);
      return TRUE;

    case OP_FRAME:
      /* A hint of how much follows; the data is read as it comes. */
      if (!take (m, 8, &arg))
        return FALSE;
      if (little_endian (arg, 8) > m->length - m->pos)
        return fail (m, HR_ERROR_PARSE, _("a FRAME of %" PRIu64 " bytes, and %"
                                          PRIu64 " are left: the file is cut short"),
                     little_endian (arg, 8), (guint64) (m->length - m->pos));
      return TRUE;

    case OP_STOP:
      if (!need (m, 1))
        return FALSE;
      m->pickle->root = *top (m, 0);
      *stop = TRUE;
      return TRUE;

    default:
      g_assert_not_reached ();
      return FALSE;
    }
}

/* MARK, POP, POP_MARK and DUP: the stack and its marks. */
static gboolean
step_stack (Machine *m)
{
  HrPickleValue v = { HR_PICKLE_NONE, 0, { 0 } };
  guint start;

  switch (m->op)
    {
    case OP_MARK:
      if (m->marks->len >= m->limits.max_marks)
        return fail (m, HR_ERROR_TOO_LARGE, _("more than %u MARKs open at once"),
                     m->limits.max_marks);
      g_array_append_val (m->marks, m->stack->len);
      return TRUE;

    case OP_POP:
      /* Lib/pickle.py: with nothing above the mark, the mark goes. */
      if (m->marks->len > 0 && m->stack->len == g_array_index (m->marks, guint,
                                                                m->marks->len - 1))
        {
          g_array_set_size (m->marks, m->marks->len - 1);
          return TRUE;
        }
      if (!need (m, 1))
        return FALSE;
      g_array_set_size (m->stack, m->stack->len - 1);
      return TRUE;

    case OP_POP_MARK:
      if (!mark_start (m, &start))
        return FALSE;
      pop_mark (m, start);
      return TRUE;

    case OP_DUP:
      if (!need (m, 1))
        return FALSE;
      v = *top (m, 0);
      return push_again (m, &v);

    default:
      g_assert_not_reached ();
      return FALSE;
    }
}

/* The opcodes that push one value read from their argument: None,
 * booleans, integers, floats, strings and bytes. */
static gboolean
step_scalar (Machine *m)
{
  const guint8 *arg;
  HrPickleValue v = { HR_PICKLE_NONE, 0, { 0 } };

  switch (m->op)
    {
    case OP_NONE:
      return push (m, &v);

    case OP_NEWTRUE:
    case OP_NEWFALSE:
      v.kind = HR_PICKLE_BOOL;
      v.v.boolean = m->op == OP_NEWTRUE;
      return push (m, &v);

    case OP_BININT:
      if (!take (m, 4, &arg))
        return FALSE;
      v.kind = HR_PICKLE_INT;
      v.v.integer = (gint32) (guint32) little_endian (arg, 4);
      return push (m, &v);

    case OP_BININT1:
      if (!take (m, 1, &arg))
        return FALSE;
      v.kind = HR_PICKLE_INT;
      v.v.integer = arg[0];
      return push (m, &v);

    case OP_BININT2:
      if (!take (m, 2, &arg))
        return FALSE;
      v.kind = HR_PICKLE_INT;
      v.v.integer = (gint64) little_endian (arg, 2);
      return push (m, &v);

    case OP_LONG1:
      if (!take (m, 1, &arg))
        return FALSE;
      return push_long (m, arg[0]);

    case OP_LONG4:
      {
        gint32 n;

        if (!take (m, 4, &arg))
          return FALSE;
        n = (gint32) (guint32) little_endian (arg, 4);
        if (n < 0)
          return fail (m, HR_ERROR_INVALID, _("LONG4 with a negative size"));
        return push_long (m, (guint64) n);
      }

    case OP_BINFLOAT:
      {
        guint64 bits = 0;

        if (!take (m, 8, &arg))
          return FALSE;
        for (guint i = 0; i < 8; i++)
          bits = (bits << 8) | arg[i];
        v.kind = HR_PICKLE_FLOAT;
        memcpy (&v.v.real, &bits, sizeof bits);
        return push (m, &v);
      }

    case OP_SHORT_BINUNICODE:
    case OP_SHORT_BINBYTES:
      if (!take (m, 1, &arg))
        return FALSE;
      return push_string (m, m->op == OP_SHORT_BINUNICODE ? HR_PICKLE_STRING : HR_PICKLE_BYTES,
                          arg[0]);

    case OP_BINUNICODE:
    case OP_BINBYTES:
      if (!take (m, 4, &arg))
        return FALSE;
      return push_string (m, m->op == OP_BINUNICODE ? HR_PICKLE_STRING : HR_PICKLE_BYTES,
                          little_endian (arg, 4));

    case OP_BINUNICODE8:
    case OP_BINBYTES8:
    case OP_BYTEARRAY8:
      if (!take (m, 8, &arg))
        return FALSE;
      return push_string (m, m->op == OP_BINUNICODE8 ? HR_PICKLE_STRING : HR_PICKLE_BYTES,
                          little_endian (arg, 8));

    default:
      g_assert_not_reached ();
      return FALSE;
    }
}

/* The opcodes that make or fill a tuple, list or dict. */
static gboolean
step_container (Machine *m)
{
  HrPickleValue v = { HR_PICKLE_NONE, 0, { 0 } };
  guint start;

  switch (m->op)
    {
    case OP_EMPTY_LIST:
    case OP_EMPTY_DICT:
    case OP_EMPTY_TUPLE:
      v.kind = m->op == OP_EMPTY_LIST ? HR_PICKLE_LIST
               : m->op == OP_EMPTY_DICT ? HR_PICKLE_DICT : HR_PICKLE_TUPLE;
      v.v.container = container_new (m, v.kind);
      return push (m, &v);

    case OP_TUPLE1:
    case OP_TUPLE2:
    case OP_TUPLE3:
      {
        guint n = m->op - OP_TUPLE1 + 1;

        if (!need (m, n))
          return FALSE;
        return push_container (m, HR_PICKLE_TUPLE, m->stack->len - n);
      }

    case OP_TUPLE:
    case OP_LIST:
      if (!mark_start (m, &start))
        return FALSE;
      if (!push_container (m, m->op == OP_TUPLE ? HR_PICKLE_TUPLE : HR_PICKLE_LIST, start))
        return FALSE;
      g_array_set_size (m->marks, m->marks->len - 1);
      return TRUE;

    case OP_DICT:
      if (!mark_start (m, &start))
        return FALSE;
      if ((m->stack->len - start) % 2 != 0)
        return fail (m, HR_ERROR_PARSE, _("DICT with a key and no value"));
      if (!push_container (m, HR_PICKLE_DICT, start))
        return FALSE;
      g_array_set_size (m->marks, m->marks->len - 1);
      return TRUE;

    case OP_APPEND:
    case OP_SETITEM:
      {
        guint n = m->op == OP_APPEND ? 1 : 2;
        HrPickleValue *target;

        if (!need (m, n + 1))
          return FALSE;
        target = top (m, n);
        if (target->kind != (m->op == OP_APPEND ? HR_PICKLE_LIST : HR_PICKLE_DICT))
          return fail (m, HR_ERROR_INVALID, _("%s on a value of type %s"), opcode_name (m->op),
                       hr_pickle_kind_name (target->kind));
        if (!container_append (m, target->v.container, top (m, n - 1), n))
          return FALSE;
        g_array_set_size (m->stack, m->stack->len - n);
        return TRUE;
      }

    case OP_APPENDS:
    case OP_SETITEMS:
      {
        HrPickleValue *target;
        guint n;

        if (!mark_start (m, &start))
          return FALSE;
        n = m->stack->len - start;
        if (start == 0 || (m->marks->len > 1 &&
                           start == g_array_index (m->marks, guint, m->marks->len - 2)))
          return fail (m, HR_ERROR_PARSE, _("%s with nothing to add to"), opcode_name (m->op));
        target = &g_array_index (m->stack, HrPickleValue, start - 1);
        if (target->kind != (m->op == OP_APPENDS ? HR_PICKLE_LIST : HR_PICKLE_DICT))
          return fail (m, HR_ERROR_INVALID, _("%s on a value of type %s"), opcode_name (m->op),
                       hr_pickle_kind_name (target->kind));
        if (m->op == OP_SETITEMS && n % 2 != 0)
          return fail (m, HR_ERROR_PARSE, _("SETITEMS with a key and no value"));
        if (n > 0 && !container_append (m, target->v.container,
                                        &g_array_index (m->stack, HrPickleValue, start), n))
          return FALSE;
        pop_mark (m, start);
        return TRUE;
      }

    default:
      g_assert_not_reached ();
      return FALSE;
    }
}

/* The memo: PUT and GET. */
static gboolean
step_memo (Machine *m)
{
  const guint8 *arg;

  switch (m->op)
    {
    case OP_BINPUT:
      if (!take (m, 1, &arg))
        return FALSE;
      return memo_put (m, arg[0]);

    case OP_LONG_BINPUT:
      if (!take (m, 4, &arg))
        return FALSE;
      return memo_put (m, little_endian (arg, 4));

    case OP_MEMOIZE:
      return memo_put (m, m->memo->len);

    case OP_BINGET:
      if (!take (m, 1, &arg))
        return FALSE;
      return memo_get (m, arg[0]);

    case OP_LONG_BINGET:
      if (!take (m, 4, &arg))
        return FALSE;
      return memo_get (m, little_endian (arg, 4));

    default:
      g_assert_not_reached ();
      return FALSE;
    }
}

static gboolean
step (Machine  *m,
      gboolean *stop)
{
  m->op_pos = m->pos;
  if (m->pos >= m->length)
    return fail (m, HR_ERROR_PARSE, _("the file ends before the pickle's STOP: it is cut short"));
  m->op = m->data[m->pos++];

  switch (m->op)
    {
    case OP_PROTO:
    case OP_FRAME:
    case OP_STOP:
      return step_framing (m, stop);

    case OP_MARK:
    case OP_POP:
    case OP_POP_MARK:
    case OP_DUP:
      return step_stack (m);

    case OP_NONE:
    case OP_NEWTRUE:
    case OP_NEWFALSE:
    case OP_BININT:
    case OP_BININT1:
    case OP_BININT2:
    case OP_LONG1:
    case OP_LONG4:
    case OP_BINFLOAT:
    case OP_SHORT_BINUNICODE:
    case OP_SHORT_BINBYTES:
    case OP_BINUNICODE:
    case OP_BINBYTES:
    case OP_BINUNICODE8:
    case OP_BINBYTES8:
    case OP_BYTEARRAY8:
      return step_scalar (m);

    case OP_EMPTY_LIST:
    case OP_EMPTY_DICT:
    case OP_EMPTY_TUPLE:
    case OP_TUPLE1:
    case OP_TUPLE2:
    case OP_TUPLE3:
    case OP_TUPLE:
    case OP_LIST:
    case OP_DICT:
    case OP_APPEND:
    case OP_SETITEM:
    case OP_APPENDS:
    case OP_SETITEMS:
      return step_container (m);

    case OP_BINPUT:
    case OP_LONG_BINPUT:
    case OP_MEMOIZE:
    case OP_BINGET:
    case OP_LONG_BINGET:
      return step_memo (m);

    default:
      return refuse (m);
    }
}

/* The pages of a mapping read more than a little while ago go back to
 * the kernel (a private read-only mapping reads them again from the file
 * if a string in them is used later). */
#define RELEASE_STEP ((gsize) 4 << 20)

static void
release_pages (Machine *m)
{
#if defined(MADV_DONTNEED)
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize end;

  if (m->pos < m->released + 2 * RELEASE_STEP)
    return;
  end = (m->pos - RELEASE_STEP) / page * page;
  if (end > m->released &&
      madvise ((void *) (m->data + m->released), end - m->released, MADV_DONTNEED) == 0)
    m->released = end;
#endif
}

HrPickle *
hr_pickle_parse_full (const char            *display_name,
                      const guint8          *data,
                      gsize                  length,
                      const HrPickleOptions *options,
                      GError               **error)
{
  g_autoptr(HrPickle) pickle = NULL;
  g_autoptr(GArray) stack = NULL;
  g_autoptr(GArray) marks = NULL;
  g_autoptr(GArray) memo = NULL;
  HrPickleLimits defaults = {
    HR_PICKLE_DEFAULT_MAX_VALUES, HR_PICKLE_DEFAULT_MAX_MARKS, HR_PICKLE_DEFAULT_MAX_STRING,
    HR_PICKLE_DEFAULT_MAX_INT_BYTES,
  };
  Machine m = { 0 };
  gboolean stop = FALSE;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  pickle = g_new0 (HrPickle, 1);
  pickle->pool.chunks = g_ptr_array_new_with_free_func (g_free);
  stack = g_array_new (FALSE, FALSE, sizeof (HrPickleValue));
  marks = g_array_new (FALSE, FALSE, sizeof (guint));
  memo = g_array_new (FALSE, FALSE, sizeof (HrPickleValue));

  m.name = display_name != NULL ? display_name : "<data>";
  m.data = data;
  m.length = length;
  m.limits = options != NULL && options->limits != NULL ? *options->limits : defaults;
  m.stack = stack;
  m.marks = marks;
  m.memo = memo;
  m.pickle = pickle;
  m.error = error;
  if (options != NULL)
    {
      m.reduce = options->reduce;
      m.reused = options->reused;
      m.user_data = options->user_data;
      /* page-aligned, as a mapping starts */
      m.mapped = options->mapped && ((guintptr) data % 4096) == 0;
    }

  /* Protocols 2 to 5 begin with PROTO. */
  if (length < 2 || data[0] != OP_PROTO)
    {
      m.op_pos = 0;
      fail (&m, HR_ERROR_PARSE, _("not a pickle of protocol 2 to 5 (it does not start with "
                                  "PROTO)"));
      return NULL;
    }
  pickle->protocol = data[1];

  for (guint64 n = 1; !stop; n++)
    {
      if (!step (&m, &stop))
        return NULL;
      if (m.mapped && n % 65536 == 0)
        release_pages (&m);
    }

  return g_steal_pointer (&pickle);
}

HrPickle *
hr_pickle_parse (const char           *display_name,
                 const guint8         *data,
                 gsize                 length,
                 const HrPickleLimits *limits,
                 GError              **error)
{
  HrPickleOptions options = { limits, NULL, NULL, NULL, FALSE };

  return hr_pickle_parse_full (display_name, data, length, &options, error);
}
