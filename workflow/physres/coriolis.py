"""Coriolis ablation (paper, supplementary on Coriolis and centrifugal forces).

A reservoir pretrained without the Coriolis/centrifugal term C(q, q') q' is simulated with and
without it on the same inputs; per run: the task score of each, the elapsed simulation time of
each on the test inputs, and the strain NRMSE(q_c, q_nc). Where the simulation with the term is
not consistent at the workflow's Euler step (it leaves the divergence bound or turns
non-finite), it is repeated at a finer step and marked, as the paper does (0.1 -> 0.01 ms).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from physres.physical import PhysicalReservoir
from physres.readout import forecasting_score
from physres.simulate import Interpolation, diverged, physical_rollout


def with_coriolis(reservoir: PhysicalReservoir, on: bool) -> PhysicalReservoir:
    """The same reservoir with the Coriolis/centrifugal term switched on or off."""
    return eqx.tree_at(lambda r: r.robots, reservoir, dataclasses.replace(reservoir.robots, coriolis=on))


def strain_nrmse(q_c: np.ndarray, q_nc: np.ndarray) -> float:
    """sqrt(sum_k ||q_c(k) - q_nc(k)||^2) / sqrt(sum_k ||q_nc(k)||^2) over all steps (and sequences)."""
    q_c, q_nc = np.asarray(q_c, np.float64), np.asarray(q_nc, np.float64)
    return float(np.sqrt(np.sum((q_c - q_nc) ** 2)) / np.sqrt(np.sum(q_nc**2)))


@dataclass
class Simulation:
    Q_train: np.ndarray  # (n_seq, K, ny) strains at each input sample
    Q_test: np.ndarray
    seconds: float  # wall time of the test rollout, compiled program warm
    sim_dt: float
    diverged: bool


def simulate(
    reservoir: PhysicalReservoir,
    u_train: np.ndarray,
    u_test: np.ndarray,
    reference_dt: float,
    sim_dt: float,
    bound: float,
    interpolation: Interpolation = "linear",
) -> Simulation:
    """Train and test rollouts of one reservoir; the test rollout is timed with its program
    compiled (by the train rollout, or by a warm-up call where the test shape differs)."""

    def run(u):
        return physical_rollout(reservoir, jnp.asarray(u), reference_dt, sim_dt, "all", bound, interpolation)

    Q_train, peak_train = jax.block_until_ready(run(u_train))
    if np.shape(u_test) != np.shape(u_train):
        jax.block_until_ready(run(u_test))
    start = time.perf_counter()
    Q_test, peak_test = jax.block_until_ready(run(u_test))
    seconds = time.perf_counter() - start
    return Simulation(
        np.asarray(Q_train),
        np.asarray(Q_test),
        seconds,
        sim_dt,
        diverged(peak_train, bound) or diverged(peak_test, bound),
    )


def task_nrmse(
    reservoir: PhysicalReservoir, simulation: Simulation, task, washout: int, lag: int, alpha: float
) -> float | None:
    """The Mackey-Glass test NRMSE of a readout on y_hat = psi(Q); None if diverged."""
    if simulation.diverged:
        return None
    y_train, y_test = (
        np.asarray(reservoir.readout_coordinates(jnp.asarray(Q)))[:, washout:]
        for Q in (simulation.Q_train, simulation.Q_test)
    )
    return forecasting_score(y_train, task.train.u, y_test, task.test.u, washout, lag, alpha=alpha).value


def ablate(
    reservoir: PhysicalReservoir,
    task,
    reference_dt: float,
    sim_dt: float,
    fine_dt: float,
    bound: float,
    washout: int,
    lag: int,
    alpha: float,
    interpolation: Interpolation = "linear",
) -> tuple[dict, np.ndarray, np.ndarray]:
    """One pretrained run simulated without and with Coriolis. Returns the row (task NRMSE, test
    seconds, strain NRMSE, whether the finer step was needed) and the test strains q_nc, q_c."""

    def run(model, dt):
        return simulate(model, task.train.u, task.test.u, reference_dt, dt, bound, interpolation)

    without = run(with_coriolis(reservoir, False), sim_dt)
    coriolis = with_coriolis(reservoir, True)
    with_term = run(coriolis, sim_dt)
    if with_term.diverged and not without.diverged:
        with_term = run(coriolis, fine_dt)
    consistent = not (without.diverged or with_term.diverged)
    row = {
        "nrmse_without": task_nrmse(reservoir, without, task, washout, lag, alpha),
        "nrmse_with": task_nrmse(coriolis, with_term, task, washout, lag, alpha),
        "seconds_without": without.seconds,
        "seconds_with": with_term.seconds,
        "strain_nrmse": strain_nrmse(with_term.Q_test, without.Q_test) if consistent else None,
        "sim_dt_with": with_term.sim_dt,
        "finer_step": with_term.sim_dt != sim_dt,
        "diverged": not consistent,
    }
    return row, without.Q_test, with_term.Q_test
