/* test-chart-buckets.c: the stacked-bar chart's geometry and pixels
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"
#include "hr-test-utils.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static HrBucketChartLayout *
layout_for (const HrBucketChartData *data,
            const HrChartStyle      *style,
            double                   width,
            double                   height)
{
  PangoContext *context = hr_chart_pango_context_new ();
  HrBucketChartLayout *layout = hr_bucket_chart_layout (data, style, context, width, height);

  g_object_unref (context);
  return layout;
}

static void
assert_label_inside (const HrChartLabel *label,
                     const HrRect       *canvas)
{
  if (label->text == NULL)
    return;
  if (!hr_rect_inside (&label->box, canvas, 0.5))
    g_error ("label \"%s\" at %.1f,%.1f %.1fx%.1f leaves the %.0fx%.0f canvas", label->text,
             label->box.x,
             label->box.y, label->box.width, label->box.height, canvas->width, canvas->height);
}

static void
test_geometry (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                              "\"llama-2-7b\", \"method\": \"lora\", "
                                              "\"seq_len\": 2048, \"micro_batch\": 4, \"gpu\": "
                                              "\"rtx-4090\"}");
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new_for_scenario (s);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrBucketChartLayout) layout = layout_for (data, style, 1280, 800);
  const HrBucketBar *bar = g_ptr_array_index (data->bars, 0);
  const HrBucketBarLayout *bl = &g_array_index (layout->bars, HrBucketBarLayout, 0);
  double total = hr_bucket_bar_total (bar);
  double bottom = layout->plot.y + layout->plot.height;
  double stacked = 0;

  g_assert_cmpuint (layout->bars->len, ==, 1);

  /* the axis covers everything drawn on it */
  g_assert_cmpfloat (layout->y_max, >=, total);
  g_assert_cmpfloat (layout->y_max, >=, bar->high);
  g_assert_cmpfloat (layout->y_max, >=, bar->usable);
  g_assert_cmpfloat (fabs (hr_bucket_chart_y_position (layout, 0) - bottom), <, 1e-9);

  /* segments stack from the bottom, weights first, to the total */
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    {
      const HrRect *seg = &bl->segments[b];

      g_assert_cmpfloat (fabs (seg->height - bar->bytes[b] / layout->y_max * layout->plot.height),
                         <, 1e-6);
      g_assert_cmpfloat (fabs (seg->y + seg->height - (bottom - stacked)), <, 1e-6);
      stacked += seg->height;
    }
  g_assert_cmpfloat (fabs (bl->bar.y - hr_bucket_chart_y_position (layout, total)), <, 1e-6);
  g_assert_cmpfloat (fabs (stacked - bl->bar.height), <, 1e-6);

  /* the card: its usable line across the bar, in its series' look */
  g_assert_cmpuint (bl->cards->len, ==, 1);
  {
    const HrBucketCardLine *line = &g_array_index (bl->cards, HrBucketCardLine, 0);

    g_assert_cmpfloat (fabs (line->y - hr_bucket_chart_y_position (layout, bar->usable)), <,
                       1e-9);
    g_assert_cmpfloat (line->x_start, <=, bl->bar.x);
    g_assert_cmpfloat (line->x_end, >=, bl->bar.x + bl->bar.width);
    g_assert_cmpuint (line->series, ==, bar->series);
    g_assert_nonnull (strstr (line->label.text, "4090"));
  }

  /* the range bracket spans low to high */
  g_assert_cmpfloat (fabs (bl->range.y - hr_bucket_chart_y_position (layout, bar->high)), <, 1e-9);
  g_assert_cmpfloat (fabs (bl->range.y + bl->range.height -
                           hr_bucket_chart_y_position (layout, bar->low)), <, 1e-9);

  /* nice ticks: whole multiples of one step */
  {
    double step = g_array_index (layout->y_ticks, HrAxisTick,
                                 1).value - g_array_index (layout->y_ticks, HrAxisTick, 0).value;

    for (guint i = 0; i < layout->y_ticks->len; i++)
      {
        HrAxisTick *tick = &g_array_index (layout->y_ticks, HrAxisTick, i);
        double k = tick->value / step;

        g_assert_cmpfloat (fabs (k - round (k)), <, 1e-9);
        g_assert_cmpfloat (fabs (tick->position - hr_bucket_chart_y_position (layout,
                                                                              tick->value)), <,
                                                                              1e-9);
      }
  }

  /* every segment is named beside the bar, and no two names overlap */
  for (guint a = 0; a < HR_N_BUCKETS; a++)
    {
      if (bar->bytes[a] <= 0)
        continue;
      g_assert_nonnull (bl->segment_labels[a].text);
      g_assert_nonnull (strstr (bl->segment_labels[a].text, hr_bucket_get_label (a)));
      g_assert_nonnull (strstr (bl->segment_labels[a].text, "%"));
      for (guint b = a + 1; b < HR_N_BUCKETS; b++)
        if (bl->segment_labels[b].text != NULL)
          g_assert_false (hr_rect_intersects (&bl->segment_labels[a].box,
                                              &bl->segment_labels[b].box));
    }

  /* the verdict says it in words and a sign, beside the card's name */
  {
    const HrBucketCardLine *line = &g_array_index (bl->cards, HrBucketCardLine, 0);

    g_assert_nonnull (line->detail.text);
    g_assert_nonnull (strstr (line->detail.text, bar->fits ? "✓" : "✗"));
    g_assert_nonnull (strstr (line->detail.text, bar->fits ? "spare" : "over"));
    g_assert_cmpint (line->fits, ==, bar->fits);
  }
}

/* A LoRA run's gradients and optimizer state are a sliver of the bar; they
 * are still named, in order, without overlapping. */
static void
test_small_segments (void)
{
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new ();
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrBucketChartLayout) layout = NULL;
  HrBucketBar *bar = hr_bucket_chart_data_add_bar (data, "tiny slivers");
  const HrBucketBarLayout *bl;
  HrRect canvas = { 0, 0, 900, 500 };

  bar->bytes[HR_BUCKET_WEIGHTS] = 14 * GiB;
  bar->bytes[HR_BUCKET_GRADIENTS] = 0.01 * GiB;
  bar->bytes[HR_BUCKET_OPTIMIZER] = 0.02 * GiB;
  bar->bytes[HR_BUCKET_ACTIVATIONS] = 0.03 * GiB;
  bar->bytes[HR_BUCKET_OVERHEAD] = 0.5 * GiB;
  bar->low = 13 * GiB;
  bar->high = 16 * GiB;

  layout = layout_for (data, style, canvas.width, canvas.height);
  bl = &g_array_index (layout->bars, HrBucketBarLayout, 0);

  for (guint a = 0; a < HR_N_BUCKETS; a++)
    {
      g_assert_nonnull (bl->segment_labels[a].text);
      assert_label_inside (&bl->segment_labels[a], &canvas);
      for (guint b = a + 1; b < HR_N_BUCKETS; b++)
        {
          g_assert_false (hr_rect_intersects (&bl->segment_labels[a].box,
                                              &bl->segment_labels[b].box));
          /* higher segments keep their names higher */
          g_assert_cmpfloat (bl->segment_labels[b].box.y, <, bl->segment_labels[a].box.y);
        }
    }
}

static void
test_labels_inside_canvas (void)
{
  static const double sizes[][2] = { { 1280, 800 }, { 640, 400 }, { 480, 640 } };
  g_autoptr(HrScenario) s = hr_test_scenario (
                                              "{\"headroom_scenario\": 1, \"name\": \"An "
                                              "unusually long scenario name that says far too "
                                              "much about the run it describes\", \"model\": "
                                              "{\"id\": \"m\", \"name\": \"A model whose name "
                                              "goes on and on and on to test the layout\", "
                                              "\"params\": 7000000000, \"layers\": 32, "
                                              "\"hidden\": 4096, \"heads\": 32}, "
                                              "\"micro_batch\": 8, \"gpu\": {\"id\": \"g\", "
                                              "\"name\": \"An accelerator with an "
                                              "extraordinarily long marketing name 96 GB\", "
                                              "\"memory\": 96000000000}}");
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new_for_scenario (s);

  for (guint t = 0; t < 3; t++)
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
      {
        g_autoptr(HrChartStyle) style = hr_chart_style_new (t);
        g_autoptr(HrBucketChartLayout) layout = layout_for (data, style, sizes[i][0], sizes[i][1]);
        HrRect canvas = { 0, 0, sizes[i][0], sizes[i][1] };

        g_autoptr(GPtrArray) labels = g_ptr_array_new ();

        hr_bucket_chart_layout_collect_labels (layout, labels);
        g_assert_cmpuint (labels->len, >, 10);
        for (guint k = 0; k < labels->len; k++)
          {
            const HrChartLabel *a = g_ptr_array_index (labels, k);

            assert_label_inside (a, &canvas);
            for (guint j = k + 1; j < labels->len; j++)
              g_assert_false (hr_rect_intersects (&a->box,
                                                  &((HrChartLabel *) g_ptr_array_index (labels,
                                                                                         j))->box));
          }
        for (guint b = 0; b < HR_N_BUCKETS; b++)
          g_assert_true (hr_rect_inside (&layout->legend_swatches[b], &canvas, 0.5));
      }
}

/* Variants side by side (bf16 against fp32): bars never overlap, and the
 * taller one reaches higher. */
static void
test_variants (void)
{
  g_autoptr(HrScenario) a = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                              "\"resnet-50\", \"task\": \"train\", "
                                              "\"micro_batch\": 64, \"compute\": \"bf16-mixed\", "
                                              "\"gpu\": \"rtx-4090\"}");
  g_autoptr(HrScenario) b = hr_scenario_copy (a);
  g_autoptr(HrScenario) c = hr_scenario_copy (a);
  g_autoptr(HrEstimate) ea = NULL;
  g_autoptr(HrEstimate) eb = NULL;
  g_autoptr(HrEstimate) ec = NULL;
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new ();
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_DARK);
  g_autoptr(HrBucketChartLayout) layout = NULL;

  b->compute = HR_COMPUTE_FP32;
  b->weights_dtype = HR_DTYPE_FP32;
  c->micro_batch = 1024;
  ea = hr_estimate_new (a);
  eb = hr_estimate_new (b);
  ec = hr_estimate_new (c);
  hr_bucket_chart_data_add_estimate (data, "bf16 mixed", ea);
  hr_bucket_chart_data_add_estimate (data, "fp32", eb);
  hr_bucket_chart_data_add_estimate (data, "batch 1024", ec);

  layout = layout_for (data, style, 1280, 800);
  g_assert_cmpuint (layout->bars->len, ==, 3);
  for (guint i = 0; i + 1 < 3; i++)
    {
      const HrBucketBarLayout *left = &g_array_index (layout->bars, HrBucketBarLayout, i);
      const HrBucketBarLayout *right = &g_array_index (layout->bars, HrBucketBarLayout, i + 1);

      g_assert_cmpfloat (left->bar.x + left->bar.width, <, right->bar.x);
      g_assert_false (hr_rect_intersects (&left->name.box, &right->name.box));
    }
  /* fp32 stores activations in 4 bytes: its bar is the taller */
  g_assert_cmpfloat (g_array_index (layout->bars, HrBucketBarLayout, 1).bar.y, <,
                     g_array_index (layout->bars, HrBucketBarLayout, 0).bar.y);
  /* each variant says what it is under its bar */
  g_assert_cmpstr (g_array_index (layout->bars, HrBucketBarLayout, 1).name.text, ==, "fp32");
  /* batch 1024 does not fit a 4090 (about 44 GB of activations), and says so */
  {
    const HrBucketBarLayout *last = &g_array_index (layout->bars, HrBucketBarLayout, 2);
    const HrBucketCardLine *line = &g_array_index (last->cards, HrBucketCardLine, 0);

    g_assert_false (line->fits);
    g_assert_nonnull (strstr (line->detail.text, "✗"));
    g_assert_nonnull (strstr (line->detail.text, "over"));
  }
}

static void
test_summary (void)
{
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new ();
  HrBucketBar *bar = hr_bucket_chart_data_add_bar (data, "x");
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;

  bar->bytes[HR_BUCKET_WEIGHTS] = 13.5 * GiB;
  bar->bytes[HR_BUCKET_GRADIENTS] = 13.5 * GiB;
  bar->bytes[HR_BUCKET_OPTIMIZER] = 27.0 * GiB;
  bar->bytes[HR_BUCKET_ACTIVATIONS] = 15.9 * GiB;
  bar->bytes[HR_BUCKET_OVERHEAD] = 1.3 * GiB;
  bar->capacity = 80 * GiB;
  bar->usable = 80 * GiB;
  bar->need = 71.2 * GiB;
  bar->fits = TRUE;
  bar->card = g_strdup ("H100");

  text = hr_bucket_chart_summary (data);
  /* On-screen text follows the locale: "71,2" under de_DE. */
  expected = g_strdup_printf ("Peak %.1f GiB of 80 GiB on H100 (fits, %.1f GiB spare): "
                              "weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f, "
                              "overhead %.1f GiB.", 71.2, 8.8, 13.5, 13.5, 27.0, 15.9, 1.3);
  g_assert_cmpstr (text, ==, expected);
}

static guint32
pixel (cairo_surface_t *surface,
       int              x,
       int              y)
{
  const guchar *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);

  return *(const guint32 *) (data + y * stride + x * 4);
}

static void
assert_pixel_near (guint32       got,
                   const HrRgba *want)
{
  int r = (got >> 16) & 0xFF, g = (got >> 8) & 0xFF, b = got & 0xFF;

  if (abs (r - (int) round (want->red * 255)) > 2 ||
      abs (g - (int) round (want->green * 255)) > 2 ||
      abs (b - (int) round (want->blue * 255)) > 2)
    g_error ("pixel %02x%02x%02x, expected %02x%02x%02x", r, g, b, (int) round (want->red * 255),
             (int) round (want->green * 255), (int) round (want->blue * 255));
}

static void
test_pixels (void)
{
  g_autoptr(HrScenario) s = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                              "\"llama-2-7b\", \"method\": \"lora\", "
                                              "\"seq_len\": 2048, \"micro_batch\": 4, \"gpu\": "
                                              "\"rtx-4090\"}");
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new_for_scenario (s);

  for (guint t = 0; t < 3; t++)
    {
      g_autoptr(HrChartStyle) style = hr_chart_style_new (t);
      g_autoptr(HrBucketChartLayout) layout = layout_for (data, style, 800, 500);
      const HrBucketBarLayout *bl = &g_array_index (layout->bars, HrBucketBarLayout, 0);
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 500);
      cairo_t *cr = cairo_create (surface);
      const HrRect *w = &bl->segments[HR_BUCKET_WEIGHTS];

      hr_bucket_chart_render (layout, data, style, cr);
      cairo_destroy (cr);
      cairo_surface_flush (surface);

      /* the background, and the weights segment (solid) in its colour */
      assert_pixel_near (pixel (surface, 3, 3), &style->background);
      assert_pixel_near (pixel (surface, (int) (w->x + w->width / 2),
                                (int) (w->y + w->height * 0.8)),
                         &style->bucket[HR_BUCKET_WEIGHTS]);
      cairo_surface_destroy (surface);
    }

  /* transparent: the corner is left clear */
  {
    g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
    g_autoptr(HrBucketChartLayout) layout = NULL;
    cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
    cairo_t *cr = cairo_create (surface);

    style->transparent = TRUE;
    layout = layout_for (data, style, 400, 300);
    hr_bucket_chart_render (layout, data, style, cr);
    cairo_destroy (cr);
    cairo_surface_flush (surface);
    g_assert_cmpuint (pixel (surface, 1, 1) >> 24, ==, 0);
    cairo_surface_destroy (surface);
  }
}

/* Text on a segment and the verdict stay legible: the palette and the
 * chosen ink keep WCAG contrast. */
static void
test_contrast (void)
{
  for (guint t = 0; t < 3; t++)
    {
      g_autoptr(HrChartStyle) style = hr_chart_style_new (t);

      for (guint b = 0; b < HR_N_BUCKETS; b++)
        {
          HrRgba ink = hr_chart_text_color_on (&style->bucket[b]);

          g_assert_cmpfloat (hr_rgba_contrast (&ink, &style->bucket[b]), >=, 4.5);
        }
      g_assert_cmpfloat (hr_rgba_contrast (&style->muted, &style->background), >=, 4.5);
      if (t != HR_CHART_THEME_PRINT)
        {
          g_assert_cmpfloat (hr_rgba_contrast (&style->good, &style->background), >=, 3.0);
          g_assert_cmpfloat (hr_rgba_contrast (&style->bad, &style->background), >=, 3.0);
        }
    }
}

/* No two labels @layout draws overlap. */
static void
assert_labels_apart (const HrBucketChartLayout *layout)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  hr_bucket_chart_layout_collect_labels (layout, labels);
  for (guint i = 0; i < labels->len; i++)
    for (guint j = i + 1; j < labels->len; j++)
      {
        const HrChartLabel *a = g_ptr_array_index (labels, i);
        const HrChartLabel *b = g_ptr_array_index (labels, j);

        if (hr_rect_intersects (&a->box, &b->box))
          g_error ("\"%s\" overlaps \"%s\"", a->text, b->text);
      }
}

/* A measured bar beside the estimate's: the snapshot's buckets, the
 * allocator's unused reserve in the overhead, what no rule attributed
 * hatched on top, all in the total the bar is drawn to. */
static void
test_measured_bar (void)
{
  g_autoptr(HrScenario) scenario = hr_test_scenario ("{\"headroom_scenario\": 1, \"model\": "
                                                     "\"smolvla\", \"gpu\": \"rtx-4090\"}");
  g_autoptr(HrBucketChartData) data = hr_bucket_chart_data_new_for_scenario (scenario);
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_LIGHT);
  g_autoptr(HrBucketChartLayout) layout = NULL;
  HrSnapshotDevice dev = { 0 };
  const HrBucketBarLayout *bl;
  HrBucketBar *bar;
  double top = G_MAXDOUBLE;

  dev.allocated_peak = 7 * (guint64) GiB;
  dev.reserved_at_allocated_peak = 8 * (guint64) GiB;
  dev.buckets[HR_BUCKET_WEIGHTS] = 2 * (guint64) GiB;
  dev.buckets[HR_BUCKET_ACTIVATIONS] = 4 * (guint64) GiB;
  dev.buckets[HR_SNAPSHOT_UNATTRIBUTED] = 1 * (guint64) GiB;

  bar = hr_bucket_chart_data_add_snapshot (data, "measured", &dev);
  g_assert_true (bar->measured);
  g_assert_cmpfloat (bar->unattributed, ==, GiB);
  g_assert_cmpfloat (bar->bytes[HR_BUCKET_OVERHEAD], ==, GiB);   /* the unused reserve */
  g_assert_cmpfloat (hr_bucket_bar_total (bar), ==, 8 * GiB);
  /* on the estimate's card, with a verdict of its own */
  g_assert_cmpfloat (bar->capacity, ==,
                     ((HrBucketBar *) g_ptr_array_index (data->bars, 0))->capacity);
  g_assert_cmpfloat (bar->capacity, >, 0);
  g_assert_true (bar->fits);

  layout = layout_for (data, style, 1280, 800);
  g_assert_cmpuint (layout->bars->len, ==, 2);
  bl = &g_array_index (layout->bars, HrBucketBarLayout, 1);
  for (guint b = 0; b < HR_N_BUCKETS; b++)
    if (bl->segments[b].height > 0)
      top = MIN (top, bl->segments[b].y);
  g_assert_cmpfloat (bl->unattributed.height, >, 0);
  g_assert_cmpfloat_with_epsilon (bl->unattributed.y + bl->unattributed.height, top, 1e-6);
  g_assert_cmpfloat_with_epsilon (bl->unattributed.y, bl->bar.y, 1e-6);
  g_assert_nonnull (bl->unattributed_label.text);
  g_assert_nonnull (strstr (bl->unattributed_label.text, "unattributed"));
  /* its card's line and verdict beside it, and no label across another */
  g_assert_cmpuint (bl->cards->len, ==, 1);
  assert_labels_apart (layout);
  /* the estimate's bar has none */
  g_assert_cmpfloat (g_array_index (layout->bars, HrBucketBarLayout, 0).unattributed.height, ==,
                     0);

  /* and it draws */
  {
    cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1280, 800);
    cairo_t *cr = cairo_create (surface);

    hr_bucket_chart_render (layout, data, style, cr);
    g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
    if (g_getenv ("HEADROOM_TEST_PNG") != NULL)
      cairo_surface_write_to_png (surface, g_getenv ("HEADROOM_TEST_PNG"));
    cairo_destroy (cr);
    cairo_surface_destroy (surface);
  }

  /* A short measured bar (a small run on a big card): its labels rise
   * above it, and its total and verdict go over them, not across. */
  {
    g_autoptr(HrBucketChartData) small = hr_bucket_chart_data_new_for_scenario (scenario);
    g_autoptr(HrBucketChartLayout) small_layout = NULL;
    HrSnapshotDevice tiny = { 0 };
    const HrBucketBarLayout *sl;

    tiny.allocated_peak = 100 * (guint64) 1048576;
    tiny.reserved_at_allocated_peak = 110 * (guint64) 1048576;
    for (guint b = 0; b < HR_N_BUCKETS; b++)
      tiny.buckets[b] = 20 * (guint64) 1048576;
    tiny.buckets[HR_SNAPSHOT_UNATTRIBUTED] = 1 * (guint64) 1048576;
    tiny.buckets[HR_BUCKET_OVERHEAD] = 19 * (guint64) 1048576;
    hr_bucket_chart_data_add_snapshot (small, "measured", &tiny);
    small_layout = layout_for (small, style, 1280, 800);
    sl = &g_array_index (small_layout->bars, HrBucketBarLayout, 1);
    g_assert_nonnull (sl->unattributed_label.text);
    g_assert_nonnull (sl->total.text);
    assert_labels_apart (small_layout);
  }
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chart/buckets/geometry", test_geometry);
  g_test_add_func ("/chart/buckets/small-segments", test_small_segments);
  g_test_add_func ("/chart/buckets/labels-inside-canvas", test_labels_inside_canvas);
  g_test_add_func ("/chart/buckets/variants", test_variants);
  g_test_add_func ("/chart/buckets/summary", test_summary);
  g_test_add_func ("/chart/buckets/pixels", test_pixels);
  g_test_add_func ("/chart/buckets/contrast", test_contrast);
  g_test_add_func ("/chart/buckets/measured-bar", test_measured_bar);

  return g_test_run ();
}
