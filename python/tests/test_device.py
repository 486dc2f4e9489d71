"""vqx.Scorer on GPU arrays (torch, cupy): read in place by the CUDA backend, the CLI's values.

Skips without a CUDA device, and each library's tests without that library.
"""
import json
import pathlib

import numpy as np
import pytest

import vqx
from conftest import assert_same_as_cli, fixtures_dir, read_y4m, run_cli, synthetic_clip

pytestmark = pytest.mark.skipif(not vqx.cuda_available(), reason="no CUDA device")

VMAF_AND_TRIO = ["ssimulacra2", "float_ms_ssim", "cambi", "psnr"]


# The fixture pairs where they are made, else synthetic clips of the same formats (the device
# machine may have no fixtures): name -> (width, height, pixel_format, bit_depth).
CLIPS = {"n576": (576, 324, "420", 8), "hbd720": (1280, 720, "420", 10), "odd853": (853, 481, "444", 8)}


@pytest.fixture
def clips(tmp_path):
    made = {}

    def get(name, frames):
        if fixtures_dir() is not None:
            folder = fixtures_dir() / name
            fmt, refs = read_y4m(folder / "ref.y4m", frames)
            _, diss = read_y4m(folder / "dis.y4m", frames)
        else:
            folder = tmp_path / name
            if name not in made:
                folder.mkdir()
                made[name] = synthetic_clip(folder, *CLIPS[name], frames=frames)
            fmt, refs, diss = made[name]
        return folder, fmt, refs[:frames], diss[:frames]
    return get


def cli_json(cli, folder, frames, features):
    args = ["-r", str(folder / "ref.y4m"), "-d", str(folder / "dis.y4m"), "--backend", "cuda",
            "--frame_cnt", str(frames), "-m", "version=vmaf_v0.6.1"]
    for f in features:
        args += ["--feature", f]
    return run_cli(cli, args)


def score_device(fmt, refs, diss, to_device, features, **kwargs):
    scorer = vqx.Scorer(fmt["width"], fmt["height"], fmt["pixel_format"], fmt["bit_depth"], features=features,
                        models=["version=vmaf_v0.6.1"], backend="cuda", **kwargs)
    assert scorer.backend.startswith("cuda")
    for r, d in zip(refs, diss):
        scorer.push(tuple(to_device(p) for p in r), tuple(to_device(p) for p in d))
    return scorer, scorer.finish()


@pytest.mark.parametrize("name", ["n576", "hbd720", "odd853"])
def test_torch_tensors_equal_the_cli(clips, cli, name):
    torch = pytest.importorskip("torch")
    folder, fmt, refs, diss = clips(name, 8)
    to_device = lambda p: torch.from_numpy(p.copy()).cuda()  # uint16 too (torch >= 2.3)
    scorer, result = score_device(fmt, refs, diss, to_device, VMAF_AND_TRIO)
    assert_same_as_cli(result, cli_json(cli, folder, 8, VMAF_AND_TRIO))
    # Every frame was copied on the device; the engine read none through host memory.
    assert scorer.stats() == {"frames_pushed": 8, "host_frames_read": 0, "device_frames_copied": 16}


def test_cupy_arrays_equal_the_cli(clips, cli):
    cupy = pytest.importorskip("cupy")
    folder, fmt, refs, diss = clips("n576", 8)
    scorer, result = score_device(fmt, refs, diss, cupy.asarray, VMAF_AND_TRIO)
    assert_same_as_cli(result, cli_json(cli, folder, 8, VMAF_AND_TRIO))
    assert scorer.stats()["host_frames_read"] == 0


def test_torch_batches_on_a_side_stream(clips, cli):
    """Frames written on another stream than the current one: the engine waits for `stream`."""
    torch = pytest.importorskip("torch")
    folder, fmt, refs, diss = clips("n576", 8)
    scorer = vqx.Scorer(fmt["width"], fmt["height"], "420", 8, models=["version=vmaf_v0.6.1"], backend="cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        batch = [tuple(torch.from_numpy(np.stack([f[p] for f in frames])).cuda(non_blocking=True) for p in range(3))
                 for frames in (refs, diss)]
        # Work after the copies on the same stream, so a reader that did not wait would see zeros.
        for planes in batch:
            for plane in planes:
                plane.add_(0)
    scorer.push_batch(batch[0], batch[1], stream=side)
    assert_same_as_cli(scorer.finish(), cli_json(cli, folder, 8, []))


def test_no_frame_crosses_to_the_host(clips, tmp_path):
    """The profiler's device-to-host copies are the small per-frame results, never a frame plane."""
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile
    _, fmt, refs, diss = clips("n576", 6)
    frames = [[tuple(torch.from_numpy(p.copy()).cuda() for p in f) for f in c] for c in (refs, diss)]
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        scorer = vqx.Scorer(fmt["width"], fmt["height"], "420", 8, models=["version=vmaf_v0.6.1"],
                            features=["psnr"], backend="cuda")
        for r, d in zip(*frames):
            scorer.push(r, d)
        scorer.finish()
    trace = tmp_path / "profile.json"
    prof.export_chrome_trace(str(trace))
    events = json.loads(pathlib.Path(trace).read_text())["traceEvents"]
    copies = [e for e in events if e.get("cat") == "gpu_memcpy"]
    if not copies:
        pytest.skip("the profiler recorded no copies (CUPTI unavailable)")
    down = [e["args"].get("bytes", 0) for e in copies if "DtoH" in e["name"]]
    chroma_plane = (fmt["width"] // 2) * (fmt["height"] // 2)
    assert max(down, default=0) < chroma_plane, down
    # Frames come in device to device; the only large uploads are the metrics' constant tables
    # (VIF's 128 KiB log table among them), written while the engine sets up, before it copies
    # in the first frame.
    frame_copies = [e["ts"] for e in copies if "DtoD" in e["name"]]
    assert len(frame_copies) >= 2 * 6, len(frame_copies)
    late_uploads = [e["args"].get("bytes", 0) for e in copies
                    if "HtoD" in e["name"] and e["ts"] > min(frame_copies)]
    assert max(late_uploads, default=0) < chroma_plane, late_uploads


def test_device_errors():
    torch = pytest.importorskip("torch")
    y = torch.zeros((32, 48), dtype=torch.uint8, device="cuda")
    c = torch.zeros((16, 24), dtype=torch.uint8, device="cuda")
    scorer = vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cuda")
    with pytest.raises(vqx.InputError, match="reference plane Cb: host memory"):
        scorer.push((y, c.cpu(), c), (y, c, c))
    with pytest.raises(vqx.InputError, match="samples of a row must be adjacent"):
        scorer.push((y, c, c), (y, c, torch.zeros((24, 16), dtype=torch.uint8, device="cuda").t()))
    scorer.push((y, c, c), (y, c, c))
    with pytest.raises(vqx.InputError, match="cannot mix host and device arrays"):
        scorer.push(tuple(p.cpu().numpy() for p in (y, c, c)), tuple(p.cpu().numpy() for p in (y, c, c)))
    assert len(scorer.finish()) == 1
    cpu = vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cpu")
    with pytest.raises(vqx.RuntimeFailure, match="device arrays need the CUDA backend"):
        cpu.push((y, c, c), (y, c, c))
    if torch.cuda.device_count() > 1:
        other = vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cuda", gpu=1)
        with pytest.raises(vqx.InputError, match="the array is on cuda:0, and this Scorer runs on cuda:1"):
            other.push((y, c, c), (y, c, c))


def test_cuda_array_interface_alone(clips):
    """An array that offers only __cuda_array_interface__ is read in place through cupy."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("cupy")

    class InterfaceOnly:
        def __init__(self, tensor):
            self.tensor = tensor  # keeps the memory alive
            self.__cuda_array_interface__ = tensor.__cuda_array_interface__

    _, fmt, refs, diss = clips("n576", 4)
    results = []
    for wrap in (lambda t: t, InterfaceOnly):
        scorer = vqx.Scorer(fmt["width"], fmt["height"], "420", 8, features=["psnr"], backend="cuda")
        for r, d in zip(refs, diss):
            scorer.push(tuple(wrap(torch.from_numpy(p.copy()).cuda()) for p in r),
                        tuple(wrap(torch.from_numpy(p.copy()).cuda()) for p in d))
        results.append(scorer.finish())
        assert scorer.stats()["host_frames_read"] == 0
    assert results[0].metrics["psnr_y"].tolist() == results[1].metrics["psnr_y"].tolist()
