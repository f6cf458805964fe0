"""The tuned-substrate baseline (physres.tuning): the gain scales the drive and nothing else, the
choice is the best validation score (ties to the gain nearest 1), and each (gain, seed) of the
stacked tuning rollout scores as that reservoir alone does."""

import jax
import numpy as np
import pytest
import yaml
from conftest import ROOT

from physres.batching import activations
from physres.data import Split, TaskData
from physres.physical import init_unoptimized_reservoir, with_gain
from physres.readout import validation_score
from physres.reservoirs import PhysicalEnsemble
from physres.tuning import best_gain, choose_gains, gain_grid

RANGES = yaml.safe_load((ROOT / "config.yaml").read_text())["robot"]["init_ranges"]
SIMULATION = dict(reference_dt=2e-3, sim_dt=5e-4, divergence_bound=1e6, precision="float64", interpolation="linear")
READOUT = dict(washout=0, lag=0, C=1.0, max_iter=200, alpha=1.0)


def reservoir(seed):
    return init_unoptimized_reservoir(
        jax.random.PRNGKey(seed), 3, 1, 1, 1, RANGES, torque_scale=0.05, gauss_points=3, bias_range=(-0.2, 0.2)
    )


def test_best_gain_is_the_best_finite_score_nearest_one_on_a_tie():
    assert best_gain({0.1: 50.0, 1.0: 70.0, 10.0: 60.0}, "accuracy") == 1.0
    assert best_gain({0.1: 0.4, 1.0: 0.7, 10.0: None}, "nrmse") == 0.1
    assert best_gain({0.3: 70.0, 1.0: 70.0, 3.0: 70.0}, "accuracy") == 1.0
    assert best_gain({0.1: 70.0, 10.0: 70.0, 3.0: 70.0}, "accuracy") == 3.0
    assert best_gain({0.1: None, 1.0: float("nan")}, "nrmse") is None


def test_gain_one_is_the_unoptimized_reservoir_bit_for_bit_and_others_differ(rng):
    u = rng.uniform(size=(2, 6, 1))
    base = reservoir(0)
    runs = {
        g: PhysicalEnsemble([0], [m], **SIMULATION).all_states(u)[0]
        for g, m in (("none", base), (1.0, with_gain(base, 1.0)), (3.0, with_gain(base, 3.0)))
    }
    np.testing.assert_array_equal(runs[1.0], runs["none"])
    assert not np.allclose(runs[3.0], runs["none"])


def test_tuning_scores_each_gain_as_that_reservoir_alone_and_keeps_the_best(rng):
    n, gains, seeds = 16, [0.3, 1.0, 3.0], [0, 1]
    task = TaskData("smnist", Split(rng.uniform(size=(n, 5, 1)), rng.integers(0, 2, n)), Split(np.zeros((1, 5, 1))))
    bases = [reservoir(seed) for seed in seeds]
    grid = PhysicalEnsemble(list(range(len(gains) * len(seeds))), gain_grid(bases, gains), **SIMULATION)
    states, _ = activations(grid, task.train.u, "classification", 0, n, desc="grid")
    tuning = choose_gains(task, states, seeds, gains, fraction=0.25, split_seed=0, readout=READOUT)
    assert tuning["metric"] == "accuracy" and tuning["gains"] == gains and tuning["untuned"] == []
    for seed, base in zip(seeds, bases):
        for gain in gains:
            alone = PhysicalEnsemble([seed], [with_gain(base, gain)], **SIMULATION)
            states, _ = activations(alone, task.train.u, "classification", 0, n, desc="alone")
            expected = validation_score(task, states[0], 0.25, 0, **READOUT).value
            assert tuning["validation"][seed][str(gain)] == pytest.approx(expected)
        scores = {float(g): v for g, v in tuning["validation"][seed].items()}
        assert tuning["chosen"][seed] == best_gain(scores, "accuracy")
