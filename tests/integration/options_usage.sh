#!/bin/sh
# Mistakes on the command line, as a CI log shows them:
# - a mistyped option, or one without its value, is one error line and
#   one line saying where the help is ("see 'benchprof CMD --help'"),
#   exit 2, for every subcommand: never the whole help, which would push
#   the error out of sight;
# - a URL option that can never work (--store /dir, --store file://dir,
#   --public-url or --s3-endpoint that is not http(s), a URL with
#   credentials, a store URL with a query or fragment, which the store
#   refuses when it opens) is a usage error naming the option, checked as the
#   configuration's store.url and http(s) keys are: run --check-options
#   exits 2, run exits 2 without running the command, compare, comment,
#   index and serve refuse it too;
# - run says a failed publication's error once, and says nothing about
#   a comparison on a run that is not a pull request, or whose
#   publication could not even start.
. "$top_srcdir/tests/lib.sh"

cd "$TMP" || exit 1
outside_ci
unset BENCHPROF_CONFIG BENCHPROF_STORE BENCHPROF_STRICT
BENCHPROF_CONFIG="$TMP/none.json"   # no file: only the flags
export BENCHPROF_CONFIG
echo '{}' >"$TMP/none.json"
ran="$TMP/ran"

# two_lines NAME CMD: stderr is exactly the error and the hint for CMD
two_lines() {
  check "$1: two lines on stderr ($(wc -l <"$TMP/$1.err"))" \
    [ "$(wc -l <"$TMP/$1.err")" -eq 2 ]
  check "$1: the first is the error" sh -c \
    "head -n 1 '$TMP/$1.err' | grep -q '^benchprof: error: '"
  check "$1: the second says where the help is" \
    [ "$(sed -n 2p "$TMP/$1.err")" = "benchprof: see 'benchprof $2 --help'" ]
  check "$1: no help text" sh -c "! grep -q 'usage:' '$TMP/$1.err'"
}

# bad NAME REGEX ARGS...: benchprof ARGS exits 2, its first stderr line
# matches REGEX, the second is the hint for ARGS' subcommand
bad() {
  name=$1 regex=$2
  shift 2
  "$BENCHPROF" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  st=$?
  check "$name: exit 2 ($st)" [ "$st" -eq 2 ]
  check "$name: says /$regex/" grep -Eq -e "$regex" "$TMP/$name.err"
  two_lines "$name" "$1"
  check "$name: nothing on stdout" [ ! -s "$TMP/$name.out" ]
}

# ---- a mistyped option, a missing value: every subcommand
bad run_unknown "run: unknown option '--frobnicate'" run --frobnicate \
  -- touch "$ran"
check "run_unknown: the command did not run" [ ! -e "$ran" ]
bad record_novalue "record: -e needs a value" record -e
bad record_short "record: unknown option '-Z'" record -Z -- touch "$ran"
bad run_cluster "run: unknown option character 'Z' in '-qZ'" run -qZ \
  -- touch "$ran"
# a dash inside a group is the character, not a second "--"
bad record_dash "record: unknown option character '-' in '-q-'" record -q- \
  -- touch "$ran"
bad record_midgroup "record: unknown option character 'Z' in '-Zq'" \
  record -Zq -- touch "$ran"
check "clusters: the command did not run" [ ! -e "$ran" ]
bad run_longvalue "run: --store needs a value" run --store
bad run_ambiguous "run: '--st' is ambiguous: --store, --strict" run --st x \
  -- true
bad stat_unknown "stat: unknown option '--frobnicate'" stat --frobnicate \
  -- true
bad events_unknown "events: unknown option '--frobnicate'" events \
  --frobnicate
bad events_value "events: --json takes no value" events --json=yes
bad flush_unknown "flush: unknown option '--frobnicate'" flush --frobnicate
bad compare_unknown "compare: unknown option '--frobnicate'" compare \
  --frobnicate a b
bad comment_unknown "comment: unknown option '--frobnicate'" comment \
  --frobnicate
bad serve_unknown "serve: unknown option '--frobnicate'" serve --frobnicate
bad index_unknown "index: unknown option '--frobnicate'" index --frobnicate
bad config_unknown "config: unknown option '--frobnicate'" config \
  --frobnicate check
bad ci_unknown "ci: unknown option '--frobnicate'" ci --frobnicate
check "no command ran" [ ! -e "$ran" ]
# a value is never echoed (it may be a token)
bad secret_value "run: unknown option '--tokn'$" run --tokn=s3cr3t -- true
check "secret_value: the value is not shown" sh -c \
  "! grep -q s3cr3t '$TMP/secret_value.err'"

# --help still prints the help, on stdout
"$BENCHPROF" run --help >"$TMP/help.out" 2>"$TMP/help.err"
check "run --help: exit 0, the help on stdout" sh -c \
  "[ $? -eq 0 ] && grep -q '^usage: benchprof run' '$TMP/help.out'"

# ---- URL options
# bad_url NAME OPTION REGEX ARGS...: exit 2, the option named, the
# command not run
bad_url() {
  name=$1 opt=$2 regex=$3
  shift 3
  "$BENCHPROF" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  st=$?
  check "$name: exit 2 ($st)" [ "$st" -eq 2 ]
  check "$name: names $opt" grep -q -e "^benchprof: error: $opt" \
    "$TMP/$name.err"
  check "$name: says /$regex/" grep -Eq -e "$regex" "$TMP/$name.err"
  check "$name: said once" [ "$(grep -c -e "$opt" "$TMP/$name.err")" -eq 1 ]
  check "$name: the command did not run" [ ! -e "$ran" ]
}
STORE_KINDS="file:///, s3://, http:// or https://"
bad_url check_plain --store "$STORE_KINDS" run --check-options \
  --store /data/store -- touch "$ran"
bad_url check_file2 --store "$STORE_KINDS" run --check-options \
  --store file://data/store -- touch "$ran"
bad_url run_plain --store "$STORE_KINDS" run -o "$TMP/o1" \
  --store /data/store -- touch "$ran"
bad_url run_file2 --store "$STORE_KINDS" run -o "$TMP/o2" \
  --store file://data/store -- touch "$ran"
check "run_plain: no output directory" [ ! -e "$TMP/o1" ]
bad_url check_public --public-url "http:// or https://" run \
  --check-options --public-url file:///srv/x -- touch "$ran"
bad_url check_endpoint --s3-endpoint "http:// or https://" run \
  --check-options --s3-endpoint minio:9000 -- touch "$ran"
bad_url check_firefox --firefox-api "http:// or https://" run \
  --check-options --firefox-api api.example -- touch "$ran"
bad_url check_cred --public-url "without credentials" run --check-options \
  --public-url "http://reader:pw-SECRET@example.com/s" -- touch "$ran"
check "check_cred: the password is not shown" sh -c \
  "! grep -q pw-SECRET '$TMP/check_cred.err'"
# a query (a token, perhaps: never shown) the store would refuse after
# the benchmark ran, publishing nothing
bad_url check_query --store "no query, fragment or blanks allowed" run \
  --check-options --store "https://h.example/x?sig=q-SECRET" -- touch "$ran"
check "check_query: the query is not shown" sh -c \
  "! grep -q q-SECRET '$TMP/check_query.err'"
bad_url run_query --store "no query, fragment or blanks allowed" run \
  -o "$TMP/o3" --store "https://h.example/x?sig=q-SECRET" -- touch "$ran"
check "run_query: no output directory" [ ! -e "$TMP/o3" ]
bad_url check_s3_fragment --store "no query or fragment allowed" run \
  --check-options --store "s3://bkt/p#frag" -- touch "$ran"
bad_url check_public_query --public-url "no query, fragment" run \
  --check-options --public-url "https://cdn.example/bp?t=1" -- touch "$ran"
bad_url compare_store --store "$STORE_KINDS" compare --store /data/store \
  main@latest feature@latest
bad_url index_store --store "$STORE_KINDS" index --store file://data/store
bad_url comment_api --api-url "http:// or https://" comment --markdown \
  "$TMP/none.json" --github own/repo --pr 1 --api-url api.github.com
bad_url serve_public --public-url "http:// or https://" serve \
  --public-url ftp://example.com "$TMP"
# the good ones still pass the check
"$BENCHPROF" run --check-options --store "file://$TMP/store" \
  --public-url https://cdn.example/bp --s3-endpoint http://127.0.0.1:9000 \
  -- true 2>"$TMP/good.err"
check "valid URLs: --check-options exits 0" [ $? -eq 0 ]
# a directory's name with a blank is a file store's to have
"$BENCHPROF" run --check-options --store "file://$TMP/my store" -- true \
  2>"$TMP/good2.err"
check "a file store with a blank in its path: --check-options exits 0" \
  [ $? -eq 0 ]

# ---- what run says after the benchmark
# not a pull request, a store that works: nothing about a comparison
"$BENCHPROF" run -o "$TMP/out1" --spool "$TMP/spool" --project p \
  --branch main --testbed t --hash 1111111111111111111111111111111111111111 \
  --store "file://$TMP/store" -- true >/dev/null 2>"$TMP/plain.err"
check "published run: exit 0" [ $? -eq 0 ]
check "published run: delivered" grep -q "published: manifest" \
  "$TMP/plain.err"
check "not a pull request: nothing said about a comparison" sh -c \
  "! grep -q 'compare' '$TMP/plain.err'"
# a store URL that passes the option check but cannot be opened (a bucket
# name S3 never takes; a query is the option check's now): said once, as
# a warning (the job keeps the command's status, so no error: line),
# nothing was published, no comparison message (also on a pull request:
# the same failure would only be said again)
for pr in no yes; do
  base=
  [ $pr = no ] || base="--base-branch main"
  # shellcheck disable=SC2086 # $base: two words or none
  "$BENCHPROF" run -o "$TMP/out-$pr" --spool "$TMP/spool" --project p \
    --branch feature --testbed t \
    --hash 2222222222222222222222222222222222222222 $base \
    --store 's3://bad!bucket/p' -- true >/dev/null 2>"$TMP/unopen-$pr.err"
  st=$?
  check "unopenable store ($pr PR): the command's status (0, got $st)" \
    [ "$st" -eq 0 ]
  check "unopenable store ($pr PR): said once" \
    [ "$(grep -c "bad bucket name" "$TMP/unopen-$pr.err")" -eq 1 ]
  check "unopenable store ($pr PR): as a warning, no error: line" sh -c \
    "grep -q '^benchprof: warning: .*bad bucket name' '$TMP/unopen-$pr.err' &&
     ! grep -q 'error:' '$TMP/unopen-$pr.err'"
  check "unopenable store ($pr PR): the last line: publishing failed, the status is kept" \
    sh -c "tail -n 1 '$TMP/unopen-$pr.err' | grep -q \
      'exit status (0) is kept although publishing failed'"
  check "unopenable store ($pr PR): nothing was published" grep -q \
    "nothing was published" "$TMP/unopen-$pr.err"
  check "unopenable store ($pr PR): no comparison message" sh -c \
    "! grep -q 'compare' '$TMP/unopen-$pr.err'"
done

finish
