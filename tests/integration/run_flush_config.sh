#!/bin/sh
# benchprof run --flush tries the spool of the run's own configuration:
# - run --config FILE (no BENCHPROF_CONFIG): the flush after the run
#   reads FILE too, and delivers what waits in FILE's spool, not the
#   default configuration's;
# - run --spool DIR: the flush sends DIR's;
# - a setup that fails before the command (--keep-status: the command
#   then replaces benchprof run) still flushes, before the command.
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
finish
