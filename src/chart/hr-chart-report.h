/* hr-chart-report.h: a multi-page PDF report of one scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-analysis.h"
#include "hr-chart-style.h"

G_BEGIN_DECLS

/* Writes @path (atomically) from @analysis: the scenario summary and its
 * verdict, every chart of the chart registry (the cards @analysis
 * compares, its calibration and measurements included), the fit on every
 * catalog GPU with the lever that fixes each, the levers, and the
 * estimate's assumptions and sources. */
gboolean hr_chart_report_write_analysis (const char          *path,
                                         HrAnalysis          *analysis,
                                         HrCatalog           *catalog,
                                         const HrChartStyle  *style,
                                         GError             **error);
/* The same for @scenario on its own card with reference cards on the
 * curve, uncalibrated. */
gboolean hr_chart_report_write (const char          *path,
                                const HrScenario    *scenario,
                                HrCatalog           *catalog,
                                const HrChartStyle  *style,
                                GError             **error);

G_END_DECLS
