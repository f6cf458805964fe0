"""The reservoir diagnostics' table (ours, not the paper's): memory capacity, IPC per degree and
kernel and generalisation rank per (task, ny, variant), mean and std over the seeds that did not
diverge (their count marked as in every other table)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from physres.names import TASK_LABEL, TASK_ORDER, VARIANT_LABEL, VARIANTS
from physres.tables.common import aggregate, write_table

#: the table's quantities: column -> (label, digits)
QUANTITIES = {
    "memory_capacity_total": ("MC", 2),
    "ipc_1": ("IPC 1", 2),
    "ipc_2": ("IPC 2", 2),
    "ipc_3": ("IPC 3", 2),
    "ipc_total": ("IPC", 2),
    "kernel_rank": ("KR", 1),
    "generalisation_rank": ("GR", 1),
}


def diagnostics_scores(records: list[dict]) -> pd.DataFrame:
    """One row per (task, ny, variant, seed, quantity): value, diverged (a diverged seed's values NaN)."""
    rows = []
    for record in records:
        for variant, seeds in record["variants"].items():
            for seed, result in seeds.items():
                flat = {
                    "memory_capacity_total": result.get("memory_capacity_total"),
                    **{f"ipc_{degree}": value for degree, value in result.get("ipc", {}).items()},
                    "ipc_total": result.get("ipc_total"),
                    "kernel_rank": result.get("kernel_rank"),
                    "generalisation_rank": result.get("generalisation_rank"),
                }
                for quantity in QUANTITIES:
                    value = flat.get(quantity)
                    rows.append(
                        {
                            "task": record["task"],
                            "ny": int(record["ny"]),
                            "variant": variant,
                            "seed": int(seed),
                            "metric": quantity,
                            "value": np.nan if value is None else float(value),
                            "diverged": bool(result["diverged"]),
                        }
                    )
    return pd.DataFrame(rows)


def diagnostics_table(records: list[dict]) -> pd.DataFrame:
    """Mean, std, n_seeds and n_diverged per (task, ny, variant, quantity), variants in the
    benchmark's order."""
    table = aggregate(diagnostics_scores(records), ["task", "ny", "variant", "metric"])
    task_order = {t: i for i, t in enumerate(TASK_ORDER)}
    variant_order = {v: i for i, v in enumerate(VARIANTS)}
    keys = pd.DataFrame(
        {"task": table["task"].map(task_order), "ny": table["ny"], "v": table["variant"].map(variant_order)}
    )
    return table.loc[keys.sort_values(["task", "ny", "v"], kind="stable").index].reset_index(drop=True)


def memory_capacity_curves(records: list[dict]) -> dict[tuple[str, int, str], np.ndarray]:
    """(task, ny, variant) -> MC_k per delay k, mean over the seeds that did not diverge (absent
    when every seed diverged)."""
    curves = {}
    for record in records:
        for variant, seeds in record["variants"].items():
            kept = [r["memory_capacity"] for r in seeds.values() if not r["diverged"]]
            if kept:
                curves[(record["task"], int(record["ny"]), variant)] = np.mean(kept, axis=0)
    return curves


def render_diagnostics(table: pd.DataFrame, stem: str | Path, config: dict) -> None:
    """One row per (task, ny, variant), one column per quantity: mean ± std (* per diverged seed)."""

    def cell(row, style):
        label, digits = QUANTITIES[row["metric"]]
        if not np.isfinite(row["mean"]):
            return "--" + ("*" * int(row["n_diverged"]))
        std = f"{row['std']:.{digits}f}" if np.isfinite(row["std"]) else "--"
        marks = "*" * int(row["n_diverged"])
        if style == "latex":
            return f"${row['mean']:.{digits}f}_{{{std}}}" + (f"^{{{marks}}}$" if marks else "$")
        return f"{row['mean']:.{digits}f} ± {std}" + (f" ({marks})" if marks else "")

    def rows(style):
        wide = table.assign(text=[cell(r, style) for _, r in table.iterrows()]).pivot_table(
            index=["task", "ny", "variant"], columns="metric", values="text", aggfunc="first", sort=False
        )
        wide = wide[[q for q in QUANTITIES if q in wide.columns]].reset_index()
        wide["task"] = wide["task"].map(TASK_LABEL)
        wide["variant"] = wide["variant"].map(VARIANT_LABEL)
        return wide.rename(
            columns={"task": "Task", "ny": "ny", "variant": "Variant", **{q: v[0] for q, v in QUANTITIES.items()}}
        )

    caption = (
        "Reservoir diagnostics (ours, not the paper's): total linear memory capacity (MC, delays 0.."
        f"{config['max_delay']}), information processing capacity per Legendre degree and in total "
        f"(IPC, largest delays {config['ipc_max_delays']}), kernel rank (KR, {config['rank_streams']} "
        "independent streams) and generalisation rank (GR, as many noisy copies of one stream); "
        "mean ± std over seeds, * per diverged seed (no value)."
    )
    write_table(table, rows("plain"), rows("latex"), stem, caption)
