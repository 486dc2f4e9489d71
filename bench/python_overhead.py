#!/usr/bin/env python3
"""What the Python binding adds to the CUDA engine: frames already on the GPU as torch tensors.

For VMAF v0.6.1 and the ssimulacra2 + float_ms_ssim + cambi trio, at 1080p (band1080) and 4K
(uhd4k), three figures per frame:
  scorer   vqx.Scorer fed torch tensors on the device (push every frame, then finish()), wall
  cli      the CLI on the same frames from a Y4M in memory (/dev/shm), --backend cuda, wall
  device   the engine's device time per frame: cuda_throughput_bench (the engine's schedule, one
           uploaded pair replayed), when its binary is found
and the binding's overhead = scorer / device - 1 (target: under 5% at 4K). The scorer and cli
figures are per-frame costs in steady state, (median t(N) - median t(S)) / (N - S) over runs of N
(--frames) and S (--short) frames, interleaved --reps times, so that set-up (CUDA context, the
metrics' tables), the pipeline's fill and the final flush cancel out. Without the fixtures
(VQX_FIXTURES), synthetic frames of the same sizes stand in.

    PYTHONPATH=build/python python bench/python_overhead.py --build build [--frames 96]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "tests"))
from conftest import read_y4m, synthetic_clip, write_y4m  # noqa: E402

SETS = {"vmaf_v0.6.1": (["version=vmaf_v0.6.1"], []),
        "trio": ([], ["ssimulacra2", "float_ms_ssim", "cambi"])}
# cuda_throughput_bench's benchmark names for each set (gbench regex).
THROUGHPUT_FILTER = {"vmaf_v0.6.1": "vmaf_features", "trio": "trio"}


def scorer_seconds(vqx, fmt, dev, models, features, frames):
    """Wall seconds of one Scorer run over `frames` frames, and the seconds spent inside push()."""
    start = time.perf_counter()
    s = vqx.Scorer(fmt["width"], fmt["height"], "420", 8, models=models, features=features, backend="cuda")
    push_s = 0.0
    for k in range(frames):
        t = time.perf_counter()
        s.push(dev[0][k % len(dev[0])], dev[1][k % len(dev[1])])
        push_s += time.perf_counter() - t
    result = s.finish()
    wall = time.perf_counter() - start
    assert s.stats()["host_frames_read"] == 0 and len(result) == frames
    return wall, push_s


def per_frame_ms(run, short, long, reps):
    """(median t(long) - median t(short)) / (long - short) in ms, for each figure `run` returns:
    set-up, the pipeline's fill and the flush cancel out, as in bench/thread_scaling.py."""
    runs = {short: [], long: []}
    for _ in range(reps):  # interleaved, so drift hits both lengths alike
        for n in (short, long):
            runs[n].append(run(n))
    medians = {n: [statistics.median(v) for v in zip(*r)] for n, r in runs.items()}
    return [1e3 * (b - a) / (long - short) for a, b in zip(medians[short], medians[long])]


def scorer_ms(torch, vqx, fmt, refs, diss, models, features, short, long, reps):
    dev = [[tuple(torch.from_numpy(np.ascontiguousarray(p)).cuda() for p in f) for f in c] for c in (refs, diss)]
    torch.cuda.synchronize()
    scorer_seconds(vqx, fmt, dev, models, features, short)  # CUDA's and the metrics' first set-up
    return per_frame_ms(lambda n: scorer_seconds(vqx, fmt, dev, models, features, n), short, long, reps)


def cli_ms(cli, ref, dis, models, features, short, long, reps):
    args = [cli, "-r", ref, "-d", dis, "--backend", "cuda", "-q", "-o", "/dev/null", "--json"]
    args += sum((["-m", m] for m in models), []) + sum((["--feature", f] for f in features), [])
    if not models:
        args.append("-n")

    def run(n):
        start = time.perf_counter()
        subprocess.run(args + ["--frame_cnt", str(n)], check=True)
        return (time.perf_counter() - start,)
    return per_frame_ms(run, short, long, reps)[0]


def device_ms(build, name, size):
    binary = pathlib.Path(build) / "bench" / "cuda_throughput_bench"
    if not binary.exists():
        return None
    out = subprocess.run([str(binary), f"--benchmark_filter=/{size}_{THROUGHPUT_FILTER[name]}_k",
                          "--benchmark_format=json"], capture_output=True, text=True)
    try:
        runs = json.loads(out.stdout)["benchmarks"]
    except (ValueError, KeyError):
        return None
    # Manual time per frame, in ms; the best of 1, 2 and 4 frames in flight (the engine's choice).
    values = [b["real_time"] for b in runs if b.get("time_unit") == "ms" and "real_time" in b]
    return min(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--fixtures", default=os.environ.get("VQX_FIXTURES", "/var/cache/vqx-fixtures"))
    parser.add_argument("--frames", type=int, default=96, help="frames of the long runs")
    parser.add_argument("--short", type=int, default=16, help="frames of the short runs")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    import torch
    import vqx
    cli = str(pathlib.Path(args.build) / "vqx")
    rows = []
    for clip, size in (("band1080", "1080p"), ("uhd4k", "4k")):
        with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
            folder = pathlib.Path(args.fixtures) / clip
            if (folder / "ref.y4m").exists():
                fmt, refs = read_y4m(folder / "ref.y4m", 8)
                _, diss = read_y4m(folder / "dis.y4m", 8)
            else:  # no fixtures on this machine: synthetic frames of the same size
                fmt, refs, diss = synthetic_clip(tmp, *((1920, 1080) if size == "1080p" else (3840, 2160)), frames=8)
            ref, dis = f"{tmp}/ref.y4m", f"{tmp}/dis.y4m"
            order = [k % len(refs) for k in range(args.frames)]
            write_y4m(ref, fmt, [refs[k] for k in order])
            write_y4m(dis, fmt, [diss[k] for k in order])
            for name, (models, features) in SETS.items():
                wall, push = scorer_ms(torch, vqx, fmt, refs, diss, models, features, args.short,
                                       args.frames, args.reps)
                line = {"clip": clip, "set": name, "scorer_ms": wall, "push_ms": push,
                        "cli_ms": cli_ms(cli, ref, dis, models, features, args.short, args.frames, args.reps),
                        "device_ms": device_ms(args.build, name, size)}
                base = line["device_ms"] or line["cli_ms"]
                line["overhead"] = wall / base - 1
                rows.append(line)
                print(json.dumps(line), flush=True)
    print("\n| clip | set | Scorer (torch) ms/frame | push() ms/frame | CLI (Y4M in RAM) ms/frame | "
          "engine device ms/frame | binding overhead |\n|---|---|---|---|---|---|---|")
    for r in rows:
        device = f"{r['device_ms']:.3f}" if r["device_ms"] else "n/a (vs CLI)"
        print(f"| {r['clip']} | {r['set']} | {r['scorer_ms']:.3f} | {r['push_ms']:.3f} | {r['cli_ms']:.3f} | "
              f"{device} | {100 * r['overhead']:+.1f}% |")


if __name__ == "__main__":
    main()
