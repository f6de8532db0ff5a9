#!/bin/sh
# The bench harness's verdicts (paired confidence intervals, ties), on
# made-up repetitions: what `make bench` concludes, checked without
# timing anything.
: "${top_srcdir:?run through make check}"
PYTHONDONTWRITEBYTECODE=1 exec python3 "$top_srcdir/tests/bench/test_stats.py"
