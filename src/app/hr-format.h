/* hr-format.h: numbers, units and choices as the window shows them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-core.h"

G_BEGIN_DECLS

typedef enum {
  HR_UNIT_GIB,   /* 2^30 bytes: what PyTorch and nvidia-smi report */
  HR_UNIT_GB,    /* 10^9 bytes: what vendors print on the box */
} HrUnit;

/* "14.2 GiB", with the locale's decimal separator. */
char *hr_format_bytes       (double  bytes,
                             HrUnit  unit);
/* "12.8–16.1 GiB" */
char *hr_format_bytes_range (double  low,
                             double  high,
                             HrUnit  unit);
/* "$1,599" or NULL when the price is unknown (< 0). */
char *hr_format_price       (double  usd);
/* "7.6 B", "40 M", "120 K" */
char *hr_format_params      (guint64 params);

/* A choice in a drop-down: an enumeration value and its label. */
typedef struct {
  int         value;
  const char *label;   /* N_() marked, translated when shown */
} HrChoice;

extern const HrChoice hr_task_choices[];
extern const HrChoice hr_method_choices[];
extern const HrChoice hr_lora_targets_choices[];
extern const HrChoice hr_compute_choices[];
extern const HrChoice hr_weights_choices[];
extern const HrChoice hr_optimizer_choices[];
extern const HrChoice hr_recompute_choices[];
extern const HrChoice hr_attention_choices[];
extern const HrChoice hr_loss_choices[];
extern const HrChoice hr_sharding_choices[];
extern const HrChoice hr_offload_choices[];
extern const HrChoice hr_framework_choices[];
extern const HrChoice hr_kv_dtype_choices[];

guint       hr_choice_count     (const HrChoice *choices);
guint       hr_choice_index     (const HrChoice *choices,
                                 int             value);
int         hr_choice_value     (const HrChoice *choices,
                                 guint           index);
const char *hr_choice_label     (const HrChoice *choices,
                                 int             value);

/* The family a model is listed under in the picker, translated. */
const char *hr_family_label     (const char     *family);
int         hr_family_order     (const char     *family);
const char *hr_tier_label       (HrGpuTier       tier);

G_END_DECLS
