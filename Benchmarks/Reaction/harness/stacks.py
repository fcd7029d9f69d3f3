"""The systems under test, each on private daemons in a temporary directory.

- `audiosessiond`: a private PipeWire 0.3.65, audiosessiond as its only session manager (linker).
- `wireplumber`: a private PipeWire 0.3.65, WirePlumber 0.4 with its role-based endpoint policy
  enabled (the shipped, commented-out example turned on; see `wireplumber_config`), as its
  only session manager, on a private D-Bus.
- `audiosessiond-1.4`, `wireplumber-0.5`: the same on PipeWire 1.4.2, with WirePlumber 0.5.8
  and its role loopbacks (the `media-role-nodes.conf` example; see `wireplumber05_config`),
  both from the bookworm-backports prefix `scripts/fetch-pipewire-backport.sh` unpacks. Their
  clients (farms, observer) run with 1.4.2's library too, so their converters are 1.4.2's.
- `audiosessiond-1.6`, `wireplumber-0.5.12`: the same on PipeWire 1.6.9 with WirePlumber 0.5.12,
  from the Debian trixie root `scripts/fetch-pipewire-1.6.sh` makes. Its programs run through
  the wrappers beside the root; audiosessiond and the observer run on the root's libraries too
  (copies whose interpreter is the root's loader, made by scripts/bench.sh).
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


def private_copy(program, directory):
    """The daemon's binary, copied into the stack's directory: on a desktop one daemon maps its
    executable, so its code is its own (USS) and counts whole in its PSS. Daemons of several
    stacks sharing one file would each count a fraction of it, and fault each other's code in."""
    copy = os.path.join(directory, os.path.basename(program))
    shutil.copy2(program, copy)
    return copy


def backport_environment(prefix, config_dir):
    """What a program of the 1.4.2 prefix needs: its libraries, plugins, modules, configuration."""
    lib = os.path.join(prefix, "usr/lib/x86_64-linux-gnu")
    return {"LD_LIBRARY_PATH": lib, "SPA_PLUGIN_DIR": os.path.join(lib, "spa-0.2"),
            "SPA_DATA_DIR": os.path.join(prefix, "usr/share/spa-0.2"),
            "PIPEWIRE_MODULE_DIR": os.path.join(lib, "pipewire-0.3"), "PIPEWIRE_CONFIG_DIR": config_dir}


def root_environment(root, config_dir):
    """What a program of the 1.6 root needs besides its wrapper (which gives it the root's
    libraries): the root's plugins, modules and data, and the configuration."""
    lib = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    return {"SPA_PLUGIN_DIR": os.path.join(lib, "spa-0.2"), "SPA_DATA_DIR": os.path.join(root, "usr/share/spa-0.2"),
            "PIPEWIRE_MODULE_DIR": os.path.join(lib, "pipewire-0.3"), "PIPEWIRE_CONFIG_DIR": config_dir}


# The PipeWire each PipeWire system runs on.
SERIES = {"audiosessiond": "0.3", "wireplumber": "0.3", "audiosessiond-1.4": "1.4", "wireplumber-0.5": "1.4",
          "audiosessiond-1.6": "1.6", "wireplumber-0.5.12": "1.6"}


def wireplumber05_config(prefix, into):
    """WirePlumber 0.5.8's role loopbacks: the `media-role-nodes.conf` example of wireplumber-doc
    with one change, as for 0.4: `Notification` ducks what plays under it (in the example only
    Navigation ducks; Notification mixes)."""
    example = os.path.join(prefix, "usr/share/doc/wireplumber/examples/wireplumber.conf.d/media-role-nodes.conf")
    text = open(example).read()
    marker = 'node.name = "loopback.sink.role.notification"'
    start = text.index(marker)
    mix = 'policy.role-based.action.lower-priority = "mix"'
    at = text.index(mix, start)
    if at - start > 600:
        raise RuntimeError(f"{example}: the notification loopback is not the one this benchmark knows how to change")
    text = text[:at] + 'policy.role-based.action.lower-priority = "duck"' + text[at + len(mix):]
    os.makedirs(os.path.join(into, "wireplumber.conf.d"), exist_ok=True)
    open(os.path.join(into, "wireplumber.conf.d", "media-role-nodes.conf"), "w").write(text)


class PipeWireStack:
    """A private PipeWire with four virtual sinks and one session manager."""

    def __init__(self, processes, manager, binaries, root):
        self.processes = processes
        self.manager = manager
        self.binaries = binaries
        self.series = SERIES[manager]
        self.backport = self.series != "0.3"  # a PipeWire other than the system's
        self.prefix = {"1.4": binaries.get("pipewire_backport"), "1.6": binaries.get("pipewire_1_6_root")}.get(self.series)
        self.programs = binaries.get("pipewire_1_6_bin") if self.series == "1.6" else \
            os.path.join(self.prefix, "usr/bin") if self.prefix else None
        # what runs on the stack's own library: the observer and audiosessiond (1.6: copies on the root's loader)
        suffix = "-1.6" if self.series == "1.6" else ""
        self.reaction = binaries["pw-reaction" + suffix]
        self.audiosessiond = binaries["audiosessiond" + suffix]
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
        if self.backport:
            # PIPEWIRE_CONFIG_DIR replaces every other place: the stack's own files plus the bench's sinks
            server_config = os.path.join(self.directory, "server-config")
            shutil.copytree(os.path.join(self.prefix, "usr/share/pipewire"), server_config)
            os.makedirs(os.path.join(server_config, "pipewire.conf.d"), exist_ok=True)
            shutil.copy(os.path.join(CONFIG, "pipewire-bench.conf"),
                        os.path.join(server_config, "pipewire.conf.d", "50-reaction-bench.conf"))
            self.backport_env = backport_environment(self.prefix, server_config) if self.series == "1.4" \
                else root_environment(self.prefix, server_config)
        else:
            self.backport_env = {}
        self.server = None
        self.daemon = None  # the session manager under test
        self.bus = None

    @property
    def client_env(self):
        env = dict(self.env)
        env["PIPEWIRE_REMOTE"] = self.socket
        if self.backport:
            env.update(self.backport_env)  # farms and observer: 1.4.2's library and converter
        return env

    def program(self, name):
        """A PipeWire program of this stack (the prefix's on 1.4.2, the root's wrapper on 1.6.9)."""
        return os.path.join(self.programs, name) if self.backport else name

    def log(self, name):
        return os.path.join(self.logs, name + ".log")

    def start(self):
        env = dict(self.env, **self.backport_env) if self.backport else self.env
        self.server = self.processes.start(with_priority([self.program("pipewire")], "daemon"), env, self.log("pipewire"))
        wait_until(lambda: socket_accepts(self.socket), 15, "the private pipewire")
        if self.manager.startswith("audiosessiond"):
            # alone, it gives the sinks their DSP ports itself (PipeWire 1.x leaves them without)
            self._start_audiosessiond()
        elif self.manager.startswith("wireplumber-0.5"):
            self._start_wireplumber05()
        else:
            self._start_wireplumber()
        return self

    SINKS = ("speaker", "headphones", "line-out", "hdmi")

    def _node_ids(self):
        out = subprocess.run([self.program("pw-cli"), "ls", "Node"], env=self.client_env, capture_output=True,
                             text=True, timeout=10).stdout
        ids, current = {}, None
        for line in out.splitlines():
            match = re.match(r"\s*id (\d+),", line)
            if match:
                current = int(match.group(1))
            match = re.search(r'node\.name = "([^"]+)"', line)
            if match and current is not None:
                ids[match.group(1)] = current
        return ids

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
        argv = [private_copy(self.audiosessiond, self.directory), "--remote", self.socket,
                "--state-dir", os.path.join(self.directory, "state", "audiosession")]
        # on 1.6.9, the root's libpipewire loads the root's modules
        env = dict(self.env, **self.backport_env) if self.series == "1.6" else dict(self.env)
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

    def _start_wireplumber05(self):
        bus = self._start_bus()
        config = os.path.join(self.directory, "wireplumber")
        wireplumber05_config(self.prefix, config)
        lib = os.path.join(self.prefix, "usr/lib/x86_64-linux-gnu")
        data = os.path.join(self.prefix, "usr/share/wireplumber")
        env = dict(self.env, **self.backport_env)
        env.update(WIREPLUMBER_MODULE_DIR=os.path.join(lib, "wireplumber-0.5"), WIREPLUMBER_DATA_DIR=data,
                   WIREPLUMBER_CONFIG_DIR=f"{config}:{data}", DBUS_SESSION_BUS_ADDRESS=bus)
        self.daemon = self.processes.start(with_priority([self.program("wireplumber")], "daemon"), env,
                                           self.log("wireplumber"))
        wait_until(self._loopbacks_ready, 20, f"{self.manager}'s role loopbacks")

    def _loopbacks_ready(self):
        if self.daemon.poll() is not None:
            raise RuntimeError(f"wireplumber exited: see {self.daemon.log_path}")
        names = self._node_ids()
        return "input.loopback.sink.role.communication" in names and "input.loopback.sink.role.multimedia" in names

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
    """A pure PulseAudio 16 daemon (from a private prefix) with null sinks and the role modules;
    as `audiosessiond-pa`, with audiosessiond --backend pulseaudio on it (which unloads the role
    modules while it runs: its own policy decides)."""

    def __init__(self, processes, binaries, root, manager="pulseaudio"):
        self.manager = manager
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
        if self.manager == "audiosessiond-pa":
            self._start_audiosessiond()
        return self

    def _start_audiosessiond(self):
        # No session bus: the farms are no MPRIS players, and nothing here calls the API.
        argv = [private_copy(self.binaries["audiosessiond"], self.directory), "--backend", "pulseaudio", "--no-bus",
                "--pulse-server", f"unix:{self.socket}", "--state-dir", os.path.join(self.directory, "state", "audiosession")]
        env = dict(self.env)
        env["AUDIOSESSION_RULES_DIR"] = self.binaries["rules"]
        self.daemon = self.processes.start(with_priority(argv, "daemon"), env, self.log("audiosessiond"))
        wait_until(self._taken_over, 15, "audiosessiond took over the private pulseaudio")

    def _taken_over(self):
        """Its parking sink is loaded and PulseAudio's role-cork unloaded."""
        if self.daemon.poll() is not None:
            raise RuntimeError(f"audiosessiond exited at start (exit {self.daemon.returncode})")
        run = lambda what: subprocess.run(["pactl", "list", "short", what], env=self.client_env,
                                          capture_output=True, text=True, timeout=10).stdout
        return "audiosession.hold" in run("sinks") and "module-role-cork" not in run("modules")

    def stop(self):
        if self.daemon is not None:
            self.processes.stop(self.daemon)
        if self.server is not None and self.server is not self.daemon:
            self.processes.stop(self.server)
