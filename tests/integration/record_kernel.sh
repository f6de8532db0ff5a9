#!/bin/sh
# -k: kernel frames where the kernel permits them (root, or
# perf_event_paranoid <= 1), and a warning plus user-only stacks otherwise.
. "$top_srcdir/tests/lib.sh"

out=$TMP/out
# dd with 1-byte blocks spends most of its time in read(2)/write(2)
"$BENCHPROF" record -k -o "$out" -- \
  dd if=/dev/zero of=/dev/null bs=1 count=300000 2>"$TMP/stderr"
rc=$?
check "dd exits 0 under benchprof -k" [ "$rc" -eq 0 ]
kernel=$(awk '/\[kernel\.kallsyms\]/ { n++ } END { print n + 0 }' \
  "$TMP/stderr")
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -eq 0 ] || [ "$paranoid" -le 1 ]; then
  check "kernel functions among the top functions" [ "$kernel" -gt 0 ]
  check "kernel frames are resolved from kallsyms" python3 - "$out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
k = [f for f in s["top_functions"] if f["lib"] == "[kernel.kallsyms]"]
# named functions, not 0xADDR, and the syscall path is there
ok = k and all(not f["name"].startswith("0x") for f in k)
sys.exit(0 if ok else 1)
PY
  check "Gecko marks kernel frames with the Kernel category" python3 - "$out/profile.json.gz" <<'PY'
import gzip, json, sys
p = json.load(gzip.open(sys.argv[1]))
cats = [c["name"] for c in p["meta"]["categories"]]
kernel = cats.index("Kernel")
found = False
for t in p["threads"]:
    loc = t["frameTable"]["schema"]["location"]
    cat = t["frameTable"]["schema"]["category"]
    for row in t["frameTable"]["data"]:
        if "(in [kernel.kallsyms])" in t["stringTable"][row[loc]]:
            found = found or row[cat] == kernel
sys.exit(0 if found else 1)
PY
else
  check "a warning says kernel frames are not permitted" \
    grep -q "kernel frames are not permitted" "$TMP/stderr"
  check "no kernel frames" [ "$kernel" -eq 0 ]
fi
# with --all-user (the default: kernel time where permitted) no kernel frame
"$BENCHPROF" record -q --all-user -o "$out.user" -- \
  dd if=/dev/zero of=/dev/null bs=1 count=100000 2>/dev/null
check "with --all-user, no kernel frames" \
  sh -c "! grep -q 'kernel.kallsyms' '$out.user/profile.folded'"
finish
