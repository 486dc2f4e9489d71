"""Bad calls raise vqx's exceptions with the CLI's one-line messages, never crash."""
import numpy as np
import pytest

import vqx


def frame(h=32, w=48, dtype=np.uint8):
    return (np.zeros((h, w), dtype), np.zeros((h // 2, w // 2), dtype), np.zeros((h // 2, w // 2), dtype))


def test_exception_classes():
    assert issubclass(vqx.UsageError, vqx.Error) and issubclass(vqx.UsageError, ValueError)
    assert issubclass(vqx.InputError, vqx.Error) and issubclass(vqx.InputError, ValueError)
    assert issubclass(vqx.RuntimeFailure, vqx.Error) and issubclass(vqx.RuntimeFailure, RuntimeError)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"features": ["no_such_metric"]}, vqx.UsageError, "no_such_metric"),
    ({"features": ["psnr=bogus=1"]}, vqx.UsageError, "bogus"),
    ({"features": ["cambi=window_size=1000"]}, vqx.UsageError, "window_size"),
    ({"models": ["version=vmaf_v9"]}, vqx.InputError, "unknown model version 'vmaf_v9'"),
    ({"backend": "vulkan"}, vqx.UsageError, "--backend vulkan: not supported by vqx (use cpu, cuda or auto)"),
    ({"no_such_flag": 3}, vqx.UsageError, "no_such_flag"),
    ({"output": "x.json"}, vqx.UsageError, "output=: not an option here"),
    ({"features": "psnr"}, vqx.UsageError, "lists of strings"),
])
def test_option_errors(kwargs, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        vqx.Scorer(48, 32, "420", 8, **kwargs)
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        vqx.score("ref.y4m", "dis.y4m", **kwargs)


def test_file_errors(tmp_path, fixtures):
    with pytest.raises(vqx.InputError, match="missing.y4m"):
        vqx.score(tmp_path / "missing.y4m", tmp_path / "missing.y4m", features=["psnr"], backend="cpu")
    with pytest.raises(vqx.InputError, match="geometry mismatch: reference is 576x324, distorted is 853x481"):
        vqx.score(fixtures / "n576" / "ref.y4m", fixtures / "odd853" / "dis.y4m", features=["psnr"], backend="cpu")
    (tmp_path / "a.yuv").write_bytes(b"\0" * 100)
    with pytest.raises(vqx.UsageError, match="raw YUV input needs all of -w, -h, -p and -b"):
        vqx.score(tmp_path / "a.yuv", tmp_path / "a.yuv", features=["psnr"], width=10)


def test_geometry_and_format_errors():
    with pytest.raises(vqx.UsageError, match="pixel_format 411"):
        vqx.Scorer(48, 32, "411", 8, features=["psnr"])
    with pytest.raises(vqx.UsageError, match="bit_depth 7"):
        vqx.Scorer(48, 32, "420", 7, features=["psnr"])
    with pytest.raises(vqx.InputError, match="picture size 0x32 is empty"):
        vqx.Scorer(0, 32, "420", 8, features=["psnr"])


@pytest.mark.parametrize("bad,message", [
    (frame(dtype=np.uint16), "reference plane Y: 8-bit samples need dtype uint8, got uint16"),
    (frame(dtype=np.float32), "reference plane Y: 8-bit samples need dtype uint8, got another dtype"),
    (frame(h=30), r"reference plane Y: shape \(30, 48\) given, 48x32 4:2:0 8-bit needs \(32, 48\)"),
    (frame()[:2], r"reference frame: 2 planes given, 48x32 4:2:0 8-bit \(Y, Cb, Cr\) has 3"),
    (np.zeros(10, np.uint8), "a 1-D frame holds 2304 samples for this format, got 10"),
    (np.zeros((2, 2, 2, 2), np.uint8), "got a 4-D array"),
])
def test_frame_errors(bad, message):
    scorer = vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cpu")
    with pytest.raises(vqx.InputError, match=message):
        scorer.push(bad, frame())
    scorer.push(frame(), frame())  # the Scorer is still usable
    assert len(scorer.finish()) == 1


def test_engine_errors_and_finished_scorer():
    # A picture too small for the metric fails in the engine: the error reaches Python.
    scorer = vqx.Scorer(8, 8, "420", 8, features=["float_ms_ssim"], backend="cpu")
    with pytest.raises(vqx.InputError, match="float_ms_ssim"):
        for _ in range(8):
            scorer.push(frame(8, 8), frame(8, 8))
        scorer.finish()
    scorer = vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cpu")
    scorer.push(frame(), frame())
    scorer.finish()
    with pytest.raises(vqx.UsageError, match="this Scorer has finished"):
        scorer.push(frame(), frame())
    vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cpu").push(frame(), frame())  # dropped unfinished


@pytest.mark.skipif(vqx.cuda_available(), reason="a CUDA device is present")
def test_cuda_unavailable():
    with pytest.raises(vqx.RuntimeFailure):
        vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cuda")
    assert vqx.Scorer(48, 32, "420", 8, features=["psnr"]).backend.startswith("cpu")


def test_device_array_without_dlpack_needs_cupy():
    try:
        import cupy  # noqa: F401
        pytest.skip("cupy is installed")
    except ImportError:
        pass

    class InterfaceOnly:
        __cuda_array_interface__ = {"shape": (32, 48), "typestr": "|u1", "data": (0, True), "version": 3}

    scorer = vqx.Scorer(48, 32, "420", 8, features=["psnr"], backend="cpu")
    with pytest.raises(vqx.InputError, match="only __cuda_array_interface__ needs cupy"):
        scorer.push((InterfaceOnly(), frame()[1], frame()[2]), frame())
