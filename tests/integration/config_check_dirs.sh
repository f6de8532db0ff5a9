#!/bin/sh
# benchprof config check and the output and spool directories, as the
# runner's (unprivileged) user would run it: an output directory that
# user can neither write nor make is an error naming the key, the path,
# the user and the fix (every job would otherwise run unprofiled); such a
# spool directory is a warning with the same message (runs still profile
# and publish, unspooled), so benchprof-wrap still profiles; writable or
# makeable ones are valid, and the check creates nothing.  As root the check runs as uid 65534 through setpriv; as
# another user, the unwritable directories are made read-only with chmod.
. "$top_srcdir/tests/lib.sh"

# the tree must be searchable by uid 65534 (mktemp made it 0700)
chmod 755 "$TMP"
cp "$BENCHPROF" "$TMP/benchprof"
cp "$top_srcdir/runner-hooks/benchprof-wrap" "$TMP/benchprof-wrap"
chmod 755 "$TMP/benchprof-wrap"
mkdir "$TMP/theirs" "$TMP/mine" "$TMP/mine/spool"
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv >/dev/null ||
    { echo "FAIL: setpriv (util-linux) is needed to drop privileges"; exit 1; }
  run_as() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  # theirs stays root's 0755: readable, not writable, for uid 65534
  chown -R 65534:65534 "$TMP/mine"
else
  run_as() { "$@"; }
  chmod 555 "$TMP/theirs"
  at_exit 'chmod 755 "$TMP/theirs"'
fi
user=$(run_as id -un 2>/dev/null) || user=$(run_as id -u)

# conf NAME OUTPUT SPOOL: a config file enabling runs with these directories
conf() {
  printf '{"enabled": true, "output": "%s", "spool": "%s"}\n' "$2" "$3" \
    >"$TMP/$1.json"
  chmod 644 "$TMP/$1.json"
}

# expect_error NAME TEXT...: config check exits 2, its message has each TEXT
expect_error() {
  name=$1
  shift
  run_as "$TMP/benchprof" config check --config "$TMP/$name.json" \
    >"$TMP/out" 2>"$TMP/err"
  st=$?
  [ $st -eq 2 ] || { echo "exit status $st"; cat "$TMP/out" "$TMP/err"; return 1; }
  for t in "$@"; do
    grep -qF -- "$t" "$TMP/err" || { echo "no '$t' in:"; cat "$TMP/err"; return 1; }
  done
}

# expect_warning NAME TEXT...: config check exits 0 (valid), its warning
# has each TEXT
expect_warning() {
  name=$1
  shift
  run_as "$TMP/benchprof" config check --config "$TMP/$name.json" \
    >"$TMP/out" 2>"$TMP/err"
  st=$?
  [ $st -eq 0 ] || { echo "exit status $st"; cat "$TMP/out" "$TMP/err"; return 1; }
  grep -qF "warning:" "$TMP/err" || { echo "no warning:"; cat "$TMP/err"; return 1; }
  for t in "$@"; do
    grep -qF -- "$t" "$TMP/err" || { echo "no '$t' in:"; cat "$TMP/err"; return 1; }
  done
}

# 1. output under a directory the user cannot write: cannot be made
conf out-missing "$TMP/theirs/out" "$TMP/mine/spool"
check "output that cannot be made: error naming \$.output, path, user, fix" \
  expect_error out-missing "$TMP/out-missing.json: \$.output: '$TMP/theirs/out' does not exist and cannot be created in '$TMP/theirs'" \
  "(user $user)" "unprofiled" "install -d -o $user $TMP/theirs/out"
check "the spool is not blamed for the output" \
  sh -c "! grep -qF '\$.spool' '$TMP/err'"

# 2. output that exists and is not writable
conf out-ro "$TMP/theirs" "$TMP/mine/spool"
check "output that is not writable: error naming \$.output" \
  expect_error out-ro "\$.output: '$TMP/theirs' is not writable" \
  "install -d -o $user $TMP/theirs"

# 3. the spool: existing and not writable, then not makeable: a warning
# (runs still profile and publish, only without a spool), valid
conf spool-ro "$TMP/mine/out" "$TMP/theirs"
check "spool that is not writable: a warning naming \$.spool, valid" \
  expect_warning spool-ro "$TMP/spool-ro.json: \$.spool: '$TMP/theirs' is not writable" \
  "(user $user)" "not be spooled" "install -d -o $user $TMP/theirs"
check "the output is not blamed for the spool" \
  sh -c "! grep -qF '\$.output' '$TMP/err'"
conf spool-missing "$TMP/mine/out" "$TMP/theirs/a/b/spool"
check "spool that cannot be made: nearest existing parent named" \
  expect_warning spool-missing "'$TMP/theirs/a/b/spool' does not exist and cannot be created in '$TMP/theirs'"

# 4. a file where the directory should be
: >"$TMP/mine/file"
chmod 666 "$TMP/mine/file"
conf out-file "$TMP/mine/file/out" "$TMP/mine/spool"
check "output under a file: not a directory" \
  expect_error out-file "\$.output: '$TMP/mine/file/out' does not exist and cannot be created in '$TMP/mine/file': Not a directory"
conf out-is-file "$TMP/mine/file" "$TMP/mine/spool"
check "output that is a file: not a directory" \
  expect_error out-is-file "\$.output: '$TMP/mine/file' is not a directory"

# 5. the environment's override is named instead of the file's key
conf good "$TMP/mine/out/deeper" "$TMP/mine/spool"
BENCHPROF_SPOOL="$TMP/theirs/spool"; export BENCHPROF_SPOOL
check "\$BENCHPROF_SPOOL named when it sets the spool" \
  expect_warning good "BENCHPROF_SPOOL: '$TMP/theirs/spool' does not exist"
unset BENCHPROF_SPOOL

# 6. benchprof-wrap (which asks config check whether profiling is on): the
# command runs unprofiled with its status and the warning says why; with
# "strict": true in the file the job fails instead (--enabled exit 3)
run_as env BENCHPROF="$TMP/benchprof" BENCHPROF_CONFIG="$TMP/out-missing.json" \
  "$TMP/benchprof-wrap" sh -c 'exit 3' >"$TMP/wrap.out" 2>"$TMP/wrap.err"
check "wrap: the command's status" [ $? -eq 3 ]
check "wrap: the warning names \$.output and the fix" \
  grep -qF "\$.output: '$TMP/theirs/out' does not exist" "$TMP/wrap.err"
printf '{"enabled": true, "strict": true, "output": "%s"}\n' \
  "$TMP/theirs/out" >"$TMP/strict.json"
chmod 644 "$TMP/strict.json"
run_as env BENCHPROF="$TMP/benchprof" BENCHPROF_CONFIG="$TMP/strict.json" \
  "$TMP/benchprof-wrap" --enabled >/dev/null 2>"$TMP/wrap.err"
check "wrap --enabled, strict file: invalid and strict (3)" [ $? -eq 3 ]
run_as env BENCHPROF="$TMP/benchprof" BENCHPROF_CONFIG="$TMP/spool-ro.json" \
  "$TMP/benchprof-wrap" --enabled >/dev/null 2>"$TMP/wrap.err"
check "wrap --enabled, unusable spool only: profiling stays on (0)" \
  [ $? -eq 0 ]

# 7. writable and makeable directories: valid, and nothing made
run_as "$TMP/benchprof" config check --config "$TMP/good.json" \
  >"$TMP/out" 2>"$TMP/err"
check "writable spool, makeable output: valid, exit 0" [ $? -eq 0 ]
check "the file is said to be valid" \
  grep -qF "$TMP/good.json: valid" "$TMP/out"
check "config check creates nothing" [ ! -e "$TMP/mine/out" ]
conf both-exist "$TMP/mine" "$TMP/mine/spool"
check "existing writable output and spool: valid" \
  run_as "$TMP/benchprof" config check --config "$TMP/both-exist.json"
finish
