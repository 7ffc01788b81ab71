/* hr-fuzz.c: what the fuzz targets share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-fuzz"

#include <math.h>
#include <string.h>

#include "hr-checked.h"
#include "hr-fuzz.h"

/* The sanitizers' allocator reports every allocation and free. */
int    __sanitizer_install_malloc_and_free_hooks (void (*malloc_hook) (const volatile void *, size_t),
                                                  void (*free_hook) (const volatile void *));
size_t __sanitizer_get_allocated_size (const volatile void *ptr);

static size_t in_use, peak, input_size;

static void
malloc_hook (const volatile void *ptr,
             size_t               size)
{
  (void) ptr;
  in_use += size;
  if (in_use > peak)
    peak = in_use;
}

static void
free_hook (const volatile void *ptr)
{
  if (ptr != NULL)
    in_use -= MIN (in_use, __sanitizer_get_allocated_size (ptr));
}

void
hr_fuzz_begin (size_t size)
{
  input_size = size;
  peak = in_use;
}

void
hr_fuzz_end (void)
{
  size_t start = in_use, rise = peak - MIN (peak, start);
  size_t allowed = HR_FUZZ_BYTES_PER_INPUT_BYTE * input_size + HR_FUZZ_FIXED_BYTES;

  HR_FUZZ_CHECK (rise <= allowed, "%zu bytes of input needed %zu bytes of memory at once, "
                 "more than %zu (work must grow at most linearly with the input)",
                 input_size, rise, allowed);
}

/* No user catalog may change what a fuzz target sees, and a warning or a
 * critical (a g_return_if_fail that failed) is a finding like a crash. */
void
hr_fuzz_setup (void)
{
  __sanitizer_install_malloc_and_free_hooks (malloc_hook, free_hook);
  g_setenv ("XDG_DATA_HOME", "/nonexistent/headroom-fuzz", TRUE);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  (void) hr_catalog_get_default ();
}

/* A refusal is a message the user reads: from Headroom's own domain, not
 * empty, one printable line of UTF-8, and naming where (a file name, or the
 * --set option). */
void
hr_fuzz_check_error (const GError *error)
{
  HR_FUZZ_CHECK (error != NULL, "a refusal without a message");
  HR_FUZZ_CHECK (error->domain == HR_ERROR, "domain %s: %s",
                 g_quark_to_string (error->domain), error->message);
  HR_FUZZ_CHECK (error->message != NULL && error->message[0] != '\0', "empty message");
  HR_FUZZ_CHECK (strchr (error->message, '\n') == NULL, "message on several lines: %s",
                 error->message);
  HR_FUZZ_CHECK (g_utf8_validate (error->message, -1, NULL), "message is not UTF-8");
  /* Control characters would drive the terminal (hr_text_printable). */
  for (const char *c = error->message; *c != '\0'; c++)
    HR_FUZZ_CHECK ((guchar) *c >= 0x20 && *c != 0x7f, "control character 0x%02X in: %s",
                   (guchar) *c, error->message);
}

/* SCENARIO.md: the five buckets add up to the total, the total lies in
 * its range, and the three views of the peak are ordered. */
void
hr_fuzz_check_estimate (const HrScenario *scenario)
{
  g_autoptr(HrEstimate) est = hr_estimate_new (scenario);
  g_autoptr(GError) error = NULL;
  guint64 sum = 0;

  /* A figure beyond what a byte count holds is capped, never wrapped,
   * and the scenario is refused (what headroom-cli exits 2 on) with one
   * printable line naming it. */
  if (!hr_estimate_check_scenario (scenario, "fuzz.json", &error))
    {
      HR_FUZZ_CHECK (est->overflow, "refused as too large, yet no figure was capped");
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (est->total <= HR_BYTES_MAX && est->host_ram <= HR_BYTES_MAX &&
                     est->low <= est->total && est->total <= est->high,
                     "a capped estimate is out of order: %" G_GUINT64_FORMAT " %"
                     G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, est->low, est->total, est->high);
      return;
    }
  HR_FUZZ_CHECK (!est->overflow, "a capped estimate was not refused");
  HR_FUZZ_CHECK (est->host_ram <= HR_BYTES_MAX, "host_ram is %" G_GUINT64_FORMAT, est->host_ram);

  for (guint i = 0; i < HR_N_BUCKETS; i++)
    {
      /* Unsigned, so "non-negative" means no wrapped-around subtraction. */
      HR_FUZZ_CHECK (est->buckets[i] <= HR_BYTES_MAX, "bucket %u is %" G_GUINT64_FORMAT,
                     i, est->buckets[i]);
      HR_FUZZ_CHECK (est->bucket_low[i] <= est->buckets[i] &&
                     est->buckets[i] <= est->bucket_high[i],
                     "bucket %u: %" G_GUINT64_FORMAT " outside %" G_GUINT64_FORMAT
                     "..%" G_GUINT64_FORMAT, i, est->buckets[i], est->bucket_low[i],
                     est->bucket_high[i]);
      sum += est->buckets[i];
    }

  HR_FUZZ_CHECK (sum == est->total, "buckets sum to %" G_GUINT64_FORMAT ", total %"
                 G_GUINT64_FORMAT, sum, est->total);
  HR_FUZZ_CHECK (est->low <= est->total && est->total <= est->high,
                 "low %" G_GUINT64_FORMAT " total %" G_GUINT64_FORMAT " high %" G_GUINT64_FORMAT,
                 est->low, est->total, est->high);
  HR_FUZZ_CHECK (est->allocated_peak <= est->reserved_peak &&
                 est->reserved_peak <= est->device_used,
                 "allocated %" G_GUINT64_FORMAT " reserved %" G_GUINT64_FORMAT
                 " device_used %" G_GUINT64_FORMAT,
                 est->allocated_peak, est->reserved_peak, est->device_used);
  HR_FUZZ_CHECK (est->total == est->device_used, "total is not the device_used view");
  if (est->has_fit)
    HR_FUZZ_CHECK (est->usable <= est->capacity, "usable more than the card holds");
}

/* An accepted import (config.json, safetensors, GGUF): the per-dtype table
 * adds up to the totals without wrapping around, the active parameters are
 * some of the stored ones, and the model object, when there is one, reads
 * back through the catalog's model reader, as the user catalog stores it
 * and as `import-model --json` prints it. */
void
hr_fuzz_check_import (const HrImport *import)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(HrJsonDoc) doc = NULL;
  g_autoptr(HrJsonDoc) text_doc = NULL;
  g_autoptr(HrModel) model = NULL;
  g_autoptr(HrModel) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  double params = 0, bytes = 0;
  guint64 sum_params = 0, sum_bytes = 0;

  HR_FUZZ_CHECK (import->active_params <= import->params,
                 "active %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
                 import->active_params, import->params);

  for (guint i = 0; i < import->dtypes->len; i++)
    {
      const HrImportDtype *d = g_ptr_array_index (import->dtypes, i);

      HR_FUZZ_CHECK (d->dtype != NULL && d->dtype[0] != '\0', "dtype %u has no name", i);
      HR_FUZZ_CHECK (d->tensors > 0, "%s counts no tensor", d->dtype);
      HR_FUZZ_CHECK (isfinite (d->bits_per_weight) && d->bits_per_weight >= 0,
                     "%s: %g bits per weight", d->dtype, d->bits_per_weight);
      /* Largest first. */
      if (i > 0)
        HR_FUZZ_CHECK (((const HrImportDtype *) g_ptr_array_index (import->dtypes,
                                                                   i - 1))->params >= d->params,
                       "dtypes out of order at %s", d->dtype);
      sum_params += d->params;
      sum_bytes += d->bytes;
      /* The same sums in floating point: a total that wrapped around
       * differs from them by 2^64. */
      params += (double) d->params;
      bytes += (double) d->bytes;
    }

  if (import->dtypes->len > 0)
    {
      HR_FUZZ_CHECK (import->params_exact, "a dtype table, but the count is not exact");
      HR_FUZZ_CHECK (sum_params == import->params,
                     "dtypes add up to %" G_GUINT64_FORMAT " parameters, the total is %"
                     G_GUINT64_FORMAT, sum_params, import->params);
      HR_FUZZ_CHECK (sum_bytes == import->weight_bytes,
                     "dtypes add up to %" G_GUINT64_FORMAT " bytes, the total is %"
                     G_GUINT64_FORMAT, sum_bytes, import->weight_bytes);
      HR_FUZZ_CHECK (fabs (params - (double) import->params) <= 1e-6 * params + 1 &&
                     fabs (bytes - (double) import->weight_bytes) <= 1e-6 * bytes + 1,
                     "a total wrapped around: %" G_GUINT64_FORMAT " parameters (%g), %"
                     G_GUINT64_FORMAT " bytes (%g)", import->params, params,
                     import->weight_bytes, bytes);
    }

  node = hr_import_model_json (import);
  if (node == NULL)
    {
      HR_FUZZ_CHECK (import->model == NULL, "a model, but no model JSON");
      return;
    }

  HR_FUZZ_CHECK (import->params > 0, "a model of no parameters");
  doc = hr_json_doc_new_for_node ("imported", node);
  model = hr_model_from_json (doc, "", node, &error);
  HR_FUZZ_CHECK (model != NULL, "the imported model is refused: %s", error->message);
  /* A LoRA adapter's model is its base, from the catalog (method "lora"):
   * the file counts the adapter alone. */
  if (g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (node), "method",
                                                             NULL),
                 "lora") == 0)
    HR_FUZZ_CHECK (hr_catalog_find_model (hr_catalog_get_default (), model->id) == NULL,
                   "the adapter's base %s replaces a catalog model", model->id);
  else
    HR_FUZZ_CHECK (model->params == import->params,
                   "the model has %" G_GUINT64_FORMAT " parameters, the import %"
                   G_GUINT64_FORMAT, model->params, import->params);

  /* Saved as text and read again (the user catalog). */
  text = hr_json_node_to_string (node, FALSE);
  text_doc = hr_json_doc_load_data ("saved.json", text, -1, &error);
  HR_FUZZ_CHECK (text_doc != NULL, "the saved model does not parse: %s\n%s", error->message,
                 text);
  again = hr_model_from_json (text_doc, "", hr_json_doc_get_root (text_doc), &error);
  HR_FUZZ_CHECK (again != NULL, "the saved model is refused: %s\n%s", error->message, text);
  HR_FUZZ_CHECK (g_str_equal (again->id, model->id) && again->params == model->params &&
                 again->components->len == model->components->len,
                 "the saved model reads back differently:\n%s", text);
}
