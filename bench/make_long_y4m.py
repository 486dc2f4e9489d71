#!/usr/bin/env python3
"""Writes a long Y4M clip by repeating the frames of a short one (no ffmpeg needed).

usage: make_long_y4m.py IN.y4m OUT.y4m FRAMES
Frames are taken in order and the clip restarts at its first frame when it runs out, so content
(and therefore metric work) stays that of the fixture."""
import sys


def frame_bytes(header):
    tags = header.split()[1:]
    w = h = 0
    color = "420"
    for t in tags:
        if t[0] == "W":
            w = int(t[1:])
        elif t[0] == "H":
            h = int(t[1:])
        elif t[0] == "C":
            color = t[1:]
    bps = 2 if any(x in color for x in ("p9", "p1", "mono9", "mono1")) else 1
    if color.startswith("mono"):
        return w * h * bps
    cw = (w + 1) // 2 if color.startswith(("420", "422")) else w
    ch = (h + 1) // 2 if color.startswith("420") else h
    return (w * h + 2 * cw * ch) * bps


def main():
    src, dst, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(src, "rb") as f:
        header = f.readline()
        size = frame_bytes(header.decode())
        frames = []
        while True:
            line = f.readline()
            if not line:
                break
            data = f.read(size)
            if len(data) != size:
                sys.exit(f"{src}: truncated frame {len(frames)}")
            frames.append(data)
    if not frames:
        sys.exit(f"{src}: no frames")
    with open(dst, "wb") as out:
        out.write(header)
        for i in range(count):
            out.write(b"FRAME\n")
            out.write(frames[i % len(frames)])


if __name__ == "__main__":
    main()
