"""Reservoir rollouts behind one interface, so every variant goes through the same rules.

A reservoir maps input sequences u (n_seq, K, n_u) to activations: the final coordinates
(n_seq, ny) for classification, or the post-washout coordinates (n_seq, K - washout, ny) for
forecasting. The digital RON is the first variant; the physical variants (pretrained, partial,
unoptimized) register their loaders here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

import h5py
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from physres.io import atomic_h5, write_h5_attrs
from physres.ron import RON, ron_from_arrays, ron_rollout, ron_to_arrays


class Reservoir(Protocol):
    def final_states(self, u: np.ndarray) -> np.ndarray: ...  # (n, K, n_u) -> (n, ny)

    def all_states(self, u: np.ndarray) -> np.ndarray: ...  # (n, K, n_u) -> (n, K, ny)


class RONReservoir:
    def __init__(self, ron: RON):
        self.ron = ron

    def final_states(self, u):
        return np.asarray(ron_rollout(self.ron, jnp.asarray(u), keep="final"))

    def all_states(self, u):
        return np.asarray(ron_rollout(self.ron, jnp.asarray(u), keep="all"))


def save_ron(path: str | Path, ron: RON, attrs: dict) -> None:
    with atomic_h5(path) as h5:
        for name, array in ron_to_arrays(ron).items():
            h5.create_dataset(name, data=array)
        write_h5_attrs(h5, {"dt": ron.dt, **attrs})


def load_ron(path: str | Path) -> RON:
    with h5py.File(path, "r") as h5:
        return ron_from_arrays({k: h5[k][...] for k in ("W", "V", "b", "gamma", "epsilon")}, float(h5.attrs["dt"]))


LOADERS: dict[str, Callable[[str], Reservoir]] = {
    "ron": lambda path: RONReservoir(load_ron(path)),
}


def load_reservoir(variant: str, path: str) -> Reservoir:
    try:
        return LOADERS[variant](path)
    except KeyError:
        raise ValueError(f"unknown variant {variant!r}; allowed: {', '.join(LOADERS)}") from None


def chunked(fn: Callable[[np.ndarray], np.ndarray], u: np.ndarray, chunk_size: int, desc: str) -> np.ndarray:
    """Apply ``fn`` to fixed-size chunks of sequences (the last one padded with copies, so the
    jit-compiled rollout sees one shape only) and concatenate, with a progress bar."""
    n = len(u)
    chunk_size = max(1, min(chunk_size, n))
    outputs = []
    for start in tqdm(range(0, n, chunk_size), desc=desc, unit="chunk", mininterval=5.0):
        block = u[start : start + chunk_size]
        real = len(block)
        if real < chunk_size:
            block = np.concatenate([block, np.repeat(block[-1:], chunk_size - real, axis=0)])
        outputs.append(fn(block)[:real])
    return np.concatenate(outputs)


def activations(reservoir: Reservoir, u: np.ndarray, kind: str, washout: int, chunk_size: int, desc: str) -> np.ndarray:
    """Readout features of one split: final states, or post-washout states for forecasting."""
    if kind == "classification":
        return chunked(reservoir.final_states, u, chunk_size, desc)
    return chunked(lambda block: reservoir.all_states(block)[:, washout:], u, chunk_size, desc)
