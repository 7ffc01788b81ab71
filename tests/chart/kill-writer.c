/* kill-writer.c: a writer for test-kill-writer.py to kill
 *
 * Usage: kill-writer KIND PATH [VARIANT]
 * KIND is scenario, png, svg, pdf (a chart export) or report.  With
 * VARIANT (0 or 1), writes that version of PATH once, prints how many
 * seconds the write took and exits: the reference copies.  Without,
 * prints "ready" once set up and then writes version 1, 0, 1, 0... to
 * PATH until it is killed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "kill-writer"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hr-chart.h"
#include "hr-core.h"
#include "hr-file-private.h"

/* Sizes that make a write of many steps, so that kills land inside it. */
#define NAME_BYTES 4000   /* within the 4096 characters a name may have */
#define LINES 2000

static void
draw_lines (cairo_t            *cr,
            PangoContext       *context,
            const HrChartStyle *style,
            double              width,
            double              height,
            gpointer            user_data)
{
  guint variant = GPOINTER_TO_UINT (user_data);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_line_width (cr, 0.5);
  for (guint i = 0; i < LINES; i++)
    {
      cairo_set_source_rgb (cr, (i % 7) / 7.0, variant, (i % 13) / 13.0);
      cairo_move_to (cr, (i * 37 % 997) / 997.0 * width, (i * 91 % 983) / 983.0 * height);
      cairo_line_to (cr, (i * 53 % 991) / 991.0 * width, (i * 17 % 977) / 977.0 * height);
      cairo_stroke (cr);
    }
}

static gboolean
write_version (const char        *kind,
               const char        *path,
               guint              variant,
               HrScenario *const  scenarios[2],
               const HrChartStyle *style,
               GError           **error)
{
  HrExportOptions options = { 0 };

  if (g_str_equal (kind, "scenario"))
    return hr_scenario_save (scenarios[variant], path, error);

  if (g_str_equal (kind, "report"))
    return hr_chart_report_write (path, scenarios[variant], hr_catalog_get_default (), style,
                                  error);

  if (!hr_enum_from_nick (hr_export_format_names, kind, (int *) &options.format))
    g_error ("unknown kind %s", kind);
  options.width = variant == 0 ? 1600 : 1200;
  options.height = 1200;
  options.scale = 1;
  options.title = "Kill test";
  options.description = variant == 0 ? "version 0" : "version 1";
  return hr_chart_export (path, &options, style, draw_lines, GUINT_TO_POINTER (variant), error);
}

/* Where to die: a stage of hr_file_write_atomic(), and for the data stage
 * the bytes written first. */
typedef struct {
  HrFileWriteStage stage;
  gsize            bytes;
} KillPoint;

static void
kill_hook (HrFileWriteStage stage,
           gsize            written,
           gpointer         user_data)
{
  const KillPoint *point = user_data;

  if (stage == point->stage && (stage != HR_FILE_WRITE_DATA || written >= point->bytes))
    raise (SIGKILL);
}

static const HrEnumName stage_names[] = {
  { HR_FILE_WRITE_CREATED, "created" },
  { HR_FILE_WRITE_DATA, "data" },
  { HR_FILE_WRITE_SYNCED, "synced" },
  { HR_FILE_WRITE_RENAMED, "renamed" },
  { 0, NULL },
};

int
main (int    argc,
      char **argv)
{
  g_autoptr(HrChartStyle) style = hr_chart_style_new (HR_CHART_THEME_PRINT);
  g_autoptr(HrScenario) first = NULL;
  g_autoptr(HrScenario) second = NULL;
  g_autoptr(GError) error = NULL;
  HrScenario *scenarios[2];
  KillPoint point = { 0 };

  if (argc != 4 && argc != 6)
    {
      fprintf (stderr, "usage: kill-writer KIND PATH VARIANT [created|data|synced|renamed BYTES]\n");
      return 2;
    }

  first = hr_scenario_new_for_model (hr_catalog_find_model (hr_catalog_get_default (),
                                                            "smolvla"));
  second = hr_scenario_copy (first);
  g_free (first->name);
  first->name = g_strnfill (NAME_BYTES, 'a');
  g_free (second->name);
  second->name = g_strnfill (NAME_BYTES + 96, 'b');
  second->micro_batch = 32;
  if (g_str_equal (argv[1], "report"))
    {
      /* The report lays the name out as text: keep it short there. */
      g_free (first->name);
      first->name = g_strdup ("Kill test, version 0");
      g_free (second->name);
      second->name = g_strdup ("Kill test, version 1");
    }
  scenarios[0] = first;
  scenarios[1] = second;

  if (argc == 6)
    {
      if (!hr_enum_from_nick (stage_names, argv[4], (int *) &point.stage))
        g_error ("unknown stage %s", argv[4]);
      point.bytes = g_ascii_strtoull (argv[5], NULL, 10);
      hr_file_set_write_hook (kill_hook, &point);
    }

  if (!write_version (argv[1], argv[2], atoi (argv[3]) != 0, scenarios, style, &error))
    g_error ("%s", error->message);
  return 0;
}
