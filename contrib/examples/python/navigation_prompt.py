#!/usr/bin/python3
"""A navigation app's spoken prompt over the audiosession D-Bus API, written from docs/dbus-api.md.

Before it speaks, a navigation app asks its session's PromptStyle, as iOS asks it to: "normal"
speaks the whole instruction, "short" (the user is in a call) only a brief one, "none" (the user
is recording, a voice memo) nothing at all. (With the shipped rules a call interrupts
navigation, so during a call the activation itself is refused, insufficientPriority, and the
example says so: see docs/dbus-api.md, PromptStyle.) It speaks with espeak-ng into a WAV file, played by
pw-play in its session (the stream names the session: audiosession.id), with the category and
options of a navigation prompt: playback, mode voicePrompt, ducking others and interrupting
spoken audio (a podcast pauses, music ducks), then deactivates with notifyOthersOnDeactivation
so the podcast resumes.

Needs the Debian packages python3-dbus, espeak-ng and pipewire-bin (pw-play).

    ./navigation_prompt.py [--app NAME] [--brief TEXT] "In 300 metres, turn left"
"""
import argparse
import os
import subprocess
import sys
import tempfile

import dbus

BUS_NAME = "org.audiosession.Manager1"
MANAGER_PATH = "/org/audiosession/Manager1"
MANAGER = "org.audiosession.Manager1"
SESSION = "org.audiosession.Session1"
NOTIFY_OTHERS_ON_DEACTIVATION = 1
DUCK_OTHERS = 0x2
INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS = 0x11


def say(text):
    print(text, flush=True)


def speak(text, session_id):
    """espeak-ng into a WAV, played by pw-play in the session; returns when it is heard."""
    with tempfile.TemporaryDirectory() as directory:
        wav = os.path.join(directory, "prompt.wav")
        subprocess.run(["espeak-ng", "-w", wav, text], check=True)
        subprocess.run(["pw-play", "--media-role", "Navigation",
                        "-P", f"{{ node.name = navigation-prompt audiosession.id = {session_id} }}", wav], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instruction", help='what to say, e.g. "In 300 metres, turn left"')
    parser.add_argument("--brief", help="what to say in a call (default: the instruction's last clause)")
    parser.add_argument("--app", default="navigation-example")
    args = parser.parse_args()
    brief = args.brief or args.instruction.split(",")[-1].strip()

    bus = dbus.SessionBus()  # the session lives as long as this connection
    try:
        manager = dbus.Interface(bus.get_object(BUS_NAME, MANAGER_PATH), MANAGER)
        path = manager.CreateSession(args.app)
        session_object = bus.get_object(BUS_NAME, path)
        session = dbus.Interface(session_object, SESSION)
        props = dbus.Interface(session_object, "org.freedesktop.DBus.Properties")
        session.SetCategory("playback", "voicePrompt",
                            dbus.UInt32(DUCK_OTHERS | INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS))
        style = str(props.Get(SESSION, "PromptStyle"))
        say(f"prompt style {style}")
        if style == "none":
            say("prompt skipped: someone is recording")
            return
        text = args.instruction if style == "normal" else brief
        try:
            session.SetActive(True, dbus.UInt32(0))
        except dbus.exceptions.DBusException as error:
            if error.get_dbus_name() != "org.audiosession.Error.InsufficientPriority":
                raise
            # The shipped rules let a call interrupt navigation: not even a brief prompt then.
            say("prompt refused: a call holds the audio")
            return
        say(f"speaking: {text}")
        speak(text, int(props.Get(SESSION, "Id")))
        session.SetActive(False, dbus.UInt32(NOTIFY_OTHERS_ON_DEACTIVATION))
        say("done; others notified")
        session.Close()
    except dbus.exceptions.DBusException as error:
        code = error.args[1] if len(error.args) > 1 else None
        sys.exit(f"navigation_prompt: {error.get_dbus_name()}: {error.get_dbus_message()} (code {code})")
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"navigation_prompt: {error}")


if __name__ == "__main__":
    main()
