#!/usr/bin/env python3
"""Pixel statistics of a headless Chromium screenshot (an 8-bit RGB or
RGBA PNG, decoded with zlib only), for the viewer's tests.

usage: png_stats.py PNG [NAME:MIN]...
Prints the statistics; each NAME:MIN (colours, ink, warm, link, red)
must hold, else it exits 1.  red: the verdict's red (#b00020) and
nearby; warm: the flame graphs' palette; link: unvisited links' blue.
"""
import struct
import sys
import zlib


def decode_png(path):
    """(width, height, bytes per pixel, rows of bytes) of an 8-bit RGB or
    RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB",
                                                                chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    assert depth == 8 and ctype in (2, 6) and interlace == 0, \
        "unexpected PNG format %d/%d/%d" % (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytes(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 2:      # Up: whole row at once
            line = bytes((x + b) & 255 for x, b in zip(line, prev))
        elif f != 0:    # Sub, Average, Paeth: byte by byte
            line = bytearray(line)
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else \
                        (b if pb <= pc else c)
                    line[i] = (line[i] + pred) & 255
            line = bytes(line)
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def stats(path):
    w, h, bpp, rows = decode_png(path)
    colours, ink, warm, link, red = set(), 0, 0, 0, 0
    for line in rows:
        pixels = list(zip(line[0::bpp], line[1::bpp], line[2::bpp]))
        colours.update(pixels)
        ink += sum(1 for r, g, b in pixels if r < 200 or g < 200 or b < 200)
        # the flame graph's palette
        warm += sum(1 for r, g, b in pixels if r > 150 and r - b > 80)
        # unvisited links
        link += sum(1 for r, g, b in pixels
                    if b > 150 and b - r > 100 and b - g > 100)
        # a regression's verdict (#b00020)
        red += sum(1 for r, g, b in pixels
                   if 140 < r < 210 and g < 50 and b < 70)
    return {"width": w, "height": h, "colours": len(colours), "ink": ink,
            "warm": warm, "link": link, "red": red}


def main():
    s = stats(sys.argv[1])
    print(sys.argv[1], " ".join("%s=%d" % kv for kv in sorted(s.items())))
    ok = True
    for want in sys.argv[2:]:
        name, least = want.split(":")
        if s[name] < int(least):
            print("FAIL: %s %s < %s" % (sys.argv[1], name, least))
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
