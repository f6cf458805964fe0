"""Task-independent reservoir diagnostics (issue 30): linear memory capacity (Jaeger 2001), the
information processing capacity of Dambre et al. (2012) on Legendre polynomials, and the
effective rank behind kernel and generalisation rank (Legenstein and Maass 2007).

The capacities take the states y (T, n) that a reservoir produced for one i.i.d. input u (T,),
uniform in [-1, 1], after its washout. A target z(t) (a delayed input, or a product of Legendre
polynomials of delayed inputs) is fitted by a linear readout with a bias on the first
``train_fraction`` of the steps and scored on the rest: its capacity is
C[z] = max(0, R^2) = max(0, 1 - MSE / Var z) on the held-out steps, so that no capacity comes from
fitting noise; a capacity below ``threshold`` counts as 0 (Dambre's finite-sample cut-off). For a
reservoir of n linearly independent states the capacities over all orthogonal targets sum to at
most n.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import eval_legendre
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score


def capacities(
    states: np.ndarray, targets: np.ndarray, train_fraction: float = 0.5, threshold: float = 0.0
) -> np.ndarray:
    """C of each column of targets (T, m) from states (T, n): held-out R^2, clipped at 0, zeroed
    below threshold; shape (m,)."""
    states, targets = np.asarray(states, np.float64), np.asarray(targets, np.float64)
    if not (np.all(np.isfinite(states)) and np.all(np.isfinite(targets))):
        raise ValueError("capacities of non-finite states: a diverged reservoir has none")
    split = int(train_fraction * len(states))
    readout = LinearRegression().fit(states[:split], targets[:split])
    r2 = np.atleast_1d(r2_score(targets[split:], readout.predict(states[split:]), multioutput="raw_values"))
    c = np.clip(r2, 0.0, 1.0)
    return np.where(c < threshold, 0.0, c)


def delayed(u: np.ndarray, delay: int, max_delay: int) -> np.ndarray:
    """u(t - delay) for t = max_delay .. T - 1, shape (T - max_delay,)."""
    return np.asarray(u)[max_delay - delay : len(u) - delay]


def memory_capacity(states: np.ndarray, u: np.ndarray, max_delay: int, **kwargs) -> np.ndarray:
    """Linear memory capacity MC_k of u(t - k) for k = 0 .. max_delay, shape (max_delay + 1,);
    the total memory capacity is its sum."""
    targets = np.stack([delayed(u, k, max_delay) for k in range(max_delay + 1)], axis=1)
    return capacities(np.asarray(states)[max_delay:], targets, **kwargs)


def legendre_terms(degree: int, max_delay: int) -> list[tuple[tuple[int, int], ...]]:
    """Every product of Legendre polynomials of total degree ``degree`` over delays 0..max_delay:
    tuples of (delay, order) with distinct delays and orders summing to degree."""
    terms = []
    for n_factors in range(1, degree + 1):
        for delays in itertools.combinations(range(max_delay + 1), n_factors):
            for orders in itertools.product(range(1, degree + 1), repeat=n_factors):
                if sum(orders) == degree:
                    terms.append(tuple(zip(delays, orders)))
    return terms


def legendre_target(u: np.ndarray, term, max_delay: int) -> np.ndarray:
    """prod_i P_{order_i}(u(t - delay_i)) for t = max_delay .. T - 1."""
    return np.prod([eval_legendre(order, delayed(u, delay, max_delay)) for delay, order in term], axis=0)


def information_processing_capacity(
    states: np.ndarray, u: np.ndarray, max_delays: dict[int, int], **kwargs
) -> dict[int, float]:
    """Total capacity per degree d (the keys of max_delays, e.g. {1: 30, 2: 10, 3: 5}: the largest
    delay of each degree's products; a degree's count of terms grows as max_delay^d)."""
    window = max(max_delays.values())
    states = np.asarray(states)[window:]
    totals = {}
    for degree, max_delay in sorted(max_delays.items()):
        terms = legendre_terms(degree, max_delay)
        targets = np.stack([legendre_target(u, term, window) for term in terms], axis=1)
        totals[degree] = float(np.sum(capacities(states, targets, **kwargs)))
    return totals


def effective_rank(states: np.ndarray, rtol: float = 1e-6) -> int:
    """Numerical rank of states (N, n): singular values above rtol times the largest. Kernel rank
    is it for N different input streams' final states (higher separates more), generalisation rank
    for N noisy copies of one stream (lower generalises better)."""
    singular_values = np.linalg.svd(np.asarray(states, np.float64), compute_uv=False)
    return int(np.sum(singular_values > rtol * singular_values[0])) if singular_values[0] > 0 else 0
