"""What every workflow script does first: log to its Snakemake log and fix JAX's precision."""

from __future__ import annotations

import logging
import os
import platform
import subprocess
from pathlib import Path

import jax

from physres.cpus import job_cpus
from physres.io import setup_logging


def start_job(snakemake) -> logging.Logger:
    """Route this job's output to ``snakemake.log[0]`` and set float64 from ``params.x64``."""
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
    logger.info("JAX %s on %s; CPUs %s", jax.__version__, device_description(), sorted(job_cpus()))
    if int(getattr(snakemake.resources, "gpu", 0) or 0) > 0 and jax.default_backend() == "cpu":
        logger.warning(
            "this rule asks for a GPU but JAX runs on the CPU: install the CUDA build "
            "(pip install -e '.[cuda]') on the GPU nodes, or set resources.%s.gpu: 0",
            snakemake.rule,
        )
    return logger


def device_description() -> str:
    """The JAX backend and its devices, e.g. 'cpu: TFRT_CPU_0 (Intel(R) Xeon(R) Processor)' or
    'gpu: cuda:0 (NVIDIA H100)'. XLA compiles for the CPU it runs on, so a run's last bits can
    depend on which one it was."""
    model = cpu_model()
    cpu = f" ({model})" if model else ""
    devices = ", ".join(f"{d} ({d.device_kind})" if d.platform != "cpu" else f"{d}{cpu}" for d in jax.devices())
    return f"{jax.default_backend()}: {devices}"


def cpu_model(cpuinfo: str | Path = "/proc/cpuinfo") -> str | None:
    """The host CPU's model name: Linux's /proc/cpuinfo, else what the platform module knows (None
    if nothing)."""
    try:
        for line in Path(cpuinfo).read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def project_commit() -> str | None:
    """The git commit of the workflow's checkout (with '+dirty' for uncommitted changes), or None."""
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")
