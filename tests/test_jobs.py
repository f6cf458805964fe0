"""What every job logs about where it ran (the JAX backend, its devices and the host CPU), and the CPUs
it takes."""

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import jax
import pytest

from physres.jobs import cpu_model, device_description


def test_the_cpu_model_is_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t: fpu\n"
    )
    assert cpu_model(cpuinfo) == "Intel(R) Xeon(R) Processor"


def test_without_cpuinfo_the_platform_module_answers(tmp_path, monkeypatch):
    monkeypatch.setattr("platform.processor", lambda: "x86_64")
    assert cpu_model(tmp_path / "missing") == "x86_64"
    monkeypatch.setattr("platform.processor", lambda: "")
    assert cpu_model(tmp_path / "missing") is None


def test_a_cpu_device_is_described_with_the_host_cpu():
    description = device_description()
    assert description.startswith(f"{jax.default_backend()}: ")
    if jax.default_backend() == "cpu" and cpu_model():
        assert f"({cpu_model()})" in description


needs_two_cpus = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs"
)

# a job's imports, then the gradient of a 2-layer tanh MLP (a pretraining step's kind of matrix
# product, whose rounding follows XLA's thread pool) and a ridge solve (a readout's, a BLAS's)
ROUNDING = """
import hashlib, sys, types
if sys.argv[1] == "job":
    snakemake = types.SimpleNamespace(threads=1)  # what Snakemake's preamble defines in a job
import jax, jax.numpy as jnp, numpy as np
import physres.pretrain_job, physres.physical, physres.readout
jax.config.update("jax_enable_x64", True)
A = jax.random.normal(jax.random.PRNGKey(1), (4, 1024, 64))
W = jax.random.normal(jax.random.PRNGKey(2), (4, 64, 64))
grad = jax.jit(jax.grad(lambda W: jnp.sum(jnp.tanh(jnp.tanh(A @ W) @ W) ** 2)))(W)
X, Y = np.random.default_rng(1).normal(size=(3000, 400)), np.random.default_rng(2).normal(size=(3000, 10))
ridge = np.linalg.solve(X.T @ X + 1e-3 * np.eye(400), X.T @ Y)
print([hashlib.sha256(np.asarray(a).tobytes()).hexdigest() for a in (grad, ridge)])
"""


def _run(code, *args, lock_dir, cpu=None):
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    env = {**os.environ, "TMPDIR": str(lock_dir)}  # the lock files' folder
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, preexec_fn=pin, env=env, check=True
    )
    return done.stdout.strip().splitlines()[-1]


@needs_two_cpus
def test_a_job_takes_a_cpu_no_other_job_holds(tmp_path):
    first, second = sorted(os.sched_getaffinity(0))[:2]
    held = os.open(tmp_path / f"physres-cpu{first}.lock", os.O_CREAT | os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # another job's
    code = "from physres.cpus import claim_cpus; print(sorted(claim_cpus(1)))"
    assert _run(code, lock_dir=tmp_path) == f"[{second}]"
    os.close(held)
    assert _run(code, lock_dir=tmp_path) == f"[{first}]"


@needs_two_cpus
def test_with_every_cpu_held_a_job_still_keeps_to_one(tmp_path):
    """More jobs than CPUs: a job shares a CPU rather than spreading over all, which would change
    its rounding."""
    held = [os.open(tmp_path / f"physres-cpu{cpu}.lock", os.O_CREAT | os.O_RDWR) for cpu in os.sched_getaffinity(0)]
    for fd in held:
        fcntl.flock(fd, fcntl.LOCK_EX)
    code = "from physres.cpus import claim_cpus; print(len(claim_cpus(1)))"
    assert _run(code, lock_dir=tmp_path) == "1"
    for fd in held:
        os.close(fd)


@needs_two_cpus
def test_a_job_rounds_as_a_process_started_on_one_cpu(tmp_path):
    """Importing physres claims the job's CPU before soromox starts JAX's backend (XLA sizes its
    thread pool then) and limits the BLAS, so a job rounds as a process that only ever had one CPU."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    assert _run(ROUNDING, "job", lock_dir=tmp_path) == _run(ROUNDING, "as-is", lock_dir=tmp_path, cpu=cpu)


def test_a_test_runs_jobs_lock_their_cpus_apart_from_other_runs(pytestconfig):
    """The jobs a test run starts (its smoke DAGs among them) take their CPU locks in the run's
    own temporary folder, not in the one that a workflow run beside the tests locks in."""
    from conftest import run_tmpdir

    code = "import tempfile; print(tempfile.gettempdir())"
    lock_dir = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert Path(lock_dir.strip()).resolve() == run_tmpdir(pytestconfig).resolve()
