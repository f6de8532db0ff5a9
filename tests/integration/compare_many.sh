#!/bin/sh
# A suite of 45 marked benchmarks, every one 1.5x slower on the head (one
# BMF value a side: unconfirmed regressions).  The summary on stderr is
# bounded: 20 benchmarks, then how many more, while compare.json lists
# all 45.
. "$top_srcdir/tests/lib.sh"


cat >"$TMP/suite.py" <<'PY'
import json, os, sys
n, factor, bmf = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
fd = os.open(os.environ["BENCHPROF_CONTROL"], os.O_WRONLY)
for i in range(n):
    os.write(fd, b"begin - b%d\n" % i)
    os.write(fd, b"end -\n")
os.close(fd)
json.dump({"b%d" % i: {"latency": {"value": 1000.0 * factor}} for i in range(n)},
          open(bmf, "w"))
PY

for side in base:1 head:1.5; do
  name=${side%%:*}
  "$BENCHPROF" run -q -o "$TMP/$name" --bmf "$TMP/$name.json" -- \
    python3 "$TMP/suite.py" 45 "${side#*:}" "$TMP/$name.json" \
    2>"$TMP/$name.err"
  check "$name: the run succeeds" [ $? -eq 0 ]
done
"$BENCHPROF" compare -o "$TMP/cmp" "$TMP/base" "$TMP/head" 2>"$TMP/cmp.err"
check "compare succeeds" [ $? -eq 0 ]
check "the count names all 45" grep -q "45 unconfirmed regressions" "$TMP/cmp.err"
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
finish
