#!/bin/sh
# Inputs benchprof reads are bounded and must be regular files (issue 21,
# F14, F15, F18): a gzip bomb as --config or --bmf is refused at the cap
# counted after decompression, with peak memory far below what it inflates
# to; a BMF larger than the cap and a harness that prints more than it on
# stdout (--adapter) are refused; a FIFO or a device as the config file or
# the BMF is refused at once instead of blocking or reading for ever; and
# with --adapter what a process the harness left behind prints after the
# harness exited still reaches our stdout, for a bounded time.  Commands
# run under timeout(1): a hang fails the check instead of the suite.
. "$top_srcdir/tests/lib.sh"

# bomb FILE MIB PREFIX SUFFIX: gzip of PREFIX, MIB MiB of spaces, SUFFIX
bomb() {
  python3 - "$@" <<'PY'
import sys, zlib
path, mib, prefix, suffix = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
z = zlib.compressobj(9, zlib.DEFLATED, 31)
with open(path, "wb") as f:
    f.write(z.compress(prefix.encode()))
    chunk = b" " * (1 << 20)
    for _ in range(mib):
        f.write(z.compress(chunk))
    f.write(z.compress(suffix.encode()))
    f.write(z.flush())
PY
}

# refused STATUS: a non-zero exit status that is not timeout(1)'s
refused() {
  [ "$1" -ne 0 ] && [ "$1" -ne 124 ]
}

# peak_kb FILE: the peak RSS /usr/bin/time -f %M wrote last in FILE
peak_kb() {
  tail -1 "$1"
}

# 1. --config: 512 MiB of valid JSON (whitespace) in a 500 KB gzip file
bomb "$TMP/bomb.json" 512 '{' '}'
check "the config bomb is small on disk" \
  [ "$(stat -c %s "$TMP/bomb.json")" -lt 1048576 ]
/usr/bin/time -f %M -o "$TMP/config.rss" timeout 60 "$BENCHPROF" config \
  check --config "$TMP/bomb.json" >"$TMP/config.out" 2>&1
rc=$?
check "config bomb: refused (exit $rc)" refused $rc
check "config bomb: the error names the cap after decompression" \
  grep -q "bomb.json' is larger than 1048576 bytes once decompressed" \
  "$TMP/config.out"
check "config bomb: peak RSS under 100 MB ($(peak_kb "$TMP/config.rss") KB)" \
  [ "$(peak_kb "$TMP/config.rss")" -lt 100000 ]

# 2. --bmf: a 512 MiB document in a gzip file, and a plain 80 MiB one
printf '#!/bin/sh\nexit 0\n' >"$TMP/true.sh"
chmod +x "$TMP/true.sh"
bomb "$TMP/bomb.bmf" 512 '{"a": {"latency": {"value": 1}}' '}'
/usr/bin/time -f %M -o "$TMP/bmf.rss" timeout 120 "$BENCHPROF" run -q \
  --no-publish -o "$TMP/bmf.out" --bmf "$TMP/bomb.bmf" -- "$TMP/true.sh" \
  >"$TMP/bmf.log" 2>&1
rc=$?
check "BMF bomb: refused (exit $rc)" [ $rc -eq 1 ]
check "BMF bomb: the error names the cap" \
  grep -q "bomb.bmf' is larger than 67108864 bytes once decompressed" \
  "$TMP/bmf.log"
check "BMF bomb: peak RSS under 450 MB ($(peak_kb "$TMP/bmf.rss") KB)" \
  [ "$(peak_kb "$TMP/bmf.rss")" -lt 450000 ]
truncate -s 80M "$TMP/big.bmf"
timeout 120 "$BENCHPROF" run -q --no-publish -o "$TMP/big.out" \
  --bmf "$TMP/big.bmf" -- "$TMP/true.sh" >"$TMP/big.log" 2>&1
check "80 MiB BMF: refused at the cap" \
  grep -q "big.bmf' is larger than 67108864 bytes$" "$TMP/big.log"

# 3. --adapter json: 80 MiB on stdout, all relayed, none parsed
printf '#!/bin/sh\nhead -c 83886080 /dev/zero | tr "\\\\0" " "\necho "{}"\n' \
  >"$TMP/loud.sh"
chmod +x "$TMP/loud.sh"
timeout 120 "$BENCHPROF" run -q --no-publish -o "$TMP/loud.out" \
  --adapter json -- "$TMP/loud.sh" 2>"$TMP/loud.err" | wc -c >"$TMP/loud.n"
check "--adapter: 80 MiB relayed" [ "$(cat "$TMP/loud.n")" -eq 83886083 ]
check "--adapter: more than the cap on stdout is refused" \
  grep -q "printed more than 67108864 bytes on stdout" "$TMP/loud.err"

# 4. a FIFO and a device: refused at once, never read
mkfifo "$TMP/fifo"
timeout 20 "$BENCHPROF" config check --config "$TMP/fifo" >"$TMP/fifo.out" 2>&1
rc=$?
check "FIFO config: refused, not blocked (exit $rc)" refused $rc
check "FIFO config: says so" grep -q "fifo' is not a regular file (a FIFO)" \
  "$TMP/fifo.out"
timeout 20 "$BENCHPROF" config check --config /dev/zero >"$TMP/zero.out" 2>&1
rc=$?
check "/dev/zero config: refused (exit $rc)" refused $rc
check "/dev/zero config: says so" \
  grep -q "'/dev/zero' is not a regular file (a device)" "$TMP/zero.out"
BENCHPROF_CONFIG=$TMP/fifo timeout 60 "$BENCHPROF" run -q --no-publish \
  -o "$TMP/fifo.run" -- "$TMP/true.sh" >"$TMP/fiforun.out" 2>&1
rc=$?
check "FIFO config in run: the command still runs (exit $rc)" [ $rc -eq 0 ]
check "FIFO config in run: warned" grep -q "not a regular file" "$TMP/fiforun.out"
timeout 60 "$BENCHPROF" run -q --no-publish -o "$TMP/zbmf.out" \
  --bmf /dev/zero -- "$TMP/true.sh" >"$TMP/zbmf.log" 2>&1
rc=$?
check "/dev/zero as --bmf: refused (exit $rc)" [ $rc -eq 1 ]
check "/dev/zero as --bmf: says so" grep -q "not a regular file (a device)" \
  "$TMP/zbmf.log"

# 5. --adapter: output after the harness exited, from a process it left
#    behind, reaches our stdout; the results are what it printed itself.
#    The run does not wait for that process: a relay of ours goes on
#    copying its output after benchprof exits, until it closes stdout.
# wait_for PATTERN FILE: up to 20 s for PATTERN to show up in FILE
wait_for() {
  i=0
  while [ $i -lt 200 ] && ! grep -q "$1" "$2" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
  done
  grep -q "$1" "$2"
}
cat >"$TMP/late.sh" <<'EOF'
#!/bin/sh
(sleep 1; echo LATE-LINE) &
printf '{"a": {"latency": {"value": 1}}}\n'
EOF
chmod +x "$TMP/late.sh"
timeout 60 "$BENCHPROF" run -q --no-publish -o "$TMP/late.out" \
  --adapter json -- "$TMP/late.sh" >"$TMP/late.stdout" 2>"$TMP/late.err"
rc=$?
check "late output: run succeeds (exit $rc)" [ $rc -eq 0 ]
check "late output: relayed to stdout" wait_for "^LATE-LINE$" "$TMP/late.stdout"
check "late output: the report has the harness's results" \
  grep -q '"a"' "$TMP/late.out/report.json"
check "late output: not taken as results" sh -c \
  "! grep -q LATE '$TMP/late.out/report.json'"
# a process that keeps the pipe open: the run ends without waiting for
# it (benchprof is gone before it prints, 8 s later), and what it prints
# then still reaches stdout
cat >"$TMP/daemon.sh" <<'EOF'
#!/bin/sh
(sleep 8; echo DAEMON-LINE; exec sleep 300) &
echo $! >"$1"
printf '{"a": {"latency": {"value": 1}}}\n'
EOF
chmod +x "$TMP/daemon.sh"
timeout 60 "$BENCHPROF" run -q --no-publish -o "$TMP/daemon.out" \
  --adapter json -- "$TMP/daemon.sh" "$TMP/daemon.pid" \
  >"$TMP/daemon.stdout" 2>"$TMP/daemon.err"
rc=$?
check "a process holding stdout: the run ends (exit $rc)" [ $rc -eq 0 ]
check "a process holding stdout: the run did not wait for it" sh -c \
  "! grep -q DAEMON-LINE '$TMP/daemon.stdout'"
check "a process holding stdout: its later output is relayed" \
  wait_for "^DAEMON-LINE$" "$TMP/daemon.stdout"
pkill -P "$(cat "$TMP/daemon.pid")" 2>/dev/null
kill "$(cat "$TMP/daemon.pid")" 2>/dev/null
# the relay is not benchprof's child: a run that leaves relays behind
# (--repeat, --each) collects no zombies.  Repetition 1 leaves a process
# holding stdout for 0.6 s (relayed, then gone); repetition 2 counts
# benchprof's zombie children a second later.
cat >"$TMP/holder.sh" <<'EOF'
#!/bin/sh
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$1"
if [ $n -eq 1 ]; then
  (sleep 0.6; echo HOLDER-LINE) &
else
  sleep 1.5
  ps -o stat= --ppid "$PPID" | grep -c '^Z' >"$2"
fi
printf '{"a": {"latency": {"value": 1}}}\n'
EOF
chmod +x "$TMP/holder.sh"
timeout 60 "$BENCHPROF" run -q --no-publish --repeat 2 -o "$TMP/holder.out" \
  --adapter json -- "$TMP/holder.sh" "$TMP/holder.n" "$TMP/zombies" \
  >"$TMP/holder.stdout" 2>"$TMP/holder.err"
rc=$?
check "relays under --repeat: the run succeeds (exit $rc)" [ $rc -eq 0 ]
check "relays under --repeat: the held output arrived" \
  wait_for "^HOLDER-LINE$" "$TMP/holder.stdout"
check "relays under --repeat: no zombie children of benchprof" \
  [ "$(cat "$TMP/zombies" 2>/dev/null)" = 0 ]
finish
