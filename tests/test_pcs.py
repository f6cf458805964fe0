"""The fused planar PCS kernel (physres.pcs) against soromox, the paper's library: B, K, D, G,
the accelerations (with and without Coriolis) and their gradients, on random states with bends
up to |kappa L| = pi per segment, for 1, 2 and 5 segments, gravity on and off. Up to 2 segments
without Coriolis the kernel runs unrolled; 5 segments and Coriolis take the array form."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml
from conftest import ROOT

from physres import pcs
from physres.robot import pcs_robot, sample_robots

RANGES = yaml.safe_load((ROOT / "config.yaml").read_text())["robot"]["init_ranges"]
UPRIGHT_GRAVITY = (0.0, -9.81)  # against the rest direction of an upright (pi / 2) base
HANGING_GRAVITY = (0.0, 9.81)  # config.yaml's (the thesis's): along it
N_ROBOTS, N_STATES = 2, 6


def relative_error(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    return np.max(np.abs(ours - theirs)) / max(np.max(np.abs(theirs)), 1e-300)  # 0 when both are 0


def random_states(rng, theta, n_states=N_STATES):
    """Q, Q', T (n_states, ny): bends uniform in |kappa L| <= pi per segment, axial and shear
    strains ~0.3; the first state at rest and the second with bends of 1e-9 (series branch)."""
    n_robots, n_pcs = theta.shape[:2]
    q = rng.normal(size=(n_states, n_robots, n_pcs, 3)) * 0.3
    q[..., 0] = rng.uniform(-np.pi, np.pi, size=(n_states, n_robots, n_pcs)) / np.asarray(theta[..., 0])
    q[0], q[1, ..., 0] = 0.0, 1e-9
    flat = lambda x: jnp.asarray(x.reshape(n_states, -1))  # noqa: E731
    return (flat(q), flat(rng.normal(size=q.shape)), flat(rng.normal(size=q.shape) * 1e-3))


def soromox_accelerations(theta, Q, Qdot, T, gravity, coriolis, gauss_points=5, base_angle=np.pi / 2):
    """Q'' from soromox: forward_dynamics (which always has Coriolis) or, without Coriolis, its
    dynamics terms solved as forward_dynamics would; the bases turned by base_angle."""
    n = 3 * theta.shape[1]

    def one_robot(theta_i, q, qd, tau):
        robot = pcs_robot(theta_i, jnp.asarray(gravity), gauss_points, base_angle)
        if coriolis:
            return robot.forward_dynamics(0.0, jnp.concatenate([q, qd]), (tau,))[n:]
        B, _, G = robot.dynamics_terms(q, qd)
        return robot._solve_inertia(B, tau - robot.elastic_force(q) - robot.damping_matrix(q) @ qd - G)

    def one_state(Q, Qdot, T):
        split = lambda x: x.reshape(theta.shape[0], n)  # noqa: E731
        return jax.vmap(one_robot)(theta, split(Q), split(Qdot), split(T)).reshape(-1)

    return jax.vmap(one_state)(Q, Qdot, T)


def robots_theta(n_pcs, seed=0):
    return sample_robots(jax.random.PRNGKey(seed), N_ROBOTS, n_pcs, RANGES).theta()


@pytest.mark.parametrize("n_pcs", [1, 2, 5])
def test_inertia_stiffness_damping_gravity_match_soromox(rng, n_pcs):
    theta = robots_theta(n_pcs)
    Q, Qdot, _ = random_states(rng, theta)
    q = jnp.moveaxis(Q.reshape(N_STATES, N_ROBOTS, n_pcs, 3), 0, -1)  # batch-last
    qdot = jnp.moveaxis(Qdot.reshape(N_STATES, N_ROBOTS, n_pcs, 3), 0, -1)
    forces = jax.jit(pcs.inertia_and_forces, static_argnums=(3, 4, 5))
    B, elastic = forces(theta, q, jnp.zeros_like(q), (0.0, 0.0), 5, False)
    _, elastic_damping = forces(theta, q, qdot, (0.0, 0.0), 5, False)
    _, elastic_gravity = forces(theta, q, jnp.zeros_like(q), pcs.base_frame_gravity(UPRIGHT_GRAVITY), 5, False)
    n = 3 * n_pcs

    @jax.jit
    @functools.partial(jax.vmap, in_axes=(None, 0, 0))  # over states
    def soromox_terms(theta_r, q, qd):
        """soromox's B, K q, D q' and G of one robot (n_pcs, 8) at one state (n,), (n,)."""
        robot = pcs_robot(theta_r, jnp.asarray(UPRIGHT_GRAVITY), 5)
        B, _, G = robot.dynamics_terms(q, qd)
        return B, robot.elastic_force(q), robot.damping_matrix(q) @ qd, G

    for r in range(N_ROBOTS):
        B_sx, elastic_sx, damping_sx, G_sx = soromox_terms(
            theta[r], Q[:, r * n : (r + 1) * n], Qdot[:, r * n : (r + 1) * n]
        )
        for b in range(N_STATES):
            assert relative_error(B[r, ..., b], B_sx[b]) < 1e-12
            np.testing.assert_array_equal(B[r, ..., b], B[r, ..., b].T)  # symmetric by construction
            assert relative_error(elastic[r, :, b], elastic_sx[b]) < 1e-14
            assert relative_error(elastic_damping[r, :, b] - elastic[r, :, b], damping_sx[b]) < 1e-12
            assert relative_error(elastic_gravity[r, :, b] - elastic[r, :, b], G_sx[b]) < 1e-12


@pytest.mark.parametrize("n_pcs", [1, 2, 5])
@pytest.mark.parametrize("coriolis", [False, True])
def test_accelerations_match_soromox(rng, n_pcs, coriolis):
    """config.yaml's robots (the thesis's gravity, [0, +9.81], bases at soromox's upright pi / 2:
    hanging) at its 5 Gauss points; other gravities and base poses are in the next test."""
    theta = robots_theta(n_pcs, seed=n_pcs)
    Q, Qdot, T = random_states(rng, theta)
    ours = jax.jit(pcs.accelerations, static_argnums=(4, 5, 6))(theta, Q, Qdot, T, HANGING_GRAVITY, 5, coriolis)
    theirs = jax.jit(soromox_accelerations, static_argnums=(4, 5))(theta, Q, Qdot, T, HANGING_GRAVITY, coriolis)
    for b in range(N_STATES):  # per state: accelerations span orders of magnitude across states
        assert relative_error(ours[b], theirs[b]) < 1e-10, b


@pytest.mark.parametrize("n_pcs", [1, 2])
def test_compact_form_equals_the_unrolled_one_and_soromox(rng, n_pcs):
    """robot.dynamics "physres_compact": the array form where the unrolled one would run gives the
    same Q'' (the forms differ only in the order of their sums)."""
    theta = robots_theta(n_pcs, seed=20 + n_pcs)
    Q, Qdot, T = random_states(rng, theta)
    form = jax.jit(pcs.accelerations, static_argnums=(4, 5, 6, 7, 8))
    unrolled = form(theta, Q, Qdot, T, UPRIGHT_GRAVITY, 3, False, None, True)
    compact = form(theta, Q, Qdot, T, UPRIGHT_GRAVITY, 3, False, None, False)
    theirs = jax.jit(soromox_accelerations, static_argnums=(4, 5, 6))(theta, Q, Qdot, T, UPRIGHT_GRAVITY, False, 3)
    for b in range(N_STATES):
        assert relative_error(compact[b], unrolled[b]) < 1e-12, b
        assert relative_error(compact[b], theirs[b]) < 1e-10, b


@pytest.mark.parametrize(
    "gravity, base_angle, coriolis",
    [
        ((0.0, 0.0), np.pi / 2, False),  # no gravity (our earlier guess), unrolled
        (UPRIGHT_GRAVITY, np.pi / 2, True),  # gravity against the rest direction, array form
        (HANGING_GRAVITY, 0.3, False),
        (HANGING_GRAVITY, -np.pi / 2, True),
    ],
)
def test_other_gravities_and_turned_bases_match_soromox(rng, gravity, base_angle, coriolis):
    """Gravity off, gravity against the rest direction and bases turned from soromox's upright
    pi / 2, against soromox built with the same base pose (2 segments, each kernel form once per
    case kind): the kernel turns gravity into the base frame."""
    theta = robots_theta(2, seed=7)
    Q, Qdot, T = random_states(rng, theta)
    ours = jax.jit(pcs.accelerations, static_argnums=(4, 5, 6, 7))(theta, Q, Qdot, T, gravity, 5, coriolis, base_angle)
    theirs = jax.jit(soromox_accelerations, static_argnums=(4, 5, 6, 7))(
        theta, Q, Qdot, T, gravity, coriolis, 5, base_angle
    )
    for b in range(N_STATES):
        assert relative_error(ours[b], theirs[b]) < 1e-10, b


def test_theta_rob_builds_the_robot_soromox_builds_from_its_links(rng, n_pcs=2):
    """theta_rob's mapping to the stiffness (E I L, E A L, G A L), damping and mass of each
    segment (physres.robot.pcs_robot) against soromox's own link builder: LinkSpec.circular per
    segment and PlanarPCS.from_links, eagerly, with the same gravity and hanging base. K q, D q',
    B, C q' and G and soromox's forward dynamics agree (to 1e-12)."""
    import soromox as sx

    from physres.robot import REST_STRAIN

    theta = np.asarray(robots_theta(n_pcs, seed=3))[0]  # (n_pcs, 8): L, r, rho, E, G, d_b, d_a, d_s
    gravity, base_angle = jnp.asarray([0.0, 9.81]), np.pi / 2
    links = [
        sx.LinkSpec.circular(
            length=L,
            radius=r,
            density=rho,
            reference_strain=list(REST_STRAIN),
            young_modulus=E,
            shear_modulus=G,
            damping=np.diag([d_b, d_a, d_s]),
        )
        for L, r, rho, E, G, d_b, d_a, d_s in theta
    ]
    built = sx.PlanarPCS.from_links(
        links,
        gravity=gravity,
        structure=sx.PlanarPCSStructure(num_gauss_points=5),
        base_pose=jnp.asarray([base_angle, 0.0, 0.0]),
    )
    ours = pcs_robot(jnp.asarray(theta), gravity, 5, base_angle)

    @jax.jit
    @functools.partial(jax.vmap, in_axes=(None, 0, 0, 0))
    def terms(robot, q, qd, tau):
        state = jnp.concatenate([q, qd])
        forces = (robot.elastic_force(q), robot.damping_matrix(q) @ qd, *robot.dynamics_terms(q, qd))
        return forces + (robot.forward_dynamics(0.0, state, (tau,)),)

    Q, Qdot, T = random_states(rng, theta[None], n_states=3)
    for mine, theirs in zip(terms(ours, Q, Qdot, T), terms(built, Q, Qdot, T)):
        for b in range(len(Q)):
            assert relative_error(mine[b], theirs[b]) < 1e-12


@pytest.mark.parametrize("n_pcs, coriolis", [(1, False), (2, False), (2, True)])  # unrolled, unrolled, array form
def test_gradients_match_soromox(rng, n_pcs, coriolis):
    """d/d(theta_rob, Q, Q') of a random projection of Q'' (what pretraining differentiates), at
    the schema's fewest Gauss points (the forward tests above use config.yaml's 5; the gradient
    of the unrolled kernel compiles in time proportional to the points)."""
    gauss_points = 3
    theta = robots_theta(n_pcs, seed=10 + n_pcs)
    Q, Qdot, T = random_states(rng, theta)
    weights = jnp.asarray(rng.normal(size=Q.shape))

    def projection(accelerations):
        return lambda theta, Q, Qdot: jnp.sum(weights * accelerations(theta, Q, Qdot, T, UPRIGHT_GRAVITY, coriolis))

    def ours_accelerations(theta, Q, Qdot, T, gravity, coriolis):
        return pcs.accelerations(theta, Q, Qdot, T, gravity, gauss_points, coriolis)

    def theirs_accelerations(theta, Q, Qdot, T, gravity, coriolis):
        return soromox_accelerations(theta, Q, Qdot, T, gravity, coriolis, gauss_points)

    ours = jax.jit(jax.grad(projection(ours_accelerations), argnums=(0, 1, 2)))
    theirs = jax.jit(jax.grad(projection(theirs_accelerations), argnums=(0, 1, 2)))
    for name, g_ours, g_theirs in zip(("theta_rob", "Q", "Q'"), ours(theta, Q, Qdot), theirs(theta, Q, Qdot)):
        assert np.all(np.isfinite(g_ours)), name
        assert relative_error(g_ours, g_theirs) < 1e-10, name


@pytest.mark.parametrize("n_pcs", [1, 2])
def test_implicit_gradient_is_the_differentiated_assembly(rng, n_pcs):
    """The unrolled kernel's custom VJP (implicit function theorem) against reverse mode through
    the array form's assembly and solve, for theta_rob, Q, Q' and T, with gravity along the
    robots (config.yaml's): for two starts vmapped as pretraining stacks them, and with theta_rob
    not differentiated (theta_rob fixed)."""
    gauss_points = 3
    thetas = jnp.stack([robots_theta(n_pcs, seed=20 + n_pcs), robots_theta(n_pcs, seed=30 + n_pcs)])
    Q, Qdot, T = random_states(rng, thetas[0])
    weights = jnp.asarray(rng.normal(size=Q.shape))

    def gradient(unrolled, argnums):
        def projection(theta, Q, Qdot, T):
            qddot = pcs.accelerations(theta, Q, Qdot, T, HANGING_GRAVITY, gauss_points, unrolled=unrolled)
            return jnp.sum(weights * qddot)

        return jax.jit(jax.vmap(jax.grad(projection, argnums=argnums), in_axes=(0, None, None, None)))

    for argnums, names in (((0, 1, 2, 3), ("theta_rob", "Q", "Q'", "T")), ((1, 2, 3), ("Q", "Q'", "T"))):
        implicit, differentiated = (gradient(unrolled, argnums)(thetas, Q, Qdot, T) for unrolled in (True, False))
        for name, ours, reference in zip(names, implicit, differentiated):
            assert np.all(np.isfinite(ours)), name
            assert relative_error(ours, reference) < 1e-10, name


def test_quadrature_is_soromox_gauss_legendre():
    """soromox's nodes and weights integrate polynomials of degree 2 G - 1 on [0, 1], but only
    to ~2e-7: its Newton iteration stops at float32 precision (3 nodes: weights sum to
    1 - 1.9e-7), which the kernel keeps so as to stay equal to soromox."""
    for points in (3, 5):
        x, w = pcs.gauss_legendre(points)
        assert len(x) == points
        exact_x, exact_w = np.polynomial.legendre.leggauss(points)
        np.testing.assert_allclose(x, (exact_x + 1) / 2, atol=1e-6)
        for degree in range(2 * points):
            assert abs(np.sum(w * x**degree) - 1.0 / (degree + 1)) < 1e-6


@pytest.mark.parametrize(
    "function, closed_form",
    [
        (pcs.sinc, lambda x: np.sin(x) / x),
        (pcs.cosc, lambda x: (1 - np.cos(x)) / x),
        (pcs.sinc_prime, lambda x: (x * np.cos(x) - np.sin(x)) / x**2),
        (pcs.cosc_prime, lambda x: (x * np.sin(x) - (1 - np.cos(x))) / x**2),
    ],
)
def test_series_join_the_closed_forms(function, closed_form):
    """Each side of SERIES_BELOW, the Taylor series and the closed form agree, and the gradient
    at 0 is finite."""
    x = np.array([0.05, 0.0999999, 0.1000001, 0.3, 2.0, -0.0999999])
    np.testing.assert_allclose(function(jnp.asarray(x)), closed_form(x), rtol=1e-12, atol=1e-15)
    assert np.isfinite(jax.grad(function)(0.0))


@pytest.mark.parametrize("function, derivative", [(pcs.sinc, pcs.sinc_prime), (pcs.cosc, pcs.cosc_prime)])
def test_derivatives_are_derivatives(function, derivative):
    x = jnp.asarray([0.0, 1e-3, 0.0999, 0.1001, 0.7, 3.0])
    np.testing.assert_allclose(jax.vmap(jax.grad(function))(x), derivative(x), rtol=1e-12, atol=1e-14)


@functools.partial(jax.jit, static_argnames=("coriolis", "gravity", "base_angle"))
def energy_rate_and_power(theta, Q, Qdot, T, coriolis, gravity=(0.0, 9.81), base_angle=np.pi / 2):
    """dE/dt along the model's own accelerations (by jvp of pcs.mechanical_energy), the power
    q'(tau - D q') of the torques and dampers, and 1/2 q' B'(q) q', per state."""
    Qddot = pcs.accelerations(theta, Q, Qdot, T, gravity, 5, coriolis, base_angle)
    energy = lambda Q, Qdot: pcs.mechanical_energy(theta, Q, Qdot, gravity, 5, base_angle)  # noqa: E731
    _, rate = jax.jvp(energy, (Q, Qdot), (Qdot, Qddot))
    damping = pcs.segment_constants(theta)[4].reshape(-1)  # (ny,) in Q's order
    power = jnp.sum(Qdot * (T - damping * Qdot), axis=-1)
    massive = theta.at[..., 3:5].set(0.0)  # E = G = 0: the energy is the kinetic one alone
    kinetic = lambda Q: pcs.mechanical_energy(massive, Q, Qdot, (0.0, 0.0), 5, base_angle)  # noqa: E731
    _, inertia_rate = jax.jvp(kinetic, (Q,), (Qdot,))  # d/dt (1/2 q' B q') at fixed q' = 1/2 q' B' q'
    return rate, power, inertia_rate


def test_energy_balance_is_passive_only_with_coriolis(rng, n_pcs=1):
    """With the Coriolis terms the robots are passive: dE/dt = q'(tau - D q') exactly. Without
    them (the paper's model) dE/dt exceeds the power by 1/2 q' B'(q) q', an energy source where
    the robots move fast (why the unoptimized baseline blows up, docs/results.md)."""
    theta = robots_theta(n_pcs, seed=10 + n_pcs)
    Q, Qdot, T = random_states(rng, theta)
    rate, power, inertia_rate = map(np.asarray, energy_rate_and_power(theta, Q, Qdot, T, coriolis=True))
    scale = np.abs(power) + np.abs(inertia_rate)
    assert np.all(np.abs(rate - power) <= 1e-9 * scale)
    rate, power, _ = map(np.asarray, energy_rate_and_power(theta, Q, Qdot, T, coriolis=False))
    assert np.all(np.abs(rate - power - inertia_rate) <= 1e-9 * scale)
    assert np.all(np.abs(inertia_rate[2:]) > 1e-6 * scale[2:])  # bent, moving states: not zero


def test_mechanical_energy_closed_form_for_a_straight_hanging_segment():
    """At rest and unbent, one segment of length L stretched by sigma: 1/2 E A L sigma^2 elastic
    and -rho A g L^2 (1 + sigma) / 2 from gravity along the rest direction."""
    theta = jnp.asarray([[[0.3, 0.02, 1000.0, 2000.0, 1000.0, 1e-5, 1e-3, 1e-3]]])
    L, r, rho, E = 0.3, 0.02, 1000.0, 2000.0
    area = np.pi * r**2
    for sigma in (0.0, 0.4, -0.2):
        Q = jnp.asarray([[0.0, sigma, 0.0]])
        energy = pcs.mechanical_energy(theta, Q, jnp.zeros_like(Q), (0.0, 9.81), 5, np.pi / 2)
        expected = 0.5 * E * area * L * sigma**2 - rho * area * 9.81 * L**2 * (1 + sigma) / 2
        # soromox's quadrature weights (which the kernel keeps) are exact to float32 only
        assert np.asarray(energy)[0] == pytest.approx(expected, rel=2e-7)
