#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs every fuzz target built in BUILD_DIR for SECONDS each, one after the
# other, from its seed corpus (tests/fuzz/corpus/NAME, never written to)
# and a working corpus in WORK_DIR/NAME.  Prints one line per target:
#   fuzz-NAME: N runs, cov C, ft F, corpus K
# and exits non-zero if any target found a crash, a leak, a timeout or a
# broken invariant (the input is saved in WORK_DIR/NAME/crash-*).
# Usage: run-fuzz.sh BUILD_DIR SECONDS [WORK_DIR] [-- extra libFuzzer flags]
# FUZZ_TARGETS="scenario catalog" limits the run to those targets.
set -uo pipefail

build=$(cd "${1:?build dir}" && pwd)
seconds=${2:?seconds per target}
work=${3:-$(mktemp -d)}
shift $(( $# >= 3 ? 3 : $# ))
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=suppressions=$here/../lsan.supp:print_suppressions=0

status=0
found=0
for exe in "$build"/tests/fuzz/fuzz-*; do
  [ -x "$exe" ] && [ -f "$exe" ] || continue
  found=$((found + 1))
  name=${exe##*/fuzz-}
  if [ -n "${FUZZ_TARGETS:-}" ] && ! grep -qw -- "$name" <<<"$FUZZ_TARGETS"; then
    continue
  fi
  mkdir -p "$work/$name"
  dict=()
  [ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
  log="$work/$name.log"
  (cd "$work/$name" && "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -max_len="${FUZZ_MAX_LEN:-1048576}" -print_final_stats=1 "${dict[@]}" "$@" . "$here/corpus/$name") >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  echo "fuzz-$name: ${runs:-0} runs, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
  if [ "$rc" -ne 0 ]; then
    echo "fuzz-$name FAILED (exit $rc); log: $log" >&2
    grep -E 'invariant failed|ERROR: |SUMMARY|Test unit written' "$log" | head -8 >&2
    status=1
  fi
done

if [ "$found" -eq 0 ]; then
  echo "no fuzz targets in $build/tests/fuzz (configure with -Dfuzz=true)" >&2
  exit 1
fi
exit "$status"
