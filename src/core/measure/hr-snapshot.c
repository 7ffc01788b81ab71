/* hr-snapshot.c: PyTorch memory snapshots (torch.cuda.memory._dump_snapshot)
 *
 * The format, as PyTorch writes it (read at pytorch/pytorch):
 * - torch/cuda/memory.py (commit 00b65a04a2d3): _dump_snapshot pickles,
 *   with Python's default protocol, the dict _snapshot() returns:
 *   {"segments": [...], "device_traces": [[...] per device], and, since
 *   2.4, "allocator_settings": {...}, "external_annotations": [...]}.
 * - torch/csrc/cuda/memory_snapshot.cpp (commit 127b7ad1e585) and
 *   torch/csrc/cuda/Module.cpp (commit 87a08c18736e): a segment is
 *   {"device", "address", "total_size", "allocated_size", "active_size",
 *   "requested_size", "stream", "segment_type", "segment_pool_id",
 *   "is_expandable", "frames", "blocks"}; a block {"address", "size",
 *   "requested_size", "state": "active_allocated" | "active_pending_free"
 *   | "inactive", "frames"}; a trace entry {"action", "addr" (or
 *   "device_free" for "oom"), "size", "stream", "frames", "time_us",
 *   "compile_context", "user_metadata"}, the actions being alloc,
 *   free_requested, free_completed, segment_alloc, segment_free,
 *   segment_map, segment_unmap (expandable segments), snapshot and oom.
 *   A frame is {"filename", "line", "name"}, innermost first; PyTorch
 *   shares one list between the entries of one stack.  Before 2.1 a block
 *   had "history" [{"addr", "real_size", "frames"}] instead of frames and
 *   requested_size, and entries had no time_us.
 * - c10/cuda/CUDACachingAllocator.cpp (commit eb42ad6eca0c): "alloc"
 *   records the size asked for (orig_size), "free_requested" and
 *   "free_completed" the block's requested_size; allocated_bytes (what
 *   max_memory_allocated reports) drops at free() (free_requested), counts
 *   block sizes rounded up to kMinBlockSize = 512, and reserved_bytes
 *   moves with segment_alloc/segment_free (cudaMalloc/cudaFree) and
 *   segment_map/segment_unmap.
 * - torch/cuda/_memory_viz.py (commit 0044eb6704e6) and
 *   torch/utils/viz/MemoryViz.js (commit 00067369c933), the official
 *   viewer: the trace is a ring buffer that may have lost its start, so
 *   what was live before it is found from the end state (the segments'
 *   active blocks) and from frees of addresses the trace never saw
 *   allocated ("initially_allocated"); a block with no frames was
 *   allocated before recording began, or on autograd's backward thread
 *   when only Python stacks were recorded (pytorch/pytorch#124784).
 *
 * Headroom's timeline follows torch's allocated_bytes in time (an
 * allocation counts from "alloc" to "free_requested") and the trace's
 * sizes in bytes (what the tensors asked for, as the viewer plots them).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "hr-snapshot"

#include <glib/gi18n-lib.h>

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "hr-json.h"
#include "hr-measure-private.h"
#include "hr-snapshot.h"

/* The sites a device keeps, most bytes first. */
#define MAX_SITES 10
/* Frames looked at per stack: deep C++ stacks are 100 or so. */
#define MAX_FRAMES 256

const HrEnumName hr_snapshot_group_names[] = {
  { HR_SNAPSHOT_GROUP_PARAMETERS, "parameters" },
  { HR_SNAPSHOT_GROUP_LOADED_WEIGHTS, "loaded-weights" },
  { HR_SNAPSHOT_GROUP_PARAMETER_GRADIENTS, "parameter-gradients" },
  { HR_SNAPSHOT_GROUP_BACKWARD, "backward" },
  { HR_SNAPSHOT_GROUP_BACKWARD_THREAD, "backward-thread" },
  { HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS, "gradient-buckets" },
  { HR_SNAPSHOT_GROUP_OPTIMIZER_STATE, "optimizer-state" },
  { HR_SNAPSHOT_GROUP_MASTER_WEIGHTS, "master-weights" },
  { HR_SNAPSHOT_GROUP_FORWARD, "forward" },
  { HR_SNAPSHOT_GROUP_RECOMPUTED, "recomputed" },
  { HR_SNAPSHOT_GROUP_OPTIMIZER_STEP, "optimizer-step" },
  { HR_SNAPSHOT_GROUP_WORKSPACES, "workspaces" },
  { HR_SNAPSHOT_GROUP_COMMUNICATION, "communication" },
  { HR_SNAPSHOT_GROUP_BEFORE_RECORDING, "before-recording" },
  { HR_SNAPSHOT_GROUP_OTHER, "other" },
  { HR_SNAPSHOT_GROUP_INPUTS, "inputs" },
  { HR_SNAPSHOT_GROUP_TEMPORARIES, "temporaries" },
  { 0, NULL }
};

guint
hr_snapshot_group_bucket (HrSnapshotGroupId group)
{
  switch (group)
    {
    case HR_SNAPSHOT_GROUP_PARAMETERS:
    case HR_SNAPSHOT_GROUP_LOADED_WEIGHTS:
      return HR_BUCKET_WEIGHTS;
    case HR_SNAPSHOT_GROUP_PARAMETER_GRADIENTS:
    case HR_SNAPSHOT_GROUP_BACKWARD:
    case HR_SNAPSHOT_GROUP_BACKWARD_THREAD:
    case HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS:
      return HR_BUCKET_GRADIENTS;
    case HR_SNAPSHOT_GROUP_OPTIMIZER_STATE:
    case HR_SNAPSHOT_GROUP_MASTER_WEIGHTS:
      return HR_BUCKET_OPTIMIZER;
    case HR_SNAPSHOT_GROUP_FORWARD:
    case HR_SNAPSHOT_GROUP_RECOMPUTED:
    case HR_SNAPSHOT_GROUP_OPTIMIZER_STEP:
    case HR_SNAPSHOT_GROUP_INPUTS:
    case HR_SNAPSHOT_GROUP_TEMPORARIES:
      return HR_BUCKET_ACTIVATIONS;
    case HR_SNAPSHOT_GROUP_WORKSPACES:
    case HR_SNAPSHOT_GROUP_COMMUNICATION:
      return HR_BUCKET_OVERHEAD;
    case HR_SNAPSHOT_GROUP_BEFORE_RECORDING:
    case HR_SNAPSHOT_GROUP_OTHER:
    case HR_SNAPSHOT_N_GROUPS:
    default:
      return HR_SNAPSHOT_UNATTRIBUTED;
    }
}

const char *
hr_snapshot_group_label (HrSnapshotGroupId group)
{
  switch (group)
    {
    case HR_SNAPSHOT_GROUP_PARAMETERS:
      return _("parameters (module construction, .to(), .cuda())");
    case HR_SNAPSHOT_GROUP_LOADED_WEIGHTS:
      return _("loaded weights (state dicts, safetensors, from_pretrained)");
    case HR_SNAPSHOT_GROUP_PARAMETER_GRADIENTS:
      return _("parameter gradients");
    case HR_SNAPSHOT_GROUP_BACKWARD:
      return _("backward pass");
    case HR_SNAPSHOT_GROUP_BACKWARD_THREAD:
      return _("backward pass (autograd's device thread, no Python frames)");
    case HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS:
      return _("gradient buckets (DDP, ZeRO)");
    case HR_SNAPSHOT_GROUP_OPTIMIZER_STATE:
      return _("optimizer state");
    case HR_SNAPSHOT_GROUP_MASTER_WEIGHTS:
      return _("fp32 master weights");
    case HR_SNAPSHOT_GROUP_FORWARD:
      return _("forward pass");
    case HR_SNAPSHOT_GROUP_RECOMPUTED:
      return _("recomputed in the backward pass (checkpointing)");
    case HR_SNAPSHOT_GROUP_OPTIMIZER_STEP:
      return _("optimizer step temporaries");
    case HR_SNAPSHOT_GROUP_WORKSPACES:
      return _("cuBLAS and cuDNN workspaces");
    case HR_SNAPSHOT_GROUP_COMMUNICATION:
      return _("communication buffers (NCCL)");
    case HR_SNAPSHOT_GROUP_BEFORE_RECORDING:
      return _("allocated before recording began (no frames)");
    case HR_SNAPSHOT_GROUP_INPUTS:
      return _("inputs");
    case HR_SNAPSHOT_GROUP_TEMPORARIES:
      return _("temporaries");
    case HR_SNAPSHOT_GROUP_OTHER:
    case HR_SNAPSHOT_N_GROUPS:
    default:
      return _("other (frames no rule knows)");
    }
}

const char *
hr_snapshot_bucket_label (guint bucket)
{
  g_return_val_if_fail (bucket < HR_SNAPSHOT_N_BUCKETS, NULL);

  if (bucket == HR_SNAPSHOT_UNATTRIBUTED)
    return _("unattributed");
  return hr_bucket_get_label (bucket);
}

const char *
hr_snapshot_bucket_nick (guint bucket)
{
  g_return_val_if_fail (bucket < HR_SNAPSHOT_N_BUCKETS, NULL);

  if (bucket == HR_SNAPSHOT_UNATTRIBUTED)
    return "unattributed";
  return hr_enum_to_nick (hr_bucket_names, bucket);
}

static void
site_free (gpointer data)
{
  HrSnapshotSite *site = data;

  g_free (site->filename);
  g_free (site->function);
  g_free (site);
}

static void
device_free (gpointer data)
{
  HrSnapshotDevice *device = data;

  g_ptr_array_unref (device->sites);
  g_array_unref (device->ooms);
  g_free (device);
}

HrSnapshot *
hr_snapshot_new (void)
{
  HrSnapshot *snapshot = g_new0 (HrSnapshot, 1);

  snapshot->devices = g_ptr_array_new_with_free_func (device_free);
  snapshot->setting_keys = g_ptr_array_new_with_free_func (g_free);
  snapshot->setting_values = g_ptr_array_new_with_free_func (g_free);
  snapshot->max_sites = MAX_SITES;
  return snapshot;
}

HrSnapshotDevice *
hr_snapshot_add_device (HrSnapshot *snapshot,
                        int         device)
{
  HrSnapshotDevice *dev = g_new0 (HrSnapshotDevice, 1);

  dev->device = device;
  dev->sites = g_ptr_array_new_with_free_func (site_free);
  dev->ooms = g_array_new (FALSE, FALSE, sizeof (HrSnapshotOom));
  g_ptr_array_add (snapshot->devices, dev);
  return dev;
}

void
hr_snapshot_free (HrSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;

  g_ptr_array_unref (snapshot->devices);
  g_ptr_array_unref (snapshot->setting_keys);
  g_ptr_array_unref (snapshot->setting_values);
  g_free (snapshot);
}

const HrSnapshot *
hr_measurement_get_snapshot (const HrMeasurement *measurement)
{
  g_return_val_if_fail (measurement != NULL, NULL);

  return measurement->snapshot;
}

const HrSnapshotDevice *
hr_snapshot_get_peak_device (const HrSnapshot *snapshot)
{
  const HrSnapshotDevice *best = NULL;

  g_return_val_if_fail (snapshot != NULL, NULL);

  for (guint i = 0; i < snapshot->devices->len; i++)
    {
      const HrSnapshotDevice *d = g_ptr_array_index (snapshot->devices, i);

      if (best == NULL || d->allocated_peak > best->allocated_peak)
        best = d;
    }
  return best;
}

void
hr_snapshot_device_bar (const HrSnapshotDevice *device,
                        HrSnapshotBar          *bar)
{
  g_return_if_fail (device != NULL);
  g_return_if_fail (bar != NULL);

  memset (bar, 0, sizeof *bar);
  memcpy (bar->bytes, device->buckets, sizeof bar->bytes);
  if (device->reserved_at_allocated_peak > device->allocated_peak)
    bar->fragmentation = device->reserved_at_allocated_peak - device->allocated_peak;
  bar->bytes[HR_BUCKET_OVERHEAD] += bar->fragmentation;
  for (guint b = 0; b < HR_SNAPSHOT_N_BUCKETS; b++)
    bar->total += bar->bytes[b];
}

HrSnapshotGroupId
hr_snapshot_groups_by_size (const HrSnapshotDevice *device,
                            guint                   rank)
{
  gboolean taken[HR_SNAPSHOT_N_GROUPS] = { FALSE };
  HrSnapshotGroupId best = 0;

  g_return_val_if_fail (device != NULL, 0);
  g_return_val_if_fail (rank < HR_SNAPSHOT_N_GROUPS, 0);

  for (guint r = 0; r <= rank; r++)
    {
      gboolean found = FALSE;

      for (guint g = 0; g < HR_SNAPSHOT_N_GROUPS; g++)
        {
          if (!taken[g] && (!found || device->groups[g] > device->groups[best]))
            {
              best = g;
              found = TRUE;
            }
        }
      taken[best] = TRUE;
    }
  return best;
}

static guint64
series_at (const HrMeasureSeries *series,
           double                 t)
{
  guint64 value = 0;

  if (series == NULL)
    return 0;
  for (guint i = 0; i < series->points->len; i++)
    {
      const HrMeasurePoint *p = &g_array_index (series->points, HrMeasurePoint, i);

      if (i > 0 && p->t > t)
        break;
      value = (guint64) p->bytes;
    }
  return value;
}

void
hr_snapshot_device_at (const HrSnapshotDevice *device,
                       double                  t,
                       guint64                *allocated,
                       guint64                *reserved)
{
  g_return_if_fail (device != NULL);

  if (allocated != NULL)
    *allocated = series_at (device->allocated, t);
  if (reserved != NULL)
    *reserved = series_at (device->reserved, t);
}

/* ------------------------------------------------------------------------
 * The rules
 * --------------------------------------------------------------------- */

/* The substrings the rules look for, in a frame's file and in its
 * function's name; each string of the pickle is searched once (the
 * classifier keeps what it found by the string's place in the data), and
 * one longer than MAX_TEXT matches none: no path or name is that long. */
#define MAX_TEXT 4096

enum {
  F_TORCH_OPTIM, F_BNB_OPTIM, F_ZERO_STAGE, F_DS_FP16, F_ZERO_PARTITION, F_DDP, F_FSDP,
  F_FSDP2, F_DISTRIBUTED, F_AUTOGRAD, F_TENSOR, F_ACCELERATOR, F_LIGHTNING, F_MODULE,
  F_MODULES, F_PARAMETER, F_INIT, F_BNB_MODULES, F_PEFT, F_ACCELERATE_HOOKS,
  F_SERIALIZATION, F_STORAGE, F_SAFETENSORS, F_ACCELERATE_MODELING, F_BIG_MODELING,
  F_MODELING_UTILS, F_CHECKPOINT, F_FUNCTIONAL, F_IN_TORCH, F_PY,
  N_FILE_PATTERNS
};

static const char * const file_patterns[N_FILE_PATTERNS] = {
  "torch/optim/", "bitsandbytes/optim/", "deepspeed/runtime/zero/stage",
  "deepspeed/runtime/fp16/", "deepspeed/runtime/zero/partition_parameters.py",
  "torch/nn/parallel/distributed.py", "torch/distributed/fsdp/",
  "torch/distributed/_composable/fsdp/", "torch/distributed/", "torch/autograd/",
  "torch/_tensor.py", "accelerate/accelerator.py", "lightning", "torch/nn/modules/module.py",
  "torch/nn/modules/", "torch/nn/parameter.py", "torch/nn/init.py",
  "bitsandbytes/nn/modules.py", "peft/", "accelerate/hooks.py", "torch/serialization.py",
  "torch/storage.py", "safetensors/", "accelerate/utils/modeling.py",
  "accelerate/big_modeling.py", "modeling_utils.py", "torch/utils/checkpoint.py",
  "torch/nn/functional.py", "/torch/", NULL /* F_PY: a suffix, below */
};

enum {
  N_ACCUMULATE_GRAD, N_ENGINE, N_GENERATED, N_BACKWARD_CLASS, N_BLAS_HANDLE, N_BLASLT,
  N_WORKSPACE, N_CUDNN, N_C10D, N_NCCL_PG, N_NCCL_COMM, N_BACKWARD, N_LOAD,
  N_FROM_PRETRAINED, N_QUALIFIED,
  N_NAME_PATTERNS
};

static const char * const name_patterns[N_NAME_PATTERNS] = {
  "AccumulateGrad", "autograd::Engine", "autograd::generated::", "Backward", "BlasHandle",
  "BlasLtWorkspace", "Workspace", "getCudnnHandle", "c10d::", "ProcessGroupNCCL", "ncclComm",
  "backward", "load", "from_pretrained", "::",
};

G_STATIC_ASSERT (N_FILE_PATTERNS < 31 && N_NAME_PATTERNS < 31);

/* What the rules have learnt of a pickle's strings, frames and stacks,
 * by their place in the data: each is looked at once however often the
 * pickle refers to it. */
typedef struct {
  GHashTable *file_masks;   /* text → mask | 1 << 31 */
  GHashTable *name_masks;
  GHashTable *frames;       /* frame dict → its group + 2 (1: none) */
  GHashTable *stacks;       /* frames list → Stack */
  GHashTable *texts;        /* text → printable copy */
  GHashTable *sites;        /* "file\nline\nname\ngroup" → Site */
  /* Stacks reduced as the pickle was read (HR_PICKLE_REDUCED values of
   * tag REDUCED_STACK, by their number), each once by what it says. */
  GPtrArray  *reduced;      /* Stack */
  GHashTable *reduced_ids;  /* Stack → itself */
} Classifier;

typedef struct {
  int                  group;      /* -1: no rule matched */
  gboolean             recomputed; /* a checkpoint recomputation frame is outside */
  const HrPickleValue *site;       /* the caller's frame (&site_value), NULL when none */
  HrPickleValue        site_value;
  gboolean             nonempty;   /* it has frames */
  gboolean             qualified;  /* a frame's name is qualified C++ (stacks="all") */
  HrPickleValue        self;       /* a reduced stack: the value that stands for it */
} Stack;

/* What a HR_PICKLE_REDUCED value stands for: its `length` is the tag and
 * the kind it was (<< 8), its `v.integer` a number. */
enum {
  REDUCED_STACK = 1,     /* a "frames" list: Classifier.reduced */
  REDUCED_EVENT = 2,     /* a trace entry: Reduction.events */
};

#define REDUCED_TAG(v)  ((v)->length & 0xff)
#define REDUCED_KIND(v) ((v)->length >> 8)

/* What a value is, as messages name it: a reduced one by what it was. */
static const char *
kind_name (const HrPickleValue *v)
{
  if (v->kind == HR_PICKLE_REDUCED)
    return hr_pickle_kind_name (REDUCED_KIND (v));
  return hr_pickle_kind_name (v->kind);
}

typedef struct {
  const char        *filename;     /* the classifier's, NULL for none */
  guint              line;
  const char        *function;
  HrSnapshotGroupId  group;
  guint64            bytes;
  guint              count;
} Site;

static guint
stack_hash (gconstpointer key)
{
  const Stack *s = key;

  return g_direct_hash (s->site != NULL ? s->site_value.v.container : NULL) ^
         (guint) (s->group + 2) * 2654435761u ^ (s->recomputed ? 1u << 29 : 0) ^
         (s->nonempty ? 1u << 30 : 0) ^ (s->qualified ? 1u << 31 : 0);
}

static gboolean
stack_equal (gconstpointer a,
             gconstpointer b)
{
  const Stack *x = a, *y = b;

  return x->group == y->group && x->recomputed == y->recomputed &&
         x->nonempty == y->nonempty && x->qualified == y->qualified &&
         (x->site == NULL) == (y->site == NULL) &&
         (x->site == NULL || (x->site_value.kind == y->site_value.kind &&
                              x->site_value.v.container == y->site_value.v.container));
}

static void
classifier_init (Classifier *c)
{
  c->file_masks = g_hash_table_new (NULL, NULL);
  c->name_masks = g_hash_table_new (NULL, NULL);
  c->frames = g_hash_table_new (NULL, NULL);
  c->stacks = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->texts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->sites = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  c->reduced = g_ptr_array_new_with_free_func (g_free);
  c->reduced_ids = g_hash_table_new (stack_hash, stack_equal);
}

static void
classifier_clear (Classifier *c)
{
  g_hash_table_unref (c->file_masks);
  g_hash_table_unref (c->name_masks);
  g_hash_table_unref (c->frames);
  g_hash_table_unref (c->stacks);
  g_hash_table_unref (c->texts);
  g_hash_table_unref (c->sites);
  g_hash_table_unref (c->reduced_ids);
  g_ptr_array_unref (c->reduced);
}

static Classifier *
classifier_new (void)
{
  Classifier *c = g_new0 (Classifier, 1);

  classifier_init (c);
  return c;
}

static void
classifier_free (Classifier *c)
{
  classifier_clear (c);
  g_free (c);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Classifier, classifier_free)

static gboolean
text_has (const HrPickleValue *value,
          const char          *needle)
{
  gsize n = strlen (needle);

  for (gsize i = 0; i + n <= value->length; i++)
    {
      if (value->v.text[i] == needle[0] && memcmp (value->v.text + i, needle, n) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Which of @patterns @value holds, as bits; @cache by the string's place. */
static guint
text_mask (GHashTable          *cache,
           const HrPickleValue *value,
           const char * const  *patterns,
           guint                n_patterns,
           gboolean             file)
{
  gpointer cached;
  guint mask = 0;

  if (value == NULL || value->kind != HR_PICKLE_STRING || value->length == 0 ||
      value->length > MAX_TEXT)
    return 0;
  cached = g_hash_table_lookup (cache, value->v.text);
  if (cached != NULL)
    return GPOINTER_TO_UINT (cached) & ~(1u << 31);

  for (guint i = 0; i < n_patterns; i++)
    {
      if (patterns[i] != NULL && text_has (value, patterns[i]))
        mask |= 1u << i;
    }
  if (file)
    {
      if (value->length >= 3 && memcmp (value->v.text + value->length - 3, ".py", 3) == 0)
        mask |= 1u << F_PY;
      /* a path relative to site-packages */
      if (value->length >= 6 && memcmp (value->v.text, "torch/", 6) == 0)
        mask |= 1u << F_IN_TORCH;
    }
  g_hash_table_insert (cache, (gpointer) value->v.text, GUINT_TO_POINTER (mask | 1u << 31));
  return mask;
}

#define HAS(mask, bit) (((mask) & (1u << (bit))) != 0)

static gboolean
is_one_of (const HrPickleValue *value,
           const char * const  *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      if (hr_pickle_is_string (value, names[i]))
        return TRUE;
    }
  return FALSE;
}

/* One frame's say, or -1 when it says nothing.  The rules, innermost
 * frame first, the first frame that one rule matches deciding (the
 * README's "Memory snapshots" lists them for users):
 *
 * - C++ (stacks="all"): AccumulateGrad → parameter gradients; autograd's
 *   Engine and generated *Backward nodes → backward pass; cuBLAS/cuDNN
 *   handles and workspaces → workspaces; c10d and NCCL → communication.
 * - torch/optim, bitsandbytes/optim: _init_group, init_state → optimizer
 *   state; anything else there → optimizer step temporaries (made state
 *   when it is still live at the end of the trace: SGD makes its momentum
 *   buffers inside the step).
 * - DeepSpeed ZeRO: initialize_optimizer_states → optimizer state, the
 *   optimizer's __init__ (its fp32 partitions) → master weights, the rest
 *   → gradient buckets; torch/nn/parallel/distributed.py → gradient
 *   buckets; FSDP's unshard → parameters; the rest of torch/distributed
 *   → communication.
 * - torch/autograd backward/grad/_engine_run_backward, Tensor.backward,
 *   Accelerate's and Lightning's backward → backward pass.
 * - Module.to/cuda/_apply/half/float..., a torch.nn module's __init__ or
 *   reset_parameters, torch/nn/parameter.py and init.py, bitsandbytes'
 *   quantising .to/.cuda, PEFT adapters being made, DeepSpeed's partition
 *   parameters, Accelerate's hooks → parameters.
 * - torch/serialization.py, torch/storage.py, safetensors, functions of
 *   transformers' and diffusers' modeling_utils.py with "load" or
 *   "from_pretrained" in their name, accelerate/utils/modeling.py,
 *   accelerate/big_modeling.py → loaded weights.
 * - torch/utils/checkpoint.py → recomputed.
 * - a function named forward, Module._call_impl/__call__,
 *   torch/nn/functional.py → forward pass (made "recomputed" when an outer
 *   frame is checkpoint's recomputation).
 * An allocation with no frames is "backward thread" when the trace
 * recorded it and "before recording" when it was live before the trace;
 * one whose frames match nothing is "other". */
static int
frame_group (Classifier          *c,
             const HrPickleValue *frame)
{
  static const char * const module_apply[] = {
    "to", "cuda", "_apply", "convert", "to_empty", "half", "float", "bfloat16", "double",
    "type", "xpu", "load_state_dict", "_load_from_state_dict", NULL
  };
  static const char * const module_init[] = { "__init__", "reset_parameters",
                                              "_reset_parameters", NULL };
  static const char * const module_call[] = { "_call_impl", "_wrapped_call_impl", "__call__",
                                              NULL };
  static const char * const autograd_backward[] = { "backward", "grad", "_engine_run_backward",
                                                    "run_backward", NULL };
  static const char * const optim_state[] = { "_init_group", "init_state", "_init_state",
                                              NULL };
  static const char * const quantize[] = { "to", "cuda", "_quantize", "__new__", NULL };
  static const char * const peft_make[] = { "update_layer", "__init__", "_create_and_replace",
                                            "inject_adapter", "_create_new_module", NULL };
  static const char * const fsdp_unshard[] = { "unshard", "_unshard",
                                               "_alloc_padded_unsharded_flat_param",
                                               "alloc_all_gather_outputs", "all_gather", NULL };
  const HrPickleValue *name = hr_pickle_dict_get (frame, "name");
  guint n, f;

  if (name == NULL || name->kind != HR_PICKLE_STRING)
    return -1;
  n = text_mask (c->name_masks, name, name_patterns, N_NAME_PATTERNS, FALSE);

  /* C++ frames */
  if (HAS (n, N_ACCUMULATE_GRAD))
    return HR_SNAPSHOT_GROUP_PARAMETER_GRADIENTS;
  if (HAS (n, N_ENGINE) || (HAS (n, N_GENERATED) && HAS (n, N_BACKWARD_CLASS)))
    return HR_SNAPSHOT_GROUP_BACKWARD;
  if (HAS (n, N_BLAS_HANDLE) || HAS (n, N_BLASLT) || HAS (n, N_WORKSPACE) || HAS (n, N_CUDNN))
    return HR_SNAPSHOT_GROUP_WORKSPACES;
  if (HAS (n, N_C10D) || HAS (n, N_NCCL_PG) || HAS (n, N_NCCL_COMM))
    return HR_SNAPSHOT_GROUP_COMMUNICATION;

  f = text_mask (c->file_masks, hr_pickle_dict_get (frame, "filename"), file_patterns,
                 N_FILE_PATTERNS, TRUE);
  if (f == 0)
    return hr_pickle_is_string (name, "forward") ? HR_SNAPSHOT_GROUP_FORWARD : -1;

  if (HAS (f, F_TORCH_OPTIM) || HAS (f, F_BNB_OPTIM))
    return is_one_of (name, optim_state) ? HR_SNAPSHOT_GROUP_OPTIMIZER_STATE
                                         : HR_SNAPSHOT_GROUP_OPTIMIZER_STEP;
  if (HAS (f, F_ZERO_STAGE) || HAS (f, F_DS_FP16))
    {
      if (hr_pickle_is_string (name, "initialize_optimizer_states"))
        return HR_SNAPSHOT_GROUP_OPTIMIZER_STATE;
      if (hr_pickle_is_string (name, "__init__"))
        return HR_SNAPSHOT_GROUP_MASTER_WEIGHTS;
      return HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS;
    }
  if (HAS (f, F_ZERO_PARTITION))
    return HR_SNAPSHOT_GROUP_PARAMETERS;
  if (HAS (f, F_DDP))
    return HR_SNAPSHOT_GROUP_GRADIENT_BUCKETS;
  if (HAS (f, F_FSDP) || HAS (f, F_FSDP2))
    return is_one_of (name, fsdp_unshard) ? HR_SNAPSHOT_GROUP_PARAMETERS
                                          : HR_SNAPSHOT_GROUP_COMMUNICATION;
  if (HAS (f, F_DISTRIBUTED))
    return HR_SNAPSHOT_GROUP_COMMUNICATION;

  if ((HAS (f, F_AUTOGRAD) && is_one_of (name, autograd_backward)) ||
      ((HAS (f, F_TENSOR) || HAS (f, F_ACCELERATOR)) && hr_pickle_is_string (name, "backward")) ||
      (HAS (f, F_LIGHTNING) && HAS (n, N_BACKWARD)))
    return HR_SNAPSHOT_GROUP_BACKWARD;

  if ((HAS (f, F_MODULE) && is_one_of (name, module_apply)) ||
      (HAS (f, F_MODULES) && is_one_of (name, module_init)) ||
      HAS (f, F_PARAMETER) || HAS (f, F_INIT) ||
      (HAS (f, F_BNB_MODULES) && is_one_of (name, quantize)) ||
      (HAS (f, F_PEFT) && is_one_of (name, peft_make)) || HAS (f, F_ACCELERATE_HOOKS))
    return HR_SNAPSHOT_GROUP_PARAMETERS;

  if (HAS (f, F_SERIALIZATION) || HAS (f, F_STORAGE) || HAS (f, F_SAFETENSORS) ||
      HAS (f, F_ACCELERATE_MODELING) || HAS (f, F_BIG_MODELING) ||
      (HAS (f, F_MODELING_UTILS) && (HAS (n, N_LOAD) || HAS (n, N_FROM_PRETRAINED))))
    return HR_SNAPSHOT_GROUP_LOADED_WEIGHTS;

  if (HAS (f, F_CHECKPOINT))
    return HR_SNAPSHOT_GROUP_RECOMPUTED;

  if (hr_pickle_is_string (name, "forward") ||
      (HAS (f, F_MODULE) && is_one_of (name, module_call)) ||
      HAS (f, F_FUNCTIONAL))
    return HR_SNAPSHOT_GROUP_FORWARD;

  return -1;
}

/* Checkpointing's recomputation runs forward again from these. */
static gboolean
frame_recomputes (Classifier          *c,
                  const HrPickleValue *frame)
{
  static const char * const names[] = { "recompute_fn", "unpack_hook", "_checkpoint_hook",
                                        "backward", "unpack", NULL };

  return HAS (text_mask (c->file_masks, hr_pickle_dict_get (frame, "filename"), file_patterns,
                         N_FILE_PATTERNS, TRUE), F_CHECKPOINT) &&
         is_one_of (hr_pickle_dict_get (frame, "name"), names);
}

/* What the rules take from one frame, worked out once per frame dict
 * (PyTorch shares one between every stack holding it). */
#define INFO_GROUP(info) ((int) ((info) & 0xff) - 2)
#define INFO_RECOMPUTES  (1u << 8)
#define INFO_PY          (1u << 9)
#define INFO_IN_TORCH    (1u << 10)
#define INFO_QUALIFIED   (1u << 11)

static guint
frame_info (Classifier          *c,
            const HrPickleValue *frame)
{
  gpointer cached;
  guint info, f;

  if (frame->kind != HR_PICKLE_DICT)
    return (guint) (-1 + 2);
  cached = g_hash_table_lookup (c->frames, frame->v.container);
  if (cached != NULL)
    return GPOINTER_TO_UINT (cached);

  info = (guint) (frame_group (c, frame) + 2);
  if (frame_recomputes (c, frame))
    info |= INFO_RECOMPUTES;
  f = text_mask (c->file_masks, hr_pickle_dict_get (frame, "filename"), file_patterns,
                 N_FILE_PATTERNS, TRUE);
  if (HAS (f, F_PY))
    info |= INFO_PY;
  if (HAS (f, F_IN_TORCH))
    info |= INFO_IN_TORCH;
  if (HAS (text_mask (c->name_masks, hr_pickle_dict_get (frame, "name"), name_patterns,
                      N_NAME_PATTERNS, FALSE), N_QUALIFIED))
    info |= INFO_QUALIFIED;
  g_hash_table_insert (c->frames, frame->v.container, GUINT_TO_POINTER (info));
  return info;
}

/* What a stack says: its group, and its caller's frame (the innermost
 * Python frame outside torch itself, or else the innermost Python one). */
static void
stack_compute (Classifier          *c,
               const HrPickleValue *frames,
               Stack               *stack)
{
  const HrPickleValue *items;
  int python = -1, outside = -1;
  guint n;

  stack->group = -1;
  items = hr_pickle_items (frames, &n);
  stack->nonempty = n > 0;
  n = MIN (n, MAX_FRAMES);
  for (guint i = 0; i < n; i++)
    {
      guint info = frame_info (c, &items[i]);

      /* stacks="all" records C++ frames, whose names are qualified. */
      if (info & INFO_QUALIFIED)
        stack->qualified = TRUE;
      if (stack->group >= 0 && outside >= 0)
        continue;
      if (stack->group < 0)
        {
          stack->group = INFO_GROUP (info);
          if (stack->group == HR_SNAPSHOT_GROUP_FORWARD)
            for (guint j = i + 1; j < n && !stack->recomputed; j++)
              stack->recomputed = (frame_info (c, &items[j]) & INFO_RECOMPUTES) != 0;
        }
      if (info & INFO_PY)
        {
          if (python < 0)
            python = i;
          if (outside < 0 && !(info & INFO_IN_TORCH))
            outside = i;
        }
    }
  if (outside < 0)
    outside = python;
  /* The frame itself (a dict, kept by the pickle), not its place in the
   * list: a reduced list's items are gone. */
  if (outside >= 0)
    {
      stack->site_value = items[outside];
      stack->site = &stack->site_value;
    }
  if (stack->group == HR_SNAPSHOT_GROUP_FORWARD && stack->recomputed)
    stack->group = HR_SNAPSHOT_GROUP_RECOMPUTED;
}

static gboolean
is_reduced (const HrPickleValue *v,
            guint                tag)
{
  return v != NULL && v->kind == HR_PICKLE_REDUCED && REDUCED_TAG (v) == tag;
}

static const Stack *
stack_info (Classifier          *c,
            const HrPickleValue *frames)
{
  Stack *stack;

  if (is_reduced (frames, REDUCED_STACK))
    return g_ptr_array_index (c->reduced, frames->v.integer);

  stack = g_hash_table_lookup (c->stacks, frames->v.container);
  if (stack != NULL)
    return stack;

  stack = g_new0 (Stack, 1);
  stack_compute (c, frames, stack);
  g_hash_table_insert (c->stacks, frames->v.container, stack);
  return stack;
}

/* A "frames" list as a reduced value: what it says, kept once for every
 * list that says the same. */
static void
stack_reduce (Classifier    *c,
              HrPickleValue *frames)
{
  Stack probe = { 0 };
  guint32 kind = frames->kind;
  Stack *stack;

  stack_compute (c, frames, &probe);
  stack = g_hash_table_lookup (c->reduced_ids, &probe);
  if (stack == NULL)
    {
      stack = g_memdup2 (&probe, sizeof probe);
      if (stack->site != NULL)
        stack->site = &stack->site_value;
      stack->self.kind = HR_PICKLE_REDUCED;
      stack->self.length = REDUCED_STACK | (HR_PICKLE_LIST << 8);
      stack->self.v.integer = c->reduced->len;
      g_ptr_array_add (c->reduced, stack);
      g_hash_table_add (c->reduced_ids, stack);
    }
  *frames = stack->self;
  frames->length = REDUCED_STACK | (kind << 8);
}

static gboolean
frames_nonempty (Classifier          *c,
                 const HrPickleValue *frames)
{
  guint n;

  if (is_reduced (frames, REDUCED_STACK))
    return stack_info (c, frames)->nonempty;
  hr_pickle_items (frames, &n);
  return n > 0;
}

static HrSnapshotGroupId
classify (Classifier          *c,
          const HrPickleValue *frames,
          gboolean             in_trace)
{
  const Stack *stack;

  if (!frames_nonempty (c, frames))
    return in_trace ? HR_SNAPSHOT_GROUP_BACKWARD_THREAD : HR_SNAPSHOT_GROUP_BEFORE_RECORDING;
  stack = stack_info (c, frames);
  return stack->group >= 0 ? (HrSnapshotGroupId) stack->group : HR_SNAPSHOT_GROUP_OTHER;
}

HrSnapshotGroupId
hr_snapshot_classify (const HrPickleValue *frames,
                      gboolean             in_trace)
{
  Classifier c;
  HrSnapshotGroupId group;

  classifier_init (&c);
  group = classify (&c, frames, in_trace);
  classifier_clear (&c);
  return group;
}

/* A string of the pickle fit to show, made once. */
static const char *
shown_text (Classifier          *c,
            const HrPickleValue *value)
{
  char *text;

  if (value == NULL || (value->kind != HR_PICKLE_STRING && value->kind != HR_PICKLE_BYTES))
    return "?";
  if (value->length == 0)
    return "";
  text = g_hash_table_lookup (c->texts, value->v.text);
  if (text == NULL)
    {
      text = hr_pickle_dup_string (value);
      g_hash_table_insert (c->texts, (gpointer) value->v.text, text);
    }
  return text;
}

/* ------------------------------------------------------------------------
 * Reading the dict
 * --------------------------------------------------------------------- */

typedef enum {
  ACTION_ALLOC,
  ACTION_FREE_REQUESTED,
  ACTION_FREE_COMPLETED,
  ACTION_SEGMENT_ALLOC,
  ACTION_SEGMENT_FREE,
  ACTION_SEGMENT_MAP,
  ACTION_SEGMENT_UNMAP,
  ACTION_OOM,
  ACTION_OTHER,          /* snapshot, annotate, and any later one */
} Action;

/* A trace entry: 40 bytes, kept for every entry (as the pickle is read
 * when it can be reduced, Reduction). */
typedef struct {
  guint64              addr;      /* for an oom, device_free */
  guint64              size;
  union {
    double             t;         /* in the device's events */
    gint64             time_us;   /* reduced, when has_time */
  };
  const HrPickleValue *frames;    /* NULL, a list, or a reduced stack */
  guint8               action;
  guint8               has_time;
  guint8               shared;    /* the memo gave it out again */
} Event;

/* An allocation live at some time. */
typedef struct {
  guint64              addr;
  guint64              size;
  const HrPickleValue *frames;
  gboolean             in_trace;
  guint                event;    /* its alloc's index, G_MAXUINT before the trace */
} Live;

typedef struct {
  const char              *name;     /* as messages show it */
  const HrMeasureOptions  *options;
  HrMeasurement           *measurement;
  HrSnapshot              *snapshot;
  GError                 **error;
  Classifier              *classifier;
} Reader;

static gboolean
schema_fail (Reader     *r,
             const char *where,
             const char *format,
             ...) G_GNUC_PRINTF (3, 4);

static gboolean
schema_fail (Reader     *r,
             const char *where,
             const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (r->error, HR_ERROR, HR_ERROR_INVALID, "%s: %s: %s", r->name, where, message);
  return FALSE;
}

/* PyTorch writes each segment, block and trace entry as a dict of its
 * own; one the pickle refers to twice would be counted twice, and makes
 * the work of reading it grow faster than the file. */
static gboolean
unshared (Reader              *r,
          const HrPickleValue *dict,
          const char          *where)
{
  if (dict->kind == HR_PICKLE_DICT && dict->v.container->uses > 1)
    return schema_fail (r, where, _("the same dict as another entry (the pickle's memo refers "
                                    "to it again); a snapshot's entries are each their own"));
  return TRUE;
}

/* An integer member of 0 or more; @out is left alone when it is missing
 * (or None) and not @required. */
static gboolean
get_size (Reader              *r,
          const HrPickleValue *dict,
          const char          *key,
          gboolean             required,
          guint64             *out,
          const char          *where)
{
  const HrPickleValue *v = hr_pickle_dict_get (dict, key);

  if (v == NULL || (v->kind == HR_PICKLE_NONE && !required))
    {
      if (required)
        return schema_fail (r, where, _("no \"%s\""), key);
      return TRUE;
    }
  if (v->kind == HR_PICKLE_BOOL || (v->kind != HR_PICKLE_INT) || v->v.integer < 0)
    {
      if (v->kind == HR_PICKLE_BIG_INT)
        return schema_fail (r, where, _("\"%s\" is larger than 2^63"), key);
      if (v->kind == HR_PICKLE_INT)
        return schema_fail (r, where, _("\"%s\" is negative (%" PRId64 ")"), key,
                            v->v.integer);
      return schema_fail (r, where, _("\"%s\" is of type %s; expected an integer"), key,
                          kind_name (v));
    }
  *out = (guint64) v->v.integer;
  return TRUE;
}

static gboolean
get_list (Reader               *r,
          const HrPickleValue  *dict,
          const char           *key,
          const HrPickleValue **items,
          guint                *n,
          const char           *where)
{
  const HrPickleValue *v = hr_pickle_dict_get (dict, key);

  *items = NULL;
  *n = 0;
  if (v == NULL || v->kind == HR_PICKLE_NONE)
    return TRUE;
  if (v->kind != HR_PICKLE_LIST && v->kind != HR_PICKLE_TUPLE)
    return schema_fail (r, where, _("\"%s\" is of type %s; expected a list"), key,
                        kind_name (v));
  *items = hr_pickle_items (v, n);
  return TRUE;
}

static const HrPickleValue *
get_frames (Classifier          *c,
            const HrPickleValue *dict)
{
  const HrPickleValue *frames = hr_pickle_dict_get (dict, "frames");

  if (is_reduced (frames, REDUCED_STACK))
    return &((const Stack *) g_ptr_array_index (c->reduced, frames->v.integer))->self;
  if (frames != NULL && (frames->kind == HR_PICKLE_LIST || frames->kind == HR_PICKLE_TUPLE))
    return frames;
  return NULL;
}


static Action
parse_action (const HrPickleValue *v)
{
  static const char * const names[] = {
    "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
    "segment_map", "segment_unmap", "oom",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      if (hr_pickle_is_string (v, names[i]))
        return (Action) i;
    }
  return ACTION_OTHER;
}

/* Open addressing, linear probing, backward-shift deletion: addresses to
 * indices into an array of Live. */
typedef struct {
  guint64 *keys;
  guint   *values;
  guint8  *used;
  guint    mask;
  guint    count;
} AddrMap;

static void
addr_map_init (AddrMap *map,
               guint    expected)
{
  guint size = 64;

  while (size < 2 * expected + 16 && size < (1u << 30))
    size *= 2;
  map->keys = g_new (guint64, size);
  map->values = g_new (guint, size);
  map->used = g_new0 (guint8, size);
  map->mask = size - 1;
  map->count = 0;
}

static void
addr_map_clear (AddrMap *map)
{
  g_free (map->keys);
  g_free (map->values);
  g_free (map->used);
}

static guint
addr_hash (guint64 addr)
{
  /* Fibonacci hashing: addresses are multiples of 512. */
  return (guint) ((addr * G_GUINT64_CONSTANT (11400714819323198485)) >> 32);
}

static gboolean
addr_map_lookup (const AddrMap *map,
                 guint64        addr,
                 guint         *value)
{
  for (guint i = addr_hash (addr) & map->mask;; i = (i + 1) & map->mask)
    {
      if (!map->used[i])
        return FALSE;
      if (map->keys[i] == addr)
        {
          if (value != NULL)
            *value = map->values[i];
          return TRUE;
        }
    }
}

static void
addr_map_grow (AddrMap *map)
{
  AddrMap bigger;

  addr_map_init (&bigger, 2 * (map->mask + 1));
  for (guint i = 0; i <= map->mask; i++)
    {
      if (map->used[i])
        {
          guint j = addr_hash (map->keys[i]) & bigger.mask;

          while (bigger.used[j])
            j = (j + 1) & bigger.mask;
          bigger.used[j] = 1;
          bigger.keys[j] = map->keys[i];
          bigger.values[j] = map->values[i];
          bigger.count++;
        }
    }
  addr_map_clear (map);
  *map = bigger;
}

static void
addr_map_insert (AddrMap *map,
                 guint64  addr,
                 guint    value)
{
  guint i;

  if (2 * (map->count + 1) > map->mask + 1)
    addr_map_grow (map);
  for (i = addr_hash (addr) & map->mask; map->used[i]; i = (i + 1) & map->mask)
    {
      if (map->keys[i] == addr)
        {
          map->values[i] = value;
          return;
        }
    }
  map->used[i] = 1;
  map->keys[i] = addr;
  map->values[i] = value;
  map->count++;
}

static gboolean
addr_map_remove (AddrMap *map,
                 guint64  addr,
                 guint   *value)
{
  guint i, j;

  for (i = addr_hash (addr) & map->mask;; i = (i + 1) & map->mask)
    {
      if (!map->used[i])
        return FALSE;
      if (map->keys[i] == addr)
        break;
    }
  if (value != NULL)
    *value = map->values[i];

  /* Shift back what probed past the hole. */
  for (j = (i + 1) & map->mask; map->used[j]; j = (j + 1) & map->mask)
    {
      guint home = addr_hash (map->keys[j]) & map->mask;

      /* j's entry may move to i when i lies cyclically in [home, j). */
      if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j))
        {
          map->keys[i] = map->keys[j];
          map->values[i] = map->values[j];
          i = j;
        }
    }
  map->used[i] = 0;
  map->count--;
  return TRUE;
}

/* What one device's pass over the trace needs. */
typedef struct {
  int      device;
  GArray  *events;        /* Event */
  GArray  *initial;       /* Live, before the trace */
  GArray  *final_blocks;  /* Live: active_allocated blocks at the end */
  guint64  reserved_end;
  gboolean has_segments;
  guint64  inactive_end;
  guint64  block_rounding;
  guint    n_segments;
  guint64  final_allocated;
} DeviceInput;

static void
device_input_free (gpointer data)
{
  DeviceInput *in = data;

  g_array_unref (in->events);
  g_array_unref (in->initial);
  g_array_unref (in->final_blocks);
  g_free (in);
}

static DeviceInput *
device_input_get (GPtrArray *inputs,
                  int        device)
{
  DeviceInput *in;

  for (guint i = 0; i < inputs->len; i++)
    {
      in = g_ptr_array_index (inputs, i);
      if (in->device == device)
        return in;
    }
  in = g_new0 (DeviceInput, 1);
  in->device = device;
  in->events = g_array_new (FALSE, FALSE, sizeof (Event));
  in->initial = g_array_new (FALSE, FALSE, sizeof (Live));
  in->final_blocks = g_array_new (FALSE, FALSE, sizeof (Live));
  g_ptr_array_add (inputs, in);
  return in;
}

static gboolean
read_segments (Reader              *r,
               const HrPickleValue *segments,
               guint                n_segments,
               GPtrArray           *inputs)
{
  for (guint i = 0; i < n_segments; i++)
    {
      const HrPickleValue *seg = &segments[i];
      const HrPickleValue *blocks;
      g_autofree char *where = g_strdup_printf ("segments[%u]", i);
      guint64 device = 0, address = 0, total = 0;
      guint n_blocks;
      DeviceInput *in;

      if (seg->kind != HR_PICKLE_DICT)
        return schema_fail (r, where, _("a value of type %s; expected a dict"),
                            kind_name (seg));
      if (!unshared (r, seg, where))
        return FALSE;
      if (!get_size (r, seg, "device", FALSE, &device, where) ||
          !get_size (r, seg, "address", FALSE, &address, where) ||
          !get_size (r, seg, "total_size", TRUE, &total, where) ||
          !get_list (r, seg, "blocks", &blocks, &n_blocks, where))
        return FALSE;
      if (device > 1024)
        return schema_fail (r, where, _("device %" PRIu64 "; expected 0 to 1024"),
                            device);

      in = device_input_get (inputs, (int) device);
      in->has_segments = TRUE;
      in->n_segments++;
      if (total > G_MAXUINT64 / 4 - in->reserved_end)
        return schema_fail (r, where, _("\"total_size\" adds up past 2^62 bytes"));
      in->reserved_end += total;

      for (guint j = 0; j < n_blocks; j++)
        {
          const HrPickleValue *b = &blocks[j];
          const HrPickleValue *state, *history;
          g_autofree char *block_where = g_strdup_printf ("segments[%u].blocks[%u]", i, j);
          guint64 size = 0, requested, block_address = address;
          Live live = { 0, 0, NULL, FALSE, G_MAXUINT };

          if (b->kind != HR_PICKLE_DICT)
            return schema_fail (r, block_where, _("a value of type %s; expected a dict"),
                                kind_name (b));
          if (!unshared (r, b, block_where))
            return FALSE;
          if (!get_size (r, b, "size", TRUE, &size, block_where) ||
              !get_size (r, b, "address", FALSE, &block_address, block_where))
            return FALSE;
          requested = size;
          if (!get_size (r, b, "requested_size", FALSE, &requested, block_where))
            return FALSE;
          live.frames = get_frames (r->classifier, b);

          /* Before PyTorch 2.1: the first history entry had the frames
           * and the size asked for (_memory_viz.py, _block_extra_legacy). */
          history = hr_pickle_dict_get (b, "history");
          if (live.frames == NULL && history != NULL)
            {
              guint n_history;
              const HrPickleValue *h = hr_pickle_items (history, &n_history);

              if (n_history > 0 && h[0].kind == HR_PICKLE_DICT)
                {
                  if (hr_pickle_dict_get (b, "requested_size") == NULL &&
                      !get_size (r, &h[0], "real_size", FALSE, &requested, block_where))
                    return FALSE;
                  live.frames = get_frames (r->classifier, &h[0]);
                }
            }

          state = hr_pickle_dict_get (b, "state");
          if (state == NULL || state->kind != HR_PICKLE_STRING)
            return schema_fail (r, block_where, _("no \"state\" string"));
          if (hr_pickle_is_string (state, "active_allocated"))
            {
              live.addr = block_address;
              live.size = MIN (requested, size);
              live.in_trace = FALSE;
              if (live.size > G_MAXUINT64 / 4 - in->final_allocated)
                return schema_fail (r, block_where, _("block sizes add up past 2^62 bytes"));
              in->final_allocated += live.size;
              in->block_rounding += size - live.size;
              g_array_append_val (in->final_blocks, live);
            }
          else if (hr_pickle_is_string (state, "inactive"))
            in->inactive_end += size;
          address = block_address + size;
        }
    }
  return TRUE;
}

/* The trace entries reduced as the pickle is read. */
typedef struct {
  Classifier *classifier;
  GArray     *events;      /* Event */
} Reduction;

/* @dict as a trace entry, when it is one the reader would take as it is
 * (read_trace gives the messages for the others, from the dict). */
static gboolean
event_reduce (Reduction           *red,
              const HrPickleValue *dict,
              Event               *event)
{
  const HrPickleValue *action = hr_pickle_dict_get (dict, "action");
  const HrPickleValue *frames, *time_us;

  if (action == NULL || action->kind != HR_PICKLE_STRING)
    return FALSE;
  memset (event, 0, sizeof *event);
  event->action = parse_action (action);
  if (event->action != ACTION_OTHER)
    {
      const HrPickleValue *addr = hr_pickle_dict_get (dict, "addr");
      const HrPickleValue *size = hr_pickle_dict_get (dict, "size");

      if (size == NULL || size->kind != HR_PICKLE_INT || size->v.integer < 0 ||
          size->v.integer >= (G_GINT64_CONSTANT (1) << 50))
        return FALSE;
      event->size = (guint64) size->v.integer;
      if (event->action == ACTION_OOM)
        {
          const HrPickleValue *free = hr_pickle_dict_get (dict, "device_free");

          if (free != NULL && free->kind != HR_PICKLE_NONE &&
              (free->kind != HR_PICKLE_INT || free->v.integer < 0))
            return FALSE;
          if (free != NULL && free->kind == HR_PICKLE_INT)
            event->addr = (guint64) free->v.integer;
        }
      else if (addr != NULL && addr->kind == HR_PICKLE_INT && addr->v.integer >= 0)
        event->addr = (guint64) addr->v.integer;
      else
        return FALSE;
    }

  frames = hr_pickle_dict_get (dict, "frames");
  if (frames != NULL && (frames->kind == HR_PICKLE_LIST || frames->kind == HR_PICKLE_TUPLE))
    return FALSE;   /* a list not reduced: shared before it was stored */
  event->frames = get_frames (red->classifier, dict);

  time_us = hr_pickle_dict_get (dict, "time_us");
  if (time_us != NULL && time_us->kind == HR_PICKLE_INT)
    {
      if (time_us->v.integer > (G_GINT64_CONSTANT (1) << 62) ||
          time_us->v.integer < -(G_GINT64_CONSTANT (1) << 62))
        return FALSE;
      event->has_time = TRUE;
      event->time_us = time_us->v.integer;
    }
  return TRUE;
}

/* The pickle's reader keeps of a trace entry its Event, and of a stack
 * what the rules say of it: not its frames, strings and dicts. */
static gboolean
reduce_cb (guint32              parent_kind,
           const HrPickleValue *key,
           HrPickleValue       *value,
           gpointer             user_data)
{
  Reduction *red = user_data;

  if (parent_kind == HR_PICKLE_DICT)
    {
      if ((value->kind == HR_PICKLE_LIST || value->kind == HR_PICKLE_TUPLE) &&
          hr_pickle_is_string (key, "frames"))
        {
          stack_reduce (red->classifier, value);
          return TRUE;
        }
      return FALSE;
    }

  if (value->kind == HR_PICKLE_DICT && red->events->len < G_MAXUINT32)
    {
      Event event;

      if (!event_reduce (red, value, &event))
        return FALSE;
      g_array_append_val (red->events, event);
      value->kind = HR_PICKLE_REDUCED;
      value->length = REDUCED_EVENT | (HR_PICKLE_DICT << 8);
      value->v.integer = red->events->len - 1;
      return TRUE;
    }
  return FALSE;
}

static void
reused_cb (const HrPickleValue *value,
           gpointer             user_data)
{
  Reduction *red = user_data;

  if (is_reduced (value, REDUCED_EVENT))
    g_array_index (red->events, Event, value->v.integer).shared = TRUE;
}

static gboolean
read_trace (Reader              *r,
            Reduction           *red,
            const HrPickleValue *trace,
            guint                index,
            DeviceInput         *in,
            gboolean            *has_times)
{
  const HrPickleValue *entries;
  gboolean times = TRUE;
  gboolean whole;
  gint64 t0 = 0;
  guint n;

  if (trace->kind != HR_PICKLE_LIST && trace->kind != HR_PICKLE_TUPLE)
    {
      g_autofree char *where = g_strdup_printf ("device_traces[%u]", index);

      return schema_fail (r, where, _("a value of type %s; expected a list"), kind_name (trace));
    }
  entries = hr_pickle_items (trace, &n);
  g_array_set_size (in->events, 0);

  /* One trace holding every entry reduced, in order (one device): its
   * events are those, taken as they are rather than copied. */
  whole = n > 0 && n == red->events->len;
  for (guint i = 0; i < n && whole; i++)
    whole = is_reduced (&entries[i], REDUCED_EVENT) && entries[i].v.integer == i;
  if (whole)
    {
      GArray *events = in->events;

      in->events = red->events;
      red->events = events;
    }

  for (guint i = 0; i < n; i++)
    {
      const HrPickleValue *e = &entries[i];
      const HrPickleValue *time_us;
      Event event = { 0 };

      if (whole || (is_reduced (e, REDUCED_EVENT) && e->v.integer < red->events->len))
        {
          event = whole ? g_array_index (in->events, Event, i)
                        : g_array_index (red->events, Event, e->v.integer);
          if (event.shared)
            {
              g_autofree char *where = g_strdup_printf ("device_traces[%u][%u]", index, i);

              return schema_fail (r, where, _("the same dict as another entry (the pickle's "
                                              "memo refers to it again); a snapshot's entries "
                                              "are each their own"));
            }
          if (event.has_time && times)
            {
              if (i == 0)
                t0 = event.time_us;
              event.t = (double) (event.time_us - t0) / 1e6;
            }
          else
            {
              times = FALSE;
              event.t = 0;
            }
          if (whole)
            g_array_index (in->events, Event, i) = event;
          else
            g_array_append_val (in->events, event);
          continue;
        }

      if (e->kind != HR_PICKLE_DICT || e->v.container->uses > 1)
        {
          g_autofree char *where = g_strdup_printf ("device_traces[%u][%u]", index, i);

          if (!unshared (r, e, where))
            return FALSE;
          if (is_reduced (e, REDUCED_EVENT))
            return schema_fail (r, where, _("the same dict as another entry (the pickle's "
                                            "memo refers to it again); a snapshot's entries "
                                            "are each their own"));
          return schema_fail (r, where, _("a value of type %s; expected a dict"),
                              kind_name (e));
        }

      event.action = parse_action (hr_pickle_dict_get (e, "action"));
      if (event.action != ACTION_OTHER)
        {
          g_autofree char *where = NULL;
          const HrPickleValue *addr = hr_pickle_dict_get (e, "addr");
          const HrPickleValue *size = hr_pickle_dict_get (e, "size");

          /* The common case without a message made for it. */
          if (addr != NULL && addr->kind == HR_PICKLE_INT && addr->v.integer >= 0 &&
              size != NULL && size->kind == HR_PICKLE_INT && size->v.integer >= 0 &&
              size->v.integer < (G_GINT64_CONSTANT (1) << 50))
            {
              event.addr = (guint64) addr->v.integer;
              event.size = (guint64) size->v.integer;
            }
          else
            {
              where = g_strdup_printf ("device_traces[%u][%u]", index, i);
              if (!get_size (r, e, "size", TRUE, &event.size, where))
                return FALSE;
              if (event.size >= (G_GUINT64_CONSTANT (1) << 50))
                return schema_fail (r, where, _("\"size\" of %" PRIu64 " bytes (over a "
                                                "petabyte)"), event.size);
              if (event.action != ACTION_OOM &&
                  !get_size (r, e, "addr", TRUE, &event.addr, where))
                return FALSE;
            }
          if (event.action == ACTION_OOM)
            {
              g_autofree char *oom_where = g_strdup_printf ("device_traces[%u][%u]", index, i);
              guint64 device_free = 0;

              if (!get_size (r, e, "device_free", FALSE, &device_free, oom_where))
                return FALSE;
              event.addr = device_free;
            }
        }
      event.frames = get_frames (r->classifier, e);

      time_us = hr_pickle_dict_get (e, "time_us");
      if (time_us != NULL && time_us->kind == HR_PICKLE_INT && times)
        {
          /* Microseconds since 1970 are 1.7·10^15 today; within 2^62 the
           * difference of two stays a gint64. */
          if (time_us->v.integer > (G_GINT64_CONSTANT (1) << 62) ||
              time_us->v.integer < -(G_GINT64_CONSTANT (1) << 62))
            {
              g_autofree char *where = g_strdup_printf ("device_traces[%u][%u]", index, i);

              return schema_fail (r, where, _("\"time_us\" of %" PRId64 " is not a "
                                              "time in microseconds"), time_us->v.integer);
            }
          if (in->events->len == 0)
            t0 = time_us->v.integer;
          event.t = (double) (time_us->v.integer - t0) / 1e6;
        }
      else
        times = FALSE;
      g_array_append_val (in->events, event);
    }

  /* Without times, t counts the trace's entries. */
  if (!times)
    {
      for (guint i = 0; i < in->events->len; i++)
        g_array_index (in->events, Event, i).t = i;
    }
  *has_times = *has_times && (times || n == 0);
  return TRUE;
}

static void
add_setting (HrSnapshot          *snapshot,
             const char          *key,
             const HrPickleValue *value)
{
  char *text;

  switch (value->kind)
    {
    case HR_PICKLE_NONE:
      text = g_strdup ("None");
      break;
    case HR_PICKLE_BOOL:
      text = g_strdup (value->v.boolean ? "True" : "False");
      break;
    case HR_PICKLE_INT:
      text = g_strdup_printf ("%" G_GINT64_FORMAT, value->v.integer);
      break;
    case HR_PICKLE_FLOAT:
    case HR_PICKLE_BIG_INT:
      {
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        text = g_strdup (g_ascii_dtostr (buffer, sizeof buffer, value->v.real));
        break;
      }
    case HR_PICKLE_STRING:
      text = hr_pickle_dup_string (value);
      break;
    case HR_PICKLE_DICT:
      {
        GString *s = g_string_new ("{");
        const HrPickleContainer *c = value->v.container;

        for (guint i = 0; i < c->length && i < 32; i++)
          {
            const HrPickleValue *k = &c->items[2 * i], *v = &c->items[2 * i + 1];
            g_autofree char *ks = hr_pickle_dup_string (k);

            if (v->kind == HR_PICKLE_INT)
              g_string_append_printf (s, "%s%s: %" G_GINT64_FORMAT, i > 0 ? ", " : "", ks,
                                      v->v.integer);
            else
              g_string_append_printf (s, "%s%s: %s", i > 0 ? ", " : "", ks,
                                      kind_name (v));
          }
        g_string_append_c (s, '}');
        text = g_string_free (s, FALSE);
        break;
      }
    default:
      text = g_strdup (kind_name (value));
      break;
    }

  g_ptr_array_add (snapshot->setting_keys, g_strdup (key));
  g_ptr_array_add (snapshot->setting_values, text);
}

/* ------------------------------------------------------------------------
 * One device's timeline
 * --------------------------------------------------------------------- */

static void
note (Reader     *r,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static void
note (Reader     *r,
      const char *format,
      ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (r->measurement->notes, g_strdup_vprintf (format, args));
  va_end (args);
}

typedef struct {
  HrMeasureSeries  *series;
  HrMeasureThinner *thinner;
} Timeline;

static void
timeline_add (Timeline *tl,
              double    t,
              guint64   bytes,
              guint     line)
{
  HrMeasurePoint p = { NAN, NAN, t, (double) bytes, line };

  if ((double) bytes > tl->series->peak || tl->series->n_points == 0)
    tl->series->peak = (double) bytes;
  tl->series->n_points++;
  if (tl->thinner != NULL)
    hr_measure_thinner_add (tl->thinner, &p);
  else
    g_array_append_val (tl->series->points, p);
}

static void
timeline_finish (Timeline *tl)
{
  HrMeasureSeries *s = tl->series;

  if (tl->thinner != NULL)
    {
      hr_measure_thinner_flush (tl->thinner, s->points);
      g_clear_pointer (&tl->thinner, hr_measure_thinner_free);
    }
  s->peak_index = 0;
  for (guint i = 0; i < s->points->len; i++)
    {
      if (g_array_index (s->points, HrMeasurePoint, i).bytes == s->peak)
        {
          s->peak_index = i;
          break;
        }
    }
}

static HrSnapshotGroupId
classify_live (Classifier *c,
               const Live *live)
{
  return classify (c, live->frames, live->in_trace);
}

static void
add_site (Classifier        *c,
          const Live        *live,
          HrSnapshotGroupId  group)
{
  const HrPickleValue *frame = NULL;
  const char *file = NULL, *function = NULL;
  g_autofree char *key = NULL;
  guint line = 0;
  Site *site;

  if (frames_nonempty (c, live->frames))
    frame = stack_info (c, live->frames)->site;
  if (frame != NULL)
    {
      const HrPickleValue *l = hr_pickle_dict_get (frame, "line");

      file = shown_text (c, hr_pickle_dict_get (frame, "filename"));
      function = shown_text (c, hr_pickle_dict_get (frame, "name"));
      if (l != NULL && l->kind == HR_PICKLE_INT && l->v.integer >= 0)
        line = (guint) MIN (l->v.integer, G_MAXUINT);
    }

  /* The classifier's strings are one per text: their addresses say it. */
  key = g_strdup_printf ("%p\n%u\n%p\n%u", (gpointer) file, line, (gpointer) function,
                         (guint) group);
  site = g_hash_table_lookup (c->sites, key);
  if (site == NULL)
    {
      site = g_new0 (Site, 1);
      site->filename = file;
      site->function = function;
      site->line = line;
      site->group = group;
      g_hash_table_insert (c->sites, g_steal_pointer (&key), site);
    }
  site->bytes += live->size;
  site->count++;
}

static int
compare_sites (gconstpointer a,
               gconstpointer b)
{
  const Site *x = *(Site * const *) a;
  const Site *y = *(Site * const *) b;
  int cmp;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  /* The rest only so that equal sites keep one order whatever the hash
   * table's (which follows addresses in memory). */
  cmp = g_strcmp0 (x->filename, y->filename);
  if (cmp != 0)
    return cmp;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  cmp = g_strcmp0 (x->function, y->function);
  if (cmp != 0)
    return cmp;
  return (int) x->group - (int) y->group;
}

/* Live allocations: the map points into this. */
typedef struct {
  GArray  *lives;   /* Live */
  AddrMap  map;
  guint64  total;
} LiveSet;

static void
live_set_init (LiveSet *set,
               guint    expected)
{
  set->lives = g_array_new (FALSE, FALSE, sizeof (Live));
  addr_map_init (&set->map, expected);
  set->total = 0;
}

static void
live_set_clear (LiveSet *set)
{
  g_array_unref (set->lives);
  addr_map_clear (&set->map);
}

static void
live_set_remove (LiveSet *set,
                 guint64  addr)
{
  guint index, last;

  if (!addr_map_remove (&set->map, addr, &index))
    return;
  set->total -= g_array_index (set->lives, Live, index).size;
  /* The last one fills the hole. */
  last = set->lives->len - 1;
  if (index != last)
    {
      Live moved = g_array_index (set->lives, Live, last);

      g_array_index (set->lives, Live, index) = moved;
      addr_map_insert (&set->map, moved.addr, index);
    }
  g_array_set_size (set->lives, last);
}

static void
live_set_add (LiveSet    *set,
              const Live *live)
{
  /* An address given out twice without a free: the trace lost the free. */
  live_set_remove (set, live->addr);
  addr_map_insert (&set->map, live->addr, set->lives->len);
  g_array_append_val (set->lives, *live);
  set->total += live->size;
}

/* Runs @in's events over @set from the allocations live before the trace;
 * stops after event @stop_after (G_MAXUINT: all).  Calls @step after each
 * event, saying whether it changed what is allocated. */
static void
simulate (const DeviceInput *in,
          LiveSet           *set,
          guint              stop_after,
          void             (*step) (guint index, const Event *e, guint64 total,
                                    gboolean changed, gpointer data),
          gpointer           data)
{
  for (guint i = 0; i < in->initial->len; i++)
    live_set_add (set, &g_array_index (in->initial, Live, i));

  for (guint i = 0; i < in->events->len && (stop_after == G_MAXUINT || i <= stop_after); i++)
    {
      const Event *e = &g_array_index (in->events, Event, i);
      guint64 before = set->total;

      switch (e->action)
        {
        case ACTION_ALLOC:
          {
            Live live = { e->addr, e->size, e->frames, TRUE, i };

            live_set_add (set, &live);
            break;
          }
        case ACTION_FREE_REQUESTED:
        case ACTION_FREE_COMPLETED:
          /* torch's allocated_bytes drops at free(); the completion of a
           * free already requested finds nothing left to remove. */
          live_set_remove (set, e->addr);
          break;
        default:
          break;
        }
      if (step != NULL)
        step (i, e, set->total, set->total != before || e->action == ACTION_ALLOC, data);
    }
}

/* What was live before the trace: frees of addresses it never saw
 * allocated, and blocks active at the end that no traced allocation
 * accounts for (MemoryViz.js, process_alloc_data). */
static void
find_initial (DeviceInput *in)
{
  AddrMap traced, pending;

  addr_map_init (&traced, 1024);
  addr_map_init (&pending, 1024);
  for (guint i = 0; i < in->events->len; i++)
    {
      const Event *e = &g_array_index (in->events, Event, i);

      switch (e->action)
        {
        case ACTION_ALLOC:
          addr_map_insert (&traced, e->addr, i);
          break;
        case ACTION_FREE_REQUESTED:
        case ACTION_FREE_COMPLETED:
          if (addr_map_remove (&traced, e->addr, NULL))
            {
              if (e->action == ACTION_FREE_REQUESTED)
                addr_map_insert (&pending, e->addr, i);
            }
          else if (addr_map_remove (&pending, e->addr, NULL))
            ;
          else
            {
              Live live = { e->addr, e->size, e->frames, FALSE, G_MAXUINT };

              g_array_append_val (in->initial, live);
              if (e->action == ACTION_FREE_REQUESTED)
                addr_map_insert (&pending, e->addr, i);
            }
          break;
        default:
          break;
        }
    }

  for (guint i = 0; i < in->final_blocks->len; i++)
    {
      const Live *b = &g_array_index (in->final_blocks, Live, i);

      if (!addr_map_lookup (&traced, b->addr, NULL))
        g_array_append_val (in->initial, *b);
    }

  addr_map_clear (&traced);
  addr_map_clear (&pending);
}

typedef struct {
  Timeline  timeline;
  guint64   peak;
  guint     peak_event;   /* G_MAXUINT: before the first event */
  double    peak_t;
  GArray   *ooms;         /* HrSnapshotOom */
} AllocatedRun;

static void
allocated_step_cb (guint        index,
                   const Event *e,
                   guint64      total,
                   gboolean     changed,
                   gpointer     data)
{
  AllocatedRun *run = data;

  if (e->action == ACTION_OOM)
    {
      HrSnapshotOom oom = { e->t, e->size, e->addr, total, 0 };

      g_array_append_val (run->ooms, oom);
    }
  if (!changed)
    return;
  timeline_add (&run->timeline, e->t, total, index + 1);
  if (total > run->peak)
    {
      run->peak = total;
      run->peak_event = index;
      run->peak_t = e->t;
    }
}

/* Reserved memory when the trace starts: from the end back to the start
 * (the segments, or the lowest the trace goes). */
static gint64
reserved_start_of (Reader            *r,
                   const DeviceInput *in)
{
  gint64 net = 0, lowest = 0;
  gint64 reserved_start;

  for (guint i = 0; i < in->events->len; i++)
    {
      const Event *e = &g_array_index (in->events, Event, i);

      if (e->action == ACTION_SEGMENT_ALLOC || e->action == ACTION_SEGMENT_MAP)
        net += (gint64) e->size;
      else if (e->action == ACTION_SEGMENT_FREE || e->action == ACTION_SEGMENT_UNMAP)
        net -= (gint64) e->size;
      lowest = MIN (lowest, net);
    }
  reserved_start = in->has_segments ? (gint64) in->reserved_end - net : -lowest;
  if (reserved_start + lowest < 0)
    {
      if (in->has_segments)
        note (r, _("GPU %d: the trace frees more segment memory than the segments and the "
                   "trace account for; reserved memory is counted from 0"), in->device);
      reserved_start = -lowest;
    }
  if (!in->has_segments && in->events->len > 0)
    note (r, _("GPU %d: the snapshot has no segments; reserved memory before the trace is "
               "not known and is counted from 0"), in->device);
  return reserved_start;
}

/* Allocated: the first pass finds the peak, and @run's timeline. */
static void
allocated_pass (Reader           *r,
                DeviceInput      *in,
                HrSnapshotDevice *dev,
                AllocatedRun     *run,
                double            t_first)
{
  LiveSet set;

  live_set_init (&set, in->initial->len + 1024);
  for (guint i = 0; i < in->initial->len; i++)
    live_set_add (&set, &g_array_index (in->initial, Live, i));
  dev->allocated_start = set.total;
  live_set_clear (&set);

  run->peak = dev->allocated_start;
  run->peak_t = t_first;
  timeline_add (&run->timeline, t_first, dev->allocated_start, 0);

  run->ooms = dev->ooms;
  live_set_init (&set, in->initial->len + 1024);
  simulate (in, &set, G_MAXUINT, allocated_step_cb, run);
  dev->allocated_end = set.total;
  live_set_clear (&set);

  dev->allocated_peak = run->peak;
  dev->allocated_peak_t = run->peak_t;
  dev->allocated_peak_event = run->peak_event == G_MAXUINT ? 0 : run->peak_event + 1;
  timeline_finish (&run->timeline);

  if (in->has_segments && dev->allocated_end != in->final_allocated)
    note (r, _("GPU %d: the trace ends with %" PRIu64 " bytes allocated, the "
               "segments hold %" PRIu64 ": the trace lost entries"),
          in->device, dev->allocated_end, in->final_allocated);
}

/* Reserved, forward; and the out-of-memory events on the way. */
static void
reserved_pass (const DeviceInput *in,
               HrSnapshotDevice  *dev,
               Timeline          *reserved,
               guint              peak_event,
               gint64             reserved_start,
               double             t_first)
{
  gint64 level;
  guint64 reserved_now;
  guint oom_index = 0;

  level = reserved_start;
  dev->reserved_start = (guint64) reserved_start;
  dev->reserved_peak = (guint64) level;
  dev->reserved_peak_t = t_first;
  timeline_add (reserved, t_first, (guint64) level, 0);
  dev->reserved_at_allocated_peak = peak_event == G_MAXUINT ? (guint64) level : 0;
  for (guint i = 0; i < in->events->len; i++)
    {
      const Event *e = &g_array_index (in->events, Event, i);
      gboolean changed = TRUE;

      if (e->action == ACTION_SEGMENT_ALLOC || e->action == ACTION_SEGMENT_MAP)
        level += (gint64) e->size;
      else if (e->action == ACTION_SEGMENT_FREE || e->action == ACTION_SEGMENT_UNMAP)
        level -= (gint64) e->size;
      else
        changed = FALSE;

      if (changed)
        {
          timeline_add (reserved, e->t, (guint64) level, i + 1);
          if ((guint64) level > dev->reserved_peak)
            {
              dev->reserved_peak = (guint64) level;
              dev->reserved_peak_t = e->t;
            }
        }
      if (i == peak_event)
        dev->reserved_at_allocated_peak = (guint64) level;
      if (e->action == ACTION_OOM && oom_index < dev->ooms->len)
        g_array_index (dev->ooms, HrSnapshotOom, oom_index++).reserved = (guint64) level;
    }
  reserved_now = (guint64) level;
  dev->reserved_end = in->has_segments ? in->reserved_end : reserved_now;
  timeline_finish (reserved);
}

/* What was live at the allocated peak, by group: the second pass stops
 * there. */
static void
classify_peak (Reader           *r,
               DeviceInput      *in,
               HrSnapshotDevice *dev,
               guint             peak_event)
{
  Classifier *c = r->classifier;
  LiveSet set;

  live_set_init (&set, in->initial->len + 1024);
  if (peak_event == G_MAXUINT)
    {
      for (guint i = 0; i < in->initial->len; i++)
        live_set_add (&set, &g_array_index (in->initial, Live, i));
    }
  else
    simulate (in, &set, peak_event, NULL, NULL);
  g_assert (set.total == dev->allocated_peak);

  {
    /* Still live when the trace ends: state rather than a temporary. */
    AddrMap at_end;
    LiveSet end_set;

    live_set_init (&end_set, in->initial->len + 1024);
    simulate (in, &end_set, G_MAXUINT, NULL, NULL);
    at_end = end_set.map;

    for (guint i = 0; i < set.lives->len; i++)
      {
        const Live *live = &g_array_index (set.lives, Live, i);
        HrSnapshotGroupId group = classify_live (c, live);
        guint index;

        if (group == HR_SNAPSHOT_GROUP_OPTIMIZER_STEP &&
            addr_map_lookup (&at_end, live->addr, &index) &&
            g_array_index (end_set.lives, Live, index).event == live->event)
          group = HR_SNAPSHOT_GROUP_OPTIMIZER_STATE;

        dev->groups[group] += live->size;
        dev->buckets[hr_snapshot_group_bucket (group)] += live->size;
        dev->live_count++;
        add_site (c, live, group);
      }
    live_set_clear (&end_set);
  }
  live_set_clear (&set);
}

/* The sites that hold the most at the peak, each with its own copy of
 * its strings; the classifier's are cleared for the next device. */
static void
keep_sites (Classifier       *c,
            HrSnapshotDevice *dev)
{
  GHashTableIter iter;
  gpointer value;
  g_autoptr(GPtrArray) sites = g_ptr_array_new ();

  g_hash_table_iter_init (&iter, c->sites);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (sites, value);
  g_ptr_array_sort (sites, compare_sites);
  /* Only the sites kept get their own copies of the strings. */
  for (guint i = 0; i < sites->len && i < MAX_SITES; i++)
    {
      const Site *from = g_ptr_array_index (sites, i);
      HrSnapshotSite *site = g_new0 (HrSnapshotSite, 1);

      site->filename = g_strdup (from->filename);
      site->line = from->line;
      site->function = g_strdup (from->function);
      site->group = from->group;
      site->bytes = from->bytes;
      site->count = from->count;
      g_ptr_array_add (dev->sites, site);
    }
  g_hash_table_remove_all (c->sites);
}

/* A note for each time the device ran out of memory. */
static void
note_ooms (Reader                 *r,
           const DeviceInput      *in,
           const HrSnapshotDevice *dev)
{
  for (guint i = 0; i < dev->ooms->len; i++)
    {
      const HrSnapshotOom *oom = &g_array_index (dev->ooms, HrSnapshotOom, i);

      note (r, _("GPU %d ran out of memory at t = %.3f s: %.3f GiB asked for, %.3f GiB free on "
                 "the device, %.3f GiB allocated, %.3f GiB reserved"), in->device, oom->t,
            oom->requested / 1073741824.0, oom->device_free / 1073741824.0,
            oom->allocated / 1073741824.0, oom->reserved / 1073741824.0);
    }
}

static gboolean
read_device (Reader      *r,
             DeviceInput *in)
{
  HrSnapshotDevice *dev = hr_snapshot_add_device (r->snapshot, in->device);
  /* Names in --json never change with the language. */
  g_autofree char *allocated_name = g_strdup_printf ("GPU %d allocated", in->device);
  g_autofree char *reserved_name = g_strdup_printf ("GPU %d reserved", in->device);
  guint max_points = r->options->max_time_points;
  AllocatedRun run = { { NULL, NULL }, 0, G_MAXUINT, 0, NULL };
  Timeline reserved = { NULL, NULL };
  double t_first = in->events->len > 0 ? g_array_index (in->events, Event, 0).t : 0;
  gint64 reserved_start;

  dev->n_events = in->events->len;
  dev->n_segments = in->n_segments;
  dev->inactive_end = in->inactive_end;
  dev->block_rounding = in->block_rounding;

  dev->allocated = hr_measure_series_new (allocated_name, HR_METRIC_ALLOCATED);
  dev->reserved = hr_measure_series_new (reserved_name, HR_METRIC_RESERVED);
  g_ptr_array_add (r->measurement->series, dev->allocated);
  g_ptr_array_add (r->measurement->series, dev->reserved);

  reserved_start = reserved_start_of (r, in);

  find_initial (in);

  run.timeline.series = dev->allocated;
  if (max_points > 0)
    {
      run.timeline.thinner = hr_measure_thinner_new (max_points);
      reserved.thinner = hr_measure_thinner_new (max_points);
    }
  reserved.series = dev->reserved;

  allocated_pass (r, in, dev, &run, t_first);
  reserved_pass (in, dev, &reserved, run.peak_event, reserved_start, t_first);
  classify_peak (r, in, dev, run.peak_event);
  keep_sites (r->classifier, dev);
  note_ooms (r, in, dev);
  return TRUE;
}

gboolean
hr_measurement_read_snapshot (HrMeasurement          *measurement,
                              const char             *shown_name,
                              const guint8           *data,
                              gsize                   length,
                              const HrMeasureOptions *options,
                              GError                **error)
{
  return hr_measurement_read_snapshot_full (measurement, shown_name, data, length, FALSE,
                                            options, error);
}

/* The snapshot's segments and device traces: a list of segments
 * (torch.cuda.memory_snapshot(), no trace), or a dict of both. */
static gboolean
find_root_lists (Reader               *r,
                 const HrPickleValue  *root,
                 const HrPickleValue **segments,
                 guint                *n_segments,
                 const HrPickleValue **traces,
                 guint                *n_traces)
{
  if (root->kind == HR_PICKLE_LIST)
    *segments = hr_pickle_items (root, n_segments);
  else if (root->kind == HR_PICKLE_DICT)
    {
      if (!get_list (r, root, "segments", segments, n_segments, _("the snapshot")) ||
          !get_list (r, root, "device_traces", traces, n_traces, _("the snapshot")))
        return FALSE;
      if (hr_pickle_dict_get (root, "segments") == NULL &&
          hr_pickle_dict_get (root, "device_traces") == NULL)
        {
          g_set_error (r->error, HR_ERROR, HR_ERROR_INVALID,
                       _("%s: a pickled dict without \"segments\" or \"device_traces\": not a "
                         "PyTorch memory snapshot (torch.cuda.memory._dump_snapshot)"),
                       r->name);
          return FALSE;
        }
    }
  else
    {
      g_set_error (r->error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: a pickled value of type %s; a PyTorch memory snapshot is a dict "
                     "(torch.cuda.memory._dump_snapshot)"),
                   r->name, kind_name (root));
      return FALSE;
    }
  return TRUE;
}

/* Each device's trace into its input. */
static gboolean
read_traces (Reader              *r,
             Reduction           *red,
             const HrPickleValue *traces,
             guint                n_traces,
             GPtrArray           *inputs,
             gboolean            *has_times)
{
  for (guint i = 0; i < n_traces; i++)
    {
      DeviceInput *in;
      guint n;

      hr_pickle_items (&traces[i], &n);
      if (n == 0 && (traces[i].kind == HR_PICKLE_LIST || traces[i].kind == HR_PICKLE_TUPLE))
        continue;
      if (i > 1024)
        return schema_fail (r, _("device_traces"), _("more than 1024 devices"));
      in = device_input_get (inputs, (int) i);
      if (!read_trace (r, red, &traces[i], i, in, has_times))
        return FALSE;
      r->measurement->rows += in->events->len;
    }
  return TRUE;
}

/* The allocator's settings, as the snapshot gives them. */
static void
read_settings (HrSnapshot          *snapshot,
               const HrPickleValue *root)
{
  const HrPickleValue *settings;

  settings = root->kind == HR_PICKLE_DICT ? hr_pickle_dict_get (root, "allocator_settings") : NULL;
  if (settings != NULL && settings->kind == HR_PICKLE_DICT)
    {
      const HrPickleContainer *c = settings->v.container;

      for (guint i = 0; i < c->length && i < 64; i++)
        {
          g_autofree char *key = hr_pickle_dup_string (&c->items[2 * i]);

          add_setting (snapshot, key, &c->items[2 * i + 1]);
        }
    }
}

/* Headroom's probe (--snapshot) adds what it ran: micro_batch, model... */
static void
read_probe_keys (HrMeasurement       *measurement,
                 const HrPickleValue *root)
{
  const HrPickleValue *probe;

  probe = root->kind == HR_PICKLE_DICT ? hr_pickle_dict_get (root, "headroom_probe") : NULL;
  if (probe != NULL && probe->kind == HR_PICKLE_DICT)
    {
      const HrPickleContainer *c = probe->v.container;

      for (guint i = 0; i < c->length && i < 64; i++)
        {
          const HrPickleValue *v = &c->items[2 * i + 1];
          char *value;

          if (c->items[2 * i].kind != HR_PICKLE_STRING)
            continue;
          if (v->kind == HR_PICKLE_INT)
            value = g_strdup_printf ("%" G_GINT64_FORMAT, v->v.integer);
          else if (v->kind == HR_PICKLE_STRING)
            value = hr_pickle_dup_string (v);
          else
            continue;
          g_ptr_array_add (measurement->config_keys, hr_pickle_dup_string (&c->items[2 * i]));
          g_ptr_array_add (measurement->config_values, value);
        }
    }
}

/* Devices in order. */
static void
sort_devices (GPtrArray *inputs)
{
  for (guint i = 0; i < inputs->len; i++)
    for (guint j = i + 1; j < inputs->len; j++)
      {
        if (((DeviceInput *) g_ptr_array_index (inputs, j))->device <
            ((DeviceInput *) g_ptr_array_index (inputs, i))->device)
          {
            gpointer tmp = inputs->pdata[i];

            inputs->pdata[i] = inputs->pdata[j];
            inputs->pdata[j] = tmp;
          }
      }
}

/* Whether the device's events and blocks hold stacks, and C++ ones. */
static void
find_frames (HrSnapshot        *snapshot,
             Classifier        *classifier,
             const DeviceInput *in)
{
  for (guint j = 0; j < in->events->len && !snapshot->has_frames; j++)
    snapshot->has_frames =
      frames_nonempty (classifier, g_array_index (in->events, Event, j).frames);
  for (guint j = 0; j < in->final_blocks->len && !snapshot->has_frames; j++)
    snapshot->has_frames =
      frames_nonempty (classifier, g_array_index (in->final_blocks, Live, j).frames);
  /* stacks="all" records C++ frames, whose names are qualified. */
  for (guint j = 0; j < in->events->len && j < 4096 && !snapshot->has_cpp_frames; j++)
    {
      const HrPickleValue *frames = g_array_index (in->events, Event, j).frames;

      snapshot->has_cpp_frames = frames_nonempty (classifier, frames) &&
                                   stack_info (classifier, frames)->qualified;
    }
}

static gboolean
read_snapshot (HrMeasurement          *measurement,
               const char             *shown_name,
               const guint8           *data,
               gsize                   length,
               gboolean                mapped,
               const HrMeasureOptions *options,
               Reduction              *red,
               GError                **error)
{
  g_autoptr(HrPickle) pickle = NULL;
  HrPickleOptions pickle_options = { NULL, reduce_cb, reused_cb, red, mapped };
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (device_input_free);
  const HrPickleValue *root, *segments = NULL, *traces = NULL;
  HrMeasureOptions defaults = { 0 };
  guint n_segments = 0, n_traces = 0;
  gboolean has_times = TRUE;
  Classifier *classifier = red->classifier;
  Reader r = { shown_name, options != NULL ? options : &defaults, measurement, NULL, error,
               classifier };

  g_return_val_if_fail (measurement != NULL, FALSE);

  pickle = hr_pickle_parse_full (shown_name, data, length, &pickle_options, error);
  if (pickle == NULL)
    return FALSE;
  root = hr_pickle_get_root (pickle);

  if (!find_root_lists (&r, root, &segments, &n_segments, &traces, &n_traces))
    return FALSE;

  measurement->format = HR_MEASURE_FORMAT_TORCH_SNAPSHOT;
  r.snapshot = hr_snapshot_new ();
  r.snapshot->protocol = hr_pickle_get_protocol (pickle);
  measurement->snapshot = r.snapshot;

  if (!read_segments (&r, segments, n_segments, inputs))
    return FALSE;

  if (!read_traces (&r, red, traces, n_traces, inputs, &has_times))
    return FALSE;
  /* Each device has its events now. */
  g_array_unref (red->events);
  red->events = g_array_new (FALSE, FALSE, sizeof (Event));

  read_settings (r.snapshot, root);
  read_probe_keys (measurement, root);

  if (inputs->len == 0)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                   _("%s: no measurements: the snapshot holds no segments and no trace (was "
                     "_record_memory_history() on, and memory allocated, before the dump?)"),
                   shown_name);
      return FALSE;
    }

  sort_devices (inputs);

  r.snapshot->has_times = has_times;
  for (guint i = 0; i < inputs->len; i++)
    {
      DeviceInput *in = g_ptr_array_index (inputs, i);

      find_frames (r.snapshot, classifier, in);
      if (!read_device (&r, in))
        return FALSE;
    }

  if (!has_times)
    note (&r, _("the trace has no times (time_us, PyTorch 2.1 and later): t counts its entries"));
  if (!r.snapshot->has_frames)
    note (&r, _("no stack was recorded (_record_memory_history(context=None) or stacks=None): "
                "every allocation is unattributed"));
  note (&r, _("allocated counts the sizes tensors asked for, as pytorch.org/memory_viz does; "
              "torch.cuda.max_memory_allocated counts their blocks, rounded up to 512 bytes"));
  return TRUE;
}

gboolean
hr_measurement_read_snapshot_full (HrMeasurement          *measurement,
                                   const char             *shown_name,
                                   const guint8           *data,
                                   gsize                   length,
                                   gboolean                mapped,
                                   const HrMeasureOptions *options,
                                   GError                **error)
{
  g_autoptr(Classifier) classifier = classifier_new ();
  Reduction red = { classifier, g_array_new (FALSE, FALSE, sizeof (Event)) };
  gboolean ok;

  g_return_val_if_fail (measurement != NULL, FALSE);

  ok = read_snapshot (measurement, shown_name, data, length, mapped, options, &red, error);
  g_array_unref (red.events);
  return ok;
}

guint
hr_measurement_get_micro_batch (const HrMeasurement *measurement)
{
  const char *text;
  guint64 value;

  g_return_val_if_fail (measurement != NULL, 0);

  text = hr_measurement_get_config (measurement, "micro_batch");
  if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 1, 1u << 30, &value, NULL))
    return 0;
  return (guint) value;
}

HrMeasurement *
hr_measurement_new_snapshot_sweep (GPtrArray  *snapshots,
                                   GError    **error)
{
  g_autoptr(HrMeasurement) sweep = hr_measurement_new (_("snapshots"));
  HrMeasureSeries *allocated = hr_measure_series_new ("max_memory_allocated", HR_METRIC_ALLOCATED);
  HrMeasureSeries *reserved = hr_measure_series_new ("max_memory_reserved", HR_METRIC_RESERVED);

  g_return_val_if_fail (snapshots != NULL, NULL);

  g_ptr_array_add (sweep->series, allocated);
  g_ptr_array_add (sweep->series, reserved);
  sweep->format = HR_MEASURE_FORMAT_TORCH_SNAPSHOT;

  for (guint i = 0; i < snapshots->len; i++)
    {
      const HrMeasurement *m = g_ptr_array_index (snapshots, i);
      const HrSnapshotDevice *dev;
      guint batch = hr_measurement_get_micro_batch (m);
      const char *seq = hr_measurement_get_config (m, "seq_len");
      HrMeasurePoint p = { batch, NAN, NAN, 0, i + 1 };
      guint64 seq_value;

      if (m->snapshot == NULL || (dev = hr_snapshot_get_peak_device (m->snapshot)) == NULL)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("%s: not a PyTorch memory snapshot"), m->name);
          return NULL;
        }
      if (batch == 0)
        {
          g_set_error (error, HR_ERROR, HR_ERROR_INVALID,
                       _("%s: the snapshot does not say its micro-batch (Headroom's probe "
                         "writes it with --snapshot)"), m->name);
          return NULL;
        }
      if (seq != NULL && g_ascii_string_to_unsigned (seq, 10, 1, 1u << 30, &seq_value, NULL))
        p.seq_len = seq_value;

      p.bytes = dev->allocated_peak;
      if (allocated->n_points == 0 || p.bytes > allocated->peak)
        {
          allocated->peak = p.bytes;
          allocated->peak_index = allocated->points->len;
        }
      g_array_append_val (allocated->points, p);
      allocated->n_points++;

      p.bytes = dev->reserved_peak;
      if (reserved->n_points == 0 || p.bytes > reserved->peak)
        {
          reserved->peak = p.bytes;
          reserved->peak_index = reserved->points->len;
        }
      g_array_append_val (reserved->points, p);
      reserved->n_points++;
      sweep->rows++;
    }

  if (sweep->rows == 0)
    {
      g_set_error (error, HR_ERROR, HR_ERROR_INVALID, _("no snapshots"));
      return NULL;
    }
  return g_steal_pointer (&sweep);
}
