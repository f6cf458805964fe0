"""Physical reservoir: soromox dynamics, the affine map, controllers, the mapped acceleration."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml

from physres.affine_map import init_map
from physres.physical import glorot_mlp, init_physical_reservoir, init_unoptimized_reservoir, parameter_groups
from physres.robot import PARAMETER_NAMES, pcs_robot, robot_acceleration, sample_robots
from physres.simulate import physical_rollout

RANGES = yaml.safe_load(open("config.yaml"))["robot"]["init_ranges"]
# the schema's fewest Gauss points and the kernel's compact form, which compile fastest: for the tests
# that are not of the kernel (tests/test_pcs.py holds both forms to soromox)
FAST_KERNEL = dict(gauss_points=3, dynamics="physres_compact")


@jax.jit
def soromox_qdd(theta, gravity, q, qd, tau):
    """soromox's own forward dynamics (with Coriolis): the reference we compare against."""
    return pcs_robot(theta, gravity).forward_dynamics(0.0, jnp.concatenate([q, qd]), (tau,))[q.shape[0] :]


ours_qdd = jax.jit(robot_acceleration, static_argnums=5)


def random_state(rng, n):
    return (
        jnp.asarray(rng.normal(size=n) * 0.3),
        jnp.asarray(rng.normal(size=n)),
        jnp.asarray(rng.normal(size=n) * 1e-4),
    )


@pytest.mark.parametrize("n_pcs", [1, 2])
def test_dynamics_match_soromox_forward_dynamics_with_coriolis(rng, n_pcs):
    robots = sample_robots(jax.random.PRNGKey(n_pcs), 1, n_pcs, RANGES, coriolis=True)
    theta = robots.theta()[0]
    q, qd, tau = random_state(rng, 3 * n_pcs)
    for gravity in (jnp.zeros(2), jnp.array([0.0, -9.81])):
        reference = soromox_qdd(theta, gravity, q, qd, tau)
        ours = ours_qdd(theta, q, qd, tau, gravity, True)
        np.testing.assert_allclose(ours, reference, rtol=1e-9, atol=1e-9 * float(jnp.max(jnp.abs(reference))))


def test_no_coriolis_equals_soromox_at_zero_velocity(rng):
    robots = sample_robots(jax.random.PRNGKey(0), 1, 2, RANGES, coriolis=False)
    theta = robots.theta()[0]
    q, _, tau = random_state(rng, 6)
    qd = jnp.zeros(6)
    reference = soromox_qdd(theta, jnp.zeros(2), q, qd, tau)
    np.testing.assert_allclose(ours_qdd(theta, q, qd, tau, jnp.zeros(2), False), reference, rtol=1e-9)
    # and with velocity the dropped term is exactly soromox's C q'
    qd = jnp.asarray(rng.normal(size=6))
    B, Cqd, _ = jax.jit(lambda th: pcs_robot(th, jnp.zeros(2)).dynamics_terms(q, qd))(theta)
    diff = ours_qdd(theta, q, qd, tau, jnp.zeros(2), False) - ours_qdd(theta, q, qd, tau, jnp.zeros(2), True)
    np.testing.assert_allclose(B @ diff, Cqd, rtol=1e-8, atol=1e-10 * float(jnp.max(jnp.abs(Cqd))))


def test_three_gauss_points_match_soromox_default_within_bound(rng):
    """robot.gauss_points reaches soromox: for bends |kappa L| <= 1 rad per segment, B(q) with 3
    nodes stays within 1e-5 (relative) of soromox's default 5, and with 2 nodes it does not."""
    theta = sample_robots(jax.random.PRNGKey(4), 1, 2, RANGES).theta()[0]
    bend = rng.uniform(-1.0, 1.0, size=(64, 2)) / np.asarray(theta[:, 0])  # kappa with |kappa L| <= 1
    q = np.tile([0.0, 0.2, 0.2], 2) * rng.uniform(-1.0, 1.0, size=(64, 6))
    q[:, 0::3] = bend

    def inertia(gauss_points):
        robot = pcs_robot(theta, jnp.zeros(2), gauss_points)
        return jax.jit(jax.vmap(lambda x: robot.dynamics_terms(x, jnp.zeros(6))[0]))(jnp.asarray(q))

    default = inertia(5)
    error = lambda n: float(jnp.max(jnp.abs(inertia(n) - default)) / jnp.max(jnp.abs(default)))  # noqa: E731
    assert error(3) < 1e-5  # measured 2.2e-6
    assert error(2) > 1e-4  # measured 9.4e-4


def test_gauss_points_and_dynamics_travel_with_the_reservoir():
    model = init_physical_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, gauss_points=3)
    assert model.robots.gauss_points == 3 and model.robots.dynamics == "physres"
    assert eqx.filter_eval_shape(model.robots.build).gauss_points == 3  # static: no need to run
    model = init_physical_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, gauss_points=3, dynamics="soromox")
    assert eqx.filter_eval_shape(model.robots.build).robots.num_gauss_points == 3
    model = init_physical_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, dynamics="physres_compact")
    assert not eqx.filter_eval_shape(model.robots.build).unrolled
    with pytest.raises(ValueError, match="unknown robot dynamics 'warp'; allowed: physres, physres_compact, soromox"):
        init_physical_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, dynamics="warp")


def assert_last_state_equal(final, last):
    """keep="final" carries only the last state, keep="all" stacks every one: two programs that XLA
    compiles apart, equal bit for bit with the workflow's compiler and to the last bit or so with
    the test suite's (tests/conftest.py)."""
    np.testing.assert_allclose(final, last, rtol=1e-13, atol=1e-15)


def test_rollout_is_the_same_with_either_dynamics(rng):
    """The physical rollout through the fused kernel equals the one through soromox (to the
    kernel's ~1e-12 agreement, amplified a little by the Euler steps). At the schema's fewest
    Gauss points (test_pcs holds the kernel to soromox at 5); keep="final" is the last of "all"
    in the naive-loop tests below (assert_last_state_equal)."""
    u = jnp.asarray(rng.uniform(size=(3, 4, 1)))
    rollouts = [
        physical_rollout(
            init_physical_reservoir(jax.random.PRNGKey(1), 6, 1, 1, 2, RANGES, gauss_points=3, dynamics=d),
            u,
            2e-3,
            5e-4,
        )[0]
        for d in ("physres", "soromox")
    ]
    np.testing.assert_allclose(rollouts[0], rollouts[1], rtol=1e-9, atol=1e-12 * float(jnp.max(jnp.abs(rollouts[1]))))


def test_stacked_robots_are_independent(rng):
    robots = sample_robots(jax.random.PRNGKey(3), 3, 1, RANGES)
    Q, Qd, T = random_state(rng, 9)
    stacked = eqx.filter_jit(robots.acceleration)(Q, Qd, T)
    for i in range(3):
        sl = slice(3 * i, 3 * i + 3)
        one = ours_qdd(robots.theta()[i], Q[sl], Qd[sl], T[sl], jnp.zeros(2), False)
        np.testing.assert_allclose(stacked[sl], one, rtol=1e-12)


def test_initial_robot_parameters_in_paper_ranges():
    theta = np.asarray(sample_robots(jax.random.PRNGKey(0), 5, 2, RANGES).theta())
    for i, name in enumerate(PARAMETER_NAMES):
        low, high = RANGES[name]
        assert np.all((theta[..., i] >= low * (1 - 1e-9)) & (theta[..., i] <= high * (1 + 1e-9))), name


@pytest.mark.parametrize("bases", ["free", "orthogonal"])
def test_map_inverse_and_jacobians(rng, bases):
    amap = init_map(jax.random.PRNGKey(0), 6, sigma=0.003, s_min=1e-4, bases=bases)
    # move every trainable part of the map away from its initial value
    noise = lambda x: x + 0.1 * jnp.asarray(rng.normal(size=x.shape))  # noqa: E731
    parts = (lambda m: (m.U, m.V, m.s_raw, m.c)) if bases == "free" else (lambda m: (m.P_U, m.P_V, m.s_raw, m.c))
    amap = eqx.tree_at(parts, amap, tuple(noise(x) for x in parts(amap)))
    y = jnp.asarray(rng.normal(size=6))
    np.testing.assert_allclose(amap.psi(amap.phi(y)), y, rtol=1e-10)
    A = amap.matrix()
    np.testing.assert_allclose(jax.jacfwd(amap.phi)(y), A, rtol=1e-12)
    np.testing.assert_allclose(jax.jacfwd(amap.psi)(amap.phi(y)), np.linalg.inv(A), rtol=1e-8)
    np.testing.assert_allclose(jax.hessian(amap.psi)(y), 0.0, atol=1e-12)  # affine: D^2 psi = 0
    U, s, V = amap.factors()
    np.testing.assert_allclose(A, (U * s) @ V.T, rtol=1e-12)
    assert np.all(s > 1e-4)
    if bases == "orthogonal":  # then s are A's singular values
        np.testing.assert_allclose(U.T @ U, np.eye(6), atol=1e-12)
        np.testing.assert_allclose(V.T @ V, np.eye(6), atol=1e-12)
        np.testing.assert_allclose(np.sort(np.linalg.svd(A, compute_uv=False)), np.sort(s), rtol=1e-10)
    else:  # the bases moved off orthogonality: they are trained as free matrices
        assert not np.allclose(U.T @ U, np.eye(6), atol=1e-3)


def test_initial_map_as_paper_and_alike_for_both_bases():
    maps = [init_map(jax.random.PRNGKey(1), 9, sigma=0.003, s_min=1e-4, bases=b) for b in ("free", "orthogonal")]
    np.testing.assert_allclose(np.linalg.svd(maps[0].matrix(), compute_uv=False), 0.003, rtol=1e-12)
    np.testing.assert_allclose(maps[0].matrix(), maps[1].matrix(), rtol=1e-12, atol=0)
    assert all(np.all(m.c == 0) for m in maps)
    with pytest.raises(ValueError, match="pretrain.map_bases 'polar'; allowed: free, orthogonal"):
        init_map(jax.random.PRNGKey(1), 9, sigma=0.003, s_min=1e-4, bases="polar")


def test_mapped_acceleration_is_the_chain_rule(rng):
    """y''_hat = D psi(Q)[Q''] + D^2 psi(Q)[Q', Q'] computed with autodiff on psi."""
    model = init_physical_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, gauss_points=3)
    y, yd, u = (jnp.asarray(rng.normal(size=n) * 0.1) for n in (6, 6, 1))
    Q, Qd = model.map.phi(y), jax.jvp(model.map.phi, (y,), (yd,))[1]
    Qdd = eqx.filter_jit(model.robots.acceleration)(Q, Qd, model.actuation(Q, Qd, u))
    d_psi = jax.jvp(model.map.psi, (Q,), (Qdd,))[1]
    d2_psi = jax.jvp(lambda x: jax.jvp(model.map.psi, (x,), (Qd,))[1], (Q,), (Qd,))[1]
    np.testing.assert_allclose(eqx.filter_jit(model.mapped_acceleration)(y, yd, u), d_psi + d2_psi, rtol=1e-9)


def test_glorot_initialisation():
    mlp = glorot_mlp(jax.random.PRNGKey(0), 12, 6, 64, 2)
    assert len(mlp.layers) == 3
    for layer in mlp.layers:
        fan_out, fan_in = layer.weight.shape
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        assert np.all(np.abs(layer.weight) <= bound) and np.abs(layer.weight).max() > 0.8 * bound
        assert np.all(layer.bias == 0)
    assert mlp.activation is jnp.tanh
    scaled = glorot_mlp(jax.random.PRNGKey(0), 12, 6, 64, 2, scale=1e-3)  # the thesis code's scale_init
    for layer, plain in zip(scaled.layers, mlp.layers):
        np.testing.assert_allclose(layer.weight, 1e-3 * plain.weight, rtol=1e-15)
        assert np.all(layer.bias == 0)


def test_simplified_controller_shapes():
    model = init_physical_reservoir(jax.random.PRNGKey(0), 9, 5, 3, 1, RANGES, controller="simplified", gauss_points=3)
    assert model.feedforward.weight.shape == (9, 5)  # linear T_ff = V u + d
    assert [l.weight.shape for l in model.feedback.layers] == [(16, 18), (9, 16)]


def test_linear_controllers_take_their_own_initial_scale():
    """The thesis code scales a controller without hidden layers by 1e-5, its MLPs by 1e-3."""
    key = jax.random.PRNGKey(0)
    build = lambda **scales: init_physical_reservoir(  # noqa: E731
        key, 9, 5, 3, 1, RANGES, controller="simplified", gauss_points=3, controller_init_scale=1e-3, **scales
    )
    plain = init_physical_reservoir(key, 9, 5, 3, 1, RANGES, controller="simplified", gauss_points=3)
    split, same = build(linear_controller_init_scale=1e-5), build()
    np.testing.assert_allclose(split.feedforward.weight, 1e-5 * plain.feedforward.weight, rtol=1e-15)
    np.testing.assert_allclose(same.feedforward.weight, 1e-3 * plain.feedforward.weight, rtol=1e-15)
    for model in (split, same):  # the 1 x 16 feedback MLP keeps the MLPs' scale
        for layer, reference in zip(model.feedback.layers, plain.feedback.layers):
            np.testing.assert_allclose(layer.weight, 1e-3 * reference.weight, rtol=1e-15)


def test_gradients_finite_for_every_parameter_group(rng):
    """Every group of pretraining's parameters gets a finite, nonzero gradient of a loss on y''_hat.
    The kernel's compact form: the unrolled form's gradient is held to soromox's in test_pcs."""
    model = init_physical_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, **FAST_KERNEL)
    batch = [jnp.asarray(rng.normal(size=(16, n)) * 0.1) for n in (6, 6, 1)]

    def loss(m):
        return jnp.mean(jax.vmap(m.mapped_acceleration)(*batch) ** 2)

    grads = eqx.filter_jit(eqx.filter_grad(loss))(model)
    for name, group in parameter_groups(grads).items():
        leaves = [x for x in jax.tree_util.tree_leaves(group) if hasattr(x, "dtype")]
        assert leaves and all(np.all(np.isfinite(x)) for x in leaves), name
        assert any(np.any(x != 0) for x in leaves), name


def test_euler_rollout_matches_a_naive_loop(rng):
    model = init_physical_reservoir(jax.random.PRNGKey(2), 6, 1, 1, 2, RANGES, controller="simplified", gauss_points=3)
    u = jnp.asarray(rng.uniform(size=(3, 1)))
    dt_ref, dt = 2e-3, 1e-3
    Q, Qd = model.map.c, jnp.zeros(6)
    expected, velocities = [], []
    accel = eqx.filter_jit(model.robots.acceleration)
    for u_k in u:  # per-substep loop that recomputes everything
        for _ in range(2):
            T = model.feedback(jnp.concatenate([Q, Qd])) + model.feedforward(u_k)
            Q, Qd = Q + dt * Qd, Qd + dt * accel(Q, Qd, T)
        expected.append(Q)
        velocities.append(Qd)
    Qs, peak = physical_rollout(model, u[None], dt_ref, dt, interpolation="held")
    np.testing.assert_allclose(Qs[0], np.stack(expected), rtol=1e-10, atol=1e-14)
    final, _ = physical_rollout(model, u[None], dt_ref, dt, keep="final", interpolation="held")
    assert_last_state_equal(final[0], Qs[0, -1])
    np.testing.assert_allclose(peak[0], np.max(np.abs(np.concatenate([np.stack(expected), np.stack(velocities)], 1))))


def test_interpolated_rollout_matches_a_naive_loop(rng):
    """The default input path, u linear between samples (the thesis code's): Q at each sample's
    time, the first being the initial state; at each substep T_ff of u at that substep's start."""
    model = init_physical_reservoir(jax.random.PRNGKey(2), 6, 1, 1, 2, RANGES, controller="simplified", gauss_points=3)
    u = jnp.asarray(rng.uniform(size=(4, 1)))
    dt_ref, dt = 2e-3, 5e-4
    Q, Qd = model.map.c, jnp.zeros(6)
    expected = [Q]
    accel = eqx.filter_jit(model.robots.acceleration)
    for u_from, u_to in zip(u[:-1], u[1:]):
        for j in range(4):
            u_t = u_from + (j / 4) * (u_to - u_from)
            T = model.feedback(jnp.concatenate([Q, Qd])) + model.feedforward(u_t)
            Q, Qd = Q + dt * Qd, Qd + dt * accel(Q, Qd, T)
        expected.append(Q)
    Qs, _ = physical_rollout(model, u[None], dt_ref, dt)
    np.testing.assert_allclose(Qs[0], np.stack(expected), rtol=1e-10, atol=1e-14)
    final, _ = physical_rollout(model, u[None], dt_ref, dt, keep="final")
    assert_last_state_equal(final[0], Qs[0, -1])


def test_interpolated_rollout_matches_one_diffrax_solve_over_the_whole_sequence(rng):
    """An independent reference, the thesis code's way of driving the robots: one diffrax Euler
    solve over [0, t_K-1] with u a LinearInterpolation over all sample times, saved at them."""
    import diffrax

    from physres.simulate import vector_field

    model = init_unoptimized_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, torque_scale=0.01, gauss_points=3)
    u = jnp.asarray(rng.uniform(size=(2, 12, 1)))
    dt_ref, dt = 2e-3, 2.5e-4
    ts = dt_ref * jnp.arange(u.shape[1])
    path = diffrax.LinearInterpolation(ts=ts, ys=jnp.swapaxes(u, 0, 1))
    dynamics = model.robots.build()

    def field(t, state, args):
        return vector_field(t, state, (model, dynamics, jax.vmap(model.feedforward_torque)(path.evaluate(t))))

    Q0 = jnp.zeros((2, 6))
    reference = diffrax.diffeqsolve(
        diffrax.ODETerm(field),
        diffrax.Euler(),
        0.0,
        ts[-1],
        dt,
        (Q0, Q0),
        saveat=diffrax.SaveAt(ts=ts),
        max_steps=None,
    ).ys[0]
    Qs, _ = physical_rollout(model, u, dt_ref, dt)
    np.testing.assert_allclose(Qs, jnp.swapaxes(reference, 0, 1), rtol=1e-9, atol=1e-12 * float(jnp.max(jnp.abs(Qs))))


def test_the_reference_is_compared_at_the_rollout_times():
    """The RON's states after each input, y(1) .. y(K), against an interpolated rollout's at
    t_0 .. t_{K-1}: shifted by one sample with the resting state first; unchanged when held."""
    from physres.simulate import at_sample_times

    y_after = jnp.arange(1.0, 13.0).reshape(2, 3, 2)
    np.testing.assert_array_equal(at_sample_times(y_after, "held"), y_after)
    shifted = np.asarray(at_sample_times(y_after, "linear"))
    np.testing.assert_array_equal(shifted[:, 0], 0.0)
    np.testing.assert_array_equal(shifted[:, 1:], y_after[:, :-1])


def test_a_constant_input_gives_the_same_states_either_way(rng):
    """With u constant the two paths coincide, the linear one's states one sample later (its
    first state is the initial one)."""
    model = init_unoptimized_reservoir(jax.random.PRNGKey(1), 6, 1, 1, 2, RANGES, gauss_points=3)
    u = jnp.broadcast_to(jnp.asarray(rng.uniform(size=(3, 1, 1))), (3, 6, 1))
    held, _ = physical_rollout(model, u, 2e-3, 5e-4, interpolation="held")
    linear, _ = physical_rollout(model, u, 2e-3, 5e-4, interpolation="linear")
    np.testing.assert_allclose(linear[:, 1:], held[:, :-1], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(linear[:, 0], 0.0)
    with pytest.raises(ValueError, match="interpolation 'cubic'; allowed: linear, held"):
        physical_rollout(model, u, 2e-3, 5e-4, interpolation="cubic")


def test_euler_rollout_converges_at_first_order(rng):
    """Halving the Euler step halves the error (what makes a coarser step, quick.yaml's 0.5 ms, a
    controlled approximation): errors against a 16x finer step for steps 4h, 2h and h."""
    from physres.physical import init_unoptimized_reservoir

    model = init_unoptimized_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, torque_scale=0.01, gauss_points=3)
    u = jnp.asarray(rng.uniform(size=(2, 10, 1)))
    reference_dt, h = 2e-3, 5e-5
    reference, _ = physical_rollout(model, u, reference_dt, h / 16)
    errors = [
        float(jnp.max(jnp.abs(physical_rollout(model, u, reference_dt, k * h)[0] - reference))) for k in (4, 2, 1)
    ]
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 1.7) & (ratios < 2.4)), (errors, ratios)


THESIS_ENCODING = dict(strain_scales=(1e-3, 0.1, 1e-2), input_range=(0.0, 1.0), bias_range=(-1.0, 1.0))


def test_unoptimized_reservoir_encoding_and_robots():
    from physres.physical import init_unoptimized_reservoir

    model = init_physical_reservoir(jax.random.PRNGKey(5), 6, 2, 1, 2, RANGES)
    unopt = init_unoptimized_reservoir(
        jax.random.PRNGKey(5), 6, 2, 1, 2, RANGES, input_range=(-0.5, 0.5), bias_range=(-0.2, 0.2), torque_scale=0.01
    )
    # with the same key, the unoptimized robots are those a start draws (the workflow keys them per task)
    np.testing.assert_array_equal(unopt.robots.theta(), model.robots.theta())
    enc = unopt.encoding
    assert np.all(np.abs(enc.V) <= 0.5) and np.all(np.abs(enc.d) <= 0.2)
    assert (enc.V < 0).any() and (enc.V > 0).any()  # a symmetric range draws both signs
    u = jnp.asarray([0.3, -1.2])
    np.testing.assert_allclose(
        unopt.feedforward_torque(u), 0.01 * np.tanh(np.asarray(enc.V) @ np.asarray(u) + np.asarray(enc.d))
    )
    Q = jnp.arange(6.0)
    np.testing.assert_array_equal(unopt.feedback_torque(Q, Q), np.zeros(6))
    np.testing.assert_array_equal(unopt.readout_coordinates(Q), Q)
    np.testing.assert_array_equal(unopt.initial_Q(), np.zeros(6))


def test_unoptimized_encoding_per_strain_scales_and_one_sided_V():
    """The thesis's encoding: V = s U(0, 1) (one-sided), d = s U(-1, 1), s = [1e-3, 0.1, 1e-2]
    per [bending, axial, shear] repeated per segment, inside the tanh; nothing outside it."""
    from physres.physical import init_unoptimized_reservoir

    key = jax.random.PRNGKey(8)
    thesis = init_unoptimized_reservoir(key, 12, 2, 2, 2, RANGES, **THESIS_ENCODING).encoding
    unit = init_unoptimized_reservoir(key, 12, 2, 2, 2, RANGES, input_range=(0.0, 1.0)).encoding
    s = np.tile([1e-3, 0.1, 1e-2], 4)
    # the scales multiply the same draws row by row: bending, axial, shear of each of 4 segments
    np.testing.assert_array_equal(np.asarray(thesis.V), s[:, None] * np.asarray(unit.V))
    np.testing.assert_array_equal(np.asarray(thesis.d), s * np.asarray(unit.d))
    V, d = np.asarray(thesis.V), np.asarray(thesis.d)
    assert (V >= 0).all() and (V <= s[:, None]).all() and (np.abs(d) <= s).all()
    for strain, scale in enumerate((1e-3, 0.1, 1e-2)):  # each strain's rows fill their own range
        assert V[strain::3].max() > 0.5 * scale and np.abs(d[strain::3]).max() > 0.3 * scale
    assert thesis.torque_scale == 1.0
    u = jnp.asarray([0.7, 0.2])
    np.testing.assert_array_equal(thesis(u), jnp.tanh(thesis.V @ u + thesis.d))


def test_unoptimized_robots_ranges_and_shared_draw():
    """robot_ranges replaces the pretraining starts' ranges; robot_draw 'shared' gives every
    segment of every robot one theta (the thesis's random reservoirs), 'per_segment' does not."""
    from physres.physical import init_unoptimized_reservoir
    from physres.robot import PARAMETER_NAMES

    thesis_ranges = dict(RANGES, length=[0.07, 0.3], radius=[0.007, 0.05])
    key = jax.random.PRNGKey(9)
    shared = init_unoptimized_reservoir(key, 12, 1, 2, 2, RANGES, robot_ranges=thesis_ranges, robot_draw="shared")
    theta = np.asarray(shared.robots.theta())  # (2 robots, 2 segments, 8)
    np.testing.assert_allclose(theta, np.broadcast_to(theta[0, 0], theta.shape), rtol=1e-12)
    for i, name in enumerate(PARAMETER_NAMES):
        low, high = thesis_ranges[name]
        assert low <= theta[0, 0, i] <= high, name
    per_segment = np.asarray(init_unoptimized_reservoir(key, 12, 1, 2, 2, RANGES).robots.theta())
    assert len({tuple(row) for row in per_segment.reshape(-1, 8)}) == 4
    with pytest.raises(ValueError, match="allowed: per_segment, shared"):
        init_unoptimized_reservoir(key, 12, 1, 2, 2, RANGES, robot_draw="twice")


def test_robots_from_theta_round_trips_theta_rob():
    """robots_from_theta stores theta_rob unconstrained above its minimum; theta() gives it back."""
    from physres.robot import robots_from_theta

    theta = np.broadcast_to([0.2, 0.03, 1000.0, 2000.0, 1000.0, 2e-5, 2e-2, 3e-2], (2, 3, 8))
    minimum = [1e-3, 1e-4, 9.0, 18.0, 8.0, 5e-9, 5e-6, 5e-6]
    robots = robots_from_theta(theta, minimum, (0.0, 9.81), False, 5, "physres", np.pi / 2)
    np.testing.assert_allclose(np.asarray(robots.theta()), theta, rtol=1e-12)
    assert robots.minimum == tuple(minimum) and (robots.n_robots, robots.n_pcs) == (2, 3)


def test_thesis_draw_follows_the_thesis_codes_key_order():
    """The thesis code's random reservoir of a seed: key(seed) split in 9, keys 1-8 one uniform
    scalar each in THESIS_DRAW_ORDER (L, the three dampings, r, rho, E, G), shared by every segment;
    key 0 split in 3 for V (second) and d (third), scaled per strain. Recomputed here key by key."""
    from physres.physical import THESIS_DRAW_ORDER, THESIS_SEEDS, init_thesis_unoptimized_reservoir

    unoptimized = yaml.safe_load(open("config.yaml"))["benchmark"]["unoptimized"]  # the thesis's ranges, shared
    ranges = unoptimized["robot_ranges"]
    seed = THESIS_SEEDS[3]
    model = init_thesis_unoptimized_reservoir(seed, 6, 5, 1, 2, **unoptimized)
    key, *keys = jax.random.split(jax.random.key(seed), 9)
    expected = {
        name: float(jax.random.uniform(k, minval=ranges[name][0], maxval=ranges[name][1]))
        for name, k in zip(THESIS_DRAW_ORDER, keys)
    }
    theta = np.asarray(model.robots.theta())
    for i, name in enumerate(PARAMETER_NAMES):
        np.testing.assert_allclose(theta[..., i], expected[name], rtol=1e-12, err_msg=name)
    _, k_v, k_d = jax.random.split(key, 3)
    s = np.tile(unoptimized["strain_scales"], 2)
    np.testing.assert_allclose(model.encoding.V, s[:, None] * np.asarray(jax.random.uniform(k_v, (6, 5))), rtol=1e-15)
    d = np.asarray(jax.random.uniform(k_d, (6,), minval=-1.0, maxval=1.0))
    np.testing.assert_allclose(model.encoding.d, s * d, rtol=1e-15)
    with pytest.raises(ValueError, match="robot_draw 'shared'"):
        init_thesis_unoptimized_reservoir(seed, 6, 5, 1, 2, **(unoptimized | {"robot_draw": "per_segment"}))


def test_gravity_enters_pretraining_and_rollouts_identically():
    """One function (physres.robot.sample_robots) builds the robots of a pretraining start and of
    the unoptimized baseline, with the same gravity and base angle; pretraining's y''_hat and the
    rollout's step both go through robots.build(). Physics: hanging (g along the rest direction)
    pulls a bent segment back, an upright arm (g against it) pushes it further."""
    from physres.physical import init_unoptimized_reservoir

    key, hanging = jax.random.PRNGKey(11), dict(gravity=(0.0, 9.81), base_angle=np.pi / 2)
    start = init_physical_reservoir(key, 6, 1, 1, 2, RANGES, **hanging)
    baseline = init_unoptimized_reservoir(key, 6, 1, 1, 2, RANGES, **hanging)
    assert (start.robots.gravity, start.robots.base_angle) == ((0.0, 9.81), np.pi / 2)
    Q, Qdot, T = jnp.linspace(-0.2, 0.3, 6), jnp.linspace(0.1, -0.1, 6), jnp.linspace(-1e-3, 1e-3, 6)
    np.testing.assert_array_equal(
        start.robots.accelerations(Q[None], Qdot[None], T[None]),
        baseline.robots.accelerations(Q[None], Qdot[None], T[None]),
    )
    # pretraining's mapped acceleration is A^-1 of the very robots' Q'' at the mapped state
    y, ydot, u = jnp.linspace(-1, 1, 6), jnp.linspace(0.5, -0.5, 6), jnp.asarray([0.4])
    A, A_inv = start.map.matrices()
    Q_phi, Qdot_phi = A @ y + start.map.c, A @ ydot
    Qddot = start.robots.build().accelerations(Q_phi[None], Qdot_phi[None], start.actuation(Q_phi, Qdot_phi, u)[None])
    np.testing.assert_allclose(start.mapped_acceleration(y, ydot, u), A_inv @ Qddot[0], rtol=1e-10, atol=1e-12)
    # gravity's generalized force G(q) on one bent segment, from the robots' own gravity and base
    # angle: hanging, it acts like the stiffness (restoring the bend) and stretches the segment;
    # upright, it is the opposite
    from physres import pcs

    bent = jnp.asarray([0.05, 0.0, 0.0]).reshape(1, 1, 3, 1)

    def gravity_force(gravity):
        robots = init_unoptimized_reservoir(key, 3, 1, 1, 1, RANGES, gravity=gravity).robots
        environment = pcs.base_frame_gravity(robots.gravity, robots.base_angle)
        force = lambda g: pcs.inertia_and_forces(robots.theta(), bent, jnp.zeros_like(bent), g, 5, False)[1]  # noqa: E731
        return np.asarray(force(environment) - force((0.0, 0.0))).ravel()  # [bending, axial, shear]

    hanging_force, upright_force = gravity_force((0.0, 9.81)), gravity_force((0.0, -9.81))
    assert hanging_force[0] > 0 and hanging_force[1] < 0
    np.testing.assert_allclose(upright_force, -hanging_force, rtol=1e-12)


def test_pretrained_readout_coordinates_invert_the_map(rng):
    model = init_physical_reservoir(jax.random.PRNGKey(6), 6, 1, 1, 2, RANGES, gauss_points=3)
    y = jnp.asarray(rng.normal(size=(3, 6)))
    Q = jax.vmap(model.map.phi)(y)
    np.testing.assert_allclose(model.readout_coordinates(Q), y, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(model.initial_Q(), model.map.c)


def test_rollout_past_the_divergence_bound_is_nan(rng):
    model = init_physical_reservoir(jax.random.PRNGKey(2), 6, 1, 1, 2, RANGES, controller="simplified", gauss_points=3)
    u = jnp.asarray(rng.uniform(size=(2, 3, 1)))
    Qs, peak = (np.asarray(x) for x in physical_rollout(model, u, 2e-3, 1e-3))
    worst = int(np.argmax(peak))
    bound = peak[worst] / 2  # crossed during the worst sequence's rollout
    Qs_bounded, peak_bounded = (np.asarray(x) for x in physical_rollout(model, u, 2e-3, 1e-3, divergence_bound=bound))
    assert peak_bounded[worst] > bound and np.isnan(Qs_bounded[worst, -1]).all()
    finite = np.isfinite(Qs_bounded)
    np.testing.assert_array_equal(Qs_bounded[finite], Qs[finite])  # unchanged until the bound is crossed
    np.testing.assert_array_equal(peak_bounded[peak <= bound], peak[peak <= bound])


def test_ensemble_of_seeds_equals_each_reservoir_alone(rng):
    """The seeds of a variant run stacked in one vmapped program: each member's activations and
    peaks must be those of its own rollout, for pretrained-style and unoptimized reservoirs."""
    from physres.batching import activations
    from physres.physical import init_unoptimized_reservoir
    from physres.reservoirs import PhysicalEnsemble

    u = rng.uniform(size=(3, 4, 1))
    for init in (
        lambda k: init_physical_reservoir(k, 6, 1, 1, 2, RANGES, controller="simplified", **FAST_KERNEL),
        lambda k: init_unoptimized_reservoir(k, 6, 1, 1, 2, RANGES, torque_scale=0.01, **FAST_KERNEL),
    ):
        members = [init(jax.random.PRNGKey(s)) for s in (3, 4)]
        ensemble = PhysicalEnsemble([3, 4], members, 2e-3, 1e-3, divergence_bound=1e6)
        states, peak = activations(ensemble, u, "forecasting", washout=1, chunk_size=2, desc="test")
        assert states.shape == (2, 3, 3, 6) and peak.shape == (2, 3)
        for i, member in enumerate(members):
            Qs, member_peak = physical_rollout(member, u, 2e-3, 1e-3, divergence_bound=1e6)
            np.testing.assert_allclose(
                states[i], np.asarray(member.readout_coordinates(Qs))[:, 1:], rtol=1e-12, atol=1e-15
            )
            np.testing.assert_allclose(peak[i], member_peak, rtol=1e-12)
        final, _ = activations(ensemble, u, "classification", washout=0, chunk_size=2, desc="test")
        np.testing.assert_allclose(final, states[:, :, -1], rtol=1e-12, atol=1e-15)


def test_ensemble_needs_one_file_per_seed():
    from physres.reservoirs import load_ensemble

    for variant in ("ron", "pretrained"):
        with pytest.raises(ValueError, match=f"{variant}: 1 reservoir files for 2 seeds"):
            load_ensemble(variant, ["only_one.h5"], [0, 1])
    with pytest.raises(ValueError, match="allowed: ron, unoptimized, partial, pretrained"):
        load_ensemble("digital", [], [0])


def test_unoptimized_reservoirs_are_drawn_per_task_ny_and_seed():
    """The paper's four random unoptimized reservoirs per experiment: independent between tasks
    (the same ny), reproducible for the same (task, ny, seed)."""
    from physres.reservoirs import load_ensemble

    architecture = dict(
        ny=6,
        nu=1,
        n_robots=1,
        n_pcs=2,
        init_ranges=RANGES,
        gravity=(0.0, 0.0),
        coriolis=False,
        minimum_fraction=0.01,
        gauss_points=3,
        dynamics="physres",
        base_angle=np.pi / 2,
    )
    unoptimized = dict(
        strain_scales=(1.0, 1.0, 1.0),
        input_range=(-1.0, 1.0),
        bias_range=(-1.0, 1.0),
        torque_scale=0.01,
        robot_ranges=None,
        robot_draw="per_segment",
    )

    def robots(task):
        ensemble = load_ensemble(
            "unoptimized",
            [],
            [0, 1],
            architecture=architecture,
            unoptimized=unoptimized,
            reference_dt=2e-3,
            sim_dt=1e-3,
            task=task,
        )
        return np.asarray(jax.vmap(lambda r: r.theta())(ensemble.stacked.robots))  # (seeds, N, n_pcs, 8)

    smnist, adiac = robots("smnist"), robots("adiac")
    np.testing.assert_array_equal(smnist, robots("smnist"))
    assert not np.any(np.isclose(smnist, adiac))  # no parameter shared between tasks
    assert not np.any(np.isclose(smnist[0], smnist[1]))  # nor between seeds
    with pytest.raises(ValueError, match="the task is needed"):
        load_ensemble("unoptimized", [], [0], architecture=architecture, unoptimized=unoptimized)


def test_reservoirs_share_the_abstract_interface_and_check_their_layout():
    """Both physical reservoirs are AbstractPhysicalReservoirs; the abstract one cannot be built,
    and a reservoir whose robots do not have 3 strains per coordinate is refused at construction."""
    from physres.physical import (
        AbstractPhysicalReservoir,
        PhysicalReservoir,
        UnoptimizedReservoir,
        init_unoptimized_reservoir,
        stack_models,
    )

    ranges = RANGES
    key = jax.random.PRNGKey(0)
    pretrained = init_physical_reservoir(key, 6, 1, 1, 2, ranges)
    unoptimized = init_unoptimized_reservoir(key, 6, 1, 1, 2, ranges)
    assert isinstance(pretrained, AbstractPhysicalReservoir) and isinstance(unoptimized, AbstractPhysicalReservoir)
    with pytest.raises(TypeError):
        AbstractPhysicalReservoir()
    with pytest.raises(ValueError, match="3 \\* n_robots \\* n_pcs = 6 strains but ny = 9"):
        init_physical_reservoir(key, 9, 1, 1, 2, ranges)
    with pytest.raises(ValueError, match="strains but ny = 9"):
        UnoptimizedReservoir(unoptimized.robots, eqx.tree_at(lambda e: e.d, unoptimized.encoding, jnp.zeros(9)))
    # stacking (no __init__) keeps working
    stacked = stack_models([pretrained, pretrained])
    assert isinstance(stacked, PhysicalReservoir) and stacked.map.c.shape == (2, 6)


def test_float32_rollout_stays_float32_and_near_float64(rng):
    """simulation.precision: float32 runs the whole rollout in float32 (no silent promotion back to
    float64 through the time step or a constant) and, on a bounded run, stays within 1e-4 of it."""
    from physres.physical import init_unoptimized_reservoir
    from physres.simulate import in_precision

    model = init_unoptimized_reservoir(jax.random.PRNGKey(0), 6, 1, 1, 2, RANGES, torque_scale=0.01, gauss_points=3)
    u = jnp.asarray(rng.uniform(size=(2, 20, 1)))
    Q64, _ = physical_rollout(model, u, 2e-3, 1e-4)
    Q32, peak32 = physical_rollout(in_precision(model, "float32"), u, 2e-3, 1e-4)
    assert Q32.dtype == peak32.dtype == jnp.float32
    assert np.all(np.isfinite(Q64)) and np.max(np.abs(Q64)) > 0
    error = np.max(np.abs(np.asarray(Q32, float) - np.asarray(Q64))) / np.max(np.abs(np.asarray(Q64)))
    assert 0 < error < 1e-4, error
    with pytest.raises(ValueError, match="allowed: float64, float32"):
        in_precision(model, "bfloat16")


def test_rollout_parts_gather_to_the_unsplit_rollout(rng, tmp_path):
    """A variant's sequences split into jobs of whole chunks (physres.batching.part_rows), each
    written as a part and gathered (physres.formats), equal one rollout of them all in the same
    chunks bit for bit, for a chaotic reservoir (untrained map and controllers: any change of
    rounding would grow) and an unoptimized one; parts that do not cover the sequences once, in
    order, are refused."""
    from physres.batching import activations, part_rows
    from physres.formats import gather_activation_parts, write_activation_part
    from physres.io import InputError
    from physres.physical import init_unoptimized_reservoir
    from physres.reservoirs import PhysicalEnsemble

    u = rng.uniform(size=(7, 6, 1))
    chunk, per_job = 2, 2  # 4 chunks: parts of rows 0-4 and 4-7
    assert [part_rows(7, chunk, per_job, p) for p in (0, 1)] == [slice(0, 4), slice(4, 7)]
    with pytest.raises(ValueError, match="part 2 of 7 sequences"):
        part_rows(7, chunk, per_job, 2)
    for init in (
        lambda k: init_physical_reservoir(k, 6, 1, 1, 2, RANGES, gravity=(0.0, 9.81), **FAST_KERNEL),
        lambda k: init_unoptimized_reservoir(k, 6, 1, 1, 2, RANGES, gravity=(0.0, 9.81), **FAST_KERNEL),
    ):
        members = [init(jax.random.PRNGKey(s)) for s in (0, 1)]
        ensemble = PhysicalEnsemble([0, 1], members, 2e-3, 1e-4, divergence_bound=1e6)
        whole, whole_peak = activations(ensemble, u, "forecasting", 1, chunk, "whole")
        paths = []
        for part in (0, 1):
            rows = part_rows(len(u), chunk, per_job, part)
            states, peak = activations(ensemble, u[rows], "forecasting", 1, chunk, f"part {part}")
            paths.append(tmp_path / f"part{part}.h5")
            attrs = {"task": "t", "ny": 6, "variant": "v", "kind": "forecasting", "washout": 1, "n_train": 3}
            write_activation_part(paths[-1], attrs | {"n_sequences": 7}, [0, 1], rows, states, peak)
        attrs, seeds, states, peak = gather_activation_parts(paths, "rollout_physical")
        assert seeds == [0, 1] and attrs["n_train"] == 3 and attrs["washout"] == 1
        np.testing.assert_array_equal(states, whole)
        np.testing.assert_array_equal(peak, whole_peak)
    with pytest.raises(InputError, match="after 0"):
        gather_activation_parts(paths[1:], "rollout_physical")
    with pytest.raises(InputError, match="the parts end at sequence 4"):
        gather_activation_parts(paths[:1], "rollout_physical")


def test_blocked_rollout_equals_one_scan_bit_for_bit(rng, monkeypatch):
    """A long rollout runs in blocks of intervals so that a bar can follow it: its states, peaks
    and a noisy run's measurements must equal one scan over all intervals bit for bit (a chaotic
    untrained reservoir with gravity, whose rounding differences would grow), for a single and a
    stacked reservoir, held and linear input, every interval saved or the last; the bar is told
    every interval once."""
    from physres import simulate
    from physres.noise import RolloutNoise
    from physres.physical import stack_models
    from physres.robustness import stack_noise

    u = rng.uniform(size=(3, 11, 1))
    members = [
        init_physical_reservoir(jax.random.PRNGKey(s), 6, 1, 1, 2, RANGES, gravity=(0.0, 9.81), **FAST_KERNEL)
        for s in (0, 1)
    ]
    stacked = stack_models(members)
    levels = dict(q_std=jnp.full(6, 1e-3), qdot_std=jnp.full(6, 1e-2), torque_sigma=jnp.asarray(0.05))
    noise = stack_noise([RolloutNoise(key=jax.random.PRNGKey(s), **levels) for s in (0, 1)])
    runs = {
        "single": lambda **kw: simulate.physical_rollout(members[0], u, 2e-3, 1e-4, divergence_bound=1e6, **kw),
        "stacked": lambda **kw: simulate.stacked_rollout(stacked, u, 2e-3, 1e-4, divergence_bound=1e6, **kw),
        "noisy": lambda **kw: simulate.stacked_rollout(stacked, u, 2e-3, 1e-4, divergence_bound=1e6, noise=noise, **kw),
    }
    for name, run in runs.items():
        for keep in ("all", "final"):
            for interpolation in ("held", "linear"):
                monkeypatch.setattr(simulate, "BLOCKED_FROM", 10**9)
                whole = run(keep=keep, interpolation=interpolation)
                monkeypatch.setattr(simulate, "BLOCKED_FROM", 1)
                monkeypatch.setattr(simulate, "BLOCKS", 4)  # blocks of 3 and 2 intervals
                told = []
                blocked = run(keep=keep, interpolation=interpolation, progress=told.append)
                assert told == ([3, 3, 3, 2] if interpolation == "held" else [3, 3, 2, 2]), (name, keep)
                for a, b in zip(whole, blocked, strict=True):
                    assert a.shape == b.shape, (name, keep, interpolation)
                    np.testing.assert_array_equal(
                        np.asarray(b), np.asarray(a), err_msg=f"{name} {keep} {interpolation}"
                    )
