/* test-catalog-search.c: the pickers' token search over the catalog
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "hr-core.h"

/* The ids of the built-in models that @query finds, in catalog order. */
static GStrv
search (const char *query)
{
  GPtrArray *models = hr_catalog_get_models (hr_catalog_get_default ());
  GStrvBuilder *found = g_strv_builder_new ();
  GStrv result;

  for (guint i = 0; i < models->len; i++)
    {
      const HrModel *model = g_ptr_array_index (models, i);

      if (hr_catalog_model_matches (model, query))
        g_strv_builder_add (found, model->id);
    }
  result = g_strv_builder_end (found);
  g_strv_builder_unref (found);
  return result;
}

static void
test_tokens (void)
{
  g_auto(GStrv) qwen7 = search ("qwen 7b");
  g_auto(GStrv) upper = search ("QWEN 7B");
  g_auto(GStrv) reversed = search ("7b   qwen");
  g_auto(GStrv) llama13 = search ("llama 13b");
  g_auto(GStrv) all = search ("");
  g_auto(GStrv) none = search ("qwen resnet");

  /* Every token matches some field: Qwen2.5 7B, not the 72B, not Qwen3 8B. */
  g_assert_true (g_strv_contains ((const char * const *) qwen7, "qwen2.5-7b"));
  g_assert_false (g_strv_contains ((const char * const *) qwen7, "qwen2.5-72b"));
  g_assert_false (g_strv_contains ((const char * const *) qwen7, "qwen3-8b"));
  g_assert_false (g_strv_contains ((const char * const *) qwen7, "llama-2-7b"));
  g_assert_true (g_strv_equal ((const char * const *) qwen7, (const char * const *) upper));
  g_assert_true (g_strv_equal ((const char * const *) qwen7, (const char * const *) reversed));
  g_assert_true (g_strv_contains ((const char * const *) llama13, "llama-2-13b"));
  g_assert_false (g_strv_contains ((const char * const *) llama13, "llama-2-7b"));
  g_assert_cmpuint (g_strv_length (all),
                    ==, hr_catalog_get_models (hr_catalog_get_default ())->len);
  g_assert_cmpuint (g_strv_length (none), ==, 0);
}

static void
test_sizes (void)
{
  const char *fields[] = { "Example Net", "example-net", "llm", NULL };
  const char *gemma[] = { "Gemma 2 27B", "gemma-2-27b", "llm", NULL };

  /* 7.6 billion parameters: "7b", "7.6b", "7.6B", "7615m" find it. */
  g_assert_true (hr_catalog_search_matches ("7b", fields, 7615616512));
  g_assert_true (hr_catalog_search_matches ("7.6b", fields, 7615616512));
  g_assert_true (hr_catalog_search_matches ("7.6B", fields, 7615616512));
  g_assert_true (hr_catalog_search_matches ("7615m", fields, 7615616512));
  g_assert_false (hr_catalog_search_matches ("8b", fields, 7615616512));
  g_assert_false (hr_catalog_search_matches ("7.5b", fields, 7615616512));
  g_assert_false (hr_catalog_search_matches ("7b", fields, 0));
  g_assert_true (hr_catalog_search_matches ("350m", fields, 350000000));
  /* A size inside another word is not that size: "7b" is not in "27B". */
  g_assert_false (hr_catalog_search_matches ("7b", gemma, 27227128320));
  g_assert_true (hr_catalog_search_matches ("27b", gemma, 27227128320));
  /* Words start at the start, after a separator, or at a digit after
   * letters. */
  g_assert_true (hr_catalog_search_matches ("net", fields, 0));
  g_assert_true (hr_catalog_search_matches ("exa ne", fields, 0));
  g_assert_false (hr_catalog_search_matches ("ample", fields, 0));
  g_assert_true (hr_catalog_search_matches ("2", gemma, 0));
  g_assert_true (hr_catalog_search_matches (NULL, fields, 0));
  g_assert_true (hr_catalog_search_matches ("  ", fields, 0));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/catalog-search/tokens", test_tokens);
  g_test_add_func ("/catalog-search/sizes", test_sizes);
  return g_test_run ();
}
