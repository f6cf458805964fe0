"""Task-independent diagnostics of one (task, ny)'s reservoirs (issue 30): every reservoir, the
RON and the physical variants alike, is driven by one common input, and physres.capacity turns
its states into memory capacity, information processing capacity and kernel and generalisation
rank.

The input is a standardised signal s(t), i.i.d. uniform in [-1, 1] (the Legendre basis of the
IPC is orthogonal for it), fed to every input channel c as u_c(t) = lo_c + (hi_c - lo_c)(s + 1)/2,
lo and hi being the channel's range in the task's training inputs: each reservoir sees inputs of
the magnitude it was built for, and the capacities, which are R^2 of targets in s, do not depend
on that affine map. Samples are the RON's Delta t apart, as in the benchmark.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physres.capacity import effective_rank, information_processing_capacity, memory_capacity


class DiagnosticInputs(NamedTuple):
    """s (T,) and its u (1, T, n_u) for the capacities; n_streams independent streams (n_streams,
    K, n_u) for the kernel rank; n_streams noisy copies of one stream (n_streams, K, n_u) for the
    generalisation rank."""

    s: np.ndarray
    u: np.ndarray
    streams: np.ndarray
    copies: np.ndarray


def channel_range(u_train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) per input channel of training inputs (n, K, n_u), each (n_u,); a constant channel
    gets a unit-wide range around its value, so that it still carries s."""
    lo, hi = np.min(u_train, axis=(0, 1)), np.max(u_train, axis=(0, 1))
    flat = hi <= lo
    return np.where(flat, lo - 0.5, lo), np.where(flat, hi + 0.5, hi)


def to_channels(s: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """u[..., c] = lo_c + (hi_c - lo_c)(s + 1) / 2 for s of any shape; shape s.shape + (n_u,)."""
    return lo + (hi - lo) * (np.asarray(s)[..., None] + 1.0) / 2.0


def diagnostic_inputs(
    rng: np.random.Generator,
    lo: np.ndarray,
    hi: np.ndarray,
    steps: int,
    n_streams: int,
    stream_steps: int,
    noise: float,
) -> DiagnosticInputs:
    """The common inputs of one (task, ny); ``noise`` is the half-width of the uniform noise added
    to s for the generalisation rank's copies (clipped to [-1, 1])."""
    s = rng.uniform(-1.0, 1.0, steps)
    streams = rng.uniform(-1.0, 1.0, (n_streams, stream_steps))
    base = rng.uniform(-1.0, 1.0, stream_steps)
    copies = np.clip(base + rng.uniform(-noise, noise, (n_streams, stream_steps)), -1.0, 1.0)
    return DiagnosticInputs(s, to_channels(s, lo, hi)[None], to_channels(streams, lo, hi), to_channels(copies, lo, hi))


def diagnose(
    states: np.ndarray,
    s: np.ndarray,
    stream_finals: np.ndarray,
    copy_finals: np.ndarray,
    *,
    washout: int,
    max_delay: int,
    ipc_max_delays: list[int],
    threshold: float,
    rank_rtol: float,
) -> dict:
    """Diagnostics of one reservoir from its states (T, n) on s (T,) and its final states on the
    independent streams and the noisy copies, each (n_streams, n). None of them for a reservoir
    whose states are not all finite (diverged): it has no capacity to report."""
    if not all(np.all(np.isfinite(x)) for x in (states, stream_finals, copy_finals)):
        return {"diverged": True}
    states, s = np.asarray(states)[washout:], np.asarray(s)[washout:]
    mc = memory_capacity(states, s, max_delay, threshold=threshold)
    ipc = information_processing_capacity(
        states, s, {degree: d for degree, d in enumerate(ipc_max_delays, start=1)}, threshold=threshold
    )
    return {
        "diverged": False,
        "memory_capacity": mc.tolist(),
        "memory_capacity_total": float(np.sum(mc)),
        "ipc": {str(degree): total for degree, total in ipc.items()},
        "ipc_total": float(sum(ipc.values())),
        "kernel_rank": effective_rank(stream_finals, rank_rtol),
        "generalisation_rank": effective_rank(copy_finals, rank_rtol),
    }
