/* bench-import.c: how long reading model headers takes
 *
 * Run with `meson test --benchmark`; it prints the time per import and never
 * fails on speed (docs/DESIGN.md: performance is measured, not asserted).  The
 * headers are the size of large real ones: a GGUF with a 256k-token
 * vocabulary and DeepSeek-V3's tensor count, a safetensors shard header
 * listing 8,000 tensors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hr-core.h"

static void
put_u32 (GByteArray *b,
         guint32     v)
{
  guint8 x[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff };

  g_byte_array_append (b, x, 4);
}

static void
put_u64 (GByteArray *b,
         guint64     v)
{
  put_u32 (b, v & 0xffffffff);
  put_u32 (b, v >> 32);
}

static void
put_str (GByteArray *b,
         const char *s)
{
  put_u64 (b, strlen (s));
  g_byte_array_append (b, (const guint8 *) s, strlen (s));
}

static GByteArray *
large_gguf (guint vocab,
            guint tensors)
{
  GByteArray *b = g_byte_array_new ();

  g_byte_array_append (b, (const guint8 *) "GGUF", 4);
  put_u32 (b, 3);
  put_u64 (b, tensors);
  put_u64 (b, 2);
  put_str (b, "general.architecture");
  put_u32 (b, 8);
  put_str (b, "llama");
  put_str (b, "tokenizer.ggml.tokens");
  put_u32 (b, 9);
  put_u32 (b, 8);
  put_u64 (b, vocab);
  for (guint i = 0; i < vocab; i++)
    {
      char tok[32];

      g_snprintf (tok, sizeof tok, "token-%u", i);
      put_str (b, tok);
    }
  for (guint i = 0; i < tensors; i++)
    {
      char name[64];

      g_snprintf (name, sizeof name, "blk.%u.ffn_down.weight", i);
      put_str (b, name);
      put_u32 (b, 2);
      put_u64 (b, 4096);
      put_u64 (b, 4096);
      put_u32 (b, 12);   /* Q4_K */
      put_u64 (b, (guint64) i * 4096 * 4096 / 256 * 144);
    }
  return b;
}

static GByteArray *
large_safetensors (guint tensors)
{
  g_autoptr(GString) header = g_string_new ("{\"__metadata__\": {\"format\": \"pt\"}");
  GByteArray *b = g_byte_array_new ();
  guint64 offset = 0, n;
  guint8 prefix[8];

  for (guint i = 0; i < tensors; i++)
    {
      g_string_append_printf (header, ", \"model.layers.%u.mlp.experts.%u.down_proj.weight\": "
                                      "{\"dtype\": \"BF16\", \"shape\": [2048, 7168], "
                                      "\"data_offsets\": [%" G_GUINT64_FORMAT ", %"
                                      G_GUINT64_FORMAT "]}",
                              i / 256, i % 256, offset, offset + 2048 * 7168 * 2);
      offset += 2048 * 7168 * 2;
    }
  g_string_append (header, "}");
  n = header->len;
  for (int i = 0; i < 8; i++)
    prefix[i] = (n >> (8 * i)) & 0xff;
  g_byte_array_append (b, prefix, 8);
  g_byte_array_append (b, (const guint8 *) header->str, header->len);
  return b;
}

int
main (void)
{
  g_autoptr(GByteArray) gguf = large_gguf (256000, 2000);
  g_autoptr(GByteArray) st = large_safetensors (8000);
  g_autofree char *config = g_build_filename (HR_IMPORT_FIXTURES, "deepseek-v3", "config.json",
                                              NULL);
  const guint rounds = 10;
  guint64 checksum = 0;
  gint64 start, elapsed;

  start = g_get_monotonic_time ();
  for (guint i = 0; i < rounds; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrImport) import = hr_import_gguf_parse ("bench.gguf", gguf->data, gguf->len,
                                                         &error);

      g_assert_no_error (error);
      checksum += import->params;
    }
  elapsed = g_get_monotonic_time () - start;
  printf ("GGUF header, 256k-token vocabulary and 2,000 tensors (%.1f MiB): %.1f ms per import\n",
          gguf->len / 1048576.0, elapsed / 1000.0 / rounds);

  start = g_get_monotonic_time ();
  for (guint i = 0; i < rounds; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrImport) import = hr_import_safetensors_parse ("bench.safetensors", st->data,
                                                                st->len, &error);

      g_assert_no_error (error);
      checksum += import->params;
    }
  elapsed = g_get_monotonic_time () - start;
  printf ("safetensors header, 8,000 tensors (%.1f MiB): %.1f ms per import\n",
          st->len / 1048576.0, elapsed / 1000.0 / rounds);

  start = g_get_monotonic_time ();
  for (guint i = 0; i < 100 * rounds; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(HrImport) import = hr_import_hf_config_load (config, &error);

      g_assert_no_error (error);
      checksum += import->params;
    }
  elapsed = g_get_monotonic_time () - start;
  printf ("config.json (DeepSeek-V3), read from disk: %.1f µs per import\n",
          (double) elapsed / (100 * rounds));

  printf ("(checksum %" G_GUINT64_FORMAT ")\n", checksum);
  return 0;
}
