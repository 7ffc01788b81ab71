#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the C lines a change touches against .clang-format.

Usage: .ci/check-format.py [BASE]

BASE defaults to the merge base of origin/main and HEAD, else (no
origin/main, or one at HEAD, as in a fresh clone) HEAD~1.
Every .c file under src/ and tests/ that changed since BASE (and
is still there) is run through clang-format-14; a run of lines that
clang-format would lay out otherwise, and that holds a line added or
changed since BASE, is reported with what clang-format would write.
Lines nobody touched are never reported, so code older than .clang-format
passes as it is.

What is compared is the start of each statement: its indentation, its
first token, and whether it opens a block on its own line or after
something else ("if (x) {", "} else {"); tabs and trailing white space
are reported on any touched line.  How a statement's continuation lines
wrap is not compared (clang-format 14 breaks ternaries and arguments
where the house keeps them together), nor is the spacing inside a line
(it aligns declarations the house leaves unaligned), and the gettext
macros _() and N_() are hidden from it (it would write "_ (").  Headers
are not checked: their prototypes are aligned in columns, which
clang-format 14 cannot write.  Exits 1 when anything is reported, 0
otherwise (and when clang-format-14 is missing, saying so).
"""

import difflib
import os
import re
import shutil
import subprocess
import sys

CLANG_FORMAT = 'clang-format-14'


def git(*args):
    return subprocess.run(['git', *args], capture_output=True, text=True)


def base_commit(argv):
    if len(argv) > 1:
        return argv[1]
    p = git('merge-base', 'origin/main', 'HEAD')
    head = git('rev-parse', 'HEAD').stdout.strip()
    # a fresh clone of main (as CI makes) has origin/main at HEAD: then the
    # change is the last commit
    if p.returncode == 0 and p.stdout.strip() and p.stdout.strip() != head:
        return p.stdout.strip()
    return 'HEAD~1'


def changed_lines(base, path):
    """The line numbers (1-based, in the work tree) added or changed."""
    p = git('diff', '-U0', '--no-color', base, '--', path)
    lines = set()
    for m in re.finditer(r'^@@ -\S+ \+(\d+)(?:,(\d+))? @@', p.stdout, re.M):
        start, count = int(m.group(1)), int(m.group(2) or '1')
        lines.update(range(start, start + count))
    return lines


def hide_gettext(line):
    # same length, and no identifier before "(" for clang-format to space
    line = re.sub(r'\bN_\(', '++(', line)
    return re.sub(r'(?<![A-Za-z0-9_])_\(', '+(', line)


def layout(line):
    """A line's indentation and its tokens, with the spacing inside it
    made uniform."""
    lead = re.match(r'[ \t]*', line).group(0)
    rest = re.sub(r'\s+', ' ', line[len(lead):].rstrip())
    rest = re.sub(r' \(', '(', rest)
    # (HrRect) { ... }: a compound literal, which clang-format writes
    # (HrRect){ ... } whatever SpaceAfterCStyleCast says
    rest = re.sub(r' \{', '{', rest)
    return lead + rest


def exempt_lines(original):
    """Lines (1-based) of aggregate initializers and macro bodies."""
    exempt = set()
    inside = None       # the indentation of the "= {" line
    for n, line in enumerate(original, 1):
        indent = len(line) - len(line.lstrip())
        if inside is None and re.search(r'=\s*\{\s*$', line):
            inside = indent
            exempt.add(n)
            continue
        if inside is not None:
            exempt.add(n)
            if line.strip().startswith('}') and indent <= inside:
                inside = None
        if line.rstrip().endswith('\\') or (n > 1 and original[n - 2].rstrip().endswith('\\')):
            exempt.add(n)
    return exempt


def show_gettext(line):
    return re.sub(r'(?<![A-Za-z0-9_+])\+\(', '_(', line.replace('++(', 'N_('))


def statements(lines):
    """(index, key) for each line that starts a statement: the line after
    one that ends in ";", "{", "}" or ":" (comments, blank lines and
    preprocessor lines between them aside).  The key is the line's
    indentation, its first token and whether it opens a block after
    something else ("if (x) {"); a struct's, a union's or an enum's brace
    may be on its line or the next, as the house writes both."""
    out = []
    prev_end = None
    prev_text = None
    depth = 0                   # parentheses open at the end of the line before
    continued = False           # inside a preprocessor line's continuation
    for i, line in enumerate(lines):
        text = line.strip()
        was_continued = continued
        continued = line.rstrip().endswith('\\')
        if was_continued or not text or text.startswith(('/*', '*', '//', '#')):
            continue
        record = re.match(r'(typedef\s+)?(struct|union|enum)\b', prev_text or '')
        # a statement's start, and any line that opens a block (a
        # function's "{", or "foo (void) {"), but a record's "{" on its
        # own line
        if ((depth == 0 and (prev_end is None or prev_end in ';{}:')) or
                (text.endswith('{') and not (text == '{' and record))):
            lead = re.match(r'[ \t]*', line).group(0)
            first = re.match(r'[A-Za-z_][A-Za-z0-9_]*|\S', text).group(0)
            opens = (text.endswith('{') and text != '{' and
                     not re.match(r'(typedef\s+)?(struct|union|enum)\b', text))
            out.append((i, (lead, first, opens)))
        prev_text = text
        body = re.sub(r'/\*.*?\*/', '', text)
        body = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', body).rstrip()
        depth = max(0, depth + body.count('(') - body.count(')'))
        if body:
            prev_end = body[-1]
    return out


def check(path, touched, config):
    with open(path, encoding='utf-8') as f:
        original = f.read().split('\n')
    touched = {n for n in touched - exempt_lines(original)
               if n <= len(original) and original[n - 1].strip()}
    hidden = [hide_gettext(line) for line in original]
    p = subprocess.run([CLANG_FORMAT, f'--style=file:{config}',
                        f'--assume-filename={path}'],
                       input='\n'.join(hidden), capture_output=True, text=True)
    if p.returncode != 0:
        return [f'{path}: {CLANG_FORMAT} failed: {p.stderr.strip()}']
    formatted = p.stdout.split('\n')
    problems = []
    ours = statements(hidden)
    theirs = statements(formatted)
    matcher = difflib.SequenceMatcher(None, [k for _, k in ours], [k for _, k in theirs],
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == 'equal':
            continue
        # the lines of our statements in the run, to the next statement
        first = ours[i1][0] if i1 < len(ours) else len(hidden) - 1
        last = ours[i2][0] if i2 < len(ours) else len(hidden)
        span = set(range(first + 1, max(last, first + 1) + 1))
        if not span & touched:
            continue
        t_first = theirs[j1][0] if j1 < len(theirs) else len(formatted) - 1
        t_last = theirs[j2][0] if j2 < len(theirs) else len(formatted)
        want = '\n'.join('    ' + show_gettext(line)
                         for line in formatted[t_first:max(t_last, t_first + 1)][:8])
        problems.append(f'{path}:{first + 1}: laid out otherwise than .clang-format '
                        f'says; {CLANG_FORMAT} writes:\n{want}')
    for n in sorted(touched):
        if n <= len(original) and original[n - 1] != original[n - 1].rstrip():
            problems.append(f'{path}:{n}: trailing white space')
        if n <= len(original) and '\t' in re.match(r'\s*', original[n - 1]).group(0):
            problems.append(f'{path}:{n}: a tab in the indentation')
    return problems


def main(argv):
    top = git('rev-parse', '--show-toplevel').stdout.strip()
    os.chdir(top)
    if shutil.which(CLANG_FORMAT) is None:
        print(f'{CLANG_FORMAT} is not installed: the format check is not run')
        return 0
    base = base_commit(argv)
    if git('rev-parse', '--verify', '--quiet', base + '^{commit}').returncode != 0:
        # a checkout of one commit has no HEAD~1: nothing to compare with
        print(f'format: no commit {base} to compare with: the format check is not run')
        return 0
    names = git('diff', '--name-only', '--diff-filter=AMR', base, '--',
                'src/*.c', 'tests/*.c')
    if names.returncode != 0:
        print(f'git diff {base}: {names.stderr.strip()}', file=sys.stderr)
        return 1
    config = os.path.join(top, '.clang-format')
    problems = []
    files = [n for n in names.stdout.split('\n') if n and os.path.isfile(n)]
    for path in files:
        touched = changed_lines(base, path)
        if touched:
            problems += check(path, touched, config)
    for problem in problems:
        print(problem)
    print(f'format: {len(files)} changed C file(s) since {base[:12]}, '
          f'{len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
