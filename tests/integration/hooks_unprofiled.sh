#!/bin/sh
# Whatever goes wrong with benchprof, its configuration or its
# environment, a wrapped benchmark still runs: its stdin, stdout, stderr
# and exit status are its own, and benchprof's trouble is a warning.
# - benchprof's own setup fails before the command starts (an output
#   directory that cannot be made, no control FIFO, an event that cannot
#   be opened; plain, --repeat, --each): `benchprof run --keep-status`,
#   and so benchprof-wrap, runs the command unprofiled (strict: exit 1,
#   the command not run); the errno is said once; an output directory
#   that cannot be made is refused by config check already, so
#   benchprof-wrap treats it as an invalid configuration (strict: exit 2);
# - no configuration file: profiling is off in benchprof-wrap and in every
#   runner's hooks (BENCHPROF_ENABLED=1 turns it on);
# - a mistake in BENCHPROF_RUN_ARGS: never read when profiling is off; a
#   warning naming the variable when on (strict: exit 2);
# - a benchprof that cannot be run (missing, a stub that exits 127):
#   said so by the hooks and benchprof-wrap, the command runs;
# - the Bencher entrypoint keeps the command's exit status when the
#   harness gives no results, and says when it wrote no file.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_harness
runner_config "$TMP/on.json"
runner_config "$TMP/off.json" false
BENCHER_API_TOKEN=$TOKEN
export BENCHER_API_TOKEN
mkdir -p "$TMP/tools" "$TMP/job"
cd "$TMP/job" || exit 1

# the benchmark: reads a line of stdin, writes both streams, exits $1
cat >"$TMP/tools/bench" <<'SH'
#!/bin/sh
read -r line || line=none
echo "bench out: $line"
echo "bench err: $line" >&2
exit "${1:-0}"
SH
chmod +x "$TMP/tools/bench"
printf 'from stdin\n' | "$TMP/tools/bench" 3 >"$TMP/direct.out" \
  2>"$TMP/direct.err"

# wrapped NAME ARGS...: printf 'from stdin' | benchprof-wrap bench ARGS...
# into $TMP/NAME.out and .err, its status in $status
wrapped() {
  name=$1
  shift
  printf 'from stdin\n' | benchprof-wrap "$TMP/tools/bench" "$@" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  status=$?
}

# own NAME: the command ran as it would alone: status 3, the same stdout,
# the same stderr once benchprof's own lines are left out
own() {
  [ "$status" -eq 3 ] && cmp -s "$TMP/direct.out" "$TMP/$1.out" &&
    grep -v '^benchprof' "$TMP/$1.err" | cmp -s "$TMP/direct.err" -
}

# unprofiled NAME WHAT: the command ran as its own, with a warning (no
# error) from benchprof, and nothing was profiled into the job's
# default output directory
unprofiled() {
  check "$2: the command's stdin, stdout, stderr and status (3)" own "$1"
  check "$2: a warning says it runs unprofiled" \
    grep -q "^benchprof.*warning: .*unprofiled" "$TMP/$1.err"
  check "$2: no error" sh -c "! grep -q '^benchprof[^:]*: error' \
'$TMP/$1.err'"
  check "$2: nothing profiled" [ ! -e "$TMP/job/benchprof-out/profile.folded" ]
}

# ---- 1. benchprof's own setup fails before the command starts
BENCHPROF_CONFIG="$TMP/on.json"
export BENCHPROF_CONFIG
: >"$TMP/afile"
BENCHPROF_OUTPUT="$TMP/afile/out" wrapped outdir 3
unprofiled outdir "output directory under a file"
check "output directory: named, its errno said once" sh -c \
  "grep -q 'afile/out.*Not a directory' '$TMP/outdir.err' &&
   ! grep -q 'Not a directory: Not a directory' '$TMP/outdir.err'"
BENCHPROF_OUTPUT=/proc/benchprof-out wrapped proc 3
unprofiled proc "output directory that cannot be made"
check "output directory: the reason" grep -q "benchprof-out" "$TMP/proc.err"
BENCHPROF_OUTPUT="$TMP/afile/out" BENCHPROF_RUN_ARGS="--repeat 2" \
  wrapped repeat 3
unprofiled repeat "--repeat 2, output directory under a file"
BENCHPROF_OUTPUT="$TMP/afile/out" \
  BENCHPROF_RUN_ARGS="--each google-benchmark" wrapped each 3
unprofiled each "--each, output directory under a file"
TMPDIR="$TMP/none" XDG_RUNTIME_DIR="$TMP/none" wrapped fifo 3
unprofiled fifo "no control FIFO"
check "no control FIFO: the reason" grep -q "FIFO" "$TMP/fifo.err"
BENCHPROF_RUN_ARGS="-e no-such-event" wrapped event 3
unprofiled event "an event that cannot be opened"
check "event: the reason" grep -q "no-such-event" "$TMP/event.err"
# benchprof run itself, as benchprof-wrap runs it
printf 'from stdin\n' | "$BENCHPROF" run --keep-status --no-publish \
  -o "$TMP/afile/out" -- "$TMP/tools/bench" 3 >"$TMP/run.out" \
  2>"$TMP/run.err"
status=$?
unprofiled run "benchprof run --keep-status"
# strict: benchprof's failure is fatal, as documented: a failed setup
# exits 1; an output directory that cannot be made is an invalid
# configuration for config check, which benchprof-wrap --enabled asks
# first, so exit 2 (before config check looked at directories: 1)
BENCHPROF_STRICT=1 TMPDIR="$TMP/none" XDG_RUNTIME_DIR="$TMP/none" \
  wrapped strict 3
check "strict, no control FIFO: exit 1, the command not run" sh -c \
  "[ $status -eq 1 ] && [ ! -s '$TMP/strict.out' ]"
BENCHPROF_STRICT=1 BENCHPROF_OUTPUT="$TMP/afile/out" wrapped strict-out 3
check "strict, output under a file: exit 2, the command not run" sh -c \
  "[ $status -eq 2 ] && [ ! -s '$TMP/strict-out.out' ]"
# without --keep-status (a person's benchprof run): as before
"$BENCHPROF" run --no-publish -o "$TMP/afile/out" -- "$TMP/tools/bench" 3 \
  </dev/null >"$TMP/plain.out" 2>"$TMP/plain.err"
status=$?
check "without --keep-status: exit 1, the command not run" sh -c \
  "[ $status -eq 1 ] && [ ! -s '$TMP/plain.out' ]"
unset BENCHPROF_CONFIG

# ---- 2. no configuration file: off everywhere
rm -rf "$TMP/job/benchprof-out"
if [ -e /etc/benchprof/config.json ]; then
  echo "SKIP: this machine has /etc/benchprof/config.json: the no-file cases"
else
  benchprof-wrap --enabled
  check "no file: --enabled says off (1)" [ $? -eq 1 ]
  BENCHPROF_ENABLED=1 benchprof-wrap --enabled
  check "no file, BENCHPROF_ENABLED=1: on (0)" [ $? -eq 0 ]
  wrapped noconf 3
  check "no file: the command as it is" own noconf
  check "no file: nothing said, nothing written" sh -c \
    "cmp -s '$TMP/direct.err' '$TMP/noconf.err' &&
     [ ! -e '$TMP/job/benchprof-out' ]"
  : >"$TMP/gh-env"
  : >"$TMP/gh-path"
  GITHUB_ENV="$TMP/gh-env" GITHUB_PATH="$TMP/gh-path" \
    $(hook_shell) "$HOOKS/github/job-started.sh" >"$TMP/gh-noconf.out" 2>&1
  check "no file: GitHub's started hook exits 0" [ $? -eq 0 ]
  check "no file: GitHub's started hook says profiling is off" grep -q \
    "profiling is off" "$TMP/gh-noconf.out"
  check "no file: GitHub's started hook does not say it is on" sh -c \
    "! grep -q 'profiling on' '$TMP/gh-noconf.out'"
  check "no file: nothing in \$GITHUB_ENV, \$GITHUB_PATH" sh -c \
    "[ ! -s '$TMP/gh-env' ] && [ ! -s '$TMP/gh-path' ]"
  GITHUB_ENV="$TMP/gh-env" $(hook_shell) "$HOOKS/github/job-completed.sh" \
    >"$TMP/gh-noconf-done.out" 2>&1
  check "no file: GitHub's completed hook exits 0, silently" sh -c \
    "[ $? -eq 0 ] && [ ! -s '$TMP/gh-noconf-done.out' ]"
  sh -e -c ". '$HOOKS/gitlab/pre_build_script.sh'
echo \"output=\${BENCHPROF_OUTPUT:-none}\"
echo \"path=\$PATH\"
sh '$HOOKS/gitlab/post_build_script.sh'" >"$TMP/gl-noconf.out" 2>&1
  check "no file: the GitLab job runs" [ $? -eq 0 ]
  check "no file: GitLab's pre_build_script says off, changes nothing" sh -c \
    "grep -q 'profiling is off' '$TMP/gl-noconf.out' &&
     grep -qx 'output=none' '$TMP/gl-noconf.out' &&
     grep -qxF 'path=$PATH' '$TMP/gl-noconf.out'"
  "$HOOKS/bencher/entrypoint.sh" --file "$TMP/noconf.json" -- \
    "$TMP/harness.sh" "$TMP/noconf.json" 0 >"$TMP/bn-noconf.out" \
    2>"$TMP/bn-noconf.err"
  check "no file: the Bencher entrypoint runs the command as it is" sh -c \
    "[ $? -eq 0 ] && [ ! -s '$TMP/bn-noconf.err' ] &&
     ! grep -q task-clock '$TMP/noconf.json' &&
     [ ! -e '$TMP/job/benchprof-out' ]"
fi

# ---- 3. a mistake in BENCHPROF_RUN_ARGS
BENCHPROF_CONFIG="$TMP/off.json" BENCHPROF_RUN_ARGS="--adaptor json" \
  wrapped args_off 3
check "bad args, off: the command as it is" own args_off
check "bad args, off: nothing said" cmp -s "$TMP/direct.err" \
  "$TMP/args_off.err"
BENCHPROF_CONFIG="$TMP/on.json" BENCHPROF_RUN_ARGS="--adaptor json" \
  wrapped args_on 3
unprofiled args_on "bad args, on"
check "bad args, on: the warning names the variable and the option" \
  grep -q "warning: BENCHPROF_RUN_ARGS is not usable.*--adaptor" \
  "$TMP/args_on.err"
check "bad args, on: no usage text" sh -c \
  "! grep -q 'usage:' '$TMP/args_on.err'"
BENCHPROF_CONFIG="$TMP/on.json" BENCHPROF_RUN_ARGS="--repeat none" \
  wrapped args_value 3
unprofiled args_value "a bad value in BENCHPROF_RUN_ARGS"
BENCHPROF_STRICT=1 BENCHPROF_CONFIG="$TMP/on.json" \
  BENCHPROF_RUN_ARGS="--adaptor json" wrapped args_strict 3
check "bad args, strict: exit 2, the command not run, the variable named" \
  sh -c "[ $status -eq 2 ] && [ ! -s '$TMP/args_strict.out' ] &&
         grep -q BENCHPROF_RUN_ARGS '$TMP/args_strict.err'"

# ---- 4. a benchprof that cannot be run
printf '#!/bin/sh\nexit 127\n' >"$TMP/stub"
chmod +x "$TMP/stub"
BENCHPROF_CONFIG="$TMP/on.json"
export BENCHPROF_CONFIG
for bp in "$TMP/stub" "$TMP/nowhere/benchprof"; do
  what="benchprof that cannot be run ($(basename "$bp"))"
  BENCHPROF=$bp benchprof-wrap --enabled 2>"$TMP/broken-enabled.err"
  check "$what: --enabled says it cannot be run (4)" sh -c \
    "[ $? -eq 4 ] && grep -q 'cannot be run' '$TMP/broken-enabled.err'"
  BENCHPROF=$bp wrapped broken 3
  unprofiled broken "$what: benchprof-wrap"
  check "$what: the warning says benchprof cannot be run" \
    grep -q "benchprof cannot be run" "$TMP/broken.err"
  : >"$TMP/gh-env"
  : >"$TMP/gh-path"
  BENCHPROF=$bp GITHUB_ENV="$TMP/gh-env" GITHUB_PATH="$TMP/gh-path" \
    $(hook_shell) "$HOOKS/github/job-started.sh" >"$TMP/gh-broken.out" 2>&1
  check "$what: GitHub's started hook exits 0, says so" sh -c \
    "[ $? -eq 0 ] && grep -q '^::warning::.*cannot be run' \
'$TMP/gh-broken.out' && [ ! -s '$TMP/gh-env' ] && [ ! -s '$TMP/gh-path' ]"
  check "$what: not called an invalid configuration" sh -c \
    "! grep -q 'invalid' '$TMP/gh-broken.out'"
  BENCHPROF=$bp sh -e -c ". '$HOOKS/gitlab/pre_build_script.sh'
echo script ran" >"$TMP/gl-broken.out" 2>&1
  check "$what: GitLab's job runs, pre_build_script says so" sh -c \
    "grep -qx 'script ran' '$TMP/gl-broken.out' &&
     grep -q 'cannot be run' '$TMP/gl-broken.out' &&
     ! grep -q invalid '$TMP/gl-broken.out'"
  BENCHPROF=$bp "$HOOKS/bencher/entrypoint.sh" "$TMP/tools/bench" 3 \
    </dev/null >"$TMP/bn-broken.out" 2>&1
  check "$what: the Bencher entrypoint runs the command" sh -c \
    "[ $? -eq 3 ] && grep -q 'bench out: none' '$TMP/bn-broken.out'"
done

# ---- 5. the Bencher entrypoint: the exit status is the command's
BENCHER_PROJECT=widget BENCHER_BRANCH=main BENCHER_HASH=$HEAD_SHA
BENCHER_TESTBED=metal-1
export BENCHER_PROJECT BENCHER_BRANCH BENCHER_HASH BENCHER_TESTBED
printf '#!/bin/sh\necho "no results here"\nexit "${1:-0}"\n' \
  >"$TMP/tools/nobmf"
chmod +x "$TMP/tools/nobmf"
for st in 0 4; do
  "$HOOKS/bencher/entrypoint.sh" "$TMP/tools/nobmf" "$st" \
    >"$TMP/bn-stdout$st.out" 2>"$TMP/bn-stdout$st.err"
  check "Bencher, no BMF on stdout: exit $st, the command's" [ $? -eq "$st" ]
  check "Bencher, no BMF on stdout: its output passes through" grep -qx \
    "no results here" "$TMP/bn-stdout$st.out"
  rm -f "$TMP/results.json"
  "$HOOKS/bencher/entrypoint.sh" --file "$TMP/results.json" -- \
    "$TMP/tools/nobmf" "$st" >"$TMP/bn-file$st.out" 2>"$TMP/bn-file$st.err"
  check "Bencher, no file written: exit $st, the command's" [ $? -eq "$st" ]
  check "Bencher, no file written: says so, no file made" sh -c \
    "grep -q 'wrote no .*results.json' '$TMP/bn-file$st.err' &&
     ! grep -q \"keeps the harness's results\" '$TMP/bn-file$st.err' &&
     [ ! -e '$TMP/results.json' ]"
done
printf '{"not": "bmf"}' >"$TMP/kept.json"
printf '#!/bin/sh\ncp "%s" "$1"\n' "$TMP/kept.json" >"$TMP/tools/badbmf"
chmod +x "$TMP/tools/badbmf"
"$HOOKS/bencher/entrypoint.sh" --file "$TMP/results.json" -- \
  "$TMP/tools/badbmf" "$TMP/results.json" >"$TMP/bn-bad.out" \
  2>"$TMP/bn-bad.err"
check "Bencher, a file benchprof cannot read: exit 0, the file kept" sh -c \
  "[ $? -eq 0 ] && cmp -s '$TMP/kept.json' '$TMP/results.json' &&
   grep -q \"keeps the harness's results\" '$TMP/bn-bad.err'"
# a previous job's file the harness did not write: not called its results
printf '{"old": {"latency": {"value": 1}}}' >"$TMP/results.json"
touch -d 2020-01-01 "$TMP/results.json"
"$HOOKS/bencher/entrypoint.sh" --file "$TMP/results.json" -- \
  "$TMP/tools/nobmf" 0 >"$TMP/bn-stale.out" 2>"$TMP/bn-stale.err"
check "Bencher, a previous job's file: exit 0, said to be no results" sh -c \
  "[ $? -eq 0 ] && grep -q 'did not write .*results.json' '$TMP/bn-stale.err' &&
   ! grep -q \"keeps the harness's results\" '$TMP/bn-stale.err'"
finish
