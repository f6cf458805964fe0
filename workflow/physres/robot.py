"""The physical reservoir's body: N planar PCS soft robots of n_pcs segments each (soromox).

Coordinates of one robot, per segment: [bending, axial, shear] strains as deviations from the
rest strain [0, 1, 0]; stacked over robots they form Q (ny = 3 N n_pcs). Actuation T acts
directly on these generalized coordinates. Dynamics of one robot (paper, Sec. 4)::

    B(q) q'' + C(q, q') q' + D q' + K q + G(q) = tau

With ``coriolis=False`` (the paper's default) the C q' term is dropped.

Two implementations of the same model (``dynamics``): "soromox", the paper's library itself, and
"physres", the fused closed-form kernel of ``physres.pcs`` (held to soromox's values and
gradients by tests/test_pcs.py, several times faster on a CPU). "physres_compact" is that kernel
in its array form only: slower to run, faster to compile, for runs that compilation dominates.

theta_rob per segment is [L, r, rho, E, G, d_bending, d_axial, d_shear]; it is stored
unconstrained and made positive by softplus plus a minimum (paper, Sec. 4.1).
"""

from __future__ import annotations

import functools
import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import soromox as sx
from jaxtyping import Array, Float

from physres import pcs
from physres.softplus import softplus_inverse

DYNAMICS = ("physres", "physres_compact", "soromox")
PARAMETER_NAMES = (
    "length",
    "radius",
    "density",
    "young_modulus",
    "shear_modulus",
    "damping_bending",
    "damping_axial",
    "damping_shear",
)
REST_STRAIN = (0.0, 1.0, 0.0)


SOROMOX_GAUSS_POINTS = 5  # soromox's default quadrature per segment (PlanarPCSStructure)
UPRIGHT = math.pi / 2  # soromox's upright mounting: the base turned so the rest direction is the world's +y


@functools.cache
def pcs_template(n_pcs: int, gauss_points: int = SOROMOX_GAUSS_POINTS, base_angle: float = UPRIGHT) -> sx.PlanarPCS:
    """A soromox PlanarPCS with n_pcs segments, built once eagerly; only its structure and its
    fixed base are used (``from_links`` validates values eagerly and cannot run under jit,
    ``with_params`` can).

    ``gauss_points``: Gauss-Legendre nodes per segment for soromox's integrals of B(q) and G(q).
    ``base_angle``: the fixed base's angle in the world frame (rad; pi / 2 is soromox's upright).
    """
    with jax.ensure_compile_time_eval():  # the first call may come from inside a jit trace
        links = [
            sx.LinkSpec.circular(
                length=0.1,
                radius=0.02,
                density=1000.0,
                reference_strain=list(REST_STRAIN),
                young_modulus=2000.0,
                shear_modulus=1000.0,
                damping=np.diag([1e-5, 1e-3, 1e-3]),
            )
            for _ in range(n_pcs)
        ]
        structure = sx.PlanarPCSStructure(num_gauss_points=gauss_points)
        base_pose = jnp.asarray([base_angle, 0.0, 0.0], jnp.float64)
        return sx.PlanarPCS.from_links(links, gravity=jnp.zeros(2), structure=structure, base_pose=base_pose)


def pcs_robot(
    theta: Float[Array, "n_pcs 8"],
    gravity: Float[Array, 2],
    gauss_points: int = SOROMOX_GAUSS_POINTS,
    base_angle: float = UPRIGHT,
) -> sx.PlanarPCS:
    """A differentiable soromox robot from physical segment parameters theta (traceable), its
    base turned by ``base_angle`` and gravity (world frame) acting on it.

    Stiffness per segment diag(E I L, E A L, G A L) with A = pi r^2, I = pi r^4 / 4 (as
    soromox's from_links); damping diag(d_bending, d_axial, d_shear) in generalized coordinates.
    """
    L, r, rho, E, G, d_b, d_a, d_s = (theta[:, i] for i in range(8))
    area, inertia = jnp.pi * r**2, jnp.pi * r**4 / 4.0
    stiffness = jax.vmap(jnp.diag)(jnp.stack([E * inertia * L, E * area * L, G * area * L], axis=1))
    damping = jax.vmap(jnp.diag)(jnp.stack([d_b, d_a, d_s], axis=1))
    rest = jnp.broadcast_to(jnp.asarray(REST_STRAIN, theta.dtype), (theta.shape[0], 3))
    link = sx.ContinuumLinkParams(
        length=L,
        density=rho,
        reference_strain=rest,
        cross_section=sx.CrossSectionParams(coefficients=r[:, None]),
        stiffness=stiffness,
        damping=damping,
    )
    template = pcs_template(theta.shape[0], gauss_points, float(base_angle))
    return template.with_params(sx.PlanarPCSParams(gravity=gravity, link=link))


def built_robot_acceleration(
    robot: sx.PlanarPCS,
    q: Float[Array, " n"],
    qdot: Float[Array, " n"],
    tau: Float[Array, " n"],
    coriolis: bool,
) -> Float[Array, " n"]:
    """q'' of one built robot (n = 3 n_pcs): B^-1 (tau - K q - D q' - G(q) [- C q'])."""
    B, coriolis_force, gravity_force = robot.dynamics_terms(q, qdot)
    rhs = tau - robot.elastic_force(q) - robot.damping_matrix(q) @ qdot - gravity_force
    if coriolis:
        rhs = rhs - coriolis_force
    return jnp.linalg.solve(B, rhs)


def robot_acceleration(
    theta: Float[Array, "n_pcs 8"],
    q: Float[Array, " n"],
    qdot: Float[Array, " n"],
    tau: Float[Array, " n"],
    gravity: Float[Array, 2],
    coriolis: bool,
    gauss_points: int = SOROMOX_GAUSS_POINTS,
    base_angle: float = UPRIGHT,
) -> Float[Array, " n"]:
    """q'' of one robot given its physical parameters theta."""
    return built_robot_acceleration(pcs_robot(theta, gravity, gauss_points, base_angle), q, qdot, tau, coriolis)


class RobotDynamics(eqx.Module):
    """N soromox robots built from theta_rob once (K, D and mass caches included), so that a
    rollout does not rebuild them at every Euler substep. ``robots`` is stacked over N."""

    robots: sx.PlanarPCS
    n_robots: int = eqx.field(static=True)
    coriolis: bool = eqx.field(static=True)

    def acceleration(
        self, Q: Float[Array, " ny"], Qdot: Float[Array, " ny"], T: Float[Array, " ny"]
    ) -> Float[Array, " ny"]:
        """Stacked accelerations Q'' of all robots (unbatched; vmap over samples)."""
        split = lambda x: x.reshape(self.n_robots, -1)  # noqa: E731
        per_robot = eqx.filter_vmap(built_robot_acceleration, in_axes=(eqx.if_array(0), 0, 0, 0, None))
        return per_robot(self.robots, split(Q), split(Qdot), split(T), self.coriolis).reshape(-1)

    def accelerations(
        self, Q: Float[Array, "batch ny"], Qdot: Float[Array, "batch ny"], T: Float[Array, "batch ny"]
    ) -> Float[Array, "batch ny"]:
        """Q'' for a batch of states."""
        return jax.vmap(self.acceleration)(Q, Qdot, T)


class PCSDynamics(eqx.Module):
    """N robots for the fused kernel: theta_rob made physical once per rollout."""

    theta: Float[Array, "N n_pcs 8"]
    gravity: tuple[float, float] = eqx.field(static=True)
    gauss_points: int = eqx.field(static=True)
    coriolis: bool = eqx.field(static=True)
    base_angle: float = eqx.field(static=True, default=UPRIGHT)
    unrolled: bool = eqx.field(static=True, default=True)

    def accelerations(
        self, Q: Float[Array, "batch ny"], Qdot: Float[Array, "batch ny"], T: Float[Array, "batch ny"]
    ) -> Float[Array, "batch ny"]:
        """Q'' for a batch of states."""
        return pcs.accelerations(
            self.theta, Q, Qdot, T, self.gravity, self.gauss_points, self.coriolis, self.base_angle, self.unrolled
        )

    def acceleration(
        self, Q: Float[Array, " ny"], Qdot: Float[Array, " ny"], T: Float[Array, " ny"]
    ) -> Float[Array, " ny"]:
        """Q'' of one state."""
        return self.accelerations(Q[None], Qdot[None], T[None])[0]


class SoftRobots(eqx.Module):
    """theta_rob of N robots, unconstrained: physical = softplus(raw) + minimum.

    raw: (N, n_pcs, 8) in the order of PARAMETER_NAMES. gravity (world frame, m / s^2) and the
    bases' angle (rad) are the robots' environment, the same for pretraining and every rollout.
    """

    raw: Float[Array, "N n_pcs 8"]
    minimum: tuple[float, ...] = eqx.field(static=True)
    gravity: tuple[float, float] = eqx.field(static=True)
    coriolis: bool = eqx.field(static=True)
    gauss_points: int = eqx.field(static=True, default=SOROMOX_GAUSS_POINTS)
    dynamics: str = eqx.field(static=True, default="physres")
    base_angle: float = eqx.field(static=True, default=UPRIGHT)

    @property
    def n_robots(self) -> int:
        return self.raw.shape[0]

    @property
    def n_pcs(self) -> int:
        return self.raw.shape[1]

    def theta(self) -> Float[Array, "N n_pcs 8"]:
        return jax.nn.softplus(self.raw) + jnp.asarray(self.minimum, self.raw.dtype)

    def build(self) -> RobotDynamics | PCSDynamics:
        """The robots for the current theta_rob (differentiable), in the chosen implementation."""
        if self.dynamics in ("physres", "physres_compact"):
            unrolled = self.dynamics == "physres"
            return PCSDynamics(self.theta(), self.gravity, self.gauss_points, self.coriolis, self.base_angle, unrolled)
        gravity = jnp.asarray(self.gravity, self.raw.dtype)
        build = lambda theta: pcs_robot(theta, gravity, self.gauss_points, self.base_angle)  # noqa: E731
        robots = eqx.filter_vmap(build)(self.theta())
        return RobotDynamics(robots, self.n_robots, self.coriolis)

    def acceleration(
        self, Q: Float[Array, " ny"], Qdot: Float[Array, " ny"], T: Float[Array, " ny"]
    ) -> Float[Array, " ny"]:
        """Stacked accelerations Q'' of all robots (unbatched; vmap over samples)."""
        return self.build().acceleration(Q, Qdot, T)

    def accelerations(
        self, Q: Float[Array, "batch ny"], Qdot: Float[Array, "batch ny"], T: Float[Array, "batch ny"]
    ) -> Float[Array, "batch ny"]:
        """Q'' for a batch of states (the fused kernel wants the whole batch at once)."""
        return self.build().accelerations(Q, Qdot, T)


ROBOT_DRAWS = ("per_segment", "shared")


def sample_robots(
    key: jax.Array,
    n_robots: int,
    n_pcs: int,
    init_ranges: dict[str, list[float]],
    minimum_fraction: float = 0.01,
    gravity=(0.0, 0.0),
    coriolis: bool = False,
    gauss_points: int = SOROMOX_GAUSS_POINTS,
    dynamics: str = "physres",
    base_angle: float = UPRIGHT,
    draw: str = "per_segment",
) -> SoftRobots:
    """theta_rob uniform in ``init_ranges`` (the paper's initialisation table); each parameter's
    lower bound theta_min is ``minimum_fraction`` times the low end of its range.

    ``draw``: "per_segment" draws every segment of every robot on its own (the paper's table is
    "referred to the single i-th segment"); "shared" draws one theta for a segment and gives it
    to all segments and robots (the thesis's random reservoirs). Pretraining and every rollout
    build their robots here, so they share gravity, base angle and dynamics."""
    if dynamics not in DYNAMICS:
        raise ValueError(f"unknown robot dynamics {dynamics!r}; allowed: {', '.join(DYNAMICS)}")
    if draw not in ROBOT_DRAWS:
        raise ValueError(f"unknown robot draw {draw!r}; allowed: {', '.join(ROBOT_DRAWS)}")
    low = jnp.asarray([init_ranges[name][0] for name in PARAMETER_NAMES])
    high = jnp.asarray([init_ranges[name][1] for name in PARAMETER_NAMES])
    shape = (n_robots, n_pcs, len(PARAMETER_NAMES))
    drawn_shape = shape if draw == "per_segment" else (1, 1, len(PARAMETER_NAMES))
    physical = jnp.broadcast_to(jax.random.uniform(key, drawn_shape, minval=low, maxval=high), shape)
    minimum = np.asarray(low) * minimum_fraction
    return robots_from_theta(physical, minimum, gravity, coriolis, gauss_points, dynamics, base_angle)


def robots_from_theta(
    theta: Float[Array, "N n_pcs 8"],
    minimum,
    gravity=(0.0, 0.0),
    coriolis: bool = False,
    gauss_points: int = SOROMOX_GAUSS_POINTS,
    dynamics: str = "physres",
    base_angle: float = UPRIGHT,
) -> SoftRobots:
    """The robots whose theta_rob is ``theta`` (physical values, [L, r, rho, E, G, d_be, d_ax,
    d_sh] per segment), each parameter above its lower bound ``minimum`` (8 values)."""
    raw = jnp.asarray(softplus_inverse(np.asarray(theta) - np.asarray(minimum)))
    return SoftRobots(
        raw,
        tuple(float(m) for m in minimum),
        tuple(float(g) for g in gravity),
        coriolis,
        int(gauss_points),
        dynamics,
        float(base_angle),
    )
