#!/bin/sh
# A tour of the audiosession D-Bus API from a shell, with busctl and audiosessionctl.
#
# busctl closes its connection after every command, and a session lives only as long as the
# connection that created it, so the session itself is held by `audiosessionctl run`; busctl
# reads its properties, watches its signals and drives the manager.
#
#   contrib/examples/shell/session-tour.sh some-song.wav
set -eu

M="org.audiosession.Manager1 /org/audiosession/Manager1 org.audiosession.Manager1"
song=${1:?usage: session-tour.sh FILE.wav}

busctl --user get-property $M SilentMode >/dev/null 2>&1 || {
    echo "session-tour: audiosessiond is not running on this session bus" >&2
    exit 1
}

echo "== the system route"
busctl --user get-property $M CurrentRoute

echo "== play the song in a playback session (held by audiosessionctl run)"
audiosessionctl run --category playback -- pw-cat -p "$song" &
runner=$!
trap 'kill $runner 2>/dev/null || true; kill $watcher 2>/dev/null || true' EXIT INT TERM

# Wait for the session to show up, then find its object.
path=""
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    path=$(busctl --user get-property $M Sessions | grep -o '"/org/audiosession/Session/[0-9]*"' | tail -n1 | tr -d '"')
    [ -n "$path" ] && break
    sleep 0.1
done
[ -n "$path" ] || { echo "session-tour: no session appeared" >&2; exit 1; }
S="org.audiosession.Manager1 $path org.audiosession.Session1"
echo "session: $path"
busctl --user get-property $S Category Active CurrentRoute SampleRate IOBufferDuration

echo "== its signals (Interruption, RouteChange, ...), while silent mode goes on and off"
busctl --user monitor --match "type='signal',interface='org.audiosession.Session1',path='$path'" &
watcher=$!
busctl --user call $M SetSilentMode b true
busctl --user call $M SetSilentMode b false

echo "== every session, as JSON"
busctl --user --json=short call $M ListSessions

echo "== a session method from another connection is refused"
busctl --user call $S SetActive bu false 0 || true

echo "== record permission"
busctl --user call $M SetRecordPermission ss session-tour-recorder denied
busctl --user call $M GetRecordPermission s session-tour-recorder
busctl --user call $M SetRecordPermission ss session-tour-recorder undetermined

echo "== audiosessionctl status"
audiosessionctl status
