#!/bin/sh
# JIT code: samples in anonymous executable memory are named from the
# process's /tmp/perf-PID.map, as perf does.
. "$top_srcdir/tests/lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
  echo "SKIP: the jit workload writes x86-64 machine code"
  exit 77
fi

out=$TMP/out
"$BENCHPROF" record -q -o "$out" -- "$WORKLOADS/jit" 0.6 >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
check "jit workload exits 0 under benchprof" [ "$rc" -eq 0 ]
map=$(cat "$TMP/stdout")
check "the workload wrote its map" [ -f "$map" ]

jit_samples=$(awk '/jit_hot_loop/ { n += $NF } END { print n + 0 }' \
  "$out/profile.folded")
total=$(awk '{ n += $NF } END { print n + 0 }' "$out/profile.folded")
check "jit_hot_loop is named in the folded stacks" [ "$jit_samples" -gt 0 ]
# the loop is nearly all the work: most samples must land in it
check "jit_hot_loop holds most samples ($jit_samples of $total)" \
  [ $((jit_samples * 100)) -ge $((total * 60)) ]
check "the JIT frame is attributed to the map file" \
  python3 - "$out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
top = [f for f in s["top_functions"] if f["name"] == "jit_hot_loop"]
sys.exit(0 if top and top[0]["lib"].startswith("perf-") and
         top[0]["lib"].endswith(".map") else 1)
PY
rm -f "$map"
finish
