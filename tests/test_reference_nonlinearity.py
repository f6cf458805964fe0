"""tools/reference_nonlinearity.py: the parts of y'' beyond an affine and an additive fit, against closed
forms and a quadrature."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tools import reference_nonlinearity


def split(y, ydot, u, yddot):
    return {"y": y, "ydot": ydot, "u": u, "yddot": yddot}


def uniform_dataset(yddot_of, n=200_000, ny=2, seed=0):
    rng = np.random.default_rng(seed)
    parts = {}
    for name in ("train", "test"):
        y, ydot, u = rng.uniform(-1, 1, (n, ny)), rng.uniform(-1, 1, (n, ny)), rng.uniform(-1, 1, (n, 1))
        parts[name] = split(y, ydot, u, yddot_of(y, ydot, u))
    return parts


def test_an_affine_acceleration_has_nothing_beyond_affine():
    rng = np.random.default_rng(3)
    A, B, C = rng.normal(size=(2, 2)), rng.normal(size=(2, 2)), rng.normal(size=(1, 2))
    data = uniform_dataset(lambda y, ydot, u: y @ A + ydot @ B + u @ C + 0.5, n=2000)
    part = reference_nonlinearity.beyond_affine(data)
    assert part["residual"] < 1e-12 * part["labels"]
    np.testing.assert_allclose(part["per_coordinate"], 0.0, atol=1e-12)


def test_a_square_leaves_its_closed_form_residual():
    # y'' = (y_0^2, y_1) with y uniform in [-1, 1]: the affine fit of y_0^2 is its mean 1/3 (no
    # slope by symmetry), leaving E[y^4] - E[y^2]^2 = 1/5 - 1/9 = 4/45; y_1 is fitted exactly
    data = uniform_dataset(lambda y, ydot, u: np.stack([y[:, 0] ** 2, y[:, 1]], axis=1))
    part = reference_nonlinearity.beyond_affine(data)
    assert part["per_coordinate"][0] == pytest.approx(np.sqrt(4 / 45), rel=0.01)
    assert part["per_coordinate"][1] < 1e-12
    assert part["residual"] == pytest.approx(np.sqrt(4 / 45), rel=0.01)
    # labels: RMS of ||(y_0^2, y_1)|| = sqrt(E[y^4] + E[y^2]) = sqrt(1/5 + 1/3)
    assert part["labels"] == pytest.approx(np.sqrt(1 / 5 + 1 / 3), rel=0.01)


def small_ron(W, V, b):
    import jax

    jax.config.update("jax_enable_x64", True)
    from physres.ron import RON

    W, V, b = np.atleast_2d(W), np.atleast_2d(V), np.atleast_1d(b)
    ny = len(b)
    return RON(W=W, V=V, b=b, gamma=np.ones(ny), epsilon=np.ones(ny), dt=0.1)


UNIT_BOX = {
    name: np.full(1, bound) for name, bound in [("y_low", -1.0), ("y_high", 1.0), ("u_low", -1.0), ("u_high", 1.0)]
}


@pytest.mark.parametrize("W, V", [(0.0, 3.0), (3.0, 0.0)])
def test_a_tanh_of_the_state_or_of_the_input_alone_is_additive(W, V):
    part = reference_nonlinearity.beyond_additive(small_ron(W, V, 0.5), UNIT_BOX, n=500)
    assert part["residual"] < 1e-14


def test_the_interaction_matches_a_quadrature():
    # tanh(2 y + 3 u + 0.5), y and u uniform in [-1, 1]: the ANOVA interaction by Gauss-Legendre
    # quadrature (an independent reference) against the tool's Monte Carlo
    nodes, weights = np.polynomial.legendre.leggauss(200)
    weights = weights / 2.0  # a mean over [-1, 1]
    f = np.tanh(2.0 * nodes[:, None] + 3.0 * nodes[None, :] + 0.5)
    given_y, given_u, mean = f @ weights, weights @ f, weights @ f @ weights
    interaction = f - given_y[:, None] - given_u[None, :] + mean
    expected = np.sqrt(weights @ interaction**2 @ weights)
    part = reference_nonlinearity.beyond_additive(small_ron(2.0, 3.0, 0.5), UNIT_BOX, n=4000)
    assert expected > 0.1  # a real interaction, not a rounding one
    assert part["residual"] == pytest.approx(expected, rel=0.03)


def test_a_run_without_task_data_names_its_target(tmp_path, capsys):
    shutil.copy(Path(__file__).resolve().parents[1] / "config.yaml", tmp_path / "config.yaml")
    with pytest.raises(SystemExit):
        reference_nonlinearity.main(["paper", "mackey_glass", "6", "--workdir", str(tmp_path)])
    assert "snakemake results/paper/data/mackey_glass.h5" in capsys.readouterr().err


def test_a_configuration_other_than_the_runs_is_refused(tmp_path, capsys):
    # the run drew candidates 0-7; an overlay that draws seed 5 alone would print other RONs
    shutil.copy(Path(__file__).resolve().parents[1] / "config.yaml", tmp_path / "config.yaml")
    run = tmp_path / "results/paper"
    (run / "data").mkdir(parents=True)
    (run / "data/mackey_glass.h5").touch()  # never read: the check comes first
    cell = run / "reference/mackey_glass/ny9"
    cell.mkdir(parents=True)
    candidates = [{"seed": s, "validation": 0.5} for s in range(8)]
    (cell / "selection.json").write_text(json.dumps({"selected_seed": 2, "candidates": candidates}))
    overlay = Path(__file__).resolve().parents[1] / "workflow/configs/reference_candidate.yaml"
    with pytest.raises(SystemExit):
        reference_nonlinearity.main(
            ["paper", "mackey_glass", "9", "--workdir", str(tmp_path), "--configfile", str(overlay)]
        )
    assert "holds candidate seeds [0, 1, 2, 3, 4, 5, 6, 7], this configuration draws [5]" in capsys.readouterr().err
