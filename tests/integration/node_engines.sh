#!/bin/sh
# The Node.js on PATH is one the JavaScript validators declare they
# support: for each of @firefox-devtools/profiler-cli, pprof-format and
# s3rver installed globally, node's version satisfies its package.json's
# "engines.node" (the ">= N", "^N" and "N.x || >= M" forms they use).
# scripts/setup-debian.sh --test installs such a node when the machine's
# is older (Debian 12's nodejs is 18; profiler-cli wants >= 24).
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

SETUP="scripts/setup-debian.sh --test"
need node "$SETUP"
need npm "$SETUP"
ROOT=$(npm root -g 2>/dev/null)
check "npm has a global root" [ -d "$ROOT" ]
node --version >"$TMP/node.version"
for pkg in @firefox-devtools/profiler-cli pprof-format s3rver; do
  check "$pkg is installed ($SETUP)" [ -f "$ROOT/$pkg/package.json" ]
  [ -f "$ROOT/$pkg/package.json" ] || continue
  check "node $(cat "$TMP/node.version") satisfies $pkg's engines.node" \
    python3 - "$ROOT/$pkg/package.json" "$(cat "$TMP/node.version")" <<'PY'
import json, re, sys
pkg = json.load(open(sys.argv[1]))
have = tuple(int(x) for x in sys.argv[2].lstrip("v").split(".")[:3])
want = (pkg.get("engines") or {}).get("node")
if not want:
    sys.exit(0)   # no requirement declared

def version(s):
    parts = [int(x) for x in re.findall(r"\d+", s)[:3]]
    return tuple(parts + [0] * (3 - len(parts)))

def ok(clause):
    clause = clause.strip()
    if clause in ("", "*"):
        return True
    for c in re.findall(r"(>=|<=|>|<|\^|~|=)?\s*v?([\dx.]+)", clause):
        op, v = c
        if v.endswith(".x") or v.endswith(".x.x"):
            op, v = "^", v.replace(".x", "")
        w = version(v)
        if op == ">=" and not have >= w: return False
        if op == ">" and not have > w: return False
        if op == "<=" and not have <= w: return False
        if op == "<" and not have < w: return False
        if op in ("^", "") and not (have[0] == w[0] and have >= w):
            return False
        if op == "~" and not (have[:2] == w[:2] and have >= w): return False
        if op == "=" and have != w: return False
    return True

if not any(ok(alt) for alt in want.split("||")):
    sys.exit("node %s does not satisfy %r" % (sys.argv[2], want))
PY
done
finish
