/* fuzz-snapshot.c: libFuzzer target for pickles and PyTorch memory snapshots
 *
 * The bytes are a pickle (PROTO 4 is put before them when they do not
 * start with PROTO): read by hr_pickle_parse with small limits and with
 * the default ones, and as a measurement file (hr_measurement_parse_data),
 * whole and in three chunks split where the input says, both giving the
 * same or the same message.  An accepted snapshot's timelines are finite
 * sizes of 0 or more whose peaks are the devices' peaks, the buckets and
 * the groups live at the allocated peak add up to it, the measured bar adds
 * up to what was reserved then, the sites come most bytes first, and a
 * thinned reading keeps the same peaks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "fuzz-snapshot"

#include <math.h>
#include <string.h>

#include "hr-fuzz.h"

#define NAME "fuzz.pickle"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  hr_fuzz_setup ();
  return 0;
}

/* Walks what was read, to the depth a snapshot has, touching every value. */
static guint64
walk (const HrPickleValue *v,
      guint                depth)
{
  const HrPickleValue *items;
  guint64 count = 1;
  guint n = 0;

  if (depth > 6)
    return 1;
  if (v->kind == HR_PICKLE_DICT)
    {
      items = v->v.container->items;
      n = 2 * v->v.container->length;
    }
  else
    items = hr_pickle_items (v, &n);
  for (guint i = 0; i < n && i < 64; i++)
    count += walk (&items[i], depth + 1);
  if (v->kind == HR_PICKLE_STRING)
    {
      g_autofree char *shown = hr_pickle_dup_string (v);

      HR_FUZZ_CHECK (g_utf8_validate (shown, -1, NULL), "a string shown as not UTF-8");
    }
  return count;
}

static void
check_snapshot (const HrMeasurement *m,
                const HrMeasurement *thin)
{
  const HrSnapshot *snapshot = hr_measurement_get_snapshot (m);

  HR_FUZZ_CHECK (snapshot != NULL, "a measurement of a pickle without its snapshot");
  HR_FUZZ_CHECK (m->format == HR_MEASURE_FORMAT_TORCH_SNAPSHOT, "format %d", m->format);
  HR_FUZZ_CHECK (m->series->len == 2 * snapshot->devices->len, "%u series, %u devices",
                 m->series->len, snapshot->devices->len);
  HR_FUZZ_CHECK (thin->snapshot != NULL && thin->snapshot->devices->len == snapshot->devices->len,
                 "thinned: another number of devices");

  for (guint d = 0; d < snapshot->devices->len; d++)
    {
      const HrSnapshotDevice *dev = g_ptr_array_index (snapshot->devices, d);
      const HrSnapshotDevice *thin_dev = g_ptr_array_index (thin->snapshot->devices, d);
      guint64 buckets = 0, groups = 0;
      HrSnapshotBar bar;

      for (guint s = 0; s < 2; s++)
        {
          const HrMeasureSeries *series = s == 0 ? dev->allocated : dev->reserved;
          double peak = 0;

          HR_FUZZ_CHECK (series->points->len > 0, "%s: no point", series->name);
          for (guint i = 0; i < series->points->len; i++)
            {
              const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, i);

              HR_FUZZ_CHECK (isfinite (p->bytes) && p->bytes >= 0 && isfinite (p->t) &&
                             isnan (p->batch), "%s: point %u (%g, %g)", series->name, i, p->t,
                             p->bytes);
              peak = MAX (peak, p->bytes);
            }
          HR_FUZZ_CHECK (series->peak == peak, "%s: peak %g, largest point %g", series->name,
                         series->peak, peak);
          HR_FUZZ_CHECK (g_array_index (series->points, HrMeasurePoint,
                                        series->peak_index).bytes == peak,
                         "%s: the peak's index is not the peak's", series->name);
        }
      HR_FUZZ_CHECK ((double) dev->allocated_peak == dev->allocated->peak &&
                     (double) dev->reserved_peak == dev->reserved->peak,
                     "device %d: peaks %" G_GUINT64_FORMAT "/%g, %" G_GUINT64_FORMAT "/%g",
                     dev->device, dev->allocated_peak, dev->allocated->peak, dev->reserved_peak,
                     dev->reserved->peak);
      HR_FUZZ_CHECK (dev->allocated_start <= dev->allocated_peak &&
                     dev->allocated_end <= dev->allocated_peak &&
                     dev->reserved_at_allocated_peak <= dev->reserved_peak,
                     "device %d: start, end or reserved beyond the peaks", dev->device);

      for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
        buckets += dev->buckets[b];
      for (guint g = 0; g < HR_SNAPSHOT_N_GROUPS; g++)
        groups += dev->groups[g];
      HR_FUZZ_CHECK (buckets == dev->allocated_peak && groups == dev->allocated_peak,
                     "device %d: buckets %" G_GUINT64_FORMAT ", groups %" G_GUINT64_FORMAT
                     ", peak %" G_GUINT64_FORMAT, dev->device, buckets, groups,
                     dev->allocated_peak);
      hr_snapshot_device_bar (dev, &bar);
      HR_FUZZ_CHECK (bar.total == MAX (dev->allocated_peak, dev->reserved_at_allocated_peak),
                     "device %d: the bar adds up to %" G_GUINT64_FORMAT, dev->device, bar.total);

      HR_FUZZ_CHECK (dev->sites->len <= snapshot->max_sites, "%u sites", dev->sites->len);
      for (guint i = 0; i < dev->sites->len; i++)
        {
          const HrSnapshotSite *site = g_ptr_array_index (dev->sites, i);

          HR_FUZZ_CHECK (site->bytes <= dev->allocated_peak && site->count > 0,
                         "site %u: %" G_GUINT64_FORMAT " bytes", i, site->bytes);
          HR_FUZZ_CHECK (site->filename == NULL || g_utf8_validate (site->filename, -1, NULL),
                         "a site's file is not UTF-8");
          if (i > 0)
            HR_FUZZ_CHECK (((HrSnapshotSite *) g_ptr_array_index (dev->sites, i - 1))->bytes >=
                           site->bytes, "sites out of order");
        }

      HR_FUZZ_CHECK (thin_dev->allocated_peak == dev->allocated_peak &&
                     thin_dev->reserved_peak == dev->reserved_peak &&
                     thin_dev->allocated->n_points == dev->allocated->n_points &&
                     thin_dev->allocated->points->len <= 8 &&
                     memcmp (thin_dev->buckets, dev->buckets, sizeof dev->buckets) == 0,
                     "device %d: thinned, other peaks or buckets", dev->device);
    }
}

static int
fuzz_one (const uint8_t *data,
          size_t         size)
{
  g_autoptr(GByteArray) input = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) stream_error = NULL;
  g_autoptr(HrPickle) small = NULL;
  g_autoptr(HrPickle) pickle = NULL;
  g_autoptr(HrMeasurement) m = NULL;
  g_autoptr(HrMeasurement) streamed = NULL;
  g_autoptr(HrMeasureParser) parser = NULL;
  HrPickleLimits limits = { 1000, 8, 100, 16 };
  HrMeasureOptions thin = { 0 };
  gsize cut[4];

  if (size == 0 || data[0] != 0x80)
    g_byte_array_append (input, (const guint8 *) "\x80\x04", 2);
  g_byte_array_append (input, data, size);

  small = hr_pickle_parse (NAME, input->data, input->len, &limits, &error);
  if (small == NULL)
    hr_fuzz_check_error (error);
  g_clear_error (&error);

  pickle = hr_pickle_parse (NAME, input->data, input->len, NULL, &error);
  if (pickle == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, NAME ": byte "), "%s", error->message);
      HR_FUZZ_CHECK (small == NULL, "read with small limits, refused with the defaults");
    }
  else
    walk (hr_pickle_get_root (pickle), 0);
  g_clear_error (&error);

  m = hr_measurement_parse_data (NAME, (const char *) input->data, input->len, NULL, &error);
  if (m == NULL)
    {
      hr_fuzz_check_error (error);
      HR_FUZZ_CHECK (g_str_has_prefix (error->message, NAME ":"), "%s", error->message);
    }
  else
    {
      g_autoptr(HrMeasurement) thinned = NULL;
      g_autoptr(GError) thin_error = NULL;

      thin.max_time_points = 8;
      thinned = hr_measurement_parse_data (NAME, (const char *) input->data, input->len, &thin,
                                           &thin_error);
      HR_FUZZ_CHECK (thinned != NULL, "refused when thinned: %s", thin_error->message);
      check_snapshot (m, thinned);
    }

  /* In three chunks, cut where the input's last bytes say. */
  cut[0] = 0;
  cut[1] = input->len >= 2 ? ((gsize) input->data[input->len - 1] << 4) % (input->len + 1) : 0;
  cut[2] = cut[1] + (input->len >= 3 ? input->data[input->len - 2] : 0) % (input->len - cut[1] + 1);
  cut[3] = input->len;
  parser = hr_measure_parser_new (NAME, NULL);
  for (guint i = 0; i < 3 && stream_error == NULL; i++)
    hr_measure_parser_feed (parser, (const char *) input->data + cut[i], cut[i + 1] - cut[i],
                            &stream_error);
  if (stream_error == NULL)
    streamed = hr_measure_parser_finish (parser, &stream_error);
  if (m == NULL)
    HR_FUZZ_CHECK (streamed == NULL && g_str_equal (error->message, stream_error->message),
                   "whole: %s; in chunks: %s", error->message,
                   stream_error != NULL ? stream_error->message : "read");
  else
    HR_FUZZ_CHECK (streamed != NULL && streamed->series->len == m->series->len,
                   "read whole, in chunks: %s", stream_error != NULL ? stream_error->message
                                                                      : "other series");
  return 0;
}

HR_FUZZ_TARGET (fuzz_one)
