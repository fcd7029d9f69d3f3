"""Processes the benchmark starts: each in its own session, every one stopped by PID.

Nothing here looks processes up by name: a `Processes` registry remembers what it started
and `stop_all()` (also run at exit and on SIGINT/SIGTERM) terminates exactly those.
"""
import atexit
import os
import signal
import socket
import subprocess
import time


class Processes:
    def __init__(self):
        self.started = []
        atexit.register(self.stop_all)
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, self._on_signal)

    def _on_signal(self, number, frame):
        self.stop_all()
        raise SystemExit(128 + number)

    def start(self, argv, env, log_path, stdout=None):
        """Starts argv in a new session; stderr (and stdout unless captured) go to log_path."""
        log = open(log_path, "ab")
        process = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL,
            stdout=stdout if stdout is not None else log, stderr=log,
            start_new_session=True, close_fds=True)
        process.log_path = log_path
        self.started.append(process)
        return process

    def stop(self, process, timeout=5.0):
        """SIGTERM the process by PID, SIGKILL it if it has not gone within timeout."""
        if process.poll() is None:
            try:
                os.kill(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.kill(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout)
        if process in self.started:
            self.started.remove(process)

    def stop_all(self):
        for process in reversed(list(self.started)):
            self.stop(process)


def with_priority(argv, role):
    """The same treatment for every system: on a shared machine the observer runs SCHED_FIFO so
    its timestamps are not late, and the audio servers and session managers under test run at
    nice -10 so other people's builds disturb them less. Stream farms stay at nice 0. Only
    when allowed (root); otherwise argv is unchanged."""
    if os.geteuid() != 0:
        return argv
    if role == "observer":
        return ["chrt", "-f", "10"] + argv
    if role == "daemon":
        return ["nice", "-n", "-10"] + argv
    return argv


def wait_until(condition, timeout, what):
    """Polls condition (a cheap check) until it is true; raises after timeout seconds."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        if condition():
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def socket_accepts(path):
    if not os.path.exists(path):
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
            return True
        except OSError:
            return False


class ProcessSample:
    """CPU time, context switches (all threads) and RSS of one process, from /proc."""

    TICKS = os.sysconf("SC_CLK_TCK")

    def __init__(self, pid):
        self.time = time.monotonic()
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # fields[0] is state (field 3); utime and stime are fields 14 and 15
        self.cpu_seconds = (int(fields[11]) + int(fields[12])) / self.TICKS
        self.rss_kib = 0
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    self.rss_kib = int(line.split()[1])
        # per thread, so that a thread ending inside a window does not make the sum go down
        self.threads = {}
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except FileNotFoundError:
            tasks = []
        for task in tasks:
            voluntary = involuntary = 0
            try:
                with open(f"/proc/{pid}/task/{task}/status") as f:
                    for line in f:
                        if line.startswith("voluntary_ctxt_switches:"):
                            voluntary = int(line.split()[1])
                        elif line.startswith("nonvoluntary_ctxt_switches:"):
                            involuntary = int(line.split()[1])
            except FileNotFoundError:
                continue  # a thread that ended between listdir and open
            self.threads[task] = (voluntary, involuntary)
        self.voluntary = sum(v for v, _ in self.threads.values())
        self.involuntary = sum(i for _, i in self.threads.values())

    @property
    def switches(self):
        return self.voluntary + self.involuntary


def switches_between(samples):
    """Context switches (voluntary, involuntary) over a series of samples, thread by thread:
    a thread's last seen count minus its first (0 for threads born inside the window)."""
    first_seen, last_seen = {}, {}
    for sample in samples:
        for tid, counts in sample.threads.items():
            first_seen.setdefault(tid, counts if sample is samples[0] else (0, 0))
            last_seen[tid] = counts
    voluntary = sum(last_seen[t][0] - first_seen[t][0] for t in last_seen)
    involuntary = sum(last_seen[t][1] - first_seen[t][1] for t in last_seen)
    return voluntary, involuntary


def memory_footprint_kib(pid):
    """What a process costs the machine, from /proc/PID/smaps_rollup: RSS; PSS (each page divided
    by the processes that map it); USS (pages no other process maps: private clean + dirty, so a
    file page only this process maps, such as its own executable's code, counts too); swap."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    return {"rss_kib": fields.get("Rss", 0), "pss_kib": fields.get("Pss", 0),
            "uss_kib": fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0),
            "pss_anon_kib": fields.get("Pss_Anon", 0), "pss_file_kib": fields.get("Pss_File", 0),
            "swap_kib": fields.get("Swap", 0)}
