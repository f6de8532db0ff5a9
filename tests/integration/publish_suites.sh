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
#   - --suite and BENCHPROF_SUITE are checked before anything runs.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/forge_lib.sh"

need python3 "apt-get install python3"
outside_ci
BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
OTHER=3333333333333333333333333333333333333333
STORE=$TMP/store

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

GH_TOKEN="ghs_suites_token_5e1f"
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
step plain-b bench_b --branch main --hash "$OTHER"
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
