/* hr-app-test.h: finding the window's composite widgets in a test
 *
 * The display tests drive the widgets a user sees, found through the
 * widget tree, not through getters of the window; what the window holds
 * (its history, measurements, unsaved state and file) they read from
 * the objects themselves, the window's properties.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-history.h"
#include "hr-measurements-group.h"
#include "hr-recovery.h"
#include "hr-results-view.h"
#include "hr-sidebar.h"
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

static inline HrSidebar *
hr_test_sidebar (HrWindow *window)
{
  GtkWidget *sidebar = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_SIDEBAR);

  g_assert_nonnull (sidebar);
  return HR_SIDEBAR (sidebar);
}

/* The sidebar's row of a setting, and its spin button or switch. */
static inline GtkWidget *
hr_test_setting_row (HrWindow   *window,
                     const char *key)
{
  return hr_sidebar_get_setting_row (hr_test_sidebar (window), key);
}

static inline GtkWidget *
hr_test_setting_widget (HrWindow   *window,
                        const char *key)
{
  return hr_sidebar_get_setting_widget (hr_test_sidebar (window), key);
}

/* The scenario the window shows, as the sidebar has it: the analysis
 * handed down to it.  Remade on every change: read it again after one. */
static inline const HrScenario *
hr_test_scenario (HrWindow *window)
{
  HrAnalysis *analysis = hr_sidebar_get_analysis (hr_test_sidebar (window));

  g_assert_nonnull (analysis);
  return hr_analysis_get_scenario (analysis);
}

/* The analysis everything in the window shows, as the sidebar has it. */
static inline HrAnalysis *
hr_test_analysis (HrWindow *window)
{
  HrAnalysis *analysis = hr_sidebar_get_analysis (hr_test_sidebar (window));

  g_assert_nonnull (analysis);
  return analysis;
}

/* The window's undo history (its modified mark), its measurements, its
 * unsaved state on disk, and its file (NULL: not saved yet): the
 * window's properties. */
static inline HrHistory *
hr_test_history (HrWindow *window)
{
  g_autoptr(HrHistory) history = NULL;

  g_object_get (window, "history", &history, NULL);
  g_assert_nonnull (history);
  return history;   /* the window keeps it */
}

static inline gboolean
hr_test_modified (HrWindow *window)
{
  return hr_history_get_modified (hr_test_history (window));
}

static inline HrMeasurements *
hr_test_measurements (HrWindow *window)
{
  g_autoptr(HrMeasurements) measurements = NULL;

  g_object_get (window, "measurements", &measurements, NULL);
  g_assert_nonnull (measurements);
  return measurements;   /* the window keeps it */
}

/* How many measurement files the window has imported for its scenario. */
static inline guint
hr_test_n_measurements (HrWindow *window)
{
  return hr_measurements_get_n_files (hr_test_measurements (window));
}

static inline HrRecovery *
hr_test_recovery (HrWindow *window)
{
  g_autoptr(HrRecovery) recovery = NULL;

  g_object_get (window, "recovery", &recovery, NULL);
  g_assert_nonnull (recovery);
  return recovery;   /* the window keeps it */
}

static inline GFile *
hr_test_file (HrWindow *window)
{
  g_autoptr(GFile) file = NULL;

  g_object_get (window, "file", &file, NULL);
  return file;   /* the window keeps it */
}

/* Whether the window's stack shows the start page (rather than the
 * results). */
static inline gboolean
hr_test_start_page_visible (HrWindow *window)
{
  GObject *stack = gtk_widget_get_template_child (GTK_WIDGET (window), HR_TYPE_WINDOW,
                                                  "main_stack");

  g_assert_nonnull (stack);
  return g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (stack)), "start") == 0;
}

/* The GPU ids the window compares, the scenario's own first. */
static inline GStrv
hr_test_dup_gpu_ids (HrWindow *window)
{
  HrAnalysis *analysis = hr_sidebar_get_analysis (hr_test_sidebar (window));
  GStrvBuilder *builder = g_strv_builder_new ();
  GStrv ids;

  for (guint i = 0; i < hr_analysis_get_n_gpus (analysis); i++)
    g_strv_builder_add (builder, hr_analysis_get_gpu (analysis, i)->gpu->id);
  ids = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return ids;
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

static inline HrMeasurementsGroup *
hr_test_measurements_group (HrWindow *window)
{
  GtkWidget *group = hr_test_find_widget (GTK_WIDGET (window), HR_TYPE_MEASUREMENTS_GROUP);

  g_assert_nonnull (group);
  return HR_MEASUREMENTS_GROUP (group);
}

/* The Measurements group's calibration switch, as a user flips it; and
 * whether the analysis the window shows is calibrated. */
static inline void
hr_test_set_use_calibration (HrWindow *window,
                             gboolean  use)
{
  GtkSwitch *sw = GTK_SWITCH (gtk_widget_get_template_child (
    GTK_WIDGET (hr_test_measurements_group (window)), HR_TYPE_MEASUREMENTS_GROUP,
    "calibrate_switch"));

  gtk_switch_set_active (sw, use);
}

static inline gboolean
hr_test_get_calibrated (HrWindow *window)
{
  return hr_analysis_get_calibration (hr_test_analysis (window)) != NULL;
}

static inline GtkWidget *
hr_test_find_trash_button (GtkWidget *widget,
                           guint     *skip)
{
  if (GTK_IS_BUTTON (widget)
      && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "user-trash-symbolic") == 0)
    {
      if (*skip == 0)
        return widget;
      (*skip)--;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = hr_test_find_trash_button (c, skip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Clicks the trash button of the @index-th measurement file's row. */
static inline void
hr_test_remove_measurement (HrWindow *window,
                            guint     index)
{
  guint skip = index;
  GtkWidget *button = hr_test_find_trash_button (GTK_WIDGET (hr_test_measurements_group (window)),
                                                 &skip);

  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
}
