"""The paper's Table 1 (pretraining) with the figures stated under it (Sec. 4.2), Table 2 (PRC
benchmark) and the summary of Sec. 5.2 from the cells of a run that exist so far, beside the
paper's values: for a long run under way, whose own table rules wait for every cell. The
summaries average over the cells that have every value they need (their column "cells" says how
many; the significance tests count the cells with a pretrained score), and their column "paper,
same cells" gives the paper's figure computed from the paper's Tables 1 and 2 over those same
cells, where the paper's own is over all 16. Reads results/<run>/pretrain/*/ny*/*/evaluation.json,
results/<run>/scores/*/ny*/*.json and the RON selections with the workflow's own table functions;
prints markdown on stdout.

Given the run's working directory (--workdir), it leaves out every file that Snakemake would
remake there (`snakemake --summary`: its plan is not "no update", e.g. a score of an earlier
draw whose params have changed since, or one whose inputs are to be remade), and says which:

    python tools/partial_tables.py paper --workdir /work/runs/paper
    python tools/partial_tables.py paper --workdir /work/runs/paper --grid   # Table 2 as the paper's
    python tools/partial_tables.py paper --workdir /work/runs/paper --beyond-std   # cells to explain
    python tools/partial_tables.py paper --workdir /work/runs/paper --per-cell   # the summary's terms
    python tools/partial_tables.py paper --workdir /work/runs/paper --predict   # the cells to come
    python tools/partial_tables.py paper --workdir /work/runs/paper --tests   # p-values beside the paper's
    python tools/partial_tables.py paper --workdir /work/runs/paper --per-seed   # Table 2's runs one by one
    python tools/partial_tables.py paper --workdir /work/runs/paper --figure /tmp/scalability   # Fig. 4 so far

--beyond-std adds the cells of Tables 1 and 2 whose mean lies more than the paper's std from the
paper's mean (the paper's digital column has no std and is left out), each with that distance in
the paper's std and in the std of a difference of the two means' draws, sqrt(ours^2 + paper^2),
and Welch's t-test of the two means from their stds (the paper's over its 4 runs a cell, less the
diverged ones it marks): how likely a difference that large is between two draws of one cell.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy.stats import ttest_ind_from_stats

from physres.figures import save_figure, scalability_figure
from physres.formats import load_scores
from physres.io import read_json
from physres.names import TASK_LABEL
from physres.run_status import outdated_outputs
from physres.stats import (
    HIGHER_IS_BETTER,
    PAPER_BASELINES,
    performance,
    relative_improvement,
    significance_table,
    summary,
)
from physres.tables.benchmark import benchmark_cells, benchmark_table, quantity_text, summary_rows
from physres.tables.common import format_value, sort_cells
from physres.tables.pretraining import pretraining_scores, pretraining_summary, pretraining_table
from physres.tables.reference import load_selections

ROOT = Path(__file__).resolve().parents[1]


def mean_std(mean: float, std: float, n_diverged: int = 0) -> str:
    """'0.0123 ± 0.0045', '-' when there is no mean, a '*' per diverged run."""
    text = "-" if pd.isna(mean) else f"{mean:.4g} ± {std:.2g}" if not pd.isna(std) else f"{mean:.4g}"
    return text + "*" * int(n_diverged or 0)


TABLE_INPUTS = ("pretrain/*/ny*/*/evaluation.json", "scores/*/ny*/*.json", "reference/*/ny*/selection.json")


def current(paths: list[Path], outdated: dict[Path, str] | None) -> list[Path]:
    """The paths that are not outdated (``outdated``: outdated_outputs'), in their order."""
    return [path for path in paths if path.resolve() not in (outdated or {})]


def partial_pretraining_summary(table: pd.DataFrame | None, config: dict) -> pd.DataFrame | None:
    """The figures stated under Table 1 (physres.tables.pretraining.pretraining_summary) over the
    (task, ny, mode) done so far (``table``: pretraining_so_far's), beside the same figures from
    the paper's Table 1 over the same cells and the paper's text (over all 16)."""
    if table is None:
        return None
    done = set(zip(table["task"], table["ny"], table["mode"]))
    paper = [row for row in config["pretrain"]["paper"] if (row["task"], row["ny"], row["mode"]) in done]
    figures = pretraining_summary(table, paper, config["pretrain"]["paper_summary"])
    percent = figures["unit"] == "%"

    def text(values, units=None):
        """'80.2' for percentages, '2' for counts, each followed by its unit when given."""
        units = [""] * len(values) if units is None else [f" {u}" for u in units]
        return [(f"{v:.1f}" if p else f"{v:.0f}") + u for v, p, u in zip(values, percent, units)]

    return pd.DataFrame(
        {
            "quantity": figures["quantity"],
            "value": text(figures["value"], figures["unit"]),
            "cells": figures["n_cells"],
            "paper, same cells": text(figures["paper_computed"]),
            "paper (text, all cells)": text(figures["paper"]),
        }
    )


def pretraining_so_far(results: Path, config: dict, outdated: dict[Path, str] | None = None) -> pd.DataFrame | None:
    """Table 1 (pretraining_table) of the (task, ny, mode) whose evaluation exists and is current;
    None if none does."""
    paths = current(sorted(results.glob(TABLE_INPUTS[0])), outdated)
    if not paths:
        return None
    scores = pretraining_scores(read_json(path, rule="evaluate_pretraining") for path in paths)
    # both readings of the paper's test RMSE, as the table rule's (physres.tables.pretraining)
    return pretraining_table(scores, config["pretrain"]["paper"], config["robot"]["layouts"])


def partial_pretraining(table: pd.DataFrame | None) -> pd.DataFrame | None:
    """Table 1's rows (``table``: pretraining_so_far's) as text, ours beside the paper's."""
    if table is None:
        return None
    return pd.DataFrame(
        {
            "task": table["task"],
            "ny": table["ny"],
            "mode": table["mode"],
            "metric": table["metric"],
            "ours": [mean_std(*r) for r in table[["mean", "std", "n_diverged"]].itertuples(index=False)],
            "paper": [
                mean_std(*r) for r in table[["paper_mean", "paper_std", "paper_n_diverged"]].itertuples(index=False)
            ],
        }
    )


def scores_so_far(
    results: Path, config: dict, outdated: dict[Path, str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The per-seed scores that exist and are current, and Table 2 of them (benchmark_table);
    None if none does."""
    paths = current(sorted(results.glob(TABLE_INPUTS[1])), outdated)
    if not paths:
        return None
    scores = load_scores(paths)
    selections = load_selections(current(sorted(results.glob(TABLE_INPUTS[2])), outdated))
    return scores, benchmark_table(scores, selections, config["benchmark"]["paper"])


def per_seed_scores(done: tuple[pd.DataFrame, pd.DataFrame] | None) -> pd.DataFrame | None:
    """Each cell's scores seed by seed (``done``: scores_so_far's), a column per seed, a diverged
    run written "diverged": the values behind Table 2's means and its Mann-Whitney tests."""
    if done is None:
        return None
    scores = done[0].assign(
        text=lambda frame: [
            "diverged" if diverged else f"{value:.4g}" for value, diverged in zip(frame["value"], frame["diverged"])
        ]
    )
    table = scores.pivot(index=["task", "ny", "variant"], columns="seed", values="text")
    return table.rename(columns=lambda seed: f"seed {seed}").reset_index().rename_axis(columns=None)


def paper_on_our_cells(table: pd.DataFrame) -> pd.DataFrame:
    """Table 2 (``table``: scores_so_far's) with the paper's means as the values, on the
    (task, ny, variant) that ours has."""
    ours = table["mean"].where(table["variant"] != "ron", table["target"])
    paper = table.loc[ours.notna()].copy()
    paper["mean"] = paper["target"] = paper["paper_mean"]
    return paper


def pretrained_cells(table: pd.DataFrame) -> pd.DataFrame:
    """Table 2's rows (``table``: scores_so_far's) of the (task, ny) whose pretrained scores exist
    (every seed diverged included, as the rule counts it). A cell whose pretrained column is still
    to come would otherwise set the ny range of the scaling figure (ny = 6 to 9 beside the paper's
    6 to 15)."""
    done = table.loc[table["variant"] == "pretrained", ["task", "ny"]]
    return table.merge(done, on=["task", "ny"])


def paper_summary_on_cells(table: pd.DataFrame) -> pd.DataFrame:
    """The summary's figures (physres.stats.summary) from the paper's Table 2 means, over the
    (task, ny, variant) that ours has (``table``: scores_so_far's Table 2): the paper's figure on
    the same cells as ours, where its own summary is over all 16."""
    return summary(benchmark_cells(paper_on_our_cells(table)))


def scaled_by_ron(selections: pd.DataFrame, table: pd.DataFrame | None, paper: list[dict]) -> pd.DataFrame | None:
    """A prediction for the cells whose RON is selected but which have no pretrained score yet
    (``selections``: load_selections'; ``table``: scores_so_far's Table 2 or None; ``paper``:
    config.yaml's benchmark.paper): partial's and pretrained's means as the paper's ratio of each
    to the paper's RON, times our RON's score, the reading that Table 2's finished cells follow
    (the reference RON's draw sets the pretrained and partial means). Columns: task, ny, our RON,
    then per variant the prediction with the paper's mean in brackets; None if no cell waits."""
    done = set()
    if table is not None:
        scored = table.loc[(table["variant"] == "pretrained") & table["mean"].notna()]
        done = set(zip(scored["task"], scored["ny"]))
    theirs = {(row["task"], row["ny"]): row for row in paper}
    rows = []
    for task, ny, ron in sort_cells(selections)[["task", "ny", "selected_value"]].itertuples(index=False):
        if (task, ny) in done or (task, ny) not in theirs:
            continue
        row = {"task": task, "ny": ny, "our ron": f"{ron:.4g}", "paper ron": theirs[task, ny]["ron"]}
        for variant in ("partial", "pretrained"):
            mean = theirs[task, ny][variant][0]
            row[variant] = f"{mean / theirs[task, ny]['ron'] * ron:.4g} ({mean:.4g})"
        rows.append(row)
    return pd.DataFrame(rows) if rows else None


def summary_per_cell(table: pd.DataFrame | None) -> pd.DataFrame | None:
    """The summary's per-cell terms, before their mean over cells: per (task, ny) with a
    pretrained score (``table``: scores_so_far's Table 2), the share of the RON's performance
    retained, the same for partial, and the relative improvement over unoptimized and over partial
    (physres.stats' performance and relative_improvement), each "ours (paper)" in %; None without
    such a cell."""
    if table is None:
        return None
    ours, paper = benchmark_cells(table), benchmark_cells(paper_on_our_cells(table))
    ours = ours.loc[ours["pretrained"].notna()]
    if ours.empty:
        return None
    paper = ours[["task", "ny"]].merge(paper, on=["task", "ny"], how="left")

    def terms(cells: pd.DataFrame) -> dict[str, list[float]]:
        metric, pretrained = cells["metric"], cells["pretrained"]
        return {
            "retained": [performance(p, m) / performance(r, m) for p, r, m in zip(pretrained, cells["ron"], metric)],
            "partial retained": [
                performance(p, m) / performance(r, m) for p, r, m in zip(cells["partial"], cells["ron"], metric)
            ],
            **{
                f"over {baseline}": [
                    relative_improvement(p, b, m) for p, b, m in zip(pretrained, cells[baseline], metric)
                ]
                for baseline in PAPER_BASELINES
            },
        }

    ours_terms, paper_terms = terms(ours), terms(paper)
    out = ours[["task", "ny"]].reset_index(drop=True)
    for name in ours_terms:
        out[name] = [f"{100 * o:.1f} ({100 * p:.1f})" for o, p in zip(ours_terms[name], paper_terms[name])]
    return out


def partial_summary(done: tuple[pd.DataFrame, pd.DataFrame] | None, config: dict) -> pd.DataFrame | None:
    """The summary of the cells done so far (``done``: scores_so_far's), as the rule
    benchmark_tables computes it, beside the paper's over all cells and over the same cells as
    ours (paper_summary_on_cells); None if no score exists."""
    if done is None:
        return None
    scores, table = done
    table = pretrained_cells(table)
    if table.empty:  # only RON or baseline columns so far: nothing to summarise, no test to run
        return None
    significance = significance_table(scores, config["benchmark"]["significance_level"], config["benchmark"]["paper"])
    rows = summary_rows(summary(benchmark_cells(table), significance, config["benchmark"]["paper_summary"]))
    same_cells = paper_summary_on_cells(table).set_index("quantity")
    rows["paper, same cells"] = [
        quantity_text(same_cells["value"].get(quantity, np.nan), "%") for quantity in rows["quantity"]
    ]
    theirs = significance[significance["baseline"].isin(PAPER_BASELINES)]
    if len(theirs) and theirs["paper_p_value"].notna().all():
        paper_significant = int((theirs["paper_p_value"] < config["benchmark"]["significance_level"]).sum())
        rows.loc[rows["quantity"] == "significant comparisons (p < alpha)", "paper, same cells"] = (
            f"{paper_significant} of {len(theirs)}"
        )
    return rows


def partial_tests(done: tuple[pd.DataFrame, pd.DataFrame] | None, config: dict) -> pd.DataFrame | None:
    """The Mann-Whitney tests of the cells with a pretrained score so far, ours beside the paper's
    supplementary table: p-values, the sample sizes (diverged runs kept at the worst rank, NaN
    runs left out) and whether both reach the same decision at the config's alpha."""
    if done is None:
        return None
    alpha = config["benchmark"]["significance_level"]
    tests = significance_table(done[0], alpha, config["benchmark"]["paper"])
    if tests.empty:
        return None
    paper_significant = tests["paper_p_value"] < alpha
    return pd.DataFrame(
        {
            "task": tests["task"],
            "ny": tests["ny"],
            "baseline": tests["baseline"],
            "p": [format_value(p, "p_value") for p in tests["p_value"]],
            "n": [f"{a} vs {b}" for a, b in zip(tests["n_pretrained"], tests["n_baseline"])],
            "paper p": [format_value(p, "p_value") for p in tests["paper_p_value"]],
            "same decision": [
                "--" if not np.isfinite(p) else ("yes" if ours == theirs else "no")
                for p, ours, theirs in zip(tests["paper_p_value"], tests["significant"], paper_significant)
            ],
        }
    )


def partial_benchmark(done: tuple[pd.DataFrame, pd.DataFrame] | None) -> pd.DataFrame | None:
    """Table 2's rows of the (task, ny, variant) whose score exists (``done``: scores_so_far's);
    None if none does."""
    if done is None:
        return None
    _, table = done
    # the digital column is the pretraining RON's own score, as the paper's (one number, no std)
    digital = table["variant"] == "ron"
    ours = table["mean"].where(~digital, table["target"])
    std = table["std"].where(~digital)
    return pd.DataFrame(
        {
            "task": table["task"],
            "ny": table["ny"],
            "variant": table["variant"],
            "metric": table["metric"],
            "ours": [mean_std(m, s, n) for m, s, n in zip(ours, std, table["n_diverged"])],
            "paper": [mean_std(m, s) for m, s in zip(table["paper_mean"], table["paper_std"])],
        }
    )


PAPER_RUNS = 4  # the paper's runs a cell (its Sec. 4.1 and Table 2's caption)


def beyond_paper_std(table: pd.DataFrame | None, key: str) -> pd.DataFrame | None:
    """The rows of Table 1 or 2 (pretraining_so_far's or scores_so_far's frame; ``key``: its "mode"
    or "variant" column) whose mean lies more than the paper's std from the paper's mean.

    Columns: task, ny, key, metric, ours, paper (text), in_paper_std = (ours - paper) / paper's std,
    in_combined_std = (ours - paper) / sqrt(ours's std^2 + paper's std^2), welch_p (Welch's
    two-sided t-test from the means and stds, over our runs not diverged and the paper's
    PAPER_RUNS less its diverged; NaN where ours has one run) and ours_better (the direction of
    the difference, HIGHER_IS_BETTER's; every other metric is an error). For Table 2 (a "target"
    column) also of_ron: the mean over the cell's RON, ours and the paper's, each over its own
    RON's score ("ours (paper)"), which separates the reference's draw from the rest. Rows without
    the paper's std (its digital column) or without a mean of ours are left out; None if none is
    beyond."""
    if table is None:
        return None
    beyond = table.loc[((table["mean"] - table["paper_mean"]).abs() > table["paper_std"])]
    if beyond.empty:
        return None
    difference = beyond["mean"] - beyond["paper_mean"]
    paper_runs = PAPER_RUNS - beyond.get("paper_n_diverged", pd.Series(0, index=beyond.index)).fillna(0)
    ours_runs = beyond["n_seeds"] - beyond["n_diverged"]
    welch = ttest_ind_from_stats(
        *(np.asarray(column, float) for column in (beyond["mean"], beyond["std"], ours_runs)),
        *(np.asarray(column, float) for column in (beyond["paper_mean"], beyond["paper_std"], paper_runs)),
        equal_var=False,
    )
    # every metric but HIGHER_IS_BETTER's is an error: lower is better
    higher_is_better = beyond["metric"].map(lambda metric: HIGHER_IS_BETTER.get(metric, False))
    out = pd.DataFrame(
        {
            "task": beyond["task"],
            "ny": beyond["ny"],
            key: beyond[key],
            "metric": beyond["metric"],
            "ours": [mean_std(*r) for r in beyond[["mean", "std", "n_diverged"]].itertuples(index=False)],
            "paper": [mean_std(m, s) for m, s in zip(beyond["paper_mean"], beyond["paper_std"])],
            "in_paper_std": (difference / beyond["paper_std"]).round(1),
            "in_combined_std": (difference / np.hypot(beyond["std"].fillna(0.0), beyond["paper_std"])).round(1),
            "welch_p": np.round(welch.pvalue, 3),
            "ours_better": (difference > 0) == higher_is_better,
        }
    )
    if "target" in table:
        ron = table.loc[table["variant"] == "ron"].set_index(["task", "ny"])[["target", "paper_mean"]]
        cell_ron = ron.reindex(pd.MultiIndex.from_frame(beyond[["task", "ny"]])).to_numpy()
        ours_of_ron, paper_of_ron = beyond["mean"] / cell_ron[:, 0], beyond["paper_mean"] / cell_ron[:, 1]
        out["of_ron"] = [f"{o:.3f} ({p:.3f})" for o, p in zip(ours_of_ron, paper_of_ron)]
    return out.reset_index(drop=True)


def benchmark_grid(long: pd.DataFrame | None) -> pd.DataFrame | None:
    """Table 2 as the paper lays it out: a row per (task, ny) in ``long``'s order (partial_benchmark's
    frame), a column per variant (the paper's four first), each cell "ours (paper)"; blank where a
    cell has no score yet."""
    if long is None:
        return None
    cells = long.assign(cell=long["ours"] + " (" + long["paper"] + ")")
    rows = list(dict.fromkeys(zip(cells["task"], cells["ny"])))
    variants = list(dict.fromkeys(cells["variant"]))
    columns = [v for v in ("ron", "unoptimized", "partial", "pretrained") if v in variants]
    columns += [v for v in variants if v not in columns]
    grid = cells.pivot(index=["task", "ny"], columns="variant", values="cell").reindex(rows)
    return grid[columns].fillna("").reset_index().rename_axis(columns=None)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run's name (config key run:), e.g. paper")
    parser.add_argument("--results", type=Path, help="the results folder (default: results, or the workdir's)")
    parser.add_argument("--config", type=Path, default=ROOT / "config.yaml", help="where the paper's values are")
    parser.add_argument(
        "--workdir", type=Path, help="the run's working directory: leave out what Snakemake would remake"
    )
    parser.add_argument(
        "--configfile", type=Path, nargs="+", default=[], help="the run's config files (with --workdir)"
    )
    parser.add_argument(
        "--grid", action="store_true", help="Table 2 a row per (task, ny), a column per variant, as the paper's"
    )
    parser.add_argument("--per-cell", action="store_true", help="also the summary's terms per cell, ours (the paper's)")
    parser.add_argument(
        "--figure",
        type=Path,
        metavar="STEM",
        help="also draw the scalability figure of the cells done to STEM.pdf and STEM.png",
    )
    parser.add_argument(
        "--predict", action="store_true", help="also the cells to come, the paper's ratio to its RON times ours"
    )
    parser.add_argument(
        "--beyond-std", action="store_true", help="also the cells more than the paper's std from the paper's"
    )
    parser.add_argument("--per-seed", action="store_true", help="also Table 2's scores seed by seed")
    parser.add_argument(
        "--tests", action="store_true", help="also the Mann-Whitney tests per cell, beside the paper's p-values"
    )
    args = parser.parse_args(argv)
    config = yaml.safe_load(args.config.read_text())
    results = (args.results or (args.workdir / "results" if args.workdir else Path("results"))) / args.run
    outdated = outdated_outputs(args.workdir, args.configfile) if args.workdir else {}
    stale = sorted(path for pattern in TABLE_INPUTS for path in results.glob(pattern) if path.resolve() in outdated)
    if stale:
        print(f"Left out, to be remade by Snakemake ({len(stale)} files):\n")
        print("\n".join(f"- {path.relative_to(results)}: {outdated[path.resolve()]}" for path in stale) + "\n")
    pretraining = pretraining_so_far(results, config, outdated)
    done = scores_so_far(results, config, outdated)  # read once, for Table 2 and the summary
    table2 = benchmark_grid(partial_benchmark(done)) if args.grid else partial_benchmark(done)
    sections = [
        ("Table 1 (pretraining), the cells done so far", partial_pretraining(pretraining)),
        ("Table 2 (PRC benchmark), the cells done so far" + (": ours (paper)" if args.grid else ""), table2),
        ("Summary (Sec. 5.2) of the cells done so far", partial_summary(done, config)),
        ("Pretraining summary (Sec. 4.2) of the cells done so far", partial_pretraining_summary(pretraining, config)),
    ]
    if args.per_cell:
        sections.append(("The summary's terms per cell, % : ours (paper)", summary_per_cell(done and done[1])))
    if args.predict:
        sections.append(
            (
                "Cells to come: the paper's ratio to its RON times our RON (paper)",
                scaled_by_ron(
                    load_selections(current(sorted(results.glob(TABLE_INPUTS[2])), outdated)),
                    done and done[1],
                    config["benchmark"]["paper"],
                ),
            )
        )
    if args.per_seed:
        sections.append(("Table 2's scores seed by seed", per_seed_scores(done)))
    if args.tests:
        sections.append(
            ("The Mann-Whitney tests of the cells done so far, ours beside the paper's", partial_tests(done, config))
        )
    if args.beyond_std:
        sections += [
            ("Table 1's cells beyond the paper's std", beyond_paper_std(pretraining, "mode")),
            ("Table 2's cells beyond the paper's std", beyond_paper_std(done and done[1], "variant")),
        ]
    if args.figure and done is not None:
        # the workflow's own figure (rule benchmark_tables), of the cells done so far
        figure = scalability_figure(done[1], TASK_LABEL)
        save_figure(figure, args.figure.with_suffix(".pdf"), args.figure.with_suffix(".png"))
    for title, table in sections:
        print(f"## {title}\n")
        print("none yet\n" if table is None else table.to_markdown(index=False) + "\n")


if __name__ == "__main__":
    main()
