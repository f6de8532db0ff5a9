#!/bin/sh
# comment.file: a pull request's run also writes its comment's markdown to
# the named file (a relative path is the working directory's, its
# directories made), the same bytes as OUTPUT/compare/comment.md; a run
# whose comparison writes no comment (the store unreadable), and one that
# is never compared (its command failed, --no-publish), removes the copy
# an earlier run left there.
. "$top_srcdir/tests/lib.sh"

unset BENCHPROF_CONFIG GITHUB_ACTIONS GITLAB_CI BENCHER_API_TOKEN \
  BENCHPROF_STORE BENCHPROF_OUTPUT
repo="$TMP/repo"
mkdir -p "$repo"
(cd "$repo" && git init -q && git -c user.email=a@b -c user.name=a \
  commit -q --allow-empty -m base) || { echo "git init failed"; exit 99; }
base=$(git -C "$repo" rev-parse HEAD)
git -C "$repo" -c user.email=a@b -c user.name=a commit -q --allow-empty \
  -m head
head=$(git -C "$repo" rev-parse HEAD)

# config FILE STORE COMMENT_FILE
config() {
  cat >"$1" <<JSON
{"store": {"url": "$2"}, "spool": "$TMP/spool",
 "bencher": {"project": "demo", "testbed": "box"},
 "network": {"retries": 0, "timeout": 2},
 "comment": {"file": "$3"}}
JSON
}
config "$TMP/abs.json" "file://$TMP/store" "$TMP/copies/abs/comment.md"
config "$TMP/rel.json" "file://$TMP/store" "posted/comment.md"

cd "$repo" || exit 99
"$BENCHPROF" run -q --config "$TMP/abs.json" -o "$TMP/out-base" \
  --branch main --hash "$base" -- "$WORKLOADS/split" 0.1 >/dev/null \
  2>"$TMP/base.err"
check "the base's run: exit 0" [ $? -eq 0 ]
check "a run that is no pull request's writes no comment.file" \
  [ ! -e "$TMP/copies/abs/comment.md" ]

"$BENCHPROF" run -q --config "$TMP/abs.json" -o "$TMP/out-abs" \
  --branch feat --hash "$head" --base-branch main --base-hash "$base" \
  -- "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/abs.err"
check "the pull request's run: exit 0" [ $? -eq 0 ]
check "an absolute comment.file (directories made) holds comment.md's bytes" \
  cmp "$TMP/out-abs/compare/comment.md" "$TMP/copies/abs/comment.md"
check "the copy is the comparison's comment" \
  grep -q "benchprof:comment demo/box" "$TMP/copies/abs/comment.md"

"$BENCHPROF" run -q --config "$TMP/rel.json" -o "$TMP/out-rel" \
  --branch feat --hash "$head" --base-branch main --base-hash "$base" \
  -- "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/rel.err"
check "a relative comment.file is the working directory's" \
  cmp "$TMP/out-rel/compare/comment.md" "$repo/posted/comment.md"

# the same pull request's run again, its command failing: not compared,
# and the passing run's copy goes
"$BENCHPROF" run -q --config "$TMP/rel.json" -o "$TMP/out-rel" \
  --branch feat --hash "$head" --base-branch main --base-hash "$base" \
  -- sh -c 'exit 1' >/dev/null 2>"$TMP/fail.err"
check "a failed pull request's run: the command's exit status 1" [ $? -eq 1 ]
check "a failed run: no compare/comment.md" \
  [ ! -e "$TMP/out-rel/compare/comment.md" ]
check "a failed run: the earlier comment.file is removed" \
  [ ! -e "$repo/posted/comment.md" ]

# written again, then a run that is not compared (--no-publish)
"$BENCHPROF" run -q --config "$TMP/rel.json" -o "$TMP/out-rel" \
  --branch feat --hash "$head" --base-branch main --base-hash "$base" \
  -- "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/rel2.err"
check "the pull request's run writes comment.file again" \
  [ -s "$repo/posted/comment.md" ]
"$BENCHPROF" run -q --config "$TMP/rel.json" -o "$TMP/out-rel" \
  --no-publish --branch feat --hash "$head" --base-branch main \
  --base-hash "$base" -- "$WORKLOADS/split" 0.1 >/dev/null \
  2>"$TMP/nopub.err"
check "--no-publish: exit 0" [ $? -eq 0 ]
check "--no-publish: the earlier comment.file is removed" \
  [ ! -e "$repo/posted/comment.md" ]

# the store unreadable: no comment, and the earlier copy goes
config "$TMP/down.json" "http://127.0.0.1:1/st" "$TMP/copies/abs/comment.md"
"$BENCHPROF" run -q --config "$TMP/down.json" -o "$TMP/out-down" \
  --branch feat --hash "$head" --base-branch main --base-hash "$base" \
  -- "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/down.err"
check "store down: the run writes no comment.md" \
  [ ! -e "$TMP/out-down/compare/comment.md" ]
check "store down: the earlier comment.file is removed" \
  [ ! -e "$TMP/copies/abs/comment.md" ]
finish
