#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Holds the window's files to an include graph without a circle.

Usage: check-includes.py APP_DIR
       check-includes.py --planted APP_DIR

A unit is a header and its sources: hr-foo.h, hr-foo-private.h, hr-foo.c
and the hr-foo-*.c files that have no header of their own (hr-window-dnd.c
belongs to hr-window).  A unit depends on every unit whose header one of
its files includes.  The check fails when the units depend on each other
in a circle (a widget that includes the window's header while the window
includes the widget's), and when a "-private.h" header is included from
outside its own unit.

With --planted it copies APP_DIR, adds an include of the window's header
to a header the window includes, and fails unless the check finds the
circle: a check that cannot fail checks nothing.
"""

import os
import re
import shutil
import sys
import tempfile

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"(hr-[A-Za-z0-9_-]+\.h)"', re.M)


def unit_of(name, headers):
    """The unit a file belongs to, from its name."""
    stem = name.rsplit('.', 1)[0]
    if stem.endswith('-private'):
        return stem[:-len('-private')]
    if name.endswith('.h'):
        return stem
    probe = stem
    while True:
        if probe + '.h' in headers or probe + '-private.h' in headers:
            return probe
        if '-' not in probe:
            return stem
        probe = probe.rsplit('-', 1)[0]


def find_circle(edges):
    """One circle among the units, as a list of units, or None."""
    state = {}
    path = []

    def visit(unit):
        state[unit] = 'open'
        path.append(unit)
        for there in sorted(edges.get(unit, {})):
            if state.get(there) == 'open':
                return path[path.index(there):] + [there]
            if there not in state:
                found = visit(there)
                if found:
                    return found
        path.pop()
        state[unit] = 'done'
        return None

    for unit in sorted(edges):
        if unit not in state:
            found = visit(unit)
            if found:
                return found
    return None


def check(folder):
    """The errors found in FOLDER, as lines."""
    names = sorted(n for n in os.listdir(folder) if n.endswith(('.c', '.h')))
    headers = {n for n in names if n.endswith('.h')}
    edges = {}      # unit -> {unit: "file:line"}
    errors = []

    for name in names:
        unit = unit_of(name, headers)
        edges.setdefault(unit, {})
        with open(os.path.join(folder, name), encoding='utf-8') as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            header = m.group(1)
            if header not in headers:
                continue    # hr-core's or hr-chart's
            there = unit_of(header, headers)
            where = f'{name}:{text.count(chr(10), 0, m.start()) + 1}'
            if header.endswith('-private.h') and there != unit:
                errors.append(f'{folder}/{where}: {header} is private to '
                              f'the files of {there}')
            if there != unit:
                edges[unit].setdefault(there, where)

    circle = find_circle(edges)
    if circle:
        steps = [f'  {a} -> {b} ({folder}/{edges[a][b]})'
                 for a, b in zip(circle, circle[1:])]
        errors.append('the units include each other in a circle:\n'
                      + '\n'.join(steps))
    return errors


def planted(folder):
    """Plants a circle in a copy of FOLDER; 0 when the check finds it."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'app')
        shutil.copytree(folder, copy)
        before = check(copy)
        if before:
            print('\n'.join(before), file=sys.stderr)
            print('error: the tree has errors before any is planted',
                  file=sys.stderr)
            return 1
        # hr-format.h is included by the window; have it include the window.
        target = os.path.join(copy, 'hr-format.h')
        with open(target, encoding='utf-8') as f:
            text = f.read()
        text = text.replace('#pragma once\n',
                            '#pragma once\n\n#include "hr-window.h"\n', 1)
        with open(target, 'w', encoding='utf-8') as f:
            f.write(text)
        after = check(copy)
        if not any('circle' in e and 'hr-format' in e for e in after):
            print('error: a planted circle hr-format -> hr-window -> '
                  'hr-format was not found', file=sys.stderr)
            return 1
        print('the planted circle is found:\n' + '\n'.join(after))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == '--planted':
        return planted(argv[2])
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    errors = check(argv[1])
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        print('error: src/app includes in a circle (check-includes.py)',
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
