"""Reservoir rollouts behind one interface, so every variant goes through the same rules.

A variant's ensemble (one reservoir per seed) maps input sequences u (n_seq, K, n_u) to
activations: the final coordinates (S, n_seq, ny) for classification, or the post-washout
coordinates (S, n_seq, K - washout, ny) for forecasting. Variants: the digital RON and the
physical pretrained, partial (rob_fixed) and unoptimized reservoirs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from physres.io import InputError, atomic_h5, check_array, read_h5, write_h5_attrs
from physres.physical import stack_models
from physres.ron import RON, ron_from_arrays, ron_rollout, ron_to_arrays
from physres.seeding import jax_key_for
from physres.simulate import stacked_rollout


class Ensemble(Protocol):
    """The reservoirs of one variant for one (task, ny), one per seed, run on the same inputs.

    Activations carry a leading seed axis S and the peak |state| per sequence is (S, n), or None
    where the reservoir does not track it (the digital RON).
    """

    seeds: list[int]

    def final_states(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]: ...  # (S, n, ny)

    def all_states(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]: ...  # (S, n, K, ny)


class RONEnsemble:
    """Digital RONs: each is a few matrix products per step, so they simply run one after another."""

    def __init__(self, seeds: list[int], rons: list[RON]):
        self.seeds, self.rons = list(seeds), rons

    def _run(self, u, keep):
        u = jnp.asarray(u)  # one transfer for all seeds
        return np.stack([np.asarray(ron_rollout(ron, u, keep=keep)) for ron in self.rons]), None

    def final_states(self, u):
        return self._run(u, "final")

    def all_states(self, u):
        return self._run(u, "all")


class PhysicalEnsemble:
    """Physical reservoirs (pretrained, partial or unoptimized), stacked over seeds and simulated
    in one program with input samples held for the RON's Delta t; activations are their readout
    coordinates (y_hat = psi(Q), or Q)."""

    def __init__(self, seeds: list[int], reservoirs: list, reference_dt: float, sim_dt: float,
                 divergence_bound: float, failed: list[bool] | None = None):
        self.seeds, self.stacked = list(seeds), stack_models(reservoirs)
        self.reference_dt, self.sim_dt, self.divergence_bound = reference_dt, sim_dt, divergence_bound
        # starts whose pretraining failed: simulated with the others (one program), reported as
        # non-finite, so every later stage counts them as diverged
        self.failed = np.zeros(len(self.seeds), bool) if failed is None else np.asarray(failed, bool)

    def _run(self, u, keep):
        Q, peak = stacked_rollout(self.stacked, jnp.asarray(u), self.reference_dt, self.sim_dt, keep=keep,
                                  divergence_bound=self.divergence_bound)
        y_hat = eqx.filter_vmap(lambda reservoir, Q_s: reservoir.readout_coordinates(Q_s))(self.stacked, Q)
        y_hat, peak = np.array(y_hat), np.array(peak)
        y_hat[self.failed], peak[self.failed] = np.nan, np.inf
        return y_hat, peak

    def final_states(self, u):
        return self._run(u, "final")

    def all_states(self, u):
        return self._run(u, "all")


def save_ron(path: str | Path, ron: RON, attrs: dict) -> None:
    with atomic_h5(path) as h5:
        for name, array in ron_to_arrays(ron).items():
            h5.create_dataset(name, data=array)
        write_h5_attrs(h5, {"dt": ron.dt, **attrs})


def load_ron(path: str | Path) -> RON:
    """A RON file written by save_ron: finite W, V, b, gamma, epsilon and a positive dt."""
    rule = "reference_ron"
    with read_h5(path, rule) as h5:
        arrays = {k: check_array(path, k, h5[k][...], rule) for k in ("W", "V", "b", "gamma", "epsilon")}
        dt = float(h5.attrs["dt"])
    if not (np.isfinite(dt) and dt > 0):
        raise InputError(path, f"attribute dt = {dt} is not a positive step", rule)
    return ron_from_arrays(arrays, dt)


UNOPTIMIZED_ARCHITECTURE = ("ny", "nu", "n_robots", "n_pcs", "init_ranges", "gravity", "coriolis", "minimum_fraction",
                            "gauss_points", "dynamics")


def load_ensemble(
    variant: str, paths: list[str], seeds: list[int], *, architecture: dict | None = None,
    unoptimized: dict | None = None, reference_dt: float | None = None, sim_dt: float | None = None,
    divergence_bound: float = float("inf"), task: str | None = None,
) -> Ensemble:
    """The reservoirs of one variant for one (task, ny), one per seed.

    ron: the reference RON files (one per seed); pretrained / partial: the full / rob_fixed
    checkpoints (one per start); unoptimized: no files, robots and encoding drawn per (task, ny,
    seed) from ``architecture`` and ``unoptimized`` (the config's scalings): the paper's four
    random initialisations per experiment, independent between experiments.
    """
    if variant in ("ron", "pretrained", "partial") and len(paths) != len(seeds):
        raise ValueError(f"{variant}: {len(paths)} reservoir files for {len(seeds)} seeds")
    if variant == "ron":
        return RONEnsemble(seeds, [load_ron(path) for path in paths])
    if variant in ("pretrained", "partial"):
        from physres.pretrain import load_checkpoint, training_failed

        models, sidecars = zip(*map(load_checkpoint, paths))
        return PhysicalEnsemble(seeds, list(models), reference_dt, sim_dt, divergence_bound,
                                [training_failed(s) for s in sidecars])
    if variant == "unoptimized":
        from physres.physical import init_unoptimized_reservoir

        if task is None:
            raise ValueError("unoptimized: the task is needed to draw its robots and encoding")
        kwargs = {k: architecture[k] for k in UNOPTIMIZED_ARCHITECTURE}
        models = [init_unoptimized_reservoir(jax_key_for(seed, "unoptimized", task, kwargs["ny"]), **kwargs, **unoptimized)
                  for seed in seeds]
        return PhysicalEnsemble(seeds, models, reference_dt, sim_dt, divergence_bound)
    raise ValueError(f"unknown variant {variant!r}; allowed: ron, unoptimized, partial, pretrained")


def chunked(fn: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray | None]], u: np.ndarray, chunk_size: int,
            desc: str, shrink: bool = True, axis: int = 0) -> tuple[np.ndarray, np.ndarray | None]:
    """Apply ``fn`` to fixed-size chunks of sequences (the last one padded with copies, so the
    jit-compiled rollout sees one shape only) and concatenate its outputs along their sequence
    ``axis``, with a progress bar. With ``shrink`` a chunk never exceeds len(u); without, every
    call has exactly chunk_size rows."""
    n = len(u)
    chunk_size = max(1, min(chunk_size, n) if shrink else chunk_size)
    states, peaks = [], []
    for start in tqdm(range(0, n, chunk_size), desc=desc, unit="chunk", mininterval=5.0):
        block = u[start : start + chunk_size]
        real = len(block)
        if real < chunk_size:
            block = np.concatenate([block, np.repeat(block[-1:], chunk_size - real, axis=0)])
        block_states, block_peak = fn(block)
        states.append(np.take(block_states, np.arange(real), axis=axis))
        peaks.append(None if block_peak is None else np.take(block_peak, np.arange(real), axis=axis))
    return (np.concatenate(states, axis=axis),
            None if peaks[0] is None else np.concatenate(peaks, axis=axis))


def activations(ensemble: Ensemble, u: np.ndarray, kind: str, washout: int, chunk_size: int,
                desc: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Readout features of every seed on u (n, K, n_u): final states (S, n, ny), or post-washout
    states (S, n, K - washout, ny) for forecasting; and the peak |state| (S, n) where the
    reservoirs track it. Every call is padded to chunk_size sequences, so one compiled rollout
    serves all calls of a job."""
    if kind == "classification":
        return chunked(ensemble.final_states, u, chunk_size, desc, shrink=False, axis=1)

    def post_washout(block):
        states, peak = ensemble.all_states(block)
        return states[:, :, washout:], peak

    return chunked(post_washout, u, chunk_size, desc, shrink=False, axis=1)
