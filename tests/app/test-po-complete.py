#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every translatable string of the sources has a translation in each
po/LANG.po given, none of them fuzzy, and msgfmt --check passes.

    python3 tests/app/test-po-complete.py SOURCE_ROOT po/de.po...

The strings are extracted afresh from po/POTFILES.in with xgettext, with
the keywords and flags of meson's i18n "glib" preset (what
`meson compile headroom-pot` runs), so that a string changed in a source
file since the .po was last merged counts as untranslated here.  Prints
each missing entry with its place in the sources."""

import os
import subprocess
import sys
import tempfile

# meson's i18n module, PRESET_ARGS['glib'] (mesonbuild/modules/i18n.py)
GLIB_PRESET = [
    "--from-code=UTF-8", "--add-comments",
    "--keyword=_", "--keyword=N_", "--keyword=C_:1c,2", "--keyword=NC_:1c,2",
    "--keyword=g_dcgettext:2", "--keyword=g_dngettext:2,3",
    "--keyword=g_dpgettext2:2c,3",
    "--flag=N_:1:pass-c-format", "--flag=C_:2:pass-c-format",
    "--flag=NC_:2:pass-c-format", "--flag=g_dngettext:2:pass-c-format",
    "--flag=g_strdup_printf:1:c-format", "--flag=g_string_printf:2:c-format",
    "--flag=g_string_append_printf:2:c-format", "--flag=g_error_new:3:c-format",
    "--flag=g_set_error:4:c-format", "--flag=g_markup_printf_escaped:1:c-format",
    "--flag=g_log:3:c-format", "--flag=g_print:1:c-format",
    "--flag=g_printerr:1:c-format", "--flag=g_printf:1:c-format",
    "--flag=g_fprintf:2:c-format", "--flag=g_sprintf:2:c-format",
    "--flag=g_snprintf:3:c-format",
]


def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{argv[0]} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def entries(po_text):
    """The msgid of each entry (with its '#:' places), as msgattrib writes them."""
    out = []
    places, msgid, in_id = [], None, False
    for line in po_text.splitlines() + [""]:
        if line.startswith("#:"):
            places.extend(line[2:].split())
        elif line.startswith("msgid "):
            msgid, in_id = line[6:].strip('"'), True
        elif line.startswith('"') and in_id:
            msgid += line.strip('"')
        elif line == "":
            if msgid:
                out.append((msgid, places))
            places, msgid, in_id = [], None, False
        else:
            in_id = False
    return out


def main():
    root = os.path.abspath(sys.argv[1])
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, "headroom.pot")
        run(["xgettext", "--directory=" + root,
             "--files-from=" + os.path.join(root, "po", "POTFILES.in"),
             "--package-name=headroom", "-o", pot] + GLIB_PRESET)
        for po in sys.argv[2:]:
            name = os.path.basename(po)
            run(["msgfmt", "--check", "-o", os.devnull, po])
            merged = os.path.join(tmp, name)
            run(["msgmerge", "--quiet", "--no-fuzzy-matching", "-o", merged, po, pot])
            untranslated = entries(run(["msgattrib", "--untranslated", "--no-obsolete",
                                        merged]))
            # fuzzy in the file itself: msgmerge above adds none
            fuzzy = entries(run(["msgattrib", "--only-fuzzy", "--no-obsolete", merged]))
            for kind, found in (("untranslated", untranslated), ("fuzzy", fuzzy)):
                for msgid, places in found:
                    print(f"{name}: {kind}: \"{msgid}\" ({', '.join(places[:3])})")
                failures += len(found)
            print(f"{name}: {len(untranslated)} untranslated, {len(fuzzy)} fuzzy")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
