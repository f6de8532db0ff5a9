#!/bin/sh
# A CI job with two benchmark steps (two harnesses, other benchmarks)
# publishing one commit on one testbed, to a file:// store:
#   - with --suite a and --suite b (BENCHPROF_SUITE for the second): each
#     suite has its own manifest, artifacts and latest pointer (the
#     testbed's key part "box~~a"), its identity names the suite, and the
#     store's pages show "box (a)";
#   - a pull request job with the same two steps: each compares with its
#     own suite's base run (no benchmark "new" or "removed"), its comment
#     has a marker and title of its own; posted to a GitHub stand-in they
#     are two comments and two commit statuses, "benchprof/a" and
#     "benchprof/b"; `benchprof compare --suite` reads a suite's sides;
#   - the same job without suites: the second step replaces the first's
#     run and says so (another step of this job; --suite), once; the same
#     step again, or another job, says nothing.
#   - --suite and BENCHPROF_SUITE are checked before anything runs (an
#     empty --suite is refused, saying to leave it out; an empty
#     BENCHPROF_SUITE is no suite);
#   - no base: a new suite's comment has its own marker and title (two
#     suites' and a no-suite run's are three comments), and says which
#     suites (or the run without one) the base branch has; compare
#     without --suite where there are suites' runs only says which;
#   - a base run of another command: the comment says so;
#   - the suite in compare.json, identity.json, `ci` and `ci --json`, and
#     the comment's compared line;
#   - without -o a suite's run goes to OUTPUT/suite=NAME: suites a, b and
#     a run without one keep each their own run and comment.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/forge_lib.sh"

need python3 "apt-get install python3"
outside_ci
BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
OTHER=3333333333333333333333333333333333333333
PLAIN=4444444444444444444444444444444444444444
STORE=$TMP/store
GH_TOKEN="ghs_suites_token_5e1f"

# harness NAME BENCH: a real workload, then a BMF with benchmark BENCH
harness() {
  {
    echo '#!/bin/sh'
    echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
    echo "printf '{\"%s\": {\"latency\": {\"value\": 1000}}}' '$2' >\"\$1\""
  } >"$TMP/$1.sh"
  chmod +x "$TMP/$1.sh"
}
harness bench_a "a/sort"
harness bench_b "b/parse"

# job ID: a GitHub Actions job (run ID, its job "bench") whose steps follow
job() {
  GITHUB_ACTIONS=true GITHUB_REPOSITORY=org/demo GITHUB_RUN_ID=$1
  GITHUB_RUN_ATTEMPT=1 GITHUB_JOB=bench GITHUB_EVENT_NAME=push
  export GITHUB_ACTIONS GITHUB_REPOSITORY GITHUB_RUN_ID GITHUB_RUN_ATTEMPT \
    GITHUB_JOB GITHUB_EVENT_NAME
}
# step NAME HARNESS ARGS...: benchprof run of HARNESS into $TMP/NAME (a
# harness's command is the same in every step that runs it)
step() {
  name=$1 h=$2
  shift 2
  "$BENCHPROF" run -o "$TMP/$name" --bmf "$TMP/$h.json" --project demo \
    --testbed box --store "file://$STORE" --spool "$TMP/spool" \
    --retries 0 --timeout 5 "$@" -- "$TMP/$h.sh" "$TMP/$h.json" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  status=$?
}

# --------------------------------------------------- names checked first
for bad in '' ' a' "$(printf 'a\tb')" 'a b' 'x/y' "$(printf '\351\200\237')" \
  "$(printf '%070d' 0)"; do
  step bad bench_a --branch main --hash "$BASE" --suite "$bad"
  expect_status bad 2
  check "a bad suite '$bad' is refused, naming --suite" \
    grep -q -- "--suite" "$TMP/bad.err"
done
check "nothing ran for a bad suite" test ! -e "$TMP/bad/manifest.json"
step bad bench_a --branch main --hash "$BASE" --suite ''
check "an empty --suite is said in full, and how to give none" \
  grep -q -- "--suite '': the suite's name is empty (1 to 64 ASCII letters.*; leave --suite out for none" \
  "$TMP/bad.err"
# as any bad setting: the configuration is ignored, said, and the command
# runs unprofiled (never published without its suite)
BENCHPROF_SUITE=' x' step badenv bench_a --branch main --hash "$BASE"
expect_status badenv 0
check "a bad BENCHPROF_SUITE is said, naming it" \
  grep -q "BENCHPROF_SUITE: expected a suite's name" "$TMP/badenv.err"
check "and nothing is published" test ! -e "$STORE"

# ------------------------------------------------- base branch: two suites
job 100
step base-a bench_a --branch main --hash "$BASE" --suite a
expect_status base-a 0
BENCHPROF_SUITE=b step base-b bench_b --branch main --hash "$BASE"
expect_status base-b 0
pycheck "each suite has its own manifest, artifacts and latest pointer" \
  "$STORE" "$BASE" <<'PY'
import json, os, sys
root, base = sys.argv[1:]
run = os.path.join(root, "demo", "main", base)
assert sorted(os.listdir(run)) == ["box~~a", "box~~b"], os.listdir(run)
for suite, bench in (("a", "a/sort"), ("b", "b/parse")):
    m = json.load(open(os.path.join(run, "box~~" + suite, "manifest.json")))
    ident = m["publication"]["identity"]
    assert ident["suite"] == suite and ident["testbed"] == "box", ident
    assert m["publication"]["ci_job"] == "github:100/1/bench", m["publication"]
    assert [b["name"] for b in m["benchmarks"]] == [bench], m["benchmarks"]
    for b in m["benchmarks"]:
        for a in b["artifacts"]:
            assert a["key"].startswith("demo/main/%s/box~~%s/" % (base, suite)), a
            assert os.path.isfile(os.path.join(root, a["key"])), a
    p = json.load(open(os.path.join(root, "demo", "main", "latest",
                                    "box~~%s.json" % suite)))
    assert p["manifest"] == "demo/main/%s/box~~%s/manifest.json" % (base, suite), p
assert not os.path.exists(os.path.join(root, "demo/main/latest/box.json"))
PY
check "no step of a job with suites is told it replaces another" sh -c \
  '! grep -q "another step" "$1/base-a.err" "$1/base-b.err"' sh "$TMP"
pycheck "the store's pages list each suite's run as 'box (suite)'" \
  "$STORE" "$BASE" <<'PY'
import os, sys
root, base = sys.argv[1:]
page = open(os.path.join(root, "demo", "main", "index.html")).read()
assert "box (a)" in page and "box (b)" in page, page
for s in "ab":
    run = open(os.path.join(root, "demo/main", base, "box~~" + s,
                            "index.html")).read()
    assert "on box (%s)" % s in run, run[:400]
PY

# the viewer: the commit's page lists each suite's run as "box (suite)",
# and its link opens that run (its benchmark)
"$BENCHPROF" serve --port 0 "$STORE" >"$TMP/serve.out" 2>"$TMP/serve.err" &
at_exit "kill $! 2>/dev/null"
wait_line "$TMP/serve.out" "^serving .* at http://127" 10
PUB=$(sed -n 's|^serving .* at \(http://127\.0\.0\.1:[0-9]*/\)$|\1|p' \
  "$TMP/serve.out")
pycheck "benchprof serve shows and opens each suite's run" "$PUB" "$BASE" \
  <<'PY'
import re, sys, urllib.parse, urllib.request
pub, base = sys.argv[1:]
url = pub + "demo/main/" + base + "/"
page = urllib.request.urlopen(url).read().decode()
for s, bench in (("a", "<h3 class=\"benchmark\">a/sort<"),
                 ("b", "<h3 class=\"benchmark\">b/parse<")):
    assert "box (%s)" % s in page, page
    hrefs = [h for h in re.findall(r'href="([^"]+)"', page)
             if urllib.parse.unquote(h).rstrip("/").endswith("box~~" + s)]
    assert hrefs, page
    run = urllib.request.urlopen(urllib.parse.urljoin(url, hrefs[0]))
    text = run.read().decode()
    assert run.status == 200 and bench in text, text[:2000]
PY

# ----------------------------------------- a pull request job, two suites
job 101
pr() {
  step "$1" "$2" --branch feature/x --hash "$HEAD" --base-branch main \
    --base-hash "$BASE" --suite "$3"
}
pr pr-a bench_a a
expect_status pr-a 0
pr pr-b bench_b b
expect_status pr-b 0
pycheck "each step is compared with its own suite's base" "$TMP" <<'PY'
import json, os, sys
tmp = sys.argv[1]
for name, bench in (("pr-a", "a/sort"), ("pr-b", "b/parse")):
    c = json.load(open(os.path.join(tmp, name, "compare", "compare.json")))
    assert c["new"] == 0 and c["removed"] == 0, (name, c)
    assert [b["name"] for b in c["benchmarks"]] == [bench], (name, c)
    assert c["base"]["hash"] == "1" * 40, c["base"]
PY
check "comment a: its suite's marker and title" sh -c \
  'head -1 "$1" | grep -qx "<!-- benchprof:comment demo/box suite=a -->" &&
   grep -q "^### benchprof (suite \`a\`): " "$1"' \
  sh "$TMP/pr-a/compare/comment.md"
check "comment b: its suite's marker" sh -c \
  'head -1 "$1" | grep -qx "<!-- benchprof:comment demo/box suite=b -->"' \
  sh "$TMP/pr-b/compare/comment.md"
check "comment a: compared on its testbed and suite" grep -q \
  'with `main` (`1111111`) on testbed `box`, suite `a`; ' \
  "$TMP/pr-a/compare/comment.md"
check "the same commands on both sides: no note of another command" sh -c \
  '! grep -q "another command" "$1"' sh "$TMP/pr-a/compare/comment.md"
pycheck "compare.json and identity.json name the suite" "$TMP" <<'PY'
import json, os, sys
for s in "ab":
    d = os.path.join(sys.argv[1], "pr-" + s, "compare")
    assert json.load(open(os.path.join(d, "compare.json")))["suite"] == s
    assert json.load(open(os.path.join(d, "identity.json")))["suite"] == s
PY
BENCHPROF_SUITE=b "$BENCHPROF" ci --json >"$TMP/ci.json" 2>"$TMP/ci.err"
check "ci --json: the suite of BENCHPROF_SUITE" grep -qx '  "suite": "b"' \
  "$TMP/ci.json"
"$BENCHPROF" ci --suite a >"$TMP/ci.txt" 2>"$TMP/ci.err"
check "ci: the suite of --suite" grep -qx 'suite  *a' "$TMP/ci.txt"
"$BENCHPROF" ci --json >"$TMP/ci.json" 2>"$TMP/ci.err"
check "ci --json: no suite, null" grep -qx '  "suite": null' "$TMP/ci.json"

# without -o: each suite's run in the output directory's suite=NAME, the
# run without a suite in the directory itself; none clears another's
for s in a b ''; do
  BENCHPROF_OUTPUT=$TMP/plain-out "$BENCHPROF" run --bmf "$TMP/bench_a.json" \
    --project demo --testbed box --store "file://$STORE" \
    --spool "$TMP/spool" --retries 0 --timeout 5 --branch feature/plain \
    --hash "$PLAIN" --base-branch main --base-hash "$BASE" ${s:+--suite $s} \
    -- "$TMP/bench_a.sh" "$TMP/bench_a.json" >"$TMP/sdir-$s.out" \
    2>"$TMP/sdir-$s.err"
  status=$?
  expect_status "sdir-$s" 0
done
check "without -o: suites a, b and none keep each their run and comment" \
  sh -c 'for d in "$1/suite=a" "$1/suite=b" "$1"; do
      [ -s "$d/manifest.json" ] && [ -s "$d/compare/comment.md" ] || exit 1
    done
    head -1 "$1/suite=a/compare/comment.md" | grep -q "suite=a -->" &&
    head -1 "$1/suite=b/compare/comment.md" | grep -q "suite=b -->" &&
    head -1 "$1/compare/comment.md" | grep -qx "<!-- benchprof:comment demo/box -->"' \
  sh "$TMP/plain-out"
check "without -o: the log names the suite's directory" grep -q \
  "plain-out/suite=b/compare/comment.md" "$TMP/sdir-b.err"

# --------------------------------- no base: each suite's comment its own
# a new suite (c, d) finds no base: its comment still has the suite's
# marker and title, and says which suites the base branch has
for s in c d; do
  pr "pr-$s" bench_a "$s"
  expect_status "pr-$s" 0
  check "no base, suite $s: the suite's marker, title and other suites" \
    sh -c 'head -1 "$1" | grep -qx "<!-- benchprof:comment demo/box suite=$2 -->" &&
      grep -q "^### benchprof (suite \`$2\`): no base to compare with" "$1" &&
      grep -q "of suites .a., .b., none of suite .$2.: run the base branch with --suite $2 too" "$1"' \
    sh "$TMP/pr-$s/compare/comment.md" "$s"
done
check "no base: the step's log says what the base branch has" grep -q \
  "compare: branch 'main' has runs on testbed 'box' of suites 'a', 'b', none of suite 'c'" \
  "$TMP/pr-c.err"
# the same job without a suite: the base branch has suites' runs only
step pr-plain bench_a --branch feature/x --hash "$HEAD" --base-branch main \
  --base-hash "$BASE"
expect_status pr-plain 0
check "no base, no suite: the marker of old, and the suites to choose from" \
  sh -c 'head -1 "$1" | grep -qx "<!-- benchprof:comment demo/box -->" &&
    grep -q "^### benchprof: no base to compare with" "$1" &&
    grep -q "only of suites .a., .b., none without a suite: give this step the --suite NAME" "$1"' \
  sh "$TMP/pr-plain/compare/comment.md"
forge_standin github "$TMP/gh-nobase" "$GH_TOKEN" 0
printf '{"10": "%s"}\n' "$HEAD" >"$TMP/gh-nobase/pulls.json"
for s in c d plain; do
  GITHUB_TOKEN=$GH_TOKEN "$BENCHPROF" comment \
    --markdown "$TMP/pr-$s/compare/comment.md" --github org/demo --pr 10 \
    --api-url "$FORGE_URL" >"$TMP/nb-$s.out" 2>"$TMP/nb-$s.err"
  status=$?
  expect_status "nb-$s" 0
done
pycheck "three no-base comments, none replacing another" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh-nobase")
bodies = [c["body"] for c in json.load(open(os.path.join(d, "state.json")))]
assert len(bodies) == 3, bodies
for m in ("demo/box suite=c -->", "demo/box suite=d -->", "demo/box -->"):
    assert sum(("benchprof:comment " + m) in b for b in bodies) == 1, m
PY
# compare without --suite where the branch has suites' runs only
"$BENCHPROF" compare -o "$TMP/cmp-none" --project demo --testbed box \
  --store "file://$STORE" main@latest "feature%2Fx@$HEAD" \
  >"$TMP/cmp-none.out" 2>"$TMP/cmp-none.err"
status=$?
expect_status cmp-none 1
check "compare without --suite: which suites the branch has, and --suite" \
  grep -q "branch 'main' has runs on testbed 'box' only of suites 'a', 'b', none without a suite: give --suite NAME" \
  "$TMP/cmp-none.err"

forge_standin github "$TMP/gh" "$GH_TOKEN" 0
printf '{"9": "%s"}\n' "$HEAD" >"$TMP/gh/pulls.json"
for s in a b; do
  GITHUB_TOKEN=$GH_TOKEN "$BENCHPROF" comment \
    --markdown "$TMP/pr-$s/compare/comment.md" --github org/demo --pr 9 \
    --api-url "$FORGE_URL" >"$TMP/comment-$s.out" 2>"$TMP/comment-$s.err"
  status=$?
  expect_status "comment-$s" 0
done
# posted again: each edits its own comment, no third one
GITHUB_TOKEN=$GH_TOKEN "$BENCHPROF" comment \
  --markdown "$TMP/pr-a/compare/comment.md" --github org/demo --pr 9 \
  --api-url "$FORGE_URL" >"$TMP/comment-a2.out" 2>"$TMP/comment-a2.err"
status=$?
expect_status comment-a2 0
pycheck "two comments and two statuses, one per suite" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh")
state = json.load(open(os.path.join(d, "state.json")))
bodies = [c["body"] for c in state]
assert len(bodies) == 2, bodies
assert sum("benchprof:comment demo/box suite=a -->" in b for b in bodies) == 1
assert sum("benchprof:comment demo/box suite=b -->" in b for b in bodies) == 1
st = json.load(open(os.path.join(d, "statuses.json")))
ctx = sorted(s["context"] for s in st)
assert ctx == ["benchprof/a", "benchprof/a", "benchprof/b"], st
assert all(s["sha"] == "2" * 40 and s["state"] == "success" for s in st), st
PY
check "comment says which status it set" \
  grep -q "commit status benchprof/b of 222222222222" "$TMP/comment-b.err"

"$BENCHPROF" compare -o "$TMP/cmp-b" --project demo --testbed box --suite b \
  --store "file://$STORE" main@latest "feature%2Fx@$HEAD" \
  >"$TMP/cmp-b.out" 2>"$TMP/cmp-b.err"
status=$?
expect_status cmp-b 0
pycheck "compare --suite b reads suite b's sides" "$TMP" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "cmp-b", "compare.json")))
assert c["new"] == 0 and c["removed"] == 0, c
assert [b["name"] for b in c["benchmarks"]] == ["b/parse"], c
PY
check "compare --suite b: its marker" sh -c \
  'head -1 "$1" | grep -qx "<!-- benchprof:comment demo/box suite=b -->"' \
  sh "$TMP/cmp-b/comment.md"

# --------------------------------- the same job without suites: a warning
job 102
step plain-a bench_a --branch main --hash "$OTHER"
expect_status plain-a 0
# an empty BENCHPROF_SUITE is no suite (the checks below: box's keys)
BENCHPROF_SUITE= step plain-b bench_b --branch main --hash "$OTHER"
expect_status plain-b 0
check "the first step replaces nothing" sh -c \
  '! grep -q "another step" "$1"' sh "$TMP/plain-a.err"
check "the second step says it replaces the first, and what to do" sh -c \
  'grep "another step of this CI job" "$1" | grep -q -- "--suite NAME"' \
  sh "$TMP/plain-b.err"
check "said once" [ "$(grep -c "another step" "$TMP/plain-b.err")" = 1 ]
check "the replace stays: the second step's run is the commit's" sh -c \
  'grep -q "b/parse" "$1/demo/main/$2/box/manifest.json" &&
   grep -q "$2" "$1/demo/main/latest/box.json"' sh "$STORE" "$OTHER"
step plain-b2 bench_b --branch main --hash "$OTHER"
expect_status plain-b2 0
check "the same step again says nothing" sh -c \
  '! grep -q "another step" "$1"' sh "$TMP/plain-b2.err"
job 103
step plain-a3 bench_a --branch main --hash "$OTHER"
expect_status plain-a3 0
check "another job (a re-run) says nothing" sh -c \
  '! grep -q "another step" "$1"' sh "$TMP/plain-a3.err"
# a pull request of that job: the base is another step's run (the last
# step's, bench_a): bench_b's benchmark is new, and the comment says why
job 105
step pr-other bench_b --branch feature/y --hash "$HEAD" --base-branch main \
  --base-hash "$OTHER"
expect_status pr-other 0
check "a base of another command: said in the comment, with --suite" sh -c \
  'grep -q "^_The base run is of another command than this run.s, so benchmarks may show as new or removed: .*--suite NAME" "$1" &&
   ! grep -q "bench_a.sh" "$1"' sh "$TMP/pr-other/compare/comment.md"
step pr-same bench_a --branch feature/y --hash "$HEAD" --base-branch main \
  --base-hash "$OTHER"
expect_status pr-same 0
check "a base of the same command: no such note" sh -c \
  '! grep -q "another command" "$1"' sh "$TMP/pr-same/compare/comment.md"
# switching to suites: the base branch has a run without a suite only
step pr-switch bench_a --branch feature/y --hash "$HEAD" --base-branch main \
  --base-hash "$OTHER" --suite e
expect_status pr-switch 0
check "a new suite where the base has a run without one: said so" grep -q \
  "has runs on testbed .box. without a suite and of suites .a., .b., none of suite .e.: run the base branch with --suite e too (merge the workflow change" \
  "$TMP/pr-switch/compare/comment.md"
# ------------------------------- spooled, then flushed: the suite travels
# an http:// store whose first manifest PUT fails: the run stays spooled
# (publication.json holds its suite), flush delivers it to the suite's keys
job 104
mkdir -p "$TMP/put-root"
python3 "$top_srcdir/tests/servers/put_server.py" --root "$TMP/put-root" \
  --port-file "$TMP/put.port" --fail-path "/manifest.json:1" \
  >"$TMP/put.log" 2>&1 &
at_exit "kill $! 2>/dev/null"
i=0
while [ ! -s "$TMP/put.port" ] && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
U="http://127.0.0.1:$(cat "$TMP/put.port")/s"
"$BENCHPROF" run -o "$TMP/spooled" --bmf "$TMP/bench_a.json" --project demo \
  --testbed box --branch main --hash "$BASE" --suite c --store "$U" \
  --spool "$TMP/c.spool" --retries 0 --timeout 5 \
  -- "$TMP/bench_a.sh" "$TMP/bench_a.json" >"$TMP/spooled.out" \
  2>"$TMP/spooled.err"
status=$?
expect_status spooled 0
check "the run is spooled" [ "$(ls "$TMP/c.spool" | wc -l)" -eq 1 ]
"$BENCHPROF" flush --list --spool "$TMP/c.spool" >"$TMP/list.out" \
  2>"$TMP/list.err"
check "flush --list names the suite" grep -q "@$BASE on box (c)" \
  "$TMP/list.out"
"$BENCHPROF" flush --spool "$TMP/c.spool" >"$TMP/flush.out" 2>"$TMP/flush.err"
status=$?
expect_status flush 0
check "flush empties the spool" [ -z "$(ls -A "$TMP/c.spool")" ]
pycheck "flushed to suite c's keys" "$TMP/put-root/s" "$BASE" <<'PY'
import json, os, sys
root, base = sys.argv[1:]
m = json.load(open(os.path.join(root, "demo/main", base, "box~~c",
                                "manifest.json")))
assert m["publication"]["identity"]["suite"] == "c", m["publication"]
p = json.load(open(os.path.join(root, "demo/main/latest/box~~c.json")))
assert p["manifest"] == "demo/main/%s/box~~c/manifest.json" % base, p
assert not os.path.exists(os.path.join(root, "demo/main/latest/box.json"))
PY

check "the token never shows" sh -c '! grep -rq "$1" "$2"/*.out "$2"/*.err' \
  sh "$GH_TOKEN" "$TMP"
finish
