"""Choosing the digital reference a physical reservoir is pretrained against.

The paper's RONs were tuned by hand; ours are random draws from the paper's configuration of
each (task, ny). As a stand-in for that tuning, ``candidates`` RONs are drawn per cell and the
one with the best score on a validation part of the *training* split is kept (the test split
never takes part in the choice). With one candidate it is simply the RON of the first seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physres.batching import activations
from physres.readout import score_activations, validation_score
from physres.ron import RON, RONEnsemble
from physres.stats import HIGHER_IS_BETTER


@dataclass
class Selection:
    seed: int  # the selected candidate's seed
    validation: dict[int, float | None]  # candidate seed -> validation score (None: diverged)
    metric: str
    test: float | None  # the selected RON's test score, readout fitted on the whole training split


def candidate_seeds(first: int, n: int) -> list[int]:
    """Seeds of the n candidate RONs of a cell: first, first + 1, ..."""
    return list(range(first, first + n))


def best_candidate(validation: dict[int, float | None], metric: str) -> int:
    """The candidate with the best finite validation score (the lowest seed on a tie)."""
    finite = {seed: value for seed, value in validation.items() if value is not None and np.isfinite(value)}
    if not finite:
        raise FloatingPointError("every candidate RON diverged on the training inputs; check its configuration")
    sign = -1.0 if HIGHER_IS_BETTER[metric] else 1.0
    return min(finite, key=lambda seed: (sign * finite[seed], seed))


def select_ron(
    task, rons: dict[int, RON], fraction: float, split_seed: int, chunk_size: int, readout: dict
) -> Selection:
    """Score every candidate on the validation part of ``task``'s training split, keep the best,
    and give its test score. ``readout``: washout, lag, C, max_iter, alpha (score_activations')."""
    washout = readout.get("washout", 0)
    seeds = list(rons)
    train_states, _ = activations(
        RONEnsemble(seeds, [rons[s] for s in seeds]),
        task.train.u,
        task.kind,
        washout,
        min(chunk_size, len(task.train.u)),
        desc="candidates",
    )
    scores = [validation_score(task, states, fraction, split_seed, **readout) for states in train_states]
    validation, metric = {seed: score.value for seed, score in zip(seeds, scores)}, scores[0].metric
    best = best_candidate(validation, metric)
    test_states, _ = activations(
        RONEnsemble([best], [rons[best]]),
        task.test.u,
        task.kind,
        washout,
        min(chunk_size, len(task.test.u)),
        desc="selected, test",
    )
    test = score_activations(task, train_states[seeds.index(best)], test_states[0], [], **readout)
    return Selection(best, validation, metric, test.value)
