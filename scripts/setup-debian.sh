#!/bin/sh
# Install everything benchprof needs to build and test on Debian 12.
#   scripts/setup-debian.sh          build dependencies only
#   scripts/setup-debian.sh --test   plus the test-only tools (validators)
# Runs as root (CI, runners) or through sudo.  Running it again changes
# nothing that is already in place.
set -eu

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

BUILD_PKGS="build-essential autoconf automake libtool pkg-config \
libpfm4-dev libcurl4-openssl-dev libcjson-dev zlib1g-dev libdw-dev \
libelf-dev libiberty-dev libmicrohttpd-dev"
TEST_PKGS="g++ rustc golang-go python3 libxml2-utils libbenchmark-dev python3-jsonschema \
shellcheck chromium clang linux-perf debuginfod"

pkgs=$BUILD_PKGS
if [ "${1:-}" = "--test" ]; then
  pkgs="$pkgs $TEST_PKGS"
  # Debian's nodejs is too old for the validators (below), but its npm
  # installs the Node.js they need
  command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
fi

missing=
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

# @firefox-devtools/profiler-cli declares node >= 24, newer than Debian
# 12's nodejs (18).  npm's "node" package ships the official binary for
# this architecture (from the npm registry): installed into its own
# prefix and linked as /usr/local/bin/node, which comes before /usr/bin
# on PATH.  Skipped when the node on PATH is new enough.
NODE_MIN_MAJOR=24
NODE_VERSION=24.21.0
NODE_PREFIX=/opt/benchprof/node
node_major() {
  node -e 'process.stdout.write(process.versions.node.split(".")[0])' \
    2>/dev/null || echo 0
}
install_node() {
  [ "$(node_major)" -lt "$NODE_MIN_MAJOR" ] || return 0
  $SUDO mkdir -p "$NODE_PREFIX"
  $SUDO npm install --prefix "$NODE_PREFIX" --no-fund --no-audit \
    --loglevel=error "node@$NODE_VERSION" >/dev/null
  $SUDO ln -sf "$NODE_PREFIX/node_modules/.bin/node" /usr/local/bin/node
  hash -r 2>/dev/null || true
  if [ "$(node_major)" -lt "$NODE_MIN_MAJOR" ]; then
    echo "setup: node on PATH is still $(node --version 2>&1) after installing" \
      "$NODE_VERSION as /usr/local/bin/node: put /usr/local/bin first on PATH" >&2
    exit 1
  fi
}

if [ "${1:-}" = "--test" ]; then
  install_node
  # Validators, pinned so a test run is reproducible.
  if ! command -v profiler-cli >/dev/null 2>&1 ||
     ! npm ls -g pprof-format >/dev/null 2>&1 ||
     ! npm ls -g s3rver >/dev/null 2>&1; then
    $SUDO npm install -g --no-fund --no-audit \
      @firefox-devtools/profiler-cli@0.10.0 pprof-format@2.3.2 \
      s3rver@3.7.1 >/dev/null
  fi
  # npm's global prefix follows the node that runs it: with the node
  # installed above it is that node's own folder, whose bin/ is on no
  # one's PATH.  The tests call these tools by name.
  npm_bin="$(npm prefix -g 2>/dev/null)/bin"
  for tool in profiler-cli s3rver; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ -x "$npm_bin/$tool" ]; then
      $SUDO ln -sf "$npm_bin/$tool" "/usr/local/bin/$tool"
    fi
  done
  for tool in profiler-cli s3rver; do
    command -v "$tool" >/dev/null 2>&1 ||
      { echo "setup: $tool is not on PATH after installing it" >&2; exit 1; }
  done
fi
