#!/usr/bin/env bash
# Installs the browsers the real-app tests start headless on a private PipeWire
# (Tests/DaemonTests/Support/RealBrowsers.swift, docs/real-apps-browsers.md).
# Idempotent: installs only what is missing. Uses sudo when not root.
set -euo pipefail

PACKAGES=(
  firefox-esr chromium
  # Firefox loads libpulse at run time (dlopen), so its package does not depend on it;
  # without it Firefox falls back to ALSA and never reaches pipewire-pulse.
  libpulse0
)

. "$(dirname "$0")/install-missing.sh"
install_missing install-browsers "${PACKAGES[@]}"
