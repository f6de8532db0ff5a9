# Helpers for the DWARF unwinding scripts; sourced after record_lib.sh.

# chain_pct DIR OUTER... LEAF: prints the percentage of the samples with
# LEAF as leaf whose stack ends with OUTER... LEAF, one caller after the
# other (names compared without C++ parameter lists); -1 without samples
chain_pct() {
  python3 - "$@" <<'PY'
import os, sys
import artifacts as A
d, want = sys.argv[1], sys.argv[2:]
name = lambda f: A.func_of(f).split("(")[0]
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
leaf = [s for s in stacks if s.frames and name(s.frames[-1]) == want[-1]]
n = A.total_count(leaf)
full = sum(s.count for s in leaf
           if [name(f) for f in s.frames[-len(want):]] == want)
print("%.1f" % (100.0 * full / n if n else -1))
PY
}

# summary_field DIR KEY: a top-level value of DIR/summary.json
summary_field() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
    "$1/summary.json" "$2"
}

# at_least VALUE MIN / below VALUE MAX: numeric comparisons for check
at_least() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 >= m + 0) }'; }
below() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 < m + 0) }'; }
