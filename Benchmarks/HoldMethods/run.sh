#!/usr/bin/env bash
# Hold methods on PipeWire 0.3.65 (Debian 12, system-wide) and 1.4.2 (the bookworm-backports
# prefix of scripts/fetch-pipewire-backport.sh): link destroys vs Pause vs Suspend vs mute, sent
# by a third client to N playing streams (N = 1, 10, 100), measured at the sink's monitor.
# See README.md beside this file for the method and the results.
#
#   Benchmarks/HoldMethods/run.sh                  everything (~6 min on the 2-core machine)
#   HOLD_TRIALS=5 HOLD_SCALES="1 10" ...run.sh     a smoke run
#   HOLD_STACKS=0.3.65 ...run.sh                   one stack only
#
# Builds hold-methods.c with cc + pkg-config into a temporary directory; every daemon and client
# runs in its own temporary XDG_RUNTIME_DIR (nothing reaches a user session); every process it
# starts is stopped by its PID at the end (also on error or Ctrl-C). The raw CSVs and logs stay
# in HOLD_OUT (default: a temporary directory, printed at the end).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TRIALS="${HOLD_TRIALS:-20}"
WARMUP="${HOLD_WARMUP:-2}"
QUANTUM="${HOLD_QUANTUM:-512}"
SCALES="${HOLD_SCALES:-1 10 100}"
STACKS="${HOLD_STACKS:-0.3.65 1.4.2}"
APP_HOLD_MS="${HOLD_APP_HOLD_MS:-1000}"
BACKPORT="$ROOT/.build-pipewire-1.4/prefix"
WORK="$(mktemp -d /tmp/hold-methods.XXXXXX)"
OUT="${HOLD_OUT:-$WORK/results}"
mkdir -p "$OUT"
STARTED=$(date +%s)
say() { printf '[hold %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

for tool in pipewire pw-cat cc pkg-config python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing" >&2; exit 1; }
done
pkg-config --exists libpipewire-0.3 || { echo "run.sh: libpipewire-0.3-dev is needed" >&2; exit 1; }
case " $STACKS " in *" 1.4.2 "*)
  [ -x "$BACKPORT/usr/bin/pipewire" ] || { echo "run.sh: no PipeWire 1.4.2 in $BACKPORT (run scripts/fetch-pipewire-backport.sh)" >&2; exit 1; } ;;
esac

# --- processes: every one remembered by PID, stopped by PID --------------------------------
PIDS=()
start() { # start LOG CMD...: in the background, its PID in $! and in PIDS
  local log=$1; shift
  "$@" >>"$log" 2>&1 </dev/null &
  PIDS+=("$!")
}
stop() { # stop PID...: SIGTERM, SIGKILL after 3 s, reaped
  local pid i
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for i in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  local keep=() p
  for p in "${PIDS[@]}"; do case " $* " in *" $p "*) ;; *) keep+=("$p") ;; esac; done
  PIDS=("${keep[@]}")
}
cleanup() {
  local status=$?
  [ ${#PIDS[@]} -eq 0 ] || stop "${PIDS[@]}"
  rm -rf "$WORK/stacks" "$WORK/bin"
  [ "$OUT" = "$WORK/results" ] || rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build ---------------------------------------------------------------------------------
mkdir -p "$WORK/bin"
cc -O2 -Wall -Wextra -o "$WORK/bin/hold-methods" "$HERE/hold-methods.c" $(pkg-config --cflags --libs libpipewire-0.3) -lm
HM="$WORK/bin/hold-methods"
# a 3 s stereo file of DC 32/32768 = 2^-10, the victims' amplitude, for the real apps
python3 - "$WORK/bin/dc.wav" <<'EOF'
import struct, sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(struct.pack("<h", 32) * 2 * 48000 * 3); w.close()
EOF

# --- one private headless server per stack -------------------------------------------------
# A null sink "hold-sink" (DSP ports and monitor ports), the graph fixed at QUANTUM/48000.
sink_conf() {
  cat <<EOF
context.properties = {
    default.clock.rate = 48000
    default.clock.quantum = $QUANTUM
    default.clock.min-quantum = $QUANTUM
    default.clock.max-quantum = $QUANTUM
}
context.objects = [
    { factory = adapter args = { factory.name = support.null-audio-sink node.name = "hold-sink" node.description = "Hold sink" media.class = "Audio/Sink" audio.position = [ FL FR ] object.linger = true adapter.auto-port-config = { mode = dsp monitor = true position = preserve } } }
]
EOF
}

NICE=()
[ "$(id -u)" = 0 ] && NICE=(nice -n -10)  # as the reaction bench: the server less disturbed by other builds

start_stack() { # start_stack STACK DIR: exports the clients' environment
  local stack=$1 dir=$2
  mkdir -p "$dir/runtime" "$dir/config/pipewire/pipewire.conf.d" "$dir/state" "$dir/logs"
  chmod 700 "$dir/runtime"
  sink_conf > "$dir/config/pipewire/pipewire.conf.d/50-hold-methods.conf"
  export XDG_RUNTIME_DIR="$dir/runtime" PIPEWIRE_RUNTIME_DIR="$dir/runtime" XDG_CONFIG_HOME="$dir/config" \
    XDG_STATE_HOME="$dir/state" PIPEWIRE_REMOTE="$dir/runtime/pipewire-0" PULSE_SERVER="unix:$dir/runtime/pulse/native" \
    DISABLE_RTKIT=1 PIPEWIRE_LOG_SYSTEMD=false HOLD_QUANTUM="$QUANTUM"
  unset DBUS_SESSION_BUS_ADDRESS || true
  BIN=/usr/bin
  SINK_PORTCONFIG=()
  if [ "$stack" = 1.4.2 ]; then
    local lib="$BACKPORT/usr/lib/x86_64-linux-gnu"
    # PIPEWIRE_CONFIG_DIR replaces every other place: 1.4.2's own files plus the sink
    cp -r "$BACKPORT/usr/share/pipewire" "$dir/server-config"
    mkdir -p "$dir/server-config/pipewire.conf.d"
    sink_conf > "$dir/server-config/pipewire.conf.d/50-hold-methods.conf"
    export LD_LIBRARY_PATH="$lib" SPA_PLUGIN_DIR="$lib/spa-0.2" SPA_DATA_DIR="$BACKPORT/usr/share/spa-0.2" \
      PIPEWIRE_MODULE_DIR="$lib/pipewire-0.3" PIPEWIRE_CONFIG_DIR="$dir/server-config"
    BIN="$BACKPORT/usr/bin"
    # 1.4.2 leaves the null sink in convert mode without a session manager: DSP ports set by the bench
    SINK_PORTCONFIG=(--sink-portconfig)
  else
    unset LD_LIBRARY_PATH SPA_PLUGIN_DIR SPA_DATA_DIR PIPEWIRE_MODULE_DIR PIPEWIRE_CONFIG_DIR || true
  fi
  start "$dir/logs/pipewire.log" "${NICE[@]}" "$BIN/pipewire"
  SERVER=$!
  local i
  for i in $(seq 100); do [ -S "$dir/runtime/pipewire-0" ] && break; sleep 0.1; done
  [ -S "$dir/runtime/pipewire-0" ] || { echo "run.sh: the $stack server did not start (see $dir/logs)" >&2; exit 1; }
  sleep 0.3
  PULSE=""
  if [ -x "$BIN/pipewire-pulse" ] && command -v paplay >/dev/null; then
    start "$dir/logs/pipewire-pulse.log" "${NICE[@]}" "$BIN/pipewire-pulse"
    PULSE=$!
  fi
}

# --- the measurements ------------------------------------------------------------------------
CSV="$OUT/trials.csv"
HEADER="stack,n,method,trial,ack_ms,first_ms,all_ms,undone_ms,escaped_ms,back_ack_ms,back_first_ms,back_all_ms,restored,repaired,timed_out,glitch_hold,glitch_probe,glitch_back,cycles,odd,hold_state,links_after,running_after,t0,t1"
echo "$HEADER" > "$CSV"
echo "$HEADER" > "$OUT/toggle.csv"
echo "stack,app,method,wall_s,exit,hold_s,held,back" > "$OUT/apps.csv"

segfaults() { dmesg 2>/dev/null | grep -E "pipewire(-pulse)?\[[0-9]+\]: segfault" || true; }
SEGFAULTS_BEFORE=$(segfaults | wc -l)

up() { # up STACK: the server, pipewire-pulse, the witness and the bystander (a fresh directory)
  local stack=$1
  RUN=$(( ${RUN:-0} + 1 ))
  dir="$WORK/stacks/$stack-$RUN"
  say "$stack: private server in $dir"
  start_stack "$stack" "$dir"
  # the witness (another app on the same sink, never held) and the bystander (silent; linked
  # and unlinked during each hold: a graph change)
  start "$OUT/farm-$stack-witness.log" "$HM" farm witness 1 0.25 bystander 1 0
  WITNESS=$!
}
down() { # down STACK: everything up started, its logs kept
  local stack=$1
  [ -z "$PULSE" ] || stop "$PULSE"
  stop "$WITNESS" "$SERVER"
  for f in "$dir"/logs/*.log; do cp "$f" "$OUT/$(basename "${f%.log}")-$stack-$RUN.log"; done
}
crashed() { # crashed STACK WHAT: true (and the stack restarted) if the server died during WHAT
  local stack=$1 what=$2
  kill -0 "$SERVER" 2>/dev/null && return 1
  local trace
  trace=$(segfaults | tail -n +$(( SEGFAULTS_BEFORE + 1 )) | tail -1)
  say "$stack: THE SERVER DIED during $what ${trace:+($trace)}; restarting it"
  echo "$stack,$what,${trace:-no kernel log}" >> "$OUT/crashes.csv"
  down "$stack"
  up "$stack"
  return 0
}

for stack in $STACKS; do
  up "$stack"
  for n in $SCALES; do
    say "$stack: $n victims, $TRIALS trials per method (+$WARMUP warm-up), interleaved"
    start "$OUT/farm-$stack-$n.log" "$HM" farm victim "$n" 0.0009765625
    FARM=$!
    # xrun counters (ERR) as pw-top shows them, all along (1.4.2's pw-top, on both servers)
    start "$OUT/pw-top-$stack-$n.txt" env LD_LIBRARY_PATH="$BACKPORT/usr/lib/x86_64-linux-gnu" \
      SPA_PLUGIN_DIR="$BACKPORT/usr/lib/x86_64-linux-gnu/spa-0.2" PIPEWIRE_MODULE_DIR="$BACKPORT/usr/lib/x86_64-linux-gnu/pipewire-0.3" \
      "$BACKPORT/usr/bin/pw-top" -b
    TOP=$!
    "$HM" bench --label "$stack" --n "$n" --trials "$TRIALS" --warmup "$WARMUP" --quantum "$QUANTUM" \
      "${SINK_PORTCONFIG[@]}" >> "$CSV" 2> "$OUT/bench-$stack-$n.log" || say "$stack: $n victims: bench exited $? (see $OUT/bench-$stack-$n.log)"
    stop "$TOP" "$FARM"
    if crashed "$stack" "$n victims (the last trial written: $(tail -1 "$CSV" | cut -d, -f3,4))"; then
      # the scale again, without Suspend (the other methods' trials are complete that way)
      say "$stack: $n victims again, link,pause,mute only"
      start "$OUT/farm-$stack-$n.log" "$HM" farm victim "$n" 0.0009765625
      FARM=$!
      "$HM" bench --label "$stack" --n "$n" --trials "$TRIALS" --warmup "$WARMUP" --quantum "$QUANTUM" --methods link,pause,mute \
        "${SINK_PORTCONFIG[@]}" >> "$CSV" 2> "$OUT/bench-$stack-$n-again.log" || say "$stack: $n victims again: bench exited $?"
      stop "$FARM"
      crashed "$stack" "$n victims, again without suspend" || true
    fi
  done
  # the app pauses and resumes itself during a hold (as pipewire-pulse does on cork/uncork)
  say "$stack: 10 victims, the app toggles its streams inactive/active during each hold"
  start "$OUT/farm-$stack-toggle.log" "$HM" farm victim 10 0.0009765625
  FARM=$!
  "$HM" bench --label "$stack" --n 10 --trials 5 --warmup 0 --quantum "$QUANTUM" --toggle-pid "$FARM" \
    "${SINK_PORTCONFIG[@]}" >> "$OUT/toggle.csv" 2> "$OUT/bench-$stack-toggle.log" || say "$stack: toggle run exited $?"
  stop "$FARM"
  crashed "$stack" "the toggle run" || true
  # real apps: pw-cat, and paplay through pipewire-pulse; a 3 s file, one hold of ~1 s
  for app in pw-cat paplay; do
    [ "$app" = paplay ] && [ -z "$PULSE" ] && continue
    for method in link pause suspend mute; do
      "$HM" bench --label "$stack" --n 1 --prefix app --trials 1 --warmup 0 --methods "$method" --hold-ms "$APP_HOLD_MS" \
        --quantum "$QUANTUM" --stay "${SINK_PORTCONFIG[@]}" > "$OUT/app-$stack-$app-$method.csv" 2> "$OUT/app-$stack-$app-$method.log" &
      PIDS+=("$!"); BENCH=$!
      s=$(date +%s%N)
      if [ "$app" = pw-cat ]; then
        timeout 20 "$BIN/pw-cat" -v -p --latency "$QUANTUM" -P '{ node.name = "app-0" }' "$WORK/bin/dc.wav" \
          > "$OUT/app-$stack-$app-$method.out" 2>&1 && rc=0 || rc=$?
      else
        PULSE_LATENCY_MSEC=20 timeout 20 paplay --property=node.name=app-0 "$WORK/bin/dc.wav" \
          > "$OUT/app-$stack-$app-$method.out" 2>&1 && rc=0 || rc=$?
      fi
      e=$(date +%s%N)
      stop "$BENCH"
      crashed "$stack" "$app, $method" || true
      python3 - "$stack" "$app" "$method" "$s" "$e" "$rc" "$OUT/app-$stack-$app-$method.csv" >> "$OUT/apps.csv" <<'EOF'
import sys
stack, app, method, s, e, rc, path = sys.argv[1:]
rows = [l.strip().split(",") for l in open(path) if l.strip()]
hold, held, back = "", "no", "no"
if rows:  # the columns of trials.csv
    r = rows[0]
    hold = f"{(int(r[24]) - int(r[23])) / 1e9:.3f}"
    held = "yes" if float(r[6]) >= 0 else "no"
    back = "yes" if r[12] == "1" else ("repaired" if r[13] == "1" else "no")
print(f"{stack},{app},{method},{(int(e) - int(s)) / 1e9:.3f},{rc},{hold},{held},{back}")
EOF
    done
  done
  down "$stack"
done

say "measured in $(( $(date +%s) - STARTED )) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$HERE/report.py" "$OUT" "$QUANTUM"
say "raw results: $OUT"
