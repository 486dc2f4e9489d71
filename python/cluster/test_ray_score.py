#!/usr/bin/env python3
"""The Ray runner on a local cluster: its merged output is the bytes of one whole vqx run (the
wall-clock fps line aside; CSV has none and is compared whole), a segment that fails once is
retried, and one that always fails is reported with vqx's message and a non-zero exit.

    python3 test_ray_score.py BUILD/vqx FIXTURE_DIR     (FIXTURE_DIR holds ref.y4m and dis.y4m)
"""
import os
import stat
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ray_score  # noqa: E402

VQX = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "vqx"
FIXTURE = sys.argv[2] if len(sys.argv) > 2 else "/var/cache/vqx-fixtures/n576"
REF, DIS = os.path.join(FIXTURE, "ref.y4m"), os.path.join(FIXTURE, "dis.y4m")


def read(path):
    with open(path) as f:
        return f.read()


def without_fps(text):
    return "".join(l for l in text.splitlines(True) if '"fps"' not in l and "<fyi " not in l)


def whole_run(tmp, args):
    out = os.path.join(tmp, "whole")
    subprocess.run([VQX, "-q", "--threads", "1", "-r", REF, "-d", DIS, *args, "-o", out], check=True)
    return read(out)


def flaky_vqx(tmp, fail_start, times):
    """A vqx that fails its first `times` runs of the segment starting at `fail_start`."""
    path = os.path.join(tmp, "flaky-vqx")
    counter = os.path.join(tmp, "failures")
    with open(path, "w") as f:
        f.write(f"""#!/bin/bash
if [[ " $* " == *" --segment {fail_start}:"* ]]; then
  n=$(cat '{counter}' 2>/dev/null || echo 0)
  if (( n < {times} )); then echo $((n + 1)) > '{counter}'; echo "vqx: error: injected failure" >&2; exit 3; fi
fi
exec '{VQX}' "$@"
""")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path, counter


class RayScore(unittest.TestCase):
    def run_ray(self, tmp, vqx, args, segment_frames=7):
        out = os.path.join(tmp, "merged")
        status = ray_score.main(["--vqx", vqx, "-r", REF, "-d", DIS, "-o", out, "--workers", "2",
                                 "--retries", "2", "--segment-frames", str(segment_frames),
                                 "--", "--threads", "1", *args])
        text = read(out) if os.path.exists(out) else ""
        return status, text

    def test_merged_json_is_the_whole_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = ["--json", "-m", "version=vmaf_v1.0.16_hfr_3d0h"]
            expected = whole_run(tmp, args)
            status, merged = self.run_ray(tmp, VQX, args)
            self.assertEqual(status, 0)
            self.assertGreater(len(expected), 1000)
            self.assertEqual(without_fps(merged), without_fps(expected))

    def test_failed_segment_is_retried(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = ["--csv", "--feature", "psnr"]
            expected = whole_run(tmp, args)
            vqx, counter = flaky_vqx(tmp, 14, 1)
            status, merged = self.run_ray(tmp, vqx, args)
            self.assertEqual(status, 0)
            self.assertEqual(read(counter).strip(), "1")
            self.assertEqual(merged, expected)

    def test_segment_failing_every_try_is_reported(self):
        with tempfile.TemporaryDirectory() as tmp:
            vqx, counter = flaky_vqx(tmp, 21, 100)
            status, merged = self.run_ray(tmp, vqx, ["--json"])
            self.assertEqual(status, 1)
            self.assertEqual(read(counter).strip(), "3")  # the first try and two retries
            self.assertEqual(merged, "")


if __name__ == "__main__":
    start = time.monotonic()
    result = unittest.main(argv=[sys.argv[0]], exit=False).result
    failed = len(result.failures) + len(result.errors)
    print(f"ray_score: the tests took {time.monotonic() - start:.0f} s")
    print(f"ray_score: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or not result.testsRun else 0)
