"""What every workflow script does first: log to its Snakemake log and fix JAX's precision."""

from __future__ import annotations

import logging
import os

import jax


def start_job(snakemake) -> logging.Logger:
    """Route this job's output to ``snakemake.log[0]`` and set float64 from ``params.x64``."""
    from physres.io import setup_logging

    logger = setup_logging(snakemake.log[0] if snakemake.log else None)
    jax.config.update("jax_enable_x64", bool(getattr(snakemake.params, "x64", True)))
    # Jobs reuse compiled programs across processes. Every program is cached, however small:
    # a fresh process otherwise spends ~15 s compiling the hundreds of small eager ops that
    # soromox's robot construction and the parameter initialisations dispatch (measured: 17 s -> 4 s).
    cache = os.environ.get("PHYSRES_JAX_CACHE", ".jax_cache")
    if cache:
        jax.config.update("jax_compilation_cache_dir", os.path.abspath(cache))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    logger.info("rule %s, wildcards %s", snakemake.rule, dict(snakemake.wildcards))
    return logger
