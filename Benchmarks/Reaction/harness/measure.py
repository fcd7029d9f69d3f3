"""Scenarios on one stack: stream farms, the observer's trial loop, daemon cost, statistics."""
import csv
import math
import os
import subprocess
import time

from processes import ProcessSample, switches_between, with_priority

# the private PipeWire's sinks (config/pipewire-bench.conf): farms spread their streams over them
PIPEWIRE_SINKS = "speaker,headphones,line-out,hdmi"
# the shortest life of a trigger stream on WirePlumber 0.5.8 (see Bench.react)
TRIGGER_HOLD_0_5_MS = 300
COLUMNS = ("a_first_us", "a_all_us", "b_first_us", "b_full_us", "c_first_us", "c_all_us")


# the systems on a pure PulseAudio server: PulseAudio's own role-cork, and audiosessiond on it
PULSE_SYSTEMS = ("pulseaudio", "audiosessiond-pa")


def uses_role_loopbacks(manager):
    """WirePlumber 0.5 (0.5.8 on PipeWire 1.4.2, 0.5.12 on 1.6.9): its role policy acts on streams
    that go through its role loopbacks."""
    return manager.startswith("wireplumber-0.5")


def clients_for(streams, manager="audiosessiond"):
    """Several clients share the streams: 1 -> 1, 10 -> 2, 100 -> 4, 500 -> 20 on PipeWire (25
    streams per client at most: with 50, PipeWire 0.3.65 itself sometimes fails a client's
    activation, "invalid mem id"), 500 -> 10 on PulseAudio (with 20 clients it refuses some
    streams, "too many inputs per sink", although no sink gets more than 140 of its 256)."""
    if streams <= 1:
        return 1
    if streams <= 10:
        return 2
    if streams <= 100:
        return 4
    return 10 if manager in PULSE_SYSTEMS else 20


def percentile(values, p):
    """Nearest-rank percentile of sorted values."""
    if not values:
        return None
    rank = max(1, math.ceil(p / 100 * len(values)))
    return values[rank - 1]


def summarize(values):
    values = sorted(values)
    if not values:
        return None
    return {"n": len(values), "p50": percentile(values, 50), "p90": percentile(values, 90),
            "p99": percentile(values, 99), "max": values[-1]}


class Bench:
    def __init__(self, processes, binaries, out_dir):
        self.processes = processes
        self.binaries = binaries
        self.out_dir = out_dir

    def observer(self, stack):
        return self.binaries["pa-reaction"] if stack.manager in PULSE_SYSTEMS else stack.reaction

    # --- farms ----------------------------------------------------------------------------

    def start_farms(self, stack, streams, prefix="bench-victim"):
        farms = []
        clients = clients_for(streams, stack.manager)
        sinks = PIPEWIRE_SINKS.split(",")
        first = 0  # the streams before this farm: stream g of the run goes to sink g mod 4
        for k in range(clients):
            count = streams // clients + (1 if k < streams % clients else 0)
            if stack.manager in PULSE_SYSTEMS:
                argv = [self.observer(stack), "farm", str(count), "music", f"{prefix}-c{k}", "4"]
            elif uses_role_loopbacks(stack.manager):
                # No target: a stream that names one is linked there and never corked or ducked
                # by the role policy; these go through the Multimedia role loopback.
                argv = [self.observer(stack), "farm", str(count), "Music", f"{prefix}-c{k}"]
            else:
                # Even spread over the sinks: 0.3.65 mixes at most 128 links into one port, and
                # 500 streams given 13,13,12,12 per client put 130 on two sinks (4 never linked).
                rotated = sinks[first % len(sinks):] + sinks[:first % len(sinks)]
                argv = [self.observer(stack), "farm", str(count), "Music", f"{prefix}-c{k}", ",".join(rotated)]
            first += count
            farms.append(self.processes.start(argv, stack.client_env, stack.log(f"farm-{streams}-{k}")))
        return farms

    def stop_farms(self, farms):
        for farm in farms:
            self.processes.stop(farm)

    def wait_linked(self, stack, streams, timeout=None):
        """Runs the observer with no trials: returns once every victim plays (linked, unmuted).
        Gives up early if the daemon under test dies meanwhile."""
        timeout = timeout or 30 + 0.15 * streams
        env = dict(stack.client_env, BENCH_BASELINE_SECONDS=str(timeout))
        process = subprocess.Popen(
            [self.observer(stack), "react", "interrupt", "0", "bench-victim", str(streams)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.processes.started.append(process)
        deadline = time.monotonic() + timeout + 10
        while process.poll() is None and time.monotonic() < deadline and stack.daemon.poll() is None:
            try:
                process.wait(0.25)
            except subprocess.TimeoutExpired:
                pass
        died = stack.daemon.poll() is not None
        self.processes.stop(process)
        message = process.stderr.read().strip()
        process.stderr.close()
        if died:
            raise RuntimeError(f"{stack.manager} died (exit {stack.daemon.returncode}) while {streams} streams were linked")
        if process.returncode != 0:
            raise RuntimeError(f"{stack.manager}: {streams} streams never all played (the observer gives up after "
                               f"20 s without progress, {timeout:.0f} s at most): {message}")

    # --- the trial loop ----------------------------------------------------------------------

    def react(self, stack, scenario, trials, streams, label, duration=None, settle_ms=30):
        """Runs `trials` trials (or for `duration` seconds); returns rows and the daemon's cost."""
        csv_path = os.path.join(self.out_dir, f"{stack.manager}-{label}.csv")
        argv = [self.observer(stack), "react", scenario, str(trials), "bench-victim", str(streams), str(settle_ms)]
        if uses_role_loopbacks(stack.manager):
            # Its role policy (0.5.8 and 0.5.12 alike) leaves a victim unlinked for good when the
            # trigger goes before the trigger's own role link is active: triggers live at least
            # TRIGGER_HOLD_0_5_MS.
            argv.append(str(TRIGGER_HOLD_0_5_MS))
        before = ProcessSample(stack.daemon.pid)
        with open(csv_path, "w") as out:
            process = self.processes.start(with_priority(argv, "observer"), stack.client_env, stack.log(f"react-{label}"),
                                           stdout=out)
            limit = duration if duration is not None else 120 + trials * (1.5 if scenario == "duck" else 0.5)
            self.await_observer(stack, process, time.monotonic() + limit)
        after = ProcessSample(stack.daemon.pid) if stack.daemon.poll() is None else before
        rows = read_rows(csv_path)
        cost = {
            "cpu_ms": (after.cpu_seconds - before.cpu_seconds) * 1000,
            "switches": after.switches - before.switches,
            "rss_kib": after.rss_kib,
            "rss_before_kib": before.rss_kib,
            "seconds": after.time - before.time,
            "trials": len(rows),
            "daemon_died": stack.daemon.poll() is not None,
            "daemon_exit": stack.daemon.returncode,
        }
        if stack.daemon.poll() is not None:
            rows = [r for r in rows if not r["timeout"]]  # trials cut short by the daemon's death
            cost["trials"] = len(rows)
        return rows, cost

    def await_observer(self, stack, process, deadline):
        """Until the observer ends, the deadline passes or the daemon under test dies; then
        the observer is stopped."""
        while process.poll() is None and time.monotonic() < deadline and stack.daemon.poll() is None:
            try:
                process.wait(0.25)
            except subprocess.TimeoutExpired:
                pass
        self.processes.stop(process)

    def react_after_quiet(self, jobs, trials, streams, quiet_ms, name, stagger_s, drop_caches=False):
        """Trials that each come after `quiet_ms` in which nothing happened on the stack: one
        observer per (stack, scenario) job, all at once, the n-th started `stagger_s` after the
        one before, so no two daemons react at the same moment. Returns [(stack, scenario, rows)]."""
        running = []
        for index, (stack, scenario) in enumerate(jobs):
            if index:
                time.sleep(stagger_s)
            label = f"quiet-{scenario}-{name}"
            argv = [self.observer(stack), "react", scenario, str(trials), "bench-victim", str(streams), str(quiet_ms)]
            env = dict(stack.client_env, REACTION_DROP_CACHES="1" if drop_caches else "0")
            csv_path = os.path.join(self.out_dir, f"{stack.manager}-{label}.csv")
            out = open(csv_path, "w")
            process = self.processes.start(with_priority(argv, "observer"), env, stack.log(f"react-{label}"), stdout=out)
            running.append((stack, scenario, process, out, csv_path))
        deadline = time.monotonic() + 60 + trials * (quiet_ms / 1000 + 10)
        for stack, _, process, out, _ in running:
            self.await_observer(stack, process, deadline)
            out.close()
        return [(stack, scenario, read_rows(csv_path)) for stack, scenario, _, _, csv_path in running]

    def core_sync(self, stack, trials=1000):
        result = subprocess.run(with_priority([stack.reaction, "sync", str(trials)], "observer"),
                                env=stack.client_env,
                                capture_output=True, text=True, timeout=120)
        values = [float(r["sync_us"]) for r in csv.DictReader(result.stdout.splitlines())]
        return summarize(values)

    # --- idle and memory ---------------------------------------------------------------------

    def watch(self, pids, seconds, every=1.0):
        """Samples each pid every `every` seconds for `seconds`; returns {pid: [ProcessSample]}."""
        samples = {pid: [ProcessSample(pid)] for pid in pids}
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(min(every, max(0.0, deadline - time.monotonic())))
            for pid in pids:
                try:
                    samples[pid].append(ProcessSample(pid))
                except (FileNotFoundError, ProcessLookupError):
                    pass  # gone (reaped): check_alive reports it
        return samples


def read_rows(path):
    rows = []
    with open(path) as f:
        for row in csv.DictReader(f):
            parsed = {"trial": int(row["trial"]), "timeout": row["timeout"] == "1"}
            for column in COLUMNS + ("audible_us",):
                parsed[column] = float(row[column]) if row.get(column) else None
            # the first duck step after the trigger's first audible cycle (pw-reaction only):
            # a duck follows what is heard, so this is its onset as a listener meets it
            heard = parsed["audible_us"]
            parsed["b_heard_us"] = parsed["b_first_us"] - heard if heard is not None and parsed["b_first_us"] is not None \
                else None
            rows.append(parsed)
    return rows


def column_stats(rows, column, clamp_negative=True):
    """Statistics of one column in microseconds; negative values (PulseAudio reacting inside
    the very server dispatch that announced the trigger) count as 0."""
    values = [r[column] for r in rows if r[column] is not None]
    negatives = sum(1 for v in values if v < 0)
    if clamp_negative:
        values = [max(0.0, v) for v in values]
    stats = summarize(values)
    if stats is not None:
        stats["missing"] = len(rows) - len(values)
        stats["negative"] = negatives
    return stats


def usage_summary(samples):
    """Cost over a sampled window: CPU ms, context switches per second, RSS first/last/max.
    Samples taken after the process died (no threads left) are left out."""
    alive = [s for s in samples if s.threads and s.rss_kib > 0] or samples[:1]
    first, last = alive[0], alive[-1]
    seconds = last.time - first.time
    voluntary, involuntary = switches_between(alive)
    return {
        "seconds": seconds,
        "cpu_ms": (last.cpu_seconds - first.cpu_seconds) * 1000,
        "wakeups_per_s": (voluntary + involuntary) / seconds if seconds > 0 else None,
        "voluntary_per_s": voluntary / seconds if seconds > 0 else None,
        "rss_first_kib": first.rss_kib,
        "rss_last_kib": last.rss_kib,
        "rss_max_kib": max(s.rss_kib for s in alive),
        "died": len(alive) < len(samples),
    }
