/* hr-format.c: numbers, units and choices as the window shows them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "hr-format.h"

G_DEFINE_BOXED_TYPE (HrAnalysis, hr_analysis_boxed, hr_analysis_ref, hr_analysis_unref)

char *
hr_format_price (double usd)
{
  g_autofree char *digits = NULL;
  GString *out;
  guint64 whole;
  int len;

  if (usd < 0)
    return NULL;

  whole = (guint64) (usd + 0.5);
  digits = g_strdup_printf ("%" G_GUINT64_FORMAT, whole);
  len = strlen (digits);
  out = g_string_new ("$");
  for (int i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
hr_format_params (guint64 params)
{
  double p = (double) params;

  if (p >= 1e9)
    return g_strdup_printf (_("%.1f B"), p / 1e9);
  if (p >= 1e6)
    return g_strdup_printf (_("%.0f M"), p / 1e6);
  if (p >= 1e3)
    return g_strdup_printf (_("%.0f K"), p / 1e3);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, params);
}

/* The picker's groups, in order; detectors and segmenters share one. */
static const struct {
  const char *family;
  int         order;
  const char *label;
} families[] = {
  { "llm", 0, N_("Language models") },
  { "vla", 1, N_("Vision-language-action policies") },
  { "world-model", 2, N_("World models") },
  { "encoder", 3, N_("Encoders and vision transformers") },
  { "cnn", 4, N_("Convolutional networks") },
  { "detection", 5, N_("Detection and segmentation") },
  { "segmentation", 5, N_("Detection and segmentation") },
  { "diffusion", 6, N_("Image diffusion") },
  { "video", 7, N_("Video diffusion") },
  { "speech", 8, N_("Speech recognition") },
};

int
hr_family_order (const char *family)
{
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_strcmp0 (family, families[i].family) == 0)
      return families[i].order;
  return 9;
}

const char *
hr_family_label (const char *family)
{
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_strcmp0 (family, families[i].family) == 0)
      return _(families[i].label);
  return _("Other models");
}

const char *
hr_tier_label (HrGpuTier tier)
{
  switch (tier)
    {
    case HR_GPU_TIER_CONSUMER:
      return _("Consumer");
    case HR_GPU_TIER_WORKSTATION:
      return _("Workstation");
    case HR_GPU_TIER_DATACENTER:
      return _("Data centre");
    default:
      return "";
    }
}
