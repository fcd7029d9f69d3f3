#!/usr/bin/env bash
# Fetches the stack today's desktops run, PipeWire 1.4.2 and WirePlumber 0.5.8 from Debian
# bookworm-backports, into .build-pipewire-1.4/prefix (ignored by git): the second stack the
# integration suites run on (`make test-stack-1.4`).
#
# Nothing is installed system-wide: the packages are fetched with `apt-get download` using a
# private sources list and package lists, and unpacked with `dpkg-deb -x`. A test starts the
# 1.4.2 server and WirePlumber 0.5.8 from the prefix (PipeWireSandbox.PipeWireInstallation) with
# LD_LIBRARY_PATH, SPA_PLUGIN_DIR, PIPEWIRE_MODULE_DIR, PIPEWIRE_CONFIG_DIR and WIREPLUMBER_*
# pointing into it.
#
#   scripts/fetch-pipewire-backport.sh          fetch once (idempotent: a complete prefix is kept)
#   PIPEWIRE_BACKPORT_FORCE=1 scripts/...       fetch again
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.build-pipewire-1.4"
PREFIX="$WORK/prefix"
VERSION="1.4.2-1~bpo12+1"
WIREPLUMBER_VERSION="0.5.8-1~bpo12+1"
STACK="pipewire $VERSION with pipewire-alsa, wireplumber $WIREPLUMBER_VERSION"
SUITE="bookworm-backports"
# The Debian archive this machine's apt already uses; PIPEWIRE_BACKPORT_MIRROR overrides it.
. "$ROOT/scripts/apt-mirror.sh"
MIRROR="$(chosen_mirror fetch-pipewire-backport PIPEWIRE_BACKPORT_MIRROR)"
# The server, its tools (pw-cat, pw-cli, pw-dump), pipewire-pulse, the library, SPA plugins
# (audioconvert lives in libspa-0.2-modules), PipeWire modules and the default configuration;
# and ALSA's PipeWire plugin, which the tests' ALSA programs load on this stack.
PACKAGES=(pipewire pipewire-bin pipewire-pulse libpipewire-0.3-0 libpipewire-0.3-modules
          libspa-0.2-modules libpipewire-0.3-common pipewire-alsa)
# WirePlumber 0.5.8, its library and its example configuration (the role-based loopbacks).
WIREPLUMBER_PACKAGES=(wireplumber libwireplumber-0.5-0 wireplumber-doc)
# Two plain bookworm libraries WirePlumber 0.5 links that a minimal machine lacks.
LIBRARIES=(liblua5.4-0 libebur128-1)
STAMP="$PREFIX/.audiosession-backport"

if [ -z "${PIPEWIRE_BACKPORT_FORCE:-}" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$STACK" ] \
  && [ -x "$PREFIX/usr/bin/pipewire" ] && [ -x "$PREFIX/usr/bin/wireplumber" ]; then
  echo "fetch-pipewire-backport: $STACK already in $PREFIX"
  exit 0
fi
for tool in apt-get dpkg-deb dpkg; do
  command -v "$tool" >/dev/null || { echo "fetch-pipewire-backport: $tool is missing (Debian only)" >&2; exit 1; }
done

ARCH="$(dpkg --print-architecture)"
APT="$WORK/apt"
rm -rf "$APT" "$WORK/debs" "$PREFIX.new"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$WORK/debs" "$PREFIX.new"
printf 'deb %s %s main\ndeb %s bookworm main\n' "$MIRROR" "$SUITE" "$MIRROR" > "$APT/sources.list"
OPTS=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o "Dir::Etc::sourceparts=/dev/null"
      -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache" -o "APT::Architecture=$ARCH"
      -o "Debug::NoLocking=1")

echo "fetch-pipewire-backport: fetching $STACK from $SUITE (nothing is installed)"
apt-get "${OPTS[@]}" -qq update
(cd "$WORK/debs" && apt-get "${OPTS[@]}" -qq download "${PACKAGES[@]/%/=$VERSION}" \
  "${WIREPLUMBER_PACKAGES[@]/%/=$WIREPLUMBER_VERSION}" "${LIBRARIES[@]}") || {
  echo "fetch-pipewire-backport: apt-get download failed (is $MIRROR $SUITE reachable?)" >&2; exit 1; }
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$PREFIX.new"; done
for program in pipewire wireplumber; do
  [ -x "$PREFIX.new/usr/bin/$program" ] || { echo "fetch-pipewire-backport: no usr/bin/$program in the packages" >&2; exit 1; }
done
compgen -G "$PREFIX.new/usr/lib/*/alsa-lib/libasound_module_pcm_pipewire.so" >/dev/null \
  || { echo "fetch-pipewire-backport: no ALSA plugin (alsa-lib/libasound_module_pcm_pipewire.so) in pipewire-alsa" >&2; exit 1; }
echo "$STACK" > "$PREFIX.new/.audiosession-backport"
rm -rf "$PREFIX" "$WORK/debs"
mv "$PREFIX.new" "$PREFIX"
echo "fetch-pipewire-backport: $STACK in $PREFIX"
