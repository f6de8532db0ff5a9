#!/bin/sh
# A suite's benchmarks written, hashed, spooled and stored on worker
# threads (parallel.c): 300 marked benchmarks run with BENCHPROF_THREADS=1
# and =4 give the same files with the same bytes in each benchmark's
# directory, a manifest whose artifacts match their sha256, and a file
# store with every artifact; a BENCHPROF_THREADS that is no count is
# said (naming the variable) and the default applies.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

MARK="$top_srcdir/tests/bench/mark_many.py"
# suite NAME THREADS: 300 benchmarks, each spinning 1 ms, into $TMP/NAME
suite() {
  BENCHPROF_THREADS=$2 "$BENCHPROF" run -q -o "$TMP/$1" \
    --store "file://$TMP/store-$1" --spool "$TMP/spool-$1" \
    --project p --branch main --testbed box \
    --hash 0123456789abcdef0123456789abcdef0123456$3 -- \
    python3 "$MARK" 300 1 >"$TMP/$1.out" 2>"$TMP/$1.err"
}
suite one 1 1
check "one thread: exit 0" [ $? -eq 0 ]
suite four 4 2
check "four threads: exit 0" [ $? -eq 0 ]
suite bad abc 3
check "BENCHPROF_THREADS=abc: exit 0" [ $? -eq 0 ]
check "BENCHPROF_THREADS=abc: said, naming the variable" \
  grep -q "warning: BENCHPROF_THREADS='abc' is not a number" "$TMP/bad.err"
check "four threads: no warning" sh -c "! grep -q BENCHPROF_THREADS '$TMP/four.err'"

# the same benchmark directories and files; the bytes that do not depend
# on the samples (each run is its own recording) agree, the rest is
# checked against the manifest
pycheck "one and four threads: the same benchmarks, files and manifest" <<'PY'
import hashlib, json, os
tmp = os.environ["TMP"]
def tree(run):
    out = {}
    for d, _, files in os.walk(os.path.join(tmp, run)):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), os.path.join(tmp, run))
            out[rel] = os.path.join(d, f)
    return out
one, four = tree("one"), tree("four")
assert sorted(one) == sorted(four), set(one) ^ set(four)
benches = [k for k in one if k.endswith("/summary.json")]
assert len(benches) == 300, len(benches)
for run, files in (("one", one), ("four", four)):
    m = json.load(open(os.path.join(tmp, run, "manifest.json")))
    assert len(m["benchmarks"]) == 300, run
    n = 0
    for b in m["benchmarks"]:
        for a in b["artifacts"]:
            data = open(files[a["file"]], "rb").read()
            assert hashlib.sha256(data).hexdigest() == a["sha256"], (run, a)
            n += 1
    assert n >= 1500, n
PY
pycheck "four threads: the store has every artifact" <<'PY'
import json, os
tmp = os.environ["TMP"]
m = json.load(open(os.path.join(tmp, "four", "manifest.json")))
assert m["publication"]["state"] == "delivered", m["publication"]
root = os.path.join(tmp, "store-four")
stored = set()
for d, _, files in os.walk(root):
    stored.update(os.path.relpath(os.path.join(d, f), root) for f in files)
want = sum(len(b["artifacts"]) for b in m["benchmarks"])
have = sum(1 for k in stored if k.count("/") >= 5)
assert have >= want, (have, want)
PY
check "four threads: the spool is empty" \
  [ -z "$(ls -A "$TMP/spool-four" 2>/dev/null | grep -v '^\.')" ]
finish
