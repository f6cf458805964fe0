"""tools/trajectory_inputs.py: the four readings of the trajectory NRMSE against closed forms."""

import shutil
from pathlib import Path

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
    shutil.copy(Path(__file__).resolve().parents[1] / "config.yaml", tmp_path / "config.yaml")
    with pytest.raises(SystemExit):
        trajectory_inputs.main(["paper", "mackey_glass", "6", "full", "--workdir", str(tmp_path)])
    assert "snakemake results/paper/pretrain/mackey_glass/ny6/full/evaluation.json" in capsys.readouterr().err


@pytest.mark.parametrize("dt", [0.05, 0.15, 0.006])
def test_the_thesis_grid_keeps_the_input_and_its_first_100_s(dt):
    rng = np.random.default_rng(1)
    u = rng.uniform(size=(1, 2000, 1))
    t_coarse, fine, step = trajectory_inputs.on_thesis_grid(u, dt)
    assert t_coarse[-1] <= 100.0 + 1e-9 and (len(t_coarse) == 2000 or t_coarse[-1] + dt > 100.0)
    # every sample time lies on the grid, where the fine input equals the sample
    every = int(round(dt / step))
    np.testing.assert_allclose(fine[0, ::every, 0], u[0, : len(t_coarse), 0], rtol=0, atol=1e-12)
    assert step <= 0.01 + 1e-12 and fine.shape[1] == (len(t_coarse) - 1) * every + 1


def test_the_continuous_ron_parts_from_the_discrete_one_at_first_order():
    # IMEX Euler at dt against the ODE it discretises: the gap halves with dt
    import jax

    jax.config.update("jax_enable_x64", True)
    from physres.ron import RON, ron_rollout
    from physres.simulate import at_sample_times

    rng = np.random.default_rng(2)
    ny, duration = 3, 20.0
    W, V, b = rng.normal(size=(ny, ny)) * 0.5, rng.normal(size=(ny, 1)), rng.normal(size=ny) * 0.1
    gaps = []
    for dt in (0.04, 0.02):
        ron = RON(W=W, V=V, b=b, gamma=np.full(ny, 2.0), epsilon=np.full(ny, 1.0), dt=dt)
        t = dt * np.arange(int(round(duration / dt)))
        u = np.sin(0.7 * t)[:, None]
        y_ref = np.asarray(at_sample_times(ron_rollout(ron, u[None], keep="all"), "linear"))[0]
        y_ode = trajectory_inputs.continuous_ron(ron, u, sim_dt=dt / 40)
        gaps.append(trajectory_inputs.nrmse_readings(y_ref, y_ode, dt)["global"])
    assert 0.0 < gaps[1] < gaps[0]
    assert gaps[0] / gaps[1] == pytest.approx(2.0, rel=0.15)


def test_mean_std_is_the_tables_sample_std_of_the_finite_values():
    assert trajectory_inputs.mean_std([1.0, 2.0, 3.0, float("nan")]) == "2.0000 ± 1.0000"
    assert trajectory_inputs.mean_std([float("nan")]) == "-"
    assert trajectory_inputs.mean_std([0.5]) == "0.5000 ± nan"
