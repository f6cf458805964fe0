"""The paper's Fig. 3: y1 and y3 of the mapped physical rollout against the RON, per mode."""
import h5py

from physres.figures import save_figure, trajectory_figure
from physres.io import setup_logging

log = setup_logging(snakemake.log[0])
labels = {"rob_fixed": r"$\theta_\mathrm{rob}$ fixed", "full": "full pretraining"}
panels = {}
for mode, path in zip(snakemake.params.modes, snakemake.input.trajectories):
    with h5py.File(path) as h5:
        panels[labels[mode]] = (h5["y_ref"][0], h5["y_hat"][0, 0])  # first sequence, first start
        dt = float(h5.attrs["dt"])
save_figure(trajectory_figure(panels, dt, title=snakemake.params.title), snakemake.output.pdf, snakemake.output.png)
