#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# xgettext cannot read JSON, so the texts of the advisor's tree
# (data/advisor.json: each question, its help, each answer's label and the
# leaf's text) are written out as N_() marks in data/advisor-strings.h,
# which po/POTFILES.in lists.  The header is never compiled: hr-advisor.c
# translates the texts with g_dgettext () as it loads the tree.  Ids, keys
# and everything else stay as they are.
#
#   advisor-strings.py ADVISOR_JSON OUTPUT_H      write the header
#   advisor-strings.py --check ADVISOR_JSON H     fail if H is out of date

import json
import sys

HEADER = """\
/* advisor-strings.h: the advisor tree's texts, for xgettext
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Generated from data/advisor.json by data/advisor-strings.py; do not
 * edit.  Never compiled: po/POTFILES.in lists it so that the texts reach
 * po/headroom.pot, and hr-advisor.c translates them as it loads the tree.
 */

"""


def c_string(text, width=90):
    """A C string literal, split into adjacent ones of at most WIDTH."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    pieces = []
    while len(escaped) > width:
        cut = escaped.rfind(" ", 0, width) + 1
        if cut <= 0:
            break
        pieces.append(escaped[:cut])
        escaped = escaped[cut:]
    pieces.append(escaped)
    return "\n   ".join('"' + p + '"' for p in pieces)


def generate(tree):
    lines = [HEADER]
    for node in tree["nodes"]:
        nid = node["id"]
        if "question" in node:
            lines.append(f"/* Translators: the advisor's question \"{nid}\" */\n")
            lines.append(f"N_({c_string(node['question'])});\n")
        if "help" in node:
            lines.append(f"/* Translators: help for the advisor's question \"{nid}\" */\n")
            lines.append(f"N_({c_string(node['help'])});\n")
        for answer in node.get("answers", []):
            lines.append(f"/* Translators: an answer to the advisor's question \"{nid}\" */\n")
            lines.append(f"N_({c_string(answer['label'])});\n")
        if "recommend" in node:
            lines.append(f"/* Translators: the advisor's recommendation \"{nid}\" */\n")
            lines.append(f"N_({c_string(node['recommend']['text'])});\n")
    return "".join(lines)


def main(argv):
    check = argv[:1] == ["--check"]
    if check:
        argv = argv[1:]
    if len(argv) != 2:
        sys.exit("usage: advisor-strings.py [--check] ADVISOR_JSON HEADER")
    with open(argv[0], encoding="utf-8") as f:
        text = generate(json.load(f))
    if check:
        try:
            with open(argv[1], encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            sys.exit(f"{argv[1]} is out of date: run data/advisor-strings.py {argv[0]} {argv[1]}")
        print(f"ok: {argv[1]} matches {argv[0]}")
        return
    with open(argv[1], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
