/* hr-test-utils.h: what several tests and benchmarks share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-core.h"

G_BEGIN_DECLS

/* The scenario written in @json, resolved against the built-in catalog;
 * aborts the test if it does not parse. */
HrScenario *hr_test_scenario  (const char *json);
HrScenario *hr_test_scenariof (const char *format,
                               ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
