#!/usr/bin/env bash
# The side-by-side reaction benchmark: audiosessiond vs WirePlumber 0.4 endpoints on PipeWire
# 0.3.65, audiosessiond vs WirePlumber 0.5.8 role loopbacks on PipeWire 1.4.2, the same vs
# WirePlumber 0.5.12 on PipeWire 1.6.9, and PulseAudio 16 role-cork/role-ducking, on private
# daemons, measured by one C observer.
# Writes the side-by-side sections of BENCHMARKS.md and docs/bench/reaction-cdf.png.
#
#   scripts/bench.sh            the full run (what BENCHMARKS.md shows; ~13 min of measurement here)
#   BENCH_PROFILE=quick scripts/bench.sh    a smoke run (~1 min of measurement)
#   BENCH_SOURCE=worktree ...   measure the working tree instead of the committed HEAD
#   BENCH_ONLY=audiosessiond,audiosessiond-1.4 BENCH_STREAMS=100 scripts/bench.sh
#                               only those systems' reactions at those scales, printed, no report
#                               (systems: audiosessiond, audiosessiond-1.4, audiosessiond-1.6,
#                               audiosessiond-pa, wireplumber, wireplumber-0.5, wireplumber-0.5.12,
#                               pulseaudio)
#   BENCH_ONLY=audiosessiond,audiosessiond-pa BENCH_STREAMS=quiet scripts/bench.sh
#                               only their first reactions after a quiet spell, printed
#
# It installs nothing system-wide. Into .build-bench/ (ignored by git) it puts:
#   - (in .build-pulseaudio/, by scripts/fetch-pulseaudio.sh) the Debian package `pulseaudio`
#     and the libraries it needs beyond this machine's, fetched with `apt-get download` and
#     unpacked with `dpkg-deb -x` (never installed: installing pulseaudio would make libpulse
#     clients autospawn it);
#   - a Python venv with matplotlib from PyPI, for the plot (the report is written without
#     the plot if that fails);
#   - PipeWire 1.4.2 and WirePlumber 0.5.8 from bookworm-backports, in .build-pipewire-1.4/
#     (scripts/fetch-pipewire-backport.sh: unpacked, never installed);
#   - PipeWire 1.6.9 and WirePlumber 0.5.12 from trixie-backports in a Debian trixie root in
#     .build-pipewire-1.6/ (scripts/fetch-pipewire-1.6.sh; needs root or sudo, else those rows
#     are left out), and copies of audiosessiond and the observer that run on its libraries;
#   - a release build of audiosessiond, Swift runtime linked statically as `make install` does
#     (from `git archive HEAD` unless BENCH_SOURCE=worktree);
#   - the observers and stream farms, built with cc and pkg-config.
# Needs the Debian packages of scripts/install-deps.sh plus wireplumber and python3-venv.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.build-bench"
PROFILE="${BENCH_PROFILE:-full}"
SOURCE="${BENCH_SOURCE:-head}"
STARTED=$(date +%s)
FROM_SCRATCH=""
[ -d "$WORK/swift/release" ] || FROM_SCRATCH="--from-scratch"
mkdir -p "$WORK"
say() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

for tool in pipewire wireplumber pw-cli dbus-daemon cc pkg-config python3 swift apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (see scripts/install-deps.sh)" >&2; exit 1; }
done
pkg-config --exists libpipewire-0.3 libpulse || { echo "bench: libpipewire-0.3-dev and libpulse-dev are needed" >&2; exit 1; }

# --- PulseAudio 16 in a private prefix (scripts/fetch-pulseaudio.sh: unpacked, never installed)
"$ROOT/scripts/fetch-pulseaudio.sh"
PA_PREFIX="$ROOT/.build-pulseaudio/prefix"
PA_MODULES="$(ls -d "$PA_PREFIX"/usr/lib/pulse-*/modules | head -1)"

# --- matplotlib for the plot (fetched from PyPI in the background, while Swift builds) -----
PYTHON=python3
VENV_PID=""
if [ ! -x "$WORK/venv/bin/python" ] || ! "$WORK/venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
  say "creating a venv with matplotlib (PyPI) for the plot, in the background"
  ( python3 -m venv "$WORK/venv" >/dev/null 2>&1 && "$WORK/venv/bin/pip" install -q matplotlib >/dev/null 2>&1 ) &
  VENV_PID=$!
fi

# --- audiosessiond, release ----------------------------------------------------------------
COMMIT="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
if [ "$SOURCE" = head ] && [ "$COMMIT" != unknown ]; then
  SRC="$WORK/src"
  if [ "$(cat "$SRC/.bench-commit" 2>/dev/null)" != "$COMMIT" ]; then
    say "exporting HEAD ($COMMIT) to $SRC"
    rm -rf "$WORK/src-new" && mkdir -p "$WORK/src-new" "$SRC"
    git -C "$ROOT" archive HEAD | tar -x -C "$WORK/src-new"
    # copy only what differs, so unchanged files keep their times and the build stays incremental
    (cd "$WORK/src-new" && find . -type f) | while IFS= read -r f; do
      cmp -s "$WORK/src-new/$f" "$SRC/$f" || { mkdir -p "$SRC/$(dirname "$f")"; cp "$WORK/src-new/$f" "$SRC/$f"; }
    done
    (cd "$SRC" && find . -type f ! -name .bench-commit) | while IFS= read -r f; do
      [ -e "$WORK/src-new/$f" ] || rm -f "$SRC/$f"
    done
    rm -rf "$WORK/src-new"
    echo "$COMMIT" > "$SRC/.bench-commit"
  fi
else
  SRC="$ROOT"
  COMMIT="$COMMIT (working tree)"
fi
say "building audiosessiond (release)"
# Statically linked Swift runtime, as `make install` builds it for a desktop.
(cd "$SRC" && swift build -c release --static-swift-stdlib --product audiosessiond --scratch-path "$WORK/swift" 2>&1 | tail -1)
DAEMON="$WORK/swift/release/audiosessiond"
[ -x "$DAEMON" ] || { echo "bench: the release build of audiosessiond failed" >&2; exit 1; }

"$ROOT/scripts/fetch-pipewire-backport.sh"
BACKPORT="$ROOT/.build-pipewire-1.4/prefix"
# PipeWire 1.6.9 and WirePlumber 0.5.12 in a Debian trixie root (needs root or sudo): without
# it, the 1.6 rows are left out and the report says so.
ROOT_1_6="" BIN_1_6="" VERSIONS_1_6=""
if "$ROOT/scripts/fetch-pipewire-1.6.sh"; then
  ROOT_1_6="$ROOT/.build-pipewire-1.6/root"
  BIN_1_6="$ROOT/.build-pipewire-1.6/bin"
  VERSIONS_1_6="$(for p in pipewire wireplumber; do
    dpkg-query --admindir="$ROOT_1_6/var/lib/dpkg" -W -f "$p \${Version}\n" "$p"; done | paste -sd, | sed 's/,/, /')"
else
  say "no PipeWire 1.6 root: the 1.6.9 rows are left out"
fi

if [ -n "$VENV_PID" ]; then wait "$VENV_PID" || true; fi
if "$WORK/venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
  PYTHON="$WORK/venv/bin/python"
else
  say "no matplotlib: the report will have no plot"
fi

# --- observers and stream farms ------------------------------------------------------------
say "building the observers"
mkdir -p "$WORK/bin"
cc -O2 -Wall -Wextra -o "$WORK/bin/pw-reaction" "$ROOT/Benchmarks/Reaction/observer/pw-reaction.c" \
  $(pkg-config --cflags --libs libpipewire-0.3) -lm
cc -O2 -Wall -Wextra -o "$WORK/bin/pa-reaction" "$ROOT/Benchmarks/Reaction/observer/pa-reaction.c" \
  $(pkg-config --cflags --libs libpulse) -lm
# On 1.6.9, audiosessiond (its Swift runtime linked in) and the observer run on the root's
# libpipewire: copies whose interpreter is the root's loader and whose DT_RPATH (searched for
# their libraries' dependencies too) names the root's library directories.
on_root() {
  local source="$1" copy="$2" lib="$ROOT_1_6/usr/lib/x86_64-linux-gnu"
  cp -f "$source" "$copy"
  /usr/bin/patchelf --set-interpreter "$ROOT_1_6/usr/lib64/ld-linux-x86-64.so.2" --force-rpath \
    --set-rpath "$lib:$ROOT_1_6/lib/x86_64-linux-gnu:$lib/pipewire-0.3:$lib/pulseaudio" "$copy"
}
if [ -n "$ROOT_1_6" ]; then
  on_root "$DAEMON" "$WORK/bin/audiosessiond-1.6"
  on_root "$WORK/bin/pw-reaction" "$WORK/bin/pw-reaction-1.6"
fi

cat > "$WORK/binaries.json" <<EOF
{
  "audiosessiond": "$DAEMON",
  "rules": "$SRC/policy-rules",
  "pw-reaction": "$WORK/bin/pw-reaction",
  "pa-reaction": "$WORK/bin/pa-reaction",
  "pulseaudio_prefix": "$PA_PREFIX",
  "pulseaudio_modules": "$PA_MODULES",
  "pipewire_backport": "$BACKPORT",
  "pipewire_1_6_root": "$ROOT_1_6",
  "pipewire_1_6_bin": "$BIN_1_6",
  "pipewire_1_6_versions": "$VERSIONS_1_6",
  "audiosessiond-1.6": "$WORK/bin/audiosessiond-1.6",
  "pw-reaction-1.6": "$WORK/bin/pw-reaction-1.6",
  "commit": "$COMMIT"
}
EOF

# --- measure, then report -----------------------------------------------------------------
SETUP_SECONDS=$(( $(date +%s) - STARTED ))
OUT="$WORK/results-$(date -u +%Y%m%dT%H%M%S)"
if [ -n "${BENCH_ONLY:-}" ]; then
  say "measuring only $BENCH_ONLY${BENCH_STREAMS:+ at $BENCH_STREAMS streams} (profile $PROFILE) into $OUT; no report"
  exec "$PYTHON" "$ROOT/Benchmarks/Reaction/harness/run.py" --binaries "$WORK/binaries.json" --out "$OUT" \
    --profile "$PROFILE" --only "$BENCH_ONLY" ${BENCH_STREAMS:+--streams "$BENCH_STREAMS"}
fi
say "measuring (profile $PROFILE) into $OUT"
"$PYTHON" "$ROOT/Benchmarks/Reaction/harness/run.py" --binaries "$WORK/binaries.json" --out "$OUT" --profile "$PROFILE"
"$PYTHON" "$ROOT/Benchmarks/Reaction/harness/report.py" --results "$OUT" \
  --markdown "$ROOT/BENCHMARKS.md" --plots "$ROOT/docs/bench" --command "make bench" \
  --setup-seconds "$SETUP_SECONDS" $FROM_SCRATCH
say "BENCHMARKS.md updated from $OUT ($(( ($(date +%s) - STARTED) / 60 )) min $(( ($(date +%s) - STARTED) % 60 )) s in all)"
