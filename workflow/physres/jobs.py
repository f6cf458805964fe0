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
    # jobs of the same shapes (other tasks, other seeds) reuse compiled programs across processes
    cache = os.environ.get("PHYSRES_JAX_CACHE", ".jax_cache")
    if cache:
        jax.config.update("jax_compilation_cache_dir", os.path.abspath(cache))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
    logger.info("rule %s, wildcards %s", snakemake.rule, dict(snakemake.wildcards))
    return logger
