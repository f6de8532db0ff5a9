#!/bin/sh
# benchprof ci in simulated jobs: a GitHub push and a pull request (with
# its event payload), one from the default branch, an issue_comment job,
# a malformed payload, a GitLab merge request (also from a fork, merged
# results), a Bencher runner job, and a plain git repository made here
# with a real commit.  A run whose branch is unknown or is its own base
# publishes nothing.  Every run starts from an empty environment (env -i) so the CI
# this suite itself runs in does not leak in.
. "$top_srcdir/tests/lib.sh"

HEAD_SHA=1111111111111111111111111111111111111111
BASE_SHA=2222222222222222222222222222222222222222
MERGE_SHA=3333333333333333333333333333333333333333
mkdir -p "$TMP/nogit"

# ci VAR=VALUE...: benchprof ci --json in an empty environment, in a
# directory that is not a repository, into $TMP/ci.json
ci() {
  (cd "$TMP/nogit" && env -i PATH="$PATH" HOME="$TMP" \
    GIT_CEILING_DIRECTORIES="$TMP" "$@" "$BENCHPROF" ci --json) \
    >"$TMP/ci.json" 2>"$TMP/ci.err"
}

# expect FIELD=VALUE...: the last ci's JSON has these fields ("null" for
# none; FIELD@ checks where it came from)
expect() {
  python3 - "$TMP/ci.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for a in sys.argv[2:]:
    k, v = a.split("=", 1)
    got = d["from"][k[:-1]] if k.endswith("@") else d[k]
    want = None if v == "null" else v
    assert got == want, (k, got, want)
PY
}

# 1. GitHub push
ci GITHUB_ACTIONS=true GITHUB_SHA=$HEAD_SHA GITHUB_REF_NAME=main \
  GITHUB_REPOSITORY=acme/widget GITHUB_HEAD_REF= GITHUB_BASE_REF=
check "github push: exit 0" [ $? -eq 0 ]
check "github push: identity" expect provider=github hash=$HEAD_SHA \
  branch=main project=widget repo=acme/widget pr=null base_branch=null \
  api_url=https://api.github.com hash@=GITHUB_SHA repo_id=null

# 2. GitHub pull_request with its payload: the head's hash, not the merge
cat >"$TMP/event.json" <<EOF2
{"action": "opened", "number": 42,
 "pull_request": {"number": 42,
   "head": {"sha": "$HEAD_SHA", "ref": "feature/x"},
   "base": {"sha": "$BASE_SHA", "ref": "main"}},
 "repository": {"full_name": "acme/widget"}}
EOF2
ci GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request \
  GITHUB_EVENT_PATH="$TMP/event.json" GITHUB_SHA=$MERGE_SHA \
  GITHUB_REF_NAME=42/merge GITHUB_HEAD_REF=feature/x GITHUB_BASE_REF=main \
  GITHUB_REPOSITORY=acme/widget GITHUB_API_URL=https://ghe.example/api/v3 \
  GITHUB_REPOSITORY_ID=4242
check "github pull request: exit 0" [ $? -eq 0 ]
check "github pull request: identity from the payload" expect \
  hash=$HEAD_SHA branch=feature/x pr=42 base_branch=main \
  base_hash=$BASE_SHA api_url=https://ghe.example/api/v3 \
  "hash@=event payload pull_request.head.sha"
check "github pull request: the repository id, owner/name kept" expect \
  repo=acme/widget repo_id=4242 repo_id@=GITHUB_REPOSITORY_ID

# 2b. a pull request whose head is the default branch (main -> release):
# never published as main; benchprof says where it goes instead
cat >"$TMP/event-main.json" <<EOF2
{"number": 42,
 "pull_request": {"number": 42,
   "head": {"sha": "$HEAD_SHA", "ref": "main"},
   "base": {"sha": "$BASE_SHA", "ref": "release"}},
 "repository": {"full_name": "acme/widget", "default_branch": "main"}}
EOF2
PR_MAIN="GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request
  GITHUB_EVENT_PATH=$TMP/event-main.json GITHUB_SHA=$MERGE_SHA
  GITHUB_REF_NAME=42/merge GITHUB_HEAD_REF=main GITHUB_BASE_REF=release
  GITHUB_REPOSITORY=acme/widget"
# shellcheck disable=SC2086
ci $PR_MAIN
check "pull request from main: exit 0" [ $? -eq 0 ]
check "pull request from main: its own branch" expect branch=pr-42:main \
  base_branch=release hash=$HEAD_SHA
check "pull request from main: said so" grep -q \
  "pull request 42 comes from 'main', the repository's default branch" \
  "$TMP/ci.err"
# shellcheck disable=SC2086
(cd "$TMP/nogit" && env -i PATH="$PATH" HOME="$TMP/pr-home" \
  GIT_CEILING_DIRECTORIES="$TMP" $PR_MAIN \
  "$BENCHPROF" run -q -o "$TMP/pr-out" -- true) >"$TMP/pr.txt" 2>&1
check "pull request from main: run exits 0" [ $? -eq 0 ]
STORE="$TMP/pr-home/.local/share/benchprof/store/widget"
check "pull request from main: published on pr-42:main, main untouched" \
  sh -c '[ -d "$1/pr-42%3Amain/'$HEAD_SHA'" ] && [ ! -e "$1/main" ]' \
  sh "$STORE"

# 2b'. a long-lived branch the configuration's base_branches lists
# (develop -> main): published as pr-N:develop too; BENCHPROF_BASE_BRANCHES
# overrides the file's list
sed 's/"ref": "main"}/"ref": "develop"}/; s/"ref": "release"}/"ref": "main"}/' \
  "$TMP/event-main.json" >"$TMP/event-develop.json"
printf '{"base_branches": "release/*, develop"}\n' >"$TMP/bases.json"
PR_DEVELOP="GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request
  GITHUB_EVENT_PATH=$TMP/event-develop.json GITHUB_SHA=$MERGE_SHA
  GITHUB_REF_NAME=42/merge GITHUB_HEAD_REF=develop GITHUB_BASE_REF=main
  GITHUB_REPOSITORY=acme/widget BENCHPROF_CONFIG=$TMP/bases.json"
# shellcheck disable=SC2086
ci $PR_DEVELOP
check "pull request from a listed base branch: published as pr-42:develop" \
  expect branch=pr-42:develop base_branch=main
check "pull request from a listed base branch: said why" grep -q \
  "comes from 'develop', a base branch (base_branches)" "$TMP/ci.err"
# shellcheck disable=SC2086
ci $PR_DEVELOP BENCHPROF_BASE_BRANCHES=release/*
check "BENCHPROF_BASE_BRANCHES overrides the file's base_branches" \
  expect branch=develop
# shellcheck disable=SC2086
(cd "$TMP/nogit" && env -i PATH="$PATH" HOME="$TMP/dev-home" \
  GIT_CEILING_DIRECTORIES="$TMP" $PR_DEVELOP \
  "$BENCHPROF" run -q -o "$TMP/dev-out" -- true) >"$TMP/dev.txt" 2>&1
check "a listed base branch: run publishes on pr-42:develop, develop untouched" \
  sh -c '[ -d "$1/pr-42%3Adevelop/'$HEAD_SHA'" ] && [ ! -e "$1/develop" ]' \
  sh "$TMP/dev-home/.local/share/benchprof/store/widget"

# 2c. an issue_comment job: GITHUB_REF_NAME and GITHUB_SHA are main's tip,
# not what the job runs: neither is taken, and nothing is published
ci GITHUB_ACTIONS=true GITHUB_EVENT_NAME=issue_comment \
  GITHUB_SHA=$MERGE_SHA GITHUB_REF_NAME=main GITHUB_REPOSITORY=acme/widget
check "issue_comment: exit 0" [ $? -eq 0 ]
check "issue_comment: no branch, no commit" expect branch=null hash=null
check "issue_comment: says why and what run would do" sh -c \
  'grep -q "GITHUB_EVENT_NAME=issue_comment" "$1" &&
   grep -q "run would not publish: the branch is unknown" "$1"' sh \
  "$TMP/ci.err"

# 3. a malformed payload: a clear error naming the file, no crash
printf '{"pull_request": {"number": 42, "head": {"sha": "nothex"}, "base": {}}}' \
  >"$TMP/bad-event.json"
ci GITHUB_ACTIONS=true GITHUB_EVENT_PATH="$TMP/bad-event.json"
check "malformed payload: exit 1" [ $? -eq 1 ]
check "malformed payload: file and path named" grep -qF \
  "event payload '$TMP/bad-event.json' (GITHUB_EVENT_PATH): \$.pull_request.head.sha: 'nothex' is not a commit hash" \
  "$TMP/ci.err"
printf '{"pull_request": {' >"$TMP/cut-event.json"
ci GITHUB_ACTIONS=true GITHUB_EVENT_PATH="$TMP/cut-event.json"
check "truncated payload: line:column" grep -qF \
  "'$TMP/cut-event.json' (GITHUB_EVENT_PATH): 1:" "$TMP/ci.err"

# 4. GitLab merge request
ci GITLAB_CI=true CI_COMMIT_SHA=$HEAD_SHA CI_COMMIT_REF_NAME=feature/y \
  CI_MERGE_REQUEST_IID=7 CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=feature/y \
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main \
  CI_MERGE_REQUEST_DIFF_BASE_SHA=$BASE_SHA CI_PROJECT_ID=99 \
  CI_PROJECT_NAME=widget CI_API_V4_URL=https://gitlab.example/api/v4
check "gitlab merge request: exit 0" [ $? -eq 0 ]
check "gitlab merge request: identity" expect provider=gitlab \
  hash=$HEAD_SHA branch=feature/y pr=7 base_branch=main base_hash=$BASE_SHA \
  repo=99 project=widget api_url=https://gitlab.example/api/v4

# 4b. a fork's merge request pipeline (running in the fork, project 55):
# the note goes to the merge request's project; a merged-results
# pipeline compares with the target's tip
ci GITLAB_CI=true CI_COMMIT_SHA=$MERGE_SHA CI_COMMIT_REF_NAME=feature/y \
  CI_MERGE_REQUEST_IID=7 CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=feature/y \
  CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=$HEAD_SHA \
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main \
  CI_MERGE_REQUEST_TARGET_BRANCH_SHA=$MERGE_SHA \
  CI_MERGE_REQUEST_DIFF_BASE_SHA=$BASE_SHA CI_PROJECT_ID=55 \
  CI_MERGE_REQUEST_PROJECT_ID=99 CI_MERGE_REQUEST_SOURCE_PROJECT_ID=55 \
  CI_MERGE_REQUEST_SOURCE_PROJECT_PATH=contributor/widget \
  CI_MERGE_REQUEST_EVENT_TYPE=merged_result CI_PROJECT_NAME=widget
check "gitlab fork, merged results: exit 0" [ $? -eq 0 ]
check "gitlab fork, merged results: target project, target's tip" expect \
  repo=99 hash=$HEAD_SHA base_hash=$MERGE_SHA branch=contributor:feature/y \
  "base_hash@=CI_MERGE_REQUEST_TARGET_BRANCH_SHA"

# 5. a Bencher runner job (our variables)
ci BENCHER_PROJECT=proj BENCHER_BRANCH=main BENCHER_HASH=$HEAD_SHA \
  BENCHER_TESTBED=metal-1 BENCHER_START_POINT=main \
  BENCHER_START_POINT_HASH=$BASE_SHA
check "bencher job: exit 0" [ $? -eq 0 ]
check "bencher job: identity" expect provider=bencher project=proj \
  branch=main hash=$HEAD_SHA testbed=metal-1 base_branch=main \
  base_hash=$BASE_SHA testbed@=BENCHER_TESTBED
check "bencher job: a branch that is its start point would not publish" \
  grep -q "run would not publish: the branch 'main' is also the base" \
  "$TMP/ci.err"
# a pull request job without BENCHER_BRANCH: not published (as main, or
# as anything else), and said what to set
(cd "$TMP/nogit" && env -i PATH="$PATH" HOME="$TMP/b-home" \
  GIT_CEILING_DIRECTORIES="$TMP" BENCHER_PROJECT=proj \
  BENCHER_HASH=$HEAD_SHA BENCHER_START_POINT=main \
  "$BENCHPROF" run -q -o "$TMP/b-out" -- true) >"$TMP/b.txt" 2>&1
check "bencher job without its branch: run exits 0" [ $? -eq 0 ]
check "bencher job without its branch: nothing published" \
  [ ! -e "$TMP/b-home/.local/share/benchprof/store/proj" ]
check "bencher job without its branch: says to set BENCHER_BRANCH" \
  grep -q "branch is unknown.*BENCHER_BRANCH" "$TMP/b.txt"

# 5b. no CI and no git: the project run publishes under, the directory's
#     name, shown as run would use it
ci
check "no CI, no git: exit 0" [ $? -eq 0 ]
check "no CI, no git: the directory's name is the project" expect \
  project=nogit "project@=the directory's name, outside git" branch=null

# 6. plain git: a repository with a real commit
if command -v git >/dev/null 2>&1; then
  repo="$TMP/my-widget"
  mkdir -p "$repo/sub"
  (cd "$repo" && git init -q -b topic 2>/dev/null || { git init -q && git checkout -q -b topic; })
  (cd "$repo" && echo hi >f && git add f &&
   git -c user.name=t -c user.email=t@example.org commit -qm one) \
    >/dev/null 2>&1
  sha=$(git -C "$repo" rev-parse HEAD)
  (cd "$repo/sub" && env -i PATH="$PATH" HOME="$TMP" "$BENCHPROF" ci --json) \
    >"$TMP/ci.json" 2>"$TMP/ci.err"
  check "git: exit 0" [ $? -eq 0 ]
  check "git: hash, branch, project from the repository" expect \
    provider=git hash="$sha" branch=topic project=my-widget \
    "hash@=git rev-parse HEAD" "testbed@=host name"
  (cd "$TMP" && env -i PATH="$PATH" HOME="$TMP" "$BENCHPROF" ci -C "$repo") \
    >"$TMP/ci.txt" 2>&1
  check "git: -C DIR, text output" grep -q "^hash  *$sha  (git rev-parse HEAD)" \
    "$TMP/ci.txt"
  git -C "$repo" checkout -q --detach 2>/dev/null
  (cd "$repo" && env -i PATH="$PATH" HOME="$TMP" "$BENCHPROF" ci --json) \
    >"$TMP/ci.json" 2>"$TMP/ci.err"
  check "git: detached HEAD has a hash and no branch" expect hash="$sha" \
    branch=null
  # and run publishes nothing (never as main), saying what to give
  (cd "$repo" && env -i PATH="$PATH" HOME="$TMP/d-home" \
    "$BENCHPROF" run -q -o "$TMP/d-out" -- true) >"$TMP/d.txt" 2>&1
  check "git: detached HEAD: run exits 0" [ $? -eq 0 ]
  check "git: detached HEAD: nothing published" \
    [ ! -e "$TMP/d-home/.local/share/benchprof/store/my-widget" ]
  check "git: detached HEAD: says to give --branch" \
    grep -q "branch is unknown.*give --branch" "$TMP/d.txt"

  # a branch name with a slash, asked from a subdirectory
  git -C "$repo" checkout -q -b feature/fast-path 2>/dev/null
  (cd "$repo/sub" && env -i PATH="$PATH" HOME="$TMP" "$BENCHPROF" ci --json) \
    >"$TMP/ci.json" 2>"$TMP/ci.err"
  check "git: a branch with a slash keeps its whole name" expect \
    branch=feature/fast-path hash="$sha" project=my-widget

  # a repository before its first commit: its branch and name, no hash
  fresh="$TMP/fresh-repo"
  mkdir -p "$fresh"
  (cd "$fresh" && { git init -q -b start 2>/dev/null ||
   { git init -q && git symbolic-ref HEAD refs/heads/start; }; })
  (cd "$fresh" && env -i PATH="$PATH" HOME="$TMP" "$BENCHPROF" ci --json) \
    >"$TMP/ci.json" 2>"$TMP/ci.err"
  check "git: no commit yet: branch and project, no hash" expect \
    provider=git branch=start project=fresh-repo hash=null

  # a top level whose name holds a newline: one-line answers cannot say
  # it, so no project from it, but the commit and branch still come
  odd="$TMP/odd
repo"
  mkdir -p "$odd"
  (cd "$odd" && { git init -q -b main 2>/dev/null ||
   { git init -q && git symbolic-ref HEAD refs/heads/main; }; } &&
   git -c user.name=t -c user.email=t@example.org commit -q --allow-empty \
     -m one) >/dev/null 2>&1
  odd_sha=$(git -C "$odd" rev-parse HEAD)
  (cd "$odd" && env -i PATH="$PATH" HOME="$TMP" "$BENCHPROF" ci --json) \
    >"$TMP/ci.json" 2>"$TMP/ci.err"
  check "git: a newline in the top level's name: commit and branch" expect \
    provider=git branch=main hash="$odd_sha" project=odd-repo \
    "project@=the directory's name, outside git"

  # 7. benchprof run asks git once for the identity: publishing and the
  # comparison after it share one, and one git process answers all of it
  # (each is wall time added after the benchmark); publishing asks once
  # more, for the commit's time (it orders the branch's latest pointer)
  real_git=$(command -v git)
  mkdir -p "$TMP/shim"
  printf '#!/bin/sh\necho "$*" >>"%s/git.log"\nexec "%s" "$@"\n' \
    "$TMP" "$real_git" >"$TMP/shim/git"
  chmod +x "$TMP/shim/git"
  : >"$TMP/git.log"
  (cd "$repo" && env -i PATH="$TMP/shim:$PATH" HOME="$TMP" \
    "$BENCHPROF" run -q -o "$TMP/run-out" -- true) >"$TMP/run.txt" 2>&1
  check "run in a repository: exit 0" [ $? -eq 0 ]
  check "run in a repository: one git process for the identity" \
    [ "$(grep -c "rev-parse" "$TMP/git.log")" -eq 1 ]
  check "run in a repository: one more for the commit's time, no other" \
    [ "$(sed 1d "$TMP/git.log")" = "-C . show -s --no-show-signature --format=%ct $sha^{commit}" ]
  check "run in a repository: the manifest has the commit" \
    grep -q "$sha" "$TMP/run-out/manifest.json"
  : >"$TMP/git.log"
  (cd "$TMP/nogit" && env -i PATH="$TMP/shim:$PATH" HOME="$TMP" \
    GIT_CEILING_DIRECTORIES="$TMP" \
    "$BENCHPROF" run -q -o "$TMP/run-out2" -- true) >"$TMP/run.txt" 2>&1
  check "run outside a repository: exit 0" [ $? -eq 0 ]
  check "run outside a repository: at most two git processes" \
    [ "$(wc -l <"$TMP/git.log")" -le 2 ]
else
  fail "git is not installed (scripts/setup-debian.sh installs it)"
fi
finish
