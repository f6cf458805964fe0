"""tools/paper_run.sh: each of its Snakemake calls names outputs the paper-scale DAG can make, a
task's phase goes cell by cell, and an unknown phase is refused with the allowed ones."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "paper_run.sh"


def calls(*phases: str) -> dict[str, list[str]]:
    """The script's Snakemake calls, in order: name -> targets."""
    out = subprocess.run(["bash", str(SCRIPT), "--targets", *phases], capture_output=True, text=True, check=True)
    return {line.split(":")[0]: line.split(":", 1)[1].split() for line in out.stdout.splitlines()}


def run_with_stand_in(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the script with a stand-in for snakemake that records its arguments and reads its
    stdin to the end, as a job might: the script's result and the calls recorded so far."""
    fake = tmp_path / "snakemake"
    fake.write_text(f'#!/usr/bin/env bash\ncat > /dev/null\necho "$*" >> {tmp_path / "calls.txt"}\n')
    fake.chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env)
    record = tmp_path / "calls.txt"
    return out, record.read_text().splitlines() if record.exists() else []


def test_every_call_names_outputs_of_the_paper_dag():
    targets = calls()
    names = list(targets)
    mackey_glass = [f"mackey_glass/ny{n}" for n in (6, 9, 12, 15)]
    assert names[:6] == mackey_glass + ["baseline", "adiac/ny6"] and names[-1] == "all"
    # sMNIST's baselines (hours of rollouts) after ADIAC's and Lorenz96's whole cells
    assert names.index("lorenz96/ny15") < names.index("smnist") < names.index("smnist/ny6")
    # one cell: 4 variants' scores and 2 modes' evaluations, of that cell only
    assert len(targets["adiac/ny12"]) == 6 and all("/ny12/" in t for t in targets["adiac/ny12"])
    assert len(targets["smnist/ny6"]) == 4 and len(targets["baseline"]) == 2 * 4 * 2
    assert targets["all"] == []  # the default target: the whole DAG
    every = sorted({t for call in targets.values() for t in call})
    # a target no rule makes fails the dry run
    dry = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", *every], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert dry.returncode == 0, dry.stdout[-2000:] + dry.stderr[-2000:]


def test_an_unknown_phase_names_the_allowed_ones():
    out = subprocess.run(["bash", str(SCRIPT), "--targets", "tables", "adiak"], capture_output=True, text=True)
    assert out.returncode == 2 and out.stdout.startswith("tables: ")
    assert "unknown phase 'adiak'; allowed: mackey_glass baseline smnist adiac" in out.stderr


def test_a_cell_or_pretraining_phase_names_its_targets_only_and_refuses_an_unknown_ny():
    """A cell's phase names its four variants' scores and two modes' evaluations; a task's or a
    cell's pretraining phase names the evaluations alone, no rollout."""
    targets = calls("lorenz96/ny12", "smnist/ny15")
    assert targets["lorenz96/ny12"] == calls("lorenz96")["lorenz96/ny12"]
    assert len(targets["smnist/ny15"]) == 6 and all("/smnist/ny15/" in t for t in targets["smnist/ny15"])
    evaluations = calls("smnist/pretraining", "lorenz96/ny12/pretraining")
    assert len(evaluations["smnist/pretraining"]) == 8 and len(evaluations["lorenz96/ny12/pretraining"]) == 2
    assert all(t.endswith("evaluation.json") for t in sum(evaluations.values(), []))
    assert all("/lorenz96/ny12/" in t for t in evaluations["lorenz96/ny12/pretraining"])
    out = subprocess.run(["bash", str(SCRIPT), "--targets", "adiac/ny7"], capture_output=True, text=True)
    assert out.returncode == 2 and "unknown cell 'adiac/ny7'; allowed ny: 6 9 12 15" in out.stderr
    out = subprocess.run(["bash", str(SCRIPT), "--targets", "smnist/ny8/pretraining"], capture_output=True, text=True)
    assert out.returncode == 2 and "unknown cell 'smnist/ny8/pretraining'" in out.stderr


def test_a_task_phase_calls_snakemake_once_a_cell(tmp_path):
    """With a stand-in for snakemake that reads its stdin to the end, as a job might, every
    cell's call still comes, in order."""
    out, recorded = run_with_stand_in(tmp_path, "mackey_glass", "tables")
    assert out.returncode == 0, out.stderr
    assert len(recorded) == 5 and all(line.startswith("--cores all --rerun-incomplete") for line in recorded)
    assert [f"/ny{n}/" in line for n, line in zip((6, 9, 12, 15), recorded)] == [True] * 4
    assert recorded[-1].endswith("results/paper/tables/pretraining_summary.md")


def test_the_script_lowers_only_its_own_sessions_priority():
    """Started from a shell or a test run, it leaves their scheduler autogroup's niceness alone."""
    autogroup = Path("/proc/self/autogroup")
    if not autogroup.exists():
        pytest.skip("no scheduler autogroups here")
    before = autogroup.read_text()
    subprocess.run(["bash", str(SCRIPT), "--targets", "tables"], capture_output=True, check=True)
    assert autogroup.read_text() == before


def test_first_puts_a_phases_targets_ahead_in_every_call(tmp_path):
    """--first PHASE passes that phase's targets to each call as --prioritize, ending the list
    with -- so that the call's own targets stay targets; an unknown phase is refused before any call."""
    out, recorded = run_with_stand_in(tmp_path, "--first", "smnist/ny9/pretraining", "smnist/pretraining", "tables")
    assert out.returncode == 0, out.stderr
    first = " ".join(calls("smnist/ny9/pretraining")["smnist/ny9/pretraining"])
    assert len(recorded) == 2
    for line, name in zip(recorded, ("smnist/pretraining", "tables")):
        assert (
            line == f"--cores all --rerun-incomplete --keep-going --prioritize {first} -- {' '.join(calls(name)[name])}"
        )
    out, recorded = run_with_stand_in(tmp_path, "--first", "smnist/ny7/pretraining", "tables")
    assert out.returncode == 2 and "unknown cell 'smnist/ny7/pretraining'" in out.stderr
    assert len(recorded) == 2  # no call made
