#!/bin/sh
# Hostile names cannot escape their strings.  The hostile workload names
# benchmarks (hooks), threads (PR_SET_NAME), JIT functions (perf-PID.map)
# and BMF benchmarks with the classic payloads: quotes and backslashes,
# </script>, ]]>, <img onerror>, control characters, invalid UTF-8, {{ }},
# newlines.  Every artifact `benchprof run` writes must still parse (JSON,
# gzip+JSON, protobuf, XML by xmllint) and give each payload back as data:
# the same text, or the text the exporters' one cleaning rule makes of it
# (control characters a space, invalid UTF-8 U+FFFD, ';' a ':' in folded
# stacks), never markup, a new line or a cut string.
. "$top_srcdir/tests/lib.sh"

out=$TMP/out
"$BENCHPROF" run -q --bmf "$TMP/bmf.json" -o "$out" -- \
  "$WORKLOADS/hostile" "$TMP/bmf.json" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
map=$(cat "$TMP/stdout")
case $map in /tmp/perf-*.map) rm -f "$map" ;; esac
if [ "$rc" -eq 77 ]; then
  fail "the hostile workload needs x86-64"
  finish
fi
check "benchprof run exits 0" [ "$rc" -eq 0 ]
check "xmllint accepts the flame graph" xmllint --noout "$out/flamegraph.svg"

check "every payload comes back as data from every artifact" \
  env PYTHONPATH="$top_srcdir/tests" python3 - "$out" <<'PY'
import json, os, subprocess, sys
import xml.etree.ElementTree as ET
import artifacts as A

out = sys.argv[1]
PAYLOADS = [b'q"uote\\back', b"</script><b>x", b"]]><!--&amp;'",
            b"<img src=x onerror=alert(1)>", b"ctl\x01\x1b[31m\x7f",
            b"bad\xff\xfe\xc3(utf8", b"{{x}}${y}%s%n", b"new\nline\r\ttab"]


def utf8(b):
    """invalid UTF-8 bytes as U+FFFD, each byte its own (as report.c)"""
    s, i = "", 0
    while i < len(b):
        for n in (4, 3, 2, 1):
            try:
                s += b[i:i + n].decode("utf-8")
                i += n
                break
            except UnicodeDecodeError:
                pass
        else:
            s += "\ufffd"
            i += 1
    return s


def clean(s, sep=None):
    s = "".join(" " if ord(c) < 0x20 or ord(c) == 0x7f else c for c in s)
    return s.replace(sep, ":") if sep else s


def forms(b, sep=None):
    return {utf8(b), clean(utf8(b), sep)}


failures = []


def expect(what, b, names, sep=None):
    if not forms(b, sep) & set(names):
        failures.append("%s: %r not among %r" % (what, b, sorted(names)))


funcs = [p.replace(b"\n", b"\t") for p in PAYLOADS]   # a map line each
threads = [p[:15] for p in PAYLOADS]                  # PR_SET_NAME keeps 15

a = A.load_dir(out)   # parses and checks every artifact
folded = {f for s in A.folded_stacks(os.path.join(out, "profile.folded"))
          for f in s.frames}
gecko = {A.func_of(f) for s in A.gecko_stacks(a["gecko"]) for f in s.frames}
pprof = {A.func_of(f) for s in a["pprof"].stacks() for f in s.frames}
svg = {A.func_of(name) for name, _, _ in A.read_svg(
    os.path.join(out, "flamegraph.svg"))}
summary_fns = {f["name"] for f in a["summary"]["top_functions"]}
for b in funcs:
    expect("folded", b, folded, ";")
    expect("gecko", b, gecko)
    expect("pprof", b, pprof)
    expect("svg", b, svg)
    expect("summary top_functions", b, summary_fns)
gecko_threads = {t["name"] for t in a["gecko"]["threads"]}
summary_threads = {t["name"] for t in a["summary"]["threads"]}
for b in threads:
    expect("gecko thread", b, gecko_threads)
    expect("summary thread", b, summary_threads)

# no payload became markup: the SVG has its one script (the viewer's own,
# no payload in it) and none of the payloads' elements
root = ET.parse(os.path.join(out, "flamegraph.svg")).getroot()
tags = [e.tag.split("}")[-1] for e in root.iter()]
scripts = [e.text or "" for e in root.iter() if e.tag.endswith("script")]
if len(scripts) != 1 or any(utf8(b)[:8] in scripts[0] for b in PAYLOADS):
    failures.append("flamegraph.svg: scripts %r" % scripts)
for bad in ("img", "b"):
    if bad in tags:
        failures.append("flamegraph.svg has a <%s> element" % bad)
# no payload cut a folded line: every line is 'frames count'
with open(os.path.join(out, "profile.folded"), encoding="utf-8") as f:
    for line in f:
        if "\r" in line or not line.rstrip("\n").rpartition(" ")[2].isdigit():
            failures.append("folded line broken: %r" % line)

report = json.load(open(os.path.join(out, "report.json"), encoding="utf-8"))
for b in PAYLOADS:
    if utf8(b) not in report:
        failures.append("report.json lacks %r" % utf8(b))
manifest = json.load(open(os.path.join(out, "manifest.json"),
                          encoding="utf-8"))
names = {m["name"] for m in manifest["benchmarks"]}
dirs = [m["profile"] for m in manifest["benchmarks"]]
for b in PAYLOADS:
    expect("manifest.json benchmark", b, names)
for d in dirs:
    if "/" in d or d in (".", "..") or not d:
        failures.append("benchmark folder %r escapes" % d)
    else:
        A.load_dir(os.path.join(out, d))
if len(dirs) != len(PAYLOADS):
    failures.append("%d benchmark folders for %d payloads" %
                    (len(dirs), len(PAYLOADS)))
for f in failures:
    print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
PY
check "no perf map file left by the workload" [ ! -e "$map" ]
# the artifacts agree with each other, names with ';' included (folded
# writes them with ':')
check "every profile's artifacts are consistent" sh -c '
  for d in "$1" "$1"/*/; do
    [ -f "$d/profile.folded" ] || continue
    python3 "$2/tests/artifacts.py" validate "$d" >/dev/null || exit 1
  done' sh "$out" "$top_srcdir"
finish
