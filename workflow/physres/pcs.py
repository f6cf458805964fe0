"""A fused planar PCS kernel: the dynamics of N soft robots in closed form, batch-last.

The same model as soromox's ``PlanarPCS`` (the reference; ``tests/test_pcs.py`` holds the two
together to 1e-10) for the case this workflow uses: a fixed base at the origin turned by a base
angle (default soromox's upright mounting, pi / 2; the kinematics below are in the base frame,
whose x axis is the robots' rest direction, so the angle only turns gravity into that frame), n_pcs segments of constant strain, q per segment = [bending kappa, axial sigma_x - 1, shear
sigma_y], solid circular cross-sections, inertia and gravity integrated with soromox's
Gauss-Legendre nodes. One robot::

    B(q) q'' + [C(q, q') q'] + D q' + K q + G(q) = tau

Why a kernel of our own: soromox's generic SE(2) recurrences compile to thousands of tiny XLA
operations per sample, which dominate a pretraining step on a CPU. Here every quantity is a
closed form per Gauss node, and every array keeps the batch as its last, contiguous axis
(structure of arrays), so XLA fuses each formula into one loop over the batch. The linear solve
is an unrolled Cholesky for the same reason (a batched LAPACK call per 6 x 6 matrix is slower).
Up to UNROLLED_UP_TO segments per robot and without Coriolis terms, every per-sample scalar is
its own array over the batch (``_unrolled_accelerations``, the fast path); otherwise the nodes
and coordinates are array axes (``node_kinematics``, ``inertia_and_forces``), which compile
faster and give C q' by differentiating the node positions twice. The fast path's gradient is a
custom VJP by the implicit function theorem (``_unrolled_accelerations``).

Kinematics of the node at local arc length s of segment i (phi_i = sum_{l<i} kappa_l L_l,
p_i the segment's base, R the planar rotation)::

    theta(s) = phi_i + kappa_i s
    p(s)     = p_i + R(phi_i) [a sigma_x - b sigma_y,  b sigma_x + a sigma_y],
    a = sin(kappa s) / kappa,  b = (1 - cos(kappa s)) / kappa

and B = sum over nodes of w [rho I J_theta^T J_theta + rho A J_p^T J_p] (the body-frame mass
diag(rho I, rho A, rho A) is invariant under the rotation to the world frame).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float
from soromox.utils.geometry.poses import planar_mounting_pose
from soromox.utils.integration import gauss_quadrature

SERIES_BELOW = 0.1  # |kappa s| below which the Taylor series replace the closed forms


@functools.cache
def gauss_legendre(points: int) -> tuple[np.ndarray, np.ndarray]:
    """soromox's Gauss-Legendre nodes and weights on [0, 1] (its Newton iteration stops at
    float32 precision, so they differ from the exact rule by ~1e-8; taking soromox's own keeps
    the two models equal to rounding)."""
    with jax.ensure_compile_time_eval():
        x, w, _ = gauss_quadrature(points, a=jnp.array(0.0), b=jnp.array(1.0))
        return np.asarray(x, np.float64)[1:-1], np.asarray(w, np.float64)[1:-1]


@functools.cache
def upright_base_angle() -> float:
    """The base angle of soromox's upright mounting (pi / 2): the rest direction up the world's y."""
    with jax.ensure_compile_time_eval():  # may be first called inside a jit trace
        return float(planar_mounting_pose("upright")[0])


def base_frame_gravity(gravity, base_angle: float | None = None) -> tuple[float, float]:
    """Gravity (world frame, (2,)) in the frame of a base turned by ``base_angle`` (default
    soromox's upright mounting, pi / 2), whose x axis is the robots' rest direction."""
    angle = upright_base_angle() if base_angle is None else float(base_angle)
    gx, gy = (float(g) for g in gravity)
    # Python floats: weakly typed, so a float32 rollout stays float32
    return (float(np.cos(angle) * gx + np.sin(angle) * gy), float(-np.sin(angle) * gx + np.cos(angle) * gy))


def _series_or(x, small_series, closed_form):
    """closed_form(x), or the Taylor series for |x| < SERIES_BELOW; the double where keeps the
    gradient finite at x = 0."""
    small = jnp.abs(x) < SERIES_BELOW
    x_safe = jnp.where(small, SERIES_BELOW, x)
    return jnp.where(small, small_series(x), closed_form(x_safe))


def sinc(x):
    """sin(x) / x."""
    x2 = x * x
    return _series_or(
        x,
        lambda x: 1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110)))),
        lambda x: jnp.sin(x) / x,
    )


def cosc(x):
    """(1 - cos(x)) / x = 2 sin^2(x / 2) / x."""
    x2 = x * x
    return _series_or(
        x,
        lambda x: x / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56 * (1 - x2 / 90 * (1 - x2 / 132))))),
        lambda x: 2 * jnp.sin(x / 2) ** 2 / x,
    )


def sinc_prime(x):
    """d/dx sin(x) / x = (x cos x - sin x) / x^2."""
    x2 = x * x
    return _series_or(
        x,
        lambda x: -x / 3 * (1 - x2 / 10 * (1 - x2 / 28 * (1 - x2 / 54 * (1 - x2 / 88 * (1 - x2 / 130))))),
        lambda x: (x * jnp.cos(x) - jnp.sin(x)) / (x * x),
    )


def cosc_prime(x):
    """d/dx (1 - cos x) / x = (x sin x - (1 - cos x)) / x^2."""
    x2 = x * x
    return _series_or(
        x,
        lambda x: 0.5 * (1 - x2 / 4 * (1 - x2 / 18 * (1 - x2 / 40 * (1 - x2 / 70 * (1 - x2 / 108))))),
        lambda x: (x * jnp.sin(x) - 2 * jnp.sin(x / 2) ** 2) / (x * x),
    )


def _exclusive_cumsum(x, axis):
    """sum of the entries before each one along ``axis`` (0 for the first)."""
    total = jnp.cumsum(x, axis=axis)
    return total - x


def node_kinematics(L: Float[Array, "*P n 1"], q: Float[Array, "*P n 3 B"], gauss_points: int):
    """Position (px, py) of every Gauss node and the Jacobian of its pose (theta, px, py) with
    respect to q.

    Returns px, py of shape (*P, n, G, B) and J_theta, J_px, J_py of shape
    (*P, n, G, n, 3, B): node (segment i, node g) by coordinate (segment j, strain c).
    """
    x, _ = gauss_legendre(gauss_points)
    n = q.shape[-3]
    kappa, sigma_x, sigma_y = q[..., 0, :], 1.0 + q[..., 1, :], q[..., 2, :]  # (*P, n, B)
    s = L[..., None, :] * jnp.asarray(x, q.dtype)[:, None]  # (*P, n, G, 1): node arc lengths
    # base angle and position of every segment from the tips before it
    tip_a, tip_b = L * sinc(kappa * L), L * cosc(kappa * L)
    phi = _exclusive_cumsum(kappa * L, axis=-2)  # (*P, n, B)
    cos_phi, sin_phi = jnp.cos(phi), jnp.sin(phi)
    tip_vx, tip_vy = tip_a * sigma_x - tip_b * sigma_y, tip_b * sigma_x + tip_a * sigma_y
    tip_dx, tip_dy = cos_phi * tip_vx - sin_phi * tip_vy, sin_phi * tip_vx + cos_phi * tip_vy
    base_x, base_y = _exclusive_cumsum(tip_dx, axis=-2), _exclusive_cumsum(tip_dy, axis=-2)

    e = lambda v: v[..., :, None, :]  # noqa: E731  per segment -> per node
    ks = e(kappa) * s
    a, b = s * sinc(ks), s * cosc(ks)
    da, db = s * s * sinc_prime(ks), s * s * cosc_prime(ks)  # d/dkappa
    vx, vy = a * e(sigma_x) - b * e(sigma_y), b * e(sigma_x) + a * e(sigma_y)
    c, sn = e(cos_phi), e(sin_phi)
    rot = lambda ux, uy: (c * ux - sn * uy, sn * ux + c * uy)  # noqa: E731  R(phi_i) u
    dx, dy = rot(vx, vy)
    px, py = e(base_x) + dx, e(base_y) + dy

    # d/dq of the node's own segment (j == i)
    own_theta = [s * jnp.ones_like(ks), jnp.zeros_like(ks), jnp.zeros_like(ks)]
    own_p = [rot(da * e(sigma_x) - db * e(sigma_y), db * e(sigma_x) + da * e(sigma_y)), rot(a, b), rot(-b, a)]
    # d/dq of an earlier segment j < i: its tip displacement, and kappa_j turns everything after it
    tip_da, tip_db = L * L * sinc_prime(kappa * L), L * L * cosc_prime(kappa * L)
    rot_j = lambda ux, uy: (cos_phi * ux - sin_phi * uy, sin_phi * ux + cos_phi * uy)  # noqa: E731
    tip_x, tip_y = base_x + tip_dx, base_y + tip_dy  # (*P, n, B): tip of segment j
    earlier_p = [
        rot_j(tip_da * sigma_x - tip_db * sigma_y, tip_db * sigma_x + tip_da * sigma_y),
        rot_j(tip_a, tip_b),
        rot_j(-tip_b, tip_a),
    ]

    i_index = np.arange(n)[:, None, None, None]  # node segment i, against coordinate segment j
    j_index = np.arange(n)[None, None, :, None]
    before, same = jnp.asarray(j_index < i_index), jnp.asarray(j_index == i_index)

    def assemble(own, earlier):
        """(*P, n_i, G, n_j, B) from the own-segment term (*P, n_i, G, B) and the earlier-segment
        term (*P, n_i, G, n_j, B)."""
        return jnp.where(same, own[..., :, :, None, :], jnp.where(before, earlier, 0.0))

    J_theta, J_px, J_py = [], [], []
    for coordinate in range(3):
        earlier_theta = (L[..., None, None, :, :] if coordinate == 0 else 0.0) * jnp.ones_like(px[..., None, :])
        ex, ey = earlier_p[coordinate]  # (*P, n_j, B)
        ex, ey = ex[..., None, None, :, :], ey[..., None, None, :, :]  # (*P, 1, 1, n_j, B)
        if coordinate == 0:
            Lj = L[..., None, None, :, :]
            tx, ty = tip_x[..., None, None, :, :], tip_y[..., None, None, :, :]
            ex = ex - Lj * (py[..., None, :] - ty)
            ey = ey + Lj * (px[..., None, :] - tx)
        J_theta.append(assemble(own_theta[coordinate], earlier_theta))
        J_px.append(assemble(own_p[coordinate][0], ex))
        J_py.append(assemble(own_p[coordinate][1], ey))
    stack = lambda parts: jnp.stack(parts, axis=-2)  # noqa: E731  (*P, n, G, n, 3, B)
    return px, py, stack(J_theta), stack(J_px), stack(J_py)


def segment_constants(theta: Float[Array, "*P n 8"]):
    """Per-segment constants from theta_rob [L, r, rho, E, G, d_be, d_ax, d_sh], each of shape
    (*P, n, 1) (the trailing 1 broadcasts over the batch): L, rho A, rho I, and the diagonals of
    K = diag(E I L, E A L, G A L) and D = diag(d_be, d_ax, d_sh), (*P, n, 3, 1)."""
    L, r, rho, E, G, d_be, d_ax, d_sh = (theta[..., i, None] for i in range(8))
    area, second_moment = jnp.pi * r**2, jnp.pi * r**4 / 4.0
    stiffness = jnp.stack([E * second_moment * L, E * area * L, G * area * L], axis=-2)
    damping = jnp.stack([d_be, d_ax, d_sh], axis=-2)
    return L, rho * area, rho * second_moment, stiffness, damping


def _flat(J):
    """(*P, n, G, n, 3, B) -> (*P, n, G, 3n, B): coordinates in q's order."""
    return J.reshape(J.shape[:-3] + (-1, J.shape[-1]))


def inertia_and_forces(theta, q, qdot, gravity, gauss_points: int, coriolis: bool):
    """B(q) of shape (*P, m, m, B) and the generalized forces K q + D q' + G(q) [+ C q'],
    (*P, m, B), m = 3 n. q, qdot: (*P, n, 3, B); gravity: two floats in the base frame."""
    L, rho_area, rho_inertia, stiffness, damping = segment_constants(theta)
    _, weights = gauss_legendre(gauss_points)
    W = L[..., None, :] * jnp.asarray(weights, q.dtype)[:, None]  # (*P, n, G, 1) quadrature weights
    _, _, J_theta, J_px, J_py = node_kinematics(L, q, gauss_points)
    J_theta, J_px, J_py = _flat(J_theta), _flat(J_px), _flat(J_py)
    w_rot, w_lin = (W * rho_inertia[..., None, :])[..., None, :], (W * rho_area[..., None, :])[..., None, :]
    outer = lambda J: J[..., :, None, :] * J[..., None, :, :]  # noqa: E731
    B = jnp.sum(w_rot[..., None, :] * outer(J_theta) + w_lin[..., None, :] * (outer(J_px) + outer(J_py)), axis=(-5, -4))
    force = (stiffness * q + damping * qdot).reshape(q.shape[:-3] + (-1, q.shape[-1]))
    if gravity[0] != 0.0 or gravity[1] != 0.0:
        force = force - jnp.sum(w_lin * (J_px * gravity[0] + J_py * gravity[1]), axis=(-4, -3))
    if coriolis:
        # C q' = sum over nodes of w rho A J_p^T (d/dt J_p) q'; d/dt J_theta = 0 (theta is linear in q)
        positions = lambda q: node_kinematics(L, q, gauss_points)[:2]  # noqa: E731
        velocity = lambda q: jax.jvp(positions, (q,), (qdot,))[1]  # noqa: E731
        ax, ay = jax.jvp(velocity, (q,), (qdot,))[1]
        force = force + jnp.sum(w_lin * (J_px * ax[..., None, :] + J_py * ay[..., None, :]), axis=(-4, -3))
    return B, force


def batch_last(X: Float[Array, "batch ny"], theta: Float[Array, "N n 8"]) -> Float[Array, "N n 3 batch"]:
    """Stacked coordinates (batch, ny = 3 N n) as the kernel's batch-last (N, n, 3, batch)."""
    n_robots, n = theta.shape[-3], theta.shape[-2]
    return jnp.moveaxis(X.reshape(X.shape[:-1] + (n_robots, n, 3)), -4, -1)


def mechanical_energy(
    theta: Float[Array, "N n 8"],
    Q: Float[Array, "batch ny"],
    Qdot: Float[Array, "batch ny"],
    gravity=(0.0, 0.0),
    gauss_points: int = 5,
    base_angle: float | None = None,
) -> Float[Array, " batch"]:
    """Total mechanical energy of N robots per state: 1/2 q' B(q) q' + 1/2 q K q + U_g(q), with
    U_g = -sum over nodes of w rho A g . p, whose gradient is the model's G(q).

    With the Coriolis terms the model is passive, dE/dt = q' (tau - D q'); without them (the
    paper's model) dE/dt carries an extra 1/2 q' B'(q) q', which can pump energy into a fast
    motion (tests/test_pcs.py; docs/results.md, Diagnosis)."""
    q, qdot = (batch_last(X, theta) for X in (Q, Qdot))
    g = base_frame_gravity(gravity, base_angle)
    B, _ = inertia_and_forces(theta, q, qdot, (0.0, 0.0), gauss_points, False)
    v = qdot.reshape(qdot.shape[:-3] + (-1, qdot.shape[-1]))  # (N, 3n, batch)
    kinetic = 0.5 * jnp.einsum("...ib,...ijb,...jb->b", v, B, v)
    L, rho_area, _, stiffness, _ = segment_constants(theta)
    elastic = 0.5 * jnp.sum(stiffness * q**2, axis=(-4, -3, -2))
    px, py, *_ = node_kinematics(L, q, gauss_points)
    _, weights = gauss_legendre(gauss_points)
    mass = L[..., None, :] * jnp.asarray(weights, q.dtype)[:, None] * rho_area[..., None, :]  # (N, n, G, 1)
    potential = -jnp.sum(mass * (g[0] * px + g[1] * py), axis=(-4, -3, -2))
    return kinetic + elastic + potential


def cholesky_solve(entry, rhs: list) -> list:
    """x with B x = rhs for symmetric positive definite B (m x m), unrolled over its entries:
    ``entry(i, j)`` (i >= j) and every rhs[i] are arrays over the batch, so that every operation
    runs over the contiguous batch axis. Returns x as a list of m such arrays."""
    return cholesky_substitute(cholesky_factor(entry, len(rhs)), rhs)


def cholesky_factor(entry, m: int) -> dict:
    """B's Cholesky factor C (B = C C^T) as a dict over (i, j), i >= j, unrolled as cholesky_solve."""
    chol = {}
    for j in range(m):
        chol[j, j] = jnp.sqrt(entry(j, j) - sum((chol[j, k] ** 2 for k in range(j)), 0.0))
        for i in range(j + 1, m):
            chol[i, j] = (entry(i, j) - sum((chol[i, k] * chol[j, k] for k in range(j)), 0.0)) / chol[j, j]
    return chol


def cholesky_substitute(chol: dict, rhs: list) -> list:
    """x with C C^T x = rhs for a Cholesky factor from cholesky_factor: two substitutions."""
    m = len(rhs)
    z = []
    for i in range(m):
        z.append((rhs[i] - sum((chol[i, k] * z[k] for k in range(i)), 0.0)) / chol[i, i])
    x = [None] * m
    for i in reversed(range(m)):
        x[i] = (z[i] - sum((chol[k, i] * x[k] for k in range(i + 1, m)), 0.0)) / chol[i, i]
    return x


# segments per robot up to which the Coriolis-free dynamics run unrolled: beyond, and with
# Coriolis terms (their second derivatives), the unrolled form compiles too slowly
UNROLLED_UP_TO = 2


def _unrolled_nodes(L: Float[Array, "*P n 1"], q: Float[Array, "*P n 3 B"], gauss_points: int) -> list[dict]:
    """The Gauss nodes of every segment, unrolled: per node its segment i and node index g,
    position (px, py) and the Jacobian rows J_theta, J_px, J_py as lists over the 3 n coordinates
    of arrays over the batch (None where the entry is zero). Same formulas as node_kinematics."""
    x, _ = gauss_legendre(gauss_points)
    n = q.shape[-3]
    m = 3 * n
    kappa = [q[..., j, 0, :] for j in range(n)]
    sigma_x = [1.0 + q[..., j, 1, :] for j in range(n)]
    sigma_y = [q[..., j, 2, :] for j in range(n)]
    lengths = [L[..., j, :] for j in range(n)]

    def displacement(j, s, rotate):
        """p(s) - p_j of segment j in the world frame and its derivatives in (kappa, sigma_x, sigma_y)."""
        ks = kappa[j] * s
        a, b = s * sinc(ks), s * cosc(ks)
        da, db = s * s * sinc_prime(ks), s * s * cosc_prime(ks)
        sx, sy = sigma_x[j], sigma_y[j]
        return (
            rotate(a * sx - b * sy, b * sx + a * sy),
            [rotate(da * sx - db * sy, db * sx + da * sy), rotate(a, b), rotate(-b, a)],
        )

    nodes, earlier = [], []  # earlier: per segment before the current one, its tip and derivatives
    phi, base = None, (0.0, 0.0)
    for i in range(n):
        if phi is None:  # the first segment starts along the base's x axis
            rotate = lambda ux, uy: (ux, uy)  # noqa: E731
        else:
            c, sn = jnp.cos(phi), jnp.sin(phi)
            rotate = lambda ux, uy, c=c, sn=sn: (c * ux - sn * uy, sn * ux + c * uy)  # noqa: E731
        for g in range(gauss_points):
            s = float(x[g]) * lengths[i]
            (dx, dy), own = displacement(i, s, rotate)
            px, py = base[0] + dx, base[1] + dy
            J_theta, J_px, J_py = [None] * m, [None] * m, [None] * m
            for j, (tip, derivatives) in enumerate(earlier):
                J_theta[3 * j] = lengths[j]
                # kappa_j also turns everything after segment j about its tip
                J_px[3 * j] = derivatives[0][0] - lengths[j] * (py - tip[1])
                J_py[3 * j] = derivatives[0][1] + lengths[j] * (px - tip[0])
                for c_ in (1, 2):
                    J_px[3 * j + c_], J_py[3 * j + c_] = derivatives[c_]
            J_theta[3 * i] = s
            for c_ in range(3):
                J_px[3 * i + c_], J_py[3 * i + c_] = own[c_]
            nodes.append({"i": i, "g": g, "px": px, "py": py, "J_theta": J_theta, "J_px": J_px, "J_py": J_py})
        (dx, dy), derivatives = displacement(i, lengths[i], rotate)
        base = (base[0] + dx, base[1] + dy)
        earlier.append((base, derivatives))
        phi = kappa[i] * lengths[i] if phi is None else phi + kappa[i] * lengths[i]
    return nodes


@functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _unrolled_accelerations(theta, q, qdot, tau, gravity, gauss_points: int):
    """q'' without Coriolis terms as a list over the 3 n coordinates of arrays (*P, B), from the
    unrolled nodes.

    Its gradient is the implicit function theorem's, not the assembly's differentiated: q''
    solves R = B(q) q'' + K q + D q' + G(q) = tau, so for a cotangent c of q'', lambda = B^-1 c
    is tau's cotangent and (theta_rob, q, q')'s are minus the gradient of lambda . R at fixed
    lambda and q''. That product needs the nodes' Jacobian rows times two vectors, never the
    3n x 3n matrix B, whose differentiated assembly XLA's CPU backend compiles into loops that
    recompute shared products at pretraining's small batches (docs/performance.md, "Why a step
    at batch 64 costs what it does"). Reverse mode only (jax.custom_vjp): no jvp or jacfwd."""
    qddot, _ = _unrolled_accelerations_forward(theta, q, qdot, tau, gravity, gauss_points)
    return qddot


def _unrolled_accelerations_forward(theta, q, qdot, tau, gravity, gauss_points):
    B, force = _unrolled_system(theta, q, qdot, tau, gravity, gauss_points)
    chol = cholesky_factor(lambda i, j: B[i, j], len(force))
    qddot = cholesky_substitute(chol, [-f for f in force])
    return qddot, (theta, q, qdot, chol, qddot)


def _unrolled_accelerations_backward(gravity, gauss_points, residuals, cotangent):
    theta, q, qdot, chol, qddot = residuals
    lam = cholesky_substitute(chol, list(cotangent))  # B is symmetric: B^-T c = B^-1 c

    def projected(theta, q, qdot):
        return jnp.sum(_unrolled_projected_residual(theta, q, qdot, lam, qddot, gravity, gauss_points))

    theta_bar, q_bar, qdot_bar = jax.grad(projected, argnums=(0, 1, 2))(theta, q, qdot)
    tau_bar = jnp.stack(lam, axis=-2).reshape(q.shape)  # (*P, 3 n, B) -> (*P, n, 3, B)
    return -theta_bar, -q_bar, -qdot_bar, tau_bar


_unrolled_accelerations.defvjp(_unrolled_accelerations_forward, _unrolled_accelerations_backward)


def _row_times(row: list, v: list):
    """sum over a of row[a] v[a], the entries of a Jacobian row that are not None."""
    return sum((r * x for r, x in zip(row, v) if r is not None), 0.0)


def _unrolled_projected_residual(theta, q, qdot, lam: list, qddot: list, gravity, gauss_points: int):
    """lambda . (B(q) q'' + K q + D q' + G(q)) per state, (*P, B), for lambda and q'' given as
    lists over the 3 n coordinates: B's quadratic form from the nodes' Jacobian rows."""
    L, rho_area, rho_inertia, stiffness, damping = segment_constants(theta)
    _, weights = gauss_legendre(gauss_points)
    n = q.shape[-3]
    total = sum(
        (
            lam[3 * j + c] * (stiffness[..., j, c, :] * q[..., j, c, :] + damping[..., j, c, :] * qdot[..., j, c, :])
            for j in range(n)
            for c in range(3)
        ),
        0.0,
    )
    for node in _unrolled_nodes(L, q, gauss_points):
        i, g = node["i"], node["g"]
        w = float(weights[g]) * L[..., i, :]
        lam_px, lam_py = _row_times(node["J_px"], lam), _row_times(node["J_py"], lam)
        rotation = _row_times(node["J_theta"], lam) * _row_times(node["J_theta"], qddot)
        translation = lam_px * _row_times(node["J_px"], qddot) + lam_py * _row_times(node["J_py"], qddot)
        total = total + w * (rho_inertia[..., i, :] * rotation + rho_area[..., i, :] * translation)
        if gravity[0] != 0.0 or gravity[1] != 0.0:  # G = -sum over nodes of w rho A J_p^T g
            total = total - w * rho_area[..., i, :] * (lam_px * gravity[0] + lam_py * gravity[1])
    return total


def _unrolled_system(theta, q, qdot, tau, gravity, gauss_points: int):
    """B(q) as a dict over (a, b), a >= b, and the forces K q + D q' + G(q) - tau as a list, over
    the 3 n coordinates, of arrays (*P, B), from the unrolled nodes: q'' = -B^-1 force."""
    L, rho_area, rho_inertia, stiffness, damping = segment_constants(theta)
    _, weights = gauss_legendre(gauss_points)
    n = q.shape[-3]
    m = 3 * n
    nodes = _unrolled_nodes(L, q, gauss_points)
    W = [[float(weights[g]) * L[..., i, :] for g in range(gauss_points)] for i in range(n)]
    w_rot = [[W[i][g] * rho_inertia[..., i, :] for g in range(gauss_points)] for i in range(n)]
    w_lin = [[W[i][g] * rho_area[..., i, :] for g in range(gauss_points)] for i in range(n)]

    def product(u, v):
        return None if u is None or v is None else u * v

    B = {}
    for a in range(m):
        for b in range(a + 1):
            total = 0.0
            for node in nodes:
                i, g = node["i"], node["g"]
                rot = product(node["J_theta"][a], node["J_theta"][b])
                lin = [product(node["J_px"][a], node["J_px"][b]), product(node["J_py"][a], node["J_py"][b])]
                if rot is not None:
                    total = total + w_rot[i][g] * rot
                lin = [t for t in lin if t is not None]
                if lin:
                    total = total + w_lin[i][g] * sum(lin[1:], lin[0])
            B[a, b] = total
    force = [
        stiffness[..., j, c, :] * q[..., j, c, :] + damping[..., j, c, :] * qdot[..., j, c, :] - tau[..., j, c, :]
        for j in range(n)
        for c in range(3)
    ]
    if gravity[0] != 0.0 or gravity[1] != 0.0:  # G = -sum over nodes of w rho A J_p^T g
        for node in nodes:
            i, g = node["i"], node["g"]
            for a in range(m):
                if node["J_px"][a] is not None:
                    force[a] = force[a] - w_lin[i][g] * (node["J_px"][a] * gravity[0] + node["J_py"][a] * gravity[1])
    return B, force


def accelerations(
    theta: Float[Array, "N n 8"],
    Q: Float[Array, "batch ny"],
    Qdot: Float[Array, "batch ny"],
    T: Float[Array, "batch ny"],
    gravity=(0.0, 0.0),
    gauss_points: int = 5,
    coriolis: bool = False,
    base_angle: float | None = None,
    unrolled: bool = True,
) -> Float[Array, "batch ny"]:
    """Q'' of N robots of n segments each for a batch of states (ny = 3 N n):
    B^-1 (T - K Q - D Q' - G(Q) [- C Q']). ``gravity`` is in the world frame, the bases turned
    by ``base_angle`` (default soromox's upright mounting, pi / 2). ``unrolled=False`` keeps the
    array form even where the unrolled one applies: the same values (to ~1e-13), several times
    slower to run, several times faster to compile (docs/performance.md)."""
    n = theta.shape[-2]
    q, qdot, tau = (batch_last(X, theta) for X in (Q, Qdot, T))
    gravity = base_frame_gravity(gravity, base_angle)
    if unrolled and n <= UNROLLED_UP_TO and not coriolis:
        qddot = _unrolled_accelerations(theta, q, qdot, tau, gravity, gauss_points)
    else:
        B, force = inertia_and_forces(theta, q, qdot, gravity, gauss_points, coriolis)
        rhs = tau.reshape(force.shape) - force
        qddot = cholesky_solve(lambda i, j: B[..., i, j, :], [rhs[..., i, :] for i in range(3 * n)])
    return jnp.moveaxis(jnp.stack(qddot, axis=-2), -1, -3).reshape(Q.shape)  # (N, 3n, batch) -> (batch, ny)
