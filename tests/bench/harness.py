#!/usr/bin/env python3
"""Performance harness of benchprof (`make bench`); python3 standard library only.

    harness.py --benchprof B --work W --floor F [--inline-work I] [--outdir D]
               [--doc PATH] [--json PATH] [--reps N]
    harness.py --fold < perf-script-output > folded
    harness.py --from-json bench-results.json --doc PATH   (re-render only)

Runs the workloads alone, under `benchprof record`, under `perf record` and
under the floor sampler (tests/bench/floor_sampler.c), interleaved
(each repetition runs every mode once, in an order rotated by one each
repetition and reversed every other one, so that no mode always follows
the same one; see rep_order), and reports medians and min-max of ratios computed pair by pair
(mode / baseline within the same repetition).  Writes a table on stdout,
the raw numbers as JSON and, with --doc, docs/performance.md.

How things are measured (see docs/performance.md for the write-up):
- each command is started with subprocess and reaped with os.wait4: wall
  time around it, user+sys of the whole process tree, ru_maxrss;
- the workload (bench_work) reports its own wall time, getrusage(SELF),
  maxrss and the CLOCK_MONOTONIC time at which its work ended (t_end);
- a monitor thread reads the tool's own CPU time (the sum over its threads
  of /proc/PID/task/*/schedstat, ns, a thread that ended counted with its
  last reading; the workload is another process and is not included)
  every 2 ms for the first 0.4 s, then every 10 ms, so the tool's CPU is
  split into "during the run" (up to t_end) and "after the run"
  (artifacts);
- time to artifacts = the tool's exit (wait4 returns) - the workload's
  t_end, plus, for perf, `perf script` and a fold step run afterwards.

Environment: BENCH_LONG=1 uses 10 s vs 60 s for the RSS check (default
10 s vs 20 s), adds 1M samples to the time to artifacts (3 pairs each,
--pairs-1m N), runs all
repetitions of the dwarf one at 100k (2 by default) and cpu-2s's overhead
4 x reps + 1 times; BENCH_REPS overrides --reps.
"""
import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_scale  # noqa: E402


# (kind, benchprof mode, floor mode, perf mode): compared with each other
# only within a kind, so each side asks the kernel for the same thing
PAIRS = (
    ("fp", "bp-fp", "floor-fp", "perf-fp"),
    ("dwarf", "bp-auto", "floor-dwarf", "perf-dwarf"),
)
MODES = {
    "alone": "the workload alone",
    "bp-fp": "`benchprof record -q --no-counters --all-user -F HZ -g fp`",
    "bp-auto": "`benchprof record -q --no-counters --all-user -F HZ` (default `-g auto`: "
               "frame pointers and an 8 KiB stack copy per sample, unwound after the run)",
    "floor-fp": "`floor_sampler -F HZ -g fp -m P` (frame-pointer callchains, rings of "
                "the size benchprof used)",
    "floor-dwarf": "`floor_sampler -F HZ -g dwarf -m P` (callchains, user registers and an "
                   "8 KiB stack copy per sample, rings of the size benchprof used: "
                   "benchprof's dwarf/auto attr)",
    "perf-fp": "`perf record -q -F HZ -e cpu-clock:u -g`",
    "perf-dwarf": "`perf record -q -F HZ -e cpu-clock:u --call-graph dwarf,8192`",
}
OVERHEAD_COLS = ("bp-fp", "floor-fp", "perf-fp", "bp-auto", "floor-dwarf", "perf-dwarf")


# ------------------------------------------------------------------ folding
def fold_perf_script(inp, out):
    """Fold `perf script -F comm,ip,sym` output (stackcollapse-perf style):
    comm;outermost;...;leaf count."""
    counts = {}
    comm = None
    frames = []

    def flush():
        if comm is not None:
            key = ";".join([comm] + frames[::-1])
            counts[key] = counts.get(key, 0) + 1

    for line in inp:
        if not line.strip():
            flush()
            comm = None
            frames = []
            continue
        if line[0] not in " \t":
            flush()
            comm = line.split()[0] if line.split() else "?"
            frames = []
            continue
        parts = line.split(None, 1)
        sym = parts[1].strip() if len(parts) > 1 else "[unknown]"
        # "sym+0x1f (dso)" or "sym (dso)": keep the name
        if " (" in sym:
            sym = sym[: sym.rindex(" (")]
        plus = sym.rfind("+0x")
        if plus > 0:
            sym = sym[:plus]
        frames.append(sym or "[unknown]")
    flush()
    for k in sorted(counts):
        out.write("%s %d\n" % (k, counts[k]))
    return sum(counts.values())


# ------------------------------------------------------------------ running
def tool_cpu_ns(pid, seen=None):
    """CPU time of the threads of pid, from schedstat (ns), or None.  With
    seen (a dict kept across calls: tid -> its last value), threads that
    ended since count with what they had when last seen: a thread's time
    leaves /proc/PID/task with it, so a short-lived one (a worker pool's,
    a helper's) vanished from the sum."""
    seen = {} if seen is None else seen
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for t in tids:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                seen[t] = max(seen.get(t, 0), int(f.read().split()[0]))
        except (OSError, ValueError, IndexError):
            pass
    return sum(seen.values())


class Monitor(threading.Thread):
    """Samples the tool process's own CPU time every `period` seconds."""

    def __init__(self, pid, period=0.01, fast=0.002, fast_for=0.4):
        super().__init__(daemon=True)
        self.fast, self.fast_for = fast, fast_for
        self.pid, self.period = pid, period
        self.points = []  # (monotonic, cpu seconds)
        self.threads = {}  # tid -> its CPU when last seen, ns
        self.stop = threading.Event()

    def run(self):
        t0 = time.monotonic()
        while not self.stop.is_set():
            v = tool_cpu_ns(self.pid, self.threads)
            now = time.monotonic()
            if v is not None:
                self.points.append((now, v / 1e9))
            # fast at first, so that start-up is split off accurately
            self.stop.wait(self.fast if now - t0 < self.fast_for else self.period)

    def cpu_at(self, t):
        """Tool CPU at monotonic time t, interpolated between samples."""
        prev = (t, 0.0)
        for pt, v in self.points:
            if pt >= t:
                if pt == prev[0]:
                    return v
                return prev[1] + (v - prev[1]) * (t - prev[0]) / (pt - prev[0])
            prev = (pt, v)
        return prev[1]

    def last(self):
        return self.points[-1][1] if self.points else 0.0


def spill_per_sample(r, summary):
    """benchprof's spill bytes per sample (what went to $TMPDIR while the
    command ran, and the dead stack bytes left out) from its summary.json."""
    try:
        with open(summary) as f:
            s = json.load(f)
        n = s["samples"]
        if n and "spilled_bytes" in s:
            r["spilled_per_sample"] = s["spilled_bytes"] / n
            r["trimmed_per_sample"] = s["spill_trimmed_bytes"] / n
    except (OSError, ValueError, KeyError):
        pass


def run_cmd(cmd, report=None, monitor=True, stdout=None):
    """Run cmd; returns a dict of measurements."""
    if report and os.path.exists(report):
        os.unlink(report)
    errf = tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=stdout or subprocess.DEVNULL, stderr=errf)
    mon = Monitor(p.pid) if monitor else None
    if mon:
        mon.start()
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.monotonic()
    p.returncode = os.waitstatus_to_exitcode(status)
    if mon:
        mon.stop.set()
        mon.join()
    r = {
        "cmd": " ".join(cmd),
        "rc": p.returncode,
        "wall": t1 - t0,
        "t_exit": t1,
        "tree_cpu": ru.ru_utime + ru.ru_stime,
        "tree_maxrss_kib": ru.ru_maxrss,
    }
    if p.returncode != 0:
        errf.seek(0)
        sys.stderr.write("harness: %s exited %d\n%s\n" % (
            r["cmd"], p.returncode, errf.read().decode(errors="replace")[-2000:]))
    errf.close()
    if report:
        try:
            with open(report) as f:
                w = json.loads(f.read().strip().splitlines()[-1])
        except (OSError, ValueError, IndexError):
            w = None
        r["work"] = w
        if w:
            r["work_wall"] = w["wall"]
            r["work_cpu"] = w["user"] + w["sys"]
            r["tool_cpu"] = max(0.0, r["tree_cpu"] - r["work_cpu"])
            r["after_exit"] = t1 - w["t_end"]
            if "t_start" in w:  # the workload's main, on the same clock
                r["before_main"] = w["t_start"] - t0
                r["run"] = w["t_end"] - w["t_start"]
            if mon and mon.points:
                if w.get("ppid") == p.pid and w.get("parent_cpu_start", -1) >= 0 \
                        and w.get("parent_cpu_end", -1) >= 0:
                    # read by the workload itself at main and at the end
                    # of its work: exact, the monitor only gives the total
                    startup = w["parent_cpu_start"]
                    upto_end = w["parent_cpu_end"]
                    r["split_by"] = "workload"
                else:
                    upto_end = mon.cpu_at(w["t_end"])
                    startup = mon.cpu_at(w.get("t_start", t0))
                    r["split_by"] = "monitor"
                r["tool_cpu_startup"] = startup
                r["tool_cpu_during"] = max(0.0, upto_end - startup)
                r["tool_cpu_after"] = max(0.0, mon.last() - upto_end)
    return r


def rep_order(names, i):
    """The order of the modes in repetition i: rotated by i, and reversed
    in odd repetitions.  Rotation alone (A B C, B C A, C A B) puts every
    mode after the same one each time, and what one command leaves behind
    (its files' writeback, the kernel freeing its rings) then always
    lands on the same neighbour; this way each mode follows one neighbour
    in even repetitions and the other in odd ones."""
    k = i % len(names)
    order = names[k:] + names[:k]
    return order[::-1] if i % 2 else order


# Pause after each command: its dirty pages are written out (os.sync) and
# the kernel's deferred work for it (freeing rings, RCU) done before the
# next command starts, instead of during it.
SETTLE_S = 0.2


def settle():
    os.sync()
    time.sleep(SETTLE_S)


# ------------------------------------------------------------------ stats
def summarize(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}


def pairwise(runs, mode, base, key):
    """summarize() of per_rep_ratios()."""
    return summarize(per_rep_ratios(runs, mode, base, key))


def per_rep_ratios(runs, mode, base, key):
    """mode/base of key within each repetition.  Tool CPU times give no
    ratio under the resolution of how they were split: 0.5 ms for the
    monitor's samples, 20 us where the workload read them itself
    (schedstat is in ns; its own reading and a poll timeout a second cost
    some microseconds)."""
    out = []
    for rep in runs:
        ra, rb = rep.get(mode, {}), rep.get(base, {})
        a, b = ra.get(key), rb.get(key)
        tiny = 0.0
        if key.startswith("tool_cpu"):
            exact = ra.get("split_by") == rb.get("split_by") == "workload"
            tiny = 0.00002 if exact else 0.0005
        if a is not None and b and b > tiny and a > tiny:
            out.append(a / b)
    return out


# An idle tool's own CPU over the 2 s run (a poll timeout a second, the
# workload reading the tool's schedstat) measured 0.05-0.13 ms here: when
# every repetition of both sides is under this, the two are doing
# nothing, and the ratio of their noise says nothing.
IDLE_S = 0.0002
IDLE_NOTE = ("both under %.1f ms of CPU in every repetition: idle, doing nothing "
             "to compare" % (IDLE_S * 1e3))


def median_ci(values, conf=0.95):
    """A distribution-free confidence interval for the median: the k-th
    smallest and k-th largest value, k as large as keeps the chance that
    the true median lies between them at conf or more (a sign test's
    binomial, p = 1/2).  None when there are too few values for conf."""
    v = sorted(x for x in values if x is not None)
    n = len(v)
    best = None
    for k in range(1, n // 2 + 1):
        # the median lies outside [v[k-1], v[n-k]] when k-1 or fewer
        # values fall on one side of it
        outside = 2.0 * sum(math.comb(n, i) for i in range(k)) / 2.0 ** n
        if 1.0 - outside < conf:
            break
        best = {"lo": v[k - 1], "hi": v[n - k], "coverage": 1.0 - outside, "n": n}
    return best


def paired(runs, mode, base, key):
    """mode/base of key per repetition, its median and the median's
    confidence interval (median_ci), and which side of 1 that interval
    lies: "below", "above", or "tied" when it contains 1 (this run cannot
    tell the two apart), None without enough repetitions."""
    ratios = per_rep_ratios(runs, mode, base, key)
    ci = median_ci(ratios)
    if not ci:
        return None
    ci["median"] = statistics.median(ratios)
    ci["verdict"] = ("below" if ci["hi"] < 1.0 else
                     "above" if ci["lo"] > 1.0 else "tied")
    return ci


def paired_note(c, mode, base):
    """What paired() found, in words: a tie is no difference this run can
    see, whichever median came out lower."""
    if not c:
        return ("too few repetitions for a confidence interval of %s/%s "
                "(BENCH_LONG=1 runs enough): the medians compared" % (mode, base))
    says = {"below": "%s faster" % mode, "above": "%s slower" % mode,
            "tied": "tied: the interval contains 1, no difference this run can see"}
    return ("workload wall %s/%s per repetition %.4fx, %.1f%% confidence interval of "
            "its median [%.4f-%.4f] over %d repetitions: %s"
            % (mode, base, c["median"], 100 * c["coverage"], c["lo"], c["hi"], c["n"],
               says[c["verdict"]]))


# The 1M rows' target: perf + perf script + fold over benchprof, per pair.
TIMES_FASTER_1M = 10.0


def ratio_interval(values, conf=0.95):
    """An interval for the median of per-pair ratios: median_ci()'s when
    there are enough pairs for conf, else the smallest and largest ratio,
    which hold the median with chance 1 - 2^(1-n) (n=3: 75%, n=5: 94%).
    None without two values."""
    v = sorted(x for x in values if x is not None)
    if len(v) < 2:
        return None
    c = median_ci(v, conf)
    if not c:
        c = {"lo": v[0], "hi": v[-1], "coverage": 1.0 - 2.0 ** (1 - len(v)), "n": len(v)}
    c["median"] = statistics.median(v)
    return c


def times_faster_verdict(c, target):
    """(met, note) for "at least target times faster" from ratio_interval():
    met only when the whole interval is at or above the target, so that
    one lucky pair (perf's 1 s tail, benchprof's spill still in memory)
    cannot carry it; not met when it lies below, undecided otherwise."""
    if not c:
        return False, "fewer than 2 pairs: no interval (BENCH_LONG=1 runs 3, --pairs-1m N more)"
    where = ("%.1f%% interval of the median ratio [%.1f-%.1f] over %d pairs%s"
             % (100 * c["coverage"], c["lo"], c["hi"], c["n"],
                "" if c["coverage"] >= 0.95 else " (min-max: too few pairs for 95%)"))
    if c["lo"] >= target:
        return True, where
    if c["hi"] < target:
        return False, where + ": below %.0fx in every pair the interval keeps" % target
    return False, where + ": contains %.0fx, undecided" % target


def verdict_word(t):
    if t["met"]:
        return "met"
    return "NOT MET, tied" if t.get("tied") else "NOT MET"


def idle(A, mode):
    v = A.get(mode, {}).get("tool_cpu_during")
    return bool(v) and v["max"] < IDLE_S


def fmt(s, unit="", digits=3):
    if not s:
        return "n/a"
    f = "%%.%df" % digits
    return (f + "%s [" + f + "-" + f + "]") % (s["median"], unit, s["min"], s["max"])


def du(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


# ------------------------------------------------------------------ machine
def machine():
    m = {"kernel": platform.release(), "cores": os.cpu_count()}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            k, _, v = line.partition(":")
            if k.strip() in ("Model name", "Hypervisor vendor", "Virtualization type",
                             "CPU(s)", "Thread(s) per core"):
                m[k.strip()] = v.strip()
    except OSError:
        pass
    try:
        with open("/proc/sys/kernel/perf_event_max_sample_rate") as f:
            m["perf_event_max_sample_rate"] = int(f.read())
    except (OSError, ValueError):
        pass
    m["loadavg_start"] = os.getloadavg()
    m["hardware_pmu"] = os.path.exists("/sys/bus/event_source/devices/cpu")
    try:
        m["perf"] = subprocess.run(["perf", "--version"], capture_output=True,
                                   text=True).stdout.strip()
    except OSError:
        m["perf"] = None
    return m


# ------------------------------------------------------------------ harness
class Harness:
    def __init__(self, a):
        self.a = a
        self.tmp = tempfile.mkdtemp(prefix="bench-")
        self.report = os.path.join(self.tmp, "work.json")
        self.perf = shutil.which("perf")
        self.results = {"machine": machine(), "sections": {}}
        self.log = []

    def say(self, msg):
        print(msg, flush=True)

    def work(self, *args):
        return [self.a.work, "-r", self.report] + [str(x) for x in args]

    def calibrate(self):
        """Units per second of CPU for one thread (median of 3 runs)."""
        v = []
        for _ in range(3):
            r = run_cmd(self.work("-n", 1500), self.report, monitor=False)
            v.append(1500 / max(r["work_cpu"], 1e-6))
        self.ups = statistics.median(v)
        self.say("calibration: %.0f work units per CPU second" % self.ups)
        # the floor sampler gets the rings benchprof uses (summary.json)
        page = os.sysconf("SC_PAGESIZE")
        self.ring_pages = {}
        for kind, g in (("fp", ["-g", "fp"]), ("dwarf", [])):
            out = os.path.join(self.tmp, "rings-" + kind)
            run_cmd([self.a.benchprof, "record", "-q", "--no-counters", "-o", out]
                    + g + ["--"] + self.work("-n", 1), self.report, monitor=False)
            with open(os.path.join(out, "summary.json")) as f:
                self.ring_pages[kind] = json.load(f)["ring_bytes"] // page
        self.results["machine"]["ring_pages"] = self.ring_pages
        self.say("benchprof's rings: %s pages per CPU" % self.ring_pages)

    def modes(self, freq, out):
        """Every way of running a workload, by name (see MODES)."""
        # user space only, as perf is asked for below (cpu-clock:u)
        bp = [self.a.benchprof, "record", "-q", "--no-counters", "--all-user",
              "-F", str(freq)]
        m = {
            "alone": lambda w: w,
            "bp-fp": lambda w: bp + ["-g", "fp", "-o", out("bp"), "--"] + w,
            "bp-auto": lambda w: bp + ["-o", out("bp"), "--"] + w,
            "floor-fp": lambda w: [self.a.floor, "-F", str(freq), "-g", "fp",
                                   "-m", str(self.ring_pages["fp"]), "--"] + w,
            "floor-dwarf": lambda w: [self.a.floor, "-F", str(freq), "-g", "dwarf",
                                      "-m", str(self.ring_pages["dwarf"]), "--"] + w,
        }
        if self.perf:
            pr = [self.perf, "record", "-q", "-F", str(freq), "-e", "cpu-clock:u"]
            m["perf-fp"] = lambda w: pr + ["-g", "-o", out("perf.data"), "--"] + w
            m["perf-dwarf"] = lambda w: pr + ["--call-graph", "dwarf,8192",
                                              "-o", out("perf.data"), "--"] + w
        return m

    # (1) overhead during the run
    def overhead(self):
        reps = self.a.reps
        loads = {
            "cpu-2s": ["-t", 1, "-n", int(2.0 * self.ups)],
            "threads4-2s": ["-t", 4, "-n", int(2.0 * self.ups * min(os.cpu_count(), 4) / 4)],
            "short-50ms": ["-t", 1, "-n", max(1, int(0.05 * self.ups))],
        }
        sec = {}
        for name, args in loads.items():
            # the targets compare cpu-2s's slowdowns, which differ by tenths
            # of a percent when they differ at all: BENCH_LONG=1 gives it
            # 4 x reps + 1 repetitions, for a confidence interval of about
            # +-1% around the median ratio (5 give none)
            if name == "cpu-2s" and os.environ.get("BENCH_LONG") == "1":
                reps = 4 * self.a.reps + 1
            else:
                reps = self.a.reps
            self.say("overhead: %s, %d repetitions" % (name, reps))
            cur = {}
            out = lambda f: os.path.join(cur["d"], f)  # noqa: E731
            modes = self.modes(997, out)
            runs = []
            names = list(modes)
            for i in range(reps):
                rep = {}
                for m in rep_order(names, i):
                    cur["d"] = os.path.join(self.tmp, "%s-%s-%d" % (name, m, i))
                    os.makedirs(cur["d"], exist_ok=True)
                    rep[m] = run_cmd(modes[m](self.work(*args)), self.report)
                    spill_per_sample(rep[m], os.path.join(out("bp"), "summary.json"))
                    shutil.rmtree(cur["d"], ignore_errors=True)
                    settle()
                runs.append(rep)
            s = {"args": [str(x) for x in args], "runs": runs, "ratios": {}, "abs": {}}
            for m in names:
                s["abs"][m] = {k: summarize([r[m].get(k) for r in runs])
                               for k in ("wall", "work_wall", "work_cpu", "tool_cpu",
                                         "tool_cpu_startup", "tool_cpu_during",
                                         "tool_cpu_after", "spilled_per_sample",
                                         "trimmed_per_sample")}
                if m != "alone":
                    s["ratios"]["%s/alone work_wall" % m] = pairwise(runs, m, "alone", "work_wall")
                    s["ratios"]["%s/alone wall" % m] = pairwise(runs, m, "alone", "wall")
                    s["ratios"]["%s/alone work_cpu" % m] = pairwise(runs, m, "alone", "work_cpu")
            for kind, bp, floor, perf in PAIRS:
                for m in (bp, perf):
                    if m in names:
                        for key in ("tool_cpu_during", "tool_cpu", "tool_cpu_startup"):
                            s["ratios"]["%s/%s %s" % (m, floor, key)] = pairwise(
                                runs, m, floor, key)
                if perf in names:
                    s["ratios"]["%s/%s tool_cpu_during" % (bp, perf)] = pairwise(
                        runs, bp, perf, "tool_cpu_during")
            sec[name] = s
        self.results["sections"]["overhead"] = sec

    # (2) time to artifacts, (4) sizes
    def artifacts(self):
        freq = 9973
        reps = self.a.reps
        sec = {}
        for kind, bp, _, perf in PAIRS:
            if kind not in self.a.kinds:
                continue
            for target in self.a.samples:
                # fixed work: samples = freq x CPU seconds, whatever else
                # runs; sampling at this rate makes the work itself cost
                # more CPU (on the CI VM about 2x), so a trial run sizes it
                units = int(target / freq / 2 * self.ups)
                spu = self.samples_per_unit(freq, bp)
                if spu:
                    units = int(target / 2 / spu)
                args = ["-t", 2, "-n", units]
                # perf's DWARF mode writes 8 KiB per sample and perf script
                # unwinds them all (800 MB at 100k): 2 repetitions of that
                # by default, all of them under BENCH_LONG=1 (a target reads
                # it); 1M samples are about 50 s of sampling a run for each
                # mode: --pairs-1m of them (3 under BENCH_LONG=1, so that
                # the 1M target has an interval to judge)
                if target >= 1000000:
                    n = self.a.pairs_1m
                elif kind == "fp" or target < 100000 or os.environ.get("BENCH_LONG") == "1":
                    n = reps
                else:
                    n = max(1, min(reps, 2))
                self.say("time to artifacts (%s): ~%d samples (%d units x 2 threads at "
                         "%d Hz), %d repetitions" % (kind, target, units, freq, n))
                runs = []
                for i in range(n):
                    rep = {}
                    for m in ((bp, perf) if i % 2 == 0 else (perf, bp)):
                        if m == perf and not self.perf:
                            continue
                        d = os.path.join(self.tmp, "art-%s-%d-%s-%d" % (kind, target, m, i))
                        os.makedirs(d)
                        out = lambda f: os.path.join(d, f)  # noqa: E731
                        r = run_cmd(self.modes(freq, out)[m](self.work(*args)), self.report)
                        if m == bp:
                            r.update(self.bp_facts(out("bp")))
                            r["to_artifacts"] = r.get("after_exit")
                        else:
                            self.perf_script(out("perf.data"), d, r)
                        rep[m] = r
                        shutil.rmtree(d, ignore_errors=True)
                        settle()
                    runs.append(rep)
                s = {"kind": kind, "bp": bp, "perf": perf, "target": target,
                     "args": [str(x) for x in args], "freq": freq, "runs": runs,
                     "abs": {}, "ratios": {}}
                for m in (bp, perf):
                    s["abs"][m] = {k: summarize([r.get(m, {}).get(k) for r in runs])
                                   for k in ("to_artifacts", "after_exit", "script_fold",
                                             "bytes", "samples", "lost", "tool_cpu_after")}
                s["ratios"]["%s/%s to_artifacts" % (perf, bp)] = pairwise(
                    runs, perf, bp, "to_artifacts")
                s["ratios"]["%s/%s bytes" % (bp, perf)] = pairwise(runs, bp, perf, "bytes")
                sec["%s-%d" % (kind, target)] = s
        self.results["sections"]["artifacts"] = sec

    def bp_facts(self, out):
        """Bytes, samples and lost samples of a benchprof output directory."""
        r = {"bytes": du(out), "samples": None, "lost": None}
        try:
            with open(os.path.join(out, "summary.json")) as f:
                sm = json.load(f)
            r["samples"], r["lost"] = sm.get("samples"), sm.get("lost")
        except (OSError, ValueError):
            pass
        return r

    def perf_script(self, data, d, r):
        """perf script + fold after perf record; the same folded stacks."""
        r["bytes"] = du(data)
        t0 = time.monotonic()
        with open(os.path.join(d, "perf.folded"), "w") as fo:
            ps = subprocess.Popen([self.perf, "script", "-i", data, "-F", "comm,ip,sym"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            fold = subprocess.Popen([sys.executable, __file__, "--fold"],
                                    stdin=ps.stdout, stdout=fo)
            ps.stdout.close()
            fold.wait()
            ps.wait()
        r["script_fold"] = time.monotonic() - t0
        with open(os.path.join(d, "perf.folded")) as f:
            r["samples"] = sum(int(l.rsplit(" ", 1)[1]) for l in f if l.strip())
        r["lost"] = None
        r["to_artifacts"] = (r["after_exit"] + r["script_fold"]
                             if r.get("after_exit") is not None else None)

    def samples_per_unit(self, freq, mode):
        """Samples per work unit at freq under mode, from one short run."""
        cache = self.__dict__.setdefault("_spu", {})
        if mode in cache:
            return cache[mode]
        units = max(1, int(0.5 * self.ups))
        out = os.path.join(self.tmp, "trial")
        run_cmd(self.modes(freq, lambda f: out)[mode](self.work("-t", 2, "-n", units)),
                self.report, monitor=False)
        try:
            with open(os.path.join(out, "summary.json")) as f:
                cache[mode] = json.load(f)["samples"] / (2.0 * units)
        except (OSError, ValueError, KeyError, TypeError):
            cache[mode] = None
        shutil.rmtree(out, ignore_errors=True)
        return cache[mode]

    # (3) peak RSS
    def rss(self):
        long_s = 60 if os.environ.get("BENCH_LONG") == "1" else 20
        reps = max(1, self.a.rss_reps)
        runs = []
        self.say("peak RSS: 10 s vs %d s, 4 threads, %d repetition(s)" % (long_s, reps))
        for i in range(reps):
            rep = {}
            for d in ((10, long_s) if i % 2 == 0 else (long_s, 10)):
                out = os.path.join(self.tmp, "rss-%d-%d" % (d, i))
                r = run_cmd([self.a.benchprof, "record", "-q", "-F", "997", "-o", out, "--"]
                            + self.work("-t", 4, "-d", d), self.report)
                r["work_maxrss_kib"] = (r.get("work") or {}).get("maxrss_kib")
                rep["%ds" % d] = r
                shutil.rmtree(out, ignore_errors=True)
            runs.append(rep)
        s = {"long_s": long_s, "runs": runs, "abs": {}}
        for k in ("10s", "%ds" % long_s):
            s["abs"][k] = {"tree_maxrss_kib": summarize([r[k]["tree_maxrss_kib"] for r in runs]),
                           "work_maxrss_kib": summarize([r[k]["work_maxrss_kib"] for r in runs])}
        s["ratio"] = pairwise(runs, "%ds" % long_s, "10s", "tree_maxrss_kib")
        self.results["sections"]["rss"] = s

    # (6) the cost of inlined frames (symbols.c's inline chains)
    def inline(self):
        """bench_inline (C++ -O2 -g, the standard library inlined into it)
        under `benchprof record` with and without --no-inline, interleaved:
        the ratio of the time to artifacts and of symbolize_ms, pair by
        pair, and the frames the inline chains add."""
        if not self.a.inline_work:
            return
        reps = self.a.reps
        self.say("inline frames: bench_inline, %d repetitions" % reps)
        runs = []
        order = ["inline", "no-inline"]
        for i in range(reps):
            rep = {}
            for m in rep_order(order, i):
                out = os.path.join(self.tmp, "inl-%s-%d" % (m, i))
                cmd = [self.a.benchprof, "record", "-q", "--no-counters", "-o", out]
                if m == "no-inline":
                    cmd.append("--no-inline")
                r = run_cmd(cmd + ["--", self.a.inline_work, "-n", "20",
                                   "-r", self.report], self.report)
                try:
                    with open(os.path.join(out, "summary.json")) as f:
                        sm = json.load(f)
                    r["symbolize_ms"] = sm.get("symbolize_ms")
                    r["samples"] = sm.get("samples")
                    with open(os.path.join(out, "profile.folded")) as f:
                        r["frames"] = len({fr for l in f for fr in
                                           l.rsplit(" ", 1)[0].split(";")})
                except (OSError, ValueError):
                    pass
                rep[m] = r
                shutil.rmtree(out, ignore_errors=True)
                settle()
            runs.append(rep)
        self.results["sections"]["inline"] = {
            "runs": runs,
            "abs": {m: {k: summarize([r[m].get(k) for r in runs])
                        for k in ("after_exit", "symbolize_ms", "frames", "samples")}
                    for m in order},
            "ratios": {"inline/no-inline %s" % k: pairwise(runs, "inline", "no-inline", k)
                       for k in ("after_exit", "symbolize_ms")},
        }

    # (6) the cost of --off-cpu on a workload that switches all the time
    def offcpu_perf_cmd(self, mode, out, ring_bytes, cmd):
        """perf record asked for the data --off-cpu asks the kernel for:
        the same sampling event at 997 Hz, the call graph (DWARF stack
        copies for benchprof's default, frame pointers for -g fp), a ring
        of benchprof's size, and with -offcpu every switch sampled with
        that call graph plus the context-switch records."""
        ev = "cycles" if os.path.exists("/sys/bus/event_source/devices/cpu") else "cpu-clock"
        c = ["perf", "record", "-q", "-o", os.path.join(out, "perf.data"),
             "-m", "%dK" % max(ring_bytes // 1024, 8), "-e", ev + "/freq=997/"]
        c += ["-g"] if "-fp" in mode else ["--call-graph", "dwarf"]
        if mode.endswith("offcpu"):
            # benchprof's default call graph copies 2 KiB per switch sample
            # (BP_RECORD_SWITCH_STACK_BYTES)
            c += ["-e", "context-switches/period=1/" if "-fp" in mode else
                  "context-switches/period=1,call-graph=dwarf,stack-size=2048/",
                  "--switch-events"]
        return c + ["--"] + cmd

    def offcpu_probe(self, fp):
        """The ring benchprof gives each CPU with this call graph and
        whether it samples the kernel (a short probe run), so that perf
        and the floor sampler get the same."""
        out = os.path.join(self.tmp, "offcpu-probe")
        run_cmd([self.a.benchprof, "record", "-q", "--no-counters", "-o", out] +
                (["-g", "fp"] if fp else []) + ["--", self.a.switch_work, "-n", "10"])
        try:
            with open(os.path.join(out, "summary.json")) as f:
                sm = json.load(f)
            return int(sm.get("ring_bytes") or 0) or 2 << 20, bool(sm.get("kernel_sampled"))
        except (OSError, ValueError):
            return 2 << 20, False
        finally:
            shutil.rmtree(out, ignore_errors=True)

    def offcpu_floor_cmd(self, mode, probe, cmd):
        """The floor sampler asked for what benchprof asks the kernel for
        (-s: the switch records and samples), draining the rings unread:
        the kernel's cost alone."""
        ring, kernel = probe
        return [self.a.floor, "-F", "997", "-g", "fp" if "-fp" in mode else "dwarf",
                "-m", str(max(ring // os.sysconf("SC_PAGE_SIZE"), 8))] + \
            (["-k"] if kernel else []) + \
            ((["-s"] + ([] if "-fp" in mode else ["-w", "2048"]))
             if mode.endswith("offcpu") else []) + \
            ["--"] + cmd

    def offcpu(self):
        """bench_switch (two threads passing a token through pipes, more
        than 50,000 switches a second) under `benchprof record` with and
        without --off-cpu, default call graph and frame pointers,
        interleaved: the workload's own wall time, pair by pair.  Every
        switch is a context-switch record and a sample with a stack.
        Where perf runs, `perf record` asked for the same data is measured
        in the same repetitions: its ratio is the kernel's share (perf
        also writes what it reads), the rest of benchprof's is its own."""
        if not self.a.switch_work:
            return
        reps = self.a.reps
        rounds = 100000
        self.say("off-CPU: bench_switch %d round trips, %d repetitions" % (rounds, reps))
        order = ["alone", "record", "record-offcpu", "record-fp", "record-fp-offcpu"]
        have_perf = shutil.which("perf") is not None and subprocess.run(
            ["perf", "record", "-q", "-o", os.devnull, "-e", "context-switches/period=1/",
             "--switch-events", "--", "true"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode == 0
        probes = {fp: self.offcpu_probe(fp) for fp in (False, True)}
        if self.a.floor:
            order += ["floor", "floor-offcpu", "floor-fp", "floor-fp-offcpu"]
        if have_perf:
            order += ["perf", "perf-offcpu", "perf-fp", "perf-fp-offcpu"]
        runs = []
        for i in range(reps):
            rep = {}
            for m in rep_order(order, i):
                out = os.path.join(self.tmp, "offcpu-%s-%d" % (m, i))
                cmd = [self.a.switch_work, "-n", str(rounds), "-r", self.report]
                if m.startswith("perf"):
                    os.makedirs(out, exist_ok=True)
                    cmd = self.offcpu_perf_cmd(m, out, probes["-fp" in m][0], cmd)
                elif m.startswith("floor"):
                    cmd = self.offcpu_floor_cmd(m, probes["-fp" in m], cmd)
                elif m != "alone":
                    cmd = [self.a.benchprof, "record", "-q", "--no-counters", "-o", out] + \
                        (["-g", "fp"] if "-fp" in m else []) + \
                        (["--off-cpu"] if m.endswith("offcpu") else []) + ["--"] + cmd
                r = run_cmd(cmd, self.report)
                w = r.get("work") or {}
                r["switches_per_s"] = w.get("switches_per_s")
                try:
                    with open(os.path.join(out, "summary.json")) as f:
                        sm = json.load(f)
                    r["lost"] = sm.get("lost")
                except (OSError, ValueError):
                    pass
                rep[m] = r
                shutil.rmtree(out, ignore_errors=True)
                settle()
            runs.append(rep)
        pairs = [("record", "alone"), ("record-offcpu", "record"),
                 ("record-fp", "alone"), ("record-fp-offcpu", "record-fp")]
        if self.a.floor:
            pairs += [("floor-offcpu", "floor"), ("floor-fp-offcpu", "floor-fp")]
        if have_perf:
            pairs += [("perf-offcpu", "perf"), ("perf-fp-offcpu", "perf-fp"),
                      ("record-offcpu", "perf-offcpu"), ("record-fp-offcpu", "perf-fp-offcpu")]
        self.results["sections"]["offcpu"] = {
            "rounds": rounds, "runs": runs, "perf": have_perf, "floor": bool(self.a.floor),
            "abs": {m: {k: summarize([r[m].get(k) for r in runs])
                        for k in ("work_wall", "switches_per_s", "lost")}
                    for m in order},
            "ratios": {"%s/%s work_wall" % (a, b): pairwise(runs, a, b, "work_wall")
                       for a, b in pairs},
        }

    # (5) benchprof run, whole command
    def whole(self):
        reps = self.a.reps
        args = ["-t", 1, "-n", int(2.0 * self.ups)]
        self.say("benchprof run vs alone: cpu-2s, %d repetitions" % reps)
        runs = []
        # the floor sampler with run's events (auto: stack copies), for
        # what the kernel's sampling alone costs the workload here
        # and run --repeat 3: what repetitions cost (3 runs and the merge)
        order = ["alone", "floor", "run", "repeat3"]
        for i in range(reps):
            rep = {}
            for m in rep_order(order, i):
                out = os.path.join(self.tmp, "run-%d" % i)
                if m == "alone":
                    cmd = self.work(*args)
                elif m == "floor":
                    cmd = [self.a.floor, "-F", "997", "-g", "dwarf", "--"] + self.work(*args)
                elif m == "repeat3":
                    cmd = [self.a.benchprof, "run", "-q", "--repeat", "3", "-o", out,
                           "--"] + self.work(*args)
                else:
                    cmd = [self.a.benchprof, "run", "-q", "-o", out, "--"] + self.work(*args)
                rep[m] = run_cmd(cmd, self.report)
                shutil.rmtree(out, ignore_errors=True)
                settle()
            runs.append(rep)
        self.results["sections"]["run"] = {
            "args": [str(x) for x in args], "runs": runs,
            "abs": {m: summarize([r[m]["wall"] for r in runs]) for m in order},
            "ratio": pairwise(runs, "run", "alone", "wall"),
            "floor_ratio": pairwise(runs, "floor", "alone", "wall"),
            "run_floor_ratio": pairwise(runs, "run", "floor", "wall"),
            "repeat3_ratio": pairwise(runs, "repeat3", "run", "wall"),
        }

    # ---------------------------------------------------------------- output
    def targets(self):
        S = self.results["sections"]
        t = []

        def add(name, value, ok, note="", tied=False):
            t.append({"target": name, "measured": value, "met": ok, "note": note,
                      "tied": tied})

        ov = S.get("overhead", {}).get("cpu-2s")
        for kind, bp, floor, perf in PAIRS:
            if not ov:
                break
            R = ov["ratios"]
            A = ov["abs"]
            r = R.get("%s/%s tool_cpu_during" % (bp, floor))
            r2 = R.get("%s/%s tool_cpu_startup" % (bp, floor))
            note = ("workload's main to end of work; start-up before it: %s the floor's"
                    % fmt(r2, "x"))
            if idle(A, bp) and idle(A, floor):
                add("[%s] %s's own CPU during the run <= 1.15x %s's (cpu-2s, 997 Hz)"
                    % (kind, bp, floor), "both idle: %s vs %s ms (ratio %s)" % (
                        fmt(_scale(A[bp]["tool_cpu_during"], 1e3), "", 2),
                        fmt(_scale(A[floor]["tool_cpu_during"], 1e3), "", 2),
                        fmt(r, "x")), True, note + "; " + IDLE_NOTE)
            else:
                add("[%s] %s's own CPU during the run <= 1.15x %s's (cpu-2s, 997 Hz)"
                    % (kind, bp, floor), fmt(r, "x"), bool(r and r["median"] <= 1.15),
                    note)
            b = R.get("%s/alone work_wall" % bp)
            f = R.get("%s/alone work_wall" % floor)
            vs_floor = paired(ov["runs"], bp, floor, "work_wall")
            ok = bool(b and f and b["median"] <= f["max"] and b["median"] >= f["min"] * 0.99) \
                or bool(b and f and b["median"] <= f["median"])
            ok = ok and not (vs_floor and vs_floor["verdict"] == "above")
            add("[%s] workload slowdown within %s's noise band (cpu-2s)" % (kind, floor),
                "%s %s vs %s %s" % (bp, fmt(b, "x"), floor, fmt(f, "x")), ok,
                paired_note(vs_floor, bp, floor))
            p = R.get("%s/alone work_wall" % perf)
            pc = R.get("%s/%s tool_cpu_during" % (bp, perf))
            if perf in A:
                both_idle = idle(A, bp) and idle(A, perf)
                cpu_ok = bool(pc and pc["median"] < 1.0) or both_idle
                vs_perf = paired(ov["runs"], bp, perf, "work_wall")
                # "not above": at the kernel's floor both slowdowns are the
                # kernel's, so only an interval wholly above 1 is a loss
                if vs_perf:
                    slow_ok = vs_perf["verdict"] != "above"
                else:
                    slow_ok = bool(b and p and b["median"] <= p["median"])
                add("[%s] slowdown not above %s's, own CPU below (cpu-2s)" % (kind, perf),
                    "slowdown %s %s vs %s %s; own CPU during the run %s/%s %s%s"
                    % (bp, fmt(b, "x"), perf, fmt(p, "x"), bp, perf, fmt(pc, "x"),
                       " (both idle)" if both_idle else ""),
                    slow_ok and cpu_ok,
                    "; ".join(x for x in (paired_note(vs_perf, bp, perf),
                                          IDLE_NOTE if both_idle else "") if x))
        for kind, bp, _, perf in PAIRS:
            ar = S.get("artifacts", {}).get("%s-100000" % kind)
            if ar:
                r = ar["ratios"].get("%s/%s to_artifacts" % (perf, bp))
                add("[%s] time to artifacts at 100k samples: %s >= 10x faster than %s + "
                    "perf script + fold" % (kind, bp, perf),
                    "%s faster" % fmt(r, "x", 1), bool(r and r["median"] >= 10))
        ar = S.get("artifacts", {}).get("dwarf-1000000")
        if ar:
            bp, perf = ar["bp"], ar["perf"]
            c = ratio_interval(per_rep_ratios(ar["runs"], perf, bp, "to_artifacts"))
            ok, note = times_faster_verdict(c, TIMES_FASTER_1M)
            add("[dwarf] time to artifacts at 1M samples: %s >= %.0fx faster than %s + "
                "perf script + fold" % (bp, TIMES_FASTER_1M, perf),
                "%s faster" % fmt(summarize(per_rep_ratios(ar["runs"], perf, bp,
                                                           "to_artifacts")), "x", 1),
                ok, note)
        rs = S.get("rss")
        if rs:
            lk = "%ds" % rs["long_s"]
            peak = rs["abs"][lk]["tree_maxrss_kib"]
            add("peak RSS on the long workload (%s) < 64 MiB" % lk,
                "%.1f MiB" % (peak["max"] / 1024), peak["max"] < 64 * 1024,
                "" if rs["long_s"] == 60 else "the issue's long workload is 60 s; BENCH_LONG=1 runs it")
            add("peak RSS of the long workload within 10% of the 10 s one",
                fmt(rs["ratio"], "x"), bool(rs["ratio"] and rs["ratio"]["max"] <= 1.10))
        oc = S.get("offcpu")
        if oc:
            sw = oc["abs"]["alone"]["switches_per_s"]
            for bp in ("record", "record-fp"):
                r = oc["ratios"].get("%s-offcpu/%s work_wall" % (bp, bp))
                c = paired(oc["runs"], bp + "-offcpu", bp, "work_wall")
                pk = "perf" + bp[len("record"):]
                pr = oc["ratios"].get("%s-offcpu/%s work_wall" % (pk, pk))
                br = oc["ratios"].get("%s-offcpu/%s-offcpu work_wall" % (bp, pk))
                fk = "floor" + bp[len("record"):]
                fr = oc["ratios"].get("%s-offcpu/%s work_wall" % (fk, fk))
                kernel = ("; the kernel alone (floor_sampler -s: the same records "
                          "and samples, drained unread), same repetitions: %s its "
                          "run without them" % fmt(fr, "x")) if fr else ""
                kernel += ("; perf record asked for the same data (context-switches "
                           "period 1 and --switch-events, %s): %s its run without "
                           "them (perf writes what it reads); benchprof/perf, both "
                           "with them: %s" % ("-g" if "-fp" in bp else "--call-graph dwarf",
                                              fmt(pr, "x"), fmt(br, "x"))
                           if pr else "; perf not run (not installed or not permitted)")
                add("--off-cpu on a token passed through pipes (%s switches/s alone) "
                    "<= 1.10x %s without it" % (fmt(sw, "", 0), bp), fmt(r, "x"),
                    bool(r and r["median"] <= 1.10),
                    "lost samples with it: %s; %s%s" % (
                        fmt(oc["abs"][bp + "-offcpu"]["lost"], "", 0),
                        paired_note(c, bp + "-offcpu", bp), kernel))
        wr = S.get("run")
        if wr:
            add("benchprof run wall on cpu-2s <= 1.05x the workload alone",
                fmt(wr["ratio"], "x"), bool(wr["ratio"] and wr["ratio"]["median"] <= 1.05))
        first_scale = len(t)
        bench_scale.targets(S, add, fmt)
        for x in t[first_scale:]:
            x["scale"] = True  # in their own blocks of the doc (bench_scale.block)
        self.results["targets"] = t
        return t

    def table(self):
        S = self.results["sections"]
        L = []
        if "overhead" in S:
            cols = [m for m in OVERHEAD_COLS
                    if any(m in s["abs"] for s in S["overhead"].values())]
            L.append("### 1. Overhead during the run (997 Hz, user-only cpu-clock)")
            L.append("")
            L.append("Ratios are per repetition (mode / other, same repetition), "
                     "median [min-max].  Compare within a kind: fp columns with fp, "
                     "dwarf (bp-auto) with dwarf.")
            L.append("")
            L.append("| workload | measure | %s |" % " | ".join(cols))
            L.append("|---|---|%s" % ("---|" * len(cols)))
            pair_of = {}
            for kind, bp, floor, perf in PAIRS:
                for m in (bp, floor, perf):
                    pair_of[m] = (bp, floor, perf)
            for w, s in S["overhead"].items():
                R, A = s["ratios"], s["abs"]

                def row(label, cell):
                    L.append("| %s | %s | %s |" % (w, label, " | ".join(cell(m) for m in cols)))

                row("workload wall / alone", lambda m: fmt(R.get("%s/alone work_wall" % m), "x"))
                row("workload CPU / alone", lambda m: fmt(R.get("%s/alone work_cpu" % m), "x"))
                row("whole command wall / alone", lambda m: fmt(R.get("%s/alone wall" % m), "x"))
                row("tool's own CPU before the workload's main, ms",
                    lambda m: fmt(_scale(A.get(m, {}).get("tool_cpu_startup"), 1e3), "", 1))
                row("tool's own CPU during the run (main..end of work), ms",
                    lambda m: fmt(_scale(A.get(m, {}).get("tool_cpu_during"), 1e3), "", 1))
                row("tool's own CPU after the run, ms",
                    lambda m: fmt(_scale(A.get(m, {}).get("tool_cpu_after"), 1e3), "", 1))
                row("benchprof: bytes per sample to $TMPDIR (stack bytes left out)",
                    lambda m: "%s (%s)" % (
                        fmt(A.get(m, {}).get("spilled_per_sample"), "", 0),
                        fmt(A.get(m, {}).get("trimmed_per_sample"), "", 0))
                    if A.get(m, {}).get("spilled_per_sample") else "")
                row("own CPU during the run / its kind's floor",
                    lambda m: "1" if m == pair_of[m][1] else fmt(
                        R.get("%s/%s tool_cpu_during" % (m, pair_of[m][1])), "x"))
            L.append("")
        if "artifacts" in S:
            L.append("### 2. Time to artifacts (workload exit -> all artifacts written) and 4. sizes")
            L.append("")
            L.append("| kind | samples (target) | freq | benchprof mode: samples (lost) | perf mode: samples | benchprof s | perf record tail s | perf script+fold s | perf total s | perf / benchprof | benchprof bytes | perf.data bytes |")
            L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
            for k, s in S["artifacts"].items():
                bp, perf = s["bp"], s["perf"]
                B, P = s["abs"][bp], s["abs"][perf]
                L.append("| %s | %s | %d | %s: %s (%s) | %s: %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    s["kind"], s["target"], s["freq"], bp, fmt(B["samples"], "", 0),
                    fmt(B["lost"], "", 0), perf, fmt(P["samples"], "", 0),
                    fmt(B["to_artifacts"]),
                    fmt(P["after_exit"]), fmt(P["script_fold"]), fmt(P["to_artifacts"]),
                    fmt(s["ratios"]["%s/%s to_artifacts" % (perf, bp)], "x", 1),
                    fmt(B["bytes"], "", 0), fmt(P["bytes"], "", 0)))
            L.append("")
        if "rss" in S:
            rs = S["rss"]
            L.append("### 3. Peak RSS (benchprof record -F 997, 4 threads)")
            L.append("")
            L.append("| run length | ru_maxrss of benchprof's tree, MiB | workload's own maxrss, MiB |")
            L.append("|---|---|---|")
            for k, v in rs["abs"].items():
                L.append("| %s | %s | %s |" % (k, fmt(_scale(v["tree_maxrss_kib"], 1 / 1024), "", 1),
                                               fmt(_scale(v["work_maxrss_kib"], 1 / 1024), "", 1)))
            L.append("| ratio long / 10 s | %s | |" % fmt(rs["ratio"], "x"))
            L.append("")
        if "run" in S:
            wr = S["run"]
            L.append("### 5. `benchprof run` (record + counters + artifacts + report) on cpu-2s")
            L.append("")
            if "floor_ratio" in wr:
                L.append("| alone wall s | benchprof run wall s | run / alone | floor-dwarf wall s "
                         "| floor-dwarf / alone | run / floor-dwarf |")
                L.append("|---|---|---|---|---|---|")
                L.append("| %s | %s | %s | %s | %s | %s |" % (
                    fmt(wr["abs"]["alone"]), fmt(wr["abs"]["run"]), fmt(wr["ratio"], "x"),
                    fmt(wr["abs"]["floor"]), fmt(wr["floor_ratio"], "x"),
                    fmt(wr["run_floor_ratio"], "x")))
                L.append("")
                L.append("The floor sampler column is the kernel's sampling alone (run's "
                         "default events: stack copies, 997 Hz) on the same workload, in "
                         "the same repetitions: what any sampler costs here before its own "
                         "start-up and artifacts.")
            if "repeat3_ratio" in wr:
                L.append("")
                L.append("| benchprof run --repeat 3 wall s | --repeat 3 / run (3 runs: 3x, "
                         "plus the merge of the profiles) |")
                L.append("|---|---|")
                L.append("| %s | %s |" % (fmt(wr["abs"]["repeat3"]),
                                         fmt(wr["repeat3_ratio"], "x")))
            else:
                L.append("| alone wall s | benchprof run wall s | ratio |")
                L.append("|---|---|---|")
                L.append("| %s | %s | %s |" % (fmt(wr["abs"]["alone"]), fmt(wr["abs"]["run"]),
                                              fmt(wr["ratio"], "x")))
            L.append("")
        if "inline" in S:
            il = S["inline"]
            L.append("### 6. Inlined frames (bench_inline: C++ -O2 -g, std::sort, std::map)")
            L.append("")
            L.append("`benchprof record -q --no-counters` with and without `--no-inline`, "
                     "interleaved; ratios per repetition, median [min-max].")
            L.append("")
            L.append("| measure | inline frames | --no-inline | ratio |")
            L.append("|---|---|---|---|")
            for k, unit in (("after_exit", "s"), ("symbolize_ms", " ms"), ("frames", "")):
                ratio = il["ratios"].get("inline/no-inline %s" % k)
                L.append("| %s | %s | %s | %s |" % (
                    k, fmt(il["abs"]["inline"][k], unit), fmt(il["abs"]["no-inline"][k], unit),
                    fmt(ratio, "x") if ratio else ""))
            L.append("")
        scale = bench_scale.table(S, fmt)
        if scale:
            L.append(scale)
        return "\n".join(L)

    def doc(self, table, targets):
        m = self.results["machine"]
        L = ["# benchprof performance", "",
             "Generated by `make bench` (tests/bench/harness.py); do not edit by hand.",
             "Numbers are from one run of the harness on the machine below, %d repetitions"
             " per mode%s, interleaved." % (self.results.get("reps", self.a.reps),
                                           self.cpu2s_reps_note()), "",
             "## Machine", ""]
        for k in ("Model name", "CPU(s)", "Thread(s) per core", "Hypervisor vendor",
                  "Virtualization type"):
            if k in m:
                L.append("- %s: %s" % (k, m[k]))
        L.append("- cores (os.cpu_count): %s" % m["cores"])
        L.append("- kernel: %s" % m["kernel"])
        L.append("- hardware PMU: %s (sampling uses the software clock, cpu-clock)"
                 % ("yes" if m["hardware_pmu"] else "no"))
        L.append("- perf_event_max_sample_rate: %s" % m.get("perf_event_max_sample_rate"))
        L.append("- perf: %s" % m.get("perf"))
        rp = m.get("ring_pages")
        if rp:
            page = os.sysconf("SC_PAGESIZE")
            L.append("- benchprof's rings per CPU (the floor sampler's too): %s" % ", ".join(
                "%s %d pages (%s KiB)" % (k, v, v * page // 1024) for k, v in sorted(rp.items())))
        L.append("- load average (1, 5, 15 min) at start: %s; at end: %s (other jobs"
                 " on the machine inflate the spread)" % (
                     ", ".join("%.2f" % x for x in m.get("loadavg_start", ())),
                     ", ".join("%.2f" % x for x in m.get("loadavg_end", ()))))
        L += ["", "## Targets (issue 8)", "", "| target | measured | met |", "|---|---|---|"]
        for t in targets:
            if t.get("scale"):
                continue
            L.append(bench_scale.target_row(t["target"], t["measured"], t["met"], t["note"]))
        L += ["", "## Measurements", "", table, ""]
        method = METHOD
        measured = [sec.get("target", 0) for sec in
                    self.results["sections"].get("artifacts", {}).values()]
        if max(measured, default=0) >= 1000000:
            # this run did measure them: drop the line saying it does not
            i = method.index("- 1M samples for time to artifacts by default")
            j = method.index("- ", i + 2)
            method = method[:i] + method[j:]
        L.append(method)
        return "\n".join(L)

    def cpu2s_reps_note(self):
        """', cpu-2s's overhead N' when that section ran another number."""
        sec = self.results["sections"].get("overhead", {}).get("cpu-2s")
        n = len(sec["runs"]) if sec else 0
        if n and n != self.results.get("reps", self.a.reps):
            return " (the overhead on cpu-2s, which the targets compare: %d)" % n
        return ""

    def render(self):
        """Table, targets and doc from self.results (e.g. --from-json);
        ratios are computed again from the raw runs."""
        a = self.a
        S = self.results["sections"]
        for sec in (list(S.get("overhead", {}).values()) + list(S.get("artifacts", {}).values())
                    + ([S["inline"]] if "inline" in S else [])):
            for k in sec["ratios"]:
                pair, key = k.split(" ", 1)
                mode, base = pair.split("/")
                sec["ratios"][k] = pairwise(sec["runs"], mode, base, key)
        targets = self.targets()
        table = self.table()
        print(table)
        print("Targets:")
        for t in targets:
            print("  [%s] %s: %s" % (verdict_word(t), t["target"], t["measured"]))
        self.write_doc(table, targets)

    def block_1m(self, table, targets):
        """The 1M-sample rows of a run of them alone, as a block of the
        doc: their table (section 2's columns) and their targets."""
        lines = table.split("\n")
        start = next((i for i, x in enumerate(lines) if x.startswith("### 2.")), None)
        part = []
        if start is not None:
            for x in lines[start + 1:]:
                if x.startswith("### ") or x.startswith("<!-- bench:"):
                    break
                part.append(x)
        L = ["<!-- bench:artifacts-1m -->",
             "### Time to artifacts at 1M samples, measured on their own (issue 23)", ""]
        L += part
        L += ["| target | measured | met |", "|---|---|---|"]
        for t in targets:
            if "1M samples" in t["target"]:
                L.append(bench_scale.target_row(t["target"], t["measured"], t["met"],
                                                t["note"]))
        when = self.results["sections"].get("_ran", {}).get("artifacts")
        L += ["", "Measured %s." % when if when else "", "<!-- /bench:artifacts-1m -->"]
        return "\n".join(L)

    def write_doc(self, table, targets):
        """The whole doc; after a run of scale rows only (--only
        fixed,publish,many), just their blocks in the doc there is, so a
        quick look at one row keeps every other figure."""
        a = self.a
        if not a.doc:
            return
        S = self.results["sections"]
        if bench_scale.only_scale(S) and os.path.exists(a.doc):
            with open(a.doc) as f:
                text = bench_scale.splice(f.read(), S, fmt)
            if bench_scale.only_1m(S):
                text = bench_scale.replace_block(text, "artifacts-1m",
                                                 self.block_1m(table, targets))
        else:
            text = self.doc(table, targets)
        with open(a.doc, "w") as f:
            f.write(text)
        print("doc: %s" % a.doc)

    def main(self):
        a = self.a
        t0 = time.monotonic()
        self.results["reps"] = a.reps
        self.calibrate()
        parts = a.only.split(",") if a.only else ["overhead", "artifacts", "rss", "run",
                                                  "inline", "offcpu", "fixed", "publish",
                                                  "many"]
        def now_and_load():
            return "%s, load average %.1f at the start" % (
                time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0])
        ran_at = {}
        if "overhead" in parts:
            self.overhead()
        if "artifacts" in parts:
            ran_at["artifacts"] = now_and_load()  # the 1M block's "Measured"
            self.artifacts()
        if "rss" in parts:
            self.rss()
        if "run" in parts:
            self.whole()
        if "inline" in parts:
            self.inline()
        if "offcpu" in parts:
            self.offcpu()
        scale_at = now_and_load()
        if "fixed" in parts:
            bench_scale.fixed_section(self, run_cmd, settle, rep_order, paired, pairwise)
        if "publish" in parts:
            bench_scale.publish_section(self, run_cmd, settle, rep_order, summarize,
                                        median_ci)
        if "many" in parts:
            bench_scale.many_section(self, run_cmd, settle, summarize, median_ci)
        ran_at.update({x: scale_at for x in bench_scale.SECTIONS if x in parts})
        if ran_at:
            self.results["sections"]["_ran"] = ran_at
        self.results["machine"]["loadavg_end"] = os.getloadavg()
        targets = self.targets()
        table = self.table()
        self.results["elapsed_s"] = time.monotonic() - t0
        print()
        print(table)
        print("Targets:")
        for t in targets:
            print("  [%s] %s: %s" % (verdict_word(t), t["target"], t["measured"]))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(self.results, f, indent=1)
            print("JSON: %s" % a.json)
        self.write_doc(table, targets)
        shutil.rmtree(self.tmp, ignore_errors=True)
        print("harness: %.0f s" % (time.monotonic() - t0))


def _scale(s, k):
    if not s:
        return s
    return {"median": s["median"] * k, "min": s["min"] * k, "max": s["max"] * k, "n": s["n"]}


METHOD = """## Method

- **Workloads** (`tests/bench/bench_work.c`, built by `make bench` with
  `-O2 -g -fno-omit-frame-pointer`): a recursive call tree with two leaf
  functions.  `cpu-2s` is a fixed amount of work calibrated to about 2 s of
  CPU on one thread; `threads4-2s` spreads about 2 s of wall time of work
  over 4 threads; `short-50ms` is about 50 ms, where start-up dominates.
  Fixed work (not fixed time) so that slowdown shows as a longer wall time.
  The workload reports its own wall time, `getrusage(RUSAGE_SELF)` and the
  CLOCK_MONOTONIC times its `main` started and its work ended.
- **Modes**, compared only within a kind, so each side asks the kernel for
  the same thing:
  - fp: `benchprof record -q --no-counters --all-user -F 997 -g fp` (`bp-fp`),
    `floor_sampler -F 997 -g fp` (`floor-fp`), `perf record -q -F 997 -g
    -e cpu-clock:u` (`perf-fp`);
  - dwarf: `benchprof record -q --no-counters --all-user -F 997` (`bp-auto`, the
    default `-g auto`: frame-pointer chain plus user registers and an
    8 KiB stack copy per sample, unwound after the run),
    `floor_sampler -F 997 -g dwarf` (`floor-dwarf`: the same sample_type,
    registers and stack size), `perf record -q -F 997
    --call-graph dwarf,8192 -e cpu-clock:u` (`perf-dwarf`, perf's default
    rings: 516 KiB per CPU for root).
  The floor sampler (`tests/bench/floor_sampler.c`) opens benchprof's
  perf_event_attr (one event per CPU, inherit, callchain, side-band
  records, the same wake-up watermark) with rings of the size benchprof
  used (read from its `summary.json`, `ring_bytes`, before the
  repetitions start; listed under the machine below) and only drains the
  rings (data_tail = data_head, no record read).  Both benchprof and perf sample
  `cpu-clock` in user space here.  Every repetition runs every mode once,
  in an order rotated by one each repetition and reversed every other
  one (with rotation alone each mode always came right after the same
  one, and what that one left behind, its files being written out or
  its rings freed, always landed on it); after each command the harness
  flushes dirty pages (`sync`) and waits 0.2 s, so that work happens
  between the commands and not during the next one.
- **What benchprof does while the command runs**: when the kernel wakes
  it (a ring three quarters full without stack copies; with them, an
  eighth of the ring short of full, at least 1 MiB and at most half the
  ring), it moves that ring's bytes to an unnamed file in `$TMPDIR` with
  one `pwritev` and hands the space back (`plugin/lib/spill.c`); nothing
  else.  With stack copies the rings are larger by default (64 MiB in
  all, 2 to 32 MiB per CPU: 32 MiB each on this 2-CPU machine), so that a
  2 s run fits in them and wakes benchprof only at its end; what the
  rings hold then is read where the kernel wrote it, after what was
  spilled.  Each sample's stack copy goes only as far as the kernel could
  copy it (its `dyn_size`; the rest of the 8 KiB the ring reserved is
  left out, the record rewritten to match): the row "bytes per sample to
  $TMPDIR" shows what that leaves.  Ordering the records across CPUs, interning stacks, DWARF
  unwinding (straight from the records) and symbolizing happen after the
  command exited, and are in "after the run" and in the time to
  artifacts.  A 2 s run at 997 Hz without stack copies fits in the rings
  and wakes benchprof only at its end; with stack copies, so does a 2 s run
  in the 32 MiB rings.
- **Tool's own CPU**: the tool's CPU time is the sum of
  `/proc/PID/task/*/schedstat` over its threads (in ns; the workload is
  another process and is not in it).  The workload itself reads it for its
  parent (the tool that started it: benchprof, perf or the floor sampler)
  when its `main` begins and when its work ends, which splits the tool's
  CPU exactly into start-up (exec, dynamic linking, opening events,
  fork/exec of the workload), during the run, and after the run (reading
  the records, unwinding, symbolizing, writing artifacts: the rest of the
  total, which a monitor thread reads until the tool exits).  (Earlier
  versions interpolated the monitor's 2-10 ms samples at those moments,
  which leaked a share of the work right after the run into "during".)
  "During the run" for the 50 ms workload is a few tenths of a
  millisecond, too little for a ratio.  As a
  cross-check, the tool's total is also taken as user+sys of the process
  tree from `wait4` minus the workload's own `getrusage` (`tool_cpu` in the
  JSON).  The kernel's sampling cost (the timer interrupt, the callchain
  walk) is charged to the workload, and shows as "workload CPU / alone".
- **Time to artifacts**: the tool's exit time (`wait4` returns) minus the
  workload's reported end time.  For perf, the tail of `perf record`
  (flush, build-ids) plus `perf script -F comm,ip,sym` piped into a Python
  fold (`harness.py --fold`) producing the same folded stacks as
  `profile.folded` (with `--call-graph dwarf`, perf script does the
  unwinding).  benchprof writes all five artifacts (Gecko JSON, pprof,
  folded, SVG, summary) in that time.  Pairs: `bp-fp` with `perf-fp`,
  `bp-auto` with `perf-dwarf`.  The sample counts are made with `-F 9973`
  on a 2-thread fixed-work workload sized to 10k, 100k (and, with
  BENCH_LONG=1, 1M) samples by a
  short trial run per benchprof mode (cpu-clock counts the task's CPU
  time, so the count holds even when other jobs share the CPUs; sampling
  at 10 kHz makes the work itself cost more CPU, which the trial accounts
  for).  The columns show the sample counts really recorded (and
  benchprof's lost samples).  The dwarf 100k row runs 2 repetitions by
  default (perf writes about 800 MB a run) and all of them under
  `BENCH_LONG=1`, the 1M rows `--pairs-1m` pairs each (3 under
  `BENCH_LONG=1`, one otherwise).  The 1M dwarf target is met only when
  the whole interval of the median of perf/benchprof per pair lies at or
  above 10x (the sign test's 95% interval with 6 pairs or more, else the
  smallest and largest ratio, which hold the median with 75% for 3
  pairs: the row says which).  The tail of `perf record` is
  either about 0.05 s
  or about 1 s, with the same 20 ms of CPU: perf's side-band thread (BPF
  events) polls with a 1 s timeout and `perf record` joins it after the
  command exits, so perf waits for that thread's next timeout (seen with
  `strace -f`: the main thread in `futex` for 0.97 s while the thread
  finishes a `poll`).  How long depends on where in its second the
  command ended; the median of the "perf total" column moves with it,
  and the ratio with it (at 100k fp samples, about 12x when perf's tail
  is short, about 30x when it is long).  It is perf's default and is
  left in: it is what a user of `perf record` waits.
- The dwarf 1M row is the slowest to repeat (1.4 to 2.8 s for benchprof
  across runs here, on a quieter machine).  benchprof spills 5 to 9 GB
  of stack copies for it, and this machine's kernel writes files that
  large out and drops pages of them even with most of its memory free
  (a 6 GB file written with `dd`: 0.5 GB of it gone from the page cache
  35 s later).  That is DAMON's proactive reclaim, set up on this
  machine (`/sys/kernel/mm/damon/admin/kdamonds/0`: physical memory,
  action `pageout`, regions not accessed for 12 aggregation intervals of
  5 s, file pages not mapped by any process, at most 128 MiB a second):
  the spill's first minute is paged out before the run ends, and perf's
  perf.data the same.  Reading the
  spill back then waits for the disk, and for the helper punching out
  what was read, which holds the file's invalidate lock while it waits
  for pages under writeback (benchprof's context switches after the run,
  `perf record -e sched:sched_switch -g`: 58% waiting for pages read
  from the disk, 28% for that lock).  Asking the disk to read 16 MiB
  ahead once a step was not in memory (`POSIX_FADV_WILLNEED`) moved the
  waits onto that lock and gained nothing: not kept.
- **Peak RSS**: `ru_maxrss` from `wait4` on `benchprof record` is the
  largest of benchprof and its (reaped) children; the workload's own maxrss
  is shown next to it, so a tree value above the workload's is benchprof's.
- **Sizes**: bytes of benchprof's output directory against perf.data alone.

## Not measured

- `-g dwarf` on its own (the dwarf rows use the default `-g auto`, which
  copies the same stack and unwinds every sample too).
- Peak RSS is one run per length by default (`--rss-reps N` for more).
  It is the tree's `ru_maxrss`: it includes the forked child before its
  exec (a copy of benchprof at that point), so it is a bound, not
  benchprof's heap.
- 1M samples for time to artifacts by default (about 50 s of sampling
  per run and mode here, 10 kHz on two CPUs): `BENCH_LONG=1 make bench`
  adds them, three pairs each (`--pairs-1m N`; `--kinds dwarf` for
  the dwarf rows alone).
- The 60 s long workload by default: `BENCH_LONG=1 make bench` runs 10 s vs
  60 s; the default compares 10 s with 20 s to keep `make bench` short.
- Hardware events: this machine has no PMU; on a PMU machine the per-sample
  cost is far lower and the ratios to the floor will differ.
- Timings have few repetitions; on a shared 2-vCPU VM the spread is large.
  Read the min-max, not only the median.  Wall-time slowdowns below 1.0x
  are other jobs' load moving between repetitions, not speed-ups.
- Counters: the overhead rows use `benchprof record --no-counters` (the
  floor and perf record open no counters either); the counting group is
  only in the `benchprof run` row.
- `perf record` samples `cpu-clock:u` (user only, as benchprof does), not
  kernel stacks; `perf script` is asked for `comm,ip,sym` only, its
  fastest useful output.
- The slowdown checks against the floor and against perf compare the two
  per repetition: benchprof's workload wall time over the other's in the
  same repetition, and a confidence interval for the median of those
  ratios (distribution-free: the k-th smallest and k-th largest ratio,
  k chosen from the sign test's binomial so that the interval holds the
  true median with 95% or more; 4 x reps + 1 repetitions under
  `BENCH_LONG=1` give one).  "Not above perf's" is met unless the whole
  interval lies above 1; when it contains 1 the row says "tied": this
  run cannot tell the two apart, whichever median came out lower, and a
  tie is met (at the kernel's floor, "below" could only come from noise).
  Without enough repetitions the medians are compared, and the row says
  so.  "Within the floor's noise band" fails when the interval lies
  wholly above 1.
- Why the slowdowns against perf tie here: benchprof asks the kernel for
  the same samples as perf (frame pointers: the same sample_type; dwarf:
  perf also copies 8 KiB of stack, with a few more registers and without
  the frame-pointer walk), and at 997 Hz on cpu-2s neither does
  anything that touches the workload's CPU while it runs (perf with
  frame pointers is idle too; perf with stack copies writes perf.data
  on the other CPU), so both slowdowns are the kernel's: the timer
  interrupt of every sample, which a floor sampler without callchains
  costs the workload as much.  perf's start-up (about 150 ms of CPU) is
  counted before the workload's `main`, not in it.
- On this machine the software clock's sampling cost alone (the floor's
  workload slowdown, about 1.04-1.08x at 997 Hz: every timer interrupt of
  a virtual machine exits to the hypervisor) uses up most or all of the
  budget of the `benchprof run` target (1.05x) before benchprof's start-up
  and artifacts are counted; section 5 shows the floor sampler next to it.

## Where benchprof's own time went, and what was done

Profiled with itself (`benchprof record -g dwarf -F 20000 -o self --
benchprof run ...`, folded stacks aggregated by function):

- During the run, benchprof used to read every record as it arrived
  (parse, order across CPUs, intern stacks, copy 8 KiB stack dumps to a
  spool): 4.7x (fp) and 8.3x (dwarf) the floor's CPU.  Now it only moves
  ring bytes to a file when woken, and is woken late (`spill.c`,
  `fill_sampling_attr`); all the rest happens after the command exited.
  With frame pointers a 2 s run fits in the 2 MiB rings and wakes nothing.
  With stack copies the cost that remained was the copy itself: about
  8 MiB/s per busy CPU moved from the ring to the page cache (70% of
  benchprof's CPU during the run was the kernel's page-cache writing),
  which the floor (which never reads a byte) does not pay; perf record
  pays the same copy to perf.data.  Measured and dropped: tmpfs for the
  spill files (slower here), `O_DIRECT` writes from the ring's pages
  (EFAULT: perf's pages cannot be pinned).  What worked: rings that hold
  the run.  With stack copies the rings now take 64 MiB of kernel memory
  in all by default (2 to 32 MiB per CPU, `record.h`), and the wake-up
  point leaves an eighth of a ring free (4 MiB, half a second at 997 Hz,
  instead of half the ring): a 2 s benchmark wakes nothing, and own CPU
  during the run went from 4.9 ms to the floor's idle level.  A ring that
  only says its command exited (POLLHUP) is no longer spilled, and at the
  end the rings are read in place after the spill files instead of being
  written to them and read back.  The price is start-up: the kernel
  allocates and maps the rings' pages at `mmap` (about 10 ms for 64 MiB
  here, before the workload starts; 2 ms for the 2 MiB rings before), and
  the memory, locked, for as long as the command runs; `-m` chooses
  smaller rings, and a machine with 32 CPUs or more gets 2 MiB rings as
  before.
- After the run: DWARF unwinding was 72% (libdwfl per frame); a fast path
  now compiles each CFI row once (CFA = rsp/rbp + N) and applies it to the
  stack copy, with libdwfl for anything else (`unwind.c`, checked against
  libdwfl on real samples by `test_unwind`); samples are unwound from the
  records as they are read back, with no second spool of their stacks; a
  frame-pointer chain seen before reuses its interned stack
  (`converter.c`).
- After the run, next round (100k dwarf samples, 0.30 s -> 0.16-0.17 s here):
  a sample with stack copies now reuses the stack of an earlier one with
  the same callchain and the same unwound pcs (one hash a word at a
  time, `converter.c`), instead of interning every frame of both chains
  (the profile showed the interning maps above the unwinder itself); the
  spill files are read back mapped, records used where they lie, pages
  given back behind the reader every 1 MiB, and a file more than 10 ms
  ahead of the others waits so that what is queued (and mapped) stays
  bounded (section 3).  An earlier round had measured mapping slower
  than `pread` into a buffer; measured again on this kernel, reading
  700 MB mapped took 22 ms against 88 ms for the copy, and the time to
  artifacts fell from 0.22 to 0.18 s; `pread` stays for a file that
  cannot be mapped.  So that a page that cannot be read back (written
  out, dropped, then a disk error) is an error and not a SIGBUS that
  would take the command's status with it, the reader asks `mincore()`
  ahead of itself whether the next 1 MiB are in memory and faults in
  what is not with `MADV_POPULATE_READ` (populating every page whether
  or not it was in memory cost 20 ms of the 0.16 s).  Stack copies go to
  the file only up to their `dyn_size`.  What is left after the run:
  unwinding, reading the records (their pages are first touched then),
  and closing the spill files, when the kernel frees their page cache
  (about 35 ms for 700 MB here: a fifth of the time).  Closing them on a
  thread of their own hid that behind the exporters (0.17 -> 0.14 s),
  but creating a thread makes glibc install a handler for a signal of
  its own (SIGSETXID), so a command started after it would no longer
  inherit that signal as the user left it (`segments_each.sh` checks
  every command's dispositions): not done (a later round does it with a
  process, below).
- After the run, third round (100k dwarf samples, about 0.20 -> 0.15 s
  measured side by side here): profiled again, the rest of the time was
  memory: records read back from a spill file were written long before
  and are in no cache, and each sample's fields, callchain, registers and
  stack top are 8 KiB from the last.  The sampler now prefetches the
  record two places ahead of the one being unwound (its first KiB and
  its end, `deliver` in `sampler.c`): unwinding fell from a fifth to a
  tenth of the profile.  Records are ordered by merging the runs the
  queue already holds (what the last round kept, then each ring's new
  records, each in time order) instead of a `qsort` of the whole queue
  each round (a sixth of the time); one unwind in eight is timed for
  `unwind_ms` (two clock reads per sample were 5% of it); the Gecko
  file's sample times are written to the microsecond, not the
  nanosecond (the file is 27% smaller; compressing it is 13 ms of what
  is left).  Still left: the first read of each record's header (a
  cache and TLB miss per record: a fifth), unwinding, and the exporters.
  Prefetching the next header in the ring reader changed nothing
  measurable and was dropped.
- After the run, fourth round (100k dwarf samples, 0.147 -> 0.123 s,
  medians of 18 runs side by side here): profiled again, closing the
  spill files was 45% of what was left: the kernel frees their page
  cache (hundreds of megabytes of stack copies, one buffer head per
  block) in `close()`.  A helper process, forked when the files are
  about to be read back, holds a copy of their descriptors, punches out
  (`FALLOC_FL_PUNCH_HOLE`) every 8 MiB the readers are done with, and
  closes its copies after benchprof closed its own, so the freeing runs
  on the other CPU while benchprof unwinds and writes the artifacts
  (`bp_spill_freer`, `spill.c`).  A process, not a thread (see the
  second round); benchprof waits for it before it returns, so none of
  that work spills into the next benchmark.  Asking the kernel to map
  each step ahead (`MADV_POPULATE_READ`) instead of `mincore()` plus the
  page faults measured the same and was not kept.
- After the run, fifth round (100k dwarf samples, 0.113 -> 0.104 s,
  medians of 16 runs side by side here): asking whether the next MiB of
  a spill file is in memory was a tenth of what was left, `mincore()`
  looking up each of its 256 pages on its own; `cachestat(2)` (Linux
  6.5) counts them in one walk of the range, and `mincore()` stays for
  older kernels (`spill.c`).
- After the run, sixth round (issue 23, the 1M dwarf row): profiled at
  1M samples (`perf record -a --call-graph dwarf` from the workload's
  exit), half of benchprof's CPU was the first load of each record's
  header in the mapped spill file: on this virtual machine the first
  touch of each page of a mapping exits to the hypervisor, a cost that
  grows with the file (about 2 us a page, two pages a sample).  The
  files are now read back with `pread()` into the 1 MiB reader buffer,
  which stays mapped: a copy instead of an exit per page.  Side by side
  on one build, under load: 100k samples 0.22-0.39 s against 0.53-0.77 s
  mapped; 300k, 0.84-1.54 s against 4.3-4.5 s.  Keeping the written
  pages mapped during the run (populated after each write, so that the
  reclaimer below skips them) was tried and dropped: it paid the same
  first touch and gained nothing.
- `benchprof run` after the command: the identity (commit, branch,
  project) is resolved once for publishing and comparing, from one
  `git rev-parse` instead of six git processes (`ci.c`).
- Start-up: the first perf event of a task on a machine where none was
  open for a while makes the kernel switch its scheduler hooks on (a
  static key and an RCU grace period: 9 to 22 ms inside one
  `perf_event_open` here); whichever tool runs first after a pause pays
  it, so "before the workload's main" varies by the order of the modes.
- Start-up: loading libcurl and libmicrohttpd (about 30 libraries, 9,000
  relocations, ~14 ms per process) now happens only when publishing or
  serving (`dlopen`, `http.c`, `serve.c`); libpfm4 (41,000 relocations
  and `pfm_initialize`, ~10 ms) only for a name outside perf's generic
  events, which `events.c` encodes itself, identically (`test_events`);
  symbolizing a stripped program
  no longer makes libdw load libdebuginfod and its libcurl (local debug
  files only, `symbols.c`).
- libc6-dbg's compressed DWARF used to cost 70% of a short run's CPU:
  file:line is looked up only for the benchmark's own modules.
- **Scale rows (issue 23, `tests/bench/bench_scale.py`).** *Fixed cost*:
  `benchprof record -q --no-counters --all-user -F 997` (the default call
  graph) against the workload alone on cpu-0.7s (target 1.03x) and
  against the bare sampler on short-50ms (target 1.05x), whole command
  wall time, paired per repetition (2 x reps + 1; BENCH_LONG=1: 4 x reps
  + 1); met when the median ratio is within the target and its confidence
  interval does not lie wholly above it.  Beside them the bare sampler
  with 2 MiB rings (benchprof's without stack copies): what the kernel's
  sampling costs before large rings.  *Publishing*: 100 benchmarks
  marked by `tests/bench/mark_many.py`, `benchprof run` to an http://
  store stand-in (`tests/servers/put_server.py`, 20 ms a request, 50 ms a
  new connection) minus the same run with `--no-publish` in the same
  repetition; the stand-in counts the requests (objects) and the
  connections it accepted; target 5 s.  *Many*: 10,000 marked benchmarks
  with BMF results, `benchprof run` published to a file:// store then
  `benchprof compare` with the run before, end to end; target 10 s
  (`BENCH_MANY=N` measures N instead, for a quicker look).  A run of
  these rows alone (`--only fixed,publish,many`) rewrites only their
  blocks of this file (between `<!-- bench:NAME -->` markers), each with
  its targets and when it was measured, and keeps every other figure.
- Scale, where the time of a suite of 10,000 benchmarks went (each found
  by profiling `benchprof run` with `benchprof record --off-cpu`):
  - every benchmark's profile was a copy of the whole run's tables; a
    slice now holds only what its samples use (a benchmark without
    samples: a 267-byte pprof file, not 42 KB);
  - lookups by benchmark name in compare, the manifest and Bencher's ids
    were scans, quadratic over a suite; they use an index built once
    (`bp_name_index`, `hash.c`);
  - creating files: on this disk (ext4, mounted with `discard`) each
    new inode is found by scanning past the ones freed in the last
    minutes (`recently_deleted` under `__ext4_new_inode`), which a job
    that just removed its last run has thousands of.  The spool's marker
    per artifact (a file each) became a line of `done.log`, and the file
    store hard links the run's artifacts instead of copying them
    (`link_into`, `store.c`): the 15 files created per benchmark (5
    artifacts, their 5 store copies, 5 markers) became the 5 artifacts;
  - `manifest.json` (2.4 KB a benchmark, 24 MB for 10,000) was parsed
    with a copy of every subtree, printed by doubling its buffer, and the
    stored manifest made twice per publication: now subtrees are taken,
    printed by reference into one buffer, made once.  CPU of the run:
    44 s -> 18 s (samples of `benchprof record` over the run, 997 Hz);
    end to end on a quiet machine (this row, 2 repetitions each), 44.2 s
    -> 22.2 s (run and publish 38.0 -> 17.3 s, compare 6.3 -> 4.9 s);
  - what is left: the run's 50,000 artifacts (their inodes: a third of
    the run's CPU in the kernel), compare's 30,000 diff files and its
    parsing of 20,000 `summary.json` files, and the manifest parsed
    twice more by the publication (for the stored manifest, for the run
    directory's note; a publication made by `run` is handed the parsed
    manifest instead of reading its spooled copy).
"""


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--fold":
        fold_perf_script(sys.stdin, sys.stdout)
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchprof")
    ap.add_argument("--work")
    ap.add_argument("--floor")
    ap.add_argument("--from-json", help="only re-render the table and --doc from a JSON"
                    " file an earlier run wrote")
    ap.add_argument("--json")
    ap.add_argument("--doc")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rss-reps", type=int, default=1)
    ap.add_argument("--only", help="comma list: overhead,artifacts,rss,run,inline,"
                    "offcpu,fixed,publish,many")
    ap.add_argument("--inline-work", help="bench_inline, for the cost of inlined frames")
    ap.add_argument("--switch-work", help="bench_switch, for the cost of --off-cpu")
    ap.add_argument("--samples", default=None,
                    help="comma list of sample counts for time to artifacts"
                    " (default 10000,100000; with BENCH_LONG=1 also 1000000)")
    ap.add_argument("--pairs-1m", type=int, default=None,
                    help="pairs (benchprof, perf) per 1M-sample row (default 1; 3 with"
                    " BENCH_LONG=1)")
    ap.add_argument("--kinds", default="fp,dwarf",
                    help="comma list of call-graph kinds for time to artifacts (fp,dwarf)")
    a = ap.parse_args()
    if a.pairs_1m is None:
        a.pairs_1m = 3 if os.environ.get("BENCH_LONG") == "1" else 1
    a.kinds = [k for k in a.kinds.split(",") if k]
    if a.samples is None:
        a.samples = "10000,100000" + (",1000000" if os.environ.get("BENCH_LONG") == "1" else "")
    a.samples = [int(x) for x in a.samples.split(",") if x]
    if os.environ.get("BENCH_REPS"):
        a.reps = int(os.environ["BENCH_REPS"])
    if a.from_json:
        h = Harness.__new__(Harness)
        h.a = a
        with open(a.from_json) as f:
            h.results = json.load(f)
        h.render()
        return 0
    if not (a.benchprof and a.work and a.floor):
        ap.error("--benchprof, --work and --floor are required")
    for p in (a.benchprof, a.work, a.floor):
        if not os.access(p, os.X_OK):
            sys.stderr.write("harness: %s is not an executable\n" % p)
            return 2
    a.benchprof, a.work, a.floor = (os.path.abspath(p) for p in (a.benchprof, a.work, a.floor))
    Harness(a).main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
