#!/bin/sh
# An edit slower than comment.settle, against the GitHub and the GitLab
# stand-in: A, a re-run of the old head commit, checks the head (A) and
# lists the comments; its edit is then held by the stand-in (hold-edit).
# Meanwhile B is pushed and B's job runs whole: its edit lands, it reads
# the comment back after comment.settle and finds its own comparison
# there.  Only then does A's edit land, so the comment shows A's
# comparison while the request's head is B.  A's job reads the comment
# back, finds its own comparison, asks the forge for the head again and
# marks the comment: its first visible line says the comparison is of A
# and the head is now B, whose comparison has not landed yet.  A's job
# sets only A's status (passing): every status of B is B's job's
# (failing).  The next run of B puts its comparison back, unmarked.
# Without the mark the comment shows A's comparison as if it were the
# head's.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/forge_lib.sh"

need python3 "apt-get install python3"
A=1111111111111111111111111111111111111111
B=2222222222222222222222222222222222222222
DAY1=2024-01-01T08:00:00Z
DAY2=2024-01-02T08:00:00Z

forge_timed_comparison a-first "$A" "$DAY1" 2024-01-01T09:00:00Z 0 0 1 'A, first run'
forge_timed_comparison a-again "$A" "$DAY1" 2024-01-01T10:00:00Z 0 0 1 'A, run again'
forge_timed_comparison b-first "$B" "$DAY2" 2024-01-02T09:00:00Z 1 0 0 'B, first run'
forge_timed_comparison b-again "$B" "$DAY2" 2024-01-02T11:00:00Z 1 0 0 'B, run again'


# slow_edit KIND: A's held edit landing after B's whole job, against a
# fresh KIND stand-in in $TMP/KIND
slow_edit() {
  kind=$1 dir=$TMP/$1
  forge_standin "$kind" "$dir" "$TOKEN" 0
  heads=$dir/pulls.json what="pull request"
  if [ "$kind" = gitlab ]; then
    heads=$dir/merge_requests.json what="merge request"
  fi
  printf '{"5": "%s"}\n' "$A" >"$heads"
  forge_job "$kind" a-first   # the comment as the earlier pipeline left it
  printf '%s' 'A, run again' >"$dir/hold-edit"
  forge_job "$kind" a-again &
  a_job=$!
  # A has checked the head (A) and listed the comments: its edit is held
  check "$kind: A's edit is held" wait_line "$dir/edit-held" '^held$' 30
  printf '{"5": "%s"}\n' "$B" >"$heads"   # the push
  forge_job "$kind" b-first   # lands, reads its own comparison back, ends
  check "$kind: B's job found its own comparison and ended" sh -c \
    '! grep -q -e "wrote this one again" -e "left it" "$1"' sh \
    "$TMP/$kind-b-first.err"
  : >"$dir/release-edit"   # A's edit lands after B's read-back
  wait $a_job
  for name in a-first a-again b-first; do
    check "$kind, $name: exit 0" [ "$(cat "$TMP/$kind-$name.rc")" = 0 ]
  done
  check "$kind: the held edit landed on its release" sh -c \
    '! grep -q "without its release" "$1"' sh "$dir/server.err"
  check "$kind: A's job says it marked the comment" grep -q \
    "the $what's head is now 222222222222 (a push after this job checked it), and comment [0-9]* shows this older comparison: marked it as not of the head until 222222222222's lands; no status set for 222222222222" \
    "$TMP/$kind-a-again.err"
  KIND=$kind WHAT=$what pycheck "$kind: A's comparison marked, B's statuses B's own" <<'PY'
import json, os
kind, what = os.environ["KIND"], os.environ["WHAT"]
d = os.path.join(os.environ["TMP"], kind)
A, B = "1" * 40, "2" * 40
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 1, state
body = state[0]["body"]
lines = body.split("\n")
assert lines[0] == "<!-- benchprof:comment proj/tb -->", lines
assert lines[1].startswith("<!-- benchprof:compared head=%s " % A), lines
# the first line a reader sees
assert lines[2] == ("_This comparison is of `1111111`; the %s's head is "
                    "now `2222222`, whose comparison has not landed "
                    "yet._" % what), lines
assert lines[3] == "" and "A, run again" in body, lines
assert body.endswith("<!-- benchprof:verdict head=%s regressions=0 "
                     "unconfirmed=0 -->\n" % A), body
st = json.load(open(os.path.join(d, "statuses.json")))
bad = "failure" if kind == "github" else "failed"
of = {A: [], B: []}
for s in st:
    of[s["sha"]].append((s["state"], s["description"]))
assert of[A][-1] == ("success", "0 regressions confirmed, 0 unconfirmed"), \
    of[A]
# B's only status is its job's: no passing status for the new head
assert of[B] == [(bad, "1 regression confirmed, 0 unconfirmed")], of[B]
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
edit = "PATCH" if kind == "github" else "PUT"
# B's edit, A's held one, A's mark
assert sum(r["method"] == edit for r in reqs) == 3, reqs
PY
  forge_job "$kind" b-again   # the next run of the new head
  check "$kind, b-again: exit 0" [ "$(cat "$TMP/$kind-b-again.rc")" = 0 ]
  KIND=$kind pycheck "$kind: the next run of B puts its comparison back" <<'PY'
import json, os
kind = os.environ["KIND"]
d = os.path.join(os.environ["TMP"], kind)
B = "2" * 40
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 1, state
body = state[0]["body"]
assert "B, run again" in body and "_This comparison is of" not in body, body
assert body.endswith("<!-- benchprof:verdict head=%s regressions=1 "
                     "unconfirmed=0 -->\n" % B), body
PY
}

TOKEN=ghs_standin_token_slow
slow_edit github
TOKEN=glpat-standin-token-slow
slow_edit gitlab
finish
