"""Readers and checkers for benchprof's artifacts, shared by the tests.

Import it from a test (PYTHONPATH=$top_srcdir/tests) or run it:
    python3 artifacts.py validate DIR   checks every artifact in DIR
    python3 artifacts.py dump DIR       prints each artifact's stacks
Every reader returns the same shape, a list of Stack (frames root first,
the process name NOT included, a sample count), so a test compares the
artifacts with each other and with what a workload is known to do.

Only the standard library is used; the external viewers (profiler-cli,
go tool pprof, xmllint) are run as programs, and a missing one is an error
(AssertionError), never a skip.
"""

import collections
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ARTIFACTS = ("profile.json.gz", "profile.pb.gz", "profile.folded",
             "flamegraph.svg", "summary.json")

# "symbol (in dso)", the only frame label shape the Firefox Profiler takes
# for native code; benchprof writes it in Gecko files and in summaries
LOCATION_RE = re.compile(r"^(.*) \(in ([^()]*)\)$")

Stack = collections.namedtuple("Stack", "frames count")


def split_location(loc):
    """'fn (in lib)' -> ('fn', 'lib'); anything else -> (loc, None)."""
    m = LOCATION_RE.match(loc)
    return (m.group(1), m.group(2)) if m else (loc, None)


def require_tool(name, hint):
    path = shutil.which(name)
    assert path, "%s not found in PATH (%s)" % (name, hint)
    return path


# ------------------------------------------------------------- aggregation

def total_count(stacks):
    return sum(s.count for s in stacks)


def self_counts(stacks, key=lambda f: f):
    """Samples per leaf frame."""
    c = collections.Counter()
    for s in stacks:
        if s.frames:
            c[key(s.frames[-1])] += s.count
    return c


def total_counts(stacks, key=lambda f: f):
    """Samples per frame anywhere in the stack (once per stack)."""
    c = collections.Counter()
    for s in stacks:
        for f in set(key(f) for f in s.frames):
            c[f] += s.count
    return c


def merge(stacks, key=lambda f: f):
    """Stacks with identical (mapped) frames added up, as a Counter."""
    c = collections.Counter()
    for s in stacks:
        c[tuple(key(f) for f in s.frames)] += s.count
    return c


def share(counts, name, total):
    """Percentage of total that counts[name] is."""
    return 100.0 * counts.get(name, 0) / total if total else 0.0


def expect_shares(what, counts, total, want, tolerance):
    """Asserts that counts[name] is want[name] percent of total, within
    tolerance points, for every name in want; prints the shares."""
    got = {f: share(counts, f, total) for f in want}
    print("  %-28s %s" % (what, "  ".join(
        "%s %.2f%%" % (f, got[f]) for f in sorted(want))))
    bad = ["%s: %s %.2f%% of %s, expected %.2f%% +- %g" % (
        what, f, got[f], total, p, tolerance)
        for f, p in sorted(want.items()) if abs(got[f] - p) > tolerance]
    assert not bad, "\n".join(bad)


def expect_even(what, a, b, slack=3.0):
    """Asserts that two counts of functions that did the same work are
    even: a / (a + b) within 4 binomial standard deviations of one half
    (0.5 / sqrt(a + b) each), plus slack points; prints the split."""
    n = a + b
    assert n > 0, "%s: neither function has samples" % what
    got = 100.0 * a / n
    margin = 4 * 50.0 / math.sqrt(n) + slack
    print("  %-28s %d vs %d: %.1f%% (50%% +- %.1f)" % (what, a, b, got,
                                                       margin))
    assert abs(got - 50.0) <= margin, \
        "%s: %d vs %d samples, %.1f%% not within 50%% +- %.1f" % (
            what, a, b, got, margin)


def func_of(frame):
    """Function name of a frame label, whatever the artifact."""
    return split_location(frame)[0]


# ------------------------------------------------------------------ folded

# The folded stacks' line for the CPU time in no sample (kernel time that
# was not permitted): this frame alone, its count in samples
FOLDED_UNSAMPLED = "[not sampled: kernel time]"


def _folded_lines(path):
    """-> [(frames, count)] of every line, checked."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            assert line, "%s:%d: empty line" % (path, n)
            head, sep, count = line.rpartition(" ")
            assert sep and count.isdigit() and int(count) > 0, \
                "%s:%d: no count: %r" % (path, n, line)
            frames = head.split(";")
            assert all(frames), "%s:%d: empty frame: %r" % (path, n, line)
            out.append((frames, int(count)))
    return out


# The mark after a kernel frame's name (flamegraph.pl's convention)
FOLDED_KERNEL_MARK = "_[k]"


def _unmarked(frame):
    if frame.endswith(FOLDED_KERNEL_MARK):
        return frame[:-len(FOLDED_KERNEL_MARK)]
    return frame


def read_folded(path):
    """-> {process name: [Stack]}; the root frame of a line is the process.
    The line of samples not taken (FOLDED_UNSAMPLED) is left out: it is no
    sample (folded_unsampled reads it).  Kernel frames lose their mark:
    frames are function names, as the other artifacts give them
    (folded_kernel_self counts the marked ones)."""
    out = collections.defaultdict(list)
    for frames, count in _folded_lines(path):
        if frames != [FOLDED_UNSAMPLED]:
            out[frames[0]].append(Stack([_unmarked(f) for f in frames[1:]],
                                        count))
    return dict(out)


def folded_kernel_self(path):
    """The samples whose leaf is a kernel frame (marked "_[k]")."""
    return sum(count for frames, count in _folded_lines(path)
               if frames[-1].endswith(FOLDED_KERNEL_MARK))


def folded_unsampled(path):
    """The count of the FOLDED_UNSAMPLED line, 0 without one; it is the
    last line and there is one at most."""
    lines = _folded_lines(path)
    found = [i for i, (frames, _) in enumerate(lines)
             if FOLDED_UNSAMPLED in frames]
    if not found:
        return 0
    assert found == [len(lines) - 1] and lines[-1][0] == [FOLDED_UNSAMPLED], \
        "%s: the unsampled line must be alone, last, one frame" % path
    return lines[-1][1]


def expected_unsampled(summary):
    """What the FOLDED_UNSAMPLED line should weigh by summary.json: the
    task-clock in no sample in samples of the mean weight; 0 when kernel
    time was sampled or the share is not known."""
    if summary["kernel_sampled"] or summary["unsampled_pct"] is None:
        return 0
    if not summary["samples"] or not summary["sampled_ms"]:
        return 0
    missing = summary["task_clock_ms"] - summary["sampled_ms"]
    return max(0, missing) * summary["samples"] / summary["sampled_ms"]


def folded_stacks(path):
    return [s for stacks in read_folded(path).values() for s in stacks]


# ----------------------------------------------------------------- summary

SUMMARY_KEYS = {
    "benchprof_version", "command", "host", "event", "call_graph", "samples",
    "lost", "lost_events", "throttled", "corrupt_records", "ring_bytes",
    "start_time_ms",
    "duration_ms",
    "exit_status", "unresolved_frames", "symbolize_ms", "processes",
    "threads", "top_functions", "kernel_sampled", "kernel_unsampled_reason",
    "task_clock_ms", "sampled_ms", "unsampled_pct",
}
EVENT_KEYS = {"requested", "used", "fallback", "fallback_reason",
              "frequency_hz", "period", "time_based"}


def read_summary(path):
    with open(path, encoding="utf-8") as f:
        s = json.load(f)
    missing = SUMMARY_KEYS - set(s)
    assert not missing, "summary.json lacks %s" % sorted(missing)
    missing = EVENT_KEYS - set(s["event"])
    assert not missing, "summary.json event lacks %s" % sorted(missing)
    for t in s["threads"]:
        assert {"pid", "tid", "name", "process", "samples"} <= set(t), t
    for fn in s["top_functions"]:
        assert {"name", "lib", "file", "self", "total", "self_pct",
                "total_pct"} <= set(fn), fn
    return s


def summary_function(summary, name, lib=None):
    """The top_functions entry named name (and lib), or None."""
    for fn in summary["top_functions"]:
        if fn["name"] == name and (lib is None or fn["lib"] == lib):
            return fn
    return None


# ------------------------------------------------------------------- Gecko

def read_gecko(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    assert magic == b"\x1f\x8b", "%s is not gzipped" % path
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _table(thread, name):
    t = thread[name]
    assert isinstance(t, dict) and "schema" in t and "data" in t, \
        "thread %r: %s is not {schema, data}" % (thread.get("name"), name)
    return t["schema"], t["data"]


def validate_gecko(p):
    """What the Firefox Profiler needs to load the file, plus the table
    bounds it does not check itself (formats.md)."""
    meta = p["meta"]
    assert meta["version"] == 24, "meta.version %r" % meta["version"]
    for k in ("interval", "startTime"):
        assert isinstance(meta[k], (int, float)), "meta.%s" % k
    assert isinstance(meta["markerSchema"], list)
    assert any(c.get("color") == "grey" for c in meta["categories"]), \
        "no grey category"
    assert meta.get("presymbolicated") is True, "meta.presymbolicated"
    # CPU time per sample (threadCPUDelta) only for a clock event; a
    # hardware event's samples are counts and carry none
    cpu_delta = any("threadCPUDelta" in th["samples"]["schema"]
                    for th in p.get("threads", []))
    if cpu_delta or "sampleUnits" in meta:
        assert meta.get("sampleUnits") == {
            "time": "ms", "eventDelay": "ms", "threadCPUDelta": "\u00b5s"}, \
            "meta.sampleUnits %r" % meta.get("sampleUnits")
    for k in ("libs", "processes", "threads", "pausedRanges"):
        assert isinstance(p.get(k), list), "top-level %s is not a list" % k
    ncat = len(meta["categories"])
    for th in p["threads"]:
        tname = th.get("name")
        for k in ("name", "processType", "processName", "pid", "tid",
                  "registerTime", "unregisterTime"):
            assert k in th, "thread %r lacks %s" % (tname, k)
        strings = th["stringTable"]
        fschema, frames = _table(th, "frameTable")
        sschema, stacks = _table(th, "stackTable")
        mschema, samples = _table(th, "samples")
        for k in ("location", "relevantForJS", "innerWindowID",
                  "implementation", "line", "column", "category",
                  "subcategory"):
            assert k in fschema, "thread %r frameTable lacks %s" % (tname, k)
        for k in ("stack", "time"):
            assert k in mschema, "thread %r samples lack %s" % (tname, k)
        assert "eventDelay" in mschema or "responsiveness" in mschema, \
            "thread %r samples lack eventDelay" % tname
        for i, row in enumerate(frames):
            loc = row[fschema["location"]]
            assert isinstance(loc, int) and 0 <= loc < len(strings), \
                "thread %r frame %d: location %r out of bounds" % (
                    tname, i, loc)
            assert split_location(strings[loc])[1] is not None, \
                "thread %r frame %d: %r is not 'fn (in lib)'" % (
                    tname, i, strings[loc])
            cat = row[fschema["category"]]
            assert cat is None or 0 <= cat < ncat, \
                "thread %r frame %d: category %r" % (tname, i, cat)
        for i, row in enumerate(stacks):
            pre, fr = row[sschema["prefix"]], row[sschema["frame"]]
            assert pre is None or (isinstance(pre, int) and 0 <= pre < i), \
                "thread %r stack %d: prefix %r (parents come first)" % (
                    tname, i, pre)
            assert isinstance(fr, int) and 0 <= fr < len(frames), \
                "thread %r stack %d: frame %r out of bounds" % (
                    tname, i, fr)
        last = None
        for i, row in enumerate(samples):
            st = row[mschema["stack"]]
            assert st is None or (isinstance(st, int)
                                  and 0 <= st < len(stacks)), \
                "thread %r sample %d: stack %r out of bounds" % (
                    tname, i, st)
            t = row[mschema["time"]]
            assert isinstance(t, (int, float)), "sample time %r" % t
            assert last is None or t >= last, \
                "thread %r sample %d: time goes back" % (tname, i)
            last = t


def gecko_thread_stacks(thread, on_cpu_only=False):
    """-> [Stack] for one thread, frames as 'fn (in lib)' labels;
    on_cpu_only leaves out the rows of off-CPU time (--off-cpu: a CPU
    delta of 0, which no sample of a clock event has)."""
    strings = thread["stringTable"]
    fschema, frames = _table(thread, "frameTable")
    sschema, stacks = _table(thread, "stackTable")
    mschema, samples = _table(thread, "samples")
    memo = {}

    def walk(i):
        if i not in memo:
            pre = stacks[i][sschema["prefix"]]
            loc = strings[frames[stacks[i][sschema["frame"]]][
                fschema["location"]]]
            memo[i] = (walk(pre) if pre is not None else ()) + (loc,)
        return memo[i]

    counts = collections.Counter()
    cpu = mschema.get("threadCPUDelta")
    for row in samples:
        if on_cpu_only and cpu is not None and row[cpu] == 0:
            continue
        st = row[mschema["stack"]]
        counts[walk(st) if st is not None else ()] += 1
    return [Stack(list(k), v) for k, v in counts.items()]


def gecko_stacks(p):
    """The samples of every thread; with off-CPU time (meta.benchprof
    .off_cpu) its rows are left out: the other artifacts count samples."""
    off = p.get("meta", {}).get("benchprof", {}).get("off_cpu", False)
    return [s for th in p["threads"]
            for s in gecko_thread_stacks(th, on_cpu_only=off)]


# ------------------------------------------------------------------- pprof

def _varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, i
        shift += 7
        assert shift < 70, "varint too long"


def _fields(buf):
    """(field number, value) of one message; length-delimited values are
    bytes, varints ints.  Other wire types are an error here."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 2:
            n, i = _varint(buf, i)
            v = bytes(buf[i:i + n])
            assert len(v) == n, "truncated field %d" % num
            i += n
        elif wt == 1:
            v = int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wt == 5:
            v = int.from_bytes(buf[i:i + 4], "little")
            i += 4
        else:
            raise AssertionError("wire type %d in field %d" % (wt, num))
        yield num, v


def _ints(v):
    """A repeated int field: packed (bytes) or one varint."""
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def _msg(buf):
    d = collections.defaultdict(list)
    for num, v in _fields(buf):
        d[num].append(v)
    return d


class Pprof:
    """A decoded perftools.profiles.Profile (field numbers: formats.md)."""

    def __init__(self, data):
        top = _msg(data)
        self.strings = [s.decode("utf-8") for s in top[6]]
        assert self.strings and self.strings[0] == "", \
            "string_table[0] must be empty"
        st = self.string
        self.sample_types = []
        for v in top[1]:
            m = _msg(v)
            self.sample_types.append((st(m[1]), st(m[2])))
        self.functions = {}
        for v in top[5]:
            m = _msg(v)
            fid = m[1][-1] if m[1] else 0
            assert fid, "function id 0"
            self.functions[fid] = {
                "name": st(m[2]), "system_name": st(m[3]),
                "filename": st(m[4]), "start_line": m[5][-1] if m[5] else 0}
        self.mappings = {}
        for v in top[3]:
            m = _msg(v)
            mid = m[1][-1] if m[1] else 0
            assert mid, "mapping id 0"
            self.mappings[mid] = {
                "start": m[2][-1] if m[2] else 0,
                "limit": m[3][-1] if m[3] else 0,
                "filename": st(m[5]), "build_id": st(m[6])}
        self.locations = {}
        for v in top[4]:
            m = _msg(v)
            lid = m[1][-1] if m[1] else 0
            assert lid, "location id 0"
            lines = []
            for lv in m[4]:
                lm = _msg(lv)
                fid = lm[1][-1] if lm[1] else 0
                assert fid in self.functions, \
                    "location %d: function %d undefined" % (lid, fid)
                lines.append((fid, lm[2][-1] if lm[2] else 0))
            mid = m[2][-1] if m[2] else 0
            assert mid == 0 or mid in self.mappings, \
                "location %d: mapping %d undefined" % (lid, mid)
            assert lines, "location %d has no line (function)" % lid
            self.locations[lid] = {"mapping": mid,
                                   "address": m[3][-1] if m[3] else 0,
                                   "lines": lines}
        self.samples = []
        for v in top[2]:
            m = _msg(v)
            locs = [x for f in m[1] for x in _ints(f)]
            vals = [x for f in m[2] for x in _ints(f)]
            assert len(vals) == len(self.sample_types), \
                "sample with %d values for %d types" % (
                    len(vals), len(self.sample_types))
            for lid in locs:
                assert lid in self.locations, "location %d undefined" % lid
            labels = {}
            for lv in m[3]:
                lm = _msg(lv)
                key = st(lm[1])
                labels[key] = st(lm[2]) if lm[2] and lm[2][-1] else \
                    (lm[3][-1] if lm[3] else None)
            self.samples.append((locs, vals, labels))
        self.period_type = None
        if top[11]:
            m = _msg(top[11][-1])
            self.period_type = (st(m[1]), st(m[2]))
        self.period = top[12][-1] if top[12] else 0
        self.comments = [st([c]) for f in top[13] for c in _ints(f)]
        self.time_nanos = top[9][-1] if top[9] else 0
        self.duration_nanos = top[10][-1] if top[10] else 0

    def string(self, v):
        idx = v[-1] if v else 0
        assert 0 <= idx < len(self.strings), "string index %d" % idx
        return self.strings[idx]

    def value_index(self, type_, unit):
        assert (type_, unit) in self.sample_types, \
            "no sample type %s/%s in %s" % (type_, unit, self.sample_types)
        return self.sample_types.index((type_, unit))

    def frames(self, locs):
        """Function names root first (a location's lines: last = caller)."""
        out = []
        for lid in reversed(locs):
            for fid, _ in reversed(self.locations[lid]["lines"]):
                out.append(self.functions[fid]["name"])
        return out

    def stacks(self, type_="samples", unit="count"):
        vi = self.value_index(type_, unit)
        # (off-CPU samples count no samples: left out)
        return [Stack(self.frames(locs), vals[vi])
                for locs, vals, _ in self.samples if vals[vi]]

    def mapping_of(self, function_name):
        """File names of the mappings whose locations name function_name."""
        out = set()
        for loc in self.locations.values():
            for fid, _ in loc["lines"]:
                if self.functions[fid]["name"] == function_name and \
                        loc["mapping"]:
                    out.add(self.mappings[loc["mapping"]]["filename"])
        return out


def read_pprof(path):
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:2] == b"\x1f\x8b", "%s is not gzipped" % path
    return Pprof(gzip.decompress(raw))


def go_pprof(args, path):
    """Runs go tool pprof with args on path; returns its stdout."""
    require_tool("go", "Debian package golang-go")
    r = subprocess.run(["go", "tool", "pprof", "-symbolize=none"] + args +
                       [path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=120)
    assert r.returncode == 0, "go tool pprof %s failed (%d): %s" % (
        " ".join(args), r.returncode, r.stderr.strip())
    return r.stdout


TOP_ROW = re.compile(r"^\s*(\S+)\s+(\S+)%\s+(\S+)%\s+(\S+)\s+(\S+)%\s+(.*)$")
# go tool pprof marks a function that a Location holds as an inlined Line
# (all Lines but the last) with this suffix; the other artifacts name the
# same frame without it
PPROF_INLINE = " (inline)"


def pprof_name(name):
    """A function name as go tool pprof prints it -> as the others do."""
    return name[:-len(PPROF_INLINE)] if name.endswith(PPROF_INLINE) else name


def pprof_name(shown):
    """A function as go tool pprof shows it, without the " (inline)" it
    adds to one it read from a Location's inner Lines (an inlined call),
    so it compares with the other artifacts' names."""
    shown = shown.strip()
    return shown[:-len(" (inline)")] if shown.endswith(" (inline)") else shown


def go_pprof_top(path, sample_index="samples"):
    """`go tool pprof -top` -> ({function: (flat, cum)}, total); counts
    when the sample index is a count."""
    out = go_pprof(["-top", "-nodecount=0", "-nodefraction=0",
                    "-edgefraction=0", "-sample_index=" + sample_index],
                   path)
    total = None
    rows = {}
    for line in out.splitlines():
        m = re.search(r"of (\S+) total", line)
        if m and line.startswith("Showing nodes"):
            total = _num(m.group(1))
            continue
        m = TOP_ROW.match(line)
        if m and m.group(1) != "flat":
            rows[pprof_name(m.group(6))] = (_num(m.group(1)), _num(m.group(4)))
    assert total is not None, "no total in go tool pprof -top output:\n" + out
    return rows, total


def go_pprof_traces(path):
    """`go tool pprof -traces` -> [(labels dict, Stack)], frames root first,
    counts from the samples/count type."""
    out = go_pprof(["-traces", "-sample_index=samples"], path)
    blocks = out.split("-----------+" + "-" * 55)[1:]
    traces = []
    for b in blocks:
        labels, frames, count = {}, [], None
        for line in b.splitlines():
            if not line.strip():
                continue
            m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_.-]*):\s+(.*)$", line)
            if count is None and m and not re.match(r"^\s*\d", line):
                labels[m.group(1)] = m.group(2).strip()
                continue
            if count is None:
                m = re.match(r"^\s*(\S+)\s+(\S.*)$", line)
                assert m, "bad -traces line %r" % line
                count = int(_num(m.group(1)))
                frames.append(pprof_name(m.group(2)))
            else:
                frames.append(pprof_name(line))
        if count is not None:
            traces.append((labels, Stack(frames[::-1], count)))
    assert traces, "no traces in go tool pprof -traces output:\n" + out
    return traces


def go_pprof_raw(path):
    """`go tool pprof -raw` -> (sample types as (type, unit), [(values,
    location ids)]), one row per sample as pprof prints it."""
    out = go_pprof(["-raw"], path)
    lines = out.splitlines()
    assert "Samples:" in lines, "no Samples: in go tool pprof -raw " \
        "output:\n" + out
    i = lines.index("Samples:") + 1
    types = [tuple(t.replace("[dflt]", "").split("/", 1))
             for t in lines[i].split()]
    rows = []
    for line in lines[i + 1:]:
        if not line.startswith(" "):
            break  # Locations
        m = re.match(r"^\s+(\d+(?:\s+\d+)*): ([\d ]*)$", line)
        if m:  # else a label line
            vals = [int(x) for x in m.group(1).split()]
            assert len(vals) == len(types), "-raw row %r for types %s" % (
                line, types)
            rows.append((vals, [int(x) for x in m.group(2).split()]))
    assert rows, "no samples in go tool pprof -raw output:\n" + out
    return types, rows


def _num(s):
    """pprof prints counts plainly and times with a unit (ms, s, ...)."""
    m = re.match(r"^([0-9.]+)([a-zµ]*)$", s)
    assert m, "not a number: %r" % s
    scale = {"": 1, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1,
             "min": 60, "hrs": 3600}[m.group(2)]
    return float(m.group(1)) * scale


# --------------------------------------------------------------------- SVG

SVG_NS = "{http://www.w3.org/2000/svg}"
TITLE_RE = re.compile(r"^(.*) \(([0-9]+) samples?, ([0-9.]+)%\)$")


def read_svg(path):
    """-> list of (name, samples, percent) from the frames' <title>s, in
    document order.  xmllint --noout must accept the file too."""
    tree = ET.parse(path)
    root = tree.getroot()
    assert root.tag == SVG_NS + "svg", "root element %r" % root.tag
    out = []
    for t in root.iter(SVG_NS + "title"):
        m = TITLE_RE.match(t.text or "")
        assert m, "title %r is not 'name (N samples, P%%)'" % t.text
        out.append((m.group(1), int(m.group(2)), float(m.group(3))))
    assert out, "%s has no <title> tooltips" % path
    return out


def svg_frames(path):
    """Per frame name: total samples over all its rectangles."""
    c = collections.Counter()
    for name, n, _ in read_svg(path):
        c[name] += n
    return c


def xmllint(path):
    require_tool("xmllint", "Debian package libxml2-utils")
    r = subprocess.run(["xmllint", "--noout", path], stderr=subprocess.PIPE,
                       universal_newlines=True)
    assert r.returncode == 0, "xmllint --noout %s: %s" % (path, r.stderr)


# ------------------------------------------------------------ profiler-cli

class ProfilerCli:
    """One profiler-cli session on one file: `with ProfilerCli(f, d) as c`.
    The daemon it starts is stopped on exit (and by record_lib.sh's
    at_exit cleanup, should this process die)."""

    def __init__(self, path, session_dir, session="bp"):
        self.exe = require_tool(
            "profiler-cli",
            "npm install -g @firefox-devtools/profiler-cli, see "
            "scripts/setup-debian.sh --test")
        self.path = path
        self.session = session
        self.env = dict(os.environ, PROFILER_CLI_SESSION_DIR=session_dir,
                        PROFILER_CLI_NO_SYMBOLICATE="1")
        os.makedirs(session_dir, exist_ok=True)

    def _run(self, args, timeout=120):
        return subprocess.run([self.exe] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=self.env,
                              universal_newlines=True, timeout=timeout)

    def __enter__(self):
        r = self._run(["load", self.path, "--session", self.session])
        if r.returncode != 0 and "still starting" in r.stdout:
            # the daemon missed profiler-cli's 500 ms start-up window (a
            # busy machine); it goes on starting and loads the file itself
            deadline = time.time() + 60
            while True:
                time.sleep(0.5)
                r = self._run(["thread", "list", "--json",
                               "--session", self.session])
                if r.returncode == 0 or time.time() > deadline or \
                        "load failed" in r.stdout.lower():
                    break
        if r.returncode != 0:
            self.stop()
            raise AssertionError("profiler-cli load %s failed (%d):\n%s" % (
                self.path, r.returncode, r.stdout))
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self):
        self._run(["stop", "--all"], timeout=60)

    def text(self, *args):
        """A command's output as printed for people (stderr included)."""
        r = self._run(list(args) + ["--session", self.session])
        assert r.returncode == 0, "profiler-cli %s failed (%d):\n%s" % (
            " ".join(args), r.returncode, r.stdout)
        return r.stdout

    def json(self, *args):
        return json.loads(self.text(*(args + ("--json",))))

    def threads(self):
        """thread list rows: threadHandle, name, processName, pid, tid..."""
        return self.json("thread", "list", "--sort", "index")["threads"]

    def top_down(self, thread):
        """The regularCallTree of one thread, idle samples included."""
        return self.json("thread", "samples-top-down", "--thread", thread,
                         "--include-idle", "--max-lines", "100000")[
            "regularCallTree"]


def calltree_stacks(tree, label="nameWithLibrary"):
    """A top-down tree -> [Stack] from its self samples, frames as
    'lib!fn' (nameWithLibrary) so they compare with 'fn (in lib)', or as
    another field of the nodes (label="name": the function alone)."""
    out = []

    def walk(node, path):
        here = path + [node[label]] if "callNodeIndex" in node else path
        if node.get("selfSamples"):
            out.append(Stack(here, node["selfSamples"]))
        for ch in node.get("children", []):
            walk(ch, here)
    walk(tree, [])
    return out


def cli_label(loc):
    """'fn (in lib)' -> 'lib!fn', the way profiler-cli names a frame; an
    unresolved '0xADDR (in lib)' it shows as it is."""
    fn, lib = split_location(loc)
    if lib is None or fn.startswith("0x"):
        return loc
    return "%s!%s" % (lib, fn)


# --------------------------------------------------------------- the lot

def load_dir(d):
    """Reads and validates every artifact of an output directory."""
    for name in ARTIFACTS:
        p = os.path.join(d, name)
        assert os.path.isfile(p) and os.path.getsize(p) > 0, \
            "%s missing or empty" % p
    gecko = read_gecko(os.path.join(d, "profile.json.gz"))
    validate_gecko(gecko)
    return {
        "folded": read_folded(os.path.join(d, "profile.folded")),
        "folded_unsampled": folded_unsampled(os.path.join(d,
                                                          "profile.folded")),
        "folded_kernel_self": folded_kernel_self(os.path.join(
            d, "profile.folded")),
        "summary": read_summary(os.path.join(d, "summary.json")),
        "gecko": gecko,
        "pprof": read_pprof(os.path.join(d, "profile.pb.gz")),
        "svg": read_svg(os.path.join(d, "flamegraph.svg")),
    }


def folded_func(frame):
    """Function name of a frame as profile.folded writes it: ';' separates
    its frames, so a ';' inside a name becomes ':' there."""
    return func_of(frame).replace(";", ":")


def check_consistent(a):
    """The artifacts of one run describe the same samples: same total and
    the same self counts per function in folded, Gecko and pprof."""
    folded = [s for v in a["folded"].values() for s in v]
    gecko = gecko_stacks(a["gecko"])
    pprof = a["pprof"].stacks()
    n = a["summary"]["samples"]
    for name, st in (("profile.folded", folded), ("profile.json.gz", gecko),
                     ("profile.pb.gz", pprof)):
        assert total_count(st) == n, "%s has %d samples, summary.json %d" % (
            name, total_count(st), n)
    want = self_counts(folded, folded_func)
    for name, st in (("profile.json.gz", gecko), ("profile.pb.gz", pprof)):
        got = self_counts(st, folded_func)
        assert got == want, "%s self counts differ from profile.folded:" \
            "\n  %s\n  %s" % (name, sorted(got.items()),
                              sorted(want.items()))
    # profile.folded marks exactly the kernel frames: its samples with a
    # marked leaf are Gecko's with a leaf in the kernel
    kernel = sum(st.count for st in gecko if st.frames and
                 split_location(st.frames[-1])[1] == "[kernel.kallsyms]")
    assert a["folded_kernel_self"] == kernel, \
        "profile.folded marks %d samples' leaf as kernel, Gecko has %d" % (
            a["folded_kernel_self"], kernel)
    svg_all = a["svg"][0]
    assert svg_all[1] == n, "flamegraph.svg root has %d samples, not %d" % (
        svg_all[1], n)
    # the line of samples not taken weighs what summary.json says is
    # missing (within rounding: summary.json's times have 3 decimals)
    want_missing = expected_unsampled(a["summary"])
    got_missing = a["folded_unsampled"]
    assert abs(got_missing - want_missing) <= 1 + 0.001 * want_missing, \
        "profile.folded: %s %d samples, summary.json says %.1f" % (
            FOLDED_UNSAMPLED, got_missing, want_missing)


def function_places(a, func):
    """Where each artifact says func lives and how many samples it has
    itself: {artifact: (set of DSO names, self samples)}.  pprof gives the
    mapping's file name, reduced to its base name like the others."""
    out = {}
    fns = [f for f in a["summary"]["top_functions"] if f["name"] == func]
    out["summary.json"] = ({f["lib"] for f in fns},
                           sum(f["self"] for f in fns))
    libs, n = set(), 0
    for th in a["gecko"]["threads"]:
        for st in gecko_thread_stacks(th):
            for loc in st.frames:
                fn, lib = split_location(loc)
                if fn == func:
                    libs.add(lib)
            if st.frames and func_of(st.frames[-1]) == func:
                n += st.count
    out["profile.json.gz"] = (libs, n)
    pp = a["pprof"]
    out["profile.pb.gz"] = ({os.path.basename(m) for m in pp.mapping_of(func)},
                            self_counts(pp.stacks())[func])
    return out


def expect_in_dso(a, func, lib, min_share):
    """func is found in lib (and only there) by summary.json, Gecko and
    pprof, each with at least min_share percent of the samples as self."""
    total = a["summary"]["samples"]
    bad = []
    for art, (libs, n) in function_places(a, func).items():
        print("  %-16s %s in %s: %d of %d samples self" % (
            art, func, sorted(libs, key=str), n, total))
        if libs != {lib}:
            bad.append("%s: %s is in %s, expected %s" % (
                art, func, sorted(libs, key=str) or "nothing", lib))
        if n < min_share * total / 100.0:
            bad.append("%s: %s has %d of %d samples, expected >= %g%%" % (
                art, func, n, total, min_share))
    return bad


def _main(argv):
    if len(argv) != 3 or argv[1] not in ("validate", "dump"):
        sys.stderr.write("usage: artifacts.py validate|dump DIR\n")
        return 2
    a = load_dir(argv[2])
    xmllint(os.path.join(argv[2], "flamegraph.svg"))
    check_consistent(a)
    if argv[1] == "dump":
        for name, stacks in (("folded", folded_stacks(
                os.path.join(argv[2], "profile.folded"))),
                ("gecko", gecko_stacks(a["gecko"])),
                ("pprof", a["pprof"].stacks())):
            print("== %s" % name)
            for k, v in sorted(merge(stacks).items(), key=lambda x: -x[1]):
                print("%6d %s" % (v, ";".join(k)))
    print("ok: %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
