# Helpers of the fake-PMU tests (tests/pmu/pmu_*.sh); sourced after
# tests/lib.sh and tests/record_lib.sh.  $BENCHPROF becomes a wrapper that
# runs benchprof under the fake PMU (tests/pmu/fakepmu.c) with the knobs
# of the last `knobs` call; each run starts a new attribute log,
# $FAKEPMU_LOG, which fakelog.py reads.

FAKEPMU_SO=$top_builddir/tests/pmu/libfakepmu.so
if [ ! -f "$FAKEPMU_SO" ]; then
  fail "the fake PMU library $FAKEPMU_SO was not built"
  finish
fi
REAL_BENCHPROF=$BENCHPROF
FAKEPMU_LOG=$TMP/attrs.log
KNOBS=$TMP/knobs
: >"$KNOBS"
PYTHONPATH="$top_srcdir/tests/pmu:$PYTHONPATH"
export REAL_BENCHPROF FAKEPMU_SO FAKEPMU_LOG KNOBS PYTHONPATH
# the fake comes first among the libraries, before an ASan runtime
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

cat >"$TMP/benchprof-fake" <<'SH'
#!/bin/sh
: >"$FAKEPMU_LOG"
# shellcheck disable=SC2046 # one knob per word
exec env LD_PRELOAD="$FAKEPMU_SO" FAKEPMU_LOG="$FAKEPMU_LOG" \
  $(cat "$KNOBS") "$REAL_BENCHPROF" "$@"
SH
chmod +x "$TMP/benchprof-fake"
BENCHPROF=$TMP/benchprof-fake

# knobs [FAKEPMU_X=V...]: the fake's settings for the next runs
knobs() {
  printf '%s\n' "$@" >"$KNOBS"
}

# pmu_note: says so when this machine has a real PMU (the fake replaces
# it all the same; on CI runners hardware events fail without it)
pmu_note() {
  if [ -e /sys/bus/event_source/devices/cpu ] ||
     [ -e /sys/bus/event_source/devices/cpu_core ]; then
    echo "note: this machine has a PMU; the fake still replaces it"
  fi
}
