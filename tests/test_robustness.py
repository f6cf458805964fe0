"""The robustness study (physres.robustness, physres.tables.robustness): the mismatch multiplies
theta_rob and nothing else, its draws are seeded per (seed, draw) whatever runs before them and
have the configured statistics, and the half-advantage sigma has its closed forms."""

import jax
import numpy as np
import pytest
import yaml
from conftest import ROOT

from physres.physical import init_physical_reservoir, init_unoptimized_reservoir
from physres.robustness import mismatch_z, mismatched
from physres.tables.robustness import half_advantage, half_advantage_sigma, render_robustness, robustness_table

RANGES = yaml.safe_load((ROOT / "config.yaml").read_text())["robot"]["init_ranges"]


@pytest.mark.parametrize("init", [init_physical_reservoir, init_unoptimized_reservoir])
def test_mismatch_multiplies_theta_rob_and_leaves_the_rest(init):
    model = init(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, gauss_points=3)
    factor = 1.0 + 0.1 * np.random.default_rng(0).standard_normal(model.robots.raw.shape)
    built = mismatched(model, factor)
    np.testing.assert_allclose(built.robots.theta(), np.asarray(model.robots.theta()) * factor, rtol=1e-12)
    changed = jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a, b: bool(np.any(a != b)), model, built))
    assert sum(changed) == 1  # only robots.raw
    floor = np.asarray(model.robots.minimum)
    np.testing.assert_allclose(mismatched(model, np.zeros_like(factor)).robots.theta()[0, 0], floor * (1 + 1e-6))


def test_draws_are_keyed_by_seed_and_draw_only_and_standard_normal():
    shape = (1, 2, 8)
    first = mismatch_z(0, "adiac", 6, 2, 1, shape)
    for other in [(0, "adiac", 6, 0, 0), (0, "smnist", 6, 2, 1)]:
        mismatch_z(*other, shape)  # whatever ran before
    np.testing.assert_array_equal(mismatch_z(0, "adiac", 6, 2, 1, shape), first)
    assert not np.array_equal(mismatch_z(0, "adiac", 6, 2, 0, shape), first)
    assert not np.array_equal(mismatch_z(0, "adiac", 6, 3, 1, shape), first)
    z = np.concatenate([mismatch_z(0, "adiac", 6, s, d, shape).ravel() for s in range(25) for d in range(25)])
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03  # 10000 draws: 3 standard errors


def test_half_advantage_sigma_closed_forms():
    sigmas = np.array([0.0, 0.1, 0.2])
    # accuracy 80 -> 70 -> 60 against a baseline at 60: half of the 20 lost at 0.1 exactly
    assert half_advantage_sigma(sigmas, [80.0, 70.0, 60.0], 60.0, True) == pytest.approx(0.1)
    assert half_advantage_sigma(sigmas, [80.0, 75.0, 60.0], 60.0, True) == pytest.approx(0.1 + 0.1 / 3)  # 70 there
    assert half_advantage_sigma(sigmas, [0.4, 0.45, 0.5], 0.6, False) == pytest.approx(0.2)  # NRMSE: lower is better
    assert half_advantage_sigma(sigmas, [80.0, 79.0, 78.0], 60.0, True) == np.inf
    assert np.isnan(half_advantage_sigma(sigmas, [50.0, 40.0, 30.0], 60.0, True))
    assert half_advantage_sigma(sigmas, [80.0, np.nan, 78.0], 60.0, True) == 0.1  # diverged: lost


def record(variant, values):
    """A robustness file: sigma -> per-seed accuracies (None: diverged), one draw."""
    runs = []
    for sigma, seeds in values.items():
        for seed, value in enumerate(seeds):
            score = {"metric": "accuracy", "value": value, "diverged": value is None}
            runs.append({"seed": seed, "sigma": sigma, "draw": 0, "nominal": score, "refit": score})
    return {"task": "adiac", "ny": 6, "variant": variant, "runs": runs}


def test_the_table_and_its_half_advantage(tmp_path):
    records = [
        record("pretrained", {0.0: [80.0, 80.0], 0.1: [70.0, 70.0], 0.2: [60.0, None]}),
        record("unoptimized", {0.0: [60.0, 60.0], 0.1: [58.0, 62.0], 0.2: [None, None]}),
    ]
    table = robustness_table(records)
    assert list(dict.fromkeys(table["variant"])) == ["unoptimized", "pretrained"]
    row = table[(table.variant == "pretrained") & (table.sigma == 0.2) & (table.protocol == "nominal")].iloc[0]
    assert row["mean"] == 60.0 and row["n_diverged"] == 1
    halves = half_advantage(table)
    assert set(halves["protocol"]) == {"nominal", "refit"}
    assert halves["half_advantage_sigma"].tolist() == pytest.approx([0.1, 0.1])
    render_robustness(table, halves, tmp_path / "robustness")
    md = (tmp_path / "robustness.md").read_text()
    assert "10.0 %" in md and "60.00 ± -- (*)" in md and "--" in md


def test_the_subset_is_seeded_shared_and_keeps_labels_with_their_sequences():
    from physres.data import Split, TaskData
    from physres.robustness import subsampled

    u = np.arange(20.0).reshape(20, 1, 1)
    task = TaskData("adiac", Split(u, np.arange(20)), Split(u[:5], np.arange(5)))
    small = subsampled(task, {"train": 6, "test": None}, seed=0)
    assert len(small.train.u) == 6 and len(small.test.u) == 5
    np.testing.assert_array_equal(small.train.u[:, 0, 0], small.train.label)  # pairs kept
    np.testing.assert_array_equal(subsampled(task, {"train": 6, "test": None}, seed=0).train.label, small.train.label)
    assert subsampled(task, {"train": None, "test": None}, seed=0) == task
