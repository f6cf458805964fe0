"""Activations of every seed of one reservoir variant on a task's train and test inputs: the
whole file (rule rollout_ron), or one job's part of them (the physical rollout rules, gathered by
rule gather_activations)."""

import numpy as np

from physres.batching import activations, part_rows, split_activations
from physres.data import read_task
from physres.formats import write_activation_part, write_activations
from physres.io import InputError
from physres.jobs import start_job
from physres.reservoirs import load_ensemble

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
# rules rollout_ron and the physical rollouts: only the physical ones have a simulation, and only
# the unoptimized variant the robots' parameters and encoding (the others read theirs from files)
physical = (
    {}
    if wc.variant == "ron"
    else dict(architecture=p.get("architecture"), unoptimized=p.get("unoptimized"), task=wc.task, **p.simulation)
)
ensemble = load_ensemble(wc.variant, list(snakemake.input.reservoirs), p.seeds, **physical)
attrs = {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "kind": task.kind, "washout": p.washout}
if "part" in snakemake.output.keys():
    # one job's share of train and test concatenated, on the unsplit run's chunk boundaries
    if task.train.u.shape[1:] != task.test.u.shape[1:]:
        raise InputError(snakemake.input.data, "train and test sequences differ in shape: no parts", "task_data")
    u = np.concatenate([task.train.u, task.test.u])
    rows = part_rows(len(u), p.chunk_size, p.chunks_per_job, int(wc.part))
    log.info("part %s: sequences %d-%d of %d in chunks of %d", wc.part, rows.start, rows.stop, len(u), p.chunk_size)
    states, peak = activations(
        ensemble, u[rows], task.kind, p.washout, p.chunk_size, desc=f"{wc.variant} part {wc.part}"
    )
    attrs |= {"n_train": len(task.train.u), "n_sequences": len(u)}
    write_activation_part(snakemake.output.part, attrs, p.seeds, rows, states, peak)
else:
    per_split = split_activations(ensemble, task, p.washout, p.chunk_size, wc.variant)
    write_activations(snakemake.output.h5, attrs, p.seeds, per_split, log)
