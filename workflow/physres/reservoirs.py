"""Reservoir rollouts behind one interface, so every variant goes through the same rules.

A reservoir maps input sequences u (n_seq, K, n_u) to activations: the final coordinates
(n_seq, ny) for classification, or the post-washout coordinates (n_seq, K - washout, ny) for
forecasting. Variants: the digital RON and the physical pretrained, partial (rob_fixed) and
unoptimized reservoirs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

import h5py
import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from physres.io import atomic_h5, write_h5_attrs
from physres.ron import RON, ron_from_arrays, ron_rollout, ron_to_arrays
from physres.simulate import physical_rollout


class Reservoir(Protocol):
    """Activations and, for physical reservoirs, the peak |state| per sequence (None if untracked)."""

    def final_states(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]: ...  # (n, ny), (n,)

    def all_states(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]: ...  # (n, K, ny), (n,)


class RONReservoir:
    def __init__(self, ron: RON):
        self.ron = ron

    def final_states(self, u):
        return np.asarray(ron_rollout(self.ron, jnp.asarray(u), keep="final")), None

    def all_states(self, u):
        return np.asarray(ron_rollout(self.ron, jnp.asarray(u), keep="all")), None


class PhysicalReservoirRollout:
    """A physical reservoir (pretrained, partial or unoptimized) simulated with input samples held
    for the RON's Delta t; activations are its readout coordinates (y_hat = psi(Q), or Q)."""

    def __init__(self, reservoir, reference_dt: float, sim_dt: float, divergence_bound: float):
        self.reservoir, self.reference_dt, self.sim_dt = reservoir, reference_dt, sim_dt
        self.divergence_bound = divergence_bound

    def _run(self, u, keep):
        Q, peak = physical_rollout(self.reservoir, jnp.asarray(u), self.reference_dt, self.sim_dt, keep=keep,
                                   divergence_bound=self.divergence_bound)
        return np.asarray(self.reservoir.readout_coordinates(Q)), np.asarray(peak)

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
    with h5py.File(path, "r") as h5:
        return ron_from_arrays({k: h5[k][...] for k in ("W", "V", "b", "gamma", "epsilon")}, float(h5.attrs["dt"]))


UNOPTIMIZED_ARCHITECTURE = ("ny", "nu", "n_robots", "n_pcs", "init_ranges", "gravity", "coriolis", "minimum_fraction")


def load_reservoirs(
    variant: str, paths: list[str], seeds: list[int], *, architecture: dict | None = None,
    unoptimized: dict | None = None, reference_dt: float | None = None, sim_dt: float | None = None,
    divergence_bound: float = float("inf"),
) -> list[tuple[int, Reservoir]]:
    """The reservoirs of one variant for one (task, ny), one per seed.

    ron: the reference RON files (one per seed); pretrained / partial: the full / rob_fixed
    checkpoints (one per start); unoptimized: no files, robots and encoding drawn per seed from
    ``architecture`` and ``unoptimized`` (the config's scalings).
    """
    if variant == "ron":
        return [(seed, RONReservoir(load_ron(path))) for seed, path in zip(seeds, paths, strict=True)]
    if variant in ("pretrained", "partial"):
        from physres.pretrain import load_checkpoint

        models = [load_checkpoint(path)[0] for path in paths]
        return [(seed, PhysicalReservoirRollout(m, reference_dt, sim_dt, divergence_bound))
                for seed, m in zip(seeds, models, strict=True)]
    if variant == "unoptimized":
        from physres.physical import init_unoptimized_reservoir

        kwargs = {k: architecture[k] for k in UNOPTIMIZED_ARCHITECTURE}
        return [(seed, PhysicalReservoirRollout(
                    init_unoptimized_reservoir(jax.random.PRNGKey(seed), **kwargs, **unoptimized), reference_dt, sim_dt,
                    divergence_bound))
                for seed in seeds]
    raise ValueError(f"unknown variant {variant!r}; allowed: ron, unoptimized, partial, pretrained")


def chunked(fn: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray | None]], u: np.ndarray, chunk_size: int,
            desc: str, shrink: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Apply ``fn`` to fixed-size chunks of sequences (the last one padded with copies, so the
    jit-compiled rollout sees one shape only) and concatenate, with a progress bar. With
    ``shrink`` a chunk never exceeds len(u); without, every call has exactly chunk_size rows."""
    n = len(u)
    chunk_size = max(1, min(chunk_size, n) if shrink else chunk_size)
    states, peaks = [], []
    for start in tqdm(range(0, n, chunk_size), desc=desc, unit="chunk", mininterval=5.0):
        block = u[start : start + chunk_size]
        real = len(block)
        if real < chunk_size:
            block = np.concatenate([block, np.repeat(block[-1:], chunk_size - real, axis=0)])
        block_states, block_peak = fn(block)
        states.append(block_states[:real])
        peaks.append(None if block_peak is None else block_peak[:real])
    return np.concatenate(states), (None if peaks[0] is None else np.concatenate(peaks))


def activations(reservoir: Reservoir, u: np.ndarray, kind: str, washout: int, chunk_size: int,
                desc: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Readout features of one split (final states, or post-washout states for forecasting) and
    the peak |state| per sequence where the reservoir tracks it. Every call is padded to
    chunk_size sequences, so the train and test splits share one compiled rollout."""
    if kind == "classification":
        return chunked(reservoir.final_states, u, chunk_size, desc, shrink=False)

    def post_washout(block):
        states, peak = reservoir.all_states(block)
        return states[:, washout:], peak

    return chunked(post_washout, u, chunk_size, desc, shrink=False)
