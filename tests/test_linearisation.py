"""The closed loop's local linear dynamics (physres.linearisation) against closed forms and finite
differences."""

import jax.numpy as jnp
import numpy as np
from conftest import small_ron

from physres.linearisation import acceleration_jacobians, closed_loop_matrix, decay_rates, trajectory_states
from physres.ron import f_ref, ron_step


def test_decay_rates_of_linear_oscillators_are_their_characteristic_roots():
    """y_i'' = -gamma_i y_i - eps_i y_i': the roots of s^2 + eps s + gamma, real parts
    -eps/2 when underdamped (eps^2 < 4 gamma), (-eps +- sqrt(eps^2 - 4 gamma)) / 2 when overdamped;
    an undamped, unsprung coordinate has the double root 0."""
    gamma, eps = jnp.array([2.0, 3.0, 0.0]), jnp.array([5.0, 1.0, 0.0])

    def f(y, ydot, u):
        return -gamma * y - eps * ydot

    zeros = jnp.zeros(3)
    rates = np.asarray(decay_rates(f, zeros, zeros, jnp.zeros(1)))
    overdamped = [(-5 + np.sqrt(25 - 8)) / 2, (-5 - np.sqrt(25 - 8)) / 2]
    expected = np.sort(overdamped + [-0.5, -0.5] + [0.0, 0.0])[::-1]
    np.testing.assert_allclose(rates, expected, atol=1e-6)  # a defective double root at 0: ~sqrt(eps) error
    M = np.asarray(closed_loop_matrix(f, zeros, zeros, jnp.zeros(1)))
    np.testing.assert_array_equal(M[:3, 3:], np.eye(3))
    np.testing.assert_array_equal(M[3:, :3], -np.diag(gamma))


def test_jacobians_of_the_ron_match_finite_differences(rng):
    ron = small_ron()
    y, ydot, u = (jnp.asarray(rng.normal(scale=0.3, size=n)) for n in (6, 6, 1))
    stiffness, damping = acceleration_jacobians(lambda y, ydot, u: f_ref(ron, y, ydot, u), y, ydot, u)
    h = 1e-6
    for i in range(6):
        e = jnp.zeros(6).at[i].set(h)
        column = (f_ref(ron, y + e, ydot, u) - f_ref(ron, y - e, ydot, u)) / (2 * h)
        np.testing.assert_allclose(stiffness[:, i], column, rtol=1e-6, atol=1e-9)
        column = (f_ref(ron, y, ydot + e, u) - f_ref(ron, y, ydot - e, u)) / (2 * h)
        np.testing.assert_allclose(damping[:, i], column, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(damping, -np.diag(np.asarray(ron.epsilon)), atol=1e-12)  # the RON's damping is linear


def test_trajectory_states_are_the_states_before_each_input(rng):
    ron = small_ron()
    u = jnp.asarray(rng.uniform(-1, 1, size=(5, 1)))
    zeros = jnp.zeros(6)
    ys, ydots = trajectory_states(lambda y, ydot, u_k: ron_step(ron, y, ydot, u_k), zeros, zeros, u)
    assert ys.shape == ydots.shape == (5, 6)
    np.testing.assert_array_equal(ys[0], zeros)
    y, ydot = zeros, zeros
    for k in range(4):
        y, ydot = ron_step(ron, y, ydot, u[k])
    np.testing.assert_array_equal(ys[4], y)
    np.testing.assert_array_equal(ydots[4], ydot)
