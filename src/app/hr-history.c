/* hr-history.c: the undo and redo of a scenario's edits
 *
 * Every edit of the scenario (a setting, the model, the GPUs compared)
 * first hands the history a copy of the state it changes.  Undo gives
 * the copy back and keeps the state it replaces for redo.  Steps of the
 * same setting within a second (a spin button held down, a value typed
 * digit by digit) are one edit.  Each state shown has a serial number;
 * the history is modified while the state shown is not the one last
 * saved, so undoing back to it clears the mark.
 *
 * The history knows no window: it takes states and gives them back, and
 * says through its properties (can-undo, can-redo, modified) what the
 * window's actions and title show.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-history"

#include "hr-history.h"

/* Steps of one setting closer than this are one edit. */
#define MERGE_USEC (1 * G_USEC_PER_SEC)
/* Undo keeps this many edits. */
#define MAX_UNDO 200

typedef struct {
  HrHistoryState  state;
  guint64         serial;   /* the serial the state had when shown */
  const char     *key;      /* interned: the setting the edit after it changed; NULL: another */
  gint64          time;     /* when that edit last went on */
} Entry;

struct _HrHistory
{
  GObject    parent_instance;

  GPtrArray *undo_stack;      /* Entry */
  GPtrArray *redo_stack;      /* Entry */
  guint64    serial;          /* the state shown */
  guint64    saved_serial;    /* the state last saved or opened */
  guint64    next_serial;

  /* what the properties last said, to notify on change only */
  gboolean   can_undo;
  gboolean   can_redo;
  gboolean   modified;
};

G_DEFINE_FINAL_TYPE (HrHistory, hr_history, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CAN_UNDO,
  PROP_CAN_REDO,
  PROP_MODIFIED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

void
hr_history_state_free (HrHistoryState *state)
{
  if (state == NULL)
    return;
  hr_scenario_free (state->scenario);
  g_strfreev (state->gpu_ids);
  g_free (state);
}

static GStrv
dup_ids (GPtrArray *gpu_ids)
{
  GStrv ids = g_new0 (char *, gpu_ids->len + 1);

  for (guint i = 0; i < gpu_ids->len; i++)
    ids[i] = g_strdup (g_ptr_array_index (gpu_ids, i));
  return ids;
}

static Entry *
entry_new (const HrScenario *scenario,
           GPtrArray        *gpu_ids,
           guint64           serial,
           const char       *key)
{
  Entry *entry = g_new0 (Entry, 1);

  entry->state.scenario = hr_scenario_copy (scenario);
  entry->state.gpu_ids = dup_ids (gpu_ids);
  entry->serial = serial;
  entry->key = key;
  entry->time = g_get_monotonic_time ();
  return entry;
}

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  hr_scenario_free (entry->state.scenario);
  g_strfreev (entry->state.gpu_ids);
  g_free (entry);
}

/* The properties from the stacks and serials, notified when they change. */
static void
update (HrHistory *self)
{
  gboolean can_undo = self->undo_stack->len > 0;
  gboolean can_redo = self->redo_stack->len > 0;
  gboolean modified = self->serial != self->saved_serial;

  g_object_freeze_notify (G_OBJECT (self));
  if (can_undo != self->can_undo)
    {
      self->can_undo = can_undo;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
    }
  if (can_redo != self->can_redo)
    {
      self->can_redo = can_redo;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
    }
  if (modified != self->modified)
    {
      self->modified = modified;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

void
hr_history_reset (HrHistory *self)
{
  g_return_if_fail (HR_IS_HISTORY (self));

  g_ptr_array_set_size (self->undo_stack, 0);
  g_ptr_array_set_size (self->redo_stack, 0);
  self->serial = ++self->next_serial;
  self->saved_serial = self->serial;
  update (self);
}

void
hr_history_begin_edit (HrHistory        *self,
                       const char       *key,
                       const HrScenario *scenario,
                       GPtrArray        *gpu_ids)
{
  Entry *top;
  gint64 now = g_get_monotonic_time ();
  const char *interned = key != NULL ? g_intern_string (key) : NULL;

  g_return_if_fail (HR_IS_HISTORY (self));
  g_return_if_fail (scenario != NULL && gpu_ids != NULL);

  top = self->undo_stack->len > 0
          ? g_ptr_array_index (self->undo_stack, self->undo_stack->len - 1)
          : NULL;
  g_ptr_array_set_size (self->redo_stack, 0);
  /* Another step of the same setting, straight after the last one and
   * with no save between: the edit goes on (its state before stays the
   * one undo returns to). */
  if (interned != NULL && top != NULL && top->key == interned && now - top->time < MERGE_USEC
      && self->serial != self->saved_serial)
    top->time = now;
  else
    {
      g_ptr_array_add (self->undo_stack, entry_new (scenario, gpu_ids, self->serial, interned));
      if (self->undo_stack->len > MAX_UNDO)
        g_ptr_array_remove_index (self->undo_stack, 0);
    }
  self->serial = ++self->next_serial;
  update (self);
}

static HrHistoryState *
step (HrHistory        *self,
      GPtrArray        *from,
      GPtrArray        *to,
      const HrScenario *scenario,
      GPtrArray        *gpu_ids)
{
  Entry *entry;
  HrHistoryState *state;

  g_assert (scenario != NULL && gpu_ids != NULL);

  if (from->len == 0)
    return NULL;
  entry = g_ptr_array_steal_index (from, from->len - 1);
  g_ptr_array_add (to, entry_new (scenario, gpu_ids, self->serial, entry->key));
  self->serial = entry->serial;
  state = g_new0 (HrHistoryState, 1);
  state->scenario = g_steal_pointer (&entry->state.scenario);
  state->gpu_ids = g_steal_pointer (&entry->state.gpu_ids);
  entry_free (entry);
  update (self);
  return state;
}

HrHistoryState *
hr_history_undo (HrHistory        *self,
                 const HrScenario *scenario,
                 GPtrArray        *gpu_ids)
{
  g_return_val_if_fail (HR_IS_HISTORY (self), NULL);
  g_return_val_if_fail (scenario != NULL && gpu_ids != NULL, NULL);

  return step (self, self->undo_stack, self->redo_stack, scenario, gpu_ids);
}

HrHistoryState *
hr_history_redo (HrHistory        *self,
                 const HrScenario *scenario,
                 GPtrArray        *gpu_ids)
{
  g_return_val_if_fail (HR_IS_HISTORY (self), NULL);
  g_return_val_if_fail (scenario != NULL && gpu_ids != NULL, NULL);

  return step (self, self->redo_stack, self->undo_stack, scenario, gpu_ids);
}

void
hr_history_mark_saved (HrHistory *self)
{
  g_return_if_fail (HR_IS_HISTORY (self));

  self->saved_serial = self->serial;
  update (self);
}

void
hr_history_mark_unsaved (HrHistory *self)
{
  g_return_if_fail (HR_IS_HISTORY (self));

  /* Serials start at 1: no state shown has 0. */
  self->saved_serial = 0;
  update (self);
}

gboolean
hr_history_get_can_undo (HrHistory *self)
{
  g_return_val_if_fail (HR_IS_HISTORY (self), FALSE);
  return self->can_undo;
}

gboolean
hr_history_get_can_redo (HrHistory *self)
{
  g_return_val_if_fail (HR_IS_HISTORY (self), FALSE);
  return self->can_redo;
}

gboolean
hr_history_get_modified (HrHistory *self)
{
  g_return_val_if_fail (HR_IS_HISTORY (self), FALSE);
  return self->modified;
}

static void
hr_history_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  HrHistory *self = HR_HISTORY (object);

  switch (prop_id)
    {
    case PROP_CAN_UNDO:
      g_value_set_boolean (value, self->can_undo);
      break;
    case PROP_CAN_REDO:
      g_value_set_boolean (value, self->can_redo);
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hr_history_finalize (GObject *object)
{
  HrHistory *self = HR_HISTORY (object);

  g_clear_pointer (&self->undo_stack, g_ptr_array_unref);
  g_clear_pointer (&self->redo_stack, g_ptr_array_unref);
  G_OBJECT_CLASS (hr_history_parent_class)->finalize (object);
}

static void
hr_history_class_init (HrHistoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = hr_history_get_property;
  object_class->finalize = hr_history_finalize;

  properties[PROP_CAN_UNDO] =
    g_param_spec_boolean ("can-undo", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CAN_REDO] =
    g_param_spec_boolean ("can-redo", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
hr_history_init (HrHistory *self)
{
  self->undo_stack = g_ptr_array_new_with_free_func (entry_free);
  self->redo_stack = g_ptr_array_new_with_free_func (entry_free);
  self->serial = self->saved_serial = self->next_serial = 1;
}

HrHistory *
hr_history_new (void)
{
  return g_object_new (HR_TYPE_HISTORY, NULL);
}
