"""The paper's Fig. 3: y1 and y3 of the mapped physical rollout against the RON, per mode."""

from physres.figures import first_bounded_start, save_figure, trajectory_figure
from physres.io import read_h5, setup_logging

log = setup_logging(snakemake.log[0])
labels = {"rob_fixed": r"$\theta_\mathrm{rob}$ fixed", "full": "full pretraining"}
panels = {}
paths = dict(zip(snakemake.params.modes, snakemake.input.trajectories))
for mode, path in sorted(paths.items(), key=lambda item: list(labels).index(item[0])):  # the paper's (a), (b)
    with read_h5(path, "evaluate_pretraining") as h5:
        y_hat = h5["y_hat"][:, 0]  # first test sequence: (starts, K, ny)
        start = first_bounded_start(y_hat)  # a diverged start has nothing to draw
        seeds = h5["seeds"][...]
        label = labels[mode] if start is None else f"{labels[mode]} (start {seeds[start]})"
        log.info("%s: %s", mode, "every start diverged" if start is None else f"drawing start {seeds[start]}")
        panels[label] = (h5["y_ref"][0], None if start is None else y_hat[start])
        dt = float(h5.attrs["dt"])
save_figure(trajectory_figure(panels, dt, title=snakemake.params.title), snakemake.output.pdf, snakemake.output.png)
