"""Readouts: NRMSE, the forecasting alignment, classification, divergence handling."""
import numpy as np
import pytest

from physres.readout import classification_score, forecasting_pairs, forecasting_score, nrmse


def test_nrmse_closed_form():
    target = np.array([3.0, -4.0])  # RMS = sqrt(12.5)
    assert nrmse(target, target) == 0.0
    assert nrmse(target, np.zeros(2)) == pytest.approx(1.0)
    assert nrmse(target, target + 1.0) == pytest.approx(1.0 / np.sqrt(12.5))


def test_forecasting_pairs_alignment():
    """Feature y(k) (k >= washout) must be paired with u(k + lag)."""
    n_steps, washout, lag = 12, 3, 2
    u = np.arange(2 * n_steps, dtype=float).reshape(2, n_steps, 1)
    states = u[:, washout:, :].repeat(2, axis=2)  # y(k) := (u(k), u(k)) for the test
    x, y = forecasting_pairs(states, u, washout, lag)
    assert x.shape == (2 * (n_steps - washout - lag), 2)
    np.testing.assert_array_equal(y[:, 0], x[:, 0] + lag)
    assert x[0, 0] == washout and y[-1, 0] == u[1, -1, 0]


def test_forecasting_recovers_linear_future():
    """If the state holds u(k + lag) linearly, the ridge readout forecasts almost perfectly."""
    rng = np.random.default_rng(0)
    n_steps, washout, lag = 300, 20, 5
    u = rng.normal(size=(2, n_steps, 1))
    future = np.concatenate([u[:, lag:], np.zeros((2, lag, 1))], axis=1)
    states = np.concatenate([future, rng.normal(size=(2, n_steps, 2))], axis=2)[:, washout:]
    score = forecasting_score(states, u, states, u, washout, lag, alpha=1e-6)
    assert score.metric == "nrmse" and score.value < 1e-3 and not score.diverged


def test_classification_separable_and_chance():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=300)
    separable = np.eye(3)[labels] * 5 + rng.normal(scale=0.1, size=(300, 3))
    assert classification_score(separable[:200], labels[:200], separable[200:], labels[200:]).value == 100.0
    noise = rng.normal(size=(300, 3))
    assert classification_score(noise[:200], labels[:200], noise[200:], labels[200:]).value < 60.0


def test_diverged_runs_get_no_score():
    labels = np.array([0, 1, 0, 1])
    features = np.ones((4, 2))
    features[1, 0] = np.inf
    score = classification_score(features, labels, features, labels)
    assert score.diverged and score.value is None and score.n_nonfinite_sequences == 2
    states = np.zeros((1, 10, 2))
    states[0, 4, 1] = np.nan
    u = np.zeros((1, 12, 1))
    score = forecasting_score(states, u, np.zeros((1, 10, 2)), u, washout=2, lag=1)
    assert score.diverged and score.value is None and score.n_nonfinite_sequences == 1
