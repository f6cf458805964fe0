"""The pretrained physical reservoir: soft robots + affine map + feedforward/feedback control.

Map (physres.affine_map): Q = phi(y) = A y + c. Being affine, the second-order term of Eq.
(loss_fn) vanishes:

    Q_phi = A y + c,  Q'_phi = A y',  T = T_fb(Q_phi, Q'_phi) + T_ff(u),
    y''_hat = A^-1 f_phys(Q_phi, Q'_phi, T)
"""

from __future__ import annotations

import abc

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from physres.affine_map import AbstractAffineMap, init_map
from physres.robot import (
    PARAMETER_NAMES,
    SOROMOX_GAUSS_POINTS,
    UPRIGHT,
    SoftRobots,
    robots_from_theta,
    sample_robots,
)


def glorot_mlp(key: jax.Array, in_size: int, out_size: int, width: int, depth: int, scale: float = 1.0) -> eqx.Module:
    """tanh MLP with a linear output layer, Glorot-uniform weights times ``scale`` in every layer
    and zero biases; depth = 0 gives a single linear layer."""
    if depth == 0:
        model = eqx.nn.Linear(in_size, out_size, key=key)
    else:
        model = eqx.nn.MLP(in_size, out_size, width, depth, activation=jnp.tanh, key=key)
    init = jax.nn.initializers.glorot_uniform()
    is_linear = lambda x: isinstance(x, eqx.nn.Linear)  # noqa: E731
    linears = [leaf for leaf in jax.tree_util.tree_leaves(model, is_leaf=is_linear) if is_linear(leaf)]
    keys = jax.random.split(key, len(linears))
    new = [
        eqx.tree_at(lambda l: (l.weight, l.bias), lin, (scale * init(k, lin.weight.shape), jnp.zeros_like(lin.bias)))
        for k, lin in zip(keys, linears)
    ]
    return eqx.tree_at(
        lambda m: [leaf for leaf in jax.tree_util.tree_leaves(m, is_leaf=is_linear) if is_linear(leaf)], model, new
    )


def controller_scale(depth: int, scale: float, linear_scale: float | None = None) -> float:
    """The factor on the Glorot weights of a controller of ``depth`` hidden layers: ``scale``, or
    ``linear_scale`` for one without hidden layers (None: ``scale``), as the thesis code sets
    them apart."""
    return scale if depth > 0 or linear_scale is None else linear_scale


CONTROLLERS = {
    # name: (feedforward width, depth), (feedback width, depth)
    "full": ((64, 2), (64, 2)),
    "simplified": ((0, 0), (16, 1)),
}


class AbstractPhysicalReservoir(eqx.Module):
    """What the simulator (physres.simulate) needs of a physical reservoir: soft robots driven by
    T = T_fb(Q, Q') + T_ff(u), started at rest at Q(0) = initial_Q(), read out through
    readout_coordinates(Q). The robots' 3 strains per segment are the reservoir's ny
    coordinates; construction checks that the rest of the reservoir has as many."""

    robots: eqx.AbstractVar[SoftRobots]

    @abc.abstractmethod
    def feedforward_torque(self, u: Float[Array, " nu"]) -> Float[Array, " ny"]:
        """T_ff(u): the input's torque, once per input sample."""

    @abc.abstractmethod
    def feedback_torque(self, Q: Float[Array, " ny"], Qdot: Float[Array, " ny"]) -> Float[Array, " ny"]:
        """T_fb(Q, Q'): the state's torque, at every Euler substep."""

    @abc.abstractmethod
    def initial_Q(self) -> Float[Array, " ny"]:
        """Q(0), with Q'(0) = 0."""

    @abc.abstractmethod
    def readout_coordinates(self, Q: Float[Array, "... ny"]) -> Float[Array, "... ny"]:
        """The activations the readout sees (any leading shape)."""

    def actuation(
        self, Q: Float[Array, " ny"], Qdot: Float[Array, " ny"], u: Float[Array, " nu"]
    ) -> Float[Array, " ny"]:
        """T = T_fb(Q, Q') + T_ff(u)."""
        return self.feedback_torque(Q, Qdot) + self.feedforward_torque(u)

    def __check_init__(self):
        n_robots, n_pcs = self.robots.raw.shape[-3:-1]
        ny = self.initial_Q().shape[-1]
        if 3 * n_robots * n_pcs != ny:
            raise ValueError(f"3 * n_robots * n_pcs = {3 * n_robots * n_pcs} strains but ny = {ny} coordinates")


class PhysicalReservoir(AbstractPhysicalReservoir):
    """theta = {theta_rob, theta_map, theta_contr}: robots, map, feedforward and feedback MLPs."""

    robots: SoftRobots
    map: AbstractAffineMap
    feedforward: eqx.Module  # T_ff(u): n_u -> ny
    feedback: eqx.Module  # T_fb(Z): 2 ny -> ny

    def feedforward_torque(self, u: Float[Array, " nu"]) -> Float[Array, " ny"]:
        return self.feedforward(u)

    def feedback_torque(self, Q: Float[Array, " ny"], Qdot: Float[Array, " ny"]) -> Float[Array, " ny"]:
        return self.feedback(jnp.concatenate([Q, Qdot]))

    def initial_Q(self) -> Float[Array, " ny"]:
        """Q(0) = phi(0) = c: the image of the RON's resting initial state."""
        return self.map.c

    def readout_coordinates(self, Q: Float[Array, "... ny"]) -> Float[Array, "... ny"]:
        """Activations y_hat = psi(Q) (any leading shape)."""
        return self.map.psi(Q)

    def mapped_accelerations(
        self, y: Float[Array, "batch ny"], ydot: Float[Array, "batch ny"], u: Float[Array, "batch nu"]
    ) -> Float[Array, "batch ny"]:
        """y''_hat of Eq. (loss_fn) for a batch of samples."""
        A, A_inv = self.map.matrices()
        Q, Qdot = jax.vmap(lambda y: A @ y + self.map.c)(y), jax.vmap(lambda ydot: A @ ydot)(ydot)
        Qddot = self.robots.accelerations(Q, Qdot, jax.vmap(self.actuation)(Q, Qdot, u))
        return jax.vmap(lambda Qddot: A_inv @ Qddot)(Qddot)

    def mapped_acceleration(self, y: Float[Array, " ny"], ydot: Float[Array, " ny"], u: Float[Array, " nu"]):
        """y''_hat of Eq. (loss_fn) for one sample."""
        return self.mapped_accelerations(y[None], ydot[None], u[None])[0]


def init_physical_reservoir(
    key: jax.Array,
    ny: int,
    nu: int,
    n_robots: int,
    n_pcs: int,
    init_ranges: dict,
    controller: str = "full",
    sigma: float = 0.003,
    s_min: float = 1e-4,
    gravity=(0.0, 0.0),
    coriolis: bool = False,
    minimum_fraction: float = 0.01,
    gauss_points: int = SOROMOX_GAUSS_POINTS,
    dynamics: str = "physres",
    base_angle: float = UPRIGHT,
    map_bases: str = "orthogonal",
    controller_init_scale: float = 1.0,
    robot_draw: str = "per_segment",
    linear_controller_init_scale: float | None = None,
) -> PhysicalReservoir:
    """theta = {theta_rob, theta_map, theta_contr} of one start (paper, Sec. 4.1 and supplementary
    E): N robots of n_pcs segments drawn in ``init_ranges``, the map at c = 0 and Sigma = sigma I,
    Glorot controllers of the ``controller`` architecture (see CONTROLLERS, controller_scale).

    **Arguments:**

    - `key`: the start's PRNG key (robots, map, feedforward and feedback each get a split of it).
    - `ny`: the reservoir's dimension, the RON's; must be 3 * n_robots * n_pcs.
    - `nu`: the task's input dimension.
    - `n_robots`, `n_pcs`: N robots of n_pcs constant-strain segments each (the paper's Table 1).
    - `init_ranges`: theta_rob's uniform initial range per parameter name (config `robot.init_ranges`).
    - `controller`: "full" (2 x 64 tanh MLPs) or "simplified" (1 x 16 feedback, linear feedforward).
    - `sigma`, `s_min`: the map's initial singular values and their lower bound.
    - `map_bases`: "free" (U and V trained as free matrices, the thesis code's) or "orthogonal"
      (kept orthogonal; the default here so that checkpoints written before the choice existed
      rebuild as they were trained).
    - `controller_init_scale`: the factor on the Glorot weights of the controllers with hidden
      layers (the thesis code's `scale_init`).
    - `linear_controller_init_scale`: the same for a controller without hidden layers (the
      simplified feedforward); None: `controller_init_scale`.
    - `robot_draw`: "per_segment" (every segment drawn on its own) or "shared" (one theta_rob
      for every segment and robot); see physres.robot.sample_robots.
    - `gravity`: (g_x, g_y) in the robots' plane (world frame), m / s^2.
    - `base_angle`: the robots' fixed base angle in the world frame, rad (pi / 2: the rest
      direction is the world's +y, soromox's upright mounting).
    - `coriolis`: whether the dynamics include C(q, q') q'.
    - `minimum_fraction`: theta_rob's lower bound as a fraction of its initial range's minimum.
    - `gauss_points`: Gauss-Legendre points per segment for B(q).
    - `dynamics`: "physres" (the fused kernel, physres.pcs), "physres_compact" (its array form
      only: faster to compile, slower to run) or "soromox" (soromox's code path).

    **Returns:** a PhysicalReservoir; its `__check_init__` refuses a layout that does not give ny.
    """
    k_rob, k_map, k_ff, k_fb = jax.random.split(key, 4)
    (ff_width, ff_depth), (fb_width, fb_depth) = CONTROLLERS[controller]
    ff_scale, fb_scale = (
        controller_scale(depth, controller_init_scale, linear_controller_init_scale) for depth in (ff_depth, fb_depth)
    )
    return PhysicalReservoir(
        robots=sample_robots(
            k_rob,
            n_robots,
            n_pcs,
            init_ranges,
            minimum_fraction,
            gravity,
            coriolis,
            gauss_points,
            dynamics,
            base_angle,
            robot_draw,
        ),
        map=init_map(k_map, ny, sigma, s_min, map_bases),
        feedforward=glorot_mlp(k_ff, nu, ny, ff_width, ff_depth, ff_scale),
        feedback=glorot_mlp(k_fb, 2 * ny, ny, fb_width, fb_depth, fb_scale),
    )


class RandomEncoding(eqx.Module):
    """T = torque_scale tanh(V u + d), the unoptimized baseline's input encoding (paper, Eq.
    random_encoding, which has torque_scale = 1; see config.yaml ``benchmark.unoptimized``)."""

    V: Float[Array, "ny nu"]
    d: Float[Array, " ny"]
    torque_scale: float = eqx.field(static=True)

    def __call__(self, u: Float[Array, " nu"]) -> Float[Array, " ny"]:
        return self.torque_scale * jnp.tanh(self.V @ u + self.d)


class UnoptimizedReservoir(AbstractPhysicalReservoir):
    """The conventional PRC baseline: robots as sampled, input through a random encoding, no
    map and no feedback; its activations are the robot coordinates Q themselves."""

    robots: SoftRobots
    encoding: RandomEncoding

    def feedforward_torque(self, u: Float[Array, " nu"]) -> Float[Array, " ny"]:
        return self.encoding(u)

    def feedback_torque(self, Q: Float[Array, " ny"], Qdot: Float[Array, " ny"]) -> Float[Array, " ny"]:
        return jnp.zeros_like(Q)

    def initial_Q(self) -> Float[Array, " ny"]:
        return jnp.zeros(self.encoding.d.shape, self.encoding.d.dtype)

    def readout_coordinates(self, Q: Float[Array, "... ny"]) -> Float[Array, "... ny"]:
        return Q


class GainedEncoding(eqx.Module):
    """g T(u): an unoptimized reservoir's random encoding T with its drive amplitude scaled by g,
    the tuned baseline's one tuned number (issue 30). g is an array, not a static field, so that
    reservoirs of different gains stack into one compiled rollout."""

    encoding: RandomEncoding
    gain: Float[Array, ""]

    @property
    def d(self) -> Float[Array, " ny"]:
        return self.encoding.d

    def __call__(self, u: Float[Array, " nu"]) -> Float[Array, " ny"]:
        return self.gain * self.encoding(u)


def with_gain(reservoir: UnoptimizedReservoir, gain: float) -> UnoptimizedReservoir:
    """The same robots and encoding draw, driven g times as hard (T -> g T)."""
    encoding = GainedEncoding(reservoir.encoding, jnp.asarray(gain, reservoir.encoding.d.dtype))
    return UnoptimizedReservoir(reservoir.robots, encoding)


STRAINS = ("bending", "axial", "shear")  # the order of a segment's coordinates


def init_random_encoding(
    key: jax.Array,
    ny: int,
    nu: int,
    strain_scales=(1.0, 1.0, 1.0),
    input_range=(-1.0, 1.0),
    bias_range=(-1.0, 1.0),
    torque_scale: float = 1.0,
) -> RandomEncoding:
    """V = s * U(input_range)^(ny x nu), d = s * U(bias_range)^ny, row i scaled by the strain
    scale s of coordinate i (``strain_scales`` per [bending, axial, shear], repeated per segment).

    The thesis of the paper's first author: s = [1e-3, 0.1, 1e-2], V one-sided in [0, 1], d in
    [-1, 1], torque_scale 1 (docs/methods.md)."""
    k_v, k_d = jax.random.split(key)
    return strain_scaled_encoding(k_v, k_d, ny, nu, strain_scales, input_range, bias_range, torque_scale)


def strain_scaled_encoding(
    k_v: jax.Array, k_d: jax.Array, ny: int, nu: int, strain_scales, input_range, bias_range, torque_scale: float
) -> RandomEncoding:
    """V = s * U(input_range)^(ny x nu) from ``k_v``, d = s * U(bias_range)^ny from ``k_d``, row i
    scaled by the strain scale s of its coordinate (per [bending, axial, shear], per segment)."""
    V = jax.random.uniform(k_v, (ny, nu), minval=input_range[0], maxval=input_range[1])
    d = jax.random.uniform(k_d, (ny,), minval=bias_range[0], maxval=bias_range[1])
    s = jnp.tile(jnp.asarray(strain_scales, V.dtype), ny // len(STRAINS))
    return RandomEncoding(s[:, None] * V, s * d, float(torque_scale))


def init_unoptimized_reservoir(
    key: jax.Array,
    ny: int,
    nu: int,
    n_robots: int,
    n_pcs: int,
    init_ranges: dict,
    strain_scales=(1.0, 1.0, 1.0),
    input_range=(-1.0, 1.0),
    bias_range=(-1.0, 1.0),
    torque_scale: float = 1.0,
    robot_ranges: dict | None = None,
    robot_draw: str = "per_segment",
    gravity=(0.0, 0.0),
    coriolis: bool = False,
    minimum_fraction: float = 0.01,
    gauss_points: int = SOROMOX_GAUSS_POINTS,
    dynamics: str = "physres",
    base_angle: float = UPRIGHT,
) -> UnoptimizedReservoir:
    """The conventional PRC baseline of one seed (config ``benchmark.unoptimized``): robots drawn
    from the same key split and by the same function (physres.robot.sample_robots) as
    ``init_physical_reservoir``'s, in ``robot_ranges`` (None: ``init_ranges``, the pretraining
    starts' table) per segment or shared (``robot_draw``), and the encoding of
    ``init_random_encoding``. The workflow gives each (task, ny, seed) its own key
    (physres.reservoirs.load_ensemble)."""
    k_rob, _, k_encoding, _ = jax.random.split(key, 4)
    robots = sample_robots(
        k_rob,
        n_robots,
        n_pcs,
        init_ranges if robot_ranges is None else robot_ranges,
        minimum_fraction,
        gravity,
        coriolis,
        gauss_points,
        dynamics,
        base_angle,
        robot_draw,
    )
    encoding = init_random_encoding(k_encoding, ny, nu, strain_scales, input_range, bias_range, torque_scale)
    return UnoptimizedReservoir(robots, encoding)


# The thesis code's random reservoirs (scripts/more_soft_robots_reservoir/, robots_type 'random'):
# its four seeds and the order in which it draws theta_rob, one key per parameter
THESIS_SEEDS = (123, 1234, 12345, 123456)
THESIS_DRAW_ORDER = (
    "length",
    "damping_bending",
    "damping_axial",
    "damping_shear",
    "radius",
    "density",
    "young_modulus",
    "shear_modulus",
)


def init_thesis_unoptimized_reservoir(
    seed: int,
    ny: int,
    nu: int,
    n_robots: int,
    n_pcs: int,
    robot_ranges: dict | None,
    strain_scales,
    input_range,
    bias_range,
    torque_scale: float = 1.0,
    robot_draw: str = "shared",
    minimum_fraction: float = 0.01,
    init_ranges: dict | None = None,
    **environment,
) -> UnoptimizedReservoir:
    """The unoptimized reservoir that the thesis code of the paper's first author draws for its
    ``seed`` (one of THESIS_SEEDS), for diagnosing our baseline against the authors' own draws;
    the workflow never uses it. It takes ``init_unoptimized_reservoir``'s keywords (``init_ranges``
    unused; ``environment``: gravity, coriolis, gauss_points, dynamics, base_angle, as
    physres.robot.robots_from_theta takes them); ``robot_ranges`` must be the thesis's
    (config.yaml's default benchmark.unoptimized).

    The draw, as that code makes it: jax.random.key(seed) split in 9; keys 1-8 give one uniform
    scalar each, in THESIS_DRAW_ORDER, shared by every segment and robot; key 0 split in 3, the
    second giving V = s U(input_range)^(ny x nu), the third d = s U(bias_range)^ny. The values
    depend on jax's ``jax_threefry_partitionable`` (True by default since jax 0.5)."""
    if robot_ranges is None or robot_draw != "shared":
        raise ValueError(
            "the thesis draw shares one theta_rob across segments, in the thesis's ranges: give "
            "robot_ranges and robot_draw 'shared' (config.yaml's default; not "
            "workflow/configs/previous/table_robots.yaml)"
        )
    key, *parameter_keys = jax.random.split(jax.random.key(seed), 1 + len(THESIS_DRAW_ORDER))
    drawn = {
        name: jax.random.uniform(k, minval=robot_ranges[name][0], maxval=robot_ranges[name][1])
        for name, k in zip(THESIS_DRAW_ORDER, parameter_keys)
    }
    theta = jnp.broadcast_to(
        jnp.stack([drawn[name] for name in PARAMETER_NAMES]), (n_robots, n_pcs, len(PARAMETER_NAMES))
    )
    minimum = [robot_ranges[name][0] * minimum_fraction for name in PARAMETER_NAMES]
    robots = robots_from_theta(theta, minimum, **environment)
    _, k_v, k_d = jax.random.split(key, 3)
    encoding = strain_scaled_encoding(k_v, k_d, ny, nu, strain_scales, input_range, bias_range, torque_scale)
    return UnoptimizedReservoir(robots, encoding)


def parameter_groups(model: PhysicalReservoir) -> dict[str, object]:
    """The paper's three groups of theta, for gradient checks and freezing."""
    return {"theta_rob": model.robots, "theta_map": model.map, "theta_contr": (model.feedforward, model.feedback)}


def stack_models(models: list[eqx.Module]) -> eqx.Module:
    """S modules of one structure -> one module whose array leaves have a leading axis S."""
    arrays = [eqx.filter(m, eqx.is_array) for m in models]
    static = eqx.filter(models[0], eqx.is_array, inverse=True)
    return eqx.combine(jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *arrays), static)


def unstack_model(models: eqx.Module, index: int) -> eqx.Module:
    """Member ``index`` of a stack made by ``stack_models``."""
    arrays, static = eqx.partition(models, eqx.is_array)
    return eqx.combine(jax.tree_util.tree_map(lambda x: x[index], arrays), static)
