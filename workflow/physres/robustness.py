"""Does a pretrained reservoir survive being built? (issue 29, ours): parameter mismatch of the
robots, theta_rob -> theta_rob (1 + sigma z) entry by entry, z ~ N(0, 1), with the controllers and
the map kept as trained on the nominal robots.

The draws z are keyed by (study seed, task, ny, reservoir seed, draw) only, not by sigma or by
variant: every sigma scales the same z (smooth curves), and the pretrained, partial and
unoptimized reservoirs of one seed meet the same relative errors (paired comparisons), whatever
order the jobs run in.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from physres.data import Split, TaskData
from physres.robot import softplus_inverse
from physres.seeding import rng_for


def mismatch_z(study_seed: int, task: str, ny: int, reservoir_seed: int, draw: int, shape: tuple) -> np.ndarray:
    """z ~ N(0, 1) of one (reservoir seed, draw), shape theta_rob's (N, n_pcs, 8)."""
    return rng_for(study_seed, "mismatch", task, ny, reservoir_seed, draw).standard_normal(shape)


def mismatched(reservoir: eqx.Module, factor: np.ndarray) -> eqx.Module:
    """The reservoir with theta_rob multiplied by factor (N, n_pcs, 8) entry by entry; a product
    below the parameter's floor theta_min (softplus' lower bound) is held just above it."""
    robots = reservoir.robots
    minimum = np.asarray(robots.minimum, np.float64)
    theta = np.asarray(robots.theta(), np.float64) * np.asarray(factor, np.float64)
    theta = np.maximum(theta, minimum * (1 + 1e-6))
    raw = jnp.asarray(softplus_inverse(theta - minimum), robots.raw.dtype)
    return eqx.tree_at(lambda r: r.robots.raw, reservoir, raw)


def subsampled(task: TaskData, max_sequences: dict, seed: int) -> TaskData:
    """The task with at most max_sequences[split] sequences per split (None: all), drawn without
    replacement by a seeded permutation, the same for every variant (a smaller, cheaper study;
    its sigma = 0 scores are then those of the subset, not the benchmark's)."""
    splits = {}
    for name in ("train", "test"):
        split, cap = getattr(task, name), max_sequences.get(name)
        if cap is None or cap >= len(split.u):
            splits[name] = split
            continue
        rows = np.sort(rng_for(seed, "robustness_subset", task.task, name).permutation(len(split.u))[:cap])
        splits[name] = Split(split.u[rows], None if split.label is None else split.label[rows])
    return TaskData(task.task, splits["train"], splits["test"], task.attrs)
