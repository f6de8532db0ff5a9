#!/usr/bin/env bash
# Set up a Debian 12 machine, build benchprof and profile the bundled
# example benchmark (examples/bench.c) into ./benchprof-out.
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

build/benchprof record -o benchprof-out -- build/examples/bench

cat <<EOT

Profile written to $top/benchprof-out:
  flamegraph.svg    open in a browser (click to zoom, Ctrl-F to search)
  profile.json.gz   drop on https://profiler.firefox.com/ (Load a profile from file)
  profile.pb.gz     go tool pprof -http=: benchprof-out/profile.pb.gz
  profile.folded    collapsed stacks for flamegraph.pl, inferno or speedscope
  summary.json      event, samples, lost samples and the top functions
EOT
