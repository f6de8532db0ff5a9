#!/bin/sh
# One spool, many projects: a runner serving several repositories (a
# GitHub organisation's self-hosted runner, a GitLab group runner) keeps
# one spool for all of them.  Inside a CI job flush sends only the job's
# project's publications: the others stay, untouched and unnamed (neither
# sent with this job's store token nor named in its log), counted in one
# line; they fail nothing, --strict included, and --strict does not wait
# for another project's busy one.  Outside CI, flush sends everything;
# --project P and --all-projects choose.  --list and --drop rejected
# keep the same scope.  A pull request's run first delivers its base
# branch's publications still in the spool, so that the comparison finds
# that base commit in the store.  Two repositories named alike (GitHub's
# owner-a/bench and owner-b/bench, GitLab's projects 11 and 12) share the
# project name "bench": a job of one neither sends nor names the other's
# spooled publications, its pull request's run neither; a GitHub
# repository transferred to another owner (the same GITHUB_REPOSITORY_ID)
# still takes its own.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

outside_ci
make_harness
STOKEN="store-TESTtoken-0123456789abcdef"
# the store wants a token: a run without one (401) leaves its publication
# in the spool, and a flush with BENCHPROF_STORE_TOKEN delivers it
python3 "$SERVERS/put_server.py" --root "$TMP/root" \
  --port-file "$TMP/put.port" --token "$STOKEN" >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
port=$(wait_port "$TMP/put.port")
[ -n "$port" ] || { fail "the store did not start"; finish; }
STORE="http://127.0.0.1:$port/s"
SPOOL="$TMP/spool"
HA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
HB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
HC=cccccccccccccccccccccccccccccccccccccccc
SECRET_BRANCH=security/CVE-2099-0001

# spool_run NAME PROJECT BRANCH HASH [STORE]: a run whose publication the
# store refuses (no token) and so waits in $SPOOL
spool_run() {
  "$BENCHPROF" run -q -o "$TMP/$1" --bmf "$TMP/$1.json" --project "$2" \
    --branch "$3" --hash "$4" --testbed box --store "${5:-$STORE}" \
    --spool "$SPOOL" --retries 0 --timeout 5 -- \
    "$TMP/harness.sh" "$TMP/$1.json" >/dev/null 2>"$TMP/$1.err"
}

# waiting PROJECT: how many of PROJECT's publications are in $SPOOL
waiting() {
  python3 - "$SPOOL" "$1" <<'PY'
import json, os, sys
spool, project = sys.argv[1:]
n = 0
for d in os.listdir(spool):
    meta = os.path.join(spool, d, "publication.json")
    if not d.startswith(".") and os.path.exists(meta):
        n += json.load(open(meta))["identity"]["project"] == project
print(n)
PY
}

# names_absent FILE: none of project B's names (project, branch, commit)
# in FILE
names_absent() {
  ! grep -q -e proj-b -e CVE-2099 -e "$HB" -e bbbbbbbb "$1"
}

# in_job_a CMD...: CMD in a GitHub Actions job of org/proj-a, with the
# store token
in_job_a() {
  env GITHUB_ACTIONS=true GITHUB_REPOSITORY=org/proj-a \
    BENCHPROF_STORE_TOKEN="$STOKEN" "$@"
}

spool_run a1 proj-a main "$HA"
spool_run b1 proj-b "$SECRET_BRANCH" "$HB"
spool_run a2 proj-a feature/x "$HA"
spool_run b2 proj-b "$SECRET_BRANCH" "$HB"
spool_run c1 proj-c main "$HC"
check "five publications of three projects wait" \
  [ "$(waiting proj-a) $(waiting proj-b) $(waiting proj-c)" = "2 2 1" ]

# --list in project A's job: A's only, and one line counting the others
in_job_a "$BENCHPROF" flush --spool "$SPOOL" --list >"$TMP/l1.out" 2>&1
check "list in A's job: exit 0" [ $? -eq 0 ]
check "list in A's job: A's two publications" \
  [ "$(grep -c "proj-a/" "$TMP/l1.out")" -eq 2 ]
check "list in A's job: the others counted, not named" \
  grep -q "^3 publications of other projects not listed for their own jobs (--all-projects lists them)$" \
  "$TMP/l1.out"
check "list in A's job: no name of B's" names_absent "$TMP/l1.out"
"$BENCHPROF" flush --spool "$SPOOL" --list >"$TMP/l2.out" 2>&1
check "list outside CI: all five" [ "$(grep -c "	waiting	" "$TMP/l2.out")" -eq 5 ]
"$BENCHPROF" flush --spool "$SPOOL" --list --project proj-c \
  >"$TMP/l3.out" 2>&1
check "list --project proj-c: C's one, and a count of the others" eval \
  '[ "$(grep -c "	waiting	" "$TMP/l3.out")" -eq 1 ] &&
    grep -q "proj-c/main@$HC" "$TMP/l3.out" &&
    grep -q "^4 publications of other projects not listed (--all-projects lists them)$" \
    "$TMP/l3.out"'

"$BENCHPROF" flush --spool "$SPOOL" --project proj-a --all-projects \
  >"$TMP/u.out" 2>&1
check "--project with --all-projects: a usage error" [ $? -eq 2 ]
check "--project with --all-projects: says so" \
  grep -q "error: --project and --all-projects" "$TMP/u.out"

# flush --strict in A's job while another benchprof holds one of B's (30
# s): A's are delivered, B's stay untouched, and flush neither waits for
# B's busy one nor fails on B's
B1=$(cat "$TMP/b1/manifest.json" | python3 -c \
  'import json, sys; print(json.load(sys.stdin)["publication"]["spool_id"])')
setsid flock "$SPOOL/$B1/lock" sleep 30 &
HOLDER=$!
sleep 0.3
sent_before=$(wc -l <"$TMP/put.log")
start=$(date +%s)
in_job_a "$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 \
  --timeout 5 >"$TMP/f1.out" 2>&1
status=$?
took=$(($(date +%s) - start))
check "A's job, --strict: exit 0" [ "$status" -eq 0 ]
check "A's job, --strict: no wait for B's busy publication ($took s)" \
  [ "$took" -lt 10 ]
kill -- -"$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
check "A's job: A's two delivered" \
  [ "$(grep -c ": delivered (" "$TMP/f1.out")" -eq 2 ]
check "A's job: one line counts the others" \
  grep -q "^3 publications of other projects left in the spool for their own jobs (--all-projects sends them)$" \
  "$TMP/f1.out"
check "A's job: no name of B's in its output" names_absent "$TMP/f1.out"
check "A's job: B's and C's still wait, A's are gone" \
  [ "$(waiting proj-a) $(waiting proj-b) $(waiting proj-c)" = "0 2 1" ]
sed -n "$((sent_before + 1)),\$p" "$TMP/put.log" >"$TMP/put-f1.log"
check "A's job: nothing of B's was sent with A's token" \
  names_absent "$TMP/put-f1.log"
check "A's job: A's were sent" grep -q "^PUT /s/proj-a/" "$TMP/put-f1.log"
check "A's job: B's publications untouched (no part marked)" eval \
  '[ -z "$(find "$SPOOL/$B1/done" -type f)" ] && [ ! -s "$SPOOL/$B1/done.log" ]'

# nothing of A's left: flush says so, counts the others, exit 0
in_job_a "$BENCHPROF" flush --spool "$SPOOL" >"$TMP/f2.out" 2>&1
check "A's job, nothing of A's: exit 0" [ $? -eq 0 ]
check "A's job, nothing of A's: says so" \
  grep -q "nothing to send in .* of project proj-a" "$TMP/f2.out"
check "A's job, nothing of A's: no name of B's" names_absent "$TMP/f2.out"

# GitLab: the job's project is CI_PROJECT_NAME; bencher.project
# (BENCHPROF_PROJECT) names it over the CI's variable
env GITLAB_CI=true CI_PROJECT_NAME=proj-d BENCHPROF_STORE_TOKEN="$STOKEN" \
  "$BENCHPROF" flush --spool "$SPOOL" >"$TMP/f3.out" 2>&1
st=$?
check "a GitLab job of proj-d: nothing sent, exit 0" eval \
  '[ $st -eq 0 ] && [ "$(waiting proj-b) $(waiting proj-c)" = "2 1" ]'
check "a GitLab job of proj-d: the count, no names" eval \
  'grep -q "^3 publications of other projects left in the spool for their own jobs" \
    "$TMP/f3.out" && names_absent "$TMP/f3.out"'
env GITLAB_CI=true CI_PROJECT_NAME=proj-d BENCHPROF_PROJECT=proj-c \
  BENCHPROF_STORE_TOKEN="$STOKEN" "$BENCHPROF" flush --spool "$SPOOL" \
  >"$TMP/f4.out" 2>&1
st=$?
check "BENCHPROF_PROJECT=proj-c in a GitLab job: C's delivered" eval \
  '[ $st -eq 0 ] && [ "$(waiting proj-c)" -eq 0 ] &&
    grep -q ": delivered (" "$TMP/f4.out" && names_absent "$TMP/f4.out"'

# --project P in another project's job: P's
in_job_a "$BENCHPROF" flush --spool "$SPOOL" --project proj-b \
  >"$TMP/f5.out" 2>&1
st=$?
check "--project proj-b in A's job: B's two delivered" eval \
  '[ $st -eq 0 ] && [ "$(waiting proj-b)" -eq 0 ] &&
    [ "$(grep -c ": delivered (" "$TMP/f5.out")" -eq 2 ]'

# --all-projects in a job, and a job whose project cannot be told: all
spool_run a3 proj-a main "$HA"
spool_run b3 proj-b "$SECRET_BRANCH" "$HB"
in_job_a "$BENCHPROF" flush --spool "$SPOOL" --all-projects \
  >"$TMP/f6.out" 2>&1
st=$?
check "--all-projects in A's job: both delivered" eval \
  '[ $st -eq 0 ] && [ -z "$(ls "$SPOOL")" ] &&
    [ "$(grep -c ": delivered (" "$TMP/f6.out")" -eq 2 ]'
spool_run a4 proj-a main "$HA"
spool_run b4 proj-b "$SECRET_BRANCH" "$HB"
env GITHUB_ACTIONS=true BENCHPROF_STORE_TOKEN="$STOKEN" \
  "$BENCHPROF" flush --spool "$SPOOL" >"$TMP/f7.out" 2>&1
st=$?
check "a job whose project is unknown: everything, as before" eval \
  '[ $st -eq 0 ] && [ -z "$(ls "$SPOOL")" ]'
check "a job whose project is unknown: says so" \
  grep -q "^benchprof: this github job's project is unknown" "$TMP/f7.out"

# outside CI, without a scope: everything; a store still refusing (no
# token) fails flush, but only with a publication of the scope
spool_run a5 proj-a main "$HA"
spool_run b5 proj-b "$SECRET_BRANCH" "$HB"
env GITHUB_ACTIONS=true GITHUB_REPOSITORY=org/proj-a \
  "$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 \
  >"$TMP/f8.out" 2>&1
check "A's job, A's still refused: exit 1" [ $? -eq 1 ]
check "A's job, A's still refused: B's not tried" names_absent "$TMP/f8.out"
env GITHUB_ACTIONS=true GITHUB_REPOSITORY=org/proj-c \
  "$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 \
  >"$TMP/f9.out" 2>&1
check "C's job, only others' refused: exit 0 under --strict" [ $? -eq 0 ]
env BENCHPROF_STORE_TOKEN="$STOKEN" "$BENCHPROF" flush --spool "$SPOOL" \
  >"$TMP/f10.out" 2>&1
st=$?
check "outside CI: every project's delivered" eval \
  '[ $st -eq 0 ] && [ -z "$(ls "$SPOOL")" ] &&
    [ "$(grep -c ": delivered (" "$TMP/f10.out")" -eq 2 ]'

# --drop rejected: the scope's rejected ones only; --drop ID: any
python3 "$SERVERS/put_server.py" --root "$TMP/rej" --faults 422 \
  --port-file "$TMP/rej-a.port" >"$TMP/rej-a.log" 2>&1 &
PIDS="$PIDS $!"
python3 "$SERVERS/put_server.py" --root "$TMP/rej" --faults 422 \
  --port-file "$TMP/rej-b.port" >"$TMP/rej-b.log" 2>&1 &
PIDS="$PIDS $!"
spool_run ra proj-a main "$HA" "http://127.0.0.1:$(wait_port "$TMP/rej-a.port")/s"
spool_run rb proj-b "$SECRET_BRANCH" "$HB" \
  "http://127.0.0.1:$(wait_port "$TMP/rej-b.port")/s"
in_job_a "$BENCHPROF" flush --spool "$SPOOL" --drop rejected \
  >"$TMP/d1.out" 2>&1
st=$?
check "--drop rejected in A's job: A's dropped, B's kept" eval \
  '[ $st -eq 0 ] && [ "$(waiting proj-a) $(waiting proj-b)" = "0 1" ] &&
    [ "$(grep -c ": dropped (it was rejected)" "$TMP/d1.out")" -eq 1 ]'
check "--drop rejected in A's job: B's counted, not named" eval \
  'grep -q "^1 publication of another project not looked at for its own job (--all-projects looks at it)$" \
    "$TMP/d1.out" && names_absent "$TMP/d1.out"'
RB=$(ls "$SPOOL")
in_job_a "$BENCHPROF" flush --spool "$SPOOL" --drop "$RB" >"$TMP/d2.out" 2>&1
st=$?
check "--drop ID in A's job drops B's by its id" eval \
  '[ $st -eq 0 ] && [ -z "$(ls "$SPOOL")" ]'

# a pull request's run delivers its base branch's spooled publications
# (of its project) before comparing: the comparison finds that commit
HM=1111111111111111111111111111111111111111
HF=2222222222222222222222222222222222222222
spool_run main proj-a main "$HM"
spool_run other proj-b main "$HB"
check "the base's run and another project's wait in the spool" \
  [ "$(waiting proj-a) $(waiting proj-b)" = "1 1" ]
BENCHPROF_STORE_TOKEN="$STOKEN" "$BENCHPROF" run -o "$TMP/pr" \
  --bmf "$TMP/pr.json" --project proj-a --branch feature/y --hash "$HF" \
  --base-branch main --base-hash "$HM" --testbed box --store "$STORE" \
  --spool "$SPOOL" --retries 0 --timeout 5 -- \
  "$TMP/harness.sh" "$TMP/pr.json" >"$TMP/pr.out" 2>"$TMP/pr.err"
check "the pull request's run: exit 0" [ $? -eq 0 ]
check "the pull request's run delivered main's spooled run first" \
  grep -q "^benchprof: compare: main's spooled run first: .*: delivered (" \
  "$TMP/pr.err"
check "and compared with that base commit" \
  grep -q "compare with main (111111111111)" "$TMP/pr.err"
check "the other project's main stays in the spool" \
  [ "$(waiting proj-a) $(waiting proj-b)" = "0 1" ]
check "the run's stdout is the benchmark's" [ ! -s "$TMP/pr.out" ]
BENCHPROF_STORE_TOKEN="$STOKEN" "$BENCHPROF" run -o "$TMP/pr2" \
  --bmf "$TMP/pr2.json" --project proj-a --branch feature/y --hash "$HF" \
  --base-branch main --base-hash "$HM" --testbed box --store "$STORE" \
  --spool "$SPOOL" --retries 0 --timeout 5 -- \
  "$TMP/harness.sh" "$TMP/pr2.json" >/dev/null 2>"$TMP/pr2.err"
check "nothing of the base spooled: nothing said" \
  [ "$(grep -c "spooled run first" "$TMP/pr2.err")" -eq 0 ]
# Two repositories named alike: the project name is the same, the
# repository (publication.json's identity) tells them apart
SPOOL=$TMP/spool-alike
HD=dddddddddddddddddddddddddddddddddddddddd
HE=eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee
# gh_spool NAME OWNER ID BRANCH HASH: spool_run in a GitHub Actions job
# of OWNER/bench, repository id ID
gh_spool() {
  (export GITHUB_ACTIONS=true GITHUB_REPOSITORY="$2/bench" \
     GITHUB_REPOSITORY_ID="$3"
   spool_run "$1" bench "$4" "$5")
}
# gl_spool NAME ID BRANCH HASH: spool_run in a GitLab CI job of project ID
# (named bench)
gl_spool() {
  (export GITLAB_CI=true CI_PROJECT_NAME=bench CI_PROJECT_ID="$2"
   spool_run "$1" bench "$3" "$4")
}
# in_gh OWNER ID CMD...: CMD in a GitHub Actions job of OWNER/bench
in_gh() {
  gh_owner=$1 gh_id=$2
  shift 2
  env GITHUB_ACTIONS=true GITHUB_REPOSITORY="$gh_owner/bench" \
    GITHUB_REPOSITORY_ID="$gh_id" BENCHPROF_STORE_TOKEN="$STOKEN" "$@"
}
# spool_id NAME: the spool id of run NAME's publication
spool_id() {
  python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["publication"]["spool_id"])' \
    "$TMP/$1/manifest.json"
}
# alike_absent FILE: nothing of owner-b's (or project 12's) publications
alike_absent() {
  ! grep -q -e "$HD" -e dddddddd -e "$(spool_id gb)" -e "$(spool_id g12)" \
    "$1"
}
gh_spool ga owner-a 101 main "$HE"
gh_spool gb owner-b 202 main "$HD"
gl_spool g12 12 main "$HD"
check "alike: three publications of 'bench' wait" [ "$(waiting bench)" -eq 3 ]
check "alike: publication.json names the repository" python3 -c "
import json, sys
i = json.load(open(sys.argv[1] + '/' + sys.argv[2] + '/publication.json'))
assert i['identity']['repository'] == 'github:id:202', i" \
  "$SPOOL" "$(spool_id gb)"
in_gh owner-a 101 "$BENCHPROF" flush --spool "$SPOOL" --list \
  >"$TMP/al.out" 2>&1
check "alike: owner-a's job lists its one, counts the others" eval \
  '[ "$(grep -c "	waiting	" "$TMP/al.out")" -eq 1 ] &&
    grep -q "bench/main@$HE" "$TMP/al.out" &&
    grep -q "^2 publications of other projects not listed for their own jobs" \
    "$TMP/al.out"'
check "alike: owner-a's list names nothing of the others" \
  alike_absent "$TMP/al.out"
sent_before=$(wc -l <"$TMP/put.log")
in_gh owner-a 101 "$BENCHPROF" flush --spool "$SPOOL" >"$TMP/af.out" 2>&1
st=$?
check "alike: owner-a's job delivers its own only" eval \
  '[ $st -eq 0 ] && [ "$(waiting bench)" -eq 2 ] &&
    [ "$(grep -c ": delivered (" "$TMP/af.out")" -eq 1 ] &&
    [ -d "$SPOOL/$(spool_id gb)" ] && [ -d "$SPOOL/$(spool_id g12)" ]'
check "alike: owner-a's flush counts the others, names none" eval \
  'grep -q "^2 publications of other projects left in the spool for their own jobs" \
    "$TMP/af.out" && alike_absent "$TMP/af.out"'
sed -n "$((sent_before + 1)),\$p" "$TMP/put.log" >"$TMP/put-af.log"
check "alike: nothing of the others sent with owner-a's token" \
  alike_absent "$TMP/put-af.log"
# transferred: owner-a/bench is now owner-c/bench, the same repository id
gh_spool ga2 owner-a 101 feature/z "$HE"
in_gh owner-c 101 "$BENCHPROF" flush --spool "$SPOOL" >"$TMP/at.out" 2>&1
st=$?
check "alike: the transferred repository's job takes its own" eval \
  '[ $st -eq 0 ] && [ ! -d "$SPOOL/$(spool_id ga2)" ] &&
    [ "$(grep -c ": delivered (" "$TMP/at.out")" -eq 1 ] &&
    alike_absent "$TMP/at.out"'
# GitLab: project 11's job leaves project 12's (and owner-b's)
gl_spool g11 11 main "$HE"
env GITLAB_CI=true CI_PROJECT_NAME=bench CI_PROJECT_ID=11 \
  BENCHPROF_STORE_TOKEN="$STOKEN" "$BENCHPROF" flush --spool "$SPOOL" \
  >"$TMP/ag.out" 2>&1
st=$?
check "alike: GitLab project 11's job delivers its own only" eval \
  '[ $st -eq 0 ] && [ ! -d "$SPOOL/$(spool_id g11)" ] &&
    [ "$(waiting bench)" -eq 2 ] && alike_absent "$TMP/ag.out"'
# owner-a's pull request: its base's spooled run first, never owner-b's
# main (the same project and branch)
HM2=4444444444444444444444444444444444444444
gh_spool gmain owner-a 101 main "$HM2"
in_gh owner-a 101 "$BENCHPROF" run -o "$TMP/apr" --bmf "$TMP/apr.json" \
  --project bench --branch feature/y --hash "$HF" --base-branch main \
  --base-hash "$HM2" --testbed box --store "$STORE" --spool "$SPOOL" \
  --retries 0 --timeout 5 -- "$TMP/harness.sh" "$TMP/apr.json" \
  >/dev/null 2>"$TMP/apr.err"
check "alike: owner-a's pull request run: exit 0" [ $? -eq 0 ]
check "alike: owner-a's pull request delivered its own main first, only" eval \
  '[ "$(grep -c "spooled run first: .*: delivered (" "$TMP/apr.err")" -eq 1 ] &&
    grep -q "spooled run first: $(spool_id gmain): delivered (" "$TMP/apr.err"'
check "alike: and compared with that base commit" \
  grep -q "compare with main (444444444444)" "$TMP/apr.err"
check "alike: owner-b's main stays, unnamed" eval \
  '[ -d "$SPOOL/$(spool_id gb)" ] && alike_absent "$TMP/apr.err"'
finish
