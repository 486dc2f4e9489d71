#!/usr/bin/env python3
"""Scores one clip on a Ray cluster: one task per segment (vqx --segment START:COUNT
--features_out), retried where it fails, then `vqx merge` writes the whole clip's output, the
same bytes as one vqx run over the clip (the wall-clock fps figure aside).

    python3 ray_score.py --vqx /usr/local/bin/vqx -r ref.y4m -d dis.y4m \\
        --segment-frames 500 -o out.json -- --json -m version=vmaf_v0.6.1

Everything after `--` goes to every segment (features, models, --threads, --backend) and the
output flags (--json, --xml, --csv, --sub, --precision, --percentiles) to the merge as well.
The inputs and the vqx binary must be at the same paths on every node (a shared mount); the parts
come back to the driver through Ray, so the workers need no shared writable storage.

--address connects to a running cluster (ray start --head / a RayCluster); without it a local
cluster of --workers CPUs starts in this process. --gpus-per-task 1 gives each task its own GPU
(one task per GPU at a time).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import ray

# vqx flags that shape the merged output rather than the per-frame values.
OUTPUT_FLAGS = {"--json", "--xml", "--csv", "--sub"}
OUTPUT_OPTIONS = {"--precision", "--percentiles"}


def y4m_frame_count(path):
    """Frames of a Y4M file from its header and size (every frame carries a 'FRAME\\n' header)."""
    with open(path, "rb") as f:
        header = f.readline().decode("ascii", "replace").split()
    if not header or header[0] != "YUV4MPEG2":
        return None
    tags = {t[0]: t[1:] for t in header[1:]}
    width, height = int(tags["W"]), int(tags["H"])
    colour = tags.get("C", "420")
    depth = 1
    for bits in ("p10", "p12", "p16"):
        if bits in colour:
            depth = 2
    if colour.startswith("444"):
        chroma = 2 * width * height
    elif colour.startswith("422"):
        chroma = 2 * ((width + 1) // 2) * height
    elif colour.startswith("mono"):
        chroma = 0
    else:
        chroma = 2 * ((width + 1) // 2) * ((height + 1) // 2)
    frame = len(b"FRAME\n") + (width * height + chroma) * depth
    with open(path, "rb") as f:
        header_bytes = len(f.readline())
    return (os.path.getsize(path) - header_bytes) // frame


def split_merge_args(args):
    """The part of the vqx arguments that the merge takes as well."""
    merge = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in OUTPUT_FLAGS:
            merge.append(a)
        elif a in OUTPUT_OPTIONS and i + 1 < len(args):
            merge += [a, args[i + 1]]
            i += 1
        elif a.split("=", 1)[0] in OUTPUT_OPTIONS:
            merge.append(a)
        i += 1
    return merge


def segment_args(args):
    """The vqx arguments without the output flags, which a segment run does not take."""
    out = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in OUTPUT_FLAGS or a.split("=", 1)[0] in OUTPUT_OPTIONS:
            pass
        elif a in OUTPUT_OPTIONS:
            i += 1
        else:
            out.append(a)
        i += 1
    return out


class SegmentFailed(RuntimeError):
    pass


def score_segment(vqx, reference, distorted, args, start, count):
    """Runs one segment; returns its part file's bytes. Raises SegmentFailed with vqx's message."""
    with tempfile.TemporaryDirectory(prefix="vqx-segment-") as tmp:
        part = os.path.join(tmp, "part.jsonl")
        cmd = [vqx, "-q", "-r", reference, "-d", distorted, *args,
               "--segment", f"{start}:{count}", "--features_out", part]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            message = (run.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise SegmentFailed(f"segment {start}:{count} exited {run.returncode}: {message}")
        with open(part, "rb") as f:
            return f.read()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vqx", default="vqx", help="the vqx binary (same path on every node)")
    parser.add_argument("-r", "--reference", required=True)
    parser.add_argument("-d", "--distorted", required=True)
    parser.add_argument("-o", "--output", required=True, help="the merged output file")
    parser.add_argument("--frames", type=int, help="frames in the clip (default: from a Y4M reference)")
    parser.add_argument("--segment-frames", type=int, default=500, help="frames per segment")
    parser.add_argument("--retries", type=int, default=2, help="retries of a failed segment")
    parser.add_argument("--address", help="a running Ray cluster (default: a local one)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="CPUs of the local cluster")
    parser.add_argument("--cpus-per-task", type=float, default=1)
    parser.add_argument("--gpus-per-task", type=float, default=0)
    parser.add_argument("--parts-dir", help="keep the part files here (default: a temporary folder)")
    parser.add_argument("vqx_args", nargs="*", help="after --: features, models, output flags")
    o = parser.parse_args(argv)

    frames = o.frames if o.frames is not None else y4m_frame_count(o.reference)
    if not frames:
        parser.error("give --frames: the reference is not a Y4M file whose frames can be counted")
    if o.segment_frames < 1:
        parser.error("--segment-frames must be at least 1")
    starts = list(range(0, frames, o.segment_frames))

    if o.address:
        ray.init(address=o.address)
    else:
        ray.init(num_cpus=o.workers, include_dashboard=False, log_to_driver=False)
    task = ray.remote(score_segment).options(
        num_cpus=o.cpus_per_task, num_gpus=o.gpus_per_task,
        max_retries=o.retries, retry_exceptions=[SegmentFailed])
    # A wrong --frames fails the merge: a part would be missing, or the last would not end the clip.
    refs = [task.remote(o.vqx, o.reference, o.distorted, segment_args(o.vqx_args), start,
                        min(o.segment_frames, frames - start))
            for start in starts]
    parts_dir = o.parts_dir or tempfile.mkdtemp(prefix="vqx-parts-")
    os.makedirs(parts_dir, exist_ok=True)
    paths, failures = [], []
    for start, ref in zip(starts, refs):
        try:
            data = ray.get(ref)
        except Exception as e:  # the task's last try failed
            cause = getattr(e, "cause", None) or e
            failures.append(str(cause).strip().splitlines()[-1])
            continue
        path = os.path.join(parts_dir, f"part-{start:09d}.jsonl")
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    ray.shutdown()
    if failures:
        for f in failures:
            print(f"ray_score: {f}", file=sys.stderr)
        print(f"ray_score: {len(failures)} of {len(starts)} segments failed after {o.retries} retries",
              file=sys.stderr)
        return 1
    merge = subprocess.run([o.vqx, "merge", *paths, *split_merge_args(o.vqx_args), "-o", o.output])
    return merge.returncode


if __name__ == "__main__":
    sys.exit(main())
