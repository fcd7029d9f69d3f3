#!/usr/bin/env bash
# Fetches PipeWire 1.4.2 from Debian bookworm-backports into .build-pipewire-1.4/prefix (ignored
# by git), for the tests of native volume ramps (PipeWire >= 0.3.68; this machine runs 0.3.65).
#
# Nothing is installed system-wide: the packages are fetched with `apt-get download` using a
# private sources list and package lists, and unpacked with `dpkg-deb -x`. A test starts the
# 1.4.2 server from the prefix (PipeWireSandbox.PipeWireInstallation) with LD_LIBRARY_PATH,
# SPA_PLUGIN_DIR, PIPEWIRE_MODULE_DIR and PIPEWIRE_CONFIG_DIR pointing into it.
#
#   scripts/fetch-pipewire-backport.sh          fetch once (idempotent: a complete prefix is kept)
#   PIPEWIRE_BACKPORT_FORCE=1 scripts/...       fetch again
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.build-pipewire-1.4"
PREFIX="$WORK/prefix"
VERSION="1.4.2-1~bpo12+1"
SUITE="bookworm-backports"
# The Debian archive this machine's apt already uses; PIPEWIRE_BACKPORT_MIRROR overrides it.
. "$ROOT/scripts/apt-mirror.sh"
MIRROR="${PIPEWIRE_BACKPORT_MIRROR:-$(debian_mirror)}"
if [ -z "$MIRROR" ]; then
  echo "fetch-pipewire-backport: no Debian bookworm source in this machine's apt configuration; set PIPEWIRE_BACKPORT_MIRROR" >&2
  exit 1
fi
# The server, its tools (pw-cat, pw-cli, pw-dump), pipewire-pulse, the library, SPA plugins
# (audioconvert lives in libspa-0.2-modules), PipeWire modules and the default configuration.
PACKAGES=(pipewire pipewire-bin pipewire-pulse libpipewire-0.3-0 libpipewire-0.3-modules
          libspa-0.2-modules libpipewire-0.3-common)
STAMP="$PREFIX/.audiosession-backport"

if [ -z "${PIPEWIRE_BACKPORT_FORCE:-}" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$VERSION" ] \
  && [ -x "$PREFIX/usr/bin/pipewire" ]; then
  echo "fetch-pipewire-backport: PipeWire $VERSION already in $PREFIX"
  exit 0
fi
for tool in apt-get dpkg-deb dpkg; do
  command -v "$tool" >/dev/null || { echo "fetch-pipewire-backport: $tool is missing (Debian only)" >&2; exit 1; }
done

ARCH="$(dpkg --print-architecture)"
APT="$WORK/apt"
rm -rf "$APT" "$WORK/debs" "$PREFIX.new"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$WORK/debs" "$PREFIX.new"
echo "deb $MIRROR $SUITE main" > "$APT/sources.list"
OPTS=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o "Dir::Etc::sourceparts=/dev/null"
      -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o "APT::Architecture=$ARCH"
      -o "Debug::NoLocking=1")

echo "fetch-pipewire-backport: fetching PipeWire $VERSION from $SUITE (nothing is installed)"
apt-get "${OPTS[@]}" -qq update
(cd "$WORK/debs" && apt-get "${OPTS[@]}" -qq download "${PACKAGES[@]/%/=$VERSION}") || {
  echo "fetch-pipewire-backport: apt-get download failed (is $MIRROR $SUITE reachable?)" >&2; exit 1; }
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$PREFIX.new"; done
[ -x "$PREFIX.new/usr/bin/pipewire" ] || { echo "fetch-pipewire-backport: no usr/bin/pipewire in the packages" >&2; exit 1; }
echo "$VERSION" > "$PREFIX.new/.audiosession-backport"
rm -rf "$PREFIX" "$WORK/debs"
mv "$PREFIX.new" "$PREFIX"
echo "fetch-pipewire-backport: PipeWire $VERSION in $PREFIX"
