# Helpers for the tests that talk to a forge stand-in (GitHub, GitLab:
# tests/servers/*_standin.py); sourced after tests/lib.sh.

# forge_standin KIND DIR TOKEN [ARGS...]: starts
# tests/servers/KIND_standin.py (KIND github or gitlab) on 127.0.0.1 with
# its files in DIR (requests.log, state.json, statuses.json), stopped when
# the test ends; its address, http://127.0.0.1:PORT, in $FORGE_URL.  The
# test fails now when it does not start.
forge_standin() {
  kind=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  python3 "$top_srcdir/tests/servers/${kind}_standin.py" "$dir" "$@" \
    2>"$dir/server.err" &
  at_exit "kill $! 2>/dev/null"
  i=0
  while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  if [ ! -s "$dir/port" ]; then
    fail "the $kind stand-in did not start"
    sed 's/^/  server: /' "$dir/server.err" >&2
    finish
  fi
  FORGE_URL="http://127.0.0.1:$(cat "$dir/port")"
}

# forge_comment FILE REGRESSIONS [LINE...]: a comment as benchprof writes
# one, its marker (project proj, testbed tb) first, then (when
# $FORGE_COMPARED is set) the compared line it names, then a heading with
# the number of regressions and the lines
forge_comment() {
  file=$1 n=$2
  shift 2
  {
    echo '<!-- benchprof:comment proj/tb -->'
    if [ -n "${FORGE_COMPARED:-}" ]; then
      echo "<!-- benchprof:compared $FORGE_COMPARED -->"
    fi
    if [ "$n" = 1 ]; then
      echo '### benchprof: 1 regression'
    else
      echo "### benchprof: $n regressions"
    fi
    for line in "$@"; do
      echo "$line"
    done
  } >"$file"
}

# forge_comparison DIR SHA REGRESSIONS UNCONFIRMED UNCHANGED [LINE...]: a
# comparison as benchprof compare leaves it, DIR/comment.md
# (forge_comment) and beside it DIR/compare.json, whose head commit and
# counts make the commit status
forge_comparison() {
  dir=$1 sha=$2 regressions=$3 unconfirmed=$4 unchanged=$5
  shift 5
  mkdir -p "$dir"
  forge_comment "$dir/comment.md" "$regressions" "$@"
  printf '{"head": {"hash": "%s"}, "regressions": %s, "improvements": 0,
 "unchanged": %s, "new": 0, "removed": 0, "unconfirmed_regressions": %s}\n' \
    "$sha" "$regressions" "$unchanged" "$unconfirmed" >"$dir/compare.json"
}

# forge_compared FILE "FIELDS" REGRESSIONS [LINE...]: forge_comment with
# the compared line "<!-- benchprof:compared FIELDS -->" after the marker
# (FIELDS: head=SHA commit_time=T end_time=T, as benchprof writes them)
forge_compared() {
  FORGE_COMPARED=$2
  file=$1
  shift 2
  forge_comment "$file" "$@"
  FORGE_COMPARED=
}

# forge_timed_comparison NAME SHA COMMIT_TIME END_TIME REGRESSIONS UNCONFIRMED UNCHANGED
# TEXT: $TMP/NAME/comment.md with its compared line, compare.json beside
forge_timed_comparison() {
  forge_comparison "$TMP/$1" "$2" "$5" "$6" "$7"
  forge_compared "$TMP/$1/comment.md" \
    "head=$2 commit_time=$3 end_time=$4" "$5" "$8"
}

# forge_job KIND NAME: benchprof comment of $TMP/NAME/comment.md on request 5
# of the KIND stand-in at $FORGE_URL, stderr in $TMP/KIND-NAME.err, its
# exit status in $TMP/KIND-NAME.rc
forge_job() {
  if [ "$1" = github ]; then
    GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
      "$TMP/$2/comment.md" --github own/repo --pr 5 --api-url "$FORGE_URL" \
      >/dev/null 2>"$TMP/$1-$2.err"
  else
    GITLAB_TOKEN=$TOKEN "$BENCHPROF" comment --markdown \
      "$TMP/$2/comment.md" --gitlab 42 --mr 5 \
      --api-url "$FORGE_URL/api/v4" >/dev/null 2>"$TMP/$1-$2.err"
  fi
  echo $? >"$TMP/$1-$2.rc"
}
