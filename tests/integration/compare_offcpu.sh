#!/bin/sh
# A benchmark slower because it waits longer: the offcpu workload sleeps
# 4 naps of 50 ms on the base and 12 on the head, then computes the same
# 0.5 s.  Both sides recorded with `run --off-cpu --repeat 5` (off-cpu a
# confirmed regression: no off-CPU noise band), compare:
# - writes diff.offcpu.svg beside diff.svg, from both sides' off-CPU
#   stacks: sleep_in_nap's waiting time per run grew there, red (diff.svg
#   shows no change);
# - against a second base of the same 4 naps (5 repetitions): off-cpu's
#   interval is the off-CPU noise band, and sleep_in_nap's change, within
#   it, is not named (the line says so, with the band) and stays white in
#   diff.offcpu.svg, whose legend states the band;
# - the comment's "Waits longer in" line names the waiting stack whole or
#   cut at a frame boundary ("…;" then whole frames, the leaf last), and
#   links the off-CPU diff ("off-CPU diff") or names where it is; the
#   on-CPU one says it is on-CPU;
# - a plain compare names paths beside the comment that exist, and no run
#   folder; a run's comparison published to a store with no web URL
#   stores diff.offcpu.svg there and names its key;
# - a side without --off-cpu: no off-CPU diff, the plain "diff" label;
# - compare.json names it (diff_offcpu, a path that exists; for a run's
#   comparison stored, diff_offcpu_key and diff_offcpu_url), compare's
#   summary on stderr lists it, and the stored run's page links it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need_workload offcpu
outside_ci

W="$WORKLOADS/offcpu"
orun() {  # NAME NAPS [--off-cpu] [run options...]
  name=$1 naps=$2
  shift 2
  "$BENCHPROF" run -q --no-publish -o "$TMP/$name" "$@" -- "$W" sleep \
    "$naps" >"$TMP/$name.out" 2>"$TMP/$name.err"
  check "run $name exits 0" [ $? -eq 0 ]
}
cmp() {  # NAME BASE HEAD [compare options...]
  name=$1 base=$2 head=$3
  shift 3
  "$BENCHPROF" compare -o "$TMP/$name" "$@" "$TMP/$base" "$TMP/$head" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  check "compare $name exits 0" [ $? -eq 0 ]
}

orun base 4 --off-cpu --repeat 5
orun head 12 --off-cpu --repeat 5
orun same 4 --off-cpu --repeat 5
orun plain 4
cmp local base head
cmp served base head --compare-url https://ci.example/cmp/
cmp one plain head
cmp steady base same

pycheck "diff.offcpu.svg: well-formed, sleep_in_nap's time grew" \
  "$TMP/local" <<'PY'
import os, re, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
for f in ("diff.svg", "diff.offcpu.svg"):
    assert os.path.getsize(os.path.join(d, f)) > 0, f
svg = open(os.path.join(d, "diff.offcpu.svg")).read()
ET.fromstring(svg)
# its waiting time per run: 0.2 s asleep on the base, 0.6 s on the head
# (the shares move with the preempted time of a loaded machine, these do
# not); red: beyond the noise (here none: off-cpu is confirmed)
naps = re.findall(r"<title>sleep_in_nap \(base (\d+) µs, [0-9.]+%; "
                  r"head (\d+) µs, [0-9.]+%; waiting per run: base "
                  r"([0-9.]+) ms, head ([0-9.]+) ms, change \+[0-9.]+ ms\)"
                  r"</title><rect [^>]* fill=\"rgb\(255,(\d+),", svg)
assert len(naps) == 1, naps
total_base, total_head = int(naps[0][0]), int(naps[0][1])
base, head, green = float(naps[0][2]), float(naps[0][3]), int(naps[0][4])
assert 150 <= base <= 300 and 500 <= head <= 750, naps
assert 5 * 150000 <= total_base <= 5 * 300000, naps   # 5 repetitions
assert green < 250, naps   # red, not white
assert "Differential flame graph: Head: offcpu (off-CPU, microseconds)<" \
    in svg, svg[:800]
assert "no off-CPU noise band: off-cpu's change is confirmed" in svg, \
    svg[:1500]
PY

pycheck "the same naps: the wait's change within off-cpu's noise, not named, white" \
  "$TMP/steady" <<'PY'
import json, os, re, sys
d = sys.argv[1]
b = json.load(open(os.path.join(d, "compare.json")))["benchmarks"][0]
m = {x["slug"]: x for x in b["measures"]}["off-cpu"]
lo, hi = b["off_cpu_noise_band_pct"]
ns = b["off_cpu_stack_ns"]
change = 100 * (ns["head"] / ns["base"] - 1)
print("  off-cpu %.1f -> %.1f ms, interval %s; the largest wait change "
      "%+.2f%% in %s" % (m["base"] / 1e6, m["head"] / 1e6, m["interval_pct"],
                         change, b["off_cpu_stack"]))
assert m["interval_pct"] and m["change"] != "regression", m
assert b["off_cpu_noise_band_basis"] == "interval", b
assert b["off_cpu_noise_band_measure"] == "off-cpu", b
assert lo <= 0 <= hi and [lo, hi] == [min(0, m["interval_pct"][0]),
                                     max(0, m["interval_pct"][1])], b
assert "sleep_in_nap" in b["off_cpu_stack"].split(";"), b
assert b["off_cpu_stack_within_noise"] is True, b
assert lo <= change <= hi, (change, lo, hi)
md = open(os.path.join(d, "comment.md")).read()
assert "Waits longer" not in md and "Waits less" not in md, md
band = "off-cpu's interval, %+.1f%% to %+.1f%%" % (lo, hi)
line = [l for l in md.splitlines() if l.startswith(
    "No waiting stack's off-CPU time changed beyond the off-CPU noise (a "
    "change the benchmark's own noise could make of a stack's base time: "
    + band + "); the largest, `")]
assert len(line) == 1 and "sleep_in_nap" in line[0], md
svg = open(os.path.join(d, "diff.offcpu.svg")).read()
naps = re.findall(r"<title>sleep_in_nap \([^<]*, within noise\)</title>"
                  r"<rect [^>]* fill=\"rgb\(250,250,250\)\"", svg)
assert len(naps) == 1, re.findall(r"<title>sleep_in_nap [^\n]*", svg)
assert "white: within the off-CPU noise, a change the benchmark's own " \
    "noise could make of a frame's base time (%s)" % band in svg, svg[:1500]
PY

pycheck "a plain compare: the wait cut at a frame, paths that exist" \
  "$TMP/local" <<'PY'
import json, os, re, sys
d = sys.argv[1]
md = open(os.path.join(d, "comment.md")).read()
c = json.load(open(os.path.join(d, "compare.json")))
stack = c["benchmarks"][0]["off_cpu_stack"]
m = re.search(r"\n🔴 Waits longer in `([^`]*)` \(\+[0-9.]+ ms off CPU per "
              r"run\)\n", md)
assert m, md
shown = m.group(1)
if shown != stack:   # cut: "…;" then a whole-frame tail of the stack
    assert shown.startswith("…;"), shown
    tail = shown[2:]
    assert stack.endswith(";" + tail), (shown, stack)
assert "sleep_in_nap" in shown, shown
assert "\nThe off-CPU differential flame graph is `diff.offcpu.svg` beside " \
    "this comment.\n" in md, md
assert "\nThe on-CPU differential flame graph is `diff.svg` beside this " \
    "comment.\n" in md, md
assert "run's folder" not in md and "`compare/" not in md, md
for p in re.findall(r"`([^`]*\.svg)` beside this comment", md):
    assert os.path.isfile(os.path.join(d, p)), p
b = c["benchmarks"][0]
assert b["diff_offcpu"] == "diff.offcpu.svg", b
assert os.path.isfile(os.path.join(d, b["diff_offcpu"])), b
assert b["diff_offcpu_key"] is None and b["diff_offcpu_url"] is None, b
PY
check "compare's summary lists diff.offcpu.svg" \
  grep -q "/local/: compare.json, comment.md, and diff.folded, diff.svg, \
diff-negated.svg, diff.offcpu.svg of 1 benchmark$" "$TMP/local.err"

pycheck "a served compare folder: the off-CPU diff linked from its line" \
  "$TMP/served" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert " off CPU per run) · [off-CPU diff](https://ci.example/cmp/" \
    "diff.offcpu.svg)\n" in md, md
assert "[on-CPU diff](https://ci.example/cmp/diff.svg)" in md, md
assert "[diff](" not in md and "differential flame graph is" not in md, md
PY

pycheck "one side without --off-cpu: no off-CPU diff, the plain label" \
  "$TMP/one" <<'PY'
import json, os, sys
d = sys.argv[1]
assert not os.path.exists(os.path.join(d, "diff.offcpu.svg"))
assert os.path.exists(os.path.join(d, "diff.svg"))
md = open(os.path.join(d, "comment.md")).read()
assert "on-CPU" not in md and "off-CPU diff" not in md, md
assert "\nThe differential flame graph is `diff.svg` beside this " \
    "comment.\n" in md, md
b = json.load(open(os.path.join(d, "compare.json")))["benchmarks"][0]
assert b["diff_offcpu"] is None and b["diff_offcpu_key"] is None, b
PY
check "compare's summary without an off-CPU diff: not listed" \
  sh -c 'grep -q "diff-negated.svg of 1 benchmark$" "$1" &&
         ! grep -q "diff\.offcpu" "$1"' sh "$TMP/one.err"

# a run's comparison, published to a store with no web URL: the off-CPU
# diff is stored beside diff.svg and the comment names its key
BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
pub="--project p --testbed tb --store file://$TMP/store --spool $TMP/spool
  --retries 1 --timeout 10"
prun() {  # NAME NAPS [run options...]
  name=$1 naps=$2
  shift 2
  # shellcheck disable=SC2086
  "$BENCHPROF" run -q --off-cpu -o "$TMP/$name" $pub "$@" -- "$W" sleep \
    "$naps" >"$TMP/$name.out" 2>"$TMP/$name.err"
  check "run $name exits 0" [ $? -eq 0 ]
}
prun pbase 4 --branch main --hash "$BASE"
prun phead 12 --branch feature --hash "$HEAD" --base-branch main \
  --base-hash "$BASE"
pycheck "a published run's comparison: diff.offcpu.svg in the store, its key" \
  "$TMP" "$HEAD" <<'PY'
import json, os, sys
t, head = sys.argv[1:]
key = "p/feature/%s/tb/offcpu/diff.offcpu.svg" % head
stored = os.path.join(t, "store", key)
local = os.path.join(t, "phead", "compare", "diff.offcpu.svg")
assert open(stored, "rb").read() == open(local, "rb").read()
md = open(os.path.join(t, "phead", "compare", "comment.md")).read()
assert "\nThe off-CPU differential flame graph is in the store, at `%s`.\n" \
    % key in md, md
assert "\nThe on-CPU differential flame graph is in the store, at " \
    "`p/feature/%s/tb/offcpu/diff.svg`.\n" % head in md, md
assert "file://" not in md, md
b = json.load(open(os.path.join(t, "phead", "compare",
                                "compare.json")))["benchmarks"][0]
assert b["diff_offcpu_key"] == key, b
assert b["diff_offcpu_url"].startswith("file://"), b
assert b["diff_offcpu_url"].endswith("/store/" + key), b
assert os.path.isfile(os.path.join(t, "phead", "compare", b["diff_offcpu"]))
PY
pycheck "the stored run's page links diff.offcpu.svg" "$TMP" "$HEAD" <<'PY'
import os, sys
t, head = sys.argv[1:]
run = os.path.join(t, "store", "p", "feature", head, "tb")
page = open(os.path.join(run, "index.html")).read()
link = '<p class="offcpu"><a href="offcpu/diff.offcpu.svg">Off-CPU ' \
    'differential flame graph (diff.offcpu.svg)</a></p>'
assert link in page, page
assert os.path.isfile(os.path.join(run, "offcpu", "diff.offcpu.svg"))
PY

finish
