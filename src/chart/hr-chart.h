/* hr-chart.h: everything hr-chart offers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-chart-advice.h"
#include "hr-chart-buckets.h"
#include "hr-chart-curve.h"
#include "hr-chart-export.h"
#include "hr-chart-registry.h"
#include "hr-chart-report.h"
#include "hr-chart-style.h"
#include "hr-chart-text.h"
#include "hr-chart-tree.h"
#include "hr-chart-types.h"
