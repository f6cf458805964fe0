"""Sensor and actuation noise of a reservoir's rollout (issue 29, ours), shared by the physical
rollout (physres.simulate) and the RON's (physres.ron)."""

from __future__ import annotations

import equinox as eqx
import jax
from jaxtyping import Array, Float


class RolloutNoise(eqx.Module):
    """Sensor and actuation noise of one reservoir's rollout, drawn afresh for every input
    interval from ``key`` and the interval's index (the sensors read and the actuators set at the
    input rate, the noise held in between): the feedback controller sees Q + q_std z_1 and
    Q' + qdot_std z_2, the robots receive T (1 + torque_sigma z_3), and the readout sees
    Q + q_std z_4 at each saved sample; the z_i i.i.d. N(0, 1) per sequence and coordinate.
    Stacked along a leading axis like the reservoirs for a stacked rollout. For the RON the same
    draws act on its coupling: tanh(W (y + q_std z_1) + V u + b) (1 + torque_sigma z_3), and its
    readout sees y + q_std z_4 (physres.ron.ron_rollout).

    key: a PRNG key (2,) uint32; q_std, qdot_std: (ny,); torque_sigma: ()."""

    key: jax.Array
    q_std: Float[Array, " ny"]
    qdot_std: Float[Array, " ny"]
    torque_sigma: Float[Array, ""]

    def draw(self, k, batch: int, dtype):
        """Interval k's perturbation (dQ, dQ', gain) and the readout's dQ, each (batch, ny)."""
        keys = jax.random.split(jax.random.fold_in(self.key, k), 4)
        shape = (batch, self.q_std.shape[-1])
        z = [jax.random.normal(key, shape, dtype) for key in keys]
        perturbation = (self.q_std * z[0], self.qdot_std * z[1], 1.0 + self.torque_sigma * z[2])
        return perturbation, self.q_std * z[3]
