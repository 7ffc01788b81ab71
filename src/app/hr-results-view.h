/* hr-results-view.h: the main area (headline, verdicts, charts,
 * breakdown, levers, host RAM, assumptions)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-chart-view.h"
#include "hr-core.h"
#include "hr-format.h"

G_BEGIN_DECLS

#define HR_TYPE_RESULTS_VIEW (hr_results_view_get_type ())
G_DECLARE_FINAL_TYPE (HrResultsView, hr_results_view, HR, RESULTS_VIEW, AdwBin)

/* Everything shown is read from "analysis"; "provenance" says where its
 * figures come from ("Estimated", "Calibrated to FILE") and "unit" is
 * the display unit.  The levers' order is the view's "lever-sort" (an
 * HrKnobSort, which the user's toggle changes): the window that makes
 * the analysis listens to it.  In a .ui file the view takes one child of
 * type "measurements", shown after the breakdown. */
void          hr_results_view_set_analysis   (HrResultsView *self,
                                              HrAnalysis    *analysis);
HrAnalysis   *hr_results_view_get_analysis   (HrResultsView *self);
void          hr_results_view_set_provenance (HrResultsView *self,
                                              const char    *provenance);
void          hr_results_view_set_unit       (HrResultsView *self,
                                              HrSizeUnit     unit);
HrKnobSort    hr_results_view_get_lever_sort (HrResultsView *self);

HrChartView  *hr_results_view_get_chart      (HrResultsView *self,
                                              HrChartKind    kind);
/* One line per compared GPU, as the Verdict list shows it. */
GStrv         hr_results_view_dup_verdicts   (HrResultsView *self);

G_END_DECLS
