/* hr-advisor-dialog.h: which GPU to buy or rent, one question at a time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-chart-view.h"
#include "hr-core.h"
#include "hr-screenshot.h"
#include "hr-window-type.h"

G_BEGIN_DECLS

#define HR_TYPE_ADVISOR_DIALOG (hr_advisor_dialog_get_type ())
G_DECLARE_FINAL_TYPE (HrAdvisorDialog, hr_advisor_dialog, HR, ADVISOR_DIALOG, AdwWindow)

typedef enum {
  HR_ADVISOR_EXPORT_TREE,
  HR_ADVISOR_EXPORT_TABLE,
} HrAdvisorExport;

/* A modal window over @window that walks the advisor's tree for a copy of
 * @scenario. */
HrAdvisorDialog *hr_advisor_dialog_new          (HrWindow         *window,
                                                 const HrScenario *scenario);
/* The same from @analysis (the window's: its calibration decides the
 * fits), which the dialog keeps a reference to. */
HrAdvisorDialog *hr_advisor_dialog_new_for_analysis (HrWindow     *window,
                                                     HrAnalysis   *analysis);

HrAdvisorWalk   *hr_advisor_dialog_get_walk     (HrAdvisorDialog  *self);
/* The advice, once the last question is answered; NULL before. */
const HrAdvice  *hr_advisor_dialog_get_advice   (HrAdvisorDialog  *self);

/* The row of answer @index to the current question (NULL past the last
 * one, or when the walk is done): activating it answers. */
GtkWidget       *hr_advisor_dialog_get_answer_row (HrAdvisorDialog *self,
                                                   guint            index);
/* Activates that row, as Enter on it does. */
gboolean         hr_advisor_dialog_answer       (HrAdvisorDialog  *self,
                                                 guint            index);
/* The spin button for a number the current question asks (hours a day,
 * months, budget, runs), or NULL when it asks none. */
GtkSpinButton   *hr_advisor_dialog_get_number_spin (HrAdvisorDialog *self,
                                                    HrFact           fact);

/* One line per recommendation, as the list shows it, best first; empty
 * before the walk is done. */
GStrv            hr_advisor_dialog_dup_recommendation_summaries (HrAdvisorDialog *self);
/* The tree drawing's accessible description: the path in words. */
const char      *hr_advisor_dialog_get_tree_summary (HrAdvisorDialog *self);
/* Where step @step's question sits in the tree drawing, in the drawing's
 * coordinates; FALSE when it is not drawn. */
gboolean         hr_advisor_dialog_get_step_box (HrAdvisorDialog  *self,
                                                 guint             step,
                                                 graphene_rect_t  *box);
/* What a click at (@x, @y) on the tree drawing does: back to a question. */
gboolean         hr_advisor_dialog_click_tree   (HrAdvisorDialog  *self,
                                                 double            x,
                                                 double            y);

/* Writes the tree or the recommendation table to @path (PNG, SVG or PDF
 * after its extension) and tells the user in a toast. */
gboolean         hr_advisor_dialog_export       (HrAdvisorDialog  *self,
                                                 HrAdvisorExport   what,
                                                 const char       *path,
                                                 GError          **error);
gboolean         hr_advisor_dialog_screenshot   (HrAdvisorDialog  *self,
                                                 const char       *path,
                                                 GError          **error);

G_END_DECLS
