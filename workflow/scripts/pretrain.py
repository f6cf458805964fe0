"""Pretrain all starts of one (task, ny, mode) together; one checkpoint + sidecar per start."""

import zlib
from pathlib import Path

import jax

from physres.checkpoint import save_checkpoint
from physres.jobs import device_description, project_commit, start_job
from physres.physical import init_physical_reservoir, stack_models, unstack_model
from physres.pretrain import (
    Schedule,
    dataset_digest,
    library_versions,
    pretrain_multistart,
    run_fingerprint,
    start_records,
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
common = {
    "task": wc.task,
    "ny": int(wc.ny),
    "mode": wc.mode,
    "architecture": p.architecture,
    "schedule": p.schedule,
    "versions": library_versions(),
    "device": device_description(),
    "commit": project_commit(),
    "fingerprint": fingerprint,
}
for i, (record, path) in enumerate(zip(start_records(state, models, test, p.seeds, log), snakemake.output.models)):
    save_checkpoint(path, unstack_model(state.best_model, i), {**common, **record})
Path(p.resume).unlink(missing_ok=True)
