#!/bin/sh
# A run whose harness marks its benchmarks publishes the whole run's
# profile too (the one with a marker per benchmark), once, under the run's
# key ({project}/{branch}/{commit}/{testbed}/~run/{file}), with its key and
# URL in the stored manifest; and bencher.console_url (a self-hosted console
# on another host than the API) is where the comment's Bencher links
# point, recorded in the publication.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload hooks_harness
standin bencher
H1=1111111111111111111111111111111111111111
H2=2222222222222222222222222222222222222222
CONSOLE="https://console.bencher.example.org"
unset BENCHPROF_CONFIG GITHUB_ACTIONS GITLAB_CI
export BENCHER_API_TOKEN="$TOKEN"
cat >"$TMP/config.json" <<JSON
{"store": {"url": "file://$TMP/store"}, "spool": "$TMP/spool",
 "bencher": {"host": "$BENCHER_URL", "console_url": "$CONSOLE",
             "project": "demo", "testbed": "box"},
 "network": {"retries": 0, "timeout": 5}}
JSON

"$BENCHPROF" run -q --config "$TMP/config.json" -o "$TMP/main" \
  --branch main --hash $H1 -- "$WORKLOADS/hooks_harness" >/dev/null \
  2>"$TMP/main.err"
check "marked run on main: exit 0" [ $? -eq 0 ]
RUN="$TMP/store/demo/main/$H1/box"
check "the whole run's artifacts are stored under ~run" sh -c \
  "for f in profile.json.gz profile.pb.gz profile.folded flamegraph.svg \
     summary.json; do [ -s '$RUN/~run/'\$f ] || exit 1; done"
check "the stored whole-run profile is the run's, with its markers" \
  python3 - "$RUN" "$TMP/main" <<'PY'
import gzip, hashlib, json, os, sys
run, local = sys.argv[1:]
m = json.load(open(os.path.join(run, "manifest.json")))
arts = {a["file"]: a for a in m["artifacts"]}
assert "profile.json.gz" in arts, m.keys()
for f, a in arts.items():
    data = open(os.path.join(run, "~run", f), "rb").read()
    assert hashlib.sha256(data).hexdigest() == a["sha256"], f
    assert a["key"] == "demo/main/%s/box/~run/%s" % (m["publication"]
        ["identity"]["hash"], f), a
    assert a["url"].endswith("/box/~run/" + f), a
g = json.loads(gzip.decompress(open(os.path.join(run, "~run",
                                                 "profile.json.gz"),
                                    "rb").read()))
names = json.dumps(g)
for b in ("alpha", "beta", "gamma"):
    assert b in names, b
assert m["publication"]["bencher"]["console"] == \
    "https://console.bencher.example.org", m["publication"]["bencher"]
PY
check "each benchmark's own artifacts still stored" sh -c \
  "for b in alpha beta gamma; do [ -s '$RUN/'\$b/profile.json.gz ] || exit 1; done"
check "the store's manifests match their artifacts" store_ok "$TMP/store"

"$BENCHPROF" run -q --config "$TMP/config.json" -o "$TMP/pr" \
  --branch feature --hash $H2 --base-branch main --base-hash $H1 -- \
  "$WORKLOADS/hooks_harness" >/dev/null 2>"$TMP/pr.err"
check "pull request run: exit 0" [ $? -eq 0 ]
check "the comment's Bencher links point at the console" sh -c \
  "grep -q '$CONSOLE/perf/' '$TMP/pr/compare/comment.md' &&
   ! grep -q '$BENCHER_URL/perf/' '$TMP/pr/compare/comment.md'"
check "no token anywhere" no_token "$TMP/store" "$TMP/main" "$TMP/pr" \
  "$TMP"/*.err
finish
