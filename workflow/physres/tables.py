"""Tidy result tables (one row per cell) and their Markdown and LaTeX renderings.

Aggregates follow the paper: mean and standard deviation over seeds of the runs that did not
diverge; the number of diverged runs is kept in ``n_diverged`` (the paper's asterisks).
The standard deviation is the sample one (ddof = 1).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from physres import flops
from physres.data import task_kind
from physres.io import atomic_path, read_json, write_text
from physres.names import PHYSICAL_VARIANTS, TASK_LABEL, TASK_ORDER, TUNING_LABEL, TUNINGS, VARIANT_LABEL
from physres.stats import HIGHER_IS_BETTER, relative_improvement

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


def load_selections(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Selection JSONs (rule select_reference) -> task, ny, selected_seed, selected_value (its
    test score), candidates (how many were drawn)."""
    records = [read_json(path, rule="select_reference") for path in paths]
    frame = pd.DataFrame(
        [
            {
                "task": r["task"],
                "ny": r["ny"],
                "selected_seed": r["selected_seed"],
                "selected_value": r["test"],
                "candidates": len(r["candidates"]),
            }
            for r in records
        ],
        columns=["task", "ny", "selected_seed", "selected_value", "candidates"],
    )
    frame["selected_value"] = frame["selected_value"].astype(float)  # None -> NaN
    return frame


def ron_reference_table(scores: pd.DataFrame, paper: pd.DataFrame, selections: pd.DataFrame) -> pd.DataFrame:
    """Digital RON per (task, ny): mean/std over reference seeds, the selected pretraining RON's
    score and the paper's value (last column of the RON configuration table)."""
    table = aggregate(scores, ["task", "ny"])
    return table.merge(selections, on=["task", "ny"], how="left").merge(paper, on=["task", "ny"], how="left")


def render_ron_reference(table: pd.DataFrame, stem: str | Path) -> None:
    def rows(style):
        return pd.DataFrame(
            {
                "task": table["task"].map(TASK_LABEL),
                "ny": table["ny"],
                "metric": table["metric"],
                "RON (mean ± std over seeds)" if style == "md" else "RON": table.apply(mean_std, axis=1, style=style),
                "pretraining RON": [format_value(v, m) for v, m in zip(table["selected_value"], table["metric"])],
                "paper": [format_value(v, m) for v, m in zip(table["paper"], table["metric"])],
            }
        )

    caption = (
        "Digital RON reference per task and reservoir dimension: accuracy (%) for sMNIST and ADIAC, "
        "test NRMSE for Mackey-Glass and Lorenz96; mean ± std over reference seeds "
        "(diverged runs excluded, one * each); the pretraining RON, the best of the candidate draws on a "
        "validation part of the training split, scored on the test split; and the paper's value."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def pretraining_scores(evaluations: Iterable[dict]) -> pd.DataFrame:
    """Per-seed rows (task, ny, mode, seed, metric, value, diverged) from evaluation JSONs.
    A diverged rollout has no trajectory NRMSE; a non-finite test RMSE counts as diverged too.

    The paper's "test RMSE" has two readings, both kept: ``test_rmse``, the RMSE over samples and
    components of y'' (sqrt(loss / ny)), and ``test_rmse_norm``, the root of the mean squared
    norm ||y'' - y''_hat||^2, i.e. of the paper's loss itself (= sqrt(ny) x the first)."""
    rows = []
    for evaluation in evaluations:
        for seed in evaluation["seeds"]:
            base = {
                "task": evaluation["task"],
                "ny": evaluation["ny"],
                "mode": evaluation["mode"],
                "seed": seed["seed"],
            }
            rmse = seed["test_rmse"]
            rows.append({**base, "metric": "test_rmse", "value": rmse, "diverged": rmse is None})
            rows.append(
                {
                    **base,
                    "metric": "test_rmse_norm",
                    "value": None if rmse is None else rmse * np.sqrt(base["ny"]),
                    "diverged": rmse is None,
                }
            )
            rows.append(
                {
                    **base,
                    "metric": "trajectory_nrmse",
                    "value": seed["trajectory_nrmse"],
                    "diverged": bool(seed["diverged"]),
                }
            )
    frame = pd.DataFrame(rows)
    frame["value"] = frame["value"].astype(float)
    return frame


def pretraining_table(scores: pd.DataFrame, paper: list[dict], layouts: list[dict]) -> pd.DataFrame:
    """The paper's Table 1 as tidy rows: (task, ny, n_robots, n_pcs, mode, metric) with mean,
    std, n_diverged, and the paper's mean/std/n_diverged."""
    table = aggregate(scores, ["task", "ny", "mode", "metric"])
    # the paper's single test RMSE column stands beside both readings of it
    paper_rows = [
        {
            "task": p["task"],
            "ny": p["ny"],
            "mode": p["mode"],
            "metric": metric,
            "paper_mean": p[source][0],
            "paper_std": p[source][1],
            "paper_n_diverged": p["n_diverged"] if metric == "trajectory_nrmse" else 0,
        }
        for p in paper
        for metric, source in (
            ("test_rmse", "test_rmse"),
            ("test_rmse_norm", "test_rmse"),
            ("trajectory_nrmse", "trajectory_nrmse"),
        )
    ]
    table = table.merge(pd.DataFrame(paper_rows), on=["task", "ny", "mode", "metric"], how="left")
    table = table.merge(pd.DataFrame(layouts), on="ny", how="left")
    return table


def render_pretraining(table: pd.DataFrame, stem: str | Path) -> None:
    """Wide rendering like the paper's Table 1: ours (paper) per mode and metric."""
    columns = [
        (mode, metric)
        for mode in ("rob_fixed", "full")
        for metric in ("test_rmse", "test_rmse_norm", "trajectory_nrmse")
    ]
    labels = {
        "rob_fixed": "theta_rob fixed",
        "full": "full pretraining",
        "test_rmse": "test RMSE per component",
        "test_rmse_norm": "test RMSE of the norm",
        "trajectory_nrmse": "trajectory NRMSE",
    }

    def cell(task, ny, mode, metric, style):
        match = table[(table.task == task) & (table.ny == ny) & (table["mode"] == mode) & (table.metric == metric)]
        if match.empty:
            return "--"
        row = match.iloc[0]
        ours = mean_std(row, style)
        paper = mean_std(
            pd.Series(
                {
                    "mean": row["paper_mean"],
                    "std": row["paper_std"],
                    "metric": metric,
                    "n_diverged": row["paper_n_diverged"] if np.isfinite(row["paper_n_diverged"]) else 0,
                }
            ),
            style,
        )
        return f"{ours} (paper {paper})" if style == "md" else f"{ours} ({paper})"

    def rows(style):
        cells = table[["task", "ny", "n_robots", "n_pcs"]].drop_duplicates()
        out = {
            "task": cells["task"].map(TASK_LABEL).to_list(),
            "ny": cells["ny"].to_list(),
            "N": cells["n_robots"].to_list(),
            "n_pcs": cells["n_pcs"].to_list(),
        }
        for mode, metric in columns:
            out[f"{labels[mode]}: {labels[metric]}"] = [
                cell(t, n, mode, metric, style) for t, n in zip(cells["task"], cells["ny"])
            ]
        return pd.DataFrame(out)

    caption = (
        "Pretraining results (the paper's Table 1): test RMSE of the accelerations, in two readings "
        "(per component, sqrt(MSE / ny); and of the norm ||y'' - y''_hat||, sqrt(MSE), the square root "
        "of the paper's loss), and NRMSE of the mapped physical rollout against the RON, mean ± std over "
        "starts; each * is a diverged run, excluded from mean and std. In brackets the paper's values "
        "(its one test RMSE column beside both readings)."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def pretraining_summary(table: pd.DataFrame, paper: list[dict], stated: dict) -> pd.DataFrame:
    """The figures the paper states under its Table 1 (``stated``: config.yaml's
    ``pretrain.paper_summary``): per task, the mean over ny of the relative reduction of test
    RMSE by full pretraining against theta_rob fixed, and the number of diverged theta_rob-fixed
    trajectories. Ours and the same definitions applied to the paper's own Table 1
    (``paper_computed``)."""
    paper_table = pd.DataFrame(
        [
            {
                "task": p["task"],
                "ny": p["ny"],
                "mode": p["mode"],
                "mean": p["test_rmse"][0],
                "n_diverged": p["n_diverged"],
            }
            for p in paper
        ]
    )

    def reductions(rows):
        wide = rows.pivot_table(index=["task", "ny"], columns="mode", values="mean", sort=False)
        wide = wide.dropna(subset=[m for m in ("full", "rob_fixed") if m in wide])
        if not {"full", "rob_fixed"} <= set(wide.columns):
            return {}
        change = 100.0 * (wide["rob_fixed"] - wide["full"]) / wide["rob_fixed"]
        return change.groupby(level="task", sort=False).agg(["mean", "size"]).to_dict("index")

    ours = reductions(table[table["metric"] == "test_rmse"])
    theirs = reductions(paper_table)
    out = [
        {
            "quantity": f"test RMSE reduction of full over theta_rob fixed: {task}",
            "value": r["mean"],
            "unit": "%",
            "n_cells": int(r["size"]),
            "paper_computed": theirs.get(task, {}).get("mean", np.nan),
            "paper": stated["test_rmse_reduction"].get(task, np.nan),
        }
        for task, r in ours.items()
    ]
    fixed = table[(table["metric"] == "trajectory_nrmse") & (table["mode"] == "rob_fixed")]
    paper_fixed = paper_table[paper_table["mode"] == "rob_fixed"]
    out.append(
        {
            "quantity": "diverged theta_rob-fixed trajectories",
            "value": float(fixed["n_diverged"].sum()),
            "unit": f"of {int(fixed['n_seeds'].sum())}",
            "n_cells": len(fixed),
            "paper_computed": float(paper_fixed["n_diverged"].sum()),
            "paper": float(stated["diverged_rob_fixed"]),
        }
    )
    return pd.DataFrame(out)


def render_pretraining_summary(summary: pd.DataFrame, stem: str | Path) -> None:
    def rows(style):
        return pd.DataFrame(
            {
                "quantity": summary["quantity"],
                "value": [
                    f"{v:.1f} {u}" if u == "%" else f"{v:.0f} {u}" for v, u in zip(summary["value"], summary["unit"])
                ],
                "cells": summary["n_cells"],
                "paper's Table 1, computed": [f"{v:.1f}" for v in summary["paper_computed"]],
                "paper (text)": [f"{v:.1f}" for v in summary["paper"]],
            }
        )

    caption = (
        "Figures stated under the paper's Table 1, from our runs and, by the same definition, from the "
        "paper's own Table 1: per task, the mean over ny of the relative reduction of test RMSE (per "
        "component) by full pretraining against theta_rob fixed; and the count of diverged "
        "theta_rob-fixed trajectories."
    )
    write_table(summary, rows("md"), rows("latex"), stem, caption)


# --------------------------------------------------------------------------- the PRC benchmark


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
    """Wide rendering like the paper's Table 2; the best physical variant per cell in bold."""

    cells = table[["task", "ny", "metric"]].drop_duplicates()

    def rows(style):
        out = {
            "task": cells["task"].map(TASK_LABEL).to_list(),
            "ny": cells["ny"].to_list(),
            "metric": cells["metric"].to_list(),
        }
        for variant in ["ron"] + PHYSICAL_VARIANTS:
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
                    physical = table[(table.task == task) & (table.ny == ny) & table.variant.isin(PHYSICAL_VARIANTS)]
                    means = physical["mean"].to_numpy(float)
                    best = np.nanmax(means) if HIGHER_IS_BETTER[metric] else np.nanmin(means)
                    if np.isfinite(row["mean"]) and row["mean"] == best:
                        text = f"**{text}**" if style == "md" else "$\\mathbf{" + text.strip("$") + "}$"
                paper = format_value(row.get("paper_mean", np.nan), metric)
                column.append(f"{text} (paper {paper})" if style == "md" else f"{text} ({paper})")
            out[VARIANT_LABEL[variant]] = column
        return pd.DataFrame(out)

    caption = (
        "PRC benchmark (the paper's Table 2): accuracy (%) for sMNIST and ADIAC, test NRMSE for "
        "Mackey-Glass and Lorenz96; mean ± std over seeds, each * a diverged run excluded from mean "
        "and std; the digital column is the RON the physical reservoirs were pretrained against. "
        "Bold: the best physical variant. In brackets the paper's values."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def render_significance(table: pd.DataFrame, stem: str | Path, alpha: float) -> None:
    """p-values per (task, ny) and baseline (the paper's supplementary table); bold if p < alpha,
    * where NaN runs reduced a sample."""
    cells = table[["task", "ny"]].drop_duplicates()

    def cell(task, ny, baseline, style):
        match = table[(table.task == task) & (table.ny == ny) & (table.baseline == baseline)]
        if match.empty:
            return "--"
        row = match.iloc[0]
        text = format_value(row["p_value"], "p_value") if np.isfinite(row["p_value"]) else "--"
        if row["significant"]:
            text = f"**{text}**" if style == "md" else f"\\textbf{{{text}}}"
        return text + ("*" * int(row["n_nan_runs"]))

    def rows(style):
        out = {"task": cells["task"].map(TASK_LABEL).to_list(), "ny": cells["ny"].to_list()}
        for baseline in ("unoptimized", "partial"):
            out[f"p vs {baseline}"] = [cell(t, n, baseline, style) for t, n in zip(cells["task"], cells["ny"])]
        return pd.DataFrame(out)

    caption = (
        f"One-sided exact Mann-Whitney U p-values for 'pretrained is better than the baseline', from the "
        f"per-seed scores; bold: p < {alpha}; diverged runs keep the worst rank (as in the paper); each * a "
        f"NaN run that did not diverge, left out."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def quantity_text(value: float, unit: str) -> str:
    """'33.7 %' for percentages, '26 of 32' for counts, '--' when missing."""
    if not np.isfinite(value):
        return "--"
    return f"{value:.0f} {unit}" if unit.startswith("of") else f"{value:.1f} {unit}"


def render_summary(table: pd.DataFrame, stem: str | Path) -> None:
    def rows(style):
        return pd.DataFrame(
            {
                "quantity": table["quantity"],
                "value": [quantity_text(v, u) for v, u in zip(table["value"], table["unit"])],
                "cells": table["n_cells"],
                "paper": [quantity_text(v, u) for v, u in zip(table["paper"], table["paper_unit"])],
            }
        )

    caption = (
        "Summary of the PRC benchmark as the paper defines it (Sec. 5.2): performance is accuracy, or "
        "1 / NRMSE; improvements are accuracy gains or NRMSE reductions relative to the baseline, "
        "averaged uniformly over (task, ny) cells."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


# --------------------------------------------------------------------------- digital inference cost


def flops_table(config: dict, dimensions: list[int], paper: list[dict]) -> pd.DataFrame:
    """Tidy FLOPs per (task, ny, pipeline, part) from the paper's formulas (physres.flops), with
    XLA's count of the actual controllers (``counted``, reservoir part of the PRC pipelines) and
    the paper's totals where its tables give them."""
    rows = []
    for task in config["tasks"]:
        size = flops.task_size(config, task)
        for ny in dimensions:
            for pipeline, parts in flops.pipeline_flops(ny, size).items():
                counted = (
                    size.K * flops.counted_controller_flops(ny, size.nu, pipeline[len("prc_") :])
                    if pipeline.startswith("prc_")
                    else np.nan
                )
                for part, value in parts.items():
                    rows.append(
                        {
                            "task": task,
                            "ny": ny,
                            "pipeline": pipeline,
                            "part": part,
                            "K": size.K,
                            "flops": value,
                            "counted": counted if part == "reservoir" else np.nan,
                        }
                    )
    table = pd.DataFrame(rows)
    paper_rows = pd.DataFrame(
        [
            {
                "task": p["task"],
                "ny": p["ny"],
                "pipeline": f"prc_{p['controller']}",
                "part": "total",
                "paper": p["total"],
            }
            for p in paper
        ],
        columns=["task", "ny", "pipeline", "part", "paper"],
    )
    return sort_cells(table.merge(paper_rows, on=["task", "ny", "pipeline", "part"], how="left"))


def render_flops(table: pd.DataFrame, stem: str | Path) -> None:
    labels = {"ron": "RON", "prc_full": "PRC (2 x 64 controllers)", "prc_simplified": "PRC (simplified)"}

    def rows(style):
        cells = table[["task", "ny"]].drop_duplicates()
        out = {"task": cells["task"].map(TASK_LABEL).to_list(), "ny": cells["ny"].to_list()}
        for pipeline, label in labels.items():
            for part in ("reservoir", "total"):
                column = []
                for task, ny in zip(cells["task"], cells["ny"]):
                    row = table[
                        (table.task == task) & (table.ny == ny) & (table.pipeline == pipeline) & (table.part == part)
                    ].iloc[0]
                    text = f"{row['flops']:.3g}"
                    if part == "reservoir" and np.isfinite(row["counted"]):
                        text += f" (XLA {row['counted']:.3g})"
                    if np.isfinite(row["paper"]):
                        text += f" (paper {row['paper']:.3g})"
                    column.append(text)
                out[f"{label}: {part}"] = column
        return pd.DataFrame(out)

    caption = (
        "Digital inference FLOPs per input sequence (the paper's supplementary G): the reservoir part "
        "(RON update, or the PRC controllers; the robots cost none) and the whole pipeline with the "
        "readout, from the paper's formulas at this run's task sizes; beside the PRC reservoir, the "
        "count XLA compiles for the actual controllers, and the paper's totals where it gives them."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


# --------------------------------------------------------------------------- simplified controllers

SIMPLIFIED_QUANTITIES = ("test_rmse", "trajectory_nrmse", "prc")
CONTROLLER_LABEL = {"full": "2 x 64 feedback and feedforward MLPs", "simplified": "1 x 16 feedback, linear feedforward"}


def simplified_table(runs: dict[str, tuple[list[dict], pd.DataFrame]], config: dict, paper: list[dict]) -> pd.DataFrame:
    """The paper's simplified-controller tables as tidy rows (task, ny, controller, quantity):
    mean, std, n_seeds, n_diverged over the starts; ``flops`` of that controller's whole PRC
    pipeline per input sequence (physres.flops, this run's task sizes); the paper's mean and std.

    ``runs``: controller -> (evaluation JSON records of full pretraining, score rows of the
    pretrained variant). Quantities: test RMSE per component and trajectory NRMSE of the
    pretraining, and the PRC score (accuracy or NRMSE)."""
    frames = []
    for controller, (evaluations, scores) in runs.items():
        pretraining = aggregate(pretraining_scores(evaluations), ["task", "ny", "metric"])
        pretraining = pretraining[pretraining["metric"].isin(SIMPLIFIED_QUANTITIES)].assign(
            quantity=lambda f: f["metric"]
        )
        prc = aggregate(scores, ["task", "ny"]).assign(quantity="prc")
        frames.append(pd.concat([pretraining, prc], ignore_index=True).assign(controller=controller))
    table = pd.concat(frames, ignore_index=True)
    table["flops"] = [
        flops.pipeline_flops(int(ny), flops.task_size(config, task))[f"prc_{controller}"]["total"]
        for task, ny, controller in zip(table["task"], table["ny"], table["controller"])
    ]
    paper_rows = pd.DataFrame(
        [
            {
                "task": p["task"],
                "ny": p["ny"],
                "controller": p["controller"],
                "quantity": q,
                "paper_mean": p[q][0],
                "paper_std": p[q][1],
            }
            for p in paper
            for q in SIMPLIFIED_QUANTITIES
        ],
        columns=["task", "ny", "controller", "quantity", "paper_mean", "paper_std"],
    )
    table = table.merge(paper_rows, on=["task", "ny", "controller", "quantity"], how="left")
    order = {c: i for i, c in enumerate(CONTROLLER_LABEL)}
    table = table.sort_values("controller", key=lambda c: c.map(order), kind="stable")
    columns = [
        "task",
        "ny",
        "controller",
        "quantity",
        "metric",
        "mean",
        "std",
        "n_seeds",
        "n_diverged",
        "flops",
        "paper_mean",
        "paper_std",
    ]
    return sort_cells(table[columns])


def render_simplified(table: pd.DataFrame, stem: str | Path, paper_flops: list[dict]) -> None:
    """Wide rendering like the paper's two tables: per task, controller and ny, ours (paper)."""
    paper_total = {(p["task"], p["ny"], p["controller"]): p["total"] for p in paper_flops}
    labels = {"test_rmse": "test RMSE", "trajectory_nrmse": "trajectory NRMSE", "prc": "PRC score"}

    def rows(style):
        cells = table[["task", "controller", "ny"]].drop_duplicates()
        out = {
            "task": cells["task"].map(TASK_LABEL).to_list(),
            "controller": cells["controller"].to_list(),
            "ny": cells["ny"].to_list(),
        }
        for quantity, label in labels.items():
            column = []
            for task, controller, ny in zip(cells["task"], cells["controller"], cells["ny"]):
                match = table[
                    (table.task == task)
                    & (table.controller == controller)
                    & (table.ny == ny)
                    & (table.quantity == quantity)
                ]
                if match.empty:
                    column.append("--")
                    continue
                row = match.iloc[0]
                text = mean_std(row, style)
                if np.isfinite(row["paper_mean"]):
                    theirs = mean_std(
                        pd.Series({"mean": row["paper_mean"], "std": row["paper_std"], "metric": row["metric"]}), style
                    )
                    text += f" (paper {theirs})" if style == "md" else f" ({theirs})"
                column.append(text)
            out[label] = column
        out["FLOPs"] = []
        for task, controller, ny in zip(cells["task"], cells["controller"], cells["ny"]):
            ours = table[(table.task == task) & (table.controller == controller) & (table.ny == ny)]["flops"].iloc[0]
            theirs = paper_total.get((task, int(ny), controller))
            out["FLOPs"].append(f"{ours:.3g}" + ("" if theirs is None else f" (paper {theirs:.3g})"))
        return pd.DataFrame(out)

    caption = (
        "Simplified controllers (the paper's supplementary tables for sMNIST and Mackey-Glass): full "
        "pretraining and the pretrained reservoir's PRC score with the main runs' controllers (full: "
        f"{CONTROLLER_LABEL['full']}) and with simplified ones ({CONTROLLER_LABEL['simplified']}); test RMSE "
        "per component and trajectory NRMSE of the pretraining, PRC accuracy (%) or test NRMSE, mean ± std over "
        "starts (each * a diverged run, excluded), and the FLOPs of the whole PRC pipeline per input sequence "
        "at this run's task sizes. In brackets the paper's values."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


def coriolis_table(records: list[dict], paper: list[dict]) -> pd.DataFrame:
    """One row per (ny, run) of the Coriolis ablation, runs numbered 1.. in seed order, beside
    the paper's run of the same number (paper_* columns)."""
    rows = []
    for record in sorted(records, key=lambda r: r["ny"]):
        for run, entry in enumerate(sorted(record["runs"], key=lambda r: r["seed"]), start=1):
            rows.append(
                {
                    "ny": record["ny"],
                    "run": run,
                    "seed": entry["seed"],
                    **{
                        k: entry.get(k)
                        for k in (
                            "nrmse_without",
                            "nrmse_with",
                            "seconds_without",
                            "seconds_with",
                            "strain_nrmse",
                            "finer_step",
                            "diverged",
                        )
                    },
                }
            )
    table = pd.DataFrame(rows)
    paper_rows = pd.DataFrame(
        [
            {
                "ny": p["ny"],
                "run": p["run"],
                "paper_nrmse_without": p["nrmse"][0],
                "paper_nrmse_with": p["nrmse"][1],
                "paper_seconds_without": p["seconds"][0],
                "paper_seconds_with": p["seconds"][1],
                "paper_strain_nrmse": p["strain_nrmse"],
                "paper_finer_step": p["finer_step"],
            }
            for p in paper
        ],
        columns=[
            "ny",
            "run",
            "paper_nrmse_without",
            "paper_nrmse_with",
            "paper_seconds_without",
            "paper_seconds_with",
            "paper_strain_nrmse",
            "paper_finer_step",
        ],
    )
    table = table.merge(paper_rows, on=["ny", "run"], how="left")
    for column in ("nrmse_without", "nrmse_with", "seconds_without", "seconds_with", "strain_nrmse"):
        table[column] = table[column].astype(float)
    return table


def coriolis_effects(nrmse_without, nrmse_with, seconds_without, seconds_with, finer_step) -> tuple[float, float]:
    """The paper's two averages over runs: the mean |relative change| of the task NRMSE (%) and
    the mean growth of the simulation time (%) over the runs that kept the step (its 'without
    even accounting for such cases')."""
    change = np.abs(np.asarray(nrmse_with, float) / np.asarray(nrmse_without, float) - 1.0) * 100
    kept = ~np.asarray(finer_step, bool)
    growth = (np.asarray(seconds_with, float)[kept] / np.asarray(seconds_without, float)[kept] - 1.0) * 100
    mean = lambda x: float(np.nanmean(x)) if np.isfinite(x).any() else np.nan  # noqa: E731
    return mean(change), mean(growth)


def render_coriolis(table: pd.DataFrame, stem: str | Path, paper: list[dict]) -> None:
    """The table beside the paper's runs; the caption gives the paper's two averages per ny for
    ours (over the runs that neither diverged) and for the paper's own rows."""

    def cell(value, paper, digits, mark=False):
        text = "--" if value is None or not np.isfinite(value) else f"{value:.{digits}g}" + ("*" if mark else "")
        return text if paper is None or not np.isfinite(paper) else f"{text} [{paper:.{digits}g}]"

    def rows(style):
        return pd.DataFrame(
            {
                "ny": table["ny"],
                "run": table["run"],
                "seed": table["seed"],
                "NRMSE without": [cell(v, p, 4) for v, p in zip(table["nrmse_without"], table["paper_nrmse_without"])],
                "NRMSE with": [cell(v, p, 4) for v, p in zip(table["nrmse_with"], table["paper_nrmse_with"])],
                "time without (s)": [
                    cell(v, p, 3) for v, p in zip(table["seconds_without"], table["paper_seconds_without"])
                ],
                "time with (s)": [
                    cell(v, p, 3, bool(m))
                    for v, p, m in zip(
                        table["seconds_with"], table["paper_seconds_with"], table["finer_step"].fillna(False)
                    )
                ],
                "strain NRMSE": [cell(v, p, 3) for v, p in zip(table["strain_nrmse"], table["paper_strain_nrmse"])],
            }
        )

    effects = []
    for ny, group in table.groupby("ny", sort=True):
        kept = group[~group["diverged"].fillna(True).astype(bool)]
        ours = coriolis_effects(
            kept["nrmse_without"],
            kept["nrmse_with"],
            kept["seconds_without"],
            kept["seconds_with"],
            kept["finer_step"].fillna(False).astype(bool),
        )
        runs = [r for r in paper if r["ny"] == ny]
        theirs = (
            coriolis_effects(
                [r["nrmse"][0] for r in runs],
                [r["nrmse"][1] for r in runs],
                [r["seconds"][0] for r in runs],
                [r["seconds"][1] for r in runs],
                [r["finer_step"] for r in runs],
            )
            if runs
            else (np.nan, np.nan)
        )
        pct = lambda x, digits: "n/a" if not np.isfinite(x) else f"{x:.{digits}f} %"  # noqa: E731
        effects.append(
            f"ny = {ny} ({len(kept)} of {len(group)} runs without divergence): task NRMSE changed by "
            f"{pct(ours[0], 2)} on average (paper {pct(theirs[0], 2)}), simulation time grew by "
            f"{pct(ours[1], 1)} (paper {pct(theirs[1], 1)})"
        )
    caption = (
        "Coriolis and centrifugal forces (the paper's supplementary table): fully pretrained reservoirs, "
        "trained without the term, simulated without and with it; Mackey-Glass test NRMSE, wall time of "
        "the test rollout (compiled program warm; * the finer Euler step was needed for a consistent "
        "simulation), and the strain NRMSE(q_c, q_nc); the paper's run of the same number in brackets "
        "(its seconds are another machine's). " + "; ".join(effects) + "."
    )
    write_table(table, rows("md"), rows("latex"), stem, caption)


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
