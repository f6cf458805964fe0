import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import pytest

jax.config.update("jax_enable_x64", True)
# identical programs (same shapes) compiled by different tests are compiled once per session
jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="physres-jax-cache-"))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)


MAPPINGS_BEFORE_RELEASE = 30000  # the kernel's vm.max_map_count is 65530; one module adds < 16k


@pytest.fixture(autouse=True, scope="module")
def release_compiled_programs():
    """Drop JAX's in-memory compiled programs after a test module once the process holds many
    memory mappings. Each CPU executable holds some; one pytest process that keeps every program
    of the suite passes the kernel's vm.max_map_count (65530), and XLA then crashes mid-compile.
    Programs a later module needs again come back from the persistent cache above."""
    yield
    maps = Path("/proc/self/maps")
    if maps.exists() and len(maps.read_bytes().splitlines()) > MAPPINGS_BEFORE_RELEASE:
        jax.clear_caches()


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng(1234)


# the jobs of every snakemake run in this session (local and SLURM smoke DAG) share one
# persistent compilation cache: the same programs are compiled once, not once per run
os.environ.setdefault("PHYSRES_JAX_CACHE", tempfile.mkdtemp(prefix="physres-job-cache-"))

ROOT = Path(__file__).resolve().parents[1]


def load_config(*overlays: str) -> dict:
    """config.yaml with overlays (paths relative to the repository) merged as --configfile does."""
    import yaml
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    for overlay in overlays:
        update_config(config, yaml.safe_load((ROOT / overlay).read_text()))
    return config


SMOKE_CONFIG = "workflow/configs/smoke.yaml"


def copy_workflow(dest: Path) -> Path:
    """A scratch copy of the workflow (Snakefile, config, workflow/, envs/) to run snakemake in."""
    for name in ("Snakefile", "config.yaml", "workflow", "envs"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / name)
    return dest


def run_smoke_snakemake(workdir, *args, overlays=(), timeout=1500):
    # targets and options first: --configfile takes every word that follows it
    cmd = [sys.executable, "-m", "snakemake", *args, "--cores", "2", "--configfile", SMOKE_CONFIG, *overlays]
    result = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout + result.stderr


SMOKE_DAG = pytest.StashKey[dict]()
SMOKE_TIMEOUT = 2400  # seconds from the session's start: the DAG shares the cores with the unit tests


def start_smoke_dag(config) -> dict:
    """The whole smoke DAG as a background process in a scratch copy of the workflow."""
    workdir = copy_workflow(config._tmp_path_factory.mktemp("smoke"))
    log = workdir / "smoke-dag.log"
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", SMOKE_CONFIG]
    with open(log, "w") as out:
        process = subprocess.Popen(cmd, cwd=workdir, stdout=out, stderr=subprocess.STDOUT, text=True)
    return {"workdir": workdir, "log": log, "process": process, "started": time.monotonic()}


def pytest_collection_finish(session):
    """Start the smoke DAG as soon as the selected tests are known, if any needs it: it runs on
    both cores beside the unit tests, which use one, and ``smoke_run`` waits for it."""
    if any("smoke_run" in item.fixturenames for item in session.items):
        session.config.stash[SMOKE_DAG] = start_smoke_dag(session.config)


def pytest_unconfigure(config):
    dag = config.stash.get(SMOKE_DAG, None)
    if dag is not None and dag["process"].poll() is None:
        dag["process"].kill()


@pytest.fixture(scope="session")
def smoke_run(request):
    """The whole smoke DAG, run locally once per test session, started in the background when the
    session's tests were collected: (workdir, snakemake output)."""
    config = request.config
    if SMOKE_DAG not in config.stash:
        config.stash[SMOKE_DAG] = start_smoke_dag(config)
    dag = config.stash[SMOKE_DAG]
    left = max(1.0, SMOKE_TIMEOUT - (time.monotonic() - dag["started"]))
    try:
        returncode = dag["process"].wait(timeout=left)
    except subprocess.TimeoutExpired:
        dag["process"].kill()
        pytest.fail(f"the smoke DAG did not finish within {SMOKE_TIMEOUT} s (killed)")
    output = dag["log"].read_text()
    assert returncode == 0, output[-6000:]
    return dag["workdir"], output


def small_ron():
    """A 6-dimensional RON of Mackey-Glass ny = 6's configuration, for pretraining tests."""
    from physres.ron import init_ron

    return init_ron(
        0,
        ny=6,
        nu=1,
        dt=0.05,
        spectral_radius_target=0.9,
        input_scaling=1.0,
        gamma_range=(0.1, 10.1),
        epsilon_range=(1.5, 2.5),
    )


def small_dataset(m: int) -> dict:
    """A pretraining dataset of ``small_ron`` with m points in a fixed box (split 70/10/20)."""
    import numpy as np

    from physres.pretraining_data import sample_dataset

    box = {
        "y_low": -np.ones(6) * 0.3,
        "y_high": np.ones(6) * 0.3,
        "ydot_low": -np.ones(6),
        "ydot_high": np.ones(6),
        "u_low": np.array([-0.5]),
        "u_high": np.array([0.3]),
    }
    return sample_dataset(small_ron(), box, m=m, fractions=[0.7, 0.1, 0.2], seed=0)
