#!/bin/sh
# A pull request compared with its base through the store, end to end:
# the workload built twice (head: cmp_changed does 4 times the work); the
# base run published as main@BASE, the head run as a pull request of
# feature/x (--base-branch main --base-hash BASE) to a file:// store that
# `benchprof serve` serves over HTTP (the public URL), with a Bencher
# stand-in.  The head run finds its base and writes compare/: the comment
# names cmp_changed as the top regression, the deltas have the right
# signs, and every link decodes back to the stored artifacts' public URLs
# (fetched over HTTP: the same bytes).  A base commit with no run falls
# back to the branch's latest; no base at all: the comment says so.
# `benchprof compare main@latest feature%2Fx@HEAD` reads both sides from
# the store.  `benchprof comment` posts the comment to a GitHub stand-in,
# then edits it (PATCH, no second POST).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

need python3 "apt-get install python3"
need_workload cmpwork_base cmpwork_head
# this test names its own identity: none from the CI it may run in
outside_ci

BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
GONE=3333333333333333333333333333333333333333
mkdir -p "$TMP/b" "$TMP/h" "$TMP/store"
cp "$WORKLOADS/cmpwork_base" "$TMP/b/cmpwork"
cp "$WORKLOADS/cmpwork_head" "$TMP/h/cmpwork"

"$BENCHPROF" serve --port 0 "$TMP/store" >"$TMP/serve.out" \
  2>"$TMP/serve.err" &
PIDS="$PIDS $!"
i=0
PUB=
while [ -z "$PUB" ] && [ $i -lt 200 ]; do
  PUB=$(sed -n 's|^serving .* at \(http://127\.0\.0\.1:[0-9]*/\)$|\1|p' \
    "$TMP/serve.out")
  [ -n "$PUB" ] || sleep 0.05
  i=$((i + 1))
done
[ -n "$PUB" ] || { fail "benchprof serve did not start"; finish; }
standin bencher
export BENCHER_HOST="$BENCHER_URL" BENCHER_API_TOKEN="$TOKEN"

pubopts="--project cmpproj --testbed tb --store file://$TMP/store
  --public-url $PUB --spool $TMP/spool --retries 1 --timeout 10"
# run NAME DIR ARGS...: benchprof run of DIR/cmpwork (600 rounds: enough
# samples that the software clock's spread keeps cmp_changed's growth
# clear, as in compare_e2e.sh) into $TMP/NAME
run() {
  name=$1 dir=$2
  shift 2
  # shellcheck disable=SC2086
  "$BENCHPROF" run -o "$TMP/$name" --adapter json $pubopts "$@" \
    -- "$TMP/$dir/cmpwork" 600 >"$TMP/$name.out" 2>"$TMP/$name.err"
  status=$?
}

run base b --branch main --hash "$BASE"
expect_status base 0
check "a run that is not a pull request compares nothing" \
  test ! -e "$TMP/base/compare"
run head h --branch feature/x --hash "$HEAD" --base-branch main \
  --base-hash "$BASE"
expect_status head 0
check "the head run compares with its base and says so" \
  grep -q "compare with main (111111111111): 1 regression" "$TMP/head.err"
check "and names the function that grew" \
  grep -q "cmpwork: .*(regression); function that grew most: cmp_changed" \
  "$TMP/head.err"
check "and where the comment is" grep -q "compare: .*/compare/comment.md" \
  "$TMP/head.err"

pycheck "compare.json: the deltas have the right signs" <<'PY'
import json, os
c = json.load(open(os.path.join(os.environ["TMP"], "head", "compare",
                                "compare.json")))
assert c["regressions"] == 1 and c["improvements"] == 0, c
b = c["benchmarks"][0]
m = {x["slug"]: x for x in b["measures"]}
assert m["latency"]["delta"] > 0 and m["latency"]["flag"] == "regression"
assert m["throughput"]["delta"] < 0 and m["throughput"]["flag"] == \
    "regression"
assert m["task-clock"]["delta"] > 0 and m["task-clock"]["pct"] > 50, m
assert b["functions"][0]["name"] == "cmp_changed", b["functions"][:2]
assert b["functions"][0]["d_self_pp"] > 10, b["functions"][0]
PY

pycheck "the comment: marker, both commits, cmp_changed on top" <<'PY'
import os, re
md = open(os.path.join(os.environ["TMP"], "head", "compare",
                       "comment.md")).read()
assert md.startswith("<!-- benchprof:comment cmpproj/tb -->"), md[:60]
assert "1 regression confirmed, 0 unconfirmed; 0 improvements confirmed" \
    in md, md[:300]
assert "Comparing `feature/x` (`2222222`) with `main` (`1111111`) on " \
    "testbed `tb`" in md, md[:600]
assert "Grew most: **cmp_changed**" in md, md
rows = md.split("Functions whose cost changed significantly (CPU time per run")[1]
first = [l for l in rows.splitlines() if l.startswith("| ") and
         not l.startswith("| Function")][0]
assert first.startswith("| cmp_changed |"), first
PY

pycheck "the comment says which comparison it is: the head's commit and end" \
  "$HEAD" <<'PY'
import json, os, sys
head = sys.argv[1]
t = os.environ["TMP"]
m = json.load(open(os.path.join(t, "store", "cmpproj", "feature%2Fx",
                                head, "tb", "manifest.json")))
end = m["publication"]["end_time"]
line = open(os.path.join(t, "head", "compare", "comment.md")).read() \
    .splitlines()[1]
# git does not know the made-up commit: no commit time
assert line == "<!-- benchprof:compared head=%s end_time=%s -->" % \
    (head, end), (line, end)
PY

pycheck "every link decodes back to the stored artifacts' public URLs" \
  "$PUB" "$BENCHER_URL" "$BASE" "$HEAD" <<'PY'
import gzip, hashlib, json, os, re, sys, urllib.request
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit, parse_qs, unquote
pub, bencher, base, head = sys.argv[1:5]
t = os.environ["TMP"]
store = os.path.join(t, "store", "cmpproj")
md = open(os.path.join(t, "head", "compare", "comment.md")).read()
links = dict(re.findall(r"\[([^\]]+)\]\(([^)]+)\)", md))

def stored(branch_dir, commit):
    m = json.load(open(os.path.join(store, branch_dir, commit, "tb",
                                    "manifest.json")))
    arts = m["benchmarks"][0]["artifacts"]
    g = [a for a in arts if a["kind"] == "firefox-profiler"][0]
    return m, g

def view(url):
    v = urlsplit(url)
    m = re.fullmatch(r"/from-url/([^/]+)/calltree/", v.path)
    assert (v.scheme, v.netloc) == ("https", "profiler.firefox.com") and m, url
    q = parse_qs(v.query)
    return unquote(m.group(1)), q["thread"], q["profileName"]

cmp = urlsplit(links["Firefox Profiler"])
assert (cmp.netloc, cmp.path) == ("profiler.firefox.com",
                                  "/compare/calltree/"), cmp
views = parse_qs(cmp.query)["profiles[]"]
assert views == [links["base"], links["head"]], views
for (branch_dir, commit), v, label in ((("main", base), views[0], "base"),
                                       (("feature%2Fx", head), views[1],
                                        "head")):
    m, g = stored(branch_dir, commit)
    url, thread, name = view(v)
    assert url == g["url"] and url.startswith(pub), (url, g)
    assert thread == ["0"] and name == [label + ": cmpwork"], (thread, name)
    data = urllib.request.urlopen(url).read()     # served by benchprof serve
    assert hashlib.sha256(data).hexdigest() == g["sha256"], url
    assert json.loads(gzip.decompress(data))["meta"]["version"], url
diff = links["diff"]
assert diff == pub + "cmpproj/feature%252Fx/" + head + "/tb/cmpwork/diff.svg", \
    diff
svg = urllib.request.urlopen(diff).read()
assert svg == open(os.path.join(t, "head", "compare", "diff.svg"), "rb").read()
ET.fromstring(svg)                                  # well-formed
assert b"cmp_changed" in svg
m, _ = stored("feature%2Fx", head)
uuid = m["publication"]["bencher"]["report_uuid"]
assert uuid and links["Bencher report and plots"] == \
    bencher + "/perf/cmpproj/reports/" + uuid, links
PY

pycheck "the Bencher plot link carries the uuids of the stand-in's answer" \
  "$BENCHER_URL" "$HEAD" <<'PY'
import json, os, re, sys
from datetime import datetime
from urllib.parse import urlsplit, parse_qs
bencher, head = sys.argv[1:3]
t = os.environ["TMP"]
log = json.load(open(os.path.join(t, "bencher.log")))
answers = [e["answer"] for e in log
           if e.get("path") == "/v0/run" and e.get("answer")]
by_uuid = {a["uuid"]: a for a in answers}
m = json.load(open(os.path.join(t, "store", "cmpproj", "feature%2Fx",
                                head, "tb", "manifest.json")))
pub = m["publication"]["bencher"]
a = by_uuid[pub["report_uuid"]]
base = [x for x in answers if x["branch"]["name"] == "main"][0]

def ids(answer):
    """benchmark name -> (its uuid, {measure slug: uuid})"""
    out = {}
    for it in answer["results"]:
        for r in it:
            out[r["benchmark"]["name"]] = (
                r["benchmark"]["uuid"],
                {x["measure"]["slug"]: x["measure"]["uuid"]
                 for x in r["measures"]})
    return out

# the stand-in is consistent: a benchmark and a measure keep their uuids
assert ids(a)["cmpwork"] == ids(base)["cmpwork"], (ids(a), ids(base))
assert a["testbed"]["uuid"] == base["testbed"]["uuid"]
assert a["branch"]["uuid"] != base["branch"]["uuid"]
bench_uuid, measure_uuids = ids(a)["cmpwork"]
assert {"latency", "throughput", "task-clock"} <= set(measure_uuids), \
    measure_uuids
# the stored manifest keeps them, and so does the run directory's
assert (pub["project"], pub["branch_uuid"], pub["head_uuid"],
        pub["testbed_uuid"], pub["end_time"]) == \
    (a["project"]["slug"], a["branch"]["uuid"], a["branch"]["head"]["uuid"],
     a["testbed"]["uuid"], a["end_time"]), (pub, a)
kept = {"benchmark_uuid": bench_uuid, "measures": measure_uuids}
assert m["benchmarks"][0]["bencher"] == kept, m["benchmarks"][0]
run = json.load(open(os.path.join(t, "head", "manifest.json")))
assert run["publication"]["report_uuid"] == a["uuid"], run["publication"]
for k in ("project", "branch_uuid", "head_uuid", "testbed_uuid", "end_time"):
    assert run["publication"]["bencher"][k] == pub[k], (k, run["publication"])
assert run["benchmarks"][0]["bencher"] == kept, run["benchmarks"][0]

# the comment's plot: the most changed measure of the benchmark
md = open(os.path.join(t, "head", "compare", "comment.md")).read()
plots = [(l, u) for l, u in re.findall(r"\[([^\]]+)\]\(([^)]+)\)", md)
         if l.startswith("Bencher plot: ")]
assert len(plots) == 1, md
label, url = plots[0]
c = json.load(open(os.path.join(t, "head", "compare", "compare.json")))
flagged = [x for x in c["benchmarks"][0]["measures"] if x["flag"] != "unchanged"]
top = max(flagged, key=lambda x: abs(x["pct"]))["slug"]
assert label == "Bencher plot: " + top, (label, top)
u = urlsplit(url)
# a self-hosted API host: its console is on the same host
assert (u.scheme + "://" + u.netloc, u.path) == (bencher, "/perf/cmpproj"), url
q = parse_qs(u.query, strict_parsing=True)
assert all(len(v) == 1 for v in q.values()), q
q = {k: v[0] for k, v in q.items()}
end = int(datetime.fromisoformat(a["end_time"].replace("Z", "+00:00"))
          .timestamp() * 1000)
assert q == {"branches": a["branch"]["uuid"],
             "heads": a["branch"]["head"]["uuid"],
             "testbeds": a["testbed"]["uuid"], "benchmarks": bench_uuid,
             "measures": measure_uuids[top],
             "start_time": str(end - 30 * 86400 * 1000),
             "end_time": str(end), "report": a["uuid"]}, (q, a)
PY

# the base commit has no run: the base branch's latest stands in
run late h --branch feature/x --hash "$HEAD" --base-branch main \
  --base-hash "$GONE"
expect_status late 0
check "a base commit without a run: main's latest instead" \
  grep -q "base commit 333333333333 has no run; comparing with main's latest" \
  "$TMP/late.err"
check "which is the base run" grep -q "Comparing .* with \`main\` (\`1111111\`)" \
  "$TMP/late/compare/comment.md"
pycheck "the comment says so at its top (the latest run's commit), the verdict provisional" <<'PY'
import os
md = open(os.path.join(os.environ["TMP"], "late", "compare",
                       "comment.md")).read()
lines = md.splitlines()
title = [l for l in lines if l.startswith("### benchprof")]
assert len(title) == 1 and \
    title[0].endswith(" (provisional: base commit not profiled)"), title
at = [i for i, l in enumerate(lines) if l.startswith("Comparing ")]
assert len(at) == 1, at
# right below "Comparing ...", before the summary table
note = "_The base commit `3333333` has no run in the store: compared " \
    "with the latest run of `main` (`1111111`) instead._"
assert lines[at[0] + 1:at[0] + 3] == ["", note], lines[at[0]:at[0] + 3]
assert md.count("has no run in the store") == 1, md
PY
check "the store's page of the run counts one regression in the singular" \
  grep -q "Verdict: .*(1 regression, 0 improvements, " \
  "$TMP/store/cmpproj/feature%2Fx/$HEAD/tb/index.html"
pycheck "the base commit's own run: no such note, nothing provisional" <<'PY'
import os
md = open(os.path.join(os.environ["TMP"], "head", "compare",
                       "comment.md")).read()
assert "has no run in the store" not in md and "provisional" not in md, md
PY

# no base at all: the comment says so, and why; the run still succeeds
run lone h --branch feature/x --hash "$HEAD" --base-branch nowhere \
  --base-hash "$GONE"
expect_status lone 0
pycheck "no base: the comment says so and why" <<'PY'
import os
md = open(os.path.join(os.environ["TMP"], "lone", "compare",
                       "comment.md")).read()
assert md.startswith("<!-- benchprof:comment cmpproj/tb -->"), md[:60]
# the head is the run: its commit and when it ended (run's own clock)
second = md.splitlines()[1]
assert second.startswith("<!-- benchprof:compared head=" + "2" * 40 +
                         " end_time=20") and second.endswith("Z -->"), second
assert "no base to compare with" in md and "`nowhere`" in md, md
assert "has no run on testbed" in md and "latest/tb.json" in md, md
PY

# both sides from the store, by reference
"$BENCHPROF" compare -o "$TMP/refs" --store "file://$TMP/store" \
  --public-url "$PUB" --project cmpproj --testbed tb main@latest \
  "feature%2Fx@$HEAD" >"$TMP/refs.out" 2>"$TMP/refs.err"
status=$?
expect_status refs 0
check "compare by reference: the same regression" \
  grep -q "cmpwork: .*(regression); function that grew most: cmp_changed" \
  "$TMP/refs.err"
pycheck "compare by reference: links and identity as the run's" <<'PY'
import json, os, re
t = os.environ["TMP"]
a = open(os.path.join(t, "refs", "comment.md")).read()
b = open(os.path.join(t, "head", "compare", "comment.md")).read()
la = dict(re.findall(r"\[([^\]]+)\]\(([^)]+)\)", a))
lb = dict(re.findall(r"\[([^\]]+)\]\(([^)]+)\)", b))
for k in ("Firefox Profiler", "base", "head"):
    assert la[k] == lb[k], (k, la.get(k), lb[k])
# the head was published again since (the runs below): its latest report
m = json.load(open(os.path.join(t, "store", "cmpproj", "feature%2Fx",
                                "2" * 40, "tb", "manifest.json")))
uuid = m["publication"]["bencher"]["report_uuid"]
assert la["Bencher report and plots"].endswith("/reports/" + uuid), la
plot = [u for l, u in la.items() if l.startswith("Bencher plot: ")]
assert len(plot) == 1 and plot[0].endswith("&report=" + uuid), la
assert "&heads=" + m["publication"]["bencher"]["head_uuid"] + "&" in plot[0]
assert "Comparing `feature/x` (`2222222`) with `main` (`1111111`)" in a, a
PY
# a store published without a public URL (its artifacts recorded as
# file:// URLs no viewer opens), read with one: the links use it
cp -R "$TMP/store" "$TMP/store-local"
python3 - "$TMP/store-local" <<'PY'
import json, os, sys
for root, _, files in os.walk(sys.argv[1]):
    if "manifest.json" in files:
        f = os.path.join(root, "manifest.json")
        m = json.load(open(f))
        for b in m.get("benchmarks", []):
            for a in b.get("artifacts", []):
                if "url" in a:
                    a["url"] = "file://" + os.path.join(root, a["file"])
        json.dump(m, open(f, "w"))
PY
"$BENCHPROF" compare -o "$TMP/refs-cdn" --store "file://$TMP/store-local" \
  --public-url https://cdn.example/bp --project cmpproj --testbed tb \
  main@latest "feature%2Fx@$HEAD" >/dev/null 2>"$TMP/refs-cdn.err"
check "a file store read with --public-url: exit 0" [ $? -eq 0 ]
pycheck "a file store read with --public-url: links under it" <<'PY'
import json, os, re, urllib.parse
t = os.environ["TMP"]
md = open(os.path.join(t, "refs-cdn", "comment.md")).read()
links = dict(re.findall(r"\[([^\]]+)\]\(([^)]+)\)", md))
base = urllib.parse.unquote(links["base"])
# the artifact's own key under the public URL (an unmarked benchmark's
# are under ~run/, not where the run directory had them)
mdir = os.path.join(t, "store-local", "cmpproj", "main")
keys = []
for sha in os.listdir(mdir):
    f = os.path.join(mdir, sha, "tb", "manifest.json")
    if os.path.isfile(f):
        m = json.load(open(f))
        keys += [a["key"] for b in m["benchmarks"] for a in b["artifacts"]
                 if a["kind"] == "firefox-profiler"]
assert any("/from-url/https://cdn.example/bp/" + k + "/calltree/" in base
           for k in keys), (keys, base)
assert "No viewer links" not in md, md
PY
"$BENCHPROF" compare -o "$TMP/refs2" --store "file://$TMP/store" \
  --project cmpproj --testbed tb "main@$BASE" "feature/x@latest" \
  >/dev/null 2>"$TMP/refs2.err"
check "a literal '/' in the branch and a commit as the base: exit 0" \
  [ $? -eq 0 ]
"$BENCHPROF" compare -o "$TMP/refs3" --store "file://$TMP/store" \
  --project cmpproj --testbed tb main@latest nowhere@latest \
  >/dev/null 2>"$TMP/refs3.err"
check "a branch with no run: exit 1" [ $? -eq 1 ]
check "and it says what was looked for" \
  grep -q "branch 'nowhere' has no run on testbed 'tb'" "$TMP/refs3.err"
"$BENCHPROF" compare -o "$TMP/refs4" --store "file://$TMP/store" \
  main@latest main@abc123 >/dev/null 2>"$TMP/refs4.err"
check "a short hash: exit 2" [ $? -eq 2 ]
check "and why" grep -q "nor a full commit hash" "$TMP/refs4.err"

# the comment on the pull request: posted, then edited in place
GH_TOKEN_VALUE="ghs_standin_token_cmp_pr"
mkdir -p "$TMP/gh"
python3 "$SERVERS/github_standin.py" "$TMP/gh" "$GH_TOKEN_VALUE" 3 \
  2>"$TMP/gh/server.err" &
PIDS="$PIDS $!"
port=$(wait_port "$TMP/gh/port")
[ -n "$port" ] || { fail "the GitHub stand-in did not start"; finish; }
for md in head late; do
  GITHUB_TOKEN=$GH_TOKEN_VALUE "$BENCHPROF" comment \
    --markdown "$TMP/$md/compare/comment.md" --github own/repo --pr 5 \
    --api-url "http://127.0.0.1:$port" >/dev/null 2>"$TMP/gh-$md.err"
  check "benchprof comment ($md): exit 0" [ $? -eq 0 ]
done
pycheck "one POST, then a PATCH of the same comment" <<'PY'
import json, os
d = os.path.join(os.environ["TMP"], "gh")
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
calls = [r["method"] for r in reqs]
# each post also sets the head commit's status (compare.json is beside);
# before each, the pull request's head is asked (this stand-in does not
# know it: 404, posted anyway); once our marker shows up, GET /user says
# whose comment it must be; after the first POST the comments are
# listed again (another job's comment made at the same moment would
# show there); after each status the comment is read again (another
# job's edit would show there)
assert calls == ["GET", "GET", "POST", "GET", "POST", "GET", "GET", "GET",
                 "GET", "PATCH", "POST", "GET"], calls
assert [reqs[i]["path"] for i in (0, 6, 8)] == \
    ["/repos/own/repo/pulls/5"] * 2 + ["/user"], reqs
assert reqs[3]["path"] == "/repos/own/repo/issues/5/comments", reqs
assert [reqs[i]["path"].rsplit("/", 2)[1] for i in (5, 11)] == \
    ["comments"] * 2, reqs
assert [reqs[i]["status"] for i in (0, 6)] == [404, 404], reqs
assert [r["path"].split("/")[4] for r in reqs if r["method"] == "POST"] == \
    ["issues", "statuses", "statuses"], reqs
st = json.load(open(os.path.join(d, "statuses.json")))
c = json.load(open(os.path.join(os.environ["TMP"], "late", "compare",
                                "compare.json")))
assert [x["sha"] for x in st][-1] == c["head"]["hash"], (st, c["head"])
assert st[-1]["state"] == ("failure" if c["regressions"] else "success"), st
assert st[-1]["context"] == "benchprof", st
state = json.load(open(os.path.join(d, "state.json")))
ours = [c for c in state if "benchprof:comment cmpproj/tb" in c["body"]]
assert len(ours) == 1 and len(state) == 4, state
late = open(os.path.join(os.environ["TMP"], "late", "compare",
                         "comment.md")).read()
# the file as it is, then the verdict line of its compare.json
verdict = "<!-- benchprof:verdict head=%s regressions=%d unconfirmed=%d" \
    " -->\n" % (c["head"]["hash"], c["regressions"],
                c.get("unconfirmed_regressions", 0))
assert ours[0]["body"] == late + ("" if late.endswith("\n") else "\n") + \
    verdict, (ours[0]["body"][-200:], verdict)
PY
finish
