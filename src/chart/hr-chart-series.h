/* hr-chart-series.h: GPUs as the charts name them, and what the charts
 * rest on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "hr-analysis.h"
#include "hr-catalog.h"

G_BEGIN_DECLS

/* @name as people say it, where a chart has no room for the whole name:
 * the vendor's and the product line's brand ("NVIDIA", "GeForce",
 * "Tesla", "AMD Instinct"), the form factor, the memory size and notes in
 * brackets go, each only while what is left still names one card of
 * @catalog (NULL: the default one) and of @others (names, may be NULL).
 * "GeForce RTX 4090" → "RTX 4090", "H100 SXM5 80GB" → "H100 SXM",
 * "A100 SXM4 80GB" → "A100 80GB", "GeForce RTX 4090 D" → "RTX 4090 D". */
char *hr_chart_gpu_short_name (const char         *name,
                               HrCatalog          *catalog,
                               const char * const *others);

/* What a chart of @analysis rests on, in one sentence for its foot: how
 * much of the estimate at the scenario's micro-batch is derived from the
 * model and the setup, calibrated by a measurement or assumed (by each
 * item's basis), and which measurements are drawn. */
char *hr_chart_analysis_note  (HrAnalysis         *analysis);

G_END_DECLS
