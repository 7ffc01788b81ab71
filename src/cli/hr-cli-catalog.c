/* hr-cli-catalog.c: the models and gpus commands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "headroom-cli"

#include <glib/gi18n.h>
#include <stdio.h>

#include "hr-cli.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static gboolean
parse_catalog_options (const char  *summary,
                       gboolean    *json,
                       int          argc,
                       char       **argv)
{
  GOptionEntry entries[] = {
    hr_cli_option_json (json, N_("Print the entries as stored (JSON)")),
    hr_cli_option_unit (),
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);

  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!hr_cli_parse_options (context, &argc, &argv))
    return FALSE;

  if (argc > 1)
    {
      fprintf (stderr, _("headroom-cli %s: unexpected argument \"%s\"\n"), argv[0], argv[1]);
      return FALSE;
    }

  return TRUE;
}

static void
print_entries_json (const char *kind,
                    GPtrArray  *entries,
                    gsize       json_offset)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;

  json_builder_begin_object (b);
  hr_cli_json_int (b, kind, 1);
  hr_cli_json_begin_array (b, "entries");
  for (guint i = 0; i < entries->len; i++)
    json_builder_add_value (b,
                            json_node_copy (G_STRUCT_MEMBER (JsonNode *,
                                                             g_ptr_array_index (entries, i),
                                                                json_offset)));
  json_builder_end_array (b);
  json_builder_end_object (b);
  node = json_builder_get_root (b);
  hr_cli_print_json (node);
}

/* Lists the entries of the user's catalog under a table, so that they
 * stand out as the window's "custom" badge does. */
static void
print_custom (GPtrArray         *entries,
              gsize              id_offset,
              gsize              origin_offset,
              HrUserCatalogKind  kind)
{
  g_autoptr(GString) list = g_string_new (NULL);
  g_autofree char *path = hr_user_catalog_get_path (kind);

  for (guint i = 0; i < entries->len; i++)
    {
      gpointer e = g_ptr_array_index (entries, i);
      HrOrigin origin = G_STRUCT_MEMBER (HrOrigin, e, origin_offset);

      if (origin == HR_ORIGIN_BUILTIN)
        continue;
      if (list->len > 0)
        g_string_append (list, ", ");
      if (origin == HR_ORIGIN_USER_OVERRIDE)
        /* Translators: a catalog id. */
        g_string_append_printf (list, _("%s (overrides the built-in entry)"),
                                G_STRUCT_MEMBER (const char *, e, id_offset));
      else
        g_string_append (list, G_STRUCT_MEMBER (const char *, e, id_offset));
    }

  if (list->len > 0)
    {
      printf ("\n");
      /* Translators: the user's catalog file, then the ids in it. */
      printf (_("Custom, from %s: %s\n"), path, list->str);
    }
}

int
hr_cli_models (int    argc,
               char **argv)
{
  gboolean json = FALSE;
  GPtrArray *models;

  if (!parse_catalog_options (N_("The model catalog."), &json, argc, argv))
    return HR_CLI_EXIT_USAGE;

  models = hr_catalog_get_models (hr_cli_get_catalog ());

  if (json)
    {
      print_entries_json ("headroom_models", models, G_STRUCT_OFFSET (HrModel, json));
      return HR_CLI_EXIT_OK;
    }

  printf ("%-18s %-34s %-12s %10s %10s\n", _("ID"), _("Name"), _("Family"),
          _("Params"), _("Trainable"));
  for (guint i = 0; i < models->len; i++)
    {
      const HrModel *m = g_ptr_array_index (models, i);
      guint64 trainable = hr_model_trainable_default (m);

      printf ("%-18s %-34.34s %-12s %9.2fB %9.2fB\n", m->id, m->name, m->family, m->params / 1e9,
              trainable / 1e9);
    }
  print_custom (models, G_STRUCT_OFFSET (HrModel, id), G_STRUCT_OFFSET (HrModel, origin),
                HR_USER_CATALOG_MODELS);
  printf (g_dngettext (GETTEXT_PACKAGE,
                       "\n%u model; `headroom-cli models --json` shows its architecture and "
                       "source.\n",
                       "\n%u models; `headroom-cli models --json` shows each entry's "
                       "architecture and source.\n", models->len), models->len);

  return HR_CLI_EXIT_OK;
}

int
hr_cli_gpus (int    argc,
             char **argv)
{
  gboolean json = FALSE;
  GPtrArray *gpus;

  if (!parse_catalog_options (N_("The GPU catalog."), &json, argc, argv))
    return HR_CLI_EXIT_USAGE;

  gpus = hr_catalog_get_gpus (hr_cli_get_catalog ());

  if (json)
    {
      print_entries_json ("headroom_gpus", gpus, G_STRUCT_OFFSET (HrGpu, json));
      return HR_CLI_EXIT_OK;
    }

  {
    g_autofree char *memory = hr_cli_column (_("Memory"));

    printf ("%-17s %-34s %11s %8s %9s %10s %9s %9s\n", _("ID"), _("Name"), memory, _("TB/s"),
            _("BF16 TF"), _("Price USD"), _("Used USD"), _("Cloud $/h"));
  }
  for (guint i = 0; i < gpus->len; i++)
    {
      const HrGpu *g = g_ptr_array_index (gpus, i);
      g_autofree char *price = g->price_usd >= 0 ? g_strdup_printf ("%.0f", g->price_usd)
                                                 : g_strdup ("–");
      g_autofree char *used = g->used_price_usd >= 0 ? g_strdup_printf ("%.0f", g->used_price_usd)
                                                     : g_strdup ("–");
      g_autofree char *cloud = g->cloud_usd_per_hour >= 0
                                 ? g_strdup_printf ("%.2f", g->cloud_usd_per_hour)
                                 : g_strdup ("–");
      g_autofree char *bf16 = g->bf16_tflops > 0 ? g_strdup_printf ("%.0f", g->bf16_tflops)
                                                 : g_strdup ("–");

      printf ("%-17s %-34.34s %11.2f %8.2f %9s %10s %9s %9s\n", g->id, g->name,
              hr_size_in_unit (g->memory, hr_cli_get_unit ()),
              g->bandwidth / 1e12, bf16, price, used, cloud);
    }
  print_custom (gpus, G_STRUCT_OFFSET (HrGpu, id), G_STRUCT_OFFSET (HrGpu, origin),
                HR_USER_CATALOG_GPUS);
  printf (g_dngettext (GETTEXT_PACKAGE,
                       "\n%u GPU; memory is what the driver reports. Prices: see "
                       "`headroom-cli gpus --json` for their date and source.\n",
                       "\n%u GPUs; memory is what the driver reports. Prices: see "
                       "`headroom-cli gpus --json` for each one's date and source.\n",
                       gpus->len), gpus->len);

  return HR_CLI_EXIT_OK;
}
