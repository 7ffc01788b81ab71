/* test-advisor.c: the decision tree, its checks, and costed advice
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "hr-core.h"
#include "hr-test-utils.h"

/* Seed 000's DreamerV3 default (batch 16, length 64), measured on an RTX
 * 5090D under JAX; without preallocation so that the fit is the model's. */
#define DREAMER_SCENARIO \
  "{\"headroom_scenario\": 1, \"model\": \"dreamerv3-200m\", \"task\": \"train\", " \
  "\"method\": \"full\", \"micro_batch\": 16, \"seq_len\": 64, \"compute\": \"fp32\", " \
  "\"optimizer\": \"adam\", \"framework\": \"jax\", \"jax_preallocate\": false, " \
  "\"replay\": {\"steps\": 5000000, \"obs_shape\": [64, 64, 3], \"obs_dtype\": \"uint8\"}}"

static HrAdvice *
walk_and_advise (const HrScenario   *scenario,
                 const char * const *answers,
                 HrAdvisorWalk     **walk_out)
{
  HrAdvisor *advisor = hr_advisor_get_default ();
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (advisor);
  HrAdviceInputs inputs;
  HrAdvice *advice;

  for (guint i = 0; answers[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      hr_advisor_walk_answer (walk, answers[i], &error);
      g_assert_no_error (error);
    }
  g_assert_true (hr_advisor_walk_is_done (walk));
  hr_advisor_walk_get_inputs (walk, NULL, &inputs);
  advice = hr_advice_new (scenario, hr_catalog_get_default (), &inputs,
                          hr_advisor_walk_get_current (walk)->max_recommendations);
  if (walk_out != NULL)
    *walk_out = g_steal_pointer (&walk);
  return advice;
}

static const HrRecommendation *
first (HrAdvice *advice)
{
  g_assert_cmpuint (advice->recommendations->len, >, 0);
  return g_ptr_array_index (advice->recommendations, 0);
}

static void
test_default_tree (void)
{
  HrAdvisor *advisor = hr_advisor_get_default ();
  static const char * const questions[] = {
    "workload", "usage", "prefer", "budget", "runs", "features", "stack",
  };
  const HrAdvisorNode *start = hr_advisor_get_start (advisor);

  g_assert_cmpstr (start->id, ==, "workload");
  for (guint i = 0; i < G_N_ELEMENTS (questions); i++)
    {
      const HrAdvisorNode *node = hr_advisor_get_node (advisor, questions[i]);

      g_assert_nonnull (node);
      g_assert_false (hr_advisor_node_is_leaf (node));
      g_assert_cmpuint (node->answers->len, >=, 2);
    }
  g_assert_true (hr_advisor_node_is_leaf (hr_advisor_get_node (advisor, "recommend")));
  /* the workload question offers the three tasks */
  g_assert_nonnull (hr_advisor_node_find_answer (start, "train"));
  g_assert_nonnull (hr_advisor_node_find_answer (start, "finetune"));
  g_assert_nonnull (hr_advisor_node_find_answer (start, "inference"));
}

/* Seed 000, "GPU Selection Decision Tree": long-term high-frequency
 * training and no sufficient budget → RTX 4090 (24GB); sufficient budget
 * → RTX 5090D (32GB); occasional use → cloud GPU. */
static void
test_dreamer_seed (void)
{
  static const char * const limited[] = {
    "train", "daily", "cheaper", "limited", "one", "no", "cuda", NULL
  };
  static const char * const sufficient[] = {
    "train", "daily", "cheaper", "sufficient", "one", "no", "cuda", NULL
  };
  static const char * const occasional[] = { "train", "occasional", "one", "no", "cuda", NULL };
  g_autoptr(HrScenario) s = hr_test_scenario (DREAMER_SCENARIO);
  g_autoptr(HrAdvice) a = walk_and_advise (s, limited, NULL);
  g_autoptr(HrAdvice) b = walk_and_advise (s, sufficient, NULL);
  g_autoptr(HrAdvice) c = walk_and_advise (s, occasional, NULL);
  const HrRecommendation *r;

  r = first (a);
  g_assert_cmpstr (r->gpu_id, ==, "rtx-4090");
  g_assert_cmpint (r->choice, ==, HR_ADVICE_CHOICE_BUY);
  g_assert_cmpuint (r->count, ==, 1);
  g_assert_true (r->within_budget);
  g_assert_cmpuint (r->max_micro_batch, >=, 16);
  g_assert_nonnull (r->price_as_of);
  g_assert_cmpfloat (a->inputs.hours_per_day, ==, 18);

  r = first (b);
  g_assert_cmpstr (r->gpu_id, ==, "rtx-5090d");
  g_assert_cmpint (r->choice, ==, HR_ADVICE_CHOICE_BUY);
  g_assert_cmpuint (r->memory, >, 32e9);

  r = first (c);
  g_assert_cmpint (r->choice, ==, HR_ADVICE_CHOICE_RENT);
  g_assert_true (r->break_even_months > c->inputs.months);
  for (guint i = 0; i < c->recommendations->len; i++)
    g_assert_cmpint (((HrRecommendation *) g_ptr_array_index (c->recommendations, i))->choice,
                     ==, HR_ADVICE_CHOICE_RENT);
}

/* The seed's cards at any electricity price: where two years of renting
 * 18 hours a day would cost less than buying but more than the budget,
 * the card is bought within it, not rented over it. */
static void
test_dreamer_seed_dear_power (void)
{
  static const char * const limited[] = {
    "train", "daily", "cheaper", "limited", "one", "no", "cuda", NULL
  };
  static const char * const sufficient[] = {
    "train", "daily", "cheaper", "sufficient", "one", "no", "cuda", NULL
  };
  static const struct {
    const char * const *answers;
    const char         *gpu;
  } cases[] = { { limited, "rtx-4090" }, { sufficient, "rtx-5090d" } };
  static const double prices[] = { 0.30, 0.50 };
  g_autoptr(HrScenario) s = hr_test_scenario (DREAMER_SCENARIO);

  for (guint p = 0; p < G_N_ELEMENTS (prices); p++)
    for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (hr_advisor_get_default ());
        HrAdviceInputs overrides = { .known = HR_FACT_USD_PER_KWH, .usd_per_kwh = prices[p] };
        HrAdviceInputs inputs;
        g_autoptr(HrAdvice) advice = NULL;
        const HrRecommendation *r;

        for (guint i = 0; cases[c].answers[i] != NULL; i++)
          g_assert_true (hr_advisor_walk_answer (walk, cases[c].answers[i], NULL));
        hr_advisor_walk_get_inputs (walk, &overrides, &inputs);
        advice = hr_advice_new (s, hr_catalog_get_default (), &inputs, 6);
        r = first (advice);
        g_assert_cmpstr (r->gpu_id, ==, cases[c].gpu);
        g_assert_cmpint (r->choice, ==, HR_ADVICE_CHOICE_BUY);
        g_assert_true (r->within_budget);
        /* at $0.30 the RTX 5090D would cost less rented, but more than
         * the budget */
        if (p == 0 && c == 1)
          {
            g_assert_cmpfloat (r->rent_cost, <, r->buy_cost);
            g_assert_cmpfloat (r->rent_cost, >, inputs.budget_usd);
          }
      }
}

/* The same tree answered from facts, as `headroom-cli advise` does. */
static void
test_walk_auto (void)
{
  HrAdvisor *advisor = hr_advisor_get_default ();
  g_autoptr(HrScenario) s = hr_test_scenario (DREAMER_SCENARIO);
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (advisor);
  HrAdviceInputs facts = {
    .known = HR_FACT_TASK | HR_FACT_HOURS_PER_DAY | HR_FACT_BUDGET,
    .task = HR_TASK_TRAIN, .hours_per_day = 18, .budget_usd = 2800,
  };
  HrAdviceInputs inputs;
  g_autoptr(HrAdvice) advice = NULL;

  hr_advisor_walk_auto (walk, &facts);
  g_assert_true (hr_advisor_walk_is_done (walk));
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (walk, 0)->id, ==, "train");
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (walk, 1)->id, ==, "daily");
  g_assert_cmpstr (hr_advisor_walk_get_step_answer (walk, 3)->id, ==, "sufficient");
  /* the user's own figure wins over the answer's typical one */
  hr_advisor_walk_get_inputs (walk, &facts, &inputs);
  g_assert_cmpfloat (inputs.budget_usd, ==, 2800);
  g_assert_cmpfloat (inputs.months, ==, 24);
  advice = hr_advice_new (s, hr_catalog_get_default (), &inputs, 5);
  g_assert_cmpstr (first (advice)->gpu_id, ==, "rtx-5090d");
}

static void
test_walk_back (void)
{
  HrAdvisor *advisor = hr_advisor_get_default ();
  g_autoptr(HrAdvisorWalk) walk = hr_advisor_walk_new (advisor);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrTreeNode) tree = NULL;
  g_autofree char *path = NULL;

  g_assert_true (hr_advisor_walk_answer (walk, "finetune", NULL));
  g_assert_true (hr_advisor_walk_answer (walk, "daily", NULL));
  g_assert_true (hr_advisor_walk_answer (walk, "buy", NULL));
  g_assert_cmpstr (hr_advisor_walk_get_current (walk)->id, ==, "budget");

  g_assert_false (hr_advisor_walk_answer (walk, "lots", &error));
  g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "\"sufficient\""));
  g_assert_cmpuint (hr_advisor_walk_get_n_steps (walk), ==, 3);

  hr_advisor_walk_back_to (walk, 1);
  g_assert_cmpuint (hr_advisor_walk_get_n_steps (walk), ==, 1);
  g_assert_cmpstr (hr_advisor_walk_get_current (walk)->id, ==, "usage");
  g_assert_true (hr_advisor_walk_answer (walk, "occasional", NULL));
  g_assert_cmpstr (hr_advisor_walk_get_current (walk)->id, ==, "runs");

  /* The tree for the chart: the path chosen, the current question marked,
   * the answers not taken muted beside it. */
  tree = hr_advisor_walk_to_tree (walk, NULL);
  g_assert_cmpstr (tree->text, ==, "What will you run?");
  g_assert_true (tree->chosen);
  g_assert_false (tree->current);
  g_assert_cmpuint (tree->children->len, ==, 3);
  {
    const HrTreeNode *train = g_ptr_array_index (tree->children, 0);
    const HrTreeNode *finetune = g_ptr_array_index (tree->children, 1);
    const HrTreeNode *runs;

    g_assert_false (train->chosen);
    g_assert_cmpstr (train->edge_label, ==, "Train from scratch");
    g_assert_true (hr_tree_node_is_leaf (train));
    g_assert_true (finetune->chosen);
    runs = g_ptr_array_index (finetune->children, 2);
    g_assert_true (runs->chosen);
    g_assert_true (runs->current);
    g_assert_cmpuint (runs->children->len, ==, 2);
  }
  path = hr_tree_path_text (tree);
  g_assert_nonnull (strstr (path, "Fine-tune"));
  g_assert_nonnull (strstr (path, "No: now and then"));
  g_assert_nonnull (strstr (path, "not answered yet"));
}

/* Seed 000: $0.35 per GPU-hour at 18 hours a day against a $2,200-2,800
 * RTX 5090D approaches the card's price "in about a year". */
static void
test_break_even_seed (void)
{
  double low = hr_cost_break_even_months (2200, 0.35, 18, 0, 0);
  double high = hr_cost_break_even_months (2800, 0.35, 18, 0, 0);
  double with_power = hr_cost_break_even_months (2500, 0.35, 18, 575,
                                                 HR_ADVICE_DEFAULT_USD_PER_KWH);

  g_assert_cmpfloat_with_epsilon (low, 2200 / (0.35 * 18 * HR_DAYS_PER_MONTH), 1e-9);
  g_assert_cmpfloat (low, >, 10);
  g_assert_cmpfloat (high, <, 16);
  g_assert_cmpfloat (11.0, <, low);
  g_assert_cmpfloat (high, <, 15.0);
  /* the owned card's electricity pushes it later */
  g_assert_cmpfloat (with_power, >, hr_cost_break_even_months (2500, 0.35, 18, 0, 0));
  /* 575 W at $0.17 for 18 h a day is about $54 a month */
  g_assert_cmpfloat_with_epsilon (hr_cost_power_per_month (575, 18, 0.17), 53.55, 0.1);
  g_assert_true (isinf (hr_cost_break_even_months (2500, 0.35, 0, 575, 0.17)));
}

/* One card too small: the advice shards the run, and seeds get a card (or
 * a group) each, as seed 000 advises. */
static void
test_multi_gpu (void)
{
  static const char * const team[] = {
    "train", "daily", "rent", "team", "several", "yes", "cuda", NULL
  };
  g_autoptr(HrScenario) s = hr_test_scenario (
    "{\"headroom_scenario\": 1, \"model\": \"llama-3.1-8b\", \"task\": \"train\", "
    "\"method\": \"full\", \"micro_batch\": 2, \"seq_len\": 4096, \"recompute\": \"full\", "
    "\"attention\": \"flash\"}");
  g_autoptr(HrAdvice) advice = walk_and_advise (s, team, NULL);
  gboolean sharded = FALSE;

  g_assert_cmpuint (advice->inputs.runs, ==, 4);
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      const HrRecommendation *r = g_ptr_array_index (advice->recommendations, i);

      g_assert_cmpint (r->tier, ==, HR_GPU_TIER_DATACENTER);
      g_assert_cmpint (r->choice, ==, HR_ADVICE_CHOICE_RENT);
      g_assert_cmpuint (r->count, ==, r->gpus_per_run * 4);
      g_assert_cmpuint (r->runs, ==, 4);
      if (r->gpus_per_run > 1)
        {
          sharded = TRUE;
          g_assert_cmpint (r->sharding, ==, HR_SHARDING_FSDP);
        }
      /* 8B parameters at 16 bytes of state each do not fit one 80 GB card */
      if (r->memory < 90e9)
        g_assert_cmpuint (r->gpus_per_run, >, 1);
    }
  g_assert_true (sharded);
}

/* A run already split with FSDP on one card gets more cards, not a
 * different split; a DDP run over four cards is split over those four
 * before more are added. */
static void
test_sharded_scenarios (void)
{
  static const char * const team[] = {
    "train", "daily", "rent", "team", "one", "yes", "cuda", NULL
  };
  static const char * const sharding[] = { "fsdp", "ddp" };

  for (guint k = 0; k < G_N_ELEMENTS (sharding); k++)
    {
      g_autoptr(HrScenario) s = hr_test_scenariof (
        "{\"headroom_scenario\": 1, \"model\": \"llama-3.1-8b\", \"task\": \"train\", "
        "\"method\": \"full\", \"micro_batch\": 1, \"seq_len\": 2048, \"recompute\": "
        "\"full\", \"attention\": \"flash\", \"gpus\": %u, \"sharding\": \"%s\"}",
        k == 0 ? 1 : 4, sharding[k]);
      g_autoptr(HrAdvice) advice = walk_and_advise (s, team, NULL);
      const HrRecommendation *h100 = NULL;

      for (guint i = 0; i < advice->recommendations->len; i++)
        {
          const HrRecommendation *r = g_ptr_array_index (advice->recommendations, i);

          if (g_str_equal (r->gpu_id, "h100-sxm"))
            h100 = r;
        }
      g_assert_nonnull (h100);
      g_assert_cmpint (h100->sharding, ==, HR_SHARDING_FSDP);
      /* 8B × 16 bytes over FSDP: two 80 GB cards at least, four from DDP */
      g_assert_cmpuint (h100->gpus_per_run, >=, k == 0 ? 2 : 4);
      g_assert_cmpuint (h100->gpus_per_run, <=, k == 0 ? 4 : 4);
    }
}

/* Ranking: within budget first, then the rank the answers chose. */
static void
test_ranking (void)
{
  static const char * const tight[] = {
    "train", "regular", "buy", "tight", "one", "no", "cuda", NULL
  };
  g_autoptr(HrScenario) s = hr_test_scenario (DREAMER_SCENARIO);
  g_autoptr(HrAdvice) advice = walk_and_advise (s, tight, NULL);
  gboolean over = FALSE;

  /* The DreamerV3 GPU guide puts memory first within a budget, then
   * compute. */
  g_assert_cmpint (advice->inputs.rank, ==, HR_ADVICE_RANK_MEMORY);
  g_assert_true (advice->memory_first);
  /* under $1,100 the seed's answer is a used RTX 3090; its Ti has the
   * same memory and more compute, the guide's second criterion */
  g_assert_true (g_str_has_prefix (first (advice)->gpu_id, "rtx-3090"));
  g_assert_true (first (advice)->used);
  for (guint i = 0; i < advice->recommendations->len; i++)
    {
      const HrRecommendation *r = g_ptr_array_index (advice->recommendations, i);

      g_assert_true (r->fits);
      g_assert_cmpint (r->choice, ==, HR_ADVICE_CHOICE_BUY);
      g_assert_cmpuint (r->tier, !=, HR_GPU_TIER_DATACENTER);
      if (!r->within_budget)
        over = TRUE;
      else
        g_assert_false (over);
      /* within the budget, no card with less memory before one with more */
      if (i > 0 && r->within_budget)
        g_assert_cmpfloat (((HrRecommendation *) g_ptr_array_index (advice->recommendations,
                                                                    i - 1))->memory,
                           >=, 0.98 * r->memory);
      g_assert_cmpfloat_with_epsilon (r->price_per_gb, r->price_usd / (r->memory / 1e9), 1e-6);
    }
}

static void
test_host_advice (void)
{
  static const char * const limited[] = {
    "train", "daily", "buy", "limited", "one", "no", "cuda", NULL
  };
  g_autoptr(HrScenario) s = hr_test_scenario (DREAMER_SCENARIO);
  g_autoptr(HrAdvice) advice = walk_and_advise (s, limited, NULL);
  g_autoptr(HrEstimate) est = hr_estimate_new (s);

  /* seed 000's balanced DreamerV3 machine beside an RTX 4090: 12-16
   * cores, 64 GB, a 1 TB NVMe disk, 850 W or more */
  g_assert_cmpuint (advice->host.cpu_cores, >=, 12);
  g_assert_cmpuint (advice->host.cpu_cores, <=, 16);
  g_assert_cmpuint (advice->host.ram, >=, 64e9);
  /* the replay buffer (5M × 64×64×3 bytes) lives in RAM too */
  g_assert_cmpuint (advice->host.ram, >=, est->host_ram);
  g_assert_cmpuint (advice->host.ram, >=, advice->host.ram_need);
  g_assert_cmpuint (advice->host.disk, >=, 1e12);
  g_assert_cmpuint (advice->host.psu_watts, >=, 850);
  g_assert_cmpuint (advice->host.psu_watts, <=, 1000);
  g_assert_cmpuint (advice->host.reasons->len, ==, 4);
}

/* A step's model FLOPs: torchtune's Llama 3.1 8B LoRA (micro-batch 2,
 * 8 accumulation steps, 2,048 tokens, full recomputation) is a forward
 * pass, the input gradients through the frozen base and one recomputed
 * forward pass: 6 FLOPs per parameter per token (Kaplan et al. 2020,
 * section 2.1, less the weight gradients, plus Korthikanti et al.'s
 * recomputation).  Pi0.5 names no seq_len: its tokens are the model's
 * own, not one per sample. */
static void
test_step_flops (void)
{
  g_autoptr(HrScenario) llama = hr_test_load_example ("llama-3.1-8b-lora-4090.json");
  g_autoptr(HrScenario) pi05 = hr_test_load_example ("pi05-fp32.json");
  gboolean lower_bound = TRUE;
  double tokens = 2.0 * 8 * 2048;
  double flops = hr_cost_step_flops (llama, &lower_bound);
  g_autoptr(HrAdvice) advice = NULL;
  const HrRecommendation *r;
  HrAdviceInputs inputs = {
    .known = HR_FACT_HOURS_PER_DAY | HR_FACT_MONTHS | HR_FACT_STEPS,
    .hours_per_day = 8, .months = 12, .prefer = HR_ADVICE_PREFER_RENT, .runs = 1,
    .usd_per_kwh = HR_ADVICE_DEFAULT_USD_PER_KWH, .steps = 1000,
  };

  g_assert_false (lower_bound);
  g_assert_cmpfloat (flops, >, 0.9 * 6 * llama->model->params * tokens);
  g_assert_cmpfloat (flops, <, 1.1 * 6 * llama->model->params * tokens);
  g_assert_cmpfloat (hr_cost_step_flops (pi05, NULL), >,
                     2.0 * pi05->model->params * pi05->micro_batch * 100);

  /* the time and cost of a run follow from it */
  advice = hr_advice_new (llama, hr_catalog_get_default (), &inputs, 0);
  r = first (advice);
  g_assert_cmpuint (advice->steps, ==, 1000);
  g_assert_cmpfloat_with_epsilon (r->step_seconds,
                                  flops / (r->tflops * 1e12 * HR_COST_UTILISATION), 1e-6);
  g_assert_cmpfloat_with_epsilon (r->run_hours, r->step_seconds * 1000 / 3600, 1e-9);
  g_assert_cmpint (r->choice, ==, HR_ADVICE_CHOICE_RENT);
  g_assert_cmpfloat_with_epsilon (r->cost_per_run,
                                  r->cloud_usd_per_hour * r->count * r->run_hours, 1e-6);
  /* nothing listed is cheaper per run */
  for (guint i = 1; i < advice->recommendations->len; i++)
    {
      const HrRecommendation *o = g_ptr_array_index (advice->recommendations, i);

      if (o->within_budget && o->fits_high == r->fits_high)
        g_assert_cmpfloat (o->cost_per_run, >=, 0.98 * r->cost_per_run);
    }
}

/* Under JAX's preallocation nvidia-smi shows XLA's pool, 75% of the card:
 * the host's pinned staging follows what the run puts in it, not the
 * pool (seed 000's 5090D table is the pool). */
static void
test_host_advice_pool (void)
{
  static const char * const limited[] = {
    "train", "daily", "buy", "limited", "one", "no", "cuda", NULL
  };
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "dreamerv3-5090d.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_scenario_load (path, hr_catalog_get_default (), &error);
  g_autoptr(HrAdvice) advice = NULL;
  g_autoptr(HrEstimate) est = NULL;
  const HrRecommendation *r;

  g_assert_no_error (error);
  g_assert_true (s->jax_preallocate);
  advice = walk_and_advise (s, limited, NULL);
  r = first (advice);
  est = hr_estimate_new (s);
  g_assert_cmpuint (r->need, <, est->device_used / 2);
  g_assert_cmpuint (advice->host.ram_need, ==, est->host_ram + 2 * r->need + 8 * (guint64) 1e9);
}

/* Levers that free less than 2% of the peak are listed apart, after every
 * lever worth its cost, in both orders: torchtune's Llama 3.1 8B LoRA
 * keeps its optimizer state for the adapters only, so offloading it frees
 * 0.07 GiB of about 18. */
static void
test_levers_not_worth_it (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                            "llama-3.1-8b-lora-4090.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) s = hr_scenario_load (path, hr_catalog_get_default (), &error);
  static const HrKnobSort sorts[] = { HR_KNOB_SORT_COST, HR_KNOB_SORT_SAVED };

  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (sorts); k++)
    {
      g_autoptr(GPtrArray) knobs = hr_knobs_evaluate (s, NULL);
      gboolean seen_unworthy = FALSE, offload = FALSE, worthy = FALSE;

      hr_knobs_sort (knobs, sorts[k]);
      for (guint i = 0; i < knobs->len; i++)
        {
          const HrKnob *knob = g_ptr_array_index (knobs, i);

          g_assert_true (knob->worth_it ==
                         ((double) knob->gained >= HR_KNOB_WORTH_IT * (double) knob->before));
          if (!knob->worth_it)
            seen_unworthy = TRUE;
          else
            {
              g_assert_false (seen_unworthy);
              worthy = TRUE;
            }
          if (g_str_equal (knob->id, "offload"))
            {
              g_assert_false (knob->worth_it);
              offload = TRUE;
            }
        }
      g_assert_true (offload);
      g_assert_true (worthy);
    }
}

typedef struct {
  const char *name;
  const char *json;
  const char *position;   /* "LINE:COL" the message must name */
  const char *words;      /* what it must say */
} BadTree;

static void
test_invalid_trees (void)
{
  static const BadTree cases[] = {
    { "cycle",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"a\", \"nodes\": [\n"
      " {\"id\": \"a\", \"question\": \"A?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"label\": \"X\", \"next\": \"b\", \"default\": true},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"leaf\"}]},\n"
      " {\"id\": \"b\", \"question\": \"B?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"label\": \"X\", \"next\": \"a\", \"default\": true},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"leaf\"}]},\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "6:38", "a → b → a" },
    { "dangling",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"a\", \"nodes\": [\n"
      " {\"id\": \"a\", \"question\": \"A?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"label\": \"X\", \"next\": \"leaf\", \"default\": true},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"nowhere\"}]},\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "4:38", "\"nowhere\", which is no node's id" },
    { "missing field",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"a\", \"nodes\": [\n"
      " {\"id\": \"a\", \"question\": \"A?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"next\": \"leaf\", \"default\": true},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"leaf\"}]},\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "3:4", "missing the required key \"label\"" },
    { "wrong type",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"a\", \"nodes\": [\n"
      " {\"id\": \"a\", \"question\": \"A?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"label\": \"X\", \"next\": \"leaf\", \"default\": true,\n"
      "    \"set\": {\"hours_per_day\": \"lots\"}},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"leaf\"}]},\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "4:30", "\"hours_per_day\" must be a number" },
    { "unknown fact",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"a\", \"nodes\": [\n"
      " {\"id\": \"a\", \"question\": \"A?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"label\": \"X\", \"next\": \"leaf\", \"default\": true,\n"
      "    \"when\": {\"hours_per_dya\": {\"min\": 3}}},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"leaf\"}]},\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "4:14", "did you mean \"hours_per_day\"" },
    { "two defaults",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"a\", \"nodes\": [\n"
      " {\"id\": \"a\", \"question\": \"A?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"label\": \"X\", \"next\": \"leaf\", \"default\": true},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"leaf\", \"default\": true}]},\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "2:43", "exactly one" },
    { "unreachable",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"a\", \"nodes\": [\n"
      " {\"id\": \"a\", \"question\": \"A?\", \"answers\": [\n"
      "   {\"id\": \"x\", \"label\": \"X\", \"next\": \"leaf\", \"default\": true},\n"
      "   {\"id\": \"y\", \"label\": \"Y\", \"next\": \"leaf\"}]},\n"
      " {\"id\": \"lost\", \"recommend\": {\"text\": \"Never\"}},\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "5:2", "never reached" },
    { "start",
      "{\"headroom_advisor\": 1, \"source\": \"test\", \"start\": \"b\", \"nodes\": [\n"
      " {\"id\": \"leaf\", \"recommend\": {\"text\": \"GPUs\"}}]}\n",
      "1:52", "\"start\" names \"b\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrJsonDoc) doc = hr_json_doc_load_data ("advisor.json", cases[i].json, -1,
                                                        &error);
      g_autoptr(HrAdvisor) advisor = NULL;
      g_autofree char *prefix = g_strdup_printf ("advisor.json:%s: ", cases[i].position);

      g_assert_no_error (error);
      advisor = hr_advisor_new_from_doc (doc, &error);
      g_assert_null (advisor);
      g_assert_error (error, HR_ERROR, HR_ERROR_INVALID);
      if (!g_str_has_prefix (error->message, prefix) ||
          strstr (error->message, cases[i].words) == NULL)
        g_error ("%s: expected \"%s… %s…\", got \"%s\"", cases[i].name, prefix, cases[i].words,
                 error->message);
    }
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/advisor/default-tree", test_default_tree);
  g_test_add_func ("/advisor/dreamer-seed", test_dreamer_seed);
  g_test_add_func ("/advisor/dreamer-seed-dear-power", test_dreamer_seed_dear_power);
  g_test_add_func ("/advisor/walk-auto", test_walk_auto);
  g_test_add_func ("/advisor/walk-back", test_walk_back);
  g_test_add_func ("/advisor/break-even-seed", test_break_even_seed);
  g_test_add_func ("/advisor/multi-gpu", test_multi_gpu);
  g_test_add_func ("/advisor/sharded-scenarios", test_sharded_scenarios);
  g_test_add_func ("/advisor/ranking", test_ranking);
  g_test_add_func ("/advisor/host", test_host_advice);
  g_test_add_func ("/advisor/host-pool", test_host_advice_pool);
  g_test_add_func ("/advisor/step-flops", test_step_flops);
  g_test_add_func ("/advisor/levers-not-worth-it", test_levers_not_worth_it);
  g_test_add_func ("/advisor/invalid", test_invalid_trees);

  return g_test_run ();
}
