#!/usr/bin/env python3
"""Runs vqx's benchmarks and regenerates bench/results.md.

usage: bench/run.py [--build DIR] [--fixtures DIR] [--shared DIR] [--out FILE] [--only SECTION,...]
                    [--reps N] [--clips DIR]

Sections (all by default; each needs the build's binaries and the fixture pairs):
  cpu         every CPU Google Benchmark (build/bench/*_bench without "cuda" in the name)
  cuda        the CUDA Google Benchmarks (cuda_throughput_bench, *_cuda_bench)
  profile     --profile of each CUDA metric alone, one frame at a time, at 1080p and 4K
  cli         end to end: the vqx CLI's wall time per frame on long clips, CPU and CUDA
  threads     CPU thread scaling against libvmaf 3.2.0 (bench/thread_scaling.py; the libvmaf CLI
              from ../shared/anchors), one block per machine size (threads-16, threads-2, ...)
  decode      compressed input: decode-only frames per second (decode_bench) of H.264, HEVC and AV1
              at 1080p and 4K, and end to end from the compressed files against their Y4M decodes
              (clips made by bench/make_decode_clips.sh with ffmpeg into --clips, kept for reuse)
  presets     --aom_ctc v6.0 and --nflx_ctc v1.0 end to end at 1080p and 4K: vqx on CUDA (one pass),
              vqx on the CPU and libvmaf 3.2.0 on the CPU (bench/ctc_presets.py)
  python      what the Python binding adds to the CUDA engine on torch tensors already on the GPU
              (bench/python_overhead.py; run.py then runs under a Python with torch, and the
              module is found in BUILD/python)
  validation  the gpu-labelled tests, CPU-vs-CUDA CLI output and compute-sanitizer
Sections that need a CUDA device are skipped, with a line saying so, where there is none.

Each section rewrites only its own block of the output file and keeps the others, so a run split
over several calls (a device call lasts at most 10 minutes) still builds one file. Long clips are
made on tmpfs by repeating a fixture's frames, so the work per frame stays the fixture's.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SECTIONS = ("cpu", "cuda", "profile", "cli", "threads", "presets", "decode", "python", "validation")
TITLES = {
    "cpu": "CPU micro-benchmarks",
    "cuda": "CUDA device time per frame",
    "profile": "CUDA stages, one frame at a time (--profile)",
    "cli": "End to end (the vqx CLI from Y4M)",
    "threads": "CPU thread scaling against libvmaf",
    "presets": "CTC presets end to end against libvmaf",
    "decode": "Compressed input: decoding, and end to end from compressed files",
    "python": "Python binding on GPU tensors",
    "validation": "Device validation",
}
CUDA_METRICS = ("psnr", "vif", "adm", "motion", "speed_chroma", "cambi", "ssimulacra2",
                "float_ms_ssim", "float_ssim", "psnr_hvs", "ciede")
# End-to-end configurations: label -> CLI arguments.
CLI_CONFIGS = {
    "vmaf v0.6.1": [],
    "psnr": ["-n", "--feature", "psnr"],
    "ssimulacra2": ["-n", "--feature", "ssimulacra2"],
    "float_ms_ssim": ["-n", "--feature", "float_ms_ssim"],
    "cambi": ["-n", "--feature", "cambi"],
    "ssimulacra2 + float_ms_ssim + cambi":
        ["-n", "--feature", "ssimulacra2", "--feature", "float_ms_ssim", "--feature", "cambi"],
    "vmaf v0.6.1 + ssimulacra2 + float_ms_ssim + cambi":
        ["--feature", "ssimulacra2", "--feature", "float_ms_ssim", "--feature", "cambi"],
}
# Frames per long clip: (CUDA, CPU), per fixture pair.
CLI_FRAMES = {"band1080": (240, 24), "uhd4k": (96, 8)}
# Compressed clips: frames encoded per fixture pair, and frames scored end to end (CUDA, CPU).
DECODE_CLIP_FRAMES = {"band1080": 240, "uhd4k": 96}  # make_decode_clips.sh N_1080, N_4K
DECODE_FRAMES = {"band1080": (240, 24), "uhd4k": (96, 8)}
DECODE_LABEL = {"band1080": "1080p", "uhd4k": "4k"}
DECODE_CONFIGS = ("vmaf v0.6.1", "ssimulacra2 + float_ms_ssim + cambi",
                  "vmaf v0.6.1 + ssimulacra2 + float_ms_ssim + cambi")
PARITY_ARGS = [["-m", "version=vmaf_v0.6.1"], ["-m", "version=vmaf_4k_v0.6.1"],
               ["-m", "version=vmaf_v1.0.16_3d0h"],
               ["-n", "--feature", "psnr", "--feature", "float_ms_ssim", "--feature", "float_ssim",
                "--feature", "cambi=full_ref=true"],
               ["-n", "--feature", "speed_chroma", "--feature", "psnr_hvs", "--feature", "ciede"],
               ["-n", "--feature", "ssimulacra2"]]  # ssimulacra2's twin is within 2e-12, not equal


def run(cmd, env=None, timeout=None):
    return subprocess.run(cmd, env=env, timeout=timeout, capture_output=True, text=True)


def have_device(build, fixtures):
    """Whether this build runs on a CUDA device here (one frame of psnr with --backend cuda)."""
    probe = run([os.path.join(build, "vqx"), "-r", f"{fixtures}/n576/ref.y4m", "-d",
                 f"{fixtures}/n576/dis.y4m", "-n", "--feature", "psnr", "--frame_cnt", "1",
                 "--backend", "cuda", "-q", "-o", "/dev/null"])
    return probe.returncode == 0


def machine(device):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    text = f"{cpu}, {os.cpu_count()} cores"
    if device and shutil.which("nvidia-smi"):
        gpu = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        text += ", " + "; ".join(f"{l.split(',')[0]} (driver {l.split(',')[1].strip()})"
                                 for l in gpu.stdout.strip().splitlines())
    commit = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip() or "unknown"
    dirty = run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return f"measured on {date}, {text}, commit {commit}{' with local changes' if dirty else ''}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def short(x):
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.3e}"


def google_benchmark(binary, fixtures, reps, extra_env=None):
    """Median over repetitions of every benchmark in `binary`, as a markdown table."""
    out = tempfile.mktemp(suffix=".json")
    env = dict(os.environ, VQX_FIXTURES=fixtures, **(extra_env or {}))
    run([binary, f"--benchmark_repetitions={reps}", "--benchmark_report_aggregates_only=true",
         f"--benchmark_out={out}", "--benchmark_out_format=json"], env=env, timeout=590)
    try:
        with open(out) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return "(no result: the benchmark failed or timed out)"
    finally:
        if os.path.exists(out):
            os.remove(out)
    standard = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
                "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
                "aggregate_unit", "family_index", "per_family_instance_index", "error_occurred",
                "error_message", "label"}
    picked = [b for b in data.get("benchmarks", [])
              if b.get("aggregate_name", "median") == "median" and not b.get("error_occurred")]
    if not picked:
        return "(skipped: " + ", ".join(sorted({b.get("error_message", "no runs")
                                                for b in data.get("benchmarks", [])})) + ")"
    counters = sorted({k for b in picked for k in b if k not in standard})
    rows = []
    for b in picked:
        name = re.sub(r"/(iterations:\d+|manual_time|real_time)", "", b["run_name"])
        rows.append([name.removeprefix("BM_"), f"{b['real_time']:.4g} {b['time_unit']}",
                     f"{b['cpu_time']:.4g} {b['time_unit']}"]
                    + [short(b[k]) if isinstance(b.get(k), (int, float)) else "" for k in counters])
    return table(["benchmark", "real time", "CPU time"] + counters, rows)


def benchmarks(build, fixtures, reps, cuda):
    folder = os.path.join(build, "bench")
    names = sorted(n for n in os.listdir(folder) if n.endswith("_bench") and n != "decode_bench"
                   and ("cuda" in n) == cuda and os.access(os.path.join(folder, n), os.X_OK))
    method = (f"Google Benchmark, median of {reps} repetition{'s' if reps != 1 else ''}, on the "
              "fixture pairs (`$VQX_FIXTURES`).")
    if cuda:
        method += (" `cuda_throughput_bench`: one uploaded pair scored 96 times, K frames of each "
                   "non-temporal metric in flight (`--gpu_frames K`), every metric on its own "
                   "streams from CUDA graphs; reading and uploads are left out.")
    parts = [method]
    for name in names:
        parts.append(f"### {name}\n\n" + google_benchmark(os.path.join(folder, name), fixtures, reps))
    return "\n\n".join(parts)


def long_clip(src, dst, count):
    """Writes `count` frames to `dst`, repeating the frames of the Y4M clip `src` in order."""
    with open(src, "rb") as f:
        header = f.readline()
        tags = header.decode().split()[1:]
        w = next(int(t[1:]) for t in tags if t[0] == "W")
        h = next(int(t[1:]) for t in tags if t[0] == "H")
        color = next((t[1:] for t in tags if t[0] == "C"), "420")
        bps = 2 if re.search(r"p(9|1[0-6])$|mono(9|1[0-6])$", color) else 1
        if color.startswith("mono"):
            size = w * h * bps
        else:
            cw = (w + 1) // 2 if color.startswith(("420", "422")) else w
            ch = (h + 1) // 2 if color.startswith("420") else h
            size = (w * h + 2 * cw * ch) * bps
        frames = []
        while f.readline():
            frames.append(f.read(size))
    with open(dst, "wb") as out:
        out.write(header)
        for i in range(count):
            out.write(b"FRAME\n" + frames[i % len(frames)])


def vqx(build, args, timeout=590):
    return run([os.path.join(build, "vqx")] + args + ["-q"], timeout=timeout)


def ms_per_frame(build, reps, n, args_for):
    """Median over `reps` of (t(n) - t(2)) / (n - 2) in ms, t(k) the wall time of the CLI run with
    args_for(k): start-up (CUDA context, allocations, graph capture, opening inputs) cancels."""
    per_frame = []
    for _ in range(reps):
        walls = []
        for frames in (2, n):
            start = time.monotonic()
            if vqx(build, args_for(frames)).returncode != 0:
                break
            walls.append(time.monotonic() - start)
        if len(walls) == 2:
            per_frame.append((walls[1] - walls[0]) / (n - 2) * 1e3)
    return f"{statistics.median(per_frame):.3f}" if per_frame else "failed"


def end_to_end(build, fixtures, reps, device):
    work = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    backends = ["cuda", "cpu"] if device else ["cpu"]
    threads = str(os.cpu_count())
    rows = []
    try:
        for pair, (n_cuda, n_cpu) in CLI_FRAMES.items():
            for n in {2, n_cuda, n_cpu}:
                for side in ("ref", "dis"):
                    long_clip(f"{fixtures}/{pair}/{side}.y4m", f"{work}/{side}_{n}.y4m", n)
            for label, config in CLI_CONFIGS.items():
                row = [pair, label]
                for backend in backends:
                    n = n_cuda if backend == "cuda" else n_cpu
                    row.append(ms_per_frame(build, reps, n, lambda frames: [
                        "-r", f"{work}/ref_{frames}.y4m", "-d", f"{work}/dis_{frames}.y4m",
                        "--backend", backend, "--threads", threads, "-o", "/dev/null"] + config))
                rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    method = (f"Wall milliseconds per frame, (t(N) - t(2)) / (N - 2) from whole-process wall "
              f"times of the CLI (start-up, CUDA context, allocations and graph capture cancel), "
              f"median of {reps} run{'s' if reps != 1 else ''}; `--threads {threads}`; N = "
              + ", ".join(f"{p} {c} (CUDA) / {k} (CPU)" for p, (c, k) in CLI_FRAMES.items())
              + " frames of a fixture repeated. Default schedule (`--gpu_frames 0`).")
    return method + "\n\n" + table(["clip", "features"] + [f"{b} ms/frame" for b in backends], rows)


def decode_speed(build, fixtures, reps, device, clips):
    env = dict(os.environ, N_1080=str(DECODE_CLIP_FRAMES["band1080"]), N_4K=str(DECODE_CLIP_FRAMES["uhd4k"]))
    made = run(["bash", os.path.join(ROOT, "bench", "make_decode_clips.sh"), fixtures, clips], env=env,
               timeout=3000)
    if made.returncode != 0:
        return "(no result: bench/make_decode_clips.sh failed: " + made.stderr.strip()[-300:] + ")"
    parts = [f"Clips: `bench/make_decode_clips.sh` (the band1080 and uhd4k pairs looped to "
             f"{DECODE_CLIP_FRAMES['band1080']} / {DECODE_CLIP_FRAMES['uhd4k']} frames; libx264 medium, libx265 "
             f"fast, libsvtav1 preset 8; reference at high quality, distorted at a typical rate).",
             "### decode_bench\n\nDecode only (demux, libavcodec frame threads, conversion to the Picture "
             "layout): `Decode` one input, `DecodePair` both at once on their reading threads, as the "
             "CLI reads them; `DecodeNvdec` and `DecodePairNvdec` the same through NVDEC with the frames left "
             "in device memory (skipped without a device, or where NVDEC refuses the clip).\n\n"
             + google_benchmark(os.path.join(build, "bench", "decode_bench"), fixtures, reps,
                                {"VQX_DECODE_CLIPS": clips})]
    backends = ["cuda", "cpu"] if device else ["cpu"]
    rows = []
    # The Y4M side: the same fixture frames, looped on tmpfs to the clip's length.
    work = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        for pair, label in DECODE_LABEL.items():
            for side in ("ref", "dis"):
                long_clip(f"{fixtures}/{pair}/{side}.y4m", f"{work}/{pair}_{side}.y4m",
                          DECODE_CLIP_FRAMES[pair])
            for codec, config in ((c, k) for c in ("h264", "hevc", "av1") for k in DECODE_CONFIGS):
                ref, dis = f"{clips}/{codec}_{label}_ref.mkv", f"{clips}/{codec}_{label}_dis.mkv"
                raw = (f"{work}/{pair}_ref.y4m", f"{work}/{pair}_dis.y4m")
                row = [f"{codec} {label}", config]
                for backend in backends:
                    n = DECODE_FRAMES[pair][0 if backend == "cuda" else 1]
                    for r, d in ((ref, dis), raw):
                        row.append(ms_per_frame(build, reps, n, lambda frames: [
                            "-r", r, "-d", d, "--backend", backend, "--frame_cnt", str(frames),
                            "--threads", str(os.cpu_count()), "-o", "/dev/null"] + CLI_CONFIGS[config]))
                rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = ["clip", "features"] + [f"{b} {k} ms/frame" for b in backends for k in ("compressed", "Y4M")]
    parts.append("### End to end\n\nWall milliseconds per frame, `--threads` the host's cores, "
                 "(t(N) - t(2)) / (N - 2) with `--frame_cnt`, median of "
                 f"{reps} runs; N = " + ", ".join(f"{DECODE_LABEL[p]} {c} (CUDA) / {k} (CPU)"
                                                   for p, (c, k) in DECODE_FRAMES.items())
                 + "; the Y4M column scores the fixture's own frames looped to the same length from "
                 "tmpfs. Decoding overlaps the metrics completely where the compressed column equals "
                 "the Y4M one.\n\n" + table(header, rows))
    return "\n\n".join(parts)


def profiles(build, fixtures):
    parts = ["`vqx --backend cuda --profile`: eager launches, one frame at a time, CUDA events "
             "per stage; whole fixture clips."]
    for metric in CUDA_METRICS:
        for pair in ("band1080", "uhd4k"):
            r = vqx(build, ["-r", f"{fixtures}/{pair}/ref.y4m", "-d", f"{fixtures}/{pair}/dis.y4m",
                            "-n", "--backend", "cuda", "--profile", "--feature", metric,
                            "-o", "/dev/null"])
            text = r.stderr.strip() if r.returncode == 0 else "failed: " + r.stderr.strip()[-300:]
            parts.append(f"### {metric}, {pair}\n\n```\n{text}\n```")
    return "\n\n".join(parts)


def json_values(doc):
    """(frame, name) -> value for every per-frame and pooled number of a vqx JSON file."""
    out = {}
    for frame in doc.get("frames", []):
        for name, value in frame.get("metrics", {}).items():
            out[(frame.get("frameNum"), name)] = float(value)
    for name, pooled in doc.get("pooled_metrics", {}).items():
        for stat, value in pooled.items():
            out[("pooled", name, stat)] = float(value)
    return out


def validation(build, fixtures):
    env = dict(os.environ, VQX_FIXTURES=fixtures, VQX_REQUIRE_FIXTURES="1")
    rows = []
    tests = run(["ctest", "--test-dir", build, "-L", "gpu", "-j2", "--timeout", "300"], env=env)
    summary = [l for l in tests.stdout.splitlines() if "tests passed" in l or "tests failed" in l]
    failed = [l.strip() for l in tests.stdout.splitlines() if "(Failed)" in l]
    rows.append(["gpu-labelled tests (`ctest -L gpu`)", (summary or ["no summary"])[-1]
                 + ("; failed: " + ", ".join(failed) if failed else "")])
    # Every value of every frame and the pooled values, CPU against CUDA, per option set.
    for args in PARITY_ARGS:
        equal = total = 0
        worst = 0.0
        for pair in ("n576", "band1080", "odd853", "hbd720", "uhd4k"):
            values = {}
            for backend in ("cpu", "cuda"):
                path = f"{tempfile.gettempdir()}/vqx_parity_{backend}.json"
                vqx(build, ["-r", f"{fixtures}/{pair}/ref.y4m", "-d", f"{fixtures}/{pair}/dis.y4m",
                            "--json", "--precision", "max", "--backend", backend, "-o", path] + args)
                with open(path) as f:
                    values[backend] = json_values(json.load(f))
            for key, a in values["cpu"].items():
                b = values["cuda"].get(key)
                total += 1
                if b is not None and (a == b or (a != a and b != b)):
                    equal += 1
                elif b is not None:
                    worst = max(worst, abs(a - b))
                else:
                    worst = float("inf")
        rows.append([f"CLI JSON at %.17g, `--backend cpu` vs `cuda`, 5 fixtures: `{' '.join(args)}`",
                     f"{equal} of {total} values identical" + (f"; max |diff| {worst:.3g}" if equal < total else "")])
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    for tool in ("memcheck", "racecheck"):
        r = run([sanitizer, "--tool", tool, "--error-exitcode", "9", os.path.join(build, "vqx"),
                 "-r", f"{fixtures}/odd853/ref.y4m", "-d", f"{fixtures}/odd853/dis.y4m", "-q",
                 "--backend", "cuda", "--frame_cnt", "3", "--gpu_frames", "2",
                 "-m", "version=vmaf_v1.0.16_3d0h"]
                + [a for m in CUDA_METRICS for a in ("--feature", m)] + ["-o", "/dev/null"])
        last = (r.stdout + r.stderr).strip().splitlines()[-1:] or ["no output"]
        rows.append([f"compute-sanitizer {tool}, every CUDA metric side by side, 2 frames in flight",
                     f"exit {r.returncode}: {last[0]}"])
    return table(["check", "result"], rows)


def unpack_libvmaf(shared, work):
    """The libvmaf 3.2.0 CLI from ../shared/anchors, unpacked into `work`; None without it."""
    libvmaf = os.path.join(work, "vmaf")
    packed = os.path.join(shared, "anchors", "vmaf-3.2.0-f85a8536-cuda.xz")
    with open(libvmaf, "wb") as out:
        unpacked = subprocess.run(["xz", "-dc", packed], stdout=out).returncode == 0
    os.chmod(libvmaf, 0o755)
    return libvmaf if unpacked else None


def ctc_presets(build, fixtures, reps, shared, device):
    work = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        libvmaf = unpack_libvmaf(shared, work)
        table = os.path.join(work, "presets.md")
        r = run([sys.executable, os.path.join(ROOT, "bench", "ctc_presets.py"), "--vqx",
                 os.path.join(build, "vqx"), "--fixtures", fixtures, "--reps", str(reps),
                 "--presets", "aom_ctc=v6.0,nflx_ctc=v1.0", "--out", table]
                + ([] if device else ["--no-cuda"]) + (["--libvmaf", libvmaf] if libvmaf else []))
        if r.returncode != 0 or not os.path.exists(table):
            return "(no result: bench/ctc_presets.py failed: " + (r.stderr.strip().splitlines() or ["no output"])[-1] + ")"
        with open(table) as f:
            return "`bench/ctc_presets.py`: " + f.read().strip()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def thread_scaling(build, fixtures, reps, shared):
    work = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        libvmaf = unpack_libvmaf(shared, work)
        unpacked = libvmaf is not None
        table = os.path.join(work, "threads.md")
        threads = ",".join(str(t) for t in (1, 2, 4, 8, 16, 32, 64) if t <= (os.cpu_count() or 1))
        run([sys.executable, os.path.join(ROOT, "bench", "thread_scaling.py"), "--vqx",
             os.path.join(build, "vqx"), "--clips", os.path.join(work, "clips"), "--make-clips",
             fixtures, "--threads", threads, "--reps", str(reps), "--out", table]
            + (["--libvmaf", libvmaf] if unpacked else []))
        if not os.path.exists(table):
            return "(no result: bench/thread_scaling.py failed)"
        with open(table) as f:
            return "`bench/thread_scaling.py`: " + f.read().strip()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def python_overhead(build, fixtures):
    env = dict(os.environ, VQX_FIXTURES=fixtures,
               PYTHONPATH=os.pathsep.join(p for p in (os.path.join(build, "python"), os.environ.get("PYTHONPATH")) if p))
    r = run([sys.executable, os.path.join(ROOT, "bench", "python_overhead.py"), "--build", build], env=env)
    table = [l for l in r.stdout.splitlines() if l.startswith("|")]
    if r.returncode != 0 or not table:
        return "(no result: bench/python_overhead.py failed: " + (r.stderr.strip().splitlines() or ["no output"])[-1] + ")"
    return ("`bench/python_overhead.py`: per-frame cost in steady state, (t(96) - t(16)) / 80 over "
            "runs of 96 and 16 frames, median of 3 interleaved repetitions; the binding's overhead "
            "against the engine's device time from `cuda_throughput_bench`.\n\n" + "\n".join(table))


def replace_section(text, name, body, stamp):
    title = TITLES[name]
    if name == "threads":  # one block per machine size: the scaling differs from host to host
        cores = os.cpu_count() or 1
        name, title = f"threads-{cores}", f"{title}, {cores} cores"
    block = f"<!-- {name} -->\n## {title}\n\n{stamp[0].upper() + stamp[1:]}.\n\n{body}\n<!-- /{name} -->"
    pattern = re.compile(rf"<!-- {name} -->.*?<!-- /{name} -->", re.S)
    if pattern.search(text):
        return pattern.sub(lambda _: block, text)
    return text.rstrip("\n") + "\n\n" + block + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--fixtures", default=os.environ.get("VQX_FIXTURES", "/var/cache/vqx-fixtures"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results.md"))
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--shared", default=os.environ.get("VQX_SHARED_DIR", os.path.join(ROOT, "..", "shared")))
    parser.add_argument("--clips", default="/dev/shm/vqx-decode" if os.path.isdir("/dev/shm") else
                        os.path.join(tempfile.gettempdir(), "vqx-decode"))
    args = parser.parse_args()
    sections = [s for s in args.only.split(",") if s]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        sys.exit(f"bench/run.py: unknown section {', '.join(unknown)} (known: {', '.join(SECTIONS)})")
    build = os.path.abspath(args.build)
    device = have_device(build, args.fixtures)
    stamp = machine(device)
    text = open(args.out).read() if os.path.exists(args.out) else (
        "# Measured results\n\nWritten by `bench/run.py`; each section says how and where it was "
        "measured.\n")
    for name in sections:
        if name not in ("cpu", "cli", "threads", "presets", "decode") and not device:
            print(f"bench/run.py: {name}: skipped, no CUDA device", file=sys.stderr)
            continue
        print(f"bench/run.py: {name} ...", file=sys.stderr)
        if name in ("cpu", "cuda"):
            body = benchmarks(build, args.fixtures, args.reps, cuda=name == "cuda")
        elif name == "profile":
            body = profiles(build, args.fixtures)
        elif name == "cli":
            body = end_to_end(build, args.fixtures, args.reps, device)
        elif name == "threads":
            body = thread_scaling(build, args.fixtures, args.reps, args.shared)
        elif name == "presets":
            body = ctc_presets(build, args.fixtures, args.reps, args.shared, device)
        elif name == "decode":
            body = decode_speed(build, args.fixtures, args.reps, device, args.clips)
        elif name == "python":
            body = python_overhead(build, args.fixtures)
        else:
            body = validation(build, args.fixtures)
        text = replace_section(text, name, body, stamp)
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
