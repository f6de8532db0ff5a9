#!/bin/sh
# benchprof run --flush tries the spool of the run's own configuration:
# - run --config FILE (no BENCHPROF_CONFIG): the flush after the run
#   reads FILE too, and delivers what waits in FILE's spool, not the
#   default configuration's;
# - run --spool DIR: the flush sends DIR's;
# - a setup that fails before the command (--keep-status: the command
#   then replaces benchprof run) still flushes, before the command;
# - a spool directory that does not exist has nothing to flush: run's
#   --flush says nothing then (a note at -v); flush --spool typed for it
#   stays an error.
. "$top_srcdir/tests/lib.sh"

unset BENCHPROF_CONFIG BENCHPROF_SPOOL BENCHPROF_OUTPUT
XDG_CONFIG_HOME=$TMP/xdg-config
export XDG_CONFIG_HOME
HASH=0123456789abcdef0123456789abcdef01234567

cat >"$TMP/cfg.json" <<JSON
{"enabled": true, "output": "$TMP/out", "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"project": "demo", "testbed": "box"},
 "network": {"retries": 0, "timeout": 5}, "comment": {"enabled": false}}
JSON
cat >"$TMP/harness.sh" <<'SH'
#!/bin/sh
echo '{"b": {"latency": {"value": 1}}}'
SH
chmod +x "$TMP/harness.sh"

# run_cfg NAME [OPTIONS...]: a run with the configuration file given as
# --config only; its stderr in $TMP/NAME.err, status in $rc
run_cfg() {
  name=$1
  shift
  "$BENCHPROF" run -q --config "$TMP/cfg.json" --no-bencher --no-counters \
    --adapter json --branch main --hash "$HASH" "$@" -- "$TMP/harness.sh" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
}

# spooled DIR ID: publication ID (not empty) waits in spool DIR
spooled() {
  [ -n "$2" ] && [ -e "$1/$2" ]
}

# spooled: the store is a file, not a directory, while the runs publish
: >"$TMP/store"
run_cfg spool1
check "a run whose store cannot be written exits 0 ($rc)" [ "$rc" -eq 0 ]
id1=$(sed -n "s/.*publication spooled as \([^ ]*\) in .*/\1/p" \
  "$TMP/spool1.err")
check "its publication is spooled in the configuration's spool" \
  spooled "$TMP/spool" "$id1"
run_cfg spool2 --spool "$TMP/spool2"
id2=$(sed -n "s/.*publication spooled as \([^ ]*\) in .*/\1/p" \
  "$TMP/spool2.err")
check "a run with --spool DIR spools in DIR" \
  spooled "$TMP/spool2" "$id2"

# the store reachable again: a run that publishes nothing, with --flush
rm -f "$TMP/store"
mkdir "$TMP/store"
run_cfg flush1 --no-publish --flush
check "run --config FILE --flush exits 0 ($rc)" [ "$rc" -eq 0 ]
check "its flush delivered the publication spooled in FILE's spool" \
  grep -q "^$id1" "$TMP/flush1.err"
check "nothing of it waits in the spool" [ ! -e "$TMP/spool/$id1" ]
check "the default spool is not the one flushed" sh -c \
  "! grep -q 'xdg-state' '$TMP/flush1.err'"
check "the store has the run's manifest" \
  [ -f "$TMP/store/demo/main/$HASH/box/manifest.json" ]
check "the other spool's publication is left for its own flush" \
  [ -e "$TMP/spool2/$id2" ]

run_cfg flush2 --no-publish --spool "$TMP/spool2" --flush
check "run --spool DIR --flush exits 0 ($rc)" [ "$rc" -eq 0 ]
check "its flush delivered DIR's publication" grep -q "^$id2" \
  "$TMP/flush2.err"
check "nothing of it waits in DIR" [ ! -e "$TMP/spool2/$id2" ]

# a setup that fails before the command: --keep-status runs it in run's
# place (exec), and the flush comes first
: >"$TMP/store.file"
rm -rf "$TMP/store"
mv "$TMP/store.file" "$TMP/store"
run_cfg spool3
id3=$(sed -n "s/.*publication spooled as \([^ ]*\) in .*/\1/p" \
  "$TMP/spool3.err")
check "a third publication is spooled" spooled "$TMP/spool" "$id3"
rm -f "$TMP/store"
mkdir "$TMP/store"
: >"$TMP/not-a-dir"
run_cfg setup -o "$TMP/not-a-dir/out" --no-publish --keep-status --flush
check "a failed setup with --keep-status: the command's status ($rc)" \
  [ "$rc" -eq 0 ]
check "the command ran unprofiled" grep -q '"latency"' "$TMP/setup.out"
check "it says so" grep -q "running the command unprofiled" "$TMP/setup.err"
check "the spool was flushed all the same" grep -q "^$id3" "$TMP/setup.err"
check "nothing of it waits in the spool" [ ! -e "$TMP/spool/$id3" ]

# a spool directory that does not exist holds nothing to flush: run's
# --flush says nothing (a note at -v), makes nothing, exits as the run
run_cfg nospool --no-publish --spool "$TMP/never-spooled" --flush
check "run --spool MISSING --flush exits 0 ($rc)" [ "$rc" -eq 0 ]
check "its flush says no error" sh -c "! grep -q 'error' '$TMP/nospool.err'"
check "nor anything of the missing spool" sh -c \
  "! grep -q 'never-spooled' '$TMP/nospool.err'"
check "the missing spool is not made" [ ! -e "$TMP/never-spooled" ]
"$BENCHPROF" run -v --config "$TMP/cfg.json" --no-bencher --no-counters \
  --adapter json --branch main --hash "$HASH" --no-publish \
  --spool "$TMP/never-spooled" --flush -- "$TMP/harness.sh" \
  >"$TMP/nospool_v.out" 2>"$TMP/nospool_v.err"
rc=$?
check "the same with -v exits 0 ($rc)" [ "$rc" -eq 0 ]
check "-v: a note says there is nothing to flush" grep -qF \
  "benchprof: --flush: the spool directory $TMP/never-spooled does not exist: nothing to flush" \
  "$TMP/nospool_v.err"
check "-v: no error" sh -c "! grep -q 'error' '$TMP/nospool_v.err'"
# typed by a user, flush --spool MISSING stays an error
"$BENCHPROF" flush --config "$TMP/cfg.json" --spool "$TMP/never-spooled" \
  >"$TMP/flush_missing.out" 2>"$TMP/flush_missing.err"
rc=$?
check "flush --spool MISSING exits 1 ($rc)" [ "$rc" -eq 1 ]
check "and says the directory does not exist" grep -q \
  "never-spooled does not exist" "$TMP/flush_missing.err"
finish
