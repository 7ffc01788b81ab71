#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Holds hr-core's rooms to their order.

Usage: check-rooms.py STAMP CORE_DIR ROOM... [-- DIR...]

ROOM... are hr-core's rooms from the bottom up (src/core/meson.build).  A
file in a room may include the headers of its own room and of the rooms
before it; one at the top of src/core (the analysis) may include any room's.
A header named "*-private.h" may be included only from its own room, and
never from outside src/core: the folders after "--" (the charts, the
window, headroom-cli) may include any public header, and no private one.
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"(hr-[A-Za-z0-9_-]+\.h)"', re.M)


def main(argv):
    stamp, core = argv[1], argv[2]
    rest = argv[3:]
    split = rest.index('--') if '--' in rest else len(rest)
    rooms, outside = rest[:split], rest[split + 1:]

    home = {}   # header -> room ('' for the top of src/core)
    for name in os.listdir(core):
        if name.endswith('.h'):
            home[name] = ''
    for room in rooms:
        for name in os.listdir(os.path.join(core, room)):
            if name.endswith('.h'):
                home[name] = room
    rank = {room: i for i, room in enumerate(rooms)}
    rank[''] = len(rooms)

    errors = []

    def check(path, room, inside):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            header = m.group(1)
            line = text.count('\n', 0, m.start()) + 1
            if header not in home:
                continue    # another library's header (hr-chart-*.h, the app's)
            there = home[header]
            where = f'{path}:{line}'
            if header.endswith('-private.h') and (not inside or there != room):
                errors.append(f'{where}: {header} is private to '
                              f'src/core/{there or "."}')
            elif inside and rank[there] > rank[room]:
                errors.append(f'{where}: the room "{room or "."}" includes '
                              f'{header} from "{there}", a room above it '
                              f'(order: {", ".join(rooms)}, then the analysis)')

    for name in sorted(os.listdir(core)):
        if name.endswith(('.c', '.h')):
            check(os.path.join(core, name), '', True)
    for room in rooms:
        folder = os.path.join(core, room)
        for name in sorted(os.listdir(folder)):
            if name.endswith(('.c', '.h')):
                check(os.path.join(folder, name), room, True)
    for folder in outside:
        for name in sorted(os.listdir(folder)):
            if name.endswith(('.c', '.h')):
                check(os.path.join(folder, name), None, False)

    if errors:
        print('\n'.join(errors), file=sys.stderr)
        print('error: hr-core\'s rooms are out of order (docs/DESIGN.md, '
              '"The core\'s rooms")', file=sys.stderr)
        return 1
    with open(stamp, 'w'):
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
