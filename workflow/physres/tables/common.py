"""Shared by every study's table: aggregation over seeds as the paper does it (mean and
sample std, ddof = 1, of the runs that did not diverge; their count in ``n_diverged``, the
paper's asterisks), cell order, number formats, and the Markdown / HTML / LaTeX writer."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd

from physres.io import atomic_path, write_text
from physres.names import TASK_ORDER

DIGITS = {"accuracy": 2, "nrmse": 3, "test_rmse": 3, "trajectory_nrmse": 3, "p_value": 4}


def aggregate(scores: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """mean/std over seeds of non-diverged runs, with n_seeds and n_diverged per group."""

    def summary(group: pd.DataFrame) -> pd.Series:
        ok = group.loc[~group["diverged"].astype(bool), "value"].to_numpy(float)
        metric = {} if "metric" in by else {"metric": group["metric"].iloc[0]}
        return pd.Series(
            {
                **metric,
                "n_seeds": len(group),
                "n_diverged": int(group["diverged"].astype(bool).sum()),
                "mean": float(np.mean(ok)) if len(ok) else np.nan,
                "std": float(np.std(ok, ddof=1)) if len(ok) > 1 else np.nan,
            }
        )

    out = scores.groupby(by, sort=False).apply(summary, include_groups=False).reset_index()
    return sort_cells(out) if {"task", "ny"} <= set(by) else out


def sort_cells(frame: pd.DataFrame) -> pd.DataFrame:
    order = {t: i for i, t in enumerate(TASK_ORDER)}
    return frame.sort_values(
        by=["task", "ny"], key=lambda col: col.map(order) if col.name == "task" else col, kind="stable"
    ).reset_index(drop=True)


HTML_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>
body {{font-family: sans-serif; font-size: 13px; margin: 1em;}}
table {{border-collapse: collapse;}} th, td {{padding: 3px 10px; text-align: right;}}
th {{border-bottom: 1px solid #444;}} tr:nth-child(even) {{background: #f3f3f3;}}
td:first-child, th:first-child {{text-align: left;}}
</style></head><body><p>{caption}</p>{table}</body></html>
"""


def format_value(value: float, metric: str) -> str:
    if value is None or not np.isfinite(value):
        return "--"
    return f"{value:.{DIGITS.get(metric, 3)}f}"


def mean_std(row: pd.Series, style: str) -> str:
    mean, std = format_value(row["mean"], row["metric"]), format_value(row["std"], row["metric"])
    marks = "*" * int(row.get("n_diverged", 0))
    if style == "latex":
        return f"${mean}_{{{std}}}" + (f"^{{{marks}}}$" if marks else "$")
    return f"{mean} ± {std}" + (f" ({marks})" if marks else "")


def write_table(
    frame: pd.DataFrame, display: pd.DataFrame, latex_display: pd.DataFrame, stem: str | Path, caption: str
) -> None:
    """Write stem.csv (tidy numbers), stem.md, stem.html (shown inline in the report) and
    stem.tex (the rendered table)."""
    stem = Path(stem)
    with atomic_path(stem.with_suffix(".csv")) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.6g")
    write_text(stem.with_suffix(".md"), f"{caption}\n\n{display.to_markdown(index=False, disable_numparse=True)}\n")
    table_html = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", display.to_html(index=False, border=0))  # markdown bold
    write_text(stem.with_suffix(".html"), HTML_PAGE.format(caption=html.escape(caption), table=table_html))
    latex = latex_display.to_latex(index=False, escape=False, column_format="l" * len(latex_display.columns))
    write_text(stem.with_suffix(".tex"), f"% {caption}\n{latex}")
