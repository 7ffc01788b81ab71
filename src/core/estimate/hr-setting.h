/* hr-setting.h: the scenario's settings as data
 *
 * One table says, for every setting a user changes (a drop-down, a number,
 * a switch), its scenario key, its kind, its title and subtitle, when it
 * applies to a scenario, and how to read and write it on an HrScenario.
 * The window builds its settings rows from it, the levers apply their
 * changes through it, and a key of one of the four plain kinds can be read
 * from and written to the scenario JSON by it, so that a new key is one
 * entry of the table (and its field in HrScenario).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "hr-reader.h"
#include "hr-scenario.h"

G_BEGIN_DECLS

typedef enum {
  HR_SETTING_ENUM,       /* an int-sized enumeration, named by an HrEnumName table */
  HR_SETTING_UNSIGNED,   /* a guint */
  HR_SETTING_DOUBLE,     /* a double */
  HR_SETTING_BOOLEAN,    /* a gboolean */
  HR_SETTING_SIZE,       /* two guints, width then height (image_size) */
} HrSettingKind;

/* Where the window shows a setting. */
typedef enum {
  HR_SETTING_GROUP_RUN,     /* "Run": what is trained, and how */
  HR_SETTING_GROUP_SCALE,   /* "GPUs and Framework" */
} HrSettingGroup;

/* An enumeration value as a drop-down shows it; tables end with a NULL
 * label. */
typedef struct {
  int         value;
  const char *label;   /* N_() marked, translated when shown */
} HrSettingChoice;

typedef struct _HrSetting HrSetting;

typedef gboolean (*HrSettingApplies) (const HrScenario *scenario);
typedef double   (*HrSettingGetFunc) (const HrSetting  *setting,
                                      const HrScenario *scenario);
typedef void     (*HrSettingSetFunc) (const HrSetting  *setting,
                                      HrScenario       *scenario,
                                      double            value);

struct _HrSetting {
  const char            *key;        /* the scenario key, as SCENARIO.md writes it */
  HrSettingKind          kind;
  HrSettingGroup         group;
  const char            *title;      /* N_() */
  const char            *subtitle;   /* N_(), or NULL */

  /* ENUM: the nicks the JSON spells, and the drop-down's choices in the
   * order it lists them. */
  const HrEnumName      *names;
  const HrSettingChoice *choices;

  /* UNSIGNED and DOUBLE: the range a scenario accepts (stored units), the
   * spin button's steps and digits (shown units), and the factor between
   * stored and shown values (the reserve is stored as a fraction and shown
   * as a percent: 100).  0 means 1. */
  double                 min;
  double                 max;
  double                 step;
  double                 page;
  guint                  digits;
  double                 display_scale;

  /* The value's place in HrScenario (G_STRUCT_OFFSET), and that of the
   * gboolean remembering that the file set it (-1 when there is none). */
  gssize                 offset;
  gssize                 set_offset;

  /* When it changes the estimate of @scenario; NULL: always. */
  HrSettingApplies       applies;
  /* Custom accessors where the value is resolved or other values follow
   * from it; NULL: read and write at @offset (and raise @set_offset). */
  HrSettingGetFunc       get;
  HrSettingSetFunc       set;

  /* The JSON key is read and written by the table (hr_settings_read(),
   * hr_settings_write()) rather than by hr-scenario.c itself, with
   * @default_value when the file does not give it. */
  gboolean               json;
  double                 default_value;
};

/* Every setting, in the order the window shows them; @n_settings gets the
 * count. */
const HrSetting *hr_settings_get_all       (guint            *n_settings);
const HrSetting *hr_setting_find           (const char       *key);

gboolean    hr_setting_applies       (const HrSetting  *setting,
                                      const HrScenario *scenario);
/* The value (an enumeration's value, a count, a fraction, 0 or 1); for a
 * SIZE, the width. */
double      hr_setting_get           (const HrSetting  *setting,
                                      const HrScenario *scenario);
/* Sets the value (clamped to the setting's range; an ENUM value outside
 * its table is refused), marks it as the user's, and resolves what follows
 * from it (hr_scenario_resolve()). */
void        hr_setting_set           (const HrSetting  *setting,
                                      HrScenario       *scenario,
                                      double            value);
void        hr_setting_get_size      (const HrSetting  *setting,
                                      const HrScenario *scenario,
                                      guint            *width,
                                      guint            *height);
void        hr_setting_set_size      (const HrSetting  *setting,
                                      HrScenario       *scenario,
                                      guint             width,
                                      guint             height);
/* "key=value" as `headroom-cli --set` takes it, for @value. */
char       *hr_setting_format_set    (const HrSetting  *setting,
                                      double            value);
/* The choice's index in the drop-down, and back. */
guint       hr_setting_choice_index  (const HrSetting  *setting,
                                      int               value);
guint       hr_setting_n_choices     (const HrSetting  *setting);
/* The translated label of @value. */
const char *hr_setting_choice_label  (const HrSetting  *setting,
                                      int               value);

/* The JSON side, for hr-scenario.c: defaults of the table's own keys, the
 * keys themselves (appended to @keys, for the unknown-key check), reading
 * them from a scenario object and writing those that differ from their
 * default or that the file set. */
void        hr_settings_apply_defaults (HrScenario      *scenario);
void        hr_settings_add_json_keys  (GPtrArray       *keys);
gboolean    hr_settings_read           (HrReader        *reader,
                                        HrScenario      *scenario);
void        hr_settings_write          (JsonBuilder     *builder,
                                        const HrScenario *scenario);

/* Predicates the table uses for `applies`, for other tables too. */
gboolean    hr_scenario_has_transformer      (const HrScenario *scenario);
gboolean    hr_scenario_reads_seq_len        (const HrScenario *scenario);
gboolean    hr_scenario_reads_image_size     (const HrScenario *scenario);
gboolean    hr_scenario_has_vocabulary_loss  (const HrScenario *scenario);
gboolean    hr_scenario_has_frozen_default   (const HrScenario *scenario);

/* A model change (hr_scenario_change_model()) keeps every setting that
 * still applies to the new model; what it could not keep, and why. */
typedef enum {
  HR_SETTING_RESET_NOT_APPLICABLE,   /* applied to the old model, not to the new */
  HR_SETTING_RESET_MISSING_MODULES,  /* lora.targets lists modules the new model lacks */
  HR_SETTING_RESET_MODEL_RECIPE,     /* the new model names its own (method, compute) */
} HrSettingResetWhy;

typedef struct {
  const HrSetting   *setting;
  HrSettingResetWhy  why;
  guint              modules;   /* MISSING_MODULES: the HrModule mask lacking */
} HrSettingReset;

/* @scenario with @model in place of its own: its name, GPUs, levers and
 * every setting that still applies stay (and the keys Headroom does not
 * read); a setting that stops applying takes the new model's default.
 * What was reset is appended to @resets (HrSettingReset; nullable). */
HrScenario *hr_scenario_change_model (const HrScenario *scenario,
                                      const HrModel    *model,
                                      GArray           *resets);

/* The modules of @modules (an HrModule mask) that no transformer part of
 * @model has (a gate on a non-gated MLP, an embedding without a
 * vocabulary); hr-estimate-peft.c. */
guint       hr_model_missing_lora_modules    (const HrModel    *model,
                                              guint             modules);

G_END_DECLS
