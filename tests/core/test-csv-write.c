/* test-csv-write.c: CSV text cells are data, never formulas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "hr-core.h"

static void
test_cells (void)
{
  static const struct {
    const char *text;
    const char *cell;
  } cases[] = {
    { "rtx-4090", "rtx-4090" },
    { "GeForce RTX 4090", "GeForce RTX 4090" },
    /* formulas a spreadsheet would run */
    { "=1+1", "'=1+1" },
    { "=HYPERLINK(\"http://x\",\"a\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"a\"\")\"" },
    { "+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0" },
    { "-2+3", "'-2+3" },
    { "@SUM(A1:A2)", "'@SUM(A1:A2)" },
    { "\tx", "'\tx" },
    { "\r=1", "\"'\r=1\"" },
    /* numbers stay numbers */
    { "-3.5", "-3.5" },
    { "+7", "+7" },
    { "-1e9", "-1e9" },
    { "-", "'-" },
    { "-inf", "'-inf" },
    { "-nan", "'-nan" },
    { "-0x10", "'-0x10" },
    /* RFC 4180 quoting */
    { "a,b", "\"a,b\"" },
    { "say \"hi\"", "\"say \"\"hi\"\"\"" },
    { "two\nlines", "\"two\nlines\"" },
    { " edge", "\" edge\"" },
    { "", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) line = g_string_new (NULL);

      hr_csv_append_text (line, cases[i].text);
      g_assert_cmpstr (line->str, ==, cases[i].cell);
    }
}

static void
test_numbers (void)
{
  g_assert_true (hr_csv_is_number ("-3.5"));
  g_assert_true (hr_csv_is_number ("0"));
  g_assert_true (hr_csv_is_number ("2.5e-3"));
  g_assert_false (hr_csv_is_number ("-3,5"));
  g_assert_false (hr_csv_is_number ("1-2"));
  g_assert_false (hr_csv_is_number ("e5"));
  g_assert_false (hr_csv_is_number ("."));
  g_assert_false (hr_csv_is_number ("1e999"));
  g_assert_false (hr_csv_is_number (" 1"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/csv-write/cells", test_cells);
  g_test_add_func ("/csv-write/numbers", test_numbers);
  return g_test_run ();
}
