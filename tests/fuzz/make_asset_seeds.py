#!/usr/bin/env python3
"""Writes the asset fuzzers' seed corpora, tests/fuzz/corpus/{font,sound,music,image}/, from
the project's own test assets (tests/audio/tone.ogg) and from files built here: a minimal
TrueType font (95 square glyphs for U+0020..U+007E, made from scratch), small WAVs and PNGs,
and forged or mutated variants of each.

File names state the verdict tests/test_fuzz_corpus.c holds them to: good-* must load, bad-*
must be refused with an error naming the file, any-* only must not break a property (they may
load or not). Run from anywhere: python3 tests/fuzz/make_asset_seeds.py. The output is
deterministic; the files are committed, so the tests need no Python.
"""
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")


# --- Fonts ---------------------------------------------------------------------------------------

def table_dir(tables):
    tags = sorted(tables)
    n = len(tags)
    head = struct.pack(">IHHHH", 0x00010000, n, 16, 0, n * 16 - 16)
    off = 12 + 16 * n
    recs, body = b"", b""
    for t in tags:
        d = tables[t]
        recs += struct.pack(">4sIII", t.encode(), 0, off + len(body), len(d))
        body += d + b"\0" * ((4 - len(d) % 4) % 4)
    return head + recs + body


def glyph_square():
    g = struct.pack(">hhhhh", 1, 50, 0, 550, 700)  # one contour, its box
    g += struct.pack(">HH", 3, 0)                  # the contour ends at point 3; no instructions
    g += bytes([1, 1, 1, 1])                       # four on-curve points, 16-bit deltas
    g += struct.pack(">hhhh", 50, 500, 0, -500)
    g += struct.pack(">hhhh", 0, 0, 700, 0)
    return g + b"\0" * (len(g) % 2)


def format4(first, last, glyph=1):
    """A format 4 cmap subtable mapping first..last to glyphs `glyph`.. (and the 0xFFFF end
    segment)."""
    seg = 2
    end = struct.pack(">HH", last, 0xFFFF)
    start = struct.pack(">HH", first, 0xFFFF)
    delta = struct.pack(">hh", glyph - first, 1)
    rng = struct.pack(">HH", 0, 0)
    return (struct.pack(">HHHHHHH", 4, 16 + 8 * seg, 0, seg * 2, 4, 1, 0) + end + b"\0\0" +
            start + delta + rng)


def glyph_broken():
    """A square's bytes whose one contour claims to end at point 65533: its points run past the
    glyph's data."""
    sq = glyph_square()
    return sq[:10] + struct.pack(">H", 65533) + sq[12:]


def font(asc=800, desc=-200, loca_long=False, cmap=None, nhm=None, loca=None, kern=None,
         broken=None):
    n = 96  # .notdef (empty) + 95 squares
    sq = glyph_square()
    glyf = b"".join(glyph_broken() if i == broken else sq for i in range(1, n))
    offs = [0] + [i * len(sq) for i in range(n)]
    if loca:
        offs = loca(offs)
    loca_t = b"".join(struct.pack(">I", o) if loca_long else struct.pack(">H", o // 2)
                      for o in offs)
    head = struct.pack(">IIIIHHqqhhhhHHhhh", 0x00010000, 0x00010000, 0, 0x5F0F3CF5, 0, 1000, 0, 0,
                       0, -200, 600, 800, 0, 8, 2, 1 if loca_long else 0, 0)
    hhea = struct.pack(">IhhhHhhhhhhhhhhhH", 0x00010000, asc, desc, 0, 600, 0, 0, 550, 1, 0, 0,
                       0, 0, 0, 0, 0, n if nhm is None else nhm)
    hmtx = struct.pack(">Hh", 600, 50) * n
    maxp = struct.pack(">IH", 0x00005000, n)
    if cmap is None:
        cmap = struct.pack(">HHHHI", 0, 1, 3, 1, 12) + format4(0x20, 0x7E)
    t = {"cmap": cmap, "glyf": glyf, "head": head, "hhea": hhea, "hmtx": hmtx, "loca": loca_t,
         "maxp": maxp}
    if kern:
        t["kern"] = kern
    return table_dir(t)


def kern_table(pairs):
    """A version 0 kern table, one format 0 subtable; pairs: (left, right, value), sorted."""
    body = struct.pack(">HHHH", len(pairs), 6, 0, 0)
    body += b"".join(struct.pack(">HHh", l, r, v) for l, r, v in pairs)
    return struct.pack(">HH", 0, 1) + struct.pack(">HHH", 0, 6 + len(body), 1) + body


def fonts():
    g = font()
    glyph = lambda ch: ord(ch) - 0x20 + 1
    v = {
        "good-square.ttf": g,
        "good-kern.ttf": font(kern=kern_table([(glyph("A"), glyph("V"), -80),
                                               (glyph("T"), glyph("o"), -60)])),
        # the cmap's encoding record points 2 GB past the cmap table
        "bad-cmap-offset.ttf": font(cmap=struct.pack(">HHHHI", 0, 1, 3, 1, 0x7FFFFFF0) + b"\0" * 40),
        # a format 12 subtable claiming 2^31-1 groups
        "bad-cmap12-groups.ttf": font(cmap=struct.pack(">HHHHI", 0, 1, 3, 10, 12) +
                                      struct.pack(">HHIIII", 12, 0, 28, 0, 0x7FFFFFFF, 0x20) +
                                      struct.pack(">III", 0x7E, 0x7E, 1)),
        # a format 2 (high-byte) subtable of zeros
        "bad-cmap-format2.ttf": font(cmap=struct.pack(">HHHHI", 0, 1, 0, 3, 12) +
                                     struct.pack(">HHH", 2, 518, 0) + b"\0" * 512),
        # long loca offsets 1 GB past the glyf table: every glyph reads as empty
        "bad-loca-offset.ttf": font(loca_long=True,
                                    loca=lambda o: [0] + [0x40000000 + i * 64
                                                          for i in range(1, len(o))]),
        # a format 4 subtable mapping U+0020..U+007E to glyphs 2001.., past maxp's 96
        "bad-cmap-glyph-index.ttf": font(cmap=struct.pack(">HHHHI", 0, 1, 3, 1, 12) +
                                         format4(0x20, 0x7E, glyph=2001)),
        # the outline of 'A' (glyph 34) claims 65534 points in a few bytes
        "bad-glyph-outline.ttf": font(broken=glyph("A")),
        # ascender == descender: a zero-height font
        "bad-zero-height.ttf": font(asc=0, desc=0),
        "bad-truncated.ttf": g[: len(g) // 2],
        "bad-garbage.ttf": bytes((i * 2654435761 >> 13) & 255 for i in range(4096)),
        "bad-empty.ttf": b"",
        "bad-three-bytes.ttf": g[:3],
        # a format 13 (many-to-one) group mapping every 32-bit char code to glyph 1: the load
        # walks the char map only up to U+10FFFF
        "good-cmap13-everything.ttf": font(cmap=struct.pack(">HHHHI", 0, 1, 3, 10, 12) +
                                           struct.pack(">HHIII", 13, 0, 28, 0, 1) +
                                           struct.pack(">III", 0, 0xFFFFFFFF, 1)),
        # numberOfHMetrics past the hmtx table: FreeType reads what is there
        "any-hmtx-count.ttf": font(nhm=65535),
    }
    return v


# --- Sounds --------------------------------------------------------------------------------------

def wav(channels, rate, bits, frames):
    data = bytearray()
    for i in range(frames):
        for c in range(channels):
            s = ((i * 37 + c * 11) % 64) - 32
            data += bytes([(s + 128) & 255]) if bits == 8 else struct.pack("<h", s * 512)
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * bits // 8,
                      channels * bits // 8, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + \
        struct.pack("<I", len(data)) + bytes(data)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def patch(data, replaces=(), inserts=()):
    """A mutation of `data`, as a fuzzer makes them: bytes set at offsets (replaces), then
    copies of the file's own bytes [src, src + n) inserted at offsets (inserts, back to front)."""
    b = bytearray(data)
    for at, value in replaces:
        b[at] = value
    for at, src, n in sorted(inserts, reverse=True):
        b[at:at] = data[src:src + n]
    return bytes(b)


def sounds():
    tone = open(os.path.join(ROOT, "tests", "audio", "tone.ogg"), "rb").read()
    v = {
        "good-tone.ogg": tone,
        "good-mono8.wav": wav(1, 11025, 8, 200),
        "good-stereo16.wav": wav(2, 22050, 16, 200),
        # The kinds of mutation a fuzzer found killing stb_vorbis: a byte of the identification
        # header's page changed and a run of the file's own bytes spliced into the setup header
        # (codebooks), then the same with the comment header's length field.
        "bad-ogg-codebook-splice.ogg": patch(tone, replaces=[(95, 251)], inserts=[(148, 323, 13)]),
        "bad-ogg-header-splice.ogg": patch(tone, replaces=[(53, 64)], inserts=[(123, 1991, 27)]),
        "bad-ogg-truncated.ogg": tone[:200],
        "bad-ogg-magic-only.ogg": b"OggS",
        "bad-wav-truncated.wav": wav(1, 11025, 8, 200)[:30],
        # a data chunk claiming 3 GB in a 268-byte file (SDL allocates what the chunk claims)
        "bad-wav-data-length.wav": patch(wav(2, 22050, 16, 56), replaces=list(enumerate(
            struct.pack("<I", 0xC0000320), 40))),
        "bad-unknown.bin": b"this is not a sound, only text",
    }
    return v


# --- Images --------------------------------------------------------------------------------------

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(w, h, color_type, bits, rows, interlace=0, palette=None):
    ihdr = struct.pack(">IIBBBBB", w, h, bits, color_type, 0, 0, interlace)
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
    if palette:
        out += png_chunk(b"PLTE", palette)
    out += png_chunk(b"IDAT", zlib.compress(rows, 9)) + png_chunk(b"IEND", b"")
    return out


def images():
    rows_rgba = b"".join(b"\0" + b"".join(bytes((x * 60, y * 60, 128, 255 - x * 40))
                                          for x in range(4)) for y in range(4))
    rows_gray16 = b"".join(b"\0" + b"".join(struct.pack(">H", (x + y) * 8000) for x in range(3))
                           for y in range(3))
    rows_pal = b"".join(b"\0" + bytes([(x + y) % 3 for x in range(5)]) for y in range(2))
    good = png(4, 4, 6, 8, rows_rgba)
    broken_crc = bytearray(good)
    broken_crc[29] ^= 0xFF  # the IHDR's CRC
    v = {
        "good-rgba8.png": good,
        "good-gray16.png": png(3, 3, 0, 16, rows_gray16),
        "good-palette.png": png(5, 2, 3, 8, rows_pal, palette=bytes([255, 0, 0, 0, 255, 0,
                                                                     0, 0, 255])),
        "bad-crc.png": bytes(broken_crc),
        "bad-truncated.png": good[: len(good) - 20],
        "bad-no-pixels.png": png(4, 4, 6, 8, b""),
        "bad-not-png.bin": b"P6\n2 2\n65535\n" + b"\xff" * 4,  # a 16-bit PNM
        "bad-jpeg.jpg": b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0\xff\xd9",
    }
    for name in ("pixel.png",):
        path = os.path.join(ROOT, "samples", "invaders", name)
        v["good-invaders-" + name] = open(path, "rb").read()
    return v


def write(kind, files):
    folder = os.path.join(CORPUS, kind)
    os.makedirs(folder, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write("font", fonts())
    s = sounds()
    write("sound", s)
    write("music", {k: v for k, v in s.items() if k.endswith(".ogg") or k.startswith("good-")})
    write("image", images())
