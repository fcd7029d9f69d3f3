"""Tables from a run.sh results directory: python3 report.py RESULTS_DIR QUANTUM.

trials.csv: one line per trial (see hold-methods.c); toggle.csv: the same with the app toggling
its streams during each hold; apps.csv: pw-cat / paplay held once; farm-STACK-N.log: the victims'
own view (GAP = their processing stood still; STATE = pw_stream state changes).
"""
import collections
import csv
import os
import re
import sys

out, quantum = sys.argv[1], int(sys.argv[2])
Q_NS = quantum * 1e9 / 48000
METHODS = ["link", "pause", "suspend", "mute"]


def pct(values, p):
    if not values:
        return None
    v = sorted(values)
    x = (len(v) - 1) * p / 100
    lo = int(x)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (x - lo)


def ms(value):
    return "-" if value is None else (f"{value:.1f}" if value >= 10 else f"{value:.2f}")


def rows(path):
    if not os.path.exists(path):
        return []
    return list(csv.DictReader(open(path)))


def farm_gaps(path):
    """victim -> [(from, to)] periods in which its process callback was not called."""
    gaps = collections.defaultdict(list)
    states = []
    if not os.path.exists(path):
        return gaps, states
    for line in open(path):
        m = re.match(r"GAP (\S+) (\d+) (\d+)", line)
        if m:
            gaps[m.group(1)].append((int(m.group(2)), int(m.group(3))))
        m = re.match(r"STOPPED (\S+) (\d+)", line)
        if m:
            gaps[m.group(1)].append((int(m.group(2)), 1 << 62))
        m = re.match(r"STATE (\d+) (\S+) (\S+) (\S+)", line)
        if m:
            states.append((int(m.group(1)), m.group(2), m.group(3), m.group(4)))
    return gaps, states


def app_view(trial, n, gaps, states):
    """(share of victims whose processing stood still for the whole hold, their state changes)"""
    if float(trial["all_ms"]) < 0:
        return None, ""
    start = int(trial["t0"]) + int(float(trial["all_ms"]) * 1e6) + int(2 * Q_NS)
    end = int(trial["t1"])
    stopped = 0
    for i in range(n):
        if any(a <= start and b >= end for a, b in gaps.get(f"victim-{i}", [])):
            stopped += 1
    changes = collections.Counter(f"{a}>{b}" for t, name, a, b in states
                                  if int(trial["t0"]) <= t <= end + 150_000_000 and name == "victim-0")
    return stopped / n, " ".join(sorted(changes))


trials = rows(os.path.join(out, "trials.csv"))
print(f"\n## Hold and give-back, quantum {quantum}/48000 ({Q_NS / 1e6:.2f} ms)\n")
print("Times in ms from the requests to the first graph cycle seen at the sink's monitor without the "
      "first / every victim (p50 / p90; the monitor shows a cycle one quantum late, the same for every "
      "method). ack: the server's reply to a pw_core_sync sent after the requests. held: trials in "
      "which every victim was held within 2 s. undone: holds the server undid on a graph change. "
      "glitch: graph cycles in which the witness (another app on the sink) was missing or that were "
      "skipped, while holding / during the graph-change probes / while giving back, summed over the "
      "trials (the rate between trials, with nothing going on, is below the table). app stopped: share of victims whose process() stood still while held "
      "(their position kept). state: the victim's node state on the server while held.\n")
print("| stack | N | method | ack p50 | first p50 / p90 | every p50 / p90 | held | undone | back: ack p50 | "
      "back: every p50 / p90 | restored | glitch cycles | app stopped | state | stream states |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
groups = collections.OrderedDict()
for t in trials:
    groups.setdefault((t["stack"], int(t["n"]), t["method"]), []).append(t)
for stack in sorted({k[0] for k in groups}):
    for n in sorted({k[1] for k in groups if k[0] == stack}):
        gaps, states = farm_gaps(os.path.join(out, f"farm-{stack}-{n}.log"))
        for method in METHODS:
            g = groups.get((stack, n, method))
            if not g:
                continue
            f = lambda col: [float(t[col]) for t in g if float(t[col]) >= 0]
            held = sum(1 for t in g if float(t["all_ms"]) >= 0 and t["timed_out"] == "0")
            undone = sum(1 for t in g if float(t["undone_ms"]) >= 0)
            restored = sum(1 for t in g if t["restored"] == "1")
            glitch = "/".join(str(sum(int(t[c]) for t in g)) for c in ("glitch_hold", "glitch_probe", "glitch_back"))
            views = [app_view(t, n, gaps, states) for t in g]
            stopped = [v[0] for v in views if v[0] is not None]
            state_changes = collections.Counter(v[1] for v in views if v[1])
            hold_states = collections.Counter(t["hold_state"] for t in g)
            print(f"| {stack} | {n} | {method} | {ms(pct(f('ack_ms'), 50))} | "
                  f"{ms(pct(f('first_ms'), 50))} / {ms(pct(f('first_ms'), 90))} | "
                  f"{ms(pct(f('all_ms'), 50))} / {ms(pct(f('all_ms'), 90))} | {held}/{len(g)} | {undone} | "
                  f"{ms(pct(f('back_ack_ms'), 50))} | {ms(pct(f('back_all_ms'), 50))} / {ms(pct(f('back_all_ms'), 90))} | "
                  f"{restored}/{len(g)} | {glitch} | "
                  f"{'-' if not stopped else f'{100 * sum(stopped) / len(stopped):.0f}%'} | "
                  f"{', '.join(f'{s} {c}' for s, c in hold_states.most_common(2))} | "
                  f"{state_changes.most_common(1)[0][0] if state_changes else '-'} |")

print()
for p in sorted(os.listdir(out)):
    m = re.match(r"bench-(.+)-(\d+)\.log$", p)
    if not m:
        continue
    for line in open(os.path.join(out, p)):
        b = re.match(r"BETWEEN-TRIALS cycles (\d+) glitch (\d+)", line)
        if b:
            print(f"- between trials, {m.group(1)}, N = {m.group(2)}: {b.group(2)} glitch cycles in {b.group(1)}")

toggle = rows(os.path.join(out, "toggle.csv"))
if toggle:
    print("\n## The app pauses and resumes its own streams during the hold (pw_stream_set_active false, "
          "true 50 ms later; as pipewire-pulse does on cork/uncork), 10 victims\n")
    print("| stack | method | holds | the app escaped the hold (audible again) | undone by the graph change |")
    print("|---|---|---|---|---|")
    tg = collections.OrderedDict()
    for t in toggle:
        tg.setdefault((t["stack"], t["method"]), []).append(t)
    for (stack, method), g in sorted(tg.items(), key=lambda kv: (kv[0][0], METHODS.index(kv[0][1]))):
        escaped = sum(1 for t in g if float(t["escaped_ms"]) >= 0)
        undone = sum(1 for t in g if float(t["undone_ms"]) >= 0)
        print(f"| {stack} | {method} | {len(g)} | {escaped}/{len(g)} | {undone}/{len(g)} |")

apps = rows(os.path.join(out, "apps.csv"))
if apps:
    print("\n## Real apps held once: a 3.000 s file; wall time of the app\n")
    print("| stack | app | method | held | hold (s) | app's wall time (s) | its position while held | "
          "exit | given back |")
    print("|---|---|---|---|---|---|---|---|---|")
    for a in apps:
        position = "-"
        if a["hold_s"] and a["held"] == "yes":
            extra = float(a["wall_s"]) - 3.0
            position = "kept (paused)" if extra > 0.6 * float(a["hold_s"]) else "advanced (audio lost)"
        print(f"| {a['stack']} | {a['app']} | {a['method']} | {a['held']} | {a['hold_s'] or '-'} | {a['wall_s']} | "
              f"{position} | {a['exit']} | {a['back']} |")

crashes = os.path.join(out, "crashes.csv")
if os.path.exists(crashes):
    print("\n## The server died (and was restarted)\n")
    for line in open(crashes):
        print(f"- {line.strip()}")

tops = sorted(p for p in os.listdir(out) if p.startswith("pw-top-"))
if tops:
    print("\n## pw-top -b (1.4.2's pw-top, on both servers), its last snapshot of each scale: ERR (xrun) counters\n")
    for p in tops:
        block = []
        for line in open(os.path.join(out, p)):
            if line.lstrip().startswith("S ") and "ERR" in line:
                block = []
            elif line.strip():
                block.append(line.split())
        err = {}
        for f in block:
            if len(f) >= 10 and f[8].isdigit():
                err[f[-1]] = int(f[8])
        victims = sum(v for k, v in err.items() if k.startswith("victim-"))
        print(f"- {p[len('pw-top-'):-4]}: hold-sink {err.get('hold-sink', '-')}, witness-0 {err.get('witness-0', '-')}, "
              f"victims (sum) {victims}, hold-capture {err.get('hold-capture', '-')}")
