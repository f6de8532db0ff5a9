#!/usr/bin/env python3
"""Write the seed corpora of fuzz_records and fuzz_converter: perf ring
records as benchprof's sampler asks for them (sample_type IP, TID, TIME,
PERIOD, CALLCHAIN, sample_id_all; with DWARF call graphs also REGS_USER and
STACK_USER), x86-64 byte order.  Run from tests/fuzz:
    python3 mkcorpus.py
The ELF seeds (corpus/symbols; fuzz_converter maps small-g) are corpus/small.c.txt
built with gcc -g -O1 -Wl,--build-id (small-g), stripped (small-stripped)
and with -shared -fPIC (small-so)."""
import os
import struct

IP, TID, TIME, CALLCHAIN, PERIOD = 0x1, 0x2, 0x4, 0x20, 0x100
REGS_USER, STACK_USER, BRANCH_STACK = 0x1000, 0x2000, 0x800
FP = IP | TID | TIME | PERIOD | CALLCHAIN
DWARF = FP | REGS_USER | STACK_USER
LBR = FP | BRANCH_STACK      # --call-graph lbr: CALL_STACK | USER entries
REGS_MASK = (1 << 6) | (1 << 7) | (1 << 8)      # bp, sp, ip
MMAP, LOST, COMM, EXIT, THROTTLE, FORK, SAMPLE, MMAP2 = 1, 2, 3, 4, 5, 7, 9, 10
USER, KERNEL, COMM_EXEC = 2, 1, 1 << 13
CTX_KERNEL, CTX_USER = 2**64 - 128, 2**64 - 512
BASE = 0x555555554000
PID = 1000


def layout(sample_type, regs=0):
    return struct.pack("<QQB", sample_type, regs, 1)


def rec(rtype, misc, body, t):
    body += struct.pack("<IIQ", PID, PID, t)     # sample id: TID, TIME
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def cstr(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def comm(name, t, misc=COMM_EXEC):
    return rec(COMM, misc, struct.pack("<II", PID, PID) + cstr(name), t)


def mmap2(name, start, length, pgoff, prot, t):
    body = struct.pack("<IIQQQIIQQII", PID, PID, start, length, pgoff,
                       8, 1, 1234, 0, prot, 2)
    return rec(MMAP2, 0, body + cstr(name), t)


def mmap1(name, start, length, pgoff, t):
    body = struct.pack("<IIQQQ", PID, PID, start, length, pgoff)
    return rec(MMAP, 0, body + cstr(name), t)


def task(rtype, pid, ppid, t):
    return rec(rtype, 0, struct.pack("<IIIIQ", pid, ppid, pid, ppid, t), t)


def sample(ips, t, misc=USER, regs=None, stack=b"", branches=None):
    body = struct.pack("<QIIQQQ", ips[0], PID, PID, t, 1000000, len(ips))
    body += struct.pack("<%dQ" % len(ips), *ips)
    if branches is not None:     # {from, to, flags} per LBR entry
        body += struct.pack("<Q", len(branches))
        for frm, to in branches:
            body += struct.pack("<QQQ", frm, to, 0)
    if regs is not None:
        body += struct.pack("<Q", 2) + struct.pack("<3Q", *regs)
        body += struct.pack("<Q", len(stack)) + stack
        body += struct.pack("<Q", len(stack)) if stack else b""
    return struct.pack("<IHH", SAMPLE, misc, 8 + len(body)) + body


def stream(dwarf, lbr=False):
    """A short run of the profiled program: exec, mappings, a fork, samples
    with user and kernel frames, lost and throttled records, exits; with
    lbr every sample carries an LBR call stack (empty for some)."""
    out = [comm("small-g", 10), mmap2("0", BASE, 0x1000, 0, 5, 11),
           mmap2("0", BASE + 0x1000, 0x1000, 0x1000, 5, 12),
           mmap2("1", 0x7ffff7fc1000, 0x2000, 0, 5, 13),
           mmap2("2", 0x7ffff0000000, 0x10000, 0, 7, 14),
           mmap1("4", 0x7ffff7a00000, 0x1000, 0, 15),
           task(FORK, PID + 1, PID, 16)]
    leaf, middle, main = BASE + 0x1130, BASE + 0x1160, BASE + 0x1180
    regs = [BASE + 0x3000, 0x7ffffffde000, leaf] if dwarf else None
    stack = struct.pack("<4Q", 0x7ffffffde040, middle, 0, main)
    calls = [(middle - 5, leaf - 0x30), (main - 5, middle - 0x20)]
    br = (lambda n: calls[:n]) if lbr else (lambda n: None)
    for i in range(4):
        out.append(sample([CTX_USER, leaf, middle, main], 20 + i, USER,
                          regs, stack, br(2)))
    out.append(sample([CTX_KERNEL, 0xffffffff81000110, CTX_USER, leaf,
                       middle], 30, KERNEL, regs, stack, br(1)))
    out.append(sample([CTX_USER, 0x7ffff0000100, main], 31, USER, regs, b"",
                      br(0)))
    out.append(sample([CTX_USER, 0x7ffff7fc1100], 32, branches=br(2)))
    out.append(rec(LOST, 0, struct.pack("<QQ", 7, 42), 33))
    out.append(rec(THROTTLE, 0, struct.pack("<QQQ", 34, 7, 7), 34))
    out.append(comm("renamed", 35, 0))
    out.append(sample([CTX_USER, leaf], 25, branches=br(1)))  # time back
    out.append(task(EXIT, PID + 1, PID, 40))
    out.append(task(EXIT, PID, 1, 41))
    return b"".join(out)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    os.makedirs("corpus/records", exist_ok=True)
    os.makedirs("corpus/converter", exist_ok=True)
    write("corpus/records/fp", layout(FP) + stream(False))
    write("corpus/records/dwarf", layout(DWARF, REGS_MASK) + stream(True))
    write("corpus/converter/fp", b"\1" + layout(FP) + stream(False))
    write("corpus/converter/dwarf", b"\2" + layout(DWARF, REGS_MASK) +
          stream(True))
    write("corpus/converter/auto", b"\0" + layout(DWARF, REGS_MASK) +
          stream(True))
    write("corpus/records/lbr", layout(LBR) + stream(False, True))
    write("corpus/converter/lbr", b"\1" + layout(LBR) + stream(False, True))


main()
