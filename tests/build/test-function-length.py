#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-function-length.py catches what it is there to catch: a function
of 151 lines fails it, named by file, line and function; one of 150 lines
passes; an allowlisted function passes; and an allowlist entry for a
function that is not long fails, so that the list stays exact.

Usage: test-function-length.py"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, 'check-function-length.py')
FIXTURE = os.path.join(HERE, 'data', 'long-function.c')
failures = []


def check(cond, what, output=''):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)
        for line in output.splitlines():
            print('# ' + line)


def run(src, allowlist_text):
    allowlist = os.path.join(os.path.dirname(src), 'allow.txt')
    with open(allowlist, 'w', encoding='utf-8') as f:
        f.write(allowlist_text)
    p = subprocess.run([sys.executable, CHECK, src, '--allowlist', allowlist],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, 'src')
    os.makedirs(os.path.join(src, 'core'))
    shutil.copy(FIXTURE, os.path.join(src, 'core', 'long-function.c'))

    rc, out = run(src, '')
    check(rc == 1, 'a 151-line function fails the check', out)
    check('src/core/long-function.c:165: long_function is 151 lines' in out,
          'the message names the file, the line and the function', out)
    check('short_function' not in out, 'a 150-line function passes', out)

    rc, out = run(src, 'src/core/long-function.c long_function  # being split\n')
    check(rc == 0, 'an allowlisted long function passes', out)

    rc, out = run(src, 'src/core/long-function.c long_function  # being split\n'
                       'src/core/long-function.c short_function  # not long\n')
    check(rc == 1 and 'short_function is allowed to be long but is not' in out,
          'an entry for a function that is not long fails, and says to remove it', out)

    rc, out = run(src, 'src/core/long-function.c long_function\n')
    check(rc != 0 and 'why' in out, 'an entry without its reason is refused', out)

print('1..6')
sys.exit(1 if failures else 0)
