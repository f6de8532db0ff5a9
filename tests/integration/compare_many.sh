#!/bin/sh
# A suite of 45 marked benchmarks, every one 1.5x slower on the head (one
# BMF value a side: unconfirmed regressions).  The summary on stderr is
# bounded: 20 benchmarks, then how many more, while compare.json lists
# all 45.
# Suites of 120, 500 and 2000 such benchmarks (head 2x slower and more,
# a change of its own for each): the comment stays under GitHub's 65,536
# characters by dropping the details first, then the table rows of the
# least changed one at a time; the table keeps as many rows as fit, the
# largest changes, and the note says what went and where it is.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"


# suite.py N FACTOR SPREAD BMF: marks N benchmarks b0.. and reports each
# one's latency, 1000 x FACTOR x (1 + SPREAD x i / N)
cat >"$TMP/suite.py" <<'PY'
import json, os, sys
n, factor, spread, bmf = (int(sys.argv[1]), float(sys.argv[2]),
                          float(sys.argv[3]), sys.argv[4])
fd = os.open(os.environ["BENCHPROF_CONTROL"], os.O_WRONLY)
for i in range(n):
    os.write(fd, b"begin - b%d\n" % i)
    os.write(fd, b"end -\n")
os.close(fd)
json.dump({"b%d" % i: {"latency": {"value": 1000.0 * factor *
                                   (1 + spread * i / n)}}
           for i in range(n)}, open(bmf, "w"))
PY

suite() {  # DIR N FACTOR SPREAD [RUN OPTIONS]
  dir=$1 n=$2 factor=$3 spread=$4
  shift 4
  "$BENCHPROF" run -q -o "$dir" --bmf "$dir.json" "$@" -- \
    python3 "$TMP/suite.py" "$n" "$factor" "$spread" "$dir.json" \
    2>"$dir.err"
}

for side in base:1 head:1.5; do
  name=${side%%:*}
  suite "$TMP/$name" 45 "${side#*:}" 0
  check "$name: the run succeeds" [ $? -eq 0 ]
done
"$BENCHPROF" compare -o "$TMP/cmp" "$TMP/base" "$TMP/head" 2>"$TMP/cmp.err"
check "compare succeeds" [ $? -eq 0 ]
check "the count names all 45" grep -q "0 regressions confirmed, 45 unconfirmed;" \
  "$TMP/cmp.err"
check "20 benchmarks are listed" \
  [ "$(grep -c '^benchprof:   b[0-9]*: ' "$TMP/cmp.err")" -eq 20 ]
check "then how many more, and where they all are" \
  grep -q "\.\.\. and 25 more changed benchmarks (compare.json lists every one)" \
  "$TMP/cmp.err"
check "compare.json has all 45" python3 - "$TMP/cmp/compare.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
benches = c["benchmarks"]
assert len(benches) == 45, len(benches)
PY

# the head of b<i> is 2 + i/N times the base: the higher i, the larger
# the change; 120 with the counters (their details may no longer fit,
# as with task-clock and page-faults), 500 and 2000 with latency only, so
# that it is every benchmark's key measure and the order is known
for n in 120 500 2000; do
  counters=--no-counters
  [ $n -eq 120 ] && counters=
  suite "$TMP/base$n" $n 1 0 $counters &&
    suite "$TMP/head$n" $n 2 0.5 $counters
  check "$n benchmarks: both runs succeed" [ $? -eq 0 ]
  "$BENCHPROF" compare -o "$TMP/cmp$n" "$TMP/base$n" "$TMP/head$n" \
    2>"$TMP/cmp$n.err"
  check "$n benchmarks: compare succeeds" [ $? -eq 0 ]
  pycheck "$n benchmarks: the comment fits, its table has the largest changes" \
    "$TMP/cmp$n" $n <<'PY'
import json, os, re, sys
out, n = sys.argv[1], int(sys.argv[2])
md = open(os.path.join(out, "comment.md"), encoding="utf-8").read()
assert len(md.encode()) <= 65536, len(md.encode())
assert ("### benchprof: 0 regressions confirmed, %d unconfirmed; "
        "0 improvements confirmed, 0 unconfirmed; 0 unchanged\n" % n) in md, \
    md[:400]
assert "| Benchmark | Measure | Change | Verdict |" in md, md[:1500]
rows = re.findall(r"^\| (b\d+) \| [a-z-]+ \| (?:\+[\d.]+%|from 0) \| "
                  r"_unconfirmed regression \(single run\)_ \|$", md, re.M)
# every row fits up to 500 benchmarks (their details do not), not 2000
assert (rows and len(rows) == n) if n <= 500 else 500 < len(rows) < n, \
    (n, len(rows))
# the rows are the largest changes, largest first
order = [b["name"] for b in
         json.load(open(os.path.join(out, "compare.json")))["benchmarks"]]
if n > 120:
    assert order[:3] == ["b%d" % (n - 1), "b%d" % (n - 2),
                         "b%d" % (n - 3)], order[:3]
assert rows == order[:len(rows)], (rows[:5], order[:5])
left = n - len(rows)
details = md.count("\n#### ")
note = re.search(r"^_Left out to stay under 65536 characters: (.*)$", md,
                 re.M)
if not note:
    # 120 with the counters this machine has may fit whole
    assert n == 120 and len(rows) == n and details == n, (len(rows), details)
    sys.exit(0)
assert len(md.encode()) > 60000, len(md.encode())   # filled, not emptied
note = note.group(1)
if left:
    assert ("the details of all %d benchmarks in the table (%d of them "
            "beyond the threshold, 0 of those confirmed); the table rows "
            "of the %d least changed benchmarks (%d of them beyond the "
            "threshold, 0 of those confirmed)._"
            % (len(rows), len(rows), left, left)) in note, note
else:
    assert 0 < details < n, details
    assert ("the details of the %d least changed benchmarks in the table "
            "(%d of them beyond the threshold, 0 of those confirmed)._"
            % (n - details, n - details)) in note, note
assert "`compare.json` (beside this comment in the comparison's output) " \
    "has them all" in note, note
PY
done

# 2000 benchmarks with bounds: b0..b1199 confirmed regressions (head 2x
# and more, bounds apart), b1200..b1599 changes beyond the threshold
# within the noise (+20%, the head's bounds wide), the rest unchanged.
# The rows the cut leaves out are the unchanged, the noisy and then the
# least changed confirmed ones: the note counts every change beyond the
# threshold among them, and how many of those are confirmed.
cat >"$TMP/bounds.py" <<'PY'
import json, os, sys
n, side, bmf = int(sys.argv[1]), sys.argv[2], sys.argv[3]
fd = os.open(os.environ["BENCHPROF_CONTROL"], os.O_WRONLY)
for i in range(n):
    os.write(fd, b"begin - b%d\n" % i)
    os.write(fd, b"end -\n")
os.close(fd)
def latency(i):
    if side == "base" or i >= 1600:
        return {"value": 1000.0, "lower_value": 999.0, "upper_value": 1001.0}
    if i < 1200:
        v = 2000.0 + 1200 - i
        return {"value": v, "lower_value": v - 1, "upper_value": v + 1}
    return {"value": 1200.0 + (1600 - i) / 100.0, "lower_value": 800.0,
            "upper_value": 1600.0}
json.dump({"b%d" % i: {"latency": latency(i)} for i in range(n)},
          open(bmf, "w"))
PY
for side in base head; do
  "$BENCHPROF" run -q -o "$TMP/bounds-$side" --no-counters \
    --bmf "$TMP/bounds-$side.json" -- python3 "$TMP/bounds.py" 2000 $side \
    "$TMP/bounds-$side.json" 2>"$TMP/bounds-$side.err"
  check "bounds, $side: the run succeeds" [ $? -eq 0 ]
done
"$BENCHPROF" compare -o "$TMP/cmp-bounds" "$TMP/bounds-base" \
  "$TMP/bounds-head" 2>"$TMP/cmp-bounds.err"
check "bounds: compare succeeds" [ $? -eq 0 ]
pycheck "bounds: the note counts the noisy changes left out, and the confirmed" \
  "$TMP/cmp-bounds" <<'PY'
import json, os, re, sys
out = sys.argv[1]
md = open(os.path.join(out, "comment.md"), encoding="utf-8").read()
assert len(md.encode()) <= 65536, len(md.encode())
c = json.load(open(os.path.join(out, "compare.json")))
assert c["regressions"] == 1200 and c["unchanged"] == 800, \
    (c["regressions"], c["unchanged"])
verdict = {}
for b in c["benchmarks"]:
    m = b["measures"][0]
    verdict[b["name"]] = (m["change"] != "unchanged", m["confirmed"])
assert sum(v[0] and not v[1] for v in verdict.values()) == 400, verdict
shown = set(re.findall(r"^\| (b\d+) \| latency \|", md, re.M))
left = [name for name in verdict if name not in shown]
beyond = sum(verdict[name][0] for name in left)
confirmed = sum(verdict[name][1] for name in left)
# the noisy 400 are all left out, and some confirmed ones too
assert beyond > 400 and confirmed == beyond - 400, (beyond, confirmed)
want = ("the table rows of the %d least changed benchmarks (%d of them "
        "beyond the threshold, %d of those confirmed)._" %
        (len(left), beyond, confirmed))
assert want in md, (want, re.findall(r"^_Left out.*$", md, re.M))
# the shown rows whose details were left out are counted alike
detailed = set(re.findall(r"^#### (b\d+)\b", md, re.M))
bare = [name for name in shown if name not in detailed]
assert bare, detailed
want = ("the details of %s%d %sbenchmark%s in the table (%d of them beyond "
        "the threshold, %d of those confirmed); the table rows" %
        ("the " if detailed else "all ", len(bare),
         "least changed " if detailed else "", "" if len(bare) == 1 else "s",
         sum(verdict[name][0] for name in bare),
         sum(verdict[name][1] for name in bare)))
assert want in md, (want, re.findall(r"^_Left out.*$", md, re.M))
PY
finish
