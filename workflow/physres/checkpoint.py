"""Checkpoints of pretrained physical reservoirs: one start per file, equinox's serialised
leaves, plus a JSON sidecar at ``path.with_suffix('.json')`` that says how to rebuild the
skeleton (``architecture``: the arguments of physres.physical.init_physical_reservoir) and
records seed, schedule, library versions, loss curves, theta_rob before and after, and
``failed`` (a start that never reached a finite validation loss)."""

from __future__ import annotations

from pathlib import Path

import equinox as eqx
import jax
import numpy as np

from physres.io import InputError, atomic_path, check_array, read_json, write_json
from physres.physical import PhysicalReservoir, init_physical_reservoir


def save_checkpoint(path: str | Path, model: PhysicalReservoir, sidecar: dict) -> None:
    """Equinox serialisation of one start, plus a JSON sidecar (how to rebuild its skeleton,
    seed, library versions, loss curves, ``failed``) at path.with_suffix('.json')."""
    with atomic_path(path) as tmp:
        eqx.tree_serialise_leaves(tmp, model)
    write_json(Path(path).with_suffix(".json"), sidecar)


def load_checkpoint(path: str | Path) -> tuple[PhysicalReservoir, dict]:
    """The model and sidecar of one start; an unreadable pair raises InputError (rule pretrain)."""
    sidecar = read_json(Path(path).with_suffix(".json"), rule="pretrain")
    try:
        skeleton = init_physical_reservoir(jax.random.PRNGKey(0), **sidecar["architecture"])
        model = eqx.tree_deserialise_leaves(path, skeleton)
    except (KeyError, TypeError, ValueError, OSError, RuntimeError) as error:
        raise InputError(
            path, f"cannot be rebuilt from its sidecar ({type(error).__name__}: {error})", "pretrain"
        ) from error
    for leaf in jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_inexact_array)):
        check_array(path, "a parameter", np.asarray(leaf), "pretrain")
    return model, sidecar


def training_failed(sidecar: dict) -> bool:
    """True for a start whose training never reached a finite validation loss (sidecars before
    the key existed called it ``diverged``)."""
    return bool(sidecar.get("failed", sidecar.get("diverged", False)))
