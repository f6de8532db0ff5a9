#!/bin/sh
# A benchmark binary named with its build's hash, on real runs of
# `benchprof run` and `benchprof compare`:
# - mybench-3f2a9c1d on the base and mybench-77ab0e12 (twice the work) on
#   the head, --repeat 5, named by default after the file: compared as one
#   benchmark (compare.json's base_name, a line in the comment), a
#   confirmed regression in the headline, --fail-on-regression exits 3;
# - two new and two removed that differ by a hash: none paired (which
#   goes with which is a guess), the comment says to name the benchmark;
#   one new and one removed that differ by a number only: not paired;
#   another separator (a.deadbeef, a_deadbeef): not paired; a base's
#   hashed name and the head's plain one (the default name's change), or a
#   base's plain name and the head's hashed one: paired, and unpaired
#   among several;
# - the process renamed only by its hash (comm's 15 bytes): matched, not told;
# - cargo's deps/NAME-<16 hex digits>: the default name is NAME;
# - the base's command another than the head's: the same program under
#   two runners' work directories (or two builds, any build hash) is no other
#   command, nor is a base published before secrets were hidden (its
#   --token=VALUE in the clear, the head's --token=***, or a URL's
#   password and a header's token where the head's have ***); another
#   program, or a hidden URL's other host, is, and with a suite the note says that the suite's command changed
#   instead of advising --suite.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need_workload cmpwork_base cmpwork_head
outside_ci

cmp() {  # NAME BASE HEAD [COMPARE OPTIONS...]: exit status in $status
  name=$1 b=$2 h=$3
  shift 3
  "$BENCHPROF" compare -o "$TMP/cmp-$name" "$@" "$b" "$h" \
    >"$TMP/cmp-$name.out" 2>"$TMP/cmp-$name.err"
  status=$?
}

# ------------------------------------------------- two hash-named builds
mkdir -p "$TMP/b1/target" "$TMP/b2/target"
cp "$WORKLOADS/cmpwork_base" "$TMP/b1/target/mybench-3f2a9c1d"
cp "$WORKLOADS/cmpwork_head" "$TMP/b2/target/mybench-77ab0e12"
# the head's cmp_changed does 4x the work: 2x the whole; --repeat 5 a side
# (as compare_verdicts.sh) confirms it
for side in base:b1/target/mybench-3f2a9c1d head:b2/target/mybench-77ab0e12
do
  "$BENCHPROF" run -q --no-publish --repeat 5 -o "$TMP/${side%%:*}" -- \
    "$TMP/${side#*:}" 100 >"$TMP/${side%%:*}.out" 2>"$TMP/${side%%:*}.err"
  check "run ${side%%:*} (${side#*/target/}) succeeds" [ $? -eq 0 ]
done

cmp pair "$TMP/base" "$TMP/head" --fail-on-regression
check "names differing by a build hash, 2x the work: --fail-on-regression exits 3" \
  [ "$status" -eq 3 ]
[ "$status" -eq 3 ] || sed 's/^/  stderr: /' "$TMP/cmp-pair.err" >&2
pycheck "compared as one benchmark: base_name, the verdict, the comment's line" \
  "$TMP/cmp-pair" <<'PY'
import json, os, re, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["new"] == 0 and c["removed"] == 0, c
assert c["regressions"] == 1 and not c["build_hash_names_unpaired"], c
b, = c["benchmarks"]
assert b["name"] == "mybench-77ab0e12", b["name"]
brief = {k: b[k] for k in ("base_name", "presence", "flag",
                           "renamed_base_process", "renamed_head_process")}
assert b["base_name"] == "mybench-3f2a9c1d", brief
assert b["presence"] == "both" and b["flag"] == "regression", brief
m = {x["slug"]: x for x in b["measures"]}["task-clock"]
assert m["confirmed"] and m["basis"] == "mann-whitney", m
# the base's stacks are read under the head's process name, but a rename
# by the build hash alone (the kernel's 15 bytes of each) is not told
assert b["renamed_base_process"] is None, brief
assert b["renamed_head_process"] is None, brief
roots = {l.split(";", 1)[0] for l in
         open(os.path.join(sys.argv[1], "diff.folded"))}
assert roots == {"mybench-77ab0e1"}, roots
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "The base's program" not in md, md
assert "\n_Compared `mybench-77ab0e12` with the base's `mybench-3f2a9c1d`: " \
       "their names differ only by a build hash._\n" in md, md[:1500]
assert re.search(r"^\*\*1 regression confirmed, 0 unconfirmed\*\*, worst: "
                 r"\*\*mybench-77ab0e12\*\* task-clock \+", md, re.M), md[:800]
assert "new" not in md.split("\n")[1], md[:300]      # the title
assert "another command" not in md, md[:1500]
PY

cmp pair-nogate "$TMP/base" "$TMP/head"
check "without --fail-on-regression the same comparison exits 0" \
  [ "$status" -eq 0 ]

# -------------------------------------------- several: none of them paired
# a harness that prints its own BMF: the benchmarks named as given
bmf_run() {  # DIR NAME...
  dir=$1
  shift
  json="" sep=""
  for n in "$@"; do
    json="$json$sep\"$n\": {\"latency\": {\"value\": 100}}"
    sep=", "
  done
  "$BENCHPROF" run -q --no-publish -o "$dir" --adapter json --no-counters \
    -- sh -c "echo '{$json}'" >"$dir.out" 2>"$dir.err"
  check "run $(basename "$dir") succeeds" [ $? -eq 0 ]
}
bmf_run "$TMP/two-base" alpha-3f2a9c1d beta-3f2a9c1d
bmf_run "$TMP/two-head" alpha-77ab0e12 beta-77ab0e12
cmp two "$TMP/two-base" "$TMP/two-head"
pycheck "two new and two removed: not paired, the comment says to name them" \
  "$TMP/cmp-two" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["new"] == 2 and c["removed"] == 2, c
assert c["build_hash_names_unpaired"] is True, c
assert all(b["base_name"] is None for b in c["benchmarks"]), c
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "_Compared" not in md, md
assert "differ only by a build hash in their names" in md, md
assert "for names the harness reports, have it name its benchmarks " \
       "without the build hash; for a run without harness output, " \
       "`benchprof run --name NAME`" in md, md
PY

# the separator is the name's: a.deadbeef and a_deadbeef are two
bmf_run "$TMP/sep-base" a.deadbeef
bmf_run "$TMP/sep-head" a_deadbeef
cmp sep "$TMP/sep-base" "$TMP/sep-head"
# stored before the default name dropped cargo's hash: the one rename
bmf_run "$TMP/up-base" mybench-0123456789abcdef
bmf_run "$TMP/up-head" mybench
cmp up "$TMP/up-base" "$TMP/up-head"
pycheck "another separator is not paired; a base's hash and the head's none are" \
  "$TMP/cmp-sep" "$TMP/cmp-up" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["new"] == 1 and c["removed"] == 1, c
assert not c["build_hash_names_unpaired"], c
assert all(b["base_name"] is None for b in c["benchmarks"]), c
c = json.load(open(os.path.join(sys.argv[2], "compare.json")))
assert c["new"] == 0 and c["removed"] == 0, c
b, = c["benchmarks"]
assert b["name"] == "mybench", b
assert b["base_name"] == "mybench-0123456789abcdef", b
md = open(os.path.join(sys.argv[2], "comment.md")).read()
assert "\n_Compared `mybench` with the base's `mybench-0123456789abcdef`: " \
       "their names differ only by a build hash._\n" in md, md[:1500]
PY
# several new and removed, one a base's hashed name of a head's plain one
bmf_run "$TMP/up2-base" mybench-0123456789abcdef other-0123456789abcdef
bmf_run "$TMP/up2-head" mybench next
cmp up2 "$TMP/up2-base" "$TMP/up2-head"
pycheck "a base's hashed name of a head's plain one among several: unpaired" \
  "$TMP/cmp-up2" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["new"] == 2 and c["removed"] == 2, c
assert c["build_hash_names_unpaired"] is True, c
PY

# the other way: a base named plain (--name), the head's build hash kept
# (not cargo's 16 digits, which the default name drops)
bmf_run "$TMP/down-base" mybench
bmf_run "$TMP/down-head" mybench-3f2a9c1d
cmp down "$TMP/down-base" "$TMP/down-head"
bmf_run "$TMP/down2-base" mybench other
bmf_run "$TMP/down2-head" mybench-3f2a9c1d next
cmp down2 "$TMP/down2-base" "$TMP/down2-head"
bmf_run "$TMP/size-base" sort
bmf_run "$TMP/size-head" sort-1000000
cmp size "$TMP/size-base" "$TMP/size-head"
pycheck "a base's plain name and the head's hashed one: paired; among several not" \
  "$TMP/cmp-down" "$TMP/cmp-down2" "$TMP/cmp-size" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["new"] == 0 and c["removed"] == 0, c
assert not c["build_hash_names_unpaired"], c
b, = c["benchmarks"]
assert b["name"] == "mybench-3f2a9c1d", b
assert b["base_name"] == "mybench", b
assert b["presence"] == "both", b
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n_Compared `mybench-3f2a9c1d` with the base's `mybench`: " \
       "their names differ only by a build hash._\n" in md, md[:1500]
c = json.load(open(os.path.join(sys.argv[2], "compare.json")))
assert c["new"] == 2 and c["removed"] == 2, c
assert c["build_hash_names_unpaired"] is True, c
assert all(b["base_name"] is None for b in c["benchmarks"]), c
# a size is no hash, on the head's side as on the base's
c = json.load(open(os.path.join(sys.argv[3], "compare.json")))
assert c["new"] == 1 and c["removed"] == 1, c
assert not c["build_hash_names_unpaired"], c
PY

# sizes, not hashes: one new and one removed, both suffixes decimal
bmf_run "$TMP/num-base" sort-1000000
bmf_run "$TMP/num-head" sort-2000000
cmp num "$TMP/num-base" "$TMP/num-head"
# one of them hashed the same way as another removed one: still ambiguous
bmf_run "$TMP/one-base" gamma-3f2a9c1d gamma_3f2a9c1
bmf_run "$TMP/one-head" gamma-77ab0e12
cmp one "$TMP/one-base" "$TMP/one-head"
pycheck "sort-1000000 and sort-2000000 are not paired; 1 new, 2 removed neither" \
  "$TMP/cmp-num" "$TMP/cmp-one" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["new"] == 1 and c["removed"] == 1, c
assert not c["build_hash_names_unpaired"], c
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "build hash" not in md, md
c = json.load(open(os.path.join(sys.argv[2], "compare.json")))
assert c["new"] == 1 and c["removed"] == 2, c
assert c["build_hash_names_unpaired"] is True, c
PY

# -------------------------------------------------- cargo's default name
mkdir -p "$TMP/cargo/target/release/deps"
cp "$WORKLOADS/cmpwork_base" \
  "$TMP/cargo/target/release/deps/mybench-0123456789abcdef"
cp "$WORKLOADS/cmpwork_base" "$TMP/cargo/tool-0123456789ABCDEF"
cp "$WORKLOADS/cmpwork_base" "$TMP/cargo/tool-0123456789abcde"
for prog in target/release/deps/mybench-0123456789abcdef \
            tool-0123456789ABCDEF tool-0123456789abcde; do
  out=$TMP/cargo-$(basename "$prog")
  "$BENCHPROF" run -q --no-publish --counters task-clock -o "$out" -- \
    "$TMP/cargo/$prog" 5 >"$out.out" 2>"$out.err"
  check "run $(basename "$prog") succeeds" [ $? -eq 0 ]
done
pycheck "the default name is cut before cargo's hash (16 lowercase hex digits only)" \
  "$TMP" <<'PY'
import json, os, sys
def names(d):
    r = json.load(open(os.path.join(sys.argv[1], d, "report.json")))
    m = json.load(open(os.path.join(sys.argv[1], d, "manifest.json")))
    assert [b["name"] for b in m["benchmarks"]] == list(r), (r, m)
    return list(r)
assert names("cargo-mybench-0123456789abcdef") == ["mybench"]
assert names("cargo-tool-0123456789ABCDEF") == ["tool-0123456789ABCDEF"]
assert names("cargo-tool-0123456789abcde") == ["tool-0123456789abcde"]
PY

# ------------------------------------------------ another command, or not
# one harness, its benchmark named by BENCH: the same program and
# arguments under two runners' work directories, and another program
HARNESS='#!/bin/sh
echo "{\"$BENCH\": {\"latency\": {\"value\": 100}}}"'
for p in home/runner/_work/a/bench builds/x/bench home/runner/_work/a/other \
         a/deps/bench-0123456789abcdef b/deps/bench-fedcba9876543210 \
         a/emit-3f2a9c1d b/emit-77ab0e12; do
  mkdir -p "$TMP/cmd/$(dirname "$p")"
  printf '%s\n' "$HARNESS" >"$TMP/cmd/$p"
  chmod +x "$TMP/cmd/$p"
done
cmd_run() {  # NAME BENCH PROGRAM
  BENCH=$2 "$BENCHPROF" run -q --no-publish -o "$TMP/$1" --adapter json \
    --no-counters -- "$TMP/cmd/$3" --size 3 >"$TMP/$1.out" 2>"$TMP/$1.err"
  check "run $1 succeeds" [ $? -eq 0 ]
}
cmd_run cmd-base one home/runner/_work/a/bench
cmd_run cmd-moved two builds/x/bench
cmd_run cmd-other two home/runner/_work/a/other
cmd_run cmd-cargo1 one a/deps/bench-0123456789abcdef
cmd_run cmd-cargo2 two b/deps/bench-fedcba9876543210
cmp moved "$TMP/cmd-base" "$TMP/cmd-moved"
cmp cargo "$TMP/cmd-cargo1" "$TMP/cmd-cargo2"
cmd_run cmd-emit1 one a/emit-3f2a9c1d
cmd_run cmd-emit2 two b/emit-77ab0e12
cmp emit "$TMP/cmd-emit1" "$TMP/cmd-emit2"
# a base published before secrets were hidden: its manifest's command has
# the token in the clear where the head's has ***
BENCH=one "$BENCHPROF" run -q --no-publish -o "$TMP/cmd-clear" --adapter json \
  --no-counters -- "$TMP/cmd/home/runner/_work/a/bench" --token=abc --size 3 \
  >"$TMP/cmd-clear.out" 2>"$TMP/cmd-clear.err"
check "run cmd-clear succeeds" [ $? -eq 0 ]
BENCH=two "$BENCHPROF" run -q --no-publish -o "$TMP/cmd-hidden" --adapter json \
  --no-counters -- "$TMP/cmd/builds/x/bench" --token=abc --size 3 \
  >"$TMP/cmd-hidden.out" 2>"$TMP/cmd-hidden.err"
check "run cmd-hidden succeeds" [ $? -eq 0 ]
python3 - "$TMP/cmd-clear/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["command"].endswith(" '--token=***' --size 3"), m["command"]
m["command"] = m["command"].replace("'--token=***'", "--token=abc")
json.dump(m, open(sys.argv[1], "w"))
PY
check "the old base's command has the token in the clear" [ $? -eq 0 ]
cmp clear "$TMP/cmd-clear" "$TMP/cmd-hidden"
# secrets hidden inside an argument (a URL's user information, a header's
# credentials): an old base has them in the clear; the head's URL for
# the same host is the same command, for another host it is not
url_run() {  # NAME BENCH PROGRAM HOST
  BENCH=$2 "$BENCHPROF" run -q --no-publish -o "$TMP/$1" --adapter json \
    --no-counters -- "$TMP/cmd/$3" "--url=https://u:pw$2@$4/x" \
    "--header=Authorization: Bearer tok$2" --size 3 \
    >"$TMP/$1.out" 2>"$TMP/$1.err"
  check "run $1 succeeds" [ $? -eq 0 ]
}
url_run cmd-url-clear one home/runner/_work/a/bench host.example
url_run cmd-url-hidden two builds/x/bench host.example
url_run cmd-url-other three builds/x/bench other.example
python3 - "$TMP/cmd-url-clear/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
hidden = " '--url=https://***@host.example/x' " \
         "'--header=Authorization: Bearer ***' --size 3"
assert m["command"].endswith(hidden), m["command"]
m["command"] = m["command"].replace(hidden, " --url=https://u:pwone@host." \
  "example/x '--header=Authorization: Bearer tokone' --size 3")
json.dump(m, open(sys.argv[1], "w"))
PY
check "the old base's URL and header have their secrets in the clear" \
  [ $? -eq 0 ]
cmp url-clear "$TMP/cmd-url-clear" "$TMP/cmd-url-hidden"
cmp url-hidden "$TMP/cmd-url-other" "$TMP/cmd-url-hidden"
cmp url-other "$TMP/cmd-url-clear" "$TMP/cmd-url-other"
cmp other "$TMP/cmd-base" "$TMP/cmd-other"
cmp other-suite "$TMP/cmd-base" "$TMP/cmd-other" --suite micro
pycheck "another command: by program name and arguments, not directory" \
  "$TMP" <<'PY'
import json, os, sys
def md(name):
    d = os.path.join(sys.argv[1], "cmp-" + name)
    c = json.load(open(os.path.join(d, "compare.json")))
    assert c["new"] == 1 and c["removed"] == 1, (name, c)
    return open(os.path.join(d, "comment.md")).read()
# the manifests keep the absolute paths that differ
man = json.load(open(os.path.join(sys.argv[1], "cmd-moved", "manifest.json")))
assert man["command"].endswith("/builds/x/bench --size 3"), man["command"]
note = "_The base run is of another command than this run's"
assert note not in md("moved"), md("moved")
assert note not in md("cargo"), md("cargo")
assert note not in md("emit"), md("emit")    # any build hash, as pairing
assert note not in md("clear"), md("clear")  # a hidden value, any value
assert note not in md("url-clear"), md("url-clear")  # *** inside a word
m = md("url-hidden")   # both hidden alike, but for another host
assert note in m, m
m = md("url-other")    # the clear base's host is not the head's
assert note in m, m
m = md("other")
assert note in m and "gives each its own `--suite NAME`._" in m, m
m = md("other-suite")
assert note in m and "the suite's command changed._" in m, m
assert "--suite" not in m, m
PY

finish
