/* hr-gpu-editor.h: a card the catalog does not have, or one of the user's own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "hr-core.h"

G_BEGIN_DECLS

#define HR_TYPE_GPU_EDITOR (hr_gpu_editor_get_type ())
G_DECLARE_FINAL_TYPE (HrGpuEditor, hr_gpu_editor, HR, GPU_EDITOR, AdwWindow)

/* A new card when @gpu is NULL; otherwise the fields start from @gpu and
 * saving replaces the user's entry of that id (or overrides the built-in
 * one).  Emits ::gpu-saved with the id once the card is in the user's
 * catalog. */
HrGpuEditor *hr_gpu_editor_new         (GtkWindow   *parent,
                                        const HrGpu *gpu);

/* The field's widget, by the catalog key it fills: "name" and "id"
 * (AdwEntryRow), "tier" (AdwComboRow), "memory" (GiB), "bandwidth" (GB/s),
 * "tdp_watts", "bf16_tflops", "price_usd", "cloud_usd_per_hour"
 * (GtkSpinButton; 0 means unknown), "price_as_of" and "source"
 * (AdwEntryRow); NULL for any other key. */
GtkWidget   *hr_gpu_editor_get_field   (HrGpuEditor *self,
                                        const char  *key);
/* What the editor says about the entry: why it cannot be saved, or what
 * saving it does. */
const char  *hr_gpu_editor_get_message (HrGpuEditor *self);
gboolean     hr_gpu_editor_can_save    (HrGpuEditor *self);
/* What "Save" does, without closing the editor. */
gboolean     hr_gpu_editor_save        (HrGpuEditor *self,
                                        GError     **error);

/* Whether @date is a price date as the catalog writes them: YYYY-MM or
 * YYYY-MM-DD, a real month and day. */
gboolean     hr_gpu_price_date_is_valid (const char *date);
/* Today as YYYY-MM-DD, for prices entered now. */
char        *hr_gpu_price_date_today    (void);

G_END_DECLS
