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

/* The core's unit of memory (HrSizeUnit, hr-analysis.h) under the
 * window's names. */
typedef HrSizeUnit HrUnit;
#define HR_UNIT_GIB HR_SIZE_GIB   /* 2^30 bytes: what PyTorch and nvidia-smi report */
#define HR_UNIT_GB  HR_SIZE_GB    /* 10^9 bytes: what vendors print on the box */

/* "14.2 GiB", with the locale's decimal separator: hr_size_format(). */
char *hr_format_bytes       (double  bytes,
                             HrUnit  unit);
/* "12.8–16.1 GiB": hr_size_format_range(). */
char *hr_format_bytes_range (double  low,
                             double  high,
                             HrUnit  unit);
/* "$1,599" or NULL when the price is unknown (< 0). */
char *hr_format_price       (double  usd);
/* "7.6 B", "40 M", "120 K" */
char *hr_format_params      (guint64 params);

/* The family a model is listed under in the picker, translated. */
const char *hr_family_label     (const char     *family);
int         hr_family_order     (const char     *family);
const char *hr_tier_label       (HrGpuTier       tier);

G_END_DECLS
