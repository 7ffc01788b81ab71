/* hr-snapshot.h: PyTorch memory snapshots (torch.cuda.memory._dump_snapshot)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-estimate.h"
#include "hr-measure.h"
#include "hr-pickle.h"

G_BEGIN_DECLS

/* A snapshot file larger than this is refused before it is read. */
#define HR_SNAPSHOT_MAX_FILE_SIZE (G_GUINT64_CONSTANT (4) << 30)

/* Where live memory is put: Headroom's five buckets, and memory whose
 * frames say nothing (allocated before recording began, or by code the
 * rules do not know). */
#define HR_SNAPSHOT_UNATTRIBUTED HR_N_BUCKETS
#define HR_SNAPSHOT_N_BUCKETS    (HR_N_BUCKETS + 1)

/* The named groups the rules sort allocations into, each in one bucket
 * (hr_snapshot_group_bucket); the rules are in hr-snapshot.c and the
 * README's "Memory snapshots". */
typedef enum {
  HR_SNAPSHOT_GROUP_PARAMETERS,         /* module construction, .to(), .cuda() */
  HR_SNAPSHOT_GROUP_LOADED_WEIGHTS,     /* state dicts, safetensors, from_pretrained */
  HR_SNAPSHOT_GROUP_PARAMETER_GRADIENTS,  /* AccumulateGrad */
  HR_SNAPSHOT_GROUP_BACKWARD,           /* in the backward pass */
  HR_SNAPSHOT_GROUP_BACKWARD_THREAD,    /* no Python frames: autograd's device thread */
  HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS,   /* DDP and ZeRO gradient buckets */
  HR_SNAPSHOT_GROUP_OPTIMIZER_STATE,    /* the optimizer's first step */
  HR_SNAPSHOT_GROUP_MASTER_WEIGHTS,     /* fp32 copies of a mixed-precision optimizer */
  HR_SNAPSHOT_GROUP_FORWARD,            /* a module's forward */
  HR_SNAPSHOT_GROUP_RECOMPUTED,         /* activation checkpointing's recomputation */
  HR_SNAPSHOT_GROUP_OPTIMIZER_STEP,     /* the optimizer step's temporaries */
  HR_SNAPSHOT_GROUP_WORKSPACES,         /* cuBLAS, cuDNN workspaces */
  HR_SNAPSHOT_GROUP_COMMUNICATION,      /* NCCL and torch.distributed buffers */
  HR_SNAPSHOT_GROUP_BEFORE_RECORDING,   /* live at the start, no frames */
  HR_SNAPSHOT_GROUP_OTHER,              /* frames no rule knows */
  /* torch.profiler's memory timeline names these two categories too */
  HR_SNAPSHOT_GROUP_INPUTS,             /* the batch fed to the model */
  HR_SNAPSHOT_GROUP_TEMPORARIES,        /* freed within the operator */
  HR_SNAPSHOT_N_GROUPS
} HrSnapshotGroupId;

extern const HrEnumName hr_snapshot_group_names[];
/* HR_SNAPSHOT_UNATTRIBUTED for the last two groups. */
guint        hr_snapshot_group_bucket (HrSnapshotGroupId group);
/* "forward pass", translated. */
const char  *hr_snapshot_group_label  (HrSnapshotGroupId group);
/* "unattributed", or hr_bucket_get_label's. */
const char  *hr_snapshot_bucket_label (guint             bucket);
/* "weights"... "unattributed", untranslated: for JSON. */
const char  *hr_snapshot_bucket_nick  (guint             bucket);

/* Where live memory was allocated: the first frame that is not inside
 * torch itself (the caller's line), and the group its frames fall in. */
typedef struct {
  char              *filename;   /* NULL when there were no frames */
  guint              line;
  char              *function;
  HrSnapshotGroupId  group;
  guint64            bytes;
  guint              count;
} HrSnapshotSite;

typedef struct {
  double   t;                    /* seconds, as the timeline's */
  guint64  requested;            /* bytes asked for */
  guint64  device_free;          /* what CUDA had left */
  guint64  allocated;            /* live at the time */
  guint64  reserved;
} HrSnapshotOom;

/* One device's trace and state. Sizes are bytes. "Allocated" counts what
 * the tensors asked for (the trace's sizes, as pytorch.org/memory_viz
 * plots it); torch.cuda.max_memory_allocated counts their blocks, each
 * rounded up to 512 bytes, which is block_rounding more at the end. */
typedef struct {
  int              device;
  guint            n_events;          /* trace entries */
  /* The timelines: also the measurement's series, points at every event
   * that changed them (thinned by max_time_points). */
  HrMeasureSeries *allocated;         /* owned by the measurement */
  HrMeasureSeries *reserved;
  guint64          allocated_peak;
  double           allocated_peak_t;
  guint            allocated_peak_event;  /* trace entries done at the peak (0: before the first) */
  guint64          reserved_peak;
  double           reserved_peak_t;
  guint64          reserved_at_allocated_peak;
  guint64          allocated_start;   /* live when the trace begins */
  guint64          reserved_start;
  guint64          allocated_end;
  guint64          reserved_end;
  /* What was live at the allocated peak, by bucket and by group; the
   * buckets add up to allocated_peak. */
  guint64          buckets[HR_SNAPSHOT_N_BUCKETS];
  guint64          groups[HR_SNAPSHOT_N_GROUPS];
  guint            live_count;
  GPtrArray       *sites;             /* HrSnapshotSite, most bytes first */
  /* The state at the end (the segments): free bytes inside segments, and
   * what the 512-byte rounding of blocks adds to requested sizes. */
  guint64          inactive_end;
  guint64          block_rounding;
  guint            n_segments;
  GArray          *ooms;              /* HrSnapshotOom */
} HrSnapshotDevice;

typedef struct _HrSnapshot {
  /* HrSnapshotDevice, by device number.  A torch.profiler memory timeline
   * has one device and no reserved timeline (its `reserved` is NULL). */
  GPtrArray *devices;
  /* allocator_settings, as text ("expandable_segments": "True"...) */
  GPtrArray *setting_keys;
  GPtrArray *setting_values;
  guint      protocol;
  gboolean   has_times;               /* trace entries carry time_us */
  gboolean   has_frames;              /* any stack was recorded */
  gboolean   has_cpp_frames;          /* stacks="all" */
  guint      max_sites;
} HrSnapshot;

void              hr_snapshot_free        (HrSnapshot          *snapshot);
/* The snapshot of @measurement, NULL for other formats. */
const HrSnapshot *hr_measurement_get_snapshot (const HrMeasurement *measurement);
/* The device whose allocated peak is highest (the one to compare with an
 * estimate of one GPU); NULL when there is none. */
const HrSnapshotDevice *hr_snapshot_get_peak_device (const HrSnapshot *snapshot);
/* A device's allocated peak as a stacked bar beside an estimate's: the
 * buckets of what was live then, the overhead bucket also taking the
 * reserve that held no tensor at that moment (reserved − allocated, the
 * allocator's fragmentation), and the unattributed rest on its own.  They
 * add up to `total`, what was reserved then (the CUDA context, which no
 * snapshot sees, is not in it). */
typedef struct {
  guint64 bytes[HR_SNAPSHOT_N_BUCKETS];
  guint64 fragmentation;     /* of bytes[HR_BUCKET_OVERHEAD] */
  guint64 total;
} HrSnapshotBar;

void              hr_snapshot_device_bar  (const HrSnapshotDevice *device,
                                           HrSnapshotBar          *bar);
/* @device's groups from the largest: the one at @rank (0 for the largest;
 * equal ones in the order of HrSnapshotGroupId). */
HrSnapshotGroupId hr_snapshot_groups_by_size (const HrSnapshotDevice *device,
                                              guint                   rank);
/* Allocated and reserved memory at @t seconds on @device's timelines. */
void              hr_snapshot_device_at   (const HrSnapshotDevice *device,
                                           double                  t,
                                           guint64                *allocated,
                                           guint64                *reserved);

/* The rules by themselves: the group of an allocation whose frames (a
 * pickled list of {"filename", "line", "name"} dicts, innermost first) are
 * @frames; @in_trace is whether the trace recorded its allocation (an
 * allocation with no frames then ran on a thread without Python). */
HrSnapshotGroupId hr_snapshot_classify    (const HrPickleValue    *frames,
                                           gboolean                in_trace);

/* A sweep made of snapshots taken at different micro-batches (the probe's
 * --snapshot, each naming its micro_batch): per snapshot, the allocated
 * and reserved peaks of its peak device, at its micro-batch; for
 * hr_fit_series and hr_calibration_new.  NULL with an error when a
 * snapshot does not say its micro-batch. */
HrMeasurement    *hr_measurement_new_snapshot_sweep (GPtrArray  *snapshots,
                                                     GError    **error);
/* The micro-batch a measurement says it was taken at (the probe's
 * "micro_batch" line or key), 0 when it does not say. */
guint             hr_measurement_get_micro_batch (const HrMeasurement *measurement);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrSnapshot, hr_snapshot_free)

G_END_DECLS
