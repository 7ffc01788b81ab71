#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Holds the charts, the window and headroom-cli to the analysis.

Usage: check-recipe.py STAMP DIR... [--allow FILE...]

Every figure Headroom shows is the analysis' (src/core/hr-analysis.h): the
estimate on each card, the sweep, the fits of a measurement, the
calibration, the levers, the advice.  A source in one of the folders DIR
that calls the estimator, the fitter or the calibration itself
(hr_estimate_new, hr_plan_*, hr_fit_series, hr_calibration_new, ...)
computes a second answer beside the analysis', which sooner or later
disagrees with it; this check fails the build when one does.

FILE... (paths as given for DIR, or base names) are sources still
pending a move to the analysis: their calls are listed, not refused.
An allowed file that no longer calls any is an error too, so that the
allow-list shrinks as the sources move.
"""

import os
import re
import sys

# The entry points that compute: the estimator (src/core/estimate), the
# fitter and the calibration (src/core/measure/hr-fit.h), the levers and
# the advice (src/core/advice).  Freeing, copying and reading what the
# analysis made (hr_estimate_free, hr_fit_free, hr_knob_free, ...) is fine.
ENTRY_POINTS = [
    r'hr_estimate_new',
    r'hr_plan_[a-z0-9_]+',
    r'hr_sweep_run',
    r'hr_fit_series',
    r'hr_fit_linear',
    r'hr_fit_predict',
    r'hr_fit_rule_(?:limit|need|max_micro_batch|plan_max_micro_batch)',
    r'hr_calibration_(?:new|apply|apply_estimate|peak|max_micro_batch)',
    r'hr_knobs_(?:evaluate|find_fix|rank)',
    r'hr_advice_new(?:_calibrated)?',
]
CALL = re.compile(r'\b(' + '|'.join(ENTRY_POINTS) + r')\s*\(')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def blank(match):
    # keeps the line numbers
    return re.sub(r'[^\n]', ' ', match.group(0))


def calls(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    code = STRING.sub(blank, COMMENT.sub(blank, text))
    for m in CALL.finditer(code):
        yield code.count('\n', 0, m.start()) + 1, m.group(1)


def main(argv):
    stamp = argv[1]
    rest = argv[2:]
    split = rest.index('--allow') if '--allow' in rest else len(rest)
    folders, allowed = rest[:split], rest[split + 1:]
    allowed_names = {os.path.basename(a) for a in allowed}

    errors = []
    pending = []
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(folder, name)
            found = list(calls(path))
            if name in allowed_names:
                if found:
                    pending.append(f'{path}: {len(found)} direct call(s), '
                                   f'pending a move to the analysis')
                else:
                    errors.append(f'{path}: on the allow-list but calls no '
                                  f'estimator entry point: take it off '
                                  f'(src/core/meson.build)')
                continue
            for line, function in found:
                errors.append(f'{path}:{line}: calls {function}() itself; '
                              f'read the analysis instead '
                              f'(src/core/hr-analysis.h)')

    for line in pending:
        print(line)
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        print('error: one recipe: the charts, the window and headroom-cli '
              'read the analysis (docs/DESIGN.md, "One recipe")',
              file=sys.stderr)
        return 1
    with open(stamp, 'w'):
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
