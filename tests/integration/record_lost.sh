#!/bin/sh
# Lost samples are counted and reported, never hidden: benchprof is
# stopped (SIGSTOP) while a busy command fills a one-page ring, so the
# kernel must drop samples; they show on stderr and in summary.json.
. "$top_srcdir/tests/lib.sh"

"$BENCHPROF" record -m 1 -F 10000 -o "$TMP/out" -- \
  "$WORKLOADS/threads" 1.0 >/dev/null 2>"$TMP/stderr" &
bp=$!
sleep 0.2
kill -STOP $bp
sleep 0.5          # the command runs on, nobody drains its ring
kill -CONT $bp
wait $bp
rc=$?
check "benchprof exits with the command's status" [ "$rc" -eq 0 ]
check "stderr warns about the dropped samples" \
  grep -q "the kernel dropped [0-9]* samples" "$TMP/stderr"
check "summary.json counts them" python3 - "$TMP/out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["lost"] > 0 and s["lost_events"] > 0, (s["lost"], s["lost_events"])
assert s["samples"] > 0, s["samples"]
PY
check "the Gecko metadata counts them" python3 - "$TMP/out/profile.json.gz" <<'PY'
import gzip, json, sys
meta = json.load(gzip.open(sys.argv[1]))["meta"]["benchprof"]
assert meta["lost"] > 0, meta
PY
finish
