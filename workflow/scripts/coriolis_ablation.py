"""Coriolis ablation of one ny: every fully pretrained start simulated with and without C q'."""
import numpy as np

from physres.coriolis import ablate
from physres.data import read_task
from physres.io import atomic_h5, write_json
from physres.jobs import start_job
from physres.pretrain import load_checkpoint, training_failed

log = start_job(snakemake)
wc, p = snakemake.wildcards, snakemake.params
task = read_task(snakemake.input.data)
rows = []
with atomic_h5(snakemake.output.strains) as h5:
    h5.attrs["reference_dt"] = p.reference_dt
    for path in snakemake.input.models:
        model, sidecar = load_checkpoint(path)
        seed = sidecar["seed"]
        if training_failed(sidecar):
            log.warning("seed %d: pretraining failed; no ablation", seed)
            rows.append({"seed": seed, "diverged": True, "failed": True})
            continue
        row, q_nc, q_c = ablate(model, task, p.reference_dt, p.sim_dt, p.fine_dt, p.divergence_bound,
                                p.washout, p.lag, p.alpha)
        log.info("seed %d: %s", seed, row)
        rows.append({"seed": seed, **row})
        h5.create_dataset(f"seed{seed}/without", data=q_nc[0])  # first test sequence: (K, ny)
        h5.create_dataset(f"seed{seed}/with", data=q_c[0])
    h5.create_dataset("seeds", data=np.asarray([r["seed"] for r in rows], np.int64))
write_json(snakemake.output.json, {"task": p.task, "ny": int(wc.ny), "sim_dt": p.sim_dt, "fine_dt": p.fine_dt,
                                   "runs": rows})
