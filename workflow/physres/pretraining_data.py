"""Pretraining datasets (paper, supplementary C): m points (y, y', u) drawn uniformly in the box
that the reference RON visits when driven by the task's training inputs, labelled with
y'' = f_ref(y, y', u), split train/val/test."""

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
