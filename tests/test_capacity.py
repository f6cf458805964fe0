"""Reservoir diagnostics against closed forms: a delay line of n units remembers exactly n
inputs, a linear reservoir at most n, the capacities of any reservoir sum to at most n, the rank
of a matrix of known rank."""

import numpy as np
import pytest

from physres.capacity import (
    effective_rank,
    information_processing_capacity,
    legendre_terms,
    memory_capacity,
)

T = 6000


@pytest.fixture
def u():
    return np.random.default_rng(0).uniform(-1, 1, size=T)


def delay_line(u, n):
    """x_i(t) = u(t - i), i = 0 .. n-1 (zeros before the start)."""
    return np.stack([np.concatenate([np.zeros(i), u[: len(u) - i]]) for i in range(n)], axis=1)


def test_a_delay_line_of_n_units_has_memory_capacity_n(u):
    mc = memory_capacity(delay_line(u, 5), u, max_delay=12, threshold=0.02)
    np.testing.assert_allclose(mc[:5], 1.0, atol=1e-12)
    np.testing.assert_array_equal(mc[5:], 0.0)
    assert mc.sum() == pytest.approx(5.0, abs=1e-9)


def test_a_linear_reservoir_remembers_at_most_n(u):
    rng = np.random.default_rng(1)
    n = 8
    W = rng.normal(size=(n, n))
    W *= 0.9 / np.max(np.abs(np.linalg.eigvals(W)))
    v = rng.normal(size=n)
    x, states = np.zeros(n), []
    for u_t in u:
        x = W @ x + v * u_t
        states.append(x)
    mc = memory_capacity(np.array(states), u, max_delay=40, threshold=0.02)
    assert 1.0 < mc.sum() <= n + 0.05, mc.sum()


def test_legendre_terms_count_the_products_of_each_degree():
    assert len(legendre_terms(1, 4)) == 5  # P1 of each delay
    assert len(legendre_terms(2, 4)) == 5 + 10  # P2 of each delay, P1 P1 of each pair
    assert len(legendre_terms(3, 3)) == 4 + 4 * 3 + 4  # P3, P2 P1 (ordered pairs), P1 P1 P1
    assert ((0, 1), (2, 2)) in legendre_terms(3, 2)


def test_ipc_of_features_with_known_capacities(u):
    """States [u(t), u(t)^2, u(t-1)]: degree 1 capacity 2 (u(t), u(t-1)), degree 2 capacity 1
    (P2(u(t)) is linear in u(t)^2), degree 3 none; the total is n = 3."""
    states = np.stack([u, u**2, np.concatenate([[0.0], u[:-1]])], axis=1)
    ipc = information_processing_capacity(states, u, {1: 6, 2: 4, 3: 3}, threshold=0.02)
    assert ipc[1] == pytest.approx(2.0, abs=1e-9)
    assert ipc[2] == pytest.approx(1.0, abs=1e-9)
    assert ipc[3] == 0.0


def test_the_total_ipc_of_a_nonlinear_reservoir_is_at_most_n(u):
    rng = np.random.default_rng(2)
    n = 6
    W = rng.normal(size=(n, n))
    W *= 0.8 / np.max(np.abs(np.linalg.eigvals(W)))
    v, b = rng.normal(size=n), rng.normal(size=n)
    x, states = np.zeros(n), []
    for u_t in u:
        x = np.tanh(W @ x + v * u_t + b)  # the bias breaks tanh's symmetry: even degrees appear
        states.append(x)
    ipc = information_processing_capacity(np.array(states), u, {1: 20, 2: 8, 3: 4}, threshold=0.02)
    assert ipc[2] > 0.05 and ipc[3] > 0.0  # a tanh reservoir computes products
    assert sum(ipc.values()) <= n + 0.1, ipc


def test_an_odd_reservoir_has_no_even_capacity(u):
    """tanh without a bias is odd in u: every even-degree capacity vanishes (a closed form of
    the symmetry, Dambre et al. 2012)."""
    states = np.tanh(np.stack([u, 0.5 * u + 0.3 * np.concatenate([[0.0], u[:-1]])], axis=1))
    ipc = information_processing_capacity(states, u, {1: 3, 2: 3, 3: 3}, threshold=0.02)
    assert ipc[2] == 0.0 and ipc[1] > 1.0


def test_effective_rank_of_a_matrix_of_known_rank():
    rng = np.random.default_rng(3)
    low_rank = rng.normal(size=(50, 3)) @ rng.normal(size=(3, 10))
    assert effective_rank(low_rank) == 3
    assert effective_rank(rng.normal(size=(50, 10))) == 10
    assert effective_rank(np.zeros((4, 4))) == 0


def test_capacities_refuse_diverged_states(u):
    states = delay_line(u, 3)
    states[10, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        memory_capacity(states, u, max_delay=3)


def test_states_independent_of_the_input_carry_no_capacity():
    """The finite-sample floor behind config.yaml's diagnostics threshold: 15 states that never saw
    s (white noise plus a random walk) over the config's 6000 steps score a total memory capacity
    below 0.01 over 101 delays (held-out R^2 of noise is mostly negative, so clipped to 0)."""
    rng = np.random.default_rng(0)
    s = rng.uniform(-1, 1, 6000)
    states = rng.normal(size=(6000, 15)) + 0.01 * np.cumsum(rng.normal(size=(6000, 15)), axis=0)
    assert memory_capacity(states, s, max_delay=100, threshold=0.001).sum() < 0.01
