#!/usr/bin/env bash
# Runs `make test` and `make demo` on a fresh clone inside a clean Debian 12 root: a machine
# with nothing installed but the Swift toolchain and what the toolchain itself needs. CI runs
# on a developer's machine, where whatever was installed by hand is still there; this finds
# the program a test calls that the project's own scripts do not install.
#
#   sudo scripts/clean-root-test.sh              build the root (once), clone HEAD, make test, make demo
#   CLEAN_ROOT_FRESH=1 sudo scripts/...          build the root again from nothing
#   CLEAN_ROOT_TARGETS="test" sudo scripts/...   only `make test`
#
# Needs root (debootstrap, chroot, bind mounts) on Debian with the Swift toolchain installed.
# The root lives in .build-clean-root/ (ignored by git); the toolchain (`swift` on PATH,
# resolved to its `usr/..` directory) and any git `url.<dir>.insteadOf` mirror of Swift
# packages are bind-mounted read-only, as this machine resolves packages. Everything mounted
# is unmounted when the script ends, even when the run fails.
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT_DIR/.build-clean-root"
ROOTFS="$WORK/root"
TARGETS="${CLEAN_ROOT_TARGETS:-test demo}"
say() { echo "clean-root: $*"; }

[ "$(id -u)" -eq 0 ] || { echo "clean-root: run as root (debootstrap, chroot and mounts need it)" >&2; exit 1; }
. "$ROOT_DIR/scripts/install-missing.sh"
install_missing clean-root debootstrap
. "$ROOT_DIR/scripts/apt-mirror.sh"
MIRROR="$(chosen_mirror clean-root CLEAN_ROOT_MIRROR)"

SWIFT="$(command -v swift || true)"
[ -n "$SWIFT" ] || { echo "clean-root: no swift on PATH" >&2; exit 1; }
TOOLCHAIN="$(cd "$(dirname "$(readlink -f "$SWIFT")")/../.." && pwd)"  # .../usr/bin/swift → ...

# What the Swift toolchain needs on Debian 12 (its install guide), plus libncurses6 for
# `swift` to start, make and sudo. Nothing of the project's: its scripts must install the rest.
TOOLCHAIN_PACKAGES=(binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev
  libsqlite3-0 libstdc++-12-dev libxml2-dev libz3-dev pkg-config tzdata zlib1g-dev libncurses6 make
  ca-certificates sudo)

. "$(dirname "$0")/root-mounts.sh"
trap unmount_all EXIT

if [ -n "${CLEAN_ROOT_FRESH:-}" ] || [ ! -f "$ROOTFS/.audiosession-clean-root" ]; then
  say "debootstrap --variant=minbase bookworm from $MIRROR"
  rm -rf "$ROOTFS"
  mkdir -p "$WORK"
  debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || {
    tail -n 20 "$WORK/debootstrap.log" >&2; exit 1; }
  touch "$ROOTFS/.audiosession-clean-root.partial"
fi

# What the root needs from this machine: name resolution, the kernel's file systems, and the
# toolchain (read-only).
enter_root() {
  mount_system "$ROOTFS"
  bind "$TOOLCHAIN" "$ROOTFS$TOOLCHAIN" ro
}
enter_root

in_root() {
  chroot "$ROOTFS" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH="$TOOLCHAIN/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
}

if [ -f "$ROOTFS/.audiosession-clean-root.partial" ]; then
  say "installing the toolchain's prerequisites (${#TOOLCHAIN_PACKAGES[@]} packages)"
  in_root apt-get update -qq
  in_root apt-get install -y -qq --no-install-recommends "${TOOLCHAIN_PACKAGES[@]}" >"$WORK/prerequisites.log" 2>&1 || {
    tail -n 20 "$WORK/prerequisites.log" >&2; exit 1; }
  in_root apt-get clean
  mv "$ROOTFS/.audiosession-clean-root.partial" "$ROOTFS/.audiosession-clean-root"
  # A snapshot of the pristine root: each run starts from it, not from the last run's installs.
  say "keeping a pristine copy of the root"
  cleanup; MOUNTS=()
  rm -rf "$WORK/pristine" && cp -a "$ROOTFS" "$WORK/pristine"
  exec "$0" "$@"
fi

# Each run starts from the pristine root (made above): nothing a previous run installed.
if [ -d "$WORK/pristine" ] && [ -z "${CLEAN_ROOT_REUSE:-}" ]; then
  cleanup; MOUNTS=()
  say "starting from the pristine root"
  rm -rf "$ROOTFS" && cp -a "$WORK/pristine" "$ROOTFS"
  enter_root
fi

# Swift packages resolve as on this machine: through git's `url.<dir>.insteadOf` setting.
while read -r key value; do
  dir="${key#url.}"; dir="${dir%.insteadof}"
  if [ -d "$dir" ] && ! mountpoint -q "$ROOTFS$dir"; then bind "$dir" "$ROOTFS$dir" ro; fi
  in_root git config --system --get-all "url.$dir.insteadOf" 2>/dev/null | grep -qxF "$value" \
    || in_root git config --system --add "url.$dir.insteadOf" "$value"
done < <(git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null || true)

say "cloning $(git -C "$ROOT_DIR" rev-parse --short HEAD) into the root"
rm -rf "$ROOTFS/root/audiosession"
git clone -q "$ROOT_DIR" "$ROOTFS/root/audiosession"
for target in $TARGETS; do
  say "make $target (log: $WORK/make-$target.log)"
  start=$(date +%s)
  if ! in_root sh -c "cd /root/audiosession && make $target" >"$WORK/make-$target.log" 2>&1; then
    tail -n 40 "$WORK/make-$target.log" >&2
    say "make $target FAILED after $(( $(date +%s) - start )) s"
    exit 1
  fi
  say "make $target passed in $(( $(date +%s) - start )) s"
done
