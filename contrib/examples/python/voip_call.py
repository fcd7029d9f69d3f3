#!/usr/bin/python3
"""A VoIP "call" over the audiosession D-Bus API, written from docs/dbus-api.md alone.

Creates a session, sets playAndRecord / voiceChat, activates it (music that was playing is
interrupted), prints every signal the session gets, and when it is told to stop (Ctrl-C or
SIGTERM) deactivates with notifyOthersOnDeactivation so the music resumes.

Needs the Debian package python3-dbus (and python3-gi for the GLib main loop).

    ./voip_call.py [--app NAME]
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


def say(text):
    print(text, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", default="voip-example")
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
            say(f"interruption began (reason {reason})")
        else:
            say("interruption ended" + (" shouldResume" if options & 1 else ""))

    def on_route_change(reason, previous):
        say(f"route changed (reason {reason})")

    bus.add_signal_receiver(on_interruption, "Interruption", SESSION, BUS_NAME, path)
    bus.add_signal_receiver(on_route_change, "RouteChange", SESSION, BUS_NAME, path)

    try:
        session.SetCategory("playAndRecord", "voiceChat", dbus.UInt32(0))
        session.SetActive(True, dbus.UInt32(0))
    except dbus.exceptions.DBusException as error:
        # The daemon's errors carry the AVAudioSession code as a second argument.
        code = error.args[1] if len(error.args) > 1 else None
        sys.exit(f"voip_call: {error.get_dbus_name()}: {error.get_dbus_message()} (code {code})")

    props = dbus.Interface(session_object, "org.freedesktop.DBus.Properties")
    route = props.Get(SESSION, "CurrentRoute")
    say(f"in call on {path}: category {props.Get(SESSION, 'Category')}, mode {props.Get(SESSION, 'Mode')}, "
        f"outputs {[str(port[0]) for port in route[1]]}, inputs {[str(port[0]) for port in route[0]]}")

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
