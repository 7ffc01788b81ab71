/* hr-cli-import.c: the import-model command
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <stdio.h>

#include <glib/gi18n.h>
#include <inttypes.h>

#include "hr-cli.h"

static void
print_human (const HrImport *import)
{
  printf (_("Read (%s): %s\n"), hr_import_format_names[import->format], import->path);
  for (guint i = 0; i < import->read->len; i++)
    printf ("  %s\n", (const char *) g_ptr_array_index (import->read, i));

  printf ("\n");
  if (import->params_exact)
    printf (_("Parameters: %'" PRIu64 " (%.3f B), exact, from the weights' headers\n"),
            import->params, import->params / 1e9);
  else
    printf (_("Parameters: %'" PRIu64 " (%.3f B), computed from the architecture\n"),
            import->params, import->params / 1e9);
  if (import->params_exact && import->params_from_config > 0)
    printf (_("  the config's architecture gives %'" PRIu64 "\n"),
            import->params_from_config);
  if (import->experts > 0)
    printf (_("  mixture of experts: %u experts, %u per token: %'" PRIu64
              " active per token (%.3f B)\n"), import->experts, import->experts_per_token,
            import->active_params, import->active_params / 1e9);

  if (import->dtypes->len > 0)
    {
      g_autofree char *total = hr_cli_size (import->weight_bytes);

      /* Translators: column headings; keep them short. */
      printf ("\n%-34s %16s %10s %12s\n", _("Stored as"), _("Parameters"), _("Bits/wt"),
              _("Size"));
      for (guint i = 0; i < import->dtypes->len; i++)
        {
          const HrImportDtype *d = g_ptr_array_index (import->dtypes, i);
          g_autofree char *size = hr_cli_size (d->bytes);

          if (d->params > 0)
            printf ("%-34.34s %'16" G_GUINT64_FORMAT " %10.2f %12s\n", d->dtype, d->params,
                    d->bits_per_weight, size);
          else
            printf ("%-34.34s %18s %12s %12s\n", d->dtype, "–", "–", size);  /* 3-byte dash */
        }
      printf ("%-34s %16s %10s %12s\n", _("weights in the files"), "", "", total);
      if (import->quantization != NULL)
        printf (_("Quantised: %s\n"), import->quantization);
    }

  if (import->notes->len > 0)
    {
      printf ("\n%s\n", _("Assumed:"));
      for (guint i = 0; i < import->notes->len; i++)
        printf ("  - %s\n", (const char *) g_ptr_array_index (import->notes, i));
    }

  if (import->model != NULL)
    {
      JsonObject *model = json_node_get_object (import->model);

      printf ("\n");
      printf (_("Model \"%s\" (id %s); `--json` prints the object, `--add` keeps it in your "
                "catalog.\n"), json_object_get_string_member (model, "name"),
              json_object_get_string_member (model, "id"));
    }
}

int
hr_cli_import_model (int    argc,
                     char **argv)
{
  gboolean json = FALSE;
  gboolean add = FALSE;
  g_autofree char *id = NULL;
  g_autofree char *name = NULL;
  GOptionEntry entries[] = {
    hr_cli_option_json (&json, N_("Print the model object, with what was read and assumed "
                                  "under \"x-import\" (sizes in bytes)")),
    { "add", 0, 0, G_OPTION_ARG_NONE, &add,
      N_("Keep the model in your catalog ($XDG_DATA_HOME/headroom/models.json), replacing an "
         "entry there with the same id; an id of the built-in catalog is overridden, never "
         "changed"), NULL },
    { "id", 0, 0, G_OPTION_ARG_STRING, &id, N_("Catalog id for the model (default: from its name)"),
      N_("ID") },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, N_("Name shown for the model"), N_("NAME") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("FILE|FOLDER"));
  g_autoptr(HrImport) import = NULL;
  g_autoptr(GError) error = NULL;

  g_option_context_set_summary (context,
                                N_("Reads a model's Hugging Face config.json, a .safetensors "
                                   "file, a model.safetensors.index.json with its shards, a "
                                   ".gguf file, or a model folder holding them, and prints a "
                                   "Headroom model object: the architecture from the config, "
                                   "the exact parameter count by dtype from the weights' "
                                   "headers (tensor data is never read)."));
  g_option_context_add_main_entries (context, entries, NULL);
  if (!hr_cli_parse_options (context, &argc, &argv))
    return HR_CLI_EXIT_USAGE;

  if (argc != 2)
    {
      fprintf (stderr, "%s\n", _("headroom-cli import-model: give one file or folder"));
      return HR_CLI_EXIT_USAGE;
    }

  import = hr_import_path (argv[1], &error);
  if (import == NULL)
    return hr_cli_fail (error);

  if (import->model != NULL && (id != NULL || name != NULL))
    {
      JsonObject *model = json_node_get_object (import->model);

      if (id != NULL)
        json_object_set_string_member (model, "id", id);
      if (name != NULL)
        json_object_set_string_member (model, "name", name);
    }

  if (add)
    {
      g_autoptr(JsonNode) entry = hr_import_model_json (import);
      g_autofree char *path = hr_user_catalog_get_path (HR_USER_CATALOG_MODELS);
      const char *model_id;
      const HrModel *existing;
      gboolean replaced = FALSE;

      if (entry == NULL)
        {
          g_set_error (&error, HR_ERROR, HR_ERROR_INVALID,
                       _("%s: the weights alone do not give the architecture; import the "
                         "folder or the config.json beside them to add the model"), argv[1]);
          return hr_cli_fail (error);
        }

      model_id = json_object_get_string_member (json_node_get_object (entry), "id");
      existing = hr_catalog_find_model (hr_cli_get_catalog (), model_id);
      if (!hr_user_catalog_save_model (entry, &replaced, &error))
        return hr_cli_fail (error);

      /* Status goes to stderr, so that --json output stays one document. */
      if (existing != NULL && existing->origin != HR_ORIGIN_USER)
        fprintf (stderr, replaced ? _("Replaced \"%s\" in %s (it overrides the built-in entry "
                                      "with that id)\n")
                                  : _("Added \"%s\" to %s (it overrides the built-in entry "
                                      "with that id)\n"), model_id, path);
      else
        fprintf (stderr, replaced ? _("Replaced \"%s\" in %s\n") : _("Added \"%s\" to %s\n"),
                 model_id, path);
    }

  if (json)
    {
      g_autoptr(JsonNode) node = hr_import_model_json (import);

      if (node == NULL)
        {
          g_set_error (&error, HR_ERROR, HR_ERROR_INVALID,
                       _("%s: the weights alone do not give the architecture, so there is no "
                         "model object to print; import the folder or the config.json beside "
                         "them (without --json, the counts by dtype are shown)"), argv[1]);
          return hr_cli_fail (error);
        }
      hr_cli_print_json (node);
    }
  else
    print_human (import);

  return HR_CLI_EXIT_OK;
}
