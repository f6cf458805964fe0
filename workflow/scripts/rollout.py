"""Activations of every seed of one reservoir variant on a task's train and test inputs."""
import numpy as np

from physres.data import read_task
from physres.io import atomic_h5, write_h5_attrs
from physres.jobs import start_job
from physres.reservoirs import activations, load_reservoirs

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
reservoirs = load_reservoirs(wc.variant, list(snakemake.input.reservoirs), p.seeds, architecture=p.architecture,
                             unoptimized=p.unoptimized, reference_dt=p.reference_dt, sim_dt=p.sim_dt,
                             divergence_bound=p.divergence_bound)
# one chunk size for both splits: one traced and compiled rollout per job
chunk_size = min(p.chunk_size, max(len(task.train.u), len(task.test.u)))
with atomic_h5(snakemake.output.h5) as h5:
    write_h5_attrs(h5, {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "kind": task.kind,
                        "washout": p.washout})
    h5.create_dataset("seeds", data=np.asarray(p.seeds, dtype=np.int64))
    for seed, reservoir in reservoirs:
        for split in ("train", "test"):
            states, peak = activations(reservoir, getattr(task, split).u, task.kind, p.washout, chunk_size,
                                       desc=f"seed {seed} {split}")
            finite = np.isfinite(states.reshape(len(states), -1)).all(axis=1)
            log.info("seed %d %s activations %s, %d non-finite sequences%s", seed, split, states.shape,
                     int((~finite).sum()), "" if peak is None else f", peak |state| {np.max(peak):.3g}")
            group = h5.create_group(f"seed{seed}/{split}")
            group.create_dataset("states", data=states)
            group.create_dataset("finite", data=finite)
            if peak is not None:
                group.create_dataset("peak", data=peak)
