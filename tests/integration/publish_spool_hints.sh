#!/bin/sh
# What run and flush say when a target keeps refusing or is no longer
# the configured one (put_server.py, an http:// store with a bearer
# token, on 127.0.0.1):
# - a store's 401 names the variable the bearer token came from
#   (BENCHPROF_STORE_TOKEN, or store.token_env's), or says none was
#   sent; never the token;
# - flush says that once, not once per publication;
# - run's hint to flush later names a configuration from --config or
#   $BENCHPROF_CONFIG, by its absolute path (as the spool), each path
#   quoted once for a shell, the command itself not quoted;
# - a publication spooled for a store URL the configuration no longer
#   names, or waiting for over a day, gets one line pointing at
#   'benchprof flush --drop ID', which removes it; the others are then
#   delivered with the right token;
# - flush --list shows when and why each waiting one's last try failed;
# - a spool directory --spool names that does not exist is an error that
#   says so; a default one not made yet is nothing to send.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

HASH=0123456789abcdef0123456789abcdef01234567
STOK="store-token-8c2e51"
WRONG="wrong-store-token-77a0"
make_harness
mkdir -p "$TMP/root"
python3 "$SERVERS/put_server.py" --root "$TMP/root" \
  --port-file "$TMP/put.port" --token "$STOK" >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
port=$(wait_port "$TMP/put.port")
[ -n "$port" ] || { echo "FAIL: put_server did not start"; exit 1; }
URL="http://127.0.0.1:$port/bucket"
SPOOL="$TMP/spool"
opts="--project demo --branch main --testbed box --hash $HASH --retries 0
  --timeout 5 --spool $SPOOL"

# bprun NAME [ARGS...]: benchprof run into $TMP/NAME, stderr in NAME.err
bprun() {
  name=$1
  shift
  # shellcheck disable=SC2086  # opts is a list of words
  env -u BENCHER_API_TOKEN "$BENCHPROF" run -o "$TMP/$name" \
    --bmf "$TMP/$name.json" $opts "$@" -- "$TMP/harness.sh" \
    "$TMP/$name.json" >/dev/null 2>"$TMP/$name.err"
}

# 1. run: a refused token is named by its variable, a missing one said
BENCHPROF_STORE_TOKEN=$WRONG bprun r1 --store "$URL"
check "wrong token: run exits 0" [ $? -eq 0 ]
check "wrong token: the server's words" grep -q \
  "HTTP 401: missing or wrong bearer token" "$TMP/r1.err"
check "wrong token: the variable it came from" grep -q \
  "the store $URL refused the bearer token from \$BENCHPROF_STORE_TOKEN (the default variable; store.token_env names another; HTTP 401)" \
  "$TMP/r1.err"
BENCHPROF_STORE_TOKEN='' bprun r2 --store "$URL"
check "no token: run exits 0" [ $? -eq 0 ]
check "no token: none was sent, and which variable was read" grep -q \
  "the store $URL wants a bearer token (HTTP 401) and none was sent: \$BENCHPROF_STORE_TOKEN is not set" \
  "$TMP/r2.err"
printf '{"store": {"url": "%s", "token_env": "MY_STORE_TOK"}}\n' "$URL" \
  >"$TMP/named.json"
MY_STORE_TOK=$WRONG BENCHPROF_STORE_TOKEN=$STOK bprun r3 \
  --config "$TMP/named.json"
check "store.token_env: run exits 0" [ $? -eq 0 ]
check "store.token_env: that variable named, and the key" grep -q \
  "refused the bearer token from \$MY_STORE_TOK (store.token_env; HTTP 401)" \
  "$TMP/r3.err"
# the hint to flush later names the configuration the run read when it
# was not the default one: flush reading another gets other credentials
check "no --config: the hint names the spool only" grep -qF \
  "send it later with: benchprof flush --spool $SPOOL" "$TMP/r1.err"
check "--config: the hint names it" grep -qF \
  "send it later with: benchprof flush --config $TMP/named.json --spool $SPOOL" \
  "$TMP/r3.err"
BENCHPROF_CONFIG="$TMP/named.json" MY_STORE_TOK=$WRONG bprun r3e \
  --spool "$TMP/spool env"
check "\$BENCHPROF_CONFIG: the hint names it, a spool with a space quoted once" \
  grep -qxF "benchprof: send it later with: benchprof flush --config $TMP/named.json --spool '$TMP/spool env'" \
  "$TMP/r3e.err"
# relative paths, with blanks: absolute in the hint (a timer or another
# directory runs it), quoted once; the hint pasted elsewhere reads them
mkdir -p "$TMP/job dir/sub"
cp "$TMP/named.json" "$TMP/job dir/my conf.json"
(cd "$TMP/job dir/sub" && MY_STORE_TOK=$WRONG env -u BENCHER_API_TOKEN \
  "$BENCHPROF" run -o out --bmf "$TMP/r3r.json" --project demo \
  --branch main --testbed box --hash $HASH --retries 0 --timeout 5 \
  --config "../my conf.json" --spool "../rel spool" -- "$TMP/harness.sh" \
  "$TMP/r3r.json" >/dev/null 2>"$TMP/r3r.err")
check "relative --config and --spool: absolute in the hint, quoted once" \
  grep -qxF "benchprof: send it later with: benchprof flush --config '$TMP/job dir/my conf.json' --spool '$TMP/job dir/rel spool'" \
  "$TMP/r3r.err"
hint=$(sed -n 's/^benchprof: send it later with: benchprof flush //p' \
  "$TMP/r3r.err")
check "the hint's words, read by a shell from another directory" sh -c \
  "cd / && eval \"set -- \$1\" && [ \$# -eq 4 ] &&
   [ \"\$2\" = '$TMP/job dir/my conf.json' ] &&
   [ \"\$4\" = '$TMP/job dir/rel spool' ] && [ -f \"\$2\" ] && [ -d \"\$4\" ]" \
  sh "$hint"

# 2. flush with the same wrong token: a line per publication, the hint
# once, nothing about moved targets (the configuration names this store)
printf '{"store": {"url": "%s"}}\n' "$URL" >"$TMP/cfg.json"
BENCHPROF_STORE_TOKEN=$WRONG "$BENCHPROF" flush --config "$TMP/cfg.json" \
  --spool "$SPOOL" --retries 0 >"$TMP/f1.out" 2>"$TMP/f1.err"
status=$?
check "flush, wrong token: exit 1" [ $status -eq 1 ]
check "flush, wrong token: three still spooled" [ "$(grep -c \
  'still spooled' "$TMP/f1.out")" = 3 ]
check "flush, wrong token: the variable named once" [ "$(grep -c \
  'refused the bearer token from \$BENCHPROF_STORE_TOKEN' "$TMP/f1.err")" = 1 ]
check "flush, same store: no moved-target warning" sh -c \
  '! grep -q "recorded when spooled\|flush --drop" "$1"' sh "$TMP/f1.err"

# 3. a publication spooled for a wrong store URL (nothing listens
# there), the configuration fixed since: flush says so once, with the
# option that removes it
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$TMP/dead.port"
DEAD="http://127.0.0.1:$(cat "$TMP/dead.port")/bucket"
BENCHPROF_STORE_TOKEN=$STOK bprun r4 --store "$DEAD"
check "wrong URL: run exits 0" [ $? -eq 0 ]
moved=$(python3 - "$SPOOL" "$DEAD" <<'PY'
import json, os, sys
spool, dead = sys.argv[1:]
for d in sorted(os.listdir(spool)):
    meta = os.path.join(spool, d, "publication.json")
    if os.path.isfile(meta) and json.load(open(meta))["store"]["url"] == dead:
        print(d)
PY
)
check "wrong URL: spooled" [ -n "$moved" ]
BENCHPROF_STORE_TOKEN=$WRONG "$BENCHPROF" flush --config "$TMP/cfg.json" \
  --spool "$SPOOL" --retries 0 >"$TMP/f2.out" 2>"$TMP/f2.err"
check "flush, moved store: exit 1" [ $? -eq 1 ]
check "flush, moved store: one line naming both URLs and --drop" grep -q \
  "1 publication still in the spool goes to the target recorded when spooled ($moved: store URL $DEAD, and the configuration's store.url is now $URL): flush sends it only there, and a configuration fixed since does not change that; 'benchprof flush --drop $moved' removes it unsent" \
  "$TMP/f2.err"
check "flush, moved store: said once" [ "$(grep -c 'recorded when spooled' \
  "$TMP/f2.err")" = 1 ]

# 4. waiting for over a day (publication.json's created, set back as
# time would): one line for all of them, the oldest named
python3 - "$SPOOL" "$moved" <<'PY'
import json, os, sys
spool, moved = sys.argv[1:]
for i, d in enumerate(sorted(os.listdir(spool))):
    meta = os.path.join(spool, d, "publication.json")
    if d == moved or not os.path.isfile(meta):
        continue
    m = json.load(open(meta))
    m["created"] = "2020-01-0%dT00:00:00Z" % (i + 1)
    json.dump(m, open(meta, "w"))
PY
oldest=$(python3 - "$SPOOL" <<'PY'
import os, sys
spool = sys.argv[1]
print(min(d for d in os.listdir(spool)
          if os.path.isfile(os.path.join(spool, d, "publication.json"))))
PY
)
BENCHPROF_STORE_TOKEN=$WRONG "$BENCHPROF" flush --config "$TMP/cfg.json" \
  --spool "$SPOOL" --retries 0 >"$TMP/f3.out" 2>"$TMP/f3.err"
check "flush, old: exit 1" [ $? -eq 1 ]
check "flush, old: one line, the oldest and --drop named" grep -q \
  "3 publications have waited in the spool for over a day and still fail (the oldest: $oldest, spooled 2020-01-01T00:00:00Z): if its target is gone for good, 'benchprof flush --drop $oldest' removes it unsent" \
  "$TMP/f3.err"
check "flush, old: said once" [ "$(grep -c 'over a day' "$TMP/f3.err")" = 1 ]

# 4b. --list says why each is still waiting: when and why its last try
# failed, as the flush said it, never a token
"$BENCHPROF" flush --config "$TMP/cfg.json" --spool "$SPOOL" --list \
  >"$TMP/list.out" 2>"$TMP/list.err"
check "--list: exit 0" [ $? -eq 0 ]
check "--list: four waiting" [ "$(grep -c "	waiting	" "$TMP/list.out")" = 4 ]
check "--list: each with its last try" [ "$(grep -Ec \
  "	waiting	.*	last try [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z: " \
  "$TMP/list.out")" = 4 ]
check "--list: the refused token's failure" [ "$(grep -c \
  "last try .*: .*HTTP 401: missing or wrong bearer token" \
  "$TMP/list.out")" = 3 ]
check "--list: the dead store's failure" grep -q \
  "^$moved	waiting	.*	last try .*127\.0\.0\.1:$(cat "$TMP/dead.port")" \
  "$TMP/list.out"
check "no token in the spool" sh -c \
  '! grep -rq -e "$1" -e "$2" "$3"' sh "$STOK" "$WRONG" "$SPOOL"

# 5. the advice works: --drop removes the moved one, the right token
# delivers the rest, and nothing is left to warn about
"$BENCHPROF" flush --spool "$SPOOL" --drop "$moved" >"$TMP/drop.out" \
  2>&1
check "--drop: removed" grep -q "^$moved: dropped" "$TMP/drop.out"
BENCHPROF_STORE_TOKEN=$STOK "$BENCHPROF" flush --config "$TMP/cfg.json" \
  --spool "$SPOOL" --retries 0 >"$TMP/f4.out" 2>"$TMP/f4.err"
check "flush, right token: exit 0" [ $? -eq 0 ]
check "flush, right token: three delivered" [ "$(grep -c ': delivered' \
  "$TMP/f4.out")" = 3 ]
check "flush, right token: no warning" sh -c '! grep -q warning "$1"' sh \
  "$TMP/f4.err"
# 6. a spool directory that does not exist: named by --spool, an error
# that says so (not "nothing to send"); the default one (here
# $BENCHPROF_SPOOL's), not made until something is spooled, is nothing
# to send, and the job-end hooks' flush does not fail for it
for what in "" --list; do
  # shellcheck disable=SC2086  # what: no word or one
  "$BENCHPROF" flush --config "$TMP/cfg.json" --spool "$TMP/no-such" \
    $what >"$TMP/nodir.out" 2>"$TMP/nodir.err"
  check "flush $what --spool missing: exit 1" [ $? -eq 1 ]
  check "flush $what --spool missing: says it does not exist" grep -q \
    "the spool directory $TMP/no-such does not exist" "$TMP/nodir.err"
  check "flush $what --spool missing: not 'nothing to send'" sh -c \
    '! grep -q "nothing to send in\|nothing waits in" "$1"' sh \
    "$TMP/nodir.err"
  check "flush $what --spool missing: not made" [ ! -e "$TMP/no-such" ]
  BENCHPROF_SPOOL="$TMP/not-yet" "$BENCHPROF" flush --config \
    "$TMP/cfg.json" $what >"$TMP/notyet.out" 2>"$TMP/notyet.err"
  check "flush $what, default spool not made yet: exit 0" [ $? -eq 0 ]
  check "flush $what, default spool not made yet: said" grep -q \
    "the spool directory $TMP/not-yet does not exist (no publication was spooled there yet)" \
    "$TMP/notyet.err"
done

check "no token value in any output" sh -c \
  '! grep -q -e "$1" -e "$2" "$3"/*.err "$3"/*.out' sh "$STOK" "$WRONG" \
  "$TMP"
finish
