"""Pretrain all starts of one (task, ny, mode) together; one checkpoint + sidecar per start."""

import zlib
from pathlib import Path

import jax
import numpy as np

from physres.checkpoint import save_checkpoint
from physres.jobs import device_description, project_commit, start_job
from physres.physical import init_physical_reservoir, stack_models, unstack_model
from physres.pretrain import (
    Schedule,
    acceleration_rmse,
    dataset_digest,
    failed_starts,
    library_versions,
    pretrain_multistart,
    run_fingerprint,
)
from physres.pretraining_data import read_dataset

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
data = read_dataset(snakemake.input.dataset)
# the same seed gives the same initial robots, map and controllers in both modes
models = stack_models([init_physical_reservoir(jax.random.PRNGKey(s), **p.architecture) for s in p.seeds])
shuffle_key = jax.random.PRNGKey(zlib.crc32(f"{wc.task}/{wc.ny}/{wc.mode}".encode()))
schedule = Schedule(**p.schedule)
# everything the run's numbers depend on: a resume file of any other run is set aside
fingerprint = run_fingerprint(
    {
        "task": wc.task,
        "ny": int(wc.ny),
        "mode": wc.mode,
        "seeds": p.seeds,
        "architecture": p.architecture,
        "schedule": p.schedule,
        "x64": p.x64,
        "dataset": dataset_digest(data),
        "versions": library_versions(),
    }
)
state = pretrain_multistart(
    models,
    data,
    schedule,
    wc.mode,
    shuffle_key,
    resume_path=p.resume,
    checkpoint_every=p.checkpoint_every,
    log=log,
    fingerprint=fingerprint,
)
test = jax.tree_util.tree_map(jax.numpy.asarray, data["test"])
initial_theta = np.asarray(models.robots.theta())
failed = failed_starts(state)
for i, (seed, path) in enumerate(zip(p.seeds, snakemake.output.models)):
    best = unstack_model(state.best_model, i)
    rmse = float(acceleration_rmse(best, test))
    log.info(
        "seed %d: best epoch %d, val MSE %.4g, test RMSE %.4g",
        seed,
        int(state.best_epoch[i]),
        float(state.best_val[i]),
        rmse,
    )
    if failed[i]:  # its checkpoint is the untrained start: carried as failed, never scored
        log.warning("seed %d: training never reached a finite validation loss; marked failed", seed)
    save_checkpoint(
        path,
        best,
        {
            "task": wc.task,
            "ny": int(wc.ny),
            "mode": wc.mode,
            "seed": seed,
            "architecture": p.architecture,
            "schedule": p.schedule,
            "versions": library_versions(),
            "device": device_description(),
            "commit": project_commit(),
            "best_epoch": int(state.best_epoch[i]),
            "best_val_mse": float(state.best_val[i]),
            "test_rmse": None if failed[i] else rmse,
            "failed": bool(failed[i]),
            "fingerprint": fingerprint,
            "train_loss": np.asarray(state.train_loss[i]),
            "val_loss": np.asarray(state.val_loss[i]),
            "theta_rob_initial": initial_theta[i],
            "theta_rob": np.asarray(best.robots.theta()),
        },
    )
Path(p.resume).unlink(missing_ok=True)
