"""vqx: perceptual video quality (VMAF, SSIMULACRA2, MS-SSIM, SSIM, CAMBI, PSNR) with the CLI's exact scores.

Two ways in:

* :func:`score` scores two inputs the CLI reads (Y4M, PNG, raw YUV, any container FFmpeg reads)
  with the CLI's ``--feature`` / ``-m`` strings and options, and returns a :class:`Result`.
* :class:`Scorer` takes frame pairs one at a time or in batches, as numpy arrays on the host or
  as torch / cupy arrays on the GPU (read in place by the CUDA backend), and returns a
  :class:`Result` from :meth:`Scorer.finish`.

Every value is the double the CLI prints with ``--precision max``. Errors are :class:`UsageError`
(a malformed option or feature), :class:`InputError` (input that cannot be scored: files, shapes,
dtypes, devices) and :class:`RuntimeFailure` (CUDA unavailable, out of memory), all subclasses of
:class:`Error`, with the CLI's one-line messages.
"""
from __future__ import annotations

import os
import warnings
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from . import _vqx
from ._vqx import Error, InputError, RuntimeFailure, UsageError

__all__ = ["score", "Scorer", "Result", "features", "cuda_available", "cuda_built",
           "Error", "UsageError", "InputError", "RuntimeFailure", "__version__"]

__version__: str = _vqx.__version__
#: True when this build has the CUDA backend (a GPU may still be absent: see cuda_available()).
cuda_built: bool = _vqx.cuda_built

# CLI flags that make no sense for a call that returns its results, or that the arguments of
# score() and Scorer() already cover.
_NOT_OPTIONS = {
    "reference", "distorted", "r", "d", "output", "o", "xml", "json", "csv", "sub", "ndjson",
    "report", "report_worst", "quiet", "q", "version", "v", "list_features", "help",
    "precision", "no_prediction", "n", "feature", "model", "m",
}
_ALIASES = {"bit_depth": "bitdepth"}


def cuda_available(gpu: int = 0) -> bool:
    """Whether the CUDA backend can run on device ``gpu`` (False in a CPU-only build)."""
    return bool(_vqx.cuda_available(gpu))


def features() -> list[dict]:
    """The metrics vqx knows (``vqx --list-features``): name, summary, options, CUDA twin."""
    return _vqx.features()


def _cli_args(features: Sequence[str] | None, models: Sequence[str] | None, backend: str,
              threads: int | None, options: Mapping[str, Any]) -> list[str]:
    """The CLI's flags for a call: features, models, backend, threads, then each option."""
    if isinstance(features, str) or isinstance(models, str):
        raise UsageError("features and models are lists of strings, e.g. features=['psnr']")
    args: list[str] = []
    for f in features or []:
        args += ["--feature", str(f)]
    preset = any(options.get(k) for k in ("aom_ctc", "nflx_ctc"))
    if models is None:
        # As the CLI: VMAF v0.6.1 unless features or a preset are named (then only those).
        if features and not preset:
            args.append("-n")
    elif len(models) == 0:
        args.append("-n")
    else:
        for m in models:
            args += ["-m", str(m)]
    args += ["--backend", str(backend)]
    if threads is not None:
        args += ["--threads", str(int(threads))]
    for key, value in options.items():
        if key in _NOT_OPTIONS:
            raise UsageError(f"{key}=: not an option here (results are returned, not written)")
        flag = "--" + _ALIASES.get(key, key)
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif key == "percentiles" and not isinstance(value, str):
            args += [flag, ",".join(f"{float(p):g}" for p in value)]
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, str(v)]
        else:
            args += [flag, str(value)]
    return args


class Result:
    """Per-frame values and pooled values of one run.

    Attributes:
        frames: int64 array, the frame numbers written (as the CLI's ``frameNum``).
        metrics: ``{name: float64 array}`` over ``frames``, in the CLI's column order; NaN where
            the CLI writes no value (or ``null``).
        pooled: ``{name: {"min", "max", "mean", "harmonic_mean", "pP"...}}`` (pooled_metrics).
        aggregates: ``{name: float}`` whole-clip values (aggregate_metrics).
        backend: which backend ran and why, e.g. ``"cuda (NVIDIA H200, device 0)"``.
        width, height: the scored picture size; frame_count: frames read; wall_seconds.
        warnings: the notices the CLI prints as ``vqx: warning:`` lines.
    """

    def __init__(self, raw: Mapping[str, Any]):
        self.frames: np.ndarray = raw["frames"]
        self.metrics: dict[str, np.ndarray] = dict(raw["metrics"])
        self.pooled: dict[str, dict[str, float]] = dict(raw["pooled"])
        self.aggregates: dict[str, float] = dict(raw["aggregates"])
        self.backend: str = raw["backend"]
        self.width: int = raw["width"]
        self.height: int = raw["height"]
        self.frame_count: int = raw["frame_count"]
        self.wall_seconds: float = raw["wall_seconds"]
        self.warnings: list[str] = list(raw.get("warnings", []))

    def __getitem__(self, name: str) -> np.ndarray:
        """The per-frame values of one column, e.g. ``result["vmaf"]``."""
        return self.metrics[name]

    def __contains__(self, name: str) -> bool:
        return name in self.metrics

    def __len__(self) -> int:
        return len(self.frames)

    def mean(self, name: str) -> float:
        """The pooled mean of a column, as the CLI's pooled_metrics."""
        return self.pooled[name]["mean"]

    def per_frame(self) -> list[dict]:
        """The frames as the CLI's JSON writes them: ``[{"frameNum": n, "metrics": {...}}]``."""
        out = []
        for k, n in enumerate(self.frames.tolist()):
            values = {name: float(v[k]) for name, v in self.metrics.items() if not np.isnan(v[k])}
            out.append({"frameNum": n, "metrics": values})
        return out

    def to_pandas(self):
        """A pandas DataFrame, one row per frame (index ``frameNum``), one column per metric."""
        try:
            import pandas as pd
        except ImportError as e:  # pandas is optional
            raise ImportError("Result.to_pandas() needs pandas (pip install pandas)") from e
        return pd.DataFrame(self.metrics, index=pd.Index(self.frames, name="frameNum"))

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v['mean']:.6g}" for k, v in self.pooled.items() if "mean" in v)
        return f"<vqx.Result {len(self.frames)} frames, {means}; backend {self.backend}>"


def score(reference: str | os.PathLike, distorted: str | os.PathLike,
          features: Sequence[str] | None = None, models: Sequence[str] | None = None,
          backend: str = "auto", threads: int | None = None, **options: Any) -> Result:
    """Scores ``distorted`` against ``reference``, as ``vqx -r REF -d DIS ... --precision max``.

    Args:
        reference, distorted: anything the CLI reads: Y4M, PNG, raw YUV (with ``width``,
            ``height``, ``pixel_format``, ``bitdepth``), any container or stream FFmpeg reads.
        features: ``--feature`` strings, e.g. ``["psnr", "cambi=window_size=33"]``.
        models: ``-m`` strings, e.g. ``["version=vmaf_v0.6.1"]``. ``None``: VMAF v0.6.1 when no
            features are named (the CLI's default), else features only; ``[]``: features only.
        backend: ``"auto"`` (CUDA when present and every metric has a CUDA twin), ``"cpu"``,
            ``"cuda"``.
        threads: CPU threads (default: all cores); scores never depend on it.
        **options: any other CLI flag by its long name: ``scale="bicubic"``, ``frame_cnt=10``,
            ``subsample=2``, ``gpu=1``, ``aom_ctc="v6.0"``, ``percentiles=[5, 50]``, ...; ``True``
            for a flag without value.

    Returns:
        A :class:`Result`. Raises :class:`UsageError`, :class:`InputError` or
        :class:`RuntimeFailure` with the CLI's message.
    """
    args = ["-r", os.fspath(reference), "-d", os.fspath(distorted)]
    args += _cli_args(features, models, backend, threads, options)
    result = Result(_vqx.score_files(args))
    for w in result.warnings:
        warnings.warn(w, RuntimeWarning, stacklevel=2)
    return result


def _dlpack_device(x: Any) -> tuple[int, int]:
    device = getattr(x, "__dlpack_device__", None)
    return tuple(device()) if device else (1, 0)


def _is_device(x: Any) -> bool:
    return _dlpack_device(x)[0] in (2, 13)  # kDLCUDA, kDLCUDAManaged


def _current_stream(x: Any) -> int:
    """The stream the producer of ``x`` writes on now: torch's or cupy's current stream."""
    module = type(x).__module__.split(".")[0]
    if module == "torch":
        import torch
        return torch.cuda.current_stream(x.device).cuda_stream
    if module == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    return 0


def _stream_handle(stream: Any) -> int:
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr", "handle"):  # torch, cupy, others
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise UsageError("stream: expected a CUDA stream handle (int), a torch.cuda.Stream or a cupy Stream")


class Scorer:
    """Scores frame pairs given one at a time or in batches, as the CLI scores a clip.

    Args:
        width, height: the picture size.
        pixel_format: ``"420"``, ``"422"``, ``"444"`` or ``"400"`` (luma only).
        bit_depth: 8 (uint8 samples) to 16 (uint16 samples, values below 2**bit_depth).
        features, models, backend, threads, **options: as :func:`score` (``gpu=N`` picks the
            CUDA device, ``frame_cnt``, ``subsample``, ``percentiles``... apply too).

    A frame is a tuple ``(Y, Cb, Cr)`` of 2-D arrays (plane_height x plane_width; chroma of odd
    sizes rounds up), a 3-D array ``(3, H, W)`` for 4:4:4, a 2-D array for 4:0:0, or a 1-D array
    in raw .yuv layout. Arrays are numpy (or anything with the buffer protocol or DLPack) on the
    host, or torch / cupy arrays (DLPack; ``__cuda_array_interface__`` alone through cupy) on the
    Scorer's CUDA device: those are read in place by the
    CUDA backend after the work queued on ``stream`` (default: the array library's current
    stream), with no copy to the host. Temporal metrics (VMAF's motion) run across calls;
    :meth:`finish` ends the clip. One clip is all host or all device arrays.
    """

    def __init__(self, width: int, height: int, pixel_format: str | int = "420", bit_depth: int = 8,
                 features: Sequence[str] | None = None, models: Sequence[str] | None = None,
                 backend: str = "auto", threads: int | None = None, **options: Any):
        args = _cli_args(features, models, backend, threads, options)
        self._scorer = _vqx.Scorer(args, int(width), int(height), str(pixel_format), int(bit_depth))
        self._width, self._height, self._bit_depth = int(width), int(height), int(bit_depth)
        sub = {"420": (1, 1), "422": (1, 0), "444": (0, 0), "400": None}[str(pixel_format)]
        self._planes = [(self._height, self._width)]
        if sub is not None:
            chroma = ((self._height + sub[1]) >> sub[1], (self._width + sub[0]) >> sub[0])
            self._planes += [chroma, chroma]

    @property
    def backend(self) -> str:
        """Which backend scores the frames and why, e.g. ``"cuda (NVIDIA H200, device 0)"``."""
        return self._scorer.backend

    def _split(self, frame: Any) -> list:
        if isinstance(frame, (tuple, list)):
            planes = list(frame)
        else:
            ndim = getattr(frame, "ndim", None)
            if ndim is None:
                frame = np.asarray(frame)
                ndim = frame.ndim
            if ndim == 1:
                planes, start = [], 0
                sizes = [h * w for h, w in self._planes]
                if frame.shape[0] != sum(sizes):
                    raise InputError(f"a 1-D frame holds {sum(sizes)} samples for this format, got {frame.shape[0]}")
                for (h, w), n in zip(self._planes, sizes):
                    planes.append(frame[start:start + n].reshape(h, w))
                    start += n
            elif ndim == 3 or (ndim == 2 and len(self._planes) == 1):
                planes = [frame[k] for k in range(frame.shape[0])] if ndim == 3 else [frame]
            else:
                raise InputError(f"a frame is (Y, Cb, Cr) planes, a (3, H, W) array (4:4:4), a 2-D array "
                                 f"(4:0:0) or a 1-D raw frame; got a {ndim}-D array")
        out = []
        for p in planes:
            if hasattr(p, "__cuda_array_interface__") and not hasattr(p, "__dlpack__"):
                # A device array without DLPack (numba's, say): cupy views it in place.
                try:
                    import cupy
                except ImportError as e:
                    raise InputError("a device array with only __cuda_array_interface__ needs cupy to be "
                                     "read in place (or give a torch / cupy array)") from e
                p = cupy.asarray(p)
            elif not _is_device(p) and not hasattr(p, "__dlpack__"):
                p = np.asarray(p)
            if isinstance(p, np.ndarray) and p.ndim == 2 and p.strides[1] != p.itemsize:
                p = np.ascontiguousarray(p)
            out.append(p)
        return out

    def push(self, reference: Any, distorted: Any, stream: Any = None) -> None:
        """Adds one frame pair (see the class docstring for the frame layouts)."""
        ref, dis = self._split(reference), self._split(distorted)
        handle = 0
        if ref and _is_device(ref[0]):
            handle = _current_stream(ref[0]) if stream is None else _stream_handle(stream)
        self._scorer.push(ref, dis, handle)

    def push_batch(self, references: Any, distorted: Any, stream: Any = None) -> None:
        """Adds frame pairs in order: a list of frames, an array whose first axis is the frame
        (each element a frame as push() takes), or a tuple of batched planes ``(Y[N], Cb[N], Cr[N])``."""
        def frames(batch):
            if isinstance(batch, tuple):
                return [tuple(plane[k] for plane in batch) for k in range(len(batch[0]))]
            return [batch[k] for k in range(len(batch))]
        refs, diss = frames(references), frames(distorted)
        if len(refs) != len(diss):
            raise InputError(f"push_batch: {len(refs)} reference frames and {len(diss)} distorted frames")
        for r, d in zip(refs, diss):
            self.push(r, d, stream)

    def finish(self) -> Result:
        """Ends the clip (temporal metrics' last frames, model scores) and returns its Result."""
        return Result(self._scorer.finish())

    def stats(self) -> dict:
        """Frames pushed, host frames the engine read, device frames it copied on the device."""
        return self._scorer.stats()

    def __enter__(self) -> "Scorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass
