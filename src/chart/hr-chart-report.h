/* hr-chart-report.h: a multi-page PDF report of one scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-chart-style.h"
#include "hr-scenario.h"

G_BEGIN_DECLS

/* Writes @path (atomically): the scenario summary, the bucket chart, the
 * peak-versus-batch curve, the fit on every catalog GPU, the knob ranking,
 * and the estimate's assumptions and sources. */
gboolean hr_chart_report_write (const char          *path,
                                const HrScenario    *scenario,
                                HrCatalog           *catalog,
                                const HrChartStyle  *style,
                                GError             **error);

G_END_DECLS
