#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fails when a file with translatable strings is missing from
# po/POTFILES.in, when POTFILES.in lists a file that does not exist, or when
# it is not sorted.  It scans src/, ui/ and data/, so files added later (the
# window's C sources and .ui templates) are caught as soon as they mark a
# string.
#
#   check-potfiles.py SOURCE_ROOT
#   check-potfiles.py --self-test

import os
import re
import sys
import tempfile

SCANNED_DIRS = ("src", "ui", "data")

# _("…"), N_("…"), C_("ctx", "…"), NC_(…), Q_(…), g_dngettext (…), ngettext (…)
C_MARK = re.compile(r"(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|Q_|g_dngettext|g_dpgettext2|ngettext)\s*\(")
UI_MARK = re.compile(r"""translatable\s*=\s*["'](?:yes|true)["']""")
SCHEMA_MARK = re.compile(r"gettext-domain\s*=")
# Always translated through i18n.merge_file.
MERGED = (".desktop.in", ".desktop.in.in", ".metainfo.xml.in", ".metainfo.xml.in.in",
          ".appdata.xml.in", ".appdata.xml.in.in")


def strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)


def has_translatable_strings(path):
    name = os.path.basename(path)
    if name.endswith(MERGED):
        return True
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return False
    if name.endswith((".c", ".h")):
        return C_MARK.search(strip_c_comments(text)) is not None
    if name.endswith((".ui", ".blp")):
        return (UI_MARK if name.endswith(".ui") else C_MARK).search(text) is not None
    if name.endswith(".gschema.xml"):
        return SCHEMA_MARK.search(text) is not None
    return False


def read_potfiles(path):
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f
                if line.strip() and not line.lstrip().startswith("#")]


def check(root):
    problems = []
    listed = read_potfiles(os.path.join(root, "po", "POTFILES.in"))

    if listed != sorted(listed):
        problems.append("po/POTFILES.in is not sorted")
    if len(set(listed)) != len(listed):
        problems.append("po/POTFILES.in lists a file twice")
    for rel in listed:
        if not os.path.isfile(os.path.join(root, rel)):
            problems.append(f"po/POTFILES.in lists {rel}, which does not exist")

    found = []
    for top in SCANNED_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for filename in sorted(filenames):
                path = os.path.join(dirpath, filename)
                if has_translatable_strings(path):
                    found.append(os.path.relpath(path, root))

    for rel in found:
        if rel not in listed:
            problems.append(f"{rel} has translatable strings but is missing from po/POTFILES.in")
    for rel in listed:
        if os.path.isfile(os.path.join(root, rel)) and rel not in found:
            problems.append(f"po/POTFILES.in lists {rel}, which has no translatable strings")
    return problems, found


def self_test():
    """The check must catch a missing file of each kind; a test that
    cannot fail proves nothing."""
    cases = {
        "src/app/hr-window.c": '#include "config.h"\nconst char *t = _("Open");\n',
        "src/core/hr-x.c": 'static const char *n[] = { N_("Weights") };\n',
        "ui/hr-window.ui": '<object><property name="title" translatable="yes">Headroom</property></object>\n',
        "data/x.gschema.xml": '<schemalist gettext-domain="headroom"></schemalist>\n',
        "data/x.desktop.in.in": "[Desktop Entry]\nName=X\n",
    }
    ignored = {
        "src/core/hr-y.c": '/* _("in a comment") */\nint my_(int x);\nint a = g_strcmp0_(1);\n',
        "ui/plain.ui": '<object><property name="title">x</property></object>\n',
    }
    failures = 0
    for rel in cases:
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "po"))
            for r, text in {**cases, **ignored}.items():
                os.makedirs(os.path.dirname(os.path.join(root, r)), exist_ok=True)
                with open(os.path.join(root, r), "w") as f:
                    f.write(text)
            listed = sorted(r for r in cases if r != rel)
            with open(os.path.join(root, "po", "POTFILES.in"), "w") as f:
                f.write("# comment\n" + "\n".join(listed) + "\n")
            problems, found = check(root)
            ok = any(rel in p and "missing" in p for p in problems) and len(problems) == 1
            print(("ok" if ok else "not ok") + f" - a missing {rel} is reported: {problems}")
            failures += not ok
            if any(r in found for r in ignored):
                print(f"not ok - a file without marked strings was taken: {found}")
                failures += 1
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "po"))
        with open(os.path.join(root, "po", "POTFILES.in"), "w") as f:
            f.write("src/b.c\nsrc/a.c\n")
        problems, _ = check(root)
        ok = "po/POTFILES.in is not sorted" in problems and sum("does not exist" in p for p in problems) == 2
        print(("ok" if ok else "not ok") + f" - unsorted and stale entries are reported: {problems}")
        failures += not ok
    return failures


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(1 if self_test() else 0)
    if len(sys.argv) != 2:
        sys.exit("usage: check-potfiles.py SOURCE_ROOT | --self-test")
    problems, found = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"ok: po/POTFILES.in lists all {len(found)} files with translatable strings")
