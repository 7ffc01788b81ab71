/* hr-cli-export.c: the export and report commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hr-chart.h"
#include "hr-cli.h"

/* A chart's side in logical pixels, and what one PNG may hold: 16384
 * pixels a side and 64 Mi pixels (256 MiB as cairo's ARGB) in all, a
 * poster 16 × 10 in at 600 dpi. */
#define MIN_SIDE        16
#define MAX_SIDE        16384
#define MAX_PNG_SIDE    16384
#define MAX_PNG_PIXELS  (64.0 * 1024 * 1024)

/* "-o -": the file's bytes go to standard output as they are (not
 * through the filter that keeps text from driving a terminal: a PNG or
 * PDF is no text), and a PNG or PDF never to a terminal.  An SVG shown
 * on a terminal goes through the filter: it quotes the scenario's name,
 * which may hold what would drive it. */
static gboolean
output_is_stdout (const char *output)
{
  return g_strcmp0 (output, "-") == 0;
}

static gboolean
check_stdout (const char  *command,
              gboolean     binary)
{
  if (binary && isatty (fileno (hr_cli_raw_stdout ())))
    {
      fprintf (stderr, _("headroom-cli %s: -o -: standard output is a terminal; send it to a "
                         "file or a pipe\n"), command);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_stdout (const void  *data,
              gsize        length,
              GError     **error)
{
  FILE *out = hr_cli_raw_stdout ();

  if (isatty (fileno (out)))
    out = stdout;

  if (fwrite (data, 1, length, out) != length || fflush (out) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("<stdout>: %s"), g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* A report is written to a file by the report writer: to a private
 * folder, then copied to standard output. */
static gboolean
report_to_stdout (HrAnalysis          *analysis,
                  HrCatalog           *catalog,
                  const HrChartStyle  *style,
                  HrReportPaper        paper,
                  GError             **error)
{
  g_autofree char *dir = g_dir_make_tmp ("headroom-report-XXXXXX", error);
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  gboolean ok;

  if (dir == NULL)
    return FALSE;
  path = g_build_filename (dir, "report.pdf", NULL);
  ok = hr_chart_report_write_on_paper (path, analysis, catalog, style, paper, error) &&
       g_file_get_contents (path, &contents, &length, error) &&
       write_stdout (contents, length, error);
  g_unlink (path);
  g_rmdir (dir);
  return ok;
}

/* What `export` was given, as its options read it. */
typedef struct {
  char     *chart;
  char     *output;
  char     *format_name;
  char     *theme_name;
  char    **measurement_files;
  char     *gpu_list;
  char    **sets;
  char     *size_name;
  char     *width_text;
  char     *height_text;
  char     *svg_text;
  char     *scale_text;
  char     *dpi_text;
  gboolean  transparent;
  gboolean  calibrate;
} ExportArgs;

static void
export_args_clear (ExportArgs *args)
{
  g_free (args->chart);
  g_free (args->output);
  g_free (args->format_name);
  g_free (args->theme_name);
  g_strfreev (args->measurement_files);
  g_free (args->gpu_list);
  g_strfreev (args->sets);
  g_free (args->size_name);
  g_free (args->width_text);
  g_free (args->height_text);
  g_free (args->svg_text);
  g_free (args->scale_text);
  g_free (args->dpi_text);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ExportArgs, export_args_clear)

/* What the options say to draw: the chart, the format, the theme;
 * FALSE with the message printed when one names nothing there is. */
static gboolean
export_choose (const ExportArgs   *args,
               const HrChartType **type,
               HrExportFormat     *format,
               int                *theme,
               int                *preset)
{
  int format_value = HR_EXPORT_PNG;
  gboolean known;

  *type = hr_chart_type_find (args->chart);
  if (*type == NULL)
    {
      g_autofree char *list = hr_chart_types_list_names (", ");

      fprintf (stderr, _("headroom-cli export: --chart %s: expected one of %s\n"), args->chart,
               list);
      return FALSE;
    }

  if (args->format_name != NULL)
    known = hr_enum_from_nick (hr_export_format_names, args->format_name, &format_value);
  else
    known = hr_export_format_for_path (args->output, format);
  if (!known)
    {
      fprintf (stderr, _("headroom-cli export: %s: say --format png, svg or pdf\n"),
               args->format_name != NULL ? args->format_name : args->output);
      return FALSE;
    }
  if (args->format_name != NULL)
    *format = format_value;

  if (args->theme_name != NULL &&
      !hr_enum_from_nick (hr_chart_theme_names, args->theme_name, theme))
    {
      fprintf (stderr, _("headroom-cli export: --theme %s: expected light, dark or print\n"),
               args->theme_name);
      return FALSE;
    }

  if (args->size_name != NULL &&
      (!hr_enum_from_nick (hr_chart_size_names, args->size_name, preset) ||
       *preset == HR_CHART_SIZE_CUSTOM))
    {
      fprintf (stderr,
               _("headroom-cli export: --size %s: expected column, double, slide, poster or "
                 "screen\n"),
               args->size_name);
      return FALSE;
    }
  if (args->svg_text != NULL && !g_str_equal (args->svg_text, "text") &&
      !g_str_equal (args->svg_text, "outlines"))
    {
      fprintf (stderr, _("headroom-cli export: --svg-text %s: expected text or outlines\n"),
               args->svg_text);
      return FALSE;
    }
  return TRUE;
}

/* The size's width, height and fonts; a width or height given changes
 * the size (and, without --size, picks the fonts for its width). */
static gboolean
export_size (const ExportArgs *args,
             int               preset,
             HrChartSize      *size)
{
  g_autoptr(GError) error = NULL;
  double width, height;
  HrLengthUnit unit, height_unit;

  hr_chart_size_init_preset (size, preset);
  if (args->width_text == NULL && args->height_text == NULL)
    return TRUE;

  width = size->width;
  height = size->height;
  unit = height_unit = size->unit;
  if ((args->width_text != NULL &&
       !hr_chart_length_parse (args->width_text, "--width", &width, &unit, &error)) ||
      (args->height_text != NULL &&
       !hr_chart_length_parse (args->height_text, "--height", &height, &height_unit, &error)))
    {
      fprintf (stderr, _("headroom-cli export: %s\n"), error->message);
      return FALSE;
    }
  if (args->width_text == NULL)
    unit = height_unit;
  if (args->size_name == NULL)
    hr_chart_size_init_custom (size, width, height, unit);
  else
    {
      size->width = width;
      size->height = height;
      size->unit = unit;
    }
  return TRUE;
}

/* Each option's own bounds, named in its message: a side of 16 to
 * MAX_SIDE logical pixels, 24 to 2400 dpi (a scale of 1/4 to 8, as
 * --scale says it); then the PNG those make, in pixels, before any is
 * allocated. */
static gboolean
export_resolution (const ExportArgs  *args,
                   const HrChartSize *size,
                   HrExportFormat     format,
                   double            *scale,
                   double            *dpi)
{
  g_autoptr(GError) error = NULL;

  for (guint side = 0; side < 2; side++)
    {
      double value = side == 0 ? size->width : size->height;
      const char *given = side == 0 ? args->width_text : args->height_text;

      if (!(value >= MIN_SIDE && value <= MAX_SIDE))
        {
          g_autofree char *shown = hr_text_printable (given != NULL ? given : "",
                                                      given != NULL ? MIN (strlen (given), 40)
                                                                    : 0);

          fprintf (stderr,
                   /* Translators: --width or --height, then the value given */
                   _("headroom-cli export: %s “%s”: a chart is 16 to 16384 pixels (1/6 to "
                     "170 inches) a side\n"),
                   side == 0 ? "--width" : "--height", shown);
          return FALSE;
        }
    }
  if (args->scale_text != NULL && args->dpi_text != NULL)
    {
      fprintf (stderr, "%s\n",
               _("headroom-cli export: --scale and --dpi both set a PNG's resolution: give one"));
      return FALSE;
    }
  if ((args->scale_text != NULL &&
       !hr_cli_parse_number ("scale", args->scale_text, 0.25, 25, FALSE, FALSE, scale, &error)) ||
      (args->dpi_text != NULL &&
       !hr_cli_parse_number ("dpi", args->dpi_text, 24, 2400, FALSE, FALSE, dpi, &error)))
    {
      fprintf (stderr, _("headroom-cli export: %s\n"), error->message);
      return FALSE;
    }
  if (format == HR_EXPORT_PNG)
    {
      double ppi = size->dpi;
      double w, h;

      if (*scale > 0)
        ppi = *scale * 96;
      else if (*dpi > 0)
        ppi = *dpi;
      w = round (size->width * ppi / 96);
      h = round (size->height * ppi / 96);

      if (w > MAX_PNG_SIDE || h > MAX_PNG_SIDE || w * h > MAX_PNG_PIXELS)
        {
          fprintf (stderr,
                   _("headroom-cli export: a PNG of %.0f × %.0f pixels (this size at %g dpi) is "
                     "more than an export makes (16384 a side, 64 million in all): lower "
                     "--dpi or --scale, or the size\n"),
                   w, h, ppi);
          return FALSE;
        }
    }
  return TRUE;
}

/* The analysis the chart draws: the scenario (with --set) on the cards
 * compared, those named, else the scenario's own, else (on the curve) a
 * consumer card and the two data-centre cards most rented for training,
 * for reference; with the measurements.  NULL with *status set. */
static HrAnalysis *
export_analysis_new (const ExportArgs *args,
                     const char       *path,
                     GPtrArray        *measurements,
                     int              *status)
{
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(GPtrArray) references = g_ptr_array_new ();
  HrAnalysisOptions options = { 0 };

  scenario = hr_cli_load_scenario (path, args->sets, &error);
  if (scenario == NULL ||
      (args->gpu_list != NULL && !hr_cli_resolve_gpus (args->gpu_list, gpus, &error)))
    {
      *status = hr_cli_fail (error);
      return NULL;
    }
  if (gpus->len == 0 && scenario->gpu == NULL)
    hr_analysis_add_reference_gpus (references, hr_catalog_get_default ());
  if (!hr_cli_load_measurements (args->measurement_files, measurements, &error))
    {
      *status = hr_cli_fail (error);
      return NULL;
    }

  options.gpus = gpus;
  options.reference_gpus = references;
  options.measurements = measurements;
  options.sweep_snapshots = TRUE;
  options.use_calibration = args->calibrate;
  options.lever_sort = HR_KNOB_SORT_COST;
  options.unit = hr_cli_get_unit ();
  return hr_analysis_new (scenario, &options);
}

/* @drawing written where --output says; the exit status. */
static int
export_write (const char           *output,
              const HrExportOptions *options,
              const HrChartStyle   *style,
              HrChartDrawing       *drawing)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (output_is_stdout (output))
    {
      g_autoptr(GBytes) bytes = NULL;

      if (!check_stdout ("export", options->format != HR_EXPORT_SVG))
        return HR_CLI_EXIT_USAGE;
      bytes = hr_chart_export_bytes (options, style, hr_chart_drawing_draw, drawing, &error);
      ok = bytes != NULL &&
           write_stdout (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
    }
  else
    ok = hr_chart_export (output, options, style, hr_chart_drawing_draw, drawing, &error);
  if (!ok)
    {
      fprintf (stderr, "%s\n", error->message);
      return HR_CLI_EXIT_FAILURE;
    }
  return HR_CLI_EXIT_OK;
}

int
hr_cli_export (int    argc,
               char **argv)
{
  g_auto(ExportArgs) args = { 0 };
  g_autofree char *names = hr_chart_types_list_names ("|");
  double scale = 0, dpi = 0;
  GOptionEntry entries[] = {
    { "chart", 0, 0, G_OPTION_ARG_STRING, &args.chart, N_("Which chart"), names },
    hr_cli_option_unit (),
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &args.output,
     N_("File to write (- for standard output, with --format)"), N_("FILE") },
    { "format", 0, 0, G_OPTION_ARG_STRING, &args.format_name,
     N_("Format (default: from the file name)"), "png|svg|pdf" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &args.size_name,
     N_("A figure size with fonts to match: column (3.5 × 2.5 in), double (7 × 3.5 in), "
        "slide (13.33 × 7.5 in), poster (16 × 10 in) or screen (1280 × 800 px, the default)"),
     "column|double|slide|poster|screen" },
    { "width", 0, 0, G_OPTION_ARG_STRING, &args.width_text,
     N_("Width: a bare number is logical pixels (1/96 inch), or say px, in, cm, mm or pt "
        "(default 1280, or the size's)"), "W" },
    { "height", 0, 0, G_OPTION_ARG_STRING, &args.height_text,
     N_("Height, as --width (default 800, or the size's)"), "H" },
    { "scale", 0, 0, G_OPTION_ARG_STRING, &args.scale_text,
     N_("PNG pixels per logical pixel, 0.25 to 25 (default 1, or the size's resolution)"),
     "N" },
    { "dpi", 0, 0, G_OPTION_ARG_STRING, &args.dpi_text,
     N_("PNG pixels per inch, 24 to 2400 (96 is a scale of 1; a size's default: 300 for "
        "paper, 192 for a slide, 200 for a poster)"), "N" },
    { "svg-text", 0, 0, G_OPTION_ARG_STRING, &args.svg_text,
     N_("SVG text as <text> elements a drawing program can edit (the default) or as glyph "
        "outlines"), "text|outlines" },
    { "theme", 0, 0, G_OPTION_ARG_STRING, &args.theme_name, N_("Colours (default light)"),
     "light|dark|print" },
    { "transparent", 0, 0, G_OPTION_ARG_NONE, &args.transparent,
     N_("Leave the background transparent"), NULL },
    hr_cli_option_gpus (&args.gpu_list,
                        N_("Cards to compare, one bar or line each (default: the scenario's)"),
                        FALSE),
    hr_cli_option_measurements (&args.measurement_files,
                                N_("Measured points to overlay (repeatable)")),
    hr_cli_option_calibrate (&args.calibrate),
    hr_cli_option_set (&args.sets),
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SCENARIO"));
  g_autoptr(HrChartStyle) style = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) measurements = hr_cli_measurements_new ();
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(HrAdvisorWalk) walk = NULL;
  g_autoptr(HrAdvice) advice = NULL;
  g_autofree char *prefer = NULL;
  g_auto(GStrv) answers = NULL;
  g_autofree char *description = NULL;
  HrAdviceFlags advice_flags = HR_ADVICE_FLAGS_INIT;
  HrChartSource source = { 0 };
  const HrChartType *type;
  gpointer data;
  HrChartDrawing drawing;
  HrExportOptions options = { 0 };
  int theme = HR_CHART_THEME_LIGHT;
  int preset = HR_CHART_SIZE_SCREEN;
  HrChartSize size;
  HrExportFormat format;
  int status;

  g_option_context_set_summary (context, N_("Export a chart as PNG, SVG or PDF."));
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, hr_cli_advise_option_group (&advice_flags));
  if (!hr_cli_parse_options (context, &argc, &argv))
    return HR_CLI_EXIT_USAGE;
  /* the option group's string, freed when the command returns */
  prefer = advice_flags.prefer;
  answers = advice_flags.answers;

  if (argc != 2 || args.chart == NULL || args.output == NULL)
    {
      fprintf (stderr, _("headroom-cli export: expected SCENARIO --chart %s -o FILE\n"), names);
      return HR_CLI_EXIT_USAGE;
    }
  if (!export_choose (&args, &type, &format, &theme, &preset) ||
      !export_size (&args, preset, &size) ||
      !export_resolution (&args, &size, format, &scale, &dpi) ||
      !hr_cli_check_calibrate ("export", args.measurement_files, args.calibrate))
    return HR_CLI_EXIT_USAGE;

  analysis = export_analysis_new (&args, argv[1], measurements, &status);
  if (analysis == NULL)
    return status;

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
  style->transparent = args.transparent;
  hr_chart_style_apply_size (style, &size);
  data = type->data_new (&source);
  description = type->summary (data);
  drawing.type = type;
  drawing.data = data;

  options.format = format;
  hr_export_options_set_size (&options, &size, scale > 0 ? scale * 96 : dpi);
  options.text_as_outlines = args.svg_text != NULL && g_str_equal (args.svg_text, "outlines");
  options.title = type->data_title (data);
  options.description = description;

  status = export_write (args.output, &options, style, &drawing);
  type->data_free (data);
  return status;
}

int
hr_cli_report (int    argc,
               char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *gpu_list = NULL;
  g_auto(GStrv) sets = NULL;
  g_auto(GStrv) measurement_files = NULL;
  g_autofree char *theme_name = NULL;
  g_autofree char *paper_name = NULL;
  gboolean calibrate = FALSE;
  int theme = HR_CHART_THEME_PRINT, paper = HR_REPORT_PAPER_A4;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
     N_("PDF file to write (- for standard output)"), N_("FILE.pdf") },
    { "paper", 0, 0, G_OPTION_ARG_STRING, &paper_name, N_("Page size (default a4)"), "a4|letter" },
    hr_cli_option_unit (),
    { "theme", 0, 0, G_OPTION_ARG_STRING, &theme_name, N_("Colours (default print)"),
     "light|print" },
    hr_cli_option_gpus (&gpu_list, N_("Cards to compare on the charts (default: the scenario's "
                                      "and three for reference)"), FALSE),
    hr_cli_option_measurements (&measurement_files,
                                N_("A measurement of this scenario (repeatable)")),
    hr_cli_option_calibrate (&calibrate),
    hr_cli_option_set (&sets),
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SCENARIO"));
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrChartStyle) style = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) gpus = g_ptr_array_new ();
  g_autoptr(GPtrArray) measurements = hr_cli_measurements_new ();
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
  if (!hr_cli_check_calibrate ("report", measurement_files, calibrate))
    return HR_CLI_EXIT_USAGE;
  if (paper_name != NULL && !hr_enum_from_nick (hr_report_paper_names, paper_name, &paper))
    {
      fprintf (stderr, _("headroom-cli report: --paper %s: expected a4 or letter\n"), paper_name);
      return HR_CLI_EXIT_USAGE;
    }
  /* a report is printed: on white, so light or print */
  if (theme_name != NULL && (!hr_enum_from_nick (hr_chart_theme_names, theme_name, &theme) ||
                             theme == HR_CHART_THEME_DARK))
    {
      fprintf (stderr, _("headroom-cli report: --theme %s: expected light or print\n"),
               theme_name);
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
      hr_analysis_add_reference_gpus (gpus, catalog);
    }

  analysis = hr_cli_analysis_new (scenario, gpus, measurements, calibrate, HR_KNOB_SORT_COST);
  style = hr_chart_style_new (theme);
  if (output_is_stdout (output) && !check_stdout ("report", TRUE))
    return HR_CLI_EXIT_USAGE;
  if (output_is_stdout (output)
        ? !report_to_stdout (analysis, catalog, style, paper, &error)
        : !hr_chart_report_write_on_paper (output, analysis, catalog, style, paper, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return HR_CLI_EXIT_FAILURE;
    }

  return HR_CLI_EXIT_OK;
}
