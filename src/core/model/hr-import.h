/* hr-import.h: models brought in from Hugging Face configs, safetensors and GGUF files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "hr-json.h"

G_BEGIN_DECLS

typedef enum {
  HR_IMPORT_HF_CONFIG,   /* a Hugging Face config.json */
  HR_IMPORT_SAFETENSORS, /* .safetensors header(s), or model.safetensors.index.json */
  HR_IMPORT_GGUF,        /* a llama.cpp .gguf header */
  HR_IMPORT_FOLDER,      /* a model folder: config.json plus the weights found beside it */
} HrImportFormat;

/* What a safetensors header says of a diffusion checkpoint's parts
 * (hr-import-diffusers.c). */
typedef struct _HrImportDiffusion HrImportDiffusion;

extern const char * const hr_import_format_names[];

/* The most parameters a catalog model may have (data/CATALOG.md): weights'
 * headers that add up to more are refused, so that every import makes a
 * model the catalog takes and no count wraps around. */
#define HR_IMPORT_MAX_PARAMS G_GUINT64_CONSTANT (10000000000000)

/* The headers of all the files of one model together (safetensors shards,
 * GGUF parts): a 671B-parameter model's 163 shards hold about 11 MiB. */
#define HR_IMPORT_MAX_HEADER_BYTES (G_GUINT64_CONSTANT (64) << 20)

/* Parameters stored at one element type, as the weights' headers list them. */
typedef struct {
  char    *dtype;           /* as the file names it: "BF16", "F8_E4M3", "Q4_K"… */
  guint64  params;          /* elements */
  guint64  bytes;           /* bytes they take in the file */
  guint    tensors;
  double   bits_per_weight; /* bytes * 8 / params */
} HrImportDtype;

/* What an import found.  The window shows `read` and `notes` before the
 * model is added; `model` is ready for hr_model_from_json() and for
 * hr_user_catalog_save_model(). */
typedef struct {
  HrImportFormat  format;
  char           *path;          /* the file or folder read, as given */
  char           *model_type;    /* config.json's model_type or GGUF's architecture; may be NULL */

  /* A model object in the catalog's shape (data/CATALOG.md), with the
   * import's details under "x-import"; NULL when the file alone says too
   * little about the architecture (a safetensors file without config.json). */
  JsonNode       *model;

  guint64         params;        /* every stored parameter */
  guint64         active_params; /* used per token: top-k experts of a MoE; = params otherwise */
  gboolean        params_exact;  /* counted from the weights' headers, not from the shapes */
  guint64         params_from_config; /* the shapes' count, when both were available */
  guint           experts;
  guint           experts_per_token;

  /* "4-bit", "8-bit", "FP8" when the weights are quantised; NULL otherwise. */
  char           *quantization;
  GPtrArray      *dtypes;        /* HrImportDtype, largest first */
  guint64         weight_bytes;  /* bytes of every tensor in the weights */

  guint64         header_bytes;  /* header bytes read so far, over every file */

  GPtrArray      *read;          /* char *: what was read, one line each */
  GPtrArray      *notes;         /* char *: what was assumed, one line each */

  /* Kept while reading safetensors headers, to tell an architecture from
   * tensor names and shapes when no config.json is there: the shapes of the
   * first layer's and the other non-repeated tensors (name -> GArray of
   * guint64), and how many layers and experts the names number. */
  GHashTable     *tensor_shapes;
  guint           tensor_layers;
  guint           tensor_experts;
  HrImportDiffusion *diffusion;
} HrImport;

HrImport   *hr_import_new          (HrImportFormat  format,
                                    const char     *path);
void        hr_import_free         (HrImport       *import);

void        hr_import_add_read     (HrImport       *import,
                                    const char     *format,
                                    ...) G_GNUC_PRINTF (2, 3);
void        hr_import_add_note     (HrImport       *import,
                                    const char     *format,
                                    ...) G_GNUC_PRINTF (2, 3);
/* Adds @params elements of @dtype taking @bytes to the per-dtype table. */
void        hr_import_add_tensor   (HrImport       *import,
                                    const char     *dtype,
                                    guint64         params,
                                    guint64         bytes);
/* Adds @other's per-dtype table to @import's (the shards of one model). */
void        hr_import_merge_dtypes (HrImport       *import,
                                    const HrImport *other);
/* Sorts the dtype table, fills bits per weight and `quantization`. */
void        hr_import_finish_dtypes (HrImport      *import);

/* Imports a file (config.json, .safetensors, model.safetensors.index.json,
 * .gguf; told apart by their content) or a model folder. */
HrImport   *hr_import_path         (const char     *path,
                                    GError        **error);
/* A model folder: config.json for the architecture, and the exact count from
 * the safetensors (index) or GGUF found beside it. */
HrImport   *hr_import_folder       (const char     *path,
                                    GError        **error);

/* A copy of the model object with everything the import found under
 * "x-import" (format, path, exactness, experts, quantisation, the count per
 * dtype, what was read and what was assumed; ignored by the model reader, as
 * every "x-" key is): what `import-model --json` prints, what a scenario can
 * hold inline, and what the user catalog stores.  NULL when the import has
 * no model (weights whose architecture cannot be told). */
JsonNode   *hr_import_model_json   (const HrImport *import);

/* A catalog id made from a model's name ("Qwen/Qwen2.5-7B" -> "qwen2.5-7b"). */
char       *hr_import_make_id      (const char     *name);

/* @text (a path, a model_type, an architecture from the file) cut to
 * HR_IMPORT_MAX_TEXT characters, so that the model JSON an importer
 * writes stays within what the catalog's reader takes. */
#define HR_IMPORT_MAX_TEXT 256
char       *hr_import_clip         (const char     *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HrImport, hr_import_free)

G_END_DECLS
