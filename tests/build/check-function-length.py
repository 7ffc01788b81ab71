#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fails on any C function in SOURCE_DIR longer than 150 lines, naming its
file, line and name, so that a long function is split where a name can be
given to each part.  A function is counted as GNOME style lays it out:
from the "{" that opens it at the start of a line to the "}" that closes
it at the start of a line, both counted.

The allowlist (one "path function  # why" a line, paths relative to
SOURCE_DIR's parent) names the functions still long that are being split;
an entry for a function that is no longer long, or no longer there, fails
too, so that the list stays exact.

Usage: check-function-length.py SOURCE_DIR [--allowlist FILE] [--max N]
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = re.compile(r'^\**\s*([A-Za-z_][A-Za-z_0-9]*)\s*\(')


def functions(path):
    """Yields (name, line of its name, lines from { to }) for each function
    in @path."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    start = None
    name = None
    name_line = 0
    for i, line in enumerate(lines):
        if line.startswith('{') and line.rstrip() == '{':
            start = i
            name, name_line = '?', i + 1
            # the name is on the nearest line above that starts with one
            # and opens its parameters ("name (" or "*name ("); the
            # parameters' own lines are indented
            for j in range(i - 1, max(-1, i - 40), -1):
                m = NAME.match(lines[j])
                if m:
                    name, name_line = m.group(1), j + 1
                    break
                if lines[j] == '' or lines[j].startswith(('}', '#', '/*', ' */')):
                    break
        elif line.startswith('}') and start is not None:
            yield name, name_line, i - start + 1
            start = None


def read_allowlist(path):
    allowed = {}
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            text, _, why = line.partition('#')
            fields = text.split()
            if not fields:
                continue
            if len(fields) != 2 or not why.strip():
                sys.exit('%s:%d: expected "path function  # why it is still long"'
                         % (path, number))
            allowed[(fields[0], fields[1])] = (number, why.strip())
    return allowed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('source_dir')
    parser.add_argument('--allowlist', default=os.path.join(HERE, 'function-length-allowlist.txt'))
    parser.add_argument('--max', type=int, default=150)
    args = parser.parse_args()

    source_dir = os.path.abspath(args.source_dir)
    top = os.path.dirname(source_dir)
    allowed = read_allowlist(args.allowlist) if args.allowlist else {}
    seen = set()
    failures = []

    for directory, dirs, files in os.walk(source_dir):
        dirs.sort()
        for file in sorted(files):
            if not file.endswith(('.c', '.h')):
                continue
            path = os.path.join(directory, file)
            shown = os.path.relpath(path, top)
            for name, line, length in functions(path):
                if length <= args.max:
                    continue
                if (shown, name) in allowed:
                    seen.add((shown, name))
                    continue
                failures.append('%s:%d: %s is %d lines, more than %d: split it where a name '
                                'can be given to each part' % (shown, line, name, length,
                                                                args.max))

    for (shown, name), (number, why) in sorted(allowed.items()):
        if (shown, name) not in seen:
            failures.append('%s:%d: %s %s is allowed to be long but is not (or is gone): '
                            'remove its entry' % (args.allowlist, number, shown, name))

    for failure in failures:
        print(failure)
    if failures:
        return 1
    print('ok: every function in %s is at most %d lines (%d allowed while being split)'
          % (os.path.relpath(source_dir, top), args.max, len(allowed)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
