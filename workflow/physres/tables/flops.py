"""Digital inference cost (paper, supplementary G): FLOPs of the RON and PRC pipelines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from physres import flops
from physres.compiled_cost import counted_controller_flops
from physres.names import TASK_LABEL
from physres.tables.common import sort_cells, write_table


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
                    size.K * counted_controller_flops(ny, size.nu, pipeline[len("prc_") :])
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
