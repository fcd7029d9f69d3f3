#!/usr/bin/env bash
# Runs test suites many times in a row on one stack and counts each test's failures: the census
# of docs/testing.md. A test that fails one run in ten marks a behaviour that fails for some user.
#
#   scripts/flake-census.sh [--runs N] [--stack debian|1.4|1.6] [--hog] [--out DIR] [-- filters]
#
#   --runs N   how many runs (default 10)
#   --stack S  AUDIOSESSION_TEST_STACK for the runs (default debian)
#   --hog      keep both cores busy with a CPU hog (one `nice -n 0` busy loop per core) meanwhile
#   --out DIR  where each run's log and the tally go (default a new temporary directory)
#   filters    arguments for the test binary; default the suites `make test` runs on that stack
#              (the integration suites; on 1.4 and 1.6 without the PulseAudio ones, as the Makefile)
#
# The test binary, the programs beside it and the shipped rules are copied once into a directory
# of this census's own below .build-snap/ (removed at the end), so building or editing on while
# the census runs, or another census, changes nothing it runs. Each run's whole output is kept;
# the tally (tally.txt) lists every test that failed, how often, and the first thing it recorded.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=10 stack=debian hog=false out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --stack) stack="$2"; shift 2 ;;
    --hog) hog=true; shift ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "flake-census: unknown argument $1" >&2; exit 2 ;;
  esac
done
filters=("$@")
if [ ${#filters[@]} -eq 0 ]; then
  filters=(--filter PipeWireGraphTests --filter DaemonTests --filter SessionServiceTests)
  # The PulseAudio suites start the same PulseAudio 16 whatever the stack (the Makefile's STACK_SUITES).
  [ "$stack" = debian ] || filters+=(--skip 'DaemonTests\.Pulse')
fi
[ -n "$out" ] || out="$(mktemp -d /tmp/flake-census.XXXXXX)"
mkdir -p "$out"

bin="$(cd "$root" && swift build --show-bin-path)"
mkdir -p "$root/.build-snap"
snapshot="$(mktemp -d "$root/.build-snap/census-$stack.XXXXXX")"
for program in audiosessionPackageTests.xctest audiosessiond audiosessionctl audiosession-example-player; do
  cp -f "$bin/$program" "$snapshot/$program" || { echo "flake-census: build the tests first (swift build --build-tests)" >&2; exit 1; }
done
# The shipped rules of the same moment: a daemon run from a checkout reads the policy-rules/ beside
# the nearest Package.swift above it, which is now the snapshot's (RuleLocations.checkoutRules).
cp -f "$root/Package.swift" "$snapshot/Package.swift"
cp -r "$root/policy-rules" "$snapshot/policy-rules"

hogs=()
finish() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  rm -rf "$snapshot"
}
trap finish EXIT
if $hog; then
  for _ in $(seq "$(nproc)"); do (while :; do :; done) & hogs+=("$!"); done
fi

echo "flake-census: $runs runs on the $stack stack$($hog && echo ', a CPU hog on every core'), logs in $out"
failed_runs=0
for run in $(seq "$runs"); do
  started=$(date +%s)
  AUDIOSESSION_TEST_STACK="$stack" NO_COLOR=1 \
    "$snapshot/audiosessionPackageTests.xctest" --testing-library swift-testing --no-parallel "${filters[@]}" \
    >"$out/run-$run.log" 2>&1
  status=$?
  took=$(( $(date +%s) - started ))
  failures=$(grep -cE '✘ Test .* failed' "$out/run-$run.log")
  passed=$(grep -oE 'Test run with [0-9]+ tests?' "$out/run-$run.log" | grep -oE '[0-9]+' | tail -1)
  echo "flake-census: run $run: exit $status, ${passed:-?} tests, $failures failed, ${took} s"
  [ "$status" -eq 0 ] || failed_runs=$((failed_runs + 1))
done

{
  echo "$runs runs on the $stack stack$($hog && echo ', a CPU hog on every core'); $failed_runs failed"
  grep -hoE '✘ Test [^ ]+(\([^)]*\))? failed' "$out"/run-*.log | sed -E 's/✘ Test (.*) failed/\1/' | sort | uniq -c | sort -rn
  for log in "$out"/run-*.log; do
    grep -m1 -E '✘ Test .* recorded an issue' "$log" | sed "s|^|$(basename "$log"): |"
  done
} >"$out/tally.txt"
cat "$out/tally.txt"
[ "$failed_runs" -eq 0 ]
