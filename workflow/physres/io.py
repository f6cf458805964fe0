"""Atomic file output, checked file input, HDF5/JSON helpers and per-job logging.

Every output is written to a temporary file beside its target and renamed into place, so an
interrupted job never leaves a half-written result that a later run would take as complete.
Every reader checks what it reads and raises ``InputError``, which names the file, what is
wrong with it and the rule that remakes it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h5py
import numpy as np


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` only on success."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except PermissionError as error:
        raise PermissionError(
            f"cannot write {path}: no permission to create files in {path.parent} "
            f"({error.strerror}); make it writable (chmod u+w) and rerun"
        ) from error
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the usual permissions
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class InputError(ValueError):
    """A file a job reads is unreadable, incomplete or holds non-finite numbers."""

    def __init__(self, path: str | os.PathLike, problem: str, rule: str):
        self.path, self.problem, self.rule = str(path), problem, rule
        super().__init__(
            f"{path}: {problem}. It was not written by this workflow as it stands, or was "
            f"changed since: delete it and rerun, so that rule '{rule}' makes it again "
            f"(`rm {path}` then the same snakemake command)."
        )


@contextlib.contextmanager
def read_h5(path: str | os.PathLike, rule: str) -> Iterator[h5py.File]:
    """Open an HDF5 input; an unreadable file or a missing member raises InputError."""
    try:
        handle = h5py.File(path, "r")
    except OSError as error:
        raise InputError(path, f"not a readable HDF5 file ({error})", rule) from error
    with handle:
        try:
            yield handle
        except KeyError as error:
            raise InputError(path, f"missing member or attribute {error}", rule) from error


def check_array(
    path: str | os.PathLike, name: str, array: np.ndarray, rule: str, ndim: int | None = None, finite: bool = True
) -> np.ndarray:
    """Return ``array`` if it has ``ndim`` dimensions and (if ``finite``) only finite values."""
    if ndim is not None and array.ndim != ndim:
        raise InputError(path, f"{name} has shape {array.shape}, expected {ndim} dimensions", rule)
    if finite and np.issubdtype(array.dtype, np.inexact) and not np.all(np.isfinite(array)):
        bad = int(np.size(array) - np.count_nonzero(np.isfinite(array)))
        raise InputError(path, f"{name} holds {bad} non-finite values", rule)
    return array


def write_json(path: str | os.PathLike, obj: Any) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(to_builtin(obj), indent=2, sort_keys=True) + "\n")


def read_json(path: str | os.PathLike, rule: str | None = None) -> Any:
    """Parse a JSON file; with ``rule``, a missing or unparsable file raises InputError."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        if rule is None:
            raise
        raise InputError(path, f"not a readable JSON file ({error})", rule) from error


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def to_builtin(obj: Any) -> Any:
    """Numpy scalars/arrays to plain Python, recursively; non-finite floats to None (valid JSON)."""
    if isinstance(obj, dict):
        return {str(k): to_builtin(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_builtin(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_builtin(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if np.isfinite(value) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


@contextlib.contextmanager
def atomic_h5(path: str | os.PathLike) -> Iterator[h5py.File]:
    """Open a new HDF5 file for writing that appears at ``path`` only when closed cleanly."""
    with atomic_path(path) as tmp:
        with h5py.File(tmp, "w") as handle:
            yield handle


def write_h5_attrs(group: h5py.Group, attrs: dict[str, Any]) -> None:
    """Store a flat dict as HDF5 attributes; nested values are stored as JSON strings."""
    for key, value in attrs.items():
        value = to_builtin(value)
        if isinstance(value, (dict, list)) or value is None:
            group.attrs[key] = json.dumps(value)
        else:
            group.attrs[key] = value


def setup_logging(log_path: str | os.PathLike | None) -> logging.Logger:
    """Send this job's log records, warnings and uncaught tracebacks to its Snakemake log file."""
    logger = logging.getLogger("physres")
    logger.setLevel(logging.INFO)
    logger.handlers.clear()
    stream = sys.stderr
    if log_path is not None:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        stream = open(log_path, "w", buffering=1)  # noqa: SIM115 - lives as long as the job
        sys.stderr = stream  # tqdm bars and tracebacks end up in the job log too
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logging.captureWarnings(True)
    return logger
