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
