"""tools/paper_run.sh: each of its phases names outputs the paper-scale DAG can make, and an unknown
phase is refused with the allowed ones."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "paper_run.sh"


def phase_targets(*phases: str) -> dict[str, list[str]]:
    out = subprocess.run(["bash", str(SCRIPT), "--targets", *phases], capture_output=True, text=True, check=True)
    return {line.split(":")[0]: line.split(":", 1)[1].split() for line in out.stdout.splitlines()}


def test_every_phase_names_outputs_of_the_paper_dag():
    targets = phase_targets()
    assert list(targets)[:3] == ["mg6", "mackey_glass", "baseline"] and list(targets)[-1] == "all"
    assert len(targets["mg6"]) == 6  # 4 variants' scores, 2 modes' evaluations
    assert len(targets["baseline"]) == 2 * 4 * 2 and len(targets["adiac"]) == 4 * 4 + 4 * 2
    assert targets["all"] == []  # the default target: the whole DAG
    every = sorted({t for phase in targets.values() for t in phase})
    # a target no rule makes fails the dry run
    dry = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", *every],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert dry.returncode == 0, dry.stdout[-2000:] + dry.stderr[-2000:]


def test_an_unknown_phase_names_the_allowed_ones():
    out = subprocess.run(["bash", str(SCRIPT), "--targets", "mg6", "adiak"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "unknown phase 'adiak'; allowed: mg6 mackey_glass baseline smnist adiac" in out.stderr
