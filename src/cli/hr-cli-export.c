/* hr-cli-export.c: the export and report commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <math.h>
#include <glib/gi18n.h>
#include <stdio.h>

#include "hr-chart.h"
#include "hr-cli.h"
#include "hr-cli-measure.h"

int
hr_cli_export (int    argc,
               char **argv)
{
  g_autofree char *chart = NULL;
  g_autofree char *output = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *theme_name = NULL;
  g_auto(GStrv) measurement_files = NULL;
  g_autofree char *gpu_list = NULL;
  g_auto(GStrv) sets = NULL;
  g_autofree char *names = hr_chart_types_list_names ("|");
  double width = 1280, height = 800, scale = 1;
  gboolean transparent = FALSE, calibrate = FALSE;
  GOptionEntry entries[] = {
    { "chart", 0, 0, G_OPTION_ARG_STRING, &chart, N_("Which chart"), names },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("File to write"), N_("FILE") },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name, N_("Format (default: from the file name)"),
     "png|svg|pdf" },
    { "width", 0, 0, G_OPTION_ARG_DOUBLE, &width,
     N_("Width in logical pixels (1/96 inch; default 1280)"), "W" },
    { "height", 0, 0, G_OPTION_ARG_DOUBLE, &height, N_("Height in logical pixels (default 800)"),
     "H" },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &scale,
     N_("PNG pixels per logical pixel (2 for HiDPI or print)"), "N" },
    { "theme", 0, 0, G_OPTION_ARG_STRING, &theme_name, N_("Colours (default light)"),
     "light|dark|print" },
    { "transparent", 0, 0, G_OPTION_ARG_NONE, &transparent, N_("Leave the background transparent"),
     NULL },
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &gpu_list,
     N_("Cards to compare, one bar or line each (default: the scenario's)"), "ID,ID…" },
    { "measurements", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &measurement_files,
     N_("Measured points to overlay (repeatable)"), N_("FILE") },
    { "calibrate", 0, 0, G_OPTION_ARG_NONE, &calibrate,
     N_("Calibrate the estimate by the first measured sweep of this setup"), NULL },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, N_("Override a scenario key (repeatable)"),
     N_("KEY=VALUE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SCENARIO"));
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrChartStyle) style = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(GPtrArray) references = g_ptr_array_new ();
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                      hr_measurement_free);
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(HrAdvisorWalk) walk = NULL;
  g_autoptr(HrAdvice) advice = NULL;
  g_autofree char *prefer = NULL;
  g_auto(GStrv) answers = NULL;
  g_autofree char *description = NULL;
  HrAdviceFlags advice_flags = HR_ADVICE_FLAGS_INIT;
  HrAnalysisOptions analysis_options = { 0 };
  HrChartSource source = { 0 };
  const HrChartType *type;
  gpointer data;
  HrChartDrawing drawing;
  HrExportOptions options = { 0 };
  int theme = HR_CHART_THEME_LIGHT;
  int format_value = HR_EXPORT_PNG;
  HrExportFormat format;
  gboolean ok;

  g_option_context_set_summary (context, N_("Export a chart as PNG, SVG or PDF."));
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, hr_cli_advise_option_group (&advice_flags));
  if (!hr_cli_parse_options (context, &argc, &argv))
    return HR_CLI_EXIT_USAGE;
  /* the option group's string, freed when the command returns */
  prefer = advice_flags.prefer;
  answers = advice_flags.answers;

  if (argc != 2 || chart == NULL || output == NULL)
    {
      fprintf (stderr, _("headroom-cli export: expected SCENARIO --chart %s -o FILE\n"), names);
      return HR_CLI_EXIT_USAGE;
    }

  type = hr_chart_type_find (chart);
  if (type == NULL)
    {
      g_autofree char *list = hr_chart_types_list_names (", ");

      fprintf (stderr, _("headroom-cli export: --chart %s: expected one of %s\n"), chart, list);
      return HR_CLI_EXIT_USAGE;
    }

  if (format_name != NULL ? !hr_enum_from_nick (hr_export_format_names, format_name, &format_value)
                          : !hr_export_format_for_path (output, &format))
    {
      fprintf (stderr, _("headroom-cli export: %s: say --format png, svg or pdf\n"),
               format_name != NULL ? format_name : output);
      return HR_CLI_EXIT_USAGE;
    }

  if (format_name != NULL)
    format = format_value;

  if (theme_name != NULL && !hr_enum_from_nick (hr_chart_theme_names, theme_name, &theme))
    {
      fprintf (stderr, _("headroom-cli export: --theme %s: expected light, dark or print\n"),
               theme_name);
      return HR_CLI_EXIT_USAGE;
    }

  if (!(width >= 16 && height >= 16 && width <= 16384 && height <= 16384) ||
      !(scale > 0 && scale <= 8))
    {
      fprintf (stderr,
               _("headroom-cli export: --width and --height must be 16 to 16384, --scale above 0 "
                 "up to 8\n"));
      return HR_CLI_EXIT_USAGE;
    }

  if (calibrate && measurement_files == NULL)
    {
      fprintf (stderr, "%s\n", _("headroom-cli export: --calibrate needs --measurements FILE"));
      return HR_CLI_EXIT_USAGE;
    }

  scenario = hr_cli_load_scenario (argv[1], sets, &error);
  if (scenario == NULL)
    return hr_cli_fail (error);

  /* The cards compared: those named, else the scenario's own, else (on
   * the curve) a consumer card and the two data-centre cards most rented
   * for training, for reference. */
  if (gpu_list != NULL && !hr_cli_resolve_gpus (gpu_list, gpus, &error))
    return hr_cli_fail (error);
  if (gpus->len == 0 && scenario->gpu == NULL)
    hr_curve_chart_add_reference_gpus (references, hr_catalog_get_default ());
  if (!hr_cli_load_measurements (measurement_files, measurements, &error))
    return hr_cli_fail (error);

  analysis_options.gpus = gpus;
  analysis_options.reference_gpus = references;
  analysis_options.measurements = measurements;
  analysis_options.use_calibration = calibrate;
  analysis_options.lever_sort = HR_KNOB_SORT_COST;
  analysis = hr_analysis_new (scenario, &analysis_options);

  source.analysis = analysis;
  source.catalog = hr_catalog_get_default ();
  if (type->advisor)
    {
      /* The advisor's tree, answered from the advise options and the
       * scenario, with its path and the costed table. */
      if (!hr_cli_advise_run (analysis, &advice_flags, &walk, &advice, &error))
        {
          fprintf (stderr, _("headroom-cli export: %s\n"), error->message);
          return HR_CLI_EXIT_USAGE;
        }
      source.walk = walk;
      source.advice = advice;
    }

  style = hr_chart_style_new (theme);
  style->transparent = transparent;
  data = type->data_new (&source);
  description = type->summary (data);
  drawing.type = type;
  drawing.data = data;

  options.format = format;
  options.width = width;
  options.height = height;
  options.scale = scale;
  options.title = type->data_title (data);
  options.description = description;

  ok = hr_chart_export (output, &options, style, hr_chart_drawing_draw, &drawing, &error);
  type->data_free (data);
  if (!ok)
    {
      fprintf (stderr, "%s\n", error->message);
      return HR_CLI_EXIT_FAILURE;
    }

  return HR_CLI_EXIT_OK;
}

int
hr_cli_report (int    argc,
               char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *gpu_list = NULL;
  g_auto(GStrv) sets = NULL;
  g_auto(GStrv) measurement_files = NULL;
  gboolean calibrate = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("PDF file to write"), N_("FILE.pdf") },
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &gpu_list,
     N_("Cards to compare on the charts (default: the scenario's and three for reference)"),
     "ID,ID…" },
    { "measurements", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &measurement_files,
     N_("A measurement of this scenario (repeatable)"), N_("FILE") },
    { "calibrate", 0, 0, G_OPTION_ARG_NONE, &calibrate,
     N_("Calibrate the estimate by the first measured sweep of this setup"), NULL },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, N_("Override a scenario key (repeatable)"),
     N_("KEY=VALUE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SCENARIO"));
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrChartStyle) style = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                      hr_measurement_free);
  g_autoptr(HrAnalysis) analysis = NULL;
  HrCatalog *catalog = hr_catalog_get_default ();

  g_option_context_set_summary (context, N_("Write a multi-page PDF report of a scenario."));
  g_option_context_add_main_entries (context, entries, NULL);
  if (!hr_cli_parse_options (context, &argc, &argv))
    return HR_CLI_EXIT_USAGE;

  if (argc != 2 || output == NULL)
    {
      fprintf (stderr, _("headroom-cli report: expected SCENARIO -o FILE.pdf\n"));
      return HR_CLI_EXIT_USAGE;
    }
  if (calibrate && measurement_files == NULL)
    {
      fprintf (stderr, "%s\n", _("headroom-cli report: --calibrate needs --measurements FILE"));
      return HR_CLI_EXIT_USAGE;
    }

  scenario = hr_cli_load_scenario (argv[1], sets, &error);
  if (scenario == NULL)
    return hr_cli_fail (error);
  if (gpu_list != NULL && !hr_cli_resolve_gpus (gpu_list, gpus, &error))
    return hr_cli_fail (error);
  if (!hr_cli_load_measurements (measurement_files, measurements, &error))
    return hr_cli_fail (error);
  if (gpu_list == NULL)
    {
      if (scenario->gpu != NULL)
        g_ptr_array_add (gpus, scenario->gpu);
      hr_curve_chart_add_reference_gpus (gpus, catalog);
    }

  analysis = hr_cli_analysis_new (scenario, gpus, measurements, calibrate, HR_KNOB_SORT_COST);
  style = hr_chart_style_new (HR_CHART_THEME_PRINT);
  if (!hr_chart_report_write_analysis (output, analysis, catalog, style, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return HR_CLI_EXIT_FAILURE;
    }

  return HR_CLI_EXIT_OK;
}
