#!/bin/sh
# benchprof compare of a suite large enough for its worker threads
# (parallel.h): 108 benchmarks, 100 marked (a folder each) and 8 only in
# the BMF report (they share the run's profile, ".", so their diffs go to
# the same files).  The result with 4 threads, and with the default
# count, is the one thread's, file for file and byte for byte; the shared
# files are the last such benchmark's, as the loop in order leaves them;
# threads were used; with two benchmarks broken the error is the first's,
# whichever thread came to it first.  A benchmark sampled on neither side
# gets no diff files.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"

# suite.py N MARKED FACTOR BMF: marks b0..b<MARKED-1>, each spinning 4 ms
# of CPU time (sampled, so each has diffs to write), and reports them
# (every third at the same value on both sides, the others times FACTOR),
# then reports z0..z<N-MARKED-1>, unmarked and unchanged: they share the
# run's folder and come last, next to each other, in compare's order
cat >"$TMP/suite.py" <<'PY'
import json, os, sys, time
n, marked, factor, bmf = (int(sys.argv[1]), int(sys.argv[2]),
                          float(sys.argv[3]), sys.argv[4])
fd = os.open(os.environ["BENCHPROF_CONTROL"], os.O_WRONLY)
for i in range(marked):
    # the lines carry their own times (CLOCK_MONOTONIC): "-", the time
    # benchprof reads them, lands after a 4 ms benchmark on a busy
    # machine, whose range then holds none of its samples
    os.write(fd, b"begin %d b%d\n" % (time.monotonic_ns(), i))
    until = time.process_time() + 0.004
    while time.process_time() < until:
        pass
    os.write(fd, b"end %d\n" % time.monotonic_ns())
os.close(fd)
bmf_out = {"b%d" % i: {"latency": {"value": 1000.0 * (factor if i % 3 else 1)}}
           for i in range(marked)}
bmf_out.update({"z%d" % i: {"latency": {"value": 1000.0}}
                for i in range(n - marked)})
json.dump(bmf_out, open(bmf, "w"))
PY

for side in base:1 head:1.5; do
  name=${side%%:*}
  "$BENCHPROF" run -q --no-publish -o "$TMP/$name" --bmf "$TMP/$name.json" \
    -- python3 "$TMP/suite.py" 108 100 "${side#*:}" "$TMP/$name.json" \
    2>"$TMP/$name.err"
  check "$name: the run succeeds" [ $? -eq 0 ]
done

# compare OUT [VAR=VALUE...]: the two runs compared into $TMP/OUT
compare() {
  out=$1
  shift
  env "$@" "$BENCHPROF" compare -o "$TMP/$out" "$TMP/base" "$TMP/head" \
    >/dev/null 2>"$TMP/$out.err"
}

# same_as_one TIMES VAR=VALUE...: compare run TIMES times writes what
# one thread wrote, every time (the threads' order differs from run to
# run: a write out of order shows in some of them, not in all)
same_as_one() {
  times=$1
  shift
  for k in $(seq "$times"); do
    compare "many$k" "$@" && diff -r "$TMP/one" "$TMP/many$k" || return 1
    rm -rf "$TMP/many$k"
  done
}

compare one BENCHPROF_THREADS=1
check "one thread: compare succeeds" [ $? -eq 0 ]
compare four BENCHPROF_THREADS=4
check "four threads: compare succeeds" [ $? -eq 0 ]
check "four threads write what one writes" diff -r "$TMP/one" "$TMP/four"
check "and again, ten times" same_as_one 10 BENCHPROF_THREADS=4
check "the default count writes what one writes" same_as_one 3
# summary OUT: compare's stderr for OUT, its folder's name left out
summary() {
  sed "s|$TMP/$1|OUT|g" "$TMP/$1.err"
}
check "the summaries agree" [ "$(summary one)" = "$(summary four)" ]

check "the shared files are the last benchmark's" python3 - "$TMP/four" <<'PY'
import json, os, sys
out = sys.argv[1]
benches = json.load(open(os.path.join(out, "compare.json")))["benchmarks"]
shared = [b["name"] for b in benches if b["dir"] == "."]
assert len(shared) == 8, len(shared)
svg = open(os.path.join(out, "diff.svg")).read()
neg = open(os.path.join(out, "diff-negated.svg")).read()
assert "Head: %s " % shared[-1] in svg, shared[-1]
assert "Base: %s " % shared[-1] in neg, shared[-1]
PY

check "every marked benchmark has its diffs" python3 - "$TMP/four" <<'PY'
import os, sys
missing = [i for i in range(100) for f in ("diff.folded", "diff.svg", "diff-negated.svg")
           if not os.path.isfile(os.path.join(sys.argv[1], "b%d" % i, f))]
assert not missing, missing
PY

# a benchmark sampled on neither side has nothing to draw: no diff files
# (its measures are still compared); one sampled on one side has them
for side in base head; do
  cp -R "$TMP/$side" "$TMP/quiet-$side"
done
: >"$TMP/quiet-base/b5/profile.folded"
: >"$TMP/quiet-head/b5/profile.folded"
: >"$TMP/quiet-head/b6/profile.folded"
"$BENCHPROF" compare -o "$TMP/quiet" "$TMP/quiet-base" "$TMP/quiet-head" \
  >/dev/null 2>"$TMP/quiet.err"
check "sampled on neither side: compare succeeds" [ $? -eq 0 ]
check "sampled on neither side: no diff files" \
  sh -c '! ls "$1"/b5/diff* 2>/dev/null' sh "$TMP/quiet"
check "sampled on neither side: still compared" python3 -c "
import json
b = [b for b in json.load(open('$TMP/quiet/compare.json'))['benchmarks'] if b['name'] == 'b5']
assert b and b[0]['measures'], b"
check "sampled on one side: its diffs are written" \
  sh -c '[ -f "$1/b6/diff.svg" ] && [ -f "$1/b6/diff-negated.svg" ]' sh \
  "$TMP/quiet"

# the threads a process has, polled while it runs: the most seen
check "compare runs on several threads" python3 - "$BENCHPROF" "$TMP" <<'PY'
import os, subprocess, sys
bp, tmp = sys.argv[1], sys.argv[2]
env = dict(os.environ, BENCHPROF_THREADS="4")
most = 0
for attempt in range(5):
    p = subprocess.Popen([bp, "compare", "-o", "%s/poll%d" % (tmp, attempt),
                          tmp + "/base", tmp + "/head"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None:
        try:
            most = max(most, len(os.listdir("/proc/%d/task" % p.pid)))
        except OSError:
            pass
    if most > 1:
        break
assert most > 1, most
PY

# two benchmarks' stacks broken: the error is the first one's (b20,
# before b90 in the head report), with one thread or four
cp -R "$TMP/head" "$TMP/broken"
for b in b20 b90; do
  echo "not a stack line" >"$TMP/broken/$b/profile.folded"
done
for threads in 1 4; do
  BENCHPROF_THREADS=$threads "$BENCHPROF" compare -o "$TMP/bad$threads" \
    "$TMP/base" "$TMP/broken" >/dev/null 2>"$TMP/bad$threads.err"
  check "$threads thread(s): a broken benchmark fails compare" [ $? -ne 0 ]
  check "$threads thread(s): the error names the first broken benchmark" \
    grep -q "broken/b20/profile.folded" "$TMP/bad$threads.err"
done
check "the error is the same with one thread or four" \
  cmp "$TMP/bad1.err" "$TMP/bad4.err"
finish
