"""The scale rows of `make bench` (issue 23), used by harness.py.

publish: 100 marked benchmarks (500 artifacts and the run's own) published
  to an http:// store behind a stand-in network (tests/servers/put_server.py:
  20 ms a request, 50 ms a new connection).  Each repetition runs the same
  command twice, once with --no-publish; the publishing time is the
  difference within the repetition.  The stand-in counts the requests
  (objects) and the connections it accepted.

many: 10,000 marked benchmarks (BMF results for each) run and published to
  a file:// store, then compared with the run before (compare.json and the
  comment): the end to end time of a pull request's job, `run` + `compare`.

fixed: the fixed cost of one invocation in the default call graph
  (`benchprof record -q --no-counters --all-user -F 997`, `-g auto`): the
  whole command's wall time against the workload alone on a 0.7 s
  workload, and against the bare sampler (floor_sampler -g dwarf, the same
  sampling into rings of benchprof's size) on a 50 ms one, paired within
  repetitions.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PUT_SERVER = os.path.join(HERE, "..", "servers", "put_server.py")
MARK_MANY = os.path.join(HERE, "mark_many.py")

PUBLISH_BENCHES = 100
PUBLISH_TARGET_S = 5.0
# BENCH_MANY=N measures N benchmarks instead (a quicker look; the target
# is for 10,000)
MANY_BENCHES = int(os.environ.get("BENCH_MANY") or 10000)
MANY_TARGET_S = 10.0


def _hash(i, salt):
    return ("%040x" % (i * 7919 + salt))[-40:]


def _start_store(tmp):
    port_file = os.path.join(tmp, "store.port")
    stats = os.path.join(tmp, "store.stats")
    log = open(os.path.join(tmp, "store.log"), "w")
    p = subprocess.Popen([sys.executable, PUT_SERVER, "--root", os.path.join(tmp, "root"),
                          "--port-file", port_file, "--stats", stats,
                          "--request-delay-ms", "20", "--connect-delay-ms", "50"],
                         stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        if os.path.exists(port_file) and os.path.getsize(port_file):
            break
        time.sleep(0.05)
    with open(port_file) as f:
        port = int(f.read())
    return p, log, stats, "http://127.0.0.1:%d/b" % port


def _stats(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"connections": 0, "requests": 0}


def publish_section(h, run_cmd, settle, rep_order, summarize, median_ci):
    """Section "publish" of h.results: per repetition the wall of a run
    published to the stand-in and of the same run unpublished, and the
    stand-in's counts for the published one."""
    reps = h.a.reps
    tmp = os.path.join(h.tmp, "publish")
    os.makedirs(tmp, exist_ok=True)
    server, log, stats, url = _start_store(tmp)
    h.say("publish: %d marked benchmarks to a store 20 ms away (50 ms a new "
          "connection), %d repetitions" % (PUBLISH_BENCHES, reps))
    runs = []
    try:
        for i in range(reps):
            rep = {}
            for m in rep_order(["local", "published"], i):
                out = os.path.join(tmp, "run-%d-%s" % (i, m))
                bmf = os.path.join(tmp, "bmf-%d.json" % i)
                cmd = [h.a.benchprof, "run", "-q", "-o", out, "--bmf", bmf]
                if m == "local":
                    cmd += ["--no-publish"]
                else:
                    cmd += ["--project", "bench", "--branch", "main", "--testbed", "box",
                            "--hash", _hash(i, 1), "--store", url,
                            "--spool", os.path.join(tmp, "spool")]
                before = _stats(stats)
                r = run_cmd(cmd + ["--", sys.executable, MARK_MANY,
                                   str(PUBLISH_BENCHES), "2", bmf], monitor=False)
                after = _stats(stats)
                if m == "published":
                    r["requests"] = after["requests"] - before["requests"]
                    r["connections"] = after["connections"] - before["connections"]
                    left = os.path.join(tmp, "spool")
                    r["spooled"] = len(os.listdir(left)) if os.path.isdir(left) else 0
                rep[m] = r
                shutil.rmtree(out, ignore_errors=True)
                settle()
            runs.append(rep)
    finally:
        server.terminate()
        server.wait()
        log.close()
    diffs = [r["published"]["wall"] - r["local"]["wall"] for r in runs]
    ci = median_ci(diffs)
    h.results["sections"]["publish"] = {
        "benchmarks": PUBLISH_BENCHES, "runs": runs,
        "publish_s": summarize(diffs), "publish_ci": ci,
        "requests": summarize([r["published"]["requests"] for r in runs]),
        "connections": summarize([r["published"]["connections"] for r in runs]),
        "spooled": max(r["published"]["spooled"] for r in runs),
        "failed": sum(1 for r in runs for m in r.values() if m["rc"] != 0),
    }


def many_section(h, run_cmd, settle, summarize, median_ci):
    """Section "many": per repetition a run of MANY_BENCHES benchmarks
    published to a file:// store and `benchprof compare` of it with the
    run before (the first repetition's base is an extra run)."""
    reps = max(2, h.a.reps // 2) if os.environ.get("BENCH_LONG") != "1" else h.a.reps
    tmp = os.path.join(h.tmp, "many")
    os.makedirs(tmp, exist_ok=True)
    store = "file://" + os.path.join(tmp, "store")
    h.say("many: %d marked benchmarks, run + publish (file store) + compare, "
          "%d repetitions" % (MANY_BENCHES, reps))

    def run(i):
        out = os.path.join(tmp, "run-%d" % i)
        bmf = os.path.join(tmp, "bmf-%d.json" % i)
        r = run_cmd([h.a.benchprof, "run", "-q", "-o", out, "--bmf", bmf,
                     "--project", "bench", "--branch", "main", "--testbed", "box",
                     "--hash", _hash(i, 2), "--store", store,
                     "--spool", os.path.join(tmp, "spool"), "--",
                     sys.executable, MARK_MANY, str(MANY_BENCHES), "0", bmf],
                    monitor=False)
        return out, r

    runs = []
    base, _ = run(0)
    settle()
    for i in range(1, reps + 1):
        alone = run_cmd([sys.executable, MARK_MANY, str(MANY_BENCHES), "0"],
                        monitor=False)
        settle()
        head, r = run(i)
        settle()
        c = run_cmd([h.a.benchprof, "compare", "-o", os.path.join(tmp, "cmp-%d" % i),
                     base, head], monitor=False)
        # every run and comparison is removed at the end, not here: on a
        # file system that skips recently freed inodes when it makes new
        # ones (ext4 without a journal: each freed in the last minutes is
        # passed over, one by one), removing 60,000 files here charged the
        # next repetition for this one's clean-up
        base = head
        runs.append({"alone": alone, "run": r, "compare": c,
                     "end_to_end": r["wall"] + c["wall"]})
        settle()
    shutil.rmtree(tmp, ignore_errors=True)
    e2e = [x["end_to_end"] for x in runs]
    h.results["sections"]["many"] = {
        "benchmarks": MANY_BENCHES, "runs": runs,
        "end_to_end": summarize(e2e), "end_to_end_ci": median_ci(e2e),
        "run_s": summarize([x["run"]["wall"] for x in runs]),
        "compare_s": summarize([x["compare"]["wall"] for x in runs]),
        "alone_s": summarize([x["alone"]["wall"] for x in runs]),
        # CPU (the process tree's user + system): what a quieter machine
        # would see of the wall time, when other jobs inflate it
        "run_cpu_s": summarize([x["run"].get("tree_cpu") or 0 for x in runs]),
        "compare_cpu_s": summarize([x["compare"].get("tree_cpu") or 0 for x in runs]),
        "failed": sum(1 for x in runs for k in ("run", "compare")
                      if x[k]["rc"] not in (0,)),
    }


FIXED_LOADS = (("cpu-0.7s", 0.7, "alone", 1.03), ("short-50ms", 0.05, "floor", 1.05))


def fixed_section(h, run_cmd, settle, rep_order, paired, pairwise):
    """Section "fixed": per load, alone, the floor sampler and benchprof's
    default mode, interleaved; whole-command wall ratios per repetition."""
    reps = h.a.reps * (4 if os.environ.get("BENCH_LONG") == "1" else 2) + 1
    sec = {}
    for name, secs, base, target in FIXED_LOADS:
        args = ["-t", 1, "-n", max(1, int(secs * h.ups))]
        h.say("fixed cost: %s, %d repetitions" % (name, reps))
        runs = []
        for i in range(reps):
            rep = {}
            for m in rep_order(["alone", "floor", "floor_small", "default"], i):
                out = os.path.join(h.tmp, "fixed-%s-%d" % (name, i))
                if m == "alone":
                    cmd = h.work(*args)
                elif m == "floor":
                    # the same rings as benchprof's (section 1 does the
                    # same): allocating them is part of what both pay
                    cmd = [h.a.floor, "-F", "997", "-g", "dwarf",
                           "-m", str(h.ring_pages["dwarf"]), "--"] + h.work(*args)
                elif m == "floor_small":
                    # the kernel's cost with rings as small as benchprof's
                    # without stack copies (2 MiB): what sampling alone
                    # costs, whatever the ring size chosen
                    cmd = [h.a.floor, "-F", "997", "-g", "dwarf",
                           "-m", str(h.ring_pages["fp"]), "--"] + h.work(*args)
                else:
                    # the sampling the floor sampler does (user space, 997
                    # Hz, no counters), in benchprof's default call graph
                    cmd = [h.a.benchprof, "record", "-q", "--no-counters", "--all-user",
                           "-F", "997", "-o", out, "--"] + h.work(*args)
                rep[m] = run_cmd(cmd, h.report)
                shutil.rmtree(out, ignore_errors=True)
                settle()
            runs.append(rep)
        sec[name] = {"base": base, "target": target, "runs": runs,
                     "ratio": pairwise(runs, "default", base, "wall"),
                     "paired": paired(runs, "default", base, "wall"),
                     "alone_ratio": pairwise(runs, "default", "alone", "wall"),
                     "floor_ratio": pairwise(runs, "floor", "alone", "wall"),
                     "floor_small_ratio": pairwise(runs, "floor_small", "alone", "wall"),
                     "floor_small_paired": paired(runs, "floor_small", "alone", "wall"),
                     "phases": fixed_phases(runs)}
    h.results["sections"]["fixed"] = sec


# Where a whole command's wall time goes, from the workload's own clock
# readings: before its main (the tool's start-up, its rings, the exec),
# its run, and after the end of its work (the tool reading, symbolizing,
# writing and exiting).
PHASES = ("before_main", "run", "after_exit")


def _summ(values):
    """median, min, max of values (None when there are none)."""
    v = [x for x in values if x is not None]
    return {"median": statistics.median(v), "min": min(v), "max": max(v),
            "n": len(v)} if v else None


def fixed_phases(runs):
    """Per mode and phase, the median ms; and default minus floor per
    repetition (paired), median [min-max] ms."""
    out = {}
    for m in ("alone", "floor", "default"):
        out[m] = {k: _summ([1000 * r[m][k] for r in runs if k in r.get(m, {})])
                  for k in PHASES + ("wall",)}
    out["default-floor"] = {
        k: _summ([1000 * (r["default"][k] - r["floor"][k]) for r in runs
                      if k in r.get("default", {}) and k in r.get("floor", {})])
        for k in PHASES + ("wall",)}
    return out


def _within(ci, s, target):
    """met: the median is within target and, when the repetitions give a
    confidence interval, it does not lie wholly above target."""
    if not s:
        return False
    if ci and ci["lo"] > target:
        return False
    return s["median"] <= target


def _ci_note(ci, unit="s"):
    if not ci:
        return "too few repetitions for a confidence interval of the median"
    return ("%.1f%% confidence interval of the median [%.2f-%.2f] %s over %d "
            "repetitions" % (100 * ci["coverage"], ci["lo"], ci["hi"], unit, ci["n"]))


SECTIONS = ("fixed", "publish", "many")


def targets(S, add, fmt):
    """The rows' targets, added through add(name, measured, met, note)."""
    for sec in SECTIONS:
        section_targets(S, sec, add, fmt)


def section_targets(S, sec, add, fmt):
    """The targets of one of SECTIONS (nothing when it did not run)."""
    if sec == "fixed":
        _fixed_targets(S, add, fmt)
    elif sec == "publish":
        _publish_target(S, add, fmt)
    elif sec == "many":
        _many_target(S, add, fmt)


def _fixed_targets(S, add, fmt):
    for name, s in S.get("fixed", {}).items():
        c = s["paired"]
        ok = bool(s["ratio"] and s["ratio"]["median"] <= s["target"]) and \
            not (c and c["lo"] > s["target"])
        base = "the workload alone" if s["base"] == "alone" else "the bare sampler"
        note = (("paired per repetition; %.1f%% confidence interval of the median "
                 "[%.4f-%.4f] over %d repetitions" % (100 * c["coverage"], c["lo"], c["hi"],
                                                       c["n"])) if c else
                "too few repetitions for a confidence interval")
        add("default call graph (-g auto) whole command wall <= %.2fx %s (%s)"
            % (s["target"], base, name), fmt(s["ratio"], "x"), ok,
            note + _floor_note(s))


def _floor_note(s):
    """Against the workload alone: whether the bare sampler itself, with
    small rings, already costs more than the target (nothing a sampler adds
    on top can then meet it on this machine)."""
    small = s.get("floor_small_paired")
    if s["base"] != "alone" or not small:
        return ""
    if small["lo"] > s["target"]:
        return ("; the bare sampler alone, with 2 MiB rings, costs %.3fx "
                "[%.3f-%.3f]: the target lies below the kernel's own cost here"
                % (small["median"], small["lo"], small["hi"]))
    return ("; the bare sampler alone, with 2 MiB rings, costs %.3fx [%.3f-%.3f]"
            % (small["median"], small["lo"], small["hi"]))


def _publish_target(S, add, fmt):
    p = S.get("publish")
    if p:
        ok = _within(p["publish_ci"], p["publish_s"], PUBLISH_TARGET_S) and \
            not p["failed"] and not p["spooled"]
        add("%d marked benchmarks published to a store 20 ms away (50 ms a new "
            "connection) in <= %.0f s" % (p["benchmarks"], PUBLISH_TARGET_S),
            "%s; %s objects over %s connections" % (
                fmt(p["publish_s"], " s", 2), fmt(p["requests"], "", 0),
                fmt(p["connections"], "", 0)),
            ok, "the run published minus the same run unpublished, per repetition; "
            + _ci_note(p["publish_ci"]))


def _many_target(S, add, fmt):
    m = S.get("many")
    if m:
        ok = _within(m["end_to_end_ci"], m["end_to_end"], MANY_TARGET_S) and not m["failed"]
        add("%d marked benchmarks: run + publish (file store) + compare < %.0f s"
            % (m["benchmarks"], MANY_TARGET_S),
            "%s (run %s, compare %s; the harness alone %s)" % (
                fmt(m["end_to_end"], " s", 1), fmt(m["run_s"], " s", 1),
                fmt(m["compare_s"], " s", 1), fmt(m["alone_s"], " s", 1)),
            ok, _ci_note(m["end_to_end_ci"]))


def _fixed_table(S, fmt):
    fx = S["fixed"]
    L = ["### Fixed cost per invocation (issue 23)", "",
         "Whole command wall time, `benchprof record -q --no-counters --all-user "
         "-F 997` (the default call graph, auto) and "
         "the bare sampler (floor_sampler -g dwarf, 997 Hz, rings of benchprof's size) against the workload "
         "alone, per repetition, median [min-max].", "",
         "| workload | default / alone | floor / alone | floor, 2 MiB rings / alone "
         "| default / target base |",
         "|---|---|---|---|---|"]
    for name, s in fx.items():
        small = s.get("floor_small_paired")
        L.append("| %s | %s | %s | %s%s | %s (vs %s) |" % (
            name, fmt(s["alone_ratio"], "x"), fmt(s["floor_ratio"], "x"),
            fmt(s.get("floor_small_ratio"), "x"),
            " (CI of the median [%.3f-%.3f])" % (small["lo"], small["hi"]) if small else "",
            fmt(s["ratio"], "x"), s["base"]))
    L += ["", "The third column is the bare sampler with rings of 2 MiB per CPU "
          "(benchprof's without stack copies) instead of benchprof's: what the "
          "kernel's sampling costs this workload before any ring is allocated "
          "beyond that."]
    L += _phases_table(fx, fmt)
    return L


def _phases_table(fx, fmt):
    """Where the whole command's time goes, per workload: before the
    workload's main, its run, after the end of its work."""
    L = ["", "Where the time goes, ms, median [min-max] over the repetitions: "
         "from the command's start to the workload's main (start-up, rings, "
         "exec), the workload's run (main to the end of its work), and from "
         "there to the command's exit (reading, unwinding, symbolizing, "
         "writing the artifacts, exiting).  The last row is benchprof minus "
         "the bare sampler within each repetition.", "",
         "| workload | | before main | run | after the end | whole command |",
         "|---|---|---|---|---|---|"]
    for name, s in fx.items():
        ph = s.get("phases")
        if not ph:
            continue
        for m, label in (("alone", "alone"), ("floor", "bare sampler"),
                         ("default", "benchprof"),
                         ("default-floor", "benchprof - bare sampler")):
            row = ph.get(m, {})
            L.append("| %s | %s | %s |" % (name, label, " | ".join(
                fmt(row.get(k), "", 1) for k in PHASES + ("wall",))))
    return L


def _publish_table(S, fmt):
    p = S["publish"]
    return ["### Publishing across a network (issue 23)", "",
            "%d marked benchmarks, `benchprof run` to an http:// store stand-in "
            "(tests/servers/put_server.py) that adds 20 ms to every request and 50 ms "
            "to each new connection; per repetition the same run with --no-publish "
            "is subtracted." % p["benchmarks"], "",
            "| publishing s | objects (requests) | connections opened |",
            "|---|---|---|",
            "| %s | %s | %s |" % (fmt(p["publish_s"], "", 2), fmt(p["requests"], "", 0),
                                fmt(p["connections"], "", 0))]


def _many_table(S, fmt):
    m = S["many"]
    return ["### %d benchmarks end to end (issue 23)" % m["benchmarks"], "",
            "`benchprof run` of a harness marking %d benchmarks (BMF results for "
            "each), published to a file:// store, then `benchprof compare` with the "
            "run before." % m["benchmarks"], "",
            "| run + publish s | compare s | end to end s | harness alone s "
            "| CPU of run + publish s | CPU of compare s |",
            "|---|---|---|---|---|---|",
            "| %s | %s | %s | %s | %s | %s |" % (
                fmt(m["run_s"], "", 1), fmt(m["compare_s"], "", 1),
                fmt(m["end_to_end"], "", 1), fmt(m["alone_s"], "", 1),
                fmt(m.get("run_cpu_s"), "", 1), fmt(m.get("compare_cpu_s"), "", 1))]


_TABLES = {"fixed": _fixed_table, "publish": _publish_table, "many": _many_table}


def target_row(name, measured, met, note=""):
    """One row of a doc's targets table: the verdict, then its note."""
    return "| %s | %s | %s |" % (name, measured, ("yes" if met else "**no**")
                                 + ((" (" + note + ")") if note else ""))


def block(S, sec, fmt):
    """One section's markdown between its markers (splice() finds them):
    its table, then its targets with their verdicts and when it ran."""
    L = ["<!-- bench:%s -->" % sec] + _TABLES[sec](S, fmt) + [""]
    rows = []
    section_targets(S, sec, lambda name, measured, met, note="": rows.append(
        (name, measured, met, note)), fmt)
    if rows:
        L += ["| target | measured | met |", "|---|---|---|"]
        for name, measured, met, note in rows:
            L.append(target_row(name, measured, met, note))
        L.append("")
    when = S.get("_ran", {}).get(sec)
    if when:
        L += ["Measured %s." % when, ""]
    L.append("<!-- /bench:%s -->" % sec)
    return "\n".join(L)


def table(S, fmt):
    return "\n\n".join(block(S, sec, fmt) for sec in SECTIONS if S.get(sec))


def only_1m(S):
    """Whether S's time-to-artifacts rows (if any) are all 1M-sample ones
    (`--only artifacts --samples 1000000`): their block is spliced too."""
    rows = S.get("artifacts")
    return bool(rows) and all(r.get("target", 0) >= 1000000 for r in rows.values())


def only_scale(S):
    """Whether S holds scale rows only (a --only run of them, 1M rows of
    the time to artifacts included): the doc then keeps everything else
    and replaces just their blocks."""
    names = [k for k in S if not k.startswith("_")]
    return bool(names) and all(k in SECTIONS or (k == "artifacts" and only_1m(S))
                               for k in names)


def replace_block(text, name, new):
    """text with the block NAME replaced by new (a whole block, markers
    included), or new put before the Method section when it has none."""
    begin, end = "<!-- bench:%s -->" % name, "<!-- /bench:%s -->" % name
    i, j = text.find(begin), text.find(end)
    if i >= 0 and j > i:
        return text[:i] + new + text[j + len(end):]
    k = text.find("\n## Method")
    k = k + 1 if k >= 0 else len(text)
    return text[:k] + new + "\n\n" + text[k:]


def splice(text, S, fmt):
    """text (the doc) with the blocks of the sections in S replaced; a
    block the doc does not have yet goes before its Method section."""
    for sec in SECTIONS:
        if S.get(sec):
            text = replace_block(text, sec, block(S, sec, fmt))
    return text
