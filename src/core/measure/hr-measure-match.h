/* hr-measure-match.h: whether a measurement belongs to a scenario
 *
 * A probe CSV's header says what it measured (model, framework, precision,
 * GPU); an nvidia-smi log names its GPU.  Each is compared with the
 * scenario's, so that points measured on another setup are never drawn or
 * used as if they were this one's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-measure.h"
#include "hr-scenario.h"

G_BEGIN_DECLS

typedef enum {
  HR_MATCH_SAME,
  HR_MATCH_DIFFERENT,
  HR_MATCH_UNKNOWN,      /* the file does not say, or the scenario has none (no GPU) */
} HrMatchState;

typedef enum {
  HR_MATCH_MODEL,
  HR_MATCH_FRAMEWORK,
  HR_MATCH_PRECISION,
  HR_MATCH_GPU,
  HR_MATCH_N_ITEMS
} HrMatchItem;

extern const HrEnumName hr_match_item_names[];
extern const HrEnumName hr_match_state_names[];

typedef struct {
  HrMatchState  state[HR_MATCH_N_ITEMS];
  char         *measured[HR_MATCH_N_ITEMS];   /* as the file says it; NULL when it does not */
  char         *scenario[HR_MATCH_N_ITEMS];   /* the scenario's; NULL when it has none */
  gboolean      differs;       /* some item is known to differ */
  /* The points may calibrate the scenario: model, framework and precision
   * do not differ (a measurement made on another card still calibrates:
   * the calibration is carried to every card). */
  gboolean      can_calibrate;
  gboolean      known;         /* the file says something about what it measured */
  char         *summary;       /* one sentence, translated */
  char         *differing;     /* what differs, "model, GPU"; NULL when nothing does */
} HrMeasureMatch;

HrMeasureMatch *hr_measure_match_new  (const HrMeasurement *measurement,
                                       const HrScenario    *scenario);
void            hr_measure_match_free (HrMeasureMatch      *match);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrMeasureMatch, hr_measure_match_free)

G_END_DECLS
