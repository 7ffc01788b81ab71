/* hr-core.h: everything hr-core offers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-catalog.h"
#include "hr-cost.h"
#include "hr-csv-write.h"
#include "hr-estimate.h"
#include "hr-file.h"
#include "hr-json.h"
#include "hr-knobs.h"
#include "hr-reader.h"
#include "hr-scenario.h"
#include "hr-sweep.h"
#include "hr-tree.h"
#include "hr-types.h"
