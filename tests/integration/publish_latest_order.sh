#!/bin/sh
# The branch's latest pointer names its newest commit that has a run, by
# the commits' committer times (git in the working directory), not the
# run that ended last: a re-run of an old commit published after the
# newer commit's run leaves it alone, the newer commit's run published
# after the old one's moves it forward, and so does a spooled old run
# flushed late (its commit time travels in publication.json).  Where git
# does not know the hash, the end time decides as before.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

command -v git >/dev/null 2>&1 ||
  { fail "git is not installed (scripts/setup-debian.sh installs it)"; finish; }
outside_ci
make_harness
unset BENCHER_API_TOKEN

# a repository with commits whose committer dates differ from their order
# of publication: OLD a day before NEW
repo="$TMP/repo"
git init -q "$repo"
# commit MESSAGE DATE: an empty commit made at DATE; its hash printed
commit() {
  GIT_COMMITTER_DATE="$2" GIT_AUTHOR_DATE="$2" git -C "$repo" \
    -c user.name=t -c user.email=t@example.org -c commit.gpgsign=false \
    commit -q --allow-empty -m "$1" && git -C "$repo" rev-parse HEAD
}
OLD=$(commit old "2024-01-01T10:00:00+02:00")
NEW=$(commit new "2024-01-02T10:00:00+02:00")
UNKNOWN=0123456789abcdef0123456789abcdef01234567
[ -n "$OLD" ] && [ -n "$NEW" ] || { fail "cannot make the commits"; finish; }

# publish CASE STORE HASH: one run of the harness for commit HASH of
# branch main, published to STORE from the repository (as CI runs it)
publish() {
  (cd "$repo" && "$BENCHPROF" run -o "$TMP/$1.out" --bmf "$TMP/h.json" \
    --project demo --branch main --testbed box --hash "$3" \
    --store "file://$2" --spool "$TMP/$1.spool" -- \
    "$TMP/harness.sh" "$TMP/h.json" 2>"$TMP/$1.err")
}
# latest STORE FIELD: that field of the branch's pointer ("null" for null)
latest() {
  python3 - "$1/demo/main/latest/box.json" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
print("null" if v is None else v)
PY
}
# stored HASH STORE: the commit's stored manifest is there
stored() {
  [ -f "$2/demo/main/$1/box/manifest.json" ]
}

# 1. the newer commit first, then a re-run of the old one (it ends later):
# the old run is stored, the pointer stays on the newer commit
publish new1 "$TMP/a" "$NEW"
check "newer commit: published" [ $? -eq 0 ]
check "newer commit: latest names it" [ "$(latest "$TMP/a" commit)" = "$NEW" ]
check "newer commit: latest has its committer time, in UTC" \
  [ "$(latest "$TMP/a" commit_time)" = 2024-01-02T08:00:00Z ]
check "newer commit: the stored manifest's identity has it too" python3 -c "
import json, sys
i = json.load(open(sys.argv[1]))['publication']['identity']
assert i['commit_time'] == '2024-01-02T08:00:00Z', i" \
  "$TMP/a/demo/main/$NEW/box/manifest.json"
end_new=$(latest "$TMP/a" end_time)
publish old1 "$TMP/a" "$OLD"
check "old commit re-run: published" [ $? -eq 0 ]
check "old commit re-run: its run is stored" stored "$OLD" "$TMP/a"
check "old commit re-run: latest still names the newer commit" \
  [ "$(latest "$TMP/a" commit)" = "$NEW" ]
check "old commit re-run: latest unchanged" \
  [ "$(latest "$TMP/a" end_time)" = "$end_new" ]
check "old commit re-run: nothing said about it" \
  sh -c '! grep -qiE "newer|older|pointer" "$1"' sh "$TMP/old1.err"

# 2. the same commit run again: the later run replaces it (end time)
publish new2 "$TMP/a" "$NEW"
check "same commit again: latest names it" \
  [ "$(latest "$TMP/a" commit)" = "$NEW" ]
check "same commit again: latest is the later run" \
  [ "$(latest "$TMP/a" end_time)" != "$end_new" ]

# 3. the reverse order: the old commit, then the newer one moves it forward
publish old3 "$TMP/b" "$OLD"
check "old commit first: latest names it" \
  [ "$(latest "$TMP/b" commit)" = "$OLD" ]
check "old commit first: its committer time" \
  [ "$(latest "$TMP/b" commit_time)" = 2024-01-01T08:00:00Z ]
publish new3 "$TMP/b" "$NEW"
check "then the newer commit: latest moves forward" \
  [ "$(latest "$TMP/b" commit)" = "$NEW" ]

# 4. a hash git does not have (a shallow clone, a commit from elsewhere):
# no commit time, so the end time decides, both ways
publish new4 "$TMP/c" "$NEW"
publish unknown4 "$TMP/c" "$UNKNOWN"
check "unknown hash: published" [ $? -eq 0 ]
check "unknown hash: the later run is latest (end time)" \
  [ "$(latest "$TMP/c" commit)" = "$UNKNOWN" ]
check "unknown hash: latest has no commit time" \
  [ "$(latest "$TMP/c" commit_time)" = null ]
publish old4 "$TMP/c" "$OLD"
check "after an unknown hash: the later run is latest again (end time)" \
  [ "$(latest "$TMP/c" commit)" = "$OLD" ]

# 5. a late spool flush: the old commit's run ends after the newer one's
# but its pointer cannot be written (a file where latest/ goes), so it is
# spooled with its commit time; flushed once the store is back, it leaves
# the newer commit's pointer alone
publish new5 "$TMP/d" "$NEW"
mv "$TMP/d/demo/main/latest" "$TMP/d.latest"
: >"$TMP/d/demo/main/latest"
publish old5 "$TMP/d" "$OLD"
check "old run, store failing: spooled" \
  [ "$(ls "$TMP/old5.spool" 2>/dev/null | wc -l)" -eq 1 ]
check "old run, store failing: publication.json has the commit time" \
  python3 -c "
import glob, json, sys
p, = glob.glob(sys.argv[1] + '/*/publication.json')
i = json.load(open(p))['identity']
assert i['commit'] == sys.argv[2] and i['commit_time'] == '2024-01-01T08:00:00Z', i" \
  "$TMP/old5.spool" "$OLD"
rm "$TMP/d/demo/main/latest"
mv "$TMP/d.latest" "$TMP/d/demo/main/latest"
# from outside the repository: flush needs no git
(cd "$TMP" && "$BENCHPROF" flush --spool "$TMP/old5.spool" >"$TMP/flush5.out" 2>&1)
check "flushed late: delivered" [ $? -eq 0 ]
check "flushed late: the spool is empty" [ -z "$(ls "$TMP/old5.spool")" ]
check "flushed late: latest still names the newer commit" \
  [ "$(latest "$TMP/d" commit)" = "$NEW" ]

finish
