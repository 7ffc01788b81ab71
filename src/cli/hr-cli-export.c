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

/* The cards a curve shows when the scenario names none: a consumer card,
 * and the two data-centre cards most rented for training. */
typedef struct {
  const HrTreeNode *tree;
  const char       *title;
} TreeJob;

static void
draw_tree (cairo_t            *cr,
           PangoContext       *context,
           const HrChartStyle *style,
           double              width,
           double              height,
           gpointer            user_data)
{
  TreeJob *job = user_data;
  g_autoptr(HrTreeChartLayout) layout = hr_tree_chart_layout (job->tree, job->title, style,
                                                              context, width, height);

  hr_tree_chart_render (layout, style, cr);
}

int
hr_cli_export (int    argc,
               char **argv)
{
  g_autofree char *chart = NULL;
  g_autofree char *output = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *theme_name = NULL;
  g_autofree char *measurements = NULL;
  g_autofree char *gpu_list = NULL;
  g_auto(GStrv) sets = NULL;
  double width = 1280, height = 800, scale = 1;
  gboolean transparent = FALSE;
  GOptionEntry entries[] = {
    { "chart", 0, 0, G_OPTION_ARG_STRING, &chart, N_("Which chart"),
      "buckets|curve|tree|advice" },
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
     N_("Cards the curve shows (default: the scenario's)"), "ID,ID…" },
    { "measurements", 0, 0, G_OPTION_ARG_FILENAME, &measurements, N_("Measured points to overlay"),
     N_("FILE") },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, N_("Override a scenario key (repeatable)"),
     N_("KEY=VALUE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SCENARIO"));
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrChartStyle) style = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HrBucketChartData) buckets = NULL;
  g_autoptr(HrCurveChartData) curve = NULL;
  g_autoptr(HrTreeNode) tree = NULL;
  g_autoptr(HrAdvisorWalk) walk = NULL;
  g_autoptr(HrAdvice) advice = NULL;
  g_autofree char *prefer = NULL;
  g_auto(GStrv) answers = NULL;
  g_autofree char *leaf = NULL;
  HrAdviceFlags advice_flags = HR_ADVICE_FLAGS_INIT;
  HrAdviceChartData advice_job = { 0 };
  g_autoptr(HrMeasurement) measurement = NULL;
  g_autofree char *description = NULL;
  const char *title = NULL;
  TreeJob tree_job = { 0 };
  HrChartDrawFunc draw = NULL;
  gpointer draw_data = NULL;
  HrExportOptions options = { 0 };
  int theme = HR_CHART_THEME_LIGHT;
  int format_value = HR_EXPORT_PNG;
  HrExportFormat format;

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
      fprintf (stderr, _("headroom-cli export: expected SCENARIO --chart "
                         "buckets|curve|tree|advice -o FILE\n"));
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

  if (measurements != NULL && !g_str_equal (chart, "curve") && !g_str_equal (chart, "buckets"))
    {
      fprintf (stderr, _("headroom-cli export: --measurements goes on the curve chart "
                         "(--chart curve), or a memory snapshot on the bucket chart\n"));
      return HR_CLI_EXIT_USAGE;
    }

  scenario = hr_cli_load_scenario (argv[1], sets, &error);
  if (scenario == NULL)
    return hr_cli_fail (error);

  style = hr_chart_style_new (theme);
  style->transparent = transparent;

  if (g_str_equal (chart, "buckets"))
    {
      const HrSnapshotDevice *device = NULL;

      if (measurements != NULL)
        {
          measurement = hr_measurement_load_file (measurements, NULL, &error);
          if (measurement == NULL)
            return hr_cli_fail (error);
          if (measurement->snapshot != NULL)
            device = hr_snapshot_get_peak_device (measurement->snapshot);
          if (device == NULL)
            {
              fprintf (stderr, _("%s: not a memory snapshot or profiler timeline; the bucket "
                                 "chart sets those beside the estimate (draw other "
                                 "measurements on --chart curve)\n"), measurement->name);
              return HR_CLI_EXIT_USAGE;
            }
          /* The estimate at the micro-batch the snapshot says. */
          if (hr_measurement_get_micro_batch (measurement) > 0)
            scenario->micro_batch = hr_measurement_get_micro_batch (measurement);
        }
      buckets = hr_bucket_chart_data_new_for_scenario (scenario);
      if (device != NULL)
        {
          g_autofree char *label = g_strdup_printf (_("measured, cuda:%d"), device->device);

          hr_bucket_chart_data_add_snapshot (buckets, label, device);
        }
      description = hr_bucket_chart_summary (buckets);
      title = buckets->title;
      draw = hr_bucket_chart_draw;
      draw_data = buckets;
    }
  else if (g_str_equal (chart, "curve"))
    {
      g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
      gboolean log2_x;
      guint upper;

      if (gpu_list != NULL)
        {
          if (!hr_cli_resolve_gpus (gpu_list, gpus, &error))
            return hr_cli_fail (error);
        }
      else if (scenario->gpu != NULL)
        g_ptr_array_add (gpus, scenario->gpu);
      else
        hr_curve_chart_add_reference_gpus (gpus, hr_catalog_get_default ());

      hr_curve_chart_batch_range (scenario, gpus, &upper, &log2_x);
      if (measurements != NULL)
        {
          HrMeasureOptions measure_options = { 0 };

          /* A log over time is drawn as its peak: read it thinned, in
           * bounded memory, whatever its length. */
          measure_options.max_time_points = HR_MEASURE_SUMMARY_POINTS;
          measurement = hr_measurement_load_file (measurements, &measure_options, &error);
          if (measurement == NULL)
            return hr_cli_fail (error);
          /* The curve spans the measured batches too. */
          upper = hr_curve_chart_measurement_batch_range (measurement, upper);
        }
      curve = hr_curve_chart_data_new_for_scenario (scenario, gpus, 1, upper, log2_x);
      if (measurement != NULL)
        hr_curve_chart_data_add_measurement (curve, measurement, scenario->micro_batch);
      description = hr_curve_chart_summary (curve);
      title = curve->title;
      draw = hr_curve_chart_draw;
      draw_data = curve;
    }
  else if (g_str_equal (chart, "tree") || g_str_equal (chart, "advice"))
    {
      const HrRecommendation *best;

      /* The advisor's tree, answered from the advise options and the
       * scenario, with its path and the costed table. */
      if (!hr_cli_advise_run (scenario, &advice_flags, &walk, &advice, &error))
        {
          fprintf (stderr, _("headroom-cli export: %s\n"), error->message);
          return HR_CLI_EXIT_USAGE;
        }
      best = advice->recommendations->len > 0 ? g_ptr_array_index (advice->recommendations, 0)
                                              : NULL;
      /* Translators: the count, the card's name, then the largest
       * micro-batch; "\u00A0" is a no-break space. */
      if (best != NULL && best->choice == HR_ADVICE_CHOICE_BUY)
        leaf = g_strdup_printf (_("Buy %u × %s\u00A0· micro-batch up to %u"),
                                best->count, best->gpu_name, best->max_micro_batch);
      else if (best != NULL)
        leaf = g_strdup_printf (_("Rent %u × %s\u00A0· micro-batch up to %u"),
                                best->count, best->gpu_name, best->max_micro_batch);
      tree = hr_advisor_walk_to_tree (walk, leaf != NULL ? leaf : _("no card fits"));
      tree_job.tree = tree;
      tree_job.title = scenario->name != NULL && scenario->name[0] != '\0' ? scenario->name
                                                                          : scenario->model->name;
      title = tree_job.title;
      if (g_str_equal (chart, "tree"))
        {
          description = hr_tree_chart_summary (tree);
          draw = draw_tree;
          draw_data = &tree_job;
        }
      else
        {
          g_autofree char *words = hr_tree_path_text (tree);

          g_free (leaf);
          leaf = g_strdup_printf (_("Decision path: %s."), words);
          advice_job.advice = advice;
          advice_job.title = title;
          advice_job.path = leaf;
          description = hr_advice_chart_summary (&advice_job);
          draw = hr_advice_chart_draw;
          draw_data = &advice_job;
        }
    }
  else
    {
      fprintf (stderr,
               _("headroom-cli export: --chart %s: expected buckets, curve, tree or advice\n"),
               chart);
      return HR_CLI_EXIT_USAGE;
    }

  options.format = format;
  options.width = width;
  options.height = height;
  options.scale = scale;
  options.title = title;
  options.description = description;

  if (!hr_chart_export (output, &options, style, draw, draw_data, &error))
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
  g_auto(GStrv) sets = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("PDF file to write"), N_("FILE.pdf") },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, N_("Override a scenario key (repeatable)"),
     N_("KEY=VALUE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SCENARIO"));
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrChartStyle) style = NULL;
  g_autoptr(GError) error = NULL;

  g_option_context_set_summary (context, N_("Write a multi-page PDF report of a scenario."));
  g_option_context_add_main_entries (context, entries, NULL);
  if (!hr_cli_parse_options (context, &argc, &argv))
    return HR_CLI_EXIT_USAGE;

  if (argc != 2 || output == NULL)
    {
      fprintf (stderr, _("headroom-cli report: expected SCENARIO -o FILE.pdf\n"));
      return HR_CLI_EXIT_USAGE;
    }

  scenario = hr_cli_load_scenario (argv[1], sets, &error);
  if (scenario == NULL)
    return hr_cli_fail (error);

  style = hr_chart_style_new (HR_CHART_THEME_PRINT);
  if (!hr_chart_report_write (output, scenario, hr_catalog_get_default (), style, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return HR_CLI_EXIT_FAILURE;
    }

  return HR_CLI_EXIT_OK;
}
