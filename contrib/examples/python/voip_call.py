#!/usr/bin/python3
"""A VoIP "call" over the audiosession D-Bus API, written from docs/dbus-api.md alone.

Creates a session, sets playAndRecord / voiceChat, activates it (music that was playing is
interrupted), prints every signal the session gets, and when it is told to stop (Ctrl-C or
SIGTERM) deactivates with notifyOthersOnDeactivation so the music resumes. Muting the
microphone puts the call on hold (interruption reason builtInMicMuted) until it is back,
unless --record-silence-when-muted; the speaker volume the user sets is printed as it changes.
--mic-gain sets the microphone's volume for the call (its user's comes back after), and
--mic-source picks one of the microphone's data sources (its card's routes, e.g. "Headset
Microphone") for the call.

Needs the Debian package python3-dbus (and python3-gi for the GLib main loop).

    ./voip_call.py [--app NAME] [--record-silence-when-muted] [--no-system-alerts]
                   [--mic-gain 0..1] [--mic-source NAME]
"""
import argparse
import signal
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

BUS_NAME = "org.audiosession.Manager1"
MANAGER_PATH = "/org/audiosession/Manager1"
MANAGER = "org.audiosession.Manager1"
SESSION = "org.audiosession.Session1"
NOTIFY_OTHERS_ON_DEACTIVATION = 1
OVERRIDE_MUTED_MICROPHONE_INTERRUPTION = 0x80
REASONS = {0: "default", 2: "builtInMicMuted", 4: "routeDisconnected"}


def say(text):
    print(text, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", default="voip-example")
    parser.add_argument("--record-silence-when-muted", action="store_true",
                        help="stay in the call when the microphone is muted (overrideMutedMicrophoneInterruption)")
    parser.add_argument("--no-system-alerts", action="store_true",
                        help="notification sounds neither duck nor interrupt the call")
    parser.add_argument("--mic-gain", type=float, metavar="GAIN",
                        help="the microphone's volume during the call, 0..1 (its user's comes back after)")
    parser.add_argument("--mic-source", metavar="NAME",
                        help="the microphone data source to use during the call (see the list printed at the start)")
    args = parser.parse_args()

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()  # the session lives as long as this connection
    try:
        manager = dbus.Interface(bus.get_object(BUS_NAME, MANAGER_PATH), MANAGER)
        path = manager.CreateSession(args.app)
    except dbus.exceptions.DBusException as error:
        sys.exit(f"voip_call: {error.get_dbus_message()}")
    session_object = bus.get_object(BUS_NAME, path)
    session = dbus.Interface(session_object, SESSION)

    def on_interruption(kind, reason, options):
        if kind == 1:
            say(f"interruption began (reason {REASONS.get(int(reason), int(reason))})")
            if reason == 2:
                say("microphone muted: the call is on hold")
        elif options & 1:
            say("interruption ended shouldResume")
            session.SetActive(True, dbus.UInt32(0))  # back in the call
            say("call resumed")
        else:
            say("interruption ended")

    def on_properties_changed(interface, changed, invalidated):
        if "OutputVolume" in changed:
            say(f"speaker volume {float(changed['OutputVolume']):.2f}")
        if "InputGain" in changed:
            say(f"microphone gain {float(changed['InputGain']):.2f}")

    def on_route_change(reason, previous):
        say(f"route changed (reason {reason})")

    bus.add_signal_receiver(on_interruption, "Interruption", SESSION, BUS_NAME, path)
    bus.add_signal_receiver(on_route_change, "RouteChange", SESSION, BUS_NAME, path)
    bus.add_signal_receiver(on_properties_changed, "PropertiesChanged", "org.freedesktop.DBus.Properties", BUS_NAME, path)

    props = dbus.Interface(session_object, "org.freedesktop.DBus.Properties")
    options = OVERRIDE_MUTED_MICROPHONE_INTERRUPTION if args.record_silence_when_muted else 0
    try:
        session.SetCategory("playAndRecord", "voiceChat", dbus.UInt32(options))
        if args.no_system_alerts:
            session.SetPrefersNoInterruptionsFromSystemAlerts(True)
        # Data sources: the routes of the card the microphone is on (id, name, location, orientation).
        sources = props.Get(SESSION, "InputDataSources")
        if sources:
            say("microphone sources: " + ", ".join(str(source[1]) for source in sources))
        if args.mic_source is not None:
            chosen = [source for source in sources if str(source[1]) == args.mic_source]
            if not chosen:
                sys.exit(f"voip_call: no microphone source named {args.mic_source!r}")
            session.SetInputDataSource(dbus.Int32(int(chosen[0][0])))
        if args.mic_gain is not None:
            if props.Get(SESSION, "IsInputGainSettable"):
                session.SetInputGain(dbus.Double(args.mic_gain))
            else:
                say("the microphone has no volume control: its gain stays")
        session.SetActive(True, dbus.UInt32(0))
    except dbus.exceptions.DBusException as error:
        # The daemon's errors carry the AVAudioSession code as a second argument.
        code = error.args[1] if len(error.args) > 1 else None
        sys.exit(f"voip_call: {error.get_dbus_name()}: {error.get_dbus_message()} (code {code})")

    route = props.Get(SESSION, "CurrentRoute")
    say(f"in call on {path}: category {props.Get(SESSION, 'Category')}, mode {props.Get(SESSION, 'Mode')}, "
        f"outputs {[str(port[0]) for port in route[1]]}, inputs {[str(port[0]) for port in route[0]]}, "
        f"speaker volume {float(props.Get(SESSION, 'OutputVolume')):.2f}, "
        f"microphone gain {float(props.Get(SESSION, 'InputGain')):.2f}")

    loop = GLib.MainLoop()

    def hang_up(*_):
        session.SetActive(False, dbus.UInt32(NOTIFY_OTHERS_ON_DEACTIVATION))
        say("call ended; others notified")
        session.Close()
        loop.quit()
        return GLib.SOURCE_REMOVE

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, hang_up)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, hang_up)
    loop.run()


if __name__ == "__main__":
    main()
