#!/bin/sh
# symbols.preload: the symbol tables of the modules a command maps are
# read while it runs (summary.json symbol_tables.preloaded), and the
# profile names the same functions as when they are read after its end:
# shlib's bpwork_hot in the libbpwork.so it is linked with, bpplugin_hot
# in the libbpplugin.so it dlopens later.  Off by default, on from the
# environment or the configuration file, never with debuginfod servers.
# Sharing one CPU with the command and a busy loop, the preload thread
# (at SCHED_IDLE) gets little of it: what it did not read by the end is
# read after it, and the profile loses nothing.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload shlib libbpwork.so libbpplugin.so
need taskset "apt-get install util-linux"
shlib="$WORKLOADS/shlib"
plugin="$WORKLOADS/libbpplugin.so"

# both functions named, in their libraries, no library frame unresolved
names_ok() {
  pycheck "$1: bpwork_hot and bpplugin_hot named in their libraries" \
    "$TMP/$1" <<'PY'
import sys
import artifacts as A
a = A.load_dir(sys.argv[1])
bad = A.expect_in_dso(a, "bpwork_hot", "libbpwork.so", 30) + \
    A.expect_in_dso(a, "bpplugin_hot", "libbpplugin.so", 30)
unresolved = sorted({f for st in A.gecko_stacks(a["gecko"]) for f in st.frames
                     if f.startswith("0x")})
assert not bad and not unresolved, (bad, unresolved)
PY
}

BENCHPROF_SYMBOLS_PRELOAD=true record on -q --all-user -- \
  "$shlib" 0.3 "$plugin"
expect_status on 0
validate on
names_ok on

record off -q --all-user -- "$shlib" 0.3 "$plugin"
expect_status off 0
names_ok off

# the counts, on a command that leaves the CPUs idle: the thread, at
# SCHED_IDLE, may wait long for one while other tests keep them busy
# (three tries, each of a second, before that is called a failure)
for try in 1 2 3; do
  BENCHPROF_SYMBOLS_PRELOAD=true record idle_on -q --all-user -- sleep 1
  expect_status idle_on 0
  grep -q '"preloaded":[4-9]' "$TMP/idle_on/summary.json" && break
done
record idle_off -q --all-user -- sleep 1
expect_status idle_off 0
pycheck "read while it ran: sleep, its loader, libc, the vDSO; off by \
default" <<'PY'
import json, os
def tables(name):
    with open(os.path.join(os.environ["TMP"], name, "summary.json")) as f:
        return json.load(f)["symbol_tables"]
on, off = tables("idle_on"), tables("idle_off")
# "read" counts the modules samples used: a sleeping command has few
assert on["preloaded"] >= 4, on
assert off["preloaded"] == 0, off
PY

# from the configuration file too
printf '{"symbols": {"preload": true}}\n' >"$TMP/conf.json"
record conf -q --all-user --config "$TMP/conf.json" -- "$shlib" 0.1 "$plugin"
expect_status conf 0
check "symbols.preload true in the configuration: modules preloaded" \
  grep -q '"preloaded":[1-9][0-9]*}' "$TMP/conf/summary.json"

# debuginfod servers (nothing listens there): not preloaded, since modules
# no sample needs would be looked up on them
BENCHPROF_SYMBOLS_PRELOAD=true record dbg -q --all-user \
  --debuginfod=http://127.0.0.1:9/ -- "$shlib" 0.1 "$plugin"
expect_status dbg 0
check "with debuginfod: nothing preloaded" \
  grep -q '"preloaded":0}' "$TMP/dbg/summary.json"

# one CPU for benchprof, the command and a busy loop
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
at_exit "kill $hog 2>/dev/null"
BENCHPROF_SYMBOLS_PRELOAD=true taskset -c 0 "$BENCHPROF" record -q \
  --all-user -o "$TMP/starved" -- \
  "$shlib" 0.2 "$plugin" >"$TMP/starved.out" 2>"$TMP/starved.err"
status=$?
kill "$hog"
expect_status starved 0
validate starved
names_ok starved
finish
