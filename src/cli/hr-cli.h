/* hr-cli.h: shared pieces of headroom-cli's commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdio.h>

#include "hr-cli-json.h"
#include "hr-core.h"

G_BEGIN_DECLS

/* Exit statuses, the one rule of every command (SCENARIO.md, --help): 0 on
 * success whether or not it fits; 2 on bad input or usage (a file, an
 * option, a value the user gave: HR_ERROR); 1 when the system fails us (a
 * file cannot be written, a lock cannot be taken: any other domain). */
#define HR_CLI_EXIT_OK      0
#define HR_CLI_EXIT_FAILURE 1
#define HR_CLI_EXIT_USAGE   2

typedef int (*HrCliCommand) (int argc, char **argv);

int   hr_cli_estimate  (int argc, char **argv);
int   hr_cli_sweep     (int argc, char **argv);
int   hr_cli_fits      (int argc, char **argv);
int   hr_cli_knobs     (int argc, char **argv);
int   hr_cli_models    (int argc, char **argv);
int   hr_cli_gpus      (int argc, char **argv);
int   hr_cli_export    (int argc, char **argv);
int   hr_cli_report    (int argc, char **argv);
int   hr_cli_advise    (int argc, char **argv);

/* The advise options, shared by `advise` and `export --chart tree|advice`;
 * negative numbers and NULL: not given. */
typedef struct {
  double    hours_per_day;
  double    months;
  double    budget;
  char     *prefer;
  double    runs;
  gboolean  datacenter;
  double    usd_per_kwh;
  gboolean  rocm;
  char    **answers;   /* "NODE=ANSWER", chosen over the facts */
  double    steps;     /* optimizer steps in a run; 0: not given */
} HrAdviceFlags;

#define HR_ADVICE_FLAGS_INIT { -1, -1, -1, NULL, 0, FALSE, -1, FALSE, NULL, 0 }

/* The option group for @flags (which must outlive it). */
GOptionGroup *hr_cli_advise_option_group (HrAdviceFlags *flags);
gboolean    hr_cli_advise_facts  (HrAdviceFlags    *flags,
                                  const HrScenario *scenario,
                                  HrAdviceInputs   *facts,
                                  GError          **error);
/* Walks the built-in tree from the flags and the analysed scenario, and
 * advises. */
gboolean    hr_cli_advise_run    (HrAnalysis       *analysis,
                                  HrAdviceFlags    *flags,
                                  HrAdvisorWalk   **walk,
                                  HrAdvice        **advice,
                                  GError          **error);
int   hr_cli_measure   (int argc, char **argv);
int   hr_cli_import_model (int argc, char **argv);

/* A number an option takes, checked as a file's field is: a finite
 * number in [@min, @max] (above @min when @min_exclusive), an integer when
 * @integer; the message names --@option and what it needs. */
gboolean    hr_cli_parse_number  (const char     *option,
                                  const char     *text,
                                  double          min,
                                  double          max,
                                  gboolean        min_exclusive,
                                  gboolean        integer,
                                  double         *out,
                                  GError        **error);

/* Parses the command's options; prints the message and returns FALSE on a
 * usage error. */
gboolean    hr_cli_parse_options (GOptionContext *context,
                                  int            *argc,
                                  char         ***argv);
int         hr_cli_fail          (GError         *error);

/* The options every command that reads a scenario takes, each defined
 * once here: --set KEY=VALUE (repeatable), --measurements FILE
 * (repeatable; @help says what the command does with them) and
 * --calibrate.  For a command's GOptionEntry array. */
GOptionEntry hr_cli_option_set          (char         ***sets);
GOptionEntry hr_cli_option_measurements (char         ***files,
                                         const char     *help);
GOptionEntry hr_cli_option_calibrate    (gboolean       *calibrate);
/* --json (@help: what it prints) and --gpus ID,ID… (@help: what the
 * cards are for; @all: "all" names the whole catalog), for every command
 * that takes them; hr_cli_resolve_gpus() reads the list. */
GOptionEntry hr_cli_option_json         (gboolean       *json,
                                         const char     *help);
GOptionEntry hr_cli_option_gpus         (char          **list,
                                         const char     *help,
                                         gboolean        all);
/* "--calibrate needs --measurements FILE" for headroom-cli @command when
 * @calibrate is given without @files: FALSE, the message printed. */
gboolean     hr_cli_check_calibrate     (const char     *command,
                                         char          **files,
                                         gboolean        calibrate);

/* The scenario at PATH (or "-" for standard input), with --set applied. */
HrScenario *hr_cli_load_scenario (const char     *path,
                                  char          **sets,
                                  GError        **error);

/* Appends the GPUs a --gpus option names ("all", or ID,ID…) to @gpus; an
 * unknown id is an error with the closest one as a hint. */
gboolean    hr_cli_resolve_gpus  (const char     *list,
                                  GPtrArray      *gpus,
                                  GError        **error);

/* An array for hr_cli_load_measurements(), which owns what it holds. */
GPtrArray  *hr_cli_measurements_new  (void);
/* Reads each of @files (NULL-terminated, may be NULL) into @measurements
 * (HrMeasurement, owned by the array). */
gboolean    hr_cli_load_measurements (char          **files,
                                      GPtrArray      *measurements,
                                      GError        **error);
/* The analysis every command prints: @scenario on @gpus (const HrGpu *;
 * NULL or empty: its own card), with @measurements (which must outlive
 * it) and the calibration switch. */
HrAnalysis *hr_cli_analysis_new  (const HrScenario *scenario,
                                  GPtrArray        *gpus,
                                  GPtrArray        *measurements,
                                  gboolean          calibrate,
                                  HrKnobSort        lever_sort);
/* A lever as JSON: what it changes, saves and costs. */
void        hr_cli_add_knob_json (JsonBuilder    *builder,
                                  const HrKnob   *knob);

/* The default catalog, its warnings (a user catalog file that could not
 * be read) printed to stderr: what every command that reads it uses. */
HrCatalog  *hr_cli_get_catalog   (void);

/* stdout as it was before headroom-cli filtered what it prints as text
 * (see main.c), for bytes that are not text: a chart written to "-". */
FILE       *hr_cli_raw_stdout    (void);

/* --unit gib|gb: the unit every size headroom-cli prints as text is in
 * (GiB unless given); --json keeps bytes. */
GOptionEntry hr_cli_option_unit  (void);
HrSizeUnit  hr_cli_get_unit      (void);
/* Bytes in --unit's unit with two decimals and the unit ("24.38 GiB"), in
 * the locale's number format: hr_size_format_full(). */
char       *hr_cli_size          (double          bytes);
/* The same without the unit, for a column headed with it
 * (hr_cli_column()). */
char       *hr_cli_size_number   (double          bytes);
/* "Total GiB": a column's title with --unit's unit. */
char       *hr_cli_column        (const char     *title);
void        hr_cli_print_json    (JsonNode       *node);
void        hr_cli_add_peak_json (JsonBuilder    *builder,
                                  const HrPeak   *peak);

G_END_DECLS
