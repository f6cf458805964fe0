"""The HDF5 and JSON files that pass results between rules, each written and read here only:
activations (rollout_* -> readout), scores (readout -> tables), trajectories
(evaluate_pretraining -> pretraining_figure) and Coriolis strains (coriolis_ablation ->
coriolis_table). Task files live in physres.data, pretraining datasets in
physres.pretraining_data, RON files in physres.ron, checkpoints in physres.checkpoint, resume
files in physres.pretrain (docs/architecture.md has the table).

Layouts:
- activations ``{variant}.h5``: attrs task, ny, variant, kind, washout; ``seeds`` (S,);
  ``seed{s}/{train,test}/states`` (n, ny) or (n, K - washout, ny), ``finite`` (n,) and, for
  physical variants, ``peak`` (n,), the largest |Q| or |Q'| of each sequence.
- activation parts ``{variant}/part{p}.h5`` (rollout jobs -> gather_activations): attrs as
  above plus n_train, n_sequences, start, stop; ``seeds`` (S,), ``states`` (S, stop - start,
  ...) and ``peak`` (S, stop - start) of the sequences start:stop of train and test concatenated.
- scores ``{variant}.json``: task, ny, variant and ``seeds``, one record per seed
  (physres.readout.Score.as_dict plus ``seed``).
- trajectories ``trajectories.h5``: ``y_ref`` (n_seq, K, ny), ``y_hat`` (S, n_seq, K, ny),
  ``seeds`` (S,), attr ``dt``.
- strains ``ny{ny}_strains.h5``: attr ``reference_dt``; ``seed{s}/without`` and ``seed{s}/with``
  (K, ny) for the first test sequence; ``seeds`` (S,) (a failed start has no group).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from physres.io import InputError, atomic_h5, read_h5, read_json, write_h5_attrs, write_json

# ----------------------------------------------------------------------------- activations


class SeedActivations(NamedTuple):
    seed: int
    train: np.ndarray  # (n_train, ...) readout features
    test: np.ndarray  # (n_test, ...)
    peaks: list[np.ndarray]  # the peak |state| per split, where the reservoir tracks it


def write_activations(
    path: str | Path,
    attrs: dict,
    seeds: list[int],
    per_split: dict[str, tuple[np.ndarray, np.ndarray | None]],
    log=None,
) -> None:
    """per_split: split -> (states (S, n, ...), peak (S, n) or None), seeds in the order of S."""
    with atomic_h5(path) as h5:
        write_h5_attrs(h5, attrs)
        h5.create_dataset("seeds", data=np.asarray(seeds, dtype=np.int64))
        for i, seed in enumerate(seeds):
            for split, (states, peak) in per_split.items():
                finite = np.isfinite(states[i].reshape(len(states[i]), -1)).all(axis=1)
                if log is not None:
                    log.info(
                        "seed %d %s activations %s, %d non-finite sequences%s",
                        seed,
                        split,
                        states[i].shape,
                        int((~finite).sum()),
                        "" if peak is None else f", peak |state| {np.max(peak[i]):.3g}",
                    )
                group = h5.create_group(f"seed{seed}/{split}")
                group.create_dataset("states", data=states[i])
                group.create_dataset("finite", data=finite)
                if peak is not None:
                    group.create_dataset("peak", data=peak[i])


def write_activation_part(
    path: str | Path, attrs: dict, seeds: list[int], rows: slice, states: np.ndarray, peak: np.ndarray
) -> None:
    """One rollout job's share of a variant's activations: ``states`` (S, rows, ...) and ``peak``
    (S, rows) of the sequences ``rows`` of train and test concatenated (attrs: task, ny, variant,
    kind, washout, n_train, n_sequences)."""
    with atomic_h5(path) as h5:
        write_h5_attrs(h5, {**attrs, "start": rows.start, "stop": rows.stop})
        h5.create_dataset("seeds", data=np.asarray(seeds, dtype=np.int64))
        h5.create_dataset("states", data=states)
        h5.create_dataset("peak", data=peak)


def gather_activation_parts(paths: list[str | Path], rule: str) -> tuple[dict, list[int], np.ndarray, np.ndarray]:
    """(attrs, seeds, states (S, n, ...), peak (S, n)) of a variant from its jobs' parts, which
    must cover its sequences once, in order; ``rule`` names the rule that remakes a part."""
    attrs, seeds, states, peaks, stop = None, None, [], [], 0
    for path in paths:
        with read_h5(path, rule) as h5:
            part = {key: h5.attrs[key] for key in h5.attrs}
            if part["start"] != stop or (seeds is not None and list(h5["seeds"][...]) != seeds):
                raise InputError(
                    path, f"holds sequences {part['start']}-{part['stop']} of other seeds or after {stop}", rule
                )
            seeds, stop = list(h5["seeds"][...]), int(part["stop"])
            states.append(h5["states"][...])
            peaks.append(h5["peak"][...])
            attrs = {key: value for key, value in part.items() if key not in ("start", "stop")}
    if attrs is None or stop != int(attrs["n_sequences"]):
        raise InputError(paths[-1] if paths else "(no parts)", f"the parts end at sequence {stop}", rule)
    return attrs, [int(s) for s in seeds], np.concatenate(states, axis=1), np.concatenate(peaks, axis=1)


def read_activations(path: str | Path, rule: str) -> Iterator[SeedActivations]:
    """Every seed's train and test features; ``rule`` names the rule that remakes the file."""
    with read_h5(path, rule) as h5:
        for seed in h5["seeds"][...]:
            group = h5[f"seed{seed}"]
            peaks = [group[f"{s}/peak"][...] for s in ("train", "test") if "peak" in group[s]]
            yield SeedActivations(int(seed), group["train/states"][...], group["test/states"][...], peaks)


# ----------------------------------------------------------------------------- scores


def write_scores(path: str | Path, task: str, ny: int, variant: str, seeds: list[dict]) -> None:
    write_json(path, {"task": task, "ny": int(ny), "variant": variant, "seeds": seeds})


def load_scores(paths) -> pd.DataFrame:
    """Score JSONs of (task, ny, variant) -> one row per seed (task, ny, variant, seed, metric,
    value, diverged, ...)."""
    rows = []
    for path in paths:
        record = read_json(path, rule="readout")
        rows += [
            {"task": record["task"], "ny": record["ny"], "variant": record["variant"], **seed}
            for seed in record["seeds"]
        ]
    frame = pd.DataFrame(rows)
    frame["value"] = frame["value"].astype(float)  # None (diverged) -> NaN
    return frame


# ----------------------------------------------------------------------------- trajectories


class Trajectories(NamedTuple):
    y_ref: np.ndarray  # (n_seq, K, ny)
    y_hat: np.ndarray  # (S, n_seq, K, ny)
    seeds: np.ndarray  # (S,)
    dt: float


def write_trajectories(path: str | Path, trajectories: Trajectories) -> None:
    with atomic_h5(path) as h5:
        h5.create_dataset("y_ref", data=trajectories.y_ref)
        h5.create_dataset("y_hat", data=trajectories.y_hat)
        h5.create_dataset("seeds", data=trajectories.seeds)
        h5.attrs["dt"] = trajectories.dt


def read_trajectories(path: str | Path, rule: str = "evaluate_pretraining") -> Trajectories:
    with read_h5(path, rule) as h5:
        return Trajectories(h5["y_ref"][...], h5["y_hat"][...], h5["seeds"][...], float(h5.attrs["dt"]))


# ----------------------------------------------------------------------------- Coriolis strains


def write_strains(
    path: str | Path, reference_dt: float, strains: dict[int, tuple[np.ndarray, np.ndarray]], seeds: list[int]
) -> None:
    """strains: seed -> (q without, q with), (K, ny) each; ``seeds``: every start, failed ones too."""
    with atomic_h5(path) as h5:
        h5.attrs["reference_dt"] = reference_dt
        for seed, (without, with_) in strains.items():
            h5.create_dataset(f"seed{seed}/without", data=without)
            h5.create_dataset(f"seed{seed}/with", data=with_)
        h5.create_dataset("seeds", data=np.asarray(seeds, np.int64))


def read_strains(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], float]:
    """The (without, with) pairs of the starts that have them, in seed order, and the RON's dt."""
    with read_h5(path, "coriolis_ablation") as h5:
        pairs = [(h5[f"seed{s}/without"][...], h5[f"seed{s}/with"][...]) for s in h5["seeds"][...] if f"seed{s}" in h5]
        return pairs, float(h5.attrs["reference_dt"])
