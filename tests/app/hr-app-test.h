/* hr-app-test.h: finding the window's composite widgets in a test
 *
 * The display tests drive the widgets a user sees, found through the
 * widget tree, not through getters of the window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-results-view.h"
#include "hr-window.h"

/* The first widget of @type under @widget (itself included), depth
 * first; NULL when there is none. */
static inline GtkWidget *
hr_test_find_widget (GtkWidget *widget,
                     GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = hr_test_find_widget (c, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static inline HrResultsView *
hr_test_results_view (HrWindow *window)
{
  GtkWidget *view = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_RESULTS_VIEW);

  g_assert_nonnull (view);
  return HR_RESULTS_VIEW (view);
}

/* The Verdict list's lines, and a chart view, of the window's results. */
static inline GStrv
hr_test_dup_verdicts (HrWindow *window)
{
  return hr_results_view_dup_verdicts (hr_test_results_view (window));
}

static inline HrChartView *
hr_test_get_chart (HrWindow    *window,
                   HrChartKind  kind)
{
  return hr_results_view_get_chart (hr_test_results_view (window), kind);
}
