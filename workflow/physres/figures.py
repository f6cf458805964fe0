"""Figures in the paper's style: PDF (vector, for papers) and PNG (for the report)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from physres.io import atomic_path  # noqa: E402

plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
                     "savefig.bbox": "tight", "pdf.fonttype": 42})


def save_figure(fig, pdf: str | Path, png: str | Path) -> None:
    for path, kwargs in ((pdf, {}), (png, {"dpi": 200})):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=Path(path).suffix[1:], **kwargs)
    plt.close(fig)


def trajectory_figure(panels: dict[str, tuple[np.ndarray, np.ndarray]], dt: float, components=(0, 2),
                      title: str = ""):
    """The paper's Fig. 3: y_hat (solid) against the RON's y (dashed) for some components.

    panels: {label: (y_ref (K, ny), y_hat (K, ny))}
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 2.4), sharey=True, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (label, (y_ref, y_hat)) in zip(axes[0], panels.items()):
        t = dt * np.arange(1, len(y_ref) + 1)
        for color, i in zip(colors, components):
            ax.plot(t, y_hat[:, i], color=color, lw=1.2, label=rf"$\hat y_{{{i + 1}}}$")
            ax.plot(t, y_ref[:, i], color=color, lw=1.2, ls="--", label=rf"$y_{{{i + 1}}}$")
        ax.set_title(label)
        ax.set_xlabel("time")
    axes[0][0].set_ylabel("reservoir coordinate")
    axes[0][-1].legend(frameon=False, ncol=2, fontsize=7)
    if title:
        fig.suptitle(title)
    return fig
