"""The robustness study's tables (ours, not the paper's): score against the relative size sigma of
a perturbation (parameter mismatch, sensor noise, actuation noise) per (task, ny, variant) and
readout protocol, mean and std over seeds and draws of the runs that did not diverge (their
count marked), and per cell the sigma at which the pretrained reservoir has lost half of its
advantage over the unoptimized one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from physres.names import PERTURBATION_LABEL, ROBUST, TASK_LABEL, TASK_ORDER, VARIANT_LABEL, VARIANTS
from physres.stats import HIGHER_IS_BETTER
from physres.tables.common import aggregate, mean_std, write_table

PROTOCOLS = {"nominal": "nominal readout", "refit": "readout refitted"}
PERTURBATION_CAPTION = {
    "mismatch": "parameter mismatch (every entry of theta_rob multiplied by 1 + sigma z, z ~ N(0, 1))",
    "sensor": "sensor noise (the feedback controller and the readout read Q and Q' with noise of std "
    "sigma times each coordinate's RMS in a nominal rollout, drawn per input interval)",
    "actuation": "actuation noise (the robots receive T (1 + sigma z), z drawn per input interval)",
}


def half_advantage_sigma(
    sigmas: np.ndarray, pretrained: np.ndarray, unoptimized_nominal: float, higher_is_better: bool
) -> float:
    """The smallest sigma at which the pretrained reservoir has lost half of its advantage over
    the nominal unoptimized reservoir, linear between grid points: pretrained[0] is its own
    nominal score. NaN without an advantage at sigma = 0; inf if it never loses half on the grid.
    A diverged point (NaN) counts as lost."""
    sign = 1.0 if higher_is_better else -1.0
    advantage = sign * (np.asarray(pretrained, float) - unoptimized_nominal)
    if not np.isfinite(advantage[0]) or advantage[0] <= 0:
        return float("nan")
    left = np.nan_to_num(advantage, nan=-np.inf) - advantage[0] / 2  # <= 0: half or more lost
    for i in range(1, len(sigmas)):
        if left[i] <= 0:
            if not np.isfinite(left[i]):
                return float(sigmas[i])
            return float(sigmas[i - 1] + (sigmas[i] - sigmas[i - 1]) * left[i - 1] / (left[i - 1] - left[i]))
    return float("inf")


def robustness_scores(records: list[dict]) -> pd.DataFrame:
    """One row per (task, ny, variant, perturbation, sigma, protocol, seed, draw): metric, value,
    diverged. A run without a perturbation entry is a parameter mismatch run."""
    rows = [
        {
            "task": record["task"],
            "ny": int(record["ny"]),
            "variant": record["variant"],
            "perturbation": run.get("perturbation", "mismatch"),
            "sigma": float(run["sigma"]),
            "protocol": protocol,
            "seed": int(run["seed"]),
            "draw": int(run["draw"]),
            "metric": run[protocol]["metric"],
            "value": np.nan if run[protocol]["value"] is None else float(run[protocol]["value"]),
            "diverged": bool(run[protocol]["diverged"]),
        }
        for record in records
        for run in record["runs"]
        for protocol in PROTOCOLS
    ]
    return pd.DataFrame(rows)


def robustness_table(records: list[dict]) -> pd.DataFrame:
    """mean, std, n_seeds (runs) and n_diverged per (task, ny, variant, perturbation, protocol, sigma)."""
    table = aggregate(robustness_scores(records), ["task", "ny", "variant", "perturbation", "protocol", "sigma"])
    keys = pd.DataFrame(
        {
            "task": table["task"].map({t: i for i, t in enumerate(TASK_ORDER)}),
            "ny": table["ny"],
            "perturbation": table["perturbation"].map({k: i for i, k in enumerate(PERTURBATION_LABEL)}),
            "variant": table["variant"].map({v: i for i, v in enumerate([*VARIANTS, ROBUST])}),
            "protocol": table["protocol"].map({p: i for i, p in enumerate(PROTOCOLS)}),
            "sigma": table["sigma"],
        }
    )
    return table.loc[keys.sort_values(list(keys.columns), kind="stable").index].reset_index(drop=True)


def half_advantage(table: pd.DataFrame) -> pd.DataFrame:
    """Per (task, ny, perturbation, protocol) and pretrained variant (standard or robust
    pretraining): the sigma at which its mean score has lost half of its advantage over the
    nominal unoptimized one (NaN: no advantage; inf: not on the grid)."""
    rows = []
    groups = ["task", "ny", "perturbation", "protocol"]
    for (task, ny, perturbation, protocol), cell in table.groupby(groups, sort=False):
        for variant in ("pretrained", ROBUST):
            row = half_advantage_row(cell, variant)
            if row is not None:
                rows.append({**dict(zip(groups, (task, ny, perturbation, protocol))), "variant": variant, **row})
    return pd.DataFrame(rows, columns=[*groups, "variant", "metric", "unoptimized_mean", "half_advantage_sigma"])


def half_advantage_row(cell: pd.DataFrame, variant: str) -> dict | None:
    """half_advantage's entries of one variant in one cell (None: it has no sigma = 0 point)."""
    curve = cell[cell["variant"] == variant].sort_values("sigma")
    baseline = cell[(cell["variant"] == "unoptimized") & (cell["sigma"] == 0.0)]
    if curve.empty or baseline.empty or curve["sigma"].iloc[0] != 0.0:
        return None
    metric = curve["metric"].iloc[0]
    unoptimized_mean = float(baseline["mean"].iloc[0])
    sigma = half_advantage_sigma(
        curve["sigma"].to_numpy(float), curve["mean"].to_numpy(float), unoptimized_mean, HIGHER_IS_BETTER[metric]
    )
    return {"metric": metric, "unoptimized_mean": unoptimized_mean, "half_advantage_sigma": sigma}


def sigma_text(sigma: float, unoptimized_mean: float = 0.0) -> str:
    if not np.isfinite(unoptimized_mean):  # every nominal unoptimized run diverged: no baseline score
        return "unoptimized diverged"
    if np.isnan(sigma):
        return "no advantage at sigma = 0"
    if np.isinf(sigma):
        return "beyond the grid"
    percent = 100 * sigma
    # two significant digits below 1 %, so that an advantage lost within the grid's first step
    # reads as 0.038 %, not 0.0 %
    return f"{percent:.2g} %" if 0 < percent < 1 else f"{percent:.1f} %"


def render_robustness(table: pd.DataFrame, halves: pd.DataFrame, stem: str | Path) -> None:
    """Rows (task, ny, variant, protocol), one column per sigma; the half-advantage sigma of the
    pretrained rows in a last column."""
    sigmas = sorted(table["sigma"].unique())
    half = {
        (r.task, r.ny, r.perturbation, r.protocol, r.variant): sigma_text(r.half_advantage_sigma, r.unoptimized_mean)
        for r in halves.itertuples()
    }
    groups = ["task", "ny", "perturbation", "variant", "protocol"]

    def rows(style):
        out = []
        for (task, ny, perturbation, variant, protocol), group in table.groupby(groups, sort=False):
            by_sigma = {row["sigma"]: row for _, row in group.iterrows()}
            key = (task, ny, perturbation, protocol, variant)
            entry = {
                "Task": TASK_LABEL[task],
                "ny": ny,
                "Perturbation": PERTURBATION_LABEL[perturbation],
                "Variant": VARIANT_LABEL[variant],
                "Readout": PROTOCOLS[protocol],
                **{f"sigma {100 * s:g} %": mean_std(by_sigma[s], style) if s in by_sigma else "--" for s in sigmas},
                "half advantage at": half.get(key, ""),
            }
            out.append(entry)
        return pd.DataFrame(out)

    present = [kind for kind in PERTURBATION_LABEL if kind in set(table["perturbation"])]
    caption = (
        "Robustness (ours, not the paper's) to "
        + "; ".join(PERTURBATION_CAPTION[kind] for kind in present)
        + ". Controllers and map as trained on the nominal robots; the task's score with the readout "
        "trained on the nominal reservoir (deployment without recalibration) and refitted on the perturbed "
        "one; mean ± std over seeds and draws, * per diverged run. Last column: the sigma at which the "
        "pretrained reservoir's mean has lost half of its advantage over the nominal unoptimized one."
    )
    write_table(table, rows("plain"), rows("latex"), stem, caption)
