"""The three systems under test, each on private daemons in a temporary directory.

- `audiosessiond`: a private PipeWire, audiosessiond as its only session manager (linker).
- `wireplumber`: a private PipeWire, WirePlumber 0.4 with its role-based endpoint policy
  enabled (the shipped, commented-out example turned on; see `wireplumber_config`), as its
  only session manager, on a private D-Bus.
- `pulseaudio`: a pure PulseAudio 16 daemon with null sinks, module-role-cork and
  module-role-ducking.

Clients get an environment with only the stack's runtime dir: nothing reaches the user's
audio session or session bus.
"""
import os
import re
import shutil
import subprocess
import tempfile

from processes import socket_accepts, wait_until, with_priority

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(os.path.dirname(HERE), "config")


def base_environment():
    env = {k: os.environ[k] for k in ("PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR") if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["PIPEWIRE_LOG_SYSTEMD"] = "false"
    env["DISABLE_RTKIT"] = "1"
    return env


def wireplumber_config(into):
    """The installed WirePlumber 0.4 config with its role-based endpoints enabled.

    Two documented changes to the shipped example, so that the scenarios mean the same on
    every system: Multimedia streams mix with each other (the example corks all but the
    newest Music stream, which would make "100 music streams" impossible), and Notification
    is an alias of Navigation, the one role whose default action is duck.
    """
    shutil.copytree("/usr/share/wireplumber", into)
    path = os.path.join(into, "policy.lua.d", "50-endpoints-config.lua")
    text = open(path).read()
    enabled = text.replace("--[[", "", 1).replace("]]--", "", 1)
    enabled, mixes = re.subn(
        r'(\["alias"\] = \{ "Movie", "Music", "Game" \},\n\s*\["priority"\] = 25,\n\s*\["action.default"\] = "cork",)',
        r'\1\n    ["action.Multimedia"] = "mix",', enabled, count=1)
    enabled, ducks = re.subn(
        r'(\["Navigation"\] = \{\n)', r'\1    ["alias"] = { "Notification" },\n', enabled, count=1)
    if enabled == text or mixes != 1 or ducks != 1:
        raise RuntimeError(f"{path}: the endpoint example is not the one this benchmark knows how to enable")
    open(path, "w").write(enabled)


class PipeWireStack:
    """A private PipeWire with two virtual sinks and one session manager."""

    def __init__(self, processes, manager, binaries, root):
        self.processes = processes
        self.manager = manager
        self.binaries = binaries
        self.directory = tempfile.mkdtemp(prefix=f"reaction-{manager}-", dir=root)
        self.runtime = os.path.join(self.directory, "runtime")
        self.logs = os.path.join(self.directory, "logs")
        config_home = os.path.join(self.directory, "config")
        for d in (self.runtime, self.logs, os.path.join(config_home, "pipewire", "pipewire.conf.d")):
            os.makedirs(d, mode=0o700, exist_ok=True)
        shutil.copy(os.path.join(CONFIG, "pipewire-bench.conf"),
                    os.path.join(config_home, "pipewire", "pipewire.conf.d", "50-reaction-bench.conf"))
        self.env = base_environment()
        self.env.update(XDG_RUNTIME_DIR=self.runtime, XDG_CONFIG_HOME=config_home,
                        XDG_STATE_HOME=os.path.join(self.directory, "state"), PIPEWIRE_RUNTIME_DIR=self.runtime)
        self.socket = os.path.join(self.runtime, "pipewire-0")
        self.server = None
        self.daemon = None  # the session manager under test
        self.bus = None

    @property
    def client_env(self):
        env = dict(self.env)
        env["PIPEWIRE_REMOTE"] = self.socket
        return env

    def log(self, name):
        return os.path.join(self.logs, name + ".log")

    def start(self):
        self.server = self.processes.start(with_priority(["pipewire"], "daemon"), self.env, self.log("pipewire"))
        wait_until(lambda: socket_accepts(self.socket), 15, "the private pipewire")
        if self.manager == "audiosessiond":
            self._start_audiosessiond()
        else:
            self._start_wireplumber()
        return self

    def _start_bus(self):
        """A private session bus: both session managers run as on a desktop (audiosessiond serves
        its session API and watches MPRIS players there; WirePlumber needs one too)."""
        bus_socket = os.path.join(self.runtime, "bus")
        self.bus = self.processes.start(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address=unix:path={bus_socket}"],
            self.env, self.log("dbus"))
        wait_until(lambda: socket_accepts(bus_socket), 10, "the private session bus")
        return f"unix:path={bus_socket}"

    def _start_audiosessiond(self):
        argv = [self.binaries["audiosessiond"], "--remote", self.socket,
                "--state-dir", os.path.join(self.directory, "state", "audiosession")]
        env = dict(self.env)
        env["AUDIOSESSION_RULES_DIR"] = self.binaries["rules"]
        env["DBUS_SESSION_BUS_ADDRESS"] = self._start_bus()
        self.daemon = self.processes.start(with_priority(argv, "daemon"), env, self.log("audiosessiond"))

    def _start_wireplumber(self):
        bus = self._start_bus()
        config = os.path.join(self.directory, "wireplumber")
        wireplumber_config(config)
        env = dict(self.env)
        env.update(WIREPLUMBER_CONFIG_DIR=config, DBUS_SESSION_BUS_ADDRESS=bus)
        self.daemon = self.processes.start(with_priority(["wireplumber"], "daemon"), env, self.log("wireplumber"))
        # the endpoints exist once WirePlumber has set up its policy
        wait_until(self._endpoints_ready, 20, "WirePlumber's role endpoints")

    def _endpoints_ready(self):
        if self.daemon.poll() is not None:
            raise RuntimeError(f"wireplumber exited: see {self.daemon.log_path}")
        out = subprocess.run(["pw-cli", "ls", "Node"], env=self.client_env, capture_output=True, text=True,
                             timeout=10).stdout
        return "control.endpoint.communication" in out and "control.endpoint.multimedia" in out

    def stop(self):
        for process in (self.daemon, self.bus, self.server):
            if process is not None:
                self.processes.stop(process)


class PulseStack:
    """A pure PulseAudio 16 daemon (from a private prefix) with null sinks and the role modules."""

    manager = "pulseaudio"

    def __init__(self, processes, binaries, root):
        self.processes = processes
        self.binaries = binaries
        self.directory = tempfile.mkdtemp(prefix="reaction-pulseaudio-", dir=root)
        self.runtime = os.path.join(self.directory, "runtime")
        self.logs = os.path.join(self.directory, "logs")
        home = os.path.join(self.directory, "home")
        for d in (self.runtime, self.logs, home):
            os.makedirs(d, mode=0o700, exist_ok=True)
        self.env = base_environment()
        self.env.update(HOME=home, XDG_RUNTIME_DIR=self.runtime, XDG_CONFIG_HOME=os.path.join(home, ".config"))
        self.socket = os.path.join(self.runtime, "pulse", "native")
        self.daemon = None
        self.server = None

    @property
    def client_env(self):
        env = dict(self.env)
        env["PULSE_SERVER"] = f"unix:{self.socket}"
        return env

    def log(self, name):
        return os.path.join(self.logs, name + ".log")

    def start(self):
        prefix = self.binaries["pulseaudio_prefix"]
        modules = self.binaries["pulseaudio_modules"]
        env = dict(self.env)
        env["LD_LIBRARY_PATH"] = ":".join(
            [modules, os.path.join(prefix, "usr/lib/x86_64-linux-gnu/pulseaudio"), os.path.join(prefix, "usr/lib/x86_64-linux-gnu")])
        argv = [os.path.join(prefix, "usr/bin/pulseaudio"), "--daemonize=no", "-n",
                "-F", os.path.join(CONFIG, "pulseaudio-bench.pa"), "-p", modules, "--exit-idle-time=-1",
                "--use-pid-file=no", "--system=no", "--log-target=stderr",
                # no SCHED_FIFO: as root it would get it, and RLIMIT_RTTIME kills it (SIGKILL) when
                # 500 streams keep its IO thread busy; the PipeWire daemons here run without RT too
                "--realtime=no", "--high-priority=no"]
        self.daemon = self.processes.start(with_priority(argv, "daemon"), env, self.log("pulseaudio"))
        self.server = self.daemon
        wait_until(lambda: socket_accepts(self.socket), 15, "the private pulseaudio")
        return self

    def stop(self):
        if self.daemon is not None:
            self.processes.stop(self.daemon)
