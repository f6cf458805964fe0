"""Seeded random streams: one independent, reproducible stream per (seed, purpose)."""

from __future__ import annotations

import zlib

import jax
import numpy as np


def rng_for(seed: int, *purpose: object) -> np.random.Generator:
    """A numpy Generator keyed by ``seed`` and a purpose (e.g. "ron", ny), stable across runs.

    Different purposes give statistically independent streams for the same seed, so adding a
    new random draw somewhere never shifts the numbers drawn elsewhere.
    """
    words = [zlib.crc32(str(p).encode()) for p in purpose]
    return np.random.default_rng(np.random.SeedSequence([int(seed), *words]))


def jax_key_for(seed: int, *purpose: object) -> jax.Array:
    """A JAX PRNG key keyed by ``seed`` and a purpose, like ``rng_for``."""
    return jax.random.PRNGKey(int(rng_for(seed, *purpose).integers(2**31)))


def label_key(*parts: object) -> jax.Array:
    """A JAX PRNG key from a job's label alone, e.g. ("mackey_glass", 6, "full"): the order in
    which a pretraining job draws its batches (the same for every start of the job).

    It is crc32 of the parts joined by "/", as the pretraining jobs have always keyed it, so the
    checkpoints of earlier runs stay reproducible; new draws use ``rng_for`` / ``jax_key_for``.
    """
    return jax.random.PRNGKey(zlib.crc32("/".join(map(str, parts)).encode()))
