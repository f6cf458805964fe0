"""Activations of one reservoir variant on a task's train and test inputs."""
import numpy as np

from physres.data import read_task
from physres.io import atomic_h5, write_h5_attrs
from physres.jobs import start_job
from physres.reservoirs import activations, load_reservoir

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
reservoir = load_reservoir(wc.variant, snakemake.input.reservoir)
with atomic_h5(snakemake.output.h5) as h5:
    write_h5_attrs(h5, {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "seed": int(wc.seed),
                        "kind": task.kind, "washout": p.washout})
    for split in ("train", "test"):
        states = activations(reservoir, getattr(task, split).u, task.kind, p.washout, p.chunk_size, desc=split)
        finite = np.isfinite(states.reshape(len(states), -1)).all(axis=1)
        log.info("%s activations %s, %d non-finite sequences", split, states.shape, int((~finite).sum()))
        h5.create_dataset(f"{split}/states", data=states)
        h5.create_dataset(f"{split}/finite", data=finite)
