/* hr-advisor.h: the buy-or-rent decision tree and costed GPU advice
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-fit.h"
#include "hr-json.h"
#include "hr-scenario.h"
#include "hr-tree.h"

G_BEGIN_DECLS

/* U.S. average residential electricity price, 2025: about 17 cents per
 * kWh (U.S. Energy Information Administration, Electric Power Monthly,
 * table 5.6.A).  The default; users pass their own. */
#define HR_ADVICE_DEFAULT_USD_PER_KWH 0.17

typedef enum {
  HR_ADVICE_PREFER_CHEAPER,   /* whichever costs less over the planned use */
  HR_ADVICE_PREFER_BUY,
  HR_ADVICE_PREFER_RENT,
} HrAdvicePrefer;

typedef enum {
  HR_ADVICE_RANK_VALUE,    /* cost for the use per TFLOP/s of the precision used */
  HR_ADVICE_RANK_COST,     /* cost for the use alone */
  HR_ADVICE_RANK_MEMORY,   /* most memory per card first, then value */
} HrAdviceRank;

typedef enum {
  HR_ADVICE_CHOICE_BUY,
  HR_ADVICE_CHOICE_RENT,
} HrAdviceChoice;

extern const HrEnumName hr_advice_prefer_names[];
extern const HrEnumName hr_advice_rank_names[];
extern const HrEnumName hr_advice_choice_names[];

/* The facts a walk gathers; `known` says which hold a value. */
typedef enum {
  HR_FACT_TASK          = 1 << 0,
  HR_FACT_HOURS_PER_DAY = 1 << 1,
  HR_FACT_MONTHS        = 1 << 2,
  HR_FACT_BUDGET        = 1 << 3,
  HR_FACT_PREFER        = 1 << 4,
  HR_FACT_RUNS          = 1 << 5,
  HR_FACT_DATACENTER    = 1 << 6,
  HR_FACT_RANK          = 1 << 7,
  HR_FACT_USD_PER_KWH   = 1 << 8,
  HR_FACT_ROCM          = 1 << 9,
  HR_FACT_STEPS         = 1 << 10,
} HrFact;

typedef struct {
  guint           known;          /* HrFact bits */
  HrTask          task;
  double          hours_per_day;
  double          months;
  double          budget_usd;
  HrAdvicePrefer  prefer;
  guint           runs;           /* independent runs at once (seeds, sweeps) */
  gboolean        datacenter;     /* needs ECC, NVLink, a server */
  gboolean        rocm;           /* the code runs on AMD cards too */
  /* Kept for trees that set it; the order no longer depends on it (see
   * HrAdvice.order). */
  HrAdviceRank    rank;
  double          usd_per_kwh;
  guint           steps;          /* optimizer steps in a run; 0: HR_COST_DEFAULT_STEPS */
} HrAdviceInputs;

/* Copies every fact @src knows over @dst. */
void        hr_advice_inputs_merge      (HrAdviceInputs       *dst,
                                         const HrAdviceInputs *src);

/* ---- the tree, as data/advisor.json gives it ---- */

typedef struct {
  int     fact;      /* HrFact */
  double  min;       /* numbers: inclusive bounds (-/+INFINITY when open) */
  double  max;
  int     value;     /* task, prefer, rank, datacenter: the value to equal */
} HrAdvisorCondition;

typedef struct {
  char            *id;
  char            *label;
  char            *next;
  gboolean         is_default;
  HrAdviceInputs   set;          /* the facts this answer gives */
  GArray          *when;         /* HrAdvisorCondition; empty: never chosen by facts */
} HrAdvisorAnswer;

typedef struct {
  char       *id;
  char       *question;   /* NULL at a recommendation leaf */
  char       *help;
  GPtrArray  *answers;    /* HrAdvisorAnswer */
  char       *recommend;  /* the leaf's text */
  guint       max_recommendations;
} HrAdvisorNode;

typedef struct _HrAdvisor HrAdvisor;

/* Reads and checks a tree: unknown or missing keys, wrong types, answers
 * leading nowhere, cycles, unreachable nodes and questions without exactly
 * one default answer are errors "FILE:LINE:COL: message". */
HrAdvisor           *hr_advisor_new_from_doc  (HrJsonDoc   *doc,
                                               GError     **error);
HrAdvisor           *hr_advisor_load_file     (const char  *path,
                                               GError     **error);
/* The tree built into hr-core (data/advisor.json). */
HrAdvisor           *hr_advisor_get_default   (void);
void                 hr_advisor_free          (HrAdvisor   *advisor);

const HrAdvisorNode *hr_advisor_get_start     (HrAdvisor   *advisor);
const HrAdvisorNode *hr_advisor_get_node      (HrAdvisor   *advisor,
                                               const char  *id);
const HrAdvisorAnswer *hr_advisor_node_find_answer (const HrAdvisorNode *node,
                                                    const char          *answer_id);
gboolean             hr_advisor_node_is_leaf  (const HrAdvisorNode *node);

/* ---- a walk: the answers so far ---- */

typedef struct _HrAdvisorWalk HrAdvisorWalk;

HrAdvisorWalk       *hr_advisor_walk_new      (HrAdvisor     *advisor);
void                 hr_advisor_walk_free     (HrAdvisorWalk *walk);
/* The question to answer next, or the leaf when the walk is done. */
const HrAdvisorNode *hr_advisor_walk_get_current (HrAdvisorWalk *walk);
gboolean             hr_advisor_walk_is_done  (HrAdvisorWalk *walk);
/* Answers the current question; an unknown id is an error naming the
 * question's answers. */
gboolean             hr_advisor_walk_answer   (HrAdvisorWalk *walk,
                                               const char    *answer_id,
                                               GError       **error);
/* Answers from @facts until a leaf: each question takes its first answer
 * whose conditions the known facts meet, else its default. */
void                 hr_advisor_walk_auto     (HrAdvisorWalk        *walk,
                                               const HrAdviceInputs *facts);
/* One step of that; NULL (and nothing done) when the walk is done. */
const HrAdvisorAnswer *hr_advisor_walk_auto_step (HrAdvisorWalk        *walk,
                                                  const HrAdviceInputs *facts);
/* Steps answered so far; step @i asked node @i and took answer @i. */
guint                hr_advisor_walk_get_n_steps (HrAdvisorWalk *walk);
const HrAdvisorNode *hr_advisor_walk_get_step_node   (HrAdvisorWalk *walk,
                                                      guint          i);
const HrAdvisorAnswer *hr_advisor_walk_get_step_answer (HrAdvisorWalk *walk,
                                                        guint          i);
/* Forgets step @i and every later one: node @i is asked again. */
void                 hr_advisor_walk_back_to  (HrAdvisorWalk *walk,
                                               guint          i);
/* The facts the answers so far give, with @overrides (what the user typed
 * exactly: --hours-per-day 10 over "most of the day") on top. */
void                 hr_advisor_walk_get_inputs (HrAdvisorWalk        *walk,
                                                 const HrAdviceInputs *overrides,
                                                 HrAdviceInputs       *inputs);
/* The tree as HrTreeNodes for hr-chart-tree: the path taken (chosen), the
 * current question (current) with its answers, and each answer not taken
 * as a muted leaf naming where it leads.  @leaf_detail, when not NULL,
 * is written under the leaf (the top recommendation). */
HrTreeNode          *hr_advisor_walk_to_tree  (HrAdvisorWalk *walk,
                                               const char    *leaf_detail);

/* ---- recommendations ---- */

typedef struct {
  char            *gpu_id;
  char            *gpu_name;
  HrGpuTier        tier;
  guint64          memory;          /* per card, bytes */
  guint            count;           /* cards in all */
  guint            gpus_per_run;    /* > 1: one run sharded over them */
  guint            runs;            /* independent runs, one per group of cards */
  HrSharding       sharding;        /* how a run is split over gpus_per_run */
  /* Runs the scenario at its micro-batch.  FALSE only for the best card
   * within the budget when none within it does: it runs max_micro_batch,
   * and `lever` gets the scenario's back. */
  gboolean         fits;
  guint            max_micro_batch;
  char            *lever;           /* the least costly lever that makes it run as asked */
  char            *lever_change;    /* its --set arguments */
  gboolean         used;            /* bought used (price_usd is the used price) */
  double           price_usd;       /* one card; < 0 when unknown */
  double           price_per_gb;    /* < 0 when unknown */
  double           cloud_usd_per_hour; /* one card; < 0 when not rented */
  char            *price_as_of;
  double           power_usd_per_month;  /* all cards, at the stated use */
  double           break_even_months;    /* INFINITY: renting never costs more */
  double           buy_cost;        /* cards plus power over the planned months; < 0 unknown */
  double           rent_cost;       /* GPU-hours over the planned months; < 0 unknown */
  double           cost;            /* of the choice */
  double           tflops;          /* all cards, at the scenario's precision */
  /* The need at the high end of the estimate's range within the fit
   * rule's usable memory, at the scenario's micro-batch. */
  gboolean         fits_high;
  guint64          need;            /* at the point estimate, per card */
  guint64          need_high;
  guint64          usable;          /* per card, by the fit rule */
  double           step_seconds;    /* one optimizer step on one run's cards */
  double           run_hours;       /* a run of HrAdvice.steps steps */
  double           cost_per_run;    /* of the choice: its cost for the use over the runs done */
  double           up_front;        /* what the budget caps: the cards, or the rent for the use */
  HrAdviceChoice   choice;
  gboolean         within_budget;
  char            *summary;         /* "Buy 1 × GeForce RTX 4090: …" */
} HrRecommendation;

typedef struct {
  guint    cpu_cores;
  guint64  ram;               /* bytes, rounded up to a size sold */
  guint64  ram_need;          /* before rounding */
  guint64  disk;              /* bytes, rounded up to a size sold */
  guint64  disk_need;
  guint    psu_watts;         /* 0 when renting */
  GPtrArray *reasons;         /* char *: how each figure was reached */
} HrHostAdvice;

typedef struct {
  HrAdviceInputs  inputs;
  /* Best first: the cards within the budget that run the scenario, ranked;
   * when none does, the best within the budget at the micro-batch it runs,
   * then those over it, the cheapest first. */
  GPtrArray      *recommendations;  /* HrRecommendation */
  const char     *throughput;       /* what `tflops` counts: "BF16", "TF32", "FP32" */
  gboolean        none_within_budget; /* a budget is given and no card within it runs it */
  HrHostAdvice    host;             /* for the first recommendation */
  GPtrArray      *notes;            /* char * */
  /* The objective: the cheapest per finished run, or for a world model
   * bought, memory first, then speed (the DreamerV3 GPU guide). */
  gboolean        memory_first;
  char           *order;            /* the objective in words, for a heading */
  /* How the times are reached. */
  double          step_flops;       /* model FLOPs of one optimizer step */
  gboolean        flops_lower_bound;
  guint           steps;            /* in a run */
  double          utilisation;      /* of the dense peak */
  const char     *utilisation_source;
} HrAdvice;

/* The GPUs of @catalog that fit @scenario with its reserve (sharded or one
 * run per card where one card does not do), costed for @inputs and ranked;
 * at most @max of them (0: all). */
HrAdvice   *hr_advice_new              (const HrScenario     *scenario,
                                        HrCatalog            *catalog,
                                        const HrAdviceInputs *inputs,
                                        guint                 max);
/* The same, with every card's fit calibrated by @calibration (NULL: not). */
HrAdvice   *hr_advice_new_calibrated   (const HrScenario     *scenario,
                                        HrCatalog            *catalog,
                                        const HrAdviceInputs *inputs,
                                        guint                 max,
                                        const HrCalibration  *calibration);
void        hr_advice_free             (HrAdvice             *advice);
void        hr_recommendation_free     (HrRecommendation     *rec);

/* Cost of electricity for @watts over a month of @hours_per_day. */
double      hr_cost_power_per_month    (double watts,
                                        double hours_per_day,
                                        double usd_per_kwh);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrAdvisor, hr_advisor_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrAdvisorWalk, hr_advisor_walk_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrAdvice, hr_advice_free)

G_END_DECLS
