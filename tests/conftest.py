import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

# The suite runs its programs on tiny data, where XLA's compiling is most of the cost: with its
# LLVM optimisations off the compile-heavy tests took 37 % less CPU, and with XLA's legacy CPU
# fusion emitters instead of its MLIR ones the unit tests took half of that (docs/performance.md,
# CI). Both round differently from the workflow's compiler, so every process of a test run must
# share them: set before jax is imported, they reach both pytest-xdist workers and every job of
# the smoke DAG, locally and on SLURM (sbatch --export=ALL). test_pretrain's bitwise check across
# processes compiles as the workflow does (WORKFLOW_COMPILER).
TEST_XLA_FLAGS = "--xla_cpu_use_fusion_emitters=false"
os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
os.environ.setdefault("XLA_FLAGS", TEST_XLA_FLAGS)
#: environment variables that give a subprocess the workflow's own compiler
WORKFLOW_COMPILER = {"JAX_DISABLE_MOST_OPTIMIZATIONS": "0", "XLA_FLAGS": ""}

import jax  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402

jax.config.update("jax_enable_x64", True)


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


ROOT = Path(__file__).resolve().parents[1]


def load_config(*overlays: str) -> dict:
    """config.yaml with overlays (paths relative to the repository) merged as --configfile does,
    unchecked."""
    from physres.config import merged_config

    return merged_config(ROOT / "config.yaml", [ROOT / overlay for overlay in overlays], check=False)


SMOKE_CONFIG = "workflow/configs/smoke.yaml"
#: the smoke overlay as written (not merged into config.yaml)
SMOKE_OVERLAY = yaml.safe_load((ROOT / SMOKE_CONFIG).read_text())
#: the smoke cell whose chain tests/test_slurm.py also runs through SLURM
SMOKE_CELL_TASK = "mackey_glass"
SMOKE_CELL_NY = load_config(SMOKE_CONFIG)["dimensions"][0]
_CELL = f"results/smoke/{{}}/{SMOKE_CELL_TASK}/ny{SMOKE_CELL_NY}"
#: that cell's chain (task data to the RON's and the pretrained reservoir's scores, both pretraining
#: modes and their evaluation) and the two downloaded tasks' data. The other variants run the same
#: rules. The local smoke DAG makes these first (--prioritize), so that the SLURM run of the same
#: targets can start early, on the compilation cache the local run has filled.
SMOKE_CELL_TARGETS = (
    [f"{_CELL.format('scores')}/{variant}.json" for variant in ("ron", "pretrained")]
    + [f"{_CELL.format('pretrain')}/{mode}/evaluation.json" for mode in load_config()["pretrain"]["modes"]]
    + ["results/smoke/data/adiac.h5", "results/smoke/data/smnist.h5"]
)
#: test files handed out first and last (pytest-xdist's --dist loadfile, --no-loadscope-reorder):
#: the SLURM cell first, so that its run overlaps the local smoke DAG instead of following it;
#: the smoke DAG's own tests last, so that no worker waits for the DAG while unit tests are left,
#: in two files that the two workers can take side by side once the DAG ends
FILES_FIRST, FILES_LAST = ("test_slurm.py",), ("test_smoke_tools.py", "test_workflow_smoke.py")


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


SMOKE_TIMEOUT = 2400  # seconds from the DAG's start: it shares the cores with the unit tests


def run_temp(config) -> Path:
    """This test run's temporary folder, one for all pytest-xdist workers: the controller's
    basetemp, of which each worker's is a subfolder (pytest keeps the last three runs)."""
    base = config._tmp_path_factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


@pytest.hookimpl(trylast=True)  # after the tmp_path plugin has configured its factory
def pytest_configure(config):
    """Every process of this test run (both pytest-xdist workers, and the jobs of the local and
    the SLURM smoke DAG) shares one persistent compilation cache in the run's temporary folder
    (removed with it): a program that one of them compiled is not compiled again by another."""
    cache = run_temp(config) / "jax-cache"
    cache.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PHYSRES_JAX_CACHE", str(cache))
    jax.config.update("jax_compilation_cache_dir", os.environ["PHYSRES_JAX_CACHE"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    # A job locks the CPU it takes in the system's temporary folder (physres.cpus.claim_cpus). The
    # test run's processes take theirs in a folder of its own, so that a workflow run beside the
    # tests (a paper run) never finds every CPU held and falls back to sharing one for hours.
    tmpdir = run_tmpdir(config)
    tmpdir.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(tmpdir)


def run_tmpdir(config) -> Path:
    """The temporary folder (TMPDIR) of every process this test run starts."""
    return run_temp(config) / "tmp"


def smoke_dag_folder(config) -> Path:
    return run_temp(config) / "smoke-dag"


def start_smoke_dag(config) -> Path:
    """The whole smoke DAG as a background process in a scratch copy of the workflow, once per
    test run: the first process (worker) to create the run's folder starts it, the others find
    it there. The folder holds the workflow copy (``workflow/``), the log, the process group's
    ``pid``, the start time (``started``, written last: the others wait for it) and, when the DAG
    ends, its ``returncode``."""
    folder = smoke_dag_folder(config)
    try:
        folder.mkdir()
    except FileExistsError:
        return folder
    workdir = folder / "workflow"
    workdir.mkdir()
    copy_workflow(workdir)
    # targets/options first: --configfile takes every word that follows it
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "--prioritize", *SMOKE_CELL_TARGETS]
    cmd += ["--configfile", SMOKE_CONFIG]
    # the return code written whole (temp then rename): a waiting worker never reads it half-written
    script = (
        f"{shlex.join(cmd)} > ../smoke-dag.log 2>&1; echo $? > ../returncode.tmp; mv ../returncode.tmp ../returncode"
    )
    # its own process group, so that a deadline or the end of the test run stops every job of it
    process = subprocess.Popen(["sh", "-c", script], cwd=workdir, start_new_session=True)
    (folder / "pid").write_text(str(process.pid))
    started = folder / "started.tmp"
    started.write_text(repr(time.time()))
    started.rename(folder / "started")  # last, and whole: the others wait for it
    return folder


def smoke_dag_deadline(folder: Path) -> float:
    """SMOKE_TIMEOUT after the DAG in ``folder`` started (time.time()), once it has started."""
    while not (folder / "started").exists():  # another worker is still copying the workflow
        time.sleep(0.5)
    return float((folder / "started").read_text()) + SMOKE_TIMEOUT


def stop_smoke_dag(folder: Path) -> None:
    if (folder / "pid").exists() and not (folder / "returncode").exists():
        try:
            os.killpg(int((folder / "pid").read_text()), signal.SIGKILL)
        except ProcessLookupError:
            pass


def pytest_collection_finish(session):
    """Start the smoke DAG as soon as the selected tests are known, if any needs it: it runs on
    both cores beside the unit tests, and ``smoke_run`` waits for it."""
    if any("smoke_run" in item.fixturenames for item in session.items):
        start_smoke_dag(session.config)


def pytest_collection_modifyitems(config, items):
    """FILES_FIRST, then the other files, then FILES_LAST (a stable sort: each group keeps the
    collection's order). Every worker sorts alike, so their collections stay equal."""

    def rank(item):
        name = item.path.name
        return -1 if name in FILES_FIRST else 1 + FILES_LAST.index(name) if name in FILES_LAST else 0

    items.sort(key=rank)


def pytest_unconfigure(config):
    """The controller (or a run without workers) stops a DAG that is still running: the run ended
    before a test waited for it. A worker leaves it, as another worker may still wait."""
    if not hasattr(config, "workerinput"):
        stop_smoke_dag(smoke_dag_folder(config))


@pytest.fixture(scope="session")
def smoke_run(request):
    """The whole smoke DAG, run once per test run (shared by the pytest-xdist workers), started in
    the background when the tests were collected: (workdir, snakemake output)."""
    folder = start_smoke_dag(request.config)
    deadline = smoke_dag_deadline(folder)
    while not (folder / "returncode").exists():
        if time.time() > deadline:
            stop_smoke_dag(folder)
            pytest.fail(f"the smoke DAG did not finish within {SMOKE_TIMEOUT} s (killed)")
        time.sleep(2)
    output = (folder / "smoke-dag.log").read_text()
    assert (folder / "returncode").read_text().strip() == "0", output[-6000:]
    return folder / "workflow", output


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


def markdown_cells(text: str) -> list[list[str]]:
    """The body rows of the markdown tables in some text, each a list of stripped cells."""
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("| ")
    ]
    return [row for row in rows if row[0] not in ("task", "quantity")]
