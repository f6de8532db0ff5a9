#!/bin/sh
# Two GitLab projects with the same name (group-a/bench, project 11, and
# group-b/bench, project 12) on one instance's shared runners publish to
# one file:// store: both are the store's project "bench".  Each
# publication records its repository ("gitlab:HOST/ID") in
# publication.json, the stored manifest and the latest pointer.  Project
# 11 publishes main first; project 12's main runs are stored but leave
# 'latest' on project 11's, with one warning that says what to set, from
# `run` and from a late `flush` alike.  Project 12's merge request finds
# no base (the base branch's latest is project 11's) and says why in its
# output and comment, without project 11's data; with a base commit of
# its own in the store it compares with that.  Project 11's merge request
# compares with its main as before.  A pointer written before pointers
# named their repository is replaced as before, and a publication spooled
# without one is delivered as before.  A GitHub repository is recorded by
# its id (GITHUB_REPOSITORY_ID, "github:id:ID"): transferred to another
# owner, it keeps moving its latest pointer and finding its base, while
# another GitHub repository named alike is still told apart.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

outside_ci
unset CI_MERGE_REQUEST_PROJECT_ID CI_MERGE_REQUEST_SOURCE_PROJECT_ID \
  CI_MERGE_REQUEST_SOURCE_PROJECT_PATH CI_MERGE_REQUEST_SOURCE_BRANCH_NAME \
  CI_MERGE_REQUEST_SOURCE_BRANCH_SHA CI_MERGE_REQUEST_TARGET_BRANCH_NAME \
  CI_MERGE_REQUEST_TARGET_BRANCH_SHA CI_MERGE_REQUEST_DIFF_BASE_SHA \
  CI_MERGE_REQUEST_EVENT_TYPE CI_PROJECT_ID CI_PROJECT_NAME \
  CI_PROJECT_PATH CI_API_V4_URL CI_SERVER_HOST CI_DEFAULT_BRANCH
make_harness

A1=a111111111111111111111111111111111111111   # project 11's main
A0=a000000000000000000000000000000000000000   # ... an older commit, no run
A2=a222222222222222222222222222222222222222   # ... its merge request
B1=b111111111111111111111111111111111111111   # project 12's main
B3=b333333333333333333333333333333333333333   # ... later, flushed late
B0=b000000000000000000000000000000000000000   # ... an older commit, no run
B2=b222222222222222222222222222222222222222   # ... its merge request
STORE=$TMP/store
REPO11=gitlab:gitlab.example.com/11
REPO12=gitlab:gitlab.example.com/12

# gl NAME PROJECT_ID GROUP [VAR=VALUE...]: `benchprof run` of the harness
# as a GitLab CI job of GROUP/bench (project PROJECT_ID), output in
# $TMP/NAME, its messages in $TMP/NAME.err; the job's own variables
# follow (the branch, the commit, a merge request's)
gl() {
  gl_name=$1 gl_id=$2 gl_group=$3
  shift 3
  (cd "$TMP" && env GITLAB_CI=true CI_PROJECT_NAME=bench \
    CI_PROJECT_ID="$gl_id" CI_PROJECT_PATH="$gl_group/bench" \
    CI_API_V4_URL=https://gitlab.example.com/api/v4 \
    CI_SERVER_HOST=gitlab.example.com CI_DEFAULT_BRANCH=main "$@" \
    "$BENCHPROF" run -o "$TMP/$gl_name" --bmf "$TMP/h.json" --testbed box \
    --store "file://$STORE" --spool "$TMP/$gl_name.spool" -- \
    "$TMP/harness.sh" "$TMP/h.json" 2>"$TMP/$gl_name.err")
}
# main NAME PROJECT_ID GROUP HASH: a push to main
main() {
  gl "$1" "$2" "$3" CI_COMMIT_REF_NAME=main CI_COMMIT_SHA="$4"
}
# mr NAME PROJECT_ID GROUP IID HEAD BASE BRANCH: a merge request pipeline
# of BRANCH into main, based on BASE (each branch's latest pointer is its
# repository's too: the projects' merge requests use branches of their
# own names here)
mr() {
  gl "$1" "$2" "$3" CI_COMMIT_REF_NAME="$7" CI_COMMIT_SHA="$5" \
    CI_MERGE_REQUEST_IID="$4" CI_MERGE_REQUEST_PROJECT_ID="$2" \
    CI_MERGE_REQUEST_SOURCE_PROJECT_ID="$2" \
    CI_MERGE_REQUEST_SOURCE_PROJECT_PATH="$3/bench" \
    CI_MERGE_REQUEST_SOURCE_BRANCH_NAME="$7" \
    CI_MERGE_REQUEST_SOURCE_BRANCH_SHA="$5" \
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main \
    CI_MERGE_REQUEST_DIFF_BASE_SHA="$6"
}
# latest FIELD [STORE]: that field of main's pointer ("null" for null)
latest() {
  python3 - "${2:-$STORE}/bench/main/latest/box.json" "$1" <<'PY'
import json, sys
v = json.load(open(sys.argv[1])).get(sys.argv[2])
print("null" if v is None else v)
PY
}
# repository_of FILE: the identity's repository of a stored manifest
repository_of() {
  python3 -c "
import json, sys
print(json.load(open(sys.argv[1]))['publication']['identity']['repository'])" \
    "$1"
}
WARNED="the store's project 'bench' belongs to another repository named alike; this run's artifacts are stored but 'latest' and the store's pages are left: set BENCHER_PROJECT (or bencher.project) to a name of this repository's own"

# 1. project 11 publishes main: its repository everywhere
main a-main 11 group-a "$A1"
check "project 11 main: published" [ $? -eq 0 ]
check "project 11 main: latest names its commit" [ "$(latest commit)" = "$A1" ]
check "project 11 main: latest names its repository" \
  [ "$(latest repository)" = "$REPO11" ]
check "project 11 main: the stored manifest's identity names it" \
  [ "$(repository_of "$STORE/bench/main/$A1/box/manifest.json")" = "$REPO11" ]
check "project 11 main: nothing said about another repository" \
  sh -c '! grep -q "another repository" "$1"' sh "$TMP/a-main.err"

# 2. project 12 publishes main: stored, latest left, said once (a warning,
# the run's status unchanged)
main b-main 12 group-b "$B1"
check "project 12 main: the run succeeds" [ $? -eq 0 ]
check "project 12 main: its run is stored" \
  [ -f "$STORE/bench/main/$B1/box/manifest.json" ]
check "project 12 main: its stored manifest names its repository" \
  [ "$(repository_of "$STORE/bench/main/$B1/box/manifest.json")" = "$REPO12" ]
check "project 12 main: latest still names project 11's commit" \
  [ "$(latest commit)" = "$A1" ]
check "project 12 main: latest still names project 11" \
  [ "$(latest repository)" = "$REPO11" ]
check "project 12 main: a warning says so and what to set, once" \
  [ "$(grep -cF "warning: $WARNED" "$TMP/b-main.err")" -eq 1 ]
check "project 12 main: the branch's pages list project 11's run" \
  grep -q "$A1" "$STORE/bench/main/index.html"
check "project 12 main: ... and not project 12's" \
  sh -c '! grep -q "$1" "$2"' sh "$B1" "$STORE/bench/main/index.html"
check "project 12 main: the other repository is not named" \
  sh -c '! grep -qF "$1" "$2"' sh "$REPO11" "$TMP/b-main.err"
check "project 12 main: delivered (nothing left to retry)" \
  grep -q "published: manifest" "$TMP/b-main.err"
check "project 12 main: the run directory says delivered" python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))['publication']
assert p['state'] == 'delivered', p" "$TMP/b-main/manifest.json"

# 3. the same, spooled (the store failing where latest goes) and flushed
# later: the publication carries its repository; flush says it, once
mv "$STORE/bench/main/latest" "$TMP/latest.saved"
: >"$STORE/bench/main/latest"
main b-late 12 group-b "$B3"
check "project 12 late: spooled" \
  [ "$(ls "$TMP/b-late.spool" 2>/dev/null | wc -l)" -eq 1 ]
check "project 12 late: publication.json names its repository" python3 -c "
import glob, json, sys
p, = glob.glob(sys.argv[1] + '/*/publication.json')
i = json.load(open(p))['identity']
assert i['repository'] == sys.argv[2], i" "$TMP/b-late.spool" "$REPO12"
rm "$STORE/bench/main/latest"
mv "$TMP/latest.saved" "$STORE/bench/main/latest"
(cd "$TMP" && "$BENCHPROF" flush --spool "$TMP/b-late.spool" \
  >"$TMP/flush.out" 2>"$TMP/flush.err")
check "project 12 late: flush delivers it" [ $? -eq 0 ]
check "project 12 late: the spool is empty" [ -z "$(ls "$TMP/b-late.spool")" ]
check "project 12 late: latest still names project 11's commit" \
  [ "$(latest commit)" = "$A1" ]
check "project 12 late: flush warns once" \
  [ "$(grep -cF "warning: $WARNED" "$TMP/flush.err")" -eq 1 ]

# 4. project 12's merge request, based on a commit without a run: main's
# latest is project 11's, so there is no base, and it says why
mr b-mr 12 group-b 3 "$B2" "$B0" feat
check "project 12 MR: the run succeeds" [ $? -eq 0 ]
check "project 12 MR: no base, and why" grep -qF \
  "compare: no base to compare with: commit $(printf %.12s "$B0") of branch 'main' has no run" \
  "$TMP/b-mr.err"
check "project 12 MR: the reason and the fix" \
  grep -qF "the store's main of project 'bench' belongs to another repository named alike; set BENCHER_PROJECT (or bencher.project) to a name of this repository's own" \
  "$TMP/b-mr.err"
# this job's log (and comment) may be public, the other repository not
check "project 12 MR: the other repository is not named" \
  sh -c "! grep -qF '$REPO11' '$TMP/b-mr.err'"
check "project 12 MR: no comparison written" \
  [ ! -e "$TMP/b-mr/compare/compare.json" ]
check "project 12 MR: project 11's run not fetched" \
  [ ! -e "$TMP/b-mr/compare/.sides/base" ]
desc="project 12 MR: the comment says there is no base, and why"
if python3 - "$TMP/b-mr/compare/comment.md" "$A1" "$REPO11" <<'PY'
import sys
md = open(sys.argv[1]).read()
assert "no base to compare with" in md, md
assert "belongs to another repository" in md, md
assert sys.argv[3] not in md, md   # the other repository is not named
assert "BENCHER\\_PROJECT" in md or "BENCHER_PROJECT" in md, md
assert sys.argv[2][:7] not in md, md   # nothing of project 11's run
assert "Run benchprof on the base branch" not in md, md  # not the fix
assert "under a project name of its own" in md, md
PY
then pass "$desc"; else fail "$desc"; fi

# 5. project 12's merge request based on its own main commit (stored under
# the shared name, its repository's): compared with that
mr b-mr-own 12 group-b 4 "$B2" "$B1" feat
check "project 12 MR on its own base commit: compares with it" \
  grep -q "compare with main ($(printf %.12s "$B1"))" \
  "$TMP/b-mr-own.err"

# 6. project 11's merge request, based on a commit without a run: main's
# latest, its own, is the base
mr a-mr 11 group-a 5 "$A2" "$A0" topic
check "project 11 MR: the run succeeds" [ $? -eq 0 ]
check "project 11 MR: compares with main's latest" \
  grep -q "compare with main ($(printf %.12s "$A1"))" \
  "$TMP/a-mr.err"
check "project 11 MR: compare.json written" \
  [ -f "$TMP/a-mr/compare/compare.json" ]
check "project 11 MR: nothing said about another repository" \
  sh -c '! grep -q "another repository" "$1"' sh "$TMP/a-mr.err"

# 7. a pointer written before pointers named their repository (no
# "repository"): project 12's main replaces it, as before, and names
# itself; project 11's next main is then the one left
python3 - "$STORE/bench/main/latest/box.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
del p["repository"]
json.dump(p, open(sys.argv[1], "w"))
PY
main b-main2 12 group-b "$B3"
check "old pointer: project 12's main replaces it" \
  [ "$(latest commit)" = "$B3" ]
check "old pointer: the new one names project 12" \
  [ "$(latest repository)" = "$REPO12" ]
check "old pointer: nothing said about another repository" \
  sh -c '! grep -q "another repository" "$1"' sh "$TMP/b-main2.err"

# 8. a publication spooled by an older benchprof (no "repository" in its
# publication.json): flush delivers it as before
mv "$STORE/bench/main/latest" "$TMP/latest.saved"
: >"$STORE/bench/main/latest"
main a-old 11 group-a "$A1"
python3 - "$TMP/a-old.spool" <<'PY'
import glob, json, sys
p, = glob.glob(sys.argv[1] + '/*/publication.json')
m = json.load(open(p))
del m["identity"]["repository"]
json.dump(m, open(p, "w"))
PY
rm "$STORE/bench/main/latest"
mv "$TMP/latest.saved" "$STORE/bench/main/latest"
(cd "$TMP" && "$BENCHPROF" flush --spool "$TMP/a-old.spool" \
  >"$TMP/flush-old.out" 2>"$TMP/flush-old.err")
check "older spooled publication: flush delivers it" [ $? -eq 0 ]
check "older spooled publication: the spool is empty" \
  [ -z "$(ls "$TMP/a-old.spool")" ]
check "older spooled publication: latest names its commit, as before" \
  [ "$(latest commit)" = "$A1" ]

# 9. GitHub: the repository's id, not its owner/name.  owner-a/bench
# (id 101) publishes main, is transferred to owner-c (GITHUB_REPOSITORY
# changes, GITHUB_REPOSITORY_ID stays): its main still moves latest, its
# pull request still finds that base; owner-b/bench (id 202) is another
# repository
GSTORE=$TMP/gstore
T0=c000000000000000000000000000000000000000   # a commit without a run
T1=c111111111111111111111111111111111111111
T2=c222222222222222222222222222222222222222
T3=c333333333333333333333333333333333333333
# ghrun NAME OWNER ID [VAR=VALUE...]: `benchprof run` as a GitHub Actions
# job of OWNER/bench, repository id ID, into $GSTORE
ghrun() {
  gh_name=$1 gh_owner=$2 gh_id=$3
  shift 3
  (cd "$TMP" && env GITHUB_ACTIONS=true GITHUB_REPOSITORY="$gh_owner/bench" \
    GITHUB_REPOSITORY_ID="$gh_id" "$@" \
    "$BENCHPROF" run -o "$TMP/$gh_name" --bmf "$TMP/h.json" --testbed box \
    --store "file://$GSTORE" --spool "$TMP/$gh_name.spool" -- \
    "$TMP/harness.sh" "$TMP/h.json" 2>"$TMP/$gh_name.err")
}
# ghpush NAME OWNER ID HASH: a push to main
ghpush() {
  ghrun "$1" "$2" "$3" GITHUB_EVENT_NAME=push GITHUB_REF_NAME=main \
    GITHUB_SHA="$4"
}
ghpush t-a owner-a 101 "$T1"
check "GitHub owner-a main: latest names the repository's id" \
  [ "$(latest repository "$GSTORE")" = "github:id:101" ]
ghpush t-c owner-c 101 "$T2"
check "transferred (owner-c, id 101): its main moves latest" \
  [ "$(latest commit "$GSTORE")" = "$T2" ]
check "transferred: nothing said about another repository" \
  sh -c '! grep -q "another repository" "$1"' sh "$TMP/t-c.err"
cat >"$TMP/t-pr.json" <<EOF
{"pull_request": {"number": 7,
  "head": {"sha": "$T3", "ref": "feat"},
  "base": {"sha": "$T0", "ref": "main"}}}
EOF
ghrun t-pr owner-c 101 GITHUB_EVENT_NAME=pull_request \
  GITHUB_EVENT_PATH="$TMP/t-pr.json" GITHUB_HEAD_REF=feat \
  GITHUB_BASE_REF=main GITHUB_REF_NAME=7/merge GITHUB_SHA="$T0"
check "transferred: its pull request compares with main's latest" \
  grep -q "compare with main ($(printf %.12s "$T2"))" "$TMP/t-pr.err"
check "transferred: the pull request says nothing of another repository" \
  sh -c '! grep -q "another repository" "$1"' sh "$TMP/t-pr.err"
ghpush t-b owner-b 202 "$T3"
check "GitHub owner-b/bench (id 202): latest left on id 101's" \
  [ "$(latest commit "$GSTORE") $(latest repository "$GSTORE")" = \
    "$T2 github:id:101" ]
check "GitHub owner-b/bench: warned, the other repository not named" \
  sh -c 'grep -qF "belongs to another repository named alike" "$1" &&
         ! grep -qF "github:id:101" "$1"' sh "$TMP/t-b.err"

# 10. a runner that did not set GITHUB_REPOSITORY_ID (older than 2022)
# wrote "github:owner/name"; upgraded, the same repository writes
# "github:id:ID": the two forms cannot be told apart, so neither is
# taken for another repository's
HSTORE=$TMP/hstore
GSTORE_SAVED=$GSTORE
GSTORE=$HSTORE
ghpush h-old owner-a "" "$T1"
check "no repository id: latest names owner/name" \
  [ "$(latest repository "$HSTORE")" = "github:owner-a/bench" ]
ghpush h-new owner-a 101 "$T2"
check "then with its id: its main moves latest" \
  [ "$(latest commit "$HSTORE") $(latest repository "$HSTORE")" = \
    "$T2 github:id:101" ]
check "then with its id: nothing said about another repository" \
  sh -c '! grep -q "another repository" "$1"' sh "$TMP/h-new.err"
GSTORE=$GSTORE_SAVED

finish
