#!/usr/bin/env bash
# Installs the .deb in clean Debian 12 and 13 roots (debootstrap --variant=minbase: no Swift
# toolchain, nothing of the project) and checks what a desktop user would:
#
#   1. `apt-get install ./audiosession_*.deb` resolves its Depends from the root's own archive,
#      every library the binaries link is there, --version prints the package's version;
#   2. `man audiosessiond` (and the other two pages), the bash, zsh and fish completions;
#   3. `systemd-analyze --user verify` of the installed unit, and its enablement for new logins;
#   4. the unit's own ExecStart line (read from the installed unit) on a private PipeWire with
#      WirePlumber from the root's archive (0.4 on bookworm, 0.5 on trixie) and on a private
#      PulseAudio, each with a private session bus: it runs, `audiosessionctl status` answers
#      and names the server, and SIGTERM (the unit's KillSignal) ends it cleanly. A chroot has
#      no systemd user manager (systemd is not PID 1 there), so `systemctl --user start` cannot
#      be tried: the ExecStart line is what it would run;
#   5. `apt-get purge`: no file the package installed remains, nor its enablement links and
#      state, and both servers' audio state (sinks, volumes, mutes, defaults, PulseAudio's
#      modules, which the daemon unloads while it runs) is as before the daemon started;
#   6. given the tarball too (`make dist`): its `make install` into /usr/local, its unit
#      verified and its ExecStart run on the PipeWire (the daemon finds its rules in
#      /usr/local/share), then `make uninstall` leaves /usr/local as it was.
#
#   sudo scripts/package-test.sh .build/audiosession_<version>_<arch>.deb [.build/audiosession-<version>-<arch>.tar.gz]
#                                                   (make package-test gives both)
#   PACKAGE_TEST_SUITES=trixie sudo scripts/...    only one root
#   PACKAGE_TEST_FRESH=1 sudo scripts/...          debootstrap the roots again
#
# The roots are made once in .build-roots/<suite>/pristine (ignored by git), from the Debian
# mirror this machine's apt uses; each run starts from a copy, with downloaded packages kept
# in .build-roots/<suite>/archives. Everything mounted is unmounted and every process started
# is stopped when the script ends, even when it fails.
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
DEB="$(readlink -f "${1:?usage: package-test.sh AUDIOSESSION.deb [AUDIOSESSION.tar.gz]}")"
TARBALL="${2:+$(readlink -f "$2")}"
SUITES="${PACKAGE_TEST_SUITES:-bookworm trixie}"
WORK="$ROOT_DIR/.build-roots"
say() { echo "package-test: $*"; }
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || { echo "package-test: run as root (debootstrap, chroot and mounts need it)" >&2; exit 1; }
[ -f "$DEB" ] || fail "no $DEB (make deb)"
. "$ROOT_DIR/scripts/install-missing.sh"
install_missing package-test debootstrap dpkg-dev
. "$ROOT_DIR/scripts/apt-mirror.sh"
MIRROR="$(chosen_mirror package-test PACKAGE_TEST_MIRROR)"
VERSION="$(dpkg-deb -f "$DEB" Version)"

# What the checks run inside the root, installed from the root's own archive after the .deb
# (so that the .deb's Depends alone are proved to be enough for its binaries).
TOOLS=(man-db bash zsh fish systemd dbus-daemon dbus-session-bus-common pipewire pipewire-bin wireplumber pulseaudio pulseaudio-utils jq make)

. "$ROOT_DIR/scripts/root-mounts.sh"
PIDS=()
ROOTFS=""
stop_pid() {  # stop_pid PID: SIGTERM, then SIGKILL after 5 s
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[i]}"; done
  PIDS=()
  unmount_all
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # through the EXIT trap: stop, unmount
# Polls CONDITION (a command) every 0.1 s for at most SECONDS; fails with WHAT.
wait_until() {  # wait_until SECONDS WHAT COMMAND...
  local seconds="$1" what="$2" deadline
  shift 2
  deadline=$(($(date +%s) + seconds))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "$what (not within ${seconds} s)"
    sleep 0.1
  done
}

in_root() {
  chroot "$ROOTFS" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
# As the desktop user, in the session environment RUNTIME (its XDG_RUNTIME_DIR and session bus).
RUNTIME=""
user_command() {  # sets USER_COMMAND to the chroot command line that runs "$@" as the user
  USER_COMMAND=(chroot --userspec=1000:1000 "$ROOTFS" /usr/bin/env -i HOME=/home/tester USER=tester LOGNAME=tester
    LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin XDG_RUNTIME_DIR="$RUNTIME" DBUS_SESSION_BUS_ADDRESS="unix:path=$RUNTIME/bus"
    PIPEWIRE_LOG_SYSTEMD=false DISABLE_RTKIT=1 "$@")
}
as_user() { user_command "$@"; "${USER_COMMAND[@]}"; }
# Starts COMMAND as the user in the background, its output in LOG (in the root). chroot and env
# exec it, so its PID ($!, kept in PIDS) is the program's own.
start_user() {  # start_user LOG COMMAND...
  local log="$1"
  shift
  user_command "$@"
  "${USER_COMMAND[@]}" >"$ROOTFS$log" 2>&1 &
  PIDS+=("$!")
}

make_root() {  # make_root SUITE: .build-roots/SUITE/pristine, once
  local suite="$1" pristine="$WORK/$1/pristine"
  if [ -n "${PACKAGE_TEST_FRESH:-}" ] || [ ! -f "$pristine/.audiosession-package-root" ]; then
    say "$suite: debootstrap --variant=minbase from $MIRROR (log: $WORK/$suite/debootstrap.log)"
    rm -rf --one-file-system "$pristine"
    mkdir -p "$WORK/$suite"
    local t0=$(date +%s)
    debootstrap --variant=minbase "$suite" "$pristine" "$MIRROR" >"$WORK/$suite/debootstrap.log" 2>&1 || {
      tail -n 20 "$WORK/$suite/debootstrap.log" >&2; fail "debootstrap $suite"; }
    touch "$pristine/.audiosession-package-root"
    say "$suite: root made in $(($(date +%s) - t0)) s"
  fi
}

test_suite() {
  local suite="$1" start files
  start=$(date +%s)
  make_root "$suite"
  ROOTFS="$WORK/$suite/root"
  # Never delete through a mount that points back into this machine.
  if findmnt -rn -o TARGET | grep -q "^$ROOTFS"; then fail "$ROOTFS still has mounts"; fi
  rm -rf --one-file-system "$ROOTFS"
  cp -a "$WORK/$suite/pristine" "$ROOTFS"
  mount_system "$ROOTFS"
  mkdir -p "$WORK/$suite/archives/partial"
  bind "$WORK/$suite/archives" "$ROOTFS/var/cache/apt/archives"
  # Keep the downloaded packages for the next run (a minbase root would delete them).
  rm -f "$ROOTFS/etc/apt/apt.conf.d/docker-clean"

  say "$suite: apt-get install ./$(basename "$DEB")"
  cp "$DEB" "$ROOTFS/tmp/"
  in_root apt-get update -qq
  in_root apt-get install -y -q "/tmp/$(basename "$DEB")" >"$WORK/$suite/install.log" 2>&1 || {
    tail -n 30 "$WORK/$suite/install.log" >&2; fail "$suite: apt-get install of the .deb"; }
  in_root dpkg-query -W -f='  ${Package} ${Version}: Depends: ${Depends}\n' audiosession
  if in_root sh -c 'ldd /usr/bin/audiosessiond /usr/bin/audiosessionctl' | grep -E 'not found|libswift'; then
    fail "$suite: a library the binaries need is missing or is the Swift toolchain's"
  fi
  in_root sh -c 'command -v swift' >/dev/null && fail "$suite: the root has a Swift toolchain"
  [ "$(in_root audiosessionctl --version)" = "$VERSION" ] || fail "$suite: audiosessionctl --version is not $VERSION"
  [ "$(in_root audiosessiond --version)" = "$VERSION" ] || fail "$suite: audiosessiond --version is not $VERSION"
  say "$suite: both binaries run and print $VERSION, with only what the .deb pulls in (Depends, Recommends)"
  # Enabled for every user's next login (deb-systemd-helper --user enable in postinst).
  [ -L "$ROOTFS/etc/systemd/user/default.target.wants/audiosessiond.service" ] \
    || fail "$suite: the unit is not enabled in /etc/systemd/user/default.target.wants"
  # Removed (not purged), the unit is masked so that nothing can start a half-removed package;
  # installed again, it is unmasked and enabled again (the maintainer scripts, as debhelper's).
  in_root apt-get remove -y -q audiosession >"$WORK/$suite/remove.log" 2>&1 || fail "$suite: apt-get remove"
  [ "$(readlink "$ROOTFS/etc/systemd/user/audiosessiond.service")" = /dev/null ] \
    || fail "$suite: removed, the unit is not masked"
  in_root apt-get install -y -q "/tmp/$(basename "$DEB")" >>"$WORK/$suite/install.log" 2>&1 \
    || fail "$suite: apt-get install of the .deb after its removal"
  [ ! -e "$ROOTFS/etc/systemd/user/audiosessiond.service" ] && [ ! -L "$ROOTFS/etc/systemd/user/audiosessiond.service" ] \
    || fail "$suite: installed again, the unit is still masked"
  [ -L "$ROOTFS/etc/systemd/user/default.target.wants/audiosessiond.service" ] \
    || fail "$suite: installed again, the unit is not enabled"
  say "$suite: removed, the unit is masked; installed again, it is unmasked and enabled"
  files="$(in_root dpkg-query -L audiosession)"

  say "$suite: installing what the checks run: ${TOOLS[*]}"
  in_root apt-get install -y -q --no-install-recommends "${TOOLS[@]}" >"$WORK/$suite/tools.log" 2>&1 || {
    tail -n 30 "$WORK/$suite/tools.log" >&2; fail "$suite: installing the checks' tools"; }
  say "$suite: $(in_root dpkg-query -W -f='${Package} ${Version}' pipewire), $(in_root dpkg-query -W -f='${Package} ${Version}' wireplumber), $(in_root dpkg-query -W -f='${Package} ${Version}' pulseaudio)"

  # Man pages, through man-db as a user would.
  local page text
  for page in "8 audiosessiond --linking" "1 audiosessionctl status" "5 audiosession-rules audiosession.settings"; do
    set -- $page
    # Read whole, then searched: grep -q would stop reading, and pipefail then fail on man's SIGPIPE.
    text="$(in_root env MANPAGER=cat MANWIDTH=100 man "$1" "$2" 2>"$ROOTFS/tmp/man.err")" \
      || { cat "$ROOTFS/tmp/man.err" >&2; fail "$suite: man $1 $2"; }
    grep -q -- "$3" <<<"$text" || fail "$suite: man $1 $2 lacks $3"
  done
  say "$suite: man audiosessiond, man audiosessionctl, man 5 audiosession-rules"

  # Completions, each loaded the way its shell loads installed ones.
  in_root bash -c '. /usr/share/bash-completion/completions/audiosessionctl && complete -p audiosessionctl' \
    | grep -q audiosessionctl || fail "$suite: bash completion"
  in_root zsh -fc 'fpath=(/usr/share/zsh/vendor-completions $fpath); autoload -Uz compinit; compinit -u -d /tmp/zcd
      (( ${+_comps[audiosessionctl]} ))' || fail "$suite: zsh completion"
  in_root fish -c 'complete --do-complete "audiosessionctl sta"' | grep -q '^status' || fail "$suite: fish completion"
  say "$suite: bash, zsh and fish complete audiosessionctl"

  # The desktop user, and the unit checked as systemd --user would read it.
  in_root useradd -m -u 1000 -s /bin/bash tester
  local unit=/usr/lib/systemd/user/audiosessiond.service
  RUNTIME=/run/user/1000
  install -d -m 700 -o 1000 -g 1000 "$ROOTFS$RUNTIME"
  as_user systemd-analyze --user verify "$unit" >"$ROOTFS/tmp/verify.log" 2>&1 || {
    cat "$ROOTFS/tmp/verify.log" >&2; fail "$suite: systemd-analyze --user verify $unit"; }
  [ -s "$ROOTFS/tmp/verify.log" ] && sed 's/^/  verify: /' "$ROOTFS/tmp/verify.log"
  [ "$(in_root systemctl --global is-enabled audiosessiond.service)" = enabled ] || fail "$suite: not enabled globally"
  say "$suite: systemd-analyze --user verify passes; systemctl --global is-enabled: enabled"
  [ -d "$ROOTFS/run/systemd/system" ] || say "$suite: no systemd user manager in a chroot: running the unit's ExecStart line instead of systemctl --user start"
  local exec_start
  exec_start="$(sed -n 's/^ExecStart=//p' "$ROOTFS$unit")"
  [ -n "$exec_start" ] || fail "$suite: no ExecStart in $unit"

  # --- A private PipeWire desktop: session bus, PipeWire with two virtual sinks, WirePlumber.
  mkdir -p "$ROOTFS/home/tester/.config/pipewire/pipewire.conf.d" "$ROOTFS/home/tester/.config/pulse"
  cat >"$ROOTFS/home/tester/.config/pipewire/pipewire.conf.d/50-package-test.conf" <<'CONF'
context.objects = [
  { factory = adapter args = { factory.name = support.null-audio-sink node.name = speaker node.description = Speaker
      media.class = Audio/Sink audio.position = [ FL FR ] object.linger = true monitor.channel-volumes = true } }
  { factory = adapter args = { factory.name = support.null-audio-sink node.name = headphones node.description = Headphones
      media.class = Audio/Sink audio.position = [ FL FR ] object.linger = true monitor.channel-volumes = true } }
]
CONF
  # No libpulse client may start a PulseAudio of its own.
  echo "autospawn = no" >"$ROOTFS/home/tester/.config/pulse/client.conf"
  chown -R 1000:1000 "$ROOTFS/home/tester/.config"
  start_user /tmp/dbus-pw.log dbus-daemon --session --address="unix:path=$RUNTIME/bus" --nofork --nopidfile
  wait_until 10 "$suite: the session bus" test -S "$ROOTFS$RUNTIME/bus"
  start_user /tmp/pipewire.log pipewire
  wait_until 15 "$suite: PipeWire's socket" as_user pw-cli info 0
  start_user /tmp/wireplumber.log wireplumber
  wait_until 20 "$suite: WirePlumber's default sink" as_user wpctl inspect @DEFAULT_AUDIO_SINK@
  as_user wpctl set-volume @DEFAULT_AUDIO_SINK@ 0.6 2>/dev/null
  pw_state >"$WORK/$suite/pipewire-before.json"

  run_daemon "$suite" "$exec_start" PipeWire

  # --- A private pure-PulseAudio desktop, in a session of its own (its runtime dir and bus),
  # with the role modules the daemon unloads while it runs.
  local pw_runtime="$RUNTIME"
  RUNTIME=/run/user/1000-pulse
  install -d -m 700 -o 1000 -g 1000 "$ROOTFS$RUNTIME"
  cat >"$ROOTFS/home/tester/pulse-test.pa" <<'PA'
load-module module-null-sink sink_name=speaker sink_properties=device.description=Speaker
load-module module-null-sink sink_name=headphones sink_properties=device.description=Headphones
load-module module-stream-restore
load-module module-role-cork
load-module module-native-protocol-unix
set-default-sink speaker
set-sink-volume speaker 39321
PA
  chown 1000:1000 "$ROOTFS/home/tester/pulse-test.pa"
  start_user /tmp/dbus-pa.log dbus-daemon --session --address="unix:path=$RUNTIME/bus" --nofork --nopidfile
  wait_until 10 "$suite: the second session bus" test -S "$ROOTFS$RUNTIME/bus"
  start_user /tmp/pulseaudio.log pulseaudio -n -F /home/tester/pulse-test.pa --daemonize=no --exit-idle-time=-1 \
    --use-pid-file=no --log-target=stderr
  wait_until 15 "$suite: PulseAudio answering" as_user pactl info
  pulse_state >"$WORK/$suite/pulseaudio-before.txt"

  run_daemon "$suite" "$exec_start" PulseAudio

  # --- Purge: nothing of the package remains, and the audio is as it was.
  say "$suite: apt-get purge audiosession"
  in_root apt-get purge -y -q audiosession >"$WORK/$suite/purge.log" 2>&1 || {
    tail -n 30 "$WORK/$suite/purge.log" >&2; fail "$suite: apt-get purge"; }
  local left=()
  while read -r f; do
    [ -z "$f" ] && continue
    # Directories other packages share (/usr/share/man/man8, ...) may stay; any file or
    # directory of audiosession's own may not.
    if [ -e "$ROOTFS$f" ] || [ -L "$ROOTFS$f" ]; then
      if [ ! -d "$ROOTFS$f" ] || [[ "$f" == *audiosession* ]]; then left+=("$f"); fi
    fi
  done <<<"$files"
  while read -r f; do left+=("${f#"$ROOTFS"}"); done < <(find "$ROOTFS/etc" "$ROOTFS/var/lib/systemd" "$ROOTFS/usr" \
    -name '*audiosession*' 2>/dev/null)
  ((${#left[@]} == 0)) || fail "$suite: left after purge: ${left[*]}"
  say "$suite: purged: none of its $(wc -l <<<"$files") paths, links or state remain"
  # The daemon's own journal in the user's state directory is the user's, not the package's.
  [ -d "$ROOTFS/home/tester/.local/state/audiosession" ] && say "$suite: (the user's ~/.local/state/audiosession holds: $(ls -A "$ROOTFS/home/tester/.local/state/audiosession" | tr '\n' ' '))"

  pulse_state >"$WORK/$suite/pulseaudio-after.txt"
  diff -u "$WORK/$suite/pulseaudio-before.txt" "$WORK/$suite/pulseaudio-after.txt" \
    || fail "$suite: PulseAudio's state differs after the daemon and the purge"
  RUNTIME="$pw_runtime"
  pw_state >"$WORK/$suite/pipewire-after.json"
  diff -u "$WORK/$suite/pipewire-before.json" "$WORK/$suite/pipewire-after.json" \
    || fail "$suite: PipeWire's state differs after the daemon and the purge"
  say "$suite: PipeWire's and PulseAudio's sinks, volumes, mutes, defaults and modules are as before"

  [ -n "$TARBALL" ] && test_tarball "$suite"
  cleanup
  say "$suite: PASSED in $(($(date +%s) - start)) s"
}

# The tarball, as another distribution's user installs it: make install into /usr/local, the
# unit it installed, its ExecStart on the PipeWire still running, make uninstall.
test_tarball() {  # test_tarball SUITE
  local suite="$1" before after unit exec_start dir="/tmp/audiosession-$VERSION"
  say "$suite: the tarball: make install, its unit, make uninstall"
  before="$(cd "$ROOTFS" && find usr/local -mindepth 1 -not -type d | sort)"
  cp "$TARBALL" "$ROOTFS/tmp/"
  in_root sh -c "cd /tmp && tar xzf $(basename "$TARBALL") && cd $dir && make install" >"$WORK/$suite/tarball.log" 2>&1 || {
    tail -n 20 "$WORK/$suite/tarball.log" >&2; fail "$suite: the tarball's make install"; }
  unit=/usr/local/lib/systemd/user/audiosessiond.service
  exec_start="$(sed -n 's/^ExecStart=//p' "$ROOTFS$unit")"
  [ "$exec_start" = /usr/local/bin/audiosessiond ] || fail "$suite: the tarball's unit runs '$exec_start'"
  as_user systemd-analyze --user verify "$unit" >"$ROOTFS/tmp/verify.log" 2>&1 || {
    cat "$ROOTFS/tmp/verify.log" >&2; fail "$suite: systemd-analyze --user verify $unit"; }
  grep -q -- --linking <<<"$(in_root env MANPAGER=cat man audiosessiond 2>/dev/null)" || fail "$suite: man audiosessiond from /usr/local"
  run_daemon "$suite" "$exec_start" PipeWire
  grep -q "policy rules: .* from /usr/local/share/audiosession/policy-rules" "$ROOTFS/tmp/audiosessiond-PipeWire.log" \
    || fail "$suite: the tarball's daemon did not read /usr/local/share/audiosession/policy-rules"
  in_root sh -c "cd $dir && make uninstall" >>"$WORK/$suite/tarball.log" 2>&1 || fail "$suite: the tarball's make uninstall"
  after="$(cd "$ROOTFS" && find usr/local -mindepth 1 -not -type d | sort)"
  # Every file (and link, such as Debian's usr/local/man) as before; shared directories
  # (share/man/man1, ...) may stay, as package managers leave them.
  [ "$after" = "$before" ] || fail "$suite: /usr/local after make uninstall: $(diff <(echo "$before") <(echo "$after"))"
  pw_state >"$WORK/$suite/pipewire-after-tarball.json"
  diff -u "$WORK/$suite/pipewire-before.json" "$WORK/$suite/pipewire-after-tarball.json" \
    || fail "$suite: PipeWire's state differs after the tarball's daemon"
  say "$suite: tarball installed, verified, ran from /usr/local with its rules; make uninstall left no file; PipeWire as before"
}

# PipeWire's audio state: each sink's name, volumes and mute, and the default metadata.
pw_state() {
  as_user pw-dump 2>/dev/null | in_root jq -S '[.[] | select(.type == "PipeWire:Interface:Node" and .info.props["media.class"] == "Audio/Sink")
      | { name: .info.props["node.name"], props: [.info.params.Props[]? | { volume, mute, channelVolumes }] }]
    + [.[] | select(.type == "PipeWire:Interface:Metadata" and .props["metadata.name"] == "default") | .metadata]'
}
# PulseAudio's: sinks with volume and mute, the default sink, the modules loaded (names and arguments).
pulse_state() {
  as_user pactl list sinks | grep -E '^\s*(Name|Mute|Volume):'
  as_user pactl get-default-sink
  as_user pactl list short modules | cut -f2- | sort
}

# Runs the unit's ExecStart line as the user in the current session, waits for `audiosessionctl
# status` to answer naming SERVER, then stops it with SIGTERM as systemd would.
run_daemon() {  # run_daemon SUITE EXEC_START SERVER
  local suite="$1" exec_start="$2" server="$3" pid status
  say "$suite: $exec_start on $server"
  # shellcheck disable=SC2086  # the ExecStart line's words, as systemd splits a line without quotes
  start_user "/tmp/audiosessiond-$server.log" $exec_start
  pid=$!
  answers() { kill -0 "$pid" && as_user audiosessionctl status --json | in_root jq -e --arg s "$server" '.audioServer | contains($s)'; }
  wait_until 30 "$suite: audiosessionctl status answering on $server" answers
  status="$(as_user audiosessionctl status)"
  sed 's/^/  status: /' <<<"$status" | head -n 8
  kill -0 "$pid" 2>/dev/null || fail "$suite: audiosessiond exited on $server"
  # On PulseAudio the daemon unloads the role modules while it runs (their return after it
  # stops is in the state compared at the end): proof that it acted on this server.
  if [ "$server" = PulseAudio ] && as_user pactl list short modules | grep -q module-role-cork; then
    fail "$suite: module-role-cork still loaded while audiosessiond runs on PulseAudio"
  fi
  kill -TERM "$pid"
  local code=0
  wait "$pid" || code=$?
  local p rest=()
  for p in "${PIDS[@]}"; do [ "$p" = "$pid" ] || rest+=("$p"); done
  PIDS=("${rest[@]}")
  [ "$code" -eq 0 ] || { tail -n 20 "$ROOTFS/tmp/audiosessiond-$server.log" >&2; fail "$suite: audiosessiond exited $code on SIGTERM"; }
  say "$suite: ran on $server, answered status, stopped cleanly on SIGTERM"
}

for suite in $SUITES; do
  test_suite "$suite"
done
say "all passed: $SUITES"
