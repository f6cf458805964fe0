"""tools/trajectory_inputs.py: the four readings of the trajectory NRMSE against closed forms."""

import numpy as np
import pytest

from physres.simulate import trajectory_nrmse
from tools import trajectory_inputs


def test_a_scaled_trajectory_reads_its_scale_every_way():
    # y_hat = 1.1 y: every relative error is 0.1; a zero-mean y makes the centred reading equal too
    t = np.linspace(0.0, 16.0 * np.pi, 800, endpoint=False)  # whole periods: y has mean 0
    y_ref = np.stack([np.sin(t), 3.0 * np.cos(2.0 * t)], axis=1)
    readings = trajectory_inputs.nrmse_readings(y_ref, 1.1 * y_ref, dt=t[1] - t[0])
    for name in ("global", "per_coordinate", "centred", "from_20s"):
        assert readings[name] == pytest.approx(0.1, rel=1e-9), name


def test_the_readings_part_where_they_should():
    rng = np.random.default_rng(0)
    y_ref = rng.normal(1.0, 0.5, (400, 3)) * np.array([1.0, 10.0, 100.0])
    y_hat = y_ref + rng.normal(0.0, 0.1, y_ref.shape)
    readings = trajectory_inputs.nrmse_readings(y_ref, y_hat, dt=0.1)
    # the global reading is the workflow's trajectory_nrmse
    assert readings["global"] == pytest.approx(trajectory_nrmse(y_ref[None], y_hat[None]), rel=1e-12)
    # an equal error on coordinates of unequal size: the per-coordinate mean is dominated by the smallest
    assert readings["per_coordinate"] > 10 * readings["global"]
    # y has mean 1 and std 0.5 per unit of scale, so RMS / std > 1
    assert readings["centred"] > readings["global"]
    # the cut drops the first 20 s = 200 steps at dt 0.1
    late = np.sqrt(np.mean((y_hat[200:] - y_ref[200:]) ** 2)) / np.sqrt(np.mean(y_ref[200:] ** 2))
    assert readings["from_20s"] == pytest.approx(late, rel=1e-12)


def test_a_cell_without_checkpoints_names_its_target(tmp_path, capsys):
    (tmp_path / "config.yaml").write_text("{}\n")
    with pytest.raises(SystemExit):
        trajectory_inputs.main(["paper", "mackey_glass", "6", "full", "--workdir", str(tmp_path)])
    assert "snakemake results/paper/pretrain/mackey_glass/ny6/full/evaluation.json" in capsys.readouterr().err
