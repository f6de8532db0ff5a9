#!/bin/sh
# A pull request's run while the Bencher API does not take its report
# (the stand-in answers 500 to every POST /v0/run): the publication is
# kept in the spool and the run's comment has no Bencher link, so it
# says that the Bencher report is not published yet, where it waits and
# what sends it (the next job, `benchprof flush`).  Once the spool is
# flushed, the next job's comment has the Bencher link and no such line.
# A run with no Bencher report to send (no token) never says it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

need python3 "apt-get install python3"
outside_ci
standin bencher
make_harness
export BENCHER_API_TOKEN="$TOKEN" BENCHER_HOST="$BENCHER_URL"
BASE=1111111111111111111111111111111111111111
HEAD1=2222222222222222222222222222222222222222
HEAD2=3333333333333333333333333333333333333333
HEAD3=4444444444444444444444444444444444444444
common="--project demo --testbed box --store file://$TMP/store
  --spool $TMP/spool --retries 0 --timeout 5 --bmf $TMP/h.json"
PENDING="The Bencher report is not published yet: it is kept in the runner's spool, and the next job (or \`benchprof flush\`) sends it."

# run NAME ARGS...: benchprof run of the harness into $TMP/NAME
run() {
  name=$1
  shift
  # shellcheck disable=SC2086
  "$BENCHPROF" run -o "$TMP/$name" $common "$@" -- "$TMP/harness.sh" \
    "$TMP/h.json" >"$TMP/$name.out" 2>"$TMP/$name.err"
  # shellcheck disable=SC2034 # read by expect_status (record_lib.sh)
  status=$?
}
pr() {  # NAME HASH: a pull request of feature/x against main@BASE
  run "$1" --branch feature/x --hash "$2" --base-branch main \
    --base-hash "$BASE"
}

run base --branch main --hash "$BASE"
expect_status base 0

# Bencher refuses every report: the head's publication is spooled
control '{"faults": "500,500,500,500,500,500", "fault_path": "/v0/run"}'
pr head1 "$HEAD1"
expect_status head1 0
check "Bencher failing: the publication is spooled" grep -q "spooled as" \
  "$TMP/head1.err"
md1="$TMP/head1/compare/comment.md"
check "Bencher failing: the comment was written" [ -s "$md1" ]
check "Bencher failing: the comment says the report is not published yet" \
  grep -qF "$PENDING" "$md1"
check "Bencher failing: and has no Bencher link" \
  sh -c "! grep -q 'Bencher report and plots' '$md1'"

# Bencher answers again; the spool is flushed (as the job's end hook does)
control '{"reset": true}'
"$BENCHPROF" flush --spool "$TMP/spool" --retries 0 --timeout 5 \
  >"$TMP/flush.out" 2>&1
check "flush: exit 0 (the spooled report delivered)" [ $? -eq 0 ]

# the next job: its comment links Bencher and no longer says it waits
pr head2 "$HEAD2"
expect_status head2 0
md2="$TMP/head2/compare/comment.md"
check "next job: the comment was written" [ -s "$md2" ]
check "next job: no 'not published yet' line" \
  sh -c "! grep -q 'not published yet' '$md2'"
check "next job: the Bencher link is there" grep -q \
  "Bencher report and plots" "$md2"

# no token: no Bencher report is sent, so none waits and none is linked
BENCHER_API_TOKEN='' pr head3 "$HEAD3"
expect_status head3 0
md3="$TMP/head3/compare/comment.md"
check "no token: the comment was written" [ -s "$md3" ]
check "no token: no 'not published yet' line, no Bencher link" \
  sh -c "! grep -q -e 'not published yet' -e 'Bencher report and' '$md3'"

check "no token in any output or spool" no_token "$TMP"/*.out \
  "$TMP"/*.err "$TMP/spool"
finish
