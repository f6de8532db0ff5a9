#!/bin/sh
# benchprof compare reads the configuration benchprof run reads: the
# store, bencher.project and bencher.testbed locate BRANCH@latest and
# BRANCH@COMMIT sides, comment.threshold is the default threshold, and
# flags still win.  --config FILE and $BENCHPROF_CONFIG; without either,
# the default store does not hold these runs.
. "$top_srcdir/tests/lib.sh"

H1=1111111111111111111111111111111111111111
H2=2222222222222222222222222222222222222222
unset BENCHPROF_CONFIG GITHUB_ACTIONS GITLAB_CI BENCHER_API_TOKEN
cat >"$TMP/config.json" <<JSON
{"store": {"url": "file://$TMP/store"},
 "bencher": {"project": "demo", "testbed": "box"},
 "spool": "$TMP/spool",
 "comment": {"threshold": 7.5}}
JSON
for side in "main $H1" "feature/x $H2"; do
  set -- $side
  "$BENCHPROF" run -q --config "$TMP/config.json" -o "$TMP/run-$2" \
    --branch "$1" --hash "$2" -- "$WORKLOADS/split" 0.1 >/dev/null \
    2>>"$TMP/runs.err"
  check "run on $1: exit 0" [ $? -eq 0 ]
done
check "both runs stored under the configuration's project and testbed" \
  sh -c "[ -s '$TMP/store/demo/main/latest/box.json' ] &&
         [ -s '$TMP/store/demo/feature%2Fx/latest/box.json' ]"

# sides ok DIR BASE_HASH HEAD_HASH THRESHOLD: what compare.json says
sides_ok() {
  python3 - "$1/compare.json" "$2" "$3" "$4" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["base"]["hash"] == sys.argv[2], c["base"]
assert c["head"]["hash"] == sys.argv[3], c["head"]
assert abs(c["threshold_pct"] - float(sys.argv[4])) < 1e-9, c
PY
}

"$BENCHPROF" compare -q --config "$TMP/config.json" -o "$TMP/cmp1" \
  main@latest "feature%2Fx@latest" 2>"$TMP/cmp1.err"
check "--config: compare finds both runs" [ $? -eq 0 ]
check "--config: the sides and the configuration's threshold" sides_ok \
  "$TMP/cmp1" $H1 $H2 7.5
check "--config: the comment's marker names the project and testbed" \
  grep -q "benchprof:comment demo/box" "$TMP/cmp1/comment.md"

BENCHPROF_CONFIG="$TMP/config.json" "$BENCHPROF" compare -q -t 3 \
  -o "$TMP/cmp2" "main@$H1" "feature/x@$H2" 2>"$TMP/cmp2.err"
check "BENCHPROF_CONFIG: compare finds both commits" [ $? -eq 0 ]
check "BENCHPROF_CONFIG: -t wins over comment.threshold" sides_ok \
  "$TMP/cmp2" $H1 $H2 3

"$BENCHPROF" compare -q --config "$TMP/config.json" -n 101 -o "$TMP/cmp7" \
  main@latest "feature%2Fx@latest" 2>"$TMP/cmp7.err"
check "-n takes 0 to 100, as comment.max_functions: 101 is a usage error" \
  sh -c "[ $? -eq 2 ] && grep -q '0 to 100' '$TMP/cmp7.err'"
"$BENCHPROF" compare -q --config "$TMP/config.json" -n 0 -o "$TMP/cmp8" \
  main@latest "feature%2Fx@latest" 2>"$TMP/cmp8.err"
check "-n 0 (no function rows) is taken" sh -c \
  "[ $? -eq 0 ] && ! grep -q 'changed most:' '$TMP/cmp8/comment.md'"

"$BENCHPROF" compare -q -o "$TMP/cmp3" main@latest "feature%2Fx@latest" \
  2>"$TMP/cmp3.err"
check "no configuration: the default store has no such run" [ $? -ne 0 ]

"$BENCHPROF" compare -q --config "$TMP/config.json" --store \
  "file://$TMP/elsewhere" -o "$TMP/cmp4" main@latest \
  "feature%2Fx@latest" 2>"$TMP/cmp4.err"
check "--store wins over the configuration's" [ $? -ne 0 ]
"$BENCHPROF" compare -q --config "$TMP/nonexistent.json" -o "$TMP/cmp5" \
  main@latest "feature%2Fx@latest" 2>"$TMP/cmp5.err"
check "a missing --config file: exit 2, named" sh -c \
  "[ $? -eq 2 ] && grep -q nonexistent.json '$TMP/cmp5.err'"
echo '{"store": {"urll": "file:///x"}}' >"$TMP/bad.json"
"$BENCHPROF" compare -q --config "$TMP/bad.json" -o "$TMP/cmp6" \
  main@latest "feature%2Fx@latest" 2>"$TMP/cmp6.err"
check "an invalid configuration: exit 2, the key named" sh -c \
  "[ $? -eq 2 ] && grep -q urll '$TMP/cmp6.err'"
finish
