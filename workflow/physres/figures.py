"""Figures in the paper's style: PDF (vector, for papers) and PNG (for the report)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from physres import flops  # noqa: E402
from physres.io import atomic_path  # noqa: E402
from physres.names import ROBUST, TUNED  # noqa: E402

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9"]  # colour-blind-safe
plt.rcParams.update(
    {"font.size": 9, "axes.spines.top": False, "axes.spines.right": False, "savefig.bbox": "tight", "pdf.fonttype": 42}
)


def save_figure(fig, pdf: str | Path, png: str | Path) -> None:
    for path, kwargs in ((pdf, {}), (png, {"dpi": 200})):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=Path(path).suffix[1:], **kwargs)
    plt.close(fig)


def first_bounded_start(y_hat: np.ndarray) -> int | None:
    """Index of the first start whose rollout stayed finite, y_hat (starts, K, ny); None if all diverged."""
    finite = np.isfinite(y_hat.reshape(len(y_hat), -1)).all(axis=1)
    return int(np.argmax(finite)) if finite.any() else None


def trajectory_figure(
    panels: dict[str, tuple[np.ndarray, np.ndarray | None]], dt: float, components=(0, 2), title: str = ""
):
    """The paper's Fig. 3: y_hat (solid) against the RON's y (dashed) for some components.

    panels: {label: (y_ref (K, ny), y_hat (K, ny) or None where every start diverged)}
    """
    # separate y axes: a rob_fixed rollout can be orders of magnitude off and would flatten the other panel
    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 2.4), squeeze=False)
    colors = OKABE_ITO
    for ax, (label, (y_ref, y_hat)) in zip(axes[0], panels.items()):
        t = dt * np.arange(1, len(y_ref) + 1)
        for color, i in zip(colors, components):
            if y_hat is not None:
                ax.plot(t, y_hat[:, i], color=color, lw=1.2, label=rf"$\hat y_{{{i + 1}}}$")
            ax.plot(t, y_ref[:, i], color=color, lw=1.2, ls="--", label=rf"$y_{{{i + 1}}}$")
        if y_hat is None:
            ax.text(0.5, 0.5, "every start diverged", transform=ax.transAxes, ha="center", va="center")
        ax.set_title(label)
        ax.set_xlabel("time (s)")
    axes[0][0].set_ylabel("reservoir coordinate")
    axes[0][-1].legend(frameon=False, ncol=2, fontsize=7)
    if title:
        fig.suptitle(title, y=1.04)
    return fig


VARIANT_STYLE = {  # label, colour (Okabe-Ito), marker: told apart without colour too
    "unoptimized": ("Unoptimized", "#D55E00", "v"),
    "partial": ("Partially pretrained", "#E69F00", "s"),
    "pretrained": ("Pretrained (ours)", "#009E73", "o"),
    TUNED: ("Unoptimized, gain tuned (ours)", "#56B4E9", "^"),
}
METRIC_LABEL = {"accuracy": "accuracy (%) ↑", "nrmse": "NRMSE ↓"}
# the robustness figures add the digital reference (its noise curve) in grey
ROBUSTNESS_STYLE = (
    {"ron": ("Digital RON", "0.45", "D")} | VARIANT_STYLE | {ROBUST: ("Pretrained robustly (ours)", "#CC79A7", "P")}
)


def scalability_figure(table, task_labels: dict[str, str]):
    """The paper's scalability figure: one panel per task, score against ny; mean line and
    std band per physical variant (cut at 0: scores are non-negative), the target RON dashed
    gray. Diverged runs are marked as in the tables (one * per run beside the point); a cell
    whose runs all diverged gets an x on the panel's lower edge in the variant's colour.

    table: the benchmark table (columns task, ny, variant, metric, mean, std, target, n_diverged).
    """
    tasks = list(dict.fromkeys(table["task"]))
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.0 * len(tasks), 2.6), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        rows = table[table["task"] == task]
        ron = rows[rows["variant"] == "ron"].sort_values("ny")
        ax.plot(ron["ny"], ron["target"], color="0.45", ls="--", lw=1.2, marker="D", ms=3, label="Digital RON")
        for variant, (label, color, marker) in VARIANT_STYLE.items():
            r = rows[rows["variant"] == variant].sort_values("ny")
            if r.empty:
                continue
            mean, std = r["mean"].to_numpy(float), np.nan_to_num(r["std"].to_numpy(float))
            ax.plot(r["ny"], mean, color=color, lw=1.5, marker=marker, ms=4, label=label)
            # accuracy and NRMSE are non-negative: the band stops at 0
            ax.fill_between(r["ny"], np.maximum(mean - std, 0.0), mean + std, color=color, alpha=0.2, lw=0)
            for ny, value, n_diverged in zip(r["ny"], mean, r["n_diverged"].fillna(0).astype(int)):
                if not np.isfinite(value):  # nothing to draw: every run diverged
                    ax.plot(
                        [ny],
                        [0.0],
                        marker="x",
                        color=color,
                        ms=7,
                        mew=1.8,
                        clip_on=False,
                        transform=ax.get_xaxis_transform(),
                    )
                elif n_diverged:
                    ax.annotate(
                        "*" * n_diverged,
                        (ny, value),
                        textcoords="offset points",
                        xytext=(3, 3),
                        color=color,
                        fontsize=8,
                    )
        ax.set_title(task_labels.get(task, task))
        ax.set_xlabel(r"$n_y$")
        ax.set_xticks(sorted(rows["ny"].unique()))
        ax.set_ylabel(METRIC_LABEL.get(rows["metric"].iloc[0], rows["metric"].iloc[0]))
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], color="0.3", marker="x", ls="", ms=6, mew=1.8))
    labels.append("all runs diverged (* one diverged run)")
    fig.legend(
        handles, labels, loc="lower center", ncol=len(labels), frameon=False, bbox_to_anchor=(0.5, -0.1), fontsize=7
    )
    fig.tight_layout()
    return fig


def flops_figure(config: dict, task_labels: dict[str, str], largest_ny: int = 300):
    """The paper's FLOPs figure: reservoir, readout and whole-pipeline FLOPs per input sequence
    against ny, per task (colour), RON solid, PRC with 2 x 64 controllers dashed, simplified
    dotted; log axes."""

    ny = np.arange(3, largest_ny + 1)
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.0), sharex=True)
    styles = {"ron": ("-", "RON"), "prc_full": ("--", "PRC, 2 x 64"), "prc_simplified": (":", "PRC, simplified")}
    for color, task in zip(OKABE_ITO, config["tasks"]):
        size = flops.task_size(config, task)
        values = [flops.pipeline_flops(int(n), size) for n in ny]
        for ax, part in zip(axes, ("reservoir", "readout", "total")):
            for pipeline, (style, _) in styles.items():
                ax.plot(ny, [v[pipeline][part] for v in values], style, color=color, lw=1.3)
    for ax, title in zip(axes, ("reservoir dynamics", "task-specific readout", "complete pipeline")):
        ax.set(xscale="log", yscale="log", xlabel="reservoir dimension $n_y$", title=title)
    axes[0].set_ylabel("FLOPs per input sequence")
    axes[1].text(0.03, 0.95, "the same for RON and PRC", transform=axes[1].transAxes, fontsize=7, va="top")
    handles = [plt.Line2D([], [], color=c, label=task_labels.get(t, t)) for c, t in zip(OKABE_ITO, config["tasks"])]
    handles += [plt.Line2D([], [], color="black", ls=s, label=label) for s, label in styles.values()]
    fig.legend(
        handles=handles, loc="upper center", ncol=len(handles), frameon=False, fontsize=7, bbox_to_anchor=(0.5, 1.08)
    )
    fig.tight_layout()
    return fig


def strain_figure(pair: tuple[np.ndarray, np.ndarray] | None, dt: float, title: str = ""):
    """The paper's Coriolis figure: strains q(t) of the physical reservoir without (solid) and with
    (dashed) the Coriolis/centrifugal term; pair = (q_nc, q_c), each (K, ny), or None."""
    fig, ax = plt.subplots(figsize=(6.8, 2.6))
    if pair is None:
        ax.text(0.5, 0.5, "every run diverged", transform=ax.transAxes, ha="center", va="center")
    else:
        q_nc, q_c = pair
        t = dt * np.arange(1, len(q_nc) + 1)
        for i in range(q_nc.shape[1]):
            color = OKABE_ITO[i % len(OKABE_ITO)]
            ax.plot(t, q_nc[:, i], color=color, lw=1.2)
            ax.plot(t, q_c[:, i], color=color, lw=1.2, ls="--")
        ax.plot([], [], color="0.3", lw=1.2, label="without Coriolis and centrifugal")
        ax.plot([], [], color="0.3", lw=1.2, ls="--", label="with Coriolis and centrifugal")
        ax.legend(frameon=False, fontsize=7)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("strain q")
    if title:
        ax.set_title(title)
    return fig


def memory_capacity_figure(curves: dict[tuple[str, int, str], np.ndarray], task_labels: dict[str, str]):
    """Memory capacity MC_k against delay k: one panel per (task, ny), tasks in columns and ny in
    rows; the RON dashed gray, the physical variants as in the scalability figure (means over the
    seeds that did not diverge; a variant whose seeds all diverged has no line).

    curves: (task, ny, variant) -> MC_k for k = 0 .. max_delay (physres.tables.diagnostics).
    """
    tasks = list(dict.fromkeys(task for task, _, _ in curves))
    dims = sorted({ny for _, ny, _ in curves})
    present = {variant for _, _, variant in curves}
    styles = {v: style for v, style in ({"ron": ("Digital RON", "0.45", "")} | VARIANT_STYLE).items() if v in present}
    fig, axes = plt.subplots(
        len(dims), len(tasks), figsize=(2.8 * len(tasks), 2.0 * len(dims) + 0.4), squeeze=False, sharex=True
    )
    for row, ny in enumerate(dims):
        for col, task in enumerate(tasks):
            ax = axes[row][col]
            for variant, (_, color, marker) in styles.items():
                mc = curves.get((task, ny, variant))
                if mc is not None:
                    ls = "--" if variant == "ron" else "-"
                    every = max(1, len(mc) // 8)
                    ax.plot(np.arange(len(mc)), mc, color=color, ls=ls, lw=1.3, marker=marker, ms=3, markevery=every)
            ax.set_ylim(-0.03, 1.03)
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
            ax.set_title(f"{task_labels.get(task, task)}, $n_y$ = {ny}", fontsize=9)
            if row == len(dims) - 1:
                ax.set_xlabel("delay $k$ (input samples)")
            if col == 0:
                ax.set_ylabel("$MC_k$")
    handles = [
        plt.Line2D([], [], color=c, ls="--" if v == "ron" else "-", lw=1.3, marker=m, ms=3)
        for v, (_, c, m) in styles.items()
    ]
    fig.legend(
        handles,
        [label for label, _, _ in styles.values()],
        loc="lower center",
        ncol=len(styles),
        frameon=False,
        bbox_to_anchor=(0.5, -0.02),
        fontsize=7,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def robustness_figure(table, task_labels: dict[str, str], perturbation: str = "parameter mismatch"):
    """Score against the relative size sigma (%) of one perturbation, one panel per (task, ny),
    tasks in columns and ny in rows: one colour per variant as in the scalability figure, solid with
    the nominal readout, dashed with the readout refitted; means over seeds and draws that did not
    diverge, a marker x on the lower edge where all of them diverged; NRMSE on a log scale.

    table: physres.tables.robustness.robustness_table's rows of one perturbation (task, ny,
    variant, protocol, sigma, metric, mean); perturbation: its name on the x axis.
    """
    tasks = list(dict.fromkeys(table["task"]))
    dims = sorted(table["ny"].unique())
    fig, axes = plt.subplots(
        len(dims), len(tasks), figsize=(2.8 * len(tasks), 2.2 * len(dims) + 0.5), squeeze=False, sharex=True
    )
    for row, ny in enumerate(dims):
        for col, task in enumerate(tasks):
            ax = axes[row][col]
            cell = table[(table["task"] == task) & (table["ny"] == ny)]
            for (variant, protocol), curve in cell.groupby(["variant", "protocol"], sort=False):
                label, color, marker = ROBUSTNESS_STYLE[variant]
                curve = curve.sort_values("sigma")
                x, y = 100 * curve["sigma"].to_numpy(float), curve["mean"].to_numpy(float)
                ls = "-" if protocol == "nominal" else "--"
                ax.plot(x, y, color=color, ls=ls, marker=marker, ms=3.5, lw=1.3)
                lost = ~np.isfinite(y)
                if lost.any():
                    ax.plot(
                        x[lost],
                        np.zeros(lost.sum()),
                        "x",
                        color=color,
                        ms=6,
                        mew=1.6,
                        clip_on=False,
                        transform=ax.get_xaxis_transform(),
                    )
            if not cell.empty:
                metric = cell["metric"].iloc[0]
                ax.set_ylabel(METRIC_LABEL.get(metric, metric), fontsize=8)
                if metric == "nrmse" and np.isfinite(cell["mean"]).any():
                    ax.set_yscale("log")  # a nominal readout under perturbation can miss by orders of magnitude
                    values = cell["mean"][np.isfinite(cell["mean"])]
                    decades = np.log10(values.max() / values.min())
                    # within two decades ticks at 1, 2, 5 x 10^k, written plainly; beyond, decades
                    subs = (1.0, 2.0, 5.0) if decades <= 2 else (1.0,)
                    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=subs))
                    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
                    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_title(f"{task_labels.get(task, task)}, $n_y$ = {ny}", fontsize=9)
            if row == len(dims) - 1:
                ax.set_xlabel(f"{perturbation} $\\sigma$ (%)")
    variants = [v for v in ROBUSTNESS_STYLE if v in set(table["variant"])]
    handles = [
        plt.Line2D([], [], color=ROBUSTNESS_STYLE[v][1], marker=ROBUSTNESS_STYLE[v][2], ms=3.5) for v in variants
    ]
    labels = [ROBUSTNESS_STYLE[v][0] for v in variants]
    handles += [plt.Line2D([], [], color="0.3", ls="-"), plt.Line2D([], [], color="0.3", ls="--")]
    labels += ["nominal readout", "readout refitted"]
    fig.legend(
        handles, labels, loc="lower center", ncol=len(labels), frameon=False, bbox_to_anchor=(0.5, -0.02), fontsize=7
    )
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig
