#!/bin/sh
# Counting as an unprivileged user under perf_event_paranoid >= 2: user
# space only, and a counter that only counts in the kernel
# (context-switches) is reported unavailable with the reason, never 0.
. "$top_srcdir/tests/lib.sh"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv >/dev/null ||
    { echo "FAIL: setpriv (util-linux) is needed to drop privileges"; exit 1; }
  # a copy nobody can reach, wherever the build tree lives
  chmod 755 "$TMP"
  cp "$BENCHPROF" "$TMP/benchprof"
  run_as() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
  cp "$BENCHPROF" "$TMP/benchprof"
  run_as() { "$@"; }
fi

run_as "$TMP/benchprof" stat --json -C context-switches,task-clock -- \
  sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
  2>"$TMP/stat.json" >/dev/null
check "stat runs unprivileged" [ $? -eq 0 ]
check "kernel-only counters follow what the kernel permits" \
  python3 - "$TMP/stat.json" "$paranoid" <<'PY'
import json, sys
c = {x["slug"]: x for x in json.load(open(sys.argv[1]))["counters"]}
paranoid = int(sys.argv[2])
assert c["task-clock"]["available"] and c["task-clock"]["value"] > 0, c
cs = c["context-switches"]
if paranoid >= 2:
    assert not cs["available"] and "value" not in cs, cs
    assert "kernel" in cs["reason"], cs
else:
    assert cs["available"], cs
PY
finish
