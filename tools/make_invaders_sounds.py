#!/usr/bin/env python3
"""Writes the invaders sample's sounds, synthesised from the descriptions below (square waves,
noise and envelopes, like the arcade's), so they can be regenerated and changed:

    tools/make_invaders_sounds.py [out-folder]     (default samples/invaders)

  laser.wav     the cannon's shot: a falling square-wave zap, 0.15 s
  kill.wav      an invader hit: a noise burst over a falling tone, 0.25 s
  boom.wav      the cannon hit: a long low noise explosion, 0.9 s
  march1..4.wav the formation's four-note march, one note per step, 0.09 s each
  music.ogg     a 16-second loop (bass and arpeggio) streamed as the music; needs `oggenc`
                (Debian's vorbis-tools) at generation time only

Mono, 16-bit, 44,100 Hz. The numbers are seeded: the files are the same on every run.
"""
import math, os, random, struct, subprocess, sys, tempfile, wave

RATE = 44100


def write_wav(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(b"".join(struct.pack("<h", max(-32767, min(32767, int(s * 32767))))
                               for s in samples))


def square(phase):
    return 1.0 if (phase % 1.0) < 0.5 else -1.0


def envelope(i, n, attack=0.005, release=0.05):
    t, total = i / RATE, n / RATE
    a = min(1.0, t / attack) if attack > 0 else 1.0
    r = min(1.0, (total - t) / release) if release > 0 else 1.0
    return max(0.0, min(a, r))


def laser():
    n = int(0.15 * RATE)
    out, phase = [], 0.0
    for i in range(n):
        f = 1800 * (1 - i / n) + 300
        phase += f / RATE
        out.append(0.35 * square(phase) * envelope(i, n))
    return out


def kill(rng):
    n = int(0.25 * RATE)
    out, phase = [], 0.0
    for i in range(n):
        f = 600 * (1 - i / n) + 80
        phase += f / RATE
        decay = (1 - i / n) ** 2
        out.append((0.25 * square(phase) + 0.35 * rng.uniform(-1, 1)) * decay)
    return out


def boom(rng):
    n = int(0.9 * RATE)
    out, low = [], 0.0
    for i in range(n):
        low += (rng.uniform(-1, 1) - low) * 0.08  # low-passed noise: a rumble
        out.append(2.2 * low * (1 - i / n) ** 1.5)
    return out


def note(freq, seconds, volume=0.4):
    n = int(seconds * RATE)
    phase, out = 0.0, []
    for i in range(n):
        phase += freq / RATE
        out.append(volume * square(phase) * envelope(i, n, 0.002, 0.02))
    return out


def music():
    # A minor groove: 120 bpm, 8 bars of 4 beats = 16 s; bass on the beats, arpeggio in 16ths.
    beat = 0.5
    bars = [(110.0, (0, 3, 7)), (87.31, (0, 4, 7)), (98.0, (0, 4, 7)), (82.41, (0, 4, 7))] * 2
    n = int(len(bars) * 4 * beat * RATE)
    out = [0.0] * n
    for b, (root, chord) in enumerate(bars):
        for k in range(4):
            start = int((b * 4 + k) * beat * RATE)
            for i, s in enumerate(note(root, beat * 0.9, 0.22)):
                out[start + i] += s
            for j in range(4):
                semis = chord[(k * 4 + j) % 3] + 12 * (1 + (j % 2))
                f = root * 2 ** (semis / 12)
                s16 = int((b * 4 + k) * beat * RATE + j * beat / 4 * RATE)
                for i, s in enumerate(note(f, beat / 4 * 0.8, 0.08)):
                    if s16 + i < n:
                        out[s16 + i] += s
    return out


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/invaders"
    rng = random.Random(1978)
    write_wav(os.path.join(out, "laser.wav"), laser())
    write_wav(os.path.join(out, "kill.wav"), kill(rng))
    write_wav(os.path.join(out, "boom.wav"), boom(rng))
    for i, f in enumerate((110.0, 98.0, 87.31, 82.41)):
        write_wav(os.path.join(out, "march%d.wav" % (i + 1)), note(f, 0.09, 0.5))
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, "music.wav")
        write_wav(wav, music())
        subprocess.run(["oggenc", "-Q", "-q", "1", "-o", os.path.join(out, "music.ogg"), wav],
                       check=True)
