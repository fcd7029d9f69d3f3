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

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-browsers: all ${#PACKAGES[@]} Debian packages present"
  exit 0
fi
echo "install-browsers: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-browsers: not root and no sudo; install these yourself: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# Another apt-get (a second installer) may hold the dpkg lock for a while: wait for it.
$SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"
