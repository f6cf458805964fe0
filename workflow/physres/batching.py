"""Ensembles of reservoirs run on batches of sequences: the interface every variant offers, and
fixed-size batches, so that one compiled program serves every call of a job."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
from tqdm.auto import tqdm


def chunked(
    fn: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray | None]],
    u: np.ndarray,
    chunk_size: int,
    desc: str,
    shrink: bool = True,
    axis: int = 0,
) -> tuple[np.ndarray, np.ndarray | None]:
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
    return (np.concatenate(states, axis=axis), None if peaks[0] is None else np.concatenate(peaks, axis=axis))


class Ensemble(Protocol):
    """The reservoirs of one variant for one (task, ny), one per seed, run on the same inputs.

    Activations carry a leading seed axis S and the peak |state| per sequence is (S, n), or None
    where the reservoir does not track it (the digital RON).
    """

    seeds: list[int]

    def final_states(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]: ...  # (S, n, ny)

    def all_states(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]: ...  # (S, n, K, ny)


def activations(
    ensemble: Ensemble, u: np.ndarray, kind: str, washout: int, chunk_size: int, desc: str
) -> tuple[np.ndarray, np.ndarray | None]:
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


def split_activations(ensemble: Ensemble, task, washout: int, chunk_size: int, desc: str) -> dict[str, tuple]:
    """activations() of a task's train and test splits, {split: (states, peak)}: in one pass over
    both concatenated when their shapes agree (one traced and compiled rollout, one call for all
    seeds), else split by split at one chunk size (again one compiled rollout per job)."""
    if task.train.u.shape[1:] == task.test.u.shape[1:]:
        n_train, u = len(task.train.u), np.concatenate([task.train.u, task.test.u])
        states, peak = activations(ensemble, u, task.kind, washout, min(chunk_size, len(u)), desc=f"{desc} train+test")
        rows = {"train": slice(None, n_train), "test": slice(n_train, None)}
        return {split: (states[:, r], None if peak is None else peak[:, r]) for split, r in rows.items()}
    chunk_size = min(chunk_size, max(len(task.train.u), len(task.test.u)))
    return {
        split: activations(ensemble, getattr(task, split).u, task.kind, washout, chunk_size, desc=f"{desc} {split}")
        for split in ("train", "test")
    }


def part_rows(n: int, chunk_size: int, chunks_per_job: int | None, part: int) -> slice:
    """The sequences of job ``part`` when n sequences in compiled chunks of chunk_size are split
    into jobs of chunks_per_job chunks (None: one job). Jobs start on chunk boundaries, so their
    chunks are the unsplit run's chunks, each compiled to the same shape (the last one padded
    alike): the gathered activations equal the unsplit run's bit for bit, which they would not
    with other boundaries (`python speed/bench.py --part chunks`)."""
    if chunks_per_job is None:
        rows = slice(0, n) if part == 0 else slice(n, n)
    else:
        per_job = chunk_size * chunks_per_job
        rows = slice(min(n, part * per_job), min(n, (part + 1) * per_job))
    if rows.start >= rows.stop:
        raise ValueError(f"part {part} of {n} sequences in jobs of {chunks_per_job} chunks of {chunk_size} is empty")
    return rows
