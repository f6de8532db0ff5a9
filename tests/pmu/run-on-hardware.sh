#!/bin/sh
# run-on-hardware.sh: benchprof's hardware-counter paths, for real.
#
#   tests/pmu/run-on-hardware.sh [BUILD_DIR]
#
# First asks `benchprof events` whether this kernel opens a hardware event
# (instructions, user space, counting).  Where it does not (a VM without a
# vPMU, most CI runners) it prints "no PMU" and exits 0: there is nothing
# to check.  Where it does, it runs the hardware checks against the real
# PMU and prints a short report, one line per check:
#   cycles     record -e cycles at 997 Hz: the hardware event is used (no
#              software-clock fallback), samples arrive, and the workload's
#              75%/25% split shows in the profile
#   count      stat -C instructions,cycles: both counted, IPC plausible
#   precise    record -e cycles:P: the precision the PMU accepted
#   lbr        record --call-graph lbr: LBR call stacks where the PMU has
#              them (stacks reach main), else the stated fallback to auto
#   multiplex  stat with more hardware counters than a PMU holds: scaled
#              values are marked as such
# Exit status: 0 when every check that ran passed, 1 otherwise.  About a
# minute on a quiet machine; every step is bounded by a timeout.
# Needs the build's benchprof and workloads (make check builds them) and
# python3.  BENCHPROF and WORKLOADS override the paths.
set -u

build=${1:-build}
BENCHPROF=${BENCHPROF:-$build/benchprof}
WORKLOADS=${WORKLOADS:-$build/tests/workloads}
STEP_TIMEOUT=${STEP_TIMEOUT:-60}

if [ ! -x "$BENCHPROF" ] || [ ! -x "$WORKLOADS/split" ]; then
  echo "run-on-hardware: $BENCHPROF or $WORKLOADS/split is missing;" \
       "build with make check first (or give the build directory)" >&2
  exit 2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/bp-hw.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
FAILED=0
REPORT=$TMP/report

line() {
  printf '%-10s %-4s %s\n' "$1" "$2" "$3" >>"$REPORT"
  [ "$2" = FAIL ] && FAILED=$((FAILED + 1))
  return 0
}

bp() {
  timeout "$STEP_TIMEOUT" "$BENCHPROF" "$@"
}

# json FILE EXPR: the Python expression over the document d
json() {
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# 0. does a hardware event open here?
bp events --json instructions >"$TMP/events.json" 2>"$TMP/events.err"
opens=$(json "$TMP/events.json" \
  '[e.get("can_open") for e in d if e["name"] == "perf::PERF_COUNT_HW_INSTRUCTIONS"]')
case $opens in
  *True*) ;;
  *)
    why=$(json "$TMP/events.json" \
      '[e.get("errno_name") for e in d if e["name"] == "perf::PERF_COUNT_HW_INSTRUCTIONS"][0]')
    case $why in
      ENOENT|ENODEV|ENXIO|EOPNOTSUPP)
        echo "no PMU: hardware events do not open on this machine ($why)"
        echo "nothing to check; the fake-PMU tests (tests/pmu/pmu_*.sh)" \
             "cover these paths"
        exit 0
        ;;
    esac
    # a PMU that is there but refuses (EBUSY: another tool holds it,
    # EACCES: perf_event_paranoid) is a failure to look into
    echo "the PMU refused a trial open of instructions (${why:-no answer}):" \
         "$(tail -1 "$TMP/events.err")"
    exit 1
    ;;
esac
case ${LD_PRELOAD:-} in
  *fakepmu*) kind="the fake PMU (LD_PRELOAD)" ;;
  *) kind="a hardware PMU" ;;
esac
echo "PMU opens: $kind on $(uname -m), $(uname -r)"

# 1. cycles sampled by frequency
if bp record -q -o "$TMP/cycles" -e cycles -- "$WORKLOADS/split" 0.5 \
     >/dev/null 2>"$TMP/cycles.err" && [ -f "$TMP/cycles/summary.json" ]; then
  s=$TMP/cycles/summary.json
  used=$(json "$s" 'd["event"]["used"]')
  n=$(json "$s" 'd["samples"]')
  hot=$(json "$s" \
    '[f["self_pct"] for f in d["top_functions"] if f["name"] == "split_hot75"][0]')
  if [ "$used" = cycles ] && [ "${n:-0}" -gt 50 ] &&
     python3 -c "import sys; sys.exit(not 55 <= float(sys.argv[1]) <= 90)" "${hot:-0}"; then
    line cycles ok "cycles sampled, $n samples, split_hot75 ${hot}% (75% expected)"
  else
    line cycles FAIL "event $used, $n samples, split_hot75 ${hot:-none}%"
  fi
else
  line cycles FAIL "record failed: $(tail -1 "$TMP/cycles.err")"
fi

# 2. instructions and cycles counted
bp stat --json -C instructions,cycles -- "$WORKLOADS/split" 0.3 \
  >/dev/null 2>"$TMP/count.json"
ins=$(json "$TMP/count.json" \
  '[c.get("value", 0) for c in d["counters"] if c["slug"] == "instructions"][0]')
ipc=$(json "$TMP/count.json" \
  'round(d["counters"][0]["value"] / d["counters"][1]["value"], 2) if all(c["available"] for c in d["counters"]) else 0')
if python3 -c "import sys; sys.exit(not (float(sys.argv[1]) > 1e7 and 0.05 < float(sys.argv[2]) < 10))" \
     "${ins:-0}" "${ipc:-0}"; then
  line count ok "instructions $ins, $ipc per cycle"
else
  line count FAIL "instructions ${ins:-none}, IPC ${ipc:-none}: $(head -c 300 "$TMP/count.json")"
fi

# 3. the highest precision the PMU accepts
if bp record -q -o "$TMP/precise" -e cycles:P -- "$WORKLOADS/split" 0.2 \
     >/dev/null 2>"$TMP/precise.err"; then
  s=$TMP/precise/summary.json
  p=$(json "$s" 'd["event"]["precise"]["used"] if d["event"]["precise"] else "none"')
  used=$(json "$s" 'd["event"]["used"]')
  if [ "$used" = cycles:P ] && [ "$(json "$s" 'd["samples"] > 0')" = True ]; then
    line precise ok "cycles:P sampled at precise_ip=$p"
  else
    line precise FAIL "event $used, precise_ip $p"
  fi
else
  line precise FAIL "record failed: $(tail -1 "$TMP/precise.err")"
fi

# 4. LBR call stacks, where the PMU has them
if bp record -q -o "$TMP/lbr" --call-graph lbr -- "$WORKLOADS/split" 0.3 \
     >/dev/null 2>"$TMP/lbr.err"; then
  s=$TMP/lbr/summary.json
  cg=$(json "$s" 'd["call_graph"]')
  if [ "$cg" = lbr ]; then
    if grep -q 'main;.*split_hot75' "$TMP/lbr/profile.folded"; then
      line lbr ok "LBR call stacks: split_hot75 under main"
    else
      line lbr FAIL "LBR accepted but no stack reaches main"
    fi
  elif [ "$cg" = auto ]; then
    line lbr ok "no LBR call stacks here; fell back as stated: $(json "$s" 'd["call_graph_fallback"]')"
  else
    line lbr FAIL "call graph $cg"
  fi
else
  line lbr FAIL "record failed: $(tail -1 "$TMP/lbr.err")"
fi

# 5. more hardware counters than a PMU holds at once
many=instructions,cycles,branches,branch-misses,cache-references,cache-misses
many=$many,bus-cycles,ref-cycles,instructions:u,cycles:u,branches:u
bp stat --json -C "$many" -- "$WORKLOADS/split" 0.3 >/dev/null \
  2>"$TMP/many.json"
res=$(json "$TMP/many.json" \
  '"%d counted, %d scaled (lowest %.2f), %d unavailable" % (sum(c["available"] for c in d["counters"]), sum(c["available"] and c["running"] < 1 for c in d["counters"]), min([c["running"] for c in d["counters"] if c["available"]] or [0]), sum(not c["available"] for c in d["counters"]))')
bad=$(json "$TMP/many.json" \
  'sum(c["available"] and not (0 < c["running"] <= 1 and c["value"] >= c["raw"]) for c in d["counters"])')
if [ -n "$res" ] && [ "$bad" = 0 ]; then
  line multiplex ok "$res"
else
  line multiplex FAIL "${res:-stat failed}"
fi

echo
cat "$REPORT"
echo
if [ "$FAILED" -ne 0 ]; then
  echo "$FAILED hardware check(s) failed"
  exit 1
fi
echo "all hardware checks passed"
exit 0
