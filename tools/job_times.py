"""Measured job times of a run, by rule, from the files Snakemake's ``benchmark:`` directive wrote
(benchmarks/<run>/<rule>/<job>.tsv): jobs, CPU hours (the job's process tree, Snakemake's
``cpu_time``), wall hours (``s``), the longest job by wall and by CPU time, and the largest peak
RSS. Wall time counts the time a job waited for a core beside other work (or stopped); CPU time
does not, so CPU hours are the cost and a job's CPU minutes its length on a core of its own.

    python tools/job_times.py reduced                  # a markdown table on stdout
    python tools/job_times.py paper --benchmarks /work/runs/paper/benchmarks

``--by kind`` prints one row per kind of job instead of per rule: the same rule, task, ny and
variant or mode, any part or epoch (a training's last job, rule ``pretrain``, counts with its
``pretrain_part`` jobs). With ``--left DRY_RUN`` (the text ``snakemake -n`` printed in the run's
folder) it also estimates the CPU hours of the jobs still to run, each at the mean of the measured
jobs of its kind. A job none of whose kind has run yet is counted apart, not priced there; a
second column projects it at the mean of a like kind, where one has run (a training of the same
ny and mode on another task, a physical rollout of the same task and ny in another variant), and
what has neither stays unmeasured:

    (cd /work/runs/paper && snakemake -n --nolock) > dry.txt
    python tools/job_times.py paper --benchmarks /work/runs/paper/benchmarks --left dry.txt

Given the run's working directory (``--workdir``), only the jobs of its current DAG count: a
benchmark file of a job that Snakemake would remake (an earlier draw's, code's or job split's)
is left out, and the number left out is printed:

    python tools/job_times.py paper --workdir /work/runs/paper

Rules without a ``benchmark:`` directive (the readouts, gathers, tables and figures, each a few
seconds) are not counted.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

from physres.run_status import current_jobs


def read_job_times(folder: Path) -> pd.DataFrame:
    """One row per benchmarked job under ``folder`` (benchmarks/<run>): rule, job, cpu_s, wall_s,
    max_rss_mb. A job's file holds one row per repeat; the last is taken."""
    rows = []
    for path in sorted(folder.rglob("*.tsv")):
        relative = path.relative_to(folder)
        last = pd.read_csv(path, sep="\t").iloc[-1]
        rows.append(
            dict(
                rule=relative.parts[0] if len(relative.parts) > 1 else relative.stem,
                job=str(relative.with_suffix("")),
                cpu_s=float(last["cpu_time"]),
                wall_s=float(last["s"]),
                max_rss_mb=float(last["max_rss"]),
            )
        )
    if not rows:
        raise SystemExit(f"no benchmark files (*.tsv) under {folder}")
    return pd.DataFrame(rows)


def job_kind(job: str) -> str:
    """The kind of a benchmarked job (``rule/name``): its name without the part or epoch, the rule
    without ``_part``, so the jobs of one rollout or one training share a kind."""
    if "/" not in job:  # a rule's only job (benchmarks/<run>/<rule>.tsv)
        return job
    rule, name = job.split("/", 1)
    return rule.removesuffix("_part") + "/" + re.sub(r"_(part|epoch)\d+$", "", name)


def like_kind(kind: str) -> str | None:
    """The kinds whose jobs cost about as much as ``kind``'s, as one pattern, or None: a training
    of the same ny and mode on another task (its cost is set by the layout, m and the epochs, not
    the task), a physical rollout of the same task and ny in another variant (the same sequences
    through a robot of the same layout)."""
    if match := re.fullmatch(r"pretrain/\w+?_ny(\d+)_(full|rob_fixed)", kind):
        return f"pretrain/*_ny{match[1]}_{match[2]}"
    if match := re.fullmatch(r"rollout_physical/(\w+?_ny\d+)_\w+", kind):
        return f"rollout_physical/{match[1]}_*"
    return None


def job_summary(jobs: pd.DataFrame) -> dict:
    """jobs, CPU and wall hours, the peak RSS and the longest job by wall and by CPU time of some jobs."""
    slowest, most_cpu = jobs.loc[jobs["wall_s"].idxmax()], jobs.loc[jobs["cpu_s"].idxmax()]
    return dict(
        jobs=len(jobs),
        cpu_h=jobs["cpu_s"].sum() / 3600,
        wall_h=jobs["wall_s"].sum() / 3600,
        max_rss_mb=jobs["max_rss_mb"].max(),
        longest_job=slowest["job"],
        longest_min=slowest["wall_s"] / 60,
        most_cpu_job=most_cpu["job"],
        most_cpu_min=most_cpu["cpu_s"] / 60,
    )


def times_by_rule(jobs: pd.DataFrame, by: str = "rule") -> pd.DataFrame:
    """job_summary of each rule (or, with ``by="kind"``, of each job_kind), the most CPU first,
    with a last row 'all'."""
    groups = jobs["rule"] if by == "rule" else jobs["job"].map(job_kind)
    summaries = {name: job_summary(group) for name, group in jobs.groupby(groups)}
    table = pd.DataFrame.from_dict(summaries, orient="index").sort_values("cpu_h", ascending=False)
    table.loc["all"] = job_summary(jobs)
    return table.rename_axis(by)


def jobs_left(dry_run: str, run: str) -> pd.DataFrame:
    """The benchmarked jobs a dry run (``snakemake -n``'s text) would run: rule, job."""
    found = re.findall(rf"benchmark: benchmarks/{re.escape(run)}/(\S+)\.tsv", dry_run)
    return pd.DataFrame({"rule": [job.split("/", 1)[0] for job in found], "job": found})


def left_by_rule(done: pd.DataFrame, left: pd.DataFrame) -> pd.DataFrame:
    """Per rule of the jobs left: how many, how many have a measured kind, and the CPU hours of
    those at their kind's mean CPU time; then, a projection, how many of the others have a like
    kind measured (like_kind) and the CPU hours of all so priced; a last row 'all'."""
    done_kinds, left_kinds = done["job"].map(job_kind), left["job"].map(job_kind)
    cpu_s = left_kinds.map(done.groupby(done_kinds)["cpu_s"].mean())
    like_cpu_s = left_kinds.map(like_kind).map(done.groupby(done_kinds.map(like_kind))["cpu_s"].mean())
    projected = cpu_s.fillna(like_cpu_s)
    table = pd.DataFrame(
        {
            "jobs_left": left.groupby("rule").size(),
            "measured_kind": cpu_s.notna().groupby(left["rule"]).sum(),
            "cpu_h_left": cpu_s.groupby(left["rule"]).sum() / 3600,
            "like_kind": (cpu_s.isna() & like_cpu_s.notna()).groupby(left["rule"]).sum(),
            "cpu_h_projected": projected.groupby(left["rule"]).sum() / 3600,
        }
    ).sort_values("cpu_h_projected", ascending=False)
    table["unmeasured"] = table["jobs_left"] - table["measured_kind"] - table["like_kind"]
    table.loc["all"] = table.sum()
    return table.rename_axis("rule")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run's name (config key run:), e.g. paper, reduced, quick")
    parser.add_argument("--benchmarks", type=Path, help="the benchmarks folder (default: benchmarks, or the workdir's)")
    parser.add_argument("--by", choices=["rule", "kind"], default="rule", help="one row per rule or per kind of job")
    parser.add_argument("--left", type=Path, help="a dry run's text (snakemake -n): estimate the CPU hours left")
    parser.add_argument("--workdir", type=Path, help="the run's working directory: count only its current jobs")
    parser.add_argument(
        "--configfile", type=Path, nargs="+", default=[], help="the run's config files (with --workdir)"
    )
    args = parser.parse_args(argv)
    benchmarks = args.benchmarks or (args.workdir / "benchmarks" if args.workdir else Path("benchmarks"))
    done = read_job_times(benchmarks / args.run)
    if args.workdir:
        current = current_jobs(args.workdir, args.run, args.configfile)
        kept = done["job"].isin(current)
        print(f"{(~kept).sum()} of {len(done)} benchmark files left out: their jobs are to be remade or gone\n")
        done = done[kept]
    print(
        times_by_rule(done, args.by).to_markdown(floatfmt=(None, ".0f", ".2f", ".2f", ".0f", None, ".1f", None, ".1f"))
    )
    if args.left:
        left = jobs_left(args.left.read_text(), args.run)
        print(
            "\nLeft to run (benchmarked jobs), at the measured mean CPU time of each job's kind; projected: "
            "the others at a like kind's (a training of the same ny and mode on another task, a rollout "
            "of the same task and ny in another variant), the rest unmeasured:\n"
        )
        print(left_by_rule(done, left).to_markdown(floatfmt=(None, ".0f", ".0f", ".2f", ".0f", ".2f", ".0f")))


if __name__ == "__main__":
    main()
