#!/bin/sh
# A publication whose every target is on this machine (a file:// store,
# no Bencher report, no Firefox upload) is delivered straight from the
# run directory: the spool is not touched when that works (a spool that
# cannot even be made does not matter), and it holds the publication,
# for flush, when the store fails.  Killed in the middle, it leaves
# objects but no stored manifest or latest pointer naming them.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

make_harness
unset BENCHER_API_TOKEN
HASH=0123456789abcdef0123456789abcdef01234567
# run CASE STORE SPOOL: one run of the harness published to STORE
run() {
  "$BENCHPROF" run -o "$TMP/$1.out" --bmf "$TMP/h.json" \
    --project demo --branch main --testbed box --hash $HASH \
    --store "file://$2" --spool "$3" -- "$TMP/harness.sh" "$TMP/h.json" \
    2>"$TMP/$1.err"
}
# pub_state CASE STATE PREFIX: the run's manifest notes its publication
pub_state() {
  python3 - "$TMP/$1.out/manifest.json" "$2" "$3" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["publication"]
assert p["state"] == sys.argv[2], p
assert p["spool_id"].startswith(sys.argv[3]), p
assert (p["state"] == "delivered") == (p.get("error") is None), p
PY
}

# 1. delivered from the run directory; the spool never made
run ok "$TMP/ok.store" "$TMP/ok.spool"
check "delivered: exit 0" [ $? -eq 0 ]
check "delivered: says where the manifest is" \
  grep -q "published: manifest file://$TMP/ok.store/" "$TMP/ok.err"
check "delivered: the store holds every artifact with its sha256" \
  store_ok "$TMP/ok.store"
check "delivered: the spool was not used" [ ! -e "$TMP/ok.spool" ]
check "delivered: the run's manifest says so" pub_state ok delivered local-
check "delivered: the store's objects are the run's files (links)" \
  [ "$(find "$TMP/ok.store" -samefile "$TMP/ok.out/profile.pb.gz" | wc -l)" -eq 1 ]

# 2. a spool that cannot be made changes nothing for a local store: no
# warning that the spool cannot hold it
: >"$TMP/afile"
run nospool "$TMP/nospool.store" "$TMP/afile/spool"
check "no spool needed: exit 0" [ $? -eq 0 ]
check "no spool needed: nothing says the spool cannot hold it" \
  sh -c '! grep -q "spool cannot hold" "$1"' sh "$TMP/nospool.err"
check "no spool needed: delivered" store_ok "$TMP/nospool.store"

# 3. the store fails (a file where the project's folder goes): spooled,
# noted, and flush delivers it once the store is fixed
mkdir -p "$TMP/bad.store"
: >"$TMP/bad.store/demo"
run bad "$TMP/bad.store" "$TMP/bad.spool"
check "store fails: the benchmark's exit status survives" [ $? -eq 0 ]
check "store fails: the message says spooled, with flush" \
  sh -c 'grep -q "spooled as" "$1" && grep -q "benchprof flush" "$1"' sh \
  "$TMP/bad.err"
check "store fails: one publication in the spool" \
  [ "$(ls "$TMP/bad.spool" | wc -l)" -eq 1 ]
check "store fails: the run's manifest says spooled, with the spool's id" \
  pub_state bad spooled "$(ls "$TMP/bad.spool")"
rm "$TMP/bad.store/demo"
"$BENCHPROF" flush --spool "$TMP/bad.spool" >"$TMP/flush.out" 2>&1
check "store fixed: flush delivers it" [ $? -eq 0 ]
check "store fixed: the spool is empty" [ -z "$(ls "$TMP/bad.spool")" ]
check "store fixed: every artifact stored with its sha256" \
  store_ok "$TMP/bad.store"
check "store fixed: the run's manifest says delivered" \
  pub_state bad delivered "$(python3 -c "
import json; print(json.load(open('$TMP/bad.out/manifest.json'))['publication']['spool_id'])")"

# 4. killed in the middle (SIGKILL): benchprof is frozen (SIGSTOP) once
# the store holds some of its objects, and the store looked at then: no
# stored manifest of the run and no latest pointer, so compare and the
# pages cannot see a half-published run.  Killed, it leaves nothing in
# the spool (a local publication is not spooled unless it fails); the
# same run again stores a manifest naming every key the killed one
# wrote, and the pointer.  1500 marked benchmarks: 7,514 objects, about
# 0.25 s of publishing here; a try whose freeze came after the end (the
# shell kept off the CPU that long) is tried again, three times at most.
harness="$WORKLOADS/hooks_harness"
[ -x "$harness" ] || { fail "workload $harness was not built"; finish; }
# the store's files, one key a line, sorted
keys() {
  (cd "$1" 2>/dev/null && find . -type f | sed 's|^\./||' | sort)
}
caught=
for try in 1 2 3; do
  store="$TMP/kill$try.store"
  rm -rf "$TMP/k1.out"
  # exec: $! is benchprof itself, not a subshell
  (exec "$BENCHPROF" run -q -o "$TMP/k1.out" --project demo --branch main \
    --testbed box --hash $HASH --store "file://$store" \
    --spool "$TMP/kill.spool" -- "$harness" short 1500 1 >/dev/null \
    2>"$TMP/k1.err") &
  bp=$!
  # the run's manifest is written before its publication starts; from
  # then on the store is looked at without sleeping (a builtin test)
  i=0
  while [ ! -e "$TMP/k1.out/manifest.json" ] && [ $i -lt 12000 ]; do
    sleep 0.01
    i=$((i + 1))
  done
  i=0
  while [ ! -d "$store/demo" ] && [ $i -lt 20000000 ]; do
    i=$((i + 1))
  done
  kill -STOP $bp
  # the folders come before the first file: let it go on until one is in
  j=0
  while [ -z "$(keys "$store" | head -1)" ] && [ $j -lt 200 ]; do
    kill -CONT $bp
    sleep 0.001
    kill -STOP $bp
    j=$((j + 1))
  done
  keys "$store" >"$TMP/k1.keys"
  kill -KILL $bp
  wait $bp 2>/dev/null
  echo "try $try: frozen with $(wc -l <"$TMP/k1.keys") objects in the store"
  if ! grep -q "/latest/" "$TMP/k1.keys" && [ -s "$TMP/k1.keys" ]; then
    caught=$store
    break
  fi
done
check "frozen while publishing (in one of three tries): the store has some \
of the run's objects, not its latest pointer" [ -n "$caught" ]
check "frozen while publishing: no stored manifest of the run yet" \
  sh -c '! grep -q "/box/manifest.json$" "$1"' sh "$TMP/k1.keys"
check "killed: nothing in the spool" \
  [ -z "$(ls -A "$TMP/kill.spool" 2>/dev/null)" ]
if [ -n "$caught" ]; then
  "$BENCHPROF" run -q -o "$TMP/k2.out" --project demo --branch main \
    --testbed box --hash $HASH --store "file://$caught" \
    --spool "$TMP/kill.spool" -- "$harness" short 1500 1 >/dev/null \
    2>"$TMP/k2.err"
  check "the same run again: exit 0" [ $? -eq 0 ]
  check "the same run again: delivered, manifest and latest pointer" \
    store_ok "$caught"
  check "the same run again: its manifest names every key the killed one \
wrote" python3 - "$caught" "$TMP/k1.keys" <<'PY'
import json, os, sys
root, killed = sys.argv[1], open(sys.argv[2]).read().split()
mans = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
        if f == "manifest.json" and os.path.relpath(d, root).count("/") == 3]
assert len(mans) == 1, mans
named = set()
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "key" and isinstance(v, str):
                named.add(v)
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(json.load(open(mans[0])))
missing = [k for k in killed if k not in named]
assert not missing, (len(missing), missing[:5])
PY
fi
finish
