"""Rollouts of the physical reservoir (paper, supplementary B): diffrax explicit Euler with step
delta_t (0.1 ms), each input sample held for the reference RON's Delta t.

The feedforward term T_ff(u_k) is computed once per input step and passed to the solver as an
argument; the feedback term and the robot dynamics are evaluated at every substep. The state
starts at rest at the image of the RON's initial state: Q(0) = phi(0) = c, Q'(0) = 0.
"""

from __future__ import annotations

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from physres.physical import PhysicalReservoir


def n_substeps(reference_dt: float, sim_dt: float) -> int:
    steps = round(reference_dt / sim_dt)
    if steps < 1 or abs(steps * sim_dt - reference_dt) > 1e-9 * reference_dt:
        raise ValueError(f"the RON step {reference_dt} is not a whole number of simulation steps {sim_dt}")
    return steps


def _vector_field(t, state, args):
    model, T_ff = args
    Q, Qdot = state
    T = model.feedback(jnp.concatenate([Q, Qdot])) + T_ff
    return Qdot, model.robots.acceleration(Q, Qdot, T)


def held_input_step(model: PhysicalReservoir, state, u_k, reference_dt, steps):
    """Advance (Q, Q') over one input sample held for reference_dt, with ``steps`` Euler steps.

    reference_dt and steps may be traced, so one compiled rollout serves every RON time step.
    """
    solution = diffrax.diffeqsolve(
        diffrax.ODETerm(_vector_field), diffrax.Euler(), t0=0.0, t1=reference_dt, dt0=reference_dt / steps,
        y0=state, args=(model, model.feedforward(u_k)), saveat=diffrax.SaveAt(t1=True),
        stepsize_controller=diffrax.ConstantStepSize(), max_steps=None,
        throw=False,  # a diverging state is reported by the caller, never raised mid-rollout
    )
    return jax.tree_util.tree_map(lambda x: x[-1], solution.ys)


@eqx.filter_jit
def _rollout(model: PhysicalReservoir, u, reference_dt, steps, keep: str):
    ny = model.map.c.shape[0]
    u = u.astype(model.map.c.dtype)
    state = (model.map.c, jnp.zeros(ny, model.map.c.dtype))

    def step(state, u_k):
        state = held_input_step(model, state, u_k, reference_dt, steps)
        return state, (state[0] if keep == "all" else None)

    final, Qs = jax.lax.scan(step, state, u)
    return Qs if keep == "all" else final[0]


def physical_rollout(
    model: PhysicalReservoir, u: Float[Array, "time nu"], reference_dt: float, sim_dt: float, keep: str = "all"
):
    """Q after each input sample: (time, ny) for keep="all", (ny,) for keep="final"."""
    steps = n_substeps(reference_dt, sim_dt)
    return _rollout(model, u, jnp.asarray(reference_dt), jnp.asarray(steps), keep)


def mapped_rollout(model: PhysicalReservoir, u, reference_dt: float, sim_dt: float):
    """Q(k) and y_hat(k) = psi(Q(k)) after each input sample, each (time, ny)."""
    Qs = physical_rollout(model, u, reference_dt, sim_dt, keep="all")
    return Qs, (Qs - model.map.c) @ model.map.inverse_matrix().T


def diverged(states, bound: float) -> bool:
    """A rollout diverged if any state is non-finite or leaves |x| <= bound."""
    states = jnp.asarray(states)
    return bool(~jnp.all(jnp.isfinite(states)) | (jnp.max(jnp.abs(jnp.nan_to_num(states, nan=jnp.inf))) > bound))


def trajectory_nrmse(y_ref, y_hat) -> float:
    """RMSE(y_hat, y) / RMS(y) over all steps and coordinates (paper, Sec. 4.2)."""
    y_ref, y_hat = jnp.asarray(y_ref), jnp.asarray(y_hat)
    return float(jnp.sqrt(jnp.mean((y_hat - y_ref) ** 2)) / jnp.sqrt(jnp.mean(y_ref**2)))
