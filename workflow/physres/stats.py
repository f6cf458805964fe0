"""Statistics of the PRC benchmark (paper, Sec. 5.2 and supplementary F).

Rank test: one-sided exact Mann-Whitney U of the pretrained reservoir against a baseline per
(task, ny). As in the paper's supplementary F, diverged runs are kept at the worst rank (they
have no score, so they stay out of every mean and std, but a run that blew up is certainly worse
than one that did not); NaN runs that did not diverge (a score that failed for another reason)
are excluded.

Summary figures, with performance oriented so that higher is better (accuracy, or 1 / NRMSE):
- share of the RON's performance retained: mean over cells of perf(pretrained) / perf(RON);
- mean relative improvement over a baseline: accuracy gain (a - b) / b, or NRMSE reduction
  (b - a) / b, averaged over cells;
- change from the smallest to the largest ny of the pretrained reservoir, per task in the same
  direction, averaged over tasks;
- the number of significant comparisons (p < alpha).
Applied to the paper's own Table 2 these give 90.9 %, 33.7 %, 20.9 % and 17.3 % (the paper
states 19.2 % for the third; tests/test_stats.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import mannwhitneyu

from physres.names import TUNED

HIGHER_IS_BETTER = {"accuracy": True, "nrmse": False}
#: the paper's baselines, and the gain-tuned unoptimized one (ours, physres.tuning) where a run has it
PAPER_BASELINES = ("unoptimized", "partial")
BASELINES = (*PAPER_BASELINES, TUNED)


def rank_test_values(runs: pd.DataFrame) -> np.ndarray:
    """Per-seed values for the rank test: diverged runs at the worst rank (with or without a
    score), NaN runs that did not diverge dropped."""
    higher = HIGHER_IS_BETTER[runs["metric"].iloc[0]]
    diverged = runs["diverged"].astype(bool).to_numpy()
    values = runs["value"].astype(float).to_numpy()
    kept = diverged | np.isfinite(values)
    worst = -np.inf if higher else np.inf
    return np.where(diverged[kept], worst, values[kept])


def mann_whitney_p(ours: np.ndarray, baseline: np.ndarray, higher_is_better: bool) -> float:
    """One-sided exact p-value of H1: ours is better than baseline (NaN if a sample is empty)."""
    if len(ours) == 0 or len(baseline) == 0:
        return float("nan")
    alternative = "greater" if higher_is_better else "less"
    return float(mannwhitneyu(ours, baseline, alternative=alternative, method="exact").pvalue)


SIGNIFICANCE_COLUMNS = [
    "task",
    "ny",
    "baseline",
    "metric",
    "p_value",
    "n_pretrained",
    "n_baseline",
    "n_nan_runs",
    "significant",
    "paper_p_value",
]


def significance_table(scores: pd.DataFrame, alpha: float, paper: list[dict] | None = None) -> pd.DataFrame:
    """Per (task, ny, baseline): the p-value of pretrained vs baseline and the sample sizes.
    ``paper``: config.yaml's ``benchmark.paper``, whose rows' ``p_value`` (the paper's
    supplementary table) fill ``paper_p_value`` (NaN where a row or baseline has none)."""
    paper_p = {(row["task"], row["ny"]): row.get("p_value", {}) for row in paper or []}
    rows = []
    for (task, ny), cell in scores.groupby(["task", "ny"], sort=False):
        ours = cell[cell["variant"] == "pretrained"]
        if ours.empty:
            continue
        higher = HIGHER_IS_BETTER[ours["metric"].iloc[0]]
        for baseline in BASELINES:
            base = cell[cell["variant"] == baseline]
            if base.empty:
                continue
            x, y = rank_test_values(ours), rank_test_values(base)
            p = mann_whitney_p(x, y, higher)
            rows.append(
                {
                    "task": task,
                    "ny": ny,
                    "baseline": baseline,
                    "metric": "p_value",
                    "p_value": p,
                    "n_pretrained": len(x),
                    "n_baseline": len(y),
                    "n_nan_runs": len(ours) + len(base) - len(x) - len(y),
                    "significant": bool(p < alpha),
                    "paper_p_value": float(paper_p.get((task, ny), {}).get(baseline, np.nan)),
                }
            )
    return pd.DataFrame(rows, columns=SIGNIFICANCE_COLUMNS)  # the columns even before any test


def performance(value: float | np.ndarray, metric: str):
    """Higher-is-better performance: accuracy itself, or the inverse NRMSE."""
    return value if HIGHER_IS_BETTER[metric] else 1.0 / np.asarray(value, float)


def relative_improvement(ours: float, baseline: float, metric: str) -> float:
    """Accuracy gain (ours - baseline) / baseline, or NRMSE reduction (baseline - ours) / baseline."""
    return (ours - baseline) / baseline if HIGHER_IS_BETTER[metric] else (baseline - ours) / baseline


def summary(cells: pd.DataFrame, significance: pd.DataFrame | None = None, paper: dict | None = None) -> pd.DataFrame:
    """The paper's headline figures from one row per (task, ny) with columns metric, ron,
    unoptimized, partial, pretrained (means over seeds). Cells with a missing value are left out
    of that figure and counted in ``n_cells``. ``paper``: config.yaml's
    ``benchmark.paper_summary``, shown beside each figure (NaN without it)."""
    rows = []
    paper = paper or {}
    paper_improvement = paper.get("improvement_over", {})
    paper_changes = paper.get("scaling_per_task", {})

    def add(quantity, values, paper=np.nan):
        values = np.asarray(values, float)
        ok = values[np.isfinite(values)]
        rows.append(
            {
                "quantity": quantity,
                "value": 100.0 * float(np.mean(ok)) if len(ok) else np.nan,
                "unit": "%",
                "n_cells": len(ok),
                "paper": paper,
                "paper_unit": "%",
            }
        )

    metric = cells["metric"]
    add(
        "share of RON performance retained",
        [performance(p, m) / performance(r, m) for p, r, m in zip(cells["pretrained"], cells["ron"], metric)],
        paper=paper.get("share_retained", np.nan),
    )
    for baseline in [b for b in BASELINES if b in PAPER_BASELINES or b in cells]:
        add(
            f"mean relative improvement over {baseline}" + ("" if baseline in PAPER_BASELINES else " (ours)"),
            [relative_improvement(p, b, m) for p, b, m in zip(cells["pretrained"], cells[baseline], metric)],
            paper=paper_improvement.get(baseline, np.nan),
        )
    changes = {}
    for task, rows_task in cells.groupby("task", sort=False):
        small, large = rows_task.loc[rows_task["ny"].idxmin()], rows_task.loc[rows_task["ny"].idxmax()]
        if small["ny"] != large["ny"]:
            changes[task] = (
                relative_improvement(large["pretrained"], small["pretrained"], small["metric"]),
                int(small["ny"]),
                int(large["ny"]),
            )
    if changes:
        low, high = min(c[1] for c in changes.values()), max(c[2] for c in changes.values())
        add(
            f"improvement of pretrained from ny = {low} to {high}, mean over tasks",
            [c[0] for c in changes.values()],
            paper=paper.get("scaling", np.nan),
        )
        for task, (change, small_ny, large_ny) in changes.items():
            add(
                f"improvement of pretrained from ny = {small_ny} to {large_ny}: {task}",
                [change],
                paper=paper_changes.get(task, np.nan),
            )
    if significance is not None and len(significance):
        # the paper's count is over its two baselines; the tuned baseline's comparisons apart
        theirs = significance[significance["baseline"].isin(PAPER_BASELINES)]
        rows.append(
            {
                "quantity": "significant comparisons (p < alpha)",
                "value": float(theirs["significant"].sum()),
                "unit": f"of {len(theirs)}",
                "n_cells": len(theirs),
                "paper": float(paper.get("significant", np.nan)),
                "paper_unit": f"of {paper.get('comparisons', '?')}",
            }
        )
        ours = significance[~significance["baseline"].isin(PAPER_BASELINES)]
        if len(ours):
            rows.append(
                {
                    "quantity": f"significant comparisons against {TUNED} (ours)",
                    "value": float(ours["significant"].sum()),
                    "unit": f"of {len(ours)}",
                    "n_cells": len(ours),
                    "paper": np.nan,
                    "paper_unit": "",
                }
            )
    return pd.DataFrame(rows)
