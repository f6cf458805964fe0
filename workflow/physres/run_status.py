"""What Snakemake would remake in a run's working directory, read from `snakemake --summary`:
for tools that report on a run under way (tools/partial_tables.py, tools/job_times.py), so that a
file of an earlier draw or code is never counted as the current run's. No heavy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def summary_rows(workdir: Path, configfiles: list[Path] = ()) -> list[dict[str, str]]:
    """The rows of `snakemake --nolock --summary` run in ``workdir`` (with the run's config files),
    one per output file: output_file, date, rule, log-file(s), status, plan."""
    cmd = [sys.executable, "-m", "snakemake", "--nolock", "--summary"]
    cmd += ["--configfile", *map(str, configfiles)] if configfiles else []
    result = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"snakemake --summary failed in {workdir}:\n{result.stderr[-2000:]}")
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    header = next(i for i, row in enumerate(rows) if row[:1] == ["output_file"])
    columns = rows[header]
    return [dict(zip(columns, row)) for row in rows[header + 1 :] if len(row) == len(columns)]


def outdated_outputs(workdir: Path, configfiles: list[Path] = ()) -> dict[Path, str]:
    """Every output that Snakemake would remake in ``workdir``, with why ("params changed", "set of
    input files changed", "an input is to be remade", ...): the rows whose plan is not "no update".
    Absolute paths."""
    return {
        (workdir / row["output_file"]).resolve(): "an input is to be remade" if row["status"] == "ok" else row["status"]
        for row in summary_rows(workdir, configfiles)
        if row["plan"] != "no update"
    }


def current_jobs(workdir: Path, run: str, configfiles: list[Path] = ()) -> set[str]:
    """The jobs of the run's DAG none of whose outputs Snakemake would remake, as ``rule/name``:
    their log files' paths under logs/<run>/ without ``.log``, which are their benchmark files'
    under benchmarks/<run>/ without ``.tsv`` (workflow/rules/common.smk: log_path, benchmark_path)."""
    prefix, current, pending = f"logs/{run}/", set(), set()
    for row in summary_rows(workdir, configfiles):
        for log in map(str.strip, row["log-file(s)"].split(",")):
            if log.startswith(prefix) and log.endswith(".log"):
                job = log.removeprefix(prefix).removesuffix(".log")
                (current if row["plan"] == "no update" else pending).add(job)
    return current - pending
