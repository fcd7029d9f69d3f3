#!/bin/bash
# The app side of `make soak` (scripts/soak.sh), run by `audiosessionctl simulate` on its
# private PipeWire and bus: streams of every kind start and stop, D-Bus clients come, misbehave
# and vanish, the rules are edited; the daemon's RSS and descriptors are sampled. At the end
# it stops the churn, waits for the desktop to be quiet and checks that nothing is stuck.
#
#   soak-app.sh MINUTES OUTPUT_DIR
set -u
minutes=$1
out=$2
sandbox=$(dirname "$XDG_RUNTIME_DIR")
tone=$sandbox/other-app.wav   # written by the simulator: 30 min, 8 kHz mono
state=$sandbox/state
rules=$sandbox/config/audiosession/policy-rules.d
mkdir -p "$rules"
exec >>"$out/app.log" 2>&1   # the timeline shows only what the daemon and the sessions do
python=/usr/bin/python3
repository=$(cd "$(dirname "$0")/.." && pwd)
mpris=$(ls /usr/lib/mpv-mpris/mpris.so /etc/mpv/scripts/mpris.so 2>/dev/null | head -1)

started=$(date +%s)
# A bound, should the desktop never fall quiet.
finish=$((started + minutes * 60 + 300))
declare -A counts
count() { counts[$1]=$((${counts[$1]:-0} + 1)); }

daemon_pid() {
  for pid in $(pgrep -x audiosessiond); do
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--state-dir $state" && { echo "$pid"; return; }
  done
}
daemon=$(daemon_pid)
echo "soak-app: daemon $daemon, sandbox $sandbox"
echo "seconds,rss_kib,fds,forced_quantum" >"$out/samples.csv"
sample() {
  local rss fds quantum
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$daemon/status" 2>/dev/null)
  fds=$(ls "/proc/$daemon/fd" 2>/dev/null | wc -l)
  quantum=$(timeout 2 pw-metadata -n settings 0 clock.force-quantum 2>/dev/null | grep -o "value:'[0-9]*'" | tr -dc 0-9)
  echo "$(($(date +%s) - started)),${rss:-0},$fds,${quantum:-0}" >>"$out/samples.csv"
}

# What must still be right at the end, living through everything (restarted only when a
# PipeWire restart ends them): a game's sound (ambient: held by every call, resumed after it,
# never paused by an unplug) and an MPRIS music player (paused by calls and by unplugs: at the
# end its user presses play, and it must stay playing).
anchor=""
player=""
keep_alive() {
  if [ -z "$anchor" ] || ! kill -0 "$anchor" 2>/dev/null; then
    pw-cat -p --media-role Game -P '{ node.name = soak-anchor }' "$tone" >/dev/null 2>&1 &
    anchor=$!
    count anchor-starts
  fi
  local status
  status=$(playerctl --player=mpv status 2>/dev/null)
  if [ -z "$player" ] || ! kill -0 "$player" 2>/dev/null || [ "$status" = "Stopped" ]; then
    [ -n "$player" ] && kill "$player" 2>/dev/null
    PULSE_PROP="media.role=music" mpv --no-config --script="$mpris" --no-video --ao=pulse --loop-file=inf \
      --idle=yes --no-terminal --audio-client-name=soak-player "$tone" >/dev/null 2>&1 &
    player=$!
    count player-starts
  fi
}

short_stream() {
  local seconds=$((1 + RANDOM % 12)) kind=$((RANDOM % 10)) command
  case $kind in
    0) command=(pw-cat -p --media-role Music "$tone") ;;
    1) command=(pw-cat -p --media-role Movie "$tone") ;;
    2) command=(pw-cat -p --media-role Game "$tone") ;;
    3) seconds=2; command=(pw-cat -p --media-role Notification "$tone") ;;
    4) command=(pw-cat -p "$tone") ;;   # no role at all
    5) command=(env PULSE_PROP="media.role=music" paplay "$tone") ;;
    6) seconds=2; command=(env PULSE_PROP="media.role=event" paplay "$tone") ;;
    7) command=(parec --raw) ;;   # a recorder
    # Low latency: the quantum (and the rate its file asks for) forced while it plays.
    8) command=(pw-cat -p --media-role Game --latency 128 "$tone") ;;
    9) command=(env "PIPEWIRE_PROPS={ node.rate = 1/96000 }" pw-cat -p --media-role Production --latency 256 "$tone") ;;
  esac
  [ "$kind" -ge 8 ] && count low-latency-streams
  # timeout is the job itself: the clean-up's TERM reaches the player through it.
  timeout "$seconds" "${command[@]}" >/dev/null 2>&1 &
  count streams
}

M="org.audiosession.Manager1 /org/audiosession/Manager1 org.audiosession.Manager1"
bus_client() {
  case $((RANDOM % 5)) in
    # A VoIP app killed mid-call: its session vanishes with its connection.
    0) timeout -s KILL $((2 + RANDOM % 5)) "$python" "$repository/contrib/examples/python/voip_call.py" --mic-gain 0.5 >/dev/null 2>&1 & ;;
    # A session held by audiosessionctl run for a while.
    1) timeout $((2 + RANDOM % 6)) "${AUDIOSESSIONCTL:-audiosessionctl}" run --category playback -- pw-cat -p "$tone" >/dev/null 2>&1 & ;;
    # Calls on a session that is gone as soon as busctl exits, and on another's.
    2) (path=$(busctl --user call $M CreateSession s soak-busctl 2>/dev/null | awk '{ print $2 }' | tr -d '"')
        busctl --user call org.audiosession.Manager1 "${path:-/org/audiosession/Session/1}" org.audiosession.Session1 \
          SetActive bu true 0 >/dev/null 2>&1
        busctl --user call org.audiosession.Manager1 /org/audiosession/Session/1 org.audiosession.Session1 \
          SetCategory ssu playback default 0 >/dev/null 2>&1) & ;;
    # A burst of reads.
    3) (for _ in $(seq 30); do busctl --user get-property $M Sessions >/dev/null 2>&1 & done; wait) & ;;
    # Garbage: wrong signatures, unknown members, a huge name.
    4) (busctl --user call $M CreateSession s "$(head -c 4000 /dev/zero | tr '\0' x)" >/dev/null 2>&1
        busctl --user call $M SetSilentMode s yes >/dev/null 2>&1
        busctl --user call $M NoSuchMethod >/dev/null 2>&1) & ;;
  esac
  count bus-clients
}

edit_rules() {
  # Alternate a harmless edit: every reload re-classifies every stream.
  if [ -f "$rules/50-soak.conf" ]; then
    rm -f "$rules/50-soak.conf"
  else
    printf 'audiosession.settings = { duck.level = 0.35 }\n' >"$rules/50-soak.conf"
  fi
  count rules-edits
}

# Whether the desktop is quiet: no simulated call, music or notification plays (and the
# server answers).
quiet() {
  pw-dump 2>/dev/null | "$python" -c '
import json, sys
# pw-dump 0.3.65 prints an array for each object removed while it dumps after its own.
text, decoder, at, objects = sys.stdin.read(), json.JSONDecoder(), 0, []
while text[at:].strip():
    at += len(text[at:]) - len(text[at:].lstrip())
    document, at = decoder.raw_decode(text, at)
    objects += document
nodes = [o for o in objects if o.get("type") == "PipeWire:Interface:Node"]
busy = [n for n in nodes if "(simulated)" in ((n.get("info") or {}).get("props") or {}).get("application.name", "")]
sys.exit(1 if busy else 0)' 2>/dev/null
}

# The churn, until the desktop's events are over: quiet for 30 s in a row (its longest pause
# within a cycle is about 15 s; its script ends with a long wait for these checks).
iteration=0
last_busy=$(date +%s)
while [ $(($(date +%s) - last_busy)) -lt 30 ] && [ "$(date +%s)" -lt "$finish" ]; do
  iteration=$((iteration + 1))
  short_stream
  if [ $((iteration % 5)) -eq 0 ]; then bus_client; fi
  if [ $((iteration % 10)) -eq 0 ]; then keep_alive; sample; fi
  if [ $((iteration % 60)) -eq 0 ]; then edit_rules; fi
  quiet || last_busy=$(date +%s)
  sleep 1
done
churned=$(($(date +%s) - started))

# The end: no more churn; every short-lived client gone.
echo "soak-app: churn over after $iteration iterations"
rm -f "$rules/50-soak.conf"
for pid in $(jobs -p); do
  [ "$pid" = "$anchor" ] || [ "$pid" = "$player" ] || kill "$pid" 2>/dev/null
done
sleep 1
keep_alive
sleep 5
sample

# Nothing stuck.
pw-dump >"$out/final-dump.json" 2>/dev/null
checks=$("$python" - "$out/final-dump.json" <<'EOF'
import json, sys
objects = json.load(open(sys.argv[1]))
nodes = {o["id"]: o for o in objects if o.get("type") == "PipeWire:Interface:Node"}
links = [o for o in objects if o.get("type") == "PipeWire:Interface:Link"]
problems, streams = [], 0
for node in nodes.values():
    info = node.get("info") or {}
    props = info.get("props") or {}
    if props.get("media.class") != "Stream/Output/Audio":
        continue
    streams += 1
    for param in (info.get("params") or {}).get("Props", []):
        volumes = [param.get("volume", 1.0)] + list(param.get("channelVolumes", []))
        if any(abs(v - 1.0) > 1e-6 for v in volumes):
            problems.append(f"stream {node['id']} ({props.get('node.name')}) at {volumes}")
anchor = [n["id"] for n in nodes.values() if ((n.get("info") or {}).get("props") or {}).get("node.name") == "soak-anchor"]
linked = anchor and any((l.get("info") or {}).get("output-node-id") == anchor[0] for l in links)
if not linked:
    problems.append("the long-lived game stream is not playing (held?)")
for meta in objects:
    if meta.get("type") == "PipeWire:Interface:Metadata" and (meta.get("props") or {}).get("metadata.name") == "settings":
        for entry in meta.get("metadata") or []:
            if entry.get("key") in ("clock.force-quantum", "clock.force-rate") and str(entry.get("value")) not in ("0", "None"):
                problems.append(f"{entry['key']} is still {entry.get('value')}")
print(f"checked: {streams} playback streams at their own volume, the long-lived stream {'playing' if linked else 'NOT playing'}, settings metadata")
for problem in problems:
    print(f"STUCK: {problem}")
EOF
)
# The user presses play (an unplug paused it, as it should): nothing may pause it again.
[ "$(playerctl --player=mpv status 2>/dev/null)" = "Paused" ] && playerctl --player=mpv play
sleep 3
status=$(playerctl --player=mpv status 2>/dev/null)
[ "$status" = "Playing" ] || checks="$checks
STUCK: the MPRIS player is ${status:-gone}, not Playing"
for journal in enforcement.json mpris-pauses.json; do
  [ -f "$state/$journal" ] && checks="$checks
STUCK: $journal still owes: $(tr -d '\n' <"$state/$journal" | head -c 300)"
done

# The report.
summary=$("$python" - "$out/samples.csv" <<'EOF'
import csv, sys
rows = [(int(r["seconds"]), int(r["rss_kib"]), int(r["fds"])) for r in csv.DictReader(open(sys.argv[1])) if int(r["rss_kib"]) > 0]
warm = [r for r in rows if r[0] >= 60] or rows
first, last = warm[0], rows[-1]
print(f"rss: {first[1] / 1024:.1f} MiB at {first[0]} s, {last[1] / 1024:.1f} MiB at the end ({last[0]} s), at most {max(r[1] for r in rows) / 1024:.1f} MiB")
print(f"fds: {first[2]} at {first[0]} s, {last[2]} at the end, at most {max(r[2] for r in rows)}")
forced = sum(1 for r in csv.DictReader(open(sys.argv[1])) if int(r["forced_quantum"] or 0) > 0)
print(f"samples: {len(rows)}, {forced} of them with a forced quantum")
EOF
)
{
  echo "duration: $(($(date +%s) - started)) s (churn for $churned s)"
  echo "app events: $(for key in "${!counts[@]}"; do printf '%s %s, ' "$key" "${counts[$key]}"; done | sed 's/, $//')"
  echo "$summary"
  echo "daemon still running: $(kill -0 "$daemon" 2>/dev/null && echo yes || echo NO)"
  echo "$checks"
  if echo "$checks" | grep -q STUCK || ! kill -0 "$daemon" 2>/dev/null; then echo "verdict: SOMETHING STUCK"; else echo "verdict: nothing stuck"; fi
} >"$out/result.txt"
kill "$anchor" "$player" 2>/dev/null
