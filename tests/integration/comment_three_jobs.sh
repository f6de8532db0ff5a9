#!/bin/sh
# Three jobs of one pull request (merge request) write its comment at the
# same moment, against the GitHub and the GitLab stand-in: A, a re-run
# of the old head commit that checked the head before the next push; then,
# after the push to B, an earlier and a later run of B.  All three list
# the comments before any edit lands (the stand-in holds each edit until
# the three have come: edit-order), then the edits land newest first, so
# A's, the oldest comparison, lands last.  Each job reads the comment back
# after writing it (comment.settle): the later run of B finds an older
# comparison over its own and writes its own again; A, whose head the
# request has left, never writes over B's; the earlier run of B never
# replaces the later one.  So the comment ends with the later run of B,
# B's last commit status says its verdict, and no job sets the status of
# another commit than its own.  Without the read-back the comment ends
# with A's comparison.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/forge_lib.sh"

need python3 "apt-get install python3"
A=1111111111111111111111111111111111111111
B=2222222222222222222222222222222222222222
DAY1=2024-01-01T08:00:00Z
DAY2=2024-01-02T08:00:00Z

forge_timed_comparison a-first "$A" "$DAY1" 2024-01-01T09:00:00Z 0 0 1 'A, first run'
forge_timed_comparison a-again "$A" "$DAY1" 2024-01-01T10:00:00Z 2 0 0 'A, run again'
forge_timed_comparison b-early "$B" "$DAY2" 2024-01-02T09:00:00Z 1 0 0 'B, earlier run'
forge_timed_comparison b-late "$B" "$DAY2" 2024-01-02T11:00:00Z 0 0 1 'B, later run'


# race KIND: the three jobs against a fresh KIND stand-in in $TMP/KIND
race() {
  kind=$1 dir=$TMP/$1
  forge_standin "$kind" "$dir" "$TOKEN" 0
  heads=$dir/pulls.json
  [ "$kind" = gitlab ] && heads=$dir/merge_requests.json
  printf '{"5": "%s"}\n' "$A" >"$heads"
  forge_job "$kind" a-first   # the comment as the earlier pipeline left it
  printf '["B, later run", "B, earlier run", "A, run again"]\n' \
    >"$dir/edit-order"
  forge_job "$kind" a-again &
  a_job=$!
  # A has checked the head (A) and listed the comments: its edit waits
  check "$kind: A's edit is held" wait_line "$dir/edits-waiting" '^2$' 30
  printf '{"5": "%s"}\n' "$B" >"$heads"   # the push
  forge_job "$kind" b-early &
  early_job=$!
  forge_job "$kind" b-late &
  late_job=$!
  wait $a_job $early_job $late_job
  for name in a-first a-again b-early b-late; do
    check "$kind, $name: exit 0" [ "$(cat "$TMP/$kind-$name.rc")" = 0 ]
  done
  check "$kind: the three edits came before any landed" \
    [ "$(sort "$dir/edits-waiting" | tr '\n' ' ')" = "0 1 2 " ]
  check "$kind: B's later run wrote its comparison again, and says so" \
    grep -q "another job wrote an older comparison over this one in comment [0-9]*: wrote this one again" \
    "$TMP/$kind-b-late.err"
  check "$kind: A never wrote over B's comparison" sh -c \
    '! grep -q "wrote this one again" "$1"' sh "$TMP/$kind-a-again.err"
  check "$kind: no edit landed out of its turn" sh -c \
    '! grep -q "without its turn" "$1"' sh "$dir/server.err"
  KIND=$kind pycheck "$kind: the later run of B in the comment and B's status" <<'PY'
import json, os
kind = os.environ["KIND"]
d = os.path.join(os.environ["TMP"], kind)
A, B = "1" * 40, "2" * 40
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 1, state
body = state[0]["body"]
assert "B, later run" in body, body
assert body.endswith("<!-- benchprof:verdict head=%s regressions=0 "
                     "unconfirmed=0 -->\n" % B), body
st = json.load(open(os.path.join(d, "statuses.json")))
good = "success"
bad = "failure" if kind == "github" else "failed"
of = {A: [], B: []}
for s in st:
    of[s["sha"]].append((s["state"], s["description"]))
# A's job set A's statuses only, with its own verdict
a_job = (bad, "2 regressions confirmed, 0 unconfirmed")
assert of[A] and of[A][-1] == a_job, of[A]
assert a_job not in of[B], of[B]
# B's last status is what the comment shows
assert of[B][-1] == (good, "0 regressions confirmed, 0 unconfirmed"), of[B]
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
edit = "PATCH" if kind == "github" else "PUT"
# a-first's, the three held ones, and at least one written again
assert sum(r["method"] == edit for r in reqs) >= 4, reqs
PY
}

TOKEN=ghs_standin_token_3race
race github
TOKEN=glpat-standin-token-3race
race gitlab
finish
