"""The local linear dynamics of a second-order reservoir y'' = f(y, y', u): why a pretrained
physical reservoir whose accelerations match the RON's on a test set can still drift away from
the RON's trajectory. Along a trajectory, the first-order system x = (y, y') has the Jacobian

    M = [[0, I], [df/dy, df/dy']]        (2 ny, 2 ny)

whose eigenvalues' real parts are the local decay rates; a direction with rate ~0 has neither
stiffness nor damping, so an acceleration error there integrates into a drift.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

Acceleration = Callable[[Float[Array, " ny"], Float[Array, " ny"], Float[Array, " nu"]], Float[Array, " ny"]]


def acceleration_jacobians(f: Acceleration, y, ydot, u) -> tuple[Float[Array, "ny ny"], Float[Array, "ny ny"]]:
    """(df/dy, df/dy') at one state (y, y', u), in reverse mode (the robot kernel's gradient
    is a custom VJP: physres.pcs)."""
    return jax.jacrev(f, argnums=(0, 1))(y, ydot, u)


def closed_loop_matrix(f: Acceleration, y, ydot, u) -> Float[Array, "2ny 2ny"]:
    """M = [[0, I], [df/dy, df/dy']]: the Jacobian of (y, y')' = (y', f(y, y', u))."""
    stiffness, damping = acceleration_jacobians(f, y, ydot, u)
    ny = stiffness.shape[0]
    return jnp.block([[jnp.zeros((ny, ny)), jnp.eye(ny)], [stiffness, damping]])


def decay_rates(f: Acceleration, y, ydot, u) -> Float[Array, " 2ny"]:
    """Real parts of M's eigenvalues at (y, y', u), largest first (> 0: locally unstable)."""
    return jnp.sort(jnp.linalg.eigvals(closed_loop_matrix(f, y, ydot, u)).real)[::-1]


def trajectory_states(step, y0, ydot0, u: Float[Array, "time nu"]):
    """(y, y') before each input of a discrete rollout ``step(y, y', u_k) -> (y, y')`` from
    (y0, y'0): two arrays (time, ny), the first row the initial state."""

    def advance(carry, u_k):
        return step(*carry, u_k), carry

    _, (ys, ydots) = jax.lax.scan(advance, (y0, ydot0), u)
    return ys, ydots
