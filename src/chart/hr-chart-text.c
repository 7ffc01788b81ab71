/* hr-chart-text.c: measuring and drawing text with pango
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-chart"

#include <math.h>
#include <string.h>

#include "hr-chart-text.h"

static cairo_font_options_t *
font_options (void)
{
  cairo_font_options_t *options = cairo_font_options_create ();

  /* Unhinted metrics: text measures the same at every scale and on every
   * surface, so a layout made for the screen holds in a PDF. */
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  return options;
}

static void
setup_context (PangoContext *context)
{
  cairo_font_options_t *options = font_options ();

  pango_cairo_context_set_resolution (context, HR_CHART_DPI);
  pango_cairo_context_set_font_options (context, options);
  pango_context_set_round_glyph_positions (context, FALSE);
  cairo_font_options_destroy (options);
}

PangoContext *
hr_chart_pango_context_new (void)
{
  PangoContext *context = pango_font_map_create_context (pango_cairo_font_map_get_default ());

  setup_context (context);
  return context;
}

void
hr_chart_prepare_cairo (cairo_t *cr)
{
  cairo_font_options_t *options = font_options ();

  cairo_set_font_options (cr, options);
  cairo_font_options_destroy (options);
}

/* What decides a font: its family, its size in pango units and its
 * weight, from the style and which of its fonts. */
static void
font_spec (const HrChartStyle *style,
           HrChartFont         font,
           int                *size,
           gboolean           *bold)
{
  double points = style->font_size;

  *bold = FALSE;
  switch (font)
    {
    case HR_CHART_FONT_SMALL:
      points = style->small_size;
      break;
    case HR_CHART_FONT_TITLE:
      points = style->title_size;
      *bold = TRUE;
      break;
    case HR_CHART_FONT_BOLD:
      *bold = TRUE;
      break;
    case HR_CHART_FONT_SMALL_BOLD:
      points = style->small_size;
      *bold = TRUE;
      break;
    case HR_CHART_FONT_BODY:
    default:
      break;
    }
  *size = (int) (points * PANGO_SCALE);
}

static PangoFontDescription *
font_for (const HrChartStyle *style,
          HrChartFont         font)
{
  PangoFontDescription *desc = pango_font_description_new ();
  gboolean bold;
  int size;

  font_spec (style, font, &size, &bold);
  pango_font_description_set_family (desc, style->font_family);
  if (bold)
    pango_font_description_set_weight (desc, PANGO_WEIGHT_BOLD);
  pango_font_description_set_size (desc, size);
  return desc;
}

/* The wrap width in pango units as a layout takes it: -1 for none. */
static int
wrap_width (double max_width)
{
  return max_width > 0 ? (int) (max_width * PANGO_SCALE) : -1;
}

/* @text in @font, wrapped by words at @width pango units (-1: not
 * wrapped), its lines aligned by @alignment. */
static void
fill_layout (PangoLayout        *layout,
             const HrChartStyle *style,
             HrChartFont         font,
             const char         *text,
             int                 width,
             PangoAlignment      alignment)
{
  PangoFontDescription *desc = font_for (style, font);

  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_text (layout, text != NULL ? text : "", -1);
  if (width >= 0)
    {
      pango_layout_set_width (layout, width);
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    }
  pango_layout_set_alignment (layout, alignment);
}

PangoLayout *
hr_chart_text_layout (PangoContext       *context,
                      const HrChartStyle *style,
                      HrChartFont         font,
                      const char         *text,
                      double              max_width)
{
  PangoLayout *layout = pango_layout_new (context);

  fill_layout (layout, style, font, text, wrap_width (max_width), PANGO_ALIGN_LEFT);
  return layout;
}

/* ---- the text cache ----
 *
 * Shaping is what text costs.  A layout step measures the same text
 * several times (each way it tries to fit a label), the next layout of
 * the same chart measures most of it again, and a screen's render draws
 * texts it drew before (ticks, legend, titles, cards' names): so the
 * sizes measured and the texts drawn for a screen (their glyphs, see
 * ScreenText) are kept on the context, each by everything that decides
 * it, the least recently used going first when there are too many.  Both
 * are cleared when the context changes (its font map found new fonts,
 * say), which pango_context_get_serial() tells.  Nothing kept holds the
 * context (a kept PangoLayout would, and the context would never go). */

#define TEXT_CACHE_SIZES   4096
/* A chart draws a few dozen labels, the advisor's a few hundred; a
 * label's glyphs take a few hundred bytes. */
#define TEXT_CACHE_TEXTS   512
/* Paths a screen's render kept (hr_chart_path_keep()): a few per chart. */
#define TEXT_CACHE_PATHS   64

static GQuark
text_cache_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("hr-chart-text-cache"));
  return (GQuark) quark;
}

/* What decides a text's layout, as bytes: the font, the wrap width,
 * the alignment, then the family and the text, each ended by a NUL. */
typedef struct {
  gint32 size;         /* pango units */
  gint32 bold;
  gint32 width;        /* pango units; -1: not wrapped */
  gint32 alignment;    /* PangoAlignment */
} KeyHead;

typedef struct {
  guint hash;
  gsize len;
  char  bytes[];
} TextKey;

typedef struct {
  GList    link;       /* in the queue; its data is the entry */
  gpointer value;
  TextKey  key;        /* last: its bytes follow */
} CacheEntry;

typedef struct {
  GHashTable     *table;   /* TextKey → CacheEntry, both in the entry */
  GQueue          order;   /* the most recently used first */
  guint           most;
  GDestroyNotify  free_value;
  guint           hits;
  guint           misses;
} Lru;

typedef struct {
  guint serial;        /* the context's, when the entries were made */
  Lru   sizes;         /* TextSize */
  Lru   texts;         /* ScreenText: texts drawn for a screen */
  guint glyph_draws;   /* layouts drawn as glyphs (for a screen) */
  guint pango_draws;   /* and by pango */
  Lru   paths;         /* cairo_path_t, for a screen */
} TextCache;

typedef struct {
  double width;
  double height;
} TextSize;

static guint
text_key_hash (gconstpointer data)
{
  const TextKey *key = data;

  return key->hash;
}

static gboolean
text_key_equal (gconstpointer a,
                gconstpointer b)
{
  const TextKey *x = a, *y = b;

  return x->hash == y->hash && x->len == y->len && memcmp (x->bytes, y->bytes, x->len) == 0;
}

static void
lru_init (Lru            *lru,
          guint           most,
          GDestroyNotify  free_value)
{
  lru->table = g_hash_table_new (text_key_hash, text_key_equal);
  g_queue_init (&lru->order);
  lru->most = most;
  lru->free_value = free_value;
}

static void
cache_entry_free (Lru        *lru,
                  CacheEntry *entry)
{
  lru->free_value (entry->value);
  g_free (entry);
}

static void
lru_clear (Lru *lru)
{
  GList *link;

  g_hash_table_remove_all (lru->table);
  /* (the links are the entries': popped, not freed) */
  while ((link = g_queue_pop_head_link (&lru->order)) != NULL)
    cache_entry_free (lru, link->data);
}

static void
lru_destroy (Lru *lru)
{
  lru_clear (lru);
  g_hash_table_unref (lru->table);
}

static gpointer
lru_lookup (Lru           *lru,
            const TextKey *key)
{
  CacheEntry *entry = g_hash_table_lookup (lru->table, key);

  if (entry == NULL)
    {
      lru->misses++;
      return NULL;
    }
  lru->hits++;
  g_queue_unlink (&lru->order, &entry->link);
  g_queue_push_head_link (&lru->order, &entry->link);
  return entry->value;
}

/* Keeps @value (taken) under a copy of @key, which is not there yet. */
static void
lru_insert (Lru           *lru,
            const TextKey *key,
            gpointer       value)
{
  CacheEntry *entry;

  if (lru->order.length >= lru->most)
    {
      CacheEntry *oldest = g_queue_pop_tail_link (&lru->order)->data;

      g_hash_table_remove (lru->table, &oldest->key);
      cache_entry_free (lru, oldest);
    }
  entry = g_malloc (sizeof (CacheEntry) + key->len);
  entry->link = (GList) { entry, NULL, NULL };
  entry->value = value;
  entry->key.hash = key->hash;
  entry->key.len = key->len;
  memcpy (entry->key.bytes, key->bytes, key->len);
  g_queue_push_head_link (&lru->order, &entry->link);
  g_hash_table_insert (lru->table, &entry->key, entry);
}

static void
text_cache_free (gpointer data)
{
  TextCache *cache = data;

  lru_destroy (&cache->sizes);
  lru_destroy (&cache->texts);
  lru_destroy (&cache->paths);
  g_free (cache);
}

static void screen_text_free (gpointer data);

/* @context's cache, emptied first if the context changed since. */
static TextCache *
text_cache_get (PangoContext *context)
{
  TextCache *cache = g_object_get_qdata (G_OBJECT (context), text_cache_quark ());
  guint serial = pango_context_get_serial (context);

  if (cache == NULL)
    {
      cache = g_new0 (TextCache, 1);
      lru_init (&cache->sizes, TEXT_CACHE_SIZES, g_free);
      lru_init (&cache->texts, TEXT_CACHE_TEXTS, screen_text_free);
      lru_init (&cache->paths, TEXT_CACHE_PATHS, (GDestroyNotify) cairo_path_destroy);
      cache->serial = serial;
      g_object_set_qdata_full (G_OBJECT (context), text_cache_quark (), cache, text_cache_free);
    }
  else if (cache->serial != serial)
    {
      lru_clear (&cache->sizes);
      lru_clear (&cache->texts);
      lru_clear (&cache->paths);
      cache->serial = serial;
    }
  return cache;
}

/* A key on the stack for most texts, on the heap for long ones. */
typedef struct {
  TextKey *key;
  union {
    TextKey key;
    char    bytes[320];
  } local;
} KeyBuffer;

static void
key_buffer_clear (KeyBuffer *buffer)
{
  if (buffer->key != &buffer->local.key)
    g_free (buffer->key);
}

/* FNV-1a, a word at a time: keys are hashed at every label measured and
 * drawn, so eight bytes go at once. */
static guint
hash_bytes (const char *bytes,
            gsize       len)
{
  guint64 hash = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 word;

      memcpy (&word, bytes + i, 8);
      hash = (hash ^ word) * G_GUINT64_CONSTANT (0x100000001b3);
      hash ^= hash >> 29;
    }
  for (; i < len; i++)
    hash = (hash ^ (guchar) bytes[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return (guint) (hash ^ (hash >> 32));
}

static const TextKey *
key_make (KeyBuffer          *buffer,
          const HrChartStyle *style,
          HrChartFont         font,
          const char         *text,
          int                 width,
          PangoAlignment      alignment)
{
  const char *family = style->font_family != NULL ? style->font_family : "";
  gsize family_len = strlen (family) + 1;
  gsize text_len;
  KeyHead head = { 0 };
  gboolean bold;
  TextKey *key;

  if (text == NULL)
    text = "";
  text_len = strlen (text) + 1;
  font_spec (style, font, &head.size, &bold);
  head.bold = bold;
  head.width = width;
  head.alignment = alignment;

  if (sizeof (TextKey) + sizeof head + family_len + text_len <= sizeof buffer->local)
    key = &buffer->local.key;
  else
    key = g_malloc (sizeof (TextKey) + sizeof head + family_len + text_len);
  buffer->key = key;
  key->len = sizeof head + family_len + text_len;
  memcpy (key->bytes, &head, sizeof head);
  memcpy (key->bytes + sizeof head, family, family_len);
  memcpy (key->bytes + sizeof head + family_len, text, text_len);
  key->hash = hash_bytes (key->bytes, key->len);
  return key;
}

void
hr_chart_text_size (PangoContext       *context,
                    const HrChartStyle *style,
                    HrChartFont         font,
                    const char         *text,
                    double              max_width,
                    double             *width,
                    double             *height)
{
  TextCache *cache = text_cache_get (context);
  KeyBuffer buffer;
  const TextKey *key = key_make (&buffer, style, font, text, wrap_width (max_width),
                                 PANGO_ALIGN_LEFT);
  TextSize *size = lru_lookup (&cache->sizes, key);

  if (size == NULL)
    {
      g_autoptr(PangoLayout) layout = hr_chart_text_layout (context, style, font, text,
                                                            max_width);
      PangoRectangle logical;

      pango_layout_get_extents (layout, NULL, &logical);
      size = g_new (TextSize, 1);
      size->width = (double) logical.width / PANGO_SCALE;
      size->height = (double) logical.height / PANGO_SCALE;
      lru_insert (&cache->sizes, key, size);
    }
  key_buffer_clear (&buffer);
  if (width != NULL)
    *width = size->width;
  if (height != NULL)
    *height = size->height;
}

void
hr_chart_text_cache_get_stats (PangoContext            *context,
                               HrChartTextCacheStats   *stats)
{
  TextCache *cache;

  g_return_if_fail (PANGO_IS_CONTEXT (context));
  g_return_if_fail (stats != NULL);

  cache = text_cache_get (context);
  stats->size_hits = cache->sizes.hits;
  stats->size_misses = cache->sizes.misses;
  stats->n_sizes = cache->sizes.order.length;
  stats->layout_hits = cache->texts.hits;
  stats->layout_misses = cache->texts.misses;
  stats->n_layouts = cache->texts.order.length;
  stats->glyph_draws = cache->glyph_draws;
  stats->pango_draws = cache->pango_draws;
  stats->path_hits = cache->paths.hits;
  stats->path_misses = cache->paths.misses;
}

void
hr_chart_label_place (PangoContext       *context,
                      const HrChartStyle *style,
                      HrChartLabel       *label,
                      double              x,
                      double              y)
{
  double w, h;

  hr_chart_text_size (context, style, label->font, label->text, label->max_width, &w, &h);
  label->box.width = w;
  label->box.height = h;
  label->box.y = y;
  label->box.x = label->align == HR_ALIGN_CENTER ? x - w / 2
               : label->align == HR_ALIGN_END ? x - w
               : x;
}

static double
text_width (PangoContext       *context,
            const HrChartStyle *style,
            HrChartFont         font,
            const char         *text)
{
  double width;

  hr_chart_text_size (context, style, font, text, 0, &width, NULL);
  return width;
}

static char *
truncated (const char *text,
           glong       n_chars,
           const char *suffix)
{
  g_autofree char *head = g_strndup (text, g_utf8_offset_to_pointer (text, n_chars) - text);

  return g_strconcat (g_strchomp (head), "…", suffix, NULL);
}

char *
hr_chart_text_ellipsize (PangoContext       *context,
                         const HrChartStyle *style,
                         HrChartFont         font,
                         const char         *text,
                         const char         *suffix,
                         double              max_width)
{
  g_autofree char *whole = NULL;
  g_autofree char *shortest = NULL;
  glong lo = 0, hi;

  g_return_val_if_fail (text != NULL, NULL);

  if (suffix == NULL)
    suffix = "";

  whole = g_strconcat (text, suffix, NULL);
  if (text_width (context, style, font, whole) <= max_width)
    return g_steal_pointer (&whole);

  shortest = truncated (text, 0, suffix);
  if (suffix[0] != '\0' && text_width (context, style, font, shortest) > max_width)
    return hr_chart_text_ellipsize (context, style, font, text, "", max_width);

  /* the longest start of @text that fits, by bisection */
  hi = g_utf8_strlen (text, -1);
  while (lo < hi)
    {
      glong mid = (lo + hi + 1) / 2;
      g_autofree char *candidate = truncated (text, mid, suffix);

      if (text_width (context, style, font, candidate) <= max_width)
        lo = mid;
      else
        hi = mid - 1;
    }
  return truncated (text, lo, suffix);
}

HrChartLabel
hr_chart_label_new (PangoContext       *context,
                    const HrChartStyle *style,
                    char               *text,
                    HrChartFont         font,
                    HrChartTextRole     role,
                    HrAlign             align,
                    double              max_width,
                    double              x,
                    double              y)
{
  HrChartLabel label = { 0 };

  label.text = text;
  label.font = font;
  label.color_role = role;
  label.align = align;
  label.max_width = max_width;
  hr_chart_label_place (context, style, &label, x, y);
  return label;
}

static PangoAlignment
pango_alignment (HrAlign align)
{
  switch (align)
    {
    case HR_ALIGN_CENTER:
      return PANGO_ALIGN_CENTER;
    case HR_ALIGN_END:
      return PANGO_ALIGN_RIGHT;
    case HR_ALIGN_START:
    default:
      return PANGO_ALIGN_LEFT;
    }
}

/* ---- the text sink ---- */

typedef struct {
  char    *text;
  double   x;          /* the anchor, in device units */
  double   baseline;
  double   size;       /* the font's em, in device units */
  HrAlign  anchor;
  gboolean bold;
  char    *family;
  HrRgba   color;
} SinkLine;

struct _HrChartTextSink {
  GArray *lines;       /* SinkLine */
  GHashTable *families;  /* asked family → what fontconfig gives */
};

static const cairo_user_data_key_t sink_key;

static void
sink_line_clear (gpointer data)
{
  SinkLine *line = data;

  g_free (line->text);
  g_free (line->family);
}

HrChartTextSink *
hr_chart_text_sink_new (void)
{
  HrChartTextSink *sink = g_new0 (HrChartTextSink, 1);

  sink->lines = g_array_new (FALSE, TRUE, sizeof (SinkLine));
  g_array_set_clear_func (sink->lines, sink_line_clear);
  sink->families = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return sink;
}

void
hr_chart_text_sink_free (HrChartTextSink *sink)
{
  if (sink == NULL)
    return;
  g_array_unref (sink->lines);
  g_hash_table_unref (sink->families);
  g_free (sink);
}

void
hr_chart_text_sink_attach (HrChartTextSink *sink,
                           cairo_t         *cr)
{
  g_return_if_fail (sink != NULL && cr != NULL);
  cairo_set_user_data (cr, &sink_key, sink, NULL);
}

guint
hr_chart_text_sink_get_n (HrChartTextSink *sink)
{
  g_return_val_if_fail (sink != NULL, 0);
  return sink->lines->len;
}

/* The family fontconfig draws @family with ("Sans" is DejaVu Sans here),
 * so that the SVG names the face the layout was measured in. */
static const char *
resolved_family (HrChartTextSink *sink,
                 PangoContext    *context,
                 const char      *family)
{
  const char *known = g_hash_table_lookup (sink->families, family);

  if (known == NULL)
    {
      PangoFontDescription *desc = pango_font_description_from_string (family);
      PangoFont *font;
      char *name = NULL;

      pango_font_description_set_size (desc, 10 * PANGO_SCALE);
      font = pango_context_load_font (context, desc);
      if (font != NULL)
        {
          PangoFontDescription *got = pango_font_describe (font);

          name = g_strdup (pango_font_description_get_family (got));
          pango_font_description_free (got);
          g_object_unref (font);
        }
      pango_font_description_free (desc);
      known = name != NULL ? name : g_strdup (family);
      g_hash_table_insert (sink->families, g_strdup (family), (gpointer) known);
    }
  return known;
}

/* Records @layout's lines, drawn with its top-left corner at the current
 * user-space (x, y) and aligned in a box @box_width wide (0: as laid out). */
static void
sink_layout (HrChartTextSink    *sink,
             cairo_t            *cr,
             const HrChartStyle *style,
             PangoLayout        *layout,
             const HrRgba       *color,
             double              x,
             double              y,
             HrAlign             align,
             double              box_width)
{
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  const char *text = pango_layout_get_text (layout);
  const PangoFontDescription *desc = pango_layout_get_font_description (layout);
  double size = pango_font_description_get_size (desc) / (double) PANGO_SCALE *
                HR_CHART_DPI / 72.0;
  double dx = 0, dy = size;
  const char *family = resolved_family (sink, pango_layout_get_context (layout),
                                        style->font_family);

  cairo_user_to_device_distance (cr, &dx, &dy);
  do
    {
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (iter);
      PangoRectangle logical;
      SinkLine out = { 0 };
      double ax, ay;
      g_autofree char *piece = NULL;

      if (line->length <= 0)
        continue;
      piece = g_strndup (text + line->start_index, line->length);
      g_strchomp (piece);
      if (piece[0] == '\0')
        continue;

      pango_layout_iter_get_line_extents (iter, NULL, &logical);
      ay = y + pango_layout_iter_get_baseline (iter) / (double) PANGO_SCALE;
      /* anchored as aligned, so text in another font stays in place */
      if (box_width > 0 && align == HR_ALIGN_CENTER)
        ax = x + box_width / 2;
      else if (box_width > 0 && align == HR_ALIGN_END)
        ax = x + box_width;
      else if (align == HR_ALIGN_CENTER)
        ax = x + (logical.x + logical.width / 2.0) / PANGO_SCALE;
      else if (align == HR_ALIGN_END)
        ax = x + (logical.x + logical.width) / (double) PANGO_SCALE;
      else
        ax = x + logical.x / (double) PANGO_SCALE;

      cairo_user_to_device (cr, &ax, &ay);
      out.text = g_steal_pointer (&piece);
      out.x = ax;
      out.baseline = ay;
      out.size = hypot (dx, dy);
      out.anchor = align;
      out.bold = pango_font_description_get_weight (desc) >= PANGO_WEIGHT_BOLD;
      out.family = g_strdup (family);
      out.color = *color;
      g_array_append_val (sink->lines, out);
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

static void
append_number (GString *svg,
               double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  /* two decimals of a pixel are finer than any screen or print */
  g_string_append (svg, g_ascii_formatd (buffer, sizeof buffer, "%.2f", value));
}

void
hr_chart_text_sink_write_svg (HrChartTextSink *sink,
                              GString         *svg)
{
  g_return_if_fail (sink != NULL && svg != NULL);

  for (guint i = 0; i < sink->lines->len; i++)
    {
      const SinkLine *line = &g_array_index (sink->lines, SinkLine, i);
      g_autofree char *text = g_markup_escape_text (line->text, -1);
      g_autofree char *family = g_markup_escape_text (line->family, -1);
      const char *generic = strstr (family, "Serif") != NULL && strstr (family, "Sans") == NULL
                              ? "serif" : strstr (family, "Mono") != NULL ? "monospace"
                                                                          : "sans-serif";

      g_string_append (svg, "<text x=\"");
      append_number (svg, line->x);
      g_string_append (svg, "\" y=\"");
      append_number (svg, line->baseline);
      g_string_append_printf (svg, "\" font-family=\"%s, %s\" font-size=\"", family, generic);
      append_number (svg, line->size);
      g_string_append_printf (svg, "\"%s fill=\"#%02X%02X%02X\"",
                              line->bold ? " font-weight=\"bold\"" : "",
                              (guint) round (CLAMP (line->color.red, 0, 1) * 255),
                              (guint) round (CLAMP (line->color.green, 0, 1) * 255),
                              (guint) round (CLAMP (line->color.blue, 0, 1) * 255));
      if (line->color.alpha < 1)
        {
          g_string_append (svg, " fill-opacity=\"");
          append_number (svg, line->color.alpha);
          g_string_append_c (svg, '"');
        }
      if (line->anchor == HR_ALIGN_CENTER)
        g_string_append (svg, " text-anchor=\"middle\"");
      else if (line->anchor == HR_ALIGN_END)
        g_string_append (svg, " text-anchor=\"end\"");
      g_string_append_printf (svg, " xml:space=\"preserve\">%s</text>\n", text);
    }
}

/* ---- drawing ---- */

static const cairo_user_data_key_t context_key;

typedef struct {
  PangoContext *context;
  gboolean      follows_cr;   /* made for @cr: follows its transformation */
  gboolean      for_screen;   /* glyphs only: see hr_chart_text_draw_for_screen() */
  TextCache    *cache;        /* the context's, when drawing with the layout step's */
} DrawContext;

/* A layout's glyphs as pango's cairo renderer would show them, kept with
 * the layout: each run's scaled font, and each glyph's index and offsets
 * in pango units, so that the positions come out as pango computes them
 * (pango_renderer_draw_layout_line(), pango_cairo_renderer_show_text_glyphs()
 * in pango 1.50: the line's logical x and baseline, the run's offsets,
 * then each glyph's advance and offsets).  A layout with anything else
 * in it (attributes, an unknown glyph drawn as a box, a rotated
 * context) has none and is drawn by pango. */
typedef struct {
  unsigned long index;
  int           x;            /* from the run's start */
  int           y;            /* 0: on the run's baseline */
} ScreenGlyph;

typedef struct {
  cairo_scaled_font_t *font;
  int                  x;     /* the run's start, from the layout's corner */
  int                  y;     /* its baseline */
  guint                first;
  guint                n;
} ScreenRun;

typedef struct {
  gboolean        simple;     /* FALSE: drawn by pango */
  PangoRectangle  logical;    /* the layout's */
  GArray         *runs;       /* ScreenRun */
  GArray         *glyphs;     /* ScreenGlyph */
} ScreenText;

static void
screen_text_free (gpointer data)
{
  ScreenText *st = data;

  for (guint i = 0; i < st->runs->len; i++)
    cairo_scaled_font_destroy (g_array_index (st->runs, ScreenRun, i).font);
  g_array_unref (st->runs);
  g_array_unref (st->glyphs);
  g_free (st);
}

static gboolean
screen_text_fill (ScreenText  *sg,
                  PangoLayout *layout)
{
  PangoLayoutIter *iter;
  gboolean simple = TRUE;

  if (pango_context_get_matrix (pango_layout_get_context (layout)) != NULL)
    return FALSE;

  iter = pango_layout_get_iter (layout);
  do
    {
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (iter);
      PangoRectangle logical;
      int baseline, x_off = 0;

      pango_layout_iter_get_line_extents (iter, NULL, &logical);
      baseline = pango_layout_iter_get_baseline (iter);
      for (GSList *l = line->runs; l != NULL && simple; l = l->next)
        {
          PangoGlyphItem *run = l->data;
          PangoGlyphString *glyphs = run->glyphs;
          PangoFont *font = run->item->analysis.font;
          int width = pango_glyph_string_get_width (glyphs);
          int position = 0;
          ScreenRun out = { 0 };

          /* colours, underlines, shapes, rises, vertical text: pango's */
          if (run->item->analysis.extra_attrs != NULL ||
              (run->item->analysis.flags & PANGO_ANALYSIS_FLAG_CENTERED_BASELINE) ||
              !PANGO_IS_CAIRO_FONT (font))
            {
              simple = FALSE;
              break;
            }
          out.font = pango_cairo_font_get_scaled_font (PANGO_CAIRO_FONT (font));
          if (out.font == NULL || cairo_scaled_font_status (out.font) != CAIRO_STATUS_SUCCESS)
            {
              simple = FALSE;
              break;
            }
          x_off += run->start_x_offset;
          out.x = logical.x + x_off;
          out.y = baseline - run->y_offset;
          out.first = sg->glyphs->len;
          for (int i = 0; i < glyphs->num_glyphs; i++)
            {
              const PangoGlyphInfo *gi = &glyphs->glyphs[i];

              if (gi->glyph != PANGO_GLYPH_EMPTY)
                {
                  ScreenGlyph glyph = { gi->glyph, position + gi->geometry.x_offset,
                                        gi->geometry.y_offset };

                  /* a missing glyph is a box with its code: pango draws it
                   * (a space draws nothing) */
                  if ((gi->glyph & PANGO_GLYPH_UNKNOWN_FLAG) &&
                      gi->glyph != (0x20 | PANGO_GLYPH_UNKNOWN_FLAG))
                    simple = FALSE;
                  else if (!(gi->glyph & PANGO_GLYPH_UNKNOWN_FLAG))
                    g_array_append_val (sg->glyphs, glyph);
                }
              position += gi->geometry.width;
            }
          out.n = sg->glyphs->len - out.first;
          if (out.n > 0)
            {
              cairo_scaled_font_reference (out.font);
              g_array_append_val (sg->runs, out);
            }
          x_off += width + run->end_x_offset;
        }
    }
  while (simple && pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
  return simple;
}

/* @text's glyphs for a screen, in @font, wrapped at @width pango units
 * (-1: not), aligned by @alignment: shaped the first time (on a layout
 * of the layout step's context, let go at once), then kept. */
static const ScreenText *
screen_text_get (DrawContext        *d,
                 const HrChartStyle *style,
                 HrChartFont         font,
                 const char         *text,
                 int                 width,
                 PangoAlignment      alignment)
{
  TextCache *cache = text_cache_get (d->context);
  KeyBuffer buffer;
  const TextKey *key = key_make (&buffer, style, font, text, width, alignment);
  ScreenText *st = lru_lookup (&cache->texts, key);

  if (st == NULL)
    {
      g_autoptr(PangoLayout) layout = pango_layout_new (d->context);

      fill_layout (layout, style, font, text, width, alignment);
      st = g_new0 (ScreenText, 1);
      st->runs = g_array_new (FALSE, FALSE, sizeof (ScreenRun));
      st->glyphs = g_array_new (FALSE, FALSE, sizeof (ScreenGlyph));
      pango_layout_get_extents (layout, NULL, &st->logical);
      st->simple = screen_text_fill (st, layout);
      lru_insert (&cache->texts, key, st);
    }
  key_buffer_clear (&buffer);
  return st;
}

/* Shows @st's glyphs with its top-left corner at (x, y) in @color, as
 * pango_cairo_show_layout() would show its layout there, but as glyphs
 * only (no text or clusters with them), without pango's renderer, and
 * without a save and a restore (the scaled font stays set for the next
 * label; the source is put back). */
static void
show_screen_text (cairo_t          *cr,
                  const ScreenText *st,
                  const HrRgba     *color,
                  double            x,
                  double            y)
{
  cairo_pattern_t *source;
  cairo_glyph_t stack[96];
  cairo_glyph_t *out;
  double x0, y0;

  g_assert (st->simple);
  if (st->glyphs->len == 0)
    return;

  source = cairo_pattern_reference (cairo_get_source (cr));
  hr_chart_set_color (cr, color);
  /* where pango starts: the current point, as cairo keeps it */
  cairo_move_to (cr, x, y);
  cairo_get_current_point (cr, &x0, &y0);
  out = st->glyphs->len <= G_N_ELEMENTS (stack) ? stack : g_new (cairo_glyph_t, st->glyphs->len);
  for (guint r = 0; r < st->runs->len; r++)
    {
      const ScreenRun *run = &g_array_index (st->runs, ScreenRun, r);
      double base_x = x0 + (double) run->x / PANGO_SCALE;
      double base_y = y0 + (double) run->y / PANGO_SCALE;

      for (guint i = 0; i < run->n; i++)
        {
          const ScreenGlyph *glyph = &g_array_index (st->glyphs, ScreenGlyph, run->first + i);
          cairo_glyph_t *g = &out[run->first + i];

          g->index = glyph->index;
          g->x = base_x + (double) glyph->x / PANGO_SCALE;
          g->y = glyph->y == 0 ? base_y : base_y + (double) glyph->y / PANGO_SCALE;
        }
      cairo_set_scaled_font (cr, run->font);
      cairo_show_glyphs (cr, out + run->first, run->n);
    }
  if (out != stack)
    g_free (out);
  /* as cairo_restore() would leave it */
  cairo_set_source (cr, source);
  cairo_pattern_destroy (source);
  cairo_new_path (cr);
}

/* @cr's drawing context when it draws for a screen, with no sink. */
static DrawContext *
screen_context (cairo_t *cr)
{
  DrawContext *d = cairo_get_user_data (cr, &context_key);

  if (d == NULL || !d->for_screen || cairo_get_user_data (cr, &sink_key) != NULL)
    return NULL;
  return d;
}

/* Shows @layout with its top-left corner at (x, y): as glyphs, or into
 * the sink attached to @cr. */
static void
show_layout (cairo_t            *cr,
             const HrChartStyle *style,
             PangoLayout        *layout,
             const HrRgba       *color,
             double              x,
             double              y,
             HrAlign             align,
             double              box_width)
{
  HrChartTextSink *sink = cairo_get_user_data (cr, &sink_key);
  DrawContext *d = cairo_get_user_data (cr, &context_key);

  if (sink != NULL)
    {
      sink_layout (sink, cr, style, layout, color, x, y, align, box_width);
      return;
    }
  if (d != NULL && d->cache != NULL)
    d->cache->pango_draws++;

  cairo_save (cr);
  hr_chart_set_color (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
  /* showing text leaves a current point behind */
  cairo_new_path (cr);
}

static void
draw_context_free (gpointer data)
{
  DrawContext *d = data;

  g_object_unref (d->context);
  g_free (d);
}

static void
draw_with (cairo_t      *cr,
           PangoContext *context,
           gboolean      for_screen)
{
  DrawContext *d = g_new0 (DrawContext, 1);

  d->context = g_object_ref (context);
  d->for_screen = for_screen;
  d->cache = text_cache_get (context);
  if (cairo_set_user_data (cr, &context_key, d, draw_context_free) != CAIRO_STATUS_SUCCESS)
    draw_context_free (d);
}

void
hr_chart_text_draw_with (cairo_t      *cr,
                         PangoContext *context)
{
  g_return_if_fail (cr != NULL && PANGO_IS_CONTEXT (context));
  draw_with (cr, context, FALSE);
}

void
hr_chart_text_draw_for_screen (cairo_t      *cr,
                               PangoContext *context)
{
  g_return_if_fail (cr != NULL && PANGO_IS_CONTEXT (context));
  draw_with (cr, context, TRUE);
}

/* ---- paths kept for a screen ---- */

/* @cr's cache when it draws for a screen in user space as its surface's
 * (no transformation: a path copied and appended there comes back point
 * for point, cairo keeping points in 24.8 fixed point either way). */
static TextCache *
screen_paths (cairo_t *cr)
{
  DrawContext *d = cairo_get_user_data (cr, &context_key);
  cairo_matrix_t matrix;

  if (d == NULL || !d->for_screen || d->cache == NULL)
    return NULL;
  cairo_get_matrix (cr, &matrix);
  if (matrix.xx != 1 || matrix.yy != 1 || matrix.xy != 0 || matrix.yx != 0 ||
      matrix.x0 != 0 || matrix.y0 != 0)
    return NULL;
  return d->cache;
}

static const TextKey *
path_key_make (KeyBuffer     *buffer,
               gconstpointer  key,
               gsize          key_len)
{
  TextKey *out;

  if (sizeof (TextKey) + key_len <= sizeof buffer->local)
    out = &buffer->local.key;
  else
    out = g_malloc (sizeof (TextKey) + key_len);
  buffer->key = out;
  out->len = key_len;
  memcpy (out->bytes, key, key_len);
  out->hash = hash_bytes (out->bytes, out->len);
  return out;
}

gboolean
hr_chart_path_replay (cairo_t       *cr,
                      gconstpointer  key,
                      gsize          key_len)
{
  TextCache *cache;
  KeyBuffer buffer;
  cairo_path_t *path;

  g_return_val_if_fail (cr != NULL && key != NULL, FALSE);

  cache = screen_paths (cr);
  if (cache == NULL)
    return FALSE;
  path = lru_lookup (&cache->paths, path_key_make (&buffer, key, key_len));
  key_buffer_clear (&buffer);
  if (path == NULL)
    return FALSE;
  cairo_append_path (cr, path);
  return TRUE;
}

void
hr_chart_path_keep (cairo_t       *cr,
                    gconstpointer  key,
                    gsize          key_len)
{
  TextCache *cache;
  KeyBuffer buffer;
  const TextKey *k;

  g_return_if_fail (cr != NULL && key != NULL);

  cache = screen_paths (cr);
  if (cache == NULL)
    return;
  k = path_key_make (&buffer, key, key_len);
  /* (a path kept already stays: the caller made the same again) */
  if (g_hash_table_lookup (cache->paths.table, k) == NULL)
    {
      cairo_path_t *path = cairo_copy_path (cr);

      if (path->status == CAIRO_STATUS_SUCCESS)
        lru_insert (&cache->paths, k, path);
      else
        cairo_path_destroy (path);
    }
  key_buffer_clear (&buffer);
}

/* A layout for @cr: text from pango-cairo, as pango_cairo_create_layout()
 * makes it (docs/DESIGN.md), measured exactly as the layout step measured it,
 * wrapped at @width pango units (-1: not wrapped) and aligned by
 * @alignment.  The context is the layout step's when the chart drew with
 * one (its fonts are loaded already, and metrics do not hint, so they
 * hold at any scale), else one made once for @cr and kept on it. */
static PangoLayout *
cairo_layout (cairo_t            *cr,
              const HrChartStyle *style,
              HrChartFont         font,
              const char         *text,
              int                 width,
              PangoAlignment      alignment)
{
  DrawContext *d = cairo_get_user_data (cr, &context_key);
  PangoLayout *layout;

  if (d != NULL && !d->follows_cr)
    layout = pango_layout_new (d->context);
  else if (d == NULL)
    {
      PangoContext *context = pango_cairo_create_context (cr);

      setup_context (context);
      layout = pango_layout_new (context);
      d = g_new0 (DrawContext, 1);
      d->context = context;
      d->follows_cr = TRUE;
      /* kept for the next label; without memory for that, not kept */
      if (cairo_set_user_data (cr, &context_key, d, draw_context_free) != CAIRO_STATUS_SUCCESS)
        draw_context_free (d);
    }
  else
    {
      /* a scale or a rotation since (a translation changes nothing) */
      pango_cairo_update_context (cr, d->context);
      layout = pango_layout_new (d->context);
    }
  fill_layout (layout, style, font, text, width, alignment);
  return layout;
}

/* Draws @text for a screen (hr_chart_text_draw_for_screen()) with its
 * layout's top-left corner at (x, y) less its logical x when @offset, or
 * at (x, y) as laid out, from the glyphs kept; FALSE, drawing nothing,
 * when @cr does not draw for a screen or the text is not simple. */
static gboolean
draw_for_screen (cairo_t            *cr,
                 const HrChartStyle *style,
                 HrChartFont         font,
                 const HrRgba       *color,
                 const char         *text,
                 int                 width,
                 PangoAlignment      alignment,
                 HrAlign             align,
                 double              x,
                 double              y)
{
  DrawContext *d = screen_context (cr);
  const ScreenText *st;
  double left = x;

  if (d == NULL)
    return FALSE;
  st = screen_text_get (d, style, font, text, width, alignment);
  if (!st->simple)
    return FALSE;
  /* placed as hr_chart_draw_text() places a layout it did not wrap */
  if (width < 0)
    {
      if (align == HR_ALIGN_CENTER)
        left -= (double) st->logical.width / PANGO_SCALE / 2;
      else if (align == HR_ALIGN_END)
        left -= (double) st->logical.width / PANGO_SCALE;
      left -= (double) st->logical.x / PANGO_SCALE;
    }
  show_screen_text (cr, st, color, left, y);
  d->cache->glyph_draws++;
  return TRUE;
}

void
hr_chart_draw_text (cairo_t            *cr,
                    const HrChartStyle *style,
                    HrChartFont         font,
                    const HrRgba       *color,
                    const char         *text,
                    double              x,
                    double              y,
                    double              max_width,
                    HrAlign             align)
{
  g_autoptr(PangoLayout) layout = NULL;
  PangoRectangle logical;
  double left;

  if (max_width > 0)
    {
      /* aligned within the wrap width, which starts at x */
      if (draw_for_screen (cr, style, font, color, text, wrap_width (max_width),
                           pango_alignment (align), align, x, y))
        return;
      layout = cairo_layout (cr, style, font, text, wrap_width (max_width),
                             pango_alignment (align));
      show_layout (cr, style, layout, color, x, y, align, max_width);
      return;
    }
  if (draw_for_screen (cr, style, font, color, text, -1, PANGO_ALIGN_LEFT, align, x, y))
    return;
  layout = cairo_layout (cr, style, font, text, -1, PANGO_ALIGN_LEFT);
  pango_layout_get_extents (layout, NULL, &logical);
  left = x;
  if (align == HR_ALIGN_CENTER)
    left -= (double) logical.width / PANGO_SCALE / 2;
  else if (align == HR_ALIGN_END)
    left -= (double) logical.width / PANGO_SCALE;
  show_layout (cr, style, layout, color, left - (double) logical.x / PANGO_SCALE, y, align, 0);
}

void
hr_chart_draw_label (cairo_t            *cr,
                     const HrChartStyle *style,
                     const HrChartLabel *label,
                     const HrRgba       *fill)
{
  HrRgba color;

  if (label->text == NULL || label->text[0] == '\0')
    return;

  switch (label->color_role)
    {
    case HR_TEXT_MUTED:
      color = style->muted;
      break;
    case HR_TEXT_GOOD:
      color = style->good;
      break;
    case HR_TEXT_BAD:
      color = style->bad;
      break;
    case HR_TEXT_ACCENT:
      color = style->accent;
      break;
    case HR_TEXT_ON_FILL:
      color = hr_chart_text_color_on (fill != NULL ? fill : &style->background);
      break;
    case HR_TEXT_FOREGROUND:
    default:
      color = style->foreground;
      break;
    }
  hr_chart_draw_label_colored (cr, style, label, &color);
}

void
hr_chart_draw_label_colored (cairo_t            *cr,
                             const HrChartStyle *style,
                             const HrChartLabel *label,
                             const HrRgba       *color)
{
  if (label->text == NULL || label->text[0] == '\0')
    return;

  /* The box is already where the text goes.  A wrapped label is laid out
   * at its box's width (the widest line it was measured with), so its lines
   * break as measured and align inside the box. */
  if (label->max_width > 0)
    {
      int width = (int) ceil ((label->box.width + 0.5) * PANGO_SCALE);
      g_autoptr(PangoLayout) layout = NULL;

      if (draw_for_screen (cr, style, label->font, color, label->text, width,
                           pango_alignment (label->align), label->align, label->box.x,
                           label->box.y))
        return;
      layout = cairo_layout (cr, style, label->font, label->text, width,
                             pango_alignment (label->align));
      show_layout (cr, style, layout, color, label->box.x, label->box.y, label->align,
                   label->box.width);
    }
  else
    hr_chart_draw_text (cr, style, label->font, color, label->text, label->box.x, label->box.y, 0,
                        HR_ALIGN_START);
}

void
hr_chart_draw_label_halo (cairo_t            *cr,
                          const HrChartStyle *style,
                          const HrChartLabel *label)
{
  const double pad = 2.0;
  HrRgba halo = style->background;

  if (style->transparent || label->text == NULL)
    return;

  halo.alpha = 0.85;
  cairo_save (cr);
  cairo_new_path (cr);
  cairo_rectangle (cr, label->box.x - pad, label->box.y, label->box.width + 2 * pad,
                   label->box.height);
  hr_chart_set_color (cr, &halo);
  cairo_fill (cr);
  cairo_restore (cr);
}
