/* hr-core.h: everything hr-core offers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-advisor.h"
#include "hr-analysis.h"
#include "hr-catalog.h"
#include "hr-cost.h"
#include "hr-csv-write.h"
#include "hr-error.h"
#include "hr-estimate-check.h"
#include "hr-estimate.h"
#include "hr-file.h"
#include "hr-fit-rule.h"
#include "hr-fit.h"
#include "hr-json.h"
#include "hr-knobs.h"
#include "hr-measure-match.h"
#include "hr-measure.h"
#include "hr-pickle.h"
#include "hr-reader.h"
#include "hr-scenario.h"
#include "hr-setting.h"
#include "hr-snapshot.h"
#include "hr-sweep.h"
#include "hr-tree.h"
#include "hr-types.h"
#include "hr-import.h"
#include "hr-import-gguf.h"
#include "hr-import-hf.h"
#include "hr-import-safetensors.h"
#include "hr-user-catalog.h"
