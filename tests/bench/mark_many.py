#!/usr/bin/env python3
"""A harness of many small benchmarks for the publishing rows of `make bench`.

    mark_many.py N MS [BMF]

Marks N benchmarks b0..b<N-1> through BENCHPROF_CONTROL (include/benchprof/
hooks.h's protocol: "begin - NAME" and "end -" lines), each spinning MS
milliseconds of CPU, and writes their BMF results to BMF when given.  Not
under benchprof it only spins.
"""
import json
import os
import sys
import time


def spin(ms):
    end = time.thread_time() + ms / 1000.0
    x = 0
    while time.thread_time() < end:
        for i in range(200):
            x += i
    return x


def main():
    n, ms = int(sys.argv[1]), float(sys.argv[2])
    path = os.environ.get("BENCHPROF_CONTROL")
    fd = os.open(path, os.O_WRONLY) if path else None
    results = {}
    for i in range(n):
        name = "b%d" % i
        if fd is not None:
            os.write(fd, b"begin - " + name.encode() + b"\n")
        t0 = time.monotonic()
        spin(ms)
        results[name] = {"latency": {"value": (time.monotonic() - t0) * 1e9}}
        if fd is not None:
            os.write(fd, b"end -\n")
    if fd is not None:
        os.close(fd)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
