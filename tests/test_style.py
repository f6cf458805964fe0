"""Formatting and lint: ruff for the Python code, snakefmt for the Snakefile and the rules
(settings in pyproject.toml). Fix with `ruff format workflow speed tools tests && ruff check --fix
workflow speed tools tests && snakefmt Snakefile workflow/rules`."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE_FILES = ["Snakefile", "workflow/rules"]


def run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *cmd], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "cmd",
    [
        ("ruff", "check", "workflow", "speed", "tools", "tests"),
        ("ruff", "format", "--check", "workflow", "speed", "tools", "tests"),
        ("snakefmt", "--check", *SNAKEMAKE_FILES),
    ],
    ids=["ruff-check", "ruff-format", "snakefmt"],
)
def test_code_is_formatted_and_lint_clean(cmd):
    out = run(*cmd)
    assert out.returncode == 0, f"{' '.join(cmd)}:\n{out.stdout[-4000:]}{out.stderr[-4000:]}"


def test_the_results_contents_list_every_section_once():
    """docs/results.md opens with a list of its sections; a section added or renamed without it
    would leave the list wrong."""
    text = (ROOT / "docs" / "results.md").read_text()
    contents, body = text.split("\n## ", 1)
    headings = [line.lstrip("#").strip() for line in ("## " + body).splitlines() if line.startswith(("## ", "### "))]
    listed = [line.strip()[3:].split("](#")[0] for line in contents.splitlines() if line.strip().startswith("- [")]
    assert listed == headings
