"""Activations of every seed of one reservoir variant on a task's train and test inputs."""

import numpy as np

from physres.batching import activations
from physres.data import read_task
from physres.formats import write_activations
from physres.jobs import start_job
from physres.reservoirs import load_ensemble

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
# rules rollout_ron and rollout_physical: only the physical one has the robots' parameters
physical = (
    {}
    if wc.variant == "ron"
    else dict(
        architecture=p.architecture,
        unoptimized=p.unoptimized,
        reference_dt=p.reference_dt,
        sim_dt=p.sim_dt,
        divergence_bound=p.divergence_bound,
        task=wc.task,
        precision=p.precision,
    )
)
ensemble = load_ensemble(wc.variant, list(snakemake.input.reservoirs), p.seeds, **physical)
splits = {"train": task.train.u, "test": task.test.u}
if task.train.u.shape[1:] == task.test.u.shape[1:]:
    # both splits in one pass: one traced and compiled rollout, one call for all seeds
    n_train, u = len(task.train.u), np.concatenate([task.train.u, task.test.u])
    states, peak = activations(
        ensemble, u, task.kind, p.washout, min(p.chunk_size, len(u)), desc=f"{wc.variant} train+test"
    )
    rows = {"train": slice(None, n_train), "test": slice(n_train, None)}
    per_split = {split: (states[:, r], None if peak is None else peak[:, r]) for split, r in rows.items()}
else:  # one chunk size for both splits: one traced and compiled rollout per job
    chunk_size = min(p.chunk_size, max(len(u) for u in splits.values()))
    per_split = {
        split: activations(ensemble, u, task.kind, p.washout, chunk_size, desc=f"{wc.variant} {split}")
        for split, u in splits.items()
    }
write_activations(
    snakemake.output.h5,
    {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "kind": task.kind, "washout": p.washout},
    p.seeds,
    per_split,
    log,
)
