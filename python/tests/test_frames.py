"""vqx.Scorer on numpy frames: the CLI's values on the same frames, in every frame layout."""
import numpy as np
import pytest

import vqx
from conftest import assert_same_as_cli, read_y4m, run_cli, synthetic_clip


def scorer_for(fmt, **kwargs):
    return vqx.Scorer(fmt["width"], fmt["height"], fmt["pixel_format"], fmt["bit_depth"], **kwargs)


def test_vmaf_frames_across_calls_equal_the_cli(fixtures, cli):
    """VMAF's motion is temporal: frames pushed one call at a time score as the CLI's clip."""
    ref_path, dis_path = fixtures / "n576" / "ref.y4m", fixtures / "n576" / "dis.y4m"
    fmt, refs = read_y4m(ref_path, 10)
    _, diss = read_y4m(dis_path, 10)
    scorer = scorer_for(fmt, features=["psnr", "float_ms_ssim"], models=["version=vmaf_v0.6.1"], backend="cpu",
                        threads=2)
    assert scorer.backend.startswith("cpu")
    for r, d in zip(refs[:4], diss[:4]):
        scorer.push(r, d)
    scorer.push_batch(refs[4:], diss[4:])
    result = scorer.finish()
    cli_json = run_cli(cli, ["-r", str(ref_path), "-d", str(dis_path), "--backend", "cpu", "--frame_cnt", "10",
                             "-m", "version=vmaf_v0.6.1", "--feature", "psnr", "--feature", "float_ms_ssim"])
    assert_same_as_cli(result, cli_json)
    assert scorer.stats() == {"frames_pushed": 10, "host_frames_read": 20, "device_frames_copied": 0}


@pytest.mark.parametrize("clip,features", [("hbd720", ["psnr", "ssimulacra2"]),
                                           ("odd853", ["psnr", "float_ssim", "cambi"])])
def test_layouts_equal_file_scores(fixtures, clip, features):
    """10-bit 4:2:0 and odd-sized 4:4:4, as planes, one raw 1-D frame, (3, H, W) and batches."""
    ref_path, dis_path = fixtures / clip / "ref.y4m", fixtures / clip / "dis.y4m"
    fmt, refs = read_y4m(ref_path, 3)
    _, diss = read_y4m(dis_path, 3)
    expected = vqx.score(ref_path, dis_path, features=features, backend="cpu", frame_cnt=3)
    layouts = [lambda f: f, lambda f: np.concatenate([p.ravel() for p in f])]
    if fmt["pixel_format"] == "444":
        layouts.append(np.stack)
    for layout in layouts:
        scorer = scorer_for(fmt, features=features, backend="cpu")
        scorer.push_batch([layout(f) for f in refs], [layout(f) for f in diss])
        result = scorer.finish()
        assert result.frames.tolist() == expected.frames.tolist()
        for name, values in expected.metrics.items():
            assert result[name].tolist() == values.tolist(), name
        assert result.pooled == expected.pooled
    # Batched planes: (Y[N], Cb[N], Cr[N]), with padded rows (a strided view) for the reference.
    padded = [np.pad(np.stack([f[p] for f in refs]), ((0, 0), (0, 0), (0, 7)))[:, :, :refs[0][p].shape[1]]
              for p in range(3)]
    scorer = scorer_for(fmt, features=features, backend="cpu")
    scorer.push_batch(tuple(padded), tuple(np.stack([f[p] for f in diss]) for p in range(3)))
    assert scorer.finish().metrics["psnr_y"].tolist() == expected["psnr_y"].tolist()


def test_psnr_of_synthetic_frames():
    rng = np.random.default_rng(7)
    w, h = 48, 32
    scorer = vqx.Scorer(w, h, "400", 10, features=["psnr"], backend="cpu")
    expected = []
    for _ in range(3):
        ref = rng.integers(0, 1024, size=(h, w), dtype=np.uint16)
        dis = np.clip(ref.astype(np.int32) + rng.integers(-9, 10, size=(h, w)), 0, 1023).astype(np.uint16)
        mse = np.mean((ref.astype(np.float64) - dis) ** 2)
        expected.append(10 * np.log10(1023.0 ** 2 / mse))
        scorer.push(ref, dis)
    result = scorer.finish()
    np.testing.assert_allclose(result["psnr_y"], expected, rtol=1e-12)
    # As for a mono Y4M: the chroma columns exist, with no value.
    assert np.isnan(result["psnr_cb"]).all() and result.pooled["psnr_cb"] == {}


def test_frame_cnt_leaves_later_frames_unread():
    frame = np.zeros((16, 16), dtype=np.uint8)
    scorer = vqx.Scorer(16, 16, "400", 8, features=["psnr"], backend="cpu", frame_cnt=2)
    for _ in range(5):
        scorer.push(frame, frame)
    assert len(scorer.finish()) == 2


def test_synthetic_422_equals_the_cli(tmp_path, cli):
    """4:2:2 (no fixture has it) and 12-bit: the frames pushed equal the CLI on their Y4M."""
    for fmt_args in ((226, 218, "422", 8), (64, 48, "422", 12)):
        fmt, refs, diss = synthetic_clip(tmp_path, *fmt_args, frames=4)
        features = ["psnr", "float_ssim"] if fmt["bit_depth"] > 8 else ["psnr", "float_ssim", "cambi"]
        scorer = scorer_for(fmt, features=features, models=["version=vmaf_v0.6.1"], backend="cpu")
        scorer.push_batch(refs, diss)
        args = ["-r", str(tmp_path / "ref.y4m"), "-d", str(tmp_path / "dis.y4m"), "--backend", "cpu",
                "-m", "version=vmaf_v0.6.1"]
        for f in features:
            args += ["--feature", f]
        assert_same_as_cli(scorer.finish(), run_cli(cli, args))
