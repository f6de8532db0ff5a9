#!/bin/sh
# A reused output directory shows only the new run's benchmarks: run 1
# marks alpha and beta, run 2 only beta: alpha/ (its profiles) is gone,
# also when benchprof-wrap --new-job came between (it moves the manifest
# aside; the next run still removes what it lists).  Never removed: a
# file benchprof did not write (alpha/notes.txt stays, and alpha/ with
# it), a directory no manifest lists, what a listed name that is a
# symbolic link points to.
. "$top_srcdir/tests/lib.sh"
outside_ci
unset BENCHPROF_CONFIG BENCHPROF_OUTPUT BENCHPROF_RUN_ARGS
cat >"$TMP/marked.sh" <<'SH'
#!/bin/sh
for n in "$@"; do
  echo "begin - $n" >"$BENCHPROF_CONTROL"
  i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done
  echo "end -" >"$BENCHPROF_CONTROL"
done
SH
chmod +x "$TMP/marked.sh"
O="$TMP/out"
run() {
  "$BENCHPROF" run --no-publish -o "$O" -- "$TMP/marked.sh" "$@" \
    >>"$TMP/run.out" 2>>"$TMP/run.err"
}
listed() {
  python3 - "$O/manifest.json" "$@" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
names = sorted(b["name"] for b in m.get("benchmarks", []))
assert names == sorted(sys.argv[2:]), names
PY
}

run alpha beta
check "run 1: alpha/ and beta/ written" sh -c \
  "[ -f '$O/alpha/profile.pb.gz' ] && [ -f '$O/beta/profile.pb.gz' ]"
run beta
check "run 2 (beta only): exit 0" [ $? -eq 0 ]
check "run 2: alpha/ removed" [ ! -e "$O/alpha" ]
check "run 2: beta/ written" [ -f "$O/beta/profile.pb.gz" ]
check "run 2: the manifest lists beta only" listed beta

# --new-job between two runs (the started hooks)
run alpha beta
mkdir -p "$O/mine"
echo "keep me" >"$O/mine/data.txt"
BENCHPROF_OUTPUT=$O "$top_srcdir/runner-hooks/benchprof-wrap" --new-job
check "--new-job: no manifest.json left" [ ! -e "$O/manifest.json" ]
run beta
check "--new-job, then beta only: alpha/ removed" [ ! -e "$O/alpha" ]
check "--new-job, then beta only: beta/ written" [ -f "$O/beta/profile.pb.gz" ]
check "--new-job: nothing of the moved manifest left" \
  [ ! -e "$O/.previous-manifest.json" ]
check "a directory no manifest lists stays" grep -q "keep me" \
  "$O/mine/data.txt"

# a user's file in a benchmark's directory keeps it (the profiles go)
run alpha beta
echo "my notes" >"$O/alpha/notes.txt"
run beta
check "alpha/notes.txt (not benchprof's) stays" grep -q "my notes" \
  "$O/alpha/notes.txt"
check "alpha/'s profiles removed" sh -c \
  "[ ! -e '$O/alpha/profile.pb.gz' ] && [ ! -e '$O/alpha/summary.json' ]"
rm -rf "$O/alpha"

# a listed benchmark directory that is a symbolic link: never followed
mkdir -p "$TMP/elsewhere"
echo "theirs" >"$TMP/elsewhere/profile.pb.gz"
ln -s "$TMP/elsewhere" "$O/gamma"
python3 - "$O/manifest.json" <<'PY'
import json, sys
p = sys.argv[1]
m = json.load(open(p))
m["benchmarks"].append({"name": "gamma", "profile": "gamma",
    "artifacts": [{"file": "gamma/profile.pb.gz", "kind": "pprof"}]})
json.dump(m, open(p, "w"), indent="\t")
PY
run beta
check "a listed name that is a link: what it points to stays" grep -q \
  theirs "$TMP/elsewhere/profile.pb.gz"
check "run: exit 0 throughout" sh -c "! grep -q 'error' '$TMP/run.err'"
finish
