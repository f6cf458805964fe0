"""The Coriolis ablation's table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from physres.tables.common import write_table


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
