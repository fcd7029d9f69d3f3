#!/usr/bin/env bash
# Runs the test binary (what `make test` and CI run). Suites run one after another.
#
# The integration tests run real daemons (PipeWire, pipewire-pulse, dbus-daemon, mpv,
# WirePlumber) against deadlines on a 2-core machine. When a run fails, the failures are
# printed and the whole suite runs once more: a failure that happens twice is a failure; one
# that does not come back is reported as a timing flake (the list is in the output, never
# hidden), so it can be chased without blocking everyone else. A failure of a deterministic
# test — the policy engine's and the rules' (Tests/SessionPolicyTests, Tests/PolicyRulesTests),
# whose random scenarios are seeded and print their seed — is never run again: it would pass by
# drawing another case, and hide a real bug (it once did).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Plain text: CI reads the closing line.
export NO_COLOR=1
binary="$1"
shift  # the rest: more arguments for the test binary (--filter ...)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "run-tests: on the ${AUDIOSESSION_TEST_STACK:-debian} stack"
"$binary" --testing-library swift-testing --no-parallel "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ]; then exit 0; fi

echo
echo "run-tests: the first run failed (exit $status). Its failures:"
grep -E '✘ Test .* (recorded an issue|failed)' "$log" | sed 's/^/run-tests:   /' | head -40
deterministic=$(grep -oE '✘ Test .* recorded an issue at [A-Za-z0-9_+]+\.swift' "$log" | sed -E 's/.* at //' | sort -u |
  while read -r file; do
    for directory in SessionPolicyTests PolicyRulesTests; do
      if find "$root/Tests/$directory" -name "$file" | grep -q .; then echo "$file"; fi
    done
  done)
if [ -n "$deterministic" ]; then
  echo "run-tests: a deterministic test failed ($(echo $deterministic)): not run again — no timing can explain it, and a seeded random test would draw another case."
  exit "$status"
fi
echo "run-tests: running every test once more; a failure that repeats fails the build."
echo
second="$(mktemp)"
trap 'rm -f "$log" "$second"' EXIT
"$binary" --testing-library swift-testing --no-parallel "$@" 2>&1 | tee "$second"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ]; then
  echo "run-tests: the second run passed: the failures above were timing flakes on this machine."
  exit 0
fi
# Last, where a reader of only the end of the output (CI's summary) sees them: both runs' failures.
echo
echo "run-tests: the second run failed too (exit $status). First run's failures:"
grep -E '✘ Test .* (recorded an issue|failed)' "$log" | sed 's/^/run-tests:   /' | head -20
echo "run-tests: second run's failures:"
grep -E '✘ Test .* (recorded an issue|failed)' "$second" | sed 's/^/run-tests:   /' | head -20
exit "$status"
