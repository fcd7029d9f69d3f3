#!/usr/bin/env bash
# Installs the real applications the real-app tests start on a private PipeWire
# (Tests/DaemonTests/RealApp*.swift, docs/real-apps.md). Idempotent: installs only what is
# missing. Uses sudo when not root. The browsers have their own script (install-browsers.sh).
set -euo pipefail

PACKAGES=(
  # ALSA apps (aplay, arecord) and the ALSA plugin that takes them to PipeWire: one PipeWire
  # client per PCM, named "PipeWire ALSA [binary]". pipewire-alsa makes PipeWire ALSA's default
  # device, as on Debian's PipeWire desktops; the plugin talks to the PipeWire named by the
  # process's environment (the tests': their private one).
  alsa-utils pipewire-alsa
  # ALSA's pulse plugin: the same ALSA apps on the tests' pure PulseAudio server
  # (PulseAudioRealAppTests: each test's own ALSA configuration names pulse the default)
  libasound2-plugins
  # Command-line players that set no role: mpg123 (pulse), ffplay (SDL), gst-launch-1.0
  # (pulsesink, pipewiresink), sox's play and rec
  mpg123 ffmpeg gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-pipewire sox
  # Speech: speech-dispatcher with espeak-ng (its output module and a dummy one), spd-say;
  # Festival with a voice, which plays each sentence with an aplay of its own
  speech-dispatcher speech-dispatcher-espeak-ng espeak-ng festival festvox-kallpc16k
  # SIP clients: two instances call each other on loopback (baresip; Twinkle's console mode;
  # linphone's console client linphonec, which opens its microphone before its speaker)
  baresip-core twinkle linphone-cli
  # A game over SDL2: Chocolate Doom with the Freedoom data, headless (SDL's dummy video)
  chocolate-doom freedoom
  # Programs no rule names, told apart by what they do: a MIDI player (TiMidity++ over ALSA,
  # with the freepats instruments) and a speech synthesizer that plays through ALSA itself (flite)
  timidity freepats flite
  # A desktop music player with a GUI toolkit (Audacious, GTK; its MPRIS plugin is on by
  # default) on a private headless X server (Xvfb); xwininfo (x11-utils) finds its window
  audacious xvfb x11-utils
)

. "$(dirname "$0")/install-missing.sh"
install_missing install-apps "${PACKAGES[@]}"
