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
])
def test_every_part_runs_and_reports(capsys, part, expected):
    bench.main(["--part", part, "--ny", "3", "--n-robots", "1", "--n-pcs", "1", *TINY])
    out = capsys.readouterr().out
    assert "3 Gauss points per segment" in out
    for text in expected:
        assert text in out, (text, out)
    assert not re.search(r"\bnan\b", out)
