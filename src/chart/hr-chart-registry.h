/* hr-chart-registry.h: every chart Headroom draws, as data
 *
 * One entry per chart: its name (what `headroom-cli export --chart` takes),
 * its title (what the export dialog lists), how its data is made from an
 * analysis, and its layout, render, summary and hit test.  The window's
 * chart views, the CLI's export, the export dialog and the report all go
 * through this table, so a new chart is one entry.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hr-analysis.h"
#include "hr-chart-style.h"

G_BEGIN_DECLS

/* What a chart is drawn from. */
typedef struct {
  HrAnalysis      *analysis;
  HrCatalog       *catalog;
  /* The advisor's answers and advice, for the tree and the table; NULL:
   * walked from the scenario's task and the tree's defaults. */
  HrAdvisorWalk   *walk;
  const HrAdvice  *advice;
} HrChartSource;

typedef struct _HrChartType HrChartType;

struct _HrChartType {
  const char *name;        /* "buckets", "curve", "tree", "advice" */
  const char *title;       /* N_(): "Memory by bucket" */
  gboolean    advisor;     /* drawn from the advisor's walk */

  gpointer    (*data_new)    (const HrChartSource *source);
  void        (*data_free)   (gpointer             data);
  /* The drawn chart's own title (the scenario's name): SVG <title>. */
  const char *(*data_title)  (gconstpointer        data);
  /* In words: the accessible description and SVG <desc>. */
  char       *(*summary)     (gconstpointer        data);

  gpointer    (*layout)      (gconstpointer        data,
                              const HrChartStyle  *style,
                              PangoContext        *context,
                              double               width,
                              double               height);
  void        (*layout_free) (gpointer             layout);
  void        (*render)      (gconstpointer        layout,
                              gconstpointer        data,
                              const HrChartStyle  *style,
                              cairo_t             *cr);
  /* What lies at (x, y), in words; NULL over nothing (or no hit test). */
  char       *(*hit_test)    (gconstpointer        layout,
                              gconstpointer        data,
                              double               x,
                              double               y);
};

guint              hr_chart_types_get_n      (void);
const HrChartType *hr_chart_types_get        (guint                index);
const HrChartType *hr_chart_type_find        (const char          *name);
/* "buckets|curve|tree|advice", for usage messages. */
char              *hr_chart_types_list_names (const char          *separator);

/* Lays out and renders in one call. */
void               hr_chart_type_draw        (const HrChartType   *type,
                                              cairo_t             *cr,
                                              PangoContext        *context,
                                              const HrChartStyle  *style,
                                              double               width,
                                              double               height,
                                              gconstpointer        data);
/* Lays out and asks the hit test. */
char              *hr_chart_type_describe_at (const HrChartType   *type,
                                              gconstpointer        data,
                                              const HrChartStyle  *style,
                                              PangoContext        *context,
                                              double               width,
                                              double               height,
                                              double               x,
                                              double               y);

/* A chart and its data as an HrChartDrawFunc's user data: pass
 * hr_chart_drawing_draw and a pointer to one of these. */
typedef struct {
  const HrChartType *type;
  gconstpointer      data;
} HrChartDrawing;

void               hr_chart_drawing_draw     (cairo_t             *cr,
                                              PangoContext        *context,
                                              const HrChartStyle  *style,
                                              double               width,
                                              double               height,
                                              gpointer             drawing);

G_END_DECLS
