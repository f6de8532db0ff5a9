#!/bin/sh
# benchprof comment against a GitLab API stand-in on 127.0.0.1: the merge
# request's note is posted with an access token (PRIVATE-TOKEN), and with
# compare.json beside the comment the verdict becomes the head commit's
# status as GitLab's commit status API documents it (POST
# /projects/{id}/statuses/{sha}: "failed" on a confirmed regression,
# "success" otherwise, named benchprof).  The token never shows in
# benchprof's output.  A note by another user that carries the marker is
# never edited (GET /user's id against each note's author.id).  A
# comparison of a commit that is no longer the merge request's head (a
# re-run of an old job) leaves the note as it is, and so does one of an
# older commit that finishes after the newer one's (the note's compared
# line says which it shows); an older comparison is replaced.  Two
# jobs that both POST a note leave one: the lowest id, showing the newer
# comparison; the other job's is deleted.  A failure's advice fits what
# failed: a refused access token is named by its variable, the job
# token's advice comes only when CI_JOB_TOKEN was sent, a 404 names
# what to check, and other refusals get no token advice.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/forge_lib.sh"

need python3 "apt-get install python3"
TOKEN="glpat-standin-token-5e21"
forge_standin gitlab "$TMP/gl" "$TOKEN"
API="$FORGE_URL/api/v4"

# one comparison a merge request: 1 regression (and 1 unconfirmed), none
SHA1=0123456789abcdef0123456789abcdef01234567
SHA2=89abcdef0123456789abcdef0123456789abcdef
forge_comparison "$TMP/one" $SHA1 1 1 1
forge_comparison "$TMP/two" $SHA2 0 1 1

GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/one/comment.md" \
  --gitlab 42 --mr 7 --api-url "$API" -v >"$TMP/one.out" 2>"$TMP/one.err"
status=$?
expect_status one 0
GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/two/comment.md" \
  --gitlab 42 --mr 8 --api-url "$API" -v >"$TMP/two.out" 2>"$TMP/two.err"
status=$?
expect_status two 0

check "the token never shows" sh -c \
  '! grep -q "$1" "$2"/one.out "$2"/one.err "$2"/two.out "$2"/two.err' \
  sh "$TOKEN" "$TMP"

pycheck "a note per merge request, a status per head commit" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gl")
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
posts = [r for r in reqs if r["method"] == "POST"]
assert [r["status"] for r in posts] == [201] * 4, posts
assert all(r["credential"] == "private-token" for r in reqs), reqs
notes = json.load(open(os.path.join(d, "state.json")))
assert sorted(n["mr"] for n in notes) == [7, 8], notes
st = json.load(open(os.path.join(d, "statuses.json")))
assert len(st) == 2, st
one, two = st
assert one["project"] == "42" and one["sha"] == \
    "0123456789abcdef0123456789abcdef01234567", one
assert one["state"] == "failed" and one["name"] == "benchprof", one
assert one["description"] == "1 regression confirmed, 1 unconfirmed", one
assert two["state"] == "success" and two["name"] == "benchprof", two
assert two["sha"] == "89abcdef0123456789abcdef0123456789abcdef", two
assert len(one["description"]) <= 140 and len(two["description"]) <= 140
PY

# a note by the merge request's author carrying our marker: GET /user
# says whose notes are ours (author.id), the author's is left alone
OTHER="glpat-mr-author-7c1d"
forge_standin gitlab "$TMP/gl2" "$TOKEN" --other "$OTHER"
python3 - "$FORGE_URL/api/v4/projects/42/merge_requests/9/notes" \
  "$OTHER" <<'PY'
import json, sys, urllib.request
url, token = sys.argv[1:]
body = "<!-- benchprof:comment proj/tb -->\nforged by the author"
req = urllib.request.Request(
    url, data=json.dumps({"body": body}).encode(), method="POST",
    headers={"PRIVATE-TOKEN": token, "Content-Type": "application/json"})
assert urllib.request.urlopen(req).status == 201
PY
for n in 1 2; do
  GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/one/comment.md" \
    --gitlab 42 --mr 9 --api-url "$FORGE_URL/api/v4" >/dev/null \
    2>"$TMP/forged$n.err"
  check "forged marker, run $n: exit 0" [ $? -eq 0 ]
done
check "forged marker: said it was left alone" grep -q \
  "carries benchprof's marker: left alone" "$TMP/forged1.err"
pycheck "forged marker: the author's note untouched, ours beside it" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gl2")
notes = json.load(open(os.path.join(d, "state.json")))
assert len(notes) == 2, notes
forged, ours = notes
assert forged["author"]["username"] == "mr-author", forged
assert forged["body"].endswith("forged by the author"), forged
assert ours["author"] == {"id": 31, "username": "benchprof-ci"}, ours
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
assert [r["path"] for r in reqs if r["method"] == "PUT"] == \
    ["/api/v4/projects/42/merge_requests/9/notes/%d" % ours["id"]], reqs
assert [r["status"] for r in reqs if r["path"] == "/api/v4/user"] == \
    [200, 200], reqs
PY

# a re-run of an older commit: merge request 7 is now at SHA2, the
# comparison of SHA1 leaves its note as it is
forge_standin gitlab "$TMP/gl3" "$TOKEN"
printf '{"7": "%s"}\n' "$SHA2" >"$TMP/gl3/merge_requests.json"
for run in two one; do
  GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
    "$TMP/$run/comment.md" --gitlab 42 --mr 7 \
    --api-url "$FORGE_URL/api/v4" >/dev/null 2>"$TMP/stale-$run.err"
  check "head check, $run: exit 0" [ $? -eq 0 ]
done
check "head check: the old run says why it posts nothing" grep -q \
  "merge request 42#7 is now at 89abcdef0123, and this comparison is of 0123456789ab" \
  "$TMP/stale-one.err"
pycheck "head check: the note and status of the new head kept" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gl3")
notes = json.load(open(os.path.join(d, "state.json")))
assert len(notes) == 1, notes
st = json.load(open(os.path.join(d, "statuses.json")))
assert [x["sha"] for x in st] == [
    "89abcdef0123456789abcdef0123456789abcdef"], st
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
assert reqs[-1]["path"] == "/api/v4/projects/42/merge_requests/7", reqs
PY

# jobs that finish out of order: the note of the newer head commit is
# left as it is by the older one's comparison, which ended last; the
# older comparison's note is replaced by the newer one's
forge_standin gitlab "$TMP/gl4" "$TOKEN"
forge_compared "$TMP/o-new.md" \
  "head=$SHA2 commit_time=2024-01-02T08:00:00Z end_time=2024-01-02T09:00:00Z" \
  0 'the newer head'
forge_compared "$TMP/o-old.md" \
  "head=$SHA1 commit_time=2024-01-01T08:00:00Z end_time=2024-01-02T10:00:00Z" \
  1 'the older head'
for run in new:11 old:11 old:12 new:12; do
  GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/o-${run%:*}.md" \
    --gitlab 42 --mr "${run#*:}" --api-url "$FORGE_URL/api/v4" >/dev/null \
    2>"$TMP/order-${run%:*}-${run#*:}.err"
  check "order, $run: exit 0" [ $? -eq 0 ]
done
check "order: the older head's comparison says it left the note" grep -q \
  "the merge request's comment already shows a newer comparison (head 89abcde, committed 2024-01-02T08:00:00Z" \
  "$TMP/order-old-11.err"
pycheck "order: the newer comparison shown on both merge requests" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gl4")
notes = json.load(open(os.path.join(d, "state.json")))
by_mr = {n["mr"]: n["body"] for n in notes}
assert len(notes) == 2 and sorted(by_mr) == [11, 12], notes
assert all("the newer head" in b for b in by_mr.values()), by_mr
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
assert [(r["method"], r["path"].split("/")[6]) for r in reqs
        if r["method"] in ("POST", "PUT")] == \
    [("POST", "11"), ("POST", "12"), ("PUT", "12")], reqs
PY

# two jobs that both POST a note (each listed the notes before either
# made one): the stand-in makes the other job's note just before ours (a
# lower id).  Listed again after the POST, the lowest id survives: it is
# edited when ours is the newer comparison, left when it shows a newer
# one, and ours is deleted (a refused DELETE is a warning); the status
# is set only by the newer comparison
forge_standin gitlab "$TMP/gl5" "$TOKEN"
printf '{"13": "%s", "14": "%s", "15": "%s"}\n' "$SHA2" "$SHA2" "$SHA2" \
  >"$TMP/gl5/merge_requests.json"
forge_comparison "$TMP/tw-late" "$SHA2" 0 0 1
forge_compared "$TMP/tw-late/comment.md" \
  "head=$SHA2 commit_time=2024-01-02T08:00:00Z end_time=2024-01-02T11:00:00Z" \
  0 'later run'
forge_comparison "$TMP/tw-early" "$SHA2" 1 0 0
forge_compared "$TMP/tw-early/comment.md" \
  "head=$SHA2 commit_time=2024-01-02T08:00:00Z end_time=2024-01-02T09:00:00Z" \
  1 'earlier run'
for run in late:early:13 early:late:14 late:early:15; do
  mine=${run%%:*} rest=${run#*:}
  cp "$TMP/tw-${rest%:*}/comment.md" "$TMP/gl5/twin-before-post"
  [ "${rest#*:}" = 15 ] && : >"$TMP/gl5/refuse-next-delete"
  GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
    "$TMP/tw-$mine/comment.md" --gitlab 42 --mr "${rest#*:}" \
    --api-url "$FORGE_URL/api/v4" >/dev/null 2>"$TMP/twin-${rest#*:}.err"
  check "twins, $run: exit 0" [ $? -eq 0 ]
done
check "twins: the newer job says it deleted its own note" grep -q \
  "another job posted its comment (700) at the same moment: kept that one and deleted this job's (701)" \
  "$TMP/twin-13.err"
check "twins: the older job left the newer note" grep -q \
  "already shows a newer comparison" "$TMP/twin-14.err"
check "twins: a refused DELETE is a warning" grep -q \
  "warning: comment 705, a duplicate, not deleted (DELETE .*/notes/705: HTTP 403" \
  "$TMP/twin-15.err"
pycheck "twins: one note of the newer comparison, the loser's deleted" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gl5")
notes = json.load(open(os.path.join(d, "state.json")))
by = {}
for n in notes:
    by.setdefault(n["mr"], []).append((n["id"], "later run" in n["body"]))
assert by == {13: [(700, True)], 14: [(702, True)],
              15: [(704, True), (705, True)]}, by
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
writes = [(r["method"], r["path"].rsplit("/", 1)[1], r["status"])
          for r in reqs if r["method"] in ("POST", "PUT", "DELETE")]
SHA2 = "89abcdef0123456789abcdef0123456789abcdef"
assert writes == [
    ("POST", "notes", 201), ("PUT", "700", 200), ("DELETE", "701", 204),
    ("POST", SHA2, 201),
    ("POST", "notes", 201), ("DELETE", "703", 204),
    ("POST", "notes", 201), ("PUT", "704", 200), ("DELETE", "705", 403),
    ("POST", SHA2, 201)], writes
st = json.load(open(os.path.join(d, "statuses.json")))
assert [x["state"] for x in st] == ["success"] * 2, st
PY

# two jobs of one head whose statuses land in the other order than their
# notes: ours (earlier run, 1 regression) got in first and survives, the
# other job (later run) edits it and sets success just before our failed
# lands (other-before-status).  Read again after the status, the note
# shows the other's verdict line: the status follows it
forge_standin gitlab "$TMP/gl7" "$TOKEN"
printf '{"16": "%s"}\n' "$SHA2" >"$TMP/gl7/merge_requests.json"
cp "$TMP/tw-late/comment.md" "$TMP/gl7/twin-after-post"
python3 - "$TMP/gl7" "$TMP/tw-late/comment.md" "$SHA2" <<'PY'
import json, os, sys
d, md, sha = sys.argv[1:]
body = open(md).read() + \
    "<!-- benchprof:verdict head=%s regressions=0 unconfirmed=0 -->\n" % sha
with open(os.path.join(d, "other-before-status"), "w") as f:
    json.dump({"comment": 700, "body": body,
               "status": {"state": "success", "name": "benchprof",
                          "sha": sha, "project": "42",
                          "description": "other job"}}, f)
PY
GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
  "$TMP/tw-early/comment.md" --gitlab 42 --mr 16 \
  --api-url "$FORGE_URL/api/v4" >/dev/null 2>"$TMP/follow.err"
check "status order: exit 0" [ $? -eq 0 ]
check "status order: says the status follows the note" grep -q \
  "another job's comparison of 89abcdef0123 is in the comment now: the commit status follows it" \
  "$TMP/follow.err"
pycheck "status order: the last status says what the note shows" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gl7")
notes = json.load(open(os.path.join(d, "state.json")))
assert notes[0]["id"] == 700 and "later run" in notes[0]["body"], notes
st = json.load(open(os.path.join(d, "statuses.json")))
assert [(x["state"], x["description"]) for x in st] == [
    ("success", "other job"),
    ("failed", "1 regression confirmed, 0 unconfirmed"),
    ("success", "0 regressions confirmed, 0 unconfirmed")], st
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
# after each status the note alone is read again
assert [r["path"].rsplit("/", 1)[1] for r in reqs if r["method"] == "GET"
        and "/notes/" in r["path"]] == ["700", "700"], reqs
PY
# what a failure says of the token depends on what failed: a refused
# access token (a wrong or expired glpat-...) is named by its variable,
# never by its value, and is not taken for a CI job token; the job
# token's advice only when CI_JOB_TOKEN was what went; a 404 (a wrong
# API URL, project or merge request) and any other refusal say nothing
# of job tokens
forge_standin gitlab "$TMP/gl6" "$TOKEN"
API6="$FORGE_URL/api/v4"
WRONG="glpat-expired-token-0b7a"
GITLAB_TOKEN=$WRONG "$BENCHPROF" comment --markdown "$TMP/one/comment.md" \
  --gitlab 42 --mr 7 --api-url "$API6" >"$TMP/h401.out" 2>"$TMP/h401.err"
status=$?
expect_status h401 1
check "refused access token: its variable named, and why it is refused" \
  grep -q 'GitLab refused the access token from \$GITLAB_TOKEN (HTTP 401): it is expired or revoked, lacks the api scope' \
  "$TMP/h401.err"
check "refused access token: no job token advice" sh -c \
  '! grep -q "CI_JOB_TOKEN\|CI job token" "$1"' sh "$TMP/h401.err"
MYTOK=$WRONG "$BENCHPROF" comment --markdown "$TMP/one/comment.md" \
  --gitlab 42 --mr 7 --api-url "$API6" --token-env MYTOK \
  >/dev/null 2>"$TMP/h401b.err"
status=$?
expect_status h401b 1
check "refused access token, --token-env: that variable named" grep -q \
  'refused the access token from \$MYTOK (HTTP 401)' "$TMP/h401b.err"
CI_JOB_TOKEN=job-token-value-9f3e "$BENCHPROF" comment --markdown \
  "$TMP/one/comment.md" --gitlab 42 --mr 7 --api-url "$API6" \
  --token-env CI_JOB_TOKEN >/dev/null 2>"$TMP/hjob.err"
status=$?
expect_status hjob 1
check "job token: GitLab refuses it for notes, said" grep -q \
  'GitLab accepts no CI job token (CI_JOB_TOKEN) for merge request notes: put a project or personal access token with the api scope in \$GITLAB_TOKEN' \
  "$TMP/hjob.err"
check "job token: said once" [ "$(grep -c 'accepts no CI job token' \
  "$TMP/hjob.err")" = 1 ]
GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/one/comment.md" \
  --gitlab 42 --mr 7 --api-url "$FORGE_URL/api/v3" >/dev/null \
  2>"$TMP/h404.err"
status=$?
expect_status h404 1
check "404: the project, merge request and API to check" grep -q \
  "GitLab answered 404: check the project id (--gitlab 42) and the merge request iid (--mr 7) at $FORGE_URL/api/v3" \
  "$TMP/h404.err"
check "404: nothing of tokens refused" sh -c \
  '! grep -q "CI job token\|refused the access token" "$1"' sh \
  "$TMP/h404.err"
echo 422 >"$TMP/gl6/fail-next-post"
GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/one/comment.md" \
  --gitlab 42 --mr 7 --api-url "$API6" >/dev/null 2>"$TMP/h422.err"
status=$?
expect_status h422 1
check "422: the server's words" grep -q "HTTP 422" "$TMP/h422.err"
check "422: no token hint" sh -c \
  '! grep -q "token\|answered 404" "$1"' sh "$TMP/h422.err"
check "refusals: no token value in any output" sh -c \
  '! grep -q -e "$1" -e "$2" -e job-token-value "$3"/h*.err "$3"/h*.out' \
  sh "$TOKEN" "$WRONG" "$TMP"
finish
