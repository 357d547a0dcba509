#!/usr/bin/env python3
"""Writes samples/bunnymark/bunny.png: a 32x32 white rabbit on transparent, drawn from the
ASCII art below. Kept as the source of the asset so it can be regenerated and changed."""
import struct, sys, zlib

ART = [
    "................................",
    "........##..........##..........",
    ".......#ww#........#ww#.........",
    ".......#wpw#......#wpw#.........",
    ".......#wpw#......#wpw#.........",
    ".......#wpw#......#wpw#.........",
    ".......#wpw#......#wpw#.........",
    "........#wpw#....#wpw#..........",
    "........#wpw#....#wpw#..........",
    ".........#ww#....#ww#...........",
    ".........#ww######ww#...........",
    "........#wwwwwwwwwwwww#.........",
    ".......#wwwwwwwwwwwwwww#........",
    "......#wwwwwwwwwwwwwwwww#.......",
    "......#wwww#wwwwwww#wwww#.......",
    "......#wwww#wwwwwww#wwww#.......",
    "......#wwwwwwwwwwwwwwwww#.......",
    "......#wwwpwwwwwwwwwpwww#.......",
    "......#wwwwwwww#wwwwwwww#.......",
    ".......#wwwwww#p#wwwwww#........",
    "........#wwwwwwwwwwwwww#........",
    ".........##wwwwwwwwww##.........",
    "........#wwwwwwwwwwwwww#........",
    ".......#wwwwwwwwwwwwwwww#.......",
    "......#wwwwwwwwwwwwwwwwww#......",
    "......#wwwwwwwwwwwwwwwwww#......",
    "......#wwwwwwwwwwwwwwwwww#......",
    ".......#wwwwwwwwwwwwwwww#.......",
    "........#wwww#####wwww#.........",
    ".........####.....####..........",
    "................................",
    "................................",
]
COLOURS = {".": (0, 0, 0, 0), "#": (40, 30, 50, 255), "w": (250, 250, 250, 255),
           "p": (245, 160, 190, 255)}


def png(width, height, rows):
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    assert len(ART) == 32 and all(len(r) == 32 for r in ART)
    rows = [[COLOURS[c] for c in r] for r in ART]
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/bunnymark/bunny.png"
    with open(out, "wb") as f:
        f.write(png(32, 32, rows))
