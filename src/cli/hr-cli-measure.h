/* hr-cli-measure.h: measured points on headroom-cli's charts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-chart.h"
#include "hr-cli.h"

G_BEGIN_DECLS

/* Sets --unit, --delimiter and --metric on @options. */
gboolean hr_cli_measure_options (HrMeasureOptions    *options,
                                 const char          *unit,
                                 const char          *delimiter,
                                 const char          *metric,
                                 GError             **error);

G_END_DECLS
