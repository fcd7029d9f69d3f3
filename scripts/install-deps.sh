#!/usr/bin/env bash
# Installs the Debian packages audiosession needs to build, test and run its demo.
# Idempotent: installs only what is missing. Uses sudo when not root.
set -euo pipefail

PACKAGES=(
  pkg-config gcc libc6-dev
  # PipeWire: daemon, tools (pw-cli, pw-cat, pw-link, pw-dump), pulse server, headers;
  # WirePlumber for the --no-linking coexistence tests
  pipewire pipewire-bin pipewire-pulse libpipewire-0.3-dev libspa-0.2-dev wireplumber
  # PulseAudio client side (paplay, pactl) and headers for the libpulse backend
  pulseaudio-utils libpulse-dev
  # D-Bus: private test buses (dbus-daemon, dbus-send), busctl, sd-bus headers
  dbus dbus-bin systemd libsystemd-dev
  # A real MPRIS player for interruption tests and the demo
  mpv mpv-mpris playerctl
  # The Python D-Bus example (contrib/examples/python) and its test
  python3 python3-dbus python3-gi
  # Test tones and their lengths (soxi)
  sox
  # The PipeWire 1.6 stack: a trixie root (debootstrap), and our programs made to run on it
  # (PipeWireSandbox sets their ELF interpreter to the root's loader)
  debootstrap debian-archive-keyring patchelf
  # Where a daemon under test hangs or crashes: its threads' stacks, live or from its core
  gdb
)

. "$(dirname "$0")/install-missing.sh"
install_missing install-deps "${PACKAGES[@]}"

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: no Swift toolchain on PATH (need Swift 6.1 or newer: https://swift.org/install)" >&2
  exit 1
fi

# PipeWire 1.4.2 and WirePlumber 0.5.8 (bookworm-backports) unpacked into .build-pipewire-1.4/:
# the second stack the integration suites run on; nothing is installed system-wide.
"$(dirname "$0")/fetch-pipewire-backport.sh"

# PipeWire 1.6.9 and WirePlumber 0.5.12 (trixie-backports) in a Debian trixie root in
# .build-pipewire-1.6/ for the third test stack (make test-stack-1.6); nothing is installed
# system-wide, and nothing stays mounted.
"$(dirname "$0")/fetch-pipewire-1.6.sh"

# PulseAudio 16 (the server) unpacked into .build-pulseaudio/ for the PulseAudio backend's
# tests and the bench; never installed (it would autospawn for every libpulse client).
"$(dirname "$0")/fetch-pulseaudio.sh"
