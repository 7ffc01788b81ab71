/* hr-checked.h: byte counts that cannot wrap around
 *
 * The estimator works in doubles and reports guint64 bytes; the levers,
 * the fit and the CLI subtract those figures as gint64.  A product of
 * settings each inside its range (a sequence of 16 M tokens under eager
 * attention, a replay buffer of a billion frames) can exceed what 64 bits
 * hold: converted with llround() it became -2^63.  Every figure passes
 * through hr_checked_bytes() instead, which caps it at HR_BYTES_MAX and
 * says that it did, so that the caller can refuse the scenario rather than
 * print a wrapped number.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <math.h>

G_BEGIN_DECLS

/* 2^60 bytes (1 EiB), far beyond the memory of any GPU or host (the
 * largest HBM part sold holds 2^37 to 2^38 bytes), and small enough that
 * eight such figures add up, and two subtract, inside a gint64 (the levers
 * compute (usable - need) - (usable' - need'), hr-knobs.c). */
#define HR_BYTES_MAX (G_GUINT64_CONSTANT (1) << 60)

/* @bytes rounded to a byte count in [0, HR_BYTES_MAX].  A figure above the
 * cap, infinite or NaN sets *@overflow (which is never cleared) and gives
 * HR_BYTES_MAX; a negative one (a difference that rounding took below
 * zero) gives 0. */
static inline guint64
hr_checked_bytes (double    bytes,
                  gboolean *overflow)
{
  if (isnan (bytes) || bytes > (double) HR_BYTES_MAX)
    {
      *overflow = TRUE;
      return HR_BYTES_MAX;
    }
  if (bytes <= 0)
    return 0;
  return (guint64) llround (bytes);
}

/* @a + @b, capped at HR_BYTES_MAX (setting *@overflow when it is). */
static inline guint64
hr_checked_add (guint64   a,
                guint64   b,
                gboolean *overflow)
{
  guint64 sum;

  if (__builtin_add_overflow (a, b, &sum) || sum > HR_BYTES_MAX)
    {
      *overflow = TRUE;
      return HR_BYTES_MAX;
    }
  return sum;
}

/* @a × @b, capped at HR_BYTES_MAX (setting *@overflow when it is). */
static inline guint64
hr_checked_mul (guint64   a,
                guint64   b,
                gboolean *overflow)
{
  guint64 product;

  if (__builtin_mul_overflow (a, b, &product) || product > HR_BYTES_MAX)
    {
      *overflow = TRUE;
      return HR_BYTES_MAX;
    }
  return product;
}

G_END_DECLS
