"""Test RMSE of accelerations (overall and per coordinate of y'') and trajectory NRMSE of the
mapped physical rollout vs the RON."""

import jax.numpy as jnp
import numpy as np

from physres.checkpoint import load_checkpoint, training_failed
from physres.data import read_task
from physres.formats import Trajectories, write_trajectories
from physres.io import write_json
from physres.jobs import start_job
from physres.pretrain import acceleration_rmse, acceleration_rmse_per_coordinate
from physres.pretraining_data import read_dataset
from physres.reservoirs import PhysicalEnsemble
from physres.ron import load_ron, ron_rollout
from physres.simulate import at_sample_times, diverged, trajectory_nrmse

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
ron = load_ron(snakemake.input.ron)
test = {k: jnp.asarray(v) for k, v in read_dataset(snakemake.input.dataset)["test"].items()}
u = read_task(snakemake.input.data).test.u[: p.n_sequences, : p.max_steps]
# the RON's states at the times the physical rollout saves its own (n_seq, K, ny)
y_ref = np.asarray(at_sample_times(ron_rollout(ron, jnp.asarray(u), keep="all"), p.input_interpolation))

models, sidecars = zip(*map(load_checkpoint, snakemake.input.models))
seeds, failed = [s["seed"] for s in sidecars], [training_failed(s) for s in sidecars]
# all starts in one vmapped rollout; their activations are y_hat = psi(Q); a failed start's are NaN
ensemble = PhysicalEnsemble(
    seeds, models, ron.dt, p.sim_dt, p.divergence_bound, failed, interpolation=p.input_interpolation
)
y_hats, peaks = ensemble.all_states(u)
results = []
for model, seed, y_hat, peak, is_failed in zip(models, seeds, y_hats, peaks, failed):
    is_diverged = diverged(peak, p.divergence_bound)
    nrmse = None if is_diverged else trajectory_nrmse(y_ref, y_hat)
    rmse = None if is_failed else float(acceleration_rmse(model, test))
    per_coordinate = None if is_failed else np.asarray(acceleration_rmse_per_coordinate(model, test))
    log.info(
        "seed %d: test RMSE %s, trajectory NRMSE %s%s",
        seed,
        rmse,
        nrmse,
        " (training failed)" if is_failed else " (diverged)" if is_diverged else "",
    )
    results.append(
        {
            "seed": seed,
            "test_rmse": rmse if rmse is not None and np.isfinite(rmse) else None,
            # per component of y'': a start that leaves some coordinates unfitted shows here
            "test_rmse_per_coordinate": (
                None if per_coordinate is None or not np.isfinite(per_coordinate).all() else per_coordinate.tolist()
            ),
            "trajectory_nrmse": nrmse,
            "diverged": is_diverged,
            "failed": is_failed,
        }
    )

write_json(
    snakemake.output.json,
    {"task": wc.task, "ny": int(wc.ny), "mode": wc.mode, "n_steps": int(u.shape[1]), "seeds": results},
)
write_trajectories(
    snakemake.output.trajectories, Trajectories(y_ref, y_hats, np.asarray([r["seed"] for r in results]), ron.dt)
)
