/* hr-advisor-dialog.c: which GPU to buy or rent, one question at a time
 *
 * The questions come from the advisor's tree (data/advisor.json), one at a
 * time: each answer is a row with a radio button, and where an answer
 * stands for a number (hours a day, months, budget, runs) a spin button
 * takes the user's own figure, which then picks the answer it falls under,
 * as `headroom-cli advise --hours-per-day` does.  Beside the questions the
 * tree is drawn with hr-chart-tree: the path so far, the question asked
 * and the branches not taken, greyed; a click on a question asked goes
 * back to it.  The last step lists the costed recommendations and the host
 * advice, and exports the tree and the table.
 *
 * Keyboard: Enter on an answer takes it, Alt+Left goes back, Alt+Right or
 * Enter in a number goes on, Escape closes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "hr-advisor-dialog.h"
#include "hr-file-chooser.h"
#include "hr-format.h"

/* ------------------------------------------------------------------ */
/* The tree drawing                                                     */

#define HR_TYPE_ADVISOR_TREE (hr_advisor_tree_get_type ())
G_DECLARE_FINAL_TYPE (HrAdvisorTree, hr_advisor_tree, HR, ADVISOR_TREE, GtkWidget)

struct _HrAdvisorTree
{
  GtkWidget   parent_instance;

  HrTreeNode *root;
  char       *summary;
};

G_DEFINE_FINAL_TYPE (HrAdvisorTree, hr_advisor_tree, GTK_TYPE_WIDGET)

static HrChartStyle *
hr_advisor_tree_make_style (HrAdvisorTree *self)
{
  return hr_chart_style_new_for_widget (GTK_WIDGET (self));
}

/* The layout at the widget's size: what is drawn, and what a click hits. */
static HrTreeChartLayout *
hr_advisor_tree_layout (HrAdvisorTree *self)
{
  double width = gtk_widget_get_width (GTK_WIDGET (self));
  double height = gtk_widget_get_height (GTK_WIDGET (self));
  g_autoptr(HrChartStyle) style = NULL;
  PangoContext *context;
  HrTreeChartLayout *layout;

  if (self->root == NULL || width < 1 || height < 1)
    return NULL;
  style = hr_advisor_tree_make_style (self);
  context = hr_chart_pango_context_new ();
  layout = hr_tree_chart_layout (self->root, NULL, style, context, width, height);
  g_object_unref (context);
  return layout;
}

static void
hr_advisor_tree_snapshot (GtkWidget   *widget,
                          GtkSnapshot *snapshot)
{
  HrAdvisorTree *self = HR_ADVISOR_TREE (widget);
  g_autoptr(HrTreeChartLayout) layout = hr_advisor_tree_layout (self);
  g_autoptr(HrChartStyle) style = NULL;
  cairo_t *cr;

  if (layout == NULL)
    return;
  style = hr_advisor_tree_make_style (self);
  cr = gtk_snapshot_append_cairo (snapshot,
                                  &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                       gtk_widget_get_height (widget)));
  hr_tree_chart_render (layout, style, cr);
  cairo_destroy (cr);
}

/* Takes @root. */
static void
hr_advisor_tree_set_root (HrAdvisorTree *self,
                          HrTreeNode    *root)
{
  g_clear_pointer (&self->root, hr_tree_node_free);
  g_clear_pointer (&self->summary, g_free);
  self->root = root;
  self->summary = hr_tree_chart_summary (root);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->summary,
                                  -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
hr_advisor_tree_css_changed (GtkWidget         *widget,
                             GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (hr_advisor_tree_parent_class)->css_changed (widget, change);
  gtk_widget_queue_draw (widget);
}

static void
hr_advisor_tree_finalize (GObject *object)
{
  HrAdvisorTree *self = HR_ADVISOR_TREE (object);

  g_clear_pointer (&self->root, hr_tree_node_free);
  g_clear_pointer (&self->summary, g_free);
  G_OBJECT_CLASS (hr_advisor_tree_parent_class)->finalize (object);
}

static void
hr_advisor_tree_class_init (HrAdvisorTreeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = hr_advisor_tree_finalize;
  widget_class->snapshot = hr_advisor_tree_snapshot;
  widget_class->css_changed = hr_advisor_tree_css_changed;
  gtk_widget_class_set_css_name (widget_class, "advisortree");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
hr_advisor_tree_init (HrAdvisorTree *self)
{
  gtk_widget_set_size_request (GTK_WIDGET (self), 360, 360);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Decision tree"),
                                  -1);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
}

/* ------------------------------------------------------------------ */
/* The dialog                                                           */

/* The numbers a question may stand for, and the spin buttons that take
 * them; the limits are those `headroom-cli advise` checks. */
static const struct {
  HrFact      fact;
  const char *title;
  const char *subtitle;
  double      lower;
  double      upper;
  double      step;
  guint       digits;
  double      initial;
} numbers[] = {
  { HR_FACT_HOURS_PER_DAY, N_("_Hours a day"), N_("How long the GPUs run on a working day"),
    0.5, 24, 1, 1, 4 },
  { HR_FACT_MONTHS, N_("_Months"), N_("How long to plan for"), 1, 240, 1, 0, 12 },
  { HR_FACT_BUDGET, N_("_Budget (US dollars)"),
    N_("Most to spend on cards, or on rent over the months; 0: no limit"), 0, 10000000, 100, 0,
    0 },
  { HR_FACT_RUNS, N_("_Runs at once"), N_("Independent seeds or sweeps"), 1, 1024, 1, 0, 4 },
};

#define N_NUMBERS G_N_ELEMENTS (numbers)

struct _HrAdvisorDialog
{
  AdwWindow        parent_instance;

  GSettings       *settings;
  HrScenario      *scenario;
  HrAnalysis      *analysis;      /* what the advice is made from */
  HrAdvisorWalk   *walk;
  /* The numbers the user typed (and the electricity price): they win
   * over the typical figure of the answer they fall under. */
  HrAdviceInputs   typed;
  HrAdvice        *advice;
  GPtrArray       *rows;        /* AdwActionRow, one per answer to the current question */
  GPtrArray       *checks;      /* GtkCheckButton, the same */
  GPtrArray       *summaries;   /* char *, one per recommendation shown */
  guint            selected;    /* the answer selected at the current question */
  int              preselect;   /* the answer to select when a question is asked again */
  HrAdvisorExport  export_what;
  int              updating;

  AdwToastOverlay *toast_overlay;
  AdwWindowTitle  *window_title;
  GtkWidget       *next_button;
  GtkStack        *stack;
  GtkLabel        *step_label;
  GtkLabel        *question_label;
  GtkLabel        *help_label;
  GtkListBox      *answers_list;
  GtkListBox      *numbers_list;
  AdwActionRow    *number_rows[N_NUMBERS];
  GtkSpinButton   *number_spins[N_NUMBERS];
  HrAdvisorTree   *tree;
  GtkLabel        *result_label;
  GtkListBox      *recommendations_list;
  GtkLabel        *host_label;
  GtkLabel        *host_reasons_label;
  GtkLabel        *notes_label;
};

G_DEFINE_FINAL_TYPE (HrAdvisorDialog, hr_advisor_dialog, ADW_TYPE_WINDOW)

static void show_current (HrAdvisorDialog *self);
static gboolean on_budget_output (GtkSpinButton *spin,
                                  gpointer       user_data);

static double
inputs_get_number (const HrAdviceInputs *inputs,
                   HrFact                fact)
{
  switch (fact)
    {
    case HR_FACT_HOURS_PER_DAY: return inputs->hours_per_day;
    case HR_FACT_MONTHS: return inputs->months;
    case HR_FACT_BUDGET: return inputs->budget_usd;
    case HR_FACT_RUNS: return inputs->runs;
    default: g_assert_not_reached ();
    }
}

static void
inputs_set_number (HrAdviceInputs *inputs,
                   HrFact          fact,
                   double          value)
{
  switch (fact)
    {
    case HR_FACT_HOURS_PER_DAY: inputs->hours_per_day = value; break;
    case HR_FACT_MONTHS: inputs->months = value; break;
    case HR_FACT_BUDGET: inputs->budget_usd = value; break;
    case HR_FACT_RUNS: inputs->runs = (guint) value; break;
    default: g_assert_not_reached ();
    }
  inputs->known |= fact;
}

/* The numbers a question stands for: those its answers set or test. */
static guint
node_number_facts (const HrAdvisorNode *node)
{
  guint facts = 0;
  guint wanted = 0;

  for (guint i = 0; i < N_NUMBERS; i++)
    wanted |= numbers[i].fact;
  for (guint i = 0; node->answers != NULL && i < node->answers->len; i++)
    {
      const HrAdvisorAnswer *answer = g_ptr_array_index (node->answers, i);

      facts |= answer->set.known;
      for (guint k = 0; k < answer->when->len; k++)
        facts |= g_array_index (answer->when, HrAdvisorCondition, k).fact;
    }
  return facts & wanted;
}

static guint
answer_index (const HrAdvisorNode   *node,
              const HrAdvisorAnswer *answer)
{
  for (guint i = 0; i < node->answers->len; i++)
    if (g_ptr_array_index (node->answers, i) == answer)
      return i;
  g_assert_not_reached ();
}

/* The answer the facts known (the scenario's task, the numbers typed)
 * would give the current question: one automatic step, taken back. */
static guint
answer_from_facts (HrAdvisorDialog *self)
{
  const HrAdvisorNode *node = hr_advisor_walk_get_current (self->walk);
  guint n = hr_advisor_walk_get_n_steps (self->walk);
  HrAdviceInputs facts = self->typed;
  const HrAdvisorAnswer *answer;

  facts.known |= HR_FACT_TASK;
  facts.task = self->scenario->task;
  answer = hr_advisor_walk_auto_step (self->walk, &facts);
  hr_advisor_walk_back_to (self->walk, n);
  return answer_index (node, answer);
}

/* The facts the advice is computed for: the answers, the numbers typed,
 * and the electricity price from Preferences. */
static void
get_inputs (HrAdvisorDialog *self,
            HrAdviceInputs  *inputs)
{
  HrAdviceInputs overrides = self->typed;

  overrides.known |= HR_FACT_USD_PER_KWH;
  overrides.usd_per_kwh = g_settings_get_double (self->settings, "electricity-price");
  hr_advisor_walk_get_inputs (self->walk, &overrides, inputs);
}

/* Selects answer @index.  With @fill, the numbers it stands for show its
 * typical figures, replacing what was typed when @replace_typed. */
static void
select_answer (HrAdvisorDialog *self,
               guint            index,
               gboolean         fill,
               gboolean         replace_typed)
{
  const HrAdvisorNode *node = hr_advisor_walk_get_current (self->walk);
  const HrAdvisorAnswer *answer = g_ptr_array_index (node->answers, index);

  self->selected = index;
  self->updating++;
  gtk_check_button_set_active (g_ptr_array_index (self->checks, index), TRUE);
  for (guint i = 0; fill && i < N_NUMBERS; i++)
    {
      HrFact fact = numbers[i].fact;

      /* An answer with no budget of its own (a lab or team budget) has
       * none unless one was typed: the field says "No limit", never a
       * band's figure the answer does not stand for. */
      if (fact == HR_FACT_BUDGET && !(answer->set.known & fact) &&
          gtk_widget_get_visible (GTK_WIDGET (self->number_rows[i])) &&
          (replace_typed || !(self->typed.known & fact)))
        {
          self->typed.known &= ~fact;
          gtk_spin_button_set_value (self->number_spins[i], 0);
          on_budget_output (self->number_spins[i], NULL);
          continue;
        }
      if (!(answer->set.known & fact))
        continue;
      if ((self->typed.known & fact) && !replace_typed)
        continue;
      self->typed.known &= ~fact;
      gtk_spin_button_set_value (self->number_spins[i], inputs_get_number (&answer->set, fact));
    }
  self->updating--;
}

static void
on_check_toggled (GtkCheckButton  *check,
                  HrAdvisorDialog *self)
{
  guint index;

  if (self->updating > 0 || !gtk_check_button_get_active (check))
    return;
  if (g_ptr_array_find (self->checks, check, &index))
    select_answer (self, index, TRUE, TRUE);
}

/* The budget field shows "No limit" at 0. */
static gboolean
on_budget_output (GtkSpinButton *spin,
                  gpointer       user_data)
{
  if (gtk_spin_button_get_value (spin) > 0)
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (spin), _("No limit"));
  return TRUE;
}

/* And reads it back, or a figure typed over it. */
static int
on_budget_input (GtkSpinButton *spin,
                 double        *value,
                 gpointer       user_data)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));
  char *end = NULL;

  if (g_strcmp0 (text, _("No limit")) == 0 || *text == '\0')
    {
      *value = 0;
      return TRUE;
    }
  *value = g_strtod (text, &end);
  if (end == text)
    return GTK_INPUT_ERROR;
  return TRUE;
}

static void
on_number_changed (GtkSpinButton   *spin,
                   HrAdvisorDialog *self)
{
  if (self->updating > 0 || hr_advisor_walk_is_done (self->walk))
    return;
  for (guint i = 0; i < N_NUMBERS; i++)
    if (self->number_spins[i] == spin)
      {
        /* a budget of 0 is no limit */
        if (numbers[i].fact == HR_FACT_BUDGET && gtk_spin_button_get_value (spin) <= 0)
          self->typed.known &= ~HR_FACT_BUDGET;
        else
          inputs_set_number (&self->typed, numbers[i].fact, gtk_spin_button_get_value (spin));
      }
  /* The figure picks the answer it falls under. */
  select_answer (self, answer_from_facts (self), FALSE, FALSE);
}

/* Takes the selected answer and asks the next question. */
static void
go_next (HrAdvisorDialog *self)
{
  const HrAdvisorNode *node = hr_advisor_walk_get_current (self->walk);
  const HrAdvisorAnswer *answer;
  g_autoptr(GError) error = NULL;

  if (hr_advisor_walk_is_done (self->walk))
    return;
  /* A number typed but not yet confirmed counts. */
  for (guint i = 0; i < N_NUMBERS; i++)
    if (gtk_widget_get_visible (GTK_WIDGET (self->number_rows[i])))
      gtk_spin_button_update (self->number_spins[i]);

  answer = g_ptr_array_index (node->answers, self->selected);
  if (!hr_advisor_walk_answer (self->walk, answer->id, &error))
    g_critical ("%s", error->message);
  show_current (self);
}

/* Asks step @step again with answer @index selected. */
static void
go_back_to (HrAdvisorDialog *self,
            guint            step,
            guint            index)
{
  hr_advisor_walk_back_to (self->walk, step);
  self->preselect = index;
  show_current (self);
}

static void
go_back (HrAdvisorDialog *self)
{
  guint n = hr_advisor_walk_get_n_steps (self->walk);

  if (n == 0)
    return;
  go_back_to (self, n - 1,
              answer_index (hr_advisor_walk_get_step_node (self->walk, n - 1),
                            hr_advisor_walk_get_step_answer (self->walk, n - 1)));
}

static void
on_row_activated (AdwActionRow    *row,
                  HrAdvisorDialog *self)
{
  guint index;

  if (!g_ptr_array_find (self->rows, row, &index))
    return;
  select_answer (self, index, self->selected != index, TRUE);
  go_next (self);
}

static void
clear_list (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

static void
update_tree (HrAdvisorDialog *self)
{
  const HrRecommendation *best = NULL;
  g_autofree char *detail = NULL;

  if (self->advice != NULL && self->advice->recommendations->len > 0)
    best = g_ptr_array_index (self->advice->recommendations, 0);
  if (best != NULL)
    detail = g_strdup_printf (best->choice == HR_ADVICE_CHOICE_BUY ? _("Buy %u × %s")
                                                                  : _("Rent %u × %s"),
                              best->count, best->gpu_name);
  hr_advisor_tree_set_root (self->tree, hr_advisor_walk_to_tree (self->walk, detail));
}

static void
update_actions (HrAdvisorDialog *self)
{
  gboolean done = hr_advisor_walk_is_done (self->walk);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "advisor.back",
                                 hr_advisor_walk_get_n_steps (self->walk) > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "advisor.next", !done);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "advisor.restart",
                                 hr_advisor_walk_get_n_steps (self->walk) > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "advisor.export", done);
  gtk_widget_set_visible (self->next_button, !done);
}

static void
show_question (HrAdvisorDialog *self)
{
  const HrAdvisorNode *node = hr_advisor_walk_get_current (self->walk);
  guint asked = node_number_facts (node);
  gboolean any_number = FALSE;
  g_autofree char *step = NULL;
  GtkCheckButton *group = NULL;
  guint index;

  g_clear_pointer (&self->advice, hr_advice_free);
  clear_list (self->answers_list);
  g_ptr_array_set_size (self->rows, 0);
  g_ptr_array_set_size (self->checks, 0);

  step = g_strdup_printf (_("Question %u"), hr_advisor_walk_get_n_steps (self->walk) + 1);
  gtk_label_set_label (self->step_label, step);
  gtk_label_set_label (self->question_label, node->question);
  gtk_label_set_label (self->help_label, node->help != NULL ? node->help : "");
  gtk_widget_set_visible (GTK_WIDGET (self->help_label), node->help != NULL);

  self->updating++;
  for (guint i = 0; i < node->answers->len; i++)
    {
      const HrAdvisorAnswer *answer = g_ptr_array_index (node->answers, i);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();

      /* Labels come from data: no markup. */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), answer->label);
      gtk_check_button_set_group (GTK_CHECK_BUTTON (check), group);
      group = GTK_CHECK_BUTTON (check);
      /* The row takes the focus, and Enter on it answers (rather than
       * Next, the window's default, which takes the answer selected).
       * The radio is kept out of the focus chain altogether: a grouped
       * check button asked to take the focus hands it to the active one
       * of its group and says it moved it, so Tab from a row would stay
       * there and never reach the number fields below. */
      gtk_widget_set_focusable (check, FALSE);
      gtk_widget_set_can_focus (check, FALSE);
      gtk_widget_set_receives_default (row, TRUE);
      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      g_signal_connect (check, "toggled", G_CALLBACK (on_check_toggled), self);
      g_signal_connect (row, "activated", G_CALLBACK (on_row_activated), self);
      gtk_list_box_append (self->answers_list, row);
      g_ptr_array_add (self->rows, row);
      g_ptr_array_add (self->checks, check);
    }

  for (guint i = 0; i < N_NUMBERS; i++)
    {
      gboolean shown = (asked & numbers[i].fact) != 0;

      gtk_widget_set_visible (GTK_WIDGET (self->number_rows[i]), shown);
      any_number |= shown;
      if (shown && (self->typed.known & numbers[i].fact))
        gtk_spin_button_set_value (self->number_spins[i],
                                   inputs_get_number (&self->typed, numbers[i].fact));
    }
  gtk_widget_set_visible (GTK_WIDGET (self->numbers_list), any_number);
  self->updating--;

  index = self->preselect >= 0 ? (guint) self->preselect : answer_from_facts (self);
  self->preselect = -1;
  select_answer (self, index, TRUE, FALSE);

  gtk_stack_set_visible_child_name (self->stack, "question");
  gtk_widget_grab_focus (g_ptr_array_index (self->rows, index));
}

static char *
format_money (double usd)
{
  return usd >= 0 && isfinite (usd) ? hr_format_price (usd) : g_strdup (_("unknown"));
}

/* The lines of a recommendation's row, as the list shows them. */
static char *
describe_recommendation (const HrRecommendation *rec,
                         const HrAdviceInputs   *in,
                         guint                   steps,
                         gboolean                lower_bound,
                         HrSizeUnit              unit)
{
  g_autoptr(GString) str = g_string_new (NULL);
  g_autofree char *memory = hr_size_format (rec->memory, unit);
  g_autofree char *price = format_money (rec->price_usd);
  g_autofree char *per_gb = format_money (rec->price_per_gb);
  g_autofree char *power = format_money (rec->power_usd_per_month);
  g_autofree char *cost = format_money (rec->cost);
  const char *as_of = rec->price_as_of != NULL ? rec->price_as_of : _("undated");

  g_string_append_printf (str, _("%s per card; micro-batch up to %u"), memory,
                          rec->max_micro_batch);
  if (rec->gpus_per_run > 1)
    g_string_append_printf (str, _("; each run sharded over %u cards"), rec->gpus_per_run);
  if (rec->runs > 1)
    g_string_append_printf (str, _("; %u runs at once"), rec->runs);
  g_string_append_c (str, '\n');

  if (rec->price_usd >= 0 && rec->used)
    /* Translators: a used card's price, its date, its price per GB. */
    g_string_append_printf (str, _("Used, %s as of %s, %s per GB"), price, as_of, per_gb);
  else if (rec->price_usd >= 0)
    g_string_append_printf (str, _("Price %s as of %s, %s per GB"), price, as_of, per_gb);
  else
    g_string_append (str, _("No purchase price known"));
  g_string_append (str, "; ");
  if (rec->cloud_usd_per_hour >= 0)
    g_string_append_printf (str, _("cloud $%.2f an hour"), rec->cloud_usd_per_hour);
  else
    g_string_append (str, _("not offered in the cloud"));
  g_string_append_c (str, '\n');

  if (rec->power_usd_per_month >= 0)
    {
      g_string_append_printf (str, _("Power %s a month at %g h a day and $%.2f per kWh"),
                              power, in->hours_per_day, in->usd_per_kwh);
      g_string_append (str, "; ");
    }
  if (isfinite (rec->break_even_months))
    g_string_append_printf (str, _("buying pays off after %.1f months"),
                            rec->break_even_months);
  else if (isnan (rec->break_even_months))
    g_string_append (str, _("no break-even known"));
  else
    g_string_append (str, _("renting always costs less at this use"));
  g_string_append_c (str, '\n');

  if (isfinite (rec->run_hours) && isfinite (rec->cost_per_run))
    {
      g_autofree char *per_run = rec->cost_per_run < 10
                                   ? g_strdup_printf ("$%.2f", rec->cost_per_run)
                                   : format_money (rec->cost_per_run);

      /* Translators: a run's steps, "at least " or nothing, its time in
       * hours, its cost. */
      g_string_append_printf (str, _("A run of %u steps: %s%.2g h, %s; "), steps,
                              lower_bound ? _("at least ") : "", rec->run_hours, per_run);
    }
  g_string_append_printf (str, _("%s over %g months"), cost, in->months);
  if (!rec->within_budget && (in->known & HR_FACT_BUDGET))
    {
      g_autofree char *budget = format_money (in->budget_usd);
      g_autofree char *up_front = format_money (rec->up_front);

      /* Translators: what the budget caps, then the budget. */
      g_string_append_printf (str, _(": over budget (%s against %s)"), up_front, budget);
    }
  if (!rec->fits)
    g_string_append (str, _("\nRuns only a smaller micro-batch"));
  else if (!rec->fits_high)
    g_string_append (str, _("\nFits at the estimate, not at the high end of its range"));

  return g_string_free (g_steal_pointer (&str), FALSE);
}

static char *
join_lines (GPtrArray  *lines,
            const char *separator)
{
  GString *str = g_string_new (NULL);

  for (guint i = 0; i < lines->len; i++)
    {
      if (i > 0)
        g_string_append (str, separator);
      g_string_append (str, g_ptr_array_index (lines, i));
    }
  return g_string_free (str, FALSE);
}


/* The heading says how the list is ordered: the advice's one objective. */
static char *
ranking_title (const HrAdvice *advice,
               const char     *fallback)
{
  if (advice == NULL || advice->order == NULL)
    return g_strdup (fallback);
  if (advice->none_within_budget)
    return g_strdup_printf (_("Nothing within the budget runs it as asked. %s"), advice->order);
  return g_strdup (advice->order);
}

static void
show_result (HrAdvisorDialog *self)
{
  const HrAdvisorNode *leaf = hr_advisor_walk_get_current (self->walk);
  HrSizeUnit unit = g_settings_get_enum (self->settings, "display-unit") == 1 ? HR_SIZE_GB
                                                                              : HR_SIZE_GIB;
  HrAdviceInputs inputs;
  HrHostAdvice *host;
  g_autoptr(GString) host_text = g_string_new (NULL);
  g_autofree char *reasons = NULL;
  g_autofree char *notes = NULL;

  get_inputs (self, &inputs);
  g_clear_pointer (&self->advice, hr_advice_free);
  self->advice = hr_analysis_advise (self->analysis, hr_catalog_get_default (), &inputs,
                                     leaf->max_recommendations);

  {
    g_autofree char *heading = ranking_title (self->advice, leaf->recommend);

    gtk_label_set_label (self->result_label, heading);
  }
  clear_list (self->recommendations_list);
  g_ptr_array_set_size (self->summaries, 0);
  for (guint i = 0; i < self->advice->recommendations->len; i++)
    {
      const HrRecommendation *rec = g_ptr_array_index (self->advice->recommendations, i);
      g_autofree char *title = NULL;
      g_autofree char *lines = describe_recommendation (rec, &self->advice->inputs,
                                                       self->advice->steps,
                                                       self->advice->flops_lower_bound, unit);
      GtkWidget *row = adw_action_row_new ();

      title = g_strdup_printf (rec->choice == HR_ADVICE_CHOICE_BUY ? _("%u. Buy %u × %s")
                                                                   : _("%u. Rent %u × %s"),
                               i + 1, rec->count, rec->gpu_name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), lines);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
      if (i == 0)
        gtk_widget_add_css_class (row, "advisor-best");
      gtk_list_box_append (self->recommendations_list, row);
      g_ptr_array_add (self->summaries, g_strdup_printf ("%s: %s", title, lines));
    }
  if (self->advice->recommendations->len == 0)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row),
                                     _("No GPU in the catalog fits this scenario"));
      gtk_list_box_append (self->recommendations_list, row);
    }

  host = &self->advice->host;
  g_string_append_printf (host_text, _("%u CPU cores, %.0f GB of RAM, %.0f TB of NVMe disk"),
                          host->cpu_cores, host->ram / 1e9, host->disk / 1e12);
  if (host->psu_watts > 0)
    g_string_append_printf (host_text, _(", a %u W power supply"), host->psu_watts);
  gtk_label_set_label (self->host_label, host_text->str);
  reasons = join_lines (host->reasons, "\n");
  gtk_label_set_label (self->host_reasons_label, reasons);
  notes = join_lines (self->advice->notes, "\n\n");
  gtk_label_set_label (self->notes_label, notes);
  gtk_widget_set_visible (GTK_WIDGET (self->notes_label), self->advice->notes->len > 0);

  gtk_stack_set_visible_child_name (self->stack, "result");
  gtk_widget_grab_focus (gtk_widget_get_first_child (GTK_WIDGET (self->recommendations_list)));
}

static void
show_current (HrAdvisorDialog *self)
{
  if (hr_advisor_walk_is_done (self->walk))
    show_result (self);
  else
    show_question (self);
  update_tree (self);
  update_actions (self);
}

static void
on_electricity_price_changed (HrAdvisorDialog *self)
{
  if (hr_advisor_walk_is_done (self->walk))
    show_current (self);
}

/* ------------------------------------------------------------------ */
/* The tree: clicks                                                     */

gboolean
hr_advisor_dialog_click_tree (HrAdvisorDialog *self,
                              double           x,
                              double           y)
{
  g_autoptr(HrTreeChartLayout) layout = NULL;
  const HrTreeNode *hit;
  const HrTreeNode *node;
  guint n;

  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), FALSE);

  layout = hr_advisor_tree_layout (self->tree);
  if (layout == NULL || (hit = hr_tree_chart_hit_test (layout, x, y)) == NULL)
    return FALSE;

  /* Down the chosen path: a question asked goes back to it; an answer
   * not taken goes back to its question with that answer selected. */
  n = hr_advisor_walk_get_n_steps (self->walk);
  node = self->tree->root;
  for (guint depth = 0; node != NULL; depth++)
    {
      const HrTreeNode *next = NULL;

      if (node == hit)
        {
          if (depth >= n)
            return FALSE;
          go_back_to (self, depth,
                      answer_index (hr_advisor_walk_get_step_node (self->walk, depth),
                                    hr_advisor_walk_get_step_answer (self->walk, depth)));
          return TRUE;
        }
      for (guint k = 0; k < node->children->len; k++)
        {
          const HrTreeNode *child = g_ptr_array_index (node->children, k);

          if (child->chosen)
            next = child;
          else if (child == hit)
            {
              /* The children are the question's answers, in order. */
              go_back_to (self, depth, k);
              return TRUE;
            }
        }
      node = next;
    }
  return FALSE;
}

gboolean
hr_advisor_dialog_get_step_box (HrAdvisorDialog *self,
                                guint            step,
                                graphene_rect_t *box)
{
  g_autoptr(HrTreeChartLayout) layout = NULL;
  const HrTreeNode *node;

  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), FALSE);
  g_return_val_if_fail (box != NULL, FALSE);

  node = self->tree->root;
  for (guint depth = 0; node != NULL && depth < step; depth++)
    {
      const HrTreeNode *next = NULL;

      for (guint k = 0; k < node->children->len; k++)
        if (((HrTreeNode *) g_ptr_array_index (node->children, k))->chosen)
          next = g_ptr_array_index (node->children, k);
      node = next;
    }
  layout = hr_advisor_tree_layout (self->tree);
  if (node == NULL || layout == NULL)
    return FALSE;
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const HrTreeLayoutNode *ln = &g_array_index (layout->nodes, HrTreeLayoutNode, i);

      if (ln->node == node)
        {
          graphene_rect_init (box, ln->box.x, ln->box.y, ln->box.width, ln->box.height);
          return TRUE;
        }
    }
  return FALSE;
}

static void
on_tree_pressed (GtkGestureClick *gesture,
                 int              n_press,
                 double           x,
                 double           y,
                 HrAdvisorDialog *self)
{
  if (hr_advisor_dialog_click_tree (self, x, y))
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

/* ------------------------------------------------------------------ */
/* Export                                                               */

static void
draw_tree (cairo_t            *cr,
           PangoContext       *context,
           const HrChartStyle *style,
           double              width,
           double              height,
           gpointer            user_data)
{
  HrAdvisorDialog *self = user_data;
  g_autoptr(HrTreeChartLayout) layout = NULL;

  layout = hr_tree_chart_layout (self->tree->root, _("Which GPU to buy or rent"), style,
                                 context, width, height);
  hr_tree_chart_render (layout, style, cr);
}

gboolean
hr_advisor_dialog_export (HrAdvisorDialog  *self,
                          HrAdvisorExport   what,
                          const char       *path,
                          GError          **error)
{
  g_autoptr(HrChartStyle) style = NULL;
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;
  g_autofree char *description = NULL;
  g_autofree char *heading = NULL;
  HrAdviceChartData table = { 0 };
  HrExportOptions options = { 0 };
  gboolean ok;

  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!hr_export_format_for_path (path, &options.format))
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: the name should end in .png, .svg or .pdf"), path);
      return FALSE;
    }
  if (what == HR_ADVISOR_EXPORT_TABLE && self->advice == NULL)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("There are no recommendations yet: answer the questions first"));
      return FALSE;
    }

  style = hr_chart_style_new (g_settings_get_enum (self->settings, "export-theme"));
  options.scale = 2;
  if (what == HR_ADVISOR_EXPORT_TREE)
    {
      options.width = 1200;
      options.height = 900;
      options.title = _("Which GPU to buy or rent");
      options.description = self->tree->summary;
      ok = hr_chart_export (path, &options, style, draw_tree, self, error);
    }
  else
    {
      table.advice = self->advice;
      heading = ranking_title (self->advice, _("GPUs that fit, ranked by cost for your use"));
      table.title = heading;
      table.path = self->tree->summary;
      description = hr_advice_chart_summary (&table);
      options.width = 1200;
      options.height = 800;
      options.title = table.title;
      options.description = description;
      ok = hr_chart_export (path, &options, style, hr_advice_chart_draw, &table, error);
    }
  if (!ok)
    return FALSE;

  name = g_path_get_basename (path);
  message = g_strdup_printf (_("Exported “%s”"), name);
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
  return TRUE;
}

static void
finish_export (HrAdvisorDialog *self,
               GFile           *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;

  if (path == NULL)
    g_set_error (&error, HR_ERROR, HR_ERROR_IO, _("Only local files can be written"));
  else
    hr_advisor_dialog_export (self, self->export_what, path, &error);

  if (error != NULL)
    {
      GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Could not export"),
                                                  error->message);

      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
      gtk_window_present (GTK_WINDOW (dialog));
    }
}

static void
export_chosen (GFile    *file,
               gpointer  user_data)
{
  finish_export (HR_ADVISOR_DIALOG (user_data), file);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  HrAdvisorDialog *self = HR_ADVISOR_DIALOG (widget);
  const char *what = g_variant_get_string (parameter, NULL);
  const char *name;

  self->export_what = g_str_equal (what, "table") ? HR_ADVISOR_EXPORT_TABLE
                                                  : HR_ADVISOR_EXPORT_TREE;
  name = self->export_what == HR_ADVISOR_EXPORT_TABLE ? "headroom-advice.png"
                                                      : "headroom-advisor-tree.png";
  hr_file_chooser_save (GTK_WINDOW (self), _("Export"), _("_Export"), name, NULL, export_chosen,
                        g_object_ref (self), g_object_unref);
}

/* ------------------------------------------------------------------ */
/* Actions                                                              */

static void
back_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  go_back (HR_ADVISOR_DIALOG (widget));
}

static void
next_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  go_next (HR_ADVISOR_DIALOG (widget));
}

static void
restart_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  HrAdvisorDialog *self = HR_ADVISOR_DIALOG (widget);

  if (hr_advisor_walk_get_n_steps (self->walk) > 0)
    go_back_to (self, 0, answer_index (hr_advisor_walk_get_step_node (self->walk, 0),
                                       hr_advisor_walk_get_step_answer (self->walk, 0)));
}

/* ------------------------------------------------------------------ */
/* Construction                                                         */

static GtkWidget *
boxed_list (void)
{
  GtkWidget *list = gtk_list_box_new ();

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  return list;
}

static GtkLabel *
wrapped_label (const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), FALSE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return GTK_LABEL (label);
}

static GtkWidget *
build_question_page (HrAdvisorDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);

  self->step_label = wrapped_label ("dim-label");
  self->question_label = wrapped_label ("title-2");
  self->help_label = wrapped_label ("dim-label");
  self->answers_list = GTK_LIST_BOX (boxed_list ());
  self->numbers_list = GTK_LIST_BOX (boxed_list ());
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->answers_list),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, self->question_label,
                                  NULL, -1);

  for (guint i = 0; i < N_NUMBERS; i++)
    {
      AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
      GtkWidget *spin = gtk_spin_button_new_with_range (numbers[i].lower, numbers[i].upper,
                                                        numbers[i].step);
      g_autofree char *plain = NULL;

      gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), numbers[i].digits);
      if (numbers[i].fact == HR_FACT_BUDGET)
        {
          /* letters too: "No limit" */
          gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), FALSE);
          g_signal_connect (spin, "output", G_CALLBACK (on_budget_output), NULL);
          g_signal_connect (spin, "input", G_CALLBACK (on_budget_input), NULL);
          gtk_editable_set_width_chars (GTK_EDITABLE (spin), 9);
        }
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), numbers[i].initial);
      if (numbers[i].fact == HR_FACT_BUDGET)
        on_budget_output (GTK_SPIN_BUTTON (spin), NULL);
      gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
      /* Enter in the number takes the answer it picked. */
      gtk_text_set_activates_default (GTK_TEXT (gtk_editable_get_delegate (GTK_EDITABLE (spin))),
                                      TRUE);
      adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(numbers[i].title));
      adw_action_row_set_subtitle (row, _(numbers[i].subtitle));
      adw_action_row_add_suffix (row, spin);
      adw_action_row_set_activatable_widget (row, spin);
      plain = g_strdup (_(numbers[i].title));
      g_strdelimit (plain, "_", ' ');
      g_strstrip (plain);
      gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      plain, -1);
      g_signal_connect (spin, "value-changed", G_CALLBACK (on_number_changed), self);
      gtk_list_box_append (self->numbers_list, GTK_WIDGET (row));
      self->number_rows[i] = row;
      self->number_spins[i] = GTK_SPIN_BUTTON (spin);
    }

  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->step_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->question_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->help_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->answers_list));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->numbers_list));
  return box;
}

static GtkWidget *
heading (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_top (label, 6);
  return label;
}

static GtkWidget *
build_result_page (HrAdvisorDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *export_tree = gtk_button_new_with_mnemonic (_("Export _Tree…"));
  GtkWidget *export_table = gtk_button_new_with_mnemonic (_("Export T_able…"));
  GtkWidget *restart = gtk_button_new_with_mnemonic (_("_Start Over"));

  self->result_label = wrapped_label ("title-2");
  self->recommendations_list = GTK_LIST_BOX (boxed_list ());
  self->host_label = wrapped_label (NULL);
  self->host_reasons_label = wrapped_label ("dim-label");
  self->notes_label = wrapped_label ("dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->host_reasons_label), "caption");
  gtk_widget_add_css_class (GTK_WIDGET (self->notes_label), "caption");
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->recommendations_list),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, self->result_label,
                                  NULL, -1);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (export_tree), "advisor.export");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (export_tree), "s", "tree");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (export_table), "advisor.export");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (export_table), "s", "table");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (restart), "advisor.restart");
  gtk_box_append (GTK_BOX (buttons), export_tree);
  gtk_box_append (GTK_BOX (buttons), export_table);
  gtk_widget_set_hexpand (restart, TRUE);
  gtk_widget_set_halign (restart, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (buttons), restart);

  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->result_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->recommendations_list));
  gtk_box_append (GTK_BOX (box), heading (_("Host")));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->host_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->host_reasons_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->notes_label));
  gtk_box_append (GTK_BOX (box), buttons);
  return box;
}

static void
hr_advisor_dialog_dispose (GObject *object)
{
  HrAdvisorDialog *self = HR_ADVISOR_DIALOG (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hr_advisor_dialog_parent_class)->dispose (object);
}

static void
hr_advisor_dialog_finalize (GObject *object)
{
  HrAdvisorDialog *self = HR_ADVISOR_DIALOG (object);

  g_clear_pointer (&self->advice, hr_advice_free);
  g_clear_pointer (&self->walk, hr_advisor_walk_free);
  g_clear_pointer (&self->scenario, hr_scenario_free);
  g_clear_pointer (&self->analysis, hr_analysis_unref);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->checks, g_ptr_array_unref);
  g_clear_pointer (&self->summaries, g_ptr_array_unref);
  G_OBJECT_CLASS (hr_advisor_dialog_parent_class)->finalize (object);
}

static void
hr_advisor_dialog_class_init (HrAdvisorDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hr_advisor_dialog_dispose;
  object_class->finalize = hr_advisor_dialog_finalize;

  g_type_ensure (HR_TYPE_ADVISOR_TREE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/vramlab/Headroom/"
                                               "hr-advisor-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, HrAdvisorDialog, next_button);
  gtk_widget_class_bind_template_child (widget_class, HrAdvisorDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, HrAdvisorDialog, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HrAdvisorDialog, tree);
  gtk_widget_class_bind_template_child (widget_class, HrAdvisorDialog, window_title);
  gtk_widget_class_bind_template_callback (widget_class, on_tree_pressed);

  gtk_widget_class_install_action (widget_class, "advisor.back", NULL, back_action);
  gtk_widget_class_install_action (widget_class, "advisor.next", NULL, next_action);
  gtk_widget_class_install_action (widget_class, "advisor.restart", NULL, restart_action);
  gtk_widget_class_install_action (widget_class, "advisor.export", "s", export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK,
                                       "advisor.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK,
                                       "advisor.next", NULL);
}

static void
hr_advisor_dialog_init (HrAdvisorDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (APP_ID);
  self->rows = g_ptr_array_new ();
  self->checks = g_ptr_array_new ();
  self->summaries = g_ptr_array_new_with_free_func (g_free);
  self->preselect = -1;

  /* The pages are built from the tree's data: a question's answers and
   * numbers, a result's list. */
  gtk_stack_add_named (self->stack, build_question_page (self), "question");
  gtk_stack_add_named (self->stack, build_result_page (self), "result");

  g_signal_connect_object (self->settings, "changed::electricity-price",
                           G_CALLBACK (on_electricity_price_changed), self, G_CONNECT_SWAPPED);
}

HrAdvisorDialog *
hr_advisor_dialog_new (HrWindow         *window,
                       const HrScenario *scenario)
{
  HrAdvisorDialog *self;

  g_return_val_if_fail (window == NULL || HR_IS_WINDOW (window), NULL);
  g_return_val_if_fail (scenario != NULL, NULL);

  self = g_object_new (HR_TYPE_ADVISOR_DIALOG, "transient-for", window, NULL);
  self->scenario = hr_scenario_copy (scenario);
  self->analysis = hr_analysis_new (scenario, NULL);
  self->walk = hr_advisor_walk_new (hr_advisor_get_default ());
  if (scenario->name != NULL)
    adw_window_title_set_subtitle (self->window_title, scenario->name);
  show_current (self);
  return self;
}

HrAdvisorDialog *
hr_advisor_dialog_new_for_analysis (HrWindow   *window,
                                    HrAnalysis *analysis)
{
  HrAdvisorDialog *self;
  const HrScenario *scenario;

  g_return_val_if_fail (window == NULL || HR_IS_WINDOW (window), NULL);
  g_return_val_if_fail (analysis != NULL, NULL);

  scenario = hr_analysis_get_scenario (analysis);
  self = g_object_new (HR_TYPE_ADVISOR_DIALOG, "transient-for", window, NULL);
  self->scenario = hr_scenario_copy (scenario);
  /* the window's own analysis: its calibration decides the fits too */
  self->analysis = hr_analysis_ref (analysis);
  self->walk = hr_advisor_walk_new (hr_advisor_get_default ());
  if (scenario->name != NULL)
    adw_window_title_set_subtitle (self->window_title, scenario->name);
  show_current (self);
  return self;
}

/* ------------------------------------------------------------------ */
/* For tests and screenshots                                            */

HrAdvisorWalk *
hr_advisor_dialog_get_walk (HrAdvisorDialog *self)
{
  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), NULL);
  return self->walk;
}

const HrAdvice *
hr_advisor_dialog_get_advice (HrAdvisorDialog *self)
{
  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), NULL);
  return self->advice;
}

GtkWidget *
hr_advisor_dialog_get_answer_row (HrAdvisorDialog *self,
                                  guint            index)
{
  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), NULL);

  if (hr_advisor_walk_is_done (self->walk) || index >= self->rows->len)
    return NULL;
  return g_ptr_array_index (self->rows, index);
}

gboolean
hr_advisor_dialog_answer (HrAdvisorDialog *self,
                          guint            index)
{
  GtkWidget *row = hr_advisor_dialog_get_answer_row (self, index);

  if (row == NULL)
    return FALSE;
  return gtk_widget_activate (row);
}

GtkSpinButton *
hr_advisor_dialog_get_number_spin (HrAdvisorDialog *self,
                                   HrFact           fact)
{
  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), NULL);

  for (guint i = 0; i < N_NUMBERS; i++)
    if (numbers[i].fact == fact && !hr_advisor_walk_is_done (self->walk) &&
        gtk_widget_get_visible (GTK_WIDGET (self->number_rows[i])))
      return self->number_spins[i];
  return NULL;
}

GStrv
hr_advisor_dialog_dup_recommendation_summaries (HrAdvisorDialog *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), NULL);

  if (self->advice != NULL)
    for (guint i = 0; i < self->summaries->len; i++)
      g_strv_builder_add (builder, g_ptr_array_index (self->summaries, i));
  return g_strv_builder_end (builder);
}

const char *
hr_advisor_dialog_get_tree_summary (HrAdvisorDialog *self)
{
  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), NULL);
  return self->tree->summary;
}

gboolean
hr_advisor_dialog_screenshot (HrAdvisorDialog *self,
                              const char      *path,
                              GError         **error)
{
  g_return_val_if_fail (HR_IS_ADVISOR_DIALOG (self), FALSE);

  return hr_widget_screenshot (GTK_WIDGET (self), path, error);
}
