#!/usr/bin/env python3
"""CPU thread scaling of vqx against the reference tools, end to end from Y4M, per metric and clip size.

usage: bench/thread_scaling.py --vqx BUILD/vqx [--libvmaf PATH] [--fork PATH] --clips DIR [--threads 1,2,4,8,16]
                               [--metrics vmaf,v1,cambi,float_ms_ssim,ssimulacra2,psnr]
                               [--sizes 1080p,4k] [--reps 3] [--target-seconds 1.0] [--out FILE]
                               [--make-clips FIXTURES] [--clip-frames 1080p=128,4k=64]

Method. Each point is a CLI wall time per frame, (median t(N) - median t(M)) / (N - M), where
t(K) is the wall time of one run scoring the first K frames (--frame_cnt K) of the same clip, so
process start, model loading and the pipeline's fill and drain cancel out. M = 2 x threads frames
(enough to fill every thread), N - M is chosen from a first run so that the difference takes about
--target-seconds. vqx and the reference run interleaved (vqx M, vqx N, reference M, reference N, then again)
--reps times; medians are taken per tool. Peak resident memory is the largest of the N runs
(wait4's ru_maxrss). vqx runs --backend cpu; libvmaf runs --gpumask 4294967295 (its CPU path).

References: libvmaf 3.2.0 (--libvmaf) for every metric it has; for ssimulacra2, which libvmaf lacks,
the lusoris/vmaf fork's CLI (--fork, a CPU-only release build of the commit its goldens come from,
run with --backend cpu).

Clips: DIR/<size>/{ref,dis}.y4m, made by --make-clips FIXTURES from the vqx fixtures (the 4K
pair repeated to 64 frames; its top-left 1920x1080 quarter, natural content, repeated to 128;
--clip-frames sets other lengths, which also bound N).
Writes a Markdown table (ms/frame per tool, vqx speed-up over the reference, peak RSS) to --out or
standard output.
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

METRICS = {
    # name: (arguments for both tools, the reference tool that runs it)
    "vmaf": (["-m", "version=vmaf_v0.6.1"], "libvmaf"),
    "v1": (["-m", "version=vmaf_v1.0.16_3d0h"], "libvmaf"),
    "cambi": (["-n", "--feature", "cambi"], "libvmaf"),
    "float_ms_ssim": (["-n", "--feature", "float_ms_ssim"], "libvmaf"),
    "ssimulacra2": (["-n", "--feature", "ssimulacra2"], "fork"),
    "psnr": (["-n", "--feature", "psnr"], "libvmaf"),
}
# VMAF v0.6.1's three features alone, to see which one a VMAF ratio comes from (--metrics vif,...).
FEATURES = {f: (["-n", "--feature", f], "libvmaf") for f in ("vif", "adm", "motion")}
DEFAULT_METRICS = ",".join(METRICS)
METRICS.update(FEATURES)
CLIP_FRAMES = {"1080p": 128, "4k": 64}
REFERENCE_NAMES = {"libvmaf": "libvmaf 3.2.0", "fork": "lusoris/vmaf c2a3c7e"}


def y4m_frames(path):
    """Header line and the list of frames (each b'FRAME...\\n' + samples) of a Y4M file."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"\n") + 1
    header = data[:end].decode()
    tags = {t[0]: t[1:] for t in header.split()[1:]}
    w, h, c = int(tags["W"]), int(tags["H"]), tags.get("C", "420")
    bps = 2 if any(x in c for x in ("p9", "p1")) else 1
    cw, ch = ((w + 1) // 2, (h + 1) // 2) if c.startswith("420") else (w, h)
    size = (w * h + 2 * cw * ch) * bps
    frames, pos = [], end
    while pos < len(data):
        line_end = data.index(b"\n", pos) + 1
        frames.append(data[line_end:line_end + size])
        pos = line_end + size
    return header, (w, h, cw, ch, bps), frames


def crop_420(frame, geometry, out_w, out_h):
    w, h, cw, ch, bps = geometry
    planes, offset = [], 0
    for pw, ph, ow, oh in ((w, h, out_w, out_h), (cw, ch, out_w // 2, out_h // 2), (cw, ch, out_w // 2, out_h // 2)):
        rows = [frame[offset + y * pw * bps: offset + y * pw * bps + ow * bps] for y in range(oh)]
        planes.append(b"".join(rows))
        offset += pw * ph * bps
    return b"".join(planes)


def parse_clip_frames(spec):
    frames = dict(CLIP_FRAMES)
    for item in filter(None, spec.split(",")):
        size, count = item.split("=")
        frames[size] = int(count)
    return frames


def make_clips(fixtures, clips, clip_frames):
    for side in ("ref", "dis"):
        header, geometry, frames = y4m_frames(os.path.join(fixtures, "uhd4k", f"{side}.y4m"))
        for size, count in clip_frames.items():
            os.makedirs(os.path.join(clips, size), exist_ok=True)
            out = os.path.join(clips, size, f"{side}.y4m")
            if size == "4k":
                head, body = header, frames
            else:
                head = header.replace(f"W{geometry[0]}", "W1920").replace(f"H{geometry[1]}", "H1080")
                body = [crop_420(f, geometry, 1920, 1080) for f in frames]
            with open(out, "wb") as f:
                f.write(head.encode())
                for i in range(count):
                    f.write(b"FRAME\n")
                    f.write(body[i % len(body)])


def timed_run(command):
    """Wall seconds and peak RSS (MiB) of one run; raises on a non-zero exit."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(command)} exited {code}: {err.strip()[-300:]}")
    return seconds, usage.ru_maxrss / 1024.0


def tool_command(tool, path, clip, metric, threads, frames):
    args = [path, "-r", os.path.join(clip, "ref.y4m"), "-d", os.path.join(clip, "dis.y4m"), "-q",
            "--threads", str(threads), "--frame_cnt", str(frames)] + METRICS[metric][0]
    args += ["--gpumask", "4294967295"] if tool == "libvmaf" else ["--backend", "cpu"]
    return args


def measure(tools, clip, metric, threads, reps, target_seconds, max_frames):
    m = 2 * threads
    # A first run of M frames bounds the per-frame cost (it includes start-up), sizing N - M.
    probe = max(timed_run(tool_command(t, p, clip, metric, threads, m))[0] / m for t, p in tools)
    extra = int(max(threads, min(max_frames - m, round(target_seconds / max(probe, 1e-4)))))
    n = min(max_frames, m + extra)
    times = {t: {"m": [], "n": [], "rss": 0.0} for t, _ in tools}
    for _ in range(reps):
        for tool, path in tools:
            times[tool]["m"].append(timed_run(tool_command(tool, path, clip, metric, threads, m))[0])
            seconds, rss = timed_run(tool_command(tool, path, clip, metric, threads, n))
            times[tool]["n"].append(seconds)
            times[tool]["rss"] = max(times[tool]["rss"], rss)
    result = {}
    for tool, t in times.items():
        ms = (statistics.median(t["n"]) - statistics.median(t["m"])) * 1000.0 / (n - m)
        result[tool] = (ms, t["rss"])
    return result, m, n


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--only-make-clips":
        spec = sys.argv[4] if len(sys.argv) == 5 else ""
        make_clips(sys.argv[2], sys.argv[3], parse_clip_frames(spec))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vqx", required=True)
    ap.add_argument("--libvmaf")
    ap.add_argument("--fork", help="the lusoris/vmaf CLI, the reference for ssimulacra2")
    ap.add_argument("--clips", required=True)
    ap.add_argument("--make-clips", metavar="FIXTURES")
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--metrics", default=DEFAULT_METRICS)
    ap.add_argument("--sizes", default="1080p,4k")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--target-seconds", type=float, default=1.0)
    ap.add_argument("--out")
    ap.add_argument("--clip-frames", default="", help="frames per clip size, e.g. 4k=160")
    a = ap.parse_args()
    clip_frames = parse_clip_frames(a.clip_frames)
    if a.make_clips:
        # In a child process: a forked child's peak RSS starts from its parent's, so this process
        # stays small for the measured runs.
        subprocess.run([sys.executable, __file__, "--only-make-clips", a.make_clips, a.clips,
                        a.clip_frames], check=True)
    thread_counts = [int(t) for t in a.threads.split(",")]
    rows = []
    for size in a.sizes.split(","):
        clip = os.path.join(a.clips, size)
        for metric in a.metrics.split(","):
            reference = METRICS[metric][1]
            tools = [("vqx", a.vqx)]
            if getattr(a, reference):
                tools.append((reference, getattr(a, reference)))
            for threads in thread_counts:
                result, m, n = measure(tools, clip, metric, threads, a.reps, a.target_seconds,
                                         clip_frames[size])
                vqx_ms, vqx_rss = result["vqx"]
                ref = result.get(reference)
                # t(N) <= t(M): the difference is below the runs' noise, and so is any ratio.
                ms = lambda v: f"{v:.2f}" if v > 0 else "below noise"
                row = f"| {metric} | {size} | {threads} | {m}/{n} | {ms(vqx_ms)} | {vqx_rss:.0f} |"
                if ref:
                    ratio = f"**{ref[0] / vqx_ms:.2f}x**" if ref[0] > 0 and vqx_ms > 0 else "n/a"
                    row += f" {REFERENCE_NAMES[reference]} | {ms(ref[0])} | {ref[1]:.0f} | {ratio} |"
                else:
                    row += " - | - | - | - |"
                rows.append(row)
                print(row, file=sys.stderr, flush=True)
    table = [
        f"CPU: {cpu_model()}, {os.cpu_count()} logical CPUs; {time.strftime('%Y-%m-%d')}; "
        f"{a.reps} interleaved repetitions, medians; ms/frame = (t(N) - t(M)) / (N - M).",
        "",
        "| metric | clip | threads | frames M/N | vqx ms/frame | vqx peak RSS MiB | reference "
        "| reference ms/frame | reference peak RSS MiB | vqx speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ] + rows
    text = "\n".join(table) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
