"""Does a pretrained reservoir survive being built? (issue 29, ours): parameter mismatch of the
robots, theta_rob -> theta_rob (1 + sigma z) entry by entry, z ~ N(0, 1), with the controllers and
the map kept as trained on the nominal robots; and sensor and actuation noise in the rollout
(physres.noise.RolloutNoise).

The draws z are keyed by (study seed, task, ny, reservoir seed, draw) only, not by sigma or by
variant: every sigma scales the same z (smooth curves), and the pretrained, partial and
unoptimized reservoirs of one seed meet the same relative errors (paired comparisons), whatever
order the jobs run in.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from physres.data import Split, TaskData
from physres.names import NOISE_KINDS
from physres.noise import RolloutNoise
from physres.readout import score_activations
from physres.seeding import jax_key_for, rng_for
from physres.softplus import softplus_inverse


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


# -------------------------------------------------------------------- sensor and actuation noise


def noise_scales(Q: np.ndarray, reference_dt: float) -> tuple[np.ndarray, np.ndarray]:
    """The RMS of each coordinate of Q and of Q' over a nominal rollout, per reservoir: the scales
    a relative sensor noise is measured in. Q: (S, n, K, ny) at the input samples; Q' is estimated
    by differences between samples (a scale, not a derivative: it misses what happens within an
    interval). Diverged (non-finite) samples are left out; a reservoir with none finite gets 0."""
    Q = np.asarray(Q, np.float64)
    Qdot = np.diff(Q, axis=2) / reference_dt

    def rms(x):
        finite = np.isfinite(x)
        count = finite.sum(axis=(1, 2))
        total = np.where(finite, x, 0.0) ** 2
        return np.sqrt(np.divide(total.sum(axis=(1, 2)), count, out=np.zeros(count.shape), where=count > 0))

    return rms(Q), rms(Qdot)


def rollout_noise(
    study_seed: int,
    kind: str,
    task: str,
    ny: int,
    reservoir_seed: int,
    draw: int,
    sigma: float,
    q_rms: np.ndarray,
    qdot_rms: np.ndarray,
) -> RolloutNoise:
    """One reservoir's sensor ("sensor": Q and Q' read with relative std sigma of their RMS) or
    actuation ("actuation": T multiplied by 1 + sigma z) noise. Its key depends on (study seed,
    kind, task, ny, reservoir seed, draw), not on sigma or the variant: every sigma scales the
    same z, and the variants of one seed meet the same z (paired), whatever order jobs run in."""
    if kind not in NOISE_KINDS:
        raise ValueError(f"noise kind {kind!r}; allowed: {', '.join(NOISE_KINDS)}")
    sensor = sigma if kind == "sensor" else 0.0
    return RolloutNoise(
        key=jax_key_for(study_seed, "noise", kind, task, ny, reservoir_seed, draw),
        q_std=jnp.asarray(sensor * np.asarray(q_rms, np.float64)),
        qdot_std=jnp.asarray(sensor * np.asarray(qdot_rms, np.float64)),
        torque_sigma=jnp.asarray(sigma if kind == "actuation" else 0.0, jnp.float64),
    )


def stack_noise(noises: list[RolloutNoise]) -> RolloutNoise:
    """RolloutNoises stacked along a new leading axis, as the reservoirs of a stacked rollout."""
    return jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *noises)


def scored_runs(
    task: TaskData,
    nominal: dict[str, tuple],
    perturbed: dict[str, tuple],
    grid: list[tuple],
    seeds: list[int],
    readout: dict,
    label: dict | None = None,
) -> list[dict]:
    """The runs of one study, scored both ways: one sigma = 0 run per seed from the ``nominal``
    activations ({split: (states, peak)}, one row per seed), then one per member (sigma, draw, i)
    of ``grid`` from the ``perturbed`` activations (one row per member): "nominal", the readout
    fitted on the nominal reservoir's training states applied to the perturbed test states
    (deployment without recalibration), and "refit", fitted on the perturbed training states.
    ``label``: entries added to every run (e.g. its perturbation)."""
    label = label or {}
    runs = []
    (train, train_peak), (test, test_peak) = nominal["train"], nominal["test"]
    for i, seed in enumerate(seeds):
        peaks = [] if test_peak is None else [train_peak[i], test_peak[i]]
        score = score_activations(task, train[i], test[i], peaks, **readout).as_dict()
        runs.append({"seed": seed, **label, "sigma": 0.0, "draw": 0, "nominal": score, "refit": score})
    (built_train, train_peak), (built_test, test_peak) = perturbed["train"], perturbed["test"]
    for m, (sigma, draw, i) in enumerate(grid):
        peaks = [] if test_peak is None else [train_peak[m], test_peak[m]]
        runs.append(
            {
                "seed": seeds[i],
                **label,
                "sigma": sigma,
                "draw": draw,
                "nominal": score_activations(task, train[i], built_test[m], peaks, **readout).as_dict(),
                "refit": score_activations(task, built_train[m], built_test[m], peaks, **readout).as_dict(),
            }
        )
    return runs


def noise_grid(
    config: dict, task: str, ny: int, seeds: list[int], q_rms: np.ndarray, qdot_rms: np.ndarray
) -> tuple[list[tuple], list[RolloutNoise]]:
    """The noise study's members, (kind, sigma, draw, i) for every kind of NOISE_KINDS, positive
    sigma of ``config[f"{kind}_sigmas"]``, draw and reservoir i, with each member's RolloutNoise
    (config: the robustness block; q_rms, qdot_rms: (S, ny) scales of each reservoir)."""
    grid, noises = [], []
    for kind in NOISE_KINDS:
        for sigma in [s for s in config[f"{kind}_sigmas"] if s > 0]:
            for draw in range(config["draws"]):
                for i, seed in enumerate(seeds):
                    grid.append((kind, sigma, draw, i))
                    noises.append(
                        rollout_noise(config["seed"], kind, task, ny, seed, draw, sigma, q_rms[i], qdot_rms[i])
                    )
    return grid, noises


def noise_runs(
    task: TaskData, nominal: dict, perturbed: dict, grid: list[tuple], seeds: list[int], readout: dict
) -> list[dict]:
    """scored_runs of each noise kind, from its members' rows of one stacked rollout of the whole
    ``grid`` (noise_grid's), each run labelled with its perturbation."""
    runs = []
    for kind in NOISE_KINDS:
        rows = [m for m, member in enumerate(grid) if member[0] == kind]
        own = {
            split: (states[rows], None if peak is None else peak[rows]) for split, (states, peak) in perturbed.items()
        }
        runs += scored_runs(task, nominal, own, [grid[m][1:] for m in rows], seeds, readout, {"perturbation": kind})
    return runs
