#!/usr/bin/env bash
# Builds the third stack the integration suites run on (`make test-stack-1.6`): PipeWire 1.6 and
# WirePlumber 0.5 from Debian trixie-backports (the releases Ubuntu 26.04, Fedora 44 and Arch
# run), in a minimal Debian trixie root at .build-pipewire-1.6/root (ignored by git).
#
# Why a whole root, not unpacked packages as for 1.4 (scripts/fetch-pipewire-backport.sh):
# trixie's binaries need trixie's glibc, newer than this Debian 12 machine's, so LD_LIBRARY_PATH
# alone cannot load them. The root's own dynamic loader can: every program runs, without chroot,
# through a small wrapper in .build-pipewire-1.6/bin that starts it with
# `ROOT/usr/lib64/ld-linux-x86-64.so.2 --library-path ROOT/...` (PipeWireSandbox.PipeWireInstallation).
#
# The root is made with debootstrap and the packages installed with the root's own apt-get in a
# chroot, with /proc, /sys and /dev mounted only for that and unmounted (lazily) on exit.
# Needs root (CI runs as root) or sudo.
#
#   scripts/fetch-pipewire-1.6.sh          build once (idempotent: a complete root is kept)
#   PIPEWIRE_1_6_FORCE=1 scripts/...       build again
set -euo pipefail

PROJECT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$PROJECT/.build-pipewire-1.6"
ROOT="$WORK/root"
SUITE="trixie"
BACKPORTS="trixie-backports"
# The Debian archive this machine's apt already uses; PIPEWIRE_1_6_MIRROR overrides it.
. "$PROJECT/scripts/apt-mirror.sh"
MIRROR="$(chosen_mirror fetch-pipewire-1.6 PIPEWIRE_1_6_MIRROR)"
# Taken from trixie-backports: the server and its tools (pw-cat, pw-cli, pw-dump, pw-link,
# pw-record, pw-metadata), pipewire-pulse, SPA plugins and PipeWire modules, WirePlumber with its
# example configuration (the role loopbacks of wireplumber-doc).
BACKPORTED=(pipewire pipewire-bin pipewire-pulse libpipewire-0.3-modules libspa-0.2-modules
            wireplumber wireplumber-doc)
# Plain trixie: pactl and paplay, and the libraries audiosessiond links besides libpipewire
# (libsystemd, libstdc++; libpulse for its PulseAudio backend), so the daemon built here runs
# there.
PLAIN=(pulseaudio-utils libpulse0 libsystemd0 libstdc++6)
STAMP="$ROOT/.audiosession-stack"

# One wrapper per program of the stack's packages in $WORK/bin, so a test names a program by
# path. Each program of the root has its ELF interpreter set (patchelf) to the root's loader, as
# it is at home: run by its own path, not as `ld.so PROGRAM`, it finds itself in
# /proc/self/exe, where PipeWire reads a client's application.name ("pw-cat", not
# "ld-linux-x86-64.so.2"). The wrapper sets LD_LIBRARY_PATH for the program alone (the wrapper's
# host shell never sees it): it comes before the absolute RUNPATHs the root's libraries carry
# (libpulse's /usr/lib/x86_64-linux-gnu/pulseaudio, the modules' pipewire-0.3), which would
# otherwise name the host's copies. `exec -a` keeps the name a program is called by
# (pipewire-pulse is pipewire, and reads the configuration of its name). Written on every run:
# they are cheap, and name the root where it is now.
write_wrappers() {
  local triplet="x86_64-linux-gnu" library_path="" directory package program name
  local loader="$ROOT/usr/lib64/ld-linux-x86-64.so.2"
  for directory in usr/lib/$triplet lib/$triplet usr/lib/$triplet/pipewire-0.3 usr/lib/$triplet/pulseaudio \
                   usr/lib/$triplet/systemd; do
    library_path="${library_path:+$library_path:}$ROOT/$directory"
  done
  rm -rf "$WORK/bin.new"
  mkdir -p "$WORK/bin.new"
  for package in "${BACKPORTED[@]}" pulseaudio-utils; do
    [ -r "$ROOT/var/lib/dpkg/info/$package.list" ] || continue
    grep -E '^/usr/bin/[^/]+$' "$ROOT/var/lib/dpkg/info/$package.list" || true
  done | sort -u | while read -r program; do
    name="$(basename "$program")"
    # ELF programs only (a symlink such as pipewire-pulse shares its target's interpreter).
    [ -f "$ROOT$program" ] && [ "$(head -c 4 "$ROOT$program" | tr -d '\177')" = "ELF" ] || continue
    [ -L "$ROOT$program" ] || [ "$(patchelf --print-interpreter "$ROOT$program")" = "$loader" ] \
      || patchelf --set-interpreter "$loader" "$ROOT$program"
    {
      echo '#!/bin/bash'
      echo "# Runs $name of the Debian trixie root (written by scripts/fetch-pipewire-1.6.sh)."
      echo "LD_LIBRARY_PATH='$library_path' exec -a \"\$0\" '$ROOT$program' \"\$@\""
    } > "$WORK/bin.new/$name"
    chmod 755 "$WORK/bin.new/$name"
  done
  rm -rf "$WORK/bin"
  mv "$WORK/bin.new" "$WORK/bin"
}

# The root's libraries with an absolute RUNPATH (the PipeWire modules' .../pipewire-0.3,
# libpulse's .../pulseaudio) lose it: outside a chroot it names the host's directories, and a
# library with a RUNPATH of its own never searches its program's DT_RPATH, so its other
# dependencies came from the host's ld.so.cache (the root's loader reads the host's
# /etc/ld.so.cache): the daemon under test loaded the host's libselinux for
# module-protocol-native. Without it, the wrappers' LD_LIBRARY_PATH and our programs' DT_RPATH
# (both name those directories in the root) find everything in the root.
drop_absolute_runpaths() {
  local library runpath
  while IFS= read -r -d '' library; do
    [ "$(head -c 4 "$library" | tr -d '\177')" = "ELF" ] || continue
    runpath="$(patchelf --print-rpath "$library" 2>/dev/null)" || continue
    case "$runpath" in /*) patchelf --remove-rpath "$library" ;; esac
  done < <(find "$ROOT/usr/lib/x86_64-linux-gnu" -type f -name '*.so*' -print0)
}

. "$PROJECT/scripts/install-missing.sh"
install_missing fetch-pipewire-1.6 debootstrap debian-archive-keyring patchelf

if [ -z "${PIPEWIRE_1_6_FORCE:-}" ] && [ -s "$STAMP" ] \
  && [ -x "$ROOT/usr/bin/pipewire" ] && [ -x "$ROOT/usr/bin/wireplumber" ]; then
  drop_absolute_runpaths
  write_wrappers
  echo "fetch-pipewire-1.6: $(cat "$STAMP") already in $ROOT"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

NEW="$ROOT.new"
mounted=()
cleanup() {
  local point
  for point in "${mounted[@]}"; do $SUDO umount -l "$point" 2>/dev/null || true; done
}
trap cleanup EXIT
# A root left by an interrupted run may still have its mounts: never delete through them.
for point in proc sys dev; do
  if mountpoint -q "$NEW/$point" 2>/dev/null; then $SUDO umount -l "$NEW/$point"; fi
done
$SUDO rm -rf --one-file-system "$NEW"
mkdir -p "$WORK"

echo "fetch-pipewire-1.6: debootstrap $SUITE into $NEW"
$SUDO debootstrap --variant=minbase "$SUITE" "$NEW" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || {
  tail -20 "$WORK/debootstrap.log" >&2
  echo "fetch-pipewire-1.6: debootstrap failed (is $MIRROR $SUITE reachable?)" >&2
  exit 1
}
printf 'deb %s %s main\ndeb %s %s main\n' "$MIRROR" "$SUITE" "$MIRROR" "$BACKPORTS" | $SUDO tee "$NEW/etc/apt/sources.list" >/dev/null

for point in proc sys dev; do
  $SUDO mount --bind "/$point" "$NEW/$point"
  mounted=("$NEW/$point" "${mounted[@]}")
done
in_root() { $SUDO env DEBIAN_FRONTEND=noninteractive LC_ALL=C chroot "$NEW" "$@"; }
in_root apt-get update -qq
# What the mirror serves: the stack is whatever trixie-backports has (1.6.9 and 0.5.12 when
# this was written); the versions go into the stamp and the log.
# (Read whole, then searched: `grep -q` on the pipe would end apt-cache early, and pipefail
# would take its SIGPIPE for a failure.)
policy="$(in_root apt-cache policy pipewire wireplumber)"
echo "$policy"
if ! grep -q "$BACKPORTS" <<<"$policy"; then
  echo "fetch-pipewire-1.6: $MIRROR serves no pipewire in $BACKPORTS" >&2
  exit 1
fi
# No service is started in a chroot: policy-rc.d refuses them while apt installs.
printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$NEW/usr/sbin/policy-rc.d" >/dev/null
$SUDO chmod 755 "$NEW/usr/sbin/policy-rc.d"
in_root apt-get install -y -qq --no-install-recommends -t "$BACKPORTS" "${BACKPORTED[@]}" "${PLAIN[@]}" >/dev/null
in_root apt-get clean
$SUDO rm -f "$NEW/usr/sbin/policy-rc.d"
pipewire_version="$(in_root dpkg-query -W -f='${Version}' pipewire)"
wireplumber_version="$(in_root dpkg-query -W -f='${Version}' wireplumber)"
cleanup
mounted=()

for program in pipewire wireplumber pipewire-pulse pw-cat pw-cli pw-dump pw-link pw-record pw-metadata pactl paplay; do
  [ -x "$NEW/usr/bin/$program" ] || { echo "fetch-pipewire-1.6: no usr/bin/$program in the root" >&2; exit 1; }
done
# The test user (not root outside CI) reads the root and runs its programs.
[ -z "$SUDO" ] || $SUDO chown -R "$(id -u):$(id -g)" "$NEW"
echo "pipewire $pipewire_version, wireplumber $wireplumber_version" > "$NEW/.audiosession-stack"
for point in proc sys dev; do
  if mountpoint -q "$ROOT/$point" 2>/dev/null; then $SUDO umount -l "$ROOT/$point"; fi
done
rm -rf --one-file-system "$ROOT"
mv "$NEW" "$ROOT"
drop_absolute_runpaths
write_wrappers
echo "fetch-pipewire-1.6: $(cat "$ROOT/.audiosession-stack") in $ROOT"
