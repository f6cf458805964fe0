"""Reservoir rollouts behind one interface, so every variant goes through the same rules.

A variant's ensemble (one reservoir per seed) maps input sequences u (n_seq, K, n_u) to
activations: the final coordinates (S, n_seq, ny) for classification, or the post-washout
coordinates (S, n_seq, K - washout, ny) for forecasting. Variants: the digital RON and the
physical pretrained, partial (rob_fixed) and unoptimized reservoirs.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from physres.batching import Ensemble
from physres.checkpoint import load_checkpoint, training_failed
from physres.io import InputError, read_json
from physres.names import ROBUST, TUNED
from physres.physical import init_unoptimized_reservoir, stack_models, with_gain
from physres.ron import RONEnsemble, load_ron
from physres.seeding import jax_key_for
from physres.simulate import Interpolation, RolloutNoise, in_precision, stacked_rollout
from physres.specs import UNOPTIMIZED_FIELDS


class PhysicalEnsemble:
    """Physical reservoirs (pretrained, partial or unoptimized), stacked over seeds and simulated
    in one program with input samples the RON's Delta t apart (``interpolation`` between them, see
    physres.simulate); activations are their readout coordinates (y_hat = psi(Q), or Q)."""

    def __init__(
        self,
        seeds: list[int],
        reservoirs: list,
        reference_dt: float,
        sim_dt: float,
        divergence_bound: float,
        failed: list[bool] | None = None,
        precision: str = "float64",
        interpolation: Interpolation = "linear",
        noise: RolloutNoise | None = None,
        progress: bool = True,
    ):
        self.seeds, self.stacked = list(seeds), in_precision(stack_models(reservoirs), precision)
        self.reference_dt, self.sim_dt, self.divergence_bound = reference_dt, sim_dt, divergence_bound
        self.interpolation = interpolation
        # sensor and actuation noise, one RolloutNoise per reservoir stacked likewise (None: none)
        self.noise = None if noise is None else in_precision(noise, precision)
        # starts whose pretraining failed: simulated with the others (one program), reported as
        # non-finite, so every later stage counts them as diverged
        self.failed = np.zeros(len(self.seeds), bool) if failed is None else np.asarray(failed, bool)
        # a bar over each call's input intervals, for calls of one chunk that run for many minutes
        self.progress = progress

    def _run(self, u, keep):
        n_intervals = np.shape(u)[1] - (self.interpolation == "linear")
        with tqdm(
            total=n_intervals,
            desc="intervals",
            unit="interval",
            mininterval=10.0,
            leave=False,
            disable=not self.progress,
        ) as bar:
            Q, peak = stacked_rollout(
                self.stacked,
                jnp.asarray(u),
                self.reference_dt,
                self.sim_dt,
                keep=keep,
                divergence_bound=self.divergence_bound,
                interpolation=self.interpolation,
                noise=self.noise,
                progress=bar.update,
            )
        y_hat = eqx.filter_vmap(lambda reservoir, Q_s: reservoir.readout_coordinates(Q_s))(self.stacked, Q)
        y_hat, peak = np.array(y_hat), np.array(peak)
        y_hat[self.failed], peak[self.failed] = np.nan, np.inf
        return y_hat, peak

    def final_states(self, u):
        return self._run(u, "final")

    def all_states(self, u):
        return self._run(u, "all")


def load_ensemble(
    variant: str,
    paths: list[str],
    seeds: list[int],
    *,
    architecture: dict | None = None,
    unoptimized: dict | None = None,
    reference_dt: float | None = None,
    sim_dt: float | None = None,
    divergence_bound: float = float("inf"),
    task: str | None = None,
    precision: str = "float64",
    interpolation: Interpolation = "linear",
) -> Ensemble:
    """The reservoirs of one variant for one (task, ny), one per seed.

    ron: the reference RON files (one per seed); pretrained / partial: the full / rob_fixed
    checkpoints (one per start); unoptimized: no files, robots and encoding drawn per (task, ny,
    seed) from ``architecture`` and ``unoptimized`` (the config's scalings): the paper's four
    random initialisations per experiment, independent between experiments; unoptimized_tuned
    (ours): the same draws driven by the gain its tuning file chose per seed. Physical variants
    are simulated in ``precision`` with the input's ``interpolation`` between samples (config
    ``simulation.precision``, ``simulation.input_interpolation``).
    """
    if variant == "ron":
        if len(paths) != len(seeds):
            raise ValueError(f"ron: {len(paths)} reservoir files for {len(seeds)} seeds")
        return RONEnsemble(seeds, [load_ron(path) for path in paths])
    models, failed = physical_reservoirs(variant, paths, seeds, architecture, unoptimized, task)
    return PhysicalEnsemble(
        seeds, models, reference_dt, sim_dt, divergence_bound, failed, precision=precision, interpolation=interpolation
    )


def physical_reservoirs(
    variant: str,
    paths: list[str],
    seeds: list[int],
    architecture: dict | None,
    unoptimized: dict | None,
    task: str | None,
) -> tuple[list, list[bool]]:
    """A physical variant's reservoir per seed (load_ensemble's rules) and whether its training
    failed (only a pretraining start can)."""
    if variant in ("pretrained", "partial", ROBUST):
        if len(paths) != len(seeds):
            raise ValueError(f"{variant}: {len(paths)} reservoir files for {len(seeds)} seeds")
        models, sidecars = zip(*map(load_checkpoint, paths))
        return list(models), [training_failed(s) for s in sidecars]
    if variant in ("unoptimized", TUNED):
        if task is None:
            raise ValueError(f"{variant}: the task is needed to draw its robots and encoding")
        models = unoptimized_reservoirs(seeds, architecture, unoptimized, task)
        if variant == TUNED:
            if len(paths) != 1:
                raise ValueError(f"{TUNED}: one tuning file expected, got {len(paths)}")
            gains = chosen_gains(paths[0], seeds)
            models = [with_gain(model, gains[seed]) for model, seed in zip(models, seeds)]
        return models, [False] * len(models)
    raise ValueError(f"unknown variant {variant!r}; allowed: ron, unoptimized, partial, pretrained, {TUNED}")


def unoptimized_reservoirs(seeds: list[int], architecture: dict, unoptimized: dict, task: str) -> list:
    """The unoptimized baseline's reservoir of each seed, keyed by (seed, task, ny): the same
    draws for the unoptimized variant, its gain tuning and the tuned variant."""
    kwargs = {k: architecture[k] for k in UNOPTIMIZED_FIELDS}
    return [
        init_unoptimized_reservoir(jax_key_for(seed, "unoptimized", task, kwargs["ny"]), **kwargs, **unoptimized)
        for seed in seeds
    ]


def chosen_gains(path: str, seeds: list[int]) -> dict[int, float]:
    """seed -> the gain a tuning file (rule tune_unoptimized) chose; every seed must be there."""
    chosen = {int(seed): float(gain) for seed, gain in read_json(path, rule="tune_unoptimized")["chosen"].items()}
    missing = [seed for seed in seeds if seed not in chosen]
    if missing:
        raise InputError(path, f"no gain chosen for seeds {missing}", "tune_unoptimized")
    return chosen
