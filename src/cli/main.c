/* main.c: headroom-cli, Headroom's estimates without a window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#define _GNU_SOURCE 1   /* fopencookie */

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- Output that cannot drive a terminal ----------------------------------
 *
 * Names, ids and header values come from files anybody may have written.
 * Every byte headroom-cli prints as text, on stdout and on stderr, passes
 * through this filter: tabs
 * and newlines stay, other control characters, C1 controls, line and
 * paragraph separators and direction overrides are shown as escapes (as
 * hr_text_printable() shows them in messages).  JSON stays valid: the
 * characters json-glib writes raw inside strings become \uXXXX escapes,
 * and the control characters it escapes itself never reach the filter. */

static FILE *raw_stdout;

typedef struct {
  FILE  *out;
  char   pending[4];   /* the start of a character cut between two writes */
  gsize  n_pending;
  gboolean json;       /* \uXXXX for every escape (JSON text) */
  int    error;        /* the errno of the first write that failed, or 0 */
} Filter;

/* Writes to the real stdout, remembering the first failure (a full disk,
 * a closed descriptor, a pipe nobody reads) so that the exit status can
 * say it. */
static void
filter_emit (Filter     *filter,
             const char *bytes,
             gsize       length)
{
  if (filter->error == 0 && fwrite (bytes, 1, length, filter->out) != length)
    filter->error = errno != 0 ? errno : EIO;
}

static void
filter_escape (Filter  *filter,
               gboolean unicode,
               guint    value)
{
  char escape[16];
  int n = unicode ? g_snprintf (escape, sizeof escape, "\\u%04X", value)
                  : g_snprintf (escape, sizeof escape, "\\x%02X", value);

  filter_emit (filter, escape, n);
}

static void
filter_put (Filter     *filter,
            const char *text,
            gsize       length)
{
  const char *end = text + length;

  for (const char *c = text; c < end;)
    {
      gunichar ch = g_utf8_get_char_validated (c, end - c);

      if (ch == (gunichar) -2)
        {
          /* an incomplete character at the end: keep it for the next write */
          memcpy (filter->pending, c, end - c);
          filter->n_pending = end - c;
          return;
        }
      if (ch == (gunichar) -1)
        {
          filter_escape (filter, FALSE, (guchar) *c);
          c++;
          continue;
        }
      if (ch == '\n' || ch == '\t' ||
          !(ch < 0x20 || ch == 0x7F || (ch >= 0x80 && ch < 0xA0) || ch == 0x2028 ||
            ch == 0x2029 || (ch >= 0x202A && ch <= 0x202E) || (ch >= 0x2066 && ch <= 0x2069)))
        filter_emit (filter, c, g_utf8_next_char (c) - c);
      else if (ch < 0x80 && !filter->json)
        filter_escape (filter, FALSE, ch);
      else
        filter_escape (filter, TRUE, ch);
      c = g_utf8_next_char (c);
    }
}

static ssize_t
filter_write (void       *cookie,
              const char *data,
              size_t      size)
{
  Filter *filter = cookie;

  if (filter->n_pending > 0)
    {
      /* the character the last write cut, completed by this one */
      g_autoptr(GString) joined = g_string_new_len (filter->pending, filter->n_pending);

      g_string_append_len (joined, data, size);
      filter->n_pending = 0;
      filter_put (filter, joined->str, joined->len);
    }
  else
    filter_put (filter, data, size);
  /* A failed write is remembered and said when the stream is closed
   * (filter_close): returning -1 here makes glibc's stdio crash on a
   * large write (seen with fputs of 47 kB, glibc 2.36). */
  return size;
}

static int
filter_close (void *cookie)
{
  Filter *filter = cookie;

  int error;

  for (gsize i = 0; i < filter->n_pending; i++)
    filter_escape (filter, FALSE, (guchar) filter->pending[i]);
  /* What is still buffered goes out now, where its failure is seen;
   * a chart written to hr_cli_raw_stdout() fails here too. */
  if (fflush (filter->out) != 0 && filter->error == 0)
    filter->error = errno != 0 ? errno : EIO;
  if (ferror (filter->out) && filter->error == 0)
    filter->error = EIO;
  error = filter->error;
  g_free (filter);
  if (error != 0)
    {
      errno = error;
      return -1;
    }
  return 0;
}

static FILE *raw_stderr;

/* GOption's --help ends the process from inside the parse: the filter is
 * then flushed and closed on the way out. */
static void
close_filtered_stdout (void)
{
  if (raw_stdout != NULL && stdout != raw_stdout)
    {
      /* (--help printed into a full disk is lost output too) */
      if (fclose (stdout) != 0)
        {
          int saved = errno;

          stdout = raw_stdout;
          fprintf (stderr, _("headroom-cli: the output could not be written: %s\n"),
                   g_strerror (saved));
          fflush (stderr);
          _exit (HR_CLI_EXIT_FAILURE);
        }
      stdout = raw_stdout;
    }
  if (raw_stderr != NULL && stderr != raw_stderr)
    {
      fclose (stderr);
      stderr = raw_stderr;
    }
}

/* Messages get the same rule as the output, whatever put the text in
 * them: a value from a file (a shard's name in an index), from the
 * command line (--gpus, --answer, --delimiter) or from the system.  Line
 * buffered, as a terminal shows stderr. */
static void
filter_stderr (void)
{
  static const cookie_io_functions_t functions = {
    .write = filter_write,
    .close = filter_close,
  };
  Filter *filter = g_new0 (Filter, 1);
  FILE *filtered;

  filter->out = stderr;
  filtered = fopencookie (filter, "w", functions);
  if (filtered == NULL)
    {
      g_free (filter);
      return;
    }
  setvbuf (filtered, NULL, _IOLBF, BUFSIZ);
  raw_stderr = stderr;
  stderr = filtered;
}

static void
filter_stdout (gboolean json)
{
  static const cookie_io_functions_t functions = {
    .write = filter_write,
    .close = filter_close,
  };
  Filter *filter = g_new0 (Filter, 1);
  FILE *filtered;

  raw_stdout = stdout;
  filter->out = raw_stdout;
  filter->json = json;
  filtered = fopencookie (filter, "w", functions);
  if (filtered == NULL)
    {
      g_free (filter);
      return;
    }
  stdout = filtered;
  atexit (close_filtered_stdout);
}

FILE *
hr_cli_raw_stdout (void)
{
  fflush (stdout);
  return raw_stdout != NULL ? raw_stdout : stdout;
}

#define EXIT_STATUS_HELP \
  N_("Exit status: 0 on success (whether or not the run fits), 2 on bad input or usage " \
     "(a file, an option or a value given), 1 when the system fails (a file cannot be " \
     "written).")

static void
print_usage (FILE *out)
{
  fprintf (out, "%s\n\n%s\n\n%s\n",
           _("Usage: headroom-cli COMMAND [OPTION…]"),
           _("Plans GPU memory for training, fine-tuning and inference."),
           _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n%s\n\n%s\n",
           _("Run `headroom-cli COMMAND --help` for a command's options."),
           _("Scenario files are described in data/SCENARIO.md; sizes in --json output are bytes."),
           _(EXIT_STATUS_HELP));
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
  if (g_option_context_get_description (context) == NULL)
    g_option_context_set_description (context, _(EXIT_STATUS_HELP));

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      fprintf (stderr, "headroom-cli: %s\n", error->message);
      return FALSE;
    }

  return TRUE;
}

gboolean
hr_cli_parse_number (const char  *option,
                     const char  *text,
                     double       min,
                     double       max,
                     gboolean     min_exclusive,
                     gboolean     integer,
                     double      *out,
                     GError     **error)
{
  g_autofree char *shown = hr_text_printable (text, MIN (strlen (text), (gsize) 40));
  char *end = NULL;
  double value;

  /* Decimal digits only, as in a file: no hex floats, no "nan" or "inf",
   * and the number alone, with nothing after it. */
  for (const char *c = text; *c != '\0'; c++)
    if (!g_ascii_isdigit (*c) && strchr ("+-.eE", *c) == NULL)
      goto bad;
  value = g_ascii_strtod (text, &end);
  if (text[0] == '\0' || end == NULL || *end != '\0' || !isfinite (value))
    goto bad;
  if (integer && value != floor (value))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("--%s %s: must be a whole number"),
                   option, shown);
      return FALSE;
    }
  if (value < min || (min_exclusive && value <= min) || value > max)
    {
      g_autofree char *lo = g_strdup_printf ("%.15g", min);
      g_autofree char *hi = g_strdup_printf ("%.15g", max);

      if (min_exclusive)
        /* Translators: --OPTION VALUE: must be above MIN and at most MAX */
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("--%s %s: must be above %s and at most %s"),
                     option, shown, lo, hi);
      else
        g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("--%s %s: must be between %s and %s"),
                     option, shown, lo, hi);
      return FALSE;
    }

  *out = value;
  return TRUE;

bad:
  g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("--%s %s: not a number"), option, shown);
  return FALSE;
}

int
hr_cli_fail (GError *error)
{
  fprintf (stderr, "%s\n", error->message);
  /* Anything wrong with what the user gave (a file that cannot be read
   * included) is bad input; only our own failures exit 1. */
  return error->domain == HR_ERROR ? HR_CLI_EXIT_USAGE : HR_CLI_EXIT_FAILURE;
}

HrCatalog *
hr_cli_get_catalog (void)
{
  static gboolean warned;
  HrCatalog *catalog = hr_catalog_get_default ();

  if (!warned)
    {
      const char * const *warnings = hr_catalog_get_warnings (catalog);

      for (guint i = 0; warnings[i] != NULL; i++)
        fprintf (stderr, _("headroom-cli: warning: %s\n"), warnings[i]);
      warned = TRUE;
    }
  return catalog;
}

HrScenario *
hr_cli_load_scenario (const char  *path,
                      char       **sets,
                      GError     **error)
{
  g_autoptr(HrJsonDoc) doc = NULL;
  HrCatalog *catalog = hr_cli_get_catalog ();
  HrScenario *scenario;

  if (g_strcmp0 (path, "-") == 0)
    {
      g_autoptr(GString) data = g_string_new (NULL);
      char buf[65536];
      struct stat st;
      gsize n;

      /* A folder read gives nothing and an error, not an empty file. */
      if (fstat (STDIN_FILENO, &st) == 0 && S_ISDIR (st.st_mode))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_IO,
                       _("<stdin>: is a directory, not a file"));
          return NULL;
        }

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
      if (ferror (stdin))
        {
          int saved = errno;

          g_set_error (error, HR_ERROR, HR_ERROR_IO, _("<stdin>: %s"), g_strerror (saved));
          return NULL;
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

  scenario = hr_scenario_new_from_doc (doc, catalog, error);
  /* A figure that no byte count can hold is refused, never wrapped. */
  if (scenario != NULL &&
      !hr_estimate_check_scenario (scenario, hr_json_doc_get_name (doc), error))
    g_clear_pointer (&scenario, hr_scenario_free);
  return scenario;
}

gboolean
hr_cli_resolve_gpus (const char  *list,
                     GPtrArray   *gpus,
                     GError     **error)
{
  HrCatalog *catalog = hr_cli_get_catalog ();
  g_auto(GStrv) ids = g_strsplit (list, ",", -1);

  if (g_str_equal (list, "all"))
    {
      GPtrArray *all = hr_catalog_get_gpus (catalog);

      for (guint i = 0; i < all->len; i++)
        g_ptr_array_add (gpus, g_ptr_array_index (all, i));
      return TRUE;
    }

  if (ids[0] == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("--gpus: the list is empty; give catalog ids separated by commas, or "
                     "\"all\""));
      return FALSE;
    }

  for (guint i = 0; ids[i] != NULL; i++)
    {
      const char *id = g_strstrip (ids[i]);
      const HrGpu *gpu;

      /* "", "a,,b" and "a," name nothing where a GPU should be */
      if (id[0] == '\0')
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("--gpus: an empty name in the list; give catalog ids separated by "
                         "commas, or \"all\""));
          return FALSE;
        }
      gpu = hr_catalog_find_gpu (catalog, id);
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

GOptionEntry
hr_cli_option_set (char ***sets)
{
  GOptionEntry entry = { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, sets,
                         N_("Override a scenario key (repeatable)"), N_("KEY=VALUE") };

  return entry;
}

GOptionEntry
hr_cli_option_measurements (char       ***files,
                            const char   *help)
{
  GOptionEntry entry = { "measurements", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, files, help,
                         N_("FILE") };

  return entry;
}

GOptionEntry
hr_cli_option_json (gboolean   *json,
                    const char *help)
{
  GOptionEntry entry = { "json", 0, 0, G_OPTION_ARG_NONE, json, help, NULL };

  return entry;
}

GOptionEntry
hr_cli_option_gpus (char       **list,
                    const char  *help,
                    gboolean     all)
{
  GOptionEntry entry = { "gpus", 0, 0, G_OPTION_ARG_STRING, list, help,
                         all ? "all|ID,ID…" : N_("ID,ID…") };

  return entry;
}

GOptionEntry
hr_cli_option_calibrate (gboolean *calibrate)
{
  GOptionEntry entry = { "calibrate", 0, 0, G_OPTION_ARG_NONE, calibrate,
                         N_("Calibrate the estimate by the first measured sweep of this setup"),
                         NULL };

  return entry;
}

gboolean
hr_cli_check_calibrate (const char  *command,
                        char       **files,
                        gboolean     calibrate)
{
  if (calibrate && files == NULL)
    {
      fprintf (stderr, _("headroom-cli %s: --calibrate needs --measurements FILE\n"), command);
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
hr_cli_measurements_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) hr_measurement_free);
}

gboolean
hr_cli_load_measurements (char      **files,
                          GPtrArray  *measurements,
                          GError    **error)
{
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    {
      HrMeasureOptions options = { 0 };
      HrMeasurement *m;

      /* A log over time counts by its peak: read thinned, its peaks
       * exact, in bounded memory whatever its length (a sweep's points
       * are all kept). */
      options.max_time_points = HR_MEASURE_SUMMARY_POINTS;
      m = hr_measurement_load_file (files[i], &options, error);

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
  /* snapshots at two or more micro-batches calibrate, as in the window */
  options.sweep_snapshots = TRUE;
  options.use_calibration = calibrate;
  options.lever_sort = lever_sort;
  options.unit = hr_cli_get_unit ();
  return hr_analysis_new (scenario, &options);
}

void
hr_cli_add_knob_json (JsonBuilder  *b,
                      const HrKnob *k)
{
  json_builder_begin_object (b);
  hr_cli_json_string (b, "id", k->id);
  hr_cli_json_string (b, "label", k->label);
  hr_cli_json_string (b, "change", k->change);
  hr_cli_json_int (b, "saved", k->saved);
  hr_cli_json_bool (b, "worth_it", k->worth_it);
  hr_cli_json_int (b, "gained", k->gained);
  hr_cli_json_int (b, "need_after", k->after);
  hr_cli_json_int (b, "total_after", k->device_after);
  hr_cli_json_double (b, "speed", k->speed);
  hr_cli_json_string (b, "cost", k->cost);
  hr_cli_json_string (b, "source", k->source);
  hr_cli_json_string (b, "risk", hr_enum_to_nick (hr_knob_risk_names, k->risk));
  hr_cli_json_string (b, "risk_text", k->risk_text);
  hr_cli_json_string (b, "risk_source", k->risk_source);
  hr_cli_json_bool (b, "more_gpus", k->more_gpus);
  if (k->has_fit)
    {
      hr_cli_json_bool (b, "fits_after", k->fits_after);
      hr_cli_json_int (b, "usable_after", k->usable_after);
      hr_cli_json_int (b, "max_micro_batch_after", k->max_micro_batch_after);
    }
  json_builder_end_object (b);
}

/* The one unit of this run's text (--unit). */
static HrSizeUnit cli_unit = HR_SIZE_GIB;

static gboolean
parse_unit_option_cb (const char  *option,
                      const char  *value,
                      gpointer     data,
                      GError     **error)
{
  int unit;

  if (!hr_enum_from_nick (hr_size_unit_names, value, &unit))
    {
      g_autofree char *shown = hr_text_printable (value, MIN (strlen (value), (gsize) 40));

      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s: \"%s\" is no unit: say gib (2^30 bytes) or gb (10^9 bytes)"), option,
                   shown);
      return FALSE;
    }
  cli_unit = unit;
  return TRUE;
}

GOptionEntry
hr_cli_option_unit (void)
{
  GOptionEntry entry = { "unit", 0, 0, G_OPTION_ARG_CALLBACK, parse_unit_option_cb,
                         N_("Sizes in GiB (2^30 bytes, the default) or GB (10^9 bytes)"),
                         "gib|gb" };

  return entry;
}

HrSizeUnit
hr_cli_get_unit (void)
{
  return cli_unit;
}

char *
hr_cli_size (double bytes)
{
  /* On screen, the locale's decimal separator; the unit is always said. */
  return hr_size_format_full (bytes, cli_unit, HR_SIZE_FORMAT_TABLE);
}

char *
hr_cli_size_number (double bytes)
{
  return hr_size_format_full (bytes, cli_unit, HR_SIZE_FORMAT_TABLE | HR_SIZE_FORMAT_NO_UNIT);
}

char *
hr_cli_column (const char *title)
{
  /* Translators: a column's title, then the unit of its figures */
  return g_strdup_printf (_("%s %s"), title, hr_size_unit_symbol (cli_unit));
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
  hr_cli_json_int (builder, "total", peak->total);
  hr_cli_json_int (builder, "low", peak->low);
  hr_cli_json_int (builder, "high", peak->high);
  hr_cli_json_int (builder, "allocated_peak", peak->allocated);
  hr_cli_json_int (builder, "reserved_peak", peak->reserved);
  hr_cli_json_int (builder, "device_used", peak->device_used);
}

int
main (int    argc,
      char **argv)
{
  const char *localedir = g_getenv ("HEADROOM_LOCALEDIR");

  /* Tables and messages follow the desktop's language and number format;
   * machine-readable output (JSON, CSV), including the text inside it,
   * never does: under LC_MESSAGES=C gettext also ignores $LANGUAGE. */
  gboolean json = FALSE;
  int status;

  /* A descriptor the caller closed would be taken by the next file
   * opened, and the output would go into it: standard output becomes a
   * descriptor no write succeeds on (so that losing the output is seen and
   * exits 1), standard input and error /dev/null. */
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
    if (fcntl (fd, F_GETFD) == -1 && errno == EBADF)
      {
        int null = open ("/dev/null", fd == STDERR_FILENO ? O_WRONLY : O_RDONLY);

        if (null >= 0 && null != fd)
          {
            dup2 (null, fd);
            close (null);
          }
      }

  setlocale (LC_ALL, "");
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--json") || g_str_equal (argv[i], "--csv"))
        {
          setlocale (LC_NUMERIC, "C");
          setlocale (LC_MESSAGES, "C");
          json |= g_str_equal (argv[i], "--json");
        }
    }
  filter_stderr ();
  filter_stdout (json);

  /* HEADROOM_LOCALEDIR runs the build tree's translations (the tests set
   * it to <build>/po); an installed headroom-cli reads its own. */
  bindtextdomain (GETTEXT_PACKAGE,
                  localedir != NULL && localedir[0] != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      print_usage (stderr);
      status = HR_CLI_EXIT_USAGE;
    }
  else if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
           g_str_equal (argv[1], "help"))
    {
      print_usage (stdout);
      status = HR_CLI_EXIT_OK;
    }
  else if (g_str_equal (argv[1], "--version"))
    {
      printf ("headroom-cli %s\n", PACKAGE_VERSION);
      status = HR_CLI_EXIT_OK;
    }
  else
    {
      guint i;

      for (i = 0; i < G_N_ELEMENTS (commands); i++)
        if (g_str_equal (argv[1], commands[i].name))
          break;
      if (i < G_N_ELEMENTS (commands))
        status = commands[i].run (argc - 1, argv + 1);
      else
        {
          fprintf (stderr, _("headroom-cli: unknown command \"%s\"\n\n"), argv[1]);
          print_usage (stderr);
          status = HR_CLI_EXIT_USAGE;
        }
    }

  /* A full disk or a closed pipe must not pass for success. */
  if (fclose (stdout) != 0 && status == HR_CLI_EXIT_OK)
    {
      fprintf (stderr, _("headroom-cli: the output could not be written: %s\n"),
               g_strerror (errno));
      status = HR_CLI_EXIT_FAILURE;
    }
  stdout = raw_stdout;
  if (raw_stderr != NULL)
    {
      fclose (stderr);
      stderr = raw_stderr;
    }
  return status;
}
