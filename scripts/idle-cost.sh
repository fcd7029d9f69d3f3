#!/usr/bin/env bash
# What an idle audiosessiond costs: wake-ups per second per thread and what its RSS
# is made of, with a steady graph (a few streams playing, nothing changing).
#
#   scripts/idle-cost.sh                    the release daemon, session bus API on (private dbus-daemon)
#   scripts/idle-cost.sh --no-bus           the same without D-Bus (what `make bench` runs when --no-bus exists)
#   scripts/idle-cost.sh --seconds 60 --streams 10 --daemon path/to/audiosessiond
#   scripts/idle-cost.sh --keep             keep the temporary directory with every log
#
# It starts, in a temporary directory and never touching the user's session: a private
# headless PipeWire (the bench's four virtual sinks), a private dbus-daemon (bus mode), the
# daemon with the shipped rules, N `pw-cat` streams playing silence (and, in bus mode, one mpv
# with its MPRIS plugin, so the MPRIS path is live), waits until every stream is linked, lets
# the start-up settle, then samples /proc for the window and prints:
#   - wake-ups/s per thread (voluntary + involuntary context switches, /proc/PID/task/TID/status)
#     and in total, plus the daemon's CPU time over the window;
#   - VmRSS, and Rss / Pss / private-dirty per category of mapping (/proc/PID/smaps).
# Every process it starts is stopped by PID at exit, also on failure or Ctrl-C.
# Numbers, not assertions: nothing here fails because a number is high.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SECONDS_TO_SAMPLE=30
SETTLE=5
STREAMS=4
BUS=true
DAEMON=""
KEEP=false
while [ $# -gt 0 ]; do
  case "$1" in
    --no-bus) BUS=false ;;
    --bus) BUS=true ;;
    --seconds) SECONDS_TO_SAMPLE="$2"; shift ;;
    --settle) SETTLE="$2"; shift ;;
    --streams) STREAMS="$2"; shift ;;
    --daemon) DAEMON="$2"; shift ;;
    --keep) KEEP=true ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "idle-cost: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

for tool in pipewire pw-cat pw-link pw-cli sox python3; do
  command -v "$tool" >/dev/null || { echo "idle-cost: $tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done
if $BUS; then
  command -v dbus-daemon >/dev/null || { echo "idle-cost: dbus-daemon is missing" >&2; exit 1; }
fi

if [ -z "$DAEMON" ]; then
  echo "idle-cost: building audiosessiond (release)" >&2
  (cd "$ROOT" && swift build -c release --product audiosessiond 2>&1 | tail -1) >&2
  DAEMON="$ROOT/.build/release/audiosessiond"
fi
[ -x "$DAEMON" ] || { echo "idle-cost: no daemon at $DAEMON" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/idle-cost.XXXXXX")"
RUNTIME="$WORK/runtime"
mkdir -p -m 700 "$RUNTIME" "$WORK/config/pipewire/pipewire.conf.d" "$WORK/logs" "$WORK/state"
cp "$ROOT/Benchmarks/Reaction/config/pipewire-bench.conf" "$WORK/config/pipewire/pipewire.conf.d/50-idle-cost.conf"

PIDS=()
cleanup() {
  local status=$?
  # newest first: players, then the daemon, then the bus and PipeWire
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    local pid="${PIDS[i]}"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ] || $KEEP; then
    echo "idle-cost: logs kept in $WORK/logs" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export XDG_RUNTIME_DIR="$RUNTIME" PIPEWIRE_RUNTIME_DIR="$RUNTIME" XDG_CONFIG_HOME="$WORK/config" \
  XDG_STATE_HOME="$WORK/state" PIPEWIRE_LOG_SYSTEMD=false DISABLE_RTKIT=1
unset PIPEWIRE_REMOTE PULSE_SERVER
SOCKET="$RUNTIME/pipewire-0"

# waits (polling, with a deadline) until "$@" succeeds
wait_for() {
  local what="$1" deadline=$((SECONDS + $2)); shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "idle-cost: timed out waiting for $what" >&2; return 1; }
    sleep 0.05
  done
}

pipewire >"$WORK/logs/pipewire.log" 2>&1 &
PIDS+=($!)
wait_for "the private pipewire" 15 pw-cli -r "$SOCKET" info 0

if $BUS; then
  dbus-daemon --session --nofork --nopidfile --address="unix:path=$RUNTIME/bus" >"$WORK/logs/dbus.log" 2>&1 &
  PIDS+=($!)
  export DBUS_SESSION_BUS_ADDRESS="unix:path=$RUNTIME/bus"
  # no logind on a private bus: the daemon says so once and goes on
  export DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS"
  wait_for "the private session bus" 10 test -S "$RUNTIME/bus"
  BUS_FLAG=()
else
  unset DBUS_SESSION_BUS_ADDRESS DBUS_SYSTEM_BUS_ADDRESS
  export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$RUNTIME/no-system-bus"
  BUS_FLAG=(--no-bus)
fi

AUDIOSESSION_RULES_DIR="$ROOT/policy-rules" "$DAEMON" --remote "$SOCKET" --state-dir "$WORK/state/audiosession" \
  "${BUS_FLAG[@]}" >"$WORK/logs/audiosessiond.log" 2>&1 &
DAEMON_PID=$!
PIDS+=("$DAEMON_PID")
wait_for "the daemon to attach" 20 grep -q "attached to PipeWire" "$WORK/logs/audiosessiond.log"

# silence, long enough to outlast the window (8 kHz mono: small file, resampled by PipeWire)
sox -n -r 8000 -c 1 -b 16 "$WORK/silence.wav" trim 0 $((SETTLE + SECONDS_TO_SAMPLE + 120))
for i in $(seq "$STREAMS"); do
  pw-cat --remote "$SOCKET" -p --media-role Music -P "{ node.name = idle-stream-$i }" "$WORK/silence.wav" \
    >"$WORK/logs/pw-cat-$i.log" 2>&1 &
  PIDS+=($!)
done
PLAYERS=$STREAMS
if $BUS && command -v mpv >/dev/null; then
  PIPEWIRE_REMOTE="$SOCKET" mpv --no-config --script=/etc/mpv/scripts/mpris.so --no-video --no-terminal \
    --ao=pipewire "$WORK/silence.wav" >"$WORK/logs/mpv.log" 2>&1 &
  PIDS+=($!)
  PLAYERS=$((STREAMS + 1))
fi

linked_streams() {
  # how many playback streams have an output link (pw-link -l lists "node:port" pairs)
  pw-link -r "$SOCKET" -l -o 2>/dev/null | python3 -c '
import sys
linked, current = set(), None
for line in sys.stdin:
    if not line.startswith(" "):
        current = line.split(":")[0].strip()
    elif "|->" in line and current:
        linked.add(current)
print(len(linked - {"speaker", "headphones", "line-out", "hdmi"}))'
}
all_linked() { [ "$(linked_streams)" -ge "$PLAYERS" ]; }
wait_for "$PLAYERS streams to be linked" 30 all_linked
sleep "$SETTLE"  # start-up work (player discovery, bus names) finishes; not an assertion

echo "idle-cost: daemon $DAEMON (pid $DAEMON_PID), $([ "$BUS" = true ] && echo "session bus API on (private dbus-daemon)" || echo "--no-bus"), $PLAYERS streams playing; sampling ${SECONDS_TO_SAMPLE} s"
python3 - "$DAEMON_PID" "$SECONDS_TO_SAMPLE" <<'PY'
import os, sys, time

pid, window = int(sys.argv[1]), float(sys.argv[2])
TICKS = os.sysconf("SC_CLK_TCK")

def threads():
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            counts = {}
            for line in open(f"/proc/{pid}/task/{tid}/status"):
                key, _, value = line.partition(":")
                if key in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
                    counts[key] = int(value)
            out[tid] = (comm, counts["voluntary_ctxt_switches"], counts["nonvoluntary_ctxt_switches"])
        except (FileNotFoundError, KeyError):
            pass
    return out

def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS

start_threads, start_cpu, start = threads(), cpu_seconds(), time.monotonic()
time.sleep(window)
end_threads, end_cpu, elapsed = threads(), cpu_seconds(), time.monotonic() - start

print(f"\nwake-ups over {elapsed:.1f} s (voluntary + involuntary context switches):")
print(f"  {'tid':>8}  {'thread':<18} {'vol':>6} {'invol':>6} {'per s':>8}")
total = 0
for tid in sorted(set(start_threads) | set(end_threads), key=int):
    comm, v1, i1 = end_threads.get(tid, start_threads.get(tid))
    _, v0, i0 = start_threads.get(tid, (comm, 0, 0))
    if tid not in end_threads:
        comm += " (ended)"
    dv, di = v1 - v0, i1 - i0
    total += dv + di
    print(f"  {tid:>8}  {comm:<18} {dv:>6} {di:>6} {(dv + di) / elapsed:>8.2f}")
print(f"  total: {total / elapsed:.2f} wake-ups/s, {len(end_threads)} threads, CPU {1000 * (end_cpu - start_cpu):.0f} ms over the window")

# --- memory -------------------------------------------------------------------------------
status = {l.split(":")[0]: l.split(":")[1].strip() for l in open(f"/proc/{pid}/status") if ":" in l}
print(f"\nmemory: VmRSS {status['VmRSS']} (RssAnon {status['RssAnon']}, RssFile {status['RssFile']}, RssShmem {status['RssShmem']}), VmSize {status['VmSize']}")

def category(path, size_kb, exe):
    name = os.path.basename(path)
    if path == exe: return "our binary"
    if name.startswith(("libFoundation", "lib_FoundationICU")): return "Foundation (+ICU)"
    if name.startswith(("libdispatch", "libBlocksRuntime", "libswiftDispatch")): return "libdispatch"
    if name.startswith("libswift"): return "Swift runtime (libswift*)"
    if name.startswith(("libpipewire", "libspa")) or "/spa-0.2/" in path or "/pipewire-0.3/" in path: return "libpipewire + SPA plugins"
    if "pipewire-memfd" in path or path.startswith("/memfd:"): return "PipeWire shared memory"
    if name.startswith(("libsystemd", "liblzma", "libzstd", "liblz4", "libcap", "libgcrypt", "libgpg-error")): return "libsystemd (sd-bus) + deps"
    if name.startswith(("libc.so", "libm.so", "ld-linux", "libstdc++", "libgcc_s", "libdbus")): return "libc, libm, libstdc++, ld.so"
    if path == "[heap]": return "heap (brk)"
    if path == "[stack]": return "main thread stack"
    if path in ("[vdso]", "[vvar]", "[vsyscall]", "[vvar_vclock]"): return "kernel (vdso)"
    if path == "": return "anonymous: thread stacks" if size_kb in (8192, 8188) else "anonymous: malloc arenas, other"
    if path.startswith("/"): return "other files"
    return "other"

exe = os.path.realpath(f"/proc/{pid}/exe")
totals, mapping = {}, None
for line in open(f"/proc/{pid}/smaps"):
    parts = line.split()
    if "-" in parts[0] and len(parts) >= 5 and not parts[0].endswith(":"):
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        path = " ".join(parts[5:]) if len(parts) > 5 else ""
        mapping = category(path.replace(" (deleted)", ""), (hi - lo) // 1024, exe)
        totals.setdefault(mapping, {"Rss": 0, "Pss": 0, "Private_Dirty": 0, "Private_Clean": 0})
    elif parts[0].rstrip(":") in ("Rss", "Pss", "Private_Dirty", "Private_Clean") and mapping:
        totals[mapping][parts[0].rstrip(":")] += int(parts[1])
print(f"\n  {'category':<32} {'Rss KiB':>8} {'Pss KiB':>8} {'priv dirty':>10} {'priv clean':>10}")
for name, t in sorted(totals.items(), key=lambda kv: -kv[1]["Rss"]):
    if t["Rss"] == 0: continue
    print(f"  {name:<32} {t['Rss']:>8} {t['Pss']:>8} {t['Private_Dirty']:>10} {t['Private_Clean']:>10}")
s = {k: sum(t[k] for t in totals.values()) for k in ("Rss", "Pss", "Private_Dirty", "Private_Clean")}
print(f"  {'total':<32} {s['Rss']:>8} {s['Pss']:>8} {s['Private_Dirty']:>10} {s['Private_Clean']:>10}")
PY
