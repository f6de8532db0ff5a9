#!/usr/bin/env python3
"""benchprof against perf on programs of the distribution (docs/fidelity.md).

    scripts/fidelity.py --benchprof PATH [--runs N] [--doc docs/fidelity.md]

Runs each program below under `benchprof record -g MODE` and under
`perf record -g` / `--call-graph dwarf,8192` (both at 997 Hz on the same
event, kernel included as both do by default where permitted), N times
each, interleaved; folds `perf script` the way stackcollapse-perf does
(tests/bench/harness.py --fold) and compares, per program and mode:
  - the self shares of the top functions (mean over the runs), by name;
  - the full-stack fraction: samples whose outermost frame is where a
    thread starts (_start, clone, clone3), kernel-only stacks left out.
Python 3 standard library only; needs perf (Debian package linux-perf).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FOLD = os.path.join(HERE, "..", "tests", "bench", "harness.py")
# a stack is whole when it reaches where a thread starts; in a stripped
# program _start has no name, so its callee in libc says it
STARTS = {"_start", "_dl_start", "__libc_start_main", "__libc_start_call_main",
          "start_thread", "clone", "clone3", "__clone", "__clone3"}
UNNAMED = "(no symbol)"
PROGRAMS = [
    ("xz", ["xz", "-2", "-T1", "-c", "{input}"]),
    ("gzip", ["gzip", "-9", "-c", "{input}"]),
    ("bzip2", ["bzip2", "-c", "{input}"]),
    ("sort", ["sort", "{input}"]),
    ("python3", ["/usr/bin/python3", "-c",
                 "import json; d = [{'k': i, 'v': str(i) * 3} for i in "
                 "range(300000)]; json.loads(json.dumps(d)); sorted(d, "
                 "key=lambda x: x['v'])"]),
    ("perl", ["perl", "-e", "my %h; $h{$_ % 50000} .= 'x' for 1..3000000; "
              "my @k = sort { $a <=> $b } keys %h;"]),
    ("sqlite3", ["sqlite3", ":memory:",
                 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
                 "FROM c WHERE x < 1500000) SELECT sum(x), count(*) FROM c;"]),
]


def make_input(path):
    """1.5 MB of text: words from a small vocabulary, line by line."""
    import random
    rng = random.Random(42)
    vocab = ["%s%d" % (w, i) for i in range(400)
             for w in ("alpha", "beta", "gamma", "delta")]
    with open(path, "w") as f:
        n = 0
        while n < 3 << 19:
            line = " ".join(rng.choice(vocab) for _ in range(8)) + "\n"
            f.write(line)
            n += len(line)


def read_folded(path, skip_root=True):
    """-> [(frames root first, without the process name), count]."""
    out = []
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            frames = stack.split(";")
            out.append((frames[1:] if skip_root else frames, int(count)))
    return out


def name_of(frame):
    """'fn (in lib)', 'fn' and a kernel frame's 'fn_[k]' (benchprof marks
    them, perf's fold does not) all -> 'fn'; code without a symbol (perf's
    [unknown], benchprof's fn_START or 0xADDR) -> UNNAMED."""
    if frame.endswith("_[k]"):
        frame = frame[:-len("_[k]")]
    i = frame.rfind(" (in ")
    name = frame[:i] if i > 0 else frame
    if name in ("[unknown]", "") or name.startswith("0x") or \
            (name.startswith("fn_") and all(c in "0123456789abcdef"
                                            for c in name[3:])):
        return UNNAMED
    return name


def measures(stacks):
    total = sum(c for _, c in stacks)
    self_ = {}
    full = user = 0
    for frames, c in stacks:
        if not frames:
            continue
        leaf = name_of(frames[-1])
        self_[leaf] = self_.get(leaf, 0) + c
        if frames[0].endswith("(in [kernel.kallsyms])") or \
                frames[0].endswith("_[k]"):
            continue  # a kernel-only stack (perf's folding has no lib)
        user += c
        full += c if any(name_of(f) in STARTS for f in frames[:3]) else 0
    return {"total": total,
            "self": {k: 100.0 * v / total for k, v in self_.items()},
            "full": 100.0 * full / user if user else 0.0}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False, **kw)


def benchprof_once(bp, mode, argv, tmp):
    out = os.path.join(tmp, "bp")
    shutil.rmtree(out, ignore_errors=True)
    run([bp, "record", "-q", "--no-counters", "-F", "997", "-e", "cpu-clock",
         "-g", mode, "-o", out, "--"] + argv)
    return measures(read_folded(os.path.join(out, "profile.folded")))


def perf_once(perf, mode, argv, tmp):
    data = os.path.join(tmp, "perf.data")
    cg = ["-g"] if mode == "fp" else ["--call-graph", "dwarf,8192"]
    run([perf, "record", "-q", "-F", "997", "-e", "cpu-clock"] + cg +
        ["-o", data, "--"] + argv)
    folded = os.path.join(tmp, "perf.folded")
    with open(folded, "w") as fo:
        ps = subprocess.Popen([perf, "script", "-i", data, "-F", "comm,ip,sym"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        subprocess.run([sys.executable, FOLD, "--fold"], stdin=ps.stdout,
                       stdout=fo, check=False)
        ps.wait()
    return measures(read_folded(folded))


def mean_of(results, key):
    return statistics.mean(r[key] for r in results)


def table(name, mode, bp, pf):
    names = set()
    for r in bp + pf:
        names |= set(r["self"])
    mean = {n: (statistics.mean(r["self"].get(n, 0.0) for r in bp),
                statistics.mean(r["self"].get(n, 0.0) for r in pf))
            for n in names}
    top = sorted(mean, key=lambda n: -max(mean[n]))[:8]
    L = ["#### %s, %s" % (name, mode), "",
         "Full-stack fraction: benchprof %.1f%%, perf %.1f%% (samples %d vs %d)."
         % (mean_of(bp, "full"), mean_of(pf, "full"),
            mean_of(bp, "total"), mean_of(pf, "total")), "",
         "| function | benchprof self % | perf self % | difference |",
         "|---|---|---|---|"]
    for n in top:
        b, p = mean[n]
        L.append("| `%s` | %.1f | %.1f | %+.1f |" % (n[:70], b, p, b - p))
    L.append("")
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchprof", required=True)
    ap.add_argument("--perf", default=shutil.which("perf"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--doc")
    ap.add_argument("--only", help="comma list of program names")
    a = ap.parse_args()
    if not a.perf:
        sys.exit("fidelity: perf not found (Debian package linux-perf)")
    tmp = tempfile.mkdtemp(prefix="fidelity-")
    inp = os.path.join(tmp, "input.txt")
    make_input(inp)
    sections = []
    for name, argv in PROGRAMS:
        if a.only and name not in a.only.split(","):
            continue
        argv = [x.replace("{input}", inp) for x in argv]
        for mode in ("fp", "dwarf"):
            bp, pf = [], []
            for i in range(a.runs):
                order = (0, 1) if i % 2 == 0 else (1, 0)
                for k in order:
                    if k == 0:
                        bp.append(benchprof_once(a.benchprof, mode, argv, tmp))
                    else:
                        pf.append(perf_once(a.perf, mode, argv, tmp))
            t = table(name, mode, bp, pf)
            print(t, flush=True)
            sections.append(t)
    shutil.rmtree(tmp, ignore_errors=True)
    if a.doc:
        with open(a.doc, "w") as f:
            f.write(DOC_HEAD % {"runs": a.runs, "kernel": os.uname().release,
                                "findings": FINDINGS,
                                "departures": DEPARTURES})
            f.write("\n".join(sections))
    return 0


FINDINGS = """## What the numbers say

- With `--call-graph dwarf` the full-stack fractions agree within a point
  on every program but bzip2, whose are low for both (22% and 24%): its
  compression keeps more than the 8 KiB of stack both tools copy per
  sample above the sampled frame.
- With frame pointers both are near 0%: Debian builds its programs
  without them, so the kernel's frame-pointer walk stops in the first
  frame of the program; use `-g dwarf` or the default `-g auto`.
- Self shares differ by 4.4 points at most (sort, about 45 samples a
  run: one sample is 2 points), 3.3 for sqlite3's `sqlite3VdbeExec`
  (about 300 samples), under 2 elsewhere: the spread of a binomial share
  at these sample counts.
- Names differ where libc has several symbols at one address: perf takes
  the debug symbol table's internal alias (`__GI_munmap`,
  `__GI___strcoll_l`), benchprof the name people write (`munmap`); for
  two public names of one function (`__memmove_avx512_unaligned_erms`
  and `__memcpy_...`) they pick differently.  Such a function shows up as
  two rows with 0 on one side.
- Code without a symbol (the stripped programs' own functions: xz, gzip,
  bzip2, sort, python3's interpreter) adds up to the same share in both;
  benchprof splits it by function (`fn_START`) where perf shows one
  `[unknown]`.

"""

DEPARTURES = """## Where benchprof departs from perf on purpose

- A frame-pointer callchain that goes round in a loop is cut where the
  loop starts.  The kernel's walk does not check that each frame lies
  above the last, so a frame pointer register that points at itself
  (glibc's thread descriptor, whose first word is its own address, in
  `clone3` during `pthread_create`) repeats the word after it, a heap
  address, to the depth limit: perf shows 120-odd `[unknown]` frames
  above `clone3`.  benchprof drops a return address that repeats the one
  before it and lies in no executable mapping, with all above it (the
  loop can only repeat it); recursion repeats return addresses in code,
  which are kept.  The stack then ends at `clone3`.
- An address in code without DWARF gets no source line.  libdwfl takes
  an address between a unit's ranges to be in the unit, and the last line
  row at or before it; gcc may end a line sequence with a row at the very
  address of its end, which libdw sorts after the end.  So `_start`,
  which follows an -O2 `main` in `.text.startup`, read as
  `std_thread.h:142` (`addr2line` says `??:?`).  benchprof takes a line
  only inside the ranges of its unit.
- A C++ function that DWARF gives no linkage name (static, in an
  anonymous namespace, a member of a class in one) is named, where it is
  inlined, from the namespaces and classes around its declaration and its
  parameter types, as the demangler names its out-of-line copies and as
  llvm-symbolizer does: `app::detail::inl(long)`, `(anonymous
  namespace)::Widget::poke(char const*) const`, not `inl`.  A parameter
  type that is not spelled (an array, a function pointer) leaves the
  parameter list out.

"""

DOC_HEAD = """# Fidelity: benchprof against perf

Generated by `scripts/fidelity.py` (do not edit the tables by hand):

    scripts/fidelity.py --benchprof build/benchprof --runs %(runs)d --doc docs/fidelity.md

Each program of the distribution below runs %(runs)d times under `benchprof
record -q --no-counters -F 997 -e cpu-clock -g MODE` and %(runs)d times under
`perf record -q -F 997 -e cpu-clock -g` (fp) or `--call-graph dwarf,8192`
(dwarf), interleaved, kernel %(kernel)s, as root: both sample kernel time
by default here.  perf's samples are read with `perf script -F comm,ip,sym`
and folded like stackcollapse-perf (`tests/bench/harness.py --fold`).

- **Self %%**: the share of samples whose leaf is the function, the mean
  of the runs.  Functions are compared by name: code without a symbol is
  `fn_START` in benchprof (the function its unwind tables give) and
  `[unknown]` in perf, added up as (no symbol); benchprof also shows the
  calls inlined in code with DWARF as functions of their own, as `perf
  script` does.
- **Full-stack fraction**: of the samples, those whose stack reaches
  where a thread starts (`_start`, `__libc_start_main`, `start_thread`,
  `clone`, `clone3`, ld.so's `_dl_start` among its three outermost
  frames: a stripped program's `_start` has no name).
- **(no symbol)**: code without a symbol, added up (perf's `[unknown]`,
  benchprof's `fn_START` and `0xADDR`).
- The programs' input is 1.5 MB of generated text (`make_input`).

%(findings)s%(departures)s## Results

"""


if __name__ == "__main__":
    sys.exit(main())
