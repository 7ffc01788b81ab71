/* main.c: headroom-cli, Headroom's estimates without a window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hr-cli.h"

static const struct {
  const char   *name;
  HrCliCommand  run;
  const char   *summary;
} commands[] = {
  { "estimate", hr_cli_estimate,
   N_("the five buckets, the range, the three views, host RAM and the fit") },
  { "sweep", hr_cli_sweep, N_("peak memory versus micro-batch") },
  { "fits", hr_cli_fits, N_("for each GPU: fits or not, and the largest micro-batch") },
  { "knobs", hr_cli_knobs, N_("each lever, the memory it saves and what it costs, best first") },
  { "measure", hr_cli_measure, N_("import a measurement file, fit it, compare with a scenario") },
  { "export", hr_cli_export, N_("a chart as PNG, SVG or PDF") },
  { "report", hr_cli_report, N_("a multi-page PDF report") },
  { "advise", hr_cli_advise, N_("the decision-tree path and costed GPU recommendations") },
  { "models", hr_cli_models, N_("the model catalog") },
  { "gpus", hr_cli_gpus, N_("the GPU catalog") },
  { "import-model", hr_cli_import_model,
   N_("a model from a config.json, safetensors or GGUF header, or a model folder") },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s\n\n%s\n\n%s\n",
           _("Usage: headroom-cli COMMAND [OPTION…]"),
           _("Plans GPU memory for training, fine-tuning and inference."),
           _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n%s\n",
           _("Run `headroom-cli COMMAND --help` for a command's options."),
           _("Scenario files are described in SCENARIO.md; sizes in --json output are bytes."));
}

gboolean
hr_cli_parse_options (GOptionContext  *context,
                      int             *argc,
                      char          ***argv)
{
  g_autoptr(GError) error = NULL;

  /* Option descriptions, their argument names and the summary come from
   * this domain. */
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      fprintf (stderr, "headroom-cli: %s\n", error->message);
      return FALSE;
    }

  return TRUE;
}

int
hr_cli_fail (GError *error)
{
  fprintf (stderr, "%s\n", error->message);
  /* Anything wrong with what the user gave (a file that cannot be read
   * included) is bad input; only our own failures exit 1. */
  return error->domain == HR_ERROR ? HR_CLI_EXIT_USAGE : HR_CLI_EXIT_FAILURE;
}

HrScenario *
hr_cli_load_scenario (const char  *path,
                      char       **sets,
                      GError     **error)
{
  g_autoptr(HrJsonDoc) doc = NULL;
  HrCatalog *catalog = hr_catalog_get_default ();
  const char * const *warnings = hr_catalog_get_warnings (catalog);

  for (guint i = 0; warnings[i] != NULL; i++)
    fprintf (stderr, _("headroom-cli: warning: %s\n"), warnings[i]);

  if (g_strcmp0 (path, "-") == 0)
    {
      g_autoptr(GString) data = g_string_new (NULL);
      char buf[65536];
      gsize n;

      while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
        {
          g_string_append_len (data, buf, n);
          if (data->len > HR_JSON_MAX_FILE_SIZE)
            {
              g_set_error (error, HR_ERROR, HR_ERROR_TOO_LARGE,
                           _("<stdin>: more than the %d MiB a scenario can be"),
                           HR_JSON_MAX_FILE_SIZE >> 20);
              return NULL;
            }
        }
      doc = hr_json_doc_load_data ("<stdin>", data->str, data->len, error);
    }
  else
    doc = hr_json_doc_load_file (path, error);

  if (doc == NULL)
    return NULL;

  for (guint i = 0; sets != NULL && sets[i] != NULL; i++)
    {
      if (!hr_json_doc_apply_set (doc, sets[i], error))
        return NULL;
    }

  return hr_scenario_new_from_doc (doc, catalog, error);
}

gboolean
hr_cli_resolve_gpus (const char  *list,
                     GPtrArray   *gpus,
                     GError     **error)
{
  HrCatalog *catalog = hr_catalog_get_default ();
  g_auto(GStrv) ids = g_strsplit (list, ",", -1);

  if (g_str_equal (list, "all"))
    {
      GPtrArray *all = hr_catalog_get_gpus (catalog);

      for (guint i = 0; i < all->len; i++)
        g_ptr_array_add (gpus, g_ptr_array_index (all, i));
      return TRUE;
    }

  for (guint i = 0; ids[i] != NULL; i++)
    {
      const char *id = g_strstrip (ids[i]);
      const HrGpu *gpu = hr_catalog_find_gpu (catalog, id);

      if (gpu == NULL)
        {
          g_autofree char *hint = hr_catalog_suggest_gpu (catalog, id);

          if (hint != NULL)
            /* Translators: the first %s is what the user typed, the
             * second a catalog id close to it. */
            g_set_error (error, HR_ERROR, HR_ERROR_NOT_FOUND,
                         _("--gpus: unknown GPU \"%s\"; did you mean \"%s\"? "
                           "(`headroom-cli gpus` lists the catalog)"), id, hint);
          else
            g_set_error (error, HR_ERROR, HR_ERROR_NOT_FOUND,
                         _("--gpus: unknown GPU \"%s\" (`headroom-cli gpus` lists the catalog)"),
                         id);
          return FALSE;
        }
      g_ptr_array_add (gpus, (gpointer) gpu);
    }

  return TRUE;
}

gboolean
hr_cli_load_measurements (char      **files,
                          GPtrArray  *measurements,
                          GError    **error)
{
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    {
      HrMeasureOptions options = { 0 };
      HrMeasurement *m = hr_measurement_load_file (files[i], &options, error);

      if (m == NULL)
        return FALSE;
      g_ptr_array_add (measurements, m);
    }
  return TRUE;
}

HrAnalysis *
hr_cli_analysis_new (const HrScenario *scenario,
                     GPtrArray        *gpus,
                     GPtrArray        *measurements,
                     gboolean          calibrate,
                     HrKnobSort        lever_sort)
{
  HrAnalysisOptions options = { 0 };

  options.gpus = gpus;
  options.measurements = measurements;
  options.use_calibration = calibrate;
  options.lever_sort = lever_sort;
  options.unit = HR_SIZE_GIB;
  return hr_analysis_new (scenario, &options);
}

void
hr_cli_add_knob_json (JsonBuilder  *b,
                      const HrKnob *k)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, k->id);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, k->label);
  json_builder_set_member_name (b, "change");
  json_builder_add_string_value (b, k->change);
  json_builder_set_member_name (b, "saved");
  json_builder_add_int_value (b, k->saved);
  json_builder_set_member_name (b, "gained");
  json_builder_add_int_value (b, k->gained);
  json_builder_set_member_name (b, "need_after");
  json_builder_add_int_value (b, k->after);
  json_builder_set_member_name (b, "total_after");
  json_builder_add_int_value (b, k->device_after);
  json_builder_set_member_name (b, "speed");
  json_builder_add_double_value (b, k->speed);
  json_builder_set_member_name (b, "cost");
  json_builder_add_string_value (b, k->cost);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, k->source);
  json_builder_set_member_name (b, "risk");
  json_builder_add_string_value (b, hr_enum_to_nick (hr_knob_risk_names, k->risk));
  json_builder_set_member_name (b, "risk_text");
  json_builder_add_string_value (b, k->risk_text);
  json_builder_set_member_name (b, "risk_source");
  json_builder_add_string_value (b, k->risk_source);
  json_builder_set_member_name (b, "more_gpus");
  json_builder_add_boolean_value (b, k->more_gpus);
  if (k->has_fit)
    {
      json_builder_set_member_name (b, "fits_after");
      json_builder_add_boolean_value (b, k->fits_after);
      json_builder_set_member_name (b, "usable_after");
      json_builder_add_int_value (b, k->usable_after);
      json_builder_set_member_name (b, "max_micro_batch_after");
      json_builder_add_int_value (b, k->max_micro_batch_after);
    }
  json_builder_end_object (b);
}

char *
hr_cli_gib (double bytes)
{
  /* On screen, the locale's decimal separator; the unit is always said. */
  return g_strdup_printf ("%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

void
hr_cli_print_json (JsonNode *node)
{
  g_autofree char *text = hr_json_node_to_string (node, TRUE);

  printf ("%s\n", text);
}

void
hr_cli_add_peak_json (JsonBuilder  *builder,
                      const HrPeak *peak)
{
  json_builder_set_member_name (builder, "total");
  json_builder_add_int_value (builder, peak->total);
  json_builder_set_member_name (builder, "low");
  json_builder_add_int_value (builder, peak->low);
  json_builder_set_member_name (builder, "high");
  json_builder_add_int_value (builder, peak->high);
  json_builder_set_member_name (builder, "allocated_peak");
  json_builder_add_int_value (builder, peak->allocated);
  json_builder_set_member_name (builder, "reserved_peak");
  json_builder_add_int_value (builder, peak->reserved);
  json_builder_set_member_name (builder, "device_used");
  json_builder_add_int_value (builder, peak->device_used);
}

int
main (int    argc,
      char **argv)
{
  const char *localedir = g_getenv ("HEADROOM_LOCALEDIR");

  /* Tables and messages follow the desktop's language and number format;
   * machine-readable output (JSON, CSV), including the text inside it,
   * never does: under LC_MESSAGES=C gettext also ignores $LANGUAGE. */
  setlocale (LC_ALL, "");
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--json") || g_str_equal (argv[i], "--csv"))
        {
          setlocale (LC_NUMERIC, "C");
          setlocale (LC_MESSAGES, "C");
        }
    }

  /* HEADROOM_LOCALEDIR runs the build tree's translations (the tests set
   * it to <build>/po); an installed headroom-cli reads its own. */
  bindtextdomain (GETTEXT_PACKAGE,
                  localedir != NULL && localedir[0] != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      print_usage (stderr);
      return HR_CLI_EXIT_USAGE;
    }

  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help"))
    {
      print_usage (stdout);
      return HR_CLI_EXIT_OK;
    }

  if (g_str_equal (argv[1], "--version"))
    {
      printf ("headroom-cli %s\n", PACKAGE_VERSION);
      return HR_CLI_EXIT_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      if (g_str_equal (argv[1], commands[i].name))
        return commands[i].run (argc - 1, argv + 1);
    }

  fprintf (stderr, _("headroom-cli: unknown command \"%s\"\n\n"), argv[1]);
  print_usage (stderr);
  return HR_CLI_EXIT_USAGE;
}
