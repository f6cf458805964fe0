"""The tuned-substrate baseline (issue 30, ours): each unoptimized reservoir used as drawn, with
only the gain g of its drive, T -> g T, chosen as any practitioner would choose it: the best of a
log grid on a validation part of the *training* split (the RON selection's protocol,
physres.readout.validation_score), the test split untouched. Every (gain, seed) pair is simulated
in one stacked rollout (rule tune_unoptimized)."""

from __future__ import annotations

import numpy as np

from physres.physical import UnoptimizedReservoir, with_gain
from physres.readout import validation_score
from physres.stats import HIGHER_IS_BETTER


def best_gain(validation: dict[float, float | None], metric: str) -> float | None:
    """The gain with the best finite validation score, the one closest to 1 (log scale) on a tie;
    None when every gain diverged."""
    finite = {g: v for g, v in validation.items() if v is not None and np.isfinite(v)}
    if not finite:
        return None
    sign = -1.0 if HIGHER_IS_BETTER[metric] else 1.0
    return min(finite, key=lambda g: (sign * finite[g], abs(np.log(g))))


def gain_grid(reservoirs: list[UnoptimizedReservoir], gains: list[float]) -> list[UnoptimizedReservoir]:
    """Every reservoir at every gain, gain-major: member g * S + s is seed s at gains[g]; one
    stacked ensemble of them simulates the whole grid in one compiled rollout."""
    return [with_gain(reservoir, gain) for gain in gains for reservoir in reservoirs]


def choose_gains(
    task, states: np.ndarray, seeds: list[int], gains: list[float], *, fraction: float, split_seed: int, readout: dict
) -> dict:
    """Validation score of every (seed, gain) from the grid's training-split activations states
    (G * S, ...) (physres.batching.activations of gain_grid's members), and the gain chosen per
    seed; a seed whose every gain diverged keeps g = 1 (the unoptimized reservoir itself) and is
    listed as untuned. ``readout``: validation_score's washout, lag, C, max_iter, alpha."""
    validation, chosen, untuned, metric = {}, {}, [], None
    for s, seed in enumerate(seeds):
        scores = {
            gain: validation_score(task, states[g * len(seeds) + s], fraction, split_seed, **readout)
            for g, gain in enumerate(gains)
        }
        metric = next(iter(scores.values())).metric
        validation[seed] = {str(gain): score.value for gain, score in scores.items()}
        best = best_gain({gain: score.value for gain, score in scores.items()}, metric)
        chosen[seed] = 1.0 if best is None else best
        if best is None:
            untuned.append(seed)
    return {"metric": metric, "gains": list(gains), "validation": validation, "chosen": chosen, "untuned": untuned}
