"""The benchmark script runs every part on tiny sizes and prints what the README quotes (the
timings themselves are benchmarks, not tests)."""
import re

import pytest

from physres import bench

TINY = ["--states", "8", "--samples", "64", "--batch-size", "32", "--epochs", "1", "--starts", "2",
        "--sequences", "2", "--inputs", "2", "--substeps", "5", "--seeds", "1", "--gauss-points", "3"]


@pytest.mark.parametrize("part, expected", [
    ("pretrain", ["ratio physres / soromox: forward", "pretraining (soromox)", "projected paper-scale run",
                  "ratio physres / soromox (projected run)"]),
    ("rollout", ["us per segment-substep", "ratio physres / soromox", "projected sMNIST ny=15 rollout"]),
    ("step", ["seed 0:", "speed-up"]),
    ("quadrature", ["|kappa L| <= 3.14 rad: 2 points"]),
    ("dag", ["pretraining job", "us per segment-substep", "CPU hours"]),
])
def test_every_part_runs_and_reports(capsys, part, expected):
    bench.main(["--part", part, "--ny", "3", "--n-robots", "1", "--n-pcs", "1", "--layouts", "6", *TINY])
    out = capsys.readouterr().out
    assert "3 Gauss points per segment" in out
    for text in expected:
        assert text in out, (text, out)
    assert not re.search(r"\bnan\b", out)


def test_dag_projection_counts_the_papers_work():
    """sMNIST at ny = 6: 35000 images of 784 pixels, 60 substeps of 0.1 ms per RON step of 6 ms;
    Mackey-Glass ny = 15: one train and one test series of 2000 steps, 1500 substeps."""
    config = bench.paper_config()
    assert bench.rollout_work(config, "smnist", 6) == (35000 * 784, 60)
    assert bench.rollout_work(config, "mackey_glass", 15) == (2 * 2000, 1500)
    assert bench.rollout_work(config, "adiac", 9) == (781 * 176, 200)
    assert bench.rollout_work(config, "lorenz96", 12) == (256 * 2225, 1700)
