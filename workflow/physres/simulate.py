"""Rollouts of physical reservoirs (paper, supplementary B): diffrax explicit Euler with step
delta_t (0.1 ms), the input samples Delta t apart (the reference RON's step).

Between two samples the input is interpolated linearly (``interpolation="linear"``, the default:
the paper's first author's thesis code drives its rollouts with diffrax's LinearInterpolation of
u over the sample times and saves the states at those times, the first being the initial state),
or each sample is held for Delta t (``"held"``, physres before it read the thesis; the state after
sample k is then saved as the k-th).

A reservoir is a physres.physical.AbstractPhysicalReservoir (``robots``, ``feedforward_torque(u)``,
``feedback_torque(Q, Q')``, ``initial_Q()``, ``readout_coordinates(Q)``): the pretrained and
partially pretrained PhysicalReservoir and the UnoptimizedReservoir. The robots are built from
theta_rob once per rollout; a held input's feedforward term T_ff(u_k) is computed once per input
step, an interpolated one at every substep with the feedback term and the robot dynamics. The
state starts at rest at Q(0) = initial_Q(). A long rollout runs as a few blocks of intervals in
sequence, each one scan, so that its progress can be shown; it equals one scan bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from physres.config import whole_substeps
from physres.noise import RolloutNoise
from physres.physical import AbstractPhysicalReservoir

Keep = Literal["final", "all"]
Interpolation = Literal["linear", "held"]
INTERPOLATIONS = ("linear", "held")


PRECISIONS = {"float64": jnp.float64, "float32": jnp.float32}


def in_precision(reservoir: AbstractPhysicalReservoir, precision: str) -> AbstractPhysicalReservoir:
    """The reservoir with its floating-point leaves in ``precision`` ("float64" or "float32"): a
    rollout runs in its reservoir's precision (float32: ~2-3x faster on a CPU, states within
    ~1e-6 of float64 while bounded; `python speed/bench.py --part rollout` measures both)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}; allowed: {', '.join(PRECISIONS)}")
    dtype = PRECISIONS[precision]
    return jax.tree_util.tree_map(lambda x: x.astype(dtype) if eqx.is_inexact_array(x) else x, reservoir)


def n_substeps(reference_dt: float, sim_dt: float) -> int:
    steps = whole_substeps(reference_dt, sim_dt)
    if steps is None:
        raise ValueError(f"the RON step {reference_dt} is not a whole number of simulation steps {sim_dt}")
    return steps


def vector_field(t, state, args):
    """(Q', Q'') of a batch of states (Q, Q'), each (batch, ny), with args = (reservoir, its
    built robots, T_ff of the held input[, perturbation]): one explicit-Euler substep's
    arithmetic. A perturbation (dQ, dQ', gain), each (batch, ny), is the sensor and actuation
    noise of the interval (see RolloutNoise): the feedback controller reads Q + dQ and Q' + dQ',
    the robots receive gain * T."""
    reservoir, dynamics, T_ff = args[:3]
    Q, Qdot = state  # (batch, ny) each
    if len(args) == 3:  # no noise: the nominal arithmetic, untouched
        T = jax.vmap(reservoir.feedback_torque)(Q, Qdot) + T_ff
    else:
        dQ, dQdot, gain = args[3]
        T = (jax.vmap(reservoir.feedback_torque)(Q + dQ, Qdot + dQdot) + T_ff) * gain
    return Qdot, dynamics.accelerations(Q, Qdot, T)


def interpolated_vector_field(t, state, args):
    """``vector_field`` with the input read at time t from a path (a diffrax.LinearInterpolation
    of u, (batch, nu) at each end) and its feedforward term T_ff(u(t)) computed at every substep."""
    reservoir, dynamics, u_path = args[:3]
    T_ff = jax.vmap(reservoir.feedforward_torque)(u_path.evaluate(t))
    return vector_field(t, state, (reservoir, dynamics, T_ff, *args[3:]))


def _euler_solve(field, state, args, reference_dt, steps):
    """``steps`` Euler steps of ``field`` over [0, reference_dt] from the batch of states (Q, Q').

    reference_dt and steps may be traced, so one compiled rollout serves every RON time step.
    """
    solution = diffrax.diffeqsolve(
        diffrax.ODETerm(field),
        diffrax.Euler(),
        t0=0.0,
        t1=reference_dt,
        dt0=reference_dt / steps,
        y0=state,
        args=args,
        saveat=diffrax.SaveAt(t1=True),
        stepsize_controller=diffrax.ConstantStepSize(),
        max_steps=None,
        throw=False,  # a diverging state is reported by the caller, never raised mid-rollout
    )
    return jax.tree_util.tree_map(lambda x: x[-1], solution.ys)


def held_input_step(reservoir: AbstractPhysicalReservoir, dynamics, state, u_k, reference_dt, steps, perturbation=()):
    """Advance the batch of states (Q, Q'), each (batch, ny), over one input sample u_k (batch,
    nu) held for reference_dt, with ``steps`` Euler steps (``perturbation``: () or a 1-tuple of
    vector_field's)."""
    args = (reservoir, dynamics, jax.vmap(reservoir.feedforward_torque)(u_k), *perturbation)
    return _euler_solve(vector_field, state, args, reference_dt, steps)


def interpolated_input_step(
    reservoir: AbstractPhysicalReservoir, dynamics, state, u_from, u_to, reference_dt, steps, perturbation=()
):
    """Advance the batch of states (Q, Q'), each (batch, ny), over one interval of reference_dt in
    which the input moves linearly from u_from to u_to (each (batch, nu)), with ``steps`` Euler
    steps (``perturbation``: as held_input_step's)."""
    u_path = diffrax.LinearInterpolation(
        ts=jnp.stack([jnp.zeros_like(reference_dt), reference_dt]), ys=jnp.stack([u_from, u_to])
    )
    args = (reservoir, dynamics, u_path, *perturbation)
    return _euler_solve(interpolated_vector_field, state, args, reference_dt, steps)


def _peak(state):
    """max(|Q|, |Q'|) per sequence, (batch,); a non-finite value counts as infinite (NaN would
    be lost by max)."""
    values = jnp.abs(jnp.concatenate(state, axis=-1))
    return jnp.max(jnp.where(jnp.isfinite(values), values, jnp.inf), axis=-1)


def _initial_carry(reservoir, batch: int):
    """The rollout's carry at rest: states (Q(0), 0), each (batch, ny), and the peak (batch,) 0."""
    Q0 = reservoir.initial_Q()
    Q0 = jnp.broadcast_to(Q0, (batch,) + Q0.shape)
    return (Q0, jnp.zeros_like(Q0)), jnp.zeros(batch, Q0.dtype)


def _advance(
    reservoir,
    carry,
    ks,
    intervals,
    reference_dt,
    steps,
    keep: Keep,
    bound,
    interpolation: Interpolation,
    noise: RolloutNoise | None = None,
):
    """The carry ((Q, Q'), peak) of one reservoir after the input intervals ``ks`` (n_block,),
    and per interval the Q saved (n_block, batch, ny; keep="all") and a noisy run's last
    measurement (keep="final" with noise), else None (unjitted core).

    ``intervals``: the input samples u_k (n_block, batch, nu) held over each interval, or the
    pair (u_k, u_k+1) at its ends for a linear input. The sequences advance together: every
    Euler substep is one batched evaluation of the controllers and the robot dynamics over all
    sequences. With ``noise`` the Q saved are the readout's noisy measurements of the states (the
    peak stays the true states').
    """
    dynamics = reservoir.robots.build()  # constant over the rollout: build once, not per substep
    dtype = carry[1].dtype
    # the reservoir's precision throughout (a float32 reservoir, see in_precision, stays float32)
    intervals, reference_dt = jax.tree_util.tree_map(lambda x: x.astype(dtype), (intervals, reference_dt))
    batch = carry[1].shape[0]

    def step(carry, interval):
        (state, peak), (k, u_interval) = carry, interval
        if noise is None:
            perturbation, measured = (), None
        else:
            drawn, measured = noise.draw(k, batch, dtype)
            perturbation = (drawn,)
        if interpolation == "held":
            state = held_input_step(reservoir, dynamics, state, u_interval, reference_dt, steps, perturbation)
        else:
            state = interpolated_input_step(reservoir, dynamics, state, *u_interval, reference_dt, steps, perturbation)
        peak = jnp.maximum(peak, _peak(state))
        # past the bound the run is diverged: continue on NaN, which is cheap, rather than on
        # huge strains whose sin/cos cost ~10x more per substep and tell nothing
        state = jax.tree_util.tree_map(lambda x: jnp.where((peak <= bound)[:, None], x, jnp.nan), state)
        seen = state[0] if measured is None else state[0] + measured
        # the nominal final state is the carry's; a noisy run's last measurement is kept apart
        last = seen if (keep == "final" and noise is not None) else None
        return (state, peak), (seen if keep == "all" else None, last)

    return jax.lax.scan(step, carry, (ks, intervals))


# one program for a whole stack of reservoirs (leading axis S on every array leaf): a variant's seeds
# are traced and compiled once; the noisy one takes a RolloutNoise per reservoir, stacked likewise
_single = (eqx.filter_jit(_initial_carry), eqx.filter_jit(_advance))
_stacked = (
    eqx.filter_jit(eqx.filter_vmap(_initial_carry, in_axes=(eqx.if_array(0), None))),
    eqx.filter_jit(eqx.filter_vmap(_advance, in_axes=(eqx.if_array(0), 0, None, None, None, None, None, None, None))),
)
_stacked_noisy = (
    _stacked[0],
    eqx.filter_jit(
        eqx.filter_vmap(
            _advance, in_axes=(eqx.if_array(0), 0, None, None, None, None, None, None, None, eqx.if_array(0))
        )
    ),
)

# a rollout of at least this many input intervals runs in BLOCKS blocks of (nearly) equal length, so
# that a bar can follow a long rollout; a shorter one runs as one block. The blocks' scans compile
# to the whole scan's arithmetic (tests/test_physical.py holds them equal bit for bit) as long as
# none is a single interval, whose loop XLA removes and fuses otherwise
BLOCKED_FROM, BLOCKS = 256, 32


def _blocks(n_intervals: int) -> list[slice]:
    """The intervals of each block of a rollout of n_intervals (see BLOCKED_FROM): the first
    n_intervals % BLOCKS blocks one longer than the rest, so at most two scan lengths compile."""
    if n_intervals < BLOCKED_FROM:
        return [slice(0, n_intervals)]
    ends = np.cumsum([len(block) for block in np.array_split(np.arange(n_intervals), BLOCKS)])
    return [slice(int(start), int(end)) for start, end in zip([0, *ends[:-1]], ends, strict=True)]


def _rollout(
    programs,
    reservoir,
    u,
    reference_dt,
    steps,
    keep: Keep,
    bound,
    interpolation: Interpolation,
    noise: RolloutNoise | None = None,
    progress: Callable[[int], object] | None = None,
):
    """Q and the peak of one reservoir, or of a stack of them with ``programs`` = _stacked (leading
    axis S on every output): Q (batch, time, ny) or (batch, ny), the peak (batch,). The carry
    travels from block to block (see _blocks) and ``progress`` is called with each block's
    number of intervals once it has run."""
    batch, stacked = u.shape[0], programs is not _single
    initial_carry, advance = programs
    carry = initial_carry(reservoir, batch)
    Q0 = carry[0][0]
    u = jnp.swapaxes(u, 0, 1)  # (time, batch, nu)
    # held: one interval per sample, state k after it; linear: one interval between each pair of
    # samples, state k at sample k's time, state 0 the initial one
    n_intervals = u.shape[0] - (0 if interpolation == "held" else 1)
    Qs, finals = [], None
    extra = () if noise is None else (noise,)
    for block in _blocks(n_intervals):
        intervals = u[block] if interpolation == "held" else (u[block], u[block.start + 1 : block.stop + 1])
        ks = jnp.arange(block.start, block.stop)
        carry, (Q_block, finals) = advance(
            reservoir, carry, ks, intervals, reference_dt, steps, keep, bound, interpolation, *extra
        )
        Qs.append(Q_block)
        if progress is not None:
            progress(block.stop - block.start)
    (final, _), peak = carry
    time = 1 if stacked else 0  # the block outputs' time axis
    if keep == "final":
        return (final if noise is None else jnp.take(finals, -1, axis=time)), peak
    Qs = jnp.concatenate(Qs, axis=time)
    if interpolation == "linear":
        Qs = jnp.concatenate([jnp.expand_dims(Q0, time), Qs], axis=time)
    return jnp.moveaxis(Qs, time, time + 1), peak


def _checked_arguments(u, reference_dt, sim_dt, keep, divergence_bound, interpolation):
    if keep not in ("final", "all"):
        raise ValueError(f"keep must be 'final' or 'all', got {keep!r}")
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation {interpolation!r}; allowed: {', '.join(INTERPOLATIONS)}")
    steps = n_substeps(reference_dt, sim_dt)
    return (
        jnp.asarray(u),
        jnp.asarray(reference_dt),
        jnp.asarray(steps),
        keep,
        jnp.asarray(divergence_bound, dtype=float),
        interpolation,
    )


def physical_rollout(
    reservoir: AbstractPhysicalReservoir,
    u: Float[Array, "batch time nu"],
    reference_dt: float,
    sim_dt: float,
    keep: Keep = "all",
    divergence_bound: float = float("inf"),
    interpolation: Interpolation = "linear",
    progress: Callable[[int], object] | None = None,
):
    """Q at each input sample's time (linear) or after each held sample (held), (batch, time, ny)
    for keep="all", or the last of them, (batch, ny) for keep="final"; and the peak
    max(|Q|, |Q'|) over the rollout per sequence, (batch,).

    Once a sequence's peak exceeds ``divergence_bound`` (checked at each input sample) its
    states are NaN from there on: a diverged run has no activations to score. ``progress`` is
    called with the number of input intervals of each block of the rollout once it has run (a
    tqdm bar's update).
    """
    arguments = _checked_arguments(u, reference_dt, sim_dt, keep, divergence_bound, interpolation)
    return _rollout(_single, reservoir, *arguments, progress=progress)


def stacked_rollout(
    reservoirs: AbstractPhysicalReservoir,
    u: Float[Array, "batch time nu"],
    reference_dt: float,
    sim_dt: float,
    keep: Keep = "all",
    divergence_bound: float = float("inf"),
    interpolation: Interpolation = "linear",
    noise: RolloutNoise | None = None,
    progress: Callable[[int], object] | None = None,
):
    """``physical_rollout`` of S reservoirs stacked along a leading axis (see
    ``physres.physical.stack_models``) on the same inputs, all seeds in one compiled program: Q of shape
    (S, batch, time, ny) or (S, batch, ny) and the peak (S, batch). ``noise``: a RolloutNoise
    per reservoir, stacked likewise (None: the nominal rollout); ``progress``: as
    physical_rollout's."""
    arguments = _checked_arguments(u, reference_dt, sim_dt, keep, divergence_bound, interpolation)
    programs = _stacked if noise is None else _stacked_noisy
    return _rollout(programs, reservoirs, *arguments, noise=noise, progress=progress)


def diverged(peak, bound: float) -> bool:
    """A rollout diverged if a state became non-finite or left |x| <= bound (peak from the rollout)."""
    return bool(jnp.any(~(jnp.asarray(peak) <= bound)))


def at_sample_times(y_after: Float[Array, "batch time ny"], interpolation: Interpolation):
    """A discrete reservoir's states after each input (the RON's y(k + 1) from u(k), from rest at
    0) at the times a physical rollout saves its states: unchanged for a held input; for an
    interpolated one the states at the sample times t_0 .. t_{K-1}, the first the resting zero
    state, so that the two trajectories are compared at equal times, as the thesis code compares
    them."""
    y_after = jnp.asarray(y_after)
    if interpolation == "held":
        return y_after
    return jnp.concatenate([jnp.zeros_like(y_after[:, :1]), y_after[:, :-1]], axis=1)


def trajectory_nrmse(y_ref, y_hat) -> float:
    """RMSE(y_hat, y) / RMS(y) over all steps and coordinates (paper, Sec. 4.2)."""
    y_ref, y_hat = jnp.asarray(y_ref), jnp.asarray(y_hat)
    return float(jnp.sqrt(jnp.mean((y_hat - y_ref) ** 2)) / jnp.sqrt(jnp.mean(y_ref**2)))
