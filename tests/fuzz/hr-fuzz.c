/* hr-fuzz.c: what the fuzz targets share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-fuzz"

#include <string.h>

#include "hr-fuzz.h"

/* No user catalog may change what a fuzz target sees, and a warning or a
 * critical (a g_return_if_fail that failed) is a finding like a crash. */
void
hr_fuzz_setup (void)
{
  g_setenv ("XDG_DATA_HOME", "/nonexistent/headroom-fuzz", TRUE);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  (void) hr_catalog_get_default ();
}

/* A refusal is a message the user reads: from Headroom's own domain, not
 * empty, one line, and naming where (a file name, or the --set option). */
void
hr_fuzz_check_error (const GError *error)
{
  HR_FUZZ_CHECK (error != NULL, "a refusal without a message");
  HR_FUZZ_CHECK (error->domain == HR_ERROR, "domain %s: %s",
                 g_quark_to_string (error->domain), error->message);
  HR_FUZZ_CHECK (error->message != NULL && error->message[0] != '\0', "empty message");
  HR_FUZZ_CHECK (strchr (error->message, '\n') == NULL, "message on several lines: %s",
                 error->message);
  HR_FUZZ_CHECK (g_utf8_validate (error->message, -1, NULL), "message is not UTF-8");
}

/* SCENARIO.md: the five buckets add up to the total, the total lies in
 * its range, and the three views of the peak are ordered. */
void
hr_fuzz_check_estimate (const HrScenario *scenario)
{
  g_autoptr(HrEstimate) est = hr_estimate_new (scenario);
  guint64 sum = 0;

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      /* Unsigned, so "non-negative" means no wrapped-around subtraction. */
      HR_FUZZ_CHECK (est->buckets[i] < G_MAXUINT64 / 8, "bucket %u is %" G_GUINT64_FORMAT,
                     i, est->buckets[i]);
      HR_FUZZ_CHECK (est->bucket_low[i] <= est->buckets[i] &&
                     est->buckets[i] <= est->bucket_high[i],
                     "bucket %u: %" G_GUINT64_FORMAT " outside %" G_GUINT64_FORMAT
                     "..%" G_GUINT64_FORMAT, i, est->buckets[i], est->bucket_low[i],
                     est->bucket_high[i]);
      sum += est->buckets[i];
    }

  HR_FUZZ_CHECK (sum == est->total, "buckets sum to %" G_GUINT64_FORMAT ", total %"
                 G_GUINT64_FORMAT, sum, est->total);
  HR_FUZZ_CHECK (est->low <= est->total && est->total <= est->high,
                 "low %" G_GUINT64_FORMAT " total %" G_GUINT64_FORMAT " high %" G_GUINT64_FORMAT,
                 est->low, est->total, est->high);
  HR_FUZZ_CHECK (est->allocated_peak <= est->reserved_peak &&
                 est->reserved_peak <= est->device_used,
                 "allocated %" G_GUINT64_FORMAT " reserved %" G_GUINT64_FORMAT
                 " device_used %" G_GUINT64_FORMAT,
                 est->allocated_peak, est->reserved_peak, est->device_used);
  HR_FUZZ_CHECK (est->total == est->device_used, "total is not the device_used view");
  if (est->has_fit)
    HR_FUZZ_CHECK (est->usable <= est->capacity, "usable more than the card holds");
}
