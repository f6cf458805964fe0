"""The PRC benchmark's tables: Table 2, the Mann-Whitney tests and the summary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from physres.names import PHYSICAL_VARIANTS, TASK_LABEL, TUNED, VARIANT_LABEL
from physres.stats import BASELINES, HIGHER_IS_BETTER
from physres.tables.common import aggregate, format_value, mean_std, sort_cells, write_table


def benchmark_table(scores: pd.DataFrame, selections: pd.DataFrame, paper: list[dict]) -> pd.DataFrame:
    """The paper's Table 2 as tidy rows per (task, ny, variant): mean/std over seeds without the
    diverged runs, n_diverged; for ``ron`` also the pretraining RON's own score (``target``, from
    ``selections``), which the paper's digital column reports. paper_mean/paper_std: the paper's."""
    table = aggregate(scores, ["task", "ny", "variant"])
    target = (
        selections[["task", "ny", "selected_value"]].rename(columns={"selected_value": "target"}).assign(variant="ron")
    )
    table = table.merge(target, on=["task", "ny", "variant"], how="left")
    paper_rows = []
    for row in paper:
        paper_rows.append(
            {"task": row["task"], "ny": row["ny"], "variant": "ron", "paper_mean": row["ron"], "paper_std": np.nan}
        )
        paper_rows += [
            {"task": row["task"], "ny": row["ny"], "variant": v, "paper_mean": row[v][0], "paper_std": row[v][1]}
            for v in PHYSICAL_VARIANTS
        ]
    if paper_rows:
        table = table.merge(pd.DataFrame(paper_rows), on=["task", "ny", "variant"], how="left")
    return table


def benchmark_cells(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, ny): metric, the target RON's score and each physical variant's mean."""
    value = table["mean"].where(table["variant"] != "ron", table["target"])
    wide = table.assign(value=value).pivot_table(
        index=["task", "ny"], columns="variant", values="value", dropna=False, sort=False
    )
    cells = table[["task", "ny", "metric"]].drop_duplicates().merge(wide.reset_index(), on=["task", "ny"], how="left")
    for variant in PHYSICAL_VARIANTS + ["ron"]:
        if variant not in cells:
            cells[variant] = np.nan
    return sort_cells(cells)


def render_benchmark(table: pd.DataFrame, stem: str | Path) -> None:
    """Wide rendering like the paper's Table 2; the best physical variant per cell in bold; the
    tuned baseline (ours) in a last column where the run has it."""

    cells = table[["task", "ny", "metric"]].drop_duplicates()
    variants = ["ron"] + PHYSICAL_VARIANTS + ([TUNED] if (table["variant"] == TUNED).any() else [])

    def rows(style):
        out = {
            "task": cells["task"].map(TASK_LABEL).to_list(),
            "ny": cells["ny"].to_list(),
            "metric": cells["metric"].to_list(),
        }
        for variant in variants:
            column = []
            for task, ny, metric in zip(cells["task"], cells["ny"], cells["metric"]):
                match = table[(table.task == task) & (table.ny == ny) & (table.variant == variant)]
                if match.empty:
                    column.append("--")
                    continue
                row = match.iloc[0]
                if variant == "ron":
                    text = format_value(row["target"], metric)
                else:
                    text = mean_std(row, style)
                    physical = table[(table.task == task) & (table.ny == ny) & (table.variant != "ron")]
                    means = physical["mean"].to_numpy(float)
                    best = np.nanmax(means) if HIGHER_IS_BETTER[metric] else np.nanmin(means)
                    if np.isfinite(row["mean"]) and row["mean"] == best:
                        text = f"**{text}**" if style == "md" else "$\\mathbf{" + text.strip("$") + "}$"
                if variant == TUNED:  # ours: no paper value
                    column.append(text)
                    continue
                paper = format_value(row.get("paper_mean", np.nan), metric)
                column.append(f"{text} (paper {paper})" if style == "md" else f"{text} ({paper})")
            out[VARIANT_LABEL[variant]] = column
        return pd.DataFrame(out)

    caption = (
        "PRC benchmark (the paper's Table 2): accuracy (%) for sMNIST and ADIAC, test NRMSE for "
        "Mackey-Glass and Lorenz96; mean ± std over seeds, each * a diverged run excluded from mean "
        "and std; the digital column is the RON the physical reservoirs were pretrained against. "
        "Bold: the best physical variant. In brackets the paper's values. The gain-tuned unoptimized "
        "baseline, where present, is ours (not the paper's)."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def render_significance(table: pd.DataFrame, stem: str | Path, alpha: float) -> None:
    """p-values per (task, ny) and baseline (the paper's supplementary table); bold if p < alpha,
    * where NaN runs reduced a sample; the paper's in brackets where the table has them."""
    cells = table[["task", "ny"]].drop_duplicates()

    def cell(task, ny, baseline, style):
        match = table[(table.task == task) & (table.ny == ny) & (table.baseline == baseline)]
        if match.empty:
            return "--"
        row = match.iloc[0]
        text = format_value(row["p_value"], "p_value") if np.isfinite(row["p_value"]) else "--"
        if row["significant"]:
            text = f"**{text}**" if style == "md" else f"\\textbf{{{text}}}"
        text += "*" * int(row["n_nan_runs"])
        paper = row.get("paper_p_value", np.nan)
        return text + (f" ({format_value(paper, 'p_value')})" if np.isfinite(paper) else "")

    def rows(style):
        out = {"task": cells["task"].map(TASK_LABEL).to_list(), "ny": cells["ny"].to_list()}
        for baseline in [b for b in BASELINES if (table["baseline"] == b).any()]:
            out[f"p vs {baseline}"] = [cell(t, n, baseline, style) for t, n in zip(cells["task"], cells["ny"])]
        return pd.DataFrame(out)

    caption = (
        f"One-sided exact Mann-Whitney U p-values for 'pretrained is better than the baseline', from the "
        f"per-seed scores; bold: p < {alpha}; diverged runs keep the worst rank (as in the paper); each * a "
        f"NaN run that did not diverge, left out. In brackets the paper's."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def quantity_text(value: float, unit: str) -> str:
    """'33.7 %' for percentages, '26 of 32' for counts, '--' when missing."""
    if not np.isfinite(value):
        return "--"
    return f"{value:.0f} {unit}" if unit.startswith("of") else f"{value:.1f} {unit}"


def summary_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The summary (physres.stats.summary) as displayed: quantity, value, cells, paper."""
    return pd.DataFrame(
        {
            "quantity": table["quantity"],
            "value": [quantity_text(v, u) for v, u in zip(table["value"], table["unit"])],
            "cells": table["n_cells"],
            "paper": [quantity_text(v, u) for v, u in zip(table["paper"], table["paper_unit"])],
        }
    )


def render_summary(table: pd.DataFrame, stem: str | Path) -> None:
    caption = (
        "Summary of the PRC benchmark as the paper defines it (Sec. 5.2): performance is accuracy, or "
        "1 / NRMSE; improvements are accuracy gains or NRMSE reductions relative to the baseline, "
        "averaged uniformly over (task, ny) cells."
    )
    rows = summary_rows(table)
    write_table(table, rows, rows, stem, caption)
