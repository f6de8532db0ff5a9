#!/bin/sh
# --token-env (getopt also takes --token for it) names the variable that
# holds a token.  An operator who puts the token itself there must not
# see it printed ("$ghp_... is not set" after the run, in the job log):
# a value that is not a variable's name in the conventional form
# (uppercase letters, digits and '_', not starting with a digit) is a
# usage error before the command runs (exit 2; run --check-options too;
# flush and comment alike), with a message that does not show it.  The
# configuration's *.token_env keys are refused the same way by config
# check and by run, naming the key.  A conventional name that is unset
# keeps the note that names it.  A token that happens to have a name's
# form is refused as well when it has a credential's: an AWS access key
# ID (AKIA... of 20 characters), or 16 or more letters and digits mixed
# without a '_' (it would otherwise be printed as "$AKIA... is not
# set"); runs with one show it nowhere, in output, logs or artifacts.
. "$top_srcdir/tests/lib.sh"

cd "$TMP" || exit 1
outside_ci
unset BENCHPROF_CONFIG BENCHPROF_STORE BENCHPROF_SPOOL BENCHPROF_OUTPUT
XDG_CONFIG_HOME=$TMP/xdg-config XDG_STATE_HOME=$TMP/xdg-state
XDG_DATA_HOME=$TMP/xdg-data
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_DATA_HOME
HASH=0123456789abcdef0123456789abcdef01234567
ran="$TMP/ran"
MSG="takes the name of an environment variable holding the token (like"
MSG2="not the token itself; the value given is not shown"

# hidden NAME VALUE: VALUE appears in neither NAME.out nor NAME.err
hidden() {
  check "$1: the value is not shown" sh -c \
    "! grep -qF -e '$2' '$TMP/$1.out' '$TMP/$1.err'"
}

# refused NAME VALUE ARGS...: benchprof ARGS exits 2 saying why, never
# showing VALUE, and nothing on stdout
refused() {
  name=$1 value=$2
  shift 2
  rm -f "$ran"
  "$BENCHPROF" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  st=$?
  check "$name: exit 2 ($st)" [ "$st" -eq 2 ]
  check "$name: says --token-env takes a variable's name" \
    grep -qF -e "benchprof: error: --token-env $MSG" "$TMP/$name.err"
  check "$name: says the value is not shown" \
    grep -qF -e "$MSG2" "$TMP/$name.err"
  check "$name: nothing on stdout" [ ! -s "$TMP/$name.out" ]
  check "$name: the command did not run" [ ! -e "$ran" ]
  hidden "$name" "$value"
}

T1="ghp_SECRETone$$"
T2="SECRET-two$$"
T3="9SECRETTHREE$$"
T4="glpat-SECRETfour$$"
refused run_token "$T1" run --token "$T1" -- touch "$ran"
refused run_token_eq "$T2" run --token="$T2" -- touch "$ran"
refused run_token_env "$T3" run --token-env "$T3" -- touch "$ran"
refused run_check "$T1" run --check-options --token "$T1" -- touch "$ran"
refused run_lower "mytoken" run --token-env mytoken -- touch "$ran"
refused flush_token "$T4" flush --token "$T4"
refused comment_token "$T4" comment --token-env "$T4" --github o/r --pr 1 \
  -m "$TMP/none.md"
check "comment: GitHub's and GitLab's variables are the examples" \
  grep -qF "(like GITHUB_TOKEN or GITLAB_TOKEN)" "$TMP/comment_token.err"
# a conventional name is taken; unset, the note names it as before
cat >"$TMP/harness.sh" <<'SH'
#!/bin/sh
echo '{"b": {"latency": {"value": 1}}}'
SH
chmod +x "$TMP/harness.sh"
unset MY_UNSET_TOK_9
"$BENCHPROF" run --check-options --token-env MY_UNSET_TOK_9 -- true \
  >"$TMP/good_check.out" 2>"$TMP/good_check.err"
st=$?
check "run --check-options --token-env MY_UNSET_TOK_9: exit 0 ($st)" \
  [ "$st" -eq 0 ]
"$BENCHPROF" run --no-counters --adapter json --store "file://$TMP/store" \
  --project demo --testbed box --branch main --hash "$HASH" \
  --token-env MY_UNSET_TOK_9 -- "$TMP/harness.sh" \
  >"$TMP/good.out" 2>"$TMP/good.err"
st=$?
check "a run with --token-env MY_UNSET_TOK_9 exits 0 ($st)" [ "$st" -eq 0 ]
check "an unset conventional name is named" \
  grep -qF 'no Bencher report: $MY_UNSET_TOK_9 is not set' "$TMP/good.err"

# the configuration's keys: config check and run refuse them, naming the
# key, never the value
for key in store bencher comment; do
  printf '{"%s": {"token_env": "%s"}}\n' "$key" "$T1" >"$TMP/$key.json"
  "$BENCHPROF" config check --config "$TMP/$key.json" \
    >"$TMP/cc_$key.out" 2>"$TMP/cc_$key.err"
  st=$?
  check "config check, $key.token_env a token: exit 2 ($st)" [ "$st" -eq 2 ]
  check "config check, $key.token_env: the key named" grep -qF \
    "\$.$key.token_env: expected the name of an environment variable" \
    "$TMP/cc_$key.err"
  check "config check, $key.token_env: not the token itself" grep -qF \
    "not the token itself, got a value that is not shown" "$TMP/cc_$key.err"
  hidden "cc_$key" "$T1"
  rm -f "$ran"
  BENCHPROF_CONFIG="$TMP/$key.json" "$BENCHPROF" run --no-counters \
    --adapter json --store "file://$TMP/store" --project demo --testbed box \
    --branch main --hash "$HASH" -- "$TMP/harness.sh" \
    >"$TMP/run_$key.out" 2>"$TMP/run_$key.err"
  check "run, $key.token_env a token: the key named" grep -qF \
    "\$.$key.token_env" "$TMP/run_$key.err"
  hidden "run_$key" "$T1"
done

# an AWS access key ID, and a random uppercase key: a name's form, a
# credential's shape
AK=$(printf 'AKIA%016d' "$$")
HEXKEY=$(printf '%08dF00DCAFE' "$$" | sed 's/^0/E/')
RULE="it has the form of a credential (an AWS access key ID"
# credential NAME VALUE ARGS...: refused, and said why without it
credential() {
  refused "$@"
  check "$1: says it has a credential's form" grep -qF "$RULE" "$TMP/$1.err"
}
credential run_aws "$AK" run --token-env "$AK" -- touch "$ran"
credential run_aws_check "$AK" run --check-options --token-env "$AK" \
  -- touch "$ran"
credential run_hexkey "$HEXKEY" run --token "$HEXKEY" -- touch "$ran"
credential flush_aws "$AK" flush --token-env "$AK"
credential comment_aws "$AK" comment --token-env "$AK" --github o/r --pr 1 \
  -m "$TMP/none.md"
"$BENCHPROF" run --check-options --token-env AWS_ACCESS_KEY_ID -- true \
  >"$TMP/aws_name.out" 2>"$TMP/aws_name.err"
st=$?
check "a name of AWS's (AWS_ACCESS_KEY_ID) is taken ($st)" [ "$st" -eq 0 ]

# real runs, each into its own output directory, store and spool: the
# key in a token_env of the configuration (config check, then run: the
# harness runs unprofiled, its output and status kept), and in
# BENCHPROF_RUN_ARGS of benchprof-wrap over a usable configuration; the
# key shows nowhere but in the configuration files (cfg/).  The harness
# passes: a run that passed is the one that publishes, where a name taken
# would be printed ("no Bencher report: $NAME is not set").
mkdir -p "$TMP/cfg"
for key in store bencher comment; do
  tok="\"token_env\": \"$AK\""
  other=", \"$key\": {$tok}" store=''
  [ "$key" = store ] && other='' store=", $tok"
  cat >"$TMP/cfg/aws-$key.json" <<JSON
{"enabled": true, "spool": "$TMP/spool-$key",
 "store": {"url": "file://$TMP/store-$key"$store}$other}
JSON
  "$BENCHPROF" config check --config "$TMP/cfg/aws-$key.json" \
    >"$TMP/cc_aws_$key.out" 2>"$TMP/cc_aws_$key.err"
  st=$?
  check "config check, $key.token_env an AWS key: exit 2 ($st)" \
    [ "$st" -eq 2 ]
  check "config check, $key.token_env: the key named, why said" grep -qF \
    "\$.$key.token_env: expected the name" "$TMP/cc_aws_$key.err"
  check "config check, $key.token_env: a credential's form" grep -qF \
    "$RULE" "$TMP/cc_aws_$key.err"
  BENCHPROF_CONFIG="$TMP/cfg/aws-$key.json" "$BENCHPROF" run \
    -o "$TMP/out-aws-$key" --project demo --testbed box --branch main \
    --hash "$HASH" -- "$TMP/harness.sh" \
    >"$TMP/run_aws_$key.out" 2>"$TMP/run_aws_$key.err"
  st=$?
  check "run, $key.token_env an AWS key: the harness's status ($st)" \
    [ "$st" -eq 0 ]
  check "run, $key.token_env: the harness's output survives" grep -qF \
    '"latency"' "$TMP/run_aws_$key.out"
  check "run, $key.token_env: the key named" grep -qF "\$.$key.token_env" \
    "$TMP/run_aws_$key.err"
done
cat >"$TMP/cfg/usable.json" <<JSON
{"enabled": true, "spool": "$TMP/spool-wrap", "output": "$TMP/out-wrap",
 "store": {"url": "file://$TMP/store-wrap"}, "network": {"retries": 0}}
JSON
args="--adapter json --project demo --testbed box --branch main"
BENCHPROF_CONFIG="$TMP/cfg/usable.json" BENCHPROF="$BENCHPROF" \
  BENCHPROF_RUN_ARGS="$args --hash $HASH --token-env $AK" \
  "$top_srcdir/runner-hooks/benchprof-wrap" "$TMP/harness.sh" \
  >"$TMP/wrap_aws.out" 2>"$TMP/wrap_aws.err"
st=$?
check "benchprof-wrap, --token-env an AWS key: the harness's status ($st)" \
  [ "$st" -eq 0 ]
check "benchprof-wrap: the harness's output survives" grep -qF '"latency"' \
  "$TMP/wrap_aws.out"
check "benchprof-wrap: names BENCHPROF_RUN_ARGS and why" grep -qF \
  "BENCHPROF_RUN_ARGS is not usable" "$TMP/wrap_aws.err"
leaks=$(grep -rlF --exclude-dir=cfg -e "$AK" -e "$HEXKEY" "$TMP")
check "the keys are in no output, log or artifact (${leaks:-none})" \
  [ -z "$leaks" ]

finish
