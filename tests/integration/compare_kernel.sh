#!/bin/sh
# Kernel functions in a comparison, on real runs.  dd copying /dev/zero
# to /dev/null one byte at a time spends much of its CPU time in read(2)
# and write(2); the head copies three times as many bytes (--repeat 5 a
# side: task-clock's regression is confirmed, so every function that grew
# beyond its Poisson interval is named).
#  - profile.folded marks kernel frames "_[k]", the system call's entry
#    among them;
#  - compare.json gives each function "kernel" and "interrupts"; a kernel
#    function that grew is named in the comment with "(kernel)" after
#    its name, and so is "grew most" on stderr when it is one;
#  - system-call time stays the benchmark's: it is not taken for the
#    machine's interrupt handling ([interrupts] holds the samples whose
#    stacks pass through an interrupt's entry, and no more than those
#    samples' share), and [interrupts] is never "grew most".
# Where kernel frames are not permitted (not root, perf_event_paranoid
# above 1) the runs have none, and no function is a kernel one.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"

permitted() {
  [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]
}

dd_run() {  # DIR BYTES
  "$BENCHPROF" run -q --no-publish --repeat 5 -F 1000 -o "$1" \
    --counters task-clock --name dd -- \
    dd if=/dev/zero of=/dev/null bs=1 count="$2" >"$1.out" 2>"$1.err"
  check "run $(basename "$1") exits 0" [ $? -eq 0 ]
}

dd_run "$TMP/base" 40000
dd_run "$TMP/head" 120000
"$BENCHPROF" compare -n 50 -o "$TMP/cmp" "$TMP/base" "$TMP/head" \
  >"$TMP/cmp.out" 2>"$TMP/cmp.err"
check "compare succeeds" [ $? -eq 0 ]

if permitted; then
  kernel=yes
else
  kernel=no
fi
pycheck "kernel functions marked, system calls named as the benchmark's" \
  "$TMP" "$kernel" <<'PY'
import json, os, re, sys
tmp, kernel = sys.argv[1], sys.argv[2] == "yes"
folded = open(os.path.join(tmp, "head", "profile.folded")).read()
c = json.load(open(os.path.join(tmp, "cmp", "compare.json")))
b = c["benchmarks"][0]
m = {x["slug"]: x for x in b["measures"]}
# the premise: 3x the bytes is a confirmed regression
assert m["task-clock"]["confirmed"], m["task-clock"]
assert b["functions_noise_band_basis"] == "confirmed", b
funcs = b["functions"]
assert all(isinstance(f["kernel"], bool) and
           isinstance(f["interrupts"], bool) for f in funcs), funcs[:3]
if not kernel:
    assert "_[k]" not in folded, folded[:400]
    assert not any(f["kernel"] for f in funcs), funcs[:5]
    sys.exit(0)
# read(2)/write(2) enter the kernel by a system call, marked as kernel
assert re.search(r";(entry_SYSCALL_64[a-z_]*|el0t_64_sync|"
                 r"entry_SYSENTER[a-z_0-9]*)_\[k\]", folded), folded[:800]
# no user frame above a kernel one: the mark is the kernel part's
for line in folded.splitlines():
    frames = line.rsplit(" ", 1)[0].split(";")[1:]
    marks = [f.endswith("_[k]") for f in frames]
    assert marks == sorted(marks), line
grown = [f for f in funcs if f["kernel"] and not f["interrupts"] and
         f["self_significant"] and f["d_self_cost"] > 0]
assert grown, [f for f in funcs if f["kernel"]][:5]
assert not any(f["name"].endswith("_[k]") for f in funcs), funcs[:5]
# the samples an interrupt took and no more: system-call time stays named
head = sum(f["head_self"] for f in funcs)
irq = [f for f in funcs if f["interrupts"]]
irq_self = irq[0]["head_self"] if irq else 0
entered = sum(int(l.rsplit(" ", 1)[1]) for l in folded.splitlines()
              if re.search(r";(asm_sysvec_[a-z_0-9]*|asm_common_interrupt)"
                           r"_\[k\]", l))
assert irq_self >= entered, (irq_self, entered)
assert irq_self < 0.25 * head, (irq_self, head)
kernel_self = sum(f["head_self"] for f in grown)
assert kernel_self > irq_self, (kernel_self, irq_self)
md = open(os.path.join(tmp, "cmp", "comment.md")).read()
top = grown[0]
row = "\n| %s (kernel) | " % top["name"]
assert row in md, (row, md)
g = re.search(r"Grew most: \*\*([^*]+)\*\*( \(kernel\))?", md)
assert g, md
named = [f for f in funcs if f["name"] == g.group(1)]
assert named and not named[0]["interrupts"], (g.group(0), named)
assert bool(g.group(2)) == named[0]["kernel"], (g.group(0), named)
err = open(os.path.join(tmp, "cmp.err")).read()
s = re.search(r"dd: task-clock \+[0-9.]+% \(regression\); function that "
              r"grew most: (.+?)( \(kernel\))?(;|$)", err, re.M)
assert s, err
assert s.group(1) != "[interrupts]", err
assert bool(s.group(2)) == named[0]["kernel"], (err, named)
PY
finish
