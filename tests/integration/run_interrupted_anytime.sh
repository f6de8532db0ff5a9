#!/bin/sh
# A TERM to benchprof run (a cancelled job) while no command runs ends the
# run as one during the benchmark does: benchprof's handlers stay in for
# the whole run.  The signal is sent once the harness's process is gone,
# while benchprof writes the artifacts of hundreds of benchmarks the
# harness marked (a second or more of real work, no pause of ours):
#   1. one invocation: the manifest is marked "interrupted" by SIGTERM,
#      every artifact it lists is whole, nothing is published, exit 143
#      (the harness exited 0: as a command killed by the signal);
#   2. --repeat 3, after the first repetition: no repetition starts after
#      it, a manifest without report, exit 143;
#   3. --each google-benchmark, after the first benchmark: the second never
#      starts, the manifest lists the first, exit 143;
#   4. an interrupted run whose harness marked benchmarks lists their
#      directories in its manifest, so the next run in the same output
#      directory removes them (none stays stale);
#   5. so does the next run after one that wrote no manifest (results it
#      could not read, benchprof killed with SIGKILL while it wrote the
#      marked benchmarks' profiles): the directories are noted in
#      .benchmark-dirs before they are made.
# shellcheck disable=SC1091,SC2086 # the libraries are make check's; $common is a list of options
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

standin bencher
export BENCHER_API_TOKEN="$TOKEN" BENCHER_HOST="$BENCHER_URL"
unset BENCHPROF_CONFIG BENCHPROF_STRICT BENCHPROF_BENCHER_FILE \
  BENCHPROF_OUTPUT BENCHPROF_RUN_ARGS
H1=1111111111111111111111111111111111111111
common="--project demo --branch main --testbed box --store file://$TMP/store --spool $TMP/spool --retries 0 --timeout 5"
mkdir -p "$TMP/store"
# enough marked benchmarks that writing their artifacts takes a second or
# more (300 take about 0.7 s on a 2-core runner)
NMARKS=${NMARKS:-600}
export NMARKS

# marks.sh: counts its invocations in $COUNT, marks $NMARKS benchmarks,
# prints its results (BMF, or Google Benchmark's when given
# --benchmark_filter) and writes its pid to $MARK as it exits
cat >"$TMP/marks.sh" <<'SH'
#!/bin/sh
case "$*" in
  *--benchmark_list_tests*) printf 'BM_a\nBM_b\n'; exit 0 ;;
esac
n=$(cat "$COUNT" 2>/dev/null || echo 0)
echo $((n + 1)) >"$COUNT"
k=0
while [ $k -lt "$NMARKS" ]; do
  k=$((k + 1))
  echo "begin - mark$k" >"$BENCHPROF_CONTROL"
  i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done
  echo "end -" >"$BENCHPROF_CONTROL"
done
case "$*" in
  *--benchmark_filter*)
    name=$(printf '%s\n' "$*" | sed -n 's/.*--benchmark_filter=^\([A-Za-z_]*\).*/\1/p')
    printf '{"context": {}, "benchmarks": [{"name": "%s", "run_type": "iteration", "iterations": 100, "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns"}]}\n' "$name" ;;
  *) echo '{"sort/1k": {"latency": {"value": 1}}}' ;;
esac
echo "pid $$" >>"$MARK"
SH
chmod +x "$TMP/marks.sh"


# interrupt_after_exit TAG ARGS...: benchprof run ARGS in the background;
# TERM sent to it once the harness's first invocation has exited and
# been reaped, 0.1 s later (benchprof then writes its artifacts: not a
# signal passed on to a command that is exiting); $st: benchprof's exit
# status
interrupt_after_exit() {
  tag=$1
  shift
  MARK="$TMP/mark.$tag" COUNT="$TMP/count.$tag"
  export MARK COUNT
  "$BENCHPROF" run -q "$@" >"$TMP/out.$tag" 2>"$TMP/err.$tag" &
  bp=$!
  wait_line "$MARK" '^pid' 60 || fail "$tag: the harness never finished"
  hpid=$(sed -n 's/^pid //p' "$MARK" | sed -n 1p)
  n=0
  while [ -e "/proc/$hpid" ] && [ $n -lt 500 ]; do
    sleep 0.01
    n=$((n + 1))
  done
  sleep 0.1
  kill -TERM $bp
  wait $bp
  st=$?
}

# manifest DIR: the manifest's outcome, signal, exit status and report
manifest() {
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(m.get("outcome"), m.get("signal"), m.get("exit_status"),
      m.get("report"))' "$1/manifest.json"
}

# whole DIR: every artifact the manifest lists has its listed size
whole() {
  python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
arts = list(m.get("artifacts", []))
for b in m.get("benchmarks", []):
    arts += b.get("artifacts", [])
assert arts, "no artifact listed"
for a in arts:
    assert os.path.getsize(os.path.join(d, a["file"])) == a["bytes"], a
PY
}

# runs: how many reports the stand-in accepted
runs() {
  python3 - "$TMP/bencher.log" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
print(len([e for e in log if e.get("path") == "/v0/run"
           and e.get("status") == 201]))
PY
}

nothing_published() {
  check "$1: nothing sent to Bencher" [ "$(runs)" = 0 ]
  check "$1: nothing stored" sh -c \
    "[ -z \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"
  check "$1: nothing spooled" sh -c \
    "[ -z \"\$(ls -A '$TMP/spool' 2>/dev/null | grep -v '^\\.')\" ]"
  check "$1: no error" sh -c "! grep -q 'error:' '$TMP/err.$1'"
}

# 1. one invocation, TERM while its artifacts are written
interrupt_after_exit once -o "$TMP/o1" --adapter json --hash $H1 $common \
  -- "$TMP/marks.sh"
check "once: exit 143 (was $st)" [ "$st" -eq 143 ]
check "once: a manifest, marked interrupted by SIGTERM" [ \
  "$(manifest "$TMP/o1" 2>/dev/null)" = "interrupted SIGTERM 0 report.json" ]
check "once: every artifact listed is whole" whole "$TMP/o1"
check "once: says it was not published" grep -q \
  "was interrupted .*: not published and not compared" "$TMP/err.once"
nothing_published once

# 2. --repeat 3: TERM while the first repetition's artifacts are written
interrupt_after_exit repeat -o "$TMP/o2" --repeat 3 --adapter json \
  --hash $H1 $common -- "$TMP/marks.sh"
check "repeat: exit 143 (was $st)" [ "$st" -eq 143 ]
check "repeat: no repetition started after the signal" [ \
  "$(cat "$TMP/count.repeat")" = 1 ]
check "repeat: a manifest without report, interrupted by SIGTERM" [ \
  "$(manifest "$TMP/o2" 2>/dev/null)" = "interrupted SIGTERM 0 None" ]
check "repeat: says it stopped after the first repetition" grep -qF \
  "the run was interrupted after repetition 1 of 3" "$TMP/err.repeat"
check "repeat: every artifact listed is whole" whole "$TMP/o2"
nothing_published repeat

# 3. --each: TERM while BM_a's artifacts are written
interrupt_after_exit each -o "$TMP/o3" --each google-benchmark --hash $H1 \
  $common -- "$TMP/marks.sh"
check "each: exit 143 (was $st)" [ "$st" -eq 143 ]
check "each: BM_b never started" [ "$(cat "$TMP/count.each")" = 1 ]
check "each: a manifest without report, interrupted by SIGTERM" [ \
  "$(manifest "$TMP/o3" 2>/dev/null)" = "interrupted SIGTERM 0 None" ]
check "each: the manifest lists BM_a" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert [b["name"] for b in m["benchmarks"]] == ["BM_a"], m["benchmarks"]
' "$TMP/o3/manifest.json"
check "each: says it stopped after BM_a" grep -qF \
  "the run was interrupted after benchmark 1 of 2 (BM_a)" "$TMP/err.each"
nothing_published each

# 4. an interrupted run's marked benchmarks are listed, then cleared
cat >"$TMP/slow.sh" <<'SH'
#!/bin/sh
for n in "$@"; do
  echo "begin - $n" >"$BENCHPROF_CONTROL"
  i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done
  echo "end -" >"$BENCHPROF_CONTROL"
done
echo started >>"$MARK"
i=0
while [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
SH
chmod +x "$TMP/slow.sh"
MARK="$TMP/mark.stale"
export MARK
"$BENCHPROF" run -q --no-publish --adapter json -o "$TMP/o4" -- \
  "$TMP/slow.sh" alpha beta >/dev/null 2>"$TMP/err.stale" &
bp=$!
wait_line "$MARK" '^started' 30 || fail "stale: the harness never started"
kill -TERM $bp
wait $bp
st=$?
check "stale: the command's status (143, was $st)" [ "$st" -eq 143 ]
check "stale: alpha/ and beta/ written" sh -c \
  "[ -f '$TMP/o4/alpha/profile.pb.gz' ] && [ -f '$TMP/o4/beta/profile.pb.gz' ]"
check "stale: the interrupted run's manifest lists alpha and beta" \
  python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["outcome"] == "interrupted", m["outcome"]
got = sorted((b["name"], b["profile"]) for b in m["benchmarks"])
assert got == [("alpha", "alpha"), ("beta", "beta")], got
' "$TMP/o4/manifest.json"
check "stale: every artifact listed is whole" whole "$TMP/o4"
NMARKS=2 COUNT="$TMP/count.next" "$BENCHPROF" run -q --no-publish \
  -o "$TMP/o4" -- "$TMP/marks.sh" >/dev/null 2>"$TMP/err.next" ||
  fail "stale: the next run failed"
check "stale: the next run removed alpha/ and beta/" sh -c \
  "[ ! -e '$TMP/o4/alpha' ] && [ ! -e '$TMP/o4/beta' ]"

# 5. runs that leave no manifest still leave no stale folder: results that
#    cannot be read (exit 1, no manifest), then benchprof killed outright
#    (SIGKILL) while it writes the marked benchmarks' profiles
cat >"$TMP/bad.sh" <<'SH'
#!/bin/sh
for n in "$@"; do
  echo "begin - $n" >"$BENCHPROF_CONTROL"
  i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done
  echo "end -" >"$BENCHPROF_CONTROL"
done
echo 'not json'
SH
chmod +x "$TMP/bad.sh"
"$BENCHPROF" run -q --no-publish --adapter json -o "$TMP/o5" -- \
  "$TMP/bad.sh" alpha beta >/dev/null 2>"$TMP/err.bad"
st=$?
check "unreadable results: exit 1 (was $st), no manifest" sh -c \
  "[ $st -eq 1 ] && [ ! -e '$TMP/o5/manifest.json' ]"
check "unreadable results: alpha/ and beta/ written" sh -c \
  "[ -f '$TMP/o5/alpha/profile.pb.gz' ] && [ -f '$TMP/o5/beta/profile.pb.gz' ]"
NMARKS=2 COUNT="$TMP/count.next5" "$BENCHPROF" run -q --no-publish \
  -o "$TMP/o5" -- "$TMP/marks.sh" >/dev/null 2>"$TMP/err.next5" ||
  fail "unreadable results: the next run failed"
check "unreadable results: the next run removed alpha/ and beta/" sh -c \
  "[ ! -e '$TMP/o5/alpha' ] && [ ! -e '$TMP/o5/beta' ]"
check "unreadable results: the next run's marks are there" sh -c \
  "[ -f '$TMP/o5/mark1/profile.pb.gz' ] && [ -f '$TMP/o5/mark2/profile.pb.gz' ]"

MARK="$TMP/mark.kill" COUNT="$TMP/count.kill"
export MARK COUNT
"$BENCHPROF" run -q --no-publish --adapter json -o "$TMP/o6" -- \
  "$TMP/marks.sh" >/dev/null 2>"$TMP/err.kill" &
bp=$!
wait_line "$MARK" '^pid' 60 || fail "kill: the harness never finished"
# once the first benchmark's folder is there, half way through the rest
n=0
while [ ! -d "$TMP/o6/mark1" ] && [ $n -lt 500 ]; do
  sleep 0.01
  n=$((n + 1))
done
kill -KILL $bp
wait $bp
check "kill: no manifest, some marked folders left" sh -c \
  "[ ! -e '$TMP/o6/manifest.json' ] && [ -d '$TMP/o6/mark1' ]"
mkdir "$TMP/o6/mine"
echo "keep me" >"$TMP/o6/mine/data.txt"
NMARKS=1 COUNT="$TMP/count.next6" "$BENCHPROF" run -q --no-publish \
  -o "$TMP/o6" -- "$TMP/marks.sh" >/dev/null 2>"$TMP/err.next6" ||
  fail "kill: the next run failed"
check "kill: the next run left no folder of the killed run" sh -c \
  "[ -z \"\$(ls '$TMP/o6' | grep '^mark' | grep -vx mark1)\" ]"
check "kill: a folder benchprof did not make stays" grep -q "keep me" \
  "$TMP/o6/mine/data.txt"
finish
