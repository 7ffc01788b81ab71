/* hr-estimate-check.h: refusing a scenario whose figures cannot be held
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-scenario.h"

G_BEGIN_DECLS

/* Whether every figure of @scenario's estimate is a byte count Headroom
 * can hold (at most HR_BYTES_MAX, hr-checked.h).  When one is not, the
 * scenario is refused with HR_ERROR_INVALID, "@name: …", naming the keys
 * whose product is too large: each numeric setting that, brought down to
 * its minimum alone, gives an estimate that can be held (and "replay" for
 * a replay buffer that does). */
gboolean    hr_estimate_check_scenario (const HrScenario *scenario,
                                        const char       *name,
                                        GError          **error);

G_END_DECLS
