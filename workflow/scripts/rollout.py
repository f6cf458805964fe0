"""Activations of every seed of one reservoir variant on a task's train and test inputs."""
import numpy as np

from physres.data import read_task
from physres.io import atomic_h5, write_h5_attrs
from physres.jobs import start_job
from physres.reservoirs import activations, load_ensemble

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
# rules rollout_ron and rollout_physical: only the physical one has the robots' parameters
physical = {} if wc.variant == "ron" else dict(
    architecture=p.architecture, unoptimized=p.unoptimized, reference_dt=p.reference_dt, sim_dt=p.sim_dt,
    divergence_bound=p.divergence_bound, task=wc.task)
ensemble = load_ensemble(wc.variant, list(snakemake.input.reservoirs), p.seeds, **physical)
splits = {"train": task.train.u, "test": task.test.u}
if task.train.u.shape[1:] == task.test.u.shape[1:]:
    # both splits in one pass: one traced and compiled rollout, one call for all seeds
    n_train, u = len(task.train.u), np.concatenate([task.train.u, task.test.u])
    states, peak = activations(ensemble, u, task.kind, p.washout, min(p.chunk_size, len(u)),
                               desc=f"{wc.variant} train+test")
    rows = {"train": slice(None, n_train), "test": slice(n_train, None)}
    per_split = {split: (states[:, r], None if peak is None else peak[:, r]) for split, r in rows.items()}
else:  # one chunk size for both splits: one traced and compiled rollout per job
    chunk_size = min(p.chunk_size, max(len(u) for u in splits.values()))
    per_split = {split: activations(ensemble, u, task.kind, p.washout, chunk_size, desc=f"{wc.variant} {split}")
                 for split, u in splits.items()}
with atomic_h5(snakemake.output.h5) as h5:
    write_h5_attrs(h5, {"task": wc.task, "ny": int(wc.ny), "variant": wc.variant, "kind": task.kind,
                        "washout": p.washout})
    h5.create_dataset("seeds", data=np.asarray(p.seeds, dtype=np.int64))
    for i, seed in enumerate(p.seeds):
        for split, (states, peak) in per_split.items():
            finite = np.isfinite(states[i].reshape(len(states[i]), -1)).all(axis=1)
            log.info("seed %d %s activations %s, %d non-finite sequences%s", seed, split, states[i].shape,
                     int((~finite).sum()), "" if peak is None else f", peak |state| {np.max(peak[i]):.3g}")
            group = h5.create_group(f"seed{seed}/{split}")
            group.create_dataset("states", data=states[i])
            group.create_dataset("finite", data=finite)
            if peak is not None:
                group.create_dataset("peak", data=peak[i])
