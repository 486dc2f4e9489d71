"""vqx.score() on files: the CLI's values bit for bit, its options, its outputs' structure."""
import math

import numpy as np
import pytest

import vqx
from conftest import assert_same_as_cli, run_cli


def test_vmaf_and_features_equal_the_cli(fixtures, cli):
    ref, dis = fixtures / "n576" / "ref.y4m", fixtures / "n576" / "dis.y4m"
    features = ["psnr", "float_ssim", "cambi"]
    result = vqx.score(ref, dis, features=features, models=["version=vmaf_v0.6.1"], backend="cpu",
                       threads=2, frame_cnt=12)
    args = ["-r", str(ref), "-d", str(dis), "--backend", "cpu", "--threads", "2", "--frame_cnt", "12",
            "-m", "version=vmaf_v0.6.1"]
    for f in features:
        args += ["--feature", f]
    assert_same_as_cli(result, run_cli(cli, args))
    assert len(result) == 12 and result.frame_count == 12
    assert (result.width, result.height) == (576, 324)
    assert result.backend.startswith("cpu")


def test_default_is_vmaf_v061_as_the_cli(fixtures, cli):
    ref, dis = fixtures / "odd853" / "ref.y4m", fixtures / "odd853" / "dis.y4m"
    result = vqx.score(ref, dis, backend="cpu", frame_cnt=4, subsample=2)
    cli_json = run_cli(cli, ["-r", str(ref), "-d", str(dis), "--backend", "cpu", "--frame_cnt", "4",
                             "--subsample", "2"])
    assert_same_as_cli(result, cli_json)
    assert result.frames.tolist() == [0, 2]
    assert "vmaf" in result and 0 < result.mean("vmaf") < 100


def test_high_bit_depth_options_and_percentiles(fixtures, cli):
    ref, dis = fixtures / "hbd720" / "ref.y4m", fixtures / "hbd720" / "dis.y4m"
    features = ["float_ms_ssim=enable_lcs=true", "psnr=enable_apsnr=true"]
    result = vqx.score(ref, dis, features=features, backend="cpu", frame_cnt=3, frame_skip_dist=1,
                       percentiles=[5, 50])
    args = ["-r", str(ref), "-d", str(dis), "-n", "--backend", "cpu", "--frame_cnt", "3",
            "--frame_skip_dist", "1", "--percentiles", "5,50"]
    for f in features:
        args += ["--feature", f]
    cli_json = run_cli(cli, args)
    assert_same_as_cli(result, cli_json)
    assert set(result.pooled["psnr_y"]) == {"min", "max", "mean", "harmonic_mean", "p5", "p50"}
    assert "apsnr_y" in result.aggregates


def test_png_pair(fixtures, cli):
    ref, dis = fixtures / "n576" / "png" / "ref_f010.png", fixtures / "n576" / "png" / "dis_f010.png"
    result = vqx.score(ref, dis, features=["ssimulacra2"], backend="cpu")
    assert_same_as_cli(result, run_cli(cli, ["-r", str(ref), "-d", str(dis), "-n", "--feature",
                                             "ssimulacra2", "--backend", "cpu"]))


def test_raw_yuv_options(tmp_path):
    rng = np.random.default_rng(3)
    w, h = 66, 34
    frames = rng.integers(0, 256, size=(2, h * w * 3 // 2), dtype=np.uint8)
    noisy = np.clip(frames.astype(np.int16) + rng.integers(-3, 4, frames.shape), 0, 255).astype(np.uint8)
    (tmp_path / "ref.yuv").write_bytes(frames.tobytes())
    (tmp_path / "dis.yuv").write_bytes(noisy.tobytes())
    result = vqx.score(tmp_path / "ref.yuv", tmp_path / "dis.yuv", features=["psnr"], backend="cpu",
                       width=w, height=h, pixel_format=420, bit_depth=8)
    for k in range(2):
        y_ref = frames[k, :w * h].astype(np.float64)
        y_dis = noisy[k, :w * h].astype(np.float64)
        mse = np.mean((y_ref - y_dis) ** 2)
        assert math.isclose(result["psnr_y"][k], 10 * math.log10(255.0 ** 2 / mse), rel_tol=1e-12)


def test_result_views(fixtures):
    result = vqx.score(fixtures / "n576" / "ref.y4m", fixtures / "n576" / "dis.y4m", features=["psnr"],
                       backend="cpu", frame_cnt=3)
    rows = result.per_frame()
    assert [r["frameNum"] for r in rows] == [0, 1, 2]
    assert rows[1]["metrics"]["psnr_y"] == result["psnr_y"][1]
    assert result.metrics["psnr_y"].dtype == np.float64
    assert "psnr_y" in repr(result)
    pd = pytest.importorskip("pandas")
    frame = result.to_pandas()
    assert list(frame.index) == [0, 1, 2] and frame.index.name == "frameNum"
    assert frame["psnr_cb"].tolist() == result["psnr_cb"].tolist()
    assert isinstance(frame, pd.DataFrame)
