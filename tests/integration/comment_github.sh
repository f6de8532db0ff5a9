#!/bin/sh
# benchprof comment against a GitHub API stand-in on 127.0.0.1: the first
# run lists the pull request's comments (two pages) and POSTs ours; the
# second finds it by its marker, asks who the token is (GET /user) and
# PATCHes it (no second POST), then,
# with compare.json beside it, sets the verdict as the head commit's
# status (failure: a confirmed regression) linking the comment.  The
# token never shows in benchprof's output.  Without a token the comment
# is appended to the summary file.  A comment by someone else that
# carries the marker is never edited, with a user token (GET /user's
# login) or an installation token (GET /user refused: bot accounts only).
# A comparison of a commit that is no longer the pull request's head (a
# re-run of an old job) leaves the comment as it is.  Jobs that finish
# out of order never put an older comparison back: the comment's
# compared line orders it (a newer head commit by committer time, a later
# run of the same commit), one without the line is replaced.  Two jobs
# that both POST (each listed before either made one) leave one comment:
# the lowest id, showing the newer comparison; the other is deleted (a
# refused DELETE is a warning).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/forge_lib.sh"

need python3 "apt-get install python3"
TOKEN="ghs_standin_token_7f3a9c"
forge_standin github "$TMP/gh" "$TOKEN" 130
API=$FORGE_URL

forge_comment "$TMP/c1.md" 1 'first version'
# the comparison beside the second: its verdict becomes a commit status
SHA=0123456789abcdef0123456789abcdef01234567
forge_comparison "$TMP/cmp" "$SHA" 1 2 0 'second version'
# the pull request's head is the comparison's: it is posted
printf '{"5": "%s"}\n' "$SHA" >"$TMP/gh/pulls.json"

GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/c1.md" \
  --github own/repo --pr 5 --api-url "$API" >"$TMP/one.out" 2>"$TMP/one.err"
status=$?
expect_status one 0
GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/cmp/comment.md" \
  --github own/repo --pr 5 --api-url "$API" -v >"$TMP/two.out" 2>"$TMP/two.err"
status=$?
expect_status two 0

pycheck "first POST, then PATCH of the same comment; pages followed" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh")
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
calls = [(r["method"], r["status"]) for r in reqs]
# with compare.json beside, the pull request's head first; who the token
# is, asked once a comment with the marker shows up
# and after its POST the comments are listed again (another job's made
# at the same moment would show there); after the status the comment is
# read again (another job's edit would show there)
assert calls == [("GET", 200), ("GET", 200), ("POST", 201),
                 ("GET", 200), ("GET", 200),
                 ("GET", 200), ("GET", 200), ("GET", 200), ("GET", 200),
                 ("PATCH", 200), ("POST", 201), ("GET", 200)], calls
gets = [r["path"] for r in reqs if r["method"] == "GET"]
assert gets[4] == "/repos/own/repo/pulls/5" and gets[7] == "/user", gets
# the commit status: only with a comparison beside the comment, on its
# head commit, as GitHub's statuses API documents it, linking the comment
st = json.load(open(os.path.join(d, "statuses.json")))
assert len(st) == 1, st
assert reqs[-2]["path"] == "/repos/own/repo/statuses/" + st[0]["sha"]
assert st[0]["sha"] == "0123456789abcdef0123456789abcdef01234567", st
assert st[0]["state"] == "failure" and st[0]["context"] == "benchprof", st
assert st[0]["description"] == "1 regression confirmed, 2 unconfirmed", st
assert reqs[-1]["path"] == "/repos/own/repo/issues/comments/%d" % \
    json.load(open(os.path.join(d, "state.json")))[-1]["id"], reqs[-1]
reqs = reqs[:-2]
assert [r["query"] for r in reqs if r["method"] == "GET" and
        r["path"].endswith("/comments")] == \
    ["per_page=100&page=1", "per_page=100&page=2"] * 3, reqs
state = json.load(open(os.path.join(d, "state.json")))
ours = [c for c in state if "benchprof:comment proj/tb" in c["body"]]
assert len(ours) == 1 and "second version" in ours[0]["body"], ours
assert reqs[-1]["path"] == "/repos/own/repo/issues/comments/%d" % \
    ours[0]["id"], reqs[-1]
assert st[0]["target_url"] == \
    "https://github.example/own/repo/pull/5#issuecomment-%d" % ours[0]["id"]
assert len(state) == 131, len(state)
PY
check "benchprof says what it did" sh -c \
  'grep -q "posted comment" "$1/one.err" && grep -q "updated comment" "$1/two.err"' \
  sh "$TMP"
check "the token never shows" sh -c '! grep -rq "$1" "$2"/*.out "$2"/*.err' \
  sh "$TOKEN" "$TMP"

# a comment by the pull request's author carrying our marker (anyone can
# copy it): left alone, ours posted beside it, then ours edited
OTHER="ghp_pr_author_token_91c2"
forge_standin github "$TMP/gh2" "$TOKEN" 0 --other "$OTHER"
forged() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys, urllib.request
url, token, body = sys.argv[1:]
req = urllib.request.Request(
    url, data=json.dumps({"body": body}).encode(), method="POST",
    headers={"Authorization": "Bearer " + token,
             "Content-Type": "application/json",
             "Accept": "application/vnd.github+json"})
assert urllib.request.urlopen(req).status == 201
PY
}
forged "$FORGE_URL/repos/own/repo/issues/6/comments" "$OTHER" \
  "$(printf '<!-- benchprof:comment proj/tb -->\nforged by the author')"
for n in 1 2; do
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/c1.md" \
    --github own/repo --pr 6 --api-url "$FORGE_URL" >/dev/null \
    2>"$TMP/forged$n.err"
  check "forged marker, run $n: exit 0" [ $? -eq 0 ]
done
check "forged marker: said it was left alone" grep -q \
  "1 comment by another account carries benchprof's marker: left alone" \
  "$TMP/forged1.err"
check "forged marker: posted, then updated our own" sh -c \
  'grep -q "posted comment" "$1" && grep -q "updated comment" "$2"' sh \
  "$TMP/forged1.err" "$TMP/forged2.err"
pycheck "forged marker: the author's comment untouched, ours beside it" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh2")
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 2, state
forged, ours = state
assert forged["user"]["login"] == "pr-author", forged
assert forged["body"].endswith("forged by the author"), forged
assert ours["user"]["login"] == "benchprof-ci", ours
assert "first version" in ours["body"], ours
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
patched = [r["path"] for r in reqs if r["method"] == "PATCH"]
assert patched == ["/repos/own/repo/issues/comments/%d" % ours["id"]], reqs
PY

# the workflow's GITHUB_TOKEN, an installation token: GET /user is
# refused (403), so only a bot account's comment ("...[bot]") is ours
forge_standin github "$TMP/gh3" "$TOKEN" 0 --installation --other "$OTHER"
forged "$FORGE_URL/repos/own/repo/issues/6/comments" "$OTHER" \
  "$(printf '<!-- benchprof:comment proj/tb -->\nforged again')"
for n in 1 2; do
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/c1.md" \
    --github own/repo --pr 6 --api-url "$FORGE_URL" >/dev/null \
    2>"$TMP/bot$n.err"
  check "installation token, run $n: exit 0" [ $? -eq 0 ]
done
pycheck "installation token: the author's comment untouched" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh3")
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 2, state
forged, ours = state
assert forged["body"].endswith("forged again"), forged
assert ours["user"] == {"login": "github-actions[bot]", "id": 41898282,
                        "type": "Bot"}, ours
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
assert [(r["method"], r["status"]) for r in reqs if r["path"] == "/user"] \
    == [("GET", 403), ("GET", 403)], reqs
assert [r["path"] for r in reqs if r["method"] == "PATCH"] == \
    ["/repos/own/repo/issues/comments/%d" % ours["id"]], reqs
PY

# a re-run of an older commit: the pull request is now at NEW, so the
# comparison of OLD leaves the comment (of NEW) as it is, and exits 0
OLD=1111111111111111111111111111111111111111
NEW=2222222222222222222222222222222222222222
forge_standin github "$TMP/gh4" "$TOKEN" 0
printf '{"6": "%s"}\n' "$NEW" >"$TMP/gh4/pulls.json"
forge_comparison "$TMP/new" "$NEW" 0 0 1 'the new head'
forge_comparison "$TMP/old" "$OLD" 1 0 0 'an old re-run'
for run in new old; do
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
    "$TMP/$run/comment.md" --github own/repo --pr 6 --api-url "$FORGE_URL" \
    >/dev/null 2>"$TMP/stale-$run.err"
  check "head check, $run: exit 0" [ $? -eq 0 ]
done
check "head check: the old run says why it posts nothing" grep -q \
  "pull request own/repo#6 is now at 222222222222, and this comparison is of 111111111111: its comment is left as it is" \
  "$TMP/stale-old.err"
pycheck "head check: the comment and status of the new head kept" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh4")
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 1 and "the new head" in state[0]["body"], state
st = json.load(open(os.path.join(d, "statuses.json")))
assert [x["sha"] for x in st] == ["2" * 40], st
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
assert [r["path"] for r in reqs if r["path"].endswith("/pulls/6")] == \
    ["/repos/own/repo/pulls/6"] * 2, reqs
assert reqs[-1]["path"] == "/repos/own/repo/pulls/6", reqs
PY

# a job that compared the merge commit GitHub made of the head (--hash
# "$GITHUB_SHA"): not a re-run of an older head, so its comment is posted
MERGE=3333333333333333333333333333333333333333
forge_standin github "$TMP/gh5" "$TOKEN" 0
printf '{"7": {"head": "%s", "merge": "%s"}}\n' "$NEW" "$MERGE" \
  >"$TMP/gh5/pulls.json"
forge_comparison "$TMP/merge" "$MERGE" 0 0 1 'the merge commit'
GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/merge/comment.md" \
  --github own/repo --pr 7 --api-url "$FORGE_URL" >/dev/null \
  2>"$TMP/merge.err"
check "head check, the merge commit compared: exit 0" [ $? -eq 0 ]
pycheck "head check, the merge commit compared: the comment posted" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh5")
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 1 and "the merge commit" in state[0]["body"], state
PY

# jobs that finish out of order (the pipeline of an earlier push ending
# after the next push's, a commit's job run twice): the comment shows
# the newest comparison by its compared line, in the store's order for
# its latest pointer.  Without compare.json beside these, the pull
# request's head is not asked: only the comment decides.
DAY1=2024-01-01T08:00:00Z DAY2=2024-01-02T08:00:00Z
forge_standin github "$TMP/gh6" "$TOKEN" 0
forge_compared "$TMP/o-new.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T09:00:00Z" 0 \
  'new head, first run'
forge_compared "$TMP/o-old.md" \
  "head=$OLD commit_time=$DAY1 end_time=2024-01-02T10:00:00Z" 1 \
  'old head, ended last'
forge_compared "$TMP/o-early.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T08:30:00Z" 0 \
  'new head, a run that ended earlier'
forge_compared "$TMP/o-again.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T11:00:00Z" 0 \
  'new head, run again'
# order_post NAME PR: benchprof comment --markdown $TMP/NAME.md on PR;
# stderr in $TMP/NAME-PR.err
order_post() {
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/$1.md" \
    --github own/repo --pr "$2" --api-url "$FORGE_URL" >/dev/null \
    2>"$TMP/$1-$2.err"
  check "order: $1 on #$2, exit 0" [ $? -eq 0 ]
}
# order_shows PR TEXT: PR's only comment of ours says TEXT
order_shows() {
  python3 - "$TMP/gh6/state.json" "$1" "$2" <<'PY'
import json, sys
state, pr, text = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ours = [c for c in json.load(open(state)) if c["issue"] == pr]
assert len(ours) == 1, ours
assert text in ours[0]["body"], ours[0]["body"]
PY
}
order_post o-new 8
order_post o-old 8
check "order: an older head commit's comparison, ended last, left out" \
  order_shows 8 'new head, first run'
check "order: and says why" grep -q "the pull request's comment already \
shows a newer comparison (head 2222222, committed $DAY2, its run ended \
2024-01-02T09:00:00Z); left it" "$TMP/o-old-8.err"
order_post o-early 8
check "order: the same commit's run that ended earlier, left out" \
  order_shows 8 'new head, first run'
check "order: and says so" grep -q "already shows a newer comparison" \
  "$TMP/o-early-8.err"
order_post o-again 8
check "order: the same commit run again, ending later, replaces it" \
  order_shows 8 'new head, run again'
check "order: said it updated it" grep -q "updated comment" \
  "$TMP/o-again-8.err"
# an older benchprof's comment has no compared line: replaced; an older
# comparison: replaced by the newer
order_post c1 9
order_post o-old 9
check "order: a comment without the compared line is replaced" \
  order_shows 9 'old head, ended last'
order_post o-new 9
check "order: an older comparison is replaced by a newer one" \
  order_shows 9 'new head, first run'
pycheck "order: nothing written when a newer comparison is shown" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh6")
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
writes = [r["method"] for r in reqs if r["method"] in ("POST", "PATCH")]
# 8: POST, (left), (left), PATCH; 9: POST, PATCH, PATCH
assert writes == ["POST", "PATCH", "POST", "PATCH", "PATCH"], writes
PY

# the same commit's jobs with compare.json beside (the pull request's
# head is theirs): the one that ended earlier leaves the comment and the
# commit status of the later one as they are
forge_standin github "$TMP/gh7" "$TOKEN" 0
printf '{"10": "%s"}\n' "$NEW" >"$TMP/gh7/pulls.json"
forge_comparison "$TMP/late" "$NEW" 0 0 1
forge_compared "$TMP/late/comment.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T11:00:00Z" 0 'later run'
forge_comparison "$TMP/early" "$NEW" 1 0 0
forge_compared "$TMP/early/comment.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T09:00:00Z" 1 \
  'earlier run'
for run in late early; do
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
    "$TMP/$run/comment.md" --github own/repo --pr 10 \
    --api-url "$FORGE_URL" >/dev/null 2>"$TMP/same-$run.err"
  check "same commit, $run: exit 0" [ $? -eq 0 ]
done
check "same commit: the earlier run says it left the comment" grep -q \
  "already shows a newer comparison" "$TMP/same-early.err"
pycheck "same commit: the later run's comment and status kept" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh7")
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 1 and "later run" in state[0]["body"], state
st = json.load(open(os.path.join(d, "statuses.json")))
assert [x["state"] for x in st] == ["success"], st
PY

# two jobs for one pull request that both listed the comments before
# either made one (two pushes' pipelines, a re-run): both POST.  The
# stand-in makes the other job's comment just before ours (a lower id,
# twin-before-post) or just after (twin-after-post).  After a POST the
# comments are listed again: the lowest id survives, the job whose
# comment is not it edits the survivor when its own comparison is newer
# (the compared line, as the edit decides), then deletes its own
twin_post() {   # twin_post DIR PR NAME: post DIR/comment.md on PR
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$1/comment.md" \
    --github own/repo --pr "$2" --api-url "$FORGE_URL" >/dev/null \
    2>"$TMP/$3.err"
  check "twins, $3: exit 0" [ $? -eq 0 ]
}
forge_standin github "$TMP/gh9" "$TOKEN" 0
printf '{"12": "%s", "13": "%s", "14": "%s", "15": "%s"}\n' \
  "$NEW" "$NEW" "$NEW" "$NEW" >"$TMP/gh9/pulls.json"
forge_comparison "$TMP/tw-late" "$NEW" 0 0 1
forge_compared "$TMP/tw-late/comment.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T11:00:00Z" 0 'later run'
forge_comparison "$TMP/tw-early" "$NEW" 1 0 0
forge_compared "$TMP/tw-early/comment.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T09:00:00Z" 1 \
  'earlier run'
# 12: the other job's (earlier run) got in first; ours is newer
cp "$TMP/tw-early/comment.md" "$TMP/gh9/twin-before-post"
twin_post "$TMP/tw-late" 12 newer
# 13: the other job's (later run) got in first; ours is older
cp "$TMP/tw-late/comment.md" "$TMP/gh9/twin-before-post"
twin_post "$TMP/tw-early" 13 older
# 14: ours got in first: it survives, the other job deletes its own
cp "$TMP/tw-early/comment.md" "$TMP/gh9/twin-after-post"
twin_post "$TMP/tw-late" 14 first
# 15: ours is newer, but the DELETE of ours is refused: a warning
cp "$TMP/tw-early/comment.md" "$TMP/gh9/twin-before-post"
: >"$TMP/gh9/refuse-next-delete"
twin_post "$TMP/tw-late" 15 nodelete
check "twins, newer: says it kept the other and deleted its own" grep -q \
  "another job posted its comment (5000) at the same moment: kept that one and deleted this job's (5001)" \
  "$TMP/newer.err"
check "twins, newer: then updated the survivor" grep -q \
  "updated comment 5000" "$TMP/newer.err"
check "twins, older: left the newer comparison" grep -q \
  "already shows a newer comparison (head 2222222, committed $DAY2, its run ended 2024-01-02T11:00:00Z); left it (comment 5002)" \
  "$TMP/older.err"
check "twins, first: nothing said of twins" sh -c \
  '! grep -q "same moment\|duplicate" "$1"' sh "$TMP/first.err"
check "twins, refused DELETE: a warning" grep -q \
  "warning: comment 5007, a duplicate, not deleted (DELETE .*/issues/comments/5007.*403" \
  "$TMP/nodelete.err"
pycheck "twins: one comment each, the newer comparison; the loser's deleted" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh9")
state = json.load(open(os.path.join(d, "state.json")))
by = {}
for c in state:
    by.setdefault(c["issue"], []).append(c)
# 12: the survivor (5000, the other job's) shows ours, the later run
assert [(c["id"], "later run" in c["body"]) for c in by[12]] == \
    [(5000, True)], by[12]
# 13: the survivor (5002) still shows the later run, ours (5003) gone
assert [(c["id"], "later run" in c["body"]) for c in by[13]] == \
    [(5002, True)], by[13]
# 14: ours (5004) survives, the other job's (5005) is its to delete
assert [c["id"] for c in by[14]] == [5004, 5005], by[14]
assert "later run" in by[14][0]["body"], by[14]
# 15: the survivor edited, ours (5007) kept: its DELETE was refused
assert [(c["id"], "later run" in c["body"]) for c in by[15]] == \
    [(5006, True), (5007, True)], by[15]
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
writes = [(r["method"], r["path"].rsplit("/", 1)[1], r["status"])
          for r in reqs if r["method"] in ("POST", "PATCH", "DELETE")]
assert writes == [
    ("POST", "comments", 201), ("PATCH", "5000", 200),
    ("DELETE", "5001", 204), ("POST", "2" * 40, 201),
    ("POST", "comments", 201), ("DELETE", "5003", 204),
    ("POST", "comments", 201), ("POST", "2" * 40, 201),
    ("POST", "comments", 201), ("PATCH", "5006", 200),
    ("DELETE", "5007", 403), ("POST", "2" * 40, 201)], writes
# the commit status: set by the newer comparisons only (13's older one
# yielded), linking the comment that survives
st = json.load(open(os.path.join(d, "statuses.json")))
assert [x["state"] for x in st] == ["success"] * 3, st
assert [x["target_url"].rsplit("-", 1)[1] for x in st] == \
    ["5000", "5004", "5006"], st
PY

# the answer to our POST lost while another job posted at the same
# moment: the comment found on listing again may be the other job's, and
# ours is somewhere too.  Of the marked comments the lowest survives,
# shows the newer comparison, and the other goes; no second POST
forge_standin github "$TMP/gh10" "$TOKEN" 0
printf '{"16": "%s", "17": "%s", "18": "%s"}\n' "$NEW" "$NEW" "$NEW" \
  >"$TMP/gh10/pulls.json"
lost_twin() {   # lost_twin PR before|after TWIN_DIR OUR_DIR NAME
  cp "$3/comment.md" "$TMP/gh10/twin-$2-post"
  : >"$TMP/gh10/lose-next-post"
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$4/comment.md" \
    --github own/repo --pr "$1" --api-url "$FORGE_URL" >/dev/null \
    2>"$TMP/$5.err"
  check "lost answer and a twin, $5: exit 0" [ $? -eq 0 ]
}
lost_twin 16 before "$TMP/tw-early" "$TMP/tw-late" lost-newer
lost_twin 17 after "$TMP/tw-early" "$TMP/tw-late" lost-first
lost_twin 18 before "$TMP/tw-late" "$TMP/tw-early" lost-older
check "lost answer and a twin: says which it kept" grep -q \
  "the answer to this job's comment was lost, and another job posted one at the same moment: kept the first (5000) and deleted the other (5001)" \
  "$TMP/lost-newer.err"
pycheck "lost answer and a twin: one comment each, the newer comparison" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh10")
state = json.load(open(os.path.join(d, "state.json")))
by = {}
for c in state:
    by.setdefault(c["issue"], []).append(c)
# 16: the other job's (5000, earlier run) edited to ours, ours (5001) gone
assert [(c["id"], "later run" in c["body"]) for c in by[16]] == \
    [(5000, True)], by[16]
# 17: ours (5002) first and newer, the other job's (5003) gone
assert [(c["id"], "later run" in c["body"]) for c in by[17]] == \
    [(5002, True)], by[17]
# 18: the other job's (5004) shows a newer run: left; ours (5005) gone
assert [(c["id"], "later run" in c["body"]) for c in by[18]] == \
    [(5004, True)], by[18]
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
writes = [(r["method"], r["path"].rsplit("/", 1)[1], r["status"])
          for r in reqs if r["method"] in ("POST", "PATCH", "DELETE")
          and "/statuses/" not in r["path"]]
assert writes == [
    ("POST", "comments", 0), ("PATCH", "5000", 200), ("DELETE", "5001", 204),
    ("POST", "comments", 0), ("DELETE", "5003", 204),
    ("POST", "comments", 0), ("DELETE", "5005", 204)], writes
PY

# two jobs of one head whose commit statuses land in the other order than
# their comments: after its status, benchprof reads the comment again
# and, when it shows another job's verdict of the same head (its verdict
# line), sets that one, so the status says what the comment finally
# shows.  The stand-in makes the other job edit the comment and set its
# status just before ours lands (other-before-status).
# 19: the twins of above: ours (earlier run, 1 regression) got in first
# and survives; the other job (later run) edits it and sets success, then
# our failure lands.  20: a plain edit race whose older comparison lands
# last: ours (later run) edited the comment, the other job (earlier run)
# edits it after and sets failure, then our success lands; reading the
# comment back, benchprof finds the older comparison over its own and
# writes its own again, then sets its status again.
forge_standin github "$TMP/gh11" "$TOKEN" 0
printf '{"19": "%s", "20": "%s"}\n' "$NEW" "$NEW" >"$TMP/gh11/pulls.json"
other_status() {   # other_status DIR COMMENT MDFILE REGRESSIONS STATE
  python3 - "$@" <<'PY'
import json, os, sys
d, comment, md, regressions, state = sys.argv[1:]
body = open(md).read()
body += "<!-- benchprof:verdict head=%s regressions=%s unconfirmed=0 -->\n" \
    % ("2" * 40, regressions)
with open(os.path.join(d, "other-before-status"), "w") as f:
    json.dump({"comment": int(comment), "body": body,
               "status": {"state": state, "context": "benchprof",
                          "sha": "2" * 40, "description": "other job"}}, f)
PY
}
cp "$TMP/tw-late/comment.md" "$TMP/gh11/twin-after-post"
other_status "$TMP/gh11" 5000 "$TMP/tw-late/comment.md" 0 success
twin_post "$TMP/tw-early" 19 follow-newer
other_status "$TMP/gh11" 5002 "$TMP/tw-early/comment.md" 1 failure
twin_post "$TMP/tw-late" 20 follow-older
check "status order: says the status follows the comment" sh -c \
  'grep -q "another job.s comparison of 222222222222 is in the comment now: the commit status follows it" "$1" &&
   grep -q "commit status benchprof of 222222222222: success (0 regressions confirmed, 0 unconfirmed)" "$1" &&
   grep -q "another job.s newer comparison (head 2222222, committed 2024-01-02T08:00:00Z, its run ended 2024-01-02T11:00:00Z) is in comment 5000 now: left it" "$1" &&
   grep -q "another job wrote an older comparison over this one in comment 5002: wrote this one again (1 time)" "$2" &&
   grep -q "commit status benchprof of 222222222222: success (0 regressions confirmed, 0 unconfirmed)" "$2" &&
   ! grep -q "follows it" "$2"' \
  sh "$TMP/follow-newer.err" "$TMP/follow-older.err"
pycheck "status order: the last status says what the comment shows" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh11")
state = json.load(open(os.path.join(d, "state.json")))
by = {}
for c in state:
    by.setdefault(c["issue"], []).append(c)
# each comment carries its verdict line after the Markdown
assert by[19][0]["id"] == 5000 and "later run" in by[19][0]["body"], by
assert by[19][0]["body"].endswith(
    "<!-- benchprof:verdict head=%s regressions=0 unconfirmed=0 -->\n"
    % ("2" * 40)), by[19]
# 20: the later run's comparison written again over the earlier one's
assert [c["id"] for c in by[20]] == [5002], by[20]
assert "later run" in by[20][0]["body"], by[20]
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
assert [r["path"] for r in reqs if r["method"] == "PATCH"] == \
    ["/repos/own/repo/issues/comments/5002"], reqs
st = json.load(open(os.path.join(d, "statuses.json")))
# 19: ours (failure) after the other job's (success), then success again,
# linking the comment; 20: ours (success) after the other's (failure),
# and success again after our comparison was written again
assert [(x["state"], x["description"]) for x in st] == [
    ("success", "other job"),
    ("failure", "1 regression confirmed, 0 unconfirmed"),
    ("success", "0 regressions confirmed, 0 unconfirmed"),
    ("failure", "other job"),
    ("success", "0 regressions confirmed, 0 unconfirmed"),
    ("success", "0 regressions confirmed, 0 unconfirmed")], st
assert st[2]["target_url"].endswith("#issuecomment-5000"), st
assert st[5]["target_url"].endswith("#issuecomment-5002"), st
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
# after each status the comment alone is read again
reads = [r["path"].rsplit("/", 1)[1] for r in reqs
         if r["method"] == "GET" and "/issues/comments/" in r["path"]]
assert reads == ["5000", "5000", "5002", "5002"], reads
PY

# a wrong token: the server's refusal, exit 1, the comment kept
GITHUB_TOKEN=wrong "$BENCHPROF" comment --markdown "$TMP/c1.md" \
  --github own/repo --pr 5 --api-url "$API" >/dev/null 2>"$TMP/bad.err"
check "a refused token: exit 1" [ $? -eq 1 ]
check "and the server's message" grep -q "Bad credentials" "$TMP/bad.err"

# no token: the summary file, appended
printf 'earlier step\n' >"$TMP/summary.md"
env -u GITHUB_TOKEN "$BENCHPROF" comment --markdown "$TMP/c1.md" \
  --github own/repo --pr 5 --api-url "$API" --summary-file "$TMP/summary.md" \
  2>"$TMP/none.err"
check "no token: exit 0" [ $? -eq 0 ]
check "appended to the summary file" sh -c \
  '[ "$(head -n 1 "$1")" = "earlier step" ] && grep -q "first version" "$1"' \
  sh "$TMP/summary.md"
check "and says where it went" grep -q "appended to .*summary.md" \
  "$TMP/none.err"
env -u GITHUB_TOKEN -u GITHUB_STEP_SUMMARY "$BENCHPROF" comment \
  --markdown "$TMP/c1.md" 2>"$TMP/nowhere.err"
check "no token, no summary file: it says the comment stays" \
  grep -q "stays in" "$TMP/nowhere.err"
printf 'no marker\n' >"$TMP/plain.md"
"$BENCHPROF" comment --markdown "$TMP/plain.md" 2>"$TMP/plain.err"
check "a file without our marker: exit 1" [ $? -eq 1 ]
"$BENCHPROF" comment --markdown "$TMP/c1.md" --github own/repo 2>/dev/null
check "--github without --pr: exit 2" [ $? -eq 2 ]
# the branch force-pushed back to an older commit: the pull request's
# head is now OLD, committed before NEW, whose comparison the comment
# shows.  The forge says this comparison is of the head, so the comment
# about NEW is out of date whatever the times: replaced, and the status
# set on OLD
forge_standin github "$TMP/gh8" "$TOKEN" 0
printf '{"11": "%s"}\n' "$NEW" >"$TMP/gh8/pulls.json"
forge_comparison "$TMP/fp-new" "$NEW" 0 0 1
forge_compared "$TMP/fp-new/comment.md" \
  "head=$NEW commit_time=$DAY2 end_time=2024-01-02T09:00:00Z" 0 'before reset'
forge_comparison "$TMP/fp-old" "$OLD" 1 0 0
forge_compared "$TMP/fp-old/comment.md" \
  "head=$OLD commit_time=$DAY1 end_time=2024-01-03T09:00:00Z" 1 'after reset'
fp_post() {
  GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
    "$TMP/fp-$1/comment.md" --github own/repo --pr 11 \
    --api-url "$FORGE_URL" >/dev/null 2>"$TMP/fp-$1.err"
  check "force-push, $1: exit 0" [ $? -eq 0 ]
}
fp_post new
printf '{"11": "%s"}\n' "$OLD" >"$TMP/gh8/pulls.json"
fp_post old
check "force-push: not said to be left" sh -c \
  "! grep -q 'already shows a newer comparison' '$TMP/fp-old.err'"
pycheck "force-push: the comment and a status are the head's now" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh8")
state = json.load(open(os.path.join(d, "state.json")))
assert len(state) == 1 and "after reset" in state[0]["body"], state
st = json.load(open(os.path.join(d, "statuses.json")))
assert [x["sha"] for x in st] == ["2" * 40, "1" * 40], st
PY

# a refused token is named by its variable (never its value) with what
# makes GitHub refuse one; a 404 (a wrong API URL, repository or pull
# request) says what to check and nothing of the token being refused
forge_standin github "$TMP/gh9" "$TOKEN" 130
WRONG="ghp_revoked_token_51c0"
GITHUB_TOKEN=$WRONG "$BENCHPROF" comment --markdown "$TMP/c1.md" \
  --github own/repo --pr 5 --api-url "$FORGE_URL" >/dev/null \
  2>"$TMP/h401.err"
status=$?
expect_status h401 1
check "refused token: its variable named, and why" grep -q \
  'GitHub refused the token from \$GITHUB_TOKEN (HTTP 401): it is expired or revoked, or may not write to own/repo' \
  "$TMP/h401.err"
GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown "$TMP/c1.md" \
  --github own/repo --pr 5 --api-url "$FORGE_URL/wrong" >/dev/null \
  2>"$TMP/h404.err"
status=$?
expect_status h404 1
check "404: the repository, pull request and API to check" grep -q \
  "GitHub answered 404: check the repository (--github own/repo) and the pull request number (--pr 5) at $FORGE_URL/wrong" \
  "$TMP/h404.err"
check "404: nothing of a refused token" sh -c \
  '! grep -q "refused the token" "$1"' sh "$TMP/h404.err"
check "refusals: no token value in any output" sh -c \
  '! grep -q -e "$1" -e "$2" "$3"/h401.err "$3"/h404.err' sh "$TOKEN" \
  "$WRONG" "$TMP"

finish
