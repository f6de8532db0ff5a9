#!/usr/bin/env bash
# Set up a Debian 12 machine, build benchprof and profile the bundled
# example benchmark (examples/bench.c) with `benchprof run`: artifacts and
# report in ./benchprof-out, published to the local store ./benchprof-store
# (no network: no Bencher token is set here, so no report is sent).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/setup-debian.sh
autoreconf -fi >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q
make -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
cd "$top"

store="$top/benchprof-store"
# the branch from git; a copy without git (a tarball) or a detached HEAD
# has none, and benchprof never guesses one: call it "demo"
branch=$(git symbolic-ref -q --short HEAD 2>/dev/null || echo demo)
build/benchprof run -o benchprof-out --name example --branch "$branch" \
  --store "file://$store" -- build/examples/bench

cat <<EOT

Profile and report written to $top/benchprof-out:
  flamegraph.svg    open in a browser (click to zoom, Ctrl-F to search)
  profile.json.gz   drop on https://profiler.firefox.com/ (Load a profile from file)
  profile.pb.gz     go tool pprof -http=: benchprof-out/profile.pb.gz
  profile.folded    collapsed stacks for flamegraph.pl, inferno or speedscope
  summary.json      event, samples, lost samples and the top functions
  report.json       the benchmark report (Bencher Metric Format)
  manifest.json     every artifact with its sha256, and where it was published
Published to the local store $store
(project/branch/commit/testbed/benchmark/...). Browse it, with links that
open each profile in the Firefox Profiler:
  build/benchprof serve $store
EOT
