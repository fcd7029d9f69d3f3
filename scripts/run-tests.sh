#!/usr/bin/env bash
# Runs the test binary (what `make test` and CI run) once. Suites run one after another.
#
# A failure fails the build: there is no second run. A test that fails one run in ten marks a
# behaviour that fails for some user, so each failure is chased to its cause (docs/testing.md
# keeps the census). What the failing tests recorded is printed again at the end, where a reader
# of only the end of the output (CI's summary) sees it, with the tests skipped and why.
set -uo pipefail
# Plain text: CI reads the closing line.
export NO_COLOR=1
binary="$1"
shift  # the rest: more arguments for the test binary (--filter ...)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "run-tests: on the ${AUDIOSESSION_TEST_STACK:-debian} stack, time scale ${AUDIOSESSION_TEST_TIME_SCALE:-1}"
"$binary" --testing-library swift-testing --no-parallel "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

skipped=$(grep -E ' Test .* skipped' "$log" | sed 's/^/run-tests:   /')
if [ -n "$skipped" ]; then
  echo
  echo "run-tests: skipped, each with its reason:"
  echo "$skipped"
fi
if [ "$status" -eq 0 ]; then exit 0; fi

echo
echo "run-tests: failed (exit $status) on the ${AUDIOSESSION_TEST_STACK:-debian} stack. What the failing tests recorded:"
grep -E '✘ Test .* (recorded an issue|failed)' "$log" | sed 's/^/run-tests:   /' | head -60
exit "$status"
