"""Checkpoints of pretrained physical reservoirs, one start per file.

``seed{s}.eqx`` is one file that rebuilds the model alone, as equinox's serialisation example
writes it: a JSON header line, then equinox's serialised leaves. The header holds the start's
record (``architecture``: the arguments of physres.physical.init_physical_reservoir that build
the skeleton; seed, schedule, library versions, the run's fingerprint, loss curves, theta_rob
before and after, ``failed``: a start that never reached a finite validation loss). The same
record is written beside it as ``seed{s}.json`` for people and for the rules that only read the
record (tables, evaluation)."""

from __future__ import annotations

import json
from pathlib import Path

import equinox as eqx
import jax
import numpy as np

from physres.io import InputError, atomic_path, check_array, to_builtin, write_json
from physres.physical import PhysicalReservoir, init_physical_reservoir

#: the header's first key: a file without it is not a checkpoint of this format
FORMAT = "physres checkpoint 1"


def save_checkpoint(path: str | Path, model: PhysicalReservoir, record: dict) -> None:
    """The header line (``record`` with its ``architecture``) and the model's leaves in one file,
    and the record as JSON at path.with_suffix('.json')."""
    header = json.dumps({"format": FORMAT, **to_builtin(record)}, sort_keys=True)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        handle.write((header + "\n").encode())
        eqx.tree_serialise_leaves(handle, model)
    write_json(Path(path).with_suffix(".json"), record)


def header_of(line: bytes) -> dict:
    """The JSON header of a checkpoint's first line; {} where the line is none (binary, truncated)."""
    try:
        header = json.loads(line)
    except ValueError:  # UnicodeDecodeError included
        return {}
    return header if isinstance(header, dict) else {}


def load_checkpoint(path: str | Path) -> tuple[PhysicalReservoir, dict]:
    """The model and record of one start, from the .eqx file alone; an unreadable file raises
    InputError naming the rule that remakes it (pretrain)."""
    try:
        with open(path, "rb") as handle:
            header = header_of(handle.readline())
            if header.get("format") != FORMAT:
                raise ValueError(f"no {FORMAT!r} header (written by an older physres?)")
            skeleton = init_physical_reservoir(jax.random.PRNGKey(0), **header["architecture"])
            model = eqx.tree_deserialise_leaves(handle, skeleton)
    except (KeyError, TypeError, ValueError, OSError, RuntimeError) as error:
        raise InputError(path, f"cannot be rebuilt ({type(error).__name__}: {error})", "pretrain") from error
    for leaf in jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_inexact_array)):
        check_array(path, "a parameter", np.asarray(leaf), "pretrain")
    header.pop("format")
    return model, header


def cell_checkpoints(run: Path, task: str, ny: int, mode: str) -> list[Path]:
    """A pretraining cell's checkpoints in a run's folder ``run`` (results/<run>), in seed order;
    FileNotFoundError naming the Snakemake target that builds them when there are none."""
    cell = run / "pretrain" / task / f"ny{ny}" / mode
    paths = sorted(cell.glob("seed*.eqx"), key=lambda path: int(path.stem.removeprefix("seed")))
    if not paths:
        target = f"results/{run.name}/pretrain/{task}/ny{ny}/{mode}/evaluation.json"
        raise FileNotFoundError(f"no checkpoints in {cell}: build them with snakemake {target}")
    return paths


def training_failed(record: dict) -> bool:
    """True for a start whose training never reached a finite validation loss (records before
    the key existed called it ``diverged``)."""
    return bool(record.get("failed", record.get("diverged", False)))
