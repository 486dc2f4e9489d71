#!/usr/bin/env python3
"""libvmaf's CTC presets end to end from Y4M: vqx on CUDA (every metric of the preset on the device,
one pass), vqx on the CPU and libvmaf 3.2.0 on the CPU (its CUDA path cannot run a preset's other
features), on the same clips, interleaved.

usage: bench/ctc_presets.py --vqx BUILD/vqx [--libvmaf PATH] --fixtures DIR [--threads T]
                            [--reps R] [--presets aom_ctc=v6.0,nflx_ctc=v1.0]
                            [--clips band1080,uhd4k] [--out FILE]

Clips repeat a fixture's frames on tmpfs (band1080: 1080p, uhd4k: 4K). Per tool and clip the cost
per frame is (t(N) - t(M)) / (N - M) from the medians over R repetitions of whole-process wall
times, M = 2T and N = 4T frames (8T for vqx on CUDA, whose frames cost too little for 2T of them
to stand out of the start-up's noise): start-up (CUDA context, model loading, opening inputs)
cancels, and both runs keep every thread of a frame-parallel tool busy. Peak RSS is wait4's ru_maxrss.
A difference that the start-up's noise swallows (vqx on CUDA at about 1 ms per frame or less) is
written "below noise"; bench/run.py's cli section times such runs on longer clips. Writes a
Markdown table to --out or stdout.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import long_clip  # noqa: E402
from thread_scaling import timed_run  # noqa: E402

CLIPS = {"band1080": "1080p", "uhd4k": "4K"}


def command(tool, path, clip, preset, version, threads, frames):
    args = [path, "-r", f"{clip}/ref_{frames}.y4m", "-d", f"{clip}/dis_{frames}.y4m", "-q",
            "--threads", str(threads), f"--{preset}", version, "-o", "/dev/null"]
    if tool == "libvmaf":
        return args + ["--gpumask", "4294967295"]
    return args + ["--backend", "cuda" if tool == "vqx cuda" else "cpu"]


def measure(tools, clip, preset, version, threads, reps, m, n_of):
    times = {t: {"m": [], "n": [], "rss": 0.0} for t, _ in tools}
    for _ in range(reps):
        for tool, path in tools:
            for key, frames in (("m", m), ("n", n_of(tool))):
                seconds, rss = timed_run(command(tool, path, clip, preset, version, threads, frames))
                times[tool][key].append(seconds)
                times[tool]["rss"] = max(times[tool]["rss"], rss)
    return {tool: ((statistics.median(t["n"]) - statistics.median(t["m"])) * 1e3 / (n_of(tool) - m),
                   t["rss"])
            for tool, t in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vqx", required=True)
    ap.add_argument("--libvmaf")
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--presets", default="aom_ctc=v6.0")
    ap.add_argument("--clips", default=",".join(CLIPS))
    ap.add_argument("--no-cuda", action="store_true", help="leave out vqx on CUDA")
    ap.add_argument("--out")
    a = ap.parse_args()
    tools = ([] if a.no_cuda else [("vqx cuda", a.vqx)]) + [("vqx cpu", a.vqx)]
    if a.libvmaf:
        tools.append(("libvmaf", a.libvmaf))
    presets = [p.split("=", 1) for p in a.presets.split(",")]
    work = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    rows = []
    m, n, n_cuda = 2 * a.threads, 4 * a.threads, 8 * a.threads
    n_of = lambda tool: n_cuda if tool == "vqx cuda" else n  # noqa: E731
    try:
        for pair in a.clips.split(","):
            label = CLIPS[pair]
            clip = os.path.join(work, pair)
            os.makedirs(clip)
            for frames in sorted({m, n} | ({n_cuda} if not a.no_cuda else set())):
                for side in ("ref", "dis"):
                    long_clip(f"{a.fixtures}/{pair}/{side}.y4m", f"{clip}/{side}_{frames}.y4m", frames)
            for preset, version in presets:
                result = measure(tools, clip, preset, version, a.threads, a.reps, m, n_of)
                row = [f"--{preset} {version}", label]
                for tool, _ in tools:
                    ms, rss = result[tool]
                    row += [f"{ms:.1f}" if ms > 0 else "below noise", f"{rss:.0f}"]
                if "libvmaf" in result:
                    base = result["libvmaf"][0]
                    row += [f"{base / result[t][0]:.2f}x" if result[t][0] > 0 else "n/a"
                            for t, _ in tools if t != "libvmaf"]
                rows.append(row)
                print(" | ".join(row), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = ["preset", "clip"]
    for tool, _ in tools:
        header += [f"{tool} ms/frame", f"{tool} peak RSS MiB"]
    if a.libvmaf:
        header += [f"{t} speed-up over libvmaf" for t, _ in tools if t != "libvmaf"]
    text = (f"`--threads {a.threads}` for every tool; (t(N) - t(M)) / (N - M) with M = {m}, N = {n} "
            f"({n_cuda} for vqx on CUDA) frames; median of {a.reps} interleaved repetition{'s' if a.reps != 1 else ''}.\n\n"
            + "| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n"
            + "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n")
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
