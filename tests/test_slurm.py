"""One cell of the smoke DAG through workflow/profiles/slurm on a real single-node SLURM cluster.

``slurm_cluster.single_node_slurm`` starts munged + slurmctld + slurmd (root and Debian
needed; slurm-wlm and munge are apt-installed if missing) and stops every process it
started, by PID. In a scratch copy of the workflow (``conftest.copy_workflow``) the test runs

    snakemake <SMOKE_CELL_TARGETS> --profile <copy>/workflow/profiles/slurm --profile <test override> \\
              --verbose --configfile workflow/configs/smoke.yaml

with a hard deadline (the process group is killed), while the local smoke DAG
(``snakemake --cores 2``, the whole DAG) goes on. The local DAG makes ``SMOKE_CELL_TARGETS`` first
(``--prioritize``, tests/conftest.py) and the SLURM run starts once they exist, so that its jobs
find their programs in the run's shared compilation cache; this module is the first file a
pytest-xdist worker takes, so that the SLURM run overlaps the rest of the local DAG instead of
following it. ``SMOKE_CELL_TARGETS`` are one cell's chain (Mackey-Glass at the first smoke
dimension: task data, reference RON, its selection, pretraining dataset, both pretraining modes
and their evaluation, the RON's and the pretrained variant's rollouts and readouts) and the two
downloaded tasks' data, so every rule that runs per task, per cell or per variant, and both
downloads, runs here; the tables, figures and supplementary rules, which only gather those
files, are left to the local run (the whole DAG twice cost CI 13 of its 24 minutes on 2
cores). Then:

* every file under results/ must equal the local run's file of the same name: HDF5 by
  datasets (array equality), attributes, dtypes and shapes via h5py; JSON without measured
  seconds; everything else (.eqx) byte for byte (the comparison also knows PDFs and the
  Coriolis table, for a SLURM run given those targets);
* the run plans what a dry run of the same targets plans, which covers every per-cell rule;
  every job except the downloads (local rules) must have gone through ``sbatch`` (one call per
  job, one SLURM job id each, SLURM itself reports each job COMPLETED) and its sbatch
  ``--mem``/``-t``/``--gpus`` must be the job's resources, i.e. config.yaml's ``resources:``
  table for the rules that have an entry there;
* a job that fails is reported as failed with its logs kept: in a copy of the finished run,
  results/smoke/data/mackey_glass.h5 is overwritten with garbage and the rollout of one
  mackey_glass cell is forced (``--forcerun rollout_ron``). Snakemake must exit non-zero, name
  rule rollout_ron, keep its log under logs/ and the SLURM log, and leave every other output alone.

GPUs: ``pretrain`` and ``pretrain_part`` have ``gpu: 1`` in config.yaml's resources table. The test cluster
announces 4 *fake* GPUs (GRES gpu on dummy character devices), so the plugin really submits
``--gpus=1`` for every pretraining job and SLURM really allocates one (``scontrol show job``:
TresPerJob=gres:gpu:1). JAX has no CUDA plugin here and computes on the CPU, as locally.

The test-only override profile changes only what a laptop cluster needs: short status-check
intervals, no retries, a short latency-wait and (only if the real profile sets them)
cluster-specific resources such as partition, account or GPU model are dropped.

The sbatch lines are taken from snakemake's ``--verbose`` output ("sbatch call: ...") and
recorded: printed, ``record_property`` (junit xml), ``<pytest basetemp>/sbatch_calls.txt``
and, if set, the file named by $PHYSRES_SLURM_SBATCH_RECORD.

Skips (with the reason) when SLURM cannot be used here, unless PHYSRES_REQUIRE_SLURM=1,
in which case it fails instead (CI sets it).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np
import pytest
import yaml
from conftest import (
    SMOKE_CELL_NY,
    SMOKE_CELL_TARGETS,
    SMOKE_CELL_TASK,
    SMOKE_CONFIG,
    copy_workflow,
    smoke_dag_deadline,
    smoke_dag_folder,
    start_smoke_dag,
)

try:
    from slurm_cluster import MARKER_VAR, single_node_slurm, slurm_available
except ImportError:  # e.g. pytest --import-mode=importlib
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from slurm_cluster import MARKER_VAR, single_node_slurm, slurm_available

pytestmark = pytest.mark.slurm

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROFILE_REL = Path("workflow/profiles/slurm")
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
#: rules that run on the submit host: the downloads (localrules in data.smk)
SUBMIT_HOST_RULES = {"fetch_mnist", "fetch_adiac"}
CONFIG = yaml.safe_load((REPO / "config.yaml").read_text())

#: hard deadline for the SLURM run of the smoke cell (its process group is killed after it)
SMOKE_DEADLINE = 1500
#: hard deadline for the run with the failing job
RUN_TIMEOUT = 180
#: CPUs the fake node announces. Every job imports JAX (and runs snakemake twice: the
#: sbatch script and the srun step), so on a 2-core machine more parallel jobs only
#: compete for the same cores.
TEST_CPUS = 4
#: seconds SLURM keeps finished jobs (``scontrol show job``; squeue status checks need
#: them too): longer than the whole module
MIN_JOB_AGE = 3600
#: resources that only make sense on the real cluster; dropped for the test cluster
CLUSTER_SPECIFIC = {
    "slurm_partition",
    "slurm_account",
    "gpu_model",
    "constraint",
    "qos",
    "slurm_extra",
    "cluster",
    "clusters",
    "slurm_cluster",
}
#: settings of the test-only override profile (a later --profile wins per top-level key)
TEST_OVERRIDES = {
    # short status-check intervals (the plugin adds 10 s per check without news)
    "slurm-init-seconds-before-status-checks": 2,
    "seconds-between-status-checks": 2,
    # the test cluster has no accounting: sacct would hang the run (see the profile)
    "slurm-status-command": "squeue",
    # keep SLURM logs of successful jobs for inspection
    "slurm-keep-successful-logs": True,
    "latency-wait": 5,
    # a failing job must fail once, not be resubmitted
    "retries": 0,
}
#: every rule that runs per task, cell, mode or variant (fetch_* run on the submit host)
CELL_RULES = {
    "task_data_mackey_glass",
    "task_data_adiac",
    "task_data_smnist",
    "fetch_adiac",
    "fetch_mnist",
    "reference_ron",
    "select_reference",
    "pretraining_dataset",
    "pretrain_part",
    "pretrain",
    "evaluate_pretraining",
    "rollout_ron",
    "rollout_physical",
    "gather_activations",
    "readout",
}


# --------------------------------------------------------------------------------------
# running snakemake
# --------------------------------------------------------------------------------------


@dataclass
class Run:
    cmd: list[str]
    workdir: Path
    returncode: int
    output: str
    seconds: float


class Snakemake:
    """snakemake in its own process group, output to a file; killed at the deadline."""

    def __init__(self, args: list[str], workdir: Path, env: dict[str, str], output: Path, timeout: float):
        self.cmd, self.workdir, self.output_path, self.timeout = SNAKEMAKE + args, workdir, output, timeout
        self.t0 = time.monotonic()
        self.t_end: float | None = None
        # a file, not a pipe: nobody reads a pipe while the local run goes on
        with open(output, "w") as out:
            self.proc = subprocess.Popen(
                self.cmd,
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        # notes when snakemake ends, also while the test waits for something else
        self._waiter = threading.Thread(target=self._note_end, daemon=True)
        self._waiter.start()

    def _note_end(self) -> None:
        self.proc.wait()
        self.t_end = time.monotonic()

    def kill(self) -> None:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                pass

    def wait(self) -> Run:
        left = max(0.0, self.t0 + self.timeout - time.monotonic())
        try:
            rc = self.proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(
                f"snakemake did not finish within {self.timeout} s (killed): {' '.join(self.cmd)}\n"
                f"{self.output_path.read_text(errors='replace')[-6000:]}"
            )
        finally:
            if self.proc.poll() is None:
                self.kill()
        self._waiter.join(timeout=5)
        return Run(
            self.cmd,
            self.workdir,
            rc,
            self.output_path.read_text(errors="replace"),
            (self.t_end or time.monotonic()) - self.t0,
        )


def _clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SNAKEMAKE_PROFILE"))}
    env.update(extra or {})
    return env


def profile_args(workdir: Path, override: Path) -> list[str]:
    return ["--profile", str(workdir / PROFILE_REL), "--profile", str(override), "--verbose"]


def write_override_profile(dest: Path, real_profile: Path, partition: str) -> Path:
    """Test-only profile layered after the real one (``--profile real --profile this``)."""
    real = yaml.safe_load((real_profile / "config.yaml").read_text())
    override = dict(TEST_OVERRIDES)
    defaults = dict(real.get("default-resources") or {})
    if CLUSTER_SPECIFIC & defaults.keys():
        for k in CLUSTER_SPECIFIC:
            defaults.pop(k, None)
        defaults["slurm_partition"] = partition
        override["default-resources"] = defaults
    per_rule = real.get("set-resources") or {}
    stripped = {r: {k: v for k, v in res.items() if k not in CLUSTER_SPECIFIC} for r, res in per_rule.items()}
    if stripped != per_rule:
        override["set-resources"] = stripped
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "config.yaml").write_text(yaml.safe_dump(override, sort_keys=False))
    return dest


# --------------------------------------------------------------------------------------
# reading snakemake's --verbose output
# --------------------------------------------------------------------------------------

SBATCH_RE = re.compile(r"sbatch call: (sbatch .*)")
SUBMITTED_RE = re.compile(r"Job (\d+) has been submitted with SLURM jobid (\d+) \(log: (\S+)\)\.")
JOB_BLOCK_RE = re.compile(r"^(local)?rule (\w+):\n((?:    .*\n)+)", re.M)


@dataclass
class SbatchCall:
    rule: str
    line: str
    log_dir: str  # the job's .snakemake/slurm_logs/rule_<rule>/<wildcards> folder

    def option(self, name: str) -> str | None:
        m = re.search(rf"(?:^|\s){re.escape(name)}[ =](\S+)", self.head)
        return m.group(1) if m else None

    @property
    def head(self) -> str:
        """The line without the (long) --wrap payload."""
        return self.line.split(' --wrap="', 1)[0]


def sbatch_calls(output: str) -> list[SbatchCall]:
    calls = []
    for m in SBATCH_RE.finditer(output):
        line = m.group(1).strip()
        log = re.search(r"--output (\S+)/%j\.log", line)
        rule = re.search(r"/slurm_logs/rule_(\w+?)(?:/|$)", log.group(1) if log else "")
        calls.append(SbatchCall(rule.group(1) if rule else "?", line, log.group(1) if log else "?"))
    return calls


def submissions(output: str) -> list[tuple[int, int, str]]:
    """(snakemake job id, SLURM job id, SLURM log path) per submitted job."""
    return [(int(a), int(b), c) for a, b, c in SUBMITTED_RE.findall(output)]


def job_blocks(output: str) -> dict[int, tuple[str, bool, dict[str, str]]]:
    """snakemake job id -> (rule, is local, resources) from the job descriptions."""
    jobs = {}
    for local, rule, body in JOB_BLOCK_RE.findall(output):
        fields = dict(re.findall(r"^    (\w+): (.*)$", body, re.M))
        if "jobid" not in fields:
            continue
        res = dict(kv.split("=", 1) for kv in fields.get("resources", "").split(", ") if "=" in kv)
        jobs[int(fields["jobid"])] = (rule, bool(local), res)
    return jobs


def job_stats(output: str) -> dict[str, int]:
    """The 'Job stats' table snakemake prints before it starts (rule -> number of jobs)."""
    m = re.search(r"Job stats:\njob\s+count\n[- ]+\n((?:\S+\s+\d+\n)+)", output)
    assert m, "no 'Job stats' table in the snakemake output"
    return {rule: int(n) for rule, n in re.findall(r"(\S+)\s+(\d+)", m.group(1)) if rule != "total"}


def planned_jobs(workdir: Path) -> dict[str, int]:
    """The job stats of a dry run of SMOKE_CELL_TARGETS in a fresh copy of the workflow."""
    copy_workflow(workdir)
    out = subprocess.run(
        SNAKEMAKE + SMOKE_CELL_TARGETS + ["-n", "--configfile", SMOKE_CONFIG],
        cwd=workdir,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return job_stats(out.stdout + out.stderr)


def slurm_jobs(cluster) -> dict[int, dict[str, str]]:
    """SLURM's own records of this cluster's jobs (finished jobs stay for MinJobAge s)."""
    out = cluster.run("scontrol", "-o", "show", "job").stdout
    jobs = {}
    for line in out.splitlines():
        fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if "JobId" in fields:
            jobs[int(fields["JobId"])] = fields
    return jobs


# --------------------------------------------------------------------------------------
# comparing outputs
# --------------------------------------------------------------------------------------


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _attrs(obj) -> dict[str, object]:
    return {k: np.asarray(v).tolist() for k, v in obj.attrs.items()}


def h5_contents(path: Path) -> dict[str, object]:
    """name -> attributes (groups) or (dtype, shape, data, attributes) (datasets)."""
    out: dict[str, object] = {}
    with h5py.File(path, "r") as h5:
        out["/"] = _attrs(h5)

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = (obj.dtype.str, obj.shape, obj[()], _attrs(obj))
            else:
                out[name + "/"] = _attrs(obj)

        h5.visititems(visit)
    return out


def assert_same_h5(a: Path, b: Path, name: str) -> None:
    ca, cb = h5_contents(a), h5_contents(b)
    assert ca.keys() == cb.keys(), f"{name}: different groups/datasets"
    for key, va in ca.items():
        vb = cb[key]
        if isinstance(va, tuple):
            assert va[:2] == vb[:2], f"{name}:{key}: dtype/shape {va[:2]} != {vb[:2]}"
            np.testing.assert_array_equal(va[2], vb[2], err_msg=f"{name}:{key}")
            assert va[3] == vb[3], f"{name}:{key}: attributes differ"
        else:
            assert va == vb, f"{name}:{key}: attributes differ"


PDF_DATE_RE = re.compile(rb"/CreationDate \(D:[0-9Z+\-']*\)")


def without_wall_clock(value):
    """A JSON value without the keys that hold measured seconds (the Coriolis ablation's timings)."""
    if isinstance(value, dict):
        return {k: without_wall_clock(v) for k, v in value.items() if not k.startswith("seconds")}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


def comparable_bytes(path: Path) -> bytes:
    """The file's bytes, without what is the run's wall clock: matplotlib's /CreationDate in PDFs,
    the measured seconds of the Coriolis ablation (its JSONs and its table's seconds columns;
    the table's Markdown, LaTeX and HTML renderings print them, so those compare as empty)."""
    data = path.read_bytes()
    if path.suffix == ".pdf":
        return PDF_DATE_RE.sub(b"/CreationDate ()", data)
    if path.suffix == ".json":
        return json.dumps(without_wall_clock(json.loads(data)), sort_keys=True).encode()
    if path.stem == "coriolis" and path.parent.name == "tables":
        if path.suffix != ".csv":
            return b""
        lines = [line.split(",") for line in data.decode().splitlines()]
        keep = [i for i, name in enumerate(lines[0]) if not name.startswith("seconds")]
        return "\n".join(",".join(line[i] for i in keep) for line in lines).encode()
    return data


def digests(root: Path, skip=()) -> dict[str, str]:
    return {f: hashlib.sha256((root / f).read_bytes()).hexdigest() for f in files_under(root) if f not in skip}


# --------------------------------------------------------------------------------------
# recording the sbatch lines
# --------------------------------------------------------------------------------------

_RECORD: dict[str, list[str]] = {}


def record_sbatch(section: str, calls: list[SbatchCall], basetemp: Path, record_property) -> str:
    """One sbatch line per rule (the first), without the --wrap payload."""
    first: dict[str, SbatchCall] = {}
    for c in calls:
        first.setdefault(c.rule, c)
    lines = [f'{rule}: {c.head} --wrap="<snakemake job command>"' for rule, c in sorted(first.items())]
    _RECORD[section] = lines
    text = "\n".join(f"# {s}\n" + "\n".join(ls) for s, ls in _RECORD.items()) + "\n"
    (basetemp / "sbatch_calls.txt").write_text(text)
    if os.environ.get("PHYSRES_SLURM_SBATCH_RECORD"):
        Path(os.environ["PHYSRES_SLURM_SBATCH_RECORD"]).write_text(text)
    record_property(f"sbatch_calls_{section}", "\n".join(lines))
    print(f"\n[slurm] sbatch calls ({section}):\n" + "\n".join(lines))
    return text


# --------------------------------------------------------------------------------------
# fixtures
# --------------------------------------------------------------------------------------


def _require_slurm() -> None:
    ok, reason = slurm_available()
    if not ok:
        if os.environ.get("PHYSRES_REQUIRE_SLURM") == "1":
            pytest.fail(f"SLURM required (PHYSRES_REQUIRE_SLURM=1) but unavailable: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    _require_slurm()
    with single_node_slurm(tmp_path_factory.mktemp("slurm-cluster"), cpus=TEST_CPUS, min_job_age=MIN_JOB_AGE) as c:
        print(f"\n[slurm] cluster up in {c.start_seconds:.1f} s, daemons {c.pids}")
        yield c


@pytest.fixture(scope="module")
def override_profile(cluster, tmp_path_factory) -> Path:
    return write_override_profile(tmp_path_factory.mktemp("test-profile"), REPO / PROFILE_REL, cluster.partition)


def missing_local_targets(folder: Path) -> list[str]:
    """The SLURM targets that the local smoke DAG in ``folder`` has not made (yet)."""
    return [target for target in SMOKE_CELL_TARGETS if not (folder / "workflow" / target).exists()]


def wait_for_local_targets(folder: Path) -> None:
    """Until the local smoke DAG in ``folder`` has made every SLURM target, or has ended (the
    ``smoke_run`` fixture reports its failure), or SMOKE_TIMEOUT has passed since it started."""
    deadline = smoke_dag_deadline(folder)
    while not (folder / "returncode").exists() and time.time() < deadline:
        if not missing_local_targets(folder):
            return
        time.sleep(2)


@pytest.fixture(scope="module")
def slurm_run(request, cluster, override_profile, tmp_path_factory) -> Run:
    """The SLURM run of the smoke cell. It starts once the local smoke DAG (which makes
    SMOKE_CELL_TARGETS first) has made them, so that its jobs find their programs in the shared
    compilation cache; the rest of the local DAG goes on beside it."""
    wait_for_local_targets(start_smoke_dag(request.config))
    base = tmp_path_factory.mktemp("slurm-smoke")
    workdir = base / "work"
    workdir.mkdir()
    copy_workflow(workdir)
    # targets/options first: --configfile takes every word that follows it
    args = SMOKE_CELL_TARGETS + profile_args(workdir, override_profile) + ["--configfile", SMOKE_CONFIG]
    job = Snakemake(args, workdir, _clean_env(cluster.env), base / "snakemake-output.txt", SMOKE_DEADLINE)
    try:
        run = job.wait()
    finally:
        job.kill()
    print(f"\n[slurm] smoke cell: SLURM run {run.seconds:.0f} s (rc={run.returncode})")
    return run


@pytest.fixture(scope="module")
def smoke_runs(request, slurm_run) -> tuple[Run, Path]:
    """(SLURM run of the smoke cell, local smoke workdir). The local DAG made the cell's targets,
    each written whole, before the SLURM run started, so the tests that compare the two need not
    wait for the rest of it: this worker goes on to other test files meanwhile (waiting here, it
    had pytest-xdist queue a file of unit tests behind the whole DAG)."""
    folder = smoke_dag_folder(request.config)
    missing = missing_local_targets(folder)
    assert not missing, f"the local smoke DAG did not make {missing}; its log: {folder / 'smoke-dag.log'}"
    return slurm_run, folder / "workflow"


# --------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------


def test_cluster_stops_every_process(tmp_path):
    """Leaving the context with a job still running leaves no process behind."""
    _require_slurm()
    with single_node_slurm(tmp_path, cpus=TEST_CPUS) as c:
        assert c.run("sinfo", "-h", "-o", "%P %t").stdout.split() == [f"{c.partition}*", "idle"]
        c.run("sbatch", "--parsable", "--gpus=1", "-o", "/dev/null", "-D", str(tmp_path), "--wrap", "sleep 300")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if c.run("squeue", "-h", "-o", "%T").stdout.strip() == "RUNNING":
                break
            time.sleep(0.25)
        else:
            pytest.fail("test job did not start:\n" + c.log_tail())
        pids, marker = dict(c.pids), c.env[MARKER_VAR]
    for name, pid in pids.items():
        assert not Path(f"/proc/{pid}").exists(), f"{name} (pid {pid}) still exists"
    leftovers = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if f"{MARKER_VAR}={marker}".encode() in (d / "environ").read_bytes().split(b"\0"):
                    leftovers.append(d.name)
            except OSError:
                pass
    assert not leftovers, f"processes of the test cluster left: {leftovers}"
    assert (tmp_path / "slurm-logs" / "slurmctld.log").is_file()


def test_failing_job_is_reported(slurm_run, cluster, override_profile, tmp_path):
    """Runs while the local smoke DAG goes on: it needs only the SLURM run's own files."""
    run = slurm_run
    assert run.returncode == 0, "the smoke cell failed on SLURM; see test_smoke_cell_on_slurm_matches_local"
    workdir = tmp_path / "fail"
    shutil.copytree(run.workdir, workdir, symlinks=True)  # copy2: keeps the mtimes
    target = f"results/smoke/activations/{SMOKE_CELL_TASK}/ny{SMOKE_CELL_NY}/ron.h5"
    log_rel = f"logs/smoke/rollout_ron/{SMOKE_CELL_TASK}_ny{SMOKE_CELL_NY}_ron.log"
    assert (workdir / target).is_file()
    (workdir / "results/smoke/data" / f"{SMOKE_CELL_TASK}.h5").write_bytes(b"not an HDF5 file\n" * 100)
    before = digests(workdir / "results", skip={target.removeprefix("results/")})

    # the target before --forcerun, whose list would swallow it; --configfile last
    args = (
        [target] + profile_args(workdir, override_profile) + ["--forcerun", "rollout_ron", "--configfile", SMOKE_CONFIG]
    )
    failed = Snakemake(args, workdir, _clean_env(cluster.env), tmp_path / "snakemake-output.txt", RUN_TIMEOUT).wait()
    print(f"\n[slurm] failing run took {failed.seconds:.1f} s (rc={failed.returncode})")
    out = failed.output
    assert failed.returncode != 0, out[-6000:]
    assert "Error in rule rollout_ron" in out, out[-6000:]
    assert log_rel in out, out[-6000:]  # the error report names the rule's log
    # exactly one submission (retries: 0 of the override beats retries: 1 of the profile)
    calls, subs = sbatch_calls(out), submissions(out)
    assert [c.rule for c in calls] == ["rollout_ron"] and len(subs) == 1, [c.head for c in calls]
    _, sid, slurm_log = subs[0]
    assert slurm_jobs(cluster)[sid]["JobState"] == "FAILED"
    assert re.search(rf"SLURM-job '{sid}' failed", out), out[-6000:]
    # the rule's log is kept and says why; so is the SLURM log
    log = (workdir / log_rel).read_text()
    assert "rule rollout_ron" in log and "file signature not found" in log, log[-3000:]  # h5py on the garbage
    assert Path(slurm_log).is_file() and "Error" in Path(slurm_log).read_text(errors="replace")
    # no half-written target, and every other output of the earlier run is untouched
    assert not (workdir / target).exists()
    assert digests(workdir / "results", skip={target.removeprefix("results/")}) == before


def test_smoke_cell_on_slurm_matches_local(smoke_runs):
    run, local_workdir = smoke_runs
    assert run.returncode == 0, run.output[-8000:]
    ours, theirs = run.workdir / "results", local_workdir / "results"
    names = files_under(ours)
    assert set(names) <= set(files_under(theirs)), set(names) - set(files_under(theirs))
    for target in SMOKE_CELL_TARGETS:
        assert target.removeprefix("results/") in names, target
    same_bytes = 0
    for name in names:
        if name.endswith(".h5"):
            assert_same_h5(ours / name, theirs / name, name)
            same_bytes += (ours / name).read_bytes() == (theirs / name).read_bytes()
        else:
            assert comparable_bytes(ours / name) == comparable_bytes(theirs / name), f"results/{name} differs"
    n_h5 = sum(n.endswith(".h5") for n in names)
    print(
        f"\n[slurm] {len(names)} result files equal ({n_h5} HDF5 by content, {same_bytes} of them also byte-identical)"
    )


def test_every_job_ran_through_slurm(smoke_runs, cluster, tmp_path_factory, record_property):
    run, _ = smoke_runs
    assert run.returncode == 0, run.output[-8000:]
    stats = job_stats(run.output)
    assert stats == planned_jobs(tmp_path_factory.mktemp("slurm-plan")), "SLURM run planned other jobs"
    assert CELL_RULES <= stats.keys(), CELL_RULES - stats.keys()
    jobs = job_blocks(run.output)
    local_rules = {rule for rule, local, _ in jobs.values() if local}
    # the downloads are local rules: the submit host has the network, compute nodes may not
    assert local_rules == SUBMIT_HOST_RULES, f"jobs run on the submit host instead of SLURM: {local_rules}"
    n_remote = sum(n for rule, n in stats.items() if rule not in SUBMIT_HOST_RULES)

    calls, subs = sbatch_calls(run.output), submissions(run.output)
    assert len(calls) == len(subs) == n_remote, (len(calls), len(subs), n_remote)
    per_rule: dict[str, int] = {}
    for c in calls:
        per_rule[c.rule] = per_rule.get(c.rule, 0) + 1
    assert per_rule == {r: n for r, n in stats.items() if r not in SUBMIT_HOST_RULES}
    slurm_ids = [sid for _, sid, _ in subs]
    assert len(set(slurm_ids)) == n_remote, "a SLURM job id was reused"

    # SLURM's own records: every job COMPLETED with exit code 0, its SLURM log kept
    records = slurm_jobs(cluster)
    for _, sid, log in subs:
        assert records[sid]["JobState"] == "COMPLETED", records[sid]
        assert records[sid]["ExitCode"] == "0:0", records[sid]
        assert Path(log).is_file(), log

    # sbatch asks for what the job's resources say, which come from config.yaml's table
    by_log_dir = {c.log_dir: c for c in calls}
    table = CONFIG["resources"]
    for job_id, _, log in subs:
        rule, _, res = jobs[job_id]
        call = by_log_dir[str(Path(log).parent)]
        assert call.rule == rule
        assert call.option("--mem") == res["mem_mb"], (rule, call.head, res)
        assert call.option("-t") == res["runtime"], (rule, call.head, res)
        assert call.option("--gpus") == (res["gpu"] if int(res.get("gpu", 0)) else None), (rule, call.head)
        if rule in table:
            want = {**table["default"], **table[rule]}
            assert int(res["mem_mb"]) == want["mem_mb"] and int(res["runtime"]) == want["runtime"], (rule, res)
            assert int(res.get("gpu", 0)) == want.get("gpu", 0), (rule, res)
    assert "pretraining_dataset" in per_rule and "pretraining_dataset" in table  # one rule with its own entry

    # GPU jobs: the pretraining's (both parts of smoke's split training) ask for config.yaml's GPU;
    # SLURM allocated it; no other job has one
    gpu_jobs = {sid: jobs[job_id] for job_id, sid, _ in subs if int(jobs[job_id][2].get("gpu", 0))}
    assert {rule for rule, _, _ in gpu_jobs.values()} == {"pretrain", "pretrain_part"}, gpu_jobs
    assert table["pretrain"]["gpu"] >= 1 and table["pretrain_part"]["gpu"] >= 1
    for sid, (_, _, res) in gpu_jobs.items():
        assert records[sid].get("TresPerJob") == f"gres:gpu:{res['gpu']}", records[sid]
    for sid in set(slurm_ids) - set(gpu_jobs):
        assert "gpu" not in records[sid].get("TresPerJob", ""), records[sid]
    record_sbatch("smoke cell", calls, tmp_path_factory.getbasetemp(), record_property)
