"""The CPUs a job may use: as many as it declared threads, the same on every machine."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from threadpoolctl import threadpool_limits


def claim_cpus(n: int, lock_dir: str | Path | None = None) -> set[int]:
    """Restrict this process to ``n`` of the CPUs it may use, and every BLAS to ``n`` threads.

    XLA sizes its CPU thread pool by the CPUs a process may use when its backend starts, and a
    pool of one thread rounds a matrix product's gradient differently than a pool of two; so
    does a BLAS. Restricting every job to its declared threads makes its numbers independent of
    the machine's core count and of how it was started (a SLURM job with ``threads: 1`` gets
    one CPU, a local one all of them), and two jobs side by side then stop contending for the
    same cores (docs/performance.md). It must come before the JAX backend starts, which
    importing soromox does: in a Snakemake job, importing physres calls it.

    The CPUs are taken first from those no other physres job on this machine holds: a job locks
    ``physres-cpu<i>.lock`` in ``lock_dir`` (the system's temporary folder) until it exits.
    Returns the CPUs the process may use now.
    """
    if not hasattr(os, "sched_setaffinity"):  # macOS: no affinity, the thread counts only
        threadpool_limits(n)
        return job_cpus()
    import fcntl  # POSIX only

    allowed = sorted(os.sched_getaffinity(0))
    if n < len(allowed):
        lock_dir = Path(lock_dir or tempfile.gettempdir())
        taken = []
        for cpu in allowed:
            if len(taken) == n:
                break
            try:  # another user's lock file may not be ours to open: that CPU counts as held
                # the descriptor stays open, so the lock holds until the process exits
                fd = os.open(lock_dir / f"physres-cpu{cpu}.lock", os.O_CREAT | os.O_RDWR, 0o666)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                taken.append(cpu)
            except BlockingIOError:
                os.close(fd)
        # all held (more jobs than CPUs): share some, spread by process id; the count, not which
        # ones, sets the numbers
        free = [cpu for cpu in allowed if cpu not in taken]
        start = os.getpid() % len(free)
        taken += (free[start:] + free[:start])[: n - len(taken)]
        for thread in os.listdir("/proc/self/task"):  # threads already started (a BLAS's) too
            os.sched_setaffinity(int(thread), taken)
    threadpool_limits(n)
    return os.sched_getaffinity(0)


def job_cpus() -> set[int]:
    """The CPUs this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return os.sched_getaffinity(0)
    return set(range(os.cpu_count() or 1))
