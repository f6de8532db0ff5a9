#!/bin/sh
# Links under the output directory are never followed (issue 21, F16): a
# harness that plants out/normal -> elsewhere and then marks a benchmark
# named "normal" (hooks protocol from the shell), or a --each benchmark
# whose folder is such a link, gets an error naming the link; nothing is
# written elsewhere.
. "$top_srcdir/tests/lib.sh"

mkdir -p "$TMP/elsewhere"
cat >"$TMP/plant.sh" <<'SH'
#!/bin/sh
ln -s "$2" "$1/normal"
echo "begin - normal" >"$BENCHPROF_CONTROL"
"$3" 0.2 >/dev/null
echo "end -" >"$BENCHPROF_CONTROL"
SH
chmod +x "$TMP/plant.sh"
timeout 120 "$BENCHPROF" record -o "$TMP/out" -- "$TMP/plant.sh" "$TMP/out" \
  "$TMP/elsewhere" "$WORKLOADS/split" >"$TMP/plant.out" 2>&1
rc=$?
check "a planted link: the export fails (exit $rc)" [ $rc -ne 0 ]
check "a planted link: the error names it" \
  grep -q "out/normal' is a symbolic link or not a directory" "$TMP/plant.out"
check "a planted link: nothing written through it" \
  [ -z "$(ls -A "$TMP/elsewhere")" ]
check "a planted link: the whole run's artifacts are there" \
  [ -f "$TMP/out/profile.folded" ]
# a file where the folder goes: refused the same way, the file untouched
cat >"$TMP/file.sh" <<'SH'
#!/bin/sh
echo keep >"$1/normal"
echo "begin - normal" >"$BENCHPROF_CONTROL"
"$2" 0.2 >/dev/null
echo "end -" >"$BENCHPROF_CONTROL"
SH
chmod +x "$TMP/file.sh"
timeout 120 "$BENCHPROF" record -o "$TMP/out2" -- "$TMP/file.sh" "$TMP/out2" \
  "$WORKLOADS/split" >"$TMP/file.out" 2>&1
check "a file in the folder's place: refused" \
  grep -q "out2/normal' is a symbolic link or not a directory" "$TMP/file.out"
check "a file in the folder's place: kept" [ "$(cat "$TMP/out2/normal")" = keep ]
finish
