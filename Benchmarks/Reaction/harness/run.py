"""The side-by-side reaction benchmark: audiosessiond and WirePlumber 0.4 endpoints on PipeWire
0.3.65, audiosessiond and WirePlumber 0.5.8 role loopbacks on PipeWire 1.4.2, PulseAudio 16.

Usage: run.py --binaries binaries.json --out DIR [--profile full|quick] [--only SYSTEM,... [--streams N,...]]

--only runs just those systems' scales (no idle minute, no churn) and prints each scale's
figures: for working on one daemon's reaction. Its results are not a report.

Writes DIR/results.json (every number the report uses) and DIR/*.csv (every trial). The
report (BENCHMARKS.md, the plot) is made from results.json by report.py.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import tempfile
import threading
import time

from measure import PULSE_SYSTEMS, Bench, clients_for, column_stats, read_rows, usage_summary
from processes import ProcessSample, Processes, memory_footprint_kib, with_priority
from stacks import PipeWireStack, PulseStack

PROFILES = {
    # interrupt trials per scale (streams -> trials), duck trials per scale, a time cap per run
    # (the trials done by then are the result, and the table says how many), seconds of idle
    # and churn. "full" takes about 13 minutes of measurement on the 2-core machine.
    "full": {"trials": {1: 200, 10: 200, 100: 200, 500: 50}, "duck": {1: 200, 100: 20},
             # the reflex floor, on audiosessiond's stacks (see REFLEX_SYSTEMS)
             "reflex": {1: 100, 10: 100, 100: 100}, "reflex_1.4": {1: 50, 10: 50, 100: 50},
             "cap_interrupt": 45, "cap_duck": 180, "idle": 60, "churn": 60,
             # the PipeWire 1.4.2 pair: fewer trials, so the whole run stays near 20 minutes
             "trials_1.4": {1: 100, 10: 100, 100: 100}, "duck_1.4": {1: 50, 100: 10},
             "cap_interrupt_1.4": 30, "cap_duck_1.4": 60,
             # the first reaction after a quiet spell: (quiet seconds, trials, page cache dropped)
             "quiet": [(5, 3, False), (60, 2, False), (60, 1, True)]},
    "quick": {"trials": {1: 20, 10: 20, 100: 20}, "duck": {1: 10},
              "cap_interrupt": 30, "cap_duck": 30, "idle": 10, "churn": 10,
              "trials_1.4": {1: 10, 10: 10}, "duck_1.4": {1: 5}, "cap_interrupt_1.4": 20, "cap_duck_1.4": 20,
              "reflex": {1: 10, 100: 10}, "reflex_1.4": {1: 5}, "quiet": [(5, 1, False), (5, 1, True)]},
}
# the systems measured on PipeWire 1.4.2 (from the backport prefix) and 1.6.9 (the trixie root),
# each with the "_1.4" trial counts
ON_1_4 = ("audiosessiond-1.4", "wireplumber-0.5")
ON_1_6 = ("audiosessiond-1.6", "wireplumber-0.5.12")
NEWER = ON_1_4 + ON_1_6
CHURN = {"steady": 100, "alive": 20, "rate": 10.0}
# where the reflex floor is measured: an interrupt whose first victim the observer cuts off
# itself as it sees the call (pw-reaction's `reflex`), beside audiosessiond, which holds the
# other victims and gives every link back
REFLEX_SYSTEMS = ("audiosessiond", "audiosessiond-1.4", "audiosessiond-1.6")
# where the first reaction after a quiet spell is measured, at this many streams (as the idle
# minute), and how far apart the stacks' trials are
QUIET_SYSTEMS = ("audiosessiond", "audiosessiond-1.4", "audiosessiond-1.6", "audiosessiond-pa")
QUIET_STREAMS = 10
QUIET_STAGGER_S = 5.0


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def command_output(argv, env=None):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30, env=env).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine(binaries):
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        memory_kib = int(f.readline().split()[1])
    pulse_env = {"LD_LIBRARY_PATH": binaries["pulseaudio_modules"] + ":" +
                 os.path.join(binaries["pulseaudio_prefix"], "usr/lib/x86_64-linux-gnu/pulseaudio") + ":" +
                 os.path.join(binaries["pulseaudio_prefix"], "usr/lib/x86_64-linux-gnu"), "PATH": "/usr/bin:/bin"}
    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(memory_kib / 1048576, 1),
        "kernel": platform.release(), "os": command_output(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]),
        "pipewire": command_output(["pipewire", "--version"]).splitlines()[-1:],
        "wireplumber": command_output(["wireplumber", "--version"]).splitlines()[-1:],
        "backport": open(os.path.join(binaries["pipewire_backport"], ".audiosession-backport")).read().strip()
        if binaries.get("pipewire_backport") else "",
        "root_1_6": binaries.get("pipewire_1_6_versions", ""),
        "pulseaudio": command_output([os.path.join(binaries["pulseaudio_prefix"], "usr/bin/pulseaudio"), "--version"],
                                     env=pulse_env),
        "swift": command_output(["swift", "--version"]).splitlines()[:1],
        "commit": binaries.get("commit", ""),
    }


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


class Run:
    def __init__(self, profile, binaries, out_dir, only=None, streams=None):
        self.profile = PROFILES[profile]
        self.only = only
        self.streams = streams
        self.binaries = binaries
        self.out_dir = out_dir
        self.processes = Processes()
        self.bench = Bench(self.processes, binaries, out_dir)
        self.root = tempfile.mkdtemp(prefix="reaction-bench-")
        self.results = {"profile": profile, "machine": machine(binaries), "load_start": loadavg(),
                        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "systems": {},
                        "priorities": os.geteuid() == 0}

    def trials(self, manager):
        """Interrupt trials per scale for this system."""
        if manager == "audiosessiond-pa":
            # a parking sink takes at most 256 streams, like any PulseAudio sink: not 500
            trials = {n: t for n, t in self.profile["trials"].items() if n <= 100}
        else:
            trials = self.profile["trials_1.4"] if manager in NEWER else self.profile["trials"]
        if self.streams:
            trials = {n: trials.get(n, self.profile["trials"].get(n, 100)) for n in self.streams}
        return trials

    def run_only(self):
        """Only the scales of the systems asked for, each printed as it ends."""
        def scales():
            for manager in self.only:
                for streams in self.trials(manager):
                    self.guarded(manager, f"{streams} streams", lambda: self.scale(manager, streams))
                    self.print_scale(manager, streams)
        self.run_part(scales)

    def run_quiet_only(self):
        """Only the first reactions after a quiet spell, of the systems asked for."""
        self.run_part(lambda: self.after_quiet(self.only))

    def run_part(self, work):
        """Runs `work` for the systems asked for; stops what it started; writes the results."""
        self.all_stacks = []
        for manager in self.only:
            self.results["systems"][manager] = {"scales": {}, "duck": {}, "deaths": []}
        try:
            work()
        finally:
            for stack in self.all_stacks:
                stack.stop()
            self.processes.stop_all()
            self.keep_logs()
        with open(os.path.join(self.out_dir, "results.json"), "w") as f:
            json.dump(self.results, f, indent=1)

    def print_scale(self, manager, streams):
        system = self.results["systems"][manager]

        def ms(summary, column, quantile="p50"):
            stats = (summary or {}).get(column)
            return f"{stats[quantile] / 1000:.3f}" if stats else "-"
        scale, duck = system["scales"].get(str(streams)), system["duck"].get(str(streams))
        reflex = system.get("reflex", {}).get(str(streams))
        if reflex:
            log(f"{manager}, {streams} streams, {reflex['trials']} reflex trials: first victim p50 "
                f"{ms(reflex, 'a_first_us')} p90 {ms(reflex, 'a_first_us', 'p90')} ms")
        if scale:
            log(f"{manager}, {streams} streams, {scale['trials']} interrupts: first victim p50 {ms(scale, 'a_first_us')} "
                f"p90 {ms(scale, 'a_first_us', 'p90')} ms, every victim p50 {ms(scale, 'a_all_us')} ms, "
                f"every victim back p50 {ms(scale, 'c_all_us')} ms, CPU {scale.get('cpu_ms_per_trial', 0):.2f} ms/trial")
        if duck:
            log(f"{manager}, {streams} streams, {duck['trials']} ducks: first step p50 {ms(duck, 'b_first_us')} ms "
                f"({ms(duck, 'b_heard_us')} ms after the first audible cycle), "
                f"every victim ducked p50 {ms(duck, 'b_full_us')} ms, back p50 {ms(duck, 'c_all_us')} ms, "
                f"CPU {duck.get('cpu_ms_per_trial', 0):.2f} ms/trial")

    def new_stack(self, manager):
        if manager in PULSE_SYSTEMS:
            stack = PulseStack(self.processes, self.binaries, self.root, manager)
        else:
            stack = PipeWireStack(self.processes, manager, self.binaries, self.root)
        self.all_stacks.append(stack)
        return stack.start()

    def run(self):
        started = time.monotonic()
        self.all_stacks = []
        self.idle_ready = threading.Event()
        managers = ("audiosessiond", "wireplumber", "pulseaudio") + (ON_1_4 if self.binaries.get("pipewire_backport") else ()) \
            + (ON_1_6 if self.binaries.get("pipewire_1_6_root") else ()) + ("audiosessiond-pa",)
        for manager in managers:
            self.results["systems"][manager] = {"scales": {}, "duck": {}, "deaths": []}
        try:
            # The idle minute overlaps PulseAudio's scales: an idle daemon gets no events from
            # another server's activity, so its wake-ups, CPU and RSS are its own; this keeps
            # the whole run under 15 minutes from a fresh checkout.
            idle = threading.Thread(target=self.guarded_idle, args=(managers,))
            idle.start()
            self.idle_ready.wait()
            for manager in ("pulseaudio", "audiosessiond", "wireplumber") + managers[3:]:
                if manager == "audiosessiond":
                    idle.join()
                for streams in self.trials(manager):
                    self.guarded(manager, f"{streams} streams", lambda: self.scale(manager, streams))
            for manager in managers[:2]:
                self.guarded(manager, "churn", lambda: self.churn(manager))
            self.guarded("audiosessiond", "after a quiet spell", lambda: self.after_quiet(managers))
        finally:
            for stack in self.all_stacks:
                stack.stop()
            self.processes.stop_all()
            self.keep_logs()
        self.results["load_end"] = loadavg()
        self.results["wall_seconds"] = time.monotonic() - started
        with open(os.path.join(self.out_dir, "results.json"), "w") as f:
            json.dump(self.results, f, indent=1)
        log(f"done in {self.results['wall_seconds']:.0f} s")

    def keep_logs(self):
        """Moves every stack's logs next to the results and removes the temporary daemons' dirs."""
        for stack in self.all_stacks:
            target = os.path.join(self.out_dir, "logs", os.path.basename(stack.directory))
            shutil.copytree(stack.logs, target, dirs_exist_ok=True)
        shutil.rmtree(self.root, ignore_errors=True)

    def guarded(self, manager, phase, work):
        """Runs one phase; a failure is recorded and the run goes on with the next phase."""
        started_before = {id(process) for process in self.processes.started}
        try:
            work()
        except Exception as error:  # noqa: BLE001 - any failure of one phase is a result to report
            log(f"{manager}: {phase} failed: {error}")
            self.results["systems"][manager].setdefault("errors", []).append({"phase": phase, "error": str(error)})
            for stack in self.all_stacks:
                if stack.manager == manager and stack.daemon is not None:
                    if stack.daemon.returncode is None:  # not stopped by us yet: did it die?
                        self.check_alive(stack, phase)
                    stack.stop()
            # only what this phase started: the idle minute's daemons may still be watched
            for process in [p for p in self.processes.started if id(p) not in started_before]:
                self.processes.stop(process)

    def check_alive(self, stack, phase):
        if stack.daemon.poll() is not None:
            death = {"phase": phase, "exit": stack.daemon.returncode, "log": stack.daemon.log_path}
            self.results["systems"][stack.manager]["deaths"].append(death)
            log(f"{stack.manager} DIED during {phase} (exit {stack.daemon.returncode})")

    def guarded_idle(self, managers):
        try:
            self.idle(managers)
        except Exception as error:  # reported, and the rest of the run goes on
            log(f"idle: FAILED ({error})")
            self.results["idle_error"] = str(error)
            self.idle_ready.set()

    def idle(self, managers):
        """Every daemon with a steady graph of 10 playing streams, watched side by side."""
        try:
            stacks = [self.new_stack(manager) for manager in managers]
            # At rest: past every daemon's start-up (audiosessiond unmaps its start-up code a
            # second after it attached), the same wait for all.
            time.sleep(3)
            for stack in stacks:
                self.results["systems"][stack.manager]["rss_empty_kib"] = ProcessSample(stack.daemon.pid).rss_kib
            farms = {stack.manager: self.bench.start_farms(stack, 10) for stack in stacks}
            for stack in stacks:
                self.bench.wait_linked(stack, 10)
            time.sleep(2)  # let every daemon finish its own reaction to the new streams
        finally:
            self.idle_ready.set()
        log(f"idle: watching {len(stacks)} daemons for {self.profile['idle']} s")
        samples = self.bench.watch([s.daemon.pid for s in stacks], self.profile["idle"])
        for stack in stacks:
            self.results["systems"][stack.manager]["idle"] = usage_summary(samples[stack.daemon.pid])
            if stack.daemon.poll() is None:
                self.results["systems"][stack.manager]["memory_idle"] = memory_footprint_kib(stack.daemon.pid)
            self.bench.stop_farms(farms[stack.manager])
            stack.stop()

    def after_quiet(self, managers):
        """The first reaction after a quiet spell: the daemon unmaps its code after a second of
        rest, and a call or a notification on a desktop almost always comes after minutes of it.
        Two stacks per system (one for calls, one for notifications), QUIET_STREAMS playing on
        each; every trial comes after the spell, with nothing on the stack meanwhile. Short
        spells stack by stack; long ones on every stack at once, staggered. Once with the page
        cache dropped just before the trigger, as after a busy desktop reclaimed it. On the
        PipeWire stacks a third stack measures the reflex floor after the same spell: what the
        server and the kernel alone make of a quiet spell, beside what the daemon's own code
        costs."""
        systems = [m for m in QUIET_SYSTEMS if m in managers]
        streams = QUIET_STREAMS
        pairs = []
        for manager in systems:
            for scenario in ("interrupt", "duck") + (("reflex",) if manager in REFLEX_SYSTEMS else ()):
                stack = self.new_stack(manager)
                farms = self.bench.start_farms(stack, streams)
                self.bench.wait_linked(stack, streams)
                pairs.append((stack, scenario, farms))
        jobs = [(stack, scenario) for stack, scenario, _ in pairs]
        time.sleep(2)  # past every daemon's release at rest (a second after its last event)
        for stack, scenario, _ in pairs:
            if scenario == "interrupt" and stack.daemon.poll() is None:
                memory = memory_footprint_kib(stack.daemon.pid)
                self.results["systems"][stack.manager]["memory_quiet"] = memory
                log(f"{stack.manager}: at rest with {streams} streams: RSS {memory['rss_kib'] / 1024:.1f} MiB, "
                    f"PSS {memory['pss_kib'] / 1024:.1f} MiB, USS {memory['uss_kib'] / 1024:.1f} MiB")
        for quiet_s, trials, dropped in self.profile["quiet"]:
            name = f"{quiet_s}s" + ("-dropped" if dropped else "")
            log(f"after a quiet spell: {trials} trials after {quiet_s} s" + (", page cache dropped" if dropped else ""))
            if quiet_s < QUIET_STAGGER_S * len(jobs):
                # one stack at a time: the spell is shorter than the stagger would be
                results = [result for job in jobs for result in self.bench.react_after_quiet(
                    [job], trials, streams, quiet_s * 1000, name, 0, dropped)]
            else:
                results = self.bench.react_after_quiet(jobs, trials, streams, quiet_s * 1000, name,
                                                       QUIET_STAGGER_S, dropped)
            for stack, scenario, rows in results:
                column = "a_first_us" if scenario in ("interrupt", "reflex") else "b_first_us"
                values = [r[column] for r in rows if r[column] is not None and not r["timeout"]]
                entry = self.results["systems"][stack.manager].setdefault("after_quiet", {}).setdefault(name, {})
                entry[scenario] = {"values_us": values, "trials": len(rows), "timeouts": sum(1 for r in rows if r["timeout"])}
                log(f"{stack.manager}: {scenario} after {name}: " + (", ".join(f"{v / 1000:.3f}" for v in values) or "-") + " ms")
        for stack, _, farms in pairs:
            self.bench.stop_farms(farms)
            stack.stop()

    def scale(self, manager, streams):
        """One scale on a fresh stack, so each scale starts from the same clean daemon."""
        system = self.results["systems"][manager]
        stack = self.new_stack(manager)
        if manager not in PULSE_SYSTEMS and "core_sync" not in system:
            system["core_sync"] = self.bench.core_sync(stack)
            log(f"{manager}: pw_core_sync p50 {system['core_sync']['p50']:.0f} us")
        farms = self.bench.start_farms(stack, streams)
        try:
            self.bench.wait_linked(stack, streams)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            if streams > 100:
                raise
            # once, on a fresh stack: record it, it says something about the system too
            log(f"{manager}: {streams} streams not all playing ({error}); once more on a fresh stack")
            system.setdefault("retries", []).append({"phase": f"{streams} streams", "error": str(error)})
            self.bench.stop_farms(farms)
            stack.stop()
            stack = self.new_stack(manager)
            farms = self.bench.start_farms(stack, streams)
            self.bench.wait_linked(stack, streams)
        log(f"{manager}: {streams} streams from {clients_for(streams, manager)} clients, interrupt")
        on_1_4 = manager in NEWER
        rows, cost = self.bench.react(stack, "interrupt", self.trials(manager)[streams], streams,
                                      f"interrupt-{streams}",
                                      duration=self.profile["cap_interrupt_1.4" if on_1_4 else "cap_interrupt"])
        system["scales"][str(streams)] = self.summary(rows, cost, "interrupt")
        self.check_alive(stack, f"interrupt, {streams} streams")
        duck_trials = self.profile["duck_1.4" if on_1_4 else "duck"].get(streams)
        # PulseAudio's role-ducking changes a volume factor no client can see: not timed
        if duck_trials and manager != "pulseaudio" and stack.daemon.poll() is None:
            log(f"{manager}: {streams} streams, duck")
            # Trials 30 ms apart on every stack: a notification right after another, so a duck
            # undone mid-ramp must turn around and end exactly (the restore is every victim back
            # at 1.0).
            rows, cost = self.bench.react(stack, "duck", duck_trials, streams,
                                          f"duck-{streams}", settle_ms=30,
                                          duration=self.profile["cap_duck_1.4" if on_1_4 else "cap_duck"])
            system["duck"][str(streams)] = self.summary(rows, cost, "duck")
            self.check_alive(stack, f"duck, {streams} streams")
        # The reflex floor last: its observer cuts a victim's links itself, and a victim whose
        # links another client removed is not always linked again (the daemon did not hold it
        # yet, so it has nothing to give back): on 2026-11-27 that left the victim silent after
        # 7-37 reflex trials at 1 stream, and the duck after it measured nothing.
        reflex_trials = self.profile["reflex_1.4" if on_1_4 else "reflex"].get(streams)
        if manager in REFLEX_SYSTEMS and reflex_trials and stack.daemon.poll() is None:
            log(f"{manager}: {streams} streams, the reflex floor")
            rows, cost = self.bench.react(stack, "reflex", reflex_trials, streams, f"reflex-{streams}",
                                          duration=self.profile["cap_interrupt_1.4" if on_1_4 else "cap_interrupt"])
            system.setdefault("reflex", {})[str(streams)] = self.summary(rows, cost, "interrupt")
            self.check_alive(stack, f"reflex, {streams} streams")
        self.bench.stop_farms(farms)
        stack.stop()

    def churn(self, manager):
        """100 steady streams, 20 more replaced at 10 per second, interrupt trials throughout."""
        seconds = self.profile["churn"]
        stack = self.new_stack(manager)
        farms = self.bench.start_farms(stack, CHURN["steady"])
        self.bench.wait_linked(stack, CHURN["steady"])
        churn = self.processes.start(
            [stack.reaction, "churn", str(CHURN["rate"]), str(CHURN["alive"]), "Music", "bench-churn"],
            stack.client_env, stack.log("churn"))
        time.sleep(1)
        log(f"{manager}: churn for {seconds} s")
        csv_path = os.path.join(self.out_dir, f"{manager}-churn.csv")
        with open(csv_path, "w") as out:
            observer = self.processes.start(
                with_priority([stack.reaction, "react", "interrupt", "1000000", "bench-victim",
                               str(CHURN["steady"]), "30"], "observer"),
                stack.client_env, stack.log("react-churn"), stdout=out)
            samples = self.bench.watch([stack.daemon.pid], seconds)[stack.daemon.pid]
            self.processes.stop(observer)
        self.processes.stop(churn)
        self.bench.stop_farms(farms)
        self.check_alive(stack, "churn")
        rows = read_rows(csv_path)
        if stack.daemon.poll() is not None:
            rows = [r for r in rows if not r["timeout"]]
        summary = self.summary(rows, None, "interrupt")
        summary["usage"] = usage_summary(samples)
        summary["rss_series_kib"] = [s.rss_kib for s in samples]
        summary["streams_replaced"] = int(seconds * CHURN["rate"])
        self.results["systems"][manager]["churn"] = summary
        stack.stop()

    def summary(self, rows, cost, scenario):
        columns = ("a_first_us", "a_all_us", "c_first_us", "c_all_us") if scenario == "interrupt" else \
                  ("b_first_us", "b_heard_us", "b_full_us", "c_first_us", "c_all_us")
        result = {"trials": len(rows), "timeouts": sum(1 for r in rows if r["timeout"]), "cost": cost}
        # A timed-out trial is left out of every percentile, as the report says: a first victim
        # seen in a trial whose every victim never was (WirePlumber 0.5.8 at 100 streams: one
        # value in seven trials) is no p50 of anything.
        rows = [r for r in rows if not r["timeout"]]
        for column in columns:
            result[column] = column_stats(rows, column)
        if cost and cost["trials"] and not cost.get("daemon_died"):
            result["cpu_ms_per_trial"] = cost["cpu_ms"] / cost["trials"]
        # drift: the same reaction early and late in one daemon's life
        key = "a_first_us" if scenario == "interrupt" else "b_first_us"
        if len(rows) >= 100:
            result["early_p50_us"] = column_stats(rows[:50], key)["p50"] if column_stats(rows[:50], key) else None
            result["late_p50_us"] = column_stats(rows[-50:], key)["p50"] if column_stats(rows[-50:], key) else None
        return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binaries", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--profile", default="full", choices=sorted(PROFILES))
    parser.add_argument("--only", help="comma-separated systems, e.g. audiosessiond,audiosessiond-1.4")
    parser.add_argument("--streams", help="comma-separated scales, e.g. 100; or `quiet`: only the first "
                                          "reaction after a quiet spell")
    args = parser.parse_args()
    with open(args.binaries) as f:
        binaries = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    only = args.only.split(",") if args.only else None
    quiet_only = args.streams == "quiet"
    streams = [int(n) for n in args.streams.split(",")] if args.streams and not quiet_only else None
    run = Run(args.profile, binaries, args.out, only, streams)
    if only and quiet_only:
        run.run_quiet_only()
    elif only:
        run.run_only()
    else:
        run.run()


if __name__ == "__main__":
    main()
