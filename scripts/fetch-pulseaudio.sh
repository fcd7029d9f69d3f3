#!/usr/bin/env bash
# Fetches the PulseAudio 16 server (Debian 12's `pulseaudio` package and the libraries it needs
# beyond this machine's) into .build-pulseaudio/prefix (ignored by git): the pure PulseAudio
# server the PulseAudio backend's tests and `make bench` run privately.
#
# Nothing is installed: the packages are fetched with `apt-get download` and unpacked with
# `dpkg-deb -x`. Installing `pulseaudio` would enable its systemd user units for every user and
# make libpulse clients autospawn it on a PipeWire desktop. A test starts the server from the
# prefix (PipeWireSandbox.PulseAudioInstallation) with LD_LIBRARY_PATH and its module directory.
#
#   scripts/fetch-pulseaudio.sh          fetch once (idempotent: a complete prefix is kept)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.build-pulseaudio"
PREFIX="$WORK/prefix"
PACKAGES=(pulseaudio libfftw3-single3 liborc-0.4-0 libspeexdsp1 libtdb1 libwrap0)
STAMP="$PREFIX/.audiosession-pulseaudio"

if [ "$(cat "$STAMP" 2>/dev/null)" = "${PACKAGES[*]}" ] && [ -x "$PREFIX/usr/bin/pulseaudio" ] && [ -s "$PREFIX/.version" ]; then
  echo "fetch-pulseaudio: pulseaudio $(cat "$PREFIX/.version" 2>/dev/null) already in $PREFIX"
  exit 0
fi
for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "fetch-pulseaudio: $tool is missing (Debian only)" >&2; exit 1; }
done
echo "fetch-pulseaudio: fetching ${PACKAGES[*]} into $PREFIX (nothing is installed)"
rm -rf "$WORK/debs" "$PREFIX.new"
mkdir -p "$WORK/debs" "$PREFIX.new"
if ! (cd "$WORK/debs" && apt-get download "${PACKAGES[@]}" >/dev/null 2>&1); then
  apt-get update -qq >/dev/null 2>&1 || true
  (cd "$WORK/debs" && apt-get download "${PACKAGES[@]}") || {
    echo "fetch-pulseaudio: apt-get download failed" >&2; exit 1; }
fi
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$PREFIX.new"; done
dpkg-deb -f "$WORK"/debs/pulseaudio_*.deb Version > "$PREFIX.new/.version"
echo "${PACKAGES[*]}" > "$PREFIX.new/.audiosession-pulseaudio"
rm -rf "$PREFIX" && mv "$PREFIX.new" "$PREFIX" && rm -rf "$WORK/debs"
echo "fetch-pulseaudio: pulseaudio $(cat "$PREFIX/.version") in $PREFIX"
