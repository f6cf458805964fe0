"""Cross-task reuse's tables: scores and the degradations the paper quotes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from physres.names import TASK_LABEL, TASK_ORDER, TUNING_LABEL, TUNINGS, task_kind
from physres.stats import relative_improvement
from physres.tables.common import aggregate, format_value, mean_std, write_table

CROSS_TASK_KEYS = ["source", "target", "tuning"]


def task_metric(task: str) -> str:
    return "accuracy" if task_kind(task) == "classification" else "nrmse"


def with_degradation(cells: pd.DataFrame, mean: str = "mean") -> pd.Series:
    """Degradation (%) of each (source, target, tuning) cell's ``mean`` against the target's own
    ("standard") reservoir, the cell with source == target: positive when worse."""
    standard = cells[cells["source"] == cells["target"]].set_index("target")[mean]
    return pd.Series(
        [
            -100.0 * relative_improvement(value, standard.get(target, np.nan), task_metric(target))
            for target, value in zip(cells["target"], cells[mean])
        ],
        index=cells.index,
        dtype=float,
    )


def cross_task_table(scores: pd.DataFrame, paper: list[dict]) -> pd.DataFrame:
    """The paper's cross-task table as tidy rows (source, target, tuning): metric, mean, std,
    n_seeds, n_diverged over seeds, ``degradation`` (%) against the target's standard reservoir,
    and the paper's mean, std and degradation. ``scores``: one row per seed with source, target,
    tuning, metric, value, diverged; the standard cells have source == target and tuning none."""
    table = aggregate(scores, CROSS_TASK_KEYS)
    table["degradation"] = with_degradation(table)
    theirs = pd.DataFrame(paper, columns=[*CROSS_TASK_KEYS, "mean", "std"])
    theirs["degradation"] = with_degradation(theirs)
    theirs = theirs.rename(columns={"mean": "paper_mean", "std": "paper_std", "degradation": "paper_degradation"})
    table = table.merge(theirs, on=CROSS_TASK_KEYS, how="left")
    order = {t: i for i, t in enumerate(TASK_ORDER)}
    tuning_order = {t: i for i, t in enumerate(TUNINGS)}
    table = table.sort_values(
        by=["source", "tuning", "target"],
        key=lambda col: col.map(tuning_order if col.name == "tuning" else order),
        kind="stable",
    ).reset_index(drop=True)
    return table[
        [
            *CROSS_TASK_KEYS,
            "metric",
            "mean",
            "std",
            "n_seeds",
            "n_diverged",
            "degradation",
            "paper_mean",
            "paper_std",
            "paper_degradation",
        ]
    ]


def cross_task_degradation(table: pd.DataFrame, paper_text: list[dict]) -> pd.DataFrame:
    """Mean degradation (%) over the other sources per (tuning, target), as the paper's text
    quotes it: ours, the paper's recomputed from its table, and the value its text states."""
    others = table[table["source"] != table["target"]]
    rows = []
    for (tuning, target), group in others.groupby(["tuning", "target"], sort=False):
        stated = [p["percent"] for p in paper_text if p["tuning"] == tuning and p["target"] == target]
        rows.append(
            {
                "tuning": tuning,
                "target": target,
                "n_sources": len(group),
                "degradation": float(group["degradation"].mean()),
                "paper_degradation": float(group["paper_degradation"].mean()),
                "paper_text": stated[0] if stated else np.nan,
            }
        )
    frame = pd.DataFrame(
        rows, columns=["tuning", "target", "n_sources", "degradation", "paper_degradation", "paper_text"]
    )
    order = {t: i for i, t in enumerate(TASK_ORDER)}
    tuning_order = {t: i for i, t in enumerate(TUNINGS)}
    return frame.sort_values(
        by=["tuning", "target"], key=lambda col: col.map(tuning_order if col.name == "tuning" else order), kind="stable"
    ).reset_index(drop=True)


def render_cross_task(table: pd.DataFrame, stem: str | Path) -> None:
    """Wide rendering like the paper's table: a block of tunings per source, a column per target;
    ours (paper), a dash where the combination is not evaluated, a dagger on the standard cells."""
    targets = [t for t in TASK_ORDER if t in set(table["target"])]

    def rows(style):
        out = []
        for source in [t for t in TASK_ORDER if t in set(table["source"])]:
            for tuning in TUNINGS:
                block = table[(table["source"] == source) & (table["tuning"] == tuning)]
                if block.empty:
                    continue
                row = {"source": TASK_LABEL[source], "tuning": TUNING_LABEL[tuning]}
                for target in targets:
                    cell = block[block["target"] == target]
                    if cell.empty:
                        row[TASK_LABEL[target]] = "--"
                        continue
                    cell = cell.iloc[0]
                    standard = source == target
                    text = format_value(cell["mean"], cell["metric"]) if standard else mean_std(cell, style)
                    text += ("$^\\dagger$" if style == "latex" else " †") if standard else ""
                    if np.isfinite(cell["paper_mean"]):
                        theirs = format_value(cell["paper_mean"], cell["metric"])
                        text += f" (paper {theirs})" if style == "md" else f" ({theirs})"
                    row[TASK_LABEL[target]] = text
                out.append(row)
        return pd.DataFrame(out)

    caption = (
        "Cross-task reuse (the paper's supplementary table): each source task's pretrained reservoirs "
        "on each target task, robots unchanged, with no digital part re-tuned (None), the feedforward "
        "controller re-tuned (FF only), or both controllers and the map (FF + FB + map) against the "
        "target's RON. Accuracy (%) or test NRMSE, mean ± std over seeds (each * a diverged run, excluded); "
        "† the target's own pretrained reservoir; -- not evaluated (None needs inputs of the same "
        "dimension). In brackets the paper's means."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def render_cross_task_degradation(frame: pd.DataFrame, stem: str | Path) -> None:
    def rows(style):
        percent = lambda v: "--" if not np.isfinite(v) else f"{v:.1f}"  # noqa: E731
        return pd.DataFrame(
            {
                "tuning": frame["tuning"].map(TUNING_LABEL),
                "target": frame["target"].map(TASK_LABEL),
                "sources": frame["n_sources"],
                "degradation (%)": frame["degradation"].map(percent),
                "paper, from its table (%)": frame["paper_degradation"].map(percent),
                "paper, its text (%)": frame["paper_text"].map(lambda v: "--" if not np.isfinite(v) else f"{v:g}"),
            }
        )

    caption = (
        "Cross-task reuse: mean performance degradation (%) of the other sources' reservoirs against the "
        "target's own pretrained reservoir, per tuning and target (positive: worse). The paper's "
        "middle column is recomputed from its table by the same formula over the same sources as "
        "ours; its text quotes the mean over all other sources, which its table reproduces except "
        "for ADIAC and Mackey-Glass with FF + FB + map, quoted as 0.01 and 0.001 where the table "
        "gives 0.93 and 0.13 %."
    )
    write_table(frame, rows("md"), rows("latex"), stem, caption)
