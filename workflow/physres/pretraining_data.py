"""Pretraining datasets (paper, supplementary C): m points (y, y', u) drawn uniformly in a box
set by the ranges the reference RON visits when driven by the task's training inputs, labelled
with y'' = f_ref(y, y', u), split train/val/test."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from physres.batching import chunked
from physres.io import InputError, atomic_h5, check_array, read_h5, write_h5_attrs
from physres.ron import RON, f_ref, ron_rollout
from physres.seeding import rng_for

SPLITS = ("train", "val", "test")
# how the visited ranges make the sampling box: one symmetric range for every coordinate of y
# (and of y'), one range for every input, as the thesis code's boxes are; or the visited
# interval of each coordinate itself
BOXES = ("shared", "per_coordinate")


def visited_box(ron: RON, u: np.ndarray, chunk_size: int) -> dict[str, np.ndarray]:
    """Elementwise bounds of y and y' over a RON rollout on u, and of u itself.

    u: (n_seq, K, n_u). Returns low/high arrays: y and ydot (ny,), u (n_u,).
    """
    bounds = []

    def block_bounds(block):
        low, high = ron_rollout(ron, jnp.asarray(block), keep="bounds")
        bounds.append((np.asarray(low), np.asarray(high)))
        return np.zeros((len(block), 0)), None

    chunked(block_bounds, u, chunk_size, desc="RON box")
    low = np.min([b[0] for b in bounds], axis=0)
    high = np.max([b[1] for b in bounds], axis=0)
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        raise FloatingPointError("the reference RON diverged on the training inputs; check its configuration")
    flat_u = u.reshape(-1, u.shape[-1])
    return {
        "y_low": low[0],
        "y_high": high[0],
        "ydot_low": low[1],
        "ydot_high": high[1],
        "u_low": flat_u.min(0).astype(np.float64),
        "u_high": flat_u.max(0).astype(np.float64),
    }


def shared_box(visited: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The box of ``visited_box`` widened to one range per quantity: y and y' in [-a, a] in every
    coordinate, a the largest |y| (|y'|) visited in any coordinate; u in [min, max] over all
    inputs. The thesis code's datasets are drawn so (Adiac, ny = 6: y in +-0.3, y' in +-0.25,
    u in [-2.1, 2.7], for a RON that visits +-0.35, +-0.29 and [-1.99, 2.63] here), which also
    covers both signs of the coordinates that a rollout from rest visits on one side only."""
    box = {}
    for name in ("y", "ydot"):
        low, high = visited[f"{name}_low"], visited[f"{name}_high"]
        a = float(max(np.abs(low).max(), np.abs(high).max()))
        box[f"{name}_low"], box[f"{name}_high"] = np.full_like(low, -a), np.full_like(high, a)
    low, high = visited["u_low"], visited["u_high"]
    box["u_low"], box["u_high"] = np.full_like(low, low.min()), np.full_like(high, high.max())
    return box


def sampling_box(visited: dict[str, np.ndarray], kind: str) -> dict[str, np.ndarray]:
    """The box the dataset is drawn from (``kind`` one of BOXES) given the visited ranges."""
    if kind not in BOXES:
        raise ValueError(f"pretraining_dataset.box {kind!r}; allowed: {', '.join(BOXES)}")
    return shared_box(visited) if kind == "shared" else visited


def sample_dataset(ron: RON, box: dict[str, np.ndarray], m: int, fractions: list[float], seed: int) -> dict:
    """Uniform samples in the box, labels from f_ref, a seeded split by ``fractions``.

    Returns {split: {"y": (n, ny), "ydot": (n, ny), "u": (n, n_u), "yddot": (n, ny)}}.
    """
    rng = rng_for(seed, "pretraining_dataset", ron.ny)
    points = {
        name: rng.uniform(box[f"{name}_low"], box[f"{name}_high"], size=(m, len(box[f"{name}_low"])))
        for name in ("y", "ydot", "u")
    }
    yddot = np.asarray(
        jax.jit(jax.vmap(f_ref, in_axes=(None, 0, 0, 0)))(
            ron, jnp.asarray(points["y"]), jnp.asarray(points["ydot"]), jnp.asarray(points["u"])
        )
    )
    points["yddot"] = yddot
    order = rng.permutation(m)
    bounds = np.cumsum([0] + [int(round(f * m)) for f in fractions[:-1]] + [m])
    bounds[-1] = m
    return {
        split: {k: v[order[bounds[i] : bounds[i + 1]]] for k, v in points.items()} for i, split in enumerate(SPLITS)
    }


def write_dataset(path: str | Path, dataset: dict, box: dict, attrs: dict) -> None:
    with atomic_h5(path) as h5:
        write_h5_attrs(h5, attrs)
        box_group = h5.create_group("box")
        for key, value in box.items():
            box_group.create_dataset(key, data=value)
        for split, arrays in dataset.items():
            group = h5.create_group(split)
            for key, value in arrays.items():
                group.create_dataset(key, data=value)


def read_dataset(path: str | Path) -> dict:
    """{split: {"y", "ydot", "u", "yddot": (n, ...)}}, checked: all four, 2-D, finite, one length."""
    rule = "pretraining_dataset"
    out = {}
    with read_h5(path, rule) as h5:
        for split in SPLITS:
            arrays = {
                k: check_array(path, f"/{split}/{k}", h5[split][k][...], rule, ndim=2)
                for k in ("y", "ydot", "u", "yddot")
            }
            if len({len(a) for a in arrays.values()}) != 1:
                raise InputError(path, f"/{split} arrays have different lengths", rule)
            out[split] = arrays
    return out
