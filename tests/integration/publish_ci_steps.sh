#!/bin/sh
# Two `benchprof run` steps of one GitHub Actions run (the same
# GITHUB_RUN_ID) on a pull request publish to one run key of a file://
# store: the stored manifest is their union (each benchmark with its
# step's artifacts: the keys exist and hold that step's bytes, each
# step's whole-run profile under its own ~run/step-XXXXXXXX/ part), it
# lists both steps, the static run page and the viewer (benchprof serve)
# list both benchmarks, and the second step's pull request comment covers
# both.  A step of another run id replaces the stored run; so does a run
# outside CI, whose whole-run artifacts stay under ~run/ as before.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

# this test names its own identity: none from the CI it may run in
outside_ci
unset GITHUB_EVENT_NAME GITHUB_API_URL

BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
MERGE=3333333333333333333333333333333333333333
# a harness that runs a real workload and reports the benchmarks named
# after its output file
{
  echo '#!/bin/sh'
  echo 'out=$1; shift'
  echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
  echo 'python3 -c "import json,sys; json.dump({n: {\"latency\": {\"value\": 5}} for n in sys.argv[2:]}, open(sys.argv[1], \"w\"))" "$out" "$@"'
} >"$TMP/harness.sh"
chmod +x "$TMP/harness.sh"
mkdir -p "$TMP/nogit"
cat >"$TMP/event.json" <<JSON
{"pull_request": {"number": 5,
  "head": {"ref": "feature/x", "sha": "$HEAD",
           "repo": {"full_name": "org/demo"}},
  "base": {"ref": "main", "sha": "$BASE",
           "repo": {"full_name": "org/demo"}}},
 "repository": {"full_name": "org/demo", "default_branch": "main"}}
JSON
opts="--project demo --testbed tb --store file://$TMP/store
  --spool $TMP/spool --retries 0 --timeout 5"

# step NAME RUN_ID BENCH...: a `benchprof run` step of GitHub run RUN_ID
# on pull request 5 (no RUN_ID: outside CI, the head commit by flags) in
# the output directory every step shares, $TMP/out, as benchprof-wrap's
# steps do; its manifest and compare/ copied to $TMP/NAME
step() {
  name=$1 run=$2
  shift 2
  if [ -n "$run" ]; then
    ci="GITHUB_ACTIONS=true GITHUB_REPOSITORY=org/demo
      GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH=$TMP/event.json
      GITHUB_SHA=$MERGE GITHUB_REF_NAME=5/merge GITHUB_HEAD_REF=feature/x
      GITHUB_BASE_REF=main GITHUB_RUN_ID=$run GITHUB_RUN_ATTEMPT=1"
    flags=
  else
    ci=
    flags="--branch feature/x --hash $HEAD"
  fi
  # shellcheck disable=SC2086
  (cd "$TMP/nogit" && env GIT_CEILING_DIRECTORIES="$TMP" $ci \
    "$BENCHPROF" run -o "$TMP/out" --bmf "$TMP/$name.json" $opts $flags \
    -- "$TMP/harness.sh" "$TMP/$name.json" "$@") \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  status=$?
  mkdir -p "$TMP/$name"
  cp "$TMP/out/manifest.json" "$TMP/$name/"
  if [ -d "$TMP/out/compare" ]; then cp -R "$TMP/out/compare" "$TMP/$name/"; fi
}
MAN="$TMP/store/demo/feature%2Fx/$HEAD/tb/manifest.json"

# the base: main's run of both benchmarks, outside CI
(cd "$TMP/nogit" && GIT_CEILING_DIRECTORIES="$TMP" "$BENCHPROF" run \
  -o "$TMP/base" --bmf "$TMP/base.json" $opts --branch main --hash $BASE \
  -- "$TMP/harness.sh" "$TMP/base.json" parse render) \
  >"$TMP/base.out" 2>"$TMP/base.err"
check "base: published" [ $? -eq 0 ] && [ -f "$TMP/store/demo/main/$BASE/tb/manifest.json" ]

# two steps of run 1001: parse, then render
step s1 1001 parse
check "step 1: exit 0" [ $status -eq 0 ]
check "step 1: stored" grep -q '"parse"' "$MAN"
step s2 1001 render
check "step 2: exit 0" [ $status -eq 0 ]

# union FILE NAME=RUNDIR...: the stored manifest FILE has exactly these
# benchmarks, each with the artifacts its run directory's manifest lists
# (same SHA-256, the stored bytes hash to it), its whole-run profile
# under its own step's part; the steps are listed oldest first
union() {
  python3 - "$TMP/store" "$@" <<'PY'
import hashlib, json, os, sys
root, man = sys.argv[1], sys.argv[2]
want = dict(a.split("=", 1) for a in sys.argv[3:])
m = json.load(open(man))
got = {b["name"]: b for b in m["benchmarks"]}
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
steps = m["publication"]["steps"]
assert [s["step"] for s in steps] == \
    sorted({b["step"] for b in got.values()},
           key=[s["step"] for s in steps].index), steps
parts = set()
for name, rundir in want.items():
    run = json.load(open(os.path.join(rundir, "manifest.json")))
    mine = {a["kind"]: a["sha256"] for a in
            next(b for b in run["benchmarks"] if b["name"] == name)["artifacts"]}
    b = got[name]
    assert {a["kind"]: a["sha256"] for a in b["artifacts"]} == mine, name
    for a in b["artifacts"]:
        data = open(os.path.join(root, a["key"]), "rb").read()
        assert hashlib.sha256(data).hexdigest() == a["sha256"], a
        k = a["key"].split("/")
        assert k[4] == "~run" and k[5] == b["step"], a["key"]
        assert k[5].startswith("step-") and len(k) == 7, a["key"]
        parts.add(k[5])
    assert m["results"][name]["latency"]["value"] == 5, m["results"]
    assert b["step"] in [s["step"] for s in steps], b
assert len(parts) == len(want), parts   # one part per step
assert m["publication"]["identity"]["ci_run"]["id"], m["publication"]
PY
}
check "steps of one run: the stored manifest holds both, with their bytes" \
  union "$MAN" parse="$TMP/s1" render="$TMP/s2"
check "steps of one run: two steps listed, the latest's facts on top" \
  python3 - "$MAN" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
s = m["publication"]["steps"]
assert len(s) == 2 and s[0]["ci_run"]["id"] == "1001", s
assert s[0]["benchmarks"] == 1 and s[1]["outcome"] == "passed", s
assert "render" in m["command"] and "render" in s[1]["command"], m["command"]
assert "parse" in s[0]["command"], s
PY
check "steps of one run: every stored artifact is there" store_ok "$TMP/store"
check "steps of one run: the run's page lists both benchmarks" sh -c \
  "grep -q '>parse<' '$TMP/store/demo/feature%2Fx/$HEAD/tb/index.html' &&
   grep -q '>render<' '$TMP/store/demo/feature%2Fx/$HEAD/tb/index.html'"
# the viewer's page of the run lists both too
"$BENCHPROF" serve --port 0 "$TMP/store" >"$TMP/serve.out" \
  2>"$TMP/serve.err" &
PIDS="$PIDS $!"
wait_line "$TMP/serve.out" "^serving .* at http://127" 10
SERVE=$(sed -n 's|^serving .* at \(http://127\.0\.0\.1:[0-9]*/\)$|\1|p' \
  "$TMP/serve.out")
check "steps of one run: the viewer's run page lists both benchmarks" \
  python3 - "${SERVE}demo/feature%252Fx/$HEAD/tb/" <<'PY'
import sys, urllib.request
page = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
assert ">parse<" in page and ">render<" in page, page[-2000:]
PY
check "step 2's comment covers both steps" python3 - \
  "$TMP/s2/compare/compare.json" "$TMP/s2/compare/comment.md" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
names = sorted(b["name"] for b in c["benchmarks"])
assert names == ["parse", "render"], names
assert all(b["presence"] == "both" for b in c["benchmarks"]), c["benchmarks"]
md = open(sys.argv[2]).read()
assert "parse" in md and "render" in md, md
PY
check "step 2 compared the stored (merged) head, each step's diff apart" \
  python3 - "$TMP/s2/compare" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["head"]["dir"].endswith("/.sides/head"), c["head"]
assert c["head"]["manifest_url"].endswith("/tb/manifest.json"), c["head"]
dirs = {b["name"]: b.get("dir") for b in c["benchmarks"]}
assert dirs["parse"].startswith("~run/step-") and dirs["render"] == ".", dirs
PY

# a third step of the same run replaces its own benchmark, keeps the other
step s3 1001 parse
check "step 3: exit 0" [ $status -eq 0 ]
check "a later step replaces a same-named benchmark, keeps the rest" \
  union "$MAN" parse="$TMP/s3" render="$TMP/s2"

# another run id: replaces
step r2 1002 parse
check "run 1002: exit 0" [ $status -eq 0 ]
check "another run id replaces the stored run" \
  union "$MAN" parse="$TMP/r2"

# outside CI: replaces as before, its whole-run profile under ~run/
step local "" render
check "local run: exit 0" [ $status -eq 0 ]
check "a run outside CI replaces the stored run, keys as before" \
  python3 - "$MAN" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert [b["name"] for b in m["benchmarks"]] == ["render"], m["benchmarks"]
b = m["benchmarks"][0]
assert "step" not in b and "steps" not in m["publication"], m["publication"]
assert m["publication"]["identity"]["ci_run"] is None, m["publication"]
for a in b["artifacts"]:
    assert a["key"].split("/")[4:] == ["~run", a["file"]], a["key"]
PY
check "every stored artifact is still there" store_ok "$TMP/store"
finish
