#!/bin/sh
# benchprof config check/show/keys through the real command: valid and
# invalid files (unknown key with its suggestion, wrong type, JSON syntax
# error with line:column, unknown event and counter names), a missing file
# named, the default path absent, the permissions warning for a token, a
# token where its variable's name goes (refused, never shown),
# environment overrides winning over the file, tokens never printed, a
# store URL run would refuse (its query never printed, the setting named
# by its variable or key), an unreadable CA bundle or one that holds no
# PEM certificate; then
# the examples against the schema and
# the schema's key set against the parser's.
. "$top_srcdir/tests/lib.sh"

schema="$top_srcdir/config/benchprof.schema.json"
token=tok-$$-secret-value

# expect_error FILE TEXT: config check FILE exits 2 and says TEXT
expect_error() {
  "$BENCHPROF" config check --config "$1" >"$TMP/out" 2>"$TMP/err"
  st=$?
  [ $st -eq 2 ] || { echo "exit status $st"; cat "$TMP/err"; return 1; }
  grep -qF -- "$2" "$TMP/err" || { echo "got:"; cat "$TMP/err"; return 1; }
}

# 1. a valid file: exit 0, the file named
printf '{"enabled": true, "record": {"frequency": 499}}\n' >"$TMP/good.json"
"$BENCHPROF" config check --config "$TMP/good.json" >"$TMP/out" 2>"$TMP/err"
check "a valid file: exit 0" [ $? -eq 0 ]
check "the file used is named" grep -qF "$TMP/good.json: valid" "$TMP/out"
BENCHPROF_CONFIG="$TMP/good.json" "$BENCHPROF" config check >"$TMP/out" 2>&1
check "\$BENCHPROF_CONFIG names the file" \
  grep -qF "$TMP/good.json: valid (from \$BENCHPROF_CONFIG)" "$TMP/out"

# 2. errors: path and suggestion, type, syntax with line:column
printf '{\n  "record": {"frequncy": 99}\n}\n' >"$TMP/typo.json"
check "unknown key: path and suggestion" expect_error "$TMP/typo.json" \
  "$TMP/typo.json: \$.record.frequncy: unknown key; did you mean \"frequency\"?"
printf '{"network": {"retries": "3"}}' >"$TMP/type.json"
check "wrong type: path, expectation, what it got" expect_error \
  "$TMP/type.json" "\$.network.retries: expected a whole number from 0 to 20, got a string"
printf '{\n  "enabled": true,\n  "strict": false,\n}\n' >"$TMP/syntax.json"
check "JSON syntax error: line and column" expect_error "$TMP/syntax.json" \
  "$TMP/syntax.json:4:1: JSON syntax error"
printf '{"record": {"event": "cycels"}}\n' >"$TMP/event.json"
check "an unknown event: the path and the name" expect_error \
  "$TMP/event.json" "$TMP/event.json: \$.record.event: unknown event 'cycels'"
printf '{"record": {"counters": ["instructions", "bogus"]}}\n' \
  >"$TMP/counters.json"
check "an unknown counter: the path and the name" expect_error \
  "$TMP/counters.json" "\$.record.counters: unknown event 'bogus'"
BENCHPROF_EVENT=cycles:zz "$BENCHPROF" config check --config "$TMP/good.json" \
  >"$TMP/out" 2>"$TMP/err"
check "an event modifier from the environment: exit 2, the variable named" \
  sh -c '[ $1 -eq 2 ] && grep -qF "BENCHPROF_EVENT: event '"'cycles:zz'"'" "$2"' \
  sh $? "$TMP/err"
check "a missing named file is named" expect_error "$TMP/none.json" \
  "no config file '$TMP/none.json'"
BENCHPROF_CONFIG="$TMP/none.json" "$BENCHPROF" config show >/dev/null \
  2>"$TMP/err"
check "a missing \$BENCHPROF_CONFIG file is an error too" \
  sh -c "[ $? -eq 2 ] && grep -qF '$TMP/none.json' '$TMP/err'"

# 3. the default path absent: no config, exit 0 (only when this machine
# has none; a runner's own file would make this a different test)
if [ ! -e /etc/benchprof/config.json ]; then
  env -u BENCHPROF_CONFIG "$BENCHPROF" config check >"$TMP/out" 2>&1
  check "no file at the default path: exit 0" [ $? -eq 0 ]
  check "no file at the default path: said so" \
    grep -qF "no config file: /etc/benchprof/config.json does not exist" "$TMP/out"
fi

# 4. a token in a file others can read: a warning; never printed
printf '{"bencher": {"project": "p", "token": "%s"}}' "$token" >"$TMP/tok.json"
chmod 644 "$TMP/tok.json"
"$BENCHPROF" config show --config "$TMP/tok.json" >"$TMP/out" 2>"$TMP/err"
check "show with a token: exit 0" [ $? -eq 0 ]
check "a readable token file: warning" \
  grep -qF "holds bencher.token and others can read it (mode 0644)" "$TMP/err"
check "the token is redacted" grep -qF '"token": "<redacted>"' "$TMP/out"
check "the token is never printed" sh -c "! grep -qF '$token' '$TMP/out' '$TMP/err'"
chmod 600 "$TMP/tok.json"
"$BENCHPROF" config check --config "$TMP/tok.json" >"$TMP/out" 2>"$TMP/err"
check "a private token file: no warning" sh -c "! grep -q warning '$TMP/err'"
# the token itself where its variable's name goes (*.token_env): refused,
# the key named, the value never shown (run would print "$VALUE is not
# set"); a conventional name is taken
printf '{"comment": {"token_env": "%s"}}' "$token" >"$TMP/tokenv.json"
check "comment.token_env holding a token: exit 2, the key named" \
  expect_error "$TMP/tokenv.json" "\$.comment.token_env: expected the name of an environment variable holding the token"
check "comment.token_env holding a token: not shown" \
  sh -c "! grep -qF '$token' '$TMP/out' '$TMP/err'"
printf '{"bencher": {"token_env": "lower_case"}}' >"$TMP/tokenv.json"
check "bencher.token_env not in uppercase: refused" \
  expect_error "$TMP/tokenv.json" "got a value that is not shown"
printf '{"store": {"token_env": "MY_STORE_TOKEN_2"}}' >"$TMP/tokenv.json"
"$BENCHPROF" config check --config "$TMP/tokenv.json" >"$TMP/out" 2>"$TMP/err"
check "store.token_env MY_STORE_TOKEN_2: valid" [ $? -eq 0 ]

# 5. environment overrides win over the file; bad values name the variable
BENCHPROF_FREQUENCY=123 BENCHPROF_ENABLED=0 BENCHPROF_STORE=file:///srv/st \
  BENCHPROF_PROJECT=envproj \
  "$BENCHPROF" config show --config "$TMP/tok.json" >"$TMP/show.json" 2>/dev/null
check "overrides win" python3 - "$TMP/show.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["record"]["frequency"] == 123, c
assert c["enabled"] is False, c
assert c["store"]["url"] == "file:///srv/st", c
assert c["bencher"]["project"] == "envproj", c
PY
BENCHPROF_FREQUENCY=fast "$BENCHPROF" config check --config "$TMP/good.json" \
  >/dev/null 2>"$TMP/err"
check "a bad variable: exit 2, named" sh -c "[ $? -eq 2 ] && grep -qF \
  'BENCHPROF_FREQUENCY: expected a whole number from 1 to 1000000, got \"fast\"' '$TMP/err'"
printf '{"record": {"ring_mib": 3}}' >"$TMP/ring.json"
check "a ring size that is no power of two: path and expectation" \
  expect_error "$TMP/ring.json" \
  "\$.record.ring_mib: expected a power of two from 1 to 1024 (MiB per CPU), got 3"
BENCHPROF_RING_MIB=6 "$BENCHPROF" config check --config "$TMP/good.json" \
  >/dev/null 2>"$TMP/err"
check "a ring size variable that is no power of two: exit 2, named" \
  sh -c "[ $? -eq 2 ] && grep -qF 'BENCHPROF_RING_MIB: expected a power of two' '$TMP/err'"

# 6. what show prints is a valid config, and valid against the schema
"$BENCHPROF" config show --config "$top_srcdir/config/runner-example.json" \
  >"$TMP/eff.json" 2>/dev/null
check "show's output reads back" \
  "$BENCHPROF" config check --config "$TMP/eff.json"

# 7. what run would refuse is refused here: a store URL with a query
# (never echoed: it may hold a token), from the file or a variable; a CA
# bundle that cannot be read, named by key and path
secret=q-$$-secret
printf '{"store": {"url": "http://127.0.0.1:1/prefix?X-Token=%s"}}\n' \
  "$secret" >"$TMP/query.json"
check "a store URL with a query: exit 2, the file's key named" \
  expect_error "$TMP/query.json" "$TMP/query.json: \$.store.url: store 'http://127.0.0.1:1/prefix?<redacted>': no query"
check "the query is never printed" \
  sh -c "! grep -qF '$secret' '$TMP/out' '$TMP/err'"
BENCHPROF_STORE="s3://bkt/p#$secret" "$BENCHPROF" config check \
  --config "$TMP/good.json" >"$TMP/out" 2>"$TMP/err"
check "a store URL with a fragment from \$BENCHPROF_STORE: exit 2, redacted" \
  sh -c "[ $? -eq 2 ] && grep -qF \"'s3://bkt/p?<redacted>'\" '$TMP/err' &&
         ! grep -qF '$secret' '$TMP/out' '$TMP/err'"
check "a store URL from \$BENCHPROF_STORE: the variable named, not the file" \
  sh -c "grep -qF 'BENCHPROF_STORE: store ' '$TMP/err' &&
         ! grep -qF '$TMP/good.json' '$TMP/err'"
printf '{"store": {"url": "file://%s/st"}}\n' "$TMP" >"$TMP/filestore.json"
BENCHPROF_STORE="https://h.example/x?sig=$secret" "$BENCHPROF" config check \
  --config "$TMP/filestore.json" >"$TMP/out" 2>"$TMP/err"
check "\$BENCHPROF_STORE over the file's store.url: exit 2, the variable named" \
  sh -c "[ $? -eq 2 ] &&
         grep -qF \"BENCHPROF_STORE: store 'https://h.example/x?<redacted>': no query\" '$TMP/err' &&
         ! grep -qF '$TMP/filestore.json' '$TMP/err' &&
         ! grep -qF '$secret' '$TMP/out' '$TMP/err'"
printf '{"network": {"ca_file": "%s/no-such-ca.pem"}}\n' "$TMP" >"$TMP/ca.json"
check "a missing network.ca_file: exit 2, key and path named" \
  expect_error "$TMP/ca.json" "\$.network.ca_file: cannot read the CA bundle '$TMP/no-such-ca.pem': No such file"
BENCHPROF_CA_FILE="$TMP" "$BENCHPROF" config check --config "$TMP/good.json" \
  >"$TMP/out" 2>"$TMP/err"
check "a directory as \$BENCHPROF_CA_FILE: exit 2, the variable named" \
  sh -c "[ $? -eq 2 ] && grep -qF 'BENCHPROF_CA_FILE: cannot read the CA bundle' '$TMP/err' &&
         grep -qF 'not a regular file' '$TMP/err'"
# a readable file that holds no certificate: every https request would
# fail with "error setting certificate file"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$TMP/passwd"
printf '{"network": {"ca_file": "%s"}}\n' "$TMP/passwd" >"$TMP/ca-text.json"
check "a network.ca_file with no PEM certificate: exit 2, key and path named" \
  expect_error "$TMP/ca-text.json" "$TMP/ca-text.json: \$.network.ca_file: the CA bundle '$TMP/passwd' holds no PEM certificate"
: >"$TMP/empty.pem"
BENCHPROF_CA_FILE="$TMP/empty.pem" "$BENCHPROF" config check \
  --config "$TMP/good.json" >"$TMP/out" 2>"$TMP/err"
check "an empty \$BENCHPROF_CA_FILE: exit 2, the variable named" \
  sh -c "[ $? -eq 2 ] &&
         grep -qF \"BENCHPROF_CA_FILE: the CA bundle '$TMP/empty.pem' holds no PEM certificate\" '$TMP/err' &&
         grep -qF 'the file is empty' '$TMP/err'"
# a bundle whose first certificate begins across the check's 16 KiB reads
# (comments before it, as some bundles have)
{ head -c 16370 /dev/zero | tr '\0' '#'; echo
  echo "-----BEGIN CERTIFICATE-----"; echo "MIIB"
  echo "-----END CERTIFICATE-----"; } >"$TMP/ca-ok.pem"
printf '{"network": {"ca_file": "%s"}}\n' "$TMP/ca-ok.pem" >"$TMP/ca-ok.json"
check "a network.ca_file with a PEM certificate: valid" \
  "$BENCHPROF" config check --config "$TMP/ca-ok.json"

# 8. the examples follow the schema, the parser takes them, and the schema
# and the parser know the same keys: each of the schema's keys goes
# through config check with a value of its type, and config keys lists
# exactly the schema's keys
"$BENCHPROF" config keys >"$TMP/keys" 2>&1
check "config keys lists keys" grep -qx 'record.frequency' "$TMP/keys"
for f in runner-example.json local-example.json; do
  check "$f: valid for benchprof" \
    "$BENCHPROF" config check --config "$top_srcdir/config/$f"
done
check "schema and examples agree; schema keys = parser keys" \
  python3 - "$schema" "$top_srcdir/config" "$TMP" "$BENCHPROF" <<'PY'
import json, os, subprocess, sys
import jsonschema
schema_file, cfgdir, tmp, bp = sys.argv[1:5]
schema = json.load(open(schema_file))
V = jsonschema.Draft202012Validator
V.check_schema(schema)
for f in ("runner-example.json", "local-example.json"):
    V(schema).validate(json.load(open(os.path.join(cfgdir, f))))
runner = json.load(open(os.path.join(cfgdir, "runner-example.json")))
assert runner["enabled"] is False, "the runner example must start disabled"

def resolve(node):
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    return node

samples = {"boolean": True, "integer": 1, "number": 1.5}
def sample(path, node):
    node = resolve(node)
    if path.endswith("counters"):
        return ["cycles"]
    if path.endswith("call_graph"):
        return "fp"
    if path == "record.event":
        return "cpu-clock"    # an event name is checked too
    if path.endswith("ca_file"):
        return tmp + "/ca-ok.pem"   # a bundle that can be read: checked too
    if "enum" in node:
        return node["enum"][-1]
    t = node.get("type")
    if t == "string":
        if "url" in path or "endpoint" in path or path.endswith("host"):
            return "https://example.org/x"
        return "X_NAME" if path.endswith("token_env") else "value"
    return samples[t]

keys = []
def walk(prefix, node):
    assert node.get("additionalProperties") is False, prefix
    for name, sub in node["properties"].items():
        path = prefix + name
        keys.append(path)
        sub = resolve(sub)
        if sub.get("type") == "object":
            walk(path + ".", sub)
        else:
            doc = value = sample(path, sub)
            for part in reversed(path.split(".")):
                doc = {part: doc}
            V(schema).validate(doc)
            fn = os.path.join(tmp, "key.json")
            json.dump(doc, open(fn, "w"))
            r = subprocess.run([bp, "config", "check", "--config", fn],
                               capture_output=True, text=True)
            assert r.returncode == 0, (path, r.stderr)
            # and a value of another type is refused by both
            bad = {"x": 1} if not isinstance(value, dict) else 1
            doc = bad
            for part in reversed(path.split(".")):
                doc = {part: doc}
            assert not V(schema).is_valid(doc), path
            json.dump(doc, open(fn, "w"))
            r = subprocess.run([bp, "config", "check", "--config", fn],
                               capture_output=True, text=True)
            assert r.returncode == 2 and path in r.stderr, (path, r.stderr)
walk("", schema)
parser = open(os.path.join(tmp, "keys")).read().split()
assert sorted(parser) == sorted(keys), (set(parser) ^ set(keys))
PY
finish
