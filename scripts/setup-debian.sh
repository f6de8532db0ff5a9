#!/bin/sh
# Install everything benchprof needs to build and test on Debian 12.
#   scripts/setup-debian.sh          build dependencies only
#   scripts/setup-debian.sh --test   plus the test-only tools (validators)
# Runs as root (CI, runners) or through sudo.
set -eu

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

BUILD_PKGS="build-essential autoconf automake libtool pkg-config \
libpfm4-dev libcurl4-openssl-dev libcjson-dev zlib1g-dev libdw-dev \
libelf-dev libiberty-dev libmicrohttpd-dev"
TEST_PKGS="g++ rustc golang-go python3 libxml2-utils libbenchmark-dev python3-jsonschema \
shellcheck chromium clang linux-perf"

pkgs=$BUILD_PKGS
if [ "${1:-}" = "--test" ]; then
  pkgs="$pkgs $TEST_PKGS"
  command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
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

if [ "${1:-}" = "--test" ]; then
  # Validators, pinned so a test run is reproducible.
  if ! command -v profiler-cli >/dev/null 2>&1 ||
     ! npm ls -g pprof-format >/dev/null 2>&1 ||
     ! npm ls -g s3rver >/dev/null 2>&1; then
    $SUDO npm install -g --no-fund --no-audit \
      @firefox-devtools/profiler-cli@0.10.0 pprof-format@2.3.2 \
      s3rver@3.7.1 >/dev/null
  fi
fi
