#!/bin/sh
# A reused output directory keeps nothing a previous run made that the new
# run did not make again, whatever the two runs were:
#   1. --each google-benchmark whose harness marks benchmarks inside each
#      invocation (DIR/BM_a/<mark>/), then one that marks fewer, of fewer
#      benchmarks: the marks' folders the new run did not make are gone;
#   2. --each, then a plain run, then --each again: neither the benchmark
#      folders (and the marks inside them) nor the plain run's artifacts
#      at the top of DIR stay;
#   3. the same with --repeat 2 (plain and --each);
#   4. --each, benchprof-wrap --new-job, --each marking fewer;
#   5. --each interrupted (SIGTERM) or killed (SIGKILL) in its second
#      benchmark, then a normal run.
# Each time, every file the previous run left is tagged first: the new run
# must leave no tagged file and no folder with nothing in it.  Files that
# benchprof did not write (user-*.txt, at the top, in a folder of their
# own, in a benchmark's folder and in a mark's folder inside one) stay,
# with the folders that hold them.
# shellcheck disable=SC1091 # the library is make check's
. "${top_srcdir:?run through make check}/tests/lib.sh"
outside_ci
unset BENCHPROF_CONFIG BENCHPROF_OUTPUT BENCHPROF_RUN_ARGS BENCHPROF_STRICT

# harness.sh: Google Benchmark's flags, enough of them: lists $BENCHES;
# each invocation marks $MARKS; the one named $HOLD writes "started PID"
# to $MARK, then waits for $GO (10 s at most); prints Google Benchmark's
# JSON when given a filter, else BMF
cat >"$TMP/harness.sh" <<'SH'
#!/bin/sh
case "$*" in
  *--benchmark_list_tests*) printf '%s\n' $BENCHES; exit 0 ;;
esac
name=$(printf '%s\n' "$*" | sed -n 's/.*--benchmark_filter=^\([A-Za-z_]*\).*/\1/p')
for k in $MARKS; do
  echo "begin - $k" >"$BENCHPROF_CONTROL"
  i=0; while [ $i -lt 3000 ]; do i=$((i + 1)); done
  echo "end -" >"$BENCHPROF_CONTROL"
done
if [ -n "${HOLD:-}" ] && [ "$name" = "$HOLD" ]; then
  echo "started $$" >>"$MARK"
  n=0
  while [ ! -e "$GO" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
fi
if [ -n "$name" ]; then
  printf '{"context": {}, "benchmarks": [{"name": "%s", "run_type": "iteration", "iterations": 100, "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns"}]}\n' "$name"
else
  echo '{"plain": {"latency": {"value": 1}}}'
fi
SH
chmod +x "$TMP/harness.sh"
O="$TMP/out"
BENCHES="BM_a BM_b" MARKS="m1 m2" HOLD="" MARK="$TMP/mark" GO="$TMP/go"
export BENCHES MARKS HOLD MARK GO

# each ARGS...: benchprof run --each google-benchmark ARGS into $O
each() {
  "$BENCHPROF" run -q --no-publish -o "$O" --each google-benchmark "$@" \
    -- "$TMP/harness.sh" >>"$TMP/run.out" 2>>"$TMP/run.err" ||
    fail "run --each $*: exit status $?"
}

# plain ARGS...: benchprof run ARGS (BMF on stdout) into $O
plain() {
  "$BENCHPROF" run -q --no-publish -o "$O" --adapter json "$@" \
    -- "$TMP/harness.sh" >>"$TMP/run.out" 2>>"$TMP/run.err" ||
    fail "run $*: exit status $?"
}

# tag: every file in $O but the user's, the records of what the run made
# (the manifest, the notes: a tag would make them unreadable, and the
# next run removes them whatever they are) and --new-job's .job-start
# (the job's, kept for the job's runs) gets a line that no file benchprof
# writes has
tag() {
  find "$O" -type f ! -name 'user-*' ! -name manifest.json \
    ! -name .benchmark-dirs ! -name .previous-manifest.json \
    ! -name .job-start |
    while read -r f; do printf '\nstale-run-output\n' >>"$f"; done
}

# leftovers: what a previous run left in $O: tagged files, and folders
# with no file anywhere below them
leftovers() {
  python3 - "$O" <<'PY'
import os, sys
out = sys.argv[1]
left = []
for root, dirs, files in os.walk(out):
    for f in files:
        with open(os.path.join(root, f), "rb") as fh:
            if b"stale-run-output" in fh.read():
                left.append(os.path.join(root, f))
    if root != out and not any(fs for _, _, fs in os.walk(root)):
        left.append(root + "/")
print("\n".join(os.path.relpath(p, out) for p in sorted(left)))
PY
}

# fresh LABEL: the run before left nothing in $O; the user's files are all
# there
fresh() {
  left=$(leftovers)
  check "$1: nothing of the run before stays (${left:-none})" \
    [ -z "$left" ]
  for f in user-top.txt mine/user-data.txt; do
    check "$1: $f (not benchprof's) stays" grep -q mine "$O/$f"
  done
}

# has LABEL PATH...: each PATH (relative to $O) is a file the new run wrote
has() {
  label=$1
  shift
  for p in "$@"; do
    check "$label: $p written" [ -s "$O/$p" ]
  done
}

# 1. --each, marks inside each benchmark's folder
each
has "each, 2 marks" BM_a/m1/profile.pb.gz BM_a/m2/profile.pb.gz \
  BM_b/m1/profile.pb.gz BM_b/m2/profile.pb.gz BM_a/profile.pb.gz
mkdir -p "$O/mine"
echo mine >"$O/user-top.txt"
echo mine >"$O/mine/user-data.txt"
echo mine >"$O/BM_b/m2/user-notes.txt"
tag
BENCHES=BM_a MARKS=m1 each
fresh "each, BM_a marking m1 only"
has "each, BM_a marking m1 only" BM_a/m1/profile.pb.gz BM_a/profile.pb.gz
check "each, BM_a marking m1 only: no BM_a/m2" [ ! -e "$O/BM_a/m2" ]
check "each: a mark's folder with a file of the user's stays, with it only" \
  [ "$(find "$O/BM_b" | sort | tr '\n' ' ')" = \
    "$O/BM_b $O/BM_b/m2 $O/BM_b/m2/user-notes.txt " ]
rm -r "$O/BM_b"

# 2. --each, then a plain run (no marks), then --each again
each
echo mine >"$O/BM_a/user-notes.txt"
tag
MARKS="" plain
fresh "plain run after --each"
has "plain run after --each" profile.pb.gz profile.folded
check "plain run after --each: no BM_b" [ ! -e "$O/BM_b" ]
check "plain run after --each: BM_a keeps the user's file, only it" \
  [ "$(ls -A "$O/BM_a")" = user-notes.txt ]
rm -r "$O/BM_a"
tag
each
fresh "--each after a plain run"
check "--each after a plain run: no profile at the top" \
  [ ! -e "$O/profile.pb.gz" ]

# 3. --repeat 2: plain with marks, then --each with fewer marks, then
#    --each marking nothing
plain --repeat 2
has "plain --repeat 2" m1/profile.pb.gz m2/profile.pb.gz profile.pb.gz
tag
MARKS=m1 each --repeat 2
fresh "--each --repeat 2 after plain --repeat 2"
has "--each --repeat 2" BM_a/m1/profile.pb.gz BM_b/m1/profile.pb.gz
each --repeat 2
tag
MARKS="" each --repeat 2
fresh "--each --repeat 2 marking nothing after one marking m1 m2"
has "--each --repeat 2 marking nothing" BM_a/profile.pb.gz \
  BM_b/profile.pb.gz
check "--each --repeat 2 marking nothing: no mark's folder" sh -c \
  "[ ! -e '$O/BM_a/m1' ] && [ ! -e '$O/BM_b/m2' ]"

# 4. benchprof-wrap --new-job between two runs (the started hooks move the
#    manifest aside; the next run clears what it lists)
each
BENCHPROF_OUTPUT=$O "$top_srcdir/runner-hooks/benchprof-wrap" --new-job
tag
MARKS=m1 each
fresh "--each after --new-job"
has "--each after --new-job" BM_a/m1/profile.pb.gz BM_b/m1/profile.pb.gz

# 5. --each stopped in BM_b (BM_a and its marks written, BM_b's marks
#    made), by SIGTERM then by SIGKILL; then a normal run of fewer marks
for sig in TERM KILL; do
  want=143
  [ $sig = KILL ] && want=137
  rm -f "$MARK" "$GO"
  HOLD=BM_b "$BENCHPROF" run -q --no-publish -o "$O" \
    --each google-benchmark -- "$TMP/harness.sh" >/dev/null \
    2>"$TMP/err.$sig" &
  bp=$!
  wait_line "$MARK" '^started' 30 || fail "$sig: BM_b never started"
  kill -"$sig" $bp
  wait $bp
  st=$?
  touch "$GO"
  hpid=$(sed -n 's/^started //p' "$MARK")
  n=0
  while [ -e "/proc/$hpid" ] && [ $n -lt 500 ]; do
    sleep 0.01
    n=$((n + 1))
  done
  check "$sig in BM_b: benchprof stopped by it ($want, was $st)" \
    [ $st -eq $want ]
  has "$sig in BM_b" BM_a/m1/profile.pb.gz BM_a/m2/profile.pb.gz
  tag
  BENCHES=BM_a MARKS=m1 each
  fresh "a run after one stopped by SIG$sig"
  has "a run after one stopped by SIG$sig" BM_a/m1/profile.pb.gz
done
finish
