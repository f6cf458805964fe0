"""The simplified-controller study's table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from physres import flops
from physres.names import TASK_LABEL
from physres.tables.common import aggregate, mean_std, sort_cells, write_table
from physres.tables.pretraining import pretraining_scores

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
