#!/usr/bin/env python3
"""Writes the invaders sample's textures from the ASCII art below: white pixels ('#') on
transparent ('.'); the game tints them. Each sheet is a row-major grid of equal cells, written
here with the cells of a row side by side, separated by spaces. Kept as the source of the assets
so they can be regenerated and changed:

    tools/make_invaders_png.py [out-folder]     (default samples/invaders)

  invaders.png  16x8 cells, 2 columns (animation frames) x 4 rows: squid, crab, octopus, and the
                explosion of a hit invader (first column only). Each figure is centred on x = 8.
  cannon.png    16x8 cells: the player's cannon (centred on x = 7.5), two explosion frames
  shots.png     8x8 cells: the laser, the zigzag bomb (2 frames), the cross bomb (2 frames), all
                centred on x = 3.5 from the top row down; then a splat centred on (4, 4)
  pixel.png     one white pixel (shields, the ground line, the playfield's backdrop)

The game's sprite rects and hit boxes (config.lua) follow these layouts.
"""
import os, struct, sys, zlib

INVADERS = """
.......##....... .......##.......
......####...... ......####......
.....######..... .....######.....
....##.##.##.... ....##.##.##....
....########.... ....########....
......#..#...... .....#.##.#.....
.....#.##.#..... ....#......#....
....#.#..#.#.... .....#....#.....

.....#.....#.... .....#.....#....
......#...#..... ...#..#...#..#..
.....#######.... ...#.#######.#..
....##.###.##... ...###.###.###..
...###########.. ...###########..
...#.#######.#.. ....#########...
...#.#.....#.#.. .....#.....#....
......##.##..... ....#.......#...

......####...... ......####......
...##########... ...##########...
..############.. ..############..
..###..##..###.. ..###..##..###..
..############.. ..############..
.....##..##..... ....###..###....
....##.##.##.... ...##..##..##...
..##........##.. ....##....##....

......#...#..... ................
...#...#.#...#.. ................
....#.......#... ................
.....#.....#.... ................
..##.........##. ................
.....#.....#.... ................
....#..#.#..#... ................
...#..#...#..#.. ................
"""

CANNON = """
.......#........ .......#........ ..#.....#....#..
......###....... ....#.....#..... .....#..........
......###....... ........#...#... #...#..#..#...#.
..###########... ..#...#......... ......##........
.#############.. .....#..#.##.... ..#.######.#....
.#############.. .#.#########.#.. ...##########.#.
.#############.. ..###########... #.############..
.#############.. .#############.. .##############.
"""

SHOTS = """
...#.... ..#..... ....#... ...#.... ...#.... #..#..#.
...#.... ...#.... ...#.... ..###... ...#.... .#...#..
...#.... ....#... ..#..... ...#.... ...#.... ..####.#
...#.... ...#.... ...#.... ...#.... ...#.... .######.
........ ..#..... ....#... ...#.... ..###... #######.
........ ...#.... ...#.... ...#.... ...#.... .#####.#
........ ....#... ..#..... ...#.... ...#.... ..#..#..
........ ........ ........ ........ ........ .#..#..#
"""


def png(width, height, rows):
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def sheet(art, width, height):
    rows = [line.replace(" ", "") for line in art.strip("\n").split("\n") if line.strip()]
    assert len(rows) == height and all(len(r) == width for r in rows), (len(rows), height)
    assert all(set(r) <= {".", "#"} for r in rows)
    on, off = (255, 255, 255, 255), (0, 0, 0, 0)
    return png(width, height, [[on if c == "#" else off for c in r] for r in rows])


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/invaders"
    files = {
        "invaders.png": sheet(INVADERS, 32, 32),
        "cannon.png": sheet(CANNON, 48, 8),
        "shots.png": sheet(SHOTS, 48, 8),
        "pixel.png": png(1, 1, [[(255, 255, 255, 255)]]),
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
