"""The paper's Fig. 3: y1 and y3 of the mapped physical rollout against the RON, per mode."""

from physres.figures import first_bounded_start, save_figure, trajectory_figure
from physres.formats import read_trajectories
from physres.io import setup_logging

log = setup_logging(snakemake.log[0])
labels = {"rob_fixed": r"$\theta_\mathrm{rob}$ fixed", "full": "full pretraining"}
panels = {}
paths = dict(zip(snakemake.params.modes, snakemake.input.trajectories))
for mode, path in sorted(paths.items(), key=lambda item: list(labels).index(item[0])):  # the paper's (a), (b)
    trajectories = read_trajectories(path)
    y_hat, seeds, dt = trajectories.y_hat[:, 0], trajectories.seeds, trajectories.dt  # first test sequence
    start = first_bounded_start(y_hat)  # a diverged start has nothing to draw
    label = labels[mode] if start is None else f"{labels[mode]} (start {seeds[start]})"
    log.info("%s: %s", mode, "every start diverged" if start is None else f"drawing start {seeds[start]}")
    panels[label] = (trajectories.y_ref[0], None if start is None else y_hat[start])
save_figure(trajectory_figure(panels, dt, title=snakemake.params.title), snakemake.output.pdf, snakemake.output.png)
