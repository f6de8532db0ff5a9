#!/bin/sh
# benchprof run publishes its report to Bencher (a stand-in that validates
# every body against Bencher's OpenAPI document): one valid report with
# the identity, counter measures created once (409 the second time), a
# pull request's start point, the report uuid in the run's manifest, and
# the token in no output, file, spool or store.  A pull request from main
# (to release) reports on its own branch, never main.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

standin bencher
make_harness
HASH=0123456789abcdef0123456789abcdef01234567
BASE=89abcdef0123456789abcdef0123456789abcdef
export BENCHER_API_TOKEN="$TOKEN" BENCHER_HOST="$BENCHER_URL"
STORE="$TMP/store"
common="--project demo --testbed ci-box --store file://$STORE --spool $TMP/spool --retries 2 --timeout 5"

# 1. main branch, a known commit
"$BENCHPROF" run -o "$TMP/out1" --bmf "$TMP/h.json" --branch main \
  --hash "$HASH" $common -- "$TMP/harness.sh" "$TMP/h.json" \
  >"$TMP/stdout1" 2>"$TMP/stderr1"
check "run exits 0" [ $? -eq 0 ]
check "the report uuid is announced" grep -q "published: Bencher report" \
  "$TMP/stderr1"

# 2. a pull request from its base; the same measures again (409)
"$BENCHPROF" run -o "$TMP/out2" --bmf "$TMP/h.json" --branch "feature/x" \
  --hash "$HASH" --base-branch main --base-hash "$BASE" $common -- \
  "$TMP/harness.sh" "$TMP/h.json" >"$TMP/stdout2" 2>"$TMP/stderr2"
check "pull request run exits 0" [ $? -eq 0 ]

check "the stand-in got two valid reports, measures once, and the uuids \
are in the manifests" python3 - "$TMP" "$HASH" "$BASE" <<'PY'
import json, sys
tmp, h, base = sys.argv[1:]
log = [e for e in json.load(open(tmp + "/bencher.log")) if "path" in e]
runs = [e for e in log if e["path"] == "/v0/run"]
assert len(runs) == 2, runs
for e in log:
    assert e.get("auth_ok"), e
    assert e.get("valid"), e.get("errors")
b1, b2 = runs[0]["body"], runs[1]["body"]
assert b1["project"] == "demo" and b1["branch"] == "main", b1
assert b1["hash"] == h and b1["testbed"] == "ci-box", b1
assert b1["settings"] == {"adapter": "json"}, b1
assert "start_point" not in b1, b1
res = json.loads(b1["results"][0])
assert res["sort/1k"]["latency"]["value"] == 1234.5, res
assert "task-clock" in res["sort/1k"], res
assert b2["branch"] == "feature/x", b2
assert b2["start_point"]["branch"] == "main", b2
assert b2["start_point"]["hash"] == base, b2
assert b1["idempotency_key"] != b2["idempotency_key"]
meas = [e for e in log if e["path"] == "/v0/projects/demo/measures"]
made = sorted(e["body"]["slug"] for e in meas if e["status"] == 201)
again = sorted(e["body"]["slug"] for e in meas if e["status"] == 409)
assert "task-clock" in made and "page-faults" in made, made
assert made == again, (made, again)  # the second run: 409 for each
units = {e["body"]["slug"]: e["body"]["units"] for e in meas}
assert units["task-clock"] == "nanoseconds", units
assert "latency" not in units and "throughput" not in units, units
for i, out in ((0, "out1"), (1, "out2")):
    pub = json.load(open("%s/%s/manifest.json" % (tmp, out)))["publication"]
    assert pub["state"] == "delivered", pub
    assert pub["report_uuid"] == runs[i]["report_uuid"], (pub, runs[i])
    assert pub["manifest_url"].startswith("file://"), pub
PY

check "the stored manifest names the report" python3 - "$TMP" <<'PY'
import glob, json, sys
tmp = sys.argv[1]
log = [e for e in json.load(open(tmp + "/bencher.log")) if "path" in e]
uuids = {e["report_uuid"] for e in log if e["path"] == "/v0/run"}
mans = glob.glob(tmp + "/store/demo/*/*/ci-box/manifest.json")
assert len(mans) == 2, mans
for m in mans:
    pub = json.load(open(m))["publication"]
    assert pub["bencher"]["report_uuid"] in uuids, pub
PY
check "the store is consistent" store_ok "$STORE"
check "the spool is empty" sh -c "[ -z \"\$(ls '$TMP/spool')\" ]"

check "the stand-in refuses what Bencher would" python3 - "$BENCHER_URL" \
  "$TOKEN" <<'PY'
import json, sys, urllib.request, urllib.error
url, token = sys.argv[1:]
good = {"branch": "main", "testbed": "t", "start_time": "2026-11-29T20:00:00Z",
        "end_time": "2026-11-29T20:00:01Z",
        "results": ['{"b": {"latency": {"value": 1}}}'],
        "idempotency_key": "8c1b7f36-0d1e-4c54-9b8e-6a1f2d3c4b5a"}
def post(body, tok=token, path="/v0/run"):
    req = urllib.request.Request(url + path, json.dumps(body).encode(),
        {"Content-Type": "application/json",
         "Authorization": "Bearer " + tok})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
bad = [dict(good, start_time="yesterday"), dict(good, idempotency_key="k"),
       dict(good, results=['{"b": {"latency": {}}}']),
       dict(good, settings={"adapter": "nope"}), dict(good, hash="abc"),
       {k: v for k, v in good.items() if k != "end_time"},
       dict(good, start_point={"branch": 5})]
for b in bad:
    st, ans = post(b)
    assert st == 400 and ans["message"] and ans["request_id"], (b, st, ans)
assert post(good, tok="wrong")[0] == 401
st, a = post({"name": "X"}, path="/v0/projects/p/measures")
assert st == 400, (st, a)
st1, r1 = post(good)
st2, r2 = post(good)
assert st1 == st2 == 201 and r1["uuid"] == r2["uuid"], (r1, r2)
PY

# 3. without a token: no Bencher report, one note says so
unset BENCHER_API_TOKEN
"$BENCHPROF" run -o "$TMP/out3" --bmf "$TMP/h.json" --branch main \
  $common -- "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/stderr3"
check "no token: run exits 0" [ $? -eq 0 ]
check "no token: a note says so" grep -q "no Bencher report" "$TMP/stderr3"
check "no token: nothing more reached the stand-in" python3 - "$TMP" <<'PY'
import json, sys
log = [e for e in json.load(open(sys.argv[1] + "/bencher.log"))
       if e.get("path") == "/v0/run" and e.get("valid")]
assert len(log) == 4, log  # two runs, two posts by the check above
PY

# 3b. a token Bencher refuses: spooled, and the note names the variable
MY_TOKEN="wrong-$TOKEN" "$BENCHPROF" run -o "$TMP/out3b" --bmf "$TMP/h.json" \
  --branch main --token-env MY_TOKEN $common --spool "$TMP/spool3b" -- \
  "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/stderr3b"
check "a refused token: run exits 0" [ $? -eq 0 ]
check "a refused token: the note names its variable" grep -q \
  "Bencher refused the API token from \$MY_TOKEN" "$TMP/stderr3b"
check "a refused token: never printed" sh -c \
  "! grep -qF -e '$TOKEN' '$TMP/stderr3b'"
# flush of what it spooled, the token still refused: said once, the same
MY_TOKEN="wrong-$TOKEN" "$BENCHPROF" flush --spool "$TMP/spool3b" \
  --token-env MY_TOKEN --retries 0 >"$TMP/stdout3f" 2>"$TMP/stderr3f"
check "a refused token, flush: exit 1" [ $? -eq 1 ]
check "a refused token, flush: the note names its variable" grep -q \
  "Bencher refused the API token from \$MY_TOKEN (--token-env, bencher.token_env; HTTP 401)" \
  "$TMP/stderr3f"
check "a refused token, flush: never printed" sh -c \
  "! grep -qF -e '$TOKEN' '$TMP/stdout3f' '$TMP/stderr3f'"
printf '{"bencher": {"token": "wrong-%s"}}\n' "$TOKEN" >"$TMP/tok.json"
chmod 600 "$TMP/tok.json"
"$BENCHPROF" run --config "$TMP/tok.json" -o "$TMP/out3c" --bmf "$TMP/h.json" \
  --branch main $common --spool "$TMP/spool3c" -- \
  "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/stderr3c"
check "a refused token from the file: the note says bencher.token" grep -q \
  "Bencher refused the API token in the configuration's bencher.token" \
  "$TMP/stderr3c"

# 4. --token-env names another variable; -v shows requests, redacted
MY_TOKEN="$TOKEN" "$BENCHPROF" run -v -o "$TMP/out4" --bmf "$TMP/h.json" \
  --branch main --token-env MY_TOKEN $common -- "$TMP/harness.sh" \
  "$TMP/h.json" >"$TMP/stdout4" 2>"$TMP/stderr4"
check "--token-env: run exits 0" [ $? -eq 0 ]
check "-v shows the request" grep -q "/v0/run" "$TMP/stderr4"
check "-v redacts the token" grep -qi "authorization: <redacted>" \
  "$TMP/stderr4"
# 5. opt-in Firefox Profiler upload (the stand-in plays its public store)
"$BENCHPROF" run -q -o "$TMP/out5" --bmf "$TMP/h.json" --branch main \
  --firefox-upload --firefox-api "$BENCHER_URL" $common -- \
  "$TMP/harness.sh" "$TMP/h.json" 2>"$TMP/stderr5"
check "--firefox-upload: run exits 0" [ $? -eq 0 ]
check "--firefox-upload: the gzipped profile went up, its link is kept" \
  python3 - "$TMP" <<'PY'
import json, os, sys
tmp = sys.argv[1]
log = [e for e in json.load(open(tmp + "/bencher.log"))
       if e.get("path") == "/compressed-store"]
assert len(log) == 1 and log[0]["valid"] and log[0]["status"] == 200, log
link = "https://profiler.firefox.com/public/%s/" % log[0]["profile_token"]
pub = json.load(open(tmp + "/out5/manifest.json"))["publication"]
assert pub["firefox_url"] == link, (pub, link)
stored = json.load(open(pub["manifest_url"][len("file://"):]))
assert stored["publication"]["firefox_url"] == link, stored["publication"]
arts = [a for b in stored["benchmarks"] for a in b["artifacts"]
        if a["kind"] == "firefox-profiler"]
assert arts and arts[0]["firefox_url"] == link, arts
PY
check "without --firefox-upload nothing went to the profiler's store" \
  python3 - "$TMP" <<'PY'
import json, sys
log = [e for e in json.load(open(sys.argv[1] + "/bencher.log"))
       if e.get("path") == "/compressed-store"]
assert len(log) == 1, log  # case 5 only
PY

# 6. a pull request main -> release (GitHub, its event payload): the
# report is on the request's own branch, pr-42:main, starting from
# release; main gets no report of it, and its latest in the store does
# not move
PR_HEAD=fedcba9876543210fedcba9876543210fedcba98
cat >"$TMP/event.json" <<EOF
{"pull_request": {"number": 42,
   "head": {"sha": "$PR_HEAD", "ref": "main"},
   "base": {"sha": "$BASE", "ref": "release"}},
 "repository": {"full_name": "acme/demo", "default_branch": "main"}}
EOF
(outside_ci
 GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request \
 GITHUB_EVENT_PATH="$TMP/event.json" GITHUB_HEAD_REF=main \
 GITHUB_BASE_REF=release GITHUB_REF_NAME=42/merge GITHUB_SHA=$HASH \
 GITHUB_REPOSITORY=acme/demo BENCHER_API_TOKEN="$TOKEN" \
   "$BENCHPROF" run -o "$TMP/out6" \
   --bmf "$TMP/h.json" $common -- "$TMP/harness.sh" "$TMP/h.json" \
   >"$TMP/stdout6" 2>"$TMP/stderr6")
check "pull request from main: run exits 0" [ $? -eq 0 ]
check "pull request from main: says where it publishes" grep -q \
  "published on the branch 'pr-42:main'" "$TMP/stderr6"
check "pull request from main: its own branch, main's history untouched" \
  python3 - "$TMP" "$PR_HEAD" <<'PY'
import json, sys
tmp, head = sys.argv[1:]
log = [e for e in json.load(open(tmp + "/bencher.log")) if "path" in e]
runs = [e["body"] for e in log if e["path"] == "/v0/run" and "body" in e]
pr = runs[-1]
assert pr["branch"] == "pr-42:main" and pr["hash"] == head, pr
assert pr["start_point"]["branch"] == "release", pr
assert pr["start_point"]["reset"] is True, pr
assert not [r for r in runs if r.get("hash") == head and
            r["branch"] != "pr-42:main"], runs
latest = json.load(open(tmp + "/store/demo/main/latest/ci-box.json"))
assert head not in json.dumps(latest), latest
PY

check "the token is in no output, run directory, spool or store" \
  no_token "$TMP/stdout1" "$TMP/stderr1" "$TMP/stdout2" "$TMP/stderr2" \
  "$TMP/stderr3" "$TMP/stdout4" "$TMP/stderr4" "$TMP/out1" "$TMP/out2" \
  "$TMP/out4" "$TMP/stderr6" "$TMP/spool" "$STORE"
finish
