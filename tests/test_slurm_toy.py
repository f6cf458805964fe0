"""End-to-end test of workflow/profiles/slurm on a real single-node SLURM cluster.

The cluster is started by ``slurm_cluster.single_node_slurm`` (root + Debian needed;
slurm-wlm and munge are apt-installed if missing). The toy workflow in
``tests/slurm_toy/`` is run

* locally (``snakemake --cores 2``) as the reference, and
* through ``snakemake --profile workflow/profiles/slurm --profile <test override>``,

and the outputs must be byte-identical. The test-only override profile is generated
from the real one and changes only what a laptop cluster needs: short status-check
intervals, no retries, short latency-wait, and (only if the real profile sets them)
cluster-specific resources such as partition, account or GPU model are replaced/removed.

GPUs: the test cluster announces 4 *fake* GPUs (GRES gpu backed by dummy devices), so
the toy ``pretrain`` rule keeps ``gpu: 1`` from the real profile, the plugin really
submits ``sbatch ... --gpus=1`` and SLURM really allocates a (fake) GPU. Nothing uses a
GPU. The sbatch lines are taken from snakemake's ``--verbose`` output ("sbatch call:")
and recorded (printed, ``record_property``, ``<tmp>/sbatch_calls.txt`` and, if set, the
file named by $PHYSRES_SLURM_SBATCH_RECORD).

The toy run also checks that every job ran under SLURM (job id in its log), that SLURM
recorded the GPU request (``scontrol show job``: TresPerJob=gres:gpu:1) and that the
job's shell saw a GPU (CUDA_VISIBLE_DEVICES set).

Skips (with the reason) when SLURM cannot be used here, unless PHYSRES_REQUIRE_SLURM=1,
in which case it fails instead (use that in CI).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

import pytest
import yaml

try:
    from slurm_cluster import MARKER_VAR, single_node_slurm, slurm_available
except ImportError:  # e.g. pytest --import-mode=importlib
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from slurm_cluster import MARKER_VAR, single_node_slurm, slurm_available

pytestmark = pytest.mark.slurm

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROFILE = REPO / "workflow" / "profiles" / "slurm"
TOY = HERE / "slurm_toy"
SNAKEMAKE = [sys.executable, "-m", "snakemake"]

#: hard deadline for one snakemake run (the subprocess group is killed after it)
RUN_TIMEOUT = 180
#: the toy's GPU rule; named like the real heavy rule so the profile's set-resources apply
GPU_RULE = "pretrain"
FAIL_RULE = "sanity_check"
#: resources that only make sense on the real cluster; stripped for the test cluster
CLUSTER_SPECIFIC = {
    "slurm_partition", "slurm_account", "gpu_model", "constraint", "qos",
    "slurm_extra", "cluster", "clusters", "slurm_cluster",
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


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


@dataclass
class Run:
    cmd: List[str]
    workdir: Path
    returncode: int
    output: str
    seconds: float


def _clean_env(extra: Dict[str, str] | None = None) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SNAKEMAKE_PROFILE"))}
    env.update(extra or {})
    return env


def run_snakemake(args: List[str], workdir: Path, env: Dict[str, str], timeout: float = RUN_TIMEOUT) -> Run:
    """Run snakemake in its own process group; kill the group at the deadline."""
    cmd = SNAKEMAKE + args
    t0 = time.monotonic()
    proc = subprocess.Popen(
        cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, _ = proc.communicate(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                out = ""
        pytest.fail(
            f"snakemake did not finish within {timeout} s (killed): {' '.join(cmd)}\n"
            f"{(out or '')[-6000:]}"
        )
    return Run(cmd, workdir, proc.returncode, out, time.monotonic() - t0)


def copy_toy(dest: Path) -> Path:
    shutil.copytree(TOY, dest, ignore=shutil.ignore_patterns(".snakemake", "results", "logs"))
    return dest


def real_profile() -> dict:
    return yaml.safe_load((PROFILE / "config.yaml").read_text())


def write_override_profile(dest: Path, partition: str) -> Path:
    """Test-only profile layered after the real one (``--profile real --profile this``)."""
    real = real_profile()
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


SBATCH_RE = re.compile(r"sbatch call: (sbatch .*)")


def sbatch_calls(output: str) -> Dict[str, List[str]]:
    """rule name -> sbatch command lines from the plugin's --verbose output."""
    calls: Dict[str, List[str]] = {}
    for m in SBATCH_RE.finditer(output):
        line = m.group(1).strip()
        rule = re.search(r"--comment '?rule_([A-Za-z0-9_]+?)(?:_wildcards_\S*)?'?(?:\s|$)", line)
        calls.setdefault(rule.group(1) if rule else "?", []).append(line)
    return calls


def without_wrap(line: str) -> str:
    """The sbatch line without the (long) --wrap payload."""
    return line.split(' --wrap="', 1)[0] + ' --wrap="<snakemake job command>"'


def files_under(root: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


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
    with single_node_slurm(tmp_path_factory.mktemp("slurm-cluster")) as c:
        print(f"\n[slurm] cluster up in {c.start_seconds:.1f} s, daemons {c.pids}")
        yield c


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Run:
    wd = copy_toy(tmp_path_factory.mktemp("toy") / "local")
    run = run_snakemake(["--cores", "2", "--workflow-profile", "none"], wd, _clean_env())
    assert run.returncode == 0, run.output[-4000:]
    return run


@pytest.fixture(scope="module")
def cluster_run(cluster, tmp_path_factory) -> Run:
    base = tmp_path_factory.mktemp("toy")
    wd = copy_toy(base / "cluster")
    override = write_override_profile(base / "test-profile", cluster.partition)
    run = run_snakemake(
        ["--profile", str(PROFILE), "--profile", str(override), "--verbose"],
        wd, _clean_env(cluster.env),
    )
    print(f"\n[slurm] toy workflow on SLURM took {run.seconds:.1f} s (rc={run.returncode})")
    (base / "snakemake-output.txt").write_text(run.output)
    return run


# --------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------


def test_cluster_stops_every_process(tmp_path):
    """Leaving the context with a job still running leaves no process behind."""
    _require_slurm()
    with single_node_slurm(tmp_path) as c:
        assert c.run("sinfo", "-h", "-o", "%P %t").stdout.split() == [f"{c.partition}*", "idle"]
        c.run("sbatch", "--parsable", "--gpus=1", "-o", "/dev/null", "-D", str(tmp_path),
              "--wrap", "sleep 300")
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


def test_toy_workflow_on_slurm_matches_local(cluster_run, local_run):
    assert cluster_run.returncode == 0, cluster_run.output[-6000:]
    cl = files_under(cluster_run.workdir / "results")
    lo = files_under(local_run.workdir / "results")
    assert sorted(cl) == sorted(lo) == ["combined.txt", "model.txt", "number.txt", "sanity.txt"]
    for name in lo:
        assert cl[name] == lo[name], f"results/{name} differs between SLURM and local run"
    # every rule except the local `all` ran as a SLURM job (job id in its log)
    for rule in ("make_number", GPU_RULE, "combine", FAIL_RULE):
        log = (cluster_run.workdir / "logs" / f"{rule}.log").read_text()
        assert re.match(r"job=\d+", log), f"{rule} did not run under SLURM: {log!r}"
    calls = sbatch_calls(cluster_run.output)
    assert set(calls) == {"make_number", GPU_RULE, "combine", FAIL_RULE}, calls.keys()


def test_gpu_rule_sbatch_line(cluster, cluster_run, record_property, tmp_path_factory):
    assert cluster_run.returncode == 0, cluster_run.output[-6000:]
    calls = sbatch_calls(cluster_run.output)
    assert len(calls.get(GPU_RULE, [])) == 1, calls
    line = calls[GPU_RULE][0]
    res = dict(real_profile()["default-resources"])
    res.update(real_profile()["set-resources"][GPU_RULE])
    assert f"--gpus={res['gpu']}" in line
    assert f"--mem {res['mem_mb']}" in line
    assert f"-t {res['runtime']}" in line
    assert "--gres" not in line  # gpu: N is passed as --gpus, not as a GRES string
    # non-GPU rules must not ask for a GPU
    for rule, lines in calls.items():
        if rule != GPU_RULE:
            assert "--gpus" not in lines[0], (rule, lines[0])
    # SLURM recorded the GPU request (finished jobs stay visible to scontrol for
    # MinJobAge seconds) and the rule's shell saw the allocated (fake) GPU
    log = (cluster_run.workdir / "logs" / f"{GPU_RULE}.log").read_text()
    jobid = re.match(r"job=(\d+)", log).group(1)
    info = cluster.run("scontrol", "show", "job", jobid).stdout
    assert f"TresPerJob=gres:gpu:{res['gpu']}" in info, info
    assert re.search(r"cuda=\d", log), f"no GPU visible in the {GPU_RULE} job: {log!r}"

    record = "\n".join(f"{rule}: {without_wrap(lines[0])}" for rule, lines in sorted(calls.items()))
    record_property("sbatch_calls", record)
    (tmp_path_factory.getbasetemp() / "sbatch_calls.txt").write_text(record + "\n")
    if os.environ.get("PHYSRES_SLURM_SBATCH_RECORD"):
        Path(os.environ["PHYSRES_SLURM_SBATCH_RECORD"]).write_text(record + "\n")
    print("\n[slurm] sbatch calls:\n" + record)


def test_failing_job_is_reported(cluster, tmp_path):
    wd = copy_toy(tmp_path / "fail")
    override = write_override_profile(tmp_path / "test-profile", cluster.partition)
    run = run_snakemake(
        ["--profile", str(PROFILE), "--profile", str(override), "--verbose",
         "--config", "fail=1", "--", "results/sanity.txt"],
        wd, _clean_env(cluster.env),
    )
    print(f"\n[slurm] failing run took {run.seconds:.1f} s (rc={run.returncode})")
    (tmp_path / "snakemake-output.txt").write_text(run.output)
    assert run.returncode != 0, run.output[-4000:]
    assert f"Error in rule {FAIL_RULE}" in run.output, run.output[-4000:]
    # retries: 0 from the override profile wins over retries: 1 of the real profile
    assert len(sbatch_calls(run.output).get(FAIL_RULE, [])) == 1
    assert not (wd / "results" / "sanity.txt").exists()
    # the rule's log file is kept ...
    log = (wd / "logs" / f"{FAIL_RULE}.log").read_text()
    assert "failing on purpose" in log and re.match(r"job=\d+", log), log
    # ... and so is the SLURM log of the failed job
    slurm_logs = list((wd / ".snakemake" / "slurm_logs" / f"rule_{FAIL_RULE}").glob("*.log"))
    assert slurm_logs, "SLURM log of the failed job was not kept"
    assert "failing on purpose" in slurm_logs[0].read_text() or slurm_logs[0].stat().st_size > 0
