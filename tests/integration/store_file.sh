#!/bin/sh
# The file:// store backend through store_tool: byte-identical round trip
# (a gzip file stays gzip), overwrite, hostile names kept inside the root,
# not found, bad keys and URLs refused with a message.
. "$top_srcdir/tests/lib.sh"
tool="$top_builddir/tests/unit/store_tool"
root="$TMP/store root"
url="file://$(echo "$root" | sed 's/ /%20/g')"

printf '{"meta": {}}' | gzip -c >"$TMP/profile.json.gz"
key="proj/$("$tool" part 'feature/../x')/$("$tool" part ..)/tb/$("$tool" part "$(printf 'a\tb')")/profile.json.gz"
check "put a gzip file" "$tool" put "$url" "$key" "$TMP/profile.json.gz"
"$tool" get "$url" "$key" >"$TMP/got"
check "get returns it byte for byte (not gunzipped)" \
  cmp -s "$TMP/profile.json.gz" "$TMP/got"
check "hostile names are one directory each, inside the root" \
  [ -f "$root/proj/feature%2F..%2Fx/%2E%2E/tb/a%09b/profile.json.gz" ]
check "nothing outside the root" \
  [ "$(find "$TMP" -name profile.json.gz | wc -l)" -eq 2 ]
check "no temporary files left" \
  [ "$(find "$root" -type f | wc -l)" -eq 1 ]
check "on the same file system the object is a hard link (no copy)" \
  [ "$(stat -c %i "$TMP/profile.json.gz")" = \
    "$(stat -c %i "$root/proj/feature%2F..%2Fx/%2E%2E/tb/a%09b/profile.json.gz")" ]
cp "$TMP/profile.json.gz" "$TMP/first"
printf 'second' >"$TMP/second"
check "overwrite" "$tool" put "$url" "$key" "$TMP/second"
check "the new bytes are read back" \
  [ "$("$tool" get "$url" "$key")" = second ]
check "the overwrite replaced the link: the first source is untouched" \
  cmp -s "$TMP/first" "$TMP/profile.json.gz"
ln -s "$TMP/first" "$TMP/symlink"
check "a symbolic link as the source: its target is stored" \
  "$tool" put "$url" proj/linked "$TMP/symlink"
check "as a regular file with the target's bytes" \
  sh -c '[ -f "$1" ] && [ ! -L "$1" ] && cmp -s "$1" "$2"' sh "$root/proj/linked" "$TMP/first"
# /proc is another file system: no link can be made there, so a copy
check "another file system: copied" "$tool" put "$url" proj/copied /proc/version
check "the copy has the source's bytes" \
  sh -c '"$1" get "$2" proj/copied | cmp -s - /proc/version' sh "$tool" "$url"
check "the public URL escapes the parts once more" \
  [ "$("$tool" url "$url" "$key")" = "$url/proj/feature%252F..%252Fx/%252E%252E/tb/a%2509b/profile.json.gz" ]
check "names decode back" \
  [ "$("$tool" decode 'feature%2F..%2Fx')" = "feature/../x" ]

"$tool" get "$url" proj/none >"$TMP/nf.out" 2>"$TMP/nf.err"
check "not found: BPE_NOT_FOUND (15)" [ $? -eq 15 ]
check "not found: the key and the store in the message" \
  grep -q "no object 'proj/none' in $url" "$TMP/nf.err"
"$tool" put "$url" "proj/../../escape" "$TMP/second" 2>"$TMP/bad.err"
check "a dot-segment key is refused (BPE_INVAL)" [ $? -eq 2 ]
check "the refusal names the key" grep -q "bad store key 'proj/../../escape'" \
  "$TMP/bad.err"
check "and wrote nothing" [ ! -e "$TMP/escape" ]
"$tool" put "file://relative" k "$TMP/second" 2>"$TMP/rel.err"
check "a relative file URL is refused" [ $? -eq 2 ]
check "with a message" grep -q "absolute path" "$TMP/rel.err"
finish
