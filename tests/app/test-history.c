/* test-history.c: the undo history, the unsaved state on disk and the
 * measurements, without a window
 *
 * Built from hr-history.c, hr-recovery.c and hr-measurements.c with the
 * core alone (no GTK on the compiler's path): none knows the window, and
 * none needs a display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "hr-history.h"
#include "hr-measurements.h"
#include "hr-recovery.h"

static char *tmp_dir;

typedef struct {
  guint can_undo;
  guint can_redo;
  guint modified;
} Notified;

static void
on_notify_cb (GObject    *object,
              GParamSpec *pspec,
              Notified   *notified)
{
  if (g_str_equal (pspec->name, "can-undo"))
    notified->can_undo++;
  else if (g_str_equal (pspec->name, "can-redo"))
    notified->can_redo++;
  else if (g_str_equal (pspec->name, "modified"))
    notified->modified++;
}

static HrScenario *
scenario_for (const char *model_id)
{
  const HrModel *model = hr_catalog_find_model (hr_catalog_get_default (), model_id);

  g_assert_nonnull (model);
  return hr_scenario_new_for_model (model);
}

static GPtrArray *
ids_new (const char *first,
         ...)
{
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);
  va_list args;

  va_start (args, first);
  for (const char *id = first; id != NULL; id = va_arg (args, const char *))
    g_ptr_array_add (ids, g_strdup (id));
  va_end (args);
  return ids;
}

/* Edits, undone and redone: the states come back in order, with the
 * GPUs compared, and the properties follow (notified on change only). */
static void
test_undo_redo (void)
{
  g_autoptr(HrHistory) history = hr_history_new ();
  g_autoptr(HrScenario) shown = scenario_for ("llama-3.1-8b");
  g_autoptr(GPtrArray) ids = ids_new ("rtx-4090", "a100-80gb", NULL);
  g_autoptr(HrHistoryState) state = NULL;
  Notified notified = { 0 };

  g_signal_connect (history, "notify", G_CALLBACK (on_notify_cb), &notified);
  hr_history_reset (history);
  g_assert_false (hr_history_get_can_undo (history));
  g_assert_false (hr_history_get_can_redo (history));
  g_assert_false (hr_history_get_modified (history));
  g_assert_null (hr_history_undo (history, shown, ids));
  g_assert_null (hr_history_redo (history, shown, ids));
  g_assert_cmpuint (notified.can_undo + notified.can_redo + notified.modified, ==, 0);

  /* Edit 1: the micro-batch 1 → 4. */
  g_assert_cmpuint (shown->micro_batch, !=, 4);
  hr_history_begin_edit (history, "micro_batch", shown, ids);
  shown->micro_batch = 4;
  g_assert_true (hr_history_get_can_undo (history));
  g_assert_true (hr_history_get_modified (history));
  g_assert_cmpuint (notified.can_undo, ==, 1);
  g_assert_cmpuint (notified.modified, ==, 1);

  /* Edit 2 (another kind, not merged): a card less. */
  hr_history_begin_edit (history, NULL, shown, ids);
  g_ptr_array_remove_index (ids, 1);
  g_assert_cmpuint (notified.can_undo, ==, 1);   /* still TRUE: no notify */

  /* Undo 2: the card comes back. */
  state = hr_history_undo (history, shown, ids);
  g_assert_nonnull (state);
  g_assert_cmpuint (g_strv_length (state->gpu_ids), ==, 2);
  g_assert_cmpstr (state->gpu_ids[1], ==, "a100-80gb");
  g_assert_cmpuint (state->scenario->micro_batch, ==, 4);
  g_assert_true (hr_history_get_can_redo (history));
  g_assert_true (hr_history_get_modified (history));
  hr_scenario_free (shown);
  shown = g_steal_pointer (&state->scenario);
  g_ptr_array_add (ids, g_strdup ("a100-80gb"));
  g_clear_pointer (&state, hr_history_state_free);

  /* Undo 1: back at what was opened, which is not modified. */
  state = hr_history_undo (history, shown, ids);
  g_assert_nonnull (state);
  g_assert_cmpuint (state->scenario->micro_batch, !=, 4);
  g_assert_false (hr_history_get_can_undo (history));
  g_assert_false (hr_history_get_modified (history));
  g_assert_cmpuint (notified.modified, ==, 2);
  g_assert_null (hr_history_undo (history, state->scenario, ids));

  /* Redo 1: the micro-batch 4 again, modified again. */
  {
    g_autoptr(HrHistoryState) again = hr_history_redo (history, state->scenario, ids);

    g_assert_nonnull (again);
    g_assert_cmpuint (again->scenario->micro_batch, ==, 4);
    g_assert_true (hr_history_get_modified (history));
    g_assert_true (hr_history_get_can_undo (history));
    g_assert_true (hr_history_get_can_redo (history));   /* edit 2 is still there */
    /* A new edit forgets what could be redone. */
    hr_history_begin_edit (history, "sequence_length", again->scenario, ids);
    g_assert_false (hr_history_get_can_redo (history));
  }

  /* Opening another scenario: nothing to undo, and not modified. */
  hr_history_reset (history);
  g_assert_false (hr_history_get_can_undo (history));
  g_assert_false (hr_history_get_can_redo (history));
  g_assert_false (hr_history_get_modified (history));
}

/* Steps of one setting close together are one edit; another setting, a
 * save between, or a second's pause makes a new one. */
static void
test_merge (void)
{
  g_autoptr(HrHistory) history = hr_history_new ();
  g_autoptr(HrScenario) shown = scenario_for ("llama-3.1-8b");
  g_autoptr(GPtrArray) ids = ids_new ("rtx-4090", NULL);
  guint undos = 0;

  hr_history_reset (history);
  for (guint b = 2; b <= 5; b++)
    {
      hr_history_begin_edit (history, "micro_batch", shown, ids);
      shown->micro_batch = b;
    }
  /* (a key that is another string with the same text is the same key) */
  {
    g_autofree char *key = g_strdup ("micro_batch");

    hr_history_begin_edit (history, key, shown, ids);
    shown->micro_batch = 6;
  }
  hr_history_begin_edit (history, "sequence_length", shown, ids);
  shown->seq_len = 1024;
  hr_history_mark_saved (history);
  g_assert_false (hr_history_get_modified (history));
  hr_history_begin_edit (history, "sequence_length", shown, ids);   /* after a save: new */
  shown->seq_len = 2048;
  g_usleep (1100 * 1000);
  hr_history_begin_edit (history, "sequence_length", shown, ids);   /* after a pause: new */
  shown->seq_len = 4096;

  for (;;)
    {
      g_autoptr(HrHistoryState) state = hr_history_undo (history, shown, ids);

      if (state == NULL)
        break;
      undos++;
      hr_scenario_free (shown);
      shown = g_steal_pointer (&state->scenario);
      if (undos == 1)
        g_assert_cmpuint (shown->seq_len, ==, 2048);
      else if (undos == 2)
        {
          g_assert_cmpuint (shown->seq_len, ==, 1024);
          g_assert_false (hr_history_get_modified (history));   /* the state saved */
        }
      else if (undos == 3)
        {
          g_assert_cmpuint (shown->micro_batch, ==, 6);
          g_assert_cmpuint (shown->seq_len, !=, 1024);
        }
    }
  /* The five micro-batch steps were one edit: one undo took them back. */
  g_assert_cmpuint (undos, ==, 4);
  g_assert_cmpuint (shown->micro_batch, ==, 1);
  g_assert_true (hr_history_get_modified (history));   /* not the state saved */
}

/* A state restored after a crash is unsaved work, whatever was saved. */
static void
test_mark_unsaved (void)
{
  g_autoptr(HrHistory) history = hr_history_new ();

  hr_history_reset (history);
  g_assert_false (hr_history_get_modified (history));
  hr_history_mark_unsaved (history);
  g_assert_true (hr_history_get_modified (history));
  g_assert_false (hr_history_get_can_undo (history));
  hr_history_mark_saved (history);
  g_assert_false (hr_history_get_modified (history));
}

/* Undo keeps its last 200 edits. */
static void
test_limit (void)
{
  g_autoptr(HrHistory) history = hr_history_new ();
  g_autoptr(HrScenario) shown = scenario_for ("llama-3.1-8b");
  g_autoptr(GPtrArray) ids = ids_new ("rtx-4090", NULL);
  guint undos = 0;
  HrHistoryState *state;

  hr_history_reset (history);
  for (guint i = 0; i < 250; i++)
    {
      hr_history_begin_edit (history, NULL, shown, ids);
      shown->micro_batch = i + 1;
    }
  while ((state = hr_history_undo (history, shown, ids)) != NULL)
    {
      hr_scenario_free (shown);
      shown = g_steal_pointer (&state->scenario);
      hr_history_state_free (state);
      undos++;
    }
  g_assert_cmpuint (undos, ==, 200);
  g_assert_cmpuint (shown->micro_batch, ==, 50);
}

static char *
contents_cb (gpointer user_data)
{
  return g_strdup (user_data);
}

/* The unsaved state, written and read back: the scenario, its file and
 * the GPUs compared (less the ones the catalog no longer has). */
static void
test_recovery_round_trip (void)
{
  g_autofree char *path = g_build_filename (tmp_dir, "sub", "unsaved.json", NULL);
  g_autoptr(HrScenario) scenario = scenario_for ("gr00t-n1.7");
  g_autoptr(GPtrArray) ids = ids_new ("h100-sxm", "no-such-card", "rtx-3090", NULL);
  g_autoptr(GFile) file = g_file_new_for_path ("/somewhere/run.json");
  g_autofree char *contents = NULL;
  g_autoptr(HrRecovery) recovery = NULL;
  g_autoptr(HrScenario) back = NULL;
  g_autoptr(GFile) back_file = NULL;
  g_autoptr(GPtrArray) back_ids = NULL;
  g_autoptr(GError) error = NULL;

  scenario->micro_batch = 7;
  contents = hr_recovery_format (scenario, file, ids);
  recovery = hr_recovery_new (path, contents_cb, contents);
  g_assert_false (hr_recovery_exists (recovery));
  g_assert_true (hr_recovery_write_now (recovery, &error));
  g_assert_no_error (error);
  g_assert_true (hr_recovery_exists (recovery));

  back = hr_recovery_read (path, hr_catalog_get_default (), &back_file, &back_ids, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  g_assert_cmpstr (back->model->id, ==, "gr00t-n1.7");
  g_assert_cmpuint (back->micro_batch, ==, 7);
  g_assert_nonnull (back_file);
  g_assert_true (g_file_equal (back_file, file));
  g_assert_nonnull (back_ids);
  g_assert_cmpuint (back_ids->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (back_ids, 0), ==, "h100-sxm");
  g_assert_cmpstr (g_ptr_array_index (back_ids, 1), ==, "rtx-3090");

  /* Only an enabled keeper removes it. */
  hr_recovery_discard (recovery);
  g_assert_true (hr_recovery_exists (recovery));
  hr_recovery_set_enabled (recovery, TRUE);
  hr_recovery_discard (recovery);
  g_assert_false (hr_recovery_exists (recovery));
}

/* A plain scenario file reads as one with no file and no comparison; a
 * broken one fails with its name in the message. */
static void
test_recovery_plain_and_broken (void)
{
  g_autofree char *plain = g_build_filename (g_getenv ("HEADROOM_EXAMPLES_DIR"),
                                             "smolvla-4090.json", NULL);
  g_autofree char *broken = g_build_filename (tmp_dir, "broken.json", NULL);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GPtrArray) ids = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HrScenario) scenario = NULL;

  scenario = hr_recovery_read (plain, hr_catalog_get_default (), &file, &ids, &error);
  g_assert_no_error (error);
  g_assert_nonnull (scenario);
  g_assert_null (file);
  g_assert_null (ids);

  g_assert_true (g_file_set_contents (broken, "{ \"model\": ", -1, NULL));
  g_assert_null (hr_recovery_read (broken, hr_catalog_get_default (), &file, &ids, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "broken.json"));
}

static HrMeasurement *
load_measurement (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("HEADROOM_MEASURE_DIR"), name, NULL);
  HrMeasureOptions options = { 0 };
  g_autoptr(GError) error = NULL;
  HrMeasurement *measurement = hr_measurement_load_file (path, &options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (measurement);
  return measurement;
}

static void
on_changed_cb (HrMeasurements *measurements,
               guint          *n)
{
  (*n)++;
}

static void
on_n_files_cb (HrMeasurements *measurements,
               GParamSpec     *pspec,
               guint          *n)
{
  (*n)++;
}

/* Files added, replaced, removed, set aside and kept: each change says
 * "changed", and the counts follow. */
static void
test_measurements (void)
{
  g_autoptr(HrMeasurements) m = hr_measurements_new ();
  HrMeasurementFile *a, *b, *c;
  guint changes = 0;
  guint n_files = 0;
  guint n_use = 0;

  g_signal_connect (m, "changed", G_CALLBACK (on_changed_cb), &changes);
  g_signal_connect (m, "notify::n-files", G_CALLBACK (on_n_files_cb), &n_files);
  g_signal_connect (m, "notify::use-calibration", G_CALLBACK (on_n_files_cb), &n_use);
  g_assert_cmpuint (hr_measurements_get_n_files (m), ==, 0);

  a = hr_measurements_add (m, load_measurement ("nvidia-smi.csv"), "/x/nvidia-smi.csv", NULL);
  b = hr_measurements_add (m, load_measurement ("probe-torch.csv"), "/x/probe-torch.csv", NULL);
  g_assert_cmpuint (changes, ==, 2);
  g_assert_cmpuint (n_files, ==, 2);
  g_assert_cmpuint (hr_measurements_get_n_files (m), ==, 2);
  g_assert_true (hr_measurements_get_files (m)->pdata[0] == a);

  /* Read again with another mapping: the old one goes, the new is last. */
  c = hr_measurements_add (m, load_measurement ("nvidia-smi.csv"), "/x/nvidia-smi.csv", a);
  g_assert_cmpuint (hr_measurements_get_n_files (m), ==, 2);
  g_assert_true (hr_measurements_get_files (m)->pdata[0] == b);
  g_assert_true (hr_measurements_get_files (m)->pdata[1] == c);
  g_assert_cmpuint (n_files, ==, 2);   /* the count did not change */
  g_assert_cmpuint (changes, ==, 3);

  /* Another scenario: set aside, then kept after one imported since. */
  g_assert_cmpuint (hr_measurements_set_aside (m), ==, 2);
  g_assert_cmpuint (hr_measurements_get_n_files (m), ==, 0);
  g_assert_cmpuint (hr_measurements_get_n_set_aside (m), ==, 2);
  a = hr_measurements_add (m, load_measurement ("probe-seq.csv"), "/x/probe-seq.csv", NULL);
  hr_measurements_keep (m);
  g_assert_cmpuint (hr_measurements_get_n_set_aside (m), ==, 0);
  g_assert_cmpuint (hr_measurements_get_n_files (m), ==, 3);
  g_assert_true (hr_measurements_get_files (m)->pdata[0] == a);
  g_assert_true (hr_measurements_get_files (m)->pdata[2] == c);

  /* A second set aside forgets the first; nothing to set aside says
   * nothing. */
  hr_measurements_set_aside (m);
  g_assert_cmpuint (hr_measurements_set_aside (m), ==, 0);
  g_assert_cmpuint (hr_measurements_get_n_set_aside (m), ==, 0);
  changes = 0;
  g_assert_cmpuint (hr_measurements_set_aside (m), ==, 0);
  g_assert_cmpuint (changes, ==, 0);

  g_assert_false (hr_measurements_contains (m, NULL));
  b = hr_measurements_add (m, load_measurement ("probe-torch.csv"), "/x/probe-torch.csv", NULL);
  g_assert_true (hr_measurements_remove (m, b));
  g_assert_cmpuint (hr_measurements_get_n_files (m), ==, 0);

  /* The calibration switch: notified on change only. */
  g_assert_false (hr_measurements_get_use_calibration (m));
  hr_measurements_set_use_calibration (m, TRUE);
  hr_measurements_set_use_calibration (m, TRUE);
  g_assert_true (hr_measurements_get_use_calibration (m));
  g_assert_cmpuint (n_use, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("hr-history-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/history/undo-redo", test_undo_redo);
  g_test_add_func ("/history/merge", test_merge);
  g_test_add_func ("/history/mark-unsaved", test_mark_unsaved);
  g_test_add_func ("/history/limit", test_limit);
  g_test_add_func ("/recovery/round-trip", test_recovery_round_trip);
  g_test_add_func ("/recovery/plain-and-broken", test_recovery_plain_and_broken);
  g_test_add_func ("/measurements/files", test_measurements);
  status = g_test_run ();

  {
    g_autofree char *a = g_build_filename (tmp_dir, "sub", "unsaved.json", NULL);
    g_autofree char *b = g_build_filename (tmp_dir, "broken.json", NULL);
    g_autofree char *sub = g_build_filename (tmp_dir, "sub", NULL);

    g_unlink (a);
    g_unlink (b);
    g_rmdir (sub);
    g_rmdir (tmp_dir);
  }
  g_free (tmp_dir);
  return status;
}
