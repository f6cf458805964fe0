"""RON: parameter generation, the IMEX-Euler update, f_ref, rollouts."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from physres.ron import RON, f_ref, init_ron, ron_rollout, ron_step, spectral_radius


def small_ron(dt=0.1):
    W = jnp.array([[0.5, -1.0], [2.0, 0.25]])
    V = jnp.array([[1.0], [-0.5]])
    b = jnp.array([0.1, -0.2])
    return RON(W, V, b, gamma=jnp.array([2.0, 3.0]), epsilon=jnp.array([0.5, 1.5]), dt=dt)


def test_discrete_update_matches_hand_computation():
    ron = small_ron(dt=0.1)
    y, ydot, u = np.array([1.0, -2.0]), np.array([0.5, 0.25]), np.array([0.3])
    # by hand: W y + V u + b = [0.5*1 - 1*(-2) + 0.3 + 0.1, 2*1 + 0.25*(-2) - 0.15 - 0.2]
    pre = np.array([0.5 + 2.0 + 0.3 + 0.1, 2.0 - 0.5 - 0.15 - 0.2])
    accel = -np.array([2.0, 3.0]) * y - np.array([0.5, 1.5]) * ydot + np.tanh(pre)
    ydot_next = ydot + 0.1 * accel
    y_next = y + 0.1 * ydot_next  # implicit in position: uses the new velocity
    y_out, ydot_out = ron_step(ron, jnp.asarray(y), jnp.asarray(ydot), jnp.asarray(u))
    np.testing.assert_allclose(ydot_out, ydot_next, rtol=1e-14)
    np.testing.assert_allclose(y_out, y_next, rtol=1e-14)


def test_f_ref_matches_finite_differences_of_fine_rollout():
    """Integrate the continuous RON with a tiny step; the central difference of y' at an
    interior time must equal f_ref there (O(dt) scheme, so a loose but meaningful bound)."""
    ron = init_ron(
        3,
        ny=5,
        nu=1,
        dt=1e-5,
        spectral_radius_target=0.9,
        input_scaling=1.0,
        gamma_range=(1.0, 3.0),
        epsilon_range=(0.5, 1.0),
    )
    u = jnp.full((1, 20001, 1), 0.7)
    y_all = ron_rollout(ron, u, keep="all")[0]
    ydot_all = jnp.diff(y_all, axis=0) / ron.dt  # y'(k+1) = (y(k+1) - y(k)) / dt exactly
    k = 10000
    accel_fd = (ydot_all[k + 1] - ydot_all[k - 1]) / (2 * ron.dt)
    accel = f_ref(ron, y_all[k], ydot_all[k], u[0, k])
    np.testing.assert_allclose(accel_fd, accel, atol=1e-3 * float(jnp.max(jnp.abs(accel))))
    assert float(jnp.max(jnp.abs(accel))) > 1e-2  # a non-trivial state


@pytest.mark.parametrize("rho", [0.9, 0.99, 3.0, 9.0])
def test_spectral_radius_and_ranges(rho):
    ron = init_ron(
        0,
        ny=12,
        nu=5,
        dt=0.05,
        spectral_radius_target=rho,
        input_scaling=0.1,
        gamma_range=(9, 11),
        epsilon_range=(9.5, 10.5),
    )
    assert spectral_radius(np.asarray(ron.W)) == pytest.approx(rho, rel=1e-10)
    assert np.all((0 <= ron.V) & (ron.V <= 0.1))
    assert np.all(np.abs(ron.b) <= 0.1)
    assert np.all((9 <= ron.gamma) & (ron.gamma <= 11))
    assert np.all((9.5 <= ron.epsilon) & (ron.epsilon <= 10.5))


def test_same_seed_same_ron_other_seed_other_ron():
    kwargs = dict(
        ny=6, nu=1, dt=0.05, spectral_radius_target=0.9, input_scaling=1.0, gamma_range=(1, 2), epsilon_range=(1, 2)
    )
    a, b, c = init_ron(0, **kwargs), init_ron(0, **kwargs), init_ron(1, **kwargs)
    assert np.array_equal(a.W, b.W) and np.array_equal(a.V, b.V)
    assert not np.array_equal(a.W, c.W)


def test_rollout_modes_agree(rng):
    ron = init_ron(
        1, ny=6, nu=2, dt=0.05, spectral_radius_target=0.9, input_scaling=1.0, gamma_range=(1, 2), epsilon_range=(1, 2)
    )
    u = jnp.asarray(rng.normal(size=(3, 50, 2)))
    y_all = ron_rollout(ron, u, keep="all")
    assert y_all.shape == (3, 50, 6)
    np.testing.assert_array_equal(ron_rollout(ron, u, keep="final"), y_all[:, -1])
    # batched equals one sequence at a time
    np.testing.assert_allclose(ron_rollout(ron, u[1:2], keep="all")[0], y_all[1], rtol=1e-13)
    low, high = ron_rollout(ron, u, keep="bounds")
    np.testing.assert_allclose(low[0], y_all.min(axis=(0, 1)))
    np.testing.assert_allclose(high[0], y_all.max(axis=(0, 1)))
    ydot = jnp.diff(jnp.concatenate([jnp.zeros((3, 1, 6)), y_all], axis=1), axis=1) / ron.dt
    np.testing.assert_allclose(high[1], ydot.max(axis=(0, 1)), rtol=1e-10)


def test_f_ref_vmaps(rng):
    ron = small_ron()
    y, ydot, u = (jnp.asarray(rng.normal(size=s)) for s in ((7, 2), (7, 2), (7, 1)))
    batched = jax.vmap(f_ref, in_axes=(None, 0, 0, 0))(ron, y, ydot, u)
    np.testing.assert_allclose(batched[3], f_ref(ron, y[3], ydot[3], u[3]))
