"""The software the rules declare: the conda environment matches pyproject.toml, the lock file
pins every dependency, and `snakemake --lint` is clean."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# packages of the snakemake driver, not of the jobs
DRIVER_ONLY = {"snakemake", "snakemake-executor-plugin-slurm", "pygments"}
CONDA_NAME = {"matplotlib": "matplotlib-base"}  # conda-forge's package without a GUI backend


def requirement(spec: str) -> tuple[str, str]:
    name, bound = re.match(r"\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*)", spec).groups()
    return name.lower(), bound.replace(" ", "")


def test_conda_environment_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = {CONDA_NAME.get(name, name): bound for name, bound in map(requirement, project) if name not in DRIVER_ONLY}
    env = yaml.safe_load((ROOT / "envs/physres.yaml").read_text())["dependencies"]
    declared = {}
    for entry in env:
        for spec in entry["pip"] if isinstance(entry, dict) else [entry]:
            name, bound = requirement(spec.split("#")[0])
            declared[name] = bound
    assert {name: declared.get(name) for name in wanted} == wanted


def test_every_rule_declares_the_environment_and_lint_is_clean():
    out = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "Lints for" not in out.stdout + out.stderr, out.stdout[-3000:]


def test_lock_file_pins_every_dependency():
    pinned = dict(line.split("==") for line in (ROOT / "requirements-lock.txt").read_text().split() if "==" in line)
    pinned = {name.lower().replace("_", "-"): version for name, version in pinned.items()}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [name for name, _ in map(requirement, project) if name.replace("_", "-") not in pinned] == []


def test_every_conda_directive_names_the_top_level_environment():
    """The rules' conda: paths resolve (relative to their rule file) to envs/physres.yaml."""
    for rules in (ROOT / "workflow/rules").glob("*.smk"):
        text = rules.read_text()
        paths = re.findall(r"conda:\s*\n\s*\"([^\"]+)\"", text)
        assert len(paths) == text.count("\nrule "), f"{rules.name}: a rule without its environment"
        if not paths:  # common.smk: helpers only
            continue
        assert {(rules.parent / path).resolve() for path in paths} == {ROOT / "envs/physres.yaml"}, rules.name
