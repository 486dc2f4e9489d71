"""Shared helpers of the vqx package's tests: the fixtures, the CLI, Y4M frames as numpy arrays."""
import json
import math
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def fixtures_dir():
    path = pathlib.Path(os.environ.get("VQX_FIXTURES", "/var/cache/vqx-fixtures"))
    return path if (path / "n576" / "ref.y4m").exists() else None


def cli_path():
    """The vqx CLI the package is compared with: $VQX_CLI, else the repository's build/vqx."""
    path = os.environ.get("VQX_CLI") or str(REPO / "build" / "vqx")
    return path if os.access(path, os.X_OK) else None


@pytest.fixture
def fixtures():
    path = fixtures_dir()
    if path is None:
        pytest.skip("no fixtures (VQX_FIXTURES, made by scripts/test.sh)")
    return path


@pytest.fixture
def cli():
    path = cli_path()
    if path is None:
        pytest.skip("no vqx CLI (VQX_CLI or build/vqx)")
    return path


def run_cli(cli, args):
    """The CLI's JSON with --precision max, parsed: frames, pooled and aggregate metrics."""
    out = subprocess.run([cli, *args, "--json", "--precision", "max", "-q", "-o", "-"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def assert_same_as_cli(result, cli_json):
    """Every value the CLI writes equals the package's, bit for bit (NaN for the CLI's null)."""
    frames = cli_json["frames"]
    assert result.frames.tolist() == [f["frameNum"] for f in frames]
    names = list(frames[0]["metrics"].keys())
    assert list(result.metrics.keys()) == names  # the CLI's column order
    for k, frame in enumerate(frames):
        for name, value in frame["metrics"].items():
            got = float(result.metrics[name][k])
            if value is None:
                assert math.isnan(got) or math.isinf(got), (name, k, got)
            else:
                assert got == value, (name, frame["frameNum"], got, value)
    for name, pooled in cli_json["pooled_metrics"].items():
        assert result.pooled[name] == pooled, name
    assert result.aggregates == cli_json["aggregate_metrics"]


def read_y4m(path, frames=None):
    """(format, [frame planes (Y, Cb, Cr)]) of a Y4M file, as numpy arrays."""
    data = pathlib.Path(path).read_bytes()
    header_end = data.index(b"\n")
    fields = data[:header_end].split()
    width = int(next(f for f in fields if f.startswith(b"W"))[1:])
    height = int(next(f for f in fields if f.startswith(b"H"))[1:])
    colorspace = next((f[1:].decode() for f in fields if f.startswith(b"C")), "420")
    layout = colorspace[:3] if colorspace[:3] in ("420", "422", "444") else "420"
    match = re.fullmatch(r"\d{3}p(\d+)", colorspace)
    depth = int(match.group(1)) if match else 8
    dtype = np.uint16 if depth > 8 else np.uint8
    sx, sy = {"420": (1, 1), "422": (1, 0), "444": (0, 0)}[layout]
    shapes = [(height, width), ((height + sy) >> sy, (width + sx) >> sx)]
    shapes.append(shapes[1])
    frame_samples = sum(h * w for h, w in shapes)
    out, pos = [], header_end + 1
    while pos < len(data) and (frames is None or len(out) < frames):
        pos = data.index(b"\n", pos) + 1  # FRAME line
        flat = np.frombuffer(data, dtype=dtype, count=frame_samples, offset=pos)
        planes, start = [], 0
        for h, w in shapes:
            planes.append(flat[start:start + h * w].reshape(h, w))
            start += h * w
        out.append(tuple(planes))
        pos += frame_samples * np.dtype(dtype).itemsize
    return {"width": width, "height": height, "pixel_format": layout, "bit_depth": depth}, out


def write_y4m(path, fmt, frames):
    """Writes frames (tuples of planes) as a Y4M file of format `fmt` (read_y4m's dict)."""
    tag = {"420": "420jpeg", "422": "422", "444": "444"}[fmt["pixel_format"]]
    if fmt["bit_depth"] > 8:
        tag = f"{fmt['pixel_format']}p{fmt['bit_depth']}"
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{fmt['width']} H{fmt['height']} F25:1 Ip A1:1 C{tag}\n".encode())
        for planes in frames:
            f.write(b"FRAME\n")
            for p in planes:
                f.write(np.ascontiguousarray(p).tobytes())


def synthetic_clip(folder, width, height, pixel_format="420", bit_depth=8, frames=8, seed=1):
    """A moving gradient with texture, and a noisier, shifted copy: (fmt, refs, diss), also
    written to folder/ref.y4m and folder/dis.y4m."""
    rng = np.random.default_rng(seed)
    fmt = {"width": width, "height": height, "pixel_format": pixel_format, "bit_depth": bit_depth}
    sx, sy = {"420": (1, 1), "422": (1, 0), "444": (0, 0)}[pixel_format]
    shapes = [(height, width), ((height + sy) >> sy, (width + sx) >> sx)]
    shapes.append(shapes[1])
    peak = (1 << bit_depth) - 1
    dtype = np.uint16 if bit_depth > 8 else np.uint8
    texture = [rng.normal(0, 0.08, size=(h, w)) for h, w in shapes]
    refs, diss = [], []
    for k in range(frames):
        ref, dis = [], []
        for (h, w), t in zip(shapes, texture):
            y, x = np.mgrid[0:h, 0:w]
            base = 0.5 + 0.3 * np.sin((x + 3 * k) / (w / 5)) * np.cos(y / (h / 3)) + np.roll(t, k, axis=1)
            noisy = base + rng.normal(0, 0.03, size=(h, w))
            ref.append(np.clip(base * peak, 0, peak).astype(dtype))
            dis.append(np.clip(noisy * peak, 0, peak).astype(dtype))
        refs.append(tuple(ref))
        diss.append(tuple(dis))
    folder = pathlib.Path(folder)
    write_y4m(folder / "ref.y4m", fmt, refs)
    write_y4m(folder / "dis.y4m", fmt, diss)
    return fmt, refs, diss
