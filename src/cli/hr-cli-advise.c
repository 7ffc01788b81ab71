/* hr-cli-advise.c: the advise command
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "hr-cli.h"

#define GB 1e9

/* The advise options' numbers, each checked as it is parsed: a negative,
 * NaN or out-of-range value is an error naming the option, never taken
 * for "not given". */
static gboolean
parse_number_option_cb (const char  *option_name,
                        const char  *value,
                        gpointer     user_data,
                        GError     **error)
{
  HrAdviceFlags *flags = user_data;
  const char *name = option_name + (g_str_has_prefix (option_name, "--") ? 2 : 0);

  if (g_str_equal (name, "hours-per-day"))
    return hr_cli_parse_number (name, value, 0, 24, FALSE, FALSE, &flags->hours_per_day, error);
  if (g_str_equal (name, "months"))
    return hr_cli_parse_number (name, value, 0, 240, TRUE, FALSE, &flags->months, error);
  if (g_str_equal (name, "budget"))
    return hr_cli_parse_number (name, value, 0, 1e9, FALSE, FALSE, &flags->budget, error);
  if (g_str_equal (name, "runs"))
    return hr_cli_parse_number (name, value, 1, 1024, FALSE, TRUE, &flags->runs, error);
  if (g_str_equal (name, "steps"))
    return hr_cli_parse_number (name, value, 1, 1e9, FALSE, TRUE, &flags->steps, error);
  if (g_str_equal (name, "usd-per-kwh"))
    return hr_cli_parse_number (name, value, 0, 10, FALSE, FALSE, &flags->usd_per_kwh, error);
  g_assert_not_reached ();
}

GOptionGroup *
hr_cli_advise_option_group (HrAdviceFlags *flags)
{
  GOptionEntry entries[] = {
    { "hours-per-day", 0, 0, G_OPTION_ARG_CALLBACK, parse_number_option_cb,
     N_("Hours a day the GPUs run (0-24)"), N_("H") },
    { "months", 0, 0, G_OPTION_ARG_CALLBACK, parse_number_option_cb,
     N_("Months of use to plan for (up to 240)"), N_("M") },
    { "budget", 0, 0, G_OPTION_ARG_CALLBACK, parse_number_option_cb,
     N_("Most to spend on cards (or on rent over the months)"), "USD" },
    { "prefer", 0, 0, G_OPTION_ARG_STRING, &flags->prefer, N_("Buy, rent, or whichever costs less"),
     "buy|rent|cheaper" },
    { "runs", 0, 0, G_OPTION_ARG_CALLBACK, parse_number_option_cb,
     N_("Independent runs (seeds, sweeps) at once (1-1024)"), N_("N") },
    { "datacenter", 0, 0, G_OPTION_ARG_NONE, &flags->datacenter,
     N_("Needs data-centre features (ECC, NVLink)"), NULL },
    { "usd-per-kwh", 0, 0, G_OPTION_ARG_CALLBACK, parse_number_option_cb,
     N_("Electricity price (default 0.17, the U.S. average)"), "USD" },
    { "steps", 0, 0, G_OPTION_ARG_CALLBACK, parse_number_option_cb,
     N_("Optimizer steps in a run, for its time and cost (default 10000)"), N_("N") },
    { "rocm", 0, 0, G_OPTION_ARG_NONE, &flags->rocm,
     N_("The code runs on AMD cards (ROCm) too"), NULL },
    { "answer", 0, 0, G_OPTION_ARG_STRING_ARRAY, &flags->answers,
     N_("Answer a question of the tree yourself (repeatable)"), N_("NODE=ANSWER") },
    { NULL }
  };
  GOptionGroup *group = g_option_group_new ("advise", N_("Advice options:"),
                                            N_("Show the advice options"), flags, NULL);

  /* A group's texts are translated from its own domain, not the context's. */
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  g_option_group_add_entries (group, entries);
  return group;
}

gboolean
hr_cli_advise_facts (HrAdviceFlags   *flags,
                     const HrScenario *scenario,
                     HrAdviceInputs  *facts,
                     GError         **error)
{
  int value;

  *facts = (HrAdviceInputs) { 0 };
  facts->known = HR_FACT_TASK;
  facts->task = scenario->task;

  /* The numbers were checked as the options were parsed; negative means
   * not given. */
  if (flags->hours_per_day >= 0)
    {
      facts->known |= HR_FACT_HOURS_PER_DAY;
      facts->hours_per_day = flags->hours_per_day;
    }
  if (flags->months >= 0)
    {
      facts->known |= HR_FACT_MONTHS;
      facts->months = flags->months;
    }
  if (flags->budget >= 0)
    {
      facts->known |= HR_FACT_BUDGET;
      facts->budget_usd = flags->budget;
    }
  if (flags->prefer != NULL)
    {
      if (!hr_enum_from_nick (hr_advice_prefer_names, flags->prefer, &value))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("--prefer %s: expected buy, rent or cheaper"), flags->prefer);
          return FALSE;
        }
      facts->known |= HR_FACT_PREFER;
      facts->prefer = value;
    }
  if (flags->runs > 0)
    {
      facts->known |= HR_FACT_RUNS;
      facts->runs = (guint) flags->runs;
    }
  if (flags->datacenter)
    {
      facts->known |= HR_FACT_DATACENTER;
      facts->datacenter = TRUE;
    }
  if (flags->rocm)
    {
      facts->known |= HR_FACT_ROCM;
      facts->rocm = TRUE;
    }
  if (flags->steps > 0)
    {
      facts->known |= HR_FACT_STEPS;
      facts->steps = (guint) flags->steps;
    }
  if (flags->usd_per_kwh >= 0)
    {
      facts->known |= HR_FACT_USD_PER_KWH;
      facts->usd_per_kwh = flags->usd_per_kwh;
    }

  return TRUE;
}

static void
add_money (JsonBuilder *builder,
           const char  *name,
           double       usd)
{
  json_builder_set_member_name (builder, name);
  if (usd >= 0 && isfinite (usd))
    json_builder_add_double_value (builder, round (usd * 100) / 100);
  else
    json_builder_add_null_value (builder);
}

static JsonNode *
advice_to_json (HrAdvisorWalk *walk,
                HrAdvice      *advice)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const HrAdviceInputs *in = &advice->inputs;

  json_builder_begin_object (b);
  hr_cli_json_int (b, "headroom_advice", 1);

  hr_cli_json_begin_array (b, "path");
  for (guint i = 0; i < hr_advisor_walk_get_n_steps (walk); i++)
    {
      const HrAdvisorNode *node = hr_advisor_walk_get_step_node (walk, i);
      const HrAdvisorAnswer *answer = hr_advisor_walk_get_step_answer (walk, i);

      json_builder_begin_object (b);
      hr_cli_json_string (b, "node", node->id);
      hr_cli_json_string (b, "question", node->question);
      hr_cli_json_string (b, "answer_id", answer->id);
      hr_cli_json_string (b, "answer", answer->label);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  hr_cli_json_begin_object (b, "inputs");
  hr_cli_json_string (b, "task", hr_enum_to_nick (hr_task_names, in->task));
  hr_cli_json_double (b, "hours_per_day", in->hours_per_day);
  hr_cli_json_double (b, "months", in->months);
  add_money (b, "budget_usd", (in->known & HR_FACT_BUDGET) ? in->budget_usd : -1);
  hr_cli_json_string (b, "prefer", hr_enum_to_nick (hr_advice_prefer_names, in->prefer));
  hr_cli_json_int (b, "runs", in->runs);
  hr_cli_json_bool (b, "datacenter", in->datacenter);
  hr_cli_json_bool (b, "rocm", in->rocm);
  hr_cli_json_string (b, "rank", hr_enum_to_nick (hr_advice_rank_names, in->rank));
  hr_cli_json_double (b, "usd_per_kwh", in->usd_per_kwh);
  hr_cli_json_int (b, "steps", advice->steps);
  json_builder_end_object (b);

  hr_cli_json_string (b, "order", advice->order);
  hr_cli_json_bool (b, "memory_first", advice->memory_first);
  hr_cli_json_double (b, "step_flops", advice->step_flops);
  hr_cli_json_bool (b, "step_flops_lower_bound", advice->flops_lower_bound);
  hr_cli_json_double (b, "utilisation", advice->utilisation);
  hr_cli_json_string (b, "utilisation_source", advice->utilisation_source);

  hr_cli_json_string (b, "throughput", advice->throughput);
  hr_cli_json_bool (b, "none_within_budget", advice->none_within_budget);
  hr_cli_json_begin_array (b, "recommendations");
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      HrRecommendation *r = g_ptr_array_index (advice->recommendations, i);

      json_builder_begin_object (b);
      hr_cli_json_string (b, "gpu", r->gpu_id);
      hr_cli_json_string (b, "name", r->gpu_name);
      hr_cli_json_int (b, "memory", r->memory);
      hr_cli_json_int (b, "count", r->count);
      hr_cli_json_int (b, "gpus_per_run", r->gpus_per_run);
      hr_cli_json_int (b, "runs", r->runs);
      hr_cli_json_string (b, "sharding", hr_enum_to_nick (hr_sharding_names, r->sharding));
      hr_cli_json_bool (b, "fits", r->fits);
      hr_cli_json_bool (b, "fits_high", r->fits_high);
      hr_cli_json_int (b, "need", r->need);
      hr_cli_json_int (b, "need_high", r->need_high);
      hr_cli_json_int (b, "usable", r->usable);
      hr_cli_json_int (b, "max_micro_batch", r->max_micro_batch);
      json_builder_set_member_name (b, "step_seconds");
      if (isfinite (r->step_seconds))
        json_builder_add_double_value (b, r->step_seconds);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "run_hours");
      if (isfinite (r->run_hours))
        json_builder_add_double_value (b, r->run_hours);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "lever");
      if (r->lever != NULL)
        {
          json_builder_begin_object (b);
          hr_cli_json_string (b, "label", r->lever);
          hr_cli_json_string (b, "change", r->lever_change);
          json_builder_end_object (b);
        }
      else
        json_builder_add_null_value (b);
      hr_cli_json_bool (b, "used", r->used);
      add_money (b, "price_usd", r->price_usd);
      add_money (b, "price_per_gb", r->price_per_gb);
      add_money (b, "cloud_usd_per_hour", r->cloud_usd_per_hour);
      json_builder_set_member_name (b, "price_as_of");
      if (r->price_as_of != NULL)
        json_builder_add_string_value (b, r->price_as_of);
      else
        json_builder_add_null_value (b);
      add_money (b, "power_usd_per_month", r->power_usd_per_month);
      json_builder_set_member_name (b, "break_even_months");
      if (isfinite (r->break_even_months))
        json_builder_add_double_value (b, round (r->break_even_months * 10) / 10);
      else
        json_builder_add_null_value (b);
      add_money (b, "buy_cost", r->buy_cost);
      add_money (b, "rent_cost", r->rent_cost);
      add_money (b, "cost", r->cost);
      add_money (b, "cost_per_run", isfinite (r->cost_per_run) ? r->cost_per_run : -1);
      add_money (b, "up_front", r->up_front);
      hr_cli_json_double (b, "tflops", round (r->tflops * 10) / 10);
      hr_cli_json_string (b, "choice", hr_enum_to_nick (hr_advice_choice_names, r->choice));
      hr_cli_json_bool (b, "within_budget", r->within_budget);
      hr_cli_json_string (b, "summary", r->summary);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  hr_cli_json_begin_object (b, "host");
  hr_cli_json_int (b, "cpu_cores", advice->host.cpu_cores);
  hr_cli_json_int (b, "ram", advice->host.ram);
  hr_cli_json_int (b, "disk", advice->host.disk);
  hr_cli_json_int (b, "psu_watts", advice->host.psu_watts);
  hr_cli_json_begin_array (b, "reasons");
  for (guint i = 0; i < advice->host.reasons->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (advice->host.reasons, i));
  json_builder_end_array (b);
  json_builder_end_object (b);

  hr_cli_json_begin_array (b, "notes");
  for (guint i = 0; i < advice->notes->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (advice->notes, i));
  json_builder_end_array (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static char *
run_time (double hours)
{
  if (!isfinite (hours))
    return g_strdup ("–");
  if (hours < 1)
    return g_strdup_printf (_("%.0f min"), MAX (1, round (hours * 60)));
  if (hours < 48)
    return g_strdup_printf (_("%.1f h"), hours);
  return g_strdup_printf (_("%.1f d"), hours / 24);
}

static void
print_table (HrAdvisorWalk *walk,
             HrAdvice      *advice)
{
  for (guint i = 0; i < hr_advisor_walk_get_n_steps (walk); i++)
    printf ("%-44s %s\n", hr_advisor_walk_get_step_node (walk, i)->question,
            hr_advisor_walk_get_step_answer (walk, i)->label);
  printf ("\n%s\n", advice->order);
  /* Translators: column headings of the advice table; keep them short. */
  printf ("\n%-3s %-20s %5s %10s %8s %6s %8s %11s %6s %5s %9s %8s %9s\n", "", _("GPU"),
          _("Cards"), _("Memory"), _("Price"), _("$/GB"), _("Cloud/h"), _("Break-even"),
          _("Choice"), _("Batch"), _("Run"), _("$/run"), _("For use"));
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      HrRecommendation *r = g_ptr_array_index (advice->recommendations, i);
      g_autofree char *mem = hr_cli_size (r->memory);
      g_autofree char *price = r->price_usd >= 0 ? g_strdup_printf ("$%.0f", r->price_usd)
                                                 : g_strdup ("–");
      g_autofree char *per_gb = r->price_per_gb >= 0 ? g_strdup_printf ("$%.0f", r->price_per_gb)
                                                     : g_strdup ("–");
      g_autofree char *cloud = r->cloud_usd_per_hour >= 0
                                 ? g_strdup_printf ("$%.2f", r->cloud_usd_per_hour)
                                 : g_strdup ("–");
      g_autofree char *even = isfinite (r->break_even_months)
                                ? g_strdup_printf (_("%.1f mo"), r->break_even_months)
                                : isnan (r->break_even_months) ? g_strdup ("–")
                                                               : g_strdup (_("never"));
      g_autofree char *rank = g_strdup_printf ("%u.", i + 1);
      g_autofree char *run = run_time (r->run_hours);
      g_autofree char *per_run = isfinite (r->cost_per_run)
                                   ? g_strdup_printf (r->cost_per_run < 10 ? "$%.2f" : "$%.0f",
                                                      r->cost_per_run)
                                   : g_strdup ("–");
      g_autofree char *use = r->cost >= 0 ? g_strdup_printf ("$%.0f", r->cost) : g_strdup ("–");

      printf ("%-3s %-20s %5u %10s %8s %6s %8s %11s %6s %5u %9s %8s %9s%s%s\n", rank, r->gpu_id,
              r->count, mem, price, per_gb, cloud, even,
              r->choice == HR_ADVICE_CHOICE_BUY ? C_("advice choice", "buy")
                                                : C_("advice choice", "rent"),
              r->max_micro_batch, run, per_run, use,
              !r->fits ? _("  (a smaller micro-batch)")
                       : r->within_budget ? "" : _("  (over budget)"),
              r->fits && !r->fits_high ? _("  (not at the range's high end)") : "");
    }

  printf (_("\nRun: %u steps of %.3g FLOPs at %s%s.\n"), advice->steps, advice->step_flops,
          advice->utilisation_source,
          advice->flops_lower_bound ? _("; a lower bound (convolutions and imagination are "
                                        "counted by their parameters)") : "");
  if (advice->recommendations->len > 0)
    printf ("\n%s.\n", ((HrRecommendation *) g_ptr_array_index (advice->recommendations,
                                                                0))->summary);
  printf ("\n");
  printf (_("Host: %u CPU cores, %.0f GB RAM, %.0f TB NVMe disk"), advice->host.cpu_cores,
          advice->host.ram / GB, advice->host.disk / 1e12);
  if (advice->host.psu_watts > 0)
    printf (_(", %u W power supply"), advice->host.psu_watts);
  printf ("\n");
  for (guint i = 0; i < advice->host.reasons->len; i++)
    printf ("  %s\n", (char *) g_ptr_array_index (advice->host.reasons, i));
  for (guint i = 0; i < advice->notes->len; i++)
    printf (_("Note: %s\n"), (char *) g_ptr_array_index (advice->notes, i));
}

gboolean
hr_cli_advise_run (HrAnalysis       *analysis,
                   HrAdviceFlags    *flags,
                   HrAdvisorWalk   **walk_out,
                   HrAdvice        **advice_out,
                   GError          **error)
{
  const HrScenario *scenario = hr_analysis_get_scenario (analysis);
  HrAdvisor *advisor = hr_advisor_get_default ();
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (advisor);
  HrAdviceInputs facts, inputs;

  if (!hr_cli_advise_facts (flags, scenario, &facts, error))
    return FALSE;

  /* --answer NODE=ANSWER decides its question; the facts the others. */
  for (guint i = 0; flags->answers != NULL && flags->answers[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (flags->answers[i], "=", 2);

      if (g_strv_length (parts) != 2 || hr_advisor_get_node (advisor, parts[0]) == NULL ||
          hr_advisor_node_is_leaf (hr_advisor_get_node (advisor, parts[0])))
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("--answer %s: expected QUESTION=ANSWER with a question of the tree "
                         "(workload, usage, prefer, budget, runs, features, stack)"),
                       flags->answers[i]);
          return FALSE;
        }
    }
  while (!hr_advisor_walk_is_done (walk))
    {
      const HrAdvisorNode *node = hr_advisor_walk_get_current (walk);
      const char *chosen = NULL;

      for (guint i = 0; flags->answers != NULL && flags->answers[i] != NULL; i++)
        {
          gsize len = strlen (node->id);

          if (g_str_has_prefix (flags->answers[i], node->id) && flags->answers[i][len] == '=')
            chosen = flags->answers[i] + len + 1;
        }

      if (chosen == NULL)
        hr_advisor_walk_auto_step (walk, &facts);
      else if (!hr_advisor_walk_answer (walk, chosen, error))
        {
          g_prefix_error (error, "--answer %s=%s: ", node->id, chosen);
          return FALSE;
        }
    }

  /* What the user typed wins over the answer's typical figure; the task
   * is the scenario's unless the walk said otherwise. */
  facts.known &= ~HR_FACT_TASK;
  hr_advisor_walk_get_inputs (walk, &facts, &inputs);
  *advice_out = hr_analysis_advise (analysis, hr_catalog_get_default (), &inputs,
                                    hr_advisor_walk_get_current (walk)->max_recommendations);
  *walk_out = g_steal_pointer (&walk);
  return TRUE;
}

int
hr_cli_advise (int    argc,
               char **argv)
{
  HrAdviceFlags flags = HR_ADVICE_FLAGS_INIT;
  gboolean json = FALSE, calibrate = FALSE;
  g_auto(GStrv) sets = NULL;
  g_auto(GStrv) measurement_files = NULL;
  GOptionEntry entries[] = {
    hr_cli_option_json (&json, N_("Machine-readable output")),
    hr_cli_option_unit (),
    hr_cli_option_measurements (&measurement_files,
                                N_("A measurement of this scenario (repeatable)")),
    hr_cli_option_calibrate (&calibrate),
    hr_cli_option_set (&sets),
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("SCENARIO"));
  g_autoptr(HrScenario) scenario = NULL;
  g_autoptr(HrAnalysis) analysis = NULL;
  g_autoptr(GPtrArray) measurements = hr_cli_measurements_new ();
  g_autoptr(HrAdvisorWalk) walk = NULL;
  g_autoptr(HrAdvice) advice = NULL;
  g_autoptr(GError) error = NULL;

  g_option_context_set_summary (context, N_("Walk the buy-or-rent decision tree and "
                                            "recommend GPUs that fit the scenario, ranked "
                                            "by cost."));
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, hr_cli_advise_option_group (&flags));
  if (!hr_cli_parse_options (context, &argc, &argv))
    {
      g_free (flags.prefer);
      g_strfreev (flags.answers);
      return HR_CLI_EXIT_USAGE;
    }

  if (argc != 2)
    {
      fprintf (stderr, "%s\n", _("headroom-cli advise: expected SCENARIO [--hours-per-day H] "
                                 "[--months M] [--budget USD] [--prefer buy|rent] [--json]"));
      return HR_CLI_EXIT_USAGE;
    }
  if (!hr_cli_check_calibrate ("advise", measurement_files, calibrate))
    {
      g_free (flags.prefer);
      g_strfreev (flags.answers);
      return HR_CLI_EXIT_USAGE;
    }
  scenario = hr_cli_load_scenario (argv[1], sets, &error);
  if (scenario == NULL || !hr_cli_load_measurements (measurement_files, measurements, &error))
    {
      g_free (flags.prefer);
      g_strfreev (flags.answers);
      return hr_cli_fail (error);
    }
  analysis = hr_cli_analysis_new (scenario, NULL, measurements, calibrate, HR_KNOB_SORT_COST);
  if (!hr_cli_advise_run (analysis, &flags, &walk, &advice, &error))
    {
      g_free (flags.prefer);
      g_strfreev (flags.answers);
      fprintf (stderr, _("headroom-cli advise: %s\n"), error->message);
      return HR_CLI_EXIT_USAGE;
    }
  g_free (flags.prefer);
  g_strfreev (flags.answers);

  if (json)
    {
      g_autoptr(JsonNode) node = advice_to_json (walk, advice);

      hr_cli_print_json (node);
    }
  else
    print_table (walk, advice);

  return HR_CLI_EXIT_OK;
}
