#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, through swiftc -sanitize=fuzzer) of what reads untrusted
# input. Each target's module is built with coverage in .build-fuzz/ and linked with its
# harness (Tests/Fuzz/); each runs from its seed corpus (Tests/Fuzz/corpus/<target>/) for
# FUZZ_SECONDS (default 60), its working corpus in .build-fuzz/corpus/<target>/. A crash leaves
# crash-<hash> in .build-fuzz/ and fails the run; the executions and findings are printed.
#
#   scripts/fuzz.sh            # every target, 60 s each (make fuzz)
#   FUZZ_SECONDS=15 scripts/fuzz.sh   # the short pass .ci/run makes
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
swift="${SWIFT:-swift}"
build=.build-fuzz
debug="$build/debug"

"$swift" build --build-path "$build" --target PolicyRules -Xswiftc -sanitize=fuzzer >/dev/null
"$swift" build --build-path "$build" --target SessionBus -Xswiftc -sanitize=fuzzer >/dev/null
pipewire_cflags=$(pkg-config --cflags libpipewire-0.3 | sed 's/-I/-Xcc -I/g')

status=0
for target in rules bus-calls; do
  case "$target" in
    rules)
      harness=Tests/Fuzz/RulesFuzzer.swift
      objects=("$debug"/PolicyRules.build/*.o "$debug"/SessionPolicy.build/*.o)
      flags=(-Xcc -fmodule-map-file=Sources/CPipeWire/module.modulemap $pipewire_cflags $(pkg-config --libs libpipewire-0.3))
      # A rules file is a few KiB.
      max_len=4096 ;;
    bus-calls)
      harness=Tests/Fuzz/BusCallFuzzer.swift
      objects=("$debug"/SessionBus.build/*.o "$debug"/SessionBusShim.build/*.o "$debug"/Logging.build/*.o)
      flags=(-Xcc -fmodule-map-file=Sources/CSystemd/module.modulemap
        -Xcc -fmodule-map-file="$debug"/SessionBusShim.build/module.modulemap -Xcc -ISources/SessionBusShim/include -lsystemd)
      # What a peer sends in one go; the socket's buffer holds it whole.
      max_len=16384 ;;
  esac
  binary="$build/$target-fuzzer"
  swiftc -sanitize=fuzzer -parse-as-library -I "$debug/Modules" "$harness" "${objects[@]}" "${flags[@]}" -o "$binary"
  work="$build/corpus/$target"
  mkdir -p "$work"
  log="$build/$target-fuzzer.log"
  echo "fuzz: $target for ${seconds}s (seeds: Tests/Fuzz/corpus/$target)"
  if "$binary" -max_total_time="$seconds" -max_len="$max_len" -timeout=5 -rss_limit_mb=2048 \
      -artifact_prefix="$build/" "$work" "Tests/Fuzz/corpus/$target" >"$log" 2>&1; then
    runs=$(grep -oE 'Done [0-9]+ runs' "$log" | tail -1 | grep -oE '[0-9]+')
    echo "fuzz: $target: ${runs:-?} executions, no crash; corpus $(ls "$work" | wc -l) inputs"
  else
    status=1
    echo "fuzz: $target FAILED — the crashing input is in $build/ (crash-*, timeout-*, oom-*); its log:"
    tail -40 "$log"
  fi
done
exit "$status"
