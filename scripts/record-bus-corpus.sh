#!/usr/bin/env bash
# Records the seed corpus of the D-Bus fuzzer (Tests/Fuzz/corpus/bus-calls/): real calls, as
# apps send them. On a simulated desktop (audiosessionctl simulate: private PipeWire, bus and
# daemon), `busctl capture` records the bus while the Python VoIP example and the Swift example
# player run through a call, a headset and a notification, and every busctl example of
# docs/dbus-api.md is called. Each distinct message becomes one seed file, named by its hash.
#
#   scripts/record-bus-corpus.sh     # then commit what changed in Tests/Fuzz/corpus/bus-calls/
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product audiosessionctl >/dev/null
swift build --product audiosessiond >/dev/null
swift build --product audiosession-example-player >/dev/null
bin="$(swift build --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work/tone.wav" <<'EOF'
import math, struct, sys, wave
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
    w.writeframes(b"".join(struct.pack("<hh", v, v) for v in
        (int(8000 * math.sin(2 * math.pi * 440 * i / 48000)) for i in range(48000 * 30))))
EOF

# What the app does on the simulated desktop: record the bus, run the examples, call the API.
cat >"$work/app.sh" <<EOF
#!/bin/sh
busctl --user capture >"$work/calls.pcap" 2>/dev/null &
capture=\$!
# busctl needs a moment to become a monitor; what it misses is only fewer seeds.
sleep 1
python3 contrib/examples/python/voip_call.py --mic-gain 0.5 --mic-source "Headset Microphone" &
voip=\$!
"$bin/audiosession-example-player" "$work/tone.wav" &
player=\$!
M="org.audiosession.Manager1 /org/audiosession/Manager1 org.audiosession.Manager1"
sleep 1
path=\$(busctl --user get-property \$M Sessions | grep -o '"/org/audiosession/Session/[0-9]*"' | tail -n1 | tr -d '"')
S="org.audiosession.Manager1 \$path org.audiosession.Session1"
grep -oE '^busctl --user (--json=[a-z]+ )?(call|get-property) \\\$[MS] .*' docs/dbus-api.md | sed 's/ *#.*//' |
  grep -v -e RequestRecordPermission -e SetSilentMode |
  while read -r line; do eval "\$line" >/dev/null 2>&1 || true; done
busctl --user call org.mpris.MediaPlayer2.audiosession /org/mpris/MediaPlayer2 org.mpris.MediaPlayer2.Player PlayPause >/dev/null 2>&1 || true
busctl --user call org.audiosession.Manager1 /org/audiosession/Session/1 org.freedesktop.DBus.Properties GetAll s org.audiosession.Session1 >/dev/null 2>&1 || true
sleep 6
kill \$voip \$player 2>/dev/null
wait \$voip \$player 2>/dev/null
kill -INT \$capture
wait \$capture
EOF
cat >"$work/script.txt" <<'EOF'
wait 3
call start
headphones in
notification
headphones out
call end
silent on
silent off
wait 6
EOF
"$bin/audiosessionctl" simulate --script "$work/script.txt" -- sh "$work/app.sh" >"$work/simulate.log" 2>&1 ||
  { cat "$work/simulate.log"; exit 1; }

corpus=Tests/Fuzz/corpus/bus-calls
mkdir -p "$corpus"
python3 - "$work/calls.pcap" "$corpus" <<'EOF'
# busctl capture writes pcapng: blocks of (type, length, body, length); an Enhanced Packet Block
# (type 6) holds one D-Bus message as it travelled, after 20 bytes of interface and times.
import hashlib, os, struct, sys
data = open(sys.argv[1], "rb").read()
offset, new, total = 0, 0, 0
while offset + 12 <= len(data):
    kind, length = struct.unpack("<II", data[offset:offset + 8])
    if length < 12:
        break
    if kind == 6:
        captured = struct.unpack("<I", data[offset + 20:offset + 24])[0]
        message = data[offset + 28:offset + 28 + captured]
        total += 1
        name = os.path.join(sys.argv[2], hashlib.sha1(message).hexdigest()[:16])
        if not os.path.exists(name):
            open(name, "wb").write(message)
            new += 1
    offset += length
print(f"record-bus-corpus: {total} messages recorded, {new} new seeds in {sys.argv[2]}")
EOF
