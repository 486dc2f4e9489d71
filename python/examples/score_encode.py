#!/usr/bin/env python3
"""Scores an encode against its source with VMAF v0.6.1 (and PSNR), prints the pooled values, and
plots per-frame VMAF when matplotlib is installed.

    python/examples/score_encode.py SOURCE ENCODE [--plot vmaf.png] [--backend auto|cpu|cuda]

SOURCE and ENCODE are anything the vqx CLI reads (Y4M, mp4, mkv, webm, ivf, raw .yuv with
--width/--height/--pixel_format/--bitdepth); an encode of another size is scaled to the source's
with --scale bicubic.
"""
import argparse
import sys

import vqx


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("encode")
    parser.add_argument("--plot", default="vmaf.png", help="where the per-frame plot goes (PNG)")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--scale", default=None, help="bicubic, bilinear, lanczos, spline or neighbor")
    args = parser.parse_args()

    try:
        result = vqx.score(args.source, args.encode, features=["psnr"], models=["version=vmaf_v0.6.1"],
                           backend=args.backend, scale=args.scale, percentiles=[1, 5, 50])
    except vqx.Error as e:
        print(f"score_encode: {e}", file=sys.stderr)
        return 2
    print(f"{len(result)} frames, {result.width}x{result.height}, backend {result.backend}")
    for name in ("vmaf", "psnr_y"):
        p = result.pooled[name]
        print(f"{name:7s} mean {p['mean']:.4f}  harmonic {p['harmonic_mean']:.4f}  min {p['min']:.4f}  "
              f"p1 {p['p1']:.4f}  p5 {p['p5']:.4f}  median {p['p50']:.4f}")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return 0
    fig, ax = plt.subplots(figsize=(10, 3.5))
    ax.plot(result.frames, result["vmaf"], lw=1, label="VMAF v0.6.1")
    ax.axhline(result.mean("vmaf"), color="gray", ls="--", lw=0.8, label=f"mean {result.mean('vmaf'):.2f}")
    worst = int(result.frames[result["vmaf"].argmin()])
    ax.annotate(f"worst: frame {worst}", (worst, result["vmaf"].min()), textcoords="offset points",
                xytext=(8, -12), fontsize=8)
    ax.set(xlabel="frame", ylabel="VMAF", ylim=(max(0, result["vmaf"].min() - 5), 100), title=args.encode)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.plot, dpi=120)
    print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
