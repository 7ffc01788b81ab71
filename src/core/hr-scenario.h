/* hr-scenario.h: the one input of every estimate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-catalog.h"

G_BEGIN_DECLS

typedef struct {
  guint64  steps;
  guint    obs_shape[8];
  guint    obs_rank;
  HrDtype  obs_dtype;
} HrReplay;

/* A scenario exactly as SCENARIO.md defines it, with every default already
 * applied.  The `*_set` flags remember what the file said, so that saving
 * writes back what the user chose and nothing more. */
typedef struct {
  char           *name;
  HrModel        *model;
  gboolean        model_inline;
  HrTask          task;
  HrMethod        method;
  gboolean        trainable_params_set;
  guint64         trainable_params;
  gboolean        lora_set;
  guint           lora_rank;
  HrLoraTargets   lora_targets;
  gboolean        weights_dtype_set;
  HrDtype         weights_dtype;
  HrCompute       compute;
  gboolean        optimizer_set;
  HrOptimizer     optimizer;
  guint           micro_batch;
  guint           grad_accum;
  gboolean        seq_len_set;
  guint           seq_len;
  gboolean        image_size_set;
  guint           image_width;
  guint           image_height;
  HrRecompute     recompute;
  HrLoss          loss;
  HrAttention     attention;
  guint           gpus;
  HrSharding      sharding;
  HrOffload       offload;
  gboolean        framework_set;
  HrFramework     framework;
  gboolean        jax_preallocate;
  double          jax_mem_fraction;   /* XLA_PYTHON_CLIENT_MEM_FRACTION */
  gboolean        context_len_set;
  guint           context_len;
  HrDtype         kv_dtype;
  gboolean        quant_compute_dtype_set;
  HrDtype         quant_compute_dtype;
  HrGpu          *gpu;            /* nullable */
  gboolean        gpu_inline;
  double          reserve;
  gboolean        has_replay;
  HrReplay        replay;
} HrScenario;

#define HR_SCENARIO_DEFAULT_RESERVE 0.10

HrScenario *hr_scenario_new_for_model (const HrModel *model);
HrScenario *hr_scenario_copy          (const HrScenario *scenario);
void        hr_scenario_free          (HrScenario       *scenario);

/* Parses and validates a scenario; errors are "FILE:LINE:COL: message". */
HrScenario *hr_scenario_new_from_doc  (HrJsonDoc  *doc,
                                       HrCatalog  *catalog,
                                       GError    **error);
HrScenario *hr_scenario_load          (const char *path,
                                       HrCatalog  *catalog,
                                       GError    **error);

/* Applies "key=value" (as `headroom-cli --set` takes it) to a parsed
 * document before it becomes a scenario.  The value is JSON when it parses
 * as JSON, a string otherwise; "lora.rank=8" sets a nested key. */
gboolean    hr_json_doc_apply_set     (HrJsonDoc  *doc,
                                       const char *assignment,
                                       GError    **error);

/* The scenario as JSON (the format SCENARIO.md gives), for Save As. */
JsonNode   *hr_scenario_to_json       (const HrScenario *scenario);
gboolean    hr_scenario_save          (const HrScenario *scenario,
                                       const char       *path,
                                       GError          **error);

/* Recomputes the values that follow from others (the weights dtype from the
 * method and precision, the optimizer from the task, the framework from the
 * model) wherever the scenario does not set them itself: call it after
 * changing a field in place. */
void        hr_scenario_resolve         (HrScenario       *scenario);

/* Resolved values that depend on the model. */
guint       hr_scenario_get_seq_len     (const HrScenario *scenario);
void        hr_scenario_get_image_size  (const HrScenario *scenario,
                                         guint            *width,
                                         guint            *height);
guint       hr_scenario_get_context_len (const HrScenario *scenario);
gboolean    hr_scenario_is_training     (const HrScenario *scenario);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrScenario, hr_scenario_free)

G_END_DECLS
