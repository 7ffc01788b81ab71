/* hr-test-utils.h: what several tests and benchmarks share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <math.h>

#include "hr-core.h"

G_BEGIN_DECLS

/* The scenario written in @json, resolved against the built-in catalog;
 * aborts the test if it does not parse. */
HrScenario *hr_test_scenario  (const char *json);
HrScenario *hr_test_scenariof (const char *format,
                               ...) G_GNUC_PRINTF (1, 2);

/* The scenario in @text as the file "s.json", or NULL with @error set. */
HrScenario *hr_test_parse_scenario        (const char  *text,
                                           GError     **error);
/* Fails the test unless @text is refused with a message that names
 * "s.json" (its file, line and column) and contains @phrase. */
void        hr_test_expect_scenario_error (const char  *text,
                                           const char  *phrase);

/* The bytes of @est's items in @bucket whose label contains @label_part
 * (every item of the bucket when NULL); the last one's basis in *@basis. */
double      hr_test_item_bytes            (const HrEstimate *est,
                                           HrBucket          bucket,
                                           const char       *label_part);
double      hr_test_item_bytes_basis      (const HrEstimate *est,
                                           HrBucket          bucket,
                                           const char       *label_part,
                                           HrBasis          *basis);

/* Fails the test unless @a is within the fraction @rel of @b, naming @a. */
#define hr_test_assert_near(a, b, rel) \
  G_STMT_START { \
    double a_ = (a), b_ = (b); \
    if (fabs (a_ - b_) > (rel) * fabs (b_)) \
      g_error ("%s = %.6g, expected %.6g within %.1f%%", #a, a_, b_, 100.0 * (rel)); \
  } G_STMT_END

G_END_DECLS
