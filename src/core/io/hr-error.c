/* hr-error.c: hr-core's error domain
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "hr-error.h"

/* the quark's name is a string, not a subtraction */
/* clang-format off */
G_DEFINE_QUARK (hr-error-quark, hr_error)
/* clang-format on */
