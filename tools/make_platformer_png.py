#!/usr/bin/env python3
"""Writes the platformer sample's textures from the palette art below. Each character is one
pixel of the palette's colour ('.' is transparent); a sheet is a row of equal cells written side
by side, separated by spaces. Kept as the source of the assets so they can be regenerated:

    tools/make_platformer_png.py [out-folder]     (default samples/platformer)

  tiles.png   16x16 cells, 4 columns x 2 rows: tile ids 1..8 in reading order
              1 grass top, 2 earth, 3 brick, 4 stone block, 5 bridge plank, 6 bush (decoration,
              not solid), 7 flag pole, 8 flag top. 0 is an empty tile.
  hero.png    16x16 cells, 8 frames: idle (1-2), run (3-6), jump (7), fall (8)
  coin.png    8x8 cells, 4 frames of a spinning coin
  spark.png   8x8: a soft white dot for particles (additive blending makes it glow)
  sky.png     1x64: the backdrop's vertical gradient, stretched over the screen

The sample's tile ids and animation frames (level.lua, player.lua, coins.lua) follow these
layouts.
"""
import os, struct, sys, zlib

PALETTE = {
    ".": (0, 0, 0, 0),
    "g": (88, 196, 72, 255),   # grass
    "G": (52, 140, 52, 255),   # dark grass
    "e": (150, 98, 58, 255),   # earth
    "E": (112, 70, 40, 255),   # dark earth
    "b": (186, 80, 56, 255),   # brick
    "B": (120, 48, 36, 255),   # mortar
    "s": (150, 150, 164, 255), # stone
    "S": (96, 96, 110, 255),   # dark stone
    "w": (176, 128, 72, 255),  # wood
    "W": (120, 84, 44, 255),   # dark wood
    "k": (20, 20, 28, 255),    # outline
    "y": (250, 214, 64, 255),  # gold
    "Y": (196, 150, 30, 255),  # dark gold
    "r": (220, 60, 60, 255),   # red
    "R": (150, 30, 40, 255),   # dark red
    "p": (255, 208, 170, 255), # skin
    "u": (60, 90, 200, 255),   # blue
    "U": (36, 54, 130, 255),   # dark blue
    "#": (255, 255, 255, 255),
}

TILES = """
gggggggggggggggg eeeeeeeeeeeeeeee bbbbbbbBbbbbbbbB ssssssssssssssSk
gGggggGgggGgggGg eeeEeeeeeeeEeeee bbbbbbbBbbbbbbbB sssssssssssssSSk
GeGGgGeGGGeGGgGe eeeeeeeEeeeeeeee BBBBBBBBBBBBBBBB ssSSSSSSSSSSSSSk
eeeeGeeeeeeeGeee eEeeeeeeeeeeeeEe bbbBbbbbbbbBbbbb ssSssssssssssSSk
eeeeeeeEeeeeeeee eeeeeeeeeEeeeeee bbbBbbbbbbbBbbbb ssSssssssssssSSk
eEeeeeeeeeeeeEee eeeeEeeeeeeeeeee BBBBBBBBBBBBBBBB ssSssssssssssSSk
eeeeeeeeeEeeeeee eeeeeeeeeeeeEeee bbbbbbbBbbbbbbbB ssSssssssssssSSk
eeeeEeeeeeeeeeee eeEeeeeeeEeeeeee bbbbbbbBbbbbbbbB ssSssssssssssSSk
eeeeeeeeeeeeEeee eeeeeeeeeeeeeeee BBBBBBBBBBBBBBBB ssSssssssssssSSk
eeEeeeeeeEeeeeee eeeeeeEeeeeeeeEe bbbBbbbbbbbBbbbb ssSssssssssssSSk
eeeeeeeeeeeeeeee eEeeeeeeeeeeeeee bbbBbbbbbbbBbbbb ssSssssssssssSSk
eeeeeeEeeeeeeeEe eeeeeeeeeEeeeeee BBBBBBBBBBBBBBBB ssSssssssssssSSk
eeeeeeeeeeeeeeee eeeeEeeeeeeeeeee bbbbbbbBbbbbbbbB ssSsssssssssSSSk
eEeeeeeeeeEeeeee eeeeeeeeeeeeEeee bbbbbbbBbbbbbbbB sSSSSSSSSSSSSSSk
eeeeeeeeeeeeeeee eeEeeeeeeEeeeeee BBBBBBBBBBBBBBBB sSSSSSSSSSSSSSSk
eeeeEeeeeeeeeeee eeeeeeeeeeeeeeee bbbBbbbbbbbBbbbb kkkkkkkkkkkkkkkk

wwwwwwwwwwwwwwww ................ .......kk....... .......kk.......
WwwwwwwWwwwwwwwW ................ .......kk....... .......kkrrrrrr.
wwwwwwwwwwwwwwww ................ .......kk....... .......kkrrrrrrr
kWkkkkkkkkkkkWkk ................ .......kk....... .......kkrrrrrR.
.W...........W.. ................ .......kk....... .......kkrrrrR..
.W...........W.. ................ .......kk....... .......kkrrrR...
..W.........W... ................ .......kk....... .......kkrR.....
..W.........W... ................ .......kk....... .......kk.......
...W.......W.... .....GG..GG..... .......kk....... .......kk.......
...W.......W.... ...GGggGGggGG... .......kk....... .......kk.......
....W.....W..... ..GggggggggggG.. .......kk....... .......kk.......
....W.....W..... .GgggGgggggGggG. .......kk....... .......kk.......
.....W...W...... .GgggggggGgggggG .......kk....... .......kk.......
.....W...W...... GggGggggggggggGG .......kk....... .......kk.......
......W.W....... GgggggGgggggggGG .......kk....... .......kk.......
.......W........ GGGGGGGGGGGGGGGG .......kk....... .......kk.......
"""

HERO = """
.....kkkkk...... ................ .....kkkkk...... ................ .....kkkkk...... ................ .....kkkkk...... .....kkkkk......
....krrrrrk..... .....kkkkk...... ....krrrrrk..... .....kkkkk...... ....krrrrrk..... .....kkkkk...... ....krrrrrk..... ....krrrrrk.....
...krrrrrrrk.... ....krrrrrk..... ...krrrrrrrk.... ....krrrrrk..... ...krrrrrrrk.... ....krrrrrk..... ...krrrrrrrk.... ...krrrrrrrk....
...kkkppkpk..... ...krrrrrrrk.... ...kkkppkpk..... ...krrrrrrrk.... ...kkkppkpk..... ...krrrrrrrk.... ...kkkppkpk..... ...kkkppkpk.....
...kpppppppk.... ...kkkppkpk..... ...kpppppppk.... ...kkkppkpk..... ...kpppppppk.... ...kkkppkpk..... ...kpppppppk.... ...kpppppppk....
....kpppppk..... ...kpppppppk.... ....kpppppk..... ...kpppppppk.... ....kpppppk..... ...kpppppppk.... .k..kpppppk..k.. ....kpppppk.....
...kkuuuuukk.... ....kpppppk..... ...kkuuuuukk.... ....kpppppk..... ...kkuuuuukk.... ....kpppppk..... kpkkuuuuuukkpk.. ..kkuuuuuukk....
..kpkuuuuukpk... ...kkuuuuukk.... ..kpkuuuuuk.kk.. ...kkuuuuukkk... ..kpkuuuuuk.kk.. ...kkuuuuukkk... .kkkuuuuuuukk... .kpkuuuuuuukpk..
..kpkuuuuukpk... ..kpkuuuuukpk... ..kkuuuuuukpk... ..kpkuuuuukpk... ..kkuuuuuukpk... ..kpkuuuuukpk... ...kuuuuuuuk.... .kpkuuuuuuukpk..
..kkuuyuyuukk... ..kpkuuuuukpk... ...kuuyuyuukk... ...kuuyuyuuk.... ...kuuyuyuukk... ...kuuyuyuuk.... ...kuuyuyuuk.... ..kkuuyuyuukk...
...kUUUUUUUk.... ..kkuuyuyuukk... ...kUUUUUUUk.... ...kUUUUUUUk.... ...kUUUUUUUk.... ...kUUUUUUUk.... ...kUUUUUUUk.... ...kUUUUUUUk....
...kUUUkUUUk.... ...kUUUUUUUk.... ..kUUUkkUUUk.... ...kUUkUUUk..... ..kUUUkkUUUk.... ...kUUkUUUk..... ..kUUUk.kUUUk... ...kUUUkUUUk....
...kUUk.kUUk.... ...kUUUkUUUk.... .kUUUk..kUUk.... ....kUUkUUk..... .kUUk...kUUUk... ....kUUkUUk..... .kUUUk...kUUUk.. ...kUUk.kUUk....
...kWWk.kWWk.... ...kUUk.kUUk.... .kWWk....kWWk... ....kWWkWWk..... kWWk.....kWWk... ....kWWkWWk..... .kWWk.....kWWk.. ..kWWk...kWWk...
..kWWWk.kWWWk... ..kWWWk.kWWWk... kWWWk.....kWWWk. ...kWWWkWWWk.... kWWWk....kWWWk.. ...kWWWkWWWk.... kWWWk.....kWWWk. .kWWWk...kWWWk..
..kkkkk.kkkkk... ..kkkkk.kkkkk... kkkkk.....kkkkk. ...kkkkkkkkk.... kkkkk....kkkkk.. ...kkkkkkkkk.... kkkkk.....kkkkk. .kkkkk...kkkkk..
"""

COIN = """
..kkkk.. ...kk... ...kk... ...kk...
.kyyyyk. ..kyyk.. ...kk... ..kyyk..
kyyYYyyk ..kyYk.. ...kk... ..kYyk..
kyYyyyYk ..kyYk.. ...kk... ..kYyk..
kyYyyyYk ..kyYk.. ...kk... ..kYyk..
kyyYYyyk ..kyYk.. ...kk... ..kYyk..
.kyyyyk. ..kyyk.. ...kk... ..kyyk..
..kkkk.. ...kk... ...kk... ...kk...
"""


def png(width, height, rows):
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def sheet(art, width, height):
    """art is a block of text rows of cells separated by blank lines (rows of cells)."""
    rows = []
    for line in art.strip("\n").split("\n"):
        if line.strip():
            rows.append(line.replace(" ", ""))
    assert len(rows) == height and all(len(r) == width for r in rows), (len(rows), height,
                                                                           set(map(len, rows)))
    return png(width, height, [[PALETTE[c] for c in r] for r in rows])


def spark():
    rows = []
    for y in range(8):
        row = []
        for x in range(8):
            d = ((x - 3.5) ** 2 + (y - 3.5) ** 2) ** 0.5 / 4.0
            a = max(0.0, 1.0 - d)
            row.append((255, 255, 255, int(255 * a * a + 0.5)))
        rows.append(row)
    return png(8, 8, rows)


def sky():
    top, bottom = (56, 92, 180), (170, 210, 240)
    rows = []
    for y in range(64):
        t = y / 63.0
        rows.append([tuple(int(a + (b - a) * t + 0.5) for a, b in zip(top, bottom)) + (255,)])
    return png(1, 64, rows)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/platformer"
    files = {
        "tiles.png": sheet(TILES, 64, 32),
        "hero.png": sheet(HERO, 128, 16),
        "coin.png": sheet(COIN, 32, 8),
        "spark.png": spark(),
        "sky.png": sky(),
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
