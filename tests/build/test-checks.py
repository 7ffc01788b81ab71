#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The build's own checks catch what they are there to catch:
src/core/check-recipe.py refuses a direct call of the estimator (and not
one in a comment or a string), lists an allowed file's calls, and refuses
an allowed file that no longer makes any; .ci/check-format.py reports a
touched line laid out against .clang-format and leaves untouched legacy
lines alone.

Usage: test-checks.py SOURCE_ROOT"""

import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1])
RECIPE = os.path.join(ROOT, 'src', 'core', 'check-recipe.py')
FORMAT = os.path.join(ROOT, '.ci', 'check-format.py')
failures = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def recipe(*args):
    with tempfile.TemporaryDirectory() as stamp_dir:
        stamp = os.path.join(stamp_dir, 'stamp')
        p = subprocess.run([sys.executable, RECIPE, stamp, *args], capture_output=True,
                           text=True)
        return p, os.path.exists(stamp)


with tempfile.TemporaryDirectory() as tmp:
    chart = os.path.join(tmp, 'chart')
    app = os.path.join(tmp, 'app')
    write(os.path.join(chart, 'good.c'),
          '/* hr_estimate_new (s) is what the analysis calls */\n'
          'static const char *s = "hr_plan_peak (";\n'
          'void f (HrAnalysis *a) { hr_analysis_get_estimate (a); hr_estimate_free (e); }\n')
    write(os.path.join(app, 'pending.c'), 'void g (void)\n{\n  hr_fit_series (s, NULL);\n}\n')
    p, stamped = recipe(chart, app, '--allow', 'pending.c')
    check(p.returncode == 0 and stamped,
          f'recipe: comments, strings, reading and freeing pass ({p.stderr.strip()})')
    check('pending.c: 1 direct call' in p.stdout, 'recipe: an allowed file\'s calls are listed')

    write(os.path.join(chart, 'bad.c'),
          'void\nh (HrScenario *s)\n{\n  HrEstimate *e = hr_estimate_new (s);\n'
          '  hr_plan_peak (plan, 8, &peak);\n  hr_calibration_new (plan, series, NULL);\n}\n')
    p, stamped = recipe(chart, app, '--allow', 'pending.c')
    check(p.returncode == 1 and not stamped, 'recipe: direct calls fail the build')
    check(f'{os.path.join(chart, "bad.c")}:4: calls hr_estimate_new()' in p.stderr and
          ':5: calls hr_plan_peak()' in p.stderr and ':6: calls hr_calibration_new()' in p.stderr,
          'recipe: each call is named with its file and line')
    os.unlink(os.path.join(chart, 'bad.c'))

    write(os.path.join(app, 'pending.c'), 'void g (void)\n{\n}\n')
    p, stamped = recipe(chart, app, '--allow', 'pending.c')
    check(p.returncode == 1 and 'on the allow-list but calls no' in p.stderr,
          'recipe: an allowed file that calls nothing must come off the list')

    # The tree as it is passes (the build runs the same).
    p, stamped = recipe(os.path.join(ROOT, 'src', 'chart'), os.path.join(ROOT, 'src', 'cli'),
                        os.path.join(ROOT, 'src', 'app'))
    check(p.returncode == 0, f'recipe: the tree passes ({p.stderr.strip()})')

if shutil.which('clang-format-14') is None or shutil.which('git') is None:
    print('ok - format: # SKIP clang-format-14 or git is not installed (.ci/run installs it)')
else:
    with tempfile.TemporaryDirectory() as repo:
        def git(*args):
            return subprocess.run(['git', '-C', repo, *args], capture_output=True, text=True,
                                  env=dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t',
                                           GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@t'))

        git('init', '-q')
        shutil.copy(os.path.join(ROOT, '.clang-format'), repo)
        os.makedirs(os.path.join(repo, '.ci'))
        shutil.copy(FORMAT, os.path.join(repo, '.ci'))
        legacy = 'int\nold (void) {\n\treturn 1; }\n'
        write(os.path.join(repo, 'src', 'a.c'), legacy)
        git('add', '-A')
        git('commit', '-q', '-m', 'legacy')
        good = ('\nstatic int\nadded (int x)\n{\n  if (x)\n    {\n      g_print (_("%d"), x);\n'
                '      return x > 1 ? x\n                   : 0;\n    }\n  return 0;\n}\n')
        write(os.path.join(repo, 'src', 'a.c'), legacy + good)

        def fmt():
            return subprocess.run([sys.executable, os.path.join(repo, '.ci', 'check-format.py'),
                                   'HEAD'], capture_output=True, text=True, cwd=repo)

        p = fmt()
        check(p.returncode == 0 and '0 problem(s)' in p.stdout,
              f'format: house-style lines added beside untouched legacy ones pass ({p.stdout})')
        bad = '\nstatic int\nadded (int x) {\n  if (x) {\n\treturn 1;\n  }\n   return 0;  \n}\n'
        write(os.path.join(repo, 'src', 'a.c'), legacy + bad)
        p = fmt()
        check(p.returncode == 1 and 'src/a.c:8: a tab in the indentation' in p.stdout and
              'src/a.c:10: trailing white space' in p.stdout and
              'src/a.c:6: laid out otherwise' in p.stdout and
              'src/a.c:2' not in p.stdout and 'src/a.c:3' not in p.stdout,
              f'format: the added lines are reported, the legacy ones not ({p.stdout})')

sys.exit(1 if failures else 0)
