/* hr-format.h: numbers, units and choices as the window shows them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-core.h"

G_BEGIN_DECLS

/* HrAnalysis as a boxed type (a reference), for the widgets' "analysis"
 * properties. */
#define HR_TYPE_ANALYSIS_BOXED (hr_analysis_boxed_get_type ())
GType hr_analysis_boxed_get_type (void) G_GNUC_CONST;

/* "$1,599" or NULL when the price is unknown (< 0). */
char *hr_format_price       (double  usd);
/* "7.6 B", "40 M", "120 K" */
char *hr_format_params      (guint64 params);

/* The family a model is listed under in the picker, translated. */
const char *hr_family_label     (const char     *family);
int         hr_family_order     (const char     *family);
const char *hr_tier_label       (HrGpuTier       tier);

G_END_DECLS
