"""Compare finished runs of the workflow side by side, from their tables (results/<run>/tables/):
how many runs of each variant diverged, in how many cells pretrained beats unoptimized, the
summary, and the unoptimized and pretrained scores per cell beside the paper's. Used for
issue 27's factor measurement (docs/results.md); reads only the tables' CSV files.

    python tools/compare_runs.py q_prev q_E q_G --results results
    python tools/compare_runs.py qf_prev qf_E --variant unoptimized   # runs that scored one variant only
    python tools/compare_runs.py paper paper_thesis_robots --sequences unoptimized   # runs under way

--sequences reads the rollout jobs' activation parts (activations/{task}/ny{ny}/{variant}/part*.h5)
instead, so it compares runs still under way: per part, how many sequences of each seed left the
divergence bound (or turned non-finite), for the parts that every run has.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import h5py
import pandas as pd
import yaml

SUMMARY_ROWS = {
    "share of RON performance retained": "retained",
    "mean relative improvement over unoptimized": "over unoptimized",
    "mean relative improvement over partial": "over partial",
    "improvement of pretrained from ny = 6 to 15, mean over tasks": "ny 6 -> 15",
}


def better(metric: str, a: float, b: float) -> bool:
    """a beats b: higher accuracy or lower NRMSE; a score beats a run with none (all diverged)."""
    if pd.isna(b):
        return not pd.isna(a)
    return (a > b) if metric == "accuracy" else (a < b)


RUN_TABLES = ("benchmark.csv", "pretraining.csv", "summary.csv")


def missing_tables(tables: dict[str, Path]) -> list[str]:
    """The tables a run comparison reads that a run lacks, each with the target that builds it
    (a workflow target is under results/, wherever --results points)."""
    return [
        f"{path / name} (snakemake results/{run}/tables/{name} --configfile ...)"
        for run, path in tables.items()
        for name in RUN_TABLES
        if not (path / name).is_file()
    ]


def run_row(tables: Path) -> dict:
    """One run's divergence counts, wins and summary."""
    benchmark = pd.read_csv(tables / "benchmark.csv")
    pretraining = pd.read_csv(tables / "pretraining.csv")
    summary = pd.read_csv(tables / "summary.csv").set_index("quantity")
    row = {}
    for variant in ("unoptimized", "partial", "pretrained"):
        rows = benchmark[benchmark["variant"] == variant]
        row[f"{variant} diverged"] = f"{rows['n_diverged'].sum()} of {rows['n_seeds'].sum()}"
    trajectories = pretraining[pretraining["metric"] == "trajectory_nrmse"]
    for mode in ("rob_fixed", "full"):
        rows = trajectories[trajectories["mode"] == mode]
        row[f"{mode} trajectories diverged"] = f"{rows['n_diverged'].sum()} of {rows['n_seeds'].sum()}"
    cells = benchmark.set_index(["task", "ny", "metric", "variant"])["mean"].unstack("variant")
    wins = sum(better(metric, r["pretrained"], r["unoptimized"]) for (_, _, metric), r in cells.iterrows())
    row["pretrained beats unoptimized"] = f"{wins} of {len(cells)} cells"
    for quantity, name in SUMMARY_ROWS.items():
        row[name] = f"{summary.loc[quantity, 'value']:.1f} %" if quantity in summary.index else "--"
    significant = summary.loc["significant comparisons (p < alpha)", "value"]
    row["significant"] = f"{int(significant)} of {int(summary.loc['significant comparisons (p < alpha)', 'n_cells'])}"
    return row


def cell_scores(tables: Path, variants=("unoptimized", "pretrained")) -> pd.Series:
    """'mean (n diverged)' per (task, ny, variant)."""
    benchmark = pd.read_csv(tables / "benchmark.csv").set_index(["task", "ny", "variant"])
    scores = {}
    for (task, ny, variant), r in benchmark.iterrows():
        if variant in variants:
            mark = f" ({r['n_diverged']}*)" if r["n_diverged"] else ""
            scores[(task, ny, variant)] = ("--" if pd.isna(r["mean"]) else f"{r['mean']:.4g}") + mark
    return pd.Series(scores)


def paper_scores(tables: Path, variants=("unoptimized", "pretrained")) -> pd.Series:
    benchmark = pd.read_csv(tables / "benchmark.csv").set_index(["task", "ny", "variant"])
    return pd.Series({key: f"{r['paper_mean']:.4g}" for key, r in benchmark.iterrows() if key[2] in variants})


def variant_scores(scores: Path, variant: str) -> pd.Series:
    """'mean (n diverged*)' per (task, ny) of one variant, from its score files
    (scores/{task}/ny{ny}/{variant}.json), for runs without tables."""
    cells = {}
    for path in sorted(scores.glob(f"*/ny*/{variant}.json")):
        record = json.loads(path.read_text())
        values = [s["value"] for s in record["seeds"] if not s["diverged"]]
        diverged = sum(s["diverged"] for s in record["seeds"])
        mean = f"{sum(values) / len(values):.4g}" if values else "--"
        cells[(record["task"], record["ny"])] = mean + (f" ({diverged}*)" if diverged else "")
    return pd.Series(cells)


def diverged_count(scores: Path, variant: str) -> str:
    records = [json.loads(p.read_text()) for p in sorted(scores.glob(f"*/ny*/{variant}.json"))]
    seeds = [s for r in records for s in r["seeds"]]
    return f"{sum(s['diverged'] for s in seeds)} of {len(seeds)}"


def diverged_sequences(part: Path, bound: float) -> str:
    """'n0, n1, ... of n': per seed, the sequences of a rollout part whose peak |Q|, |Q'| left the
    bound or is not finite (as physres.simulate.diverged counts a run)."""
    with h5py.File(part, "r") as h5:
        peak = h5["peak"][...]  # (seeds, sequences)
    return ", ".join(str(int(n)) for n in (~(peak <= bound)).sum(axis=1)) + f" of {peak.shape[1]}"


def sequences_table(results: Path, runs: list[str], variant: str, bound: float) -> pd.DataFrame:
    """Per (task, ny, part) that every run has, each run's diverged sequences per seed."""
    parts = [
        {
            p.relative_to(results / run / "activations")
            for p in (results / run / "activations").glob(f"*/ny*/{variant}/part*.h5")
        }
        for run in runs
    ]
    cell = lambda p: (p.parts[0], int(p.parts[1][2:]), int(p.stem[4:]))  # noqa: E731  task/ny{ny}/v/part{p}
    rows = {
        cell(p): [diverged_sequences(results / run / "activations" / p, bound) for run in runs]
        for p in sorted(set.intersection(*parts), key=cell)
    }
    index = pd.MultiIndex.from_tuples(list(rows), names=["task", "ny", "part"]) if rows else None
    return pd.DataFrame(list(rows.values()), index=index, columns=runs)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="run names (results/<run>/tables/ must exist)")
    parser.add_argument("--results", default="results", help="the results folder (default: results)")
    parser.add_argument("--variant", help="compare one variant's score files only (runs without tables)")
    parser.add_argument(
        "--sequences", metavar="VARIANT", help="compare one variant's rollout parts: diverged sequences per seed"
    )
    parser.add_argument(
        "--bound",
        type=float,
        default=None,
        help="divergence bound (default: config.yaml's evaluation.divergence_bound)",
    )
    args = parser.parse_args(argv)
    if args.sequences:
        bound = args.bound
        if bound is None:
            bound = yaml.safe_load(Path("config.yaml").read_text())["evaluation"]["divergence_bound"]
        print(sequences_table(Path(args.results), args.runs, args.sequences, bound).to_markdown())
        return
    if args.variant:
        scores = {run: Path(args.results) / run / "scores" for run in args.runs}
        table = pd.DataFrame({run: variant_scores(path, args.variant) for run, path in scores.items()})
        table.loc[("all", "diverged"), :] = [diverged_count(path, args.variant) for path in scores.values()]
        print(table.to_markdown())
        return
    tables = {run: Path(args.results) / run / "tables" for run in args.runs}
    if missing := missing_tables(tables):
        parser.error("missing tables (or compare one variant with --variant):\n  " + "\n  ".join(missing))
    print(pd.DataFrame({run: run_row(path) for run, path in tables.items()}).to_markdown())
    print()
    scores = pd.DataFrame({run: cell_scores(path) for run, path in tables.items()})
    scores["paper"] = paper_scores(next(iter(tables.values())))
    scores.index.names = ["task", "ny", "variant"]
    print(scores.to_markdown())


if __name__ == "__main__":
    main()
