"""The reference RONs' table: their scores per (task, ny) beside the selection and the paper's."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from physres.io import read_json
from physres.names import TASK_LABEL
from physres.tables.common import aggregate, format_value, mean_std, write_table


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
